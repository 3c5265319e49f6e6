"""Standings of the rules (docs/rules.md §5, §7) as plain functions shared by the engine, the record
scorer (:mod:`pi_env.records.scoring`), the solver's hints and the agents, and the points of a tier
by edition name (the rule itself is :func:`pi_env.core.rules.tier_points`)."""

from __future__ import annotations

import numpy as np

from pi_env.core import rules

__all__ = ["rank_players", "rank_batch", "tier_points"]

def rank_players(scores, investigators_left, penalty, edition: str,
                 mode: str = "standard") -> tuple[int, ...]:
    """1-based ranks after the tiebreaks of docs/rules.md §5; tied players share a rank.

    Second edition: higher score, then more unused investigator tiles. First edition: higher score,
    then more unused investigators, then fewer penalty points. Duel (§7): more rounds won (the
    ``scores``), no tiebreak.

    Args:
        scores, investigators_left, penalty: one int per player.
        edition: ``"second"`` or ``"first"``.
        mode: ``"standard"`` or ``"duel"``.
    """
    keys = []
    for i in range(len(scores)):
        k: tuple[int, ...] = (int(scores[i]),)
        if mode != "duel":
            k += (int(investigators_left[i]),)
            if edition == "first":
                k += (-int(penalty[i]),)
        keys.append(k)
    return tuple(1 + sum(keys[j] > keys[i] for j in range(len(keys))) for i in range(len(keys)))


def tier_points(tier: int, round_index: int, num_players: int, edition: str) -> int:
    """Points for a correct solve at ``tier`` in round ``round_index`` (0-based), docs/rules.md §5:
    :func:`pi_env.core.rules.tier_points` with the edition by name.

    ``[7, 5, 3, 1][tier]`` (+ ``round_index`` in the second edition); 0 for a tier that does not
    exist with ``num_players`` players (tier k needs at least k + 2 players).

    Raises:
        ValueError: an unknown edition.
    """
    return rules.tier_points(tier, round_index, num_players, rules.edition_code(edition))


def rank_batch(scores: np.ndarray, investigators_left: np.ndarray, penalty: np.ndarray, edition: str,
               mode: str = "standard") -> np.ndarray:
    """``int8[B, P]``: :func:`rank_players` of every game of a batch (docs/rules.md §5, §7).

    Args:
        scores, investigators_left, penalty: ``int[B, P]``.
        edition: ``"second"`` or ``"first"``.
        mode: ``"standard"`` or ``"duel"``.
    """
    key = np.asarray(scores, dtype=np.int64) * (1 << 40)
    if mode != "duel":
        key = key + np.asarray(investigators_left, dtype=np.int64) * (1 << 20)
        if edition == "first":
            key = key - np.asarray(penalty, dtype=np.int64)
    return (1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)).astype(np.int8)
