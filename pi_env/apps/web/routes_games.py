"""The games' routes: create a game, list them, a seat's view (long-polled), moves, the record and
opening a finished game in the replay viewer (:mod:`pi_env.apps.web.app`).

Creating a game, views, the list, moves and records are built in the game manager's worker
threads (:meth:`~pi_env.apps.web.games.GameManager.run`), never on the event loop, and so is their
JSON (a route that returns a dict has FastAPI walk it on the event loop); new games are
rate-limited per client address (:class:`~pi_env.apps.web.limits.RateLimit`)."""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pi_env.apps.web.errors import Conflict
from pi_env.apps.web.http import POLL_SECONDS, client_address, int_param, json_response, move_body, read_json
from pi_env.apps.web.routes_replays import open_replay
from pi_env.records.record_file import record_to_dict

router = APIRouter()


@router.post("/api/games", status_code=201)
async def new_game(request: Request):
    games = request.app.state.games
    body = await read_json(request)
    limit, client = request.app.state.new_games, client_address(request)
    limit.take(client)
    try:
        game, tokens = await games.run(games.create, body)
    except BaseException:
        limit.give_back(client)  # a refused or failed request created nothing
        raise
    games.add(game)
    return {"id": game.id, "spectator": f"/game/{game.id}",
            "seats": [{"seat": i, "kind": game.seats[i], "name": game.names[i],
                       "link": None if t is None else f"/game/{game.id}/seat/{t}"}
                      for i, t in enumerate(tokens)]}


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
    since = int_param(request, "since")
    if since is not None:
        await games.wait(game, since, POLL_SECONDS)
    return await games.run(lambda: json_response(game.view(seat)))


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
    """The solver's hint to the seat of ``X-Seat-Token`` (a game created with ``"hints": true``)."""
    games = request.app.state.games
    game = games.get(game_id)
    seat = game.seat_of(request.headers.get("x-seat-token"))
    return await games.run(lambda: json_response(game.hint(seat)))


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
