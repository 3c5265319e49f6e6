"""The public engine handle: one :class:`GameConfig`, a batch of ``B`` games and their buffers.

:class:`Engine` is what the adapters (PettingZoo AEC env, self-play vector env, encoders, agents'
runners) drive; it is built on the pure functions of :mod:`pi_env.engine.api` and
:mod:`pi_env.engine.observe` and gives the same games for the same seed and actions. It binds the
kernels' argument lists once, so a call costs little more than the kernel itself (``B == 1`` in the
AEC env), and fills caller-provided buffers instead of allocating.

Example:
    >>> import numpy as np
    >>> from pi_env.engine import Engine, GameConfig
    >>> eng = Engine(GameConfig(num_players=3), batch_size=2, seed=0)
    >>> mask = eng.legal_action_mask()
    >>> eng.step(eng.sample_actions(np.random.default_rng(0)))  # checked: all legal
    array([False, False])
    >>> eng.observe(0).shape
    (2, 6354)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import PIError
from pi_env.engine import _kernels as K
from pi_env.engine.api import Outcome, illegal_action_error, init, outcome, reset_games, rng_states
from pi_env.engine.arrays import action_array
from pi_env.engine.observe import _observe_kernel, _offsets, observation_size
from pi_env.engine.play import RolloutResult, Script, play, rollout
from pi_env.engine.state import GameConfig, State, kernel_rules

__all__ = ["Engine"]


def _build(kernel: Any, batch_size: int, parallel: bool | None) -> Any:
    """The compiled build of a batch kernel: threaded, serial, or chosen by batch size (the
    kernels too cheap per game for threads always run serially)."""
    return kernel.for_batch(batch_size, parallel)


class Engine:
    """A batch of ``B`` P.I. games bound to one configuration and its buffers (docs/rules.md §3–§7, §9).

    Args:
        config: the rules options of every game.
        batch_size: ``B >= 1``.
        seed: as :func:`pi_env.engine.init` (an int, explicit ``uint64[B]`` generator states, or
            ``None`` for fresh entropy): the games are those of ``init(config, B, seed)``.
        parallel: run the kernels threaded over games (``True``), on one thread (``False``), or
            as :mod:`pi_env.core._config` decides for ``B`` (``None``, default).

    Attributes:
        config: the :class:`GameConfig`.
        batch_size: ``B``.
        num_players: ``P``.
        observation_size: length of one observation, ``618 + 1912 * P``.
        state: the :class:`State` of the ``B`` games (hidden information included: for tools and
            tests, never an agent's input). Its arrays are bound to the handle: change them only in
            place (``reset`` sets new games up in the same arrays).

    Copies: ``copy.deepcopy`` and :mod:`pickle` keep the games (generators included) and bind
    the copy's kernels to the copy's own arrays; :meth:`load` copies games (e.g. saved positions,
    :mod:`pi_env.engine.position`) into the bound arrays.

    Raises:
        PIError: a bad ``batch_size`` or seed.
    """

    def __init__(self, config: GameConfig, batch_size: int = 1, seed: "int | np.ndarray | None" = None,
                 *, parallel: bool | None = None):
        if not isinstance(config, GameConfig):
            raise PIError(f"config must be a GameConfig, got {type(config).__name__}")
        self._bind(config, init(config, batch_size, seed), parallel)

    def _bind(self, config: GameConfig, state: State, parallel: bool | None) -> None:
        """Bind ``config``, the arrays of ``state`` (used as they are, not copied) and the kernels."""
        self.config = config
        self.state: State = state
        B = self.batch_size = self.state.batch_size
        P = self.num_players = config.num_players
        self.observation_size = observation_size(P)
        self.parallel = parallel
        st = self.state
        value = st.kernel_value()
        rules = kernel_rules(config)
        self._all = np.ones(B, dtype=bool)
        self._rejected = np.zeros(B, dtype=bool)
        self._rejected_view = self._rejected.view()
        self._rejected_view.flags.writeable = False
        self._legal = np.zeros(B, dtype=bool)
        self._players = [np.full(B, p, dtype=np.int64) for p in range(P)]
        self._init = _build(K.init_kernel, B, parallel)
        self._step = _build(K.step_kernel, B, parallel)
        self._mask = _build(K.mask_kernel, B, parallel)
        self._legal_kernel = _build(K.legal_kernel, B, parallel)
        self._sample = _build(K.sample_kernel, B, parallel)
        self._observe = _build(_observe_kernel, B, parallel)
        self._init_args = (rules, value)
        self._step_args = (rules, value)
        self._turn_args = (st.current_player, st.done, st.card_place, st.inv_count, st.inv_district,
                           st.inv_left)
        self._obs_args = (value,)
        self._offsets = _offsets(P)

    def __repr__(self) -> str:
        return f"Engine({self.config!r}, batch_size={self.batch_size})"

    # --- copies -----------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """``copy.deepcopy`` and :mod:`pickle` keep the games (generators included) and rebuild
        the buffers and kernel bindings around the copied state."""
        return {"config": self.config, "state": self.state, "parallel": self.parallel,
                "rejected": self._rejected}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self._bind(saved["config"], saved["state"], saved["parallel"])
        self._rejected[:] = saved["rejected"]

    def load(self, state: State, games: "np.ndarray | None" = None) -> None:
        """Copy ``state``'s games into the handle's arrays in place (its bindings stay valid):
        all ``B`` games, or the slots ``games`` (``int[n]``, game ``i`` of ``state`` into slot
        ``games[i]``). With :func:`pi_env.engine.position.load_positions` this starts games from
        saved positions.

        Raises:
            PIError: not a :class:`State` of this player count, or batch sizes that do not match.
        """
        if not isinstance(state, State) or state.num_players != self.num_players:
            raise PIError(f"state must be a State of {self.num_players} players, got "
                          f"{type(state).__name__}{'' if not isinstance(state, State) else f' of {state.num_players}'}")
        if games is None:
            if state.batch_size != self.batch_size:
                raise PIError(f"state has {state.batch_size} games, the handle {self.batch_size}")
            for dst, src in zip(self.state.arrays(), state.arrays()):
                dst[...] = src
            return
        idx = np.asarray(games)
        if (idx.shape != (state.batch_size,) or not np.issubdtype(idx.dtype, np.integer)
                or (idx.size and (idx.min() < 0 or idx.max() >= self.batch_size))):
            raise PIError(f"games must be {state.batch_size} slot numbers 0..{self.batch_size - 1}")
        for dst, src in zip(self.state.arrays(), state.arrays()):
            dst[idx] = src

    # --- new games --------------------------------------------------------------------------
    def reset(self, seed: "int | np.ndarray | None" = None) -> State:
        """Set up ``B`` new games in place: the games of ``init(config, B, seed)`` (docs/rules.md §3).

        Returns:
            :attr:`state` (the same object, its arrays overwritten).

        Raises:
            PIError: a bad seed.
        """
        self.state.rng[:] = rng_states(seed, self.batch_size)
        self._init(self._all, *self._init_args)
        return self.state

    def reset_done(self) -> np.ndarray:
        """Autoreset: a new game in every finished slot, continuing the slot's generator stream
        (as :func:`pi_env.engine.reset_done`).

        Returns:
            ``bool[B]``: which games were reset (a new array).
        """
        was_done = self.state.done.copy()
        if was_done.any():
            self._init(was_done, *self._init_args)
        return was_done

    def reset_games(self, which: np.ndarray) -> None:
        """A new game in every slot ``b`` with ``which[b]`` (``bool[B]``), finished or not,
        continuing the slot's generator stream (as :func:`pi_env.engine.reset_games`).

        Raises:
            PIError: ``which`` is not ``bool[B]``.
        """
        reset_games(self.state, self.config, which)

    # --- turns ------------------------------------------------------------------------------
    def step(self, actions: np.ndarray, check: bool = True) -> np.ndarray:
        """Apply ``actions[b]`` for the player to move in every live game (docs/rules.md §4–§7).

        Args:
            actions: ``int[B]`` (ignored for finished games).
            check: ``True`` (default): a malformed or illegal action raises and no game is
                stepped. ``False``: no check, yet memory-safe for any ``int64``: a game whose
                action is not legal (or :data:`pi_env.engine.NO_ACTION`) is left unchanged
                except ``rewards[b] = 0`` and is flagged in the result.

        Returns:
            ``bool[B]`` read-only view, overwritten by the next step: the games that ignored their
            action (all False after a checked step).

        Raises:
            InvalidActionError: not an integer array of shape ``(B,)`` (also unchecked), or
                (checked) an id outside ``0..1729``; the message names the game.
            IllegalActionError: (checked) an action not legal for the player to move; the message
                names the game, the action and the player.
        """
        if check:
            a = self.check_actions(actions)
        else:
            a = actions
            if (not isinstance(a, np.ndarray) or a.dtype != np.int64 or a.shape != (self.batch_size,)
                    or not a.flags.c_contiguous):
                a = action_array(actions, self.batch_size, check_range=False)
        self._step(a, self._rejected, *self._step_args)
        return self._rejected_view

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """The checks of a checked :meth:`step`, without the step: ``actions`` as ``int64[B]``.

        Raises:
            InvalidActionError: not an integer array of shape ``(B,)``, or an id outside
                ``0..1729``; the message names the game.
            IllegalActionError: an action not legal for the player to move (naming the game, the
                action and the player).
        """
        a = action_array(actions, self.batch_size)
        self._legal_kernel(a, self._legal, *self._turn_args)
        if not self._legal.all():
            raise illegal_action_error(self.state, a, self._legal, self.config.board)
        return a

    @property
    def rejected(self) -> np.ndarray:
        """``bool[B]`` (read-only): the games that ignored their action in the last step."""
        return self._rejected_view

    def is_legal(self, actions: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``bool[B]``: whether ``actions[b]`` is legal for the player to move (True for a
        finished game; docs/rules.md §4).

        Raises:
            InvalidActionError: ``actions`` is not an integer array of shape ``(B,)``.
            PIError: a wrong ``out`` (``bool[B]``).
        """
        a = action_array(actions, self.batch_size, check_range=False)
        if out is None:
            out = np.empty(self.batch_size, dtype=bool)
        elif not isinstance(out, np.ndarray) or out.shape != (self.batch_size,) or out.dtype != bool:
            raise PIError(f"out must be a bool array of shape ({self.batch_size},)")
        self._legal_kernel(a, out, *self._turn_args)
        return out

    def legal_action_mask(self, out: np.ndarray | None = None, solves: bool = True) -> np.ndarray:
        """``int8[B, 1730]`` legal-action mask of the player to move, into ``out`` if given
        (as :func:`pi_env.engine.legal_action_mask`, including ``solves``).

        Raises:
            PIError: a wrong ``out`` (``int8[B, 1730]``).
        """
        if out is None:
            out = np.empty((self.batch_size, NUM_ACTIONS), dtype=np.int8)
        elif (not isinstance(out, np.ndarray) or out.shape != (self.batch_size, NUM_ACTIONS)
              or out.dtype != np.int8):
            raise PIError(f"out must be an int8 array of shape ({self.batch_size}, {NUM_ACTIONS})")
        self._mask(out, not solves, *self._turn_args)
        return out

    def sample_actions(self, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """``int64[B]``: a uniformly random legal action per game (as
        :func:`pi_env.engine.sample_actions`; one uniform variate per game from ``rng``).

        Raises:
            PIError: a wrong ``out`` (``int64[B]``).
        """
        if out is None:
            out = np.empty(self.batch_size, dtype=np.int64)
        elif not isinstance(out, np.ndarray) or out.shape != (self.batch_size,) or out.dtype != np.int64:
            raise PIError(f"out must be an int64 array of shape ({self.batch_size},)")
        self._sample(rng.random(self.batch_size), out, *self._turn_args)
        return out

    # --- what the players see ---------------------------------------------------------------
    def observe(self, player: "int | np.ndarray", out: np.ndarray | None = None) -> np.ndarray:
        """Observation of ``player`` in every game (docs/rules.md §9; layout :mod:`pi_env.engine.observe`).

        Args:
            player: one player for all games, or ``int[B]`` a player per game.
            out: optional ``int16[B, observation_size]`` buffer (overwritten entirely).

        Returns:
            ``int16[B, observation_size]`` (``out`` if given).

        Raises:
            PIError: a player out of range or of the wrong shape, or a wrong ``out``.
        """
        B = self.batch_size
        if isinstance(player, (int, np.integer)) and not isinstance(player, bool):
            if not 0 <= player < self.num_players:
                raise PIError(f"player must be 0..{self.num_players - 1}, got {player!r}")
            players = self._players[int(player)]
        else:
            arr = np.asarray(player)
            if arr.shape != (B,) or not np.issubdtype(arr.dtype, np.integer):
                raise PIError(f"player must be an integer or int[{B}] (one per game), got "
                              f"{arr.dtype}[{', '.join(map(str, arr.shape))}]")
            players = np.ascontiguousarray(arr, dtype=np.int64)
            if players.min() < 0 or players.max() >= self.num_players:
                raise PIError(f"player must be 0..{self.num_players - 1}, got {player!r}")
        if out is None:
            out = np.empty((B, self.observation_size), dtype=np.int16)
        elif (not isinstance(out, np.ndarray) or out.shape != (B, self.observation_size)
              or out.dtype != np.int16):
            raise PIError(f"out must be an int16 array of shape ({B}, {self.observation_size})")
        self._observe(players, self._offsets, out, *self._obs_args)
        return out

    # --- whole games ------------------------------------------------------------------------
    def play(self, num_steps: int, policy: str = "random", seed: "int | np.ndarray | None" = None,
             autoreset: bool = True, script: Script | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Play ``num_steps`` turns in every game in one fused call (:func:`pi_env.engine.play`;
        ``script``: the :class:`~pi_env.engine.play.Script` of ``policy="scripted"``).

        Returns:
            ``(steps, games)``: ``int64[B]`` turns played and games finished per slot.

        Raises:
            PIError: as :func:`pi_env.engine.play`.
        """
        return play(self.state, self.config, num_steps, policy, seed, autoreset, parallel=self.parallel,
                    script=script)

    def rollout(self, policy: str = "random", seed: "int | np.ndarray | None" = None,
                max_steps: int | None = None, script: Script | None = None) -> RolloutResult:
        """Play copies of the current games to their end (:func:`pi_env.engine.rollout`; ``script``:
        the :class:`~pi_env.engine.play.Script` of ``policy="scripted"``, its counts updated); the
        handle's games are not changed.

        Raises:
            PIError: as :func:`pi_env.engine.rollout`.
        """
        return rollout(self.state, self.config, policy, seed, max_steps, parallel=self.parallel, script=script)

    def outcome(self, game: int = 0) -> Outcome:
        """Final standings of finished game ``game`` (:func:`pi_env.engine.outcome`, docs/rules.md §5, §7).

        Raises:
            PIError: the game is not finished.
        """
        return outcome(self.state, self.config, game)

