"""pi-env ladder: ratings on one scale per player count (pi_env.apps.ladder)."""

from __future__ import annotations

import csv
import hashlib
import json

import numpy as np
import pytest
from openskill.models import PlackettLuce

from pi_env.apps import ladder as L
from pi_env.apps.cli import main
from pi_env.apps.tournament import TournamentSettings, tournament_game
from pi_env.core.errors import PIError, UnknownNameError

# three hand-made 3-player games: (agent, rank) per seat; the last one a tie for second place
HAND = [[("a", 1), ("b", 2), ("c", 3)],
        [("b", 1), ("c", 2), ("a", 3)],
        [("c", 1), ("a", 2), ("b", 2)]]


def openskill_by_hand(games, agents):
    """The same updates written straight against openskill's API (tau 0: fixed agents)."""
    model = PlackettLuce(tau=0)
    r = {a: model.rating() for a in agents}
    for g in games:
        new = model.rate([[r[a]] for a, _ in g], ranks=[rank for _, rank in g])
        for (a, _), team in zip(g, new):
            r[a] = team[0]
    return {a: (x.mu, x.sigma) for a, x in r.items()}


def test_rate_games_is_openskill_plackett_luce():
    got = L.rate_games(HAND, ["a", "b", "c"])
    assert got == openskill_by_hand(HAND, ["a", "b", "c"])
    # and the first game alone, from the model's prior (mu 25, sigma 25/3): the winner rises
    first = L.rate_games(HAND[:1], ["a", "b", "c", "d"])
    assert first["d"] == (25.0, 25 / 3)  # an agent that did not play keeps the prior
    assert first["a"][0] > 25.0 > first["c"][0]
    assert first == {**openskill_by_hand(HAND[:1], ["a", "b", "c"]), "d": (25.0, 25 / 3)}


def test_rating_order_interleaves_tables():
    assert L.rating_order(2, 3) == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]


def _rows(game):
    return [{"seat": s, "agent": a, "rank": r, "score": 10 - r, "win_share": 1.0 / sum(x == 1 for _, x in game)
             if r == 1 else 0.0} for s, (a, r) in enumerate(game)]


def test_rate_ladder_anchors_and_orders_the_games():
    # 2 tables of 2 games: table 0 = HAND[0], HAND[1]; table 1 = HAND[2], HAND[0]
    games = {(0, 0): _rows(HAND[0]), (0, 1): _rows(HAND[1]), (1, 0): _rows(HAND[2]), (1, 1): _rows(HAND[0])}
    rows = L.rate_ladder(games, ["a", "b", "c"], "b", tables=2, games_per_table=2)
    ref = openskill_by_hand([HAND[0], HAND[2], HAND[1], HAND[0]], ["a", "b", "c"])  # game 0s, then game 1s
    by = {r["agent"]: r for r in rows}
    assert {a: (by[a]["mu"], by[a]["sigma"]) for a in "abc"} == ref
    assert {a: by[a]["rating"] for a in "abc"} == {a: ref[a][0] - ref["b"][0] for a in "abc"}
    assert by["b"]["rating"] == 0.0
    assert [r["agent"] for r in rows] == sorted("abc", key=lambda a: -ref[a][0])
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert by["a"]["seat_games"] == 4 and by["a"]["win_rate"] == 0.5  # wins in both HAND[0] games
    assert by["a"]["mean_rank"] == (1 + 2 + 3 + 1) / 4
    assert by["a"]["ci_low"] is None  # no bootstrap asked
    boot = L.rate_ladder(games, ["a", "b", "c"], "b", tables=2, games_per_table=2, bootstrap=50, seed=3, players=3)
    assert boot == L.rate_ladder(games, ["a", "b", "c"], "b", tables=2, games_per_table=2, bootstrap=50, seed=3,
                                 players=3)
    anchor = next(r for r in boot if r["agent"] == "b")
    assert (anchor["ci_low"], anchor["ci_high"]) == (0.0, 0.0)
    assert all(r["ci_low"] <= r["ci_high"] for r in boot)


def test_tables_and_their_seeds():
    s = L.LadderSettings(agents=("random", "heuristic", "greedy"), players=(2, 3), games=2)
    assert L.ladder_tables(s, 2) == [("random", "heuristic"), ("random", "greedy"), ("heuristic", "greedy")]
    assert L.ladder_tables(s, 3) == [("random", "heuristic", "greedy")]
    h = int.from_bytes(hashlib.sha256(b"random,greedy").digest()[:8], "big")
    assert L.table_seed(7, 2, ("random", "greedy")) == int(
        np.random.SeedSequence([7, 2, h]).generate_state(1, dtype=np.uint32)[0])
    assert len({L.table_seed(0, len(t), t) for p in (2, 3) for t in L.ladder_tables(s, p)}) == 4
    assert s.anchor == "random"
    assert L.LadderSettings(agents=("heuristic", "greedy"), players=2).anchor == "heuristic"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """greedy, heuristic and random, 2 players, 6 games a pairing: the ladder's files."""
    out = tmp_path_factory.mktemp("ladder")
    s = L.LadderSettings(agents=("random", "heuristic", "greedy"), players=(2,), games=6, seed=5, bootstrap=30)
    doc = L.run_ladder(s, out / "a", workers=1)
    return s, out, doc


def test_stronger_agents_rank_above(quick):
    s, out, doc = quick
    ratings = doc["ladders"]["2"]["ratings"]
    assert [r["agent"] for r in ratings] == ["greedy", "heuristic", "random"]
    by = {r["agent"]: r for r in ratings}
    assert by["random"]["rating"] == 0.0 and by["random"]["win_rate"] == 0.0
    assert by["greedy"]["ci_low"] > 0  # the interval of greedy lies above random's 0
    assert [r["seat_games"] for r in ratings] == [12, 12, 12]
    assert doc["ladders"]["2"] | {"ratings": None} == {"tables": 3, "games": 18, "ratings": None}
    rows = list(csv.DictReader((out / "a" / "ratings_2p.csv").open()))
    assert [r["agent"] for r in rows] == ["greedy", "heuristic", "random"]
    assert float(rows[0]["rating"]) == by["greedy"]["rating"]
    assert json.loads((out / "a" / "ladder.json").read_text())["ladders"] == doc["ladders"]
    assert (out / "a" / "ladder_2p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_same_seed_same_table_and_games_as_the_tournament(quick):
    s, out, doc = quick
    again = L.run_ladder(s, out / "b", workers=2)
    assert again == doc
    for f in ("games.csv", "ratings_2p.csv", "tables.csv", "ladder.json"):
        assert (out / "a" / f).read_bytes() == (out / "b" / f).read_bytes()
    # table 2 (heuristic, greedy) is `pi-env tournament` of its seed: the same games
    tables = list(csv.DictReader((out / "a" / "tables.csv").open()))
    assert tables[2] == {"players": "2", "table": "2", "seed": str(L.table_seed(5, 2, ("heuristic", "greedy"))), "agents": "heuristic,greedy"}
    t = TournamentSettings(agents=("heuristic", "greedy"), games=6, players=2,
                           seed=L.table_seed(5, 2, ("heuristic", "greedy")))
    games = [r for r in csv.DictReader((out / "a" / "games.csv").open()) if r["table"] == "2"]
    want = [r for g in range(6) for r in tournament_game(t, g)]
    assert [(int(r["game"]), r["agent"], int(r["score"]), int(r["rank"])) for r in games] == \
        [(r["game"], r["agent"], r["score"], r["rank"]) for r in want]


def test_refuses_to_overwrite(quick, capsys):
    s, out, doc = quick
    before = (out / "a" / "games.csv").read_bytes()
    with pytest.raises(PIError, match="already has ladder.json, games.csv, tables.csv, ratings_2p.csv, "
                                      "ladder_2p.png; use another --out or --force"):
        L.run_ladder(s, out / "a", workers=1)
    assert (out / "a" / "games.csv").read_bytes() == before


@pytest.mark.parametrize("kwargs, error, message", [
    ({"agents": ("random", "greedyy")}, UnknownNameError, "unknown agent 'greedyy'; did you mean 'greedy'?"),
    ({"players": (1,)}, PIError, "a player count must be 2..5, got 1"),
    ({"players": (2, 2)}, PIError, "a player count is listed twice: 2,2"),
    ({"players": (4,)}, PIError, "4 players need at least 4 agents that can play them, got 2: random,greedy"),
    ({"agents": ("random", "greedy", "random")}, PIError, "agents are listed twice: random"),
    ({"agents": ("greedy",)}, PIError, "a ladder needs at least 2 agents, got 1: greedy"),
    ({"games": 0}, PIError, "games per table must be at least 1, got 0"),
    ({"anchor": "deducer"}, PIError, "the anchor 'deducer' is not one of the agents (random,greedy)"),
])
def test_bad_settings(kwargs, error, message):
    with pytest.raises(error) as exc:
        L.LadderSettings(**{"agents": ("random", "greedy"), "players": (2,), **kwargs})
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize("argv, message", [
    (["--agents", "random,nobody"], "pi-env: error: unknown agent 'nobody'"),
    (["--agents", "random,greedy", "--players", "1"], "pi-env: error: a player count must be 2..5, got 1"),
    (["--agents", "random,greedy", "--players", "two"],
     "pi-env: error: --players takes comma-separated player counts (2..5), e.g. 2,4; got 'two'"),
])
def test_cli_errors(capsys, tmp_path, argv, message):
    code = main(["ladder", "--out", str(tmp_path / "r"), "--quiet", *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_cli_out_is_a_file(capsys, tmp_path):
    f = tmp_path / "file"
    f.write_text("mine")
    code = main(["ladder", "--agents", "random,greedy", "--players", "2", "--out", str(f), "--quiet"])
    assert (code, capsys.readouterr().err) == (2, f"pi-env: error: --out {str(f)!r} is a file, not a folder\n")
    assert f.read_text() == "mine"


def test_cli_prints_the_table(capsys, tmp_path):
    code = main(["ladder", "--agents", "random,heuristic", "--players", "2", "--games", "2", "--bootstrap", "0",
                 "--workers", "1", "--quiet", "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == ("P.I. ladder: 2 players: 1 table of random,heuristic; 2 games per table, 2 games in "
                        "all, seed 0, second edition; 1 worker")
    i = lines.index("2 players (1 table, 2 games):")
    assert lines[i + 1].split() == ["rank", "agent", "rating", "±", "sigma", "95%", "interval", "seat-games",
                                    "win", "rate", "mean", "rank"]
    assert [ln.split()[1] for ln in lines[i + 2:i + 4]] == ["heuristic", "random"]
    assert lines[i + 3].split()[2:5] == ["0.00", lines[i + 3].split()[3], "-"]
    assert "rating: openskill Plackett-Luce mu minus random's (random = 0)" in out


def test_progress_bar(capsys, tmp_path):
    s = L.LadderSettings(agents=("random", "heuristic"), players=(2,), games=2, bootstrap=0)
    L.run_ladder(s, tmp_path, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "ladder: 100%" in err and "2/2" in err


def test_a_new_agent_leaves_the_other_tables_as_they_were(quick, tmp_path):
    """One more agent: the tables the two ladders share play the same games (same table seeds)."""
    s, out, doc = quick
    more = L.LadderSettings(agents=("random", "deducer", "heuristic", "greedy"), players=(2,), games=6, seed=5,
                            bootstrap=0)
    L.run_ladder(more, tmp_path, workers=1)
    old = {r["agents"]: r["seed"] for r in csv.DictReader((out / "a" / "tables.csv").open())}
    new = {r["agents"]: r["seed"] for r in csv.DictReader((tmp_path / "tables.csv").open())}
    assert len(new) == 6 and {k: new[k] for k in old} == old

    def games(folder, seeds):
        by_seed = {v: k for k, v in seeds.items()}
        return sorted((by_seed[t[r["table"]]], r["game"], r["seat"], r["agent"], r["score"], r["rank"])
                      for t in [{x["table"]: x["seed"] for x in csv.DictReader((folder / "tables.csv").open())}]
                      for r in csv.DictReader((folder / "games.csv").open()) if t[r["table"]] in by_seed)
    assert games(out / "a", old) == games(tmp_path, old)
