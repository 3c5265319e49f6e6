"""The game page's server side for players (docs/web.md): HTML error pages for browsers while the
API keeps JSON, the strongest agents selectable, agents' decision times, the round summaries and
the end screen's data."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the test client needs httpx")

from tests.web_client import client  # noqa: E402

HTML = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_unknown_page_is_html_for_a_browser_and_json_for_the_api(tmp_path):
    with client(tmp_path) as c:
        r = c.get("/gmae/abc", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert "no such page: /gmae/abc" in r.text and '<a href="/">' in r.text
        assert "<script" not in r.text and "style=" not in r.text
        r = c.get("/game/nosuchgame", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert "no game &#x27;nosuchgame&#x27; on this server" in r.text
        r = c.get("/api/games/nosuchgame/view", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json"
        assert r.json() == {"error": "no game 'nosuchgame' on this server"}
        r = c.get("/gmae/abc")  # no Accept: text/html (a script): JSON
        assert r.headers["content-type"] == "application/json" and r.json()["error"] == "no such page: /gmae/abc"
        r = c.get("/static/nope.js", headers=HTML)
        assert r.headers["content-type"] == "application/json"
