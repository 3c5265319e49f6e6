"""Solo Time Attack envs: copies, saved positions and record starts (issue #17)."""

from __future__ import annotations

import copy
import json
import pickle

import gymnasium
import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES
from pi_env.core.errors import PIError, PositionError, RecordError
from pi_env.engine import GameConfig, init
from pi_env.engine import solo as S
from pi_env.engine.position import save_position
from pi_env.envs.solo import ENV_ID, SoloTimeAttackEnv, SoloTimeAttackVectorEnv
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.recorder import solo_event
from pi_env.records.types import GameRecord, RoundRecord, Rules


def _same_step(outs):
    obs0, *rest0 = outs[0]
    for obs, *rest in outs[1:]:
        assert np.array_equal(obs["observation"], obs0["observation"])
        assert np.array_equal(obs["action_mask"], obs0["action_mask"])
        assert rest == rest0


def _action(obs, rng, p_solve=0.15):
    mask = obs["action_mask"]
    legal = np.flatnonzero(mask)
    small = legal[legal < 50]
    return int(rng.choice(small) if small.size and rng.random() > p_solve else rng.choice(legal))


@pytest.mark.parametrize("use_display", [False, True])
def test_copies_of_the_single_env_continue_identically(use_display):
    """deepcopy, pickle and clone_state / reset(options={"position": ...}) (through JSON, into a fresh
    env) mid-game: the
    copies give the original's observations, masks, rewards, flags, infos and renders to the end of
    the episode, and their next episodes (reset without a seed continues the game's stream) too."""
    kw = dict(render_mode="ansi", use_display=use_display, max_actions=25, investigator_cost=0.5)
    env = SoloTimeAttackEnv(**kw)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(6):
        obs, *_ = env.step(_action(obs, rng, 0.0))
    fresh = SoloTimeAttackEnv(**kw)
    restored = fresh.reset(options={"position": json.loads(json.dumps(env.clone_state()))})
    assert np.array_equal(restored[0]["observation"], obs["observation"]) and restored[1] == env._info()
    envs = [env, copy.deepcopy(env), pickle.loads(pickle.dumps(env)), fresh]
    episodes = 0
    while episodes < 3:
        a = _action(obs, rng)
        outs = [e.step(a) for e in envs]
        _same_step(outs)
        assert len({e.render() for e in envs}) == 1
        obs, _, term, trunc, _ = outs[0]
        if term or trunc:
            episodes += 1
            outs = [e.reset() for e in envs]
            _same_step(outs)
            obs = outs[0][0]


def test_made_env_and_copy_before_reset():
    env = gymnasium.make(ENV_ID, max_actions=10)
    twin = copy.deepcopy(env)
    with pytest.raises(PIError, match="call reset"):
        env.unwrapped.clone_state()
    o1, _ = env.reset(seed=1)
    o2, _ = twin.reset(seed=1)
    assert np.array_equal(o1["observation"], o2["observation"])
    env.step(0)
    twin2 = pickle.loads(pickle.dumps(env))
    assert np.array_equal(env.step(5)[0]["observation"], twin2.step(5)[0]["observation"])


def test_restore_refuses_other_games_and_options():
    env = SoloTimeAttackEnv(max_actions=50)
    env.reset(seed=0)
    saved = env.clone_state()
    with pytest.raises(PositionError, match=r"this solo env plays a solo game \(max actions 50, not 200\)"):
        SoloTimeAttackEnv().reset(options={"position": saved})
    with pytest.raises(PositionError, match=r"\(use display True, not False\)"):
        SoloTimeAttackEnv(max_actions=50).reset(options={"position": _saved(SoloTimeAttackEnv(max_actions=50, use_display=True))})
    cfg = GameConfig(num_players=2)
    with pytest.raises(PositionError, match="the saved position is a 2-player standard game"):
        env.reset(options={"position": save_position(init(cfg, 1, seed=0), cfg)})
    with pytest.raises(PositionError, match="format 'pi-position/9'"):
        env.reset(options={"position": dict(saved, format="pi-position/9")})


def _saved(env):
    env.reset(seed=0)
    return env.clone_state()


def test_restored_position_shows_nothing_of_the_case():
    """Paired positions that differ only in the hidden case give identical observations and renders."""
    env = SoloTimeAttackEnv(render_mode="ansi")
    env.reset(seed=4)
    for a in (36, 40, 3):
        env.step(a)
    saved = env.clone_state()
    other = copy.deepcopy(saved)
    other["state"]["case"] = [(v + 1) % n for v, n in zip(saved["state"]["case"], (12, 10, 14))]
    a, b = SoloTimeAttackEnv(render_mode="ansi"), SoloTimeAttackEnv(render_mode="ansi")
    oa, ia = a.reset(options={"position": saved})
    ob, ib = b.reset(options={"position": other})
    assert np.array_equal(oa["observation"], ob["observation"]) and ia == ib and a.render() == b.render()


def test_vector_env_copies_and_positions():
    kw = dict(max_actions=15, use_display=True)
    vec = SoloTimeAttackVectorEnv(3, **kw)
    vec.reset(seed=2)
    rng = np.random.default_rng(1)
    for k in range(4):
        vec.step(np.array([36 + k, 40 + k, 44 + k]))
    copies = [vec, copy.deepcopy(vec), pickle.loads(pickle.dumps(vec))]
    for t in range(40):  # through episode ends and NEXT_STEP autoresets
        mask = vec._core.observations()["action_mask"]
        acts = np.array([rng.choice(np.flatnonzero(m[:50] if rng.random() > 0.2 else m)) for m in mask])
        outs = [v.step(acts) for v in copies]
        for o in outs[1:]:
            assert np.array_equal(o[0]["observation"], outs[0][0]["observation"])
            for x, y in zip(o[1:4], outs[0][1:4]):
                assert np.array_equal(x, y)
    # sub-env i from a single env's saved position
    singles = [SoloTimeAttackEnv(**kw) for _ in range(3)]
    for i, s in enumerate(singles):
        s.reset(seed=10 + i)
        s.step(36 + i)
    started = SoloTimeAttackVectorEnv(3, **kw)
    obs, _ = started.reset(options={"positions": [s.clone_state() for s in singles]})
    for i, s in enumerate(singles):
        assert np.array_equal(obs["observation"][i], s._obs()["observation"])
    nxt = started.step(np.array([40, 41, 42]))
    for i, s in enumerate(singles):
        o, r, *_ = s.step(40 + i)
        assert np.array_equal(nxt[0]["observation"][i], o["observation"]) and nxt[1][i] == r
    saved = started.clone_state()
    assert len(saved) == 3 and all(p["rules"]["mode"] == "solo" for p in saved)
    with pytest.raises(PIError, match="must list 3 saved positions"):
        started.reset(options={"positions": saved[:2]})
    with pytest.raises(PositionError, match=r"positions\[1\]: .*\(max actions 200, not 15\)"):
        started.reset(options={"positions": [saved[0], _saved(SoloTimeAttackEnv(use_display=True)), saved[2]]})


def _solo_record(seed=5, steps=8, with_seed=True, with_case=True):
    cfg = S.SoloConfig(max_actions=S.MAX_SOLO_ACTIONS)
    st = S.init(cfg, 1, seed=seed)
    events = []
    for i, a in enumerate([3, 14, 25, 36, 40, 7, 30, 45][:steps]):
        S.step_inplace(st, np.array([a]), cfg)
        events.append(solo_event(st, 0, i))
    start = S.init(cfg, 1, seed=seed)
    rec = GameRecord(rules=Rules(mode="solo", players=1, rounds=1, investigators=(5,)), board=cfg.board,
                     rounds=(RoundRecord(first_player=0, tile_district=tuple(int(d) for d in start.tile_district[0]),
                                         cases={0: S.case_of(start)} if with_case else {},
                                         events=tuple(events)),),
                     seed=seed if with_seed else None)
    return json.loads(json.dumps(record_to_dict(rec))), st


def test_solo_env_starts_from_a_record():
    doc, after = _solo_record()
    env = SoloTimeAttackEnv(max_actions=100)
    obs, info = env.reset(options={"record": doc, "event": 7})
    assert env.game_state.equals(after) and info["record"] == {"round": 0, "event": 7, "seeded": True,
                                                               "drawn_cases": [[]], "drawn_cards": False}
    typed, _ = _solo_record(with_seed=False)
    obs2, info2 = env.reset(seed=1, options={"record": typed, "event": 7})
    assert np.array_equal(obs2["observation"], obs["observation"]) and not info2["record"]["seeded"]
    hidden, _ = _solo_record(with_seed=False, with_case=False)
    with pytest.raises(PIError, match="the record does not give the case; pass complete_cases"):
        env.reset(options={"record": hidden, "event": 3})
    record = load_record(hidden)

    def only_consistent(rec, r, known, rng):  # brute force: the first case giving every answer
        for c in range(NUM_CASES):
            st = S.from_layout(S.SoloConfig(), rec.rounds[0].tile_district, c)
            ok = True
            for ev in rec.rounds[0].events:
                S.step_inplace(st, np.array([{"clue": ev.element, "investigate": 36 + ev.district}[ev.kind]]),
                               S.SoloConfig())
                ok &= solo_event(st, 0, ev.index) == ev
            if ok:
                return {0: c}

    obs3, info3 = env.reset(seed=2, options={"record": hidden, "event": 7, "complete_cases": only_consistent})
    assert info3["record"]["drawn_cases"] == [[0]]
    assert np.array_equal(obs3["observation"], obs["observation"])
    assert record.rounds[0].cases == {}
    with pytest.raises(PIError, match="use_display=False"):
        SoloTimeAttackEnv(use_display=True).reset(options={"record": doc})
    with pytest.raises(PIError, match="'event' and 'complete_cases' need 'record'"):
        env.reset(options={"event": 2})
    bad = copy.deepcopy(doc)
    bad["rounds"][0]["events"][0]["answer"] = "spot" if bad["rounds"][0]["events"][0]["answer"] != "spot" else "nothing"
    with pytest.raises(RecordError):
        env.reset(options={"record": bad})
