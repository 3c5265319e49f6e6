"""Start a game at a point of a ``pi-record/1`` record: the engine position there.

:func:`record_start` gives the engine state (``B == 1``) of a record after one of its events, ready
to be played on. The environments call it for ``reset(options={"record": ..., "round": r,
"event": e})`` (:mod:`pi_env.envs.aec`, :mod:`pi_env.envs.solo`).

* An **engine-written** record (it carries ``engine.seed``) is re-run by the engine from its seed
  (:func:`pi_env.records.recorder.replay_with_engine`, which checks every answer): the position is
  exactly the recorded game's, deck order and generator included, so playing the record's next
  events from it reproduces them.
* A record **typed in** at a table (no seed) starts from its stated layouts, first players, cases
  and displays. Each round up to the position is set up with :func:`pi_env.engine.setup.from_layout`
  and its events are played by the engine, which must give every recorded answer (so the turn
  order must be the engine's: a record that skips turns is refused, naming the event). What the
  record does not give is drawn:

  - a player's **case** missing from a round: by ``complete_cases``, a :class:`CaseCompleter`
    passed in (this layer and the environments cannot import the solver), which draws it
    consistently with every answer of that round in the record (the solver's exact posterior:
    ``pi_env.solvers.complete_cases``);
  - the **clue cards**: the display's cards the record does not state and the deck's order are
    shuffled; a clue card the record takes, or states face up, that the shuffle left in the deck
    changes places with a face-up card the record does not state (so every recorded clue is legal
    and every stated display holds; a card taken twice in a round must have come back through a
    reshuffle of the discard pile, which is the engine's);
  - the generator of every later chance event (reshuffles, the next rounds' layouts): from ``seed``.

  Between rounds the engine carries the game totals (scores, penalties, investigators left, the
  duel's round results); the next round's layout is the record's.

Positions are named as in ``pi-env render`` and :meth:`GameRecord.prefix`: round ``round_index``
(0-based) **after** event ``after_event`` (``-1``: the round's start, before its first event;
``None``: after its last recorded event). If that event ended the round, the position is the start
of the next round: for an engine-written record exactly the game's; for a typed record the record's
next round (layout, first player, cases) when it has one, else a round the engine sets up from the
generator. A position where the game is over is refused: nothing is left to play.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pi_env.core.constants import CASE_TRIPLES, DISPLAY_SIZE, IN_DECK, IN_DISCARD, NUM_CASES, NUM_ELEMENTS, ON_DISPLAY
from pi_env.core.errors import PIError, RecordError
from pi_env.engine import GameConfig, State
from pi_env.engine.setup import from_layout
from pi_env.records.record_file import load_record
from pi_env.records.recorder import config_of, play_solo_events, replay_with_engine, step_event
from pi_env.records.types import CLUE, INCORRECT, GameRecord

if TYPE_CHECKING:
    from pi_env.engine.solo import SoloState

__all__ = ["CaseCompleter", "RecordStart", "record_start", "solo_record_start", "as_record", "position_indices"]


class CaseCompleter(Protocol):
    """Draws the cases a record does not give, consistently with its answers.

    ``complete_cases(record, round_index, known, rng)`` returns ``{player: case id}`` for at least
    every player missing from ``known`` (the round's stated cases, ``{player: case id}``), drawn
    from the posterior given every answer of round ``round_index`` in ``record`` and the known
    cases; ``rng`` is the only source of randomness (the same generator state gives the same
    cases). It raises if no deal fits the answers.

    """

    def __call__(self, record: GameRecord, round_index: int, known: Mapping[int, int],
                 rng: np.random.Generator) -> Mapping[int, int]: ...


@dataclass(frozen=True)
class RecordStart:
    """The engine position at a point of a record.

    Attributes:
        state: ``B == 1`` engine state (privileged: every case, the deck order); a
            :class:`~pi_env.engine.solo.SoloState` for a solo record.
        config: the record's rules (:func:`pi_env.records.recorder.config_of`).
        round_index, after_event: the position asked for (``after_event`` resolved: ``-1`` for the
            round's start).
        seeded: the record carries an engine seed and was re-run exactly.
        drawn_cases: ``{round index: (players, ...)}``: whose cases were drawn (not given by the
            record), for every round played up to the position; empty when nothing was drawn.
        drawn_cards: the clue cards were (partly) drawn: the record does not state every card of
            the display and the deck order (always so for a typed record).
    """

    state: "State | SoloState"
    config: Any  # GameConfig, or SoloConfig for a solo record
    round_index: int
    after_event: int
    seeded: bool
    drawn_cases: dict[int, tuple[int, ...]] = field(default_factory=dict)
    drawn_cards: bool = False

    def info(self) -> dict[str, Any]:
        """What an environment reports of the start, JSON values only (public: whose cases were
        drawn, never a case): ``{"round", "event", "seeded", "drawn_cases", "drawn_cards"}`` with
        ``drawn_cases[r]`` the players whose cases were drawn in round ``r``, for every round from
        the first to the position's (``[]`` where none was)."""
        last = max([self.round_index, *self.drawn_cases])
        return {"round": self.round_index, "event": self.after_event, "seeded": self.seeded,
                "drawn_cases": [list(self.drawn_cases.get(r, ())) for r in range(last + 1)],
                "drawn_cards": self.drawn_cards}


def as_record(record: Any) -> GameRecord:
    """A :class:`GameRecord` from a record, a path or a parsed JSON object
    (:func:`pi_env.records.record_file.load_record`).

    Raises:
        RecordError: an invalid record; OSError: an unreadable file.
    """
    if isinstance(record, GameRecord):
        return record
    if not isinstance(record, (str, Mapping)) and not hasattr(record, "__fspath__"):
        raise PIError(f"a record must be a GameRecord, a path or a parsed pi-record/1 object, "
                      f"got {type(record).__name__}")
    return load_record(record if not isinstance(record, Mapping) else dict(record))


def position_indices(record: GameRecord, round_index: int | None, after_event: int | None) -> tuple[int, int]:
    """``(round, event)`` of a position, checked (module docstring).

    Raises:
        PIError: a round or event out of range (the message gives the valid ranges).
    """
    n = len(record.rounds)
    if not n:
        raise PIError("the record has no rounds")
    if round_index is not None and (not isinstance(round_index, (int, np.integer)) or isinstance(round_index, bool)):
        raise PIError(f"round must be an integer 0..{n - 1} (0-based) or None, got {round_index!r}")
    k = n - 1 if round_index is None else int(round_index)
    if not 0 <= k < n:
        raise PIError(f"round must be 0..{n - 1} (0-based; the record has {n} round{'s' * (n != 1)}), got {k}")
    events = record.rounds[k].events
    if after_event is not None and (not isinstance(after_event, (int, np.integer)) or isinstance(after_event, bool)):
        raise PIError(f"event must be an integer -1..{len(events) - 1} or None, got {after_event!r}")
    e = len(events) - 1 if after_event is None else int(after_event)
    if not -1 <= e < len(events):
        raise PIError(f"event must be -1..{len(events) - 1} (the position after that event of round {k}; "
                      f"-1: the round's start), got {e}")
    return k, e


def record_start(record: Any, round_index: int | None = None, after_event: int | None = None, *,
                 complete_cases: CaseCompleter | None = None,
                 seed: "int | np.random.Generator | None" = None) -> RecordStart:
    """The engine position of a record after an event (module docstring).

    Args:
        record: a :class:`GameRecord`, a path or a parsed ``pi-record/1`` object (standard or duel;
            solo records: :func:`solo_record_start`).
        round_index: 0-based round; ``None``: the record's last round.
        after_event: the position after this event of the round; ``-1``: the round's start;
            ``None``: after its last event.
        complete_cases: draws the cases a typed record does not give (:class:`CaseCompleter`);
            not needed when the record gives every case of the rounds played.
        seed: typed records only: the generator (or its seed) of everything drawn (cases, clue
            cards) and of the game's later chance events; ``None``: fresh entropy.

    Returns:
        A :class:`RecordStart`.

    Raises:
        PIError: a round or event out of range; a position where the game is over; a typed record
            missing cases without ``complete_cases``; a case drawn by ``complete_cases`` that is not a
            valid, disjoint completion of the stated ones.
        RecordError: an invalid record, or one the engine cannot play from its stated layout: a turn
            out of the engine's turn order, an answer the engine gives differently, a clue card that
            cannot be face up, a round whose events stop before its end (or go on after it), an
            answer declared incorrect. The message names the round and event.
    """
    rec = as_record(record)
    if rec.rules.mode == "solo":
        raise PIError("this is a solo record: start it with pi_env.records.start.solo_record_start "
                      "(or the solo env's reset(options={'record': ...}))")
    k, e = position_indices(rec, round_index, after_event)
    if rec.seed is not None:
        state = replay_with_engine(rec.prefix(k, e))
        out = RecordStart(state=state, config=config_of(rec), round_index=k, after_event=e, seeded=True)
    else:
        out = _typed_start(rec, k, e, complete_cases, seed)
    if out.state.done[0]:
        raise PIError(f"the game is over after event {e} of round {k}: nothing is left to play "
                      f"(choose an earlier event)")
    return out


# ---------------------------------------------------------------------------------------------
# records typed in at a table


def _complete(rec: GameRecord, r: int, complete_cases: CaseCompleter | None,
              rng: np.random.Generator) -> tuple[list[int], tuple[int, ...]]:
    """Every player's case id in round ``r`` and the players whose case was drawn."""
    P = rec.rules.players
    known = dict(rec.rounds[r].cases)
    missing = tuple(p for p in range(P) if p not in known)
    if not missing:
        return [known[p] for p in range(P)], ()
    if complete_cases is None:
        raise PIError(f"round {r}: the record does not give the case of player"
                      f"{'s' * (len(missing) > 1)} {', '.join(map(str, missing))}; pass complete_cases "
                      f"(a CaseCompleter, pi_env.records.start: it draws them consistently with the "
                      f"record's answers)")
    got = complete_cases(rec, r, dict(known), rng)
    if not isinstance(got, Mapping):
        raise PIError(f"complete_cases must return {{player: case id}}, got {type(got).__name__}")
    cases = dict(known)
    for p in missing:
        c = got.get(p)
        if not isinstance(c, (int, np.integer)) or isinstance(c, bool) or not 0 <= c < NUM_CASES:
            raise PIError(f"complete_cases gave no case id 0..{NUM_CASES - 1} for player {p} in round {r} "
                          f"(got {c!r})")
        cases[p] = int(c)
    for p, c in known.items():
        if p in got and int(got[p]) != c:
            raise PIError(f"complete_cases changed player {p}'s stated case in round {r}")
    triples = CASE_TRIPLES[[cases[p] for p in range(P)]]
    for t in range(3):
        if len(set(triples[:, t].tolist())) != P:
            raise PIError(f"complete_cases gave round {r} cases that share a {('suspect', 'evidence', 'location')[t]}"
                          f" (cases are pairwise disjoint, docs/rules.md §3)")
    return [cases[p] for p in range(P)], missing


def _initial_cards(rec: GameRecord, r: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """The round's stated display (filled up to 9 cards at random) and a shuffled deck (top first)."""
    shown = list(rec.rounds[r].display or ())
    rest = [x for x in range(NUM_ELEMENTS) if x not in shown]
    rng.shuffle(rest)
    display = shown + rest[:DISPLAY_SIZE - len(shown)]
    return display, rest[DISPLAY_SIZE - len(shown):]


def _bring_to_display(state: State, x: int, pinned: set[int], r: int, ev_index: int, why: str) -> None:
    """Make clue card ``x`` face up by exchanging it with a face-up card the record does not pin
    (``pinned``: stated face up and not taken since), which takes ``x``'s place in the deck: the
    deck's order was drawn, so either could have been dealt there (docs/rules.md §4.1 card flow)."""
    place = state.card_place[0]
    if place[x] == ON_DISPLAY:
        return
    if place[x] != IN_DECK:
        where = "in the discard pile" if place[x] == IN_DISCARD else "in front of a player"
        raise RecordError(f"the clue card {x} cannot be face up here ({why}): it is {where} (taken earlier "
                          f"this round, and the deck has not run out since)", round_index=r, event_index=ev_index)
    free = [y for y in np.flatnonzero(place == ON_DISPLAY).tolist() if y not in pinned and y != x]
    if not free:
        raise RecordError(f"the clue card {x} cannot be face up here ({why}): the record's display shows "
                          f"nine other cards", round_index=r, event_index=ev_index)
    y = free[0]
    n = int(state.deck_size[0])
    k = int(np.flatnonzero(state.deck[0, :n] == x)[0])
    state.deck[0, k] = y
    place[x], place[y] = ON_DISPLAY, IN_DECK


def _play_round(rec: GameRecord, r: int, last: int, state: State, cfg: GameConfig) -> None:
    """Play events ``0..last`` of round ``r`` on ``state`` with the engine, checking each. Clue cards
    the record takes or states face up are brought to the display first (:func:`_bring_to_display`)."""
    rnd = rec.rounds[r]
    wrong = rnd.declared_incorrect()
    pinned: set[int] = set(rnd.display or ())
    for ev in rnd.events[:last + 1]:
        if ev.kind == INCORRECT:
            continue
        if ev.index in wrong:
            raise RecordError(f"this answer is declared incorrect (event {wrong[ev.index]}): the engine gives "
                              f"every answer by the rules, so the game cannot be set up past it",
                              round_index=r, event_index=ev.index)
        if int(state.round[0]) != r or state.done[0]:
            raise RecordError("the round had already ended (docs/rules.md §5) before this event", round_index=r,
                              event_index=ev.index)
        if ev.player != int(state.current_player[0]):
            raise RecordError(f"player {ev.player} acts but it is player {int(state.current_player[0])}'s "
                              f"turn (the engine plays the rules' turn order)", round_index=r,
                              event_index=ev.index)
        if ev.kind == CLUE:
            _bring_to_display(state, ev.element, pinned, r, ev.index, "this event takes it")
            pinned.discard(ev.element)
        step_event(state, cfg, ev, r, "the engine answers differently with these cases ({got}); the record's "
                                      "answers and cases do not fit together")
        if ev.display is not None and int(state.round[0]) == r and not state.done[0]:
            pinned = set(ev.display)
            for x in sorted(pinned):
                _bring_to_display(state, x, pinned, r, ev.index, "the record's display after this event shows it")


_CARRIED = ("score", "solve_points", "penalty", "inv_left", "truncated", "turn", "rewards", "last_action",
            "last_answer", "last_player", "round_winner", "rng")


def _typed_start(rec: GameRecord, k: int, e: int, complete_cases: CaseCompleter | None,
                 seed: "int | np.random.Generator | None") -> RecordStart:
    cfg = config_of(rec)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    drawn_cases: dict[int, tuple[int, ...]] = {}
    state: State | None = None
    r = 0
    while r <= k or (state is not None and int(state.round[0]) == r and r < len(rec.rounds)
                     and not state.done[0]):
        # rounds 0..k; then, when event e ended round k, the record's next round (if it has one)
        rnd = rec.rounds[r]
        last = len(rnd.events) - 1 if r < k else (e if r == k else -1)
        cases, drawn = _complete(rec, r, complete_cases, rng)
        if drawn:
            drawn_cases[r] = drawn
        display, deck = _initial_cards(rec, r, rng)
        if state is not None and (int(state.round[0]) != r or state.done[0]):
            raise RecordError("the engine's game has no such round: the previous round's events do not end "
                              "it where the record does", round_index=r)
        try:
            fresh = from_layout(cfg, rnd.tile_district, CASE_TRIPLES[cases], first_player=rnd.first_player,
                                display=display, deck=deck, rng_state=int(rng.integers(1, 2**63)),
                                round_index=r)
        except RecordError:
            raise
        except PIError as exc:
            raise RecordError(str(exc), round_index=r) from None
        if state is not None:
            for name in _CARRIED:
                getattr(fresh, name)[...] = getattr(state, name)
        state = fresh
        _play_round(rec, r, last, state, cfg)
        if r < k and int(state.round[0]) == r and not state.done[0]:
            raise RecordError("the round's recorded events stop before the round ends (docs/rules.md §5), so the "
                              "next round cannot be set up", round_index=r)
        r += 1
    assert state is not None
    return RecordStart(state=state, config=cfg, round_index=k, after_event=e, seeded=False,
                       drawn_cases=drawn_cases, drawn_cards=True)


# ---------------------------------------------------------------------------------------------
# solo records


def solo_record_start(record: Any, after_event: int | None = None, config: Any = None, *,
                      complete_cases: CaseCompleter | None = None,
                      seed: "int | np.random.Generator | None" = None) -> RecordStart:
    """The solo engine position of a solo record (``rules.mode == "solo"``, docs/rules.md §8) after an
    event, as :func:`record_start` (one round; ``after_event`` as there).

    Args:
        record: the solo record (a :class:`GameRecord`, a path or a parsed object).
        after_event: the position after this event (``-1``: before the first; ``None``: after the last).
        config: the :class:`~pi_env.engine.solo.SoloConfig` to play on with (open queries: solo
            records name any element); ``None``: the record's investigators, default options.
        complete_cases: draws the case when the record neither gives it nor has a seed.
        seed: typed records: the generator (or seed) of what is drawn and of later chance.

    Returns:
        A :class:`RecordStart` whose ``state`` is a :class:`~pi_env.engine.solo.SoloState`
        (``config`` is the solo config).

    Raises:
        PIError: not a solo record; a display-mode ``config`` (solo records are open queries); other
            investigators than the record's; an event out of range; a solved game; a missing case
            without ``complete_cases``. RecordError: an answer the engine gives differently.
    """
    from pi_env.engine import solo as S

    rec = as_record(record)
    if rec.rules.mode != "solo":
        raise PIError(f"this is a {rec.rules.mode} record, not a solo one: use record_start")
    inv = rec.rules.investigators[0]
    if config is None:
        config = S.SoloConfig(investigators=inv, board=rec.board)
    if config.use_display:
        raise PIError("solo records are played with open queries (any element): start them in an env with "
                      "use_display=False")
    if config.investigators != inv:
        raise PIError(f"the record is played with {inv} investigators, this env with {config.investigators}")
    if config.board != rec.board:
        raise PIError("the record is played on another board than this env's")
    k, e = position_indices(rec, 0, after_event)
    rnd = rec.rounds[0]
    drawn: dict[int, tuple[int, ...]] = {}
    if rec.seed is not None:
        state = S.init(config, 1, seed=rec.seed)
        if tuple(int(d) for d in state.tile_district[0]) != rnd.tile_district:
            raise RecordError("tiles differ from the solo engine's for this seed", round_index=0)
        rng_state = None
    else:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        if 0 in rnd.cases:
            case = rnd.cases[0]
        elif complete_cases is None:
            raise PIError("round 0: the record does not give the case; pass complete_cases "
                          "(a CaseCompleter, pi_env.records.start)")
        else:
            got = complete_cases(rec, 0, {}, rng).get(0)
            if not isinstance(got, (int, np.integer)) or isinstance(got, bool) or not 0 <= got < NUM_CASES:
                raise PIError(f"complete_cases gave no case id for the solo player (got {got!r})")
            case = int(got)
            drawn[0] = (0,)
        state = S.from_layout(config, rnd.tile_district, case, rng_state=int(rng.integers(1, 2**63)))
        rng_state = True
    if rec.seed is not None and 0 in rnd.cases and rnd.cases[0] != S.case_of(state):
        raise RecordError("the case differs from the solo engine's for this seed", round_index=0)
    play_solo_events(state, config, rnd.events[:e + 1])
    if state.done[0]:
        raise PIError(f"the game is over after event {e}: nothing is left to play (choose an earlier event)")
    return RecordStart(state=state, config=config, round_index=0, after_event=e, seeded=rng_state is None,
                       drawn_cases=drawn, drawn_cards=False)
