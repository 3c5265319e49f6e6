"""Engine throughput (issue #2 item 9): agent-steps per second with uniformly random legal actions.

Measures, in one run: (a) the PettingZoo AEC environment (one game, ``agent_iter`` + ``last`` +
``step``), the baseline; (b) the batched engine step by step (``sample_actions`` + unchecked
``step`` + ``reset_done`` of an :class:`~pi_env.engine.Engine`) and (c) the fused call
:func:`pi_env.engine.play` (sampling, step and autoreset in one numba loop), each on one thread and
threaded, at several batch sizes; the peak memory of (b) traced by ``tracemalloc``; the ratio to (a).
Numba compile time is excluded (a warm-up compiles both builds first). Targets (2-core machine, no
other load): 4-player random play ≥ 3,000,000 agent-steps/s at B = 4096 (issue #16), threads never
slower than one thread, (a) ≥ 20,000 agent-steps/s, ≤ 1 GiB at B = 4096.

Besides agent-steps per wall-clock second, every row shows agent-steps per CPU second of the process
(all its threads, ``time.process_time``): on a machine busy with other work the wall-clock rate is
the machine's, the CPU rate the code's (a one-thread row's CPU rate is what one free core gives; a
threaded row's is what each core gives, so ``cores x`` it bounds the threaded rate of a free
machine). ``threads / 1 thread`` compares the wall-clock rates of the same batch size.

    python benchmarks/engine_throughput.py [--players 4] [--seconds 3] [--batch 1 64 256 1024 4096]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from pi_env.core.text import format_table
from pi_env.engine import Engine, GameConfig, init, play, policy_streams


def bench_batched(config: GameConfig, batch: int, seconds: float, parallel: bool | None = None,
                  seed: int = 0) -> tuple[float, float, float]:
    """(agent-steps/s, per CPU second, peak MiB) of the step-by-step batched engine with random legal actions:
    ``sample_actions`` + unchecked ``step`` + ``reset_done`` of an :class:`Engine`, one Python
    call each per turn of the batch."""
    rng = np.random.default_rng(seed)
    tracemalloc.start()
    eng = Engine(config, batch, seed=seed, parallel=parallel)
    actions = np.empty(batch, dtype=np.int64)
    steps = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        for _ in range(20):
            eng.sample_actions(rng, out=actions)
            eng.step(actions, check=False)
            eng.reset_done()
        steps += 20 * batch  # every game is live: finished games are reset at once
        if time.perf_counter() - t0 > seconds:
            break
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return steps / elapsed, steps / cpu, peak / 2**20


def bench_fused(config: GameConfig, batch: int, seconds: float, parallel: bool | None = None,
                seed: int = 0, turns: int = 50) -> tuple[float, float]:
    """(agent-steps/s, per CPU second) of the fused call :func:`pi_env.engine.play` (uniformly
    random legal actions, step and autoreset in one numba loop per range of games)."""
    state = init(config, batch, seed=seed)
    streams = policy_streams(seed, batch)
    steps = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        done, _ = play(state, config, turns, "random", seed=streams, parallel=parallel)
        steps += int(done.sum())
        if time.perf_counter() - t0 > seconds:
            break
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def bench_aec(num_players: int, seconds: float, seed: int = 0, wrapped: bool = True) -> float:
    """Agent-steps/s of the PettingZoo AEC env (random legal actions, the classic-games loop).

    ``wrapped`` measures ``pi_env.env()`` (PettingZoo's illegal-move, bounds and order wrappers, as
    in the classic games); otherwise ``pi_env.raw_env()``.
    """
    import pi_env

    env = pi_env.env(num_players=num_players) if wrapped else pi_env.raw_env(num_players=num_players)
    rng = np.random.default_rng(seed)
    steps = 0
    t0 = time.perf_counter()
    games = 0
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed + games)
        games += 1
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 256, 1024, 4096])
    args = parser.parse_args()
    config = GameConfig(num_players=args.players)
    # warm-up: compile every kernel (serial and threaded builds) outside the measurements
    for parallel in (False, True):
        bench_batched(config, 2, 0.05, parallel)
        bench_fused(config, 2, 0.05, parallel)
    bench_aec(args.players, 0.05)
    load0 = os.getloadavg()[0]
    aec = bench_aec(args.players, args.seconds)
    raw = bench_aec(args.players, args.seconds, wrapped=False)
    body = [("(a) PettingZoo env() (wrapped)", f"{aec:,.0f}", "", "", "", "1.0"),
            ("    PettingZoo raw_env()", f"{raw:,.0f}", "", "", "", f"{raw / aec:.1f}")]
    for b in args.batch:
        for kind in ("(b) step by step", "(c) fused play()"):
            one = None
            for parallel, label in ((False, "1 thread"), (True, "threads")):
                if kind.startswith("(b)"):
                    sps, cps, mib = bench_batched(config, b, args.seconds, parallel)
                else:
                    (sps, cps), mib = bench_fused(config, b, args.seconds, parallel), float("nan")
                ratio = "" if one is None else f"{sps / one:.2f}"
                one = sps if one is None else one
                body.append((f"{kind} B={b}, {label}", f"{sps:,.0f}", f"{cps:,.0f}", ratio,
                             "" if mib != mib else f"{mib:.1f}", f"{sps / aec:.1f}"))
    load1 = os.getloadavg()[0]
    print(f"{args.players} players, random legal actions, {args.seconds:g} s per row, {os.cpu_count()} CPUs, "
          f"load average {load0:.1f} at the start, {load1:.1f} at the end (wall-clock figures on a busy "
          "machine are the machine's, not the engine's)")
    print("\n".join(format_table(body, ("configuration", "agent-steps/s", "per CPU second", "threads / 1 thread",
                                        "peak MiB", "ratio vs (a)"), align="lrrrrr")))


if __name__ == "__main__":
    main()
