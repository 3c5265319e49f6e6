"""The solver's :class:`~pi_env.solvers.knowledge.Knowledge` from one player's engine observation
(docs/rules.md §9).

An engine observation (:mod:`pi_env.engine.observe`) holds exactly what its player may know: the
public state of the current round plus the case it holds. :func:`knowledge_from_observation` turns
it into the event table the solver reads, one row per public answer:

==========================  ====================================================================
observation component       event rows (per relative seat ``j``, player ``(player + j) % P``)
==========================  ====================================================================
``spot[j, x]``              clue on element ``x`` answered *spot* (docs/rules.md §4.1)
``trace[j, x]``             clue on ``x`` answered *trace*
``front[j, x]``             clue on ``x`` answered *nothing* (the card lies in front of the seat)
``inv_placed[j, d]``        investigation of ``d`` with ``inv_spots``, ``inv_traces`` and the
                            suppression mask of ``inv_suppressed`` (docs/rules.md §4.2)
``failed[j, c]``            failed solve naming case ``c`` (docs/rules.md §4.3)
``solved_case[j]``          correct solve of the named case
``held_case``               ``Knowledge.held_case``: the case of seat 1 (player ``player + 1``)
==========================  ====================================================================

The observation does not say in which order the answers were given; the solver does not need it
(every answer is a constraint, and repeated answers of one card are identical), so the rows are
listed seat by seat and numbered ``0..E-1``. Those numbers are what a
:class:`~pi_env.solvers.analysis.ContradictionError` would name — they are *not* record event indices.
"""

from __future__ import annotations

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.names import element_names
from pi_env.core.board import Board
from pi_env.core.constants import MAX_PLAYERS, MIN_PLAYERS, TYPE_OFFSETS, TYPE_SIZES
from pi_env.engine.observe import decode_observation, observation_size

from pi_env.solvers.knowledge import (CLUE_KIND, INVESTIGATE_KIND, NUM_COLS, SOLVE_CORRECT, SOLVE_FAILED, Knowledge)

__all__ = ["knowledge_from_observation", "case_of_elements"]


def case_of_elements(one_hot: np.ndarray) -> int:
    """Case id of a 36-entry 0/1 element vector holding one element of each type; ``-1`` if it
    does not (e.g. all zero)."""
    v = np.asarray(one_hot).reshape(-1)
    parts = []
    for t in range(3):
        ids = np.flatnonzero(v[TYPE_OFFSETS[t]:TYPE_OFFSETS[t] + TYPE_SIZES[t]])
        if ids.size != 1:
            return -1
        parts.append(int(ids[0]))
    s, e, loc = parts
    return s * 140 + e * 14 + loc


def knowledge_from_observation(observation: np.ndarray, num_players: int,
                               board: "Board | np.ndarray", player: int = 0) -> Knowledge:
    """What the observing player knows, as the solver's :class:`Knowledge` (docs/rules.md §9).

    Args:
        observation: flat ``int16[618 + 1912 * P]`` observation of one player
            (:func:`pi_env.engine.observe`; relative seats: seat ``j`` is player ``(p + j) % P``).
        num_players: ``P`` (2..5).
        board: the game's :class:`~pi_env.core.board.Board`, or its ``bool[14, 14]`` adjacency.
        player: the observer's absolute player number ``p``. The observation does not contain it;
            with the default ``0`` players are numbered relative to the observer (seat ``j`` is
            player ``j``), which changes no count or probability.

    Returns:
        The :class:`Knowledge` of ``player``: the current round's public answers (one row per
        answer, see the module docstring) and the case it holds as ``held_case``.

    Raises:
        PIError: wrong observation length, player count or player.

    Example::

        obs = observe(state, p)[0]
        a = analyze_knowledge(knowledge_from_observation(obs, P, config.board, player=p))
    """
    P = int(num_players)
    if not MIN_PLAYERS <= P <= MAX_PLAYERS:
        raise PIError(f"num_players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    if not 0 <= player < P:
        raise PIError(f"player must be in 0..{P - 1}, got {player!r}")
    obs = np.asarray(observation).reshape(-1)
    if obs.size != observation_size(P):
        raise PIError(f"a {P}-player observation has {observation_size(P)} entries, got {obs.size}")
    adjacency = board.adjacency if isinstance(board, Board) else np.asarray(board, dtype=bool)
    o = decode_observation(obs, P)
    tile_district = np.argmax(o["tiles"], axis=1).astype(np.int8)
    rows: list[tuple[int, ...]] = []
    for j in range(P):
        q = (player + j) % P
        for answer, name in ((2, "spot"), (1, "trace"), (0, "front")):
            rows.extend((q, CLUE_KIND, int(x), answer, 0, 0) for x in np.flatnonzero(o[name][j]))
        for d in np.flatnonzero(o["inv_placed"][j]):
            sup = int((o["inv_suppressed"][j, d].astype(np.int64) << np.arange(3)).sum())
            rows.append((q, INVESTIGATE_KIND, int(d), int(o["inv_spots"][j, d]),
                         int(o["inv_traces"][j, d]), sup))
        rows.extend((q, SOLVE_FAILED, int(c), 0, 0, 0) for c in np.flatnonzero(o["failed"][j]))
        solved = case_of_elements(o["solved_case"][j])
        if solved >= 0:
            rows.append((q, SOLVE_CORRECT, solved, 0, 0, 0))
    events = np.zeros((len(rows), NUM_COLS), dtype=np.int32)
    if rows:
        events[:, 0] = np.arange(len(rows))
        events[:, 1:] = np.array(rows, dtype=np.int32)
    names = element_names(board) if isinstance(board, Board) else None
    return Knowledge(player, P, tile_district, adjacency, case_of_elements(o["held_case"]), events, names)
