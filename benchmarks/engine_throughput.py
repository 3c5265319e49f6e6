"""Engine throughput: agent-steps per second with uniformly random legal actions.

Measures, in one run: (a) the PettingZoo AEC environment (one game, ``agent_iter`` + ``last`` +
``step``), the baseline; (b) the batched engine step by step (``sample_actions`` + unchecked
``step`` + ``reset_done`` of an :class:`~pi_env.engine.Engine`) and (c) the fused call
:func:`pi_env.engine.play` (sampling, step and autoreset in one numba loop), each at several batch
sizes in three builds: one thread (``parallel=False``), threaded on numba's threads
(``parallel=True``; one per core) and the library's default choice for that batch size
(``parallel=None``: the thresholds of ``pi_env.core._config.PARALLEL_MIN_BATCH``, one per kernel
family, chosen with ``benchmarks/thread_thresholds.py``); the three are measured in alternating
slices so that a change in the machine's load hits them alike. ``default / 1`` is the never-slower
check (≥ about 0.95 within noise). Also the peak memory of (b) traced by ``tracemalloc`` and the
best rate's ratio to (a). Numba compile time is excluded (a warm-up compiles both builds first).
Targets (2-core machine, no other load): 4-player random play ≥ 3,000,000 agent-steps/s at
B = 4096, the default never slower than one thread, (a) ≥ 20,000 agent-steps/s,
≤ 1 GiB at B = 4096.

Besides agent-steps per wall-clock second, the one-thread rate is also shown per CPU second of the
process (``time.process_time``): on a machine busy with other work the wall-clock rate is the
machine's, the CPU rate what one free core gives.

    python benchmarks/engine_throughput.py [--players 4] [--seconds 3] [--batch 1 64 256 1024 4096]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numba
import numpy as np

from pi_env.core._config import threaded_by_default, warming_up
from pi_env.core.text import format_table
from pi_env.engine import Engine, GameConfig, init, play, policy_streams


class _Batched:
    """The step-by-step batched engine with random legal actions: ``sample_actions`` + unchecked
    ``step`` + ``reset_done`` of an :class:`Engine`, one Python call each per turn of the batch."""

    def __init__(self, config: GameConfig, batch: int, parallel: bool | None, seed: int = 0):
        self.batch = batch
        self.rng = np.random.default_rng(seed)
        self.eng = Engine(config, batch, seed=seed, parallel=parallel)
        self.actions = np.empty(batch, dtype=np.int64)

    def run(self, seconds: float) -> int:
        """Play for about ``seconds``; the agent-steps played."""
        eng, rng, actions = self.eng, self.rng, self.actions
        steps = 0
        t0 = time.perf_counter()
        while True:
            for _ in range(20):
                eng.sample_actions(rng, out=actions)
                eng.step(actions, check=False)
                eng.reset_done()
            steps += 20 * self.batch  # every game is live: finished games are reset at once
            if time.perf_counter() - t0 > seconds:
                return steps


class _Fused:
    """The fused call :func:`pi_env.engine.play` (uniformly random legal actions, step and
    autoreset in one numba loop per range of games), 50 turns per call."""

    def __init__(self, config: GameConfig, batch: int, parallel: bool | None, seed: int = 0, turns: int = 50):
        self.config, self.parallel, self.turns = config, parallel, turns
        self.state = init(config, batch, seed=seed)
        self.streams = policy_streams(seed, batch)

    def run(self, seconds: float) -> int:
        steps = 0
        t0 = time.perf_counter()
        while True:
            done, _ = play(self.state, self.config, self.turns, "random", seed=self.streams, parallel=self.parallel)
            steps += int(done.sum())
            if time.perf_counter() - t0 > seconds:
                return steps


def bench_interleaved(make, seconds: float, variants=(False, True, None), rounds: int = 3
                      ) -> dict[bool | None, tuple[float, float]]:
    """``{parallel: (agent-steps/s, per CPU second)}`` of ``make(parallel)`` for each variant,
    measured in ``rounds`` alternating slices of ``seconds / rounds`` each (so that a change in
    the machine's load hits every variant alike)."""
    runners = {v: make(v) for v in variants}
    totals = {v: [0, 0.0, 0.0] for v in variants}
    for _ in range(rounds):
        for v, r in runners.items():
            t0, c0 = time.perf_counter(), time.process_time()
            n = r.run(seconds / rounds)
            totals[v][0] += n
            totals[v][1] += time.perf_counter() - t0
            totals[v][2] += time.process_time() - c0
    return {v: (n / wall, n / cpu) for v, (n, wall, cpu) in totals.items()}


def batched_peak_mib(config: GameConfig, batch: int, seed: int = 0) -> float:
    """Peak MiB (``tracemalloc``) of setting up and playing 20 turns of the step-by-step engine."""
    tracemalloc.start()
    b = _Batched(config, batch, None, seed)
    b.run(0.0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def default_builds(batch: int, fused: bool) -> str:
    """Which kernel families the default dispatch threads at ``batch`` games."""
    if fused:
        return "threads" if threaded_by_default("fused", batch) else "1 thread"
    threaded = [f for f in ("step", "init", "sample") if threaded_by_default(f, batch)]
    return "threads: " + "+".join(threaded) if threaded else "1 thread"


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
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration and build")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 256, 1024, 4096])
    args = parser.parse_args()
    config = GameConfig(num_players=args.players)
    with warming_up("engine_throughput"):  # compile every kernel (serial and threaded builds) outside the measurements
        for parallel in (False, True):
            _Batched(config, 2, parallel).run(0.0)
            _Fused(config, 2, parallel).run(0.0)
        bench_aec(args.players, 0.05)
    load0 = os.getloadavg()[0]
    aec = bench_aec(args.players, args.seconds)
    raw = bench_aec(args.players, args.seconds, wrapped=False)
    threads = numba.get_num_threads()
    body = [("(a) PettingZoo env() (wrapped)", f"{aec:,.0f}", "", "", "", "", "", "", "1.0"),
            ("    PettingZoo raw_env()", f"{raw:,.0f}", "", "", "", "", "", "", f"{raw / aec:.1f}")]
    for b in args.batch:
        for kind, make in (("(b) step by step", _Batched), ("(c) fused play()", _Fused)):
            res = bench_interleaved(lambda p: make(config, b, p), args.seconds)
            one, many, default = res[False][0], res[True][0], res[None][0]
            mib = f"{batched_peak_mib(config, b):.1f}" if kind.startswith("(b)") else ""
            body.append((f"{kind} B={b}", f"{one:,.0f}", f"{res[False][1]:,.0f}", f"{many:,.0f}",
                         f"{many / one:.2f}", f"{default:,.0f} ({default_builds(b, kind.startswith('(c)'))})",
                         f"{default / one:.2f}", mib, f"{max(one, many, default) / aec:.1f}"))
    load1 = os.getloadavg()[0]
    print(f"{args.players} players, random legal actions, {args.seconds:g} s per configuration and build "
          f"(three alternating slices), {os.cpu_count()} CPUs, {threads} numba threads, load average "
          f"{load0:.1f} at the start, {load1:.1f} at the end (wall-clock figures on a busy machine are "
          "the machine's, not the engine's)")
    print("\n".join(format_table(body, ("configuration", "1 thread", "per CPU-s", f"{threads} threads",
                                        "threads / 1", "default (build chosen)", "default / 1",
                                        "peak MiB", "best vs (a)"), align="lrrrrrrrr")))
    print("agent-steps/s; 'default' is what the library picks for that batch size "
          "(pi_env.core._config.PARALLEL_MIN_BATCH); 'default / 1' >= ~0.95 is never slower within noise")


if __name__ == "__main__":
    main()
