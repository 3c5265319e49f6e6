"""Parsing and formatting of names (docs/record-format.md): suspects, evidence, locations/districts, answers.

Names match case-insensitively, ignoring spaces, apostrophes, hyphens and accents
(``"ricks cafe"`` = ``"Rick's Café"``). First-edition words are accepted as aliases in human input:
``crime`` = evidence, ``disc`` = spot, ``cube`` = trace, ``evidence card`` = clue.
"""

from __future__ import annotations

import difflib
from functools import lru_cache

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import (ANSWER_NAMES, EVIDENCE_NAMES, NUM_ELEMENTS, SUSPECT_NAMES, TYPE_OFFSETS,
                        TYPE_NAMES)
from pi_env.core.errors import UnknownNameError
from pi_env.core.text import normalize

_ALIASES = {"crime": "evidence", "disc": "spot", "cube": "trace", "evidencecard": "clue", "none": "nothing"}


def canonical_word(word: str) -> str:
    """Map a first-edition alias to the second-edition word (``"cube"`` → ``"trace"``)."""
    key = normalize(word)
    return _ALIASES.get(key, key)


def element_names(board: Board = DAYTIME) -> tuple[str, ...]:
    """The 36 element names in element-id order (suspects, evidence, then the board's districts)."""
    return SUSPECT_NAMES + EVIDENCE_NAMES + board.districts


def element_name(element: int, board: Board = DAYTIME) -> str:
    """Name of element id ``element`` (0..35)."""
    return element_names(board)[element]


def _unknown(kind: str, name: object, choices: tuple[str, ...]) -> UnknownNameError:
    close = difflib.get_close_matches(str(name), list(choices), n=3, cutoff=0.5)
    if not close:
        keyed = {normalize(c): c for c in choices}
        close = [keyed[k] for k in difflib.get_close_matches(normalize(str(name)), list(keyed), n=3, cutoff=0.5)]
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    return UnknownNameError(f"unknown {kind} {name!r}{hint}")


def parse_element(name: str, board: Board = DAYTIME, type_: int | None = None) -> int:
    """Element id (0..35) of a suspect, evidence or location name.

    Args:
        name: the name as a person would type it.
        board: gives the location (district) names.
        type_: restrict to one type (0 suspect, 1 evidence, 2 location).

    Raises:
        UnknownNameError: no element of that type has that name (suggests close matches).
    """
    names = element_names(board)
    if type_ is None:
        ids = range(NUM_ELEMENTS)
        kind = "suspect, evidence or location"
    else:
        start = TYPE_OFFSETS[type_]
        size = (12, 10, 14)[type_]
        ids = range(start, start + size)
        kind = TYPE_NAMES[type_]
    if isinstance(name, str):
        found = _name_index(names, ids.start, ids.stop).get(normalize(name))
        if found is not None:
            return found
    raise _unknown(kind, name, tuple(names[i] for i in ids))


@lru_cache(maxsize=64)
def _name_index(names: tuple[str, ...], start: int, stop: int) -> dict[str, int]:
    """Folded name -> id of ``names[start:stop]`` (the first id when two names fold alike): a record
    of 200,000 events looks its names up 600,000 times."""
    index: dict[str, int] = {}
    for i in range(start, stop):
        index.setdefault(normalize(names[i]), i)
    return index


def parse_district(name: "str | int", board: Board = DAYTIME) -> int:
    """District id (0..13) of a district name. Raises UnknownNameError."""
    return parse_element(name, board, type_=2) - TYPE_OFFSETS[2] if isinstance(name, str) else _bad_district(name, board)


def _bad_district(name: object, board: Board) -> int:
    raise _unknown("district", name, board.districts)


def parse_answer(word: str) -> int:
    """Clue answer code (0 nothing, 1 trace, 2 spot) of ``word``; accepts ``disc``/``cube``.

    Raises:
        UnknownNameError: not an answer word.
    """
    key = canonical_word(word) if isinstance(word, str) else None
    if key in ANSWER_NAMES:
        return ANSWER_NAMES.index(key)
    raise _unknown("answer", word, ANSWER_NAMES)
