"""P.I. in the browser: ``pi-env serve``.

Play a standard game or a duel against the built-in agents (each human seat on its own private
link, seeing exactly its information set, docs/rules.md §9), Solo Time Attack with the terminal app's
leaderboard, and a replay viewer with the solver's view of any player at any moment. Games,
solo games and opened records are kept in a SQLite file in the data directory and survive a
restart, until they expire (``--finished-ttl``, ``--idle-ttl``); the folder and the file are private
to the user. Every page and asset is served by this package; nothing is loaded from the internet.

:func:`serve` runs the server (uvicorn); :func:`pi_env.apps.web.app.create_app` builds the
application (FastAPI) for tests and other servers. Needs the ``web`` extra:
``pip install 'pi-deduction[web]'``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from pathlib import Path

from pi_env.core.errors import PIError

from pi_env.apps.web.guard import allowed_name, is_loopback, public_url, redact

__all__ = ["serve", "check_exposure", "is_loopback", "missing_extra", "background_server", "redact"]


def missing_extra() -> str | None:
    """``None`` when the ``web`` extra is installed, else the one-line install hint."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        return (f"the web app needs the 'web' extra ({exc.name} is missing): "
                f"pip install 'pi-deduction[web]' (or, in a checkout: pip install '.[web]')")
    return None


def check_exposure(host: str, allow_hosts: "tuple[str, ...] | list[str]" = (),
                   public_urls: "tuple[str, ...] | list[str]" = ()) -> None:
    """Refuse to listen beyond this machine unless the names people use are given.

    Args:
        host: the interface to listen on.
        allow_hosts: ``--allow-host`` names.
        public_urls: ``--public-url`` addresses.

    Raises:
        PIError: ``host`` is not a loopback interface and neither ``allow_hosts`` nor ``public_urls``
            is given (one line naming both flags), or one of them is malformed.
    """
    try:
        for name in allow_hosts:
            allowed_name(name)
        for url in public_urls:
            public_url(url)
    except ValueError as exc:
        raise PIError(str(exc)) from None
    if not is_loopback(host) and not allow_hosts and not public_urls:
        raise PIError(f"--host {host} listens beyond this machine: name the address people will open with "
                      f"--public-url URL or --allow-host NAME (see pi-env serve --help)")


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port).

    Raises:
        PIError: the address cannot be used (in use, not this machine's, a bad name).
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise PIError(f"--host {host!r}: not an address of this machine ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without it a response written in two parts (headers, body)
    # waits for the client's delayed ACK (about 40 ms per request on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise PIError(f"cannot listen on {host}:{port} ({exc.strerror})") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class _RedactTokens(logging.Filter):
    """A filter for uvicorn's access log: seat tokens never written (:func:`redact`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def _server(config):
    """A uvicorn server that, when it starts stopping (Ctrl-C), first ends every long poll of the
    games (:meth:`GameManager.close`), so it does not wait up to 20 s for them."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None):
            self.config.app.state.games.close()
            await super().shutdown(sockets)

    return Server(config)


def serve(host: str = "127.0.0.1", port: int = 8000, data_dir: "str | Path | None" = None, *,
          agent_delay: float = 0.8, solver_timeout: float = 60.0, quiet: bool = False,
          finished_ttl: float | None = None, idle_ttl: float | None = None,
          games_per_minute: int | None = None, allow_hosts: "tuple[str, ...] | list[str]" = (),
          public_urls: "tuple[str, ...] | list[str]" = (), seat_timeout: float | None = None) -> int:
    """Run the web server until Ctrl-C; prints its address first.

    Args:
        host: the interface to listen on. Anything but the loopback interface is refused unless
            ``allow_hosts`` or ``public_urls`` name the server (then announced with a warning: every
            game and seat link can be reached from other machines).
        port: the TCP port (0: a free one, printed).
        data_dir: where ``web.sqlite3`` and ``leaderboard.sqlite3`` live (default: the data
            directory of :func:`pi_env.apps.leaderboard.data_dir`).
        agent_delay: seconds an agent waits before each move.
        solver_timeout: seconds one solver view of the replay viewer, or one game hint, may take.
        quiet: no access log.
        finished_ttl, idle_ttl: seconds a finished game, and an unfinished one, is kept after its
            last move (default: :data:`~pi_env.apps.web.games.FINISHED_TTL`, 24 h, and
            :data:`~pi_env.apps.web.games.IDLE_TTL`, 7 days).
        games_per_minute: new games one client address may start a minute (default
            :data:`~pi_env.apps.web.limits.GAMES_PER_MINUTE`, 10).
        allow_hosts: host names or addresses people use to reach the server (``--allow-host``).
        public_urls: addresses the server is reached at, e.g. behind a reverse proxy
            (``--public-url https://pi.example.org``); printed as the address to open.
        seat_timeout: seconds without a connection after which a person's seat counts as left
            (default :data:`~pi_env.apps.web.games.SEAT_TIMEOUT`, 120).

    The server runs under the umask ``077`` (the caller's is restored after): the data folder and
    every file the server creates in it are private to the user (:mod:`pi_env.apps.web.files`).

    Raises:
        PIError: the ``web`` extra is missing, the address cannot be used, a non-loopback ``host``
            without ``allow_hosts`` or ``public_urls`` (:func:`check_exposure`), or a malformed name.
    """
    need = missing_extra()
    if need:
        raise PIError(need)
    check_exposure(host, allow_hosts, public_urls)
    import uvicorn

    from pi_env.apps.leaderboard import data_dir as default_data_dir
    from pi_env.apps.web.app import create_app

    data = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    umask = os.umask(0o077)  # every file the server creates (databases, side files) is the user's alone
    try:
        sock = bind(host, port)  # first: an address that cannot be used is the only thing printed
    except BaseException:
        os.umask(umask)
        raise
    try:
        real_port = sock.getsockname()[1]
        if not is_loopback(host):
            print(f"pi-env: warning: listening on {host}, not only on this machine: anyone who can reach "
                  f"port {real_port} can create games, and every seat link shown can be opened from "
                  f"elsewhere; records cannot be opened by path", file=sys.stderr)
        limits = {k: v for k, v in (("finished_ttl", finished_ttl), ("idle_ttl", idle_ttl),
                                    ("games_per_minute", games_per_minute), ("seat_timeout", seat_timeout))
                  if v is not None}
        app = create_app(data, host=host, port=real_port, agent_delay=agent_delay, solver_timeout=solver_timeout,
                         notice=lambda line: print(f"pi-env serve: {line}", file=sys.stderr),
                         allow_hosts=tuple(allow_hosts), public_urls=tuple(public_urls), **limits)
        app.state.solver.prestart()  # here, in the main thread: the worker starts ignoring Ctrl-C
        # a wildcard address (0.0.0.0, ::) cannot be opened: the names people open instead
        names = [host] if host not in ("0.0.0.0", "::", "") else list(allow_hosts) or ["127.0.0.1"]
        shown = [f"http://{f'[{n}]' if ':' in n else n}:{real_port}/" for n in names]
        print(f"pi-env serve: {shown[0]}  (data in {data}; Ctrl-C stops)", flush=True)
        for url in shown[1:]:
            print(f"pi-env serve: also at {url}", flush=True)
        for url in public_urls:
            print(f"pi-env serve: reached at {public_url(url)[3]}/", flush=True)
        # X-Forwarded-For (sent from 127.0.0.1) names the client only behind a declared reverse proxy
        # (--public-url): otherwise any local program could name a new address per request and
        # escape --games-per-minute
        config = uvicorn.Config(app, log_level="warning" if quiet else "info", access_log=not quiet,
                                timeout_graceful_shutdown=5, proxy_headers=bool(public_urls),
                                forwarded_allow_ips="127.0.0.1")
        logging.getLogger("uvicorn.access").addFilter(_RedactTokens())
        _server(config).run(sockets=[sock])
    finally:
        sock.close()
        os.umask(umask)
    return 0


@contextlib.contextmanager
def background_server(data_dir: "str | Path", *, host: str = "127.0.0.1", agent_delay: float = 0.05,
                      solver_timeout: float = 60.0, **options):
    """Run the web app on a free port of ``host`` in a thread; yields its base URL
    (``http://127.0.0.1:PORT``). For tests, benchmarks and the screenshot script; stops on exit.
    ``options`` go to :func:`~pi_env.apps.web.app.create_app` (e.g. ``games_per_minute``).

    Raises:
        PIError: the ``web`` extra is missing.
    """
    need = missing_extra()
    if need:
        raise PIError(need)
    import threading
    import time

    import uvicorn

    from pi_env.apps.web.app import create_app

    sock = bind(host, 0)
    app = create_app(data_dir, host=host, port=sock.getsockname()[1], agent_delay=agent_delay,
                     solver_timeout=solver_timeout, **options)
    server = _server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5,
                                    proxy_headers=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < end:
        time.sleep(0.02)
    try:
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
