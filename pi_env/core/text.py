"""Text helpers: name folding shared by boards, names and records (docs/record-format.md: names
match ignoring case, spaces, apostrophes and accents), plurals, the one table printer and CSV text."""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache


@lru_cache(maxsize=4096)  # a record names the same few dozen names again and again
def normalize(name: str) -> str:
    """Fold a name for matching: strip accents, case, spaces, apostrophes, hyphens, dots.

    >>> normalize("Rick's Café") == normalize("ricks cafe")
    True
    """
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.casefold()
    for ch in " '\u2019`-_.\t":
        text = text.replace(ch, "")
    return text


def plural(n: int, word: str) -> str:
    """``"1 trace"``, ``"2 traces"``: a count with its noun (regular English plural).

    >>> plural(1, "investigator"), plural(3, "point")
    ('1 investigator', '3 points')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


def format_table(rows: Sequence[Sequence[object]], headers: Sequence[str] | None = None, *,
                 align: str = "", style: str = "plain", indent: str = "") -> list[str]:
    """The lines of a text table, laid out by the ``tabulate`` library (the one table printer of
    pi-env: command line, tournaments, benchmarks, experiments, the solo app).

    Cells are shown exactly as given (``str(cell)``; numbers are not re-formatted, so format them
    first), columns two spaces apart, trailing spaces removed.

    Args:
        rows: the body, one sequence of cells per line.
        headers: column titles, or ``None``.
        align: one letter per column, ``l`` (left, the default for missing letters) or ``r`` (right);
            a header is aligned like its column.
        style: ``"plain"`` (no rules), ``"rule"`` (a dashed line under the headers) or
            ``"markdown"`` (a GitHub-flavoured Markdown table).
        indent: prefix of every line.

    Returns:
        The lines, without newlines.

    Raises:
        ValueError: an unknown ``style`` or ``align`` letter.

    >>> format_table([["greedy", "64.7%"], ["random", "0.0%"]], ["agent", "win rate"], align="lr")
    ['agent   win rate', 'greedy     64.7%', 'random      0.0%']
    """
    import tabulate  # imported here: only the commands that print tables need it

    if style not in ("plain", "rule", "markdown"):
        raise ValueError(f"style must be 'plain', 'rule' or 'markdown', got {style!r}")
    if set(align) - {"l", "r"}:
        raise ValueError(f"align takes the letters l and r, got {align!r}")
    body = [[str(c) for c in r] for r in rows]
    ncols = max([len(r) for r in body] + [len(headers or ())])
    colalign = tuple({"l": "left", "r": "right"}[a] for a in align.ljust(ncols, "l"))
    if style == "plain":  # headers as a first row: aligned with their column, no extra padding
        table = [list(headers), *body] if headers else body
        text = tabulate.tabulate(table, tablefmt="plain", disable_numparse=True, colalign=colalign)
    else:
        text = tabulate.tabulate(body, headers=list(headers or ()), disable_numparse=True, colalign=colalign,
                                 tablefmt="simple" if style == "rule" else "github")
    return [(indent + line).rstrip() for line in text.splitlines()]


def csv_text(rows: Iterable[Mapping[str, object]], columns: Sequence[str]) -> str:
    """CSV text (``\\n`` line ends, a header line first) of dict rows, for
    :func:`pi_env.core.files.write_text_atomic`: files are written whole, never line by line.

    A missing key or ``None`` is an empty field.

    >>> csv_text([{"agent": "greedy", "wins": 3}, {"agent": "random"}], ["agent", "wins"])
    'agent,wins\\ngreedy,3\\nrandom,\\n'
    """
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)
    return buf.getvalue()
