"""Observations written incrementally into a caller's buffer, scaled per component (docs/rules.md §9).

:func:`pi_env.engine.observe` is the definition of a player's observation (``int16``, the whole
vector written every call). :class:`ObservationWriter` writes the same observation, each component
multiplied by a scale of the caller's (``float32``; the flat encoding of
:mod:`pi_env.envs.encoders` uses it), into rows of a buffer it keeps, and writes only the entries
that change: per row it remembers what the row holds (tile districts, the 36-bit masks of display,
discard and every seat's markers and front cards, the held case, the named correct cases, the
investigators' districts and the failed-block entries it set); only the few scalars are always
rewritten. The 1680 failed-solve flags per player are not even read when the caller keeps a
:class:`FailedSolves` up to date. So a row costs well under a microsecond although it has
``618 + 1912 * P`` entries. ``tests/test_encoders.py`` checks it against
``observe(...) * scales`` bit for bit, also after many steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.core.constants import IN_DISCARD, MAX_INVESTIGATORS, NUM_CASES, NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine._kernels import CHUNK
from pi_env.engine.observe import _offsets, observation_layout, observation_size, player_array
from pi_env.engine.state import State

__all__ = ["ObservationWriter", "FailedSolves", "observe_scaled", "NUM_COMPONENTS"]

_CACHE_POSITIONS = 64  # failed-block entries an ObservationWriter row remembers; beyond: full clear
NUM_COMPONENTS = len(observation_layout(2))
"""Number of observation components (23), the length of a ``scales`` vector."""


@rule_step(inline=True)
def _bits36(flags):
    """The 36 flags ``flags[0..35]`` as the low bits of a ``uint64``."""
    m = np.uint64(0)
    for x in range(NUM_ELEMENTS):
        m |= np.uint64(flags[x]) << np.uint64(x)
    return m


@rule_step(inline=True)
def _write_bits(dst, old, new, one):
    """Store the flags ``new`` (36 bits) as ``0`` / ``one`` into ``dst[0..35]``, which holds
    ``old``: only the entries that differ are written."""
    diff = old ^ new
    if diff != 0:
        for x in range(NUM_ELEMENTS):
            if (diff >> np.uint64(x)) & np.uint64(1):
                dst[x] = one if (new >> np.uint64(x)) & np.uint64(1) else np.float32(0.0)


@rule_step(inline=True)
def _write_places(o, off, scale, bits, place):
    """The display and discard components of row ``o`` (starting at ``off[1]``, ``off[2]``; values
    ``scale[1]``, ``scale[2]``) from the clue cards' places ``place[0..35]`` (docs/rules.md §9),
    touching only the entries that differ from the masks ``bits[0]``, ``bits[1]`` the row holds
    (updated). Shared by :class:`ObservationWriter` and the packed encoding, whose layouts agree here."""
    m_disp = np.uint64(0)
    m_disc = np.uint64(0)
    for x in range(NUM_ELEMENTS):
        m_disp |= np.uint64(place[x] == ON_DISPLAY) << np.uint64(x)
        m_disc |= np.uint64(place[x] == IN_DISCARD) << np.uint64(x)
    _write_bits(o[off[1]:off[1] + NUM_ELEMENTS], bits[0], m_disp, scale[1])
    _write_bits(o[off[2]:off[2] + NUM_ELEMENTS], bits[1], m_disc, scale[2])
    bits[0] = m_disp
    bits[1] = m_disc


@rule_step(inline=True)
def _write_markers(o, off, scale, bits, first, b, q, j, front, spot, trace):
    """Relative seat ``j``'s front cards, spot and trace markers (player ``q`` of game ``b``; the
    components starting at ``off[3..5]``, 36 entries a seat, values ``scale[3..5]``), touching only
    the entries that differ from the masks ``bits[first..first + 2]`` the row holds (updated)."""
    for kind in range(3):
        src = front[b, q] if kind == 0 else (spot[b, q] if kind == 1 else trace[b, q])
        m = _bits36(src)
        start = off[3 + kind] + j * 36
        _write_bits(o[start:start + 36], bits[first + kind], m, scale[3 + kind])
        bits[first + kind] = m


@rule_step(inline=True)
def _write_investigators(o, off, scale, ci, b, q, j, inv_count, inv_district, inv_answer, inv_suppressed):
    """Relative seat ``j``'s investigators (player ``q`` of game ``b``; the components
    ``inv_placed``, ``inv_spots``, ``inv_traces``, ``inv_suppressed`` at ``off[6..9]``, 14 / 14 / 14 /
    42 entries a seat, values times ``scale[6..9]``): clears the districts ``ci`` (``int8[K]``,
    ``-1`` unused) written before, writes the current ones and records them in ``ci``."""
    placed = o[off[6] + j * 14:off[6] + j * 14 + 14]
    spots = o[off[7] + j * 14:off[7] + j * 14 + 14]
    traces = o[off[8] + j * 14:off[8] + j * 14 + 14]
    sup = o[off[9] + j * 42:off[9] + j * 42 + 42]
    for k in range(ci.shape[0]):
        d = np.int64(ci[k])
        if d >= 0:
            placed[d] = 0.0
            spots[d] = 0.0
            traces[d] = 0.0
            for t in range(3):
                sup[d * 3 + t] = 0.0
            ci[k] = -1
    for k in range(inv_count[b, q]):
        d = np.int64(inv_district[b, q, k])
        ci[k] = d
        placed[d] = scale[6]
        spots[d] = np.float32(inv_answer[b, q, k, 0]) * scale[7]
        traces[d] = np.float32(inv_answer[b, q, k, 1]) * scale[8]
        for t in range(3):
            sup[d * 3 + t] = scale[9] if inv_suppressed[b, q, k, t] else np.float32(0.0)


@rule_step
def _write_rows(lo, hi, players, off, scale, out, caches, f_list, f_count, failed_words, s):
    """Write row ``b`` of ``out``, for every game ``b`` of ``lo <= b < hi`` with ``p = players[b] >= 0``:
    the observation of player ``p`` (see ``_write_kernel``), each
    entry times its component's ``scale``, touching only the entries that change.

    One call per range of games, not per row: a call passes every array as its fields, measured
    ~0.28 µs a call with these ~35 arrays (2 players, load 7), a quarter of a row's whole cost.
    ``caches``: the row caches (``_RowCaches.arrays()``); ``s``: the state
    (:data:`~pi_env.engine.state.GameArrays`); ``failed_words``: ``s.failed`` as ``uint64`` words."""
    c_td, c_fpos, c_fn, c_bits, c_held, c_solved, c_inv = caches
    (round_, first_player, current_player, rotation, tier, tile_district, case, card_place, deck_size, front, spot,
     trace, inv_count, inv_district, inv_answer, inv_suppressed, inv_left, attempted, solved, solved_case, failed,
     score) = (s.round, s.first_player, s.current_player, s.rotation, s.tier, s.tile_district, s.case, s.card_place,
               s.deck_size, s.front, s.spot, s.trace, s.inv_count, s.inv_district, s.inv_answer, s.inv_suppressed,
               s.inv_left, s.attempted, s.solved, s.solved_case, s.failed, s.score)
    for b in range(lo, hi):
        p = players[b]
        if p >= 0:
            P = case.shape[1]
            K = c_fpos.shape[1]
            nf = P * NUM_CASES
            W = failed_words.shape[2]
            L = f_list.shape[2]
            o = out[b]
            bits = c_bits[b]
            # tiles: only where a tile moved since this row was last written
            tiles = o[off[0]:off[0] + NUM_ELEMENTS * 14]
            td, ctd = tile_district[b], c_td[b]
            for x in range(NUM_ELEMENTS):
                d = np.int64(td[x])
                old = np.int64(ctd[x])
                if old != d:
                    if old >= 0:
                        tiles[x * 14 + old] = 0.0
                    tiles[x * 14 + d] = scale[0]
                    ctd[x] = d
            _write_places(o, off, scale, bits, card_place[b])
            # failed: clear what was set before
            fail = o[off[12]:off[12] + nf]
            n = c_fn[b]
            pos = c_fpos[b]
            if n > K:
                fail[:] = 0.0
            else:
                for k in range(n):
                    fail[pos[k]] = 0.0
            n = 0
            for j in range(P):
                q = (p + j) % P
                _write_markers(o, off, scale, bits, 2 + 3 * j, b, q, j, front, spot, trace)
                _write_investigators(o, off, scale, c_inv[b, j], b, q, j, inv_count, inv_district, inv_answer,
                                     inv_suppressed)
                # the correct solve named this round
                c = np.int64(solved_case[b, q])
                c_old = np.int64(c_solved[b, j])
                if c != c_old:
                    named = o[off[11] + j * 36:off[11] + j * 36 + 36]
                    if c_old >= 0:
                        named[c_old // 140] = 0.0
                        named[12 + (c_old // 14) % 10] = 0.0
                        named[22 + c_old % 14] = 0.0
                    if c >= 0:
                        named[c // 140] = scale[11]
                        named[12 + (c // 14) % 10] = scale[11]
                        named[22 + c % 14] = scale[11]
                    c_solved[b, j] = c
                if f_count[b, q] <= L:
                    base = j * NUM_CASES
                    for i in range(f_count[b, q]):
                        k = base + np.int64(f_list[b, q, i])
                        fail[k] = scale[12]
                        if n < K:
                            pos[n] = k
                        n += 1
                elif attempted[b, q]:  # failed solves imply an attempt this round
                    words = failed_words[b, q]
                    any_ = np.uint64(0)
                    for w in range(W):
                        any_ |= words[w]
                    if any_ != 0:
                        base = j * NUM_CASES
                        flags = failed[b, q]
                        for w in range(W):
                            if words[w] != 0:
                                for i in range(8 * w, 8 * w + 8):
                                    if flags[i]:
                                        k = base + i
                                        fail[k] = scale[12]
                                        if n < K:
                                            pos[n] = k
                                        n += 1
                o[off[13] + j] = np.float32(score[b, q]) * scale[13]
                o[off[14] + j] = scale[14] if attempted[b, q] else np.float32(0.0)
                o[off[15] + j] = scale[15] if solved[b, q] else np.float32(0.0)
                o[off[16] + j] = np.float32(inv_left[b, q]) * scale[16]
            c_fn[b] = n
            h = (p + 1) % P  # the observer holds the case of the next player (docs/rules.md §3)
            e0, e1, e2 = case[b, h, 0], 12 + case[b, h, 1], 22 + case[b, h, 2]
            ch = c_held[b]
            if e0 != ch[0] or e1 != ch[1] or e2 != ch[2]:
                held = o[off[10]:off[10] + NUM_ELEMENTS]
                for t in range(3):
                    if ch[t] >= 0:
                        held[ch[t]] = 0.0
                held[e0] = scale[10]
                held[e1] = scale[10]
                held[e2] = scale[10]
                ch[0], ch[1], ch[2] = e0, e1, e2
            o[off[17]] = np.float32(round_[b]) * scale[17]
            o[off[18]] = np.float32(tier[b]) * scale[18]
            o[off[19]] = np.float32(rotation[b]) * scale[19]
            o[off[20]] = np.float32((first_player[b] - p + P) % P) * scale[20]
            o[off[21]] = np.float32(deck_size[b]) * scale[21]
            o[off[22]] = np.float32((current_player[b] - p + P) % P) * scale[22]


@batch_kernel(family="observe")
def _write_kernel(players, off, scale, out, caches, f_list, f_count, failed_words, s):
    """Write the observation of player ``players[b]`` (docs/rules.md §9; the layout of
    :func:`pi_env.engine.observation_layout`), each entry times its component's ``scale``, into
    ``out[b]`` (rows with a negative player are left alone), touching only the entries that change.

    The row caches (``caches``, the tuple of ``_RowCaches.arrays()``) say what row ``b`` holds now
    (all "empty" for an all-zero row):
    ``c_td[b, x]`` the district of tile ``x`` (``-1`` none); ``c_fpos[b, :c_fn[b]]`` the failed-block
    entries set to 1 (``c_fn[b] > K``: too many to remember, clear the whole block);
    ``c_bits[b]`` 36-bit masks of display, discard and, per relative seat, front, spot, trace;
    ``c_held[b]`` the held case's 3 elements (``-1`` none); ``c_solved[b, j]`` seat ``j``'s named
    correct case (``-1`` none); ``c_inv[b, j]`` the districts of seat ``j``'s investigators
    (``-1`` unused). Scalars are always written.

    ``f_list[b, q, :f_count[b, q]]`` are player ``q``'s failed solves this round when the caller
    tracks them (:class:`FailedSolves`); ``f_count[b, q] > L`` means "not tracked": the kernel
    scans ``failed`` (the 1680 flags, as ``uint64`` words ``failed_words``) instead. ``s``: the state
    (:data:`~pi_env.engine.state.GameArrays`).
    """
    n = out.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _write_rows(c * CHUNK, min(n, c * CHUNK + CHUNK), players, off, scale, out, caches, f_list, f_count,
                    failed_words, s)


@rule_step(inline=True)
def _track_failed_game(b, f_list, f_count, f_round, done, round_, last_action, last_answer, last_player):
    """Game ``b`` of ``_track_failed_kernel``."""
    L = f_list.shape[2]
    P = f_list.shape[1]
    if round_[b] != f_round[b]:
        f_round[b] = round_[b]
        if not done[b]:  # the step ended the round and the engine set up a new one (a
            for q in range(P):  # finished game keeps its last round's flags)
                f_count[b, q] = 0
            return
    a = np.int64(last_action[b])
    if a >= SOLVE_BASE and last_answer[b, 0] == 0:
        q = np.int64(last_player[b])
        c = a - SOLVE_BASE
        n = f_count[b, q]
        if n <= L:
            known = False
            for i in range(n):
                if f_list[b, q, i] == c:
                    known = True
            if not known:
                if n < L:
                    f_list[b, q, n] = c
                f_count[b, q] = n + 1  # L + 1: too many, scan instead


@batch_kernel(cheap=True)
def _track_failed_kernel(active, f_list, f_count, f_round, done, round_, last_action, last_answer,
                         last_player):
    """After an engine step of every active game: forget the failed solves when a new round was
    set up, then add the step's wrong solve (if it was one) to its player's list."""
    for b in prange(active.shape[0]):
        if active[b]:
            _track_failed_game(b, f_list, f_count, f_round, done, round_, last_action, last_answer, last_player)


class FailedSolves:
    """Per game and player, the failed solve triples of the current round (docs/rules.md §4.3: public),
    kept up to date from the state's ``last_action`` / ``last_answer`` after every step, so that
    :class:`ObservationWriter` need not scan the 1680 flags per player (the scan reads most of the
    state's bytes).

    Call :meth:`reset` for new games and :meth:`after_step` after every engine step (with the
    games that were stepped); a stepped game must not be skipped, or its list goes stale.

    Args:
        batch_size: ``B``.
        num_players: ``P``.
        length: triples remembered per player; beyond, the writer scans that player's flags.

    Attributes:
        list: ``int16[B, P, length]`` the failed case ids of each player this round.
        count: ``int64[B, P]`` how many (``length + 1``: too many, not tracked).
        round: ``int8[B]`` the round the lists belong to.
    """

    def __init__(self, batch_size: int, num_players: int, length: int = 16):
        self.list = np.zeros((batch_size, num_players, length), dtype=np.int16)
        self.count = np.zeros((batch_size, num_players), dtype=np.int64)
        self.round = np.zeros(batch_size, dtype=np.int8)
        self._kernel = _track_failed_kernel.serial

    def reset(self, which: np.ndarray, state: State) -> None:
        """New games in the slots ``which`` (``bool[B]``)."""
        self.count[which] = 0
        self.round[which] = state.round[which]

    def load(self, which: np.ndarray, state: State) -> None:
        """Games loaded into the slots ``which`` (``bool[B]``) in the middle of a round (saved
        positions): their lists are read from the state's failed-solve flags."""
        L = self.list.shape[2]
        for b in np.flatnonzero(which):
            self.round[b] = state.round[b]
            for q in range(self.count.shape[1]):
                ids = np.flatnonzero(state.failed[b, q])
                self.count[b, q] = ids.size if ids.size <= L else L + 1
                self.list[b, q, :min(ids.size, L)] = ids[:L]

    def __getstate__(self) -> dict[str, Any]:
        return {"list": self.list, "count": self.count, "round": self.round}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._kernel = _track_failed_kernel.serial

    def after_step(self, stepped: np.ndarray, state: State) -> None:
        """Record the last step of every game in ``stepped`` (``bool[B]``)."""
        self._kernel(stepped, self.list, self.count, self.round, state.done, state.round,
                     state.last_action, state.last_answer, state.last_player)


class _RowCaches:
    """What each row of an observation buffer holds (see ``_write_kernel``); fresh: all-zero rows."""

    def __init__(self, batch_size: int, num_players: int, positions: int = _CACHE_POSITIONS):
        B, P = batch_size, num_players
        self.td = np.full((B, NUM_ELEMENTS), -1, dtype=np.int8)
        self.fpos = np.zeros((B, positions), dtype=np.int64)
        self.fn = np.zeros(B, dtype=np.int64)
        self.bits = np.zeros((B, 2 + 3 * P), dtype=np.uint64)
        self.held = np.full((B, 3), -1, dtype=np.int16)
        self.solved = np.full((B, P), -1, dtype=np.int16)
        self.inv = np.full((B, P, MAX_INVESTIGATORS), -1, dtype=np.int8)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.td, self.fpos, self.fn, self.bits, self.held, self.solved, self.inv


def _untracked(batch_size: int, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(f_list, f_count)`` meaning "failed solves not tracked": the kernel scans the flags."""
    return (np.zeros((batch_size, num_players, 1), dtype=np.int16),
            np.full((batch_size, num_players), 2, dtype=np.int64))


def _state_args(s: State) -> tuple[Any, ...]:
    """The writer kernels' last two arguments: the failed-solve flags as ``uint64`` words, the state value."""
    return s.failed.view(np.uint64), s.kernel_value()


def _check_scales(scales: np.ndarray) -> np.ndarray:
    s = np.asarray(scales)
    if s.shape != (NUM_COMPONENTS,):
        raise PIError(f"scales must have one entry per observation component ({NUM_COMPONENTS}), got shape {s.shape}")
    return np.ascontiguousarray(s, dtype=np.float32)


class ObservationWriter:
    """Fills the rows of a ``float32[B, D + extra]`` buffer with scaled observations, incrementally.

    Entry ``k`` of row ``b`` becomes ``observe(state, players[b])[b, k] * scales[c(k)]``, where
    ``c(k)`` is the component of entry ``k`` (layout order of
    :func:`pi_env.engine.observation_layout`). Only this writer may write to the first ``D``
    columns of the buffer (it remembers what each row holds); the ``extra`` columns are the
    caller's.

    Args:
        batch_size: ``B``.
        num_players: ``P``.
        scales: ``float32[23]``, one scale per component.
        extra_columns: columns after the ``D = observation_size(P)`` observation ones (left zero).
        parallel: threaded (``True``), serial (``False``) or chosen by batch size (``None``).

    Attributes:
        buffer: ``float32[B, D + extra_columns]``, starts all zero.

    Raises:
        PIError: ``scales`` of the wrong length.
    """

    def __init__(self, batch_size: int, num_players: int, scales: np.ndarray, extra_columns: int = 0,
                 parallel: bool | None = None):
        self.batch_size, self.num_players = int(batch_size), int(num_players)
        self.size = observation_size(self.num_players)
        self.scales = _check_scales(scales)
        self.buffer = np.zeros((self.batch_size, self.size + extra_columns), dtype=np.float32)
        self._rows = self.buffer[:, :self.size]
        self._offsets = _offsets(self.num_players)
        self._caches = _RowCaches(self.batch_size, self.num_players)
        self._no_lists = _untracked(self.batch_size, self.num_players)
        self._parallel = parallel
        self._kernel = (_write_kernel.for_batch(self.batch_size) if parallel is None
                        else _write_kernel.parallel if parallel else _write_kernel.serial)

    def __getstate__(self) -> dict[str, Any]:
        """Copies (``copy.deepcopy``, :mod:`pickle`) keep the buffer and what each row holds; the
        view of the observation columns and the kernel are rebuilt (a copied view would be a
        separate array)."""
        saved = dict(self.__dict__)
        del saved["_rows"], saved["_kernel"]
        return saved

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._rows = self.buffer[:, :self.size]
        parallel = self._parallel
        self._kernel = (_write_kernel.for_batch(self.batch_size) if parallel is None
                        else _write_kernel.parallel if parallel else _write_kernel.serial)

    def write(self, state: State, players: "int | np.ndarray", failed: "FailedSolves | None" = None,
              check: bool = True) -> np.ndarray:
        """Write row ``b`` for player ``players[b]`` (``int64[B]``; negative: leave the row).

        Args:
            state: ``B`` games of ``P`` players.
            players: ``int64[B]`` (an int: the same player in every row, with ``check``).
            failed: the caller's up-to-date :class:`FailedSolves` of ``state`` (faster), else the
                failed-solve flags are scanned.
            check: verify the state's shape and the players (``False``: the caller guarantees
                ``int64[B]`` players below ``P`` and a matching state).

        Returns:
            ``float32[B, D]``: the observation columns of :attr:`buffer` (a view).

        Raises:
            PIError: (``check``) a state of another batch size or player count, or bad players.
        """
        if check:
            if state.batch_size != self.batch_size or state.num_players != self.num_players:
                raise PIError(f"state has B={state.batch_size}, P={state.num_players}; the writer "
                              f"was built for B={self.batch_size}, P={self.num_players}")
            if isinstance(players, (int, np.integer)):
                players = player_array(state, players)
            else:
                players = np.ascontiguousarray(players, dtype=np.int64)
                if players.shape != (self.batch_size,) or players.max(initial=-1) >= state.num_players:
                    raise PIError(f"players must be int[{self.batch_size}] with entries < {state.num_players}")
        lists = self._no_lists if failed is None else (failed.list, failed.count)
        self._kernel(players, self._offsets, self.scales, self._rows, self._caches.arrays(), *lists,
                     *_state_args(state))
        return self._rows


def observe_scaled(state: State, player: "int | np.ndarray", scales: np.ndarray,
                   out: np.ndarray | None = None) -> np.ndarray:
    """``float32[B, D]``: the observation of ``player`` in every game, each component times its
    scale (stateless form of :class:`ObservationWriter`; docs/rules.md §9).

    Args:
        state: ``B`` games.
        player: one player for all games, or ``int[B]``.
        scales: ``float32[23]``, one per component.
        out: optional ``float32[B, D]`` buffer, overwritten entirely.

    Raises:
        PIError: bad players, scales or ``out``.
    """
    B, P = state.batch_size, state.num_players
    players = player_array(state, player)
    s = _check_scales(scales)
    D = observation_size(P)
    if out is None:
        out = np.zeros((B, D), dtype=np.float32)
    else:
        if not isinstance(out, np.ndarray) or out.shape != (B, D) or out.dtype != np.float32:
            raise PIError(f"out must be float32[{B}, {D}], got {getattr(out, 'dtype', type(out).__name__)}"
                          f"[{', '.join(map(str, getattr(out, 'shape', ())))}]")
        out[:] = 0.0
    _write_kernel.for_batch(B)(players, _offsets(P), s, out, _RowCaches(B, P, 1).arrays(),
                               *_untracked(B, P), *_state_args(state))
    return out
