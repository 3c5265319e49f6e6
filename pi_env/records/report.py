"""Human-readable turn logs, round results and standings of a record (used by ``pi-env play`` and
``pi-env replay``, so both print exactly the same thing), and their JSON form."""

from __future__ import annotations

from typing import Any

from pi_env.core.actions import case_name
from pi_env.core.constants import ANSWER_NAMES
from pi_env.core.names import element_name
from pi_env.records.types import CLUE, INCORRECT, INVESTIGATE, Event, GameRecord, seat_label_with
from pi_env.records.scoring import RecordScores
from pi_env.core.text import plural


def player_label(record: GameRecord, p: int, agents: tuple[str, ...] | None = None) -> str:
    """``"Ann"`` / ``"P2 (deducer)"`` / ``"P2"`` (:func:`pi_env.records.types.seat_label`: 0-based).

    The seat's agent comes from ``agents``, or when it is ``None`` from the record's own
    ``engine.agents`` (what ``pi-env play --record`` writes), so ``pi-env replay`` labels the seats
    as ``pi-env play`` printed them."""
    if record.player_names:
        return record.player_names[p]
    if agents is None:
        agents = record.agents
    return seat_label_with(p, agents[p] if agents else None)


def event_text(ev: Event, record: GameRecord) -> tuple[str, str]:
    """(action, answer) texts of an event, e.g. ``("clue Pinky", "trace")``."""
    board = record.board
    if ev.kind == CLUE:
        return f"clue {element_name(ev.element, board)}", ANSWER_NAMES[ev.answer]
    if ev.kind == INVESTIGATE:
        return (f"investigate {board.districts[ev.district]}",
                f"{ev.spots} spot{'s' * (ev.spots != 1)}, {ev.traces} trace{'s' * (ev.traces != 1)}")
    if ev.kind == INCORRECT:
        n = record.rules.players
        answerer = player_label(record, (ev.player - 1) % n)
        gets = "wins the round" if record.rules.mode == "duel" else "gets its top score"
        return (f"declared incorrect: the answer at event {ev.refers_to}",
                f"{answerer} eliminated from the round, {player_label(record, ev.player)} {gets}")
    return f"solve {case_name(ev.case, board)}", "correct" if ev.correct else "wrong"


def round_result(scores: RecordScores, r: int, label: "list[str] | tuple[str, ...]") -> str:
    """The result line of round ``r`` (0-based) as :func:`report_lines` prints it, players named by
    ``label`` (one per seat): ``"Round 1 result: P0 (human) +7, P1 (greedy) -2"`` (each player's
    points of the round, docs/rules.md §5; ``result so far`` for a round not over), a duel's
    ``"Round 1: P0 wins"``, ``"Round 1: draw"`` or ``"Round 1: not decided yet"`` (§7).

    Raises:
        IndexError: ``r`` is not a round of ``scores``.
    """
    if scores.mode == "duel":
        w = scores.round_winners[r]
        if scores.round_complete and not scores.round_complete[r]:
            return f"Round {r + 1}: not decided yet"
        return f"Round {r + 1}: {label[w]} wins" if w >= 0 else f"Round {r + 1}: draw"
    pts = ", ".join(f"{label[p]} {x:+d}" for p, x in enumerate(scores.round_points[r]))
    so_far = "" if not scores.round_complete or scores.round_complete[r] else " so far"
    return f"Round {r + 1} result{so_far}: {pts}"


def report_lines(record: GameRecord, scores: RecordScores, agents: tuple[str, ...] | None = None,
                 turns: bool = True) -> list[str]:
    """The turn log (if ``turns``), each round's result and the final standings with tiebreaks.

    A standings line gets the tiebreak note (``(tiebreak: 5 investigators left)``; first edition
    also ``, 1 penalty point`` where penalties separated players with equal scores and tiles,
    docs/rules.md §5) only where the tiebreak separated players of equal score: players tied also
    after it share the rank without a note.

    Players are labelled by :func:`player_label`: the record's names, else ``"P2 (deducer)"`` with
    the agent from ``agents`` or the record's ``engine.agents``, else ``"P2"``.

    A duel (docs/rules.md §7) prints each round as ``Round 1: P0 wins`` or ``Round 1: draw``, the
    standings in round wins and ``Duel won by P0`` (or ``Duel drawn``).

    An incomplete game (:attr:`RecordScores.incomplete`) is said so (``Game incomplete: round 2
    stops before its end (after event 14); 2 of 3 rounds recorded``), and its standings are
    ``Standings so far`` (no duel winner is named).
    """
    n = record.rules.players
    lines = []
    label = [player_label(record, p, agents) for p in range(n)]
    width = max(len(s) for s in label)
    for r, rnd in enumerate(record.rounds):
        lines.append(f"Round {r + 1} (first player {label[rnd.first_player]})")
        if turns:
            for ev, info in zip(rnd.events, scores.events[r]):
                action, answer = event_text(ev, record)
                delta = f"  ({info.delta:+d})" if info.delta else ""
                lines.append(f"  rot {info.rotation + 1:>2}  {label[ev.player]:<{width}}  {action:<48} -> {answer}{delta}")
        lines.append(round_result(scores, r, label))
    if scores.incomplete:
        lines.append("Game incomplete: " + "; ".join(scores.incomplete))
    lines.append("Final standings:" if not scores.incomplete else "Standings so far:")
    order = sorted(range(n), key=lambda p: (scores.ranks[p], p))
    if scores.mode == "duel":
        for p in order:
            wins = scores.scores[p]
            lines.append(f"  {scores.ranks[p]}. {label[p]:<{width}}  {wins:>4} round win{'s' * (wins != 1)}")
        if scores.incomplete:
            return lines
        if scores.scores[0] == scores.scores[1]:
            lines.append("Duel drawn")
        else:
            lines.append(f"Duel won by {label[order[0]]}")
        return lines
    first = record.rules.edition == "first"
    for p in order:
        group = [q for q in range(n) if scores.scores[q] == scores.scores[p]]  # p's equal scores
        note = ""
        if any(scores.ranks[q] != scores.ranks[p] for q in group):  # the tiebreak separated them
            note = f"  (tiebreak: {plural(int(scores.investigators_left[p]), 'investigator')} left"
            if first and any(scores.investigators_left[q] == scores.investigators_left[r]
                             and scores.ranks[q] != scores.ranks[r] for q in group for r in group):
                note += f", {plural(int(scores.penalty[p]), 'penalty point')}"  # penalties separated some
            note += ")"
        lines.append(f"  {scores.ranks[p]}. {label[p]:<{width}}  {scores.scores[p]:>4} points{note}")
    return lines


def report_json(record: GameRecord, scores: RecordScores) -> dict[str, Any]:
    """The same report for machines: the mode, whether the game is ``complete`` (and the
    ``incomplete`` reasons), rounds with events (player, action, answer, rotation, tier, delta),
    points, ``complete`` and (duel) the round's ``winner`` (``null`` for a draw or a round not
    decided yet), and the scores so far (final scores of a complete game; duel: round wins),
    penalty points, investigators left and ranks."""
    rounds = []
    for r, rnd in enumerate(record.rounds):
        events = []
        for ev, info in zip(rnd.events, scores.events[r]):
            action, answer = event_text(ev, record)
            events.append({"index": ev.index, "player": ev.player, "action": action, "answer": answer,
                           "rotation": info.rotation + 1, "tier": info.tier, "delta": info.delta})
        entry = {"round": r + 1, "first_player": rnd.first_player, "events": events,
                 "points": list(scores.round_points[r]),
                 "complete": bool(scores.round_complete[r]) if scores.round_complete else True}
        if scores.mode == "duel":
            w = scores.round_winners[r]
            entry["winner"] = w if w >= 0 else None
        rounds.append(entry)
    return {"mode": scores.mode, "complete": scores.complete, "incomplete": list(scores.incomplete),
            "rounds": rounds, "scores": list(scores.scores),
            "penalty": list(scores.penalty), "investigators_left": list(scores.investigators_left),
            "ranks": list(scores.ranks)}
