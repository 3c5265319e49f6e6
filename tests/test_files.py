"""Output files (pi_env.core.files): atomic writes and clear errors that name the user's path."""

from __future__ import annotations

import os

import numpy as np
import pytest

from pi_env.core.actions import action_id
from pi_env.apps.cli import main
from pi_env.core.errors import InvalidActionError, PIError
from pi_env.core.files import check_output_path, write_text_atomic


def test_write_replaces_whole_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.json"
    assert write_text_atomic(target, "first\n") == target
    write_text_atomic(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


@pytest.mark.parametrize("name, message", [
    ("", "'' is not a file name"),
    (".", "'.' is not a file name"),
])
def test_not_a_file_name(name, message):
    with pytest.raises(PIError, match=f"^{message}$"):
        check_output_path(name)


def test_errors_name_the_users_path_not_a_temporary_one(tmp_path):
    with pytest.raises(PIError, match=rf"^{tmp_path}/missing/x.json: the folder '{tmp_path}/missing' does not exist$"):
        write_text_atomic(tmp_path / "missing" / "x.json", "x")
    with pytest.raises(PIError, match=rf"^{tmp_path}: is a directory, not a file$"):
        write_text_atomic(tmp_path, "x")
    (tmp_path / "old.json").write_text("keep")
    with pytest.raises(PIError, match=r"old.json exists; use --force to overwrite it$"):
        write_text_atomic(tmp_path / "old.json", "x", force=False)
    assert (tmp_path / "old.json").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]


def test_a_dangling_link_counts_as_existing(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(PIError, match="exists"):
        check_output_path(link)
    write_text_atomic(link, "data", force=True)  # replaces the link itself, never follows it
    assert not link.is_symlink() and link.read_text() == "data"
    assert not (tmp_path / "nowhere.json").exists()


def test_play_checks_the_record_path_before_playing(tmp_path, capsys):
    assert main(["play", "--players", "2", "--seed", "1", "--agents", "random,random", "--quiet",
                 "--record", ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "pi-env: error: '' is not a file name\n"
    assert main(["play", "--players", "2", "--seed", "1", "--agents", "random,random", "--quiet",
                 "--record", str(tmp_path / "no" / "g.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "the folder" in err and ".tmp" not in err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    import pi_env

    assert exc.value.code == 0 and capsys.readouterr().out == f"pi-env {pi_env.__version__}\n"


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 1.0, "3", None])
def test_action_id_rejects_non_integers(bad):
    with pytest.raises(InvalidActionError, match="action must be an integer"):
        action_id(bad)


def test_action_id_accepts_numpy_integers():
    assert action_id(np.int64(49)) == 49 and action_id(np.uint16(0)) == 0
    with pytest.raises(InvalidActionError, match=r"outside 0\.\.1729"):
        action_id(1730)


def test_bytes_go_through_the_same_writer_and_never_through_a_link(tmp_path):
    from pi_env.core.files import write_atomic, write_bytes_atomic

    target = tmp_path / "target.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    with pytest.raises(PIError, match="exists"):
        write_bytes_atomic(link, b"\x00\x01", force=False)
    assert write_bytes_atomic(link, b"\x00\x01") == link
    assert target.read_bytes() == b"old" and not link.is_symlink() and link.read_bytes() == b"\x00\x01"
    assert write_atomic(tmp_path / "t.txt", "é") and (tmp_path / "t.txt").read_bytes() == "é".encode()
    with pytest.raises(TypeError):
        write_bytes_atomic(tmp_path / "x", "text")
    with pytest.raises(TypeError):
        write_text_atomic(tmp_path / "x", b"bytes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.bin", "t.txt", "target.bin"]


def test_figures_are_written_whole_through_the_same_writer(tmp_path):
    from matplotlib.figure import Figure

    from pi_env.core.files import write_figure_atomic

    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    target = tmp_path / "target.png"
    target.write_bytes(b"old")
    link = tmp_path / "plot.png"
    link.symlink_to(target)
    with pytest.raises(PIError, match="exists"):
        write_figure_atomic(link, fig, force=False)
    assert write_figure_atomic(link, fig, dpi=50) == link
    assert target.read_bytes() == b"old" and not link.is_symlink()
    assert link.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.png", "target.png"]


def test_no_module_writes_files_its_own_way():
    """Every file pi-env writes goes through pi_env.core.files (issue #13: one atomic writer). The
    exceptions are append logs (the tournament's games.csv, rewritten atomically at each start; the
    solo app's results kept while the leaderboard is unavailable) and moving an unreadable saved
    game aside (a rename, nothing written)."""
    import re
    from pathlib import Path

    import pi_env

    root = Path(pi_env.__file__).parent
    files = [Path(d) / f for d, _, names in os.walk(root, followlinks=True) for f in names if f.endswith(".py")]
    pattern = re.compile(r"\.write_text\(|\.write_bytes\(|\.savefig\((?!buf)|open\([^)]*[\"'][wa]b?[\"']|os\.replace\(")
    found = [(f"{p.relative_to(root)}:{i}", line) for p in sorted(files) if p.name != "files.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line) and not line.lstrip().startswith(("#", "``", ":"))]
    allowed = ('open(log_path, "a"', 'pending.open("a"', "os.replace(self.save_path, aside)")
    assert [f for f, line in found if not any(a in line for a in allowed)] == []
    assert len(found) == len(allowed)  # each exception still exists (else drop it here)


def test_a_replaced_file_keeps_its_permission_bits(tmp_path):
    """``--force`` onto a read-only file (0444) used to leave a 0644 file: the replacement keeps the
    replaced file's bits; a new file, and a file replacing a link, get a new file's bits."""
    for mode in (0o444, 0o600, 0o755):
        target = tmp_path / f"f{mode:o}.txt"
        target.write_text("old")
        target.chmod(mode)
        write_text_atomic(target, "new\n")
        assert (target.read_text(), oct(target.stat().st_mode & 0o7777)) == ("new\n", oct(mode))
    other = tmp_path / "other.txt"
    other.write_text("x")
    other.chmod(0o400)
    link = tmp_path / "link.txt"
    link.symlink_to(other)
    write_text_atomic(link, "y")
    assert not link.is_symlink() and oct(link.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert oct(other.stat().st_mode & 0o777) == oct(0o400) and other.read_text() == "x"


# --- check_replaceable_dir / remove_run_dir: what --force may delete (issue #12) ---------------------

def _is_run(d):
    return (d / "run.json").is_file()


def test_force_deletes_only_a_run_or_an_empty_directory(tmp_path, monkeypatch):
    from pi_env.core.files import check_replaceable_dir, remove_run_dir

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "run.json").write_text("{}")
    remove_run_dir(run, _is_run)
    assert not run.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    remove_run_dir(empty, _is_run)
    assert not empty.exists()
    remove_run_dir(tmp_path / "missing", _is_run)  # nothing to delete
    thesis = tmp_path / "notrun"
    thesis.mkdir()
    (thesis / "thesis.tex").write_text("x")
    with pytest.raises(PIError, match=r"^--out '.*notrun' is not a pi-env run and not empty: --force replaces"):
        remove_run_dir(thesis, _is_run)
    assert (thesis / "thesis.tex").read_text() == "x"
    link = tmp_path / "link"
    link.symlink_to(thesis)
    with pytest.raises(PIError, match=r"^--out '.*link' is a symbolic link"):
        remove_run_dir(link, _is_run)
    (tmp_path / "f").write_text("y")
    with pytest.raises(PIError, match=r"is a file, not a run directory$"):
        check_replaceable_dir(tmp_path / "f", _is_run)
    # the working directory and its parents, even when they look like a run
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (tmp_path / "a" / "run.json").write_text("{}")
    (work / "run.json").write_text("{}")
    monkeypatch.chdir(work)
    for name in (".", "..", str(tmp_path)):
        with pytest.raises(PIError, match=r"is the working directory or one of its parents"):
            remove_run_dir(name, _is_run)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "run.json").write_text("{}")
    with pytest.raises(PIError, match=r"is the home directory or one of its parents"):
        remove_run_dir(tmp_path / "home", _is_run)
    assert (work / "run.json").is_file() and (tmp_path / "home" / "run.json").is_file()
