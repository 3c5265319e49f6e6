"""The web app's refusals: each is an HTTP status and a one-line reason (``{"error": "..."}``).

A refused request changes nothing on the server.
"""

from __future__ import annotations

from pi_env.core.errors import PIError

__all__ = ["WebError", "BadRequest", "Forbidden", "NotFound", "Conflict", "TooLarge", "Unprocessable",
           "TooManyRequests"]


class WebError(PIError):
    """A refused request: ``status`` is its HTTP status, the message its one-line reason."""

    status = 400


class BadRequest(WebError):
    """400: the request cannot be read (not JSON, missing fields)."""

    status = 400


class Forbidden(WebError):
    """403: a seat token that is not valid for the game (or none where one is needed)."""

    status = 403


class NotFound(WebError):
    """404: an unknown game, solo game or replay."""

    status = 404


class Conflict(WebError):
    """409: the request does not fit the game now (stale version, not your turn, illegal move)."""

    status = 409


class TooLarge(WebError):
    """413: a body larger than the server accepts."""

    status = 413


class Unprocessable(WebError):
    """422: well-formed JSON with a wrong value (malformed action, bad settings, malformed record)."""

    status = 422


class TooManyRequests(WebError):
    """429: a client started too many games in a short time; ``retry_after``: whole seconds to wait
    (sent as the ``Retry-After`` header)."""

    status = 429

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = int(retry_after)


class TooSlow(WebError):
    """503: a computation ran past its time limit and was stopped (a game hint, :class:`~pi_env.apps.web.replay.SolverWorker`)."""

    status = 503
