"""Static facts of P.I. (docs/rules.md §1) and the index layouts used everywhere in pi-env.

Element ids (``Element``, int in ``0..35``) put the three types in one range:

=========  ==========  =================================
type       ids         type-local index
=========  ==========  =================================
suspect    0 .. 11     ``id``
evidence   12 .. 21    ``id - 12``
location   22 .. 35    ``id - 22`` (= the district id)
=========  ==========  =================================

A *case* (``Case``, int in ``0..1679``) is a (suspect, evidence, location) triple of type-local
indices packed as ``s * 140 + e * 14 + l``.

The action space (docs/rules.md §4) has ``NUM_ACTIONS = 1730`` entries:

* ``0 .. 35``: select the clue card of element ``a`` (legal only while it is on the display);
* ``36 .. 49``: place an investigator in district ``a - 36``;
* ``50 .. 1729``: solve with case ``a - 50``.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np

Element: TypeAlias = int
Suspect: TypeAlias = int
Evidence: TypeAlias = int
Location: TypeAlias = int
District: TypeAlias = int
Case: TypeAlias = int
Action: TypeAlias = int

SUSPECT_NAMES: tuple[str, ...] = (
    "Shorty", "Doc", "Rusty", "Bubbles", "Frenchy", "Maurice",
    "Pop", "Dutch", "Knuckles", "Pinky", "Queenie", "Earl",
)
EVIDENCE_NAMES: tuple[str, ...] = (
    "Murder", "Mob Killing", "Bank Job", "Blackmail", "Police Corruption",
    "Forgery", "Kidnapping", "Jewellery Heist", "Smuggling", "Protection Racket",
)
TYPE_NAMES: tuple[str, ...] = ("suspect", "evidence", "location")

NUM_SUSPECTS = 12
NUM_EVIDENCE = 10
NUM_DISTRICTS = 14
NUM_LOCATIONS = NUM_DISTRICTS
NUM_ELEMENTS = NUM_SUSPECTS + NUM_EVIDENCE + NUM_LOCATIONS  # 36 clue cards
NUM_CASES = NUM_SUSPECTS * NUM_EVIDENCE * NUM_LOCATIONS  # 1680
TYPE_SIZES = (NUM_SUSPECTS, NUM_EVIDENCE, NUM_LOCATIONS)
TYPE_OFFSETS = (0, NUM_SUSPECTS, NUM_SUSPECTS + NUM_EVIDENCE)
SUSPECT, EVIDENCE, LOCATION = 0, 1, 2

MIN_PLAYERS, MAX_PLAYERS = 2, 5
DISPLAY_SIZE = 9
MAX_INVESTIGATORS = 5  # tiles a player may hold (docs/rules.md §1, §7)
DEFAULT_ROUNDS = 3
DEFAULT_MAX_ROTATIONS = 60  # safeguard of docs/rules.md §5

# Action layout.
CLUE_BASE = 0
INVESTIGATE_BASE = NUM_ELEMENTS  # 36
SOLVE_BASE = NUM_ELEMENTS + NUM_DISTRICTS  # 50
NUM_ACTIONS = SOLVE_BASE + NUM_CASES  # 1730

# Clue answers (docs/rules.md §4.1).
NOTHING, TRACE, SPOT = 0, 1, 2
ANSWER_NAMES: tuple[str, ...] = ("nothing", "trace", "spot")

# Editions.
SECOND_EDITION, FIRST_EDITION = 0, 1
EDITION_NAMES: tuple[str, ...] = ("second", "first")

# Card places (engine bookkeeping, docs/rules.md §4.1).
IN_DECK, ON_DISPLAY, IN_DISCARD, IN_FRONT = 0, 1, 2, 3


def _make_element_type() -> np.ndarray:
    out = np.repeat(np.arange(3, dtype=np.int8), TYPE_SIZES)
    out.flags.writeable = False
    return out


ELEMENT_TYPE: np.ndarray = _make_element_type()
"""``int8[36]``: type (0 suspect, 1 evidence, 2 location) of each element id."""


def _make_case_table() -> np.ndarray:
    c = np.arange(NUM_CASES)
    out = np.stack([c // 140, (c // 14) % 10, c % 14], axis=1).astype(np.int8)
    out.flags.writeable = False
    return out


CASE_TRIPLES: np.ndarray = _make_case_table()
"""``int8[1680, 3]``: the (suspect, evidence, location) type-local indices of each case id."""


def case_index(suspect: int, evidence: int, location: int) -> int:
    """Pack type-local indices into a case id ``s * 140 + e * 14 + l`` (docs/rules.md §1)."""
    return suspect * (NUM_EVIDENCE * NUM_LOCATIONS) + evidence * NUM_LOCATIONS + location


def element_id(type_: int, local: int) -> int:
    """Element id of the type-local index ``local`` of type ``type_`` (0, 1 or 2)."""
    return TYPE_OFFSETS[type_] + local
