"""The local Solo Time Attack leaderboard (docs/rules.md §8): one SQLite file in the user's data directory.

Every finished solo game is one row of the table ``results``; rows are grouped by *case* — the
seed that generated it (a daily case's seed is its date, ``YYYYMMDD``; a daily case of a target
difficulty has its own seed from ``YYYYMMDD * 1000`` upwards, see :mod:`pi_env.apps.solo_cases`) and the
number of investigator tiles. Within a case, results are ranked as docs/rules.md §8 says: fewer actions, then
fewer investigator tiles, then fewer wrong solve attempts, then less time. Results equal in all
four share a rank (competition ranking: 1, 2, 2, 4).

Where the file lives: ``--db PATH`` on the command line, else the environment variable
:data:`DB_ENV` (``PI_ENV_LEADERBOARD``), else ``leaderboard.sqlite3`` in the data directory
(:func:`data_dir`: ``PI_ENV_DATA_DIR``, else ``platformdirs.user_data_dir("pi-env")``).

A file that is not a SQLite database, or holds a ``results`` table of another layout, raises
:class:`LeaderboardError` with a one-line message; it is never written to, replaced or repaired
(the caller keeps the result elsewhere). A missing file is created.

Schema (``PRAGMA user_version = 1``)::

    CREATE TABLE results (
        id            INTEGER PRIMARY KEY,
        seed          INTEGER NOT NULL,   -- case seed (daily case: YYYYMMDD, or YYYYMMDD*1000+k)
        investigators INTEGER NOT NULL,   -- tiles the game started with
        daily         TEXT,               -- YYYY-MM-DD for a daily case, else NULL
        name          TEXT NOT NULL,
        actions       INTEGER NOT NULL,   -- the final correct solve included
        used          INTEGER NOT NULL,   -- investigator tiles used
        wrong         INTEGER NOT NULL,   -- wrong solve attempts
        seconds       REAL NOT NULL,      -- wall-clock time playing
        hints         INTEGER NOT NULL,   -- hints asked (shown, not ranked)
        finished_at   TEXT NOT NULL       -- ISO 8601 timestamp, local time with offset
    )
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pi_env.core.errors import PIError

__all__ = ["Entry", "Leaderboard", "LeaderboardError", "data_dir", "default_db_path", "DB_ENV",
           "DATA_ENV", "SCHEMA_VERSION"]

DB_ENV = "PI_ENV_LEADERBOARD"
"""Environment variable naming the leaderboard file (``--db`` wins over it)."""
DATA_ENV = "PI_ENV_DATA_DIR"
"""Environment variable naming the data directory (saved game, leaderboard, finished games)."""
SCHEMA_VERSION = 1
_COLUMNS = ("id", "seed", "investigators", "daily", "name", "actions", "used", "wrong", "seconds",
            "hints", "finished_at")
_CREATE = """CREATE TABLE IF NOT EXISTS results (
    id            INTEGER PRIMARY KEY,
    seed          INTEGER NOT NULL,
    investigators INTEGER NOT NULL,
    daily         TEXT,
    name          TEXT NOT NULL,
    actions       INTEGER NOT NULL,
    used          INTEGER NOT NULL,
    wrong         INTEGER NOT NULL,
    seconds       REAL NOT NULL,
    hints         INTEGER NOT NULL,
    finished_at   TEXT NOT NULL
)"""
_ORDER = "actions, used, wrong, seconds"


class LeaderboardError(PIError):
    """The leaderboard file cannot be used (not a SQLite database, a foreign table, unreadable)."""


def data_dir() -> Path:
    """The pi-env data directory: ``$PI_ENV_DATA_DIR`` or ``platformdirs.user_data_dir("pi-env")``."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("pi-env", appauthor=False))


def default_db_path() -> Path:
    """``$PI_ENV_LEADERBOARD``, else ``leaderboard.sqlite3`` in :func:`data_dir`."""
    env = os.environ.get(DB_ENV)
    return Path(env).expanduser() if env else data_dir() / "leaderboard.sqlite3"


@dataclass(frozen=True)
class Entry:
    """One finished game (a row of ``results``)."""

    seed: int
    investigators: int
    name: str
    actions: int
    used: int
    wrong: int
    seconds: float
    hints: int = 0
    daily: str | None = None
    finished_at: str = ""
    id: int | None = None

    def key(self) -> tuple[int, int, int, float]:
        """The ranking key of docs/rules.md §8 (smaller is better)."""
        return (self.actions, self.used, self.wrong, self.seconds)


class Leaderboard:
    """The leaderboard file at ``path`` (opened on each call; nothing is kept open).

    Raises:
        LeaderboardError: (from every method) the file is not a usable leaderboard.
    """

    def __init__(self, path: "str | os.PathLike[str] | None" = None, timeout: float = 10.0):
        self.path = Path(path).expanduser() if path is not None else default_db_path()
        self.timeout = float(timeout)  # seconds to wait for another program's lock

    def _fail(self, why: str) -> LeaderboardError:
        return LeaderboardError(f"leaderboard {self.path}: {why}; the file was left as it is")

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """A checked connection, or ``None`` when the file does not exist and ``create`` is false."""
        if self.path.is_dir():
            raise self._fail("is a directory")
        exists = self.path.exists()
        if not exists and not create:
            return None
        if exists:
            try:
                with self.path.open("rb") as f:
                    head = f.read(16)
            except OSError as exc:
                raise self._fail(f"cannot be read ({exc.strerror or exc})") from None
            if head and head != b"SQLite format 3\x00":
                raise self._fail("is not a SQLite database")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = sqlite3.connect(str(self.path), timeout=self.timeout)
        except sqlite3.Error as exc:
            raise self._fail(f"cannot be opened ({exc})") from None
        try:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'results'").fetchall()
            if rows:
                cols = tuple(r[1] for r in con.execute("PRAGMA table_info(results)"))
                if cols != _COLUMNS:
                    raise self._fail(f"its 'results' table is not a pi-env leaderboard (columns {', '.join(cols)})")
            elif create:
                with con:
                    con.execute(_CREATE)
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            con.close()
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise self._fail(f"is in use by another program ({exc}); try again once it is closed") from None
            raise self._fail(f"is not a usable SQLite database ({exc})") from None
        except LeaderboardError:
            con.close()
            raise
        return con

    def add(self, entry: Entry) -> int:
        """Store a result; returns its row id."""
        con = self._connect(create=True)
        assert con is not None
        try:
            with con:
                cur = con.execute(
                    "INSERT INTO results (seed, investigators, daily, name, actions, used, wrong, seconds, "
                    "hints, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (entry.seed, entry.investigators, entry.daily, entry.name, entry.actions, entry.used,
                     entry.wrong, float(entry.seconds), entry.hints, entry.finished_at))
            return int(cur.lastrowid or 0)
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot be written ({exc})") from None
        finally:
            con.close()

    def results(self, seed: int, investigators: int) -> list[Entry]:
        """Every result of a case, best first (ties: earlier first)."""
        con = self._connect(create=False)
        if con is None:
            return []
        try:
            rows = con.execute(f"SELECT {', '.join(_COLUMNS)} FROM results WHERE seed = ? AND investigators = ? "
                               f"ORDER BY {_ORDER}, id", (seed, investigators)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot be read ({exc})") from None
        finally:
            con.close()
        return [Entry(id=r[0], seed=r[1], investigators=r[2], daily=r[3], name=r[4], actions=r[5], used=r[6],
                      wrong=r[7], seconds=r[8], hints=r[9], finished_at=r[10]) for r in rows]

    def rank(self, entry: Entry) -> tuple[int, int]:
        """``(rank, results)``: the 1-based rank of ``entry`` among its case's results (ties share
        the best rank) and how many results the case has."""
        results = self.results(entry.seed, entry.investigators)
        better = sum(1 for e in results if e.key() < entry.key())
        return better + 1, len(results)

    def check(self) -> None:
        """Raise :class:`LeaderboardError` now if the file exists and is not usable."""
        con = self._connect(create=False)
        if con is not None:
            con.close()
