"""The ``deducer`` agent: exact deduction with the most even split.

It keeps the set of cases it can still have with their probabilities — by default the exact joint
posterior of the solver (:func:`pi_env.solvers.analyze_knowledge`: its own answers, the case it holds and
every other player's public answers, jointly through disjointness; docs/rules.md §9), or with
``joint=False`` its own-information set with uniform weights. It picks the legal clue or
investigator whose answer splits that set most evenly — the highest expected information gain, i.e.
the highest entropy of the answer distribution (:func:`pi_env.solvers.hints.information_gains`) — and
solves when one case is left. If no legal query can split the set any more it names the most likely
case. Ties are broken by the agent's seeded rng.

``deducer-own`` (:class:`OwnQueryDeducerAgent`) solves as ``deducer`` does (the joint posterior) but
asks the legal query that splits its **own-information** set (uniform weights) most evenly — the
gains the compact encodings show (``clue_gain`` / ``district_gain``,
:func:`pi_env.solvers.own_info.query_gains`), ties to the lowest action id (a clue card before an
investigator, :func:`~pi_env.solvers.hints.best_gain_index`) — and solves when no query splits that
set. Deterministic, so a policy can learn it exactly. It is the
labeller of the 4-player model's demonstrations (``python -m pi_env.rl.imitate --label deducer-own``):
a rule a policy can read off its encoding, and the solve timing of the joint posterior.
"""

from __future__ import annotations

import numpy as np

from pi_env.core.board import Board
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.solvers.analysis import analyze_knowledge
from pi_env.solvers.hints import (GAIN_TOLERANCE, answer_matrix, best_gain_index, best_gain_ties,
                                  candidate_actions, information_gains)
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.own_info import observation_case_mask

from pi_env.agents.base import Agent


def consistent_cases(observation: np.ndarray, num_players: int, adjacency: "np.ndarray | Board") -> np.ndarray:
    """``bool[1680]``: cases still possible for the observer from its own information (docs/rules.md §9):
    its own answers and failed solves, the case it holds, and other players' spot markers and
    correct solves (the solver's own-information filter,
    :func:`pi_env.solvers.own_info.observation_case_mask`).

    Args:
        observation: flat ``int16`` observation (see :mod:`pi_env.engine.observe`).
        num_players: ``P``.
        adjacency: ``bool[14, 14]`` board adjacency (or the :class:`~pi_env.core.board.Board`).
    """
    return observation_case_mask(observation, num_players, adjacency)


class DeducerAgent(Agent):
    """Deducer (see the module docstring).

    Args:
        joint: use the joint posterior over all players' answers (default) or only its own
            information with uniform weights.
        own_queries: rank the queries by their gain over the own-information set with uniform
            weights (docs/rules.md §9) instead of over the set of ``joint``; when no query splits
            it, solve. Whether to solve and which case to name still come from ``joint``'s set.
        ties: ``"random"`` (the agent's seeded rng draws among the best queries) or ``"first"``
            (the lowest action id, :func:`~pi_env.solvers.hints.best_gain_index`).

    Raises:
        PIError: an unknown ``ties``.
    """

    name = "deducer"

    def __init__(self, joint: bool = True, own_queries: bool = False, ties: str = "random"):
        if ties not in ("random", "first"):
            raise PIError(f"ties must be 'random' or 'first', got {ties!r}")
        self.joint = joint
        self.own_queries = own_queries
        self.ties = ties

    def distribution(self, observation: np.ndarray) -> "tuple[np.ndarray, np.ndarray, object]":
        """``(cases, probabilities, knowledge)`` of the observer's case as this agent sees it."""
        k = knowledge_from_observation(observation, self.num_players, self.board)
        if self.joint:
            a = analyze_knowledge(k, strict=False)
            return a.cases, a.probabilities, k
        cases = np.flatnonzero(observation_case_mask(observation, self.num_players, self.board))
        return cases, np.full(cases.size, 1.0 / max(cases.size, 1)), k

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        cases, probs, k = self.distribution(observation)
        if cases.size == 0:  # cannot happen with correct answers; fall back to any legal action
            return int(np.flatnonzero(action_mask)[-1])
        if cases.size == 1:
            return SOLVE_BASE + int(cases[0])
        actions = candidate_actions(k, action_mask)
        q_cases, q_probs = cases, probs
        if self.own_queries and self.joint:
            q_cases = np.flatnonzero(observation_case_mask(observation, self.num_players, self.board))
            q_probs = np.full(q_cases.size, 1.0 / max(q_cases.size, 1))
        gains = information_gains(answer_matrix(k, actions, q_cases), q_probs) if actions.size else np.zeros(0)
        if gains.size == 0 or gains.max() <= GAIN_TOLERANCE:  # nothing can split the set: guess
            top = np.flatnonzero(probs >= probs.max() - 1e-15)
            return SOLVE_BASE + int(cases[top[self.rng.integers(top.size)]])
        if self.ties == "first":
            return int(actions[best_gain_index(gains)])
        choices = actions[best_gain_ties(gains)]
        return int(choices[self.rng.integers(choices.size)])


class OwnQueryDeducerAgent(DeducerAgent):
    """``deducer-own`` (module docstring): :class:`DeducerAgent` with the joint posterior for solving
    and the own-information set for asking, ties to the lowest action id
    (``DeducerAgent(joint=True, own_queries=True, ties="first")``)."""

    name = "deducer-own"

    def __init__(self) -> None:
        super().__init__(joint=True, own_queries=True, ties="first")


__all__ = ["DeducerAgent", "OwnQueryDeducerAgent", "consistent_cases"]
