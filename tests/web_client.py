"""The web app's test client and its refusal check, shared by the web tests. Import it after
``pytest.importorskip("fastapi")`` and ``("httpx")``: it needs the ``web`` extra and httpx."""

from __future__ import annotations

from fastapi.testclient import TestClient

from pi_env.apps.web.app import create_app

BASE = "http://127.0.0.1:8000"


def client(tmp_path, **kw) -> TestClient:
    """A test client of a fresh app on ``tmp_path`` (agents move at once unless ``agent_delay`` is given)."""
    kw.setdefault("agent_delay", 0.0)
    return TestClient(create_app(tmp_path, **kw), base_url=BASE)


def one_line(r, status: int, fragment: str) -> str:
    """Assert ``r`` is a refusal with ``status`` whose one-line ``error`` contains ``fragment``; return it."""
    assert r.status_code == status, (r.status_code, r.text)
    reason = r.json()["error"]
    assert fragment in reason and "\n" not in reason, reason
    return reason
