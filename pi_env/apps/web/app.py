"""The FastAPI application of ``pi-env serve``: pages, static files and the JSON API.

Pages (every asset is served from the package, nothing from the internet): ``/`` (new game,
Solo Time Attack, replay viewer, games on this server), ``/game/{id}/seat/{token}`` (a human
seat's private page), ``/game/{id}`` (a spectator's page, no case), ``/solo/{id}``,
``/replay/{id}``.

API (JSON; every refusal is a 4xx answer ``{"error": "one-line reason"}`` that changes nothing):

=======================================  ======================================================
``POST /api/games``                      new game: ``{"seats": ["human", "greedy", ...],
                                         "edition", "mode", "variants", "investigators",
                                         "names", "seed", "hints", "lobby"}`` → ids and each human
                                         seat's link
``GET  /api/games``                      the games on this server (public facts)
``GET  /api/games/{id}/view``            the view of the seat whose token is in the
                                         ``X-Seat-Token`` header (none: a spectator);
                                         ``?since=V`` waits up to 20 s for a version other than V
``GET  /api/games/{id}/events``          server-sent events: the view of the seat whose token
                                         is ``?seat=``, now and after every change (resumed
                                         from ``Last-Event-ID``)
``POST /api/games/{id}/join``            the seat's person is here (a lobby starts once every
                                         person joined); ``/leave``: they left
``POST /api/games/{id}/start``           the creator starts the lobby: ``{"agent"}`` plays the
                                         seats not joined
``POST /api/games/{id}/hand``            the creator hands a left seat to an agent:
                                         ``{"seat": N, "agent"}``
``POST /api/games/{id}/move``            ``{"version": V, "action": id}`` with the seat token
``POST /api/games/{id}/hint``            the solver's hint to the seat of the token (a game
                                         created with ``"hints": true``); 503 past ``solver_timeout``
``GET  /api/games/{id}/record``          the ``pi-record/1`` record, once the game is over
                                         (a seat token, if any, only in the header)
``POST /api/games/{id}/replay``          open the finished game in the replay viewer
``POST /api/solo``                       new solo game: ``{"daily", "seed", "difficulty",
                                         "investigators", "name"}``
``GET  /api/solo/{id}``                  its view; ``POST /api/solo/{id}/move``, ``/hint``;
                                         ``GET /api/solo/{id}/record`` once solved
``GET  /api/leaderboard?seed=&investigators=``  the solo leaderboard of a case
``POST /api/replays``                    open a record: ``{"text": "..."}`` (an upload) or
                                         ``{"path": "..."}`` (a file on the server; only when
                                         it listens on the loopback interface)
``GET  /api/replays/{id}``               players, rounds and events
``GET  /api/replays/{id}/position``      ``?round=R&event=E&player=P|&all=1`` the board there
``GET  /api/replays/{id}/solver``        ``?round=R&event=E&player=P`` the solver's view for P:
                                         ``{"status": "done", "report": ...}`` or
                                         ``{"status": "computing"}`` (202, after waiting
                                         up to 0.25 s; ask again); ``&prefetch=1``
                                         queues it and answers at once
=======================================  ======================================================

New games and solo games are limited per client address (429 with ``Retry-After``); games and solo
games expire (a finished one ``finished_ttl`` after its last move, an unfinished one ``idle_ttl``
after it). Bodies larger than :data:`MAX_BODY` bytes are refused with 413 before they are read
whole. Every response carries :data:`~pi_env.apps.web.guard.SECURITY_HEADERS` (no framing by other pages, a
Content-Security-Policy of this server only, ``nosniff``, ``Referrer-Policy: same-origin``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import Callable

from fastapi import FastAPI, Request
from fastapi.responses import Response

from pi_env.apps.leaderboard import Leaderboard
from pi_env.apps.web import routes_games, routes_pages, routes_replays, routes_solo
from pi_env.apps.web.errors import TooLarge, TooManyRequests, WebError
from pi_env.apps.web.files import prepare_data_dir
from pi_env.apps.web.games import FINISHED_TTL, IDLE_TTL, SEAT_TIMEOUT, GameManager
from pi_env.apps.web.guard import BodyLimit, HostPolicy, RequestGuard, SecurityHeaders, is_loopback
from pi_env.apps.web.limits import GAMES_PER_MINUTE, RateLimit
from pi_env.apps.web.http import MAX_BODY, MAX_DEPTH, STATIC, JSONAnswer, error_page, error_response, wants_page
from pi_env.apps.web.replay import ReplayCache, SolverWorker, hint_job
from pi_env.apps.web.routes_games import HINT_TOO_SLOW
from pi_env.apps.web.solo import SoloManager
from pi_env.apps.web.store import Store, StoreError
from pi_env.core.errors import PIError

__all__ = ["create_app", "PURGE_EVERY", "MAX_BODY", "MAX_DEPTH", "STATIC", "REPLAYS_IN_MEMORY", "REPLAY_TEXT_IN_MEMORY",
           "STORED_REPLAYS", "STORED_REPLAY_BYTES"]

log = logging.getLogger("pi_env.web")

PURGE_EVERY = 60.0
"""Seconds between two deletions of expired games."""

REPLAYS_IN_MEMORY = 16
REPLAY_TEXT_IN_MEMORY = 4_000_000
"""Opened records kept in memory: at most this many, holding at most this many bytes of record text
(:class:`~pi_env.apps.web.replay.ReplayCache`); the others are read back from the database."""
STORED_REPLAYS = 500
STORED_REPLAY_BYTES = 50_000_000
"""Opened records kept in the database: at most this many and this many bytes; the least recently
opened are dropped (their links then answer 404 "open the record again")."""


def create_app(data_dir: "str | Path", *, host: str = "127.0.0.1", port: int = 8000, agent_delay: float = 0.8,
               solver_timeout: float = 60.0, allow_paths: bool | None = None,
               replays_in_memory: int = REPLAYS_IN_MEMORY, replay_text_in_memory: int = REPLAY_TEXT_IN_MEMORY,
               stored_replays: int = STORED_REPLAYS, stored_replay_bytes: int = STORED_REPLAY_BYTES,
               notice: "Callable[[str], None] | None" = None, finished_ttl: float = FINISHED_TTL,
               idle_ttl: float = IDLE_TTL, games_per_minute: int = GAMES_PER_MINUTE,
               clock: Callable[[], float] = time.time, allow_hosts: "tuple[str, ...] | list[str]" = (),
               public_urls: "tuple[str, ...] | list[str]" = (), seat_timeout: float = SEAT_TIMEOUT) -> FastAPI:
    """The web app over the data directory ``data_dir`` (``web.sqlite3``, ``leaderboard.sqlite3``;
    the folder and the files private to the user, :mod:`pi_env.apps.web.files`).

    Args:
        data_dir: where the database files live (created if missing).
        host, port: the address the server listens on: requests must name it in their ``Host``
            header (:class:`~pi_env.apps.web.guard.HostPolicy`).
        allow_hosts, public_urls: the names the server is reached by (``--allow-host``,
            ``--public-url``): then exactly those and the loopback names pass the Host and Origin checks.
        seat_timeout: seconds without a connection after which a person's seat counts as left (its
            game's creator may then hand it to an agent).
        agent_delay: seconds an agent waits before each move.
        solver_timeout: seconds one solver view of the replay viewer, or one game hint, may take
            before it is stopped (a hint then answers 503, "the hint took too long").
        allow_paths: let ``POST /api/replays`` open a file by its path on this machine (default:
            only when ``host`` is the loopback interface).
        replays_in_memory, replay_text_in_memory: opened records kept in memory (count, bytes of text).
        stored_replays, stored_replay_bytes: opened records kept in the database (count, bytes).
        notice: called with each one-line notice of the start (a database of an earlier run that
            other users could read, made private: :func:`~pi_env.apps.web.files.prepare_data_dir`);
            default: the ``pi_env.web`` log, as a warning.
        finished_ttl, idle_ttl: seconds a finished game, and an unfinished one, is kept after its
            last move (solo games too); expired ones are deleted every :data:`PURGE_EVERY` seconds.
        games_per_minute: new games and solo games a client address may start a minute (429 past it).
        clock: seconds since the epoch (``time.time``): expiry, rate limit and the daily case's date.

    Raises:
        StoreError: the database cannot be used.
    """
    data_dir = Path(data_dir)
    if allow_paths is None:
        allow_paths = is_loopback(host)
    try:
        notices = prepare_data_dir(data_dir, ("web.sqlite3",), ("leaderboard.sqlite3",))
    except OSError as exc:
        raise StoreError(f"{data_dir}: cannot be used as the web app's data folder ({exc.strerror or exc})") from None
    for line in notices:
        (notice or log.warning)(line)
    store = Store(data_dir / "web.sqlite3", clock=clock)
    games = GameManager(store, agent_delay=agent_delay, finished_ttl=finished_ttl, idle_ttl=idle_ttl,
                        seat_timeout=seat_timeout)
    games.restore()
    solos = SoloManager(store, Leaderboard(data_dir / "leaderboard.sqlite3"), clock=clock)
    solver = SolverWorker(timeout=solver_timeout)
    hinter = SolverWorker(timeout=solver_timeout, cache_size=256, job=hint_job, stopped=HINT_TOO_SLOW)  # game hints
    replays = ReplayCache(store, max_docs=replays_in_memory, max_bytes=replay_text_in_memory)

    def expire() -> None:
        solos.forget(games.purge()[1])

    async def expire_every(seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                expire()
            except StoreError as exc:  # the next round tries again
                log.error("expired games could not be deleted: %s", exc)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        games.start()
        purger = asyncio.get_running_loop().create_task(expire_every(PURGE_EVERY))
        yield
        purger.cancel()
        games.stop()
        solver.close()
        hinter.close()
        store.close()

    app = FastAPI(title="pi-env", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  default_response_class=JSONAnswer)
    app.state.games, app.state.solos, app.state.solver, app.state.replays = games, solos, solver, replays
    app.state.hinter = hinter
    # what the routes use (request.app.state)
    app.state.store, app.state.allow_paths, app.state.data_dir = store, allow_paths, data_dir
    app.state.stored_replays, app.state.stored_replay_bytes = stored_replays, stored_replay_bytes
    app.state.new_games = RateLimit(games_per_minute, "new games", clock=clock)
    app.state.expire = expire  # what the purge task runs (tests call it with their clock)
    app.add_middleware(BodyLimit, limit=MAX_BODY, too_large=TooLarge)
    app.add_middleware(RequestGuard, policy=HostPolicy(host, port, allow_hosts, public_urls))  # runs first
    app.add_middleware(SecurityHeaders)  # outermost: its headers are on the guard's refusals too

    def refusal(request: Request, status: int, reason: str) -> Response:
        """JSON for the API and assets; an HTML page for a browser's page request."""
        return error_page(status, reason) if wants_page(request) else error_response(status, reason)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError):
        answer = refusal(request, exc.status, str(exc))
        if isinstance(exc, TooManyRequests):
            answer.headers["retry-after"] = str(exc.retry_after)
        return answer

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError):
        return error_response(503, str(exc))

    @app.exception_handler(PIError)
    async def _pi_error(request: Request, exc: PIError):
        return error_response(422, str(exc))

    @app.exception_handler(404)
    async def _not_found(request: Request, exc):
        return refusal(request, 404, f"no such page: {request.url.path}")

    @app.exception_handler(405)
    async def _bad_method(request: Request, exc):
        return error_response(405, f"{request.method} is not allowed on {request.url.path}")

    for routes in (routes_pages, routes_games, routes_solo, routes_replays):  # one module per resource
        app.include_router(routes.router)
    return app
