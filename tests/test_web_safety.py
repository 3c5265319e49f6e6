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

from fastapi.testclient import TestClient  # noqa: E402

from pi_env.apps.web.app import create_app  # noqa: E402

BASE = "http://127.0.0.1:8000"


def client(tmp_path, **kw):
    kw.setdefault("agent_delay", 0.0)
    return TestClient(create_app(tmp_path, **kw), base_url=BASE)


def one_line(r, status, fragment):
    assert r.status_code == status, (r.status_code, r.text)
    reason = r.json()["error"]
    assert fragment in reason and "\n" not in reason, reason
    return reason


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
