"""Observation encoders (issue #7 item 2): the flat encoding's layout, exact values and parity with its
numpy reference, the incremental :class:`FlatEncoder`, the solver features, and information hygiene
(docs/rules.md §9): neither encoding shows a player its own case."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pi_env.core.constants import INVESTIGATE_BASE, NUM_CASES, SOLVE_BASE, case_index
from pi_env.envs.encoders import (FlatEncoder, encode_flat, encode_flat_reference, flat_layout, flat_scales,
                                  flat_size)
from pi_env.rl.solver_features_env import SolverFeaturesVecEnv
from pi_env.solvers.features import SOLVER_FEATURES, SOLVER_LAYOUT, solver_features, solver_size
from pi_env.engine import (GameConfig, decode_observation, init, legal_action_mask, observe,
                           reset_done, step_inplace)
from pi_env.engine.setup import from_layout
from pi_env.core.errors import PIError
from helpers import own_case_pair

F32 = np.float32


def mixed_policy(state, rng, b=0, solve_true=0.2):
    """Clues and investigators mostly, some solves (right ones peek at the state)."""
    mask = legal_action_mask(state)[b]
    u = rng.random()
    clues = np.flatnonzero(mask[:INVESTIGATE_BASE])
    invs = np.flatnonzero(mask[INVESTIGATE_BASE:SOLVE_BASE]) + INVESTIGATE_BASE
    if u < 0.6 and clues.size:
        return int(rng.choice(clues))
    if u < 0.8 and invs.size:
        return int(rng.choice(invs))
    if rng.random() < solve_true:
        s, e, l = (int(v) for v in state.case[b, state.current_player[b]])
        return SOLVE_BASE + case_index(s, e, l)
    return SOLVE_BASE + int(rng.integers(NUM_CASES))


def mixed_actions(state, rng):
    """:func:`mixed_policy` for every game of ``state`` (action 0 for a finished game), ``int64[B]``."""
    return np.array([mixed_policy(state, rng, b) if not state.done[b] else 0 for b in range(state.done.shape[0])])


def alternating_actions(env, rng, t):
    """The actions of step ``t`` of a seeded rollout of ``env`` (a :class:`SelfPlayVecEnv`):
    ``env.sample_actions(rng)`` on odd steps, :func:`mixed_actions` (clue-heavy, some solves) on
    even ones."""
    return env.sample_actions(rng) if t % 2 else mixed_actions(env.state, rng)


def play(config, batch, seed, steps):
    """Yield the state after each of ``steps`` mixed-policy steps (finished games reset)."""
    state = init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    a = np.zeros(batch, dtype=np.int64)
    yield state
    for _ in range(steps):
        for b in range(batch):
            a[b] = mixed_policy(state, rng, b) if not state.done[b] else 0
        step_inplace(state, a, config)
        yield state
        reset_done(state, config)


def test_layout_offsets_two_players():
    L = flat_layout(2)
    assert {k: v[0] for k, v in L.items()} == {
        "tiles": 0, "display": 504, "discard": 540, "front": 576, "spot": 648, "trace": 720,
        "inv_placed": 792, "inv_spots": 820, "inv_traces": 848, "inv_suppressed": 876,
        "held_case": 960, "solved_case": 996, "failed": 1068, "score": 4428, "attempted": 4430,
        "solved": 4432, "inv_left": 4434, "round": 4436, "tier": 4437, "rotation": 4438,
        "first_seat": 4439, "deck_size": 4440, "to_move": 4441}
    assert L["failed"][1] == (2, 1680) and L["inv_suppressed"][1] == (2, 14, 3)
    for P in range(2, 6):
        assert flat_size(P) == 618 + 1912 * P
        assert solver_size(P) == flat_size(P) + 37
    assert SOLVER_LAYOUT == {"p_suspect": (0, (12,)), "p_evidence": (12, (10,)),
                             "p_location": (22, (14,)), "log2_count": (36, (1,))}


def test_scales_per_component():
    cfg = GameConfig(num_players=3, max_rotations=40)
    s = flat_scales(cfg)
    L = flat_layout(3)
    expect = {"tiles": 1, "inv_spots": F32(1 / 3), "inv_traces": F32(1 / 3), "score": F32(1 / 21),
              "inv_left": F32(1 / 5), "round": F32(1 / 3), "tier": F32(1 / 3), "rotation": F32(1 / 40),
              "first_seat": F32(1 / 2), "deck_size": F32(1 / 36), "to_move": F32(1 / 2), "failed": 1}
    for name, value in expect.items():
        start, shape = L[name]
        n = int(np.prod(shape))
        assert (s[start:start + n] == F32(value)).all(), name
    duel = flat_scales(GameConfig(mode="duel", variants=("fast",)))
    assert duel[flat_layout(2)["score"][0]] == F32(1 / 2)  # rounds won / num_rounds
    with pytest.raises(ValueError):
        s[0] = 2  # read-only


def test_exact_values_after_known_answers():
    """A hand-built round (engine.setup.from_layout): the entries after spots, a wrong solve and
    an investigator, with their scales, in every player's relative seats."""
    cfg = GameConfig(num_players=3)
    td = list(range(12)) + list(range(10)) + list(range(14))  # suspect k and evidence k in district k
    cases = [[0, 0, 0], [1, 1, 1], [2, 2, 2]]  # player i must solve suspect i / evidence i / district i
    st = from_layout(cfg, td, cases, first_player=0, display=[0, 1, 2, 12, 13, 14, 22, 23, 24])
    a = np.zeros(1, dtype=np.int64)
    # player 0 clue Shorty (spot), 1 clue Doc (spot), 2 a wrong solve, 0 an investigator in Little
    # Italy (district 2), adjacent to Lakeside (0) where all of player 0's case lies: 3 traces
    for action in (0, 1, SOLVE_BASE + case_index(4, 3, 4), INVESTIGATE_BASE + 2):
        a[0] = action
        step_inplace(st, a, cfg)
    assert int(st.round[0]) == 0 and int(st.current_player[0]) == 1
    L = flat_layout(3)

    def block(f, name):
        start, shape = L[name]
        return f[start:start + int(np.prod(shape))].reshape(shape)

    for p in range(3):
        f = encode_flat(st, cfg, p)[0]
        assert np.array_equal(f, encode_flat_reference(observe(st, p), cfg)[0])
        seat = [(q - p) % 3 for q in range(3)]  # relative seat of each player
        spot = block(f, "spot")
        assert np.flatnonzero(spot[seat[0]]).tolist() == [0]
        assert np.flatnonzero(spot[seat[1]]).tolist() == [1]
        assert not spot[seat[2]].any()
        assert np.flatnonzero(block(f, "inv_placed")[seat[0]]).tolist() == [2]
        assert block(f, "inv_spots")[seat[0], 2] == 0.0
        assert block(f, "inv_traces")[seat[0], 2] == F32(3) * F32(1 / 3)
        assert np.flatnonzero(block(f, "failed")[seat[2]]).tolist() == [case_index(4, 3, 4)]
        assert block(f, "score")[seat[2]] == F32(-2) * F32(1 / 21)
        assert block(f, "attempted")[seat[2]] == 1.0 and block(f, "attempted").sum() == 1.0
        assert block(f, "inv_left")[seat[0]] == F32(4) * F32(1 / 5)
        assert block(f, "deck_size")[0] == F32(int(st.deck_size[0])) * F32(1 / 36)
        assert block(f, "rotation")[0] == F32(1) * F32(1 / 60)
        assert block(f, "to_move")[0] == F32(seat[1]) * F32(1 / 2)
        assert block(f, "first_seat")[0] == F32(seat[0]) * F32(1 / 2)
        h = cases[(p + 1) % 3]
        assert np.flatnonzero(block(f, "held_case")).tolist() == [h[0], 12 + h[1], 22 + h[2]]
        assert block(f, "tiles")[:22].argmax(axis=1).tolist() == td[:22]


@pytest.mark.parametrize("options", [dict(num_players=2), dict(num_players=3, edition="first"),
                                     dict(num_players=4, variants=("nick-of-time",)),
                                     dict(num_players=5, variants=("fast",)), dict(mode="duel")])
def test_encode_flat_equals_reference_and_incremental_encoder(options):
    cfg = GameConfig(**options)
    P = cfg.num_players
    B = 6
    enc = FlatEncoder(cfg, B)
    rng = np.random.default_rng(1)
    for state in play(cfg, B, seed=3, steps=150):
        players = rng.integers(0, P, B)
        ref = encode_flat_reference(observe(state, players), cfg)
        assert ref.dtype == np.float32
        assert np.array_equal(encode_flat(state, cfg, players), ref)
        got = enc.encode(state, players)
        assert np.array_equal(got, ref)
        assert not got.flags.writeable


def test_flat_encoder_many_failed_solves_and_skipped_rows():
    """More failed triples than a row remembers (full clear next time), then few again; a
    negative player leaves its row alone."""
    cfg = GameConfig(num_players=3)
    st = init(cfg, 2, seed=0)
    enc = FlatEncoder(cfg, 2)
    rng = np.random.default_rng(0)
    st.failed[0, 1, rng.choice(NUM_CASES, 100, replace=False)] = True
    st.attempted[0, 1] = True
    for players in ([0, 1], [2, 1]):
        assert np.array_equal(enc.encode(st, players), encode_flat(st, cfg, players))
    st.failed[0] = False
    st.failed[0, 2, [5, 17]] = True
    st.attempted[0, 2] = True
    assert np.array_equal(enc.encode(st, [1, 1]), encode_flat(st, cfg, [1, 1]))
    before = enc.encode(st, [1, 1]).copy()
    st.spot[1, 0, 3] = True
    got = enc.encode(st, np.array([1, -1]))
    assert np.array_equal(got[1], before[1])  # row 1 skipped
    assert np.array_equal(got[0], encode_flat(st, cfg, 1)[0])


def test_encode_errors():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 2, seed=0)
    with pytest.raises(PIError, match="player must be 0..1"):
        encode_flat(st, cfg, 2)
    # an array of players: the first game whose player is out of range, not the whole array
    with pytest.raises(PIError, match=r"^player must be 0..1, got 2 in game 1$"):
        encode_flat(st, cfg, np.array([0, 2]))
    with pytest.raises(PIError, match=r"^player must be 0..1, got -1 in game 0 \(and 1 more games\)$"):
        encode_flat(st, cfg, np.array([-1, 5]))
    with pytest.raises(PIError, match="out must be float32"):
        encode_flat(st, cfg, 0, out=np.zeros((2, 5), np.float32))
    with pytest.raises(PIError, match="was built for B=3, P=2"):
        FlatEncoder(cfg, 3).encode(st, 0)


def test_solver_features_at_the_start_are_exact():
    """At a round's start a 2-player seat knows only the case it holds: its own case is any of
    the 11 * 9 * 13 cases disjoint from it, all equally likely."""
    cfg = GameConfig(num_players=2)
    st = init(cfg, 2, seed=4)
    f = solver_features(st, cfg, [0, 1])
    for b in range(2):
        for p in (0, 1):
            held = st.case[b, (p + 1) % 2]
            g = solver_features(st, cfg, p)[b]
            s, e, l = g[:12], g[12:22], g[22:36]
            assert s[held[0]] == 0 and np.allclose(np.delete(s, held[0]), 1 / 11)
            assert e[held[1]] == 0 and np.allclose(np.delete(e, held[1]), 1 / 9)
            assert l[held[2]] == 0 and np.allclose(np.delete(l, held[2]), 1 / 13)
            assert g[36] == F32(math.log2(11 * 9 * 13) / math.log2(1680))
        assert np.array_equal(f[b], solver_features(st, cfg, [0, 1])[b])
    assert f.shape == (2, SOLVER_FEATURES) and f.dtype == np.float32


def test_solver_features_follow_the_analysis():
    from pi_env.solvers import analyze_knowledge, knowledge_from_observation

    cfg = GameConfig(num_players=3)
    for n, state in enumerate(play(cfg, 1, seed=11, steps=25)):
        if n % 5:
            continue
        for p in range(3):
            a = analyze_knowledge(knowledge_from_observation(observe(state, p)[0], 3, cfg.board, player=p))
            g = solver_features(state, cfg, p)[0]
            assert np.allclose(g[:12], a.suspect) and np.allclose(g[12:22], a.evidence)
            assert np.allclose(g[22:36], a.location)
            assert g[36] == F32(math.log2(a.count) / math.log2(1680))


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {}), (4, dict(edition="first")),
                                                 (5, dict(variants=("nick-of-time",))),
                                                 (2, dict(mode="duel"))])
def test_flat_encoding_never_shows_the_own_case(num_players, options):
    reasons = [own_case_pair(num_players, seed, p, encode_flat, **options)
               for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons


@pytest.mark.parametrize("num_players", [2, 3])
def test_solver_features_never_show_the_own_case(num_players):
    reasons = [own_case_pair(num_players, 1, p, encode_flat, also=(solver_features,)) for p in range(num_players)]
    assert "answer differs" in reasons


def test_solver_features_wrapper():
    from pi_env.envs.selfplay import SelfPlayVecEnv

    env = SolverFeaturesVecEnv(SelfPlayVecEnv(3, num_players=2, seed=2))
    obs, info = env.reset(seed=2)
    D = flat_size(2)
    assert obs.shape == (3, D + SOLVER_FEATURES) == env.observation_space.shape
    assert env.single_observation_space.shape == (D + SOLVER_FEATURES,)
    rng = np.random.default_rng(0)
    for _ in range(8):
        seats = info["to_move"].astype(np.int64)
        assert np.array_equal(obs[:, :D], encode_flat(env.state, env.config, seats))
        assert np.array_equal(obs[:, D:], solver_features(env.state, env.config, seats))
        acts = mixed_actions(env.state, rng)
        obs, rewards, term, trunc, info = env.step(acts)
    assert decode_observation(observe(env.state, 0)[0], 2)["held_case"].sum() == 3


@pytest.mark.parametrize("observations,D", [("packed", 150 + 269 * 3), (False, 0)])
def test_solver_features_env_over_packed_rows_and_no_rows(observations, D):
    """The wrapper sizes its rows from the wrapped env (it used the flat size whatever the
    encoding: packed rows gave a 5,354-column buffer and space with the packed rows at its start;
    with ``observations=False`` the env's own space claimed flat rows for its ``float32[B, 0]``):
    the packed rows (or none) followed by the row player's features, at every step; integer rows
    are refused in one line."""
    from pi_env.envs.encoders import encode_packed
    from pi_env.envs.selfplay import SelfPlayVecEnv

    env = SolverFeaturesVecEnv(SelfPlayVecEnv(4, num_players=3, seed=2, observations=observations))
    assert env.observation_space.shape == (4, D + SOLVER_FEATURES) and env.single_observation_space.shape[0] == D + 37
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(6):
        seats = info["to_move"].astype(np.int64)
        assert obs.shape == (4, D + SOLVER_FEATURES)
        if D:
            assert np.array_equal(obs[:, :D], encode_packed(env.state, env.config, seats))
        assert np.array_equal(obs[:, D:], solver_features(env.state, env.config, seats))
        obs, rewards, term, trunc, info = env.step(mixed_actions(env.state, rng))
    for kind in ("packed-int8", "packed-int16"):
        with pytest.raises(PIError, match=rf"^SolverFeaturesVecEnv appends float32 features to float32 rows, but the "
                                          rf"env's rows are int(8|16) \(observations='{kind}'\); use 'flat' or 'packed'$"):
            SolverFeaturesVecEnv(SelfPlayVecEnv(2, num_players=2, observations=kind))


def test_encoders_reject_a_config_for_another_player_count_and_bad_player_arrays():
    from pi_env.engine import GameConfig, init
    from pi_env.core.errors import PIError

    st = init(GameConfig(num_players=3), 4, seed=0)
    with pytest.raises(PIError, match="^config is for 4 players but the state has 3$"):
        encode_flat(st, GameConfig(num_players=4), 0)
    with pytest.raises(PIError, match="^config is for 4 players but the state has 3$"):
        solver_features(st, GameConfig(num_players=4), 0)
    with pytest.raises(PIError, match=r"^player must be an integer or int\[4\] \(one per game\), got int64\[2\]$"):
        encode_flat(st, GameConfig(num_players=3), np.array([0, 1]))
    with pytest.raises(PIError, match=r"got float64\[4\]"):
        encode_flat(st, GameConfig(num_players=3), np.zeros(4))
    assert encode_flat(st, GameConfig(num_players=3), np.array([0, 1, 2, 0])).shape[0] == 4
