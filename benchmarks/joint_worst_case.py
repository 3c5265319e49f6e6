"""Worst-case speed of exact joint inference (the slowest positions the solver meets) and of exact world sampling.

    python benchmarks/joint_worst_case.py [--games 4] [--baseline-cap 2] [--samples 100000] [--seed 0]
                                          [--climbs 4] [--climb-steps 150] [--mixed 40] [--quick]

Positions (one player p's :class:`~pi_env.solvers.Knowledge` each), by kind:

===============  ==============================================================================
``sparse``       no event; 2, 3, 4, 5 players; the case p holds known / not given
``early``        1 to 3 answers in the round; 3 to 5 players; held case known / not given
``few``          one answer per player; 4 and 5 players; held case known / not given
``N solves``     N = 10, 20, 30, 45, 100, 150 solves of random triples (nearly all failed) by random players and 3
                 other answers; 4 and 5 players; held case known / not given
``N failed``     exactly N failed solves and nothing else, players in turn: 20, 60, 150 and 300 (the legal
``solves only``  maximum of a first-edition round, 60 rotations) with 5 players and the held case not given;
                 300 with it known; 240 (the maximum) with 4 players, not given
``many``         engine self-play, 4 and 5 players (``greedy``/``deducer``/``random`` seats): every
                 fourth event of every round, each player in turn
``first``        the same, first edition (4 players)
``duel``         the same, a duel (2 players)
``random first`` first edition, 4 and 5 players, every seat ``random``: rounds of about 300 events,
                 nearly all of them failed solves (one game per player count, every 16th event)
``adversarial``  positions found in the run by a hill-climbing search over legal rounds that maximises
                 the dynamic programme's work (4 and 5 players; clues, investigations and failed or
                 correct solves by any player in any order, as a typed-in record allows;
                 ``--climbs`` searches of ``--climb-steps`` steps)
``legal``        first edition, 5 players, held case not given: one investigation per player, then 40, 50
                 or 60 rotations of failed solves naming cases the players' answers allow (``--mixed``
                 positions; 4 with ``--quick``)
``mixed``        5 players: 15-35 clue and investigation answers and 20-70 failed solves in random order
                 (``--mixed`` positions; 4 with ``--quick``)
``huge record``  typed-in records past the 60-rotation safeguard: 200,000 failed solves (and, without
                 ``--quick``, 1,500), 5 players in turn, held case not given
===============  ==============================================================================

Measured in CPU seconds of this process (``time.process_time``; numba compile time excluded: every
kernel runs once first), per position:

* analyze: :func:`pi_env.solvers.analyze_knowledge` (case sets, exact joint counts, probabilities,
  marginals), the median of 3 calls — the figure the target is about;
* count: the exact joint counts alone (:func:`pi_env.solvers.analysis.joint_counts`:
  :func:`pi_env.solvers.count_joint` on the case sets ``analyze_knowledge`` gives it, or with many
  failed solves :func:`pi_env.solvers.joint_holes.count_joint_split`), the median of 3 calls;
* baseline: the previous ``count_joint`` (``benchmarks/joint_baseline.py``, the meet-in-the-middle
  code the current counting replaced) on the same case sets, in the same run, capped at ``--baseline-cap``
  CPU seconds per position (then extrapolated from the cases done, marked ``est.``); its counts are
  compared with ours wherever it finished.

The table gives per kind the number of positions, our worst and median times, the baseline's worst,
and the ratio of the count worsts; then the overall worst against the target (every position within
100 ms). Then world sampling (:func:`pi_env.solvers.world_sampler`), per kind, for the 5-player
positions and every many-failed-solves position: the time to build a sampler and the worlds drawn
per second over ``--samples`` draws (target: at least 10,000 worlds/s). The machine's load average
is printed before and after: CPU times suffer less than wall times from other work on the machine,
but figures measured while other work runs are still for development only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pi_env.core._config import warming_up
from pi_env.core.board import DAYTIME
from pi_env.core.constants import NUM_CASES, case_index
from pi_env.records.record_file import clue_answer, investigate_answer, suppression
from pi_env.solvers import (Knowledge, analyze_knowledge, case_bits, count_joint, joint_table, knowledge_of,
                            world_sampler)
from pi_env.solvers.analysis import joint_counts
from pi_env.solvers.knowledge import CLUE_KIND, INVESTIGATE_KIND, SOLVE_CORRECT, SOLVE_FAILED
from pi_env.solvers.tables import from_bitset

sys.path.insert(0, str(Path(__file__).resolve().parent))
import joint_baseline  # noqa: E402  (the previous implementation, kept beside this script)

TARGET_S = 0.100
FAILED_SOLVES = (10, 20, 30, 45, 100, 150)  # solves in a round (nearly all failed) of the ``N solves`` kinds
# (failed solves, players, held case known) of the ``N failed solves only`` kinds; the legal maximum of a
# round is 60 rotations: 300 failed solves with 5 players, 240 with 4 (first edition, docs/rules.md §4.3)
FAILED_ONLY = ((20, 5, False), (60, 5, False), (150, 5, False), (300, 5, False), (300, 5, True), (240, 4, False))
TARGET_WORLDS = 10_000

try:  # optional progress bars
    from tqdm import tqdm as _tqdm
except ImportError:  # pragma: no cover
    _tqdm = None


def progress(items, desc: str):
    return items if _tqdm is None else _tqdm(items, desc=desc, leave=False, file=sys.stderr)


@dataclass
class Position:
    kind: str
    knowledge: Knowledge


# ---------------------------------------------------------------------------------------------
# positions


def random_deal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, list[int]]:
    """A random layout (``tile_district``, ``int64[36]``) and a deal of ``n`` disjoint cases."""
    td = np.empty(36, dtype=np.int64)
    td[:12] = rng.permutation(14)[:12]
    td[12:22] = rng.permutation(14)[:10]
    td[22:] = np.arange(14)
    s, e, loc = rng.permutation(12)[:n], rng.permutation(10)[:n], rng.permutation(14)[:n]
    return td, [case_index(int(s[q]), int(e[q]), int(loc[q])) for q in range(n)]


def answer_rows(td: np.ndarray, cases: list[int], specs: list[tuple[int, int, int]]) -> np.ndarray:
    """The truthful event rows of ``specs`` — ``(player, kind, target)`` with kind 0 a clue card
    (target 0..35), 1 an investigation (district 0..13), 2 a solve (case 0..1679: failed unless it
    is the player's case) — in order, clues marking the tiles that later investigations suppress
    (docs/rules.md §4.1–§4.3)."""
    adj = DAYTIME.adjacency
    marked: dict[int, set[int]] = {}
    rows = []
    for i, (q, kind, x) in enumerate(specs):
        if kind == 2:
            rows.append((i, q, SOLVE_CORRECT if x == cases[q] else SOLVE_FAILED, x, 0, 0, 0))
        elif kind == 0:
            a = clue_answer(td, cases[q], x, adj)
            if a:
                marked.setdefault(q, set()).add(x)
            rows.append((i, q, CLUE_KIND, x, a, 0, 0))
        else:
            sup = suppression(td, frozenset(marked.get(q, ())), x)
            sp, tr = investigate_answer(td, cases[q], x, sup, adj)
            mask = sum(1 << t for t, v in enumerate(sup) if v)
            rows.append((i, q, INVESTIGATE_KIND, x, sp, tr, mask))
    return np.array(rows, dtype=np.int32).reshape(-1, 7)


def random_spec(rng: np.random.Generator, q: int) -> tuple[int, int, int]:
    return (q, 0, int(rng.integers(36))) if rng.random() < 0.6 else (q, 1, int(rng.integers(14)))


def adversarial_spec(rng: np.random.Generator, q: int, case: int) -> tuple[int, int, int]:
    """A clue, an investigation or (one time in four) a solve: of a random case, rarely of ``case``."""
    if rng.random() < 0.75:
        return random_spec(rng, q)
    return (q, 2, case if rng.random() < 0.1 else int(rng.integers(NUM_CASES)))


def random_events(rng: np.random.Generator, n: int, count: int):
    """A random layout, a deal and ``count`` truthful answers (clues and investigations; players
    in turn). Returns ``(tile_district, cases, rows)``."""
    td, cases = random_deal(rng, n)
    return td, cases, answer_rows(td, cases, [random_spec(rng, i % n) for i in range(count)])


def synthetic_positions(rng: np.random.Generator) -> list[Position]:
    out = []
    adj = DAYTIME.adjacency
    for n in (2, 3, 4, 5):  # sparse
        td, cases, _ = random_events(rng, n, 0)
        for known in (True, False):
            out.append(Position("sparse", Knowledge(0, n, td, adj, cases[1] if known else -1)))
    for n in (3, 4, 5):  # early
        for count in (1, 2, 3):
            td, cases, rows = random_events(rng, n, count)
            for known in (True, False):
                p = int(rng.integers(n))
                out.append(Position("early", Knowledge(p, n, td, adj, cases[(p + 1) % n] if known else -1, rows)))
    for n in (4, 5):  # few: one answer per player
        for _ in range(3):
            td, cases, rows = random_events(rng, n, n)
            for known in (True, False):
                p = int(rng.integers(n))
                out.append(Position("few", Knowledge(p, n, td, adj, cases[(p + 1) % n] if known else -1, rows)))
    for failed in FAILED_SOLVES:  # many failed solves (legal: a wrong triple may be named again and again)
        for n in (4, 5):
            for _ in range(2):
                td, cases = random_deal(rng, n)
                specs = [(int(rng.integers(n)), 2, int(rng.integers(NUM_CASES))) for _ in range(failed)]
                specs += [random_spec(rng, int(rng.integers(n))) for _ in range(3)]
                specs = [specs[i] for i in rng.permutation(len(specs))]
                for known in (True, False):
                    p = int(rng.integers(n))
                    out.append(Position(f"{failed} solves", Knowledge(p, n, td, adj, cases[(p + 1) % n] if known else -1,
                                                                      answer_rows(td, cases, specs))))
    for failed, n, known in FAILED_ONLY:  # exactly N failed solves, players in turn, nothing else
        for _ in range(2):
            td, cases = random_deal(rng, n)
            specs = []
            for i in range(failed):
                q = i % n
                c = int(rng.integers(NUM_CASES))
                while c == cases[q]:  # a failed solve names a wrong case
                    c = int(rng.integers(NUM_CASES))
                specs.append((q, 2, c))
            p = int(rng.integers(n))
            out.append(Position(f"{failed} failed solves only, {n}p{', held known' if known else ''}",
                                Knowledge(p, n, td, adj, cases[(p + 1) % n] if known else -1,
                                          answer_rows(td, cases, specs))))
    return out


def mixed_positions(rng: np.random.Generator, count: int) -> list[Position]:
    """The legal corner between the two counting methods: first edition, 5 players, the held
    case not given; ``legal`` rounds of one investigation per player then 40, 50 or 60 rotations of
    failed solves, each naming a wrong case its player's answers allow; and ``mixed`` rounds of 15
    to 35 clue and investigation answers and 20 to 70 failed solves (four in five naming a case the
    player's answers allow), in random order. ``count`` of each."""
    out = []
    adj = DAYTIME.adjacency
    n = 5
    for i in range(2 * count):
        td, cases = random_deal(rng, n)
        legal = i < count
        if legal:
            specs = [(q, 1, int(rng.integers(14))) for q in range(n)]
        else:
            specs = [random_spec(rng, int(rng.integers(n))) for _ in range(int(rng.integers(15, 36)))]
        base = Knowledge(0, n, td, adj, -1, answer_rows(td, cases, specs))
        allowed = [from_bitset(b) for b in case_bits(base)]
        failed = []
        for j in range(n * int(rng.choice([40, 50, 60])) if legal else int(rng.integers(20, 71))):
            q = j % n if legal else int(rng.integers(n))
            pool = np.flatnonzero(allowed[q])
            pool = pool[pool != cases[q]]
            if pool.size == 0 or (not legal and rng.random() < 0.2):
                pool = np.setdiff1d(np.arange(NUM_CASES), [cases[q]])
            failed.append((q, 2, int(rng.choice(pool))))
        specs = specs + failed
        if not legal:  # in random order
            specs = [specs[j] for j in rng.permutation(len(specs))]
        kind = "legal: 1 investigation each, 40-60 rotations" if legal else "mixed answers and failed solves"
        out.append(Position(kind, Knowledge(int(rng.integers(n)), n, td, adj, -1, answer_rows(td, cases, specs))))
    return out


def huge_positions(rng: np.random.Generator, quick: bool) -> list[Position]:
    """Typed-in records past the engine's 60-rotation safeguard (not a rule): 5 players, the held
    case not given, N failed solves of random wrong cases, players in turn — 200,000 (every wrong
    case named, most of them many times: the same constraint again adds nothing) and 1,500 (about
    270 distinct cases per player: the costliest density for inclusion–exclusion measured here)."""
    out = []
    adj = DAYTIME.adjacency
    for total in ((200_000,) if quick else (200_000, 1_500)):
        td, cases = random_deal(rng, 5)
        named = rng.integers(NUM_CASES - 1, size=total)
        q = np.arange(total) % 5
        named = named + (named >= np.array(cases)[q])  # a wrong case: skip the player's own
        rows = np.zeros((total, 7), dtype=np.int32)
        rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = np.arange(total), q, SOLVE_FAILED, named
        out.append(Position(f"huge record: {total:,} failed solves, 5p", Knowledge(int(rng.integers(5)), 5, td, adj, -1,
                                                                                  rows)))
    return out


def engine_positions(kind: str, games: int, rng: np.random.Generator) -> list[Position]:
    """Positions of engine games: every fourth event of every round (every sixteenth for
    ``random first``, whose rounds run to about 300 events), each player in turn."""
    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig
    from pi_env.records.record_file import load_record, record_to_dict

    out = []
    player_counts = {"many": (4, 5), "first": (4,), "random first": (4, 5), "duel": (2,)}[kind]
    stride = 16 if kind == "random first" else 4
    for n in player_counts:
        if kind == "duel":
            cfg = GameConfig(num_players=2, mode="duel")
        elif kind in ("first", "random first"):
            cfg = GameConfig(num_players=n, edition="first")
        else:
            cfg = GameConfig(num_players=n)
        for _ in range(games):
            if kind == "random first":
                seats = ["random"] * n
            else:
                seats = [str(rng.choice(["greedy", "deducer", "random"], p=[0.4, 0.4, 0.2])) for _ in range(n)]
            _, rec = play_game(cfg, seats, int(rng.integers(2**31)))
            record = load_record(record_to_dict(rec.record()))
            for r, rnd in enumerate(record.rounds):
                for j, ev in enumerate(rnd.events[::stride]):
                    out.append(Position(kind, knowledge_of(record, (r + j) % n, r, ev.index)))
    return out


def dp_work(k: Knowledge) -> int:
    """The dynamic programme's size for ``k`` (:attr:`pi_env.solvers.joint.JointTable.work`, always
    the dynamic programme: ``sampling=True`` skips the direct enumeration of small positions)."""
    own, others = joint_inputs(k)
    return joint_table(np.stack([own] + others), sampling=True).work


def adversarial_positions(rng: np.random.Generator, starts: int, steps: int) -> list[Position]:
    """Positions found by hill-climbing on :func:`dp_work`: from a random deal and a few events (4
    and 5 players), mutate one thing at a time (add, drop or change an event of any player, in any
    order, as a typed-in record allows; change whose knowledge; give or hide the held case) and keep
    the change if the work does not drop. ``starts`` climbs per player count, ``steps`` each."""
    out = []
    for n in (4, 5):
        for _ in progress(range(starts), f"adversarial search, {n} players"):
            td, cases = random_deal(rng, n)
            adj = DAYTIME.adjacency

            def make(specs, p, known):
                return Knowledge(p, n, td, adj, cases[(p + 1) % n] if known else -1, answer_rows(td, cases, specs))

            def spec():
                q = int(rng.integers(n))
                return adversarial_spec(rng, q, cases[q])

            specs = [spec() for _ in range(int(rng.integers(0, 4)))]
            p, known = int(rng.integers(n)), bool(rng.random() < 0.5)
            best = dp_work(make(specs, p, known))
            for _ in range(steps):
                s2, p2, k2 = list(specs), p, known
                move = rng.random()
                if move < 0.35 or not s2:
                    s2.insert(int(rng.integers(len(s2) + 1)), spec())
                elif move < 0.55:
                    s2.pop(int(rng.integers(len(s2))))
                elif move < 0.85:
                    s2[int(rng.integers(len(s2)))] = spec()
                elif move < 0.95:
                    p2 = int(rng.integers(n))
                else:
                    k2 = not k2
                work = dp_work(make(s2, p2, k2))
                if work >= best:
                    specs, p, known, best = s2, p2, k2, work
            out.append(Position("adversarial", make(specs, p, known)))
    return out


# ---------------------------------------------------------------------------------------------
# measurements


def joint_inputs(k: Knowledge) -> tuple[np.ndarray, list[np.ndarray]]:
    """The case sets analyze_knowledge gives count_joint: p's, and every player's p does not know."""
    sets = [from_bitset(b) for b in case_bits(k)]
    known = {k.player} | ({k.held_player} if k.held_case >= 0 else set())
    return sets[k.player], [sets[q] for q in range(k.n_players) if q not in known]


def median_time(fn, reps: int = 3) -> float:
    """The median CPU time of ``reps`` calls (seconds of this process, ``time.process_time``: other
    work on a shared machine inflates it far less than wall time)."""
    times = []
    for _ in range(reps):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return float(np.median(times))


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def print_table(header: tuple[str, ...], lines: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for line in lines:
        print("| " + " | ".join(v.ljust(w) for v, w in zip(line, widths)) + " |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="engine games per kind and player count")
    ap.add_argument("--baseline-cap", type=float, default=2.0, help="seconds per position for the baseline")
    ap.add_argument("--samples", type=int, default=100_000, help="worlds drawn per sampling measurement")
    ap.add_argument("--climbs", type=int, default=4, help="adversarial searches per player count")
    ap.add_argument("--climb-steps", type=int, default=150, help="steps of each adversarial search")
    ap.add_argument("--mixed", type=int, default=40, help="legal and mixed many-failed-solves positions, each")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="fewer positions (a smoke run)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    load_before = os.getloadavg()

    positions = synthetic_positions(rng)
    games = 1 if args.quick else args.games
    for kind in ("many", "first", "random first", "duel"):
        positions += engine_positions(kind, 1 if kind == "random first" else games, rng)
    if args.quick:  # every fourth position, every second of the many-failed-solves corner
        positions = [p for i, p in enumerate(positions) if i % 4 == 0 or ("only" in p.kind and i % 2 == 0)]
    positions += adversarial_positions(rng, 1 if args.quick else args.climbs, 30 if args.quick else args.climb_steps)
    positions += mixed_positions(rng, 4 if args.quick else args.mixed)
    positions += huge_positions(rng, args.quick)

    corner = [p for p in positions if "only" in p.kind or "huge" in p.kind or "legal" in p.kind]
    with warming_up("joint_worst_case"):  # compile every kernel once
        for pos in positions[:3] + positions[-3:] + corner[:1] + corner[-1:]:
            analyze_knowledge(pos.knowledge, strict=False)
            world_sampler(pos.knowledge)
        full = np.ones(NUM_CASES, dtype=bool)
        small = np.zeros(NUM_CASES, dtype=bool)
        small[::97] = True
        for m in range(1, 5):  # every path of the baseline (its 3- and 4-player paths compile on first use)
            joint_baseline.count_joint(full, [small] * m)
            count_joint(full, [small] * m)

    kinds: dict[str, dict[str, list]] = {}
    compared = mismatches = 0
    worst = (0.0, None)
    for pos in progress(positions, "positions"):
        k = pos.knowledge
        ours = median_time(lambda: analyze_knowledge(k, strict=False))
        own, others = joint_inputs(k)
        counts = joint_counts(k)
        ours_count = median_time(lambda: joint_counts(k))
        base_counts, base_s, finished = joint_baseline.count_joint_capped(own, others, args.baseline_cap)
        if finished:
            compared += 1
            mismatches += int(not np.array_equal(counts, base_counts))
        row = kinds.setdefault(pos.kind, {"ours": [], "count": [], "base": [], "est": [], "players": []})
        row["ours"].append(ours)
        row["count"].append(ours_count)
        row["base"].append(base_s)
        row["est"].append(not finished)
        row["players"].append(k.n_players)
        if ours > worst[0]:
            worst = (ours, pos)

    print(f"exact joint inference, worst case: {len(positions)} positions, seed {args.seed}")
    header = ("kind", "positions", "players", "analyze worst", "analyze median", f"within {fmt(TARGET_S)}",
              "count worst", "baseline count_joint worst", "baseline/ours (count worst)")
    lines = []
    for kind, row in kinds.items():
        o, c, b = np.array(row["ours"]), np.array(row["count"]), np.array(row["base"])
        est = " est." if np.array(row["est"])[int(np.argmax(b))] else ""
        lines.append((kind, str(o.size), f"{min(row['players'])}-{max(row['players'])}", fmt(o.max()),
                      fmt(float(np.median(o))), f"{int((o <= TARGET_S).sum())}/{o.size}", fmt(c.max()), fmt(b.max()) + est, f"{b.max() / c.max():,.3g}x"))
    print_table(header, lines)
    wk = worst[1].knowledge
    print(f"worst position: {fmt(worst[0])} ({worst[1].kind}, {wk.n_players} players, {len(wk.events)} events, "
          f"held case {'known' if wk.held_case >= 0 else 'not given'}); target <= {fmt(TARGET_S)}: "
          f"{'met' if worst[0] <= TARGET_S else 'NOT met'}")
    print(f"baseline: capped at {args.baseline_cap:g} s per position ('est.': extrapolated); "
          f"{compared} positions compared count by count with ours, {mismatches} mismatches")

    # sampling
    five = [p for p in positions if p.knowledge.n_players == 5 or "only" in p.kind or "huge" in p.kind]
    sampling: dict[str, dict[str, list]] = {}
    for pos in progress(five, "sampling"):
        t = time.process_time()
        sampler = world_sampler(pos.knowledge)
        build = time.process_time() - t
        sampler.sample(100, rng=0)
        t = time.process_time()
        sampler.sample(args.samples, rng=1)
        row = sampling.setdefault(pos.kind, {"build": [], "rate": [], "players": []})
        row["build"].append(build)
        row["rate"].append(args.samples / max(time.process_time() - t, 1e-9))
        row["players"].append(pos.knowledge.n_players)
    if sampling:
        print(f"\nworld sampling (world_sampler, CPU time): 5-player positions and the many-failed-solves corner, "
              f"{args.samples:,} worlds each")
        header = ("kind", "positions", "players", "build worst", "build median", f"build within {fmt(TARGET_S)}",
                  "worlds/s worst")
        lines = []
        for kind, row in sampling.items():
            b, r = np.array(row["build"]), np.array(row["rate"])
            lines.append((kind, str(b.size), f"{min(row['players'])}-{max(row['players'])}", fmt(b.max()),
                          fmt(float(np.median(b))), f"{int((b <= TARGET_S).sum())}/{b.size}", f"{r.min():,.0f}"))
        print_table(header, lines)
        builds = np.concatenate([row["build"] for row in sampling.values()])
        rates = np.concatenate([row["rate"] for row in sampling.values()])
        print(f"sampler build worst {fmt(builds.max())}, median {fmt(float(np.median(builds)))}; worlds/s median "
              f"{np.median(rates):,.0f}, worst {rates.min():,.0f} (target >= {TARGET_WORLDS:,}: "
              f"{'met' if rates.min() >= TARGET_WORLDS else 'NOT met'})")
    load_after = os.getloadavg()
    print(f"load average (1/5/15 min): before {load_before[0]:.2f}/{load_before[1]:.2f}/{load_before[2]:.2f}, "
          f"after {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, SystemError) as exc:  # Ctrl-C: one line, exit status 130, no traceback
        # (nothing is written); inside a numba kernel it arrives as a SystemError caused by it
        from pi_env.apps.interrupts import caused_by_interrupt

        if not caused_by_interrupt(exc):
            raise
        print("\njoint_worst_case: interrupted", file=sys.stderr)
        sys.exit(130)
