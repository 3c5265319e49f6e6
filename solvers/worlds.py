"""Exact sampling of complete worlds: every player's case (docs/rules.md §3, §9).

A *world* is one case per player, pairwise disjoint per type (docs/rules.md §3), consistent with every
public answer of the round — and, when drawn from a player's information set, with the case that
player holds. Under the uniform deal prior the posterior is uniform over these worlds;
:func:`sample_worlds` draws from it exactly (no rejection, no approximation) with the dynamic
programme that counts them (:func:`pi_env.solvers.joint.joint_table`).

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
  them, issue #17); the other players' cases are drawn consistently with all of them.

For many draws from one position build a :class:`WorldSampler` once (:func:`world_sampler`); its
:meth:`WorldSampler.sample` draws hundreds of thousands of worlds per second
(``benchmarks/joint_worst_case.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Union

import numpy as np

from pi_env.core.constants import NUM_CASES
from pi_env.solvers.analysis import Analysis, ContradictionError
from pi_env.solvers.case_sets import case_bits
from pi_env.solvers.joint import JointTable, joint_table
from pi_env.solvers.knowledge import Knowledge
from pi_env.solvers.tables import from_bitset

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
            ValueError: ``n < 0``.
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
        ValueError: a bad player or case id in ``fixed``, or a fixed case of the held player that is
            not the held case.
        TypeError: ``source`` is neither.
    """
    if isinstance(source, Analysis):
        if source.knowledge is None:
            raise ValueError("this Analysis carries no Knowledge; pass the Knowledge instead")
        knowledge = source.knowledge
    elif isinstance(source, Knowledge):
        knowledge = source
    else:
        raise TypeError(f"source must be a Knowledge or an Analysis, got {type(source).__name__}")
    n = knowledge.n_players
    fixed = {int(q): int(c) for q, c in (fixed or {}).items()}
    for q, c in fixed.items():
        if not 0 <= q < n:
            raise ValueError(f"fixed: player {q} not in 0..{n - 1}")
        if not 0 <= c < NUM_CASES:
            raise ValueError(f"fixed: case {c} of player {q} is not a case id 0..{NUM_CASES - 1}")
    if knowledge.held_case >= 0 and fixed.get(knowledge.held_player, knowledge.held_case) != knowledge.held_case:
        raise ValueError(f"fixed: player {knowledge.held_player}'s case {fixed[knowledge.held_player]} is not "
                         f"the held case {knowledge.held_case}")
    sets = np.stack([from_bitset(b) for b in case_bits(knowledge)])
    for q, c in fixed.items():
        keep = np.zeros(NUM_CASES, dtype=bool)
        keep[c] = sets[q, c]
        sets[q] = keep
    p = knowledge.player
    players = [p] + [q for q in range(n) if q != p]
    table = joint_table(sets[players], sampling=True)
    if table.total == 0:
        from pi_env.solvers.sat_model import minimal_conflict
        raise ContradictionError(p, minimal_conflict(knowledge) or ())
    return WorldSampler(n, tuple(players), table)


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
        ValueError: ``n < 0`` or a bad ``fixed`` entry.
    """
    return world_sampler(source, fixed).sample(n, rng)
