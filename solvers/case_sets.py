"""Per-player sets of consistent cases (docs/rules.md §4, §9), as bitsets ``uint64[27]``.

For a :class:`~pi_env.solvers.knowledge.Knowledge` of player p, the *case set* of a player q is the set of
cases q could have given only

* q's own public answers (clue answers, investigation counts, failed and correct solves),
* the elements other players' public answers prove to be theirs (a clue answered *spot*, a
  correct solve) — cases are pairwise disjoint per type (docs/rules.md §3),
* the case p holds (player p+1's): it is p+1's set, and its elements are excluded for everyone else.

For q = p this is p's *own-information filter* (``own_count`` of the fixtures). Joint consistency
across players is :mod:`pi_env.solvers.joint`'s job.

Two implementations compute the same sets: a numba kernel working on precomputed per-layout
bitsets (:class:`CaseFilter`, :func:`case_bits`; one event costs one 27-word AND), and a plain
numpy reference from the answer tables (:func:`case_mask_reference`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES, NUM_ELEMENTS

from pi_env.solvers.knowledge import (COL_A, COL_B, COL_C, COL_KIND, COL_PLAYER, COL_SUP, CLUE_KIND, INVESTIGATE_KIND,
                        SOLVE_CORRECT, SOLVE_FAILED, Knowledge)
from pi_env.solvers.tables import BITSET_WORDS, CASE_ELEMENTS, AnswerTables, cached_answer_tables, from_bitset

MAX_COUNT = 3  # investigation counts above 3 are impossible


def _pack(masks: np.ndarray) -> np.ndarray:
    """``bool[..., 1680]`` → ``uint64[..., 27]``."""
    shape = masks.shape[:-1]
    padded = np.zeros(shape + (BITSET_WORDS * 64,), dtype=bool)
    padded[..., :NUM_CASES] = masks
    return np.packbits(padded, axis=-1, bitorder="little").view(np.uint64).reshape(shape + (BITSET_WORDS,)).copy()


ELEMENT_BITS: np.ndarray = _pack(np.stack([(CASE_ELEMENTS == x).any(axis=1) for x in range(NUM_ELEMENTS)]))
"""``uint64[36, 27]``: the cases containing each element."""
ELEMENT_BITS.flags.writeable = False

ALL_CASES_BITS: np.ndarray = _pack(np.ones(NUM_CASES, dtype=bool))
"""``uint64[27]``: all 1680 cases."""
ALL_CASES_BITS.flags.writeable = False


@dataclass(frozen=True, eq=False)
class LayoutBits:
    """Per-layout answer bitsets.

    Attributes:
        clue: ``uint64[36, 3, 27]``: ``[x, a]`` = cases answering ``a`` to the clue on ``x``.
        investigation: ``uint64[14, 8, 4, 4, 27]``: ``[d, sup, spots, traces]`` = cases giving these
            counts when investigating ``d`` with suppression mask ``sup``.
    """

    clue: np.ndarray
    investigation: np.ndarray


@kernel
def _build_layout_bits(clue_answers, inv_spots, inv_traces):
    clue = np.zeros((36, 3, 27), dtype=np.uint64)
    inv = np.zeros((14, 8, MAX_COUNT + 1, MAX_COUNT + 1, 27), dtype=np.uint64)
    for c in range(1680):
        w = c >> 6
        bit = np.uint64(1) << np.uint64(c & 63)
        for x in range(36):
            clue[x, clue_answers[x, c], w] |= bit
        for d in range(14):
            sm = inv_spots[d, c]
            tm = inv_traces[d, c]
            for sup in range(8):
                keep = 7 & ~sup
                ns = 0
                nt = 0
                for t in range(3):
                    if (keep >> t) & 1:
                        ns += (sm >> t) & 1
                        nt += (tm >> t) & 1
                inv[d, sup, ns, nt, w] |= bit
    return clue, inv


def layout_bits(tables: AnswerTables) -> LayoutBits:
    """Precompute the answer bitsets of a layout (well under a millisecond)."""
    clue, inv = _build_layout_bits(tables.clue_answers, tables.investigation_spots, tables.investigation_traces)
    return LayoutBits(clue, inv)


@lru_cache(maxsize=64)
def _cached_layout_bits(td_bytes: bytes, adj_bytes: bytes) -> LayoutBits:
    return layout_bits(cached_answer_tables(td_bytes, adj_bytes))


def _layout_bits_of(knowledge: Knowledge) -> LayoutBits:
    cached = knowledge.__dict__.get("_layout_bits")
    if cached is None:
        cached = _cached_layout_bits(knowledge.tile_district.tobytes(), knowledge.adjacency.tobytes())
        knowledge.__dict__["_layout_bits"] = cached
    return cached


# ---------------------------------------------------------------------------------------------
# numba kernel


@kernel
def apply_event_bits(bits, owner, row, clue_bits, inv_bits, element_bits):
    """Update ``bits`` (the case set of player ``owner``) in place with one event row."""
    q = row[COL_PLAYER]
    kind = row[COL_KIND]
    a = row[COL_A]
    if q == owner:
        if kind == CLUE_KIND:
            for w in range(bits.shape[0]):
                bits[w] &= clue_bits[a, row[COL_B], w]
        elif kind == INVESTIGATE_KIND:
            s = row[COL_B]
            t = row[COL_C]
            if s > MAX_COUNT or t > MAX_COUNT:
                bits[:] = 0
            else:
                sup = row[COL_SUP]
                for w in range(bits.shape[0]):
                    bits[w] &= inv_bits[a, sup, s, t, w]
        elif kind == SOLVE_FAILED:
            bits[a >> 6] &= ~(np.uint64(1) << np.uint64(a & 63))
        elif kind == SOLVE_CORRECT:
            keep = bits[a >> 6] & (np.uint64(1) << np.uint64(a & 63))
            bits[:] = 0
            bits[a >> 6] = keep
    else:
        if kind == CLUE_KIND:
            if row[COL_B] == 2:
                for w in range(bits.shape[0]):
                    bits[w] &= ~element_bits[a, w]
        elif kind == SOLVE_CORRECT:
            s = a // 140
            e = 12 + (a // 14) % 10
            loc = 22 + a % 14
            for w in range(bits.shape[0]):
                bits[w] &= ~(element_bits[s, w] | element_bits[e, w] | element_bits[loc, w])


@kernel
def initial_bits(owner, held_player, held_case, all_bits, element_bits):
    """The case set of ``owner`` before any event: the held case alone for its player, else every
    case sharing no element with the held case."""
    bits = all_bits.copy()
    if held_case >= 0:
        if owner == held_player:
            bits[:] = 0
            bits[held_case >> 6] = np.uint64(1) << np.uint64(held_case & 63)
        else:
            s = held_case // 140
            e = 12 + (held_case // 14) % 10
            loc = 22 + held_case % 14
            for w in range(bits.shape[0]):
                bits[w] &= ~(element_bits[s, w] | element_bits[e, w] | element_bits[loc, w])
    return bits


@kernel
def all_case_bits(n_players, held_player, held_case, events, all_bits, clue_bits, inv_bits, element_bits):
    """``uint64[n, 27]``: the case set of every player."""
    out = np.empty((n_players, all_bits.shape[0]), dtype=np.uint64)
    for q in range(n_players):
        bits = initial_bits(q, held_player, held_case, all_bits, element_bits)
        for i in range(events.shape[0]):
            apply_event_bits(bits, q, events[i], clue_bits, inv_bits, element_bits)
        out[q] = bits
    return out


def case_bits(knowledge: Knowledge, players: "list[int] | None" = None) -> np.ndarray:
    """Case sets of all players (``uint64[n, 27]``) as seen by ``knowledge.player`` (numba).

    Row ``knowledge.player`` is the own-information filter. If ``held_case`` is ``-1`` the held
    player's row is computed like any other player's.
    """
    lb = _layout_bits_of(knowledge)
    return all_case_bits(knowledge.n_players, knowledge.held_player, knowledge.held_case,
                         knowledge.events, ALL_CASES_BITS, lb.clue, lb.investigation, ELEMENT_BITS)


class CaseFilter:
    """Incremental case set of one player: feed events one at a time.

    Example::

        f = CaseFilter(knowledge)          # own filter of knowledge.player, all its events applied
        f.update(row)                      # one more event (int32[7] row); about a microsecond
        f.count, f.cases, f.bits
    """

    def __init__(self, knowledge: Knowledge, owner: int | None = None):
        self._lb = _layout_bits_of(knowledge)
        self.owner = knowledge.player if owner is None else owner
        self.bits = initial_bits(self.owner, knowledge.held_player, knowledge.held_case, ALL_CASES_BITS,
                                 ELEMENT_BITS)
        for row in knowledge.events:
            self.update(row)

    def update(self, row: np.ndarray) -> None:
        """Apply one event row (``int32[7]``, see :mod:`pi_env.solvers.knowledge`)."""
        apply_event_bits(self.bits, self.owner, row, self._lb.clue, self._lb.investigation, ELEMENT_BITS)

    @property
    def mask(self) -> np.ndarray:
        """``bool[1680]``."""
        return from_bitset(self.bits)

    @property
    def cases(self) -> np.ndarray:
        """Case ids, ascending."""
        return np.flatnonzero(self.mask)

    @property
    def count(self) -> int:
        return int(self.mask.sum())


# ---------------------------------------------------------------------------------------------
# plain numpy reference


def event_mask_reference(tables: AnswerTables, owner: int, row: np.ndarray) -> np.ndarray:
    """``bool[1680]``: cases of ``owner`` compatible with one event, from the answer tables."""
    q, kind, a = int(row[COL_PLAYER]), int(row[COL_KIND]), int(row[COL_A])
    cases = np.arange(NUM_CASES)
    if q == owner:
        if kind == CLUE_KIND:
            return tables.clue_answers[a] == row[COL_B]
        if kind == INVESTIGATE_KIND:
            keep = np.array([not (int(row[COL_SUP]) >> t) & 1 for t in range(3)])
            spot_types = (tables.investigation_spots[a][:, None] >> np.arange(3)) & 1
            trace_types = (tables.investigation_traces[a][:, None] >> np.arange(3)) & 1
            return ((spot_types * keep).sum(axis=1) == row[COL_B]) & ((trace_types * keep).sum(axis=1) == row[COL_C])
        if kind == SOLVE_FAILED:
            return cases != a
        return cases == a
    if kind == CLUE_KIND and row[COL_B] == 2:
        return ~(CASE_ELEMENTS == a).any(axis=1)
    if kind == SOLVE_CORRECT:
        return ~np.any(np.isin(CASE_ELEMENTS, CASE_ELEMENTS[a]), axis=1)
    return np.ones(NUM_CASES, dtype=bool)


def case_mask_reference(knowledge: Knowledge, owner: int | None = None) -> np.ndarray:
    """``bool[1680]``: the case set of ``owner`` (default the asking player), plain numpy."""
    owner = knowledge.player if owner is None else owner
    mask = np.ones(NUM_CASES, dtype=bool)
    held = knowledge.held_case
    if held >= 0:
        if owner == knowledge.held_player:
            mask = np.arange(NUM_CASES) == held
        else:
            mask &= ~np.isin(CASE_ELEMENTS, CASE_ELEMENTS[held]).any(axis=1)
    for row in knowledge.events:
        mask &= event_mask_reference(knowledge.tables, owner, row)
    return mask
