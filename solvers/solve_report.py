"""The report of ``pi-env solve``: one player's case at one position of
a record, as a JSON-ready dict (:func:`solve_report`) and as text lines (:func:`solve_report_lines`).

Only what the asking player p knows is read (docs/rules.md §9): the public events up to the position
and the case p holds (:func:`pi_env.solvers.analysis.knowledge_of`), even when the record holds every
case; an answer the record declares incorrect is ignored. The hint (:func:`pi_env.solvers.hints.hint`)
needs facts about the position that the events give:

* **the turn** (:func:`pi_env.solvers.turns.turn_context`): the tier of p's coming turn, who has
  attempted and solved, who acts after p in the rotation, p's score, the safeguard — from which
  the value of waiting follows the rules (whether p gets another turn this round, at which tier;
  first edition; nick of time; duel values). A position at which p has no turn (p solved, the
  round is over) gets no hint;
* **investigators left**: p's starting tiles (duel: +2 per later round, at most 5) minus p's
  investigations so far;
* **candidate clues**: the display at the position — given by the caller (``display``, ``pi-env
  solve --display``), re-run by the engine for a record with an engine seed, or stated by the
  record (its round ``display`` and the events' ``display``; after a card is taken without a new
  statement the known cards are only those still face up) — else every clue card not yet answered
  *nothing* (docs/rules.md §4.1), which the report says.

What is missing is said (``notes``, in the text and the JSON): a record without the case p holds,
or without any case, gives a weaker answer than p's own reasoning at the table; an unknown display
makes the query ranking assume any card can be taken.
"""

from __future__ import annotations

import os
import weakref
from typing import Any, Union

import numpy as np

from pi_env.core.actions import action_name
from pi_env.core.constants import (DISPLAY_SIZE, INVESTIGATE_BASE, NUM_DISTRICTS,
                                   NUM_ELEMENTS, ON_DISPLAY, TYPE_NAMES, TYPE_OFFSETS, TYPE_SIZES)
from pi_env.core.errors import PIError, RecordError
from pi_env.core.names import element_names, parse_element
from pi_env.core.rules import SCORE_CAP, SCORE_FLOOR, WRONG_SOLVE_PENALTY, duel_investigators_after_round
from pi_env.records.types import CLUE, INVESTIGATE, GameRecord, resolve_player, seat_label, seat_label_with

from pi_env.solvers.analysis import Analysis, analyze_knowledge, knowledge_of
from pi_env.solvers.hints import Hint, hint
from pi_env.solvers.turns import turn_context

__all__ = ["solve_report", "solve_report_lines", "record_hint", "next_turn_tier", "investigators_left_at",
           "display_at", "resolve_player", "parse_display", "record_display", "combine_display", "check_record"]


def next_turn_tier(record: GameRecord, player: int, round_index: int, after_event: int) -> int:
    """The tier (docs/rules.md §5) of ``player``'s next turn after event ``after_event`` (``-1``: before
    the first) of round ``round_index`` (:func:`pi_env.solvers.turns.turn_context`)."""
    return turn_context(record, player, round_index, after_event).tier


def investigators_left_at(record: GameRecord, player: int, round_index: int, after_event: int) -> int:
    """``player``'s unused investigator tiles after event ``after_event`` of round ``round_index``
    (a duel: 2 more before each later round, 1 for the previous round's winner, at most 5;
    docs/rules.md §7, :func:`pi_env.core.rules.duel_investigators_after_round`)."""
    from pi_env.records.scoring import score_record

    duel = record.rules.mode == "duel"
    winners = score_record(record, check_end=False).round_winners if duel else ()
    left = record.rules.investigators[player]
    for r, rnd in enumerate(record.rounds[:round_index + 1]):
        if r > 0 and duel:
            left = duel_investigators_after_round(left, winners[r - 1] == player)
        events = rnd.events if r < round_index else rnd.events[:after_event + 1]
        left -= sum(1 for ev in events if ev.kind == INVESTIGATE and ev.player == player)
    return max(left, 0)


class _Stop(Exception):
    pass


def display_at(record: GameRecord, round_index: int, after_event: int) -> tuple[int, ...] | None:
    """The clue cards face up after event ``after_event`` of round ``round_index`` (element ids,
    ascending), or ``None`` when the record does not determine them: re-run by the engine for a
    record with a seed, else a 9-card display the record states with no card taken since
    (:func:`pi_env.records.record_file.known_display`)."""
    from pi_env.records.record_file import known_display

    rnd = record.rounds[round_index]
    if record.seed is None:
        known = known_display(rnd, after_event)
        return known[0] if known is not None and known[1] else None
    if after_event < 0 and rnd.display is not None:
        return tuple(sorted(rnd.display))
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


def parse_display(display: "str | Any", record: GameRecord, round_index: int, after_event: int) -> tuple[int, ...]:
    """The clue cards of ``display`` — names separated by commas (``"Doc, Bubbles, Lakeside"``), or
    a sequence of names or element ids — checked against the round up to the position.

    Returns:
        The element ids, ascending.

    Raises:
        PIError: no card at all (``""``, ``[]``), an empty name between commas (``"Doc,,Pop"``,
            ``","``), an unknown name (with suggestions), a card given twice, more than 9 cards, or
            a card answered *nothing* earlier in the round (it lies in front of a player for the
            rest of the round, docs/rules.md §4.1). Messages start with ``display:``.
    """
    board = record.board
    if isinstance(display, str):
        if not display.strip():
            raise PIError("display: no card given; list the clue cards face up, separated by commas "
                          "(e.g. 'Doc, Bubbles, Lakeside')")
        items: list[Any] = [x.strip() for x in display.split(",")]
        empty = [i for i, x in enumerate(items) if not x]
        if empty:
            raise PIError(f"display: card {empty[0] + 1} of {len(items)} in {display!r} is empty (a comma "
                          f"with no name before or after it); list the cards separated by commas")
    else:
        items = list(display)
        if not items:
            raise PIError("display: no card given; list the clue cards face up")
    cards = []
    for i, x in enumerate(items):
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            if not 0 <= x < NUM_ELEMENTS:
                raise PIError(f"display: element ids are 0..{NUM_ELEMENTS - 1}, got {x!r}")
            cards.append(int(x))
            continue
        if not isinstance(x, str) or not x.strip():
            raise PIError(f"display: card {i + 1} must be a card's name or element id, got {x!r}")
        try:
            cards.append(parse_element(x, board))
        except PIError as exc:
            raise PIError(f"display: {exc}") from None
    names = element_names(board)
    if len(cards) > DISPLAY_SIZE:
        raise PIError(f"display: at most {DISPLAY_SIZE} clue cards are face up, got {len(cards)}")
    seen = set()
    for c in cards:
        if c in seen:
            raise PIError(f"display: {names[c]!r} is given twice")
        seen.add(c)
    for ev in record.rounds[round_index].events[:after_event + 1]:
        if ev.kind == CLUE and ev.answer == 0 and ev.element in seen:
            raise PIError(f"display: {names[ev.element]!r} was answered 'nothing' at event {ev.index} "
                          f"of round {round_index + 1} and lies in front of player {ev.player} for the rest "
                          f"of the round (docs/rules.md §4.1)")
    return tuple(sorted(cards))


def record_display(record: GameRecord, round_index: int, after_event: int) -> "tuple[tuple[int, ...], bool, str] | None":
    """What the record says about the display after event ``after_event`` (``-1``: the round's
    start) of round ``round_index``: ``(cards, exact, where)`` — the cards known to be face up
    (ascending), whether they are the whole display, and where that comes from in words (``"the
    engine's display (re-run from the seed)"``, ``"the display the record states after event 4"``)
    — or ``None`` when the record says nothing (:func:`display_at`,
    :func:`pi_env.records.record_file.known_display`)."""
    from pi_env.records.record_file import known_display

    rnd = record.rounds[round_index]
    if record.seed is not None:
        exact = display_at(record, round_index, after_event)
        if exact is not None:
            return exact, True, "the engine's display (re-run from the seed)"
    known = known_display(rnd, after_event)
    if known is None or not known[0]:
        return None
    stated = [ev.index for ev in rnd.events[:after_event + 1] if ev.is_turn and ev.display is not None]
    where = (f"the display the record states after event {stated[-1]}" if stated
             else "the display the record states at the round's start")
    if not known[1]:
        where += " (its cards still face up)"
    return known[0], known[1], where


def combine_display(given: tuple[int, ...], stated: "tuple[tuple[int, ...], bool, str] | None",
                    names: tuple[str, ...]) -> tuple[int, ...]:
    """The cards face up from a display given by the user (:func:`parse_display`; 9 cards are the
    whole display, fewer the cards known to be face up) and the record's (:func:`record_display`),
    which must agree: the union of the two, ascending.

    Raises:
        PIError: a given card the record's whole display does not have, a card of the record's
            display missing from 9 given cards, or together more than 9 cards; the message names the
            card and where the record states it (``display: 'Doc' is not on ...``).
    """
    if stated is None:
        return given
    cards, exact, where = stated
    extra = [c for c in given if c not in cards]
    if exact and extra:
        raise PIError(f"display: {names[extra[0]]!r} is not on {where}: "
                      f"{', '.join(names[c] for c in cards)}")
    missing = [c for c in cards if c not in given]
    if len(given) == DISPLAY_SIZE and missing:
        raise PIError(f"display: {names[missing[0]]!r} is on {where}, but not among the "
                      f"{DISPLAY_SIZE} cards given")
    union = tuple(sorted(set(given) | set(cards)))
    if len(union) > DISPLAY_SIZE:
        raise PIError(f"display: {names[extra[0]]!r} cannot also be face up: the cards given and "
                      f"{where}, {', '.join(names[c] for c in cards)}, make {len(union)} cards; at most "
                      f"{DISPLAY_SIZE} are face up")
    return union


def _who(record: GameRecord, p: int) -> str:
    """``"P2 (Cleo)"`` / ``"P2"``: the seat label (:func:`pi_env.records.types.seat_label`) and the name."""
    return seat_label_with(p, record.player_names[p] if record.player_names else None)


def _checked(record: RecordSource, player: "int | str", round_index: int | None,
             after_event: int | None, strict: bool = True) -> tuple[GameRecord, int, int, int]:
    """``(record, player, round_index, after_event)`` after checking the arguments and the record
    (see :func:`solve_report`)."""
    if not isinstance(record, GameRecord):
        from pi_env.records.record_file import load_record
        record = load_record(record)
    n = record.rules.players
    if record.rules.mode == "solo" or n < 2:
        raise PIError("solve needs a game of 2..5 players; a solo record has no opponents' cases")
    player = resolve_player(record, player)
    rounds = len(record.rounds)
    if round_index is None:
        round_index = rounds - 1
    if isinstance(round_index, bool) or not isinstance(round_index, (int, np.integer)) or not 0 <= round_index < rounds:
        raise PIError(f"round_index must be 0..{rounds - 1} (the record has {rounds} round"
                      f"{'s' * (rounds != 1)}), got {round_index!r}")
    round_index = int(round_index)
    n_events = len(record.rounds[round_index].events)
    if after_event is None:
        after_event = n_events - 1
    elif not -1 <= after_event < n_events:
        raise PIError(f"after_event must be -1..{n_events - 1} (round {round_index + 1} has {n_events} "
                      f"events), got {after_event}")
    if strict:
        check_record(record)
    return record, player, round_index, after_event


def check_record(record: GameRecord) -> None:
    """The checks ``pi-env replay`` makes of a record beyond reading it, except joint consistency
    (which ``solve`` reports as a conflict instead): no event after its round's end
    (:func:`pi_env.records.scoring.score_record`), and for an engine-written record the re-run from
    its seed (:func:`pi_env.records.recorder.check_with_engine`: every layout, case, display and
    answer as the engine's).

    A record object that passed is remembered (weakly) and not checked again: a caller asking about
    many positions of one parsed record (the web replay viewer) pays for the re-run once.

    Raises:
        RecordError: the first problem, naming the round and event.
    """
    from pi_env.records.scoring import score_record

    if _CHECKED.get(id(record)) is record:
        return
    score_record(record)
    if record.seed is not None:
        from pi_env.records.recorder import check_with_engine

        check_with_engine(record)
    _CHECKED[id(record)] = record


_CHECKED: "weakref.WeakValueDictionary[int, GameRecord]" = weakref.WeakValueDictionary()


def _position(record: GameRecord, player: int, round_index: int, after_event: int,
              display: "str | Any | None", strict: bool = True) -> dict[str, Any]:
    """The analysis, the turn, the display and the hint of a checked position."""
    given = None if display is None else parse_display(display, record, round_index, after_event)
    rnd = record.rounds[round_index]
    # the display: given (agreeing with the record's), re-run by the engine, stated by the record
    # (maybe partly), or unknown
    stated = record_display(record, round_index, after_event)
    cards, source = None, "any"
    if given is not None:
        cards, source = combine_display(given, stated, element_names(record.board)), "given"
    elif stated is not None:
        cards, source = stated[0], "display" if stated[1] else "partial"
    knowledge = knowledge_of(record, player, round_index, after_event)
    a = analyze_knowledge(knowledge, strict=False)
    ctx = turn_context(record, player, round_index, after_event, strict=strict)
    inv_left = investigators_left_at(record, player, round_index, after_event)
    used = {e.district for e in rnd.events[:after_event + 1] if e.player == player and e.kind == INVESTIGATE}
    legal = None
    if cards is not None:
        legal = list(cards) + ([INVESTIGATE_BASE + d for d in range(NUM_DISTRICTS) if d not in used]
                               if inv_left > 0 else [])
    h = None
    if ctx.finished == "":
        h = hint(knowledge, legal, analysis=a, investigators_left=inv_left, context=ctx)
    return {"analysis": a, "context": ctx, "investigators_left": inv_left, "cards": cards,
            "source": source, "hint": h}


def record_hint(record: RecordSource, player: "int | str", round_index: int | None = None,
                after_event: int | None = None, display: "str | Any | None" = None) -> Hint | None:
    """The :class:`~pi_env.solvers.hints.Hint` ``pi-env solve`` gives: for ``player`` (a number or
    a name) at its next turn after event ``after_event`` of round ``round_index`` of a record, with
    the value of waiting by the rules of the position (:func:`pi_env.solvers.turns.turn_context`),
    its investigators left and the candidate clues of the display (the module docstring).
    ``round_index=None`` is the record's last round, ``after_event=None`` its last event (the
    position a record of a game in progress stops at). The record is checked as by
    :func:`solve_report`.

    Returns:
        The hint, or ``None`` when the player has no turn there (it solved, the round is over, ...).

    Raises:
        PIError, RecordError, OSError: as :func:`solve_report`.

    Example::

        h = record_hint("game.json", player=2, round_index=0, after_event=17)
        print(h.best_case, h.p_correct, h.solve_now, h.best_action)
    """
    record, player, round_index, after_event = _checked(record, player, round_index, after_event)
    return _position(record, player, round_index, after_event, display)["hint"]


def solve_report(record: RecordSource, player: "int | str", round_index: int | None = None, after_event: int | None = None,
                 top: int = 10, display: "str | Any | None" = None, *, strict: bool = True) -> dict[str, Any]:
    """Everything ``pi-env solve`` prints, as a JSON-ready dict.

    Args:
        record: a :class:`GameRecord`, a record path or parsed dict.
        player: the asking player, 0-based, or its name in the record (:func:`resolve_player`).
        round_index: 0-based round; ``None`` (default): the record's last round.
        after_event: use the events with index ``<= after_event`` (``-1``: none; ``None``: all).
        top: list at most this many cases (``0``: all).
        display: the clue cards face up now (:func:`parse_display`; 9 cards are the whole display,
            fewer the cards known to be face up); the best query is then chosen among them. It must
            agree with a display the record states there (:func:`combine_display`). ``None``: from
            the record (module docstring).
        strict: check the record as ``pi-env replay`` does (:func:`check_record`: no event after
            its round's end; an engine-written record re-run from its seed), as ``pi-env solve``
            always does; ``False`` reads research positions (e.g. random legal play that ignores
            the end of a round): the end-of-round checks are then not applied to the events, and
            the record is not re-run.

    Returns:
        ``{"player", "player_name" (``None`` without names), "round" (1-based), "after_event",
        "events_used", "events_in_round", "count", "own_count", "total_deals", "cases" (most likely
        first: ``suspect``, ``evidence``, ``location``, ``probability``), "marginals" (per type
        ``{name: probability}``), "certain" (per type a name or ``None``), "conflict" (``None`` or
        event indices), "solved", "finished" (why p has no turn now, or ``None``), "held_case_known",
        "cases_given" (the players whose cases the round gives), "ignored_events" (answers declared
        incorrect), "notes" (what is missing, in words), "hint"}``. ``hint`` is ``None`` when p has
        no turn. A contradiction is reported (``count`` 0, ``conflict`` set), not raised.

    Raises:
        PIError: a bad player (:class:`~pi_env.core.errors.UnknownNameError` for an unknown name),
            round, event index, display (one that contradicts the record's included) or ``top``;
            :class:`RecordError` for an invalid record (an event after its round's end, or a
            difference from the engine's re-run included); ``OSError`` when the file cannot be read.
    """
    if top < 0:
        raise PIError(f"top must be >= 0 (0 lists every case), got {top}")
    record, player, round_index, after_event = _checked(record, player, round_index, after_event, strict)
    n = record.rules.players
    n_events = len(record.rounds[round_index].events)
    rnd = record.rounds[round_index]
    names = element_names(record.board)
    pos = _position(record, player, round_index, after_event, display, strict)
    a, ctx, h = pos["analysis"], pos["context"], pos["hint"]
    cards, source, inv_left = pos["cards"], pos["source"], pos["investigators_left"]
    held = (player + 1) % n
    notes = []
    if not rnd.cases:
        notes.append(f"the record gives no case for round {round_index + 1}: the answer uses the public "
                     f"answers only, not the case {_who(record, player)} holds ({_who(record, held)}'s), "
                     f"so it is weaker than that player's own reasoning at the table")
    elif held not in rnd.cases:
        notes.append(f"the record does not give the case {_who(record, player)} holds "
                     f"({_who(record, held)}'s): the answer uses the public answers only, so it is weaker "
                     f"than that player's own reasoning at the table")
    if cards is None and ctx.finished == "":
        notes.append("the display is not known: the best query is ranked over every clue card still in "
                     "circulation, assuming any can be taken (give the display with --display, or in the "
                     "record)")
    if ctx.pending and ctx.finished == "":
        notes.append(f"{' and '.join(_who(record, j) for j in ctx.pending)} "
                     f"{'acts' if len(ctx.pending) == 1 else 'act'} before {_who(record, player)}'s turn: "
                     f"the hint assumes {'it does' if len(ctx.pending) == 1 else 'they do'} not attempt a solve")
    if source == "partial" and ctx.finished == "":
        notes.append(f"only {len(cards)} card{'s' * (len(cards) != 1)} of the display {'is' if len(cards) == 1 else 'are'} "
                     f"known (the refills since the record last stated it are not): the best query is "
                     f"ranked among them")
    ordered = _sorted_cases(a, names)
    listed = ordered if top == 0 else ordered[:top]
    prob = a.as_dict()
    marginals = a.marginals_by_name()
    certain: dict[str, str | None] = {t: None for t in TYPE_NAMES}
    for x in a.certain:
        t = 0 if x < TYPE_OFFSETS[1] else 1 if x < TYPE_OFFSETS[2] else 2
        certain[TYPE_NAMES[t]] = names[x]
    ignored = sorted(k for k, d in rnd.declared_incorrect().items())
    return {
        "player": int(player),
        "player_name": record.player_names[player] if record.player_names else None,
        "round": round_index + 1, "after_event": after_event,
        "events_used": after_event + 1, "events_in_round": n_events,
        "count": a.count, "own_count": a.own_count, "total_deals": a.total,
        "cases": [dict(_case_doc(c, names), probability=prob[c]) for c in listed],
        "marginals": marginals, "certain": certain,
        "conflict": None if a.conflict is None else list(a.conflict),
        "solved": bool(ctx.solved[player]),
        "finished": ctx.finished or None,
        "held_case_known": held in rnd.cases,
        "cases_given": sorted(rnd.cases),
        "ignored_events": ignored,
        "notes": notes,
        # among equally likely cases the hint names the first listed one (same p_correct)
        "hint": None if h is None else _hint_doc(h, ordered[0] if ordered else -1, record, names, source,
                                                 cards, inv_left),
    }


_CANDIDATES = {"given": "display", "display": "display", "partial": "display, partly known",
               "any": "clue cards in circulation"}


def _hint_doc(h: Hint, best_case: int, record: GameRecord, names: tuple[str, ...], source: str,
              cards: "tuple[int, ...] | None", inv_left: int) -> dict[str, Any]:
    board = record.board
    ctx = h.context
    duel = ctx is not None and ctx.duel
    gain: int | None = None
    loss: int | None = None
    if ctx is not None and ctx.duel:
        formula = ("p_correct * 0 - (1 - p_correct) * 1" if ctx.extra_turn
                   else f"p_correct * (1 - {h.reply:.6g}) - (1 - p_correct) * 1" if h.reply is not None
                   else "p_correct * 1 - (1 - p_correct) * 1")
    else:
        gain, loss = (ctx.gain(h.tier), ctx.loss()) if ctx is not None else (h.points, 2)
        formula = f"p_correct * {gain} - (1 - p_correct) * {loss}"
    return {
        "tier": h.tier, "points": h.points,
        "units": "round result (+1 win, 0 draw, -1 loss)" if duel else "points",
        "score": None if ctx is None else ctx.score,
        "gain": gain, "loss": loss,
        "best_case": None if best_case < 0 else dict(_case_doc(best_case, names), probability=h.p_correct),
        "p_correct": h.p_correct,
        "expected_points": h.expected_points,
        "formula": formula,
        "wait_expected_points": h.wait_expected_points,
        "q_after": h.q_after,
        "next_turn": h.next_turn,
        "wait_outcomes": [{"probability": o.probability, "next_turn": o.next_turn, "tier": o.tier,
                           "reason": o.reason, "value": o.value} for o in h.wait_outcomes],
        "opponent_reply": h.reply,
        "solve_now": h.solve_now,
        "entropy_bits": h.entropy,
        "best_action": None if h.best_action is None else action_name(h.best_action, board),
        "best_action_id": h.best_action,
        "best_gain_bits": h.best_gain,
        "expected_remaining_actions": h.expected_remaining_actions,
        "candidates": _CANDIDATES[source],
        "display": None if cards is None else [names[x] for x in cards],
        "display_source": {"given": "--display", "display": "record", "partial": "record",
                           "any": None}[source] if not (source == "display" and record.seed is not None)
        else "engine",
        "investigators_left": inv_left,
        "gains": [{"action": action_name(act, board), "id": act, "bits": g} for act, g in h.ranked_gains()],
    }


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%" if p >= 0.0001 or p == 0 else f"{100 * p:.2g}%"


def _signed(x: float) -> str:
    return f"{round(x, 9) + 0.0:+.3f}"


def _bound_notes(h: dict[str, Any]) -> list[str]:
    """Why a solve's gain or loss is not the tier's points or the penalty: the second edition's score
    cap and floor (docs/rules.md §5)."""
    notes = []
    if h["gain"] is not None and h["score"] is not None and h["gain"] < h["points"]:
        notes.append(f"  (a correct solve gains {h['gain']}, not {h['points']}: score {h['score']}, "
                     f"and scores stop at {SCORE_CAP})")
    if h["loss"] is not None and h["score"] is not None and h["loss"] < WRONG_SOLVE_PENALTY:
        notes.append(f"  (a wrong solve loses {h['loss']}, not {WRONG_SOLVE_PENALTY}: score {h['score']}, "
                     f"and scores stop at {SCORE_FLOOR})")
    return notes


def solve_report_lines(doc: dict[str, Any], gains_shown: int = 5) -> list[str]:
    """Human-readable lines of a :func:`solve_report` dict."""
    p, r = doc["player"], doc["round"]
    seat = seat_label(p)
    who = seat + (f" ({doc['player_name']})" if doc.get("player_name") else "")
    where = ("before any event" if doc["after_event"] < 0 else
             f"after event {doc['after_event']} ({doc['events_used']} of {doc['events_in_round']} events)")
    lines = [f"{who}, round {r}, {where}; using only what {seat} knows"]
    for note in doc.get("notes", ()):
        lines.append(f"Note: {note}.")
    if doc.get("ignored_events"):
        what = ", ".join(map(str, doc["ignored_events"]))
        lines.append(f"Ignored: the answer{'s' * (len(doc['ignored_events']) > 1)} of event{'s' * (len(doc['ignored_events']) > 1)} "
                     f"{what}, declared incorrect.")
    lines.append(f"Consistent cases: {doc['count']} jointly with all public answers "
                 f"({doc['own_count']} from {seat}'s own information alone)")
    if doc["conflict"] is not None:
        what = ", ".join(map(str, doc["conflict"])) or "(none: the held case alone)"
        lines.append(f"No deal is consistent with the events; these cannot all hold: events {what}")
        return lines
    if doc["solved"]:
        lines.append(f"{seat} has already solved its case this round.")
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
    h = doc["hint"]
    if h is None:  # no turn now (docs/rules.md §4.3, §5, §7): no hint to give
        if doc.get("finished") and not doc["solved"]:
            lines.append(f"No hint: {doc['finished']}.")
        return lines
    bc = h["best_case"]
    q = h["p_correct"]
    duel = h["units"] != "points"
    if duel:
        reply = h["opponent_reply"]
        head = "Hint (duel: values are round results, +1 win, 0 draw, −1 loss):"
        lines.append(head)
        if h["formula"].startswith("p_correct * 0"):
            lines.append(f"  solve now with {bc['suspect']} / {bc['evidence']} / {bc['location']}: your one more "
                         f"turn — right draws the round, anything else loses it: P(correct) {_pct(q)}, "
                         f"expected {_signed(h['expected_points'])}")
        elif reply is not None:
            lines.append(f"  solve now with {bc['suspect']} / {bc['evidence']} / {bc['location']}: P(correct) "
                         f"{_pct(q)}; right, the opponent gets one more turn and draws with P {_pct(reply)}: "
                         f"expected {q:.4g}·(1 − {reply:.4g}) − {1 - q:.4g} = {_signed(h['expected_points'])}")
        else:
            lines.append(f"  solve now with {bc['suspect']} / {bc['evidence']} / {bc['location']}: P(correct) "
                         f"{_pct(q)}, right wins the round, wrong loses it: expected "
                         f"{q:.4g} − {1 - q:.4g} = {_signed(h['expected_points'])}")
    else:
        score = f"; score {h['score']}" if h.get("score") is not None else ""
        lines.append(f"Hint (tier {h['tier']}: a correct solve now scores {h['points']}{score}):")
        gain, loss = h["gain"], h["loss"]
        lines.append(f"  solve now with {bc['suspect']} / {bc['evidence']} / {bc['location']}: "
                     f"P(correct) {_pct(q)}, expected points {q:.4g}·{gain} − {1 - q:.4g}·{loss} = "
                     f"{_signed(h['expected_points'])}")
        lines.extend(_bound_notes(h))
    lines.append("  recommendation: " + ("solve now" if h["solve_now"] else "do not solve yet")
                 + f" (waiting is worth {_signed(h['wait_expected_points'])})")
    outcomes = h["wait_outcomes"]
    if len(outcomes) == 1:
        o = outcomes[0]
        if o["next_turn"]:
            lines.append(f"  waiting: {o['reason']}; one more query (P(correct) then {_pct(h['q_after'])}), "
                         f"then solving: {_signed(o['value'])}")
        elif duel:
            lines.append(f"  waiting: {o['reason']} ({_signed(o['value'])})")
        else:
            lines.append(f"  waiting scores nothing more this round: {o['reason']}")
    else:
        lines.append(f"  waiting: one more query (P(correct) then {_pct(h['q_after'])}), then solving on the "
                     f"next turn, if it comes:")
        for o in outcomes:
            lines.append(f"    {_pct(o['probability']):>8}  {o['reason']}: {_signed(o['value'])}")
    source = {"display": "the display", "display, partly known": "the cards known to be on the display",
              "clue cards in circulation": "any clue card still in circulation"}[h["candidates"]]
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
