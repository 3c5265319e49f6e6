"""The ``deducer`` agent: own-information deduction with the most even split (issue #2).

It keeps the cases consistent with its own answers, the case it holds, other players' spot markers
and correct solves, and its own failed solves (RULES.md §9); picks the clue or investigator whose
answer splits that set most evenly (smallest expected remaining set); solves when one case is left
(or, if no query can still split the set, names the first remaining case).
"""

from __future__ import annotations

import numpy as np

from pi_env.constants import (CASE_TRIPLES, INVESTIGATE_BASE, NUM_ELEMENTS, SOLVE_BASE,
                              TYPE_OFFSETS)
from pi_env.engine.observe import decode_observation

from .base import Agent

_ELEMS = CASE_TRIPLES.astype(np.int64) + np.array(TYPE_OFFSETS)  # [1680, 3] element ids of each case


def consistent_cases(observation: np.ndarray, num_players: int, adjacency: np.ndarray) -> np.ndarray:
    """``bool[1680]``: cases still possible for the observer from its own information (RULES.md §9).

    Args:
        observation: flat ``int16`` observation (see :mod:`pi_env.engine.observe`).
        num_players: ``P``.
        adjacency: ``bool[14, 14]`` board adjacency.
    """
    o = decode_observation(observation, num_players)
    td = np.argmax(o["tiles"], axis=1)  # [36] district of each tile
    dist = td[_ELEMS]  # [1680, 3] tile district of each case element
    ok = np.ones(len(_ELEMS), dtype=bool)
    for x in np.flatnonzero(o["spot"][0]):
        t = int(np.searchsorted(TYPE_OFFSETS, x, side="right") - 1)
        ok &= _ELEMS[:, t] == x
    for x in np.flatnonzero(o["trace"][0]):
        t = int(np.searchsorted(TYPE_OFFSETS, x, side="right") - 1)
        ok &= (_ELEMS[:, t] != x) & adjacency[dist[:, t], td[x]]
    for x in np.flatnonzero(o["front"][0]):
        t = int(np.searchsorted(TYPE_OFFSETS, x, side="right") - 1)
        ok &= (_ELEMS[:, t] != x) & ~adjacency[dist[:, t], td[x]]
    for d in np.flatnonzero(o["inv_placed"][0]):
        live = ~o["inv_suppressed"][0, d].astype(bool)
        spots = ((dist == d) & live).sum(axis=1)
        traces = (adjacency[dist, d] & live).sum(axis=1)
        ok &= (spots == o["inv_spots"][0, d]) & (traces == o["inv_traces"][0, d])
    excluded = o["held_case"].astype(bool).copy()
    excluded |= o["spot"][1:].any(axis=0).astype(bool)
    excluded |= o["solved_case"][1:].any(axis=0).astype(bool)
    ok &= ~excluded[_ELEMS].any(axis=1)
    ok &= ~o["failed"][0].astype(bool)
    return ok


def split_scores(observation: np.ndarray, num_players: int, adjacency: np.ndarray,
                 cases: np.ndarray, action_mask: np.ndarray) -> dict[int, float]:
    """Expected size of the remaining case set after each legal clue / investigator action.

    Args:
        cases: ``int[N]`` ids of the consistent cases (uniform weight).

    Returns:
        ``{action: sum_i n_i**2 / N}`` over the answer classes ``n_i`` (lower is better).
    """
    o = decode_observation(observation, num_players)
    td = np.argmax(o["tiles"], axis=1)
    elems = _ELEMS[cases]
    dist = td[elems]
    n = len(cases)
    out: dict[int, float] = {}
    for x in np.flatnonzero(action_mask[:NUM_ELEMENTS]):
        t = int(np.searchsorted(TYPE_OFFSETS, x, side="right") - 1)
        ans = np.where(elems[:, t] == x, 2, adjacency[dist[:, t], td[x]].astype(np.int64))
        out[int(x)] = float((np.bincount(ans, minlength=3) ** 2).sum() / n)
    own_markers = (o["spot"][0] | o["trace"][0]).astype(bool)
    for d in np.flatnonzero(action_mask[INVESTIGATE_BASE:SOLVE_BASE]):
        # suppression (RULES.md §4.2): a type whose tile in d already carries my marker adds nothing
        live = np.ones(3, dtype=bool)
        for t in range(3):
            tile = np.flatnonzero((td == d) & (np.arange(NUM_ELEMENTS) >= TYPE_OFFSETS[t])
                                  & (np.arange(NUM_ELEMENTS) < (TYPE_OFFSETS + (NUM_ELEMENTS,))[t + 1]))
            live[t] = not (tile.size and own_markers[tile[0]])
        spots = ((dist == d) & live).sum(axis=1)
        traces = (adjacency[dist, d] & live).sum(axis=1)
        ans = spots * 4 + traces
        out[INVESTIGATE_BASE + int(d)] = float((np.bincount(ans, minlength=16) ** 2).sum() / n)
    return out


class DeducerAgent(Agent):
    """Own-information deducer (see module docstring). Ties are broken by the agent's seeded rng."""

    name = "deducer"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        ok = consistent_cases(observation, self.num_players, self.board.adjacency)
        cases = np.flatnonzero(ok)
        if cases.size == 0:  # cannot happen with correct answers; fall back to any legal action
            return int(np.flatnonzero(action_mask)[-1])
        if cases.size == 1:
            return SOLVE_BASE + int(cases[0])
        scores = split_scores(observation, self.num_players, self.board.adjacency, cases, action_mask)
        best = min(scores.values(), default=float(cases.size))
        if best >= cases.size:  # nothing can split the set any more: guess
            return SOLVE_BASE + int(cases[self.rng.integers(cases.size)])
        choices = [a for a, v in scores.items() if v == best]
        return int(choices[self.rng.integers(len(choices))])
