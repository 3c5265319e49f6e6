"""The web app's own files: private to the user who runs the server, and never opened through a
path that a request names.

The data folder (``pi-env serve --data``) holds ``web.sqlite3`` (every game's seed, which fixes
every hidden case), the solo leaderboard and SQLite's ``-wal``/``-shm``/``-journal`` files beside
them. :func:`prepare_data_dir` creates the folder ``0700`` and the databases ``0600`` (SQLite gives
its side files the database's mode; ``pi-env serve`` also runs under the umask ``077``, so the
leaderboard it creates is private too), and makes private a database of an earlier run that other
users could read, saying so in one line.

:func:`file_ids` lists the (device, inode) pairs of every file in the folder: ``POST /api/replays
{"path": ...}`` compares the file it is asked to open with them before opening it
(:func:`pi_env.apps.web.replay.read_record_file`). Opening and closing a database file in the
server's process would release SQLite's locks on it (POSIX locks belong to the process, and any
``close`` drops them), after which another program may delete the ``-wal`` file the server is still
writing to: what was written since is lost at the next crash.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["PRIVATE_DIR", "PRIVATE_FILE", "SQLITE_SUFFIXES", "DATABASES", "prepare_data_dir", "file_ids"]

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
"""A SQLite database and its side files (write-ahead log, shared memory, rollback journal)."""
MAX_FILES = 10_000
"""Files of the data folder looked at by :func:`file_ids` besides its databases (far more than it
ever holds; ``--data ~`` would hold more)."""
DATABASES = ("web.sqlite3", "leaderboard.sqlite3")
"""The databases the server keeps in its data folder: always protected, whatever else it holds."""


def prepare_data_dir(folder: "str | os.PathLike[str]", create: "tuple[str, ...]",
                     others: "tuple[str, ...]" = ()) -> list[str]:
    """Create ``folder`` (mode ``0700``) and each database of ``create`` that is missing (an empty
    file of mode ``0600``, which SQLite fills); make private (``0600``) every database of ``create``
    and ``others`` and their side files that other users could read or write.

    Args:
        folder: the data folder.
        create: the file names of the databases to create if missing (``"web.sqlite3"``).
        others: the file names of databases that another part creates when it needs them
            (``"leaderboard.sqlite3"``: ``pi-env serve`` runs under the umask ``077``, so it is
            created private too).

    Returns:
        One line per file made private (``"web.sqlite3 was readable by other users (mode 0644):
        now 0600"``); empty when there was none.

    Raises:
        OSError: the folder or a file cannot be created or changed.
    """
    folder = Path(folder)
    if not folder.is_dir():
        folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode passes through the umask (it can only remove bits)
    notices = []
    for name in create + others:
        path = folder / name
        if name in create and not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
        for suffix in SQLITE_SUFFIXES:
            side = folder / (name + suffix)
            try:
                mode = stat.S_IMODE(os.stat(side).st_mode)
            except FileNotFoundError:
                continue
            if mode & 0o077:
                os.chmod(side, PRIVATE_FILE)
                notices.append(f"{side} was open to other users (mode {mode:04o}): now {PRIVATE_FILE:04o}, "
                               f"owner only")
    return notices


def file_ids(folder: "str | os.PathLike[str]") -> frozenset[tuple[int, int]]:
    """The ``(st_dev, st_ino)`` of the server's databases and their side files (:data:`DATABASES`,
    :data:`SQLITE_SUFFIXES`) and of every other file in ``folder`` and its subfolders, at most
    :data:`MAX_FILES` of those (a symbolic link: its target's too); empty when the folder cannot be
    read."""
    ids: set[tuple[int, int]] = set()

    def add(path: str) -> None:
        for follow in (False, True):
            try:
                st = os.stat(path, follow_symlinks=follow)
            except OSError:
                continue
            ids.add((st.st_dev, st.st_ino))

    for db in DATABASES:  # first: a folder of more than MAX_FILES files must not hide them
        for suffix in SQLITE_SUFFIXES:
            add(os.path.join(folder, db + suffix))
    seen = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            seen += 1
            if seen > MAX_FILES:
                return frozenset(ids)
            add(os.path.join(root, name))
    return frozenset(ids)
