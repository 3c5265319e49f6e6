"""Build an engine :class:`~pi_env.engine.state.State` for a hand-chosen round layout.

``engine.init`` draws the layout, the deal and the deck from the seed (docs/rules.md §3).
:func:`from_layout` instead takes them as arguments, for scenario tests with hand-worked answers and
for replaying a recorded game (docs/record-format.md): the returned state is a normal ``B == 1`` state that
``step``/``step_inplace`` advance; later rounds are set up from ``rng_state`` as usual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from pi_env.core.constants import (DISPLAY_SIZE, IN_DECK, IN_DISCARD, IN_FRONT, NUM_DISTRICTS, NUM_ELEMENTS,
                         ON_DISPLAY, TYPE_OFFSETS, TYPE_SIZES)
from pi_env.core.errors import PIError
from pi_env.engine.state import GameConfig, State, empty_state

DEFAULT_DISPLAY: tuple[int, ...] = (0, 1, 2, 12, 13, 14, 22, 23, 24)
"""The display used when none is given: Shorty, Doc, Rusty, Murder, Mob Killing, Bank Job,
Lakeside, Forest Park, Little Italy (element ids)."""

_MASK64 = 0xFFFFFFFFFFFFFFFF
_TYPE_NAMES = ("suspect", "evidence", "location")


def _element_label(x: int) -> str:
    from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES
    if x < 12:
        return SUSPECT_NAMES[x]
    if x < 22:
        return EVIDENCE_NAMES[x - 12]
    return f"location {x - 22}"


def _int_list(name: str, values: Iterable[int]) -> list[int]:
    try:
        arr = np.asarray(list(values))
    except TypeError:
        raise PIError(f"{name} must be a sequence of element ids, got {values!r}") from None
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise PIError(f"{name} must hold integers, got {arr.dtype}")
    out = [int(v) for v in arr.reshape(-1)]
    for x in out:
        if not 0 <= x < NUM_ELEMENTS:
            raise PIError(f"{name} holds {x}, not an element id 0..{NUM_ELEMENTS - 1}")
    seen: set[int] = set()
    for x in out:
        if x in seen:
            raise PIError(f"{name} holds the card {x} ({_element_label(x)}) twice")
        seen.add(x)
    return out


def _per_player(name: str, values, P: int, lo: int, hi: int) -> np.ndarray | None:
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.shape != (P,) or not np.issubdtype(arr.dtype, np.integer):
        raise PIError(f"{name} must be {P} integers (one per player), got {values!r}")
    if (arr < lo).any() or (arr > hi).any():
        raise PIError(f"{name} must lie in {lo}..{hi}, got {arr.tolist()}")
    return arr


def _layout_arrays(tile_district: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tiles of a layout, checked (docs/rules.md §3): ``tile_district`` (``int[36]``, the district of
    each element's tile) as given and the ``int8[14, 3]`` element of each type's tile in each district
    (``-1``: a blank). Used by :func:`from_layout` and the solo engine's.

    Raises:
        PIError: wrong shape or dtype, a district out of range, a location tile away from its district
            or a district holding two tiles of one type (the message names the elements).
    """
    td = np.asarray(tile_district)
    if td.shape != (NUM_ELEMENTS,) or not np.issubdtype(td.dtype, np.integer):
        raise PIError(f"tile_district must be {NUM_ELEMENTS} integers (one per element), "
                      f"got shape {td.shape}")
    if (td < 0).any() or (td >= NUM_DISTRICTS).any():
        x = int(np.nonzero((td < 0) | (td >= NUM_DISTRICTS))[0][0])
        raise PIError(f"tile_district[{x}] ({_element_label(x)}) = {int(td[x])} is not a district "
                      f"0..{NUM_DISTRICTS - 1}")
    district_tile = np.full((NUM_DISTRICTS, 3), -1, dtype=np.int8)
    for t in range(3):
        for x in range(TYPE_OFFSETS[t], TYPE_OFFSETS[t] + TYPE_SIZES[t]):
            d = int(td[x])
            if t == 2 and d != x - TYPE_OFFSETS[2]:
                raise PIError(f"location {x - TYPE_OFFSETS[2]} is printed in its own district; "
                              f"tile_district[{x}] must be {x - TYPE_OFFSETS[2]}, got {d}")
            if district_tile[d, t] >= 0:
                raise PIError(f"district {d} would hold two {_TYPE_NAMES[t]} tiles "
                              f"({_element_label(int(district_tile[d, t]))} and {_element_label(x)}); "
                              f"each district holds one tile of each type")
            district_tile[d, t] = x
    return td, district_tile


def from_layout(config: GameConfig, tile_district: Sequence[int] | np.ndarray,
                cases: Sequence[Sequence[int]] | np.ndarray, first_player: int = 0,
                display: Sequence[int] | None = None, deck: Sequence[int] | None = None,
                rng_state: int = 1, *, discard: Sequence[int] = (),
                front: Mapping[int, Sequence[int]] | None = None, round_index: int = 0,
                score: Sequence[int] | None = None, solve_points: Sequence[int] | None = None,
                penalty: Sequence[int] | None = None,
                inv_left: Sequence[int] | None = None) -> State:
    """A ``B == 1`` engine state at the start of a round with the given layout (docs/rules.md §3).

    Args:
        config: the rules options (player count ``P``, edition, board, ...).
        tile_district: ``int[36]``, the district (``0..13``) of each element's tile. Suspects
            ``0..11`` must lie in 12 different districts, evidence ``12..21`` in 10 different
            districts; location ``22 + d`` must be ``d`` (locations are printed). The districts
            without a suspect (evidence) tile get a blank.
        cases: ``int[P, 3]``, each player's case as type-local (suspect ``0..11``, evidence
            ``0..9``, location ``0..13``); player ``i`` must solve ``cases[i]``. Pairwise disjoint
            in every type.
        first_player: the round's first player, ``0..P-1``; it moves first.
        display: the face-up clue cards (element ids, at most 9, no duplicates); default
            :data:`DEFAULT_DISPLAY`. Fewer than 9 only when the deck and the discard pile are empty.
        deck: the face-down deck, **top card first** (the first card drawn is ``deck[0]``); default
            every card not on the display, in the discard pile or in front of a player, ascending.
            When given it must hold exactly those cards.
        rng_state: the xorshift64 state for every later chance event (reshuffles, later rounds);
            any non-zero 64-bit value.
        discard: cards already in the discard pile (keyword only; default none).
        front: ``{player: cards}`` already face up in front of players (keyword only).
        round_index: the 0-based round this layout starts (for replaying a later round); below
            ``config.round_limit`` (a duel's sudden-death rounds go up to ``max_rounds - 1``).
        score, solve_points, penalty, inv_left: ``int[P]`` game totals carried into this round
            (defaults: zeros, and ``config.investigators`` for ``inv_left``). In a duel ``score``
            is the rounds won so far.

    Returns:
        A new :class:`State` with ``B == 1``: rotation 0, tier 0, no markers, no investigators,
        nobody attempted or solved, ``turn == 0`` and no last action.

    Raises:
        PIError: wrong shapes; a tile count or a district holding two tiles of one type; a location
            tile away from its district; cases out of range or shared between players; a card listed
            twice or in two places; a short display while cards remain; a bad ``first_player``,
            ``round_index`` or ``rng_state``. The message says which.
    """
    P = config.num_players
    td, district_tile = _layout_arrays(tile_district)
    # ---- cases
    cs = np.asarray(cases)
    if cs.shape != (P, 3) or not np.issubdtype(cs.dtype, np.integer):
        raise PIError(f"cases must be int[{P}, 3] (one (suspect, evidence, location) per player), "
                      f"got shape {cs.shape}")
    for t in range(3):
        col = cs[:, t]
        if (col < 0).any() or (col >= TYPE_SIZES[t]).any():
            raise PIError(f"{_TYPE_NAMES[t]} of a case must be 0..{TYPE_SIZES[t] - 1}, "
                          f"got {col.tolist()}")
        for i in range(P):
            for j in range(i):
                if col[i] == col[j]:
                    raise PIError(f"cases must be disjoint: players {j} and {i} share the "
                                  f"{_TYPE_NAMES[t]} {int(col[i])}")
    if not isinstance(first_player, (int, np.integer)) or not 0 <= first_player < P:
        raise PIError(f"first_player must be 0..{P - 1}, got {first_player!r}")
    if not isinstance(round_index, (int, np.integer)) or not 0 <= round_index < config.round_limit:
        raise PIError(f"round_index must be 0..{config.round_limit - 1}, got {round_index!r}")
    if not isinstance(rng_state, (int, np.integer)) or int(rng_state) & _MASK64 == 0:
        raise PIError(f"rng_state must be a non-zero 64-bit integer, got {rng_state!r}")
    # ---- clue cards
    shown = _int_list("display", DEFAULT_DISPLAY if display is None else display)
    if len(shown) > DISPLAY_SIZE:
        raise PIError(f"display holds {len(shown)} cards, at most {DISPLAY_SIZE}")
    place: dict[int, str] = {x: "display" for x in shown}

    def claim(cards: list[int], where: str) -> None:
        for x in cards:
            if x in place:
                raise PIError(f"card {x} ({_element_label(x)}) is both in {place[x]} and in {where}")
            place[x] = where

    pile = _int_list("discard", discard)
    claim(pile, "the discard pile")
    fronts: dict[int, list[int]] = {}
    for i, cards in (front or {}).items():
        if not isinstance(i, (int, np.integer)) or not 0 <= i < P:
            raise PIError(f"front names player {i!r}, not 0..{P - 1}")
        fronts[int(i)] = _int_list(f"front[{i}]", cards)
        claim(fronts[int(i)], f"front of player {i}")
    rest = [x for x in range(NUM_ELEMENTS) if x not in place]
    if deck is None:
        stack = rest
    else:
        stack = _int_list("deck", deck)
        if sorted(stack) != rest:
            missing = sorted(set(rest) - set(stack))
            extra = sorted(set(stack) - set(rest))
            raise PIError(f"deck must hold exactly the {len(rest)} cards not on the display, in the "
                          f"discard pile or in front of a player; missing {missing}, extra {extra}")
    if len(shown) < DISPLAY_SIZE and (stack or pile):
        raise PIError(f"display holds {len(shown)} cards but the deck or discard pile is not empty; "
                      f"it is short only when both are")
    # ---- the state
    s = empty_state(1, P)
    s.rng[0] = np.uint64(int(rng_state) & _MASK64)
    s.round[0] = round_index
    s.first_player[0] = first_player
    s.current_player[0] = first_player
    s.tile_district[0] = td
    s.district_tile[0] = district_tile
    s.case[0] = cs
    s.card_place[0] = IN_DECK
    for x in shown:
        s.card_place[0, x] = ON_DISPLAY
    for x in pile:
        s.card_place[0, x] = IN_DISCARD
    for i, cards in fronts.items():
        for x in cards:
            s.card_place[0, x] = IN_FRONT
            s.front[0, i, x] = True
    # the engine keeps the top of the deck at deck[deck_size - 1]
    s.deck[0, :len(stack)] = stack[::-1]
    s.deck_size[0] = len(stack)
    inv = _per_player("inv_left", inv_left, P, 0, 5)
    s.inv_left[0] = config.investigators if inv is None else inv
    for name, values in (("score", score), ("solve_points", solve_points), ("penalty", penalty)):
        arr = _per_player(name, values, P, -10_000, 10_000)
        if arr is not None:
            getattr(s, name)[0] = arr
    return s


__all__ = ["from_layout", "DEFAULT_DISPLAY"]
