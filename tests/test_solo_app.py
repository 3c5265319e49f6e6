"""The terminal game ``pi-env solo play`` (issue 5 items 3 and 5), driven through its input as a
person would: scripted lines, a fake clock that advances 10 s per line typed, exact output lines.

Seed 7's case is Shorty / Murder / China Town (``generate(7)``); the layout puts Earl in Little
Italy, Pinky in Downtown, Shorty in Lakeside."""

from __future__ import annotations

import datetime as dt
import io
import json

import numpy as np
import pytest

from pi_env.core.actions import case_name
from pi_env.apps.cli import main
from pi_env.core.errors import RecordError
from pi_env.apps.leaderboard import Leaderboard
from pi_env.records.recorder import replay_with_engine
from pi_env.records.start import solo_record_start
from pi_env.records.record_file import load_record, record_to_dict, write_record
from pi_env.apps.solo_app import (HELP, SAVE_FORMAT, SaveError, SoloApp, SoloGame, format_time, game_from_case_file,
                             game_from_seed)
from pi_env.apps.solo_cases import generate, write_case

NOW = dt.datetime(2024, 5, 1, 10, 0, tzinfo=dt.timezone.utc)


class Person:
    """Types the scripted lines one by one (10 s each), then closes the input (Ctrl-D)."""

    def __init__(self, lines, start=0.0):
        self.lines = list(lines)
        self.t = start
        self.prompts: list[str] = []

    def input(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        self.t += 10
        line = self.lines.pop(0)
        if line is KeyboardInterrupt:
            raise KeyboardInterrupt
        return line

    def clock(self) -> float:
        return self.t


def play(tmp_path, lines, *, games=False, name=None, db=None, **run):
    person = Person(lines)
    out: list[str] = []
    app = SoloApp(person.input, out.append, person.clock, db_path=db or tmp_path / "lb.sqlite3",
                  save_path=tmp_path / "save" / "solo-game.json",
                  games_dir=(tmp_path / "games") if games else False, name=name, now=lambda: NOW)
    assert app.run(**run) == 0
    return out, person


def in_order(lines, expected):
    """Every expected line appears, exactly, in this order."""
    i = 0
    for want in expected:
        while i < len(lines) and lines[i] != want:
            i += 1
        assert i < len(lines), f"missing (in order): {want!r}\n--- output ---\n" + "\n".join(lines)
        i += 1


def test_a_whole_game_typo_illegal_hint_solve(tmp_path):
    out, person = play(tmp_path, ["clue Pinkie", "investigate Little Italy", "investigate little italy",
                                  "hint", "frobnicate", "solve Doc / Forgery / Downtown",
                                  "solve shorty murder china town", "Ann"], seed=7)
    in_order(out, [
        "P.I. Solo Time Attack: seed 7, medium (the reference solver needs 6 actions)",
        "  District         Suspect   Evidence           Location  Investigator",
        "  Lakeside         Shorty    -                  .",
        "  Little Italy     Earl      Smuggling          .",
        "Actions 0 | investigators left 5 of 5 | wrong solves 0 | time 0:00",
        "Unknown suspect, evidence or location 'Pinkie'; did you mean 'Pinky'? Nothing was played.",
        "  Little Italy     Earl      Smuggling          .         0S 2T",
        "Investigator in Little Italy: 0 spots, 2 traces.",
        "Actions 1 | investigators left 4 of 5 | wrong solves 0 | time 0:20",
        "You already have an investigator in Little Italy: one per district (docs/rules.md §4.2). Nothing was played.",
        "Hint: 155 cases fit what you know.",
        "Best next query: investigate Trocadero (2.86 bits of information).",
        "The reference solver expects 4.9 more actions from here.",
        "I cannot read 'frobnicate'. Type 'help' for the commands.",
        "Wrong solves: Doc / Forgery / Downtown",
        "Doc / Forgery / Downtown: wrong. At least one of the three is not the case's.",
        "Actions 2 | investigators left 4 of 5 | wrong solves 1 | time 1:00",
        "Shorty / Murder / China Town: correct!",
        "Solved in 3 actions: 1 investigator tile, 1 wrong solve, 1:10, 1 hint.",
        "The reference greedy solver needs 6 actions on this case.",
        "Leaderboard for seed 7 (5 investigators): you are 1st of 1.",
        "  #  name  actions  investigators  wrong  time  hints  finished",
        "  1  Ann   3        1              1      1:10  1      2024-05-01 10:00",
    ])
    assert person.prompts[-1].startswith("Name for the leaderboard [")
    assert not (tmp_path / "save" / "solo-game.json").exists()  # finished: nothing to resume
    (e,) = Leaderboard(tmp_path / "lb.sqlite3").results(7, 5)
    assert (e.name, e.actions, e.used, e.wrong, e.seconds, e.hints) == ("Ann", 3, 1, 1, 70.0, 1)
    assert e.finished_at == "2024-05-01T10:00:00+00:00"


def test_answers_in_words_and_markers_on_the_board(tmp_path):
    out, _ = play(tmp_path, ["clue Shorty", "clue pinky", "evidence card Forgery", "clue ricks cafe",
                             "clue Shorty"], name="Ann", seed=7)
    in_order(out, [
        "  Lakeside         Shorty [spot]  -                  .",
        "Shorty: spot. Shorty is the case's suspect.",
        "Pinky: nothing. The case's suspect is not Pinky and not next to Downtown (where Pinky is).",
        "Forgery: nothing. The case's evidence is not Forgery and not next to Skid Row (where Forgery is).",
        "Rick's Café: nothing. The case's location is not Rick's Café and not next to Rick's Café.",
        "You already asked about Shorty: spot. Asking again would cost an action and tell nothing; not played.",
    ])
    assert "  Downtown         Pinky [nothing]  Kidnapping         .         " not in out  # no trailing blanks
    assert any(line.startswith("  Rick's Café      Doc") and line.endswith("[nothing]") for line in out)


def test_no_investigator_left_and_repeated_wrong_solve(tmp_path):
    out, _ = play(tmp_path, ["investigate Lakeside", "investigate Skid Row", "solve Doc, Murder, Lakeside",
                             "solve doc murder lakeside", "solve Shorty Mob Killing China Town",
                             "solve Shorty Murder Chinatown"], name="Bo", seed=7, investigators=1)
    in_order(out, [
        "Actions 0 | investigators left 1 of 1 | wrong solves 0 | time 0:00",
        "Investigator in Lakeside: 1 spot, 1 trace.",
        "You have no investigator tiles left (you started with 1). Nothing was played.",
        "Doc / Murder / Lakeside: wrong. At least one of the three is not the case's.",
        "You already named Doc / Murder / Lakeside: it is wrong. Not played.",
        "Shorty / Mob Killing / China Town: wrong. At least one of the three is not the case's.",
        "Solved in 4 actions: 1 investigator tile, 2 wrong solves, 1:00.",
        "Leaderboard for seed 7 (1 investigator): you are 1st of 1.",
    ])


def test_malformed_queries_keep_the_game_going(tmp_path):
    out, _ = play(tmp_path, ["", "solve Doc", "investigate Atlantis", "clue", "solve Doc Murder Lakesid",
                             "help", "board", "solve Shorty / Murder / China Town"], name="Cy", seed=7)
    in_order(out, [
        "Cannot split 'Doc' into suspect, evidence and location. Nothing was played.",
        "Unknown location 'Atlantis'. Nothing was played.",
        "Cannot read action 'clue': expected 'clue NAME', 'investigate DISTRICT' or "
        "'solve SUSPECT / EVIDENCE / LOCATION'. Nothing was played.",
        "Cannot split 'Doc Murder Lakesid' into suspect, evidence and location. Nothing was played.",
        "Commands (one per line):",
        "  District         Suspect   Evidence           Location  Investigator",
        "Actions 0 | investigators left 5 of 5 | wrong solves 0 | time 1:10",
        "Solved in 1 action: 0 investigator tiles, 0 wrong solves, 1:20.",
    ])


def test_interrupted_game_is_saved_and_resumed(tmp_path):
    save = tmp_path / "save" / "solo-game.json"
    # Ctrl-D after two actions and a hint
    out, _ = play(tmp_path, ["clue Pinky", "investigate Downtown", "hint"], seed=7)
    assert out[-1] == ("Game saved (Actions 2 | investigators left 4 of 5 | wrong solves 0 | time 0:30). "
                       "Continue with: pi-env solo play --resume")
    doc = json.loads(save.read_text())
    assert doc == {"format": SAVE_FORMAT, "seed": 7, "date": None, "investigators": 5,
                   "actions": ["clue Pinky", "investigate Downtown"], "elapsed": 30.0, "hints": 1,
                   "source": "seed 7"}
    # Ctrl-C at the next prompt of a resumed game: still nothing lost
    out, _ = play(tmp_path, ["clue Doc", KeyboardInterrupt], resume=True)
    in_order(out, ["Resuming after 2 actions.",
                   "Actions 2 | investigators left 4 of 5 | wrong solves 0 | time 0:30",
                   "Actions 3 | investigators left 4 of 5 | wrong solves 0 | time 0:40",
                   "Game saved (Actions 3 | investigators left 4 of 5 | wrong solves 0 | time 0:50). "
                   "Continue with: pi-env solo play --resume"])
    # a plain start offers to resume; the time and the hint carry over
    out, person = play(tmp_path, ["", "solve Shorty Murder China Town"], name="Di")
    assert person.prompts[0] == "You have a game in progress (seed 7, 3 actions, 0:50). Resume it? [Y/n] "
    # (the time spent answering the resume question is not counted)
    in_order(out, ["Solved in 4 actions: 1 investigator tile, 0 wrong solves, 1:00, 1 hint."])
    assert not save.exists()


def test_declining_to_resume_starts_the_new_game(tmp_path):
    play(tmp_path, ["clue Pinky"], seed=7)
    out, _ = play(tmp_path, ["n", "quit"], seed=8)
    in_order(out, ["The game in progress (seed 7) was discarded.", "P.I. Solo Time Attack: seed 8, medium "
                   "(the reference solver needs 7 actions)"])
    assert json.loads((tmp_path / "save" / "solo-game.json").read_text())["seed"] == 8


def test_declining_with_a_bad_case_file_keeps_the_saved_game(tmp_path):
    play(tmp_path, ["clue Pinky"], seed=7)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(SaveError):
        play(tmp_path, ["n"], case_file=bad)
    assert json.loads((tmp_path / "save" / "solo-game.json").read_text())["actions"] == ["clue Pinky"]


def test_resume_without_a_saved_game(tmp_path):
    out, _ = play(tmp_path, [], resume=True, seed=7)
    assert out[0] == "There is no game in progress to resume; starting a new game."


@pytest.mark.parametrize("content", ["{not json", '{"format": "pi-solo-save/1", "seed": -3}',
                                     '{"format": "pi-solo-save/1", "seed": 7, "actions": ["clue Pinky", "clue Atlantis"]}',
                                     '{"format": "something else"}', "[1, 2]",
                                     '{"format": "pi-solo-save/1", "seed": null, "tile_district": [1, 2]}',
                                     '{"format": "pi-solo-save/1", "seed": 7, "elapsed": "soon"}'])
def test_unreadable_saved_game_is_reported_and_kept(tmp_path, content):
    save = tmp_path / "save" / "solo-game.json"
    save.parent.mkdir(parents=True)
    save.write_text(content)
    out, _ = play(tmp_path, ["quit"], seed=7)
    aside = save.with_name("solo-game.json.unreadable")
    assert out[0].startswith(f"The saved game {save} cannot be read (")
    assert out[0].endswith(f"); it was kept as {aside}. Starting a new game.")
    assert aside.read_text() == content
    assert json.loads(save.read_text())["seed"] == 7


def test_corrupt_leaderboard_is_reported_and_the_result_kept(tmp_path):
    db = tmp_path / "lb.sqlite3"
    db.write_bytes(b"definitely not SQLite\n")
    out, _ = play(tmp_path, ["solve Shorty / Murder / China Town"], name="Ed", db=db, seed=7)
    pending = tmp_path / "save" / "pending-results.jsonl"
    msg = f"leaderboard {db}: is not a SQLite database; the file was left as it is"
    assert out[0] == f"Warning: {msg}. Your results will be kept in {pending}."
    assert out[-1] == f"Leaderboard unavailable: {msg}; your result was kept in {pending}."
    assert db.read_bytes() == b"definitely not SQLite\n"
    kept = json.loads(pending.read_text())
    assert (kept["name"], kept["actions"], kept["seed"], kept["seconds"]) == ("Ed", 1, 7, 10.0)


def test_daily_case_and_rank_among_others(tmp_path):
    lines = ["solve Doc Murder Lakeside", "solve Doc Murder Lakeside"]
    g = game_from_seed(0, date="2024-05-01")
    answer = "solve " + case_name(g.case)
    for who in ("Fay", "Gus"):
        play(tmp_path, [answer], name=who, date="2024-05-01")
    out, _ = play(tmp_path, ["clue Doc", answer], name="Hal", date="2024-05-01")
    in_order(out, ["P.I. Solo Time Attack: daily case 2024-05-01, " + f"{g.difficulty} (the reference solver "
                   f"needs {g.greedy_actions} actions)",
                   "Leaderboard for daily case 2024-05-01, medium (5 investigators): you are 3rd of 3.",
                   "  1  Fay   1        0              0      0:10  0      2024-05-01 10:00",
                   "  1  Gus   1        0              0      0:10  0      2024-05-01 10:00",
                   "  3  Hal   2        0              0      0:20  0      2024-05-01 10:00"])
    assert lines  # (wrong solves of Doc/Murder/Lakeside are covered elsewhere)


def test_case_file_game_and_its_record_replays(tmp_path):
    case_path, _ = write_case(generate(7), tmp_path / "case.json")
    out, _ = play(tmp_path, ["investigate Lakeside", "solve Shorty Murder China Town"], name="Ivy", games=True,
                  case_file=case_path)
    assert out[0] == "P.I. Solo Time Attack: case file case.json, medium (the reference solver needs 6 actions)"
    in_order(out, ["Leaderboard for seed 7 (5 investigators): you are 1st of 1."])
    (record_path,) = (tmp_path / "games").glob("solo-seed7-20240501-100000.json")
    assert out[-1] == f"Game record: {record_path} (replay it with: pi-env replay {record_path})"
    record = load_record(record_path)
    assert [ev.kind for ev in record.rounds[0].events] == ["investigate", "solve"]
    assert "max_rotations" not in json.loads(record_path.read_text())["engine"]
    state = replay_with_engine(record)
    assert bool(state.solved[0]) and int(state.actions[0]) == 2


@pytest.mark.parametrize("content, why", [
    ("{oops", "not valid JSON"),
    (None, "not a solo case (rules.mode is 'standard'"),
    ("missing-case", "it does not hold the case"),
])
def test_malformed_case_files(tmp_path, content, why):
    path = tmp_path / "bad.json"
    doc = record_to_dict(load_record(write_case(generate(7), tmp_path / "ok.json")[0]))
    if content is None:
        doc["rules"].update(mode="standard", players=4, investigators=[5, 5, 5, 5])
        path.write_text(json.dumps(doc))
    elif content == "missing-case":
        del doc["rounds"][0]["cases"]
        path.write_text(json.dumps(doc))
    else:
        path.write_text(content)
    with pytest.raises(SaveError) as err:
        game_from_case_file(path)
    assert str(err.value).startswith(f"case file {path}: ") and why in str(err.value)


def test_cli_solo_play(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PI_ENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("PI_ENV_LEADERBOARD", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("clue Pinky\nsolve Shorty Murder China Town\n"))
    assert main(["solo", "play", "--seed", "7", "--name", "Jo"]) == 0
    out = capsys.readouterr().out
    assert "Pinky: nothing." in out and "Leaderboard for seed 7 (5 investigators): you are 1st of 1." in out
    assert Leaderboard(tmp_path / "data" / "leaderboard.sqlite3").results(7, 5)[0].name == "Jo"
    (rec,) = (tmp_path / "data" / "games").glob("*.json")
    assert main(["replay", str(rec)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Solo Time Attack, seed 7 (5 investigator tiles, any clue)",
        "    1  clue Pinky                                       -> nothing",
        "    2  solve Shorty / Murder / China Town               -> correct",
        "Result: solved in 2 actions, 0 investigator tiles, 0 wrong solves",
        "record checked: re-run by the solo engine from its seed, every answer identical"]
    assert main(["replay", str(rec), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == {"actions": 2, "investigators": 0, "wrong_solves": 0, "solved": True}
    # a bad case file: one line, status 2, no game
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["solo", "play", "--case", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pi-env: error: case file {bad}: ") and err.count("\n") == 1
    # the --db override
    db = tmp_path / "elsewhere.db"
    monkeypatch.setattr("sys.stdin", io.StringIO("solve Shorty Murder China Town\n"))
    assert main(["solo", "play", "--seed", "7", "--name", "Kim", "--db", str(db)]) == 0
    assert [e.name for e in Leaderboard(db).results(7, 5)] == ["Kim"]


def test_solo_replay_rejects_a_tampered_answer(tmp_path):
    game = game_from_seed(7)
    for a in (0, 36 + 2, 50):  # clue Shorty, investigate Little Italy, a wrong solve
        game.step(a)
    path = write_record(game.record(), tmp_path / "g.json")
    assert int(replay_with_engine(load_record(path)).actions[0]) == 3
    doc = json.loads(path.read_text())
    doc["rounds"][0]["events"][1]["traces"] = 0
    with pytest.raises(RecordError, match="event 1: answer 0 spots and 0 traces contradicts"):
        load_record(doc)  # the record holds the case: checked on reading
    del doc["rounds"][0]["cases"]  # without it, only the engine can tell
    with pytest.raises(RecordError, match="event 1: the recorded answer differs from the engine's"):
        replay_with_engine(load_record(doc))
    with pytest.raises(RecordError, match="event 1: the recorded answer differs from the engine's"):
        solo_record_start(load_record(doc), 2)  # starting a game there checks the same way
    assert int(solo_record_start(load_record(doc), 0).state.actions[0]) == 1  # before the tampered event
    doc = json.loads(path.read_text())
    doc["engine"]["seed"] = 8
    with pytest.raises(RecordError, match="tiles differ"):
        replay_with_engine(load_record(doc))


def test_old_solo_records_with_max_rotations_still_load(tmp_path):
    path, _ = write_case(generate(3), tmp_path / "case.json")
    doc = json.loads(path.read_text())
    assert doc["engine"] == {"seed": 3}
    doc["engine"]["max_rotations"] = 60  # as written before
    record = load_record(doc)
    assert record.max_rotations is None and record_to_dict(record)["engine"] == {"seed": 3}
    assert load_record(record_to_dict(record)) == record


def test_saved_game_round_trip():
    game = game_from_seed(7)
    for a in (22 + 13, 36 + 0, 12):
        game.step(a)
    game.elapsed, game.hints = 12.5, 2
    again = SoloGame.from_json(json.loads(json.dumps(game.to_json())))
    assert again.actions == game.actions and again.state.equals(game.state)
    assert (again.elapsed, again.hints, again.source) == (12.5, 2, "seed 7")
    assert np.array_equal(again.state.spot, game.state.spot)


def test_format_time():
    assert [format_time(s) for s in (0, 7.9, 65, 3600 + 62)] == ["0:00", "0:07", "1:05", "1:01:02"]


def test_only_an_explicit_no_discards_the_saved_game(tmp_path):
    save = tmp_path / "save" / "solo-game.json"
    play(tmp_path, ["clue Pinky"], seed=4)
    kept = save.read_text()
    # "quit" is not an answer: asked again; end of input keeps the save untouched
    out, person = play(tmp_path, ["quit"], seed=8)
    assert person.prompts == ["You have a game in progress (seed 4, 1 action, 0:10). Resume it? [Y/n] "] * 2
    assert out == ["Please answer y (resume it) or n (discard it and start a new game).", "",
                   "The game in progress (seed 4) was kept. Continue with: pi-env solo play --resume"]
    assert save.read_text() == kept
    # "maybe" asks again, "YES" resumes
    out, person = play(tmp_path, ["maybe", "YES", "quit"], seed=8)
    assert len(person.prompts) == 3 and person.prompts[2] == "> "
    in_order(out, ["Please answer y (resume it) or n (discard it and start a new game).",
                   "P.I. Solo Time Attack: seed 4, hard (the reference solver needs 8 actions)",
                   "Resuming after 1 action."])
    out, _ = play(tmp_path, ["No", "quit"], seed=8)
    in_order(out, ["The game in progress (seed 4) was discarded."])
    assert json.loads(save.read_text())["seed"] == 8


def test_14_investigators_game_record_is_written(tmp_path):
    c = generate(2, investigators=14)
    out, _ = play(tmp_path, [f"solve {case_name(c.case)}"], seed=2, investigators=14, name="Al", games=True)
    assert not any("could not be written" in line for line in out)
    (record_path,) = (tmp_path / "games").glob("solo-seed2-*.json")
    record = load_record(record_path)
    assert record.rules.investigators == (14,) and record.seed == 2
    in_order(out, ["Leaderboard for seed 2 (14 investigators): you are 1st of 1."])


def test_daily_case_of_a_difficulty_is_labelled_and_resumes_the_same_case(tmp_path):
    c = generate(date="2024-05-01", difficulty="hard")
    assert (c.seed, c.greedy.actions, case_name(c.case)) == (20240501002, 8, "Pop / Bank Job / Road House")
    out, _ = play(tmp_path, ["clue Pinky"], date="2024-05-01", difficulty="hard")
    assert out[0] == "P.I. Solo Time Attack: daily case 2024-05-01, hard (the reference solver needs 8 actions)"
    doc = json.loads((tmp_path / "save" / "solo-game.json").read_text())
    assert (doc["seed"], doc["date"], doc["difficulty"], doc["source"]) == (
        20240501002, "2024-05-01", "hard", "daily case 2024-05-01, hard")
    out, person = play(tmp_path, ["y", "solve Pop / Bank Job / Road House"], name="Bo")
    assert person.prompts[0] == ("You have a game in progress (daily case 2024-05-01, hard, 1 action, 0:10). "
                                 "Resume it? [Y/n] ")
    in_order(out, ["P.I. Solo Time Attack: daily case 2024-05-01, hard (the reference solver needs 8 actions)",
                   "Pop / Bank Job / Road House: correct!",
                   "Leaderboard for daily case 2024-05-01, hard (5 investigators): you are 1st of 1."])
    assert Leaderboard(tmp_path / "lb.sqlite3").results(20240501002, 5)[0].daily == "2024-05-01"


@pytest.mark.parametrize("edit, message", [
    ("case", "The case file edited.json does not hold the case of its seed 7 (its layout or case was "
             "changed), so the game is not ranked."),
    ("seed", "The case file edited.json has no seed, so the game is not ranked."),
])
def test_unranked_case_files_say_why(tmp_path, edit, message):
    doc = record_to_dict(load_record(write_case(generate(7), tmp_path / "case.json")[0]))
    if edit == "case":
        doc["rounds"][0]["cases"]["0"] = {"suspect": "Doc", "evidence": "Murder", "location": "China Town"}
    else:
        del doc["engine"]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    solve = "solve Doc Murder China Town" if edit == "case" else "solve Shorty Murder China Town"
    out, _ = play(tmp_path, ["clue Pinky", "quit"], case_file=path)  # the reason survives a resume
    out, _ = play(tmp_path, [solve], resume=True)
    assert out[-1] == message and not any(line.startswith("Leaderboard") for line in out)


def test_cli_solo_play_case_file_excludes_difficulty_and_investigators(tmp_path, capsys):
    for option in (["--difficulty", "hard"], ["--investigators", "3"]):
        code = main(["solo", "play", "--case", str(tmp_path / "case.json"), *option,
                         "--save-file", str(tmp_path / "s.json"), "--db", str(tmp_path / "lb.sqlite3")])
        err = capsys.readouterr().err
        assert code == 2 and err == (f"pi-env: error: argument {option[0]}: not allowed with argument --case "
                                     f"(the case file fixes the case and its investigator tiles)\n")
    assert not (tmp_path / "s.json").exists()


def test_cli_solo_without_a_subcommand_names_them(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solo"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == ("pi-env solo: error: the following arguments are required: "
                                       "{generate,play} (see 'pi-env solo --help')\n")


def test_map_lists_each_districts_neighbours(tmp_path):
    out, _ = play(tmp_path, ["map", "quit"], seed=7)
    i = out.index("Districts next to each other (a trace answer means: in a district next to it):")
    # the daytime adjacency of docs/rules.md §2, typed in by hand
    assert out[i + 1:i + 15] == [
        "  Lakeside         next to: Forest Park, Little Italy, Trocadero",
        "  Forest Park      next to: Lakeside, Trocadero, Ocean Drive",
        "  Little Italy     next to: Lakeside, Trocadero, China Town, Central Station",
        "  Trocadero        next to: Lakeside, Forest Park, Little Italy, Ocean Drive, Central Station, "
        "Main Street",
        "  Ocean Drive      next to: Forest Park, Trocadero, Main Street, Road House",
        "  China Town       next to: Little Italy, Central Station, Union Square",
        "  Central Station  next to: Little Italy, Trocadero, China Town, Main Street, Union Square, Downtown",
        "  Main Street      next to: Trocadero, Ocean Drive, Central Station, Road House, Downtown, "
        "Rick's Café",
        "  Road House       next to: Ocean Drive, Main Street, Rick's Café",
        "  Union Square     next to: China Town, Central Station, Downtown, Waterfront",
        "  Downtown         next to: Central Station, Main Street, Union Square, Rick's Café, Waterfront, "
        "Skid Row",
        "  Rick's Café      next to: Main Street, Road House, Downtown, Skid Row",
        "  Waterfront       next to: Union Square, Downtown, Skid Row",
        "  Skid Row         next to: Downtown, Rick's Café, Waterfront",
    ]
    assert "'map' for which districts are next to which." in out
    assert "  map                              which districts are next to which (traces depend on it)" in HELP
    assert json.loads((tmp_path / "save" / "solo-game.json").read_text())["actions"] == []  # not an action


def test_a_random_case_keeps_its_seed_until_it_is_solved(tmp_path, monkeypatch):
    """Without --seed or --daily the case is random: its seed fixes the case (``pi-env solo
    generate --seed N`` prints it), so nothing shown before the solve names it — not the intro, not
    the resume prompt — and the end says which seed it was. The saved game keeps it (``random``)."""
    import pi_env.apps.solo_app as solo_app

    assert all(solo_app.random_seed() in solo_app.RANDOM_SEEDS for _ in range(20))
    seed = 4_123_456_789
    monkeypatch.setattr(solo_app, "random_seed", lambda: seed)
    out, _ = play(tmp_path, ["clue Pinky", "quit"])
    assert out[0].startswith("P.I. Solo Time Attack: a random case, ")
    doc = json.loads((tmp_path / "save" / "solo-game.json").read_text())
    assert (doc["seed"], doc["random"], doc["source"]) == (seed, True, "a random case")
    reference = game_from_seed(seed)
    answer = "solve " + case_name(reference.case, reference.board)
    out2, person = play(tmp_path, ["", "hint", answer], name="Ann")
    assert person.prompts[0] == "You have a game in progress (a random case, 1 action, 0:20). Resume it? [Y/n] "
    before = out2[:next(i for i, line in enumerate(out2) if line.startswith("Solved in"))]
    assert all(str(seed) not in line for line in out + before)
    in_order(out2, [f"It was the case of seed {seed} (play it again, or challenge someone: pi-env solo play "
                    f"--seed {seed}).", f"Leaderboard for seed {seed} (5 investigators): you are 1st of 1."])
    assert solo_app.RANDOM_SEEDS == range(10**9, 10**10)  # apart from the daily seeds
