"""Compiler settings of every numba kernel in pi-env, in one place (docs/contributing.md §C6).

Environment variables:
    PI_ENV_NUMBA_CACHE: ``0`` turns the on-disk kernel cache off (default on).
    PI_ENV_NUMBA_PARALLEL: ``0`` never uses threads; by default a batch kernel runs with
        ``numba.prange`` over games on all cores when the batch has at least
        ``PARALLEL_MIN_BATCH[family]`` games for its kernel family, and serially below (threads
        cost more than they save there).
    OMP_WAIT_POLICY: set to ``PASSIVE`` unless already set (threads sleep while they wait:
        measured far faster on a busy machine); ``ACTIVE`` restores OpenMP's spinning.
    NUMBA_DISABLE_JIT: numba's own switch; ``1`` runs every kernel as plain Python over numpy
        arrays (the reference path the parity tests compare against).
    PI_ENV_COMPILE_NOTICE: ``0`` silences the line printed on stderr when kernels that are not
        cached yet are compiled (once per process: by the ``pi-env`` command and by the first
        kernel a Python program uses; :func:`announce_compilation`; the test suite sets it).
    NUMBA_CACHE_DIR: numba's own switch; where the kernel cache goes. Unset, pi-env's kernels are
        cached in the user's cache folder (``platformdirs.user_cache_dir("pi-env")/numba``, e.g.
        ``~/.cache/pi-env/numba`` on Linux), never inside the installed package, so that
        ``pip uninstall`` leaves nothing behind (:func:`kernel_cache_dir`).
"""

import contextlib
import functools
import hashlib
import os
import sys
import time
import types
from typing import Any, Iterator

import numba
import platformdirs
from numba.core import caching as _numba_caching
from numba.core import event as _numba_event

# numba's OpenMP threads wait for work passively (sleep) unless the user says otherwise: with the
# default active wait, on a machine busy with other processes every threaded kernel waited for a
# spinning thread's time slice (measured, 2 cores, load 5-12: the step-by-step engine at B = 256
# fell from 275 k to 20 k agent-steps/s with threads; with passive waiting threads were faster than
# one thread at every batch size). Must be set before OpenMP starts, hence here.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
CACHE: bool = os.environ.get("PI_ENV_NUMBA_CACHE", "1") != "0"


# --- cache keys that see a kernel's dependencies ------------------------------------------------
# numba keys a cached kernel by the content of the file that defines it, and nothing else: a kernel
# that calls a kernel of another file (the fused play loop calls the step's rule functions in
# _kernels.py) or reads another module's constants kept running its old machine code after only
# that other file changed (seen in development: the fused path ran the step rules of the commit
# before). pi-env's kernels are keyed by the content of every file kernels are built from (the
# core's constants and settings, the encodings' layouts and scales, the engine, the solver) together with their own file; a change to
# any of them recompiles them. A locator class placed first in numba's list (numba.core.caching:
# CacheImpl._locator_classes; the locators themselves are numba's, only the source stamp differs).
_KERNEL_SOURCE_DIRS = ("core", "encodings", "engine", "solvers")
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the pi_env package


def _kernel_source_files() -> list[str]:
    files = []
    for sub in _KERNEL_SOURCE_DIRS:
        d = os.path.realpath(os.path.join(_PACKAGE_DIR, sub))  # pi_env/solvers is a link in a checkout
        if os.path.isdir(d):
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".py"))
    return files


def _sources_digest(files: list[str]) -> bytes:
    """SHA-256 over the base names and contents of ``files``, in order."""
    h = hashlib.sha256()
    for path in files:
        h.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.digest()


@functools.cache
def _kernel_sources_digest() -> bytes:
    """:func:`_sources_digest` of the files in ``_KERNEL_SOURCE_DIRS`` (once per process)."""
    return _sources_digest(_kernel_source_files())


@functools.cache
def _package_root_dirs() -> tuple[str, ...]:
    """The package folder and its subfolders, links resolved (once per process, not per kernel)."""
    subs = [os.path.realpath(os.path.join(_PACKAGE_DIR, d)) for d in os.listdir(_PACKAGE_DIR)]
    return tuple({_PACKAGE_DIR, *[d for d in subs if os.path.isdir(d)]})


def kernel_cache_dir() -> str:
    """The folder of pi-env's cached kernels when ``NUMBA_CACHE_DIR`` is not set: ``numba`` in the
    user's cache folder of pi-env (``platformdirs.user_cache_dir("pi-env")``; on Linux
    ``$XDG_CACHE_HOME/pi-env/numba``, default ``~/.cache/pi-env/numba``). Each source folder gets
    its own subfolder there (numba names it by the folder's name and a hash of its full path), so a
    checkout and an installed copy never share entries. Delete it to clear the cache."""
    return os.path.join(platformdirs.user_cache_dir("pi-env", appauthor=False), "numba")


class _UserCacheLocator(_numba_caching._SourceFileBackedLocatorMixin, _numba_caching._CacheLocator):
    """numba's locator shape for a cache in :func:`kernel_cache_dir` (numba's own choices would
    write beside the sources, inside site-packages for an installed copy)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(kernel_cache_dir(), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path


def _kernel_locator(base: type) -> type:
    class Locator(base):
        """numba's ``base`` locator for pi-env's kernels, whose source stamp also covers the files
        kernels are built from (see ``_KERNEL_SOURCE_DIRS``)."""

        @classmethod
        def from_function(cls, py_func, py_file):
            real = os.path.realpath(py_file)
            if not any(real.startswith(d + os.sep) for d in _package_root_dirs()):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return (super().get_source_stamp(), _kernel_sources_digest())

    Locator.__name__ = Locator.__qualname__ = "PiEnv" + base.__name__
    return Locator


def _install_kernel_locators() -> None:
    classes: list = _numba_caching.CacheImpl._locator_classes  # numba types it as an iterable; it is a list
    if any(c.__name__.startswith("PiEnv") for c in classes):
        return
    ours = [_kernel_locator(c) for c in (_numba_caching.UserProvidedCacheLocator,  # NUMBA_CACHE_DIR, if set
                                         _UserCacheLocator,  # else the user's cache folder
                                         _numba_caching.InTreeCacheLocator, _numba_caching.UserWideCacheLocator)]
    classes[:0] = ours


_install_kernel_locators()
PARALLEL: bool = os.environ.get("PI_ENV_NUMBA_PARALLEL", "1") != "0"
PARALLEL_MIN_BATCH: dict[str, "int | None"] = {
    "step": 4096,
    "sample": 4096,
    "init": None,
    "observe": 128,
    "fused": 128,
    "selfplay": 1024,
    "default": 256,
}
"""The smallest batch from which a kernel family runs threaded by default (``None``: never; one
place for every threshold). Chosen by measurement: ``python
benchmarks/thread_thresholds.py`` times each family's one-thread and threaded builds on equal games
at 16 .. 8192 games and prints where threads break even (2-core machine; numba's default thread
count, one per core). Families: ``step`` (a turn of every game: :data:`pi_env.engine._kernels.step_kernel`,
the solo step), ``sample`` (legal actions, masks, random legal actions: a few hundred nanoseconds per
game, so threads pay only from 4,096 games), ``init`` (new games' setup: threads never paid), ``observe`` (the
engine observation and the incremental flat writer), ``fused`` (:func:`pi_env.engine.play`, many turns
per call), ``selfplay`` (one whole self-play turn with its observation and mask,
:class:`pi_env.engine.rows.SelfPlayTurn`), ``default`` (kernels without a family, e.g. the solver's per-row posteriors, tens of
microseconds per game; not measured here). The values are the break-even points of three quiet
runs (2026-12-02 05:16-05:18 UTC, load 0.8-1.0, 4 players: the largest break-even of the three per
family; at B = 1,024 the step kernel ran at 0.86-0.99 of one thread, at 2,048 at 0.98-1.15, and
threads never paid for ``init``). ``selfplay`` is 1024: after the fused turn's one-thread build lost
its reference counting (commit 47bc811) a quiet ``benchmarks/selfplay_throughput.py`` run (07:37 UTC,
2 players) measured threads at 0.44-0.63 of one thread at B = 256 and 0.99-1.24 at 1,024. See
CHANGELOG 0.2.0 "threads never slower"."""
FASTMATH: bool = False


def threaded_by_default(family: str, batch_size: int) -> bool:
    """Whether the default dispatch (``parallel=None``) runs a kernel of ``family`` threaded for
    ``batch_size`` games (:data:`PARALLEL_MIN_BATCH`; never with ``PI_ENV_NUMBA_PARALLEL=0``).

    Raises:
        KeyError: an unknown family."""
    threshold = PARALLEL_MIN_BATCH[family]
    return PARALLEL and threshold is not None and batch_size >= threshold


def kernel(fn):
    """Compile a per-game helper kernel (``nopython``, cached, no fastmath)."""
    return numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True)(fn)


def rule_step(fn=None, *, inline: bool = False):
    """Compile a per-game rule function of the step path without reference counting
    (``@rule_step`` or ``@rule_step(inline=True)``).

    numba counts references to every array a function takes or slices: an atomic increment of the
    array's memory record when the function starts using it and a decrement after its last use,
    both calls into numba's runtime (NRT). In one big kernel these sit at the kernel's entry and
    exit; in a small function called per game they run per call, and after LLVM inlines the
    function its increments and branch-dependent decrements stay inside the caller's loop (numba's
    pruning pass cannot pair decrements that LLVM merged across branches). Measured: the step
    kernel split into named rule functions ran 2.5x slower than one function.
    A rule step compiled here has no reference counting at all. ``inline=True`` also inlines it
    into its callers at numba's level (``inline="always"``: the caller is compiled as if the code
    were written out there, instead of an LLVM call that passes every array as its ~10 fields),
    for the named steps of one turn. Measured against the same turn written out in one function
    (CHANGELOG 0.2.0, "engine speed"): 1.01–1.05x in three of four rule sets, 1.16x in the first
    edition's, within the spread between two builds of the one function on the busy machine. The price: a rule step
    must not allocate or return an array (numba refuses to compile one that does); it may call
    kernels that allocate (they count their own references), and it may slice the arrays it is
    given."""
    if fn is None:
        return lambda f: rule_step(f, inline=inline)
    options: dict[str, Any] = {"_nrt": False}  # numba's private switch, not in its typed signature
    return numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True, inline="always" if inline else "never",
                      **options)(fn)


class BatchKernel:
    """A kernel over the batch axis in two builds: serial (``__call__``) and threaded.

    ``for_batch(B)`` picks the threaded build when ``B >= min_batch``: the kernel's own
    ``min_batch`` if given, else ``PARALLEL_MIN_BATCH[family]`` (read at each call, so the table in
    this module is the one place to change); a threshold of ``None`` (``cheap=True`` is the family
    ``"sample"``) always picks the serial build (the threaded one is there for measurements:
    ``.parallel``).

    Raises:
        KeyError: an unknown ``family``."""

    def __init__(self, fn, min_batch: "int | None" = None, cheap: bool = False, family: str = "default"):
        self.serial = numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True)(fn)
        self.parallel = self.serial
        if PARALLEL:
            twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                      fn.__closure__)
            twin.__qualname__ = fn.__qualname__ + "_parallel"  # its own cache entry
            self.parallel = numba.njit(cache=CACHE, fastmath=FASTMATH, nogil=True, parallel=True)(twin)
        self.__doc__ = fn.__doc__
        self.py_func = fn
        self.family = "sample" if cheap else family
        if self.family not in PARALLEL_MIN_BATCH:
            raise KeyError(f"unknown batch-kernel family {family!r}; known: {', '.join(PARALLEL_MIN_BATCH)}")
        self._min_batch = None if min_batch is None else int(min_batch)

    @property
    def min_batch(self) -> "int | None":
        """The batch size from which :meth:`for_batch` picks the threaded build (``None``: never)."""
        return self._min_batch if self._min_batch is not None else PARALLEL_MIN_BATCH[self.family]

    def __call__(self, *args):
        return self.serial(*args)

    def for_batch(self, batch_size: int, parallel: "bool | None" = None):
        """The build to use for ``batch_size`` games: threaded from ``min_batch`` games on
        (``parallel=None``), always threaded where threads can pay (``True``: not for a cheap
        kernel), or serial (``False``)."""
        threshold = self.min_batch
        if parallel is False or threshold is None:
            return self.serial
        if parallel:
            return self.parallel
        return self.parallel if batch_size >= threshold else self.serial


def batch_kernel(fn=None, *, min_batch: "int | None" = None, cheap: bool = False, family: str = "default"):
    """Compile a kernel that loops over the batch axis with ``numba.prange``
    (``@batch_kernel`` or ``@batch_kernel(family=..., min_batch=..., cheap=...)``, see
    :class:`BatchKernel`)."""
    if fn is None:
        return lambda f: BatchKernel(f, min_batch=min_batch, cheap=cheap, family=family)
    return BatchKernel(fn, min_batch=min_batch, cheap=cheap, family=family)


COMPILING_MESSAGE = ("pi-env: compiling numba kernels for this command (this can take a minute or two; "
                     "they are cached after first use; PI_ENV_COMPILE_NOTICE=0 silences this line)")
"""What :func:`announce_compilation` prints when a command needs kernels that are not in the cache.
Numba compiles each kernel the first time it is called, so a cold cache is not paid once: every
command that needs kernels no earlier command used compiles those (with an empty cache, on the
shared 2-core development machine: the first 4-player ``solve`` about 90 s, then the first 3-player
``solve`` 24 s, the first ``play`` with greedy agents 11 s); the notice says so each time."""
COMPILING_NO_CACHE_MESSAGE = ("pi-env: compiling numba kernels for this command (the kernel cache is off: "
                              "PI_ENV_NUMBA_CACHE=0, so every run compiles)")


COMPILING_LIBRARY_MESSAGE = ("pi-env: compiling numba kernels on first use (this can take a minute or two; "
                             "they are cached after first use; PI_ENV_COMPILE_NOTICE=0 silences this line)")
"""What a Python program that uses pi-env's kernels is told on stderr the first time one of them is
compiled in the process (the ``pi-env`` command says :data:`COMPILING_MESSAGE` instead)."""


class _CompileAnnouncer(_numba_event.Listener):
    """Prints one line the first time numba compiles a pi-env kernel in this process (numba fires
    ``numba:compile`` only when no cached machine code was found)."""

    def __init__(self, stream, message: str = COMPILING_MESSAGE) -> None:
        self.stream = stream
        self.message = message
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
            print(self.message if CACHE else COMPILING_NO_CACHE_MESSAGE, file=stream, flush=True)
        except (OSError, ValueError):  # a closed stream: the message is a courtesy
            pass

    def on_end(self, event) -> None:
        pass


_announcer = _CompileAnnouncer(None, COMPILING_LIBRARY_MESSAGE)
_numba_event.register("numba:compile", _announcer)  # any program using the kernels is told once


def announce_compilation(stream=None) -> None:
    """Say so (one line, on ``stream``, default ``sys.stderr`` at the time) the first time a pi-env
    kernel is compiled in this process: a kernel is compiled the first time any command calls it
    (seconds to a minute or more per command, :data:`COMPILING_MESSAGE`) and loaded from numba's
    on-disk cache (:func:`kernel_cache_dir`, or ``NUMBA_CACHE_DIR`` if set) afterwards, so the
    notice comes with every command that needs a kernel no earlier command compiled. The listener
    is installed when this module is imported (a Python program gets
    :data:`COMPILING_LIBRARY_MESSAGE`); the ``pi-env`` command calls this at its start to word the
    line for a command. Nothing is printed when every kernel the command uses comes from the
    cache, with ``NUMBA_DISABLE_JIT=1``, or with ``PI_ENV_COMPILE_NOTICE=0``."""
    _announcer.stream = stream
    _announcer.message = COMPILING_MESSAGE


WARMING_MESSAGE = ("{what}: warming up numba kernels before measuring (kernels not in the cache compile "
                   "now: a minute or two with a cold cache; cached after first use) ...")
"""The line :func:`warming_up` prints before a benchmark's warm-up (``{what}``: the benchmark)."""


class _CompileCounter(_numba_event.Listener):
    """Counts numba compilations (``numba:compile`` fires only when no cached machine code was found)."""

    def __init__(self) -> None:
        self.count = 0

    def on_start(self, event) -> None:
        self.count += 1

    def on_end(self, event) -> None:
        pass


@contextlib.contextmanager
def warming_up(what: str = "benchmark", stream=None) -> Iterator[None]:
    """Announce a benchmark's warm-up, the block that calls every kernel once before timing.

    Prints :data:`WARMING_MESSAGE` to ``stream`` (default ``sys.stderr``) before the block, and after
    it one line with the block's wall-clock seconds and how many kernels numba compiled in it (any
    kernel, pi-env's or not; ``none compiled: all from the cache`` when all came from the on-disk
    cache, ``numba JIT disabled: nothing compiled`` with ``NUMBA_DISABLE_JIT=1``):
    ``"selfplay_throughput: kernels ready in 93.4 s (41 compiled)"``. A
    first run is otherwise minutes of silence. Used by every script in ``benchmarks/`` that warms
    kernels; it changes nothing in what they measure (the block runs before any timing).

    Args:
        what: the name the lines start with (the benchmark's).
        stream: a text stream.
    """
    out = sys.stderr if stream is None else stream
    print(WARMING_MESSAGE.format(what=what), file=out, flush=True)
    counter = _CompileCounter()
    t0 = time.perf_counter()
    with _numba_event.install_listener("numba:compile", counter):
        yield
    seconds = time.perf_counter() - t0
    if getattr(numba.config, "DISABLE_JIT", 0):  # kernels ran as Python: nothing compiled, nothing from the cache
        done = "numba JIT disabled: nothing compiled"
    else:
        done = f"{counter.count} compiled" if counter.count else "none compiled: all from the cache"
    print(f"{what}: kernels ready in {seconds:.1f} s ({done})", file=out, flush=True)
