"""The learned models' compact encodings at batch speed: rows per second of
``"compact-v4"`` (``"compact-v3"`` followed by greedy's decision block,
:func:`pi_env.agents.greedy_batch.decision_block`) at 2, 3, 4 and 5 players, beside ``"compact-v3"``, the
decision block alone, and ``"compact-v2"`` as it was computed before
:func:`pi_env.solvers.compact.encode_joint_block` counted the joint block in one numba call at 3
and 4 players (``v2 old path``: :func:`pi_env.solvers.compact.encode_compact` and
:func:`pi_env.solvers.compact._joint_block_of_counts`, the counts of
:func:`pi_env.solvers.own_info.joint_case_counts` then numpy sums: at 3 players one
:func:`pi_env.solvers.joint.count_joint` per row, on ``--old-rows`` rows; at 2 and 4 players one
numba call for the counts; at 5 players the path ``"compact-v2"`` takes today, the triples of
:func:`pi_env.solvers.own_info.disjoint_triple_counts`), all in the same process. At 3 to 5 players
``"compact-v4"`` takes its joint block from the decision kernel's counts, so it counts the joint
posterior once where ``"compact-v3"`` plus the decision block would count it twice.

Positions (``--batch`` games per row of the table, the player to move encoded, as in training):

* ``deal``: the games as dealt (no answer yet: every case set is largest, so the joint counts, the
  posterior's query gains and greedy's kernel are at their slowest; the worst case);
* ``greedy N``: after ``N`` turns of greedy's play (:func:`pi_env.agents.greedy_batch.greedy_actions`)
  with a fifth of random queries, finished games restarted;
* ``random N``: after ``N`` turns of random legal queries and now and then a random solve.

Each figure is the best of ``--repeats`` timed calls on the whole batch, after one warm-up block
that compiles or loads every kernel (:func:`pi_env.core._config.warming_up`):

* ``compact-v4 threads (wall)``: ``encode_state(..., parallel=True)``, the kernels over rows
  (:func:`pi_env.solvers.compact.encode_compact` and the decision kernel) on numba threads, in rows
  per **wall-clock** second (the only figure here that uses more than one core);
* ``compact-v4 one thread (wall)`` and every ``rows per CPU s`` column: the one-thread builds
  (``parallel=False``, the default of :func:`pi_env.agents.learned.encode_state`: what one training
  worker spends), per wall-clock second and per CPU second (the cost itself, steadier on a shared
  machine). ``compact-v3`` is timed as ``encode_state`` computes it (its joint block's kernel
  picks threads by batch size, as it always did);
* ``threads / one thread``: the two wall-clock figures of ``"compact-v4"`` divided (at most the
  number of cores, less on a busy machine).

The load average is printed: the development machine has 2 cores shared with other work, so
figures taken under load are lower, and threads gain only on a core that is free.

Target: >= 50,000 rows/s for ``"compact-v4"`` at 4 players, worst positions (see docs/results.md,
"Solver features in batch and the compact encoding").

    python benchmarks/encoding_speed.py [--players 2 3 4 5] [--batch 1024] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

from pi_env.agents.learned import encode_state
from pi_env.core._config import warming_up
from pi_env.core.constants import SOLVE_BASE
from pi_env.engine import GameConfig, init, reset_done, sample_actions, step_inplace
from pi_env.agents.greedy_batch import decision_block, greedy_actions
from pi_env.solvers.compact import JOINT_BLOCK_SIZE, _joint_block_of_counts, encode_compact

STAGES = (("deal", None, 0), ("greedy 8", "greedy", 8), ("greedy 24", "greedy", 24), ("greedy 48", "greedy", 48),
          ("random 20", "random", 20))


def positions(config: GameConfig, batch: int, policy: "str | None", turns: int, seed: int):
    """``(state, players)``: ``batch`` games after ``turns`` turns of ``policy`` (module docstring)."""
    st = init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(turns):
        rand = sample_actions(st, rng)
        if policy == "greedy":
            a = greedy_actions(st, config.board, st.current_player.astype(np.int64), config.edition)
            swap = (rng.random(batch) < 0.2) & (rand < SOLVE_BASE)
            a[swap] = rand[swap]
        else:
            a = rand.copy()
            a[a >= SOLVE_BASE] = SOLVE_BASE + (a[a >= SOLVE_BASE] - SOLVE_BASE) % 7  # few solves: games go on
        step_inplace(st, a, config)
        reset_done(st, config)
    return st, st.current_player.astype(np.int64)


def rate(fn, rows: int, repeats: int) -> tuple[float, float]:
    """``(rows per wall-clock second, rows per CPU second)``: the best of ``repeats`` timed calls of
    ``fn`` each (the kernels are serial, so a CPU second is the cost itself, whatever else runs)."""
    wall = cpu = np.inf
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return rows / wall, rows / max(cpu, 1e-9)


def measures(config: GameConfig, st, players, old_rows: int):
    """The timed calls of one table row: ``name -> (callable, rows)``."""
    B = st.batch_size
    sub = st.take(np.arange(min(old_rows, B)))
    out = np.empty((sub.batch_size, JOINT_BLOCK_SIZE), dtype=np.float32)
    calls = {
        "compact-v4": (lambda: encode_state("compact-v4", st, config, players), B),
        "compact-v4 threads": (lambda: encode_state("compact-v4", st, config, players, parallel=True), B),
        "compact-v3": (lambda: encode_state("compact-v3", st, config, players), B),
        "decision block": (lambda: decision_block(st, config.board, players, config.edition), B),
        "v2 old path": (lambda: (encode_compact(sub, config, players[:sub.batch_size], parallel=False),
                                      _joint_block_of_counts(sub, config, players[:sub.batch_size], out)),
                             sub.batch_size)}
    return calls


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--old-rows", type=int, default=256, help="rows of the old per-row path (slow at 3 players)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    cases = []
    with warming_up("encoding_speed"):
        for P in args.players:
            cfg = GameConfig(num_players=P)
            for label, policy, turns in STAGES:
                st, players = positions(cfg, args.batch, policy, turns, args.seed + P)
                calls = measures(cfg, st, players, args.old_rows)
                for fn, _ in calls.values():
                    fn()
                cases.append((P, label, cfg, st, players, calls))
    print(f"load average before timing: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    names = [n for n in cases[0][5] if n != "compact-v4 threads"]
    print(f"numba threads: {numba.get_num_threads()} (PI_ENV_NUMBA_PARALLEL=0 or NUMBA_NUM_THREADS=1: one)")
    print("| players | positions | compact-v4 threads rows/s (wall) | compact-v4 one thread rows/s (wall) | "
          + " | ".join(f"{n} rows per CPU s" for n in names) + " | threads / one thread | v4 / v3 | v4 / old v2 |")
    print("|---" * (len(names) + 7) + "|")
    worst: dict[int, tuple[float, float, float]] = {}
    for P, label, cfg, st, players, calls in cases:
        r = {n: rate(fn, rows, args.repeats) for n, (fn, rows) in calls.items()}
        cpu = {n: v[1] for n, v in r.items()}
        threads, one = r["compact-v4 threads"][0], r["compact-v4"][0]
        w = worst.get(P, (np.inf, np.inf, np.inf))
        worst[P] = (min(w[0], threads), min(w[1], one), min(w[2], cpu["compact-v4"]))
        print(f"| {P} | {label} | {threads:,.0f} | {one:,.0f} | " + " | ".join(f"{cpu[n]:,.0f}" for n in names)
              + f" | {threads / one:.2f} | {cpu['compact-v4'] / cpu['compact-v3']:.2f} | "
                f"{cpu['compact-v4'] / cpu['v2 old path']:.2f} |")
    print(f"load average after timing: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for P, (wall_threads, wall_one, cpu1) in worst.items():
        print(f"compact-v4, {P} players, slowest positions: {wall_threads:,.0f} rows/s wall with threads, "
              f"{wall_one:,.0f} rows/s wall on one thread, {cpu1:,.0f} rows per CPU second on one thread "
              "(target 50,000 at 4 players)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
