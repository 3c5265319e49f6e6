"""The web app is safe to leave running: its pages cannot be framed by other pages and carry a
Content-Security-Policy; its own data files are never opened through a path a request gives;
they are private to the user; games expire and their creation is rate-limited; views are built
off the event loop; uploads are checked as ``pi-env replay`` checks files; names are printable
text; daily solo cases are playable only from their date on."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the API tests need httpx (test extra)")



from web_client import client, one_line  # noqa: E402




# -- framing and the Content-Security-Policy -----------------------------------------------------------

EXPECTED_HEADERS = {
    "x-frame-options": "DENY",
    "content-security-policy": ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def test_every_response_forbids_framing_and_sniffing(tmp_path):
    """A page on another port framed the start page and a click inside created a game: every
    answer (pages, assets, JSON, the guard's refusals, 404s) now forbids framing."""
    with client(tmp_path) as c:
        gid = c.post("/api/games", json={"seats": ["random", "random"], "seed": 1}).json()["id"]
        answers = {
            "page": c.get("/"), "game page": c.get(f"/game/{gid}"), "asset": c.get("/static/board.js"),
            "favicon": c.get("/favicon.ico"), "api": c.get("/api/games"), "404": c.get("/nope"),
            "guard refusal": c.get("/", headers={"host": "evil.example:8000"}),
            "cross-site POST": c.post("/api/games", json={"seats": ["random", "random"]},
                                      headers={"origin": "http://127.0.0.1:9000"}),
            "413": c.post("/api/games", content=b"x" * 3_000_000, headers={"content-type": "application/json"}),
        }
        assert [r.status_code for r in answers.values()] == [200, 200, 200, 200, 200, 404, 400, 403, 413]
        for what, r in answers.items():
            got = {k: r.headers.get(k) for k in EXPECTED_HEADERS}
            assert got == EXPECTED_HEADERS, what


def test_the_pages_hold_no_inline_script_or_style(tmp_path):
    """The policy refuses inline scripts, handlers and style attributes: the pages have none (the
    browser tests check that the pages still work under it)."""
    from pi_env.apps.web.http import STATIC

    for page in sorted(STATIC.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert "style=" not in text and "<style" not in text, page.name
        scripts = text.count("<script")
        assert scripts == text.count('<script src="/static/'), page.name
        assert not re.search(r"<[^>]*\son[a-z]+\s*=", text), page.name  # no onclick=... handlers


# -- the server's own files ----------------------------------------------------------------------------

def test_the_servers_own_files_are_never_opened_by_path(tmp_path):
    """``{"path": ".../web.sqlite3"}`` was refused but opened and closed the database, which released
    SQLite's locks: another program then deleted the -wal file the server kept writing to, and the
    games written after were lost at a crash. Now every file of the data folder (by device and
    inode: through a link too) gets the one answer of a missing file without being opened."""
    data = tmp_path / "data"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with client(data) as c:
        first = c.post("/api/games", json={"seats": ["random", "random"], "seed": 1}).json()["id"]
        db, wal = data / "web.sqlite3", data / "web.sqlite3-wal"
        assert wal.exists()
        os.symlink(db, elsewhere / "link.json")
        os.link(db, elsewhere / "hard.json")
        missing = str(elsewhere / "missing.json")
        expected = c.post("/api/replays", json={"path": missing}).json()["error"]
        for path in (db, wal, data / "web.sqlite3-shm", data / "leaderboard.sqlite3", elsewhere / "link.json",
                     elsewhere / "hard.json"):
            r = c.post("/api/replays", json={"path": str(path)})
            assert r.status_code == 422 and r.json()["error"] == expected.replace(missing, str(path)), path
        # another program opens and closes the database: the server's locks are still held, so it
        # leaves the -wal file (it deleted it when they had been released)
        subprocess.run([sys.executable, "-c", "import sqlite3, sys; con = sqlite3.connect(sys.argv[1]); "
                        "con.execute('SELECT count(*) FROM games').fetchone(); con.close()", str(db)], check=True)
        assert wal.exists()
        second = c.post("/api/games", json={"seats": ["random", "random"], "seed": 2}).json()["id"]
        crash = tmp_path / "crash"  # the files as a kill -9 now would leave them
        crash.mkdir()
        for suffix in ("", "-wal", "-shm"):
            if (data / f"web.sqlite3{suffix}").exists():
                (crash / f"web.sqlite3{suffix}").write_bytes((data / f"web.sqlite3{suffix}").read_bytes())
    from pi_env.apps.web.store import Store

    store = Store(crash / "web.sqlite3")
    assert sorted(g[0] for g in store.games()) == sorted([first, second])
    store.close()


def test_the_databases_are_protected_in_a_data_folder_of_many_files(tmp_path, monkeypatch):
    """``--data ~`` can hold more files than the folder scan looks at (MAX_FILES): the databases and
    their side files are protected first, whatever else the folder holds (a full scan missed them:
    opening web.sqlite3 by path then released SQLite's locks)."""
    from pi_env.apps.web import files

    data = tmp_path / "data"
    with client(data) as c:
        c.post("/api/games", json={"seats": ["random", "random"], "seed": 1})
        for i in range(5):
            (data / f"a{i}.txt").write_text("x")
        monkeypatch.setattr(files, "MAX_FILES", 2)  # fewer than the folder holds
        ids = files.file_ids(data)
        for name in ("web.sqlite3", "web.sqlite3-wal", "web.sqlite3-shm"):
            st = os.stat(data / name)
            assert (st.st_dev, st.st_ino) in ids, name
        missing = str(tmp_path / "missing.json")
        expected = c.post("/api/replays", json={"path": missing}).json()["error"]
        r = c.post("/api/replays", json={"path": str(data / "web.sqlite3")})
        assert r.status_code == 422 and r.json()["error"] == expected.replace(missing, str(data / "web.sqlite3"))


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_data_folder_and_databases_are_private(tmp_path):
    """The database holds every game's seed (which fixes every hidden case): it was created
    world-readable. The folder is created 0700, the databases and SQLite's side files 0600 (under
    the usual umask 022), and a database of an earlier run open to others is made private with a
    one-line notice."""
    old = os.umask(0o022)
    try:
        data = tmp_path / "new" / "data"
        with client(data) as c:
            c.post("/api/games", json={"seats": ["random", "random"], "seed": 1})
            files = sorted(p.name for p in data.iterdir())
            assert files == ["web.sqlite3", "web.sqlite3-shm", "web.sqlite3-wal"]
            assert {name: _mode(data / name) for name in files} == dict.fromkeys(files, 0o600)
            assert _mode(data) == 0o700
        old_run = tmp_path / "old"
        from pi_env.apps.web.store import Store

        Store(old_run / "web.sqlite3").close()  # as an earlier version left it: readable by everyone
        os.chmod(old_run, 0o755)
        for name in ("web.sqlite3", "leaderboard.sqlite3"):
            (old_run / name).touch()
            os.chmod(old_run / name, 0o644)
        notices = []
        with client(old_run, notice=notices.append):
            pass
        assert notices == [f"{old_run / name} was open to other users (mode 0644): now 0600, owner only"
                           for name in ("web.sqlite3", "leaderboard.sqlite3")]
        assert _mode(old_run / "web.sqlite3") == _mode(old_run / "leaderboard.sqlite3") == 0o600
        notices.clear()
        with client(old_run, notice=notices.append):
            pass
        assert notices == []
    finally:
        os.umask(old)


# -- uploads are checked as files are ------------------------------------------------------------------

def _record_doc(players=3, seed=6):
    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig
    from pi_env.records.record_file import record_to_dict

    _, rec = play_game(GameConfig(num_players=players, variants=("fast",)), ["deducer"] * players, seed)
    return record_to_dict(rec.record())


def test_an_upload_with_a_duplicate_key_is_refused_as_replay_refuses_the_file(tmp_path):
    """A record with a key given twice was opened (201) from an upload, while ``pi-env replay``
    refuses the same file: the upload now goes through the loader's checks, with its message."""
    from pi_env.core.errors import RecordError
    from pi_env.records.record_file import load_record

    text = json.dumps(_record_doc(), indent=1)
    first = text.index('"player": ')  # the first event's player, given twice
    text = text[:first] + '"player": 2, ' + text[first:]
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as refused:
        load_record(path)
    assert str(refused.value) == "round 1, event 0: duplicate key 'player' (a key may appear once per object)"
    with client(tmp_path / "data") as c:
        r = c.post("/api/replays", json={"text": text})
        assert r.status_code == 422
        assert r.json() == {"error": f"malformed record: {refused.value}"}
        assert c.post("/api/replays", json={"text": text.replace('"player": 2, ', "", 1)}).status_code == 201
        one_line(c.post("/api/replays", json={"text": "[1]"}), 422,
                 "malformed record: record: must be an object, got [1]")
        one_line(c.post("/api/replays", json={"text": "{"}), 422, "malformed record: not valid JSON: ")


# -- names -------------------------------------------------------------------------------------------

def test_a_request_body_giving_a_key_twice_is_refused(tmp_path):
    """A request body was read as ``json.loads`` reads it, the last of two equal keys silently kept:
    ``{"text": A, "text": B}`` opened B, ``{"version": 0, "action": X, "action": Y}`` played Y, while
    anything reading the first (a proxy's filter, a person reading a log) saw A or X. As records
    are (``pi-env replay`` refuses such a file), a body with a key given twice is refused, and
    nothing changes."""
    with client(tmp_path) as c:
        gid = c.post("/api/games", json={"seats": ["human", "human"], "seed": 3}).json()["id"]
        for url, raw in (("/api/replays", '{"text": "{}", "text": "[]"}'),
                         (f"/api/games/{gid}/move", '{"version": 0, "action": 1, "action": 2}'),
                         ("/api/games", '{"seats": ["human", "random"], "x": {"seed": 1, "seed": 2}}'),
                         ("/api/solo", '{"seed": 1, "name": "a", "name": "b"}')):
            r = c.post(url, content=raw, headers={"content-type": "application/json"})
            one_line(r, 400, "the request body gives the key")
        assert [g["moves"] for g in c.get("/api/games").json()["games"]] == [0]


def test_player_names_are_printable_text_on_one_line(tmp_path):
    """Names took line breaks and NUL (into the records, the leaderboard, other players' pages): a
    name is printable text, stripped, 1..40 characters; a refusal says why and creates nothing."""
    with client(tmp_path) as c:
        def game(names):
            return c.post("/api/games", json={"seats": ["human", "random"], "names": names})

        one_line(game(["Ann\nBob", "Cy"]), 422,
                 "'names'[0] must be printable text on one line: it holds '\\n' (a line break, tab or control "
                 "character)")
        one_line(game(["Ann", "C\x00y"]), 422, "'names'[1] must be printable text on one line: it holds '\\x00'")
        one_line(game(["Ann", "\u202eCy"]), 422, "'names'[1] must be printable text on one line: it holds '\\u202e' "
                                                 "(right-to-left override)")
        # a joiner between two visible characters is part of a name (an emoji sequence, a Persian name);
        # alone, or a name of blanks and combining marks only, it is refused
        one_line(game(["Ann", "\u200dCy"]), 422, "'names'[1] must be printable text on one line: it holds '\\u200d' "
                                                 "(zero width joiner)")
        for blank in ("\u3164", "\u0301", "\u2800\u2800"):
            one_line(game(["Ann", blank]), 422, "'names'[1] must show at least one letter, digit or symbol, got ")
        one_line(game(["   ", "Cy"]), 422, "'names'[0] must be 1..40 characters (spaces around it not counted), got 0")
        one_line(game(["A" * 41, "Cy"]), 422,
                 "'names'[0] must be 1..40 characters (spaces around it not counted), got 41")
        one_line(game([7, "Cy"]), 422, "'names'[0] must be a name (text), got int")
        one_line(game(["Ann"]), 422, "'names' must list one name (1..40 characters) per seat")
        one_line(c.post("/api/solo", json={"seed": 3, "name": "Tess\r\nAdmin"}), 422,
                 "'name' must be printable text on one line: it holds '\\r'")
        assert c.get("/api/games").json()["games"] == []
        r = game(["  Ann Lee ", "Cy-" + "x" * 37])
        assert r.status_code == 201 and [s["name"] for s in r.json()["seats"]] == ["Ann Lee", "Cy-" + "x" * 37]
        sid = c.post("/api/solo", json={"seed": 3, "name": " Tess "}).json()["id"]
        assert c.get(f"/api/solo/{sid}").json()["name"] == "Tess"
        r = game(["\U0001f469\u200d\U0001f4bb Ann", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"])
        assert r.status_code == 201, r.text


def test_a_solo_name_that_is_not_text_is_refused_as_in_a_game(tmp_path):
    """A game refused a name that is not text (``'names'[0] must be a name (text), got int``), but
    a solo game took ``0``, ``false`` or ``[]`` as no name and named the player "player". Now only
    a missing name (absent, null or empty) is "player"."""
    with client(tmp_path) as c:
        for value, kind in ((0, "int"), (False, "bool"), ([], "list"), ({}, "dict")):
            one_line(c.post("/api/solo", json={"seed": 3, "name": value}), 422,
                     f"'name' must be a name (text), got {kind}")
        for body in ({"seed": 3}, {"seed": 3, "name": None}, {"seed": 3, "name": ""}):
            sid = c.post("/api/solo", json=body).json()["id"]
            assert c.get(f"/api/solo/{sid}").json()["name"] == "player"


# -- daily cases ---------------------------------------------------------------------------------------

def test_daily_cases_only_from_their_date_on_and_the_leaderboard_marks_them(tmp_path):
    """Any date's daily case, future ones included, could be played and ranked: a daily case is
    playable from its date on (UTC, the server's clock), and each leaderboard row says whether it
    was played as the daily case (its date) or from its seed (``None``)."""
    import datetime as dt

    from pi_env.apps.solo_app import game_from_seed
    from pi_env.core.constants import SOLVE_BASE

    today = dt.datetime(2030, 5, 17, 23, 30, tzinfo=dt.timezone.utc)  # 01:30 on the 18th east of UTC+2
    with client(tmp_path) as c:
        c.app.state.solos.clock = today.timestamp
        one_line(c.post("/api/solo", json={"daily": "2030-05-18"}), 422,
                 "the daily case of 2030-05-18 cannot be played before that date (today is 2030-05-17, UTC, on this "
                 "server)")
        one_line(c.post("/api/solo", json={"daily": "2031-01-01", "difficulty": "hard"}), 422, "before that date")
        one_line(c.post("/api/solo", json={"daily": "2030-02-30"}), 422, "date must be a valid YYYY-MM-DD date")
        case = game_from_seed(None, date="2030-05-17")
        for body in ({"daily": "2030-05-17", "name": "Dee"}, {"seed": case.seed, "name": "Sid"}):
            sid = c.post("/api/solo", json=body).json()["id"]
            c.post(f"/api/solo/{sid}/move", json={"version": 0, "action": SOLVE_BASE + case.case})
            assert c.get(f"/api/solo/{sid}").json()["seed"] == case.seed
        rows = c.get(f"/api/leaderboard?seed={case.seed}").json()["rows"]
        assert [(r["name"], r["daily"]) for r in rows] == [("Dee", "2030-05-17"), ("Sid", None)]
        assert c.post("/api/solo", json={"daily": "2020-01-01"}).status_code == 201  # past dates stay playable


# -- expiry and the rate limit (an injected clock: no sleeping) --------------------------------------

class Clock:
    """A settable clock (seconds since the epoch)."""

    def __init__(self, t=1_900_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def _play_out(c, gid):
    view = c.get(f"/api/games/{gid}/view").json()
    while not view["done"]:
        view = c.get(f"/api/games/{gid}/view?since={view['version']}").json()
    return view


def test_finished_and_abandoned_games_expire_from_memory_and_the_database(tmp_path):
    """Games never expired (3,000 of them made every list and restart slow): a finished game is
    deleted ``finished_ttl`` after its last move, an unfinished one ``idle_ttl`` after its last move,
    solo games too; from memory, the list and the database, and at a restart."""
    from pi_env.apps.web.store import Store

    clock = Clock()
    with client(tmp_path, clock=clock, finished_ttl=3600, idle_ttl=7200) as c:
        def expire():
            c.portal.call(c.app.state.expire)  # on the event loop, as the server's purge task
            return sorted(g["id"] for g in c.get("/api/games").json()["games"])

        over = c.post("/api/games", json={"seats": ["random", "random"], "variants": ["fast"], "seed": 5}).json()["id"]
        _play_out(c, over)
        idle = c.post("/api/games", json={"seats": ["human", "human"], "seed": 6}).json()
        moved = c.post("/api/games", json={"seats": ["human", "human"], "seed": 7}).json()
        solo = c.post("/api/solo", json={"seed": 3}).json()["id"]
        assert expire() == sorted([over, idle["id"], moved["id"]])
        clock.t += 3000
        to_move = c.get(f"/api/games/{moved['id']}/view").json()["to_move"]
        token = moved["seats"][to_move]["link"].rsplit("/", 1)[1]
        view = c.get(f"/api/games/{moved['id']}/view", headers={"x-seat-token": token}).json()
        r = c.post(f"/api/games/{moved['id']}/move", headers={"x-seat-token": token},
                   json={"version": 0, "action": view["legal"]["clues"][0]})
        assert r.status_code == 200
        clock.t += 601  # 3601 s after the finished game's end
        assert expire() == sorted([idle["id"], moved["id"]])
        one_line(c.get(f"/api/games/{over}/view"), 404, f"no game '{over}' on this server")
        clock.t += 3600  # 7201 s after the idle game's creation, 4201 s after the other's move
        assert expire() == [moved["id"]]
        one_line(c.get(f"/api/solo/{solo}"), 404, "no solo game with this link")
        assert c.get(f"/api/games/{idle['id']}/view").status_code == 404
        store = c.app.state.store
        assert [g[0] for g in store.games()] == [moved["id"]] and store.solo(solo) is None
        assert store.moves(over) == [] and store.moves(moved["id"]) == [view["legal"]["clues"][0]]
    clock.t += 3000  # 7201 s after its move: deleted when the server starts again
    with client(tmp_path, clock=clock, finished_ttl=3600, idle_ttl=7200) as c:
        assert c.get("/api/games").json()["games"] == []
    store = Store(tmp_path / "web.sqlite3")
    assert store.games() == []
    store.close()


def test_memory_and_the_database_expire_a_game_at_the_same_moment(tmp_path):
    """The purge read the clock twice, once for the games in memory and once for the database: a
    game whose idle time reached the limit between the two readings was deleted from the database
    but kept in memory, where it went on being played with moves that were no longer stored (a
    restart lost it). One reading decides both."""
    class Ticking(Clock):
        step = 0.0

        def __call__(self):
            self.t += self.step
            return self.t - self.step

    clock = Ticking()
    with client(tmp_path, clock=clock, idle_ttl=100) as c:
        gid = c.post("/api/games", json={"seats": ["human", "human"], "seed": 6}).json()["id"]
        clock.t += 100  # the purge reads 100 s after the creation (not expired), the database 101 s
        clock.step = 1.0
        c.portal.call(c.app.state.expire)
        clock.step = 0.0
        listed = [g["id"] for g in c.get("/api/games").json()["games"]]
        stored = [g[0] for g in c.app.state.store.games()]
        assert (listed, stored) == ([gid], [gid])


def test_new_games_are_rate_limited_per_client_with_retry_after(tmp_path):
    """Creation had no limit (3,000 games in 11.5 s): a client address may start
    ``games_per_minute`` games and solo games at once and that many a minute; past it, 429 with
    Retry-After and one line, and nothing is created."""
    clock = Clock()
    with client(tmp_path, clock=clock, games_per_minute=3) as c:
        def new_game():
            return c.post("/api/games", json={"seats": ["human", "random"], "seed": 1})

        assert [new_game().status_code, c.post("/api/solo", json={"seed": 3}).status_code,
                new_game().status_code] == [201, 201, 201]
        r = new_game()
        one_line(r, 429, "too many new games from this address: at most 3 a minute; try again in 20 s")
        assert r.headers["retry-after"] == "20"
        one_line(c.post("/api/solo", json={"seed": 3}), 429, "try again in 20 s")
        clock.t += 15
        assert new_game().headers["retry-after"] == "5"
        clock.t += 5
        assert new_game().status_code == 201
        assert new_game().status_code == 429
        assert len(c.get("/api/games").json()["games"]) == 3
        assert c.get("/").status_code == 200  # everything else is served as before


def test_a_refused_request_does_not_use_the_allowance(tmp_path):
    """Only what is created counts: a request refused for its body (a bad name, a bad date) used one
    of the client's new games, so a player correcting a typo met 429 instead of the reason."""
    with client(tmp_path, games_per_minute=2) as c:
        for _ in range(5):
            one_line(c.post("/api/games", json={"seats": ["human", "random"], "names": ["A\nB", "C"]}), 422,
                     "must be printable text")
            one_line(c.post("/api/solo", json={"daily": "2026-13-40"}), 422, "")
        assert [c.post("/api/games", json={"seats": ["human", "random"]}).status_code,
                c.post("/api/solo", json={"seed": 3}).status_code,
                c.post("/api/solo", json={"seed": 4}).status_code] == [201, 201, 429]


def test_a_forwarded_for_header_does_not_change_the_client_address(tmp_path):
    """uvicorn trusts ``X-Forwarded-For`` from 127.0.0.1 unless told not to: any program on the
    machine could then start as many games as it liked by naming a new address in each request.
    The server has no proxy in front of it: the address is the socket's."""
    import httpx

    from pi_env.apps.web import background_server

    with background_server(tmp_path, games_per_minute=1) as base, httpx.Client(base_url=base, timeout=60) as c:
        codes = [c.post("/api/games", json={"seats": ["human", "random"], "seed": 1},
                        headers={"x-forwarded-for": f"10.0.0.{i}"}).status_code for i in range(3)]
        assert codes == [201, 429, 429]


def test_serve_does_not_trust_forwarded_headers(tmp_path, monkeypatch):
    """``pi-env serve`` itself (not only the test server) runs uvicorn with ``proxy_headers`` off;
    behind a declared reverse proxy (``--public-url``) it reads them from 127.0.0.1 only, so the
    limit on new games counts each player, not the proxy."""
    import pi_env.apps.web as web

    configs = []

    class NoServer:
        def __init__(self, config):
            configs.append(config)

        def run(self, sockets=None):  # what the server's end would do: the solver worker and database closed
            configs[-1].app.state.solver.close()
            configs[-1].app.state.store.close()

    monkeypatch.setattr(web, "_server", NoServer)
    assert web.serve("127.0.0.1", 0, tmp_path, quiet=True) == 0
    assert [c.proxy_headers for c in configs] == [False]
    assert web.serve("127.0.0.1", 0, tmp_path, quiet=True, public_urls=["https://pi.example.org"]) == 0
    assert [(c.proxy_headers, c.forwarded_allow_ips) for c in configs[1:]] == [(True, "127.0.0.1")]


def test_an_ipv6_client_is_limited_by_its_64_block():
    """Each IPv6 address had its own allowance: a client holds a whole /64 (2**64 addresses) and
    started as many games as it liked, one address per request. IPv6 clients are counted by their
    /64, an IPv4 address written as IPv6 (``::ffff:a.b.c.d``) as the IPv4 address."""
    from starlette.requests import Request

    from pi_env.apps.web.errors import TooManyRequests
    from pi_env.apps.web.http import client_address
    from pi_env.apps.web.limits import RateLimit

    def address(host):
        return client_address(Request({"type": "http", "headers": [], "client": (host, 5000)}))

    assert [address(h) for h in ("2001:db8:1:2::1", "2001:DB8:1:2:ffff::9", "2001:db8:1:3::1",
                                 "::ffff:192.0.2.7", "192.0.2.7", "::1")] == \
        ["2001:db8:1:2::/64", "2001:db8:1:2::/64", "2001:db8:1:3::/64", "192.0.2.7", "192.0.2.7", "::1"]
    limit = RateLimit(1, clock=Clock(0.0))
    limit.take(address("2001:db8::1"))
    with pytest.raises(TooManyRequests):
        limit.take(address("2001:db8::2"))
    limit.take(address("2001:db8:0:1::2"))


def test_the_rate_limit_is_per_address_and_forgets_idle_clients():
    from pi_env.apps.web.errors import TooManyRequests
    from pi_env.apps.web.limits import RateLimit

    clock = Clock(0.0)
    limit = RateLimit(2, clock=clock, max_clients=3)
    for _ in range(2):
        limit.take("a")
    with pytest.raises(TooManyRequests) as refused:
        limit.take("a")
    assert refused.value.retry_after == 30
    limit.take("b")
    limit.take("c")
    clock.t = 60.0  # every bucket is full again: the 4th client's arrival drops the idle ones
    limit.take("d")
    assert sorted(limit._buckets) == ["d"]


def test_spend_gives_the_allowance_back_when_nothing_was_created():
    """``RateLimit.spend`` (new games and new solo games): a block that raises (a refused or failed
    request) gives its allowance back; one that ends normally keeps it used; none left: the block
    does not run."""
    from pi_env.apps.web.errors import TooManyRequests
    from pi_env.apps.web.limits import RateLimit

    limit = RateLimit(1, clock=Clock(0.0))
    with pytest.raises(ValueError, match="^refused$"):
        with limit.spend("a"):
            raise ValueError("refused")
    assert limit._buckets["a"] == (1.0, 0.0)
    ran = []
    with limit.spend("a"):
        ran.append(1)
    assert limit._buckets["a"] == (0.0, 0.0)
    with pytest.raises(TooManyRequests):
        with limit.spend("a"):
            ran.append(2)
    assert ran == [1]


def test_a_database_of_the_previous_version_gains_the_activity_times(tmp_path):
    """A version-2 file (no ``active``/``finished``): opened, its games' ``active`` is the time of
    the last move (or the creation), so they expire from then."""
    import sqlite3

    from pi_env.apps.web.store import SCHEMA_VERSION, Store

    con = sqlite3.connect(tmp_path / "web.sqlite3")
    con.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, created TEXT NOT NULL, spec TEXT NOT NULL);
        CREATE TABLE moves (game TEXT NOT NULL, n INTEGER NOT NULL, action INTEGER NOT NULL, at TEXT NOT NULL,
                            PRIMARY KEY (game, n));
        CREATE TABLE solo (id TEXT PRIMARY KEY, created TEXT NOT NULL, doc TEXT NOT NULL);
        CREATE TABLE replays (id TEXT PRIMARY KEY, created TEXT NOT NULL, text TEXT NOT NULL, digest TEXT,
                              size INTEGER NOT NULL DEFAULT 0, opened REAL NOT NULL DEFAULT 0);
        INSERT INTO games VALUES ('g1', '2030-01-01T10:00:00+00:00', '{}'), ('g2', '2030-01-02T10:00:00+01:00', '{}');
        INSERT INTO moves VALUES ('g1', 0, 3, '2030-01-01T10:00:05+00:00'), ('g1', 1, 4, '2030-01-01T11:00:00+00:00');
        INSERT INTO solo VALUES ('s1', '2030-01-03T00:00:00+00:00', '{}');
        PRAGMA user_version = 2;
    """)
    con.close()
    store = Store(tmp_path / "web.sqlite3", clock=Clock(1_893_715_200.0))  # 2030-01-04 00:00 UTC
    assert [(g[0], g[4], g[5]) for g in store.games()] == [("g1", 1_893_495_600.0, None), ("g2", 1_893_574_800.0, None)]
    assert store._read("PRAGMA user_version")[0][0] == SCHEMA_VERSION == 3
    assert store.expire(finished_ttl=3600, idle_ttl=2 * 86400) == (["g1"], [])
    assert store.expire(finished_ttl=3600, idle_ttl=86400 - 1) == (["g2"], ["s1"])
    store.close()
