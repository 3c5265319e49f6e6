"""Name folding shared by boards, names and records (docs/record-format.md: names match ignoring case, spaces,
apostrophes and accents)."""

import unicodedata


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
