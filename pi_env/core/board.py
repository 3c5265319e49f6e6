"""Boards as data (docs/rules.md §2): districts, an undirected adjacency relation and 2-D positions.

The engine, solver and agents take a :class:`Board` as input so research can vary the graph.
The published daytime board ships as ``pi_env/core/data/daytime.json`` and loads with
``load_board("daytime")``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, NoReturn

import numpy as np

from pi_env.core.constants import NUM_DISTRICTS
from pi_env.core.errors import BoardError
from pi_env.core.text import normalize

BUNDLED_BOARDS = ("daytime",)


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board.

    Attributes:
        name: board name (``"daytime"`` for the published board, ``"custom"`` otherwise).
        districts: the 14 district names; district id ``d`` is ``districts[d]`` and location ``d``
            is printed in district ``d`` (docs/rules.md §1).
        adjacency: ``bool[14, 14]`` read-only, symmetric, ``False`` on the diagonal.
        positions: ``float64[14, 2]`` read-only (x, row) for rendering; row 0 is the top.
    """

    name: str
    districts: tuple[str, ...]
    adjacency: np.ndarray = field(repr=False)
    positions: np.ndarray = field(repr=False)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.districts == other.districts
                and bool(np.array_equal(self.adjacency, other.adjacency)))

    def __hash__(self) -> int:
        return hash((self.districts, self.adjacency.tobytes()))

    @property
    def edges(self) -> list[tuple[int, int]]:
        """Undirected edges ``(a, b)`` with ``a < b``, sorted."""
        a, b = np.nonzero(np.triu(self.adjacency))
        return [(int(x), int(y)) for x, y in zip(a, b)]

    def to_dict(self) -> dict[str, Any]:
        """The inline JSON form used in records (docs/record-format.md ``board``)."""
        return {
            "districts": list(self.districts),
            "adjacency": [[self.districts[a], self.districts[b]] for a, b in self.edges],
            "positions": {n: [float(x), float(y)] for n, (x, y) in zip(self.districts, self.positions)},
        }


def _fail(msg: str) -> NoReturn:
    raise BoardError(f"invalid board: {msg}")


def board_from_dict(doc: dict[str, Any], name: str = "custom") -> Board:
    """Build and validate a board from its JSON form.

    Args:
        doc: ``{"districts": [14 names], "adjacency": [[a, b], ...], "positions": {name: [x, y]}}``;
            adjacency entries are district names or ids; positions are optional (a grid is used).
        name: the board's name.

    Raises:
        BoardError: not 14 districts, duplicate or empty names, an unknown district in an edge, a
            self-loop, an asymmetric or disconnected graph, or bad positions; the message says which.
    """
    if not isinstance(doc, dict):
        _fail(f"expected an object with 'districts' and 'adjacency', got {type(doc).__name__}")
    districts = doc.get("districts")
    if not isinstance(districts, list) or not all(isinstance(d, str) and d.strip() for d in districts):
        _fail("'districts' must be a list of non-empty names")
    if len(districts) != NUM_DISTRICTS:
        _fail(f"expected {NUM_DISTRICTS} districts, got {len(districts)}")
    seen: dict[str, str] = {}
    for d in districts:
        key = normalize(d)
        if key in seen:
            _fail(f"duplicate district name {d!r} (same as {seen[key]!r})")
        seen[key] = d
    index = {normalize(d): i for i, d in enumerate(districts)}
    adj = np.zeros((NUM_DISTRICTS, NUM_DISTRICTS), dtype=bool)
    edges = doc.get("adjacency")
    if not isinstance(edges, list) or not edges:
        _fail("'adjacency' must be a non-empty list of [district, district] pairs")
    directed = False
    for k, e in enumerate(edges):
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            _fail(f"adjacency entry {k} must be a pair, got {e!r}")
        ids = []
        for v in e:
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < NUM_DISTRICTS:
                ids.append(v)
            elif isinstance(v, str) and normalize(v) in index:
                ids.append(index[normalize(v)])
            else:
                _fail(f"adjacency entry {k} names unknown district {v!r}")
        a, b = ids
        if a == b:
            _fail(f"adjacency entry {k} joins {districts[a]!r} to itself")
        adj[a, b] = True
        directed = directed or bool(doc.get("directed", False))
    if doc.get("directed", False):
        asym = np.argwhere(adj != adj.T)
        if len(asym):
            a, b = asym[0]
            _fail(f"adjacency is not symmetric: {districts[a]!r}-{districts[b]!r} has no reverse edge")
    adj = adj | adj.T
    # connectivity
    reached = {0}
    stack = [0]
    while stack:
        u = stack.pop()
        for v in np.nonzero(adj[u])[0]:
            if int(v) not in reached:
                reached.add(int(v))
                stack.append(int(v))
    if len(reached) != NUM_DISTRICTS:
        missing = [districts[i] for i in range(NUM_DISTRICTS) if i not in reached]
        _fail(f"graph is not connected: {', '.join(map(repr, missing))} cannot be reached from {districts[0]!r}")
    pos_doc = doc.get("positions")
    if pos_doc is None:
        positions = np.array([[i % 4, i // 4] for i in range(NUM_DISTRICTS)], dtype=float)
    else:
        if not isinstance(pos_doc, dict):
            _fail("'positions' must map district names to [x, y]")
        positions = np.zeros((NUM_DISTRICTS, 2))
        got = set()
        for n, xy in pos_doc.items():
            folded = normalize(n) if isinstance(n, str) else None
            if folded is None or folded not in index:
                _fail(f"'positions' names unknown district {n!r}")
            if (not isinstance(xy, (list, tuple)) or len(xy) != 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xy)):
                _fail(f"position of {n!r} must be [x, y] numbers, got {xy!r}")
            positions[index[folded]] = xy
            got.add(index[folded])
        if len(got) != NUM_DISTRICTS:
            missing = [districts[i] for i in range(NUM_DISTRICTS) if i not in got]
            _fail(f"'positions' lacks {', '.join(map(repr, missing))}")
    adj.flags.writeable = False
    positions.flags.writeable = False
    return Board(name=name, districts=tuple(districts), adjacency=adj, positions=positions)


def load_board(board: "str | dict[str, Any] | Board" = "daytime") -> Board:
    """Load a bundled board by name, or validate an inline board object (docs/record-format.md ``board``).

    Raises:
        BoardError: unknown bundled name or an invalid board (see :func:`board_from_dict`).
    """
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        if board not in BUNDLED_BOARDS:
            raise BoardError(f"unknown board {board!r}; bundled boards: {', '.join(BUNDLED_BOARDS)}")
        return _bundled_board(board)
    return board_from_dict(board)


def board_json(board: Board) -> "str | dict[str, Any]":
    """How files name ``board``: a bundled board's name, else its board object (:meth:`Board.to_dict`);
    :func:`load_board` reads either back."""
    for name in BUNDLED_BOARDS:
        if _bundled_board(name) == board:
            return name
    return board.to_dict()


@functools.lru_cache(maxsize=None)
def _bundled_board(name: str) -> Board:
    """A bundled board, read and validated once (a Board is immutable: frozen, read-only arrays);
    saved positions name their board, and loading thousands of them read the file each time."""
    text = resources.files("pi_env.core").joinpath(f"data/{name}.json").read_text(encoding="utf-8")
    return board_from_dict(json.loads(text), name=name)


DAYTIME: Board = load_board("daytime")
"""The published daytime board (docs/rules.md §2)."""
