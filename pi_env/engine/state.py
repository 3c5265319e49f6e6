"""Game configuration and the batched game state (docs/rules.md §1–§7).

Every array of :class:`State` has a leading batch axis ``B``; a single game is ``B == 1``.
``P`` is the number of players, fixed for a batch by :class:`GameConfig`. Player ``i`` must solve
``case[:, i]``; it *holds* (and answers for) player ``i+1``'s case (docs/rules.md §3).

Terminal behaviour (docs/contributing.md §C3): once ``done[b]`` is set, stepping game ``b`` changes nothing and
gives zero rewards; its legal-action mask is all ones.

Duel (docs/rules.md §7, ``GameConfig.mode == "duel"``): ``score`` counts the rounds each player has
won; there are no points, so ``solve_points`` and ``penalty`` stay 0. ``rewards`` are +1 / −1 to the
round's winner / loser at the step that decides the round (0 to both for a draw), plus, at the step
that ends the game, +1 / −1 to the game's winner / loser (so a step can give ±2); a duel still tied
after ``GameConfig.max_rounds`` rounds ends with ``truncated`` set and no game reward.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple

import numpy as np

from pi_env.core.board import DAYTIME, Board, board_json, load_board
from pi_env.core.constants import (DEFAULT_MAX_ROTATIONS, DEFAULT_ROUNDS, EDITION_NAMES, MAX_INVESTIGATORS,
                         MAX_PLAYERS, MIN_PLAYERS, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS)
from pi_env.core.errors import BoardError, ConfigError
from pi_env.core.rules import DUEL_START_INVESTIGATORS  # docs/rules.md §7
from pi_env.engine.arrays import BatchArrays

VARIANTS = ("fast", "nick-of-time")
"""Rule variants of docs/rules.md §6 (beginner friendly is ``GameConfig.investigators``)."""
MODES = ("standard", "duel")
"""Game modes the engine plays: ``"standard"`` (docs/rules.md §3–§5) and ``"duel"`` (§7)."""
DEFAULT_MAX_ROUNDS = 9
"""Duel safeguard: a duel still tied after this many rounds ends drawn (and truncated)."""
MAX_ROUNDS_LIMIT = 100

# bits of GameConfig.rules_code, the rules word the step kernel takes
RULES_FIRST_EDITION = 1
RULES_NICK_OF_TIME = 2
RULES_DUEL = 4
RULES_MAX_ROUNDS_SHIFT = 8


MAX_ROTATIONS_LIMIT = 1000
"""Largest safeguard accepted: keeps ``rotation`` and first-edition scores (at most 2 penalty points
per rotation and round) well inside their ``int16`` range."""


@dataclass(frozen=True, init=False)
class GameConfig:
    """Rules options of a batch of games (docs/rules.md §5, §6, §7).

    Attributes:
        num_players: 2..5; default 4 (2 in duel mode, which needs exactly 2).
        edition: ``"second"`` (default) or ``"first"`` (first edition / Board Game Arena scoring).
            It changes nothing in a duel (no points; rounds end by the duel rule).
        variants: any of ``"fast"`` (2 rounds instead of 3; a fast duel has 2 regular rounds) and
            ``"nick-of-time"`` (docs/rules.md §6: after the first solve of a round the tier advances at
            the end of every rotation; the rotation played at the last tier, ``min(3, P - 2)``,
            ends the round). Nick of time does not combine with a duel.
        investigators: starting investigator tiles per player (default 5 each; duel: 2 each).
            Different counts per player are the *beginner friendly* variant (docs/rules.md §6).
        max_rotations: safeguard of docs/rules.md §5: a round ends after this many rotations (in a duel
            that round is a draw).
        board: the board graph (default the published daytime board).
        mode: ``"standard"`` (default) or ``"duel"`` (docs/rules.md §7).
        max_rounds: duel safeguard: a duel still tied after this many rounds ends drawn, with
            ``State.truncated`` set (default 9; at least ``num_rounds``). Unused in standard games.

    Raises:
        ConfigError: (a ``PIError`` whose ``option`` names the argument at fault) bad player count
            (a duel needs exactly 2), unknown edition, mode or variant, a variant given twice, nick
            of time in a duel, wrong-length or out-of-range investigator counts, non-positive
            ``max_rotations``, ``max_rounds`` out of range.
    """

    num_players: int
    edition: str
    variants: tuple[str, ...]
    investigators: tuple[int, ...]
    max_rotations: int
    board: Board = field(repr=False)
    mode: str
    max_rounds: int

    def __init__(self, num_players: int | None = None, edition: str = "second", variants: Sequence[str] = (),
                 investigators: Sequence[int] | None = None, max_rotations: int = DEFAULT_MAX_ROTATIONS,
                 board: Board = DAYTIME, mode: str = "standard", max_rounds: int = DEFAULT_MAX_ROUNDS) -> None:
        """The arguments as given (``None``: the default of the mode); :meth:`__post_init__` checks
        them and stores the resolved values, so every attribute has its documented type."""
        given = dict(num_players=num_players, edition=edition, variants=variants, investigators=investigators,
                     max_rotations=max_rotations, board=board, mode=mode, max_rounds=max_rounds)
        for name, value in given.items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            extra = " (solo time attack is not played by the batched engine)" if self.mode == "solo" else ""
            raise ConfigError("mode", f"mode must be one of {MODES}, got {self.mode!r}{extra}")
        duel = self.mode == "duel"
        if self.num_players is None:
            object.__setattr__(self, "num_players", 2 if duel else 4)
        if (not isinstance(self.num_players, (int, np.integer)) or isinstance(self.num_players, bool)
                or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS):
            raise ConfigError("num_players", f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.num_players!r}")
        object.__setattr__(self, "num_players", int(self.num_players))
        if duel and self.num_players != 2:
            raise ConfigError("num_players", f"a duel is played by exactly 2 players (docs/rules.md §7), "
                              f"got {self.num_players} players")
        if self.edition not in EDITION_NAMES:
            raise ConfigError("edition", f"edition must be one of {EDITION_NAMES}, got {self.edition!r}")
        if isinstance(self.variants, str):
            raise ConfigError("variants", f"variants must be a sequence of variant names, got the string {self.variants!r}")
        object.__setattr__(self, "variants", tuple(self.variants))
        for v in self.variants:
            if v not in VARIANTS:
                raise ConfigError("variants", f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
        if len(set(self.variants)) != len(self.variants):
            raise ConfigError("variants", f"variants lists a variant twice: {self.variants}")
        if duel and "nick-of-time" in self.variants:
            raise ConfigError("variants", "variant 'nick-of-time' does not apply to a duel (the first solve attempt "
                          "decides a duel round, docs/rules.md §7)")
        inv = self.investigators
        if inv is None:
            inv = ((DUEL_START_INVESTIGATORS if duel else MAX_INVESTIGATORS),) * self.num_players
        try:
            inv = tuple(inv)
        except TypeError:
            raise ConfigError("investigators", f"investigators must list one count per player, got {inv!r}") from None
        if len(inv) != self.num_players:
            raise ConfigError("investigators", f"investigators gives {len(inv)} counts for {self.num_players} players (one per player)")
        if any(not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not 0 <= i <= MAX_INVESTIGATORS
               for i in inv):
            raise ConfigError("investigators", f"investigator counts must be integers 0..{MAX_INVESTIGATORS}, got {inv}")
        object.__setattr__(self, "investigators", tuple(int(i) for i in inv))
        if (not isinstance(self.max_rotations, (int, np.integer)) or isinstance(self.max_rotations, bool)
                or not 1 <= self.max_rotations <= MAX_ROTATIONS_LIMIT):
            raise ConfigError("max_rotations", f"max_rotations must be an integer 1..{MAX_ROTATIONS_LIMIT}, "
                          f"got {self.max_rotations!r}")
        mr = self.max_rounds
        if (not isinstance(mr, (int, np.integer)) or isinstance(mr, bool)
                or not self.num_rounds <= mr <= MAX_ROUNDS_LIMIT):
            raise ConfigError("max_rounds", f"max_rounds must be an integer {self.num_rounds}..{MAX_ROUNDS_LIMIT} "
                          f"(at least the {self.num_rounds} regular rounds), got {mr!r}")
        object.__setattr__(self, "max_rounds", int(mr))

    def to_json(self) -> dict[str, Any]:
        """The rules as JSON values, the ``rules`` object of a saved position (docs/positions.md)::

            {"mode": "standard", "players": 4, "edition": "second", "variants": [],
             "investigators": [5, 5, 5, 5], "max_rotations": 60, "max_rounds": 9, "board": "daytime"}

        ``board`` is a bundled board's name, else the board object of docs/record-format.md.
        ``GameConfig.from_json(c.to_json()) == c``.
        """
        return {"mode": self.mode, "players": self.num_players, "edition": self.edition,
                "variants": list(self.variants), "investigators": list(self.investigators),
                "max_rotations": self.max_rotations, "max_rounds": self.max_rounds,
                "board": board_json(self.board)}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "GameConfig":
        """The rules of :meth:`to_json`'s object; a key left out takes its default (``players``:
        4, or 2 in a duel).

        Raises:
            ConfigError: ``doc`` is not an object, has a key :meth:`to_json` does not write, a value of
                the wrong JSON type (the message names the key), or rules :class:`GameConfig`
                refuses.
        """
        if not isinstance(doc, Mapping):
            raise ConfigError("rules", f"rules must be a JSON object, got {type(doc).__name__}")
        for key, value in doc.items():
            if key not in _JSON_TYPES:
                raise ConfigError(str(key), f"unknown rules key {key!r}; known: {', '.join(_JSON_TYPES)}")
            kind, what = _JSON_TYPES[key]
            if not _json_is(value, kind):
                raise ConfigError(_JSON_OPTION.get(key, key), f"{key} must be {what}, got {value!r}")
        try:
            board = load_board(doc.get("board", "daytime"))
        except BoardError as exc:
            raise ConfigError("board", f"board: {exc}") from None
        given: dict[str, Any] = {_JSON_OPTION.get(k, k): (tuple(v) if isinstance(v, list) else v)
                                 for k, v in doc.items() if k != "board"}
        return cls(board=board, **given)

    @property
    def num_rounds(self) -> int:
        """3, or 2 with the fast-game variant (docs/rules.md §6). In a duel: the regular rounds, after
        which tied duels go on (see :attr:`round_limit`)."""
        return 2 if "fast" in self.variants else DEFAULT_ROUNDS

    @property
    def round_limit(self) -> int:
        """The most rounds a game can last: ``num_rounds``, or ``max_rounds`` in a duel."""
        return self.max_rounds if self.is_duel else self.num_rounds

    @property
    def is_duel(self) -> bool:
        return self.mode == "duel"

    @property
    def nick_of_time(self) -> bool:
        return "nick-of-time" in self.variants

    @property
    def rules_code(self) -> int:
        """The rules word the step kernel takes: bit 0 first edition, bit 1 nick of time,
        bit 2 duel, bits 8.. ``max_rounds``."""
        return (self.edition_index | RULES_NICK_OF_TIME * self.nick_of_time | RULES_DUEL * self.is_duel
                | (self.max_rounds << RULES_MAX_ROUNDS_SHIFT))

    @property
    def edition_index(self) -> int:
        """0 for the second edition, 1 for the first."""
        return EDITION_NAMES.index(self.edition)


_JSON_TYPES = {"mode": ("str", "a string"), "players": ("int", "an integer"), "edition": ("str", "a string"),
               "variants": ("strs", "a list of strings"), "investigators": ("ints", "a list of integers"),
               "max_rotations": ("int", "an integer"), "max_rounds": ("int", "an integer"),
               "board": ("board", "a bundled board's name or a board object")}
"""The keys of :meth:`GameConfig.to_json` and their JSON types."""
_JSON_OPTION = {"players": "num_players"}
"""The :class:`GameConfig` argument of a JSON key that is named otherwise."""


def _json_is(value: Any, kind: str) -> bool:
    def integer(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    return {"str": lambda: isinstance(value, str), "int": lambda: integer(value),
            "strs": lambda: isinstance(value, list) and all(isinstance(v, str) for v in value),
            "ints": lambda: isinstance(value, list) and all(integer(v) for v in value),
            "board": lambda: isinstance(value, (str, dict))}[kind]()


@dataclass(eq=False)  # BatchArrays.__eq__: exact equality of every array
class State(BatchArrays):
    """Batched state of ``B`` games. Index layouts are those of :mod:`pi_env.core.constants`.

    Public information (docs/rules.md §9) is everything except ``case`` (hidden: each player sees only
    the case it holds), ``deck``/``deck_size`` order and ``rng``.

    Fields (shape, dtype):
        rng: ``[B] uint64`` per-game xorshift64 state; all chance (layout, deal, deck, reshuffle)
            is drawn from it, so a game is a pure function of its seed and actions.
        round: ``[B] int8`` current round, 0-based.
        first_player: ``[B] int8`` the round's first player.
        current_player: ``[B] int8`` the player to act.
        rotation: ``[B] int16`` rotations completed in this round.
        tier: ``[B] int8`` current tier (docs/rules.md §5): rotations of this round with a solve (nick of
            time, §6: after the first solve, every rotation; at most ``min(3, P - 2)``).
        solved_this_rotation: ``[B] bool``.
        done: ``[B] bool`` the game is over.
        truncated: ``[B] bool`` some round was ended by the rotation-limit safeguard (in a duel
            also: the duel was still tied after ``max_rounds`` rounds).
        turn: ``[B] int32`` turns taken in the game.
        tile_district: ``[B, 36] int8`` district of each element's tile (locations: their own).
        district_tile: ``[B, 14, 3] int8`` element id of the suspect / evidence / location tile in
            each district, ``-1`` for a blank.
        case: ``[B, P, 3] int8`` type-local (suspect, evidence, location) of each player's case. HIDDEN.
        card_place: ``[B, 36] int8`` IN_DECK / ON_DISPLAY / IN_DISCARD / IN_FRONT per clue card.
        deck: ``[B, 36] int8`` deck order; the top card is ``deck[b, deck_size[b] - 1]``. HIDDEN.
        deck_size: ``[B] int8``.
        front: ``[B, P, 36] bool`` clue cards answered *nothing*, face up in front of each player.
        spot, trace: ``[B, P, 36] bool`` each player's spot / trace marker on each element's tile.
        inv_count: ``[B, P] int8`` investigators placed this round (slots ``0..inv_count-1`` used).
        inv_district: ``[B, P, 5] int8`` district of each placed investigator, ``-1`` unused.
        inv_answer: ``[B, P, 5, 2] int8`` (spots, traces) answered when placed.
        inv_markers: ``[B, P, 5, 2] int8`` (spots, traces) still on the tile after marker moves (§4.1).
        inv_suppressed: ``[B, P, 5, 3] bool`` types skipped by the suppression rule (§4.2).
        inv_left: ``[B, P] int8`` unused investigator tiles for the rest of the game.
        attempted, solved: ``[B, P] bool`` this round (docs/rules.md §4.3).
        solved_case: ``[B, P] int16`` the correct triple named this round, ``-1`` if none.
        failed: ``[B, P, 1680] bool`` failed solve triples named this round (public).
        score: ``[B, P] int16`` the score (second edition: capped 21, floored −5; first edition:
            solve points minus penalty points; duel: rounds won).
        solve_points, penalty: ``[B, P] int16`` points from solves and penalty points (2 per wrong
            attempt) over the game.
        rewards: ``[B, P] int16`` score change of each player caused by the last step (duel: see
            the module docstring).
        last_action: ``[B] int16`` the last action taken, ``-1`` before any.
        last_answer: ``[B, 2] int8`` its answer: clue (code, -1); investigator (spots, traces);
            solve (1 correct / 0 wrong, -1).
        last_player: ``[B] int8`` who took it.
        extra_turn: ``[B] bool`` duel: the round's first player solved correctly with the round's
            first attempt and its opponent (now to move) is taking its one more turn (§7).
        round_winner: ``[B] int8`` duel: result of the last finished round, the winning player or
            ``-1`` for a draw; ``-2`` before any round has finished (always ``-2`` in standard games).
    """

    rng: np.ndarray
    round: np.ndarray
    first_player: np.ndarray
    current_player: np.ndarray
    rotation: np.ndarray
    tier: np.ndarray
    solved_this_rotation: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    turn: np.ndarray
    tile_district: np.ndarray
    district_tile: np.ndarray
    case: np.ndarray
    card_place: np.ndarray
    deck: np.ndarray
    deck_size: np.ndarray
    front: np.ndarray
    spot: np.ndarray
    trace: np.ndarray
    inv_count: np.ndarray
    inv_district: np.ndarray
    inv_answer: np.ndarray
    inv_markers: np.ndarray
    inv_suppressed: np.ndarray
    inv_left: np.ndarray
    attempted: np.ndarray
    solved: np.ndarray
    solved_case: np.ndarray
    failed: np.ndarray
    score: np.ndarray
    solve_points: np.ndarray
    penalty: np.ndarray
    rewards: np.ndarray
    last_action: np.ndarray
    last_answer: np.ndarray
    last_player: np.ndarray
    extra_turn: np.ndarray
    round_winner: np.ndarray

    @property
    def num_players(self) -> int:
        return int(self.case.shape[1])

    def kernel_value(self) -> "GameArrays":
        """The arrays as the one value the kernels take (:data:`GameArrays`, the same arrays, not copies)."""
        return GameArrays(*self.arrays())


GameArrays = namedtuple("GameArrays", [f.name for f in fields(State)])  # type: ignore[misc]  # fields of State, by design
GameArrays.__doc__ = """The state as the kernels take it: a named tuple of :class:`State`'s arrays, fields in its
declaration order (``s.rng``, ``s.round``, ...), built by :meth:`State.kernel_value`. Numba resolves a field
at compile time, so ``s.score[b, i]`` costs what a separate ``score`` argument did. Derived from
:class:`State`'s fields: a new field is declared in :class:`State` and allocated in :func:`empty_state`,
nothing else."""


class KernelRules(NamedTuple):
    """A :class:`GameConfig` as the step and init kernels take it (:func:`kernel_rules`)."""

    num_players: int
    rules: int
    """:attr:`GameConfig.rules_code`."""
    num_rounds: int
    max_rotations: int
    adjacency: np.ndarray
    """``bool[14, 14]`` the board's adjacency."""
    investigators: np.ndarray
    """``int8[P]`` starting investigator tiles."""


def kernel_rules(config: GameConfig) -> KernelRules:
    """The rules options of ``config`` as the kernels take them."""
    return KernelRules(config.num_players, config.rules_code, config.num_rounds, config.max_rotations,
                       config.board.adjacency, np.array(config.investigators, dtype=np.int8))


def empty_state(batch_size: int, num_players: int) -> State:
    """Zeroed state arrays with the documented shapes and dtypes (setup fills them)."""
    B, P, E, D, K = batch_size, num_players, NUM_ELEMENTS, NUM_DISTRICTS, MAX_INVESTIGATORS
    z = np.zeros
    return State(
        rng=z(B, np.uint64), round=z(B, np.int8), first_player=z(B, np.int8),
        current_player=z(B, np.int8), rotation=z(B, np.int16), tier=z(B, np.int8),
        solved_this_rotation=z(B, bool), done=z(B, bool), truncated=z(B, bool), turn=z(B, np.int32),
        tile_district=z((B, E), np.int8), district_tile=z((B, D, 3), np.int8),
        case=z((B, P, 3), np.int8), card_place=z((B, E), np.int8), deck=z((B, E), np.int8),
        deck_size=z(B, np.int8), front=z((B, P, E), bool), spot=z((B, P, E), bool),
        trace=z((B, P, E), bool), inv_count=z((B, P), np.int8),
        inv_district=np.full((B, P, K), -1, np.int8), inv_answer=z((B, P, K, 2), np.int8),
        inv_markers=z((B, P, K, 2), np.int8), inv_suppressed=z((B, P, K, 3), bool),
        inv_left=z((B, P), np.int8), attempted=z((B, P), bool), solved=z((B, P), bool),
        solved_case=np.full((B, P), -1, np.int16), failed=z((B, P, NUM_CASES), bool),
        score=z((B, P), np.int16), solve_points=z((B, P), np.int16), penalty=z((B, P), np.int16),
        rewards=z((B, P), np.int16), last_action=np.full(B, -1, np.int16),
        last_answer=np.full((B, 2), -1, np.int8), last_player=np.full(B, -1, np.int8),
        extra_turn=z(B, bool), round_winner=np.full(B, -2, np.int8),
    )


__all__ = ["GameConfig", "State", "GameArrays", "KernelRules", "kernel_rules", "empty_state", "replace", "VARIANTS", "MODES", "DEFAULT_MAX_ROUNDS"]
