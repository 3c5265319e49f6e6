"""Scores derived from a record's events (RULES.md §5–§7), and the standings' tiebreaks.

Records store no scores (RECORD.md); :func:`score_record` derives them from the solve events, the
rotation each event falls in, the edition and the variants. Rotations are read from turn order: an
event whose seat (counted from the round's first player) is not after the previous event's seat
starts a new rotation, so skipped (solved) players need no entry.

Nick of time (§6): once a player has solved in a round, every new rotation advances the tier, and
the rotation played at the last tier ``min(3, P - 2)`` ends the round.

Duel (§7): the scores are rounds won. The first solve event of a round decides it (wrong: the
opponent wins; right by the round's second player: it wins; right by the first player: the next
event is the opponent's one more turn, a correct solve there draws, anything else loses). A round
without a decision counts as a draw (the safeguard ended it, or the record stops in it).
Investigator tiles: ``rules.investigators`` at the start, then before each later round 2 more
(1 for the previous round's winner), holding at most 5.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_env.core.constants import MAX_INVESTIGATORS, SCORE_CAP, SCORE_FLOOR, TIER_POINTS, WRONG_SOLVE_PENALTY
from pi_env.engine.ranking import rank_players, tier_points
from pi_env.core.errors import RecordError
from pi_env.records.types import INVESTIGATE, SOLVE, GameRecord



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
    """

    round_points: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    penalty: tuple[int, ...]
    investigators_left: tuple[int, ...]
    ranks: tuple[int, ...]
    events: tuple[tuple[EventInfo, ...], ...]
    mode: str = "standard"
    round_winners: tuple[int, ...] = ()



def score_record(record: GameRecord) -> RecordScores:
    """Derive every score of a record (RULES.md §5–§7).

    Raises:
        RecordError: an event after its round must have ended (at the end of a rotation in which at
            most one player had not attempted (2nd ed.) / was unsolved (1st ed.); nick of time: at
            the end of the rotation played at the last tier; duel: after the deciding event), or a
            duel round after the duel was won.
    """
    if record.rules.mode == "duel":
        return _score_duel(record)
    rules = record.rules
    n, edition = rules.players, rules.edition
    nick = "nick-of-time" in rules.variants
    last_tier = min(len(TIER_POINTS) - 1, n - 2)
    score = [0] * n
    solve_pts = [0] * n
    penalty = [0] * n
    inv_left = list(rules.investigators)
    round_points = []
    infos = []
    for r, rnd in enumerate(record.rounds):
        start = list(score)
        attempted, solved = set(), set()
        rotation, tier, solved_in_rotation, prev_seat = 0, 0, False, -1
        ev_infos = []
        for ev in rnd.events:
            seat = (ev.player - rnd.first_player) % n
            if seat <= prev_seat:  # a new rotation began: end-of-rotation checks (RULES.md §4-§6)
                rotation += 1
                nick_end = False
                if nick and solved:
                    if tier >= last_tier:
                        nick_end = True
                    else:
                        tier += 1
                elif solved_in_rotation:
                    tier += 1
                solved_in_rotation = False
                if nick_end:
                    raise RecordError(f"the round ended at the end of rotation {rotation} (nick of "
                                      f"time: the rotation at the last tier, {last_tier}, was played out)",
                                      round_index=r, event_index=ev.index)
                open_ = n - len(attempted if edition == "second" else solved)
                if open_ <= 1:
                    raise RecordError(f"the round ended at the end of rotation {rotation} "
                                      f"(at most one player {'had not attempted' if edition == 'second' else 'unsolved'})",
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
                    pts = tier_points(tier, r, n, edition)
                    solve_pts[p] += pts
                    score[p] = min(SCORE_CAP, score[p] + pts) if edition == "second" else solve_pts[p] - penalty[p]
                else:
                    penalty[p] += WRONG_SOLVE_PENALTY
                    score[p] = (max(SCORE_FLOOR, score[p] - WRONG_SOLVE_PENALTY) if edition == "second"
                                else solve_pts[p] - penalty[p])
            ev_infos.append(EventInfo(rotation=rotation, tier=tier, delta=score[ev.player] - before))
        round_points.append(tuple(score[i] - start[i] for i in range(n)))
        infos.append(tuple(ev_infos))
    return RecordScores(round_points=tuple(round_points), scores=tuple(score), penalty=tuple(penalty),
                        investigators_left=tuple(inv_left),
                        ranks=rank_players(score, inv_left, penalty, edition), events=tuple(infos))


def _score_duel(record: GameRecord) -> RecordScores:
    """:func:`score_record` for a duel (RULES.md §7; see the module docstring)."""
    rules = record.rules
    n = rules.players  # 2
    wins = [0] * n
    inv_left = list(rules.investigators)
    round_points, infos, winners = [], [], []
    for r, rnd in enumerate(record.rounds):
        if r > 0:
            if r >= rules.rounds and wins[0] != wins[1]:
                leader = 0 if wins[0] > wins[1] else 1
                raise RecordError(f"the duel was over after round {r}: player {leader} won "
                                  f"{wins[leader]}-{wins[1 - leader]}", round_index=r)
            for i in range(n):
                inv_left[i] = min(MAX_INVESTIGATORS, inv_left[i] + (1 if i == winners[-1] else 2))
        start = list(wins)
        rotation, tier, solved_in_rotation, prev_seat = 0, 0, False, -1
        result: int | None = None
        decided_at = -1
        extra_turn = False
        ev_infos = []
        for ev in rnd.events:
            p = ev.player
            if result is not None:
                raise RecordError(f"the duel round was decided at event {decided_at} and ended there",
                                  round_index=r, event_index=ev.index)
            seat = (p - rnd.first_player) % n
            if seat <= prev_seat:
                rotation += 1
                if solved_in_rotation:
                    tier += 1
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
        winners.append(-1 if result is None else result)
        round_points.append(tuple(wins[i] - start[i] for i in range(n)))
        infos.append(tuple(ev_infos))
    zeros = (0,) * n
    return RecordScores(round_points=tuple(round_points), scores=tuple(wins), penalty=zeros,
                        investigators_left=tuple(inv_left),
                        ranks=rank_players(wins, inv_left, zeros, rules.edition, mode="duel"),
                        events=tuple(infos), mode="duel", round_winners=tuple(winners))
