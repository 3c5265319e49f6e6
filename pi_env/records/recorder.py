"""Build a ``pi-record/1`` game record while the engine plays (docs/record-format.md), and replay one.

:class:`Recorder` watches one game of a batch: call :meth:`Recorder.after_step` after every
``step_inplace``. :func:`replay_with_engine` re-runs a record that carries the engine seed and checks
every answer and layout against the engine (docs/record-format.md: "An engine-written record, replayed, must
reproduce the same game state"). Solo records (``rules.mode == "solo"``) are re-run by the solo
engine (:mod:`pi_env.engine.solo`, open queries) and give a :class:`~pi_env.engine.solo.SoloState`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from pi_env.core.constants import (DEFAULT_MAX_ROTATIONS, INVESTIGATE_BASE, NOTHING, ON_DISPLAY, SOLVE_BASE,
                        case_index)
from pi_env.engine import GameConfig, State, init, step_inplace
from pi_env.engine.api import is_legal
from pi_env.engine.state import DEFAULT_MAX_ROUNDS, MODES
from pi_env.core.errors import PIError, RecordError
from pi_env.core.names import element_names
from pi_env.records.record_file import suppression
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, Event, GameRecord, RoundRecord, Rules


def _round_from_state(state: State, game: int) -> dict:
    P = state.num_players
    return {
        "first_player": int(state.first_player[game]),
        "tile_district": tuple(int(d) for d in state.tile_district[game]),
        "cases": {i: case_index(*(int(v) for v in state.case[game, i])) for i in range(P)},
        "display": tuple(int(x) for x in np.flatnonzero(state.card_place[game] == ON_DISPLAY)),
        "events": [],
    }


def event_from_state(state: State, game: int, index: int) -> Event:
    """The :class:`Event` of the last step of ``game`` (its action, player and answer)."""
    a, p = int(state.last_action[game]), int(state.last_player[game])
    ans = state.last_answer[game]
    if a < INVESTIGATE_BASE:
        return Event(index=index, player=p, kind=CLUE, element=a, answer=int(ans[0]))
    if a < SOLVE_BASE:
        return Event(index=index, player=p, kind=INVESTIGATE, district=a - INVESTIGATE_BASE,
                     spots=int(ans[0]), traces=int(ans[1]))
    return Event(index=index, player=p, kind=SOLVE, case=a - SOLVE_BASE, correct=bool(ans[0]))


class Recorder:
    """Records game ``game`` of a batch as it is played.

    Args:
        config: the batch's rules.
        state: the state right after :func:`pi_env.engine.init`.
        seed: the int seed given to ``init`` (stored so a replay reproduces the deck order).
        player_names: optional display names.
    """

    def __init__(self, config: GameConfig, state: State, seed: int | None, game: int = 0,
                 player_names: tuple[str, ...] | None = None):
        self.config, self.game, self.seed, self.player_names = config, game, seed, player_names
        self._rounds: list[dict] = [_round_from_state(state, game)]
        self._round_index = int(state.round[game])

    def after_step(self, state: State) -> None:
        """Append the event of the step just taken; start a new round record if one began."""
        g = self.game
        if state.last_action[g] < 0:
            return
        rnd = self._rounds[-1]
        events = rnd["events"]
        ev = event_from_state(state, g, len(events))
        marked = rnd.setdefault("marked", {}).setdefault(ev.player, set())
        if ev.kind == CLUE and ev.answer != NOTHING:
            marked.add(ev.element)  # the player's marker is now on that tile (docs/rules.md §4.1)
        elif ev.kind == INVESTIGATE:  # derived like load_record does (docs/rules.md §4.2)
            ev = replace(ev, suppressed=suppression(rnd["tile_district"], marked, ev.district))
        events.append(ev)
        if not state.done[g] and int(state.round[g]) != self._round_index:
            self._round_index = int(state.round[g])
            self._rounds.append(_round_from_state(state, g))

    def record(self) -> GameRecord:
        """The game so far as a :class:`GameRecord` (every case included)."""
        cfg = self.config
        rules = Rules.of_config(cfg)
        rounds = tuple(RoundRecord(first_player=r["first_player"], tile_district=r["tile_district"],
                                   cases=dict(r["cases"]), display=r["display"],
                                   events=tuple(r["events"])) for r in self._rounds)
        return GameRecord(rules=rules, board=cfg.board, rounds=rounds, player_names=self.player_names,
                          seed=self.seed, max_rotations=cfg.max_rotations,
                          max_rounds=cfg.max_rounds if cfg.is_duel else None)


def config_of(record: GameRecord) -> GameConfig:
    """The engine :class:`GameConfig` of a record's rules (standard or duel, any variants).

    The duel's ``max_rounds`` safeguard is the record's (``engine.max_rounds``) when it has one;
    otherwise a duel record gets the default, or its number of rounds when it has more.

    Raises:
        RecordError: a mode the engine does not play (solo), or rules the engine rejects.
    """
    rules = record.rules
    if rules.mode not in MODES:
        raise RecordError(f"mode {rules.mode!r} cannot be replayed by the engine "
                          f"(it plays {' and '.join(MODES)})")
    try:
        return GameConfig(num_players=rules.players, edition=rules.edition, variants=rules.variants,
                          investigators=rules.investigators, mode=rules.mode,
                          max_rotations=record.max_rotations or DEFAULT_MAX_ROTATIONS,
                          max_rounds=(record.max_rounds if record.max_rounds is not None
                                      else max(DEFAULT_MAX_ROUNDS, len(record.rounds))),
                          board=record.board)
    except RecordError:
        raise
    except PIError as exc:
        raise RecordError(f"rules: {exc}") from None


def action_of(event: Event) -> int:
    """The engine action id of a recorded event."""
    if event.kind == CLUE:
        return event.element
    if event.kind == INVESTIGATE:
        return INVESTIGATE_BASE + event.district
    return SOLVE_BASE + event.case


def _suppressed(flags: np.ndarray) -> tuple[bool, bool, bool]:
    """``bool[3]`` suppression flags (suspect, evidence, location) as the event's triple."""
    return (bool(flags[0]), bool(flags[1]), bool(flags[2]))


def solo_event(state, game: int, index: int) -> Event:
    """The :class:`Event` of the last step of solo game ``game`` (a
    :class:`~pi_env.engine.solo.SoloState`), as player 0."""
    a = int(state.last_action[game])
    ans = state.last_answer[game]
    if a < INVESTIGATE_BASE:
        return Event(index=index, player=0, kind=CLUE, element=a, answer=int(ans[0]))
    if a < SOLVE_BASE:
        d = a - INVESTIGATE_BASE
        return Event(index=index, player=0, kind=INVESTIGATE, district=d, spots=int(ans[0]),
                     traces=int(ans[1]), suppressed=_suppressed(state.inv_suppressed[game, d]))
    return Event(index=index, player=0, kind=SOLVE, case=a - SOLVE_BASE, correct=bool(ans[0]))


def _replay_solo(record: GameRecord, on_step: Callable | None):
    """:func:`replay_with_engine` for a solo record (docs/rules.md §8, open queries)."""
    from pi_env.engine import solo as S

    rnd = record.rounds[0]
    try:
        config = S.SoloConfig(investigators=record.rules.investigators[0], board=record.board,
                              max_actions=S.MAX_SOLO_ACTIONS)
    except PIError as exc:
        raise RecordError(f"rules: {exc}") from None
    state = S.init(config, 1, seed=record.seed)
    if rnd.tile_district != tuple(int(d) for d in state.tile_district[0]):
        raise RecordError("tiles differ from the solo engine's for this seed", round_index=0)
    if rnd.cases.get(0, S.case_of(state)) != S.case_of(state):
        raise RecordError("the case differs from the solo engine's for this seed", round_index=0)
    play_solo_events(state, config, rnd.events, on_step)
    return state


def play_solo_events(state, config, events, on_step: Callable | None = None) -> None:
    """Play a solo record's ``events`` (round 0) in ``state`` (a :class:`~pi_env.engine.solo.SoloState`
    of one game, played in place with ``config``), checking each against the solo engine
    (docs/rules.md §7): the game is not over yet, the action is legal, and the engine gives the
    recorded answer. ``on_step(state)`` is called after each event.

    Raises:
        RecordError: the first event that fails a check (round 0 and the event's index).
    """
    from pi_env.engine import solo as S

    for ev in events:
        if state.done[0]:
            raise RecordError("the game was already over", round_index=0, event_index=ev.index)
        a = np.array([action_of(ev)])
        if not S.is_legal(state, a)[0]:
            raise RecordError("the action is not legal here", round_index=0, event_index=ev.index)
        S.step_inplace(state, a, config, check=False)
        got = solo_event(state, 0, ev.index)
        if (got.answer, got.spots, got.traces, got.correct) != (ev.answer, ev.spots, ev.traces, ev.correct):
            raise RecordError(f"the recorded answer differs from the engine's ({got})", round_index=0,
                              event_index=ev.index)
        if on_step is not None:
            on_step(state)


def _display_difference(stated, engine, record: GameRecord) -> str:
    """Words for the first card on which a stated display and the engine's differ."""
    names = element_names(record.board)
    extra = sorted(set(stated) - set(engine))
    if extra:
        return f"{names[extra[0]]!r} is not face up in the engine's game"
    missing = sorted(set(engine) - set(stated))
    return f"{names[missing[0]]!r} is face up in the engine's game but not listed"


def step_event(state: State, cfg: GameConfig, ev: Event, r: int,
               differs: str = "the recorded answer differs from the engine's ({got})") -> None:
    """Play the turn ``ev`` of round index ``r`` in game 0 of ``state`` (``B == 1``) with the engine
    and check that the engine's answer is the recorded one.

    Raises:
        RecordError: the action is not legal here, or the engine's answer differs (``differs``,
            formatted with ``got``, the engine's :class:`~pi_env.records.types.Event`), at ``ev``.
    """
    a = np.array([action_of(ev)])
    if not is_legal(state, a)[0]:
        raise RecordError("the action is not legal here", round_index=r, event_index=ev.index)
    step_inplace(state, a, cfg, check=False)
    got = event_from_state(state, 0, ev.index)
    if (got.answer, got.spots, got.traces, got.correct) != (ev.answer, ev.spots, ev.traces, ev.correct):
        raise RecordError(differs.format(got=got), round_index=r, event_index=ev.index)


def replay_with_engine(record: GameRecord, on_step: Callable[[State], None] | None = None) -> State:
    """Re-run an engine-written record (one with ``engine.seed``) and check it step by step.

    Every round's first player, tiles, cases and display, and every event's player, legality and
    answer must equal what the engine produces from the seed. A solo record is re-run by the solo
    engine and the final :class:`~pi_env.engine.solo.SoloState` is returned.

    Args:
        on_step: called with the state after every step (e.g. to compare with the original game).

    Returns:
        The final engine state (``B == 1``).

    Raises:
        RecordError: no seed, or a mismatch; the message names the round, event and reason.
    """
    if record.seed is None:
        raise RecordError("the record has no engine seed: it can be checked, not re-run")
    if record.rules.mode == "solo":
        return _replay_solo(record, on_step)
    cfg = config_of(record)
    state = init(cfg, 1, seed=record.seed)
    for r, rnd in enumerate(record.rounds):
        here = _round_from_state(state, 0)
        if int(state.round[0]) != r or state.done[0]:
            raise RecordError("the engine's game has no such round (the previous round "
                              "did not end where the record says)", round_index=r)
        if rnd.first_player != here["first_player"]:
            raise RecordError("first player differs from the engine's for this seed", round_index=r)
        if rnd.tile_district != here["tile_district"]:
            raise RecordError("tiles differ from the engine's for this seed", round_index=r)
        if rnd.display is not None and sorted(rnd.display) != sorted(here["display"]):
            raise RecordError(f"display differs from the engine's for this seed "
                              f"({_display_difference(rnd.display, here['display'], record)})", round_index=r)
        for p, c in rnd.cases.items():
            if here["cases"][p] != c:
                raise RecordError(f"player {p}'s case differs from the engine's for this seed", round_index=r)
        for ev in rnd.events:
            if not ev.is_turn:
                raise RecordError(f"the engine answers every query correctly: a declared incorrect "
                                  f"answer (event {ev.refers_to}) cannot be re-run from the seed",
                                  round_index=r, event_index=ev.index)
            if int(state.round[0]) != r or state.done[0]:
                raise RecordError("the round had already ended", round_index=r, event_index=ev.index)
            if ev.player != int(state.current_player[0]):
                raise RecordError(f"player {ev.player} acts but it is player "
                                  f"{int(state.current_player[0])}'s turn", round_index=r,
                                  event_index=ev.index)
            step_event(state, cfg, ev, r)
            if ev.display is not None and (int(state.round[0]) == r and not state.done[0]):
                engine_display = np.flatnonzero(state.card_place[0] == ON_DISPLAY).tolist()
                if sorted(ev.display) != engine_display:
                    raise RecordError(f"display differs from the engine's after this event "
                                      f"({_display_difference(ev.display, engine_display, record)})",
                                      round_index=r, event_index=ev.index)
            if on_step is not None:
                on_step(state)
    return state


def check_with_engine(record: GameRecord) -> State:
    """``pi-env replay``'s check of an engine-written record: re-run it from its seed
    (:func:`replay_with_engine`: every layout, case, display and answer as the engine's) and compare
    the scores derived from its events (:func:`pi_env.records.scoring.score_record`) with the
    engine's. ``pi-env solve`` makes the same check.

    Returns:
        The final engine state.

    Raises:
        RecordError: no seed, a difference from the engine's game (naming the round and event), or
            scores that differ from the engine's.
    """
    from pi_env.records.scoring import score_record

    state = replay_with_engine(record)
    if record.rules.mode != "solo":
        if tuple(int(s) for s in state.score[0]) != score_record(record).scores:
            raise RecordError("the scores derived from the events differ from the engine's")
    return state


__all__ = ["Recorder", "replay_with_engine", "check_with_engine", "config_of", "action_of", "event_from_state",
           "step_event", "solo_event", "play_solo_events"]
