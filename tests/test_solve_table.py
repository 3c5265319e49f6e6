"""``pi-env solve`` on records typed in at a table (issue #15 items 2, 3): the display now (from the
record or ``--display``) decides the candidate clue cards, what the record does not give is said in
the text and the JSON, and ``--player`` takes a name. Layout and cases: ``tests/test_records.py``.
"""

from __future__ import annotations

import json

import pytest

from pi_env.apps.cli import main
from pi_env.core.names import parse_element
from pi_env.solvers.solve_report import solve_report

from test_records import _doc

DISPLAY9 = ["Pinky", "Doc", "Rusty", "Murder", "Forgery", "Lakeside", "Downtown", "Skid Row", "Pop"]


def _write(tmp_path, doc, name="g.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _clue_ids(hint_doc) -> set[int]:
    return {g["id"] for g in hint_doc["gains"] if g["id"] < 36}


def test_the_record_display_decides_the_candidates():
    doc = _doc(display=DISPLAY9)
    rep = solve_report(doc, 0, after_event=-1)
    h = rep["hint"]
    assert h["candidates"] == "display" and h["display_source"] == "record"
    assert _clue_ids(h) == {parse_element(x) for x in DISPLAY9}
    assert h["display"] == sorted(DISPLAY9, key=parse_element)
    assert not any("display" in n for n in rep["notes"])
    # Pinky taken (answered nothing for player 0): 8 cards known, the refill is not
    doc["rounds"][0]["events"] = [{"player": 0, "clue": "Pinky", "answer": "nothing"}]
    rep = solve_report(doc, 1)
    h = rep["hint"]
    assert h["candidates"] == "display, partly known"
    assert _clue_ids(h) == {parse_element(x) for x in DISPLAY9[1:]}
    assert ("only 8 cards of the display are known (the refills since the record last stated it are not): "
            "the best query is ranked among them") in rep["notes"]
    # a display stated after the event: exact again
    doc["rounds"][0]["events"][0]["display"] = DISPLAY9[1:] + ["Earl"]
    h = solve_report(doc, 1)["hint"]
    assert h["candidates"] == "display" and _clue_ids(h) == {parse_element(x) for x in DISPLAY9[1:] + ["Earl"]}


def test_without_a_display_the_ranking_assumes_any_card(capsys, tmp_path):
    doc = _doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}])
    rep = solve_report(doc, 1)
    h = rep["hint"]
    assert h["candidates"] == "clue cards in circulation" and h["display"] is None
    assert _clue_ids(h) == set(range(36)) - {parse_element("Pinky")}  # Pinky is out of circulation
    note = ("the display is not known: the best query is ranked over every clue card still in circulation, "
            "assuming any can be taken (give the display with --display, or in the record)")
    assert note in rep["notes"]
    code, out, err = _run(capsys, "solve", _write(tmp_path, doc), "--player", 1)
    assert code == 0 and f"Note: {note}.\n" in out


def test_display_option(capsys, tmp_path):
    path = _write(tmp_path, _doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}]))
    code, out, err = _run(capsys, "solve", path, "--player", 1, "--display", "doc, Bubbles ,lakeside", "--json")
    assert code == 0 and err == ""
    h = json.loads(out)["hint"]
    assert h["candidates"] == "display" and h["display_source"] == "--display"
    assert h["display"] == ["Doc", "Bubbles", "Lakeside"]
    assert _clue_ids(h) == {parse_element(x) for x in ("Doc", "Bubbles", "Lakeside")}
    assert h["best_action_id"] in _clue_ids(h) | set(range(36, 50))
    for display, message in [
        ("Dok, Pinky", "--display: unknown suspect, evidence or location 'Dok'; did you mean 'Doc'?"),
        ("Doc, doc", "--display: 'Doc' is given twice"),
        (", ".join(DISPLAY9 + ["Earl"]), "--display: at most 9 clue cards are face up, got 10"),
        ("Pinky, Doc", "--display: 'Pinky' was answered 'nothing' at event 0 of round 1 and lies in front "
                       "of player 0 for the rest of the round (docs/rules.md §4.1)"),
    ]:
        code, out, err = _run(capsys, "solve", path, "--player", 1, "--display", display)
        assert (code, out, err) == (2, "", f"pi-env: error: {message}\n")


def test_missing_cases_are_said(capsys, tmp_path):
    doc = _doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}])
    full = solve_report(doc, 0)
    assert full["held_case_known"] is True and full["cases_given"] == [0, 1, 2]
    assert not any("case" in n for n in full["notes"])
    del doc["rounds"][0]["cases"]["1"]  # the case player 0 holds
    rep = solve_report(doc, 0)
    assert rep["held_case_known"] is False and rep["cases_given"] == [0, 2]
    missing = ("the record does not give the case player 0 holds (player 1's): the answer uses the public "
               "answers only, so it is weaker than that player's own reasoning at the table")
    assert missing in rep["notes"]
    assert rep["count"] > full["count"]  # weaker indeed
    code, out, err = _run(capsys, "solve", _write(tmp_path, doc), "--player", 0)
    assert f"Note: {missing}.\n" in out
    del doc["rounds"][0]["cases"]
    rep = solve_report(doc, 0)
    assert rep["cases_given"] == [] and rep["notes"][0] == (
        "the record gives no case for round 1: the answer uses the public answers only, not the case "
        "player 0 holds (player 1's), so it is weaker than that player's own reasoning at the table")


def test_player_by_name(capsys, tmp_path):
    doc = _doc()
    doc["players"] = ["Ann", "Ben", "Cleo"]
    path = _write(tmp_path, doc)
    by_name = json.loads(_run(capsys, "solve", path, "--player", "cleo", "--json")[1])
    assert by_name["player"] == 2 and by_name["player_name"] == "Cleo"
    assert by_name == json.loads(_run(capsys, "solve", path, "--player", 2, "--json")[1])
    assert _run(capsys, "solve", path, "--player", "Cleo")[1].startswith("Player 2 (Cleo), round 1")
    assert _run(capsys, "solve", path, "--player", "Zed") == (
        2, "", "pi-env: error: unknown player 'Zed'; the players are 0 Ann, 1 Ben, 2 Cleo\n")
    assert _run(capsys, "solve", path, "--player", 3) == (
        2, "", "pi-env: error: player must be 0..2 in this 3-player record, got 3\n")
    plain = _write(tmp_path, _doc(), "plain.json")
    assert _run(capsys, "solve", plain, "--player", "Ann") == (
        2, "", "pi-env: error: player 'Ann': this record names no players; give a number 0..2\n")


def test_no_hint_when_the_player_has_no_turn(capsys, tmp_path):
    # player 0 was told a wrong answer by player 2 (who holds its case): both are out of the round
    events = [{"player": 0, "clue": "Pinky", "answer": "trace"}, {"incorrect": 0}]
    rep = solve_report(_doc(events), 2)
    assert rep["hint"] is None and rep["finished"] == ("player 2 takes no more turns this round "
                                                        "(incorrect information)")
    assert rep["ignored_events"] == [0]
    code, out, err = _run(capsys, "solve", _write(tmp_path, _doc(events)), "--player", 0)
    assert "Ignored: the answer of event 0, declared incorrect.\n" in out
    assert out.endswith("No hint: player 0 takes no more turns this round (incorrect information).\n")


def test_the_hint_reads_only_what_the_player_knows():
    """Two records that differ only in player 0's own case (player 0 has not acted, so no answer to
    it differs) give player 0 the same report, hint and all (docs/rules.md §9)."""
    events = [{"player": 1, "clue": "Doc", "answer": "nothing"}, {"player": 2, "clue": "Doc", "answer": "trace"}]
    one = _doc(events)
    other = _doc(events)
    other["rounds"][0]["cases"]["0"] = {"suspect": "Earl", "evidence": "Kidnapping", "location": "Skid Row"}
    assert solve_report(one, 0) == solve_report(other, 0)
    assert solve_report(one, 2) != solve_report(other, 2)  # player 2 holds player 0's case
