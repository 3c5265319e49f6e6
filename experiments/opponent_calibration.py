"""How ``greedy`` opponents solve: per-turn data of games of four ``greedy``, the calibration of
greedy's opponent model against it, and the fit of the calibrated model
(:func:`pi_env.solvers.turns.greedy_hazard`, from `pi_env/core/data/greedy_opponents.json`; docs/tuning-log.md).

    python -m pi_env.experiments.opponent_calibration --seed S [--seed S2 ...] --games N [--out FILE.npz]
        [--json FILE.json] [--force]

``--out`` (the rows) and ``--json`` (the fitted counts) replace an existing file only with
``--force``, checked before any game is played.

Every turn of every seat of games ``0 .. N − 1`` of tournament seed ``S`` (engine seed
:func:`pi_env.apps.tournament.game_seed` of ``(S, g)``, four ``greedy`` players) is one row of
:func:`collect_turns`: the public features of the acting seat just before its turn, as any other
seat reads them (docs/rules.md §9: public answers only, never the case a player holds), and what it
did: attempted a solve, and whether the attempt was correct. Printed: the calibration table of
greedy's opponent model (:func:`pi_env.solvers.turns.attempt_hazard`, the ``P(T = 1)`` of
:attr:`pi_env.agents.greedy.Outlook.pmf`) — the predicted hazard against the observed attempt and
correct-solve rates per bin of the prediction — and the fitted table (:func:`fit_hazard_table`)
with its calibration.

A tuning tool: its seeds are tuning seeds, never evaluation seeds.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
from typing import Any, Sequence

import numpy as np

from pi_env.agents.greedy import GreedyAgent, public_case_bits
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.core.files import check_output_path, write_bytes_atomic, write_text_atomic
from pi_env.engine.observe import decode_observation
from pi_env.engine.ranking import tier_points
from pi_env.solvers.analysis import analyze_knowledge
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.turns import GREEDY_HAZARD_BINS, attempt_hazard, hazard_bin, COUNT_EDGES, SHRINK, shrunk_rates

__all__ = ["FIELDS", "HORIZON", "turn_features", "collect_turns", "fit_hazard_table", "calibration_table", "main"]

FIELDS = ("seed", "game", "round", "rotation", "tier", "seat", "order", "score", "top_other", "count",
          "joint_count", "joint_pmax", "joint_entropy", "attempted_before", "turn_in_round",
          "points", "model_hazard", "attempt", "correct")
"""Columns of :func:`collect_turns` (all ``float64``): tournament seed, game index, 0-based round,
rotation and tier, absolute seat and its place in the round's turn order (0 = first player), its
score and the highest other score before the turn, ``count`` the cases consistent with its public
information (:func:`pi_env.agents.greedy.public_case_bits`, what greedy's opponent model reads),
``joint_count``/``joint_pmax``/``joint_entropy`` the public joint posterior of its case (the joint
solver on the public answers, no held case: count, largest probability, entropy in bits), whether it
attempted earlier this round (a wrong attempt), its own turns earlier in this round, the points of a
correct solve at the tier (second edition, before the cap), greedy's model hazard
:func:`~pi_env.solvers.turns.attempt_hazard` of ``count``, and the outcome: 1 if it named a case on
the turn, 1 if that was correct."""


HORIZON = 16
"""Own turns ahead counted by :func:`fit_hazard_table` (a seat rarely has more in a round)."""


class _Recording(GreedyAgent):
    """Greedy that remembers its last action."""

    last_action = -1

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.last_action = super().act(observation, action_mask)
        return self.last_action


def turn_features(observation: np.ndarray, num_players: int, board: Any) -> dict[str, float]:
    """The public features of :data:`FIELDS` (``round`` .. ``model_hazard``, without ``seat``,
    ``order`` and ``turn_in_round``) of the seat whose observation this is, read from the public
    part of the observation only (its held case is dropped: any seat reads the same)."""
    P = num_players
    o = decode_observation(np.asarray(observation), P)
    k = knowledge_from_observation(observation, P, board)
    count = int(np.unpackbits(public_case_bits(k)[0].view(np.uint8)).sum())
    a = analyze_knowledge(k.for_player(0, -1), strict=False)
    probs = np.asarray(a.probabilities, dtype=np.float64)
    if probs.size:
        entropy = float(-(probs * np.log2(np.maximum(probs, 1e-300))).sum())
        pmax = float(probs.max())
    else:
        entropy, pmax = 0.0, 0.0
    rnd, tier = int(o["round"][0]), int(o["tier"][0])
    scores = np.asarray(o["score"], dtype=np.int64)
    return dict(round=rnd, rotation=int(o["rotation"][0]), tier=tier, score=int(scores[0]),
                top_other=int(scores[1:].max()), count=count, joint_count=int(a.count),
                joint_pmax=pmax, joint_entropy=entropy, attempted_before=int(bool(o["attempted"][0])),
                points=tier_points(tier, rnd, P, "second"), model_hazard=attempt_hazard(count))


def collect_turns(seed: int, games: int, start: int = 0, players: int = 4,
                  progress: bool = False) -> np.ndarray:
    """Play games ``start .. start + games − 1`` of tournament seed ``seed`` with ``players``
    ``greedy`` players and return one row per turn.

    Returns:
        ``float64[R, len(FIELDS)]``, columns :data:`FIELDS`, rows in play order.

    Raises:
        ValueError: ``games < 1`` or a negative ``start``.
    """
    from pi_env.agents.runner import play_game
    from pi_env.apps.tournament import game_seed
    from pi_env.engine import GameConfig

    if games < 1 or start < 0:
        raise ValueError(f"games must be at least 1 and start at least 0, got {games} and {start}")
    config = GameConfig(num_players=players)
    rows: list[list[float]] = []
    games_range: Any = range(start, start + games)
    if progress:
        from tqdm import tqdm

        games_range = tqdm(games_range, desc="games")
    for g in games_range:
        pending: dict[str, float] = {}
        turns = np.zeros(players, dtype=np.int64)
        key = [-1, -1]

        def before(state, p, obs, agent):
            rnd = int(state.round[0])
            if key[0] != rnd:
                key[0] = rnd
                turns[:] = 0
            f = turn_features(obs, players, config.board)
            f.update(seed=seed, game=g, seat=p, order=(p - int(state.first_player[0])) % players,
                     turn_in_round=int(turns[p]))
            turns[p] += 1
            pending.clear()
            pending.update(f)

        def after(state):
            attempt = int(state.last_action[0]) >= SOLVE_BASE
            correct = attempt and int(state.last_answer[0, 0]) == 1
            rows.append([float(pending[name]) for name in FIELDS[:-2]] + [float(attempt), float(correct)])

        play_game(config, [_Recording() for _ in range(players)], game_seed(seed, g), before_step=before,
                  after_step=after)
    return np.array(rows, dtype=np.float64).reshape(-1, len(FIELDS))


def _col(rows: np.ndarray, name: str) -> np.ndarray:
    return rows[:, FIELDS.index(name)]


def fit_hazard_table(rows: np.ndarray, horizon: int = HORIZON) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The counts of the calibrated model (:func:`pi_env.solvers.turns.greedy_opponent_table`) from
    :func:`collect_turns` rows (play order). From each row (a turn of cell
    :func:`pi_env.solvers.turns.hazard_bin`), the seat's own turns of the same round are followed:
    the row counts at risk at own turn ``t`` (1 = the row's turn) while the seat has made no
    attempt on turns ``1 .. t − 1`` and a ``t``-th turn took place; it counts as an attempt at the
    ``t`` of its next attempt, and as correct when that attempt was.

    Returns:
        ``(at_risk, attempts, correct)``: ``int64[8, 3, 2, horizon]`` each.
    """
    shape = GREEDY_HAZARD_BINS + (int(horizon),)
    at_risk = np.zeros(shape, dtype=np.int64)
    attempts = np.zeros(shape, dtype=np.int64)
    correct = np.zeros(shape, dtype=np.int64)
    cells = np.stack(hazard_bin(_col(rows, "count").astype(np.int64), _col(rows, "tier").astype(np.int64),
                                _col(rows, "attempted_before").astype(bool)), axis=1)
    keys = rows[:, [FIELDS.index(n) for n in ("seed", "game", "round", "seat")]]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(map(tuple, keys.tolist())):
        groups.setdefault(key, []).append(i)
    att, cor = _col(rows, "attempt") > 0, _col(rows, "correct") > 0
    for idx in groups.values():
        y = att[idx]
        for pos, i in enumerate(idx):
            c, r, a = cells[i]
            later = np.flatnonzero(y[pos:])
            if later.size:  # the next attempt is on own turn t = later[0] + 1
                t = int(later[0]) + 1
                at_risk[c, r, a, :min(t, horizon)] += 1
                if t <= horizon:
                    attempts[c, r, a, t - 1] += 1
                    correct[c, r, a, t - 1] += int(cor[idx[pos + t - 1]])
            else:  # cut off by the end of the round after len(idx) - pos turns
                at_risk[c, r, a, :min(len(idx) - pos, horizon)] += 1
    return at_risk, attempts, correct


def calibration_table(predicted: np.ndarray, rows: np.ndarray,
                      edges: Sequence[float] = (0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 0.999, 1.0001)
                      ) -> list[tuple[float, float, int, float, float, float]]:
    """Predicted against observed per bin of the prediction: ``[(low, high, turns, mean predicted,
    observed attempt rate, observed correct-solve rate)]`` for the bins with turns."""
    predicted = np.asarray(predicted, dtype=np.float64)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (predicted >= lo) & (predicted < hi)
        if m.any():
            out.append((float(lo), float(hi), int(m.sum()), float(predicted[m].mean()),
                        float(_col(rows, "attempt")[m].mean()), float(_col(rows, "correct")[m].mean())))
    return out


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_env.experiments.opponent_calibration",
                                     description="Per-turn data of four-greedy games and the calibration "
                                                 "of greedy's opponent model.")
    parser.add_argument("--seed", type=int, action="append", required=True, help="tournament seed (a tuning "
                        "seed); repeatable")
    parser.add_argument("--games", type=int, default=100, help="games per seed (default 100)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--out", help="save the rows (npz: rows, fields)")
    parser.add_argument("--load", help="read rows saved by --out instead of playing")
    parser.add_argument("--json", help="write the fitted counts (the format of "
                        "pi_env/core/data/greedy_opponents.json)")
    parser.add_argument("--holdout", type=int, help="also report the log loss on this seed's rows of a "
                        "table fitted to the other seeds")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--force", action="store_true", help="replace an existing --out or --json file")
    args = parser.parse_args(argv)
    try:  # checked before any game is played
        for path in (None if args.load else args.out, args.json):
            if path is not None:
                check_output_path(path, force=args.force)
        if args.load:
            with np.load(args.load) as z:
                rows = z["rows"]
        else:
            rows = np.concatenate([collect_turns(s, args.games, players=args.players, progress=not args.quiet)
                                   for s in args.seed])
    except (PIError, ValueError) as exc:
        parser.error(str(exc))
    if args.out and not args.load:
        buffer = io.BytesIO()  # the very name given (savez adds .npz to a path without it)
        np.savez_compressed(buffer, rows=rows, fields=np.array(FIELDS))
        write_bytes_atomic(args.out, buffer.getvalue(), force=args.force)
    y = _col(rows, "attempt")
    print(f"{len(rows)} turns, {int(y.sum())} attempts, {int(_col(rows, 'correct').sum())} correct")
    print("greedy's opponent model (attempt_hazard of the public case count, an attempt counted as a solve):")
    print("  predicted bin      turns  predicted  attempted  correct")
    for lo, hi, n, pred, att, cor in calibration_table(_col(rows, "model_hazard"), rows):
        print(f"  [{lo:.3f}, {hi:.3f})  {n:6d}  {pred:9.3f}  {att:9.3f}  {cor:7.3f}")
    at_risk, attempts, correct = fit_hazard_table(rows)
    hz, cr = shrunk_rates(at_risk, attempts), shrunk_rates(attempts, correct)
    cells = hazard_bin(_col(rows, "count").astype(np.int64), _col(rows, "tier").astype(np.int64),
                       _col(rows, "attempted_before").astype(bool))
    fitted = hz[cells + (0,)]
    print("calibrated model fitted to these rows (first-turn hazard of each row's cell):")
    for lo, hi, n, pred, att, cor in calibration_table(fitted, rows):
        print(f"  [{lo:.3f}, {hi:.3f})  {n:6d}  {pred:9.3f}  {att:9.3f}  {cor:7.3f}")
    print(f"log loss of the attempt: model {_log_loss(_col(rows, 'model_hazard'), y):.4f}, "
          f"calibrated (in sample) {_log_loss(fitted, y):.4f}, base rate "
          f"{_log_loss(np.full(len(y), y.mean()), y):.4f}")
    if args.holdout is not None:
        test = _col(rows, "seed") == args.holdout
        if not test.any() or test.all():
            parser.error(f"--holdout {args.holdout}: needs rows of that seed and of others")
        a2, e2, _ = fit_hazard_table(rows[~test])
        held = shrunk_rates(a2, e2)[tuple(x[test] for x in cells) + (0,)]
        print(f"held out seed {args.holdout} (table fitted to the other seeds): log loss model "
              f"{_log_loss(_col(rows, 'model_hazard')[test], y[test]):.4f}, calibrated {_log_loss(held, y[test]):.4f}")
    print("per count bin (n = 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, >64), tiers pooled, first attempt "
          "this round: turns, attempt rate, P(correct | attempt), model hazard")
    for c in range(GREEDY_HAZARD_BINS[0]):
        m = (cells[0] == c) & (cells[2] == 0)
        if m.any():
            print(f"  bin {c}: {int(m.sum()):6d}  {y[m].mean():.3f}  "
                  f"{_col(rows, 'correct')[m].sum() / max(1, y[m].sum()):.3f}  {_col(rows, 'model_hazard')[m].mean():.3f}")
    if args.json:
        import json

        meta = {"description": "greedy opponents' solve attempts (pi_env.solvers.turns.greedy_turns)",
                "command": "python -m pi_env.experiments.opponent_calibration " + " ".join(
                    f"--seed {s}" for s in args.seed) + f" --games {args.games} --players {args.players}",
                "seeds": args.seed, "games_per_seed": args.games, "turns": int(len(rows)),
                "cells": "public case count bin (count_edges) x tier (0..2) x attempted before this round (0/1) "
                         "x own turn t = 1..horizon",
                "count_edges": list(COUNT_EDGES), "horizon": int(at_risk.shape[-1])}
        write_text_atomic(args.json, json.dumps({**meta, "at_risk": at_risk.tolist(), "attempts": attempts.tolist(),
                                                 "correct": correct.tolist()}, separators=(",", ":")) + "\n",
                          force=args.force)
    return 0


if __name__ == "__main__":
    from pi_env.core.interrupts import exit_130_when_interrupted

    sys.exit(exit_130_when_interrupted(main, "python -m pi_env.experiments.opponent_calibration: interrupted"))
