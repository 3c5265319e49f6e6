"""Observation encoders for learning agents (docs/rules.md §9): what one player may see, as ``float32``.

The **flat** encoding (:func:`encode_flat`, :class:`FlatEncoder`), built only from the player's
engine observation (:func:`pi_env.engine.observe`), which holds everything public plus the case the
player holds and never its own case: the engine observation with every entry scaled to about
``[0, 1]``; same length and the same component offsets (:func:`flat_layout` =
:func:`pi_env.engine.observation_layout`), so :func:`pi_env.engine.decode_observation` splits it into
named views too. The solver-augmented encoding (flat + exact case marginals) is
:mod:`pi_env.solvers.features`. What each encoding looks like (layouts, sizes, bounds, scales,
versions) is :mod:`pi_env.encodings`'s, registered there by name; this module fills the rows.

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

Speed: :class:`FlatEncoder` is the engine's :class:`pi_env.engine.writer.ObservationWriter` with
these scales: it fills a preallocated buffer with a numba kernel (``prange`` over games) and writes
only the entries that change, so a row costs well under a microsecond although it has
``618 + 1912 * P`` entries; the 1680 failed-solve flags per player are not even read when the
caller keeps :class:`FailedSolves` up to date (the self-play env does). Its rows are therefore
valid only as long as nothing else writes to the buffer (the encoder hands out read-only views).
:func:`encode_flat` is the stateless form (a fresh, zeroed output). This module holds no rule
code: what a player sees is the engine's.

The encoding contains nothing from which the player's own case follows other than the
answers to it (``tests/test_encoders.py`` checks two games that differ only in that case).

Packed encoding
---------------

``float32[150 + 269 * P]`` (2 players: 688): the flat encoding with the one-hot tiles replaced by
each tile's district index and the ``P × 1680`` failed-solve flags by a count and per-element shares
(:mod:`pi_env.engine.packed` documents every entry; the other components and their scales are the
flat encoding's). :func:`encode_packed`, :class:`PackedEncoder`, :func:`packed_bounds`; the
self-play env returns it with ``observations="packed"``.

Packed integer rows
-------------------

``int8[78 + 105 * P]`` or ``int16[...]`` (2 players: 288): the packed encoding before its scales, its
0/1 and 0..3 components in bit fields (:mod:`pi_env.engine.packed`, "Integer rows", layout
``INT_LAYOUT_VERSION`` 2, lists every entry and its value range).
:func:`float_from_packed_int` turns them into the packed ``float32`` rows, bit for bit;
:func:`packed_int_bounds` gives every entry's range for a game, :func:`check_packed_int` whether a
dtype holds them (``int8``: every second-edition and duel game with ``max_rotations <= 127``;
``int16``: every game). :func:`encode_packed_int`, :class:`PackedIntEncoder`; the self-play env
returns them with ``observations="packed-int8"`` / ``"packed-int16"``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import numpy as np

from pi_env.core.constants import NUM_CASES
from pi_env.core.errors import PIError
from pi_env.encodings import (component_scales, flat_bounds, flat_scales, observation_layout, observation_size,
                              packed_bounds, packed_int_bounds, packed_int_layout, packed_int_scales, packed_int_size,
                              packed_layout, packed_size)
from pi_env.engine import GameConfig, State, check_config
from pi_env.engine.observe import player_array
from pi_env.engine.packed import INT_DTYPES, PackedIntWriter, PackedWriter, packed_from_int, write_packed, write_packed_int
from pi_env.engine.writer import FailedSolves, ObservationWriter, observe_scaled

__all__ = ["flat_size", "flat_layout", "flat_scales", "flat_bounds", "encode_flat",
           "encode_flat_reference", "FlatEncoder", "FailedSolves", "check_config", "players_array",
           "packed_size", "packed_layout", "packed_bounds", "encode_packed", "PackedEncoder", "packed_int_bounds",
           "check_packed_int", "encode_packed_int", "PackedIntEncoder", "float_from_packed_int", "int_row_scales"]

players_array = player_array  # the engine's, under the name this module has always exported


def flat_size(num_players: int) -> int:
    """Length of the flat encoding: ``618 + 1912 * num_players`` (that of the engine observation)."""
    return observation_size(num_players)


def flat_layout(num_players: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    """Offsets and shapes of the flat encoding's components: ``name -> (start, shape)``
    (:func:`pi_env.encodings.observation_layout`)."""
    return observation_layout(num_players)


# The flat encoding's scales and bounds and the packed encodings' bounds are the encodings
# package's (pi_env.encodings: flat_scales, flat_bounds, packed_bounds, packed_int_bounds), exported
# here as always; _component_scales is what the engine's writers take.
_component_scales = component_scales


def encode_flat_reference(observation: np.ndarray, config: GameConfig) -> np.ndarray:
    """The flat encoding of engine observations (``int16[..., D]``), plain numpy: the slow
    reference :func:`encode_flat` is tested against."""
    return np.asarray(observation).astype(np.float32) * flat_scales(config)


_Writer = TypeVar("_Writer", ObservationWriter, PackedWriter, PackedIntWriter)


class _RowEncoder(Generic[_Writer]):
    """What :class:`FlatEncoder`, :class:`PackedEncoder` and :class:`PackedIntEncoder` share: the
    engine's writer that fills the ``float32[B, ...]`` (integer rows: ``int8``/``int16``)
    :attr:`buffer`, whose first ``size`` columns are the encoding, and the read-only view of those
    columns that ``encode`` returns (copies keep the buffer, the writer's one object, and rebuild
    the view of it)."""

    def __init__(self, config: GameConfig, size: int, writer: _Writer):
        self.config, self.batch_size, self.size = config, writer.batch_size, size
        self._writer: _Writer = writer
        self.buffer: np.ndarray = writer.buffer
        self._make_view()

    def _make_view(self) -> None:
        self._view = self.buffer[:, :self.size].view()
        self._view.flags.writeable = False

    def __getstate__(self) -> dict[str, Any]:
        saved = dict(self.__dict__)
        del saved["_view"]
        return saved

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._make_view()

    @property
    def writer(self) -> _Writer:
        """The engine's writer that fills :attr:`buffer` (for fused calls that write the rows, such
        as the self-play turn)."""
        return self._writer

    @property
    def view(self) -> np.ndarray:
        """The read-only ``float32[B, size]`` view of the buffer that ``encode`` returns."""
        return self._view


class FlatEncoder(_RowEncoder[ObservationWriter]):
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
        super().__init__(config, flat_size(P), ObservationWriter(int(batch_size), P, _component_scales(config),
                                                                 extra_columns, parallel=parallel))

    def encode(self, state: State, player: "int | np.ndarray", check: bool = True,
               failed: "FailedSolves | None" = None) -> np.ndarray:
        """Encode row ``b`` for player ``player[b]`` (an int: the same player in every game;
        a negative entry leaves that row as it was). ``failed``: the caller's up-to-date
        :class:`FailedSolves` of ``state`` (faster), else the flags are scanned.

        Returns:
            A read-only ``float32[B, D]`` view of the buffer, overwritten by the next call.

        Raises:
            PIError: (``check``) a state of another shape, or bad players.
        """
        self._writer.write(state, player, failed, check)
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
    check_config(state, config)
    return observe_scaled(state, player, _component_scales(config), out)


def encode_packed(state: State, config: GameConfig, player: "int | np.ndarray",
                  out: np.ndarray | None = None) -> np.ndarray:
    """The packed encoding (:mod:`pi_env.engine.packed`) of ``player`` in every game of ``state``,
    with the flat encoding's scales.

    Args:
        state: a batch of ``B`` games.
        config: its rules (for the scales).
        player: one player for all games, or ``int[B]`` a player per game.
        out: optional C-contiguous ``float32[B, packed_size(P)]`` buffer; it is overwritten entirely.

    Returns:
        ``float32[B, packed_size(P)]`` (``out`` if given).

    Raises:
        PIError: a player out of range or of the wrong shape, a ``config`` for another player
            count, or a wrong ``out``.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> encode_packed(init(cfg, 3, seed=0), cfg, [0, 1, 0]).shape
        (3, 688)
    """
    check_config(state, config)
    return write_packed(state, player_array(state, player), _component_scales(config), out)


class PackedEncoder(_RowEncoder[PackedWriter]):
    """Fills a preallocated ``float32[B, packed_size(P)]`` buffer with packed encodings (the
    counterpart of :class:`FlatEncoder`; each row is rewritten whole).

    Args:
        config: the batch's rules (player count and scales).
        batch_size: ``B``.
        parallel: threaded (``True``), serial (``False``) or as :mod:`pi_env.core._config` decides
            for ``batch_size`` (``None``).
    """

    def __init__(self, config: GameConfig, batch_size: int, parallel: bool | None = None):
        P = config.num_players
        super().__init__(config, packed_size(P),
                         PackedWriter(int(batch_size), P, _component_scales(config), parallel=parallel))

    def encode(self, state: State, player: "int | np.ndarray", check: bool = True,
               failed: "FailedSolves | None" = None) -> np.ndarray:
        """Encode row ``b`` for player ``player[b]`` (negative: leave the row); ``failed``: the
        caller's up-to-date :class:`FailedSolves` of ``state`` (faster), else the flags are
        scanned. Returns the read-only view, overwritten by the next call.

        Raises:
            PIError: (``check``) a state of another shape, or bad players.
        """
        if check:
            if state.batch_size != self.batch_size or state.num_players != self.config.num_players:
                raise PIError(f"state has B={state.batch_size}, P={state.num_players}; the encoder was built "
                              f"for B={self.batch_size}, P={self.config.num_players}")
            player = player_array(state, player)
        self._writer.write(state, np.asarray(player, dtype=np.int64), failed)
        return self._view


def check_packed_int(config: GameConfig, dtype: Any) -> np.dtype[Any]:
    """The dtype (``"int8"`` or ``"int16"``) if it holds every value of :func:`packed_int_bounds`.

    Raises:
        PIError: another dtype, or one that cannot hold a value of this game (naming the first
            component of the integer rows and its range).
    """
    name = str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype
    if name not in INT_DTYPES:
        raise PIError(f"dtype must be int8 or int16, got {dtype!r}")
    dt = INT_DTYPES[name]
    info = np.iinfo(dt)
    low, high = packed_int_bounds(config)
    for comp, (start, shape) in packed_int_layout(config.num_players).items():
        n = int(np.prod(shape)) if shape else 1
        lo, hi = int(low[start:start + n].min()), int(high[start:start + n].max())
        if lo < info.min or hi > info.max:
            raise PIError(f"{name} cannot hold {comp} of this game ({lo}..{hi}); use int16 or the float32 "
                          f"packed rows")
    return dt


def encode_packed_int(state: State, config: GameConfig, player: "int | np.ndarray", dtype: str = "int8",
                      out: np.ndarray | None = None) -> np.ndarray:
    """The packed integer rows (:mod:`pi_env.engine.packed`, "Integer rows") of ``player`` in
    every game of ``state``: ``float_from_packed_int(rows, config)`` equals
    :func:`encode_packed` bit for bit.

    Args:
        state: a batch of ``B`` games.
        config: its rules.
        player: one player for all games, or ``int[B]`` a player per game.
        dtype: ``"int8"`` or ``"int16"``.
        out: optional C-contiguous ``dtype[B, packed_int_size(P)]`` buffer; overwritten entirely.

    Returns:
        ``dtype[B, packed_int_size(P)]`` (``out`` if given).

    Raises:
        PIError: a dtype that cannot hold this game's values (:func:`check_packed_int`), a bad
            player, a ``config`` for another player count, a wrong ``out``.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> encode_packed_int(init(cfg, 3, seed=0), cfg, [0, 1, 0]).shape
        (3, 288)
    """
    check_config(state, config)
    dt = check_packed_int(config, dtype)
    return write_packed_int(state, player_array(state, player), dt, out)


def int_row_scales(config: GameConfig) -> np.ndarray:
    """``float32[packed_size(P)]`` (read-only): what each packed entry's integer, unpacked from an
    integer row of a game with ``config`` (:func:`pi_env.engine.packed.packed_int_unpacking`), is
    multiplied by to give the packed ``float32`` entry, 0 for ``failed_count`` and
    ``failed_share`` (:func:`pi_env.engine.packed.packed_int_scales` with the flat encoding's scales)."""
    return packed_int_scales(config.num_players, component_scales(config))


def float_from_packed_int(rows: np.ndarray, config: GameConfig) -> np.ndarray:
    """``float32[..., packed_size(P)]``: the packed encoding of packed integer rows (``int8`` or
    ``int16[..., packed_int_size(P)]``) of a game with ``config``, equal to :func:`encode_packed` bit
    for bit (:func:`pi_env.engine.packed.packed_from_int` with the flat encoding's scales).

    Raises:
        PIError: rows of another length than ``packed_int_size(config.num_players)`` (rows of another
            player count included), a non-integer dtype, a ``failed_count`` outside ``0..1680``.
    """
    x = np.asarray(rows)
    size = packed_int_size(config.num_players)
    if x.ndim >= 1 and x.shape[-1] != size and np.issubdtype(x.dtype, np.integer):
        raise PIError(f"rows must be integer rows of length {size} "
                      f"({config.num_players} players), got {x.dtype}{list(x.shape)}")
    if x.ndim >= 1 and x.shape[-1] == size and np.issubdtype(x.dtype, np.integer):
        fc = packed_int_layout(config.num_players)["failed_count"][0]
        n = x[..., fc:fc + config.num_players]
        if n.size and (int(n.min()) < 0 or int(n.max()) > NUM_CASES):
            raise PIError(f"rows hold a failed_count of {int(n.min())}..{int(n.max())}; a count of distinct wrong "
                          f"triples is 0..{NUM_CASES} (not integer rows of this encoding?)")
    return packed_from_int(x, _component_scales(config))


class PackedIntEncoder(_RowEncoder[PackedIntWriter]):
    """Fills a preallocated ``int8[B, packed_int_size(P)]`` (or ``int16``) buffer with packed integer
    rows (the counterpart of :class:`PackedEncoder`).

    Args:
        config: the batch's rules.
        batch_size: ``B``.
        dtype: ``"int8"`` or ``"int16"``.
        parallel: threaded (``True``), serial (``False``) or as :mod:`pi_env.core._config` decides
            for ``batch_size`` (``None``).

    Raises:
        PIError: a dtype that cannot hold this game's values (:func:`check_packed_int`).
    """

    def __init__(self, config: GameConfig, batch_size: int, dtype: str = "int8", parallel: bool | None = None):
        P = config.num_players
        super().__init__(config, packed_int_size(P),
                         PackedIntWriter(int(batch_size), P, check_packed_int(config, dtype), parallel=parallel))

    def encode(self, state: State, player: "int | np.ndarray", check: bool = True,
               failed: "FailedSolves | None" = None) -> np.ndarray:
        """As :meth:`PackedEncoder.encode`, into the integer buffer."""
        if check:
            if state.batch_size != self.batch_size or state.num_players != self.config.num_players:
                raise PIError(f"state has B={state.batch_size}, P={state.num_players}; the encoder was built "
                              f"for B={self.batch_size}, P={self.config.num_players}")
            player = player_array(state, player)
        self._writer.write(state, np.asarray(player, dtype=np.int64), failed)
        return self._view
