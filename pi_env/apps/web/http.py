"""What every route of the web app shares: request bodies read and checked, query parameters,
JSON answers and the one-line error body, the static folder and the limits (:mod:`pi_env.apps.web.app`).
"""

from __future__ import annotations

import html
import ipaddress
import json
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from pi_env.apps.web.errors import BadRequest, Unprocessable
from pi_env.apps.web.guard import error_body

__all__ = ["MAX_BODY", "MAX_DEPTH", "STATIC", "POLL_SECONDS", "SOLVER_WAIT", "json_response", "JSONAnswer",
           "error_response", "error_page", "wants_page", "check_parsed", "read_json", "move_body", "int_param", "client_address"]

MAX_BODY = 2_000_000
"""Largest request body accepted, bytes (a long 5-player record is about 100 kB); also the largest
record file opened by path."""
MAX_DEPTH = 32
"""Deepest nesting of lists and objects in a request body (a record nests 6 levels)."""
STATIC = Path(__file__).with_name("static")
POLL_SECONDS = 20.0
SOLVER_WAIT = 0.25
"""Seconds a solver-view request waits for its result before answering "computing"."""


def json_response(content: Any, status: int = 200) -> Response:
    """A JSON answer; non-ASCII text is sent as UTF-8, or escaped if it cannot be encoded."""
    try:
        body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        body = json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
    return Response(body, status_code=status, media_type="application/json")


class JSONAnswer(JSONResponse):
    """The endpoints' default response class (:func:`json_response`'s encoding)."""

    def render(self, content: Any) -> bytes:
        return json_response(content).body


def error_response(status: int, reason: str) -> Response:
    return Response(error_body(reason), status_code=status, media_type="application/json")


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>P.I. — {title}</title>
<link rel="stylesheet" href="/static/app.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body class="error-page" data-status="{status}">
<header><h1><a href="/">P.I.</a></h1></header>
<main>
<div class="panel">
<h2>{title}</h2>
<p id="reason">{reason}</p>
<p><a href="/">Back to the start page</a> (new game, solo case, replays)</p>
</div>
</main>
</body>
</html>
"""
_TITLES = {404: "Page not found", 403: "Not your seat", 405: "Not allowed", 429: "Too many requests"}


def wants_page(request: Request) -> bool:
    """Whether a refusal should be an HTML page: a browser's ``GET`` (``Accept`` names
    ``text/html``) of a page, never of the API (``/api/``) or an asset (``/static/``), which keep
    their JSON ``{"error": ...}``.

    Args:
        request: the refused request.

    Returns:
        True for a page request of a browser.
    """
    path = request.url.path
    if request.method not in ("GET", "HEAD") or path.startswith(("/api/", "/static/")):
        return False
    return "text/html" in request.headers.get("accept", "")


def error_page(status: int, reason: str) -> Response:
    """A refusal as a small HTML page for a browser (:func:`wants_page`): the status's title, the
    one-line reason (escaped) and a link to the start page. Styled by the app's own stylesheet
    (no inline script or style: the Content-Security-Policy holds).

    Args:
        status: the HTTP status (kept).
        reason: the one-line reason (the same as the JSON ``error``).

    Returns:
        A ``text/html`` response with that status.
    """
    title = _TITLES.get(status, "Cannot show this page" if status < 500 else "Server error")
    body = _PAGE.format(title=html.escape(title), status=int(status), reason=html.escape(reason))
    return Response(body.encode("utf-8"), status_code=status, media_type="text/html")


def check_parsed(doc: Any) -> None:
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


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a request body; a key given twice is refused (``json.loads`` would keep the
    last silently, where another reader keeps the first), as in a record file."""
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise BadRequest(f"the request body gives the key {key[:40]!r} twice; give each key once")
    return doc


async def read_json(request: Request) -> Any:
    """The request's JSON body (the guard checked its Content-Type; the body limit its size).

    Raises:
        BadRequest: not UTF-8, not JSON, nested too deeply, holding a lone surrogate, or giving
            a key of an object twice.
        TooLarge: the body passed :data:`MAX_BODY` while it arrived.
    """
    body = await request.body()
    try:
        text = body.decode("utf-8") if body else "null"
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the request body is not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(text, object_pairs_hook=_object)
    except BadRequest:
        raise
    except json.JSONDecodeError as exc:
        raise BadRequest(f"the request body is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BadRequest(f"the request body has lists or objects nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise BadRequest(f"the request body is not usable JSON ({exc})") from None
    check_parsed(doc)
    return doc


def move_body(body: Any) -> dict[str, Any]:
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


def int_param(request: Request, name: str, default: Any = None) -> Any:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise Unprocessable(f"{name!r} must be an integer, got {value[:40]!r}") from None


def client_address(request: Request) -> str:
    """The address of the client that sent ``request``, as new games are rate-limited by it: an
    IPv4 address as it is (also when written ``::ffff:a.b.c.d``), an IPv6 address as its /64
    block (``"2001:db8:1:2::/64"``; one client is given a whole /64), ``::1`` as it is."""
    host = request.client.host if request.client is not None else "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.version == 6 and not ip.is_loopback:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
