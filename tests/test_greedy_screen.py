"""The paired greedy-variant screen (pi_env.experiments.greedy_screen): the defaults are greedy, each
option's decision on hand-worked positions, and the paired figures."""

from __future__ import annotations

import numpy as np
import pytest
from test_greedy import _put, two_case_position
from test_winprob import _four_player_last_turn

from pi_env.agents.greedy import GreedyAgent, assess, greedy_decision, q_after
from pi_env.agents.runner import play_game
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.engine.observe import observation_layout
from pi_env.experiments.greedy_screen import TunedGreedy, main, paired_screen, q_two_step


def _act(agent, obs, mask, board, players):
    agent.reset(players, board, seed=0)
    return agent.act(obs, mask)


def _tuned_beside(agents: list, seed: int, config: GameConfig) -> None:
    """Reset each of ``agents`` as :func:`pi_env.agents.runner.play_game` resets seat ``j``'s agent."""
    for j, agent in enumerate(agents):
        agent.reset(config.num_players, config.board, seed=seed * 10 + j)


def test_defaults_decide_as_greedy_at_every_turn_of_a_game():
    """Four greedy players; at every turn a default TunedGreedy with the same memory (one per seat)
    picks greedy's action."""
    config = GameConfig(num_players=4)
    tuned = [TunedGreedy() for _ in range(4)]
    _tuned_beside(tuned, 11, config)
    expected: list[int] = []

    def check(state, p, obs, agent, mask):  # the mover's view, before greedy acts
        expected.append(int(tuned[p].act(obs, mask)))

    def taken(state):
        assert int(state.last_action[0]) == expected[-1]

    state, _ = play_game(config, [GreedyAgent() for _ in range(4)], 11, before_step=check, after_step=taken)
    turns = len(expected)
    assert turns == int(state.turn[0]) and turns > 40
    assert turns == 73  # the game the hand-rolled loop played before (agents reset with seeds 0..3: the same)


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


def test_keep_tile_rival_keeps_the_tile_only_when_another_player_can_tie():
    """The position above at 15 points with ``keep_tile_from`` 15 and ``keep_tile_rival`` 12: the
    other seats at 5, 11, 11 (nobody at 12) — greedy's investigator; one of them at 12 — the best
    clue card (the tile is kept)."""
    obs, mask, board, inv = _round3_investigator_turn()
    layout = observation_layout(4)
    _put(obs, layout, "score", 15, seat=0)
    for seat, score in ((1, 5), (2, 11), (3, 11)):
        _put(obs, layout, "score", score, seat=seat)
    s = assess(obs, mask, 4, board)
    clue = s.actions < INVESTIGATE_BASE
    best_clue = int(s.actions[clue][np.argmax(s.gains[clue])])
    agent = TunedGreedy(keep_tile_from=15, keep_tile_rival=12)
    assert _act(agent, obs, mask, board, 4) == inv
    _put(obs, layout, "score", 12, seat=2)
    assert _act(agent, obs, mask, board, 4) == best_clue


def test_tile_decisive_by_the_expected_top_probability():
    """The position above (8 points, 1,287 cases): the investigator's ``q`` (expected probability of
    the most likely case after the answer) is 10/1287 = 0.00777, the best clue card's 3/1287 =
    0.00233 (worked out from the situation's answers). ``tile_decisive`` 0.005: the investigator
    reaches it and no clue card does — greedy's investigator; 0.5: none reaches it, 0.002: a clue
    card reaches it too — the tile is kept and the clue card of the highest gain is taken."""
    obs, mask, board, inv = _round3_investigator_turn()
    s = assess(obs, mask, 4, board)
    clue = s.actions < INVESTIGATE_BASE
    q = np.array([q_after(s.answers[i], s.probs) for i in range(s.actions.size)])
    assert s.cases.size == 1287
    assert q[s.actions == inv][0] == pytest.approx(10 / 1287) and q[clue].max() == pytest.approx(3 / 1287)
    best_clue = int(s.actions[clue][np.argmax(s.gains[clue])])
    assert _act(TunedGreedy(tile_decisive=0.005), obs, mask, board, 4) == inv
    assert _act(TunedGreedy(tile_decisive=0.5), obs, mask, board, 4) == best_clue
    assert _act(TunedGreedy(tile_decisive=0.002), obs, mask, board, 4) == best_clue
    with pytest.raises(ValueError, match="tile_decisive"):
        TunedGreedy(tile_decisive=1.5)


FIVE_CASES = np.array([[1, 1, 1, 0, 0], [2, 2, 2, 1, 2], [0, 1, 2, 0, 0]], dtype=np.int16)
"""Three queries' answers on five cases of probability 1/5 each (the look-ahead tests)."""


def test_q_two_step_by_hand_and_by_brute_force():
    """FIVE_CASES: query 0 answers 1 for cases {0, 1, 2}, which query 2 tells apart, and 0 for {3, 4},
    which query 1 tells apart: 5/5. Query 1: answer 2 for {0, 1, 2, 4}, at best 3 groups (query 2
    answers 0, 1, 2, 0 there), answer 1 for {3}: 4/5. Query 2: answer 0 for {0, 3, 4}, at best 2
    groups, and {1}, {2}: 4/5. Random matrices: equal to a brute force over answers and second
    queries."""
    assert q_two_step(FIVE_CASES, np.full(5, 0.2)) == pytest.approx([1.0, 0.8, 0.8])
    rng = np.random.default_rng(7)
    for _ in range(30):
        A, N = rng.integers(1, 5), rng.integers(1, 8)
        codes = rng.integers(0, 16, (A, N))
        probs = rng.random(N)
        probs /= probs.sum()
        brute = []
        for a in range(A):
            total = 0.0
            for k in set(codes[a].tolist()):
                m = codes[a] == k
                total += max(sum(probs[m & (codes[b] == j)].max() for j in set(codes[b][m].tolist()))
                             for b in range(A))
            brute.append(total)
        assert q_two_step(codes, probs) == pytest.approx(brute)
    with pytest.raises(ValueError, match="0..15"):
        q_two_step(np.array([[0, 16]]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="must be"):
        q_two_step(np.array([[0, 1]]), np.array([1.0]))


def test_lookahead_weight_turns_the_query_by_hand():
    """FIVE_CASES as three legal clue cards of a real position (cases of probability 1/5, so the
    agent queries): gains 0.971, 0.722, 1.371 bits, look-ahead values 1, 0.8, 0.8. Greedy and
    ``lookahead`` 1 (1.971 < 2.171) take query 2; ``lookahead`` 3 (3.971 > 3.771) query 0."""
    from dataclasses import replace

    from pi_env.solvers.hints import information_gains

    obs, mask, board, inv = _round3_investigator_turn()
    s = assess(obs, mask, 4, board)
    probs = np.full(5, 0.2)
    clues = s.legal_clues[:3]
    gains = information_gains(FIVE_CASES, probs)
    assert gains == pytest.approx([0.97095059, 0.72192809, 1.37095059])
    t = replace(s, cases=s.cases[:5], probs=probs, best=0, actions=clues, answers=FIVE_CASES, gains=gains,
                denial=np.zeros(3))
    scores = np.zeros(4, dtype=np.int64)
    assert TunedGreedy().decide(t, scores) == clues[2] == greedy_decision(t)
    assert TunedGreedy(lookahead=1.0).decide(t, scores) == clues[2]
    assert TunedGreedy(lookahead=3.0).decide(t, scores) == clues[0]


def test_denial_weight_option_decides_as_greedy_with_that_weight():
    """``denial_weight`` is greedy's own option: at every turn of a four-player game (the others
    greedy) TunedGreedy(denial_weight=1) decides as greedy_decision with weight 1, and at least one
    of those decisions differs from greedy's weight 0 at 4 players."""
    config = GameConfig(num_players=4)
    agents = [GreedyAgent() for _ in range(3)] + [TunedGreedy(denial_weight=1.0)]
    mirror = GreedyAgent()
    mirror.reset(4, config.board, seed=12 * 10 + 3)  # as play_game resets seat 3's agent
    decisions: list[tuple[int, int]] = []  # seat 3's (weight 1, greedy's weight 0) decisions

    def check(state, p, obs, agent, mask):
        if p == 3:
            s = mirror.situation(obs, mask)
            decisions.append((int(greedy_decision(s, denial_weight=1.0)), int(greedy_decision(s))))

    def taken(state):
        if int(state.last_player[0]) == 3:
            assert int(state.last_action[0]) == decisions[-1][0]

    play_game(config, agents, 12, before_step=check, after_step=taken)
    differ = sum(one != zero for one, zero in decisions)
    assert differ > 0
    assert (len(decisions), differ) == (21, 11)  # as the hand-rolled loop counted before


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
    assert "paired difference +0.0 ± 0.0 points of win share (1 SE)" in capsys.readouterr().out


def test_printed_line_gives_the_unrounded_ratio_to_the_standard_error(monkeypatch, capsys):
    """A difference of 0.0084 with a standard error of 0.004 prints "+0.8 ± 0.4 points of win share" — 2 SE when
    read rounded — and z +2.10; with a zero standard error no ratio is printed."""
    from pi_env.experiments import greedy_screen

    result = greedy_screen.ScreenResult(400, 0.263, 0.2546, 0.0084, 0.004, 47, 15.09, 15.15)
    monkeypatch.setattr(greedy_screen, "paired_screen", lambda *a, **k: result)
    assert main(["--seed", "4199", "--option", "hazard_scale=2.5", "--quiet"]) == 0
    assert "paired difference +0.8 ± 0.4 points of win share (1 SE; z +2.10); 47 games changed" in capsys.readouterr().out
    monkeypatch.setattr(greedy_screen, "paired_screen",
                        lambda *a, **k: greedy_screen.ScreenResult(2, 0.25, 0.25, 0.0, 0.0, 0, 15.0, 15.0))
    assert main(["--seed", "4199", "--quiet"]) == 0
    assert "paired difference +0.0 ± 0.0 points of win share (1 SE); 0 games changed" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["--option", "q_weight=nan"], "q_weight must be a finite number, got nan"),
    (["--option", "delta=inf"], "delta must be a finite number, got inf"),
    (["--option", "keep_tile_from=-inf"], "keep_tile_from must be a finite number, got -inf"),
    (["--option", "keep_tile_rival=inf"], "keep_tile_rival must be a finite number, got inf"),
    (["--option", "lookahead=nan"], "lookahead must be a finite number, got nan"),
    (["--option", "denial_weight=inf"], "denial_weight must be a finite number, got inf"),
    (["--option", "tile_decisive=-0.5"], "tile_decisive must be a probability in [0, 1], got -0.5"),
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


def test_the_runner_gives_before_step_the_mask_when_it_takes_one():
    """``play_game``'s ``before_step`` with a fifth parameter gets the legal-action mask the agent is
    given (``legal_action_mask`` of the position, the very array), and one with four parameters is
    called as before: the same game (2 players, greedy and random, seed 3) either way."""
    from pi_env.agents.runner import play_game as run_game

    config = GameConfig(num_players=2)
    four: list[tuple[int, int]] = []
    five: list[tuple[int, int]] = []
    given: list[np.ndarray] = []

    class Spy(GreedyAgent):
        def act(self, obs, mask):
            given.append(mask)
            return super().act(obs, mask)

    def with_mask(state, p, obs, agent, mask):
        assert mask.dtype == np.int8 and mask.shape == (1730,)
        assert np.array_equal(mask, legal_action_mask(state)[0])
        assert np.array_equal(obs, observe(state, p)[0])
        five.append((p, int(mask.sum())))

    def check_mask(state, p, obs, agent, mask):
        with_mask(state, p, obs, agent, mask)
        if p == 0:
            given.append(mask)  # the agent's act appends the same object next

    first, _ = run_game(config, ["greedy", "random"], 3,
                        before_step=lambda state, p, obs, agent: four.append((p, int(legal_action_mask(state)[0].sum()))))
    second, _ = run_game(config, [Spy(), "random"], 3, before_step=check_mask)
    assert five == four and len(four) == int(first.turn[0]) == int(second.turn[0]) > 0
    assert len(given) == 2 * sum(p == 0 for p, _ in four)
    assert all(given[i] is given[i + 1] for i in range(0, len(given), 2))


def test_the_runner_gives_after_step_the_recorder_when_it_takes_one():
    """``play_game``'s ``after_step`` with a second parameter gets the game's recorder, already
    holding the move just made (one event more after each call, a new round record from the move
    that ends a round); one with one parameter is called as before, once per move."""
    from pi_env.agents.runner import play_game as run_game

    config = GameConfig(num_players=2)
    one: list[int] = []
    seen: list[tuple[int, int, int]] = []

    def with_recorder(state, recorder):
        record = recorder.record()
        seen.append((int(state.turn[0]), len(record.rounds), sum(len(r.events) for r in record.rounds)))

    first, _ = run_game(config, ["greedy", "random"], 3, after_step=lambda state: one.append(int(state.turn[0])))
    second, recorder = run_game(config, ["greedy", "random"], 3, after_step=with_recorder)
    assert [t for t, _, _ in seen] == one == list(range(1, int(first.turn[0]) + 1))
    assert [n for _, _, n in seen] == one  # every move is in the record when after_step sees it
    rounds = [r for _, r, _ in seen]
    assert rounds[0] == 1 and rounds[-1] == len(recorder.record().rounds) == 3
    assert sorted(rounds) == rounds and len(set(rounds)) == 3


# -- the winprob variant and the lockstep pairs -------------------------------------------------


def _separate_games(config, engine_seed, seat, variant):
    """The two games of a pair played separately, as the screen before the lockstep did: scores
    and unused tiles of the all-greedy game and of the variant game."""

    base, _ = play_game(config, [GreedyAgent() for _ in range(config.num_players)], engine_seed)
    agents: list = [GreedyAgent() for _ in range(config.num_players)]
    agents[seat] = variant
    var, _ = play_game(config, agents, engine_seed)
    return (base.score[0].tolist(), base.inv_left[0].tolist()), (var.score[0].tolist(), var.inv_left[0].tolist())


@pytest.mark.parametrize("agent, options, games", [
    ("greedy-tuned", {"delta": -2.5}, (0, 1)),
    ("winprob", {"samples": 200, "early_solves": 1, "margin": 0}, (0, 1, 2, 3)),
])
def test_lockstep_pairs_equal_the_two_games_played_separately(agent, options, games):
    """play_pair branches the variant game off at its first differing decision; its final scores
    and unused tiles equal those of the two games played separately from the start (seed 4199),
    and at least one of the games has a differing decision (so the branch is exercised)."""
    from pi_env.apps.tournament import game_seed
    from pi_env.experiments.greedy_screen import make_variant, play_pair

    config = GameConfig(num_players=4)
    branched = 0
    for g in games:
        es = game_seed(4199, g)
        base, var, first = play_pair(config, es, g % 4, make_variant(agent, options), g)
        assert ((base.score[0].tolist(), base.inv_left[0].tolist()), (var.score[0].tolist(), var.inv_left[0].tolist())) \
            == _separate_games(config, es, g % 4, make_variant(agent, options))
        branched += first is not None
        if first is None:
            assert var is base
        else:
            assert first.game == g and first.greedy != first.variant
    assert branched >= 1


def test_winprob_variant_with_greedys_decisions_gives_exactly_zero():
    """``margin`` 1: the other plan must beat greedy's choice by more than a whole win share, which
    no plan can, so winprob (with ``early_solves``, simulating every last-round decision it has not
    attempted in) decides as greedy: on 4 games of seed 4199 the paired difference is exactly 0, no
    game changed, no first change."""
    r = paired_screen({"margin": 1.0, "samples": 100, "early_solves": 1}, seed=4199, games=4, agent="winprob")
    assert (r.difference, r.se, r.changed, r.first_changes) == (0.0, 0.0, 0, ())
    assert r.variant == r.greedy and r.variant_score == r.greedy_score


def test_winprob_options_are_checked_before_any_game():
    from pi_env.agents.winprob import WinProbAgent
    from pi_env.experiments.greedy_screen import make_variant

    a = make_variant("winprob", {"samples": 300.0, "early_solves": 1.0, "gap_min": 2.0, "opp_correct": 0.5})
    assert isinstance(a, WinProbAgent) and (a.samples, a.early_solves, a.gap_min, a.opp_correct) == (300, True, 2.0, 0.5)
    for options, message in (({"samples": 1.5}, "samples must be a whole number, got 1.5"),
                             ({"early_solves": 2.0}, "early_solves must be 0 or 1, got 2.0"),
                             ({"margin": float("nan")}, "margin must be a finite number, got nan"),
                             ({"delta": 1.0}, r"unknown option\(s\) \['delta'\] of winprob"),
                             ({"opp_correct": 1.5}, "opp_correct must be a probability"),
                             ({"gap_min": 3.0, "gap_max": 1.0}, "gap_min must be at most gap_max")):
        with pytest.raises(ValueError, match=message):
            paired_screen(options, seed=4199, games=2, agent="winprob")
    with pytest.raises(ValueError, match="unknown variant agent 'rollout'"):
        make_variant("rollout", {})


def test_breakdown_groups_and_contributions_by_hand():
    """Five first changes in 10 games: greedy's solve turned into a query when ahead (+1, +0.5),
    a query turned into a solve 2 points behind (−1) and 6 behind (0), a query for another query
    level (+1/3). Groups sorted by change then standing; each contribution is the group's sum over
    the 10 games, and they add up to the mean difference (0.0833...)."""
    from pi_env.core.constants import SOLVE_BASE
    from pi_env.experiments.greedy_screen import FirstChange, ScreenResult, breakdown

    def fc(score, leader, greedy, variant, d):
        return FirstChange(0, 2, 1, score, leader, greedy, variant, None, d)

    firsts = (fc(15, 12, SOLVE_BASE + 3, 7, 1.0), fc(18, 17, SOLVE_BASE, 40, 0.5),
              fc(10, 12, 5, SOLVE_BASE + 9, -1.0), fc(9, 15, 5, SOLVE_BASE + 9, 0.0), fc(12, 12, 5, 6, 1 / 3))
    r = ScreenResult(10, 0.3, 0.2, (1.5 - 1 + 1 / 3) / 10, 0.05, 5, 15.0, 15.0, firsts)
    rows = breakdown(r)
    assert [(c, s, n) for c, s, n, _, _ in rows] == [
        ("query→query", "level", 1), ("query→solve", "behind 1-4", 1), ("query→solve", "behind 5+", 1),
        ("solve→query", "ahead", 2)]
    assert [m for _, _, _, m, _ in rows] == pytest.approx([1 / 3, -1.0, 0.0, 0.75])
    assert [c for _, _, _, _, c in rows] == pytest.approx([1 / 30, -0.1, 0.0, 0.15])
    assert sum(c for *_, c in rows) == pytest.approx(r.difference)


def test_winprob_screen_command_line(capsys):
    """``--agent winprob`` with options prints the winprob label; ``--breakdown`` the count of first
    changes (none with margin 1)."""
    assert main(["--seed", "4199", "--games", "2", "--quiet", "--agent", "winprob", "--option", "margin=1",
                 "--option", "samples=50", "--breakdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("winprob (margin=1, samples=50): seed 4199, games 0..1: ")
    assert "paired difference +0.0 ± 0.0 points of win share (1 SE); 0 games changed" in out
    assert ("0 games with a decision other than greedy's; by its situation (paired difference in points "
            "of win share, contribution to the mean):\n") in out


def test_help_explains_players(capsys):
    """``--help`` explains ``--players`` (it had no help text; every other option had one)."""
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal's width
    assert ("--players PLAYERS players per game, 2..5 (default 4); the variant sits in seat g mod players "
            "of game g, greedy in the others") in out
