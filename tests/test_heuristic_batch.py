"""The ``heuristic`` agent in batch (:mod:`pi_env.rl.heuristic_batch`): every decision equal to
:class:`pi_env.agents.heuristic.HeuristicAgent`'s on many seeded games (2-5 players, both editions),
nothing read of the player's own case (docs/rules.md §9), the name ``heuristic`` resolving to it in
training, and the plain-Python (JIT-off) path."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.heuristic import HeuristicAgent
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.rl.heuristic_batch import GUESS, HeuristicOpponent, heuristic_choices
from pi_env.rl.pool import AgentOpponent, batch_opponent
from helpers import assert_jit_off_agrees, learner_run

SEEN_OWN_CASE = 1890
OPENING_CHOICES = 7


def _play_against_agents(num_players: int, edition: str, games: int, seed: int) -> tuple[int, int, int]:
    """Play ``games`` games with HeuristicAgent in every seat, asking the batch opponent (one per
    seat, each game slot seeded as the seat's agent) at every turn; returns (decisions compared,
    decisions with a draw, games finished) and fails at the first differing decision."""
    cfg = GameConfig(num_players=num_players, edition=edition)
    st = init(cfg, games, seed=seed)
    P = num_players
    seeds = np.array([[seed * 1000 + 10 * b + p for p in range(P)] for b in range(games)])
    agents = [[HeuristicAgent() for _ in range(P)] for _ in range(games)]
    for b in range(games):
        for p in range(P):
            agents[b][p].reset(P, cfg.board, seed=int(seeds[b, p]))
    opps = [HeuristicOpponent(cfg) for _ in range(P)]
    for p in range(P):
        opps[p].new_games(np.arange(games), seeds[:, p])
    compared = draws = 0
    for turn in range(600):
        live = np.flatnonzero(~st.done)
        if live.size == 0:
            break
        players = st.current_player[live].astype(np.int64)
        sub = st.take(live)
        obs, mask = observe(sub, players), legal_action_mask(sub)
        ref = np.array([agents[b][p].act(obs[k], mask[k]) for k, (b, p) in enumerate(zip(live, players))])
        kind, _, count, _ = heuristic_choices(sub, cfg.board, players)
        draws += int(((kind == GUESS) | (count > 1)).sum())
        got = np.empty_like(ref)
        for p in range(P):
            mine = players == p
            if mine.any():
                got[mine] = opps[p].act_batch(st, live[mine], players[mine])
        differ = np.flatnonzero(got != ref)
        assert differ.size == 0, (f"{P} players, {edition} edition, seed {seed}: game {live[differ[0]]} at turn "
                                  f"{turn}: heuristic {ref[differ[0]]}, batch {got[differ[0]]}")
        compared += ref.size
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = ref
        step_inplace(st, actions, cfg)
    for b in range(games):  # the same draws were made: every generator is where the agent's is
        for p in range(P):
            assert opps[p]._rngs[b].bit_generator.state == agents[b][p].rng.bit_generator.state
    return compared, draws, int(st.done.sum())


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("edition", ["second", "first"])
def test_every_decision_equals_the_heuristic_agent(num_players, edition):
    compared, draws, finished = _play_against_agents(num_players, edition, games=24, seed=num_players)
    assert finished == 24
    assert compared > 24 * 20 * num_players and draws > compared // 20  # ties drawn from the generators


def test_decisions_ignore_the_players_own_case():
    """Changing the acting player's own (hidden) case keeps its observation and its decision."""
    cfg = GameConfig(num_players=3)
    st = init(cfg, 32, seed=5)
    rng = np.random.default_rng(0)
    opp_a, opp_b = HeuristicOpponent(cfg), HeuristicOpponent(cfg)
    seen = 0
    for turn in range(60):
        live = np.flatnonzero(~st.done)
        p = st.current_player[live].astype(np.int64)
        for o in (opp_a, opp_b):
            o.new_games(np.arange(32), np.arange(32) + 100 * turn)
        other = st.take(np.arange(32))
        other.case[live, p] = (other.case[live, p] + rng.integers(1, 9, size=(live.size, 3))) % np.array([12, 10, 14])
        assert not np.array_equal(other.case, st.case)
        assert np.array_equal(observe(other.take(live), p), observe(st.take(live), p))
        a = opp_a.act_batch(st, live, p)
        assert np.array_equal(opp_b.act_batch(other, live, p), a)
        seen += live.size
        actions = np.zeros(32, dtype=np.int64)
        actions[live] = a
        step_inplace(st, actions, cfg)
    assert seen == SEEN_OWN_CASE


def test_training_resolves_heuristic_to_the_batch_opponent_with_the_agents_play():
    """``heuristic`` in a learner batch is the batch opponent and plays exactly as the per-game agents
    (AgentOpponent) seeded by the same env."""
    from pi_env.rl.engine_env import LearnerBatch

    cfg = GameConfig(num_players=3)
    assert isinstance(batch_opponent("heuristic", cfg), HeuristicOpponent)
    assert isinstance(batch_opponent(" Heuristic", cfg), HeuristicOpponent)
    per_game = [AgentOpponent(lambda: make_agent("heuristic"), 3, cfg.board) for _ in range(2)]
    runs = [learner_run(3, opponents) for opponents in (["heuristic", "heuristic"], per_game)]
    assert isinstance(LearnerBatch(2, 2, ["heuristic"]).opponents[0], HeuristicOpponent)
    assert len(runs[0][1]) >= 16 and runs[0][1] == runs[1][1]
    assert all(np.array_equal(u, v) for u, v in zip(runs[0][0], runs[1][0]))


def test_an_unstarted_game_slot_is_refused():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 1, seed=1)
    p = st.current_player.astype(np.int64)
    _, _, count, _ = heuristic_choices(st, cfg.board, p)
    assert count.tolist() == [OPENING_CHOICES]  # the agent draws among them
    opp = HeuristicOpponent(cfg)
    opp.new_games(np.array([1]), np.array([3]))
    with pytest.raises(PIError, match="game slot 0 was never started"):
        opp.act_batch(st, np.arange(1), p)


_JIT_SCRIPT = """
import hashlib
import numpy as np
from pi_env.engine import GameConfig, init, step_inplace
from pi_env.rl.heuristic_batch import HeuristicOpponent
h = hashlib.sha256()
for P in (2, 4):
    cfg = GameConfig(num_players=P)
    st = init(cfg, 3, seed=P)
    opp = HeuristicOpponent(cfg)
    opp.new_games(np.arange(3), np.arange(3))
    for _ in range(4):
        a = opp.act_batch(st, np.arange(3), st.current_player.astype(np.int64))
        h.update(a.tobytes())
        step_inplace(st, a, cfg)
print(h.hexdigest())
"""


def test_jit_off_path_agrees():
    """docs/contributing.md §C5: the decision kernel runs as plain Python with NUMBA_DISABLE_JIT=1 and
    chooses the same actions."""
    assert_jit_off_agrees(_JIT_SCRIPT, timeout=600)
