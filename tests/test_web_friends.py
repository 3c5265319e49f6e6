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
    for text in ("--allow-host NAME", "--public-url URL", "--seat-timeout S", "needs --allow-host or --public-url"):
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
