"""The bounds and scales of every encoding (docs/rules.md §9), from the rules of a game.

Functions take the game's rules as any object with the attributes of
:class:`pi_env.engine.GameConfig` (:class:`GameRules`) or of :class:`pi_env.engine.solo.SoloConfig`
(:class:`SoloRules`): this package sits below the engine, which takes its layouts from here.
"""

from __future__ import annotations

import functools
import math
from typing import Protocol

import numpy as np

from pi_env.core.constants import MAX_INVESTIGATORS, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS
from pi_env.core.rules import SCORE_CAP, edition_code, score_range
from pi_env.encodings.layouts import (SOLO_COMPACT_SIZE, flat_v1_columns, SOLVER_FEATURES, compact_layout, compact_size,
                                      observation_components, observation_layout, observation_size, packed_components,
                                      packed_int_size, packed_int_unpacking, packed_size,
                                      solo_compact_layout, solo_observation_layout, SOLO_OBSERVATION_SIZE)

__all__ = ["GameRules", "SoloRules", "observation_bounds", "solo_observation_bounds", "component_scales",
           "flat_scales", "flat_bounds", "flat_v1_bounds", "flat_v1_scales", "packed_bounds", "packed_int_bounds", "TILE_SCALE", "FAILED_COUNT",
           "packed_int_scales", "GAIN_SCALE", "compact_scales", "compact_bounds", "solo_compact_bounds",
           "solver_bounds"]


class GameRules(Protocol):
    """What the bounds and scales read of a game's rules (:class:`pi_env.engine.GameConfig` has it)."""

    @property
    def num_players(self) -> int: ...
    @property
    def num_rounds(self) -> int: ...
    @property
    def round_limit(self) -> int: ...
    @property
    def is_duel(self) -> bool: ...
    @property
    def max_rotations(self) -> int: ...
    @property
    def edition(self) -> str: ...


class SoloRules(Protocol):
    """What the solo bounds read of the solo rules (:class:`pi_env.engine.solo.SoloConfig` has it)."""

    @property
    def investigators(self) -> int: ...
    @property
    def max_actions(self) -> int: ...


# --- the engine observation -------------------------------------------------------------------
def observation_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``int16`` bounds of the observation (:func:`pi_env.engine.observe`)
    of a game with ``config`` (a :class:`~pi_env.engine.state.GameConfig`): ``int16[618 + 1912·P]``
    each; the Observation Space table of :mod:`pi_env.envs.aec` lists them (docs/rules.md §5 for the
    score)."""
    P = config.num_players
    R = config.round_limit
    size = observation_size(P)
    low = np.zeros(size, dtype=np.int64)
    high = np.ones(size, dtype=np.int64)
    if config.is_duel:
        s_low, s_high = 0, R  # rounds won
    else:  # docs/rules.md §5 (pi_env.core.rules)
        s_low, s_high = score_range(edition_code(config.edition), R, int(config.max_rotations))
    special = {"inv_spots": (0, 3), "inv_traces": (0, 3), "score": (s_low, s_high),
               "inv_left": (0, MAX_INVESTIGATORS), "round": (0, R), "tier": (0, P),
               "rotation": (0, int(config.max_rotations)), "first_seat": (0, P - 1),
               "deck_size": (0, NUM_ELEMENTS), "to_move": (0, P - 1)}
    for name, (start, shape) in observation_layout(P).items():
        if name in special:
            n = int(np.prod(shape)) if shape else 1
            low[start:start + n], high[start:start + n] = special[name]
    info = np.iinfo(np.int16)
    return (np.clip(low, info.min, info.max).astype(np.int16),
            np.clip(high, info.min, info.max).astype(np.int16))


def solo_observation_bounds(config: SoloRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``int16[2452]`` bounds of the solo observation under ``config``."""
    layout = solo_observation_layout()
    low = np.zeros(SOLO_OBSERVATION_SIZE, dtype=np.int16)
    high = np.ones(SOLO_OBSERVATION_SIZE, dtype=np.int16)
    for name, hi in (("inv_spots", 3), ("inv_traces", 3), ("inv_left", config.investigators),
                     ("actions", config.max_actions), ("wrong_solves", config.max_actions),
                     ("deck_size", NUM_ELEMENTS)):
        start, shape = layout[name]
        high[start:start + int(np.prod(shape))] = hi
    return low, high


# --- the flat encoding: the observation times its scales ---------------------------------------
@functools.lru_cache(maxsize=64)
def _scales(P: int, num_rounds: int, duel: bool, max_rotations: int) -> tuple[np.ndarray, np.ndarray]:
    score = 1.0 / num_rounds if duel else 1.0 / SCORE_CAP
    special = {"inv_spots": 1 / 3, "inv_traces": 1 / 3, "score": score, "inv_left": 1 / 5,
               "round": 1.0 / num_rounds, "tier": 1.0 / P, "rotation": 1.0 / max_rotations,
               "first_seat": 1.0 / (P - 1), "deck_size": 1 / 36, "to_move": 1.0 / (P - 1)}
    components = observation_components(P)
    comp = np.array([special.get(name, 1.0) for name, _, _, _ in components], dtype=np.float32)
    entries = np.empty(observation_size(P), dtype=np.float32)
    for c, (_, start, n, _) in enumerate(components):
        entries[start:start + n] = comp[c]
    comp.flags.writeable = False
    entries.flags.writeable = False
    return comp, entries


def component_scales(config: GameRules) -> np.ndarray:
    """``float32[23]`` (read-only): the scale of each observation component, in layout order (the
    table of :mod:`pi_env.envs.encoders`); what the engine's writers take."""
    return _scales(config.num_players, config.num_rounds, config.is_duel, config.max_rotations)[0]


def flat_scales(config: GameRules) -> np.ndarray:
    """``float32[flat_size(P)]``: the scale of every entry of the flat encoding (read-only)."""
    return _scales(config.num_players, config.num_rounds, config.is_duel, config.max_rotations)[1]


def flat_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of the flat encoding (the engine observation's
    bounds, :func:`observation_bounds`, times the scales)."""
    low, high = observation_bounds(config)
    s = flat_scales(config)
    return low.astype(np.float32) * s, high.astype(np.float32) * s


def flat_v1_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of ``"flat-v1"``: the flat encoding's, without
    ``failed``."""
    cols = flat_v1_columns(config.num_players)
    low, high = flat_bounds(config)
    return low[cols], high[cols]


def flat_v1_scales(config: GameRules) -> np.ndarray:
    """``float32[618 + 232·P]``: the scales of ``"flat-v1"`` (the flat encoding's, without ``failed``)."""
    return flat_scales(config)[flat_v1_columns(config.num_players)]


def solver_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of the solver-augmented encoding: the flat
    encoding's, then ``[0, 1]`` for the 37 solver features."""
    low, high = flat_bounds(config)
    return (np.concatenate([low, np.zeros(SOLVER_FEATURES, dtype=np.float32)]),
            np.concatenate([high, np.ones(SOLVER_FEATURES, dtype=np.float32)]))


# --- the packed encoding and its integer rows --------------------------------------------------
TILE_SCALE = np.float32(1.0 / 13.0)
"""``tile_district`` of the packed encoding is the district index times this."""
FAILED_COUNT = (np.log2(1.0 + np.arange(NUM_CASES + 1)) / math.log2(NUM_CASES + 1)).astype(np.float32)
"""``float32[1681]``: ``failed_count`` of the packed encoding for ``n`` distinct wrong triples."""
FAILED_COUNT.flags.writeable = False


def packed_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of the packed encoding: the flat encoding's
    bounds for the components it shares with it, ``[0, 1]`` for ``tile_district``,
    ``failed_count`` and ``failed_share``."""
    P = config.num_players
    flow, fhigh = flat_bounds(config)
    flat = observation_layout(P)
    low = np.zeros(packed_size(P), dtype=np.float32)
    high = np.ones(packed_size(P), dtype=np.float32)
    for name, start, n, _ in packed_components(P):
        if name in flat and name != "tiles":
            f0 = flat[name][0]
            low[start:start + n] = flow[f0:f0 + n]
            high[start:start + n] = fhigh[f0:f0 + n]
    return low, high


def packed_int_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``int64[packed_int_size(P)]`` bounds of the integer rows of a game
    with ``config`` (:mod:`pi_env.engine.packed`, "Integer rows"). The packed layout's integer
    values range as the engine observation's (:func:`observation_bounds`) for the components it
    shares with the packed encoding, ``0..13`` for ``tile_district``, and ``0..n_max`` for
    ``failed_count`` and ``failed_share`` with ``n_max = min(1680, max_rotations)`` (a player takes
    at most one turn a rotation, so names at most ``max_rotations`` triples in a round; in a duel
    the first attempt ends the round); a bit field ranges from 0 to the sum of its fields' highest
    values, shifted (``cards`` 0..7, ``markers`` 0..15, ``investigators`` 0..31, ``suppressed``
    0..7)."""
    P = config.num_players
    olow, ohigh = observation_bounds(config)
    flat = observation_layout(P)
    n_max = 1 if config.is_duel else min(NUM_CASES, int(config.max_rotations))
    low = np.zeros(packed_size(P), dtype=np.int64)  # in the packed layout, then put together
    high = np.ones(packed_size(P), dtype=np.int64)
    for name, start, n, _ in packed_components(P):
        if name == "tile_district":
            high[start:start + n] = NUM_DISTRICTS - 1
        elif name in ("failed_count", "failed_share"):
            high[start:start + n] = n_max
        else:
            f0 = flat[name][0]
            low[start:start + n] = olow[f0:f0 + n]
            high[start:start + n] = ohigh[f0:f0 + n]
    src, shift, mask = packed_int_unpacking(P)
    whole = mask == -1
    ilow = np.zeros(packed_int_size(P), dtype=np.int64)
    ihigh = np.zeros(packed_int_size(P), dtype=np.int64)
    ilow[src[whole]] = low[whole]
    ihigh[src[whole]] = high[whole]
    np.add.at(ihigh, src[~whole], high[~whole] << shift[~whole])  # bit fields (their lows are 0)
    return ilow, ihigh


_OBSERVATION_NAMES = tuple(name for name, _, _, _ in observation_components(2))


@functools.lru_cache(maxsize=64)
def _int_scales(num_players: int, scales: bytes) -> np.ndarray:
    s = np.frombuffer(scales, dtype=np.float32)
    out = np.zeros(packed_size(num_players), dtype=np.float32)
    # the packed components' scales: tile_district TILE_SCALE; failed_count/failed_share 0 (not a
    # product: they follow from the counts); the others their observation component's scale
    comp = {name: c for c, name in enumerate(_OBSERVATION_NAMES)}
    for name, start, n, _ in packed_components(num_players):
        if name == "tile_district":
            out[start:start + n] = TILE_SCALE
        elif name not in ("failed_count", "failed_share"):
            out[start:start + n] = s[comp[name]]
    out.flags.writeable = False
    return out


def packed_int_scales(num_players: int, scales: np.ndarray) -> np.ndarray:
    """``float32[packed_size(P)]`` (read-only): per entry of the *packed* layout, what the integer
    value unpacked from an integer row is multiplied by to give the packed (``float32``) entry:
    :data:`TILE_SCALE` for ``tile_district``, the observation component's scale (``scales``,
    ``float32[23]``, :func:`component_scales`) for the others, 0 for ``failed_count`` and
    ``failed_share`` (those follow from the counts).

    Raises:
        PIError: ``scales`` of the wrong length.
    """
    from pi_env.core.errors import PIError

    s = np.ascontiguousarray(scales, dtype=np.float32)
    if s.shape != (len(_OBSERVATION_NAMES),):
        raise PIError(f"scales must be float32[{len(_OBSERVATION_NAMES)}], got {list(s.shape)}")
    return _int_scales(int(num_players), s.tobytes())


# --- the compact encodings (pi_env.solvers.compact) --------------------------------------------
GAIN_SCALE = 0.25
"""Gains in the compact encodings are stored in bits times this (so that they stay about ``[0, 1]``)."""


def compact_scales(config: GameRules) -> np.ndarray:
    """``float64[6]``: the compact encoding's scales of score, round, tier, rotation, first/to-move
    seat and deck size."""
    P = config.num_players
    score = 1.0 / config.num_rounds if config.is_duel else 1.0 / SCORE_CAP
    return np.array([score, 1.0 / config.num_rounds, 1.0 / P, 1.0 / config.max_rotations, 1.0 / (P - 1),
                     1.0 / NUM_ELEMENTS], dtype=np.float64)


def compact_bounds(config: GameRules) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of the compact encoding (``"compact-v1"``) under
    ``config``."""
    P = config.num_players
    layout = compact_layout(P)
    low = np.zeros(compact_size(P), dtype=np.float32)
    high = np.ones(compact_size(P), dtype=np.float32)
    ob_low, ob_high = observation_bounds(config)
    s0 = observation_layout(P)["score"][0]
    r0 = observation_layout(P)["round"][0]
    scale = compact_scales(config)
    for name, lo, hi in (("score", ob_low[s0] * scale[0], ob_high[s0] * scale[0]),
                         ("round", 0.0, ob_high[r0] * scale[1]),
                         ("clue_gain", 0.0, math.log2(3) * GAIN_SCALE),
                         ("district_gain", 0.0, math.log2(10) * GAIN_SCALE),
                         ("held_clue_gain", 0.0, math.log2(NUM_CASES) * GAIN_SCALE)):
        start, shape = layout[name]
        n = int(np.prod(shape))
        low[start:start + n] = lo
        high[start:start + n] = hi
    return low, high


def solo_compact_bounds(config: object = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32[142]`` bounds of the solo compact encoding (the same
    for every solo config)."""
    layout = solo_compact_layout()
    low = np.zeros(SOLO_COMPACT_SIZE, dtype=np.float32)
    high = np.ones(SOLO_COMPACT_SIZE, dtype=np.float32)
    for name, hi in (("clue_gain", math.log2(3) * GAIN_SCALE), ("district_gain", math.log2(10) * GAIN_SCALE)):
        start, shape = layout[name]
        high[start:start + shape[0]] = hi
    return low, high
