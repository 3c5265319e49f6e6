"""Text rendering of a game (docs/rules.md §2, §9): ``render_text(state, config, game, viewer)``.

The board is drawn district by district in its printed rows (``board.positions``): each district's
suspect and evidence tile (``-`` for a blank), every player's markers on its tiles and the
investigators placed there; then the display, the cards in front of each player, scores and flags,
the last action and whose turn it is.

Players are labelled as every ``pi-env`` command labels seats (:func:`pi_env.records.types.seat_label`):
``P0``, ``P1``, ... (``P0`` is the environment's ``player_0``). A marker is written ``P0:S`` (a spot
of player P0) or ``P1:T`` (a trace of player P1); an investigator is written ``P2 1S0T`` (player
P2's investigator answered one spot and no trace).

The header names the rules: edition (standard games) or ``duel``, the player count, the variants
and per-player investigator counts when they are not the default. In a duel (docs/rules.md §7) the
players' lines show rounds won instead of a score, the header has no tier (a duel has no points), a
line tells the result of the last finished round, and while the round's first player has solved and
its opponent takes its one more turn a line says so.

Information (docs/rules.md §9): with ``viewer=None`` (a spectator) no case is shown at all; with
``viewer=p`` the rendering adds the case ``p`` holds (player ``p+1``'s) and nothing else hidden, so
it never shows ``p``'s own case.
"""

from __future__ import annotations

from pi_env.core.actions import action_name
from pi_env.core.constants import (ANSWER_NAMES, IN_DISCARD, IN_FRONT, INVESTIGATE_BASE,
                        MAX_INVESTIGATORS, NUM_CASES, NUM_DISTRICTS, ON_DISPLAY, SOLVE_BASE, TYPE_NAMES, TYPE_OFFSETS)
from pi_env.engine.state import DUEL_START_INVESTIGATORS, GameConfig, State
from pi_env.core.errors import PIError
from pi_env.core.named import case_text
from pi_env.core.names import element_names
from pi_env.core.text import format_table
from pi_env.records.types import seat_label


def answer_text(action: int, answer: "tuple[int, int]") -> str:
    """Readable answer to ``action``: ``"spot"``/``"trace"``/``"nothing"`` for a clue,
    ``"1 spot, 2 traces"`` for an investigator, ``"correct"``/``"wrong"`` for a solve."""
    a = int(action)
    if a < INVESTIGATE_BASE:
        return ANSWER_NAMES[int(answer[0])]
    if a < SOLVE_BASE:
        s, t = int(answer[0]), int(answer[1])
        return f"{s} spot{'' if s == 1 else 's'}, {t} trace{'' if t == 1 else 's'}"
    return "correct" if int(answer[0]) == 1 else "wrong"


def rules_text(config: GameConfig) -> str:
    """The rules part of the header: ``"second edition, 4 players"``, ``"duel, 2 players, fast"``,
    ``"first edition, 4 players, nick-of-time, investigators 5,5,3,3"``."""
    parts = ["duel" if config.is_duel else f"{config.edition} edition", f"{config.num_players} players",
             *config.variants]
    default = DUEL_START_INVESTIGATORS if config.is_duel else MAX_INVESTIGATORS
    if any(k != default for k in config.investigators):
        parts.append("investigators " + ",".join(map(str, config.investigators)))
    return ", ".join(parts)


def check_game_and_viewer(state: State, game: int, viewer: int | None) -> tuple[int, int]:
    """``(game, num_players)`` after checking ``game`` and ``viewer`` against ``state``.

    Raises:
        PIError: ``game`` outside ``0..B-1`` or ``viewer`` not ``None`` nor ``0..P-1``.
    """
    b = int(game)
    if not 0 <= b < state.batch_size:
        raise PIError(f"game must be 0..{state.batch_size - 1}, got {game!r}")
    P = state.num_players
    if viewer is not None and not 0 <= int(viewer) < P:
        raise PIError(f"viewer must be None or 0..{P - 1}, got {viewer!r}")
    return b, P


def _header_lines(state: State, config: GameConfig, b: int, P: int, done: bool) -> list[str]:
    """The title, who moves, the duel's round result and the legend of :func:`render_text`."""
    rounds = config.num_rounds
    duel = config.is_duel
    lines: list[str] = []
    played = int(state.round[b])  # rounds finished
    shown_round = played if done else played + 1
    round_text = f"round {shown_round}/{rounds}"
    if shown_round > rounds:  # a tied duel goes on (docs/rules.md §7)
        round_text = f"round {shown_round} (tie-break, at most {config.max_rounds})"
    tier_text = "" if duel else f", tier {int(state.tier[b])}"
    lines.append(f"P.I. ({rules_text(config)}): {round_text}, rotation {int(state.rotation[b]) + 1}"
                 f"{tier_text}, turn {int(state.turn[b])}")
    fp = int(state.first_player[b])
    if done:
        lines.append("Game over.")
    else:
        cp = int(state.current_player[b])
        lines.append(f"To move: {seat_label(cp)}; first player this round: {seat_label(fp)}")
        if duel and state.extra_turn[b]:
            lines.append(f"One more turn for {seat_label(cp)}: {seat_label(fp)} "
                         f"solved as the round's first player; a correct solve now draws the round, "
                         f"anything else loses it.")
    if duel and played > 0 and int(state.round_winner[b]) >= -1:
        w = int(state.round_winner[b])
        lines.append(f"Round {played} was won by {seat_label(w)}." if w >= 0
                     else f"Round {played} was a draw.")
    lines.append(f"Players P0..P{P - 1} are player_0..player_{P - 1}; markers: S = spot, T = trace; "
                 "investigators show spots/traces answered.")

    return lines


def _board_lines(state: State, config: GameConfig, b: int, P: int, names: tuple[str, ...]) -> list[str]:
    """The board of :func:`render_text`: each district's tiles, markers and investigators, row by row."""
    board = config.board
    lines: list[str] = []
    # Board, row by row.
    lines.append("")
    lines.append("Board")
    spot, trace = state.spot[b], state.trace[b]

    def markers(x: int) -> str:
        out = []
        for i in range(P):
            if spot[i, x]:
                out.append(f"{seat_label(i)}:S")
            if trace[i, x]:
                out.append(f"{seat_label(i)}:T")
        return " ".join(out)

    def tile(e: int) -> str:
        if e < 0:
            return "-"
        m = markers(e)
        return f"{names[e]} {m}" if m else names[e]

    invs: list[list[str]] = [[] for _ in range(NUM_DISTRICTS)]
    for i in range(P):
        for k in range(int(state.inv_count[b, i])):
            d = int(state.inv_district[b, i, k])
            s, t = int(state.inv_answer[b, i, k, 0]), int(state.inv_answer[b, i, k, 1])
            text = f"{seat_label(i)} {s}S{t}T"
            skipped = [TYPE_NAMES[ty] for ty in range(3) if state.inv_suppressed[b, i, k, ty]]
            if skipped:
                text += f" ({', '.join(skipped)} not counted)"
            invs[d].append(text)
    pos = board.positions
    row_of = [int(round(float(pos[d, 1]))) for d in range(NUM_DISTRICTS)]
    order = sorted(range(NUM_DISTRICTS), key=lambda d: (row_of[d], float(pos[d, 0]), d))
    table = [["district", "suspect", "evidence", "location", "investigators"]]
    row_breaks = []
    prev = None
    for d in order:
        if row_of[d] != prev:
            row_breaks.append(len(table))
            prev = row_of[d]
        loc = TYPE_OFFSETS[2] + d
        table.append([board.districts[d], tile(int(state.district_tile[b, d, 0])),
                      tile(int(state.district_tile[b, d, 1])), markers(loc) or ".",
                      ", ".join(invs[d])])
    rendered = format_table(table, indent="  ")
    lines.append(rendered[0])
    for n, text in enumerate(rendered[1:], start=1):
        if n in row_breaks:
            lines.append(f"  row {row_of[order[n - 1]]}")
        lines.append(text)

    return lines


def _card_lines(state: State, b: int, names: tuple[str, ...]) -> list[str]:
    """The display, the deck, the discard pile and the cards in front of players (:func:`render_text`)."""
    lines: list[str] = []
    # Cards.
    place = state.card_place[b]
    display = [names[x] for x in range(len(names)) if place[x] == ON_DISPLAY]
    lines.append("")
    lines.append(f"Display ({len(display)}): " + (", ".join(display) if display else "(empty)"))
    lines.append(f"Deck: {int(state.deck_size[b])} cards; discard pile: "
                 f"{int((place == IN_DISCARD).sum())} cards; in front of players: "
                 f"{int((place == IN_FRONT).sum())} cards")

    return lines


def _player_lines(state: State, config: GameConfig, b: int, P: int, names: tuple[str, ...], done: bool) -> list[str]:
    """Each player's score, investigators, flags, cards in front, solved and failed cases (:func:`render_text`)."""
    duel = config.is_duel
    lines: list[str] = []
    # Players.
    lines.append("")
    lines.append("Players")
    for i in range(P):
        flags = []
        if state.attempted[b, i]:
            flags.append("attempted")
        if state.solved[b, i]:
            flags.append("solved")
        tag = ""
        if not done and i == int(state.current_player[b]):
            tag = "  <- to move"
        score = (f"rounds won {int(state.score[b, i])}" if duel else f"score {int(state.score[b, i])}")
        lines.append(f"  {seat_label(i)}: {score}, investigators left "
                     f"{int(state.inv_left[b, i])}" + (f", {', '.join(flags)}" if flags else "") + tag)
        front = [names[x] for x in range(len(names)) if state.front[b, i, x]]
        if front:
            lines.append(f"      in front: {', '.join(front)}")
        sc = int(state.solved_case[b, i])
        if sc >= 0:
            lines.append(f"      solved: {case_text(sc, names)}")
        failed = [c for c in range(NUM_CASES) if state.failed[b, i, c]] if state.attempted[b, i] else []
        if failed:
            lines.append(f"      failed: {'; '.join(case_text(c, names) for c in failed)}")

    return lines


def _closing_lines(state: State, config: GameConfig, b: int, P: int, names: tuple[str, ...], viewer: int | None, done: bool) -> list[str]:
    """The last action, the case the viewer holds, and the final result (:func:`render_text`)."""
    board = config.board
    duel = config.is_duel
    lines: list[str] = []
    la = int(state.last_action[b])
    if la >= 0:
        lp = int(state.last_player[b])
        ans = answer_text(la, (int(state.last_answer[b, 0]), int(state.last_answer[b, 1])))
        lines.append("")
        lines.append(f"Last action: {seat_label(lp)} {action_name(la, board)} -> {ans}")

    if viewer is not None:
        v = int(viewer)
        h = (v + 1) % P
        c = state.case[b, h]
        held = (f"{names[int(c[0])]} / {names[TYPE_OFFSETS[1] + int(c[1])]} / "
                f"{names[TYPE_OFFSETS[2] + int(c[2])]}")
        lines.append("")
        lines.append(f"Held case ({seat_label(v)} holds {seat_label(h)}'s case): {held}")

    if done:
        from pi_env.engine.api import outcome
        res = outcome(state, config, b)
        lines.append("")
        scores = ", ".join(f"{seat_label(i)} {s}" for i, s in enumerate(res.scores))
        limit = "; a round was ended by the rotation limit"
        if duel and len(res.winners) > 1:
            lines.append(f"Final round wins: {scores}; no winner: the duel was still tied after "
                         f"{config.max_rounds} rounds (the safeguard)")
        elif duel:
            lines.append(f"Final round wins: {scores}; duel won by {seat_label(res.winners[0])}"
                         + (limit if res.truncated else ""))
        else:
            lines.append("Final scores: " + scores + "; winner" + ("s" if len(res.winners) > 1 else "")
                         + ": " + ", ".join(seat_label(i) for i in res.winners)
                         + (limit if res.truncated else ""))
    return lines


def render_text(state: State, config: GameConfig, game: int = 0, viewer: int | None = None) -> str:
    """A readable text picture of game ``game`` of ``state``.

    Args:
        state: a batch of games.
        config: the batch's rules options (board, edition, mode, variants).
        game: which game of the batch.
        viewer: ``None`` for a spectator (no case shown), or the player whose view to draw (adds
            the case it holds, player ``viewer+1``'s, and never its own; nothing else differs).

    Returns:
        A multi-line string (no trailing newline).

    Raises:
        PIError: ``game`` or ``viewer`` out of range.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=3)
        >>> print(render_text(init(cfg, 1, seed=0), cfg).splitlines()[0])
        P.I. (second edition, 3 players): round 1/3, rotation 0, tier 0, turn 0
    """
    b, P = check_game_and_viewer(state, game, viewer)
    names = element_names(config.board)
    done = bool(state.done[b])
    lines = _header_lines(state, config, b, P, done)
    lines += _board_lines(state, config, b, P, names)
    lines += _card_lines(state, b, names)
    lines += _player_lines(state, config, b, P, names, done)
    lines += _closing_lines(state, config, b, P, names, viewer, done)
    return "\n".join(lines)


__all__ = ["render_text", "rules_text", "answer_text"]
