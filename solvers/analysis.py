"""The solver's front door: exact case probabilities for one player (docs/rules.md §9).

Answers print the game's names (:mod:`pi_env.core.named`): ``ranked()`` gives :class:`Case` ids that
print ``Doc / Forgery / Downtown``, ``certain`` gives :class:`Element` ids that print ``Doc``; they
are still the ids (``int``).

>>> from pi_env.solvers import analyze
>>> a = analyze("game.record.json", player=2)            # doctest: +SKIP
>>> a.count, a.ranked()[:3], a.certain                    # doctest: +SKIP
(12, [(Case('Doc / Forgery / Downtown'), 0.25), ...], (Element('Doc'),))
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Union

import numpy as np

from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, TYPE_NAMES, TYPE_OFFSETS, TYPE_SIZES
from pi_env.core.errors import PIError
from pi_env.core.named import Case, Element
from pi_env.core.names import element_names
from pi_env.records.types import GameRecord, RoundRecord, number_text, resolve_player

from pi_env.solvers.case_sets import case_bits
from pi_env.solvers.joint import count_joint, joint_table_within
from pi_env.solvers.joint_holes import count_joint_split
from pi_env.solvers.knowledge import COL_KIND, COL_PLAYER, SOLVE_FAILED, Knowledge, knowledge_from_round
from pi_env.solvers.tables import CASE_ELEMENTS, from_bitset


class ContradictionError(PIError):
    """No joint deal is consistent with what the player knows.

    Attributes:
        player: the asking player.
        events: sorted event indices of a smallest set of events that cannot all hold together
            with the case the player holds (see :func:`pi_env.solvers.sat_model.minimal_conflict`).
    """

    def __init__(self, player: int, events: tuple[int, ...], message: str | None = None):
        self.player = player
        self.events = events
        what = ", ".join(map(str, events)) if events else "(none: the held case alone)"
        super().__init__(message or f"player {player}: no deal is consistent with the events; these cannot "
                         f"all hold: {what}")

    def __reduce__(self) -> tuple:
        # picklable (a worker process's error reaches its parent): the default passes only the message
        return (type(self), (self.player, self.events, str(self)))


@dataclass(frozen=True, eq=False)
class Analysis:
    """What player ``player`` can deduce (docs/rules.md §9).

    Attributes:
        player: the asking player p.
        own_count: number of cases consistent with p's own information (own answers, held case,
            other players' spot markers and correct solves, own failed solves).
        own_cases: ``int64[own_count]`` those cases, ascending.
        count: number of cases p can have in some joint deal consistent with all public answers.
        cases: ``int64[count]`` those case ids, ascending.
        joint_counts: ``int64[count]`` number of joint deals (of the players whose cases p does not
            know) giving p each case.
        total: total number of consistent joint deals (Python int; 0 on a contradiction).
        probabilities: ``float64[count]`` ``joint_counts / total`` (uniform deal prior).
        suspect, evidence, location: ``float64[12]``, ``float64[10]``, ``float64[14]`` marginal
            probabilities of p's case element of each type (type-local indices).
        certain: element ids (0..35) in every consistent case, ascending, as
            :class:`~pi_env.core.named.Element` (prints the name).
        conflict: ``None``, or on a contradiction (only with ``strict=False``) the event indices of
            a smallest conflicting set.
        names: the board's 36 element names (from the :class:`Knowledge`; default the daytime
            board's), used to print cases and elements.
        knowledge: the :class:`Knowledge` analysed (``None`` if built by hand); what
            :func:`pi_env.solvers.worlds.sample_worlds` draws complete worlds from.
    """

    player: int
    own_count: int
    own_cases: np.ndarray = field(repr=False)
    count: int
    cases: np.ndarray = field(repr=False)
    joint_counts: np.ndarray = field(repr=False)
    total: int
    probabilities: np.ndarray = field(repr=False)
    suspect: np.ndarray = field(repr=False)
    evidence: np.ndarray = field(repr=False)
    location: np.ndarray = field(repr=False)
    certain: tuple[int, ...]
    conflict: tuple[int, ...] | None = None
    names: tuple[str, ...] = field(default=element_names(DAYTIME), repr=False)
    knowledge: Knowledge | None = field(default=None, repr=False)

    @property
    def marginals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(suspect, evidence, location)``."""
        return self.suspect, self.evidence, self.location

    def probability_of(self, case: int) -> float:
        """P(p's case is ``case``); 0.0 for an inconsistent case."""
        i = int(np.searchsorted(self.cases, case))
        return float(self.probabilities[i]) if i < self.count and self.cases[i] == case else 0.0

    def ranked(self) -> list[tuple[Case, float]]:
        """``(case, probability)`` pairs, most probable first, ties by case id (the order of the hint's
        ``best_case``; ``pi-env solve`` lists ties by name); each case a
        :class:`~pi_env.core.named.Case` (the id, printing ``suspect / evidence / location``)."""
        order = np.lexsort((self.cases, -self.probabilities))
        return [(Case.of(int(self.cases[i]), self.names), float(self.probabilities[i])) for i in order]

    def case(self, case: int) -> Case:
        """``case`` as a :class:`~pi_env.core.named.Case` of this board (prints its names)."""
        return Case.of(int(case), self.names)

    def marginals_by_name(self) -> dict[str, dict[str, float]]:
        """``{"suspect": {name: probability}, "evidence": {...}, "location": {...}}``, every element of
        each type (0.0 for the impossible ones), in id order."""
        out = {}
        for t, m in enumerate(self.marginals):
            out[TYPE_NAMES[t]] = {self.names[TYPE_OFFSETS[t] + i]: float(m[i]) for i in range(TYPE_SIZES[t])}
        return out

    def as_dict(self) -> dict[int, float]:
        """``{case id: probability}``."""
        return {int(c): float(p) for c, p in zip(self.cases, self.probabilities)}


def analyze_knowledge(knowledge: Knowledge, strict: bool = True) -> Analysis:
    """Exact analysis of a :class:`~pi_env.solvers.knowledge.Knowledge`.

    Args:
        knowledge: what the player knows.
        strict: on a contradiction raise :class:`ContradictionError` (``True``) or return an
            :class:`Analysis` with ``count == 0`` and ``conflict`` set.

    Raises:
        ContradictionError: no joint deal is consistent (only with ``strict=True``).
    """
    p, n = knowledge.player, knowledge.n_players
    sets = [from_bitset(b) for b in case_bits(knowledge)]
    own = sets[p]
    known = {p}
    if knowledge.held_case >= 0:
        known.add(knowledge.held_player)
    unknown = [q for q in range(n) if q not in known]
    held_ok = knowledge.held_case < 0 or bool(sets[knowledge.held_player].any())
    if not held_ok:
        counts = np.zeros(NUM_CASES, np.int64)
    else:
        counts = _count_unknown(knowledge, own, [sets[q] for q in unknown], unknown)
    return _analysis(knowledge, own, counts, strict)


# With four unknown players and at least this many failed solves among them, count by
# inclusion–exclusion over the cases they named (pi_env.solvers.joint_holes.count_joint_split) when the
# dynamic programme on the case sets themselves passes DIRECT_WORK (small or simple sets: a few ms)
SPLIT_MIN_FAILED = 20
DIRECT_WORK = 200_000


def failed_solve_supersets(knowledge: Knowledge) -> list[np.ndarray]:
    """Every player's case set without the failed solves (``bool[1680]`` each, docs/rules.md §4.3):
    a coarse superset of its set in ``case_bits(knowledge)``, whose holes are the cases named in
    failed solves (:func:`pi_env.solvers.joint_holes.count_joint_split`)."""
    ev = knowledge.events
    kept = ev[ev[:, COL_KIND] != SOLVE_FAILED]
    return [from_bitset(b) for b in case_bits(dataclasses.replace(knowledge, events=kept))]


def joint_counts(knowledge: Knowledge) -> np.ndarray:
    """The exact joint counts :func:`analyze_knowledge` computes (docs/rules.md §9): ``int64[1680]``,
    per case of the asking player the number of joint deals of the players whose cases it does not
    know (0 outside the cases its own information allows; all 0 when the held case contradicts the
    answers). Counted by :func:`pi_env.solvers.joint.count_joint`, or with many failed solves by
    :func:`pi_env.solvers.joint_holes.count_joint_split`."""
    p, n = knowledge.player, knowledge.n_players
    sets = [from_bitset(b) for b in case_bits(knowledge)]
    known = {p} | ({knowledge.held_player} if knowledge.held_case >= 0 else set())
    unknown = [q for q in range(n) if q not in known]
    if knowledge.held_case >= 0 and not sets[knowledge.held_player].any():
        return np.zeros(NUM_CASES, np.int64)
    return _count_unknown(knowledge, sets[p], [sets[q] for q in unknown], unknown)


def _count_unknown(knowledge: Knowledge, own: np.ndarray, others: list[np.ndarray], unknown: list[int]
                   ) -> np.ndarray:
    """``count_joint(own, others)``; for three or four unknown players with many failed solves (the slow
    corner of the dynamic programme) by inclusion–exclusion over the cases they
    named: the supersets are the case sets without the failed solves (docs/rules.md §4.3), coarse,
    and the asking player's set is enlarged likewise (its counts per case do not depend on the rest
    of its set). With three unknown players the split is dropped for the plain count as soon as one
    of its terms is not fast (many other answers: supersets that are not coarse). Before the split,
    the case sets themselves are counted if that takes at most :data:`DIRECT_WORK` (sets kept small
    or simple by other answers). The same counts either way (tests/test_joint.py)."""
    ev = knowledge.events
    failed = ev[:, COL_KIND] == SOLVE_FAILED
    if len(unknown) < 3 or int(np.isin(ev[failed, COL_PLAYER], unknown).sum()) < SPLIT_MIN_FAILED:
        return count_joint(own, others)
    direct = joint_table_within(np.stack([own] + others), work_limit=DIRECT_WORK)
    if direct is not None:
        return direct.counts
    coarse = failed_solve_supersets(knowledge)
    supersets = [coarse[q] for q in unknown]
    root = coarse[knowledge.player]
    if (own & ~root).any() or any((o & ~a).any() for o, a in zip(others, supersets)):  # pragma: no cover
        return count_joint(own, others)  # not supersets (cannot happen: answers only remove cases)
    if len(unknown) == 3:  # the dynamic programme (or meeting in the middle) when a term is not fast
        counts = count_joint_split(root, others, supersets, fallback=False)
        return count_joint(own, others) if counts is None else np.where(own, counts, 0)
    counts = count_joint_split(root, others, supersets)
    assert counts is not None  # (with fallback, always)
    return np.where(own, counts, 0)


def _analysis(knowledge: Knowledge, own: np.ndarray, counts: np.ndarray, strict: bool) -> Analysis:
    p = knowledge.player
    cases = np.flatnonzero(counts)
    joint = counts[cases]
    total = int(joint.sum(dtype=object)) if cases.size else 0
    conflict = None
    if total == 0:
        from pi_env.solvers.sat_model import minimal_conflict
        conflict = minimal_conflict(knowledge) or ()
        if strict:
            raise ContradictionError(p, conflict)
        probs = np.zeros(0)
    else:
        probs = joint / float(total)
    margs = []
    for t in range(3):
        m = np.zeros(TYPE_SIZES[t])
        np.add.at(m, CASE_TRIPLES[cases, t].astype(np.int64), probs)
        margs.append(m)
    certain: tuple[int, ...] = ()
    if cases.size:
        common = set(CASE_ELEMENTS[cases[0]].tolist())
        for t in range(3):
            if not (CASE_ELEMENTS[cases, t] == CASE_ELEMENTS[cases[0], t]).all():
                common.discard(int(CASE_ELEMENTS[cases[0], t]))
        certain = tuple(sorted(common))
    names = knowledge.names or element_names(DAYTIME)
    certain = tuple(Element.of(x, names) for x in certain)
    own_cases = np.flatnonzero(own)
    return Analysis(player=p, own_count=int(own_cases.size), own_cases=own_cases, count=int(cases.size),
                    cases=cases, joint_counts=joint, total=total, probabilities=probs, suspect=margs[0],
                    evidence=margs[1], location=margs[2], certain=certain, conflict=conflict, names=names,
                    knowledge=knowledge)


RecordLike = Union[GameRecord, RoundRecord, Knowledge, dict, str, "os.PathLike[str]"]


def _player_number(player: "int | str", source: "Knowledge | RoundRecord") -> int:
    """A player number given to a :class:`Knowledge` or :class:`RoundRecord` (they have no names):
    an int, or a text that reads as one."""
    if isinstance(player, str):
        number = number_text(player)
        if number is None:
            raise PIError(f"player {player!r}: a {type(source).__name__} has no player names; "
                          f"give the player number (or pass the whole record)")
        return number
    return player


def knowledge_of(record_or_round: RecordLike, player: "int | str", round_index: int = 0,
                 after_event: int | None = None, *, n_players: int | None = None,
                 adjacency: np.ndarray | None = None) -> Knowledge:
    """What ``player`` knows in a round of a record (see :func:`analyze` for the arguments)."""
    if isinstance(record_or_round, (Knowledge, RoundRecord)):
        p = _player_number(player, record_or_round)
        if isinstance(record_or_round, Knowledge):
            k = record_or_round
            if p != k.player:
                raise PIError(f"the Knowledge is player {k.player}'s, not player {p}'s")
            if after_event is not None:
                k = k.prefix(int((k.events[:, 0] <= after_event).sum()))
            return k
        if n_players is None:
            raise PIError("n_players is required with a RoundRecord")
        adj = DAYTIME.adjacency if adjacency is None else adjacency
        return knowledge_from_round(record_or_round, p, n_players, adj, after_event)
    record = record_or_round
    if not isinstance(record, GameRecord):
        from pi_env.records.record_file import load_record
        record = load_record(record)
    p = resolve_player(record, player)
    if not 0 <= round_index < len(record.rounds):
        raise PIError(f"round_index must be in 0..{len(record.rounds) - 1}, got {round_index}")
    return knowledge_from_round(record.rounds[round_index], p, record.rules.players,
                                record.board.adjacency, after_event, element_names(record.board))


def analyze(record_or_round: RecordLike, player: "int | str", round_index: int = 0, after_event: int | None = None,
            *, n_players: int | None = None, adjacency: np.ndarray | None = None,
            strict: bool = True) -> Analysis:
    """Exact probabilities of ``player``'s case in one round (docs/rules.md §9).

    Uses only what ``player`` knows: the public answers and the case it holds (``player + 1``'s);
    any other case in the record is never read.

    Args:
        record_or_round: a :class:`GameRecord`, a record path or parsed dict (read with
            :func:`pi_env.records.record_file.load_record`), a :class:`RoundRecord` (then ``n_players`` is
            required and ``adjacency`` defaults to the daytime board), or a :class:`Knowledge`.
        player: the asking player 0..n-1, or (with a record) its name in the record, matched as
            names are (:func:`pi_env.records.types.resolve_player`).
        round_index: which round of a record (0-based).
        after_event: use the events with index ``<= after_event`` (``-1``: before any event;
            ``None``: all).
        n_players, adjacency: for a bare :class:`RoundRecord`.
        strict: see :func:`analyze_knowledge`.

    Raises:
        ContradictionError: the events contradict each other or the held case (``strict=True``);
            ``.events`` names a smallest conflicting set.
        PIError: bad player / round / arguments (a name the record does not have:
            :class:`~pi_env.core.errors.UnknownNameError`, which lists the players);
            :class:`~pi_env.core.errors.RecordError` for an invalid record file.
    """
    k = knowledge_of(record_or_round, player, round_index, after_event, n_players=n_players,
                     adjacency=adjacency)
    return analyze_knowledge(k, strict=strict)
