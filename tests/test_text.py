"""pi_env.core.text: name folding and counted nouns."""

from pi_env.core.text import normalize, plural


def test_plural():
    assert [plural(n, "investigator") for n in (0, 1, 2)] == ["0 investigators", "1 investigator",
                                                              "2 investigators"]
    assert plural(1, "penalty point") == "1 penalty point"


def test_normalize():
    assert normalize("Rick's Café") == normalize("RICKS cafe") == "rickscafe"
