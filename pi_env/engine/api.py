"""The engine's public functions (STYLE.md §3): ``init``, ``step``, ``step_inplace``,
``legal_action_mask``, ``is_legal``, ``sample_actions`` and ``outcome``.

All take and return batched arrays (leading axis ``B``); see :class:`~pi_env.engine.state.State`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import IllegalActionError, PIError
from pi_env.engine import _kernels as K
from pi_env.engine.arrays import action_array
from pi_env.engine.state import GameConfig, State, empty_state


def _seeds(seed: "int | np.ndarray | None", batch_size: int) -> np.ndarray:
    """Per-game nonzero xorshift64 states from one seed (SeedSequence) or an explicit uint64[B]."""
    if isinstance(seed, np.ndarray) and seed.dtype == np.uint64:
        if seed.shape != (batch_size,):
            raise PIError(f"explicit rng states must have shape ({batch_size},), got {seed.shape}")
        return seed | np.uint64(1)
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0):
        raise PIError(f"seed must be a non-negative integer, got {seed!r}")
    words = np.random.SeedSequence(seed).generate_state(batch_size, dtype=np.uint64)
    return words | np.uint64(1)


def init(config: GameConfig, batch_size: int = 1, seed: "int | np.ndarray | None" = None) -> State:
    """Set up ``batch_size`` independent games (docs/rules.md §3).

    Args:
        config: rules options.
        batch_size: ``B >= 1``.
        seed: an int (the games get independent streams from ``numpy.random.SeedSequence(seed)``),
            ``uint64[B]`` explicit per-game generator states, or ``None`` for fresh entropy.

    Returns:
        A new :class:`State`. The same config and seed always give the same games.

    Raises:
        PIError: ``batch_size < 1`` or a bad seed.
    """
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise PIError(f"batch_size must be a positive integer, got {batch_size!r}")
    state = empty_state(int(batch_size), config.num_players)
    state.rng[:] = _seeds(seed, int(batch_size))
    K.init_kernel.for_batch(state.batch_size)(False, config.num_players, np.array(config.investigators, dtype=np.int8), *state.arrays())
    return state


def reset_done(state: State, config: GameConfig) -> np.ndarray:
    """Start a new game in place of every finished game of the batch (autoreset).

    Each new game continues its slot's generator stream, so a batch stays a pure function of its
    seed and actions.

    Returns:
        ``bool[B]``: which games were reset.
    """
    was_done = state.done.copy()
    if was_done.any():
        K.init_kernel.for_batch(state.batch_size)(True, config.num_players, np.array(config.investigators, dtype=np.int8),
                      *state.arrays())
    return was_done


def _check_actions(state: State, actions: np.ndarray) -> np.ndarray:
    a = action_array(actions, state.batch_size)
    ok = is_legal(state, a)
    if not ok.all():
        b = int(np.nonzero(~ok)[0][0])
        from pi_env.core.actions import action_name
        raise IllegalActionError(
            f"game {b}: action {int(a[b])} ({action_name(int(a[b]), None)}) is not legal for player "
            f"{int(state.current_player[b])} (round {int(state.round[b]) + 1}, turn {int(state.turn[b])})")
    return a


def step_inplace(state: State, actions: np.ndarray, config: GameConfig, check: bool = True) -> State:
    """Apply one action per game, mutating ``state`` (the fast path of :func:`step`).

    Args:
        state: the batch to advance.
        actions: ``int[B]``, the action of the player to move in each game (docs/rules.md §4);
            ignored for finished games.
        config: the batch's rules options.
        check: verify legality first (default); ``False`` trusts the caller (kernels never raise).

    Returns:
        ``state`` itself. ``state.rewards`` holds each player's score change (duel: +1/−1 for a
        round won/lost and for the game won/lost, see :class:`State`).

    Raises:
        InvalidActionError: wrong shape/dtype or an id outside ``0..1729``.
        IllegalActionError: a card not on the display, a district already used this round or no
            investigator left; the message names the game.
    """
    a = _check_actions(state, actions) if check else np.ascontiguousarray(actions, dtype=np.int64)
    K.step_kernel.for_batch(state.batch_size)(a, config.num_players, config.rules_code, config.num_rounds,
                                              config.max_rotations, config.board.adjacency, *state.arrays())
    return state


def step(state: State, actions: np.ndarray, config: GameConfig, check: bool = True) -> State:
    """Pure form of :func:`step_inplace`: returns a new state and leaves ``state`` unchanged."""
    return step_inplace(state.copy(), actions, config, check)


def is_legal(state: State, actions: np.ndarray) -> np.ndarray:
    """``bool[B]``: whether ``actions[b]`` is legal for the player to move (True for finished games)."""
    out = np.empty(state.batch_size, dtype=bool)
    K.legal_kernel.for_batch(state.batch_size)(np.ascontiguousarray(actions, dtype=np.int64), out, state.current_player,
                   state.done, state.card_place, state.inv_count, state.inv_district, state.inv_left)
    return out


def legal_action_mask(state: State, out: np.ndarray | None = None) -> np.ndarray:
    """``int8[B, 1730]`` legal-action mask of the player to move (all ones once a game is done).

    Clue ``x`` is legal while its card is on the display; an investigator in district ``d`` while the
    player has tiles left and none in ``d`` this round; every solve triple always (docs/rules.md §4).
    """
    if out is None:
        out = np.empty((state.batch_size, NUM_ACTIONS), dtype=np.int8)
    elif (not isinstance(out, np.ndarray) or out.shape != (state.batch_size, NUM_ACTIONS)
          or out.dtype != np.int8):
        raise PIError(f"out must be an int8 array of shape ({state.batch_size}, {NUM_ACTIONS}), "
                      f"got {type(out).__name__} (the signature is legal_action_mask(state, out=None))")
    K.mask_kernel.for_batch(state.batch_size)(out, state.current_player, state.done, state.card_place, state.inv_count,
                  state.inv_district, state.inv_left)
    return out


def sample_actions(state: State, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
    """``int64[B]``: a uniformly random legal action per game, without building the mask.

    Args:
        rng: the caller's generator (one uniform variate per game is drawn from it).
    """
    if out is None:
        out = np.empty(state.batch_size, dtype=np.int64)
    u = rng.random(state.batch_size)
    K.sample_kernel.for_batch(state.batch_size)(u, out, state.current_player, state.done, state.card_place, state.inv_count,
                    state.inv_district, state.inv_left)
    return out


@dataclass(frozen=True)
class Outcome:
    """Result of a finished game (docs/rules.md §5, §7).

    Attributes:
        scores: final score per player (duel: rounds won).
        ranks: 1-based rank per player after tiebreaks; tied players share a rank.
        winners: the players ranked 1 (both players of a duel that ended tied at the safeguard).
        truncated: some round was ended by the safeguard (duel: or the duel reached ``max_rounds``).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    truncated: bool


def outcome(state: State, config: GameConfig, game: int = 0) -> Outcome:
    """Final standings of game ``game`` with the tiebreaks of the edition (docs/rules.md §5, §7).

    Second edition: score, then most unused investigators, then shared. First edition: score, then
    most unused investigators, then fewest penalty points, then shared. Duel: more rounds won, no
    tiebreak (a duel ends tied only at the ``max_rounds`` safeguard; then both rank 1).

    Raises:
        PIError: the game is not finished.
    """
    if not state.done[game]:
        raise PIError(f"game {game} is not finished")
    from pi_env.engine.ranking import rank_players

    P = state.num_players
    ranks = rank_players(state.score[game], state.inv_left[game], state.penalty[game], config.edition,
                         mode=config.mode)
    return Outcome(scores=tuple(int(s) for s in state.score[game]), ranks=ranks,
                   winners=tuple(i for i in range(P) if ranks[i] == 1),
                   truncated=bool(state.truncated[game]))
