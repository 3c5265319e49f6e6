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
root's choices are not summed: at its site the state branches into one state per class and
``B`` keeps one entry per class, so before the stage of ``t2`` ``B`` is a vector over the root's
``t3`` classes and before the stage of ``t2`` a vector over its (``t2``, ``t3``) classes; then
``counts[c] = [c in root's set] * B(root's t1 class)[root's t2 class, root's t3 class]``.

The state stays small when each player's own set is simple — even when together the players tell
every element apart — and when the players' joint classes are coarse (early in a round), and the
case sets are small late in a round. Of the six type orders the one with the least work
(transitions times the length of ``B``) is kept (``benchmarks/joint_worst_case.py`` measures the worst
positions found).

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

from pi_env.core._config import kernel
from pi_env.core.constants import NUM_CASES

TYPE_SIZES3 = np.array([12, 10, 14], dtype=np.int64)
MAX_ELEMS = 14  # the largest type (locations)
SIG_WORDS = 3  # a per-element slice has at most 168 cases: 3 words of 64 bits
CODE_LIMIT = 1 << 62  # state keys must stay below this (int64 arithmetic)
ROOT = 0  # index of the root among the sets
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
                 next_pp, budget):
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
        budget: give up (returning an empty ``row_ptr``) past this many transitions (-1: no limit).

    Returns:
        ``row_ptr int64[S+1]`` (state ``s``'s transitions are ``row_ptr[s]:row_ptr[s+1]``), ``alpha
        int64[T]`` (class), ``ways int64[T]``, ``next_index int64[T]``, and the next states'
        ``codes`` and ``pend`` (first-appearance order; an open-addressing hash table on their keys
        finds them).
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
                if 0 <= budget < j:
                    return (np.zeros(0, np.int64), alpha[:0], ways[:0], next_index[:0], next_codes[:0],
                            next_pend[:0])
                alpha = _grow(alpha, j + 1)
                ways = _grow(ways, j + 1)
                next_index = _grow(next_index, j + 1)
            alpha[j] = a
            ways[j] = w
            next_index[j] = idx
            j += 1
        row_ptr[s + 1] = j
    return (row_ptr, alpha[:j].copy(), ways[:j].copy(), next_index[:j].copy(), next_codes[:n_next].copy(),
            next_pend[:n_next].copy())


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
# plans: the site order and the layout of the state at each boundary


def _stage_tables(rel: np.ndarray, type_order: tuple[int, int, int]) -> list[np.ndarray]:
    """Pending tables of one player choosing its types in ``type_order``: three ``int64[P, K]``
    arrays (``K`` own classes of the type of each stage) giving the next pending value (-1: not
    allowed; the last stage gives 0). Pending values number the distinct slices (after the first
    type) and the distinct fibers (after the second) of the player's set."""
    r = np.ascontiguousarray(np.transpose(rel, type_order))
    k0, k1, k2 = r.shape
    flat = r.reshape(k0, k1 * k2)
    t0 = -np.ones((1, k0), dtype=np.int64)
    ids: dict[bytes, int] = {}
    firsts = []
    for o in np.flatnonzero(flat.any(axis=1)):
        key = flat[o].tobytes()
        if key not in ids:
            ids[key] = len(firsts)
            firsts.append(o)
        t0[0, o] = ids[key]
    slices = r[firsts]  # (P1, k1, k2)
    t1 = -np.ones((len(firsts), k1), dtype=np.int64)
    rid: dict[bytes, int] = {}
    rows = []
    for p, o in zip(*np.nonzero(slices.any(axis=2))):
        key = slices[p, o].tobytes()
        if key not in rid:
            rid[key] = len(rows)
            rows.append(slices[p, o])
        t1[p, o] = rid[key]
    t2 = np.where(np.array(rows, dtype=bool).reshape(len(rows), k2), 0, -1).astype(np.int64)
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


def _layout(sig: np.ndarray, members: list[list[int] | None], pc: np.ndarray) -> _Layout | None:
    """``members[t]``: the players still to choose type t (``None``: type inactive)."""
    labels = -np.ones((3, MAX_ELEMS), dtype=np.int64)
    n = np.zeros(3, dtype=np.int64)
    sizes = np.zeros((3, MAX_ELEMS), dtype=np.int64)
    rt = np.zeros((3, MAX_ELEMS), dtype=np.int64)
    mt = np.ones(3, dtype=np.int64)
    for t in range(3):
        if members[t] is None:
            continue
        labels[t], n[t] = _refine_type(sig, np.array(members[t], dtype=np.int64), t)
        sizes[t, :n[t]] = np.bincount(labels[t, :TYPE_SIZES3[t]], minlength=n[t])
        span = 1
        for a in range(n[t]):
            rt[t, a] = span
            span *= int(sizes[t, a]) + 1
        mt[t] = span
    pr = np.zeros(pc.size, dtype=np.int64)
    pp = 1
    for q in range(pc.size):
        if pc[q] > 0:
            pr[q] = pp
            pp *= int(pc[q])
    if pp * int(mt[0]) * int(mt[1]) * int(mt[2]) >= CODE_LIMIT:
        return None
    return _Layout(labels, n, sizes, rt, mt, pr, pc.copy(), pp)


@dataclass
class _Site:
    q: int  # ROOT: the root's choice (the state branches per class)
    t: int
    before: _Layout
    after: _Layout
    own: np.ndarray = None  # int64[14]
    table: np.ndarray = None
    parent: np.ndarray = None  # int64[14]
    # the root's sites: the classes its set takes (the state branches into one state per class),
    # and per entry of B before the site, the branch and the entry of B after it it comes from
    branch: np.ndarray = None
    first: np.ndarray = None
    rest: np.ndarray = None


def _root_keys(sites: list[_Site], root_cases: np.ndarray) -> np.ndarray:
    """Fill the root sites' ``branch``, ``first`` and ``rest``; return, per root case, its entry of
    ``B`` at every boundary (``int64[len(sites) + 1, n]``).

    Before the root's site of stage i, ``B`` has one entry per distinct tuple of the root's classes
    in the types of stages i, i+1, ... over its cases (only the classes the root's set takes)."""
    el = np.stack([root_cases // 140, (root_cases // 14) % 10, root_cases % 14])
    root_sites = [i for i, s in enumerate(sites) if s.q == ROOT]
    labels = [sites[i].after.labels[sites[i].t][el[sites[i].t]] for i in root_sites]  # per root case
    entry = np.zeros((len(sites) + 1, root_cases.size), dtype=np.int64)
    nxt = np.zeros(root_cases.size, dtype=np.int64)  # entry of B after the current root site
    for stage in range(len(root_sites) - 1, -1, -1):
        i = root_sites[stage]
        site = sites[i]
        site.branch, pos = np.unique(labels[stage], return_inverse=True)
        key = pos.reshape(-1) * (int(nxt.max()) + 1) + nxt
        uniq, here = np.unique(key, return_inverse=True)
        here = here.reshape(-1)
        site.first = uniq // (int(nxt.max()) + 1)
        site.rest = uniq % (int(nxt.max()) + 1)
        end = root_sites[stage + 1] if stage + 1 < len(root_sites) else len(sites)
        entry[i + 1:end + 1] = nxt
        nxt = here
    entry[:root_sites[0] + 1] = nxt
    return entry


def _plan(sig: np.ndarray, rels: dict[int, np.ndarray], own_labels: dict[int, np.ndarray],
          order: list[tuple[int, int]], k: int) -> "list[_Site] | None":
    """The sites of an order of (player, type) choices in which the root chooses each type before
    the other players do (``None`` if some state key would not fit in int64)."""
    type_order = {q: tuple(t for (qq, t) in order if qq == q) for q in rels}
    tables = {q: _stage_tables(rels[q], type_order[q]) for q in rels}
    done = {q: 0 for q in rels}
    remaining: list = [None, None, None]
    pc = np.zeros(k, dtype=np.int64)
    before = _layout(sig, remaining, pc)
    sites = []
    for q, t in order:
        if q == ROOT:
            remaining = list(remaining)
            remaining[t] = list(rels)
            after = _layout(sig, remaining, pc)
            if after is None:
                return None
            sites.append(_Site(ROOT, t, before, after))
            before = after
            continue
        stage = done[q]
        table = tables[q][stage]
        remaining = list(remaining)
        remaining[t] = [x for x in remaining[t] if x != q] or None
        pc = pc.copy()
        pc[q] = table.max() + 1 if stage < 2 else 0
        if stage < 2 and pc[q] <= 1:
            pc[q] = 0  # a single value needs no field (the table's values are 0 or -1)
        after = _layout(sig, remaining, pc)
        if after is None:
            return None
        own = np.zeros(MAX_ELEMS, dtype=np.int64)
        parent = -np.ones(MAX_ELEMS, dtype=np.int64)
        for x in range(TYPE_SIZES3[t]):
            a = before.labels[t, x]
            own[a] = own_labels[q][t, x]
            if after.n[t] > 0:
                parent[a] = after.labels[t, x]
        sites.append(_Site(q, t, before, after, own, table, parent))
        done[q] += 1
        before = after
    return sites


def _forward(sites: list[_Site], budget: float) -> "tuple[list | None, float, int]":
    """Transitions of every site, or ``None`` once the cost passes ``budget`` (``inf``: no limit).

    The cost counts each transition and new state once, plus each entry of the ``B`` vectors the
    backward pass will carry along it over :data:`VECTOR_SPEEDUP` (a multiply-add there is that many
    times cheaper than a transition here). Returns the transitions (``None`` if given up), the cost
    and the number of transitions and states made."""
    codes = np.zeros((1, 3), dtype=np.int64)
    pend = np.zeros(1, dtype=np.int64)
    out = []
    cost = 0.0
    effort = 0
    vlen = [1] * (len(sites) + 1)  # length of B after each site
    v = 1
    for i in range(len(sites) - 1, -1, -1):
        vlen[i + 1] = v
        if sites[i].q == ROOT:
            v = sites[i].first.size
    for i, site in enumerate(sites):
        t = site.t
        if site.q == ROOT:
            nb = site.branch.size
            codes = np.repeat(codes, nb, axis=0)
            codes[:, t] = np.tile(site.after.rt[t, site.branch], pend.size)  # nobody had chosen t
            pend = np.repeat(pend, nb)
            cost += pend.size
            effort += pend.size
            out.append(None)
            continue
        lay, nxt = site.before, site.after
        per = 1.0 + vlen[i + 1] / VECTOR_SPEEDUP
        left = -1 if budget == np.inf else max(0, int((budget - cost) / per))
        row_ptr, alpha, ways, next_index, codes, pend = _site_expand(
            codes, pend, t, lay.n[t], lay.sizes[t], lay.rt[t], lay.pr, lay.pc, site.q, site.own,
            site.table, site.parent, nxt.rt[t], nxt.mt, nxt.pr, nxt.pp, left)
        if row_ptr.size == 0:
            return None, cost, effort + int(left)
        cost += alpha.size * per + pend.size
        effort += int(alpha.size + pend.size)
        if cost > budget:
            return None, cost, effort
        out.append((row_ptr, alpha, ways, next_index))
    return out, cost, effort


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
        order: the order of the choices, ``((player, type), ...)``.
        work: estimated cost of the dynamic programme (transitions and states of the forward pass,
            plus the backward pass's vector entries over ``VECTOR_SPEEDUP``).
        effort: transitions and states of the forward pass.
    """

    counts: np.ndarray = field(repr=False)
    total: int
    n_players: int
    order: tuple[tuple[int, int], ...]
    work: int
    effort: int
    _root_cases: np.ndarray = field(repr=False)
    _root_cum: np.ndarray = field(repr=False)
    _sampling: tuple | None = field(repr=False)

    @property
    def can_sample(self) -> bool:
        """Whether the table kept what :meth:`sample` needs (``joint_table(..., sampling=True)``)."""
        return self._sampling is not None

    def sample(self, n: int, rng: "np.random.Generator | int | None" = None) -> np.ndarray:
        """Draw ``n`` joint assignments exactly from the uniform distribution over all of them.

        Args:
            n: number of draws (``>= 0``).
            rng: a :class:`numpy.random.Generator`, a seed, or ``None`` (fresh entropy).

        Returns:
            ``int64[n, k]``: column ``i`` is the case of player ``i`` (the table's input order),
            pairwise disjoint per type within each row.

        Raises:
            ValueError: ``n < 0``, no joint assignment exists (``total == 0``), or the table was
                built without ``sampling=True``.
        """
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        if self.total == 0:
            raise ValueError("no joint assignment is consistent with the case sets; nothing to sample")
        if self._sampling is None:
            raise ValueError("this JointTable was built without sampling=True")
        gen = np.random.default_rng(rng)
        if n == 0:
            return np.zeros((0, self.n_players), dtype=np.int64)
        sites, bs, root_index = self._sampling
        elems = np.zeros((self.n_players, 3, n), dtype=np.int64)
        idx = np.searchsorted(self._root_cum, gen.integers(0, self.total, size=n, dtype=np.int64), side="right")
        root = self._root_cases[idx]
        elems[ROOT] = root // 140, (root // 14) % 10, root % 14
        used = np.left_shift(np.int64(1), elems[ROOT])  # int64[3, n] type-local element bitmasks
        state = np.zeros(n, dtype=np.int64)
        comps = root_index[:, idx]  # int64[len(sites) + 1, n]: root's entry of B after each site
        avail = np.empty(n, dtype=np.int64)
        chosen = np.empty(n, dtype=np.int64)
        for i, site in enumerate(sites):
            q, t = site[0], site[1]
            if q == ROOT:
                pos, n_branches = site[2], site[3]
                state = state * n_branches + pos[elems[ROOT, t]]
                continue
            row_ptr, alpha, ways, next_index, masks = site[2:]
            b_next = bs[i + 1]
            r = gen.integers(0, bs[i][state, comps[i]], dtype=np.int64)
            _pick_class(state, comps[i + 1], r, row_ptr, alpha, ways, next_index, b_next, masks, used[t],
                        avail, chosen)
            _pick_element(chosen, gen.integers(0, avail, dtype=np.int64), used[t], elems[q, t])
        return (elems[:, 0] * 140 + elems[:, 1] * 14 + elems[:, 2]).T.copy()


def _relations(sig, lists, k):
    own_labels, rels = {}, {}
    for q in range(1, k):
        labels = np.stack([_refine_type(sig, np.array([q], dtype=np.int64), t)[0] for t in range(3)])
        own_labels[q] = labels
        rels[q] = _own_relation(lists[q], labels, labels.max(axis=1) + 1)
    return own_labels, rels


def _site_orders(rels: dict[int, np.ndarray], root_cases: np.ndarray, sig: np.ndarray,
                 k: int) -> list[list[tuple[int, int]]]:
    """The six type orders, as site orders, the most promising first.

    After the first type ``t1`` the state holds every player's open slice and ``B`` is a vector
    over the root's (t2, t3) classes; after the second, every player's open fiber along t3 and a
    vector over the root's t3 classes. The estimate multiplies these out (the vector entries
    discounted by :data:`VECTOR_SPEEDUP`). Within a type the players whose own sets tell the most
    classes of it apart choose first, so that their distinctions leave the state early (on the
    hardest positions measured this is 2 to 6 times less work than the reverse)."""
    if k == 1:
        return [[(ROOT, 0), (ROOT, 1), (ROOT, 2)]]
    n_slices = {q: [len({row.tobytes() for row in np.moveaxis(r, t, 0).reshape(r.shape[t], -1) if row.any()})
                    for t in range(3)] for q, r in rels.items()}
    n_fibers = {q: [len({row.tobytes() for row in np.moveaxis(r, t, -1).reshape(-1, r.shape[t]) if row.any()})
                    for t in range(3)] for q, r in rels.items()}
    el = np.stack([root_cases // 140, (root_cases // 14) % 10, root_cases % 14])
    members = np.arange(1, k, dtype=np.int64)
    root_classes = [_refine_type(sig, members, t)[0][el[t]] for t in range(3)]

    def estimate(order):
        t1, t2, t3 = order
        open1 = np.prod([n_slices[q][t1] for q in rels], dtype=float)
        open2 = np.prod([n_fibers[q][t3] for q in rels], dtype=float)
        pairs = np.unique(root_classes[t2] * 16 + root_classes[t3]).size
        singles = np.unique(root_classes[t3]).size
        return open1 * (1 + pairs / VECTOR_SPEEDUP) + open2 * (1 + singles / VECTOR_SPEEDUP), order

    orders = []
    for _, type_order in sorted(estimate(o) for o in permutations(range(3))):
        order = []
        for t in type_order:  # the players that tell the most classes of t apart first
            order += [(ROOT, t)] + [(q, t) for q in sorted(rels, key=lambda q: (-rels[q].shape[t], q))]
        orders.append(order)
    return orders


def joint_table(sets: "np.ndarray | list[np.ndarray]", sampling: bool = False) -> JointTable:
    """Exact joint-deal counts of a group of players, root first (docs/rules.md §3, §9).

    Args:
        sets: ``bool[k, 1680]`` (or a list of ``bool[1680]``), ``1 <= k <= 5``: the case set of each
            player, the root (whose per-case counts are returned) first. The sets must already
            respect everything but the disjointness between these players (the dynamic programme
            adds exactly that).
        sampling: keep what :meth:`JointTable.sample` needs (memory: the ``B`` vectors of every
            state).

    Returns:
        A :class:`JointTable`: ``counts[c]`` = number of ways to give every other player a case from
        its set such that all ``k`` cases are pairwise disjoint per type, the root's being ``c``.

    Raises:
        ValueError: wrong shapes, or no player / more than 5 players.
    """
    arr = np.ascontiguousarray(np.asarray(sets, dtype=bool))
    if arr.ndim != 2 or arr.shape[1] != NUM_CASES or not 1 <= arr.shape[0] <= 5:
        raise ValueError(f"sets must be bool[k, {NUM_CASES}] with 1 <= k <= 5, got shape {arr.shape}")
    k = arr.shape[0]
    lists = [np.flatnonzero(row).astype(np.int64) for row in arr]
    counts = np.zeros(NUM_CASES, dtype=np.int64)
    if any(c.size == 0 for c in lists):
        return JointTable(counts, 0, k, (), 0, 0, lists[0], np.zeros(0, np.int64), None)
    sig = _slice_signatures(arr)
    own_labels, rels = _relations(sig, lists, k)
    # the most promising type order whose state keys fit in int64 (in practice the first)
    for order in _site_orders(rels, lists[0], sig, k):
        sites = _plan(sig, rels, own_labels, order, k)
        if sites is not None:
            break
    entries = _root_keys(sites, lists[0])
    expansions, work, effort = _forward(sites, np.inf)
    # backward pass
    b = np.ones((1, 1), dtype=np.int64)
    bs = [b]
    for site, exp in zip(reversed(sites), reversed(expansions)):
        if site.q == ROOT:
            b = b.reshape(-1, site.branch.size, b.shape[1])[:, site.first, site.rest]
        else:
            b = _backward(exp[0], exp[2], exp[3], b)
        bs.append(b)
    bs.reverse()  # bs[i]: B before site i (bs[-1]: after the last site)
    root_counts = bs[0][0, entries[0]]
    counts[lists[0]] = root_counts
    total = int(root_counts.sum())
    keep = root_counts > 0
    sampling_data = None
    if sampling:
        packed = []
        for site, exp in zip(sites, expansions):
            if site.q == ROOT:
                pos = -np.ones(MAX_ELEMS, dtype=np.int64)  # branch of each element of the type
                for x in range(TYPE_SIZES3[site.t]):
                    hit = np.flatnonzero(site.branch == site.after.labels[site.t, x])
                    pos[x] = hit[0] if hit.size else -1
                packed.append((ROOT, site.t, pos, site.branch.size))
            else:
                masks = np.zeros(MAX_ELEMS, dtype=np.int64)
                for x in range(TYPE_SIZES3[site.t]):
                    masks[site.before.labels[site.t, x]] |= 1 << x
                packed.append((site.q, site.t, exp[0], exp[1], exp[2], exp[3], masks))
        sampling_data = (tuple(packed), tuple(bs), entries[:, keep])
    return JointTable(counts, total, k, tuple(order), int(work), effort, lists[0][keep], np.cumsum(root_counts[keep]),
                      sampling_data)


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
    return joint_table(np.stack([own] + [np.asarray(o, dtype=bool) for o in others])).counts
