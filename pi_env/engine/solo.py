"""The batched engine of Solo Time Attack (docs/rules.md §8): one player, a hidden case, the program answers.

Same design as the standard engine (:mod:`pi_env.engine.api`): a :class:`SoloState` of arrays with
a leading batch axis ``B`` (one game is ``B == 1``), pure functions :func:`init`, :func:`step`,
:func:`observe`, :func:`legal_action_mask` (and the in-place :func:`step_inplace`,
:func:`reset_games`), and numba batch kernels that trust their input and fill arrays. The answer
rules are **the same code** as the standard engine's: ``clue_answer`` and ``is_case`` of
:mod:`pi_env.core.rules`, and the per-game helpers ``_investigate_answer`` (with its suppression
flags), the layout and case deal ``_deal_layout`` / ``_deal_cases`` and the clue-card flow
``_deal_clue_cards`` / ``_play_clue_card`` of :mod:`pi_env.engine._kernels`.

Actions are the standard layout (:mod:`pi_env.core.constants`, ``NUM_ACTIONS = 1730``):

* ``0 .. 35`` clue query on element ``x``. **Open mode** (default, docs/rules.md §8): any of the 36
  elements, always legal; repeating a query is legal and gets the same answer again (it costs an
  action and tells nothing new). **Display mode** (``SoloConfig.use_display``): only the 9 face-up
  clue cards, with the card flow of docs/rules.md §4.1 (a card answered *nothing* leaves circulation,
  others go to the discard pile, the display is refilled, the discard pile reshuffled when the deck
  runs out);
* ``36 .. 49`` place an investigator in district ``d = a − 36``: legal while tiles are left
  (``SoloConfig.investigators``, default 5) and none was placed in ``d`` (docs/rules.md §4.2, with the
  suppression rule);
* ``50 .. 1729`` name case ``c = a − 50``: always legal (as in the standard engine; naming a
  triple already failed again is legal and fails again).

Terminal behaviour: a game is ``done`` once it is **solved** (a correct solve), **truncated**
(``actions`` reached ``SoloConfig.max_actions`` without a correct solve; a correct solve with the
last allowed action counts as solved) or **forfeited** (:func:`step_inplace` with ``check=False``
was given an illegal action: the game ends at once, the action is not counted). Stepping a done
game changes nothing; its legal-action mask is all ones.

Chance: each game draws from its own xorshift64 state ``rng[b]`` in the standard engine's order
(:mod:`pi_env.engine._kernels`): the layout (suspect tiles, then evidence tiles), the case (one
player's share of the standard deal), then, in display mode only, the clue deck. So the layout
and the case do not depend on ``use_display``. With an int ``seed``, game ``b`` of
``init(config, B, seed)`` is the game of ``init(config, 1, seed + b)`` (per-game state
:func:`seed_states`); :func:`reset_games` continues each game's own stream.

Observation (:func:`observe`): a flat ``int16`` vector, everything the player knows and nothing
about the case beyond the answers (docs/rules.md §9):

==============  ========  =====  ======================================================
name            shape     range  meaning
==============  ========  =====  ======================================================
tiles           [36, 14]  0/1    one-hot district of each element's tile (locations fixed)
display         [36]      0/1    clue on the element can be queried now (open mode: all 1)
discard         [36]      0/1    display mode: the card is in the discard pile
spot            [36]      0/1    clue answered *spot* (the player's spot marker on the tile)
trace           [36]      0/1    clue answered *trace*
nothing         [36]      0/1    clue answered *nothing*
inv_placed      [14]      0/1    an investigator was placed in the district
inv_spots       [14]      0..3   spots it received
inv_traces      [14]      0..3   traces it received
inv_suppressed  [14, 3]   0/1    types (suspect, evidence, location) the suppression rule skipped
failed          [1680]    0/1    case ids named in a wrong solve
inv_left        [1]       0..I   investigator tiles left (I = ``SoloConfig.investigators``)
actions         [1]       0..M   actions taken (M = ``SoloConfig.max_actions``)
wrong_solves    [1]       0..M   wrong solve attempts
deck_size       [1]       0..36  display mode: cards left in the deck (open mode: 0)
==============  ========  =====  ======================================================

Size :data:`OBSERVATION_SIZE` = 2452; offsets :func:`observation_layout`, named views
:func:`decode_observation`.
"""

from __future__ import annotations

import operator
from collections import namedtuple
from dataclasses import dataclass, field, fields
from typing import Sequence

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.core.board import DAYTIME, Board, load_board
from pi_env.core.constants import (CASE_TRIPLES, DISPLAY_SIZE, IN_DECK, NUM_ACTIONS, NUM_CASES,
                         NUM_DISTRICTS, NUM_ELEMENTS, ON_DISPLAY, SPOT, TRACE, TYPE_SIZES,
                         case_index)
from pi_env.core.errors import IllegalActionError, PIError
from pi_env.core.rules import clue_answer, clue_card_takeable, investigator_placeable, is_case
from pi_env.engine.arrays import BatchArrays, action_array
from pi_env.encodings.bounds import solo_observation_bounds
from pi_env.encodings.layouts import SOLO_OBSERVATION_SIZE, solo_observation_layout
from pi_env.engine.observe import _observe_board, observation_layout as standard_layout, observation_size
from pi_env.engine._kernels import (_deal_cases, _deal_clue_cards, _deal_layout, _investigate_answer,
                                    _play_clue_card)

__all__ = ["SoloConfig", "SoloState", "init", "reset_games", "reset_done", "step", "step_inplace",
           "is_legal", "legal_action_mask", "observe", "observation_layout", "decode_observation",
           "observation_bounds", "OBSERVATION_SIZE", "from_layout", "seed_states", "case_of",
           "MAX_SOLO_ACTIONS", "standard_view", "VIEW_PLAYERS"]

MAX_SOLO_ACTIONS = 32767
"""Largest ``max_actions`` (the action counter is an ``int16`` observation entry)."""


@dataclass(frozen=True)
class SoloConfig:
    """Options of a batch of solo games (docs/rules.md §8).

    Attributes:
        investigators: investigator tiles, 0..14 (default 5; at most one per district).
        use_display: clue queries only from a 9-card display with the card flow of docs/rules.md §4.1
            (default ``False``: any of the 36 elements).
        max_actions: a game still unsolved after this many actions is truncated (default 200).
        board: the board graph (a bundled name, a board object or JSON; default daytime).

    Raises:
        PIError: an option out of range.
    """

    investigators: int = 5
    use_display: bool = False
    max_actions: int = 200
    board: Board = field(default=DAYTIME, repr=False)

    def __post_init__(self) -> None:
        inv = self.investigators
        if not isinstance(inv, (int, np.integer)) or isinstance(inv, bool) or not 0 <= inv <= NUM_DISTRICTS:
            raise PIError(f"investigators must be an integer 0..{NUM_DISTRICTS}, got {inv!r}")
        m = self.max_actions
        if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or not 1 <= m <= MAX_SOLO_ACTIONS:
            raise PIError(f"max_actions must be an integer 1..{MAX_SOLO_ACTIONS}, got {m!r}")
        if not isinstance(self.use_display, (bool, np.bool_)):
            raise PIError(f"use_display must be True or False, got {self.use_display!r}")
        object.__setattr__(self, "investigators", int(inv))
        object.__setattr__(self, "max_actions", int(m))
        object.__setattr__(self, "use_display", bool(self.use_display))
        if not isinstance(self.board, Board):
            object.__setattr__(self, "board", load_board(self.board))


@dataclass(frozen=True, eq=False)
class SoloState(BatchArrays):
    """A batch of ``B`` solo games. Every field has the leading batch axis ``B``.

    The dataclass is frozen (fields are not rebound); :func:`step_inplace` and
    :func:`reset_games` write into the arrays, :func:`step` works on a copy.

    Attributes:
        rng: ``[B] uint64`` xorshift64 state of each game (never 0).
        tile_district: ``[B, 36] int8`` district of each element's tile (locations ``22 + d`` in
            ``d``).
        district_tile: ``[B, 14, 3] int8`` element of each type's tile in each district, ``-1``
            blank.
        case: ``[B, 3] int8`` **hidden**: the case as type-local (suspect, evidence, location).
        card_place: ``[B, 36] int8`` ``IN_DECK`` / ``ON_DISPLAY`` / ``IN_DISCARD`` / ``IN_FRONT``
            (out of circulation) per clue card; open mode: always ``ON_DISPLAY``.
        deck: ``[B, 36] int8`` the deck, top card at ``deck[deck_size - 1]`` (display mode).
        deck_size: ``[B] int8`` cards in the deck (open mode: 0).
        spot, trace, nothing: ``[B, 36] bool`` clue answers received per element.
        inv_placed: ``[B, 14] bool`` an investigator is in the district.
        inv_answer: ``[B, 14, 2] int8`` its (spots, traces).
        inv_suppressed: ``[B, 14, 3] bool`` its suppressed types (docs/rules.md §4.2).
        inv_left: ``[B] int8`` investigator tiles left.
        failed: ``[B, 1680] bool`` case ids named in wrong solves.
        actions: ``[B] int16`` actions taken (docs/rules.md §8 result).
        investigators_used: ``[B] int8`` investigator tiles used.
        wrong_solves: ``[B] int16`` wrong solve attempts.
        done: ``[B] bool`` solved, truncated or forfeited.
        solved: ``[B] bool`` the case was named correctly.
        truncated: ``[B] bool`` ``max_actions`` reached unsolved.
        forfeited: ``[B] bool`` ended by an unchecked illegal action.
        last_action: ``[B] int16`` the last action, ``-1`` before any.
        last_answer: ``[B, 2] int8`` its answer: clue (0 nothing / 1 trace / 2 spot, -1);
            investigator (spots, traces); solve (1 correct / 0 wrong, -1); forfeit (-1, -1).
    """

    rng: np.ndarray
    tile_district: np.ndarray
    district_tile: np.ndarray
    case: np.ndarray
    card_place: np.ndarray
    deck: np.ndarray
    deck_size: np.ndarray
    spot: np.ndarray
    trace: np.ndarray
    nothing: np.ndarray
    inv_placed: np.ndarray
    inv_answer: np.ndarray
    inv_suppressed: np.ndarray
    inv_left: np.ndarray
    failed: np.ndarray
    actions: np.ndarray
    investigators_used: np.ndarray
    wrong_solves: np.ndarray
    done: np.ndarray
    solved: np.ndarray
    truncated: np.ndarray
    forfeited: np.ndarray
    last_action: np.ndarray
    last_answer: np.ndarray

    def kernel_value(self) -> "SoloArrays":
        """The arrays as the one value the kernels take (:data:`SoloArrays`, the same arrays, not copies)."""
        return SoloArrays(*_solo_arrays(self))


SoloArrays = namedtuple("SoloArrays", [f.name for f in fields(SoloState)])  # type: ignore[misc]  # fields of SoloState
SoloArrays.__doc__ = """A solo state as the kernels take it: a named tuple of :class:`SoloState`'s arrays
(``s.rng``, ...), derived from its fields (as :data:`pi_env.engine.state.GameArrays`): a new field is
declared in :class:`SoloState` and allocated in :func:`empty_solo_state`; the kernels read it as ``s.name``."""
_solo_arrays = operator.attrgetter(*(f.name for f in fields(SoloState)))
"""The state's arrays in field order: a few microseconds less per kernel call than ``dataclasses.fields``
(one game per call is the environments' case)."""


def empty_solo_state(batch_size: int) -> SoloState:
    """Zeroed arrays with the documented shapes and dtypes (:func:`init` fills them)."""
    B, E, D = batch_size, NUM_ELEMENTS, NUM_DISTRICTS
    z = np.zeros
    return SoloState(
        rng=z(B, np.uint64), tile_district=z((B, E), np.int8), district_tile=z((B, D, 3), np.int8),
        case=z((B, 3), np.int8), card_place=z((B, E), np.int8), deck=z((B, E), np.int8),
        deck_size=z(B, np.int8), spot=z((B, E), bool), trace=z((B, E), bool),
        nothing=z((B, E), bool), inv_placed=z((B, D), bool), inv_answer=z((B, D, 2), np.int8),
        inv_suppressed=z((B, D, 3), bool), inv_left=z(B, np.int8), failed=z((B, NUM_CASES), bool),
        actions=z(B, np.int16), investigators_used=z(B, np.int8), wrong_solves=z(B, np.int16),
        done=z(B, bool), solved=z(B, bool), truncated=z(B, bool), forfeited=z(B, bool),
        last_action=np.full(B, -1, np.int16), last_answer=np.full((B, 2), -1, np.int8))


# ---------------------------------------------------------------------------------------------
# kernels (private): trust their input, never raise, fill arrays in place

CHUNK = 1024
"""Games per call of the per-range rule functions (``_new_games``, ``_step_games``). A solo step is a few
nanoseconds a game and each call passes the state's 24 arrays: with the standard engine's 64 the calls
cost about 10 % of a large batch's step (measured at 16,384 games)."""


@rule_step
def _new_games(lo, hi, which, investigators, use_display, s):
    """docs/rules.md §3 steps 1–3, §8: a new game in every slot b of ``lo <= b < hi`` with ``which[b]``,
    drawn from ``rng[b]``; ``s``: the state (:data:`SoloArrays`)."""
    for b in range(lo, hi):
        if not which[b]:
            continue
        _deal_layout(s.rng, b, s.tile_district, s.district_tile, s.deck[b])  # deck[b]: scratch, dealt below
        _deal_cases(s.rng, b, s.case[b:b + 1], 1, s.deck[b])
        if use_display:
            _deal_clue_cards(s.rng, b, s.card_place, s.deck, s.deck_size)
        else:
            for x in range(36):
                s.card_place[b, x] = ON_DISPLAY
                s.deck[b, x] = 0
            s.deck_size[b] = 0
        for x in range(36):
            s.spot[b, x] = False
            s.trace[b, x] = False
            s.nothing[b, x] = False
        for d in range(14):
            s.inv_placed[b, d] = False
            s.inv_answer[b, d, 0] = 0
            s.inv_answer[b, d, 1] = 0
            for t in range(3):
                s.inv_suppressed[b, d, t] = False
        for c in range(s.failed.shape[1]):
            s.failed[b, c] = False
        s.inv_left[b] = investigators
        s.actions[b] = 0
        s.investigators_used[b] = 0
        s.wrong_solves[b] = 0
        s.done[b] = False
        s.solved[b] = False
        s.truncated[b] = False
        s.forfeited[b] = False
        s.last_action[b] = -1
        s.last_answer[b, 0] = -1
        s.last_answer[b, 1] = -1


@batch_kernel(family="init")
def _init_kernel(which, investigators, use_display, s):
    """Set up game b from ``rng[b]`` for every ``which[b]`` (``_new_games``, range by range; ``s``: the
    state, :data:`SoloArrays`)."""
    n = which.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _new_games(c * CHUNK, min(n, (c + 1) * CHUNK), which, investigators, use_display, s)


@batch_kernel(cheap=True)
def _legal_kernel(acts, out, done, card_place, inv_placed, inv_left):
    """out[b] = whether ``acts[b]`` is legal (always True for a done game)."""
    for b in prange(acts.shape[0]):
        a = acts[b]
        if done[b]:
            ok = True
        elif a < 0:
            ok = False
        elif a < 36:
            ok = clue_card_takeable(card_place[b, a])
        elif a < 50:
            ok = investigator_placeable(inv_left[b], inv_placed[b, a - 36])
        else:
            ok = a < 1730
        out[b] = ok


@batch_kernel(cheap=True)
def _mask_kernel(out, done, card_place, inv_placed, inv_left):
    """Fill ``out[B, 1730]`` (int8) with the legal-action mask (all ones for a done game)."""
    for b in prange(out.shape[0]):
        if done[b]:
            out[b, :] = 1
            continue
        for x in range(36):
            out[b, x] = 1 if clue_card_takeable(card_place[b, x]) else 0
        for d in range(14):
            out[b, 36 + d] = 1 if investigator_placeable(inv_left[b], inv_placed[b, d]) else 0
        out[b, 50:] = 1


@rule_step
def _step_games(lo, hi, acts, use_display, max_actions, adjacency, s):
    """docs/rules.md §4.1–§4.3, §8: apply ``acts[b]`` to every game b of ``lo <= b < hi`` not done; an
    illegal action forfeits the game. ``s``: the state (:data:`SoloArrays`)."""
    for b in range(lo, hi):
        if s.done[b]:
            continue
        a = acts[b]
        s.last_action[b] = a
        s.last_answer[b, 0] = -1
        s.last_answer[b, 1] = -1
        if a < 36:
            legal = a >= 0 and clue_card_takeable(s.card_place[b, a])
        elif a < 50:
            legal = s.inv_left[b] > 0 and not s.inv_placed[b, a - 36]
        else:
            legal = a < 1730
        if not legal:
            s.forfeited[b] = True
            s.done[b] = True
            continue
        s.actions[b] += 1
        if a < 36:
            # §4.1 clue query: same answer rule as the standard engine
            ans = clue_answer(s.tile_district[b], adjacency, s.case[b], a)
            if ans == SPOT:
                s.spot[b, a] = True
            elif ans == TRACE:
                s.trace[b, a] = True
            else:
                s.nothing[b, a] = True
            if use_display:
                _play_clue_card(b, a, ans, s.card_place, s.deck, s.deck_size, s.rng)
            s.last_answer[b, 0] = ans
        elif a < 50:
            # §4.2 investigator, with suppression by the player's markers
            d = a - 36
            ns, nt = _investigate_answer(s.tile_district[b], s.district_tile[b], adjacency, s.case[b],
                                         s.spot[b], s.trace[b], d, s.inv_suppressed[b, d])
            s.inv_placed[b, d] = True
            s.inv_answer[b, d, 0] = ns
            s.inv_answer[b, d, 1] = nt
            s.inv_left[b] -= 1
            s.investigators_used[b] += 1
            s.last_answer[b, 0] = ns
            s.last_answer[b, 1] = nt
        else:
            # §4.3 solve
            c = a - 50
            if is_case(s.case[b], c):
                s.solved[b] = True
                s.done[b] = True
                s.last_answer[b, 0] = 1
            else:
                s.failed[b, c] = True
                s.wrong_solves[b] += 1
                s.last_answer[b, 0] = 0
        if not s.done[b] and s.actions[b] >= max_actions:
            s.truncated[b] = True
            s.done[b] = True


@batch_kernel(family="step")
def _step_kernel(acts, use_display, max_actions, adjacency, s):
    """Apply ``acts[b]`` to every game b not done (``_step_games``, range by range; ``s``: the state,
    :data:`SoloArrays`). The rules are a function called per range, as in the standard engine, not the
    ``prange`` body itself: numba's threaded build of that body (and of it inlined) skipped the forfeit of
    an illegal investigator."""
    n = acts.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_games(c * CHUNK, min(n, (c + 1) * CHUNK), acts, use_display, max_actions, adjacency, s)


# The layout and the bounds are the encodings package's (pi_env.encodings): one place for every
# encoding; this module writes them.
observation_layout = solo_observation_layout
_LAYOUT = observation_layout()
OBSERVATION_SIZE: int = SOLO_OBSERVATION_SIZE
"""Length of the flat solo observation (2452)."""
_OFF = np.array([start for start, _ in _LAYOUT.values()], dtype=np.int64)


def decode_observation(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split a flat observation ``int16[2452]`` into named views with the documented shapes."""
    return {name: obs[start:start + int(np.prod(shape))].reshape(shape)
            for name, (start, shape) in _LAYOUT.items()}


VIEW_PLAYERS = 2
"""Players of the standard position :func:`standard_view` shows."""


def standard_view(solo_obs: np.ndarray) -> np.ndarray:
    """A solo observation as the 2-player standard observation an agent of the standard game reads.

    The solo game is shown as round 1, tier 0 of a 2-player game in which the player is the first
    player (seat 0) and the other seat never acts: the player's answers, investigators and failed
    triples are seat 0's; it holds no case (``held_case`` all zero, so a solver treats the other
    seat's case as unknown, which leaves the player's posterior uniform over its own-information
    cases, as in solo); ``rotation`` is the number of actions taken; score and ``attempted`` are 0
    (solo has neither). The solo legal-action mask has the standard action layout and is used as
    it is. Agents written for the standard game keep their standard-game habits (e.g. rationing
    investigators as in round 1 of 3).

    Args:
        solo_obs: ``int16[2452]`` (:func:`observe` of one game).

    Returns:
        ``int16[observation_size(2)]`` (``618 + 1912 * 2``), a fresh array.
    """
    s = decode_observation(np.asarray(solo_obs))
    out = np.zeros(observation_size(VIEW_PLAYERS), dtype=np.int16)
    layout = standard_layout(VIEW_PLAYERS)

    def put(name: str, value: "np.ndarray | int", seat: int | None = None) -> None:
        start, shape = layout[name]
        if seat is not None:  # per-seat component [P, ...]: the seat's block
            size = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            start += seat * size
        else:
            size = int(np.prod(shape)) if shape else 1
        out[start:start + size] = np.asarray(value).reshape(-1)

    put("tiles", s["tiles"])
    put("display", s["display"])
    put("discard", s["discard"])
    for standard, solo_name in (("front", "nothing"), ("spot", "spot"), ("trace", "trace"),
                                ("inv_placed", "inv_placed"), ("inv_spots", "inv_spots"),
                                ("inv_traces", "inv_traces"), ("inv_suppressed", "inv_suppressed"),
                                ("failed", "failed")):
        put(standard, s[solo_name], seat=0)
    put("inv_left", int(s["inv_left"][0]), seat=0)
    put("rotation", int(s["actions"][0]))
    put("deck_size", int(s["deck_size"][0]))
    return out


def observation_bounds(config: SoloConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``int16[2452]`` bounds of the observation under ``config``
    (:func:`pi_env.encodings.solo_observation_bounds`)."""
    return solo_observation_bounds(config)


@batch_kernel(family="observe")
def _observe_kernel(off, out, tile_district, card_place, deck_size, spot, trace, nothing, inv_placed,
                    inv_answer, inv_suppressed, inv_left, failed, actions, wrong_solves):
    """``out[b]``: the observation of game b (layout in the module docstring). It takes the 13 arrays it
    reads, not the state value (:data:`SoloArrays`): it runs once per step of a one-game environment,
    and the 24-array value costs about 7 µs more per call there."""
    for b in prange(out.shape[0]):
        o = out[b]
        o[:] = 0
        _observe_board(o, off, tile_district, card_place, b)
        for x in range(36):
            o[off[3] + x] = spot[b, x]
            o[off[4] + x] = trace[b, x]
            o[off[5] + x] = nothing[b, x]
        for d in range(14):
            if inv_placed[b, d]:
                o[off[6] + d] = 1
                o[off[7] + d] = inv_answer[b, d, 0]
                o[off[8] + d] = inv_answer[b, d, 1]
                for t in range(3):
                    o[off[9] + d * 3 + t] = inv_suppressed[b, d, t]
        for c in range(failed.shape[1]):
            if failed[b, c]:
                o[off[10] + c] = 1
        o[off[11]] = inv_left[b]
        o[off[12]] = actions[b]
        o[off[13]] = wrong_solves[b]
        o[off[14]] = deck_size[b]


# ---------------------------------------------------------------------------------------------
# public functions


def seed_states(seeds: "int | Sequence[int] | np.ndarray") -> np.ndarray:
    """Per-game xorshift64 states (``uint64``, never 0) from non-negative integer seeds (splitmix64).

    >>> seed_states([0, 1]).dtype
    dtype('uint64')

    Raises:
        PIError: a negative or non-integer seed.
    """
    arr = np.asarray(seeds)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise PIError(f"seeds must be non-negative integers, got {seeds!r}")
    if arr.size and np.issubdtype(arr.dtype, np.signedinteger) and arr.min() < 0:
        raise PIError(f"seeds must be non-negative integers, got {seeds!r}")
    z = arr.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z | np.uint64(1)


def _rng_states(seed: "int | np.ndarray | None", batch_size: int) -> np.ndarray:
    if isinstance(seed, np.ndarray) and seed.dtype == np.uint64:
        if seed.shape != (batch_size,):
            raise PIError(f"explicit rng states must have shape ({batch_size},), got {seed.shape}")
        return seed | np.uint64(1)
    if seed is None:
        return np.random.SeedSequence().generate_state(batch_size, dtype=np.uint64) | np.uint64(1)
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise PIError(f"seed must be a non-negative integer, got {seed!r}")
    return seed_states(np.arange(batch_size, dtype=np.uint64) + np.uint64(int(seed)))


def init(config: SoloConfig, batch_size: int = 1, seed: "int | np.ndarray | None" = None) -> SoloState:
    """Set up ``batch_size`` independent solo games (layout and case drawn from the seed).

    Args:
        config: the solo options.
        batch_size: ``B >= 1``.
        seed: an int (game ``b`` gets the state ``seed_states(seed + b)``, so game ``b`` equals
            ``init(config, 1, seed + b)``), ``uint64[B]`` explicit generator states, or ``None``
            for fresh entropy.

    Raises:
        PIError: ``batch_size < 1`` or a bad seed.

    >>> s = init(SoloConfig(), 2, seed=7)
    >>> s.case.shape, bool(s.done.any())
    ((2, 3), False)
    """
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
        raise PIError(f"batch_size must be a positive integer, got {batch_size!r}")
    state = empty_solo_state(int(batch_size))
    state.rng[:] = _rng_states(seed, int(batch_size))
    return reset_games(state, config, np.ones(int(batch_size), dtype=bool))


def reset_games(state: SoloState, config: SoloConfig, which: np.ndarray) -> SoloState:
    """Start a new game in place of every game ``b`` with ``which[b]``, continuing ``rng[b]``.

    Returns:
        ``state`` itself (mutated).
    """
    which = np.ascontiguousarray(which, dtype=np.bool_)
    if which.shape != (state.batch_size,):
        raise PIError(f"which must be bool[{state.batch_size}], got shape {which.shape}")
    if which.any():
        _init_kernel.for_batch(state.batch_size)(which, config.investigators, config.use_display,
                                                 state.kernel_value())
    return state


def reset_done(state: SoloState, config: SoloConfig) -> np.ndarray:
    """Start a new game in place of every finished game (autoreset); returns which were reset."""
    was_done = state.done.copy()
    reset_games(state, config, was_done)
    return was_done


def is_legal(state: SoloState, actions: np.ndarray) -> np.ndarray:
    """``bool[B]``: whether ``actions[b]`` is legal in game ``b`` (True for finished games)."""
    out = np.empty(state.batch_size, dtype=bool)
    _legal_kernel.for_batch(state.batch_size)(np.ascontiguousarray(actions, dtype=np.int64), out,
                                              state.done, state.card_place, state.inv_placed,
                                              state.inv_left)
    return out


def legal_action_mask(state: SoloState, out: np.ndarray | None = None) -> np.ndarray:
    """``int8[B, 1730]`` legal-action mask (see the module docstring; all ones once done)."""
    if out is None:
        out = np.empty((state.batch_size, NUM_ACTIONS), dtype=np.int8)
    _mask_kernel.for_batch(state.batch_size)(out, state.done, state.card_place, state.inv_placed,
                                             state.inv_left)
    return out


def _check_actions(state: SoloState, actions: np.ndarray, check: bool) -> np.ndarray:
    a = action_array(actions, state.batch_size, check_range=check)
    if not check:
        return a
    ok = is_legal(state, a)
    if not ok.all():
        from pi_env.core.actions import action_name
        b = int(np.flatnonzero(~ok)[0])
        raise IllegalActionError(
            f"game {b}: action {int(a[b])} ({action_name(int(a[b]), None)}) is not legal "
            f"(investigators left {int(state.inv_left[b])}, actions taken {int(state.actions[b])})")
    return a


def step_inplace(state: SoloState, actions: np.ndarray, config: SoloConfig, check: bool = True) -> SoloState:
    """Apply one action per game, mutating ``state`` (finished games are left unchanged).

    Args:
        state: the batch.
        actions: ``int[B]`` action ids (``0..1729``).
        config: its options.
        check: raise on an invalid or illegal action (default); ``False``: an illegal or
            out-of-range action forfeits that game (``done`` and ``forfeited`` set).

    Returns:
        ``state`` itself.

    Raises:
        InvalidActionError: wrong shape or dtype, or (checked) an id outside ``0..1729``.
        IllegalActionError: (checked) a clue card not on the display, an investigator with none
            left or in a district already used.
    """
    a = _check_actions(state, actions, check)
    _step_kernel.for_batch(state.batch_size)(a, config.use_display, config.max_actions,
                                             config.board.adjacency, state.kernel_value())
    return state


def step(state: SoloState, actions: np.ndarray, config: SoloConfig, check: bool = True) -> SoloState:
    """Pure form of :func:`step_inplace`: a new state, ``state`` unchanged."""
    return step_inplace(state.copy(), actions, config, check)


def observe(state: SoloState, out: np.ndarray | None = None) -> np.ndarray:
    """``int16[B, 2452]`` observations (layout in the module docstring); ``out`` is filled if given."""
    if out is None:
        out = np.empty((state.batch_size, OBSERVATION_SIZE), dtype=np.int16)
    _observe_kernel.for_batch(state.batch_size)(
        _OFF, out, state.tile_district, state.card_place, state.deck_size, state.spot, state.trace,
        state.nothing, state.inv_placed, state.inv_answer, state.inv_suppressed, state.inv_left,
        state.failed, state.actions, state.wrong_solves)
    return out


def case_of(state: SoloState, game: int = 0) -> int:
    """The hidden case of game ``game`` as a case id (for generators, records and tests)."""
    s, e, l = (int(v) for v in state.case[game])
    return case_index(s, e, l)


def from_layout(config: SoloConfig, tile_district: "Sequence[int] | np.ndarray",
                case: "int | Sequence[int]", *, display: Sequence[int] | None = None,
                deck: Sequence[int] | None = None, rng_state: int = 1) -> SoloState:
    """A ``B == 1`` solo game with a given layout and case (scenario tests, generated cases).

    Args:
        config: the solo options.
        tile_district: ``int[36]`` district of each element's tile (as in
            :func:`pi_env.engine.setup.from_layout`).
        case: a case id ``0..1679`` or type-local ``(suspect, evidence, location)``.
        display: display mode only: the face-up cards (default
            :data:`pi_env.engine.setup.DEFAULT_DISPLAY`).
        deck: display mode only: the deck, top card first (default: the other cards ascending).
        rng_state: non-zero xorshift64 state for later chance (reshuffles, :func:`reset_games`).

    Raises:
        PIError: a bad layout, case, display or deck, or ``display``/``deck`` in open mode.
    """
    from pi_env.engine.setup import DEFAULT_DISPLAY, _int_list, _layout_arrays

    td, dtile = _layout_arrays(tile_district)
    if isinstance(case, (int, np.integer)) and not isinstance(case, bool):
        if not 0 <= case < NUM_CASES:
            raise PIError(f"case must be a case id 0..{NUM_CASES - 1}, got {case!r}")
        triple = [int(v) for v in CASE_TRIPLES[int(case)]]
    else:
        try:
            triple = [int(v) for v in case]  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise PIError(f"case must be a case id or (suspect, evidence, location), got {case!r}") from None
        if len(triple) != 3 or any(not 0 <= v < n for v, n in zip(triple, TYPE_SIZES)):
            raise PIError(f"case must be (suspect 0..11, evidence 0..9, location 0..13), got {case!r}")
    if not isinstance(rng_state, (int, np.integer)) or int(rng_state) & 0xFFFFFFFFFFFFFFFF == 0:
        raise PIError(f"rng_state must be a non-zero 64-bit integer, got {rng_state!r}")
    s = empty_solo_state(1)
    s.rng[0] = np.uint64(int(rng_state) & 0xFFFFFFFFFFFFFFFF)
    s.inv_left[0] = config.investigators
    s.card_place[0] = ON_DISPLAY  # open mode: every element can be queried
    s.tile_district[0] = td
    s.district_tile[0] = dtile
    s.case[0] = triple
    if not config.use_display:
        if display is not None or deck is not None:
            raise PIError("display and deck apply only with use_display=True")
        return s
    shown = _int_list("display", DEFAULT_DISPLAY if display is None else display)
    if len(shown) != DISPLAY_SIZE:
        raise PIError(f"display must hold {DISPLAY_SIZE} cards, got {len(shown)}")
    rest = [x for x in range(NUM_ELEMENTS) if x not in shown]
    stack = rest if deck is None else _int_list("deck", deck)
    if sorted(stack) != rest:
        raise PIError(f"deck must hold exactly the {len(rest)} cards not on the display")
    s.card_place[0] = IN_DECK
    s.card_place[0, shown] = ON_DISPLAY
    s.deck[0] = 0
    s.deck[0, :len(stack)] = stack[::-1]  # top of the deck at deck[deck_size - 1]
    s.deck_size[0] = len(stack)
    return s

