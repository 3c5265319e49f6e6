"""Ctrl-C during long computations (issue #15 item 8): ``pi-env solve``/``replay`` while the exact joint
count runs, and ``benchmarks/joint_worst_case.py``, end with one line and exit status 130, no traceback.

The commands run in a subprocess sent a real SIGINT. So that the signal lands mid-computation
whatever the machine's speed, the joint count's numba kernel (``pi_env.solvers.joint._site_expand``)
is wrapped: the first call says ``ready`` on stderr and then the real kernel runs again and again
on its real arguments (a computation that never ends, interrupted in or between kernel calls).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "data" / "solver" / "5p_seed300.record.json"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

ENDLESS_KERNEL = """
import sys
import pi_env.solvers.joint as joint
real = joint._site_expand
def endless(*args):
    sys.stderr.write("ready\\n"); sys.stderr.flush()
    while True:
        real(*args)
joint._site_expand = endless
from pi_env.apps.cli import main
sys.exit(main(sys.argv[1:]))
"""


def corner_record(path: Path, failed: int, rounds: int = 1) -> Path:
    """A typed-in first-edition 5-player record (no case given) of ``failed`` failed solves of random
    triples per round, players in turn: the many-failed-solves corner of the joint count."""
    doc = json.loads(FIXTURE.read_text())
    rng = np.random.default_rng(7)
    r0 = doc["rounds"][0]
    locations = list(r0["tiles"]["suspect"])
    new_rounds = []
    for _ in range(rounds):
        events = [{"player": (r0["first_player"] + i) % 5,
                   "solve": [SUSPECT_NAMES[rng.integers(12)], EVIDENCE_NAMES[rng.integers(10)],
                             locations[rng.integers(14)]], "correct": False} for i in range(failed)]
        new_rounds.append({"first_player": r0["first_player"], "tiles": r0["tiles"], "events": events})
    doc["rules"]["edition"] = "first"
    doc["rounds"] = new_rounds
    doc.pop("seed", None)
    path.write_text(json.dumps(doc))
    return path


def interrupt_when(proc: subprocess.Popen, marker: bytes, timeout: float = 300) -> bytes:
    """Wait for ``marker`` on the process's stderr, send SIGINT, return all of stderr."""
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        os.set_blocking(proc.stderr.fileno(), False)
        while marker not in seen:
            assert time.monotonic() < deadline, f"no {marker!r} on stderr: {seen.decode(errors='replace')}"
            assert proc.poll() is None, f"ended first ({proc.returncode}): {seen.decode(errors='replace')}"
            chunk = proc.stderr.read()
            seen += chunk or b""
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        os.set_blocking(proc.stderr.fileno(), True)
        rest = proc.communicate(timeout=120)[1]
        return seen + (rest or b"")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("command", [["solve", "--player", "1"], ["replay"]])
def test_ctrl_c_during_joint_count_exits_130_with_one_line(tmp_path, command):
    record = corner_record(tmp_path / "corner.json", failed=20, rounds=2)
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = subprocess.Popen([sys.executable, "-c", ENDLESS_KERNEL, command[0], str(record), *command[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    err = interrupt_when(proc, b"ready").decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == "pi-env: interrupted"
    assert lines.count("ready") == 1 and lines[-2] == "ready"  # nothing else said between
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_ctrl_c_ends_the_worst_case_benchmark_with_130(tmp_path):
    proc = subprocess.Popen([sys.executable, str(REPO / "benchmarks" / "joint_worst_case.py"), "--quick"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    err = interrupt_when(proc, b"adversarial search").decode()  # its first progress bar
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.rstrip().splitlines()[-1] == "joint_worst_case: interrupted"
    assert list(tmp_path.iterdir()) == []


def test_caused_by_interrupt_follows_the_chain():
    from pi_env.apps.interrupts import caused_by_interrupt

    def chained() -> SystemError:
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("returned a result with an exception set") from exc
        except SystemError as outer:
            return outer

    assert caused_by_interrupt(KeyboardInterrupt())
    assert caused_by_interrupt(chained())
    assert not caused_by_interrupt(SystemError("a real failure"))
    try:
        try:
            raise ValueError("x")
        except ValueError:
            raise SystemError("y")  # context, not an interruption
    except SystemError as exc:
        assert not caused_by_interrupt(exc)


def test_exit_130_when_interrupted_prints_one_line(capsys):
    from pi_env.core.interrupts import exit_130_when_interrupted

    def interrupted_in_kernel() -> int:  # Ctrl-C inside a numba kernel: a SystemError caused by it
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("returned a result with an exception set") from exc

    def fails() -> int:
        raise SystemError("a real failure")

    assert exit_130_when_interrupted(lambda: 7, "unused") == 7
    assert capsys.readouterr().err == ""
    assert exit_130_when_interrupted(interrupted_in_kernel, "prog: interrupted") == 130
    assert capsys.readouterr().err == "prog: interrupted\n"
    with pytest.raises(SystemError, match="a real failure"):
        exit_130_when_interrupted(fails, "unused")
    assert capsys.readouterr().err == ""


def test_exit_130_when_interrupted_turns_sigterm_into_an_interrupt(capsys):
    from pi_env.core.interrupts import exit_130_when_interrupted

    def killed() -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises KeyboardInterrupt before this ends
        return 0

    previous = signal.getsignal(signal.SIGTERM)
    assert exit_130_when_interrupted(killed, "prog: terminated") == 130
    assert capsys.readouterr().err == "prog: terminated\n"
    assert signal.getsignal(signal.SIGTERM) == previous  # restored


def test_interrupted_while_starting_exits_130_only_under_python_m(capsys):
    from pi_env.core.interrupts import interrupted_while_starting

    with pytest.raises(SystemExit) as stop:
        with interrupted_while_starting("__main__", "python -m some.tool"):
            raise KeyboardInterrupt
    assert stop.value.code == 130 and stop.value.__cause__ is None and stop.value.__suppress_context__
    assert capsys.readouterr().err == "python -m some.tool: interrupted while starting; nothing written\n"
    with pytest.raises(KeyboardInterrupt):  # imported, not run: the caller decides
        with interrupted_while_starting("some.tool", "python -m some.tool"):
            raise KeyboardInterrupt
    with interrupted_while_starting("__main__", "python -m some.tool"):
        pass
    assert capsys.readouterr().err == ""


def test_signals_held_defers_and_records_a_signal():
    """A Ctrl-C or SIGTERM inside the block does not interrupt it; it is recorded for the caller."""
    import os
    import signal

    from pi_env.core.interrupts import signals_held

    with signals_held() as held:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        done = True
    assert done and held == [signal.SIGINT, signal.SIGTERM]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
