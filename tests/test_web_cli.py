"""The terminal side of issue #14: ``pi-env serve`` (address, loopback default, warning for other
hosts), a person in a seat of ``pi-env play`` (prompted with its own seat's view only), and name
completion for the terminal apps."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from pi_env.apps.cli import main
from pi_env.apps.line_input import completions, line_reader, word_completions
from pi_env.core.actions import case_name
from pi_env.records.record_file import load_record


def test_completions_fold_names_and_complete_several_words():
    names = ["clue", "investigate", "Rick's Café", "Road House", "Mob Killing", "Murder", "Doc", "Dutch"]
    assert completions("clue d", names) == ["Doc", "Dutch"]
    assert completions("investigate RICKS", names) == ["Rick's Café"]
    assert completions("solve doc / mob k", names) == ["Mob Killing"]
    assert completions("cl", names) == ["clue"]
    assert completions("clue zz", names) == []
    assert word_completions("investigate ricks c", names) == ["Café"]
    assert word_completions("solve doc mob", names) == ["Mob Killing"]
    assert line_reader(names, stdin=io.StringIO("")) is input  # not a terminal: plain input


def _serve(*args, tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "serve", "--port", "0", "--quiet",
                             "--data", str(tmp_path), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_serve_prints_its_address_and_warns_off_loopback(tmp_path, host, warned):
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    args = () if host == "127.0.0.1" else ("--host", host)
    proc = _serve(*args, tmp_path=tmp_path)
    try:
        line = proc.stdout.readline()
        assert line.startswith(f"pi-env serve: http://{host}:") and str(tmp_path) in line
        import urllib.request

        import re

        port = int(re.search(r"http://[^:]+:(\d+)/", line).group(1))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=30) as resp:
            assert json.loads(resp.read()) == {"games": []}
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert ("pi-env: warning: listening on 0.0.0.0" in err) == warned


def test_serve_argument_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--port", "70000"])
    assert exc.value.code == 2
    assert "port must be 0..65535" in capsys.readouterr().err


def test_a_person_plays_a_seat_in_the_terminal(monkeypatch, capsys, tmp_path):
    guess = "solve Doc / Murder / Lakeside"
    lines = ["help", "clue Nobody", "frobnicate", "board", "map", guess] + [guess] * 40
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    out_path = tmp_path / "game.json"
    code = main(["play", "--players", "2", "--agents", "human,deducer", "--seed", "3", "--record", str(out_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Commands (one per line" in out and "unknown suspect, evidence or location 'Nobody'" in out
    assert "cannot read action 'frobnicate'" in out and "Lakeside: next to Forest Park" in out
    assert "You hold B (player 1)'s case:" in out
    record = load_record(str(out_path))
    before_end = out.split("Game over (seed 3)")[0]
    assert "seed 3" not in before_end  # the seed determines every case: shown only at the end
    for rnd in record.rounds:
        own = case_name(rnd.cases[0], record.board)
        solved = any(ev.kind == "solve" and ev.correct and ev.player == 0 for ev in rnd.events)
        if not solved:
            assert own not in before_end
        held = case_name(rnd.cases[1], record.board)
        assert held in before_end  # the case it holds is shown
    assert "Final standings:" in out


def test_play_human_end_of_input_abandons_without_writing(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n"))
    out_path = tmp_path / "game.json"
    code = main(["play", "--players", "2", "--agents", "deducer,human", "--seed", "1", "--record", str(out_path)])
    assert code == 130 and not out_path.exists()
    assert "game abandoned; nothing was written" in capsys.readouterr().err
