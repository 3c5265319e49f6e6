"""The pages and static files of the web app (every asset from the package; a page whose game,
solo game or record does not exist answers 404) (:mod:`pi_env.apps.web.app`).

The files are read once and answered from memory, on the event loop without a worker thread: a
page or asset never waits behind the games' work. Each answers HEAD as GET, without the body."""

from __future__ import annotations

import asyncio
import functools

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pi_env.apps.web.errors import NotFound
from pi_env.apps.web.http import STATIC

router = APIRouter()
page_route = functools.partial(router.api_route, methods=["GET", "HEAD"])
"""A page or file: HEAD is answered like GET without a body (link checkers, proxies, ``curl -I``)."""


KINDS = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".html": "text/html",
         ".png": "image/png"}


@functools.lru_cache(maxsize=64)
def _content(name: str) -> bytes:
    return (STATIC / name).read_bytes()


def static_file(name: str) -> Response:
    """A file of the static folder (read once), with its media type."""
    kind = KINDS.get((STATIC / name).suffix, "application/octet-stream")
    return Response(_content(name), media_type=kind)


def page(name: str) -> Response:
    return static_file(name)


@page_route("/")
async def index():
    return page("index.html")


@page_route("/game/{game_id}")
async def spectator_page(game_id: str, request: Request):
    games = request.app.state.games
    games.get(game_id)
    return page("game.html")


@page_route("/game/{game_id}/seat/{token}")
async def seat_page(game_id: str, token: str, request: Request):
    games = request.app.state.games
    game = games.get(game_id)
    game.seat_of(token)
    return page("lobby.html" if game.lobby else "game.html")


@page_route("/solo/{sid}")
async def solo_page(sid: str, request: Request):
    solos = request.app.state.solos
    solos.get(sid)
    return page("solo.html")


@page_route("/replay/{rid}")
async def replay_page(rid: str, request: Request):
    replays = request.app.state.replays
    await asyncio.to_thread(replays.get, rid)
    return page("replay.html")


@page_route("/favicon.ico")
async def favicon():
    return static_file("favicon.svg")


@page_route("/static/{name}")
async def static(name: str):
    if name.startswith(".") or name not in _names():  # a file name of the folder, nothing else
        raise NotFound(f"no static file {name[:60]!r}")
    return static_file(name)


@functools.lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    """The static folder's files (listed once)."""
    return frozenset(f.name for f in STATIC.iterdir() if f.is_file())
