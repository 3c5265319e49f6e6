"""Saved positions: one game of a batch as a small, versioned JSON object, and back.

A *position* is everything the engine needs to go on with one game exactly as it would have gone on:
every field of :class:`~pi_env.engine.state.State` (or :class:`~pi_env.engine.solo.SoloState`),
the per-game generator ``rng`` included, so every later chance draw (reshuffles, the next round's
layout, deal and deck) is the same. It is **privileged**: it holds every player's case and the deck
order (docs/rules.md §9), so it is a tool for search, curricula, debugging and saved games, never an
agent's input. The environments hand it out only through their documented ``clone_state()``
accessor (:mod:`pi_env.envs.aec`, :mod:`pi_env.envs.solo`), which the agents' interface
(``Agent.act(observation, action_mask)``) never receives.

Format ``pi-position/1`` (all values JSON numbers, booleans, strings, lists and objects)::

    {
      "format": "pi-position/1",
      "rules": {"mode": "standard", "players": 3, "edition": "second", "variants": [],
                "investigators": [5, 5, 5], "max_rotations": 60, "max_rounds": 9,
                "board": "daytime"},
      "state": {
        "rng": "0x5f1c...",            # the xorshift64 state, 16 hex digits
        "round": 0, "first_player": 2, "current_player": 0, "rotation": 1, "tier": 0,
        "solved_this_rotation": false, "done": false, "truncated": false, "turn": 4,
        "tile_district": [36 districts],  "case": [[s, e, l] per player],
        "card_place": [36 of 0 deck / 1 display / 2 discard / 3 front],
        "deck": [36 element ids: the deck is deck[:deck_size], its top card last],
        "deck_size": 22,
        "front": [[element ids] per player], "spot": [[...]], "trace": [[...]],
        "inv_count": [...], "inv_district": [[5] per player], "inv_answer": [[[spots, traces] x 5]],
        "inv_markers": [[[spots, traces] x 5]], "inv_suppressed": [[[3 booleans] x 5]],
        "inv_left": [...], "attempted": [...], "solved": [...], "solved_case": [...],
        "failed": [[failed case ids] per player],
        "score": [...], "solve_points": [...], "penalty": [...], "rewards": [...],
        "last_action": 13, "last_answer": [1, -1], "last_player": 1, "extra_turn": false,
        "round_winner": -2
      }
    }

Field meanings, index layouts and dtypes are those of :class:`~pi_env.engine.state.State`;
``district_tile`` is not stored (it follows from ``tile_district``), boolean arrays indexed by an
element or a case id are stored as the lists of the ids set (``front``, ``spot``, ``trace``,
``failed``). ``rules.board`` is a bundled board's name or the inline board object of docs/record-format.md. A
solo position (``rules.mode == "solo"``: ``{"mode": "solo", "investigators": 5, "use_display":
false, "max_actions": 200, "board": ...}``) stores the fields of
:class:`~pi_env.engine.solo.SoloState` the same way (``spot``, ``trace``, ``nothing``, ``failed`` as
id lists, ``inv_placed`` as the list of districts, ``case`` as ``[s, e, l]``).

Environments add an optional ``"env"`` object with their own bookkeeping (e.g. the PettingZoo
env's accumulated rewards and infos); the engine ignores it.

Loading checks the format version, that the rules are those of the game it is loaded into (mode,
player count, edition, variants, investigators, safeguards, board; :func:`check_rules`) and every
field's shape and range and the conservation of tiles, cases, clue cards and investigators, so a
loaded position never makes a kernel read or write out of bounds. It does not audit the rules'
history: a position that could not arise in play but passes these checks plays on by the rules.

Example:
    >>> import json
    >>> from pi_env.engine import GameConfig, init
    >>> from pi_env.engine.position import load_position, save_position
    >>> cfg = GameConfig(num_players=3)
    >>> st = init(cfg, 2, seed=0)
    >>> pos = json.loads(json.dumps(save_position(st, cfg, game=1)))
    >>> load_position(pos, cfg).equals(st.take(1))
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from pi_env.core.board import board_json, load_board
from pi_env.core.constants import (DISPLAY_SIZE, IN_DECK, IN_FRONT, MAX_INVESTIGATORS, NUM_ACTIONS,
                                   NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS, ON_DISPLAY, TYPE_OFFSETS,
                                   TYPE_SIZES)
from pi_env.core.errors import BoardError, PIError, PositionError
from pi_env.core.rules import SCORE_CAP, SCORE_FLOOR
from pi_env.engine.state import GameConfig, State, empty_state

__all__ = ["POSITION_FORMAT", "save_position", "load_position", "load_positions", "position_config",
           "check_rules", "rules_of", "save_solo_position", "load_solo_position", "solo_rules_of"]

POSITION_FORMAT = "pi-position/1"
"""The format version this module writes and reads."""

_MASK64 = (1 << 64) - 1
_ID_SETS = {"front": NUM_ELEMENTS, "spot": NUM_ELEMENTS, "trace": NUM_ELEMENTS, "nothing": NUM_ELEMENTS,
            "failed": NUM_CASES, "inv_placed": NUM_DISTRICTS}
_DERIVED = ("district_tile",)
_TYPE_LABELS = ("suspect", "evidence", "location")


# ---------------------------------------------------------------------------------------------
# rules


def rules_of(config: GameConfig) -> dict[str, Any]:
    """The ``rules`` object of a position of a game with ``config``: :meth:`GameConfig.to_json`."""
    return config.to_json()


def solo_rules_of(config: Any) -> dict[str, Any]:
    """The ``rules`` object of a solo position (``config``: a :class:`~pi_env.engine.solo.SoloConfig`)."""
    return {"mode": "solo", "investigators": int(config.investigators), "use_display": bool(config.use_display),
            "max_actions": int(config.max_actions), "board": board_json(config.board)}


def _describe(rules: Mapping[str, Any]) -> str:
    if rules.get("mode") == "solo":
        return "a solo game"
    v = ", ".join(rules.get("variants") or ()) or "no variants"
    return (f"a {rules.get('players')}-player {rules.get('mode')} game ({rules.get('edition')} edition, "
            f"{v})")


def _check_head(position: Any, what: str = "position") -> Mapping[str, Any]:
    if not isinstance(position, Mapping):
        raise PositionError(f"a saved {what} must be a JSON object (dict), got {type(position).__name__}")
    fmt = position.get("format")
    if fmt != POSITION_FORMAT:
        if isinstance(fmt, str) and fmt.startswith("pi-position/"):
            raise PositionError(f"saved {what} has format {fmt!r}; this pi-env reads {POSITION_FORMAT!r}")
        raise PositionError(f"not a saved {what}: 'format' must be {POSITION_FORMAT!r}, got {fmt!r}")
    for key in ("rules", "state"):
        if not isinstance(position.get(key), Mapping):
            raise PositionError(f"saved {what}: {key!r} must be an object")
    return position


def check_rules(position: Mapping[str, Any], expected: Mapping[str, Any], where: str = "this env",
                what: str = "the saved position") -> None:
    """Refuse a position of another game: its ``rules`` must equal ``expected`` (as made by
    :func:`rules_of` / :func:`solo_rules_of`).

    Args:
        position: a ``pi-position/1`` object (its ``format`` is checked first).
        expected: the rules of the game it goes into.
        where, what: how the messages name the game and the position.

    Raises:
        PositionError: another format version, mode, player count, edition, variant set, investigator
            counts, safeguard or board; the message names what differs.
    """
    rules = _check_head(position)["rules"]
    if rules.get("mode") != expected["mode"]:
        raise PositionError(f"{what} is {_describe(rules)}; {where} plays {_describe(expected)} "
                            f"(mode {rules.get('mode')!r} is not {expected['mode']!r})")
    for key in expected:
        got = rules.get(key)
        want = expected[key]
        if key == "board":
            try:
                same = load_board(got) == load_board(want)
            except (BoardError, TypeError):
                same = False
            if not same:
                raise PositionError(f"{what} is played on another board than {where}'s")
            continue
        if isinstance(want, list) and isinstance(got, (list, tuple)):
            got = list(got)
        if got != want:
            label = {"players": "player count"}.get(key, key.replace("_", " "))
            raise PositionError(f"{what} is {_describe(rules)}; {where} plays {_describe(expected)} "
                                f"({label} {got!r}, not {want!r})")
    extra = sorted(set(rules) - set(expected))
    if extra:
        raise PositionError(f"{what}: unknown rules key {extra[0]!r}")


def position_config(position: Mapping[str, Any]) -> GameConfig:
    """The :class:`GameConfig` a (standard or duel) position was saved from.

    Raises:
        PositionError: not a ``pi-position/1`` object, a solo position, or rules the engine rejects.
    """
    rules = _check_head(position)["rules"]
    if rules.get("mode") == "solo":
        raise PositionError("the saved position is a solo game (pi_env.engine.solo); load it with "
                            "load_solo_position")
    try:
        cfg = GameConfig.from_json(rules)
    except PIError as exc:
        raise PositionError(f"saved position: rules: {exc}") from None
    check_rules(position, rules_of(cfg))
    return cfg


# ---------------------------------------------------------------------------------------------
# field codec


def _encode(name: str, a: np.ndarray) -> Any:
    """One game's field (its batch axis removed) as JSON values."""
    if name == "rng":
        return f"0x{int(a):016x}"
    if name in _ID_SETS:
        if a.ndim == 1:
            return np.flatnonzero(a).tolist()
        return [np.flatnonzero(row).tolist() for row in a]
    return a.tolist()


def _fail(name: str, msg: str) -> None:
    raise PositionError(f"saved position: state.{name} {msg}")


def _decode(name: str, value: Any, full: np.ndarray) -> None:
    """Write JSON ``value`` of field ``name`` into the ``B == 1`` array ``full``."""
    shape = full.shape[1:]
    if name == "rng":
        if not isinstance(value, str):
            _fail(name, f"must be a hex string such as '0x5f1c00000000002b', got {value!r}")
        try:
            word = int(value, 16)
        except ValueError:
            _fail(name, f"must be a hex string, got {value!r}")
        if not 0 < word <= _MASK64:
            _fail(name, f"must be a non-zero 64-bit value, got {value!r}")
        full[0] = np.uint64(word)
        return
    if name in _ID_SETS:
        n = _ID_SETS[name]
        flat = len(shape) == 1
        rows = [value] if flat else value
        if not isinstance(rows, list) or len(rows) != (1 if flat else shape[0]):
            _fail(name, "must be a list of ids" if flat else f"must be {shape[0]} lists of ids")
        out = full.reshape(-1, n)
        out[...] = False
        for i, ids in enumerate(rows):
            if not isinstance(ids, list) or any(not _is_int(x) or not 0 <= x < n for x in ids):
                _fail(name, f"must list ids 0..{n - 1}, got {ids!r}"[:200])
            out[i, ids] = True
        return
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        _fail(name, f"must be an array of shape {list(shape)}")
    if arr.shape != shape:
        _fail(name, f"must have shape {list(shape)}, got {list(arr.shape)}")
    if full.dtype == bool:
        if arr.dtype != bool and arr.size:
            _fail(name, "must hold booleans")
    elif arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        _fail(name, "must hold integers")
    elif arr.size:
        info = np.iinfo(full.dtype)
        if arr.min() < info.min or arr.max() > info.max:
            _fail(name, f"holds a value outside the range of {full.dtype}")
    full[0] = arr


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _game_fields(state: Any) -> list[str]:
    return [f.name for f in fields(state) if f.name not in _DERIVED]


def _save(state: Any, game: int, rules: dict[str, Any]) -> dict[str, Any]:
    if not _is_int(game) or not 0 <= game < state.batch_size:
        raise PIError(f"game must be 0..{state.batch_size - 1}, got {game!r}")
    return {"format": POSITION_FORMAT, "rules": rules,
            "state": {name: _encode(name, getattr(state, name)[game]) for name in _game_fields(state)}}


def _load_into(position: Mapping[str, Any], one: Any) -> None:
    """Fill the ``B == 1`` state ``one`` from ``position['state']`` (no semantic checks)."""
    data = position["state"]
    names = _game_fields(one)
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise PositionError(f"saved position: unknown state field {unknown[0]!r}")
    missing = [n for n in names if n not in data]
    if missing:
        raise PositionError(f"saved position: state.{missing[0]} is missing")
    for name in names:
        _decode(name, data[name], getattr(one, name))


def _check_range(st: Any, name: str, lo: int, hi: int) -> None:
    a = getattr(st, name)[0]
    if a.size and (a.min() < lo or a.max() > hi):
        bad = a.reshape(-1)[(a.reshape(-1) < lo) | (a.reshape(-1) > hi)][0]
        _fail(name, f"holds {int(bad)}, outside {lo}..{hi}")


def _check_layout(st: Any) -> None:
    """Tiles: locations in their own district, suspects and evidence in different districts; fills
    ``district_tile`` from ``tile_district``."""
    td = st.tile_district[0]
    _check_range(st, "tile_district", 0, NUM_DISTRICTS - 1)
    dtile = st.district_tile[0]
    dtile[...] = -1
    for t in range(3):
        for x in range(TYPE_OFFSETS[t], TYPE_OFFSETS[t] + TYPE_SIZES[t]):
            d = int(td[x])
            if t == 2 and d != x - TYPE_OFFSETS[2]:
                _fail("tile_district", f"puts location {x - TYPE_OFFSETS[2]} in district {d} (it is printed "
                      f"in its own district)")
            if dtile[d, t] >= 0:
                _fail("tile_district", f"puts two {_TYPE_LABELS[t]} tiles in district {d}")
            dtile[d, t] = x


def _check_case_rows(name: str, case: np.ndarray) -> None:
    for t in range(3):
        col = case[:, t]
        if (col < 0).any() or (col >= TYPE_SIZES[t]).any():
            _fail(name, f"holds a {_TYPE_LABELS[t]} outside 0..{TYPE_SIZES[t] - 1}")
        if len(set(col.tolist())) != len(col):
            _fail(name, f"gives two players the same {_TYPE_LABELS[t]} (cases are disjoint, docs/rules.md §3)")


def _check_cards(st: Any, front: np.ndarray | None) -> None:
    """Clue cards: each in one place; the deck is exactly the cards ``IN_DECK``; fronts match."""
    place = st.card_place[0]
    _check_range(st, "card_place", IN_DECK, IN_FRONT)
    _check_range(st, "deck", 0, NUM_ELEMENTS - 1)
    _check_range(st, "deck_size", 0, NUM_ELEMENTS)
    n = int(st.deck_size[0])
    stack = st.deck[0, :n].tolist()
    if sorted(stack) != np.flatnonzero(place == IN_DECK).tolist():
        _fail("deck", "deck[:deck_size] must hold exactly the cards whose card_place is 0 (in the deck)")
    if int((place == ON_DISPLAY).sum()) > DISPLAY_SIZE:
        _fail("card_place", f"shows more than {DISPLAY_SIZE} cards on the display")
    if front is not None:
        owners = front.sum(axis=0)
        if (owners > 1).any():
            _fail("front", "puts a card in front of two players")
        if not np.array_equal(owners == 1, place == IN_FRONT):
            _fail("front", "must list exactly the cards whose card_place is 3 (in front of a player)")


def _new_state(position: Mapping[str, Any], config: GameConfig) -> State:
    """A checked ``B == 1`` :class:`State` from a position whose rules are ``config``'s."""
    assert config.num_players is not None  # set by GameConfig
    P = config.num_players
    st = empty_state(1, P)
    _load_into(position, st)
    _check_layout(st)
    _check_range(st, "round", 0, config.round_limit)
    for name in ("first_player", "current_player"):
        _check_range(st, name, 0, P - 1)
    for name in ("last_player",):
        _check_range(st, name, -1, P - 1)
    _check_range(st, "rotation", 0, int(config.max_rotations))
    _check_range(st, "tier", 0, P)  # a finished round may leave it one past the last tier
    _check_range(st, "turn", 0, np.iinfo(np.int32).max)
    _check_case_rows("case", st.case[0])
    _check_cards(st, st.front[0])
    _check_range(st, "inv_count", 0, MAX_INVESTIGATORS)
    _check_range(st, "inv_left", 0, MAX_INVESTIGATORS)
    _check_range(st, "inv_district", -1, NUM_DISTRICTS - 1)
    _check_range(st, "inv_answer", 0, 3)
    _check_range(st, "inv_markers", 0, 3)
    for p in range(P):
        k = int(st.inv_count[0, p])
        if k + int(st.inv_left[0, p]) > MAX_INVESTIGATORS:
            _fail("inv_left", f"of player {p} plus its investigators placed this round exceed {MAX_INVESTIGATORS}")
        used = st.inv_district[0, p, :k].tolist()
        if min(used, default=0) < 0 or len(set(used)) != k or (st.inv_district[0, p, k:] != -1).any():
            _fail("inv_district", f"of player {p}: the first inv_count entries must be different districts, "
                  f"the others -1")
    _check_range(st, "solved_case", -1, NUM_CASES - 1)
    _check_range(st, "last_action", -1, NUM_ACTIONS - 1)
    _check_range(st, "last_answer", -1, 3)
    _check_range(st, "round_winner", -2, P - 1)
    if not config.is_duel:  # what a standard game cannot reach (docs/rules.md §4.3, §5)
        if config.edition == "second":
            _check_range(st, "score", SCORE_FLOOR, SCORE_CAP)
        not_attempted = np.flatnonzero(st.solved[0] & ~st.attempted[0])
        if not_attempted.size:
            _fail("solved", f"has player {int(not_attempted[0])} solved without having attempted a solve")
        if not st.done[0] and st.solved[0, int(st.current_player[0])]:
            _fail("current_player", f"is player {int(st.current_player[0])}, who has solved this round and "
                  f"takes no more turns in it")
    return st


# ---------------------------------------------------------------------------------------------
# standard and duel games


def save_position(state: State, config: GameConfig, game: int = 0) -> dict[str, Any]:
    """Game ``game`` of ``state`` as a ``pi-position/1`` object (module docstring). Privileged: it
    holds every case and the deck order.

    Args:
        state: a batch of games played with ``config``.
        config: their rules.
        game: which game, ``0..B-1``.

    Returns:
        A new dict of JSON values (``json.dumps`` takes it as it is); about 2–4 kB as JSON text.

    Raises:
        PIError: ``game`` out of range, or ``state`` not of ``config``'s player count.
    """
    if state.num_players != config.num_players:
        raise PIError(f"state has {state.num_players} players, config {config.num_players}")
    return _save(state, game, rules_of(config))


def load_position(position: Mapping[str, Any], config: GameConfig | None = None) -> State:
    """A new ``B == 1`` :class:`State` from a saved position.

    Args:
        position: a ``pi-position/1`` object (:func:`save_position`; after a JSON round trip too).
        config: the game it is loaded into; ``None``: the position's own rules
            (:func:`position_config`).

    Returns:
        The state; stepping it with ``config`` continues the saved game exactly, chance included.

    Raises:
        PositionError: another format version; rules other than ``config``'s (mode, player count,
            edition, variants, investigators, safeguards, board); a missing, unknown, malformed or
            out-of-range field; tiles, cases, clue cards or investigators that do not add up. The
            message names the field.
    """
    if config is None:
        config = position_config(position)
    else:
        check_rules(position, rules_of(config), where="this game")
    return _new_state(position, config)


def load_positions(positions: Sequence[Mapping[str, Any]], config: GameConfig) -> State:
    """A batch of ``len(positions)`` games, game ``b`` from ``positions[b]`` (each checked as by
    :func:`load_position`): search and RL start thousands of games from chosen positions at once.
    A position object listed several times is checked and decoded once (``[saved[b % 8] for b in
    range(4096)]`` costs 8 loads and one copy).

    Raises:
        PositionError: as :func:`load_position`, with the position's index; an empty list.
    """
    if isinstance(positions, Mapping) or not isinstance(positions, Sequence) or not len(positions):
        raise PositionError("positions must be a non-empty list of saved positions")
    states: list[State] = []
    first: dict[int, int] = {}  # id of a position object (all alive in ``positions``) -> its state
    index = np.empty(len(positions), dtype=np.int64)
    for i, pos in enumerate(positions):
        k = first.get(id(pos))
        if k is None:
            try:
                states.append(load_position(pos, config))
            except PositionError as exc:
                raise PositionError(f"positions[{i}]: {exc}") from None
            k = first[id(pos)] = len(states) - 1
        index[i] = k
    batch = State.concatenate(states)
    return batch if len(states) == len(positions) else batch.take(index)


# ---------------------------------------------------------------------------------------------
# solo games


def save_solo_position(state: Any, config: Any, game: int = 0) -> dict[str, Any]:
    """Solo game ``game`` of a :class:`~pi_env.engine.solo.SoloState` as a ``pi-position/1``
    object with ``rules.mode == "solo"`` (privileged: it holds the case and the deck order).

    Raises:
        PIError: ``game`` out of range.
    """
    return _save(state, game, solo_rules_of(config))


def load_solo_position(position: Mapping[str, Any], config: Any) -> Any:
    """A new ``B == 1`` :class:`~pi_env.engine.solo.SoloState` from a saved solo position of a game
    with ``config`` (a :class:`~pi_env.engine.solo.SoloConfig`).

    Raises:
        PositionError: another format version or other rules (a standard or duel position, other
            investigators, display mode, ``max_actions`` or board), or a malformed field.
    """
    from pi_env.engine.solo import empty_solo_state

    check_rules(position, solo_rules_of(config), where="this solo env")
    st = empty_solo_state(1)
    _load_into(position, st)
    _check_layout(st)
    _check_case_rows("case", st.case[0][None, :])
    if config.use_display:
        _check_cards(st, None)
        if (st.card_place[0] == IN_FRONT).sum() != st.nothing[0].sum():
            _fail("nothing", "must list exactly the cards out of circulation (card_place 3)")
    elif not (st.card_place[0] == ON_DISPLAY).all() or st.deck_size[0] != 0:
        _fail("card_place", "must be 1 (every element can be asked) in open mode, with deck_size 0")
    _check_range(st, "inv_left", 0, config.investigators)
    if int(st.inv_left[0]) + int(st.inv_placed[0].sum()) != config.investigators or \
            int(st.investigators_used[0]) != int(st.inv_placed[0].sum()):
        _fail("inv_left", "plus the investigators placed must be the game's investigators")
    _check_range(st, "inv_answer", 0, 3)
    _check_range(st, "actions", 0, config.max_actions)
    _check_range(st, "wrong_solves", 0, config.max_actions)
    _check_range(st, "last_action", -1, NUM_ACTIONS - 1)
    _check_range(st, "last_answer", -1, 3)
    return st
