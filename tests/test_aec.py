"""Tests of the PettingZoo AEC environment ``pi_env.envs.aec`` (docs/contributing.md §C11, §C12; docs/rules.md §4, §5).

PettingZoo's own conformance checks (``api_test``, ``seed_test``, ``render_test``) plus exact checks
of rewards, terminations/truncations, infos, observations and seeding against the engine.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from pi_env.core.actions import action_name
from pi_env.envs.aec import env, observation_bounds, raw_env
from pi_env.core.board import DAYTIME
from pi_env.core.constants import (INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE, TYPE_OFFSETS, case_index)
from pi_env.engine import (GameConfig, decode_observation, init, legal_action_mask, observation_size,
                           observe, outcome, step_inplace)
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from pi_env.envs.render import render_text
from pi_env.core.names import element_names

from helpers import policy_action

# api_test warns about these for every dict-observation env that is not one of PettingZoo's own
# classic games (it whitelists those by name); anything else is a real finding.
KNOWN_API_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def run_api_test(e) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(e, num_cycles=1000)
    unexpected = {str(w.message) for w in caught} - KNOWN_API_WARNINGS
    assert not unexpected


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_api_second_edition(num_players):
    run_api_test(env(num_players=num_players))


@pytest.mark.parametrize("num_players", [2, 4, 5])
def test_api_first_edition(num_players):
    run_api_test(env(num_players=num_players, edition="first"))


def test_api_fast_variant_and_small_safeguard():
    run_api_test(env(num_players=3, variants=("fast",), max_rotations=2))


@pytest.mark.parametrize("kwargs", [
    dict(mode="duel"), dict(mode="duel", edition="first", variants=("fast",), max_rounds=4),
    dict(num_players=4, variants=("fast",)), dict(num_players=4, variants=("nick-of-time",)),
    dict(num_players=3, variants=("nick-of-time",), edition="first"),
    dict(num_players=4, investigators=[5, 5, 3, 3]), dict(num_players=3, investigators=(0, 1, 5))],
    ids=["duel", "duel-first-fast-maxr4", "fast", "nick-of-time", "nick-of-time-first", "inv5533",
         "inv015"])
def test_api_modes_and_variants(kwargs):
    run_api_test(env(**kwargs))


@pytest.mark.parametrize("kwargs", [dict(num_players=2), dict(num_players=4),
                                    dict(num_players=5, edition="first"), dict(mode="duel"),
                                    dict(mode="duel", max_rounds=3, max_rotations=2)])
def test_seed_test(kwargs):
    seed_test(lambda: env(**kwargs), num_cycles=300)


def test_render_test_and_text():
    def ansi_ok(text):
        lines = text.splitlines()
        return (lines[0].startswith("P.I. (second edition, 4 players): round ")
                and "Board" in lines and not any(l.startswith("Held case") for l in lines))

    render_test(lambda render_mode=None: env(render_mode=render_mode), custom_tests={"ansi": ansi_ok})


def test_render_ansi_first_frame_and_none_mode():
    e = env(num_players=3, render_mode="ansi")
    e.reset(seed=5)
    text = e.render()
    assert text.splitlines()[0] == "P.I. (second edition, 3 players): round 1/3, rotation 1, tier 0, turn 0"
    first = int(e.unwrapped.game_state.first_player[0])
    assert text.splitlines()[1] == f"To move: P{first}; first player this round: P{first}"
    quiet = env(num_players=3)
    quiet.reset(seed=5)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert quiet.render() is None


def test_human_render_prints(capsys):
    e = raw_env(num_players=2, render_mode="human")
    e.reset(seed=1)
    out = capsys.readouterr().out
    assert out.startswith("P.I. (second edition, 2 players): round 1/3, rotation 1, tier 0, turn 0\n")
    assert e.render() is None
    assert capsys.readouterr().out == out


def test_metadata_agents_and_spaces():
    e = raw_env(num_players=5)
    assert e.metadata == {"name": "pi_v0", "render_modes": ["ansi", "human", "rgb_array"],
                          "is_parallelizable": False, "render_fps": 1}
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        assert e.action_space(a).n == NUM_ACTIONS == 1730
        box = e.observation_space(a)["observation"]
        assert box.shape == (618 + 1912 * 5,) == (observation_size(5),)
        assert box.dtype == np.int16
        mbox = e.observation_space(a)["action_mask"]
        assert mbox.shape == (1730,) and mbox.dtype == np.int8


def test_observation_bounds_exact():
    low, high = observation_bounds(GameConfig(num_players=4))
    lo = decode_observation(low, 4)
    hi = decode_observation(high, 4)
    assert lo["score"].tolist() == [-5] * 4 and hi["score"].tolist() == [21] * 4
    assert hi["inv_spots"].max() == 3 and hi["inv_left"].tolist() == [5] * 4
    assert (hi["round"][0], hi["tier"][0], hi["rotation"][0], hi["deck_size"][0]) == (3, 4, 60, 36)
    assert (hi["first_seat"][0], hi["to_move"][0]) == (3, 3)
    assert hi["failed"].max() == 1 and lo["failed"].min() == 0
    low1, high1 = observation_bounds(GameConfig(num_players=2, edition="first", max_rotations=10,
                                                variants=("fast",)))
    s1 = decode_observation(low1, 2)["score"].tolist(), decode_observation(high1, 2)["score"].tolist()
    assert s1 == ([-40, -40], [14, 14])


def play(e, seed, policy_seed, max_steps=100_000, record=None):
    """Play ``e`` (wrapped or raw) to the end with :func:`policy_action`.

    Returns (actions taken in order, total reward summed from ``last()`` per agent).
    """
    rng = np.random.default_rng(policy_seed)
    e.reset(seed=seed)
    total = dict.fromkeys(e.possible_agents, 0)
    actions = []
    for n, agent in enumerate(e.agent_iter(max_steps)):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if record is not None:
            record.append((agent, obs, reward, term, trunc, info))
        if term or trunc:
            e.step(None)
            continue
        a = policy_action(e.unwrapped.game_state, rng, obs["action_mask"])
        actions.append(a)
        e.step(a)
    return actions, total


def replay(config, seed, actions):
    state = init(config, 1, seed)
    buf = np.zeros(1, dtype=np.int64)
    for a in actions:
        buf[0] = a
        step_inplace(state, buf, config)
    return state


def test_cumulative_rewards_equal_engine_scores():
    e = env(num_players=4)
    actions, total = play(e, seed=2024, policy_seed=7)
    config = GameConfig(num_players=4)
    final = replay(config, 2024, actions)
    assert bool(final.done[0])
    res = outcome(final, config)
    assert tuple(total[f"player_{i}"] for i in range(4)) == res.scores
    # golden values for this seed and policy (second edition: tier points + round bonus, -2 per
    # miss, floored at -5: player_1 missed five times, player_2 three times)
    assert len(actions) == 51
    assert res.scores == (13, -5, -5, -2)
    assert final.solve_points[0].tolist() == [15, 0, 0, 0]
    assert final.penalty[0].tolist() == [2, 10, 6, 2]


def test_rewards_of_every_step_match_engine_and_infos_are_exact():
    e = raw_env(num_players=3, edition="first")
    config = e.config
    rng = np.random.default_rng(3)
    e.reset(seed=11)
    state = init(config, 1, 11)
    buf = np.zeros(1, dtype=np.int64)
    kinds = set()
    while not state.done[0]:
        agent = e.agent_selection
        p = int(state.current_player[0])
        assert agent == f"player_{p}"
        mask = e.observe(agent)["action_mask"]
        a = policy_action(state, rng, mask)
        # the answer by the rules (docs/rules.md §4), computed here independently of the engine
        if a < INVESTIGATE_BASE:
            t = 0 if a < 12 else (1 if a < 22 else 2)
            y = TYPE_OFFSETS[t] + int(state.case[0, p, t])
            dx, dy = int(state.tile_district[0, a]), int(state.tile_district[0, y])
            expected = "spot" if a == y else ("trace" if DAYTIME.adjacency[dx, dy] else "nothing")
        elif a < SOLVE_BASE:
            d = a - INVESTIGATE_BASE
            ns = nt = 0
            for t in range(3):
                tile = int(state.district_tile[0, d, t])
                if tile >= 0 and (state.spot[0, p, tile] or state.trace[0, p, tile]):
                    continue
                dy = int(state.tile_district[0, TYPE_OFFSETS[t] + int(state.case[0, p, t])])
                ns += dy == d
                nt += bool(dy != d and DAYTIME.adjacency[dy, d])
            expected = f"{ns} spot{'' if ns == 1 else 's'}, {nt} trace{'' if nt == 1 else 's'}"
        else:
            s, ev, l = (int(v) for v in state.case[0, p])
            expected = "correct" if a - SOLVE_BASE == case_index(s, ev, l) else "wrong"
        kinds.add(expected.split()[-1])
        e.step(a)
        buf[0] = a
        step_inplace(state, buf, config)
        assert e.rewards == {f"player_{i}": int(state.rewards[0, i]) for i in range(3)}
        info = e.infos[agent]
        assert info["action"] == a
        assert info["last_action"] == action_name(a)
        assert info["answer"] == expected
    assert kinds >= {"spot", "trace", "nothing", "traces", "correct", "wrong"}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    res = outcome(state, config)
    for i in range(3):
        assert e.infos[f"player_{i}"]["rank"] == res.ranks[i]
        assert e.infos[f"player_{i}"]["scores"] == res.scores


def test_illegal_action_terminates_with_minus_one():
    e = env(num_players=4)
    e.reset(seed=3)
    offender = e.agent_selection
    mask = e.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask[:INVESTIGATE_BASE] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values()) and all(e.truncations.values())
    assert e.rewards == {a: (-1 if a == offender else 0) for a in e.possible_agents}
    seen = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term and trunc
        seen[agent] = reward
        e.step(None)
    assert seen == {a: (-1 if a == offender else 0) for a in e.possible_agents}
    assert e.agents == []


def test_raw_env_checks_actions():
    e = raw_env(num_players=2)
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask[:INVESTIGATE_BASE] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} \\(clue "):
        e.step(illegal)
    with pytest.raises(InvalidActionError):
        e.step(NUM_ACTIONS)
    with pytest.raises(InvalidActionError):
        e.step(1.5)
    with pytest.raises(AssertionError):
        wrapped = env(num_players=2)
        wrapped.reset(seed=3)
        wrapped.step(NUM_ACTIONS)
    e.step(np.int32(SOLVE_BASE))  # numpy integers are accepted
    assert e.infos[f"player_{int(e.game_state.last_player[0])}"]["action"] == SOLVE_BASE


def test_observe_matches_engine_and_mask_only_for_agent_to_move():
    e = raw_env(num_players=5)
    e.reset(seed=9)
    state = e.game_state
    rng = np.random.default_rng(0)
    for _ in range(40):
        for i, agent in enumerate(e.possible_agents):
            o = e.observe(agent)
            assert np.array_equal(o["observation"], observe(state, i)[0])
            if agent == e.agent_selection:
                assert np.array_equal(o["action_mask"], legal_action_mask(state)[0])
            else:
                assert not o["action_mask"].any()
        e.step(policy_action(state, rng, e.observe(e.agent_selection)["action_mask"], solve_true=0.0))
        if state.done[0]:
            break
    # fresh arrays: keeping an observation is safe
    a = e.agent_selection
    kept = e.observe(a)
    kept["observation"][:] = -7
    assert not np.array_equal(e.observe(a)["observation"], kept["observation"])


@pytest.mark.parametrize("num_players,edition", [(2, "second"), (3, "first"), (4, "second"), (5, "first")])
def test_observation_spaces_contain_observations(num_players, edition):
    e = raw_env(num_players=num_players, edition=edition)
    rng = np.random.default_rng(num_players)
    e.reset(seed=100 + num_players)
    spaces_ = {a: e.observation_space(a) for a in e.possible_agents}
    steps = 0
    while not e.game_state.done[0]:
        for a in e.possible_agents:
            assert spaces_[a].contains(e.observe(a))
        e.step(policy_action(e.game_state, rng, e.observe(e.agent_selection)["action_mask"]))
        steps += 1
    for a in e.possible_agents:
        assert spaces_[a].contains(e.observe(a))
    assert steps > 20


def _always_wrong(e):
    """Every agent names a wrong case on every turn; returns the final observation of player_0."""
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        p = int(agent.split("_")[1])
        s, ev, l = (int(v) for v in e.unwrapped.game_state.case[0, p])
        e.step(SOLVE_BASE + case_index(s, ev, (l + 1) % 14))
    return obs


def test_safeguard_is_reported_as_truncation_and_bounds_are_reached():
    # first edition: nobody solves, so every round runs into the safeguard (max_rotations = 3)
    e = env(num_players=3, edition="first", max_rotations=3)
    e.reset(seed=0)
    space = e.observation_space("player_0")
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert (term, trunc) == (False, True)
            assert space.contains(obs)
            final[agent] = decode_observation(obs["observation"], 3)
            e.step(None)
            continue
        p = int(agent.split("_")[1])
        s, ev, l = (int(v) for v in e.unwrapped.game_state.case[0, p])
        e.step(SOLVE_BASE + case_index(s, ev, (l + 1) % 14))
    assert set(final) == {"player_0", "player_1", "player_2"}
    low = decode_observation(observation_bounds(e.unwrapped.config)[0], 3)
    for view in final.values():
        assert view["score"].tolist() == [-18, -18, -18] == low["score"].tolist()
        assert (int(view["rotation"][0]), int(view["round"][0])) == (3, 3)


def test_normal_end_is_termination_and_score_floor():
    e = env(num_players=4)
    e.reset(seed=1)
    ended = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            ended.append((agent, term, trunc, decode_observation(obs["observation"], 4)["score"].tolist()))
            e.step(None)
            continue
        p = int(agent.split("_")[1])
        s, ev, l = (int(v) for v in e.unwrapped.game_state.case[0, p])
        e.step(SOLVE_BASE + case_index(s, ev, (l + 1) % 14))
    assert sorted(a for a, *_ in ended) == [f"player_{i}" for i in range(4)]
    # three wrong attempts each: -6, floored at -5 (second edition)
    assert all(t and not tr and sc == [-5, -5, -5, -5] for _, t, tr, sc in ended)


def test_same_seed_identical_trajectories_and_engine_seed():
    rec1, rec2 = [], []
    a1, t1 = play(env(num_players=4), seed=42, policy_seed=1, record=rec1)
    a2, t2 = play(env(num_players=4), seed=42, policy_seed=1, record=rec2)
    assert a1 == a2 and t1 == t2 and len(rec1) == len(rec2) > 50
    for (ag1, o1, r1, te1, tr1, i1), (ag2, o2, r2, te2, tr2, i2) in zip(rec1, rec2):
        assert ag1 == ag2 and r1 == r2 and te1 == te2 and tr1 == tr2 and i1 == i2
        assert np.array_equal(o1["observation"], o2["observation"])
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
    # reset(seed=s) is the engine game init(config, 1, s)
    e = raw_env(num_players=4)
    e.reset(seed=42)
    ref = init(GameConfig(num_players=4), 1, 42)
    assert e.game_state.equals(ref)
    e.reset(seed=43)
    assert not e.game_state.equals(ref)
    # later resets set the game up again in the same arrays, exactly as init does, even after play
    rng = np.random.default_rng(0)
    for _ in range(30):
        e.step(policy_action(e.game_state, rng, e.observe(e.agent_selection)["action_mask"]))
    e.reset(seed=42)
    assert e.game_state.equals(ref)


def test_unseeded_reset_follows_the_last_seed():
    e1, e2 = raw_env(num_players=3), raw_env(num_players=3)
    e1.reset(seed=5)
    e2.reset(seed=5)
    e1.reset()
    e2.reset()
    assert e1.game_state.equals(e2.game_state)
    seeded = init(e1.config, 1, 5)
    assert not e1.game_state.equals(seeded)
    e1.reset()
    assert not e1.game_state.equals(e2.game_state)


def test_pickle_and_lazy_exports():
    e = pickle.loads(pickle.dumps(raw_env(num_players=3, edition="first")))
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1", "player_2"] and e.config.edition == "first"
    import pi_env
    assert pi_env.env is env and pi_env.raw_env is raw_env
    # the engine and the text renderer need neither (import pi_env registers Gymnasium's ids only
    # when Gymnasium can be imported): they import with both blocked
    code = ("import sys; sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None; "
            "import pi_env.engine, pi_env.envs.render; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


# --------------------------------------------------------------------------- duel, variants, options


def test_options_reach_the_engine_config():
    e = raw_env(mode="duel")
    assert e.config == GameConfig(mode="duel")
    assert e.possible_agents == ["player_0", "player_1"]
    assert (e.config.investigators, e.config.max_rounds) == ((2, 2), 9)
    e.reset(seed=4)
    assert e.game_state.equals(init(GameConfig(mode="duel"), 1, 4))
    e = raw_env(edition="first", variants=["nick-of-time", "fast"], investigators=[5, 5, 3, 3])
    assert e.config == GameConfig(num_players=4, edition="first", variants=("nick-of-time", "fast"),
                                  investigators=(5, 5, 3, 3))
    e.reset(seed=4)
    assert e.game_state.equals(init(e.config, 1, 4))
    assert e.game_state.inv_left[0].tolist() == [5, 5, 3, 3]
    d = pickle.loads(pickle.dumps(raw_env(mode="duel", max_rounds=5, variants=("fast",))))
    assert d.config == GameConfig(mode="duel", max_rounds=5, variants=("fast",))


@pytest.mark.parametrize("kwargs,message", [
    (dict(mode="duel", num_players=3),
     "a duel is played by exactly 2 players (docs/rules.md §7), got 3 players"),
    (dict(mode="duel", variants=("nick-of-time",)),
     "variant 'nick-of-time' does not apply to a duel (the first solve attempt decides a duel round, "
     "docs/rules.md §7)"),
    (dict(mode="solo"), "mode must be one of ('standard', 'duel'), got 'solo' (solo time attack is "
                        "not played by the batched engine)"),
    (dict(variants=("slow",)), "unknown variant 'slow'; known: fast, nick-of-time"),
    (dict(variants="fast"), "variants must be a sequence of variant names, got the string 'fast'"),
    (dict(variants=("fast", "fast")), "variants lists a variant twice: ('fast', 'fast')"),
    (dict(investigators=[5, 5, 3]), "investigators gives 3 counts for 4 players (one per player)"),
    (dict(investigators=[5, 5, 3, 6]), "investigator counts must be integers 0..5, got (5, 5, 3, 6)"),
    (dict(mode="duel", max_rounds=2),
     "max_rounds must be an integer 3..100 (at least the 3 regular rounds), got 2"),
    (dict(num_players=3, max_rounds=1),
     "max_rounds must be an integer 3..100 (at least the 3 regular rounds), got 1"),
])
def test_invalid_options_raise_the_engine_error(kwargs, message):
    for make in (raw_env, env):
        with pytest.raises(PIError) as info:
            make(**kwargs)
        assert str(info.value) == message


def test_observation_bounds_duel_and_variants():
    lo, hi = (decode_observation(b, 2) for b in observation_bounds(GameConfig(mode="duel")))
    assert lo["score"].tolist() == [0, 0] and hi["score"].tolist() == [9, 9]
    assert (hi["round"][0], hi["tier"][0], hi["rotation"][0], hi["to_move"][0]) == (9, 2, 60, 1)
    assert hi["inv_left"].tolist() == [5, 5] and lo["round"][0] == 0
    cfg = GameConfig(mode="duel", edition="first", variants=("fast",), max_rounds=4, max_rotations=7)
    lo, hi = (decode_observation(b, 2) for b in observation_bounds(cfg))
    assert (lo["score"].tolist(), hi["score"].tolist()) == ([0, 0], [4, 4])
    assert (hi["round"][0], hi["rotation"][0]) == (4, 7)
    # nick of time and per-player investigator counts change no bound
    for base, kwargs in [(dict(num_players=4), dict(variants=("nick-of-time",))),
                         (dict(num_players=4), dict(investigators=(5, 5, 3, 3))),
                         (dict(num_players=3, edition="first", variants=("fast",), max_rotations=5),
                          dict(variants=("fast", "nick-of-time")))]:
        ref = observation_bounds(GameConfig(**base))
        got = observation_bounds(GameConfig(**{**base, **kwargs}))
        assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1])
    lo, hi = (decode_observation(b, 3) for b in observation_bounds(
        GameConfig(num_players=3, edition="first", variants=("fast", "nick-of-time"), max_rotations=5)))
    assert (lo["score"].tolist(), hi["score"].tolist(), hi["round"][0]) == ([-20] * 3, [14] * 3, 2)


@pytest.mark.parametrize("kwargs", [dict(mode="duel"), dict(mode="duel", max_rotations=1, max_rounds=4),
                                    dict(num_players=4, variants=("nick-of-time",)),
                                    dict(num_players=5, edition="first", variants=("nick-of-time", "fast")),
                                    dict(num_players=4, investigators=(5, 5, 3, 3))])
def test_observation_spaces_contain_observations_in_every_mode(kwargs):
    e = raw_env(**kwargs)
    rng = np.random.default_rng(11)
    for seed in (1, 2, 3):
        e.reset(seed=seed)
        while True:
            for a in e.possible_agents:
                assert e.observation_space(a).contains(e.observe(a))
            if e.game_state.done[0]:
                break
            e.step(policy_action(e.game_state, rng, e.observe(e.agent_selection)["action_mask"]))


def duel_results(config, seed, actions):
    """The round results of a duel (winner, or -1 for a draw) by docs/rules.md §7, worked out here from
    the actions: the engine is only stepped to know the dealt cases, the players and where a round
    ends. Returns (results, which rounds the safeguard ended, final engine state)."""
    state = init(config, 1, seed)
    buf = np.zeros(1, dtype=np.int64)
    results, safeguard = [], []
    pending = False  # the round's first player solved correctly: the opponent's one more turn
    for a in actions:
        assert not state.done[0]
        p, fp, r = int(state.current_player[0]), int(state.first_player[0]), int(state.round[0])
        correct = a >= SOLVE_BASE and a - SOLVE_BASE == case_index(*(int(v) for v in state.case[0, p]))
        decided = None
        if pending:
            assert p == 1 - fp
            decided = -1 if correct else fp
        elif a >= SOLVE_BASE:
            if not correct:
                decided = 1 - p
            elif p == fp:
                pending = True
            else:
                decided = p
        buf[0] = a
        step_inplace(state, buf, config)
        if decided is not None:
            assert int(state.round[0]) == r + 1  # the deciding step ends the round
            results.append(decided)
            pending = False
        elif int(state.round[0]) != r:  # no decision: the rotation-limit safeguard, a draw
            assert not pending
            results.append(-1)
            safeguard.append(r)
    assert state.done[0]
    return results, safeguard, state


DUEL_SETS = [
    (dict(), range(6)),
    (dict(max_rotations=1, max_rounds=3), range(4)),  # safeguard draws; tied duels at max_rounds
    (dict(variants=("fast",), max_rounds=3), range(6)),
]


def check_duel_rewards(kwargs, seeds) -> set:
    """Play duels through ``env`` and check every agent's summed rewards against the round results
    of :func:`duel_results`; returns the kinds of ending seen."""
    config = GameConfig(mode="duel", **kwargs)
    outcomes = set()
    for seed in seeds:
        steps = []
        actions, total = play(env(mode="duel", **kwargs), seed=seed, policy_seed=seed + 50, record=steps)
        results, safeguard, final = duel_results(config, seed, actions)
        wins = [results.count(0), results.count(1)]
        # the duel ends after the regular rounds as soon as the wins differ, else at max_rounds
        n = next((k for k in range(config.num_rounds, config.max_rounds + 1)
                  if results[:k].count(0) != results[:k].count(1)), config.max_rounds)
        assert len(results) == n
        game = [0, 0]
        if wins[0] != wins[1]:
            w = 0 if wins[0] > wins[1] else 1
            game[w], game[1 - w] = 1, -1
        expected = [wins[i] - wins[1 - i] + game[i] for i in range(2)]
        assert [total["player_0"], total["player_1"]] == expected
        assert final.score[0].tolist() == wins
        res = outcome(final, config)
        assert res.scores == tuple(wins)
        truncated = bool(safeguard) or wins[0] == wins[1]
        assert res.truncated == truncated
        ends = {agent: (term, trunc, info) for agent, _, _, term, trunc, info in steps if term or trunc}
        assert set(ends) == {"player_0", "player_1"}
        for i, (term, trunc, info) in enumerate(ends[f"player_{i}"] for i in range(2)):
            assert (term, trunc) == (not truncated, truncated)
            assert info["scores"] == tuple(wins) and info["rank"] == res.ranks[i]
        outcomes.add(("tied" if wins[0] == wins[1] else "won", bool(safeguard),
                      len(results) > config.num_rounds))
    return outcomes


@pytest.mark.parametrize("kwargs,seeds", DUEL_SETS, ids=["default", "rot1-maxr3", "fast-maxr3"])
def test_duel_cumulative_rewards_are_round_results_and_game_result(kwargs, seeds):
    assert check_duel_rewards(kwargs, seeds)


def test_duel_reward_checks_reach_every_kind_of_ending():
    seen = set().union(*(check_duel_rewards(kwargs, seeds) for kwargs, seeds in DUEL_SETS))
    assert {s[0] for s in seen} == {"tied", "won"}  # tied: only at max_rounds (truncated)
    assert {s[1] for s in seen} == {True, False}  # a round ended by the rotation-limit safeguard
    assert {s[2] for s in seen} == {True, False}  # tie-break rounds were played


def test_duel_tied_at_max_rounds_is_truncated_without_game_reward():
    """Every round drawn (first player solves, the opponent solves in its one more turn)."""
    e = env(mode="duel", max_rounds=4)
    e.reset(seed=8)
    rewards = {a: [] for a in e.possible_agents}
    ends = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, info = e.last()
        rewards[agent].append(reward)
        if term or trunc:
            ends[agent] = (term, trunc, info["scores"], info["rank"])
            e.step(None)
            continue
        st = e.unwrapped.game_state
        e.step(SOLVE_BASE + case_index(*(int(v) for v in st.case[0, int(st.current_player[0])])))
    assert ends == {a: (False, True, (0, 0), 1) for a in e.possible_agents}
    assert all(r == 0 for rs in rewards.values() for r in rs)
    st = e.unwrapped.game_state
    assert (int(st.round[0]), int(st.round_winner[0]), int(st.turn[0])) == (4, -1, 8)


def test_duel_step_rewards_by_hand():
    """Round 1: the second player solves wrong (+1/-1); round 2: the first player solves right and
    the opponent clues (+1/-1); round 3: the second player solves right: 2-1, the last step gives
    +2/-2 (round and game)."""
    e = raw_env(mode="duel")
    e.reset(seed=3)
    st = e.game_state

    def solve(right):
        p = int(st.current_player[0])
        s, ev, l = (int(v) for v in st.case[0, p])
        e.step(SOLVE_BASE + case_index(s, ev, l if right else (l + 1) % 14))
        return p

    def clue():
        e.step(int(np.flatnonzero(legal_action_mask(st)[0, :INVESTIGATE_BASE])[0]))

    fp = int(st.first_player[0])
    clue()  # the first player
    p = solve(False)  # the second player
    assert p == 1 - fp and e.rewards == {f"player_{p}": -1, f"player_{fp}": 1}
    fp = int(st.first_player[0])
    assert solve(True) == fp and e.rewards == {"player_0": 0, "player_1": 0} and bool(st.extra_turn[0])
    clue()
    assert e.rewards == {f"player_{fp}": 1, f"player_{1 - fp}": -1}
    assert st.score[0].tolist() == [1, 1] and not any(e.terminations.values())
    fp = int(st.first_player[0])
    clue()
    p = solve(True)
    assert p == 1 - fp and e.rewards == {f"player_{p}": 2, f"player_{fp}": -2}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e._cumulative_rewards == {f"player_{p}": 2, f"player_{fp}": -2}


def test_duel_render_test():
    def ansi_ok(text):
        lines = text.splitlines()
        return lines[0].startswith("P.I. (duel, 2 players): round ") and "tier" not in lines[0]

    render_test(lambda render_mode=None: env(mode="duel", render_mode=render_mode),
                custom_tests={"ansi": ansi_ok})


# --------------------------------------------------------------------------- rendering of duels and variants


def _first_display_card(state) -> int:
    return int(np.flatnonzero(legal_action_mask(state)[0, :INVESTIGATE_BASE])[0])


def _solve_action(state, right: bool) -> int:
    s, e, l = (int(v) for v in state.case[0, int(state.current_player[0])])
    return SOLVE_BASE + case_index(s, e, l if right else (l + 1) % 14)


def _lines(state, config):
    lines = render_text(state, config).splitlines()
    return lines, [l for l in lines if l.startswith("  P0: ") or l.startswith("  P1: ")]


def test_render_duel_text_exact():
    config = GameConfig(mode="duel")
    st = init(config, 1, seed=3)
    buf = np.zeros(1, dtype=np.int64)

    def do(a):
        buf[0] = a
        step_inplace(st, buf, config)

    lines, players = _lines(st, config)
    assert lines[:3] == ["P.I. (duel, 2 players): round 1/3, rotation 1, turn 0",
                         "To move: P1; first player this round: P1",
                         "Players P0..P1 are player_0..player_1; markers: S = spot, T = trace; investigators "
                         "show spots/traces answered."]
    assert players == ["  P0: rounds won 0, investigators left 2",
                       "  P1: rounds won 0, investigators left 2  <- to move"]
    do(_solve_action(st, True))  # B, the round's first player, solves: A's one more turn
    lines, players = _lines(st, config)
    assert lines[:3] == ["P.I. (duel, 2 players): round 1/3, rotation 1, turn 1",
                         "To move: P0; first player this round: P1",
                         "One more turn for P0: P1 solved as the round's first player; "
                         "a correct solve now draws the round, anything else loses it."]
    assert players == ["  P0: rounds won 0, investigators left 2  <- to move",
                       "  P1: rounds won 0, investigators left 2, attempted, solved"]
    do(_first_display_card(st))  # A does not solve: B wins round 1
    lines, players = _lines(st, config)
    assert lines[:4] == ["P.I. (duel, 2 players): round 2/3, rotation 1, turn 2",
                         "To move: P0; first player this round: P0",
                         "Round 1 was won by P1.",
                         "Players P0..P1 are player_0..player_1; markers: S = spot, T = trace; investigators "
                         "show spots/traces answered."]
    assert players == ["  P0: rounds won 0, investigators left 4  <- to move",
                       "  P1: rounds won 1, investigators left 3"]
    do(_solve_action(st, False))  # A fails: B wins round 2
    do(_solve_action(st, False))  # round 3: B fails: A wins; 1-2, the duel is over
    lines, players = _lines(st, config)
    assert lines[:3] == ["P.I. (duel, 2 players): round 3/3, rotation 1, turn 4",
                         "Game over.",
                         "Round 3 was won by P0."]
    assert players == ["  P0: rounds won 1, investigators left 5",
                       "  P1: rounds won 2, investigators left 4, attempted"]
    assert lines[-1] == "Final round wins: P0 1, P1 2; duel won by P1"
    assert lines[-3] == "Last action: P1 " + action_name(int(st.last_action[0])) + " -> wrong"


def test_render_text_labels_seats_as_the_cli():
    """Markers, investigators, rows and the held case name the seats ``P0``, ``P1``, ... as every
    ``pi-env`` command does (``seat_label``), not letters: spots and traces set by hand on Lakeside's
    location (district 0), one investigator of P1 answered one spot there."""
    config = GameConfig(num_players=3)
    st = init(config, 1, seed=0)
    loc = TYPE_OFFSETS[2] + 0
    st.spot[0, 0, loc] = 1
    st.trace[0, 2, loc] = 1
    st.inv_count[0, 1] = 1
    st.inv_district[0, 1, 0] = 0
    st.inv_answer[0, 1, 0] = (1, 0)
    lines = render_text(st, config, viewer=1).splitlines()
    assert lines[1] == "To move: P1; first player this round: P1"
    assert lines[2] == ("Players P0..P2 are player_0..player_2; markers: S = spot, T = trace; investigators "
                        "show spots/traces answered.")
    row = next(ln for ln in lines if ln.startswith("  Lakeside "))
    assert row.endswith(" P0:S P2:T  P1 1S0T")
    assert [ln for ln in lines if ln.startswith("  P")] == [
        "  P0: score 0, investigators left 5", "  P1: score 0, investigators left 5  <- to move",
        "  P2: score 0, investigators left 5"]
    assert lines[-1] == "Held case (P1 holds P2's case): Knuckles / Blackmail / Union Square"
    s_, e_, l_ = (int(v) for v in st.case[0, 2])  # the seed's case of P2, read from the state
    names = element_names(DAYTIME)
    assert (names[s_], names[TYPE_OFFSETS[1] + e_], names[TYPE_OFFSETS[2] + l_]) == (
        "Knuckles", "Blackmail", "Union Square")


def test_render_duel_draws_tie_break_and_safeguards():
    config = GameConfig(mode="duel", max_rounds=4)
    st = init(config, 1, seed=3)
    buf = np.zeros(1, dtype=np.int64)
    for _ in range(3):  # three drawn rounds: each player solves in turn
        for _ in range(2):
            buf[0] = _solve_action(st, True)
            step_inplace(st, buf, config)
    lines, players = _lines(st, config)
    assert lines[:3] == ["P.I. (duel, 2 players): round 4 (tie-break, at most 4), rotation 1, turn 6",
                         "To move: P0; first player this round: P0",
                         "Round 3 was a draw."]
    assert players == ["  P0: rounds won 0, investigators left 5  <- to move",
                       "  P1: rounds won 0, investigators left 5"]
    for _ in range(2):
        buf[0] = _solve_action(st, True)
        step_inplace(st, buf, config)
    lines, _ = _lines(st, config)
    assert lines[:3] == ["P.I. (duel, 2 players): round 4 (tie-break, at most 4), rotation 1, turn 8",
                         "Game over.", "Round 4 was a draw."]
    assert lines[-1] == ("Final round wins: P0 0, P1 0; no winner: the duel was still tied "
                         "after 4 rounds (the safeguard)")
    # fast duel: the rotation-limit safeguard draws round 1 (B and A take a clue each), then A fails
    # in round 2: B wins 1-0 after the two regular rounds
    config = GameConfig(mode="duel", max_rotations=1, variants=("fast",), investigators=(3, 2))
    st = init(config, 1, seed=3)
    header = "P.I. (duel, 2 players, fast, investigators 3,2): "
    assert render_text(st, config).splitlines()[0] == header + "round 1/2, rotation 1, turn 0"
    for _ in range(2):
        buf[0] = _first_display_card(st)
        step_inplace(st, buf, config)
    lines, players = _lines(st, config)
    assert lines[:3] == [header + "round 2/2, rotation 1, turn 2",
                         "To move: P0; first player this round: P0",
                         "Round 1 was a draw."]
    assert players == ["  P0: rounds won 0, investigators left 5  <- to move",
                       "  P1: rounds won 0, investigators left 4"]
    buf[0] = _solve_action(st, False)
    step_inplace(st, buf, config)
    lines, players = _lines(st, config)
    assert lines[:3] == [header + "round 2/2, rotation 1, turn 3", "Game over.",
                         "Round 2 was won by P1."]
    assert lines[-1] == ("Final round wins: P0 0, P1 1; duel won by P1; a round was "
                         "ended by the rotation limit")


def test_render_header_names_variants_and_investigators():
    cases = [
        (GameConfig(num_players=4, variants=("fast", "nick-of-time"), investigators=(5, 5, 3, 3)),
         "P.I. (second edition, 4 players, fast, nick-of-time, investigators 5,5,3,3): round 1/2, "
         "rotation 1, tier 0, turn 0"),
        (GameConfig(num_players=3, edition="first", variants=("nick-of-time",)),
         "P.I. (first edition, 3 players, nick-of-time): round 1/3, rotation 1, tier 0, turn 0"),
        (GameConfig(num_players=3), "P.I. (second edition, 3 players): round 1/3, rotation 1, tier 0, turn 0"),
        (GameConfig(mode="duel", edition="first"), "P.I. (duel, 2 players): round 1/3, rotation 1, turn 0"),
    ]
    for config, header in cases:
        assert render_text(init(config, 1, seed=1), config).splitlines()[0] == header
    e = raw_env(mode="duel", render_mode="ansi")
    e.reset(seed=3)
    assert e.render().splitlines()[0] == "P.I. (duel, 2 players): round 1/3, rotation 1, turn 0"
