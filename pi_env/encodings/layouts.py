"""The layouts of every encoding: component name -> ``(start, shape)``, and their sizes.

Pure descriptions (numpy only, no numba): the engine's writers take their offsets from here
(:mod:`pi_env.engine.observe`, :mod:`pi_env.engine.packed`, :mod:`pi_env.engine.solo`), the
solvers' compact encodings theirs (:mod:`pi_env.solvers.compact`). What each component means is
documented where it is written (the engine observation: :mod:`pi_env.engine.observe`; the packed
encoding and its integer rows: :mod:`pi_env.engine.packed`; the solo observation:
:mod:`pi_env.engine.solo`; the compact encodings: :mod:`pi_env.solvers.compact`; the solver
features: :mod:`pi_env.solvers.features`).

A component table is a tuple of ``(name, shape, per_seat)``: a per-seat component is repeated for
the ``P`` relative seats (shape ``(P,) + shape``); components follow one another with no gap.
"""

from __future__ import annotations

import functools

import numpy as np

from pi_env.core.constants import NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS
from pi_env.core.errors import PIError

__all__ = ["Layout", "component_layout", "layout_dict", "OBSERVATION_COMPONENTS", "observation_layout",
           "observation_size", "flat_v1_layout", "flat_v1_size", "flat_v1_columns", "PACKED_COMPONENTS", "packed_layout", "packed_size", "INT_LAYOUT_VERSION",
           "PACKED_INT_COMPONENTS", "INT_FIELDS", "packed_int_layout", "packed_int_size", "packed_int_unpacking",
           "SOLO_OBSERVATION_COMPONENTS", "solo_observation_layout", "SOLO_OBSERVATION_SIZE", "SOLVER_FEATURES",
           "SOLVER_LAYOUT", "solver_layout", "solver_size", "COMPACT_HEAD", "COMPACT_SEATS", "COMPACT_TAIL",
           "compact_layout", "compact_size", "JOINT_BLOCK_LAYOUT", "JOINT_BLOCK_SIZE", "SOLO_COMPACT_COMPONENTS",
           "solo_compact_layout", "SOLO_COMPACT_SIZE", "QUERY_EXTRA", "SOLO_EXTRA", "DECISION_BLOCK_LAYOUT",
           "DECISION_BLOCK_SIZE", "DECISION_SEATS"]

Layout = dict[str, tuple[int, tuple[int, ...]]]
"""``name -> (start, shape)``, in order."""

Components = tuple[tuple[str, tuple[int, ...], bool], ...]


def component_layout(components: Components, num_players: int) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, size, shape)`` of every component of ``components`` (``(name, shape,
    per_seat)``, a per-seat component repeated for the ``num_players`` relative seats), laid out
    one after another in order."""
    out = []
    pos = 0
    for name, shape, per_seat in components:
        full = ((num_players,) + shape) if per_seat else shape
        n = int(np.prod(full)) if full else 1
        out.append((name, pos, n, full))
        pos += n
    return tuple(out)


def layout_dict(components: Components, num_players: int = 0) -> Layout:
    """:func:`component_layout` as ``name -> (start, shape)`` (a new dict every call)."""
    return {name: (start, shape) for name, start, _, shape in component_layout(components, num_players)}


def _size(components: Components, num_players: int = 0) -> int:
    _, start, n, _ = component_layout(components, num_players)[-1]
    return start + n


# --- the engine observation (pi_env.engine.observe; the flat encoding has the same layout) ------
OBSERVATION_COMPONENTS: Components = (
    ("tiles", (NUM_ELEMENTS, NUM_DISTRICTS), False), ("display", (NUM_ELEMENTS,), False),
    ("discard", (NUM_ELEMENTS,), False), ("front", (NUM_ELEMENTS,), True),
    ("spot", (NUM_ELEMENTS,), True), ("trace", (NUM_ELEMENTS,), True),
    ("inv_placed", (NUM_DISTRICTS,), True), ("inv_spots", (NUM_DISTRICTS,), True),
    ("inv_traces", (NUM_DISTRICTS,), True), ("inv_suppressed", (NUM_DISTRICTS, 3), True),
    ("held_case", (NUM_ELEMENTS,), False), ("solved_case", (NUM_ELEMENTS,), True),
    ("failed", (NUM_CASES,), True), ("score", (), True), ("attempted", (), True),
    ("solved", (), True), ("inv_left", (), True), ("round", (1,), False), ("tier", (1,), False),
    ("rotation", (1,), False), ("first_seat", (1,), False), ("deck_size", (1,), False),
    ("to_move", (1,), False),
)
"""The engine observation's components, in order (:mod:`pi_env.engine.observe`)."""


@functools.lru_cache(maxsize=None)
def observation_components(num_players: int) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, size, shape)`` of every observation component, in order (cached)."""
    return component_layout(OBSERVATION_COMPONENTS, num_players)


def observation_layout(num_players: int) -> Layout:
    """Offsets and shapes of the observation components: ``name -> (start, shape)`` (a new dict
    every call)."""
    return {name: (start, shape) for name, start, _, shape in observation_components(num_players)}


@functools.lru_cache(maxsize=None)
def observation_size(num_players: int) -> int:
    """Length of the flat observation vector: ``618 + 1912 * num_players``."""
    return _size(OBSERVATION_COMPONENTS, num_players)


def flat_v1_layout(num_players: int) -> Layout:
    """Offsets and shapes of ``"flat-v1"`` (the learned models' flat input): the flat encoding
    without the per-seat ``failed`` blocks."""
    return layout_dict(tuple(c for c in OBSERVATION_COMPONENTS if c[0] != "failed"), num_players)


def flat_v1_size(num_players: int) -> int:
    """Length of ``"flat-v1"``: ``618 + 232 * num_players`` (2 players: 1082)."""
    return observation_size(num_players) - NUM_CASES * num_players


@functools.lru_cache(maxsize=8)
def flat_v1_columns(num_players: int) -> np.ndarray:
    """``int64[618 + 232·P]`` (read-only): the flat-encoding columns ``"flat-v1"`` keeps (all but
    ``failed``), in order."""
    start, shape = observation_layout(num_players)["failed"]
    n = int(np.prod(shape))
    cols = np.concatenate([np.arange(start), np.arange(start + n, observation_size(num_players))])
    cols.flags.writeable = False
    return cols


# --- the packed encoding (pi_env.engine.packed) -----------------------------------------------
_PACKED: Components = (
    ("tile_district", (NUM_ELEMENTS,), False), ("display", (NUM_ELEMENTS,), False),
    ("discard", (NUM_ELEMENTS,), False), ("front", (NUM_ELEMENTS,), True),
    ("spot", (NUM_ELEMENTS,), True), ("trace", (NUM_ELEMENTS,), True),
    ("inv_placed", (NUM_DISTRICTS,), True), ("inv_spots", (NUM_DISTRICTS,), True),
    ("inv_traces", (NUM_DISTRICTS,), True), ("inv_suppressed", (NUM_DISTRICTS, 3), True),
    ("held_case", (NUM_ELEMENTS,), False), ("solved_case", (NUM_ELEMENTS,), True),
    ("failed_count", (), True), ("failed_share", (NUM_ELEMENTS,), True),
    ("score", (), True), ("attempted", (), True), ("solved", (), True), ("inv_left", (), True),
    ("round", (1,), False), ("tier", (1,), False), ("rotation", (1,), False),
    ("first_seat", (1,), False), ("deck_size", (1,), False), ("to_move", (1,), False),
)
PACKED_COMPONENTS = tuple(name for name, _, _ in _PACKED)
"""The packed encoding's component names, in layout order (:mod:`pi_env.engine.packed`)."""


@functools.lru_cache(maxsize=None)
def packed_components(num_players: int) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, size, shape)`` of every packed component, in order (cached)."""
    return component_layout(_PACKED, num_players)


def packed_layout(num_players: int) -> Layout:
    """Offsets and shapes of the packed encoding's components: ``name -> (start, shape)`` (a new
    dict every call)."""
    return {name: (start, shape) for name, start, _, shape in packed_components(num_players)}


@functools.lru_cache(maxsize=None)
def packed_size(num_players: int) -> int:
    """Length of the packed encoding: ``150 + 269 * num_players`` (2 players: 688)."""
    return _size(_PACKED, num_players)


# --- the packed integer rows (pi_env.engine.packed, "Integer rows") ----------------------------
INT_LAYOUT_VERSION = 2
"""The layout of the packed integer rows: 2 packs the 0/1 and 0..3 components into bit fields
(``78 + 105·P`` entries; 2 players: 288); 1 (until commit a2c8dee) was the packed layout entry for
entry (``150 + 269·P``: 688)."""

_INT: Components = (
    ("tile_district", (NUM_ELEMENTS,), False), ("cards", (NUM_ELEMENTS,), False),
    ("markers", (NUM_ELEMENTS,), True), ("investigators", (NUM_DISTRICTS,), True),
    ("suppressed", (NUM_DISTRICTS,), True), ("failed_count", (), True), ("failed_share", (NUM_ELEMENTS,), True),
    ("score", (), True), ("attempted", (), True), ("solved", (), True), ("inv_left", (), True),
    ("round", (1,), False), ("tier", (1,), False), ("rotation", (1,), False),
    ("first_seat", (1,), False), ("deck_size", (1,), False), ("to_move", (1,), False),
)
PACKED_INT_COMPONENTS = tuple(name for name, _, _ in _INT)
"""The integer rows' component names, in layout order."""

INT_FIELDS: dict[str, tuple[str, int, int]] = {
    "display": ("cards", 0, 1), "discard": ("cards", 1, 1), "held_case": ("cards", 2, 1),
    "front": ("markers", 0, 1), "spot": ("markers", 1, 1), "trace": ("markers", 2, 1),
    "solved_case": ("markers", 3, 1), "inv_placed": ("investigators", 0, 1),
    "inv_spots": ("investigators", 1, 2), "inv_traces": ("investigators", 3, 2),
    "inv_suppressed": ("suppressed", 0, 1),  # type t at bit t
}
"""Packed component -> (integer component, first bit, bits) of the components held in bit fields;
every other packed component is the integer component of its name, entry for entry."""


@functools.lru_cache(maxsize=None)
def packed_int_components(num_players: int) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, size, shape)`` of every integer-row component, in order (cached)."""
    return component_layout(_INT, num_players)


def packed_int_layout(num_players: int) -> Layout:
    """Offsets and shapes of the integer rows' components: ``name -> (start, shape)`` (a new dict
    every call)."""
    return {name: (start, shape) for name, start, _, shape in packed_int_components(num_players)}


@functools.lru_cache(maxsize=None)
def packed_int_size(num_players: int) -> int:
    """Length of an integer row: ``78 + 105 * num_players`` (2 players: 288, 4 players: 498)."""
    return _size(_INT, num_players)


@functools.lru_cache(maxsize=None)
def _unpack_table(num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ilay = packed_int_layout(num_players)
    D = packed_size(num_players)
    src = np.empty(D, dtype=np.int64)
    shift = np.zeros(D, dtype=np.int64)
    mask = np.full(D, -1, dtype=np.int64)
    for name, start, n, shape in packed_components(num_players):
        iname, bit, bits = INT_FIELDS.get(name, (name, 0, 0))
        istart = ilay[iname][0]
        if name == "inv_suppressed":  # [P, 14, 3] -> [P, 14], type t at bit t
            k = np.arange(n)
            src[start:start + n] = istart + k // 3
            shift[start:start + n] = k % 3
        else:
            src[start:start + n] = istart + np.arange(n)
            shift[start:start + n] = bit
        if bits:
            mask[start:start + n] = (1 << bits) - 1
    for a in (src, shift, mask):
        a.flags.writeable = False
    return src, shift, mask


def packed_int_unpacking(num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(source, shift, mask)``, each read-only ``int64[packed_size(P)]``: entry ``k`` of the packed
    layout is the integer ``(row[..., source[k]] >> shift[k]) & mask[k]`` of an integer row (an
    arithmetic shift; ``mask`` ``-1`` for the entries held whole, signed scores included)."""
    return _unpack_table(int(num_players))


# --- the solo observation (pi_env.engine.solo) ------------------------------------------------
SOLO_OBSERVATION_COMPONENTS: Components = (
    ("tiles", (NUM_ELEMENTS, NUM_DISTRICTS), False), ("display", (NUM_ELEMENTS,), False),
    ("discard", (NUM_ELEMENTS,), False), ("spot", (NUM_ELEMENTS,), False), ("trace", (NUM_ELEMENTS,), False),
    ("nothing", (NUM_ELEMENTS,), False), ("inv_placed", (NUM_DISTRICTS,), False),
    ("inv_spots", (NUM_DISTRICTS,), False), ("inv_traces", (NUM_DISTRICTS,), False),
    ("inv_suppressed", (NUM_DISTRICTS, 3), False), ("failed", (NUM_CASES,), False), ("inv_left", (1,), False),
    ("actions", (1,), False), ("wrong_solves", (1,), False), ("deck_size", (1,), False),
)
"""The solo observation's components, in order (:mod:`pi_env.engine.solo`)."""


def solo_observation_layout() -> Layout:
    """Offsets and shapes of the solo observation's components: ``name -> (start, shape)``."""
    return layout_dict(SOLO_OBSERVATION_COMPONENTS)


SOLO_OBSERVATION_SIZE: int = _size(SOLO_OBSERVATION_COMPONENTS)
"""Length of the solo observation (2452)."""


# --- the solver features (pi_env.solvers.features): the flat encoding, then these --------------
SOLVER_FEATURES = 37
"""Entries the solver-augmented encoding appends to the flat one."""
SOLVER_LAYOUT: Layout = {
    "p_suspect": (0, (12,)), "p_evidence": (12, (10,)), "p_location": (22, (14,)),
    "log2_count": (36, (1,))}
"""Offsets (after the flat part) and shapes of the solver features."""


def solver_layout(num_players: int) -> Layout:
    """The whole solver-augmented encoding: the flat layout, then :data:`SOLVER_LAYOUT` shifted."""
    out = observation_layout(num_players)
    d = observation_size(num_players)
    out.update({name: (d + start, shape) for name, (start, shape) in SOLVER_LAYOUT.items()})
    return out


def solver_size(num_players: int) -> int:
    """Length of the solver-augmented encoding: ``flat_size(P) + 37``."""
    return observation_size(num_players) + SOLVER_FEATURES


# --- the compact encodings (pi_env.solvers.compact) --------------------------------------------
COMPACT_HEAD: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("own_marginals", (36,)), ("own_log2_count", (1,)), ("own_p_best", (1,)), ("clue_gain", (36,)),
    ("district_gain", (14,)), ("held_case", (36,)), ("held_clue_gain", (36,)), ("display", (36,)),
    ("own_inv_placed", (14,)))
"""The compact encoding's components before the per-seat ones."""
COMPACT_SEATS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("score", ()), ("attempted", ()), ("solved", ()), ("inv_left", ()), ("public_log2_count", ()),
    ("public_certainty", (3,)))
"""The compact encoding's per-seat components."""
COMPACT_TAIL: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("round", (1,)), ("tier", (1,)), ("rotation", (1,)), ("first_seat", (1,)), ("deck_size", (1,)),
    ("to_move", (1,)))
"""The compact encoding's components after the per-seat ones."""
_COMPACT: Components = (tuple((n, s, False) for n, s in COMPACT_HEAD) + tuple((n, s, True) for n, s in COMPACT_SEATS)
                        + tuple((n, s, False) for n, s in COMPACT_TAIL))


def _check_players(num_players: int) -> int:
    if (not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool)
            or not 2 <= num_players <= 5):
        raise PIError(f"num_players must be 2..5, got {num_players!r}")
    return int(num_players)


@functools.lru_cache(maxsize=None)
def compact_components(num_players: int) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, size, shape)`` of every compact component, in order (cached).

    Raises:
        PIError: a player count outside 2..5.
    """
    return component_layout(_COMPACT, _check_players(num_players))


def compact_layout(num_players: int) -> Layout:
    """Offsets and shapes of the compact encoding's components: ``name -> (start, shape)``.

    Raises:
        PIError: a player count outside 2..5.
    """
    return {name: (start, shape) for name, start, _, shape in compact_components(num_players)}


def compact_size(num_players: int) -> int:
    """Length of the compact encoding: ``216 + 8 * num_players``.

    Raises:
        PIError: a player count outside 2..5.
    """
    _, start, n, _ = compact_components(num_players)[-1]
    return start + n


JOINT_BLOCK_LAYOUT: Layout = {
    "joint_marginals": (0, (36,)), "joint_log2_count": (36, (1,)), "joint_p_best": (37, (1,))}
"""Offsets and shapes of the joint block (``"compact-v2"`` appends it to ``"compact-v1"``)."""
JOINT_BLOCK_SIZE = 38
"""Length of the joint block."""

SOLO_COMPACT_COMPONENTS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("own_marginals", (36,)), ("own_log2_count", (1,)), ("own_p_best", (1,)), ("clue_gain", (36,)),
    ("district_gain", (14,)), ("display", (36,)), ("inv_placed", (14,)), ("inv_left", (1,)),
    ("actions", (1,)), ("wrong_solves", (1,)), ("deck_size", (1,)))
"""The solo compact encoding's components, in order."""


def solo_compact_layout() -> Layout:
    """Offsets and shapes of the solo compact encoding: ``name -> (start, shape)``."""
    return layout_dict(tuple((n, s, False) for n, s in SOLO_COMPACT_COMPONENTS))


SOLO_COMPACT_SIZE = sum(int(np.prod(shape)) for _, shape in SOLO_COMPACT_COMPONENTS)
"""Length of the solo compact encoding (142)."""

QUERY_EXTRA = 50 + 50
"""Entries ``"compact-v3"`` appends to ``"compact-v2"``: ``rel_gain`` [50], ``best_gain`` [50]."""
SOLO_EXTRA = 50 + 50 + 8
"""Entries ``"solo-compact-v1"`` appends to the solo compact encoding: ``rel_gain`` [50],
``best_gain`` [50], ``small_count`` [8]."""

DECISION_SEATS = 4
"""Relative seats 1..4 of the decision block's per-seat entries (zeros beyond ``P − 1``)."""
DECISION_BLOCK_LAYOUT: Layout = {
    "p_correct": (0, (1,)), "e_now": (1, (1,)), "e_wait": (2, (1,)), "solve_now": (3, (1,)),
    "solve_points": (4, (1,)), "wrong_penalty": (5, (1,)), "inv_allowed": (6, (1,)), "pending": (7, (1,)),
    "hazard": (8, (DECISION_SEATS,)), "idle": (12, (DECISION_SEATS,)), "greedy_choice": (16, (51,))}
"""Offsets and shapes of the decision block (``"compact-v4"`` appends it to ``"compact-v3"``): the
figures the ``greedy`` agent decides on (:func:`pi_env.agents.greedy_batch.decision_block`; the
meaning and range of every entry: :mod:`pi_env.agents.learned`, module docstring)."""
DECISION_BLOCK_SIZE = 67
"""Length of the decision block."""
