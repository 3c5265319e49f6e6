"""``pi-env solve``'s hint on long first-edition records (issue #15's slow corner: rounds of 236-240
turns, nearly all failed solves) equals an independent computation.

The records are built as ``benchmarks/solver_speed.py`` builds its long-record rows
(:func:`long_first_edition_record`): 4 players, the held case given, one investigation each, then
failed solves in turn. The independent computation uses only the rules' pure answer functions of
:mod:`pi_env.records.record_file` and plain numpy: per-player candidate lists, the exact joint count
of p's cases as a product of disjointness matrices (three unknown players: p and the two players
whose cases p does not hold), p's posterior, the answer of every query for every case, the
entropies of the answer distributions (docs/rules.md §4, §9), and the greedy expected actions of
:func:`pi_env.solvers.hints.greedy_expected_actions_reference` on that answer matrix. Exact values,
not timings (speed: ``python benchmarks/solver_speed.py --long-only``).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from pi_env.core.constants import CASE_TRIPLES, INVESTIGATE_BASE, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS
from pi_env.records.record_file import clue_answer, investigate_answer
from pi_env.records.types import INVESTIGATE, SOLVE
from pi_env.solvers import analyze_knowledge, knowledge_of
from pi_env.solvers.hints import greedy_expected_actions_reference
from pi_env.solvers.solve_report import record_hint

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("solver_speed", REPO / "benchmarks" / "solver_speed.py")
assert _spec is not None and _spec.loader is not None
solver_speed = sys.modules.setdefault("solver_speed", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(solver_speed)

NONE = (False, False, False)


def candidates(rnd, adjacency, q: int) -> np.ndarray:
    """Player q's cases consistent with its own investigations and failed solves (case ids)."""
    ok = np.ones(NUM_CASES, dtype=bool)
    for ev in rnd.events:
        if ev.player != q:
            continue
        if ev.kind == INVESTIGATE:
            ok &= np.array([investigate_answer(rnd.tile_district, c, ev.district, ev.suppressed, adjacency)
                            == (ev.spots, ev.traces) for c in range(NUM_CASES)])
        elif ev.kind == SOLVE:
            assert not ev.correct
            ok[ev.case] = False
    return np.flatnonzero(ok)


def disjoint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``bool[len(a), len(b)]``: the cases share no suspect, evidence or location."""
    ta, tb = CASE_TRIPLES[a], CASE_TRIPLES[b]
    return np.all(ta[:, None, :] != tb[None, :, :], axis=2)


def independent_hint(rec, p: int) -> dict:
    rnd = rec.rounds[0]
    adjacency = rec.board.adjacency
    n = rec.rules.players
    held = (p + 1) % n
    held_case = np.array([rnd.cases[held]])
    a, b = [q for q in range(n) if q not in (p, held)]
    lists = {}
    for q in (p, a, b):  # every player's case is disjoint from the held one
        c = candidates(rnd, adjacency, q)
        lists[q] = c[disjoint(c, held_case)[:, 0]]
    d_pa = disjoint(lists[p], lists[a]).astype(np.float64)
    d_ab = disjoint(lists[a], lists[b]).astype(np.float64)
    d_pb = disjoint(lists[p], lists[b])
    counts = np.rint(((d_pa @ d_ab) * d_pb).sum(axis=1)).astype(np.int64)  # exact: integers < 2**53
    cases, counts = lists[p][counts > 0], counts[counts > 0]
    prob = counts / counts.sum()
    # queries (docs/rules.md §4.1, §4.2): no clue answered 'nothing', no display known: every clue
    # card; an investigator in every district p has not investigated (p has tiles left, no marker)
    used = {ev.district for ev in rnd.events if ev.player == p and ev.kind == INVESTIGATE}
    actions = list(range(NUM_ELEMENTS)) + [INVESTIGATE_BASE + d for d in range(NUM_DISTRICTS) if d not in used]
    answers = np.empty((len(actions), cases.size), dtype=np.int16)
    for i, x in enumerate(actions):
        for j, c in enumerate(cases.tolist()):
            if x < INVESTIGATE_BASE:
                answers[i, j] = clue_answer(rnd.tile_district, c, x, adjacency)
            else:
                sp, tr = investigate_answer(rnd.tile_district, c, x - INVESTIGATE_BASE, NONE, adjacency)
                answers[i, j] = 4 * sp + tr
    gains = []
    for row in answers:
        mass = [prob[row == k].sum() for k in np.unique(row)]
        gains.append(-sum(m * math.log2(m) for m in mass))
    order = sorted(range(len(actions)), key=lambda i: (-round(gains[i], 9), actions[i]))
    best = order[0]
    q_after = sum(prob[answers[best] == k].max() for k in np.unique(answers[best]))
    top = int(np.flatnonzero(prob == prob.max())[0])  # ties: the lowest case id (cases ascending)
    inv_left = 5 - len(used)
    return {"counts": dict(zip(cases.tolist(), counts.tolist())), "best_case": int(cases[top]),
            "p_correct": float(prob[top]), "expected_points": float(prob[top] * 7 - (1 - prob[top]) * 2),
            "gains": dict(zip(actions, gains)), "best_action": actions[best], "q_after": q_after,
            "remaining": greedy_expected_actions_reference(answers, prob,
                                                           np.array(actions) >= INVESTIGATE_BASE, inv_left),
            "entropy": float(-(prob * np.log2(prob)).sum())}


@pytest.mark.parametrize("seed, events, allowed_only", [(3, 240, True), (11, 237, True), (5, 238, False)])
def test_long_record_hint_equals_an_independent_computation(seed, events, allowed_only):
    rec = solver_speed.long_first_edition_record(seed, 4, events, held_known=True, allowed_only=allowed_only)
    p = solver_speed.long_record_player(4, events)
    assert len(rec.rounds[0].events) == events
    want = independent_hint(rec, p)
    analysis = analyze_knowledge(knowledge_of(rec, p, 0, events - 1))
    assert dict(zip(analysis.cases.tolist(), analysis.joint_counts.tolist())) == want["counts"]
    h = record_hint(rec, p)
    assert h is not None and h.count == len(want["counts"])
    assert int(h.best_case) == want["best_case"]
    assert h.p_correct == pytest.approx(want["p_correct"], rel=1e-12)
    assert h.expected_points == pytest.approx(want["expected_points"], rel=1e-12, abs=1e-12)
    assert h.entropy == pytest.approx(want["entropy"], rel=1e-12)
    assert {int(k): v for k, v in h.gains.items()}.keys() == want["gains"].keys()
    for action, bits in h.gains.items():
        assert bits == pytest.approx(want["gains"][int(action)], rel=1e-9, abs=1e-12), action
    assert int(h.best_action) == want["best_action"]
    assert h.q_after == pytest.approx(want["q_after"], rel=1e-12)
    assert h.expected_remaining_actions == pytest.approx(want["remaining"], rel=1e-12)
