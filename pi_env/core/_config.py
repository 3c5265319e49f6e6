"""Compiler settings of every numba kernel in pi-env, in one place (STYLE.md §6).

Environment variables:
    PI_ENV_NUMBA_CACHE: ``0`` turns the on-disk kernel cache off (default on).
    PI_ENV_NUMBA_PARALLEL: ``0`` never uses threads; by default a batch kernel runs with
        ``numba.prange`` over games on all cores when the batch has at least
        ``PARALLEL_MIN_BATCH`` games, and serially below (threads cost more than they save there).
    NUMBA_DISABLE_JIT: numba's own switch; ``1`` runs every kernel as plain Python over numpy
        arrays (the reference path the parity tests compare against).
    PI_ENV_COMPILE_NOTICE: ``0`` silences the line the ``pi-env`` command prints when it has to
        compile the kernels (:func:`announce_compilation`; the test suite sets it).
"""

import os
import sys
import types

import numba
from numba.core import event as _numba_event

CACHE: bool = os.environ.get("PI_ENV_NUMBA_CACHE", "1") != "0"
PARALLEL: bool = os.environ.get("PI_ENV_NUMBA_PARALLEL", "1") != "0"
PARALLEL_MIN_BATCH: int = 256
FASTMATH: bool = False


def kernel(fn):
    """Compile a per-game helper kernel (``nopython``, cached, no fastmath)."""
    return numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True)(fn)


class BatchKernel:
    """A kernel over the batch axis in two builds: serial (``__call__``) and threaded
    (``for_batch(B)`` picks the threaded build when ``B >= PARALLEL_MIN_BATCH``)."""

    def __init__(self, fn):
        self.serial = numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True)(fn)
        self.parallel = self.serial
        if PARALLEL:
            twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                      fn.__closure__)
            twin.__qualname__ = fn.__qualname__ + "_parallel"  # its own cache entry
            self.parallel = numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True, parallel=True)(twin)
        self.__doc__ = fn.__doc__
        self.py_func = fn

    def __call__(self, *args):
        return self.serial(*args)

    def for_batch(self, batch_size: int):
        """The build to use for ``batch_size`` games."""
        return self.parallel if batch_size >= PARALLEL_MIN_BATCH else self.serial


def batch_kernel(fn) -> BatchKernel:
    """Compile a kernel that loops over the batch axis with ``numba.prange``."""
    return BatchKernel(fn)


COMPILING_MESSAGE = ("pi-env: compiling the numba kernels, first run only (about 30 s; later runs load "
                     "them from the cache)")
"""What :func:`announce_compilation` prints when the kernel cache is cold."""
COMPILING_NO_CACHE_MESSAGE = ("pi-env: compiling the numba kernels (the kernel cache is off: "
                              "PI_ENV_NUMBA_CACHE=0, so every run compiles)")


class _CompileAnnouncer(_numba_event.Listener):
    """Prints one line the first time numba compiles a pi-env kernel in this process (numba fires
    ``numba:compile`` only when no cached machine code was found)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.done = False

    def on_start(self, event) -> None:
        if self.done or os.environ.get("PI_ENV_COMPILE_NOTICE", "1") == "0":
            return
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith("pi_env"):
            return
        self.done = True
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            print(COMPILING_MESSAGE if CACHE else COMPILING_NO_CACHE_MESSAGE, file=stream, flush=True)
        except (OSError, ValueError):  # a closed stream: the message is a courtesy
            pass

    def on_end(self, event) -> None:
        pass


_announcer: "_CompileAnnouncer | None" = None


def announce_compilation(stream=None) -> None:
    """Say so (one line, on ``stream``, default ``sys.stderr`` at the time) the first time a pi-env
    kernel is compiled in this process: the first command after installing compiles the kernels
    for about 30 s, later ones load them from numba's on-disk cache (``NUMBA_CACHE_DIR`` if set).
    Installed once per process (later calls only change the stream); the ``pi-env`` command calls
    it at its start. Nothing is printed when every kernel comes from the cache, or with
    ``NUMBA_DISABLE_JIT=1``."""
    global _announcer
    if _announcer is None:
        _announcer = _CompileAnnouncer(stream)
        _numba_event.register("numba:compile", _announcer)
    else:
        _announcer.stream = stream
