"""Exact counting and exact sampling of joint deals (docs/rules.md §3, §9).

Players hold pairwise-disjoint cases: no two share a suspect, an evidence or a location. Given a
case set per player (what each player's public answers, and the asking player's private facts,
allow), :func:`joint_table` counts, for every case ``c`` of the first player (the *root*), the
number of ways to give the other players pairwise-disjoint cases from their sets, all disjoint from
``c``. Under the uniform deal prior the posterior is uniform over these joint assignments, so
``P(root has c) = counts[c] / total``. The same table draws complete joint assignments exactly from
that posterior (:meth:`JointTable.sample`).

**Symmetry.** A player's case set tells apart only the elements its answers tell apart. Two
suspects ``x, y`` are *interchangeable* for a group of players if swapping them maps each of their
sets onto itself (the slices ``set[x, :, :]`` and ``set[y, :, :]`` are equal for every player of
the group); the interchangeable elements of a type form *classes*. For players still to choose an
element of a type, only the *number* of used elements in each of their classes matters, not which.

**Type by type.** Disjointness holds per element type, so the deal is built one type at a time:
first every player's element of type ``t1`` (the root's, then the others' in turn), then of ``t2``,
then of ``t3``. Each choice is a *site*. The state between two sites holds

* the numbers of used elements of the current type over the classes of the players still to
  choose it;
* per other player, which part of its case set its choices so far leave open (the slice of its set
  at the classes chosen: a *pending* value).

At site (q, t) player q picks a class ``a`` of type t allowed by its pending value, in
``size(a) - used(a)`` ways, and the counts are coarsened to the classes of the players still to
choose t. ``B(state)``, the number of completions, follows backwards from 1 at the end. The
root's choices are not summed: at its site the state branches into one state per class its set
takes, and ``B`` keeps one entry per class; so during the second type's stage ``B`` is a vector
over the root's classes of the third type, during the first type's stage a vector over its
(second, third) class pairs, and ``counts[c] = B(after the root's first choice)[the root's later
classes]`` for every ``c`` in the root's set.

The state stays small when each player's own set is simple — even when together the players tell
every element apart, the hard case for any method that tracks used elements — when the players'
joint classes are coarse (early in a round), and when the case sets are small (late in a round).
The type order is chosen by an estimate of the state's size (:func:`_site_orders`);
``benchmarks/joint_worst_case.py`` times the worst positions found by a search that maximised the
work, against the previous meet-in-the-middle method.

**When the state is not small.** Sets broken up by failed solves (each removes one case, telling
its three elements apart) are the hard case. For counts only, small positions are enumerated
directly (:func:`_enumerate`, bounded), and with at most three other players the dynamic programme
gives up once its work passes a share of what meeting in the middle costs
(:mod:`pi_env.solvers.joint_mitm`, a fixed cost), which then counts: together at most about twice
the cheaper of the two. With many failed solves (three or four other players: five players, or
four with the held case not given) :func:`pi_env.solvers.analyze_knowledge` counts by
inclusion–exclusion over the cases they named (:mod:`pi_env.solvers.joint_holes`): the sets
without the failed solves are coarse, the named cases few, and each term is counted from
statistics of the tuples of named cases (met in the middle) and falling factorials of the coarse
sets' classes; sampling there draws from the coarse sets' table and keeps the consistent worlds.

Counts are exact ``int64``: with at most five players the total is at most ``(12*11*10*9*8) *
(10*9*8*7*6) * (14*13*12*11*10)`` ~ 6.9e14 < 2^63, and every partial sum is a sub-count of it.

**Sampling.** The root's case with probability ``counts[c] / total``; then site by site a class
with probability ``ways * B(next) / B(current)`` (the root's entry of ``B``) and a uniformly chosen
unused element of that class: exactly the uniform distribution over the consistent joint
assignments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES
from pi_env.solvers.joint_mitm import count_mitm, mitm_steps
from pi_env.solvers.joint_tuples import CASE_TYPE_INDICES, count_listed, listed_cost
from pi_env.solvers.tables import CASE_ELEMENT_MASKS

TYPE_SIZES3 = np.array([12, 10, 14], dtype=np.int64)
MAX_ELEMS = 14  # the largest type (locations)
SIG_WORDS = 3  # a per-element slice has at most 168 cases: 3 words of 64 bits
CODE_LIMIT = 1 << 62  # state keys must stay below this (int64 arithmetic)
ROOT = 0  # index of the root among the sets
ENUMERATION_BUDGET = 100_000  # steps of direct enumeration before the dynamic programme takes over
# the other players' listed sets met in the middle (pi_env.solvers.joint_tuples.count_listed) when that
# costs at most LISTED_STEPS estimated steps (small sets, e.g. investigations and failed solves)
LISTED_STEPS = 3_000_000
# the dynamic programme gives up past this share of the listed method's estimated steps (measured: a unit
# of its work costs about as much as LISTED_PER_DP_UNIT of them), which then counts
LISTED_PER_DP_UNIT = 20.0
# With at most three other players, the dynamic programme gives up past this multiple of the steps
# meeting in the middle would take (measured: a unit of DP work costs about 20 steps of it; so the
# two together cost at most about twice the cheaper one)
DP_BUDGET_PER_MITM_STEP = 1 / 20
# joint_table_within gives up at once when the product of the smallest numbers of open values when a type
# is chosen first and last (_open_counts) passes this multiple of its work limit (measured on five players
# with failed solves: work 10-150 thousand at products up to 1.1e5; 0.44 million at 2.1e6; 18-21 million at
# 2.2e8-4e8)
OPEN_PRODUCT_PER_WORK = 20
VECTOR_SPEEDUP = 20.0  # a transition of the forward pass costs about this many backward multiply-adds


# ---------------------------------------------------------------------------------------------
# classes of interchangeable elements


@kernel
def _slice_signatures(sets):
    """``uint64[k, 3, 14, 3]``: for each player, type and element, the bitset of its slice (the
    cases of the player's set that contain the element, indexed within the slice)."""
    k = sets.shape[0]
    sig = np.zeros((k, 3, MAX_ELEMS, SIG_WORDS), dtype=np.uint64)
    one = np.uint64(1)
    for p in range(k):
        for c in range(sets.shape[1]):
            if not sets[p, c]:
                continue
            s = c // 140
            e = (c // 14) % 10
            loc = c % 14
            pos = (e * 14 + loc, s * 14 + loc, s * 10 + e)  # position within each type's slice
            el = (s, e, loc)
            for t in range(3):
                sig[p, t, el[t], pos[t] >> 6] |= one << np.uint64(pos[t] & 63)
    return sig


@kernel
def _refine_type(sig, members, t):
    """Classes of interchangeable elements of type ``t`` for the players ``members`` (indices into
    ``sig``): ``int64[14]`` labels (``-1`` past the type's size; numbered by first element) and the
    number of classes. No members: one class."""
    labels = -np.ones(MAX_ELEMS, dtype=np.int64)
    count = 0
    n = TYPE_SIZES3[t]
    for x in range(n):
        for y in range(x):
            same = True
            for i in range(members.shape[0]):
                p = members[i]
                for w in range(SIG_WORDS):
                    if sig[p, t, x, w] != sig[p, t, y, w]:
                        same = False
                        break
                if not same:
                    break
            if same:
                labels[x] = labels[y]
                break
        if labels[x] < 0:
            labels[x] = count
            count += 1
    return labels, count


@kernel
def _layout_arrays(sig, members, active, pc):
    """The arrays of a :class:`_Layout`: per type (``active[t]``) the classes of the players
    ``members[t, q]``, their sizes and code radices; the pending radices of ``pc``. Returns
    ``(labels, n, sizes, rt, mt, pr, pp)``; ``pp`` is -1 when a state key would not fit in int64."""
    k = members.shape[1]
    labels = -np.ones((3, MAX_ELEMS), dtype=np.int64)
    n = np.zeros(3, dtype=np.int64)
    sizes = np.zeros((3, MAX_ELEMS), dtype=np.int64)
    rt = np.zeros((3, MAX_ELEMS), dtype=np.int64)
    mt = np.ones(3, dtype=np.int64)
    total = 1.0
    for t in range(3):
        if not active[t]:
            continue
        group = np.empty(k, dtype=np.int64)
        m = 0
        for q in range(k):
            if members[t, q]:
                group[m] = q
                m += 1
        lab, cnt = _refine_type(sig, group[:m], t)
        labels[t] = lab
        n[t] = cnt
        for x in range(TYPE_SIZES3[t]):
            sizes[t, lab[x]] += 1
        span = 1
        for a in range(cnt):
            rt[t, a] = span
            span *= sizes[t, a] + 1
        mt[t] = span
        total *= span
    pr = np.zeros(k, dtype=np.int64)
    pp = 1
    for q in range(k):
        if pc[q] > 0:
            pr[q] = pp
            pp *= pc[q]
            total *= pc[q]
    if total >= CODE_LIMIT:
        pp = -1
    return labels, n, sizes, rt, mt, pr, pp


@kernel
def _own_relation(cases, labels, counts):
    """``bool[K0, K1, K2]``: which class triples (under ``labels``, ``int64[3, 14]``) hold a case of
    ``cases``."""
    rel = np.zeros((counts[0], counts[1], counts[2]), dtype=np.bool_)
    for i in range(cases.shape[0]):
        c = cases[i]
        rel[labels[0, c // 140], labels[1, (c // 14) % 10], labels[2, c % 14]] = True
    return rel


# ---------------------------------------------------------------------------------------------
# the dynamic programme: forward pass (states and transitions)


@kernel
def _grow(a, n):
    out = np.empty(max(2 * a.shape[0], n), dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@kernel
def _slot(key, bits):
    """Hash slot of a state key (multiplicative hashing of the key modulo a prime; no int64
    overflow, so the plain-Python path computes the same slots)."""
    return (((key % 2147483629) * 2654435761) >> 20) & ((1 << bits) - 1)


@kernel
def _site_expand(codes, pend, t, n_t, sizes, rt, pr, pc, q, own, table, parent, next_rt, next_mt, next_pr,
                 next_pp, limit):
    """Every transition of one site: player ``q`` chooses its class of type ``t``.

    A state is four codes: per type, the used-element counts over the type's classes
    (``sum_a used_a * rt[t, a]``; 0 for a type nobody is choosing), and the pending values
    (``sum_q pending_q * pr[q]``). Its key in a layout is ``pend + pp * (c0 + mt0 * (c1 + mt1 *
    c2))``.

    Args:
        codes: ``int64[S, 3]`` and ``pend``: ``int64[S]`` the current states.
        t, n_t: the type and its number of classes; ``sizes``, ``rt``: ``int64[14]`` the classes'
            sizes and code radices.
        pr, pc: ``int64[k]`` pending radices and numbers of values per player (``pc == 0``: none).
        own: ``int64[14]`` q's own class of each current class.
        table: ``int64[P, K]`` q's next pending value given its current one and its own class (-1:
            its set does not allow it).
        parent: ``int64[14]`` the next layout's class of each current class (-1: nobody is left to
            choose this type after q).
        next_rt: ``int64[14]`` the next layout's radices of type t; ``next_mt``: ``int64[3]`` its code
            ranges; ``next_pr``, ``next_pp``: its pending radices (0: no field) and range.
        limit: give up after this many transitions.

    Returns:
        ``row_ptr int64[S+1]`` (state ``s``'s transitions are ``row_ptr[s]:row_ptr[s+1]``), ``alpha
        int64[T]`` (class), ``ways int64[T]``, ``next_index int64[T]``, the next states' ``codes``
        and ``pend`` (first-appearance order; an open-addressing hash table on their keys finds
        them), and ``done`` (False: stopped at ``limit``, the arrays are partial).
    """
    n_states = pend.shape[0]
    k = pr.shape[0]
    span = 1
    for a in range(n_t):
        span *= sizes[a] + 1
    # per value of the type-t code: used counts per class and the coarsened code (filled lazily)
    dec_used = np.empty((span, max(n_t, 1)), dtype=np.int64)
    dec_coarse = np.empty(span, dtype=np.int64)
    dec_done = np.zeros(span, dtype=np.bool_)
    step = np.zeros(MAX_ELEMS, dtype=np.int64)  # next-layout code of one unit of each class
    for a in range(n_t):
        if parent[a] >= 0:
            step[a] = next_rt[parent[a]]
    row_ptr = np.zeros(n_states + 1, dtype=np.int64)
    cap = max(1024, 2 * n_states)
    alpha = np.empty(cap, dtype=np.int64)
    ways = np.empty(cap, dtype=np.int64)
    next_index = np.empty(cap, dtype=np.int64)
    next_codes = np.empty((max(1024, n_states), 3), dtype=np.int64)
    next_pend = np.empty(next_codes.shape[0], dtype=np.int64)
    next_keys = np.empty(next_codes.shape[0], dtype=np.int64)
    bits = 10
    slots = -np.ones(1 << bits, dtype=np.int64)  # hash slot -> index of the next state
    n_next = 0
    j = 0
    for s in range(n_states):
        v = codes[s, t]
        if not dec_done[v]:
            coarse = 0
            for a in range(n_t):
                u = (v // rt[a]) % (sizes[a] + 1)
                dec_used[v, a] = u
                coarse += u * step[a]
            dec_coarse[v] = coarse
            dec_done[v] = True
        p = 0
        rest = 0
        for qq in range(k):
            if pc[qq] > 0:
                val = (pend[s] // pr[qq]) % pc[qq]
                if qq == q:
                    p = val
                else:
                    rest += val * next_pr[qq]
        for a in range(n_t):
            w = sizes[a] - dec_used[v, a]
            if w <= 0:
                continue
            nxt = table[p, own[a]]
            if nxt < 0:
                continue
            c_t = dec_coarse[v] + step[a]
            c0 = c_t if t == 0 else codes[s, 0]
            c1 = c_t if t == 1 else codes[s, 1]
            c2 = c_t if t == 2 else codes[s, 2]
            c_pend = rest + nxt * next_pr[q]
            key = c_pend + next_pp * (c0 + next_mt[0] * (c1 + next_mt[1] * c2))
            slot = _slot(key, bits)
            mask = (1 << bits) - 1
            while slots[slot] >= 0 and next_keys[slots[slot]] != key:
                slot = (slot + 1) & mask
            if slots[slot] >= 0:
                idx = slots[slot]
            else:
                if n_next == next_keys.shape[0]:
                    grown = np.empty((2 * n_next, 3), dtype=np.int64)
                    grown[:n_next] = next_codes
                    next_codes = grown
                    next_pend = _grow(next_pend, n_next + 1)
                    next_keys = _grow(next_keys, n_next + 1)
                next_codes[n_next, 0] = c0
                next_codes[n_next, 1] = c1
                next_codes[n_next, 2] = c2
                next_pend[n_next] = c_pend
                next_keys[n_next] = key
                slots[slot] = n_next
                idx = n_next
                n_next += 1
                if 2 * n_next > (1 << bits):  # keep the load under one half: rehash
                    bits += 1
                    mask = (1 << bits) - 1
                    slots = -np.ones(1 << bits, dtype=np.int64)
                    for i in range(n_next):
                        sl = _slot(next_keys[i], bits)
                        while slots[sl] >= 0:
                            sl = (sl + 1) & mask
                        slots[sl] = i
            if j == alpha.shape[0]:
                alpha = _grow(alpha, j + 1)
                ways = _grow(ways, j + 1)
                next_index = _grow(next_index, j + 1)
            alpha[j] = a
            ways[j] = w
            next_index[j] = idx
            j += 1
        row_ptr[s + 1] = j
        if j > limit:
            return (row_ptr, alpha[:j].copy(), ways[:j].copy(), next_index[:j].copy(), next_codes[:n_next].copy(),
                    next_pend[:n_next].copy(), False)
    return (row_ptr, alpha[:j].copy(), ways[:j].copy(), next_index[:j].copy(), next_codes[:n_next].copy(),
            next_pend[:n_next].copy(), True)


# ---------------------------------------------------------------------------------------------
# the dynamic programme: backward pass (completion counts, vectors over the root's later classes)


@kernel
def _backward(row_ptr, ways, next_index, b_next):
    """``B[s, :] = sum over s's transitions of ways * B_next[next, :]`` (``int64[S, V]``)."""
    n_states = row_ptr.shape[0] - 1
    v = b_next.shape[1]
    b = np.zeros((n_states, v), dtype=np.int64)
    for s in range(n_states):
        for j in range(row_ptr[s], row_ptr[s + 1]):
            w = ways[j]
            src = next_index[j]
            for i in range(v):
                b[s, i] += w * b_next[src, i]
    return b


# ---------------------------------------------------------------------------------------------
# plans: the order of the choices and the layout of the states at each boundary


@kernel
def _distinct_rows(rows):
    """The distinct non-empty rows of a 2-D bool array: ``(first index of each, id of every row)``
    with id -1 for an empty row, ids numbered by first appearance."""
    n, w = rows.shape
    ids = -np.ones(n, dtype=np.int64)
    firsts = np.empty(n, dtype=np.int64)
    found = 0
    for i in range(n):
        empty = True
        for j in range(w):
            if rows[i, j]:
                empty = False
                break
        if empty:
            continue
        for f in range(found):
            same = True
            for j in range(w):
                if rows[i, j] != rows[firsts[f], j]:
                    same = False
                    break
            if same:
                ids[i] = f
                break
        if ids[i] < 0:
            firsts[found] = i
            ids[i] = found
            found += 1
    return firsts[:found].copy(), ids


def _stage_tables(rel: np.ndarray, type_order: tuple[int, ...]) -> list[np.ndarray]:
    """Pending tables of one player choosing its types in ``type_order``: three ``int64[P, K]``
    arrays (``K`` own classes of the type of each stage) giving the next pending value (-1: not
    allowed; the last stage gives 0). Pending values number the distinct slices of the player's
    relation (after its first type) and its distinct fibers (after the second)."""
    r = np.ascontiguousarray(np.transpose(rel, type_order))
    k0, k1, k2 = r.shape
    firsts, ids = _distinct_rows(r.reshape(k0, k1 * k2))
    t0 = ids.reshape(1, k0)
    slices = np.ascontiguousarray(r[firsts])  # (P1, k1, k2)
    fibers, fids = _distinct_rows(slices.reshape(-1, k2))
    t1 = fids.reshape(firsts.size, k1)
    t2 = np.where(slices.reshape(-1, k2)[fibers], 0, -1).astype(np.int64)
    return [t0, t1, t2]


@dataclass
class _Layout:
    """The layout of the states at one boundary: per type the classes of the players still to choose
    it (a type is *active* from the root's choice of it until the last player's), then the pending
    fields."""

    labels: np.ndarray  # int64[3, 14]: class of each element (-1 when the type is inactive)
    n: np.ndarray  # int64[3]: number of classes (0: inactive)
    sizes: np.ndarray  # int64[3, 14]
    rt: np.ndarray  # int64[3, 14]: radix of each class in its type's code
    mt: np.ndarray  # int64[3]: range of each type's code (1: inactive)
    pr: np.ndarray  # int64[k]: pending radices (0: no field)
    pc: np.ndarray  # int64[k]: pending values (0: no field)
    pp: int  # range of the pending code


def _layout(sig: np.ndarray, members: "list[list[int] | None]", pc: np.ndarray) -> _Layout | None:
    """The layout for ``members[t]``, the players still to choose type t (``None``: the type is
    inactive); ``None`` if a state key would not fit in int64."""
    mask = np.zeros((3, pc.size), dtype=np.bool_)
    active = np.zeros(3, dtype=np.bool_)
    for t, group in enumerate(members):
        if group is not None:
            active[t] = True
            mask[t, group] = True
    labels, n, sizes, rt, mt, pr, pp = _layout_arrays(sig, mask, active, pc)
    if pp < 0:
        return None
    return _Layout(labels, n, sizes, rt, mt, pr, pc.copy(), int(pp))


_NONE = np.zeros(0, dtype=np.int64)  # an unused array field (read-only)
_NONE.flags.writeable = False


class _Site:
    """One choice: player ``q`` (:data:`ROOT` or another) takes its element of type ``t``.

    For another player: ``own`` (its own class of each current class), ``table`` (its pending
    table) and ``parent`` (the class of the next layout each current class merges into, -1: none).
    For the root: ``branch`` (the classes its set takes: the state branches into one state per
    class) and, per entry of ``B`` before the site, ``first`` (its branch) and ``rest`` (the entry
    of ``B`` after the site)."""

    __slots__ = ("q", "t", "before", "after", "own", "table", "parent", "branch", "first", "rest")

    def __init__(self, q: int, t: int, before: _Layout, after: _Layout, own: np.ndarray = _NONE,
                 table: np.ndarray = _NONE, parent: np.ndarray = _NONE):
        self.q, self.t, self.before, self.after = q, t, before, after
        self.own, self.table, self.parent = own, table, parent
        self.branch, self.first, self.rest = _NONE, _NONE, _NONE


def _plan(sig: np.ndarray, rels: dict[int, np.ndarray], own_labels: dict[int, np.ndarray],
          order: list[tuple[int, int]], k: int) -> "list[_Site] | None":
    """The sites of an order of (player, type) choices in which the root chooses each type before
    the other players do (``None`` if some state key would not fit in int64)."""
    type_order = {q: tuple(t for (qq, t) in order if qq == q) for q in rels}
    tables = {q: _stage_tables(rels[q], type_order[q]) for q in rels}
    done = {q: 0 for q in rels}
    remaining: "list[list[int] | None]" = [None, None, None]
    pc = np.zeros(k, dtype=np.int64)
    before = _layout(sig, remaining, pc)
    sites: list[_Site] = []
    for q, t in order:
        remaining = list(remaining)
        if q == ROOT:
            remaining[t] = list(rels)
        else:
            table = tables[q][done[q]]
            remaining[t] = [x for x in remaining[t] or () if x != q] or None
            pc = pc.copy()
            pc[q] = table.max() + 1 if done[q] < 2 else 0
            if done[q] < 2 and pc[q] <= 1:
                pc[q] = 0  # a single value needs no field (the table's values are then 0 or -1)
        after = _layout(sig, remaining, pc)
        if before is None or after is None:
            return None
        if q == ROOT:
            sites.append(_Site(ROOT, t, before, after))
        else:
            n_t = TYPE_SIZES3[t]
            own = np.zeros(MAX_ELEMS, dtype=np.int64)
            own[before.labels[t, :n_t]] = own_labels[q][t, :n_t]
            parent = -np.ones(MAX_ELEMS, dtype=np.int64)
            if after.n[t] > 0:
                parent[before.labels[t, :n_t]] = after.labels[t, :n_t]
            sites.append(_Site(q, t, before, after, own, table, parent))
            done[q] += 1
        before = after
    return sites


def _rank(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for ints in ``0..bound-1``, without sorting."""
    present = np.zeros(bound, dtype=bool)
    present[values] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[values]


def _root_entries(sites: list[_Site], root_cases: np.ndarray) -> np.ndarray:
    """Fill the root sites' ``branch``, ``first`` and ``rest``; return each root case's entry of
    ``B`` at every boundary (``int64[len(sites) + 1, n]``).

    Before the root's site of a type, ``B`` has one entry per distinct tuple of the root's classes
    in that type and the types it chooses later, over the root's cases (only the classes its set
    takes)."""
    el = np.stack([root_cases // 140, (root_cases // 14) % 10, root_cases % 14])
    root_sites = [i for i, s in enumerate(sites) if s.q == ROOT]
    entry = np.zeros((len(sites) + 1, root_cases.size), dtype=np.int64)
    after = np.zeros(root_cases.size, dtype=np.int64)  # entry of B after the current root site
    end = len(sites)
    for i in reversed(root_sites):
        site = sites[i]
        site.branch, pos = _rank(site.after.labels[site.t][el[site.t]], MAX_ELEMS)
        width = int(after.max()) + 1
        keys, before = _rank(pos * width + after, site.branch.size * width)
        site.first, site.rest = keys // width, keys % width
        entry[i + 1:end + 1] = after
        after, end = before, i
    entry[:end + 1] = after
    return entry


def _open_counts(rels: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(open1, open2)``, ``float64[3]`` each: per type, the product over the other players of their
    numbers of distinct slices (open values when the type is chosen first) and of fibers (when it
    is chosen last): the size of the dynamic programme's state, roughly."""
    open1 = np.ones(3)
    open2 = np.ones(3)
    for r in rels.values():
        for t, axes in enumerate(((0, 1, 2), (1, 0, 2), (2, 0, 1))):
            moved = r.transpose(axes).reshape(r.shape[t], -1)
            open1[t] *= _distinct_rows(np.ascontiguousarray(moved))[0].size
            open2[t] *= _distinct_rows(np.ascontiguousarray(moved.T))[0].size
    return open1, open2


def _site_orders(rels: dict[int, np.ndarray], root_cases: np.ndarray, sig: np.ndarray,
                 k: int) -> list[list[tuple[int, int]]]:
    """The six type orders as orders of choices, the most promising first.

    After the first type ``t1`` the state holds every player's open slice and ``B`` is a vector
    over the root's (t2, t3) classes; after the second, every player's open fiber along t3 and a
    vector over the root's t3 classes. The estimate multiplies these out (the vector entries
    discounted by :data:`VECTOR_SPEEDUP`); over the hardest positions found it picks an order within
    a factor 2 of the best. Within a type the players whose own sets tell the most classes of it
    apart choose first, so that their distinctions leave the state early (2 to 6 times less work
    than the other way round on those positions)."""
    if k <= 3:  # at most two other players: the state stays small in any order
        return [[site for t in range(3) for site in [(ROOT, t)] + [(q, t) for q in sorted(
            rels, key=lambda q: (-rels[q].shape[t], q))]]]
    open1, open2 = _open_counts(rels)
    el = np.stack([root_cases // 140, (root_cases // 14) % 10, root_cases % 14])
    members = np.arange(1, k, dtype=np.int64)
    root_classes = [_refine_type(sig, members, t)[0][el[t]] for t in range(3)]
    singles = [np.unique(c).size for c in root_classes]

    def estimate(type_order: tuple[int, ...]) -> float:
        t1, t2, t3 = type_order
        pairs = np.unique(root_classes[t2] * MAX_ELEMS + root_classes[t3]).size
        return open1[t1] * (1 + pairs / VECTOR_SPEEDUP) + open2[t3] * (1 + singles[t3] / VECTOR_SPEEDUP)

    orders = []
    for type_order in sorted(permutations(range(3)), key=lambda o: (estimate(o), o)):
        order = []
        for t in type_order:  # the players that tell the most classes of t apart first
            order += [(ROOT, t)] + [(q, t) for q in sorted(rels, key=lambda q: (-rels[q].shape[t], q))]
        orders.append(order)
    return orders


def _forward(sites: list[_Site], budget: int = CODE_LIMIT
             ) -> "tuple[list[tuple[np.ndarray, ...] | None] | None, int]":
    """Every site's transitions (``None`` at the root's sites, which branch) and the work done
    (transitions plus states); ``(None, work)`` as soon as the work exceeds ``budget``."""
    codes = np.zeros((1, 3), dtype=np.int64)
    pend = np.zeros(1, dtype=np.int64)
    out: list[tuple[np.ndarray, ...] | None] = []
    work = 0
    for site in sites:
        t = site.t
        if site.q == ROOT:
            nb = site.branch.size
            codes = np.repeat(codes, nb, axis=0)
            codes[:, t] = np.tile(site.after.rt[t, site.branch], pend.size)  # nobody had chosen t
            pend = np.repeat(pend, nb)
            out.append(None)
        else:
            lay, nxt = site.before, site.after
            row_ptr, alpha, ways, next_index, codes, pend, done = _site_expand(
                codes, pend, t, lay.n[t], lay.sizes[t], lay.rt[t], lay.pr, lay.pc, site.q, site.own,
                site.table, site.parent, nxt.rt[t], nxt.mt, nxt.pr, nxt.pp, budget - work)
            out.append((row_ptr, alpha, ways, next_index))
            work += int(alpha.size)
            if not done:
                return None, work
        work += int(pend.size)
        if work > budget:
            return None, work
    return out, work


# ---------------------------------------------------------------------------------------------
# sampling kernels (random numbers come from a numpy Generator, drawn per site)


@kernel
def _pick_class(state, comp, r, row_ptr, alpha, ways, next_index, b_next, masks, used_t, avail, chosen):
    """For each sample: the transition where the running sum of ``ways * B_next[next, comp]`` first
    exceeds ``r``; moves ``state`` on, writes the free elements of the chosen class to ``chosen``
    and their number to ``avail``."""
    for i in range(state.shape[0]):
        acc = 0
        j = row_ptr[state[i]]
        last = row_ptr[state[i] + 1] - 1
        while j < last:
            acc += ways[j] * b_next[next_index[j], comp[i]]
            if acc > r[i]:
                break
            j += 1
        state[i] = next_index[j]
        m = masks[alpha[j]] & ~used_t[i]
        chosen[i] = m
        n = 0
        while m:
            m &= m - 1
            n += 1
        avail[i] = n


@kernel
def _pick_element(chosen, r, used_t, out_t):
    """For each sample: the ``r``-th free element of the chosen class."""
    for i in range(chosen.shape[0]):
        m = chosen[i]
        for _ in range(r[i]):
            m &= m - 1
        low = m & -m
        x = 0
        while (low >> x) != 1:
            x += 1
        used_t[i] |= low
        out_t[i] = x


# ---------------------------------------------------------------------------------------------
# small positions: direct enumeration


@kernel
def _enumerate(root, cases, offsets, masks, budget):
    """Per root case, the number of tuples (one case of each other player, ``cases[offsets[q]:
    offsets[q+1]]``) pairwise disjoint with each other and with it: depth-first over the players,
    the last one counted in a loop. Gives up (``done = False``) past ``budget`` steps.

    Returns ``(counts int64[len(root)], steps, done)``."""
    m = offsets.shape[0] - 1
    counts = np.zeros(root.shape[0], dtype=np.int64)
    next_j = np.zeros(max(m, 1), dtype=np.int64)
    used = np.zeros(m + 1, dtype=np.int64)
    steps = 0
    for i in range(root.shape[0]):
        if m == 0:
            counts[i] = 1
            continue
        used[0] = masks[root[i]]
        level = 0
        next_j[0] = offsets[0]
        while level >= 0:
            if level == m - 1:
                u = used[level]
                for j in range(offsets[level], offsets[level + 1]):
                    if masks[cases[j]] & u == 0:
                        counts[i] += 1
                steps += offsets[level + 1] - offsets[level]
                if steps > budget:
                    return counts, steps, False
                level -= 1
                continue
            j = next_j[level]
            if j == offsets[level + 1]:
                level -= 1
                continue
            next_j[level] = j + 1
            steps += 1
            mj = masks[cases[j]]
            if mj & used[level] == 0:
                used[level + 1] = used[level] | mj
                level += 1
                next_j[level] = offsets[level]
    return counts, steps, True


# ---------------------------------------------------------------------------------------------
# public API


@dataclass(frozen=True, eq=False)
class JointTable:
    """Exact counts of the joint deals of a group of players, reusable for exact sampling.

    Built by :func:`joint_table`. Player indices refer to the list of case sets it was given
    (index 0 is the root).

    Attributes:
        counts: ``int64[1680]``, ``counts[c]`` = number of joint assignments giving the root case
            ``c`` (0 outside the root's set).
        total: total number of joint assignments (Python int; 0 when the sets are inconsistent).
        n_players: number of players (root included).
        order: the order of the choices, ``((player, type), ...)``; empty when the tuples were
            enumerated directly.
        work: the dynamic programme's size (transitions plus states of its forward pass), or the
            number of steps of the direct enumeration.
        method: how the counts were made: ``"enumeration"`` (small positions), ``"dp"`` (the
            dynamic programme; always when sampling) or ``"mitm"`` (meeting in the middle,
            :mod:`pi_env.solvers.joint_mitm`: at most three other players and a dynamic programme
            that would cost more, e.g. sets broken up by many failed solves; ``work`` is then the
            dynamic programme's work when it gave up) or ``"listed"`` (the other players' sets met
            in the middle as lists, :func:`pi_env.solvers.joint_tuples.count_listed`: small sets,
            or a dynamic programme that would cost more; ``work`` its estimated steps or the
            dynamic programme's work when it gave up).
    """

    counts: np.ndarray = field(repr=False)
    total: int
    n_players: int
    order: tuple[tuple[int, int], ...]
    work: int
    _root_cases: np.ndarray = field(repr=False)
    _root_cum: np.ndarray = field(repr=False)
    _sampling: tuple | None = field(repr=False)
    method: str = "dp"
    _proposal: "JointTable | None" = field(default=None, repr=False)
    _accept: "np.ndarray | None" = field(default=None, repr=False)

    @property
    def can_sample(self) -> bool:
        """Whether the table kept what :meth:`sample` needs (``joint_table(..., sampling=True)``)."""
        return self._sampling is not None or self._proposal is not None

    def sample(self, n: int, rng: "np.random.Generator | int | None" = None) -> np.ndarray:
        """Draw ``n`` joint assignments exactly from the uniform distribution over all of them.

        Args:
            n: number of draws (``>= 0``).
            rng: a :class:`numpy.random.Generator`, a seed, or ``None`` (fresh entropy).

        Returns:
            ``int64[n, k]``: column ``i`` is the case of player ``i`` (the table's input order),
            pairwise disjoint per type within each row.

        Raises:
            PIError: ``n < 0``, no joint assignment exists (``total == 0``), or the table was
                built without ``sampling=True``.
        """
        n = int(n)
        if n < 0:
            raise PIError(f"n must be >= 0, got {n}")
        if self.total == 0:
            raise PIError("no joint assignment is consistent with the case sets; nothing to sample")
        if not self.can_sample:
            raise PIError("this JointTable was built without sampling=True")
        gen = np.random.default_rng(rng)
        if n == 0:
            return np.zeros((0, self.n_players), dtype=np.int64)
        if self._proposal is not None:  # rejection: draws of the supersets' table inside every set
            return self._rejection_sample(n, gen)
        assert self._sampling is not None
        sites, bs, entries = self._sampling
        elems = np.zeros((self.n_players, 3, n), dtype=np.int64)  # [player, type, draw]
        idx = np.searchsorted(self._root_cum, gen.integers(0, self.total, size=n, dtype=np.int64), side="right")
        root = self._root_cases[idx]
        elems[ROOT] = root // 140, (root // 14) % 10, root % 14
        used = np.left_shift(np.int64(1), elems[ROOT])  # int64[3, n] type-local element bitmasks
        state = np.zeros(n, dtype=np.int64)
        entry = entries[:, idx]  # the root's entry of B at every boundary
        avail = np.empty(n, dtype=np.int64)
        chosen = np.empty(n, dtype=np.int64)
        for i, site in enumerate(sites):
            q, t = site[0], site[1]
            if q == ROOT:  # deterministic: the branch of the root's class
                branch_of, n_branches = site[2], site[3]
                state = state * n_branches + branch_of[elems[ROOT, t]]
                continue
            row_ptr, alpha, ways, next_index, masks = site[2:]
            r = gen.integers(0, bs[i][state, entry[i]], dtype=np.int64)
            _pick_class(state, entry[i + 1], r, row_ptr, alpha, ways, next_index, bs[i + 1], masks, used[t],
                        avail, chosen)
            _pick_element(chosen, gen.integers(0, avail, dtype=np.int64), used[t], elems[q, t])
        return (elems[:, 0] * 140 + elems[:, 1] * 14 + elems[:, 2]).T.copy()

    def _rejection_sample(self, n: int, gen: np.random.Generator) -> np.ndarray:
        """``n`` draws of the proposal (uniform over the supersets' joint assignments), keeping in
        order those whose every case lies in its player's set (``_accept``, ``bool[k, 1680]``):
        independent and exactly uniform over the joint assignments of the sets."""
        assert self._proposal is not None and self._accept is not None
        rate = self.total / self._proposal.total
        players = np.arange(self.n_players)
        kept, got = [], 0
        while got < n:
            drawn = self._proposal.sample(int((n - got) / rate * 1.1) + 16, gen)
            ok = self._accept[players[None, :], drawn].all(axis=1)
            kept.append(drawn[ok])
            got += int(ok.sum())
        return np.concatenate(kept)[:n]


def _own_relations(sig: np.ndarray, lists: list[np.ndarray], k: int
                   ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Per other player: its own classes (``int64[3, 14]`` labels) and which of their triples its
    set holds (``bool[K0, K1, K2]``)."""
    own_labels, rels = {}, {}
    for q in range(1, k):
        labels = np.stack([_refine_type(sig, np.array([q], dtype=np.int64), t)[0] for t in range(3)])
        own_labels[q] = labels
        rels[q] = _own_relation(lists[q], labels, labels.max(axis=1) + 1)
    return own_labels, rels


def joint_table(sets: "np.ndarray | list[np.ndarray]", sampling: bool = False) -> JointTable:
    """Exact joint-deal counts of a group of players, root first (docs/rules.md §3, §9): the
    :class:`JointTable` of :func:`joint_table_within` without a work limit."""
    table = joint_table_within(sets, sampling)
    assert table is not None  # (no limit)
    return table


def joint_table_within(sets: "np.ndarray | list[np.ndarray]", sampling: bool = False,
                       work_limit: "int | None" = None) -> "JointTable | None":
    """Exact joint-deal counts of a group of players, root first (docs/rules.md §3, §9).

    Args:
        sets: ``bool[k, 1680]`` (or a list of ``bool[1680]``), ``1 <= k <= 5``: the case set of each
            player, the root (whose per-case counts are returned) first. The sets must already
            respect everything but the disjointness between these players (the dynamic programme
            adds exactly that).
        sampling: keep what :meth:`JointTable.sample` needs (the ``B`` vectors of every state).
        work_limit: give up (return ``None``: the caller counts another way, e.g.
            :func:`pi_env.solvers.joint_holes.count_joint_split`) once the dynamic programme's work
            passes this, unless meeting in the middle then counts for less; ``None``: no limit.

    Returns:
        A :class:`JointTable`: ``counts[c]`` = number of ways to give every other player a case from
        its set such that all ``k`` cases are pairwise disjoint per type, the root's being ``c``;
        ``None`` only with ``work_limit``.

    Raises:
        PIError: wrong shapes, or no player / more than 5 players.
    """
    arr = np.ascontiguousarray(np.asarray(sets, dtype=bool))
    if arr.ndim != 2 or arr.shape[1] != NUM_CASES or not 1 <= arr.shape[0] <= 5:
        raise PIError(f"sets must be bool[k, {NUM_CASES}] with 1 <= k <= 5, got shape {arr.shape}")
    k = arr.shape[0]
    lists = [np.flatnonzero(row).astype(np.int64) for row in arr]
    counts = np.zeros(NUM_CASES, dtype=np.int64)
    if any(c.size == 0 for c in lists):
        return JointTable(counts, 0, k, (), 0, lists[0], np.zeros(0, np.int64), None)
    if not sampling:  # a small position: count the tuples directly
        others = sorted(lists[1:], key=len)
        offsets = np.cumsum([0] + [c.size for c in others]).astype(np.int64)
        cases = np.concatenate(others) if others else np.zeros(0, np.int64)
        direct, steps, done = _enumerate(lists[0], cases, offsets, CASE_ELEMENT_MASKS, ENUMERATION_BUDGET)
        method = "enumeration"
        listed = listed_cost([c.size for c in others])
        if not done and listed <= LISTED_STEPS:
            direct, steps, done, method = count_listed(lists[0], others), int(listed), True, "listed"
        if done:
            counts[lists[0]] = direct
            keep = direct > 0
            return JointTable(counts, int(direct.sum()), k, (), int(steps), lists[0][keep],
                              np.cumsum(direct[keep]), None, method)
    sig = _slice_signatures(arr)
    own_labels, rels = _own_relations(sig, lists, k)
    if work_limit is not None and k > 3:
        open1, open2 = _open_counts(rels)
        if open1.min() * open2.min() > work_limit * OPEN_PRODUCT_PER_WORK:
            return None  # a large dynamic programme ahead: give up before starting
    sites = None
    for order in _site_orders(rels, lists[0], sig, k):  # the first whose keys fit int64 (in practice: the first)
        sites = _plan(sig, rels, own_labels, order, k)
        if sites is not None:
            break
    if sites is None:  # pragma: no cover - a state key needs at most about 2^50
        raise RuntimeError("joint_table: no order of choices has state keys that fit in int64")
    entries = _root_entries(sites, lists[0])
    limit = CODE_LIMIT if work_limit is None else int(work_limit)
    if sampling:
        expansions, work = _forward(sites, limit)
        if expansions is None:
            return None
    else:  # give up once meeting in the middle (by element subsets, or with listed sets) is cheaper
        listed = listed_cost([c.size for c in lists[1:]]) / LISTED_PER_DP_UNIT
        mitm = mitm_steps(lists[0].size, [c.size for c in lists[1:]]) * DP_BUDGET_PER_MITM_STEP if k <= 4 else np.inf
        budget = min(listed, mitm)
        expansions, work = _forward(sites, int(min(budget, limit)))
        if expansions is None and limit < budget:
            return None
        if expansions is None:  # a large dynamic programme: meet in the middle (a fixed cost)
            if listed <= mitm:
                direct, method = count_listed(lists[0], lists[1:]), "listed"
            else:
                direct, method = count_mitm(lists[0], lists[1:]), "mitm"
            counts[lists[0]] = direct
            keep = direct > 0
            return JointTable(counts, int(direct.sum()), k, (), work, lists[0][keep], np.cumsum(direct[keep]),
                              None, method)
    assert expansions is not None
    # backward: bs[i] is B before site i (bs[-1] = 1 after the last one)
    b = np.ones((1, 1), dtype=np.int64)
    bs = [b]
    for site, exp in zip(reversed(sites), reversed(expansions)):
        if exp is None:  # the root's site: one entry per (branch, entry after)
            b = b.reshape(-1, site.branch.size, b.shape[1])[:, site.first, site.rest]
        else:
            b = _backward(exp[0], exp[2], exp[3], b)
        bs.append(b)
    bs.reverse()
    root_counts = bs[0][0, entries[0]]
    counts[lists[0]] = root_counts
    keep = root_counts > 0
    sampling_data = None
    if sampling:
        packed: list[tuple] = []
        for site, exp in zip(sites, expansions):
            if exp is None:
                branch_of = -np.ones(MAX_ELEMS, dtype=np.int64)  # the branch of each element of the type
                for x in range(TYPE_SIZES3[site.t]):
                    hit = np.flatnonzero(site.branch == site.after.labels[site.t, x])
                    if hit.size:
                        branch_of[x] = hit[0]
                packed.append((ROOT, site.t, branch_of, site.branch.size))
            else:
                masks = np.zeros(MAX_ELEMS, dtype=np.int64)  # the elements of each class
                for x in range(TYPE_SIZES3[site.t]):
                    masks[site.before.labels[site.t, x]] |= 1 << x
                packed.append((site.q, site.t, exp[0], exp[1], exp[2], exp[3], masks))
        sampling_data = (tuple(packed), tuple(bs), entries[:, keep])
    return JointTable(counts, int(root_counts.sum()), k, tuple((s.q, s.t) for s in sites), work, lists[0][keep],
                      np.cumsum(root_counts[keep]), sampling_data)


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
        PIError: wrong shapes or more than 4 unknown players.
    """
    own = np.asarray(own, dtype=bool)
    if own.shape != (NUM_CASES,) or any(np.shape(o) != (NUM_CASES,) for o in others):
        raise PIError("case sets must be bool[1680]")
    if len(others) > 4:
        raise PIError(f"at most 4 unknown players, got {len(others)}")
    return joint_table(np.stack([own] + [np.asarray(o, dtype=bool) for o in others])).counts
