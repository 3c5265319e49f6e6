"""The JSON Schema of pi-record/1 (docs/record-format.md): packaged, valid, used by the loader for
structure, with one-line errors that name the path in the document."""

from __future__ import annotations

import copy
import json

import jsonschema
import numpy as np
import pytest

from pi_env.core.errors import RecordError
from pi_env.records.record_file import load_record, record_to_dict, schema

from helpers import SOLVER_FIXTURES
from test_records import _doc


def _reject(doc) -> str:
    with pytest.raises(RecordError) as info:
        load_record(doc)
    return str(info.value)


def test_schema_is_packaged_and_valid_draft_2020_12():
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["title"] == "pi-record/1" and s["required"] == ["format", "rounds"]
    s["title"] = "changed"  # a copy: the loader's schema is untouched
    assert schema()["title"] == "pi-record/1"


@pytest.mark.parametrize("path", sorted(SOLVER_FIXTURES.glob("*.record.json")), ids=lambda p: p.name)
def test_every_golden_record_and_its_canonical_form_validate(path):
    validator = jsonschema.Draft202012Validator(schema())
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(validator.iter_errors(doc)) == []
    assert list(validator.iter_errors(record_to_dict(load_record(doc)))) == []


def _with(path, value, doc=None):
    """``_doc()`` (3 players, daytime board) with one value replaced at ``path`` (keys and indices)."""
    doc = copy.deepcopy(doc if doc is not None else _doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}]))
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


_DELETE = object()


@pytest.mark.parametrize("path,value,message", [
    (["rounds"], [], "rounds: must have at least 1 entry, got 0"),
    (["surprise"], 1, "record: unknown key 'surprise' (allowed: format, rules, board, players, engine, rounds)"),
    (["rounds", 0, "first_player"], 1.0, "rounds[0].first_player: must be an integer, got 1.0"),
    (["rounds", 0, "first_player"], True, "rounds[0].first_player: must be an integer, got True"),
    (["rounds", 0, "first_player"], -1, "rounds[0].first_player: must be at least 0, got -1"),
    (["rounds", 0, "tiles", "suspect", "Lakeside"], 5, "rounds[0].tiles.suspect.Lakeside: must be a name or null, got 5"),
    (["rounds", 0, "tiles", "suspect", "Rick's Café"], "", "rounds[0].tiles.suspect[\"Rick's Café\"]: must be a name or null, got ''"),
    (["rounds", 0, "tiles", "evidence"], _DELETE, "rounds[0].tiles: missing key 'evidence'"),
    (["rounds", 0, "cases", "1", "location"], _DELETE, "rounds[0].cases['1']: missing key 'location'"),
    (["rounds", 0, "display"], ["Pinky"] * 10, "rounds[0].display: must have at most 9 entries, got 10"),
    (["rounds", 0, "events", 0, "answer"], 2,
     "rounds[0].events[0].answer: must be a string, got 2 ('spot', 'trace' or 'nothing'; first edition: 'disc', 'cube')"),
    (["rounds", 0, "events", 0], {"player": 0, "investigate": "Lakeside", "spots": 4, "traces": 0},
     "rounds[0].events[0].spots: must be at most 3, got 4"),
    (["rounds", 0, "events", 0], {"player": 0, "solve": ["Doc", "Forgery"], "correct": False},
     "rounds[0].events[0].solve: must have exactly 3 entries, got 2"),
    (["rounds", 0, "events", 0], {"player": 0, "solve": ["Doc", "Forgery", "Lakeside"], "correct": "no"},
     "rounds[0].events[0].correct: must be true or false, got 'no'"),
    (["rounds", 0, "events", 0], {"player": 0, "answer": "spot"},
     "rounds[0].events[0]: needs exactly one of 'clue', 'investigate', 'solve', 'incorrect', got keys "
     "['answer', 'player']"),
    (["rounds", 0, "events", 0, "extra"], 1,
     "rounds[0].events[0]: unknown key 'extra' (allowed: player, clue, answer, display)"),
    (["players"], ["Ann", " ", "Cleo"], "players[1]: must not be blank, got ' '"),
    (["engine"], {"seed": -1}, "engine.seed: must be at least 0, got -1"),
    (["engine"], {"seed": 1, "max_rotations": 0},
     "engine.max_rotations: must be at least 1, got 0 (the safeguard of docs/rules.md §5 (default 60))"),
    (["rules", "players"], "three",
     "rules.players: must be an integer, got 'three' (2..5 in a standard game (default 4), 2 in a duel, 1 in solo)"),
    (["board"], 7, "board: must be a string or an object, got 7 (the name of a bundled board ('daytime'), "
                   "or a board given inline)"),
    (["board"], {"districts": ["A"]}, "board: missing key 'adjacency'"),
])
def test_structural_errors_name_their_path(path, value, message):
    assert _reject(_with(path, value)) == message


def test_a_record_file_that_is_not_an_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(RecordError, match=r"^record: must be an object, got \[1, 2\]$"):
        load_record(path)


def test_first_edition_key_aliases_pass_the_schema():
    doc = _doc([{"player": 1, "Evidence Card": "Pinky", "answer": "disc"}])
    tiles = doc["rounds"][0]["tiles"]
    tiles["crime"] = tiles.pop("evidence")
    doc["rounds"][0]["cases"]["1"] = {"suspect": "Pinky", "Crime": "Murder", "location": "Lakeside"}
    original = copy.deepcopy(doc)
    event = load_record(doc).rounds[0].events[0]
    assert (event.kind, event.element, event.answer) == ("clue", 9, 2)  # Pinky, spot
    assert doc == original  # the caller's document is not modified


def test_numpy_integers_are_integers():
    doc = _doc([{"player": np.int64(1), "investigate": "Lakeside", "spots": np.int32(1), "traces": np.int64(0)}],
               first_player=np.int64(2))
    record = load_record(doc)
    assert record.rounds[0].first_player == 2 and record.rounds[0].events[0].spots == 1


def test_repeated_events_are_validated_once_with_errors_at_their_own_index():
    """check_structure validates each distinct event once (issue #15 item 8: 200,000 failed solves):
    the error names the first bad event's index in the document, however many equal events come
    before it, and events that differ only in type (1 / 1.0 / True) or key order are told apart."""
    good = {"player": 0, "clue": "Pinky", "answer": "nothing"}
    bad = {"player": 0, "clue": "Pinky", "answer": "nothing", "extra": 1}
    events = [dict(good) for _ in range(5)] + [{"answer": "nothing", "clue": "Pinky", "player": 0}] + [bad, bad]
    assert _reject(_doc(events)) == ("rounds[0].events[6]: unknown key 'extra' (allowed: player, clue, answer, "
                                     "display)")
    solve = {"player": 1, "solve": ["Doc", "Forgery", "Lakeside"], "correct": False}
    events = [dict(solve) for _ in range(4)] + [{**solve, "player": 1.0}, {**solve, "player": True}]
    assert _reject(_doc(events)) == "rounds[0].events[4].player: must be an integer, got 1.0"
    assert _reject(_doc(events[:4] + events[5:])) == "rounds[0].events[4].player: must be an integer, got True"
    # a numpy integer is validated on its own, an int key never equals a string key
    events = [dict(solve), {**solve, "player": np.int64(1)}, {**solve, "player": np.int64(-1)}]
    assert _reject(_doc(events)) == "rounds[0].events[2].player: must be at least 0, got np.int64(-1)"
    events = [dict(solve), {1: 0, "solve": ["Doc", "Forgery", "Lakeside"], "correct": False}]
    assert _reject(_doc(events)).startswith("rounds[0].events[1]")
