"""Compiler settings of every numba kernel in pi-env, in one place (STYLE.md §6).

Environment variables:
    PI_ENV_NUMBA_CACHE: ``0`` turns the on-disk kernel cache off (default on).
    PI_ENV_NUMBA_PARALLEL: ``0`` never uses threads; by default a batch kernel runs with
        ``numba.prange`` over games on all cores when the batch has at least
        ``PARALLEL_MIN_BATCH`` games, and serially below (threads cost more than they save there).
    NUMBA_DISABLE_JIT: numba's own switch; ``1`` runs every kernel as plain Python over numpy
        arrays (the reference path the parity tests compare against).
"""

import os
import types

import numba

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
