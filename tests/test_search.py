"""The ``search`` agent (issue #4): Monte Carlo search over the exact posterior with greedy
rollouts; its time budget (checked with a fake clock) and that it sees only its observation."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from helpers import play_game
from test_greedy import check_hidden_state_invariance, two_case_position

from pi_env.agents import AGENTS, SearchAgent, make_agent
from pi_env.agents.greedy import assess, greedy_decision
from pi_env.agents.greedy import turns_to_solve_pmf
from pi_env.agents.search import DEFAULT_BUDGET_MS, DEFAULT_SAMPLES, next_player_picks, next_player_turns
from pi_env.core.constants import SOLVE_BASE, case_index
from pi_env.engine import GameConfig, init, legal_action_mask
from pi_env.solvers import analyze_knowledge, knowledge_from_observation


def test_registered_with_a_default_budget():
    assert AGENTS["search"] is SearchAgent
    agent = make_agent("search")
    assert isinstance(agent, SearchAgent)
    assert agent.budget_ms == DEFAULT_BUDGET_MS and agent.max_samples == DEFAULT_SAMPLES
    with pytest.raises(ValueError):
        SearchAgent(budget_ms=0)
    with pytest.raises(ValueError):
        SearchAgent(max_samples=0)


class FakeClock:
    """Seconds that advance only when told to (reading the clock is free)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _costly(agent: SearchAgent, clock: FakeClock, seconds: float) -> None:
    """Make every rollout of ``agent`` take ``seconds`` of fake time."""
    rollout = agent._rollout

    def slow(*args):
        clock.now += seconds
        return rollout(*args)

    agent._rollout = slow


def test_budget_respected_under_a_fake_clock():
    """Rollouts of 1.5 ms: a world costs 1.5 ms per candidate; a world is played only if the time
    used plus the longest world so far fits in the 50 ms budget, so exactly ``floor(50 / (1.5 C))``
    worlds are played and the decision ends within the budget."""
    obs, mask, board, m, x = two_case_position(False)
    clock = FakeClock()
    agent = SearchAgent(budget_ms=50, max_samples=1000, clock=clock)
    agent.reset(2, board, seed=0)
    _costly(agent, clock, 0.0015)
    agent.act(obs, mask)
    c = len(agent.last.candidates)
    assert c >= 3
    assert agent.last.samples == math.floor(50 / (1.5 * c))
    assert agent.last.elapsed_ms <= 50
    assert agent.last.elapsed_ms == pytest.approx(1.5 * c * agent.last.samples)


def test_no_budget_plays_every_world_and_setup_over_budget_falls_back_to_greedy():
    obs, mask, board, m, x = two_case_position(False)
    clock = FakeClock()
    agent = SearchAgent(budget_ms=None, max_samples=7, clock=clock)
    agent.reset(2, board, seed=0)
    _costly(agent, clock, 10.0)  # 10 s per rollout: no limit, all 7 worlds
    agent.act(obs, mask)
    assert agent.last.samples == 7

    clock = FakeClock()
    agent = SearchAgent(budget_ms=20, max_samples=50, clock=clock)
    agent.reset(2, board, seed=0)
    situation = agent.situation

    def slow_setup(*args):  # reading the position already uses the whole budget
        clock.now += 0.025
        return situation(*args)

    agent.situation = slow_setup
    action = agent.act(obs, mask)
    assert agent.last.samples == 0
    assert action == greedy_decision(assess(obs, mask, 2, board))


def test_rng_use_does_not_depend_on_the_budget():
    """All random numbers of a decision are drawn before the timed search."""
    obs, mask, board, m, x = two_case_position(False)
    states = []
    for budget, cost in ((None, 0.0), (5, 0.002)):
        clock = FakeClock()
        agent = SearchAgent(budget_ms=budget, max_samples=20, clock=clock)
        agent.reset(2, board, seed=3)
        _costly(agent, clock, cost)
        agent.act(obs, mask)
        states.append(agent.rng.bit_generator.state)
    assert states[0] == states[1]


def test_gambles_against_a_certain_opponent_and_queries_otherwise():
    """The two-case position of tests/test_greedy.py. Opponent certain (it solves on its turn,
    which ends the 2-player round): every query is worth exactly 0 in every world, naming a case
    7 or -2; the search solves. Opponent far from solving: querying (then certain) beats a coin
    flip; the search queries."""
    obs, mask, board, m, x = two_case_position(True)
    agent = SearchAgent(budget_ms=None, max_samples=32)
    agent.reset(2, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + m
    last = agent.last
    solve = last.candidates.index(SOLVE_BASE + m)
    for c, mean in zip(last.candidates, last.means):
        if c < SOLVE_BASE:
            assert mean == 0.0
    wins = (last.means[solve] + 2) / 9 * 32  # mean = (7 w - 2 (32 - w)) / 32
    assert wins == pytest.approx(round(wins)) and 0 < round(wins) < 32

    obs, mask, board, m, x = two_case_position(False)
    agent = SearchAgent(budget_ms=None, max_samples=32)
    agent.reset(2, board, seed=0)
    action = agent.act(obs, mask)
    assert action < SOLVE_BASE and action == agent.last.candidates[0]  # greedy's query kept


@pytest.mark.parametrize("players, seed", [(3, 31)])
def test_solves_when_certain(players, seed):
    config = GameConfig(num_players=players)
    seen = []

    def check(state, p, obs, agent):
        if not isinstance(agent, SearchAgent):
            return
        a = analyze_knowledge(knowledge_from_observation(obs, players, config.board))
        if a.count == 1:
            true = case_index(*(int(v) for v in state.case[0, p]))
            assert copy.deepcopy(agent).act(obs, legal_action_mask(state)[0]) == SOLVE_BASE + true
            seen.append(p)

    play_game(config, ["search", "greedy", "heuristic"], seed, on_step=check)
    assert seen


def test_never_reads_hidden_state(monkeypatch):
    """As for greedy: hidden parts of the state replaced, same observation, same action (no time
    limit and few worlds, so the decision is a function of observation, memory and rng)."""
    from pi_env import agents
    class SmallSearch(SearchAgent):
        def __init__(self):
            super().__init__(budget_ms=None, max_samples=8)

    monkeypatch.setitem(agents.AGENTS, "search", SmallSearch)
    check_hidden_state_invariance(["search", "greedy", "search", "heuristic"], 4, 8, SearchAgent, 20)


def test_next_player_model_exact():
    """Two-case position with H = (0, 0, Ocean Drive): the next player's public set is every case
    avoiding suspect 1 and evidence 1 (1386). By enumeration: the card it takes is the display card
    whose answer splits those cases most evenly (lowest id on ties), and the count left is the
    cases answering it as H does; a candidate taking that card leaves it the runner-up. Its turns:
    1 when ``u < pmf(1386)[0]``, else 1 + the opponent model's quantile for the count left."""
    obs, mask, board, m, x = two_case_position(False, held=(0, 0, 4))
    s = assess(obs, mask, 2, board)
    td = init(GameConfig(num_players=2), 1, seed=7).tile_district[0].astype(np.int64)
    adj = board.adjacency

    def answer(xe, case):
        y = [case[0], 12 + case[1], 22 + case[2]][0 if xe < 12 else (1 if xe < 22 else 2)]
        return 2 if xe == y else int(adj[td[y], td[xe]])

    cases = [(a, b, c) for a in range(12) for b in range(10) for c in range(14) if a != 1 and b != 1]
    assert len(cases) == 1386

    def ranked(excluded):
        rows = []
        for xe in s.legal_clues.tolist():
            if xe == excluded:
                continue
            counts = np.bincount([answer(xe, c) for c in cases], minlength=3) / len(cases)
            gain = -sum(q * math.log2(q) for q in counts if q > 0)
            left = sum(1 for c in cases if answer(xe, c) == answer(xe, (0, 0, 4)))
            rows.append((-round(gain, 9), xe, left))
        best = min(rows)
        return best[1], best[2]

    first = ranked(None)
    second = ranked(first[0])
    solve = SOLVE_BASE + m
    assert next_player_picks(s, [solve, first[0]]) == [first, second]
    h = float(turns_to_solve_pmf(1386)[0])
    assert 0 < h < 1e-4
    u = np.array([0.0, 0.5, 0.9])
    got = next_player_turns(s, [solve, first[0]], u)
    for c, (_, left) in enumerate([first, second]):
        cdf = np.cumsum(turns_to_solve_pmf(left))
        expect = [1] + [1 + 1 + int(np.flatnonzero(cdf >= (v - h) / (1 - h) * cdf[-1])[0]) for v in u[1:]]
        assert got[c].tolist() == expect
