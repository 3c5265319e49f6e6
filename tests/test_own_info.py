"""The batched own-information filter (issue #12 item 2, issue #13 item 4): :mod:`pi_env.solvers.own_info`
equals the solver's reference filter (:func:`pi_env.solvers.case_bits` of the player's
:class:`~pi_env.solvers.Knowledge`, and the plain numpy :func:`pi_env.solvers.case_mask_reference`) on
many random positions — 2 to 5 players, both editions, the duel, Solo Time Attack — and its query gains
equal the hint module's brute force (:func:`pi_env.solvers.hints.information_gains` over
:func:`~pi_env.solvers.hints.answer_matrix`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pi_env.core.constants import INVESTIGATE_BASE, NUM_CASES, SOLVE_BASE, TYPE_OFFSETS, case_index
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, reset_done, step_inplace
from pi_env.engine import solo as S
from pi_env.solvers import case_bits, case_mask_reference, knowledge_from_observation
from pi_env.solvers.hints import answer_matrix, information_gains
from pi_env.solvers.own_info import (OWN_FEATURES, OWN_LAYOUT, QUERY_GAINS, adjacency_words, observation_case_mask,
                                     observation_features, own_case_mask, own_features, query_gains,
                                     solo_features, solo_observation_case_mask, solo_observation_features,
                                     solo_query_gains)
from pi_env.solvers.tables import from_bitset
from helpers import assert_jit_off_agrees


def random_positions(config, batch, seed, steps, solve_rate=0.12):
    """Yield states of ``batch`` games after each of ``steps`` random steps: clues and
    investigators mostly, solves now and then (right ones peek at the state, so correct solves
    and later rounds occur); finished games restart."""
    state = init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    acts = np.zeros(batch, dtype=np.int64)
    for _ in range(steps):
        legal = legal_action_mask(state)
        for b in range(batch):
            queries = np.flatnonzero(legal[b, :SOLVE_BASE])
            if rng.random() > solve_rate and queries.size:
                acts[b] = rng.choice(queries)
            elif rng.random() < 0.4:
                s, e, l = (int(v) for v in state.case[b, state.current_player[b]])
                acts[b] = SOLVE_BASE + case_index(s, e, l)
            else:
                acts[b] = SOLVE_BASE + rng.integers(NUM_CASES)
        step_inplace(state, acts, config)
        yield state
        reset_done(state, config)


def reference_mask(obs_row, P, board, p):
    """The solver's own filter from the observation (numba reference, row p of case_bits)."""
    k = knowledge_from_observation(obs_row, P, board, player=p)
    return from_bitset(case_bits(k)[p]), k


def features_of(mask):
    """The 38 own features of a case set, plain numpy (float64)."""
    n = int(mask.sum())
    out = np.zeros(OWN_FEATURES)
    if n == 0:
        return out
    cube = mask.reshape(12, 10, 14)
    out[:12] = cube.sum(axis=(1, 2)) / n
    out[12:22] = cube.sum(axis=(0, 2)) / n
    out[22:36] = cube.sum(axis=(0, 1)) / n
    out[36] = math.log2(n) / math.log2(NUM_CASES)
    out[37] = 1 / n
    return out


CONFIGS = [dict(num_players=2), dict(num_players=3), dict(num_players=4), dict(num_players=5),
           dict(num_players=3, edition="first"), dict(num_players=5, edition="first"),
           dict(num_players=2, mode="duel"), dict(num_players=4, variants=("nick-of-time",))]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: "-".join(str(v) for v in k.values()))
def test_state_and_observation_filters_equal_the_solvers_filter(kwargs):
    config = GameConfig(**kwargs)
    P, board = config.num_players, config.board
    checked = nonempty_failed = solved = 0
    sizes = set()
    for i, state in enumerate(random_positions(config, 6, seed=P * 10 + len(kwargs), steps=36)):
        if i % 3:
            continue
        players = np.arange(state.batch_size) % P
        mask = np.empty((state.batch_size, NUM_CASES), dtype=bool)
        feats = own_features(state, board, players, mask=mask)
        for p in range(P):
            obs = observe(state, p)
            omask = np.empty_like(mask)
            ofeats = observation_features(obs, P, board, mask=omask)
            smask = own_case_mask(state, board, p)
            for b in range(state.batch_size):
                ref, k = reference_mask(obs[b], P, board, p)
                assert np.array_equal(smask[b], ref), (b, p)
                assert np.array_equal(omask[b], ref), (b, p)
                assert np.allclose(ofeats[b], features_of(ref), atol=1e-6)
                assert ref[case_index(*(int(v) for v in state.case[b, p]))] or state.done[b]
                if players[b] == p:
                    assert np.array_equal(mask[b], ref)
                    assert np.array_equal(feats[b], ofeats[b])
                if (b + i) % 5 == 0:  # the plain numpy reference too
                    assert np.array_equal(case_mask_reference(k), ref)
                checked += 1
                sizes.add(int(ref.sum()))
                nonempty_failed += bool(state.failed[b, p].any())
                solved += bool(state.solved_case[b, p] >= 0)
    assert checked >= 100 and nonempty_failed and len(sizes) > 10
    assert solved or config.is_duel


def test_hand_worked_position():
    """One clue answer worked out by hand: a trace on suspect x leaves the suspects whose tiles
    lie next to x's tile, minus the held case's suspect."""
    config = GameConfig(num_players=2)
    state = init(config, 1, seed=5)
    x = 3  # suspect 3's clue card, answered for player 0
    state.card_place[0, x] = 1  # on the display (ON_DISPLAY)
    state.current_player[0] = 0
    step_inplace(state, np.array([x]), config)
    td, adj = state.tile_district[0], config.board.adjacency
    own_s, held = int(state.case[0, 0, 0]), state.case[0, 1]
    answer = state.last_answer[0, 0]
    if own_s == x:
        want_s = {x}
    elif adj[td[x], td[own_s]]:
        want_s = {y for y in range(12) if y != x and adj[td[x], td[y]]} - {int(held[0])}
    else:
        want_s = {y for y in range(12) if y != x and not adj[td[x], td[y]]} - {int(held[0])}
    assert answer in (0, 1, 2)
    f = own_features(state, config.board, 0)[0]
    n = len(want_s) * 9 * 13
    assert round(1 / f[37]) == n
    assert set(np.flatnonzero(f[:12])) == want_s
    assert np.allclose(f[:12][sorted(want_s)], 1 / len(want_s))


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_query_gains_equal_the_hint_modules_brute_force(num_players):
    config = GameConfig(num_players=num_players)
    P, board = num_players, config.board
    checked = 0
    for i, state in enumerate(random_positions(config, 4, seed=40 + P, steps=30, solve_rate=0.05)):
        if i % 4:
            continue
        for p in range(P):
            g = query_gains(state, board, p)
            obs = observe(state, p)
            g_obs = np.empty_like(g)
            observation_features(obs, P, board, gains=g_obs)
            assert np.array_equal(g, g_obs)
            for b in range(state.batch_size):
                ref, k = reference_mask(obs[b], P, board, p)
                cases = np.flatnonzero(ref)
                actions = np.arange(SOLVE_BASE)
                want = information_gains(answer_matrix(k, actions, cases), np.ones(cases.size))
                placed = state.inv_district[b, p, :state.inv_count[b, p]]
                want[INVESTIGATE_BASE + placed] = 0.0
                assert np.allclose(g[b], want, atol=2e-5), (b, p, np.abs(g[b] - want).max())
                checked += 1
    assert checked >= 40


def test_query_gains_hand_values():
    """Nothing asked yet, 2 players: a suspect clue splits the 11 suspects left into spot (1),
    trace (the neighbours) and nothing; the gain is that split's entropy."""
    config = GameConfig(num_players=2)
    state = init(config, 1, seed=11)
    g = query_gains(state, config.board, 0)[0]
    td, adj = state.tile_district[0], config.board.adjacency
    held_s = int(state.case[0, 1, 0])
    for x in range(12):
        if x == held_s:
            assert g[x] == pytest.approx(
                _entropy([sum(1 for y in range(12) if y not in (x,) and adj[td[x], td[y]]),
                          sum(1 for y in range(12) if y != x and not adj[td[x], td[y]])]), abs=1e-5)
            continue
        groups = [1, sum(1 for y in range(12) if y not in (x, held_s) and adj[td[x], td[y]]),
                  sum(1 for y in range(12) if y not in (x, held_s) and not adj[td[x], td[y]])]
        assert g[x] == pytest.approx(_entropy(groups), abs=1e-5)


def _entropy(sizes):
    n = sum(sizes)
    return -sum(k / n * math.log2(k / n) for k in sizes if k)


def _solo_reference(solo_obs):
    """The solver's filter of a solo position through the 2-player view the agents get."""
    from pi_env.core.board import DAYTIME
    from pi_env.experiments.strategy_benchmark import standard_view

    k = knowledge_from_observation(standard_view(solo_obs), 2, DAYTIME)
    return from_bitset(case_bits(k)[0]), k


@pytest.mark.parametrize("use_display", [False, True])
def test_solo_filter_equals_the_solvers_filter(use_display):
    config = S.SoloConfig(use_display=use_display)
    state = S.init(config, 10, seed=3 + use_display)
    rng = np.random.default_rng(5)
    checked = with_failed = 0
    for step in range(14):
        legal = S.legal_action_mask(state)
        acts = np.array([rng.choice(np.flatnonzero(m[:SOLVE_BASE])) if rng.random() < 0.8
                         else SOLVE_BASE + int(rng.integers(NUM_CASES)) for m in legal])
        S.step_inplace(state, acts, config)
        obs = S.observe(state)
        mask = np.empty((10, NUM_CASES), dtype=bool)
        gains = np.empty((10, QUERY_GAINS), dtype=np.float32)
        f = solo_features(state, config.board, mask=mask, gains=gains)
        omask = solo_observation_case_mask(obs, config.board)
        og = np.empty_like(gains)
        of = solo_observation_features(obs, config.board, gains=og)
        assert np.array_equal(f, of) and np.array_equal(mask, omask) and np.array_equal(gains, og)
        assert np.array_equal(solo_query_gains(state, config.board), gains)
        for b in range(10):
            ref, k = _solo_reference(obs[b])
            assert np.array_equal(mask[b], ref)
            assert np.allclose(f[b], features_of(ref), atol=1e-6)
            if step % 4 == 0:
                cases = np.flatnonzero(ref)
                want = information_gains(answer_matrix(k, np.arange(SOLVE_BASE), cases), np.ones(cases.size))
                want[INVESTIGATE_BASE + np.flatnonzero(state.inv_placed[b])] = 0.0
                assert np.allclose(gains[b], want, atol=2e-5)
            if not state.done[b]:
                assert mask[b, S.case_of(state, b)]
            with_failed += bool(state.failed[b].any())
            checked += 1
    assert checked == 140 and with_failed
    assert np.array_equal(solo_observation_case_mask(obs[0], config.board), omask[0])


def test_layout_and_feature_ranges():
    assert sum(int(np.prod(s)) for _, s in OWN_LAYOUT.values()) == OWN_FEATURES
    assert [o for o, _ in OWN_LAYOUT.values()] == [0, 12, 22, 36, 37]
    words = adjacency_words(GameConfig().board)
    adj = GameConfig().board.adjacency
    for D in range(14):
        for d in range(14):
            field = (int(words[D]) >> (4 * d)) & 15
            assert field == (1 if d == D else (4 if adj[D, d] else 0))
    assert TYPE_OFFSETS == (0, 12, 22)


def test_out_buffers_and_bad_input():
    config = GameConfig(num_players=3)
    state = init(config, 4, seed=1)
    wide = np.zeros((4, 50), dtype=np.float32)
    got = own_features(state, config.board, [0, 1, 2, 0], out=wide[:, 5:5 + OWN_FEATURES])
    assert np.array_equal(wide[:, 5:43], own_features(state, config.board, [0, 1, 2, 0]))
    assert got.base is wide and not wide[:, :5].any() and not wide[:, 43:].any()
    with pytest.raises(PIError, match="player must be 0..2"):
        own_features(state, config.board, 3)
    with pytest.raises(PIError, match=r"out must be float32\[4, 38\]"):
        own_features(state, config.board, 0, out=np.zeros((4, 37), np.float32))
    with pytest.raises(PIError, match=r"mask must be bool\[4, 1680\]"):
        own_features(state, config.board, 0, mask=np.zeros((4, 1680), np.int8))
    with pytest.raises(PIError, match=r"3-player observations must be int\[B, 6354\]"):
        observation_features(observe(state, 0)[:, :-1], 3, config.board)
    with pytest.raises(PIError, match="solo observations"):
        solo_observation_features(np.zeros((2, 10), np.int16), config.board)
    assert observation_case_mask(observe(state, 1)[0], 3, config.board).shape == (NUM_CASES,)


def test_a_bad_board_is_one_line_naming_it():
    """``board`` neither a Board nor a ``bool[14, 14]`` adjacency: a one-line PIError naming it (was an
    IndexError inside :func:`adjacency_words`), for :func:`joint_case_counts` at every player count
    and the other readers of a board; the adjacency as an array gives the Board's counts."""
    from pi_env.solvers.own_info import joint_case_counts, joint_features

    head = r"^board must be a Board or its district adjacency bool\[14, 14\], got "
    for P in (2, 3, 4, 5):
        config = GameConfig(num_players=P)
        state = init(config, 2, seed=P)
        for bad, got in ((None, "NoneType"), (np.zeros((13, 13), bool), r"bool\[13, 13\]"), ("daytime", "str"),
                         (np.zeros((14, 14), np.float32), r"float32\[14, 14\]")):
            for fn in (joint_case_counts, joint_features, own_features):
                with pytest.raises(PIError, match=head + got + "$"):
                    fn(state, bad, 0)
        assert np.array_equal(joint_case_counts(state, config.board.adjacency, 1),
                              joint_case_counts(state, config.board, 1))
        assert joint_case_counts(state, config.board, 1).sum(axis=1).min() > 0


_JIT_SCRIPT = """
import hashlib, sys
import numpy as np
sys.path.insert(0, 'tests')
from test_own_info import random_positions
from pi_env.engine import GameConfig
from pi_env.engine import solo as S
from pi_env.solvers.own_info import own_features, solo_features
h = hashlib.sha256()
config = GameConfig(num_players=3)
for state in random_positions(config, 3, seed=2, steps=12):
    g = np.empty((3, 50), np.float32); m = np.empty((3, 1680), bool)
    h.update(own_features(state, config.board, [0, 1, 2], mask=m, gains=g).tobytes())
    h.update(m.tobytes()); h.update(g.round(4).tobytes())
sc = S.SoloConfig(); st = S.init(sc, 3, seed=1)
for a in (3, 40, 20, 44):
    S.step_inplace(st, np.full(3, a), sc)
    g = np.empty((3, 50), np.float32)
    h.update(solo_features(st, sc.board, gains=g).tobytes()); h.update(g.round(4).tobytes())
print(h.hexdigest())
"""


def test_jit_off_path_agrees():
    """docs/contributing.md §C5: the kernels run as plain Python with NUMBA_DISABLE_JIT=1 and give the same
    features (gains compared to 4 decimals: float summation order may differ)."""
    assert_jit_off_agrees(_JIT_SCRIPT, timeout=300)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_joint_features_equal_analyze(num_players):
    """The exact posterior (all players' answers) equals the solver's analysis of the observation."""
    from pi_env.solvers import analyze_knowledge
    from pi_env.solvers.own_info import JOINT_FEATURES, joint_features, seat_case_masks

    config = GameConfig(num_players=num_players)
    P, board = num_players, config.board
    checked = differs = 0
    for i, state in enumerate(random_positions(config, 3, seed=70 + P, steps=24 if P < 4 else 12)):
        if i % (3 if P < 4 else 4):
            continue
        players = (np.arange(3) + i) % P
        f = joint_features(state, board, players)
        masks, sizes = seat_case_masks(state, board, players)
        part = np.full((3, JOINT_FEATURES), -7.0, dtype=np.float32)
        joint_features(state, board, players, out=part, rows=np.array([False, True, False]))
        assert np.array_equal(part[1], f[1]) and (part[[0, 2]] == -7).all()
        own = own_features(state, board, players)
        for b in range(3):
            p = int(players[b])
            obs = observe(state, p)[b]
            a = analyze_knowledge(knowledge_from_observation(obs, P, board, player=p), strict=False)
            assert np.allclose(f[b, :12], a.suspect, atol=1e-6)
            assert np.allclose(f[b, 12:22], a.evidence, atol=1e-6)
            assert np.allclose(f[b, 22:36], a.location, atol=1e-6)
            assert f[b, 36] == np.float32(math.log2(a.count) / math.log2(NUM_CASES))
            assert np.array_equal(masks[b, 0], reference_mask(obs, P, board, p)[0])
            assert sizes[b, 1] == 1 and masks[b, 1, case_index(*(int(v) for v in state.case[b, (p + 1) % P]))]
            differs += not np.allclose(f[b, :36], own[b, :36], atol=1e-6)
            checked += 1
    assert checked >= 6
    assert (differs == 0) == (num_players == 2)  # 2 players: the own set is the exact posterior


def test_failed_flags_apply_without_the_attempted_flag():
    """A view rebuilt from observations may carry failed solves without ``attempted``: the filter
    reads the failed flags themselves (as the solver's reference does)."""
    config = GameConfig(num_players=2)
    state = init(config, 1, seed=4)
    own = case_index(*(int(v) for v in state.case[0, 0]))
    obs = observe(state, 0)
    start = flat_layout_failed(2)
    obs[0, start:start + NUM_CASES] = 1
    obs[0, start + own] = 0
    assert np.flatnonzero(observation_case_mask(obs, 2, config.board)[0]).tolist() == [own]
    state.failed[0, 0] = True
    state.failed[0, 0, own] = False
    assert not state.attempted[0, 0]
    assert np.flatnonzero(own_case_mask(state, config.board, 0)[0]).tolist() == [own]
    solo_config = S.SoloConfig()
    solo = S.init(solo_config, 1, seed=2)
    solo.failed[0] = True
    solo.failed[0, S.case_of(solo, 0)] = False
    assert solo.wrong_solves[0] == 0
    mask = np.empty((1, NUM_CASES), dtype=bool)
    solo_features(solo, solo_config.board, mask=mask)
    assert np.flatnonzero(mask[0]).tolist() == [S.case_of(solo, 0)]
    assert np.array_equal(solo_observation_case_mask(S.observe(solo), solo_config.board), mask)


def flat_layout_failed(num_players):
    from pi_env.engine import observation_layout

    return observation_layout(num_players)["failed"][0]


def test_disjoint_pair_counts_equal_count_joint_on_random_sets():
    """The 4-player joint count (two unknown players) by inclusion–exclusion equals
    :func:`pi_env.solvers.joint.count_joint` exactly on random sets of every density (empty, a few
    cases, full)."""
    from pi_env.solvers.joint import count_joint
    from pi_env.solvers.own_info import disjoint_pair_counts

    rng = np.random.default_rng(11)
    densities = (0.0, 0.002, 0.01, 0.05, 0.3, 0.8, 1.0)
    nonzero = 0
    for trial in range(80):
        sets = [rng.random(NUM_CASES) < d for d in rng.choice(densities, size=3)]
        ids = [np.flatnonzero(m).astype(np.int16) for m in sets]
        joint = np.full(NUM_CASES, -1, dtype=np.int64)
        positive = disjoint_pair_counts(ids[0], ids[0].size, ids[1], ids[1].size, ids[2], ids[2].size, joint)
        got = np.zeros(NUM_CASES, dtype=np.int64)
        got[ids[0]] = joint[:ids[0].size]
        want = count_joint(sets[0], sets[1:])
        assert np.array_equal(got, want), trial
        assert positive == int((want > 0).sum())
        nonzero += positive > 0
    full = np.arange(NUM_CASES, dtype=np.int16)
    joint = np.empty(NUM_CASES, dtype=np.int64)
    disjoint_pair_counts(full, NUM_CASES, full, NUM_CASES, full, NUM_CASES, joint)
    assert (joint == (11 * 10) * (9 * 8) * (13 * 12)).all()  # suspects, evidence, locations of c2, c3
    assert nonzero >= 30


def test_joint_features_at_5_players_are_the_per_row_count_joints_bit_for_bit():
    """At 5 players :func:`joint_features` (the counts of one numba call,
    :func:`disjoint_triple_counts`) gives the bytes of the per-row path it replaced
    (:func:`~pi_env.solvers.own_info._per_row_joint_features`: one
    :func:`pi_env.solvers.joint.count_joint` per row, the same numpy sums), from the deal to late
    rounds, for every seat; ``rows`` fills only those rows."""
    from pi_env.solvers.own_info import JOINT_FEATURES, _per_row_joint_features, joint_features

    config = GameConfig(num_players=5)
    B, checked = 6, 0
    states = [init(config, B, seed=5)] + [s for i, s in enumerate(random_positions(config, B, 55, 48)) if i % 8 == 7]
    for i, state in enumerate(states):
        for p in range(5):
            players = (np.arange(B) + p) % 5
            got = joint_features(state, config.board, players)
            want = np.full((B, JOINT_FEATURES), np.nan, dtype=np.float32)
            _per_row_joint_features(state, config.board, players, want, np.arange(B))
            assert got.tobytes() == want.tobytes(), (i, p)
            assert (np.abs(got[:, :12].sum(axis=1) - 1) < 1e-5).all()  # a posterior on every row
            checked += B
    part = np.full((B, JOINT_FEATURES), -7.0, dtype=np.float32)
    joint_features(states[-1], config.board, 0, out=part, rows=np.arange(B) % 2 == 1)
    assert (part[::2] == -7.0).all() and part[1::2].tobytes() == joint_features(states[-1], config.board, 0)[1::2].tobytes()
    assert checked == B * 5 * 7


@pytest.mark.parametrize("seed", [0, 1])
def test_joint_case_counts_at_4_players_equal_count_joint(seed):
    """At 4 players :func:`joint_case_counts` (one numba call) equals
    :func:`pi_env.solvers.joint.count_joint` of :func:`seat_case_masks` row by row, on engine
    positions from the deal (large sets) to late in rounds."""
    from pi_env.solvers.joint import count_joint
    from pi_env.solvers.own_info import joint_case_counts, seat_case_masks

    config = GameConfig(num_players=4)
    B, checked, large = 6, 0, 0
    states = [init(config, B, seed=seed)] + [s for i, s in enumerate(random_positions(config, B, 40 + seed, 48))
                                              if i % 6 == 5]
    for i, state in enumerate(states):
        players = (np.arange(B) + i) % 4
        got = joint_case_counts(state, config.board, players)
        masks, sizes = seat_case_masks(state, config.board, players)
        for b in range(B):
            want = (count_joint(masks[b, 0], [masks[b, 2], masks[b, 3]]) if sizes[b, 0] and sizes[b, 1]
                    else np.zeros(NUM_CASES, dtype=np.int64))
            assert np.array_equal(got[b], want), (i, b)
            checked += 1
            large += int(sizes[b, 0]) > 1000
    assert checked == B * len(states) and large >= B
