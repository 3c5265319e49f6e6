"""Playing with friends: ``pi-env serve`` beyond this machine (refused without naming the address;
the Host/Origin guard then accepts exactly the configured names), the lobby where a game waits for
its people, seats handed to an agent, and moves pushed as server-sent events."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the web tests need httpx (test extra)")

from pi_env.apps.cli import main  # noqa: E402
from pi_env.apps.web.guard import HostPolicy  # noqa: E402

from web_client import client, one_line  # noqa: E402

REFUSAL = ("pi-env: error: --host 0.0.0.0 listens beyond this machine: name the address people will open "
           "with --public-url URL or --allow-host NAME (see pi-env serve --help)\n")


# -- beyond this machine -------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])
def test_serve_off_loopback_is_refused_without_a_name(tmp_path, capsys, host):
    assert main(["serve", "--host", host, "--port", "0", "--data", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == REFUSAL.replace("0.0.0.0", host)
    assert not (tmp_path / "web.sqlite3").exists()  # refused before anything was made


@pytest.mark.parametrize("flag, value, fragment", [
    ("--allow-host", "http://box.lan", "--allow-host 'http://box.lan': expected a host name"),
    ("--allow-host", "box.lan:8000", "--allow-host 'box.lan:8000': expected a host name"),
    ("--public-url", "pi.example.org", "--public-url 'pi.example.org': expected http://NAME[:PORT]"),
    ("--public-url", "https://pi.example.org/pi", "--public-url 'https://pi.example.org/pi': expected"),
    ("--public-url", "ftp://pi.example.org", "expected http://NAME[:PORT] or https://NAME[:PORT]"),
])
def test_malformed_names_are_one_line_errors(tmp_path, capsys, flag, value, fragment):
    assert main(["serve", "--host", "0.0.0.0", flag, value, "--port", "0", "--data", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pi-env: error: ") and fragment in err and err.count("\n") == 1


def test_serve_help_names_the_flags(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for text in ("--allow-host NAME", "--public-url URL", "--seat-timeout TIME", "needs --allow-host or --public-url"):
        assert text in out, text


def test_policy_with_configured_names_accepts_exactly_those():
    lan = HostPolicy("0.0.0.0", 8000, allow_hosts=["192.168.1.5", "Box.Lan."])
    for ok in ("192.168.1.5:8000", "box.lan:8000", "BOX.lan", "box.lan:443", "127.0.0.1:8000",
               "localhost:8000", "[::1]:8000"):
        assert lan.allows(ok), ok
    for bad in ("192.168.1.6:8000", "10.0.0.1:8000", "evil.example:8000", "box.lan:9000", "127.0.0.1:9000",
                "127.0.0.1", socket_name() + ":8000"):
        assert not lan.allows(bad), bad
    for origin, host in (("http://192.168.1.5:8000", "192.168.1.5:8000"), ("http://box.lan:8000", "box.lan:8000"),
                         ("https://box.lan", "box.lan"), ("http://localhost:8000", "localhost:8000")):
        assert lan.origin_allowed(origin, host), origin
    for origin, host in (("http://evil.example", "box.lan:8000"), ("http://box.lan:8000", "192.168.1.5:8000"),
                         ("http://box.lan:9000", "box.lan:8000"), ("null", "box.lan:8000"),
                         ("https://box.lan:8443", "box.lan")):
        assert not lan.origin_allowed(origin, host), origin
    proxy = HostPolicy("127.0.0.1", 8000, public_urls=["https://pi.example.org/"])
    for ok in ("pi.example.org", "pi.example.org:443", "127.0.0.1:8000"):
        assert proxy.allows(ok), ok
    for bad in ("pi.example.org:8000", "pi.example.org:80", "www.pi.example.org", "example.org"):
        assert not proxy.allows(bad), bad
    assert proxy.origin_allowed("https://pi.example.org", "pi.example.org")
    assert proxy.origin_allowed("https://pi.example.org:443", "pi.example.org:443")
    assert not proxy.origin_allowed("http://pi.example.org", "pi.example.org")  # not its scheme
    assert not proxy.origin_allowed("https://evil.example", "pi.example.org")


def socket_name() -> str:
    import socket

    return socket.gethostname().lower()


def test_the_app_follows_the_configured_names(tmp_path):
    body = json.dumps({"seats": ["random", "random"]})
    with client(tmp_path, host="0.0.0.0", public_urls=["https://pi.example.org"]) as c:
        assert c.get("/api/games", headers={"host": "pi.example.org"}).json() == {"games": []}
        one_line(c.get("/api/games", headers={"host": "192.168.1.5:8000"}), 400, "pi.example.org")
        one_line(c.get("/", headers={"host": "evil.example"}), 400, "is not this server")
        ok = c.post("/api/games", content=body, headers={"host": "pi.example.org", "origin": "https://pi.example.org",
                                                         "content-type": "application/json"})
        assert ok.status_code == 201, ok.text
        for origin in ("https://evil.example", "http://pi.example.org", "https://pi.example.org:8443"):
            one_line(c.post("/api/games", content=body, headers={"host": "pi.example.org", "origin": origin,
                                                                 "content-type": "application/json"}),
                     403, "another page")
        assert len(c.get("/api/games").json()["games"]) == 1


# -- the lobby and seats handed to agents ---------------------------------------------------------------

def _game(c, seats, **settings):
    r = c.post("/api/games", json={"seats": seats, **settings})
    assert r.status_code == 201, r.text
    doc = r.json()
    return doc["id"], [None if s["link"] is None else s["link"].rsplit("/", 1)[1] for s in doc["seats"]]


def _post(c, gid, what, token, body=None):
    return c.post(f"/api/games/{gid}/{what}", json=body if body is not None else {},
                  headers={"x-seat-token": token} if token else {})


def _view(c, gid, token=None):
    r = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": token} if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def _page(c, gid, token) -> str:
    r = c.get(f"/game/{gid}/seat/{token}")
    assert r.status_code == 200
    return "lobby.js" if "lobby.js" in r.text else "game.js"


def test_a_lobby_waits_for_every_person_then_starts(tmp_path):
    with client(tmp_path) as c:
        gid, tokens = _game(c, ["human", "greedy", "human"], seed=4, lobby=True)
        assert _page(c, gid, tokens[0]) == "lobby.js"
        v = _view(c, gid, tokens[0])
        assert (v["lobby"], v["creator"], v["you_create"], v["your_turn"]) == (True, 0, True, False)
        assert _view(c, gid, tokens[2])["you_create"] is False
        one_line(_post(c, gid, "move", tokens[0], {"version": 0, "action": v["display"][0]}), 409, "has not started")
        r = _post(c, gid, "join", tokens[0])
        assert r.status_code == 200 and r.json()["lobby"] is True
        people = r.json()["people"]
        assert [(p["person"], p["joined"], p["present"]) for p in people] == [
            (True, True, True), (False, False, False), (True, False, False)]
        assert _view(c, gid).get("version") == 0  # the agent waits with the people
        r = _post(c, gid, "join", tokens[2])
        assert r.json()["lobby"] is False
        assert _page(c, gid, tokens[2]) == "game.js"
        assert c.get("/api/games").json()["games"][0]["lobby"] is False
        # a game without a lobby, or with one person, starts at once
        gid2, _ = _game(c, ["human", "random"], lobby=True)
        assert _view(c, gid2)["lobby"] is False
        one_line(c.post("/api/games", json={"seats": ["human", "human"], "lobby": "yes"}), 422, "'lobby' must be")


def test_the_creator_starts_and_agents_take_the_empty_seats(tmp_path):
    with client(tmp_path) as c:
        gid, tokens = _game(c, ["human", "human", "human", "random"], seed=5, lobby=True)
        for t in tokens[:2]:
            assert _post(c, gid, "join", t).status_code == 200
        one_line(_post(c, gid, "start", tokens[1]), 403, "only the game's creator")
        one_line(_post(c, gid, "start", tokens[0], {"agent": "nobody"}), 422, "'agent' must be one of")
        one_line(_post(c, gid, "start", tokens[0], {"agents": "random"}), 422, "unknown key 'agents'")
        r = _post(c, gid, "start", tokens[0], {"agent": "random"})
        assert r.status_code == 200, r.text
        assert (r.json()["lobby"], r.json()["seats"]) == (False, ["human", "human", "random", "random"])
        one_line(_post(c, gid, "start", tokens[0]), 409, "already started")
        one_line(c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[2]}), 403, "handed to an agent")
        assert c.get(f"/game/{gid}/seat/{tokens[2]}").status_code == 403
        # a creator who starts without having joined keeps their own seat
        gid2, tokens2 = _game(c, ["human", "human"], seed=5, lobby=True)
        r = _post(c, gid2, "start", tokens2[0], {"agent": "random"})
        assert (r.json()["seats"], r.json()["you_create"]) == (["human", "random"], True)
    with client(tmp_path) as c:  # a restart keeps the seats as they were handed
        v = _view(c, gid, tokens[1])
        assert (v["lobby"], v["seats"]) == (False, ["human", "human", "random", "random"])
        one_line(c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[2]}), 403, "handed to an agent")


def _play_until_turn(c, gid, tokens, seat):
    """Both people play their first legal clue until it is ``seat``'s turn (at most 6 moves)."""
    for _ in range(6):
        v = _view(c, gid)
        if v["to_move"] == seat:
            return v
        t = tokens[v["to_move"]]
        mine = _view(c, gid, t)
        r = _post(c, gid, "move", t, {"version": mine["version"], "action": mine["legal"]["clues"][0]})
        assert r.status_code == 200, r.text
    raise AssertionError("never the seat's turn")


def test_a_seat_whose_person_left_is_handed_to_an_agent(tmp_path):
    with client(tmp_path) as c:
        gid, tokens = _game(c, ["human", "human"], seed=6, lobby=True)
        for t in tokens:
            _post(c, gid, "join", t)
        one_line(_post(c, gid, "hand", tokens[0], {"seat": 1}), 409, "is still at the table")
        one_line(_post(c, gid, "hand", tokens[0], {"seat": 0}), 422, "another person's seat")
        one_line(_post(c, gid, "hand", tokens[1], {"seat": 0}), 403, "only the game's creator")
        one_line(_post(c, gid, "leave", None), 403, "spectator")
        assert _post(c, gid, "leave", tokens[1]).json() == {"left": True}
        assert _view(c, gid)["people"][1] == {"person": True, "joined": True, "connected": False, "present": False,
                                              "left": True}
        v = _play_until_turn(c, gid, tokens, 1)
        r = _post(c, gid, "hand", tokens[0], {"seat": 1, "agent": "random"})
        assert r.status_code == 200, r.text
        assert r.json()["seats"] == ["human", "random"]
        for _ in range(200):  # the agent plays the seat's pending turn
            if _view(c, gid)["version"] > v["version"]:
                break
            import time

            time.sleep(0.02)
        after = _view(c, gid)
        assert after["version"] > v["version"] and after["log"][v["version"]]["player"] == 1


def test_a_seat_without_a_connection_for_the_timeout_can_be_handed(tmp_path):
    with client(tmp_path, seat_timeout=0.0) as c:
        gid, tokens = _game(c, ["human", "human", "human"], seed=7, lobby=True)
        for t in tokens:
            _post(c, gid, "join", t)
        assert [p["present"] for p in _view(c, gid)["people"]] == [False, False, False]  # no stream open
        assert _post(c, gid, "hand", tokens[0], {"seat": 2, "agent": "random"}).json()["seats"] == [
            "human", "human", "random"]
        # the seat's name says who plays it now (it still read "P2 (human)")
        assert _view(c, gid)["names"] == ["P0 (human)", "P1 (human)", "P2 (human → random)"]
        # in a lobby, handing the last seat it waits for starts the game
        gid, tokens = _game(c, ["human", "human"], seed=8, lobby=True)
        _post(c, gid, "join", tokens[0])
        r = _post(c, gid, "hand", tokens[0], {"seat": 1, "agent": "random"})
        assert (r.json()["lobby"], r.json()["seats"]) == (False, ["human", "random"])


def test_event_stream_tokens_never_reach_the_log():
    from pi_env.apps.web import redact

    assert redact("GET /api/games/abc/events?seat=SECRET&last=x HTTP/1.1") == \
        "GET /api/games/abc/events?seat=\u2026&last=x HTTP/1.1"


# -- moves pushed as server-sent events --------------------------------------------------------------------

def _events(http, url, token, last=None, count=1, timeout=10.0):
    """The first ``count`` events of ``url``'s stream as ``(id, view)``; ``None`` for the last one if
    nothing came within ``timeout`` seconds."""
    import httpx

    headers = {"last-event-id": last} if last else {}
    out, event = [], {}
    try:
        with http.stream("GET", url, params={"seat": token} if token else {}, headers=headers,
                         timeout=httpx.Timeout(30.0, read=timeout)) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), r.text
            assert r.headers["x-frame-options"] == "DENY"  # the security headers on streams too
            for line in r.iter_lines():
                if line.startswith("id: "):
                    event["id"] = line[4:]
                elif line.startswith("event: "):
                    event["kind"] = line[7:]
                elif line.startswith("data: "):
                    event["data"] = json.loads(line[6:])
                elif line == "" and event.get("kind") == "people":
                    assert "id" not in event  # no new id: the views did not change
                    event = {}
                elif line == "" and "data" in event:
                    out.append((event["id"], event["data"]))
                    event = {}
                    if len(out) == count:
                        return out
    except httpx.ReadTimeout:
        out.append(None)
    return out


def test_events_push_each_move_resume_from_the_last_id_and_never_show_another_seat(tmp_path):
    import httpx

    from pi_env.apps.web import background_server
    from pi_env.engine import GameConfig, init

    seed = 9
    state = init(GameConfig(num_players=2), 1, seed=seed)
    case_id = [int(s) * 140 + int(e) * 14 + int(loc) for s, e, loc in state.case[0]]  # each player's own case
    with background_server(tmp_path) as url, httpx.Client(base_url=url) as http:
        doc = http.post("/api/games", json={"seats": ["human", "human"], "seed": seed}).json()
        gid = doc["id"]
        tokens = [s["link"].rsplit("/", 1)[1] for s in doc["seats"]]
        stream = f"/api/games/{gid}/events"
        first = [_events(http, stream, t)[0] for t in tokens]
        for seat, (eid, v) in enumerate(first):
            assert (v["you"], v["version"], v["held"]["player"]) == (seat, 0, 1 - seat)
            assert v["held"]["case"]["id"] == case_id[1 - seat]  # the case it holds, the other's
            assert str(case_id[seat]) not in json.dumps(v["held"])  # never its own
        assert first[0][0] == first[1][0]  # one numbering per game (opening a stream is no new event)
        eid0 = first[0][0]
        # nothing new: a resumed stream waits (here: no event within 1.5 s)
        assert _events(http, stream, tokens[1], last=eid0, timeout=1.5) == [None]
        # a move while seat 1 is disconnected: its stream resumed from the last id gets it at once
        mover = first[0][1]["to_move"]
        mv = http.post(f"/api/games/{gid}/move", json={"version": 0, "action": first[mover][1]["legal"]["clues"][0]},
                       headers={"x-seat-token": tokens[mover]})
        assert mv.status_code == 200, mv.text
        (eid1, v1), = _events(http, stream, tokens[1], last=eid0)
        assert eid1 != eid0 and (v1["version"], v1["you"]) == (1, 1)
        assert v1["held"]["case"]["id"] == case_id[0] and v1["log"][0]["player"] == mover
        assert _events(http, stream, tokens[1], last=eid1, timeout=1.5) == [None]
        # an open stream gets the next move pushed, with no request of its own
        import threading

        got: list = []
        reader = threading.Thread(target=lambda: got.extend(_events(http, stream, tokens[0], last=eid1)))
        reader.start()
        import time

        time.sleep(0.5)
        nxt = 1 - mover
        legal = http.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[nxt]}).json()["legal"]["clues"]
        assert http.post(f"/api/games/{gid}/move", json={"version": 1, "action": legal[0]},
                         headers={"x-seat-token": tokens[nxt]}).status_code == 200
        reader.join(15)
        assert len(got) == 1 and got[0][1]["version"] == 2 and got[0][1]["you"] == 0
        assert got[0][1]["held"]["case"]["id"] == case_id[1]
        # a resumed stream is told who is connected, and then each person connecting, as "people"
        # events without a new id
        import httpx as _h

        def next_block(lines):
            block = []
            for line in lines:
                if line == "" and block:
                    return block
                if line:
                    block.append(line)

        with http.stream("GET", stream, params={"seat": tokens[0]}, headers={"last-event-id": got[0][0]},
                         timeout=_h.Timeout(30.0, read=10.0)) as r0:
            lines = r0.iter_lines()
            assert next_block(lines) == ["retry: 2000"]
            first = next_block(lines)
            with http.stream("GET", stream, params={"seat": tokens[1]}, timeout=_h.Timeout(30.0, read=10.0)) as r1:
                next(r1.iter_lines())
                second = next_block(lines)
        for block, connected in ((first, [True, False]), (second, [True, True])):
            assert block[0] == "event: people" and len(block) == 2, block
            assert [p["connected"] for p in json.loads(block[1].removeprefix("data: "))] == connected
        # a spectator's stream holds no case; a wrong token is refused
        (_, spec), = _events(http, stream, None)
        assert spec["you"] is None and not (spec.get("held") or {}).get("case")
        bad = http.get(stream, params={"seat": "x" * 24})
        assert bad.status_code == 403 and "not valid" in bad.json()["error"]


def test_serve_on_every_interface_answers_only_the_named_hosts(tmp_path):
    """The real server (``pi-env serve`` in its own process): on 0.0.0.0 with ``--public-url``, the
    public name and the loopback names are served; another address of the machine, which the same
    server without names would accept, is refused."""
    pytest.importorskip("uvicorn", reason="the web app needs the 'web' extra")
    import http.client
    import os
    import re
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "pi_env.apps.cli", "serve", "--port", "0", "--quiet", "--host",
                             "0.0.0.0", "--public-url", "https://pi.example.org", "--data", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        first, second = proc.stdout.readline(), proc.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", first).group(1))  # not 0.0.0.0: no one opens it
        assert second == "pi-env serve: reached at https://pi.example.org/\n"

        def status(host: str) -> int:
            con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            con.request("GET", "/api/games", headers={"Host": host})
            code = con.getresponse().status
            con.close()
            return code

        assert [status(h) for h in ("pi.example.org", f"127.0.0.1:{port}", f"localhost:{port}")] == [200, 200, 200]
        assert [status(h) for h in (f"10.1.2.3:{port}", "evil.example", f"pi.example.org:{port}")] == [400, 400, 400]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert "pi-env: warning: listening on 0.0.0.0" in err


@pytest.mark.parametrize(("value", "seconds"), [("20s", 20.0), ("2m", 120.0), ("1h", 3600.0), ("45", 45.0),
                                                ("0", 0.0), ("1.5m", 90.0)])
def test_seat_timeout_takes_durations_like_the_other_serve_options(value, seconds):
    # docs/web.md: "Durations take s, m, h or d"; --seat-timeout 20s was refused ("expected seconds 0..3600")
    from pi_env.apps.cli import build_parser

    args = build_parser().parse_args(["serve", "--seat-timeout", value])
    assert args.seat_timeout == seconds


@pytest.mark.parametrize(("value", "fragment"), [("2h", "at most 1h"), ("soon", "expected a duration such as 90s"),
                                                 ("-5", "expected a duration such as 90s")])
def test_seat_timeout_refuses_what_is_not_a_duration_up_to_an_hour(tmp_path, capsys, value, fragment):
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--seat-timeout", value, "--port", "0", "--data", str(tmp_path)])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pi-env serve: error: argument --seat-timeout: ") and fragment in err, err
    assert err.count("\n") == 1, err
