"""Exact joint counting by meeting in the middle: a fixed cost whatever the case sets' structure
(docs/rules.md §3, §9).

The fallback of :func:`pi_env.solvers.joint.joint_table` for at most three players besides the
root, used when its dynamic programme would be large (sets broken up by many failed solves, which
tell almost every element apart). This is the method of pi-env 0.1 (and of
``benchmarks/joint_baseline.py``, kept there unchanged as the speed baseline); the loop it used for
four other players is not here (the dynamic programme handles them).

Split the players into a left group L that contains the root and a right group R of one or two
other players:

1. enumerate the valid (pairwise-disjoint) tuples of R and histogram them by the *element sets
   they use per type* — a tensor over (suspect subset, evidence subset, location subset) with
   subsets of size |R| (at most ``12 x 10 x 14`` for one player, ``66 x 45 x 91`` unordered pairs
   for two; only elements that occur in some set are indexed);
2. turn that histogram, one type axis at a time, into "number of R tuples disjoint from this
   subset" for subsets of size |L| (a linear map per axis: disjointness is per type);
3. enumerate the valid tuples of L (the root alone, or with one other player) and look their used
   subsets up.

With three other players this costs at most about 2 x 1680^2 simple steps plus a few linear passes
over the histogram. Counts are exact (int64; the pair tables hold at most 1680^2 and fit int32).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES
from pi_env.solvers.tables import CASE_ELEMENT_MASKS

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


def mitm_steps(root_size: int, sizes: "list[int]") -> int:
    """About how many simple steps :func:`count_mitm` takes for a root with ``root_size`` cases and
    other players with ``sizes`` cases (the enumerations; the transforms cost less)."""
    m = len(sizes)
    if m <= 1:
        return root_size + sum(sizes)
    if m == 2:
        return root_size + sizes[0] * sizes[1]
    return min(root_size * sizes[i] + int(np.prod([sizes[j] for j in range(3) if j != i])) for i in range(3))


def count_mitm(root: np.ndarray, others: "list[np.ndarray]") -> np.ndarray:
    """Per root case, the number of ways to give each other player a case from its list, all
    pairwise disjoint per type and disjoint from the root's case.

    Args:
        root: ``int64[n]`` the root's case ids.
        others: at most three ``int64[m_q]`` case-id lists, one per other player.

    Returns:
        ``int64[n]``, aligned with ``root``.

    Raises:
        PIError: more than three other players.
    """
    m = len(others)
    if m > 3:
        raise PIError(f"count_mitm: at most 3 other players, got {m}")
    if root.size == 0:
        return np.zeros(0, dtype=np.int64)
    if any(o.size == 0 for o in others):
        return np.zeros(root.size, dtype=np.int64)
    if m == 0:
        return np.ones(root.size, dtype=np.int64)
    comp = _Compact([root] + list(others))
    if m == 1:
        table = comp.transform(comp.single_histogram(others[0]), 1, 1)
        return _lookup_singles(root, table, *comp.index)
    if m == 2:
        table = comp.transform(_pair_histogram(others[0], others[1], *comp.args), 1, 2)
        return _lookup_singles(root, table, *comp.index)
    # m == 3: the other player joining the root is the one making the two enumerations cheapest
    sizes = [o.size for o in others]
    best = min(range(3), key=lambda i: root.size * sizes[i] + int(np.prod([sizes[j] for j in range(3) if j != i])))
    y, z = (others[j] for j in range(3) if j != best)
    table = comp.transform(_pair_histogram(y, z, *comp.args), 2, 2)
    # entries count pairs, at most 1680^2 < 2^31: int32 halves the memory traffic of the lookups
    return _lookup_pairs(root, others[best], table.astype(np.int32), *comp.args)
