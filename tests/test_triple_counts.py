"""The 5-player joint count in numba (issue #30 item 1):
:func:`pi_env.solvers.own_info.disjoint_triple_counts` — per case of the asking player, the triples of
the three unknown players' cases pairwise disjoint per type with each other and with it — equals
:func:`pi_env.solvers.joint.count_joint` and a brute-force enumeration exactly, by both of its
methods (boxes, and one pair count per case of the smallest set), on random sets of every density
(empty, one case, full), on sets made of boxes with holes, and on the sets of 5-player engine
positions from the deal to late in rounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES, case_index
from pi_env.engine import GameConfig, init
from pi_env.solvers.joint import count_joint
from pi_env.solvers.own_info import (_box_triple_counts, _outer_triple_counts, case_boxes,
                                     disjoint_triple_counts, seat_case_masks)
from test_own_info import random_positions

_S, _E, _L = np.arange(NUM_CASES) // 140, (np.arange(NUM_CASES) // 14) % 10, np.arange(NUM_CASES) % 14


def _brute_force(sets: list[np.ndarray]) -> np.ndarray:
    """``int64[1680]``: per case of ``sets[0]`` the triples of ``sets[1] × sets[2] × sets[3]``
    pairwise disjoint per type with each other and with it, by enumerating the triples."""
    out = np.zeros(NUM_CASES, dtype=np.int64)
    ids = [np.flatnonzero(m) for m in sets]
    for a, b, d in itertools.product(*ids[1:]):
        if len({_S[a], _S[b], _S[d]}) == 3 and len({_E[a], _E[b], _E[d]}) == 3 and len({_L[a], _L[b], _L[d]}) == 3:
            ok = (_S[ids[0]] != _S[a]) & (_S[ids[0]] != _S[b]) & (_S[ids[0]] != _S[d])
            ok &= (_E[ids[0]] != _E[a]) & (_E[ids[0]] != _E[b]) & (_E[ids[0]] != _E[d])
            ok &= (_L[ids[0]] != _L[a]) & (_L[ids[0]] != _L[b]) & (_L[ids[0]] != _L[d])
            out[ids[0][ok]] += 1
    return out


def _all_methods(sets: list[np.ndarray]) -> list[np.ndarray]:
    """The counts of ``sets[0]`` against ``sets[1:]`` (``bool[1680]`` each) by
    :func:`disjoint_triple_counts` (its own choice of method, checking the number of positive
    counts it returns), by boxes, and by each set as the outer one; each ``int64[1680]``."""
    ids = [np.flatnonzero(m).astype(np.int16) for m in sets]
    n = [i.size for i in ids]
    results = []
    joint = np.full(NUM_CASES, -1, dtype=np.int64)
    positive = disjoint_triple_counts(ids[0], n[0], ids[1], n[1], ids[2], n[2], ids[3], n[3], joint)
    got = np.zeros(NUM_CASES, dtype=np.int64)
    got[ids[0]] = joint[:n[0]]
    assert positive == int((got > 0).sum())
    results.append(got)
    rows = np.empty((12, 10), dtype=np.int64)
    boxes = [np.empty((120, 3), dtype=np.int64) for _ in range(3)]
    k = [case_boxes(ids[j], n[j], rows, boxes[j - 1]) for j in (1, 2, 3)]
    for j in (1, 2, 3):  # the boxes are disjoint and make up the set
        cover = np.zeros(NUM_CASES, dtype=np.int64)
        for s, e, l in boxes[j - 1][:k[j - 1]]:
            cover += (((s >> _S) & 1) & ((e >> _E) & 1) & ((l >> _L) & 1)).astype(np.int64)
        assert np.array_equal(cover, sets[j].astype(np.int64))
    joint[:] = -1
    _box_triple_counts(ids[0], n[0], boxes[0], k[0], boxes[1], k[1], boxes[2], k[2], joint)
    got = np.zeros(NUM_CASES, dtype=np.int64)
    got[ids[0]] = joint[:n[0]]
    results.append(got)
    if n[1] and n[2] and n[3]:
        for j in (1, 2, 3):
            u, v = [i for i in (1, 2, 3) if i != j]
            joint[:] = -1
            _outer_triple_counts(ids[0], n[0], ids[j], n[j], ids[u], n[u], ids[v], n[v], joint)
            got = np.zeros(NUM_CASES, dtype=np.int64)
            got[ids[0]] = joint[:n[0]]
            results.append(got)
    return results


def _boxy_set(rng: np.random.Generator) -> np.ndarray:
    """A random union of a few random boxes with a few cases removed (as investigators' answers and
    failed solves leave the sets)."""
    m = np.zeros(NUM_CASES, dtype=bool)
    for _ in range(rng.integers(1, 5)):
        s, e, l = (rng.random(12) < rng.random(), rng.random(10) < rng.random(), rng.random(14) < rng.random())
        m |= s[_S] & e[_E] & l[_L]
    m[rng.integers(0, NUM_CASES, size=rng.integers(0, 6))] = False
    return m


def test_random_sets_equal_count_joint():
    """120 quadruples of random sets (densities from empty and single cases to full; plain random
    and unions of boxes with holes): every method equals count_joint exactly."""
    rng = np.random.default_rng(30)
    densities = (0.0, 0.001, 0.004, 0.02, 0.1, 0.5, 0.9, 1.0)
    nonzero = 0
    for trial in range(120):
        sets = []
        for _ in range(4):
            if rng.random() < 0.4:
                sets.append(_boxy_set(rng))
            elif rng.random() < 0.1:
                sets.append(np.eye(NUM_CASES, dtype=bool)[rng.integers(NUM_CASES)])  # one case
            else:
                sets.append(rng.random(NUM_CASES) < rng.choice(densities))
        want = count_joint(sets[0], sets[1:])
        for got in _all_methods(sets):
            assert np.array_equal(got, want), trial
        nonzero += bool(want.any())
    assert nonzero >= 60


def test_small_sets_equal_the_brute_force():
    """Small random sets (up to a few dozen cases each): every method equals the enumeration of
    the triples (independent of count_joint), and a hand-worked case."""
    rng = np.random.default_rng(31)
    for trial in range(40):
        sets = [rng.random(NUM_CASES) < d for d in rng.choice((0.0, 0.003, 0.01, 0.03), size=3)]
        sets.insert(0, rng.random(NUM_CASES) < 0.2)
        want = _brute_force(sets)
        for got in _all_methods(sets):
            assert np.array_equal(got, want), trial
    # by hand: others hold (0,0,0), (1,1,1) or (0,1,2), and (2,2,2); own cases (3,3,3) and (1,0,5)
    sets = [np.zeros(NUM_CASES, dtype=bool) for _ in range(4)]
    sets[0][[case_index(3, 3, 3), case_index(1, 0, 5)]] = True
    sets[1][case_index(0, 0, 0)] = True
    sets[2][[case_index(1, 1, 1), case_index(0, 1, 2)]] = True
    sets[3][case_index(2, 2, 2)] = True
    for got in _all_methods(sets):
        # (3,3,3): only (0,0,0),(1,1,1),(2,2,2) is pairwise disjoint ((0,1,2) shares suspect 0);
        # (1,0,5) meets (0,0,0) in evidence 0: no triple
        assert got[case_index(3, 3, 3)] == 1 and got[case_index(1, 0, 5)] == 0 and got.sum() == 1


def test_garbage_beyond_n_and_unsorted_ids():
    """The kernels read only ``[:n]`` of their buffers (greedy's decision kernel reuses them row
    after row) and take the ids in any order: every method, on ``int16[1680]`` buffers whose
    entries past ``n`` are random (negative and past 1679 too) and the ids shuffled, equals the
    enumeration of the triples; ``joint`` is written on ``[:n_own]`` only."""
    rng = np.random.default_rng(33)
    nonzero = 0
    for trial in range(30):
        sets = [rng.random(NUM_CASES) < d for d in (0.2, *rng.choice((0.003, 0.01, 0.03), size=3))]
        want = _brute_force(sets)
        ids = [rng.permutation(np.flatnonzero(m)).astype(np.int16) for m in sets]
        n = [i.size for i in ids]
        bufs = [rng.integers(-32768, 32768, size=NUM_CASES).astype(np.int16) for _ in range(4)]
        for b, i in zip(bufs, ids):
            b[:i.size] = i
        rows = np.empty((12, 10), dtype=np.int64)
        boxes = [np.empty((120, 3), dtype=np.int64) for _ in range(3)]
        k = [case_boxes(bufs[j], n[j], rows, boxes[j - 1]) for j in (1, 2, 3)]
        runs = [lambda j: disjoint_triple_counts(bufs[0], n[0], bufs[1], n[1], bufs[2], n[2], bufs[3], n[3], j),
                lambda j: _box_triple_counts(bufs[0], n[0], boxes[0], k[0], boxes[1], k[1], boxes[2], k[2], j)]
        for o, u, v in ((1, 2, 3), (2, 1, 3), (3, 1, 2)):
            runs.append(lambda j, o=o, u=u, v=v: _outer_triple_counts(bufs[0], n[0], bufs[o], n[o], bufs[u], n[u],
                                                                      bufs[v], n[v], j))
        for run in runs:
            joint = np.full(NUM_CASES, -7, dtype=np.int64)
            run(joint)
            assert (joint[n[0]:] == -7).all(), trial
            got = np.zeros(NUM_CASES, dtype=np.int64)
            got[ids[0]] = joint[:n[0]]
            assert np.array_equal(got, want), trial
        nonzero += bool(want.any())
    assert nonzero >= 25, nonzero


def test_full_sets():
    """Every set full: each own case has ``(11·10·9)·(9·8·7)·(13·12·11)`` triples (the suspects,
    evidence and locations of c2, c3, c4 avoiding the case's and each other)."""
    full = np.ones(NUM_CASES, dtype=bool)
    for got in _all_methods([full] * 4):
        assert (got == (11 * 10 * 9) * (9 * 8 * 7) * (13 * 12 * 11)).all()


def _positions(config: GameConfig, batch: int, seed: int, steps: int):
    """States of ``batch`` 5-player games at the deal, then after each of ``steps`` random steps of
    test_own_info's ``random_positions`` (clues and investigators mostly, solves now and then)."""
    yield init(config, batch, seed=seed)
    yield from random_positions(config, batch, seed, steps)


@pytest.mark.parametrize("edition", ["second", "first"])
def test_engine_positions_equal_count_joint(edition):
    """The sets of :func:`seat_case_masks` of 5-player engine positions (the deal: every set
    largest; then every 4th step of a query-heavy policy up to 80): every method equals
    count_joint of the same sets."""
    config = GameConfig(num_players=5, edition=edition)
    B, checked, large, broken = 4, 0, 0, 0
    for i, state in enumerate(_positions(config, B, 50 if edition == "second" else 51, 80)):
        if i % 4:
            continue
        players = (np.arange(B) + i) % 5
        masks, sizes = seat_case_masks(state, config.board, players)
        for b in range(B):
            if not (sizes[b, 0] and sizes[b, 1]):
                continue
            sets = [masks[b, 0], masks[b, 2], masks[b, 3], masks[b, 4]]
            want = count_joint(sets[0], sets[1:])
            for got in _all_methods(sets):
                assert np.array_equal(got, want), (i, b)
            checked += 1
            large += int(sizes[b, 0]) > 1000
            broken += state.failed[b].any()
    assert checked >= 70 and large >= B and broken >= 10


def test_joint_case_counts_at_5_players_equal_count_joint():
    """At 5 players :func:`pi_env.solvers.own_info.joint_case_counts` (one numba call,
    :func:`disjoint_triple_counts`) equals count_joint of :func:`seat_case_masks` row by row, from
    the deal to late in rounds."""
    from pi_env.solvers.own_info import joint_case_counts

    config = GameConfig(num_players=5)
    B, checked, positive = 6, 0, 0
    for i, state in enumerate(_positions(config, B, 52, 60)):
        if i % 6:
            continue
        players = (np.arange(B) + i) % 5
        got = joint_case_counts(state, config.board, players)
        masks, sizes = seat_case_masks(state, config.board, players)
        for b in range(B):
            want = (count_joint(masks[b, 0], [masks[b, 2], masks[b, 3], masks[b, 4]]) if sizes[b, 0] and sizes[b, 1]
                    else np.zeros(NUM_CASES, dtype=np.int64))
            assert np.array_equal(got[b], want), (i, b)
            checked += 1
            positive += bool(want.any())
    assert checked == 66 and positive >= 60


def test_joint_case_counts_at_5_players_ignore_the_hidden_cases():
    """docs/rules.md §9: the asking player's own case and the cases of seats 2, 3 and 4 (unknown to
    it) reach the 5-player joint counts only through the answers already given: changing them in
    the state (the answers kept) changes no count, from the deal to late in rounds with failed
    solves; changing the held case (seat 1, known) does change them (nearly every row)."""
    from pi_env.solvers.own_info import joint_case_counts

    config = GameConfig(num_players=5)
    B, rng, rows, held_changes = 6, np.random.default_rng(34), 0, 0
    for i, state in enumerate(_positions(config, B, 53, 60)):
        if i % 6:
            continue
        players = (np.arange(B) + i) % 5
        want = joint_case_counts(state, config.board, players)
        other = state.take(np.arange(B))
        for j in (0, 2, 3, 4):
            q = (players + j) % 5
            other.case[np.arange(B), q] = (other.case[np.arange(B), q] + rng.integers(1, 9, size=(B, 3))) % [12, 10, 14]
        assert not np.array_equal(other.case, state.case)
        assert np.array_equal(joint_case_counts(other, config.board, players), want), i
        held = state.take(np.arange(B))
        h = (players + 1) % 5
        held.case[np.arange(B), h] = (held.case[np.arange(B), h] + 1) % [12, 10, 14]
        held_changes += int((joint_case_counts(held, config.board, players) != want).any(axis=1).sum())
        rows += B
    assert rows == 66 and held_changes >= 60
