"""Exact joint counts of sets with holes: many failed solves (docs/rules.md §4.3, §9; issue #15 item 8).

A failed solve removes one case from its player's set and tells that case's three elements apart.
Sixty of them per player (the legal maximum of a first-edition 5-player round: 60 rotations) break
every player's set into singletons, the hard case of the dynamic programme of
:mod:`pi_env.solvers.joint`. Here each set is split into a coarse *superset* (what the other answers
allow: few classes of interchangeable elements) and its *holes* (the named cases in it): ``S_j =
A_j minus H_j``. The count is linear in each set, so with the root's case ``c``

    count(c) = sum over J of (-1)^|J| * term_J(c),    term_J = count(H_j for j in J, A_k for k not in J)

(inclusion–exclusion over the players with holes, :func:`count_joint_split`). A term is counted
without the dynamic programme:

* ``J`` empty: every set coarse, the dynamic programme (:func:`pi_env.solvers.joint.count_joint`,
  with the asking player's set as the root: only its entries are kept).
* a term the profiles below decline (too many profiles or count vectors: supersets split by other
  answers) whose sets met in the middle as lists (:func:`pi_env.solvers.joint_tuples.count_listed`)
  cost at most :data:`TERM_LISTED_STEPS` estimated steps and hold at most one superset (the holes
  of three or four players) is counted so (there the dynamic programme is slowest: 5 players, one
  investigation each and 50 holes per player, 12-22 ms listed against 120-130 ms); any other by the
  dynamic programme. Once a group of coarse players has too many count vectors, the profiles are
  not tried again for a group containing it.
* otherwise: the tuples of holes of ``J`` are few (at most ~60 per player), the players ``K`` not in
  ``J`` coarse. A tuple ``t`` of holes disjoint from ``c`` is completed in ``G(c, t)`` ways, the
  number of disjoint tuples of ``K``'s supersets avoiding the elements of ``c`` and ``t``; ``G``
  depends only on how many of those elements fall in each class of ``K``'s joint classes (its
  *profile*), and is a sum over the tuples of ``K``'s class triples (their *count vectors*, grouped)
  of products of falling factorials (:func:`_completions`). The tuples of holes are grouped by their
  profile ``v``; per group, the number of its tuples avoiding ``c`` follows for every ``c`` at once
  from statistics of the group — how many tuples use each element, each pair and each triple of
  elements of different types: ``T - A[s] - A[e] - A[l] + B[s, e] + B[s, l] + B[e, l] - C[s, e, l]``
  for ``c = (s, e, l)`` (a disjoint tuple uses an element at most once). Then ``term_J(c) = sum over
  v of D_v(c) * G(profile(c) + v)``.
* The statistics (:mod:`pi_env.solvers.joint_tuples`): enumerating the tuples of holes (groups of
  any profile), or, when there is one group (every superset of ``K`` is the full set, as with
  failed solves and no other answer), by meeting in the middle
  (:func:`pi_env.solvers.joint_tuples.listed_stats`): the tuples are pairs ``(P, Q)`` of a tuple
  ``P`` of one or two players' holes and a tuple ``Q`` of the others', disjoint; per ``P`` the
  number of ``Q`` disjoint from it and how many of those use each element (and the same per
  ``Q``) give every statistic without visiting the ``~2e6`` quadruples one by one. Its cost grows
  as the product of the numbers of holes (distinct named cases: a failed solve named again adds
  nothing), about ``n**4 / 8`` steps for four players with ``n`` each.

Counts are exact ``int64`` (every term and partial sum is at most ``2^4`` times the largest count,
``~6.9e14``, docs in :mod:`pi_env.solvers.joint`).

**Sampling** (:func:`joint_table_split`): worlds are drawn from the supersets' uniform distribution
(the dynamic programme on coarse sets, fast) and kept when no player's case is one of its holes:
accepted worlds are exactly uniform over the consistent ones; the acceptance rate is
``total / total of the supersets``, known exactly before drawing.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES
from pi_env.solvers.joint import JointTable, _own_relation, _refine_type, _slice_signatures, count_joint, joint_table
from pi_env.solvers.joint_tuples import (CASE_TYPE_INDICES, _tuple_stats, avoiding, count_listed, listed_cost,
                                         listed_stats, packed)

TYPE_SIZES3 = (12, 10, 14)
TUPLE_STEPS = 20_000_000  # enumeration budget of one term's tuples of holes (then: the dynamic programme)
MAX_PROFILES = 400  # groups of tuples of holes kept apart (statistics of ~3,000 int64 each)
MAX_COUNT_VECTORS = 5_000  # distinct count vectors of the coarse players' class triples
MAX_CLASS_TUPLES = 200_000  # tuples of class triples enumerated to find them (past it: the dynamic programme, faster)
MAX_COMPLETION_STEPS = 3_000_000  # (profiles x class triples of the root) x count vectors x classes for G
MIN_ACCEPTANCE = 1 / 16
# a term whose sets (holes of some players, supersets of the others) meet in the middle as lists within this
# many estimated steps (pi_env.solvers.joint_tuples.listed_cost, about a nanosecond each) is counted so: e.g.
# three players' 50 holes and a 570-case superset, 1.8e7-3.7e7 steps, 12-22 ms, where the dynamic programme
# took 120-130 ms (5 players, first edition, one investigation each and 40-60 rotations of failed solves)
TERM_LISTED_STEPS = 6e7  # rejection sampling from the supersets when at least this share is accepted


# ---------------------------------------------------------------------------------------------
# completions by the coarse players


class _Completions:
    """``G(used)``: the number of pairwise-disjoint tuples of the coarse players' sets avoiding given
    elements, a function of how many of them fall in each of the players' joint classes.

    Attributes:
        labels: ``int64[3, 14]`` the joint class of each element (numbered per type).
        offsets: ``int64[3]`` first global class of each type (classes numbered across types).
        sizes: ``int64[n_classes]`` elements per class.
        vectors: ``int64[M, n_classes]`` the count vectors (players choosing each class) of the
            tuples of class triples the players' sets allow, with their multiplicities ``mult``.
    """

    def __init__(self, sets: list[np.ndarray]):
        arr = np.stack(sets) if sets else np.ones((0, NUM_CASES), dtype=bool)
        n = []
        labels = np.zeros((3, 14), dtype=np.int64)
        if sets:
            sig = _slice_signatures(np.ascontiguousarray(arr))
            members = np.arange(len(sets), dtype=np.int64)
            for t in range(3):
                lab, cnt = _refine_type(sig, members, t)
                labels[t] = lab
                n.append(int(cnt))
        else:
            labels[:, :] = 0
            n = [1, 1, 1]
        self.labels = labels
        self.offsets = np.array([0, n[0], n[0] + n[1]], dtype=np.int64)
        self.n_classes = sum(n)
        self.sizes = np.zeros(self.n_classes, dtype=np.int64)
        for t in range(3):
            np.add.at(self.sizes, labels[t, :TYPE_SIZES3[t]] + self.offsets[t], 1)
        # count vectors, built player by player (their codes add up: base len(sets) + 1 per class)
        base = len(sets) + 1
        self.base = base
        radix = base ** np.arange(self.n_classes, dtype=np.int64)
        vec_codes, mult = np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64)
        self.ok = base ** self.n_classes < 2**62
        for lst in (np.flatnonzero(s) for s in sets):
            if not self.ok:
                break
            rel = _own_relation(lst, labels, np.array(n, dtype=np.int64))
            trip = np.argwhere(rel)  # allowed class triples
            step = radix[trip[:, 0]] + radix[trip[:, 1] + self.offsets[1]] + radix[trip[:, 2] + self.offsets[2]]
            if vec_codes.size * step.size > MAX_CLASS_TUPLES:
                self.ok = False
                break
            vec_codes, inverse = np.unique((vec_codes[:, None] + step[None, :]).ravel(), return_inverse=True)
            mult = _sum_by(inverse.ravel(), np.repeat(mult, step.size), vec_codes.size)
            if vec_codes.size > MAX_COUNT_VECTORS:
                self.ok = False
                break
        # without ``ok`` the radix may have overflowed (to 0): no vectors, the caller falls back
        self.vectors = ((vec_codes[:, None] // radix[None, :]) % base if self.ok
                        else np.zeros((0, self.n_classes), dtype=np.int64))
        self.mult = mult

    def case_classes(self) -> np.ndarray:
        """``int64[1680, 3]``: the global class of each case's three elements."""
        t = CASE_TYPE_INDICES
        return np.stack([self.labels[0, t[:, 0]], self.labels[1, t[:, 1]] + self.offsets[1],
                         self.labels[2, t[:, 2]] + self.offsets[2]], axis=1)

    def values(self, used: np.ndarray) -> np.ndarray:
        """``int64[N]``: ``G`` for each row of ``used`` (``int64[N, n_classes]``)."""
        return _completion_values(used, self.vectors, self.mult, self.sizes)


def _sum_by(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Exact ``int64`` sums of ``weights`` by ``index``: ``np.bincount`` sums in float64, exact here
    (every sum is at most the number of tuples of class triples, ``1680**4 < 2**53``)."""
    return np.rint(np.bincount(index, weights=weights.astype(np.float64), minlength=size)).astype(np.int64)


@kernel
def _completion_values(used, vectors, mult, sizes):
    """``G(u) = sum over count vectors v of mult(v) * prod over classes a of ff(size_a - u_a, v_a)``
    (``ff(n, k) = n (n-1) ... (n-k+1)``, 0 when ``n < k``): the ways to give each coarse player
    distinct unused elements of the classes its class triple names."""
    out = np.zeros(used.shape[0], dtype=np.int64)
    for i in range(used.shape[0]):
        total = 0
        for j in range(vectors.shape[0]):
            prod = mult[j]
            for a in range(vectors.shape[1]):
                free = sizes[a] - used[i, a]
                for r in range(vectors[j, a]):
                    prod *= free - r
                if prod <= 0:
                    prod = 0
                    break
            total += prod
        out[i] = total
    return out


# ---------------------------------------------------------------------------------------------
# one term, and the sum


def _hole_term(holes: list[np.ndarray], coarse: list[np.ndarray], comp: "_Completions | None" = None
               ) -> "np.ndarray | None":
    """``term(c)`` for every case ``c`` (``int64[1680]``): the tuples of one hole of each of
    ``holes`` and one case of each of ``coarse`` (whose :class:`_Completions` ``comp`` may be
    given), pairwise disjoint and disjoint from ``c``. ``None`` when this way would be slow (many
    profiles or count vectors, too many tuples)."""
    if comp is None:
        comp = _Completions(coarse)
    if not comp.ok:
        return None
    m = len(holes)
    lists = [np.flatnonzero(h).astype(np.int64) for h in holes]
    if any(x.size == 0 for x in lists):
        return np.zeros(NUM_CASES, dtype=np.int64)
    cls = comp.case_classes()
    base = m + 2  # counts per class of a tuple of holes and the root's case: at most m + 1
    radix = base ** np.arange(comp.n_classes, dtype=np.int64)
    if base ** comp.n_classes >= 2**62:
        return None
    codes = radix[cls].sum(axis=1)  # int64[1680]: a case's profile code
    profiles = np.zeros(1, dtype=np.int64)
    for lst in lists:  # every sum of codes of one case per player (disjoint or not)
        profiles = np.unique((profiles[:, None] + np.unique(codes[lst])[None, :]).ravel())
        if profiles.size > MAX_PROFILES:
            return None
    triples, case_triple = np.unique(codes, return_inverse=True)  # the root's class triples
    if profiles.size * triples.size * comp.mult.size * comp.n_classes > MAX_COMPLETION_STEPS:
        return None  # (checked before the statistics: they may cost far more)
    if profiles.size == 1 and m >= 2:  # one group: meet in the middle
        stats = listed_stats(lists)  # (at the cheapest cut; progress shown when long)
    else:
        cases, offsets, masks = packed(sorted(lists, key=len))
        if np.prod([float(x.size) for x in lists]) * m ** 3 > 10 * TUPLE_STEPS:
            return None
        t_, a, b, c, _, done = _tuple_stats(cases, offsets, masks, CASE_TYPE_INDICES, codes, profiles, TUPLE_STEPS)
        if not done:
            return None
        stats = (t_, a, b, c)
    avoid = avoiding(*stats)  # int64[V, 1680]
    # G(profile(c) + v) per (group v, class triple of c)
    used_codes = (profiles[:, None] + triples[None, :]).ravel()
    used = (used_codes[:, None] // radix[None, :]) % base
    g = comp.values(np.ascontiguousarray(used)).reshape(profiles.size, triples.size)
    return (avoid * g[:, case_triple.ravel()]).sum(axis=0)


def count_joint_split(own: np.ndarray, others: "list[np.ndarray]", supersets: "list[np.ndarray]",
                      fallback: bool = True) -> "np.ndarray | None":
    """:func:`~pi_env.solvers.joint.count_joint` by inclusion–exclusion over each player's *holes*:
    with ``others[j] = supersets[j] minus holes[j]`` (``holes[j] = supersets[j] & ~others[j]``),

    ``count(others) = sum over J of (-1)^|J| count(holes[j] for j in J, supersets[k] for k not in J)``

    (the count is linear in each player's set; see the module docstring for how a term is counted).
    Exact for any supersets; fast when the supersets are coarse (few classes of interchangeable
    elements) and the holes small: a player's set is what its answers allow minus the cases it
    named in failed solves (docs/rules.md §4.3). A term this module cannot count fast is counted by
    the dynamic programme.

    Args:
        own: ``bool[1680]``, the asking player's case set.
        others: one ``bool[1680]`` per unknown player (at most 4).
        supersets: per unknown player a ``bool[1680]`` superset of its set in ``others``.
        fallback: count a term this module cannot count fast by the dynamic programme (``True``), or
            give up and return ``None`` (``False``: the caller counts the sets themselves instead).

    Returns:
        ``int64[1680]``, equal to ``count_joint(own, others)`` (0 outside ``own``); ``None`` when
        ``fallback`` is ``False`` and some term is not fast.

    Raises:
        ValueError: wrong shapes, more than 4 unknown players, or a superset that is not one.
    """
    own = np.asarray(own, dtype=bool)
    sets = [np.asarray(o, dtype=bool) for o in others]
    sups = [np.asarray(a, dtype=bool) for a in supersets]
    if own.shape != (NUM_CASES,) or any(s.shape != (NUM_CASES,) for s in sets):
        raise ValueError("case sets must be bool[1680]")
    if len(sets) > 4:
        raise ValueError(f"at most 4 unknown players, got {len(sets)}")
    if len(sups) != len(sets) or any(a.shape != (NUM_CASES,) for a in sups):
        raise ValueError("supersets: one bool[1680] per unknown player")
    if any((s & ~a).any() for s, a in zip(sets, sups)):
        raise ValueError("supersets: each must contain the player's set")
    holes = [a & ~s for a, s in zip(sups, sets)]
    split = [j for j in range(len(sets)) if holes[j].any()]
    total = np.zeros(NUM_CASES, dtype=np.int64)
    own_cases = np.flatnonzero(own).astype(np.int64)
    too_many: list[frozenset[int]] = []  # coarse groups whose count vectors were too many
    for chosen in sorted(product((False, True), repeat=len(split)), key=sum, reverse=True):
        inside = frozenset(j for j, c in zip(split, chosen) if c)  # the terms of most holes first (the fastest)
        if not inside:
            term = count_joint(own, sups)  # (only own's entries are kept: own as the root, fewer states)
            total += term
            continue
        term_sets = [holes[j] if j in inside else sups[j] for j in range(len(sets))]
        outside = frozenset(range(len(sets))) - inside
        coarse = [sups[j] for j in sorted(outside)]
        found = None
        if not any(k <= outside for k in too_many):  # (more coarse players: more count vectors)
            comp = _Completions(coarse)
            if comp.ok:
                found = _hole_term([holes[j] for j in sorted(inside)], coarse, comp)
            else:
                too_many.append(outside)
        if found is None and len(outside) <= 1:  # (with two supersets the dynamic programme is faster)
            lists = [np.flatnonzero(x).astype(np.int64) for x in term_sets]
            if listed_cost([x.size for x in lists]) <= TERM_LISTED_STEPS:  # e.g. three players' holes, a superset
                found = np.zeros(NUM_CASES, dtype=np.int64)
                found[own_cases] = count_listed(own_cases, lists)
        if found is None and not fallback:
            return None
        term = found if found is not None else count_joint(own, term_sets)
        if len(inside) % 2:
            total -= term
        else:
            total += term
    return np.where(own, total, 0)


def joint_table_split(sets: np.ndarray, supersets: np.ndarray, sampling: bool = False) -> JointTable:
    """:func:`~pi_env.solvers.joint.joint_table` of sets with holes (many failed solves): counts by
    :func:`count_joint_split`; with ``sampling=True`` the table draws worlds from the supersets'
    table (fast to build: coarse sets) and keeps those whose every case lies in its player's set —
    exactly uniform over the consistent worlds — when at least :data:`MIN_ACCEPTANCE` of them are
    kept, else it is the dynamic programme's table of ``sets``.

    Args:
        sets: ``bool[k, 1680]``, ``1 <= k <= 5``, the root first.
        supersets: ``bool[k, 1680]``, each row a superset of the row of ``sets``.
        sampling: keep what :meth:`~pi_env.solvers.joint.JointTable.sample` needs.

    Returns:
        A :class:`~pi_env.solvers.joint.JointTable` with the same counts as ``joint_table(sets)``.

    Raises:
        ValueError: wrong shapes, or a superset that is not one.
    """
    arr = np.ascontiguousarray(np.asarray(sets, dtype=bool))
    sup = np.ascontiguousarray(np.asarray(supersets, dtype=bool))
    if arr.ndim != 2 or arr.shape[1] != NUM_CASES or not 1 <= arr.shape[0] <= 5 or sup.shape != arr.shape:
        raise ValueError(f"sets and supersets must be bool[k, {NUM_CASES}] with 1 <= k <= 5, got shapes "
                         f"{arr.shape} and {sup.shape}")
    if (arr & ~sup).any():
        raise ValueError("supersets: each must contain the player's set")
    counts = count_joint_split(arr[0], list(arr[1:]), list(sup[1:]))
    assert counts is not None  # (with fallback, always)
    total = int(counts.sum())
    root_cases = np.flatnonzero(counts)
    proposal = None
    if sampling and total > 0:
        proposal = joint_table(sup, sampling=True)
        if total < MIN_ACCEPTANCE * proposal.total:
            return joint_table(arr, sampling=True)
    return JointTable(counts, total, arr.shape[0], (), 0, root_cases, np.cumsum(counts[root_cases]),
                      None, "split", _proposal=proposal, _accept=arr if proposal is not None else None)
