"""A SAT (python-sat) model of the consistency question, and contradiction reports.

The model has one Boolean ``v[q, t, x]`` per player q, type t and element x of that type ("q's case
has x"), with

* exactly one element per player and type, at most one player per element (disjoint deal, §3);
* the case the asking player holds, as unit clauses (hard, it is a private fact, §9);
* per event, its answer as clauses / cardinality constraints (§4.1, §4.2, §4.3), each guarded by a
  selector literal so that any subset of events can be switched off.

It is an independent formulation used to cross-check the counting solver
(:func:`sat_consistent_cases` must equal the cases with a positive joint count) and to explain
contradictions: :func:`minimal_conflict` returns a smallest set of events that cannot all hold.
"""

from __future__ import annotations

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool, WCNF
from pysat.solvers import Solver

from pi_env.core.constants import NUM_CASES, TYPE_OFFSETS, TYPE_SIZES

from pi_env.solvers.knowledge import (COL_A, COL_B, COL_C, COL_INDEX, COL_KIND, COL_PLAYER, COL_SUP, CLUE_KIND,
                        INVESTIGATE_KIND, SOLVE_FAILED, Knowledge)


def _type_of(element: int) -> int:
    return 0 if element < TYPE_OFFSETS[1] else 1 if element < TYPE_OFFSETS[2] else 2


class SatModel:
    """CNF of a :class:`~pi_env.solvers.knowledge.Knowledge` (all players, all events).

    Attributes:
        hard: list of clauses that always hold (deal structure, held case).
        event_clauses: per event row, its clauses (without selector).
        selectors: per event row, its selector variable.
        var: ``var(q, t, local)`` → the variable of "q's type-t element is ``local``".
    """

    def __init__(self, knowledge: Knowledge):
        self.knowledge = knowledge
        self.pool = IDPool()
        n = knowledge.n_players
        self._v = {(q, t, x): self.pool.id(("v", q, t, x))
                   for q in range(n) for t in range(3) for x in range(TYPE_SIZES[t])}
        self.hard: list[list[int]] = []
        for q in range(n):
            for t in range(3):
                lits = [self.var(q, t, x) for x in range(TYPE_SIZES[t])]
                self.hard += CardEnc.equals(lits, 1, vpool=self.pool, encoding=EncType.pairwise).clauses
        for t in range(3):
            for x in range(TYPE_SIZES[t]):
                lits = [self.var(q, t, x) for q in range(n)]
                self.hard += CardEnc.atmost(lits, 1, vpool=self.pool, encoding=EncType.pairwise).clauses
        if knowledge.held_case >= 0:
            for t, x in enumerate(_triple(knowledge.held_case)):
                self.hard.append([self.var(knowledge.held_player, t, x)])
        self.event_clauses = [self._event(row) for row in knowledge.events]
        self.selectors = [self.pool.id(("sel", i)) for i in range(len(self.event_clauses))]

    def var(self, q: int, t: int, local: int) -> int:
        return self._v[(q, t, local)]

    def _elements_where(self, t: int, pred) -> list[int]:
        td = self.knowledge.tile_district
        return [x for x in range(TYPE_SIZES[t]) if pred(int(td[TYPE_OFFSETS[t] + x]), x)]

    def _event(self, row: np.ndarray) -> list[list[int]]:
        q, kind, a = int(row[COL_PLAYER]), int(row[COL_KIND]), int(row[COL_A])
        adj = self.knowledge.adjacency
        td = self.knowledge.tile_district
        if kind == CLUE_KIND:
            t = _type_of(a)
            local = a - TYPE_OFFSETS[t]
            here = int(td[a])
            near = self._elements_where(t, lambda d, x: x != local and bool(adj[d, here]))
            answer = int(row[COL_B])
            if answer == 2:
                return [[self.var(q, t, local)]]
            if answer == 1:
                return [[self.var(q, t, x) for x in near]]
            return [[-self.var(q, t, x)] for x in near + [local]]
        if kind == INVESTIGATE_KIND:
            live = [t for t in range(3) if not (int(row[COL_SUP]) >> t) & 1]
            spot_lits = [self.var(q, t, x) for t in live for x in self._elements_where(t, lambda d, x: d == a)]
            trace_lits = [self.var(q, t, x) for t in live
                          for x in self._elements_where(t, lambda d, x: bool(adj[d, a]))]
            return self._card_equals(spot_lits, int(row[COL_B])) + self._card_equals(trace_lits, int(row[COL_C]))
        triple = _triple(a)
        if kind == SOLVE_FAILED:
            return [[-self.var(q, t, x) for t, x in enumerate(triple)]]
        return [[self.var(q, t, x)] for t, x in enumerate(triple)]

    def _card_equals(self, lits: list[int], k: int) -> list[list[int]]:
        if k > len(lits):
            return [[]]  # impossible: the empty clause
        if not lits:
            return []
        return CardEnc.equals(lits, k, vpool=self.pool, encoding=EncType.seqcounter).clauses

    def clauses(self, selected: bool = True) -> list[list[int]]:
        """All clauses; event clauses guarded by ``-selector`` when ``selected``."""
        out = [list(c) for c in self.hard]
        for sel, cls in zip(self.selectors, self.event_clauses):
            out += [[-sel] + c for c in cls] if selected else [list(c) for c in cls]
        return out


def _triple(case: int) -> tuple[int, int, int]:
    return case // 140, (case // 14) % 10, case % 14


def sat_consistent_cases(knowledge: Knowledge, player: int | None = None) -> np.ndarray:
    """``bool[1680]``: the cases ``player`` (default the asking player) can have in some joint deal
    consistent with everything in ``knowledge`` — found by enumerating models with blocking clauses."""
    model = SatModel(knowledge)
    p = knowledge.player if player is None else player
    out = np.zeros(NUM_CASES, dtype=bool)
    with Solver(name="g3", bootstrap_with=model.clauses(selected=False)) as solver:
        while solver.solve():
            m = set(x for x in solver.get_model() if x > 0)
            triple = [next(x for x in range(TYPE_SIZES[t]) if model.var(p, t, x) in m) for t in range(3)]
            out[triple[0] * 140 + triple[1] * 14 + triple[2]] = True
            solver.add_clause([-model.var(p, t, x) for t, x in enumerate(triple)])
    return out


def is_consistent(knowledge: Knowledge) -> bool:
    """Whether some joint deal satisfies every event of ``knowledge`` and the held case."""
    model = SatModel(knowledge)
    with Solver(name="g3", bootstrap_with=model.clauses(selected=False)) as solver:
        return bool(solver.solve())


def minimal_conflict(knowledge: Knowledge, smallest: bool = True) -> tuple[int, ...] | None:
    """Event indices (``COL_INDEX``) of a set of events that cannot all hold.

    Args:
        knowledge: the knowledge to explain.
        smallest: find a minimum-cardinality conflict (pysat's OptUx, an exact smallest MUS); with
            ``False``, a deletion-based minimal one (no event can be dropped; cheaper).

    Returns:
        ``None`` if the knowledge is consistent; otherwise the sorted event indices of the conflict
        (``()`` only if the held case alone is impossible, which cannot happen with a valid case).
    """
    model = SatModel(knowledge)
    sels = model.selectors
    with Solver(name="g3", bootstrap_with=model.clauses(selected=True)) as solver:
        if solver.solve(assumptions=sels):
            return None
        core = sorted(set(solver.get_core() or []))
        unique = _unique_mus(model, core) if smallest and core else None
        if unique is not None:
            core = unique
        elif smallest and core:
            found = _smallest_mus(model, core)
            if found is not None:
                core = found
            else:
                core = _deletion_mus(solver, core)
        else:
            core = _deletion_mus(solver, core)
    idx = {s: int(row[COL_INDEX]) for s, row in zip(sels, knowledge.events)}
    return tuple(sorted(idx[s] for s in core))


def _unique_mus(model: SatModel, core: list[int]) -> list[int] | None:
    """The only minimal conflict among ``model``'s selectors, when there is exactly one; else ``None``.

    A selector is in every MUS exactly when switching off its event alone (all the others on) makes
    the formula satisfiable; only selectors of an unsatisfiable ``core`` can be. When those necessary
    selectors are themselves unsatisfiable they are an MUS, and the only one (any MUS contains them
    all), so it is also what an exact smallest-MUS search returns: :func:`minimal_conflict` reports
    the same set without OptUx. One incremental SAT call per selector of ``core`` under assumptions
    (CaDiCaL: about 0.1 ms each on 1,680 events, where glucose took 3-6 ms), instead of OptUx's
    MaxSAT call per minimal correction set: a record whose conflict is hundreds of failed solves
    (every case a player could hold named wrong) has that many size-1 correction sets, and OptUx
    took 1-3 s CPU on it (``python benchmarks/solver_speed.py --conflict-only``). The answer of a
    SAT call does not depend on the solver, so the set is the same whichever solver decides it.
    """
    sels = model.selectors
    position = {sel: i for i, sel in enumerate(sels)}
    assumptions = list(sels)
    necessary = []
    with Solver(name="cd19", bootstrap_with=model.clauses(selected=True)) as solver:
        for sel in core:
            i = position[sel]
            assumptions[i] = -sel  # that event alone switched off
            if solver.solve(assumptions=assumptions):
                necessary.append(sel)
            assumptions[i] = sel
        if necessary and not solver.solve(assumptions=necessary):
            return necessary
    return None


def _deletion_mus(solver: Solver, core: list[int]) -> list[int]:
    """Drop selectors one at a time while the rest stays unsatisfiable."""
    keep = list(core)
    i = 0
    while i < len(keep):
        trial = keep[:i] + keep[i + 1:]
        if not solver.solve(assumptions=trial):
            new_core = set(solver.get_core() or trial)
            keep = [s for s in trial if s in new_core]
        else:
            i += 1
    return keep


def _smallest_mus(model: SatModel, core: list[int]) -> list[int] | None:
    """A minimum-size MUS among the selectors, via pysat's OptUx (hitting-set duality)."""
    try:
        from pysat.examples.optux import OptUx
    except ImportError:  # pragma: no cover - optional example module
        return None
    wcnf = WCNF()
    for c in model.clauses(selected=True):
        wcnf.append(c)
    soft = list(model.selectors)
    for s in soft:
        wcnf.append([s], weight=1)
    with OptUx(wcnf, verbose=0) as optux:
        mus = optux.compute()
    if mus is None:
        return None
    return [soft[i - 1] for i in mus]
