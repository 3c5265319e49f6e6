"""The local solo leaderboard (issue 5 item 3): ranking of docs/rules.md §8, cases kept apart, files
that are not leaderboards reported and never touched, where the file lives."""

from __future__ import annotations

import sqlite3

import pytest

from pi_env.apps.leaderboard import (DATA_ENV, DB_ENV, Entry, Leaderboard, LeaderboardError, data_dir,
                                default_db_path)


def entry(name, actions, used=2, wrong=0, seconds=60.0, seed=7, investigators=5, **kw):
    return Entry(seed=seed, investigators=investigators, name=name, actions=actions, used=used, wrong=wrong,
                 seconds=seconds, finished_at="2024-05-01T10:00:00+00:00", **kw)


def test_ranking_follows_rules_8(tmp_path):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    # fewer actions, then fewer investigator tiles, then fewer wrong solves, then less time
    rows = [entry("slow", 6, used=1, wrong=0, seconds=300), entry("fast", 6, used=1, wrong=0, seconds=30),
            entry("wrong", 6, used=1, wrong=1, seconds=10), entry("tiles", 6, used=3, wrong=0, seconds=5),
            entry("best", 5, used=4, wrong=2, seconds=999)]
    for r in rows:
        lb.add(r)
    names = [e.name for e in lb.results(7, 5)]
    assert names == ["best", "fast", "slow", "wrong", "tiles"]
    assert lb.rank(entry("x", 6, used=1, wrong=0, seconds=30)) == (2, 5)  # tie with "fast": shares 2nd
    assert lb.rank(entry("y", 4)) == (1, 5)
    assert lb.rank(entry("z", 9)) == (6, 5)


def test_cases_are_separate(tmp_path):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    lb.add(entry("a", 5, seed=1))
    lb.add(entry("b", 4, seed=2))
    lb.add(entry("c", 3, seed=1, investigators=3))
    lb.add(entry("d", 6, seed=20240501, daily="2024-05-01"))
    assert [e.name for e in lb.results(1, 5)] == ["a"]
    assert [e.name for e in lb.results(1, 3)] == ["c"]
    got = lb.results(20240501, 5)[0]
    assert (got.daily, got.actions, got.finished_at) == ("2024-05-01", 6, "2024-05-01T10:00:00+00:00")
    assert lb.results(99, 5) == []


def test_missing_file_reads_empty_and_is_created_on_add(tmp_path):
    path = tmp_path / "sub" / "lb.sqlite3"
    lb = Leaderboard(path)
    assert lb.results(7, 5) == [] and not path.exists()
    lb.check()
    lb.add(entry("a", 5))
    assert path.exists()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    con.close()


@pytest.mark.parametrize("content", [b"this is not a database\n", b"\x00" * 200,
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_corrupt_file_is_reported_and_never_touched(tmp_path, content):
    path = tmp_path / "lb.sqlite3"
    path.write_bytes(content)
    lb = Leaderboard(path)
    for call in (lb.check, lambda: lb.add(entry("a", 5)), lambda: lb.results(7, 5)):
        with pytest.raises(LeaderboardError) as err:
            call()
        msg = str(err.value)
        assert str(path) in msg and "\n" not in msg and "left as it is" in msg
    assert path.read_bytes() == content


def test_foreign_table_is_reported(tmp_path):
    path = tmp_path / "other.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE results (who TEXT, score INTEGER)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(LeaderboardError, match="not a pi-env leaderboard"):
        Leaderboard(path).add(entry("a", 5))
    assert path.read_bytes() == before


def test_directory_is_reported(tmp_path):
    with pytest.raises(LeaderboardError, match="is a directory"):
        Leaderboard(tmp_path).check()


def test_where_the_file_lives(tmp_path, monkeypatch):
    monkeypatch.delenv(DB_ENV, raising=False)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data"
    assert default_db_path() == tmp_path / "data" / "leaderboard.sqlite3"
    assert Leaderboard().path == tmp_path / "data" / "leaderboard.sqlite3"
    monkeypatch.setenv(DB_ENV, str(tmp_path / "mine.db"))
    assert Leaderboard().path == tmp_path / "mine.db"
    assert Leaderboard(tmp_path / "explicit.db").path == tmp_path / "explicit.db"
    monkeypatch.delenv(DATA_ENV)
    monkeypatch.delenv(DB_ENV)
    assert data_dir().name == "pi-env"  # platformdirs' user data directory


def test_a_locked_leaderboard_is_reported_as_in_use(tmp_path):
    path = tmp_path / "lb.sqlite"
    Leaderboard(path).add(entry("ann", 7))
    other = sqlite3.connect(str(path))
    other.execute("BEGIN EXCLUSIVE")  # another program holds the file
    try:
        with pytest.raises(LeaderboardError, match=r"is in use by another program \(database is locked\)"):
            Leaderboard(path, timeout=0.05).results(7, 5)
    finally:
        other.rollback()
        other.close()
    assert [e.name for e in Leaderboard(path).results(7, 5)] == ["ann"]  # nothing lost
