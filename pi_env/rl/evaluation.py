"""Evaluation during training: the current policy against fixed opponents on games held apart
from training.

Every ``--eval-every`` updates, :func:`evaluate` plays ``--eval-games`` games of the current policy
(its most likely choice among the legal ones, no sampling) against ``--eval-opponents`` (one
built-in agent on every other seat; ``heuristic``, ``gain`` and ``random`` run in batch), in one
:class:`~pi_env.rl.engine_env.LearnerBatch` seeded with :data:`EVAL_SEED`. The games are the same at
every evaluation of a run (curves compare like with like) and are held apart from training: the
training games come from ``--seed + step`` (refused from :data:`EVAL_SEED` up), the evaluation
games from :data:`EVAL_SEED`, each seed an independent stream of deals (``numpy.random.SeedSequence``).
The learner's seat rotates from game to game as in training.

The figures (:class:`Evaluation`) are what shows a gambling policy: win rate, mean final score and
wrong solves per game (``greedy`` makes about 0.7 a game at 2 players, docs/results.md; a policy
that learned to end rounds by guessing makes two or more).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from pi_env.core.errors import PIError

__all__ = ["EVAL_SEED", "Evaluation", "evaluate"]

EVAL_SEED = 2**40
"""The seed of the evaluation games; training seeds (``--seed`` plus the steps of a resumed run)
must stay below it."""


@dataclass(frozen=True)
class Evaluation:
    """The figures of one evaluation (:func:`evaluate`).

    Attributes:
        games: games played (each slot's first game).
        win_rate: the learner's mean share of first place after the tiebreaks (docs/rules.md §5).
        score_mean: its mean final score (points).
        wrong_mean: its mean number of wrong solves per game (docs/rules.md §4.3).
        length_mean: its mean number of turns per game.
    """

    games: int
    win_rate: float
    score_mean: float
    wrong_mean: float
    length_mean: float

    def row(self) -> dict[str, float]:
        """The curve columns (``eval_win_rate``, ``eval_score_mean``, ``eval_wrong_mean``,
        ``eval_length_mean``)."""
        return {f"eval_{k}": round(float(v), 4) for k, v in asdict(self).items() if k != "games"}


def evaluate(choose: Callable[[np.ndarray, np.ndarray], np.ndarray], num_players: int, opponent: str,
             games: int, *, encoding: str = "compact-v1", seed: int = EVAL_SEED,
             max_steps: int = 10_000) -> Evaluation:
    """Play ``games`` games of a policy against ``num_players − 1`` copies of ``opponent``.

    Args:
        choose: ``(x float32[B, n], mask bool[B, 51]) -> int[B]``: the policy's compact choices
            (:mod:`pi_env.agents.learned`), one per row, legal under ``mask``.
        num_players: 2..5.
        opponent: a built-in agent's name (:func:`pi_env.rl.pool.batch_opponent`).
        games: ``B``, at least 1: one game in each of ``B`` slots.
        encoding: the policy's input encoding.
        seed: the games' seed (default :data:`EVAL_SEED`).
        max_steps: a safeguard on the batch's steps (a game ends long before).

    Returns:
        :class:`Evaluation` over the first game of every slot.

    Raises:
        PIError: ``games`` below 1, an unknown opponent or encoding, or games still running after
            ``max_steps`` steps.
    """
    from pi_env.rl.engine_env import LearnerBatch

    if games < 1:
        raise PIError(f"evaluation games must be at least 1, got {games}")
    batch = LearnerBatch(games, num_players, [opponent] * (num_players - 1), encoding=encoding, seed=seed,
                         reward="win")
    try:
        x, mask = batch.reset()
        first: dict[int, dict[str, float]] = {}
        for _ in range(max_steps):
            x, mask, _, _, _, episodes = batch.step(np.asarray(choose(x, mask)))
            for b, ep in episodes:
                first.setdefault(b, ep)
            if len(first) == games:
                break
        else:
            raise PIError(f"evaluation: {games - len(first)} of {games} games still running after {max_steps} steps")
    finally:
        batch.venv.close()
    eps: Sequence[dict[str, float]] = [first[b] for b in range(games)]
    return Evaluation(games=games, win_rate=float(np.mean([e["win"] for e in eps])),
                      score_mean=float(np.mean([e["score"] for e in eps])),
                      wrong_mean=float(np.mean([e["wrong"] for e in eps])),
                      length_mean=float(np.mean([e["l"] for e in eps])))
