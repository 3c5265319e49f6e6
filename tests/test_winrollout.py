"""The ``winrollout`` agent (issue #16 item 3): winprob's last-round choice valued by engine rollouts
in exactly sampled worlds. Hand-worked last-round positions (the plans' win shares follow from the
sampled worlds exactly), the opponents' script, determinism, the time budget, hidden-state
invariance and whole games."""

from __future__ import annotations

import numpy as np
import pytest
from test_greedy import _elements, _put, check_hidden_state_invariance
from test_winprob import _four_player_last_turn, _last_round, _outlook, _seat1_solved_first

from pi_env.agents import AGENTS, WinProbAgent, WinRolloutAgent, make_agent
from pi_env.agents import winrollout as W
from pi_env.agents.greedy import HORIZON, assess
from pi_env.agents.winrollout import CHUNK, DEFAULT_WORLDS, opponent_script
from pi_env.core.constants import NUM_CASES, SOLVE_BASE
from pi_env.engine import GameConfig
from pi_env.engine.observe import observation_layout
from pi_env.solvers import analyze_knowledge

from helpers import play_game


def _engine_ready(obs, mask, players):
    """The hand-built positions of test_winprob show no display or deck; put every clue card the
    mask allows on the display (deck empty) so the engine's state of the observation agrees with
    the mask."""
    layout = observation_layout(players)
    _put(obs, layout, "display", mask[:36].astype(np.int16))
    _put(obs, layout, "deck_size", 0)
    return obs


@pytest.fixture
def drawn(monkeypatch):
    """Records the worlds each decision samples (the sampler is the module's, unchanged)."""
    seen: list[np.ndarray] = []
    real = W.world_sampler

    class Spy:
        def __init__(self, knowledge):
            self.inner = real(knowledge)

        def sample(self, n, rng):
            w = self.inner.sample(n, rng)
            seen.append(w)
            return w

    monkeypatch.setattr(W, "world_sampler", Spy)
    return seen


def test_registered_and_bad_options_refused():
    assert AGENTS["winrollout"] is WinRolloutAgent and isinstance(make_agent("winrollout"), WinRolloutAgent)
    assert WinRolloutAgent().worlds == DEFAULT_WORLDS
    assert WinRolloutAgent(worlds=np.int64(7), budget_ms=np.float32(5)).worlds == 7
    assert WinRolloutAgent(budget_ms=float("inf")).budget_ms == float("inf")
    with pytest.raises(ValueError, match="worlds must be at least 1"):
        WinRolloutAgent(worlds=0)
    for bad in (1.5, "3", True, None, float("nan")):
        with pytest.raises(ValueError, match=r"worlds must be a whole number of worlds, got "):
            WinRolloutAgent(worlds=bad)
    with pytest.raises(ValueError, match="budget_ms must be positive"):
        WinRolloutAgent(budget_ms=0)
    for bad in ("5", True, [5]):
        with pytest.raises(ValueError, match=r"budget_ms must be a number of milliseconds or None, got "):
            WinRolloutAgent(budget_ms=bad)
    with pytest.raises(ValueError, match="clock must be callable"):
        WinRolloutAgent(clock=None)
    with pytest.raises(ValueError, match="margin"):
        WinRolloutAgent(margin=-0.1)


def test_contradiction_falls_back_to_winprobs_simulation():
    """An observation no deal fits (the agent holds H = (0, 0, 0) as its opponent's case while the
    opponent's own answers leave only (3, 3, 3); the engine never answers wrongly, a typed-in
    record can, docs/rules.md §4.4): greedy reads the agent's own information alone (cases M and X)
    and there are no worlds to sample. The agent then decides exactly as winprob does with the
    same seed (its closed simulation; ``stats`` None), instead of raising ContradictionError."""
    obs, mask, board, m, x = _last_round((14, 4))
    _engine_ready(obs, mask, 2)
    theirs = np.zeros(36, dtype=np.int16)
    theirs[_elements((3, 3, 3))] = 1
    _put(obs, observation_layout(2), "spot", theirs, seat=1)
    s = assess(obs, mask, 2, board)
    assert analyze_knowledge(s.knowledge, strict=False).count == 0 and s.cases.tolist() == [m, x]
    winprob = WinProbAgent()
    winprob.reset(2, board, seed=3)
    agent = WinRolloutAgent(budget_ms=None)
    agent.reset(2, board, seed=3)
    assert agent.act(obs.copy(), mask) == winprob.act(obs.copy(), mask)
    assert agent.last == winprob.last and agent.last is not None and agent.stats is None


def test_waits_when_ahead_and_solves_when_level(drawn):
    """winprob's two-player position in round 3 (cases M, X at 1/2; the opponent is certain and
    solves on its next turn, after which only the agent has not attempted: the round ends). At
    14 : 4 a right solve now wins (21, capped, against 13), a wrong one loses (12 : 13), waiting
    wins (14 : 13): the plan "now" is worth exactly the share of sampled worlds in which the agent
    holds M, "wait" 1, and it queries. At 0 : 0 a right solve ties 9 : 9 (tiles 5 : 5, shared),
    waiting loses 0 : 9: it names M."""
    obs, mask, board, m, x = _last_round((14, 4))
    agent = WinRolloutAgent(budget_ms=None)
    agent.reset(2, board, seed=0)
    a = agent.act(_engine_ready(obs, mask, 2), mask)
    right = float(np.mean(drawn[-1][:, 0] == m))
    assert set(np.unique(drawn[-1][:, 0])) == {m, x} and 0.4 < right < 0.6
    assert a < SOLVE_BASE and mask[a] == 1
    assert agent.last == (right, 1.0, 0.0)
    assert agent.stats.worlds == agent.stats.drawn == DEFAULT_WORLDS
    obs, mask, board, m, x = _last_round((0, 0))
    agent.reset(2, board, seed=0)
    assert agent.act(_engine_ready(obs, mask, 2), mask) == SOLVE_BASE + m
    assert agent.last == (0.5 * float(np.mean(drawn[-1][:, 0] == m)), 0.0, 0.0)


def test_solves_on_its_last_turn_where_the_tiebreak_wins(drawn):
    """winprob's position: the opponent solved first this rotation (21), the agent has 20 and this
    is its last turn; a right solve ties at 21 and wins on unused investigator tiles (5 : 4, the
    engine's ranking), waiting loses: it names M, and "now" is the share of worlds holding M."""
    obs, mask, board, m, x = _last_round((20, 21))
    layout = observation_layout(2)
    _seat1_solved_first(obs, layout)
    _put(obs, layout, "inv_left", 4, seat=1)
    agent = WinRolloutAgent(budget_ms=None)
    agent.reset(2, board, seed=0)
    assert agent.act(_engine_ready(obs, mask, 2), mask) == SOLVE_BASE + m
    assert agent.last == (float(np.mean(drawn[-1][:, 0] == m)), 0.0, 0.0)


@pytest.mark.parametrize("seat2_open", [False, True])
def test_four_players_last_turn(drawn, seat2_open):
    """winprob's 4-player position (the agent moves last in the rotation, seat 1 solved first with
    21, the agent has 20): with seats 2 and 3 both attempted the round ends after the agent's turn,
    so waiting loses and a right solve wins on tiles (5 : 4): it names M. With seat 2 still open
    (fitted to solve on a later turn) the agent's next turn comes in every world and there it is
    certain of its case (it queries the card that splits M from X): waiting wins in every world."""
    obs, mask, board, m, x = _four_player_last_turn(seat2_open)
    agent = WinRolloutAgent(budget_ms=None)
    agent.reset(4, board, seed=0)
    a = agent.act(_engine_ready(obs, mask, 4), mask)
    right = float(np.mean(drawn[-1][:, 0] == m))
    if seat2_open:
        assert a < SOLVE_BASE and agent.last[1:] == (1.0, 1.0)
    else:
        assert a == SOLVE_BASE + m and agent.last == (right, 0.0, 0.0)


def test_opponent_script_by_hand():
    """Seat 1 attempts on its 3rd own turn, seat 2 on its 1st, seat 3 never (fitted model). With
    every attempt correct the script names each world's case; with none correct it names another
    case that the seat has not named before."""
    o = _outlook((0, 1, 2, 3), [None, 3, 1, None])
    rng = np.random.default_rng(0)
    worlds = rng.integers(0, NUM_CASES, size=(50, 4))
    failed = np.zeros((50, 4, NUM_CASES), dtype=bool)
    s = opponent_script(o, worlds, failed, np.random.default_rng(1))
    assert (s.turn[:, :, 0] == [0, 3, 1, 0]).all() and (s.turn[:, :, 1] == 0).all()
    assert np.array_equal(s.case[:, 1:3, 0], worlds[:, 1:3]) and (s.taken == 0).all()
    failed[:, 1] = True  # seat 1 has named every case but its own and world + 1000: that one is left
    failed[np.arange(50), 1, worlds[:, 1]] = False
    failed[np.arange(50), 1, (worlds[:, 1] + 1000) % NUM_CASES] = False
    wrong = opponent_script(o, worlds, failed, np.random.default_rng(1), opp_correct=0.0)
    assert (wrong.turn[:, :, 0] == [0, 3, 1, 0]).all()
    for j in (1, 2):
        c = wrong.case[:, j, 0]
        assert (c != worlds[:, j]).all() and not failed[np.arange(50), j, c].any()
    assert np.array_equal(wrong.case[:, 1, 0], (worlds[:, 1] + 1000) % NUM_CASES)


def test_opponent_script_calibrated_second_attempt():
    """The calibrated model (:func:`greedy_opponents`' layout): seat 1's first attempt on its 2nd
    own turn is always wrong, its next 3 own turns later always right: slots 2 and 5."""
    o = _outlook((0, 1), [None, 2])
    pmf = np.zeros((2, HORIZON))
    pmf[1, 1] = 1.0
    again = np.zeros((2, HORIZON))
    again[1, 2] = 1.0
    worlds = np.array([[5, 7], [9, 11]])
    s = opponent_script(o, worlds, np.zeros((2, 2, NUM_CASES), bool), np.random.default_rng(0),
                        opponents=(pmf, np.zeros((2, HORIZON)), again, np.ones((2, HORIZON))))
    assert s.turn[:, 1].tolist() == [[2, 5], [2, 5]]
    assert (s.case[:, 1, 0] != worlds[:, 1]).all() and np.array_equal(s.case[:, 1, 1], worlds[:, 1])


def test_deterministic_given_its_seed():
    obs, mask, board, m, x = _last_round((14, 4))
    _engine_ready(obs, mask, 2)
    runs = []
    for _ in range(2):
        agent = WinRolloutAgent(budget_ms=None, worlds=200)
        agent.reset(2, board, seed=5)
        runs.append((agent.act(obs, mask), agent.last))
    assert runs[0] == runs[1]


def test_budget_cuts_the_worlds_by_chunks():
    """A clock that moves 1 s per reading: the first chunk is always played, the next would not fit
    a 10 ms budget; without a budget all worlds are."""
    obs, mask, board, m, x = _last_round((14, 4))
    _engine_ready(obs, mask, 2)
    ticks = iter(range(10 ** 6))
    agent = WinRolloutAgent(budget_ms=10, worlds=3 * CHUNK, clock=lambda: float(next(ticks)))
    agent.reset(2, board, seed=0)
    agent.act(obs, mask)
    assert (agent.stats.worlds, agent.stats.drawn) == (CHUNK, 3 * CHUNK)
    agent = WinRolloutAgent(budget_ms=None, worlds=3 * CHUNK, clock=lambda: float(next(ticks)))
    agent.reset(2, board, seed=0)
    agent.act(obs, mask)
    assert agent.stats.worlds == 3 * CHUNK


class _Checked(WinRolloutAgent):
    """Few worlds, no time budget (replayable); counts simulated decisions, checks legality."""

    decided = 0

    def __init__(self, edition="second"):
        super().__init__(worlds=48, budget_ms=None, edition=edition)

    def act(self, observation, action_mask):
        a = super().act(observation, action_mask)
        assert action_mask[a] == 1
        _Checked.decided += self.stats is not None
        return a


@pytest.mark.parametrize("players, seed", [(2, 4), (3, 31), (5, 32)])
def test_paired_games_differing_only_in_the_hidden_case_look_the_same(monkeypatch, players, seed):
    from pi_env import agents

    monkeypatch.setitem(agents.AGENTS, "winrollout", _Checked)
    _Checked.decided = 0
    check_hidden_state_invariance(["winrollout"] + ["greedy"] * (players - 1), players, seed, WinRolloutAgent, 10)
    assert _Checked.decided >= 1


@pytest.mark.parametrize("config, seed", [(GameConfig(num_players=2), 11), (GameConfig(num_players=4), 12),
                                          (GameConfig(num_players=3), 21), (GameConfig(num_players=5), 23),
                                          (GameConfig(mode="duel"), 24)], ids=["2p", "4p", "3p", "5p", "duel"])
def test_whole_games_legal_actions_only(config, seed):
    """Whole games (in a duel, which the observation does not show, it values the last round as a
    standard one, as winprob does)."""
    _Checked.decided = 0
    state, _ = play_game(config, [_Checked()] + ["greedy"] * (config.num_players - 1), seed)
    assert state.done[0] and _Checked.decided >= 1


@pytest.mark.parametrize("players, seed", [(2, 26), (4, 27)])
def test_first_edition_plays_greedy(players, seed):
    """First edition: greedy's game, action for action, and no simulation."""
    config = GameConfig(num_players=players, edition="first")
    _Checked.decided = 0
    mine, _ = play_game(config, [_Checked(edition="first")] + ["greedy"] * (players - 1), seed)
    theirs, _ = play_game(config, ["greedy"] * players, seed)
    assert mine.equals(theirs) and _Checked.decided == 0


def test_opponent_script_second_wrong_attempt_is_a_wrong_attempt():
    """Calibrated model, both attempts wrong (seat 1 on its 2nd own turn, again 3 own turns later;
    seat 2 never attempts): the second names yet another case, one the seat has not named (the
    engine skips a case it failed with, so naming the first wrong case again would drop the attempt
    and its −2). Played by the engine for 6 rotations from a last-round start (3 players, so the
    round goes on after seat 1's first attempt): seat 1 attempts twice, both wrong, and loses 4
    points."""
    from pi_env.engine import init, rollout

    P, B = 3, 40
    o = _outlook((0, 1, 2), [None, 2, None])
    pmf, again = np.zeros((P, HORIZON)), np.zeros((P, HORIZON))
    pmf[1, 1] = again[1, 2] = 1.0
    config = GameConfig(num_players=P)
    st = init(config, B, seed=5)
    st.round[:] = 2
    st.score[:] = st.solve_points[:] = 10
    worlds = st.case.astype(np.int64) @ [140, 14, 1]
    failed = st.failed.astype(bool)
    failed[:, 1, (worlds[:, 1] + 1) % NUM_CASES] = True  # a case seat 1 named before: never again
    st.failed[:] = failed
    s = opponent_script(o, worlds, failed, np.random.default_rng(0),
                        opponents=(pmf, np.zeros((P, HORIZON)), again, np.zeros((P, HORIZON))))
    assert s.turn[:, 1].tolist() == [[2, 5]] * B and (s.turn[:, 2] == 0).all()
    first, second = s.case[:, 1, 0], s.case[:, 1, 1]
    assert (first != second).all() and (first != worlds[:, 1]).all() and (second != worlds[:, 1]).all()
    assert not failed[np.arange(B), 1, first].any() and not failed[np.arange(B), 1, second].any()
    res = rollout(st, config, "scripted", seed=1, script=s, max_steps=6 * P)  # 6 rotations: cards all along
    named = res.state.failed[:, 1].sum(axis=1) - failed[:, 1].sum(axis=1)
    assert (s.taken[:, 1] >= 5).all() and (named == 2).all() and (res.scores[:, 1] == 6).all()


def test_budget_counts_from_the_decision_not_from_an_earlier_act():
    """``decide`` called directly (public: step 4 given greedy's choice) measures its budget from its
    own start: a clock 100 s past an earlier ``act`` does not cut it to the first chunk."""
    obs, mask, board, m, x = _last_round((14, 4))
    _engine_ready(obs, mask, 2)
    now = [0.0]

    def clock():
        now[0] += 0.001  # 1 ms per reading
        return now[0]

    agent = WinRolloutAgent(budget_ms=1000, worlds=3 * CHUNK, clock=clock)
    agent.reset(2, board, seed=0)
    agent.act(obs, mask)
    assert agent.stats.worlds == 3 * CHUNK
    now[0] += 100.0
    s = agent.situation(obs, mask)
    agent.decide(s, obs, SOLVE_BASE + m)
    assert agent.stats is not None and agent.stats.worlds == 3 * CHUNK
