"""Limits of the web app that need no web framework: new games per client (:class:`RateLimit`) and
the durations of ``pi-env serve --finished-ttl/--idle-ttl`` (:func:`parse_duration`)."""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
from typing import Callable, Iterator

from pi_env.apps.web.errors import TooManyRequests

__all__ = ["RateLimit", "GAMES_PER_MINUTE", "parse_duration"]

GAMES_PER_MINUTE = 10
"""New games (and solo games) one client address may start a minute (``pi-env serve --games-per-minute``)."""
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
MAX_DURATION = 3650 * 86400.0


def parse_duration(text: str) -> float:
    """Seconds of a duration written ``90s``, ``30m``, ``24h``, ``7d`` or ``3600`` (seconds).

    Raises:
        ValueError: not such a duration, or not more than 0 and at most 3650 days.
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", str(text).lower())
    if match is None:
        raise ValueError(f"expected a duration such as 90s, 30m, 24h or 7d, got {text!r}")
    seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if not 0 < seconds <= MAX_DURATION:
        raise ValueError(f"a duration must be more than 0 and at most 3650d, got {text!r}")
    return seconds


class RateLimit:
    """A token bucket per client: at most ``per_minute`` at once, refilled at ``per_minute`` a minute.

    Args:
        per_minute: the allowance (a positive integer).
        what: how a refusal names what is limited (``"new games"``).
        clock: seconds, monotonic enough (``time.monotonic``; tests pass their own).
        max_clients: buckets kept; past it the full ones (clients idle for a minute) are dropped.
    """

    def __init__(self, per_minute: int, what: str = "new games", clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 10_000):
        if per_minute < 1:
            raise ValueError(f"per_minute must be at least 1, got {per_minute}")
        self.per_minute, self.what, self.clock, self.max_clients = int(per_minute), what, clock, max_clients
        self.rate = self.per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, time)
        self._lock = threading.Lock()

    def give_back(self, client: str) -> None:
        """Return one of ``client``'s allowance taken by :meth:`take` for a request that then created
        nothing (refused or failed): only what is created counts."""
        with self._lock:
            if client in self._buckets:
                tokens, then = self._buckets[client]
                self._buckets[client] = (min(float(self.per_minute), tokens + 1.0), then)

    @contextlib.contextmanager
    def spend(self, client: str) -> Iterator[None]:
        """Use one of ``client``'s allowance for what the ``with`` block creates; if the block raises
        (the request was refused or failed: nothing was created), give it back (:meth:`give_back`)
        and let the exception go on.

        Raises:
            TooManyRequests: none is left (:meth:`take`); the block does not run.
        """
        self.take(client)
        try:
            yield
        except BaseException:
            self.give_back(client)
            raise

    def take(self, client: str) -> None:
        """Use one of ``client``'s allowance.

        Raises:
            TooManyRequests: none is left; its ``retry_after`` is the whole seconds until one is.
        """
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(client, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + max(0.0, now - then) * self.rate)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                wait = max(1, math.ceil((1.0 - tokens) / self.rate))
                raise TooManyRequests(f"too many {self.what} from this address: at most {self.per_minute} a "
                                      f"minute; try again in {wait} s", retry_after=wait)
            self._buckets[client] = (tokens - 1.0, now)
            if len(self._buckets) > self.max_clients:
                full = [k for k, (t, at) in self._buckets.items()
                        if t + (now - at) * self.rate >= self.per_minute]
                for k in full:
                    del self._buckets[k]
