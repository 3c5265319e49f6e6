"""Name folding shared by boards, names and records (RECORD.md: names match ignoring case, spaces,
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
