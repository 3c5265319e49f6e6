"""Action ids ↔ text (docs/rules.md §4): ``action_name(a)`` and ``parse_action(s)``.

Layout (see :mod:`pi_env.core.constants`): ``0..35`` clue element, ``36..49`` investigate district,
``50..1729`` solve case. Text forms: ``clue Pinky``, ``investigate Downtown``,
``solve Doc Forgery Downtown`` (names matched as in docs/record-format.md; ``evidence card`` = clue).
"""

from __future__ import annotations

import operator
from typing import SupportsIndex, cast

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import (INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE, TYPE_OFFSETS,
                        case_index)
from pi_env.core.errors import InvalidActionError
from pi_env.core.named import action_text
from pi_env.core.names import element_names, parse_district, parse_element


def action_id(action: object) -> int:
    """The action id of ``action`` (an ``int`` or anything with ``__index__``, e.g. ``np.int64``).

    Raises:
        InvalidActionError: not an integer (a ``bool`` is not one here), or outside ``0..1729``.
    """
    if isinstance(action, (bool, np.bool_)):  # True is an int to Python, never an action
        raise InvalidActionError(f"action must be an integer, got {action!r}")
    try:
        a = operator.index(cast(SupportsIndex, action))  # anything else raises TypeError
    except TypeError:
        raise InvalidActionError(f"action must be an integer, got {action!r}") from None
    if not 0 <= a < NUM_ACTIONS:
        raise InvalidActionError(f"action {action!r} is outside 0..{NUM_ACTIONS - 1}")
    return a


def action_name(action: int, board: Board | None = DAYTIME) -> str:
    """Readable text of an action id, e.g. ``"clue Pinky"``.

    Raises:
        InvalidActionError: ``action`` outside ``0..1729``.
    """
    return action_text(action, element_names(board or DAYTIME))


def case_name(case: int, board: Board = DAYTIME) -> str:
    """``"Doc / Forgery / Downtown"`` for a case id."""
    return action_name(SOLVE_BASE + int(case), board)[len("solve "):]


def parse_action(text: str, board: Board = DAYTIME) -> int:
    """Action id of a text command.

    Accepts ``clue NAME``, ``investigate DISTRICT`` and ``solve SUSPECT / EVIDENCE / LOCATION``
    (parts separated by ``/`` or ``,``; plain spaces also work when unambiguous).

    Raises:
        InvalidActionError: unknown verb or wrong number of parts.
        UnknownNameError: an unknown name (with suggestions).
    """
    words = text.strip().split(None, 1)
    if not words:
        raise InvalidActionError("empty action")
    verb = words[0].lower()
    rest = words[1].strip() if len(words) > 1 else ""
    if verb in ("clue", "card", "evidencecard") and rest:
        return parse_element(rest, board)
    if verb in ("investigate", "investigator", "inv") and rest:
        return INVESTIGATE_BASE + parse_district(rest, board)
    if verb == "solve" and rest:
        parts = [p.strip() for p in rest.replace(",", "/").split("/") if p.strip()]
        if len(parts) != 3:
            parts = _split_three(rest, board)
        s = parse_element(parts[0], board, 0)
        e = parse_element(parts[1], board, 1) - TYPE_OFFSETS[1]
        l = parse_element(parts[2], board, 2) - TYPE_OFFSETS[2]
        return SOLVE_BASE + case_index(s, e, l)
    raise InvalidActionError(
        f"cannot read action {text!r}: expected 'clue NAME', 'investigate DISTRICT' or "
        "'solve SUSPECT / EVIDENCE / LOCATION'")


def _split_three(rest: str, board: Board) -> list[str]:
    """Split ``"Doc Mob Killing Rick's Café"`` into three names by trying every cut."""
    words = rest.split()
    for i in range(1, len(words)):
        for j in range(i + 1, len(words)):
            parts = [" ".join(words[:i]), " ".join(words[i:j]), " ".join(words[j:])]
            try:
                for t, p in enumerate(parts):
                    parse_element(p, board, t)
                return parts
            except ValueError:
                continue
    raise InvalidActionError(f"cannot split {rest!r} into suspect, evidence and location")
