"""Fused play and rollouts (issue #16 item 1): :func:`pi_env.engine.play` and
:func:`pi_env.engine.rollout` give exactly the games of the step-by-step API, their policies play
only legal actions, the rules-of-thumb policy reads only the mover's own information, and the
outcomes are the ranking rules' (docs/rules.md §5, §7)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import (Engine, GameConfig, Script, init, legal_action_mask, outcome, play, policy_streams, reset_done, rollout,
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


def test_engine_handle_plays_a_script():
    """The handle's play and rollout take the ``"scripted"`` policy's script, as the functions do."""
    cfg = GameConfig(num_players=2)
    eng, ref = Engine(cfg, 8, seed=0), init(cfg, 8, seed=0)
    mine, theirs = Script.empty(8, 2), Script.empty(8, 2)
    for s in (mine, theirs):
        s.turn[:, 1, 0] = 2
        s.case[:, 1, 0] = 99
    eng.play(6, "scripted", seed=3, script=mine)
    play(ref, cfg, 6, "scripted", seed=3, script=theirs)
    assert eng.state.equals(ref) and np.array_equal(mine.taken, theirs.taken) and (mine.taken == 3).all()
    before = eng.state.copy()
    res = eng.rollout("scripted", seed=1, script=mine)
    assert res.done.all() and eng.state.equals(before)
    assert rollout(ref, cfg, "scripted", seed=1, script=theirs).state.equals(res.state)
    with pytest.raises(PIError, match="the policy 'scripted' needs a script"):
        eng.play(1, "scripted")


def test_bad_arguments():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 4, seed=0)
    with pytest.raises(PIError, match="unknown policy 'greedy'; known: random, rules, scripted"):
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
from pi_env.engine import GameConfig, Script, init, play
h = hashlib.sha256()
for cfg in (GameConfig(num_players=4), GameConfig(mode="duel", max_rotations=3)):
    for policy in ("random", "rules"):
        st = init(cfg, 6, seed=4)
        play(st, cfg, 40, policy, seed=2)
        for a in st.arrays():
            h.update(np.ascontiguousarray(a).tobytes())
cfg = GameConfig(num_players=3)
st = init(cfg, 6, seed=4)
script = Script.empty(6, 3, 3)
script.turn[:, :, 0] = (2, 3, 4)
script.case[:, :, 0] = 77
script.turn[:, :, 1] = (5, 6, 7)  # 77 again: skipped where it was wrong (the turn passes time)
script.case[:, :, 1] = 77
script.turn[:, :, 2] = (-1, 0, -7)  # never
script.case[:, :, 2] = 5
play(st, cfg, 40, "scripted", seed=2, script=script)
for a in st.arrays() + (script.taken,):
    h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_jit_off_play_matches_jit_on():
    """The fused kernels as plain Python (``NUMBA_DISABLE_JIT=1``) play the same games."""
    assert assert_jit_off_agrees(DIGEST_SCRIPT, timeout=600) != hashlib.sha256(b"").hexdigest()


def _whose_turns(state, config, actions: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(who, can_pass)``, ``[B, T]`` each: the player who played each recorded action (step by
    step, checked) and whether a clue card or an investigator was legal for it then."""
    st = state.copy()
    B, T = actions.shape
    who = np.full((B, T), -1)
    can_pass = np.zeros((B, T), bool)
    for t in range(T):
        live = (steps > t) & ~st.done
        if not live.any():
            break
        who[live, t] = st.current_player[live]
        mask = legal_action_mask(st)
        can_pass[:, t] = mask[:, :SOLVE_BASE].any(axis=1)
        step_inplace(st, np.where(live, actions[:, t], 0), config)
    return who, can_pass


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_scripted_rollout_names_the_scripted_cases_on_the_scripted_turns(config):
    """Player p names case 100 + 7 p on its (p + 2)-th own turn and case 1 + p on its (p + 4)-th;
    every other turn passes time with a clue card or an investigator (docs/rules.md §4), a solve
    only where neither is legal (the rules' action); ``taken`` counts each player's turns; the
    games are the step-by-step API's."""
    B, P = 24, config.num_players
    st = init(config, B, seed=11)
    script = Script.empty(B, P)
    for p in range(P):
        script.turn[:, p] = (p + 2, p + 4)
        script.case[:, p] = (100 + 7 * p, 1 + p)
    T = config.round_limit * (config.max_rotations + 1) * P
    rec = np.full((B, T), -1, np.int64)
    res = rollout(st, config, "scripted", seed=3, actions_out=rec, script=script)
    assert res.done.all()
    ref = replay(st, config, rec, res.steps, autoreset=False)
    assert res.state.equals(ref)
    who, can_pass = _whose_turns(st, config, rec, res.steps)
    named = forced = 0
    for b in range(B):
        for p in range(P):
            mine = rec[b, who[b] == p]
            free = can_pass[b, who[b] == p]
            assert script.taken[b, p] == mine.size
            expect = np.full(mine.size, -1)
            # the k-th own turn names the scripted case, counted across rounds (one call)
            for k, c in ((p + 2, 100 + 7 * p), (p + 4, 1 + p)):
                if k <= mine.size:
                    expect[k - 1] = SOLVE_BASE + c
            forced += int((~free).sum())
            solves = (mine >= SOLVE_BASE) & free
            assert (mine[~free] >= SOLVE_BASE).all()
            assert np.array_equal(np.flatnonzero(solves), np.flatnonzero(expect >= 0))
            assert np.array_equal(mine[solves], expect[expect >= 0])
            named += int(solves.sum())
            assert (mine[~solves & free] < SOLVE_BASE).all()  # clue cards or investigators
    assert named > 0 and forced < named


def test_scripted_play_continues_the_count_across_calls():
    cfg = GameConfig(num_players=2)
    B = 6
    one, two = init(cfg, B, seed=2), init(cfg, B, seed=2)
    s1, s2 = Script.empty(B, 2, 1), Script.empty(B, 2, 1)
    for s in (s1, s2):
        s.turn[:, 0, 0] = 3
        s.case[:, 0, 0] = 42
    rec1 = np.zeros((B, 8), np.int64)
    play(one, cfg, 8, "scripted", seed=np.full(B, 5, np.uint64), autoreset=False, actions_out=rec1, script=s1)
    streams = np.full(B, 5, np.uint64)
    ra, rb = np.zeros((B, 3), np.int64), np.zeros((B, 5), np.int64)
    play(two, cfg, 3, "scripted", seed=streams, autoreset=False, actions_out=ra, script=s2)
    play(two, cfg, 5, "scripted", seed=streams, autoreset=False, actions_out=rb, script=s2)
    assert one.equals(two) and np.array_equal(rec1, np.hstack([ra, rb]))
    assert np.array_equal(s1.taken, s2.taken) and (s1.taken == 4).all()  # 8 turns, 2 players alternate
    first = init(cfg, B, seed=2).current_player  # player 0's third turn is the game's fifth or sixth
    assert first.min() == 0 and first.max() == 1  # both seen
    assert (rec1[np.arange(B), 4 + first] == SOLVE_BASE + 42).all()


def test_scripted_bad_arguments():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 4, seed=0)
    with pytest.raises(PIError, match="the policy 'scripted' needs a script"):
        play(st, cfg, 1, "scripted")
    with pytest.raises(PIError, match="a script is for the policy 'scripted', not 'rules'"):
        play(st, cfg, 1, "rules", script=Script.empty(4, 2))
    with pytest.raises(PIError, match=r"script\.turn must be int32\[4, 2, K\], got int32\[4, 3, 2\]"):
        rollout(st, cfg, "scripted", script=Script.empty(4, 3))
    bad = Script.empty(4, 2)
    bad.case[0, 0, 0] = 1680
    with pytest.raises(PIError, match="script: case ids must be in 0..1679"):
        rollout(st, cfg, "scripted", script=bad)


def test_scripted_slots_below_turn_one_never_name_a_case():
    """``turn`` 0 or negative is "none" whatever ``taken`` holds: a count that would reach 0 or wrap
    past the int32 range does not fire those slots (the empty script names case 0 in every slot);
    a negative count is refused."""
    cfg = GameConfig(num_players=3)
    B = 8
    st = init(cfg, B, seed=1)
    s = Script.empty(B, 3, 2)
    s.turn[:, :, 1] = np.iinfo(np.int32).min + 1
    s.taken[:] = np.iinfo(np.int32).max  # the next own turn is the 2^31-th: stored as -2^31, then -2^31 + 1
    rec = np.zeros((B, 9), np.int64)
    play(st, cfg, 9, "scripted", seed=2, autoreset=False, actions_out=rec, script=s)
    assert (rec < SOLVE_BASE).all()  # clue cards and investigators only (the rules' action is never needed here)
    bad = Script.empty(B, 3, 1)
    bad.taken[2, 1] = -1
    with pytest.raises(PIError, match=r"script: taken must be non-negative \(taken\[2, 1\] = -1\)"):
        play(init(cfg, B, seed=1), cfg, 3, "scripted", seed=2, script=bad)


def test_scripted_bad_arrays_named():
    """Wrong dtypes and shapes name the array and what it was; a read-only ``taken`` (it is
    updated) and negative sizes are refused by name; non-contiguous arrays play as contiguous
    copies do."""
    cfg = GameConfig(num_players=2)
    B = 4
    st = init(cfg, B, seed=0)
    good = Script.empty(B, 2)
    with pytest.raises(PIError, match=r"script\.case must be int32\[4, 2, 2\] like script\.turn, got int64\[4, 2, 2\]"):
        play(st, cfg, 1, "scripted", script=Script(good.turn, good.case.astype(np.int64), good.taken))
    with pytest.raises(PIError, match=r"script\.turn must be int32\[4, 2, K\], got int32\[4, 2\]"):
        play(st, cfg, 1, "scripted", script=Script(good.taken, good.case, good.taken))
    with pytest.raises(PIError, match=r"script\.taken must be int32\[4, 2\], got int32\[4, 3\]"):
        play(st, cfg, 1, "scripted", script=Script(good.turn, good.case, np.zeros((4, 3), np.int32)))
    with pytest.raises(PIError, match=r"script\.turn must be int32\[4, 2, K\], got list"):
        play(st, cfg, 1, "scripted", script=Script([1], good.case, good.taken))
    ro = np.zeros((B, 2), np.int32)
    ro.setflags(write=False)
    with pytest.raises(PIError, match=r"script\.taken must be writable"):
        play(st, cfg, 1, "scripted", script=Script(good.turn, good.case, ro))
    with pytest.raises(PIError, match=r"Script.empty: sizes must be non-negative, got \(4, 2, -1\)"):
        Script.empty(B, 2, -1)
    big_t, big_c = np.zeros((B, 2, 6), np.int32), np.zeros((B, 2, 6), np.int32)
    big_t[:, :, 3], big_c[:, :, 3] = (0, 1), (5, 9)  # the views' second slot: seat 1 on its 1st own turn
    big_t[:, :, 1], big_c[:, :, 1] = 1, 11  # outside the views: never named
    views = Script(big_t[:, :, ::3], big_c[:, :, ::3], np.asfortranarray(np.zeros((B, 2), np.int32)))
    dense = Script(np.ascontiguousarray(big_t[:, :, ::3]), np.ascontiguousarray(big_c[:, :, ::3]),
                   np.zeros((B, 2), np.int32))
    assert not views.turn.flags.c_contiguous and views.turn[0, 1].tolist() == [0, 1]
    recs = []
    for s in (views, dense):
        rec = np.zeros((B, 8), np.int64)
        play(init(cfg, B, seed=0), cfg, 8, "scripted", seed=1, autoreset=False, actions_out=rec, script=s)
        recs.append(rec)
    assert np.array_equal(recs[0], recs[1]) and np.array_equal(views.taken, dense.taken)
    assert ((recs[0] == SOLVE_BASE + 9).sum(axis=1) == 1).all() and (recs[0] >= SOLVE_BASE).sum() == B


def test_scripted_count_runs_on_across_autoresets():
    """With ``autoreset`` a new game in a slot does not restart ``taken``: the script's turn ``k`` is
    the player's ``k``-th own turn since the count began, whichever game of the slot that falls in
    (as ``actions_out`` counts a slot's turns across games). With one rotation per round a game
    is 3 own turns each: seat 0 names case 7 on its 5th own turn, in the second game of its slot."""
    cfg = GameConfig(num_players=2, max_rotations=1)
    B, T = 6, 20
    st = init(cfg, B, seed=3)
    s = Script.empty(B, 2, 1)
    s.turn[:, 0, 0] = 5
    s.case[:, 0, 0] = 7
    rec = np.full((B, T), -1, np.int64)
    steps, games = play(st, cfg, T, "scripted", seed=4, actions_out=rec, script=s)
    ref = init(cfg, B, seed=3)
    who = np.full((B, T), -1)
    game_of = np.zeros((B, T), np.int64)  # which game of the slot each turn belongs to (0 = the first)
    ended = np.zeros(B, np.int64)
    for t in range(T):
        reset_done(ref, cfg)
        who[:, t], game_of[:, t] = ref.current_player, ended
        step_inplace(ref, rec[:, t], cfg)  # checked: every action legal
        ended += ref.done
    assert ref.equals(st) and np.array_equal(ended, games)
    for b in range(B):
        mine = np.flatnonzero(who[b] == 0)
        assert s.taken[b, 0] == mine.size and mine.size >= 5
        assert np.flatnonzero(rec[b] == SOLVE_BASE + 7).tolist() == [mine[4]]
        assert game_of[b, mine[2]] == 0 and game_of[b, mine[4]] == 1


def test_scripted_skips_a_case_the_player_failed_with():
    """Each game: seat 0 first names a wrong case ``w`` by hand (step API). Its script then names
    ``w`` again on its next own turn and, in a second slot of the same turn, ``w + 1`` (also wrong):
    it names ``w + 1`` (the first slot of the turn it has not failed with). On its own turn after
    that, a slot naming ``w`` alone passes time (a clue card or an investigator) and is still
    counted in ``taken``."""
    cfg = GameConfig(num_players=3)
    st = init(cfg, 60, seed=8)
    st = st.take(np.flatnonzero(st.current_player == 0))  # the games seat 0 starts
    B = st.batch_size
    assert B >= 10
    true = st.case[:, 0].astype(np.int64) @ [140, 14, 1]
    w = (true + 3) % 1680
    w = np.where((w + 1) % 1680 == true, (w + 5) % 1680, w)  # neither w nor w + 1 is the true case
    step_inplace(st, SOLVE_BASE + w, cfg)
    assert st.failed[np.arange(B), 0, w].all() and not st.solved[:, 0].any()
    s = Script.empty(B, 3, 3)
    s.turn[:, 0] = (1, 1, 2)
    s.case[:, 0] = np.stack([w, (w + 1) % 1680, w], axis=1)
    rec = np.zeros((B, 6), np.int64)
    play(st, cfg, 6, "scripted", seed=1, autoreset=False, actions_out=rec, script=s)
    # after seat 0's solve the two others move, then seat 0 (turns 3 and 6 of the six)
    assert (rec[:, 2] == SOLVE_BASE + (w + 1) % 1680).all()
    assert (rec[:, 5] < SOLVE_BASE).all() and (s.taken[:, 0] == 2).all()
    assert (rec[:, [0, 1, 3, 4]] < SOLVE_BASE).all()


@pytest.mark.parametrize("policy", ["random", "rules", "scripted"])
def test_threaded_play_equals_one_thread(policy):
    """``parallel=True`` (threads over ranges of games) and ``parallel=False`` play the same games:
    each game's chance and policy stream is its own (5 players nick-of-time and the duel, three
    ranges of games, the last partial; the script's counts too)."""
    for config in (CONFIGS[2], CONFIGS[3]):
        B, P, T = 2 * 64 + 37, config.num_players, 80
        out = []
        for parallel in (False, True):
            st = init(config, B, seed=6)
            script = None
            if policy == "scripted":
                script = Script.empty(B, P, 3)
                rng = np.random.default_rng(2)
                script.turn[:] = rng.integers(-1, 10, size=script.turn.shape)
                script.case[:] = rng.integers(0, 1680, size=script.case.shape)
            rec = np.zeros((B, T), np.int64)
            steps, games = play(st, config, T, policy, seed=9, actions_out=rec, parallel=parallel, script=script)
            out.append((st, rec, steps, games, None if script is None else script.taken))
        (a, ra, sa, ga, ta), (b, rb, sb, gb, tb) = out
        assert a.equals(b) and np.array_equal(ra, rb) and np.array_equal(sa, sb) and np.array_equal(ga, gb)
        assert policy != "scripted" or (np.array_equal(ta, tb) and (rb >= SOLVE_BASE).any())


def test_script_and_result_compare_by_identity():
    """Both hold arrays: ``==`` is identity and they hash (a generated ``==`` compared the arrays
    and raised "truth value of an array ... is ambiguous"; ``hash`` raised)."""
    cfg = GameConfig(num_players=2)
    a, b = Script.empty(3, 2), Script.empty(3, 2)
    assert a == a and a != b and len({a, b}) == 2
    st = init(cfg, 3, seed=0)
    r = rollout(st, cfg, "rules", seed=1)
    assert r == r and r != rollout(st, cfg, "rules", seed=1) and hash(r) == hash(r)
