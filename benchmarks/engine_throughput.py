"""Engine throughput (issue #2 item 9): agent-steps per second with uniformly random legal actions.

Measures (a) the PettingZoo AEC environment (one game, ``agent_iter`` + ``last`` + ``step``) and
(b) the batched engine (``sample_actions`` + ``step_inplace`` + ``reset_done``) at several batch
sizes, with the peak memory of (b) traced by ``tracemalloc``, and prints the ratio (b)/(a) from the
same run. Numba compile time is excluded (a warm-up runs first). Targets (2-core machine):
(b) at B = 4096 ≥ 1,000,000 agent-steps/s, (a) ≥ 20,000 agent-steps/s, ≤ 1 GiB at B = 4096.

    python benchmarks/engine_throughput.py [--players 4] [--seconds 3] [--batch 1 64 1024 4096]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from pi_env.engine import GameConfig, init, reset_done, sample_actions, step_inplace
from pi_env.core.text import format_table


def bench_batched(config: GameConfig, batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(agent-steps/s, peak MiB) of the batched engine with random legal actions."""
    rng = np.random.default_rng(seed)
    tracemalloc.start()
    state = init(config, batch, seed=seed)
    actions = np.empty(batch, dtype=np.int64)
    steps = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(20):
            sample_actions(state, rng, out=actions)
            step_inplace(state, actions, config, check=False)
            reset_done(state, config)
        steps += 20 * batch  # every game is live: finished games are reset at once
        if time.perf_counter() - t0 > seconds:
            break
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return steps / elapsed, peak / 2**20


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
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    args = parser.parse_args()
    config = GameConfig(num_players=args.players)
    # warm-up: compile every kernel outside the measurements
    bench_batched(config, 2, 0.05)
    bench_aec(args.players, 0.05)
    aec = bench_aec(args.players, args.seconds)
    raw = bench_aec(args.players, args.seconds, wrapped=False)
    rows = [("(a) PettingZoo env() (wrapped)", aec, float("nan")),
            ("    PettingZoo raw_env()", raw, float("nan"))]
    for b in args.batch:
        sps, mib = bench_batched(config, b, args.seconds)
        rows.append((f"(b) batched engine B={b}", sps, mib))
    print(f"{args.players} players, random legal actions, {args.seconds:g} s per row")
    body = [(name, f"{sps:,.0f}", f"{mib:.1f}", f"{sps / aec:.1f}") for name, sps, mib in rows]
    print("\n".join(format_table(body, ("configuration", "agent-steps/s", "peak MiB", "ratio vs (a)"),
                                 align="lrrr")))


if __name__ == "__main__":
    main()
