"""pi_env.core.text: name folding and counted nouns."""

from pi_env.core.text import normalize, plural


def test_plural():
    assert [plural(n, "investigator") for n in (0, 1, 2)] == ["0 investigators", "1 investigator",
                                                              "2 investigators"]
    assert plural(1, "penalty point") == "1 penalty point"


def test_normalize():
    assert normalize("Rick's Café") == normalize("RICKS cafe") == "rickscafe"


def test_one_text_per_action_and_case():
    """:func:`pi_env.core.actions.action_name` (a board), :mod:`pi_env.core.named` (the element
    names) and the renderer print an action or case with one function: every action id of the
    daytime board and of a board with other district names reads back as itself
    (:func:`parse_action`), the texts equal ``Action.of``'s and ``case_name``'s, and an id outside
    0..1729 is an InvalidActionError from both (``named.action_text`` raised a plain ValueError)."""
    import dataclasses

    import pytest

    from pi_env.core.actions import action_name, case_name, parse_action
    from pi_env.core.board import DAYTIME
    from pi_env.core.constants import INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE, TYPE_OFFSETS, case_index
    from pi_env.core.errors import InvalidActionError
    from pi_env.core.named import Action, action_text, case_text
    from pi_env.core.names import element_names

    other = dataclasses.replace(DAYTIME, districts=tuple(f"Quarter {i}" for i in range(len(DAYTIME.districts))))
    for board in (DAYTIME, other):
        names = element_names(board)
        assert action_name(0, board) == f"clue {names[0]}"
        assert action_name(INVESTIGATE_BASE + 3, board) == f"investigate {board.districts[3]}"
        c = case_index(2, 4, 5)
        assert action_name(SOLVE_BASE + c, board) == f"solve {names[2]} / {names[TYPE_OFFSETS[1] + 4]} / {board.districts[5]}"
        for a in range(NUM_ACTIONS):
            text = action_name(a, board)
            assert text == str(Action.of(a, names)) and parse_action(text, board) == a
            if a >= SOLVE_BASE:
                assert text == f"solve {case_name(a - SOLVE_BASE, board)}" == f"solve {case_text(a - SOLVE_BASE, names)}"
    assert other.districts[5] == "Quarter 5"
    for bad in (-1, NUM_ACTIONS):
        with pytest.raises(InvalidActionError, match=rf"^action {bad} is outside 0\.\.1729$"):
            action_name(bad)
        with pytest.raises(InvalidActionError, match=rf"^action {bad} is outside 0\.\.1729$"):
            action_text(bad, element_names(DAYTIME))
