"""``pi-env solve`` (issue #3 item 6): exact answers on the solver fixtures, top-k, JSON keys, the
position facts of the hint (tier, investigators, display) and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pi_env.apps.cli import main
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.records.record_file import load_record
from pi_env.records.recorder import Recorder
from pi_env.records.scoring import score_record
from pi_env.solvers.solve_report import (display_at, investigators_left_at, next_turn_tier, solve_report,
                                         solve_report_lines)

from helpers import SOLVER_FIXTURES as FIXTURES
from helpers import fixture_players

RECORDS = sorted(FIXTURES.glob("*.record.json"))
RECORD = FIXTURES / "5p_seed300.record.json"


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, "solve", *argv, "--json")
    assert code == 0 and err == ""
    return json.loads(out)


def fixture_report(path, player, after_event=None, top=10) -> dict:
    """The solver fixtures come from random legal play that goes on after a round's end, which
    ``pi-env solve`` refuses (as ``replay``): their exact answers are checked through the library
    with ``strict=False``, which reads such positions (the JSON is the one ``solve --json`` prints)."""
    return json.loads(json.dumps(solve_report(path, player, 0, after_event, top, strict=False)))


@pytest.mark.parametrize("path,player", list(fixture_players(RECORDS)))
def test_fixture_answers_exactly(capsys, path: Path, player: int) -> None:
    want = json.loads(path.with_name(path.name.replace(".record.json", ".expected.json")).read_text())[str(player)]
    doc = fixture_report(path, player, top=0)
    assert doc["count"] == want["count"] and doc["own_count"] == want["own_count"]
    assert len(doc["cases"]) == len(want["cases"])
    for got, exp in zip(doc["cases"], want["cases"]):  # same order: probability, then names
        assert (got["suspect"], got["evidence"], got["location"]) == (exp["suspect"], exp["evidence"], exp["location"])
        assert got["probability"] == pytest.approx(exp["probability"], abs=1e-12, rel=0)
    for t in ("suspect", "evidence", "location"):
        assert sum(doc["marginals"][t].values()) == pytest.approx(1.0)
    h = doc["hint"]
    assert h["p_correct"] == pytest.approx(want["cases"][0]["probability"], abs=1e-12, rel=0)
    assert h["best_case"]["suspect"] == want["cases"][0]["suspect"]


def test_the_command_refuses_the_fixtures_events_after_a_rounds_end(capsys) -> None:
    # 3 players: players 0 and 2 attempted in rotation 3 (events 6, 8), so it ended the round
    code, out, err = run(capsys, "solve", FIXTURES / "3p_seed101.record.json", "--player", 0)
    assert (code, out) == (2, "")
    assert err == ("pi-env: error: round 1, event 9: the round ended at the end of rotation 3 (at most one "
                   "player had not attempted)\n")


def test_json_keys_and_top_k(capsys) -> None:
    doc = fixture_report(RECORD, 2, 10)
    for key in ("count", "own_count", "cases", "marginals", "certain", "hint"):
        assert key in doc
    assert doc["count"] > 10 and len(doc["cases"]) == 10  # default --top 10
    assert set(doc["cases"][0]) == {"suspect", "evidence", "location", "probability"}
    probs = [c["probability"] for c in doc["cases"]]
    assert probs == sorted(probs, reverse=True)
    assert set(doc["certain"]) == {"suspect", "evidence", "location"}
    for key in ("p_correct", "expected_points", "solve_now", "best_action", "best_gain_bits", "gains",
                "expected_remaining_actions", "tier", "points"):
        assert key in doc["hint"]
    h = doc["hint"]
    assert h["expected_points"] == pytest.approx(h["p_correct"] * h["points"] - (1 - h["p_correct"]) * 2)
    assert h["best_gain_bits"] == max(g["bits"] for g in h["gains"])
    assert len(fixture_report(RECORD, 2, 10, top=3)["cases"]) == 3
    everything = fixture_report(RECORD, 2, 10, top=0)
    assert len(everything["cases"]) == everything["count"]
    assert everything["cases"][:10] == doc["cases"]
    # human-readable form lists the same number of cases
    out = "\n".join(solve_report_lines(fixture_report(RECORD, 2, 10, top=3))) + "\n"
    assert sum(1 for line in out.splitlines() if line[:6].strip().rstrip(".").isdigit()) == 3
    assert f"Consistent cases: {doc['count']} jointly" in out
    assert "best query:" in out and "expected points" in out
    # before any event: everything is possible except the held case's elements
    start = fixture_report(RECORD, 0, -1)
    assert start["count"] == start["own_count"] == 11 * 9 * 13


def test_only_what_the_player_knows(capsys, tmp_path) -> None:
    doc = json.loads(RECORD.read_text())
    n = doc["rules"]["players"]
    for p in range(n):
        held = str((p + 1) % n)
        stripped = json.loads(RECORD.read_text())
        for rnd in stripped["rounds"]:
            rnd["cases"] = {held: rnd["cases"][held]}
        path = tmp_path / f"only{p}.json"
        path.write_text(json.dumps(stripped))
        full, only = fixture_report(RECORD, p), fixture_report(path, p)
        # the report says which cases the record gives; nothing else may differ
        assert only["cases_given"] == [int(held)] and full["cases_given"] == list(range(n))
        for doc in (full, only):
            doc.pop("cases_given")
        assert full == only


def _bad(capsys, *argv) -> str:
    code, out, err = run(capsys, "solve", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("pi-env")
    return err


def test_errors_are_one_line(capsys, tmp_path) -> None:
    assert _bad(capsys, RECORD, "--player", 5) == "pi-env: error: player must be 0..4 in this 5-player record, got 5\n"
    assert "player must be 0..4" in _bad(capsys, RECORD, "--player", -1)
    assert _bad(capsys, RECORD, "--player", "two") == (
        "pi-env: error: player 'two': this record names no players; give a number 0..4 or a seat label P0..P4\n")
    assert "--player" in _bad(capsys, RECORD)
    assert _bad(capsys, RECORD, "--player", 1, "--after-event", 40) == (
        "pi-env: error: --after-event must be -1..39 (round 1 has 40 events), got 40\n")
    assert "--after-event must be" in _bad(capsys, RECORD, "--player", 1, "--after-event", -2)
    assert "--round must be 1..1" in _bad(capsys, RECORD, "--player", 1, "--round", 2)
    assert "--top must be >= 0" in _bad(capsys, RECORD, "--player", 1, "--top", -1)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "pi-record/1", "rounds": [')
    assert "not valid JSON" in _bad(capsys, broken, "--player", 0)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "pi-record/1", "rounds": [{"first_player": 0}]}))
    assert _bad(capsys, wrong, "--player", 0) == "pi-env: error: rounds[0]: missing key 'tiles'\n"
    assert "No such file" in _bad(capsys, tmp_path / "missing.json", "--player", 0)


def test_contradiction_is_reported_and_exits_2(capsys, tmp_path) -> None:
    doc = json.loads(RECORD.read_text())
    rnd = doc["rounds"][0]
    rnd.pop("cases")
    rnd.pop("display", None)
    suspect = rnd["tiles"]["suspect"]["Lakeside"] or "Doc"
    rnd["events"] = [{"player": 0, "clue": suspect, "answer": "spot"},
                     {"player": 1, "clue": suspect, "answer": "spot"}]
    path = tmp_path / "contradiction.json"
    path.write_text(json.dumps(doc))
    code, text, err = run(capsys, "solve", path, "--player", 3, "--json")
    out = json.loads(text)
    assert out["count"] == 0 and out["cases"] == [] and out["conflict"] == [0, 1]
    message = ("pi-env: error: round 1: the answers cannot all be true (no deal of the cases fits them): "
               "events 0, 1\n")
    assert (code, err) == (2, message)
    code, text, err = run(capsys, "solve", path, "--player", 3)
    assert (code, err) == (2, message) and "these cannot all hold: events 0, 1" in text
    code, _, err = run(capsys, "replay", path)  # the same words and status as replay
    assert (code, err) == (2, message)


def test_duel_investigators_left_match_the_engine() -> None:
    """In a duel the investigators left computed from a record follow docs/rules.md §7 as the engine
    does: before each later round 2 more, 1 for the previous round's winner, at most 5 (a game of
    two deducers, seed 32: player 0 wins rounds 1 and 2 and, with none left after round 1, starts
    round 2 with 1 tile, player 1 with 2)."""
    from pi_env.agents import make_agent
    config = GameConfig(mode="duel")
    state = init(config, 1, seed=32)
    bots = [make_agent("deducer") for _ in range(2)]
    for i, b in enumerate(bots):
        b.reset(2, config.board, seed=32 + i)
    rec = Recorder(config, state, 32)
    positions = []
    while not state.done[0]:
        p = int(state.current_player[0])
        r = int(state.round[0])
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        positions.append((p, r, len(rec.record().rounds[r].events) - 1, [int(v) for v in state.inv_left[0]]))
        step_inplace(state, np.array([bots[p].act(obs, mask)]), config)
        rec.after_step(state)
    record = rec.record()
    starts = {r: left for _, r, e, left in positions if e == -1}
    assert score_record(record).round_winners == (0, 0, -1) and starts[1] == [1, 2]
    for p, r, after, left in positions:
        assert [investigators_left_at(record, q, r, after) for q in range(2)] == left


@pytest.mark.parametrize("players,seed", [(3, 21), (4, 22), (5, 23)])
def test_position_facts_match_the_engine(players: int, seed: int) -> None:
    """Tier, investigators left and display computed from a record equal the engine's state
    whenever the player is about to act; the legal clue and investigator actions then equal the
    hint's candidates."""
    from pi_env.agents import make_agent
    from pi_env.solvers import hint, knowledge_of
    config = GameConfig(num_players=players)
    state = init(config, 1, seed=seed)
    bots = [make_agent("deducer" if i % 2 else "random") for i in range(players)]
    for i, b in enumerate(bots):
        b.reset(players, config.board, seed=seed + i)
    rec = Recorder(config, state, seed)
    positions = []
    while not state.done[0]:
        p = int(state.current_player[0])
        r = int(state.round[0])
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        positions.append((p, r, len(rec.record().rounds[r].events) - 1, int(state.tier[0]),
                          int(state.inv_left[0, p]), mask.copy()))
        step_inplace(state, np.array([bots[p].act(obs, mask)]), config)
        rec.after_step(state)
    record = rec.record()
    for i, (p, r, after, tier, inv_left, mask) in enumerate(positions):
        assert next_turn_tier(record, p, r, after) == tier
        assert investigators_left_at(record, p, r, after) == inv_left
        if i % 5 == 0:
            display = display_at(record, r, after)
            legal_clues = set(np.flatnonzero(mask[:INVESTIGATE_BASE]).tolist())
            assert set(display) == legal_clues
            from pi_env.solvers.solve_report import solve_report
            doc = solve_report(record, p, r, after)
            got = {g["id"] for g in doc["hint"]["gains"]}
            assert got == set(np.flatnonzero(mask[:SOLVE_BASE]).tolist())
            assert doc["hint"]["candidates"] == "display"
            h = hint(knowledge_of(record, p, r, after), mask, tier=tier, round_index=r,
                     investigators_left=inv_left)
            assert h.expected_remaining_actions == pytest.approx(doc["hint"]["expected_remaining_actions"])


def test_solve_on_a_played_record(capsys, tmp_path) -> None:
    path = tmp_path / "game.json"
    code, _, _ = run(capsys, "play", "--players", "4", "--seed", "5", "--record", path, "--quiet")
    assert code == 0
    record = load_record(path)
    last = len(record.rounds) - 1
    doc = solve_json(capsys, path, "--player", 1, "--round", last + 1, "--after-event", 3)
    assert doc["round"] == last + 1 and doc["events_used"] == 4
    assert doc["hint"]["candidates"] == "display"
    truth = record.rounds[last].cases[1]
    names = [(c["suspect"], c["evidence"], c["location"]) for c in
             solve_json(capsys, path, "--player", 1, "--round", last + 1, "--top", 0)["cases"]]
    from pi_env.core.actions import case_name
    assert tuple(case_name(truth, record.board).split(" / ")) in names


def test_solved_player_gets_no_hint(tmp_path, capsys):
    """A player who solved takes no more turns this round (docs/rules.md §4.3): no hint is printed."""
    from pi_env.apps.cli import main
    from pi_env.records.record_file import load_record

    path = tmp_path / "g.json"
    assert main(["play", "--players", "3", "--seed", "3", "--agents", "deducer,deducer,deducer",
                 "--record", str(path), "--quiet"]) == 0
    capsys.readouterr()
    rnd = load_record(path).rounds[0]
    solver = next(ev.player for ev in rnd.events if ev.kind == "solve" and ev.correct)
    assert main(["solve", str(path), "--player", str(solver)]) == 0
    out = capsys.readouterr().out
    assert f"\nP{solver} has already solved its case this round.\n" in out
    assert "Hint" not in out and "recommendation" not in out


def test_narrow_console_encoding_degrades_instead_of_failing(tmp_path, capsys):
    # a cp1252 console cannot show '−' (U+2212): the report prints '?' there and exits 0
    import os
    import subprocess
    import sys

    record = tmp_path / "game.json"
    assert main(["play", "--players", "4", "--seed", "5", "--record", str(record), "--quiet"]) == 0
    capsys.readouterr()
    argv = [sys.executable, "-m", "pi_env.apps.cli", "solve", str(record), "--player", "1", "--after-event", "3"]
    env = dict(os.environ, PYTHONIOENCODING="cp1252")
    proc = subprocess.run(argv, capture_output=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode("cp1252", "replace")
    utf8 = subprocess.run(argv, capture_output=True, timeout=300).stdout.decode("utf-8")
    assert "\u2212" in utf8
    assert proc.stdout.decode("cp1252") == utf8.encode("cp1252", "replace").decode("cp1252")


def test_the_hint_explains_a_gain_cut_by_the_score_cap(tmp_path, capsys):
    """docs/rules.md §5: a second-edition score stops at 21. Seed 2 of greedy against greedy: player 0
    starts round 3 with 15 points, where a correct solve at tier 0 is worth 7 + 2 = 9 but gains 6; the
    hint's formula uses 6 and a line says why (a new user read '0.000777·6' as a mistake)."""
    path = tmp_path / "g.json"
    assert main(["play", "--players", "2", "--seed", "2", "--agents", "greedy,greedy", "--record", str(path),
                 "--quiet"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "solve", path, "--player", 0, "--round", 3, "--after-event", -1)
    assert code == 0
    lines = out.splitlines()
    i = lines.index("Hint (tier 0: a correct solve now scores 9; score 15):")
    assert "·6 − " in lines[i + 1]
    assert lines[i + 2] == "  (a correct solve gains 6, not 9: score 15, and scores stop at 21)"
    assert lines[i + 3].startswith("  recommendation: ")
