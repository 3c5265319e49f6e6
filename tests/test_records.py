"""Tests of pi_env.records.record_file: reading, validating and writing pi-record/1 (docs/record-format.md).

Hand-worked answers use the daytime board (docs/rules.md §2) and the layout of ``_doc()`` below:

    suspect tiles:  Shorty Lakeside, Doc Forest Park, Rusty Little Italy, Bubbles Trocadero,
                    Frenchy Ocean Drive, Maurice China Town, Pop Central Station, Dutch Main Street,
                    Knuckles Road House, Pinky Union Square, Queenie Downtown, Earl Rick's Café;
                    Waterfront and Skid Row blank.
    evidence tiles: Murder Ocean Drive, Mob Killing China Town, Bank Job Central Station,
                    Blackmail Main Street, Police Corruption Road House, Forgery Union Square,
                    Kidnapping Downtown, Jewellery Heist Rick's Café, Smuggling Waterfront,
                    Protection Racket Skid Row; Lakeside .. Trocadero blank.
    cases:          player 0 (Doc, Forgery, Waterfront), player 1 (Pinky, Murder, Lakeside),
                    player 2 (Shorty, Smuggling, Downtown).
"""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from pi_env.core.board import DAYTIME
from pi_env.core.constants import (EVIDENCE_NAMES, NOTHING, SPOT, SUSPECT_NAMES, TRACE, case_index)
from pi_env.core.errors import PIError, RecordError
from pi_env.records.record_file import (MAX_ROUNDS_LIMIT, clue_answer, investigate_answer, load_record,
                            record_to_dict, suppression, tile_element, write_record)
from pi_env.records.types import Event, Rules

from helpers import SOLVER_FIXTURES

FIXTURES = sorted(SOLVER_FIXTURES.glob("*.record.json"))

D = {name: i for i, name in enumerate(DAYTIME.districts)}  # district ids
S = {name: i for i, name in enumerate(SUSPECT_NAMES)}  # suspect element ids 0..11
E = {name: 12 + i for i, name in enumerate(EVIDENCE_NAMES)}  # evidence element ids 12..21
L = {name: 22 + i for i, name in enumerate(DAYTIME.districts)}  # location element ids 22..35


def _doc(events=(), players=3, **round_extra):
    """A 3-player record on the daytime board with the layout of the module docstring."""
    districts = list(DAYTIME.districts)
    suspects = {d: (SUSPECT_NAMES[i] if i < 12 else None) for i, d in enumerate(districts)}
    evidence = {d: (EVIDENCE_NAMES[i - 4] if i >= 4 else None) for i, d in enumerate(districts)}
    rnd = {
        "first_player": 0,
        "tiles": {"suspect": suspects, "evidence": evidence},
        "cases": {"0": {"suspect": "Doc", "evidence": "Forgery", "location": "Waterfront"},
                  "1": {"suspect": "Pinky", "evidence": "Murder", "location": "Lakeside"},
                  "2": {"suspect": "Shorty", "evidence": "Smuggling", "location": "Downtown"}},
        "events": list(events),
    }
    rnd.update(round_extra)
    return {"format": "pi-record/1", "rules": {"players": players}, "board": "daytime", "rounds": [rnd]}


TILES = load_record(_doc()).rounds[0].tile_district
ADJ = DAYTIME.adjacency
CASE0 = case_index(S["Doc"], E["Forgery"] - 12, D["Waterfront"])
CASE1 = case_index(S["Pinky"], E["Murder"] - 12, D["Lakeside"])
CASE2 = case_index(S["Shorty"], E["Smuggling"] - 12, D["Downtown"])


def _reject(doc) -> str:
    with pytest.raises(RecordError) as info:
        load_record(doc)
    return str(info.value)


# ---------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_loads_and_round_trips(path):
    record = load_record(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert load_record(doc) == record
    assert record.rules.players == doc["rules"]["players"]
    assert len(record.rounds[0].events) == len(doc["rounds"][0]["events"])
    canonical = record_to_dict(record)
    assert canonical["board"] == "daytime"
    assert load_record(canonical) == record
    assert record_to_dict(load_record(canonical)) == canonical


def test_fixture_3p_seed100_values():
    path = SOLVER_FIXTURES / "3p_seed100.record.json"
    record = load_record(path)
    assert record.rules == Rules(players=3, investigators=(5, 5, 5))
    rnd = record.rounds[0]
    assert rnd.cases[2] == case_index(S["Pop"], E["Jewellery Heist"] - 12, D["Central Station"])
    assert rnd.tile_district[S["Queenie"]] == D["Lakeside"]
    assert rnd.tile_district[E["Murder"]] == D["Waterfront"]
    assert rnd.tile_district[L["Skid Row"]] == D["Skid Row"]
    assert rnd.events[0] == Event(index=0, player=0, kind="investigate", district=D["Downtown"],
                                  spots=0, traces=1)
    assert rnd.events[2] == Event(index=2, player=2, kind="solve", correct=False,
                                  case=case_index(S["Pop"], E["Bank Job"] - 12, D["Waterfront"]))
    assert rnd.events[14] == Event(index=14, player=2, kind="clue", element=S["Pop"], answer=SPOT)


def test_fixture_suppression_derived():
    # 4p_seed202: player 3 got a spot on the Lakeside clue (event 7), then investigates Lakeside
    # (event 27); the fixture's (0, 0) is consistent with its case only with the location suppressed.
    record = load_record(SOLVER_FIXTURES / "4p_seed202.record.json")
    ev = record.rounds[0].events[27]
    assert (ev.kind, ev.suppressed, ev.spots, ev.traces) == ("investigate", (False, False, True), 0, 0)


# ---------------------------------------------------------------------------- answer rules


def test_tile_element():
    assert tile_element(TILES, D["Lakeside"], 0) == S["Shorty"]
    assert tile_element(TILES, D["Lakeside"], 1) == -1
    assert tile_element(TILES, D["Waterfront"], 0) == -1
    assert tile_element(TILES, D["Waterfront"], 1) == E["Smuggling"]
    assert tile_element(TILES, D["Waterfront"], 2) == L["Waterfront"]


def test_clue_answer_by_hand():
    # Player 1's case: Pinky (Union Square), Murder (Ocean Drive), Lakeside.
    # Lakeside's neighbours: Forest Park, Trocadero, Little Italy.
    assert clue_answer(TILES, CASE1, L["Lakeside"], ADJ) == SPOT
    assert clue_answer(TILES, CASE1, L["Trocadero"], ADJ) == TRACE
    assert clue_answer(TILES, CASE1, L["Forest Park"], ADJ) == TRACE
    assert clue_answer(TILES, CASE1, L["Little Italy"], ADJ) == TRACE
    assert clue_answer(TILES, CASE1, L["Skid Row"], ADJ) == NOTHING
    assert clue_answer(TILES, CASE1, L["Ocean Drive"], ADJ) == NOTHING
    assert clue_answer(TILES, CASE1, S["Pinky"], ADJ) == SPOT
    assert clue_answer(TILES, CASE1, S["Queenie"], ADJ) == TRACE  # Downtown – Union Square
    assert clue_answer(TILES, CASE1, S["Earl"], ADJ) == NOTHING  # Rick's Café, not next to Union Square
    assert clue_answer(TILES, CASE1, E["Blackmail"], ADJ) == TRACE  # Main Street – Ocean Drive
    assert clue_answer(TILES, CASE1, E["Bank Job"], ADJ) == NOTHING  # Central Station
    assert clue_answer(TILES, CASE1, E["Murder"], ADJ) == SPOT


def test_investigate_answer_by_hand():
    none = (False, False, False)
    # Player 1: Pinky in Union Square, Murder in Ocean Drive, location Lakeside.
    assert investigate_answer(TILES, CASE1, D["Lakeside"], none, ADJ) == (1, 0)
    assert investigate_answer(TILES, CASE1, D["Trocadero"], none, ADJ) == (0, 2)
    assert investigate_answer(TILES, CASE1, D["Forest Park"], none, ADJ) == (0, 2)
    assert investigate_answer(TILES, CASE1, D["Downtown"], none, ADJ) == (0, 1)
    assert investigate_answer(TILES, CASE1, D["Skid Row"], none, ADJ) == (0, 0)
    # Player 0: Doc in Forest Park, Forgery in Union Square, location Waterfront.
    assert investigate_answer(TILES, CASE0, D["Union Square"], none, ADJ) == (1, 1)
    assert investigate_answer(TILES, CASE0, D["Downtown"], none, ADJ) == (0, 2)
    assert investigate_answer(TILES, CASE0, D["Trocadero"], none, ADJ) == (0, 1)
    # Player 2: Shorty in Lakeside, Smuggling in Waterfront, location Downtown.
    assert investigate_answer(TILES, CASE2, D["Waterfront"], none, ADJ) == (1, 1)
    assert investigate_answer(TILES, CASE2, D["Waterfront"], (False, True, False), ADJ) == (0, 1)
    assert investigate_answer(TILES, CASE2, D["Waterfront"], (False, True, True), ADJ) == (0, 0)
    assert investigate_answer(TILES, CASE2, D["Downtown"], none, ADJ) == (1, 1)
    assert investigate_answer(TILES, CASE2, D["Forest Park"], none, ADJ) == (0, 1)
    assert investigate_answer(TILES, CASE2, D["Forest Park"], (True, False, False), ADJ) == (0, 0)


def test_suppression_function():
    marked = {E["Smuggling"], S["Doc"]}
    assert suppression(TILES, marked, D["Waterfront"]) == (False, True, False)
    assert suppression(TILES, marked, D["Forest Park"]) == (True, False, False)
    assert suppression(TILES, marked, D["Lakeside"]) == (False, False, False)
    assert suppression(TILES, {L["Skid Row"]}, D["Skid Row"]) == (False, False, True)


# ---------------------------------------------------------------------------- suppression in records

SUPPRESSION_EVENTS = [
    {"player": 2, "clue": "Smuggling", "answer": "spot"},          # 0: p2 marker on Smuggling (Waterfront)
    {"player": 0, "clue": "Waterfront", "answer": "spot"},         # 1: p0 marker on Waterfront location
    {"player": 2, "investigate": "Waterfront", "spots": 0, "traces": 1},   # 2: evidence suppressed
    {"player": 0, "investigate": "Waterfront", "spots": 0, "traces": 1},   # 3: location suppressed
    {"player": 1, "investigate": "Waterfront", "spots": 0, "traces": 1},   # 4: nothing suppressed
    {"player": 1, "clue": "Kidnapping", "answer": "nothing"},     # 5: nothing -> no marker
    {"player": 1, "investigate": "Downtown", "spots": 0, "traces": 1},     # 6: nothing suppressed
    {"player": 2, "clue": "Doc", "answer": "trace"},               # 7: p2 marker on Doc (Forest Park)
    {"player": 2, "investigate": "Forest Park", "spots": 0, "traces": 0},  # 8: suspect suppressed
]


@pytest.mark.parametrize("with_cases", [True, False])
def test_suppression_derived(with_cases):
    doc = _doc(SUPPRESSION_EVENTS)
    if not with_cases:
        del doc["rounds"][0]["cases"]
    events = load_record(doc).rounds[0].events
    assert [e.suppressed for e in events] == [
        (False, False, False), (False, False, False),
        (False, True, False), (False, False, True), (False, False, False),
        (False, False, False), (False, False, False),
        (False, False, False), (True, False, False)]
    assert events[8] == Event(index=8, player=2, kind="investigate", district=D["Forest Park"],
                              spots=0, traces=0, suppressed=(True, False, False))


def test_suppression_changes_expected_answer():
    # Without the suppression, p2 in Forest Park would get a trace (Shorty in next-door Lakeside).
    events = copy.deepcopy(SUPPRESSION_EVENTS)
    events[8]["traces"] = 1
    assert _reject(_doc(events)) == (
        "round 1, event 8: answer 0 spots and 1 trace contradicts player 2's case "
        "(expected 0 spots and 0 traces)")


def test_markers_do_not_carry_over_rounds():
    doc = _doc([{"player": 2, "clue": "Smuggling", "answer": "spot"}])
    second = copy.deepcopy(doc["rounds"][0])
    second["first_player"] = 1
    second["events"] = [{"player": 2, "investigate": "Waterfront", "spots": 1, "traces": 1}]
    doc["rounds"].append(second)
    record = load_record(doc)
    assert record.rounds[1].events[0].suppressed == (False, False, False)


# ---------------------------------------------------------------------------- accepted input


def test_defaults_and_aliases():
    doc = _doc([{"player": 1, "clue": "trocadero", "answer": "cube"},
                {"player": 2, "clue": "SMUGGLING", "answer": "disc"},
                {"player": 0, "clue": "ricks cafe", "answer": "none"},
                {"player": 0, "solve": ["doc", "forgery", "waterfront"], "correct": True}])
    record = load_record(doc)
    assert record.rules == Rules(edition="second", mode="standard", players=3, rounds=3, variants=(),
                                 investigators=(5, 5, 5))
    assert record.player_names is None
    assert [(e.element, e.answer) for e in record.rounds[0].events[:3]] == [
        (L["Trocadero"], TRACE), (E["Smuggling"], SPOT), (L["Rick's Café"], NOTHING)]
    assert record.rounds[0].events[3].case == CASE0
    assert record.rounds[0].events[3].correct is True


def test_rules_defaults_by_mode():
    duel = _doc(players=2)
    duel["rules"] = {"mode": "duel"}
    del duel["rounds"][0]["cases"]["2"]
    assert load_record(duel).rules == Rules(mode="duel", players=2, rounds=3, investigators=(2, 2))
    fast = _doc()
    fast["rules"] = {"players": 3, "variants": ["Fast", "nick of time"]}
    assert load_record(fast).rules == Rules(players=3, rounds=2, variants=("fast", "nick-of-time"),
                                            investigators=(5, 5, 5))


def test_round_trip_with_names_display_and_custom_board(tmp_path):
    ring = [f"D{i}" for i in range(14)]
    board = {"districts": ring, "adjacency": [[ring[i], ring[(i + 1) % 14]] for i in range(14)]}
    doc = _doc([{"player": 1, "clue": "D1", "answer": "trace"},
                {"player": 0, "investigate": "D12", "spots": 1, "traces": 0}],
               display=["Pinky", "Murder", "D3"])
    doc["board"] = board
    doc["players"] = ["Ann", "Ben", "Cleo"]
    rnd = doc["rounds"][0]
    for layer in ("suspect", "evidence"):
        rnd["tiles"][layer] = {ring[i]: v for i, v in enumerate(rnd["tiles"][layer].values())}
    rnd["cases"] = {"0": {"suspect": "Doc", "evidence": "Forgery", "location": "D12"},
                    "1": {"suspect": "Pinky", "evidence": "Murder", "location": "D0"}}
    record = load_record(doc)
    assert record.board.districts == tuple(ring)
    assert record.player_names == ("Ann", "Ben", "Cleo")
    assert record.rounds[0].display == (S["Pinky"], E["Murder"], 22 + 3)
    out = record_to_dict(record)
    assert out["board"]["districts"] == ring
    assert load_record(out) == record
    path = write_record(record, tmp_path / "game.json")
    assert load_record(path) == record
    assert json.loads(path.read_text(encoding="utf-8")) == out


def test_record_to_dict_canonical_form():
    record = load_record(_doc([{"player": 1, "clue": "Trocadero", "answer": "cube"}]))
    out = record_to_dict(record)
    assert out["format"] == "pi-record/1"
    assert out["rules"] == {"edition": "second", "mode": "standard", "players": 3, "rounds": 3,
                            "variants": [], "investigators": [5, 5, 5]}
    assert out["board"] == "daytime"
    assert "players" not in out and "display" not in out["rounds"][0]
    assert out["rounds"][0]["tiles"]["suspect"]["Skid Row"] is None
    assert out["rounds"][0]["tiles"]["evidence"]["Rick's Café"] == "Jewellery Heist"
    assert out["rounds"][0]["cases"]["1"] == {"suspect": "Pinky", "evidence": "Murder", "location": "Lakeside"}
    assert out["rounds"][0]["events"] == [{"player": 1, "clue": "Trocadero", "answer": "trace"}]


def test_nothing_card_reselect_allowed_without_display():
    # Without a display the record does not model the clue cards (decision documented in records.py).
    events = [{"player": 1, "clue": "Ocean Drive", "answer": "nothing"},
              {"player": 2, "clue": "Ocean Drive", "answer": "nothing"}]
    assert len(load_record(_doc(events)).rounds[0].events) == 2


# ---------------------------------------------------------------------------- rejections


def test_reject_bad_format():
    doc = _doc()
    doc["format"] = "pi-record/2"
    assert _reject(doc) == "format: must be 'pi-record/1', got 'pi-record/2'"


def test_reject_unknown_name_with_suggestion():
    doc = _doc([{"player": 1, "clue": "Pinkey", "answer": "trace"}])
    assert _reject(doc) == ("round 1, event 0: clue: unknown suspect, evidence or location 'Pinkey'; "
                            "did you mean 'Pinky'?")


def test_reject_unknown_answer_word():
    doc = _doc([{"player": 1, "clue": "Pinky", "answer": "maybe"}])
    assert _reject(doc).startswith("round 1, event 0: clue: unknown answer 'maybe'")


def test_reject_wrong_type_name_in_tiles():
    doc = _doc()
    doc["rounds"][0]["tiles"]["suspect"]["Waterfront"] = "Murder"
    assert _reject(doc) == "round 1: tiles.suspect['Waterfront']: 'Murder' is evidence, expected a suspect"


def test_reject_wrong_type_in_solve():
    doc = _doc([{"player": 0, "solve": ["Forgery", "Doc", "Waterfront"], "correct": False}])
    assert _reject(doc) == "round 1, event 0: solve[0]: 'Forgery' is evidence, expected a suspect"


def test_reject_duplicate_tile():
    doc = _doc()
    doc["rounds"][0]["tiles"]["suspect"]["Waterfront"] = "Pinky"
    assert _reject(doc) == "round 1: tiles.suspect: 'Pinky' is on two tiles ('Union Square' and 'Waterfront')"


def test_reject_missing_district():
    doc = _doc()
    del doc["rounds"][0]["tiles"]["evidence"]["Skid Row"]
    assert _reject(doc) == ("round 1: tiles.evidence: missing district 'Skid Row' "
                            "(every district needs its tile, null for a blank)")


def test_reject_element_without_tile():
    doc = _doc()
    doc["rounds"][0]["tiles"]["suspect"]["Rick's Café"] = None
    assert _reject(doc) == "round 1: tiles.suspect: 'Earl' has no tile (each suspect is on exactly one tile)"


def test_reject_district_given_twice():
    doc = _doc()
    doc["rounds"][0]["tiles"]["suspect"]["lakeside"] = None
    assert _reject(doc) == "round 1: tiles.suspect: district 'Lakeside' given twice ('Lakeside' and 'lakeside')"


def test_reject_non_disjoint_cases():
    doc = _doc()
    doc["rounds"][0]["cases"]["2"]["suspect"] = "Doc"
    assert _reject(doc) == ("round 1: cases: players 0 and 2 both have suspect 'Doc'; the players' cases "
                            "are pairwise disjoint (docs/rules.md §3)")


def test_reject_answer_contradicting_case():
    doc = _doc([{"player": 1, "clue": "Trocadero", "answer": "trace"},
                {"player": 1, "clue": "Skid Row", "answer": "trace"}])
    assert _reject(doc) == "round 1, event 1: answer 'trace' contradicts player 1's case (expected 'nothing')"


def test_reject_investigation_contradicting_case():
    doc = _doc([{"player": 0, "investigate": "Union Square", "spots": 0, "traces": 2}])
    assert _reject(doc) == ("round 1, event 0: answer 0 spots and 2 traces contradicts player 0's case "
                            "(expected 1 spot and 1 trace)")


def test_reject_solve_contradicting_case():
    doc = _doc([{"player": 2, "solve": ["Shorty", "Smuggling", "Waterfront"], "correct": True}])
    assert _reject(doc) == ("round 1, event 0: solve marked correct contradicts player 2's case "
                            "(expected incorrect)")


def test_reject_solve_after_correct_solve():
    doc = _doc([{"player": 0, "solve": ["Doc", "Forgery", "Waterfront"], "correct": True},
                {"player": 1, "clue": "Lakeside", "answer": "spot"},
                {"player": 0, "solve": ["Doc", "Forgery", "Waterfront"], "correct": True}])
    assert _reject(doc) == ("round 1, event 2: solve by a player who already solved: player 0 solved its "
                            "case at event 0 and takes no more turns this round")


def test_reject_clue_after_correct_solve_even_without_cases():
    doc = _doc([{"player": 0, "solve": ["Doc", "Forgery", "Waterfront"], "correct": True},
                {"player": 0, "clue": "Lakeside", "answer": "nothing"}])
    del doc["rounds"][0]["cases"]
    assert _reject(doc).startswith("round 1, event 1: clue by a player who already solved")


def test_reject_second_investigator_in_district():
    doc = _doc([{"player": 1, "investigate": "Lakeside", "spots": 1, "traces": 0},
                {"player": 2, "investigate": "Lakeside", "spots": 1, "traces": 0},
                {"player": 1, "investigate": "lakeside", "spots": 1, "traces": 0}])
    assert _reject(doc) == ("round 1, event 2: second investigator of player 1 in 'Lakeside' this round "
                            "(first at event 0; docs/rules.md §4.2)")


def test_reject_too_many_investigators():
    doc = _doc([{"player": 1, "investigate": "Lakeside", "spots": 1, "traces": 0},
                {"player": 1, "investigate": "Trocadero", "spots": 0, "traces": 2}])
    doc["rules"]["investigators"] = [5, 1, 5]
    assert _reject(doc) == ("round 1, event 1: too many investigators: player 1 has none left "
                            "(started the round with 1; docs/rules.md §4.2)")


def test_investigators_are_spent_for_the_game():
    doc = _doc([{"player": 1, "investigate": "Lakeside", "spots": 1, "traces": 0}])
    doc["rules"]["investigators"] = [5, 2, 5]
    second = copy.deepcopy(doc["rounds"][0])
    second["first_player"] = 1
    doc["rounds"].append(second)
    assert len(load_record(doc).rounds) == 2  # 1 + 1 of 2
    third = copy.deepcopy(second)
    third["first_player"] = 2
    doc["rounds"].append(third)
    assert _reject(doc) == ("round 3, event 0: too many investigators: player 1 has none left "
                            "(started the round with 0; docs/rules.md §4.2)")


def test_reject_reselecting_card_answered_nothing():
    events = [{"player": 1, "clue": "Skid Row", "answer": "nothing"},
              {"player": 2, "clue": "Pinky", "answer": "nothing"},
              {"player": 2, "clue": "skid row", "answer": "nothing"}]
    doc = _doc(events, display=["Skid Row", "Pinky", "Murder", "Doc", "Lakeside", "Forgery", "Pop",
                                "Earl", "Downtown"])
    assert _reject(doc) == ("round 1, event 2: clue card 'Skid Row' was answered 'nothing' at event 0 and "
                            "is out of circulation for the round (docs/rules.md §4.1)")


def test_reject_spots_plus_traces_over_three():
    doc = _doc([{"player": 1, "investigate": "Lakeside", "spots": 2, "traces": 2}])
    assert _reject(doc) == ("round 1, event 0: investigate: spots+traces is 4, at most 3 "
                            "(one marker per type, docs/rules.md §4.2)")


def test_reject_impossible_investigation_without_case():
    # Lakeside has no evidence tile, so at most 2 spots there, whatever the case.
    doc = _doc([{"player": 1, "investigate": "Lakeside", "spots": 3, "traces": 0}])
    del doc["rounds"][0]["cases"]
    assert _reject(doc) == ("round 1, event 0: answer 3 spots and 0 traces is impossible in 'Lakeside': "
                            "at most 3 markers (2 spots) for the types not suppressed or blank "
                            "(docs/rules.md §4.2)")


def test_reject_player_out_of_range_and_bad_event_shape():
    assert _reject(_doc([{"player": 3, "clue": "Pinky", "answer": "spot"}])) == (
        "round 1, event 0: player must be 0..2, got 3")
    assert _reject(_doc([{"player": 1, "clue": "Pinky", "investigate": "Lakeside", "answer": "spot"}])) == (
        "rounds[0].events[0]: needs exactly one of 'clue', 'investigate', 'solve', 'incorrect', got keys "
        "['answer', 'clue', 'investigate', 'player']")
    assert _reject(_doc([{"player": 1, "clue": "Pinky"}])) == "rounds[0].events[0]: missing key 'answer'"


def test_reject_bad_rules_and_board():
    doc = _doc()
    doc["rules"]["players"] = 6
    assert _reject(doc) == "rules.players must be 2..5, got 6"
    doc = _doc()
    doc["board"] = "nighttime"
    assert _reject(doc) == "board: unknown board 'nighttime'; bundled boards: daytime"
    doc = _doc()
    doc["rounds"][0]["first_player"] = 3
    assert _reject(doc) == "round 1: first_player must be a player 0..2, got 3"
    doc = _doc()
    doc["players"] = ["Ann", "Ben"]
    assert _reject(doc) == "'players' must list 3 non-empty names (rules.players), got ['Ann', 'Ben']"


def test_reject_bad_display():
    doc = _doc(display=["Pinky", "pinky"])
    assert _reject(doc) == "round 1: display: 'Pinky' appears twice"


def test_json_text_is_not_a_source():
    with pytest.raises(TypeError, match="not JSON text"):
        load_record(json.dumps(_doc()))


def test_invalid_json_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(path)


# ---------------------------------------------------------------------------- writing


def test_write_record_refuses_overwrite_and_is_atomic(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("precious", encoding="utf-8")
    good = _doc([{"player": 1, "clue": "Trocadero", "answer": "trace"}])
    with pytest.raises(FileExistsError, match="refusing to overwrite existing record"):
        write_record(good, path)
    assert path.read_text(encoding="utf-8") == "precious"
    bad = _doc([{"player": 1, "clue": "Skid Row", "answer": "trace"}])
    with pytest.raises(RecordError, match="contradicts player 1's case"):
        write_record(bad, path, force=True)
    assert path.read_text(encoding="utf-8") == "precious"
    assert write_record(good, path, force=True) == path
    assert load_record(path) == load_record(good)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # no temp file left behind


# ---------------------------------------------------------------------------- the engine extension


def _duel_doc(rounds=1, engine=None):
    """A 2-player duel record (layout of ``_doc``, players 0 and 1) with ``rounds`` event-less rounds."""
    doc = _doc(players=2)
    doc["rules"] = {"mode": "duel"}
    del doc["rounds"][0]["cases"]["2"]
    doc["rounds"] = [dict(copy.deepcopy(doc["rounds"][0]), first_player=r % 2) for r in range(rounds)]
    if engine is not None:
        doc["engine"] = engine
    return doc


def test_engine_max_rounds_round_trip(tmp_path):
    doc = _duel_doc(rounds=4, engine={"seed": 7, "max_rotations": 30, "max_rounds": 5})
    record = load_record(doc)
    assert (record.seed, record.max_rotations, record.max_rounds) == (7, 30, 5)
    out = record_to_dict(record)
    assert out["engine"] == {"seed": 7, "max_rotations": 30, "max_rounds": 5}
    assert load_record(out) == record
    assert load_record(json.loads(json.dumps(out))) == record
    path = write_record(record, tmp_path / "duel.json")
    assert load_record(path) == record
    assert json.loads(path.read_text(encoding="utf-8"))["engine"] == out["engine"]


def test_engine_max_rounds_is_optional():
    record = load_record(_duel_doc(engine={"seed": 7}))
    assert (record.seed, record.max_rotations, record.max_rounds) == (7, 60, None)
    assert record_to_dict(record)["engine"] == {"seed": 7, "max_rotations": 60}
    standard = _doc()
    standard["engine"] = {"seed": 3, "max_rotations": 12}
    record = load_record(standard)
    assert (record.seed, record.max_rotations, record.max_rounds) == (3, 12, None)
    assert record_to_dict(record)["engine"] == {"seed": 3, "max_rotations": 12}
    assert load_record(_doc()).max_rounds is None


@pytest.mark.parametrize("rounds,max_rounds,message", [
    (1, 2, "engine.max_rounds must be an integer 3..100 (at least rules.rounds and the number of "
           "rounds recorded), got 2"),
    (4, 3, "engine.max_rounds must be an integer 4..100 (at least rules.rounds and the number of "
           "rounds recorded), got 3"),
    (1, 101, "engine.max_rounds must be an integer 3..100 (at least rules.rounds and the number of "
             "rounds recorded), got 101"),
    (1, "5", "engine.max_rounds: must be an integer, got '5' (duel only: the duel's safeguard "
             "(docs/rules.md §7), an integer from rules.rounds and the rounds recorded up to 100)"),
    (1, True, "engine.max_rounds: must be an integer, got True (duel only: the duel's safeguard "
             "(docs/rules.md §7), an integer from rules.rounds and the rounds recorded up to 100)"),
    (1, 5.0, "engine.max_rounds: must be an integer, got 5.0 (duel only: the duel's safeguard "
             "(docs/rules.md §7), an integer from rules.rounds and the rounds recorded up to 100)"),
])
def test_reject_bad_engine_max_rounds(rounds, max_rounds, message):
    assert _reject(_duel_doc(rounds, engine={"seed": 1, "max_rounds": max_rounds})) == message


def test_reject_engine_max_rounds_outside_a_duel_and_unknown_engine_keys():
    doc = _doc()
    doc["engine"] = {"seed": 1, "max_rounds": 5}
    assert _reject(doc) == ("engine.max_rounds is the duel's safeguard (docs/rules.md §7); this record's mode "
                            "is 'standard'")
    doc["engine"] = {"seed": 1, "max_round": 5}
    assert _reject(doc) == "engine: unknown key 'max_round' (allowed: seed, max_rotations, max_rounds, agents, hints)"
    assert _reject(_duel_doc(engine={"max_rounds": 5})) == "engine: missing key 'seed'"


def test_max_rounds_limit_is_the_engines():
    from pi_env.engine import state
    assert MAX_ROUNDS_LIMIT == state.MAX_ROUNDS_LIMIT


def _play_recorded(config, seed, policy_seed):
    """Play one game with a random policy (80 % clues and investigators), recording it."""
    import numpy as np
    from pi_env.core.constants import SOLVE_BASE
    from pi_env.engine import init, legal_action_mask, step_inplace
    from pi_env.records.recorder import Recorder

    state = init(config, 1, seed=seed)
    rec = Recorder(config, state, seed)
    rng = np.random.default_rng(policy_seed)
    while not state.done[0]:
        mask = legal_action_mask(state)[0]
        a = (int(rng.choice(np.flatnonzero(mask[:SOLVE_BASE]))) if rng.random() < 0.8
             else SOLVE_BASE + int(rng.integers(1680)))
        step_inplace(state, np.array([a]), config)
        rec.after_step(state)
    return state, rec.record()


def test_duel_recorder_stores_max_rounds_and_replay_uses_it():
    from pi_env.engine import GameConfig
    from pi_env.records.recorder import config_of, replay_with_engine

    config = GameConfig(mode="duel", max_rounds=4, max_rotations=3)
    final, record = _play_recorded(config, 8, 8)
    # with this seed the duel is still tied 1-1 after 4 rounds: it ends at the safeguard
    assert final.score[0].tolist() == [1, 1] and bool(final.truncated[0]) and len(record.rounds) == 4
    assert record.max_rounds == 4
    doc = record_to_dict(record)
    assert doc["engine"] == {"seed": 8, "max_rotations": 3, "max_rounds": 4}
    loaded = load_record(json.loads(json.dumps(doc)))
    assert record_to_dict(loaded) == doc and loaded.max_rounds == 4
    assert config_of(loaded) == config
    replayed = replay_with_engine(loaded)
    assert replayed.equals(final) and bool(replayed.done[0])
    # without it the default safeguard applies: the engine's duel would go on to a fifth round
    del doc["engine"]["max_rounds"]
    older = load_record(doc)
    assert older.max_rounds is None and config_of(older).max_rounds == 9
    assert not replay_with_engine(older).done[0]


def test_standard_recorder_has_no_max_rounds():
    from pi_env.engine import GameConfig
    from pi_env.records.recorder import config_of

    config = GameConfig(num_players=3, variants=("nick-of-time",), max_rotations=6)
    final, record = _play_recorded(config, 2, 2)
    assert record.max_rounds is None
    doc = record_to_dict(record)
    assert doc["engine"] == {"seed": 2, "max_rotations": 6}
    assert record_to_dict(load_record(doc)) == doc and config_of(load_record(doc)) == config


def test_first_edition_words_are_accepted_as_keys():
    """docs/record-format.md: ``crime`` = evidence and ``evidence card`` = clue, also as JSON keys."""
    from pi_env.core.board import DAYTIME
    from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES

    tiles = {"suspect": dict(zip(DAYTIME.districts, list(SUSPECT_NAMES) + [None, None])),
             "crime": dict(zip(DAYTIME.districts, list(EVIDENCE_NAMES) + [None] * 4))}
    doc = {"format": "pi-record/1", "rules": {"players": 3},
           "rounds": [{"first_player": 0, "tiles": tiles,
                       "cases": {"1": {"suspect": "Doc", "crime": "Forgery", "location": "Downtown"}},
                       "events": [{"player": 0, "evidence card": "Pinky", "answer": "cube"}]}]}
    rec = load_record(doc)
    plain = json.loads(json.dumps(doc).replace('"crime"', '"evidence"').replace('"evidence card"', '"clue"')
                       .replace('"cube"', '"trace"'))
    assert rec == load_record(plain)
    assert rec.rounds[0].events[0].kind == "clue" and rec.rounds[0].events[0].answer == 1


def _solo_doc(investigators):
    doc = _doc(players=1)
    doc["rules"] = {"mode": "solo", "investigators": investigators}
    doc["rounds"][0]["cases"] = {"0": doc["rounds"][0]["cases"]["0"]}
    return doc


def test_solo_records_take_up_to_14_investigators():
    """docs/rules.md §8 / SoloConfig: a solo player may start with 0..14 tiles (one per district)."""
    assert load_record(_solo_doc([14])).rules == Rules(mode="solo", players=1, rounds=1, investigators=(14,))
    assert load_record(_solo_doc([6])).rules.investigators == (6,)
    assert _reject(_solo_doc([15])) == "rules.investigators must list 1 integer 0..14, got [15]"
    standard = _doc()
    standard["rules"]["investigators"] = [5, 6, 5]
    assert _reject(standard) == "rules.investigators: investigator counts must be integers 0..5, got (5, 6, 5)"


def test_engine_agents_round_trip_also_a_learned_model_at_a_long_path(tmp_path):
    """``pi-env play --record`` writes each seat's agent name, and a learned model's name is
    ``learned:`` + the path as typed (pi_env.agents.learned.LearnedAgent.name): a model at a
    240-character name played a whole game and then its record was refused by its own schema
    (``engine.agents[0]: '...' is too long``, a 200-character limit), so nothing was written."""
    long_name = "learned:/" + "/".join(["checkpoints_of_a_long_experiment_run"] * 6) + "/policy.pt"
    assert len(long_name) == 240
    record = dataclasses.replace(load_record(_doc()), seed=1, agents=(long_name, "random", "deducer"))
    path = write_record(record, tmp_path / "g.json")
    assert json.loads(path.read_text())["engine"]["agents"] == [long_name, "random", "deducer"]
    assert load_record(path).agents == (long_name, "random", "deducer")


@pytest.mark.parametrize("engine", [
    {"seed": 1, "max_rotations": 60, "agents": ["random", "deducer", "human"]},
    {"agents": ["random", "deducer", "human"]},  # a record without a seed keeps its agents
])
def test_engine_agents_round_trip_with_and_without_a_seed(engine, tmp_path):
    """``record_to_dict`` wrote ``engine.agents`` only with a seed: a record built in Python with
    agents and no seed lost them (dict -> record -> dict was not the identity)."""
    doc = _doc()
    doc["engine"] = engine
    record = load_record(doc)
    assert record.agents == ("random", "deducer", "human") and record.seed == engine.get("seed")
    assert record_to_dict(record) == {**record_to_dict(load_record(_doc())), "engine": engine}
    assert load_record(record_to_dict(record)) == record
    assert load_record(write_record(record, tmp_path / "g.json")) == record
    bare = dataclasses.replace(record, agents=None)
    assert "engine" not in record_to_dict(bare) if "seed" not in engine else \
        record_to_dict(bare)["engine"] == {"seed": 1, "max_rotations": 60}


@pytest.mark.parametrize("engine, message", [
    ({}, "engine: missing key 'seed'"),
    ({"max_rotations": 60}, "engine: missing key 'seed'"),
    ({"agents": ["random", "deducer", "human"], "max_rotations": 60}, "engine: missing key 'seed'"),
])
def test_an_engine_without_a_seed_holds_only_agents(engine, message):
    doc = _doc()
    doc["engine"] = engine
    assert _reject(doc) == message


@pytest.mark.parametrize("agents, message", [
    (["random", "deducer"], "engine.agents lists 2 agents for 3 players (one per seat)"),
    (["random", 1, "deducer"], "engine.agents[1]: must be a string, got 1"),
    (["random", "", "deducer"], "engine.agents[1]: '' should be non-empty"),
])
def test_reject_malformed_engine_agents(agents, message):
    doc = _doc()
    doc["engine"] = {"seed": 1, "agents": agents}
    assert _reject(doc) == message


def test_a_seat_label_with_a_name_is_the_seat_even_when_a_name_reads_as_a_label():
    """``pi-env solve`` prints seat 1 of a record named ``["P1", "Ann", "Bob"]`` as ``"P1 (Ann)"``
    (solve_report: the seat label, then the name); that label resolved its ``P1`` as the name of
    seat 0 and was refused ("in this record P0 is named 'P1', not 'Ann'"). In ``"P1 (Ann)"`` the
    ``P1`` is the seat label; a bare ``"P1"`` still means the player named so (names come first)."""
    from pi_env.records.types import resolve_player

    doc = _doc()
    doc["players"] = ["P1", "Ann", "Bob"]
    record = load_record(doc)
    assert resolve_player(record, "P1 (Ann)") == 1
    assert resolve_player(record, "P0 (P1)") == 0
    assert resolve_player(record, "P1") == 0
    with pytest.raises(PIError, match=r"^player 'P1 \(Bob\)': in this record P1 is named 'Ann', not 'Bob'$"):
        resolve_player(record, "P1 (Bob)")
    with pytest.raises(PIError, match=r"^player must be 0..2 in this 3-player record, got P3$"):
        resolve_player(record, "P3 (Ann)")


def test_seat_label_with_keeps_a_name_that_already_is_the_seats_label():
    """``"P2 (Cleo)"``; a name that already starts with the seat's own label (the web app's default
    ``"P0 (you)"``) is kept as it is, one of another seat's label is not."""
    from pi_env.records.types import resolve_player, seat_label_with

    assert seat_label_with(2, "Cleo") == "P2 (Cleo)"
    assert seat_label_with(2, None) == "P2" and seat_label_with(2, "") == "P2"
    assert seat_label_with(0, "P0 (you)") == "P0 (you)"
    assert seat_label_with(2, "P2 (greedy)") == "P2 (greedy)"
    assert seat_label_with(3, "P3") == "P3"
    assert seat_label_with(1, "P0 (you)") == "P1 (P0 (you))"
    assert seat_label_with(1, "P1x") == "P1 (P1x)"
    doc = _doc()
    doc["players"] = ["P0 (you)", "P1 (random)", "P2 (deducer)"]
    record = load_record(doc)
    assert [resolve_player(record, seat_label_with(p, record.player_names[p])) for p in range(3)] == [0, 1, 2]


def test_player_label_takes_the_records_agents_unless_given():
    """``pi-env replay`` labels seats as ``pi-env play`` printed them: the record's names first,
    else ``P2 (deducer)`` from ``agents`` or, when not given, the record's ``engine.agents``."""
    from pi_env.records.report import player_label

    bare = load_record(_doc())
    with_agents = dataclasses.replace(bare, agents=("random", "deducer", "greedy"))
    named = dataclasses.replace(with_agents, player_names=("Ann", "Bob", "Cleo"))
    assert [player_label(bare, p) for p in range(3)] == ["P0", "P1", "P2"]
    assert [player_label(with_agents, p) for p in range(3)] == ["P0 (random)", "P1 (deducer)", "P2 (greedy)"]
    assert player_label(with_agents, 2, ("x", "y", "z")) == "P2 (z)"
    assert player_label(bare, 1, ("x", "y", "z")) == "P1 (y)"
    assert [player_label(named, p) for p in range(3)] == ["Ann", "Bob", "Cleo"]


def test_record_rules_json_round_trips_and_matches_the_engine_config():
    """A record's rules are written by Rules.to_json and read by Rules.from_json; a game's rules are
    those of its GameConfig (Rules.of_config), as the recorder writes them."""
    from pi_env.engine import GameConfig

    cfg = GameConfig(num_players=3, edition="first", variants=("fast",), investigators=(5, 3, 3))
    rules = Rules.of_config(cfg)
    assert rules == Rules(edition="first", mode="standard", players=3, rounds=2, variants=("fast",),
                          investigators=(5, 3, 3))
    assert rules.to_json() == {"edition": "first", "mode": "standard", "players": 3, "rounds": 2,
                               "variants": ["fast"], "investigators": [5, 3, 3]}
    assert Rules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    assert Rules.from_json({}) == Rules()
    assert Rules.from_json({"mode": "Duel", "variants": ["Fast"]}) == Rules(
        mode="duel", players=2, rounds=2, variants=("fast",), investigators=(2, 2))
    assert Rules.from_json({"variants": ["Nick of time"]}).variants == ("nick-of-time",)
    solo = Rules(mode="solo", players=1, rounds=1, investigators=(14,))
    assert Rules.from_json(solo.to_json()) == solo


@pytest.mark.parametrize("doc,message", [
    ({"players": "3"}, "rules.players must be an integer, got '3'"),
    ({"rounds": True}, "rules.rounds must be an integer, got True"),
    ({"variants": "fast"}, "rules.variants must be a list of strings, got 'fast'"),
    ({"investigators": [5, 5, 5, 5.0]}, "rules.investigators must be a list of integers, got [5, 5, 5, 5.0]"),
    ({"board": "daytime"}, "rules: unknown key 'board'; known: edition, mode, players, rounds, variants, "
                           "investigators"),
    ({"investigators": [5, 5, 5, -1]}, "rules.investigators: investigator counts must be integers 0..5, "
                                       "got (5, 5, 5, -1)"),
    # the engine's rules (GameConfig) decide for a standard game and a duel (docs/rules.md §5-§7)
    ({"investigators": [5, 5, 5]}, "rules.investigators gives 3 counts for 4 players (one per player)"),
    ({"mode": "duel", "players": 3}, "rules.players: a duel is played by exactly 2 players (docs/rules.md §7), "
                                     "got 3 players"),
    ({"variants": ["fast", "Fast"]}, "rules.variants lists a variant twice: ('fast', 'fast')"),
    ({"mode": "duel", "variants": ["nick of time"]}, "rules.variants: variant 'nick-of-time' does not apply to a "
                                                     "duel (the first solve attempt decides a duel round, "
                                                     "docs/rules.md §7)"),
    ({"variants": ["fast"], "rounds": 3}, "variant 'fast' plays 2 rounds (docs/rules.md §6), but rules.rounds is 3"),
    ({"mode": "solo", "players": 2}, "rules.players must be 1..1 in mode 'solo', got 2"),
    ([], "rules must be an object, got []"),
])
def test_record_rules_from_json_is_strict(doc, message):
    with pytest.raises(RecordError) as exc:
        Rules.from_json(doc)
    assert str(exc.value) == message


def test_engine_hints_round_trip_and_older_records_mean_no_hints():
    """``engine.hints`` (the web app's option: people could ask the solver for hints) is kept from
    dict to record to dict; absent (every older record) it is False and is not written back."""
    doc = _doc()
    doc["engine"] = {"seed": 1, "max_rotations": 60, "hints": True}
    record = load_record(doc)
    assert record.hints is True
    assert record_to_dict(record)["engine"] == {"seed": 1, "max_rotations": 60, "hints": True}
    assert load_record(record_to_dict(record)) == record
    old = load_record(_doc())
    assert old.hints is False and "hints" not in record_to_dict(old).get("engine", {})
    doc["engine"]["hints"] = "yes"
    assert _reject(doc).startswith("engine.hints: must be true or false, got 'yes'")
