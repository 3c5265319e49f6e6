"""Tournaments (issue #4 items 2 and 6): determinism, seat rotation, statistics, resume, errors."""

from __future__ import annotations

import csv
import functools
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import need_extra
from helpers import play_game as play_reference
from scipy import stats

import pi_env.apps.tournament as T
from pi_env.apps.tournament import (SUMMARY_COLUMNS, TournamentInterrupted, TournamentSettings,
                                    columns, run_tournament, seat_agents, summarize, win_interval)
from pi_env.apps.cli import main
from pi_env.engine import GameConfig, outcome
from pi_env.core.errors import PIError, UnknownNameError

MIXED = TournamentSettings(agents=("deducer", "random", "deducer"), games=6, players=3, seed=5)


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, dict]:
    """The MIXED tournament played in this process (workers=1), uninterrupted."""
    out = tmp_path_factory.mktemp("reference")
    summary = run_tournament(MIXED, out, workers=1)
    return out, summary


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- determinism ------------------------------------------------------------------------------

def test_rows_do_not_depend_on_worker_count(reference, tmp_path):
    ref_dir, ref_summary = reference
    summary = run_tournament(MIXED, tmp_path, workers=2)
    assert (tmp_path / "games.csv").read_bytes() == (ref_dir / "games.csv").read_bytes()
    assert summary == ref_summary
    assert json.loads((tmp_path / "summary.json").read_text()) == ref_summary


def test_every_row_replays_with_the_engine_and_pi_env_play_seeding(reference):
    rows = read_csv(reference[0] / "games.csv")
    assert [r["game"] for r in rows] == [str(g) for g in range(6) for _ in range(3)]
    config = GameConfig(num_players=3)
    for g in range(6):
        mine = rows[3 * g:3 * g + 3]
        assert int(mine[0]["seed"]) == T.game_seed(5, g)
        names = [r["agent"] for r in mine]
        assert names == list(seat_agents(MIXED.agents, g))
        state, _ = play_reference(config, names, int(mine[0]["seed"]))  # agent seeds seed*10+seat
        res = outcome(state, config)
        assert [int(r["score"]) for r in mine] == list(res.scores)
        assert [int(r["rank"]) for r in mine] == list(res.ranks)
        assert [int(r["winner"]) for r in mine] == [int(s in res.winners) for s in range(3)]
        assert {int(r["turns"]) for r in mine} == {int(state.turn[0])}
        assert [int(r["investigators_used"]) for r in mine] == [5 - int(v) for v in state.inv_left[0]]
        # wrong solves cost 2 points each (second edition: penalty counts them all)
        assert [2 * int(r["wrong_solves"]) for r in mine] == [int(v) for v in state.penalty[0]]


def test_game_seeds_and_seat_rotation():
    assert seat_agents(("a", "b", "c"), 0) == ("a", "b", "c")
    assert seat_agents(("a", "b", "c"), 1) == ("b", "c", "a")
    assert seat_agents(("a", "b", "c"), 2) == ("c", "a", "b")
    # games 3..5: the other cyclic order a, c, b, rotated
    assert [seat_agents(("a", "b", "c"), g) for g in (3, 4, 5, 6)] == [
        ("a", "c", "b"), ("c", "b", "a"), ("b", "a", "c"), ("a", "b", "c")]
    seeds = [T.game_seed(1, g) for g in range(200)]
    assert len(set(seeds)) == 200 and all(0 <= s < 2**53 for s in seeds)
    assert T.game_seed(1, 7) == T.game_seed(1, 7) != T.game_seed(2, 7)


def test_a_short_agent_list_repeats_to_fill_the_seats():
    assert T.fill_seats(("x", "greedy"), 4) == ("x", "greedy", "x", "greedy")
    assert T.fill_seats(("a",), 3) == ("a", "a", "a")
    assert T.fill_seats(("a", "b", "c"), 3) == ("a", "b", "c")
    with pytest.raises(PIError) as exc:
        T.fill_seats(("a", "b"), 5)
    assert str(exc.value) == ("2 agents given for 5 players: list one agent per seat, or a list that "
                              "repeats to fill the seats (5 is not a multiple of 2): a,b")
    short = TournamentSettings(agents=("Random", "greedy"), games=8, players=4)
    assert short.agents == ("random", "greedy", "random", "greedy")
    assert short == TournamentSettings(agents=("random", "greedy") * 2, games=8, players=4)
    # the 4-seat list's 2 cyclic orders (r,g,r,g and r,g,g,r), each rotated through the 4 seats
    assert [seat_agents(short.agents, g) for g in range(8)] == [
        ("random", "greedy", "random", "greedy"), ("greedy", "random", "greedy", "random"),
        ("random", "greedy", "random", "greedy"), ("greedy", "random", "greedy", "random"),
        ("random", "greedy", "greedy", "random"), ("greedy", "greedy", "random", "random"),
        ("greedy", "random", "random", "greedy"), ("random", "random", "greedy", "greedy")]


def test_a_short_agent_list_on_the_command_line_and_on_resume(tmp_path, capsys):
    """``--agents random,deducer --players 4`` plays the tournament of ``random,deducer,random,deducer``
    (same files) and says which seating it used; a stored run resumes with the short or the long list,
    and a short list that does not repeat into the stored seats is refused in one line."""
    common = ("--games", "2", "--players", "4", "--seed", "3", "--workers", "1", "--quiet")
    code, out, err = run(capsys, "tournament", "--agents", "random,deducer", *common, "--out", str(tmp_path / "s"))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "P.I. tournament: 2 games, 4 players, second edition, seed 3, agents random,deducer,random,deducer "
        "(--agents random,deducer repeated to fill 4 seats; seats rotate); 1 worker (process)")
    code, out, err = run(capsys, "tournament", "--agents", "random,deducer,random,deducer", *common,
                         "--out", str(tmp_path / "l"))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "P.I. tournament: 2 games, 4 players, second edition, seed 3, agents random,deducer,random,deducer "
        "(seats rotate); 1 worker (process)")
    games = (tmp_path / "l" / "games.csv").read_bytes()
    assert (tmp_path / "s" / "games.csv").read_bytes() == games
    assert (tmp_path / "s" / "tournament.json").read_bytes() == (tmp_path / "l" / "tournament.json").read_bytes()
    assert [r["agent"] for r in read_csv(tmp_path / "s" / "games.csv")] == [
        "random", "deducer", "random", "deducer", "deducer", "random", "deducer", "random"]
    for agents in ("random,deducer", "random,deducer,random,deducer"):  # either spelling resumes
        code, out, err = run(capsys, "tournament", "--out", str(tmp_path / "l"), "--resume", "--agents", agents)
        assert (code, err) == (0, "")
        assert out.splitlines()[0].endswith("; resuming after 2 finished games")
        assert (tmp_path / "l" / "games.csv").read_bytes() == games
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path / "l"), "--resume", "--agents", "deducer,random")
    assert (code, out) == (2, "")
    assert err == (f"pi-env: error: {tmp_path / 'l'} holds a tournament with agents random,deducer,random,deducer; "
                   "--agents deducer,random fills its 4 seats as deducer,random,deducer,random; use another "
                   "--out or --force to start over\n")
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path / "l"), "--resume", "--agents",
                         "random,deducer,random")
    assert (code, out) == (2, "")
    assert err == (f"pi-env: error: {tmp_path / 'l'} holds a tournament of 4 players with agents "
                   "random,deducer,random,deducer; --agents random,deducer,random cannot fill its 4 seats "
                   "(4 is not a multiple of 3); give its agents, or use another --out or --force to start over\n")
    assert (tmp_path / "l" / "games.csv").read_bytes() == games


def test_seating_orders_balance_who_sits_after_whom():
    agents = ("greedy", "heuristic", "random", "random")
    # 4!/2! = 12 seatings, 4 rotations each: 3 cyclic orders
    assert T.seating_orders(agents) == (("greedy", "heuristic", "random", "random"),
                                        ("greedy", "random", "heuristic", "random"),
                                        ("greedy", "random", "random", "heuristic"))
    assert len(T.seating_orders(tuple("abcde"))) == 24  # (5 - 1)!
    assert T.seating_orders(("g", "r", "g", "r")) == (("g", "r", "g", "r"), ("g", "r", "r", "g"))
    games = [seat_agents(agents, g) for g in range(12)]
    seats = Counter((names[s], s) for names in games for s in range(4))
    assert seats == {**{("greedy", s): 3 for s in range(4)}, **{("heuristic", s): 3 for s in range(4)},
                     **{("random", s): 6 for s in range(4)}}
    # who holds whose case (docs/rules.md §3: seat i holds seat i+1's): greedy holds heuristic's case
    # in 4 of 12 games and heuristic holds greedy's in 4, each holds a random player's in 8
    held = Counter((names[s], names[(s + 1) % 4]) for names in games for s in range(4))
    assert held[("greedy", "heuristic")] == held[("heuristic", "greedy")] == 4
    assert held[("greedy", "random")] == held[("heuristic", "random")] == 8


def test_every_agent_sits_in_every_seat_equally(reference):
    rows = read_csv(reference[0] / "games.csv")
    seats = Counter((r["agent"], int(r["seat"])) for r in rows)
    # 6 games of 3 seats, rotated: deducer is listed twice, random once
    assert seats == {("deducer", 0): 4, ("deducer", 1): 4, ("deducer", 2): 4,
                     ("random", 0): 2, ("random", 1): 2, ("random", 2): 2}


# --- statistics -------------------------------------------------------------------------------

def hand_rows(game, names, scores, ranks, rotations, wrong):
    k = sum(1 for r in ranks if r == 1)
    return [{"game": game, "seed": T.game_seed(0, game), "seat": s, "agent": names[s],
             "score": scores[s], "rank": ranks[s], "winner": int(ranks[s] == 1),
             "win_share": 1.0 / k if ranks[s] == 1 else 0.0, "wrong_solves": wrong[s],
             "investigators_used": 2, "solve_rotation_1": rotations[s][0],
             "solve_rotation_2": rotations[s][1], "solve_rotation_3": rotations[s][2],
             "turns": 40, "truncated": 0} for s in range(len(names))]


def test_shared_wins_are_split_and_agents_aggregated_by_name():
    settings = TournamentSettings(agents=("deducer", "random", "random"), games=3, players=3)
    games = {
        # game 0: seats deducer, random, random; deducer alone first
        0: hand_rows(0, ("deducer", "random", "random"), (15, 3, -5), (1, 2, 3),
                     ((4, 6, 5), (None, 7, None), (None, None, None)), (0, 1, 3)),
        # game 1: seats random, random, deducer; seats 0 and 2 share first
        1: hand_rows(1, ("random", "random", "deducer"), (9, 2, 9), (1, 3, 1),
                     ((3, None, None), (None, None, None), (None, 8, 2)), (2, 0, 1)),
        # game 2: seats random, deducer, random; all three share first
        2: hand_rows(2, ("random", "deducer", "random"), (0, 0, 0), (1, 1, 1),
                     ((None, None, None), (None, None, None), (None, None, None)), (0, 0, 0)),
    }
    s = summarize(games, settings)
    d, r = s["agents"]
    assert (d["agent"], d["seat_games"], r["agent"], r["seat_games"]) == ("deducer", 3, "random", 6)
    assert d["wins"] == pytest.approx(1 + 1 / 2 + 1 / 3, abs=1e-15)
    assert r["wins"] == pytest.approx(1 / 2 + 2 / 3, abs=1e-15)
    assert d["wins"] + r["wins"] == pytest.approx(3)  # one win per game in all
    assert d["win_rate"] == pytest.approx(11 / 18) and r["win_rate"] == pytest.approx(7 / 36)
    assert (d["win_ci_low"], d["win_ci_high"]) == win_interval(11 / 6, 3)
    assert d["mean_score"] == pytest.approx(24 / 3) and r["mean_score"] == pytest.approx(9 / 6)
    assert d["mean_rank"] == pytest.approx(1.0) and r["mean_rank"] == pytest.approx(11 / 6)
    assert d["solve_rate"] == pytest.approx(5 / 9) and r["solve_rate"] == pytest.approx(2 / 18)
    assert d["mean_rotations_to_solve"] == pytest.approx((4 + 6 + 5 + 8 + 2) / 5)
    assert r["mean_rotations_to_solve"] == pytest.approx((7 + 3) / 2)
    assert (d["wrong_solves"], r["wrong_solves"]) == (1, 6)
    assert d["wrong_solves_per_game"] == pytest.approx(1 / 3) and r["wrong_solves_per_game"] == 1.0
    assert [x["seat_games"] for x in d["by_seat"]] == [1, 1, 1]
    assert [x["win_rate"] for x in d["by_seat"]] == pytest.approx([1.0, 1 / 3, 0.5])
    assert s["games_finished"] == 3 and s["complete"] is True and s["truncated_games"] == 0


def test_summary_of_a_real_tournament_matches_its_rows(reference):
    rows = read_csv(reference[0] / "games.csv")
    by_game: dict[str, list] = {}
    for r in rows:
        by_game.setdefault(r["game"], []).append(r)
    wins, seats, wrong, scores = Counter(), Counter(), Counter(), {}
    for g in by_game.values():
        first = [r for r in g if r["rank"] == "1"]
        for r in g:
            seats[r["agent"]] += 1
            wrong[r["agent"]] += int(r["wrong_solves"])
            scores.setdefault(r["agent"], []).append(int(r["score"]))
        for r in first:
            wins[r["agent"]] += 1 / len(first)
    summary = reference[1]
    assert [a["agent"] for a in summary["agents"]] == ["deducer", "random"]
    for a in summary["agents"]:
        name = a["agent"]
        assert a["seat_games"] == seats[name]
        assert a["wins"] == pytest.approx(wins[name])
        assert a["win_rate"] == pytest.approx(wins[name] / seats[name])
        assert a["wrong_solves"] == wrong[name]
        assert a["mean_score"] == pytest.approx(sum(scores[name]) / len(scores[name]))
    assert sum(a["wins"] for a in summary["agents"]) == pytest.approx(6)


def test_wilson_interval_is_scipys_for_whole_counts():
    ci = stats.binomtest(7, 20).proportion_ci(confidence_level=0.95, method="wilson")
    assert win_interval(7, 20) == (float(ci.low), float(ci.high))
    assert win_interval(7.0, 20) == pytest.approx((0.1811918241010821, 0.5671457233147637), abs=1e-12)
    assert win_interval(0, 10) == pytest.approx((0.0, 0.27753279986288926), abs=1e-12)
    assert win_interval(10, 10)[1] == 1.0


def test_wilson_interval_at_a_fractional_count():
    z = 1.959963984540054
    n, w = 20, 7.5
    p = w / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert win_interval(w, n) == pytest.approx((center - half, center + half), abs=1e-12)
    lo7, hi7 = win_interval(7, n)
    lo8, hi8 = win_interval(8, n)
    assert lo7 < win_interval(w, n)[0] < lo8 and hi7 < win_interval(w, n)[1] < hi8
    with pytest.raises(PIError):
        win_interval(3, 0)
    with pytest.raises(PIError):
        win_interval(5, 4)


# --- files ------------------------------------------------------------------------------------

def test_files_written(reference):
    out, summary = reference
    assert (out / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "games.csv").read_text().splitlines()[0] == ",".join(columns(3))
    assert len(read_csv(out / "games.csv")) == 6 * 3
    lines = read_csv(out / "summary.csv")
    assert list(lines[0]) == SUMMARY_COLUMNS
    assert [l["agent"] for l in lines] == ["deducer", "random"]
    for line, a in zip(lines, summary["agents"]):
        assert int(line["seat_games"]) == a["seat_games"]
        assert float(line["win_rate"]) == a["win_rate"]
    doc = json.loads((out / "summary.json").read_text())
    assert doc["settings"] == {"format": "pi-tournament/1", "agents": ["deducer", "random", "deducer"],
                               "games": 6, "players": 3, "seed": 5, "edition": "second",
                               "variants": [], "max_rotations": 60}
    assert doc["complete"] is True and doc["games_finished"] == 6
    assert json.loads((out / "tournament.json").read_text()) == {**doc["settings"], "workers": 1}


# --- resume -----------------------------------------------------------------------------------

def test_resume_after_an_interruption_gives_the_uninterrupted_rows(reference, tmp_path, monkeypatch):
    real = T.tournament_game

    def interrupt_at_game_3(settings, game):
        if game == 3:
            raise KeyboardInterrupt
        return real(settings, game)

    monkeypatch.setattr(T, "tournament_game", interrupt_at_game_3)
    with pytest.raises(TournamentInterrupted) as exc:
        run_tournament(MIXED, tmp_path, workers=1)
    assert (exc.value.finished, exc.value.total) == (3, 6)
    rows = read_csv(tmp_path / "games.csv")
    assert [r["game"] for r in rows] == [str(g) for g in range(3) for _ in range(3)]
    partial = json.loads((tmp_path / "summary.json").read_text())
    assert (partial["games_finished"], partial["complete"]) == (3, False)
    monkeypatch.setattr(T, "tournament_game", real)
    # a crash in the middle of writing game 3: one whole line and half of the next
    text = T.format_rows(real(MIXED, 3), columns(3))
    with open(tmp_path / "games.csv", "a") as f:
        f.write(text[:text.index("\n") + 12])
    assert len(T.read_games(tmp_path / "games.csv", MIXED)) == 3  # game 3 is not finished
    summary = run_tournament(MIXED, tmp_path, workers=2, resume=True)
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()
    assert summary == reference[1]


def test_resume_of_a_finished_tournament_plays_nothing(reference, tmp_path, monkeypatch):
    import shutil

    for f in ("tournament.json", "games.csv"):
        shutil.copy(reference[0] / f, tmp_path / f)
    monkeypatch.setattr(T, "tournament_game", lambda *a: pytest.fail("no game should be played"))
    assert run_tournament(MIXED, tmp_path, workers=1, resume=True) == reference[1]


def test_resume_refuses_other_settings(reference, tmp_path, capsys):
    import shutil

    for f in ("tournament.json", "games.csv"):
        shutil.copy(reference[0] / f, tmp_path / f)
    other = TournamentSettings(agents=MIXED.agents, games=6, players=3, seed=6)
    with pytest.raises(PIError, match=r"other settings \(seed 5 != 6\)"):
        run_tournament(other, tmp_path, workers=1, resume=True)
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path), "--resume", "--games", "7")
    assert code == 2 and out == ""
    assert err == (f"pi-env: error: {tmp_path} holds a tournament with other settings (games 6 != 7); "
                   "use another --out or --force to start over\n")
    # a new tournament does not overwrite it without --force
    code, out, err = run(capsys, "tournament", "--agents", "random,random", "--out", str(tmp_path))
    assert code == 2 and out == "" and "already holds a tournament; use --resume" in err
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()


def test_resume_on_the_command_line_uses_the_stored_settings(reference, tmp_path, capsys):
    import shutil

    shutil.copy(reference[0] / "tournament.json", tmp_path / "tournament.json")
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path), "--resume", "--quiet",
                         "--workers", "1")
    assert code == 0, err
    assert out.splitlines()[0] == ("P.I. tournament: 6 games, 3 players, second edition, seed 5, "
                                   "agents deducer,random,deducer (seats rotate); 1 worker (process); "
                                   "resuming after 0 finished games")
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()


def test_resume_reuses_the_stored_workers_unless_given_again(reference, tmp_path, capsys, monkeypatch):
    """``--resume`` without ``--workers`` runs with the workers stored in tournament.json (it took
    all CPUs); ``--workers`` given again is used and stored for the next resume; a file without
    them (older) gives all CPUs; a bad stored value is a one-line error. (A finished tournament:
    nothing is played, only the first line printed differs.)"""
    import shutil

    monkeypatch.setattr("os.cpu_count", lambda: 7)
    meta = tmp_path / "tournament.json"
    shutil.copy(reference[0] / "games.csv", tmp_path / "games.csv")
    doc = json.loads((reference[0] / "tournament.json").read_text())
    assert doc.pop("workers") == 1  # (the reference was played with workers=1)
    meta.write_text(json.dumps({**doc, "workers": 3}))

    def first_line(*extra):
        code, out, err = run(capsys, "tournament", "--out", str(tmp_path), "--resume", "--quiet", *extra)
        assert code == 0, err
        return out.splitlines()[0].split("; ")[1]

    assert first_line() == "3 workers (process)"
    assert first_line("--workers", "1") == "1 worker (process)"
    assert json.loads(meta.read_text()) == {**doc, "workers": 1}
    assert first_line() == "1 worker (process)"
    meta.write_text(json.dumps(doc))  # no workers stored
    assert first_line() == "7 workers (process)"
    meta.write_text(json.dumps({**doc, "workers": "two"}))
    assert run(capsys, "tournament", "--out", str(tmp_path), "--resume") == (
        2, "", f"pi-env: error: {meta}: workers must be a positive integer, got 'two'\n")
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()


# --- command line -----------------------------------------------------------------------------

def test_cli_prints_the_table_of_the_summary(reference, tmp_path, capsys):
    code, out, err = run(capsys, "tournament", "--agents", "deducer,random,deducer", "--games", "6",
                         "--players", "3", "--seed", "5", "--workers", "1", "--out", str(tmp_path))
    assert code == 0, err
    assert err == ""  # stderr is not a TTY here: no progress bar
    lines = out.splitlines()
    assert lines[0].startswith("P.I. tournament: 6 games, 3 players, second edition, seed 5")
    assert lines[1].split() == ["agent", "seat-games", "win", "rate", "95%", "CI", "mean", "score", "rot.",
                                "to", "solve", "solve", "rate", "wrong", "solves"]
    for line, a in zip(lines[2:4], reference[1]["agents"]):
        cells = line.split()
        assert cells[:3] == [a["agent"], str(a["seat_games"]), f"{100 * a['win_rate']:.1f}%"]
        assert cells[3] == f"{100 * a['win_ci_low']:.1f}%..{100 * a['win_ci_high']:.1f}%"
        assert cells[4] == f"{a['mean_score']:.2f}"
    files = ("tournament.json", "games.csv", "summary.json", "summary.csv", "scores.png")
    assert lines[-1] == "written: " + ", ".join(str(tmp_path / f) for f in files)  # tournament.json was left out
    assert all((tmp_path / f).is_file() for f in files)
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()


def test_one_game_is_one_game(tmp_path, capsys):
    """The start line said "1 games"; resuming after one finished game says "1 finished game"."""
    common = ("--seed", "2", "--workers", "1", "--quiet")
    code, out, err = run(capsys, "tournament", "--agents", "random,random", "--games", "1", *common,
                         "--out", str(tmp_path / "one"))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == ("P.I. tournament: 1 game, 2 players, second edition, seed 2, agents "
                                   "random,random (seats rotate); 1 worker (process)")
    code, out, err = run(capsys, "tournament", "--agents", "random,random", "--games", "2", *common,
                         "--out", str(tmp_path / "two"))
    assert (code, err) == (0, "")
    half = tmp_path / "half"  # the 2-game tournament stopped after its first game (2 rows, one per seat)
    half.mkdir()
    (half / "tournament.json").write_bytes((tmp_path / "two" / "tournament.json").read_bytes())
    (half / "games.csv").write_text("".join((tmp_path / "two" / "games.csv").read_text().splitlines(True)[:3]))
    code, out, err = run(capsys, "tournament", "--resume", *common, "--out", str(half))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == ("P.I. tournament: 2 games, 2 players, second edition, seed 2, agents "
                                   "random,random (seats rotate); 1 worker (process); resuming after 1 "
                                   "finished game")
    assert (half / "games.csv").read_bytes() == (tmp_path / "two" / "games.csv").read_bytes()
    assert T.TournamentInterrupted(0, 1, tmp_path).args == ("interrupted after 0 of 1 game",)


@pytest.mark.parametrize("argv, message", [
    (["--agents", "deducer,randm"], "pi-env: error: unknown agent 'randm'; did you mean 'random'?"),
    (["--agents", "deducer,random,random", "--players", "4"],
     "pi-env: error: 3 agents given for 4 players: list one agent per seat, or a list that repeats to "
     "fill the seats (4 is not a multiple of 3): deducer,random,random"),
    (["--agents", "deducer,random", "--games", "0"],
     "pi-env tournament: error: argument --games: expected a positive integer, got '0'"),
    (["--agents", "deducer,random", "--workers", "0"],
     "pi-env tournament: error: argument --workers: expected a positive integer, got '0'"),
    (["--agents", "deducer,random", "--backend", "dask"],
     "pi-env tournament: error: argument --backend: invalid choice: 'dask'"),
    (["--agents", "deducer,random", "--players", "6"],
     "pi-env tournament: error: argument --players: must be 2..5, got 6"),
    (["--games", "5"], "pi-env: error: --agents is required"),
])
def test_one_line_errors(capsys, tmp_path, argv, message):
    try:
        code = main(["tournament", "--out", str(tmp_path / "r"), *argv])
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_resume_without_a_tournament(capsys, tmp_path):
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path / "none"), "--resume")
    assert (code, out) == (2, "")
    assert err == f"pi-env: error: {tmp_path / 'none'}: no tournament to resume (tournament.json is missing)\n"


def test_ray_backend_without_ray_says_how_to_install_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, out, err = run(capsys, "tournament", "--agents", "deducer,random", "--games", "2",
                         "--backend", "ray", "--out", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == "pi-env: error: the ray backend needs Ray: pip install '.[ray]' (from a checkout of pi-env)\n"
    assert not (tmp_path / "games.csv").exists()


def _no_ray_cluster_anywhere(monkeypatch):
    """As on a machine where no Ray cluster runs (whatever runs on this one): ``auto`` finds none."""
    need_extra("ray", "ray")
    import ray
    from ray._private import services

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a new process
    monkeypatch.setattr(services, "find_gcs_addresses", functools.cache(lambda: []))  # ray.init clears its cache
    monkeypatch.setattr(services, "find_bootstrap_address", lambda temp_dir: None)


@pytest.mark.parametrize("address, message", [
    ("127.0.0.1:1", "--ray-address 127.0.0.1:1: no Ray cluster answers there (Connection refused)"),
    ("ray://127.0.0.1:1", "--ray-address ray://127.0.0.1:1: no Ray cluster answers there (Connection refused)"),
    ("auto", "--ray-address auto: Could not find any running Ray instance. Please specify the one to connect to "
             "by setting `--address` flag or `RAY_ADDRESS` environment variable."),
    # not an address Ray joins: Ray would retry it for minutes (a port -1 or 0, not a number, no port)
    *((a, f"--ray-address {a}: not an address Ray joins (auto, HOST:PORT or ray://HOST:PORT, a port 1-65535)")
      for a in ("127.0.0.1:-1", "127.0.0.1:0", "127.0.0.1:70000", "ray://127.0.0.1:x", "127.0.0.1", "ray://"))])
def test_a_ray_address_without_a_cluster_is_one_line_before_any_file(capsys, tmp_path, monkeypatch, address, message):
    """``--backend ray`` joins the cluster as training does (pi_env.core.cluster.connect_ray): an
    address nothing answers on used to hang in ``ray.init`` for minutes, ``auto`` without a cluster
    ended in a traceback after tournament.json was written."""
    _no_ray_cluster_anywhere(monkeypatch)
    code, out, err = run(capsys, "tournament", "--agents", "deducer,random", "--games", "2", "--backend", "ray",
                         "--workers", "1", "--ray-address", address, "--out", str(tmp_path / "r"))
    assert (code, out, err) == (2, "", f"pi-env: error: {message}\n")
    assert not (tmp_path / "r").exists()


def test_a_ray_address_without_the_ray_backend_is_refused_not_ignored(capsys, tmp_path):
    """``--ray-address`` with the local backend used to be ignored (the games played here); it is a
    one-line error, as training's ``--ray-address`` without ``--ray-actors``."""
    code, out, err = run(capsys, "tournament", "--agents", "deducer,random", "--games", "2", "--workers", "1",
                         "--ray-address", "127.0.0.1:1", "--out", str(tmp_path / "r"))
    assert (code, out, err) == (2, "", "pi-env: error: --ray-address needs --backend ray (the process backend "
                                       "plays on this machine)\n")
    assert not (tmp_path / "r").exists()


def test_no_address_while_a_ray_start_cluster_runs_here_is_one_line(capsys, tmp_path, monkeypatch):
    """Without --ray-address, Ray joins a cluster that ``ray start`` left running on this machine and
    then refuses the local instance's ``num_cpus`` with a ValueError (its message copied below)."""
    _no_ray_cluster_anywhere(monkeypatch)
    import ray

    def init(**kwargs):
        assert "address" not in kwargs and kwargs["num_cpus"] == 1
        raise ValueError("When connecting to an existing cluster, num_cpus and num_gpus must not be provided.")

    monkeypatch.setattr(ray, "init", init)
    code, out, err = run(capsys, "tournament", "--agents", "deducer,random", "--games", "2", "--backend", "ray",
                         "--workers", "1", "--out", str(tmp_path / "r"))
    assert (code, out) == (2, "")
    assert err == ("pi-env: error: a Ray cluster runs on this machine (started by `ray start`): pass --ray-address "
                   "auto to use it, or stop it with `ray stop`\n")
    assert not (tmp_path / "r").exists()


def test_training_fails_the_same_way_on_auto_without_a_cluster(capsys, tmp_path, monkeypatch):
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    _no_ray_cluster_anywhere(monkeypatch)
    from pi_env.rl.cli import train_main

    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--out", str(tmp_path / "run"), "--num-envs", "64", "--timesteps", "64",
                    "--eval-every", "0", "--ray-actors", "2", "--ray-address", "auto"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == ("python -m pi_env.rl.train: error: --ray-address auto: Could not find any "
                                       "running Ray instance. Please specify the one to connect to by setting "
                                       "`--address` flag or `RAY_ADDRESS` environment variable.\n")
    assert not (tmp_path / "run").exists()


def test_library_errors():
    with pytest.raises(UnknownNameError):
        TournamentSettings(agents=("deducer", "nobody"), games=2, players=2)
    with pytest.raises(PIError, match="games must be at least 1"):
        TournamentSettings(agents=("deducer", "random"), games=0, players=2)
    with pytest.raises(PIError, match="2 agents given for 3 players"):
        TournamentSettings(agents=("deducer", "random"), games=2, players=3)
    with pytest.raises(PIError, match="num_players"):
        TournamentSettings(agents=("random",) * 6, games=2, players=6)
    settings = TournamentSettings(agents=("deducer", "random"), games=2, players=2)
    with pytest.raises(PIError, match="workers must be a positive integer"):
        run_tournament(settings, "unused", workers=0)
    with pytest.raises(PIError, match="backend must be one of"):
        run_tournament(settings, "unused", backend="dask")


def test_ray_backend_gives_the_same_rows(reference, tmp_path):
    need_extra("ray", "ray")
    summary = run_tournament(MIXED, tmp_path, workers=2, backend="ray")
    assert (tmp_path / "games.csv").read_bytes() == (reference[0] / "games.csv").read_bytes()
    assert summary == reference[1]


def test_tournament_never_replaces_a_users_file(tmp_path, capsys):
    """An --out folder holding a file the tournament would write is refused without --force."""
    from pi_env.apps.cli import main

    out = tmp_path / "r"
    out.mkdir()
    (out / "scores.png").write_text("mine")
    code = main(["tournament", "--agents", "random,random", "--games", "2", "--workers", "1",
                 "--quiet", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err == (f"pi-env: error: {out} already has scores.png; use another --out or "
                                 "--force to replace them\n")
    assert (out / "scores.png").read_text() == "mine"


def test_sigterm_stops_like_ctrl_c_and_restores_the_handler(tmp_path, monkeypatch):
    import os
    import signal

    real = T.tournament_game
    before = signal.getsignal(signal.SIGTERM)

    def terminate_at_game_3(settings, game):
        if game == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(settings, game)

    monkeypatch.setattr(T, "tournament_game", terminate_at_game_3)
    with pytest.raises(TournamentInterrupted) as exc:
        run_tournament(MIXED, tmp_path, workers=1)
    assert (exc.value.finished, exc.value.total) == (3, 6)
    assert json.loads((tmp_path / "summary.json").read_text())["games_finished"] == 3
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_second_ctrl_c_during_shutdown_does_not_hang(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "t"
    proc = subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "tournament", "--agents",
                             "greedy,heuristic,random,random", "--players", "4", "--games", "400",
                             "--workers", "2", "--seed", "5", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait for the first finished games
            log = out / "games.csv"
            if log.exists() and log.read_text().count("\n") > 8:
                break
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err.decode()
    assert "interrupted after" in err.decode()
    games = T.read_games(out / "games.csv", T.load_settings(out))
    assert 0 < len(games) < 400


@pytest.mark.parametrize("agents, message", [
    ("learned:4p,heuristic", "was trained for 4 players, not 2"),
    ("heuristic,learned:{dir}", "is a directory, not a model file; did you mean learned:{dir}/policy.pt?"),
])
def test_a_learned_model_that_cannot_play_is_refused_before_anything_is_written(capsys, tmp_path, agents,
                                                                                 message):
    """A model of another player count (or a run directory given as a model) is one line, exit 2,
    and ``--out`` is not created: the corrected rerun then starts afresh (issue: a header-only
    games.csv used to make it fail with "already holds a tournament")."""
    need_extra("rl", "torch")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "policy.pt").write_bytes(b"")
    argv = ["--agents", agents.format(dir=run_dir), "--players", "2", "--games", "2"]
    code, out, err = run(capsys, "tournament", "--out", str(tmp_path / "r"), *argv)
    assert (code, out) == (2, "")
    assert err.startswith("pi-env: error: ") and message.format(dir=run_dir) in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_agent_seats_fills_the_seats_and_words_the_note_for_play_and_tournament():
    """One helper seats an ``--agents`` list for ``pi-env play`` and ``pi-env tournament``: the
    list's length without ``--players``, a short list repeated (with the note both print)."""
    from pi_env.apps.tournament import agent_seats

    assert agent_seats(["greedy", " random"], 4) == (("greedy", "random", "greedy", "random"),
                                                     "--agents greedy,random repeated to fill 4 seats")
    assert agent_seats(["a", "b", "c"], None) == (("a", "b", "c"), "")
    assert agent_seats(["a", "b", "c"], 3) == (("a", "b", "c"), "")
    assert agent_seats(("x",), 2) == (("x", "x"), "--agents x repeated to fill 2 seats")
    with pytest.raises(PIError, match=r"^--agents x lists 1 agent and --players is not given \(it defaults "
                                      r"to the number of agents, 2..5\): give --players, e\.g\. --players 4 "
                                      r"to seat x 4 times$"):
        agent_seats(["x"], None)
    with pytest.raises(PIError, match=r"^--agents a,b,c,d,e,f lists 6 agents .*: at most 5 players sit at a table$"):
        agent_seats(list("abcdef"), None)
    with pytest.raises(PIError, match=r"^2 agents given for 3 players: .*\(3 is not a multiple of 2\): a,b$"):
        agent_seats(["a", "b"], 3)
    with pytest.raises(PIError, match=r"^an agent name is empty in 'a,,b'$"):
        agent_seats(["a", "", "b"], None)
    with pytest.raises(PIError, match=r"^agents must be a sequence of agent names, got the string 'ab'$"):
        agent_seats("ab", 2)


def test_fill_seats_refuses_a_string_or_a_player_count_below_one():
    """``fill_seats("xy", 4)`` seated agents 'x' and 'y' (a string is a sequence of letters), and
    ``fill_seats(("x", "y"), 0)`` or ``-2`` returned no seats at all, without a word."""
    from pi_env.apps.tournament import fill_seats

    assert fill_seats(["x", "greedy"], 4) == ("x", "greedy", "x", "greedy")
    assert fill_seats(("x",), np.int64(3)) == ("x", "x", "x")
    with pytest.raises(PIError, match=r"^agents must be a sequence of agent names, got the string 'xy'$"):
        fill_seats("xy", 4)
    for players in (0, -2, 2.0, True):
        with pytest.raises(PIError, match=r"^players must be a positive integer, got "):
            fill_seats(("x", "y"), players)
