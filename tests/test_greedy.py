"""The ``greedy`` agent (issue #4): solver-driven, most informative query, one-step solve rule; it
sees only its observation."""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import pytest
from helpers import play_game

from pi_env.agents import AGENTS, GreedyAgent, make_agent
from pi_env.agents.greedy import (HORIZON, TURNS_MEAN, Outlook, assess, best_query, denial_weight_for,
                                 greedy_decision, next_player_gains, q_after, read_outlook,
                                 turns_to_solve_pmf, waiting_clue)
from pi_env.core.constants import INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE, TYPE_SIZES, case_index
from pi_env.engine import GameConfig, init, legal_action_mask, observe, outcome
from pi_env.engine.observe import decode_observation, observation_layout, observation_size
from pi_env.solvers import analyze_knowledge, hint, knowledge_from_observation


def test_registered():
    assert AGENTS["greedy"] is GreedyAgent
    assert isinstance(make_agent("Greedy"), GreedyAgent)


# ---------------------------------------------------------------------------------------------
# a hand-made position: the agent (seat 0 of 2) has exactly two cases left


def _put(obs, layout, name, value, seat=None):
    start, shape = layout[name]
    if seat is not None:
        size = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        start += seat * size
    else:
        size = int(np.prod(shape)) if shape else 1
    obs[start:start + size] = np.asarray(value).reshape(-1)


def _elements(case):
    s, e, loc = case
    return [s, TYPE_SIZES[0] + e, TYPE_SIZES[0] + TYPE_SIZES[1] + loc]


def two_case_position(opponent_certain: bool, players: int = 2, seed: int = 7, held=(0, 0, 0)):
    """Seat 0 holds H = ``held`` (its opponent's case) and has answered every clue card whose
    answer is the same for M = (1, 1, 1) and X = (1, 1, 2): its cases are exactly {M, X}, 1/2 each.
    With ``opponent_certain`` seat 1 has spot markers on H's three elements (its public
    information leaves one case), else no answers. Round 1, tier 0, rotation 0, the agent moves
    first, score 0, 5 investigators. Returns ``(observation, mask, board, M, X)``."""
    config = GameConfig(num_players=players)
    td = init(config, 1, seed=seed).tile_district[0].astype(np.int64)
    adj = config.board.adjacency
    M, X, H = (1, 1, 1), (1, 1, 2), tuple(held)

    def answer(x, case):
        y = _elements(case)[0 if x < 12 else (1 if x < 22 else 2)]
        return 2 if x == y else int(adj[td[y], td[x]])

    layout = observation_layout(players)
    obs = np.zeros(observation_size(players), dtype=np.int16)
    tiles = np.zeros((36, 14), dtype=np.int16)
    tiles[np.arange(36), td] = 1
    _put(obs, layout, "tiles", tiles)
    held = np.zeros(36, dtype=np.int16)
    held[_elements(H)] = 1
    _put(obs, layout, "held_case", held)
    marks = np.zeros((3, 36), dtype=np.int16)  # nothing / trace / spot
    for x in range(36):
        if answer(x, M) == answer(x, X):
            marks[answer(x, M), x] = 1
    _put(obs, layout, "front", marks[0], seat=0)
    _put(obs, layout, "trace", marks[1], seat=0)
    _put(obs, layout, "spot", marks[2], seat=0)
    if opponent_certain:
        theirs = np.zeros(36, dtype=np.int16)
        theirs[_elements(H)] = 1
        _put(obs, layout, "spot", theirs, seat=1)
    _put(obs, layout, "inv_left", 5, seat=0)
    _put(obs, layout, "inv_left", 5, seat=1)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[:36] = 1 - marks[0]  # cards answered nothing are out of circulation
    mask[INVESTIGATE_BASE:] = 1
    return obs, mask, config.board, case_index(*M), case_index(*X)


def test_hand_made_position_has_two_cases():
    obs, mask, board, m, x = two_case_position(False)
    a = analyze_knowledge(knowledge_from_observation(obs, 2, board))
    assert a.cases.tolist() == [m, x]
    assert a.probabilities.tolist() == [0.5, 0.5]


def test_gambles_when_solving_beats_waiting():
    """Opponent certain and after the agent in this rotation: it solves on its turn (model
    probability 1), which ends the round (2 players, everyone but the agent attempted), so waiting is
    worth 0 and solving now 1/2 · 7 − 1/2 · 2 = 2.5 > 0: greedy names the likelier case (tie: the
    lower id)."""
    obs, mask, board, m, x = two_case_position(True)
    agent = GreedyAgent()
    agent.reset(2, board, seed=0)
    s = assess(obs, mask, 2, board)
    assert s.outlook.counts[1] == 1 and s.outlook.pmf[1, 0] == 1.0
    assert s.outlook.solve_value(0.5) == 2.5
    b = int(np.argmax(s.gains))
    assert q_after(s.answers[b], s.probs) == 1.0  # the best query tells M from X
    assert s.outlook.wait_value(1.0) == 0.0
    assert agent.act(obs, mask) == SOLVE_BASE + m


def test_queries_when_waiting_beats_solving():
    """Opponent without answers: its chance to solve on its coming turn is the model's
    ``pmf[0]`` for its public count; waiting (then certain) is worth 7 · (1 − pmf[0]) > 2.5, so greedy
    takes the best query — the solver hint's best action over the same candidates."""
    obs, mask, board, m, x = two_case_position(False)
    s = assess(obs, mask, 2, board)
    n = int(s.outlook.counts[1])
    h = turns_to_solve_pmf(n)[0]
    assert n > 100 and h < 1e-4
    assert s.outlook.wait_value(1.0) == pytest.approx(7 * (1 - h), abs=1e-12)
    agent = GreedyAgent(denial_weight=0.0)  # the query by own gain alone
    agent.reset(2, board, seed=0)
    action = agent.act(obs, mask)
    k = knowledge_from_observation(obs, 2, board)
    expected = hint(k, s.actions, tier=0, round_index=0, remaining=False).best_action
    assert action == expected
    assert action < INVESTIGATE_BASE and mask[action] == 1
    assert s.gains[list(s.actions).index(action)] == pytest.approx(1.0)
    agent = GreedyAgent()  # with denial: still a query, the highest gain + denial
    agent.reset(2, board, seed=0)
    action = agent.act(obs, mask)
    value = np.where(s.gains > 1e-9, s.gains + s.denial, -np.inf)
    assert action == int(s.actions[int(np.argmax(value))]) and action < INVESTIGATE_BASE


# ---------------------------------------------------------------------------------------------
# denial: the cards the next player needs


def _brute_denial(x: int, held, excluded, td, adj) -> float:
    """Bits the next player (case ``held``, public set: every case avoiding the ``excluded``
    (suspect, evidence) pair) learns from the clue on element ``x``, by enumeration."""
    def answer(case):
        s_, e_, l_ = case
        y = [s_, 12 + e_, 22 + l_][0 if x < 12 else (1 if x < 22 else 2)]
        return 2 if x == y else int(adj[td[y], td[x]])
    cases = [(a, b, c) for a in range(12) for b in range(10) for c in range(14)
             if a != excluded[0] and b != excluded[1]]
    same = sum(1 for c in cases if answer(c) == answer(held))
    return math.log2(len(cases) / same)


def test_denial_bits_exact():
    """H = (0, 0, Ocean Drive): the agent's own spots prove suspect 1 and evidence 1 are its, so the
    next player's public set is 11 · 9 · 14 = 1386 cases; the card of H's location (element 26) is
    a spot for it, leaving 11 · 9 · 1: log2 14 bits. Forest Park's card (23) is a trace for it
    (Ocean Drive is next to Forest Park), as for the 3 locations next to Forest Park:
    log2(14 / 3). Every candidate agrees with enumeration; investigators deny nothing."""
    obs, mask, board, m, x = two_case_position(False, held=(0, 0, 4))
    assert analyze_knowledge(knowledge_from_observation(obs, 2, board)).cases.tolist() == [m, x]
    s = assess(obs, mask, 2, board)
    assert s.outlook.counts[1] == 1386
    denial = dict(zip(s.actions.tolist(), s.denial.tolist()))
    assert denial[26] == pytest.approx(math.log2(14), abs=1e-12)
    assert denial[23] == pytest.approx(math.log2(14 / 3), abs=1e-12)
    td = init(GameConfig(num_players=2), 1, seed=7).tile_district[0].astype(np.int64)
    adj = board.adjacency
    for a, d in denial.items():
        if a >= INVESTIGATE_BASE:
            assert d == 0.0
        else:
            assert d == pytest.approx(_brute_denial(a, (0, 0, 4), (1, 1), td, adj), abs=1e-12)
    k = knowledge_from_observation(obs, 2, board)
    assert np.array_equal(next_player_gains(k, s.actions), s.denial)
    no_held = type(k)(k.player, k.n_players, k.tile_district, k.adjacency, -1, k.events)
    assert not next_player_gains(no_held, s.actions).any()  # no held case: nothing to deny


def test_query_and_wait_deny_the_next_player():
    """Every legal card splits M from X (1 bit each). By own gain alone the agent takes the lowest
    id, Forest Park's card 23 (value 1 + log2(14/3)); with denial the card of H's location, 26
    (1 + log2 14). With no informative query and ``p = 0.1`` (a hand-built posterior: solving is
    worth 0.1 · 7 − 0.9 · 2 < 0, waiting 0) it waits with card 26 too — above H's suspect card 0
    (log2 11) — else with the lowest legal clue, 0 (cards the agent answered with a marker stay
    legal in this position)."""
    obs, mask, board, m, x = two_case_position(False, held=(0, 0, 4))
    s = assess(obs, mask, 2, board)
    assert s.legal_clues[0] == 0
    assert int(s.actions[best_query(s, 0.0)]) == 23
    assert int(s.actions[best_query(s)]) == 26
    assert greedy_decision(s, 0.0) == 23 and greedy_decision(s) == 26
    for weight, action in ((0.0, 23), (1.0, 26)):
        agent = GreedyAgent(denial_weight=weight)
        agent.reset(2, board, seed=0)
        assert agent.act(obs, mask) == action
    w = dataclasses.replace(s, gains=np.zeros_like(s.gains), probs=np.array([0.1, 0.1]))
    assert w.outlook.solve_value(0.1) == pytest.approx(-1.1) and w.outlook.wait_value(0.1) == 0.0
    denial = dict(zip(s.actions.tolist(), s.denial.tolist()))
    assert denial[0] == pytest.approx(math.log2(11), abs=1e-12)
    assert waiting_clue(w) == 26
    assert greedy_decision(w) == 26 and greedy_decision(w, 0.0) == 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_denial_weight_by_player_count(players):
    """The position of the test above at 2–5 seats (the other seats without answers, so the
    agent's cases are still M and X, 1/2 each, and every legal split is worth 1 bit). With 2 and 3
    players the default weight is 1: card 26 (1 + log2 14); with 4 and 5 players it is 0 (measured:
    denial made greedy the weakest of 4- and 5-player tables, module docstring): the lowest-id 1-bit
    card, 23 — also for ``greedy_decision`` of the same situation without an explicit weight."""
    obs, mask, board, m, x = two_case_position(False, players=players, held=(0, 0, 4))
    s = assess(obs, mask, players, board)
    assert s.probs.tolist() == [0.5, 0.5]
    denial = dict(zip(s.actions.tolist(), s.denial.tolist()))
    assert denial[26] == pytest.approx(math.log2(14), abs=1e-12)
    assert denial[23] == pytest.approx(math.log2(14 / 3), abs=1e-12)
    expected = 23 if players >= 4 else 26
    assert denial_weight_for(players) == (0.0 if players >= 4 else 1.0)
    assert greedy_decision(s) == expected
    agent = GreedyAgent()
    agent.reset(players, board, seed=0)
    assert agent.act(obs, mask) == expected
    agent = GreedyAgent(denial_weight=1.0)  # an explicit weight overrides the player count's
    agent.reset(players, board, seed=0)
    assert agent.act(obs, mask) == 26


def _last_round_position(players):
    """The position above in round 3 with one investigator tile left (4 placed in earlier rounds)
    and the five clue cards that split M from X (23, 24, 26, 27, 28) gone from the display: only
    investigators in districts 1, 2, 4, 5, 6 (actions 37, 38, 40, 41, 42) still split them."""
    obs, mask, board, m, x = two_case_position(False, players=players, held=(0, 0, 4))
    layout = observation_layout(players)
    _put(obs, layout, "round", 2)
    _put(obs, layout, "inv_left", 1, seat=0)
    mask[[23, 24, 26, 27, 28]] = 0
    return obs, mask, board


@pytest.mark.parametrize("players", [4, 5])
def test_reserve_keeps_the_last_tile_for_the_tiebreak(players):
    """Ties are broken by unused investigator tiles (docs/rules.md §5). Round 3, one tile left,
    only investigators split M from X. Without a reserve (the default) this round's share is
    ``ceil(1 / 1) = 1``: the lowest informative investigator, 37. With ``reserve=1`` no
    investigator is a candidate; no legal clue splits the cases, so greedy compares naming M now
    (``0.5 · 9 − 0.5 · 2 = 3.5``, tier 0 of round 3) with waiting for others' solves, which cannot
    raise ``p`` and can only advance the tier or end the round: it names M (the lower case id)."""
    obs, mask, board = _last_round_position(players)
    s0 = assess(obs, mask, players, board, reserve=0)
    s1 = assess(obs, mask, players, board, reserve=1)
    assert s0.inv_allowed == 1 and s1.inv_allowed == 0
    assert [int(a) for a in s0.actions[s0.gains > 1e-9]] == [37, 38, 40, 41, 42]
    assert not (s1.actions >= INVESTIGATE_BASE).any() and not (s1.gains > 1e-9).any()
    assert s1.outlook.solve_value(0.5) == pytest.approx(3.5)
    assert s1.outlook.wait_value(0.5) < 3.5
    agent = GreedyAgent(reserve=1)
    agent.reset(players, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + case_index(1, 1, 1)
    agent = GreedyAgent()
    agent.reset(players, board, seed=0)
    assert agent.act(obs, mask) == 37
    with pytest.raises(ValueError, match="reserve must be at least 0"):
        assess(obs, mask, players, board, reserve=-1)


@pytest.mark.parametrize("players", [4, 5])
def test_last_tile_kept_while_a_clue_informs(players):
    """Round 3 of the two-case position, M and X 1/2 each. A hand-set gain of 1.5 bits for the
    investigator 37 (every other informative candidate: 1 bit) makes it the best query: by default
    greedy places it (highest gain; denial set to 0). With ``last_tile`` and its last tile, the
    tile is kept for the tiebreak (docs/rules.md §5) while a clue card informs: the lowest-id 1-bit
    card, 23; with 2 tiles left it places 37. With the splitting clue cards gone (23, 24, 26, 27,
    28) the investigator is the only informative query and greedy places it even as its last
    tile."""
    obs, mask, board = _last_round_position(players)
    mask[[23, 24, 26, 27, 28]] = 1  # the splitting cards back on the display
    s = assess(obs, mask, players, board)
    assert s.inv_left == 1 and s.inv_allowed == 1
    gains = s.gains.copy()
    gains[list(s.actions).index(37)] = 1.5
    s = dataclasses.replace(s, gains=gains, denial=np.zeros_like(gains))
    assert sorted(int(a) for a in s.actions[s.gains > 1e-9]) == [23, 24, 26, 27, 28, 37, 38, 40, 41, 42]
    assert greedy_decision(s) == 37 and greedy_decision(s, last_tile=True) == 23
    assert greedy_decision(dataclasses.replace(s, inv_left=2), last_tile=True) == 37  # not the last
    gone = np.isin(s.actions, [23, 24, 26, 27, 28])
    only_inv = dataclasses.replace(s, gains=np.where(gone, 0.0, s.gains))
    assert greedy_decision(only_inv) == 37 and greedy_decision(only_inv, last_tile=True) == 37
    obs, mask, board = _last_round_position(players)  # the real position without those cards
    for agent in (GreedyAgent(), GreedyAgent(last_tile=True)):
        agent.reset(players, board, seed=0)
        assert agent.act(obs, mask) == 37


def test_reserve_rationing_exact():
    """Rationing spreads the tiles not kept in reserve: with 5 tiles and a reserve of 1 the shares
    are ``ceil(4 / 3) = 2`` in round 1, ``ceil(2 / 2) = 1`` in round 2 (3 tiles at its start),
    ``ceil(1 / 1) = 1`` in round 3 (2 at its start): 4 tiles in the game, against 2, 2, 1 without
    a reserve; none without rationing beyond the reserve either."""
    obs, mask, board, m, x = two_case_position(False, players=5, held=(0, 0, 4))
    layout = observation_layout(5)
    for rnd, left, no_reserve, with_reserve in ((0, 5, 2, 2), (1, 3, 2, 1), (2, 2, 2, 1), (2, 1, 1, 0)):
        _put(obs, layout, "round", rnd)
        _put(obs, layout, "inv_left", left, seat=0)
        assert assess(obs, mask, 5, board, reserve=0).inv_allowed == no_reserve
        assert assess(obs, mask, 5, board, reserve=1).inv_allowed == with_reserve
        assert assess(obs, mask, 5, board, reserve=1, ration_investigators=False).inv_allowed == left - 1


# ---------------------------------------------------------------------------------------------
# the outlook, exact values


def _outlook(P=4, tier=0, hazard=(0.0, 0.0, 0.5, 0.2), order=(0, 1, 2, 3), score=0, pending=False,
             attempted=None, edition="second"):
    pmf = np.zeros((P, HORIZON))
    pmf[:, 0] = hazard
    pmf[:, 1] = 1 - np.asarray(hazard)
    pmf[0] = 0
    att = np.zeros(P, dtype=bool) if attempted is None else np.asarray(attempted, dtype=bool)
    return Outlook(P, 0, tier, 0, edition, score, bool(att[0]), pending, tuple(order),
                   np.zeros(P, dtype=bool), att, np.zeros(P, dtype=bool), np.full(P, 100), pmf)


def test_next_turn_outcomes_exact():
    o = _outlook(order=(1, 0, 2, 3))  # seats 2 and 3 act after the agent, seat 1 before
    got = sorted((round(p, 12), on, t) for p, on, t in o.next_turn())
    assert got == [(0.1, True, 1), (0.1, True, 1), (0.4, True, 0), (0.4, True, 1)]
    # a correct solve next turn: 0.4 · 7 (tier 0) + 0.6 · 5 (tier 1)
    assert o.wait_value(1.0) == pytest.approx(0.4 * 7 + 0.6 * 5)
    # q = 1/2: each outcome max(0, q · points − (1 − q) · 2)
    assert o.wait_value(0.5) == pytest.approx(0.4 * 2.5 + 0.6 * 1.5)
    # someone solved earlier in this rotation: the tier advances whatever happens
    assert o.__class__(**{**o.__dict__, "pending": True}).wait_value(1.0) == pytest.approx(5.0)


def test_round_end_in_the_outlook():
    # everyone else attempted: the round ends at this rotation's end, waiting is worth nothing
    o = _outlook(attempted=(False, True, True, True))
    assert all(not on for _, on, _ in o.next_turn())
    assert o.wait_value(1.0) == 0.0
    # only seat 3 (after the agent) has not attempted: the round ends iff it attempts (p = 0.2)
    o = _outlook(attempted=(False, True, True, False))
    assert sum(p for p, on, _ in o.next_turn() if on) == pytest.approx(0.8)
    assert o.wait_value(1.0) == pytest.approx(0.8 * (0.5 * 7 + 0.5 * 5))  # seat 2 solves: tier 1
    # the agent already attempted (second edition): it no longer counts as open
    o = _outlook(attempted=(True, False, False, False), order=(0, 1, 2, 3), hazard=(0, 0.5, 0.5, 0.5))
    assert sum(p for p, on, _ in o.next_turn() if on) == pytest.approx(4 * 0.5 ** 3)  # <= 1 attempts


def test_points_cap_and_floor():
    assert _outlook(score=0).points(0) == 7
    assert _outlook(score=19).points(0) == 2  # capped at 21
    assert _outlook(score=-4).penalty() == 1  # floored at -5
    assert _outlook(score=-5).penalty() == 0
    assert _outlook(score=0).solve_value(0.5) == 2.5
    assert _outlook(score=0, edition="first").points(3) == 0  # no tier 3 with 4 players


def test_turns_to_solve_pmf():
    assert turns_to_solve_pmf(1).tolist() == [1.0] + [0.0] * (HORIZON - 1)
    means = []
    for n in (2, 16, 256, 1680):
        p = turns_to_solve_pmf(n)
        assert p.sum() == pytest.approx(1.0) and (p >= 0).all()
        means.append(float((np.arange(1, HORIZON + 1) * p).sum()))
        mu = TURNS_MEAN[0] + TURNS_MEAN[1] * math.log2(n)
        assert means[-1] == pytest.approx(mu, abs=0.1)
    assert means == sorted(means)


def test_pending_solve_read_from_memory():
    """Seats in order 2, 3, 0, 1 (the agent third): a seat before the agent that became solved since
    its previous turn solved in this rotation; a seat after it solved in the previous one."""
    P = 4
    layout = observation_layout(P)
    obs = np.zeros(observation_size(P), dtype=np.int16)
    tiles = np.zeros((36, 14), dtype=np.int16)
    tiles[np.arange(36), init(GameConfig(num_players=P), 1, seed=1).tile_district[0]] = 1
    _put(obs, layout, "tiles", tiles)
    _put(obs, layout, "first_seat", 2)
    _put(obs, layout, "rotation", 3)
    before = (0, 2, (False, False, False, False))
    board = GameConfig(num_players=P).board
    for seat, pending in ((3, True), (1, False)):
        o = obs.copy()
        _put(o, layout, "solved", 1, seat=seat)
        _put(o, layout, "attempted", 1, seat=seat)
        d = decode_observation(o, P)
        k = knowledge_from_observation(o, P, board)
        assert read_outlook(d, k, P, "second", before).pending is pending
        assert read_outlook(d, k, P, "second", None).pending is False  # no memory: not known
    o = obs.copy()
    _put(o, layout, "rotation", 0)
    _put(o, layout, "solved", 1, seat=3)
    assert read_outlook(decode_observation(o, P), knowledge_from_observation(o, P, board), P,
                        "second", None).pending is True  # first rotation: every solve is in it


# ---------------------------------------------------------------------------------------------
# self-play: certainty, the query, hidden state


@pytest.mark.parametrize("players, seed", [(3, 21), (4, 22)])
def test_solves_when_certain_and_queries_the_best_gain(players, seed):
    config = GameConfig(num_players=players)
    certain, queries = [], 0

    def check(state, p, obs, agent):
        nonlocal queries
        if not isinstance(agent, GreedyAgent):
            return
        mask = legal_action_mask(state)[0]
        probe = copy.deepcopy(agent)
        s = probe.situation(obs, mask)
        action = greedy_decision(s)
        assert copy.deepcopy(agent).act(obs, mask) == action
        true = case_index(*(int(v) for v in state.case[0, p]))
        assert true in s.cases  # the joint posterior never loses the real case
        if s.cases.size == 1:  # p_correct = 1: it solves, and is right
            assert action == SOLVE_BASE + true
            certain.append(p)
        elif action < SOLVE_BASE:
            k = knowledge_from_observation(obs, players, config.board)
            h = hint(k, s.actions, tier=int(s.outlook.tier), round_index=int(s.outlook.round_index),
                     remaining=False)
            if h.best_action is not None:
                # the max of gain + denial; by own gain alone the hint's best action
                assert action == int(s.actions[best_query(s)])
                assert int(s.actions[best_query(s, 0.0)]) == h.best_action
                assert mask[action] == 1
                queries += 1

    names = ["greedy", "heuristic", "greedy", "deducer"][:players]
    state, _ = play_game(config, names, seed, on_step=check)
    assert len(certain) >= 2 and queries >= 10
    assert outcome(state, config).truncated is False


def _replace_hidden(state, q, rng):
    """A copy of ``state`` with everything hidden from player ``q`` replaced: every case except
    the one q holds (player q+1's), the deck order and the engine's generator."""
    other = state.copy()
    P = state.case.shape[1]
    held = (q + 1) % P
    used = [{int(state.case[0, held, t])} for t in range(3)]
    for j in range(P):
        if j == held:
            continue
        for t in range(3):
            free = sorted(set(range(TYPE_SIZES[t])) - used[t] - {int(state.case[0, j, t])})
            v = int(rng.choice(free))
            other.case[0, j, t] = v
            used[t].add(v)
    n = int(other.deck_size[0])
    other.deck[0, :n] = rng.permutation(other.deck[0, :n])
    other.rng[0] = np.uint64(rng.integers(1, 2**63))
    return other


def check_hidden_state_invariance(names, players, seed, agent_type, min_decisions):
    """At every turn of ``agent_type``, the hidden parts of the state are replaced in a copy; the
    mover's observation stays the same, and so does the action of the agent (same memory and rng)."""
    config = GameConfig(num_players=players)
    rng = np.random.default_rng(seed)
    decisions = 0

    def check(state, q, obs, agent):
        nonlocal decisions
        if not isinstance(agent, agent_type):
            return
        other = _replace_hidden(state, q, rng)
        assert not np.array_equal(other.case, state.case)
        obs_other = observe(other, q)[0]
        assert np.array_equal(obs_other, obs)
        obs_other.setflags(write=False)
        expected = copy.deepcopy(agent).act(obs.copy(), legal_action_mask(state)[0])
        assert copy.deepcopy(agent).act(obs_other, legal_action_mask(other)[0]) == expected
        decisions += 1

    play_game(config, names, seed, on_step=check)
    assert decisions >= min_decisions


@pytest.mark.parametrize("players, seed", [(3, 5), (4, 6)])
def test_never_reads_hidden_state(players, seed):
    check_hidden_state_invariance(["greedy"] * players, players, seed, GreedyAgent, 20)


def test_denial_scaled_by_the_next_players_activity():
    """The next player took one clue card (a spot on H's suspect) and named three wrong cases:
    activity 1 / 4, so each card's denial is a quarter of its bits; with only named cases it is 0
    (a guesser is denied nothing); with no public action yet, 1."""
    from pi_env.agents.greedy import next_player_activity
    obs, mask, board, m, x = two_case_position(False, held=(0, 0, 4))
    layout = observation_layout(2)
    k = knowledge_from_observation(obs, 2, board)
    assert next_player_activity(k) == 1.0
    spot = np.zeros(36, dtype=np.int16)
    spot[0] = 1  # H's suspect
    failed = np.zeros(1680, dtype=np.int16)
    failed[[case_index(2, 2, 2), case_index(3, 3, 3), case_index(5, 5, 5)]] = 1
    only_guesses = obs.copy()
    _put(only_guesses, layout, "failed", failed, seat=1)
    _put(only_guesses, layout, "attempted", 1, seat=1)
    k = knowledge_from_observation(only_guesses, 2, board)
    assert next_player_activity(k) == 0.0
    assert not assess(only_guesses, mask, 2, board).denial.any()
    mixed = only_guesses.copy()
    _put(mixed, layout, "spot", spot, seat=1)
    k = knowledge_from_observation(mixed, 2, board)
    assert next_player_activity(k) == 0.25
    s = assess(mixed, mask, 2, board)
    raw = next_player_gains(k, s.actions)
    assert raw.max() > 0 and np.array_equal(s.denial, 0.25 * raw)


def test_takes_edition_follows_kwargs_to_the_base_class():
    """``takes_edition``: a parameter of the class's own ``__init__``, of an inherited one, or of a
    base class's reached through ``**kwargs``; not past an ``__init__`` without ``**kwargs``."""
    from pi_env.agents import takes_edition
    from pi_env.agents.base import Agent

    class Ruled(Agent):
        def __init__(self, edition: str = "second"):
            self.edition = edition

    class Passes(Ruled):
        def __init__(self, x: int = 1, **kwargs):
            super().__init__(**kwargs)

    class Stops(Ruled):
        def __init__(self, x: int = 1):
            super().__init__()

    class Inherits(Passes):
        pass

    class Plain(Agent):
        def __init__(self, **kwargs):
            pass

    assert [takes_edition(c) for c in (Ruled, Passes, Stops, Inherits, Plain, Agent)] == [
        True, True, False, True, False, False]


def test_make_agent_passes_the_edition_to_rule_based_agents():
    from pi_env.agents import make_agent
    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig

    assert make_agent("greedy", edition="first").edition == "first"
    assert make_agent("search", edition="first").edition == "first"
    assert make_agent("greedy").edition == "second"
    assert make_agent("heuristic", edition="first").name == "heuristic"  # takes no edition
    # every agent whose constructor takes it, also through **kwargs (winrollout was built for the
    # second edition in a first-edition game: its signature names worlds, budget_ms, clock, **kwargs)
    from pi_env.agents import AGENTS, takes_edition

    assert {k for k, cls in AGENTS.items() if takes_edition(cls)} == {"greedy", "search", "rollout", "winprob",
                                                                      "winrollout"}
    for k in ("greedy", "search", "rollout", "winprob", "winrollout"):
        assert make_agent(k, edition="first").edition == "first"
        assert make_agent(k).edition == "second"
    seen = []
    play_game(GameConfig(num_players=2, edition="first"), ["greedy", "random"], 3,
              before_step=lambda state, p, obs, agent: seen.append(getattr(agent, "edition", None)))
    assert "first" in seen and "second" not in seen
