"""The difficulty of a Solo Time Attack case (docs/rules.md §8): how many actions the solver's greedy
policy needs to solve it.

:func:`greedy_play` plays the case with the greedy policy of :mod:`pi_env.solvers.hints` (the
policy of :func:`pi_env.solvers.hints.greedy_expected_actions`), in open mode (any of the 36
elements) with the given investigator tiles: with one consistent case left, name it; otherwise take
the query (clue or investigator) with the highest information gain over the cases still consistent
with the answers so far (uniform weights; ties within :data:`pi_env.solvers.hints.GAIN_TOLERANCE`
to the lowest action id); if no query has a positive gain, name the consistent cases in ascending
id order until one is right. The engine answers every action; the count includes the final solve.
Its knowledge is the own-information filter (:class:`pi_env.solvers.CaseFilter`) of a
:class:`pi_env.solvers.Knowledge` with no held case and no other player's events — exactly the
solo player's information (``Knowledge`` needs ``n_players >= 2``, so a second player that never
acts stands in).

**Buckets** (:data:`THRESHOLDS`) on the greedy's number of actions ``n``: ``easy`` ``n <= 5``,
``medium`` ``6 <= n <= 7``, ``hard`` ``n >= 8`` (measured frequencies in
:mod:`pi_env.apps.solo_cases`). :func:`difficulty_filter` turns a bucket into the ``accept_case``
callable of :class:`pi_env.envs.solo.SoloTimeAttackEnv`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import solo as S
from pi_env.solvers.case_sets import CaseFilter
from pi_env.solvers.hints import (GAIN_TOLERANCE, answer_matrix, best_gain_index, candidate_actions,
                                  information_gains)
from pi_env.solvers.knowledge import CLUE_KIND, INVESTIGATE_KIND, SOLVE_CORRECT, SOLVE_FAILED, Knowledge

__all__ = ["DIFFICULTIES", "THRESHOLDS", "GreedyResult", "greedy_play", "difficulty_of", "difficulty_filter",
           "solo_event_row"]

DIFFICULTIES = ("easy", "medium", "hard")
THRESHOLDS = (5, 7)
"""Greedy actions ``n``: easy ``n <= 5``, medium ``5 < n <= 7``, hard ``n > 7``."""


@dataclass(frozen=True)
class GreedyResult:
    """How the greedy policy played a case.

    Attributes:
        actions: actions taken, the final (correct) solve included.
        investigators: investigator tiles used.
        wrong_solves: wrong solve attempts.
        trace: the actions in order (engine action ids).
    """

    actions: int
    investigators: int
    wrong_solves: int
    trace: tuple[int, ...]


def solo_event_row(index: int, state: S.SoloState, action: int) -> np.ndarray:
    """The solver's event row (:mod:`pi_env.solvers.knowledge`) of the action just stepped in ``state``."""
    ans = state.last_answer[0]
    if action < INVESTIGATE_BASE:
        vals = (CLUE_KIND, action, int(ans[0]), 0, 0)
    elif action < SOLVE_BASE:
        d = action - INVESTIGATE_BASE
        sup = sum(1 << t for t in range(3) if state.inv_suppressed[0, d, t])
        vals = (INVESTIGATE_KIND, d, int(ans[0]), int(ans[1]), sup)
    else:
        vals = (SOLVE_CORRECT if ans[0] == 1 else SOLVE_FAILED, action - SOLVE_BASE, 0, 0, 0)
    return np.array((index, 0) + vals, dtype=np.int32)


def greedy_play(tile_district: "np.ndarray | tuple[int, ...]", case: int, board: Board = DAYTIME,
                investigators: int = 5) -> GreedyResult:
    """Play a solo case with the solver's greedy policy (see the module docstring).

    Args:
        tile_district: ``int[36]`` layout.
        case: the hidden case id (only the engine reads it, to answer).
        board: the board.
        investigators: investigator tiles available.

    Returns:
        A :class:`GreedyResult`.
    """
    config = S.SoloConfig(investigators=investigators, max_actions=S.MAX_SOLO_ACTIONS, board=board)
    state = S.from_layout(config, tile_district, case)
    knowledge = Knowledge(0, 2, np.asarray(tile_district, dtype=np.int8), board.adjacency)
    own = CaseFilter(knowledge)
    trace: list[int] = []
    buf = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        cases = own.cases
        action = SOLVE_BASE + int(cases[0])
        if cases.size > 1:
            queries = candidate_actions(knowledge, S.legal_action_mask(state)[0])
            answers = answer_matrix(knowledge, queries, cases)
            gains = information_gains(answers, np.ones(cases.size))
            if gains.size and gains.max() > GAIN_TOLERANCE:
                action = int(queries[best_gain_index(gains)])
        buf[0] = action
        S.step_inplace(state, buf, config)
        row = solo_event_row(len(trace), state, action)
        knowledge = knowledge.with_events(row)
        own.update(row)
        trace.append(action)
    return GreedyResult(actions=int(state.actions[0]), investigators=int(state.investigators_used[0]),
                        wrong_solves=int(state.wrong_solves[0]), trace=tuple(trace))


def difficulty_of(actions: int) -> str:
    """The bucket of a greedy action count (:data:`THRESHOLDS`)."""
    if actions <= THRESHOLDS[0]:
        return "easy"
    if actions <= THRESHOLDS[1]:
        return "medium"
    return "hard"


def difficulty_filter(difficulty: str, board: Board = DAYTIME,
                      investigators: int = 5) -> Callable[[np.ndarray, int], bool]:
    """An ``accept_case(tile_district, case) -> bool`` for :class:`pi_env.envs.solo.SoloTimeAttackEnv`
    that keeps only cases of one difficulty bucket (:func:`difficulty_of` of :func:`greedy_play`).

    Args:
        difficulty: ``"easy"``, ``"medium"`` or ``"hard"``.
        board: the board the env plays on.
        investigators: the env's investigator tiles.

    Raises:
        PIError: an unknown difficulty.
    """
    if difficulty not in DIFFICULTIES:
        raise PIError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")

    def accept_case(tile_district: np.ndarray, case: int) -> bool:
        return difficulty_of(greedy_play(tile_district, case, board, investigators).actions) == difficulty

    accept_case.__qualname__ = f"difficulty_filter({difficulty!r})"
    return accept_case
