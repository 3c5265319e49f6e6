"""Optimal play of Solo Time Attack: the minimum expected number of actions on
seeded layouts of the published board, written as a table and a CSV.

The search itself is :mod:`pi_env.solvers.solo_optimum` (:class:`~pi_env.solvers.solo_optimum.OptimalSearch`:
the problem, the exact branch and bound, the bounds and the policies are documented there); this
experiment runs it per layout (:func:`solve_layout`) in a pool of worker processes, with a time
limit, resumable CSV output and the engine check of every exact policy.

Usage::

    python -m pi_env.experiments.solo_optimal --layouts 10 --seed 0 --time-limit 600 --out results/solo_optimal.csv
    python -m pi_env.experiments.solo_optimal ... --resume   # after an interruption: only the missing layouts
    python -m pi_env.experiments.solo_optimal --agent learned:solo --compare docs/figures/solo_optimal.csv

With ``--agent NAME`` nothing is searched: the agent plays every case of each layout in the solo engine
(:func:`agent_expected`, :func:`pi_env.agents.runner.play_solo_cases`) and its exact expected number of
actions is printed beside the greedy's (computed) and the optimum (from ``--compare``, a CSV of this
experiment); ``--out`` then writes that table as CSV.

An existing ``--out`` is replaced only with ``--force``; the CSV is rewritten atomically after each
layout, so an interrupted run keeps every finished layout.

Layout ``i`` is the suspect and evidence tiles of ``pi_env.engine.solo.init(SoloConfig(), 1,
seed + i)`` (the case drawn there is ignored: every case counts, uniformly). Results:
``docs/solo_optimal.md``.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
import time
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Sequence

import numpy as np

from pi_env.apps.interrupts import ignore_sigint, signals_held, terminate_as_interrupt
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import INVESTIGATE_BASE, NUM_CASES
from pi_env.core.errors import PIError
from pi_env.core.files import check_output_path, write_text_atomic
from pi_env.core.text import format_table as text_table
from pi_env.solvers.solo_optimum import GUESS, OptimalSearch, answer_codes, play_in_engine

__all__ = ["LayoutResult", "AgentResult", "layout_of", "gap_target", "solve_layout", "agent_expected", "format_table",
           "read_results", "main"]


@dataclass
class LayoutResult:
    """One layout's row of the table (expected actions = total / 1680)."""

    layout: int
    seed: int
    greedy: float
    rollout: float
    best_policy: float
    lower_bound: float
    gap_percent: float
    exact: bool
    seconds: float
    nodes: int
    lookahead_depth: int
    first_action: str
    engine_mean: float = float("nan")
    """Exact layouts: the optimal policy's mean actions as counted by the solo engine playing it on
    every case (:func:`play_in_engine`); NaN when not checked."""


def layout_of(seed: int) -> np.ndarray:
    """The tile layout of ``pi_env.engine.solo.init(SoloConfig(), 1, seed)``."""
    from pi_env.engine import solo as S

    return S.init(S.SoloConfig(), 1, seed=seed).tile_district[0].copy()


def greedy_expected(codes: np.ndarray, investigators: int) -> float:
    """:func:`pi_env.solvers.hints.greedy_expected_actions` over a uniform case."""
    from pi_env.solvers.hints import greedy_expected_actions

    A = codes.shape[0]
    return greedy_expected_actions(codes.astype(np.int16), np.ones(codes.shape[1]),
                                   np.arange(A) >= INVESTIGATE_BASE, investigators)


@dataclass
class AgentResult:
    """An agent's exact result on one layout (``--agent``): ``total`` actions over the 1680 cases
    (``mean`` = total / 1680), ``unsolved`` games cut off at ``max_actions``, ``greedy`` (computed)
    and ``optimum`` (from ``--compare``, NaN without)."""

    layout: int
    seed: int
    agent: str
    total: int
    mean: float
    unsolved: int
    greedy: float
    optimum: float
    seconds: float


def agent_expected(agent: str, layout: int, seed: int, investigators: int = 5,
                   optimum: float = float("nan")) -> AgentResult:
    """The exact expected number of actions of a deterministic agent (an agent name, e.g.
    ``learned:solo``) on the layout of ``seed``: it plays all 1680 cases in the solo engine
    (:func:`pi_env.agents.runner.play_solo_cases`, the final solve included, games cut off after 200
    actions counted as 200), beside the greedy's exact value."""
    from pi_env.agents.runner import play_solo_cases

    t0 = time.monotonic()
    tiles = layout_of(seed)
    counts, solved = play_solo_cases(agent, tiles, investigators=investigators)
    seconds = time.monotonic() - t0
    return AgentResult(layout=layout, seed=seed, agent=agent, total=int(counts.sum()), mean=float(counts.mean()),
                       unsolved=int((~solved).sum()), greedy=greedy_expected(answer_codes(tiles), investigators),
                       optimum=optimum, seconds=seconds)


def _agent_table(rows: Sequence[AgentResult]) -> list[str]:
    head = ("layout", "seed", rows[0].agent if rows else "agent", "greedy", "optimum", "above optimum %", "unsolved",
            "seconds")
    body = [(r.layout, r.seed, f"{r.mean:.4f}", f"{r.greedy:.4f}",
             "-" if math.isnan(r.optimum) else f"{r.optimum:.4f}",
             "-" if math.isnan(r.optimum) else f"{100 * (r.mean - r.optimum) / r.optimum:.2f}", r.unsolved,
             f"{r.seconds:.0f}") for r in rows]
    if rows:
        opt = [r.optimum for r in rows]
        mo = float(np.mean(opt))
        body.append(("mean", "", f"{np.mean([r.mean for r in rows]):.4f}", f"{np.mean([r.greedy for r in rows]):.4f}",
                     "-" if math.isnan(mo) else f"{mo:.4f}",
                     "-" if math.isnan(mo) else f"{100 * (np.mean([r.mean for r in rows]) - mo) / mo:.2f}",
                     sum(r.unsolved for r in rows), f"{sum(r.seconds for r in rows):.0f}"))
    return text_table(body, head, align="rrrrrrrr", style="rule")


def _run_agent(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``--agent``: the agent's exact expected actions per layout (module docstring)."""
    from pi_env.agents import make_agent

    optimum: dict[int, float] = {}
    from pi_env.engine import solo

    try:  # an unknown name, a bad model file or one trained for another player count than the solo
        # view's: one line now, before any game
        make_agent(args.agent).reset(solo.VIEW_PLAYERS)
    except PIError as exc:
        parser.exit(2, f"{parser.prog}: error: --agent: {exc}\n")
    try:
        if args.compare:
            optimum = {r.seed: r.best_policy for r in read_results(Path(args.compare)) if r.exact}
        if args.out:
            check_output_path(Path(args.out), force=args.force)
    except (PIError, ValueError, OSError) as exc:
        parser.error(str(exc))
    rows = []
    for i in range(args.layouts):
        s = args.seed + i
        rows.append(agent_expected(args.agent, i, s, args.investigators, optimum.get(s, float("nan"))))
        if args.verbose:
            print(f"  layout {i}: {rows[-1].mean:.4f} ({rows[-1].seconds:.0f} s)", file=sys.stderr, flush=True)
    print("\n".join(_agent_table(rows)))
    if args.out:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(asdict(rows[0])), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(asdict(r))
        write_text_atomic(Path(args.out), buf.getvalue())
        print(f"written {args.out}")
    return 0


def gap_target(best: int, gap: float) -> int:
    """The least total ``t`` with ``(best − t) / t ≤ gap / 100``: a bound of ``t`` proves the policy
    of total ``best`` within ``gap`` percent of the optimum (``gap`` ≥ 0; 0 gives ``best``).

    >>> gap_target(1000, 1.0), gap_target(1010, 1.0), gap_target(1000, 0.0)
    (991, 1000, 1000)
    """
    if gap < 0:
        raise ValueError(f"gap must be >= 0 (percent), got {gap}")
    t = int(np.floor(best * 100.0 / (100.0 + gap)))
    while t * (100.0 + gap) < best * 100.0:
        t += 1
    return min(t, int(best))


def solve_layout(layout: int, seed: int, investigators: int = 5, time_limit: float = 1800.0,
                 exact_below: int = 150, exact_upto: int = 40, board: Board = DAYTIME, progress=None,
                 table_bits: int = 25, gap: float = 1.0, verify: bool = True) -> LayoutResult:
    """Greedy value, best policy found, proven lower bound and exactness for one layout.

    Steps (shares of ``time_limit``, in seconds): the rollout (not time-limited) and the lookahead
    policy (until 10 % of the limit has passed); the depth-limited lower bound, one look-ahead level
    more each time, aiming at the *target* ``best / (1 + gap / 100)`` (``gap`` in percent; 0 aims at
    the policy itself): nothing is refined beyond the target, which prunes most of the tree; it
    stops when the target is met (the gap is then at most ``gap`` %), when a depth does not finish,
    or when 70 % of the time left after the policies has passed. Then,
    unless the bound already meets the policy, the exact branch and bound at the top
    (:meth:`OptimalSearch.solve_root`) with the bounds found so far uses the rest of the time: it
    refutes the first actions one by one against the best policy (proving it optimal when all are
    refuted), or finds a better policy and proves it. ``exact`` when the bound meets the best
    policy. Then (exact layouts, ``verify``) the solo rules engine plays the optimal policy on every
    case (:func:`play_in_engine`, not counted in ``seconds``): its count of actions must be the
    search's total, and its mean is the row's ``engine_mean``.

    Raises:
        RuntimeError: the engine's count differs from the search's optimum (a bug, never expected).
    """
    from pi_env.core.actions import action_name

    t0 = time.monotonic()
    deadline = t0 + time_limit
    tiles = layout_of(seed)
    codes = answer_codes(tiles, board)
    opt = OptimalSearch(codes, np.arange(codes.shape[0]) >= INVESTIGATE_BASE, investigators,
                        table_bits=table_bits)
    root = np.arange(NUM_CASES, dtype=np.int16)
    n = NUM_CASES
    greedy = greedy_expected(codes, investigators)
    rollout = opt.rollout_value(root, investigators, exact_below)
    best, first = opt.lookahead_value(root, investigators, exact_below, deadline=t0 + 0.1 * time_limit)
    if progress is not None:
        progress(f"greedy {greedy:.4f}, rollout {rollout / n:.4f}, lookahead policy {best / n:.4f} "
                 f"({time.monotonic() - t0:.0f} s)")
    target = gap_target(best, gap)
    lower, depth = int(opt.F[n, investigators]), 0
    rate = 20_000.0
    d = 0
    t_policy = time.monotonic()  # the rollout has no time limit: share out what is left after it
    bound_until = t_policy + 0.7 * max(0.0, deadline - t_policy)
    while lower < target:
        d += 1
        left = bound_until - time.monotonic()  # the rest is for the search at the top
        if left <= 0:
            break
        t1, n1 = time.monotonic(), opt.bound_nodes
        v, complete = opt.lower_bound(root, investigators, d, exact_upto, node_limit=max(1, int(rate * left)),
                                      target=target)
        dt = time.monotonic() - t1
        if dt > 1:
            rate = max(100.0, (opt.bound_nodes - n1) / dt)
        lower = max(lower, v)
        if progress is not None:
            progress(f"lower bound, {d} actions ahead{'' if complete else ' (stopped)'}: {v / n:.4f} "
                     f"(target {target / n:.4f}, {dt:.0f} s)")
        if not complete:
            break
        depth = d
    if lower < best and time.monotonic() < deadline:  # towards the exact optimum with the time left
        res = opt.solve_root(root, investigators, best, deadline,
                             progress=None if progress is None else
                             (lambda a, la, total, ok, b: progress(
                                 f"top: {action_name(a, board)}: "
                                 f"{'best so far' if ok else 'refuted' if total >= b else 'stopped at'} "
                                 f"{total / n:.4f} (bound {la / n:.4f}), best {b / n:.4f}")))
        if res.best_action is not None:
            first = res.best_action
        best = res.upper
        lower = max(lower, res.lower)
    exact = lower >= best
    if first is None:
        first = opt.greedy_action(root, investigators)
    seconds = time.monotonic() - t0
    engine_mean = float("nan")
    if exact and verify:  # the optimal policy played by the rules engine on all cases
        counts = play_in_engine(opt, tiles, investigators, first, board=board)
        if int(counts.sum()) != best:
            raise RuntimeError(f"layout {layout}: the engine counts {int(counts.sum())} actions for the "
                               f"optimal policy, the search {best}")
        engine_mean = float(counts.mean())
        if progress is not None:
            progress(f"engine check: the optimal policy takes {engine_mean:.4f} actions on average in the solo "
                     f"engine ({time.monotonic() - t0 - seconds:.0f} s)")
    return LayoutResult(layout=layout, seed=seed, greedy=greedy, rollout=rollout / n, best_policy=best / n,
                        lower_bound=lower / n, gap_percent=100.0 * (best - lower) / lower, exact=exact,
                        seconds=seconds, nodes=opt.nodes, lookahead_depth=depth,
                        first_action=action_name(int(first), board) if first is not None and first < GUESS else "",
                        engine_mean=engine_mean)


def format_table(rows: Sequence[LayoutResult]) -> list[str]:
    """The table printed by :func:`main`: expected actions per layout, the final solve included."""
    head = ("layout", "seed", "greedy", "best policy", "lower bound", "gap %", "greedy gap %", "exact",
            "first action")
    body = [(r.layout, r.seed, f"{r.greedy:.4f}", f"{r.best_policy:.4f}", f"{r.lower_bound:.4f}",
             f"{r.gap_percent:.2f}", f"{100 * (r.greedy - r.best_policy) / r.best_policy:.2f}",
             "yes" if r.exact else "no", r.first_action) for r in rows]
    return text_table(body, head, align="rrrrrrrrl", style="rule")


def _run_one(job: tuple) -> LayoutResult:
    i, seed, investigators, time_limit, exact_below, exact_upto, table_bits, gap, verbose = job

    def progress(text: str) -> None:
        print(f"  [layout {i}] {text}", file=sys.stderr, flush=True)

    return solve_layout(i, seed, investigators, time_limit, exact_below, exact_upto,
                        progress=progress if verbose else None, table_bits=table_bits, gap=gap)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_env.experiments.solo_optimal",
                                     description="Optimal play of Solo Time Attack.")
    parser.add_argument("--layouts", type=int, default=10, help="layouts (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="layout i uses seed + i (default 0)")
    parser.add_argument("--investigators", type=int, default=5, help="investigator tiles (default 5)")
    parser.add_argument("--time-limit", type=float, default=1800.0, help="seconds per layout (default 1800)")
    parser.add_argument("--exact-below", type=int, default=150,
                        help="the policies play optimally on sets of at most this many cases (default 150)")
    parser.add_argument("--exact-upto", type=int, default=40,
                        help="the lower bound is exact on sets of at most this many cases (default 40)")
    parser.add_argument("--table-bits", type=int, default=25,
                        help="transposition table of 2**bits entries, 26 bytes each (default 25)")
    parser.add_argument("--gap", type=float, default=1.0,
                        help="the lower bound aims at the best policy's value / (1 + GAP %%): reached, the policy is "
                             "proven within GAP %% of the optimum (default 1; 0 aims at the exact optimum); the "
                             "time left then goes to the exact search at the top")
    parser.add_argument("--workers", type=int, default=1, help="layouts solved in parallel (default 1)")
    parser.add_argument("--out", default=None, help="CSV file (default solo_optimal.csv; with --agent: none)")
    parser.add_argument("--agent", default=None,
                        help="evaluate this agent instead (e.g. learned:solo): its exact expected actions on "
                             "every case of each layout, beside the greedy and the optimum of --compare")
    parser.add_argument("--compare", default=None, metavar="CSV",
                        help="with --agent: a CSV of this experiment whose exact optima are printed beside it "
                             "(e.g. docs/figures/solo_optimal.csv)")
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="keep every row already in --out and solve only the missing layouts (the other "
                            "settings are not stored: resume with the same ones)")
    again.add_argument("--force", action="store_true", help="replace an existing --out")
    parser.add_argument("--verbose", action="store_true", help="report progress on stderr")
    args = parser.parse_args(argv)
    for name, low, high in (("layouts", 1, None), ("investigators", 0, 14), ("exact_below", 1, None),
                            ("exact_upto", 1, None), ("table_bits", 4, 34), ("workers", 1, None)):
        value = getattr(args, name)
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f"at least {low}"
            parser.error(f"--{name.replace('_', '-')} must be {span}, got {value}")
    if not (math.isfinite(args.gap) and args.gap >= 0):
        parser.error(f"--gap must be a number >= 0 (percent), got {args.gap}")
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        parser.error(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
    if args.agent is not None:
        return _run_agent(args, parser)
    if args.compare is not None:
        parser.error("--compare goes with --agent")
    out = Path(args.out or "solo_optimal.csv")
    rows: list[LayoutResult] = []
    if out.is_dir():
        parser.error(f"--out: {out} is a directory, not a file")
    if out.exists() and not (args.resume or args.force):
        parser.error(f"{out} exists: --resume to add the missing layouts to it, --force to replace it")
    if args.resume and out.exists():
        try:
            rows = read_results(out)
        except ValueError as exc:
            parser.error(str(exc))
        for r in rows:  # every row is kept; one for a layout of this run must be that layout
            if r.layout < args.layouts and r.seed != args.seed + r.layout:
                parser.error(f"{out} has layout {r.layout} with seed {r.seed}, this run gives it seed "
                             f"{args.seed + r.layout}: resume with --seed {r.seed - r.layout} or use another --out")
    done = {r.layout for r in rows}
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        check_output_path(out, force=True)
    except (OSError, PIError) as exc:
        parser.error(f"--out: {exc}")
    jobs = [(i, args.seed + i, args.investigators, args.time_limit, args.exact_below, args.exact_upto,
             args.table_bits, args.gap, args.verbose) for i in range(args.layouts) if i not in done]
    print("\n".join(format_table(sorted(rows, key=lambda r: r.layout))), flush=True)
    if done:
        print(f"(layouts {', '.join(map(str, sorted(done)))} kept from {out})", flush=True)
    try:
        with terminate_as_interrupt():
            _run_jobs(jobs, args.workers, rows, out)
    except KeyboardInterrupt:
        kept = (f"{len(rows)} layout{'' if len(rows) == 1 else 's'} kept in {out}" if rows
                else "no layout had finished, nothing written")
        print(f"interrupted: {kept}; run again with --resume to solve the others", file=sys.stderr)
        return 130
    if not rows:
        return 0
    g = float(np.mean([r.greedy for r in rows]))
    b = float(np.mean([r.best_policy for r in rows]))
    lo = float(np.mean([r.lower_bound for r in rows]))
    print(f"mean: greedy {g:.4f}, best policy {b:.4f}, lower bound {lo:.4f}; greedy {100 * (g - b) / b:.2f} % "
          f"above the best policy; best policy {100 * (b - lo) / lo:.2f} % above the bound; "
          f"{sum(r.exact for r in rows)} of {len(rows)} exact")
    print(f"written {out}")
    return 0


def _run_jobs(jobs: list[tuple], workers: int, rows: list[LayoutResult], out: Path) -> None:
    """Solve the layouts of ``jobs``, adding each result to ``rows`` and rewriting ``out``. On an
    interrupt the worker processes are terminated (the pool's exit) while signals are held."""
    if workers <= 1:
        for job in jobs:
            rows.append(_run_one(job))
            _report(rows, out)
        return
    import multiprocessing as mp

    pool = mp.get_context("spawn").Pool(workers, initializer=ignore_sigint)
    try:
        for r in pool.imap(_run_one, jobs):
            rows.append(r)
            _report(rows, out)
    finally:
        with signals_held():
            pool.terminate()
            pool.join()


def read_results(path: Path) -> list[LayoutResult]:
    """The rows of a CSV written by :func:`main`.

    Raises:
        ValueError: the file is not such a CSV (names the file, the line and the column).
    """
    def boolean(text: str) -> bool:
        if text not in ("True", "False"):
            raise ValueError(f"{text!r} is not True or False")
        return text == "True"

    convert = {"int": int, "float": float, "bool": boolean, "str": str}
    columns = {f.name: convert[str(f.type)] for f in fields(LayoutResult)}
    optional = {f.name for f in fields(LayoutResult) if f.default is not MISSING}  # newer columns
    out = []
    with Path(path).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or set(columns) - optional - set(reader.fieldnames):
            raise ValueError(f"{path}: not a solo_optimal CSV (expected the columns {', '.join(columns)})")
        for line, row in enumerate(reader, start=2):
            kw = {}
            for name, conv in columns.items():
                if name in optional and name not in row:
                    continue
                try:
                    kw[name] = conv(row[name])
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"{path}, line {line}, column {name}: {exc}") from None
            out.append(LayoutResult(**kw))
    return out


def _report(rows: list[LayoutResult], out: Path) -> None:
    print(format_table(rows[-1:])[-1], flush=True)

    buf = io.StringIO()  # the whole file, then one atomic write: an interrupted run keeps the last one
    w = csv.DictWriter(buf, fieldnames=list(asdict(rows[0])), lineterminator="\n")
    w.writeheader()
    for row in sorted(rows, key=lambda r: r.layout):
        w.writerow(asdict(row))
    write_text_atomic(out, buf.getvalue())


if __name__ == "__main__":
    # run from the importable module, not from __main__: the pool's workers then compile (and numba
    # caches) the kernels under ``pi_env.experiments.solo_optimal``; compiled as ``__mp_main__`` (spawn's name
    # for a -m script), the cache entries broke every later import ("No module named '__mp_main__'")
    from pi_env.experiments.solo_optimal import main as _main

    sys.exit(_main())
