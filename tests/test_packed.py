"""The packed observation encoding (issue #16 item 1, :mod:`pi_env.engine.packed`): its layout, values
worked out by hand, bit-for-bit equality of the fused self-play rows, the incremental writer and the
stand-alone call with the plain-numpy reference computed from the engine observation, the same
arrays with ``NUMBA_DISABLE_JIT=1``, and information hygiene (docs/rules.md §9): paired games that
differ only in a player's own case give that player identical rows."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES, ON_DISPLAY
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, observe
from pi_env.engine.packed import (FAILED_COUNT, PackedWriter, packed_from_observation, packed_layout, packed_size,
                                  write_packed)
from pi_env.engine.writer import FailedSolves
from pi_env.envs.encoders import _component_scales, encode_packed, flat_layout, flat_scales, packed_bounds
from pi_env.envs.selfplay import SelfPlayVecEnv
from helpers import own_case_pair, script_digest, selfplay_rollout_digest
from test_encoders import alternating_actions

F32 = np.float32


def test_layout_sizes_and_order():
    assert [packed_size(P) for P in range(2, 6)] == [688, 957, 1226, 1495]
    lay = packed_layout(2)
    assert list(lay)[:3] == ["tile_district", "display", "discard"]
    assert lay["front"] == (108, (2, 36))
    assert lay["inv_suppressed"] == (108 + 3 * 72 + 3 * 28, (2, 14, 3))
    assert lay["failed_count"][1] == (2,) and lay["failed_share"][1] == (2, 36)
    assert lay["to_move"] == (687, (1,))
    ends = sorted((start, start + (int(np.prod(shape)) if shape else 1)) for start, shape in lay.values())
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:]))  # contiguous, no gaps


def test_values_worked_out_by_hand():
    cfg = GameConfig(num_players=3)
    st = init(cfg, 1, seed=4)
    lay = packed_layout(3)
    # player 2 named two wrong triples this round: (suspect 1, evidence 2, location 3) and
    # (suspect 1, evidence 5, location 3)
    c1, c2 = 1 * 140 + 2 * 14 + 3, 1 * 140 + 5 * 14 + 3
    st.failed[0, 2, [c1, c2]] = True
    st.attempted[0, 2] = True
    st.score[0, 2] = -2
    x = encode_packed(st, cfg, 1)[0]  # observer 1: seat 1 is player 2, seat 2 is player 0
    scale = flat_scales(cfg)

    def comp(name):
        start, shape = lay[name]
        return x[start:start + (int(np.prod(shape)) if shape else 1)].reshape(shape or (1,))

    assert np.array_equal(comp("tile_district"), st.tile_district[0].astype(F32) * F32(1 / 13))
    held = np.zeros(36, dtype=F32)  # player 1 holds player 2's case
    s, e, l = (int(v) for v in st.case[0, 2])
    held[[s, 12 + e, 22 + l]] = 1.0
    assert np.array_equal(comp("held_case"), held)
    share = np.zeros(36, dtype=F32)
    share[1], share[12 + 2], share[12 + 5], share[22 + 3] = 1.0, 0.5, 0.5, 1.0
    assert np.array_equal(comp("failed_share")[1], share)
    assert not comp("failed_share")[[0, 2]].any()
    assert comp("failed_count")[1] == F32(math.log2(3) / math.log2(1681))
    assert comp("failed_count")[0] == 0.0 and FAILED_COUNT[1680] == F32(1.0)
    assert comp("score")[1] == F32(-2) * F32(1 / 21) and comp("attempted").tolist() == [0.0, 1.0, 0.0]
    assert comp("inv_left").tolist() == [1.0, 1.0, 1.0]  # 5 tiles each, scale 1/5
    assert np.array_equal(comp("display"), (st.card_place[0] == ON_DISPLAY).astype(F32) * scale[flat_layout(3)["display"][0]])
    assert comp("to_move")[0] == F32(((int(st.current_player[0]) - 1) % 3) * 0.5)
    assert np.array_equal(encode_packed(st, cfg, 1), packed_from_observation(observe(st, 1), _component_scales(cfg)))


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, dict(edition="first")), (5, {}), (2, dict(mode="duel"))])
def test_selfplay_rows_equal_the_numpy_reference(num_players, options):
    """The fused turn's packed rows, a stand-alone incremental writer with a short failed-solve list
    (none tracked: the flag scan), and the stateless call: all equal to the reference from the
    engine observation, bit for bit, at every step of seeded games (random and clue-heavy play)."""
    B = 24
    env = SelfPlayVecEnv(B, num_players=num_players, observations="packed", seed=3, parallel=False, **options)
    obs, info = env.reset(seed=3)
    scales = _component_scales(env.config)
    lo, hi = packed_bounds(env.config)
    assert obs.shape == (B, packed_size(num_players)) == env.observation_space.shape
    short = FailedSolves(B, num_players, length=0)  # not tracked: every failed solve is read from the flags
    short.reset(np.ones(B, dtype=bool), env.state)
    other = PackedWriter(B, num_players, scales)
    rng = np.random.default_rng(num_players)
    scanned = False
    for t in range(150):
        ref = packed_from_observation(env.engine_observations(), scales)
        assert np.array_equal(obs, ref), t
        assert np.array_equal(write_packed(env.state, env._row_seat, scales), ref)
        assert np.array_equal(other.write(env.state, env._row_seat, short), ref)
        assert (obs >= lo).all() and (obs <= hi).all()
        if t == 60:
            twin = copy.deepcopy(env)
        acts = alternating_actions(env, rng, t)
        obs, _, term, trunc, info = env.step(acts)
        short.after_step(np.ones(B, dtype=bool), env.state)
        scanned |= bool((short.count > 0).any())
        if t == 60:
            assert np.array_equal(twin.step(acts)[0], obs)
    assert scanned  # the flag scan was exercised


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {}), (5, dict(edition="first")),
                                                 (2, dict(mode="duel"))])
def test_packed_encoding_never_shows_the_own_case(num_players, options):
    reasons = [own_case_pair(num_players, seed, p, encode_packed, **options)
               for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons


def digest_packed_rollout() -> str:
    """SHA-256 of a seeded self-play rollout's packed rows, masks and rewards (every step) and the
    stand-alone writer's rows (2 and 4 players)."""
    return selfplay_rollout_digest([(2, "packed", {}), (4, "packed", {})],
                                   lambda env, obs: encode_packed(env.state, env.config, env._row_seat))


def test_jit_off_gives_the_same_arrays():
    code = "import test_packed; print(test_packed.digest_packed_rollout())"
    assert script_digest(code, jit=False, timeout=300) == digest_packed_rollout()


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(PIError, match=r"^observations must be True, False, 'flat', 'packed', 'packed-int8' or "
                                      r"'packed-int16', got 'compact'$"):
        SelfPlayVecEnv(2, observations="compact")
    cfg = GameConfig(num_players=2)
    st = init(cfg, 3, seed=0)
    with pytest.raises(PIError, match=r"^out must be a C-contiguous float32\[3, 688\], got float32\[3, 4442\]$"):
        encode_packed(st, cfg, 0, out=np.zeros((3, 4442), dtype=F32))
    with pytest.raises(PIError, match=r"^scales must have one entry per observation component \(23\)"):
        write_packed(st, 0, np.ones(5, dtype=F32))
    with pytest.raises(PIError, match=r"^observation length 7 is not that of 2\.\.5 players$"):
        packed_from_observation(np.zeros(7, dtype=np.int16), np.ones(23, dtype=F32))
    assert NUM_CASES == 1680
