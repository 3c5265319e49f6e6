"""The ``winprob`` agent (pi_env.agents.winprob): its pieces on hand-worked positions, its decisions
against greedy's, determinism, legal actions and no leak of hidden information."""

from __future__ import annotations

import numpy as np
import pytest
from test_greedy import _put, check_hidden_state_invariance, two_case_position

from pi_env.agents import AGENTS, GreedyAgent, WinProbAgent, make_agent
from pi_env.agents.greedy import HORIZON, Outlook, assess, greedy_decision
from pi_env.agents.winprob import answer_classes, plan_win_shares, win_shares
from pi_env.core.constants import SOLVE_BASE
from pi_env.engine import GameConfig
from pi_env.engine.observe import observation_layout

from helpers import play_game


def test_registered_and_bad_options_refused():
    assert AGENTS["winprob"] is WinProbAgent and isinstance(make_agent("winprob"), WinProbAgent)
    with pytest.raises(ValueError, match="samples"):
        WinProbAgent(samples=0)
    with pytest.raises(ValueError, match="margin"):
        WinProbAgent(margin=-0.1)


def test_answer_classes_by_hand():
    """Codes 0, 1, 1, 2 with probabilities .1 .2 .3 .4: classes .1, .5, .4; the most likely case of
    each given the answer: 1, .3/.5 = .6, 1."""
    mass, best = answer_classes(np.array([0, 1, 1, 2]), np.array([0.1, 0.2, 0.3, 0.4]))
    assert np.allclose(mass, [0.1, 0.5, 0.4]) and np.allclose(best, [1.0, 0.6, 1.0])


def test_win_shares_rank_by_score_then_unused_investigators():
    scores = np.array([[9, 9, 3], [10, 9, 10], [8, 9, 1], [9, 9, 9]])
    assert win_shares(scores, np.array([3, 3, 3])).tolist() == [0.5, 0.5, 0.0, 1 / 3]
    assert win_shares(scores, np.array([2, 3, 3])).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert win_shares(scores, np.array([4, 3, 3])).tolist() == [1.0, 1.0, 0.0, 1.0]


def _outlook(order, pmfs, P=None, tier=0, pending=False):
    """A last-round (round index 2) outlook, nobody solved or attempted; seat j's turns to solve
    is ``pmfs[j]`` (a turn number, one-hot) or None (never)."""
    P = len(order) if P is None else P
    pmf = np.zeros((P, HORIZON))
    for j, t in enumerate(pmfs):
        if t is not None:
            pmf[j, t - 1] = 1.0
    z = np.zeros(P, dtype=bool)
    return Outlook(P, 2, tier, 0, "second", 0, False, pending, tuple(order), z, z.copy(), z.copy(),
                   np.full(P, 2), pmf)


def _shares(o, scores, inv, p, best=(1.0,)):
    mass = np.full(len(best), 1.0 / len(best))
    now, wait, nxt = plan_win_shares(o, np.array(scores), np.array(inv), p, mass, np.array(best), 200,
                                     np.random.default_rng(0))
    _shares.next_turn = nxt
    return now, wait


def test_plan_values_two_players_by_hand():
    """Round 3 (tier 0 scores 7 + 2 = 9). The opponent acts after the agent and solves on its turn
    now: solving now (right) ties 9 : 9 and the round ends; waiting, the round ends at this rotation
    (only the agent has not attempted), so it scores nothing. From 0 : 0, equal tiles: (1/2, 0). From
    14 : 4 a wrong solve loses (12 : 13), waiting wins (14 : 13), a right one wins (21, capped)."""
    o = _outlook((0, 1), [None, 1])
    assert _shares(o, [0, 0], [5, 5], 1.0) == (0.5, 0.0)
    assert _shares(o, [14, 4], [5, 5], 0.0) == (0.0, 1.0)
    assert _shares(o, [14, 4], [5, 5], 1.0) == (1.0, 1.0) and _shares.next_turn == 0.0
    # the opponent solves on its second turn: waiting gives the agent its next turn, where it is
    # certain (one answer class, p_k = 1) and solves in the same rotation as the opponent: 9 : 9,
    # tiles 5 : 4 decide; a wrong solve now ends the round at this rotation (−2 : 0)
    o2 = _outlook((0, 1), [None, 2])
    assert _shares(o2, [0, 0], [5, 4], 0.0) == (0.0, 1.0) and _shares.next_turn == 1.0
    # two answer classes, certain after one (p_k = 1) and a coin after the other (p_k = 1/2, solving
    # worth 1/2 · 9 − 1/2 · 2 > 0): waiting wins with P = 1/2 + 1/2 · 1/2 (sampled)
    _, wait, _ = plan_win_shares(o2, np.array([0, 0]), np.array([5, 4]), 0.0, np.array([0.5, 0.5]),
                              np.array([1.0, 0.5]), 4000, np.random.default_rng(1))
    assert abs(wait - 0.75) < 0.03


def test_plan_values_three_players_tiers_by_hand():
    """Three players in order 0, 1, 2; seat 1 solves on its coming turn, seat 2 never. Solving now
    (right): 0 and 1 both at tier 0 (9 each), the round ends (only seat 2 has not attempted). Waiting
    (certain next turn): seat 1 scores 9 at tier 0, the tier advances, the agent scores 5 + 2 = 7 at
    tier 1 and the round ends. From 3 : 0 : 0 solving now wins (12 : 9) and waiting too (10 : 9);
    from 0 : 0 : 0 waiting loses (7 : 9)."""
    o = _outlook((0, 1, 2), [None, 1, None])
    assert _shares(o, [3, 0, 0], [1, 1, 1], 1.0) == (1.0, 1.0)
    assert _shares(o, [0, 0, 0], [1, 1, 1], 1.0) == (0.5, 0.0)
    # seat 2 first in turn order (acts before the agent next rotation): same tiers
    o2 = _outlook((2, 0, 1), [None, 1, None])
    assert _shares(o2, [0, 0, 0], [1, 1, 1], 1.0) == (0.5, 0.0)


def _last_round(scores, held=(0, 0, 0), certain=True):
    obs, mask, board, m, x = two_case_position(certain, held=held)
    layout = observation_layout(2)
    _put(obs, layout, "round", 2)
    _put(obs, layout, "score", scores[0], seat=0)
    _put(obs, layout, "score", scores[1], seat=1)
    return obs, mask, board, m, x


def test_waits_where_greedy_gambles_when_ahead():
    """The two-case position (p = 1/2; the opponent is certain and solves after the agent, ending the
    round) in round 3 at 14 : 4. Greedy solves (E_now = 1/2 · 7 − 1/2 · 2 > 0 = E_wait; scores capped
    at 21). Winning: waiting keeps 14 : 13 (a win), solving wins only when right: winprob takes
    greedy's best query instead. At 0 : 0 both solve (waiting loses 0 : 9)."""
    obs, mask, board, m, x = _last_round((14, 4))
    greedy = GreedyAgent()
    greedy.reset(2, board, seed=0)
    assert greedy.act(obs, mask) == SOLVE_BASE + m
    agent = WinProbAgent(samples=500)
    agent.reset(2, board, seed=0)
    a = agent.act(obs, mask)
    assert a < SOLVE_BASE and mask[a] == 1
    assert agent.last[1] == 1.0 and 0.4 < agent.last[0] < 0.6 and agent.last[2] == 0.0
    obs, mask, board, m, x = _last_round((0, 0))
    agent.reset(2, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + m and agent.last[1] == 0.0


def test_plays_greedy_outside_the_last_round():
    obs, mask, board, m, x = two_case_position(True)
    agent = WinProbAgent(samples=50)
    agent.reset(2, board, seed=0)
    s = assess(obs, mask, 2, board)
    assert agent.act(obs, mask) == greedy_decision(s) and agent.last is None


def test_deterministic_given_its_seed():
    obs, mask, board, m, x = _last_round((14, 4))
    runs = []
    for _ in range(2):
        agent = WinProbAgent(samples=300)
        agent.reset(2, board, seed=5)
        runs.append((agent.act(obs, mask), agent.last))
    assert runs[0] == runs[1]


class _Checked(WinProbAgent):
    """Small sample count; counts last-round decisions and checks every action is legal."""

    decided = 0

    def __init__(self, edition="second"):
        super().__init__(samples=64, edition=edition)

    def act(self, observation, action_mask):
        a = super().act(observation, action_mask)
        assert action_mask[a] == 1
        _Checked.decided += self.last is not None
        return a


def test_paired_games_differing_only_in_the_hidden_case_look_the_same(monkeypatch):
    """As for greedy: at every turn of the agent the hidden parts of the state are replaced in a copy;
    the observation is the same and so is the action (same memory and generator), last round
    included."""
    from pi_env import agents

    monkeypatch.setitem(agents.AGENTS, "winprob", _Checked)
    _Checked.decided = 0
    check_hidden_state_invariance(["winprob", "greedy"], 2, 4, WinProbAgent, 10)
    assert _Checked.decided >= 1


@pytest.mark.parametrize("players, seed", [(2, 11), (4, 12)])
def test_whole_games_legal_actions_only(players, seed):
    _Checked.decided = 0
    state, _ = play_game(GameConfig(num_players=players), [_Checked()] + ["greedy"] * (players - 1), seed)
    assert state.done[0] and _Checked.decided >= 1


def _seat1_solved_first(obs, layout):
    """In ``obs``: seat 1 moved first this rotation and named its case H (suspect, evidence and
    location 0) correctly (solved and attempted)."""
    from test_greedy import _elements

    named = np.zeros(36, dtype=np.int16)
    named[_elements((0, 0, 0))] = 1
    _put(obs, layout, "solved_case", named, seat=1)
    _put(obs, layout, "solved", 1, seat=1)
    _put(obs, layout, "attempted", 1, seat=1)
    _put(obs, layout, "first_seat", 1)


def test_solves_where_greedy_waits_on_its_last_turn():
    """Round 3, the opponent moved first this rotation and solved (its case H named: 21 points),
    the agent has 20 (a right solve gains 1, capped at 21): greedy waits (E_now = 1/2 · 1 − 1/2 · 2
    < 0). The round ends at this rotation's end, so this is the agent's last turn: waiting loses
    (20 : 21), solving ties at 21 when right and wins on its 5 unused investigator tiles against 4:
    winprob names the likelier case. With an opponent still to move that has no answers yet (its
    next turn may not end the round), without the continuation option it keeps greedy's query."""
    obs, mask, board, m, x = _last_round((20, 21))
    layout = observation_layout(2)
    _seat1_solved_first(obs, layout)
    _put(obs, layout, "inv_left", 4, seat=1)
    greedy = GreedyAgent()
    greedy.reset(2, board, seed=0)
    g = greedy.act(obs, mask)
    assert g < SOLVE_BASE
    agent = WinProbAgent(samples=500)
    agent.reset(2, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + m
    assert agent.last[1] == 0.0 and agent.last[2] == 0.0 and 0.4 < agent.last[0] < 0.6
    obs, mask, board, m, x = _last_round((20, 21), certain=False)
    greedy.reset(2, board, seed=0)
    agent = WinProbAgent(samples=500, continuation=False)
    agent.reset(2, board, seed=0)
    g = greedy.act(obs, mask)
    assert g < SOLVE_BASE and agent.act(obs, mask) == g and agent.last[2] > 0


def test_plan_wait_goes_on_with_its_own_turns_to_solve():
    """The option ``me_pmf``: after the query the agent's most likely case has p_k = 0.1, not worth a
    solve next turn (0.1 · 9 − 0.9 · 2 < 0). Solving on its second turn after this one (rotation 2)
    it shares tier 0 with the opponent, which solves on its third turn (9 : 9, tiles 5 : 4 decide:
    a win); on its third turn the round has ended at rotation 2 (only the agent had not attempted):
    0 : 9. Without the option it gives up: 0 : 9 as well."""
    o = _outlook((0, 1), [None, 3])
    args = (o, np.array([0, 0]), np.array([5, 4]), 0.0, np.array([1.0]), np.array([0.1]), 100)
    one_hot = np.zeros(HORIZON)
    one_hot[0] = 1.0
    assert plan_win_shares(*args, np.random.default_rng(0), one_hot)[1] == 1.0
    one_hot = np.roll(one_hot, 1)
    assert plan_win_shares(*args, np.random.default_rng(0), one_hot)[1] == 0.0
    assert plan_win_shares(*args, np.random.default_rng(0))[1] == 0.0


def _four_player_last_turn(seat2_open: bool):
    """The two-case position (M, X at 1/2 each) with 4 players in round 3: seat 1 moved first this
    rotation and named its case H correctly (21 points), the agent has 20 (a right solve gains 1,
    capped at 21) and moves last in the rotation (order 1, 2, 3, 0). Seat 3 attempted earlier in
    the round (a failed solve); seat 2 too unless ``seat2_open`` (then it answered one clue card
    with nothing and has not attempted)."""
    from pi_env.core.constants import case_index

    obs, mask, board, m, x = two_case_position(False, players=4)
    layout = observation_layout(4)
    _put(obs, layout, "round", 2)
    _put(obs, layout, "score", 20, seat=0)
    _put(obs, layout, "score", 21, seat=1)
    _seat1_solved_first(obs, layout)
    for seat in (1, 2, 3):
        _put(obs, layout, "inv_left", 4, seat=seat)
    for seat in ((3,) if seat2_open else (2, 3)):
        failed = np.zeros(1680, dtype=np.int16)
        failed[case_index(5, 5, 5 + seat)] = 1
        _put(obs, layout, "failed", failed, seat=seat)
        _put(obs, layout, "attempted", 1, seat=seat)
    if seat2_open:
        front = np.zeros(36, dtype=np.int16)
        front[35] = 1
        _put(obs, layout, "front", front, seat=2)
    return obs, mask, board, m, x


def test_four_players_without_early_solves_a_query_becomes_a_solve_only_on_a_surely_last_turn():
    """4 players with ``early_solves=False`` (the 4-player default before the settings of
    ``MARGINS`` and ``OPP_CORRECT``): greedy's query becomes a solve only on a surely last turn.
    Seats 2 and 3 have attempted, seat 1 solved: after the agent's turn at most one player (the
    agent) has not attempted, so the round ends with this rotation (docs/rules.md §5). Greedy
    waits (E_now = 1/2 · 1 − 1/2 · 2 < 0); waiting loses 20 : 21, a right solve ties at 21 and wins
    on 5 unused tiles against 4: winprob names M (the lower id; solve-now win share about 1/2,
    wait 0). With seat 2 still open the round goes on after this rotation whatever happens (no
    seat acts after the agent in it): without early solves it keeps greedy's query without
    simulating (``last`` is None); with ``early_solves=True`` (the default of every player count
    now) it simulates and also keeps it there (waiting, it is certain on its next turn: 21 : 21,
    tiles 5 : 4, a win); the 4-player default (margin, opponents' correctness) the same."""
    from pi_env.agents.winprob import early_solves_for

    assert [early_solves_for(p) for p in (2, 3, 4, 5)] == [True, True, True, True]
    obs, mask, board, m, x = _four_player_last_turn(seat2_open=False)
    s = assess(obs, mask, 4, board)
    assert s.probs.tolist() == [0.5, 0.5] and s.outlook.order == (1, 2, 3, 0)
    assert all(not on for _, on, _ in s.outlook.next_turn())
    g = greedy_decision(s)
    assert g < SOLVE_BASE
    agent = WinProbAgent(samples=500, early_solves=False)
    agent.reset(4, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + m
    assert agent.last[1] == 0.0 and agent.last[2] == 0.0 and 0.4 < agent.last[0] < 0.6
    agent = WinProbAgent(samples=500)
    agent.reset(4, board, seed=0)
    assert agent.act(obs, mask) == SOLVE_BASE + m
    obs, mask, board, m, x = _four_player_last_turn(seat2_open=True)
    s = assess(obs, mask, 4, board)
    assert s.probs.tolist() == [0.5, 0.5]
    assert [(prob, on) for prob, on, _ in s.outlook.next_turn()] == [(1.0, True)]
    g = greedy_decision(s)
    assert g < SOLVE_BASE
    agent = WinProbAgent(samples=500, early_solves=False)
    agent.reset(4, board, seed=0)
    assert agent.act(obs, mask) == g and agent.last is None
    for agent in (WinProbAgent(samples=500, early_solves=True), WinProbAgent(samples=500)):
        agent.reset(4, board, seed=0)
        assert agent.act(obs, mask) == g and agent.last is not None and agent.last[1] == 1.0


def test_player_count_settings():
    """The margin and the simulated opponents' correctness by player count (``MARGINS``,
    ``OPP_CORRECT``): 4 players the screened settings, every other count 0 and 1 (the 2-player rule
    unchanged); an option given wins over the player count."""
    from pi_env.agents.winprob import margin_for, opp_correct_for

    assert [margin_for(p) for p in (2, 3, 4, 5)] == [0.0, 0.0, 0.05, 0.0]
    assert [opp_correct_for(p) for p in (2, 3, 4, 5)] == [1.0, 1.0, 1.0, 1.0]
    agent = WinProbAgent()
    for players, margin, correct in ((4, 0.05, 1.0), (2, 0.0, 1.0)):
        agent.reset(players, seed=0)
        assert (agent.margin, agent.opp_correct) == (margin, correct)
    agent = WinProbAgent(margin=0.2, opp_correct=0.5)
    agent.reset(4, seed=0)
    assert (agent.margin, agent.opp_correct) == (0.2, 0.5)


def test_opponents_wrong_attempts_by_hand():
    """``opp_correct``. The two-player position of test_plan_values_two_players_by_hand: the
    opponent acts after the agent and attempts on its coming turn, 0 : 0, tiles 5 : 5. Counted as a
    solve (default): solving now ties 9 : 9 (1/2), waiting loses 0 : 9. Always wrong (0): it falls
    to −2; solving now wins 9 : −2, waiting too (0 : −2, the round ends: only the agent has not
    attempted). Half the time (0.5, sampled): solving now 1/2 · 1/2 + 1/2 · 1 = 3/4, waiting 1/2."""
    o = _outlook((0, 1), [None, 1])
    args = (o, np.array([0, 0]), np.array([5, 5]), 1.0, np.array([1.0]), np.array([1.0]))
    now, wait, _ = plan_win_shares(*args, 200, np.random.default_rng(0))
    assert (now, wait) == (0.5, 0.0)
    now, wait, _ = plan_win_shares(*args, 200, np.random.default_rng(0), opp_correct=0.0)
    assert (now, wait) == (1.0, 1.0)
    now, wait, _ = plan_win_shares(*args, 8000, np.random.default_rng(0), opp_correct=0.5)
    assert abs(now - 0.75) < 0.02 and abs(wait - 0.5) < 0.02
    with pytest.raises(ValueError, match="opp_correct must be a probability"):
        plan_win_shares(*args, 10, np.random.default_rng(0), opp_correct=1.5)
    with pytest.raises(ValueError, match="opp_correct must be a probability"):
        WinProbAgent(opp_correct=-0.1)


def test_gap_options_keep_greedys_query_outside_the_gap():
    """The 4-player surely-last turn (the agent at 20, the leader seat 1 at 21: 1 point behind),
    where winprob names M instead of greedy's query. ``gap_min`` 2 (solve only 2 or more behind)
    or ``gap_max`` 0 (only when level or ahead): greedy's query, unsimulated; ``gap_min`` =
    ``gap_max`` = 1: M."""
    obs, mask, board, m, x = _four_player_last_turn(seat2_open=False)
    g = greedy_decision(assess(obs, mask, 4, board))
    for kwargs, expected in (({"gap_min": 2}, g), ({"gap_max": 0}, g), ({"gap_min": 1, "gap_max": 1}, SOLVE_BASE + m)):
        agent = WinProbAgent(samples=500, **kwargs)
        agent.reset(4, board, seed=0)
        assert agent.act(obs, mask) == expected
        assert (agent.last is None) == (expected == g)
    with pytest.raises(ValueError, match="gap_min must be at most gap_max"):
        WinProbAgent(gap_min=2, gap_max=1)


TWO_PLAYER_DIGEST = "f292660351f8711f07ab50aa034d57ebe7c4ac32320a2915d979642cacbf5329"
"""sha256 of winprob's own actions in 4 two-player games against greedy (engine seeds 21–24, winprob
in seats 0, 1, 0, 1; agents seeded as play_game does), computed with the code of main at acd5bab,
before the 4-player screening options (19 of those decisions simulated): its 2-player decisions unchanged."""


def test_two_player_decisions_unchanged():
    import hashlib

    from pi_env.engine import init, legal_action_mask, observe, step_inplace

    config = GameConfig(num_players=2)
    h = hashlib.sha256()
    simulated = 0
    for seed, seat in ((21, 0), (22, 1), (23, 0), (24, 1)):
        agents = [GreedyAgent(), GreedyAgent()]
        agents[seat] = WinProbAgent()
        for i, a in enumerate(agents):
            a.reset(2, config.board, seed=seed * 10 + i)
        state = init(config, 1, seed=seed)
        action = np.zeros(1, dtype=np.int64)
        mine = []
        while not state.done[0]:
            p = int(state.current_player[0])
            action[0] = agents[p].act(observe(state, p)[0], legal_action_mask(state)[0])
            if p == seat:
                mine.append(int(action[0]))
                simulated += agents[p].last is not None
            step_inplace(state, action, config)
        h.update(repr((seed, seat, mine)).encode())
    assert simulated == 19  # last-round decisions simulated (as at acd5bab)
    assert h.hexdigest() == TWO_PLAYER_DIGEST
