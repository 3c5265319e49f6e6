"""``pi-env solve`` on records typed in at a table (issue #15 items 2, 3): the display now (from the
record or ``--display``) decides the candidate clue cards, what the record does not give is said in
the text and the JSON, and ``--player`` takes a name. Layout and cases: ``tests/test_records.py``.
"""

from __future__ import annotations

import json

import pytest

from pi_env.apps.cli import main
from pi_env.core.errors import PIError
from pi_env.core.names import element_names, parse_element
from pi_env.solvers.solve_report import record_hint, solve_report

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
    missing = ("the record does not give the case P0 holds (P1's): the answer uses the public "
               "answers only, so it is weaker than that player's own reasoning at the table")
    assert missing in rep["notes"]
    assert rep["count"] > full["count"]  # weaker indeed
    code, out, err = _run(capsys, "solve", _write(tmp_path, doc), "--player", 0)
    assert f"Note: {missing}.\n" in out
    del doc["rounds"][0]["cases"]
    rep = solve_report(doc, 0)
    assert rep["cases_given"] == [] and rep["notes"][0] == (
        "the record gives no case for round 1: the answer uses the public answers only, not the case "
        "P0 holds (P1's), so it is weaker than that player's own reasoning at the table")


def test_player_by_name(capsys, tmp_path):
    doc = _doc()
    doc["players"] = ["Ann", "Ben", "Cleo"]
    path = _write(tmp_path, doc)
    by_name = json.loads(_run(capsys, "solve", path, "--player", "cleo", "--json")[1])
    assert by_name["player"] == 2 and by_name["player_name"] == "Cleo"
    assert by_name == json.loads(_run(capsys, "solve", path, "--player", 2, "--json")[1])
    assert _run(capsys, "solve", path, "--player", "Cleo")[1].startswith("P2 (Cleo), round 1, before any event; using only what P2 knows\n")
    assert _run(capsys, "solve", path, "--player", "Zed") == (
        2, "", "pi-env: error: unknown player 'Zed'; the players are 0 Ann, 1 Ben, 2 Cleo\n")
    assert _run(capsys, "solve", path, "--player", 3) == (
        2, "", "pi-env: error: player must be 0..2 in this 3-player record, got 3\n")
    plain = _write(tmp_path, _doc(), "plain.json")
    assert _run(capsys, "solve", plain, "--player", "Ann") == (
        2, "", "pi-env: error: player 'Ann': this record names no players; give a number 0..2 or a seat label P0..P2\n")


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


# ------------------------------------------------------------- the tester's findings (issue #15)


def test_an_empty_display_or_an_empty_card_is_an_error(capsys, tmp_path):
    """``--display ""`` read as "known, no cards" and empty items were dropped: both are mistakes."""
    path = _write(tmp_path, _doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}]))
    for display, message in [
        ("", "--display: no card given; list the clue cards face up, separated by commas "
             "(e.g. 'Doc, Bubbles, Lakeside')"),
        ("  ", "--display: no card given; list the clue cards face up, separated by commas "
               "(e.g. 'Doc, Bubbles, Lakeside')"),
        (",", "--display: card 1 of 2 in ',' is empty (a comma with no name before or after it); list the "
              "cards separated by commas"),
        ("Doc,,Pop", "--display: card 2 of 3 in 'Doc,,Pop' is empty (a comma with no name before or after "
                     "it); list the cards separated by commas"),
        ("Doc, Pop,", "--display: card 3 of 3 in 'Doc, Pop,' is empty (a comma with no name before or after "
                      "it); list the cards separated by commas"),
    ]:
        assert _run(capsys, "solve", path, "--player", 1, "--display", display) == (
            2, "", f"pi-env: error: {message}\n")
    # the library's words name no command-line option
    for display, message in [("", r"^display: no card given"), ([], r"^display: no card given"),
                             (["Docc"], r"^display: unknown suspect, evidence or location 'Docc'"),
                             (["Doc", ""], r"^display: card 2 must be a card's name or element id")]:
        with pytest.raises(PIError, match=message):
            record_hint(path, 1, display=display)


def test_a_given_display_must_agree_with_the_records(capsys, tmp_path):
    doc = _doc(display=DISPLAY9)
    path = _write(tmp_path, doc)
    listed = "Doc, Rusty, Pop, Pinky, Murder, Forgery, Lakeside, Downtown, Skid Row"  # in id order
    assert _run(capsys, "solve", path, "--player", 0, "--after-event", -1, "--display", "Doc, Queenie") == (
        2, "", f"pi-env: error: --display: 'Queenie' is not on the display the record states at the round's "
               f"start: {listed}\n")
    # Pinky taken: the 8 other cards are still known to be face up
    doc["rounds"][0]["events"] = [{"player": 0, "clue": "Pinky", "answer": "nothing"}]
    path = _write(tmp_path, doc)
    nine = ", ".join(DISPLAY9[2:] + ["Earl", "Queenie"])  # 9 cards without Doc
    assert _run(capsys, "solve", path, "--player", 1, "--display", nine) == (
        2, "", "pi-env: error: --display: 'Doc' is on the display the record states at the round's start "
               "(its cards still face up), but not among the 9 cards given\n")
    code, out, err = _run(capsys, "solve", path, "--player", 1, "--display", "Earl, Queenie")
    assert (code, out, err) == (2, "", (
        "pi-env: error: --display: 'Queenie' cannot also be face up: the cards given and the display the "
        "record states at the round's start (its cards still face up), Doc, Rusty, Pop, Murder, Forgery, "
        "Lakeside, Downtown, Skid Row, make 10 cards; at most 9 are face up\n"))
    # agreeing: the refill is Earl; the candidates are the 9 cards together
    h = solve_report(doc, 1, display="Earl")["hint"]
    assert _clue_ids(h) == {parse_element(x) for x in DISPLAY9[1:] + ["Earl"]}


def _engine_game(tmp_path, capsys, seed=5):
    path = tmp_path / "engine.json"
    assert main(["play", "--players", "3", "--seed", str(seed), "--record", str(path), "--quiet", "--force"]) == 0
    capsys.readouterr()
    return path, json.loads(path.read_text())


def test_solve_checks_an_engine_record_as_replay_does(capsys, tmp_path):
    """An event display that differs from the engine's: replay refused it, solve trusted it."""
    from pi_env.records.record_file import load_record
    from pi_env.solvers.solve_report import display_at

    path, doc = _engine_game(tmp_path, capsys)
    record = load_record(doc)
    after0 = display_at(record, 0, 0)
    names = [x for x in DISPLAY9 + ["Earl", "Queenie", "Bubbles", "Rusty"] if parse_element(x) not in after0]
    doc["rounds"][0]["events"][0]["display"] = [names[0]]  # not face up in the engine's game
    path.write_text(json.dumps(doc))
    message = (f"pi-env: error: round 1, event 0: display differs from the engine's after this event "
               f"({names[0]!r} is not face up in the engine's game)\n")
    assert _run(capsys, "replay", path) == (2, "", message)
    assert _run(capsys, "solve", path, "--player", 1, "--round", 1, "--after-event", 3) == (2, "", message)
    # a --display that contradicts the engine's display names the card
    path, doc = _engine_game(tmp_path, capsys)
    shown = ", ".join(element_names()[x] for x in after0[:2])
    ok = _run(capsys, "solve", path, "--player", 1, "--round", 1, "--after-event", 0, "--display", shown, "--json")
    assert ok[0] == 0 and json.loads(ok[1])["hint"]["display"] == [element_names()[x] for x in after0]
    code, out, err = _run(capsys, "solve", path, "--player", 1, "--round", 1, "--after-event", 0,
                          "--display", f"{shown}, {names[0]}")
    assert (code, out) == (2, "") and err.startswith(
        f"pi-env: error: --display: {names[0]!r} is not on the engine's display (re-run from the seed): ")


def test_solve_defaults_to_the_last_round_and_event(capsys, tmp_path):
    """A 2-round game in progress: ``solve G.json --player 0`` is about round 2 now (it was round 1,
    which is over: "No hint")."""
    ended = [{"player": 0, "solve": ["Pinky", "Murder", "Lakeside"], "correct": False},
             {"player": 1, "solve": ["Pinky", "Murder", "Lakeside"], "correct": True},
             {"player": 2, "solve": ["Shorty", "Smuggling", "Downtown"], "correct": True}]
    doc = _doc(ended)
    doc["rounds"].append(dict(doc["rounds"][0], first_player=1,
                              events=[{"player": 1, "clue": "Doc", "answer": "nothing"}]))
    path = _write(tmp_path, doc)
    code, out, err = _run(capsys, "solve", path, "--player", 0)
    assert code == 0 and out.startswith("P0, round 2, after event 0 (1 of 1 events); using only what P0 knows\n")
    assert "No hint" not in out and "recommendation:" in out
    assert _run(capsys, "solve", path, "--player", 0, "--round", 2) == (code, out, err)
    assert "No hint: the round is over" in _run(capsys, "solve", path, "--player", 0, "--round", 1)[1]
    assert record_hint(path, 0).round_index == 1
    assert solve_report(path, 0)["round"] == 2
    assert _run(capsys, "solve", path, "--player", 0, "--round", 3) == (
        2, "", "pi-env: error: --round must be 1..2 (the record has 2 rounds), got 3\n")
    with pytest.raises(PIError, match=r"^round_index must be 0\.\.1 \(the record has 2 rounds\), got 2$"):
        solve_report(path, 0, 2)


def test_the_python_api_takes_player_names(tmp_path):
    from pi_env.core.errors import UnknownNameError
    from pi_env.solvers import analyze, knowledge_of

    doc = _doc()
    doc["players"] = ["Ann", "Ben", "Dev"]
    path = _write(tmp_path, doc)
    by_name = analyze(str(path), player="Dev")
    assert by_name.player == 2 and by_name.count == analyze(str(path), 2).count
    assert analyze(doc, " dev ").player == 2 and analyze(doc, "2").player == 2
    with pytest.raises(UnknownNameError, match=r"^unknown player 'Deb' \(did you mean 'Dev'\?\); the players "
                                               r"are 0 Ann, 1 Ben, 2 Dev$"):
        analyze(doc, "Deb")
    from pi_env.records.record_file import load_record
    rnd = load_record(doc).rounds[0]
    with pytest.raises(PIError, match=r"^player 'Dev': a RoundRecord has no player names; give the player number"):
        knowledge_of(rnd, "Dev", n_players=3)
    assert knowledge_of(rnd, "1", n_players=3).player == 1
    with pytest.raises(PIError, match=r"^player must be a player number 0\.\.2 or a player's name, got 2\.0$"):
        analyze(doc, 2.0)
