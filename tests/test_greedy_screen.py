"""The paired greedy-variant screen (pi_env.experiments.greedy_screen): the defaults are greedy, each
option's decision on hand-worked positions, and the paired figures."""

from __future__ import annotations

import numpy as np
import pytest
from test_greedy import _put, two_case_position
from test_winprob import _four_player_last_turn

from pi_env.agents.greedy import GreedyAgent, assess, greedy_decision
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.engine.observe import observation_layout
from pi_env.experiments.greedy_screen import TunedGreedy, main, paired_screen


def _act(agent, obs, mask, board, players):
    agent.reset(players, board, seed=0)
    return agent.act(obs, mask)


def test_defaults_decide_as_greedy_at_every_turn_of_a_game():
    """Four greedy players; at every turn a default TunedGreedy with the same memory (one per seat)
    picks greedy's action."""
    config = GameConfig(num_players=4)
    state = init(config, 1, seed=11)
    greedy = [GreedyAgent() for _ in range(4)]
    tuned = [TunedGreedy() for _ in range(4)]
    for j in range(4):
        greedy[j].reset(4, config.board, seed=j)
        tuned[j].reset(4, config.board, seed=j)
    action = np.zeros(1, dtype=np.int64)
    turns = 0
    while not state.done[0]:
        p = int(state.current_player[0])
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        action[0] = greedy[p].act(obs, mask)
        assert tuned[p].act(obs, mask) == action[0]
        step_inplace(state, action, config)
        turns += 1
    assert turns > 40


def test_delta_and_gap_weight_two_players_by_hand():
    """Two cases at 1/2; the opponent is certain and solves after the agent, ending the round, so
    E_wait = 0. Round index 1: a right solve is worth 8, E_now = 1/2 · 8 − 1/2 · 2 = 3. Greedy
    solves; with ``delta`` 3.5 it takes its query instead (3 < 0 + 3.5); 2 points behind with
    ``gap_weight`` 0.5 the margin is 3.5 − 1 = 2.5 ≤ 3: it solves again (M, the lower id)."""
    obs, mask, board, m, x = two_case_position(True)
    layout = observation_layout(2)
    _put(obs, layout, "round", 1)
    s = assess(obs, mask, 2, board)
    assert s.outlook.solve_value(s.p_best) == 3.0
    assert greedy_decision(s) == SOLVE_BASE + m
    a = _act(TunedGreedy(delta=3.5), obs, mask, board, 2)
    assert a < SOLVE_BASE and mask[a] == 1
    assert _act(TunedGreedy(delta=2.5), obs, mask, board, 2) == SOLVE_BASE + m
    _put(obs, layout, "score", 2, seat=1)
    assert _act(TunedGreedy(delta=3.5, gap_weight=0.5), obs, mask, board, 2) == SOLVE_BASE + m
    assert _act(TunedGreedy(delta=3.5, gap_weight=0.5, gap_from_round=2), obs, mask, board, 2) == a


def test_greedy_decision_takes_the_variants_margin_and_floor():
    """Greedy's own rule carries the variants' hooks (TunedGreedy keeps no solve-or-wait
    comparison of its own): on the two-case position of the test above (E_now = 3, E_wait = 0),
    ``margin`` 3.5 takes the query TunedGreedy(delta=3.5) takes, 2.5 solves; ``floor`` 3 (E_now not
    above it) queries; the defaults are greedy's decision."""
    obs, mask, board, m, x = two_case_position(True)
    _put(obs, observation_layout(2), "round", 1)
    s = assess(obs, mask, 2, board)
    query = greedy_decision(s, margin=3.5)
    assert query < SOLVE_BASE and query == _act(TunedGreedy(delta=3.5), obs, mask, board, 2)
    assert greedy_decision(s, margin=2.5) == greedy_decision(s) == SOLVE_BASE + m
    assert greedy_decision(s, floor=3.0) == query and greedy_decision(s, floor=2.9) == SOLVE_BASE + m


def test_closing_margin_four_players_by_hand():
    """Round 3, the agent at 20 moves last (order 1, 2, 3, 0); seat 1 solved, seat 3 attempted,
    seat 2 open: the agent's attempt leaves one other player unattempted, so it ends the round.
    E_now = 1/2 · 1 − 1/2 · 2 = −1/2 (a right solve gains 1 to the cap 21); the round surely goes
    on to its next turn and a splitting query makes it certain: E_wait = 1. Greedy queries. With
    ``closing_margin`` 2 (floor −2, margin −2): −1/2 ≥ 1 − 2, it names M; with 1: −1/2 < 0, the
    query. With seat 2 attempted too the rule does not apply (no other player left open)."""
    obs, mask, board, m, x = _four_player_last_turn(seat2_open=True)
    s = assess(obs, mask, 4, board)
    assert s.outlook.solve_value(s.p_best) == -0.5
    g = greedy_decision(s)
    assert g < SOLVE_BASE
    assert _act(TunedGreedy(closing_margin=2.0), obs, mask, board, 4) == SOLVE_BASE + m
    assert _act(TunedGreedy(closing_margin=1.0), obs, mask, board, 4) == g
    obs, mask, board, m, x = _four_player_last_turn(seat2_open=False)
    g = greedy_decision(assess(obs, mask, 4, board))
    assert g < SOLVE_BASE and _act(TunedGreedy(closing_margin=2.0), obs, mask, board, 4) == g


def _round3_investigator_turn():
    """A position of a four-greedy game: the first turn in round index 2 of a seat with one tile
    left at which greedy places its investigator."""
    config = GameConfig(num_players=4)
    for seed in range(20):
        state = init(config, 1, seed=seed)
        agents = [GreedyAgent() for _ in range(4)]
        for j in range(4):
            agents[j].reset(4, config.board, seed=j)
        action = np.zeros(1, dtype=np.int64)
        while not state.done[0]:
            p = int(state.current_player[0])
            obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
            action[0] = agents[p].act(obs, mask)
            if (int(state.round[0]) == 2 and int(state.inv_left[0, p]) == 1
                    and INVESTIGATE_BASE <= action[0] < SOLVE_BASE):
                return obs.copy(), mask.copy(), config.board, int(action[0])
            step_inplace(state, action, config)
    raise AssertionError("no such turn in 20 games")


def test_keep_tile_from_takes_the_best_clue_instead():
    """At 15 points with ``keep_tile_from`` 15 the agent takes the clue card of the highest gain
    (worked out from the situation's gains), not greedy's investigator; at 14 points, greedy's."""
    obs, mask, board, inv = _round3_investigator_turn()
    layout = observation_layout(4)
    _put(obs, layout, "score", 15, seat=0)
    s = assess(obs, mask, 4, board)
    assert greedy_decision(s) == inv and s.inv_left == 1
    clue = s.actions < INVESTIGATE_BASE
    best_clue = int(s.actions[clue][np.argmax(s.gains[clue])])
    assert s.gains[clue].max() < s.gains[s.actions == inv][0]
    assert _act(TunedGreedy(keep_tile_from=15), obs, mask, board, 4) == best_clue
    _put(obs, layout, "score", 14, seat=0)
    assert _act(TunedGreedy(keep_tile_from=15), obs, mask, board, 4) == inv


def test_paired_screen_of_the_defaults_is_zero_and_bad_options_refused(capsys):
    r = paired_screen({}, seed=4199, games=2)
    assert (r.difference, r.se, r.changed) == (0.0, 0.0, 0)
    assert r.variant == r.greedy and r.variant_score == r.greedy_score
    with pytest.raises(ValueError, match="unknown option"):
        paired_screen({"delt": 1.0}, seed=4199, games=2)
    with pytest.raises(ValueError, match="at least 2 games"):
        paired_screen({}, seed=4199, games=1)
    with pytest.raises(ValueError, match="hazard_scale"):
        TunedGreedy(hazard_scale=-1.0)
    assert main(["--seed", "4199", "--games", "2", "--quiet"]) == 0
    assert "paired difference +0.0 ± 0.0 points" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["--option", "q_weight=nan"], "q_weight must be a finite number, got nan"),
    (["--option", "delta=inf"], "delta must be a finite number, got inf"),
    (["--option", "keep_tile_from=-inf"], "keep_tile_from must be a finite number, got -inf"),
    (["--option", "gap_from_round=1.5"], "gap_from_round must be a whole round index, got 1.5"),
    (["--option", "gap_from_round=inf"], "gap_from_round must be a finite number, got inf"),
    (["--option", "q_weight=6", "--option", "q_weight=7"], "--option q_weight given twice"),
    (["--seed", "-1"], "--seed must be at least 0, got -1"),
    (["--start", "-5"], "--start must be at least 0, got -5"),
])
def test_bad_command_lines_are_refused_in_one_line_before_any_game(argv, message, capsys):
    """NaN options were played (a variant that never solved: "0.0%"), a repeated option silently
    kept its last value, a negative seed or start failed with "expected non-negative integer"
    naming neither: now one usage error, status 2, naming the option, before any game."""
    if "--seed" not in argv:
        argv = ["--seed", "4199"] + argv
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--games", "2", "--quiet"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"python -m pi_env.experiments.greedy_screen: error: {message}"


def test_keep_tile_from_may_stay_infinite():
    assert TunedGreedy(keep_tile_from=float("inf")).keep_tile_from == float("inf")


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="POSIX signals")
def test_ctrl_c_ends_the_screen_with_one_line_and_status_130():
    """A real SIGINT once the games run: one line on stderr, exit status 130, no traceback (was a
    KeyboardInterrupt traceback)."""
    import signal
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-m", "pi_env.experiments.greedy_screen", "--seed", "1", "--games", "400"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = b""
    while b"paired games" not in seen:
        chunk = p.stderr.read1(100)
        assert chunk, seen
        seen += chunk
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and out == b""
    assert "Traceback" not in err.decode()
    last = err.decode().strip().splitlines()[-1]
    assert last == "python -m pi_env.experiments.greedy_screen: interrupted; nothing printed"
