"""The packed integer rows (issue #16 item 1, :mod:`pi_env.engine.packed`, "Integer rows"): values
worked out by hand, the value ranges and which games ``int8`` holds, bit-for-bit equality of the
converted rows with the packed ``float32`` rows (fused self-play turn, stand-alone writer, numpy
reference from the engine observation; terminal rows and autoresets included), the same arrays
with ``NUMBA_DISABLE_JIT=1``, and information hygiene (docs/rules.md §9): paired games that differ
only in a player's own case give that player identical integer rows."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from pi_env.core.constants import ON_DISPLAY
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, observe
from pi_env.engine.packed import (INT_LAYOUT_VERSION, PackedIntWriter, packed_from_int, packed_int_from_observation,
                                  packed_int_layout, packed_int_scales, packed_int_size, packed_int_unpacking,
                                  packed_layout, write_packed_int)
from pi_env.engine.writer import FailedSolves
from pi_env.envs.encoders import (_component_scales, check_packed_int, encode_packed, encode_packed_int,
                                  float_from_packed_int, packed_int_bounds)
from pi_env.envs.selfplay import SelfPlayVecEnv
from helpers import need_extra, own_case_pair, script_digest, selfplay_rollout_digest
from test_encoders import alternating_actions

F32 = np.float32


def test_values_worked_out_by_hand():
    cfg = GameConfig(num_players=3)
    st = init(cfg, 1, seed=4)
    lay = packed_int_layout(3)
    # player 2 named three wrong triples this round: (suspect 1, evidence 2, location 3),
    # (suspect 1, evidence 5, location 3) and (suspect 4, evidence 5, location 0)
    c1, c2, c3 = 1 * 140 + 2 * 14 + 3, 1 * 140 + 5 * 14 + 3, 4 * 140 + 5 * 14 + 0
    st.failed[0, 2, [c1, c2, c3]] = True
    st.attempted[0, 2] = True
    st.score[0, 2] = -5
    st.front[0, 0, 7] = True
    x = encode_packed_int(st, cfg, 1)[0]  # observer 1: seat 1 is player 2, seat 2 is player 0
    assert x.dtype == np.int8 and x.shape == (393,) == (78 + 105 * 3,)

    def comp(name):
        start, shape = lay[name]
        return x[start:start + (int(np.prod(shape)) if shape else 1)].reshape(shape or (1,))

    assert comp("tile_district").tolist() == st.tile_district[0].tolist()
    cards = (st.card_place[0] == ON_DISPLAY).astype(int)  # bit 0 display, bit 1 discard, bit 2 held case
    s, e, l = (int(v) for v in st.case[0, 2])  # player 1 holds player 2's case
    cards[[s, 12 + e, 22 + l]] += 4
    assert comp("cards").tolist() == cards.tolist()
    assert comp("failed_count").tolist() == [0, 3, 0]
    share = np.zeros(36, dtype=np.int8)
    share[1], share[4], share[12 + 2], share[12 + 5], share[22 + 3], share[22 + 0] = 2, 1, 1, 2, 2, 1
    assert comp("failed_share")[1].tolist() == share.tolist()
    assert not comp("failed_share")[[0, 2]].any()
    assert comp("score").tolist() == [0, -5, 0] and comp("attempted").tolist() == [0, 1, 0]
    assert comp("inv_left").tolist() == [5, 5, 5]
    assert np.flatnonzero(comp("markers")[2]).tolist() == [7] and comp("markers")[2, 7] == 1  # front: bit 0
    assert not comp("markers")[:2].any() and not comp("investigators").any() and not comp("suppressed").any()
    assert comp("to_move")[0] == (int(st.current_player[0]) - 1) % 3
    assert comp("round")[0] == 0 and comp("deck_size")[0] == int(st.deck_size[0])
    # converted: the float rows exactly; failed_share 2/3 and 1/3 in float32
    f = float_from_packed_int(x, cfg)
    assert np.array_equal(f, encode_packed(st, cfg, 1)[0])
    fs = packed_layout(3)["failed_share"][0] + 36
    assert f[fs + 1] == F32(2) / F32(3) and f[fs + 4] == F32(1) / F32(3)


def test_bit_fields_worked_out_by_hand():
    """Layout 2's bit fields (markers: front 1, spot 2, trace 4, correct solve 8; investigators:
    placed 1, spots x 2, traces x 8; suppressed: type t at 2**t), set by hand in a 2-player game,
    and the unpacking table that reads them back."""
    assert INT_LAYOUT_VERSION == 2
    cfg = GameConfig(num_players=2)
    st = init(cfg, 1, seed=1)
    st.spot[0, 1, 5] = st.trace[0, 1, 5] = True  # player 1: a spot and a trace marker on element 5
    st.front[0, 1, 30] = True
    st.solved_case[0, 1] = 3 * 140 + 4 * 14 + 5  # suspect 3, evidence 4, location 5
    st.inv_count[0, 1] = 2
    st.inv_district[0, 1, :2] = [9, 2]
    st.inv_answer[0, 1, 0] = [2, 1]  # district 9: 2 spots, 1 trace
    st.inv_answer[0, 1, 1] = [0, 3]  # district 2: 3 traces, types 0 and 2 suppressed
    st.inv_suppressed[0, 1, 1] = [True, False, True]
    st.inv_left[0, 1] = 3
    x = encode_packed_int(st, cfg, 0)[0]  # player 1 is seat 1
    lay = packed_int_layout(2)
    m = x[lay["markers"][0] + 36:lay["markers"][0] + 72]
    want = np.zeros(36, dtype=np.int64)
    want[5], want[30] = 2 + 4, 1
    want[[3, 12 + 4, 22 + 5]] += 8
    assert m.tolist() == want.tolist()
    inv = x[lay["investigators"][0] + 14:lay["investigators"][0] + 28]
    sup = x[lay["suppressed"][0] + 14:lay["suppressed"][0] + 28]
    assert {d: int(v) for d, v in enumerate(inv) if v} == {9: 1 + 2 * 2 + 8 * 1, 2: 1 + 8 * 3}
    assert {d: int(v) for d, v in enumerate(sup) if v} == {2: 1 + 4}
    assert not x[lay["investigators"][0]:lay["investigators"][0] + 14].any()  # seat 0 placed none
    # the table: packed inv_traces of seat 1 at district 2 is (row[investigators + 14 + 2] >> 3) & 3
    src, shift, mask = packed_int_unpacking(2)
    k = packed_layout(2)["inv_traces"][0] + 14 + 2
    assert (src[k], shift[k], mask[k]) == (lay["investigators"][0] + 14 + 2, 3, 3)
    k = packed_layout(2)["inv_suppressed"][0] + 42 + 3 * 2 + 2  # seat 1, district 2, type 2
    assert (src[k], shift[k], mask[k]) == (lay["suppressed"][0] + 14 + 2, 2, 1)
    k = packed_layout(2)["score"][0]
    assert (src[k], shift[k], mask[k]) == (lay["score"][0], 0, -1)
    assert np.array_equal(float_from_packed_int(x, cfg), encode_packed(st, cfg, 0)[0])
    assert np.array_equal(x, packed_int_from_observation(observe(st, 0), "int8")[0])


def test_value_ranges_and_which_games_int8_holds():
    low, high = packed_int_bounds(GameConfig(num_players=2))
    lay = packed_int_layout(2)
    at = {name: (int(low[start]), int(high[start])) for name, (start, _) in lay.items()}
    assert at["tile_district"] == (0, 13) and at["cards"] == (0, 7) and at["markers"] == (0, 15)
    assert at["investigators"] == (0, 1 + 2 * 3 + 8 * 3) and at["suppressed"] == (0, 7)
    assert at["score"] == (-5, 21) and at["rotation"] == (0, 60) and at["round"] == (0, 3)
    assert at["failed_count"] == (0, 60) and at["failed_share"] == (0, 60) and at["to_move"] == (0, 1)
    assert int(high.max()) == 60 and int(low.min()) == -5
    duel = packed_int_bounds(GameConfig(num_players=2, mode="duel"))
    assert int(duel[1][lay["failed_count"][0]]) == 1 and int(duel[1][lay["round"][0]]) == 9
    assert check_packed_int(GameConfig(num_players=5, max_rotations=127), "int8") == np.int8
    with pytest.raises(PIError, match=r"^int8 cannot hold failed_count of this game \(0\.\.128\); use int16 or the "
                                      r"float32 packed rows$"):
        check_packed_int(GameConfig(num_players=2, max_rotations=128), "int8")
    first = GameConfig(num_players=3, edition="first")
    with pytest.raises(PIError, match=r"^int8 cannot hold score of this game \(-360\.\.21\)"):
        check_packed_int(first, "int8")
    assert check_packed_int(first, "int16") == np.int16
    # int16 holds every game: the widest, first edition at the rotation limit
    assert check_packed_int(GameConfig(num_players=5, edition="first", max_rotations=1000), "int16") == np.int16
    with pytest.raises(PIError, match=r"^dtype must be int8 or int16, got 'uint8'$"):
        check_packed_int(first, "uint8")


@pytest.mark.parametrize("num_players,options,dtype", [
    (2, {}, "int8"), (3, dict(edition="first"), "int16"), (4, {}, "int8"), (5, dict(edition="first"), "int16"),
    (5, {}, "int8"), (2, dict(mode="duel"), "int8"), (3, dict(variants=("fast", "nick-of-time")), "int8")])
def test_selfplay_int_rows_convert_to_the_float_rows(num_players, options, dtype):
    """Two envs with the same seed and actions, one returning the packed float32 rows and one the
    integer rows: at every step the converted integer rows equal the float rows bit for bit, equal
    the numpy reference from the engine observation and a stand-alone writer scanning the failed
    flags, and lie within :func:`packed_int_bounds`; terminal rows and autoresets occur."""
    B = 24
    kw = dict(num_players=num_players, seed=3, parallel=False, **options)
    env = SelfPlayVecEnv(B, observations=f"packed-{dtype}", **kw)
    ref_env = SelfPlayVecEnv(B, observations="packed", **kw)
    obs, _ = env.reset(seed=3)
    fobs, _ = ref_env.reset(seed=3)
    lo, hi = packed_int_bounds(env.config)
    assert obs.dtype == np.dtype(dtype) and obs.shape == (B, packed_int_size(num_players)) == env.observation_space.shape
    assert env.single_observation_space.dtype == np.dtype(dtype)
    short = FailedSolves(B, num_players, length=0)  # not tracked: every failed solve is read from the flags
    short.reset(np.ones(B, dtype=bool), env.state)
    other = PackedIntWriter(B, num_players, dtype)
    rng = np.random.default_rng(num_players)
    ends = 0
    for t in range(200):
        conv = float_from_packed_int(obs, env.config)
        assert np.array_equal(conv.view(np.uint32), fobs.view(np.uint32)), t  # bit for bit (also -0.0)
        ref = packed_int_from_observation(env.engine_observations(), dtype)
        assert np.array_equal(obs, ref), t
        assert np.array_equal(other.write(env.state, env._row_seat, short), ref), t
        assert (obs >= lo).all() and (obs <= hi).all()
        if t == 60:
            twin = copy.deepcopy(env)
        acts = alternating_actions(env, rng, t)
        obs, rew, term, trunc, info = env.step(acts)
        fobs, frew, fterm, ftrunc, finfo = ref_env.step(acts)
        assert np.array_equal(rew, frew) and np.array_equal(term, fterm)
        assert np.array_equal(info["action_mask"], finfo["action_mask"])
        short.after_step(np.ones(B, dtype=bool), env.state)
        ends += int((term | trunc).sum())
        if t == 60:
            assert np.array_equal(twin.step(acts)[0], obs)
    if (num_players, options.get("edition")) != (5, "first"):  # (first-edition 5-player games last longer)
        assert ends > B and (env._games > 1).any()  # terminal rows and autoresets were compared


def test_stateless_call_and_conversion_in_every_form():
    cfg = GameConfig(num_players=4)
    st = init(cfg, 5, seed=9)
    players = np.array([0, 1, 2, 3, 1])
    x = encode_packed_int(st, cfg, players)
    assert np.array_equal(x, packed_int_from_observation(observe(st, players), "int8"))
    out = np.full((5, packed_int_size(4)), 99, dtype=np.int8)
    assert encode_packed_int(st, cfg, players, out=out) is out and np.array_equal(out, x)
    f = encode_packed(st, cfg, players)
    scales = _component_scales(cfg)
    assert np.array_equal(packed_from_int(x, scales), f)
    assert np.array_equal(packed_from_int(x.astype(np.int16), scales), f)
    assert np.array_equal(packed_from_int(x[None], scales)[0], f)  # any leading shape
    # the per-entry scales: tile_district 1/13, inv_spots 1/3, failed columns 0
    s = packed_int_scales(4, scales)
    lay = packed_layout(4)
    assert s[lay["tile_district"][0]] == F32(1 / 13) and s[lay["inv_spots"][0]] == F32(1 / 3)
    assert not s[lay["failed_count"][0]:lay["failed_share"][0] + 4 * 36].any() and not s.flags.writeable


def test_torch_conversion_is_exact():
    torch = need_extra("rl", "torch")
    from pi_env.rl.packed_int import PackedIntToFloat

    cfg = GameConfig(num_players=3)
    env = SelfPlayVecEnv(16, num_players=3, observations="packed-int8", seed=1, parallel=False)
    ref = SelfPlayVecEnv(16, num_players=3, observations="packed", seed=1, parallel=False)
    obs, _ = env.reset(seed=1)
    fobs, _ = ref.reset(seed=1)
    conv = PackedIntToFloat(cfg)
    rng = np.random.default_rng(0)
    for _ in range(60):
        got = conv(torch.from_numpy(obs.copy()))
        assert got.dtype == torch.float32
        assert np.array_equal(got.numpy().view(np.uint32), fobs.view(np.uint32))
        acts = env.sample_actions(rng)
        obs = env.step(acts)[0]
        fobs = ref.step(acts)[0]


def test_the_documented_conversion_is_warning_free_and_exact():
    """The example of :mod:`pi_env.rl.packed_int`'s docstring, run as written (B = 4096) with
    warnings as errors (``to_float(torch.from_numpy(obs))``, the example before, made torch warn
    that the env's read-only array is not writable): the rows equal the packed float32 rows of an
    equally seeded env bit for bit, and the env's rows are left as they were."""
    import inspect
    import textwrap
    import warnings

    torch = need_extra("rl", "torch")
    import pi_env.rl.packed_int as module

    doc = inspect.getdoc(module)
    example = textwrap.dedent(doc.split("::\n", 1)[1].split("\n\n", 1)[0]).strip()
    assert "to_float(obs)" in example and "from_numpy" not in example
    space = {"SelfPlayVecEnv": SelfPlayVecEnv, "PackedIntToFloat": module.PackedIntToFloat, "torch": torch}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(example, space)
    obs, x = space["obs"], space["x"]
    before = obs.copy()
    ref, _ = SelfPlayVecEnv(4096, observations="packed").reset(seed=0)
    assert isinstance(x, torch.Tensor) and x.dtype == torch.float32 and x.shape == (4096, 688)
    assert np.array_equal(x.numpy().view(np.uint32), ref.view(np.uint32))
    assert not obs.flags.writeable and np.array_equal(obs, before)


@pytest.mark.parametrize("num_players,options,dtype", [(2, {}, "int8"), (3, {}, "int8"), (4, {}, "int8"),
                                                       (5, dict(edition="first"), "int16"),
                                                       (2, dict(mode="duel"), "int8")])
def test_int_rows_never_show_the_own_case(num_players, options, dtype):
    def encode(state, config, player):
        return encode_packed_int(state, config, player, dtype)

    # (seeds where no answer to the player is wiped by the round's end in the same step: the helper
    # then expects the rows to differ, and no encoding can show a cleared board's answer)
    seeds = (3, 4) if num_players == 4 else (1, 2)
    reasons = [own_case_pair(num_players, seed, p, encode, **options) for seed in seeds for p in range(num_players)]
    assert "answer differs" in reasons


def digest_int_rollout() -> str:
    """SHA-256 of seeded self-play rollouts' integer rows (int8, 2 and 4 players; int16, first
    edition), masks and rewards at every step, and the stand-alone call's rows."""
    return selfplay_rollout_digest([(2, "packed-int8", {}), (4, "packed-int8", {}),
                                    (3, "packed-int16", dict(edition="first"))],
                                   lambda env, obs: write_packed_int(env.state, env._row_seat, obs.dtype))


def test_jit_off_gives_the_same_arrays():
    code = "import test_packed_int; print(test_packed_int.digest_int_rollout())"
    assert script_digest(code, jit=False, timeout=300) == digest_int_rollout()


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(PIError, match=r"^int8 cannot hold score of this game \(-360\.\.21\); use int16"):
        SelfPlayVecEnv(2, num_players=2, edition="first", observations="packed-int8")
    with pytest.raises(PIError, match=r"^observations must be True, False, 'flat', 'packed', 'packed-int8' or "
                                      r"'packed-int16', got 'packed-uint8'$"):
        SelfPlayVecEnv(2, observations="packed-uint8")
    cfg = GameConfig(num_players=2)
    st = init(cfg, 3, seed=0)
    with pytest.raises(PIError, match=r"^out must be a C-contiguous int8\[3, 288\], got int16\[3, 288\]$"):
        encode_packed_int(st, cfg, 0, out=np.zeros((3, 288), dtype=np.int16))
    with pytest.raises(PIError, match=r"^dtype must be int8 or int16, got 'float32'$"):
        write_packed_int(st, 0, "float32")
    with pytest.raises(PIError, match=r"^rows must be integer rows of length \[288, 393, 498, 603\] \(2\.\.5 "
                                      r"players\), got float32\[3, 688\]$"):
        packed_from_int(np.zeros((3, 688), dtype=F32), _component_scales(cfg))


def test_rows_with_fixed_opponents_convert_to_the_float_rows():
    """One learner seat against batched random opponents (the env's per-call path, not the fused
    turn): the converted integer rows equal the packed float32 rows at every step."""
    from pi_env.envs.selfplay import RandomBatchOpponent

    kw = dict(num_players=3, seed=5, opponents=[RandomBatchOpponent(1), RandomBatchOpponent(2)])
    env = SelfPlayVecEnv(12, observations="packed-int8", **kw)
    ref = SelfPlayVecEnv(12, observations="packed", **{**kw, "opponents": [RandomBatchOpponent(1),
                                                                          RandomBatchOpponent(2)]})
    obs, _ = env.reset(seed=5)
    fobs, _ = ref.reset(seed=5)
    rng = np.random.default_rng(1)
    for t in range(80):
        assert np.array_equal(float_from_packed_int(obs, env.config).view(np.uint32), fobs.view(np.uint32)), t
        assert np.array_equal(obs, packed_int_from_observation(env.engine_observations(), "int8")), t
        acts = env.sample_actions(rng)
        obs = env.step(acts)[0]
        fobs = ref.step(acts)[0]


def test_conversion_refuses_rows_of_another_game_in_one_line():
    """Rows of another player count than the config's, out-of-range failed counts, float, unsigned
    or other objects given to the torch converter: a one-line PIError (each was converted silently
    or failed inside numpy/torch)."""
    c2 = GameConfig(num_players=2)
    rows3 = np.zeros((4, packed_int_size(3)), dtype=np.int8)
    with pytest.raises(PIError, match=r"^rows must be integer rows of length 288 \(2 players\), "
                                      r"got int8\[4, 393\]$"):
        float_from_packed_int(rows3, c2)
    bad = np.zeros((1, 288), dtype=np.int16)
    bad[0, packed_int_layout(2)["failed_count"][0]] = 5000
    with pytest.raises(PIError, match=r"^rows hold a failed_count of 0\.\.5000; a count of distinct wrong triples is "
                                      r"0\.\.1680"):
        float_from_packed_int(bad, c2)
    bad[0, packed_int_layout(2)["failed_count"][0]] = -1
    with pytest.raises(PIError, match=r"^rows hold a failed_count of -1\.\.0"):
        float_from_packed_int(bad, c2)
    torch = need_extra("rl", "torch")
    from pi_env.rl.packed_int import PackedIntToFloat

    conv = PackedIntToFloat(c2)
    with pytest.raises(PIError, match=r"^rows must be a torch tensor or numpy array of int8 or int16 rows of "
                                      r"length 288 \(2 players\), got torch\.float32\[4, 288\]$"):
        conv(torch.zeros(4, 288))
    with pytest.raises(PIError, match=r"got torch\.int8\[4, 393\]$"):
        conv(torch.from_numpy(rows3))
    with pytest.raises(PIError, match=r"got int8\[4, 393\]$"):
        conv(rows3)
    with pytest.raises(PIError, match=r"got float32\[4, 288\]$"):
        conv(np.zeros((4, 288), dtype=F32))
    with pytest.raises(PIError, match=r"got list$"):
        conv([0] * 288)
    with pytest.raises(PIError, match=r"got torch\.uint8\[4, 288\]$"):
        conv(torch.zeros(4, 288, dtype=torch.uint8))
    one = conv(torch.zeros(288, dtype=torch.int16))  # a single row (no batch dimension) still converts
    assert one.shape == (688,) and np.array_equal(one.numpy(), float_from_packed_int(np.zeros(288, np.int16), c2))


def test_without_torch_the_converter_says_what_to_install(monkeypatch):
    """A machine without torch gets one line naming the extra and the numpy converter, not a bare
    ``No module named 'torch'``."""
    import builtins

    from pi_env.rl.packed_int import PackedIntToFloat

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError("No module named 'torch'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(ImportError, match=r"pi-deduction\[rl\].*float_from_packed_int"):
        PackedIntToFloat(GameConfig(num_players=2))
