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
from pi_env.apps.web.guard import BodyLimit, HostPolicy, RequestGuard, error_body, is_loopback
from pi_env.apps.web.replay import ReplayCache, ReplayDoc, SolverWorker, path_refusal, read_record_file
from pi_env.apps.web.solo import SoloManager
from pi_env.apps.web.store import Store, StoreError

__all__ = ["create_app", "MAX_BODY", "MAX_DEPTH", "STATIC", "REPLAYS_IN_MEMORY", "REPLAY_TEXT_IN_MEMORY",
           "STORED_REPLAYS", "STORED_REPLAY_BYTES"]

MAX_BODY = 2_000_000
"""Largest request body accepted, bytes (a long 5-player record is about 100 kB); also the largest
record file opened by path."""
MAX_DEPTH = 32
"""Deepest nesting of lists and objects in a request body (a record nests 6 levels)."""
STATIC = Path(__file__).with_name("static")
POLL_SECONDS = 20.0
SOLVER_WAIT = 0.25
"""Seconds a solver-view request waits for its result before answering "computing"."""
REPLAYS_IN_MEMORY = 16
REPLAY_TEXT_IN_MEMORY = 4_000_000
"""Opened records kept in memory: at most this many, holding at most this many bytes of record text
(:class:`~pi_env.apps.web.replay.ReplayCache`); the others are read back from the database."""
STORED_REPLAYS = 500
STORED_REPLAY_BYTES = 50_000_000
"""Opened records kept in the database: at most this many and this many bytes; the least recently
opened are dropped (their links then answer 404 "open the record again")."""


def _json_response(content: Any, status: int = 200) -> Response:
    """A JSON answer; non-ASCII text is sent as UTF-8, or escaped if it cannot be encoded."""
    try:
        body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        body = json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
    return Response(body, status_code=status, media_type="application/json")


class _JSON(JSONResponse):
    """The endpoints' default response class (:func:`_json_response`'s encoding)."""

    def render(self, content: Any) -> bytes:
        return _json_response(content).body


def _error(status: int, reason: str) -> Response:
    return Response(error_body(reason), status_code=status, media_type="application/json")


def _check_parsed(doc: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and text that is not Unicode (a lone surrogate
    such as ``"\\udcff"``, which JSON can spell but no answer or file can hold). Walked without
    recursion.

    Raises:
        BadRequest: naming the problem.
    """
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, str):
            try:
                obj.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise BadRequest(f"the request body holds a lone surrogate ({obj[exc.start]!r}), which is "
                                 f"not a character; send text as UTF-8") from None
        elif isinstance(obj, (dict, list)):
            if depth >= MAX_DEPTH:
                raise BadRequest(f"the request body has lists or objects nested more than {MAX_DEPTH} levels deep")
            if isinstance(obj, dict):
                stack.extend((k, depth + 1) for k in obj)
                stack.extend((v, depth + 1) for v in obj.values())
            else:
                stack.extend((v, depth + 1) for v in obj)


async def _json(request: Request) -> Any:
    """The request's JSON body (the guard checked its Content-Type; the body limit its size).

    Raises:
        BadRequest: not UTF-8, not JSON, nested too deeply, or holding a lone surrogate.
        TooLarge: the body passed :data:`MAX_BODY` while it arrived.
    """
    body = await request.body()
    try:
        text = body.decode("utf-8") if body else "null"
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the request body is not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"the request body is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BadRequest(f"the request body has lists or objects nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise BadRequest(f"the request body is not usable JSON ({exc})") from None
    _check_parsed(doc)
    return doc


def _move_body(body: Any) -> dict[str, Any]:
    """A move request's body: exactly ``{"version": V, "action": ID}``.

    Raises:
        BadRequest: not an object, a key missing.
        Unprocessable: a key other than those two.
    """
    if not isinstance(body, dict) or "version" not in body or "action" not in body:
        raise BadRequest("the body must be {\"version\": V, \"action\": ID}")
    unknown = sorted(set(body) - {"version", "action"})
    if unknown:
        raise Unprocessable(f"unknown key {unknown[0][:40]!r} in the move; the body is {{\"version\": V, "
                            f"\"action\": ID}} only; nothing was played")
    return body


def _int_param(request: Request, name: str, default: Any = None) -> Any:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise Unprocessable(f"{name!r} must be an integer, got {value[:40]!r}") from None


def create_app(data_dir: "str | Path", *, host: str = "127.0.0.1", port: int = 8000, agent_delay: float = 0.8,
               solver_timeout: float = 60.0, allow_paths: bool | None = None,
               replays_in_memory: int = REPLAYS_IN_MEMORY, replay_text_in_memory: int = REPLAY_TEXT_IN_MEMORY,
               stored_replays: int = STORED_REPLAYS, stored_replay_bytes: int = STORED_REPLAY_BYTES) -> FastAPI:
    """The web app over the data directory ``data_dir`` (``web.sqlite3``, ``leaderboard.sqlite3``).

    Args:
        data_dir: where the database files live (created if missing).
        host, port: the address the server listens on: requests must name it in their ``Host``
            header (:class:`~pi_env.apps.web.guard.HostPolicy`).
        agent_delay: seconds an agent waits before each move.
        solver_timeout: seconds one solver view may take before it is stopped.
        allow_paths: let ``POST /api/replays`` open a file by its path on this machine (default:
            only when ``host`` is the loopback interface).
        replays_in_memory, replay_text_in_memory: opened records kept in memory (count, bytes of text).
        stored_replays, stored_replay_bytes: opened records kept in the database (count, bytes).

    Raises:
        StoreError: the database cannot be used.
    """
    data_dir = Path(data_dir)
    if allow_paths is None:
        allow_paths = is_loopback(host)
    store = Store(data_dir / "web.sqlite3")
    games = GameManager(store, agent_delay=agent_delay)
    games.restore()
    solos = SoloManager(store, Leaderboard(data_dir / "leaderboard.sqlite3"))
    solver = SolverWorker(timeout=solver_timeout)
    replays = ReplayCache(store, max_docs=replays_in_memory, max_bytes=replay_text_in_memory)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        games.start()
        yield
        games.stop()
        solver.close()
        store.close()

    app = FastAPI(title="pi-env", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  default_response_class=_JSON)
    app.state.games, app.state.solos, app.state.solver, app.state.replays = games, solos, solver, replays
    app.state.store = store
    app.add_middleware(BodyLimit, limit=MAX_BODY, too_large=TooLarge)
    app.add_middleware(RequestGuard, policy=HostPolicy(host, port))  # outermost: runs first

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError):
        return _error(exc.status, str(exc))

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError):
        return _error(503, str(exc))

    @app.exception_handler(PIError)
    async def _pi_error(request: Request, exc: PIError):
        return _error(422, str(exc))

    @app.exception_handler(404)
    async def _not_found(request: Request, exc):
        return _error(404, f"no such page: {request.url.path}")

    @app.exception_handler(405)
    async def _bad_method(request: Request, exc):
        return _error(405, f"{request.method} is not allowed on {request.url.path}")

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
        await asyncio.to_thread(replays.get, rid)
        return page("replay.html")

    @app.get("/favicon.ico")
    async def favicon():
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/static/{name}")
    async def static(name: str):
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise NotFound(f"no static file {name[:60]!r}")
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
        body = _move_body(await _json(request))
        await games.move(game, seat, body["version"], body["action"])
        return game.view(seat)

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str, request: Request):
        game = games.get(game_id)
        game.seat_of(request.headers.get("x-seat-token"))  # never in the address (logs, history)
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
        return await asyncio.to_thread(
            lambda: open_replay(json.dumps(record_to_dict(game.recorder.record()), ensure_ascii=False)))

    # -- solo ---------------------------------------------------------------------------------
    @app.post("/api/solo", status_code=201)
    async def new_solo(request: Request):
        body = await _json(request)
        sid = await asyncio.to_thread(solos.create, body)
        return {"id": sid, "link": f"/solo/{sid}"}

    # The solo manager's lock is held by a hint computing in a worker thread (seconds, tens of
    # seconds while numba compiles): views and moves wait for it in worker threads too, never on the
    # event loop, which would stop every other request and game meanwhile.
    @app.get("/api/solo/{sid}")
    async def solo_view(sid: str):
        return await asyncio.to_thread(solos.view, sid)

    @app.post("/api/solo/{sid}/move")
    async def solo_move(sid: str, request: Request):
        body = _move_body(await _json(request))

        def move() -> dict[str, Any]:
            solos.move(sid, body["version"], body["action"])
            return solos.view(sid)

        return await asyncio.to_thread(move)

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
        investigators = _int_param(request, "investigators", 5)
        if not 0 <= seed < 2**63:  # a solo case's seed (SQLite holds 64-bit integers)
            raise Unprocessable(f"'seed' must be 0..2**63-1, got {str(seed)[:40]}")
        if not 0 <= investigators <= 14:
            raise Unprocessable(f"'investigators' must be 0..14, got {str(investigators)[:40]}")
        return {"seed": seed, "rows": solos.leaderboard_rows(seed, investigators)}

    # -- replays ------------------------------------------------------------------------------
    # Building a document, its summary and positions take time in proportion to the record: they
    # run in worker threads (asyncio.to_thread), never on the event loop.
    def open_replay(text: str) -> dict[str, Any]:
        doc = ReplayDoc(secrets.token_urlsafe(9), text)
        rid = store.add_replay(doc.id, text, max_count=stored_replays, max_bytes=stored_replay_bytes)
        if rid != doc.id:  # the same record was opened before: its link
            doc.id = rid
        replays.put(doc)
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
            text = await asyncio.to_thread(read_record_file, body["path"], MAX_BODY)
            try:
                return await asyncio.to_thread(open_replay, text)
            except (WebError, PIError):  # their messages quote the file: one answer for every failure
                raise path_refusal(body["path"], MAX_BODY) from None
        return await asyncio.to_thread(open_replay, body["text"])

    @app.get("/api/replays/{rid}")
    async def replay_summary(rid: str):
        return await asyncio.to_thread(lambda: replays.get(rid).summary())

    def viewer_params(doc: ReplayDoc, request: Request) -> tuple[int, int, int | None]:
        r, e = doc.check_position(request.query_params.get("round", "1"), request.query_params.get("event", "-1"))
        player = _int_param(request, "player")
        if player is not None and not 0 <= player < doc.record.rules.players:
            raise Unprocessable(f"player must be 0..{doc.record.rules.players - 1}, got {player}")
        return r, e, player

    @app.get("/api/replays/{rid}/position")
    async def replay_position(rid: str, request: Request):
        def position() -> dict[str, Any]:
            doc = replays.get(rid)
            r, e, player = viewer_params(doc, request)
            return doc.position(r, e, player, all_seeing=request.query_params.get("all") == "1")

        return await asyncio.to_thread(position)

    @app.get("/api/replays/{rid}/solver")
    async def replay_solver(rid: str, request: Request):
        doc = await asyncio.to_thread(replays.get, rid)
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
