"""Exact joint counting and exact world sampling (docs/rules.md §3, §9; issues #15 item 8, #16 item 2).

:func:`pi_env.solvers.joint.joint_table` is checked against an independent brute force (plain
enumeration of disjoint tuples with numpy) on random case sets built the way answers build them:
per player, a few classes of elements per type and a random set of class triples, sometimes with
single cases removed (failed solves) or a single case (a known case). Sampling is checked against
the exact distribution with a chi-square test and a fixed seed, and on real positions against the
exact marginals of :func:`pi_env.solvers.analyze_knowledge`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import product

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES
from pi_env.solvers import (ContradictionError, analyze_knowledge, case_bits, count_joint, joint_table,
                            knowledge_from_round, sample_worlds, world_sampler)
from pi_env.solvers.joint_mitm import count_mitm
from pi_env.solvers.tables import CASE_ELEMENT_MASKS, from_bitset
from helpers import assert_jit_off_agrees
from test_solver_properties import random_round

SIZES = (12, 10, 14)


# ------------------------------------------------------------------------------------------------
# an independent brute force


def brute_force_counts(sets: np.ndarray, limit: int = 1_000_000) -> "tuple[np.ndarray, list] | None":
    """Per root case, the number of tuples (one case per other player, from its set) pairwise
    disjoint with each other and with the root's case; and the list of all valid tuples when there
    are few. Enumerates partial tuples player by player (numpy); ``None`` past ``limit`` of them."""
    root = np.flatnonzero(sets[0])
    cols = [root]
    masks = CASE_ELEMENT_MASKS[root]
    for row in sets[1:]:
        cand = np.flatnonzero(row)
        ok = (masks[:, None] & CASE_ELEMENT_MASKS[cand][None, :]) == 0
        i, j = np.nonzero(ok)
        if i.size > limit:
            return None
        cols = [c[i] for c in cols] + [cand[j]]
        masks = masks[i] | CASE_ELEMENT_MASKS[cand[j]]
    counts = np.bincount(cols[0], minlength=NUM_CASES).astype(np.int64)
    worlds = np.stack(cols, axis=1) if cols[0].size <= 5000 else None
    return counts, worlds


def structured_sets(rng: np.random.Generator, k: int) -> np.ndarray:
    """``bool[k, 1680]``: each player's set is a union of class triples of its own classes per type
    (as clue and investigation answers make them), sometimes minus a few cases (failed solves), or
    a single case."""
    sets = np.zeros((k, NUM_CASES), dtype=bool)
    triples = CASE_TRIPLES.astype(np.int64)
    for p in range(k):
        kind = rng.random()
        if kind < 0.1:
            sets[p, rng.integers(NUM_CASES)] = True
            continue
        labels = [rng.integers(0, rng.integers(1, 5), size=n) for n in SIZES]
        shape = tuple(int(lab.max()) + 1 for lab in labels)
        rel = rng.random(shape) < rng.uniform(0.15, 0.9)
        sets[p] = rel[labels[0][triples[:, 0]], labels[1][triples[:, 1]], labels[2][triples[:, 2]]]
        if kind > 0.8:
            sets[p, rng.integers(NUM_CASES, size=3)] = False
    return sets


def thin(rng: np.random.Generator, sets: np.ndarray, max_product: float) -> np.ndarray:
    """Intersect the largest sets with random per-type element subsets (which keeps their
    structure) until the products of the first set sizes (the brute force's partial tuples) are at
    most ``max_product``."""
    sets = sets.copy()
    while np.cumprod(sets.sum(axis=1), dtype=float).max() > max_product:
        q = int(np.argmax(sets.sum(axis=1)))
        t = int(rng.integers(3))
        keep = rng.random(SIZES[t]) < 0.6
        sets[q] &= keep[CASE_TRIPLES[:, t]]
    return sets


def sparse_sets(rng: np.random.Generator, k: int, size: int) -> np.ndarray:
    sets = np.zeros((k, NUM_CASES), dtype=bool)
    for p in range(k):
        sets[p, rng.choice(NUM_CASES, size=size, replace=False)] = True
    return sets


# ------------------------------------------------------------------------------------------------
# counting


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5))
def test_joint_table_equals_brute_force_on_structured_sets(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    sets = thin(rng, structured_sets(rng, k), 3e5)  # the brute force stays small
    brute = brute_force_counts(sets)
    table = joint_table(sets)
    assert np.array_equal(table.counts, brute[0])
    assert table.total == int(brute[0].sum())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), size=st.integers(1, 60))
def test_joint_table_equals_brute_force_on_sparse_sets(seed: int, k: int, size: int) -> None:
    """Random sets tell almost every element apart (the finest classes)."""
    rng = np.random.default_rng(seed)
    sets = sparse_sets(rng, k, min(size, (60, 60, 60, 40, 14)[k - 1]))
    brute = brute_force_counts(sets)
    assert brute is not None
    assert np.array_equal(joint_table(sets).counts, brute[0])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4))
def test_meeting_in_the_middle_equals_brute_force(seed: int, k: int) -> None:
    """The fallback for at most three other players (:mod:`pi_env.solvers.joint_mitm`)."""
    rng = np.random.default_rng(seed)
    sets = thin(rng, structured_sets(rng, k), 3e5)
    lists = [np.flatnonzero(row).astype(np.int64) for row in sets]
    assert np.array_equal(count_mitm(lists[0], lists[1:]), brute_force_counts(sets)[0][lists[0]])


def with_failed_solves(rng: np.random.Generator, sets: np.ndarray, per_player: int) -> np.ndarray:
    """``sets`` with ``per_player`` random cases removed from every player's but the root's set
    (failed solves: they tell almost every element apart, the dynamic programme's hard case)."""
    sets = sets.copy()
    for q in range(1, sets.shape[0]):
        sets[q, rng.choice(NUM_CASES, size=per_player, replace=False)] = False
    return sets


def test_joint_table_meets_in_the_middle_when_the_dynamic_programme_is_large() -> None:
    """Four players, the other three sets riddled with failed solves: the counts come from meeting
    in the middle and equal the dynamic programme's (forced with ``sampling=True``), which the
    brute-force tests above check; five players always use the dynamic programme."""
    rng = np.random.default_rng(8)
    sets = with_failed_solves(rng, np.ones((4, NUM_CASES), dtype=bool), 60)
    table = joint_table(sets)
    assert table.method == "mitm"
    dp = joint_table(sets, sampling=True)
    assert dp.method == "dp" and np.array_equal(table.counts, dp.counts) and table.total == dp.total > 0
    assert joint_table(with_failed_solves(rng, np.ones((5, NUM_CASES), dtype=bool), 5)).method == "dp"
    from pi_env.core.errors import PIError

    with pytest.raises(PIError, match="at most 3 other players"):
        count_mitm(np.arange(3), [np.arange(3)] * 4)


def test_joint_table_without_constraints_is_falling_factorials() -> None:
    full = np.ones((5, NUM_CASES), dtype=bool)
    for k in range(1, 6):
        table = joint_table(full[:k])
        want = 1
        for n in SIZES:
            for i in range(1, k):
                want *= n - i
        assert (table.counts == want).all() and table.total == want * NUM_CASES


def test_joint_table_counts_do_not_depend_on_the_order_of_the_other_players() -> None:
    rng = np.random.default_rng(5)
    sets = structured_sets(rng, 5)
    sets[0] = True
    base = joint_table(sets).counts
    for perm in ([0, 2, 1, 4, 3], [0, 4, 3, 2, 1], [0, 3, 1, 4, 2]):
        assert np.array_equal(joint_table(sets[perm]).counts, base)


def test_joint_table_empty_set_and_bad_input() -> None:
    sets = np.ones((3, NUM_CASES), dtype=bool)
    sets[2] = False
    table = joint_table(sets, sampling=True)
    assert table.total == 0 and not table.counts.any()
    with pytest.raises(ValueError, match="nothing to sample"):
        table.sample(1)
    with pytest.raises(ValueError, match="bool\\[k, 1680\\]"):
        joint_table(np.ones((6, NUM_CASES), dtype=bool))
    with pytest.raises(ValueError, match="bool\\[k, 1680\\]"):
        joint_table(np.ones((2, 1000), dtype=bool))
    with pytest.raises(ValueError, match="sampling=True"):
        joint_table(np.ones((2, NUM_CASES), dtype=bool)).sample(1)
    with pytest.raises(ValueError, match="at most 4"):
        count_joint(np.ones(NUM_CASES, bool), [np.ones(NUM_CASES, bool)] * 5)
    with pytest.raises(ValueError, match="n must be"):
        joint_table(np.ones((2, NUM_CASES), dtype=bool), sampling=True).sample(-1)


# ------------------------------------------------------------------------------------------------
# sampling


def _chi_square_pvalue(drawn: np.ndarray, worlds: np.ndarray) -> float:
    """p-value of the drawn tuples against the uniform distribution over ``worlds`` (every drawn
    tuple must be one of them)."""
    index = {tuple(w): i for i, w in enumerate(worlds.tolist())}
    hits = np.zeros(len(index), dtype=np.int64)
    for row in drawn.tolist():
        hits[index[tuple(row)]] += 1  # KeyError: an inconsistent world was drawn
    expected = drawn.shape[0] / len(index)
    stat = float(((hits - expected) ** 2 / expected).sum())
    return float(chi2.sf(stat, len(index) - 1))


@pytest.mark.parametrize("seed,k", [(1, 2), (2, 3), (3, 4), (4, 5), (6, 5)])
def test_sampling_matches_the_exact_distribution(seed: int, k: int) -> None:
    """Every joint assignment is enumerated; 100,000 draws with a fixed seed pass a chi-square test
    of uniformity over them (fixed seed: the outcome is deterministic, no flakes). A sampler that
    drew the root's case uniformly instead would fail it (checked below on the same worlds)."""
    rng = np.random.default_rng(seed)
    for _ in range(500):  # a small instance: between 20 and 3,000 joint assignments
        sets = thin(rng, structured_sets(rng, k), 2e5)
        brute = brute_force_counts(sets)
        while brute is None or brute[1] is None or brute[1].shape[0] > 3000:
            sets = thin(rng, sets, np.cumprod(sets.sum(axis=1), dtype=float).max() / 2)
            brute = brute_force_counts(sets)
        if brute[1].shape[0] >= 20 and np.unique(brute[0][brute[0] > 0]).size >= 3:
            break  # enough worlds, and the root's posterior is far from uniform
    else:
        pytest.fail("no small instance found")
    table = joint_table(sets, sampling=True)
    assert table.total == brute[1].shape[0]
    drawn = table.sample(100_000, rng=np.random.default_rng(seed))
    assert _chi_square_pvalue(drawn, brute[1]) > 1e-4
    # the test has power: uniform root case, then a uniform world of that root case, fails it
    worlds = brute[1][np.argsort(brute[1][:, 0], kind="stable")]
    roots, first, per_root = np.unique(worlds[:, 0], return_index=True, return_counts=True)
    gen = np.random.default_rng(seed)
    r = gen.integers(0, roots.size, 100_000)
    wrong = worlds[first[r] + (gen.random(100_000) * per_root[r]).astype(np.int64)]
    assert _chi_square_pvalue(wrong, worlds) < 1e-10


def _position(seed: int, n: int, events: int):
    rng = np.random.default_rng(seed)
    rnd = random_round(rng, n, DAYTIME.adjacency, events)
    return rnd, knowledge_from_round(rnd, 0, n, DAYTIME.adjacency)


def test_sample_worlds_fits_the_information_set_and_the_exact_marginals() -> None:
    rnd, k = _position(3, 5, 15)
    a = analyze_knowledge(k)
    worlds = sample_worlds(a, 40_000, rng=7)
    assert worlds.shape == (40_000, 5)
    # every world: the held case, each case in its player's set, pairwise disjoint
    assert (worlds[:, k.held_player] == k.held_case).all()
    sets = np.stack([from_bitset(b) for b in case_bits(k)])
    for q in range(5):
        assert sets[q, worlds[:, q]].all()
    masks = CASE_ELEMENT_MASKS[worlds]
    for i in range(5):
        for j in range(i + 1, 5):
            assert not (masks[:, i] & masks[:, j]).any()
    # p's own column follows the exact posterior (binomial, 5 standard deviations; fixed seed)
    freq = np.bincount(worlds[:, 0], minlength=NUM_CASES)
    prob = np.zeros(NUM_CASES)
    prob[a.cases] = a.probabilities
    sd = np.sqrt(40_000 * prob * (1 - prob)) + 1e-9
    assert (np.abs(freq - 40_000 * prob) <= 5 * sd + 1).all()
    assert set(np.flatnonzero(freq)) <= set(a.cases.tolist())


def test_sample_worlds_is_reproducible_and_reads_only_the_held_case() -> None:
    rnd, k = _position(11, 4, 12)
    a = sample_worlds(k, 500, rng=3)
    b = sample_worlds(analyze_knowledge(k), 500, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)
    # another player's case (not the held one) changed in the record: p's worlds are the same
    other = 3
    changed = dataclasses.replace(rnd, cases={**rnd.cases, other: (rnd.cases[other] + 1) % NUM_CASES})
    k2 = knowledge_from_round(changed, 0, 4, DAYTIME.adjacency)
    assert np.array_equal(sample_worlds(k2, 500, rng=3), a)


def test_sample_worlds_public_and_fixed() -> None:
    rnd, k = _position(5, 5, 10)
    public = k.for_player(0, -1)
    worlds = sample_worlds(public, 2_000, rng=1)
    assert len(set(worlds[:, 1].tolist())) > 1  # the held case is not known publicly
    truth = rnd.cases
    fixed = {2: truth[2], 4: truth[4]}
    worlds = sample_worlds(public, 2_000, rng=1, fixed=fixed)
    assert (worlds[:, 2] == truth[2]).all() and (worlds[:, 4] == truth[4]).all()
    # the conditional law: the same as a table with those players' sets reduced to their case
    sets = np.stack([from_bitset(b) for b in case_bits(public)])
    for q, c in fixed.items():
        sets[q] = np.arange(NUM_CASES) == c
    assert world_sampler(public, fixed).total == joint_table(sets).total
    with pytest.raises(ValueError, match="player 7"):
        sample_worlds(public, 1, fixed={7: 0})
    with pytest.raises(ValueError, match="case id"):
        sample_worlds(public, 1, fixed={1: 5000})
    with pytest.raises(ValueError, match="held case"):
        sample_worlds(k, 1, fixed={k.held_player: (k.held_case + 1) % NUM_CASES})
    with pytest.raises(TypeError):
        sample_worlds("record.json", 1)


def test_sample_worlds_contradiction() -> None:
    rnd, k = _position(7, 3, 6)
    wrong = {1: next(c for c in range(NUM_CASES) if not from_bitset(case_bits(k)[1])[c])}
    with pytest.raises(ContradictionError) as info:
        sample_worlds(k.for_player(0, -1), 1, fixed=wrong)
    assert info.value.events == ()


# ------------------------------------------------------------------------------------------------
# the plain-Python path (NUMBA_DISABLE_JIT=1) computes the same counts and draws the same worlds

_DIGEST = """
import hashlib
import numpy as np
from test_joint import structured_sets
from pi_env.solvers.joint import joint_table
from pi_env.solvers.joint_mitm import count_mitm
h = hashlib.sha256()
for seed, k in [(1, 3), (2, 5), (3, 4)]:
    sets = structured_sets(np.random.default_rng(seed), k)
    table = joint_table(sets, sampling=True)
    h.update(table.counts.tobytes())
    if table.total:
        h.update(table.sample(50, rng=seed).tobytes())
    lists = [np.flatnonzero(row).astype(np.int64) for row in sets[:4]]
    h.update(count_mitm(lists[0], lists[1:]).tobytes())  # meeting in the middle
    from pi_env.solvers.joint_tuples import count_listed
    h.update(count_listed(lists[0], [c[:40] for c in lists[1:]]).tobytes())  # listed sets met in the middle
from pi_env.solvers.joint_holes import count_joint_split, joint_table_split
for seed, k in [(4, 5), (5, 4), (6, 5)]:  # failed solves: holes in full sets (met in the middle), in coarse ones
    rng = np.random.default_rng(seed)  # (profiles weighted by the completions of one or two coarse players)
    sups = np.ones((k, 1680), dtype=bool)
    sups[k - 1] = structured_sets(rng, 1)[0] | (rng.random(1680) < 0.5)
    if seed == 6:
        sups[k - 2] = structured_sets(rng, 1)[0]
    sets = sups.copy()
    for q in range(k):
        sets[q, rng.choice(1680, size=6, replace=False)] = False
    h.update(count_joint_split(sets[0], list(sets[1:]), list(sups[1:])).tobytes())
    h.update(joint_table_split(sets, sups, sampling=True).sample(50, rng=seed).tobytes())
from pi_env.solvers.joint_holes import LATTICE_UNIONS, _triples_avoiding  # three lists by element sets
from pi_env.solvers.joint_tuples import CASE_TYPE_INDICES
lists = [np.random.default_rng(7).choice(1680, size=n, replace=False).astype(np.int64) for n in (9, 8, 3, 60)]
h.update(_triples_avoiding(*lists[:3], lists[3], CASE_TYPE_INDICES, LATTICE_UNIONS).tobytes())
from pi_env.solvers.joint_holes import quadruples_avoiding  # four lists by element sets
rng = np.random.default_rng(8)
lists = [rng.choice(1680, size=n, replace=False).astype(np.int64) for n in (3, 4, 2, 3)]
lists[2][0] = lists[0][0]  # (a shared case)
h.update(quadruples_avoiding(lists, rng.choice(1680, size=50, replace=False)).tobytes())
print(h.hexdigest())
"""


def test_jit_off_path_gives_the_same_counts_and_worlds() -> None:
    assert_jit_off_agrees(_DIGEST, timeout=600)


# ------------------------------------------------------------------------------------------------
# many failed solves: inclusion–exclusion over the holes, tiny sets enumerated once (issue #15 item 8)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), size=st.integers(1, 14),
       root_size=st.integers(1, 300))
def test_count_listed_equals_brute_force(seed: int, k: int, size: int, root_size: int) -> None:
    """Small sets met in the middle as lists (or enumerated, one list) = brute force."""
    from pi_env.solvers.joint_tuples import count_listed

    rng = np.random.default_rng(seed)
    sets = sparse_sets(rng, k, size)
    sets[0] = False
    sets[0, rng.choice(NUM_CASES, size=root_size, replace=False)] = True
    brute = brute_force_counts(sets, limit=5_000_000)
    assert brute is not None
    lists = [np.flatnonzero(row).astype(np.int64) for row in sets]
    assert np.array_equal(count_listed(lists[0], lists[1:]), brute[0][lists[0]])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), holes=st.integers(0, 30))
def test_count_joint_split_equals_brute_force(seed: int, k: int, holes: int) -> None:
    from pi_env.solvers.joint_holes import count_joint_split

    rng = np.random.default_rng(seed)
    supersets = thin(rng, structured_sets(rng, k), 3e5)
    sets = supersets.copy()
    for q in range(1, k):  # failed solves: cases removed from the supersets
        sets[q, rng.choice(NUM_CASES, size=holes, replace=False)] = False
    brute = brute_force_counts(sets)
    assert np.array_equal(count_joint_split(sets[0], list(sets[1:]), list(supersets[1:])), brute[0])
    if k > 1:
        with pytest.raises(ValueError, match="must contain"):
            count_joint_split(sets[0], [np.ones(NUM_CASES, bool)] * (k - 1), [np.zeros(NUM_CASES, bool)] * (k - 1))


def test_analysis_of_many_failed_solves_by_inclusion_exclusion_equals_the_dynamic_programme(monkeypatch) -> None:
    """Five players, the held case not given, 40 failed solves by the four unknown players: the
    analysis counts by :func:`count_joint_split` and gets the dynamic programme's counts."""
    import pi_env.solvers.analysis as analysis
    from pi_env.solvers.knowledge import SOLVE_FAILED, Knowledge

    rng = np.random.default_rng(5)
    _, base = _position(11, 5, 3)
    rows = [tuple(r) for r in base.events]
    failed = [(len(rows) + i, 1 + i % 4, SOLVE_FAILED, int(rng.integers(NUM_CASES)), 0, 0, 0) for i in range(40)]
    k = Knowledge(0, 5, base.tile_district, DAYTIME.adjacency, -1, np.array(rows + failed, dtype=np.int32))
    calls = []
    real = analysis.count_joint_split
    monkeypatch.setattr(analysis, "count_joint_split", lambda *a: calls.append(1) or real(*a))
    counts = np.zeros(NUM_CASES, np.int64)
    a = analyze_knowledge(k, strict=False)
    counts[a.cases] = a.joint_counts
    sets = [from_bitset(b) for b in case_bits(k)]
    assert calls == [1]
    assert np.array_equal(counts, count_joint(sets[0], sets[1:])) and a.total > 0


def _case(s: int, e: int, loc: int) -> int:
    return s * 140 + e * 14 + loc


def test_count_joint_split_by_hand_two_other_players() -> None:
    """Full supersets and one hole each, ``h1 = (0,0,0)``, ``h2 = (1,1,1)``: the pairs disjoint from
    ``c`` (``1287 * 960``: 11*9*13 cases for the first player, 10*8*12 for the second) minus those
    giving a player its hole (960 each when the hole avoids ``c``), plus those giving both."""
    from pi_env.solvers.joint_holes import count_joint_split

    full = np.ones(NUM_CASES, dtype=bool)
    h1, h2 = _case(0, 0, 0), _case(1, 1, 1)
    s1, s2 = full.copy(), full.copy()
    s1[h1] = s2[h2] = False
    counts = count_joint_split(full, [s1, s2], [full, full])
    base = 1287 * 960
    assert counts[_case(2, 2, 2)] == base - 960 - 960 + 1  # both holes avoid c
    assert counts[_case(0, 5, 5)] == base - 960  # h1 meets c
    assert counts[_case(5, 1, 5)] == base - 960  # h2 meets c
    assert counts[_case(0, 1, 5)] == base  # both meet c
    assert np.array_equal(counts, count_joint(full, [s1, s2]))


def test_count_joint_split_by_hand_four_other_players() -> None:
    """Four other players, full supersets, one hole each, the holes and ``c`` pairwise disjoint:
    by inclusion–exclusion over which players take their hole, ``sum_j (-1)^j C(4, j) *
    P(11-j, 4-j) * P(9-j, 4-j) * P(13-j, 4-j)`` (``P(n, r)`` falling factorials: the remaining
    players' distinct elements). A case meeting three holes leaves only the fourth player's to
    subtract."""
    from math import comb, perm

    from pi_env.solvers.joint_holes import count_joint_split

    full = np.ones(NUM_CASES, dtype=bool)
    holes = [_case(i, i, i) for i in range(4)]
    sets = []
    for h in holes:
        s = full.copy()
        s[h] = False
        sets.append(s)
    counts = count_joint_split(full, sets, [full] * 4)
    expected = sum((-1) ** j * comb(4, j) * perm(11 - j, 4 - j) * perm(9 - j, 4 - j) * perm(13 - j, 4 - j)
                   for j in range(5))
    assert counts[_case(9, 9, 9)] == expected
    assert counts[_case(0, 1, 2)] == perm(11, 4) * perm(9, 4) * perm(13, 4) - perm(10, 3) * perm(8, 3) * perm(12, 3)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(2, 4), size=st.integers(1, 40))
def test_mitm_statistics_equal_the_enumeration(seed: int, m: int, size: int) -> None:
    """The statistics of the tuples of holes met in the middle (``mitm_stats``, every cut) = those
    of the enumeration of every tuple (``_tuple_stats``), element by element."""
    from pi_env.solvers.joint_tuples import CASE_TYPE_INDICES, _splits, _tuple_stats, mitm_stats, packed

    rng = np.random.default_rng(seed)
    lists = [np.sort(rng.choice(NUM_CASES, size=int(rng.integers(1, size + 1)), replace=False)).astype(np.int64)
             for _ in range(m)]
    cases, offsets, masks = packed(lists)
    listed = _tuple_stats(cases, offsets, masks, CASE_TYPE_INDICES, np.zeros(NUM_CASES, np.int64),
                          np.zeros(1, np.int64), 10**9)
    assert listed[5]
    for p, q in _splits(m):
        met = mitm_stats([lists[i] for i in p], [lists[i] for i in q])
        assert met[0] == listed[0][0]
        assert np.array_equal(met[1], listed[1][0]) and np.array_equal(met[3], listed[3][0])
        for rows, cols in ((slice(0, 12), slice(12, 22)), (slice(0, 12), slice(22, 36)),
                           (slice(12, 22), slice(22, 36))):
            assert np.array_equal(met[2][rows, cols], listed[2][0][rows, cols])  # pairs of elements of two types


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), holes=st.integers(1, 6))
def test_count_joint_split_with_full_supersets_equals_the_dynamic_programme(seed: int, k: int, holes: int) -> None:
    """Failed solves and nothing else (full supersets, the corner of issue #15 item 8) at a small
    size: every term met in the middle or enumerated; the same counts as the dynamic programme."""
    from pi_env.solvers.joint_holes import count_joint_split

    rng = np.random.default_rng(seed)
    full = np.ones(NUM_CASES, dtype=bool)
    sets = np.ones((k, NUM_CASES), dtype=bool)
    for q in range(1, k):
        sets[q, rng.choice(NUM_CASES, size=holes, replace=False)] = False
    own = rng.random(NUM_CASES) < 0.5
    assert np.array_equal(count_joint_split(own, list(sets[1:]), [full] * (k - 1)), count_joint(own, list(sets[1:])))


def _split_instance(seed: int, two_left: "int | None" = None):
    """A small 4-player instance for the split table: supersets (structured, thinned), the sets
    = the supersets minus up to 3 random cases each (failed solves; player ``two_left``, if given,
    keeps only the first 2 cases of a superset of at least 8), between 50 and 3,000 consistent
    joint assignments. Returns ``(supersets, sets, brute_force_counts(sets))``; the test fails if
    500 draws from ``np.random.default_rng(seed)`` find none."""
    rng = np.random.default_rng(seed)
    for _ in range(500):
        supersets = thin(rng, structured_sets(rng, 4), 2e5)
        sets = supersets.copy()
        if two_left is not None:
            inside = np.flatnonzero(sets[two_left])
            if inside.size < 8:
                continue
            sets[two_left, inside[2:]] = False  # two cases left
        for q in range(4):
            inside = np.flatnonzero(sets[q])
            if q != two_left and inside.size > 1:
                sets[q, rng.choice(inside, size=min(3, inside.size - 1), replace=False)] = False
        brute = brute_force_counts(sets)
        if brute is not None and brute[1] is not None and 50 <= brute[1].shape[0] <= 3000:
            return supersets, sets, brute
    pytest.fail("no small instance found")


def test_split_table_samples_exactly() -> None:
    """Sampling from the supersets' table and keeping the draws inside every set
    (``joint_table_split``): 100,000 draws with a fixed seed pass a chi-square test of uniformity
    over every consistent joint assignment (a small instance: failed solves removed from coarse
    sets)."""
    from pi_env.solvers.joint_holes import joint_table_split

    supersets, sets, brute = _split_instance(12)
    table = joint_table_split(sets, supersets, sampling=True)
    assert table.method == "split" and table.can_sample and table.total == brute[1].shape[0]
    assert np.array_equal(table.counts, brute[0])
    drawn = table.sample(100_000, rng=np.random.default_rng(3))
    assert drawn.shape == (100_000, 4)
    assert _chi_square_pvalue(drawn, brute[1]) > 1e-4
    with pytest.raises(ValueError, match="must contain"):
        joint_table_split(supersets, sets)


def test_split_table_draws_a_nearly_emptied_player_from_its_own_set() -> None:
    """A player whose failed solves removed all but two cases of its superset (the rest keep a few
    holes): ``joint_table_split`` draws that player from its own set, so the supersets' proposal is
    still accepted often enough to sample by rejection (it fell back to the dynamic programme on the
    sets themselves, 240 ms on a `legal` position); 100,000 draws pass a chi-square test of
    uniformity over every consistent joint assignment."""
    from pi_env.solvers.joint_holes import MIN_ACCEPTANCE, joint_table_split

    supersets, sets, brute = _split_instance(13, two_left=1)
    table = joint_table_split(sets, supersets, sampling=True)
    assert table.method == "split" and table.can_sample and np.array_equal(table.counts, brute[0])
    assert table._proposal is not None and table.total >= MIN_ACCEPTANCE * table._proposal.total
    assert table.total < MIN_ACCEPTANCE * joint_table(supersets).total  # (the supersets alone: too few kept)
    drawn = table.sample(100_000, rng=np.random.default_rng(4))
    assert _chi_square_pvalue(drawn, brute[1]) > 1e-4


def test_world_sampler_in_the_many_failed_solves_corner(monkeypatch) -> None:
    """Five players, the held case not given, 40 failed solves (and a few answers): the sampler
    draws from the sets without the failed solves and keeps the consistent worlds (forced: the
    sets' own dynamic programme is small here and would be used); every world is consistent, and
    the asking player's suspect frequencies over 50,000 worlds pass a chi-square test against the
    exact marginal of the analysis."""
    import pi_env.solvers.worlds as worlds_module
    from pi_env.solvers.knowledge import SOLVE_FAILED, Knowledge

    assert world_sampler(_failed_solve_position(21, 16, 30)[0]).table.method != "split"  # small sets: direct
    monkeypatch.setattr(worlds_module, "joint_table_within", lambda *a, **kw: None)

    rng = np.random.default_rng(5)
    _, base = _position(11, 5, 3)
    rows = [tuple(r) for r in base.events]
    failed = [(len(rows) + i, i % 5, SOLVE_FAILED, int(rng.integers(NUM_CASES)), 0, 0, 0) for i in range(40)]
    k = Knowledge(0, 5, base.tile_district, DAYTIME.adjacency, -1, np.array(rows + failed, dtype=np.int32))
    sets = np.stack([from_bitset(b) for b in case_bits(k)])
    sampler = world_sampler(k)
    assert sampler.table.method == "split"
    a = analyze_knowledge(k)
    assert sampler.total == a.total
    worlds = sampler.sample(50_000, rng=9)
    for q in range(5):
        assert sets[q, worlds[:, q]].all()
    masks = CASE_ELEMENT_MASKS[worlds]
    for i in range(5):
        for j in range(i):
            assert not (masks[:, i] & masks[:, j]).any()
    observed = np.bincount(worlds[:, 0] // 140, minlength=12)
    expected = a.suspect * worlds.shape[0]
    keep = expected > 0
    assert observed[~keep].sum() == 0
    stat = float(((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum())
    assert chi2.sf(stat, int(keep.sum()) - 1) > 1e-4


def test_analysis_with_three_unknown_players_and_many_failed_solves_equals_the_dynamic_programme(monkeypatch) -> None:
    """Four players, the held case not given, 40 failed solves: the analysis counts by
    inclusion–exclusion (every term fast) and gets the dynamic programme's counts; a term that is
    not fast (``_hole_term`` gives up) makes it count the sets themselves, with the same result."""
    import pi_env.solvers.analysis as analysis
    import pi_env.solvers.joint_holes as joint_holes
    from pi_env.solvers.knowledge import SOLVE_FAILED, Knowledge

    rng = np.random.default_rng(6)
    _, base = _position(12, 4, 3)
    rows = [tuple(r) for r in base.events]
    failed = [(len(rows) + i, i % 4, SOLVE_FAILED, int(rng.integers(NUM_CASES)), 0, 0, 0) for i in range(40)]
    k = Knowledge(0, 4, base.tile_district, DAYTIME.adjacency, -1, np.array(rows + failed, dtype=np.int32))
    sets = [from_bitset(b) for b in case_bits(k)]
    expected = count_joint(sets[0], sets[1:])
    assert np.array_equal(analysis.joint_counts(k), expected) and expected.sum() > 0  # (the sets: small)
    monkeypatch.setattr(analysis, "joint_table_within", lambda *a, **kw: None)  # as if the sets were large
    calls = []
    real = analysis.count_joint_split
    monkeypatch.setattr(analysis, "count_joint_split", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    assert np.array_equal(analysis.joint_counts(k), expected) and calls == [1]
    monkeypatch.setattr(joint_holes, "_hole_term", lambda holes, coarse, comp=None, root=None: None)
    assert np.array_equal(analysis.joint_counts(k), expected) and calls == [1, 1]


def shared_class_sets(rng: np.random.Generator, k: int) -> np.ndarray:
    """``bool[k, 1680]``: per type 3 to 5 live elements split into 1 or 2 classes shared by the
    ``k`` players (answers about the same districts: few joint classes), each set a random union of
    triples of live classes (at most 125 cases)."""
    triples = CASE_TRIPLES.astype(np.int64)
    labels = []
    for n in SIZES:
        lab = np.full(n, 2)  # class 2: dead (in no set)
        live = rng.choice(n, size=int(rng.integers(3, 6)), replace=False)
        lab[live] = rng.integers(0, 2, size=live.size)
        labels.append(lab)
    rel = np.zeros((k, 3, 3, 3), dtype=bool)
    rel[:, :2, :2, :2] = rng.random((k, 2, 2, 2)) < 0.7
    return rel[:, labels[0][triples[:, 0]], labels[1][triples[:, 1]], labels[2][triples[:, 2]]]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 3))
def test_completions_table_equals_brute_force(seed: int, k: int) -> None:
    """``G`` from the class tensor (:meth:`_Completions.table`) = the pairwise-disjoint tuples of
    ``k`` coarse sets avoiding a set of used elements, enumerated (brute force), for random used
    elements (0 to 3 per type, so some classes run out)."""
    from pi_env.solvers.joint_holes import _Completions

    rng = np.random.default_rng(seed)
    coarse = (shared_class_sets(rng, k) if k == 3 else thin(rng, structured_sets(rng, k), 2e5) if k
              else np.zeros((0, NUM_CASES), dtype=bool))
    comp = _Completions(list(coarse))
    if not comp.ok:  # (two thinned sets with many joint classes: a tensor past MAX_TENSOR)
        coarse = shared_class_sets(rng, k)
        comp = _Completions(list(coarse))
    assert comp.ok
    used_t, expected = [[], [], []], []
    for _ in range(6):
        avoid = np.zeros(NUM_CASES, dtype=bool)  # the cases that use one of the used elements
        for t in range(3):
            els = rng.choice(SIZES[t], size=int(rng.integers(0, 4)), replace=False)
            avoid |= np.isin(CASE_TRIPLES[:, t], els)
            u = np.zeros(int(comp.counts[t]), dtype=np.int64)
            np.add.at(u, comp.labels[t, els], 1)
            used_t[t].append(u)
        brute = brute_force_counts(coarse & ~avoid, limit=3_000_000) if k else None
        assert brute is not None or k == 0
        expected.append(int(brute[0].sum()) if brute is not None else 1)
    table = comp.table([np.array(u) for u in used_t])
    assert [int(table[i, i, i]) for i in range(6)] == expected


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 4), k=st.integers(0, 2), size=st.integers(0, 12))
@example(seed=21435, m=2, k=2, size=9)  # a refused term (above): discarded, not a failure
def test_hole_term_equals_brute_force(seed: int, m: int, k: int, size: int) -> None:
    """One inclusion–exclusion term (:func:`_hole_term`: tuples of holes grouped by profile, weighted
    by the completions; or met in the middle) = brute force over the holes and the coarse sets, per
    root case; holes empty, holes that are a whole coarse set and holes that share cases included."""
    from pi_env.solvers.joint_holes import _Completions, _hole_term

    k = min(k, 4 - m)  # (at most four unknown players)
    rng = np.random.default_rng(seed)
    coarse = thin(rng, structured_sets(rng, k), 1e4) if k else np.zeros((0, NUM_CASES), dtype=bool)
    if not _Completions(list(coarse)).ok:  # (two thinned sets with many joint classes)
        coarse = shared_class_sets(rng, k)
    holes = sparse_sets(rng, m, size) if size else np.zeros((m, NUM_CASES), dtype=bool)
    if k and m > 1 and coarse[0].sum() <= 40 and rng.random() < 0.5:
        holes[1] = coarse[0]  # a hole set that is a whole (small) superset
    if m > 1 and rng.random() < 0.3:
        holes[0] |= holes[-1]  # shared cases
    others = float(np.prod([max(int(x.sum()), 1) for x in np.vstack([holes, coarse])]))
    root = np.zeros(NUM_CASES, dtype=bool)  # as many root cases as the brute force affords
    root[rng.choice(NUM_CASES, size=int(np.clip(3e6 / others, 1, 400)), replace=False)] = True
    brute = brute_force_counts(np.vstack([root[None, :], holes, coarse]), limit=5_000_000)
    assert brute is not None
    term = _hole_term(list(holes), list(coarse), root=np.flatnonzero(root))
    # None is a refusal by design (a completions table above MAX_TABLE_STEPS or too many tuples: the
    # caller then counts another way), not a wrong count: e.g. seed=21435, m=2, k=2, size=9 (32.1 M
    # table steps). Hypothesis discards such draws and fails the test if most draws are refused.
    assume(term is not None)
    assert np.array_equal(term, brute[0])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40)))
def test_triples_by_element_sets_equal_brute_force(seed: int, sizes: tuple) -> None:
    """Three lists (empty ones, shared cases included), per root case the disjoint triples avoiding it
    by inclusion–exclusion over element sets (:func:`_triples_avoiding`) = brute force."""
    from pi_env.solvers.joint_holes import LATTICE_UNIONS, _triples_avoiding
    from pi_env.solvers.joint_tuples import CASE_TYPE_INDICES

    rng = np.random.default_rng(seed)
    sets = np.zeros((4, NUM_CASES), dtype=bool)
    sets[0] = rng.random(NUM_CASES) < 0.1  # (0.2 with three lists of 40 passed the brute force's 5e6 limit)
    for q, n in enumerate(sizes):
        sets[q + 1, rng.choice(NUM_CASES, size=n, replace=False)] = True
    if rng.random() < 0.3:
        sets[2] |= sets[1]  # shared cases
    brute = brute_force_counts(sets, limit=5_000_000)
    assert brute is not None
    lists = [np.flatnonzero(row).astype(np.int64) for row in sets]
    got = _triples_avoiding(lists[1], lists[2], lists[3], lists[0], CASE_TYPE_INDICES, LATTICE_UNIONS)
    assert np.array_equal(got, brute[0][lists[0]])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.tuples(*[st.integers(0, 12)] * 4), shared=st.booleans())
def test_quadruples_by_element_sets_equal_brute_force(seed: int, sizes: tuple, shared: bool) -> None:
    """Four lists (empty ones, shared cases included), per root case the disjoint quadruples avoiding
    it by inclusion–exclusion over element sets (:func:`quadruples_avoiding`) = the brute force and
    an enumeration of the quadruples written out here."""
    from pi_env.solvers.joint_holes import quadruples_avoiding

    rng = np.random.default_rng(seed)
    sets = np.zeros((5, NUM_CASES), dtype=bool)
    sets[0] = rng.random(NUM_CASES) < 0.2
    for q, n in enumerate(sizes):
        sets[q + 1, rng.choice(NUM_CASES, size=n, replace=False)] = True
    if shared:
        sets[3] |= sets[1]
        sets[4, np.flatnonzero(sets[2])[:3]] = True
    brute = brute_force_counts(sets, limit=5_000_000)
    assert brute is not None
    lists = [np.flatnonzero(row).astype(np.int64) for row in sets]
    got = quadruples_avoiding(lists[1:], lists[0])
    assert np.array_equal(got, brute[0][lists[0]])
    triples = CASE_TRIPLES.astype(np.int64)
    by_elements: Counter = Counter()  # the disjoint quadruples, by the element sets they use
    for quad in product(*(triples[lst].tolist() for lst in lists[1:])):
        used = tuple(frozenset(case[t] for case in quad) for t in range(3))
        if all(len(u) == 4 for u in used):
            by_elements[used] += 1
    by_hand = np.zeros(NUM_CASES, dtype=np.int64)
    for (ss, es, ls), n in by_elements.items():
        by_hand += n * (~np.isin(triples[:, 0], list(ss)) & ~np.isin(triples[:, 1], list(es))
                        & ~np.isin(triples[:, 2], list(ls)))
    assert np.array_equal(got, by_hand[lists[0]])
    with pytest.raises(ValueError, match="four lists"):
        quadruples_avoiding(lists[1:4], lists[0])


def test_four_players_holes_by_element_sets_equal_meeting_in_the_middle(monkeypatch) -> None:
    """The term of four players' long lists of holes (200 cases each, no coarse player) is counted by
    element sets (:func:`quadruples_avoiding`, meeting in the middle would cost more) and equals the
    statistics met in the middle (:func:`count_listed`)."""
    from pi_env.solvers import joint_holes
    from pi_env.solvers.joint_tuples import count_listed

    rng = np.random.default_rng(12)
    holes = np.zeros((4, NUM_CASES), dtype=bool)
    for q in range(4):
        holes[q, rng.choice(NUM_CASES, size=200, replace=False)] = True
    root = np.flatnonzero(rng.random(NUM_CASES) < 0.5)
    calls = []
    real = joint_holes.quadruples_avoiding
    monkeypatch.setattr(joint_holes, "quadruples_avoiding", lambda *a: calls.append(1) or real(*a))
    term = joint_holes._hole_term(list(holes), [], root=root)
    assert calls == [1] and term is not None
    lists = [np.flatnonzero(row).astype(np.int64) for row in holes]
    assert np.array_equal(term[root], count_listed(root, lists))
    assert not term[np.setdiff1d(np.arange(NUM_CASES), root)].any()


def test_completions_too_fine_for_the_class_tensor_fall_back_without_warnings():
    """Three sets that split the elements into 36 classes: the coarse players' class tensor would
    hold (12 * 10 * 14)**3 entries, so the fast completions decline (``ok`` False, no relations
    built) and the caller falls back, without numpy warnings (an overflowed radix used to print
    'divide by zero encountered in floor_divide': a tester's record)."""
    import warnings

    from pi_env.solvers.joint_holes import _Completions, _hole_term
    rng = np.random.default_rng(0)
    sets = [rng.random(NUM_CASES) < 0.05 for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comp = _Completions(sets)
        assert (comp.ok, comp.n_classes, comp.rels) == (False, 36, [])
        assert _hole_term([sets[0]], sets[1:]) is None


# ------------------------------------------------------------------------------------------------
# the corner between the methods (issue #15 item 8): answers that keep the sets small, then many
# failed solves; and the same failed solve named many times


def _failed_solve_position(seed: int, answers: int, failed: int, copies: int = 1):
    """5 players, the held case not given: ``answers`` truthful clue/investigation answers, then
    ``failed`` failed solves by players in turn, each naming a wrong case its player's answers allow
    (``copies`` times in a row). Returns ``(knowledge, case sets bool[5, 1680])``."""
    from pi_env.solvers.knowledge import SOLVE_FAILED, Knowledge

    rng = np.random.default_rng(seed)
    rnd, base = _position(seed, 5, answers)
    base = dataclasses.replace(base, held_case=-1)
    allowed = [from_bitset(b) for b in case_bits(base)]
    rows = [tuple(r) for r in base.events]
    for i in range(failed):
        q = i % 5
        pool = np.flatnonzero(allowed[q])
        pool = pool[pool != rnd.cases[q]]
        if pool.size:
            c = int(rng.choice(pool))
            rows += [(len(rows) + j, q, SOLVE_FAILED, c, 0, 0, 0) for j in range(copies)]
    k = dataclasses.replace(base, events=np.array(rows, dtype=np.int32))
    return k, np.stack([from_bitset(b) for b in case_bits(k)])


@pytest.mark.parametrize("seed, answers, failed", [(20, 24, 60), (21, 16, 30), (22, 20, 40), (21, 24, 60)])
def test_answers_then_many_failed_solves_equal_brute_force(seed: int, answers: int, failed: int,
                                                           monkeypatch) -> None:
    """Small sets broken up by failed solves (the shape that fell back to the dynamic programme term
    by term): the analysis's counts equal an independent brute force, whether the sets are counted
    directly or (forced) by inclusion–exclusion over the named cases; so do the world sampler's."""
    import pi_env.solvers.analysis as analysis
    import pi_env.solvers.worlds as worlds

    k, sets = _failed_solve_position(seed, answers, failed)
    p = k.player
    order = [p] + [q for q in range(5) if q != p]
    brute = brute_force_counts(sets[order], limit=3_000_000)
    assert brute is not None and brute[0].sum() > 0
    assert np.array_equal(analysis.joint_counts(k), brute[0])
    assert np.array_equal(world_sampler(k).table.counts, brute[0])
    monkeypatch.setattr(analysis, "joint_table_within", lambda *a, **kw: None)  # as if the sets were large
    monkeypatch.setattr(worlds, "joint_table_within", lambda *a, **kw: None)
    assert np.array_equal(analysis.joint_counts(k), brute[0])
    assert np.array_equal(world_sampler(k).table.counts, brute[0])


def test_the_same_failed_solve_many_times_counts_as_once() -> None:
    """N copies of a failed solve give the same counts as one (the constraint is the same): 25
    copies each pass the many-failed-solves threshold, one copy does not; both equal brute force."""
    from pi_env.solvers.analysis import SPLIT_MIN_FAILED, joint_counts

    once, sets = _failed_solve_position(21, 16, 5)
    many, sets_many = _failed_solve_position(21, 16, 5, copies=25)
    assert len(many.events) - len(once.events) == 24 * 5 >= SPLIT_MIN_FAILED
    assert np.array_equal(sets, sets_many)
    p = once.player
    brute = brute_force_counts(sets[[p] + [q for q in range(5) if q != p]], limit=3_000_000)
    assert brute is not None and brute[0].sum() > 0
    assert np.array_equal(joint_counts(once), brute[0]) and np.array_equal(joint_counts(many), brute[0])
    assert np.array_equal(world_sampler(many).table.counts, brute[0])


def test_joint_table_within_gives_up_only_past_its_limit() -> None:
    """``joint_table_within``: the same table as ``joint_table`` when the work fits; ``None`` when
    the dynamic programme passes the limit and meeting in the middle would cost more."""
    from pi_env.solvers.joint import joint_table_within

    rng = np.random.default_rng(3)
    sets = np.ones((5, NUM_CASES), dtype=bool)
    for q in range(5):  # failed solves alone: fine sets, a large dynamic programme
        sets[q, rng.choice(NUM_CASES, size=60, replace=False)] = False
    assert joint_table_within(sets, work_limit=1_000) is None
    assert joint_table_within(sets, sampling=True, work_limit=1_000) is None
    small = structured_sets(np.random.default_rng(4), 4)
    table = joint_table_within(small, work_limit=10**9)
    assert table is not None and np.array_equal(table.counts, joint_table(small).counts)


def test_split_terms_by_lists_by_profiles_and_by_the_dynamic_programme_agree(monkeypatch) -> None:
    """A legal 5-player corner (5 answers, 200 failed solves, sets of 450-1,000 cases): the terms of
    :func:`count_joint_split` go three ways — by profiles of the coarse players (:class:`_Completions`:
    every term of two or more players' holes), met in the middle as lists (the terms of three players'
    holes when the completions table is declined) and by the dynamic programme (the asking player's
    superset as the root: a class tensor of three coarse players too large, or the table declined) —
    and the sum equals the dynamic programme on the sets themselves either way (brute force is out of
    reach here; test_answers_then_many_failed_solves_equal_brute_force checks the terms against brute
    force on small sets)."""
    import pi_env.solvers.joint_holes as holes
    from pi_env.solvers.analysis import failed_solve_supersets

    k, sets = _failed_solve_position(23, 5, 200)
    p = k.player
    unknown = [q for q in range(5) if q != p]
    sups = failed_solve_supersets(k)
    expected = count_joint(sets[p], [sets[q] for q in unknown])
    assert expected.sum() > 0
    real_listed, real_completions, real_count = holes.count_listed, holes._Completions, holes.count_joint
    for table_steps in (holes.MAX_TABLE_STEPS, 0):
        log: list = []

        class Spy(real_completions):  # type: ignore[misc, valid-type]
            def __init__(self, coarse):
                super().__init__(coarse)
                log.append(("profiles", len(coarse), self.ok))

        monkeypatch.setattr(holes, "count_listed", lambda *a: log.append(("listed",)) or real_listed(*a))
        monkeypatch.setattr(holes, "_Completions", Spy)
        monkeypatch.setattr(holes, "count_joint", lambda own, o: log.append(("dp", len(o))) or real_count(own, o))
        monkeypatch.setattr(holes, "MAX_TABLE_STEPS", table_steps)
        counts = holes.count_joint_split(sups[p], [sets[q] for q in unknown], [sups[q] for q in unknown])
        monkeypatch.undo()
        assert np.array_equal(np.where(sets[p], counts, 0), expected)
        if table_steps:  # all four players' holes, each three and each two with the supersets: by profiles
            assert log[:11] == [("profiles", 0, True)] + [("profiles", 1, True)] * 4 + [("profiles", 2, True)] * 6
            assert ("profiles", 3, False) in log and "listed" not in {x[0] for x in log}
        else:  # declined: the holes of four and of three players met in the middle, the others by the dp
            assert log[:10] == [("profiles", 0, True), ("listed",)] + [("profiles", 1, True), ("listed",)] * 4
            assert log.count(("listed",)) == 5 and log.count(("dp", 4)) == 11
        assert log[-1] == ("dp", 4)  # the supersets last
