"""Property tests of the solver on random legal rounds (docs/rules.md §3, §4, §9).

Random rounds are dealt and answered with the rules' pure functions of :mod:`pi_env.records.record_file`
(not the solver's tables). An independent brute force — per-player candidate lists from those
functions, then a plain enumeration of joint deals — must agree exactly with the solver on small
positions; on all positions the true case stays consistent, probabilities sum to 1, the joint set
lies inside the own set, the SAT model agrees, and the answer for p ignores every case but p+1's.
"""

from __future__ import annotations

import dataclasses
from itertools import combinations, product

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, TYPE_OFFSETS, case_index
from pi_env.records.record_file import clue_answer, investigate_answer, suppression
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, Event, RoundRecord
from pi_env.solvers import (CaseFilter, ContradictionError, Knowledge, analyze, case_mask_reference, count_joint,
                     is_consistent, knowledge_from_round, minimal_conflict, sat_consistent_cases)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _elements(case: int) -> tuple[int, int, int]:
    return tuple(int(CASE_TRIPLES[case, t]) + TYPE_OFFSETS[t] for t in range(3))


def random_adjacency(rng: np.random.Generator) -> np.ndarray:
    """A random connected graph on 14 districts (a random tree plus extra edges)."""
    adj = np.zeros((14, 14), dtype=bool)
    order = rng.permutation(14)
    for i in range(1, 14):
        a, b = order[i], order[rng.integers(i)]
        adj[a, b] = adj[b, a] = True
    for _ in range(int(rng.integers(0, 15))):
        a, b = rng.choice(14, 2, replace=False)
        adj[a, b] = adj[b, a] = True
    return adj


def random_round(rng: np.random.Generator, n: int, adjacency: np.ndarray, n_events: int) -> RoundRecord:
    """A legal random round: layout, disjoint cases, truthful answers, derived suppression."""
    td = np.empty(36, dtype=np.int64)
    td[:12] = rng.permutation(14)[:12]
    td[12:22] = rng.permutation(14)[:10]
    td[22:] = np.arange(14)
    s, e, loc = rng.permutation(12)[:n], rng.permutation(10)[:n], rng.permutation(14)[:n]
    cases = {q: case_index(int(s[q]), int(e[q]), int(loc[q])) for q in range(n)}
    marked: dict[int, set[int]] = {q: set() for q in range(n)}
    investigated: dict[int, set[int]] = {q: set() for q in range(n)}
    solved: set[int] = set()
    events: list[Event] = []
    turn = 0
    while len(events) < n_events and len(solved) < n:
        q = turn % n
        turn += 1
        if q in solved:
            continue
        i = len(events)
        r = rng.random()
        if r < 0.55 or (r < 0.92 and len(investigated[q]) >= 5):
            x = int(rng.integers(36))
            a = clue_answer(td, cases[q], x, adjacency)
            if a > 0:
                marked[q].add(x)
            events.append(Event(index=i, player=q, kind=CLUE, element=x, answer=a))
        elif r < 0.92:
            d = int(rng.choice([d for d in range(14) if d not in investigated[q]]))
            investigated[q].add(d)
            sup = suppression(td, frozenset(marked[q]), d)
            sp, tr = investigate_answer(td, cases[q], d, sup, adjacency)
            events.append(Event(index=i, player=q, kind=INVESTIGATE, district=d, spots=sp, traces=tr,
                                suppressed=sup))
        else:
            correct = rng.random() < 0.3
            guess = cases[q] if correct else int(rng.choice([c for c in range(NUM_CASES) if c != cases[q]]))
            if correct:
                solved.add(q)
            events.append(Event(index=i, player=q, kind=SOLVE, case=guess, correct=correct))
    return RoundRecord(first_player=0, tile_district=tuple(int(x) for x in td), cases=cases,
                       events=tuple(events))


# ------------------------------------------------------------------------------------------------
# independent brute force


def _answers_ok(rnd: RoundRecord, adjacency: np.ndarray, q: int, case: int) -> bool:
    """Does ``case`` give exactly the answers player q received?"""
    for ev in rnd.events:
        if ev.player != q:
            continue
        if ev.kind == CLUE and clue_answer(rnd.tile_district, case, ev.element, adjacency) != ev.answer:
            return False
        if ev.kind == INVESTIGATE and investigate_answer(rnd.tile_district, case, ev.district, ev.suppressed,
                                                         adjacency) != (ev.spots, ev.traces):
            return False
        if ev.kind == SOLVE and (case == ev.case) != ev.correct:
            return False
    return True


def _disjoint(a: int, b: int) -> bool:
    return not set(_elements(a)) & set(_elements(b))


def brute_force(rnd: RoundRecord, adjacency: np.ndarray, n: int, p: int, held_known: bool = True,
                limit: int = 300_000) -> tuple[dict[int, int], int] | None:
    """(joint counts per case of p, own count) by direct enumeration; None if too large."""
    held_player = (p + 1) % n
    fixed = {held_player: rnd.cases[held_player]} if held_known else {}
    cand = {}
    for q in range(n):
        if q in fixed:
            cand[q] = [fixed[q]] if _answers_ok(rnd, adjacency, q, fixed[q]) else []
        else:
            cand[q] = [c for c in range(NUM_CASES) if _answers_ok(rnd, adjacency, q, c)]
    # own information (docs/rules.md §9): own answers, held case, others' spots and correct solves
    excluded = set(_elements(fixed[held_player])) if held_known else set()
    for ev in rnd.events:
        if ev.player != p and ev.kind == CLUE and ev.answer == 2:
            excluded.add(ev.element)
        if ev.player != p and ev.kind == SOLVE and ev.correct:
            excluded |= set(_elements(ev.case))
    own = [c for c in cand[p] if not set(_elements(c)) & excluded]
    size = len(own)
    for q in range(n):
        if q != p:
            size *= max(1, len(cand[q]))
    if size > limit:
        return None
    others = [q for q in range(n) if q != p]
    counts: dict[int, int] = {}
    for c in own:
        k = 0
        for combo in product(*(cand[q] for q in others)):
            chosen = (c,) + combo
            if all(_disjoint(a, b) for a, b in combinations(chosen, 2)):
                k += 1
        if k:
            counts[c] = k
    return counts, len(own)


def _game(seed: int, n: int, n_events: int, daytime: bool) -> tuple[RoundRecord, np.ndarray]:
    rng = np.random.default_rng(seed)
    adjacency = DAYTIME.adjacency if daytime else random_adjacency(rng)
    return random_round(rng, n, adjacency, n_events), adjacency


# ------------------------------------------------------------------------------------------------
# properties


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), per_player=st.integers(0, 12),
       daytime=st.booleans(), player=st.integers(0, 4))
def test_invariants(seed: int, n: int, per_player: int, daytime: bool, player: int) -> None:
    rnd, adj = _game(seed, n, n * per_player, daytime)
    p = player % n
    a = analyze(rnd, p, n_players=n, adjacency=adj)
    assert a.probability_of(rnd.cases[p]) > 0  # the true case is always consistent
    assert a.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert set(a.cases.tolist()) <= set(a.own_cases.tolist())
    assert a.total == int(a.joint_counts.sum())
    for marg in a.marginals:
        assert marg.sum() == pytest.approx(1.0, abs=1e-12)
    for x in a.certain:
        assert x in _elements(rnd.cases[p])
    # information hygiene: only p+1's case may matter
    held = (p + 1) % n
    b = analyze(dataclasses.replace(rnd, cases={held: rnd.cases[held]}), p, n_players=n, adjacency=adj)
    assert np.array_equal(a.cases, b.cases) and np.array_equal(a.joint_counts, b.joint_counts)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), per_player=st.integers(5, 12),
       daytime=st.booleans(), player=st.integers(0, 4))
def test_brute_force_agrees_exactly(seed: int, n: int, per_player: int, daytime: bool, player: int) -> None:
    rnd, adj = _game(seed, n, n * per_player, daytime)
    p = player % n
    brute = brute_force(rnd, adj, n, p)
    assume(brute is not None)
    counts, own_count = brute
    a = analyze(rnd, p, n_players=n, adjacency=adj)
    assert a.own_count == own_count
    assert dict(zip(a.cases.tolist(), a.joint_counts.tolist())) == counts
    assert a.total == sum(counts.values())


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), per_player=st.integers(6, 12),
       player=st.integers(0, 4))
def test_brute_force_agrees_with_held_case_unknown(seed: int, n: int, per_player: int, player: int) -> None:
    """A record without p+1's case: every other player is unknown (up to 4 of them)."""
    rnd, adj = _game(seed, n, n * per_player, True)
    p = player % n
    brute = brute_force(rnd, adj, n, p, held_known=False, limit=100_000)
    assume(brute is not None)
    counts, own_count = brute
    k = knowledge_from_round(dataclasses.replace(rnd, cases={}), p, n, adj)
    assert k.held_case == -1
    a = analyze(k, p)
    assert a.own_count == own_count
    assert dict(zip(a.cases.tolist(), a.joint_counts.tolist())) == counts


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), per_player=st.integers(0, 10),
       daytime=st.booleans(), player=st.integers(0, 4))
def test_sat_model_agrees(seed: int, n: int, per_player: int, daytime: bool, player: int) -> None:
    rnd, adj = _game(seed, n, n * per_player, daytime)
    p = player % n
    k = knowledge_from_round(rnd, p, n, adj)
    a = analyze(k, p)
    if a.count <= 400:
        assert set(np.flatnonzero(sat_consistent_cases(k)).tolist()) == set(a.cases.tolist())
    assert minimal_conflict(k) is None


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), per_player=st.integers(0, 12),
       daytime=st.booleans())
def test_own_filter_numba_equals_numpy_incrementally(seed: int, n: int, per_player: int, daytime: bool) -> None:
    rnd, adj = _game(seed, n, n * per_player, daytime)
    for p in range(n):
        k = knowledge_from_round(rnd, p, n, adj)
        inc = CaseFilter(k.prefix(0))
        for i, row in enumerate(k.events):
            inc.update(row)
            assert np.array_equal(inc.mask, case_mask_reference(k.prefix(i + 1)))
        for q in range(n):  # every player's case set as p sees it
            assert np.array_equal(CaseFilter(k, owner=q).mask, case_mask_reference(k, owner=q))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 4), size=st.integers(1, 40))
def test_count_joint_on_random_sets(seed: int, m: int, size: int) -> None:
    """count_joint against direct enumeration on arbitrary case sets (every code path: 0..4 others)."""
    rng = np.random.default_rng(seed)
    sets = [np.zeros(NUM_CASES, dtype=bool) for _ in range(m + 1)]
    for s in sets:
        s[rng.choice(NUM_CASES, size=min(size, (40, 40, 40, 14, 8)[m]), replace=False)] = True
    got = count_joint(sets[0], sets[1:])
    for c in range(NUM_CASES):
        if not sets[0][c]:
            assert got[c] == 0
            continue
        want = 0
        for combo in product(*(np.flatnonzero(s) for s in sets[1:])):
            chosen = (c,) + tuple(int(x) for x in combo)
            want += all(_disjoint(a, b) for a, b in combinations(chosen, 2))
        assert got[c] == want


def test_count_joint_full_sets_closed_form() -> None:
    """With nothing known, counts are falling factorials (exact, no overflow)."""
    full = np.ones(NUM_CASES, dtype=bool)
    for m in range(4):
        got = count_joint(full, [full] * m)
        want = 1
        for n_t in (12, 10, 14):
            for i in range(1, m + 1):
                want *= n_t - i
        assert (got == want).all()


# ------------------------------------------------------------------------------------------------
# contradictions


def test_contradiction_reports_smallest_conflict() -> None:
    rnd, adj = _game(7, 4, 40, True)
    k = knowledge_from_round(rnd, 0, 4, adj)
    ev = k.events.copy()
    q = int(ev[0, 1])
    # two clues by the same player on the same element with different answers cannot both hold
    extra = [[len(ev), q, 0, 5, 2, 0, 0], [len(ev) + 1, q, 0, 5, 0, 0, 0]]
    bad = k.with_events(np.array(extra, dtype=np.int32))
    with pytest.raises(ContradictionError) as info:
        analyze(bad, 0)
    conflict = info.value.events
    assert len(conflict) == 2 and _is_conflict(bad, conflict)  # smallest: no single event conflicts
    assert all(not _is_conflict(bad, (i,)) for i in conflict)
    loose = analyze(bad, 0, strict=False)
    assert loose.count == 0 and loose.conflict == conflict and loose.total == 0
    # a deletion-based minimal conflict is a conflict from which no event can be dropped
    small = minimal_conflict(bad, smallest=False)
    assert small is not None and _is_conflict(bad, small)
    assert all(not _is_conflict(bad, tuple(j for j in small if j != i)) for i in small)


def _is_conflict(k: Knowledge, indices: tuple[int, ...]) -> bool:
    rows = k.events[np.isin(k.events[:, 0], indices)]
    return not is_consistent(k.prefix(0).with_events(rows))


def _optux_conflict(k: Knowledge) -> tuple[int, ...]:
    """What pysat's OptUx (an exact smallest-MUS search over every event) reports: what
    ``minimal_conflict`` reported on every contradiction before its unique-conflict shortcut."""
    from pi_env.solvers.sat_model import SatModel, _smallest_mus

    model = SatModel(k)
    found = _smallest_mus(model, [])
    assert found is not None
    index = {sel: int(row[0]) for sel, row in zip(model.selectors, k.events)}
    return tuple(sorted(index[sel] for sel in found))


def _rows(start: int, player: int, rows: list[tuple[int, int]], kind: int) -> np.ndarray:
    """Event rows ``[index, player, kind, a, b, 0, 0]`` numbered from ``start``."""
    return np.array([[start + i, player, kind, a, b, 0, 0] for i, (a, b) in enumerate(rows)], dtype=np.int32)


def _contradictions() -> list[tuple[str, Knowledge]]:
    """Contradictory knowledge of real rounds plus a few events: one conflict or several."""
    out = []
    for seed in (3, 7, 19):
        rnd, adj = _game(seed, 4, 24, True)
        k = knowledge_from_round(rnd, 0, 4, adj)
        n, q = len(k.events), 2  # not P1, whose case P0 holds
        x = int(CASE_TRIPLES[rnd.cases[q], 0])  # q's true suspect: 'spot'; then the flipped 'nothing'
        out.append((f"flipped clue, seed {seed}", k.with_events(_rows(n, q, [(x, 2), (x, 0)], 0))))
        out.append((f"flipped twice, seed {seed}", k.with_events(_rows(n, q, [(x, 2), (x, 0), (x, 0)], 0))))
    rnd, adj = _game(5, 3, 0, True)
    k = knowledge_from_round(rnd, 0, 3, adj)
    x = int(CASE_TRIPLES[rnd.cases[2], 0])
    named = [(case_index(x, e, loc), 0) for e in range(10) for loc in range(14)]
    out.append(("every case of a suspect named wrong", k.with_events(_rows(0, 2, [(x, 2)], 0)).with_events(
        _rows(1, 2, named, 2))))
    out.append(("every case named wrong", k.with_events(_rows(0, 0, [(c, 0) for c in range(NUM_CASES)], 2))))
    return out


def test_minimal_conflict_reports_what_the_exact_search_reports():
    """The unique-conflict shortcut (no OptUx when exactly one minimal conflict exists) reports the
    same events as OptUx's exact smallest-conflict search, on contradictions with one minimal
    conflict (a flipped clue; 140 failed solves after a spot; all 1,680 cases named wrong, of which
    the 1,287 disjoint from the held case conflict) and with several (a flipped clue answered twice)."""
    sizes = {}
    for label, k in _contradictions():
        got = minimal_conflict(k)
        assert got == _optux_conflict(k), label
        sizes[label] = len(got)
    assert sizes["every case named wrong"] == 1287  # 1680 minus the 393 sharing an element with P1's case
    assert all(sizes[f"flipped clue, seed {s}"] == sizes[f"flipped twice, seed {s}"] == 2 for s in (3, 7, 19))


def test_minimal_conflict_is_the_smallest_by_brute_force():
    """On small contradictory knowledge (a real 3-player round of 6 events plus a flipped clue, once
    or twice), every set of fewer events than the reported conflict is consistent, the reported one
    is not; with one flipped answer it is the only minimal conflict, with two the reported one is
    one of the two."""
    rnd, adj = _game(23, 3, 6, True)
    base = knowledge_from_round(rnd, 0, 3, adj)
    n, q = len(base.events), 2  # not P1, whose case P0 holds
    x = int(CASE_TRIPLES[rnd.cases[q], 1]) + TYPE_OFFSETS[1]  # q's true evidence
    for flips in (1, 2):
        k = base.with_events(_rows(n, q, [(x, 2)] + [(x, 0)] * flips, 0))
        got = minimal_conflict(k)
        indices = [int(i) for i in k.events[:, 0]]
        assert _is_conflict(k, got)
        smaller = [c for r in range(len(got)) for c in combinations(indices, r) if _is_conflict(k, c)]
        assert smaller == []
        minimal = [c for c in combinations(indices, len(got)) if _is_conflict(k, c)]
        assert got in minimal and len(minimal) == flips
        assert minimal == [(n, n + 1 + i) for i in range(flips)]


def test_contradiction_with_held_case() -> None:
    """An answer of p+1 that its (known) case cannot give contradicts p's private knowledge."""
    rnd, adj = _game(11, 3, 0, True)
    k = knowledge_from_round(rnd, 0, 3, adj)
    held = rnd.cases[1]
    s = int(CASE_TRIPLES[held, 0])
    other = (s + 1) % 12
    bad = k.with_events(np.array([[0, 1, 0, other, 2, 0, 0]], dtype=np.int32))  # p1 'spot' on a wrong suspect
    with pytest.raises(ContradictionError) as info:
        analyze(bad, 0)
    assert info.value.events == (0,)


def test_knowledge_validation() -> None:
    td = np.array(DAYTIME.adjacency.shape)  # wrong shape on purpose
    with pytest.raises(ValueError):
        Knowledge(0, 3, td, DAYTIME.adjacency)
    good_td = np.concatenate([np.arange(12), np.arange(10), np.arange(14)])
    with pytest.raises(ValueError):
        Knowledge(3, 3, good_td, DAYTIME.adjacency)
    with pytest.raises(ValueError):
        Knowledge(0, 3, good_td, DAYTIME.adjacency, events=np.array([[0, 0, 9, 0, 0, 0, 0]]))
    with pytest.raises(ValueError):
        analyze(Knowledge(0, 3, good_td, DAYTIME.adjacency), 1)
