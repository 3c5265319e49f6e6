"""The pages and static files of the web app (every asset from the package; a page whose game,
solo game or record does not exist answers 404) (:mod:`pi_env.apps.web.app`)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from pi_env.apps.web.errors import NotFound
from pi_env.apps.web.http import STATIC

router = APIRouter()


def page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html")


@router.get("/")
async def index():
    return page("index.html")


@router.get("/game/{game_id}")
async def spectator_page(game_id: str, request: Request):
    games = request.app.state.games
    games.get(game_id)
    return page("game.html")


@router.get("/game/{game_id}/seat/{token}")
async def seat_page(game_id: str, token: str, request: Request):
    games = request.app.state.games
    games.get(game_id).seat_of(token)
    return page("game.html")


@router.get("/solo/{sid}")
async def solo_page(sid: str, request: Request):
    solos = request.app.state.solos
    solos.get(sid)
    return page("solo.html")


@router.get("/replay/{rid}")
async def replay_page(rid: str, request: Request):
    replays = request.app.state.replays
    await asyncio.to_thread(replays.get, rid)
    return page("replay.html")


@router.get("/favicon.ico")
async def favicon():
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/static/{name}")
async def static(name: str):
    path = STATIC / name
    if "/" in name or name.startswith(".") or not path.is_file():
        raise NotFound(f"no static file {name[:60]!r}")
    kind = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
            ".html": "text/html", ".png": "image/png"}.get(path.suffix, "application/octet-stream")
    return FileResponse(path, media_type=kind)
