"""The joint counting of pi-env 0.1 (before the current counting of the slowest positions), kept as the baseline of
``benchmarks/joint_worst_case.py``: the benchmark times it in the same run as the current
:func:`pi_env.solvers.joint.count_joint` and checks that both give the same counts.

Unchanged but for a time cap and the project's kernel decorator: with 4 unknown players it loops
over the cases of the smallest set (seconds to a minute); :func:`count_joint_capped` stops that
loop after ``cap_seconds`` and extrapolates the time from the cases done. The original module
docstring follows.

Exact counting of joint deals (docs/rules.md §3, §9).

Given the case set of the asking player p and the case sets of the *unknown* players (everyone but
p and, when p holds its case, p+1), :func:`count_joint` returns for every case c of p the number of
ways to give the unknown players pairwise-disjoint cases from their sets, all disjoint from c.
Under the uniform deal prior the posterior is uniform over these joint assignments, so
``P(c) = counts[c] / counts.sum()``.

Method (fixed cost, independent of how large the sets are). Split the players into a left group L
that contains p and a right group R of one or two unknown players:

1. enumerate the valid (pairwise-disjoint) tuples of R and histogram them by the *element sets
   they use per type* — a tensor over (suspect subset, evidence subset, location subset) with
   subsets of size |R| (at most ``12 x 10 x 14`` for one player, ``66 x 45 x 91`` unordered pairs
   for two; only elements that occur in some set are indexed, so late in a round it is tiny);
2. turn that histogram, one type axis at a time, into "number of R tuples disjoint from this
   subset" for subsets of size |L| (a linear map per axis: disjointness is per type);
3. enumerate the valid tuples of L (p alone, or p and one unknown player) and look their used
   subsets up.

For 5 players (3 unknown players besides p) this costs at most about 2 x 1680^2 simple steps plus
a few linear passes over the histogram. Counts are exact integers (int64; intermediate tables hold
at most 1680^2 and fit int32). Only with 4 unknown players (5 players and p's held case unknown)
does it fall back to looping over one player's cases.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
import time

from pi_env.core._config import kernel

from pi_env.core.constants import NUM_CASES

from pi_env.solvers.tables import CASE_ELEMENT_MASKS

_DEADLINE: list = [None]  # process_time (CPU seconds) at which the loop over cases stops
_CAPPED: list = [None]  # extrapolated seconds of the loop when it was stopped

_CASE_TYPE_INDEX = np.stack([np.arange(NUM_CASES) // 140, (np.arange(NUM_CASES) // 14) % 10,
                             np.arange(NUM_CASES) % 14]).astype(np.int64)  # [3, 1680]


@lru_cache(maxsize=None)
def _pair_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For ``n`` elements: ``int64[n, n]`` index of each unordered pair (``-1`` on the diagonal) and
    ``int64[n(n-1)/2, 2]`` the pairs in that order."""
    index = -np.ones((n, n), dtype=np.int64)
    pairs = np.array(list(combinations(range(n), 2)), dtype=np.int64).reshape(-1, 2)
    for k, (a, b) in enumerate(pairs):
        index[a, b] = index[b, a] = k
    return index, pairs


@kernel
def _n_subsets(size, n):
    return n if size == 1 else n * (n - 1) // 2


@kernel
def _transform_rows(f, left, right, pairs, n):
    """Disjointness transform along axis 0 of ``f`` (``int64[#right-subsets, M]``) for a type with
    ``n`` elements. Returns ``int64[#left-subsets, M]`` with ``out[V] = sum of f[P] over
    right-subsets P disjoint from the left-subset V`` — by inclusion-exclusion: the total, minus the
    subsets meeting each element of V, plus those containing both (``pairs[k]`` = k-th pair)."""
    rows, m = f.shape
    total = np.zeros(m, dtype=np.int64)
    for i in range(rows):
        for j in range(m):
            total[j] += f[i, j]
    out = np.empty((_n_subsets(left, n), m), dtype=np.int64)
    if right == 1:  # then left == 1
        for x in range(n):
            for j in range(m):
                out[x, j] = total[j] - f[x, j]
        return out
    degree = np.zeros((n, m), dtype=np.int64)
    for k in range(rows):
        a = pairs[k, 0]
        b = pairs[k, 1]
        for j in range(m):
            degree[a, j] += f[k, j]
            degree[b, j] += f[k, j]
    if left == 1:
        for x in range(n):
            for j in range(m):
                out[x, j] = total[j] - degree[x, j]
        return out
    for k in range(rows):
        a = pairs[k, 0]
        b = pairs[k, 1]
        for j in range(m):
            out[k, j] = total[j] - degree[a, j] - degree[b, j] + f[k, j]
    return out


@kernel
def _transform3(hist, left, right, pairs_s, pairs_e, pairs_l, ns, ne, nl):
    """Apply :func:`_transform_rows` along the three type axes of ``hist``."""
    a, b, c = hist.shape
    a2 = _n_subsets(left, ns)
    b2 = _n_subsets(left, ne)
    c2 = _n_subsets(left, nl)
    t0 = _transform_rows(hist.reshape(a, b * c), left, right, pairs_s, ns).reshape(a2, b, c)
    t1 = np.empty((a2, b2, c), dtype=np.int64)
    for i in range(a2):
        t1[i] = _transform_rows(np.ascontiguousarray(t0[i]), left, right, pairs_e, ne)
    t2 = _transform_rows(np.ascontiguousarray(t1.reshape(a2 * b2, c).T), left, right, pairs_l, nl)
    return np.ascontiguousarray(t2.T).reshape(a2, b2, c2)


@kernel
def _pair_histogram(xs, ys, masks, cs, ce, cl, ps, pe, pl):
    """Histogram (``uint8[#s-pairs, #e-pairs, #l-pairs]``) of the disjoint pairs (x in xs, y in ys)
    over their per-type unordered element pairs (compact indices ``cs/ce/cl``, pair tables
    ``ps/pe/pl``)."""
    ds = ps.shape[0] * (ps.shape[0] - 1) // 2
    de = pe.shape[0] * (pe.shape[0] - 1) // 2
    dl = pl.shape[0] * (pl.shape[0] - 1) // 2
    hist = np.zeros(ds * de * dl, dtype=np.uint8)  # at most 2^3 ordered pairs per bin; fits in cache
    ny = ys.shape[0]
    ym = np.empty(ny, dtype=np.int64)
    y_s = np.empty(ny, dtype=np.int64)
    y_e = np.empty(ny, dtype=np.int64)
    y_l = np.empty(ny, dtype=np.int64)
    for j in range(ny):
        ym[j] = masks[ys[j]]
        y_s[j] = cs[ys[j]]
        y_e[j] = ce[ys[j]]
        y_l[j] = cl[ys[j]]
    for i in range(xs.shape[0]):
        x = xs[i]
        mx = masks[x]
        row_s = ps[cs[x]]
        row_e = pe[ce[x]]
        row_l = pl[cl[x]]
        for j in range(ny):
            if mx & ym[j]:
                continue
            hist[(row_s[y_s[j]] * de + row_e[y_e[j]]) * dl + row_l[y_l[j]]] += 1
    return hist.reshape((ds, de, dl))


@kernel
def _lookup_singles(p_cases, table, cs, ce, cl):
    out = np.empty(p_cases.shape[0], dtype=np.int64)
    for i in range(p_cases.shape[0]):
        c = p_cases[i]
        out[i] = table[cs[c], ce[c], cl[c]]
    return out


@kernel
def _lookup_pairs(p_cases, xs, table, masks, cs, ce, cl, ps, pe, pl):
    """For each c in p_cases: sum over x in xs disjoint from c of table[pair(c, x)]."""
    de = table.shape[1]
    dl = table.shape[2]
    flat = table.reshape(-1)
    nx = xs.shape[0]
    xm = np.empty(nx, dtype=np.int64)
    x_s = np.empty(nx, dtype=np.int64)
    x_e = np.empty(nx, dtype=np.int64)
    x_l = np.empty(nx, dtype=np.int64)
    for j in range(nx):
        xm[j] = masks[xs[j]]
        x_s[j] = cs[xs[j]]
        x_e[j] = ce[xs[j]]
        x_l[j] = cl[xs[j]]
    out = np.zeros(p_cases.shape[0], dtype=np.int64)
    for i in range(p_cases.shape[0]):
        c = p_cases[i]
        mc = masks[c]
        row_s = ps[cs[c]]
        row_e = pe[ce[c]]
        row_l = pl[cl[c]]
        acc = 0
        for j in range(nx):
            if mc & xm[j]:
                continue
            acc += flat[(row_s[x_s[j]] * de + row_e[x_e[j]]) * dl + row_l[x_l[j]]]
        out[i] = acc
    return out


@kernel
def _restrict(cases, masks, used):
    keep = np.zeros(cases.shape[0], dtype=np.bool_)
    for i in range(cases.shape[0]):
        keep[i] = (masks[cases[i]] & used) == 0
    return cases[keep]


class _Compact:
    """Per-type compact indices of the elements that occur in some case of the given lists
    (at least 3 per type, padding with unused indices, so pair subsets always exist)."""

    def __init__(self, lists: list[np.ndarray]):
        every = np.unique(np.concatenate(lists))
        self.sizes = []
        self.index = []  # per type, int64[1680]: compact index of each case's element
        self.pair_index = []
        self.pairs = []
        for t in range(3):
            active = np.unique(_CASE_TYPE_INDEX[t, every])
            full = np.zeros(14, dtype=np.int64)
            full[active] = np.arange(active.size)
            n = max(int(active.size), 3)
            self.sizes.append(n)
            self.index.append(full[_CASE_TYPE_INDEX[t]])
            index, pairs = _pair_tables(n)
            self.pair_index.append(index)
            self.pairs.append(pairs)

    def transform(self, hist: np.ndarray, left: int, right: int) -> np.ndarray:
        """Per-type disjointness transform of a histogram over right-subsets (size ``right`` per
        type) into counts of right tuples disjoint from each left-subset (size ``left``)."""
        return _transform3(np.ascontiguousarray(hist), left, right, *self.pairs, *self.sizes)

    def single_histogram(self, xs: np.ndarray) -> np.ndarray:
        hist = np.zeros(tuple(self.sizes), dtype=np.int64)
        hist[self.index[0][xs], self.index[1][xs], self.index[2][xs]] = 1
        return hist

    @property
    def args(self) -> tuple:
        return (CASE_ELEMENT_MASKS, *self.index, *self.pair_index)


def _counts(p_cases: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    m = len(others)
    if p_cases.size == 0:
        return np.zeros(0, dtype=np.int64)
    if any(o.size == 0 for o in others):
        return np.zeros(p_cases.size, dtype=np.int64)
    if m == 0:
        return np.ones(p_cases.size, dtype=np.int64)
    if m >= 4:  # loop over the cases of the smallest set
        k = min(range(m), key=lambda i: others[i].size)
        rest = [o for i, o in enumerate(others) if i != k]
        out = np.zeros(p_cases.size, dtype=np.int64)
        start = time.process_time()
        for i, c in enumerate(others[k]):
            if _DEADLINE[0] is not None and time.process_time() > _DEADLINE[0]:
                _CAPPED[0] = (time.process_time() - start) * others[k].size / max(i, 1)
                return out
            used = CASE_ELEMENT_MASKS[c]
            keep = (CASE_ELEMENT_MASKS[p_cases] & used) == 0
            out[keep] += _counts(p_cases[keep], [_restrict(o, CASE_ELEMENT_MASKS, used) for o in rest])
        return out
    comp = _Compact([p_cases] + others)
    if m == 1:
        table = comp.transform(comp.single_histogram(others[0]), 1, 1)
        return _lookup_singles(p_cases, table, *comp.index)
    if m == 2:
        table = comp.transform(_pair_histogram(others[0], others[1], *comp.args), 1, 2)
        return _lookup_singles(p_cases, table, *comp.index)
    # m == 3: the unknown player joining p is the one making the two enumerations cheapest
    sizes = [o.size for o in others]
    best = min(range(3), key=lambda i: p_cases.size * sizes[i] + np.prod([sizes[j] for j in range(3) if j != i]))
    y, z = (others[j] for j in range(3) if j != best)
    table = comp.transform(_pair_histogram(y, z, *comp.args), 2, 2)
    # entries count pairs, at most 1680^2 < 2^31: int32 halves the memory traffic of the lookups
    return _lookup_pairs(p_cases, others[best], table.astype(np.int32), *comp.args)


def count_joint(own: np.ndarray, others: "list[np.ndarray]") -> np.ndarray:
    """Number of joint assignments per case of the asking player.

    Args:
        own: ``bool[1680]``, the asking player's case set.
        others: one ``bool[1680]`` per unknown player (at most 4), its case set.

    Returns:
        ``int64[1680]``: ``counts[c]`` = number of ways to give each unknown player a case from its
        set such that all these cases and ``c`` are pairwise disjoint per type; 0 outside ``own``.
        The callers' sets must already exclude the elements of known cases.

    Raises:
        ValueError: wrong shapes or more than 4 unknown players.
    """
    own = np.asarray(own, dtype=bool)
    if own.shape != (NUM_CASES,) or any(np.shape(o) != (NUM_CASES,) for o in others):
        raise ValueError("case sets must be bool[1680]")
    if len(others) > 4:
        raise ValueError(f"at most 4 unknown players, got {len(others)}")
    p_cases = np.flatnonzero(own).astype(np.int64)
    lists = [np.flatnonzero(np.asarray(o, dtype=bool)).astype(np.int64) for o in others]
    out = np.zeros(NUM_CASES, dtype=np.int64)
    out[p_cases] = _counts(p_cases, lists)
    return out


def count_joint_capped(own: np.ndarray, others: "list[np.ndarray]", cap_seconds: float
                       ) -> "tuple[np.ndarray, float, bool]":
    """:func:`count_joint` stopped after about ``cap_seconds``: ``(counts, seconds, finished)``; when
    not finished, ``seconds`` is extrapolated and the counts are partial."""
    _DEADLINE[0] = time.process_time() + cap_seconds
    _CAPPED[0] = None
    t0 = time.process_time()
    try:
        counts = count_joint(own, others)
    finally:
        _DEADLINE[0] = None
    elapsed = time.process_time() - t0
    if _CAPPED[0] is not None:
        return counts, max(_CAPPED[0], elapsed), False
    return counts, elapsed, True
