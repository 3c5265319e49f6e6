"""Line editing and name completion for the terminal apps (``pi-env play`` with a human seat,
``pi-env solo play``).

:func:`line_reader` returns an ``input``-like function. When standard input is a terminal and the
standard library's :mod:`readline` is available (Linux, macOS), lines can be edited (arrows,
Ctrl-A/E, history with up/down) and Tab completes by position (:class:`Commands`): the first word
among the commands, then what that command takes — ``clue`` any suspect, evidence or location,
``investigate`` a district, ``solve`` a suspect, then an evidence, then a location — with names
folded as in docs/record-format.md (case, accents, apostrophes: ``rick`` → ``Rick's Café``) and names
of several words. A word completed to the end is followed by a space. Elsewhere (a pipe, a test,
Windows without readline) it is plain :func:`input`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import TYPE_OFFSETS
from pi_env.core.names import element_names
from pi_env.core.text import normalize

__all__ = ["Commands", "game_commands", "line_reader", "completions", "word_completions"]


@dataclass(frozen=True)
class Commands:
    """What a prompt accepts, for completion.

    Attributes:
        words: the command words (the first word of a line).
        slots: per command word, the names each of its arguments may be, in order (a command
            missing here takes no names).
    """

    words: tuple[str, ...]
    slots: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)


def game_commands(board: Board = DAYTIME, extra: Sequence[str] = ("board", "map", "help")) -> Commands:
    """The actions of a turn (``clue NAME``, ``investigate DISTRICT``, ``solve SUSPECT / EVIDENCE /
    LOCATION``) on ``board`` and the words ``extra`` (which take no names)."""
    names = tuple(element_names(board))
    suspects, evidence, locations = (names[:TYPE_OFFSETS[1]], names[TYPE_OFFSETS[1]:TYPE_OFFSETS[2]],
                                     names[TYPE_OFFSETS[2]:])
    return Commands(words=("clue", "investigate", "solve", *extra),
                    slots={"clue": (names,), "investigate": (locations,), "solve": (suspects, evidence, locations)})


def _longest_name(words: list[str], names: Sequence[str]) -> int:
    """How many of ``words`` (from the front) spell one of ``names`` completely (longest; 0: none)."""
    folded = {normalize(n) for n in names}
    for k in range(len(words), 0, -1):
        if normalize(" ".join(words[:k])) in folded:
            return k
    return 0


def _candidates(line: str, commands: Commands) -> tuple[int, list[str]]:
    """``(k, names)``: the names that complete the line's last ``k`` words at their position."""
    parts = line.replace("/", " ").replace(",", " ").split(" ")
    words, partial = [p for p in parts[:-1] if p], parts[-1]
    if not words:  # the first word: a command
        key = normalize(partial)
        return 1, [w for w in commands.words if normalize(w).startswith(key)]
    command = next((w for w in commands.words if normalize(w) == normalize(words[0])), None)
    slots = commands.slots.get(command or "", ())
    rest = words[1:]
    for names in slots:
        used = _longest_name(rest, names) if rest else 0
        typed = rest + [partial]
        key = normalize(" ".join(typed))
        found = [n for n in dict.fromkeys(names) if normalize(n).startswith(key) and normalize(n) != key]
        if used and (used < len(rest) or not found):  # a whole name fills this slot: on to the next
            rest = rest[used:]
            continue
        return len(typed), found
    return 1, []


def completions(line: str, commands: Commands) -> list[str]:
    """The names that complete the end of ``line`` where it stands (module docstring), in order.

    >>> completions("clue pin", game_commands())
    ['Pinky']
    >>> completions("investigate rick", game_commands())
    ["Rick's Café"]
    >>> completions("cl", game_commands())
    ['clue']
    """
    return _candidates(line, commands)[1]


def word_completions(line: str, commands: Commands) -> list[str]:
    """What replaces the line's *last* word (readline completes one word at a time): a match
    without the words of it typed before the last one, followed by a space when it is the only one.

    >>> word_completions("investigate ricks c", game_commands())
    ['Café ']
    """
    k, found = _candidates(line, commands)
    out = [" ".join(w.split(" ")[k - 1:]) if len(w.split(" ")) >= k else w for w in found]
    if len(out) == 1:
        out[0] += " "
    return out


def line_reader(commands: Commands, stdin=None) -> Callable[[str], str]:
    """An ``input`` with line editing and Tab completion of ``commands`` on a terminal (module docstring)."""
    stream = stdin or sys.stdin
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive:
        return input
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows without readline
        return input
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        nonlocal matches
        if state == 0:
            matches = word_completions(readline.get_line_buffer()[:readline.get_endidx()], commands)
        return matches[state] if state < len(matches) else None

    readline.set_completer_delims(" /,")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
    return input
