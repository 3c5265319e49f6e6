"""Answer tables of one board layout (docs/rules.md §4.1, §4.2) and case bitsets.

Everything the solver needs to know about the layout is how each possible case would answer each
possible query. These tables are computed once per layout with plain numpy:

* ``clue_answers``: ``int8[36, 1680]``, entry ``[x, c]`` = the answer (0 nothing, 1 trace,
  2 spot) a player whose case is ``c`` gets for the clue card of element ``x``.
* ``investigation_spots`` / ``investigation_traces``: ``uint8[14, 1680]``, entry ``[d, c]`` = a
  3-bit mask of the types (bit 0 suspect, 1 evidence, 2 location) that give a spot / a trace when
  a player whose case is ``c`` investigates district ``d``. The public counts are the popcounts
  of these masks after clearing the suppressed types.
* ``case_elements``: ``int64[1680]``, the 36-bit element mask of each case (bit = element id).

Case sets are either ``bool[1680]`` or bitsets ``uint64[27]`` (case ``c`` is bit ``c % 64`` of
word ``c // 64``; bits 1680..1727 are always 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS, TYPE_OFFSETS

BITSET_WORDS = (NUM_CASES + 63) // 64  # 27

CASE_ELEMENTS: np.ndarray = (CASE_TRIPLES.astype(np.int64) + np.array(TYPE_OFFSETS, dtype=np.int64))
"""``int64[1680, 3]``: the element ids (suspect, evidence, location) of each case."""
CASE_ELEMENTS.flags.writeable = False

CASE_ELEMENT_MASKS: np.ndarray = np.bitwise_or.reduce(np.left_shift(np.int64(1), CASE_ELEMENTS), axis=1)
"""``int64[1680]``: bit ``x`` set iff element ``x`` belongs to the case."""
CASE_ELEMENT_MASKS.flags.writeable = False


@dataclass(frozen=True, eq=False)
class AnswerTables:
    """The answer tables of one layout (see the module docstring for shapes and meaning)."""

    clue_answers: np.ndarray
    investigation_spots: np.ndarray
    investigation_traces: np.ndarray


def answer_tables(tile_district: np.ndarray, adjacency: np.ndarray) -> AnswerTables:
    """Build the answer tables of a layout.

    Args:
        tile_district: ``int[36]``, district 0..13 of each element's tile (locations: their own).
        adjacency: ``bool[14, 14]``, symmetric, ``False`` on the diagonal.

    Raises:
        PIError: wrong shapes or a district out of range.
    """
    td = np.asarray(tile_district, dtype=np.int64)
    adj = np.asarray(adjacency, dtype=bool)
    if td.shape != (NUM_ELEMENTS,) or adj.shape != (NUM_DISTRICTS, NUM_DISTRICTS):
        raise PIError(f"tile_district must be int[36] and adjacency bool[14, 14], got {td.shape}, {adj.shape}")
    if td.min() < 0 or td.max() >= NUM_DISTRICTS:
        raise PIError("tile_district entries must be districts 0..13")
    case_districts = td[CASE_ELEMENTS]  # [1680, 3]: district of the tile of each case element
    elem_type = np.repeat(np.arange(3), [12, 10, 14])
    # clue on x of type t answers about the case's type-t element y
    y = CASE_ELEMENTS[:, elem_type]  # [1680, 36]
    x = np.arange(NUM_ELEMENTS)[None, :]
    spot = y == x
    trace = adj[td[y], td[x]] & ~spot
    clue = np.where(spot, 2, np.where(trace, 1, 0)).T.astype(np.int8)  # [36, 1680]
    d = np.arange(NUM_DISTRICTS)[:, None, None]
    spot_t = case_districts[None, :, :] == d  # [14, 1680, 3]: district of y_t is d
    trace_t = np.moveaxis(adj[case_districts], 2, 0)  # [14, 1680, 3]: adj[district of y_t, d]
    weights = np.array([1, 2, 4], dtype=np.uint8)
    spots = (spot_t.astype(np.uint8) * weights).sum(axis=2).astype(np.uint8)
    traces = (trace_t.astype(np.uint8) * weights).sum(axis=2).astype(np.uint8)
    for arr in (clue, spots, traces):
        arr.flags.writeable = False
    return AnswerTables(clue, spots, traces)


@lru_cache(maxsize=64)
def cached_answer_tables(tile_district_bytes: bytes, adjacency_bytes: bytes) -> AnswerTables:
    """:func:`answer_tables` memoised on the layout (``int8[36]`` and ``bool[14, 14]`` bytes)."""
    td = np.frombuffer(tile_district_bytes, dtype=np.int8)
    adj = np.frombuffer(adjacency_bytes, dtype=bool).reshape(14, 14)
    return answer_tables(td, adj)


def to_bitset(mask: np.ndarray) -> np.ndarray:
    """``bool[1680]`` → ``uint64[27]`` bitset."""
    padded = np.zeros(BITSET_WORDS * 64, dtype=bool)
    padded[:NUM_CASES] = mask
    return np.packbits(padded, bitorder="little").view(np.uint64).copy()


def from_bitset(bits: np.ndarray) -> np.ndarray:
    """``uint64[27]`` bitset → ``bool[1680]``."""
    return np.unpackbits(np.ascontiguousarray(bits, dtype=np.uint64).view(np.uint8),
                         bitorder="little")[:NUM_CASES].astype(bool)


def bitset_cases(bits: np.ndarray) -> np.ndarray:
    """Case ids (``int64``, ascending) in a bitset."""
    return np.flatnonzero(from_bitset(bits))
