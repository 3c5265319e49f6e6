"""Observation encoders for learning agents (docs/rules.md §9): what one player may see, as ``float32``.

The **flat** encoding (:func:`encode_flat`, :class:`FlatEncoder`), built only from the player's
engine observation (:func:`pi_env.engine.observe`), which holds everything public plus the case the
player holds and never its own case: the engine observation with every entry scaled to about
``[0, 1]``; same length and the same component offsets (:func:`flat_layout` =
:func:`pi_env.engine.observation_layout`), so :func:`pi_env.engine.decode_observation` splits it into
named views too. The solver-augmented encoding (flat + exact case marginals) is
:mod:`pi_env.solvers.features`.

Flat encoding
-------------

``float32[618 + 1912 * P]``. Per-player blocks are in *relative seat* order: seat ``j`` is player
``(p + j) % P`` (seat 0 the observer, seat 1 the player whose case it holds). Entry ``k`` is
``observation[k] * scale(k)``, where the scale of a component is:

=================  ==============  ===========================  ================================
name               shape           scale                        values
=================  ==============  ===========================  ================================
tiles              [36, 14]        1                            one-hot district of each tile
display            [36]            1                            0/1
discard            [36]            1                            0/1
front              [P, 36]         1                            0/1
spot               [P, 36]         1                            0/1
trace              [P, 36]         1                            0/1
inv_placed         [P, 14]         1                            0/1
inv_spots          [P, 14]         1/3                          0..1
inv_traces         [P, 14]         1/3                          0..1
inv_suppressed     [P, 14, 3]      1                            0/1
held_case          [36]            1                            0/1 (3 ones)
solved_case        [P, 36]         1                            0/1
failed             [P, 1680]       1                            0/1
score              [P]             1/21 (duel: 1/num_rounds)    2nd ed. −5/21..1; 1st ed. may
                                                                leave [−1, 1]; duel 0..≈1
attempted          [P]             1                            0/1
solved             [P]             1                            0/1
inv_left           [P]             1/5                          0..1
round              [1]             1/num_rounds                 0..1 (a tied duel goes beyond)
tier               [1]             1/P                          0..1
rotation           [1]             1/max_rotations              0..1
first_seat         [1]             1/(P−1)                      0..1
deck_size          [1]             1/36                         0..1
to_move            [1]             1/(P−1)                      0..1
=================  ==============  ===========================  ================================

The scales are exact ``float32`` constants (:func:`flat_scales`): ``encode_flat`` equals
``observe(...).astype(float32) * flat_scales(config)`` bit for bit (tested).

Speed: :class:`FlatEncoder` fills a preallocated buffer with a numba kernel (``prange`` over games)
and writes only the entries that change, so a row costs well under a microsecond although it has
``618 + 1912 * P`` entries: per row it remembers what the row holds (tile districts, the 36-bit
masks of display, discard and every seat's markers and front cards, the held case, the named
correct cases, the investigators' districts and the failed-block entries it set) and writes the
differences; only the few scalars are always rewritten. The 1680 failed-solve flags per player are
not even read when the caller keeps :class:`FailedSolves` up to date (the self-play env does).
Its rows are therefore valid only as long as nothing else writes to the buffer (the encoder hands
out read-only views). :func:`encode_flat` is the stateless form (a fresh, zeroed output).

The encoding contains nothing from which the player's own case follows other than the
answers to it (``tests/test_encoders.py`` checks two games that differ only in that case).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, kernel
from pi_env.core.constants import IN_DISCARD, MAX_INVESTIGATORS, NUM_CASES, NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE
from pi_env.engine.observe import _offsets, observation_layout, observation_size, observe
from pi_env.engine.state import GameConfig, State
from pi_env.core.errors import PIError

__all__ = ["flat_size", "flat_layout", "flat_scales", "flat_bounds", "encode_flat",
           "encode_flat_reference", "FlatEncoder", "FailedSolves", "check_config", "players_array"]

_COMPONENT_NAMES = tuple(observation_layout(2))
_CACHE_POSITIONS = 64  # failed-block entries a FlatEncoder row remembers; beyond: full clear


def flat_size(num_players: int) -> int:
    """Length of the flat encoding: ``618 + 1912 * num_players`` (that of the engine observation)."""
    return observation_size(num_players)


def flat_layout(num_players: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    """Offsets and shapes of the flat encoding's components: ``name -> (start, shape)``."""
    return observation_layout(num_players)


def _component_scales(config: GameConfig) -> np.ndarray:
    """``float32[23]``: the scale of each component, in layout order (module docstring table)."""
    return _scales(config.num_players, config.num_rounds, config.is_duel, config.max_rotations)[0]


def flat_scales(config: GameConfig) -> np.ndarray:
    """``float32[flat_size(P)]``: the scale of every entry (read-only)."""
    return _scales(config.num_players, config.num_rounds, config.is_duel, config.max_rotations)[1]


@functools.lru_cache(maxsize=64)
def _scales(P: int, num_rounds: int, duel: bool, max_rotations: int) -> tuple[np.ndarray, np.ndarray]:
    score = 1.0 / num_rounds if duel else 1.0 / 21.0
    special = {"inv_spots": 1 / 3, "inv_traces": 1 / 3, "score": score, "inv_left": 1 / 5,
               "round": 1.0 / num_rounds, "tier": 1.0 / P, "rotation": 1.0 / max_rotations,
               "first_seat": 1.0 / (P - 1), "deck_size": 1 / 36, "to_move": 1.0 / (P - 1)}
    comp = np.array([special.get(name, 1.0) for name in _COMPONENT_NAMES], dtype=np.float32)
    entries = np.empty(observation_size(P), dtype=np.float32)
    for c, (start, shape) in enumerate(observation_layout(P).values()):
        entries[start:start + (int(np.prod(shape)) if shape else 1)] = comp[c]
    comp.flags.writeable = False
    entries.flags.writeable = False
    return comp, entries


def flat_bounds(config: GameConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` ``float32`` bounds of the flat encoding (the engine observation's
    bounds, :func:`pi_env.envs.aec.observation_bounds`, times the scales)."""
    from pi_env.envs.aec import observation_bounds

    low, high = observation_bounds(config)
    s = flat_scales(config)
    return low.astype(np.float32) * s, high.astype(np.float32) * s


def encode_flat_reference(observation: np.ndarray, config: GameConfig) -> np.ndarray:
    """The flat encoding of engine observations (``int16[..., D]``), plain numpy: the slow
    reference :func:`encode_flat` is tested against."""
    return np.asarray(observation).astype(np.float32) * flat_scales(config)


@kernel
def _bits36(flags):
    """The 36 flags ``flags[0..35]`` as the low bits of a ``uint64``."""
    m = np.uint64(0)
    for x in range(NUM_ELEMENTS):
        m |= np.uint64(flags[x]) << np.uint64(x)
    return m


@kernel
def _write_bits(dst, old, new):
    """Store the flags ``new`` (36 bits) into ``dst[0..35]``, which holds ``old``: only the
    entries that differ are written."""
    diff = old ^ new
    if diff != 0:
        for x in range(NUM_ELEMENTS):
            if (diff >> np.uint64(x)) & np.uint64(1):
                dst[x] = np.float32((new >> np.uint64(x)) & np.uint64(1))


@batch_kernel
def _flat_kernel(players, off, scale, out, c_td, c_fpos, c_fn, c_bits, c_held, c_solved, c_inv,
                 f_list, f_count, round_, first_player, current_player, rotation, tier, tile_district, case,
                 card_place, deck_size, front, spot, trace, inv_count, inv_district, inv_answer,
                 inv_suppressed, inv_left, attempted, solved, solved_case, failed, failed_words,
                 score):
    """Write the flat encoding of player ``players[b]`` into ``out[b]`` (rows with a negative
    player are left alone), touching only the entries that change.

    The row caches say what row ``b`` holds now (all "empty" for an all-zero row):
    ``c_td[b, x]`` the district of tile ``x`` (``-1`` none); ``c_fpos[b, :c_fn[b]]`` the failed-block
    entries set to 1 (``c_fn[b] > K``: too many to remember, clear the whole block);
    ``c_bits[b]`` 36-bit masks of display, discard and, per relative seat, front, spot, trace;
    ``c_held[b]`` the held case's 3 elements (``-1`` none); ``c_solved[b, j]`` seat ``j``'s named
    correct case (``-1`` none); ``c_inv[b, j]`` the districts of seat ``j``'s investigators
    (``-1`` unused). Scalars are always written.

    ``f_list[b, q, :f_count[b, q]]`` are player ``q``'s failed solves this round when the caller
    tracks them (:class:`FailedSolves`); ``f_count[b, q] > L`` means "not tracked": the kernel
    scans ``failed`` (the 1680 flags, as ``uint64`` words) instead.
    """
    P = case.shape[1]
    K = c_fpos.shape[1]
    nf = P * NUM_CASES
    W = failed_words.shape[2]
    L = f_list.shape[2]
    for b in prange(out.shape[0]):
        p = players[b]
        if p < 0:
            continue
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
                tiles[x * 14 + d] = 1.0
                ctd[x] = d
        place = card_place[b]
        m_disp = np.uint64(0)
        m_disc = np.uint64(0)
        for x in range(NUM_ELEMENTS):
            m_disp |= np.uint64(place[x] == ON_DISPLAY) << np.uint64(x)
            m_disc |= np.uint64(place[x] == IN_DISCARD) << np.uint64(x)
        _write_bits(o[off[1]:off[1] + NUM_ELEMENTS], bits[0], m_disp)
        _write_bits(o[off[2]:off[2] + NUM_ELEMENTS], bits[1], m_disc)
        bits[0] = m_disp
        bits[1] = m_disc
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
            for kind in range(3):
                src = front[b, q] if kind == 0 else (spot[b, q] if kind == 1 else trace[b, q])
                m = _bits36(src)
                start = off[3 + kind] + j * 36
                _write_bits(o[start:start + 36], bits[2 + 3 * j + kind], m)
                bits[2 + 3 * j + kind] = m
            # investigators: clear the districts written before, write the current ones
            placed = o[off[6] + j * 14:off[6] + j * 14 + 14]
            spots = o[off[7] + j * 14:off[7] + j * 14 + 14]
            traces = o[off[8] + j * 14:off[8] + j * 14 + 14]
            sup = o[off[9] + j * 42:off[9] + j * 42 + 42]
            ci = c_inv[b, j]
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
                placed[d] = 1.0
                spots[d] = np.float32(inv_answer[b, q, k, 0]) * scale[7]
                traces[d] = np.float32(inv_answer[b, q, k, 1]) * scale[8]
                for t in range(3):
                    sup[d * 3 + t] = inv_suppressed[b, q, k, t]
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
                    named[c // 140] = 1.0
                    named[12 + (c // 14) % 10] = 1.0
                    named[22 + c % 14] = 1.0
                c_solved[b, j] = c
            if f_count[b, q] <= L:
                base = j * NUM_CASES
                for i in range(f_count[b, q]):
                    k = base + np.int64(f_list[b, q, i])
                    fail[k] = 1.0
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
                                    fail[k] = 1.0
                                    if n < K:
                                        pos[n] = k
                                    n += 1
            o[off[13] + j] = np.float32(score[b, q]) * scale[13]
            o[off[14] + j] = attempted[b, q]
            o[off[15] + j] = solved[b, q]
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
            held[e0] = 1.0
            held[e1] = 1.0
            held[e2] = 1.0
            ch[0], ch[1], ch[2] = e0, e1, e2
        o[off[17]] = np.float32(round_[b]) * scale[17]
        o[off[18]] = np.float32(tier[b]) * scale[18]
        o[off[19]] = np.float32(rotation[b]) * scale[19]
        o[off[20]] = np.float32((first_player[b] - p + P) % P) * scale[20]
        o[off[21]] = np.float32(deck_size[b]) * scale[21]
        o[off[22]] = np.float32((current_player[b] - p + P) % P) * scale[22]


@batch_kernel
def _track_failed_kernel(active, f_list, f_count, f_round, done, round_, last_action, last_answer,
                         last_player):
    """After an engine step of every active game: forget the failed solves when a new round was
    set up, then add the step's wrong solve (if it was one) to its player's list."""
    L = f_list.shape[2]
    P = f_list.shape[1]
    for b in prange(active.shape[0]):
        if not active[b]:
            continue
        if round_[b] != f_round[b]:
            f_round[b] = round_[b]
            if not done[b]:  # the step ended the round and the engine set up a new one (a
                for q in range(P):  # finished game keeps its last round's flags)
                    f_count[b, q] = 0
                continue
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


class FailedSolves:
    """Per game and player, the failed solve triples of the current round, kept up to date from
    the engine's ``last_action`` / ``last_answer`` after every step, so that :class:`FlatEncoder`
    need not scan the 1680 flags per player (the scan reads most of the state's bytes).

    Call :meth:`reset` for new games and :meth:`after_step` after every engine step (with the
    games that were stepped); a stepped game must not be skipped, or its list goes stale.

    Args:
        batch_size: ``B``.
        num_players: ``P``.
        length: triples remembered per player; beyond, the encoder scans that player's flags.
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

    def after_step(self, stepped: np.ndarray, state: State) -> None:
        """Record the last step of every game in ``stepped`` (``bool[B]``)."""
        self._kernel(stepped, self.list, self.count, self.round, state.done, state.round,
                     state.last_action, state.last_answer, state.last_player)


class _RowCaches:
    """What each row of a flat-encoding buffer holds (see ``_flat_kernel``); fresh: all-zero rows."""

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


def _state_args(s: State) -> tuple[np.ndarray, ...]:
    return (s.round, s.first_player, s.current_player, s.rotation, s.tier, s.tile_district, s.case,
            s.card_place, s.deck_size, s.front, s.spot, s.trace, s.inv_count, s.inv_district,
            s.inv_answer, s.inv_suppressed, s.inv_left, s.attempted, s.solved, s.solved_case,
            s.failed, s.failed.view(np.uint64), s.score)


def check_config(state: State, config: GameConfig) -> None:
    if state.num_players != config.num_players:
        raise PIError(f"config is for {config.num_players} players but the state has {state.num_players}")


def players_array(state: State, player: "int | np.ndarray") -> np.ndarray:
    B, P = state.batch_size, state.num_players
    if isinstance(player, (int, np.integer)):
        if not 0 <= player < P:
            raise PIError(f"player must be 0..{P - 1}, got {player!r}")
        return np.full(B, player, dtype=np.int64)
    arr = np.asarray(player)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != B) or not np.issubdtype(arr.dtype, np.integer):
        raise PIError(f"player must be an integer or int[{B}] (one per game), got "
                      f"{arr.dtype}[{', '.join(map(str, arr.shape))}]")
    players = np.ascontiguousarray(np.broadcast_to(arr.astype(np.int64), (B,)))
    if players.size and (players.min() < 0 or players.max() >= P):
        raise PIError(f"player must be 0..{P - 1}, got {player!r}")
    return players


class FlatEncoder:
    """Fills a preallocated ``float32[B, D]`` buffer with flat encodings, incrementally.

    Args:
        config: the batch's rules (player count and scales).
        batch_size: ``B``.
        extra_columns: columns reserved after the ``D`` flat ones (left zero by this encoder), for
            encodings that append features (the buffer is ``float32[B, D + extra_columns]``).
        parallel: run the kernel threaded (``True``), serially (``False``), or as
            :mod:`pi_env.core._config` decides for ``batch_size`` (``None``, default).

    Attributes:
        buffer: the ``float32[B, D + extra_columns]`` buffer (writable: only this encoder and the
            owner of the extra columns may write to it).

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> enc = FlatEncoder(cfg, 3)
        >>> enc.encode(init(cfg, 3, seed=0), [0, 1, 0]).shape
        (3, 4442)
    """

    def __init__(self, config: GameConfig, batch_size: int, extra_columns: int = 0,
                 parallel: bool | None = None):
        P = config.num_players
        self.config, self.batch_size, self.size = config, int(batch_size), flat_size(P)
        self.buffer = np.zeros((self.batch_size, self.size + extra_columns), dtype=np.float32)
        self._flat = self.buffer[:, :self.size]
        self._scale = _component_scales(config)
        self._offsets = _offsets(P)
        self._caches = _RowCaches(self.batch_size, P)
        self._no_lists = _untracked(self.batch_size, P)
        self._kernel = (_flat_kernel.for_batch(self.batch_size) if parallel is None
                        else _flat_kernel.parallel if parallel else _flat_kernel.serial)
        self._view = self._flat.view()
        self._view.flags.writeable = False

    def encode(self, state: State, player: "int | np.ndarray", check: bool = True,
               failed: "FailedSolves | None" = None) -> np.ndarray:
        """Encode row ``b`` for player ``player[b]`` (an int: the same player in every game;
        a negative entry leaves that row as it was). ``failed``: the caller's up-to-date
        :class:`FailedSolves` of ``state`` (faster), else the flags are scanned.

        Returns:
            A read-only ``float32[B, D]`` view of the buffer, overwritten by the next call.
        """
        if check:
            if state.batch_size != self.batch_size or state.num_players != self.config.num_players:
                raise PIError(f"state has B={state.batch_size}, P={state.num_players}; the encoder "
                              f"was built for B={self.batch_size}, P={self.config.num_players}")
            players = (players_array(state, player) if isinstance(player, (int, np.integer))
                       else np.ascontiguousarray(player, dtype=np.int64))
            if players.shape != (self.batch_size,) or players.max(initial=-1) >= state.num_players:
                raise PIError(f"player must be int[{self.batch_size}] with entries < {state.num_players}")
        else:
            players = player
        lists = self._no_lists if failed is None else (failed.list, failed.count)
        self._kernel(players, self._offsets, self._scale, self._flat, *self._caches.arrays(),
                     *lists, *_state_args(state))
        return self._view


def encode_flat(state: State, config: GameConfig, player: "int | np.ndarray",
                out: np.ndarray | None = None) -> np.ndarray:
    """The flat encoding (module docstring) of ``player`` in every game of ``state``.

    Args:
        state: a batch of ``B`` games.
        config: its rules (for the scales).
        player: one player for all games, or ``int[B]`` a player per game.
        out: optional ``float32[B, D]`` buffer; it is overwritten entirely.

    Returns:
        ``float32[B, flat_size(P)]`` (``out`` if given).

    Raises:
        PIError: a player out of range or of the wrong shape, a ``config`` for another player
            count, or a wrong ``out``.

    Example:
        >>> from pi_env.engine import GameConfig, init, observe
        >>> cfg = GameConfig(num_players=3)
        >>> st = init(cfg, 2, seed=1)
        >>> bool((encode_flat(st, cfg, 1) == encode_flat_reference(observe(st, 1), cfg)).all())
        True
    """
    B, P = state.batch_size, state.num_players
    check_config(state, config)
    players = players_array(state, player)
    D = flat_size(P)
    if out is None:
        out = np.zeros((B, D), dtype=np.float32)
    else:
        if out.shape != (B, D) or out.dtype != np.float32:
            raise PIError(f"out must be float32[{B}, {D}], got {out.dtype}[{', '.join(map(str, out.shape))}]")
        out[:] = 0.0
    _flat_kernel.for_batch(B)(players, _offsets(P), _component_scales(config), out,
                              *_RowCaches(B, P, 1).arrays(), *_untracked(B, P), *_state_args(state))
    return out
