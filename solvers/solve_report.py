"""The report of ``pi-env solve`` (issue #3 item 6): one player's case at one position of a record,
as a JSON-ready dict (:func:`solve_report`) and as text lines (:func:`solve_report_lines`).

Only what the asking player p knows is read (RULES.md §9): the public events up to the position
and the case p holds (:func:`pi_env.solvers.analysis.knowledge_of`), even when the record holds every
case. The hint (:func:`pi_env.solvers.hints.hint`) needs three facts about the position that the events
give:

* **tier**: the tier of the rotation in which p acts next — the current rotation if p's seat comes
  after the last event's seat, else the next one (RULES.md §4, §5; nick of time: the tier advances
  every rotation after the round's first solve);
* **investigators left**: p's starting tiles (duel: +2 per later round, at most 5) minus p's
  investigations so far;
* **candidate clues**: the display at the position when it is known — re-run by the engine for a
  record with an engine seed, or the record's ``display`` before the round's first event — else
  every clue card not yet answered *nothing* (RULES.md §4.1).
"""

from __future__ import annotations

import os
from typing import Any, Union

import numpy as np

from pi_env.core.actions import action_name
from pi_env.core.constants import (INVESTIGATE_BASE, MAX_INVESTIGATORS, NUM_DISTRICTS, ON_DISPLAY,
                              TYPE_NAMES, TYPE_OFFSETS, TYPE_SIZES)
from pi_env.core.errors import PIError, RecordError
from pi_env.core.names import element_names
from pi_env.records.types import INVESTIGATE, SOLVE, GameRecord

from pi_env.solvers.analysis import Analysis, analyze_knowledge, knowledge_of
from pi_env.solvers.hints import Hint, hint

__all__ = ["solve_report", "solve_report_lines", "next_turn_tier", "investigators_left_at",
           "display_at"]

DUEL_INVESTIGATORS_PER_ROUND = 2  # RULES.md §7


def next_turn_tier(record: GameRecord, player: int, round_index: int, after_event: int) -> int:
    """The tier (RULES.md §5) of ``player``'s next turn after event ``after_event`` (``-1``: before
    the first) of round ``round_index``."""
    rnd = record.rounds[round_index]
    n = record.rules.players
    nick = "nick-of-time" in record.rules.variants
    tier, solved_in_rotation, any_solved, prev = 0, False, False, -1
    for ev in rnd.events[:after_event + 1]:
        seat = (ev.player - rnd.first_player) % n
        if seat <= prev:  # a new rotation began
            if solved_in_rotation or (nick and any_solved):
                tier += 1
            solved_in_rotation = False
        prev = seat
        if ev.kind == SOLVE and ev.correct:
            solved_in_rotation = any_solved = True
    if (player - rnd.first_player) % n <= prev and (solved_in_rotation or (nick and any_solved)):
        tier += 1
    return tier


def investigators_left_at(record: GameRecord, player: int, round_index: int, after_event: int) -> int:
    """``player``'s unused investigator tiles after event ``after_event`` of round ``round_index``."""
    left = record.rules.investigators[player]
    for r, rnd in enumerate(record.rounds[:round_index + 1]):
        if r > 0 and record.rules.mode == "duel":
            left = min(MAX_INVESTIGATORS, left + DUEL_INVESTIGATORS_PER_ROUND)
        events = rnd.events if r < round_index else rnd.events[:after_event + 1]
        left -= sum(1 for ev in events if ev.kind == INVESTIGATE and ev.player == player)
    return max(left, 0)


class _Stop(Exception):
    pass


def display_at(record: GameRecord, round_index: int, after_event: int) -> tuple[int, ...] | None:
    """The clue cards face up after event ``after_event`` of round ``round_index`` (element ids),
    or ``None`` when the record does not determine them."""
    rnd = record.rounds[round_index]
    if after_event < 0 and rnd.display is not None:
        return tuple(sorted(rnd.display))
    if record.seed is None:
        return None
    from pi_env.records.recorder import replay_with_engine  # the engine is only needed here

    target = sum(len(r.events) for r in record.rounds[:round_index]) + after_event + 1
    steps = [0]
    found: list[tuple[int, ...] | None] = [None]

    def on_step(state) -> None:
        steps[0] += 1
        if steps[0] == target:
            if int(state.round[0]) == round_index and not state.done[0]:
                found[0] = tuple(int(x) for x in np.flatnonzero(state.card_place[0] == ON_DISPLAY))
            raise _Stop

    try:
        if target == 0:
            from pi_env.engine import init
            from pi_env.records.recorder import config_of
            state = init(config_of(record), 1, seed=record.seed)
            return tuple(int(x) for x in np.flatnonzero(state.card_place[0] == ON_DISPLAY))
        replay_with_engine(record, on_step)
    except _Stop:
        pass
    except RecordError:  # not re-runnable by this engine (mode, variant, mismatch): unknown
        return None
    return found[0]


def _case_doc(case: int, names: tuple[str, ...]) -> dict[str, str]:
    s, e, loc = case // 140, (case // 14) % 10, case % 14
    return {"suspect": names[s], "evidence": names[TYPE_OFFSETS[1] + e],
            "location": names[TYPE_OFFSETS[2] + loc]}


def _sorted_cases(a: Analysis, names: tuple[str, ...]) -> list[int]:
    """Cases most likely first (exact joint counts), ties by suspect, evidence, location name."""
    keyed = []
    for c, k in zip(a.cases.tolist(), a.joint_counts.tolist()):
        d = _case_doc(c, names)
        keyed.append((-k, d["suspect"], d["evidence"], d["location"], c))
    return [t[-1] for t in sorted(keyed)]


RecordSource = Union[GameRecord, str, "os.PathLike[str]", dict]


def solve_report(record: RecordSource, player: int, round_index: int = 0, after_event: int | None = None,
                 top: int = 10) -> dict[str, Any]:
    """Everything ``pi-env solve`` prints, as a JSON-ready dict.

    Args:
        record: a :class:`GameRecord`, a record path or parsed dict.
        player: the asking player, 0-based.
        round_index: 0-based round.
        after_event: use the events with index ``<= after_event`` (``-1``: none; ``None``: all).
        top: list at most this many cases (``0``: all).

    Returns:
        ``{"player", "round" (1-based), "after_event", "events_used", "events_in_round", "count",
        "own_count", "total_deals", "cases" (most likely first: ``suspect``, ``evidence``,
        ``location``, ``probability``), "marginals" (per type ``{name: probability}``),
        "certain" (per type a name or ``None``), "conflict" (``None`` or event indices), "hint"}``.
        A contradiction is reported (``count`` 0, ``conflict`` set), not raised.

    Raises:
        PIError: a bad player, round, event index or ``top``; :class:`RecordError` for an invalid
            record; ``OSError`` when the file cannot be read.
    """
    if not isinstance(record, GameRecord):
        from pi_env.records.record_file import load_record
        record = load_record(record)
    n = record.rules.players
    if record.rules.mode == "solo" or n < 2:
        raise PIError("solve needs a game of 2..5 players; a solo record has no opponents' cases")
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < n:
        raise PIError(f"player must be 0..{n - 1} in this {n}-player record, got {player!r}")
    rounds = len(record.rounds)
    if not 0 <= round_index < rounds:
        raise PIError(f"round must be 1..{rounds} in this record, got {round_index + 1}")
    n_events = len(record.rounds[round_index].events)
    if after_event is None:
        after_event = n_events - 1
    elif not -1 <= after_event < n_events:
        raise PIError(f"after-event must be -1..{n_events - 1} (round {round_index + 1} has {n_events} "
                      f"events), got {after_event}")
    if top < 0:
        raise PIError(f"top must be >= 0 (0 lists every case), got {top}")
    names = element_names(record.board)
    knowledge = knowledge_of(record, player, round_index, after_event)
    a = analyze_knowledge(knowledge, strict=False)
    tier = next_turn_tier(record, player, round_index, after_event)
    inv_left = investigators_left_at(record, player, round_index, after_event)
    display = display_at(record, round_index, after_event)
    legal = None
    if display is not None:
        mine = [e for e in record.rounds[round_index].events[:after_event + 1]
                if e.player == player and e.kind == INVESTIGATE]
        used = {e.district for e in mine}
        legal = list(display) + ([INVESTIGATE_BASE + d for d in range(NUM_DISTRICTS) if d not in used]
                                 if inv_left > 0 else [])
    h = hint(knowledge, legal, analysis=a, tier=tier, round_index=round_index,
             edition=record.rules.edition, investigators_left=inv_left)
    ordered = _sorted_cases(a, names)
    listed = ordered if top == 0 else ordered[:top]
    prob = a.as_dict()
    marginals = {}
    for t, m in enumerate(a.marginals):
        marginals[TYPE_NAMES[t]] = {names[TYPE_OFFSETS[t] + i]: float(m[i]) for i in range(TYPE_SIZES[t])}
    certain: dict[str, str | None] = {t: None for t in TYPE_NAMES}
    for x in a.certain:
        t = 0 if x < TYPE_OFFSETS[1] else 1 if x < TYPE_OFFSETS[2] else 2
        certain[TYPE_NAMES[t]] = names[x]
    solved = any(e.kind == SOLVE and e.correct and e.player == player
                 for e in record.rounds[round_index].events[:after_event + 1])
    return {
        "player": int(player), "round": round_index + 1, "after_event": after_event,
        "events_used": after_event + 1, "events_in_round": n_events,
        "count": a.count, "own_count": a.own_count, "total_deals": a.total,
        "cases": [dict(_case_doc(c, names), probability=prob[c]) for c in listed],
        "marginals": marginals, "certain": certain,
        "conflict": None if a.conflict is None else list(a.conflict),
        "solved": solved,
        # among equally likely cases the hint names the first listed one (same p_correct)
        "hint": _hint_doc(h, ordered[0] if ordered else -1, record, names, display is not None, inv_left),
    }


def _hint_doc(h: Hint, best_case: int, record: GameRecord, names: tuple[str, ...], display_known: bool,
              inv_left: int) -> dict[str, Any]:
    board = record.board
    return {
        "tier": h.tier, "points": h.points,
        "best_case": None if best_case < 0 else dict(_case_doc(best_case, names), probability=h.p_correct),
        "p_correct": h.p_correct,
        "expected_points": h.expected_points,
        "formula": f"p_correct * {h.points} - (1 - p_correct) * 2",
        "wait_expected_points": h.wait_expected_points,
        "solve_now": h.solve_now,
        "entropy_bits": h.entropy,
        "best_action": None if h.best_action is None else action_name(h.best_action, board),
        "best_action_id": h.best_action,
        "best_gain_bits": h.best_gain,
        "expected_remaining_actions": h.expected_remaining_actions,
        "candidates": "display" if display_known else "clue cards in circulation",
        "investigators_left": inv_left,
        "gains": [{"action": action_name(act, board), "id": act, "bits": g} for act, g in h.ranked_gains()],
    }


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%" if p >= 0.0001 or p == 0 else f"{100 * p:.2g}%"


def _signed(x: float) -> str:
    return f"{round(x, 9) + 0.0:+.3f}"


def solve_report_lines(doc: dict[str, Any], gains_shown: int = 5) -> list[str]:
    """Human-readable lines of a :func:`solve_report` dict."""
    p, r = doc["player"], doc["round"]
    where = ("before any event" if doc["after_event"] < 0 else
             f"after event {doc['after_event']} ({doc['events_used']} of {doc['events_in_round']} events)")
    lines = [f"Player {p}, round {r}, {where}; using only what player {p} knows"]
    lines.append(f"Consistent cases: {doc['count']} jointly with all public answers "
                 f"({doc['own_count']} from player {p}'s own information alone)")
    if doc["conflict"] is not None:
        what = ", ".join(map(str, doc["conflict"])) or "(none: the held case alone)"
        lines.append(f"No deal is consistent with the events; these cannot all hold: events {what}")
        return lines
    if doc["solved"]:
        lines.append(f"Player {p} has already solved its case this round.")
    shown = doc["cases"]
    lines.append(f"Most likely cases ({len(shown)} of {doc['count']}):")
    for i, c in enumerate(shown, 1):
        lines.append(f"  {i:>3}. {_pct(c['probability']):>8}  {c['suspect']} / {c['evidence']} / {c['location']}")
    if len(shown) < doc["count"]:
        lines.append(f"  ... {doc['count'] - len(shown)} more (--top 0 lists all)")
    lines.append("Marginals:")
    for t in TYPE_NAMES:
        items = sorted(((v, k) for k, v in doc["marginals"][t].items() if v > 0), key=lambda kv: (-kv[0], kv[1]))
        lines.append(f"  {t:<9} " + ", ".join(f"{k} {_pct(v)}" for v, k in items))
    certain = [f"{t} {doc['certain'][t]}" for t in TYPE_NAMES if doc["certain"][t] is not None]
    lines.append("Certain: " + (", ".join(certain) if certain else "nothing yet"))
    if doc["solved"]:  # it takes no more turns this round (RULES.md §4.3): no hint to give
        return lines
    h = doc["hint"]
    lines.append(f"Hint (tier {h['tier']}: a correct solve now scores {h['points']}):")
    bc = h["best_case"]
    q = h["p_correct"]
    lines.append(f"  solve now with {bc['suspect']} / {bc['evidence']} / {bc['location']}: "
                 f"P(correct) {_pct(q)}, expected points {q:.4g}·{h['points']} − {1 - q:.4g}·2 = "
                 f"{_signed(h['expected_points'])}")
    lines.append("  recommendation: " + ("solve now" if h["solve_now"] else "do not solve yet")
                 + f" (after one more query then solving one tier later: {_signed(h['wait_expected_points'])})")
    source = ("the display" if h["candidates"] == "display" else "any clue card still in circulation")
    if h["best_action"] is None:
        lines.append(f"  best query: none splits the remaining cases (candidates: {source})")
    else:
        lines.append(f"  best query: {h['best_action']}, expected information gain {h['best_gain_bits']:.3f} "
                     f"of {h['entropy_bits']:.3f} bits (candidates: {source}; "
                     f"{h['investigators_left']} investigators left)")
    if h["expected_remaining_actions"] is not None:
        lines.append(f"  expected remaining actions (greedy): {h['expected_remaining_actions']:.2f}")
    if gains_shown and h["gains"]:
        top = h["gains"][:gains_shown]
        lines.append("  gains: " + ", ".join(f"{g['action']} {g['bits']:.3f}" for g in top)
                     + (f" (+{len(h['gains']) - len(top)} more)" if len(h["gains"]) > len(top) else ""))
    return lines

