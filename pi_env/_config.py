"""Compiler settings of every numba kernel in pi-env, in one place (STYLE.md §6).

Environment variables:
    PI_ENV_NUMBA_CACHE: ``0`` turns the on-disk kernel cache off (default on).
    PI_ENV_NUMBA_PARALLEL: ``1`` runs batch kernels with ``prange`` over games on all cores
        (default off: on 2 cores the threading overhead outweighs the gain below B ≈ 1024).
    NUMBA_DISABLE_JIT: numba's own switch; ``1`` runs every kernel as plain Python/numpy (the
        reference path the parity tests compare against).
"""

import os

import numba

CACHE: bool = os.environ.get("PI_ENV_NUMBA_CACHE", "1") != "0"
PARALLEL: bool = os.environ.get("PI_ENV_NUMBA_PARALLEL", "0") == "1"
FASTMATH: bool = False


def kernel(fn):
    """Compile a per-game helper kernel (``nopython``, cached, no fastmath)."""
    return numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True)(fn)


def batch_kernel(fn):
    """Compile a kernel that loops over the batch axis with ``numba.prange``."""
    return numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True, parallel=PARALLEL)(fn)
