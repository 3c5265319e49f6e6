"""Ids that print their names: the Python API's answers read as the game does.

:class:`Element`, :class:`Case` and :class:`Action` are ``int`` subclasses: equal to, hashed as,
usable as and JSON-encoded as their ids (layouts in :mod:`pi_env.core.constants`), but ``str()`` and
f-strings give the names (``"Doc"``, ``"Doc / Forgery / Downtown"``, ``"clue Pinky"``) and ``repr()``
shows them (``Case('Doc / Forgery / Downtown')``). Arithmetic gives plain ``int``.

The names are the 36 element names of a board in id order
(:func:`pi_env.core.names.element_names`; a location's name is its district's).
"""

from __future__ import annotations

from pi_env.core.constants import CASE_TRIPLES, INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE, TYPE_OFFSETS
from pi_env.core.errors import InvalidActionError

__all__ = ["Element", "Case", "Action", "case_text", "action_text"]


def case_text(case: int, names: tuple[str, ...]) -> str:
    """``"Doc / Forgery / Downtown"`` for a case id (0..1679)."""
    s, e, l = (int(v) for v in CASE_TRIPLES[int(case)])
    return f"{names[s]} / {names[TYPE_OFFSETS[1] + e]} / {names[TYPE_OFFSETS[2] + l]}"


def action_text(action: int, names: tuple[str, ...]) -> str:
    """``"clue Pinky"``, ``"investigate Downtown"``, ``"solve Doc / Forgery / Downtown"``.

    The one text of an action (:func:`pi_env.core.actions.action_name` gives it for a board).

    Raises:
        InvalidActionError: ``action`` outside ``0..1729`` (a ``ValueError``).
    """
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise InvalidActionError(f"action {action!r} is outside 0..{NUM_ACTIONS - 1}")
    if a < INVESTIGATE_BASE:
        return f"clue {names[a]}"
    if a < SOLVE_BASE:
        return f"investigate {names[TYPE_OFFSETS[2] + a - INVESTIGATE_BASE]}"
    return f"solve {case_text(a - SOLVE_BASE, names)}"


class _Named(int):
    """An id with a text; see the module docstring."""

    text: str

    def __new__(cls, value: int, text: str):
        obj = super().__new__(cls, int(value))
        obj.text = text
        return obj

    def __str__(self) -> str:
        return self.text

    def __format__(self, spec: str) -> str:
        return self.text.__format__(spec) if not spec or spec[-1] not in "bcdoxXn" else int(self).__format__(spec)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __reduce__(self):
        return (type(self), (int(self), self.text))


class Element(_Named):
    """A suspect, evidence or location id (0..35) that prints its name."""

    @classmethod
    def of(cls, element: int, names: tuple[str, ...]) -> "Element":
        return cls(element, names[int(element)])


class Case(_Named):
    """A case id (0..1679) that prints ``suspect / evidence / location``."""

    @classmethod
    def of(cls, case: int, names: tuple[str, ...]) -> "Case":
        return cls(case, case_text(case, names))

    @property
    def elements(self) -> tuple[int, int, int]:
        """The suspect, evidence and location element ids."""
        s, e, l = (int(v) for v in CASE_TRIPLES[int(self)])
        return s, TYPE_OFFSETS[1] + e, TYPE_OFFSETS[2] + l


class Action(_Named):
    """An action id (0..1729) that prints ``clue Pinky`` / ``investigate Downtown`` / ``solve ...``."""

    @classmethod
    def of(cls, action: int, names: tuple[str, ...]) -> "Action":
        return cls(action, action_text(action, names))
