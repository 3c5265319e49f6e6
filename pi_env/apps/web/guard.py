"""What stands between the web app and the network: ASGI middleware that needs no web framework.

:class:`RequestGuard` (outermost) refuses, before any endpoint runs:

* a ``Host`` header that is not this server (:class:`HostPolicy`): a page of another site whose
  name was pointed at 127.0.0.1 (DNS rebinding) reaches the socket with that site's name;
* a state-changing request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) from another page: an
  ``Origin`` other than this server's own (scheme, name and port of the request's ``Host``), or
  ``Sec-Fetch-Site`` other than ``same-origin``/``none``; a request without either header
  (``curl``, scripts) is not a browser's cross-site request and is served;
* a request body that is not declared ``Content-Type: application/json`` (a page elsewhere can
  send ``text/plain`` and form bodies without asking; JSON it cannot);

and turns any unexpected exception into a JSON 500 with a one-line reason (the traceback goes to
the ``pi_env.web`` log), so the server never answers with a bare error page or drops the
connection. :class:`SecurityHeaders` (outside it) gives every response, refusals included, the
headers of :data:`SECURITY_HEADERS`: no page of this server can be framed by another page (a click
inside a framed page would act with the server's authority), scripts, styles, images and requests
come from this server only, types are not sniffed, and no address (a seat's private link) is sent
to another site as a referrer. :class:`BodyLimit` refuses a body over the limit with 413: a declared
``Content-Length`` before any byte is read, a streamed (chunked) body as soon as the bytes that
arrived pass the limit, so no request holds more than the limit in memory.

Every refusal is ``{"error": "one-line reason"}`` and changes nothing.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import socket
from typing import Any, Awaitable, Callable

__all__ = ["HostPolicy", "allowed_name", "public_url",
           "RequestGuard", "BodyLimit", "SecurityHeaders", "SECURITY_HEADERS", "CONTENT_SECURITY_POLICY",
           "is_loopback", "error_body", "BodyTooLarge", "redact"]

log = logging.getLogger("pi_env.web")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                           "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
                           "frame-ancestors 'none'")
"""What the pages may load and who may frame them: everything from this server only (no inline
script or style attribute: the pages have none, and set styles through the DOM), framed by nobody."""
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("ascii")),
    (b"x-content-type-options", b"nosniff"),
    # same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the pages'
    # own POST requests, which RequestGuard refuses as another page's
    (b"referrer-policy", b"same-origin"),
)
"""The headers :class:`SecurityHeaders` puts on every response (replacing any of the same name)."""

_TOKEN_IN_PATH = re.compile(r"(/seat/|[?&]seat=)[^/?&#\s\"]+")


def redact(text: str) -> str:
    """``text`` with every seat token in a path or query (``/seat/TOKEN``, ``?seat=TOKEN``)
    replaced by ``…``: tokens are private links and never go to a log."""
    return _TOKEN_IN_PATH.sub(lambda m: m.group(1) + "\u2026", text)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _ip(name: str) -> "ipaddress.IPv4Address | ipaddress.IPv6Address | None":
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def split_host(value: str) -> tuple[str, int] | None:
    """``(name, port)`` of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``; port 80
    when absent), the name lower-cased without a trailing dot; ``None`` when malformed."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if _ip(name) is None:
            return None
    else:
        name, sep, rest = value.partition(":")
        rest = sep + rest
    if rest == "":
        port = 80
    elif rest.startswith(":") and rest[1:].isdigit() and len(rest) <= 6:
        port = int(rest[1:])
    else:
        return None
    name = name.lower().rstrip(".")
    if not name:
        return None
    return name, port


class HostPolicy:
    """Which ``Host`` values name this server (listening on ``host``, ``port``), and which
    ``Origin`` values are its own pages.

    Without configured names (``pi-env serve`` refuses a non-loopback ``--host`` without them):

    * A loopback interface (``127.0.0.1``, ``::1``, ``localhost``): ``localhost``, ``127.0.0.1``
      and ``[::1]``.
    * Every interface (``0.0.0.0``, ``::``, ``""``): any IP address (an address reached the socket,
      so it is this machine's; no other site can be named by one), ``localhost``, and this
      machine's own name (:func:`socket.gethostname`, :func:`socket.getfqdn`).
    * Any other ``--host``: exactly that name or address.

    Always with the port the server listens on (80 may be left out, as browsers do); an ``Origin``
    must then be ``http://`` and name the same host and port as the ``Host`` header.

    With configured names (``--allow-host NAME``, ``--public-url URL``): exactly those names and the
    loopback names, nothing else (no other address of the machine). A loopback name is accepted with
    the listening port; an allowed ``NAME`` with the listening port or with no port (behind a
    reverse proxy on 80 or 443: ``http://NAME``, ``https://NAME``); the public URL's name with its
    own port (none, or the scheme's default). An ``Origin`` must be one of those (scheme, name,
    port) and name the same host as the ``Host`` header.

    Args:
        host: the interface as given to ``pi-env serve --host``.
        port: the port the socket listens on (the real one when 0 was asked).
        allow_hosts: names (or addresses) people and proxies use to reach the server.
        public_urls: ``http(s)://name[:port]`` addresses the server is reached at (a reverse proxy's).

    Raises:
        ValueError: a malformed name or URL (the message names it).
    """

    def __init__(self, host: str, port: int, allow_hosts: "tuple[str, ...] | list[str]" = (),
                 public_urls: "tuple[str, ...] | list[str]" = ()):
        self.host, self.port = host, int(port)
        bare = host.strip("[]").lower().rstrip(".")
        self.configured = bool(allow_hosts or public_urls)
        self.any_ip = bare in ("", "0.0.0.0", "::") and not self.configured
        names = {bare}
        if is_loopback(bare) or self.any_ip or self.configured:
            names |= LOOPBACK_NAMES
        if self.any_ip:
            for name in (socket.gethostname(), socket.getfqdn()):
                if name:
                    names.add(name.lower().rstrip("."))
        if self.configured:  # exactly the configured names and the loopback names
            names = set(LOOPBACK_NAMES)
        self.names = frozenset(n for n in names if n)
        # (name, port or None for "no port in the header") accepted in Host; (scheme, name, port) in Origin
        self.hosts: set[tuple[str, int | None]] = {(n, self.port) for n in self.names}
        self.origins: set[tuple[str, str, int]] = {("http", n, self.port) for n in self.names}
        for raw in allow_hosts:
            name = allowed_name(raw)
            self.hosts |= {(name, self.port), (name, None), (name, 80), (name, 443)}
            self.origins |= {("http", name, self.port), ("http", name, 80), ("https", name, 443)}
        self.public_urls = tuple(public_url(u) for u in public_urls)
        for scheme, name, port, _ in self.public_urls:
            default = 443 if scheme == "https" else 80
            self.hosts.add((name, port))
            if port == default:
                self.hosts.add((name, None))
            self.origins.add((scheme, name, port))
        self.allowed_names = frozenset(name for name, _ in self.hosts)

    def _host(self, value: str | None) -> tuple[str, int | None] | None:
        value = (value or "").strip()
        parts = split_host(value)
        if parts is None:
            return None
        name, port = parts
        has_port = value.rfind(":") > value.rfind("]")
        return name, port if has_port else None

    def allows(self, value: str | None) -> bool:
        """Whether a ``Host`` header value names this server."""
        parts = self._host(value)
        if parts is None:
            return False
        name, port = parts
        if not self.configured:
            port = 80 if port is None else port
            if port != self.port:
                return False
            if name in self.names:
                return True
            return self.any_ip and _ip(name) is not None
        return parts in self.hosts

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """Whether an ``Origin`` header value is one of this server's own pages, for a request whose
        ``Host`` header is ``host`` (already :meth:`allows`-ed)."""
        scheme, sep, rest = origin.strip().partition("://")
        scheme = scheme.lower()
        if not sep or "/" in rest or scheme not in ("http", "https"):
            return False
        theirs = split_host(rest)
        if theirs is None:
            return False
        if not self.configured:
            return scheme == "http" and theirs == split_host(host or "")
        has_port = rest.rfind(":") > rest.rfind("]")
        name, port = theirs[0], theirs[1] if has_port else (443 if scheme == "https" else 80)
        mine = self._host(host)
        return mine is not None and mine[0] == name and (scheme, name, port) in self.origins

    def describe(self) -> str:
        if self.configured:
            shown = sorted({f"[{n}]" if ":" in n else n for n in self.allowed_names})
            return f"{', '.join(shown)} (loopback names on port {self.port})"
        shown = sorted(f"[{n}]" if ":" in n else n for n in self.names if n not in ("", "0.0.0.0", "::"))
        extra = "any address of this machine, " if self.any_ip else ""
        return f"{extra}{', '.join(shown)} on port {self.port}"


_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


def allowed_name(value: str) -> str:
    """A host name or IP address for ``--allow-host``, lower-cased, without brackets or trailing dot.

    Raises:
        ValueError: not a host name or an IP address (a port, a scheme or a path given with it).
    """
    name = value.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if _ip(name) is not None or (_NAME.match(name) and len(name) <= 253):
        return name
    raise ValueError(f"--allow-host {value!r}: expected a host name or an IP address (no scheme, port or path)")


def public_url(value: str) -> tuple[str, str, int, str]:
    """``(scheme, name, port, url)`` of a ``--public-url`` value ``http(s)://name[:port][/]``; the
    port is the scheme's default when absent; ``url`` is the address without a trailing slash.

    Raises:
        ValueError: another scheme, a path, a query, credentials or a malformed name or port.
    """
    text = value.strip()
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    rest = rest[:-1] if rest.endswith("/") else rest
    parts = split_host(rest) if sep and scheme in ("http", "https") and rest and not set("/?#@") & set(rest) else None
    if parts is None:
        raise ValueError(f"--public-url {value!r}: expected http://NAME[:PORT] or https://NAME[:PORT] "
                         f"(the address people open; no path)")
    name = allowed_name(parts[0])
    has_port = rest.rfind(":") > rest.rfind("]")
    port = parts[1] if has_port else (443 if scheme == "https" else 80)
    return scheme, name, port, f"{scheme}://{rest}"


def error_body(reason: str) -> bytes:
    """``{"error": reason}`` as bytes; ASCII-escaped, so any text (even a lone surrogate) encodes."""
    return json.dumps({"error": " ".join(str(reason).split())}, ensure_ascii=True).encode("ascii")


async def send_error(send: Send, status: int, reason: str) -> None:
    """A whole JSON error response."""
    body = error_body(reason)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _shown(text: str, limit: int = 60) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


class _TrackedSend:
    """An ASGI ``send`` that passes every message on and remembers whether the response has started
    (:attr:`started`: after that, an error can no longer be answered with a response of its own)."""

    def __init__(self, send: Send):
        self._send = send
        self.started = False

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


class RequestGuard:
    """ASGI middleware: Host, Origin and Content-Type checks and the catch-all 500 (module docstring).

    Args:
        app: the ASGI application.
        policy: the server's names (:class:`HostPolicy`).
    """

    def __init__(self, app, policy: HostPolicy):
        self.app, self.policy = app, policy

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """``(status, reason)`` when the request must be refused, else ``None``."""
        host = _header(scope, b"host")
        if not self.policy.allows(host):
            return 400, (f"Host {_shown(host or '')} is not this server ({self.policy.describe()}); "
                         f"open the address pi-env serve printed")
        if scope.get("method", "GET").upper() not in UNSAFE_METHODS:
            return None
        fetch_site = _header(scope, b"sec-fetch-site")
        origin = _header(scope, b"origin")
        if fetch_site is not None and fetch_site.strip().lower() not in ("same-origin", "none"):
            return 403, f"refused: a request from another page or site (Sec-Fetch-Site: {_shown(fetch_site)})"
        if origin is not None and not self.policy.origin_allowed(origin, host):
            return 403, f"refused: a request from another page (Origin {_shown(origin)}) to this server"
        length = _header(scope, b"content-length")
        has_body = _header(scope, b"transfer-encoding") is not None or (length or "0").strip() not in ("", "0")
        if has_body:
            kind = (_header(scope, b"content-type") or "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return 415, (f"the request body must be JSON sent with Content-Type: application/json "
                             f"(got {_shown(kind) if kind else 'none'})")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is not None:
            await send_error(send, *refused)
            return
        tracked = _TrackedSend(send)
        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # the catch-all: logged with its traceback, answered in one line
            log.exception("%s %s failed", scope.get("method"), redact(str(scope.get("path"))))
            if not tracked.started:
                await send_error(send, 500, f"internal error in the server ({type(exc).__name__}); the "
                                            f"details are in the server's log")


class BodyTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes the limit (turned into 413)."""


class BodyLimit:
    """ASGI middleware: 413 for a body over ``limit`` bytes, declared or streamed (module docstring).

    The exception :class:`BodyTooLarge` raised to the endpoint that reads the body is caught here
    (or by a handler the application registers for it) and answered with 413.

    Args:
        app: the ASGI application.
        limit: the largest body accepted, bytes.
        too_large: the exception raised from ``receive`` (the app may map it to its own 413 answer).
    """

    def __init__(self, app, limit: int, too_large: type[Exception] = BodyTooLarge):
        self.app, self.limit, self.too_large = app, int(limit), too_large

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            text = length.strip()
            if not text.isdigit() or len(text) > 18:
                await send_error(send, 400, f"malformed Content-Length header {_shown(length)}")
                return
            if int(text) > self.limit:
                await send_error(send, 413, f"request body too large: {int(text)} bytes, the limit is {self.limit}")
                return
        seen = 0

        async def limited_receive() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise self.too_large(f"request body too large: more than {self.limit} bytes")
            return message

        tracked = _TrackedSend(send)
        try:
            await self.app(scope, limited_receive, tracked)
        except self.too_large as exc:
            if not tracked.started:
                await send_error(send, 413, str(exc))


class SecurityHeaders:
    """ASGI middleware: every HTTP response gets :data:`SECURITY_HEADERS` (module docstring).

    Args:
        app: the ASGI application.
    """

    _NAMES = frozenset(name for name, _ in SECURITY_HEADERS)

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in self._NAMES]
                message = {**message, "headers": headers + list(SECURITY_HEADERS)}
            await send(message)

        await self.app(scope, receive, send_with_headers)
