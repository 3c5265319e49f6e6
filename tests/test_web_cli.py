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
from pi_env.apps.line_input import completions, game_commands, line_reader, word_completions
from pi_env.core.actions import case_name
from pi_env.records.record_file import load_record


def test_completions_fold_names_and_complete_several_words():
    cmds = game_commands()
    assert completions("clue d", cmds) == ["Doc", "Dutch", "Downtown"]
    assert completions("investigate RICKS", cmds) == ["Rick's Café"]
    assert completions("solve doc / mob k", cmds) == ["Mob Killing"]
    assert completions("cl", cmds) == ["clue"]
    assert completions("clue zz", cmds) == []
    assert word_completions("investigate ricks c", cmds) == ["Café "]
    assert word_completions("solve doc mob", cmds) == ["Mob Killing "]
    assert line_reader(cmds, stdin=io.StringIO("")) is input  # not a terminal: plain input


def test_completion_knows_where_it_is_and_ends_a_word_with_a_space():
    """The first word is a command; then what that command takes, slot by slot (solve: a suspect,
    an evidence, a location); a finished line offers nothing; a unique match gets its space."""
    from pi_env.core.names import element_names

    cmds = game_commands(extra=("hint", "board", "map", "help", "quit"))
    names = list(element_names())
    assert completions("", cmds) == ["clue", "investigate", "solve", "hint", "board", "map", "help", "quit"]
    assert completions("clue ", cmds) == names  # not "clue" again
    assert completions("investigate ", cmds) == names[22:]  # districts only
    assert completions("investigate d", cmds) == ["Downtown"]  # not Doc, not Dutch
    assert completions("solve ", cmds) == names[:12]
    assert completions("solve doc ", cmds) == names[12:22]
    assert completions("solve doc m", cmds) == ["Murder", "Mob Killing"]
    assert completions("solve doc/murder/", cmds) == names[22:]
    assert completions("solve doc murder main", cmds) == ["Main Street"]
    assert completions("solve doc murder main street ", cmds) == []
    assert completions("clue pinky ", cmds) == [] and completions("board ", cmds) == []
    assert completions("h", cmds) == ["hint", "help"]
    assert word_completions("cl", cmds) == ["clue "] and word_completions("clue pin", cmds) == ["Pinky "]
    assert word_completions("h", cmds) == ["hint", "help"]  # several: no space yet
    assert word_completions("investigate little it", cmds) == ["Italy "]


def _serve(*args, tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "serve", "--port", "0", "--quiet",
                             "--data", str(tmp_path), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_serve_prints_its_address_and_warns_off_loopback(tmp_path, host, warned):
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    args = () if host == "127.0.0.1" else ("--host", host, "--allow-host", "box.lan")
    proc = _serve(*args, tmp_path=tmp_path)
    try:
        line = proc.stdout.readline()
        # the address people open: on 0.0.0.0 the allowed name (it printed http://0.0.0.0:PORT/)
        shown = "box.lan" if host == "0.0.0.0" else host
        assert line.startswith(f"pi-env serve: http://{shown}:") and str(tmp_path) in line, line
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


def test_serve_refuses_a_rate_too_large_to_count_with(capsys, tmp_path):
    """``--games-per-minute`` with 401 digits passed the check and ended serve with an
    OverflowError traceback; it is an argument error of one line, as 0 is."""
    for value in ("1" + "0" * 400, "1000001", "0"):
        with pytest.raises(SystemExit) as exc:
            main(["serve", "--port", "0", "--data", str(tmp_path), "--games-per-minute", value])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --games-per-minute: expected a whole number 1..1000000, got {value!r}" in err
        assert len(err.strip().splitlines()) == 1


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
    assert "You hold P1's case:" in out
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


@pytest.mark.parametrize("mode,results", [
    # docs/rules.md §4.3, §5: P0's wrong solve costs 2; at the end of rotation 1 at most one player
    # (P1) has not attempted, so the round ends and P1 scores nothing in it
    ("standard", ["Round 1 result: P0 (human) -2, P1 (greedy) +0",
                  "Round 2 result: P0 (human) -2, P1 (greedy) +0"]),
    # §7: the round's first solve attempt decides it; wrong, the other player wins the round
    ("duel", ["Round 1: P1 (greedy) wins", "Round 2: P1 (greedy) wins"]),
])
def test_play_with_a_person_prints_each_round_result_as_it_ends(monkeypatch, capsys, mode, results):
    """A round that ended went straight to '--- round 2 begins ---' when a person sat at the table;
    it now prints the result line a game without people prints for that round (report_lines: the
    final report's own lines), just before the next round begins."""
    guess = "solve Doc / Murder / Lakeside"  # never P0's case in these rounds of seed 3
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join([guess] * 20) + "\n"))
    code = main(["play", "--mode", mode, "--agents", "human,greedy", "--seed", "3"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    live, report = out[:out.index("Game over (seed 3).")], out[out.index("Game over (seed 3)."):]
    begins = [i for i, line in enumerate(live) if line.startswith("--- round ")]
    assert [live[i] for i in begins] == ["--- round 2 begins ---", "--- round 3 begins ---"]
    assert [live[i - 1] for i in begins] == results
    # once each, and the last round's only in the final report (the prompts' "Round 3, rotation 1")
    assert [line for line in live if line.startswith("Round ") and ", rotation " not in line] == results
    assert [line for line in report if line in results] == results  # the final report says the same


def test_play_human_end_of_input_abandons_without_writing(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n"))
    out_path = tmp_path / "game.json"
    code = main(["play", "--players", "2", "--agents", "deducer,human", "--seed", "1", "--record", str(out_path)])
    assert code == 1 and not out_path.exists()  # Ctrl-D: 1 (Ctrl-C: 130)
    assert "end of input: game abandoned; nothing was written" in capsys.readouterr().err


def test_people_sharing_a_terminal_need_hot_seat_and_never_see_each_others_cases(monkeypatch, capsys):
    """Two 'human' seats at one terminal: refused without --hot-seat (each would see the case the
    other holds); with it, the screen is cleared before and after each person's turn and the
    person presses Enter first, so between two clears only one person's held case is shown."""
    code = main(["play", "--players", "2", "--agents", "human,human", "--seed", "3"])
    assert code == 2 and "add --hot-seat" in capsys.readouterr().err
    import pi_env.apps.cli as cli

    monkeypatch.setattr(cli, "_clear_screen", lambda: print("<<CLEAR>>"))
    guess = "solve Doc / Murder / Lakeside"
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(["", guess] * 60) + "\n"))
    code = main(["play", "--players", "2", "--agents", "human,human", "--seed", "3", "--hot-seat",
                 "--variant", "fast"])
    out = capsys.readouterr().out
    assert code == 0 and "Game over (seed 3)." in out
    screens = out.split("Game over")[0].split("<<CLEAR>>")
    shown = 0
    for screen in screens:
        held = [line for line in screen.splitlines() if line.startswith("You hold ")]
        assert len({line.split("'s case")[0] for line in held}) <= 1, screen
        shown += bool(held)
    assert shown >= 4 and out.count("<<CLEAR>>") >= 2 * shown


def test_serve_ctrl_c_ends_long_polls_and_logs_no_seat_token(tmp_path):
    """Ctrl-C with a game page's 20 s long poll open stops the server within seconds (it waited
    for the poll before); the access log shows no seat token; a solver worker being started
    prints no KeyboardInterrupt traceback (it ignores Ctrl-C; the server stops it)."""
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    import re
    import threading
    import time
    import urllib.request

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "serve", "--port", "0", "--data", str(tmp_path),
                             "--agent-delay", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        line = proc.stdout.readline()
        base = re.search(r"(http://[^/]+)/", line).group(1)

        def call(method, path, body=None, headers=None, timeout=60):
            data = None if body is None else json.dumps(body).encode()
            req = urllib.request.Request(base + path, data=data, method=method, headers=dict(
                headers or {}, **({"content-type": "application/json"} if body is not None else {})))
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read()) if resp.headers.get_content_type() == "application/json" else None

        game = call("POST", "/api/games", {"seats": ["human", "human"], "seed": 5})
        link = game["seats"][0]["link"]
        token = link.rsplit("/", 1)[1]
        urllib.request.urlopen(base + link, timeout=60).read()  # the seat's page: logged
        view = call("GET", f"/api/games/{game['id']}/view", headers={"x-seat-token": token})
        mover = game["seats"][view["to_move"]]["link"].rsplit("/", 1)[1]
        call("POST", f"/api/games/{game['id']}/move", {"version": 0, "action": view["display"][0]},
             headers={"x-seat-token": mover})
        from pi_env.agents.runner import play_game
        from pi_env.engine import GameConfig
        from pi_env.records.record_file import record_to_dict

        _, rec = play_game(GameConfig(num_players=5, variants=("fast",)), ["deducer"] * 5, 4)
        rid = call("POST", "/api/replays", {"text": json.dumps(record_to_dict(rec.record()))})["id"]
        call("GET", f"/api/replays/{rid}/solver?round=1&event=3&player=1&prefetch=1")
        polls = []
        poller = threading.Thread(target=lambda: polls.append(call(
            "GET", f"/api/games/{game['id']}/view?since=1", headers={"x-seat-token": token})), daemon=True)
        poller.start()
        time.sleep(1.0)
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal's Ctrl-C: the whole process group
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - start
        poller.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert took < 8.0, f"the server took {took:.1f} s to stop"
    assert polls and polls[0]["version"] == 1  # the poll was answered, not dropped
    logged = out + err  # uvicorn's access log goes to stdout, the rest to stderr
    assert token not in logged and mover not in logged and "/seat/\u2026" in logged, logged
    assert "Traceback" not in logged and "KeyboardInterrupt" not in logged, logged


def test_serve_with_an_unusable_host_prints_only_the_error(capsys):
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    assert main(["serve", "--host", "nonexist.invalid", "--allow-host", "nonexist.invalid", "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pi-env: error: --host 'nonexist.invalid': ") and err.count("\n") == 1


def test_serve_stops_on_sigterm_to_its_process_group(tmp_path):
    """SIGTERM to the whole process group (`timeout`, `kill -TERM -PGID`, systemd's stop) also kills
    the idle solver worker, which then holds its task queue's lock forever: the server still stops
    within seconds (it hung at "Waiting for application shutdown" before)."""
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    import time
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "serve", "--port", "0", "--data", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
    try:
        base = proc.stdout.readline().split()[2].rstrip("/")
        with urllib.request.urlopen(base + "/api/games", timeout=60) as resp:  # it answers: started
            assert resp.status == 200
        time.sleep(3.0)  # the solver worker is up and idle
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=30)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert took < 10.0, f"the server took {took:.1f} s to stop"


def test_seat_view_lines_label_the_seats_as_the_cli():
    """A person's text view names the seats as every ``pi-env`` command labels them (``P0``,
    ``P1``, ...), its own seat ``P1 (you)``; markers and investigators carry the bare seat labels.
    Spots and traces set by hand on Lakeside's location, one investigator of P1 there."""
    from pi_env.agents.human import seat_view, seat_view_lines
    from pi_env.core.constants import TYPE_OFFSETS
    from pi_env.engine import GameConfig, init, observe

    config = GameConfig(num_players=3)
    st = init(config, 1, seed=0)
    st.spot[0, 0, TYPE_OFFSETS[2]] = 1
    st.trace[0, 2, TYPE_OFFSETS[2]] = 1
    st.inv_count[0, 1] = 1
    st.inv_district[0, 1, 0] = 0
    st.inv_answer[0, 1, 0] = (1, 0)
    st.inv_left[0, 1] = 4
    lines = seat_view_lines(seat_view(observe(st, 1)[0], 3, 1))
    assert next(ln for ln in lines if ln.startswith("  Lakeside ")).endswith(" P0:S P2:T  P1 1S0T")
    assert lines[-4:] == ["  P0: score 0, investigators left 5",
                          "  P1 (you): score 0, investigators left 4  <- to move",
                          "  P2: score 0, investigators left 5",
                          "You hold P2's case: Knuckles / Blackmail / Union Square (you answer its questions; "
                          "your own case is hidden from you)"]
    # given labels replace the defaults
    named = seat_view_lines(seat_view(observe(st, 1)[0], 3, 1), labels=["Ann", "Ben", "Cleo"])
    assert named[-1].startswith("You hold Cleo's case: ")
