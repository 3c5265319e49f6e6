"""Observation of one player (docs/rules.md §9): everything public plus the case it holds, never its own.

The observation of player ``p`` is a flat ``int16`` vector. Per-player blocks are in *relative seat*
order: seat ``j`` is player ``(p + j) % P`` (seat 0 is the observer, seat 1 the player whose case it
holds). Components, in order (see :func:`observation_layout` for the offsets):

=================  ==============  ===========================================================
name               shape           meaning
=================  ==============  ===========================================================
tiles              [36, 14]        one-hot district of each element's tile (locations fixed)
display            [36]            1 if the element's clue card is face up on the display
discard            [36]            1 if the card is in the discard pile
front              [P, 36]         cards answered *nothing*, face up in front of each seat
spot               [P, 36]         each seat's spot markers on tiles
trace              [P, 36]         each seat's trace markers on tiles
inv_placed         [P, 14]         1 where the seat placed an investigator this round
inv_spots          [P, 14]         spots answered by that investigator (0..3)
inv_traces         [P, 14]         traces answered by that investigator (0..3)
inv_suppressed     [P, 14, 3]      types (suspect, evidence, location) the suppression rule skipped
held_case          [36]            the 3 elements of the case the observer holds (seat 1's case)
solved_case        [P, 36]         the 3 elements each seat named in its correct solve, this round
failed             [P, 1680]       failed solve triples each seat named this round (case ids)
score              [P]             scores
attempted          [P]             seat attempted a solve this round
solved             [P]             seat solved this round
inv_left           [P]             unused investigator tiles
round              [1]             round, 0-based
tier               [1]             current tier (docs/rules.md §5)
rotation           [1]             rotations completed this round
first_seat         [1]             relative seat of the round's first player
deck_size          [1]             cards left in the deck
to_move            [1]             relative seat of the player to move
=================  ==============  ===========================================================

Size: ``618 + 1912 * P`` (4 players: 8266).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.core.constants import IN_DISCARD, NUM_CASES, ON_DISPLAY
from pi_env.core.errors import PIError
from pi_env.encodings.bounds import observation_bounds  # noqa: F401 (re-exported: pi_env.engine.observation_bounds)
from pi_env.encodings.layouts import observation_components, observation_layout, observation_size
from pi_env.engine.state import State

# The layout (components, offsets, size) and the bounds are the encodings package's: one place for
# every encoding (pi_env.encodings); the engine writes them.
_layout = observation_components  # (name, start, size, shape) of every component, cached per player count


def decode_observation(obs: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Split a flat observation ``int16[size]`` into named views with the documented shapes."""
    out = {}
    for name, start, n, shape in _layout(num_players):
        out[name] = obs[start:start + n].reshape(shape) if shape else obs[start:start + n]
    return out


@functools.lru_cache(maxsize=None)
def _offsets(num_players: int) -> np.ndarray:
    return np.array([start for start, _ in observation_layout(num_players).values()], dtype=np.int64)


@rule_step(inline=True)
def _observe_board(o, off, tile_district, card_place, b):
    """The board part of an observation row ``o`` (``int16``, zero there before): the tiles'
    districts one-hot from ``off[0]`` (36 × 14), the display from ``off[1]`` and the discard pile
    from ``off[2]`` (36 flags each) of game ``b`` (docs/rules.md §9). Shared with the solo
    observation (:mod:`pi_env.engine.solo`), whose first three components are these."""
    for x in range(36):
        o[off[0] + x * 14 + tile_district[b, x]] = 1
        if card_place[b, x] == ON_DISPLAY:
            o[off[1] + x] = 1
        elif card_place[b, x] == IN_DISCARD:
            o[off[2] + x] = 1


@batch_kernel(family="observe")
def _observe_kernel(players, off, out, s):
    """``out[b]``: the observation of game b for player ``players[b]``; ``s``: the state
    (:data:`~pi_env.engine.state.GameArrays`)."""
    (round_, first_player, current_player, rotation, tier, tile_district, case, card_place, deck_size, front, spot,
     trace, inv_count, inv_district, inv_answer, inv_suppressed, inv_left, attempted, solved, solved_case, failed,
     score) = (s.round, s.first_player, s.current_player, s.rotation, s.tier, s.tile_district, s.case, s.card_place,
               s.deck_size, s.front, s.spot, s.trace, s.inv_count, s.inv_district, s.inv_answer, s.inv_suppressed,
               s.inv_left, s.attempted, s.solved, s.solved_case, s.failed, s.score)
    P = case.shape[1]
    for b in prange(out.shape[0]):
        o = out[b]
        o[:] = 0
        p = players[b]
        _observe_board(o, off, tile_district, card_place, b)
        for j in range(P):
            q = (p + j) % P
            for x in range(36):
                o[off[3] + j * 36 + x] = front[b, q, x]
                o[off[4] + j * 36 + x] = spot[b, q, x]
                o[off[5] + j * 36 + x] = trace[b, q, x]
            for k in range(inv_count[b, q]):
                d = np.int64(inv_district[b, q, k])
                o[off[6] + j * 14 + d] = 1
                o[off[7] + j * 14 + d] = inv_answer[b, q, k, 0]
                o[off[8] + j * 14 + d] = inv_answer[b, q, k, 1]
                for t in range(3):
                    o[off[9] + (j * 14 + d) * 3 + t] = inv_suppressed[b, q, k, t]
            c = solved_case[b, q]
            if c >= 0:
                o[off[11] + j * 36 + c // 140] = 1
                o[off[11] + j * 36 + 12 + (c // 14) % 10] = 1
                o[off[11] + j * 36 + 22 + c % 14] = 1
            for cc in range(NUM_CASES):
                if failed[b, q, cc]:
                    o[off[12] + j * NUM_CASES + cc] = 1
            o[off[13] + j] = score[b, q]
            o[off[14] + j] = attempted[b, q]
            o[off[15] + j] = solved[b, q]
            o[off[16] + j] = inv_left[b, q]
        h = (p + 1) % P  # the observer holds the case of the next player (docs/rules.md §3)
        o[off[10] + case[b, h, 0]] = 1
        o[off[10] + 12 + case[b, h, 1]] = 1
        o[off[10] + 22 + case[b, h, 2]] = 1
        o[off[17]] = round_[b]
        o[off[18]] = tier[b]
        o[off[19]] = rotation[b]
        o[off[20]] = (first_player[b] - p + P) % P
        o[off[21]] = deck_size[b]
        o[off[22]] = (current_player[b] - p + P) % P


def player_array(state: State, player: "int | np.ndarray") -> np.ndarray:
    """``int64[B]``: one observing player per game, from an int (every game) or ``int[B]``.

    Raises:
        PIError: a player outside ``0..P-1``, or not an integer / ``int[B]``.
    """
    B, P = state.batch_size, state.num_players
    if isinstance(player, (int, np.integer)) and not isinstance(player, bool):
        if not 0 <= player < P:
            raise PIError(f"player must be 0..{P - 1}, got {player!r}")
        return np.full(B, player, dtype=np.int64)
    arr = np.asarray(player)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != B) or not np.issubdtype(arr.dtype, np.integer):
        raise PIError(f"player must be an integer or int[{B}] (one per game), got "
                      f"{arr.dtype}[{', '.join(map(str, arr.shape))}]")
    players = np.ascontiguousarray(np.broadcast_to(arr.astype(np.int64), (B,)))
    bad = np.flatnonzero((players < 0) | (players >= P))
    if bad.size:
        raise PIError(f"player must be 0..{P - 1}, got {players[bad[0]]} in game {bad[0]}"
                      + (f" (and {bad.size - 1} more games)" if bad.size > 1 else ""))
    return players


def observe(state: State, player: "int | np.ndarray", out: np.ndarray | None = None) -> np.ndarray:
    """Observation of ``player`` in every game (docs/rules.md §9).

    Args:
        state: a batch of ``B`` games.
        player: one player for all games, or ``int[B]`` a player per game.
        out: optional ``int16[B, size]`` buffer to fill (avoids an allocation per call).

    Returns:
        ``int16[B, observation_size(P)]`` (``out`` if given).

    Raises:
        PIError: a player out of range or of the wrong shape, or a wrong ``out``.
    """
    B, P = state.batch_size, state.num_players
    players = player_array(state, player)
    D = observation_size(P)
    if out is None:
        out = np.empty((B, D), dtype=np.int16)
    elif not isinstance(out, np.ndarray) or out.shape != (B, D) or out.dtype != np.int16:
        raise PIError(f"out must be an int16 array of shape ({B}, {D})")
    _observe_kernel.for_batch(B)(players, _offsets(P), out, state.kernel_value())
    return out
