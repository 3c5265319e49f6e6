"""Scores derived from a record's events (docs/rules.md §5–§7), and the standings' tiebreaks.

Records store no scores (docs/record-format.md); :func:`score_record` derives them from the solve events, the
rotation each event falls in, the edition and the variants. Rotations are read from turn order: an
event whose seat (counted from the round's first player) is not after the previous event's seat
starts a new rotation, so skipped (solved) players need no entry.

Nick of time (§6): once a player has solved in a round, every new rotation advances the tier, and
the rotation played at the last tier ``min(3, P - 2)`` ends the round.

The points, the score bounds, the tier's advance and the end-of-rotation conditions are those of
the engine, from :mod:`pi_env.core.rules` (``tier_points``, ``score_after``, ``bounded_score``,
``tier_after_rotation``, ``finished_for_round_end``, ``round_ends_after_rotation``,
``nick_of_time_ends_round``).

Duel (§7): the scores are rounds won. The first solve event of a round decides it (wrong: the
opponent wins; right by the round's second player: it wins; right by the first player: the next
event is the opponent's one more turn, a correct solve there draws, anything else loses). A round
without a decision counts as a draw (the safeguard ended it, or the record stops in it).
Investigator tiles: ``rules.investigators`` at the start, then before each later round 2 more
(1 for the previous round's winner), holding at most 5 (``duel_investigators_after_round``).

Complete or not (:attr:`RecordScores.incomplete`): a round reaches its end when every seat after its
last turn in that rotation is skipped (solved, or finished by the incorrect-information rule) and
the end-of-rotation checks then end it (the attempts or solves of §5, nick of time, the safeguard
of ``engine.max_rotations`` when the record has one; duel: a decision, or the safeguard); the game
when every round does and no round is missing (``rules.rounds``; duel: until the duel is won or
``engine.max_rounds``, default 9, is reached).
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_env.core.constants import SECOND_EDITION
from pi_env.core.errors import RecordError
from pi_env.core.rules import (WRONG_SOLVE_PENALTY, bounded_score, duel_investigators_after_round, edition_code,
                               finished_for_round_end,
                               first_edition_score, last_tier as rules_last_tier, nick_of_time_ends_round,
                               round_ends_after_rotation, score_after, tier_after_rotation,
                               tier_points)
from pi_env.engine.ranking import rank_players
from pi_env.engine.state import DEFAULT_MAX_ROUNDS
from pi_env.records.types import INCORRECT, INVESTIGATE, SOLVE, GameRecord



@dataclass(frozen=True)
class EventInfo:
    """Where an event falls: 0-based ``rotation`` and ``tier`` at that time, and its score ``delta``
    for the acting player."""

    rotation: int
    tier: int
    delta: int


@dataclass(frozen=True)
class RecordScores:
    """Scores derived from a record.

    Attributes:
        round_points: ``[rounds][players]`` score change of each player in each round (duel: 1 for
            the round's winner).
        scores: final scores (duel: rounds won); ``penalty``: penalty points (2 per wrong solve;
            0 in a duel); ``investigators_left``.
        ranks: 1-based ranks after tiebreaks (:func:`rank_players`).
        events: ``[rounds][events]`` :class:`EventInfo` per event.
        mode: the record's mode.
        round_winners: duel: per round the winning player, ``-1`` for a draw; ``()`` otherwise.
        round_complete: per round, whether its events reach its end (the end of docs/rules.md §5).
        incomplete: why the game is not over, one sentence per reason (a round that stops before
            its end, fewer rounds than the game has); ``()`` for a finished game.
    """

    round_points: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    penalty: tuple[int, ...]
    investigators_left: tuple[int, ...]
    ranks: tuple[int, ...]
    events: tuple[tuple[EventInfo, ...], ...]
    mode: str = "standard"
    round_winners: tuple[int, ...] = ()
    round_complete: tuple[bool, ...] = ()
    incomplete: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """The record holds a whole game: every round reaches its end and no round is missing."""
        return not self.incomplete


def score_record(record: GameRecord, *, check_end: bool = True) -> RecordScores:
    """Derive every score of a record (docs/rules.md §5–§7), and whether the game is complete.

    Incorrect information (an ``incorrect`` event, see :mod:`pi_env.records.record_file`): the
    opponent who gave the wrong answer loses the round's points from its correct solve, the asker's
    points from solving this round become the round's highest (``tier_points(0, round)``: 7, 8 or 9;
    first edition 7; capped at 21), and both count as finished for the end of the round (as having
    attempted in the second edition, as solved in the first). The asker's earlier wrong-solve
    penalties of the round stand, except the one whose answer is declared incorrect (the asker named
    its true case and was told "wrong"): that penalty is cancelled (and leaves the penalty count),
    so a declaration about a solve gives the asker exactly the round's highest score (rulebook: "you
    automatically receive the highest score for this round"). The declaration is not a solve: the
    tier does not advance. In a duel the asker wins the round, whatever decided it before.

    Args:
        record: the record.
        check_end: reject an event after its round's end (default). ``False`` scores such events
            as if the round went on (for research positions that ignore the end of a round, e.g.
            random legal play; never for a game).

    Raises:
        RecordError: an event after its round must have ended (at the end of a rotation in which at
            most one player had not attempted (2nd ed.) / had not solved (1st ed.); nick of time: at
            the end of the rotation played at the last tier; duel: after the deciding event), or a
            duel round after the duel was won. Declarations may follow a round's last turn.
    """
    if record.rules.mode == "duel":
        return _score_duel(record, check_end)
    rules = record.rules
    n, edition = rules.players, rules.edition
    ed = edition_code(edition)
    nick = "nick-of-time" in rules.variants
    score = [0] * n
    solve_pts = [0] * n
    penalty = [0] * n
    inv_left = list(rules.investigators)
    round_points = []
    infos = []
    complete = []
    for r, rnd in enumerate(record.rounds):
        start = list(score)
        attempted: set[int] = set()
        solved: set[int] = set()
        out: set[int] = set()
        gain = [0] * n  # this round's score gain from each player's correct solve
        rotation, tier, solved_in_rotation, prev_seat = 0, 0, False, -1
        ev_infos: list[EventInfo] = []
        for ev in rnd.events:
            if ev.kind == INCORRECT:  # the incorrect-information rule: not a turn
                q = ev.player
                a = (q - 1) % n
                before = score[q]
                top = tier_points(0, r, n, ed)
                target = rnd.events[ev.refers_to]
                # the asker's wrong solve whose 'wrong' is declared incorrect: its penalty is cancelled
                cancelled = target.kind == SOLVE and not target.correct
                refund = -ev_infos[ev.refers_to].delta if cancelled else 0  # what the floor let it cost
                if cancelled:
                    penalty[q] -= WRONG_SOLVE_PENALTY
                if edition == "second":
                    score[a] = bounded_score(score[a] - gain[a], ed)
                    base = score[q] - gain[q] + refund
                    score[q] = bounded_score(base + top, ed)
                    gain[q] = score[q] - base
                else:
                    solve_pts[a] -= gain[a]
                    solve_pts[q] += top - gain[q]
                    gain[q] = top
                    for i in (a, q):
                        score[i] = first_edition_score(solve_pts[i], penalty[i])
                gain[a] = 0
                out |= {q, a}
                ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=score[q] - before))
                continue
            seat = (ev.player - rnd.first_player) % n
            if seat <= prev_seat:  # a new rotation began: end-of-rotation checks (docs/rules.md §4-§6)
                rotation += 1
                tier, ended = _end_of_rotation(tier, solved_in_rotation, nick, n, ed, attempted, solved, out,
                                               rotation, record.max_rotations)
                solved_in_rotation = False
                if ended and check_end:
                    raise RecordError(f"the round ended at the end of rotation {rotation} ({ended})",
                                      round_index=r, event_index=ev.index)
            prev_seat = seat
            before = score[ev.player]
            if ev.kind == INVESTIGATE:
                inv_left[ev.player] -= 1
            elif ev.kind == SOLVE:
                attempted.add(ev.player)
                p = ev.player
                if ev.correct:
                    solved.add(p)
                    solved_in_rotation = True
                    pts = tier_points(tier, r, n, ed)
                    solve_pts[p] += pts
                    score[p] = score_after(score[p], pts, solve_pts[p], penalty[p], ed)
                    gain[p] = score[p] - before if edition == "second" else pts
                else:
                    penalty[p] += WRONG_SOLVE_PENALTY
                    score[p] = score_after(score[p], -WRONG_SOLVE_PENALTY, solve_pts[p], penalty[p], ed)
            ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=score[ev.player] - before))
        done = False
        if prev_seat >= 0 and all(((rnd.first_player + s) % n) in solved | out for s in range(prev_seat + 1, n)):
            # every seat after the last turn is skipped: the rotation ended with it
            _, ended = _end_of_rotation(tier, solved_in_rotation, nick, n, ed, attempted, solved, out,
                                        rotation + 1, record.max_rotations)
            done = bool(ended)
        complete.append(done)
        round_points.append(tuple(score[i] - start[i] for i in range(n)))
        infos.append(tuple(ev_infos))
    incomplete = _incomplete(record, complete, game_over=len(record.rounds) >= rules.rounds)
    return RecordScores(round_points=tuple(round_points), scores=tuple(score), penalty=tuple(penalty),
                        investigators_left=tuple(inv_left),
                        ranks=rank_players(score, inv_left, penalty, edition), events=tuple(infos),
                        round_complete=tuple(complete), incomplete=incomplete)


def _end_of_rotation(tier: int, solved_in_rotation: bool, nick: bool, n: int, ed: int,
                     attempted: set, solved: set, out: set, rotations: int,
                     max_rotations: int | None) -> tuple[int, str]:
    """The end-of-rotation step (docs/rules.md §4–§6): the next rotation's tier and why the round ends
    (``""`` if it goes on). ``ed``: the edition's code; ``out``: players finished by the
    incorrect-information rule; ``rotations``: rotations completed, this one included."""
    ends = nick and bool(solved) and nick_of_time_ends_round(tier, n)
    tier = tier_after_rotation(tier, solved_in_rotation, bool(solved), nick, n)
    if ends:
        return tier, f"nick of time: the rotation at the last tier, {rules_last_tier(n)}, was played out"
    open_ = sum(1 for i in range(n) if i not in out and not finished_for_round_end(i in attempted, i in solved, ed))
    if round_ends_after_rotation(open_):
        return tier, f"at most one player {'had not attempted' if ed == SECOND_EDITION else 'had not solved'}"
    if max_rotations is not None and rotations >= max_rotations:
        return tier, f"the safeguard of {max_rotations} rotations"
    return tier, ""


def _incomplete(record: GameRecord, complete: list[bool], game_over: bool,
                rounds_needed: str | None = None) -> tuple[str, ...]:
    """The reasons a record's game is not finished (see :attr:`RecordScores.incomplete`)."""
    reasons = []
    for r, done in enumerate(complete):
        if not done:
            events = record.rounds[r].events
            where = f"after event {len(events) - 1}" if events else "before its first event"
            reasons.append(f"round {r + 1} stops before its end ({where})")
    if not game_over:
        total = rounds_needed or str(record.rules.rounds)
        reasons.append(f"{len(record.rounds)} of {total} rounds recorded")
    return tuple(reasons)


def _score_duel(record: GameRecord, check_end: bool = True) -> RecordScores:
    """:func:`score_record` for a duel (docs/rules.md §7; see the module docstring)."""
    rules = record.rules
    n = rules.players  # 2
    wins = [0] * n
    inv_left = list(rules.investigators)
    round_points: list[tuple[int, ...]] = []
    infos: list[tuple[EventInfo, ...]] = []
    winners: list[int] = []
    complete: list[bool] = []
    for r, rnd in enumerate(record.rounds):
        if r > 0:
            if r >= rules.rounds and wins[0] != wins[1] and check_end:
                leader = 0 if wins[0] > wins[1] else 1
                raise RecordError(f"the duel was over after round {r}: player {leader} won "
                                  f"{wins[leader]}-{wins[1 - leader]}", round_index=r)
            for i in range(n):
                inv_left[i] = duel_investigators_after_round(inv_left[i], i == winners[-1])
        start = list(wins)
        rotation, tier, solved_in_rotation, prev_seat = 0, 0, False, -1
        result: int | None = None
        decided_at = -1
        extra_turn = False
        ev_infos: list[EventInfo] = []
        for ev in rnd.events:
            p = ev.player
            if ev.kind == INCORRECT:  # the asker wins the round, whatever decided it before
                before = wins[p]
                if result is not None and result >= 0:
                    wins[result] -= 1
                result, decided_at, extra_turn = p, ev.index, False
                wins[p] += 1
                ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=wins[p] - before))
                continue
            if result is not None:
                if not check_end:
                    ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=0))
                    continue
                raise RecordError(f"the duel round was decided at event {decided_at} and ended there",
                                  round_index=r, event_index=ev.index)
            seat = (p - rnd.first_player) % n
            if seat <= prev_seat:
                rotation += 1
                tier = tier_after_rotation(tier, solved_in_rotation, False, False, n)  # no nick of time (§6)
                solved_in_rotation = False
            prev_seat = seat
            before = wins[p]
            is_solve = ev.kind == SOLVE
            if ev.kind == INVESTIGATE:
                inv_left[p] -= 1
            elif is_solve and ev.correct:
                solved_in_rotation = True
            if extra_turn:
                result = -1 if (is_solve and ev.correct) else rnd.first_player
            elif is_solve:
                if not ev.correct:
                    result = 1 - p
                elif p == rnd.first_player:
                    extra_turn = True
                else:
                    result = p
            if result is not None:
                decided_at = ev.index
                if result >= 0:
                    wins[result] += 1
            ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=wins[p] - before))
        # a round without a decision is complete only when the safeguard ended it: the last turn
        # was the last seat's in the record's last allowed rotation
        safeguard = (result is None and record.max_rotations is not None and prev_seat == n - 1
                     and rotation + 1 >= record.max_rotations)
        complete.append(result is not None or safeguard)
        winners.append(-1 if result is None else result)
        round_points.append(tuple(wins[i] - start[i] for i in range(n)))
        infos.append(tuple(ev_infos))
    zeros = (0,) * n
    played = len(record.rounds)
    max_rounds = record.max_rounds if record.max_rounds is not None else DEFAULT_MAX_ROUNDS
    over = (played >= rules.rounds and wins[0] != wins[1]) or played >= max_rounds
    needed = (str(rules.rounds) if played < rules.rounds
              else f"{played + 1} or more (the duel is tied)")
    return RecordScores(round_points=tuple(round_points), scores=tuple(wins), penalty=zeros,
                        investigators_left=tuple(inv_left),
                        ranks=rank_players(wins, inv_left, zeros, rules.edition, mode="duel"),
                        events=tuple(infos), mode="duel", round_winners=tuple(winners),
                        round_complete=tuple(complete),
                        incomplete=_incomplete(record, complete, over, needed))
