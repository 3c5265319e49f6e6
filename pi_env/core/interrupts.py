"""Stopping long experiments cleanly: Ctrl-C and SIGTERM (``kill``, ``timeout``, a job scheduler)
both raise :class:`KeyboardInterrupt` in the main process, whose pool of workers then shuts down
(no orphaned worker keeps computing), and a second signal cannot break the shutdown.

Used by :mod:`pi_env.apps.tournament`, :mod:`pi_env.experiments.solo_optimal` and :mod:`pi_env.rl.train`
(in the core layer so that every layer above can use it; :mod:`pi_env.apps.interrupts` re-exports it).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

__all__ = ["ignore_sigint", "terminate_as_interrupt", "signals_held", "caused_by_interrupt"]


def ignore_sigint() -> None:
    """Pool initializer for worker processes: Ctrl-C is handled by the parent alone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised because of, a :class:`KeyboardInterrupt` (its chain of
    causes and contexts holds one).

    Ctrl-C while a numba kernel runs surfaces as ``SystemError: ... returned a result with an
    exception set`` whose cause is the ``KeyboardInterrupt`` (Python code the kernel calls back,
    such as numba's unpickling of constants, receives the pending signal); such an error is an
    interruption, not a failure.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`KeyboardInterrupt`, like Ctrl-C. Only in the main
    thread (signals are delivered there); elsewhere the block runs unchanged."""
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ignore SIGINT and SIGTERM for the duration (main thread only): used while shutting down."""
    if not _main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
