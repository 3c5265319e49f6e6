"""Exact joint counts of sets with holes: many failed solves (docs/rules.md §4.3, §9).

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
* a term the profiles below decline (the coarse players' class tensor too large: three supersets
  split by other answers; or too many profiles or tuples of holes) whose sets met in the middle as
  lists (:func:`pi_env.solvers.joint_tuples.count_listed`) cost at most :data:`TERM_LISTED_STEPS`
  estimated steps and hold at most one superset is counted so; any other by the dynamic programme.
  Once a group of coarse players has too large a tensor, the profiles are not tried again for a
  group containing it.
* otherwise: the tuples of holes of ``J`` are few (at most ~60 per player in a legal round), the
  players ``K`` not in ``J`` coarse. A tuple ``t`` of holes disjoint from ``c`` is completed in
  ``G(c, t)`` ways, the number of disjoint tuples of ``K``'s supersets avoiding the elements of
  ``c`` and ``t``; ``G`` depends only on how many of those elements fall in each class of ``K``'s
  joint classes (its *profile*). ``G`` factors by element type: a tensor over the coarse players'
  class triples contracted with one small matrix per type gives it for every profile at once
  (:meth:`_Completions.table`; an 8 ms term where the earlier sum over count vectors took seconds
  and the dynamic programme 5-20 ms). The tuples of holes are grouped by their profile ``v``; the
  number of tuples avoiding ``c = (s, e, l)`` follows from how many use each element, each pair and
  each triple of elements of different types, ``T - A[s] - A[e] - A[l] + B[s, e] + B[s, l] + B[e,
  l] - C[s, e, l]`` (a disjoint tuple uses an element at most once), and ``term_J(c) = sum over v of
  D_v(c) * G(profile(c) + v)``: the tuples are enumerated once, ``T``, ``A``, ``B`` kept per profile
  and ``C`` weighted by ``G`` as it is summed (:func:`_weighted_avoiding`).
* One group (every superset of ``K`` the full set, as with failed solves and no other answer) of
  three players' holes is counted by inclusion–exclusion over element sets
  (:func:`_triples_avoiding`: the disjoint pairs of two lists holding each set of at most two
  elements per type, then per case of the third list; ~10 ms for three lists of 300 cases, where
  meeting in the middle took ~60 ms); one of four players' holes likewise when that is cheaper
  (:func:`quadruples_avoiding`: the disjoint pairs of two lists and those of the other two tallied
  per element set, then one small kernel per element type contracted; a fixed ~25-50 ms, where
  meeting in the middle took ~0.4-0.6 s for four lists of 300 cases: the typed-in record of 1,500
  failed solves). Any other group of two or four players' holes is met in the middle
  when that is cheaper than enumerating its tuples
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

from pi_env.core.errors import PIError
from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES
from pi_env.solvers.joint import JointTable, _own_relation, _refine_type, _slice_signatures, count_joint, joint_table
from pi_env.solvers.joint_tuples import (CASE_TYPE_INDICES, avoiding, count_listed, listed_cost,
                                         listed_stats, packed)

TYPE_SIZES3 = (12, 10, 14)
TUPLE_STEPS = 20_000_000  # enumeration budget of one term's tuples of holes (then: the dynamic programme)
MAX_PROFILES = 4_000  # groups of tuples of holes kept apart (statistics of ~470 int64 each)
MAX_TENSOR = 200_000  # entries of the coarse players' class tensor Z (_Completions)
MAX_TABLE_STEPS = 3e7  # multiply-adds of the completions table (_Completions.table)
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

    ``G`` factors by element type: with ``K`` coarse players, a tuple of their class triples
    ``r_1 .. r_K`` (each allowed by its player's set) gives ``prod over types t of W_t(u_t, (r_1t ..
    r_Kt))`` tuples of cases, ``W_t`` the ways to give the players distinct unused elements of the
    classes they name in type ``t`` (``u_t``: the used elements per class of type ``t``). So ``G`` is
    the contraction of the tensor ``Z[x_s, x_e, x_l]`` (``x_t`` the ``K`` players' classes in type
    ``t``; ``Z`` 1 where every player's set allows its triple) with the three matrices ``W_t``, for
    every combination of the per-type ``u_t`` at once (:meth:`table`).

    Attributes:
        labels: ``int64[3, 14]`` the joint class of each element (numbered per type).
        counts: ``int64[3]`` classes per type; ``offsets``: ``int64[3]`` first global class of each
            type (classes numbered across types); ``n_classes`` their sum.
        sizes: ``int64[n_classes]`` elements per class.
        rels: per coarse player ``bool[counts[0], counts[1], counts[2]]``, the class triples its set
            holds.
        ok: the tensor ``Z`` has at most :data:`MAX_TENSOR` entries (else the caller counts the term
            another way).
    """

    def __init__(self, sets: list[np.ndarray]):
        labels = np.zeros((3, 14), dtype=np.int64)
        n = [1, 1, 1]
        if sets:
            sig = _slice_signatures(np.ascontiguousarray(np.stack(sets)))
            members = np.arange(len(sets), dtype=np.int64)
            for t in range(3):
                lab, cnt = _refine_type(sig, members, t)
                labels[t] = lab
                n[t] = int(cnt)
        self.labels = labels
        self.counts = np.array(n, dtype=np.int64)
        self.offsets = np.array([0, n[0], n[0] + n[1]], dtype=np.int64)
        self.n_classes = sum(n)
        self.sizes = np.zeros(self.n_classes, dtype=np.int64)
        for t in range(3):
            np.add.at(self.sizes, labels[t, :TYPE_SIZES3[t]] + self.offsets[t], 1)
        self.k = len(sets)
        self.ok = float(np.prod([float(x) ** self.k for x in n])) <= MAX_TENSOR
        self.rels = [_own_relation(np.flatnonzero(s).astype(np.int64), labels, self.counts) for s in sets] \
            if self.ok else []

    def case_classes(self) -> np.ndarray:
        """``int64[1680, 3]``: the global class of each case's three elements."""
        t = CASE_TYPE_INDICES
        return np.stack([self.labels[0, t[:, 0]], self.labels[1, t[:, 1]] + self.offsets[1],
                         self.labels[2, t[:, 2]] + self.offsets[2]], axis=1)

    def table_cost(self, n_used: "list[int]") -> float:
        """Estimated multiply-adds of :meth:`table` for ``n_used[t]`` distinct ``u_t`` per type."""
        x = [float(c) ** self.k for c in self.counts]
        u = [float(v) for v in n_used]
        return x[0] * x[1] * x[2] * u[2] + x[0] * x[1] * u[1] * u[2] + x[0] * u[0] * u[1] * u[2]

    def _weights(self, t: int, used: np.ndarray) -> np.ndarray:
        """``W_t``: ``int64[len(used), counts[t]**K]``, for each row of ``used`` (``int64[N,
        counts[t]]``, used elements per class of type ``t``) and each choice of one class per coarse
        player (player 1's class the most significant digit), the ways to give the players distinct
        unused elements of their classes."""
        n = int(self.counts[t])
        avail = self.sizes[self.offsets[t]:self.offsets[t] + n][None, :] - used  # int64[N, n]
        w = np.ones((used.shape[0], 1), dtype=np.int64)
        chosen = np.zeros((1, 0), dtype=np.int64)  # the classes chosen so far, per column of w
        for _ in range(self.k):
            # choosing class a after the earlier players: avail[a] minus those of them in class a
            before = (chosen[:, :, None] == np.arange(n)[None, None, :]).sum(axis=1)  # int64[X, n]
            factor = np.maximum(avail[:, None, :] - before[None, :, :], 0)  # int64[N, X, n]
            w = (w[:, :, None] * factor).reshape(used.shape[0], -1)
            chosen = np.concatenate([np.repeat(chosen, n, axis=0), np.tile(np.arange(n), chosen.shape[0])[:, None]],
                                    axis=1)
        return w

    def table(self, used: "list[np.ndarray]") -> np.ndarray:
        """``G`` for every combination of per-type used counts: ``int64[N_s, N_e, N_l]`` for
        ``used[t]`` (``int64[N_t, counts[t]]``). Requires ``ok``.

        Raises:
            PIError: more than 4 coarse players.
        """
        if self.k == 0:
            return np.ones(tuple(u.shape[0] for u in used), dtype=np.int64)
        if self.k > 4:
            raise PIError(f"at most 4 coarse players, got {self.k}")
        z = self.rels[0].astype(np.int64)
        for rel in self.rels[1:]:  # Z[(a_1s .. a_Ks), (a_1e ..), (a_1l ..)]: every player's triple allowed
            z = np.multiply.outer(z, rel.astype(np.int64))
        z = z.transpose([k * 3 + t for t in range(3) for k in range(self.k)])
        z = np.ascontiguousarray(z.reshape([int(c) ** self.k for c in self.counts]))
        w = [np.ascontiguousarray(self._weights(t, used[t])) for t in range(3)]
        return _contract(z, w[0], w[1], w[2])


@kernel
def _contract(z, w0, w1, w2):
    """``G[i, j, k] = sum over (a, b, c) of z[a, b, c] * w0[i, a] * w1[j, b] * w2[k, c]`` (``int64``;
    ``z``: ``int64[A, B, C]``, ``w0``: ``int64[N_s, A]``, ``w1``: ``int64[N_e, B]``, ``w2``: ``int64[N_l,
    C]``), one type at a time, skipping zeros. Exact: every partial sum counts disjoint choices of
    at most 4 players' elements, at most ``1680**4``."""
    na, nb, nc = z.shape
    ns, ne, nl = w0.shape[0], w1.shape[0], w2.shape[0]
    y1 = np.zeros((na, nb, nl), dtype=np.int64)
    for a in range(na):
        for b in range(nb):
            for c in range(nc):
                zv = z[a, b, c]
                if zv != 0:
                    for k in range(nl):
                        y1[a, b, k] += zv * w2[k, c]
    y2 = np.zeros((na, ne, nl), dtype=np.int64)
    for a in range(na):
        for b in range(nb):
            for j in range(ne):
                wv = w1[j, b]
                if wv != 0:
                    for k in range(nl):
                        y2[a, j, k] += wv * y1[a, b, k]
    out = np.zeros((ns, ne, nl), dtype=np.int64)
    for i in range(ns):
        for a in range(na):
            wv = w0[i, a]
            if wv != 0:
                for j in range(ne):
                    for k in range(nl):
                        out[i, j, k] += wv * y2[a, j, k]
    return out


@kernel
def _gather(table, map_s, map_e, map_l, rows, cols):
    """``g[v, k] = table[map_s[rows[0, v], cols[0, k]], map_e[rows[1, v], cols[1, k]], map_l[rows[2,
    v], cols[2, k]]]``: ``G`` per (profile, class triple of the root) from the per-type table
    (``rows``: ``int64[3, V]``, ``cols``: ``int64[3, n_trip]``)."""
    nv, nk = rows.shape[1], cols.shape[1]
    g = np.empty((nv, nk), dtype=np.int64)
    for v in range(nv):
        rs, re, rl = rows[0, v], rows[1, v], rows[2, v]
        for k in range(nk):
            g[v, k] = table[map_s[rs, cols[0, k]], map_e[re, cols[1, k]], map_l[rl, cols[2, k]]]
    return g


# ---------------------------------------------------------------------------------------------
# one term, and the sum


@kernel
def _weighted_avoiding(cases, offsets, masks, triples, codes, profiles, g, gt, elem_k, case_k, root, budget):
    """``term(c)`` for each root case: the sum over the pairwise-disjoint tuples ``t`` of the lists
    ``cases[offsets[i]:offsets[i+1]]`` (one case each) disjoint from ``c`` of ``g[v(t), case_k[c]]``
    (``v(t)``: the index in the sorted ``profiles`` (``int64[V]``) of the sum of the tuple's case
    ``codes`` (``int64[1680]``); ``g``: ``int64[V, n_triples]`` and ``gt`` its transpose; ``case_k``:
    ``int64[1680]`` the class triple of each case, the sum of ``elem_k`` (``int64[36]``) over its
    three elements).

    The tuples are enumerated once: per profile their number ``T_v`` and how many use each element
    (``A_v``) and each two elements of different types (``B_v``); and one array ``Cw[s, e, l]``, the
    sum of ``g[v(t), case_k[(s, e, l)]]`` over the tuples using ``s``, ``e`` and ``l``. A disjoint
    tuple uses an element at most once, so by inclusion–exclusion over the root case's elements
    ``term(c) = sum over v of g[v, k(c)] (T_v - A_v[s] - A_v[e] - A_v[l] + B_v[s, e] + B_v[s, l] +
    B_v[e, l]) - Cw[s, e, l]``. A profile's index is found by an open-addressing hash of its code.

    Returns ``(int64[len(root)], done)``; ``done`` False (and zeros) past ``budget`` steps (a tuple
    costs about ``(m + 1)**3``)."""
    m = offsets.shape[0] - 1
    nv = profiles.shape[0]
    nk = g.shape[1]
    out = np.zeros(root.shape[0], dtype=np.int64)
    # per profile one row: T, A (36 elements), B (suspect-evidence 120, suspect-location 168,
    # evidence-location 140 pairs), so a tuple's updates stay in one row
    st = np.zeros((nv, 465), dtype=np.int64)
    cw = np.zeros(NUM_CASES, dtype=np.int64)
    gf = g.ravel()
    bits = 4
    while (1 << bits) < 4 * nv:
        bits += 1
    mask = (1 << bits) - 1
    slots = -np.ones(1 << bits, dtype=np.int64)
    for v in range(nv):
        h = ((profiles[v] % 2147483629) * 2654435761 >> 16) & mask
        while slots[h] >= 0:
            h = (h + 1) & mask
        slots[h] = v
    per = (m + 1) * (m + 1) * (m + 1)
    steps = 0
    if m == 0:
        st[np.searchsorted(profiles, 0), 0] = 1
    else:
        chosen = np.zeros(m, dtype=np.int64)
        next_j = np.zeros(m, dtype=np.int64)
        used = np.zeros(m + 1, dtype=np.int64)
        code = np.zeros(m + 1, dtype=np.int64)
        es = np.zeros(m, dtype=np.int64)
        ee = np.zeros(m, dtype=np.int64)
        el = np.zeros(m, dtype=np.int64)
        ks = np.zeros(m, dtype=np.int64)
        ke = np.zeros(m, dtype=np.int64)
        kl = np.zeros(m, dtype=np.int64)
        level = 0
        next_j[0] = offsets[0]
        while level >= 0:
            j = next_j[level]
            if j == offsets[level + 1]:
                level -= 1
                continue
            next_j[level] = j + 1
            mj = masks[cases[j]]
            if mj & used[level] != 0:
                continue
            chosen[level] = cases[j]
            if level < m - 1:
                used[level + 1] = used[level] | mj
                code[level + 1] = code[level] + codes[cases[j]]
                level += 1
                next_j[level] = offsets[level]
                continue
            steps += per
            if steps > budget:
                return out, False
            full = code[level] + codes[cases[j]]
            h = ((full % 2147483629) * 2654435761 >> 16) & mask
            while profiles[slots[h]] != full:
                h = (h + 1) & mask
            v = slots[h]
            st[v, 0] += 1
            for x in range(m):
                cx = chosen[x]
                es[x] = triples[cx, 0]
                ee[x] = triples[cx, 1]
                el[x] = triples[cx, 2]
                ks[x] = elem_k[es[x]]
                ke[x] = elem_k[12 + ee[x]]
                kl[x] = elem_k[22 + el[x]]
                st[v, 1 + es[x]] += 1
                st[v, 13 + ee[x]] += 1
                st[v, 23 + el[x]] += 1
            row = v * nk
            # the members' locations and their class offsets as scalars (at most 4 members): the
            # compiler cannot tell the arrays apart, so values read from arrays are read again after
            # every store
            l0, l1, l2, l3 = el[0], el[min(1, m - 1)], el[min(2, m - 1)], el[min(3, m - 1)]
            q0, q1, q2, q3 = kl[0], kl[min(1, m - 1)], kl[min(2, m - 1)], kl[min(3, m - 1)]
            for x in range(m):
                sx = es[x]
                ex = ee[x]
                kx = row + ks[x]
                for y in range(m):
                    ey = ee[y]
                    ly = el[y]
                    kxy = kx + ke[y]
                    st[v, 37 + sx * 10 + ey] += 1
                    st[v, 157 + sx * 14 + ly] += 1
                    st[v, 325 + ex * 14 + ly] += 1
                    base = sx * 140 + ey * 14
                    cw[base + l0] += gf[kxy + q0]
                    if m > 1:
                        cw[base + l1] += gf[kxy + q1]
                    if m > 2:
                        cw[base + l2] += gf[kxy + q2]
                    if m > 3:
                        cw[base + l3] += gf[kxy + q3]
    stt = np.ascontiguousarray(st.T)  # (profile last: the sums below run along it)
    for r in range(root.shape[0]):
        c = root[r]
        s, e, loc = triples[c, 0], triples[c, 1], triples[c, 2]
        k = case_k[c]
        total = 0
        for v in range(nv):
            total += gt[k, v] * (stt[0, v] - stt[1 + s, v] - stt[13 + e, v] - stt[23 + loc, v]
                                 + stt[37 + s * 10 + e, v] + stt[157 + s * 14 + loc, v] + stt[325 + e * 14 + loc, v])
        out[r] = total - cw[c]
    return out, True


def _lattice_unions() -> np.ndarray:
    """``int64[3, 15, 15]``: per type, the index of ``{x} | {y}`` (``x, y`` an element or -1: none,
    stored at ``x + 1``) among the type's element sets of at most two elements (0: empty; ``1 + a``:
    ``{a}``; ``1 + n + i``: the ``i``-th pair)."""
    out = np.zeros((3, 15, 15), dtype=np.int64)
    for t, n in enumerate(TYPE_SIZES3):
        pair: dict[tuple[int, int], int] = {}
        for a in range(n):
            for b in range(a + 1, n):
                pair[a, b] = 1 + n + len(pair)
        for x in range(-1, n):
            for y in range(-1, n):
                members = sorted({v for v in (x, y) if v >= 0})
                out[t, x + 1, y + 1] = (0 if not members else 1 + members[0] if len(members) == 1
                                        else pair[members[0], members[1]])
    return out


LATTICE_UNIONS = _lattice_unions()
LATTICE_SIZES = tuple(1 + n + n * (n - 1) // 2 for n in TYPE_SIZES3)  # (79, 56, 106)


@kernel
def _pair_supersets(l1, l2, triples, uni):
    """``f int64[79, 56, 106]``: per element set ``X`` of at most two elements per type (indexed per
    type as in :func:`_lattice_unions`: suspect, evidence, location), the pairwise-disjoint pairs
    ``(a, b)`` of ``l1 x l2`` (``int64`` case ids) whose six elements include ``X`` (superset sums,
    one pass per type; only pairs are filled along the type not yet summed)."""
    n_s, n_e, n_l = 12, 10, 14
    m_s, m_e, m_l = 1 + n_s + 66, 1 + n_e + 45, 1 + n_l + 91
    f = np.zeros((m_s, m_e, m_l), dtype=np.int64)
    for i in range(l1.shape[0]):
        a = l1[i]
        for j in range(l2.shape[0]):
            b = l2[j]
            if triples[a, 0] == triples[b, 0] or triples[a, 1] == triples[b, 1] or triples[a, 2] == triples[b, 2]:
                continue
            f[uni[0, triples[a, 0] + 1, triples[b, 0] + 1], uni[1, triples[a, 1] + 1, triples[b, 1] + 1],
              uni[2, triples[a, 2] + 1, triples[b, 2] + 1]] += 1
    # superset sums, one type at a time (only pairs are filled along the type not yet summed)
    for x in range(n_s):
        for y in range(x + 1, n_s):
            pi = uni[0, x + 1, y + 1]
            for j in range(m_e):
                for k in range(m_l):
                    v = f[pi, j, k]
                    if v != 0:
                        f[1 + x, j, k] += v
                        f[1 + y, j, k] += v
                        f[0, j, k] += v
    for i in range(m_s):
        for x in range(n_e):
            for y in range(x + 1, n_e):
                pi = uni[1, x + 1, y + 1]
                for k in range(m_l):
                    v = f[i, pi, k]
                    if v != 0:
                        f[i, 1 + x, k] += v
                        f[i, 1 + y, k] += v
                        f[i, 0, k] += v
    for i in range(m_s):
        for j in range(m_e):
            for x in range(n_l):
                for y in range(x + 1, n_l):
                    v = f[i, j, uni[2, x + 1, y + 1]]
                    if v != 0:
                        f[i, j, 1 + x] += v
                        f[i, j, 1 + y] += v
                        f[i, j, 0] += v
    return f


@kernel
def _triples_avoiding(l1, l2, l3, root, triples, uni):
    """Per root case ``c``: the pairwise-disjoint triples of one case of each list (``int64`` case
    ids) disjoint from ``c``, by inclusion–exclusion over element sets (no triple visited):
    ``f[X]``, the disjoint pairs ``p`` of ``l1 x l2`` holding the element set ``X`` (at most two
    elements per type: ``int64[79, 56, 106]``, superset sums by one pass per type); per case ``q``
    of ``l3``, ``h_q(U) = #{p containing U, disjoint from q} = sum over T in subsets of q of
    (-1)^|T| f[U | T]`` for every partial case ``U``; then ``D(c) = sum over q disjoint from c of
    sum over U in subsets of c of (-1)^|U| h_q(U)``. About ``|l1| |l2| + |l3| (17,000 + 8 |root|)``
    steps. Returns ``int64[len(root)]``."""
    n_s, n_e, n_l = 12, 10, 14
    f = _pair_supersets(l1, l2, triples, uni)
    out = np.zeros(root.shape[0], dtype=np.int64)
    h = np.zeros((n_s + 1, n_e + 1, n_l + 1), dtype=np.int64)
    for r in range(l3.shape[0]):
        q = l3[r]
        qs, qe, ql = triples[q, 0] + 1, triples[q, 1] + 1, triples[q, 2] + 1
        for us in range(n_s + 1):
            s0, s1 = uni[0, us, 0], uni[0, us, qs]
            for ue in range(n_e + 1):
                e0, e1 = uni[1, ue, 0], uni[1, ue, qe]
                for ul in range(n_l + 1):
                    c0, c1 = uni[2, ul, 0], uni[2, ul, ql]
                    h[us, ue, ul] = (f[s0, e0, c0] - f[s1, e0, c0] - f[s0, e1, c0] - f[s0, e0, c1]
                                     + f[s1, e1, c0] + f[s1, e0, c1] + f[s0, e1, c1] - f[s1, e1, c1])
        for i in range(root.shape[0]):
            c = root[i]
            s, e, loc = triples[c, 0] + 1, triples[c, 1] + 1, triples[c, 2] + 1
            if s == qs or e == qe or loc == ql:
                continue
            out[i] += (h[0, 0, 0] - h[s, 0, 0] - h[0, e, 0] - h[0, 0, loc] + h[s, e, 0] + h[s, 0, loc]
                       + h[0, e, loc] - h[s, e, loc])
    return out


def _type_entries(t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel of one element type for :func:`_quadruples_avoiding`, on the type's element sets of
    at most two elements (indices of :func:`_lattice_unions`): the disjoint pairs ``(X, Y)`` of a
    side ``P`` and a side ``Q`` avoiding ``x`` are weighed ``[X, Y disjoint][x not in X][x not in
    Y] = J - [x in X or Y] J`` (``J``: disjoint). With superset sums on both sides, ``J`` is the
    diagonal ``(-1)^|U|`` (``o = 0``) and ``-[x in X or Y] J`` (``o = 1 + x``) has ``3 n`` entries:
    ``({x}, {}), ({}, {x})`` weight -1, ``({x}, {x})`` 2, and per ``y != x`` ``({x, y}, {y}),
    ({y}, {x, y})`` 1 and ``({x, y}, {x, y})`` -2.

    Returns:
        ``(rel, entries, offsets)``: ``rel int64[R, 2]`` the distinct index pairs ``(i, j)`` (of the
        ``P`` and ``Q`` sides), ``entries int64[E, 3]`` rows ``(pair, o, weight)`` sorted by pair,
        ``offsets int64[R + 1]`` each pair's first entry.
    """
    n = TYPE_SIZES3[t]
    uni = LATTICE_UNIONS[t]
    size = [0] + [1] * n + [2] * (n * (n - 1) // 2)
    raw = [(k, k, 0, (-1) ** size[k]) for k in range(len(size))]
    for x in range(n):
        sx = 1 + x
        raw += [(sx, 0, 1 + x, -1), (0, sx, 1 + x, -1), (sx, sx, 1 + x, 2)]
        for y in range(n):
            if y != x:
                pxy, sy = int(uni[x + 1, y + 1]), 1 + y
                raw += [(pxy, sy, 1 + x, 1), (sy, pxy, 1 + x, 1), (pxy, pxy, 1 + x, -2)]
    pairs = sorted({(i, j) for i, j, _, _ in raw})
    index = {pq: r for r, pq in enumerate(pairs)}
    entries = np.array(sorted((index[i, j], o, w) for i, j, o, w in raw), dtype=np.int64)
    offsets = np.searchsorted(entries[:, 0], np.arange(len(pairs) + 1)).astype(np.int64)
    return np.array(pairs, dtype=np.int64), entries, offsets


S_REL, S_ENTRIES, S_OFFSETS = _type_entries(0)  # 367 pairs, 511 entries
E_REL, E_ENTRIES, _E_OFFSETS = _type_entries(1)  # 256 pairs, 356 entries
# listed_cost steps (about 0.4 ns each) of _quadruples_avoiding besides ~10 per pair it tallies: measured 24-50 ms
# for four lists of 10-300 cases (numba, load 3.3), where meeting in the middle took 45 ms at 120 cases each, 630 ms
# at 300
QUAD_STEPS = 1e8


@kernel
def _location_rows(f, uni):
    """``int64[79, 56, 288]``: ``f`` (:func:`_pair_supersets`) with the location sets laid out for
    :func:`_quadruples_avoiding`: the empty set at 0, ``{a}`` at ``16 + a``, ``{a, b}`` at ``32 +
    16 a + b`` and ``32 + 16 b + a`` (a full 16 x 16 matrix, zero on the diagonal and past 14),
    and ``bool[79, 56]``: the rows with a nonzero entry."""
    out = np.zeros((f.shape[0], f.shape[1], 288), dtype=np.int64)
    nz = np.zeros((f.shape[0], f.shape[1]), dtype=np.bool_)
    for i in range(f.shape[0]):
        for j in range(f.shape[1]):
            out[i, j, 0] = f[i, j, 0]
            for a in range(14):
                out[i, j, 16 + a] = f[i, j, 1 + a]
                for b in range(14):
                    if a != b:
                        out[i, j, 32 + 16 * a + b] = f[i, j, uni[2, a + 1, b + 1]]
            for k in range(288):
                if out[i, j, k] != 0:
                    nz[i, j] = True
                    break
    return out, nz


@kernel
def _quadruples_avoiding(l1, l2, l3, l4, root, triples, uni, s_rel, s_entries, s_offsets, e_rel, e_entries):
    """Per root case ``c``: the pairwise-disjoint quadruples of one case of each list (``int64`` case
    ids) disjoint from ``c``, by inclusion–exclusion over element sets (no quadruple visited).

    With ``P`` the disjoint pairs of ``l1 x l2`` and ``Q`` those of ``l3 x l4``, ``f_P[X]`` and
    ``f_Q[X]`` (:func:`_pair_supersets`) count those holding the element set ``X``; a pair ``(p,
    q)`` is counted when ``p`` and ``q`` are disjoint and avoid ``c``, a product over the element
    types of one kernel each (:func:`_type_entries`: the diagonal ``o = 0`` and one part ``o = 1 +
    x`` per element ``x``). So ``R[o_s, o_e, o_l] = sum over i, j of f_P[i] f_Q[j] times the
    three types' weights`` (``int64[13, 11, 15]``; the location kernel written out on 16 x 16
    matrices, :func:`_location_rows`; then evidence, then suspect entries), and ``D(c)`` is the sum
    of ``R`` over ``o_t`` in ``{0, 1 + c_t}`` (8 terms). About ``|l1| |l2| + |l3| |l4|`` plus
    ``367 * 256`` location contractions of ~600 multiply-adds (rows without pairs skipped).
    Exact: every partial sum is at most ``2^18 |P| |Q|`` in size. ``s_*``, ``e_*``: the suspect's
    and the evidence's :func:`_type_entries`. Returns ``int64[len(root)]``."""
    fp, nzp = _location_rows(_pair_supersets(l1, l2, triples, uni), uni)
    fq, nzq = _location_rows(_pair_supersets(l3, l4, triples, uni), uni)
    n_re = e_rel.shape[0]
    # 16 (columns of a location matrix) read from a shape: with a constant trip count the inner loop is
    # unrolled into scalar multiplies; so it is vectorised (measured 47 -> 35 ms, four lists of 300)
    nb = fp.shape[2] // 18
    r = np.zeros((13, 11, 15), dtype=np.int64)
    y1 = np.zeros((n_re, 15), dtype=np.int64)
    y2 = np.zeros((11, 15), dtype=np.int64)
    used = np.zeros(n_re, dtype=np.bool_)
    for ps in range(s_rel.shape[0]):
        i_s, j_s = s_rel[ps, 0], s_rel[ps, 1]
        found = False
        for pe in range(n_re):
            i_e, j_e = e_rel[pe, 0], e_rel[pe, 1]
            used[pe] = nzp[i_s, i_e] and nzq[j_s, j_e]
            if not used[pe]:
                continue
            found = True
            u = fp[i_s, i_e]
            v = fq[j_s, j_e]
            u0, v0 = u[0], v[0]
            s1 = 0
            s3 = 0
            for x in range(14):
                ux, vx = u[16 + x], v[16 + x]
                t1 = 0
                t3 = 0
                for b in range(nb):
                    uxb = u[32 + 16 * x + b]
                    vxb = v[32 + 16 * x + b]
                    t1 += uxb * v[16 + b] + u[16 + b] * vxb
                    t3 += uxb * vxb
                y1[pe, 1 + x] = 2 * ux * vx - ux * v0 - u0 * vx + t1 - 2 * t3
                s1 += ux * vx
                s3 += t3
            y1[pe, 0] = u0 * v0 - s1 + s3 // 2  # (each location pair twice in the matrix)
        if not found:
            continue
        y2[:, :] = 0
        for k in range(e_entries.shape[0]):
            pe = e_entries[k, 0]
            if used[pe]:
                o, w = e_entries[k, 1], e_entries[k, 2]
                for c in range(15):
                    y2[o, c] += w * y1[pe, c]
        for k in range(s_offsets[ps], s_offsets[ps + 1]):
            o, w = s_entries[k, 1], s_entries[k, 2]
            for a in range(11):
                for c in range(15):
                    r[o, a, c] += w * y2[a, c]
    out = np.zeros(root.shape[0], dtype=np.int64)
    for i in range(root.shape[0]):
        c = root[i]
        s, e, loc = triples[c, 0] + 1, triples[c, 1] + 1, triples[c, 2] + 1
        out[i] = (r[0, 0, 0] + r[s, 0, 0] + r[0, e, 0] + r[0, 0, loc] + r[s, e, 0] + r[s, 0, loc] + r[0, e, loc]
                  + r[s, e, loc])
    return out


def quadruples_avoiding(lists: "list[np.ndarray]", root: np.ndarray) -> np.ndarray:
    """Per case of ``root`` (``int64`` case ids), the pairwise-disjoint quadruples of one case of each
    of the four ``lists`` (``int64`` case ids) disjoint from it: ``int64[len(root)]``
    (:func:`_quadruples_avoiding`; the lists paired so that the pairs to tally are fewest).

    Raises:
        PIError: not four lists.
    """
    if len(lists) != 4:
        raise PIError(f"four lists, got {len(lists)}")
    a, b, c, d = sorted((np.asarray(x, dtype=np.int64) for x in lists), key=len)
    return _quadruples_avoiding(a, d, b, c, np.asarray(root, dtype=np.int64), CASE_TYPE_INDICES, LATTICE_UNIONS,
                                S_REL, S_ENTRIES, S_OFFSETS, E_REL, E_ENTRIES)


def _tuples_estimate(sizes: "list[int]") -> float:
    """About how many pairwise-disjoint tuples lists of these sizes have (random cases: two are
    disjoint with probability ``11/12 * 9/10 * 13/14``)."""
    m = len(sizes)
    return float(np.prod([float(x) for x in sizes])) * 0.766 ** (m * (m - 1) / 2)


def _hole_term(holes: list[np.ndarray], coarse: list[np.ndarray], comp: "_Completions | None" = None,
               root: "np.ndarray | None" = None) -> "np.ndarray | None":
    """``term(c)`` for every case ``c`` of ``root`` (``int64`` case ids; default all 1680), as
    ``int64[1680]`` (0 elsewhere): the tuples of one hole of each of ``holes`` and one case of each
    of ``coarse`` (whose :class:`_Completions` ``comp`` may be given), pairwise disjoint and
    disjoint from ``c``. ``None`` when this way would be slow (a large class tensor, many profiles
    or tuples of holes).

    The tuples of holes are grouped by profile ``v``; ``G(profile(c) + v)`` comes from
    :meth:`_Completions.table`; then one group (every superset of the coarse players the full set,
    or none of them) of three players' holes is counted by :func:`_triples_avoiding`, one of four
    by :func:`quadruples_avoiding` (a fixed cost, :data:`QUAD_STEPS`), one of two or four players'
    holes met in the middle (:func:`pi_env.solvers.joint_tuples.listed_stats`), each when that is
    cheaper than the ways after it and than enumerating the tuples; otherwise the tuples are enumerated once, weighted
    (:func:`_weighted_avoiding`).

    Raises:
        PIError: (from :meth:`_Completions.table`) more than 4 coarse players.
    """
    m = len(holes)
    lists = [np.flatnonzero(h).astype(np.int64) for h in holes]
    out = np.zeros(NUM_CASES, dtype=np.int64)
    root = np.arange(NUM_CASES, dtype=np.int64) if root is None else np.asarray(root, dtype=np.int64)
    if any(x.size == 0 for x in lists) or root.size == 0:
        return out
    if comp is None:
        comp = _Completions(coarse)
    if not comp.ok:
        return None
    cls = comp.case_classes()
    base = m + 2  # counts per class of a tuple of holes and the root's case: at most m + 1
    if base ** comp.n_classes >= 2**62:
        return None
    radix = base ** np.arange(comp.n_classes, dtype=np.int64)
    codes = radix[cls].sum(axis=1)  # int64[1680]: a case's profile code
    profiles = np.zeros(1, dtype=np.int64)
    for lst in lists:  # every sum of codes of one case per player (disjoint or not)
        profiles = np.unique((profiles[:, None] + np.unique(codes[lst])[None, :]).ravel())
        if profiles.size > MAX_PROFILES:
            return None
    # the root's class triples, numbered densely: k = (class_s * n_e + class_e) * n_l + class_l
    n_s, n_e, n_l = (int(x) for x in comp.counts)
    elem_k = np.concatenate([comp.labels[0, :12] * (n_e * n_l), comp.labels[1, :10] * n_l, comp.labels[2, :14]])
    case_k = elem_k[CASE_TYPE_INDICES[:, 0]] + elem_k[12 + CASE_TYPE_INDICES[:, 1]] + elem_k[22 + CASE_TYPE_INDICES[:, 2]]
    k_s, k_e, k_l = np.meshgrid(np.arange(n_s), np.arange(n_e), np.arange(n_l), indexing="ij")
    triples = (radix[k_s.ravel()] + radix[comp.offsets[1] + k_e.ravel()] + radix[comp.offsets[2] + k_l.ravel()])
    # per type, the distinct used counts u_t of (profile + class triple): no carries, so per type
    # the digits of the codes add
    maps, rows, cols, used = [], [], [], []
    for t in range(3):
        lo, n = int(comp.offsets[t]), int(comp.counts[t])
        up, ip = np.unique((profiles // base ** lo) % base ** n, return_inverse=True)
        ut, it = np.unique((triples // base ** lo) % base ** n, return_inverse=True)
        sums = up[:, None] + ut[None, :]
        uniq = np.unique(sums)
        maps.append(np.searchsorted(uniq, sums).astype(np.int64))  # (type-t part of v, of k) -> u_t
        rows.append(ip.ravel().astype(np.int64))
        cols.append(it.ravel().astype(np.int64))
        used.append((uniq[:, None] // base ** np.arange(n, dtype=np.int64)[None, :]) % base)
    table_cost = comp.table_cost([u.shape[0] for u in used])
    enum_cost = _tuples_estimate([x.size for x in lists]) * (m + 1) ** 3 + profiles.size * root.size * 8
    one_group = profiles.size == 1 and m >= 2
    if table_cost > MAX_TABLE_STEPS or (enum_cost > TUPLE_STEPS and not one_group):
        return None
    g = _gather(comp.table(used), maps[0], maps[1], maps[2], np.stack(rows), np.stack(cols))  # int64[V, n_trip]
    if one_group and m == 3:  # three lists: by element sets (l1 x l2 and l3 the longest, fewest steps)
        l1, l2, l3 = sorted(lists, key=len)
        if float(l1.size) * l2.size + l3.size * (17_000 + 8.0 * root.size) < min(enum_cost, listed_cost([x.size for x in lists])):
            out[root] = _triples_avoiding(l1, l2, l3, root, CASE_TYPE_INDICES, LATTICE_UNIONS) * g[0, case_k[root]]
            return out
    if one_group and m == 4:  # four lists: by element sets (fixed cost) when meeting in the middle costs more
        sizes = sorted(x.size for x in lists)
        quad_cost = QUAD_STEPS + 10.0 * (sizes[0] * sizes[3] + sizes[1] * sizes[2])
        if quad_cost < min(enum_cost, listed_cost(sizes)):
            out[root] = quadruples_avoiding(lists, root) * g[0, case_k[root]]
            return out
    if one_group and listed_cost([x.size for x in lists]) < enum_cost:  # meet in the middle
        stats = listed_stats(lists)  # (at the cheapest cut; progress shown when long)
        out[root] = avoiding(*stats)[0, root] * g[0, case_k[root]]
        return out
    cases, offsets, masks = packed(sorted(lists, key=len))
    vals, done = _weighted_avoiding(cases, offsets, masks, CASE_TYPE_INDICES, codes, profiles, g,
                                    np.ascontiguousarray(g.T), elem_k, case_k, root, TUPLE_STEPS)
    if not done:  # pragma: no cover (the estimate is an upper bound)
        return None
    out[root] = vals
    return out


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
        PIError: wrong shapes, more than 4 unknown players, or a superset that is not one.
    """
    own = np.asarray(own, dtype=bool)
    sets = [np.asarray(o, dtype=bool) for o in others]
    sups = [np.asarray(a, dtype=bool) for a in supersets]
    if own.shape != (NUM_CASES,) or any(s.shape != (NUM_CASES,) for s in sets):
        raise PIError("case sets must be bool[1680]")
    if len(sets) > 4:
        raise PIError(f"at most 4 unknown players, got {len(sets)}")
    if len(sups) != len(sets) or any(a.shape != (NUM_CASES,) for a in sups):
        raise PIError("supersets: one bool[1680] per unknown player")
    if any((s & ~a).any() for s, a in zip(sets, sups)):
        raise PIError("supersets: each must contain the player's set")
    holes = [a & ~s for a, s in zip(sups, sets)]
    split = [j for j in range(len(sets)) if holes[j].any()]
    total = np.zeros(NUM_CASES, dtype=np.int64)
    own_cases = np.flatnonzero(own).astype(np.int64)
    too_many: list[frozenset[int]] = []  # coarse groups whose class tensor was too large
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
        if not any(k <= outside for k in too_many):  # (more coarse players: a larger tensor)
            comp = _Completions(coarse)
            if comp.ok:
                found = _hole_term([holes[j] for j in sorted(inside)], coarse, comp, own_cases)
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
    table (fast to build: coarse sets; a player whose holes take at least half of its superset is
    drawn from its own set) and keeps those whose every case lies in its player's set — exactly
    uniform over the consistent worlds — when at least :data:`MIN_ACCEPTANCE` of them are kept,
    else it is the dynamic programme's table of ``sets``.

    Args:
        sets: ``bool[k, 1680]``, ``1 <= k <= 5``, the root first.
        supersets: ``bool[k, 1680]``, each row a superset of the row of ``sets``.
        sampling: keep what :meth:`~pi_env.solvers.joint.JointTable.sample` needs.

    Returns:
        A :class:`~pi_env.solvers.joint.JointTable` with the same counts as ``joint_table(sets)``.

    Raises:
        PIError: wrong shapes, or a superset that is not one.
    """
    arr = np.ascontiguousarray(np.asarray(sets, dtype=bool))
    sup = np.ascontiguousarray(np.asarray(supersets, dtype=bool))
    if arr.ndim != 2 or arr.shape[1] != NUM_CASES or not 1 <= arr.shape[0] <= 5 or sup.shape != arr.shape:
        raise PIError(f"sets and supersets must be bool[k, {NUM_CASES}] with 1 <= k <= 5, got shapes "
                         f"{arr.shape} and {sup.shape}")
    if (arr & ~sup).any():
        raise PIError("supersets: each must contain the player's set")
    counts = count_joint_split(arr[0], list(arr[1:]), list(sup[1:]))
    assert counts is not None  # (with fallback, always)
    total = int(counts.sum())
    root_cases = np.flatnonzero(counts)
    proposal = None
    if sampling and total > 0:
        # a player whose holes take at least half of its superset is drawn from its own set (few
        # cases left: still a small dynamic programme, and far fewer draws rejected)
        prop = sup.copy()
        emptied = 2 * arr.sum(axis=1) <= sup.sum(axis=1)
        prop[emptied] = arr[emptied]
        proposal = joint_table(prop, sampling=True)
        if total < MIN_ACCEPTANCE * proposal.total:
            return joint_table(arr, sampling=True)
    return JointTable(counts, total, arr.shape[0], (), 0, root_cases, np.cumsum(counts[root_cases]),
                      None, "split", _proposal=proposal, _accept=arr if proposal is not None else None)
