"""Scores derived from a record's events (RULES.md §5), and the standings' tiebreaks.

Records store no scores (RECORD.md); :func:`score_record` derives them from the solve events, the
rotation each event falls in and the edition. Rotations are read from turn order: an event whose
seat (counted from the round's first player) is not after the previous event's seat starts a new
rotation, so skipped (solved) players need no entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import SCORE_CAP, SCORE_FLOOR, TIER_POINTS, WRONG_SOLVE_PENALTY
from .errors import RecordError
from .records_types import INVESTIGATE, SOLVE, GameRecord


def rank_players(scores, investigators_left, penalty, edition: str) -> tuple[int, ...]:
    """1-based ranks after the tiebreaks of RULES.md §5; tied players share a rank.

    Second edition: higher score, then more unused investigator tiles. First edition: higher score,
    then more unused investigators, then fewer penalty points.

    Args:
        scores, investigators_left, penalty: one int per player.
        edition: ``"second"`` or ``"first"``.
    """
    keys = []
    for i in range(len(scores)):
        k = (int(scores[i]), int(investigators_left[i]))
        if edition == "first":
            k += (-int(penalty[i]),)
        keys.append(k)
    return tuple(1 + sum(keys[j] > keys[i] for j in range(len(keys))) for i in range(len(keys)))


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
        round_points: ``[rounds][players]`` score change of each player in each round.
        scores: final scores; ``penalty``: penalty points (2 per wrong solve); ``investigators_left``.
        ranks: 1-based ranks after tiebreaks (:func:`rank_players`).
        events: ``[rounds][events]`` :class:`EventInfo` per event.
    """

    round_points: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    penalty: tuple[int, ...]
    investigators_left: tuple[int, ...]
    ranks: tuple[int, ...]
    events: tuple[tuple[EventInfo, ...], ...]


def tier_points(tier: int, round_index: int, num_players: int, edition: str) -> int:
    """Points for a correct solve at ``tier`` in round ``round_index`` (0-based), RULES.md §5.

    ``[7, 5, 3, 1][tier]`` (+ ``round_index`` in the second edition); 0 for a tier that does not
    exist with ``num_players`` players (tier k needs at least k + 2 players).
    """
    if tier > num_players - 2 or tier >= len(TIER_POINTS):
        return 0
    return TIER_POINTS[tier] + (round_index if edition == "second" else 0)


def score_record(record: GameRecord) -> RecordScores:
    """Derive every score of a record (RULES.md §5).

    Raises:
        RecordError: an event after its round must have ended (at the end of a rotation in which at
            most one player had not attempted (2nd ed.) / was unsolved (1st ed.)).
    """
    rules = record.rules
    n, edition = rules.players, rules.edition
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
            if seat <= prev_seat:  # a new rotation began: end-of-rotation checks (RULES.md §4, §5)
                rotation += 1
                if solved_in_rotation:
                    tier += 1
                    solved_in_rotation = False
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
