"""The ``rollout`` agent (issue #16 item 3): determinized worlds from the exact sampler played out by
the engine's fused rollout. Its world states reproduce the observation exactly, it names a case it
is sure of, it is deterministic given its seed, and it never reads the hidden case."""

from __future__ import annotations

import numpy as np
import pytest
from test_greedy import _put, check_hidden_state_invariance, two_case_position

from pi_env.agents import AGENTS, RolloutAgent, make_agent
from pi_env.agents.rollout import DEFAULT_BUDGET_MS, DEFAULT_WORLDS, candidates, round_score_change, world_states
from pi_env.agents.greedy import assess, greedy_decision
from pi_env.core.constants import IN_DECK, SOLVE_BASE, case_index
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.engine.observe import observation_layout
from pi_env.solvers import knowledge_from_observation
from pi_env.solvers.worlds import world_sampler


def test_registered_with_defaults_and_bad_options_refused():
    assert AGENTS["rollout"] is RolloutAgent
    agent = make_agent("rollout")
    assert isinstance(agent, RolloutAgent)
    assert agent.budget_ms == DEFAULT_BUDGET_MS and agent.worlds == DEFAULT_WORLDS
    for bad in ({"budget_ms": 0}, {"worlds": 0}, {"policy": "greedy"}, {"horizon": "turn"}):
        with pytest.raises(ValueError):
            RolloutAgent(**bad)


def _midgame(players: int, seed: int, turns: int):
    """A game after ``turns`` greedy turns: (state, config, mover, its observation)."""
    config = GameConfig(num_players=players)
    st = init(config, 1, seed=seed)
    agents = [make_agent("greedy") for _ in range(players)]
    for i, a in enumerate(agents):
        a.reset(players, config.board, seed=i)
    for _ in range(turns):
        p = int(st.current_player[0])
        step_inplace(st, np.array([agents[p].act(observe(st, p)[0], legal_action_mask(st)[0])]), config)
    p = int(st.current_player[0])
    return st, config, p, observe(st, p)[0]


@pytest.mark.parametrize("players, seed, turns", [(2, 5, 11), (4, 5, 11), (3, 8, 20)])
def test_world_states_show_the_observation_exactly(players, seed, turns):
    """Every world state, seen by its player 0, gives the observation it was built from entry by
    entry; its cases are the drawn world's; its deck holds exactly the cards the observation puts
    in the deck; the true world (relative seats) is among the consistent ones."""
    st, config, p, obs = _midgame(players, seed, turns)
    k = knowledge_from_observation(obs, players, config.board)
    sampler = world_sampler(k)
    worlds = sampler.sample(6, 0)
    ws = world_states(obs, players, worlds, np.random.default_rng(1))
    seen = observe(ws, 0)
    for b in range(6):
        assert np.array_equal(seen[b], obs)
        ids = [case_index(*(int(v) for v in ws.case[b, j])) for j in range(players)]
        assert ids == worlds[b].tolist()
        n = int(ws.deck_size[b])
        assert sorted(ws.deck[b, :n].tolist()) == np.flatnonzero(ws.card_place[b] == IN_DECK).tolist()
    assert np.array_equal(legal_action_mask(ws)[0], legal_action_mask(st)[0])
    with pytest.raises(ValueError, match="held case"):
        bad = worlds.copy()
        bad[:, 1 % players] = (bad[0, 1 % players] + 1) % 1680
        world_states(obs, players, bad, np.random.default_rng(1))


def test_names_the_one_case_left():
    """Seat 0's cases are {M, X}; with M named wrongly (failed, public) X is the only case left, and
    naming it is the best action there is (a correct solve at tier 0)."""
    obs, mask, board, m, x = two_case_position(False)
    failed = np.zeros(1680, dtype=np.int16)
    failed[m] = 1
    _put(obs, observation_layout(2), "failed", failed, seat=0)
    agent = RolloutAgent(budget_ms=None, worlds=8)
    agent.reset(2, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + x
    assert agent.last.worlds == 0 and agent.last.candidates == (SOLVE_BASE + x,)


def test_candidates_are_greedys_then_top_gain_queries():
    """Without ``solve`` the candidates are greedy's query and the 3 highest-gain queries after it
    (no duplicates); a solve by greedy is kept alone; with ``solve`` naming the most likely case is
    the second candidate."""
    obs, mask, board, m, x = two_case_position(False)
    s = assess(obs, mask, 2, board)
    g = greedy_decision(s)
    order = np.lexsort((s.actions, -s.gains))
    top = [int(s.actions[i]) for i in order if s.gains[i] > 1e-9][:3]
    expected = [g] + [a for a in top if a != g]
    assert candidates(s, g) == expected
    assert candidates(s, SOLVE_BASE + m) == [SOLVE_BASE + m]
    with_solve = candidates(s, g, solve=True)
    assert with_solve[:2] == [g, SOLVE_BASE + s.best_case] and with_solve[2:] == [a for a in top if a != g]


def test_deterministic_given_its_seed():
    """No budget: two agents with one seed make the same decisions with the same values."""
    st, config, p, obs = _midgame(4, 9, 6)
    mask = legal_action_mask(st)[0]
    runs = []
    for _ in range(2):
        agent = RolloutAgent(budget_ms=None, worlds=16)
        agent.reset(4, config.board, seed=3)
        runs.append((agent.act(obs, mask), agent.last.means, agent.last.worlds))
    assert runs[0] == runs[1] and runs[0][2] == 16


def test_budget_cuts_the_search_by_chunks():
    """A clock that advances 1 s per reading: the first chunk is always played, and no second one
    fits a 1 ms budget."""
    st, config, p, obs = _midgame(2, 5, 11)
    mask = legal_action_mask(st)[0]
    t = [0.0]

    def clock():
        t[0] += 1.0
        return t[0]

    agent = RolloutAgent(budget_ms=1.0, worlds=64, clock=clock)
    agent.reset(2, config.board, seed=0)
    agent.act(obs, mask)
    assert len(agent.last.candidates) == 3 and agent.last.worlds == 16


def test_paired_games_differing_only_in_the_hidden_case_look_the_same(monkeypatch):
    """As for greedy: at every turn of the agent the hidden parts of the state are replaced in a
    copy; the observation is the same and so is the action (no time limit)."""
    from pi_env import agents

    class SmallRollout(RolloutAgent):
        def __init__(self, edition="second"):
            super().__init__(budget_ms=None, worlds=8, edition=edition)

    monkeypatch.setitem(agents.AGENTS, "rollout", SmallRollout)
    check_hidden_state_invariance(["rollout", "greedy"], 2, 4, RolloutAgent, 10)


@pytest.mark.parametrize("players, seed, turns, low", [(2, 5, 3, None), (4, 5, 11, None), (3, 8, 20, None),
                                                      (4, 5, 11, -4), (3, 8, 20, -5)])
def test_round_values_equal_a_turn_by_turn_replay(players, seed, turns, low):
    """The fused rollout cut at the round's end (played as the last round, later-round bonus removed)
    gives, per world and candidate, exactly the score changes of the same games played turn by turn
    with the same policy streams in the true round until the round ends. ``low``: every score set
    to it first, so wrong attempts meet the floor −5 (docs/rules.md §5) before a correct solve: the
    rollout bounds every solve as the engine does (bounding the round's sum once disagreed in one
    world of each)."""
    from pi_env.engine.play import play

    st, config, p, obs = _midgame(players, seed, turns)
    mask = legal_action_mask(st)[0]
    agent = RolloutAgent(budget_ms=None, worlds=8)
    agent.reset(players, config.board, seed=0)
    s = agent.situation(obs, mask)
    cands = candidates(s, greedy_decision(s))
    worlds = world_sampler(s.knowledge).sample(8, 0)
    base = world_states(obs, players, worlds, np.random.default_rng(2), pending=s.outlook.pending)
    if low is not None:
        base.score[:] = low
        base.solve_points[:] = low
    streams = np.arange(1, 9, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    got = agent._play(base, cands, streams.copy())
    for c, action in enumerate(cands):
        for w in range(8):
            g = base.take([w])
            score0 = g.score[0].astype(np.int64)
            step_inplace(g, np.array([action]), config)
            stream = streams[w:w + 1].copy()
            rnd = int(g.round[0])
            while not g.done[0] and int(g.round[0]) == rnd:
                play(g, config, 1, "rules", seed=stream, autoreset=False)
            delta = g.score[0].astype(np.int64) - score0  # the step ending the round scores its solve
            assert got[w, c] == delta[0] - delta[1:].mean(), (c, w)


def test_round_score_change_by_hand():
    """Solve by solve (docs/rules.md §4.3, §5): second edition, at −4 two wrong attempts cost 1 (the
    floor −5) and a correct 7 then gives +6 in all (summed once: −4 − 4 + 7 = −1, +3); at 20 a
    wrong attempt and a correct 9 give +1 (the cap 21); first edition: points − 2 per wrong."""
    score = np.array([[-4, 20, 0, 3]])
    wrong = np.array([[2, 1, 0, 1]])
    points = np.array([[7, 9, 5, 0]])
    assert round_score_change(score, wrong, points, "second").tolist() == [[6, 1, 5, -2]]
    assert round_score_change(score, wrong, points, "first").tolist() == [[3, 7, 5, -2]]


def test_budgeted_chunks_by_hand():
    """A clock that moves 1 s per reading, start 0: each chunk takes 1 s (its two readings), so
    the next one starts at t0 = 2, 4, ... and needs t0 + 1 s within the budget; the first always."""
    from pi_env.agents.rollout import budgeted_chunks

    def run(budget_ms):
        ticks = iter(range(100))
        return [idx.tolist() for idx in budgeted_chunks(10, 4, 0.0, budget_ms, lambda: float(next(ticks)))]

    assert run(2500) == [[0, 1, 2, 3]]
    assert run(3500) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert run(None) == run(10 ** 6) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert run(0.001) == [[0, 1, 2, 3]]
