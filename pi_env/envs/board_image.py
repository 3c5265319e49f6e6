"""Board pictures (docs/rules.md §2, §9): ``board_image(state, config, game) -> uint8[H, W, 3]``.

The board is drawn from the board data (:class:`pi_env.core.board.Board`): every district as a box at its
rendering position (``board.positions``: rows top to bottom), joined by a line to each adjacent
district. A box shows the district's name, its suspect and evidence tile (names abbreviated,
:func:`abbreviate`; ``-`` for a blank) and

* every player's markers on the district's three tiles (suspect, evidence and the printed location
  on the name line): a dot in the player's colour with ``S`` (spot) or ``T`` (trace);
* the investigators placed there this round: a square in the player's colour with the counts it was
  answered (``1S0T`` = one spot, no trace).

A panel beside the board (:func:`panel_lines`) gives the rules header (as
:func:`pi_env.envs.render.render_text`), whose turn it is (or that the round or the game is over),
each player's colour, label (a record's seat labels as the CLI prints them, ``P1 (Ben)``,
``P1 (random)``; else the seat label alone, ``P1``), score, investigators left and flags
(attempted, solved, out of the round by the incorrect-information rule), the display, the deck and
discard pile, the last action and its answer (a record's declaration of an incorrect answer
included), and the final scores once the game is over.

Information (docs/rules.md §9): like the text rendering, ``viewer=None`` is a spectator's picture with no
case at all; ``viewer=p`` adds the case ``p`` holds (player ``p+1``'s), never ``p``'s own.

Drawn with matplotlib's Agg canvas (no display needed), about 0.2 s per picture.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pi_env.core.actions import action_name
from pi_env.core.constants import (IN_DISCARD, IN_FRONT, INVESTIGATE_BASE, NUM_DISTRICTS, ON_DISPLAY, SOLVE_BASE,
                                   TYPE_OFFSETS)
from pi_env.engine.state import GameConfig, State
from pi_env.core.errors import PIError
from pi_env.core.files import write_bytes_atomic
from pi_env.core.named import case_text
from pi_env.core.names import element_names
from pi_env.records.types import seat_label
from pi_env.envs.render import check_game_and_viewer, answer_text, rules_text

__all__ = ["board_image", "abbreviate", "PLAYER_COLOURS", "write_png", "png_bytes", "record_position",
           "typed_record_position", "record_picture", "record_panel", "panel_lines", "PanelLine"]

PLAYER_COLOURS: tuple[str, ...] = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")
"""Colour of players P0..P4 (``player_0`` .. ``player_4``)."""

_SHORT = {"Mob Killing": "Mob Kill.", "Police Corruption": "Pol. Corr.", "Kidnapping": "Kidnap.",
          "Jewellery Heist": "Jewel H.", "Protection Racket": "Prot. Rack.", "Blackmail": "Blackm.",
          "Smuggling": "Smuggl.", "Knuckles": "Knuckl."}
_MAX_LEN = 8


def abbreviate(name: str) -> str:
    """A short label for a tile: the name if at most 8 characters, a fixed abbreviation for the
    long suspect and evidence names (``"Police Corruption"`` -> ``"Pol. Corr."``), else the first
    7 characters and a full stop."""
    if len(name) <= _MAX_LEN:
        return name
    return _SHORT.get(name, name[:_MAX_LEN - 1].rstrip(" .'") + ".")


def board_image(state: State, config: GameConfig, game: int = 0, viewer: int | None = None,
                size: tuple[int, int] = (1400, 1000), *, display_known: bool = True,
                labels: "Sequence[str] | None" = None, status: str | None = None,
                last_event: "tuple[int, str, str] | None" = None, out: "Sequence[int]" = ()) -> np.ndarray:
    """A picture of game ``game`` of ``state`` (module docstring).

    Args:
        state: a batch of games.
        config: the batch's rules (board, edition, mode).
        game: which game of the batch.
        viewer: ``None`` for a spectator (no case shown), or the player whose held case to add.
        size: ``(width, height)`` in pixels.
        display_known: ``False`` for a position of a record typed in at a table
            (:func:`typed_record_position`): the panel then says the display lists only the cards
            known to be face up, and that the deck and the discard pile were not recorded.
        labels, status, last_event, out: what a record adds to the panel
            (:func:`panel_lines`; :func:`record_picture` fills them in).

    Returns:
        ``uint8[height, width, 3]`` RGB.

    Raises:
        PIError: ``game`` or ``viewer`` out of range; ``labels`` not one per seat.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=3)
        >>> img = board_image(init(cfg, 1, seed=0), cfg)
        >>> img.shape, img.dtype
        ((1000, 1400, 3), dtype('uint8'))
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

    b, P = check_game_and_viewer(state, game, viewer)
    width, height = size
    dpi = 100
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    board = config.board
    names = element_names(board)
    split = 0.7  # the board's share of the width; the text panel has the rest
    ax = fig.add_axes((0.0, 0.0, split, 1.0))
    ax.set_axis_off()
    pos = np.asarray(board.positions, dtype=float)
    xs, ys = pos[:, 0], -pos[:, 1]
    bw, bh = 0.92, 0.84  # district box, in board units
    x_range = (xs.min() - bw / 2 - 0.05, xs.max() + bw / 2 + 0.05)
    y_range = (ys.min() - bh / 2 - 0.05, ys.max() + bh / 2 + 0.05)
    ax.set_xlim(*x_range)
    ax.set_ylim(*y_range)
    ax.set_aspect("equal")
    ppu = min(split * width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0]))  # px per unit
    fs = 0.06 * ppu * 72 / dpi  # text size in points, about 6% of a board unit
    for a_, c_ in board.edges:
        ax.plot([xs[a_], xs[c_]], [ys[a_], ys[c_]], color="#bbbbbb", lw=2, zorder=0)
    spot, trace = state.spot[b], state.trace[b]
    dot = 0.04

    def marks(x: int) -> list[tuple[int, str]]:
        out = []
        for i in range(P):
            if spot[i, x]:
                out.append((i, "S"))
            if trace[i, x]:
                out.append((i, "T"))
        return out

    def draw_marks(x0: float, y0: float, items: list[tuple[int, str]]) -> None:
        for k, (i, letter) in enumerate(items):
            cx = x0 + k * (2.1 * dot)
            ax.add_patch(Circle((cx, y0), dot, color=PLAYER_COLOURS[i], zorder=3))
            ax.text(cx, y0, letter, color="white", fontsize=fs * 0.8, ha="center", va="center",
                    fontweight="bold", zorder=4)

    invs: list[list[tuple[int, int, int]]] = [[] for _ in range(NUM_DISTRICTS)]
    for i in range(P):
        for k in range(int(state.inv_count[b, i])):
            d = int(state.inv_district[b, i, k])
            invs[d].append((i, int(state.inv_answer[b, i, k, 0]), int(state.inv_answer[b, i, k, 1])))
    for d in range(NUM_DISTRICTS):
        x, y = xs[d], ys[d]
        left, top = x - bw / 2, y + bh / 2
        ax.add_patch(FancyBboxPatch((left, y - bh / 2), bw, bh, boxstyle="round,pad=0,rounding_size=0.06",
                                    facecolor="#fbf6e9", edgecolor="#6b5b3e", lw=1.2, zorder=1))
        loc = TYPE_OFFSETS[2] + d
        ax.text(left + 0.04, top - 0.09, board.districts[d], fontsize=fs, fontweight="bold",
                va="center", ha="left", zorder=2)
        draw_marks(left + 0.06, top - 0.21, marks(loc))
        for row, t in ((1, 0), (2, 1)):
            e = int(state.district_tile[b, d, t])
            label = "-" if e < 0 else abbreviate(names[e])
            yy = top - 0.21 - row * 0.15
            ax.text(left + 0.04, yy, ("S: " if t == 0 else "E: ") + label, fontsize=fs, va="center",
                    ha="left", zorder=2, color="#222222" if e >= 0 else "#999999")
            if e >= 0:
                draw_marks(left + 0.52, yy, marks(e))
        for k, (i, s, t) in enumerate(invs[d]):
            cx = left + 0.04 + (k % 4) * 0.215
            cy = y - bh / 2 + 0.07 + (k // 4) * 0.12
            ax.add_patch(Rectangle((cx, cy - 0.045), 0.2, 0.09, color=PLAYER_COLOURS[i], zorder=3))
            ax.text(cx + 0.1, cy, f"{s}S{t}T", fontsize=fs * 0.85, color="white", ha="center",
                    va="center", fontweight="bold", zorder=4)
    _panel(fig, panel_lines(state, config, b, viewer, display_known=display_known, labels=labels,
                            status=status, last_event=last_event, out=out),
           split, 0.012 * height * 72 / dpi)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    return image


@dataclass(frozen=True)
class PanelLine:
    """One line of the text panel: its ``text``, size relative to the panel's font, weight,
    colour, an optional colour ``swatch`` drawn before it (a player's row) and extra space above."""

    text: str
    size: float = 1.0
    bold: bool = False
    color: str | None = None
    swatch: str | None = None
    gap: bool = False


def panel_lines(state: State, config: GameConfig, game: int = 0, viewer: int | None = None, *,
                display_known: bool = True, labels: "Sequence[str] | None" = None,
                status: str | None = None, last_event: "tuple[int, str, str] | None" = None,
                out: "Sequence[int]" = ()) -> list[PanelLine]:
    """The lines of the text panel beside the board (:func:`board_image`), top to bottom.

    Args:
        state, config, game, viewer, display_known: as :func:`board_image`.
        labels: one label per seat, shown wherever the panel names a player (a record's seat labels
            as the CLI prints them, ``"P2 (deducer)"``, ``"P2 (Cleo)"``, ``"P2"``:
            :func:`record_panel`); ``None``: the seat label alone (``"P2"``,
            :func:`pi_env.records.types.seat_label`), as the text rendering names players.
        status: replaces the line saying who is to move (e.g. ``"Round 1 is over"`` at a round's
            end); ``None``: "To move: ..." (or "Game over").
        last_event: ``(player, action, answer)`` texts replacing the state's last action (a
            record's declaration of an incorrect answer is not an engine action).
        out: players taking no more turns this round (incorrect information): flagged ``out``.

    Raises:
        PIError: ``game`` or ``viewer`` out of range; ``labels`` not one per seat.
    """
    b, P = check_game_and_viewer(state, game, viewer)
    board = config.board
    names = element_names(board)

    if labels is not None and len(labels) != P:
        raise PIError(f"labels: one per seat ({P}), got {len(labels)}: {list(labels)!r}")

    def tag(i: int) -> str:
        return seat_label(i) if labels is None else labels[i]

    lines: list[PanelLine] = [PanelLine("P.I.", size=1.6, bold=True), PanelLine(rules_text(config), gap=True)]
    done = bool(state.done[b])
    played = int(state.round[b])
    shown = played if done else played + 1
    tier = "" if config.is_duel else f", tier {int(state.tier[b])}"
    lines.append(PanelLine(f"round {shown}/{config.num_rounds}, rotation {int(state.rotation[b]) + 1}{tier}, "
                           f"turn {int(state.turn[b])}"))
    if status is not None:
        lines.append(PanelLine(status, bold=True))
    elif done:
        lines.append(PanelLine("Game over", bold=True))
    else:
        cp = int(state.current_player[b])
        fp = int(state.first_player[b])
        lines.append(PanelLine(f"To move: {tag(cp)}; first player {tag(fp)}",
                               bold=True, color=PLAYER_COLOURS[cp]))
    first_row = True
    for i in range(P):
        flags = [f for f, on in (("attempted", state.attempted[b, i]), ("solved", state.solved[b, i]),
                                 ("out (incorrect information)", i in out)) if on]
        what = "rounds won" if config.is_duel else "score"
        lines.append(PanelLine(f"{tag(i)}: {what} {int(state.score[b, i])}, "
                               f"inv. left {int(state.inv_left[b, i])}" + (f", {', '.join(flags)}" if flags else ""),
                               swatch=PLAYER_COLOURS[i], gap=first_row))
        first_row = False
        front = [abbreviate(names[x]) if x < TYPE_OFFSETS[2] else names[x]  # districts in full
                 for x in np.flatnonzero(state.front[b, i])]
        for k in range(0, len(front), 4):
            lines.append(PanelLine(("    in front: " if k == 0 else "        ") + ", ".join(front[k:k + 4]), size=0.85))
        sc = int(state.solved_case[b, i])
        if sc >= 0:
            lines.append(PanelLine(f"    solved: {case_text(sc, names)}", size=0.85))
        nf = int(state.failed[b, i].sum())
        if nf:
            lines.append(PanelLine(f"    failed solves this round: {nf}", size=0.85))
    place = state.card_place[b]
    display = [names[x] for x in np.flatnonzero(place == ON_DISPLAY)]
    if display_known:
        lines.append(PanelLine(f"Display ({len(display)}):", bold=True, gap=True))
    elif display:
        lines.append(PanelLine(f"Display: {len(display)} card{'s' * (len(display) != 1)} known to be face up",
                               bold=True, gap=True))
    else:
        lines.append(PanelLine("Display: not recorded", bold=True, gap=True))
    for k in range(0, len(display), 3):
        lines.append(PanelLine("    " + ", ".join(display[k:k + 3])))
    if display_known:
        lines.append(PanelLine(f"Deck {int(state.deck_size[b])}, discard {int((place == IN_DISCARD).sum())}, "
                               f"in front {int((place == IN_FRONT).sum())}"))
    else:
        lines.append(PanelLine(f"Deck and discard pile not recorded; in front {int((place == IN_FRONT).sum())}"))
    la = int(state.last_action[b])
    if last_event is not None or la >= 0:
        if last_event is not None:
            lp, action, answer = last_event
        else:
            lp = int(state.last_player[b])
            action = action_name(la, board)
            answer = answer_text(la, (int(state.last_answer[b, 0]), int(state.last_answer[b, 1])))
        lines.append(PanelLine("Last action:", bold=True, gap=True))
        lines.append(PanelLine(f"    {tag(lp)}: {action}", color=PLAYER_COLOURS[lp]))
        lines.append(PanelLine(f"    -> {answer}"))
    if viewer is not None:
        v = int(viewer)
        h = (v + 1) % P
        c = state.case[b, h]
        lines.append(PanelLine(f"Held case ({tag(v)} holds {tag(h)}'s):", bold=True, gap=True))
        lines.append(PanelLine(f"    {names[int(c[0])]} / {names[TYPE_OFFSETS[1] + int(c[1])]} / "
                               f"{names[TYPE_OFFSETS[2] + int(c[2])]}"))
    if done:
        from pi_env.engine.api import outcome

        res = outcome(state, config, b)
        final = [f"{tag(i)} {s}" for i, s in enumerate(res.scores)]
        if labels is None:  # seat labels alone: one line
            lines.append(PanelLine("Final: " + ", ".join(final), bold=True, gap=True))
        else:  # seat labels run longer: two a line (five on one ran off the panel)
            lines.append(PanelLine("Final:", bold=True, gap=True))
            for k in range(0, len(final), 2):
                lines.append(PanelLine("    " + ", ".join(final[k:k + 2]), bold=True))
        lines.append(PanelLine("Winner" + ("s" if len(res.winners) > 1 else "") + ": "
                               + ", ".join(tag(i) for i in res.winners)))
    return lines


def _panel(fig, lines: list[PanelLine], split: float, fs: float) -> None:
    """Draws the panel's lines (:func:`panel_lines`) right of the board."""
    from matplotlib.patches import Rectangle

    ax = fig.add_axes((split, 0.0, 1.0 - split, 1.0))
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    y = 0.97
    step = 0.028
    for i, ln in enumerate(lines):
        if ln.gap and i > 0:
            y -= 0.01
        if y < 0.05:  # out of room (many players with many cards): the rest is left out
            ax.text(0.02, y, "...", fontsize=fs, va="top", ha="left")
            break
        x = 0.02
        if ln.swatch is not None:
            ax.add_patch(Rectangle((0.02, y - 0.024), 0.04, 0.024, color=ln.swatch))
            x = 0.08
        kw: dict[str, Any] = {"fontweight": "bold"} if ln.bold else {}
        if ln.color is not None:
            kw["color"] = ln.color
        ax.text(x, y, ln.text, fontsize=fs * ln.size, va="top", ha="left", **kw)
        y -= step
    ax.text(0.02, 0.015, "dots: S spot, T trace markers; squares: investigators (spots S, traces T)",
            fontsize=fs * 0.75, va="bottom", ha="left", color="#555555")


def png_bytes(image: np.ndarray) -> bytes:
    """The PNG file of an ``uint8[H, W, 3]`` image (matplotlib's encoder)."""
    import io

    import matplotlib.image

    buf = io.BytesIO()
    matplotlib.image.imsave(buf, image, format="png")
    return buf.getvalue()


def write_png(image: np.ndarray, path: "str | os.PathLike[str]", *, force: bool = True) -> Path:
    """Write an ``uint8[H, W, 3]`` image as PNG, atomically (:func:`pi_env.core.files.write_bytes_atomic`:
    a symbolic link at ``path`` is replaced, never followed).

    Raises:
        PIError: ``path`` cannot take a new file (or exists and ``force`` is false).
        OSError: the file system refused the write.
    """
    return write_bytes_atomic(path, png_bytes(image), force=force)



def record_position(record: Any, round_index: int | None = None,
                    after_event: int | None = None) -> tuple[State, GameConfig]:
    """The engine position of an engine-written record after an event (for pictures).

    The record is re-run by the engine from its seed (:func:`pi_env.records.recorder.replay_with_engine`,
    which also checks it).

    Args:
        record: a :class:`~pi_env.records.types.GameRecord`, a path or a parsed document.
        round_index: 0-based round; ``None``: the last round of the record.
        after_event: the position after this event of the round (0-based); ``-1``: the round's
            start, before any event; ``None``: after the round's last event. When that event ended
            the round and a new one began, the picture is still of this round: its board as the
            event left it (markers, investigators, solves), with the game totals (scores,
            investigators left) and the player to move (the next round's first player) of the
            engine's state after the event.

    Returns:
        ``(state, config)``: a ``B == 1`` state (a copy) and the record's rules.

    Raises:
        PIError: the record has no engine seed (only engine-written records can be pictured:
            a record without one lacks the deck order, so the display cannot be known), or a round
            or event out of range; :class:`~pi_env.core.errors.RecordError` if the replay fails.
    """
    from pi_env.engine.api import init, step_inplace
    from pi_env.records.recorder import action_of, config_of, replay_with_engine
    from pi_env.records.record_file import load_record
    from pi_env.records.types import GameRecord

    if not isinstance(record, GameRecord):
        record = load_record(record)
    if record.seed is None:
        raise PIError("only an engine-written record (one with engine.seed, as 'pi-env play --record' "
                      "writes) can be re-run: without the seed the deck order, and so the display, "
                      "is unknown (typed_record_position draws any record)")
    k, e = _position_indices(record, round_index, after_event)
    events = record.rounds[k].events
    config = config_of(record)
    target = sum(len(r.events) for r in record.rounds[:k]) + e + 1  # engine steps to apply
    seen = {0: init(config, 1, seed=record.seed)} if target <= 1 else {}
    count = 0

    def on_step(st: State) -> None:
        nonlocal count
        count += 1
        if count in (target - 1, target):
            seen[count] = st.copy()

    replay_with_engine(record, on_step=on_step)
    post = seen[target]
    if e < 0 or int(post.round[0]) == k or post.done[0]:
        return post, config
    # the event ended round k and the engine set up the next round: replay the event on a copy
    # of the position before it in which this is the last round, so its board stays as it was left
    fake = seen[target - 1].copy()
    fake.round[0] = config.round_limit - 1
    step_inplace(fake, np.array([action_of(events[e])]), config, check=False)
    fake.round[0] = k
    fake.done[0] = False
    for name in ("score", "solve_points", "penalty", "inv_left", "truncated", "current_player",
                 "round_winner", "rng"):
        getattr(fake, name)[:] = getattr(post, name)
    return fake, config


def typed_record_position(record: Any, round_index: int | None = None,
                          after_event: int | None = None) -> tuple[State, GameConfig]:
    """A picture position of any record, without re-running the engine (for records typed in at a
    table, which have no engine seed and so no deck order).

    Tiles, markers, investigators, cards answered *nothing*, solves, scores and investigators left
    follow from the record alone (docs/rules.md §4, :func:`pi_env.records.scoring.score_record` of the
    record up to the position); the display holds the cards known to be face up
    (:func:`pi_env.records.record_file.known_display`; none when the record states no display);
    the deck order is unknown (empty deck, nothing in the discard pile: draw it with
    ``display_known=False``). Cases the record does not give are left as zeros: draw with a
    ``viewer`` only when the record gives the case that viewer holds. The state is for pictures,
    not for stepping.

    Args:
        record, round_index, after_event: as :func:`record_position` (a round-ending event shows
            the round's board as it left it, like there).

    Returns:
        ``(state, config)``.

    Raises:
        PIError: a round or event out of range; :class:`~pi_env.core.errors.RecordError` for an
            invalid record (or an event after its round's end).
    """
    from pi_env.core.constants import CASE_TRIPLES, NOTHING
    from pi_env.engine.state import empty_state
    from pi_env.records.record_file import known_display, load_record, tile_element
    from pi_env.records.recorder import config_of
    from pi_env.records.scoring import score_record
    from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, GameRecord

    if not isinstance(record, GameRecord):
        record = load_record(record)
    k, e = _position_indices(record, round_index, after_event)
    config = config_of(record)
    P = config.num_players
    rnd = record.rounds[k]
    scores = score_record(record.prefix(k, e))
    st = empty_state(1, P)
    st.round[0], st.first_player[0] = k, rnd.first_player
    st.tile_district[0] = rnd.tile_district
    for d in range(NUM_DISTRICTS):
        for t in range(3):
            st.district_tile[0, d, t] = tile_element(rnd.tile_district, d, t)
    for p, c in rnd.cases.items():
        st.case[0, p] = CASE_TRIPLES[c]
    known = known_display(rnd, e)
    if known is not None:
        st.card_place[0, list(known[0])] = ON_DISPLAY
    turns = [ev for ev in rnd.events[:e + 1] if ev.is_turn]
    for ev in turns:
        p = ev.player
        if ev.kind == CLUE:
            if ev.answer == NOTHING:
                st.front[0, p, ev.element] = True
                st.card_place[0, ev.element] = IN_FRONT
            else:
                (st.spot if ev.answer == 2 else st.trace)[0, p, ev.element] = True
        elif ev.kind == INVESTIGATE:
            slot = int(st.inv_count[0, p])
            st.inv_district[0, p, slot] = ev.district
            st.inv_answer[0, p, slot] = st.inv_markers[0, p, slot] = (ev.spots, ev.traces)
            st.inv_suppressed[0, p, slot] = ev.suppressed
            st.inv_count[0, p] = slot + 1
        elif ev.kind == SOLVE:
            st.attempted[0, p] = True
            if ev.correct:
                st.solved[0, p] = True
                st.solved_case[0, p] = ev.case
            else:
                st.failed[0, p, ev.case] = True
    st.score[0] = scores.scores
    st.penalty[0] = scores.penalty
    st.inv_left[0] = scores.investigators_left
    infos = scores.events[k]
    if infos:
        st.rotation[0], st.tier[0] = infos[-1].rotation, infos[-1].tier
    earlier = [ev for r in record.rounds[:k] for ev in r.events if ev.is_turn]
    st.turn[0] = len(earlier) + len(turns)
    if turns or earlier:  # the last action of the game so far
        last = (turns or earlier)[-1]
        st.last_player[0] = last.player
        if last.kind == CLUE:
            st.last_action[0], st.last_answer[0] = last.element, (last.answer, -1)
        elif last.kind == INVESTIGATE:
            st.last_action[0], st.last_answer[0] = INVESTIGATE_BASE + last.district, (last.spots, last.traces)
        else:
            st.last_action[0], st.last_answer[0] = SOLVE_BASE + last.case, (int(bool(last.correct)), -1)
    out = {p for ev in rnd.events[:e + 1] if not ev.is_turn for p in (ev.player, (ev.player - 1) % P)}
    q = turns[-1].player if turns else (rnd.first_player - 1) % P
    for _ in range(P):  # the next seat that has not solved and is not out of the round
        q = (q + 1) % P
        if not st.solved[0, q] and q not in out:
            break
    st.current_player[0] = q
    return st, config


def _position_indices(record: Any, round_index: int | None, after_event: int | None) -> tuple[int, int]:
    """``(round, event)`` of a position, checked (see :func:`record_position`)."""
    n = len(record.rounds)
    k = n - 1 if round_index is None else int(round_index)
    if not 0 <= k < n:
        raise PIError(f"round must be 1..{n} (the record has {n} round{'s' * (n != 1)}), got {k + 1}")
    events = record.rounds[k].events
    e = len(events) - 1 if after_event is None else int(after_event)
    if not -1 <= e < len(events):
        raise PIError(f"event must be -1..{len(events) - 1} (round {k + 1} has {len(events)} events), "
                      f"got {e}")
    return k, e


def record_panel(record: Any, round_index: int, after_event: int) -> dict[str, Any]:
    """What a record adds to the picture's panel at a position (the keyword arguments of
    :func:`board_image`): the seat labels the CLI prints (:func:`pi_env.records.types.seat_label`
    with the player's name or else the seat's agent, ``engine.agents``, in parentheses:
    ``"P1 (Ben)"``, ``"P1 (random)"``, ``"P1"``); the round's end said as such (``"Round 1 is over;
    round 2 begins with P1 (Ben)"``, ``"Game over"`` for a record typed in at a table) instead of
    whose turn it is; a declaration of an incorrect answer as the last action; the players it put
    out of the round.

    Args:
        record: a :class:`~pi_env.records.types.GameRecord`.
        round_index, after_event: a checked position (0-based round; ``-1``: the round's start).
    """
    from pi_env.records.report import event_text
    from pi_env.records.scoring import score_record
    from pi_env.records.types import seat_label_with

    rnd = record.rounds[round_index]
    names = record.player_names or record.agents  # a name, else the agent, after the seat label
    labels = [seat_label_with(i, names[i] if names else None) for i in range(record.rules.players)]
    status = None
    if after_event >= 0:
        scores = score_record(record.prefix(round_index, after_event))
        if scores.round_complete[round_index]:
            if not scores.incomplete:
                status = "Game over" if record.seed is None else None  # the engine's state says it
            elif round_index + 1 < len(record.rounds):
                status = (f"Round {round_index + 1} is over; round {round_index + 2} begins with "
                          f"{labels[record.rounds[round_index + 1].first_player]}")
            else:
                status = f"Round {round_index + 1} is over"
    events = [ev for r in record.rounds[:round_index] for ev in r.events] + list(rnd.events[:after_event + 1])
    last_event = None
    if events and not events[-1].is_turn:
        action, answer = event_text(events[-1], record)
        last_event = (events[-1].player, action, answer)
    out = sorted({q for ev in rnd.events[:after_event + 1] if not ev.is_turn
                  for q in (ev.player, (ev.player - 1) % record.rules.players)})
    return {"labels": labels, "status": status, "last_event": last_event, "out": out}


def record_picture(record: Any, round_index: int | None = None, after_event: int | None = None,
                   viewer: "int | str | None" = None) -> np.ndarray:
    """The board picture of a record at a position: an engine-written record is re-run by the
    engine (:func:`record_position`), any other is drawn from the record alone
    (:func:`typed_record_position`); the panel adds what the record says (:func:`record_panel`).

    Args:
        record: a :class:`~pi_env.records.types.GameRecord`, a path or a parsed document.
        round_index, after_event: as :func:`record_position`.
        viewer: ``None`` for a spectator's picture, or the player (a number or its name in the
            record, :func:`pi_env.records.types.resolve_player`) whose held case to add.

    Raises:
        PIError: a round, event or viewer out of range (an unknown name:
            :class:`~pi_env.core.errors.UnknownNameError`), or a viewer whose held case a typed-in
            record does not give (messages about the viewer start ``viewer:``);
            :class:`~pi_env.core.errors.RecordError` for an invalid record.
    """
    from pi_env.records.record_file import load_record
    from pi_env.records.types import GameRecord, resolve_player

    if not isinstance(record, GameRecord):
        record = load_record(record)
    typed = record.seed is None
    k, e = _position_indices(record, round_index, after_event)
    if viewer is not None:
        try:
            viewer = resolve_player(record, viewer)
        except PIError as exc:
            raise type(exc)(f"viewer: {exc}") from None
        held = (viewer + 1) % record.rules.players
        if typed and held not in record.rounds[k].cases:
            raise PIError(f"viewer: the record does not give the case player {viewer} holds (player {held}'s) "
                          f"in round {k + 1}: draw without a viewer")
    state, config = (typed_record_position if typed else record_position)(record, k, e)
    return board_image(state, config, viewer=viewer, display_known=not typed, **record_panel(record, k, e))
