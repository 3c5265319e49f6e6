"""PettingZoo env and SelfPlayVecEnv: copies, saved positions, record starts, no leaks (issue #17)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import pi_env
from pi_env.core.errors import IllegalActionError, PIError, PositionError
from pi_env.engine import GameConfig, init
from pi_env.engine.position import save_position
from pi_env.envs.aec import raw_env

VARIANTS = {
    "standard-2": dict(num_players=2),
    "standard-3": dict(num_players=3),
    "standard-4-first-safeguard": dict(num_players=4, edition="first", max_rotations=6),  # truncation
    "standard-5": dict(num_players=5),
    "fast-3": dict(num_players=3, variants=("fast",)),
    "nick-4": dict(num_players=4, variants=("nick-of-time",)),
    "investigators-4": dict(num_players=4, investigators=(5, 4, 3, 2)),
    "duel": dict(mode="duel"),
    "duel-fast-first": dict(mode="duel", variants=("fast",), edition="first", max_rounds=4),
}


def _snapshot(env, render=True):
    """Everything an env shows: last(), every agent's observation and mask, the dicts, the render."""
    obs, rew, term, trunc, info = env.last()
    views = {a: env.observe(a) for a in env.possible_agents}
    return (obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term, trunc, repr(info),
            env.agent_selection, tuple(env.agents), repr(env.rewards), repr(env.terminations),
            repr(env.truncations), repr(env.infos),
            tuple((a, v["observation"].tobytes(), v["action_mask"].tobytes()) for a, v in views.items()),
            env.render() if render else None)


def _choose(obs, rng, p_solve):
    mask = obs["action_mask"]
    legal = np.flatnonzero(mask)
    small = legal[legal < 50]
    return int(rng.choice(small) if small.size and rng.random() > p_solve else rng.choice(legal))


def _copies(env, kw):
    fresh = (pi_env.env if hasattr(env, "env") else raw_env)(render_mode="ansi", **kw)
    fresh.reset(options={"position": json.loads(json.dumps(env.clone_state()))})
    return [copy.deepcopy(env), pickle.loads(pickle.dumps(env)), fresh]


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_copies_play_on_identically(name, wrapped):
    """Copies made mid-game and right after the first round's end (deepcopy, pickle, and a saved position
    through JSON into a fresh env) given the original's actions show exactly what it shows at every step
    to the end of the game (the agent_iter loop, dead steps included), every later chance draw (the next
    rounds' layouts, deals and reshuffles) included."""
    kw = VARIANTS[name]
    env = (pi_env.env if wrapped else raw_env)(render_mode="ansi", **kw)
    env.reset(seed=17)
    rng = np.random.default_rng(3)
    p_solve = 0.5 if kw.get("mode") == "duel" else 0.08
    group = [env]
    round_seen = 0
    steps = 0
    for agent in env.agent_iter(max_iter=3000):
        render = steps % 5 == 0 or not env.agents
        snap = _snapshot(env, render)
        for other in group[1:]:
            assert _snapshot(other, render) == snap
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else _choose(obs, rng, p_solve)
        for e in group:
            e.step(action)
        steps += 1
        st = env.unwrapped.game_state
        if steps == 5:
            group += _copies(env, kw)  # mid-round
        if round_seen == 0 and st.round[0] == 1 and not st.done[0]:
            round_seen = 1
            group += _copies(env, kw)  # right after the first round's end
    assert not env.agents and all(not e.agents for e in group)
    assert len(group) == 7 and round_seen == 1
    assert env.unwrapped.game_state.truncated[0] == ("safeguard" in name)


def test_copy_before_reset_and_wrapper_state():
    env = pi_env.env(num_players=3)
    twin = copy.deepcopy(env)
    env.reset(seed=2)
    twin.reset(seed=2)
    assert _snapshot_plain(env) == _snapshot_plain(twin)
    with pytest.raises(PIError, match=r"call reset\(\) before clone_state\(\)"):
        raw_env(num_players=3).clone_state()


def _snapshot_plain(env):
    obs, *rest = env.last()
    return obs["observation"].tobytes(), rest[:3]


def test_an_illegal_move_ended_game_copies_too():
    """The wrapped env ends the game at an illegal move (reward -1): copies keep that ending."""
    env = pi_env.env(num_players=3)
    env.reset(seed=5)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    fresh = pi_env.env(num_players=3)
    fresh.reset(options={"position": json.loads(json.dumps(env.clone_state()))})
    copies.append(fresh)
    for e in [env, *copies]:
        assert e.terminations == dict.fromkeys(e.possible_agents, True)
        assert sorted(e._cumulative_rewards.values()) == [-1, 0, 0]
        for _ in e.agent_iter():
            e.step(None)
        assert not e.agents


def test_saved_position_refusals():
    env = raw_env(num_players=3)
    env.reset(seed=0)
    saved = env.clone_state()
    assert saved["format"] == "pi-position/1" and set(saved["env"]) == {
        "agents", "agent_selection", "rewards", "cumulative_rewards", "terminations", "truncations", "infos",
        "skip_agent_selection"}
    with pytest.raises(PositionError, match=r"the saved position is a 3-player standard game .*; this env plays "
                                            r"a 4-player standard game .* \(player count 3, not 4\)"):
        raw_env(num_players=4).reset(options={"position": saved})
    with pytest.raises(PositionError, match=r"mode 'standard' is not 'duel'"):
        raw_env(mode="duel").reset(options={"position": save_position(init(GameConfig(num_players=2), 1, 0),
                                                                      GameConfig(num_players=2))})
    with pytest.raises(PositionError, match=r"\(variants \[\], not \['fast'\]\)"):
        raw_env(num_players=3, variants=("fast",)).reset(options={"position": saved})
    with pytest.raises(PositionError, match="format 'pi-position/2'"):
        env.reset(options={"position": dict(saved, format="pi-position/2")})
    bad = copy.deepcopy(saved)
    bad["env"]["agent_selection"] = "player_7"
    with pytest.raises(PositionError, match="env.agent_selection 'player_7' is not an agent of this env"):
        env.reset(options={"position": bad})
    other = raw_env(num_players=3)
    other.reset(seed=5, options={"positions": [saved]})  # an unknown option is ignored (PettingZoo's API test)
    fresh = raw_env(num_players=3)
    fresh.reset(seed=5)
    assert other.game_state == fresh.game_state  # the seed's new game, not the position
    bare = {k: v for k, v in saved.items() if k != "env"}  # a bare engine position: starts as after reset
    env2 = raw_env(num_players=3)
    env2.reset(options={"position": bare})
    assert env2.agent_selection == env.agent_selection and env2.infos == {a: {} for a in env2.possible_agents}


@pytest.mark.parametrize("kw", [dict(num_players=4), dict(mode="duel")], ids=["standard-4", "duel"])
def test_no_leak_paired_positions_differ_only_in_a_seats_own_case(kw):
    """Two saved positions that differ only in seat p's own case: after restoring, seat p's
    observation, mask and info are identical (it sees its case only through answers), the seat holding
    it sees the difference, and so does nothing else but the privileged accessors."""
    env = raw_env(**kw)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(6):
        obs = env.observe(env.agent_selection)
        env.step(_choose(obs, rng, 0.0))
    saved = env.clone_state()
    P = len(env.possible_agents)
    p = env.possible_agents.index(env.agent_selection)
    taken = {tuple(c) for c in saved["state"]["case"]}
    other = copy.deepcopy(saved)
    s, e, l = saved["state"]["case"][p]
    used = [[c[t] for c in saved["state"]["case"]] for t in range(3)]
    other["state"]["case"][p] = [next(v for v in range(n) if v not in used[t]) for t, n in enumerate((12, 10, 14))]
    assert tuple(other["state"]["case"][p]) not in taken
    a, b = raw_env(render_mode="ansi", **kw), raw_env(render_mode="ansi", **kw)
    a.reset(options={"position": saved})
    b.reset(options={"position": other})
    me = env.possible_agents[p]
    holder = env.possible_agents[(p - 1) % P]  # player p - 1 holds p's case
    for agent in env.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        same = np.array_equal(oa["observation"], ob["observation"])
        assert same == (agent != holder), agent
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
    assert a.last()[1:] == b.last()[1:] and a.render() == b.render() and a.infos == b.infos
    assert a.clone_state()["state"]["case"] != b.clone_state()["state"]["case"]  # privileged accessor only
    assert me == a.agent_selection


def test_record_start_in_the_aec_env(tmp_path):
    from pi_env.records.record_file import record_to_dict
    from pi_env.records.recorder import Recorder
    from pi_env.engine import legal_action_mask, step_inplace

    cfg = GameConfig(num_players=3)
    st = init(cfg, 1, seed=4)
    rec = Recorder(cfg, st, 4)
    rng = np.random.default_rng(1)
    states = []
    for _ in range(30):
        legal = np.flatnonzero(legal_action_mask(st)[0][:50])
        step_inplace(st, np.array([rng.choice(legal)]), cfg)
        rec.after_step(st)
        states.append(st.copy())
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_to_dict(rec.record())))
    env = pi_env.env(num_players=3)
    env.reset(options={"record": str(path), "round": 0, "event": 20})
    assert env.unwrapped.game_state.equals(states[20])
    assert env.agent_selection == f"player_{int(states[20].current_player[0])}"
    assert env.infos["player_0"]["record"] == {"round": 0, "event": 20, "seeded": True, "drawn_cases": [[]],
                                               "drawn_cards": False}
    # the recorded next move plays on exactly as in the game
    from pi_env.records.recorder import action_of

    env.step(action_of(rec.record().rounds[0].events[21]))
    assert env.unwrapped.game_state.equals(states[21])
    with pytest.raises(PositionError, match=r"the record is a 3-player standard game .*; this env plays a "
                                            r"4-player standard game .* \(player count 3, not 4\)"):
        pi_env.env(num_players=4).reset(options={"record": str(path)})
    with pytest.raises(PIError, match="reset options 'round', 'event' and 'complete_cases' need 'record'"):
        env.reset(options={"event": 3})


def test_record_of_another_game_is_refused_before_it_is_played(tmp_path):
    """A finished record put into an env of another game names the difference (it said only that the
    game is over at the record's default position, its last event); into its own game: game over."""
    from pi_env.engine import sample_actions, step_inplace
    from pi_env.records.record_file import record_to_dict
    from pi_env.records.recorder import Recorder

    cfg = GameConfig(num_players=2)
    st = init(cfg, 1, seed=3)
    rec = Recorder(cfg, st, 3)
    rng = np.random.default_rng(0)
    while not st.done[0]:
        step_inplace(st, sample_actions(st, rng), cfg)
        rec.after_step(st)
    path = tmp_path / "done.json"
    path.write_text(json.dumps(record_to_dict(rec.record())))
    with pytest.raises(PositionError, match=r"the record is a 2-player standard game \(second edition, no "
                                            r"variants\); this env plays a 2-player standard game \(first "
                                            r"edition, no variants\) \(edition 'second', not 'first'\)"):
        pi_env.env(num_players=2, edition="first").reset(options={"record": str(path)})
    with pytest.raises(PositionError, match=r"\(mode 'standard' is not 'duel'\)"):
        pi_env.env(mode="duel").reset(options={"record": str(path)})
    with pytest.raises(PIError, match=r"^the game is over after event \d+ of round 2: nothing is left to play"):
        pi_env.env(num_players=2).reset(options={"record": str(path)})


# --- SelfPlayVecEnv ----------------------------------------------------------------------------

class _Memory:
    """An opponent agent with its own memory and generator: it counts its moves and plays a random
    legal clue/investigation (a solve now and then) from its generator, so a copy that lost either
    would move differently."""

    def reset(self, num_players, board, seed=None):
        self.rng = np.random.default_rng(seed)
        self.moves = 0

    def act(self, observation, action_mask):
        self.moves += 1
        legal = np.flatnonzero(action_mask)
        small = legal[legal < 50]
        if small.size and (self.moves % 9 or self.rng.random() < 0.5):
            return int(self.rng.choice(small))
        return int(self.rng.choice(legal))


def _selfplay_step_outputs(envs, actions):
    outs = [e.step(actions) for e in envs]
    for o in outs[1:]:
        for x, y in zip(o[:4], outs[0][:4]):
            assert np.array_equal(x, y)
        assert np.array_equal(o[4]["action_mask"], outs[0][4]["action_mask"])
        assert np.array_equal(o[4]["to_move"], outs[0][4]["to_move"])
    return outs[0]


@pytest.mark.parametrize("setting", ["self-play", "agents", "batch", "named"])
def test_selfplay_copies_play_on_identically(setting):
    """deepcopy and pickle of SelfPlayVecEnv, mid-game and after games have ended and autoreset: the
    copies return the same rows (observations, rewards, flags, masks, seats) for the same actions,
    with their opponents' memory and generators (per-slot agents, a shared batch opponent, built-in
    agents by name through opponent_factory)."""
    from pi_env.agents import opponent_factory
    from pi_env.envs.selfplay import RandomBatchOpponent, SelfPlayVecEnv

    opponents = {"self-play": None, "agents": [_Memory(), "self"], "batch": [RandomBatchOpponent(), _Memory()],
                 "named": [opponent_factory("random"), opponent_factory("heuristic")]}
    # copy=False: the outputs are read-only views of the env's buffers, which a copy must rebuild
    env = SelfPlayVecEnv(6, num_players=3, opponents=opponents[setting], seed=4, copy=setting == "batch")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    group = [env]
    ended = 0
    for t in range(260):
        acts = env.sample_actions(rng)
        small = rng.random(6) < 0.8  # mostly clues/investigations: longer games
        mask = env._mask
        for b in np.flatnonzero(small):
            legal = np.flatnonzero(mask[b][:50])
            if legal.size:
                acts[b] = rng.choice(legal)
        _, _, term, trunc, _ = _selfplay_step_outputs(group, acts)
        ended += int((term | trunc).sum())
        if t in (3, 150):
            group += [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    assert ended >= 6 and len(group) == 5
    if setting in ("agents", "batch"):
        moved = [a.moves for row in env._agents for a in row if a is not None]
        copied = [a.moves for row in group[1]._agents for a in row if a is not None]
        assert moved == copied and sum(moved) > 0


def test_selfplay_starts_from_positions():
    """reset(options={"positions": ...}) puts game b at position b: the first rows are the
    positions' players to move with their observations, and the games play on as the originals."""
    from pi_env.envs.selfplay import SelfPlayVecEnv

    src = SelfPlayVecEnv(4, num_players=3, seed=1, copy=True)
    src.reset(seed=1)
    rng = np.random.default_rng(2)
    for _ in range(7):
        acts = np.array([rng.choice(np.flatnonzero(m[:50])) for m in src._mask])
        obs, *_ = src.step(acts)
    saved = json.loads(json.dumps(src.clone_state()))
    dst = SelfPlayVecEnv(4, num_players=3, seed=9, copy=True)
    obs2, info2 = dst.reset(seed=9, options={"positions": saved})
    assert np.array_equal(obs2, obs) and np.array_equal(info2["action_mask"], src._mask)
    for _ in range(5):
        acts = np.array([rng.choice(np.flatnonzero(m[:50])) for m in src._mask])
        o1, *_ = src.step(acts)
        o2, *_ = dst.step(acts)
        assert np.array_equal(o1, o2)
    assert dst.state.equals(src.state)
    with pytest.raises(PIError, match="must list 4 saved positions"):
        dst.reset(options={"positions": saved[:3]})
    other = save_position(init(GameConfig(num_players=2), 1, seed=0), GameConfig(num_players=2))
    with pytest.raises(PositionError, match=r"positions\[2\]: the saved position is a 2-player standard game"):
        dst.reset(options={"positions": [saved[0], saved[1], other, saved[3]]})
