"""Statistics of pairwise-disjoint tuples of listed cases, and counts from them (docs/rules.md §3, §9).

Given one list of cases per player (``int64`` case ids), the *statistics* of the pairwise-disjoint
tuples (one case of each list; no two share a suspect, an evidence or a location) are

* ``T``: their number;
* ``A int64[36]``: how many use each element (numbered 0..35: suspects, evidences from 12,
  locations from 22);
* ``B int64[36, 36]``: how many use both of two elements (meaningful for different types);
* ``C int64[12, 10, 14]``: how many use a suspect, an evidence and a location.

A disjoint tuple uses an element at most once, so the tuples disjoint from a case ``c = (s, e,
l)`` number ``T - A[s] - A[e] - A[l] + B[s, e] + B[s, l] + B[e, l] - C[s, e, l]`` (inclusion–
exclusion over ``c``'s three elements, :func:`avoiding`): with the other players' sets as the lists
this is the exact joint count of every root case at once (:func:`count_listed`), whatever the
sets' structure — the dynamic programme of :mod:`pi_env.solvers.joint` needs coarse sets, this
needs small ones.

The statistics come from

* enumerating the tuples (:func:`tuple_stats`; optionally grouped by a *profile*, used by
  :mod:`pi_env.solvers.joint_holes`), or
* meeting in the middle (:func:`mitm_stats`): the tuples are pairs ``(P, Q)`` of a tuple ``P`` of
  one or two of the lists and a tuple ``Q`` of the others, disjoint; per ``P`` the number of ``Q``
  disjoint from it and how many of those use each element (bitsets over the lists: ANDs and
  popcounts), and the same per ``Q``, give every statistic without visiting the tuples one by one.
  Its cost (:func:`listed_cost`) is about the product of the lists' sizes over 8 machine steps plus
  a few hundred per tuple of each side; the side with many objects runs in chunks, so a long run
  shows progress (:mod:`tqdm`, from :data:`PROGRESS_STEPS` steps) and stops cleanly on Ctrl-C
  between two chunks.

All counts are exact ``int64``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable

import numpy as np

from pi_env.core._config import kernel
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES
from pi_env.solvers.tables import CASE_ELEMENT_MASKS

CASE_TYPE_INDICES = np.ascontiguousarray(CASE_TRIPLES, dtype=np.int64)  # int64[1680, 3]: (s, e, l)
WORD = 32  # bits per word of the bitsets over a list (kept in int64: no overflow anywhere)
DEBRUIJN32 = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27, 13, 23, 21, 19, 16, 7, 26,
                       12, 18, 6, 11, 5, 10, 9], dtype=np.int64)  # bit index of a power of two (de Bruijn)
CHUNK = 8192  # at most this many objects per call of the side kernel (Ctrl-C and progress between calls)
CHUNK_STEPS = 3e7  # and about this many estimated steps (some tens of milliseconds)
PROGRESS_STEPS = 2e9  # estimated steps from which meeting in the middle shows a progress bar
STATS_STEPS_PER_OBJECT = 400  # steps of _side_stats per tuple of a side (two cases per type)


# ---------------------------------------------------------------------------------------------
# walking the disjoint tuples


@kernel
def _disjoint_tuples(cases, offsets, masks, limit):
    """Every tuple (one case of each list ``cases[offsets[i]:offsets[i+1]]``) pairwise disjoint:
    ``(int64[N, m] cases, int64[N] element masks, done)``; ``m = 0`` gives the one empty tuple.
    More than ``limit`` tuples: ``done`` False (and the first ``limit``)."""
    m = offsets.shape[0] - 1
    cap = 1
    for i in range(m):
        cap = min(cap * (offsets[i + 1] - offsets[i]), limit)
    out = np.zeros((max(cap, 1), max(m, 1)), dtype=np.int64)
    out_mask = np.zeros(max(cap, 1), dtype=np.int64)
    if m == 0:
        return out[:1, :0].copy(), out_mask[:1].copy(), True
    n = 0
    chosen = np.zeros(m, dtype=np.int64)
    next_j = np.zeros(m, dtype=np.int64)
    used = np.zeros(m + 1, dtype=np.int64)
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
            level += 1
            next_j[level] = offsets[level]
            continue
        if n == cap:
            return out[:n].copy(), out_mask[:n].copy(), False
        out[n] = chosen
        out_mask[n] = used[level] | mj
        n += 1
    return out[:n].copy(), out_mask[:n].copy(), True


@kernel
def _tuple_stats(cases, offsets, masks, triples, codes, profiles, budget):
    """Statistics (module docstring) of the pairwise-disjoint tuples of the lists
    ``cases[offsets[i]:offsets[i+1]]``, enumerated, per profile: a tuple's profile is the sum of
    its cases' ``codes`` (``int64[1680]``), found in the sorted ``profiles`` (``int64[V]``).
    Returns ``(T int64[V], A int64[V, 36], B int64[V, 36, 36], C int64[V, 12, 10, 14], steps,
    done)``; gives up past ``budget`` steps (``done`` False; a tuple costs ``m**3`` steps)."""
    m = offsets.shape[0] - 1
    nv = profiles.shape[0]
    t_ = np.zeros(nv, dtype=np.int64)
    a = np.zeros((nv, 36), dtype=np.int64)
    b = np.zeros((nv, 36, 36), dtype=np.int64)
    c = np.zeros((nv, 12, 10, 14), dtype=np.int64)
    el = np.zeros((3, max(m, 1)), dtype=np.int64)
    if m == 0:
        t_[np.searchsorted(profiles, 0)] = 1
        return t_, a, b, c, 0, True
    tuples, _, done = _disjoint_tuples(cases, offsets, masks, budget // (m * m * m) + 1)
    if not done:
        return t_, a, b, c, budget + 1, False
    steps = 0
    for i in range(tuples.shape[0]):
        code = 0
        for x in range(m):
            code += codes[tuples[i, x]]
        v = np.searchsorted(profiles, code)
        steps += m * m * m
        if steps > budget:
            return t_, a, b, c, steps, False
        t_[v] += 1
        for x in range(m):
            el[0, x] = triples[tuples[i, x], 0]
            el[1, x] = triples[tuples[i, x], 1] + 12
            el[2, x] = triples[tuples[i, x], 2] + 22
        for t in range(3):
            for x in range(m):
                a[v, el[t, x]] += 1
        for x in range(m):
            for y in range(m):
                b[v, el[0, x], el[1, y]] += 1
                b[v, el[0, x], el[2, y]] += 1
                b[v, el[1, x], el[2, y]] += 1
                for z in range(m):
                    c[v, el[0, x], el[1, y] - 12, el[2, z] - 22] += 1
    return t_, a, b, c, steps, True


def avoiding(t_: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``int64[V, 1680]``: per group of tuples (statistics ``T int64[V]``, ``A int64[V, 36]``, ``B
    int64[V, 36, 36]``, ``C int64[V, 12, 10, 14]``), the tuples disjoint from each case ``(s, e,
    l)``, by inclusion–exclusion over the case's three elements."""
    s, e, loc = CASE_TYPE_INDICES[:, 0], CASE_TYPE_INDICES[:, 1] + 12, CASE_TYPE_INDICES[:, 2] + 22
    return (t_[:, None] - a[:, s] - a[:, e] - a[:, loc] + b[:, s, e] + b[:, s, loc] + b[:, e, loc]
            - c.reshape(c.shape[0], -1))


def packed(lists: "list[np.ndarray]") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cases, offsets, masks)``: the lists one after the other, as the kernels take them."""
    offsets = np.cumsum([0] + [x.size for x in lists]).astype(np.int64)
    cases = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
    return cases.astype(np.int64), offsets, CASE_ELEMENT_MASKS


# ---------------------------------------------------------------------------------------------
# meeting in the middle with bitsets


@kernel
def _popcount32(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@kernel
def _bitsets(lst, triples, against):
    """Bitsets over the cases of ``lst`` (``int64[n]``, words of 32 bits): ``free[x]`` the cases not
    using element ``x`` (``int64[36, W]``), ``fits[i]`` the cases disjoint from ``against[i]``
    (``int64[len(against), W]``)."""
    n = lst.shape[0]
    nw = (n + WORD - 1) // WORD
    free = np.zeros((36, nw), dtype=np.int64)
    fits = np.zeros((against.shape[0], nw), dtype=np.int64)
    offs = (0, 12, 22)
    for x in range(36):
        for i in range(n):
            free[x, i // WORD] |= 1 << (i % WORD)
    for i in range(n):
        for t in range(3):
            free[triples[lst[i], t] + offs[t], i // WORD] &= ~(1 << (i % WORD))
    for a in range(against.shape[0]):
        for i in range(n):
            ok = True
            for t in range(3):
                if triples[lst[i], t] == triples[against[a], t]:
                    ok = False
            if ok:
                fits[a, i // WORD] |= 1 << (i % WORD)
    return free, fits


@kernel
def _free_of(free, el, out):
    """``out``: the bitset of the cases (of ``free``'s list) disjoint from an object with the
    elements ``el`` (``int64[3, w]``)."""
    w = el.shape[1]
    for k in range(out.shape[0]):
        v = free[el[0, 0], k] if w > 0 else -1
        for t in range(3):
            for u in range(w):
                v &= free[el[t, u], k]
        out[k] = v & 0xFFFFFFFF


@kernel
def _weigh(words, lst, fits, other, pair, a_row, triples, debruijn):
    """For each case ``j`` of ``lst`` in the bitset ``words``: its weight (1, or with ``pair`` the
    number of cases in ``other & fits[j]``) added to ``a_row`` at its three elements. Returns the
    sum of the weights."""
    total = 0
    for k in range(words.shape[0]):
        m = words[k]
        while m != 0:
            low = m & -m
            j = k * WORD + debruijn[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]
            m ^= low
            cnt = 1
            if pair:
                cnt = 0
                for kk in range(other.shape[0]):
                    cnt += _popcount32(other[kk] & fits[j, kk])
            if cnt == 0:
                continue
            total += cnt
            c = lst[j]
            a_row[triples[c, 0]] += cnt
            a_row[triples[c, 1] + 12] += cnt
            a_row[triples[c, 2] + 22] += cnt
    return total


@kernel
def _side_counts(obj_el, x_list, x_free, y_list, y_free, x_fits_y, y_fits_x, triples, debruijn):
    """Per object ``P`` (``obj_el int64[N, 3, w]``: its elements 0..35 per type), the tuples ``Q`` of
    the other side disjoint from it: ``n int64[N]`` their number and ``a int64[N, 36]`` how many
    of them use each element. The other side is one list ``x_list`` (``y_list`` empty) or the
    disjoint pairs of ``x_list`` and ``y_list``; ``*_free`` are their :func:`_bitsets`
    (``x_fits_y[j]``: the ``x`` disjoint from ``y_list[j]``, and conversely). Per ``P``: the ``x``
    and ``y`` disjoint from ``P`` (ANDs of bitsets), then for each such ``y`` the number of such
    ``x`` disjoint from it (a popcount), and conversely."""
    n_obj = obj_el.shape[0]
    n = np.zeros(n_obj, dtype=np.int64)
    a = np.zeros((n_obj, 36), dtype=np.int64)
    cx = np.empty(x_free.shape[1], dtype=np.int64)
    cy = np.empty(y_free.shape[1], dtype=np.int64)
    pair = y_list.shape[0] > 0
    for i in range(n_obj):
        _free_of(x_free, obj_el[i], cx)
        if not pair:
            n[i] = _weigh(cx, x_list, x_fits_y, cy, False, a[i], triples, debruijn)
            continue
        _free_of(y_free, obj_el[i], cy)
        n[i] = _weigh(cy, y_list, x_fits_y, cx, True, a[i], triples, debruijn)  # each y, weighted by its x
        _weigh(cx, x_list, y_fits_x, cy, True, a[i], triples, debruijn)  # each x, weighted by its y
    return n, a


@kernel
def _elements(tuples, triples):
    """``int64[N, 3, w]``: the elements (0..35) of each tuple of cases, per type."""
    out = np.zeros((tuples.shape[0], 3, tuples.shape[1]), dtype=np.int64)
    offs = (0, 12, 22)
    for i in range(tuples.shape[0]):
        for u in range(tuples.shape[1]):
            for t in range(3):
                out[i, t, u] = triples[tuples[i, u], t] + offs[t]
    return out


@kernel
def _side_stats(el, n_x, a_x, count_total, total, a, b, c):
    """Adds one side's share of the statistics of :func:`mitm_stats` to ``a, b, c`` (returns
    ``total`` plus the side's tuples when ``count_total``): per object with the elements ``el``
    (``int64[N, 3, w]``), ``n_x`` tuples of the other side disjoint from it, ``a_x[y]`` of them
    using ``y``. A statistic splits by the side each of its elements comes from, e.g. ``C[s, e,
    l]`` with ``s, e`` from this side and ``l`` from the other is ``sum over objects holding s, e of
    a_x[l]``; those with all elements on this side weigh ``n_x``."""
    w = el.shape[2]
    for i in range(n_x.shape[0]):
        nx = n_x[i]
        if count_total:
            total += nx
        if nx == 0:
            continue
        for t in range(3):
            for u in range(w):
                x = el[i, t, u]
                a[x] += nx
                for t2 in range(3):  # both elements on this side
                    for u2 in range(w):
                        b[x, el[i, t2, u2]] += nx
                for y in range(36):  # x on this side, y on the other
                    b[x, y] += a_x[i, y]
        for us in range(w):
            s = el[i, 0, us]
            for ue in range(w):
                e = el[i, 1, ue] - 12
                for ul in range(w):
                    c[s, e, el[i, 2, ul] - 22] += nx  # all three on this side
                for ll in range(14):  # s, e here, l on the other side
                    c[s, e, ll] += a_x[i, 22 + ll]
            for ul in range(w):  # s, l here, e on the other side
                loc = el[i, 2, ul] - 22
                for ee in range(10):
                    c[s, ee, loc] += a_x[i, 12 + ee]
        for ue in range(w):  # e, l here, s on the other side
            e = el[i, 1, ue] - 12
            for ul in range(w):
                loc = el[i, 2, ul] - 22
                for ss in range(12):
                    c[ss, e, loc] += a_x[i, ss]
    return total


def _words(n: int) -> int:
    return (n + WORD - 1) // WORD


def _side_cost(n_objects: float, w: int, other: "list[int]") -> float:
    """Estimated steps of one side: ``n_objects`` tuples of ``w`` cases against the lists of sizes
    ``other``."""
    if len(other) == 1:
        per = 3 * w * _words(other[0]) + other[0] * 4
    else:
        x, y = other
        per = 3 * w * (_words(x) + _words(y)) + y * (_words(x) + 4) + x * (_words(y) + 4)
    return n_objects * (per + STATS_STEPS_PER_OBJECT)


def _splits(m: int) -> "list[tuple[tuple[int, ...], tuple[int, ...]]]":
    """The ways to cut ``m`` (2..4) lists in two sides of one or two lists."""
    idx = tuple(range(m))
    out = []
    for r in (1, 2):
        for side in combinations(idx, r):
            rest = tuple(i for i in idx if i not in side)
            if 1 <= len(rest) <= 2:
                out.append((side, rest))
    return out


def _best_split(sizes: "list[int]") -> tuple[float, tuple[int, ...], tuple[int, ...]]:
    """The cheapest cut of the lists (sizes ``sizes``, 2..4 of them) for :func:`mitm_stats`:
    ``(estimated steps, one side, the other)``."""
    best: tuple[float, tuple[int, ...], tuple[int, ...]] = (float("inf"), (), ())
    for p, q in _splits(len(sizes)):
        n_p = float(np.prod([sizes[i] for i in p]))
        n_q = float(np.prod([sizes[i] for i in q]))
        cost = (_side_cost(n_p, len(p), [sizes[i] for i in q]) + _side_cost(n_q, len(q), [sizes[i] for i in p]))
        if cost < best[0]:
            best = (cost, p, q)
    return best


def listed_cost(sizes: "list[int]") -> float:
    """Estimated steps (about a nanosecond each) of the statistics of the disjoint tuples of lists
    of these sizes: enumeration for one list, else the cheapest :func:`mitm_stats` cut."""
    if len(sizes) <= 1:
        return float(sum(sizes)) * 30 + 1
    if len(sizes) > 4:
        return float("inf")
    return _best_split(list(sizes))[0]


def _side(objects: np.ndarray, other: "list[np.ndarray]", progress: "Callable[[int], None] | None"
          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_side_counts` of the tuples ``objects`` (``int64[N, w]``) against the tuples of the
    one or two lists ``other``, in chunks of at most :data:`CHUNK` objects and about
    :data:`CHUNK_STEPS` steps (``progress(done)`` after each)."""
    x = other[0]
    y = other[1] if len(other) > 1 else np.zeros(0, dtype=np.int64)
    x_free, x_fits_y = _bitsets(x, CASE_TYPE_INDICES, y)
    y_free, y_fits_x = _bitsets(y, CASE_TYPE_INDICES, x if y.size else y)
    el = _elements(objects, CASE_TYPE_INDICES)
    n = np.zeros(objects.shape[0], dtype=np.int64)
    a = np.zeros((objects.shape[0], 36), dtype=np.int64)
    per = _side_cost(1.0, objects.shape[1], [z.size for z in other])
    chunk = int(min(max(CHUNK_STEPS / per, 64), CHUNK))
    for lo in range(0, objects.shape[0], chunk):
        hi = min(lo + chunk, objects.shape[0])
        n[lo:hi], a[lo:hi] = _side_counts(el[lo:hi], x, x_free, y, y_free, x_fits_y, y_fits_x, CASE_TYPE_INDICES,
                                          DEBRUIJN32)
        if progress is not None:
            progress(hi - lo)
    return n, a


def mitm_stats(p_lists: "list[np.ndarray]", q_lists: "list[np.ndarray]", show_progress: bool = False
               ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Statistics (module docstring) of the pairwise-disjoint tuples of the lists ``p_lists +
    q_lists`` (one or two lists each, ``int64`` case ids), as pairs ``(P, Q)`` of a tuple of each
    side: ``(T, A int64[36], B int64[36, 36], C int64[12, 10, 14])``.

    Per ``P``: ``n_P`` (the ``Q`` disjoint from it) and ``a_P[y]`` (how many of them use ``y``);
    likewise per ``Q`` (:func:`_side_counts`); then :func:`_side_stats`. With ``show_progress`` a
    :mod:`tqdm` bar counts the objects done."""
    p_tuples, _, _ = _disjoint_tuples(*packed(p_lists), 1 << 40)
    q_tuples, _, _ = _disjoint_tuples(*packed(q_lists), 1 << 40)
    bar = None
    if show_progress:
        from tqdm import tqdm  # type: ignore[import-untyped]
        bar = tqdm(total=p_tuples.shape[0] + q_tuples.shape[0], desc="exact joint counts", unit="tuple",
                   leave=False, mininterval=0.5)
    try:
        n_p, a_p = _side(p_tuples, q_lists, bar.update if bar is not None else None)
        n_q, a_q = _side(q_tuples, p_lists, bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    a = np.zeros(36, dtype=np.int64)
    b = np.zeros((36, 36), dtype=np.int64)
    c = np.zeros((12, 10, 14), dtype=np.int64)
    total = _side_stats(_elements(p_tuples, CASE_TYPE_INDICES), n_p, a_p, True, 0, a, b, c)
    _side_stats(_elements(q_tuples, CASE_TYPE_INDICES), n_q, a_q, False, 0, a, b, c)
    return int(total), a, b, c


def listed_stats(lists: "list[np.ndarray]") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Statistics of the pairwise-disjoint tuples of ``lists`` (0 to 4 lists of ``int64`` case ids)
    as one group (``T int64[1]``, ``A int64[1, 36]``, ``B int64[1, 36, 36]``, ``C int64[1, 12, 10,
    14]``): enumerated for one list, else met in the middle at the cheapest cut
    (:func:`listed_cost`; a progress bar from :data:`PROGRESS_STEPS` estimated steps)."""
    if len(lists) <= 1:
        cases, offsets, masks = packed(lists)
        t_, a, b, c, _, _ = _tuple_stats(cases, offsets, masks, CASE_TYPE_INDICES, np.zeros(NUM_CASES, np.int64),
                                         np.zeros(1, np.int64), 1 << 62)
        return t_, a, b, c
    cost, p, q = _best_split([x.size for x in lists])
    t_, a, b, c = mitm_stats([lists[i] for i in p], [lists[i] for i in q], show_progress=cost >= PROGRESS_STEPS)
    return np.array([t_]), a[None], b[None], c[None]


def count_listed(root: np.ndarray, lists: "list[np.ndarray]") -> np.ndarray:
    """Exact joint counts from listed sets: ``int64[len(root)]``, per root case the pairwise-disjoint
    tuples of ``lists`` (at most 4 lists of ``int64`` case ids) disjoint from it
    (docs/rules.md §3, §9)."""
    if any(x.size == 0 for x in lists):
        return np.zeros(root.size, dtype=np.int64)
    return avoiding(*listed_stats(lists))[0, root]
