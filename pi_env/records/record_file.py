"""Reading, validating and writing game records in the ``pi-record/1`` format (docs/record-format.md).

:func:`load_record` turns a record file (or its parsed JSON) into the typed objects of
:mod:`pi_env.records.types`, with every name resolved to an id, and rejects anything that could not
have happened at the table with a :class:`~pi_env.core.errors.RecordError` naming the round, the event
index and the reason. :func:`record_to_dict` and :func:`write_record` go the other way.

Structure first: the document is validated against the JSON Schema of the format
(:data:`SCHEMA_FILE`, package data, described in docs/record-format.md; :func:`schema`) with the
``jsonschema`` library, after first-edition key aliases are rewritten (:func:`canonical_document`).
A structural error is one line naming the path in the document, e.g.
``rounds[0].events[3]: missing key 'answer'``. What the schema cannot say stays in Python: names,
choices of words, ranges that depend on other fields (players per mode, player numbers, the event an
``incorrect`` declaration names), duplicate keys, and the rules below.

Checks made while reading the events of a round (docs/rules.md §4, §5):

* the acting player exists; a player who solved correctly this round takes no more turns;
* at most one investigator per player and district per round, and no more investigators over the
  game than the player started with (``rules.investigators``; duel: +2 per later round, at most 5);
* when the round lists its ``display`` (the record models the clue cards), a card answered
  ``nothing`` is out of circulation for the rest of the round and cannot be selected again;
* every answer is one the rules allow (e.g. an investigation cannot show more markers than the
  types it was not suppressed for), and, when the record holds the case of the acting player,
  exactly the answer that case gives (:func:`clue_answer`, :func:`investigate_answer`).

Turn order itself is not enforced: records typed in by people may skip turns.

pi-env extensions of docs/record-format.md in ``events`` (each optional; a record without them reads as before):

* ``"display": [names]`` on a clue, investigate or solve event: the clue cards face up right after
  that turn, as the table saw them (at most 9, each once, none answered *nothing* earlier in the
  round). A display of 9 cards — the round's ``display`` or an event's — fixes the cards the next
  clue can take until a card is taken: a clue on a card not shown there is rejected (docs/rules.md
  §4.1). Fewer than 9 cards are read as the cards known to be face up. ``pi-env solve`` ranks the
  queries among the cards known to be on the display at the position asked about.
* ``{"incorrect": E}``: the table found that the answer given at the round's earlier event ``E``
  (a clue, investigation or solve) was incorrect — the second-edition rulebook's
  incorrect-information rule: the opponent who answered (the asker's right-hand neighbour, who
  holds the asker's case) is eliminated from the round and loses the round's points from a correct
  solve, the asker receives the round's highest score (7, 8 or 9; first edition 7), and neither
  takes further turns this round (both still answer their left-hand neighbours). When ``E`` is the
  asker's solve answered "wrong" (it named its true case), that solve's −2 is cancelled, so the
  asker's round result is the round's highest score; its other wrong solves of the round still
  cost 2 each (decision; :func:`pi_env.records.scoring.score_record`). It is a
  declaration, not a turn (no ``player`` key; :attr:`Event.player` is set to the asker), may come
  after the round's last turn, and names each event once. When the record holds the asker's case,
  event ``E``'s answer is not checked against it — it must differ from it instead. The solver
  ignores a declared answer (:func:`pi_env.solvers.knowledge.knowledge_from_round`); scores follow
  :mod:`pi_env.records.scoring`. Not in solo records.

A key given twice in one JSON object is rejected, naming the key (and the round and event), and so
is a key given both as itself and as its first-edition alias (``"clue"`` and ``"evidence card"``).
Player names must tell the players apart (:func:`check_player_names`). A UTF-8 byte order mark at
the start of a file is skipped; integers longer than 19 digits and nesting deeper than 16 levels
are refused with one line (:data:`MAX_INT_DIGITS`, :data:`MAX_DEPTH`).

The optional top-level ``engine`` object is a pi-env extension of docs/record-format.md written by
:class:`pi_env.records.recorder.Recorder`: ``{"seed": int, "max_rotations": int}`` and, in duel records,
``"max_rounds": int`` (the duel's safeguard, docs/rules.md §7; optional, at least ``rules.rounds`` and the
rounds recorded, rejected outside a duel); ``pi-env play`` adds ``"agents": [str, ...]``, the agent of
each seat (optional, one per player; :func:`pi_env.records.types.resolve_player` checks ``"P2 (deducer)"``
against it). A solo record's ``engine`` has only ``"seed"`` (solo has no
rotations; a ``max_rotations`` in an older file is read and ignored). With it
:func:`pi_env.records.recorder.replay_with_engine` re-runs the game exactly.

The answer rules of docs/rules.md §4.1/§4.2 are the engine's, from :mod:`pi_env.core.rules`:
:func:`clue_answer` and :func:`investigate_answer` call them with a record's types (a case id, a
tuple of tile districts); :func:`suppression` reads a record's markers (a set of element ids).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from dataclasses import replace
from pathlib import Path
from typing import Any, Union

import jsonschema
import numpy as np

from pi_env.core.board import DAYTIME, Board, load_board
from pi_env.core import rules
from pi_env.core.rules import duel_investigators_after_round
from pi_env.core.constants import (ANSWER_NAMES, CASE_TRIPLES, DEFAULT_MAX_ROTATIONS, DISPLAY_SIZE, ELEMENT_TYPE,
                        EVIDENCE, LOCATION, NOTHING,
                        NUM_DISTRICTS, NUM_ELEMENTS, SUSPECT, TYPE_NAMES, TYPE_OFFSETS,
                        TYPE_SIZES, case_index, element_id)
from pi_env.core.errors import BoardError, RecordError, UnknownNameError
from pi_env.core.files import write_text_atomic
from pi_env.core.names import element_names, parse_answer, parse_district, parse_element
from pi_env.engine.state import MAX_ROUNDS_LIMIT
from pi_env.records.types import (CLUE, INCORRECT, INVESTIGATE, SOLVE, Event, GameRecord, RoundRecord, Rules,
                                  number_text)
from pi_env.core.text import normalize

FORMAT = "pi-record/1"

PathLike = Union[str, "os.PathLike[str]"]

SCHEMA_FILE = "pi-record-1.schema.json"
"""The JSON Schema of ``pi-record/1`` (package data of :mod:`pi_env.records`, docs/record-format.md)."""
_ACTION_KEYS = (CLUE, INVESTIGATE, SOLVE, INCORRECT)
_ARTICLE = ("a suspect", "evidence", "a location")


# --------------------------------------------------------------------------------------------
# Answer rules (docs/rules.md §4.1, §4.2): the engine's (pi_env.core.rules), with a record's types.


def clue_answer(tile_district: Sequence[int] | np.ndarray, case: int, element: int,
                adjacency: np.ndarray) -> int:
    """The answer to a clue card (docs/rules.md §4.1): :func:`pi_env.core.rules.clue_answer`.

    Let *x* = ``element`` of type *t* and *y* the case's element of type *t*: **spot** if *x = y*,
    else **trace** if the district of *y*'s tile is adjacent to the district of *x*'s tile, else
    **nothing**.

    Args:
        tile_district: ``int[36]``, the district (0..13) of each element's tile (locations: their
            own district), as :attr:`RoundRecord.tile_district`.
        case: the case of the player who selected the card, a case id 0..1679.
        element: the clue card's element id 0..35.
        adjacency: ``bool[14, 14]`` (:attr:`Board.adjacency`).

    Returns:
        ``NOTHING`` (0), ``TRACE`` (1) or ``SPOT`` (2).

    >>> from pi_env.core.board import DAYTIME
    >>> tiles = list(range(12)) + list(range(10)) + list(range(14))  # suspect/evidence i in district i
    >>> clue_answer(tiles, case_index(0, 0, 3), 22 + 0, DAYTIME.adjacency)  # Lakeside vs Trocadero
    1
    """
    return rules.clue_answer(np.asarray(tile_district, dtype=np.int64), np.asarray(adjacency, dtype=np.bool_),
                             CASE_TRIPLES[case], element)


def investigate_answer(tile_district: Sequence[int] | np.ndarray, case: int, district: int,
                       suppressed: Sequence[bool], adjacency: np.ndarray) -> tuple[int, int]:
    """The markers an investigator in ``district`` receives (docs/rules.md §4.2):
    :func:`pi_env.core.rules.investigate_answer`.

    For each type *t* not suppressed, with *y* the case's element of type *t*: one spot if *y*'s tile
    is in ``district``, else one trace if it is in a district adjacent to ``district``.

    Args:
        tile_district: ``int[36]``, the district of each element's tile (see :func:`clue_answer`).
        case: the investigating player's case, a case id 0..1679.
        district: the investigated district 0..13.
        suppressed: three bools (suspect, evidence, location), see :func:`suppression`.
        adjacency: ``bool[14, 14]``.

    Returns:
        ``(spots, traces)``, with ``spots + traces <= 3``.

    >>> from pi_env.core.board import DAYTIME
    >>> tiles = list(range(12)) + list(range(10)) + list(range(14))
    >>> investigate_answer(tiles, case_index(0, 1, 2), 0, (False,) * 3, DAYTIME.adjacency)
    (1, 2)
    """
    return rules.investigate_answer(np.asarray(tile_district, dtype=np.int64), np.asarray(adjacency, dtype=np.bool_),
                                    CASE_TRIPLES[case], district, np.asarray(suppressed, dtype=np.bool_))


def tile_element(tile_district: Sequence[int] | np.ndarray, district: int, type_: int) -> int:
    """The element whose type-``type_`` tile lies in ``district``, or -1 for a blank (docs/rules.md §1).

    Args:
        tile_district: ``int[36]`` (see :func:`clue_answer`).
        district: 0..13.
        type_: 0 suspect, 1 evidence, 2 location (a location's tile is its own district).
    """
    if type_ == LOCATION:
        return element_id(LOCATION, district)
    start = TYPE_OFFSETS[type_]
    for element in range(start, start + TYPE_SIZES[type_]):
        if tile_district[element] == district:
            return element
    return -1


def suppression(tile_district: Sequence[int] | np.ndarray, marked: "set[int] | frozenset[int]",
                district: int) -> tuple[bool, bool, bool]:
    """Which types an investigation of ``district`` is suppressed for (docs/rules.md §4.2):
    :func:`pi_env.core.rules.investigator_suppressed`.

    Type *t* is suppressed when the type-*t* tile in ``district`` carries a marker of the
    investigating player; a blank has no tile and is never suppressed.

    Args:
        tile_district: ``int[36]`` (see :func:`clue_answer`).
        marked: element ids whose tiles carry the player's marker this round (its clue cards answered
            trace or spot, docs/rules.md §4.1).
        district: the investigated district 0..13.

    Returns:
        ``(suspect, evidence, location)`` bools.
    """
    dtile = np.full((NUM_DISTRICTS, 3), -1, dtype=np.int64)  # the rule reads the district's row only
    dtile[district] = [tile_element(tile_district, district, t) for t in range(3)]
    markers = np.zeros(NUM_ELEMENTS, dtype=np.bool_)  # a spot or a trace: either suppresses
    markers[list(marked)] = True
    s, e, l = (bool(rules.investigator_suppressed(dtile, markers, markers, district, t)) for t in range(3))
    return (s, e, l)


# --------------------------------------------------------------------------------------------
# Reading.


def load_record(source: PathLike | dict[str, Any]) -> GameRecord:
    """Read and validate a ``pi-record/1`` game record (docs/record-format.md).

    Args:
        source: the path of a record file (``str`` or ``os.PathLike``), or the already parsed JSON
            object (``dict``). JSON text is not accepted: parse it with :func:`json.loads` first.

    Returns:
        The :class:`GameRecord`, names resolved to ids (layouts in :mod:`pi_env.core.constants`), each
        investigation's :attr:`Event.suppressed` derived from the earlier events of its round.

    Raises:
        RecordError: invalid JSON, a malformed or unknown key or value, an unknown name (with
            suggestions), a bad board, a tile layout that does not place every suspect and evidence
            exactly once, cases that are not pairwise disjoint, or an event that could not have
            happened (docs/rules.md §4: a player out of range or already solved, a second investigator in
            a district, more investigators than the player has, a card answered nothing selected
            again, an impossible answer, or an answer contradicting a known case). The message starts
            with ``round R, event E:`` where that applies.
        OSError: the file cannot be read (e.g. :class:`FileNotFoundError`).
        TypeError: ``source`` is neither a path nor a dict.
    """
    raw = _read_source(source)
    if isinstance(source, dict):
        _check_depth(raw)
    doc = canonical_document(raw)
    check_structure(doc)
    assert isinstance(doc, dict)
    rules = Rules.from_json(doc.get("rules", {}))
    board = _parse_board(doc.get("board", "daytime"))
    names = _parse_player_names(doc.get("players"), rules.players)
    rounds_doc = doc["rounds"]
    if rules.mode != "duel" and len(rounds_doc) > rules.rounds:
        raise RecordError(f"{len(rounds_doc)} rounds recorded but rules.rounds is {rules.rounds}")
    investigators_left = list(rules.investigators)
    rounds = []
    for r, round_doc in enumerate(rounds_doc):
        if r > 0 and rules.mode == "duel":
            # docs/rules.md §7; the round's winner is not tracked here: every player as if it lost
            # (the most it can hold; the scorer, pi_env.records.scoring, counts the winner's one fewer)
            investigators_left = [duel_investigators_after_round(k, False) for k in investigators_left]
        rounds.append(_parse_round(round_doc, r, rules, board, investigators_left))
    seed, max_rotations, max_rounds = _parse_engine(doc.get("engine"), rules, len(rounds))
    agents = _parse_agents((doc.get("engine") or {}).get("agents"), rules)
    hints = bool((doc.get("engine") or {}).get("hints", False))  # absent in older records: no hints
    return GameRecord(rules=rules, board=board, rounds=tuple(rounds), player_names=names,
                      seed=seed, max_rotations=max_rotations, max_rounds=max_rounds, agents=agents, hints=hints)


def _parse_agents(agents: object, rules: Rules) -> tuple[str, ...] | None:
    """The optional ``engine.agents``: one agent name per player (the schema checked the types)."""
    if agents is None:
        return None
    assert isinstance(agents, list)
    if rules.mode == "solo":
        raise RecordError("engine.agents names the agent of each seat of a game pi-env played; a solo "
                          "record has none")
    if len(agents) != rules.players:
        raise RecordError(f"engine.agents lists {len(agents)} agents for {rules.players} players "
                          "(one per seat)")
    return tuple(str(a) for a in agents)


def _parse_engine(doc: object, rules: Rules, num_rounds: int) -> tuple[int | None, int | None, int | None]:
    """The optional pi-env extension ``engine: {"seed": int >= 0, "max_rotations": int >= 1,
    "max_rounds": int}``; ``max_rounds`` (the duel's safeguard, docs/rules.md §7) only in a duel record,
    at least ``rules.rounds`` and the rounds recorded, at most 100."""
    if doc is None:
        return None, None, None
    assert isinstance(doc, dict)  # the schema checked the keys and the types
    if "seed" not in doc:  # only the agents (the schema allows no safeguards without a seed)
        return None, None, None
    seed, rot = doc["seed"], doc.get("max_rotations", DEFAULT_MAX_ROTATIONS)
    max_rounds = doc.get("max_rounds")
    if max_rounds is not None:
        if rules.mode != "duel":
            raise RecordError(f"engine.max_rounds is the duel's safeguard (docs/rules.md §7); this record's "
                              f"mode is {rules.mode!r}")
        low = max(rules.rounds, num_rounds)
        if not low <= max_rounds <= MAX_ROUNDS_LIMIT:
            raise RecordError(f"engine.max_rounds must be an integer {low}..{MAX_ROUNDS_LIMIT} (at least "
                              f"rules.rounds and the number of rounds recorded), got {max_rounds!r}")
        max_rounds = int(max_rounds)
    if rules.mode == "solo":  # solo has no rotations: an old file's max_rotations is ignored
        return int(seed), None, max_rounds
    return int(seed), int(rot), max_rounds


def _read_source(source: object) -> object:
    if isinstance(source, dict):
        return source
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        raise TypeError("load_record takes a path or a parsed dict, not JSON text; use json.loads first")
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"load_record takes a path or a dict, got {type(source).__name__}")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark, as some editors save, is skipped
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text (byte {exc.start}): save the record as UTF-8") from None
    return _parse_text(text, f"{path}: ")


def _parse_text(text: str, where: str = "") -> object:
    """The JSON of a record's text, checked for length of integers, depth and duplicate keys
    (``where``: the prefix of a message, e.g. the file's path and ``": "``)."""
    try:
        doc = json.loads(text, object_pairs_hook=_JSONObject.from_pairs, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}not valid JSON: {exc}") from None
    except _TooLong as exc:
        raise RecordError(f"{where}{exc}") from None
    except RecursionError:
        raise RecordError(f"{where}{_too_deep()}") from None
    except ValueError as exc:  # none known besides the above: still one line, never a traceback
        raise RecordError(f"{where}not valid JSON: {exc}") from None
    _check_depth(doc, where.removesuffix(": ") or None)
    _check_duplicate_keys(doc)
    return doc


def loads_record(text: str) -> GameRecord:
    """Read and validate a ``pi-record/1`` record from its JSON text (an upload): every check of
    :func:`load_record` on a file, duplicate keys included (``json.loads`` keeps the last silently).

    Args:
        text: the record's JSON text (a leading byte order mark is skipped).

    Returns:
        The :class:`GameRecord`, as :func:`load_record` returns it.

    Raises:
        RecordError: as :func:`load_record`, without a path in the message.
    """
    if not isinstance(text, str):
        raise TypeError(f"loads_record takes the record's JSON text, got {type(text).__name__}")
    doc = _parse_text(text.removeprefix("\ufeff"))
    if not isinstance(doc, dict):
        check_structure(canonical_document(doc))  # "record: must be an object, got ...", as for a file
    assert isinstance(doc, dict)
    return load_record(doc)


MAX_INT_DIGITS = 19
"""The most digits of an integer in a record: every value fits in 64 bits (seeds are below 2**63;
the others are small counts and indices)."""
MAX_DEPTH = 16
"""The deepest nesting of lists and objects read (a valid record nests at most 6 levels: the record,
its rounds, a round, its events, an event, its display)."""


class _TooLong(ValueError):
    pass


def _parse_int(text: str) -> int:
    """``json.loads``'s integer reader: refuses an integer longer than any value a record holds (else
    Python's own limit would answer with advice about ``sys.set_int_max_str_digits``)."""
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _TooLong(f"the number {text[:12]}... has {digits} digits; no value in a record has more "
                       f"than {MAX_INT_DIGITS} (seeds are below 2**63)")
    return int(text)


def _too_deep() -> str:
    return (f"lists and objects nested more than {MAX_DEPTH} levels deep; a record nests at most 6 "
            f"(the record, its rounds, a round, its events, an event, its display)")


def _check_depth(doc: object, where: str | None = None) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` (walked without recursion, so any depth that
    was parsed is measured rather than overflowing Python's stack later).

    Raises:
        RecordError: naming ``where`` (the file) when given.
    """
    stack: list[tuple[object, int]] = [(doc, 1)]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, (dict, list)):
            if depth > MAX_DEPTH:
                raise RecordError(f"{where}: {_too_deep()}" if where else _too_deep())
            stack.extend((v, depth + 1) for v in (obj.values() if isinstance(obj, dict) else obj))


class _JSONObject(dict):
    """A parsed JSON object that remembers the first key it was given twice (``duplicate``)."""

    duplicate: str | None = None

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, object]]) -> "_JSONObject":
        obj = cls(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            obj.duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return obj


def _check_duplicate_keys(doc: object) -> None:
    """Reject a key given twice in one JSON object (json.loads would keep the last silently).

    Raises:
        RecordError: naming the key, and the round and event when it is in one.
    """
    def walk(obj: object, where: str, r: int | None, e: int | None) -> None:
        if isinstance(obj, dict):
            dup = getattr(obj, "duplicate", None)
            if dup is not None:
                prefix = "" if where in ("record", "round", "event") else f"{where}: "
                raise RecordError(f"{prefix}duplicate key {dup!r} (a key may appear once per object)",
                                  round_index=r, event_index=e)
            for key, value in obj.items():
                if r is None and where == "record" and key == "rounds" and isinstance(value, list):
                    for i, rnd in enumerate(value):
                        walk(rnd, "round", i, None)
                elif r is not None and e is None and key == "events" and isinstance(value, list):
                    for j, ev in enumerate(value):
                        walk(ev, "event", r, j)
                else:
                    walk(value, key if where in ("record", "round", "event") else f"{where}.{key}", r, e)
        elif isinstance(obj, list):
            for i, item in enumerate(obj):
                walk(item, f"{where}[{i}]", r, e)

    walk(doc, "record", None, None)


_KEY_ALIASES = {"crime": "evidence", "evidencecard": "clue", "card": "clue"}


def _canonical_keys(obj: object, where: str = "", r: int | None = None, e: int | None = None) -> object:
    """First-edition words as keys (docs/record-format.md: ``crime`` = evidence, ``evidence card`` =
    clue), rewritten to the second edition's.

    Raises:
        RecordError: a key and its alias (or two aliases of one key) in the same object, e.g.
            ``round 1, event 0: duplicate key 'evidence card' (alias of 'clue')``: one of the two would
            be dropped. ``where`` (``"tiles"``, ``"cases['1']"``; ``""`` for an event) prefixes the
            message.
    """
    if not isinstance(obj, dict):
        return obj
    out: dict[object, object] = {}
    given: dict[object, object] = {}  # canonical key -> the key as written
    for key, value in obj.items():
        canonical = _KEY_ALIASES.get(normalize(key), key) if isinstance(key, str) else key
        if canonical in out:
            first = given[canonical]
            alias = key if key != canonical else first
            also = "" if canonical in (key, first) else f", as {first!r} is"
            prefix = f"{where}: " if where else ""
            raise RecordError(f"{prefix}duplicate key {alias!r} (alias of {canonical!r}{also})",
                              round_index=r, event_index=e)
        out[canonical] = value
        given[canonical] = key
    return out


def canonical_document(doc: object) -> object:
    """The record with first-edition key aliases rewritten where the format allows them (the keys of
    ``tiles``, of each case and of each event), so that the schema sees the second edition's words.

    Args:
        doc: a parsed ``pi-record/1`` document (anything: malformed parts are left as they are for
            :func:`check_structure` to report).

    Returns:
        A copy sharing the unchanged parts with ``doc`` (``doc`` is not modified).

    Raises:
        RecordError: a key given both as itself and as its alias in one object (e.g. ``"clue"``
            and ``"evidence card"`` in one event), naming both.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("rounds"), list):
        return doc
    rounds = []
    for r, rnd in enumerate(doc["rounds"]):
        if isinstance(rnd, dict):
            rnd = dict(rnd)
            if "tiles" in rnd:
                rnd["tiles"] = _canonical_keys(rnd["tiles"], "tiles", r)
            if isinstance(rnd.get("cases"), dict):
                rnd["cases"] = {k: _canonical_keys(v, f"cases[{k!r}]", r) for k, v in rnd["cases"].items()}
            if isinstance(rnd.get("events"), list):
                rnd["events"] = [_canonical_keys(ev, "", r, e) for e, ev in enumerate(rnd["events"])]
        rounds.append(rnd)
    return {**doc, "rounds": rounds}


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def schema() -> dict[str, Any]:
    """The JSON Schema of ``pi-record/1``, as packaged (:data:`SCHEMA_FILE`, docs/record-format.md)."""
    text = resources.files("pi_env.records").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """The schema with every local ``{"$ref": "#/$defs/x"}`` replaced by its definition (the schema
    has no recursion): the same checks, without a reference lookup per value (about twice as fast)."""
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline_refs(v, defs) for k, v in node.items() if k not in ("$ref", "$defs")}
    if "$ref" in node:
        out = {**_inline_refs(defs[node["$ref"].removeprefix("#/$defs/")], defs), **out}
    return out


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    """The Draft 2020-12 validator of :func:`schema`; "integer" means a Python or numpy int (not a
    bool, not a float such as ``1.0``), as the loader has always read it."""
    packaged = schema()
    base = jsonschema.Draft202012Validator
    base.check_schema(packaged)
    checker = base.TYPE_CHECKER.redefine("integer", lambda _checker, value: _is_int(value))
    return jsonschema.validators.extend(base, type_checker=checker)(_inline_refs(packaged, packaged["$defs"]))


_TYPE_WORDS = {"object": "an object", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}


def _json_path(path: Sequence[object]) -> str:
    """``['rounds', 0, 'events', 3, 'answer']`` → ``rounds[0].events[3].answer``; keys that are not
    identifiers in brackets (``tiles.suspect["Rick's Café"]``); the whole document is ``record``."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif isinstance(key, str) and key.isidentifier():
            out += f".{key}" if out else key
        else:
            out += f"[{key!r}]"
    return out or "record"


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _schema_message(error: jsonschema.ValidationError) -> str:
    """One line for a schema error: where in the document, what was expected, what was found, and
    the field's description from the schema when it has one (it gives the values allowed)."""
    message = _schema_problem(error)
    about = _failing_schema(error).get("description")
    if error.validator in ("type", "minimum", "maximum") and about and error.absolute_path:
        message += f" ({about[0].lower()}{about[1:].rstrip('.')})"
    return message


def _failing_schema(error: jsonschema.ValidationError) -> Mapping[str, Any]:
    """The (sub)schema whose keyword failed (a boolean schema has no keywords)."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def _schema_problem(error: jsonschema.ValidationError) -> str:
    where, kind = _json_path(error.absolute_path), error.validator
    want: Any = error.validator_value  # the keyword's value in the schema: any JSON
    got: Any = error.instance  # the part of the document that failed: any JSON
    schema = _failing_schema(error)
    if kind == "type":
        words = [want] if isinstance(want, str) else list(want)
        return f"{where}: must be {' or '.join(_TYPE_WORDS[w] for w in words)}, got {_shown(got)}"
    if kind == "required":
        return f"{where}: missing key {next(k for k in want if k not in got)!r}"
    if kind == "dependentRequired":  # the keys an event of its kind needs
        return f"{where}: missing key {next(k for a, ks in want.items() if a in got for k in ks if k not in got)!r}"
    if kind == "enum" and "propertyNames" in error.schema_path:  # a key an event of its kind has not
        return f"{where}: unknown key {got!r} (allowed: {', '.join(want)})"
    if kind == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extra = next(k for k in got if k not in allowed)
        return f"{where}: unknown key {extra!r} (allowed: {', '.join(allowed)})"
    if kind == "const":
        return f"{where}: must be {want!r}, got {_shown(got)}"
    if kind in ("minimum", "maximum"):
        return f"{where}: must be at {'least' if kind == 'minimum' else 'most'} {want}, got {_shown(got)}"
    if kind in ("minItems", "maxItems"):
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low == high:
            return f"{where}: must have exactly {_entries(int(want))}, got {len(got)}"
        return f"{where}: must have at {'least' if kind == 'minItems' else 'most'} {_entries(want)}, got {len(got)}"
    if kind == "pattern":
        return f"{where}: must not be blank, got {_shown(got)}"
    if kind == "oneOf" and all(list(s) == ["required"] for s in want):  # an event's action key
        keys = ", ".join(repr(s["required"][0]) for s in want)
        return f"{where}: needs exactly one of {keys}, got keys {sorted(got)}"
    if kind == "anyOf":
        return f"{where}: must be a name or null, got {_shown(got)}"
    return f"{where}: {error.message}"


def check_structure(doc: Any) -> None:
    """Check a parsed record against the ``pi-record/1`` JSON Schema (:data:`SCHEMA_FILE`).

    Args:
        doc: the parsed document, after :func:`canonical_document`.

    Raises:
        RecordError: the first structural error, one line naming its path in the document (e.g.
            ``rounds[0].events[3].spots: must be at most 3, got 4``).
    """
    probe, origin = _distinct_events(doc)
    error = next(_validator().iter_errors(probe), None)
    if error is not None:
        path = error.path  # (a top-level error: its path is its absolute path)
        r, e = (path[1], path[3]) if len(path) >= 4 and path[0] == "rounds" and path[2] == "events" else (None, None)
        if isinstance(r, int) and isinstance(e, int) and r in origin:
            path[3] = origin[r][e]  # the index in the document, not in the probe
        raise RecordError(_schema_message(error))


def _distinct_events(doc: Any) -> tuple[Any, dict[int, list[int]]]:
    """``doc`` with each round's ``events`` reduced to their first occurrences (equal JSON text,
    keys sorted), and per round so reduced the document index of each kept event.

    Every event is checked against the same subschema (the ``events`` array itself has no other
    keyword), so the events left out have exactly the errors of an earlier, kept one: the first
    error of the reduced document is the first error of the document (the index mapped back).
    Validation then costs per *distinct* event: a typed-in record of 200,000 failed solves names
    at most 8,400 distinct events (12 x 10 x 14 cases, 5 players), validated per event it took
    about 65 s at load 1-2. An event that is not plain JSON (e.g. a numpy
    integer from a dict source) is kept as it is.
    """
    rounds = doc.get("rounds") if isinstance(doc, dict) else None
    if not isinstance(rounds, list):
        return doc, {}
    origin: dict[int, list[int]] = {}
    probe_rounds: list[Any] = []
    for r, rnd in enumerate(rounds):
        events = rnd.get("events") if isinstance(rnd, dict) else None
        if not isinstance(events, list) or len(events) < 2:
            probe_rounds.append(rnd)
            continue
        seen: set[Any] = set()
        kept: list[Any] = []
        index: list[int] = []
        for e, event in enumerate(events):
            try:
                key: Any = _frozen(event)
            except TypeError:  # not plain JSON: validated on its own
                key = None
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
            kept.append(event)
            index.append(e)
        origin[r] = index
        probe_rounds.append({**rnd, "events": kept})
    return {**doc, "rounds": probe_rounds}, origin


_PLAIN = (str, int, float, bool, type(None))


def _frozen(value: Any) -> Any:
    """A hashable key of a plain JSON value, equal only for values every schema keyword treats
    alike (types kept apart: ``1``, ``1.0`` and ``True`` differ; objects compared with their keys
    in any order). Raises TypeError for anything else (a numpy integer, a non-string key)."""
    kind = type(value)
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise TypeError("a key that is not a string")
        return ("o", frozenset((k, _frozen(v)) for k, v in value.items()))
    if kind is list:
        return ("a", tuple(_frozen(v) for v in value))
    if kind in _PLAIN:
        return (kind.__name__, value)
    raise TypeError(f"not plain JSON: {kind.__name__}")


def _parse_board(doc: object) -> Board:
    assert isinstance(doc, (str, dict))  # the schema checked the type
    try:
        return load_board(doc)
    except BoardError as exc:
        raise RecordError(f"board: {exc}") from None


def _parse_player_names(doc: list[str] | None, n: int) -> tuple[str, ...] | None:
    if doc is None:
        return None
    if len(doc) != n:  # the schema checked the names
        raise RecordError(f"'players' must list {n} non-empty names (rules.players), got {doc!r}")
    check_player_names(doc)
    return tuple(doc)


def check_player_names(doc: Sequence[str]) -> None:
    """Check that each name tells its player apart: names are matched as a person types them
    (:func:`pi_env.records.types.resolve_player`), and a text that reads as a number is a player's
    number.

    Args:
        doc: one name per player, in turn order.

    Raises:
        RecordError: two names alike once case, spaces, apostrophes, hyphens and accents are
            ignored (``"Ann"``, ``"ann"``); a name that reads as another player's number
            (``["1", "0", ...]``: player 0 named "1") or as a number out of range.
    """
    n = len(doc)
    seen: dict[str, int] = {}
    for i, name in enumerate(doc):
        number = number_text(name)
        if number is not None and number != i:
            raise RecordError(f"players: player {i}'s name {name!r} reads as "
                              + (f"player {number}'s number" if 0 <= number < n else "a player number")
                              + "; a name that is a number may only be the player's own number")
        key = normalize(name)
        if key in seen:
            j = seen[key]
            raise RecordError(f"players: players {j} and {i} are both called {doc[j]!r}"
                              + (f" ({name!r})" if name != doc[j] else "")
                              + "; names are matched ignoring case, spaces, apostrophes, hyphens and "
                                "accents, so each player needs a different one")
        seen[key] = i


def _name(value: object, board: Board, type_: int | None, where: str,
          r: int | None = None, e: int | None = None) -> int:
    """Element id of a name, restricted to ``type_``; a name of another type says which it is."""
    try:
        return parse_element(value, board, type_)  # type: ignore[arg-type]
    except UnknownNameError as exc:
        reason = f"{where}: {exc}"
        if type_ is not None and isinstance(value, str):
            try:
                other = parse_element(value, board)
            except UnknownNameError:
                pass
            else:
                reason = (f"{where}: {value!r} is {_ARTICLE[int(ELEMENT_TYPE[other])]}, "
                          f"expected {_ARTICLE[type_]}")
        raise RecordError(reason, round_index=r, event_index=e) from None


def _parse_round(doc: object, r: int, rules: Rules, board: Board,
                 investigators_left: list[int]) -> RoundRecord:
    assert isinstance(doc, dict)  # the schema checked the keys and the types
    n = rules.players
    first = doc["first_player"]
    if not first < n:
        raise RecordError(f"first_player must be a player 0..{n - 1}, got {first!r}", round_index=r)
    tile_district = _parse_tiles(doc["tiles"], r, board)
    cases = _parse_cases(doc.get("cases", {}), r, n, board)
    display = _parse_display(doc.get("display"), r, board)
    events_doc = doc.get("events", [])
    if not isinstance(events_doc, list):
        raise RecordError(f"'events' must be a list, got {events_doc!r}", round_index=r)
    parsed = [_parse_event(event_doc, r, e, n, board) for e, event_doc in enumerate(events_doc)]
    declared = {ev.refers_to for ev in parsed if ev.kind == INCORRECT}
    events = _RoundReplay(r, rules, board, tile_district, cases, display, investigators_left, declared)
    for event in parsed:
        events.add(event)
    return RoundRecord(first_player=int(first), tile_district=tile_district, cases=cases,
                       display=display, events=tuple(events.events))


def _parse_tiles(doc: object, r: int, board: Board) -> tuple[int, ...]:
    assert isinstance(doc, dict)  # the schema checked the keys and the types
    tile_district = [-1] * NUM_ELEMENTS
    for type_ in (SUSPECT, EVIDENCE):
        where = f"tiles.{TYPE_NAMES[type_]}"
        layout = doc[TYPE_NAMES[type_]]
        seen: dict[int, str] = {}
        for key, value in layout.items():
            try:
                district = parse_district(key, board)
            except UnknownNameError as exc:
                raise RecordError(f"{where}: {exc}", round_index=r) from None
            if district in seen:
                raise RecordError(f"{where}: district {board.districts[district]!r} given twice "
                                  f"({seen[district]!r} and {key!r})", round_index=r)
            seen[district] = key
            if value is None:
                continue
            element = _name(value, board, type_, f"{where}[{key!r}]", r)
            if tile_district[element] >= 0:
                raise RecordError(f"{where}: {element_names(board)[element]!r} is on two tiles "
                                  f"({board.districts[tile_district[element]]!r} and "
                                  f"{board.districts[district]!r})", round_index=r)
            tile_district[element] = district
        missing = [board.districts[d] for d in range(NUM_DISTRICTS) if d not in seen]
        if missing:
            raise RecordError(f"{where}: missing district {missing[0]!r} (every district needs its "
                              f"tile, null for a blank)", round_index=r)
        start = TYPE_OFFSETS[type_]
        absent = [element_names(board)[x] for x in range(start, start + TYPE_SIZES[type_])
                  if tile_district[x] < 0]
        if absent:
            raise RecordError(f"{where}: {absent[0]!r} has no tile (each {TYPE_NAMES[type_]} is on "
                              f"exactly one tile)", round_index=r)
    for d in range(NUM_DISTRICTS):
        tile_district[element_id(LOCATION, d)] = d
    return tuple(tile_district)


def _parse_cases(doc: object, r: int, n: int, board: Board) -> dict[int, int]:
    assert isinstance(doc, dict)  # the schema checked the types and each case's keys
    cases: dict[int, int] = {}
    owner: dict[int, int] = {}  # element -> player whose case holds it
    for key, value in doc.items():
        if isinstance(key, str) and key.isascii() and key.isdigit():
            player = int(key)
        elif _is_int(key):
            player = int(key)
        else:
            player = -1
        if not 0 <= player < n or player in cases:
            raise RecordError(f"cases: key {key!r} is not a player number 0..{n - 1} given once",
                              round_index=r)
        where = f"cases[{key!r}]"
        triple = [_name(value[TYPE_NAMES[t]], board, t, f"{where}.{TYPE_NAMES[t]}", r) for t in range(3)]
        for element in triple:
            if element in owner:
                raise RecordError(
                    f"cases: players {owner[element]} and {player} both have "
                    f"{TYPE_NAMES[int(ELEMENT_TYPE[element])]} {element_names(board)[element]!r}; the "
                    f"players' cases are pairwise disjoint (docs/rules.md §3)", round_index=r)
            owner[element] = player
        cases[player] = case_index(*(x - TYPE_OFFSETS[t] for t, x in enumerate(triple)))
    return dict(sorted(cases.items()))


def _parse_display(doc: object, r: int, board: Board, e: int | None = None) -> tuple[int, ...] | None:
    if doc is None and e is None:
        return None
    assert isinstance(doc, list) and len(doc) <= DISPLAY_SIZE  # the schema checked it
    display = tuple(_name(x, board, None, f"display[{i}]", r, e) for i, x in enumerate(doc))
    if len(set(display)) != len(display):
        dup = next(x for x in display if display.count(x) > 1)
        raise RecordError(f"display: {element_names(board)[dup]!r} appears twice", round_index=r,
                          event_index=e)
    return display


def _parse_event(doc: object, r: int, e: int, n: int, board: Board) -> Event:
    """Names of one event (the schema checked its shape); the rule checks are :class:`_RoundReplay`'s."""
    assert isinstance(doc, dict)
    kind = next(k for k in _ACTION_KEYS if k in doc)
    if kind == INCORRECT:
        ref = doc[INCORRECT]
        if not ref < e:
            raise RecordError(f"incorrect: give the index of an earlier event whose answer was "
                              f"incorrect (0..{e - 1}), got {ref!r}", round_index=r, event_index=e)
        return Event(index=e, player=-1, kind=INCORRECT, refers_to=int(ref))
    display = None
    if "display" in doc:
        display = _parse_display(doc["display"], r, board, e)
    event = _parse_turn(doc, kind, r, e, n, board)
    return event if display is None else replace(event, display=display)


def _parse_turn(doc: dict, kind: str, r: int, e: int, n: int, board: Board) -> Event:
    """A clue, investigation or solve event (syntax only)."""
    player = doc["player"]
    if not player < n:
        raise RecordError(f"player must be 0..{n - 1}, got {player!r}", round_index=r, event_index=e)
    player = int(player)
    if kind == CLUE:
        element = _name(doc[CLUE], board, None, "clue", r, e)
        try:
            answer = parse_answer(doc["answer"])
        except UnknownNameError as exc:
            raise RecordError(f"clue: {exc}", round_index=r, event_index=e) from None
        return Event(index=e, player=player, kind=CLUE, element=element, answer=answer)
    if kind == INVESTIGATE:
        try:
            district = parse_district(doc[INVESTIGATE], board)
        except UnknownNameError as exc:
            raise RecordError(f"investigate: {exc}", round_index=r, event_index=e) from None
        spots, traces = doc["spots"], doc["traces"]
        if spots + traces > 3:
            raise RecordError(f"investigate: spots+traces is {spots + traces}, at most 3 (one marker "
                              f"per type, docs/rules.md §4.2)", round_index=r, event_index=e)
        return Event(index=e, player=player, kind=INVESTIGATE, district=district, spots=int(spots),
                     traces=int(traces))
    triple_doc, correct = doc[SOLVE], doc["correct"]
    triple = [_name(x, board, t, f"solve[{t}]", r, e) for t, x in enumerate(triple_doc)]
    return Event(index=e, player=player, kind=SOLVE,
                 case=case_index(*(x - TYPE_OFFSETS[t] for t, x in enumerate(triple))), correct=correct)


def _counts(spots: int, traces: int) -> str:
    return f"{spots} spot{'s' * (spots != 1)} and {traces} trace{'s' * (traces != 1)}"


class _RoundReplay:
    """Replays the events of one round, checking them against docs/rules.md §4 and the known cases.

    Game-level state (investigators left per player) is the caller's list, updated in place.
    ``declared``: the indices of the events a later ``incorrect`` event declares wrong (their
    answers are not checked against the known case; instead they must contradict it).
    """

    def __init__(self, r: int, rules: Rules, board: Board, tile_district: tuple[int, ...],
                 cases: dict[int, int], display: tuple[int, ...] | None,
                 investigators_left: list[int], declared: "set[int] | frozenset[int]" = frozenset()):
        self.r, self.board, self.tiles, self.cases = r, board, tile_district, cases
        self.rules = rules
        self.cards_in_play = display is not None
        self.rnd_display = display
        self.investigators_left = investigators_left
        self.investigators_start = list(investigators_left)
        self.declared = declared
        n = rules.players
        self.marked: list[set[int]] = [set() for _ in range(n)]  # elements with the player's marker
        self.investigated: list[dict[int, int]] = [{} for _ in range(n)]  # district -> event index
        self.solved_at: dict[int, int] = {}  # player -> event index of its correct solve
        self.out_at: dict[int, int] = {}  # player -> index of the declaration that ended its round
        self.out_of_play: dict[int, int] = {}  # clue element answered nothing -> event index
        # the display as far as the record states it: cards surely face up, and whether that is all
        self.display_known: set[int] | None = None if display is None else set(display)
        self.display_stated_at = -1
        self.events: list[Event] = []

    def _fail(self, event: Event, reason: str) -> None:
        raise RecordError(reason, round_index=self.r, event_index=event.index)

    def add(self, event: Event) -> None:
        if event.kind == INCORRECT:
            event = self._incorrect(event)
            self.events.append(event)
            return
        p = event.player
        if p in self.solved_at:
            self._fail(event, f"{event.kind} by a player who already solved: player {p} solved its "
                              f"case at event {self.solved_at[p]} and takes no more turns this round")
        if p in self.out_at:
            self._fail(event, f"{event.kind} by player {p}, who takes no more turns this round: an "
                              f"incorrect answer was declared at event {self.out_at[p]}")
        if event.kind == CLUE:
            self._clue(event)
        elif event.kind == INVESTIGATE:
            event = self._investigate(event)
        else:
            self._solve(event)
        self._update_display(event)
        self.events.append(event)

    def _contradiction(self, event: Event, observed: str, expected: str) -> None:
        self._fail(event, f"answer {observed} contradicts player {event.player}'s case "
                          f"(expected {expected})")

    def _update_display(self, event: Event) -> None:
        if event.display is not None:
            taken = set(event.display) & set(self.out_of_play)
            if taken:
                x = min(taken)
                self._fail(event, f"display: clue card {element_names(self.board)[x]!r} was answered "
                                  f"'nothing' at event {self.out_of_play[x]} and is out of circulation "
                                  f"for the round (docs/rules.md §4.1)")
            self.display_known = set(event.display)
            self.display_stated_at = event.index
        elif event.kind == CLUE and self.display_known is not None:
            self.display_known.discard(event.element)  # refilled from the deck: unknown card
            if not self.display_known:
                self.display_known = None

    def _clue(self, event: Event) -> None:
        name = element_names(self.board)[event.element]
        if self.cards_in_play and event.element in self.out_of_play:
            self._fail(event, f"clue card {name!r} was answered 'nothing' at event "
                              f"{self.out_of_play[event.element]} and is out of circulation for the "
                              f"round (docs/rules.md §4.1)")
        if (self.display_known is not None and event.element not in self.display_known
                and self._display_exact()):
            where = ("at the round's start" if self.display_stated_at < 0
                     else f"after event {self.display_stated_at}")
            self._fail(event, f"clue card {name!r} is not on the display (stated {where}; docs/rules.md §4.1)")
        case = self.cases.get(event.player)
        if case is not None:
            expected = clue_answer(self.tiles, case, event.element, self.board.adjacency)
            self._check_answer(event, expected != event.answer, repr(ANSWER_NAMES[event.answer]),
                               repr(ANSWER_NAMES[expected]))
        if event.answer == NOTHING:
            self.out_of_play.setdefault(event.element, event.index)
        else:
            self.marked[event.player].add(event.element)

    def _display_exact(self) -> bool:
        """The known display is the whole display: stated with all 9 cards (fewer cards are read as
        the cards known to be face up), and no card taken since."""
        stated = self.rnd_display if self.display_stated_at < 0 else self.events[self.display_stated_at].display
        if stated is None or len(stated) < DISPLAY_SIZE:
            return False
        return not any(e.kind == CLUE for e in self.events if e.index > self.display_stated_at)

    def _check_answer(self, event: Event, differs: bool, observed: str, expected: str) -> None:
        """A known case fixes the answer; an answer declared incorrect later must differ from it."""
        if event.index in self.declared:
            if not differs:
                self._fail(event, f"answer {observed} is declared incorrect by a later event, but it "
                                  f"is the answer player {event.player}'s case gives")
        elif differs:
            self._contradiction(event, observed, expected)

    def _investigate(self, event: Event) -> Event:
        p, d = event.player, event.district
        district = self.board.districts[d]
        if d in self.investigated[p]:
            self._fail(event, f"second investigator of player {p} in {district!r} this round (first "
                              f"at event {self.investigated[p][d]}; docs/rules.md §4.2)")
        if self.investigators_left[p] <= 0:
            self._fail(event, f"too many investigators: player {p} has none left (started the round "
                              f"with {self.investigators_start[p]}; docs/rules.md §4.2)")
        suppressed = suppression(self.tiles, self.marked[p], d)
        open_types = [t for t in range(3) if not suppressed[t]]
        with_tile = [t for t in open_types if tile_element(self.tiles, d, t) >= 0]
        if event.spots + event.traces > len(open_types) or event.spots > len(with_tile):
            self._fail(event, f"answer {_counts(event.spots, event.traces)} is impossible in "
                              f"{district!r}: at most {len(open_types)} markers ({len(with_tile)} "
                              f"spots) for the types not suppressed or blank (docs/rules.md §4.2)")
        case = self.cases.get(p)
        if case is not None:
            expected = investigate_answer(self.tiles, case, d, suppressed, self.board.adjacency)
            self._check_answer(event, expected != (event.spots, event.traces),
                               _counts(event.spots, event.traces), _counts(*expected))
        self.investigated[p][d] = event.index
        self.investigators_left[p] -= 1
        return replace(event, suppressed=suppressed)

    def _solve(self, event: Event) -> None:
        case = self.cases.get(event.player)
        if case is not None:
            word = {True: "correct", False: "incorrect"}
            differs = (case == event.case) != event.correct
            if event.index in self.declared:
                said = {True: "'correct'", False: "'wrong'"}
                self._check_answer(event, differs, said[bool(event.correct)], said[case == event.case])
            elif differs:
                self._fail(event, f"solve marked {word[bool(event.correct)]} contradicts player "
                                  f"{event.player}'s case (expected {word[case == event.case]})")
        if event.correct:
            self.solved_at[event.player] = event.index

    def _incorrect(self, event: Event) -> Event:
        """The incorrect-information rule (second-edition rulebook): the answer of an earlier turn
        was wrong; the asker and the opponent who answered take no more turns this round."""
        if self.rules.mode == "solo":
            self._fail(event, "incorrect: a solo game has no opponent to give a wrong answer")
        ref = event.refers_to
        target = self.events[ref]
        if not target.is_turn:
            self._fail(event, f"incorrect: event {ref} is a declaration, not an answered turn")
        earlier = [ev.index for ev in self.events if ev.kind == INCORRECT and ev.refers_to == ref]
        if earlier:
            self._fail(event, f"incorrect: event {ref}'s answer was already declared incorrect at "
                              f"event {earlier[0]}")
        asker = target.player
        answerer = (asker - 1) % self.rules.players
        for q in (asker, answerer):
            self.out_at.setdefault(q, event.index)
        return replace(event, player=asker)


def known_display(round_record: RoundRecord, after_event: int | None = None) -> tuple[tuple[int, ...], bool] | None:
    """The clue cards known to be face up after event ``after_event`` (``-1``: at the round's start;
    ``None``: after the last event), from the round's ``display`` and the events' ``display``
    statements (see the module docstring).

    Returns:
        ``None`` when the record states no display up to there; else ``(cards, exact)``: the element
        ids known to be on the display (ascending), and whether they are the whole display (a
        statement of 9 cards with no card taken since). After a clue card is taken without a new
        statement, its refill is unknown: the card leaves ``cards`` and ``exact`` is false.
    """
    known = None if round_record.display is None else set(round_record.display)
    exact = known is not None and len(known) == DISPLAY_SIZE
    for ev in round_record.events:
        if after_event is not None and ev.index > after_event:
            break
        if not ev.is_turn:
            continue
        if ev.display is not None:
            known, exact = set(ev.display), len(ev.display) == DISPLAY_SIZE
        elif ev.kind == CLUE and known is not None:
            known.discard(ev.element)
            exact = False
    return None if known is None else (tuple(sorted(known)), exact)


# --------------------------------------------------------------------------------------------
# Writing.


def _is_daytime(board: Board) -> bool:
    return board == DAYTIME and bool(np.array_equal(board.positions, DAYTIME.positions))


def record_to_dict(record: GameRecord) -> dict[str, Any]:
    """The canonical ``pi-record/1`` JSON object of a record (docs/record-format.md).

    Names, not ids; every ``rules`` key explicit; ``board`` is ``"daytime"`` when the board is the
    bundled daytime board (same districts, adjacency and positions), otherwise the inline object of
    :meth:`Board.to_dict`; ``players`` only when the record has names, ``display`` only when known.
    Derived data (``Event.suppressed``, scores) is not written. ``load_record(record_to_dict(r)) == r``.

    Args:
        record: a :class:`GameRecord` (not re-validated here; :func:`write_record` validates).

    Returns:
        A dict ready for :func:`json.dump`.
    """
    board = record.board
    names = element_names(board)
    rules = record.rules
    out: dict[str, Any] = {
        "format": FORMAT,
        "rules": rules.to_json(),
        "board": "daytime" if _is_daytime(board) else board.to_dict(),
    }
    if record.player_names is not None:
        out["players"] = list(record.player_names)
    if record.seed is not None and rules.mode == "solo":
        out["engine"] = {"seed": record.seed}  # no rotations in solo (docs/rules.md §8)
    elif record.seed is not None:
        out["engine"] = {"seed": record.seed,
                         "max_rotations": record.max_rotations or DEFAULT_MAX_ROTATIONS}
        if record.max_rounds is not None:
            out["engine"]["max_rounds"] = record.max_rounds
    if record.agents is not None:  # with a seed or without (a record built in Python): kept either way
        out.setdefault("engine", {})["agents"] = list(record.agents)
    if record.hints:  # written only when on: a record without hints is byte-identical to before
        out.setdefault("engine", {})["hints"] = True
    out["rounds"] = [_round_to_dict(rnd, board, names) for rnd in record.rounds]
    return out


def _triple_names(case: int, names: tuple[str, ...]) -> list[str]:
    return [names[element_id(t, int(CASE_TRIPLES[case][t]))] for t in range(3)]


def _round_to_dict(rnd: RoundRecord, board: Board, names: tuple[str, ...]) -> dict[str, Any]:
    tiles: dict[str, dict[str, str | None]] = {}
    for type_ in (SUSPECT, EVIDENCE):
        tiles[TYPE_NAMES[type_]] = {
            board.districts[d]: (None if (x := tile_element(rnd.tile_district, d, type_)) < 0 else names[x])
            for d in range(NUM_DISTRICTS)}
    out: dict[str, Any] = {"first_player": rnd.first_player, "tiles": tiles}
    if rnd.cases:
        out["cases"] = {str(p): dict(zip(TYPE_NAMES, _triple_names(c, names)))
                        for p, c in sorted(rnd.cases.items())}
    if rnd.display is not None:
        out["display"] = [names[x] for x in rnd.display]
    events: list[dict[str, Any]] = []
    for ev in rnd.events:
        if ev.kind == CLUE:
            events.append({"player": ev.player, "clue": names[ev.element], "answer": ANSWER_NAMES[ev.answer]})
        elif ev.kind == INVESTIGATE:
            events.append({"player": ev.player, "investigate": board.districts[ev.district],
                           "spots": ev.spots, "traces": ev.traces})
        elif ev.kind == SOLVE:
            events.append({"player": ev.player, "solve": _triple_names(ev.case, names),
                           "correct": bool(ev.correct)})
        else:
            events.append({INCORRECT: ev.refers_to})
        if ev.display is not None:
            events[-1]["display"] = [names[x] for x in ev.display]
    out["events"] = events
    return out


def write_record(record_or_dict: GameRecord | dict[str, Any], path: PathLike, force: bool = False) -> Path:
    """Validate a record and write its canonical JSON (docs/record-format.md) to ``path``.

    The record is checked first (a dict through :func:`load_record`, a :class:`GameRecord` by
    reloading :func:`record_to_dict` of it), so nothing invalid is written; the file is written to a
    temporary file in the same directory and moved into place with :func:`os.replace`, so an existing
    file is never left half-written.

    Args:
        record_or_dict: a :class:`GameRecord` or a record's JSON object.
        path: destination file.
        force: replace an existing file (otherwise refuse).

    Returns:
        The path written, as a :class:`~pathlib.Path`.

    Raises:
        FileExistsError: ``path`` exists and ``force`` is false.
        RecordError: the record is invalid (see :func:`load_record`).
        TypeError: ``record_or_dict`` is neither a GameRecord nor a dict.
        PIError: ``path`` is not a writable file name (empty, a directory, no such folder).
        OSError: the file cannot be written.
    """
    path = Path(path)
    if isinstance(record_or_dict, GameRecord):
        doc = record_to_dict(record_or_dict)
        load_record(doc)
    elif isinstance(record_or_dict, dict):
        doc = record_to_dict(load_record(record_or_dict))
    else:
        raise TypeError(f"write_record takes a GameRecord or a dict, got {type(record_or_dict).__name__}")
    if (path.exists() or path.is_symlink()) and not force:
        raise FileExistsError(f"refusing to overwrite existing record {str(path)!r}; "
                              f"pass force=True to replace it")
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return write_text_atomic(path, text, force=True)
