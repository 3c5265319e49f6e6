"""Speed of the solver (issue 3 targets: own-information update <= 5 us per event, full joint
probabilities <= 20 ms for 5 players). Numba compile time is excluded (one warm-up call first).

    python benchmarks/solver_speed.py [fixture_dir]

Positions: every prefix (after 0, 1, ..., all events) of every 5-player fixture record, for every
player — from the opening (largest case sets) to the end of the round.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from pi_env.records import load_record
from solvers import CaseFilter, analyze_knowledge, knowledge_of
from solvers.case_sets import ELEMENT_BITS, _layout_bits_of, apply_event_bits

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "solver"


def _stats(name: str, seconds: list[float], unit: float, label: str) -> None:
    a = np.array(seconds) / unit
    print(f"{name:<44} n={a.size:<5} median {np.median(a):8.2f} {label}  p90 {np.percentile(a, 90):8.2f}  "
          f"max {a.max():8.2f}")


def main(fixture_dir: Path = DEFAULT_DIR) -> None:
    paths = sorted(fixture_dir.glob("5p_*.record.json"))
    if not paths:
        sys.exit(f"no 5-player fixtures in {fixture_dir}")
    records = [load_record(p) for p in paths]
    knowledges = [knowledge_of(r, p) for r in records for p in range(r.rules.players)]
    # warm-up (numba compile / cache load)
    f = CaseFilter(knowledges[0])
    analyze_knowledge(knowledges[0])

    # 1. own-information update, per event
    kernel, wrapper = [], []
    for k in knowledges:
        lb = _layout_bits_of(k)
        f = CaseFilter(k.prefix(0))
        bits = f.bits.copy()
        reps = 200
        for row in k.events:
            t = time.perf_counter()
            for _ in range(reps):
                apply_event_bits(bits, k.player, row, lb.clue, lb.investigation, ELEMENT_BITS)
            kernel.append((time.perf_counter() - t) / reps)
            t = time.perf_counter()
            f.update(row)
            wrapper.append(time.perf_counter() - t)
    _stats("own update: apply_event_bits (numba call)", kernel, 1e-6, "us")
    _stats("own update: CaseFilter.update", wrapper, 1e-6, "us")

    # 2. full joint analysis at every prefix
    full: list[float] = []
    by_events: dict[int, list[float]] = {}
    for k in knowledges:
        for i in range(len(k.events) + 1):
            ki = k.prefix(i)
            t = time.perf_counter()
            analyze_knowledge(ki)
            dt = time.perf_counter() - t
            full.append(dt)
            by_events.setdefault(i // 10 * 10, []).append(dt)
    _stats("analyze (own + joint + probabilities)", full, 1e-3, "ms")
    for start in sorted(by_events):
        _stats(f"  after {start}..{start + 9} events", by_events[start], 1e-3, "ms")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR)
