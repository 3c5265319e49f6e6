"""The batched self-play env (issue #7 item 1): rows, rewards accumulated between a seat's turns,
terminal rows and ``NEXT_STEP`` autoreset, fixed opponents and seat rotation, checked against the
engine stepped by hand."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from pi_env.agents import RandomAgent, opponent_factory
from pi_env.core.constants import NUM_CASES, ON_DISPLAY, SOLVE_BASE, case_index
from pi_env.envs.encoders import encode_flat
from pi_env.engine import init, legal_action_mask, reset_done, step_inplace
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError, UnknownNameError
from pi_env.envs.selfplay import SelfPlayVecEnv
from test_encoders import mixed_policy


def own_case_action(state, b, p):
    s, e, l = (int(v) for v in state.case[b, p])
    return SOLVE_BASE + case_index(s, e, l)


def wrong_case_action(state, b, p):
    c = own_case_action(state, b, p) - SOLVE_BASE
    return SOLVE_BASE + (c + 1) % NUM_CASES


def a_clue(state, b):
    return int(np.flatnonzero(state.card_place[b] == ON_DISPLAY)[0])


def test_rewards_reach_each_seat_at_its_next_row_exactly():
    """A scripted 2-player game: F solves at once in round 1 (+7), O fails in round 2 (-2), F fails
    in round 3 (-2). Each seat is paid at its own next row; the terminal rows pay the rest."""
    env = SelfPlayVecEnv(1, num_players=2, seed=3)
    obs, info = env.reset(seed=3)
    st = env.state
    F = int(st.current_player[0])
    O = 1 - F
    rows = [(int(info["to_move"][0]), 0.0, False)]

    def step(action):
        _, r, te, tr, inf = env.step(np.array([action]))
        assert not tr[0]
        rows.append((int(inf["to_move"][0]), float(r[0]), bool(te[0])))

    step(own_case_action(st, 0, F))  # round 1: F correct, tier 0: +7
    step(a_clue(st, 0))  # O; end of rotation, only O has not attempted: the round ends
    assert int(st.round[0]) == 1 and int(st.current_player[0]) == O  # round 2: O first
    step(wrong_case_action(st, 0, O))  # O -2
    step(a_clue(st, 0))  # F; the round ends, round 3 starts with F
    assert int(st.round[0]) == 2
    step(wrong_case_action(st, 0, F))  # F -2
    step(a_clue(st, 0))  # O; the round and the game end
    assert st.done[0] and st.score[0, F] == 5 and st.score[0, O] == -2
    step(99999)  # terminal rows: the action is ignored, even out of range
    step(-1)  # the last terminal row was returned: autoreset
    assert rows == [(F, 0.0, False), (O, 0.0, False), (O, 0.0, False), (F, 7.0, False),
                    (F, 0.0, False), (O, -2.0, False),
                    (F, -2.0, True),  # terminal rows in turn order after the last actor (O)
                    (O, 0.0, True),
                    (rows[-1][0], 0.0, False)]  # a new game
    assert int(st.turn[0]) == 0 and int(st.round[0]) == 0 and not st.done[0]
    assert rows[-1][0] == int(st.current_player[0])
    for seat, final in ((F, 5.0), (O, -2.0)):
        assert sum(r for s, r, _ in rows[:-1] if s == seat) == final


def slot_mirrors(config, batch, seed):
    """One ``B == 1`` engine game per slot, seeded like ``init(config, batch, seed)`` seeds it."""
    words = np.random.SeedSequence(seed).generate_state(batch, dtype=np.uint64)
    return [init(config, 1, seed=np.array([words[b]], dtype=np.uint64)) for b in range(batch)]


@pytest.mark.parametrize("options", [dict(num_players=3), dict(num_players=2, edition="first"),
                                     dict(num_players=4, variants=("nick-of-time", "fast")),
                                     dict(num_players=2, mode="duel"),
                                     dict(num_players=3, max_rotations=2)])
def test_selfplay_against_the_engine_by_hand(options):
    """Every seat a learner: the env's games are the engine's games (one B == 1 mirror per slot,
    stepped by hand); rows, rewards summed by hand between a seat's rows, terminal rows (one
    per seat, in order), autoreset, observations and masks."""
    B = 4
    env = SelfPlayVecEnv(B, seed=9, **options)
    cfg = env.config
    P = cfg.num_players
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=9)
    mirrors = slot_mirrors(cfg, B, 9)
    rng = np.random.default_rng(1)
    pending = [np.zeros(P) for _ in range(B)]  # engine rewards not yet paid, per seat
    paid = [np.zeros(P) for _ in range(B)]  # paid this game
    terminal_seats: list[list[int]] = [[] for _ in range(B)]
    after_terminal = [False] * B
    games = 0
    a = np.zeros(B, dtype=np.int64)
    rewards = np.zeros(B, dtype=np.float32)
    term = trunc = np.zeros(B, dtype=bool)
    for call in range(400):
        st = env.state
        seats = info["to_move"].astype(np.int64)
        assert np.array_equal(obs, encode_flat(st, cfg, seats))
        assert np.array_equal(info["action_mask"], legal_action_mask(st))
        for b in range(B):
            m = mirrors[b]  # the mirror plays the same game
            assert np.array_equal(m.case[0], st.case[b]) and np.array_equal(m.spot[0], st.spot[b])
            assert int(m.turn[0]) == int(st.turn[b]) and np.array_equal(m.score[0], st.score[b])
            s = int(seats[b])
            ended = bool(term[b] or trunc[b])
            assert rewards[b] == pending[b][s]
            paid[b][s] += rewards[b]
            pending[b][s] = 0
            if ended:
                assert m.done[0] and bool(trunc[b]) == bool(m.truncated[0])
                terminal_seats[b].append(s)
                if len(terminal_seats[b]) == P:
                    last = int(m.last_player[0])
                    assert terminal_seats[b] == [(last + 1 + k) % P for k in range(P)]
                    assert np.array_equal(paid[b], m.score[0]) or cfg.is_duel
                    if cfg.is_duel:  # rewards are results: rounds won - lost, +-1 for the game
                        assert paid[b].sum() == 0
                    games += 1
                a[b] = rng.integers(-5, 99999)  # ignored
            else:
                assert not m.done[0] and s == int(m.current_player[0]) == int(st.current_player[b])
                assert not after_terminal[b] or (int(m.turn[0]) == 0 and rewards[b] == 0)
                a[b] = mixed_policy(st, rng, b, solve_true=0.4)
            after_terminal[b] = ended and len(terminal_seats[b]) == P
        obs, rewards, term, trunc, info = env.step(a)
        for b in range(B):
            m = mirrors[b]
            if after_terminal[b]:
                reset_done(m, cfg)
                terminal_seats[b] = []
                pending[b][:] = 0
                paid[b][:] = 0
            elif not m.done[0]:
                step_inplace(m, a[b:b + 1], cfg)
                pending[b] += m.rewards[0]
    assert games >= 8


def test_fixed_opponents_give_only_learner_rows_and_rotate_seats():
    B = 6
    env = SelfPlayVecEnv(B, num_players=2, opponents=[opponent_factory("random")], seed=4)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    seats_per_slot: list[list[int]] = [[] for _ in range(B)]
    score_paid = np.zeros(B)
    learned = 0
    jumps = 0
    for _ in range(300):
        st = env.state
        learner = env.learner_mask
        assert learner.sum(axis=1).tolist() == [1] * B
        seats = info["to_move"].astype(np.int64)
        assert learner[np.arange(B), seats].all()
        assert np.array_equal(obs, encode_flat(st, env.config, seats))
        a = np.array([mixed_policy(st, rng, b, solve_true=0.3) if not st.done[b] else 0 for b in range(B)])
        turn_before = st.turn.copy()
        was_turn = ~st.done
        obs, rewards, term, trunc, info = env.step(a)
        score_paid += rewards
        for b in range(B):
            if term[b] or trunc[b]:
                s = int(info["to_move"][b])
                assert score_paid[b] == st.score[b, s]  # every learner reward arrived
                seats_per_slot[b].append(s)
                score_paid[b] = 0
                learned += 1
            elif was_turn[b] and not (st.turn[b] == 0):
                jumps += int(st.turn[b] - turn_before[b] >= 2)  # the opponent moved in between
    assert learned >= 12 and jumps > 100
    for b in range(B):  # "rotate": the learner's seat moves on with every game of the slot
        seq = seats_per_slot[b]
        assert all(seq[k + 1] == (seq[k] + 1) % 2 for k in range(len(seq) - 1))


def test_opponent_kinds_and_learner_seat_choices():
    env = SelfPlayVecEnv(4, num_players=3, opponents=[RandomAgent(), "self"], learner_seats=2, seed=1)
    obs, info = env.reset()
    lm = env.learner_mask
    # relative seat 1 (player 0) is the agent, relative seat 2 (player 1) learns too
    assert lm[:, 2].all() and lm[:, 1].all() and not lm[:, 0].any()
    for _ in range(60):
        assert set(info["to_move"].tolist()) <= {1, 2}
        assert np.array_equal(obs, encode_flat(env.state, env.config, info["to_move"].astype(np.int64)))
        obs, r, te, tr, info = env.step(env.sample_actions())
    env = SelfPlayVecEnv(3, num_players=2, opponents=[lambda: RandomAgent()], learner_seats="random", seed=1)
    env.reset()
    for _ in range(30):
        env.step(env.sample_actions())
    # same seed, same everything
    runs = []
    for _ in range(2):
        e = SelfPlayVecEnv(3, num_players=2, opponents=[opponent_factory("random")], seed=5)
        o, i = e.reset()
        out = [o.copy()]
        for _ in range(25):
            o, r, te, tr, i = e.step(e.sample_actions())
            out.extend([o.copy(), r.copy(), i["to_move"].copy()])
        runs.append(out)
    assert all(np.array_equal(x, y) for x, y in zip(*runs))


def test_observation_views_and_copies():
    env = SelfPlayVecEnv(2, num_players=2, seed=0)
    obs, info = env.reset()
    assert not obs.flags.writeable and not info["action_mask"].flags.writeable
    with pytest.raises(ValueError):
        obs[0, 0] = 1.0
    assert obs.shape == env.observation_space.shape and env.single_observation_space.contains(obs[0])
    assert env.single_action_space.n == 1730 and env.action_space.shape == (2,)
    env = SelfPlayVecEnv(2, num_players=2, seed=0, copy=True)
    obs, info = env.reset()
    first = obs.copy()
    obs2, *_ = env.step(env.sample_actions())
    assert np.array_equal(obs, first) and obs.flags.writeable
    assert env.engine_observations().shape == (2, 4442)


def test_errors():
    env = SelfPlayVecEnv(2, num_players=2, seed=0)
    with pytest.raises(PIError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(InvalidActionError, match="outside"):
        env.step(np.array([50, 5000]))
    st = env.state
    off = int(np.flatnonzero(st.card_place[1] != ON_DISPLAY)[0])
    before = st.copy()
    with pytest.raises(IllegalActionError, match="game 1: action"):
        env.step(np.array([50, off]))
    assert st.equals(before)
    with pytest.raises(PIError, match="needs 2"):
        SelfPlayVecEnv(2, num_players=3, opponents=[opponent_factory("random")])
    with pytest.raises(UnknownNameError):
        opponent_factory("randon")
    with pytest.raises(PIError, match="make_agent"):
        SelfPlayVecEnv(2, num_players=2, opponents=["random"])
    with pytest.raises(PIError, match="learner_seats"):
        SelfPlayVecEnv(2, num_players=2, learner_seats=2)
    with pytest.raises(PIError, match="num_envs"):
        SelfPlayVecEnv(0)
    with pytest.raises(PIError, match="option"):
        env.reset(options={"x": 1})


def test_module_doctests():
    import pi_env.envs.board_image
    import pi_env.envs.encoders
    import pi_env.envs.selfplay

    for module in (pi_env.envs.selfplay, pi_env.envs.encoders, pi_env.envs.board_image):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0


def test_many_failed_solves_in_one_round():
    """A seat that fails more often than the env's failed-solve lists hold (the encoder then scans
    the engine's flags): observations stay exact, and a new round starts empty again."""
    env = SelfPlayVecEnv(2, num_players=3, seed=8)
    obs, info = env.reset(seed=8)
    st = env.state
    rng = np.random.default_rng(2)
    while (st.failed[:, 0].sum(axis=1) < 20).any():
        a = np.zeros(2, dtype=np.int64)
        for b in range(2):
            if int(info["to_move"][b]) == 0:  # a new wrong triple every time
                named = int(st.failed[b, 0].sum())
                a[b] = SOLVE_BASE + (own_case_action(st, b, 0) - SOLVE_BASE + 1 + named) % NUM_CASES
            else:
                queries = np.flatnonzero(info["action_mask"][b, :SOLVE_BASE])
                a[b] = rng.choice(queries)
        obs, rewards, term, trunc, info = env.step(a)
        assert np.array_equal(obs, encode_flat(st, env.config, info["to_move"].astype(np.int64)))
        assert int(st.round[0]) == 0
    assert (st.failed[:, 0].sum(axis=1) > 16).all() and (env._failed.count[:, 0] > 16).all()
    rounds = st.round.copy()
    while (st.round == rounds).any():  # now everyone attempts: the round ends
        a = np.array([wrong_case_action(st, b, int(info["to_move"][b])) for b in range(2)])
        obs, rewards, term, trunc, info = env.step(a)
        assert np.array_equal(obs, encode_flat(st, env.config, info["to_move"].astype(np.int64)))
    assert (env._failed.count[st.round != rounds] <= 1).all()


def test_a_closed_env_says_so():
    env = SelfPlayVecEnv(num_envs=2, num_players=2, opponents=[opponent_factory("random")], seed=0)
    env.reset()
    env.close()
    with pytest.raises(PIError, match=r"^the env is closed \(its opponents are gone\); make a new one$"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(PIError, match="the env is closed"):
        env.reset()


@pytest.mark.parametrize("num_players,observations,check,parallel", [
    (2, True, True, False), (4, True, False, True), (3, False, False, None), (5, True, True, True)])
def test_the_fused_turn_equals_the_separate_stages(num_players, observations, check, parallel):
    """Every seat a learner: one fused call per turn (pi_env.engine.rows.SelfPlayTurn: step,
    failed solves, new games, next rows, observation and mask) returns exactly what the separate
    stages return (the same env with the fused turn switched off), over many games; unchecked,
    also with illegal actions (their games are not stepped and their rows come again)."""
    B = 37
    envs = [SelfPlayVecEnv(B, num_players=num_players, seed=4, observations=observations, check=check,
                           parallel=parallel) for _ in range(2)]
    outs = [e.reset(seed=4) for e in envs]
    assert envs[0]._turn is not None
    envs[1]._turn = None  # the separate stages
    rng = np.random.default_rng(7)
    ends = 0
    for call in range(700):
        a = envs[0].sample_actions(rng)
        if not check:
            a[rng.random(B) < 0.05] = rng.integers(0, 50)  # some of them illegal
        outs = [e.step(a.copy()) for e in envs]
        (o0, r0, t0, u0, i0), (o1, r1, t1, u1, i1) = outs
        for x, y in ((o0, o1), (r0, r1), (t0, t1), (u0, u1), (i0["action_mask"], i1["action_mask"]),
                     (i0["to_move"], i1["to_move"])):
            assert np.array_equal(x, y), call
        assert o0.shape == (B, envs[0].single_observation_space.shape[0] if observations else 0)
        ends += int(t0.sum() + u0.sum())
    for x, y in zip(envs[0].state.arrays(), envs[1].state.arrays()):
        assert np.array_equal(x, y)
    assert np.array_equal(envs[0]._games, envs[1]._games) and ends > B
