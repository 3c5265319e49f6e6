"""The web app's SQLite file: games and their moves, solo games in progress, opened replays.

One file, ``web.sqlite3`` in the data directory (``pi-env serve --data DIR``; default
:func:`pi_env.apps.leaderboard.data_dir`). Solo results go to the terminal app's leaderboard
(:class:`pi_env.apps.leaderboard.Leaderboard`, ``leaderboard.sqlite3`` in the same directory), so
both apps rank against each other.

A game is stored as its settings and seed (``games.spec``) and its moves in order (``moves``, one
row per move, primary key ``(game, n)`` so a move number can never be stored twice); it is rebuilt
after a restart by replaying the moves through the engine. Seat tokens are stored only as SHA-256
digests. Every write is one transaction (WAL journal): a move is stored before it is applied, so a
move that was answered is never lost.

Opened records (``replays``) are bounded: :meth:`Store.add_replay` keeps at most ``max_count``
of them and ``max_bytes`` of their text, dropping the least recently opened ones (a record opened
again, or read back after the server forgot it, counts as opened then); the same text opened twice
is stored once, under its first id.

Games and solo games expire (:meth:`Store.expire`): a finished one some time after it ended, one
left unfinished some time after its last move. ``active`` and ``finished`` are the store's clock
(``clock``, seconds since the epoch) at the last change and at the end.

Schema (``PRAGMA user_version = 3``; an older file gains the new columns when opened, ``active``
filled from the times it holds)::

    games   (id TEXT PRIMARY KEY, created TEXT, spec TEXT,        -- spec: JSON settings + seats
             active REAL, finished REAL)                          -- last move, end (NULL: not over)
    moves   (game TEXT, n INTEGER, action INTEGER, at TEXT, PRIMARY KEY (game, n))
    solo    (id TEXT PRIMARY KEY, created TEXT, doc TEXT,         -- doc: JSON of the game so far
             active REAL, finished REAL)
    replays (id TEXT PRIMARY KEY, created TEXT, text TEXT,        -- the record as opened,
             digest TEXT, size INTEGER, opened REAL)              -- its SHA-256, UTF-8 bytes, last use
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable

from pi_env.core.errors import PIError

__all__ = ["Store", "StoreError", "SCHEMA_VERSION"]

SCHEMA_VERSION = 3
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, created TEXT NOT NULL, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS moves (game TEXT NOT NULL, n INTEGER NOT NULL, action INTEGER NOT NULL,
                                  at TEXT NOT NULL, PRIMARY KEY (game, n));
CREATE TABLE IF NOT EXISTS solo (id TEXT PRIMARY KEY, created TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS replays (id TEXT PRIMARY KEY, created TEXT NOT NULL, text TEXT NOT NULL);
"""
_ACTIVITY_COLUMNS = (("active", "REAL"), ("finished", "REAL"))
_REPLAY_COLUMNS = (("digest", "TEXT"), ("size", "INTEGER NOT NULL DEFAULT 0"), ("opened", "REAL NOT NULL DEFAULT 0"))


class StoreError(PIError):
    """The web app's database cannot be used (the message says which file and why)."""


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def _epoch(when: str) -> float:
    """Seconds since the epoch of a stored ISO time (``_now``'s); now when it cannot be read."""
    try:
        return _dt.datetime.fromisoformat(when).timestamp()
    except (TypeError, ValueError):
        return time.time()


class Store:
    """The SQLite file at ``path`` (created with its folder when missing).

    One connection shared by the server's threads behind a lock; every method is one transaction.

    Args:
        path: the database file.
        clock: seconds since the epoch (``time.time``): the times games and solo games expire by.

    Raises:
        StoreError: the file is not a SQLite database or cannot be opened.
    """

    def __init__(self, path: "str | Path", clock: Callable[[], float] = time.time):
        self.path = Path(path)
        self.clock = clock
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._con = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10.0,
                                        isolation_level=None)
            self._con.execute("PRAGMA journal_mode = WAL")
            self._con.execute("PRAGMA synchronous = NORMAL")
            self._con.executescript(_SCHEMA)
            have = {row[1] for row in self._con.execute("PRAGMA table_info(replays)")}
            for name, kind in _REPLAY_COLUMNS:  # a version-1 file
                if name not in have:
                    self._con.execute(f"ALTER TABLE replays ADD COLUMN {name} {kind}")
            if "size" not in have:
                self._con.execute("UPDATE replays SET size = length(CAST(text AS BLOB))")
            self._add_activity_columns()
            self._con.execute("CREATE INDEX IF NOT EXISTS replays_digest ON replays (digest)")
            self._con.execute("CREATE INDEX IF NOT EXISTS replays_opened ON replays (opened)")
            self._con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot be used as the web app's database ({exc})") from None

    def _add_activity_columns(self) -> None:
        """A file of version 1 or 2: ``active`` and ``finished`` of games and solo games, ``active``
        filled from the last move's or the creation's time (``finished`` is set when a restored game
        turns out to be over, :meth:`GameManager.restore`)."""
        for table in ("games", "solo"):
            have = {row[1] for row in self._con.execute(f"PRAGMA table_info({table})")}
            for name, kind in _ACTIVITY_COLUMNS:
                if name not in have:
                    self._con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        games = self._con.execute("SELECT g.id, coalesce(max(m.at), g.created) FROM games g LEFT JOIN moves m "
                                  "ON m.game = g.id WHERE g.active IS NULL GROUP BY g.id").fetchall()
        solos = self._con.execute("SELECT id, created FROM solo WHERE active IS NULL").fetchall()
        for table, rows in (("games", games), ("solo", solos)):
            self._con.executemany(f"UPDATE {table} SET active = ? WHERE id = ?",
                                  [(_epoch(when), row_id) for row_id, when in rows])

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def _write(self, sql: "str | Callable[[sqlite3.Connection], Any]", args: tuple = ()) -> Any:
        """One statement (or a function of the connection) in one transaction; returns its result."""
        with self._lock:
            try:
                self._con.execute("BEGIN IMMEDIATE")
                try:
                    result = sql(self._con) if callable(sql) else self._con.execute(sql, args)
                except BaseException:
                    self._con.execute("ROLLBACK")
                    raise
                self._con.execute("COMMIT")
                return result
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"{self.path}: refused ({exc})") from None
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot be written ({exc})") from None

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._con.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot be read ({exc})") from None

    # games --------------------------------------------------------------------------------
    def add_game(self, game_id: str, spec: dict[str, Any]) -> float:
        """Store a new game; returns its creation time (:attr:`clock`)."""
        now = self.clock()
        self._write("INSERT INTO games (id, created, spec, active) VALUES (?, ?, ?, ?)",
                    (game_id, _now(), json.dumps(spec), now))
        return now

    def set_spec(self, game_id: str, spec: dict[str, Any]) -> None:
        """Replace a game's settings and seats (its lobby was left, a seat was handed to an agent)."""
        self._write("UPDATE games SET spec = ? WHERE id = ?", (json.dumps(spec), game_id))

    def add_move(self, game_id: str, n: int, action: int) -> float:
        """Store move ``n`` (0-based) of a game; a second move ``n`` raises :class:`StoreError`.
        Returns the time of the move (:attr:`clock`), the game's ``active``."""
        now = self.clock()

        def add(con: sqlite3.Connection) -> None:
            con.execute("INSERT INTO moves (game, n, action, at) VALUES (?, ?, ?, ?)",
                        (game_id, n, int(action), _now()))
            con.execute("UPDATE games SET active = ? WHERE id = ?", (now, game_id))

        self._write(add)
        return now

    def finish_game(self, game_id: str, when: float) -> None:
        """Note that a game is over since ``when`` (it expires some time after, :meth:`expire`)."""
        self._write("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (when, game_id))

    def games(self) -> list[tuple[str, str, dict[str, Any], list[int], float, float | None]]:
        """Every game: ``(id, created, spec, moves, active, finished)``, oldest first."""
        rows = self._read("SELECT id, created, spec, active, finished FROM games ORDER BY created, id")
        moves: dict[str, list[int]] = {}
        for g, n, a in self._read("SELECT game, n, action FROM moves ORDER BY game, n"):
            moves.setdefault(g, []).append(int(a))
        return [(g, c, json.loads(s), moves.get(g, []), float(act), fin) for g, c, s, act, fin in rows]

    def expire(self, finished_ttl: float, idle_ttl: float, now: float | None = None) -> tuple[list[str], list[str]]:
        """Delete the games and solo games that expired: over for more than ``finished_ttl`` seconds,
        or not over and without a move for more than ``idle_ttl`` seconds, at ``now`` (default
        :attr:`clock`; the game manager passes the time it judged the games in memory by).

        Returns:
            The ids deleted: ``(games, solo games)``.
        """
        now = self.clock() if now is None else now
        where = "(finished IS NOT NULL AND finished < ?) OR (finished IS NULL AND active < ?)"
        args = (now - finished_ttl, now - idle_ttl)

        def expire(con: sqlite3.Connection) -> tuple[list[str], list[str]]:
            games = [r[0] for r in con.execute(f"SELECT id FROM games WHERE {where}", args)]
            solos = [r[0] for r in con.execute(f"SELECT id FROM solo WHERE {where}", args)]
            con.executemany("DELETE FROM moves WHERE game = ?", [(g,) for g in games])
            con.executemany("DELETE FROM games WHERE id = ?", [(g,) for g in games])
            con.executemany("DELETE FROM solo WHERE id = ?", [(s,) for s in solos])
            return games, solos

        return self._write(expire)

    def moves(self, game_id: str) -> list[int]:
        return [int(a) for (a,) in self._read("SELECT action FROM moves WHERE game = ? ORDER BY n", (game_id,))]

    # solo ---------------------------------------------------------------------------------
    def put_solo(self, solo_id: str, doc: dict[str, Any]) -> None:
        """Store a solo game as it is now (``doc["finished"]``: not ``None`` once solved)."""
        now = self.clock()
        finished = now if doc.get("finished") is not None else None
        self._write("INSERT INTO solo (id, created, doc, active, finished) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET doc = excluded.doc, active = excluded.active, "
                    "finished = coalesce(solo.finished, excluded.finished)",
                    (solo_id, _now(), json.dumps(doc), now, finished))

    def solo(self, solo_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT doc FROM solo WHERE id = ?", (solo_id,))
        return json.loads(rows[0][0]) if rows else None

    # replays ------------------------------------------------------------------------------
    def add_replay(self, replay_id: str, text: str, *, max_count: int = 500,
                   max_bytes: int = 50_000_000) -> str:
        """Store an opened record under ``replay_id``; returns the id it is stored under (the first
        id of the same text when it was opened before). Then the least recently opened records are
        dropped until at most ``max_count`` remain, holding at most ``max_bytes`` bytes of text (the
        newest is always kept)."""
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()

        def add(con: sqlite3.Connection) -> str:
            now = time.time()
            row = con.execute("SELECT id FROM replays WHERE digest = ? AND text = ?", (digest, text)).fetchone()
            if row is not None:
                con.execute("UPDATE replays SET opened = ? WHERE id = ?", (now, row[0]))
                kept = row[0]
            else:
                con.execute("INSERT INTO replays (id, created, text, digest, size, opened) VALUES (?, ?, ?, ?, ?, ?)",
                            (replay_id, _now(), text, digest, len(data), now))
                kept = replay_id
            count, total = con.execute("SELECT count(*), coalesce(sum(size), 0) FROM replays").fetchone()
            if count > max_count or total > max_bytes:
                rows = con.execute("SELECT id, size FROM replays WHERE id != ? ORDER BY opened, rowid",
                                   (kept,)).fetchall()
                drop = []
                for rid, size in rows:
                    if count <= max_count and total <= max_bytes:
                        break
                    drop.append(rid)
                    count, total = count - 1, total - size
                con.executemany("DELETE FROM replays WHERE id = ?", [(rid,) for rid in drop])
            return kept

        return self._write(add)

    def replay(self, replay_id: str) -> str | None:
        """The text of an opened record (``None``: never opened, or dropped since); marks it used."""
        def get(con: sqlite3.Connection) -> str | None:
            row = con.execute("SELECT text FROM replays WHERE id = ?", (replay_id,)).fetchone()
            if row is not None:
                con.execute("UPDATE replays SET opened = ? WHERE id = ?", (time.time(), replay_id))
            return None if row is None else row[0]

        return self._write(get)

    def count_replays(self) -> int:
        """How many opened records are stored."""
        return int(self._read("SELECT count(*) FROM replays")[0][0])
