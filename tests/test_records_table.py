"""Records typed in at a real table (issue #15 items 2, 5, 6): the display stated after a turn, the
incorrect-information rule, incomplete games and duplicate JSON keys.

The layout and cases are those of ``tests/test_records.py`` (3 players, daytime board): player 0
has Doc (Forest Park) / Forgery (Union Square) / Waterfront, player 1 Pinky (Union Square) /
Murder (Ocean Drive) / Lakeside, player 2 Shorty (Lakeside) / Smuggling (Waterfront) / Downtown.
Answers worked out by hand from docs/rules.md §4.1: player 0 taking Pinky gets *nothing* (Doc's tile in
Forest Park is not next to Union Square), player 1 taking Doc gets nothing, player 2 taking Doc
gets a trace (Shorty's tile in Lakeside is next to Forest Park).
"""

from __future__ import annotations

import copy
import json

import pytest

from pi_env.apps.cli import main
from pi_env.core.errors import RecordError
from pi_env.core.names import parse_element
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.report import report_json, report_lines
from pi_env.records.scoring import score_record
from pi_env.solvers import analyze

from test_records import _doc, _reject


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _clue(p, name, answer):
    return {"player": p, "clue": name, "answer": answer}


def _solve(p, triple, correct):
    return {"player": p, "solve": list(triple), "correct": correct}


P0 = ("Doc", "Forgery", "Waterfront")
P1 = ("Pinky", "Murder", "Lakeside")
P2 = ("Shorty", "Smuggling", "Downtown")


# ------------------------------------------------------------------------- duplicate keys


def _write(tmp_path, text):
    path = tmp_path / "dup.json"
    path.write_text(text)
    return path


def test_duplicate_keys_are_errors_naming_the_key(tmp_path):
    doc = json.dumps(_doc([_clue(0, "Pinky", "nothing")]))
    with pytest.raises(RecordError, match=r"^duplicate key 'format' \(a key may appear once per object\)$"):
        load_record(_write(tmp_path, doc.replace('{"format": "pi-record/1"',
                                                 '{"format": "pi-record/1", "format": "pi-record/1"')))
    with pytest.raises(RecordError, match=r"^rules: duplicate key 'players' "):
        load_record(_write(tmp_path, doc.replace('"players": 3', '"players": 3, "players": 4')))
    with pytest.raises(RecordError, match=r"^round 1, event 0: duplicate key 'answer' "):
        load_record(_write(tmp_path, doc.replace('"answer": "nothing"', '"answer": "nothing", "answer": "spot"')))
    with pytest.raises(RecordError, match=r"^round 1: tiles\.suspect: duplicate key 'Lakeside' "):
        load_record(_write(tmp_path, doc.replace('"Lakeside": "Shorty"', '"Lakeside": "Shorty", "Lakeside": "Doc"')))
    assert load_record(_write(tmp_path, doc)).rounds[0].events[0].answer == 0  # the same text once is fine


def test_duplicate_key_on_the_command_line(capsys, tmp_path):
    doc = json.dumps(_doc([_clue(0, "Pinky", "nothing")]))
    path = _write(tmp_path, doc.replace('"player": 0', '"player": 0, "player": 1'))
    for argv in (("replay", path), ("solve", path, "--player", 0)):
        code, out, err = _run(capsys, *argv)
        assert (code, out) == (2, "")
        assert err == ("pi-env: error: round 1, event 0: duplicate key 'player' (a key may appear once "
                       "per object)\n")


# --------------------------------------------------------------------- the display after a turn


DISPLAY9 = ["Pinky", "Doc", "Rusty", "Murder", "Forgery", "Lakeside", "Downtown", "Skid Row", "Pop"]


def test_event_display_round_trips_and_constrains_the_next_clue():
    after = ["Doc", "Rusty", "Murder", "Forgery", "Lakeside", "Downtown", "Skid Row", "Pop", "Earl"]
    events = [dict(_clue(0, "Pinky", "nothing"), display=after), _clue(1, "Doc", "nothing")]
    record = load_record(_doc(events, display=DISPLAY9))
    assert record.rounds[0].events[0].display == tuple(parse_element(x) for x in after)
    names = record_to_dict(record)["rounds"][0]["events"][0]["display"]
    assert names == after and load_record(record_to_dict(record)) == record
    # a clue on a card not on the display stated right before it
    bad = [dict(_clue(0, "Pinky", "nothing"), display=after), _clue(1, "Queenie", "nothing")]
    assert _reject(_doc(bad, display=DISPLAY9)) == (
        "round 1, event 1: clue card 'Queenie' is not on the display (stated after event 0; docs/rules.md §4.1)")
    # the round's display of 9 cards fixes the first clue's choices
    assert _reject(_doc([_clue(0, "Queenie", "nothing")], display=DISPLAY9)) == (
        "round 1, event 0: clue card 'Queenie' is not on the display (stated at the round's start; "
        "docs/rules.md §4.1)")
    # after a card is taken its refill is unknown: any card may follow
    load_record(_doc([_clue(0, "Pinky", "nothing"), _clue(1, "Queenie", "trace")], display=DISPLAY9))
    # fewer than 9 cards: the cards known to be face up, no constraint on the others
    load_record(_doc([_clue(0, "Queenie", "nothing")], display=DISPLAY9[:4]))


def test_event_display_errors():
    out_card = [_clue(0, "Pinky", "nothing"), dict(_clue(1, "Doc", "nothing"), display=["Pinky"])]
    assert _reject(_doc(out_card)) == (
        "round 1, event 1: display: clue card 'Pinky' was answered 'nothing' at event 0 and is out of "
        "circulation for the round (docs/rules.md §4.1)")
    assert _reject(_doc([dict(_clue(0, "Pinky", "nothing"), display=["Doc", "Doc"])])) == (
        "round 1, event 0: display: 'Doc' appears twice")
    assert _reject(_doc([dict(_clue(0, "Pinky", "nothing"), display=["Dok"])])).startswith(
        "round 1, event 0: display[0]: unknown suspect, evidence or location 'Dok'; did you mean 'Doc'")
    assert _reject(_doc([dict(_clue(0, "Pinky", "nothing"), display=DISPLAY9 + ["Earl"])])) == (
        "rounds[0].events[0].display: must have at most 9 entries, got 10")


# --------------------------------------------------------------- incorrect information (rulebook)


def test_incorrect_answer_scores_by_the_rulebook():
    """Player 0 was told 'trace' for Pinky (the truth is nothing: its case is held by player 2, who
    answered). Declared: player 2 is out of the round, player 0 gets round 1's top score, 7."""
    events = [_clue(0, "Pinky", "trace"),          # 0: the wrong answer (player 2 answered)
              _solve(1, P1, True),                 # 1: player 1 solves at tier 0: +7
              _clue(2, "Doc", "trace"),            # 2
              {"incorrect": 0}]                    # 3: found out
    record = load_record(_doc(events))
    ev = record.rounds[0].events[3]
    assert (ev.kind, ev.player, ev.refers_to) == ("incorrect", 0, 0)
    s = score_record(record)
    assert s.round_points == ((7, 7, 0),)
    # every seat is finished or out at the end of rotation 1: the round is over
    assert s.round_complete == (True,)
    assert s.events[0][3].delta == 7
    assert record_to_dict(record)["rounds"][0]["events"][3] == {"incorrect": 0}
    assert load_record(record_to_dict(record)) == record
    lines = report_lines(record, s)
    assert lines[4] == ("  rot  1  P0  declared incorrect: the answer at event 0        -> P2 eliminated "
                        "from the round, P0 gets its top score  (+7)")


@pytest.mark.parametrize("edition", ["second", "first"])
def test_incorrect_answer_takes_the_answerers_solve_points(edition):
    events = [_clue(0, "Pinky", "trace"),          # 0: wrong (player 2 answered)
              _clue(1, "Doc", "nothing"),          # 1
              _solve(2, P2, True),                 # 2: player 2 solves at tier 0: +7
              _solve(0, P1, False),                # 3: rotation 2 (tier 1): player 0 wrong, -2
              {"incorrect": 0},                    # 4: player 2 loses its 7, player 0 gets 7
              _solve(1, P1, True)]                 # 5: player 1 solves at tier 1: +5
    doc = _doc(events)
    doc["rules"]["edition"] = edition
    record = load_record(doc)
    s = score_record(record)
    # player 0: -2 + 7 = 5; player 2: 7 - 7 = 0; player 1: 5 (the declaration is not a solve)
    assert s.round_points == ((5, 5, 0),)
    assert s.penalty == (2, 0, 0)
    assert [i.delta for i in s.events[0]] == [0, 0, 7, -2, 7, 5]
    assert s.round_complete == (True,)  # after player 1, player 2 (solved and out) is skipped


@pytest.mark.parametrize("edition", ["second", "first"])
def test_a_solve_declared_wrong_incorrectly_costs_nothing(edition):
    """Player 0 names its true case and is told 'wrong' (by player 2, who holds it); declared: the
    -2 of that solve is cancelled and player 0's round result is the round's highest score, 7
    (rulebook: the asker receives the highest score). An earlier, really wrong solve still costs 2."""
    doc = _doc([_solve(0, P0, False), {"incorrect": 0}])
    doc["rules"]["edition"] = edition
    s = score_record(load_record(doc))
    assert s.round_points == ((7, 0, 0),) and s.penalty == (0, 0, 0)
    assert [i.delta for i in s.events[0]] == [-2, 9]
    doc = _doc([_solve(0, P1, False), _clue(1, "Doc", "nothing"), _clue(2, "Doc", "trace"),
                _solve(0, P0, False), {"incorrect": 3}])
    doc["rules"]["edition"] = edition
    s = score_record(load_record(doc))
    assert s.round_points == ((5, 0, 0),) and s.penalty == (2, 0, 0)
    assert [i.delta for i in s.events[0]] == [-2, 0, 0, -2, 9]


def test_incorrect_answer_caps_at_21():
    events = [_clue(0, "Pinky", "trace"), {"incorrect": 0}]
    doc = _doc(events)
    doc["rounds"] = [copy.deepcopy(doc["rounds"][0]) for _ in range(3)]
    for r, rnd in enumerate(doc["rounds"]):
        rnd["first_player"] = r
    # rounds 1..3 give player 0 the top score: 7 + 8 + 9 = 24, capped at 21
    s = score_record(load_record(doc))
    assert [pts[0] for pts in s.round_points] == [7, 8, 6]
    assert s.scores[0] == 21


def test_incorrect_answer_checks():
    base = [_clue(0, "Pinky", "trace"), _clue(1, "Doc", "nothing")]
    # the declared turn's answer is not checked against the known case (without the declaration
    # it contradicts it)...
    load_record(_doc(base + [{"incorrect": 0}]))
    assert _reject(_doc(base)) == ("round 1, event 0: answer 'trace' contradicts player 0's case "
                                   "(expected 'nothing')")
    # ...but it must differ from it
    assert _reject(_doc(base + [{"incorrect": 0}, {"incorrect": 1}])) == (
        "round 1, event 1: answer 'nothing' is declared incorrect by a later event, but it is the "
        "answer player 1's case gives")
    assert _reject(_doc([_solve(0, P1, False), {"incorrect": 0}])) == (
        "round 1, event 0: answer 'wrong' is declared incorrect by a later event, but it is the "
        "answer player 0's case gives")
    # neither the asker (0) nor the answerer (2) takes another turn
    assert _reject(_doc(base + [{"incorrect": 0}, _clue(2, "Doc", "trace")])) == (
        "round 1, event 3: clue by player 2, who takes no more turns this round: an incorrect answer "
        "was declared at event 2")
    load_record(_doc(base + [{"incorrect": 0}, _clue(1, "Pinky", "spot")]))  # player 1 plays on
    assert _reject(_doc(base + [{"incorrect": 2}])) == (
        "round 1, event 2: incorrect: give the index of an earlier event whose answer was incorrect "
        "(0..1), got 2")
    assert _reject(_doc(base + [{"incorrect": 0}, {"incorrect": 0}])) == (
        "round 1, event 3: incorrect: event 0's answer was already declared incorrect at event 2")
    assert _reject(_doc(base + [{"incorrect": 0}, {"incorrect": 2}])) == (
        "round 1, event 3: incorrect: event 2 is a declaration, not an answered turn")
    assert _reject(_doc(base + [{"incorrect": 0, "player": 0}])) == (
        "rounds[0].events[2]: unknown key 'player' (allowed: incorrect)")
    solo = {"format": "pi-record/1", "rules": {"mode": "solo"},
            "rounds": [dict(_doc()["rounds"][0], cases={"0": dict(zip(("suspect", "evidence", "location"), P0))},
                            events=[_clue(0, "Pinky", "trace"), {"incorrect": 0}])]}
    assert _reject(solo).endswith("incorrect: a solo game has no opponent to give a wrong answer")


def test_the_solver_ignores_a_declared_answer_and_a_conflict_settles():
    """Without the cases, the two spot answers on Pinky cannot both hold (cases are disjoint): the
    smallest conflict names both; the table checks, declares event 1 wrong, and the record holds."""
    events = [_clue(1, "Pinky", "spot"), _clue(2, "Pinky", "spot")]
    doc = _doc(events)
    del doc["rounds"][0]["cases"]
    record = load_record(doc)
    a = analyze(record, 0, strict=False)
    assert a.count == 0 and a.conflict == (0, 1)
    doc["rounds"][0]["events"].append({"incorrect": 1})
    settled = load_record(doc)
    a = analyze(settled, 0)
    alone = _doc([_clue(1, "Pinky", "spot")])
    del alone["rounds"][0]["cases"]
    without = analyze(load_record(alone), 0)
    assert a.count == without.count and a.total == without.total
    assert (a.probabilities == without.probabilities).all()


def test_replay_settles_a_dispute(capsys, tmp_path):
    doc = _doc([_clue(1, "Pinky", "spot"), _clue(2, "Pinky", "spot")])
    del doc["rounds"][0]["cases"]
    path = tmp_path / "dispute.json"
    path.write_text(json.dumps(doc))
    code, out, err = _run(capsys, "replay", path)
    assert code == 2 and err == ("pi-env: error: round 1: the answers cannot all be true (no deal of the "
                                 "cases fits them): events 0, 1\n")
    doc["rounds"][0]["events"].append({"incorrect": 1})
    path.write_text(json.dumps(doc))
    code, out, err = _run(capsys, "replay", path, "--json")
    assert code == 0 and err == ""
    rep = json.loads(out)
    # player 2 (asker) gets 7; player 1 (answered it) is out
    assert rep["rounds"][0]["points"] == [0, 0, 7]


def test_incorrect_answer_in_a_duel_wins_the_round_for_the_asker():
    cases = {"0": dict(zip(("suspect", "evidence", "location"), P0)),
             "1": dict(zip(("suspect", "evidence", "location"), P1))}
    events = [_clue(0, "Pinky", "nothing"), _clue(1, "Doc", "spot"),  # 1: wrong (truth: nothing)
              _solve(0, P0, True), _solve(1, P1, True),                # a draw...
              {"incorrect": 1}]                                        # ...until player 1 wins it
    doc = _doc(events, players=2, cases=cases)
    doc["rules"] = {"mode": "duel"}
    record = load_record(doc)
    s = score_record(record)
    assert s.round_winners == (1,) and s.scores == (0, 1) and s.round_complete == (True,)
    assert report_lines(record, s)[5].endswith(
        "declared incorrect: the answer at event 1        -> P0 eliminated from the round, P1 wins the round  (+1)")
    doc["rounds"][0]["events"] = events[:4]
    del doc["rounds"][0]["cases"]["1"]  # event 1's answer contradicts it when not declared
    assert score_record(load_record(doc)).round_winners == (-1,)


def test_an_engine_record_cannot_declare_incorrect_answers(tmp_path, capsys):
    path = tmp_path / "g.json"
    assert main(["play", "--players", "3", "--seed", "5", "--record", str(path), "--quiet"]) == 0
    capsys.readouterr()
    doc = json.loads(path.read_text())
    last = doc["rounds"][-1]
    del last["cases"]  # else the loader finds event 0's answer is the one the case gives
    last["events"].append({"incorrect": 0})
    path.write_text(json.dumps(doc))
    code, out, err = _run(capsys, "replay", path)
    assert (code, out) == (2, "")
    assert err == (f"pi-env: error: round 3, event {len(last['events']) - 1}: the engine answers every "
                   f"query correctly: a declared incorrect answer (event 0) cannot be re-run from the seed\n")


# --------------------------------------------------------------------------- incomplete games


def test_incomplete_games_are_said_so(capsys, tmp_path):
    # rotation 1: nobody attempts; the round goes on
    events = [_clue(0, "Pinky", "nothing"), _clue(1, "Doc", "nothing"), _clue(2, "Doc", "trace")]
    s = score_record(load_record(_doc(events)))
    assert s.round_complete == (False,) and not s.complete
    assert s.incomplete == ("round 1 stops before its end (after event 2)", "1 of 3 rounds recorded")
    # player 0 is the only one who has not attempted at the end of rotation 1: round 1 is over
    ended = [_solve(0, P1, False), _solve(1, P1, True), _solve(2, P2, True)]
    s = score_record(load_record(_doc(ended)))
    assert s.round_complete == (True,) and s.incomplete == ("1 of 3 rounds recorded",)
    # stops in the middle of a rotation
    s = score_record(load_record(_doc(ended[:2])))
    assert s.incomplete[0] == "round 1 stops before its end (after event 1)"
    path = tmp_path / "part.json"
    path.write_text(json.dumps(_doc(events)))
    code, out, err = _run(capsys, "replay", path)
    assert code == 0 and err == ""
    assert "Game incomplete: round 1 stops before its end (after event 2); 1 of 3 rounds recorded" in out
    assert "Standings so far:" in out and "Final standings" not in out
    code, out, err = _run(capsys, "replay", path, "--json")
    doc = json.loads(out)
    assert doc["complete"] is False and doc["rounds"][0]["complete"] is False
    assert doc["incomplete"] == ["round 1 stops before its end (after event 2)", "1 of 3 rounds recorded"]


def test_first_edition_round_ends_by_solves():
    ended = [_solve(0, P1, False), _solve(1, P1, True), _solve(2, P2, True)]
    doc = _doc(ended)
    doc["rules"]["edition"] = "first"
    # first edition: players 0 unsolved only... and nobody else: 1 and 2 solved → ends
    assert score_record(load_record(doc)).round_complete == (True,)
    doc["rounds"][0]["events"] = [_solve(0, P1, False), _solve(1, P1, True), _clue(2, "Doc", "trace")]
    assert score_record(load_record(doc)).round_complete == (False,)  # 2 unsolved
    # the same words as the second edition's "had not attempted" (replay, solve and the hints)
    doc["rounds"][0]["events"] = ended + [_clue(0, "Pinky", "nothing")]
    with pytest.raises(RecordError, match=r"^round 1, event 3: the round ended at the end of rotation 1 "
                                          r"\(at most one player had not solved\)$"):
        score_record(load_record(doc))
    from pi_env.solvers.turns import turn_context
    assert turn_context(load_record(_doc(ended) | {"rules": {"players": 3, "edition": "first"}}), 0, 0).finished == (
        "the round is over (at most one player had not solved)")


def test_engine_games_are_complete(tmp_path, capsys):
    path = tmp_path / "g.json"
    assert main(["play", "--players", "4", "--seed", "11", "--record", str(path), "--quiet"]) == 0
    capsys.readouterr()
    record = load_record(path)
    s = score_record(record)
    assert s.complete and all(s.round_complete)
    assert report_json(record, s)["complete"] is True
    code, out, _ = _run(capsys, "replay", path, "--quiet")
    assert "Final standings:" in out and "incomplete" not in out
    # the same record cut after round 1: the game is incomplete
    short = record.prefix(0)
    assert score_record(short).incomplete == ("1 of 3 rounds recorded",)
    cut = record.prefix(1, 3)
    assert score_record(cut).incomplete == ("round 2 stops before its end (after event 3)",
                                            "2 of 3 rounds recorded")


def test_duel_engine_games_are_complete(tmp_path, capsys):
    path = tmp_path / "d.json"
    assert main(["play", "--mode", "duel", "--seed", "3", "--record", str(path), "--quiet"]) == 0
    capsys.readouterr()
    record = load_record(path)
    assert score_record(record).complete
    assert score_record(record.prefix(0, 0)).incomplete[0] == "round 1 stops before its end (after event 0)"


def test_solve_refuses_events_after_a_rounds_end_as_replay_does(capsys, tmp_path):
    # every player attempted in rotation 1: the round is over at its end
    events = [_solve(0, P1, False), _solve(1, P1, True), _solve(2, P2, True), _clue(0, "Pinky", "nothing")]
    path = tmp_path / "after.json"
    path.write_text(json.dumps(_doc(events)))
    message = ("pi-env: error: round 1, event 3: the round ended at the end of rotation 1 (at most one "
               "player had not attempted)\n")
    for argv in (("replay", path), ("solve", path, "--player", 1, "--after-event", 1)):
        code, out, err = _run(capsys, *argv)
        assert (code, out, err) == (2, "", message)


# ------------------------------------------------------------- the tester's findings (issue #15)


def test_a_key_and_its_first_edition_alias_in_one_object_are_an_error():
    """``{"clue": "Doc", "evidence card": "Pop"}`` was read as clue Pop (Doc dropped)."""
    clue = {"player": 0, "clue": "Doc", "evidence card": "Pop", "answer": "trace"}
    assert _reject(_doc([clue])) == "round 1, event 0: duplicate key 'evidence card' (alias of 'clue')"
    clue = {"player": 0, "Evidence Card": "Doc", "card": "Pop", "answer": "trace"}
    assert _reject(_doc([clue])) == ("round 1, event 0: duplicate key 'card' (alias of 'clue', as "
                                     "'Evidence Card' is)")
    doc = _doc()
    doc["rounds"][0]["cases"]["1"] = {"suspect": "Pinky", "crime": "Murder", "evidence": "Murder",
                                      "location": "Lakeside"}
    assert _reject(doc) == "round 1: cases['1']: duplicate key 'crime' (alias of 'evidence')"
    doc = _doc()
    tiles = doc["rounds"][0]["tiles"]
    doc["rounds"][0]["tiles"] = {"crime": tiles["evidence"], **tiles}
    assert _reject(doc) == "round 1: tiles: duplicate key 'crime' (alias of 'evidence')"
    # an alias alone is still the second edition's key
    doc = _doc([{"player": 0, "evidence card": "Pinky", "answer": "nothing"}])
    doc["rounds"][0]["cases"]["1"] = {"suspect": "Pinky", "crime": "Murder", "location": "Lakeside"}
    record = load_record(doc)
    assert record.rounds[0].events[0].element == parse_element("Pinky")


@pytest.mark.parametrize("names, message", [
    (["Ann", "ann", "Cleo"], "players: players 0 and 1 are both called 'Ann' ('ann'); names are matched "
                             "ignoring case, spaces, apostrophes, hyphens and accents, so each player needs a "
                             "different one"),
    (["Ann", "Ben", "Ann"], "players: players 0 and 2 are both called 'Ann'; names are matched ignoring case, "
                            "spaces, apostrophes, hyphens and accents, so each player needs a different one"),
    (["Zoé", "Ben", "Z'oe"], "players: players 0 and 2 are both called 'Zoé' (\"Z'oe\"); names are matched "
                             "ignoring case, spaces, apostrophes, hyphens and accents, so each player needs a "
                             "different one"),
    (["1", "0", "Cleo"], "players: player 0's name '1' reads as player 1's number; a name that is a number may "
                         "only be the player's own number"),
    (["Ann", "Ben", " 7 "], "players: player 2's name ' 7 ' reads as a player number; a name that is a number "
                            "may only be the player's own number"),
])
def test_player_names_must_tell_players_apart(names, message):
    doc = _doc()
    doc["players"] = names
    assert _reject(doc) == message


def test_names_that_are_their_own_numbers_are_fine(capsys, tmp_path):
    doc = _doc()
    doc["players"] = ["0", "Ben", "2"]
    record = load_record(doc)
    assert record.player_names == ("0", "Ben", "2")
    path = tmp_path / "named.json"
    path.write_text(json.dumps(doc))
    code, out, _ = _run(capsys, "solve", path, "--player", "2")
    assert code == 0 and out.startswith("P2 (2), round 1")


def test_a_record_saved_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_doc([_clue(0, "Pinky", "nothing")])).encode())
    assert load_record(path) == load_record(_doc([_clue(0, "Pinky", "nothing")]))


def test_huge_numbers_and_deep_nesting_give_one_clean_line(capsys, tmp_path):
    path = tmp_path / "big.json"
    text = json.dumps(_doc([_clue(0, "Pinky", "nothing")]))
    path.write_text(text.replace('"player": 0', '"player": ' + "9" * 5000))
    assert _run(capsys, "replay", path) == (2, "", (
        f"pi-env: error: {path}: the number 999999999999... has 5000 digits; no value in a record has more "
        f"than 19 (seeds are below 2**63)\n"))
    path.write_text(text.replace('"player": 0', '"player": ' + "1" * 20))
    assert "has 20 digits" in _run(capsys, "replay", path)[2]
    message = (f"pi-env: error: {path}: lists and objects nested more than 16 levels deep; a record nests at "
               f"most 6 (the record, its rounds, a round, its events, an event, its display)\n")
    for depth in (20, 100000):
        path.write_text(text.replace('"board": "daytime"', '"board": ' + "[" * depth + "]" * depth))
        assert _run(capsys, "replay", path) == (2, "", message)
    nested: list = []
    for _ in range(30):
        nested = [nested]
    with pytest.raises(RecordError, match=r"^lists and objects nested more than 16 levels deep"):
        load_record(dict(_doc(), board=nested))


def test_rules_rounds_is_bounded():
    doc = _doc()
    doc["rules"]["rounds"] = 1000000
    assert _reject(doc) == ("rules.rounds: must be at most 100, got 1000000 (default 3; 2 with the 'fast' "
                            "variant; 1 in solo; at most 100, the most rounds pi-env plays in one game (the "
                            "engine's limit, also of a duel's safeguard))")
    doc["rules"]["rounds"] = 100
    assert load_record(doc).rules.rounds == 100
