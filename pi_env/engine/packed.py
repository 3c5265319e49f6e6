"""The packed observation encoding: one player's observation in a few hundred ``float32``.

The flat encoding (:mod:`pi_env.envs.encoders`, ``618 + 1912·P`` entries: 4,442 for 2 players) is
the engine observation (:func:`pi_env.engine.observe`, docs/rules.md §9) entry for entry; most of it
is the one-hot tiles (504) and the failed-solve flags (1680 per player). The **packed** encoding keeps
every other component of the observation as it is and replaces those two by small summaries, so a
row is ``150 + 269·P`` entries (688 for 2 players, 1,495 for 5): about a sixth of the flat row, small
enough for a batch of rows to stay in the processor's cache. It is written from the engine state by
the same fused self-play call that steps the games (:class:`pi_env.engine.rows.SelfPlayTurn`), or by
:func:`write_packed`. The compact encodings of the learned agents (``compact-v1..v3``,
:mod:`pi_env.solvers.compact`) are not this: they are computed by the solver layer (posteriors and
information gains over the 1680 cases, some 30,000 rows per second), far from engine speed.

Layout
------

Per-player blocks are in *relative seat* order: seat ``j`` is player ``(p + j) % P`` (seat 0 the
observer, seat 1 the player whose case it holds). The column *scale* names the flat encoding's
component scale the entry is multiplied by (``scales[c]``: ``float32[23]``, one per component of
:func:`pi_env.engine.observation_layout`, as :class:`pi_env.engine.writer.ObservationWriter` takes;
:func:`pi_env.envs.encoders.flat_scales` gives them per entry).

=================  ============  ==================  ===================================================
name               shape         value               meaning
=================  ============  ==================  ===================================================
tile_district      [36]          ``d / 13``          district ``d`` (0..13) of the element's tile; the
                                                     flat ``tiles`` one-hot as one number
display            [36]          0/1 × scale         the element's clue card is on the display
discard            [36]          0/1 × scale         the card is in the discard pile
front              [P, 36]       0/1 × scale         cards answered *nothing*, in front of the seat
spot               [P, 36]       0/1 × scale         the seat's spot markers
trace              [P, 36]       0/1 × scale         the seat's trace markers
inv_placed         [P, 14]       0/1 × scale         the seat has an investigator in the district
inv_spots          [P, 14]       0..3 × scale        spots answered by that investigator
inv_traces         [P, 14]       0..3 × scale        traces answered by that investigator
inv_suppressed     [P, 14, 3]    0/1 × scale         types the suppression rule skipped
held_case          [36]          0/1 × scale         the case the observer holds (seat 1's: 3 ones)
solved_case        [P, 36]       0/1 × scale         the elements of the seat's correct solve this round
failed_count       [P]           0..1                ``log2(1 + n) / log2(1681)``, ``n`` the distinct
                                                     triples the seat named wrongly this round
failed_share       [P, 36]       0..1                the share of those ``n`` triples that name the
                                                     element (0 when ``n = 0``)
score              [P]           × scale             scores
attempted          [P]           0/1 × scale         attempted a solve this round
solved             [P]           0/1 × scale         solved this round
inv_left           [P]           0..5 × scale        investigator tiles left
round              [1]           × scale             round, 0-based
tier               [1]           × scale             tier (docs/rules.md §5)
rotation           [1]           × scale             rotations completed this round
first_seat         [1]           × scale             relative seat of the round's first player
deck_size          [1]           × scale             cards left in the deck
to_move            [1]           × scale             relative seat of the player to move
=================  ============  ==================  ===================================================

What is lost against the flat encoding: only the failed triples themselves. With one wrong triple
(``n = 1``) ``failed_share`` names its three elements, so the triple is there; with more, only how
often each element was named (docs/rules.md §4.3: every named triple is public). Everything else is
the observation's own value, so :func:`packed_from_observation` computes the encoding from
:func:`pi_env.engine.observe` alone, in plain numpy (the reference the kernel is tested against,
bit for bit). The observation holds nothing from which the player's own case follows except the
answers to it, hence neither does this encoding (``tests/test_packed.py`` plays pairs of games that
differ only in that case).

Integer rows
------------

The packed encoding before its scales, as integers, with its 0/1 and 0..3 components packed into
bit fields (layout :data:`INT_LAYOUT_VERSION` = 2): ``int8[packed_int_size(P)]`` (or ``int16``),
``78 + 105·P`` entries (2 players: 288 bytes against the packed rows' 688 floats; 4 players: 498),
written by the same fused self-play call (:class:`PackedIntWriter`, :func:`write_packed_int`; the
self-play env's ``observations="packed-int8"``). Components (:func:`packed_int_layout`; seats
relative, as above):

=================  ============  ===================================================================
name               shape         value
=================  ============  ===================================================================
tile_district      [36]          the district ``d`` (0..13) of the element's tile
cards              [36]          display + 2 × discard + 4 × held_case (0..7)
markers            [P, 36]       front + 2 × spot + 4 × trace + 8 × solved_case (0..15)
investigators      [P, 14]       inv_placed + 2 × inv_spots + 8 × inv_traces (0..31)
suppressed         [P, 14]       inv_suppressed of type ``t`` × 2 ** t (0..7)
failed_count       [P]           the number ``n`` of distinct wrong triples
failed_share       [P, 36]       how many of them name the element (0..n)
score, attempted,  [P] each      the observation's own values
solved, inv_left
round, tier,       [1] each      the observation's own values
rotation,
first_seat,
deck_size, to_move
=================  ============  ===================================================================

A packed entry's integer is ``(row[source] >> shift) & mask`` (:func:`packed_int_unpacking`: the
bit field's position, or the whole entry with ``mask = -1``), and the packed row is that integer
times ``packed_int_scales(P, scales)`` in ``float32`` (the scale of the entry's component,
``TILE_SCALE`` for ``tile_district``), except ``failed_count = FAILED_COUNT[n]`` and
``failed_share = x / max(n, 1)`` (``float32`` division): :func:`packed_from_int` (numpy) and
:class:`pi_env.rl.packed_int.PackedIntToFloat` (torch) compute exactly the ``float32`` rows, bit for
bit (``tests/test_packed_int.py``). Layout 1 (commits up to a2c8dee) was the packed layout entry for
entry (``150 + 269·P``); the bit fields cut a 4-player row from 1,226 to 498 bytes and the row's
writing by about a third (CHANGELOG 0.2.0). Ranges (:func:`pi_env.envs.encoders.packed_int_bounds`):
scores −5..21 (second edition), 0..rounds (duel), down to ``−2 · max_rotations · rounds`` (first
edition); ``rotation`` and ``n`` at most ``max_rotations`` (a player has at most one turn a
rotation; a duel's first attempt ends the round); the rest below 37. So ``int8`` holds every
second-edition and duel game with ``max_rotations <= 127`` (the default is 60) and ``int16`` every
game (:func:`pi_env.envs.encoders.check_packed_int` refuses a dtype too narrow). Being the packed
rows' values, they show a player nothing of its own case either (tested with paired games too).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.core.constants import IN_DISCARD, MAX_INVESTIGATORS, NUM_DISTRICTS, NUM_ELEMENTS, ON_DISPLAY
from pi_env.core.errors import PIError
from pi_env.encodings.bounds import FAILED_COUNT, TILE_SCALE
from pi_env.encodings.bounds import packed_int_scales as _encoding_int_scales
from pi_env.encodings.layouts import (INT_LAYOUT_VERSION, PACKED_COMPONENTS, PACKED_INT_COMPONENTS, packed_components,
                                      packed_int_components, packed_int_layout, packed_int_size, packed_int_unpacking,
                                      packed_layout, packed_size)
from pi_env.engine._kernels import CHUNK
from pi_env.engine.observe import decode_observation, player_array
from pi_env.engine.state import State
from pi_env.engine.writer import (NUM_COMPONENTS, _untracked, _write_bits, _write_investigators, _write_markers,
                                  _write_places)

__all__ = ["packed_layout", "packed_size", "write_packed", "packed_from_observation", "PackedWriter",
           "INT_LAYOUT_VERSION", "PACKED_INT_COMPONENTS", "packed_int_layout", "packed_int_size", "packed_int_unpacking",
           "PACKED_COMPONENTS", "INT_DTYPES", "write_packed_int", "PackedIntWriter", "packed_int_from_observation",
           "packed_from_int", "packed_int_scales"]

# The layouts, the unpacking table and the scales are the encodings package's (pi_env.encodings):
# one place for every encoding; this module writes them.
_layout = packed_components  # (name, start, size, shape) of every component, cached per player count
_int_layout = packed_int_components


@functools.lru_cache(maxsize=None)
def _offsets(num_players: int) -> np.ndarray:
    out = np.array([start for _, start, _, _ in _layout(num_players)], dtype=np.int64)
    out.flags.writeable = False
    return out


@rule_step
def _write_packed_rows(lo, hi, players, off, scale, fcount, out, caches, f_list, f_count, failed_words, s):
    """Write row ``b`` of ``out``, for every game ``b`` of ``lo <= b < hi`` with ``p = players[b] >= 0``:
    the packed encoding of player ``p`` (module docstring), touching only the entries that change (as :class:`~pi_env.engine.writer.ObservationWriter`).

    The row caches (``caches``: ``_RowCaches.arrays()``) say what row ``b`` holds (an all-zero row:
    ``c_td`` ``-1``, the rest 0 / ``-1``):
    ``c_td[b, x]`` the district written for tile ``x``; ``c_bits[b]`` 36-bit masks of display,
    discard, the held case and, per relative seat ``j``, front, spot, trace and the correct solve's
    elements (``3 + 4 j + k``); ``c_inv[b, j]`` the districts of seat ``j``'s investigators
    written (``-1`` unused); ``c_fn[b, j]`` the ``n`` of seat ``j``'s ``failed_share`` (0: all
    zero). ``f_list[b, q, :f_count[b, q]]``: player ``q``'s distinct failed triples this round
    (:class:`~pi_env.engine.writer.FailedSolves`); ``f_count[b, q]`` above ``L``: not tracked, the
    flags (``failed``, as ``uint64`` words ``failed_words``) are scanned. ``s``: the state
    (:data:`~pi_env.engine.state.GameArrays`).

    One call per range of games, not per row: a call passes every array as its fields, measured
    ~0.28 µs a call with these ~35 arrays (2 players, load 7), a quarter of a row's whole cost."""
    c_td, c_bits, c_inv, c_fn = caches
    (round_, first_player, current_player, rotation, tier, tile_district, case, card_place, deck_size, front, spot,
     trace, inv_count, inv_district, inv_answer, inv_suppressed, inv_left, attempted, solved, solved_case, failed,
     score) = (s.round, s.first_player, s.current_player, s.rotation, s.tier, s.tile_district, s.case, s.card_place,
               s.deck_size, s.front, s.spot, s.trace, s.inv_count, s.inv_district, s.inv_answer, s.inv_suppressed,
               s.inv_left, s.attempted, s.solved, s.solved_case, s.failed, s.score)
    for b in range(lo, hi):
        p = players[b]
        if p >= 0:
            P = case.shape[1]
            L = f_list.shape[2]
            W = failed_words.shape[2]
            o = out[b]
            zero = np.float32(0.0)
            one = np.float32(1.0)
            bits = c_bits[b]
            tiles = o[off[0]:off[0] + NUM_ELEMENTS]
            td, ctd = tile_district[b], c_td[b]
            for x in range(NUM_ELEMENTS):
                if ctd[x] != td[x]:
                    tiles[x] = np.float32(td[x]) * TILE_SCALE
                    ctd[x] = td[x]
            _write_places(o, off, scale, bits, card_place[b])
            h = (p + 1) % P  # the observer holds the case of the next player (docs/rules.md §3)
            m = _case_bits(np.int64(case[b, h, 0]) * 140 + np.int64(case[b, h, 1]) * 14 + np.int64(case[b, h, 2]))
            _write_bits(o[off[10]:off[10] + NUM_ELEMENTS], bits[2], m, scale[10])
            bits[2] = m
            for j in range(P):
                q = (p + j) % P
                _write_markers(o, off, scale, bits, 3 + 4 * j, b, q, j, front, spot, trace)
                c = np.int64(solved_case[b, q])
                m = _case_bits(c) if c >= 0 else np.uint64(0)
                _write_bits(o[off[11] + j * 36:off[11] + j * 36 + 36], bits[6 + 4 * j], m, scale[11])
                bits[6 + 4 * j] = m
                _write_investigators(o, off, scale, c_inv[b, j], b, q, j, inv_count, inv_district, inv_answer,
                                     inv_suppressed)
                # failed solves: how many, and how often each element was named
                share = o[off[13] + j * 36:off[13] + j * 36 + 36]
                n = 0
                if c_fn[b, j] != 0:
                    for x in range(NUM_ELEMENTS):
                        share[x] = zero
                if f_count[b, q] <= L:
                    for i in range(f_count[b, q]):
                        cc = np.int64(f_list[b, q, i])
                        share[cc // 140] += one
                        share[12 + (cc // 14) % 10] += one
                        share[22 + cc % 14] += one
                        n += 1
                elif attempted[b, q]:  # failed solves imply an attempt this round
                    words = failed_words[b, q]
                    flags = failed[b, q]
                    for w in range(W):
                        if words[w] != 0:
                            for cc in range(8 * w, 8 * w + 8):
                                if flags[cc]:
                                    share[cc // 140] += one
                                    share[12 + (cc // 14) % 10] += one
                                    share[22 + cc % 14] += one
                                    n += 1
                c_fn[b, j] = n
                o[off[12] + j] = fcount[n]
                if n > 1:
                    nf = np.float32(n)
                    for x in range(NUM_ELEMENTS):
                        share[x] = share[x] / nf
                o[off[14] + j] = np.float32(score[b, q]) * scale[13]
                o[off[15] + j] = scale[14] if attempted[b, q] else zero
                o[off[16] + j] = scale[15] if solved[b, q] else zero
                o[off[17] + j] = np.float32(inv_left[b, q]) * scale[16]
            o[off[18]] = np.float32(round_[b]) * scale[17]
            o[off[19]] = np.float32(tier[b]) * scale[18]
            o[off[20]] = np.float32(rotation[b]) * scale[19]
            o[off[21]] = np.float32((first_player[b] - p + P) % P) * scale[20]
            o[off[22]] = np.float32(deck_size[b]) * scale[21]
            o[off[23]] = np.float32((current_player[b] - p + P) % P) * scale[22]


@rule_step(inline=True)
def _case_bits(c):
    """The 36-bit mask of case ``c``'s three elements."""
    return ((np.uint64(1) << np.uint64(c // 140)) | (np.uint64(1) << np.uint64(12 + (c // 14) % 10))
            | (np.uint64(1) << np.uint64(22 + c % 14)))


@batch_kernel(family="observe")
def _packed_kernel(players, off, scale, fcount, out, caches, f_list, f_count, failed_words, s):
    """The packed encoding of player ``players[b]`` into ``out[b]`` for every game (rows with a
    negative player are left alone; row caches as ``_write_packed_rows``)."""
    n = out.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _write_packed_rows(c * CHUNK, min(n, c * CHUNK + CHUNK), players, off, scale, fcount, out, caches, f_list,
                           f_count, failed_words, s)


class _RowCaches:
    """What each row of a packed buffer holds (``_write_packed_rows``); fresh: all-zero rows."""

    def __init__(self, batch_size: int, num_players: int):
        B, P = batch_size, num_players
        self.td = np.full((B, NUM_ELEMENTS), -1, dtype=np.int8)
        self.bits = np.zeros((B, 3 + 4 * P), dtype=np.uint64)
        self.inv = np.full((B, P, MAX_INVESTIGATORS), -1, dtype=np.int8)
        self.fn = np.zeros((B, P), dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.td, self.bits, self.inv, self.fn


def _scales(scales: np.ndarray) -> np.ndarray:
    s = np.asarray(scales)
    if s.shape != (NUM_COMPONENTS,):
        raise PIError(f"scales must have one entry per observation component ({NUM_COMPONENTS}), got shape "
                      f"{s.shape}")
    return np.ascontiguousarray(s, dtype=np.float32)


def _state_args(s: State) -> tuple[Any, ...]:
    """The writer kernels' last two arguments: the failed-solve flags as ``uint64`` words, the state value."""
    return s.failed.view(np.uint64), s.kernel_value()


def write_packed(state: State, player: "int | np.ndarray", scales: np.ndarray, out: "np.ndarray | None" = None,
                 failed: "object | None" = None, parallel: "bool | None" = None) -> np.ndarray:
    """The packed encoding (module docstring) of ``player`` in every game of ``state`` (the stateless
    form of :class:`PackedWriter`).

    Args:
        state: ``B`` games of ``P`` players.
        player: one player for all games, or ``int[B]`` a player per game.
        scales: ``float32[23]``, one scale per observation component (module docstring).
        out: optional C-contiguous ``float32[B, packed_size(P)]`` buffer, overwritten entirely.
        failed: the caller's up-to-date :class:`~pi_env.engine.writer.FailedSolves` of ``state``
            (faster), else the failed-solve flags are scanned.
        parallel: threaded (``True``), serial (``False``) or by batch size (``None``, family
            ``"observe"``).

    Returns:
        ``float32[B, packed_size(P)]`` (``out`` if given).

    Raises:
        PIError: bad players, scales or ``out``.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> st = init(GameConfig(num_players=2), 3, seed=0)
        >>> write_packed(st, [0, 1, 0], np.ones(23, dtype=np.float32)).shape
        (3, 688)
    """
    B, P = state.batch_size, state.num_players
    players = player_array(state, player)
    D = packed_size(P)
    if out is None:
        out = np.zeros((B, D), dtype=np.float32)
    elif (not isinstance(out, np.ndarray) or out.shape != (B, D) or out.dtype != np.float32
          or not out.flags.c_contiguous):
        raise PIError(f"out must be a C-contiguous float32[{B}, {D}], got "
                      f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    else:
        out[:] = 0.0
    return _run(players, _scales(scales), out, _RowCaches(B, P), failed, parallel, state)


def _run(players, scales, out, caches, failed, parallel, state):
    B, P = state.batch_size, state.num_players
    lists = _untracked(B, P) if failed is None else (failed.list, failed.count)
    _packed_kernel.for_batch(B, parallel)(players, _offsets(P), scales, FAILED_COUNT, out, caches.arrays(), *lists,
                                          *_state_args(state))
    return out


class PackedWriter:
    """Fills the rows of a ``float32[B, packed_size(P)]`` buffer with packed encodings,
    incrementally (only the entries that change are written: only this writer may write to the
    buffer). What the fused self-play turn writes into; :func:`write_packed` is the stateless call.

    Args:
        batch_size: ``B``.
        num_players: ``P``.
        scales: ``float32[23]``, one per observation component.
        parallel: for :meth:`write` (as :func:`write_packed`).

    Attributes:
        buffer: ``float32[B, packed_size(P)]``, starts all zero.

    Raises:
        PIError: ``scales`` of the wrong length.
    """

    def __init__(self, batch_size: int, num_players: int, scales: np.ndarray, parallel: "bool | None" = None):
        self.batch_size, self.num_players = int(batch_size), int(num_players)
        self.size = packed_size(self.num_players)
        self.scales = _scales(scales)
        self.buffer = np.zeros((self.batch_size, self.size), dtype=np.float32)
        self._caches = _RowCaches(self.batch_size, self.num_players)
        self._parallel = parallel

    def kernel_args(self) -> tuple[Any, ...]:
        """``(offsets, scales, failed_count table, buffer, row caches)``: the row writer's arguments."""
        return (_offsets(self.num_players), self.scales, FAILED_COUNT, self.buffer, self._caches.arrays())

    def write(self, state: State, players: np.ndarray, failed: "object | None" = None) -> np.ndarray:
        """Write row ``b`` for player ``players[b]`` (``int64[B]``, C-contiguous, below ``P``;
        negative: leave the row) and return :attr:`buffer`. ``failed``: the caller's up-to-date
        :class:`~pi_env.engine.writer.FailedSolves` of ``state`` (faster), else the flags are scanned."""
        return _run(players, self.scales, self.buffer, self._caches, failed, self._parallel, state)


def packed_from_observation(observation: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The packed encoding computed from engine observations alone, in plain numpy: the reference
    :func:`write_packed` is tested against (bit for bit).

    Args:
        observation: ``int16[..., observation_size(P)]`` (:func:`pi_env.engine.observe`).
        scales: ``float32[23]``, one per observation component.

    Returns:
        ``float32[..., packed_size(P)]``.

    Raises:
        PIError: an observation length that is no player count's, bad scales.
    """
    from pi_env.engine.observe import observation_size

    obs = np.asarray(observation)
    sizes = {observation_size(P): P for P in range(2, 6)}
    if obs.ndim < 1 or obs.shape[-1] not in sizes:
        raise PIError(f"observation length {obs.shape[-1] if obs.ndim else None} is not that of 2..5 players")
    P = sizes[obs.shape[-1]]
    s = _scales(scales)
    lead = obs.shape[:-1]
    rows = obs.reshape(-1, obs.shape[-1])
    out = np.empty((rows.shape[0], packed_size(P)), dtype=np.float32)
    lay = packed_layout(P)
    comp = list(decode_observation(rows[0], P))  # the observation's component order (scales' index)

    def put(name: str, value: np.ndarray) -> None:
        start, shape = lay[name]
        n = int(np.prod(shape)) if shape else 1
        out[:, start:start + n] = np.asarray(value, dtype=np.float32).reshape(rows.shape[0], n)

    views = [decode_observation(r, P) for r in rows]

    def stack(name: str) -> np.ndarray:
        return np.stack([v[name] for v in views]) if views else np.zeros((0,), dtype=np.int16)

    tiles = stack("tiles")  # [N, 36, 14] one-hot
    put("tile_district", tiles.argmax(axis=-1).astype(np.float32) * TILE_SCALE)
    for name in ("display", "discard", "front", "spot", "trace", "inv_placed", "inv_spots", "inv_traces",
                 "inv_suppressed", "held_case", "solved_case", "score", "attempted", "solved", "inv_left", "round",
                 "tier", "rotation", "first_seat", "deck_size", "to_move"):
        put(name, stack(name).astype(np.float32) * s[comp.index(name)])
    failed = stack("failed").astype(bool).reshape(-1, P, 12, 10, 14)  # [N, P, suspect, evidence, location]
    n = failed.sum(axis=(2, 3, 4))
    put("failed_count", FAILED_COUNT[n])
    per = np.concatenate([failed.sum(axis=(3, 4)), failed.sum(axis=(2, 4)), failed.sum(axis=(2, 3))], axis=-1)
    share = per.astype(np.float32) / np.maximum(n, 1).astype(np.float32)[..., None]
    put("failed_share", share)
    return out.reshape(lead + (packed_size(P),))


# --- the integer rows --------------------------------------------------------------------------
INT_DTYPES: dict[str, np.dtype[Any]] = {"int8": np.dtype(np.int8), "int16": np.dtype(np.int16)}
"""The dtypes of the packed integer rows, by name (module docstring, "Integer rows")."""

@functools.lru_cache(maxsize=None)
def _int_offsets(num_players: int) -> np.ndarray:
    out = np.array([start for _, start, _, _ in _int_layout(num_players)], dtype=np.int64)
    out.flags.writeable = False
    return out


def _pack_wide(wide: np.ndarray, num_players: int) -> np.ndarray:
    """``int64[N, packed_int_size(P)]``: integer rows from ``int64[N, packed_size(P)]`` rows of the
    packed layout's integer values (bit fields put together, in plain numpy)."""
    src, shift, mask = packed_int_unpacking(num_players)
    out = np.zeros((packed_int_size(num_players), wide.shape[0]), dtype=np.int64)  # entries first
    np.add.at(out, src, np.where(mask == -1, wide, (wide & mask) << shift).T)
    return out.T


@rule_step
def _write_packed_int_rows(lo, hi, players, off, out, f_list, f_count, failed_words, s):
    """Write row ``b`` of ``out`` (``int8`` or ``int16``), for every game ``b`` of ``lo <= b < hi``
    with ``p = players[b] >= 0``: the integer row of player ``p`` (module docstring, "Integer
    rows", layout :data:`INT_LAYOUT_VERSION` 2), every entry written: no row caches, as a row is a
    few hundred bytes built from the state's own ``bool``/``int8`` arrays. ``f_list``/``f_count``
    as ``_write_packed_rows``; ``s``: the state (:data:`~pi_env.engine.state.GameArrays`).

    Written for the compiler: each block is a slice of the row indexed from 0 (an index ``start +
    x`` into the row costs a negative-index check per entry) and the 36-entry loops run to a
    trip count read from an array (a constant 36 was unrolled into byte-by-byte code; a runtime
    count is vectorized)."""
    (round_, first_player, current_player, rotation, tier, tile_district, case, card_place, deck_size, front, spot,
     trace, inv_count, inv_district, inv_answer, inv_suppressed, inv_left, attempted, solved, solved_case, failed,
     score) = (s.round, s.first_player, s.current_player, s.rotation, s.tier, s.tile_district, s.case, s.card_place,
               s.deck_size, s.front, s.spot, s.trace, s.inv_count, s.inv_district, s.inv_answer, s.inv_suppressed,
               s.inv_left, s.attempted, s.solved, s.solved_case, s.failed, s.score)
    E = tile_district.shape[1]  # NUM_ELEMENTS, as a runtime trip count (docstring)
    D = NUM_DISTRICTS
    L = f_list.shape[2]
    W = failed_words.shape[2]
    P = case.shape[1]
    for b in range(lo, hi):
        p = players[b]
        if p >= 0:
            o = out[b]
            td = tile_district[b]
            place = card_place[b]
            d0 = o[off[0]:off[0] + E]
            d1 = o[off[1]:off[1] + E]
            for x in range(E):
                d0[x] = td[x]
            for x in range(E):
                d1[x] = np.int8(place[x] == ON_DISPLAY) + 2 * np.int8(place[x] == IN_DISCARD)
            h = (p + 1) % P  # the observer holds the case of the next player (docs/rules.md §3)
            d1[case[b, h, 0]] += 4
            d1[12 + case[b, h, 1]] += 4
            d1[22 + case[b, h, 2]] += 4
            for j in range(P):
                q = (p + j) % P
                fr, sp, tr = front[b, q], spot[b, q], trace[b, q]
                m = o[off[2] + j * E:off[2] + j * E + E]
                for x in range(E):
                    m[x] = np.int8(fr[x]) + 2 * np.int8(sp[x]) + 4 * np.int8(tr[x])
                c = np.int64(solved_case[b, q])
                if c >= 0:
                    m[c // 140] += 8
                    m[12 + (c // 14) % 10] += 8
                    m[22 + c % 14] += 8
                inv = o[off[3] + j * D:off[3] + j * D + D]
                sup = o[off[4] + j * D:off[4] + j * D + D]
                for d in range(D):
                    inv[d] = 0
                for d in range(D):
                    sup[d] = 0
                for k in range(inv_count[b, q]):
                    d = np.int64(inv_district[b, q, k])
                    inv[d] = 1 + 2 * inv_answer[b, q, k, 0] + 8 * inv_answer[b, q, k, 1]
                    sup[d] = (np.int8(inv_suppressed[b, q, k, 0]) + 2 * np.int8(inv_suppressed[b, q, k, 1])
                              + 4 * np.int8(inv_suppressed[b, q, k, 2]))
                # failed solves: how many distinct triples, and how many of them name each element
                share = o[off[6] + j * E:off[6] + j * E + E]
                for x in range(E):
                    share[x] = 0
                n = 0
                if f_count[b, q] <= L:
                    fl = f_list[b, q]
                    for i in range(f_count[b, q]):
                        cc = np.int64(fl[i])
                        share[cc // 140] += 1
                        share[12 + (cc // 14) % 10] += 1
                        share[22 + cc % 14] += 1
                    n = f_count[b, q]
                elif attempted[b, q]:  # failed solves imply an attempt this round
                    words = failed_words[b, q]
                    flags = failed[b, q]
                    for w in range(W):
                        if words[w] != 0:
                            for cc in range(8 * w, 8 * w + 8):
                                if flags[cc]:
                                    share[cc // 140] += 1
                                    share[12 + (cc // 14) % 10] += 1
                                    share[22 + cc % 14] += 1
                                    n += 1
                o[off[5] + j] = n
                o[off[7] + j] = score[b, q]
                o[off[8] + j] = attempted[b, q]
                o[off[9] + j] = solved[b, q]
                o[off[10] + j] = inv_left[b, q]
            o[off[11]] = round_[b]
            o[off[12]] = tier[b]
            o[off[13]] = rotation[b]
            o[off[14]] = (first_player[b] - p + P) % P
            o[off[15]] = deck_size[b]
            o[off[16]] = (current_player[b] - p + P) % P


@batch_kernel(family="observe")
def _packed_int_kernel(players, off, out, f_list, f_count, failed_words, s):
    """The packed integer row of player ``players[b]`` into ``out[b]`` for every game (rows with a
    negative player are left alone)."""
    n = out.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _write_packed_int_rows(c * CHUNK, min(n, c * CHUNK + CHUNK), players, off, out, f_list, f_count,
                               failed_words, s)


def _int_dtype(dtype: Any) -> np.dtype[Any]:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in INT_DTYPES.values():
        raise PIError(f"dtype must be int8 or int16, got {dtype!r}")
    return dt


def write_packed_int(state: State, player: "int | np.ndarray", dtype: Any = np.int8,
                     out: "np.ndarray | None" = None, failed: Any = None,
                     parallel: "bool | None" = None) -> np.ndarray:
    """The packed integer rows (module docstring, "Integer rows") of ``player`` in every game of
    ``state``. The caller makes sure the game's values fit ``dtype``
    (:func:`pi_env.envs.encoders.packed_int_bounds`); a value that does not is wrapped around.

    Args:
        state: ``B`` games of ``P`` players.
        player: one player for all games, or ``int[B]`` a player per game.
        dtype: ``int8`` or ``int16``.
        out: optional C-contiguous ``dtype[B, packed_int_size(P)]`` buffer, overwritten entirely.
        failed: the caller's up-to-date :class:`~pi_env.engine.writer.FailedSolves` of ``state``
            (faster), else the failed-solve flags are scanned.
        parallel: threaded (``True``), serial (``False``) or by batch size (``None``, family
            ``"observe"``).

    Returns:
        ``dtype[B, packed_int_size(P)]`` (``out`` if given).

    Raises:
        PIError: bad players, dtype or ``out``.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> write_packed_int(init(GameConfig(num_players=2), 3, seed=0), [0, 1, 0]).dtype
        dtype('int8')
    """
    B, P = state.batch_size, state.num_players
    players = player_array(state, player)
    dt = _int_dtype(dtype)
    D = packed_int_size(P)
    if out is None:
        out = np.zeros((B, D), dtype=dt)
    elif (not isinstance(out, np.ndarray) or out.shape != (B, D) or out.dtype != dt or not out.flags.c_contiguous):
        raise PIError(f"out must be a C-contiguous {dt}[{B}, {D}], got "
                      f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    lists = _untracked(B, P) if failed is None else (failed.list, failed.count)
    _packed_int_kernel.for_batch(B, parallel)(players, _int_offsets(P), out, *lists, *_state_args(state))
    return out


class PackedIntWriter:
    """Fills the rows of a ``dtype[B, packed_int_size(P)]`` buffer with packed integer rows (module
    docstring, "Integer rows"): what the fused self-play turn writes into with
    ``observations="packed-int8"`` / ``"packed-int16"``; :func:`write_packed_int` is the call.

    Args:
        batch_size: ``B``.
        num_players: ``P``.
        dtype: ``int8`` or ``int16``.
        parallel: for :meth:`write` (as :func:`write_packed_int`).

    Attributes:
        buffer: ``dtype[B, packed_int_size(P)]``, starts all zero.

    Raises:
        PIError: another dtype.
    """

    def __init__(self, batch_size: int, num_players: int, dtype: Any = np.int8, parallel: "bool | None" = None):
        self.batch_size, self.num_players = int(batch_size), int(num_players)
        self.size = packed_int_size(self.num_players)
        self.dtype = _int_dtype(dtype)
        self.buffer: np.ndarray = np.zeros((self.batch_size, self.size), dtype=self.dtype)
        self._parallel = parallel

    def kernel_args(self) -> tuple[np.ndarray, ...]:
        """``(offsets, buffer)``: the row writer's arguments."""
        return (_int_offsets(self.num_players), self.buffer)

    def write(self, state: State, players: np.ndarray, failed: Any = None) -> np.ndarray:
        """Write row ``b`` for player ``players[b]`` (``int64[B]``, C-contiguous, below ``P``;
        negative: leave the row) and return :attr:`buffer`. ``failed`` as :meth:`PackedWriter.write`."""
        lists = (_untracked(self.batch_size, self.num_players) if failed is None
                 else (failed.list, failed.count))
        _packed_int_kernel.for_batch(self.batch_size, self._parallel)(
            players, _int_offsets(self.num_players), self.buffer, *lists, *_state_args(state))
        return self.buffer


def packed_int_scales(num_players: int, scales: np.ndarray) -> np.ndarray:
    """``float32[packed_size(P)]``: per entry of the *packed* layout, what the integer value
    unpacked from an integer row (:func:`packed_from_int`) is multiplied by to give the packed
    (``float32``) entry: ``TILE_SCALE`` for ``tile_district``, the observation component's scale
    (``scales``, ``float32[23]``) for the others, 0 for ``failed_count`` and ``failed_share``
    (those follow from the counts). Read-only (:func:`pi_env.encodings.packed_int_scales`).

    Raises:
        PIError: ``scales`` of the wrong length.
    """
    return _encoding_int_scales(int(num_players), _scales(scales))


def packed_from_int(rows: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The packed ``float32`` rows of integer rows: equal bit for bit to what :func:`write_packed`
    writes for the same players (module docstring, "Integer rows"; tested).

    Each packed entry's integer is unpacked (:func:`packed_int_unpacking`) and multiplied by
    :func:`packed_int_scales` (in ``float32``), except ``failed_count`` (``FAILED_COUNT[n]``) and
    ``failed_share`` (the count divided by ``max(n, 1)``, in ``float32``).

    Args:
        rows: ``int8`` or ``int16[..., packed_int_size(P)]`` (any signed integer dtype).
        scales: ``float32[23]``, one per observation component (the flat encoding's:
            :func:`pi_env.envs.encoders.float_from_packed_int` passes them).

    Returns:
        ``float32[..., packed_size(P)]``.

    Raises:
        PIError: a row length that is no player count's, bad scales.
    """
    x = np.asarray(rows)
    sizes = {packed_int_size(P): P for P in range(2, 6)}
    if x.ndim < 1 or x.shape[-1] not in sizes or not np.issubdtype(x.dtype, np.integer):
        raise PIError(f"rows must be integer rows of length {sorted(sizes)} (2..5 players), got "
                      f"{x.dtype}{list(x.shape)}")
    P = sizes[x.shape[-1]]
    src, shift, mask = packed_int_unpacking(P)
    v = (x[..., src].astype(np.int64) >> shift) & mask
    out = v.astype(np.float32) * packed_int_scales(P, scales)
    lay = packed_layout(P)
    fc, _ = lay["failed_count"]
    fs, _ = lay["failed_share"]
    n = v[..., fc:fc + P]
    out[..., fc:fc + P] = FAILED_COUNT[n]
    share = v[..., fs:fs + 36 * P].astype(np.float32).reshape(x.shape[:-1] + (P, 36))
    out[..., fs:fs + 36 * P] = (share / np.maximum(n, 1).astype(np.float32)[..., None]).reshape(
        x.shape[:-1] + (36 * P,))
    return out


def packed_int_from_observation(observation: np.ndarray, dtype: Any = np.int8) -> np.ndarray:
    """The integer rows computed from engine observations alone, in plain numpy: the reference
    :func:`write_packed_int` is tested against (the packed layout's integer values, then their bit
    fields put together).

    Args:
        observation: ``int16[..., observation_size(P)]`` (:func:`pi_env.engine.observe`).
        dtype: ``int8`` or ``int16`` (values are cast: the caller checks that they fit).

    Returns:
        ``dtype[..., packed_int_size(P)]``.

    Raises:
        PIError: an observation length that is no player count's, a bad dtype.
    """
    from pi_env.engine.observe import observation_size

    dt = _int_dtype(dtype)
    obs = np.asarray(observation)
    sizes = {observation_size(P): P for P in range(2, 6)}
    if obs.ndim < 1 or obs.shape[-1] not in sizes:
        raise PIError(f"observation length {obs.shape[-1] if obs.ndim else None} is not that of 2..5 players")
    P = sizes[obs.shape[-1]]
    lead = obs.shape[:-1]
    rows = obs.reshape(-1, obs.shape[-1])
    out = np.empty((rows.shape[0], packed_size(P)), dtype=np.int64)
    lay = packed_layout(P)

    def put(name: str, value: np.ndarray) -> None:
        start, shape = lay[name]
        n = int(np.prod(shape)) if shape else 1
        out[:, start:start + n] = np.asarray(value, dtype=np.int64).reshape(rows.shape[0], n)

    views = [decode_observation(r, P) for r in rows]

    def stack(name: str) -> np.ndarray:
        return np.stack([v[name] for v in views]) if views else np.zeros((0,), dtype=np.int16)

    put("tile_district", stack("tiles").argmax(axis=-1))
    for name in ("display", "discard", "front", "spot", "trace", "inv_placed", "inv_spots", "inv_traces",
                 "inv_suppressed", "held_case", "solved_case", "score", "attempted", "solved", "inv_left", "round",
                 "tier", "rotation", "first_seat", "deck_size", "to_move"):
        put(name, stack(name))
    failed = stack("failed").astype(bool).reshape(-1, P, 12, 10, 14)
    put("failed_count", failed.sum(axis=(2, 3, 4)))
    put("failed_share", np.concatenate([failed.sum(axis=(3, 4)), failed.sum(axis=(2, 4)), failed.sum(axis=(2, 3))],
                                       axis=-1))
    return _pack_wide(out, P).astype(dt).reshape(lead + (packed_int_size(P),))
