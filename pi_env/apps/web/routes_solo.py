"""Solo Time Attack's routes: new solo games, views, moves, hints, the record and the leaderboard
(:mod:`pi_env.apps.web.app`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pi_env.apps.web.errors import BadRequest, Unprocessable
from pi_env.apps.web.http import client_address, int_param, json_response, move_body, read_json
from pi_env.records.record_file import record_to_dict

router = APIRouter()


@router.post("/api/solo", status_code=201)
async def new_solo(request: Request):
    solos = request.app.state.solos
    body = await read_json(request)
    with request.app.state.new_games.spend(client_address(request)):  # given back if refused or failed
        sid = await asyncio.to_thread(solos.create, body)
    return {"id": sid, "link": f"/solo/{sid}"}


# The solo manager's lock is held by a hint computing in a worker thread (seconds, tens of
# seconds while numba compiles): views and moves wait for it in worker threads too, never on the
# event loop, which would stop every other request and game meanwhile. Their JSON is made there too
# (a route that returns a dict has FastAPI walk it on the event loop).
async def _json_in_thread(make: Callable[[], Any]) -> Response:
    """The JSON response of ``make()``, both run in a worker thread."""
    return await asyncio.to_thread(lambda: json_response(make()))


@router.get("/api/solo/{sid}")
async def solo_view(sid: str, request: Request):
    solos = request.app.state.solos
    return await _json_in_thread(lambda: solos.view(sid))


@router.post("/api/solo/{sid}/move")
async def solo_move(sid: str, request: Request):
    solos = request.app.state.solos
    body = move_body(await read_json(request))

    def move() -> Any:
        solos.move(sid, body["version"], body["action"])
        return solos.view(sid)

    return await _json_in_thread(move)


@router.post("/api/solo/{sid}/hint")
async def solo_hint(sid: str, request: Request):
    solos = request.app.state.solos
    return await _json_in_thread(lambda: solos.hint(sid))


@router.get("/api/solo/{sid}/record")
async def solo_record(sid: str, request: Request):
    solos = request.app.state.solos
    text = json.dumps(record_to_dict(solos.record(sid)), indent=1, ensure_ascii=False) + "\n"
    return Response(text, media_type="application/json",
                    headers={"content-disposition": 'attachment; filename="pi-solo.json"'})


@router.get("/api/leaderboard")
async def leaderboard(request: Request):
    solos = request.app.state.solos
    seed = int_param(request, "seed")
    if seed is None:
        raise BadRequest("give ?seed=N (and &investigators=K, default 5)")
    investigators = int_param(request, "investigators", 5)
    if not 0 <= seed < 2**63:  # a solo case's seed (SQLite holds 64-bit integers)
        raise Unprocessable(f"'seed' must be 0..2**63-1, got {str(seed)[:40]}")
    if not 0 <= investigators <= 14:
        raise Unprocessable(f"'investigators' must be 0..14, got {str(investigators)[:40]}")
    return {"seed": seed, "rows": solos.leaderboard_rows(seed, investigators)}
