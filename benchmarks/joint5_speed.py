"""The 5-player joint count in numba: rows per CPU second of
:func:`pi_env.solvers.own_info.joint_case_counts` at 5 players — one numba call for the batch, the
three unknown players' triples counted by :func:`pi_env.solvers.own_info.disjoint_triple_counts` —
against the per-row path it replaced, in the same process: the same sets
(:func:`pi_env.solvers.own_info.seat_case_masks`, one numba call, included) and one
:func:`pi_env.solvers.joint.count_joint` per row.

Stages (``--batch`` games each, the player to move asking):

* ``deal``: every set largest (1,287 cases: the held case's elements excluded) — the worst case of
  a count per case of a set, the best of the boxes (:func:`~pi_env.solvers.own_info.case_boxes`: one
  box per set);
* ``greedy N``: after ``N`` steps of ``greedy`` in every seat (in batch,
  :class:`pi_env.agents.greedy_batch.GreedyOpponent`), finished games restarted: the positions the
  batch opponent meets in training;
* ``query-heavy N``: after ``N`` steps of a random legal clue or investigator with a solve from the
  player's own set when at most 2 cases are left, a random solve now and then (failed solves break
  the sets into many boxes: the hard case of the boxes).

Columns: the mean sizes of the asking player's set and of the unknown players' sets, ``failed`` the
mean number of seats with failed solves in the state; ``greedy µs/row``: the CPU time per row of a
whole decision of greedy in batch (:func:`pi_env.agents.greedy_batch.greedy_actions`, no previous
turn) at the same positions, beside ``count µs/row``, the joint count's (1 / the numba rows per CPU
second; greedy counts the joint posterior once per decision, on sets of its own kernel). The counts of both paths are compared on every
measured row (they must be equal). The numba compile happens before timing (one warm-up call of each path, announced on stderr). Speeds measured
while other processes use the cores are lower; rows per CPU second show the cost itself.

    python benchmarks/joint5_speed.py [--batch 512] [--rows 200] [--seconds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from pi_env.agents.greedy_batch import GreedyOpponent, greedy_actions
from pi_env.core._config import warming_up
from pi_env.core.constants import NUM_CASES
from pi_env.engine import GameConfig, init, reset_done, step_inplace
from pi_env.solvers.joint import count_joint
from pi_env.solvers.own_info import joint_case_counts, seat_case_masks

sys.path.insert(0, str(Path(__file__).resolve().parent))
from own_info_speed import positions, rate  # noqa: E402  (that benchmark's positions and timer)


def greedy_positions(config: GameConfig, batch: int, steps: int, seed: int):
    """``steps`` steps of greedy in batch in every seat (finished games restarted)."""
    state = init(config, batch, seed=seed)
    opp = GreedyOpponent(config)
    games = np.arange(batch)
    opp.new_games(games, games)
    for _ in range(steps):
        step_inplace(state, opp.act_batch(state, games, state.current_player.astype(np.int64)), config)
        done = np.flatnonzero(state.done)
        reset_done(state, config)
        opp.new_games(done, done)
    return state, state.current_player.astype(np.int64)


def per_row(state, board, players) -> np.ndarray:
    """The replaced path: the sets in one numba call, one count_joint per row."""
    out = np.zeros((state.batch_size, NUM_CASES), dtype=np.int64)
    masks, sizes = seat_case_masks(state, board, players)
    for b in range(state.batch_size):
        if sizes[b, 0] and sizes[b, 1]:
            out[b] = count_joint(masks[b, 0], [masks[b, 2], masks[b, 3], masks[b, 4]])
    return out


def main(argv: "list[str] | None" = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--rows", type=int, default=200, help="rows of the per-row count_joint baseline")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--greedy-steps", type=int, nargs="+", default=[10, 30, 60])
    ap.add_argument("--query-steps", type=int, nargs="+", default=[30, 60])
    args = ap.parse_args(argv)
    config = GameConfig(num_players=5)
    B, m = args.batch, min(args.rows, args.batch)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"5-player joint counts, B = {B} (baseline on {m} rows), {os.cpu_count()} cores, load average "
          f"{load:.1f} at start")
    with warming_up("joint5_speed"):
        stages = [("deal (largest sets)", init(config, B, seed=args.seed), None)]
        stages += [(f"greedy {n} steps", *greedy_positions(config, B, n, args.seed + n)) for n in args.greedy_steps]
        stages += [(f"query-heavy {n} steps", *positions(config, B, n, args.seed + 100 + n, solve_rate=0.05))
                   for n in args.query_steps]
        prepared = []
        for name, state, players in stages:
            if players is None:
                players = state.current_player.astype(np.int64)
            sub = state.take(np.arange(m))
            new = joint_case_counts(state, config.board, players)
            old = per_row(sub, config.board, players[:m])
            assert np.array_equal(new[:m], old), name  # the same counts
            _, sizes = seat_case_masks(state, config.board, players)
            greedy_actions(state, config.board, players)  # compiled here, not in the timed rows
            prepared.append((name, state, players, sub, sizes))
    head = (f"{'stage':<24} {'own set':>8} {'unknown sets':>13} {'failed':>7} {'numba rows/CPU-s':>17} "
            f"{'count_joint rows/CPU-s':>23} {'x':>7} {'count µs/row':>13} {'greedy µs/row':>14}")
    print(head)
    print("-" * len(head))
    for name, state, players, sub, sizes in prepared:
        new = rate(lambda: joint_case_counts(state, config.board, players), B, args.seconds)
        old = rate(lambda: per_row(sub, config.board, players[:m]), m, args.seconds)
        greedy = rate(lambda: greedy_actions(state, config.board, players), B, args.seconds)
        failed = float(state.failed.any(axis=2).sum(axis=1).mean())
        print(f"{name:<24} {sizes[:, 0].mean():8.0f} {sizes[:, 2:].mean():13.0f} {failed:7.2f} {new[1]:17,.0f} "
              f"{old[1]:23,.0f} {new[1] / old[1]:7.1f} {1e6 / new[1]:13.1f} {1e6 / greedy[1]:14.1f}", flush=True)


if __name__ == "__main__":
    main()
