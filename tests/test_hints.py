"""Hints (issue #3 item 5), the observation → Knowledge bridge and the solver-backed deducer (item 9).

Hand-made positions give exact values: two equally likely cases → P(correct) 1/2 and expected points
0.5·7 − 0.5·2 = 2.5 at tier 0 of round 1; a clue splitting four equal cases 2/1/1 gains 1.5 bits.
"""

from __future__ import annotations


import numpy as np
import pytest

from pi_env.core.board import DAYTIME
from pi_env.core.constants import INVESTIGATE_BASE, NUM_CASES, SOLVE_BASE, case_index
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.records.recorder import Recorder
from pi_env.records.record_file import clue_answer, investigate_answer, suppression
from pi_env.solvers import Knowledge, analyze, analyze_knowledge, hint, knowledge_from_observation
from pi_env.solvers.hints import (answer_matrix, candidate_actions, greedy_expected_actions,
                           greedy_expected_actions_reference, information_gains, solve_now_rule,
                           suppression_masks)
from pi_env.solvers.knowledge import CLUE_KIND, INVESTIGATE_KIND, SOLVE_FAILED

# suspect i on district i, evidence j on district j; locations are their own districts
SIMPLE_TILES = np.array(list(range(12)) + list(range(10)) + list(range(14)), dtype=np.int8)
DOC, MURDER = 1, 12  # element ids
LAKESIDE, FOREST_PARK, DOWNTOWN, WATERFRONT, SKID_ROW = 0, 1, 10, 12, 13  # districts
HELD = case_index(0, 2, DOWNTOWN)  # Shorty / Bank Job / Downtown: player 1's case, held by player 0


def doc_murder_position(locations, extra_rows=()) -> Knowledge:
    """Two players; player 0 knows its case is Doc / Murder / one of ``locations`` (spots on Doc
    and Murder, failed solves naming every other location), each equally likely."""
    rows = [(0, 0, CLUE_KIND, DOC, 2, 0, 0), (1, 0, CLUE_KIND, MURDER, 2, 0, 0)]
    for loc in range(14):
        if loc not in locations:
            rows.append((len(rows), 0, SOLVE_FAILED, case_index(1, 0, loc), 0, 0, 0))
    rows += [(len(rows) + i,) + tuple(r) for i, r in enumerate(extra_rows)]
    return Knowledge(0, 2, SIMPLE_TILES, DAYTIME.adjacency, HELD, np.array(rows, dtype=np.int32))


def test_two_equal_cases_exact_values() -> None:
    k = doc_murder_position({LAKESIDE, SKID_ROW})
    h = hint(k, tier=0, round_index=0)
    assert h.count == 2 and h.entropy == 1.0
    assert h.certain == (DOC, MURDER)
    assert h.best_case == case_index(1, 0, LAKESIDE)  # ties: lowest case id
    assert h.p_correct == 0.5
    assert h.points == 7 and h.expected_points == 0.5 * 7 - 0.5 * 2 == 2.5
    # suspect and evidence clues cannot split; the Lakeside clue (spot vs nothing) is the first
    # action that does
    assert h.best_action == 22 + LAKESIDE and h.best_gain == 1.0
    assert all(h.gains[x] == 0.0 for x in range(22))
    assert h.expected_remaining_actions == 2.0  # one query, then the solve
    # waiting: the next tier does not exist with 2 players (0 points) → solving now is better
    assert h.wait_expected_points == 0.0 and h.solve_now
    # round 3 of the second edition adds 2 points; the first edition adds nothing
    assert hint(k, tier=0, round_index=2).expected_points == 0.5 * 9 - 1
    assert hint(k, tier=0, round_index=2, edition="first").expected_points == 2.5
    # only uninformative queries: guess in order, 1·0.5 + 2·0.5 attempts
    h2 = hint(k, legal_actions=[0, DOC, MURDER, 13])
    assert h2.best_action is None and h2.best_gain == 0.0
    assert h2.expected_remaining_actions == 1.5
    assert set(h2.gains) == {0, DOC, MURDER, 13}


def test_two_one_one_split_is_one_and_a_half_bits() -> None:
    # Lakeside clue: Lakeside spot, Forest Park trace (adjacent), Waterfront and Skid Row nothing
    k = doc_murder_position({LAKESIDE, FOREST_PARK, WATERFRONT, SKID_ROW})
    h = hint(k, tier=0, round_index=1)
    assert h.count == 4 and h.entropy == 2.0 and h.p_correct == 0.25
    assert h.gains[22 + LAKESIDE] == 1.5
    assert h.best_action == 22 + LAKESIDE and h.best_gain == 1.5  # nothing separates all four
    assert h.points == 7 + 1 and h.expected_points == 0.25 * 8 - 0.75 * 2
    # after the Lakeside clue: Lakeside and Forest Park are known (1 action: the solve), Waterfront
    # and Skid Row need one more clue: E = 1 + 0.25 + 0.25 + 0.5 · 2 = 2.5
    assert h.expected_remaining_actions == 2.5
    # waiting: P(correct) 0.75 after the clue, but no tier 1 with 2 players: solving then is worth
    # 0.75 · 0 − 0.25 · 2 < 0, so not solving (0) is better; 0 < 0.5: solve now
    assert h.q_after == 0.75 and h.wait_expected_points == 0.0 and h.solve_now


def test_information_gain_and_greedy_by_hand() -> None:
    w = np.full(4, 0.25)
    answers = np.array([[0, 0, 1, 2],   # 2/1/1: 1.5 bits
                        [0, 1, 0, 0]])  # 3/1: H(1/4) = 0.811 bits
    g = information_gains(answers, w)
    assert g[0] == 1.5 and g[1] == pytest.approx(-(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75)))
    # greedy: action 0 first; the pair {0, 1} then needs action 1 (2 more actions), singletons 1
    # E = 1 + 0.5·2 + 0.25·1 + 0.25·1 = 2.5
    assert greedy_expected_actions(answers, w) == 2.5
    assert greedy_expected_actions_reference(answers, w) == 2.5
    # weights matter: with P = (0.7, 0.1, 0.1, 0.1) the pair carries 0.8
    w2 = np.array([0.7, 0.1, 0.1, 0.1])
    assert greedy_expected_actions(answers, w2) == pytest.approx(1 + 0.8 * 2 + 0.1 + 0.1)
    # action 1 is an investigator; with no tile left only action 0 remains, the pair is guessed:
    # 1 + 0.5·(1·0.5 + 2·0.5) + 0.5 = 2.25
    inv = np.array([False, True])
    assert greedy_expected_actions(answers, w, inv, investigators_left=0) == 2.25
    assert greedy_expected_actions_reference(answers, w, inv, investigators_left=0) == 2.25
    assert greedy_expected_actions(answers, w, inv, investigators_left=1) == 2.5
    assert greedy_expected_actions(np.zeros((0, 1), np.int16), [1.0]) == 1.0
    assert greedy_expected_actions(np.zeros((2, 0), np.int16), []) == 0.0


def test_solve_now_rule() -> None:
    assert solve_now_rule(1.0, 0, 1.0, 0)[0]  # certain: always solve
    ok, now, wait = solve_now_rule(0.5, 7, 1.0, 5)
    assert (ok, now, wait) == (False, 2.5, 5.0)
    ok, now, wait = solve_now_rule(0.5, 7, 0.6, 5)
    assert ok and now == 2.5 and wait == pytest.approx(0.6 * 5 - 0.4 * 2)
    assert not solve_now_rule(0.2, 7, 0.2, 5)[0]  # 1.4 − 1.6 < 0


def test_candidate_districts_follow_the_placing_rule(monkeypatch) -> None:
    """The candidates of a position read from a record restated docs/rules.md §4.2 (districts
    without the player's own investigator, none when no tile is left) beside
    :func:`pi_env.core.rules.investigator_placeable`: under another placing rule they kept the old
    one. With the rule replaced (a second investigator in a district allowed), the district of the
    player's investigator is a candidate while tiles are left, none when none is."""
    from pi_env.solvers import hints

    k = doc_murder_position({LAKESIDE, SKID_ROW}, extra_rows=[(0, INVESTIGATE_KIND, FOREST_PARK, 0, 1, 1)])
    monkeypatch.setattr(hints, "investigator_placeable", lambda left, own: left > 0, raising=False)
    investigators = [int(a) - INVESTIGATE_BASE for a in candidate_actions(k) if a >= INVESTIGATE_BASE]
    assert investigators == list(range(14))
    assert not (candidate_actions(k, investigators_left=0) >= INVESTIGATE_BASE).any()
    monkeypatch.setattr(hints, "investigator_placeable", lambda left, own: left > 0 and not own and left != 2)
    assert not (candidate_actions(k, investigators_left=2) >= INVESTIGATE_BASE).any()


def test_candidates_and_suppression() -> None:
    # player 0 investigated Forest Park (district 1) and has markers on Doc (district 1) and Murder
    # (district 0); a card answered nothing by anyone is out of circulation
    k = doc_murder_position({LAKESIDE, SKID_ROW}, extra_rows=[(0, INVESTIGATE_KIND, FOREST_PARK, 0, 1, 1),
                                                              (1, CLUE_KIND, 5, 0, 0, 0)])
    cands = candidate_actions(k)
    assert 5 not in cands and DOC in cands
    assert INVESTIGATE_BASE + FOREST_PARK not in cands and INVESTIGATE_BASE + LAKESIDE in cands
    assert not (candidate_actions(k, investigators_left=0) >= INVESTIGATE_BASE).any()
    mask = np.zeros(1730, np.int8)
    mask[[3, 40, 100]] = 1
    assert candidate_actions(k, mask).tolist() == [3, 40]
    assert candidate_actions(k, [40, 3, 100]).tolist() == [3, 40]
    sup = suppression_masks(k)
    assert sup[LAKESIDE] == 0b010 and sup[FOREST_PARK] == 0b001 and sup[2:].sum() == 0


@pytest.mark.parametrize("seed", range(3))
def test_answer_matrix_matches_the_rules(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tiles = np.concatenate([rng.permutation(14)[:12], rng.permutation(14)[:10], np.arange(14)]).astype(np.int8)
    marked = {int(x) for x in rng.choice(36, size=6, replace=False)}
    rows = [(i, 0, CLUE_KIND, x, 1, 0, 0) for i, x in enumerate(sorted(marked))]
    k = Knowledge(0, 3, tiles, DAYTIME.adjacency, -1, np.array(rows, dtype=np.int32))
    cases = rng.choice(NUM_CASES, size=60, replace=False)
    actions = np.arange(SOLVE_BASE)
    got = answer_matrix(k, actions, cases)
    for j, c in enumerate(cases):
        for a in range(36):
            assert got[a, j] == clue_answer(tiles, int(c), a, DAYTIME.adjacency)
        for d in range(14):
            s, t = investigate_answer(tiles, int(c), d, suppression(tiles, marked, d), DAYTIME.adjacency)
            assert got[INVESTIGATE_BASE + d, j] == 4 * s + t


def _engine_positions(players: int, seed: int, agents=("deducer", "random")):
    """Yield (state, record so far, player to move, its observation, action mask) of one game."""
    from pi_env.agents import make_agent
    config = GameConfig(num_players=players)
    state = init(config, 1, seed=seed)
    bots = [make_agent(agents[i % len(agents)]) for i in range(players)]
    for i, b in enumerate(bots):
        b.reset(players, config.board, seed=seed + i)
    rec = Recorder(config, state, seed)
    while not state.done[0]:
        p = int(state.current_player[0])
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        yield config, state, rec.record(), p, obs, mask
        step_inplace(state, np.array([bots[p].act(obs, mask)]), config)
        rec.after_step(state)


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_knowledge_from_observation_equals_the_record(players: int, seed: int) -> None:
    checked = 0
    for i, (config, state, record, mover, _, _) in enumerate(_engine_positions(players, seed)):
        if i % (2 * players - 1):
            continue
        r = len(record.rounds) - 1
        after = len(record.rounds[r].events) - 1
        for p in range(players):
            obs = observe(state, p)[0]
            a1 = analyze_knowledge(knowledge_from_observation(obs, players, config.board, player=p))
            a2 = analyze(record, p, round_index=r, after_event=after)
            assert (a1.count, a1.own_count, a1.total) == (a2.count, a2.own_count, a2.total)
            assert np.array_equal(a1.cases, a2.cases) and np.array_equal(a1.own_cases, a2.own_cases)
            assert np.array_equal(a1.probabilities, a2.probabilities)
            if p != mover:
                continue
            # relative numbering (the default) changes no count or probability
            a0 = analyze_knowledge(knowledge_from_observation(obs, players, config.board.adjacency))
            assert np.array_equal(a0.cases, a1.cases) and np.array_equal(a0.probabilities, a1.probabilities)
            checked += 1
    assert checked > 0


def test_knowledge_from_observation_rejects_bad_input() -> None:
    state = init(GameConfig(num_players=3), 1, seed=0)
    obs = observe(state, 0)[0]
    from pi_env.core.errors import PIError

    with pytest.raises(PIError, match="entries"):  # the project's error family, as the rest raises
        knowledge_from_observation(obs[:-1], 3, DAYTIME)
    with pytest.raises(PIError, match="player"):
        knowledge_from_observation(obs, 3, DAYTIME, player=3)


@pytest.mark.parametrize("players,seed", [(4, 11), (5, 12)])
def test_hint_on_engine_positions(players: int, seed: int) -> None:
    """The hint's gain table covers exactly the legal queries and the greedy kernel equals its
    reference (speed is measured in benchmarks/solver_speed.py, not here)."""
    for i, (config, state, _, p, obs, mask) in enumerate(_engine_positions(players, seed)):
        if i % 4 or int(state.round[0]) > 0:
            continue
        k = knowledge_from_observation(obs, players, config.board, player=p)
        a = analyze_knowledge(k)
        h = hint(k, mask, analysis=a, tier=int(state.tier[0]), remaining=False)
        legal = set(np.flatnonzero(mask[:SOLVE_BASE]).tolist())
        assert set(h.gains) == legal
        assert h.best_action is None or h.gains[h.best_action] == max(h.gains.values())
        truth = case_index(*(int(v) for v in state.case[0, p]))
        assert a.probability_of(truth) > 0
        acts = np.array(sorted(h.gains))
        ans = answer_matrix(k, acts, a.cases)
        inv_left = int(state.inv_left[0, p])
        fast = greedy_expected_actions(ans, a.probabilities, acts >= INVESTIGATE_BASE, inv_left)
        if a.count <= 400:  # the plain reference is slow on large sets
            slow = greedy_expected_actions_reference(ans, a.probabilities, acts >= INVESTIGATE_BASE, inv_left)
            assert fast == pytest.approx(slow, rel=1e-12)
        assert fast >= 1.0


def test_hint_on_a_contradiction_is_empty() -> None:
    # player 0 got a spot on Doc, player 1 (whose case player 0 holds: Shorty...) cannot, but a third
    # unknown player 2 also gets a spot on Doc: no joint deal
    rows = np.array([(0, 0, CLUE_KIND, DOC, 2, 0, 0), (1, 2, CLUE_KIND, DOC, 2, 0, 0)], dtype=np.int32)
    k = Knowledge(0, 3, SIMPLE_TILES, DAYTIME.adjacency, HELD, rows)
    h = hint(k)
    assert h.count == 0 and h.best_case == -1 and h.best_action is None and not h.solve_now


# ---------------------------------------------------------------------------------------------
# the deducer


@pytest.mark.parametrize("joint", [True, False])
@pytest.mark.parametrize("players,seed", [(3, 5), (4, 6), (5, 7)])
def test_deducer_never_loses_its_true_case(players: int, seed: int, joint: bool) -> None:
    from pi_env.agents import DeducerAgent, RandomAgent
    from pi_env.agents.runner import play_game

    checked = []

    def check(state, p, obs, agent) -> None:
        if isinstance(agent, DeducerAgent):
            cases, probs, _ = agent.distribution(obs)
            truth = case_index(*(int(v) for v in state.case[0, p]))
            assert truth in set(cases.tolist()), f"player {p} lost its true case at turn {int(state.turn[0])}"
            assert probs.sum() == pytest.approx(1.0)
            checked.append(p)

    config = GameConfig(num_players=players)
    bots = [DeducerAgent(joint=joint) if i % 2 == 0 else RandomAgent() for i in range(players)]
    state, _ = play_game(config, bots, seed, before_step=check)  # an illegal action would raise
    assert state.done[0] and len(checked) > 10


def test_deducer_is_joint_by_default() -> None:
    from pi_env.agents import make_agent
    assert make_agent("deducer").joint is True
    assert make_agent("deducer").name == "deducer"


def test_best_gain_selection_ties_go_to_the_first() -> None:
    """One best-gain rule: highest value, ties within GAIN_TOLERANCE (1e-9 bits) to the first index."""
    from pi_env.solvers.hints import GAIN_TOLERANCE, best_gain_index, best_gain_ties

    g = np.array([0.25, 1.5, 1.5 - GAIN_TOLERANCE / 2, 1.5 + GAIN_TOLERANCE / 2, 1.5 - 2 * GAIN_TOLERANCE])
    assert best_gain_index(g) == 1  # 3 is higher, but by less than the tolerance
    assert best_gain_ties(g).tolist() == [False, True, True, True, False]
    assert best_gain_index(np.array([-np.inf, 0.0, -np.inf])) == 1
    assert best_gain_index(np.array([0.0, 0.0])) == 0
    assert best_gain_index(np.zeros(0)) == -1 and best_gain_ties(np.zeros(0)).tolist() == []
    # the plain-Python build (NUMBA_DISABLE_JIT) follows the same rule
    assert best_gain_index.py_func(g) == 1 and best_gain_index.py_func(np.zeros(0)) == -1


def test_the_tie_break_is_written_once() -> None:
    """No module outside solvers/hints.py spells out the tie-break itself (issue #13: one of each)."""
    import os
    import re
    from pathlib import Path

    import pi_env

    root = Path(pi_env.__file__).parent
    files = [Path(d) / f for d, _, names in os.walk(root, followlinks=True) for f in names if f.endswith(".py")]
    assert any(p.name == "greedy.py" for p in files)  # the linked subpackages are walked too
    pattern = re.compile(r"(?:max\(\)|best_g|top) - (?:GAIN_TOLERANCE|tol|1e-9)")
    found = [f"{p.relative_to(root)}:{i}" for p in sorted(files) if p.name != "hints.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []
