"""The ``greedy`` agent in batch (:mod:`pi_env.agents.greedy_batch`): every decision equal to
:class:`pi_env.agents.greedy.GreedyAgent`'s on many seeded 2- to 5-player games (both editions),
every branch of greedy's rule taken, nothing read of the player's own case (docs/rules.md §9), the
name ``greedy`` resolving to it in training at 2 to 5 players, and the plain-Python (JIT-off) path."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.greedy import GreedyAgent, best_query, greedy_decision
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.agents.greedy_batch import GreedyOpponent, _pairwise_sum, decision_block, greedy_actions
from pi_env.rl.pool import AgentOpponent, batch_opponent
from helpers import assert_jit_off_agrees, learner_run


def _branch(s, action: int) -> str:
    """Which step of greedy's rule (pi_env.agents.greedy, module docstring) gave ``action``."""
    if s.cases.size <= 1:
        return "certain"
    b = best_query(s)
    if b is None:
        return "wait" if action < SOLVE_BASE else "guess"
    if action >= SOLVE_BASE:
        return "solve"
    kind = "investigator" if action >= INVESTIGATE_BASE else "clue"
    return kind + ("-denial" if best_query(s, 0.0) != b else "")


def _play_against_agents(num_players: int, edition: str, games: int, seed: int) -> tuple[int, Counter, int]:
    """Play ``games`` games with GreedyAgent in every seat, asking the batch opponent (one per seat,
    its game slots started as the agents) at every turn; returns (decisions compared, decisions per
    branch of the rule, games finished) and fails at the first differing decision."""
    P = num_players
    cfg = GameConfig(num_players=P, edition=edition)
    st = init(cfg, games, seed=seed)
    agents = [[GreedyAgent(edition=edition) for _ in range(P)] for _ in range(games)]
    for b in range(games):
        for p in range(P):
            agents[b][p].reset(P, cfg.board, seed=b)
    opps = [GreedyOpponent(cfg) for _ in range(P)]
    for p in range(P):
        opps[p].new_games(np.arange(games), np.arange(games))
    compared, branches = 0, Counter()
    for turn in range(600):
        live = np.flatnonzero(~st.done)
        if live.size == 0:
            break
        players = st.current_player[live].astype(np.int64)
        sub = st.take(live)
        obs, mask = observe(sub, players), legal_action_mask(sub)
        ref = np.empty(live.size, dtype=np.int64)
        for k, (b, p) in enumerate(zip(live, players)):
            agent = agents[b][p]
            s = agent.situation(obs[k], mask[k])  # what agent.act does, keeping the situation
            ref[k] = greedy_decision(s, agent.denial_weight, agent.last_tile)
            branches[_branch(s, int(ref[k]))] += 1
        got = np.empty_like(ref)
        for p in range(P):
            mine = players == p
            if mine.any():
                got[mine] = opps[p].act_batch(st, live[mine], players[mine])
        differ = np.flatnonzero(got != ref)
        assert differ.size == 0, (f"{P} players, {edition} edition, seed {seed}: game {live[differ[0]]} at turn {turn}: "
                                  f"greedy {ref[differ[0]]}, batch {got[differ[0]]}")
        compared += ref.size
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = ref
        step_inplace(st, actions, cfg)
    return compared, branches, int(st.done.sum())


@pytest.mark.parametrize("num_players, edition, compared, branches", [
    (2, "second", 2300, {"certain": 118, "solve": 37, "clue": 448, "clue-denial": 1158, "investigator": 474,
                      "wait": 9, "guess": 56}),
    (2, "first", 2362, {"certain": 146, "solve": 40, "clue": 470, "clue-denial": 1160, "investigator": 474,
                     "wait": 10, "guess": 62}),
    (3, "second", 3616, {"certain": 243, "solve": 46, "clue": 594, "clue-denial": 1922, "investigator": 702,
                         "wait": 6, "guess": 103}),
    (3, "first", 3677, {"certain": 273, "solve": 46, "clue": 617, "clue-denial": 1922, "investigator": 703,
                        "wait": 8, "guess": 108}),
    (4, "second", 3811, {"certain": 393, "solve": 48, "clue": 2291, "investigator": 960, "wait": 4, "guess": 115}),
    (4, "first", 3851, {"certain": 421, "solve": 39, "clue": 2306, "investigator": 960, "wait": 4, "guess": 121}),
    (5, "second", 4608, {"certain": 536, "solve": 56, "clue": 2675, "investigator": 1200, "wait": 4, "guess": 137}),
    (5, "first", 4648, {"certain": 565, "solve": 43, "clue": 2696, "investigator": 1200, "wait": 13, "guess": 131}),
])
def test_every_decision_equals_the_greedy_agent(num_players, edition, compared, branches):
    """48 games per player count and edition (in two batches of 24), every decision compared; every
    branch of the rule occurs: certain, solving on ``E_now ≥ E_wait``, a clue, a clue chosen for its
    denial (2 and 3 players: greedy's denial weight is 0 at 4 and 5), an investigator, waiting with
    a clue when nothing splits, guessing then. At 5 players the joint posterior has three unknown
    players (:func:`pi_env.solvers.own_info.disjoint_triple_counts`)."""
    got_compared, got_branches = 0, Counter()
    for seed in (101, 102):
        n, br, finished = _play_against_agents(num_players, edition, games=24, seed=seed)
        assert finished == 24
        got_compared += n
        got_branches += br
    assert (got_compared, dict(got_branches)) == (compared, branches)


@pytest.mark.parametrize("num_players, seen", [(2, 1520), (3, 1915), (4, 1920), (5, 1920)])
def test_decisions_ignore_the_players_own_case(num_players, seen):
    """Changing the acting player's own (hidden) case keeps its observation and its decision; with 3
    to 5 players so does changing the cases of the players after the one it holds (hidden from it
    too)."""
    cfg = GameConfig(num_players=num_players)
    st = init(cfg, 32, seed=5)
    rng = np.random.default_rng(0)
    opp_a, opp_b = GreedyOpponent(cfg), GreedyOpponent(cfg)
    for o in (opp_a, opp_b):
        o.new_games(np.arange(32), np.arange(32))
    expected, seen = seen, 0
    for turn in range(60):
        live = np.flatnonzero(~st.done)
        if live.size == 0:
            break
        p = st.current_player[live].astype(np.int64)
        other = st.take(np.arange(32))
        for j in [0] + list(range(2, num_players)):  # every case but the held one (seat 1)
            q = (p + j) % num_players
            other.case[live, q] = (other.case[live, q] + rng.integers(1, 9, size=(live.size, 3))) % np.array([12, 10, 14])
        assert not np.array_equal(other.case, st.case)
        assert np.array_equal(observe(other.take(live), p), observe(st.take(live), p))
        a = opp_a.act_batch(st, live, p)
        assert np.array_equal(opp_b.act_batch(other, live, p), a)
        seen += live.size
        actions = np.zeros(32, dtype=np.int64)
        actions[live] = a
        step_inplace(st, actions, cfg)
    assert seen == expected


def test_training_resolves_greedy_to_the_batch_opponent_with_the_agents_play():
    """``greedy`` in a 2-player learner batch is the batch opponent and plays exactly as the per-game
    agent (AgentOpponent) seeded by the same env; so at 3, 4 and 5 players (the 5-player play is
    compared with the agent's in test_every_decision_equals_the_greedy_agent); greedy's decision
    block (the compact-v4 encoding) is computed at 5 players too (its values: tests/test_compact_v4.py)."""
    from pi_env.rl.engine_env import LearnerBatch

    cfg = GameConfig(num_players=2, edition="first")
    assert isinstance(batch_opponent("greedy", cfg), GreedyOpponent)
    assert isinstance(batch_opponent(" Greedy", cfg), GreedyOpponent)
    assert isinstance(batch_opponent("greedy", GameConfig(num_players=3)), GreedyOpponent)
    assert isinstance(batch_opponent("greedy", GameConfig(num_players=4)), GreedyOpponent)
    assert isinstance(batch_opponent("greedy", GameConfig(num_players=5)), GreedyOpponent)
    st5 = init(GameConfig(num_players=5), 2, seed=1)
    assert decision_block(st5, cfg.board, np.zeros(2, dtype=np.int64)).shape == (2, 67)
    per_game = [AgentOpponent(lambda: make_agent("greedy", edition="first"), 2, cfg.board)]
    runs = [learner_run(2, opponents, edition="first") for opponents in (["greedy"], per_game)]
    assert isinstance(LearnerBatch(2, 2, ["greedy"]).opponents[0], GreedyOpponent)
    assert len(runs[0][1]) >= 16 and runs[0][1] == runs[1][1]
    assert all(np.array_equal(u, v) for u, v in zip(runs[0][0], runs[1][0]))


def test_an_unstarted_game_slot_is_refused_and_a_new_game_forgets_the_previous_turn():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 2, seed=1)
    p = st.current_player.astype(np.int64)
    opp = GreedyOpponent(cfg)
    opp.new_games(np.array([1]), np.array([3]))
    with pytest.raises(PIError, match="game slot 0 was never started"):
        opp.act_batch(st, np.arange(2), p)
    opp.new_games(np.array([0]), np.array([3]))
    assert opp.act_batch(st, np.arange(2), p).tolist() == greedy_actions(st, cfg.board, p).tolist()
    assert opp._valid.tolist() == [True, True]
    opp.new_games(np.array([0]), np.array([4]))
    assert opp._valid.tolist() == [False, True]


def test_a_state_of_another_player_count_and_a_wrong_previous_turn_are_refused():
    """A 4-player opponent asked about a 5-player game (reachable since greedy in batch plays 5
    players), a ``previous`` of the wrong shapes and an unknown edition get one-line PIErrors, not reads past the
    arrays' ends (the kernel reads ``previous``'s solved flags of every seat)."""
    cfg4, cfg5 = GameConfig(num_players=4), GameConfig(num_players=5)
    st5 = init(cfg5, 3, seed=1)
    p = st5.current_player.astype(np.int64)
    opp = GreedyOpponent(cfg4)
    opp.new_games(np.arange(3), np.arange(3))
    with pytest.raises(PIError, match=r"^greedy opponent for 4 players: the state has 5 players$"):
        opp.act_batch(st5, np.arange(3), p)
    good = (np.ones(3, dtype=bool), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64),
            np.zeros((3, 5), dtype=bool))
    greedy_actions(st5, cfg5.board, p, previous=good)
    for k, bad in ((3, np.zeros((3, 4), dtype=bool)), (0, np.ones(2, dtype=bool)), (1, np.zeros((3, 1), np.int64))):
        previous = good[:k] + (bad,) + good[k + 1:]
        with pytest.raises(PIError, match=r"^previous must be \(valid bool\[3\], round int\[3\], rotation int\[3\], "
                                          r"solved bool\[3, 5\]\), got "):
            greedy_actions(st5, cfg5.board, p, previous=previous)
    with pytest.raises(PIError, match=r"^previous must be "):
        greedy_actions(st5, cfg5.board, p, previous=good[:3])
    with pytest.raises(PIError, match=r"^greedy in batch: unknown edition 'third' \(known: second, first\)$"):
        greedy_actions(st5, cfg5.board, p, edition="third")
    st4 = init(cfg4, 3, seed=1)  # the decision block (compact-v4) checks the edition in the same place
    with pytest.raises(PIError, match=r"^greedy in batch: unknown edition 'third' \(known: second, first\)$"):
        decision_block(st4, cfg4.board, st4.current_player.astype(np.int64), edition="third")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairwise_sum_is_numpys_sum_bit_for_bit(seed):
    """``_pairwise_sum(a, n)`` is ``a[:n].sum()`` bit for bit for every ``n = 0..1680`` (numpy's
    pairwise summation; values of mixed magnitudes, so that the order of additions shows)."""
    rng = np.random.default_rng(seed)
    a = rng.random(1680) * 10.0 ** rng.integers(-8, 9, size=1680)
    got = np.array([_pairwise_sum(a, n) for n in range(1681)])
    want = np.array([a[:n].sum() for n in range(1681)])
    assert got.tobytes() == want.tobytes()
    # a plain left-to-right sum differs somewhere (the test tells the orders apart)
    assert any(float(np.add.accumulate(a[:n])[-1]) != want[n] for n in range(129, 1681))


_JIT_SCRIPT = """
import hashlib
import numpy as np
from pi_env.engine import GameConfig, init, step_inplace
from pi_env.agents.greedy_batch import GreedyOpponent
h = hashlib.sha256()
for players, edition in ((2, "second"), (2, "first"), (3, "second"), (4, "first"), (5, "second")):
    cfg = GameConfig(num_players=players, edition=edition)
    st = init(cfg, 3, seed=2)
    opp = GreedyOpponent(cfg)
    opp.new_games(np.arange(3), np.arange(3))
    for _ in range(6):
        a = opp.act_batch(st, np.arange(3), st.current_player.astype(np.int64))
        h.update(a.tobytes())
        step_inplace(st, a, cfg)
print(h.hexdigest())
"""


def test_jit_off_path_agrees():
    """docs/contributing.md §C5: the decision kernel runs as plain Python with NUMBA_DISABLE_JIT=1 and
    chooses the same actions."""
    assert_jit_off_agrees(_JIT_SCRIPT, timeout=600)
