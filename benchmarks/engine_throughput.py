"""Engine throughput (issue #2 item 9): agent-steps per second with uniformly random legal actions.

Measures, in one run: (a) the PettingZoo AEC environment (one game, ``agent_iter`` + ``last`` +
``step``), the baseline; (b) the batched engine step by step (``sample_actions`` + unchecked
``step`` + ``reset_done`` of an :class:`~pi_env.engine.Engine`) and (c) the fused call
:func:`pi_env.engine.play` (sampling, step and autoreset in one numba loop), each on one thread and
threaded, at several batch sizes; the peak memory of (b) traced by ``tracemalloc``; the ratio to (a).
Numba compile time is excluded (a warm-up compiles both builds first). Targets (2-core machine, no
other load): 4-player random play ≥ 3,000,000 agent-steps/s at B = 4096 (issue #16), threads never
slower than one thread, (a) ≥ 20,000 agent-steps/s, ≤ 1 GiB at B = 4096.

    python benchmarks/engine_throughput.py [--players 4] [--seconds 3] [--batch 1 64 256 1024 4096]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

import os

from pi_env.engine import Engine, GameConfig, init, play, policy_streams
from pi_env.core.text import format_table


def bench_batched(config: GameConfig, batch: int, seconds: float, parallel: bool | None = None,
                  seed: int = 0) -> tuple[float, float]:
    """(agent-steps/s, peak MiB) of the step-by-step batched engine with random legal actions:
    ``sample_actions`` + unchecked ``step`` + ``reset_done`` of an :class:`Engine`, one Python
    call each per turn of the batch."""
    rng = np.random.default_rng(seed)
    tracemalloc.start()
    eng = Engine(config, batch, seed=seed, parallel=parallel)
    actions = np.empty(batch, dtype=np.int64)
    steps = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(20):
            eng.sample_actions(rng, out=actions)
            eng.step(actions, check=False)
            eng.reset_done()
        steps += 20 * batch  # every game is live: finished games are reset at once
        if time.perf_counter() - t0 > seconds:
            break
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return steps / elapsed, peak / 2**20


def bench_fused(config: GameConfig, batch: int, seconds: float, parallel: bool | None = None,
                seed: int = 0, turns: int = 50) -> float:
    """Agent-steps/s of the fused call :func:`pi_env.engine.play` (uniformly random legal actions,
    step and autoreset in one numba loop per range of games)."""
    state = init(config, batch, seed=seed)
    streams = policy_streams(seed, batch)
    steps = 0
    t0 = time.perf_counter()
    while True:
        done, _ = play(state, config, turns, "random", seed=streams, parallel=parallel)
        steps += int(done.sum())
        if time.perf_counter() - t0 > seconds:
            break
    return steps / (time.perf_counter() - t0)


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
    aec = bench_aec(args.players, args.seconds)
    raw = bench_aec(args.players, args.seconds, wrapped=False)
    rows = [("(a) PettingZoo env() (wrapped)", aec, float("nan")),
            ("    PettingZoo raw_env()", raw, float("nan"))]
    for b in args.batch:
        for parallel, label in ((False, "1 thread"), (True, "threads")):
            sps, mib = bench_batched(config, b, args.seconds, parallel)
            rows.append((f"(b) step by step B={b}, {label}", sps, mib))
        for parallel, label in ((False, "1 thread"), (True, "threads")):
            rows.append((f"(c) fused play() B={b}, {label}", bench_fused(config, b, args.seconds, parallel),
                         float("nan")))
    load = os.getloadavg()[0]
    print(f"{args.players} players, random legal actions, {args.seconds:g} s per row, {os.cpu_count()} CPUs, "
          f"load average {load:.1f} at the end (figures on a busy machine are not the engine's)")
    body = [(name, f"{sps:,.0f}", "" if mib != mib else f"{mib:.1f}", f"{sps / aec:.1f}") for name, sps, mib in rows]
    print("\n".join(format_table(body, ("configuration", "agent-steps/s", "peak MiB", "ratio vs (a)"),
                                 align="lrrr")))


if __name__ == "__main__":
    main()
