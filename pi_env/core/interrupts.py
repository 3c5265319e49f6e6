"""Stopping long experiments cleanly: Ctrl-C and SIGTERM (``kill``, ``timeout``, a job scheduler)
both raise :class:`KeyboardInterrupt` in the main process, whose pool of workers then shuts down
(no orphaned worker keeps computing), and a second signal cannot break the shutdown.

Used by :mod:`pi_env.apps.tournament`, :mod:`pi_env.experiments.solo_optimal`, :mod:`pi_env.rl.train`,
:mod:`pi_env.rl.imitate` and :mod:`pi_env.experiments.train_rl`
(in the core layer so that every layer above can use it; :mod:`pi_env.apps.interrupts` re-exports it).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from typing import Any, Callable, Iterator

__all__ = ["ignore_sigint", "terminate_as_interrupt", "signals_held", "caused_by_interrupt",
           "exit_130_when_interrupted", "interrupted_while_starting"]


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
def signals_held() -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM for the duration (main thread only): used while saving or shutting
    down. A signal that arrives does not interrupt the block; it is recorded in the list yielded
    (signal numbers, in order), so that the caller can honour it afterwards."""
    received: list[int] = []
    if not _main_thread():
        yield received
        return
    previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def exit_130_when_interrupted(main: Callable[[], int], message: str) -> int:
    """Run a command line's ``main()`` with SIGTERM raising :class:`KeyboardInterrupt` (see
    :func:`terminate_as_interrupt`); when it is interrupted (:func:`caused_by_interrupt`), print
    ``message`` as one line on stderr, no traceback, and return 130 (128 + SIGINT, the shell's convention).

    Args:
        main: the command's body; its return value (an exit status) is passed through.
        message: the one line printed when interrupted.

    Returns:
        ``main()``'s exit status, or 130 when interrupted.

    Raises:
        BaseException: whatever ``main`` raises that is not an interruption, unchanged.
    """
    try:
        with terminate_as_interrupt():
            return main()
    except BaseException as exc:
        if not caused_by_interrupt(exc):
            raise
        print(message, file=sys.stderr)
        return 130


@contextlib.contextmanager
def interrupted_while_starting(module: str, prog: str) -> Iterator[None]:
    """Around a command module's heavy imports (numba kernels, torch: seconds): Ctrl-C meanwhile,
    when the module runs as ``python -m`` (``module == "__main__"``), prints one line
    ``"{prog}: interrupted while starting; nothing written"`` on stderr and exits with status 130;
    when the module is merely imported, the :class:`KeyboardInterrupt` propagates unchanged.

    Args:
        module: the calling module's ``__name__``.
        prog: the command as the user typed it, e.g. ``"python -m pi_env.rl.train"``.

    Raises:
        SystemExit: status 130, interrupted under ``python -m``.
        KeyboardInterrupt: interrupted while imported.
    """
    try:
        yield
    except KeyboardInterrupt:
        if module != "__main__":
            raise
        print(f"{prog}: interrupted while starting; nothing written", file=sys.stderr)
        raise SystemExit(130) from None
