"""The replay viewer's routes: open a record (upload or path), its summary, the board at a
position, and the solver's view of a player there (:mod:`pi_env.apps.web.app`)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from pi_env.apps.web.files import file_ids
from pi_env.apps.web.errors import BadRequest, Conflict, Unprocessable, WebError
from pi_env.apps.web.http import MAX_BODY, SOLVER_WAIT, int_param, json_response, read_json
from pi_env.apps.web.replay import ReplayDoc, path_refusal, read_record_file
from pi_env.core.errors import PIError

router = APIRouter()


# Building a document, its summary and positions take time in proportion to the record: they
# run in worker threads (asyncio.to_thread), never on the event loop, and so does their JSON.
def open_replay(state: Any, text: str) -> dict[str, Any]:
    """Open a record's text in the replay viewer (``state``: the app's state): stored, cached, linked.

    Raises:
        PIError, WebError: a record the loader refuses.
    """
    doc = ReplayDoc(secrets.token_urlsafe(9), text)
    rid = state.store.add_replay(doc.id, text, max_count=state.stored_replays, max_bytes=state.stored_replay_bytes)
    if rid != doc.id:  # the same record was opened before: its link
        doc.id = rid
    state.replays.put(doc)
    return {"id": rid, "link": f"/replay/{rid}"}


@router.post("/api/replays", status_code=201)
async def new_replay(request: Request):
    allow_paths = request.app.state.allow_paths
    body = await read_json(request)
    if not isinstance(body, dict) or len(body) != 1 or not isinstance(next(iter(body.values())), str) \
            or next(iter(body)) not in ("text", "path"):
        raise BadRequest("the body must be {\"text\": RECORD_JSON} or {\"path\": FILE}")
    if "path" in body:
        if not allow_paths:
            raise Conflict("records can be opened by path only when the server listens on 127.0.0.1; "
                           "upload the file instead")
        state = request.app.state  # never the server's own files (their ids are read before opening)
        text = await asyncio.to_thread(
            lambda: read_record_file(body["path"], MAX_BODY, protected=file_ids(state.data_dir)))
        try:
            return await asyncio.to_thread(open_replay, request.app.state, text)
        except (WebError, PIError):  # their messages quote the file: one answer for every failure
            raise path_refusal(body["path"], MAX_BODY) from None
    return await asyncio.to_thread(open_replay, request.app.state, body["text"])


@router.get("/api/replays/{rid}")
async def replay_summary(rid: str, request: Request):
    replays = request.app.state.replays
    return await asyncio.to_thread(lambda: json_response(replays.get(rid).summary()))


def viewer_params(doc: ReplayDoc, request: Request) -> tuple[int, int, int | None]:
    r, e = doc.check_position(request.query_params.get("round", "1"), request.query_params.get("event", "-1"))
    player = int_param(request, "player")
    if player is not None and not 0 <= player < doc.record.rules.players:
        raise Unprocessable(f"player must be 0..{doc.record.rules.players - 1}, got {player}")
    return r, e, player


@router.get("/api/replays/{rid}/position")
async def replay_position(rid: str, request: Request):
    replays = request.app.state.replays

    def position() -> Response:
        doc = replays.get(rid)
        r, e, player = viewer_params(doc, request)
        return json_response(doc.position(r, e, player, all_seeing=request.query_params.get("all") == "1"))

    return await asyncio.to_thread(position)


@router.get("/api/replays/{rid}/solver")
async def replay_solver(rid: str, request: Request):
    replays = request.app.state.replays
    solver = request.app.state.solver
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
