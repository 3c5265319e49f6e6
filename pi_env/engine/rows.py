"""Rows of learner seats over a batch of games, and the fused self-play turn.

The self-play vector env (:mod:`pi_env.envs.selfplay`) returns, per game, one *row* for the next
learner seat: a turn of the learner to move, or a terminal row telling a learner seat its last
reward (the env's module docstring specifies them). :data:`advance_kernel` picks every game's next
row after an engine step. :class:`SelfPlayTurn` is one whole turn of self-play (every seat a learner)
in one numba call, range by range of 64 games whose states stay in cache: the engine step of every
game (docs/rules.md §4–§7), its failed solves recorded (:class:`~pi_env.engine.writer.FailedSolves`),
a new game in every slot whose last terminal row was returned (the slot's generator stream continues,
as :func:`pi_env.engine.reset_games`), the next row picked, and that row's observation written
(the flat rows of :class:`~pi_env.engine.writer.ObservationWriter` or the packed rows of
:class:`~pi_env.engine.packed.PackedWriter`, or none) with its legal-action mask. It gives exactly
what the separate calls give (``tests/test_selfplay.py`` and ``tests/test_packed.py`` compare them),
without a pass over the batch per stage.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.engine import _kernels as K
from pi_env.engine.packed import PackedIntWriter, PackedWriter, _write_packed_int_rows, _write_packed_rows
from pi_env.engine.writer import FailedSolves, ObservationWriter, _track_failed_game, _write_rows
from pi_env.engine.state import kernel_rules

__all__ = ["advance_kernel", "SelfPlayTurn"]


@rule_step(inline=True)
def _advance_game(b, learner, notified, acc, row_seat, row_terminal, pending_reset, need_opp, out_reward,
                  out_term, out_trunc, done, truncated, current_player, last_player, rewards):
    """Game ``b`` of :data:`advance_kernel`."""
    P = acc.shape[1]
    for i in range(P):
        acc[b, i] += rewards[b, i]
    need_opp[b] = False
    if done[b]:
        s = -1
        left = 0
        for k in range(P):
            q = (np.int64(last_player[b]) + 1 + k) % P
            if learner[b, q] and not notified[b, q]:
                if s < 0:
                    s = q
                else:
                    left += 1
        notified[b, s] = True
        row_seat[b] = s
        row_terminal[b] = True
        out_reward[b] = acc[b, s]
        acc[b, s] = 0
        out_term[b] = not truncated[b]
        out_trunc[b] = truncated[b]
        pending_reset[b] = left == 0
    else:
        cp = np.int64(current_player[b])
        if learner[b, cp]:
            row_seat[b] = cp
            row_terminal[b] = False
            out_reward[b] = acc[b, cp]
            acc[b, cp] = 0
            out_term[b] = False
            out_trunc[b] = False
        else:
            need_opp[b] = True


@batch_kernel(cheap=True)
def advance_kernel(active, learner, notified, acc, row_seat, row_terminal, pending_reset, need_opp,
                   out_reward, out_term, out_trunc, done, truncated, current_player, last_player,
                   rewards):
    """For every active game: add the last step's rewards to ``acc`` and pick the game's next row
    (a terminal row for the next learner seat not yet told, a turn of the learner to move, or
    ``need_opp`` when an opponent agent is to move)."""
    for b in prange(active.shape[0]):
        if active[b]:
            _advance_game(b, learner, notified, acc, row_seat, row_terminal, pending_reset, need_opp, out_reward,
                          out_term, out_trunc, done, truncated, current_player, last_player, rewards)


@rule_step
def _selfplay_range(lo, hi, actions, rejected, r, rows, f_list, f_count, f_round, mask, s):
    """Games ``lo <= b < hi`` of :data:`_selfplay_kernel` without the observations (a rule step: no
    reference counting, so the calls it makes per game and per range count no references either)."""
    (learner, notified, acc, row_seat, row_terminal, pending, need_opp, games, out_reward, out_term, out_trunc,
     seat8) = rows
    round_, current_player, done, truncated, last_player, rewards = (s.round, s.current_player, s.done, s.truncated,
                                                                     s.last_player, s.rewards)
    P = acc.shape[1]
    K._step_games(lo, hi, actions, rejected, r, s)
    any_pending = False
    for b in range(lo, hi):
        _track_failed_game(b, f_list, f_count, f_round, done, round_, s.last_action, s.last_answer, last_player)
        any_pending = any_pending or pending[b]
    if any_pending:  # the slots whose last terminal row was returned: new games
        K._new_games(lo, hi, pending, r, s)
        for b in range(lo, hi):
            if pending[b]:
                pending[b] = False
                for i in range(P):
                    acc[b, i] = 0
                    notified[b, i] = False
                    f_count[b, i] = 0
                f_round[b] = round_[b]
                games[b] += 1
    for b in range(lo, hi):
        _advance_game(b, learner, notified, acc, row_seat, row_terminal, pending, need_opp, out_reward,
                      out_term, out_trunc, done, truncated, current_player, last_player, rewards)
        seat8[b] = row_seat[b]
    for b in range(lo, hi):
        K._mask_row(b, mask, True, current_player, done, s.card_place, s.inv_count, s.inv_district, s.inv_left)


@batch_kernel(family="selfplay")
def _selfplay_kernel(actions, rejected, r, rows, f_list, f_count, f_round, encode, flat, packed, ints, mask,
                     failed_words, s):
    """One self-play turn of every game, range by range (module docstring; ``r``: the rules,
    :class:`~pi_env.engine.state.KernelRules`; ``rows``: the caller's row arrays, as
    :class:`SelfPlayTurn` takes them; ``encode``: 0 no observation, 1 the flat rows (``flat``: the
    :class:`~pi_env.engine.writer.ObservationWriter`'s offsets, scales, rows and row caches), 2 the
    packed rows (``packed``: :meth:`~pi_env.engine.packed.PackedWriter.kernel_args`), 3 the packed
    integer rows (``ints``: :meth:`~pi_env.engine.packed.PackedIntWriter.kernel_args`); ``s``: the
    state, :data:`~pi_env.engine.state.GameArrays`). A range is one call of the
    rule step ``_selfplay_range`` (the turn and the masks) and one of the writer: a kernel counts
    references (atomic increments and decrements of every array passed) around each call it makes,
    and its calls per range and per row (the mask) had cost ~20% of the one-thread build (the
    threaded build measured no different; the writer's call stays in the kernel, where it measured
    no slower threaded)."""
    row_seat = rows[3]
    off, scale, obs, caches = flat
    p_off, p_scale, p_fcount, p_obs, p_caches = packed
    i_off, i_obs = ints
    n = actions.shape[0]
    for c in prange((n + K.CHUNK - 1) // K.CHUNK):
        lo = c * K.CHUNK
        _selfplay_range(lo, min(n, lo + K.CHUNK), actions, rejected, r, rows, f_list, f_count, f_round, mask, s)
        # the rows' observations, one call for the range (a call per row cost as much as the row)
        hi = min(n, lo + K.CHUNK)
        if encode == 2:
            _write_packed_rows(lo, hi, row_seat, p_off, p_scale, p_fcount, p_obs, p_caches, f_list, f_count,
                               failed_words, s)
        elif encode == 3:
            _write_packed_int_rows(lo, hi, row_seat, i_off, i_obs, f_list, f_count, failed_words, s)
        elif encode == 1:
            _write_rows(lo, hi, row_seat, off, scale, obs, caches, f_list, f_count, failed_words, s)


class SelfPlayTurn:
    """One self-play turn of ``B`` games in one call (module docstring), bound to the buffers of
    the caller's rows (every seat a learner).

    Args:
        engine: the :class:`~pi_env.engine.Engine` of the games.
        rows: the caller's row arrays, in this order: ``learner bool[B, P]``, ``notified
            bool[B, P]``, ``acc int32[B, P]`` (rewards not yet paid), ``row_seat int64[B]``,
            ``row_terminal bool[B]``, ``pending bool[B]`` (a new game is due in the slot),
            ``need_opp bool[B]``, ``games int64[B]`` (games started per slot), ``reward
            float32[B]``, ``terminated bool[B]``, ``truncated bool[B]``, ``seat int8[B]`` (the
            row's seat).
        failed: the :class:`~pi_env.engine.writer.FailedSolves` of the games.
        writer: the writer of the rows' observations: an
            :class:`~pi_env.engine.writer.ObservationWriter` (the flat rows), a
            :class:`~pi_env.engine.packed.PackedWriter` (the packed rows), a
            :class:`~pi_env.engine.packed.PackedIntWriter` (the packed integer rows), or ``None``
            (no observations).
        mask: ``int8[B, 1730]``: the rows' legal-action masks (the clue and investigator entries are
            written; the solve entries are left as they are, ones).
        parallel: threaded (``True``), serial (``False``) or by batch size (``None``, the family
            ``"selfplay"`` of ``pi_env.core._config.PARALLEL_MIN_BATCH``).
    """

    def __init__(self, engine: Any, rows: tuple[np.ndarray, ...], failed: FailedSolves,
                 writer: "ObservationWriter | PackedWriter | PackedIntWriter | None", mask: np.ndarray, parallel: bool | None = None):
        st = engine.state
        B, P = engine.batch_size, engine.num_players
        self._kernel = _selfplay_kernel.for_batch(B, parallel)
        # the kernel takes both writers' arrays; the one not in use is a dummy of one row
        ones = np.ones(23, dtype=np.float32)
        flat = writer if isinstance(writer, ObservationWriter) else ObservationWriter(1, P, ones)
        packed = writer if isinstance(writer, PackedWriter) else PackedWriter(1, P, ones)
        ints = writer if isinstance(writer, PackedIntWriter) else PackedIntWriter(1, P)
        code = (0 if writer is None else 1 if isinstance(writer, ObservationWriter)
                else 2 if isinstance(writer, PackedWriter) else 3)
        enc: tuple[Any, ...] = (code, (flat._offsets, flat.scales, flat._rows, flat._caches.arrays()),
                                packed.kernel_args(), ints.kernel_args())
        cfg = engine.config
        self._rejected = engine._rejected
        self._args = (kernel_rules(cfg), tuple(rows), failed.list, failed.count,
                      failed.round, *enc, mask, st.failed.view(np.uint64), st.kernel_value())

    def __call__(self, actions: np.ndarray) -> None:
        """Play ``actions`` (``int64[B]``, C-contiguous; any value for a finished game; an illegal
        one leaves its game unchanged, as an unchecked :meth:`~pi_env.engine.Engine.step`)."""
        self._kernel(actions, self._rejected, *self._args)
