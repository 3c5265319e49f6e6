"""The one registry of encodings: name -> :class:`EncodingSpec`.

Every array a player's view is turned into has one entry here: the engine and solo observations,
the self-play env's rows (``"flat"``, ``"packed"``, ``"packed-int8"``, ``"packed-int16"``), the
solver-augmented rows, and the input encodings of learned models (``"flat-v1"``, ``"compact-v1"``
... ``"solo-compact-v1"``). A spec says what the encoding looks like (layout, size, dtype, bounds,
scales, version); the code that computes it is elsewhere (:attr:`EncodingSpec.computed_by`), above
this package.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pi_env.core.constants import MAX_PLAYERS, MIN_PLAYERS
from pi_env.core.errors import PIError
from pi_env.encodings import bounds as B
from pi_env.encodings import layouts as L

_PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))

LayoutFn = Callable[[int], "dict[str, tuple[int, tuple[int, ...]]]"]
"""``num_players -> {name: (start, shape)}``."""

__all__ = ["EncodingSpec", "REGISTRY", "get", "names", "learned_names", "SOLO_ENCODING", "ENV_OBSERVATIONS",
           "ENCODING_PLAYERS", "check_players"]


@dataclass(frozen=True)
class EncodingSpec:
    """What one encoding is.

    Attributes:
        name: its registry name.
        version: the version of its layout and values (a change of either is a new version; the
            learned encodings carry it in their names too).
        dtype: the entries' numpy dtype name (``"float32"``, ``"int16"``, ``"int8"``).
        solo: ``True`` for an encoding of Solo Time Attack (no player count: call with 0).
        layout: ``num_players -> {name: (start, shape)}``, the components in order, no gap.
        size: ``num_players -> int``, the length of a row.
        bounds: ``config -> (low[size], high[size])``, or ``None`` when not tabulated.
        scales: ``config -> float32[size]`` (entry = integer value × scale), or ``None`` (not a
            scaled integer encoding).
        computed_by: the dotted name of the code that writes it.
        summary: one line.
    """

    name: str
    version: int
    dtype: str
    solo: bool
    layout: "LayoutFn"
    size: Callable[[int], int]
    bounds: "Callable[[Any], tuple[np.ndarray, np.ndarray]] | None"
    scales: "Callable[[Any], np.ndarray] | None"
    computed_by: str
    summary: str


def _solo_layout(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return L.solo_observation_layout()


def _solo_size(num_players: int = 0) -> int:
    return L.SOLO_OBSERVATION_SIZE


def _concat(*parts: "tuple[str, LayoutFn]") -> LayoutFn:
    """A layout of consecutive parts (each ``(prefix, layout function)``; a prefix avoids name
    clashes, ``""`` for none)."""
    def layout(num_players: int) -> "dict[str, tuple[int, tuple[int, ...]]]":
        out: dict[str, tuple[int, tuple[int, ...]]] = {}
        pos = 0
        for prefix, part in parts:
            lay = part(num_players)
            for name, (start, shape) in lay.items():
                out[prefix + name] = (pos + start, shape)
            pos += sum(int(np.prod(shape)) if shape else 1 for _, shape in lay.values())
        return out
    return layout


def _size_of(layout: LayoutFn) -> Callable[[int], int]:
    def size(num_players: int = 0) -> int:
        start, shape = list(layout(num_players).values())[-1]
        return start + (int(np.prod(shape)) if shape else 1)
    return size


def _joint(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return dict(L.JOINT_BLOCK_LAYOUT)


def _query_extra(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return {"rel_gain": (0, (50,)), "best_gain": (50, (50,))}


def _solo_extra(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return {"rel_gain": (0, (50,)), "best_gain": (50, (50,)), "small_count": (100, (8,))}


def _solo_compact(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return L.solo_compact_layout()


_compact_v2 = _concat(("", L.compact_layout), ("", _joint))
_compact_v3 = _concat(("", L.compact_layout), ("", _joint), ("", _query_extra))
def _decision(num_players: int = 0) -> "dict[str, tuple[int, tuple[int, ...]]]":
    return dict(L.DECISION_BLOCK_LAYOUT)


ENCODING_PLAYERS: dict[str, tuple[int, ...]] = {}
"""The player counts of the learned encodings computed for only some of the game's 2–5 players (the
others, and every encoding not listed: all of 2–5). None today: ``"compact-v4"`` was 2–4 until its
decision block was computed at 5 players too (:data:`pi_env.agents.greedy_batch.DECISION_BLOCK_PLAYERS`)."""
_WHY_FEWER_PLAYERS: dict[str, str] = {}


def check_players(name: str, num_players: int) -> None:
    """Refuse a player count encoding ``name`` is not computed for: one outside the game's 2–5
    (:data:`pi_env.core.constants.MIN_PLAYERS` .. ``MAX_PLAYERS``) or outside the encoding's entry
    of :data:`ENCODING_PLAYERS`: the one home of the rule, used by the registry's ``"compact-v4"``
    layout and size and by :func:`pi_env.agents.learned.check_player_encoding`.

    Raises:
        PIError: one line, e.g. ``the compact-v4 encoding is computed for 2, 3, 4 and 5 players, not 6``.
    """
    counts = ENCODING_PLAYERS.get(name, _PLAYER_COUNTS)
    if num_players not in counts:
        why = f" ({_WHY_FEWER_PLAYERS[name]})" if name in _WHY_FEWER_PLAYERS else ""
        raise PIError(f"the {name} encoding{why} is computed for "
                      f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} players, not {num_players}")


_compact_v4_parts = _concat(("", L.compact_layout), ("", _joint), ("", _query_extra), ("", _decision))


def _compact_v4(num_players: int) -> "dict[str, tuple[int, tuple[int, ...]]]":
    """compact-v3's layout, then the decision block; 2–5 players (:func:`check_players`: the block's
    ``hazard`` and ``idle`` entries hold 4 later seats)."""
    check_players("compact-v4", num_players)
    return _compact_v4_parts(num_players)


_solo_compact_v1 = _concat(("", _solo_compact), ("", _solo_extra))


def _packed_int_spec(dtype: str) -> EncodingSpec:
    return EncodingSpec(
        f"packed-{dtype}", L.INT_LAYOUT_VERSION, dtype, False, L.packed_int_layout, L.packed_int_size,
        B.packed_int_bounds, None, "pi_env.envs.encoders.PackedIntEncoder",
        f"the packed encoding before its scales, 0/1 and 0..3 components in bit fields ({dtype})")


_SPECS = (
    EncodingSpec("observation", 1, "int16", False, L.observation_layout, L.observation_size, B.observation_bounds,
                 None, "pi_env.engine.observe", "the engine observation of one player (integers)"),
    EncodingSpec("flat", 1, "float32", False, L.observation_layout, L.observation_size, B.flat_bounds,
                 B.flat_scales, "pi_env.envs.encoders.FlatEncoder",
                 "the engine observation times its scales (about [0, 1])"),
    EncodingSpec("packed", 1, "float32", False, L.packed_layout, L.packed_size, B.packed_bounds, None,
                 "pi_env.envs.encoders.PackedEncoder",
                 "the flat encoding with tiles as district indices and failed solves as counts and shares"),
    _packed_int_spec("int8"),
    _packed_int_spec("int16"),
    EncodingSpec("solver", 1, "float32", False, L.solver_layout, L.solver_size, B.solver_bounds, None,
                 "pi_env.solvers.features.solver_features",
                 "the flat encoding, then the player's 37 exact case features"),
    EncodingSpec("solo-observation", 1, "int16", True, _solo_layout, _solo_size, B.solo_observation_bounds, None,
                 "pi_env.engine.solo.observe", "the Solo Time Attack observation (integers)"),
    EncodingSpec("flat-v1", 1, "float32", False, L.flat_v1_layout, L.flat_v1_size, B.flat_v1_bounds,
                 B.flat_v1_scales, "pi_env.agents.learned",
                 "learned models: the flat encoding without the failed-solve blocks"),
    EncodingSpec("compact-v1", 1, "float32", False, L.compact_layout, L.compact_size, B.compact_bounds, None,
                 "pi_env.solvers.compact.encode_compact",
                 "learned models: own-information marginals, query gains, public progress"),
    EncodingSpec("compact-v2", 2, "float32", False, _compact_v2, _size_of(_compact_v2), None, None,
                 "pi_env.agents.learned", "learned models: compact-v1, then the joint block"),
    EncodingSpec("compact-v3", 3, "float32", False, _compact_v3, _size_of(_compact_v3), None, None,
                 "pi_env.agents.learned", "learned models: compact-v2, then rel_gain and best_gain"),
    EncodingSpec("compact-v4", 4, "float32", False, _compact_v4, _size_of(_compact_v4), None, None,
                 "pi_env.agents.greedy_batch.decision_block",
                 "learned models: compact-v3, then greedy's decision block (P(correct), E_now, E_wait, "
                 "its choice)"),
    EncodingSpec("solo-compact-v1", 1, "float32", True, _solo_compact_v1, _size_of(_solo_compact_v1), None, None,
                 "pi_env.agents.learned", "solo learned models: the solo compact encoding and its query extras"),
)

REGISTRY: dict[str, EncodingSpec] = {spec.name: spec for spec in _SPECS}
"""Every encoding, by name (one entry each)."""

ENV_OBSERVATIONS: tuple[str, ...] = ("flat", "packed", "packed-int8", "packed-int16")
"""The encodings the self-play env returns (its ``observations`` argument)."""
LEARNED: tuple[str, ...] = ("flat-v1", "compact-v1", "compact-v2", "compact-v3", "compact-v4", "solo-compact-v1")
"""The input encodings of learned models (:func:`learned_names`)."""
SOLO_ENCODING = "solo-compact-v1"
"""The encoding of solo learned models."""


def names() -> tuple[str, ...]:
    """Every registered encoding name, in registry order."""
    return tuple(REGISTRY)


def learned_names() -> tuple[str, ...]:
    """The input encodings of learned models (:data:`pi_env.agents.learned.ENCODINGS` implements
    each), in registry order."""
    return LEARNED


def get(name: str) -> EncodingSpec:
    """The spec of encoding ``name``.

    Raises:
        PIError: an unknown name (listing the known ones).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise PIError(f"unknown encoding {name!r} (known: {', '.join(REGISTRY)})") from None
