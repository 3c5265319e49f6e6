"""The games' routes: create a game, list them, a seat's view (long-polled), moves, the record and
opening a finished game in the replay viewer (:mod:`pi_env.apps.web.app`).

Creating a game, views, the list, moves and records are built in the game manager's worker
threads (:meth:`~pi_env.apps.web.games.GameManager.run`), never on the event loop, and so is their
JSON (a route that returns a dict has FastAPI walk it on the event loop); new games are
rate-limited per client address (:class:`~pi_env.apps.web.limits.RateLimit`)."""

from __future__ import annotations

import asyncio
import json
import time

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from pi_env.apps.web.errors import Conflict, TooSlow, Unprocessable
from pi_env.apps.web.games import hint_answer, seat_choices
from pi_env.apps.web.http import POLL_SECONDS, client_address, int_param, json_response, move_body, read_json
from pi_env.apps.web.routes_replays import open_replay
from pi_env.records.record_file import record_to_dict

router = APIRouter()

KEEPALIVE_SECONDS = 15.0
"""Seconds between two comment lines of an idle event stream (proxies close silent connections)."""
RETRY_MS = 2000
"""Milliseconds a browser waits before it reconnects a dropped event stream."""
HINT_START_SECONDS = 30.0
"""Seconds a hint may wait for the hint worker to start (the solver loads) on top of its time limit."""


HINT_TOO_SLOW = ("the hint took too long (more than {seconds:g} s) and was stopped; play on and ask again later: "
                 "it is faster once fewer cases are left")
"""The answer to a game hint stopped at its time limit (``{seconds}``; the hint worker's ``stopped``)."""


def json_text(doc) -> str:
    """``doc`` as one line of JSON (an event's ``data``)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))



@router.post("/api/games", status_code=201)
async def new_game(request: Request):
    games = request.app.state.games
    body = await read_json(request)
    with request.app.state.new_games.spend(client_address(request)):  # given back if refused or failed
        game, tokens = await games.run(games.create, body)
    games.add(game)
    return {"id": game.id, "spectator": f"/game/{game.id}",
            "seats": [{"seat": i, "kind": game.seats[i], "name": game.names[i],
                       "link": None if t is None else f"/game/{game.id}/seat/{t}"}
                      for i, t in enumerate(tokens)]}


@router.get("/api/seat-kinds")
async def seat_kinds():
    """The start page's seat choices (:func:`pi_env.apps.web.games.seat_choices`)."""
    return {"seats": seat_choices()}


@router.get("/api/games")
async def list_games(request: Request):
    games = request.app.state.games
    recent = games.recent(50)
    return await games.run(lambda: json_response({"games": [g.summary() for g in recent]}))


@router.get("/api/games/{game_id}/view")
async def game_view(game_id: str, request: Request):
    games = request.app.state.games
    game = games.get(game_id)
    seat = game.seat_of(request.headers.get("x-seat-token"))
    games.touch(game, seat)
    since = int_param(request, "since")
    if since is not None:
        await games.wait(game, since, POLL_SECONDS)
    return await games.run(lambda: json_response(game.view(seat)))


@router.get("/api/games/{game_id}/events")
async def game_events(game_id: str, request: Request):
    """Server-sent events: the seat's view (``?seat=TOKEN``, none: a spectator's) now and after every
    change, each as ``event: view`` with an ``id``; a stream resumed with ``Last-Event-ID`` (or
    ``?last=``) of the latest event waits for the next one. When only the people at the table change
    (a stream opened or closed, or a person became away), ``event: people`` with their list and no id. A comment line every
    :data:`KEEPALIVE_SECONDS` keeps proxies from closing it; it ends once the game is over."""
    games = request.app.state.games
    game = games.get(game_id)
    seat = game.seat_of(request.query_params.get("seat"))
    last = request.headers.get("last-event-id") or request.query_params.get("last")

    async def stream():
        nonlocal last
        people = None
        games.connect(game, seat, 1)
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            while True:
                changed = game.changed
                current = games.event_id(game)
                if current != last:
                    view = await games.run(game.view, seat)
                    text = await games.run(json_text, view)
                    yield f"id: {current}\nevent: view\ndata: {text}\n\n".encode("utf-8")
                    last, people = current, view["people"]
                    if game.done or game.purged:
                        return
                    continue
                now = game.people(time.monotonic(), games.seat_timeout)
                if now != people:  # someone connected or left: no new id (the views are unchanged)
                    people = now
                    yield f"event: people\ndata: {json_text(now)}\n\n".encode("utf-8")
                if games.closing.is_set() or game.purged:
                    return
                waiters = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(games.closing.wait())]
                try:
                    # woken when a person becomes away too: the creator's page may then hand the seat
                    away = game.next_away(time.monotonic(), games.seat_timeout)
                    wait = KEEPALIVE_SECONDS if away is None else min(KEEPALIVE_SECONDS, away + 0.05)
                    finished, _ = await asyncio.wait(waiters, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waiters:
                        w.cancel()
                if not finished:
                    yield b": keep-alive\n\n"
        finally:
            games.connect(game, seat, -1)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})


def _seat(request: Request, game):
    seat = game.seat_of(request.headers.get("x-seat-token"))
    request.app.state.games.touch(game, seat)
    return seat


@router.post("/api/games/{game_id}/join")
async def game_join(game_id: str, request: Request):
    """The seat's person is here (the lobby page calls it); the game starts once every person joined."""
    games = request.app.state.games
    game = games.get(game_id)
    await games.join(game, _seat(request, game))
    return await games.run(lambda: json_response(game.view(_seat(request, game))))


@router.post("/api/games/{game_id}/leave")
async def game_leave(game_id: str, request: Request):
    """The seat's person leaves; the creator may then hand the seat to an agent."""
    games = request.app.state.games
    game = games.get(game_id)
    await games.leave(game, _seat(request, game))
    return {"left": True}


@router.post("/api/games/{game_id}/start")
async def game_start(game_id: str, request: Request):
    """The creator starts the game from its lobby: ``{"agent": "greedy"}`` plays the seats not joined."""
    games = request.app.state.games
    game = games.get(game_id)
    body = await read_json(request) if int(request.headers.get("content-length") or 0) else {}
    body = _only(body, {"agent"})
    seat = _seat(request, game)
    await games.begin(game, seat, body.get("agent", "greedy"))
    return await games.run(lambda: json_response(game.view(seat)))


@router.post("/api/games/{game_id}/hand")
async def game_hand(game_id: str, request: Request):
    """The creator hands a seat whose person left to an agent: ``{"seat": N, "agent": "greedy"}``."""
    games = request.app.state.games
    game = games.get(game_id)
    body = _only(await read_json(request), {"seat", "agent"})
    seat = _seat(request, game)
    await games.hand(game, seat, body.get("seat"), body.get("agent", "greedy"))
    return await games.run(lambda: json_response(game.view(seat)))


def _only(body, keys: set[str]) -> dict:
    if not isinstance(body, dict):
        raise Unprocessable(f"the body must be a JSON object with {', '.join(sorted(keys))}")
    unknown = set(body) - keys
    if unknown:
        raise Unprocessable(f"unknown key {sorted(unknown)[0]!r}")
    return body


@router.post("/api/games/{game_id}/move")
async def game_move(game_id: str, request: Request):
    games = request.app.state.games
    game = games.get(game_id)
    seat = game.seat_of(request.headers.get("x-seat-token"))
    body = move_body(await read_json(request))
    await games.move(game, seat, body["version"], body["action"])
    return await games.run(lambda: json_response(game.view(seat)))


@router.post("/api/games/{game_id}/hint")
async def game_hint(game_id: str, request: Request):
    """The solver's hint to the seat of ``X-Seat-Token`` (a game created with ``"hints": true``),
    computed in the hint worker's process (``app.state.hinter``): one that runs past its time limit
    is stopped and answered with 503 and "the hint took too long"."""
    games, hinter = request.app.state.games, request.app.state.hinter
    game = games.get(game_id)
    seat = game.seat_of(request.headers.get("x-seat-token"))
    version, record = await games.run(game.hint_position, seat)
    key, args = (game.id, version, seat), (record, seat)
    loop = asyncio.get_running_loop()
    end = loop.time() + hinter.timeout + HINT_START_SECONDS
    status, value = hinter.request(key, args)
    while status == "computing" and loop.time() < end:
        await asyncio.sleep(0.005)
        status, value = hinter.request(key, args)
    if status == "done":
        return await games.run(lambda: json_response(hint_answer(version, value)))
    if status == "computing":  # the worker has not even started it: the limit is counted from here
        raise TooSlow(HINT_TOO_SLOW.format(seconds=hinter.timeout))
    if status == "timeout":
        raise TooSlow(value)
    raise Unprocessable(f"the hint failed: {value}")


@router.get("/api/games/{game_id}/record")
async def game_record(game_id: str, request: Request):
    games = request.app.state.games
    game = games.get(game_id)
    game.seat_of(request.headers.get("x-seat-token"))  # never in the address (logs, history)
    if not game.done:
        raise Conflict("the record holds every player's case; it can be downloaded once the game is over")
    text = await games.run(lambda: json.dumps(record_to_dict(game.record()), indent=1, ensure_ascii=False) + "\n")
    return Response(text, media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="pi-game-{game.id}.json"'})


@router.post("/api/games/{game_id}/replay", status_code=201)
async def game_to_replay(game_id: str, request: Request):
    games = request.app.state.games
    game = games.get(game_id)
    if not game.done:
        raise Conflict("the record holds every player's case; the game can be replayed once it is over")
    return await asyncio.to_thread(
        lambda: open_replay(request.app.state, json.dumps(record_to_dict(game.record()), ensure_ascii=False)))
