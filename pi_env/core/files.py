"""Writing output files safely: whole or not at all, never over a file the user did not give up.

One function, :func:`write_text_atomic`, used for game records (:func:`pi_env.records.record_file.write_record`)
and the solo app's files: the text goes to a temporary file beside the target, which then replaces
the target in one step (``os.replace``), so an interrupted write leaves the old file or nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pi_env.core.errors import PIError


def check_output_path(path: str | os.PathLike, *, force: bool = False) -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking it can take a new file.

    Raises:
        PIError: an empty name, a directory, a missing parent folder, or (without ``force``) an
            existing file — the message names ``path`` itself.
    """
    p = Path(path)
    if str(path) == "" or p.name in ("", ".", ".."):
        raise PIError(f"{str(path)!r} is not a file name")
    if p.is_dir():
        raise PIError(f"{p}: is a directory, not a file")
    parent = p.parent
    if not parent.is_dir():
        raise PIError(f"{p}: the folder {str(parent)!r} does not exist")
    if (p.exists() or p.is_symlink()) and not force:
        raise PIError(f"{p} exists; use --force to overwrite it")
    return p


def write_text_atomic(path: str | os.PathLike, text: str, *, force: bool = True, fsync: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path written.

    The file gets the normal permissions of a new file (``0666`` less the umask). A symbolic link
    at ``path`` is replaced by the file, never followed.

    Raises:
        PIError: see :func:`check_output_path` (checked before anything is written).
        OSError: the file system refused the write (no temporary file is left behind).
    """
    p = check_output_path(path, force=force)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
