"""Solo Time Attack (docs/rules.md §8, issue 5 item 1): the batched solo engine and the Gymnasium envs.

Layout S of ``test_rules.py`` (daytime board): suspect ``i`` in district ``i`` (Waterfront, Skid Row
blank), evidence ``j`` in district ``j + 4`` (Lakeside .. Trocadero blank). Neighbours: Lakeside 0
{1,2,3}, Forest Park 1 {0,3,4}, Little Italy 2 {0,3,5,6}, Trocadero 3 {0,1,2,4,6,7}, Ocean Drive 4
{1,3,7,8}, China Town 5 {2,6,9}, Central Station 6 {2,3,5,7,9,10}, Main Street 7 {3,4,6,8,10,11},
Road House 8 {4,7,11}, Union Square 9 {5,6,10,12}, Downtown 10 {6,7,9,11,12,13}, Rick's Café 11
{7,8,10,13}, Waterfront 12 {9,10,13}, Skid Row 13 {10,11,12}.

The solo case is (Doc, Forgery, Waterfront): tiles in Forest Park 1, Union Square 9, Waterfront 12.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import pi_env  # noqa: F401
from pi_env.core.board import DAYTIME
from pi_env.core.constants import (IN_DISCARD, IN_FRONT, NOTHING, NUM_ACTIONS, ON_DISPLAY, SOLVE_BASE, SPOT,
                              TRACE, case_index)
from pi_env.engine import solo as S
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from pi_env.records.record_file import clue_answer, investigate_answer, suppression
from pi_env.envs.solo import SoloTimeAttackEnv, SoloTimeAttackVectorEnv
from helpers import assert_jit_off_agrees

LAYOUT_S = tuple(range(12)) + tuple(range(4, 14)) + tuple(range(14))
CASE = case_index(1, 5, 12)  # Doc, Forgery, Waterfront
DOC, SHORTY, RUSTY, PINKY = 1, 0, 2, 9
MURDER, MOB_KILLING, FORGERY = 12, 13, 17
LAKESIDE, UNION_SQUARE_LOC, DOWNTOWN_LOC, WATERFRONT_LOC = 22, 31, 32, 34
FOREST_PARK, UNION_SQUARE, DOWNTOWN, WATERFRONT = 1, 9, 10, 12


def inv(d: int) -> int:
    return 36 + d


def solo_game(config: S.SoloConfig | None = None, **kw) -> tuple[S.SoloState, S.SoloConfig]:
    config = config or S.SoloConfig()
    return S.from_layout(config, LAYOUT_S, CASE, **kw), config


def play(state, config, *actions):
    out = []
    for a in actions:
        S.step_inplace(state, np.array([a]), config)
        out.append(tuple(int(v) for v in state.last_answer[0]))
    return out


# --------------------------------------------------------------------------------------------
# engine: exact answers on a hand-built layout


def test_clue_answers_spot_trace_nothing():
    state, config = solo_game()
    got = play(state, config, DOC, SHORTY, RUSTY, FORGERY, MURDER, MOB_KILLING, WATERFRONT_LOC,
               DOWNTOWN_LOC, LAKESIDE)
    assert [g[0] for g in got] == [SPOT, TRACE, NOTHING, SPOT, NOTHING, TRACE, SPOT, TRACE, NOTHING]
    assert np.flatnonzero(state.spot[0]).tolist() == [DOC, FORGERY, WATERFRONT_LOC]
    assert np.flatnonzero(state.trace[0]).tolist() == [SHORTY, MOB_KILLING, DOWNTOWN_LOC]
    assert np.flatnonzero(state.nothing[0]).tolist() == [RUSTY, MURDER, LAKESIDE]
    assert int(state.actions[0]) == 9 and not state.done[0]


def test_repeated_clue_is_legal_and_answers_the_same():
    state, config = solo_game()
    assert play(state, config, SHORTY, SHORTY, RUSTY, RUSTY) == [(TRACE, -1), (TRACE, -1), (NOTHING, -1),
                                                                   (NOTHING, -1)]
    assert int(state.actions[0]) == 4
    assert S.legal_action_mask(state)[0, :36].all()  # open mode: every element, always


@pytest.mark.parametrize("district,expected", [(UNION_SQUARE, (1, 1)), (FOREST_PARK, (1, 0)),
                                               (DOWNTOWN, (0, 2)), (WATERFRONT, (1, 1))])
def test_investigator_counts(district, expected):
    state, config = solo_game()
    assert play(state, config, inv(district)) == [expected]
    assert not state.inv_suppressed[0, district].any()  # (Waterfront: a blank suspect tile)
    assert int(state.inv_left[0]) == 4 and int(state.investigators_used[0]) == 1


def test_suppression_by_spot_and_trace_markers_not_by_nothing():
    state, config = solo_game()
    # Forgery spot and Union Square trace put markers on two tiles of Union Square; Pinky (its
    # suspect tile) answers nothing, which places no marker
    assert play(state, config, FORGERY, UNION_SQUARE_LOC, PINKY) == [(SPOT, -1), (TRACE, -1), (NOTHING, -1)]
    assert play(state, config, inv(UNION_SQUARE)) == [(0, 0)]
    assert state.inv_suppressed[0, UNION_SQUARE].tolist() == [False, True, True]
    # same rule as the records' reference functions
    marked = {FORGERY, UNION_SQUARE_LOC}
    sup = suppression(LAYOUT_S, marked, UNION_SQUARE)
    assert sup == (False, True, True)
    assert investigate_answer(LAYOUT_S, CASE, UNION_SQUARE, sup, DAYTIME.adjacency) == (0, 0)


def test_investigator_legality_and_exhaustion():
    state, config = solo_game(S.SoloConfig(investigators=2))
    play(state, config, inv(0))
    assert not S.is_legal(state, np.array([inv(0)]))[0]
    with pytest.raises(IllegalActionError, match="not legal"):
        S.step_inplace(state, np.array([inv(0)]), config)
    play(state, config, inv(1))
    mask = S.legal_action_mask(state)[0]
    assert not mask[36:50].any() and mask[:36].all() and mask[SOLVE_BASE:].all()
    with pytest.raises(InvalidActionError):
        S.step_inplace(state, np.array([NUM_ACTIONS]), config)


def test_solve_wrong_then_right_and_terminal_behaviour():
    state, config = solo_game()
    wrong = case_index(1, 5, 11)
    assert play(state, config, SOLVE_BASE + wrong) == [(0, -1)]
    assert state.failed[0, wrong] and int(state.wrong_solves[0]) == 1 and not state.done[0]
    assert play(state, config, SOLVE_BASE + wrong) == [(0, -1)]  # legal, fails again
    assert play(state, config, SOLVE_BASE + CASE) == [(1, -1)]
    assert state.done[0] and state.solved[0] and not state.truncated[0]
    assert int(state.actions[0]) == 3 and int(state.wrong_solves[0]) == 2
    before = state.copy()
    S.step_inplace(state, np.array([0]), config)  # a finished game does not change
    assert state.equals(before)
    assert S.legal_action_mask(state)[0].all()


def test_truncation_and_last_action_solve():
    state, config = solo_game(S.SoloConfig(max_actions=3))
    play(state, config, 0, 1, 2)
    assert state.done[0] and state.truncated[0] and not state.solved[0]
    state, config = solo_game(S.SoloConfig(max_actions=3))
    play(state, config, 0, 1, SOLVE_BASE + CASE)
    assert state.done[0] and state.solved[0] and not state.truncated[0]


def test_unchecked_illegal_action_forfeits():
    state, config = solo_game()
    play(state, config, inv(3))
    S.step_inplace(state, np.array([inv(3)]), config, check=False)
    assert state.done[0] and state.forfeited[0] and int(state.actions[0]) == 1


def test_unchecked_illegal_action_forfeits_in_a_threaded_batch():
    """From ``PARALLEL_MIN_BATCH["step"]`` games the step runs threaded; an unchecked repeated investigator
    forfeits there too (the threaded build once skipped the forfeit: no game ended, none counted it)."""
    from pi_env.core._config import PARALLEL_MIN_BATCH
    B = PARALLEL_MIN_BATCH["step"] or 4096
    config = S.SoloConfig()
    state = S.init(config, B, seed=0)
    S.step_inplace(state, np.full(B, inv(3)), config)
    S.step_inplace(state, np.full(B, inv(3)), config, check=False)
    assert int(state.forfeited.sum()) == B and int(state.done.sum()) == B
    assert state.actions.tolist() == [1] * B and state.inv_left.tolist() == [4] * B


@pytest.mark.parametrize("use_display, expected_forfeits", [(False, 4808), (True, 43605)])
def test_threaded_and_serial_step_builds_play_the_same_games(use_display, expected_forfeits):
    """The two builds of the step kernel give equal states on random play with illegal actions (repeated
    investigators; display mode: clues not on the display), which forfeit games."""
    config = S.SoloConfig(use_display=use_display, investigators=4, max_actions=30)
    B = 2148  # more than 2 of the kernel's ranges of games (S.CHUNK): every thread has work
    serial = S.init(config, B, seed=3)
    threaded = serial.copy()
    rng = np.random.default_rng(1)
    forfeits = 0
    for _ in range(40):
        a = np.where(rng.random(B) < 0.3, 36 + rng.integers(0, 14, B), rng.integers(0, 36, B))
        a = np.where(rng.random(B) < 0.05, SOLVE_BASE + rng.integers(0, 1680, B), a)
        for state, build in ((serial, S._step_kernel.serial), (threaded, S._step_kernel.parallel)):
            build(a, config.use_display, config.max_actions, config.board.adjacency, state.kernel_value())
        assert serial == threaded
        forfeits += int(serial.forfeited.sum())
        S.reset_done(serial, config)
        S.reset_done(threaded, config)
    assert forfeits == expected_forfeits


def test_display_mode_card_flow():
    config = S.SoloConfig(use_display=True)
    state, _ = solo_game(config)  # default display 0,1,2,12,13,14,22,23,24; deck 3,4,5,... top first
    assert np.flatnonzero(S.legal_action_mask(state)[0, :36]).tolist() == [0, 1, 2, 12, 13, 14, 22, 23, 24]
    assert play(state, config, RUSTY) == [(NOTHING, -1)]  # out of circulation, Bubbles (3) drawn
    assert state.card_place[0, RUSTY] == IN_FRONT and state.card_place[0, 3] == ON_DISPLAY
    assert play(state, config, DOC) == [(SPOT, -1)]  # to the discard pile, Frenchy (4) drawn
    assert state.card_place[0, DOC] == IN_DISCARD and state.card_place[0, 4] == ON_DISPLAY
    mask = S.legal_action_mask(state)[0]
    assert not mask[RUSTY] and not mask[DOC] and mask[3] and mask[4] and mask[:36].sum() == 9
    obs = S.decode_observation(S.observe(state)[0])
    assert obs["display"].sum() == 9 and obs["discard"][DOC] == 1 and obs["deck_size"][0] == 25
    with pytest.raises(IllegalActionError):
        S.step_inplace(state, np.array([RUSTY]), config)


def test_observation_components():
    state, config = solo_game(S.SoloConfig(investigators=3, max_actions=50))
    play(state, config, FORGERY, SHORTY, RUSTY, inv(UNION_SQUARE), SOLVE_BASE + 7)
    obs = S.observe(state)[0]
    assert obs.dtype == np.int16 and obs.shape == (S.OBSERVATION_SIZE,) == (2452,)
    o = S.decode_observation(obs)
    assert (o["tiles"].argmax(axis=1) == np.array(LAYOUT_S)).all() and o["tiles"].sum() == 36
    assert o["display"].all() and not o["discard"].any()
    assert np.flatnonzero(o["spot"]).tolist() == [FORGERY]
    assert np.flatnonzero(o["trace"]).tolist() == [SHORTY]
    assert np.flatnonzero(o["nothing"]).tolist() == [RUSTY]
    assert np.flatnonzero(o["inv_placed"]).tolist() == [UNION_SQUARE]
    assert (o["inv_spots"][UNION_SQUARE], o["inv_traces"][UNION_SQUARE]) == (0, 1)
    assert o["inv_suppressed"][UNION_SQUARE].tolist() == [0, 1, 0]
    assert np.flatnonzero(o["failed"]).tolist() == [7]
    assert (o["inv_left"][0], o["actions"][0], o["wrong_solves"][0], o["deck_size"][0]) == (2, 5, 1, 0)
    low, high = S.observation_bounds(config)
    assert (obs >= low).all() and (obs <= high).all()


def test_answers_match_the_records_reference_on_random_games():
    """Every answer of random solo games equals pi_env.records.record_file.clue_answer / investigate_answer."""
    config = S.SoloConfig(investigators=14, max_actions=60)
    state = S.init(config, 16, seed=11)
    rng = np.random.default_rng(0)
    marked = [set() for _ in range(16)]
    for _ in range(60):
        mask = S.legal_action_mask(state)
        acts = np.array([rng.choice(np.flatnonzero(mask[b, :50])) if rng.random() < 0.9
                         else SOLVE_BASE + rng.integers(1680) for b in range(16)])
        live = ~state.done
        S.step_inplace(state, acts, config)
        for b in np.flatnonzero(live):
            td, case, a = state.tile_district[b], S.case_of(state, int(b)), int(acts[b])
            if a < 36:
                ans = clue_answer(td, case, a, DAYTIME.adjacency)
                assert state.last_answer[b, 0] == ans
                if ans:
                    marked[b].add(a)
            elif a < 50:
                sup = suppression(td, marked[b], a - 36)
                assert tuple(state.inv_suppressed[b, a - 36]) == sup
                assert tuple(state.last_answer[b]) == investigate_answer(td, case, a - 36, sup, DAYTIME.adjacency)
            else:
                assert state.last_answer[b, 0] == int(a - SOLVE_BASE == case)


# --------------------------------------------------------------------------------------------
# engine: seeding and chance


def test_same_seed_same_case_and_batch_games_are_single_games():
    config = S.SoloConfig()
    a, b = S.init(config, 5, seed=42), S.init(config, 5, seed=42)
    assert a.equals(b)
    for g in range(5):
        assert a.take(g).equals(S.init(config, 1, seed=42 + g))
    assert len({S.case_of(a, g) for g in range(5)}) > 1
    # the layout and case do not depend on the display option (deck drawn after them)
    d = S.init(S.SoloConfig(use_display=True), 5, seed=42)
    assert np.array_equal(d.tile_district, a.tile_district) and np.array_equal(d.case, a.case)
    # a layout is a valid one: 12 suspects, 10 evidence in distinct districts
    for g in range(5):
        assert len(set(a.tile_district[g, :12])) == 12 and len(set(a.tile_district[g, 12:22])) == 10


def test_reset_games_continues_each_stream():
    config = S.SoloConfig()
    state = S.init(config, 3, seed=5)
    first = state.copy()
    S.reset_games(state, config, np.array([False, True, False]))
    assert state.take(0).equals(first.take(0)) and state.take(2).equals(first.take(2))
    assert not np.array_equal(state.tile_district[1], first.tile_district[1])
    single = S.init(config, 1, seed=6)
    S.reset_games(single, config, np.ones(1, bool))
    assert single.equals(state.take(1))


def test_bad_arguments():
    with pytest.raises(PIError, match="investigators"):
        S.SoloConfig(investigators=15)
    with pytest.raises(PIError, match="max_actions"):
        S.SoloConfig(max_actions=0)
    with pytest.raises(PIError, match="seed"):
        S.init(S.SoloConfig(), 1, seed=-1)
    with pytest.raises(PIError, match="two suspect tiles"):
        S.from_layout(S.SoloConfig(), (0,) * 36, CASE)
    with pytest.raises(PIError, match="case"):
        S.from_layout(S.SoloConfig(), LAYOUT_S, (12, 0, 0))
    with pytest.raises(PIError, match="use_display"):
        S.from_layout(S.SoloConfig(), LAYOUT_S, CASE, display=[0])


_DIGEST_SCRIPT = """
import hashlib, numpy as np
from pi_env.engine import solo as S
h = hashlib.sha256()
for display in (False, True):
    config = S.SoloConfig(use_display=display, investigators=4, max_actions=25)
    state = S.init(config, 6, seed=9)
    rng = np.random.default_rng(1)
    for t in range(80):
        mask = S.legal_action_mask(state)
        acts = []
        for b in range(6):
            u = rng.random()
            if u < 0.05:
                acts.append(50 + S.case_of(state, b))
            elif u < 0.85:
                acts.append(int(rng.choice(np.flatnonzero(mask[b, :50]))))
            else:
                acts.append(50 + int(rng.integers(1680)))
        S.step_inplace(state, np.array(acts), config)
        S.reset_done(state, config)
        for a in state.arrays():
            h.update(a.tobytes())
        h.update(S.observe(state).tobytes())
        h.update(S.legal_action_mask(state).tobytes())
print(h.hexdigest())
"""


def test_jit_off_path_gives_the_same_games():
    """docs/contributing.md §C5: the kernels run as plain Python with NUMBA_DISABLE_JIT=1 and must agree."""
    assert_jit_off_agrees(_DIGEST_SCRIPT)


# --------------------------------------------------------------------------------------------
# Gymnasium single env


@pytest.mark.filterwarnings("ignore:.*(alternative render modes|maximum and minimum values are equal)")
@pytest.mark.parametrize("kwargs", [{}, {"use_display": True}, {"render_mode": "ansi"},
                                    {"investigators": 0, "max_actions": 5, "investigator_cost": 1.5,
                                     "wrong_solve_cost": 2}])
def test_check_env(kwargs):
    check_env(SoloTimeAttackEnv(**kwargs), skip_render_check=False)


def test_check_env_through_make():
    env = gymnasium.make("pi_env/SoloTimeAttack-v0", render_mode="ansi")
    check_env(env.unwrapped)
    assert env.spec.id == "pi_env/SoloTimeAttack-v0"
    env.reset(seed=0)
    assert "Solo Time Attack" in env.render()


def test_rewards_costs_and_termination():
    env = SoloTimeAttackEnv(investigator_cost=0.5, wrong_solve_cost=2.0)
    obs, info = env.reset(options={"tile_district": LAYOUT_S, "case": CASE})
    assert info == {"actions": 0, "investigators_used": 0, "wrong_solves": 0, "forfeited": False}
    steps = [(SHORTY, -1.0, "trace"), (inv(UNION_SQUARE), -1.5, "1 spot, 1 trace"),
             (SOLVE_BASE + 0, -3.0, "wrong"), (FORGERY, -1.0, "spot")]
    total = 0.0
    for a, r, answer in steps:
        obs, reward, terminated, truncated, info = env.step(a)
        assert (reward, terminated, truncated, info["answer"]) == (r, False, False, answer)
        total += reward
    obs, reward, terminated, truncated, info = env.step(SOLVE_BASE + CASE)
    total += reward
    assert (reward, terminated, truncated, info["answer"]) == (-1.0, True, False, "correct")
    assert info["actions"] == 5 and info["investigators_used"] == 1 and info["wrong_solves"] == 1
    assert total == -(5 + 0.5 * 1 + 2.0 * 1)
    assert obs["action_mask"].all()
    again = env.step(3)  # stepping a finished episode changes nothing
    assert again[1] == 0.0 and again[2] is True and np.array_equal(again[0]["observation"], obs["observation"])


def test_truncation_at_max_actions():
    env = SoloTimeAttackEnv(max_actions=4)
    env.reset(seed=3)
    flags = [env.step(a)[2:4] for a in (0, 1, 2, 3)]
    assert flags == [(False, False)] * 3 + [(False, True)]


def test_illegal_action_forfeits_with_the_remaining_clock():
    env = SoloTimeAttackEnv(max_actions=30)
    env.reset(seed=1)
    env.step(inv(4))
    env.step(0)
    obs, reward, terminated, truncated, info = env.step(inv(4))
    assert (reward, terminated, truncated) == (-28.0, True, False)
    assert info["forfeited"] and info["answer"] == "illegal" and info["actions"] == 2
    with pytest.raises(InvalidActionError):
        env.step(NUM_ACTIONS)
    with pytest.raises(InvalidActionError):
        env.step(1.5)


def test_seeding_same_seed_same_case_and_unseeded_reset_continues_the_stream():
    env = SoloTimeAttackEnv()
    env.reset(seed=17)
    assert env.game_state.equals(S.init(env.config, 1, seed=17))
    case_17 = S.case_of(env.game_state)
    env.step(5)
    env.reset()
    nxt = S.init(env.config, 1, seed=17)
    S.reset_games(nxt, env.config, np.ones(1, bool))
    assert env.game_state.equals(nxt)
    env.reset(seed=17)
    assert S.case_of(env.game_state) == case_17
    other = SoloTimeAttackEnv()
    o1, _ = other.reset(seed=17)
    assert np.array_equal(o1["observation"], S.observe(S.init(env.config, 1, seed=17))[0])


def test_observation_hides_the_case():
    """Two games differing only in the case look the same until an answer differs."""
    a, b = SoloTimeAttackEnv(render_mode="ansi"), SoloTimeAttackEnv(render_mode="ansi")
    oa, _ = a.reset(options={"tile_district": LAYOUT_S, "case": CASE})
    ob, _ = b.reset(options={"tile_district": LAYOUT_S, "case": case_index(3, 0, 7)})
    assert all(np.array_equal(oa[k], ob[k]) for k in oa) and a.render() == b.render()
    oa, *_ = a.step(inv(0))  # Lakeside: one trace for both (Doc in Forest Park / Bubbles in Trocadero)
    ob, *_ = b.step(inv(0))
    assert all(np.array_equal(oa[k], ob[k]) for k in oa) and a.render() == b.render()
    oa, *_ = a.step(DOC)
    ob, *_ = b.step(DOC)
    assert not np.array_equal(oa["observation"], ob["observation"])


def test_difficulty_filter_draws_matching_cases():
    from pi_env.solvers.solo_rating import difficulty_filter, difficulty_of, greedy_play

    env = SoloTimeAttackEnv(accept_case=difficulty_filter("hard"))
    plain = SoloTimeAttackEnv()
    skipped = 0
    for seed in (0, 1):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        st = env.game_state
        assert difficulty_of(greedy_play(st.tile_district[0], S.case_of(st)).actions) == "hard"
        skipped += S.case_of(st) != S.case_of(plain.game_state)
    assert skipped >= 1  # hard cases are rare (12 %): at least one of the two seeds is not hard
    with pytest.raises(PIError, match="difficulty"):
        difficulty_filter("nightmare")
    with pytest.raises(PIError, match="accept_case"):
        SoloTimeAttackEnv(accept_case="hard")


# --------------------------------------------------------------------------------------------
# vector env


def test_registration_and_make_vec():
    # the engine needs no gymnasium: it imports with gymnasium blocked
    subprocess.run([sys.executable, "-c", "import sys; sys.modules['gymnasium'] = None; import pi_env.engine.solo"],
                   check=True)
    code = ("import sys, pi_env, pi_env.engine.solo; "
            "import gymnasium; e = gymnasium.make('pi_env.envs.solo:pi_env/SoloTimeAttack-v0'); e.reset(seed=0); "
            "v = gymnasium.make_vec('pi_env/SoloTimeAttack-v0', num_envs=8, "
            "vectorization_mode='vector_entry_point', max_actions=9); "
            "o, _ = v.reset(seed=0); print(type(v).__name__, o['observation'].shape, v.metadata['autoreset_mode'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["SoloTimeAttackVectorEnv", "(8,", "2452)", "AutoresetMode.NEXT_STEP"]
    v = gymnasium.make_vec("pi_env/SoloTimeAttack-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(v, SoloTimeAttackVectorEnv) and v.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert v.single_observation_space == SoloTimeAttackEnv().observation_space
    assert v.single_action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    obs, _ = v.reset(seed=1)
    assert obs in v.observation_space
    assert v.action_space.sample().shape == (3,)


def test_make_vec_registers_through_the_module_prefix_alone():
    """gymnasium >= 1.0 has no plugin entry points: the "module:id" form imports pi_env.envs.solo
    (which registers the id) in a fresh interpreter, for make_vec as for make."""
    code = ("import gymnasium; assert 'pi_env/SoloTimeAttack-v0' not in gymnasium.registry; "
            "v = gymnasium.make_vec('pi_env.envs.solo:pi_env/SoloTimeAttack-v0', num_envs=2, "
            "vectorization_mode='vector_entry_point'); print(type(v).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.split() == ["SoloTimeAttackVectorEnv"]


def _policy_action(rng, mask, state, b):
    """Masked random queries, sometimes the correct or a random solve, rarely an illegal action."""
    u = rng.random()
    if u < 0.08:
        return SOLVE_BASE + S.case_of(state, b)
    if u < 0.11:
        return SOLVE_BASE + int(rng.integers(1680))
    if u < 0.12 and not mask[36:50].all():
        return 36 + int(np.flatnonzero(mask[36:50] == 0)[0])  # illegal: forfeit
    return int(rng.choice(np.flatnonzero(mask[:50])))


@pytest.mark.parametrize("kwargs", [dict(max_actions=12), dict(use_display=True, max_actions=15,
                                                               investigators=2, investigator_cost=0.25,
                                                               wrong_solve_cost=1.0)])
def test_vector_env_equals_single_envs(kwargs):
    n, seed = 5, 100
    venv = SoloTimeAttackVectorEnv(num_envs=n, **kwargs)
    envs = [SoloTimeAttackEnv(**kwargs) for _ in range(n)]
    vobs, vinfo = venv.reset(seed=seed)
    sobs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    for i in range(n):
        assert np.array_equal(vobs["observation"][i], sobs[i]["observation"])
        assert np.array_equal(vobs["action_mask"][i], sobs[i]["action_mask"])
    rng = np.random.default_rng(7)
    ended = np.zeros(n, dtype=bool)
    seen = {"terminated": 0, "truncated": 0, "forfeited": 0, "autoreset": 0}
    for _ in range(150):
        actions = np.array([_policy_action(rng, vobs["action_mask"][i], envs[i].game_state, 0)
                            for i in range(n)])
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions)
        for i, e in enumerate(envs):
            if ended[i]:  # NEXT_STEP: this step resets the sub-env and ignores its action
                o, info = e.reset()
                r, term, trunc = 0.0, False, False
                seen["autoreset"] += 1
            else:
                o, r, term, trunc, info = e.step(int(actions[i]))
                seen["forfeited"] += info["forfeited"]
            assert np.array_equal(vobs["observation"][i], o["observation"])
            assert np.array_equal(vobs["action_mask"][i], o["action_mask"])
            assert (vrew[i], vterm[i], vtrunc[i]) == (r, term, trunc)
            for k in ("actions", "investigators_used", "wrong_solves", "forfeited"):
                assert vinfo[k][i] == info[k] and vinfo["_" + k][i]
            assert venv.game_state.take(i).equals(e.game_state)
            seen["terminated"] += term
            seen["truncated"] += trunc
        ended = vterm | vtrunc
    assert vrew.dtype == np.float64 and vterm.shape == vtrunc.shape == (n,)
    assert all(v > 0 for v in seen.values()), seen


def test_vector_autoreset_next_step_semantics():
    venv = SoloTimeAttackVectorEnv(num_envs=2, max_actions=50)
    venv.reset(seed=8)
    correct = SOLVE_BASE + S.case_of(venv.game_state, 0)
    obs, rew, term, trunc, _ = venv.step(np.array([correct, 0]))
    assert term.tolist() == [True, False] and rew.tolist() == [-1.0, -1.0]
    # the next step resets sub-env 0 (its action is ignored) and steps sub-env 1
    obs, rew, term, trunc, info = venv.step(np.array([inv(0), 1]))
    assert rew.tolist() == [0.0, -1.0] and term.tolist() == [False, False] and trunc.tolist() == [False, False]
    assert info["actions"].tolist() == [0, 2]
    assert not S.decode_observation(obs["observation"][0])["inv_placed"].any()  # inv(0) was ignored
    expected = S.init(venv.config, 1, seed=8)
    S.reset_games(expected, venv.config, np.ones(1, bool))  # the next game of sub-env 0's stream
    assert venv.game_state.take(0).equals(expected)


def test_vector_reset_seed_forms_and_errors():
    v = SoloTimeAttackVectorEnv(num_envs=3)
    o1, _ = v.reset(seed=[5, 6, 7])
    o2, _ = v.reset(seed=5)
    assert np.array_equal(o1["observation"], o2["observation"])
    o3, _ = v.reset(seed=[None, 6, None])
    assert np.array_equal(o3["observation"][1], o2["observation"][1])
    with pytest.raises(PIError):
        v.reset(seed=[1, 2])
    with pytest.raises(InvalidActionError):
        v.step(np.array([0, 1]))
    with pytest.raises(InvalidActionError):
        v.step(np.array([0, 1, -1]))
    v2 = SoloTimeAttackVectorEnv(num_envs=2, render_mode="ansi")
    v2.reset(seed=0)
    frames = v2.render()
    assert len(frames) == 2 and all("Solo Time Attack" in f for f in frames)


def test_vector_env_steps_a_large_batch():
    v = SoloTimeAttackVectorEnv(num_envs=512, max_actions=20)
    obs, _ = v.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(25):
        masks = obs["action_mask"][:, :50].astype(float)
        actions = np.array([rng.choice(50, p=m / m.sum()) for m in masks])
        obs, rew, term, trunc, _ = v.step(actions)
    assert obs["observation"].shape == (512, 2452)
    digest = hashlib.sha256(obs["observation"].tobytes()).hexdigest()
    v.reset(seed=0)  # deterministic
    rng = np.random.default_rng(0)
    obs, _ = v.reset(seed=0)
    for _ in range(25):
        masks = obs["action_mask"][:, :50].astype(float)
        actions = np.array([rng.choice(50, p=m / m.sum()) for m in masks])
        obs, *_ = v.step(actions)
    assert hashlib.sha256(obs["observation"].tobytes()).hexdigest() == digest
