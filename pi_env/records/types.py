"""Typed, validated form of a ``pi-record/1`` game record (RECORD.md).

:func:`pi_env.records.record_file.load_record` turns the JSON document into these objects; every name is
already resolved to an id (see :mod:`pi_env.core.constants` for the id layouts), so the engine, the
solver and the CLI never parse names again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_env.core.board import Board

CLUE, INVESTIGATE, SOLVE = "clue", "investigate", "solve"


@dataclass(frozen=True)
class Rules:
    """``rules`` of a record. ``edition`` is ``"second"`` or ``"first"``; ``mode`` ``"standard"``,
    ``"duel"`` or ``"solo"``; ``variants`` a tuple of ``"fast"``/``"nick-of-time"``;
    ``investigators`` the starting tiles per player (RULES.md §1, §6)."""

    edition: str = "second"
    mode: str = "standard"
    players: int = 4
    rounds: int = 3
    variants: tuple[str, ...] = ()
    investigators: tuple[int, ...] = (5, 5, 5, 5)


@dataclass(frozen=True)
class Event:
    """One turn (RULES.md §4) with its observed answer.

    Attributes:
        index: position in the round's ``events`` list (0-based), used in error messages.
        player: acting player (0..n-1).
        kind: ``"clue"``, ``"investigate"`` or ``"solve"``.
        element: clue element id 0..35 (clue only, else -1).
        answer: clue answer 0 nothing / 1 trace / 2 spot (clue only, else -1).
        district: investigated district 0..13 (investigate only, else -1).
        spots, traces: investigator counts (investigate only, else -1).
        suppressed: for an investigation, per type (suspect, evidence, location) whether the
            suppression rule of RULES.md §4.2 applied (the player already had a marker on that
            type's tile in the district), derived from the earlier events; ``(False,)*3`` otherwise.
        case: solve triple as a case id 0..1679 (solve only, else -1).
        correct: solve outcome (solve only, else ``None``).
    """

    index: int
    player: int
    kind: str
    element: int = -1
    answer: int = -1
    district: int = -1
    spots: int = -1
    traces: int = -1
    suppressed: tuple[bool, bool, bool] = (False, False, False)
    case: int = -1
    correct: bool | None = None


@dataclass(frozen=True)
class RoundRecord:
    """One round of a record.

    Attributes:
        first_player: the round's first player.
        tile_district: ``tuple[int, ...]`` of length 36: the district (0..13) of each element's
            tile (locations: their own district).
        cases: player → its case as a case id, for the cases the writer knew (RECORD.md ``cases``).
        display: the clue cards face up at the start (element ids), or ``None``.
        events: the turns in order.
    """

    first_player: int
    tile_district: tuple[int, ...]
    cases: dict[int, int] = field(default_factory=dict)
    display: tuple[int, ...] | None = None
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    """A whole record: rules, board, optional player names and rounds.

    ``seed``, ``max_rotations`` and ``max_rounds`` come from the optional ``engine`` object that
    pi-env writes (``{"seed": int, "max_rotations": int, "max_rounds": int}``, a pi-env extension of
    RECORD.md): with them a replay re-runs the engine and reproduces every state exactly (deck order
    and reshuffles included). ``max_rounds`` is the duel's safeguard (``GameConfig.max_rounds``),
    present only in duel records (``None`` otherwise, and in duel records that do not give it).
    """

    rules: Rules
    board: Board
    rounds: tuple[RoundRecord, ...]
    player_names: tuple[str, ...] | None = None
    seed: int | None = None
    max_rotations: int | None = None
    max_rounds: int | None = None
