"""The ``heuristic`` agent (issue #4): solves when certain, sees only its observation."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers import play_game

from pi_env.agents import AGENTS, HeuristicAgent, make_agent
from pi_env.agents.deducer import consistent_cases
from pi_env.core.constants import SOLVE_BASE, TYPE_SIZES, case_index
from pi_env.engine import GameConfig, legal_action_mask, observe, outcome


def test_registered():
    assert AGENTS["heuristic"] is HeuristicAgent
    assert isinstance(make_agent("Heuristic"), HeuristicAgent)


@pytest.mark.parametrize("players, seed", [(3, 11), (4, 12)])
def test_solves_when_certain_and_is_right(players, seed):
    config = GameConfig(num_players=players)
    seen = []

    def check(state, p, obs, agent):
        if not isinstance(agent, HeuristicAgent):
            return
        cases = np.flatnonzero(consistent_cases(obs, players, config.board.adjacency))
        true = case_index(*(int(v) for v in state.case[0, p]))
        assert true in cases  # the own-information set never loses the real case
        if cases.size == 1:
            action = copy.deepcopy(agent).act(obs, legal_action_mask(state)[0])
            assert action == SOLVE_BASE + true
            seen.append(p)

    names = ["heuristic", "deducer", "heuristic", "random"][:players]
    state, _ = play_game(config, names, seed, on_step=check)
    assert len(seen) >= 2  # certainty happened (and was acted on) several times
    assert outcome(state, config).truncated is False


def _other_case(cases: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
    """A case for player ``p`` differing in every type and disjoint from the other players' cases."""
    new = np.empty(3, dtype=np.int8)
    for t in range(3):
        free = sorted(set(range(TYPE_SIZES[t])) - {int(v) for v in cases[:, t]})
        new[t] = rng.choice(free)
    return new


@pytest.mark.parametrize("players, seed", [(3, 5), (4, 6)])
def test_never_reads_hidden_state(players, seed):
    """At every turn of a game, the mover's hidden information (its own case, the deck order and the
    engine's generator) is replaced in a copy of the state; the mover's observation stays the same,
    and so does the action the agent (with the same rng state) chooses."""
    config = GameConfig(num_players=players)
    rng = np.random.default_rng(seed)
    decisions = 0

    def check(state, q, obs, agent):
        nonlocal decisions
        other = state.copy()
        other.case[0, q] = _other_case(state.case[0], q, rng)
        n = int(other.deck_size[0])
        other.deck[0, :n] = rng.permutation(other.deck[0, :n])
        other.rng[0] = np.uint64(rng.integers(1, 2**63))
        obs_other = observe(other, q)[0]
        assert np.array_equal(obs_other, obs)
        obs_other.setflags(write=False)
        mask = legal_action_mask(state)[0]
        expected = copy.deepcopy(agent).act(obs.copy(), mask)
        assert copy.deepcopy(agent).act(obs_other, legal_action_mask(other)[0]) == expected
        decisions += 1

    play_game(config, ["heuristic"] * players, seed, on_step=check)
    assert decisions >= 20
