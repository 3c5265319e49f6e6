"""The 4-player joint count in numba (issue #30 item 2): :func:`pi_env.solvers.own_info.disjoint_pair_counts`
— per case of the asking player, the pairs of the two unknown players' cases disjoint per type
with each other and with it — equals :func:`pi_env.solvers.joint.count_joint` and a brute-force
enumeration exactly, by both of its methods forced (inclusion–exclusion, and boxes) and by its own
choice, on random sets of every density, on unions of boxes with holes (as failed solves leave
the sets), with garbage past ``n``, and on the sets of 4-player engine positions; so does
:func:`pi_env.solvers.own_info.pair_counts_of_rows`, the count of the sets given as location
masks, and :func:`~pi_env.solvers.own_info.seat_case_rows` gives :func:`seat_case_set`'s sets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES, case_index
from pi_env.engine import GameConfig, init
from pi_env.solvers.joint import count_joint
from pi_env.solvers.own_info import (adjacency_words, disjoint_pair_counts, failed_solve_words, held_case_of,
                                     members_of_rows, pair_counts_of_rows, pair_counts_with, pair_scratch,
                                     seat_case_masks, seat_case_rows, seat_case_set)
from test_own_info import random_positions
from test_triple_counts import _boxy_set

_S, _E, _L = np.arange(NUM_CASES) // 140, (np.arange(NUM_CASES) // 14) % 10, np.arange(NUM_CASES) % 14


def _brute_force(sets: list[np.ndarray]) -> np.ndarray:
    """``int64[1680]``: per case of ``sets[0]`` the pairs of ``sets[1] × sets[2]`` disjoint per type
    with each other and with it, by enumerating the pairs."""
    out = np.zeros(NUM_CASES, dtype=np.int64)
    ids = [np.flatnonzero(m) for m in sets]
    for a, b in itertools.product(ids[1], ids[2]):
        if _S[a] != _S[b] and _E[a] != _E[b] and _L[a] != _L[b]:
            o = ids[0]
            ok = (_S[o] != _S[a]) & (_S[o] != _S[b]) & (_E[o] != _E[a]) & (_E[o] != _E[b])
            ok &= (_L[o] != _L[a]) & (_L[o] != _L[b])
            out[o[ok]] += 1
    return out


def _rows(mask: np.ndarray) -> np.ndarray:
    """``int64[12, 10]``: the location masks of a case set ``bool[1680]`` (bit ``l`` of ``[s, e]``)."""
    return (mask.reshape(12, 10, 14).astype(np.int64) << np.arange(14)).sum(axis=2)


def _all_methods(sets: list[np.ndarray], garbage: "np.random.Generator | None" = None) -> list[np.ndarray]:
    """The counts of ``sets[0]`` against ``sets[1:]`` (``bool[1680]`` each) by
    :func:`disjoint_pair_counts`, by :func:`pair_counts_with` with each method forced (one
    scratch reused, after a call on other sets) and by :func:`pair_counts_of_rows` (the two sets as
    location masks), each ``int64[1680]``; the number of positive counts returned checked, ``joint``
    past ``n_own`` untouched. With ``garbage``: the ids shuffled, the buffers past ``n`` random."""
    ids = [np.flatnonzero(m).astype(np.int16) for m in sets]
    if garbage is not None:
        ids = [garbage.permutation(i) for i in ids]
    n = [i.size for i in ids]
    bufs = []
    for i in ids:
        b = (garbage.integers(-32768, 32768, size=NUM_CASES).astype(np.int16) if garbage is not None
             else np.zeros(NUM_CASES, dtype=np.int16))
        b[:i.size] = i
        bufs.append(b)
    scratch = pair_scratch()
    full = np.arange(NUM_CASES, dtype=np.int16)
    pair_counts_with(full, 700, full, 1500, full[::-1].copy(), 1600, np.empty(NUM_CASES, dtype=np.int64), scratch, 0)
    results = []
    for method in (None, -1, 0, 1, "rows"):
        joint = np.full(NUM_CASES, -7, dtype=np.int64)
        if method is None:
            positive = disjoint_pair_counts(bufs[0], n[0], bufs[1], n[1], bufs[2], n[2], joint)
        elif method == "rows":
            lists = [np.full(NUM_CASES, -5, dtype=np.int16) for _ in range(2)]
            positive = pair_counts_of_rows(bufs[0], n[0], _rows(sets[1]), n[1], _rows(sets[2]), n[2], lists[0],
                                           lists[1], joint, scratch)
        else:
            positive = pair_counts_with(bufs[0], n[0], bufs[1], n[1], bufs[2], n[2], joint, scratch, method)
        assert (joint[n[0]:] == -7).all()
        got = np.zeros(NUM_CASES, dtype=np.int64)
        got[ids[0]] = joint[:n[0]]
        assert positive == int((got > 0).sum())
        results.append(got)
    return results


def test_random_and_boxy_sets_equal_count_joint():
    """150 triples of random sets (densities from empty and single cases to full; plain random and
    unions of boxes with holes): every method equals count_joint exactly."""
    rng = np.random.default_rng(40)
    densities = (0.0, 0.001, 0.004, 0.02, 0.1, 0.5, 0.9, 1.0)
    nonzero = boxy = 0
    for trial in range(150):
        sets = []
        for _ in range(3):
            if rng.random() < 0.5:
                sets.append(_boxy_set(rng))
                boxy += 1
            elif rng.random() < 0.1:
                sets.append(np.eye(NUM_CASES, dtype=bool)[rng.integers(NUM_CASES)])  # one case
            else:
                sets.append(rng.random(NUM_CASES) < rng.choice(densities))
        want = count_joint(sets[0], sets[1:])
        for got in _all_methods(sets, rng if trial % 2 else None):
            assert np.array_equal(got, want), trial
        nonzero += bool(want.any())
    assert nonzero >= 60 and boxy >= 150


def test_small_sets_equal_the_brute_force():
    """Small random sets and unions of boxes: every method equals the enumeration of the pairs
    (independent of count_joint); and a hand-worked case."""
    rng = np.random.default_rng(41)
    for trial in range(40):
        sets = [rng.random(NUM_CASES) < d for d in rng.choice((0.0, 0.005, 0.02, 0.05), size=2)]
        if trial % 3 == 0:  # a small box with a hole
            m = np.zeros(NUM_CASES, dtype=bool)
            s, e, l = rng.random(12) < 0.3, rng.random(10) < 0.3, rng.random(14) < 0.3
            m |= s[_S] & e[_E] & l[_L]
            m[rng.integers(NUM_CASES, size=2)] = False
            sets[0] = m
        sets.insert(0, rng.random(NUM_CASES) < 0.3)
        want = _brute_force(sets)
        for got in _all_methods(sets, rng):
            assert np.array_equal(got, want), trial
    # by hand: seat 2 holds (0,0,0) or (1,1,1), seat 3 (2,2,2) or (0,3,3); own cases (3,4,4), (4,3,4)
    # and (5,5,5): (3,4,4) pairs with (0,0,0)&(2,2,2), (1,1,1)&(2,2,2), (1,1,1)&(0,3,3); (4,3,4) meets
    # (0,3,3) in evidence 3: 2; (5,5,5): 3
    sets = [np.zeros(NUM_CASES, dtype=bool) for _ in range(3)]
    sets[0][[case_index(3, 4, 4), case_index(4, 3, 4), case_index(5, 5, 5)]] = True
    sets[1][[case_index(0, 0, 0), case_index(1, 1, 1)]] = True
    sets[2][[case_index(2, 2, 2), case_index(0, 3, 3)]] = True
    for got in _all_methods(sets):
        assert got[case_index(3, 4, 4)] == 3 and got[case_index(4, 3, 4)] == 2 and got[case_index(5, 5, 5)] == 3
        assert got.sum() == 8


def test_full_sets_and_one_box():
    """Every set full: ``(11·10)·(9·8)·(13·12)`` pairs per own case; the three sets one box
    ``{1..11} × {1..9} × {1..13}`` (a 4-player deal): ``(10·9)·(8·7)·(12·11)`` per own case."""
    full = np.ones(NUM_CASES, dtype=bool)
    for got in _all_methods([full] * 3):
        assert (got == (11 * 10) * (9 * 8) * (13 * 12)).all()
    box = (_S > 0) & (_E > 0) & (_L > 0)
    for got in _all_methods([box] * 3):
        assert (got[box] == (10 * 9) * (8 * 7) * (12 * 11)).all() and (got[~box] == 0).all()


@pytest.mark.parametrize("edition", ["second", "first"])
def test_engine_positions_equal_count_joint(edition):
    """The sets of :func:`seat_case_masks` of 4-player engine positions (the deal, then every 4th
    step of a query-heavy policy with solves, wrong ones breaking the boxes, up to 72): every
    method equals count_joint of the same sets."""
    config = GameConfig(num_players=4, edition=edition)
    B, checked, large, broken = 4, 0, 0, 0
    states = [init(config, B, seed=60)] + list(random_positions(config, B, 61 if edition == "second" else 62, 72,
                                                                 solve_rate=0.3))
    for i, state in enumerate(states):
        if i % 4:
            continue
        players = (np.arange(B) + i) % 4
        masks, sizes = seat_case_masks(state, config.board, players)
        for b in range(B):
            if not (sizes[b, 0] and sizes[b, 1]):
                continue
            sets = [masks[b, 0], masks[b, 2], masks[b, 3]]
            want = count_joint(sets[0], sets[1:])
            for got in _all_methods(sets):
                assert np.array_equal(got, want), (i, b)
            checked += 1
            large += int(sizes[b, 0]) > 1000
            broken += bool(state.failed[b].any())
    assert checked >= 60 and large >= B and broken >= 5, (checked, large, broken)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_seat_case_rows_are_seat_case_sets(num_players):
    """:func:`seat_case_rows` (location masks) lists, through :func:`members_of_rows`, the cases of
    :func:`seat_case_set` in the same order, and the same size, for every seat seen by every player
    with and without the held case, on engine positions with clue cards, investigators (some
    suppressed), correct and failed solves; and a hand-made one: the deal's set of a seat whose
    held case is (0, 0, 0) is every case of suspects 1..11, evidences 1..9, locations 1..13."""
    config = GameConfig(num_players=num_players)
    words = adjacency_words(config.board)
    B, checked, failed, inv, single = 6, 0, 0, 0, 0
    members = np.empty(NUM_CASES, dtype=np.int16)
    listed = np.empty(NUM_CASES, dtype=np.int16)
    cnt = np.empty(36, dtype=np.int64)
    rows = np.full((12, 10), 99, dtype=np.int64)
    answer, inv_mask = np.empty(36, dtype=np.int8), np.empty(3, dtype=np.int64)
    for i, state in enumerate(random_positions(config, B, 70 + num_players, 48, solve_rate=0.25)):
        if i % 6:
            continue
        st = (state.spot, state.trace, state.front, state.inv_count, state.inv_district, state.inv_answer,
              state.inv_suppressed, state.solved_case, failed_solve_words(state.failed), state.failed)
        for b in range(B):
            for p in range(num_players):
                h = (p + 1) % num_players
                for held in (-1, int(held_case_of(state.case, b, h))):
                    for q in range(num_players):
                        n = seat_case_set(b, q, num_players, h, held, state.tile_district[b], words, st, True, answer,
                                          inv_mask, members, cnt)
                        k = seat_case_rows(b, q, num_players, h, held, state.tile_district[b], words, st, answer,
                                           inv_mask, rows)
                        assert k == n and members_of_rows(rows, listed) == n, (i, b, p, q)
                        assert np.array_equal(listed[:n], members[:n]), (i, b, p, q)
                        checked += 1
                        single += n == 1
            failed += bool(state.failed[b].any())
            inv += bool(state.inv_count[b].any())
    assert checked >= 500 and failed >= 3 and inv >= 6 and single >= 10, (checked, failed, inv, single)
    state = init(config, 1, seed=3)
    state.case[0, 1] = (0, 0, 0)
    st = (state.spot, state.trace, state.front, state.inv_count, state.inv_district, state.inv_answer,
          state.inv_suppressed, state.solved_case, failed_solve_words(state.failed), state.failed)
    n = seat_case_rows(0, 2, num_players, 1, 0, state.tile_district[0], words, st, answer, inv_mask, rows)
    assert n == 11 * 9 * 13
    assert (rows[0] == 0).all() and (rows[:, 0] == 0).all() and (rows[1:, 1:] == (1 << 14) - 2).all()
