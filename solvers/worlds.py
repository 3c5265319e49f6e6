"""Exact sampling of complete worlds: every player's case (docs/rules.md §3, §9).

A *world* is one case per player, pairwise disjoint per type (docs/rules.md §3), consistent with every
public answer of the round — and, when drawn from a player's information set, with the case that
player holds. Under the uniform deal prior the posterior is uniform over these worlds;
:func:`sample_worlds` draws from it exactly (no approximation) with the dynamic programme that
counts them (:func:`pi_env.solvers.joint.joint_table`). With many failed solves (20 or more in the
round, four or five players), whose named cases make that programme slow, it draws from the
players' sets without the failed solves and keeps the worlds in which no player holds a case it
named (:func:`pi_env.solvers.joint_holes.joint_table_split`: rejection, still exactly uniform; at
least 1/16 of the draws are kept, else the dynamic programme is used).

>>> from pi_env.solvers import analyze_knowledge, sample_worlds
>>> worlds = sample_worlds(knowledge, 10_000, rng=0)      # doctest: +SKIP
>>> worlds.shape                                          # doctest: +SKIP
(10000, 5)

Which posterior:

* a :class:`~pi_env.solvers.knowledge.Knowledge` of player ``p`` (or an
  :class:`~pi_env.solvers.analysis.Analysis` of one): ``p``'s information set — the held player's
  column is always the case ``p`` holds, ``p``'s own column follows ``Analysis.probabilities``;
* a :class:`Knowledge` with ``held_case == -1`` (``knowledge.for_player(p, -1)``): the public
  information only, what a spectator knows;
* ``fixed={player: case, ...}``: further known cases (e.g. a typed-in record that states some of
  them); the other players' cases are drawn consistently with all of them.

:func:`complete_cases` is the :class:`pi_env.records.start.CaseCompleter` built on it: starting an
environment from a typed-in record that does not give every case
(``reset(options={"record": ..., "complete_cases": complete_cases})``, docs/positions.md), it draws
the missing cases of a round exactly from the public posterior of that round given the stated ones.

For many draws from one position build a :class:`WorldSampler` once (:func:`world_sampler`); its
:meth:`WorldSampler.sample` draws hundreds of thousands of worlds per second
(``benchmarks/joint_worst_case.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Union

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.constants import NUM_CASES
from pi_env.core.names import element_names
from pi_env.solvers.analysis import (DIRECT_WORK, SPLIT_MIN_FAILED, Analysis, ContradictionError,
                                     failed_solve_supersets, knowledge_of)
from pi_env.solvers.case_sets import case_bits
from pi_env.solvers.joint import JointTable, joint_table, joint_table_within
from pi_env.solvers.joint_holes import joint_table_split
from pi_env.solvers.knowledge import COL_KIND, SOLVE_FAILED, Knowledge, knowledge_from_round
from pi_env.solvers.tables import from_bitset

if TYPE_CHECKING:
    from pi_env.records.types import GameRecord

RngLike = Union[np.random.Generator, int, None]


@dataclass(frozen=True, eq=False)
class WorldSampler:
    """Draws complete worlds of one information set exactly; build once, sample many times.

    Attributes:
        n_players: players per world.
        players: the players in the order of :attr:`table`'s columns (the asking player first).
        table: the joint table of all players (:func:`pi_env.solvers.joint.joint_table`; a player
            whose case is known has a one-case set).
        total: number of consistent worlds (Python int).
    """

    n_players: int
    players: tuple[int, ...]
    table: JointTable = field(repr=False)

    @property
    def total(self) -> int:
        return self.table.total

    def sample(self, n: int, rng: RngLike = None) -> np.ndarray:
        """``int64[n, n_players]``: ``n`` worlds drawn independently and uniformly from the consistent
        ones; column ``q`` is player ``q``'s case id (0..1679).

        Args:
            n: number of worlds (``>= 0``).
            rng: a :class:`numpy.random.Generator`, a seed, or ``None``; the same seed gives the same
                worlds.

        Raises:
            PIError: ``n < 0``.
        """
        drawn = self.table.sample(n, rng)
        out = np.empty_like(drawn)
        out[:, list(self.players)] = drawn
        return out


def world_sampler(source: "Knowledge | Analysis", fixed: "Mapping[int, int] | None" = None) -> WorldSampler:
    """A :class:`WorldSampler` for an information set (see the module docstring).

    Args:
        source: a :class:`Knowledge`, or an :class:`Analysis` made by
            :func:`~pi_env.solvers.analysis.analyze_knowledge` (its ``knowledge`` is used).
        fixed: further known cases ``{player: case id}``.

    Raises:
        ContradictionError: no world is consistent (``events`` names a smallest conflicting set of
            events; it is empty when the events agree and only ``fixed`` conflicts with them).
        PIError: a bad player or case id in ``fixed``, or a fixed case of the held player that is
            not the held case.
        TypeError: ``source`` is neither.
    """
    if isinstance(source, Analysis):
        if source.knowledge is None:
            raise PIError("this Analysis carries no Knowledge; pass the Knowledge instead")
        knowledge = source.knowledge
    elif isinstance(source, Knowledge):
        knowledge = source
    else:
        raise TypeError(f"source must be a Knowledge or an Analysis, got {type(source).__name__}")
    n = knowledge.n_players
    fixed = {int(q): int(c) for q, c in (fixed or {}).items()}
    for q, c in fixed.items():
        if not 0 <= q < n:
            raise PIError(f"fixed: player {q} not in 0..{n - 1}")
        if not 0 <= c < NUM_CASES:
            raise PIError(f"fixed: case {c} of player {q} is not a case id 0..{NUM_CASES - 1}")
    if knowledge.held_case >= 0 and fixed.get(knowledge.held_player, knowledge.held_case) != knowledge.held_case:
        raise PIError(f"fixed: player {knowledge.held_player}'s case {fixed[knowledge.held_player]} is not "
                         f"the held case {knowledge.held_case}")
    sets = _fix(np.stack([from_bitset(b) for b in case_bits(knowledge)]), fixed)
    p = knowledge.player
    players = [p] + [q for q in range(n) if q != p]
    table = None
    if n >= 4 and int((knowledge.events[:, COL_KIND] == SOLVE_FAILED).sum()) >= SPLIT_MIN_FAILED:
        # many failed solves: the sets themselves when their dynamic programme is
        # small, else drawn from the sets without the failed solves and kept when consistent
        table = joint_table_within(sets[players], sampling=True, work_limit=DIRECT_WORK)
        supersets = _fix(np.stack(failed_solve_supersets(knowledge)), fixed)
        if table is None and not (sets & ~supersets).any():  # always (answers only remove cases)
            table = joint_table_split(sets[players], supersets[players], sampling=True)
    if table is None:
        table = joint_table(sets[players], sampling=True)
    if table.total == 0:
        from pi_env.solvers.sat_model import minimal_conflict
        raise ContradictionError(p, minimal_conflict(knowledge) or ())
    return WorldSampler(n, tuple(players), table)


def _fix(sets: np.ndarray, fixed: Mapping[int, int]) -> np.ndarray:
    """``sets`` (``bool[n, 1680]``) with each fixed player's set cut down to its fixed case."""
    for q, c in fixed.items():
        keep = np.zeros(NUM_CASES, dtype=bool)
        keep[c] = sets[q, c]
        sets[q] = keep
    return sets


def sample_worlds(source: "Knowledge | Analysis", n: int, rng: RngLike = None, *,
                  fixed: "Mapping[int, int] | None" = None) -> np.ndarray:
    """Draw ``n`` complete worlds exactly from the joint posterior (docs/rules.md §9).

    Args:
        source: a :class:`Knowledge` (player ``p``'s information set: every public answer and the
            case ``p`` holds, if given) or an :class:`Analysis` of one.
        n: number of worlds.
        rng: a :class:`numpy.random.Generator`, a seed or ``None``.
        fixed: further known cases ``{player: case id}`` to condition on.

    Returns:
        ``int64[n, n_players]``: a row is a world, column ``q`` player ``q``'s case id; the cases of a
        row are pairwise disjoint per type and fit every answer. ``pi_env.core.constants.CASE_TRIPLES``
        turns ids into (suspect, evidence, location).

    Raises:
        ContradictionError: no world is consistent.
        PIError: ``n < 0`` or a bad ``fixed`` entry.
    """
    return world_sampler(source, fixed).sample(n, rng)


def complete_cases(record: "GameRecord", round_index: int, known: Mapping[int, int],
                   rng: np.random.Generator) -> dict[int, int]:
    """The cases of round ``round_index`` a typed-in record does not give, drawn exactly from the
    posterior (a :class:`pi_env.records.start.CaseCompleter`; docs/rules.md §9, docs/positions.md).

    One world is drawn uniformly from the deals (pairwise disjoint cases, docs/rules.md §3) that fit
    every answer of the round — all its events, also those after the position, except answers the
    record declares incorrect — and the stated cases ``known``: the public information of the whole
    round, as a spectator who was told the stated cases knows it.

    Args:
        record: the record (a :class:`~pi_env.records.types.GameRecord`).
        round_index: the round, 0-based.
        known: ``{player: case id}``, the cases the round states; they are kept.
        rng: the only source of randomness (the same generator state draws the same cases).

    Returns:
        ``{player: case id}`` for every player of the round, ``known`` included. A solo record's case
        (docs/rules.md §8) is drawn uniformly from the cases its answers allow.

    Raises:
        ContradictionError: no deal fits the round's answers and the stated cases (one line naming a
            smallest set of conflicting events of the round, 0-based).
    """
    if record.rules.mode == "solo":  # one player's share of a 2-player deal whose other player asks nothing
        knowledge = knowledge_from_round(record.rounds[round_index], 0, 2, record.board.adjacency, None,
                                         element_names(record.board)).for_player(0, -1)
    else:
        knowledge = knowledge_of(record, 0, round_index).for_player(0, -1)  # public answers only
    try:
        sampler = world_sampler(knowledge, known)
    except ContradictionError as err:
        what = ", ".join(map(str, err.events)) if err.events else "(none without the stated cases)"
        raise ContradictionError(err.player, err.events,
                                 f"round {round_index}: no deal of the missing cases fits the record's "
                                 f"answers and stated cases; these events cannot all hold: {what}") from None
    world = sampler.sample(1, rng)[0]
    return {q: int(world[q]) for q in range(record.rules.players)}
