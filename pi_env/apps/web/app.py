"""The FastAPI application of ``pi-env serve``: pages, static files and the JSON API.

Pages (every asset is served from the package, nothing from the internet): ``/`` (new game,
Solo Time Attack, replay viewer, games on this server), ``/game/{id}/seat/{token}`` (a human
seat's private page), ``/game/{id}`` (a spectator's page, no case), ``/solo/{id}``,
``/replay/{id}``.

API (JSON; every refusal is a 4xx answer ``{"error": "one-line reason"}`` that changes nothing):

=======================================  ======================================================
``POST /api/games``                      new game: ``{"seats": ["human", "greedy", ...],
                                         "edition", "mode", "variants", "investigators",
                                         "names", "seed"}`` → ids and each human seat's link
``GET  /api/games``                      the games on this server (public facts)
``GET  /api/games/{id}/view``            the view of the seat whose token is in the
                                         ``X-Seat-Token`` header (none: a spectator);
                                         ``?since=V`` waits up to 20 s for a version other than V
``POST /api/games/{id}/move``            ``{"version": V, "action": id}`` with the seat token
``GET  /api/games/{id}/record``          the ``pi-record/1`` record, once the game is over
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

Bodies larger than :data:`MAX_BODY` bytes are refused with 413 before they are read whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from pi_env.apps.leaderboard import Leaderboard
from pi_env.core.errors import PIError
from pi_env.records.record_file import record_to_dict

from pi_env.apps.web.errors import BadRequest, Conflict, NotFound, TooLarge, Unprocessable, WebError
from pi_env.apps.web.games import GameManager
from pi_env.apps.web.replay import ReplayDoc, SolverWorker
from pi_env.apps.web.solo import SoloManager
from pi_env.apps.web.store import Store, StoreError

__all__ = ["create_app", "MAX_BODY", "STATIC"]

MAX_BODY = 2_000_000
"""Largest request body accepted, bytes (a long 5-player record is about 100 kB)."""
STATIC = Path(__file__).with_name("static")
POLL_SECONDS = 20.0
SOLVER_WAIT = 0.25
"""Seconds a solver-view request waits for its result before answering "computing"."""


class _BodyLimit:
    """ASGI middleware: 413 for a body over ``limit`` bytes (declared or streamed)."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = -1
                if size > self.limit or size < 0:
                    return await _refuse(send, 413 if size > self.limit else 400,
                                         f"request body too large: {size} bytes, the limit is {self.limit}"
                                         if size > self.limit else "malformed Content-Length header")
        seen = 0

        async def limited_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge(f"request body too large: more than {self.limit} bytes")
            return message

        try:
            await self.app(scope, limited_receive, send)
        except TooLarge as exc:
            await _refuse(send, 413, str(exc))


async def _refuse(send, status: int, reason: str) -> None:
    body = json.dumps({"error": reason}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _json(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise TooLarge(f"request body too large: {len(body)} bytes, the limit is {MAX_BODY}")
    try:
        return json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadRequest("the request body is not JSON") from None


def _int_param(request: Request, name: str, default: Any = None) -> Any:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise Unprocessable(f"{name!r} must be an integer, got {value!r}") from None


def create_app(data_dir: "str | Path", *, agent_delay: float = 0.8, solver_timeout: float = 60.0,
               allow_paths: bool = True) -> FastAPI:
    """The web app over the data directory ``data_dir`` (``web.sqlite3``, ``leaderboard.sqlite3``).

    Args:
        data_dir: where the database files live (created if missing).
        agent_delay: seconds an agent waits before each move.
        solver_timeout: seconds one solver view may take before it is stopped.
        allow_paths: let ``POST /api/replays`` open a file by its path on this machine (only for
            a server that listens on the loopback interface).

    Raises:
        StoreError: the database cannot be used.
    """
    data_dir = Path(data_dir)
    store = Store(data_dir / "web.sqlite3")
    games = GameManager(store, agent_delay=agent_delay)
    games.restore()
    solos = SoloManager(store, Leaderboard(data_dir / "leaderboard.sqlite3"))
    solver = SolverWorker(timeout=solver_timeout)
    replays: dict[str, ReplayDoc] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        games.start()
        yield
        solver.close()
        store.close()

    app = FastAPI(title="pi-env", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.games, app.state.solos, app.state.solver, app.state.replays = games, solos, solver, replays
    app.state.store = store

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError):
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError):
        return JSONResponse({"error": str(exc)}, status_code=503)

    @app.exception_handler(PIError)
    async def _pi_error(request: Request, exc: PIError):
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.exception_handler(404)
    async def _not_found(request: Request, exc):
        return JSONResponse({"error": f"no such page: {request.url.path}"}, status_code=404)

    @app.exception_handler(405)
    async def _bad_method(request: Request, exc):
        return JSONResponse({"error": f"{request.method} is not allowed on {request.url.path}"}, status_code=405)

    # -- pages ------------------------------------------------------------------------------
    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    @app.get("/")
    async def index():
        return page("index.html")

    @app.get("/game/{game_id}")
    async def spectator_page(game_id: str):
        games.get(game_id)
        return page("game.html")

    @app.get("/game/{game_id}/seat/{token}")
    async def seat_page(game_id: str, token: str):
        games.get(game_id).seat_of(token)
        return page("game.html")

    @app.get("/solo/{sid}")
    async def solo_page(sid: str):
        solos.get(sid)
        return page("solo.html")

    @app.get("/replay/{rid}")
    async def replay_page(rid: str):
        get_replay(rid)
        return page("replay.html")

    @app.get("/static/{name}")
    async def static(name: str):
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise NotFound(f"no static file {name!r}")
        kind = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
                ".html": "text/html", ".png": "image/png"}.get(path.suffix, "application/octet-stream")
        return FileResponse(path, media_type=kind)

    # -- games --------------------------------------------------------------------------------
    @app.post("/api/games", status_code=201)
    async def new_game(request: Request):
        game, tokens = games.create(await _json(request))
        games.kick(game)
        return {"id": game.id, "spectator": f"/game/{game.id}",
                "seats": [{"seat": i, "kind": game.seats[i], "name": game.names[i],
                           "link": None if t is None else f"/game/{game.id}/seat/{t}"}
                          for i, t in enumerate(tokens)]}

    @app.get("/api/games")
    async def list_games():
        return {"games": [g.summary() for g in reversed(list(games.games.values()))][:50]}

    @app.get("/api/games/{game_id}/view")
    async def game_view(game_id: str, request: Request):
        game = games.get(game_id)
        seat = game.seat_of(request.headers.get("x-seat-token"))
        since = _int_param(request, "since")
        if since is not None:
            await games.wait(game, since, POLL_SECONDS)
        return game.view(seat)

    @app.post("/api/games/{game_id}/move")
    async def game_move(game_id: str, request: Request):
        game = games.get(game_id)
        seat = game.seat_of(request.headers.get("x-seat-token"))
        body = await _json(request)
        if not isinstance(body, dict) or "version" not in body or "action" not in body:
            raise BadRequest("the body must be {\"version\": V, \"action\": ID}")
        await games.move(game, seat, body["version"], body["action"])
        return game.view(seat)

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str, request: Request):
        game = games.get(game_id)
        game.seat_of(request.headers.get("x-seat-token") or request.query_params.get("seat"))
        if not game.done:
            raise Conflict("the record holds every player's case; it can be downloaded once the game is over")
        text = json.dumps(record_to_dict(game.recorder.record()), indent=1, ensure_ascii=False) + "\n"
        return Response(text, media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="pi-game-{game.id}.json"'})

    @app.post("/api/games/{game_id}/replay", status_code=201)
    async def game_to_replay(game_id: str):
        game = games.get(game_id)
        if not game.done:
            raise Conflict("the record holds every player's case; the game can be replayed once it is over")
        text = json.dumps(record_to_dict(game.recorder.record()), ensure_ascii=False)
        return open_replay(text)

    # -- solo ---------------------------------------------------------------------------------
    @app.post("/api/solo", status_code=201)
    async def new_solo(request: Request):
        body = await _json(request)
        sid = await asyncio.to_thread(solos.create, body)
        return {"id": sid, "link": f"/solo/{sid}"}

    @app.get("/api/solo/{sid}")
    async def solo_view(sid: str):
        return solos.view(sid)

    @app.post("/api/solo/{sid}/move")
    async def solo_move(sid: str, request: Request):
        body = await _json(request)
        if not isinstance(body, dict) or "version" not in body or "action" not in body:
            raise BadRequest("the body must be {\"version\": V, \"action\": ID}")
        solos.move(sid, body["version"], body["action"])
        return solos.view(sid)

    @app.post("/api/solo/{sid}/hint")
    async def solo_hint(sid: str):
        return await asyncio.to_thread(solos.hint, sid)

    @app.get("/api/solo/{sid}/record")
    async def solo_record(sid: str):
        text = json.dumps(record_to_dict(solos.record(sid)), indent=1, ensure_ascii=False) + "\n"
        return Response(text, media_type="application/json",
                        headers={"content-disposition": 'attachment; filename="pi-solo.json"'})

    @app.get("/api/leaderboard")
    async def leaderboard(request: Request):
        seed = _int_param(request, "seed")
        if seed is None:
            raise BadRequest("give ?seed=N (and &investigators=K, default 5)")
        return {"seed": seed, "rows": solos.leaderboard_rows(seed, _int_param(request, "investigators", 5))}

    # -- replays ------------------------------------------------------------------------------
    def get_replay(rid: str) -> ReplayDoc:
        doc = replays.get(rid)
        if doc is None:
            text = store.replay(rid)
            if text is None:
                raise NotFound(f"no replay {rid!r} on this server; open the record again")
            doc = replays[rid] = ReplayDoc(rid, text)
        return doc

    def open_replay(text: str) -> dict[str, Any]:
        rid = secrets.token_urlsafe(9)
        doc = ReplayDoc(rid, text)
        store.add_replay(rid, text)
        replays[rid] = doc
        return {"id": rid, "link": f"/replay/{rid}"}

    @app.post("/api/replays", status_code=201)
    async def new_replay(request: Request):
        body = await _json(request)
        if not isinstance(body, dict) or len(body) != 1 or not isinstance(next(iter(body.values())), str) \
                or next(iter(body)) not in ("text", "path"):
            raise BadRequest("the body must be {\"text\": RECORD_JSON} or {\"path\": FILE}")
        if "path" in body:
            if not allow_paths:
                raise Conflict("records can be opened by path only when the server listens on 127.0.0.1; "
                               "upload the file instead")
            path = Path(body["path"]).expanduser()
            try:
                if path.stat().st_size > MAX_BODY:
                    raise TooLarge(f"{path}: {path.stat().st_size} bytes, the limit is {MAX_BODY}")
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
                raise Unprocessable(f"{path}: cannot be read ({why})") from None
        else:
            text = body["text"]
        return await asyncio.to_thread(open_replay, text)

    @app.get("/api/replays/{rid}")
    async def replay_summary(rid: str):
        return get_replay(rid).summary()

    def viewer_params(doc: ReplayDoc, request: Request) -> tuple[int, int, int | None]:
        r, e = doc.check_position(request.query_params.get("round", "1"), request.query_params.get("event", "-1"))
        player = _int_param(request, "player")
        if player is not None and not 0 <= player < doc.record.rules.players:
            raise Unprocessable(f"player must be 0..{doc.record.rules.players - 1}, got {player}")
        return r, e, player

    @app.get("/api/replays/{rid}/position")
    async def replay_position(rid: str, request: Request):
        doc = get_replay(rid)
        r, e, player = viewer_params(doc, request)
        return doc.position(r, e, player, all_seeing=request.query_params.get("all") == "1")

    @app.get("/api/replays/{rid}/solver")
    async def replay_solver(rid: str, request: Request):
        doc = get_replay(rid)
        r, e, player = viewer_params(doc, request)
        if player is None:
            raise BadRequest("give ?player=P: the solver answers for one player's point of view")
        key, args = (rid, player, r, e), (rid, doc.text, player, r, e)
        status, value = solver.request(key, args)
        wait = 0.0 if request.query_params.get("prefetch") == "1" else SOLVER_WAIT
        end = asyncio.get_running_loop().time() + wait
        while status == "computing" and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(0.002)  # most views take milliseconds: answer them in this request
            status, value = solver.request(key, args)
        if status == "done":
            return {"status": "done", "report": value}
        if status == "computing":
            return JSONResponse({"status": "computing"}, status_code=202)
        return {"status": status, "message": value}

    return app
