"""Demonstration collection speed (:func:`pi_env.rl.imitate.collect`): rows per second with
``greedy`` as the teacher, in batch (:class:`pi_env.agents.greedy_batch.GreedyOpponent`, the default
at 2–4 players) against the per-game agent (``batched=False``, one ``GreedyAgent`` per game slot
acting on observations: the path before), the same rows (tests/test_rl_imitate.py), measured in
this run.

Rows of the table, per player count (``--players``, default 2 and 4): ``--rows`` rows collected
with each teacher form, ``--num-envs`` games, opponents ``gain:0.75,heuristic:0.25`` (the recipe
of the ``learned:2p`` shipped until 2026-12-06, docs/results.md), encoding ``compact-v1``, beta 1,
one thread for numba and torch; the batched form is timed three times (the same rows; the median is shown: one run is a
fraction of a second), the per-game form once; the column "batched / per game" is the ratio of the
rows per second. Every kernel the rows use is compiled first, in one warm-up block announced on stderr
(:func:`pi_env.core._config.warming_up`): a short collection with each form. Wall-clock and CPU
seconds (``time.process_time``) are both shown: figures taken while other work runs on the machine
are development figures (the script prints the load average at its start and end, and how many
numba kernels were compiled during the timed rows: 0 when the warm-up did its job).

    python benchmarks/imitation_speed.py [--players 2,4] [--rows 4000] [--num-envs 128]
"""

from __future__ import annotations

import argparse
import os
import time


def _collect(num_players: int, rows: int, num_envs: int, batched: bool, seed: int) -> "tuple[float, float]":
    from pi_env.rl.imitate import collect

    t0, c0 = time.perf_counter(), time.process_time()
    demos = collect(num_players, "greedy", rows, opponents=[("gain", 0.75), ("heuristic", 0.25)],
                    num_envs=num_envs, seed=seed, batched=batched)
    assert len(demos) == rows
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--players", default="2,4", help="player counts, comma-separated (2, 3, 4)")
    p.add_argument("--rows", type=int, default=4000, help="rows per measurement")
    p.add_argument("--num-envs", type=int, default=128, help="games stepped together")
    p.add_argument("--seed", type=int, default=101)
    args = p.parse_args()
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.core.errors import PIError

    try:
        require_rl()
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")  # one line: the install hint
    import numba
    import numba.core.event as numba_event
    import torch

    from pi_env.core._config import warming_up

    class _CompileCounter(numba_event.Listener):
        count = 0

        def on_start(self, event: object) -> None:
            self.count += 1

        def on_end(self, event: object) -> None:
            pass

    numba.set_num_threads(1)
    torch.set_num_threads(1)
    players = [int(v) for v in args.players.split(",")]
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    with warming_up("imitation_speed"):
        for P in players:
            for batched in (True, False):
                _collect(P, 64, 8, batched, seed=1)
    print("| players | teacher | rows | wall s | rows/s (wall) | CPU s | rows per CPU s | batched / per game |")
    print("|---|---|---|---|---|---|---|---|")
    counter = _CompileCounter()
    numba_event.register("numba:compile", counter)
    for P in players:
        per: dict[bool, tuple[float, float]] = {}
        runs = sorted(_collect(P, args.rows, args.num_envs, True, seed=args.seed) for _ in range(3))
        per[True] = runs[1]
        per[False] = _collect(P, args.rows, args.num_envs, False, seed=args.seed)
        for batched in (True, False):
            wall, cpu = per[batched]
            ratio = (f"**{per[False][0] / per[True][0]:.1f}×** wall, {per[False][1] / per[True][1]:.1f}× CPU"
                     if batched else "")
            name = "greedy in batch" if batched else "greedy per game"
            print(f"| {P} | {name} | {args.rows:,} | {wall:.1f} | {args.rows / wall:,.0f} | {cpu:.1f} | "
                  f"{args.rows / cpu:,.0f} | {ratio} |", flush=True)
    numba_event.unregister("numba:compile", counter)
    print(f"kernels compiled during the timed rows: {counter.count}")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
