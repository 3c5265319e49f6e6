"""Line editing and name completion for the terminal apps (``pi-env play`` with a human seat,
``pi-env solo play``).

:func:`line_reader` returns an ``input``-like function. When standard input is a terminal and the
standard library's :mod:`readline` is available (Linux, macOS), lines can be edited (arrows,
Ctrl-A/E, history with up/down) and Tab completes commands and names: suspects, evidence,
locations, case-insensitively, and names of several words (``rick`` → ``Rick's Café``). Elsewhere
(a pipe, a test, Windows without readline) it is plain :func:`input`.
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence

from pi_env.core.text import normalize

__all__ = ["line_reader", "completions", "word_completions"]


def _tail_matches(line: str, words: Sequence[str]) -> tuple[int, list[str]]:
    """``(k, matches)``: the longest tail of ``line`` (its last ``k`` words) that starts some of
    ``words`` (names folded as in docs/record-format.md), and those words in order."""
    parts = line.replace("/", " ").replace(",", " ").split(" ")
    for start in range(len(parts)):
        tail = parts[start:]
        key = normalize(" ".join(tail))
        if not key and start < len(parts) - 1:
            continue
        found = [w for w in dict.fromkeys(words) if normalize(w).startswith(key)]
        if found:
            return len(tail), found
    return 0, []


def completions(line: str, words: Sequence[str]) -> list[str]:
    """The completions of the last word(s) of ``line`` among ``words``.

    A candidate completes the line's tail when the tail (one or more trailing words, folded as
    names are: case, accents, apostrophes ignored) starts it; the longest matching tail wins, so
    ``"solve doc mob"`` offers ``"Mob Killing"``. Returned in ``words`` order, without duplicates.

    >>> completions("clue pin", ["Pinky", "Pop"])
    ['Pinky']
    >>> completions("investigate rick", ["Rick's Café", "Road House"])
    ["Rick's Café"]
    """
    return _tail_matches(line, words)[1]


def word_completions(line: str, words: Sequence[str]) -> list[str]:
    """What replaces the line's *last* word (readline completes one word at a time): a match
    without the words of it already typed before the last one.

    >>> word_completions("investigate ricks c", ["Rick's Café"])
    ['Café']
    """
    k, found = _tail_matches(line, words)
    return [" ".join(w.split(" ")[k - 1:]) if len(w.split(" ")) >= k else w for w in found]


def line_reader(words: Sequence[str], stdin=None) -> Callable[[str], str]:
    """An ``input`` with line editing and Tab completion of ``words`` on a terminal (module docstring)."""
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
            matches = word_completions(readline.get_line_buffer()[:readline.get_endidx()], words)
        return matches[state] if state < len(matches) else None

    readline.set_completer_delims(" /,")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
    return input
