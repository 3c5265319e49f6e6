"""The engine's public functions (docs/contributing.md §C3): ``init``, ``reset_done``, ``reset_games``,
``step``, ``step_inplace``, ``legal_action_mask``, ``is_legal``, ``sample_actions``, ``outcome``
and ``rng_states``.

All take and return batched arrays (leading axis ``B``); see :class:`~pi_env.engine.state.State`.
:class:`pi_env.engine.Engine` binds a configuration and its buffers on top of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import IllegalActionError, PIError
from pi_env.engine import _kernels as K
from pi_env.engine.arrays import action_array
from pi_env.engine.state import GameConfig, State, empty_state, kernel_rules


NO_ACTION = -1
"""An action value that an unchecked step ignores: ``actions[b] = NO_ACTION`` leaves game ``b``
as it is (its ``rejected`` flag is set, as for any illegal action)."""


def rng_states(seed: "int | np.ndarray | None", batch_size: int) -> np.ndarray:
    """``uint64[B]``: the per-game generator states :func:`init` derives from ``seed``.

    Args:
        seed: an int (independent streams from ``numpy.random.SeedSequence(seed)``), explicit
            ``uint64[B]`` states (made odd, hence nonzero), or ``None`` for fresh entropy.
        batch_size: ``B``.

    Raises:
        PIError: a negative or non-integer seed, or explicit states of the wrong shape.
    """
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
    state.rng[:] = rng_states(seed, int(batch_size))
    K.init_kernel.for_batch(state.batch_size)(np.ones(state.batch_size, dtype=bool), kernel_rules(config),
                                              state.kernel_value())
    return state


def reset_done(state: State, config: GameConfig) -> np.ndarray:
    """Start a new game in place of every finished game of the batch (autoreset).

    Each new game continues its slot's generator stream, so a batch stays a pure function of its
    seed and actions.

    Returns:
        ``bool[B]``: which games were reset.

    Raises:
        PIError: ``config`` is for another player count than ``state``.
    """
    check_config(state, config)
    was_done = state.done.copy()
    if was_done.any():
        K.init_kernel.for_batch(state.batch_size)(was_done, kernel_rules(config), state.kernel_value())
    return was_done


def reset_games(state: State, config: GameConfig, which: np.ndarray) -> State:
    """Start a new game in every slot ``b`` with ``which[b]`` (finished or not), in place (docs/rules.md §3).

    Each new game continues its slot's generator stream, as in :func:`reset_done`.

    Args:
        which: ``bool[B]``.

    Returns:
        ``state`` itself.

    Raises:
        PIError: ``which`` is not ``bool[B]``, or ``config`` is for another player count.
    """
    check_config(state, config)
    w = np.asarray(which)
    if w.shape != (state.batch_size,) or w.dtype != bool:
        raise PIError(f"which must be a bool array of shape ({state.batch_size},), got {w.dtype} {w.shape}")
    if w.any():
        K.init_kernel.for_batch(state.batch_size)(np.ascontiguousarray(w), kernel_rules(config),
                                                  state.kernel_value())
    return state


def check_config(state: State, config: GameConfig) -> None:
    """Refuse a configuration for another player count than the state's.

    Raises:
        PIError: ``config.num_players != state.num_players`` (the kernels would index outside the
            state's ``[B, P]`` arrays).
    """
    if not isinstance(config, GameConfig):
        raise PIError(f"config must be a GameConfig, got {type(config).__name__}")
    if config.num_players != state.num_players:
        raise PIError(f"config is for {config.num_players} players but the state has {state.num_players}")


def illegal_action_error(state: State, actions: np.ndarray, ok: np.ndarray, board=None) -> IllegalActionError:
    """The :class:`IllegalActionError` for the first game ``b`` with ``ok[b]`` False: it names the
    game, the action (id and name), the player, the round and the turn."""
    from pi_env.core.actions import action_name

    b = int(np.flatnonzero(~ok)[0])
    a = int(actions[b])
    return IllegalActionError(
        f"game {b}: action {a} ({action_name(a, board)}) is not legal for player "
        f"{int(state.current_player[b])} (round {int(state.round[b]) + 1}, turn {int(state.turn[b])})")


def _check_actions(state: State, actions: np.ndarray) -> np.ndarray:
    a = action_array(actions, state.batch_size)
    ok = is_legal(state, a)
    if not ok.all():
        raise illegal_action_error(state, a, ok)
    return a


def step_inplace(state: State, actions: np.ndarray, config: GameConfig, check: bool = True,
                 rejected: np.ndarray | None = None) -> State:
    """Apply one action per game, mutating ``state`` (the fast path of :func:`step`; docs/rules.md §4–§7).

    Args:
        state: the batch to advance.
        actions: ``int[B]``, the action of the player to move in each game (docs/rules.md §4);
            ignored for finished games.
        config: the batch's rules options (its player count must be the state's).
        check: verify every action first (default): a bad one raises and no game is stepped.
            ``False`` skips the check, never memory safety: a game whose action is not legal
            (any ``int64``: negative, ``>= 1730``, a card not on the display, a district already
            used this round, no investigator left; :data:`NO_ACTION` on purpose) is left
            unchanged except ``rewards[b] = 0``, and ``rejected[b]`` is set.
        rejected: optional ``bool[B]`` buffer receiving which games ignored their action (all
            False after a checked step; False for finished games).

    Returns:
        ``state`` itself. ``state.rewards`` holds each player's score change (duel: +1/−1 for a
        round won/lost and for the game won/lost, see :class:`State`).

    Raises:
        InvalidActionError: not an integer array of shape ``(B,)`` (also unchecked), or (checked)
            an id outside ``0..1729``; the message names the game.
        IllegalActionError: (checked) a card not on the display, a district already used this
            round or no investigator left; the message names the game and the action.
        PIError: ``config`` for another player count; a wrong ``rejected`` buffer.
    """
    check_config(state, config)
    B = state.batch_size
    a = _check_actions(state, actions) if check else action_array(actions, B, check_range=False)
    if rejected is None:
        rejected = np.empty(B, dtype=bool)
    elif not isinstance(rejected, np.ndarray) or rejected.shape != (B,) or rejected.dtype != bool:
        raise PIError(f"rejected must be a bool array of shape ({B},)")
    K.step_kernel.for_batch(B)(a, rejected, kernel_rules(config), state.kernel_value())
    return state


def step(state: State, actions: np.ndarray, config: GameConfig, check: bool = True) -> State:
    """Pure form of :func:`step_inplace`: returns a new state and leaves ``state`` unchanged."""
    return step_inplace(state.copy(), actions, config, check)


def is_legal(state: State, actions: np.ndarray) -> np.ndarray:
    """``bool[B]``: whether ``actions[b]`` (any ``int[B]``) is legal for the player to move
    (docs/rules.md §4; True for finished games).

    Raises:
        InvalidActionError: ``actions`` is not an integer array of shape ``(B,)``.
    """
    out = np.empty(state.batch_size, dtype=bool)
    a = action_array(actions, state.batch_size, check_range=False)
    K.legal_kernel.for_batch(state.batch_size)(a, out, state.current_player,
                   state.done, state.card_place, state.inv_count, state.inv_district, state.inv_left)
    return out


def legal_action_mask(state: State, out: np.ndarray | None = None, solves: bool = True) -> np.ndarray:
    """``int8[B, 1730]`` legal-action mask of the player to move (all ones once a game is done).

    Clue ``x`` is legal while its card is on the display; an investigator in district ``d`` while the
    player has tiles left and none in ``d`` this round; every solve triple always (docs/rules.md §4).

    Args:
        out: optional ``int8[B, 1730]`` buffer to fill.
        solves: also write the solve entries ``out[:, 50:]`` (always 1). ``False`` writes only
            the clue and investigator entries: for a buffer whose solve part already holds ones
            (it saves writing 1680 bytes per game).

    Raises:
        PIError: a wrong ``out``.
    """
    if out is None:
        out = np.empty((state.batch_size, NUM_ACTIONS), dtype=np.int8)
    elif (not isinstance(out, np.ndarray) or out.shape != (state.batch_size, NUM_ACTIONS)
          or out.dtype != np.int8):
        raise PIError(f"out must be an int8 array of shape ({state.batch_size}, {NUM_ACTIONS}), "
                      f"got {type(out).__name__} (the signature is legal_action_mask(state, out=None))")
    K.mask_kernel.for_batch(state.batch_size)(out, not solves, state.current_player, state.done, state.card_place, state.inv_count,
                  state.inv_district, state.inv_left)
    return out


def sample_actions(state: State, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
    """``int64[B]``: a uniformly random legal action per game, without building the mask.

    Every legal action has the same probability (docs/rules.md §4: clues on the display, unused
    districts while tiles are left, every solve triple); any action for a finished game.

    Args:
        rng: the caller's generator (one uniform variate per game is drawn from it).
        out: optional ``int64[B]`` buffer.

    Raises:
        PIError: a wrong ``out``.
    """
    if out is None:
        out = np.empty(state.batch_size, dtype=np.int64)
    elif not isinstance(out, np.ndarray) or out.shape != (state.batch_size,) or out.dtype != np.int64:
        raise PIError(f"out must be an int64 array of shape ({state.batch_size},)")
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
