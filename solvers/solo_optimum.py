"""Optimal play of Solo Time Attack (docs/rules.md §8): the least expected number of actions,
by exact branch and bound over the sets of consistent cases.

Problem (docs/rules.md §8, open queries): the program fixes a layout of the published daytime board and
draws the case uniformly from the 1680 triples; the player may ask any of the 36 clues, place up
to ``I`` investigators (default 5, one per district) and name cases; it pays one action for each,
the final correct solve included. What is the least expected number of actions over all policies?

**The state.** After any sequence of answers the player knows exactly the set ``S`` of cases
consistent with them (the posterior is uniform on ``S``) and the number ``k`` of investigators
left. Nothing else matters:

* the suppression rule of docs/rules.md §4.2 never changes what an investigator *tells*: a suppressed
  type's contribution is already known from the clue that put the marker there (spot: the tile is
  the case's, so the district's count gets a spot of that type; trace: it gets a trace), so it is
  constant over ``S`` and the partition of ``S`` by the answers is the unsuppressed one;
* a repeated clue, or an investigator in a district used before, cannot split ``S`` (its answer is
  already known), so "which districts were used" need not be part of the state.

So the answer of every query is a fixed table ``codes[a, case]`` (clues ``0..35``: 0 nothing,
1 trace, 2 spot; investigators ``36..49``: ``4·spots + traces``, at most 10 distinct values), and
the value is the recursion, in *total* actions over the cases of ``S`` (``T = |S| · E``)::

    T({c}, k) = 1
    T(S, k)   = |S| + min( min over queries a that split S:  Σ_answers T(S_a,v, k − [a inv]),
                           min over c in S:                  T(S − {c}, k) )     (a wrong solve)

A solve naming a case outside ``S`` is never useful; naming ``c ∈ S`` ends the game for that one
case and otherwise removes ``c`` — the optimum considers it everywhere.

**Exchange argument** (why a solve rarely needs searching). If naming ``c`` is followed by a query
``a`` (which then splits ``S − c``, so ``S`` too), asking ``a`` first and naming ``c`` first only in
the part ``P`` of ``c`` costs ``|P| − (|S| − 1) ≤ 0`` actions more in total (one more for ``c``, one
less for each of the ``|S| − |P| ≥ 1`` cases outside ``P``). So a solve can beat every query only
when a second solve follows it, and ``T(S, k) ≥ min(Q, |S| + (|S| − 1) + F(|S| − 2, k))`` with
``Q`` the best query's total: once that pair bound reaches the best value found, no solve needs
searching. (``|S| + T(S − c)`` itself can be far below the pair bound; it is bounded separately.)

**Exact search** (:class:`OptimalSearch`, numba kernels): depth-first branch and bound on
``(S, k)`` with a transposition table keyed by a 128-bit Zobrist hash of ``S`` and ``k`` (fixed
size, 4-way buckets; a full bucket gives up its smallest set, the cheapest to find again, so memory
stays bounded and results stay exact), values exact integers. At each node: drop queries that do
not split ``S``, queries with the same partition as an earlier one, and queries *dominated* by a
refinement (a query whose partition refines another's and costs no more investigators is at least
as good: ``T`` is monotone and superadditive under splitting); order the rest by a lower bound;
evaluate children largest first, each with the budget left (alpha cut-off); stop at the first
action whose bound reaches the best value found; then the solves, if the pair bound of the exchange
argument is below it. Lower bounds:

* the *counting bound* ``F(n, k)`` (:func:`counting_bound`): the least total cost of any tree
  over ``n`` leaves in which a solve ends one case and continues with the rest, a clue splits into
  at most 3 parts and each of at most ``k`` investigators into at most 10 — the bound of the exact
  Mastermind/Wordle searches, with the solve as its own kind of node;
* one step deeper with the real partition: ``|S| + Σ F(|S_v|)`` for a query, and
  ``|S| + |S|−1 + min(F(|S|−2), min_a Σ F(|S_a,v − {c}|))`` for a solve of ``c``;
* any bound already proven for the same ``(S, k)`` (table).

The search is *anytime*: with a node limit it stops early and every value it returns is then a
proven lower bound (never claimed exact); the table keeps every exact value and bound found, so
later calls build on earlier ones.

**Depth-limited lower bound** (:meth:`OptimalSearch.lower_bound`): ``B_d(S) = |S| + min(solve
bound, min_a Σ_v B_{d−1}(S_a,v))`` with ``B_0`` the counting bound (or a stored bound) and the
exact value on sets of at most ``exact_upto`` cases; each bound found is proven and stored, so the
next depth starts from it. Unlike a node-limited depth-first search it tightens every branch at
once, which is what an anytime bound at the top needs. With a *target* ``t`` (the best policy's
total divided by ``1 + gap``) nothing is refined beyond what is needed: a node's actions are
refined only until their bound reaches ``min(t, the node's current minimum)``, and each child only
up to what its action still needs (alpha-beta style budgets). Every stored value stays a proven
bound (a capped one is just weaker), and the result is at least ``min(B_d, t)``. On layout 0 this
took ``B_4`` to the 1 % target in about two minutes, where the untargeted ``B_4`` had not finished
in nine.

**Best policy** when the exact optimum is out of reach (:meth:`OptimalSearch.lookahead_value`): on
sets of at most ``exact_below`` cases the exact optimum; above, the query minimising
``Σ_v R(S_v)``, ``R`` the *rollout value* (:meth:`OptimalSearch.rollout_value`: the greedy
information-gain query until the set has at most ``exact_below`` cases, then optimal play) — a
policy-improvement step over the greedy with optimal endgames, never worse than it. Its expected
value is computed exactly over all cases. :meth:`OptimalSearch.solve_root` then runs the exact
branch and bound at the top with the bounds found so far and replaces it by anything better.

**Greedy**: :func:`pi_env.solvers.hints.greedy_expected_actions` — the exact expectation, over a uniform
case, of the greedy policy used to rate solo cases (:mod:`pi_env.apps.solo_cases`), which never names a
case before it is certain unless no query splits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core._config import kernel
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.engine import solo as S

from pi_env.solvers.hints import GAIN_TOLERANCE, best_gain_index, information_gains
from pi_env.solvers.tables import answer_tables

__all__ = ["answer_codes", "counting_bound", "OptimalSearch", "RootResult", "play_in_engine",
           "brute_force_value", "INF", "GUESS"]

INF = np.int64(1) << np.int64(60)
"""Stands for "no bound" in the kernels (far above any total cost)."""
GUESS = 64
"""Best-action code of naming case ``c``: ``GUESS + c`` (queries are their row index)."""
_POP3 = np.array([0, 1, 1, 2, 1, 2, 2, 3], dtype=np.int8)


def answer_codes(tile_district: "np.ndarray | Sequence[int]", board: Board = DAYTIME) -> np.ndarray:
    """``int8[50, 1680]``: the answer of every query to every case, unsuppressed (module docstring).

    Rows ``0..35`` clue on element ``x`` (0 nothing, 1 trace, 2 spot); rows ``36..49`` investigator
    in district ``d = row − 36`` (``4 · spots + traces``).
    """
    t = answer_tables(np.asarray(tile_district), board.adjacency)
    inv = _POP3[t.investigation_spots] * 4 + _POP3[t.investigation_traces]
    return np.ascontiguousarray(np.concatenate([t.clue_answers.astype(np.int8), inv.astype(np.int8)]))


@kernel
def _counting_kernel(nmax, kmax, b_clue, b_inv):
    F = np.zeros((nmax + 1, kmax + 1), dtype=np.int64)
    big = np.int64(1) << np.int64(60)
    for k in range(kmax + 1):
        Gq = np.full((b_clue + 1, nmax + 1), big, dtype=np.int64)  # Gq[j, m]: j parts summing to m
        Gi = np.full((b_inv + 1, nmax + 1), big, dtype=np.int64)
        for n in range(1, nmax + 1):
            if n == 1:
                F[n, k] = 1
            else:
                best = F[n - 1, k]  # a (wrong) solve ends one case, the rest continue
                for j in range(2, b_clue + 1):
                    v = big
                    for x in range(1, n):
                        w = F[x, k] + Gq[j - 1, n - x]
                        if w < v:
                            v = w
                    Gq[j, n] = v
                    if v < best:
                        best = v
                if k > 0:
                    for j in range(2, b_inv + 1):
                        v = big
                        for x in range(1, n):
                            w = F[x, k - 1] + Gi[j - 1, n - x]
                            if w < v:
                                v = w
                        Gi[j, n] = v
                        if v < best:
                            best = v
                F[n, k] = n + best
            Gq[1, n] = F[n, k]
            if k > 0:
                Gi[1, n] = F[n, k - 1]
    return F


@lru_cache(maxsize=8)
def _counting_cached(nmax: int, kmax: int, b_clue: int, b_inv: int) -> np.ndarray:
    out = _counting_kernel(nmax, kmax, b_clue, b_inv)
    out.flags.writeable = False
    return out


def counting_bound(nmax: int, kmax: int, b_clue: int = 3, b_inv: int = 10) -> np.ndarray:
    """``int64[nmax + 1, kmax + 1]``: ``F[n, k]``, a lower bound on the total cost ``T`` of any set
    of ``n`` cases with ``k`` investigators left when a clue has at most ``b_clue`` answers and an
    investigator at most ``b_inv`` (the counting bound, module docstring). ``F[n, k] / n`` bounds
    the expected actions.

    >>> F = counting_bound(4, 1)
    >>> [int(F[n, 0]) for n in range(5)], [int(F[n, 1]) for n in range(5)]
    ([0, 1, 3, 6, 9], [0, 1, 3, 6, 8])
    """
    return _counting_cached(int(nmax), int(kmax), int(b_clue), int(b_inv))


@kernel
def _mix(x):
    x = (x ^ (x >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    x = (x ^ (x >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    return x ^ (x >> np.uint64(33))


_WAYS = 4  # slots per bucket of the transposition table
_CHUNK_SECONDS = 5.0  # a timed search re-measures its speed (and checks the clock) this often


@kernel
def _tt_find(tk1, tk2, k1, k2):
    """Slot of key ``(k1, k2)`` in the table, or -1."""
    base = (k1 & np.uint64(tk1.size // _WAYS - 1)) * np.uint64(_WAYS)
    for j in range(_WAYS):
        i = np.int64(base) + j
        if tk1[i] == k1 and tk2[i] == k2:
            return i
    return np.int64(-1)


@kernel
def _tt_get(tk1, tk2, tlb, tub, tact, h1, h2, k, kz1, kz2):
    """``(lb, ub, action)`` stored for ``(S, k)`` (``(0, INF, -1)`` if none)."""
    k1 = (h1 ^ kz1[k]) | np.uint64(1)
    i = _tt_find(tk1, tk2, k1, h2 ^ kz2[k])
    if i < 0:
        return np.int64(0), np.int64(1) << np.int64(60), np.int64(-1)
    return np.int64(tlb[i]), np.int64(tub[i]), np.int64(tact[i])


@kernel
def _tt_put(tk1, tk2, tlb, tub, tact, tn, stats, h1, h2, k, kz1, kz2, lb, ub, act, n):
    """Store a bound; a full bucket gives up its smallest set (cheapest to find again)."""
    k1 = (h1 ^ kz1[k]) | np.uint64(1)
    k2 = h2 ^ kz2[k]
    base = np.int64((k1 & np.uint64(tk1.size // _WAYS - 1)) * np.uint64(_WAYS))
    slot = np.int64(-1)
    for j in range(_WAYS):
        i = base + j
        if tk1[i] == k1 and tk2[i] == k2:
            slot = i
            break
    if slot < 0:
        for j in range(_WAYS):
            i = base + j
            if tk1[i] == 0:
                slot = i
                stats[3] += 1
                break
    if slot < 0:
        slot = base
        for j in range(1, _WAYS):
            if tn[base + j] < tn[slot]:
                slot = base + j
        stats[4] += 1
    big = np.int64(1) << np.int64(30)
    tk1[slot] = k1
    tk2[slot] = k2
    tlb[slot] = np.int32(min(lb, big))
    tub[slot] = np.int32(min(ub, big))
    tact[slot] = np.int16(act)
    tn[slot] = np.int16(n)


@kernel
def _partitions(codes, is_inv, z1, z2, cases, k, dominance_from):
    """Per query: answer counts ``cnt[a, v]``, Zobrist hashes of its parts, and ``keep[a]``: it
    splits the set, its partition is new, and (sets of ``dominance_from`` cases or more) no query
    at no more investigators refines it strictly; ``usable[a]``: allowed with ``k`` left."""
    A = codes.shape[0]
    n = cases.size
    cnt = np.zeros((A, 16), dtype=np.int64)
    c1 = np.zeros((A, 16), dtype=np.uint64)
    c2 = np.zeros((A, 16), dtype=np.uint64)
    rep = np.full((A, 16), -1, dtype=np.int64)
    nparts = np.zeros(A, dtype=np.int64)
    usable = np.zeros(A, dtype=np.bool_)
    for a in range(A):
        if is_inv[a] and k == 0:
            continue
        usable[a] = True
        row = codes[a]
        for i in range(n):
            c = cases[i]
            v = row[c]
            if rep[a, v] < 0:
                rep[a, v] = c
                nparts[a] += 1
            cnt[a, v] += 1
            c1[a, v] ^= z1[c]
            c2[a, v] ^= z2[c]
    # drop queries that do not split, duplicates of an earlier partition, and dominated ones
    keep = np.zeros(A, dtype=np.bool_)
    sig = np.zeros(A, dtype=np.uint64)
    for a in range(A):
        if not usable[a] or nparts[a] < 2:
            continue
        sg = np.uint64(0)
        for v in range(16):
            if cnt[a, v] > 0:
                sg += _mix(c1[a, v] ^ _mix(c2[a, v]))
        sig[a] = sg
        dup = False
        for b in range(a):
            if keep[b] and sig[b] == sg and is_inv[b] <= is_inv[a]:
                dup = True
                break
        keep[a] = not dup
    if n >= dominance_from:
        acc = np.zeros(16, dtype=np.uint64)
        for b in range(A):
            if not keep[b]:
                continue
            for a in range(A):
                if a == b or not usable[a] or nparts[a] <= nparts[b] or (is_inv[a] and not is_inv[b]):
                    continue
                acc[:] = 0
                for v in range(16):
                    if rep[a, v] >= 0:
                        acc[codes[b, rep[a, v]]] ^= c1[a, v]
                same = True
                for w in range(16):
                    if acc[w] != c1[b, w]:
                        same = False
                        break
                if same:  # a's partition strictly refines b's, at no more investigators
                    keep[b] = False
                    break
    return cnt, c1, c2, keep, usable


@kernel
def _query_bounds(is_inv, F, kz1, kz2, tk1, tk2, tlb, tub, tact, cnt, c1, c2, keep, n, k):
    """The kept queries ``cand[:ncand]`` with their one-step lower bounds ``clb`` (``n + Σ_v`` of the
    children's bounds ``kid_lb[a, v]``: the counting bound, or a stored bound when larger)."""
    A = cnt.shape[0]
    cand = np.empty(A, dtype=np.int64)
    clb = np.empty(A, dtype=np.int64)
    kid_lb = np.zeros((A, 16), dtype=np.int64)
    ncand = 0
    for a in range(A):
        if not keep[a]:
            continue
        kk = k - 1 if is_inv[a] else k
        tot = n
        for v in range(16):
            m = cnt[a, v]
            if m == 0:
                continue
            b = F[m, kk]
            if m > 3:
                e = _tt_get(tk1, tk2, tlb, tub, tact, c1[a, v], c2[a, v], kk, kz1, kz2)
                if e[0] > b:
                    b = e[0]
            kid_lb[a, v] = b
            tot += b
        cand[ncand] = a
        clb[ncand] = tot
        ncand += 1
    return cand, clb, kid_lb, ncand


@kernel
def _search(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, cases, h1, h2, k, beta):
    """Branch and bound on ``(cases, k)`` (module docstring). Returns ``v``: the exact ``T`` if
    ``v < beta`` and the search was not aborted (``stats[2] == 0``), else a proven lower bound.

    ``stats``: [0] nodes expanded, [1] node limit (0 = none), [2] aborted flag, [3] table entries,
    [4] table replacements, [5] smallest set size checked for dominance.
    """
    n = cases.size
    big = np.int64(1) << np.int64(30)
    if n <= 1:
        return np.int64(n)
    if n == 2:
        return np.int64(3)
    if n == 3:
        return np.int64(6)  # = F[3, k]: a guess then a 2-set costs 3 + 3, nothing can do better
    lb = F[n, k]
    e = _tt_get(tk1, tk2, tlb, tub, tact, h1, h2, k, kz1, kz2)
    if e[0] > lb:
        lb = e[0]
    ub = e[1] if e[1] < big else big
    best_action = e[2]
    if lb >= ub or lb >= beta:
        return lb
    if stats[2] != 0 or (stats[1] > 0 and stats[0] >= stats[1]):
        stats[2] = 1
        return lb
    stats[0] += 1
    A = codes.shape[0]
    cnt, c1, c2, keep, usable = _partitions(codes, is_inv, z1, z2, cases, k, stats[5])
    cand, clb, kid_lb, ncand = _query_bounds(is_inv, F, kz1, kz2, tk1, tk2, tlb, tub, tact, cnt, c1, c2, keep,
                                             n, k)
    order = np.argsort(clb[:ncand], kind="mergesort")
    best = ub if ub < beta else beta
    found = ub  # value of the best policy known (big: none)
    node_lb = big  # min over actions of their proven lower bounds
    for oi in range(ncand):
        j = order[oi]
        la = clb[j]
        if la >= best or stats[2] != 0:
            if la < node_lb:
                node_lb = la
            break
        a = cand[j]
        kk = k - 1 if is_inv[a] else k
        vs = np.argsort(-cnt[a])
        total = la
        failed = False
        row = codes[a]
        for vi in range(16):
            v = vs[vi]
            m = cnt[a, v]
            if m == 0:
                break
            if m <= 3:
                continue  # exact already in la
            kid = np.empty(m, dtype=np.int16)
            p = 0
            for i in range(n):
                if row[cases[i]] == v:
                    kid[p] = cases[i]
                    p += 1
            budget = best - (total - kid_lb[a, v])
            val = _search(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, kid,
                          c1[a, v], c2[a, v], kk, budget)
            if val > kid_lb[a, v]:
                total += val - kid_lb[a, v]
            if stats[2] != 0 or total >= best:
                failed = True
                break
        if failed:
            if total < node_lb:
                node_lb = total
        else:
            best = total
            found = total
            best_action = a
    # naming a case c first: by the exchange argument (module docstring) T >= min(queries,
    # n + (n - 1) + F[n - 2]), so solves need searching only below that; then each one's own bound
    # n + T(S - c) >= n + (n - 1) + min(F[n - 2], one step deeper) orders and cuts them
    if stats[2] == 0 and n + (n - 1) + F[n - 2, k] < best:
        fsum = np.zeros(A, dtype=np.int64)
        for a in range(A):
            if usable[a]:
                kk = k - 1 if is_inv[a] else k
                for v in range(16):
                    if cnt[a, v] > 0:
                        fsum[a] += F[cnt[a, v], kk]
        glb = np.empty(n, dtype=np.int64)
        for i in range(n):
            c = cases[i]
            b1 = F[n - 2, k]
            for a in range(A):
                if not usable[a]:
                    continue
                kk = k - 1 if is_inv[a] else k
                m = cnt[a, codes[a, c]]
                alt = fsum[a] - F[m, kk] + F[m - 1, kk]
                if alt < b1:
                    b1 = alt
            g = n + (n - 1) + b1
            e = _tt_get(tk1, tk2, tlb, tub, tact, h1 ^ z1[c], h2 ^ z2[c], k, kz1, kz2)
            if n + e[0] > g:
                g = n + e[0]
            glb[i] = g
        gorder = np.argsort(glb, kind="mergesort")
        kid = np.empty(n - 1, dtype=np.int16)
        for oi in range(n):
            i = gorder[oi]
            g = glb[i]
            if g >= best or stats[2] != 0:
                if g < node_lb:
                    node_lb = g
                break
            c = cases[i]
            p = 0
            for q in range(n):
                if q != i:
                    kid[p] = cases[q]
                    p += 1
            val = _search(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, kid,
                          h1 ^ z1[c], h2 ^ z2[c], k, best - n)
            tot = n + val
            if stats[2] == 0 and tot < best:
                best = tot
                found = tot
                best_action = GUESS + c
            elif tot < node_lb:
                node_lb = tot
    else:
        g = n + (n - 1) + F[n - 2, k]
        if g < node_lb:
            node_lb = g
    if stats[2] == 0 and best < beta and found < big:
        _tt_put(tk1, tk2, tlb, tub, tact, tn, stats, h1, h2, k, kz1, kz2, best, best, best_action, n)
        return best
    # aborted or nothing below beta: T >= min(policy found, every other action's bound)
    if found < node_lb:
        node_lb = found
    if node_lb > lb:
        lb = node_lb
    _tt_put(tk1, tk2, tlb, tub, tact, tn, stats, h1, h2, k, kz1, kz2, lb, found,
            best_action if found < big else np.int64(-1), n)
    return lb


@kernel
def _bound(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, cases, h1, h2, k, depth,
           exact_upto, beta):
    """A proven lower bound on ``T(cases, k)`` looking ``depth`` actions ahead: the exact value on
    sets of at most ``exact_upto`` cases (:func:`_search`), the counting bound (or a stored bound)
    at depth 0, else ``n + min(solve bound, min over queries of the children's bounds)``.

    ``beta`` is the target: once an action's bound reaches it the action is not refined further,
    and each child is refined only up to what its action needs to reach the node's current
    minimum (alpha-beta style budgets). The result is then ``min(B_depth, beta)`` or more, still a
    proven bound. Improves the stored lower bound. ``stats``: [6] nodes, [7] node limit (0 = none),
    [8] stopped."""
    n = cases.size
    if n <= 1:
        return np.int64(n)
    if n == 2:
        return np.int64(3)
    if n == 3:
        return np.int64(6)
    e = _tt_get(tk1, tk2, tlb, tub, tact, h1, h2, k, kz1, kz2)
    lb = F[n, k]
    if e[0] > lb:
        lb = e[0]
    if lb >= e[1] or lb >= beta:
        return lb
    if n <= exact_upto:
        return _search(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, cases, h1, h2,
                       k, beta)
    if depth == 0 or stats[8] != 0 or (stats[7] > 0 and stats[6] >= stats[7]):
        if depth > 0:
            stats[8] = 1
        return lb
    stats[6] += 1
    cnt, c1, c2, keep, _ = _partitions(codes, is_inv, z1, z2, cases, k, stats[5])
    cand, clb, kid_lb, ncand = _query_bounds(is_inv, F, kz1, kz2, tk1, tk2, tlb, tub, tact, cnt, c1, c2, keep,
                                             n, k)
    # naming a case first: by the exchange argument (module docstring) the solves only matter
    # through the pair bound n + (n - 1) + F[n - 2] (each solve's own bound is never above it)
    cur = n + (n - 1) + F[n - 2, k]
    if e[1] < cur:
        cur = e[1]  # T <= a known policy's value
    if beta < cur:
        cur = beta  # nothing above the target is needed
    order = np.argsort(clb[:ncand], kind="mergesort")
    for oi in range(ncand):
        j = order[oi]
        la = clb[j]
        if la >= cur:
            break
        if stats[8] != 0:
            cur = la  # the least bound of the queries not looked at
            break
        a = cand[j]
        kk = k - 1 if is_inv[a] else k
        vs = np.argsort(-cnt[a])
        total = la
        row = codes[a]
        for vi in range(16):
            v = vs[vi]
            m = cnt[a, v]
            if m <= 3:
                break
            kid = np.empty(m, dtype=np.int16)
            p = 0
            for i in range(n):
                if row[cases[i]] == v:
                    kid[p] = cases[i]
                    p += 1
            val = _bound(codes, is_inv, F, z1, z2, kz1, kz2, tk1, tk2, tlb, tub, tact, tn, stats, kid,
                         c1[a, v], c2[a, v], kk, depth - 1, exact_upto, cur - (total - kid_lb[a, v]))
            if val > kid_lb[a, v]:
                total += val - kid_lb[a, v]
            if total >= cur:
                break
        if total < cur:
            cur = total
    if cur > lb:
        lb = cur
        _tt_put(tk1, tk2, tlb, tub, tact, tn, stats, h1, h2, k, kz1, kz2, lb, e[1], e[2], n)
    return lb


def _hashes(z1: np.ndarray, z2: np.ndarray, cases: np.ndarray) -> tuple[np.uint64, np.uint64]:
    if cases.size == 0:
        return np.uint64(0), np.uint64(0)
    return np.uint64(np.bitwise_xor.reduce(z1[cases])), np.uint64(np.bitwise_xor.reduce(z2[cases]))


class OptimalSearch:
    """Exact and anytime search of one answer table (see the module docstring).

    Args:
        codes: ``int[A, N]`` answer codes ``0..15`` of ``A`` queries for ``N`` cases (e.g.
            :func:`answer_codes`, or a synthetic table in tests).
        is_inv: ``bool[A]``, which queries use an investigator.
        investigators: the most investigators any call will have.
        b_clue, b_inv: most answers a clue / an investigator can have (for the counting bound;
            default: the most found in ``codes``).
        table_bits: the transposition table holds ``2**table_bits`` entries (26 bytes each); when
            it is full, entries of the smallest sets are replaced (they are the cheapest to find
            again), so memory stays fixed and results stay exact.
        dominance_from: check refinement dominance at sets of at least this many cases.
    """

    def __init__(self, codes: np.ndarray, is_inv: np.ndarray, investigators: int = 5,
                 b_clue: int | None = None, b_inv: int | None = None, table_bits: int = 20,
                 dominance_from: int = 12):
        self.codes = np.ascontiguousarray(codes, dtype=np.int8)
        self.is_inv = np.ascontiguousarray(is_inv, dtype=np.bool_)
        A, N = map(int, self.codes.shape)
        if self.is_inv.shape != (A,):
            raise PIError(f"is_inv must be bool[{A}]")
        if self.codes.min() < 0 or self.codes.max() > 15:
            raise PIError("answer codes must be 0..15")
        if N > 32767:
            raise PIError("at most 32767 cases")
        distinct = np.array([np.unique(r).size for r in self.codes]) if A else np.zeros(0, int)
        bq = b_clue if b_clue is not None else int(max([2] + list(distinct[~self.is_inv])))
        bi = b_inv if b_inv is not None else int(max([2] + list(distinct[self.is_inv])))
        self.investigators = int(investigators)
        self.F = np.ascontiguousarray(counting_bound(N, self.investigators, bq, bi))
        rng = np.random.default_rng(0x5EED)
        self.z1 = rng.integers(1, 2**63, N, dtype=np.uint64)
        self.z2 = rng.integers(1, 2**63, N, dtype=np.uint64)
        self.kz1 = rng.integers(1, 2**63, self.investigators + 1, dtype=np.uint64)
        self.kz2 = rng.integers(1, 2**63, self.investigators + 1, dtype=np.uint64)
        if not 4 <= int(table_bits) <= 34:
            raise PIError(f"table_bits must be 4..34 (2**bits entries of 26 bytes), got {table_bits}")
        size = 1 << int(table_bits)
        self.tk1 = np.zeros(size, dtype=np.uint64)
        self.tk2 = np.zeros(size, dtype=np.uint64)
        self.tlb = np.zeros(size, dtype=np.int32)
        self.tub = np.zeros(size, dtype=np.int32)
        self.tact = np.zeros(size, dtype=np.int16)
        self.tn = np.zeros(size, dtype=np.int16)
        self.stats = np.zeros(9, dtype=np.int64)
        self.stats[5] = dominance_from
        self.nodes = 0
        self.bound_nodes = 0
        self._rollout_cache: dict[tuple[bytes, int, int], int] = {}
        self._rate = 2000.0  # search nodes per second, re-measured by _timed_search

    # -- the kernel ------------------------------------------------------------------------
    def search(self, cases: np.ndarray, k: int, beta: int = int(INF),
               node_limit: int = 0) -> tuple[int, bool]:
        """``(value, exact)``: ``T(cases, k)`` exactly, or (when ``value >= beta`` or the node
        limit stopped the search) a proven lower bound with ``exact`` false."""
        cases = np.ascontiguousarray(np.sort(np.asarray(cases)), dtype=np.int16)
        if not 0 <= k <= self.investigators:
            raise PIError(f"k must be 0..{self.investigators}")
        stats = self.stats
        stats[0] = 0
        stats[1] = node_limit
        stats[2] = 0
        h1, h2 = _hashes(self.z1, self.z2, cases)
        v = int(_search(self.codes, self.is_inv, self.F, self.z1, self.z2, self.kz1, self.kz2, self.tk1,
                        self.tk2, self.tlb, self.tub, self.tact, self.tn, stats, cases, h1, h2, int(k),
                        np.int64(min(int(beta), int(INF)))))
        self.nodes += int(stats[0])
        return v, bool(stats[2] == 0 and v < beta)

    def value(self, cases: np.ndarray, k: int) -> int:
        """The exact optimum ``T`` (total actions over the cases) of ``(cases, k)``."""
        v, exact = self.search(cases, k)
        if not exact:  # pragma: no cover - an unlimited search always finishes
            raise RuntimeError("the exact search did not finish")
        return v

    def lower_bound(self, cases: np.ndarray, k: int, depth: int, exact_upto: int = 40,
                    node_limit: int = 0, target: int = int(INF)) -> tuple[int, bool]:
        """``(bound, complete)``: a proven lower bound on ``T`` looking ``depth`` actions ahead, exact
        on sets of at most ``exact_upto`` cases (:func:`_bound`); ``complete`` is false when the node
        limit stopped it (the bound is still proven). With a ``target`` (a total) nothing is refined
        beyond it: the bound is at least ``min(B_depth, target)``, found with far fewer nodes."""
        cases = np.ascontiguousarray(np.sort(np.asarray(cases)), dtype=np.int16)
        stats = self.stats
        stats[0] = stats[1] = stats[2] = 0
        stats[6], stats[7], stats[8] = 0, node_limit, 0
        h1, h2 = _hashes(self.z1, self.z2, cases)
        v = int(_bound(self.codes, self.is_inv, self.F, self.z1, self.z2, self.kz1, self.kz2, self.tk1,
                       self.tk2, self.tlb, self.tub, self.tact, self.tn, stats, cases, h1, h2, int(k),
                       int(depth), int(exact_upto), np.int64(min(int(target), int(INF)))))
        self.nodes += int(stats[0] + stats[6])
        self.bound_nodes += int(stats[6])
        return v, bool(stats[8] == 0)

    def best_action(self, cases: np.ndarray, k: int) -> int:
        """An optimal first action of a set solved exactly (query row, or ``GUESS + case``)."""
        cases = np.sort(np.asarray(cases)).astype(np.int16)
        if cases.size <= 3:
            return self._small_action(cases, k)
        self.value(cases, k)
        h1, h2 = _hashes(self.z1, self.z2, cases)
        return int(self._entry(h1, h2, k)[2])

    def _small_action(self, cases: np.ndarray, k: int) -> int:
        if cases.size <= 2:
            return GUESS + int(cases[0])
        for a in range(self.codes.shape[0]):  # a 3-way split (costs the same as guessing first)
            if (k > 0 or not self.is_inv[a]) and np.unique(self.codes[a, cases]).size == 3:
                return a
        return GUESS + int(cases[0])

    # -- children --------------------------------------------------------------------------
    def children(self, cases: np.ndarray, a: int) -> list[np.ndarray]:
        row = self.codes[a, cases]
        return [cases[row == v] for v in np.unique(row)]

    def queries(self, cases: np.ndarray, k: int) -> list[int]:
        """Queries that split ``cases``, without duplicate partitions (first kept)."""
        out, seen = [], set()
        for a in range(self.codes.shape[0]):
            if self.is_inv[a] and k == 0:
                continue
            row = self.codes[a, cases]
            if np.unique(row).size < 2:
                continue
            _, canon = np.unique(row, return_inverse=True)
            first: dict[int, int] = {}
            key = tuple(first.setdefault(int(x), len(first)) for x in canon)
            if key in seen:
                continue
            seen.add(key)
            out.append(a)
        return out

    # -- policies --------------------------------------------------------------------------
    def greedy_action(self, cases: np.ndarray, k: int) -> int | None:
        """The greedy's query (highest answer entropy, :func:`~pi_env.solvers.hints.best_gain_index`:
        ties to the lowest row) or ``None`` when no query splits ``cases``."""
        rows = np.flatnonzero(~self.is_inv | (k > 0))
        gains = information_gains(self.codes[np.ix_(rows, cases)], np.ones(cases.size))
        if gains.max() <= GAIN_TOLERANCE:
            return None
        return int(rows[best_gain_index(gains)])

    def rollout_value(self, cases: np.ndarray, k: int, exact_below: int) -> int:
        """Total cost of the greedy with optimal play on sets of at most ``exact_below`` cases."""
        cases = np.sort(np.asarray(cases)).astype(np.int16)
        if cases.size <= exact_below:
            return self.value(cases, k)
        key = (cases.tobytes(), k, exact_below)
        if key in self._rollout_cache:
            return self._rollout_cache[key]
        a = self.greedy_action(cases, k)
        if a is None:
            n = cases.size
            out = n * (n + 1) // 2
        else:
            kk = k - int(self.is_inv[a])
            out = cases.size + sum(self.rollout_value(ch, kk, exact_below) for ch in self.children(cases, a))
        self._rollout_cache[key] = out
        return out

    def lookahead_value(self, cases: np.ndarray, k: int, exact_below: int,
                        deadline: float | None = None) -> tuple[int, int | None]:
        """``(total, first query)`` of the lookahead policy: optimal on sets of at most
        ``exact_below`` cases; above, the query minimising ``Σ_v`` :meth:`rollout_value` of its
        children (a policy-improvement step over the rollout), then the same in each child. After
        ``deadline`` the remaining nodes follow the rollout. Never worse than the rollout."""

        def walk(cs: np.ndarray, kk: int) -> tuple[int, int | None]:
            if cs.size <= exact_below:
                return self.value(cs, kk), None
            if deadline is not None and time.monotonic() >= deadline:
                return self.rollout_value(cs, kk, exact_below), self.greedy_action(cs, kk)
            best_a, best_v = None, None
            for a in self.queries(cs, kk):
                k2 = kk - int(self.is_inv[a])
                v = cs.size + sum(self.rollout_value(ch, k2, exact_below) for ch in self.children(cs, a))
                if best_v is None or v < best_v:
                    best_a, best_v = a, v
            if best_a is None:  # nothing splits: name the cases one by one
                return cs.size * (cs.size + 1) // 2, None
            k2 = kk - int(self.is_inv[best_a])
            return cs.size + sum(walk(ch, k2)[0] for ch in self.children(cs, best_a)), best_a

        return walk(np.sort(np.asarray(cases)).astype(np.int16), k)

    def solve_root(self, cases: np.ndarray, k: int, upper: int, deadline: float | None = None,
                   progress=None) -> "RootResult":
        """Branch and bound at the top, in Python so that it can report and stop on time.

        Every query is taken in the order of its lower bound; its children (largest first) are
        searched with the budget left under the best total known (``upper`` at first: the total
        of a known policy); a query is refuted once its partial sum reaches that, or replaces it
        when all its children are exact. At the deadline the current child search stops (node
        limit from the measured speed) and the bound is the least over the queries of what was
        proven for each.

        Returns:
            A :class:`RootResult`.
        """
        cases = np.sort(np.asarray(cases)).astype(np.int16)
        n = cases.size
        best, best_action = int(upper), None
        proven: dict[int, int] = {}
        cands = []
        for a in self.queries(cases, k):
            kk = k - int(self.is_inv[a])
            kids = sorted(self.children(cases, a), key=lambda c: -c.size)
            lbs = [self._lb(c, kk) for c in kids]
            cands.append((n + sum(lbs), a, kk, kids, lbs))
        cands.sort(key=lambda t: (t[0], t[1]))
        stopped = False
        for la, a, kk, kids, lbs in cands:
            if la >= best:
                break
            total = la
            ok = True
            for c, lb in zip(kids, lbs):
                v, exact, stopped = self._timed_search(c, kk, best - (total - lb), deadline)
                total += max(v - lb, 0)
                if not exact:
                    ok = False
                    break
            if ok:
                best, best_action = total, a
            proven[a] = min(total, best) if not ok else total
            if progress is not None:
                progress(a, la, total, ok, best)
            if stopped:
                break
        # naming a case c first (wrong unless it is the one) costs n + T(S - c); by the exchange
        # argument (module docstring) it can only beat every query when a second solve follows,
        # which costs at least n + (n - 1) + F(n - 2): once that reaches `best`, no solve is searched
        pair = n + (n - 1) + int(self.F[max(n - 2, 0), k])
        guess_proven = [pair]
        if pair < best:
            guess_proven = []
            glbs = self._guess_bounds(cases, k)
            for i in np.argsort(glbs, kind="stable"):
                g = int(glbs[i])
                if g >= best or stopped or (deadline is not None and time.monotonic() >= deadline):
                    guess_proven.append(g)
                    break
                v, exact, stopped = self._timed_search(np.delete(cases, i), k, best - n, deadline)
                if exact and n + v < best:
                    best, best_action = n + v, GUESS + int(cases[i])
                else:
                    guess_proven.append(n + v)
        lower = min([best] + guess_proven + [p for p in proven.values()]
                    + [la for la, a, *_ in cands if a not in proven])
        return RootResult(upper=best, lower=lower, exact=lower >= best, best_action=best_action,
                          refuted=sum(1 for a in proven if proven[a] >= best and a != best_action),
                          queries=len(cands))

    def _timed_search(self, cases: np.ndarray, k: int, beta: int,
                      deadline: float | None) -> tuple[int, bool, bool]:
        """:meth:`search` until it is exact or reaches ``beta``, or until ``deadline``:
        ``(value, exact, stopped by the deadline)``. Runs in node-limited chunks of about
        ``_CHUNK_SECONDS`` at the measured speed; a stopped chunk's bounds stay in the table, so
        the next chunk builds on them."""
        if deadline is None:
            return (*self.search(cases, k, beta=beta), False)
        v = self._lb(np.sort(np.asarray(cases)).astype(np.int16), k)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return v, False, True
            t0, n0 = time.monotonic(), self.nodes
            v, exact = self.search(cases, k, beta=beta,
                                   node_limit=max(200, int(self._rate * min(left, _CHUNK_SECONDS))))
            dt = time.monotonic() - t0
            if dt > 0.2:
                self._rate = max(200.0, (self.nodes - n0) / dt)
            if exact or v >= beta or self.stats[2] == 0:
                return v, exact, False

    def _guess_bounds(self, cases: np.ndarray, k: int) -> np.ndarray:
        """``int64[n]``: the kernel's lower bound on naming each case first (module docstring)."""
        F = self.F
        n = cases.size
        rows = np.flatnonzero(~self.is_inv | (k > 0))
        if rows.size == 0:  # no query is allowed: only solves follow
            return np.full(n, n + (n - 1) + F[max(n - 2, 0), k], dtype=np.int64)
        kk = np.where(self.is_inv[rows], k - 1, k)
        labels = self.codes[np.ix_(rows, cases)].astype(np.int64)
        cnt = np.stack([np.bincount(r, minlength=16) for r in labels])
        fs = (np.where(cnt > 0, F[cnt, kk[:, None]], 0)).sum(1)
        own = np.take_along_axis(cnt, labels, 1)
        alt = fs[:, None] - F[own, kk[:, None]] + F[own - 1, kk[:, None]]
        b1 = np.minimum(alt.min(0), F[max(n - 2, 0), k])
        return n + (n - 1) + b1

    def _lb(self, cases: np.ndarray, k: int) -> int:
        """Best lower bound known for ``(cases, k)`` without searching (counting bound, memo)."""
        if cases.size <= 3:
            return (0, 1, 3, 6)[cases.size]
        h1, h2 = _hashes(self.z1, self.z2, cases)
        return int(max(self.F[cases.size, k], self._entry(h1, h2, k)[0]))

    def _entry(self, h1, h2, k: int) -> tuple[int, int, int]:
        return _tt_get(self.tk1, self.tk2, self.tlb, self.tub, self.tact, h1, h2, int(k), self.kz1, self.kz2)


@dataclass(frozen=True)
class RootResult:
    """Outcome of :meth:`OptimalSearch.solve_root` (totals over the cases)."""

    upper: int
    lower: int
    exact: bool
    best_action: int | None
    refuted: int
    queries: int


# ---------------------------------------------------------------------------------------------
# reference for tests


def brute_force_value(codes: np.ndarray, is_inv: np.ndarray, cases: Sequence[int], k: int) -> int:
    """Plain exhaustive recursion (no pruning, no bounds, no dominance) of the module docstring's
    ``T``, over bitmasks of the given cases; for tests on tiny instances (up to ~14 cases)."""
    cases = [int(c) for c in cases]
    n = len(cases)
    rows = [[int(codes[a, c]) for c in cases] for a in range(codes.shape[0])]
    inv = [bool(v) for v in np.asarray(is_inv)]

    @lru_cache(maxsize=None)
    def T(mask: int, kk: int) -> int:
        members = [i for i in range(n) if mask >> i & 1]
        size = len(members)
        if size == 1:
            return 1
        best = min(T(mask & ~(1 << i), kk) for i in members)  # name case i: wrong unless it is it
        for a, row in enumerate(rows):
            if inv[a] and kk == 0:
                continue
            parts: dict[int, int] = {}
            for i in members:
                parts[row[i]] = parts.get(row[i], 0) | (1 << i)
            if len(parts) < 2:
                continue
            k2 = kk - int(inv[a])
            best = min(best, sum(T(m, k2) for m in parts.values()))
        return size + best

    return T((1 << n) - 1, int(k)) if n else 0


def play_in_engine(opt: OptimalSearch, tile_district: np.ndarray, investigators: int,
                   first_action: int | None = None, cases: np.ndarray | None = None,
                   board: Board = DAYTIME) -> np.ndarray:
    """Play the exact optimal policy of ``opt`` in the solo engine on every case of ``cases``
    (default: all), the player starting out knowing that the case is one of them; ``int64[n]``:
    the actions each game took (the engine's own count, the final solve included).

    The player's knowledge is the set of cases consistent with the answers *the engine gives*
    (investigator counts turned back into unsuppressed ones with the markers on the board,
    docs/rules.md §4.2); the action at each set is :meth:`OptimalSearch.best_action` (``first_action`` at
    the top, where the search ran in :meth:`OptimalSearch.solve_root`). So the mean of the result
    is the policy's value measured by the rules engine, independent of the search's arithmetic.

    Raises:
        RuntimeError: the engine and the answer table disagree (the case left the set) or a game
            did not end solved.
    """
    config = S.SoloConfig(investigators=investigators, board=board)
    root = np.sort(np.asarray(cases if cases is not None else np.arange(opt.codes.shape[1]))).astype(np.int16)
    memo: dict[tuple[bytes, int], int] = {}
    if first_action is not None:
        memo[(root.tobytes(), investigators)] = int(first_action)
    out = np.zeros(root.size, dtype=np.int64)
    for i, case in enumerate(root.tolist()):
        st = S.from_layout(config, tile_district, case)
        cases, k = root, investigators
        while not bool(st.done[0]):
            key = (cases.tobytes(), k)
            if key not in memo:
                memo[key] = opt.best_action(cases, k)
            a = memo[key]
            if a >= GUESS:
                S.step_inplace(st, np.array([SOLVE_BASE + a - GUESS]), config)
                if not bool(st.done[0]):
                    cases = cases[cases != a - GUESS]
                continue
            S.step_inplace(st, np.array([a]), config)
            if a < INVESTIGATE_BASE:
                code = int(st.last_answer[0, 0])
            else:
                d = a - INVESTIGATE_BASE
                spots, traces = int(st.last_answer[0, 0]), int(st.last_answer[0, 1])
                for t in range(3):  # a suppressed type's marker is on its tile in d (docs/rules.md §4.2)
                    if st.inv_suppressed[0, d, t]:
                        tile = int(st.district_tile[0, d, t])
                        spots += int(st.spot[0, tile])
                        traces += int(st.trace[0, tile])
                code = 4 * spots + traces
                k -= 1
            cases = cases[opt.codes[a, cases] == code]
            if case not in cases:
                raise RuntimeError(f"case {case}: after action {a} the engine's answer {code} excludes it")
        if not bool(st.solved[0]):
            raise RuntimeError(f"case {case}: the game ended unsolved after {int(st.actions[0])} actions")
        out[i] = int(st.actions[0])
    return out
