"""The compact encoding (issue #12 item 1): every entry against an independent computation (the
solver's reference filter, the answer tables, the engine observation), its bounds, and information
hygiene (docs/rules.md §9): paired games that differ only in one player's own case give that player
identical encodings until an answer to it differs — 2 to 5 players, both editions, the duel, solo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES, SOLVE_BASE, case_index
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, decode_observation, init, observe
from pi_env.engine import solo as S
from pi_env.envs.encoders import encode_flat, flat_layout
from pi_env.solvers import Knowledge, case_bits, knowledge_from_observation
from pi_env.solvers.compact import (GAIN_SCALE, SOLO_COMPACT_SIZE, compact_bounds, compact_layout, compact_size,
                                    encode_compact, encode_solo_compact, solo_compact_bounds, solo_compact_layout)
from pi_env.solvers.own_info import (own_case_mask, own_features, query_gains, solo_features,
                                     solo_observation_features)
from pi_env.solvers.tables import from_bitset
from helpers import assert_jit_off_agrees, paired_games, step_pair
from test_own_info import CONFIGS, random_positions


def test_sizes_and_layout():
    assert [compact_size(P) for P in range(2, 6)] == [232, 240, 248, 256]
    L = compact_layout(3)
    assert list(L) == ["own_marginals", "own_log2_count", "own_p_best", "clue_gain", "district_gain", "held_case",
                       "held_clue_gain", "display", "own_inv_placed", "score", "attempted", "solved", "inv_left",
                       "public_log2_count", "public_certainty", "round", "tier", "rotation", "first_seat",
                       "deck_size", "to_move"]
    pos = 0
    for start, shape in L.values():
        assert start == pos
        pos += int(np.prod(shape))
    assert pos == compact_size(3) and L["public_certainty"][1] == (3, 3)
    assert SOLO_COMPACT_SIZE == 142 == sum(int(np.prod(s)) for _, s in solo_compact_layout().values())
    with pytest.raises(PIError, match="num_players must be 2..5"):
        compact_size(6)


def public_sets(obs_row, P, board, p):
    """Each seat's public case set (no held case), from the solver's reference filter."""
    k = knowledge_from_observation(obs_row, P, board, player=p)
    public = Knowledge(p, P, k.tile_district, k.adjacency, -1, k.events)
    return [from_bitset(bits) for bits in case_bits(public)], k


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: "-".join(str(v) for v in k.values()))
def test_every_entry_against_an_independent_computation(kwargs):
    config = GameConfig(**kwargs)
    P, board = config.num_players, config.board
    L = compact_layout(P)

    def part(x, name):
        start, shape = L[name]
        return x[..., start:start + int(np.prod(shape))].reshape(x.shape[:-1] + shape)

    fl = flat_layout(P)
    low, high = compact_bounds(config)
    checked = 0
    for i, state in enumerate(random_positions(config, 5, seed=90 + P, steps=30)):
        if i % 3:
            continue
        players = (np.arange(5) + i) % P
        mask = np.empty((5, NUM_CASES), dtype=bool)
        x = encode_compact(state, config, players, mask=mask)
        assert np.array_equal(mask, own_case_mask(state, board, players))
        assert ((x >= low) & (x <= high)).all()
        own = own_features(state, board, players)
        assert np.array_equal(x[:, :38], own)
        assert np.allclose(x[:, 38:88], query_gains(state, board, players) * np.float32(GAIN_SCALE), atol=1e-7)
        flat = encode_flat(state, config, players)
        for b in range(5):
            p = int(players[b])
            obs = observe(state, p)[b]
            o = decode_observation(obs, P)
            assert np.array_equal(part(x[b], "held_case"), o["held_case"])
            assert np.array_equal(part(x[b], "display"), o["display"])
            assert np.array_equal(part(x[b], "own_inv_placed"), o["inv_placed"][0])
            for name in ("attempted", "solved"):
                assert np.array_equal(part(x[b], name), o[name])
            assert np.allclose(part(x[b], "inv_left"), o["inv_left"] / 5)
            for name in ("score", "round", "tier", "rotation", "first_seat", "deck_size", "to_move"):
                start, shape = fl[name]
                want = flat[b, start:start + (int(np.prod(shape)) if shape else 1)]
                assert np.allclose(part(x[b], name).reshape(-1), want, atol=1e-6), name
            sets, k = public_sets(obs, P, board, p)
            held = case_index(*(int(v) for v in state.case[b, (p + 1) % P]))
            for j in range(P):
                s = sets[(p + j) % P]
                m = int(s.sum())
                assert part(x[b], "public_log2_count")[j] == pytest.approx(math.log2(m) / math.log2(NUM_CASES), abs=1e-6)
                cube = s.reshape(12, 10, 14)
                best = [cube.sum(axis=(1, 2)).max(), cube.sum(axis=(0, 2)).max(), cube.sum(axis=(0, 1)).max()]
                assert np.allclose(part(x[b], "public_certainty")[j], np.array(best) / m, atol=1e-6)
            seat1 = np.flatnonzero(sets[(p + 1) % P])
            table = k.tables.clue_answers
            for e in range(36):
                same = int((table[e, seat1] == table[e, held]).sum())
                assert part(x[b], "held_clue_gain")[e] == pytest.approx(
                    math.log2(seat1.size / same) * GAIN_SCALE, abs=1e-5)
            checked += 1
    assert checked >= 40


def run_pair(config, seed, p):
    """Games A and B (= A with ``p``'s own case replaced), same actions: ``p``'s compact encodings
    (and case-set masks) are identical until an answer to ``p`` differs; the holder of ``p``'s case
    sees the change (positive control)."""
    P = config.num_players
    a, b, rng = paired_games(config, seed, p, np.random.default_rng(seed * 13 + p))
    holder = (p - 1) % P
    mask_a = np.empty((1, NUM_CASES), dtype=bool)
    mask_b = np.empty((1, NUM_CASES), dtype=bool)
    steps = 0
    while True:
        xa = encode_compact(a, config, p, mask=mask_a)
        xb = encode_compact(b, config, p, mask=mask_b)
        assert np.array_equal(xa, xb) and np.array_equal(mask_a, mask_b), steps
        if int(a.round[0]) == 0:
            assert not np.array_equal(encode_compact(a, config, holder), encode_compact(b, config, holder))
        if a.done[0]:
            return "game over"
        differs = step_pair(a, b, config, p, rng)
        steps += 1
        if differs:
            assert not np.array_equal(encode_compact(a, config, p), encode_compact(b, config, p))
            return "answer differs"


@pytest.mark.parametrize("kwargs", [dict(num_players=2), dict(num_players=3), dict(num_players=4),
                                    dict(num_players=5), dict(num_players=3, edition="first"),
                                    dict(num_players=2, mode="duel"),
                                    dict(num_players=4, variants=("nick-of-time",))],
                         ids=lambda k: "-".join(str(v) for v in k.values()))
def test_own_case_never_visible_until_an_answer_differs(kwargs):
    config = GameConfig(**kwargs)
    reasons = [run_pair(config, seed, p) for seed in (1, 2) for p in range(config.num_players)]
    assert reasons.count("answer differs") >= len(reasons) - 1


def test_solo_paired_games_look_identical_until_an_answer_differs():
    config = S.SoloConfig()
    rng = np.random.default_rng(3)
    outcomes = []
    for seed in range(6):
        a = S.init(config, 1, seed=seed)
        b = a.copy()
        b.case[0] = [(int(v) + 1 + int(rng.integers(3))) % n for v, n in zip(a.case[0], (12, 10, 14))]
        while True:
            xa, xb = encode_solo_compact(a, config), encode_solo_compact(b, config)
            assert np.array_equal(xa, xb)
            if a.done[0]:
                outcomes.append("done")
                break
            legal = S.legal_action_mask(a)[0]
            act = np.array([rng.choice(np.flatnonzero(legal[:SOLVE_BASE]))])
            S.step_inplace(a, act, config)
            S.step_inplace(b, act, config)
            if a.last_answer[0].tolist() != b.last_answer[0].tolist():
                assert not np.array_equal(encode_solo_compact(a, config), encode_solo_compact(b, config))
                outcomes.append("answer differs")
                break
    assert outcomes == ["answer differs"] * 6


@pytest.mark.parametrize("use_display", [False, True])
def test_solo_entries(use_display):
    config = S.SoloConfig(use_display=use_display, investigators=4, max_actions=50)
    state = S.init(config, 8, seed=2)
    rng = np.random.default_rng(0)
    L = solo_compact_layout()
    low, high = solo_compact_bounds(config)
    for _ in range(10):
        legal = S.legal_action_mask(state)
        acts = np.array([rng.choice(np.flatnonzero(m[:SOLVE_BASE])) if rng.random() < 0.85
                         else SOLVE_BASE + int(rng.integers(NUM_CASES)) for m in legal])
        S.step_inplace(state, acts, config)
        mask = np.empty((8, NUM_CASES), dtype=bool)
        x = encode_solo_compact(state, config, mask=mask)
        assert ((x >= low) & (x <= high)).all()
        smask = np.empty_like(mask)
        gains = np.empty((8, 50), dtype=np.float32)
        f = solo_features(state, config.board, mask=smask, gains=gains)
        assert np.array_equal(x[:, :38], f) and np.array_equal(mask, smask)
        assert np.allclose(x[:, 38:88], gains * np.float32(GAIN_SCALE), atol=1e-7)
        obs = S.observe(state)
        assert np.array_equal(solo_observation_features(obs, config.board), f)
        o = [S.decode_observation(row) for row in obs]
        for b in range(8):
            for name in ("display", "inv_placed"):
                start, shape = L[name]
                assert np.array_equal(x[b, start:start + shape[0]], o[b][name])
            for name, scale in (("inv_left", 4), ("actions", 50), ("wrong_solves", 50), ("deck_size", 36)):
                assert x[b, L[name][0]] == pytest.approx(o[b][name][0] / scale)


def test_buffers_and_bad_input():
    config = GameConfig(num_players=2)
    state = init(config, 3, seed=4)
    wide = np.full((3, 240), 9.0, dtype=np.float32)
    got = encode_compact(state, config, [0, 1, 1], out=wide[:, 4:236])
    assert got.base is wide and (wide[:, :4] == 9).all() and (wide[:, 236:] == 9).all()
    assert np.array_equal(wide[:, 4:236], encode_compact(state, config, [0, 1, 1]))
    assert np.array_equal(encode_compact(state, config, 1, parallel=True), encode_compact(state, config, 1, parallel=False))
    with pytest.raises(PIError, match="config is for 3 players"):
        encode_compact(state, GameConfig(num_players=3), 0)
    with pytest.raises(PIError, match=r"out must be float32\[3, 232\]"):
        encode_compact(state, config, 0, out=np.zeros((3, 231), np.float32))
    with pytest.raises(PIError, match=r"mask must be bool\[3, 1680\]"):
        encode_compact(state, config, 0, mask=np.zeros((3, 1680), np.uint8))
    with pytest.raises(PIError, match="player must be 0..1"):
        encode_compact(state, config, [0, 2, 0])


_JIT_SCRIPT = """
import hashlib, sys
import numpy as np
sys.path.insert(0, 'tests')
from test_own_info import random_positions
from pi_env.engine import GameConfig
from pi_env.engine import solo as S
from pi_env.solvers.compact import encode_compact, encode_solo_compact
h = hashlib.sha256()
config = GameConfig(num_players=3)
for state in random_positions(config, 3, seed=5, steps=10):
    h.update(encode_compact(state, config, [0, 1, 2]).round(4).tobytes())
sc = S.SoloConfig(); st = S.init(sc, 2, seed=1)
for a in (3, 40, 20, 44):
    S.step_inplace(st, np.full(2, a), sc)
    h.update(encode_solo_compact(st, sc).round(4).tobytes())
print(h.hexdigest())
"""


def test_jit_off_path_agrees():
    """docs/contributing.md §C5: the compact kernels run as plain Python with NUMBA_DISABLE_JIT=1 and agree
    (to 4 decimals: float summation order may differ)."""
    assert_jit_off_agrees(_JIT_SCRIPT, timeout=300)


@pytest.mark.parametrize("num_players,seed", [(3, 71), (4, 72)])
def test_joint_block_in_one_numba_call_equals_the_per_row_joint_count(num_players, seed):
    """3 and 4 players: the joint block's batch kernel (the counts of ``joint_features``) gives the
    values of the per-row path (``joint_case_counts``: at 3 players one
    :func:`pi_env.solvers.joint.count_joint` per row, then numpy sums) bit for bit, for every seat, on
    positions of random play with right and wrong solves (later rounds, failed solves)."""
    from pi_env.solvers.compact import _joint_block_of_counts, encode_joint_block

    cfg = GameConfig(num_players=num_players)
    rows = nonzero = 0
    for step, st in enumerate(random_positions(cfg, 16, seed, 60)):
        if step % 6:
            continue
        for p in range(num_players):
            got = encode_joint_block(st, cfg, np.full(16, p))
            want = _joint_block_of_counts(st, cfg, np.full(16, p), np.empty((16, 38), np.float32))
            assert got.tobytes() == want.tobytes()
            rows += 16
            nonzero += int((got[:, 37] > 0).sum())
    assert rows == 10 * 16 * num_players and nonzero == rows
