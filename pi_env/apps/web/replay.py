"""The replay viewer's server side: positions of a record, and the solver's view in a worker.

:class:`ReplayDoc` holds one opened record (engine-written or typed in, docs/record-format.md): for every
position — round ``r``, after event ``e`` (``-1``: the round's start) — :meth:`ReplayDoc.position`
gives the board as the record's public events left it (tiles, every player's markers and
investigators, cards in front, solves, scores, investigators left, tier), in the same shape as a
seat's view (:func:`pi_env.agents.human.seat_view`) so that one drawing code serves both. The
display is known for an engine-written record (re-run once by the engine when opened) and for a
typed-in record at a round's start when it gives ``display``. ``all_cases`` (the all-seeing view)
lists the cases the record holds; a player's point of view adds only the case it holds.

The solver's view (:func:`pi_env.solvers.solve_report.solve_report`: consistent cases, exact
probabilities, marginals, what is certain, the hint — only what that player knows, docs/rules.md §9)
is computed by :class:`SolverWorker` in a separate process, so a slow analysis (exact joint
inference for 5 players early in a round can take long) never blocks the server: a request
answers at once with the result or "computing", the page asks again, and a computation that runs
past ``timeout`` seconds is stopped and reported as such.

:class:`ReplayCache` keeps the opened records in memory within a bound (the least recently used
are dropped and read back from the database when asked for again); :func:`read_record_file`
reads a record named by a path on the server's machine, regular files only, within a byte limit.
Building a :class:`ReplayDoc`, its summary and its positions take time in proportion to the record
(seconds for tens of thousands of events): the app runs them in worker threads, never on the
event loop.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import stat
import threading
import time
from dataclasses import replace
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from pi_env.core.constants import IN_DISCARD, ON_DISPLAY, TYPE_OFFSETS
from pi_env.core.errors import PIError, RecordError
from pi_env.core.rules import last_tier as rules_last_tier
from pi_env.engine.ranking import tier_points
from pi_env.records.record_file import known_display, loads_record
from pi_env.records.scoring import score_record
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, GameRecord, seat_label
from pi_env.solvers.solve_report import investigators_left_at, next_turn_tier

from pi_env.agents.human import case_doc
from pi_env.apps.web.errors import NotFound, Unprocessable
from pi_env.apps.web.games import board_doc, event_doc
from pi_env.apps.web.store import Store

__all__ = ["ReplayDoc", "ReplayCache", "SolverWorker", "hint_job", "parse_record_text", "read_record_file"]

log = logging.getLogger("pi_env.web")


def parse_record_text(text: str) -> GameRecord:
    """A record from its JSON text, with every check ``pi-env replay`` makes of a file
    (:func:`pi_env.records.record_file.loads_record`: duplicate keys, integers' length, depth).

    Raises:
        Unprocessable: not JSON, or not a valid ``pi-record/1`` record (the loader's one-line reason).
    """
    try:
        return loads_record(text)
    except (RecordError, TypeError) as exc:
        raise Unprocessable(f"malformed record: {exc}") from None


def path_refusal(path: str, limit: int) -> Unprocessable:
    """The one answer to every failure of opening ``path`` as a record (:func:`read_record_file`):
    reading it, and also parsing and checking what was read, whose messages would quote the file
    (line and column of the first non-JSON character, keys, values)."""
    shown = path if len(path) <= 200 else path[:200] + "..."
    return Unprocessable(f"cannot open {shown!r} as a record: it must be a readable regular file (not a "
                         f"folder, device or pipe) holding a pi-record/1 record of at most {limit} bytes "
                         f"('pi-env replay PATH' says what is wrong); or upload it")


_KEPT_OPEN: list[int] = []
"""Descriptors of the server's own files opened through a path that was swapped for one between the
check and the open (:func:`read_record_file`): never closed, as closing would release the server's
locks on the file."""


def read_record_file(path: str, limit: int, protected: "frozenset[tuple[int, int]]" = frozenset()) -> str:
    """The text of a record file on this machine, named by ``path`` (``~`` expanded).

    Only a regular file is opened (a symbolic link to one too): a device (``/dev/zero``), a named
    pipe, a socket or a folder is refused before it is opened, and the file is checked again once
    open. At most ``limit + 1`` bytes are read, so an endless or growing file costs at most that.
    Blocking: call it from a worker thread.

    Every way of failing — no such file, no permission, not a regular file, more than ``limit``
    bytes, not UTF-8 — gives the same one-line answer, so that the path box tells nobody more about
    the machine's other files than that they are not records it can open (decision: the person at
    the server's own keyboard finds the reason with ``pi-env replay PATH``). The caller answers a
    text that is no record with the same :func:`path_refusal`.

    A file whose ``(st_dev, st_ino)`` is in ``protected`` (the server's own data files,
    :func:`pi_env.apps.web.files.file_ids`) is refused with that same answer before it is opened:
    closing it would release the server's SQLite locks on it. Were the path swapped for such a file
    between that check and the open, the descriptor is kept open rather than closed.

    Raises:
        Unprocessable: ``cannot open PATH as a record: ...`` (:func:`path_refusal`).
    """
    refusal = path_refusal(path, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        name = os.path.expanduser(path)
        st = os.stat(name)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in protected:
            raise refusal
        fd = os.open(name, flags)
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) in protected:  # swapped for one of the server's files meanwhile
                _KEPT_OPEN.append(fd)
                fd = -1
                raise refusal
            if not stat.S_ISREG(st.st_mode):  # replaced between the two looks
                raise refusal
            chunks, size = [], 0
            while size <= limit:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            if fd >= 0:
                os.close(fd)
        if size > limit:
            raise refusal
        return b"".join(chunks).decode("utf-8-sig")
    except (OSError, ValueError, UnicodeDecodeError):  # ValueError: a NUL in the path
        raise refusal from None


class ReplayDoc:
    """One opened record and its positions (module docstring).

    Raises:
        Unprocessable: a solo record (the viewer shows games of 2..5 players), or a record whose
            scores cannot be derived (an event after its round must have ended).
    """

    def __init__(self, replay_id: str, text: str):
        self.id = replay_id
        self.text = text
        self.record = record = parse_record_text(text)
        if record.rules.mode == "solo":
            raise Unprocessable("this is a solo record; the viewer shows games of 2..5 players "
                                "(replay it with: pi-env replay FILE)")
        try:
            self.scores = score_record(record)
        except RecordError as exc:
            raise Unprocessable(f"malformed record: {exc}") from None
        self.names = list(board_doc(record.board)["elements"])
        self.displays: dict[tuple[int, int], tuple[list[int], int, int]] = {}
        self.engine_checked = False
        self._summary: dict[str, Any] | None = None
        if record.seed is not None:
            self._engine_displays()

    def _engine_displays(self) -> None:
        """Re-run the engine once: the display, deck and discard after every event."""
        from pi_env.engine import init
        from pi_env.records.recorder import config_of, replay_with_engine

        record = self.record
        order = [(r, e) for r, rnd in enumerate(record.rounds) for e in range(len(rnd.events))]
        step = [0]

        def snap(state) -> tuple[list[int], int, int]:
            place = state.card_place[0]
            return (np.flatnonzero(place == ON_DISPLAY).tolist(), int(state.deck_size[0]),
                    int((place == IN_DISCARD).sum()))

        def on_step(state) -> None:
            r, e = order[step[0]]
            step[0] += 1
            if int(state.round[0]) == r and not state.done[0]:
                self.displays[(r, e)] = snap(state)
            elif (r, e - 1) in self.displays:  # the event ended the round: the display it left
                self.displays[(r, e)] = self.displays[(r, e - 1)]
            if step[0] < len(order) and order[step[0]][1] == 0 and int(state.round[0]) == order[step[0]][0]:
                self.displays[(order[step[0]][0], -1)] = snap(state)

        try:
            state0 = init(config_of(record), 1, seed=record.seed)
            self.displays[(0, -1)] = snap(state0)
            replay_with_engine(record, on_step)
            self.engine_checked = True
        except PIError as exc:
            raise Unprocessable(f"the record has an engine seed but does not replay: {exc}") from None

    # -- what the page gets -----------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Players, rounds with their events (public), whether the record holds every case
        (computed once)."""
        if self._summary is None:
            self._summary = self._make_summary()
        return self._summary

    def _make_summary(self) -> dict[str, Any]:
        record = self.record
        n = record.rules.players
        rounds = []
        for r, rnd in enumerate(record.rounds):
            rounds.append({"first_player": rnd.first_player,
                           "events": [event_doc(ev, record, r) for ev in rnd.events]})
        names = list(record.player_names) if record.player_names else [seat_label(i) for i in range(n)]
        complete = all(len(rnd.cases) == n for rnd in record.rounds)
        return {"id": self.id, "players": n, "names": names, "rules": _rules_text(record),
                "mode": record.rules.mode, "rounds": rounds, "engine": record.seed is not None,
                "all_seeing": complete, "board": board_doc(record.board),
                "known_cases": [sorted(rnd.cases) for rnd in record.rounds]}

    def check_position(self, round_: Any, event: Any) -> tuple[int, int]:
        """``(round_index, event)`` after checking a 1-based round and an event ``-1..n-1``.

        Raises:
            Unprocessable: out of range or not integers.
        """
        try:
            r, e = int(round_) - 1, int(event)
        except (TypeError, ValueError):
            raise Unprocessable(f"round and event must be integers, got {round_!r}, {event!r}") from None
        if not 0 <= r < len(self.record.rounds):
            raise Unprocessable(f"round must be 1..{len(self.record.rounds)}, got {round_}")
        n = len(self.record.rounds[r].events)
        if not -1 <= e < n:
            raise Unprocessable(f"event must be -1..{n - 1} in round {r + 1}, got {event}")
        return r, e

    def position(self, r: int, e: int, viewer: int | None, all_seeing: bool) -> dict[str, Any]:
        """The board after event ``e`` of round ``r`` (module docstring)."""
        record = self.record
        n = record.rules.players
        rnd = record.rounds[r]
        events = rnd.events[:e + 1]
        tiles = [{"suspect": None, "evidence": None} for _ in record.board.districts]
        for x in range(TYPE_OFFSETS[2]):
            tiles[rnd.tile_district[x]]["suspect" if x < TYPE_OFFSETS[1] else "evidence"] = x
        spots: list[list[int]] = [[] for _ in range(n)]
        traces: list[list[int]] = [[] for _ in range(n)]
        front: list[list[int]] = [[] for _ in range(n)]
        investigators, failed = [], [[] for _ in range(n)]
        solved_case: list[Any] = [None] * n
        attempted = [False] * n
        for ev in events:
            if ev.kind == CLUE:
                target = (front, traces, spots)[ev.answer][ev.player]
                if ev.element not in target:
                    target.append(ev.element)
            elif ev.kind == INVESTIGATE:
                investigators.append({"player": ev.player, "district": ev.district, "spots": ev.spots,
                                      "traces": ev.traces, "suppressed": list(ev.suppressed)})
            elif ev.kind == SOLVE:
                attempted[ev.player] = True
                if ev.correct:
                    solved_case[ev.player] = case_doc(ev.case, self.names)
                else:
                    failed[ev.player].append(case_doc(ev.case, self.names))
        # scores after the event: the one scorer, on the record cut there (declarations included)
        cut = replace(record, rounds=record.rounds[:r] + (replace(rnd, events=events),))
        scores = list(score_record(cut).scores)
        infos = self.scores.events[r]
        nxt = next((ev.player for ev in rnd.events[e + 1:] if ev.is_turn), None)
        tier = infos[e].tier if e >= 0 else 0
        if nxt is not None:
            tier = next_turn_tier(record, nxt, r, e)
        rotation = (infos[e].rotation if e >= 0 else 0) + 1
        display = self.displays.get((r, e))
        if display is None:  # a typed-in record: what it states (a whole display only)
            known = known_display(rnd, e)
            if known is not None and known[1]:
                display = (list(known[0]), None, None)
        last_tier = rules_last_tier(n)
        duel = record.rules.mode == "duel"
        held = None
        if viewer is not None:
            h = (viewer + 1) % n
            c = rnd.cases.get(h)
            held = {"player": h, "case": None if c is None else case_doc(c, self.names)}
        for lists in (spots, traces, front):
            for items in lists:
                items.sort()
        view = {
            "players": n, "you": viewer, "round": r + 1, "rotation": rotation, "tier": tier,
            "tier_points": [] if duel else [tier_points(k, r, n, record.rules.edition) for k in range(last_tier + 1)],
            "first_player": rnd.first_player, "to_move": nxt, "tiles": tiles, "spots": spots,
            "traces": traces, "front": front, "investigators": investigators,
            "display": None if display is None else display[0],
            "deck": None if display is None else display[1], "discard": None if display is None else display[2],
            "scores": scores,
            "investigators_left": [investigators_left_at(record, p, r, e) for p in range(n)],
            "attempted": attempted, "solved": [c is not None for c in solved_case],
            "solved_case": solved_case, "failed": failed, "held": held, "legal": None,
            "event": e, "last": None if e < 0 else event_doc(rnd.events[e], record, r),
        }
        if all_seeing:
            view["all_cases"] = {str(p): case_doc(c, self.names) for p, c in sorted(rnd.cases.items())}
        return view


class ReplayCache:
    """The opened records the server keeps in memory: at most ``max_docs`` of them holding at most
    ``max_bytes`` bytes of record text, the least recently used dropped first (the one in use is
    always kept). A dropped record is rebuilt from the database (:meth:`Store.replay`) when asked
    for again. Thread-safe; building a document runs in the calling thread, once per record at a
    time.

    Args:
        store: the database that holds every opened record's text.
        max_docs: documents kept.
        max_bytes: record text kept, bytes (a document takes about ten times its text in memory).
    """

    def __init__(self, store: Store, max_docs: int = 16, max_bytes: int = 4_000_000):
        self.store, self.max_docs, self.max_bytes = store, int(max_docs), int(max_bytes)
        self._docs: "OrderedDict[str, ReplayDoc]" = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, replay_id: object) -> bool:
        return replay_id in self._docs

    def put(self, doc: ReplayDoc) -> None:
        """Keep ``doc`` as the most recently used."""
        with self._lock:
            self._docs[doc.id] = doc
            self._docs.move_to_end(doc.id)
            self._shrink()

    def _shrink(self) -> None:
        total = sum(len(d.text) for d in self._docs.values())
        while len(self._docs) > 1 and (len(self._docs) > self.max_docs or total > self.max_bytes):
            _, old = self._docs.popitem(last=False)
            total -= len(old.text)

    def get(self, replay_id: str) -> ReplayDoc:
        """The document of an opened record (rebuilt from the database when it was dropped).

        Raises:
            NotFound: no record was opened under this id, or it was dropped from the database too.
        """
        with self._lock:
            doc = self._docs.get(replay_id)
            if doc is not None:
                self._docs.move_to_end(replay_id)
                return doc
            building = self._building.setdefault(replay_id, threading.Lock())
        with building:  # one rebuild per record; others wait for it
            with self._lock:
                doc = self._docs.get(replay_id)
            if doc is None:
                text = self.store.replay(replay_id)
                if text is None:
                    raise NotFound(f"no replay {replay_id!r} on this server (an opened record is kept until "
                                   f"many newer ones were opened); open the record again")
                doc = ReplayDoc(replay_id, text)
                self.put(doc)
        with self._lock:
            self._building.pop(replay_id, None)
        return doc


def _rules_text(record: GameRecord) -> str:
    rules = record.rules
    parts = ["duel" if rules.mode == "duel" else f"{rules.edition} edition", f"{rules.players} players",
             *rules.variants]
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# the solver's view, in a worker process

_WORKER_RECORDS: "OrderedDict[str, GameRecord]" = OrderedDict()


def _solve_job(replay_id: str, text: str, player: int, round_index: int, after_event: int) -> dict[str, Any]:
    """Run in the worker process: :func:`solve_report` of a record (parsed once per replay)."""
    from pi_env.solvers.solve_report import solve_report

    record = _WORKER_RECORDS.get(replay_id)
    if record is None:
        if text is None:  # the parent thought this worker had it: it was dropped from the cache
            raise _Resend()
        record = loads_record(text)
        _WORKER_RECORDS[replay_id] = record
        while len(_WORKER_RECORDS) > 8:
            _WORKER_RECORDS.popitem(last=False)
    t0 = time.perf_counter()
    doc = solve_report(record, player, round_index, after_event, top=20)
    doc["seconds"] = round(time.perf_counter() - t0, 4)
    return doc


def hint_job(record, seat: int) -> dict[str, Any]:
    """Run in the worker process: :func:`solve_report` of a live game's record for one seat now (a
    game hint, :meth:`pi_env.apps.web.games.LiveGame.hint_position`)."""
    from pi_env.solvers.solve_report import solve_report

    return solve_report(record, seat, top=5, strict=False)


class _Abandoned(Exception):
    """A long computation nobody waits for any more (newer views were asked for)."""


class _WorkerDied(Exception):
    """The worker process is gone (killed from outside): its jobs will never be answered."""


class _Resend(Exception):
    """The worker does not hold the record any more: send its text again."""


def _warm() -> bool:
    import pi_env.solvers.solve_report  # noqa: F401 - compiles/loads the solver in the worker

    return True


def _ignore_sigint() -> None:
    """The worker's initializer: Ctrl-C at the terminal reaches the whole process group, but only
    the server acts on it (it stops the worker); the worker prints nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


STOP_WAIT = 2.0
"""Seconds :func:`_stop_pool` lets ``Pool.terminate`` run before it kills the worker outright."""


def _stop_pool(pool, wait: float = STOP_WAIT) -> None:
    """Stop a worker pool; never hangs.

    ``multiprocessing.Pool.terminate`` first takes the lock of the task queue, which an idle worker
    holds while it waits for work. A worker killed from outside while idle -- SIGTERM sent to the
    server's whole process group (``timeout``, ``kill -TERM -PGID``, systemd's default stop), the
    out-of-memory killer -- never releases it, and ``terminate`` waits forever (``pi-env serve``
    hung at "Waiting for application shutdown"). So ``terminate`` runs in a daemon thread for at
    most ``wait`` seconds; after that every worker process is killed (SIGKILL) and the thread is
    left behind (it holds nothing the server needs).
    """
    procs = list(getattr(pool, "_pool", []))  # the worker processes (CPython's Pool attribute)
    stopper = threading.Thread(target=pool.terminate, name="pi-env-solver-stop", daemon=True)
    stopper.start()
    stopper.join(wait)
    if stopper.is_alive():
        log.warning("the solver worker did not stop within %.0f s (killed from outside?): killed", wait)
        for proc in procs + list(getattr(pool, "_pool", [])):
            try:
                proc.kill()
            except Exception:  # pragma: no cover - already gone
                pass


class SolverWorker:
    """Solver computations in one worker process, never in the server's threads (module docstring).

    :meth:`request` answers at once: ``("done", doc)``, ``("computing", None)``, ``("timeout", msg)``
    or ``("error", msg)``. Only the newest :data:`MAX_PENDING` requests wait, newest first; older
    waiting ones are dropped (a person stepping quickly through a game only needs where it
    stopped), and a computation that has run :data:`ABANDON_AFTER` seconds while newer ones wait is
    dropped too. A computation longer than ``timeout`` seconds stops the worker process (a new one
    is started) and is reported as timed out.

    Args:
        timeout: seconds one computation may take.
        cache_size: results kept.
        job: the function the worker runs on a request's ``args``; ``None``: the replay viewer's
            :func:`_solve_job` (``args``: replay id, record text, player, round, event; the text is
            sent once per worker process).
        stopped: the message of a computation stopped after ``timeout`` (``{seconds}``: the limit).
    """

    MAX_PENDING = 4
    ABANDON_AFTER = 3.0
    """Seconds after which a running view is dropped when newer views wait (the person moved on);
    the worker process is restarted, and the view is computed again if asked for again."""

    def __init__(self, timeout: float = 60.0, cache_size: int = 2048, job: "Callable[..., Any] | None" = None,
                 stopped: str = ("the solver took more than {seconds:g} s here and was stopped (exact joint "
                                 "inference early in a 5-player round can be slow)")):
        self.timeout = float(timeout)
        self.cache_size = cache_size
        self._job = job
        self._stopped = stopped
        self._results: "OrderedDict[tuple, tuple[str, Any]]" = OrderedDict()
        self._pending: "OrderedDict[tuple, tuple]" = OrderedDict()
        self._running: tuple | None = None
        self._cv = threading.Condition()
        self._pool = None
        self._sent: set[str] = set()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="pi-env-solver", daemon=True)
        self._thread.start()

    def _new_pool(self, warm: bool = True):
        """A worker process with the solver loaded (its start-up is not counted in any timeout).

        It ignores Ctrl-C (SIGINT) from its initializer on; started from the main thread it
        ignores it from its first instruction (the disposition is inherited by the new program).
        """
        ctx = multiprocessing.get_context("spawn")
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            pool = ctx.Pool(1, initializer=_ignore_sigint)
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        pool.pi_env_workers = [proc.pid for proc in getattr(pool, "_pool", [])]  # see _get
        if warm:
            pool.apply(_warm)
        else:
            pool.apply_async(_warm)  # the first job waits for it
        return pool

    def prestart(self) -> None:
        """Start the worker process now, from this thread (``pi-env serve`` calls it in the main
        thread, so the worker ignores Ctrl-C from its very start); it loads the solver in the
        background. Later restarts (after a stopped view) happen in the worker thread."""
        with self._cv:
            if self._pool is not None or self._closed:
                return
            self._pool = self._new_pool(warm=False)
            self._sent = set()

    def request(self, key: tuple, args: tuple) -> tuple[str, Any]:
        """The state of computation ``key`` (``args`` for :func:`_solve_job`), queuing it if new."""
        with self._cv:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
            if key != self._running and key not in self._pending:
                self._pending[key] = args
                while len(self._pending) > self.MAX_PENDING:
                    self._pending.popitem(last=False)
                self._cv.notify()
            return ("computing", None)

    def wait(self, key: tuple, args: tuple, timeout: float) -> tuple[str, Any]:
        """:meth:`request`, then wait up to ``timeout`` seconds for the answer (benchmarks, tests)."""
        end = time.monotonic() + timeout
        status = self.request(key, args)
        while status[0] == "computing" and time.monotonic() < end:
            with self._cv:
                self._cv.wait(0.005)
            status = self.request(key, args)
        return status

    def _store(self, key: tuple, value: tuple[str, Any]) -> None:
        with self._cv:
            self._results[key] = value
            while len(self._results) > self.cache_size:
                self._results.popitem(last=False)
            self._running = None
            self._cv.notify_all()

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                key, args = self._pending.popitem(last=True)  # the newest first
                self._running = key
            if self._pool is None:
                pool = self._new_pool()
                with self._cv:
                    if self._closed:  # closed while the worker started
                        _stop_pool(pool)
                        return
                    self._pool, self._sent = pool, set()
            try:
                if self._job is not None:
                    doc = self._get(self._pool.apply_async(self._job, args))
                else:
                    rid = args[0]
                    lean = (rid, None) + tuple(args[2:]) if rid in self._sent else args  # the text once per worker
                    try:
                        doc = self._get(self._pool.apply_async(_solve_job, lean))
                    except _Resend:
                        doc = self._get(self._pool.apply_async(_solve_job, args))
                    self._sent.add(rid)
                self._store(key, ("done", doc))
            except _Abandoned:
                log.info("solver view %s abandoned: newer views were asked for", key)
                _stop_pool(self._pool)
                self._pool = None
                with self._cv:  # not stored: asked again, it is computed again
                    self._running = None
            except _WorkerDied:
                log.warning("solver view %s: the worker process died (killed from outside?)", key)
                _stop_pool(self._pool)
                self._pool = None
                self._store(key, ("error", "the solver's worker process died (killed from outside or out of "
                                           "memory); a new one answers the next view"))
            except multiprocessing.TimeoutError:
                log.warning("solver view %s took more than %.0f s: stopped", key, self.timeout)
                _stop_pool(self._pool)
                self._pool = None
                self._store(key, ("timeout", self._stopped.format(seconds=self.timeout)))
            except Exception as exc:  # a report the solver refuses (e.g. a bad position)
                self._store(key, ("error", f"{type(exc).__name__}: {exc}"))

    def _get(self, job):
        """The job's result; raises :class:`_Abandoned` when it has run :data:`ABANDON_AFTER`
        seconds while newer views wait, ``multiprocessing.TimeoutError`` after ``timeout``,
        :class:`_WorkerDied` at once when the worker process is gone (the pool starts another one,
        which never gets the job when the dead one held the task queue's lock)."""
        start = time.monotonic()
        workers = getattr(self._pool, "pi_env_workers", None)
        while True:
            if workers is not None and [proc.pid for proc in getattr(self._pool, "_pool", [])
                                        if proc.exitcode is None] != workers:
                raise _WorkerDied
            left = self.timeout - (time.monotonic() - start)
            if left <= 0:
                raise multiprocessing.TimeoutError
            try:
                return job.get(min(0.1, left))
            except multiprocessing.TimeoutError:
                with self._cv:
                    waiting = bool(self._pending)
                if waiting and time.monotonic() - start > self.ABANDON_AFTER:
                    raise _Abandoned from None

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        if self._pool is not None:
            _stop_pool(self._pool)
