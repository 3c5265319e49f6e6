"""Speed of the solver against a plain numpy brute force: own-information updates, joint sets, hints.

    python benchmarks/solver_speed.py [--positions N] [--seed S] [--baseline-positions M]
                                      [--baseline-cap SECONDS] [--long K] [--long-only]

Positions: random mid-game positions of 4- and 5-player games played by the engine (each seat a
``deducer`` with probability 3/4, else ``random``), recorded with :class:`pi_env.records.recorder.Recorder`.
From every round that lasts long enough, up to two positions are taken: a random player p and a
random prefix ending at event 8..30 (the middle of a round). ``--positions`` is the number of
positions per player count. Medians and 90th percentiles are over positions.

Measured, numba compile time excluded (every kernel is called once before timing):

1. own-information update per event: :meth:`pi_env.solvers.CaseFilter.update` (and the bare numba kernel
   it calls) applying the position's last event, averaged over 200 repeated calls (the update is
   idempotent). Baseline: recompute p's whole 1680-case mask from scratch with plain numpy
   (:func:`pi_env.solvers.case_mask_reference` over every event of the prefix), as one would without an
   incremental filter.
2. the full joint consistent set with exact probabilities: :func:`pi_env.solvers.analyze_knowledge` on the
   position (median of 3 calls per position); also the front door :func:`pi_env.solvers.analyze` on the
   record, which builds the :class:`~pi_env.solvers.Knowledge` from the record first. Baseline: a
   straightforward numpy brute force that enumerates the joint assignments of the unknown players
   (:func:`brute_force_joint`). It is slow, so it runs on ``--baseline-positions`` evenly spaced
   positions of each player count only, each capped at ``--baseline-cap`` seconds: p's cases are processed in
   random order and, when the cap is hit, the full time is extrapolated from the cases done (marked
   ``est.``). Every count it completes is checked against the solver's exact count.
3. the best-action hint :func:`pi_env.solvers.hint` (if the installed ``solvers`` has it; else ``n/a``),
   default arguments (candidate queries derived from the record, ``expected_remaining_actions``
   included), median of 3 calls per position. No baseline.

4. long first-edition records (the solver's slowest corner; ``--long`` per kind, ``--long-only`` for these
   rows alone): typed-in rounds of 4 or 5 players, the held case given or not, 236-300 events —
   one investigation each, then failed solves in turn (:func:`long_first_edition_record`) — asked
   for the player to move. ``pi-env solve``'s report in this process
   (:func:`pi_env.solvers.solve_report.solve_report`, median of 3 calls; baseline: the joint brute
   force on the 4-player held-case records) and the whole ``pi-env solve`` command in a new
   interpreter (median of 3 runs; its wall time in the note), both in CPU time, which suffers less
   from other work on the machine than wall time. Target: 1 s each.

5. contradictory records (``--conflict K`` per kind, ``--conflict-only`` for these rows alone): the
   smallest conflicting set of events, :func:`pi_env.solvers.minimal_conflict`, asked for every player,
   CPU time (median of 3 calls). Kinds: a long first-edition record (:func:`long_first_edition_record`,
   4 and 5 players) with one clue answer flipped late in the round (:func:`flipped_clue_record`), and a
   record in which one player names all 1,680 cases and is told 'wrong' every time, its true case
   included (:func:`all_cases_wrong_record`: the conflict is every case that player could hold,
   1,287-1,680 events). Baseline: pysat's OptUx exact smallest-conflict search alone
   (:func:`optux_conflict`, what ``minimal_conflict`` ran on every contradiction before the
   unique-conflict shortcut); the two must report the same events (mismatches are counted).

Targets: own-information update <= 5 us per event; joint set with exact probabilities
<= 20 ms per query with 5 players; hint <= 50 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pi_env.core._config import warming_up
from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, case_index
from pi_env.engine import GameConfig
from pi_env.records.record_file import investigate_answer, load_record, record_to_dict
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, Event, GameRecord, RoundRecord, Rules
from pi_env import solvers
from pi_env.solvers import CaseFilter, Knowledge, analyze, analyze_knowledge, case_mask_reference, knowledge_of
from pi_env.solvers.case_sets import ELEMENT_BITS, _layout_bits_of, apply_event_bits
from pi_env.solvers.solve_report import solve_report
from pi_env.solvers.tables import CASE_ELEMENT_MASKS
from pi_env.core.text import format_table

try:  # optional progress bars
    from tqdm import tqdm as _tqdm
except ImportError:  # pragma: no cover
    _tqdm = None

FIRST_EVENT, LAST_EVENT = 8, 30  # prefixes end at one of these events (middle of a round)
UPDATE_REPS = 200
CALL_REPS = 3


def progress(iterable, desc: str, total: int | None = None):
    if _tqdm is None:
        return iterable
    return _tqdm(iterable, desc=desc, total=total, leave=False, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# positions


@dataclass
class Position:
    record: GameRecord
    round_index: int
    player: int
    after_event: int
    knowledge: Knowledge

    @property
    def n_players(self) -> int:
        return self.knowledge.n_players


def play_record(n_players: int, seed: int, rng: np.random.Generator) -> GameRecord:
    """One engine self-play game (deducer / random seats), recorded."""
    from pi_env.agents.runner import play_game

    config = GameConfig(num_players=n_players)
    seats = ["random" if rng.random() < 0.25 else "deducer" for _ in range(n_players)]
    _, rec = play_game(config, seats, seed)
    # write and re-read: the loader derives each investigation's suppressed types (docs/rules.md §4.2)
    return load_record(record_to_dict(rec.record()))


def make_positions(n_players: int, count: int, rng: np.random.Generator) -> list[Position]:
    out: list[Position] = []
    bar = _tqdm(total=count, desc=f"self-play {n_players}p", leave=False, file=sys.stderr) if _tqdm else None
    while len(out) < count:
        record = play_record(n_players, int(rng.integers(2**31)), rng)
        for r, rnd in enumerate(record.rounds):
            if len(rnd.events) <= FIRST_EVENT:
                continue
            players = rng.permutation(n_players)[:2]
            for p in players:
                if len(out) == count:
                    break
                e = int(rng.integers(FIRST_EVENT, min(LAST_EVENT, len(rnd.events) - 1) + 1))
                out.append(Position(record, r, int(p), e, knowledge_of(record, int(p), r, e)))
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    return out


def long_first_edition_record(seed: int, players: int, events: int, held_known: bool,
                              investigations: int = 1, allowed_only: bool = True) -> GameRecord:
    """A typed-in first-edition round of many failed solves (like the hand-made records
    on which ``pi-env solve`` once took 3-15 s): a random layout and deal; each player first
    investigates ``investigations`` random districts (truthful answers, docs/rules.md §4.2), then the
    players in turn name cases that are not theirs (docs/rules.md §4.3; ``allowed_only``: only cases
    their own answers allow, as a player at the table would; else any case) until the round has
    ``events`` events. The round gives the case the next player after the asking player holds when
    ``held_known``; the asking player is the one to move after the last event
    (:func:`long_record_player`).

    Returns:
        The record, written and read back as ``pi-env solve`` reads a file.
    """
    rng = np.random.default_rng(seed)
    adjacency = DAYTIME.adjacency
    td = np.empty(36, dtype=np.int64)
    td[:12] = rng.permutation(14)[:12]
    td[12:22] = rng.permutation(14)[:10]
    td[22:] = np.arange(14)
    s, e, loc = rng.permutation(12)[:players], rng.permutation(10)[:players], rng.permutation(14)[:players]
    cases = [case_index(int(s[q]), int(e[q]), int(loc[q])) for q in range(players)]
    allowed = [np.ones(NUM_CASES, dtype=bool) for _ in range(players)]
    rows: list[Event] = []
    none = (False, False, False)
    for q in range(players):
        for d in rng.permutation(14)[:investigations]:
            sp, tr = investigate_answer(td, cases[q], int(d), none, adjacency)
            rows.append(Event(index=len(rows), player=q, kind=INVESTIGATE, district=int(d), spots=sp,
                              traces=tr, suppressed=none))
            if allowed_only:
                allowed[q] &= np.array([investigate_answer(td, c, int(d), none, adjacency) == (sp, tr)
                                        for c in range(NUM_CASES)])
    for q in range(players):
        allowed[q][cases[q]] = False
    while len(rows) < events:
        q = len(rows) % players
        pool = np.flatnonzero(allowed[q]) if allowed_only else np.setdiff1d(np.arange(NUM_CASES), [cases[q]])
        rows.append(Event(index=len(rows), player=q, kind=SOLVE, case=int(rng.choice(pool)), correct=False))
    p = long_record_player(players, len(rows))
    held = (p + 1) % players
    rnd = RoundRecord(first_player=0, tile_district=tuple(int(x) for x in td),
                      cases={held: cases[held]} if held_known else {}, events=tuple(rows))
    record = GameRecord(rules=Rules(edition="first", players=players, investigators=(5,) * players),
                        board=DAYTIME, rounds=(rnd,))
    return load_record(json.loads(json.dumps(record_to_dict(record))))


def long_record_player(players: int, events: int) -> int:
    """The player to move after ``events`` turns of a round that player 0 started, all still in play."""
    return events % players


LONG_KINDS = ((4, False), (4, True), (5, False), (5, True))  # (players, held case given)


def long_records(count: int, seed: int) -> list[tuple[str, GameRecord, int]]:
    """``count`` records per kind of :data:`LONG_KINDS`: 236-240 events with 4 players, 295-300 with 5
    (the last rotations of the 60 a first-edition round can have), half naming only allowed cases.

    Returns:
        ``(label, record, asking player)`` triples."""
    out = []
    rng = np.random.default_rng(seed)
    for players, held in LONG_KINDS:
        for i in range(count):
            events = 60 * players - int(rng.integers(0, players + 1))
            rec = long_first_edition_record(int(rng.integers(2**31)), players, events, held,
                                            allowed_only=i % 2 == 0)
            label = f"{players}p {'held' if held else 'no case'} {events} events"
            out.append((label, rec, long_record_player(players, events)))
    return out


CLI = "import sys; from pi_env.apps.cli import main; sys.exit(main(sys.argv[1:]))"


def time_command(path: str, player: int) -> tuple[float, float]:
    """``(wall, CPU)`` seconds of the whole ``pi-env solve`` command (a new interpreter: imports,
    numba kernels loaded from the cache, the record read and checked, the report printed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", CLI, "solve", path, "--player", str(player)], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, PI_ENV_COMPILE_NOTICE="0"))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# ---------------------------------------------------------------------------------------------
# the brute-force baseline of the joint set


def brute_force_joint(knowledge: Knowledge, cap_seconds: float, rng: np.random.Generator
                      ) -> tuple[float, bool, dict[int, int]]:
    """Straightforward joint enumeration with numpy.

    Per-player case lists from the plain numpy reference (:func:`case_mask_reference`); then for
    each case c of p: extend the partial assignments one unknown player at a time (all pairs
    partial x candidate, keep the disjoint ones), and count the last player's candidates disjoint
    from each partial assignment. Unknown players are taken smallest list first.

    Returns:
        ``(seconds, finished, counts)``: if the cap is hit, ``seconds`` is extrapolated from the
        cases done (p's cases are processed in random order) and ``finished`` is False; ``counts``
        maps each processed case to its number of joint assignments.
    """
    t0 = time.perf_counter()
    n, p = knowledge.n_players, knowledge.player
    known = {p} if knowledge.held_case < 0 else {p, knowledge.held_player}
    own = np.flatnonzero(case_mask_reference(knowledge))
    lists = sorted((CASE_ELEMENT_MASKS[case_mask_reference(knowledge, q)]
                    for q in range(n) if q not in known), key=len)
    order = rng.permutation(own)
    counts: dict[int, int] = {}
    done = 0
    for c in order:
        partial = CASE_ELEMENT_MASKS[c:c + 1]
        for masks in lists[:-1]:
            ok = (partial[:, None] & masks[None, :]) == 0
            i, j = np.nonzero(ok)
            partial = partial[i] | masks[j]
        last = lists[-1] if lists else None
        if last is None:
            total = int(partial.size)
        else:
            total = 0
            step = max(1, 2_000_000 // max(last.size, 1))
            for s in range(0, partial.size, step):
                total += int(((partial[s:s + step, None] & last[None, :]) == 0).sum())
        counts[int(c)] = total
        done += 1
        elapsed = time.perf_counter() - t0
        if elapsed > cap_seconds and done < order.size:
            return elapsed * order.size / done, False, counts
    return time.perf_counter() - t0, True, counts


# ---------------------------------------------------------------------------------------------
# measurements


def _median_time(fn, reps: int = CALL_REPS, clock=time.perf_counter) -> float:
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    return float(np.median(times))


def time_own_update(pos: Position) -> tuple[float, float, float]:
    """(CaseFilter.update, numba kernel, numpy from-scratch baseline) seconds for the last event."""
    k = pos.knowledge
    row = k.events[-1]
    f = CaseFilter(k.prefix(len(k.events) - 1))
    t = time.perf_counter()
    for _ in range(UPDATE_REPS):
        f.update(row)
    wrapper = (time.perf_counter() - t) / UPDATE_REPS
    lb = _layout_bits_of(k)
    bits = f.bits.copy()
    t = time.perf_counter()
    for _ in range(UPDATE_REPS):
        apply_event_bits(bits, k.player, row, lb.clue, lb.investigation, ELEMENT_BITS)
    kernel = (time.perf_counter() - t) / UPDATE_REPS
    baseline = _median_time(lambda: case_mask_reference(k))
    return wrapper, kernel, baseline


def find_hint():
    """``pi_env.solvers.hint`` if this version of the solver has it (else ``None``)."""
    fn = getattr(solvers, "hint", None)
    if fn is None:
        try:
            from pi_env.solvers.hints import hint as fn  # type: ignore[no-redef]
        except ImportError:
            return None
    return fn


def warm_up(positions: list[Position], hint_fn) -> None:
    for pos in positions[:3]:
        time_own_update(pos)
        analyze_knowledge(pos.knowledge)
        analyze(pos.record, pos.player, pos.round_index, pos.after_event)
        if hint_fn is not None:
            hint_fn(pos.knowledge, round_index=pos.round_index)
    brute_force_joint(positions[0].knowledge, 0.05, np.random.default_rng(0))


# ---------------------------------------------------------------------------------------------
# report


@dataclass
class Row:
    name: str
    ours: list[float]
    unit: str
    target: float | None = None
    baseline: list[float] | None = None
    ours_on_baseline: list[float] | None = None
    note: str = ""


_SCALE = {"us": 1e6, "ms": 1e3, "s": 1.0}


def _fmt(x: float | None, unit: str) -> str:
    if x is None:
        return "n/a"
    v = x * _SCALE[unit]
    return f"{v:.3g} {unit}" if v < 1000 else f"{v:,.0f} {unit}"


def print_table(rows: list[Row]) -> None:
    header = ("measure", "n", "median", "p90", "target", "met", "baseline n", "baseline median",
              "baseline p90", "baseline/ours")
    lines = []
    for r in rows:
        if not r.ours:
            lines.append((r.name, "0", "n/a", "n/a", "<= " + _fmt(r.target, r.unit) if r.target else "-",
                          "n/a", "-", "-", "-", "-"))
            continue
        a = np.array(r.ours)
        med, p90 = float(np.median(a)), float(np.percentile(a, 90))
        met = "-" if r.target is None else ("yes" if med <= r.target else "NO")
        if r.baseline:
            b = np.array(r.baseline)
            ref = np.median(r.ours_on_baseline if r.ours_on_baseline else a)
            bmed, b90 = float(np.median(b)), float(np.percentile(b, 90))
            base = (str(b.size), _fmt(bmed, "s" if bmed > 1 else r.unit), _fmt(b90, "s" if b90 > 1 else r.unit),
                    f"{bmed / ref:,.0f}x" if bmed / ref >= 10 else f"{bmed / ref:.1f}x")
        else:
            base = ("-", "-", "-", "-")
        lines.append((r.name, str(a.size), _fmt(med, r.unit), _fmt(p90, r.unit),
                      "<= " + _fmt(r.target, r.unit) if r.target else "-", met) + base)
    print("\n".join(format_table(lines, header, style="markdown")))
    for r in rows:
        if r.note:
            print(f"* {r.name}: {r.note}")
    for r in rows:
        if r.target is not None and r.ours:
            a = np.array(r.ours)
            print(f"* {r.name}: max {_fmt(float(a.max()), r.unit)}, {int((a > r.target).sum())} of {a.size} "
                  f"positions over the target")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=300, help="positions per player count (4 and 5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline-positions", type=int, default=100,
                    help="positions per player count for the joint brute force")
    ap.add_argument("--baseline-cap", type=float, default=3.0,
                    help="seconds per position for the joint brute force (then extrapolated)")
    ap.add_argument("--long", type=int, default=3,
                    help="long first-edition records per kind (4/5 players, held case given or not)")
    ap.add_argument("--long-only", action="store_true", help="only the long-record rows")
    ap.add_argument("--conflict", type=int, default=1,
                    help="contradictory records per kind (late flipped clue, all cases named wrong; 4 and 5 players)")
    ap.add_argument("--conflict-only", action="store_true", help="only the contradictory-record rows")
    args = ap.parse_args(argv)
    if args.conflict_only:
        conflict_main(args)
        return
    if args.long_only:
        long_main(args)
        return
    rng = np.random.default_rng(args.seed)
    hint_fn = find_hint()

    t_gen = time.perf_counter()
    positions = {n: make_positions(n, args.positions, rng) for n in (4, 5)}
    t_gen = time.perf_counter() - t_gen
    with warming_up("solver_speed"):
        warm_up(positions[4] + positions[5], hint_fn)

    own_w, own_k, own_b = [], [], []
    joint: dict[int, list[float]] = {4: [], 5: []}
    front: dict[int, list[float]] = {4: [], 5: []}
    hints: dict[int, list[float]] = {4: [], 5: []}
    for n in (4, 5):
        for pos in progress(positions[n], f"solver {n}p"):
            w, k, b = time_own_update(pos)
            own_w.append(w)
            own_k.append(k)
            own_b.append(b)
            joint[n].append(_median_time(lambda: analyze_knowledge(pos.knowledge)))
            front[n].append(_median_time(lambda: analyze(pos.record, pos.player, pos.round_index,
                                                         pos.after_event)))
            if hint_fn is not None:
                hints[n].append(_median_time(lambda: hint_fn(pos.knowledge, round_index=pos.round_index)))

    brute: dict[int, list[float]] = {4: [], 5: []}
    brute_est = {4: 0, 5: 0}
    baseline_index: dict[int, list[int]] = {}
    brute_checked = mismatches = 0
    brng = np.random.default_rng(args.seed + 1)
    for n in (4, 5):
        step = max(1, len(positions[n]) // max(args.baseline_positions, 1))
        baseline_index[n] = list(range(0, len(positions[n]), step))[:args.baseline_positions]
        for pos in progress([positions[n][i] for i in baseline_index[n]], f"brute force {n}p"):
            secs, finished, counts = brute_force_joint(pos.knowledge, args.baseline_cap, brng)
            brute[n].append(secs)
            brute_est[n] += not finished
            a = analyze_knowledge(pos.knowledge)
            exact = dict(zip(a.cases.tolist(), a.joint_counts.tolist()))
            for c, v in counts.items():
                brute_checked += 1
                mismatches += v != exact.get(c, 0)

    nb = {n: len(brute[n]) for n in (4, 5)}
    rows = [
        Row("own-info update / event: CaseFilter.update", own_w, "us", 5e-6, own_b, None,
            "baseline = numpy case_mask_reference from scratch over the prefix's events"),
        Row("own-info update / event: numba kernel", own_k, "us", 5e-6, own_b),
        Row("joint set + exact P, 4p: analyze_knowledge", joint[4], "ms", None, brute[4],
            [joint[4][i] for i in baseline_index[4]],
            f"baseline = numpy brute-force joint enumeration on {nb[4]} evenly spaced positions, "
            f"cap {args.baseline_cap:g} s each, {brute_est[4]} of them extrapolated; ratio vs ours on the "
            "same positions"),
        Row("joint set + exact P, 5p: analyze_knowledge", joint[5], "ms", 20e-3, brute[5],
            [joint[5][i] for i in baseline_index[5]],
            f"baseline on {nb[5]} evenly spaced positions, cap {args.baseline_cap:g} s each, "
            f"{brute_est[5]} of them extrapolated"),
        Row("joint set + exact P, 4p: analyze(record)", front[4], "ms"),
        Row("joint set + exact P, 5p: analyze(record)", front[5], "ms", 20e-3, None, None,
            "front door: builds the Knowledge from the GameRecord first"),
        Row("best-action hint, 4p: hint", hints[4], "ms", 50e-3),
        Row("best-action hint, 5p: hint", hints[5], "ms", 50e-3, None, None,
            "" if hint_fn is not None else "solvers has no hint() in this version"),
    ]
    print(f"solver speed: {args.positions} positions per player count (4p, 5p), seed {args.seed}, "
          f"prefixes ending at events {FIRST_EVENT}..{LAST_EVENT}; self-play took {t_gen:.0f} s")
    print_table(rows)
    print(f"brute force vs solver: {brute_checked} per-case joint counts compared, {mismatches} mismatches")
    if args.long:
        print()
        long_main(args)
    if args.conflict:
        print()
        conflict_main(args)


def long_main(args: argparse.Namespace) -> None:
    """The long-record rows: ``pi-env solve``'s report (:func:`pi_env.solvers.solve_report.solve_report`:
    the record's check, the exact joint analysis, the hint with its gains and greedy expected actions)
    in this process, median of 3 calls, and the whole command in a new interpreter, both in CPU time
    (``time.process_time``; the child's user + system time); baseline: the
    numpy brute-force joint enumeration (:func:`brute_force_joint`) on the 4-player records with the
    held case given (three unknown players; with four or five the brute force runs for hours)."""
    load = os.getloadavg()
    records = long_records(args.long, args.seed)
    with warming_up("solver_speed"):  # every kernel loaded or compiled before timing
        for _, rec, p in records[:2]:
            solve_report(rec, p)
    brng = np.random.default_rng(args.seed + 1)
    report, command, wall, brute, ours_on_brute = [], [], [], [], []
    worst = ("", 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, rec, p) in enumerate(progress(records, "long records")):
            t = _median_time(lambda: solve_report(rec, p), clock=time.process_time)
            report.append(t)
            path = str(Path(tmp) / f"long{i}.json")
            Path(path).write_text(json.dumps(record_to_dict(rec)))
            runs = [time_command(path, p) for _ in range(CALL_REPS)]
            cpu_time = float(np.median([c for _, c in runs]))
            command.append(cpu_time)
            wall.append(float(np.median([w for w, _ in runs])))
            worst = max(worst, (label, cpu_time), key=lambda x: x[1])
            if rec.rules.players == 4 and rec.rounds[0].cases:
                k = knowledge_of(rec, p, 0, len(rec.rounds[0].events) - 1)
                start = time.process_time()
                secs, finished, _ = brute_force_joint(k, args.baseline_cap, brng)
                if finished:  # CPU time as ours (an extrapolated figure stays as estimated)
                    secs = time.process_time() - start
                brute.append(secs)
                ours_on_brute.append(t)
    kinds = ", ".join(f"{n}p {'held case' if h else 'no case'}" for n, h in LONG_KINDS)
    rows = [
        Row("long 1st-edition records: solve_report", report, "ms", 1.0, brute, ours_on_brute,
            f"{len(records)} records ({kinds}: {args.long} each), 236-300 events, nearly all failed solves; the record loaded once; baseline = "
            f"numpy brute-force joint enumeration alone on the {len(brute)} 4-player held-case records, cap "
            f"{args.baseline_cap:g} s each (then extrapolated)"),
        Row("long 1st-edition records: pi-env solve command", command, "ms", 1.0, None, None,
            f"CPU time of the whole command in a new interpreter (user + system), median of {CALL_REPS} runs; "
            f"wall median {_fmt(float(np.median(wall)), 'ms')}, max {_fmt(float(np.max(wall)), 'ms')} (equal to "
            f"the CPU time on a quiet machine, longer on a busy one); worst CPU: {worst[0]}"),
    ]
    print(f"long first-edition records (seed {args.seed}); load average {load[0]:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print_table(rows)


def _true_cases(seed: int, players: int) -> list[int]:
    """The players' cases :func:`long_first_edition_record` deals for ``seed`` (the same draws)."""
    rng = np.random.default_rng(seed)
    rng.permutation(14)
    rng.permutation(14)
    s, e, loc = rng.permutation(12)[:players], rng.permutation(10)[:players], rng.permutation(14)[:players]
    return [case_index(int(s[q]), int(e[q]), int(loc[q])) for q in range(players)]


def flipped_clue_record(seed: int, players: int) -> GameRecord:
    """A long first-edition record (60 rotations of failed solves, the case of one player given)
    in which player 2 (whose case the asking player does not hold) takes the clue card of its true
    suspect early, answered 'spot', and again late in the round, answered 'nothing' (the flipped
    answer); both replace failed solves of that player."""
    events = 60 * players
    rec = long_first_edition_record(seed, players, events, True)
    rnd = rec.rounds[0]
    evs = list(rnd.events)
    q = 2
    early, late = 2 * players + q, events - 2 * players + q
    x = int(CASE_TRIPLES[_true_cases(seed, players)[q], 0])
    evs[early] = Event(index=early, player=q, kind=CLUE, element=x, answer=2)
    evs[late] = Event(index=late, player=q, kind=CLUE, element=x, answer=0)
    return load_record(json.loads(json.dumps(record_to_dict(
        dataclasses.replace(rec, rounds=(dataclasses.replace(rnd, events=tuple(evs)),))))))


def all_cases_wrong_record(seed: int, players: int) -> GameRecord:
    """The layout and deal of :func:`long_first_edition_record` (the case of player 1 given), and one
    round in which player 0 names all 1,680 cases in a random order, each answered 'wrong' (its true
    case too: the flipped answer)."""
    rec = long_first_edition_record(seed, players, players, True, investigations=0)
    rnd = rec.rounds[0]
    order = np.random.default_rng(seed).permutation(NUM_CASES)
    evs = tuple(Event(index=i, player=0, kind=SOLVE, case=int(c), correct=False) for i, c in enumerate(order))
    return load_record(json.loads(json.dumps(record_to_dict(
        dataclasses.replace(rec, rounds=(dataclasses.replace(rnd, events=evs),))))))


def optux_conflict(knowledge: Knowledge) -> tuple[int, ...] | None:
    """The baseline: pysat's OptUx exact smallest-MUS search over every event, as
    :func:`pi_env.solvers.minimal_conflict` ran it before the unique-conflict shortcut."""
    from pysat.solvers import Solver

    from pi_env.solvers.sat_model import SatModel, _smallest_mus

    model = SatModel(knowledge)
    with Solver(name="g3", bootstrap_with=model.clauses(selected=True)) as solver:
        if solver.solve(assumptions=model.selectors):
            return None
    found = _smallest_mus(model, [])
    assert found is not None
    index = {sel: int(row[0]) for sel, row in zip(model.selectors, knowledge.events)}
    return tuple(sorted(index[sel] for sel in found))


def conflict_main(args: argparse.Namespace) -> None:
    """The contradictory-record rows (kind 5 of the module docstring)."""
    from pi_env.solvers import minimal_conflict

    load = os.getloadavg()
    kinds = {"late flipped clue": flipped_clue_record, "all 1,680 cases named wrong": all_cases_wrong_record}
    rows, mismatches, compared = [], 0, 0
    for label, make in kinds.items():
        ours, base, sizes = [], [], []
        for players in (4, 5):
            for i in range(args.conflict):
                rec = make(args.seed + 100 * i + players, players)
                for p in progress(range(players), f"{label} {players}p"):
                    k = knowledge_of(rec, p, 0)
                    got = minimal_conflict(k)
                    want = optux_conflict(k)
                    compared += 1
                    mismatches += got != want
                    sizes.append(len(got or ()))
                    ours.append(_median_time(lambda: minimal_conflict(k), clock=time.process_time))
                    base.append(_median_time(lambda: optux_conflict(k), clock=time.process_time))
        rows.append(Row(f"contradiction, {label}: minimal_conflict", ours, "ms", None, base, None,
                        f"{args.conflict} record(s) of 4 and of 5 players, every player asked; conflicts of "
                        f"{min(sizes)}-{max(sizes)} events; CPU time, median of {CALL_REPS} calls; baseline = "
                        f"OptUx's exact search alone (optux_conflict)"))
    print(f"contradictory records (seed {args.seed}); load average {load[0]:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print_table(rows)
    print(f"minimal_conflict vs OptUx: {compared} conflicts compared, {mismatches} mismatches")


if __name__ == "__main__":
    main()
