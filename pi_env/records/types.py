"""Typed, validated form of a ``pi-record/1`` game record (docs/record-format.md).

:func:`pi_env.records.record_file.load_record` turns the JSON document into these objects; every name is
already resolved to an id (see :mod:`pi_env.core.constants` for the id layouts), so the engine, the
solver and the CLI never parse names again.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pi_env.core.board import Board
from pi_env.core.constants import EDITION_NAMES, MAX_INVESTIGATORS, NUM_DISTRICTS
from pi_env.core.errors import ConfigError, PIError, RecordError, UnknownNameError
from pi_env.engine.state import MODES as ENGINE_MODES, VARIANTS, GameConfig
from pi_env.core.text import normalize

CLUE, INVESTIGATE, SOLVE = "clue", "investigate", "solve"
INCORRECT = "incorrect"
"""Kind of a declaration that an earlier answer was incorrect (the rulebook's incorrect-information
rule; see :class:`Event`). Not a turn."""
TURN_KINDS = (CLUE, INVESTIGATE, SOLVE)


EDITIONS = EDITION_NAMES
MODES = ENGINE_MODES + ("solo",)
"""Modes of a record: the engine's (``GameConfig.mode``) and Solo Time Attack (docs/rules.md §8)."""
_RULES_KEYS = {"edition": (str,), "mode": (str,), "players": (int,), "rounds": (int,), "variants": (list, str),
               "investigators": (list, int)}
"""The keys of a record's ``rules`` object and their JSON types (a list: of the second type)."""
_JSON_NAMES = {int: "integer", str: "string"}


@dataclass(frozen=True)
class Rules:
    """``rules`` of a record. ``edition`` is ``"second"`` or ``"first"``; ``mode`` ``"standard"``,
    ``"duel"`` or ``"solo"``; ``variants`` a tuple of ``"fast"``/``"nick-of-time"``;
    ``investigators`` the starting tiles per player (docs/rules.md §1, §6).

    The engine's rules of a standard game or duel are a :class:`~pi_env.engine.GameConfig`
    (:meth:`of_config`; back: :func:`pi_env.records.recorder.config_of`, with the record's board
    and safeguards); a record's rules also describe solo games and state the rounds.
    """

    edition: str = "second"
    mode: str = "standard"
    players: int = 4
    rounds: int = 3
    variants: tuple[str, ...] = ()
    investigators: tuple[int, ...] = (5, 5, 5, 5)

    @classmethod
    def of_config(cls, config) -> "Rules":
        """The rules of games played with ``config`` (a :class:`~pi_env.engine.GameConfig`)."""
        return cls(edition=config.edition, mode=config.mode, players=config.num_players,
                   rounds=config.num_rounds, variants=tuple(config.variants),
                   investigators=tuple(config.investigators))

    def to_json(self) -> dict[str, Any]:
        """The record's ``rules`` object (docs/record-format.md); :meth:`from_json` reads it back."""
        return {"edition": self.edition, "mode": self.mode, "players": self.players, "rounds": self.rounds,
                "variants": list(self.variants), "investigators": list(self.investigators)}

    @classmethod
    def from_json(cls, doc: Any) -> "Rules":
        """A record's ``rules`` object (docs/record-format.md): every key has a default; names are
        matched ignoring case, spaces and hyphens (``"Nick of time"``).

        A standard game's or a duel's rules are checked by :class:`~pi_env.engine.GameConfig`
        (docs/rules.md §5–§7: the player count of the mode, the variants and whether they combine
        with it, the investigator counts); a solo game's here (docs/rules.md §8).

        Raises:
            RecordError: not an object, an unknown key, a value of the wrong JSON type, an unknown
                edition, mode or variant, a variant given twice, a variant the mode does not take
                (nick of time in a duel), a player count the mode does not allow, rounds other than
                2 with ``fast``, investigator counts of the wrong length or range; the message names
                the key (``rules.players ...``).
        """
        if not isinstance(doc, dict):
            raise RecordError(f"rules must be an object, got {doc!r}")
        for key, value in doc.items():
            if key not in _RULES_KEYS:
                raise RecordError(f"rules: unknown key {key!r}; known: {', '.join(_RULES_KEYS)}")
            kind, *item = _RULES_KEYS[key]
            if not _json_is(value, kind) or (item and not all(_json_is(v, item[0]) for v in value)):
                what = f"a list of {_JSON_NAMES[item[0]]}s" if item else f"a{'n' * (kind is int)} {_JSON_NAMES[kind]}"
                raise RecordError(f"rules.{key} must be {what}, got {value!r}")
        edition = _choice(doc.get("edition", "second"), EDITIONS, "rules.edition")
        mode = _choice(doc.get("mode", "standard"), MODES, "rules.mode")
        variants_doc = doc.get("variants", [])
        variants = tuple(_choice(v, VARIANTS, "rules.variants entry") for v in variants_doc)
        if mode == "solo":
            return cls._solo_from_json(doc, edition, variants)
        # a standard game or a duel: the engine's rules (docs/rules.md §5-§7) decide what is allowed
        try:
            config = GameConfig(num_players=doc.get("players"), edition=edition, variants=variants,
                                investigators=doc.get("investigators"), mode=mode)
        except ConfigError as exc:
            raise _record_error(exc) from None
        rounds = doc.get("rounds", config.num_rounds)
        if "fast" in variants and rounds != config.num_rounds:
            raise RecordError(f"variant 'fast' plays {config.num_rounds} rounds (docs/rules.md §6), but rules.rounds "
                              f"is {rounds}")
        return cls(edition=edition, mode=mode, players=config.num_players, rounds=int(rounds), variants=variants,
                   investigators=config.investigators)

    @classmethod
    def _solo_from_json(cls, doc: dict, edition: str, variants: tuple[str, ...]) -> "Rules":
        """:meth:`from_json` of a Solo Time Attack record (docs/rules.md §8): 1 player, 1 round by
        default, 0..14 investigator tiles (at most one per district in its single round, as
        ``pi_env.engine.solo.SoloConfig``)."""
        players = doc.get("players", 1)
        if players != 1:
            raise RecordError(f"rules.players must be 1..1 in mode 'solo', got {players!r}")
        if len(set(variants)) != len(variants):
            raise RecordError(f"rules.variants lists a variant twice: {doc.get('variants')!r}")
        rounds = doc.get("rounds", 1)
        if "fast" in variants and rounds != 2:
            raise RecordError(f"variant 'fast' plays 2 rounds (docs/rules.md §6), but rules.rounds is {rounds}")
        investigators = doc.get("investigators", [MAX_INVESTIGATORS])
        if len(investigators) != 1 or not all(0 <= k <= NUM_DISTRICTS for k in investigators):
            raise RecordError(f"rules.investigators must list 1 integer 0..{NUM_DISTRICTS}, got {investigators!r}")
        return cls(edition=edition, mode="solo", players=1, rounds=int(rounds), variants=variants,
                   investigators=tuple(int(k) for k in investigators))


_CONFIG_KEYS = {"num_players": "players"}
"""The record's ``rules`` key of a :class:`~pi_env.engine.GameConfig` argument, where they differ."""


def _record_error(exc: ConfigError) -> RecordError:
    """A :class:`~pi_env.engine.GameConfig` refusal as a record's: its message with the argument's
    name replaced by the record's key (``num_players must be 2..5, got 6`` → ``rules.players must be
    2..5, got 6``), else after it (``rules.players: a duel is played by exactly 2 players ...``)."""
    key = "rules." + _CONFIG_KEYS.get(exc.option, exc.option)
    message = str(exc)
    if message.startswith(exc.option + " "):
        return RecordError(f"{key} {message[len(exc.option) + 1:]}")
    return RecordError(f"{key}: {message}")


def _json_is(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _choice(value: object, choices: Sequence[str], where: str) -> str:
    if isinstance(value, str):
        for c in choices:
            if normalize(c) == normalize(value):
                return c
    raise RecordError(f"{where} must be one of {', '.join(map(repr, choices))}, got {value!r}")


@dataclass(frozen=True)
class Event:
    """One turn (docs/rules.md §4) with its observed answer.

    Attributes:
        index: position in the round's ``events`` list (0-based), used in error messages.
        player: acting player (0..n-1).
        kind: ``"clue"``, ``"investigate"`` or ``"solve"``.
        element: clue element id 0..35 (clue only, else -1).
        answer: clue answer 0 nothing / 1 trace / 2 spot (clue only, else -1).
        district: investigated district 0..13 (investigate only, else -1).
        spots, traces: investigator counts (investigate only, else -1).
        suppressed: for an investigation, per type (suspect, evidence, location) whether the
            suppression rule of docs/rules.md §4.2 applied (the player already had a marker on that
            type's tile in the district), derived from the earlier events; ``(False,)*3`` otherwise.
        case: solve triple as a case id 0..1679 (solve only, else -1).
        correct: solve outcome (solve only, else ``None``).
        display: the clue cards face up right after this turn (element ids), when the record
            states them (a pi-env extension of docs/record-format.md), else ``None``.
        refers_to: kind ``"incorrect"`` only: the index of the earlier event whose answer the
            table declared incorrect (second-edition rulebook: the answering opponent is
            eliminated from the round and loses that round's points from a correct solve, the
            asker receives the round's highest score, neither takes further turns this round).
            ``player`` is then that event's (the asker's). ``-1`` for the other kinds.

    A declaration is not a turn (:attr:`is_turn` is false): it does not count in the turn order,
    and may come after the round's last turn.
    """

    index: int
    player: int
    kind: str
    element: int = -1
    answer: int = -1
    district: int = -1
    spots: int = -1
    traces: int = -1
    suppressed: tuple[bool, bool, bool] = (False, False, False)
    case: int = -1
    correct: bool | None = None
    display: tuple[int, ...] | None = None
    refers_to: int = -1

    @property
    def is_turn(self) -> bool:
        """A clue, investigation or solve (docs/rules.md §4), not a declaration."""
        return self.kind in TURN_KINDS


@dataclass(frozen=True)
class RoundRecord:
    """One round of a record.

    Attributes:
        first_player: the round's first player.
        tile_district: ``tuple[int, ...]`` of length 36: the district (0..13) of each element's
            tile (locations: their own district).
        cases: player → its case as a case id, for the cases the writer knew (docs/record-format.md ``cases``).
        display: the clue cards face up at the start (element ids), or ``None``.
        events: the turns in order.
    """

    first_player: int
    tile_district: tuple[int, ...]
    cases: dict[int, int] = field(default_factory=dict)
    display: tuple[int, ...] | None = None
    events: tuple[Event, ...] = ()

    def declared_incorrect(self, after_event: int | None = None) -> dict[int, int]:
        """``{event index: index of its declaration}`` for the answers declared incorrect by
        the events with index ``<= after_event`` (``None``: all events)."""
        return {ev.refers_to: ev.index for ev in self.events
                if ev.kind == INCORRECT and (after_event is None or ev.index <= after_event)}


@dataclass(frozen=True)
class GameRecord:
    """A whole record: rules, board, optional player names and rounds.

    ``seed``, ``max_rotations`` and ``max_rounds`` come from the optional ``engine`` object that
    pi-env writes (``{"seed": int, "max_rotations": int, "max_rounds": int}``, a pi-env extension of
    docs/record-format.md): with them a replay re-runs the engine and reproduces every state exactly (deck order
    and reshuffles included). ``max_rounds`` is the duel's safeguard (``GameConfig.max_rounds``),
    present only in duel records (``None`` otherwise, and in duel records that do not give it).
    ``agents`` (``engine.agents``) names the agent of each seat, as ``pi-env play`` prints it
    (``"P2 (deducer)"``); ``None`` when the record does not say (typed in at a table, older files).
    ``hints`` (``engine.hints``) is True when the people at the table could ask the solver for a hint
    during the game (the web app's option); False when not or when the record does not say.
    """

    rules: Rules
    board: Board
    rounds: tuple[RoundRecord, ...]
    player_names: tuple[str, ...] | None = None
    seed: int | None = None
    max_rotations: int | None = None
    max_rounds: int | None = None
    agents: tuple[str, ...] | None = None
    hints: bool = False

    def prefix(self, round_index: int, after_event: int | None = None) -> "GameRecord":
        """The record as it stood after event ``after_event`` of round ``round_index`` (0-based;
        ``-1``: before the round's first event; ``None``: after its last): the earlier rounds
        whole, that round's events up to ``after_event``, no later round."""
        rnd = self.rounds[round_index]
        events = rnd.events if after_event is None else rnd.events[:after_event + 1]
        return replace(self, rounds=self.rounds[:round_index] + (replace(rnd, events=events),))


_NUMBER = re.compile(r"-?[0-9]+")
_SEAT_LABEL = re.compile(r"[Pp]\s*([0-9]{1,19})")
_SEAT_LABEL_WITH = re.compile(r"([Pp]\s*[0-9]{1,19})\s*\((.*)\)")


def seat_label(p: int) -> str:
    """The label the CLI prints for player number ``p`` of a record without player names:
    ``"P0"``, ``"P1"``, ... (0-based, as the player numbers); :func:`resolve_player` accepts it, also
    followed by the seat's agent or name as ``pi-env play`` and ``pi-env solve`` print it
    (``"P2 (deducer)"``, ``"P2 (Cleo)"``)."""
    return f"P{p}"


def seat_label_with(p: int, said: "str | None") -> str:
    """The label the CLI prints for player ``p`` with what it knows of the seat, ``said`` (the
    player's name or the seat's agent) in parentheses: ``"P2 (Cleo)"``, ``"P2 (deducer)"``;
    ``"P2"`` when ``said`` is ``None`` or empty. A ``said`` that already is this seat's label, alone
    or followed by a parenthesis (the web app's default player names ``"P0 (you)"``,
    ``"P2 (greedy)"``), is returned as it is rather than ``"P2 (P2 (greedy))"``."""
    if not said:
        return seat_label(p)
    text = said.strip()
    with_more = _SEAT_LABEL_WITH.fullmatch(text)
    own = _SEAT_LABEL.fullmatch(with_more.group(1) if with_more is not None else text)
    if own is not None and int(own.group(1)) == p:
        return text
    return f"{seat_label(p)} ({said})"


def number_text(name: str) -> int | None:
    """The integer a text reads as when a person gives a player (``" 2 "`` -> 2, ``"-1"`` -> -1),
    or ``None`` for a text that is not a number (then it is a player name)."""
    text = name.strip()
    if not _NUMBER.fullmatch(text):
        return None
    if len(text.lstrip("-")) > 19:  # beyond any player number (and Python's digit limit): keep the sign
        return -(10**19) if text.startswith("-") else 10**19
    return int(text)


def resolve_player(record: GameRecord, player: "int | str") -> int:
    """The player number of ``player`` in ``record``: a number ``0..n-1`` (an ``int``, or a text
    that reads as one, ``"2"``), one of the record's player names, matched as names are
    (docs/record-format.md: ignoring case, spaces, apostrophes and accents), or the seat label
    the CLI prints for it (:func:`seat_label`: ``"P2"`` is player 2; a record's name comes first),
    also with what ``pi-env play`` and ``pi-env solve`` print after it in parentheses: the seat's
    agent (``"P2 (deducer)"``, checked against the record's ``agents``) or the player's name
    (``"P2 (Cleo)"``, checked against the record's names).

    A text that reads as a number is always a player number: records whose names could be taken for
    another player's number (``["1", "0", ...]``) or that name two players alike are refused when
    read (:func:`pi_env.records.record_file.load_record`); a record built in Python with such names
    gets an error here rather than a guess.

    Raises:
        UnknownNameError: a name the record does not have (the message lists the players and
            suggests close names).
        PIError: a number out of range, a name given to two players, neither a number nor a name,
            or a seat label whose agent or name in parentheses is not the record's for that seat.
    """
    n = record.rules.players
    shown = str(player)
    if isinstance(player, str):
        labelled = _SEAT_LABEL_WITH.fullmatch(player.strip())
        if labelled is not None and not any(normalize(name) == normalize(player) for name in record.player_names or ()):
            return _resolve_labelled(record, labelled.group(1), labelled.group(2).strip())
        shown = player.strip()
        number = number_text(player)
        if number is None:
            names = record.player_names or ()
            key = normalize(player)
            found = [i for i, name in enumerate(names) if normalize(name) == key]
            if len(found) == 1:
                return found[0]
            if found:
                raise PIError(f"player {player.strip()!r} is ambiguous: players "
                              f"{', '.join(map(str, found))} have that name")
            label = _SEAT_LABEL.fullmatch(player.strip())
            if label is not None:
                number = int(label.group(1))
            elif not names:
                raise UnknownNameError(f"player {player.strip()!r}: this record names no players; give a "
                                       f"number 0..{n - 1} or a seat label P0..P{n - 1}")
        if number is None:
            close = difflib.get_close_matches(player.strip(), list(names), n=2, cutoff=0.5)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            listed = ", ".join(f"{i} {name}" for i, name in enumerate(names))
            raise UnknownNameError(f"unknown player {player.strip()!r}{hint}; the players are {listed}")
        player = number
    if isinstance(player, bool) or not hasattr(player, "__index__"):
        raise PIError(f"player must be a player number 0..{n - 1} or a player's name, got {player!r}")
    if not 0 <= int(player) < n:
        raise PIError(f"player must be 0..{n - 1} in this {n}-player record, got {shown[:24]}"
                      + ("..." if len(shown) > 24 else ""))
    return int(player)


def _resolve_labelled(record: GameRecord, label: str, said: str) -> int:
    """``resolve_player`` of ``"P2 (deducer)"``: ``label`` (``"P2"``) resolved as a seat label, and
    ``said`` (``"deducer"``) checked against the record's agent or name of that seat. ``label`` is
    the seat label here even when a player is named like it (``["P1", "Ann", ...]``: ``"P1 (Ann)"``,
    as ``pi-env solve`` prints seat 1, is seat 1)."""
    match = _SEAT_LABEL.fullmatch(label.strip())
    assert match is not None  # _SEAT_LABEL_WITH's label is a _SEAT_LABEL
    p, n = int(match.group(1)), record.rules.players
    if p >= n:
        raise PIError(f"player must be 0..{n - 1} in this {n}-player record, got {label.strip()}")
    given = f"{label.strip()} ({said})"
    known = ([("named", record.player_names[p])] if record.player_names else []) + (
        [("played by", record.agents[p])] if record.agents else [])
    if not known:
        raise PIError(f"player {given!r}: this record says neither who nor which agent played each seat "
                      f"(no player names, no engine.agents); give {seat_label(p)}")
    if any(normalize(value) == normalize(said) for _, value in known):
        return p
    seat = " and ".join(f"{what} {value!r}" for what, value in known)
    raise PIError(f"player {given!r}: in this record {seat_label(p)} is {seat}, not {said!r}")
