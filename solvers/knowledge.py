"""What one player knows in one round, as arrays (docs/rules.md §9).

A :class:`Knowledge` holds the public information of a round (layout, adjacency, every answer) plus
the one private fact of the asking player ``player``: the case it holds, which is the case of
``player + 1`` (mod n). It never contains any other case, so everything computed from it is
information-safe for ``player``.

Events are rows of ``events`` (``int32[E, 7]``), columns:

=============  ============================================================================
``COL_INDEX``  the event's index in the round (for error messages and contradiction reports)
``COL_PLAYER`` acting player 0..n-1
``COL_KIND``   ``CLUE``, ``INVESTIGATE``, ``SOLVE_FAILED`` or ``SOLVE_CORRECT``
``COL_A``      clue element 0..35 / investigated district 0..13 / solve case 0..1679
``COL_B``      clue answer 0 nothing, 1 trace, 2 spot / investigation spots
``COL_C``      investigation traces (else 0)
``COL_SUP``    investigation suppression mask (bit t set: type t suppressed, docs/rules.md §4.2)
=============  ============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.constants import MAX_PLAYERS, MIN_PLAYERS, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, Event, RoundRecord

from pi_env.solvers.tables import AnswerTables, cached_answer_tables

COL_INDEX, COL_PLAYER, COL_KIND, COL_A, COL_B, COL_C, COL_SUP = range(7)
NUM_COLS = 7
CLUE_KIND, INVESTIGATE_KIND, SOLVE_FAILED, SOLVE_CORRECT = 0, 1, 2, 3
KIND_NAMES = ("clue", "investigate", "failed solve", "correct solve")


@dataclass(frozen=True, eq=False)
class Knowledge:
    """Public information of a round plus the case ``player`` holds.

    Attributes:
        player: the asking player p.
        n_players: number of players (2..5).
        tile_district: ``int8[36]`` district of each element's tile (read-only).
        adjacency: ``bool[14, 14]`` (read-only).
        held_case: case id of player ``(p + 1) % n`` (which p holds), or ``-1`` if not given
            (then that player is treated like any other unknown player).
        events: ``int32[E, 7]`` event table (see the module docstring), in play order.
        names: the 36 element names of the board in id order
            (:func:`pi_env.core.names.element_names`), for answers that print names; ``None``: the
            daytime board's.
    """

    player: int
    n_players: int
    tile_district: np.ndarray = field(repr=False)
    adjacency: np.ndarray = field(repr=False)
    held_case: int = -1
    events: np.ndarray = field(default_factory=lambda: np.zeros((0, NUM_COLS), np.int32), repr=False)
    names: tuple[str, ...] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        td = np.array(self.tile_district, dtype=np.int8).reshape(-1)
        adj = np.array(self.adjacency, dtype=bool)
        ev = np.array(self.events, dtype=np.int32).reshape(-1, NUM_COLS)
        if td.shape != (NUM_ELEMENTS,) or td.min() < 0 or td.max() >= NUM_DISTRICTS:
            raise PIError("tile_district must be 36 districts in 0..13")
        if adj.shape != (NUM_DISTRICTS, NUM_DISTRICTS) or not np.array_equal(adj, adj.T) or adj.diagonal().any():
            raise PIError("adjacency must be a symmetric bool[14, 14] with a False diagonal")
        if not MIN_PLAYERS <= self.n_players <= MAX_PLAYERS:
            raise PIError(f"n_players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.n_players}")
        if not 0 <= self.player < self.n_players:
            raise PIError(f"player must be in 0..{self.n_players - 1}, got {self.player}")
        if not -1 <= self.held_case < NUM_CASES:
            raise PIError(f"held_case must be -1 or a case id 0..1679, got {self.held_case}")
        _check_events(ev, self.n_players)
        if self.names is not None:
            if len(self.names) != NUM_ELEMENTS or not all(isinstance(x, str) for x in self.names):
                raise PIError("names must be the 36 element names in id order")
            object.__setattr__(self, "names", tuple(self.names))
        for arr in (td, adj, ev):
            arr.flags.writeable = False
        object.__setattr__(self, "tile_district", td)
        object.__setattr__(self, "adjacency", adj)
        object.__setattr__(self, "events", ev)

    @property
    def held_player(self) -> int:
        """The player whose case ``player`` holds: ``(player + 1) % n_players``."""
        return (self.player + 1) % self.n_players

    @cached_property
    def tables(self) -> AnswerTables:
        """Answer tables of the layout (:func:`pi_env.solvers.tables.answer_tables`)."""
        return cached_answer_tables(self.tile_district.tobytes(), self.adjacency.tobytes())

    def events_of(self, q: int) -> np.ndarray:
        """Rows of ``events`` acted by player ``q``."""
        return self.events[self.events[:, COL_PLAYER] == q]

    def with_events(self, rows: np.ndarray) -> "Knowledge":
        """A copy with ``rows`` (``int[k, 7]``) appended; shares the cached layout tables."""
        rows = np.asarray(rows, dtype=np.int32).reshape(-1, NUM_COLS)
        return self._derived(self.player, self.held_case, np.concatenate([self.events, rows]))

    def prefix(self, n_events: int) -> "Knowledge":
        """A copy with only the first ``n_events`` rows; shares the cached layout tables."""
        return self._derived(self.player, self.held_case, self.events[:n_events])

    def for_player(self, player: int, held_case: int) -> "Knowledge":
        """The same public information seen by another player holding ``held_case``."""
        return self._derived(player, held_case, self.events)

    def _derived(self, player: int, held_case: int, events: np.ndarray) -> "Knowledge":
        new = Knowledge(player, self.n_players, self.tile_district, self.adjacency, held_case, events,
                        self.names)
        for key in _LAYOUT_CACHES:
            if key in self.__dict__:
                new.__dict__[key] = self.__dict__[key]
        return new


_LAYOUT_CACHES = ("tables", "_layout_bits")  # per-layout caches stored in a Knowledge's __dict__


def _check_events(ev: np.ndarray, n: int) -> None:
    for row in ev:
        idx, q, kind, a, b, c, sup = (int(v) for v in row)
        bad = None
        if not 0 <= q < n:
            bad = f"player {q} not in 0..{n - 1}"
        elif kind == CLUE_KIND:
            if not (0 <= a < NUM_ELEMENTS and 0 <= b <= 2):
                bad = f"clue needs element 0..35 and answer 0..2, got {a}, {b}"
        elif kind == INVESTIGATE_KIND:
            if not (0 <= a < NUM_DISTRICTS and b >= 0 and c >= 0 and 0 <= sup < 8):
                bad = f"investigation needs district 0..13, counts >= 0, suppression mask 0..7, got {a}, {b}, {c}, {sup}"
        elif kind in (SOLVE_FAILED, SOLVE_CORRECT):
            if not 0 <= a < NUM_CASES:
                bad = f"solve needs a case id 0..1679, got {a}"
        else:
            bad = f"unknown event kind {kind}"
        if bad:
            raise PIError(f"event {idx}: {bad}")


def event_row(event: Event) -> np.ndarray:
    """The ``int32[7]`` row of a record :class:`~pi_env.records.types.Event`.

    Raises:
        PIError: unknown event kind.
    """
    if event.kind == CLUE:
        vals = (CLUE_KIND, event.element, event.answer, 0, 0)
    elif event.kind == INVESTIGATE:
        sup = sum(1 << t for t, s in enumerate(event.suppressed) if s)
        vals = (INVESTIGATE_KIND, event.district, event.spots, event.traces, sup)
    elif event.kind == SOLVE:
        vals = (SOLVE_CORRECT if event.correct else SOLVE_FAILED, event.case, 0, 0, 0)
    else:
        raise PIError(f"event {event.index}: unknown kind {event.kind!r}")
    return np.array((event.index, event.player) + vals, dtype=np.int32)


def event_rows(events: Iterable[Event]) -> np.ndarray:
    """``int32[E, 7]`` table of record events."""
    rows = [event_row(e) for e in events]
    return np.array(rows, dtype=np.int32).reshape(-1, NUM_COLS)


def knowledge_from_round(round_record: RoundRecord, player: int, n_players: int, adjacency: np.ndarray,
                         after_event: int | None = None, names: tuple[str, ...] | None = None) -> Knowledge:
    """What ``player`` knows in a recorded round (docs/rules.md §9).

    Reads only the public part of the round and ``round_record.cases[(player + 1) % n_players]``
    (the case ``player`` holds) — never any other case. An answer the record declares incorrect
    (an ``incorrect`` event anywhere in the round, :meth:`RoundRecord.declared_incorrect`) is left
    out at every position, as are the declarations themselves: they are not answers.

    Args:
        round_record: the round.
        player: the asking player p.
        n_players: number of players.
        adjacency: ``bool[14, 14]`` of the record's board.
        after_event: include the events with ``index <= after_event`` (``-1``: none; ``None``: all).
        names: the board's 36 element names (``Knowledge.names``).

    Raises:
        PIError: bad player or malformed events.
    """
    if not 0 <= player < n_players:
        raise PIError(f"player must be in 0..{n_players - 1}, got {player}")
    held = round_record.cases.get((player + 1) % n_players, -1)
    wrong = round_record.declared_incorrect()
    events = [e for e in round_record.events if (after_event is None or e.index <= after_event)
              and e.is_turn and e.index not in wrong]
    return Knowledge(player, n_players, np.array(round_record.tile_district, dtype=np.int8),
                     np.asarray(adjacency, dtype=bool), int(held), event_rows(events), names)
