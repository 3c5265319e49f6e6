"""Fused play and rollouts (issue #16 item 1): :func:`pi_env.engine.play` and
:func:`pi_env.engine.rollout` give exactly the games of the step-by-step API, their policies play
only legal actions, the rules-of-thumb policy reads only the mover's own information, and the
outcomes are the ranking rules' (docs/rules.md §5, §7)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pi_env.core.errors import PIError
from pi_env.engine import (Engine, GameConfig, init, outcome, play, policy_streams, reset_done, rollout,
                           step_inplace)
from pi_env.engine.ranking import rank_batch, rank_players
from helpers import assert_jit_off_agrees

CONFIGS = [GameConfig(num_players=4), GameConfig(num_players=2, edition="first"),
           GameConfig(num_players=5, variants=("nick-of-time",), max_rotations=5),
           GameConfig(mode="duel", max_rotations=4, max_rounds=4),
           GameConfig(num_players=3, investigators=(1, 5, 0), variants=("fast",))]
IDS = ["4p", "2p-first", "5p-nick", "duel", "3p-inv-fast"]


def replay(state, config, actions: np.ndarray, steps: np.ndarray, autoreset: bool):
    """Step ``actions`` with the checked step-by-step API (raises on an illegal one), resetting a
    finished game before its slot's next turn as the fused call does."""
    st = state.copy()
    B, T = actions.shape
    for t in range(T):
        if autoreset and t:
            reset_done(st, config)
        live = steps > t
        if not live.any():
            break
        a = np.where(live & ~st.done, actions[:, t], 0)
        step_inplace(st, a, config)  # checked: every recorded action must be legal
    return st


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("policy", ["random", "rules"])
def test_fused_play_equals_step_by_step(config, policy):
    B, T = 70, 60  # two ranges of games, one partial
    st = init(config, B, seed=3)
    rec = np.zeros((B, T), np.int64)
    steps, games = play(st, config, T, policy, seed=5, actions_out=rec)
    assert (steps == T).all()
    ref = replay(init(config, B, seed=3), config, rec, steps, autoreset=True)
    assert st.equals(ref)
    if config is CONFIGS[0] and policy == "random":  # these end within 60 turns: autoreset exercised
        assert games.sum() > 0 and (ref.turn < T).all()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("policy", ["random", "rules"])
def test_rollout_plays_every_game_to_its_end(config, policy):
    B = 40
    st = init(config, B, seed=8)
    step_inplace(st, np.full(B, 60), config)  # a first turn: solve attempts (legal)
    before = st.copy()
    T = config.round_limit * (config.max_rotations + 1) * config.num_players
    rec = np.zeros((B, T), np.int64)
    res = rollout(st, config, policy, seed=2, actions_out=rec)
    assert st.equals(before)  # copies were played
    assert res.done.all()
    ref = replay(before, config, rec, res.steps, autoreset=False)
    assert res.state.equals(ref)
    assert np.array_equal(res.scores, ref.score) and np.array_equal(res.truncated, ref.truncated)
    for b in range(B):
        o = outcome(ref, config, b)
        assert tuple(res.ranks[b]) == o.ranks
        assert tuple(np.flatnonzero(res.winners[b])) == o.winners


def test_same_seed_same_rollout_and_streams_continue():
    cfg = GameConfig(num_players=3)
    st = init(cfg, 16, seed=1)
    a, b = rollout(st, cfg, "rules", seed=4), rollout(st, cfg, "rules", seed=4)
    assert a.state.equals(b.state)
    c = rollout(st, cfg, "rules", seed=5)
    assert not a.state.equals(c.state)
    streams = policy_streams(9, 16)
    first = streams.copy()
    rollout(st, cfg, "random", seed=streams)
    assert (streams != first).all()  # explicit streams advance in place
    # the policy streams of a seed are not the games' generator states of that seed
    assert not np.array_equal(policy_streams(1, 16), init(cfg, 16, seed=1).rng)


def test_rules_policy_reads_only_the_movers_information():
    """Two games that differ only in the case of the player to move (hidden from it) get the same
    rules-of-thumb action from the same policy stream (docs/rules.md §9)."""
    cfg = GameConfig(num_players=4)
    st = init(cfg, 64, seed=12)
    play(st, cfg, 9, "rules", seed=1, autoreset=False)
    other = st.copy()
    for b in range(64):
        p = int(st.current_player[b])
        other.case[b, p] = [(st.case[b, p, 0] + 1) % 12, (st.case[b, p, 1] + 3) % 10, (st.case[b, p, 2] + 5) % 14]
    assert not np.array_equal(other.case, st.case)
    a1, a2 = np.zeros((64, 1), np.int64), np.zeros((64, 1), np.int64)
    play(st.copy(), cfg, 1, "rules", seed=7, autoreset=False, actions_out=a1)
    play(other, cfg, 1, "rules", seed=7, autoreset=False, actions_out=a2)
    assert np.array_equal(a1, a2)


def test_rules_policy_plays_far_better_than_random():
    """Seeded, so exact: the rules of thumb score well in 4-player games, random play negative."""
    cfg = GameConfig(num_players=4)
    st = init(cfg, 256, seed=21)
    rules = rollout(st, cfg, "rules", seed=1)
    rand = rollout(st, cfg, "random", seed=1)
    assert rules.done.all() and rand.done.all() and not rules.truncated.any()
    assert rules.scores.mean() > 8 and rand.scores.mean() < 0
    assert (rules.state.solve_points > 0).mean() > 0.9  # almost every player solves something


def test_rank_batch_matches_rank_players():
    g = np.random.default_rng(0)
    for edition, mode in (("second", "standard"), ("first", "standard"), ("second", "duel")):
        s = g.integers(-5, 6, size=(300, 4))
        inv = g.integers(0, 3, size=(300, 4))
        pen = g.integers(0, 3, size=(300, 4)) * 2
        got = rank_batch(s, inv, pen, edition, mode)
        for b in range(300):
            assert tuple(got[b]) == rank_players(s[b], inv[b], pen[b], edition, mode)


def test_engine_handle_play_and_rollout():
    cfg = GameConfig(num_players=2)
    eng = Engine(cfg, 8, seed=0)
    ref = init(cfg, 8, seed=0)
    steps, games = eng.play(30, seed=3)
    play(ref, cfg, 30, seed=3)
    assert eng.state.equals(ref) and (steps == 30).all()
    before = eng.state.copy()
    res = eng.rollout("rules", seed=1)
    assert res.done.all() and eng.state.equals(before)


def test_bad_arguments():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 4, seed=0)
    with pytest.raises(PIError, match="unknown policy 'greedy'; known: random, rules"):
        play(st, cfg, 1, "greedy")
    with pytest.raises(PIError, match="num_steps must be a non-negative integer"):
        play(st, cfg, -1)
    with pytest.raises(PIError, match=r"explicit policy streams must be uint64\[4\]"):
        play(st, cfg, 1, seed=np.ones(3, np.uint64))
    with pytest.raises(PIError, match="must be nonzero"):
        play(st, cfg, 1, seed=np.zeros(4, np.uint64))
    with pytest.raises(PIError, match=r"actions_out must be an int64 array of shape \(4, T\)"):
        play(st, cfg, 1, actions_out=np.zeros((3, 2), np.int64))
    with pytest.raises(PIError, match="config is for 3 players but the state has 2"):
        rollout(st, GameConfig(num_players=3))


DIGEST_SCRIPT = """
import hashlib, numpy as np
from pi_env.engine import GameConfig, init, play
h = hashlib.sha256()
for cfg in (GameConfig(num_players=4), GameConfig(mode="duel", max_rotations=3)):
    for policy in ("random", "rules"):
        st = init(cfg, 6, seed=4)
        play(st, cfg, 40, policy, seed=2)
        for a in st.arrays():
            h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_jit_off_play_matches_jit_on():
    """The fused kernels as plain Python (``NUMBA_DISABLE_JIT=1``) play the same games."""
    assert assert_jit_off_agrees(DIGEST_SCRIPT, timeout=600) != hashlib.sha256(b"").hexdigest()
