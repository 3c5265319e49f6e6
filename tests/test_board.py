"""The board as data (docs/rules.md §2): the bundled daytime board, validation, and other graphs."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources

import numpy as np
import pytest

from pi_env.core.board import DAYTIME, Board, board_from_dict, load_board
from pi_env.engine import GameConfig
from pi_env.core.errors import BoardError
from test_parity import lockstep, seeds_for

# docs/rules.md §2, "Spelled out:" verbatim.
SPELLED_OUT = """
  Lakeside–Forest Park, Trocadero, Little Italy · Forest Park–Ocean Drive, Trocadero ·
  Little Italy–Trocadero, Central Station, China Town · Trocadero–Ocean Drive, Main Street,
  Central Station · Ocean Drive–Road House, Main Street · China Town–Central Station, Union Square ·
  Central Station–Main Street, Downtown, Union Square · Main Street–Road House, Rick's Café, Downtown ·
  Road House–Rick's Café · Union Square–Downtown, Waterfront · Downtown–Rick's Café, Skid Row,
  Waterfront · Rick's Café–Skid Row · Waterfront–Skid Row.
"""

ROWS = [["Lakeside", "Forest Park"], ["Little Italy", "Trocadero", "Ocean Drive"],
        ["China Town", "Central Station", "Main Street", "Road House"],
        ["Union Square", "Downtown", "Rick's Café"], ["Waterfront", "Skid Row"]]


def _named_edges(board: Board) -> set[frozenset[str]]:
    return {frozenset((board.districts[a], board.districts[b])) for a, b in board.edges}


def test_daytime_districts_in_row_order():
    assert list(DAYTIME.districts) == [d for row in ROWS for d in row]
    assert DAYTIME.name == "daytime"


def test_daytime_edges_and_degrees():
    adj = DAYTIME.adjacency
    assert len(DAYTIME.edges) == 29
    assert (adj == adj.T).all() and not adj.diagonal().any()
    degrees = adj.sum(axis=1)
    assert degrees.min() == 3 and degrees.max() == 6
    assert not adj.flags.writeable and not DAYTIME.positions.flags.writeable


def test_daytime_adjacency_is_the_hex_rule_from_positions():
    """Side by side in a row (centres 1 apart), or neighbouring rows with centres 0.5 apart."""
    pos = DAYTIME.positions
    for row_index, row in enumerate(ROWS):
        xs = [pos[DAYTIME.districts.index(d)] for d in row]
        assert all(p[1] == row_index for p in xs)
        assert abs(sum(p[0] for p in xs)) < 1e-9  # each row is centred
    for a in range(14):
        for b in range(14):
            dx = abs(pos[a, 0] - pos[b, 0])
            dy = abs(pos[a, 1] - pos[b, 1])
            rule = a != b and ((dy == 0 and dx == 1.0) or (dy == 1 and dx == 0.5))
            assert DAYTIME.adjacency[a, b] == rule, (DAYTIME.districts[a], DAYTIME.districts[b])


def test_daytime_matches_the_spelled_out_list():
    edges = set()
    for group in SPELLED_OUT.replace("\n", " ").strip().rstrip(".").split("·"):
        head, tails = group.split("–")
        for tail in tails.split(","):
            edges.add(frozenset((re.sub(r"\s+", " ", head).strip(),
                                 re.sub(r"\s+", " ", tail).strip())))
    assert len(edges) == 29
    assert edges == _named_edges(DAYTIME)


def test_bundled_json_round_trips():
    doc = json.loads(resources.files("pi_env.core").joinpath("data/daytime.json").read_text("utf-8"))
    assert load_board("daytime") == DAYTIME
    assert load_board("daytime") is load_board("daytime")  # read once (saved positions name it)
    with pytest.raises(ValueError, match="read-only"):
        load_board("daytime").adjacency[0, 1] = False  # so sharing it is safe
    again = board_from_dict(DAYTIME.to_dict())
    assert again == DAYTIME and np.array_equal(again.positions, DAYTIME.positions)
    assert len(doc["adjacency"]) == 29


# --------------------------------------------------------------------------- validation

def _doc() -> dict:
    return copy.deepcopy(DAYTIME.to_dict())


def _bad(mutate) -> dict:
    doc = _doc()
    mutate(doc)
    return doc


@pytest.mark.parametrize("doc,fragment", [
    (_bad(lambda d: d.update(districts=d["districts"][:13])), "expected 14 districts, got 13"),
    (_bad(lambda d: d["districts"].__setitem__(1, "Lakeside")),
     "duplicate district name 'Lakeside'"),
    (_bad(lambda d: d["districts"].__setitem__(1, "LAKESIDE")),
     "duplicate district name 'LAKESIDE' (same as 'Lakeside')"),
    (_bad(lambda d: d["adjacency"].append(["Lakeside", "Atlantis"])),
     "names unknown district 'Atlantis'"),
    (_bad(lambda d: d["adjacency"].append(["Downtown", "Downtown"])),
     "joins 'Downtown' to itself"),
    (_bad(lambda d: d.update(adjacency=[e for e in d["adjacency"] if "Skid Row" not in e])),
     "graph is not connected: 'Skid Row' cannot be reached from 'Lakeside'"),
    (_bad(lambda d: d.update(directed=True)), "adjacency is not symmetric"),
    (_bad(lambda d: d.update(adjacency=[])), "'adjacency' must be a non-empty list"),
    (_bad(lambda d: d["adjacency"].append(["Lakeside"])), "must be a pair"),
    (_bad(lambda d: d["positions"].pop("Skid Row")), "'positions' lacks 'Skid Row'"),
    (_bad(lambda d: d["positions"].update({"Atlantis": [0, 0]})),
     "'positions' names unknown district 'Atlantis'"),
    ([], "expected an object"),
])
def test_validation_errors(doc, fragment):
    with pytest.raises(BoardError, match=re.escape(fragment)):
        board_from_dict(doc)


def test_directed_graph_with_both_directions_is_accepted():
    doc = _doc()
    doc["adjacency"] = doc["adjacency"] + [[b, a] for a, b in doc["adjacency"]]
    doc["directed"] = True
    assert board_from_dict(doc) == DAYTIME


def test_unknown_bundled_board():
    with pytest.raises(BoardError, match="unknown board 'nighttime'"):
        load_board("nighttime")


# --------------------------------------------------------------------------- other graphs

def cycle_board() -> Board:
    names = [f"C{i}" for i in range(14)]
    return board_from_dict({"districts": names,
                            "adjacency": [[names[i], names[(i + 1) % 14]] for i in range(14)]},
                           name="cycle14")


def grid_board() -> Board:
    names = [f"G{r}{c}" for r in range(2) for c in range(7)]
    edges = [[f"G{r}{c}", f"G{r}{c + 1}"] for r in range(2) for c in range(6)]
    edges += [[f"G0{c}", f"G1{c}"] for c in range(7)]
    positions = {f"G{r}{c}": [c, r] for r in range(2) for c in range(7)}
    return board_from_dict({"districts": names, "adjacency": edges, "positions": positions},
                           name="grid2x7")


def test_other_graphs_are_valid():
    cyc, grid = cycle_board(), grid_board()
    assert len(cyc.edges) == 14 and set(cyc.adjacency.sum(axis=1)) == {2}
    assert len(grid.edges) == 19 and set(grid.adjacency.sum(axis=1)) == {2, 3}
    assert cyc != DAYTIME and grid != DAYTIME and cyc != grid


@pytest.mark.parametrize("make", [cycle_board, grid_board], ids=["cycle14", "grid2x7"])
@pytest.mark.parametrize("players,edition", [(3, "second"), (5, "first"), (2, "first")])
def test_engine_on_another_graph_matches_reference(make, players, edition):
    board = make()
    config = GameConfig(num_players=players, edition=edition, board=board, max_rotations=30)
    stats = lockstep(config, seeds_for(f"{board.name}/{players}/{edition}", 4),
                     (0.8, 0.05, 0.08, 0.03), policy_seed=players)
    assert stats["steps"] > 50


def test_the_graph_changes_answers():
    """The same layout answers differently on a 14-cycle: Lakeside (0) and Trocadero (3) are
    adjacent on the daytime board, not on the cycle (0's neighbours are 1 and 13)."""
    from pi_env.engine import step_inplace
    from pi_env.engine.setup import from_layout
    layout = list(range(12)) + [j + 4 for j in range(10)] + list(range(14))
    cases = [(3, 0, 5), (0, 1, 6)]  # player 0's suspect Bubbles lies in district 3
    answers = {}
    for board in (DAYTIME, cycle_board()):
        config = GameConfig(num_players=2, board=board)
        s = from_layout(config, layout, cases)  # Shorty (tile in 0) is on the default display
        step_inplace(s, np.array([0]), config)
        answers[board.name] = int(s.last_answer[0, 0])
    assert answers == {"daytime": 1, "cycle14": 0}
