"""A person at the keyboard as an agent, and the seat's view it is shown (docs/rules.md §9).

:func:`seat_view` turns one player's engine observation (:func:`pi_env.engine.observe`) into a
plain, JSON-ready dict with absolute player numbers: the board of the current round (tiles,
every player's markers and investigators), the display, the cards in front of each player, scores,
flags, the tier and the case the player holds. It reads nothing but the observation, so it cannot
show more than the player may know: never the player's own case, never a case it does not hold
(a case named in a correct solve is public, docs/rules.md §9, and is shown). The web app
(:mod:`pi_env.apps.web`) sends exactly this dict to a seat; :class:`HumanAgent` prints it as text.

:class:`HumanAgent` asks for a move on each turn: ``clue NAME``, ``investigate DISTRICT``,
``solve SUSPECT / EVIDENCE / LOCATION`` (names matched as in docs/record-format.md: case, spaces, apostrophes
and accents do not matter, first-edition words are accepted), ``board``, ``map``, ``help``.
An illegal or unreadable move gets a one-line reason and the question is asked again.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pi_env.core.actions import action_name, case_name, parse_action
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import CASE_TRIPLES, INVESTIGATE_BASE, NUM_DISTRICTS, SOLVE_BASE, TYPE_OFFSETS
from pi_env.core.errors import InvalidActionError, UnknownNameError
from pi_env.core.rules import last_tier as rules_last_tier
from pi_env.core.names import element_names
from pi_env.core.text import format_table, normalize
from pi_env.engine.observe import decode_observation
from pi_env.engine.ranking import tier_points
from pi_env.records.types import seat_label
from pi_env.solvers.observation import case_of_elements

from pi_env.agents.base import Agent

__all__ = ["HumanAgent", "seat_view", "seat_view_lines", "HUMAN_HELP", "case_doc"]

HUMAN_HELP = """Commands (one per line; names as on the board, case and accents do not matter):
  clue NAME                              take a clue card of the display (suspect, evidence or location)
  investigate DISTRICT                   place an investigator tile in a district
  solve SUSPECT / EVIDENCE / LOCATION    name your case (wrong: -2 points)
  board                                  show the board again
  map                                    which districts are next to which
  help                                   this list
Answers: spot = it is your case's; trace = your case's tile of that type is in a district next to it;
nothing = neither. An investigator counts your case's tiles in its district (spots) and next to it (traces)."""


def _case_or_none(one_hot: np.ndarray) -> int | None:
    """Case id of a 36-entry 0/1 vector with one element of each type, else ``None``."""
    c = case_of_elements(one_hot)
    return None if c < 0 else c


def case_doc(case: int, names: "tuple[str, ...] | list[str]") -> dict[str, Any]:
    """``{"id", "suspect", "evidence", "location"}`` of a case id (names: :func:`element_names`)."""
    s, e, loc = (int(v) for v in CASE_TRIPLES[case])
    return {"id": int(case), "suspect": names[s], "evidence": names[TYPE_OFFSETS[1] + e],
            "location": names[TYPE_OFFSETS[2] + loc]}


def seat_view(observation: np.ndarray, num_players: int, player: int, board: Board = DAYTIME, *,
              edition: str = "second", duel: bool = False, action_mask: np.ndarray | None = None,
              spectator: bool = False) -> dict[str, Any]:
    """What ``player`` sees, from its observation only (module docstring).

    Args:
        observation: ``int16[618 + 1912 * P]``, :func:`pi_env.engine.observe` of ``player``.
        num_players: ``P``.
        player: the observer's absolute number (the observation's seat 0).
        board: the game's board (districts, positions, adjacency).
        edition: ``"second"`` or ``"first"`` (points of the tier track, docs/rules.md §5).
        duel: a duel (docs/rules.md §7): no tier track, scores are rounds won.
        action_mask: ``int8[1730]`` the player's legal actions when it is to move; the view then
            lists its legal clue cards and districts under ``"legal"``.
        spectator: leave out the held case (a view for someone who holds no case).

    Returns:
        A JSON-ready dict: ``round`` (1-based), ``rotation`` (1-based), ``tier``, ``tier_points``
        (points of each tier this round), ``to_move``, ``first_player``, ``tiles`` (per district:
        suspect and evidence element id or ``None``), ``spots``/``traces``/``front`` (per player:
        element ids), ``investigators`` (``player, district, spots, traces, suppressed``),
        ``display`` (element ids), ``discard`` and ``deck`` (counts), ``scores``,
        ``investigators_left``, ``attempted``, ``solved``, ``solved_case`` (per player a case doc
        or ``None``), ``failed`` (per player case docs), ``held`` (``{"player", "case"}``, or
        ``None`` for a spectator) and ``legal`` (``{"clues", "districts"}`` or ``None``).

    Raises:
        ValueError: an observation of the wrong length.
    """
    P = int(num_players)
    o = decode_observation(np.asarray(observation), P)
    names = element_names(board)
    tile_district = np.argmax(o["tiles"], axis=1)
    tiles = [{"suspect": None, "evidence": None} for _ in range(NUM_DISTRICTS)]
    for x in range(TYPE_OFFSETS[2]):
        tiles[int(tile_district[x])]["suspect" if x < TYPE_OFFSETS[1] else "evidence"] = x

    def absolute(j: int) -> int:
        return (player + j) % P

    def per_player(name: str) -> list:
        out: list = [None] * P
        for j in range(P):
            out[absolute(j)] = o[name][j]
        return out

    spots = [np.flatnonzero(a).tolist() for a in per_player("spot")]
    traces = [np.flatnonzero(a).tolist() for a in per_player("trace")]
    front = [np.flatnonzero(a).tolist() for a in per_player("front")]
    investigators = []
    for j in range(P):
        for d in np.flatnonzero(o["inv_placed"][j]):
            investigators.append({"player": absolute(j), "district": int(d), "spots": int(o["inv_spots"][j, d]),
                                  "traces": int(o["inv_traces"][j, d]),
                                  "suppressed": [bool(v) for v in o["inv_suppressed"][j, d]]})
    solved_case = []
    for a in per_player("solved_case"):
        c = _case_or_none(a)
        solved_case.append(None if c is None else case_doc(c, names))
    failed = [[case_doc(int(c), names) for c in np.flatnonzero(a)] for a in per_player("failed")]
    rnd = int(o["round"][0])
    held = None
    if not spectator:
        c = _case_or_none(o["held_case"])
        held = {"player": (player + 1) % P, "case": None if c is None else case_doc(c, names)}
    legal = None
    if action_mask is not None:
        m = np.asarray(action_mask)
        legal = {"clues": np.flatnonzero(m[:INVESTIGATE_BASE]).tolist(),
                 "districts": np.flatnonzero(m[INVESTIGATE_BASE:SOLVE_BASE]).tolist()}
    last_tier = rules_last_tier(P)
    return {
        "players": P, "you": None if spectator else int(player),
        "round": rnd + 1, "rotation": int(o["rotation"][0]) + 1, "tier": int(o["tier"][0]),
        "tier_points": [] if duel else [tier_points(k, rnd, P, edition) for k in range(last_tier + 1)],
        "first_player": absolute(int(o["first_seat"][0])), "to_move": absolute(int(o["to_move"][0])),
        "tiles": tiles, "spots": spots, "traces": traces, "front": front, "investigators": investigators,
        "display": np.flatnonzero(o["display"]).tolist(), "discard": int(o["discard"].sum()),
        "deck": int(o["deck_size"][0]),
        "scores": [int(v) for v in per_player("score")],
        "investigators_left": [int(v) for v in per_player("inv_left")],
        "attempted": [bool(v) for v in per_player("attempted")],
        "solved": [bool(v) for v in per_player("solved")],
        "solved_case": solved_case, "failed": failed, "held": held, "legal": legal,
    }


def seat_view_lines(view: dict[str, Any], board: Board = DAYTIME, labels: list[str] | None = None) -> list[str]:
    """The text form of a :func:`seat_view` (what :class:`HumanAgent` prints).

    Players are named by ``labels`` (one per seat), by default as every ``pi-env`` command labels
    seats (:func:`pi_env.records.types.seat_label`): ``"P1"``, and ``"P0 (you)"`` for the view's own
    seat (``view["you"]``). Markers and investigators on the board carry the bare seat label
    (``P1:S``, ``P1 1S0T``)."""
    names = element_names(board)
    P = view["players"]
    labels = labels or [f"{seat_label(i)} (you)" if i == view.get("you") else seat_label(i) for i in range(P)]
    lines = [f"Round {view['round']}, rotation {view['rotation']}, tier {view['tier']}"
             + (f" (a correct solve now scores {view['tier_points'][view['tier']]})"
                if view["tier_points"] and view["tier"] < len(view["tier_points"]) else "")]
    marks: dict[int, list[str]] = {}
    for i in range(P):
        for x in view["spots"][i]:
            marks.setdefault(x, []).append(f"{seat_label(i)}:S")
        for x in view["traces"][i]:
            marks.setdefault(x, []).append(f"{seat_label(i)}:T")

    def tile(x: int | None) -> str:
        if x is None:
            return "-"
        m = " ".join(marks.get(x, []))
        return f"{names[x]} {m}" if m else names[x]

    invs: dict[int, list[str]] = {}
    for inv in view["investigators"]:
        invs.setdefault(inv["district"], []).append(
            f"{seat_label(inv['player'])} {inv['spots']}S{inv['traces']}T")
    rows = [["district", "suspect", "evidence", "location", "investigators"]]
    pos = board.positions
    order = sorted(range(NUM_DISTRICTS), key=lambda d: (float(pos[d, 1]), float(pos[d, 0]), d))
    for d in order:
        loc = TYPE_OFFSETS[2] + d
        rows.append([board.districts[d], tile(view["tiles"][d]["suspect"]), tile(view["tiles"][d]["evidence"]),
                     " ".join(marks.get(loc, [])) or ".", ", ".join(invs.get(d, []))])
    lines += format_table(rows, indent="  ")
    lines.append("Display: " + (", ".join(names[x] for x in view["display"]) or "(empty)")
                 + f"   (deck {view['deck']}, discard {view['discard']})")
    for i in range(P):
        flags = [f for f, on in (("attempted", view["attempted"][i]), ("solved", view["solved"][i])) if on]
        tag = "  <- to move" if i == view["to_move"] else ""
        lines.append(f"  {labels[i]}: score {view['scores'][i]}, investigators left "
                     f"{view['investigators_left'][i]}" + (f", {', '.join(flags)}" if flags else "") + tag)
        if view["front"][i]:
            lines.append(f"      in front: {', '.join(names[x] for x in view['front'][i])}")
        if view["solved_case"][i]:
            c = view["solved_case"][i]
            lines.append(f"      solved: {c['suspect']} / {c['evidence']} / {c['location']}")
        if view["failed"][i]:
            lines.append("      failed: " + "; ".join(f"{c['suspect']} / {c['evidence']} / {c['location']}"
                                                      for c in view["failed"][i]))
    held = view["held"]
    if held is not None and held["case"] is not None:
        c = held["case"]
        lines.append(f"You hold {labels[held['player']]}'s case: {c['suspect']} / {c['evidence']} / "
                     f"{c['location']} (you answer its questions; your own case is hidden from you)")
    return lines


class HumanAgent(Agent):
    """A person choosing each move at a prompt (module docstring).

    Args:
        input_fn: reads one line given a prompt (``input``); ``EOFError`` or ``KeyboardInterrupt``
            propagate (the caller ends the game).
        output_fn: writes one line.
        label: how the prompt names the player (default its seat label, ``"P2"``).
        edition: ``"second"`` or ``"first"`` (tier points shown).
        duel: a duel (no tier points).
        hot_seat: several people share the screen: before the seat's view is shown, ``clear_fn``
            is called and the person is asked to press Enter once alone at the screen; after the
            move, ``clear_fn`` is called again, so nobody sees a case it does not hold.
        clear_fn: clears the screen (and its scrollback); needed with ``hot_seat``.
    """

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output_fn: Callable[[str], None] = print,
                 label: str | None = None, edition: str = "second", duel: bool = False,
                 hot_seat: bool = False, clear_fn: Callable[[], None] | None = None):
        self.input_fn, self.output_fn = input_fn, output_fn
        self.label, self.edition, self.duel = label, edition, duel
        self.hot_seat, self.clear_fn = hot_seat, clear_fn
        self.player = 0

    def show(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> None:
        """Print the seat's view (board, display, players, held case)."""
        view = seat_view(observation, self.num_players, self.player, self.board, edition=self.edition,
                         duel=self.duel, action_mask=action_mask)
        for line in seat_view_lines(view, self.board):
            self.output_fn(line)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Ask until a legal move is typed; returns its action id."""
        label = self.label or seat_label(self.player)
        if self.hot_seat:
            self._clear()
            self.input_fn(f"{label}: your turn. Press Enter when only you can see the screen. ")
        action = self._ask(observation, action_mask, f"{label}> ")
        if self.hot_seat:
            self._clear()
        return action

    def _clear(self) -> None:
        if self.clear_fn is not None:
            self.clear_fn()

    def _ask(self, observation: np.ndarray, action_mask: np.ndarray, prompt: str) -> int:
        self.show(observation, action_mask)
        board = self.board
        while True:
            line = self.input_fn(prompt).strip()
            if not line:
                continue
            word = normalize(line.split()[0])
            rest = line.split(None, 1)[1] if len(line.split()) > 1 else ""
            if word in ("help", "h", "?") and not rest:
                self.output_fn(HUMAN_HELP)
                continue
            if word == "board" and not rest:
                self.show(observation, action_mask)
                continue
            if word == "map" and not rest:
                for d in range(NUM_DISTRICTS):
                    near = ", ".join(board.districts[int(j)] for j in np.flatnonzero(board.adjacency[d]))
                    self.output_fn(f"  {board.districts[d]}: next to {near}")
                continue
            try:
                a = parse_action(line, board)
            except (InvalidActionError, UnknownNameError) as exc:
                self.output_fn(f"{exc}. Type 'help' for the commands.")
                continue
            if not action_mask[a]:
                self.output_fn(_illegal_reason(a, observation, self.num_players, board)
                               + " Choose another move.")
                continue
            return int(a)


def _illegal_reason(action: int, observation: np.ndarray, num_players: int, board: Board) -> str:
    """Why ``action`` is not legal for the observer now (one line)."""
    o = decode_observation(np.asarray(observation), num_players)
    if action < INVESTIGATE_BASE:
        return f"{element_names(board)[action]}'s clue card is not on the display."
    if action < SOLVE_BASE:
        d = action - INVESTIGATE_BASE
        if int(o["inv_left"][0]) <= 0:
            return "You have no investigator tiles left."
        if o["inv_placed"][0, d]:
            return f"You already have an investigator in {board.districts[d]} this round."
        return f"{action_name(action, board)} is not legal now."
    return f"{case_name(action - SOLVE_BASE, board)} cannot be named now."

