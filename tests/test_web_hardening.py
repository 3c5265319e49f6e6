"""The web app against hostile or broken requests (the tester's findings on issue #14): other web
pages (Host, Origin, Sec-Fetch-Site, Content-Type), bodies too large or too deep, records opened by
path that are no regular files, bytes that cannot be encoded, opened replays that pile up, slow
replay work on the event loop, and any unexpected error. Every refusal is a 4xx answer with one
line and changes nothing; nothing is a 500 without a one-line reason."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the API tests need httpx (test extra)")


from pi_env.apps.web.app import MAX_BODY, create_app  # noqa: E402
from pi_env.apps.web.guard import HostPolicy  # noqa: E402
from pi_env.records.record_file import record_to_dict  # noqa: E402

from web_client import client, one_line  # noqa: E402




def _record_text(players=3, seed=6, names=None):
    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig

    cfg = GameConfig(num_players=players, variants=("fast",))
    _, rec = play_game(cfg, ["deducer"] * players, seed)
    doc = record_to_dict(rec.record())
    if names is not None:
        doc["players"] = names
    return json.dumps(doc)


# -- other web pages: DNS rebinding and cross-site requests --------------------------------------------

def test_host_policy_accepts_only_the_servers_own_names():
    loop = HostPolicy("127.0.0.1", 8000)
    for ok in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000", "localhost.:8000"):
        assert loop.allows(ok), ok
    for bad in ("evil.example:8000", "evil.example", "127.0.0.1:8001", "127.0.0.1", "", "[::1", "a:b:c",
                "127.0.0.1:80x", "10.0.0.1:8000", "localhost:08000x"):
        assert not loop.allows(bad), bad
    named = HostPolicy("box.lan", 80)
    assert named.allows("box.lan") and named.allows("box.lan:80") and not named.allows("other.lan")
    assert not named.allows("127.0.0.1")
    ip = HostPolicy("192.168.1.5", 8000)
    assert ip.allows("192.168.1.5:8000") and not ip.allows("evil.example:8000")
    wild = HostPolicy("0.0.0.0", 8000)  # any address of this machine, by number; names only its own
    assert wild.allows("192.168.1.5:8000") and wild.allows("[fe80::1]:8000") and wild.allows("localhost:8000")
    assert not wild.allows("evil.example:8000") and not wild.allows("192.168.1.5:9000")


def test_requests_from_other_pages_are_refused_and_change_nothing(tmp_path):
    body = json.dumps({"seats": ["random", "random"]})
    with client(tmp_path) as c:
        # DNS rebinding: the attacker's name pointing at 127.0.0.1 reaches the socket with its own Host
        one_line(c.get("/api/games", headers={"host": "evil.example:8000"}), 400, "Host")
        one_line(c.get("/", headers={"host": "evil.example"}), 400, "evil.example")
        one_line(c.get("/api/games", headers={"host": "127.0.0.1:9999"}), 400, "Host")
        # CSRF: a page elsewhere posting with fetch(..., {mode: "no-cors"})
        for headers, status, fragment in [
            ({"origin": "http://evil.example", "content-type": "application/json"}, 403, "evil.example"),
            ({"origin": "null", "content-type": "application/json"}, 403, "other page"),
            ({"origin": "http://127.0.0.1:8001", "content-type": "application/json"}, 403, "other page"),
            ({"sec-fetch-site": "cross-site", "content-type": "application/json"}, 403, "other page"),
            ({"sec-fetch-site": "same-site", "content-type": "application/json"}, 403, "other page"),
            ({"content-type": "text/plain"}, 415, "application/json"),
            ({"content-type": "application/x-www-form-urlencoded"}, 415, "application/json"),
            ({}, 415, "application/json"),
        ]:
            one_line(c.post("/api/games", content=body, headers=headers), status, fragment)
        replay = json.dumps({"text": _record_text()})
        one_line(c.post("/api/replays", content=replay, headers={"content-type": "text/plain"}), 415, "JSON")
        one_line(c.post("/api/solo", content="{}", headers={"origin": "http://evil.example",
                                                              "content-type": "application/json"}), 403, "other page")
        assert c.get("/api/games").json() == {"games": []}
        assert c.app.state.store.count_replays() == 0
        # this server's own pages (same origin, any of its names) are served
        for origin, host in (("http://127.0.0.1:8000", "127.0.0.1:8000"), ("http://localhost:8000", "localhost:8000")):
            r = c.post("/api/games", content=body, headers={"origin": origin, "host": host, "sec-fetch-site":
                                                            "same-origin", "content-type": "application/json; charset=utf-8"})
            assert r.status_code == 201, r.text
        # a page of one of this server's names posting to another of its names is another origin
        one_line(c.post("/api/games", content=body, headers={"origin": "http://localhost:8000",
                                                              "host": "127.0.0.1:8000",
                                                              "content-type": "application/json"}), 403, "other page")
        assert len(c.get("/api/games").json()["games"]) == 2


# -- bodies ----------------------------------------------------------------------------------------------

def _asgi_post(app, path, chunks, headers=()):
    """POST ``chunks`` (an iterator of bytes) to the ASGI app directly; returns (status, body, bytes
    the app pulled)."""
    pulled = 0
    sent: list[dict] = []
    it = iter(chunks)

    async def receive():
        nonlocal pulled
        try:
            chunk = next(it)
        except StopIteration:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), *headers],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(body), pulled


def test_a_streamed_body_is_cut_off_at_the_limit(tmp_path):
    """A chunked 300 MB body (no Content-Length) is refused once the limit is passed: the app pulls
    at most the limit plus one chunk, never the whole body; a declared size over the limit is
    refused before any byte is read."""
    app = create_app(tmp_path)
    try:
        chunk = b" " * 65536
        total = 300_000_000 // len(chunk)
        status, doc, pulled = _asgi_post(app, "/api/replays", (chunk for _ in range(total)),
                                         headers=[(b"transfer-encoding", b"chunked")])
        assert status == 413 and "too large" in doc["error"], doc
        assert MAX_BODY < pulled <= MAX_BODY + len(chunk)
        status, doc, pulled = _asgi_post(app, "/api/games/x/move", (chunk for _ in range(total)),
                                         headers=[(b"content-length", b"300000000")])
        assert status == 413 and "300000000 bytes" in doc["error"] and pulled == 0
    finally:
        app.state.solver.close()
        app.state.store.close()


def test_deep_nesting_null_bytes_and_lone_surrogates_are_4xx(tmp_path):
    deep = "[" * 5000 + "]" * 5000
    with client(tmp_path) as c:
        gid = c.post("/api/games", json={"seats": ["human", "human"], "seed": 3}).json()["id"]
        for url in (f"/api/games/{gid}/move", "/api/replays", "/api/games", "/api/solo"):
            one_line(c.post(url, content=deep, headers={"content-type": "application/json"}), 400, "nested")
        one_line(c.post("/api/replays", json={"text": deep}), 422, "nested")
        one_line(c.post("/api/replays", json={"path": "/etc/\u0000passwd"}), 422, "cannot open")
        for raw in ('{"path": "\\udcff"}', '{"text": "\\udcff"}', '{"seats": ["\\ud800", "random"]}',
                    '{"name": "a\\udfffb"}'):
            url = "/api/games" if "seats" in raw else "/api/solo" if "name" in raw else "/api/replays"
            r = c.post(url, content=raw, headers={"content-type": "application/json"})
            one_line(r, 400, "surrogate")
        one_line(c.post("/api/replays", content=b'{"text": "\xff\xfe"}', headers={"content-type": "application/json"}),
                 400, "UTF-8")
        one_line(c.post("/api/games", content="1" * 5000, headers={"content-type": "application/json"}), 400, "JSON")
        assert c.get("/api/games").json()["games"][0]["moves"] == 0 and len(c.get("/api/games").json()["games"]) == 1


def test_leaderboard_of_a_seed_out_of_range_is_422(tmp_path):
    """A seed past SQLite's 64-bit integers was a 500 (OverflowError); out-of-range numbers are 422."""
    with client(tmp_path) as c:
        one_line(c.get(f"/api/leaderboard?seed={2**63}"), 422, "'seed' must be 0..2**63-1")
        one_line(c.get("/api/leaderboard?seed=-1"), 422, "'seed' must be 0..2**63-1")
        one_line(c.get("/api/leaderboard?seed=1&investigators=15"), 422, "'investigators' must be 0..14")
        one_line(c.get("/api/leaderboard?seed=1&investigators=-5"), 422, "'investigators' must be 0..14")
        assert c.get(f"/api/leaderboard?seed={2**63 - 1}&investigators=0").json() == {"seed": 2**63 - 1, "rows": []}


def test_an_unexpected_error_is_a_one_line_json_500_and_the_server_goes_on(tmp_path, caplog, monkeypatch):
    with client(tmp_path) as c:
        def broken(doc):
            raise RuntimeError("boom")

        monkeypatch.setattr(c.app.state.games, "create", broken)
        with caplog.at_level(logging.ERROR, logger="pi_env.web"):
            r = c.post("/api/games", json={"seats": ["random", "random"]})
        reason = one_line(r, 500, "internal error")
        assert "RuntimeError" in reason and "boom" not in reason  # details go to the log only
        assert any("boom" in (rec.exc_text or "") or (rec.exc_info and "boom" in str(rec.exc_info[1]))
                   for rec in caplog.records)
        assert c.get("/api/games").status_code == 200


# -- Solo Time Attack: the seed fixes the case -------------------------------------------------------

def test_no_solo_response_names_the_seed_before_the_solve(tmp_path, monkeypatch):
    """A random case's seed is in no response (create, view, move, hint) until the case is solved,
    nor in its label; then the view gives it (for playing it again) and the leaderboard row is
    under it. A seed the player chose is not echoed either (``seed`` is null until the solve)."""
    import pi_env.apps.solo_app as solo_app
    from pi_env.apps.solo_app import game_from_seed
    from pi_env.core.constants import SOLVE_BASE

    seed = 7_000_000_123
    monkeypatch.setattr(solo_app, "random_seed", lambda: seed)
    reference = game_from_seed(seed)
    with client(tmp_path) as c:
        r = c.post("/api/solo", json={"name": "Ann"})
        sid = r.json()["id"]
        texts = [r.text]
        v = c.get(f"/api/solo/{sid}").json()
        assert v["source"] == "a random case" and v["seed"] is None
        texts.append(json.dumps(v))
        r = c.post(f"/api/solo/{sid}/move", json={"version": 0, "action": 3})
        texts += [r.text, c.post(f"/api/solo/{sid}/hint").text, c.get(f"/api/solo/{sid}").text, c.get("/").text]
        assert all(str(seed) not in t for t in texts)
        done = c.post(f"/api/solo/{sid}/move", json={"version": 1, "action": SOLVE_BASE + reference.case}).json()
        assert done["done"] and done["seed"] == seed and done["case"]["id"] == reference.case
        assert c.get(f"/api/leaderboard?seed={seed}&investigators=5").json()["rows"][0]["name"] == "Ann"
        chosen = c.post("/api/solo", json={"seed": 7}).json()["id"]
        v = c.get(f"/api/solo/{chosen}").json()
        assert v["seed"] is None and v["source"] == "seed 7"
    with client(tmp_path) as c2:  # after a restart the random case is still unnamed
        assert c2.get(f"/api/solo/{sid}").json()["seed"] == seed
        assert c2.get(f"/api/solo/{chosen}").json()["seed"] is None


# -- records opened by path -----------------------------------------------------------------------------

def test_only_regular_files_are_opened_by_path_with_one_answer(tmp_path):
    """Devices, named pipes, sockets and folders are refused before they are opened (a pipe used to
    freeze every client, /dev/zero to fill the memory); so are missing files, files over the limit
    and files that are not UTF-8, all with the same one-line answer. A record file (or a link to
    one) opens."""
    import socket

    good = tmp_path / "game.json"
    good.write_text(_record_text())
    link = tmp_path / "link.json"
    link.symlink_to(good)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_BODY + 1)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"x": "caf\xe9"}')
    # readable files that are no record: their parse or check errors would quote them (it said "the
    # record is not JSON (Expecting value at line 1, column 1)" for /etc/shadow)
    not_json = tmp_path / "secret.txt"
    not_json.write_text("root:$6$salt$hash:19000:0:99999:7:::\n")
    config = tmp_path / "config.json"
    config.write_text('{"format": "pi-record/1", "password": "hunter2", "rounds": [{"x": "hunter2"}]}')
    paths = ["/dev/zero", "/dev/urandom", "/dev/null", str(fifo), str(sock_path), str(tmp_path), str(big),
             str(latin), str(tmp_path / "missing.json"), "/root/../nonexistent/x", "~/../../nope",
             str(not_json), str(config)]
    with client(tmp_path / "data") as c:
        answers: dict[str, object] = {}

        def ask():
            for p in paths:
                answers[p] = c.post("/api/replays", json={"path": p})

        t = threading.Thread(target=ask, daemon=True)
        t.start()
        t.join(60)
        if t.is_alive():  # release a server stuck on the pipe, then fail
            with open(fifo, "wb"):
                pass
            pytest.fail("opening a record by path blocked the server")
        for p in paths:
            reason = one_line(answers[p], 422, "cannot open")
            shown = reason.split(" as a record", 1)
            assert shown[1] == (f": it must be a readable regular file (not a folder, device or pipe) holding a "
                                f"pi-record/1 record of at most {MAX_BODY} bytes ('pi-env replay PATH' says what "
                                f"is wrong); or upload it"), reason
        for p in (good, link):
            r = c.post("/api/replays", json={"path": str(p)})
            assert r.status_code == 201, r.text
        assert c.app.state.store.count_replays() == 1  # the same record: stored once
    server.close()


# -- opened replays: bounded in memory and on disk, built off the event loop ------------------------

def test_opened_replays_are_bounded_and_come_back_from_the_database(tmp_path):
    texts = [_record_text(names=[f"P{i}a", f"P{i}b", f"P{i}c"]) for i in range(5)]
    with client(tmp_path, replays_in_memory=2, stored_replays=3) as c:
        ids = []
        for text in texts:
            r = c.post("/api/replays", json={"text": text})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
            assert len(c.app.state.replays) <= 2
        assert len(set(ids)) == 5 and c.app.state.store.count_replays() == 3
        assert c.post("/api/replays", json={"text": texts[4]}).json()["id"] == ids[4]  # stored once
        assert c.app.state.store.count_replays() == 3
        for rid in ids[:2]:  # the least recently opened were dropped
            one_line(c.get(f"/api/replays/{rid}"), 404, "open the record again")
            assert c.get(f"/replay/{rid}").status_code == 404
        assert ids[2] not in c.app.state.replays
        s = c.get(f"/api/replays/{ids[2]}").json()  # read back from the database
        assert s["names"] == ["P2a", "P2b", "P2c"] and ids[2] in c.app.state.replays
        assert len(c.app.state.replays) <= 2
    size = len(texts[0].encode())
    with client(tmp_path / "b", stored_replay_bytes=2 * size + 10, replay_text_in_memory=size + 10) as c:
        ids = [c.post("/api/replays", json={"text": t}).json()["id"] for t in texts[:4]]
        assert c.app.state.store.count_replays() == 2 and len(c.app.state.replays) == 1
        assert [c.get(f"/api/replays/{rid}").status_code for rid in ids] == [404, 404, 200, 200]


def test_slow_replay_work_does_not_hold_up_other_requests(tmp_path, monkeypatch):
    """A replay summary or position that takes long (a record of tens of thousands of events) runs
    in a worker thread: other requests are answered meanwhile."""
    from pi_env.apps.web.replay import ReplayDoc

    with client(tmp_path) as c:
        rid = c.post("/api/replays", json={"text": _record_text()}).json()["id"]
        for method in ("summary", "position"):
            release = threading.Event()
            original = getattr(ReplayDoc, method)

            def slow(self, *args, _original=original, **kw):
                release.wait(10)
                return _original(self, *args, **kw)

            monkeypatch.setattr(ReplayDoc, method, slow)
            url = f"/api/replays/{rid}" if method == "summary" else f"/api/replays/{rid}/position?round=1&event=0"
            box = {}
            t = threading.Thread(target=lambda: box.setdefault("r", c.get(url)), daemon=True)
            t.start()
            time.sleep(0.3)
            start = time.monotonic()
            assert c.get("/api/games").status_code == 200
            waited = time.monotonic() - start
            release.set()
            t.join(30)
            assert box["r"].status_code == 200
            assert waited < 2.0, f"/api/games waited {waited:.1f} s behind a slow replay {method}"
            monkeypatch.setattr(ReplayDoc, method, original)


def test_a_slow_solo_hint_holds_up_no_other_request(tmp_path, monkeypatch):
    """A hint computing in a worker thread (tens of seconds while numba compiles) holds the solo
    games' lock: the solo page's view and moves waited for it on the event loop, and every other
    request of the server waited behind them (47 s measured on a fresh install)."""
    import pi_env.apps.web.solo as web_solo

    release = threading.Event()
    original = web_solo.solo_hint

    def slow_hint(game):
        release.wait(10)
        return original(game)

    monkeypatch.setattr(web_solo, "solo_hint", slow_hint)
    with client(tmp_path) as c:
        sid = c.post("/api/solo", json={"seed": 7}).json()["id"]
        box = {}
        threads = [threading.Thread(target=lambda k=k, call=call: box.setdefault(k, call()), daemon=True)
                   for k, call in (("hint", lambda: c.post(f"/api/solo/{sid}/hint")),
                                   ("view", lambda: c.get(f"/api/solo/{sid}")),
                                   ("move", lambda: c.post(f"/api/solo/{sid}/move", json={"version": 0, "action": 0})))]
        threads[0].start()
        time.sleep(0.3)
        for t in threads[1:]:
            t.start()
        time.sleep(0.3)
        start = time.monotonic()
        assert c.get("/api/games").status_code == 200
        waited = time.monotonic() - start
        release.set()
        for t in threads:
            t.join(30)
        assert waited < 2.0, f"/api/games waited {waited:.1f} s behind a solo hint"
        assert box["hint"].status_code == 200 and box["view"].status_code == 200
        assert box["move"].status_code == 200 and box["move"].json()["version"] == 1


def test_moves_with_unknown_keys_favicon_and_token_free_downloads(tmp_path):
    with client(tmp_path) as c:
        gid = c.post("/api/games", json={"seats": ["human", "human"], "seed": 3}).json()
        tokens = [s["link"].rsplit("/", 1)[1] for s in gid["seats"]]
        gid = gid["id"]
        v = c.get(f"/api/games/{gid}/view", headers={"x-seat-token": tokens[0]}).json()
        mover = tokens[v["to_move"]]
        for extra in ({"seat": 1}, {"version": 0, "action": v["display"][0], "player": 0}):
            body = {"version": 0, "action": v["display"][0], **extra}
            one_line(c.post(f"/api/games/{gid}/move", json=body, headers={"x-seat-token": mover}), 422, "unknown key")
        sid = c.post("/api/solo", json={"seed": 7}).json()["id"]
        one_line(c.post(f"/api/solo/{sid}/move", json={"version": 0, "action": 3, "x": 1}), 422, "unknown key 'x'")
        assert c.get(f"/api/games/{gid}/view").json()["version"] == 0 and c.get(f"/api/solo/{sid}").json()["version"] == 0
        r = c.get("/favicon.ico")
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
        for page in ("/", f"/game/{gid}", f"/solo/{sid}"):
            assert '<link rel="icon" href="/static/favicon.svg"' in c.get(page).text
        # the record is asked for with the token in the header only: ?seat= is not read
        one_line(c.get(f"/api/games/{gid}/record?seat=forged"), 409, "once the game is over")
        one_line(c.get(f"/api/games/{gid}/record", headers={"x-seat-token": "forged"}), 403, "not valid")


def test_seat_tokens_are_redacted_from_logged_paths():
    from pi_env.apps.web import redact

    assert redact("/game/abc/seat/Zx-9_q") == "/game/abc/seat/\u2026"
    assert redact('"GET /api/games/abc/record?seat=Zx-9_q&x=1 HTTP/1.1"') == '"GET /api/games/abc/record?seat=\u2026&x=1 HTTP/1.1"'
    assert redact("/game/abc") == "/game/abc"


def test_pages_answer_head_like_get_without_a_body(tmp_path):
    """HEAD on a page or a static file (link checkers, ``curl -I``) is answered as GET is, with no
    body; it used to be 405. A page that does not exist is 404 to HEAD too."""
    import socket
    import urllib.request
    from urllib.parse import urlsplit

    from pi_env.apps.web import background_server

    def raw_head(url):  # the bytes on the wire: the status line, the headers and nothing after them
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall(f"HEAD {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        return int(lines[0].split()[1]), {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}, body

    with background_server(tmp_path) as server:
        req = urllib.request.Request(server + "/api/games", data=json.dumps({"seats": ["human", "greedy"]}).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
        with urllib.request.urlopen(req) as r:
            game = json.loads(r.read())
        for path in ("/", game["spectator"], game["seats"][0]["link"], "/static/game.js", "/favicon.ico"):
            with urllib.request.urlopen(server + path) as r:
                got = r.read()
                kind = r.headers["content-type"]
            status, headers, body = raw_head(server + path)
            assert (status, headers["content-type"], headers["content-length"], body) == (
                200, kind, str(len(got)), b""), path
            assert headers["x-frame-options"] == "DENY"
        status, headers, body = raw_head(server + "/gmae/abc")
        assert (status, body) == (404, b"")
