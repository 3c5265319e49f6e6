"""Writing output files safely: whole or not at all, never over a file the user did not give up.

One writer, :func:`write_atomic` (text: :func:`write_text_atomic`, bytes: :func:`write_bytes_atomic`,
matplotlib figures: :func:`write_figure_atomic`), used for every file pi-env writes itself — game
records (:func:`pi_env.records.record_file.write_record`), board pictures (``pi-env render``), the
solo app's files, tournament, experiment and training outputs (CSV, JSON, plots): the data goes
to a temporary file beside the target, which then replaces the target in one step
(``os.replace``), so an interrupted write leaves the old file or nothing. A symbolic link at the target is replaced by the new file, never followed: writing
onto a link never changes the file it points to.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from pi_env.core.errors import PIError

__all__ = ["check_output_path", "check_output_dir", "check_replaceable_dir", "remove_run_dir", "write_atomic", "write_text_atomic", "write_bytes_atomic", "write_figure_atomic"]


def check_output_path(path: str | os.PathLike, *, force: bool = False) -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking it can take a new file.

    Raises:
        PIError: an empty name, a directory (or a link to one), a missing parent folder, or
            (without ``force``) an existing file or link, dangling or not — the message names
            ``path`` itself.
    """
    p = Path(path)
    if str(path) == "" or p.name in ("", ".", ".."):
        raise PIError(f"{str(path)!r} is not a file name")
    if p.is_dir():
        raise PIError(f"{p}: is a directory, not a file")
    parent = p.parent
    if not parent.is_dir():
        if parent.exists():
            raise PIError(f"{p}: {str(parent)!r} is a file, not a folder")
        raise PIError(f"{p}: the folder {str(parent)!r} does not exist")
    if (p.exists() or p.is_symlink()) and not force:
        raise PIError(f"{p} exists; use --force to overwrite it")
    return p


def check_output_dir(path: str | os.PathLike, *, option: str = "--out") -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking it can be (or already is) a folder for
    output files: neither it nor any of its existing parents is a file.

    Raises:
        PIError: ``path`` or a parent of it is a file; the message names ``option`` and the file.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise PIError(f"{option} {str(path)!r} is a file, not a folder")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise PIError(f"{option} {str(path)!r}: {str(parent)!r} is a file, not a folder")
            break
    return p


def write_atomic(path: str | os.PathLike, data: bytes | str, *, force: bool = True,
                 fsync: bool = False) -> Path:
    """Write ``data`` (``bytes`` as they are, ``str`` as UTF-8) to ``path`` atomically; returns the
    path written.

    A file replaced keeps its permission bits (a read-only ``0444`` file stays ``0444``); a new file
    gets the normal permissions of a new file (``0666`` less the umask), and so does the file that
    replaces a symbolic link: the link at ``path`` is replaced, never followed (its target is left
    as it was).

    Args:
        path: the file to write.
        data: its whole content.
        force: replace an existing file or link (otherwise refuse).
        fsync: flush the data to the disk before the file replaces the target.

    Raises:
        PIError: see :func:`check_output_path` (checked before anything is written).
        OSError: the file system refused the write; its ``filename`` is ``path`` (not the
            temporary file the data went to first), and no temporary file is left behind.
        TypeError: ``data`` is neither ``bytes`` nor ``str``.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes or str, got {type(data).__name__}")
    p = check_output_path(path, force=force)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(p))  # mkstemp makes 0600
        os.replace(tmp, p)  # renames over the link itself when p is a symbolic link
    except OSError as exc:  # name the user's file, not the hidden temporary one
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(p)) from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    return p


def _mode_for(path: Path) -> int:
    """The permission bits of the regular file ``path`` replaces, else those of a new file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_text_atomic(path: str | os.PathLike, text: str, *, force: bool = True, fsync: bool = False) -> Path:
    """:func:`write_atomic` of ``text`` as UTF-8 (same arguments, errors and guarantees)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return write_atomic(path, text, force=force, fsync=fsync)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, *, force: bool = True, fsync: bool = False) -> Path:
    """:func:`write_atomic` of ``data`` (same arguments, errors and guarantees)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    return write_atomic(path, data, force=force, fsync=fsync)


def write_figure_atomic(path: str | os.PathLike, figure: Any, *, dpi: int = 100, force: bool = True) -> Path:
    """Save a matplotlib figure as a PNG through :func:`write_atomic`: rendered in memory first,
    then written whole (``figure.savefig`` alone writes the file in place, a piece at a time).

    Args:
        path: the PNG file.
        figure: a ``matplotlib.figure.Figure`` (anything with ``savefig(file, format=, dpi=)``).
        dpi: resolution.
        force: replace an existing file or link (otherwise refuse).

    Raises:
        PIError, OSError: as :func:`write_atomic`.
    """
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=dpi)
    return write_atomic(path, buf.getvalue(), force=force)


def check_replaceable_dir(path: str | os.PathLike, is_run: Any, *, what: str = "a pi-env run",
                          option: str = "--out") -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking that ``--force`` may delete it.

    A directory is deleted only when it is a run of the command (``is_run(path)`` is true) or
    empty; never a symbolic link, the file-system root, the home directory, the working
    directory or one of its ancestors (``.``, ``..``), nor anything that is not a directory.
    A missing ``path`` passes (nothing to delete).

    Args:
        path: the directory ``--force`` would replace.
        is_run: ``Callable[[Path], bool]``, whether the directory holds the command's own run
            (e.g. has ``run.json``).
        what: what a run is called in the message ("a pi-env run").
        option: the option that named ``path`` (for the message).

    Raises:
        PIError: one line naming ``path`` and why it is not deleted.
    """
    p = Path(path)
    if str(path) == "":
        raise PIError(f"{option}: the name is empty")
    if p.is_symlink():
        raise PIError(f"{option} {str(path)!r} is a symbolic link: --force replaces only a real run "
                      "directory (give the folder it points to)")
    if not p.exists():
        return p
    if not p.is_dir():
        raise PIError(f"{option} {str(path)!r} is a file, not a run directory")
    real, cwd, home = p.resolve(), Path.cwd().resolve(), Path.home().resolve()
    if real == cwd or real in cwd.parents:
        raise PIError(f"{option} {str(path)!r} is the working directory or one of its parents: "
                      "--force will not delete it; give the run's own folder")
    if real == home or real in home.parents:
        raise PIError(f"{option} {str(path)!r} is the home directory or one of its parents: "
                      "--force will not delete it; give the run's own folder")
    if any(p.iterdir()) and not is_run(p):
        raise PIError(f"{option} {str(path)!r} is not {what} and not empty: --force replaces only "
                      "a run directory; give another " + option)
    return p


def remove_run_dir(path: str | os.PathLike, is_run: Any, *, what: str = "a pi-env run",
                   option: str = "--out") -> None:
    """Delete the run directory ``path`` for ``--force`` after :func:`check_replaceable_dir`
    (same arguments and errors); a missing ``path`` is left missing."""
    p = check_replaceable_dir(path, is_run, what=what, option=option)
    if p.is_dir():
        shutil.rmtree(p)
