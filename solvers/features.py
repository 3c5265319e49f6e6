"""Solver features for learning agents (docs/rules.md §9): the flat encoding of
:mod:`pi_env.envs.encoders` followed by the player's exact case marginals.

``float32[618 + 1912 * P + 37]``: the flat encoding, then

=================  ======  ====================================================================
name               shape   meaning
=================  ======  ====================================================================
p_suspect          [12]    P(the player's own suspect is s) under the uniform deal prior
p_evidence         [10]    P(own evidence is e)
p_location         [14]    P(own location is l)
log2_count         [1]     ``log2(n) / log2(1680)`` with ``n`` the number of cases the player can
                           still have in some joint deal consistent with every public answer
                           (``Analysis.count``); 0 when ``n == 0`` (a contradiction; cannot happen
                           in an engine game)
=================  ======  ====================================================================

(:data:`SOLVER_LAYOUT` gives the offsets after the flat part.) These are exact (docs/rules.md §9: the
posterior is uniform over consistent joint deals) and computed in batch by
:func:`pi_env.solvers.own_info.joint_features`: one numba call for 2 and 3 players (hundreds of
thousands of rows per second), one numba call plus a joint count per row in Python for 4 and 5 players
(milliseconds per row early in a round); ``benchmarks/own_info_speed.py`` measures them.

The features contain nothing from which the player's own case follows other than the answers to
it (``tests/test_encoders.py`` checks two games that differ only in that case).
"""

from __future__ import annotations

import numpy as np

from pi_env.core.errors import PIError
from pi_env.encodings.layouts import SOLVER_FEATURES, SOLVER_LAYOUT, solver_size
from pi_env.engine.state import GameConfig, State
from pi_env.engine import check_config
from pi_env.engine.observe import player_array as players_array
from pi_env.solvers.own_info import joint_features

__all__ = ["solver_features", "solver_size", "SOLVER_LAYOUT", "SOLVER_FEATURES"]

# The layout is the encodings package's (pi_env.encodings.SOLVER_LAYOUT, solver_layout): one place
# for every encoding.


def solver_features(state: State, config: GameConfig, player: "int | np.ndarray",
                    out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
    """The 37 solver features (module docstring) of ``player`` in every game of ``state``.

    Built from the public answers and the case the player holds
    (:func:`pi_env.solvers.own_info.joint_features`, equal to
    :func:`pi_env.solvers.analyze_knowledge` of :func:`pi_env.solvers.knowledge_from_observation`, tested).

    Args:
        state: a batch of ``B`` games.
        config: its rules (board and player count).
        player: one player for all games, or ``int[B]``.
        out: optional ``float32[B, 37]`` buffer (may be a column slice of a wider buffer).
        rows: optional ``bool[B]``: compute only these rows (the others are left as they are).

    Returns:
        ``float32[B, 37]`` (``out`` if given).

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> f = solver_features(init(cfg, 1, seed=0), cfg, 0)
        >>> round(float(f[0, :12].sum()), 5), round(float(f[0, 36]), 4)  # 11 * 9 * 13 cases open
        (1.0, 0.9641)
    """
    B, P = state.batch_size, state.num_players
    check_config(state, config)
    players = players_array(state, player)
    if out is None:
        out = np.zeros((B, SOLVER_FEATURES), dtype=np.float32)
    elif out.shape != (B, SOLVER_FEATURES):
        raise PIError(f"out must have shape ({B}, {SOLVER_FEATURES}), got {out.shape}")
    return joint_features(state, config.board, players, out=out, rows=rows)
