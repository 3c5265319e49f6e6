"""The pi-env command line (issue #2 item 7): exact outputs and one-line errors."""

import json

import pytest

from pi_env.agents import AGENTS
from pi_env.agents.learned import ZOO_AGENTS
from pi_env.apps.cli import main
from pi_env.records.record_file import load_record
from pi_env.records.report import report_lines
from pi_env.records.scoring import score_record

KNOWN = ", ".join((*AGENTS, *ZOO_AGENTS)) + ", learned:MODEL.pt or sb3:MODEL.zip for a trained policy"  # the agents registered (others may be added)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_is_deterministic_and_replay_prints_the_same_log(capsys, tmp_path):
    path = tmp_path / "game.json"
    code, out1, _ = run(capsys, "play", "--players", "4", "--seed", "7", "--agents",
                        "random,deducer,deducer,random", "--record", str(path))
    assert code == 0
    code, out2, _ = run(capsys, "play", "--players", "4", "--seed", "7", "--agents",
                        "random,deducer,deducer,random")
    assert out1.splitlines()[:-1] == out2.splitlines()  # same game; only the "record written" line differs
    record = load_record(path)
    scores = score_record(record)
    standings = out1.splitlines()[out1.splitlines().index("Final standings:") + 1:-1]
    assert len(standings) == 4
    for line in standings:
        rank, label = line.split()[0], line.split()[1]
        p = int(label[1:])
        assert rank == f"{scores.ranks[p]}."
        assert f"{scores.scores[p]} points" in line
    code, out3, _ = run(capsys, "replay", str(path))
    assert code == 0
    turn_lines = [l for l in out1.splitlines() if l.startswith("  rot")]
    replay_turns = [l for l in out3.splitlines() if l.startswith("  rot")]
    assert len(turn_lines) == sum(len(r.events) for r in record.rounds) == len(replay_turns)
    # the same log, seat labels included (replay printed "P0" where play printed "P0 (random)"):
    # play's lines but its header and "record written", replay's but "record checked"
    assert turn_lines == replay_turns
    assert out3.splitlines()[:-1] == out1.splitlines()[1:-1]
    assert out3.splitlines()[0] == "Round 1 (first player P1 (deducer))"
    assert out3.splitlines()[-1] == "record checked: re-run by the engine from its seed, every answer identical"


def test_solve_takes_the_seat_labels_play_prints(capsys, tmp_path):
    """``pi-env play`` labels the seats of a record without names P0, P1, ... (0-based, the player
    numbers): ``solve --player`` takes those labels (any case) as the numbers (it refused them:
    "give a number"), and a label out of range gets the numbers' one-line error."""
    path = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "--players", "3", "--seed", "5", "--agents", "random,deducer,random",
                       "--record", str(path))
    assert code == 0
    standings = out.splitlines()[out.splitlines().index("Final standings:") + 1:-1]
    assert sorted(line.split()[1] for line in standings) == ["P0", "P1", "P2"]
    assert "P2 (random)" in out and "P1 (deducer)" in out
    for p in range(3):
        code, by_number, err = run(capsys, "solve", str(path), "--player", str(p), "--json")
        assert code == 0 and err == ""
        for label in (f"P{p}", f"p{p}", f" P{p} "):
            assert run(capsys, "solve", str(path), "--player", label, "--json") == (0, by_number, "")
    assert run(capsys, "solve", str(path), "--player", "P3") == (
        2, "", "pi-env: error: player must be 0..2 in this 3-player record, got P3\n")


def test_solve_and_render_take_the_whole_label_play_prints(capsys, tmp_path):
    """``play`` prints ``P2 (random)``; ``solve --player`` and ``render --viewer`` take that whole
    string (the record now names each seat's agent, ``engine.agents``), refuse it in one line when
    the agent in parentheses is not the seat's, and say what to give for a record that names no
    agents. ``solve``'s header labels the seat as ``play`` does."""
    path = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "--players", "3", "--seed", "5", "--agents", "random,deducer,random",
                       "--record", str(path), "--quiet")
    assert code == 0 and "P2 (random)" in out
    assert json.loads(path.read_text())["engine"]["agents"] == ["random", "deducer", "random"]
    assert load_record(path).agents == ("random", "deducer", "random")
    code, by_number, err = run(capsys, "solve", str(path), "--player", "2")
    assert code == 0 and err == ""
    assert by_number.splitlines()[0].endswith("; using only what P2 knows")
    assert by_number.startswith("P2, round ")
    for label in ("P2 (random)", " p2  (Random) ", "P2(random)"):
        assert run(capsys, "solve", str(path), "--player", label) == (0, by_number, "")
    assert run(capsys, "solve", str(path), "--player", "P1 (random)") == (
        2, "", "pi-env: error: player 'P1 (random)': in this record P1 is played by 'deducer', not 'random'\n")
    assert run(capsys, "solve", str(path), "--player", "P3 (random)") == (
        2, "", "pi-env: error: player must be 0..2 in this 3-player record, got P3\n")
    png = tmp_path / "board.png"
    assert run(capsys, "render", str(path), "--round", "1", "--event", "0", "--viewer", "P1 (deducer)",
               "--out", str(png))[0] == 0
    code, out, err = run(capsys, "render", str(path), "--round", "1", "--event", "0", "--viewer",
                         "P0 (deducer)", "--out", str(tmp_path / "other.png"))
    assert (code, out) == (2, "")
    assert err == ("pi-env: error: --viewer: player 'P0 (deducer)': in this record P0 is played by "
                   "'random', not 'deducer'\n")
    doc = json.loads(path.read_text())
    del doc["engine"]["agents"]  # a record that does not say which agent played each seat
    path.write_text(json.dumps(doc))
    assert run(capsys, "solve", str(path), "--player", "P2 (random)") == (
        2, "", "pi-env: error: player 'P2 (random)': this record says neither who nor which agent played "
               "each seat (no player names, no engine.agents); give P2\n")
    doc["players"] = ["Ann", "Ben", "Cleo"]
    path.write_text(json.dumps(doc))
    code, named, _ = run(capsys, "solve", str(path), "--player", "P2 (Cleo)")
    assert code == 0 and named.startswith("P2 (Cleo), round ")
    assert run(capsys, "solve", str(path), "--player", "cleo")[1] == named
    assert run(capsys, "solve", str(path), "--player", "P2 (Ann)") == (
        2, "", "pi-env: error: player 'P2 (Ann)': in this record P2 is named 'Cleo', not 'Ann'\n")


def test_replay_json(capsys, tmp_path):
    path = tmp_path / "g.json"
    run(capsys, "play", "--players", "3", "--seed", "3", "--edition", "first", "--record", str(path), "--quiet")
    code, out, _ = run(capsys, "replay", str(path), "--json")
    doc = json.loads(out)
    record = load_record(path)
    scores = score_record(record)
    assert doc["scores"] == list(scores.scores)
    assert doc["ranks"] == list(scores.ranks)
    assert doc["engine_checked"] is True
    assert [len(r["events"]) for r in doc["rounds"]] == [len(r.events) for r in record.rounds]


def test_record_is_not_overwritten_without_force(capsys, tmp_path):
    path = tmp_path / "g.json"
    path.write_text("precious")
    code, out, err = run(capsys, "play", "--seed", "1", "--record", str(path))
    assert code == 2
    assert err == f"pi-env: error: {path} exists; use --force to overwrite it\n"
    assert path.read_text() == "precious"
    code, _, _ = run(capsys, "play", "--seed", "1", "--record", str(path), "--force", "--quiet")
    assert code == 0 and load_record(path).seed == 1


@pytest.mark.parametrize("argv,message", [
    (["tournament", "--agents", "random,random", "--out", ""],
     "pi-env: error: --out needs a folder name (the tournament's files go there), got ''\n"),
    (["play", "--agents", "random,sherlock,random,random"],
     f"pi-env: error: unknown agent 'sherlock' (known: {KNOWN})\n"),
    (["play", "--agents", "random,deducr,random,random"],
     f"pi-env: error: unknown agent 'deducr'; did you mean 'deducer'? (known: {KNOWN})\n"),
    # a short list repeats to fill the seats (tournament.fill_seats), only when it divides them
    (["play", "--players", "3", "--agents", "random,random"],
     "pi-env: error: 2 agents given for 3 players: list one agent per seat, or a list that repeats to "
     "fill the seats (3 is not a multiple of 2): random,random\n"),
    (["play", "--players", "5", "--agents", "greedy,random,greedy,random"],
     "pi-env: error: 4 agents given for 5 players: list one agent per seat, or a list that repeats to "
     "fill the seats (5 is not a multiple of 4): greedy,random,greedy,random\n"),
    # --players defaults to the list's length; a short list that is meant to repeat needs it (the
    # message said only 'num_players must be 2..5, got 1', a number the user never gave)
    (["tournament", "--agents", "greedy", "--games", "1", "--out", "unused"],
     "pi-env: error: --agents greedy lists 1 agent and --players is not given (it defaults to the "
     "number of agents, 2..5): give --players, e.g. --players 4 to seat greedy 4 times\n"),
    (["tournament", "--agents", "greedy,random,greedy,random,greedy,random", "--games", "1", "--out", "unused"],
     "pi-env: error: --agents greedy,random,greedy,random,greedy,random lists 6 agents and --players is "
     "not given (it defaults to the number of agents, 2..5): at most 5 players sit at a table\n"),
    # play takes the list's length as tournament does (tournament.agent_seats): the same refusals
    (["play", "--agents", "greedy"],
     "pi-env: error: --agents greedy lists 1 agent and --players is not given (it defaults to the "
     "number of agents, 2..5): give --players, e.g. --players 4 to seat greedy 4 times\n"),
    (["play", "--agents", "greedy,random,greedy,random,greedy,random"],
     "pi-env: error: --agents greedy,random,greedy,random,greedy,random lists 6 agents and --players is "
     "not given (it defaults to the number of agents, 2..5): at most 5 players sit at a table\n"),
    # one unknown name is reported as several are, before the seats are counted (it was told
    # "--players is not given", as if the name were fine)
    (["play", "--agents", "list"], f"pi-env: error: unknown agent 'list' (known: {KNOWN})\n"),
    (["play", "--agents", "greedi"], f"pi-env: error: unknown agent 'greedi'; did you mean 'greedy'? (known: {KNOWN})\n"),
    (["play", "--players", "3", "--agents", "random,sherlock"], f"pi-env: error: unknown agent 'sherlock' (known: {KNOWN})\n"),
    (["tournament", "--agents", "list", "--out", "unused"], f"pi-env: error: unknown agent 'list' (known: {KNOWN})\n"),
    (["tournament", "--agents", "Sherlock,random,random,random,random,random", "--out", "unused"],
     f"pi-env: error: unknown agent 'sherlock' (known: {KNOWN})\n"),
    (["play", "--agents", "random,,greedy"], "pi-env: error: an agent name is empty in 'random,,greedy'\n"),
    (["tournament", "--agents", "random,,greedy", "--out", "unused"],
     "pi-env: error: an agent name is empty in 'random,,greedy'\n"),
    (["play", "--mode", "duel", "--agents", "greedy,random,random"],
     "pi-env: error: 3 agents given for 2 players: list one agent per seat, or a list that repeats to "
     "fill the seats (2 is not a multiple of 3): greedy,random,random\n"),
])
def test_play_errors(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err == message and out == ""


@pytest.mark.parametrize("argv,header", [
    (["--players", "4", "--agents", "greedy,random"],
     "P.I. — 4 players, second edition, seed 1, agents greedy, random, greedy, random "
     "(--agents greedy,random repeated to fill 4 seats)"),
    (["--players", "3", "--agents", " greedy "],
     "P.I. — 3 players, second edition, seed 1, agents greedy, greedy, greedy "
     "(--agents greedy repeated to fill 3 seats)"),
    (["--players", "2", "--agents", "random,greedy"],  # a full list: no note
     "P.I. — 2 players, second edition, seed 1, agents random, greedy"),
    # no --players: the list's length, as pi-env tournament (it was 4 and refused 3 agents)
    (["--agents", "greedy,random,random"],
     "P.I. — 3 players, second edition, seed 1, agents greedy, random, random"),
    (["--agents", "greedy, random,random,random,deducer"],
     "P.I. — 5 players, second edition, seed 1, agents greedy, random, random, random, deducer"),
    (["--mode", "duel", "--agents", "greedy"],  # a duel seats 2
     "P.I. — 2 players, duel, seed 1, agents greedy, greedy (--agents greedy repeated to fill 2 seats)"),
    ([], "P.I. — 4 players, second edition, seed 1, agents deducer, deducer, random, random"),
])
def test_play_repeats_a_short_agent_list_and_prints_the_seating(capsys, argv, header):
    """``pi-env play`` fills the seats as ``pi-env tournament`` does (``fill_seats``): the list
    ``greedy,random`` for 4 players seats greedy, random, greedy, random, and the header says so."""
    code, out, err = run(capsys, "play", "--seed", "1", "--quiet", *argv)
    lines = out.splitlines()
    assert code == 0 and lines[0] == header
    seats = header.split(", agents ")[1].split(" (")[0].split(", ")
    end = lines[lines.index("Final standings:") + 1:][:len(seats)]  # a duel adds "Duel won by ..."
    assert sorted(line.split(". ", 1)[1].split("  ")[0].strip() for line in end) == \
        sorted(f"P{i} ({a})" for i, a in enumerate(seats))


@pytest.mark.parametrize("argv,fragment", [
    (["play", "--players", "6"], "pi-env play: error: argument --players: must be 2..5, got 6"),
    (["play", "--players", "x"], "pi-env play: error: argument --players: expected an integer, got 'x'"),
    (["play", "--max-rotations", "99999999999999999999"],
     "pi-env play: error: argument --max-rotations: must be an integer 1..1000, got 99999999999999999999"),
    (["play", "--seed", "-3"], "argument --seed: seed must be an integer 0..2**63-1, got '-3'"),
    (["play", "--seed", "abc"], "argument --seed: seed must be an integer 0..2**63-1, got 'abc'"),
    (["play", "--seed", str(2**64)], f"argument --seed: seed must be an integer 0..2**63-1, got '{2**64}'"),
])
def test_argument_errors_are_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2
    assert err.count("\n") == 1 and fragment in err


@pytest.mark.parametrize("content,fragment", [
    ("{}".encode("utf-8").replace(b"{}", '{"format": "pi-record/1", "players": ["Zoë"]}'.encode("latin-1")),
     "not UTF-8 text"),
    (b'{"format": "pi-record/1", "rounds": [' + b"9" * 5001 + b"]}",
     "the number 999999999999... has 5001 digits; no value in a record has more than 19"),
    (b"[" * 100000 + b"]" * 100000, "lists and objects nested more than 16 levels deep"),
])
def test_undecodable_records_are_one_line_errors(capsys, tmp_path, content, fragment):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    code, out, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.startswith("pi-env: error: ") and fragment in err and err.count("\n") == 1


def test_replay_bad_records(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.startswith("pi-env: error: ") and err.count("\n") == 1
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json" in err and err.count("\n") == 1
    path = tmp_path / "g.json"
    run(capsys, "play", "--players", "3", "--seed", "5", "--record", str(path), "--quiet")
    doc = json.loads(path.read_text())
    doc["rounds"][0]["events"][0]["player"] = 9
    bad.write_text(json.dumps(doc))
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.startswith("pi-env: error: round 1, event 0: ") and err.count("\n") == 1


def test_report_lines_exact_small_record():
    doc = {"format": "pi-record/1", "rules": {"players": 3}, "players": ["Ann", "Ben", "Cleo"],
           "rounds": [{"first_player": 0,
                       "tiles": load_record_tiles(),
                       "events": [{"player": 0, "clue": "Pinky", "answer": "trace"},
                                  {"player": 1, "solve": ["Doc", "Forgery", "Downtown"], "correct": True},
                                  {"player": 2, "investigate": "Skid Row", "spots": 0, "traces": 1},
                                  {"player": 0, "solve": ["Rusty", "Murder", "Lakeside"], "correct": False}]}]}
    rec = load_record(doc)
    lines = report_lines(rec, score_record(rec))
    assert lines == [
        "Round 1 (first player Ann)",
        "  rot  1  Ann   clue Pinky                                       -> trace",
        "  rot  1  Ben   solve Doc / Forgery / Downtown                   -> correct  (+7)",
        "  rot  1  Cleo  investigate Skid Row                             -> 0 spots, 1 trace",
        "  rot  2  Ann   solve Rusty / Murder / Lakeside                  -> wrong  (-2)",
        "Round 1 result so far: Ann -2, Ben +7, Cleo +0",
        # Cleo (not solved) acts next in rotation 2, and a 3-player game has 3 rounds
        "Game incomplete: round 1 stops before its end (after event 3); 1 of 3 rounds recorded",
        "Standings so far:",
        "  1. Ben      7 points",
        "  2. Cleo     0 points",
        "  3. Ann     -2 points",
    ]


def _standings(edition, scores, left, penalty, ranks):
    """The standings lines ``report_lines`` prints for these final figures (ranks worked out by
    hand from docs/rules.md §5) of the 3-seat record of the test above."""
    import dataclasses

    doc = {"format": "pi-record/1", "rules": {"players": 3, "edition": edition}, "players": ["Ann", "Ben", "Cleo"],
           "rounds": [{"first_player": 0, "tiles": load_record_tiles(),
                       "events": [{"player": 0, "clue": "Pinky", "answer": "trace"}]}]}
    from pi_env.engine.ranking import rank_players

    assert rank_players(scores, left, penalty, edition) == ranks  # the hand-worked ranks are the rules'
    rec = load_record(doc)
    s = dataclasses.replace(score_record(rec), scores=scores, investigators_left=left, penalty=penalty,
                            ranks=ranks, incomplete=())
    lines = report_lines(rec, s, turns=False)
    return lines[lines.index("Final standings:") + 1:]


def test_the_tiebreak_note_only_where_it_separated_players():
    """docs/rules.md §5: players of equal score tied also on the tiebreak share the place; their lines
    had "(tiebreak: 5 investigators left)" as if it had decided something. The note is printed for
    the players of a score it separated, and (first edition) the penalty points only where they
    separated players of equal score and tiles."""
    # all three fully tied: no note
    assert _standings("second", (9, 9, 9), (5, 5, 5), (0, 0, 0), (1, 1, 1)) == [
        "  1. Ann      9 points", "  1. Ben      9 points", "  1. Cleo     9 points"]
    # Ann and Cleo tied on points and tiles, Ben alone: still no note
    assert _standings("second", (9, 12, 9), (3, 1, 3), (0, 0, 0), (2, 1, 2)) == [
        "  1. Ben     12 points", "  2. Ann      9 points", "  2. Cleo     9 points"]
    # the tiles separate Cleo from Ann and Ben (who stay tied): the three lines say so
    assert _standings("second", (9, 9, 9), (4, 4, 5), (0, 0, 0), (2, 2, 1)) == [
        "  1. Cleo     9 points  (tiebreak: 5 investigators left)",
        "  2. Ann      9 points  (tiebreak: 4 investigators left)",
        "  2. Ben      9 points  (tiebreak: 4 investigators left)"]
    # the tiles separate Ann from Cleo; Ben's score is his own
    assert _standings("second", (9, 4, 9), (1, 5, 2), (0, 0, 0), (2, 3, 1)) == [
        "  1. Cleo     9 points  (tiebreak: 2 investigators left)",
        "  2. Ann      9 points  (tiebreak: 1 investigator left)",
        "  3. Ben      4 points"]
    # first edition, tiles decide: the penalty points are not what separated them
    assert _standings("first", (9, 9, 0), (2, 3, 5), (2, 0, 0), (2, 1, 3)) == [
        "  1. Ben      9 points  (tiebreak: 3 investigators left)",
        "  2. Ann      9 points  (tiebreak: 2 investigators left)",
        "  3. Cleo     0 points"]
    # first edition, equal tiles, the penalty points decide
    assert _standings("first", (9, 9, 0), (3, 3, 5), (2, 0, 0), (2, 1, 3)) == [
        "  1. Ben      9 points  (tiebreak: 3 investigators left, 0 penalty points)",
        "  2. Ann      9 points  (tiebreak: 3 investigators left, 2 penalty points)",
        "  3. Cleo     0 points"]
    # first edition, equal on all three: shared, no note
    assert _standings("first", (9, 9, 0), (3, 3, 5), (2, 2, 0), (1, 1, 3)) == [
        "  1. Ann      9 points", "  1. Ben      9 points", "  3. Cleo     0 points"]


def load_record_tiles():
    from pi_env.core.board import DAYTIME
    from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES
    sus = list(SUSPECT_NAMES) + [None, None]
    ev = list(EVIDENCE_NAMES) + [None] * 4
    return {"suspect": dict(zip(DAYTIME.districts, sus)), "evidence": dict(zip(DAYTIME.districts, ev))}


def test_replay_rejects_answers_no_deal_fits(capsys, tmp_path):
    """docs/record-format.md: a record whose answers could not have happened is rejected, also when it holds no
    case (the solver finds a smallest set of events that cannot all hold)."""
    from pi_env.solvers import ContradictionError, analyze

    path = tmp_path / "g.json"
    run(capsys, "play", "--players", "3", "--seed", "3", "--agents", "deducer,deducer,deducer",
        "--record", str(path), "--quiet")
    doc = json.loads(path.read_text())
    doc.pop("engine")
    for rnd in doc["rounds"]:
        rnd.pop("cases")
        rnd.pop("display")
    events = doc["rounds"][0]["events"]
    # two players cannot both have a spot on the same element: cases are disjoint (docs/rules.md §3)
    i = next(i for i, ev in enumerate(events) if ev.get("answer") == "spot")
    j = next(j for j, ev in enumerate(events) if "clue" in ev and ev["player"] != events[i]["player"])
    events[j] = {"player": events[j]["player"], "clue": events[i]["clue"], "answer": "spot"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, out, err = run(capsys, "replay", str(bad))
    assert code == 2 and out == ""
    assert err.startswith("pi-env: error: round 1: the answers cannot all be true") and err.count("\n") == 1
    with pytest.raises(ContradictionError) as exc:
        analyze(str(bad), 0, round_index=0)
    assert len(exc.value.events) == 2  # a smallest conflict: two spots on one element (or an equivalent pair)
    assert err.rstrip().endswith(f"events {', '.join(map(str, exc.value.events))}")


def test_solve_and_render_name_the_position_alike(capsys, tmp_path):
    """``solve --after-event`` and ``render --event`` named the same position differently; both
    commands take both spellings (``--after-event`` documented, ``--event`` its alias, both in
    ``--help``), with the same meaning and the same refusal of an event out of range."""
    path = tmp_path / "game.json"
    assert run(capsys, "play", "--players", "3", "--seed", "4", "--agents", "random",
               "--quiet", "--record", str(path))[0] == 0
    n = len(load_record(path).rounds[0].events)
    for e in ("-1", "2"):
        after = run(capsys, "solve", str(path), "--player", "1", "--round", "1", "--after-event", e, "--json")
        alias = run(capsys, "solve", str(path), "--player", "1", "--round", "1", "--event", e, "--json")
        assert after[0] == 0 and after == alias
        assert json.loads(after[1])["after_event"] == int(e)
        pictures = []
        for option in ("--after-event", "--event"):
            png = tmp_path / f"{option.strip('-')}{e}.png"
            assert run(capsys, "render", str(path), "--round", "1", option, e, "--out", str(png)) == (
                0, f"picture written to {png}\n", "")
            pictures.append(png.read_bytes())
        assert pictures[0] == pictures[1]
    refusal = f"pi-env: error: --after-event must be -1..{n - 1} (round 1 has {n} events), got {n}\n"
    for option in ("--after-event", "--event"):
        assert run(capsys, "solve", str(path), "--player", "1", "--round", "1", option, str(n)) == (2, "", refusal)
        assert run(capsys, "render", str(path), "--round", "1", option, str(n), "--out",
                   str(tmp_path / "x.png")) == (2, "", refusal)
    assert run(capsys, "render", str(path), "--round", "9", "--out", str(tmp_path / "x.png")) == (
        2, "", "pi-env: error: --round must be 1..3 (the record has 3 rounds), got 9\n")
    for command in ("solve", "render"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--after-event E, --event E" in capsys.readouterr().out


def test_the_zoo_names_every_shipped_model_once():
    """Help texts and the unknown-agent error print :data:`ZOO_AGENTS`: the shipped models, by hand."""
    assert ZOO_AGENTS == ("learned:2p", "learned:3p", "learned:4p", "learned:5p", "learned:solo")
    from pi_env.agents.learned import ZOO_PLAYER_AGENTS

    assert ZOO_PLAYER_AGENTS == ("learned:2p", "learned:3p", "learned:4p", "learned:5p")


def test_a_zoo_model_is_named_with_or_without_its_agent_prefix(tmp_path):
    """``model_path`` (every command that takes a model: ``--init``, ``--policy``, agents) reads
    ``4p``, ``learned:4p`` and `` Learned:4p `` as the same zoo file; a path likewise; the prefix
    alone is the empty name."""
    from pi_env.agents.learned import ZOO, model_path
    from pi_env.core.errors import UnknownNameError

    for name in ZOO:
        assert model_path(f"learned:{name}") == model_path(name) == model_path(f" Learned:{name} ")
        assert model_path(name).name == ZOO[name]
    f = tmp_path / "m.pt"
    f.write_bytes(b"")
    assert model_path(f"learned:{f}") == model_path(str(f)) == f
    with pytest.raises(UnknownNameError, match="^learned model name is empty"):
        model_path("learned:")
    with pytest.raises(UnknownNameError, match="^unknown learned model 'learned:4p': not a zoo name"):
        model_path("learned:learned:4p")  # the prefix is dropped once
    named = tmp_path / "learned:x.pt"  # a file whose name starts like the prefix is that file
    named.write_bytes(b"")
    assert model_path(str(named)) == named
