"""The own-information filter at batch speed (docs/rules.md §4, §9): case sets, marginals and query gains
of a whole batch of positions in one numba call.

A player's **own-information case set** is the set of cases it can still have given only what it
knows by itself (exactly the row of the asking player in :func:`pi_env.solvers.case_sets.case_bits`,
i.e. :class:`~pi_env.solvers.case_sets.CaseFilter` of its :class:`~pi_env.solvers.knowledge.Knowledge`):

* the answers to its own clue cards (spot / trace / nothing, docs/rules.md §4.1) and investigators (spot and
  trace counts after the suppressed types, §4.2), its own failed solves and its correct solve (§4.3);
* the case it holds (player ``p + 1``'s): its elements are nobody else's (cases are disjoint per type,
  §3);
* the elements other players' spot markers and correct solves prove to be theirs.

Under the uniform deal prior and with that information alone, every case of the set is equally likely,
so the marginals are counts over the set. With 2 players this *is* the exact posterior (the only other
case is the one the player holds); with more players the exact posterior weighs each case by the joint
deals of the unknown players (:func:`pi_env.solvers.joint.count_joint`; batched in
:func:`joint_features`).

Entry points (each one numba call for the whole batch, ``prange`` over rows for large batches, see
:mod:`pi_env.core._config`):

====================================  ===============================================================
function                              input
====================================  ===============================================================
:func:`own_features`                  engine :class:`~pi_env.engine.State` + a player per game
:func:`observation_features`          engine observations ``int16[B, 618 + 1912·P]`` (seat 0 = the
                                      observer), what agents are given
:func:`solo_features`                 a Solo Time Attack :class:`~pi_env.engine.solo.SoloState`
:func:`solo_observation_features`     solo observations ``int16[B, 2452]``
:func:`query_gains`                   state + players: expected information gain of every query
:func:`solo_query_gains`              the same for solo games
:func:`joint_features`                state + players: the exact posterior (all players' answers)
:func:`seat_case_masks`               state + players: every player's case set as the player sees it
====================================  ===============================================================

The feature functions write ``float32[B, OWN_FEATURES]`` (layout :data:`OWN_LAYOUT`) and, when asked,
the case set itself as ``bool[B, 1680]`` (``mask=``):

============  ======  ===========================================================================
name          shape   meaning
============  ======  ===========================================================================
p_suspect     [12]    P(own suspect is s): the share of the set's cases with suspect s
p_evidence    [10]    P(own evidence is e)
p_location    [14]    P(own location is l)
log2_count    [1]     ``log2(n) / log2(1680)`` with ``n`` the size of the set (its entropy in bits,
                      scaled); 0 when ``n <= 1``
p_best        [1]     probability of the most likely case: ``1 / n`` (0 when ``n == 0``, which an
                      engine game never produces)
============  ======  ===========================================================================

The query gains (:func:`query_gains`) are ``float32[B, 50]`` in bits, indexed like the first 50
actions: entry ``x < 36`` is the expected entropy reduction of the own case set from asking the clue
card of element ``x`` (whether or not the card is on the display), entry ``36 + d`` that of placing an
investigator in district ``d`` (with the suppression the player's markers would cause, docs/rules.md §4.2;
0 for a district where it already has one). ``log2(n) - sum_a (n_a / n) log2(n_a)`` over the possible
answers ``a`` with ``n_a`` cases each; 0 when ``n <= 1``.

Everything is computed from what the player may know: the state kernels read the hidden cases only
for the case the player holds (``state.case[b, (p + 1) % P]``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, kernel, rule_step
from pi_env.core.board import Board
from pi_env.core.constants import NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS
from pi_env.core.errors import PIError
from pi_env.engine.observe import observation_layout, observation_size
from pi_env.engine.state import State

__all__ = ["OWN_FEATURES", "OWN_LAYOUT", "QUERY_GAINS", "JOINT_FEATURES", "own_features",
           "observation_features", "solo_features", "solo_observation_features", "query_gains",
           "solo_query_gains", "joint_features", "own_case_mask", "observation_case_mask",
           "solo_observation_case_mask", "adjacency_words", "seat_case_masks", "joint_case_counts"]

OWN_FEATURES = 38
"""Entries of the own-information features (:data:`OWN_LAYOUT`)."""
OWN_LAYOUT: dict[str, tuple[int, tuple[int, ...]]] = {
    "p_suspect": (0, (12,)), "p_evidence": (12, (10,)), "p_location": (22, (14,)),
    "log2_count": (36, (1,)), "p_best": (37, (1,))}
"""Offsets and shapes of the own-information features."""
QUERY_GAINS = NUM_ELEMENTS + NUM_DISTRICTS
"""Entries of :func:`query_gains`: 36 clue cards, then 14 districts."""
JOINT_FEATURES = 37
"""Entries of :func:`joint_features`: the :data:`OWN_LAYOUT` entries ``p_suspect .. log2_count``."""

_LOG2_CASES = math.log2(NUM_CASES)
_NLOGN = np.array([0.0] + [k * math.log2(k) for k in range(1, NUM_CASES + 1)], dtype=np.float64)
_NLOGN.flags.writeable = False
_LOG2 = np.array([0.0] + [math.log2(k) for k in range(1, NUM_CASES + 1)], dtype=np.float64)
_LOG2.flags.writeable = False
_NIBBLES = np.int64((1 << (4 * NUM_DISTRICTS)) - 1)  # 14 four-bit fields, one per district


def adjacency_words(board: "Board | np.ndarray") -> np.ndarray:
    """``int64[14]``: per district ``D``, one 4-bit field per district ``d`` (bits ``4d .. 4d+3``)
    holding ``1`` if ``d == D`` (a spot, docs/rules.md §4.2), ``4`` if ``d`` is adjacent to ``D`` (a trace),
    else 0.

    An element whose tile lies in ``D`` adds ``words[D]`` to the investigation answers of the 14
    districts at once: spot counts in bits ``4d, 4d+1``, trace counts in ``4d+2, 4d+3`` (at most 3
    each, so the sum over the three case elements never carries). Also used as the adjacency test:
    ``(words[D] >> 4d) & 4``.

    Args:
        board: a :class:`~pi_env.core.board.Board` or its district adjacency ``bool[14, 14]`` (or
            integers 0/1).

    Raises:
        PIError: one line naming ``board`` when it is neither (every function that takes a
            ``board`` and calls this one: :func:`joint_case_counts`, :func:`own_features`, ...).
    """
    adj = board.adjacency if isinstance(board, Board) else np.asarray(board)
    if adj.shape != (NUM_DISTRICTS, NUM_DISTRICTS) or adj.dtype.kind not in "biu":
        got = f"{adj.dtype}[{', '.join(map(str, adj.shape))}]" if isinstance(board, np.ndarray) else type(board).__name__
        raise PIError(f"board must be a Board or its district adjacency bool[{NUM_DISTRICTS}, {NUM_DISTRICTS}], "
                      f"got {got}")
    adj = adj.astype(bool)
    out = np.zeros(NUM_DISTRICTS, dtype=np.int64)
    for D in range(NUM_DISTRICTS):
        out[D] = 1 << (4 * D)
        for d in np.flatnonzero(adj[D]):
            out[D] |= 4 << (4 * int(d))
    return out


# ---------------------------------------------------------------------------------------------
# per-row core (shared by every source)


@kernel
def any_nonzero(values):
    """Whether any entry of a 1-D array is nonzero.

    Args:
        values: a 1-D integer or bool array (e.g. a player's failed-solve flags read as
            ``uint64[210]`` words, :func:`failed_solve_words`).

    Returns:
        ``bool``.
    """
    for i in range(values.shape[0]):
        if values[i] != 0:
            return True
    return False


@kernel
def _element_mask_of_case(c):
    """36-bit mask of the elements of case ``c``."""
    return ((np.int64(1) << np.int64(c // 140)) | (np.int64(1) << np.int64(12 + (c // 14) % 10))
            | (np.int64(1) << np.int64(22 + c % 14)))


@kernel
def clue_code(words, td, x, y):
    """The clue answer on element ``x`` for a case whose element of ``x``'s type is ``y``
    (docs/rules.md §4.1).

    Args:
        words: :func:`adjacency_words` of the board (``int64[14]``).
        td: ``int8[36]`` district of each element's tile.
        x, y: element ids (``0..35``) of the same type.

    Returns:
        ``int``: 0 nothing, 1 trace, 2 spot.
    """
    if x == y:
        return 2
    if (words[td[y]] >> np.int64(4 * td[x])) & 4:
        return 1
    return 0


@kernel
def district_codes(td, adjacency, markers, d, elcode):
    """``elcode[y]``: what element ``y`` of a case adds to the answer code ``4 * spots + traces`` of an
    investigator in district ``d`` (4 on ``d``, 1 next to it, 0 else or when the player's markers
    suppress ``y``'s type there, docs/rules.md §4.2).

    Args:
        td: ``int8[36]`` district of each element's tile; adjacency: ``bool[14, 14]``.
        markers: ``bool[36]`` the player's spot or trace markers; d: the district.
        elcode: ``int64[36]`` receives the codes.
    """
    keep = 7
    for y in range(NUM_ELEMENTS):
        if markers[y] and td[y] == d:
            keep &= ~(1 << (0 if y < 12 else (1 if y < 22 else 2)))
    for y in range(NUM_ELEMENTS):
        t = 0 if y < 12 else (1 if y < 22 else 2)
        if not keep & (1 << t):
            elcode[y] = 0
        elif td[y] == d:
            elcode[y] = 4
        elif adjacency[td[y], d]:
            elcode[y] = 1
        else:
            elcode[y] = 0


@kernel
def _allowed_elements(td, words, answer, excl):
    """36-bit mask of the elements not in ``excl`` that agree with every clue answer of their type
    (``answer``, ``td``, ``words``: as :func:`case_set` takes them)."""
    allowed = ((np.int64(1) << np.int64(NUM_ELEMENTS)) - 1) & ~excl
    for x in range(NUM_ELEMENTS):
        a = answer[x]
        if a < 0:
            continue
        o = 0 if x < 12 else (12 if x < 22 else 22)
        m = 12 if x < 12 else (10 if x < 22 else 14)
        keep = ~(((np.int64(1) << np.int64(m)) - 1) << np.int64(o))  # the other types
        for y in range(o, o + m):
            if clue_code(words, td, x, y) == a:
                keep |= np.int64(1) << np.int64(y)
        allowed &= keep
    return allowed


@kernel
def _only_case_fits(td, words, allowed, inv_mask, target, only, failed, check_failed):
    """Whether the one case ``only`` is in :func:`case_set`'s set: its elements allowed, its
    investigators' answer ``target``, and (``check_failed``) not a failed solve of the owner."""
    em = _element_mask_of_case(only)
    if (allowed & em) != em:
        return False
    s, e, l = only // 140, 12 + (only // 14) % 10, 22 + only % 14
    w = ((words[td[s]] & inv_mask[0]) + (words[td[e]] & inv_mask[1]) + (words[td[l]] & inv_mask[2]))
    return w == target and not (check_failed and failed[only])


@kernel
def case_set(td, words, answer, excl, inv_mask, target, only, failed, check_failed, need_members,
             members, cnt):
    """The case set of one player from its gathered information (:func:`gather_state`,
    :func:`apply_held`).

    Args:
        td: ``int8[36]`` district of each element's tile.
        words: :func:`adjacency_words` of the board.
        answer: ``int8[36]`` the owner's clue answer per element, ``-1`` for none.
        excl: 36-bit mask of elements that are not the owner's (held case, others' spots and
            correct solves).
        inv_mask: ``int64[3]`` per type, the 4-bit fields (districts) where the owner's
            investigators count that type (not suppressed).
        target: the owner's investigation answers packed like :func:`adjacency_words`; ``-1``: an
            impossible answer (empty set).
        only: ``-1``, or the one case the owner can have (its correct solve / the held case).
        failed: ``[1680]`` nonzero where the owner failed a solve; read only if ``check_failed``.
        need_members: write ``members`` (else a product set is counted in closed form).
        members: ``int16[1680]`` receives the set's cases (ascending) when ``need_members``.
        cnt: ``int64[36]`` receives per element the number of the set's cases containing it.

    Returns:
        ``int``: the set's size ``n``.
    """
    for x in range(NUM_ELEMENTS):
        cnt[x] = 0
    if target < 0:
        return 0
    allowed = _allowed_elements(td, words, answer, excl)
    if only >= 0:
        if not _only_case_fits(td, words, allowed, inv_mask, target, only, failed, check_failed):
            return 0
        s, e, l = only // 140, 12 + (only // 14) % 10, 22 + only % 14
        cnt[s] = 1
        cnt[e] = 1
        cnt[l] = 1
        if need_members:
            members[0] = only
        return 1
    ls = np.empty(14, dtype=np.int64)
    lw = np.empty(14, dtype=np.int64)
    nl = 0
    for l in range(22, 36):
        if (allowed >> np.int64(l)) & 1:
            ls[nl] = l
            lw[nl] = words[td[l]] & inv_mask[2]
            nl += 1
    if inv_mask[0] == 0 and inv_mask[1] == 0 and inv_mask[2] == 0 and not check_failed and not need_members:
        ns = 0
        ne = 0
        for y in range(12):
            ns += (allowed >> np.int64(y)) & 1
        for y in range(12, 22):
            ne += (allowed >> np.int64(y)) & 1
        if target != 0:
            return 0
        for y in range(36):
            if (allowed >> np.int64(y)) & 1:
                cnt[y] = (ne * nl) if y < 12 else ((ns * nl) if y < 22 else ns * ne)
        return ns * ne * nl
    n = 0
    for s in range(12):
        if not (allowed >> np.int64(s)) & 1:
            continue
        ws = words[td[s]] & inv_mask[0]
        for e in range(12, 22):
            if not (allowed >> np.int64(e)) & 1:
                continue
            wse = ws + (words[td[e]] & inv_mask[1])
            base = s * 140 + (e - 12) * 14
            k = 0
            for i in range(nl):
                if wse + lw[i] == target:
                    c = base + ls[i] - 22
                    if check_failed and failed[c]:
                        continue
                    cnt[ls[i]] += 1
                    if need_members:
                        members[n] = c
                    n += 1
                    k += 1
            cnt[s] += k
            cnt[e] += k
    return n


@kernel
def case_rows(td, words, answer, excl, inv_mask, target, only, failed, check_failed, rows):
    """:func:`case_set`'s set as location masks: ``rows[s, e]`` the locations ``l`` (bit ``l``,
    type-local ``0..13``) of its cases ``(s, e, l)`` (suspect ``0..11``, evidence ``0..9``), the
    form :func:`case_boxes` groups into boxes, written without listing the cases.

    Args:
        td, words, answer, excl, inv_mask, target, only, failed, check_failed: as :func:`case_set`.
        rows: ``int64[12, 10]`` receives the masks.

    Returns:
        ``int``: the set's size (as :func:`case_set`'s).
    """
    rows[:] = 0
    if target < 0:
        return 0
    allowed = _allowed_elements(td, words, answer, excl)
    if only >= 0:
        if not _only_case_fits(td, words, allowed, inv_mask, target, only, failed, check_failed):
            return 0
        rows[only // 140, (only // 14) % 10] = np.int64(1) << np.int64(only % 14)
        return 1
    # the allowed locations grouped by what they add to the investigators' answers: a case (s, e, l)
    # fits when l's share is the target minus s's and e's
    vals = np.empty(14, dtype=np.int64)
    masks = np.zeros(14, dtype=np.int64)
    nv = 0
    for l in range(14):
        if (allowed >> np.int64(22 + l)) & 1:
            w = words[td[22 + l]] & inv_mask[2]
            k = 0
            while k < nv and vals[k] != w:
                k += 1
            if k == nv:
                vals[k] = w
                nv += 1
            masks[k] |= np.int64(1) << np.int64(l)
    n = 0
    for s in range(12):
        if not (allowed >> np.int64(s)) & 1:
            continue
        ws = words[td[s]] & inv_mask[0]
        for e in range(12, 22):
            if not (allowed >> np.int64(e)) & 1:
                continue
            need = target - ws - (words[td[e]] & inv_mask[1])
            mask = np.int64(0)
            for k in range(nv):
                if vals[k] == need:
                    mask = masks[k]
                    break
            if check_failed:
                base = s * 140 + (e - 12) * 14
                for l in range(14):
                    if (mask >> np.int64(l)) & 1 and failed[base + l]:
                        mask &= ~(np.int64(1) << np.int64(l))
            rows[s, e - 12] = mask
            n += _bits(mask)
    return n


@kernel
def members_of_rows(rows, members):
    """The cases of location masks ``rows`` (:func:`case_rows`) listed ascending into ``members``
    (``int16[>= n]``); returns their number ``n``."""
    n = 0
    for s in range(12):
        for e in range(10):
            m = rows[s, e]
            if m == 0:
                continue
            base = s * 140 + e * 14
            for l in range(14):
                if (m >> np.int64(l)) & 1:
                    members[n] = base + l
                    n += 1
    return n


@kernel
def _write_features(cnt, n, row):
    """The :data:`OWN_LAYOUT` features of a set with ``n`` cases and element counts ``cnt``."""
    if n == 0:
        for i in range(row.shape[0]):
            row[i] = 0.0
        return
    inv = 1.0 / n
    for x in range(NUM_ELEMENTS):
        row[x] = cnt[x] * inv
    row[36] = _LOG2[n] / _LOG2_CASES
    row[37] = inv


@kernel
def _write_mask(members, n, mask_row):
    for c in range(NUM_CASES):
        mask_row[c] = False
    for i in range(n):
        mask_row[members[i]] = True


@kernel
def _near_counts(td, words, cnt):
    """``int64[3, 14]``: ``[t, D]`` = the cases (of a set with element counts ``cnt``) whose type-``t``
    element's tile lies in a district next to ``D`` — those a clue card whose tile is in ``D``
    answers with a trace (docs/rules.md §4.1)."""
    by_district = np.zeros((3, NUM_DISTRICTS), dtype=np.int64)  # count of the type's element in d
    for y in range(NUM_ELEMENTS):
        if cnt[y]:
            by_district[0 if y < 12 else (1 if y < 22 else 2), td[y]] = cnt[y]
    near = np.zeros((3, NUM_DISTRICTS), dtype=np.int64)
    for D in range(NUM_DISTRICTS):
        w = words[D]
        for d in range(NUM_DISTRICTS):
            if (w >> np.int64(4 * d)) & 4:
                near[0, D] += by_district[0, d]
                near[1, D] += by_district[1, d]
                near[2, D] += by_district[2, d]
    return near


@kernel
def clue_gains(td, words, cnt, n, out):
    """Expected entropy reduction (bits) of each of the 36 clue cards for a uniform set of ``n``
    cases: the answer depends only on the case's element of the card's type — a spot for the
    card's own element, a trace for the elements whose tiles lie next to the card's tile
    (docs/rules.md §4.1), nothing for the rest.

    Args:
        td: ``int8[36]`` district of each element's tile; words: :func:`adjacency_words`.
        cnt: ``int64[36]`` the set's element counts (:func:`case_set`); n: its size.
        out: ``float64[36]`` (or float32) receives the gains.
    """
    if n <= 1:
        for x in range(NUM_ELEMENTS):
            out[x] = 0.0
        return
    h = _LOG2[n]
    near = _near_counts(td, words, cnt)
    for x in range(NUM_ELEMENTS):
        n2 = cnt[x]
        n1 = near[0 if x < 12 else (1 if x < 22 else 2), td[x]]
        n0 = n - n1 - n2
        if n0 == n or n1 == n or n2 == n:  # the answer is known: exactly no information
            out[x] = 0.0
        else:
            out[x] = max(0.0, h - (_NLOGN[n0] + _NLOGN[n1] + _NLOGN[n2]) / n)


@kernel
def district_gains(td, words, cnt, members, n, product, failed, check_failed, hyp_mask, placed, hist, out):
    """Expected entropy reduction (bits) of an investigator in each district for the set
    ``members[:n]`` (element counts ``cnt``); ``hyp_mask[t]``: the 4-bit fields of the districts
    where type ``t`` would not be suppressed; ``placed``: 14-bit mask of districts that get 0
    (already investigated).

    ``product``: the set is every combination of the elements with ``cnt > 0`` except the failed
    solves (no investigator constrains it); then the answer histogram of each district is a
    product of per-type counts, corrected for the failed cases, instead of a pass over the set.

    Args:
        td: ``int8[36]``; words: :func:`adjacency_words`; cnt: ``int64[36]``; members:
            ``int16[1680]`` (the first ``n`` used); n: the set's size; product: ``bool``.
        failed: ``[1680]`` the owner's failed solves, read when ``check_failed``.
        hyp_mask: ``int64[3]`` (:func:`hypothesis_masks`); placed: ``int`` 14-bit mask.
        hist: ``int64[224]`` scratch; out: ``float64[14]`` (or float32) receives the gains.
    """
    if n <= 1:
        for d in range(NUM_DISTRICTS):
            out[d] = 0.0
        return
    for i in range(NUM_DISTRICTS * 16):
        hist[i] = 0
    if product:
        by_code = np.zeros((NUM_DISTRICTS, 3, 5), dtype=np.int64)  # [d, type, answer code 0/1/4]
        size = np.zeros(3, dtype=np.int64)
        for y in range(NUM_ELEMENTS):
            if cnt[y] > 0:
                t = 0 if y < 12 else (1 if y < 22 else 2)
                size[t] += 1
                w = words[td[y]] & hyp_mask[t]
                for d in range(NUM_DISTRICTS):
                    k = (w >> np.int64(4 * d)) & 15
                    if k:
                        by_code[d, t, k] += 1
        for d in range(NUM_DISTRICTS):
            if (placed >> d) & 1:
                continue
            for t in range(3):
                by_code[d, t, 0] = size[t] - by_code[d, t, 1] - by_code[d, t, 4]
            for a in (0, 1, 4):
                na = by_code[d, 0, a]
                if na == 0:
                    continue
                for b2 in (0, 1, 4):
                    nb = na * by_code[d, 1, b2]
                    if nb == 0:
                        continue
                    for c in (0, 1, 4):
                        hist[d * 16 + a + b2 + c] += nb * by_code[d, 2, c]
        if check_failed:
            for c in range(NUM_CASES):
                if failed[c]:
                    s = c // 140
                    e = 12 + (c // 14) % 10
                    l = 22 + c % 14
                    if cnt[s] > 0 and cnt[e] > 0 and cnt[l] > 0:
                        w = ((words[td[s]] & hyp_mask[0]) + (words[td[e]] & hyp_mask[1])
                             + (words[td[l]] & hyp_mask[2]))
                        for d in range(NUM_DISTRICTS):
                            hist[d * 16 + ((w >> np.int64(4 * d)) & 15)] -= 1
    else:
        m0 = hyp_mask[0]
        m1 = hyp_mask[1]
        m2 = hyp_mask[2]
        for i in range(n):
            c = np.int64(members[i])
            w = ((words[td[c // 140]] & m0) + (words[td[12 + (c // 14) % 10]] & m1)
                 + (words[td[22 + c % 14]] & m2))
            for d in range(NUM_DISTRICTS):
                hist[d * 16 + ((w >> np.int64(4 * d)) & 15)] += 1
    h = _LOG2[n]
    for d in range(NUM_DISTRICTS):
        if (placed >> d) & 1:
            out[d] = 0.0
            continue
        acc = 0.0
        known = False
        for k in range(16):
            acc += _NLOGN[hist[d * 16 + k]]
            known = known or hist[d * 16 + k] == n
        out[d] = 0.0 if known else max(0.0, h - acc / n)


@kernel
def hypothesis_masks(td, spot_row, trace_row, out):
    """``out[t]``: the 4-bit fields of the districts where a new investigator of the player would
    count type ``t`` (its tile there carries none of the player's markers, docs/rules.md §4.2).

    Args:
        td: ``int8[36]`` district of each element's tile.
        spot_row, trace_row: ``bool[36]`` the player's spot and trace markers.
        out: ``int64[3]`` receives the masks (for :func:`district_gains`).
    """
    for t in range(3):
        out[t] = _NIBBLES
    for x in range(NUM_ELEMENTS):
        if spot_row[x] or trace_row[x]:
            t = 0 if x < 12 else (1 if x < 22 else 2)
            out[t] &= ~(np.int64(15) << np.int64(4 * td[x]))


# ---------------------------------------------------------------------------------------------
# gathering a player's information from an engine state


@kernel
def gather_state(b, q, P, spot, trace, front, inv_count, inv_district, inv_answer,
                 inv_suppressed, solved_case, answer, inv_mask):
    """Player ``q``'s information in game ``b``: its clue answers (into ``answer``), the districts
    where its investigators count each type (into ``inv_mask``) and ``(excl, target, only)`` as
    :func:`case_set` takes them (the other players' spots and correct solves excluded; its own
    correct solve as ``only``). The held case is added by :func:`apply_held`.

    Args:
        b, q, P: the game (row), the player, the player count.
        spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case: the
            state's arrays (:class:`pi_env.engine.State`, ``[B, P, ...]``).
        answer: ``int8[36]`` receives the clue answers (``-1`` none, 0 nothing, 1 trace, 2 spot).
        inv_mask: ``int64[3]`` receives the investigator masks.

    Returns:
        ``(excl, target, only)``: ``int64`` each, as :func:`case_set` takes them.
    """
    excl = np.int64(0)
    only = np.int64(-1)
    for r in range(P):
        if r == q:
            continue
        for x in range(NUM_ELEMENTS):
            if spot[b, r, x]:
                excl |= np.int64(1) << np.int64(x)
        c = solved_case[b, r]
        if c >= 0:
            excl |= _element_mask_of_case(np.int64(c))
    for x in range(NUM_ELEMENTS):
        if spot[b, q, x]:
            answer[x] = 2
        elif trace[b, q, x]:
            answer[x] = 1
        elif front[b, q, x]:
            answer[x] = 0
        else:
            answer[x] = -1
    target = np.int64(0)
    inv_mask[0] = 0
    inv_mask[1] = 0
    inv_mask[2] = 0
    for k in range(inv_count[b, q]):
        d = np.int64(inv_district[b, q, k])
        ns = np.int64(inv_answer[b, q, k, 0])
        nt = np.int64(inv_answer[b, q, k, 1])
        if ns < 0 or nt < 0 or ns > 3 or nt > 3:
            target = np.int64(-1)
            break
        target |= (ns | (nt << 2)) << (4 * d)
        for t in range(3):
            if not inv_suppressed[b, q, k, t]:
                inv_mask[t] |= np.int64(15) << (4 * d)
    own = solved_case[b, q]
    if own >= 0:
        only = np.int64(own)
    return excl, target, only


@kernel
def apply_held(q, h, held, excl, only):
    """Fold the held case (of player ``h``) into ``(excl, only)`` of player ``q``.

    Args:
        q, h: the player whose set is built, the player whose case is held.
        held: the held case id (``-1``: none); excl, only: ``int64`` from :func:`gather_state`.

    Returns:
        ``(excl, only)``: ``int64`` each; ``only == -2`` means the set is empty (two different
        single cases).
    """
    if held < 0:
        return excl, only
    if q == h:
        if only >= 0 and only != held:
            return excl, np.int64(-2)
        return excl, np.int64(held)
    return excl | _element_mask_of_case(held), only


@kernel
def held_case_of(case, b, h):
    """The case id (``0..1679``) of player ``h`` in game ``b`` of ``case`` (``int8[B, P, 3]``, the
    state's suspect, evidence, location per player)."""
    return np.int64(case[b, h, 0]) * 140 + np.int64(case[b, h, 1]) * 14 + np.int64(case[b, h, 2])


@kernel
def seat_case_set(b, q, P, h, held, td, words, st, need_members, answer, inv_mask, members, cnt):
    """The case set of player ``q`` in game ``b`` as the asking player sees it, with player ``h``'s
    case ``held`` known (docs/rules.md §9): :func:`gather_state`, then :func:`apply_held`, then
    :func:`case_set` — the one step every joint-posterior kernel repeats per seat.

    Args:
        b, q, P: the game (row), the player whose set is built, the player count.
        h, held: the player whose case the asking player holds and that case's id (``0..1679``,
            :func:`held_case_of`; ``-1``: none).
        td: ``int8[36]`` district of each element's tile (the game's ``tile_district`` row).
        words: :func:`adjacency_words` of the board.
        st: the state's per-player arrays ``(spot, trace, front, inv_count, inv_district,
            inv_answer, inv_suppressed, solved_case, failed_words, failed)`` (:class:`pi_env.engine.State`,
            ``[B, P, ...]``).
        need_members: write ``members`` (:func:`case_set`).
        answer: ``int8[36]``, inv_mask: ``int64[3]``: scratch (:func:`gather_state`).
        members: ``int16[1680]`` receives the set's cases (ascending) when ``need_members``.
        cnt: ``int64[36]`` receives the per-element counts of the set.

    Returns:
        ``int``: the set's size (0 when the held case contradicts ``q``'s own correct solve).
    """
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    excl, target, only = gather_state(b, q, P, spot, trace, front, inv_count, inv_district, inv_answer,
                                      inv_suppressed, solved_case, answer, inv_mask)
    excl, only = apply_held(q, h, held, excl, only)
    if only == -2:
        target = np.int64(-1)
    return case_set(td, words, answer, excl, inv_mask, target, only, failed[b, q], any_nonzero(failed_words[b, q]),
                    need_members, members, cnt)


@kernel
def seat_case_rows(b, q, P, h, held, td, words, st, answer, inv_mask, rows):
    """:func:`seat_case_set`'s set as the location masks of :func:`case_rows` (into ``rows``,
    ``int64[12, 10]``; the arguments otherwise :func:`seat_case_set`'s); returns its size."""
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    excl, target, only = gather_state(b, q, P, spot, trace, front, inv_count, inv_district, inv_answer,
                                      inv_suppressed, solved_case, answer, inv_mask)
    excl, only = apply_held(q, h, held, excl, only)
    if only == -2:
        target = np.int64(-1)
    return case_rows(td, words, answer, excl, inv_mask, target, only, failed[b, q], any_nonzero(failed_words[b, q]),
                     rows)


_CHUNK = 32  # rows per scratch allocation in the batch kernels


@kernel
def _scratch():
    """Per-chunk work arrays: clue answers, investigation masks, element counts, members,
    hypothetical suppression masks, district histograms, tile districts."""
    return (np.empty(NUM_ELEMENTS, dtype=np.int8), np.empty(3, dtype=np.int64),
            np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty(NUM_CASES, dtype=np.int16),
            np.empty(3, dtype=np.int64), np.empty(NUM_DISTRICTS * 16, dtype=np.int64),
            np.empty(NUM_ELEMENTS, dtype=np.int64))


@kernel
def _finish_row(td, words, answer, excl, inv_mask, target, only, failed, check_failed, own_spot, own_trace,
                placed, want_mask, want_gains, cnt, members, hyp, hist, feat_row, mask_row, gains_row):
    """The case set of one player from its gathered information, then its features (always), its
    mask and its query gains (if wanted). ``own_spot`` / ``own_trace``: its markers (``[36]``, for
    the suppression a new investigator would meet); ``placed``: 14-bit mask of the districts of its
    investigators. Returns the set's size."""
    product = (inv_mask[0] | inv_mask[1] | inv_mask[2]) == 0
    n = case_set(td, words, answer, excl, inv_mask, target, only, failed, check_failed,
                  want_mask or (want_gains and not product), members, cnt)
    _write_features(cnt, n, feat_row)
    if want_mask:
        _write_mask(members, n, mask_row)
    if want_gains:
        hypothesis_masks(td, own_spot, own_trace, hyp)
        clue_gains(td, words, cnt, n, gains_row[:NUM_ELEMENTS])
        district_gains(td, words, cnt, members, n, product, failed, check_failed, hyp, placed, hist,
                        gains_row[NUM_ELEMENTS:])
    return n


@batch_kernel
def _state_kernel(players, words, want_mask, want_gains, feat, mask, gains, tile_district, case,
                  spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed,
                  failed_words, solved_case, failed):
    """Own features (``feat``), case set (``mask``, if ``want_mask``) and query gains (``gains``, if
    ``want_gains``) of player ``players[b]`` in every game ``b``."""
    P = case.shape[1]
    B = players.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, _ = _scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            p = players[b]
            h = (p + 1) % P
            excl, target, only = gather_state(b, p, P, spot, trace, front, inv_count, inv_district,
                                               inv_answer, inv_suppressed, solved_case, answer, inv_mask)
            excl, only = apply_held(p, h, held_case_of(case, b, h), excl, only)
            if only == -2:
                target = np.int64(-1)
            placed = 0
            for k in range(inv_count[b, p]):
                placed |= 1 << np.int64(inv_district[b, p, k])
            _finish_row(tile_district[b], words, answer, excl, inv_mask, target, only, failed[b, p],
                        any_nonzero(failed_words[b, p]), spot[b, p], trace[b, p], placed, want_mask, want_gains, cnt,
                        members, hyp, hist, feat[b], mask[b] if want_mask else mask[0:0].reshape(-1),
                        gains[b] if want_gains else gains[0:0].reshape(-1))


# ---------------------------------------------------------------------------------------------
# gathering a player's information from observations (standard and solo)


@kernel
def _obs_districts(o, off_tiles, td):
    """``td[x]``: the district of element ``x``'s tile from the one-hot ``tiles`` block."""
    for x in range(NUM_ELEMENTS):
        td[x] = 0
        for d in range(NUM_DISTRICTS):
            if o[off_tiles + x * NUM_DISTRICTS + d] != 0:
                td[x] = d
                break


@kernel
def _obs_case(o, start):
    """Case id of a 36-entry one-hot element block holding one element of each type, else -1."""
    s = -1
    e = -1
    l = -1
    for x in range(NUM_ELEMENTS):
        if o[start + x] != 0:
            if x < 12:
                s = x
            elif x < 22:
                e = x - 12
            else:
                l = x - 22
    if s < 0 or e < 0 or l < 0:
        return np.int64(-1)
    return np.int64(s * 140 + e * 14 + l)


@kernel
def _gather_answers(o, spot_at, trace_at, nothing_at, placed_at, spots_at, traces_at, sup_at,
                    answer, inv_mask):
    """One player's clue answers and investigators from an observation's per-element blocks
    (``spot_at`` etc.: start offsets) and per-district blocks. Returns ``(target, placed)``: the
    packed investigation answers (``-1``: impossible counts) and the 14-bit mask of districts."""
    for x in range(NUM_ELEMENTS):
        if o[spot_at + x]:
            answer[x] = 2
        elif o[trace_at + x]:
            answer[x] = 1
        elif o[nothing_at + x]:
            answer[x] = 0
        else:
            answer[x] = -1
    target = np.int64(0)
    placed = 0
    inv_mask[0] = 0
    inv_mask[1] = 0
    inv_mask[2] = 0
    for d in range(NUM_DISTRICTS):
        if o[placed_at + d]:
            placed |= 1 << d
            ns = np.int64(o[spots_at + d])
            nt = np.int64(o[traces_at + d])
            if ns < 0 or nt < 0 or ns > 3 or nt > 3:
                target = np.int64(-1)
            if target >= 0:
                target |= (ns | (nt << 2)) << np.int64(4 * d)
            for t in range(3):
                if not o[sup_at + d * 3 + t]:
                    inv_mask[t] |= np.int64(15) << np.int64(4 * d)
    return target, placed


# component order of the offsets array the observation kernel takes
_OBS_NAMES = ("tiles", "front", "spot", "trace", "inv_placed", "inv_spots", "inv_traces", "inv_suppressed",
              "held_case", "solved_case", "failed")


def _obs_offsets(num_players: int) -> np.ndarray:
    layout = observation_layout(num_players)
    return np.array([layout[name][0] for name in _OBS_NAMES], dtype=np.int64)


@batch_kernel
def _observation_kernel(obs, P, off, words, want_mask, want_gains, feat, mask, gains):
    """As ``_state_kernel`` for engine observations (seat 0 = the observer)."""
    B = obs.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, td = _scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            o = obs[b]
            _obs_districts(o, off[0], td)
            excl = np.int64(0)
            for j in range(1, P):
                for x in range(NUM_ELEMENTS):
                    if o[off[2] + j * 36 + x]:
                        excl |= np.int64(1) << np.int64(x)
                c = _obs_case(o, off[9] + j * 36)
                if c >= 0:
                    excl |= _element_mask_of_case(c)
            held = _obs_case(o, off[8])
            if held >= 0:
                excl |= _element_mask_of_case(held)
            target, placed = _gather_answers(o, off[2], off[3], off[1], off[4], off[5], off[6], off[7],
                                             answer, inv_mask)
            _finish_row(td, words, answer, excl, inv_mask, target, _obs_case(o, off[9]),
                        o[off[10]:off[10] + NUM_CASES], any_nonzero(o[off[10]:off[10] + NUM_CASES]),
                        o[off[2]:off[2] + NUM_ELEMENTS],
                        o[off[3]:off[3] + NUM_ELEMENTS], placed, want_mask, want_gains, cnt, members, hyp,
                        hist, feat[b], mask[b] if want_mask else mask[0:0].reshape(-1),
                        gains[b] if want_gains else gains[0:0].reshape(-1))


_SOLO_NAMES = ("tiles", "nothing", "spot", "trace", "inv_placed", "inv_spots", "inv_traces", "inv_suppressed",
               "failed")


def _solo_offsets() -> np.ndarray:
    from pi_env.engine.solo import observation_layout as solo_layout

    layout = solo_layout()
    return np.array([layout[name][0] for name in _SOLO_NAMES], dtype=np.int64)


@batch_kernel
def _solo_observation_kernel(obs, off, words, want_mask, want_gains, feat, mask, gains):
    """Own features of solo observations: the player's answers and failed solves only."""
    B = obs.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, td = _scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            o = obs[b]
            _obs_districts(o, off[0], td)
            target, placed = _gather_answers(o, off[2], off[3], off[1], off[4], off[5], off[6], off[7],
                                             answer, inv_mask)
            _finish_row(td, words, answer, np.int64(0), inv_mask, target, np.int64(-1),
                        o[off[8]:off[8] + NUM_CASES], any_nonzero(o[off[8]:off[8] + NUM_CASES]),
                        o[off[2]:off[2] + NUM_ELEMENTS],
                        o[off[3]:off[3] + NUM_ELEMENTS], placed, want_mask, want_gains, cnt, members, hyp,
                        hist, feat[b], mask[b] if want_mask else mask[0:0].reshape(-1),
                        gains[b] if want_gains else gains[0:0].reshape(-1))


@kernel
def _gather_solo(b, spot, trace, nothing, inv_placed, inv_answer, inv_suppressed, answer, inv_mask):
    """The solo player's clue answers and investigators in game ``b``: ``(target, placed)``."""
    for x in range(NUM_ELEMENTS):
        answer[x] = 2 if spot[b, x] else (1 if trace[b, x] else (0 if nothing[b, x] else -1))
    target = np.int64(0)
    placed = 0
    inv_mask[0] = 0
    inv_mask[1] = 0
    inv_mask[2] = 0
    for d in range(NUM_DISTRICTS):
        if inv_placed[b, d]:
            placed |= 1 << d
            ns = np.int64(inv_answer[b, d, 0])
            nt = np.int64(inv_answer[b, d, 1])
            target |= (ns | (nt << 2)) << np.int64(4 * d)
            for t in range(3):
                if not inv_suppressed[b, d, t]:
                    inv_mask[t] |= np.int64(15) << np.int64(4 * d)
    return target, placed


@batch_kernel
def _solo_state_kernel(words, want_mask, want_gains, feat, mask, gains, tile_district, spot, trace,
                       nothing, inv_placed, inv_answer, inv_suppressed, failed, failed_words):
    """Own features of solo games straight from the :class:`~pi_env.engine.solo.SoloState`."""
    B = feat.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, _ = _scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            target, placed = _gather_solo(b, spot, trace, nothing, inv_placed, inv_answer, inv_suppressed,
                                          answer, inv_mask)
            _finish_row(tile_district[b], words, answer, np.int64(0), inv_mask, target, np.int64(-1),
                        failed[b], any_nonzero(failed_words[b]), spot[b], trace[b], placed, want_mask, want_gains,
                        cnt, members, hyp, hist, feat[b], mask[b] if want_mask else mask[0:0].reshape(-1),
                        gains[b] if want_gains else gains[0:0].reshape(-1))


# ---------------------------------------------------------------------------------------------
# joint (all players') posterior


@batch_kernel
def _seat_sets_kernel(players, words, masks, sizes, tile_district, case, spot, trace, front, inv_count,
                      inv_district, inv_answer, inv_suppressed, failed_words, solved_case, failed):
    """``masks[b, j]``: the case set of seat ``j`` (player ``(p + j) % P``) as player ``p`` sees it
    (the held case known: seat 1's set is that case alone), ``sizes[b, j]`` its size."""
    P = case.shape[1]
    B = players.shape[0]
    st = (spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed)
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, _, _, _ = _scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            p = players[b]
            h = (p + 1) % P
            held = held_case_of(case, b, h)
            for j in range(P):
                n = seat_case_set(b, (p + j) % P, P, h, held, tile_district[b], words, st, True, answer, inv_mask,
                                  members, cnt)
                _write_mask(members, n, masks[b, j])
                sizes[b, j] = n


@kernel
def disjoint_counts(own, n_own, other, n_other, joint, h1, hse, hsl, hel, mem):
    """``joint[i]``: the cases of ``other[:n_other]`` (the one unknown player's set) disjoint from
    ``own[i]`` (per type, docs/rules.md §3), by inclusion-exclusion over the set's histograms per
    element, pair and triple (the joint features of :func:`joint_features` and greedy in batch,
    :mod:`pi_env.agents.greedy_batch`).

    Args:
        own: ``int16[>= n_own]`` the asking player's cases; other: ``int16[>= n_other]``.
        joint: ``int64[>= n_own]`` receives the counts.
        h1, hse, hsl, hel: ``int64[36]``, ``int64[12, 10]``, ``int64[12, 14]``, ``int64[10, 14]``
            scratch; mem: ``uint8[1680]`` scratch (:func:`set_histograms`).

    Returns:
        ``int``: how many counts are positive.
    """
    set_histograms(other, n_other, h1, hse, hsl, hel, mem)
    positive = 0
    for i in range(n_own):
        c = np.int64(own[i])
        s, e, l = c // 140, (c // 14) % 10, c % 14
        k = (n_other - h1[s] - h1[12 + e] - h1[22 + l] + hse[s, e] + hsl[s, l] + hel[e, l]
             - mem[c])
        joint[i] = k
        if k > 0:
            positive += 1
    return positive



@kernel
def set_histograms(cases, n, h1, hse, hsl, hel, mem):
    """The histograms of a case set ``cases[:n]`` (``int16``) that inclusion–exclusion over the
    types reads: ``h1`` (``int64[36]``) per element, ``hse`` (``int64[12, 10]``), ``hsl``
    (``int64[12, 14]``), ``hel`` (``int64[10, 14]``) per pair of elements of two types, ``mem``
    (``uint8[1680]``) membership; all overwritten."""
    h1[:] = 0
    hse[:] = 0
    hsl[:] = 0
    hel[:] = 0
    mem[:] = 0
    for i in range(n):
        c = np.int64(cases[i])
        s, e, l = c // 140, (c // 14) % 10, c % 14
        h1[s] += 1
        h1[12 + e] += 1
        h1[22 + l] += 1
        hse[s, e] += 1
        hsl[s, l] += 1
        hel[e, l] += 1
        mem[c] += 1


@rule_step(inline=True)
def _patterns(n, h1, hse, hsl, hel, mem, s, e, l):
    """The numbers of cases of a set (its :func:`set_histograms`) equal to case ``(s, e, l)`` on
    exactly the types of each 3-bit mask ``a = 0..7`` (bit 0 suspect, 1 evidence, 2 location) and
    different on the others (inclusion–exclusion), as a tuple indexed by ``a``."""
    m = mem[s * 140 + e * 14 + l]
    se, sl, el = hse[s, e], hsl[s, l], hel[e, l]
    hs, he, hl = h1[s], h1[12 + e], h1[22 + l]
    return (n - hs - he - hl + se + sl + el - m, hs - se - sl + m, he - se - el + m, se - m,
            hl - sl - el + m, sl - m, el - m, m)


@rule_step(inline=True)
def _disjoint_from(n, h1, hse, hsl, hel, mem, s, e, l):
    """The number of cases of a set (its :func:`set_histograms`) disjoint per type from case
    ``(s, e, l)`` (the mask 0 of :func:`_patterns`)."""
    return (n - h1[s] - h1[12 + e] - h1[22 + l] + hse[s, e] + hsl[s, l] + hel[e, l]
            - mem[s * 140 + e * 14 + l])


@rule_step(inline=True)
def _split_pairs(h3, a_first, b_first, b_second, mem2, mem3, u, v, t3_size, kind):
    """The pairs ``(c2, c3)`` of two sets, disjoint per type, with ``c2``'s element of type 1 equal
    to ``u`` and ``c3``'s element of type 2 equal to ``v`` (two of the three types; the third type
    is summed over, ``t3_size`` values). ``a_first``: ``c2``'s set's pair histogram (type 1,
    type 3); ``h3``: ``c3``'s set's histogram of type 2, ``b_first``, ``b_second``: its pair
    histograms (type 2, type 3) and (type 1, type 2); ``mem2``, ``mem3``: the sets' membership;
    ``kind`` names types 1 and 2 (0: suspect, evidence; 1: suspect, location; 2: evidence,
    location) for the case ids."""
    total = 0
    b_all = h3[v] - b_second[u, v]
    for w in range(t3_size):
        if kind == 0:
            c = u * 140 + v * 14 + w
        elif kind == 1:
            c = u * 140 + w * 14 + v
        else:
            c = w * 140 + u * 14 + v
        a = a_first[u, w] - mem2[c]
        b = b_first[v, w] - mem3[c]
        total += a * (b_all - b)
    return total


_DENSE_PAIR_SETS = 400  # disjoint_pair_counts: above this many cases in the two sets, dense tables


@kernel
def case_marginals(w, h1, hse, hsl, hel):
    """The histograms of :func:`set_histograms` of a weight per case id, as sums over every case.

    Args:
        w: ``[1680]`` integer weight per case id (e.g. a membership, or joint counts).
        h1: ``int64[36]`` receives the sums per element; hse, hsl, hel: ``int64[12, 10]``,
            ``int64[12, 14]``, ``int64[10, 14]`` receive the sums per pair of elements of two types.
    """
    hsl[:] = 0
    hel[:] = 0
    for s in range(12):
        for e in range(10):
            base = s * 140 + e * 14
            acc = 0
            for l in range(14):
                v = np.int64(w[base + l])
                acc += v
                hsl[s, l] += v
                hel[e, l] += v
            hse[s, e] = acc
    h1[:] = 0
    for s in range(12):
        for e in range(10):
            h1[s] += hse[s, e]
            h1[12 + e] += hse[s, e]
        for l in range(14):
            h1[22 + l] += hsl[s, l]


@kernel
def pair_scratch():
    """The work arrays of :func:`disjoint_pair_counts` (allocated once per batch chunk by its callers
    in loops, :func:`pair_counts_with`): two sets' histograms and memberships, the pair tables,
    the flags of the split pairs done, a weight per case id, the boxes of :func:`case_boxes`."""
    return ((np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty((12, 10), dtype=np.int64),
             np.empty((12, 14), dtype=np.int64), np.empty((10, 14), dtype=np.int64), np.empty(NUM_CASES, dtype=np.uint8)),
            (np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty((12, 10), dtype=np.int64),
             np.empty((12, 14), dtype=np.int64), np.empty((10, 14), dtype=np.int64), np.empty(NUM_CASES, dtype=np.uint8)),
            (np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty((12, 10), dtype=np.int64),
             np.empty((12, 14), dtype=np.int64), np.empty((10, 14), dtype=np.int64)),
            (np.empty((12, 10), dtype=np.bool_), np.empty((12, 14), dtype=np.bool_), np.empty((10, 14), dtype=np.bool_)),
            np.empty(NUM_CASES, dtype=np.int64),
            (np.empty((12, 10), dtype=np.int64), np.empty((120, 3), dtype=np.int64), np.empty((120, 3), dtype=np.int64),
             np.empty(NUM_ELEMENTS, dtype=np.int64)))


# disjoint_pair_counts: the measured cost (ns, 2-core machine, 4-player positions) of a pair of boxes
# per asking case plus per element (_box_pair_counts), of a case of the two sets read by
# inclusion-exclusion, and of its fixed part (the tables, the split pairs of the asking cases)
_PAIR_BOX_STEP = 1
_PAIR_IE_STEP = 6
_PAIR_IE_FIXED = 3000


@kernel
def disjoint_pair_counts(own, n_own, s2, n2, s3, n3, joint):
    """``joint[i]``: the pairs ``(c2, c3)`` of ``s2[:n2] × s3[:n3]`` (the two unknown players' sets
    at 4 players) pairwise disjoint per type with each other and with ``own[i]`` (docs/rules.md
    §3) — :func:`pi_env.solvers.joint.count_joint` of the two sets, per case of the asking player.

    Two methods, the one of less estimated work taken (the same counts, exact in ``int64``):

    * by boxes (:func:`_box_pair_counts`): each set as disjoint products of a suspect, an evidence
      and a location mask (:func:`case_boxes`; one box at a round's start, a few after clue cards
      and investigators); per pair of boxes the count is a product over the types of the pairs of
      different elements avoiding the asking case's;
    * by inclusion–exclusion over the sets' histograms (:func:`_ie_pair_counts`): any sets.

    Args:
        own: ``int16[>= n_own]`` the asking player's cases.
        s2, s3: ``int16[>= n2]``, ``int16[>= n3]`` the unknown players' sets (the held case and the
            other players' known elements already excluded), case ids ``0..1679`` in any order,
            each at most once per set (not checked); entries past ``n`` are not read.
        joint: ``int64[>= n_own]`` receives the counts (entries past ``n_own`` untouched).

    Returns:
        ``int``: how many counts are positive.
    """
    return pair_counts_with(own, n_own, s2, n2, s3, n3, joint, pair_scratch(), -1)


@kernel
def pair_counts_with(own, n_own, s2, n2, s3, n3, joint, scratch, method):
    """:func:`disjoint_pair_counts` with its work arrays ``scratch`` (:func:`pair_scratch`, reused
    call after call); ``method``: ``-1`` the cheaper by estimate, ``0`` inclusion–exclusion, ``1``
    boxes (to test both)."""
    rows, b2, b3, f = scratch[5]
    k2 = k3 = 0
    if method < 0:
        if n_own == 0 or n2 == 0 or n3 == 0:
            method = 0
        else:
            k2 = case_boxes(s2, n2, rows, b2)
            k3 = case_boxes(s3, n3, rows, b3)
            box = k2 * k3 * (n_own + NUM_ELEMENTS) * _PAIR_BOX_STEP
            method = 1 if box <= (n2 + n3 + n_own) * _PAIR_IE_STEP + _PAIR_IE_FIXED else 0
    elif method == 1:
        k2 = case_boxes(s2, n2, rows, b2)
        k3 = case_boxes(s3, n3, rows, b3)
    if method == 1:
        _box_pair_counts(own, n_own, b2, k2, b3, k3, joint, f)
        positive = 0
        for i in range(n_own):
            if joint[i] > 0:
                positive += 1
        return positive
    return _ie_pair_counts(own, n_own, s2, n2, s3, n3, joint, scratch)


@kernel
def pair_counts_of_rows(own, n_own, rows2, n2, rows3, n3, s2, s3, joint, scratch):
    """:func:`pair_counts_with` (the cheaper method by estimate) of the two unknown players' sets
    given as location masks (:func:`case_rows`, ``rows2``, ``rows3``, ``int64[12, 10]``, of ``n2``
    and ``n3`` cases): the same counts, the sets listed (into ``s2``, ``s3``, ``int16[1680]``)
    only for inclusion–exclusion. Returns how many counts are positive."""
    _, b2, b3, f = scratch[5]
    k2 = boxes_of_rows(rows2, b2)
    k3 = boxes_of_rows(rows3, b3)
    if n_own > 0 and n2 > 0 and n3 > 0:
        box = k2 * k3 * (n_own + NUM_ELEMENTS) * _PAIR_BOX_STEP
        if box <= (n2 + n3 + n_own) * _PAIR_IE_STEP + _PAIR_IE_FIXED:
            _box_pair_counts(own, n_own, b2, k2, b3, k3, joint, f)
            positive = 0
            for i in range(n_own):
                if joint[i] > 0:
                    positive += 1
            return positive
    members_of_rows(rows2, s2)
    members_of_rows(rows3, s3)
    return _ie_pair_counts(own, n_own, s2, n2, s3, n3, joint, scratch)


@kernel
def _box_pair_counts(own, n_own, b2, k2, b3, k3, joint, f):
    """:func:`disjoint_pair_counts` of two sets given as disjoint boxes (:func:`case_boxes`): per pair
    of boxes the count factorises per type into the pairs ``(u, v)`` of the two boxes' masks
    ``x × y`` of that type with ``u ≠ v`` and neither the asking case's element ``w``:
    ``|x∖w|·|y∖w| − |(x∩y)∖w|``. ``f``: ``int64[36]`` scratch."""
    for i in range(n_own):
        joint[i] = 0
    for x in range(k2):
        for y in range(k3):
            empty = False
            for t in range(3):
                base = (0, 12, 22)[t]
                mx, my = b2[x, t], b3[y, t]
                nx, ny, nxy = _bits(mx), _bits(my), _bits(mx & my)
                any_ = False
                for v in range((12, 10, 14)[t]):
                    ix, iy = (mx >> v) & 1, (my >> v) & 1
                    k = (nx - ix) * (ny - iy) - (nxy - (ix & iy))
                    f[base + v] = k
                    any_ = any_ or k > 0
                if not any_:
                    empty = True
                    break
            if empty:
                continue
            for i in range(n_own):  # unsigned: the divisions by constants without sign fix-ups
                c = np.uint64(own[i])
                q = c // np.uint64(14)
                s = q // np.uint64(10)
                joint[i] += f[s] * f[np.uint64(12) + q - np.uint64(10) * s] * f[np.uint64(22) + c - np.uint64(14) * q]


@kernel
def _ie_pair_counts(own, n_own, s2, n2, s3, n3, joint, scratch):
    """:func:`disjoint_pair_counts` by inclusion–exclusion over the elements of ``own[i]`` a pair
    contains (``c2`` or ``c3`` has it): ``X − Σ g1 + Σ g2 − g3`` with ``X`` the number of disjoint
    pairs and ``g1``, ``g2``, ``g3`` the disjoint pairs containing one element, two (of two types)
    and all three of the case, built from the sets' histograms: ``X``, ``g1`` and the pairs of
    ``g2`` whose two elements lie in one case by a pass over each set, the other pairs of ``g2`` by
    a sum over the third type (for the pairs of elements the asking player's cases need), ``g3`` per
    case as a sum of 8 products of two sets' counts (the types ``c2`` shares with the case, the
    others ``c3``). ``scratch``: :func:`pair_scratch`."""
    (a1, ase, asl, ael, am), (b1, bse, bsl, bel, bm), (g1, gse, gsl, gel), (done_se, done_sl, done_el), weight, _ = \
        scratch
    g1[:] = 0
    gse[:] = 0
    gsl[:] = 0
    gel[:] = 0
    X = 0
    if n2 + n3 > _DENSE_PAIR_SETS:  # large sets: the tables as sums over every case id
        am[:] = 0
        bm[:] = 0
        for i in range(n2):
            am[np.int64(s2[i])] = 1
        for i in range(n3):
            bm[np.int64(s3[i])] = 1
        case_marginals(am, a1, ase, asl, ael)
        case_marginals(bm, b1, bse, bsl, bel)
        # per case of either set, the other set's cases disjoint from it (both added if in both)
        weight[:] = 0
        for s in range(12):
            for e in range(10):
                for l in range(14):
                    c = s * 140 + e * 14 + l
                    if am[c]:
                        d = _disjoint_from(n3, b1, bse, bsl, bel, bm, s, e, l)
                        X += d
                        weight[c] += d
                    if bm[c]:
                        weight[c] += _disjoint_from(n2, a1, ase, asl, ael, am, s, e, l)
        case_marginals(weight, g1, gse, gsl, gel)
    else:
        set_histograms(s2, n2, a1, ase, asl, ael, am)
        set_histograms(s3, n3, b1, bse, bsl, bel, bm)
        # g1 and the pair tables of the pairs whose two elements lie in the same case
        for k in range(2):
            cases, n = (s2, n2) if k == 0 else (s3, n3)
            for i in range(n):
                c = np.int64(cases[i])
                s, e, l = c // 140, (c // 14) % 10, c % 14
                if k == 0:  # the other set's cases disjoint from c
                    d = _disjoint_from(n3, b1, bse, bsl, bel, bm, s, e, l)
                    X += d
                else:
                    d = _disjoint_from(n2, a1, ase, asl, ael, am, s, e, l)
                g1[s] += d
                g1[12 + e] += d
                g1[22 + l] += d
                gse[s, e] += d
                gsl[s, l] += d
                gel[e, l] += d
    # the pairs with the two elements in different cases (either way round), added when a case of
    # the asking player first needs them
    a_e, a_l, b_e, b_l = a1[12:22], a1[22:36], b1[12:22], b1[22:36]
    aseT, bseT, aslT, bslT, aelT, belT = ase.T, bse.T, asl.T, bsl.T, ael.T, bel.T
    done_se[:] = False
    done_sl[:] = False
    done_el[:] = False
    positive = 0
    for i in range(n_own):
        c = np.int64(own[i])
        s, e, l = c // 140, (c // 14) % 10, c % 14
        if not done_se[s, e]:
            done_se[s, e] = True
            gse[s, e] += (_split_pairs(b_e, asl, bel, bse, am, bm, s, e, 14, 0)
                          + _split_pairs(a_e, bsl, ael, ase, bm, am, s, e, 14, 0))
        if not done_sl[s, l]:
            done_sl[s, l] = True
            gsl[s, l] += (_split_pairs(b_l, ase, belT, bsl, am, bm, s, l, 10, 1)
                          + _split_pairs(a_l, bse, aelT, asl, bm, am, s, l, 10, 1))
        if not done_el[e, l]:
            done_el[e, l] = True
            gel[e, l] += (_split_pairs(b_l, aseT, bslT, bel, am, bm, e, l, 12, 2)
                          + _split_pairs(a_l, bseT, aslT, ael, bm, am, e, l, 12, 2))
        p0, p1, p2, p3, p4, p5, p6, p7 = _patterns(n2, a1, ase, asl, ael, am, s, e, l)
        q0, q1, q2, q3, q4, q5, q6, q7 = _patterns(n3, b1, bse, bsl, bel, bm, s, e, l)
        g3 = p0 * q7 + p1 * q6 + p2 * q5 + p3 * q4 + p4 * q3 + p5 * q2 + p6 * q1 + p7 * q0
        k = X - g1[s] - g1[12 + e] - g1[22 + l] + gse[s, e] + gsl[s, l] + gel[e, l] - g3
        joint[i] = k
        if k > 0:
            positive += 1
    return positive


@rule_step(inline=True)
def _bits(x):
    """The number of set bits of ``x`` (a mask of at most 14 elements of one type)."""
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@kernel
def case_boxes(cases, n, rows, boxes):
    """A case set ``cases[:n]`` (``int16``) as disjoint boxes (products of a suspect, an evidence and
    a location mask): suspects of equal slices together, within such a slice the evidences of equal
    location masks together. ``rows``: ``int64[12, 10]`` scratch (each suspect's and evidence's
    location mask); ``boxes``: ``int64[>= 120, 3]`` receives the masks. Returns the number of boxes
    (1 for a product set, 0 for the empty set)."""
    rows[:] = 0
    q_run, acc = np.int64(-1), np.int64(0)  # a run of cases of one suspect and evidence, or'ed in a register
    for i in range(n):
        c = np.int64(cases[i])
        q = c // 14
        if q != q_run:
            if q_run >= 0:
                rows[q_run // 10, q_run % 10] |= acc
            q_run, acc = q, np.int64(0)
        acc |= np.int64(1) << (c - 14 * q)
    if q_run >= 0:
        rows[q_run // 10, q_run % 10] |= acc
    return boxes_of_rows(rows, boxes)


@kernel
def boxes_of_rows(rows, boxes):
    """:func:`case_boxes` of the set given by its location masks ``rows`` (``int64[12, 10]``,
    :func:`case_rows`): the boxes into ``boxes`` (``int64[>= 120, 3]``); returns their number."""
    k = 0
    done_s = 0
    for s in range(12):
        if (done_s >> s) & 1:
            continue
        smask = np.int64(1) << s
        for t in range(s + 1, 12):
            same = True
            for e in range(10):
                if rows[t, e] != rows[s, e]:
                    same = False
                    break
            if same:
                smask |= np.int64(1) << t
        done_s |= smask
        done_e = 0
        for e in range(10):
            if (done_e >> e) & 1 or rows[s, e] == 0:
                continue
            emask = np.int64(0)
            for f in range(e, 10):
                if rows[s, f] == rows[s, e]:
                    emask |= np.int64(1) << f
            done_e |= emask
            boxes[k, 0] = smask
            boxes[k, 1] = emask
            boxes[k, 2] = rows[s, e]
            k += 1
    return k


@kernel
def _box_triple_counts(own, n_own, b2, k2, b3, k3, b4, k4, joint):
    """:func:`disjoint_triple_counts` of three sets given as disjoint boxes (:func:`case_boxes`):
    per triple of boxes the count factorises per type into the triples ``(u, v, w)`` of the three
    boxes' masks ``x × y × z`` of that type with ``u``, ``v``, ``w`` pairwise different and none the
    asking case's element — inclusion–exclusion over the partitions of the three (Möbius:
    ``|x||y||z| − |x∩y||z| − |x∩z||y| − |y∩z||x| + 2|x∩y∩z|``), the masks' counts less the
    element's membership."""
    f = np.empty(NUM_ELEMENTS, dtype=np.int64)
    ids = np.empty((3, max(n_own, 1)), dtype=np.int64)  # the asking cases' element ids
    for i in range(n_own):
        c = np.int64(own[i])
        joint[i] = 0
        ids[0, i], ids[1, i], ids[2, i] = c // 140, 12 + (c // 14) % 10, 22 + c % 14
    for x in range(k2):
        for y in range(k3):
            for z in range(k4):
                empty = False
                for t in range(3):
                    base = (0, 12, 22)[t]
                    mx, my, mz = b2[x, t], b3[y, t], b4[z, t]
                    nx, ny, nz = _bits(mx), _bits(my), _bits(mz)
                    nxy, nxz, nyz, nxyz = _bits(mx & my), _bits(mx & mz), _bits(my & mz), _bits(mx & my & mz)
                    any_ = False
                    for v in range((12, 10, 14)[t]):
                        ix, iy, iz = (mx >> v) & 1, (my >> v) & 1, (mz >> v) & 1
                        k = ((nx - ix) * (ny - iy) * (nz - iz) - (nxy - (ix & iy)) * (nz - iz)
                             - (nxz - (ix & iz)) * (ny - iy) - (nyz - (iy & iz)) * (nx - ix)
                             + 2 * (nxyz - (ix & iy & iz)))
                        f[base + v] = k
                        any_ = any_ or k > 0
                    if not any_:
                        empty = True
                        break
                if empty:
                    continue
                for i in range(n_own):
                    joint[i] += f[ids[0, i]] * f[ids[1, i]] * f[ids[2, i]]


@kernel
def _disjoint_from_case(cases, n, sa, ea, la, out, where):
    """Copy the cases of ``cases[:n]`` that share no element with the case (suspect ``sa``, evidence
    ``ea``, location ``la``) into ``out`` and their positions in ``cases`` into ``where``, in order;
    return how many (``out``: ``int16[>= n]``, ``where``: ``int64[>= n]``)."""
    m = 0
    for i in range(n):
        c = np.int64(cases[i])
        if c // 140 != sa and (c // 14) % 10 != ea and c % 14 != la:
            out[m] = cases[i]
            where[m] = i
            m += 1
    return m


@kernel
def _outer_triple_counts(own, n_own, outer, n_out, u, nu, v, nv, joint):
    """:func:`disjoint_triple_counts` by one :func:`disjoint_pair_counts` per case ``a`` of
    ``outer[:n_out]``: the two other sets and the asking cases restricted to the cases disjoint
    from ``a``, the pair counts added per asking case."""
    for i in range(n_own):
        joint[i] = 0
    own_a = np.empty(n_own, dtype=np.int16)
    where = np.empty(max(n_own, nu, nv), dtype=np.int64)
    u_a = np.empty(nu, dtype=np.int16)
    v_a = np.empty(nv, dtype=np.int16)
    part = np.empty(n_own, dtype=np.int64)
    scratch = pair_scratch()
    for k in range(n_out):
        a = np.int64(outer[k])
        sa, ea, la = a // 140, (a // 14) % 10, a % 14
        mu = _disjoint_from_case(u, nu, sa, ea, la, u_a, where)
        mv = _disjoint_from_case(v, nv, sa, ea, la, v_a, where)
        if mu == 0 or mv == 0:
            continue
        m = _disjoint_from_case(own, n_own, sa, ea, la, own_a, where)
        if m == 0:
            continue
        pair_counts_with(own_a, m, u_a, mu, v_a, mv, part, scratch, 0)
        for i in range(m):
            joint[where[i]] += part[i]


# disjoint_triple_counts: the measured cost (ns, 2-core machine, 5-player greedy games) of a triple of
# boxes per asking case (_box_triple_counts), and of an outer case per case of the other sets
# (_outer_triple_counts)
_BOX_STEP = 2
_OUTER_STEP = 13


@kernel
def disjoint_triple_counts(own, n_own, s2, n2, s3, n3, s4, n4, joint):
    """``joint[i]``: the triples ``(c2, c3, c4)`` of ``s2[:n2] × s3[:n3] × s4[:n4]`` (the three
    unknown players' sets at 5 players) pairwise disjoint per type with each other and with
    ``own[i]`` (docs/rules.md §3) — :func:`pi_env.solvers.joint.count_joint` of the three sets, per
    case of the asking player. Exact (``int64``: at most ``11·10·9 · 9·8·7 · 13·12·11`` per case).

    Two methods, the one of less estimated work taken (the same counts):

    * by boxes (:func:`_box_triple_counts`): each set as disjoint products of a suspect, an
      evidence and a location mask (:func:`case_boxes`; one box at a round's start, a few after
      clue cards and investigators); per triple of boxes the count is a product over the types of
      the triples of pairwise different elements avoiding the asking case's, by inclusion–exclusion;
    * by the smallest set (:func:`_outer_triple_counts`): for each of its cases ``a`` one
      :func:`disjoint_pair_counts` of the two other sets and the asking cases restricted to the
      cases disjoint from ``a`` (the count is symmetric in the three sets): fast for the small
      sets later in a round, broken up by failed solves too.

    Args:
        own: ``int16[>= n_own]`` the asking player's cases.
        s2, s3, s4: ``int16[>= n2]``, ``int16[>= n3]``, ``int16[>= n4]`` the unknown players' sets
            (the held case and the other players' known elements already excluded), case ids
            ``0..1679`` in any order, each at most once per set (not checked: the boxes count a
            repeated id once, the pair counts once per copy); entries past ``n`` are not read.
        joint: ``int64[>= n_own]`` receives the counts.

    Returns:
        ``int``: how many counts are positive.
    """
    for i in range(n_own):
        joint[i] = 0
    if n_own == 0 or n2 == 0 or n3 == 0 or n4 == 0:
        return 0
    if n2 <= n3 and n2 <= n4:  # the smallest set outside
        outer, n_out, u, nu, v, nv = s2, n2, s3, n3, s4, n4
    elif n3 <= n4:
        outer, n_out, u, nu, v, nv = s3, n3, s2, n2, s4, n4
    else:
        outer, n_out, u, nu, v, nv = s4, n4, s2, n2, s3, n3
    rows = np.empty((12, 10), dtype=np.int64)
    b2 = np.empty((120, 3), dtype=np.int64)
    b3 = np.empty((120, 3), dtype=np.int64)
    b4 = np.empty((120, 3), dtype=np.int64)
    k2 = case_boxes(s2, n2, rows, b2)
    k3 = case_boxes(s3, n3, rows, b3)
    k4 = case_boxes(s4, n4, rows, b4)
    if k2 * k3 * k4 * (n_own + 36) * _BOX_STEP <= n_out * (n_own + nu + nv + 400) * _OUTER_STEP:
        _box_triple_counts(own, n_own, b2, k2, b3, k3, b4, k4, joint)
    else:
        _outer_triple_counts(own, n_own, outer, n_out, u, nu, v, nv, joint)
    positive = 0
    for i in range(n_own):
        if joint[i] > 0:
            positive += 1
    return positive


@kernel
def _joint_row_features(own, n_own, other, n_other, held_ok, row):
    """The :data:`JOINT_FEATURES` of a 3-player position: ``own`` (``int16[n_own]``) the asking
    player's set, ``other`` (``int16[n_other]``) the set of the one unknown player. The joint
    count of case ``c`` is the number of the unknown player's cases disjoint from ``c``, by
    inclusion-exclusion over the histograms of that set per element, pair and triple."""
    for i in range(row.shape[0]):
        row[i] = 0.0
    if not held_ok or n_own == 0 or n_other == 0:
        return
    h1 = np.zeros(NUM_ELEMENTS, dtype=np.int64)
    hse = np.zeros((12, 10), dtype=np.int64)
    hsl = np.zeros((12, 14), dtype=np.int64)
    hel = np.zeros((10, 14), dtype=np.int64)
    mem = np.zeros(NUM_CASES, dtype=np.uint8)
    joint = np.empty(n_own, dtype=np.int64)
    positive = disjoint_counts(own, n_own, other, n_other, joint, h1, hse, hsl, hel, mem)
    _features_of_counts(own, n_own, joint, positive, row)


@kernel
def _features_of_counts(own, n_own, joint, positive, row):
    """The :data:`JOINT_FEATURES` ``row`` (zeroed by the caller) of the joint counts ``joint[:n_own]``
    of the cases ``own[:n_own]`` (``positive`` of them above 0)."""
    total = 0
    acc = np.zeros(NUM_ELEMENTS, dtype=np.int64)
    q_run, acc_q = np.uint64(0), 0  # a run of cases of one suspect and evidence, summed in a register
    for i in range(n_own):
        k = joint[i]
        if k > 0:
            c = np.uint64(own[i])  # unsigned: the divisions by constants without sign fix-ups
            q = c // np.uint64(14)
            total += k
            acc[np.uint64(22) + c - np.uint64(14) * q] += k
            if q != q_run:
                s = q_run // np.uint64(10)
                acc[s] += acc_q
                acc[np.uint64(12) + q_run - np.uint64(10) * s] += acc_q
                q_run, acc_q = q, 0
            acc_q += k
    s = q_run // np.uint64(10)
    acc[s] += acc_q
    acc[np.uint64(12) + q_run - np.uint64(10) * s] += acc_q
    if total == 0:
        return
    for x in range(NUM_ELEMENTS):
        row[x] = acc[x] / total
    row[36] = _LOG2[positive] / _LOG2_CASES


@batch_kernel
def _joint3_kernel(players, words, feat, tile_district, case, spot, trace, front, inv_count, inv_district,
                   inv_answer, inv_suppressed, failed_words, solved_case, failed):
    """Exact posterior features of 3-player games (seat 2 is the one unknown player)."""
    B = players.shape[0]
    st = (spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed)
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, _, _, _ = _scratch()
        other = np.empty(NUM_CASES, dtype=np.int16)
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            p = players[b]
            h = (p + 1) % 3
            held = held_case_of(case, b, h)
            sizes = np.zeros(3, dtype=np.int64)
            for j in (1, 2, 0):
                sizes[j] = seat_case_set(b, (p + j) % 3, 3, h, held, tile_district[b], words, st, True, answer,
                                         inv_mask, other if j == 2 else members, cnt)
            _joint_row_features(members, sizes[0], other, sizes[2], sizes[1] > 0, feat[b])


@batch_kernel
def _joint4_kernel(players, words, feat, counts, want_counts, tile_district, case, spot, trace, front, inv_count,
                   inv_district, inv_answer, inv_suppressed, failed_words, solved_case, failed):
    """Exact posterior features of 4-player games (seats 2 and 3 are the unknown players,
    :func:`disjoint_pair_counts`); with ``want_counts`` the joint counts per case into
    ``counts[b]`` (``int64[1680]``, 0 outside the own set) too."""
    B = players.shape[0]
    st = (spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed)
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, _, _, _ = _scratch()
        s2 = np.empty(NUM_CASES, dtype=np.int16)
        s3 = np.empty(NUM_CASES, dtype=np.int16)
        joint = np.empty(NUM_CASES, dtype=np.int64)
        pairs = pair_scratch()
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            p = players[b]
            h = (p + 1) % 4
            held = held_case_of(case, b, h)
            sizes = np.zeros(4, dtype=np.int64)
            for j in (1, 2, 3, 0):
                sizes[j] = seat_case_set(b, (p + j) % 4, 4, h, held, tile_district[b], words, st, True, answer,
                                         inv_mask, members if j == 0 else (s2 if j == 2 else s3), cnt)
            row = feat[b]
            for i in range(row.shape[0]):
                row[i] = 0.0
            if want_counts:
                counts[b, :] = 0
            if sizes[0] == 0 or sizes[1] == 0 or sizes[2] == 0 or sizes[3] == 0:
                continue
            positive = pair_counts_with(members, sizes[0], s2, sizes[2], s3, sizes[3], joint, pairs, -1)
            _features_of_counts(members, sizes[0], joint, positive, row)
            if want_counts:
                for i in range(sizes[0]):
                    counts[b, np.int64(members[i])] = joint[i]


@batch_kernel
def _joint5_kernel(players, words, counts, tile_district, case, spot, trace, front, inv_count, inv_district,
                   inv_answer, inv_suppressed, failed_words, solved_case, failed):
    """The joint counts per case of 5-player games into ``counts[b]`` (``int64[1680]``, 0 outside
    the own set; seats 2, 3 and 4 are the unknown players, :func:`disjoint_triple_counts`)."""
    B = players.shape[0]
    st = (spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed)
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, _, _, _ = _scratch()
        others = np.empty((5, NUM_CASES), dtype=np.int16)
        joint = np.empty(NUM_CASES, dtype=np.int64)
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            p = players[b]
            h = (p + 1) % 5
            held = held_case_of(case, b, h)
            sizes = np.zeros(5, dtype=np.int64)
            for j in (1, 2, 3, 4, 0):
                sizes[j] = seat_case_set(b, (p + j) % 5, 5, h, held, tile_district[b], words, st, True, answer,
                                         inv_mask, members if j == 0 else others[j], cnt)
            counts[b, :] = 0
            if sizes[0] == 0 or sizes[1] == 0 or sizes[2] == 0 or sizes[3] == 0 or sizes[4] == 0:
                continue
            disjoint_triple_counts(members, sizes[0], others[2], sizes[2], others[3], sizes[3], others[4], sizes[4],
                                   joint)
            for i in range(sizes[0]):
                counts[b, np.int64(members[i])] = joint[i]


# ---------------------------------------------------------------------------------------------
# public functions


def _buffer(out: "np.ndarray | None", shape: tuple[int, ...], dtype, name: str) -> np.ndarray:
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype:
        got = f"{out.dtype}[{', '.join(map(str, out.shape))}]" if isinstance(out, np.ndarray) else type(out).__name__
        raise PIError(f"{name} must be {np.dtype(dtype)}[{', '.join(map(str, shape))}], got {got}")
    return out


def _players(state: State, player: "int | np.ndarray") -> np.ndarray:
    from pi_env.engine.observe import player_array as players_array

    return players_array(state, player)


def _dummy(B: int, width: int, dtype) -> np.ndarray:
    return np.empty((B, width) if B else (0, width), dtype=dtype)


def own_features(state: State, board: "Board | np.ndarray", player: "int | np.ndarray",
                 out: "np.ndarray | None" = None, mask: "np.ndarray | None" = None,
                 gains: "np.ndarray | None" = None, parallel: "bool | None" = None) -> np.ndarray:
    """The own-information features (module docstring) of ``player`` in every game of ``state``.

    Args:
        state: a batch of ``B`` standard or duel games.
        board: the games' board (``config.board``).
        player: one player for all games, or ``int[B]`` a player per game.
        out: optional ``float32[B, 38]`` buffer (a C-contiguous column slice of a wider buffer works
            too: only its rows are written).
        mask: optional ``bool[B, 1680]`` that receives the own-information case set.
        gains: optional ``float32[B, 50]`` that receives the query gains (:func:`query_gains`).
        parallel: run threaded (``True``), serially (``False``: faster when other processes keep
            the cores busy), or as :mod:`pi_env.core._config` decides for ``B`` (``None``).

    Returns:
        ``float32[B, 38]`` (``out`` if given).

    Raises:
        PIError: a player out of range or of the wrong shape, a buffer of the wrong shape or dtype.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> f = own_features(init(cfg, 1, seed=0), cfg.board, 0)
        >>> round(float(f[0, :12].sum()), 5), round(float(1 / f[0, 37]))  # 11 * 9 * 13 cases open
        (1.0, 1287)
    """
    B = state.batch_size
    players = _players(state, player)
    out, m, g = _feature_buffers(out, mask, gains, B)
    _pick(_state_kernel, B, parallel)(players, adjacency_words(board), mask is not None, gains is not None,
                                      out, m, g, *_state_args(state))
    return out


def _pick(kernel_, batch_size: int, parallel: "bool | None"):
    """The build of a batch kernel to run: threaded, serial, or by batch size (``None``)."""
    if parallel is None:
        return kernel_.for_batch(batch_size)
    return kernel_.parallel if parallel else kernel_.serial


def float32_rows_ok(x: object, B: int, width: int) -> bool:
    """Whether ``x`` is a writable ``float32[B, width]`` array with contiguous rows (what the row
    kernels write; a column slice of a wider buffer is one). An empty one (``B = 0``, whose strides
    numpy sets to 0) always is."""
    return (isinstance(x, np.ndarray) and x.shape == (B, width) and x.dtype == np.float32
            and bool(x.flags.writeable) and (B == 0 or width <= 1 or x.strides[1] == 4))


def _rows_buffer(out: "np.ndarray | None", B: int, width: int) -> np.ndarray:
    """The caller's ``out`` checked to be ``float32[B, width]`` with contiguous rows (what the
    kernels write), or a new one (uninitialised). Raises :class:`PIError` naming ``out``."""
    if out is None:
        return np.empty((B, width), dtype=np.float32)
    if not float32_rows_ok(out, B, width):
        raise PIError(f"out must be float32[{B}, {width}] with contiguous rows, writable, got "
                      f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    return out


def _optional_buffer(x: "np.ndarray | None", B: int, width: int, dtype, name: str) -> np.ndarray:
    """The caller's optional output ``x`` checked to be ``dtype[B, width]`` (:func:`_buffer`), or,
    when not given, an empty stand-in (no rows) for the kernel, which is told not to write it."""
    return _dummy(0, width, dtype) if x is None else _buffer(x, (B, width), dtype, name)


def _feature_buffers(out: "np.ndarray | None", mask: "np.ndarray | None", gains: "np.ndarray | None",
                     B: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three outputs of the feature kernels: ``float32[B, 38]`` features, the optional
    ``bool[B, 1680]`` case-set mask and ``float32[B, 180]`` query gains (checked, or made / stood in
    for: :func:`_rows_buffer`, :func:`_optional_buffer`)."""
    return (_rows_buffer(out, B, OWN_FEATURES), _optional_buffer(mask, B, NUM_CASES, np.bool_, "mask"),
            _optional_buffer(gains, B, QUERY_GAINS, np.float32, "gains"))


def own_case_mask(state: State, board: "Board | np.ndarray", player: "int | np.ndarray",
                  out: "np.ndarray | None" = None) -> np.ndarray:
    """``bool[B, 1680]``: the own-information case set of ``player`` in every game (see
    :func:`own_features`, which fills it as a by-product)."""
    out = _buffer(out, (state.batch_size, NUM_CASES), np.bool_, "out")
    own_features(state, board, player, mask=out)
    return out


def query_gains(state: State, board: "Board | np.ndarray", player: "int | np.ndarray",
                out: "np.ndarray | None" = None) -> np.ndarray:
    """``float32[B, 50]``: the expected information gain in bits of each clue card (``0..35``) and
    each investigator district (``36..49``) for ``player`` under its own-information posterior
    (module docstring). Costs about one pass over the case set per row more than
    :func:`own_features`.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> g = query_gains(init(cfg, 1, seed=0), cfg.board, 0)
        >>> bool((g[0, :36] <= np.log2(3) + 1e-6).all()), bool((g[0] >= -1e-6).all())
        (True, True)
    """
    out = _buffer(out, (state.batch_size, QUERY_GAINS), np.float32, "out")
    own_features(state, board, player, gains=out)
    return out


def _observations(observations: np.ndarray, size: int, what: str) -> np.ndarray:
    obs = np.asarray(observations)
    if obs.ndim == 1:
        obs = obs[None]
    if obs.ndim != 2 or obs.shape[1] != size or not np.issubdtype(obs.dtype, np.integer):
        raise PIError(f"{what} observations must be int[B, {size}] or int[{size}], got "
                      f"{obs.dtype}[{', '.join(map(str, obs.shape))}]")
    return np.ascontiguousarray(obs)


def observation_features(observations: np.ndarray, num_players: int, board: "Board | np.ndarray",
                         out: "np.ndarray | None" = None, mask: "np.ndarray | None" = None,
                         gains: "np.ndarray | None" = None, parallel: "bool | None" = None) -> np.ndarray:
    """The own-information features of the observer of each engine observation.

    Args:
        observations: ``int16[B, 618 + 1912·P]`` or one ``int16[618 + 1912·P]``
            (:func:`pi_env.engine.observe`; seat 0 = the observer).
        num_players: ``P``.
        board: the board (its adjacency).
        out, mask, gains, parallel: as in :func:`own_features`.

    Returns:
        ``float32[B, 38]`` (``out`` if given); equal to :func:`own_features` of the state the
        observations came from (tested).

    Raises:
        PIError: observations of the wrong length or dtype, a wrong buffer.
    """
    P = int(num_players)
    obs = _observations(observations, observation_size(P), f"{P}-player")
    B = obs.shape[0]
    out, m, g = _feature_buffers(out, mask, gains, B)
    _pick(_observation_kernel, B, parallel)(obs, P, _obs_offsets(P), adjacency_words(board), mask is not None,
                                     gains is not None, out, m, g)
    return out


def observation_case_mask(observations: np.ndarray, num_players: int, board: "Board | np.ndarray") -> np.ndarray:
    """``bool[B, 1680]`` (``bool[1680]`` for one observation): the observer's own-information case
    set (:func:`observation_features`)."""
    single = np.asarray(observations).ndim == 1
    obs = _observations(observations, observation_size(int(num_players)), f"{int(num_players)}-player")
    mask = np.empty((obs.shape[0], NUM_CASES), dtype=bool)
    observation_features(obs, num_players, board, mask=mask)
    return mask[0] if single else mask


def solo_observation_features(observations: np.ndarray, board: "Board | np.ndarray", out: "np.ndarray | None" = None,
                              mask: "np.ndarray | None" = None,
                              gains: "np.ndarray | None" = None) -> np.ndarray:
    """The own-information features of Solo Time Attack observations (docs/rules.md §8): the cases its
    clue answers, investigators and failed solves allow (there is no other player).

    Args:
        observations: ``int16[B, 2452]`` or ``int16[2452]`` (:func:`pi_env.engine.solo.observe`).
        board: the board.
        out, mask, gains: optional buffers as in :func:`own_features`.

    Returns:
        ``float32[B, 38]`` (``out`` if given).
    """
    from pi_env.engine.solo import OBSERVATION_SIZE

    obs = _observations(observations, OBSERVATION_SIZE, "solo")
    B = obs.shape[0]
    out, m, g = _feature_buffers(out, mask, gains, B)
    _solo_observation_kernel.for_batch(B)(obs, _solo_offsets(), adjacency_words(board), mask is not None,
                                          gains is not None, out, m, g)
    return out


def solo_observation_case_mask(observations: np.ndarray, board: "Board | np.ndarray") -> np.ndarray:
    """``bool[B, 1680]`` (``bool[1680]`` for one observation): the solo player's own-information
    case set (:func:`solo_observation_features`)."""
    from pi_env.engine.solo import OBSERVATION_SIZE

    single = np.asarray(observations).ndim == 1
    obs = _observations(observations, OBSERVATION_SIZE, "solo")
    mask = np.empty((obs.shape[0], NUM_CASES), dtype=bool)
    solo_observation_features(obs, board, mask=mask)
    return mask[0] if single else mask


def solo_features(state, board: "Board | np.ndarray", out: "np.ndarray | None" = None,
                  mask: "np.ndarray | None" = None, gains: "np.ndarray | None" = None,
                  parallel: "bool | None" = None) -> np.ndarray:
    """The own-information features of every game of a :class:`~pi_env.engine.solo.SoloState`
    (equal to :func:`solo_observation_features` of its observations, without building them).

    Args:
        state: a batch of ``B`` solo games.
        board: their board (``config.board``).
        out, mask, gains, parallel: as in :func:`own_features`.

    Returns:
        ``float32[B, 38]`` (``out`` if given); ``mask`` / ``gains`` filled when given.
    """
    B = state.batch_size
    out, m, g = _feature_buffers(out, mask, gains, B)
    _pick(_solo_state_kernel, B, parallel)(adjacency_words(board), mask is not None, gains is not None, out, m, g,
                                    state.tile_district, state.spot, state.trace, state.nothing,
                                    state.inv_placed, state.inv_answer, state.inv_suppressed, state.failed,
                                    failed_solve_words(state.failed))
    return out


def solo_query_gains(state, board: "Board | np.ndarray", out: "np.ndarray | None" = None) -> np.ndarray:
    """``float32[B, 50]``: :func:`query_gains` for solo games (clue entries for all 36 elements,
    which open mode allows)."""
    out = _buffer(out, (state.batch_size, QUERY_GAINS), np.float32, "out")
    solo_features(state, board, gains=out)
    return out


def seat_case_masks(state: State, board: "Board | np.ndarray", player: "int | np.ndarray") -> tuple[np.ndarray, np.ndarray]:
    """Every player's case set as ``player`` sees it (docs/rules.md §9): the sets
    :func:`pi_env.solvers.joint.count_joint` combines.

    Returns:
        ``(masks, sizes)``: ``bool[B, P, 1680]`` and ``int64[B, P]`` in relative seats (seat ``j`` is
        player ``(p + j) % P``; seat 0 is the own-information set, seat 1 the held case alone).
    """
    B, P = state.batch_size, state.num_players
    players = _players(state, player)
    masks = np.empty((B, P, NUM_CASES), dtype=bool)
    sizes = np.empty((B, P), dtype=np.int64)
    _seat_sets_kernel.for_batch(B)(players, adjacency_words(board), masks, sizes, *_state_args(state))
    return masks, sizes


def failed_solve_words(failed: np.ndarray) -> np.ndarray:
    """The failed-solve flags ``bool[..., 1680]`` as ``uint64[..., 210]`` (a view when contiguous):
    whether a player failed any solve is 210 word tests (:func:`any_nonzero`), not 1680 flag
    tests."""
    return np.ascontiguousarray(failed).view(np.uint64)


def _state_args(state: State) -> tuple[np.ndarray, ...]:
    return (state.tile_district, state.case, state.spot, state.trace, state.front, state.inv_count,
            state.inv_district, state.inv_answer, state.inv_suppressed, failed_solve_words(state.failed),
            state.solved_case, state.failed)


def joint_case_counts(state: State, board: "Board | np.ndarray", player: "int | np.ndarray") -> np.ndarray:
    """The exact joint posterior of ``player``'s case, unnormalised (docs/rules.md §9): for every
    case, the number of joint deals of the unknown players' cases consistent with every public
    answer, the case the player holds and its own answers (uniform over those deals, as
    :func:`pi_env.solvers.analyze_knowledge` and the ``greedy`` agent weigh them).

    2 players: the own-information set (:func:`own_case_mask`, one numba call) with weight 1 —
    the only other case is the held one, so it is exact. 4 players: one numba call
    (:func:`disjoint_pair_counts`); 5 players: one numba call (:func:`disjoint_triple_counts`). 3
    players: the sets of :func:`seat_case_masks` (one numba call), combined by
    :func:`pi_env.solvers.joint.count_joint` one Python call per row.

    Args:
        state, board, player: as :func:`own_features`.

    Returns:
        ``int64[B, 1680]``; a row with no consistent deal (impossible in an engine game) is all 0.
    """
    from pi_env.solvers.joint import count_joint

    B, P = state.batch_size, state.num_players
    players = _players(state, player)
    if P == 2:
        return own_case_mask(state, board, players).astype(np.int64)
    out = np.zeros((B, NUM_CASES), dtype=np.int64)
    if B == 0:
        return out
    if P == 4:
        feat = np.empty((B, JOINT_FEATURES), dtype=np.float32)
        _joint4_kernel.for_batch(B)(players, adjacency_words(board), feat, out, True, *_state_args(state))
        return out
    if P == 5:
        _joint5_kernel.for_batch(B)(players, adjacency_words(board), out, *_state_args(state))
        return out
    masks, sizes = seat_case_masks(state, board, players)
    for b in range(B):
        if sizes[b, 0] and sizes[b, 1]:
            out[b] = count_joint(masks[b, 0], [masks[b, j] for j in range(2, P)])
    return out


def joint_features(state: State, board: "Board | np.ndarray", player: "int | np.ndarray",
                   out: "np.ndarray | None" = None, rows: "np.ndarray | None" = None,
                   parallel: "bool | None" = None) -> np.ndarray:
    """The exact posterior of ``player``'s case given every public answer (docs/rules.md §9: uniform over
    the consistent joint deals), as ``float32[B, 37]``: ``p_suspect``, ``p_evidence``, ``p_location``
    and ``log2_count`` (``log2`` of the number of cases with a consistent joint deal, over
    ``log2(1680)``) — the entries of :data:`OWN_LAYOUT` before ``p_best``.

    2 players: the own-information set is exact (the only other case is the held one), one numba
    call. 3 players: one unknown player, counted by inclusion-exclusion in the same numba call.
    4 players: two unknown players, counted in the same numba call by :func:`disjoint_pair_counts`.
    5 players: the counts of :func:`joint_case_counts` (one numba call,
    :func:`disjoint_triple_counts`: the counts of :func:`pi_env.solvers.joint.count_joint`), then
    per row the numpy sums of the per-row reference :func:`_per_row_joint_features` (one
    ``count_joint`` per row, as this path was before): the same floats bit for bit (tested).

    Args:
        state, board, player: as :func:`own_features`.
        out: optional ``float32[B, 37]`` buffer (C-contiguous rows).
        rows: optional ``bool[B]``: compute only these rows (the others are left as they are).
        parallel: as in :func:`own_features`.

    Returns:
        ``float32[B, 37]`` (``out`` if given); a row with no consistent deal (impossible in an
        engine game) is all zeros.
    """
    B, P = state.batch_size, state.num_players
    players = _players(state, player)
    out = np.zeros((B, JOINT_FEATURES), dtype=np.float32) if out is None else _rows_buffer(out, B, JOINT_FEATURES)
    which = np.arange(B) if rows is None else np.flatnonzero(np.asarray(rows, dtype=bool))
    if which.size == 0:
        return out
    sub = state if which.size == B else state.take(which)
    words = adjacency_words(board)
    if P <= 3:
        tmp = np.empty((which.size, OWN_FEATURES), dtype=np.float32)
        if P == 2:
            _pick(_state_kernel, which.size, parallel)(players[which], words, False, False, tmp,
                                                       _dummy(0, NUM_CASES, np.bool_), _dummy(0, QUERY_GAINS, np.float32),
                                                       *_state_args(sub))
        else:
            _pick(_joint3_kernel, which.size, parallel)(players[which], words, tmp, *_state_args(sub))
        out[which] = tmp[:, :JOINT_FEATURES]
        return out
    if P == 4:
        tmp = np.empty((which.size, JOINT_FEATURES), dtype=np.float32)
        _pick(_joint4_kernel, which.size, parallel)(players[which], words, tmp, np.zeros((0, NUM_CASES), np.int64),
                                                    False, *_state_args(sub))
        out[which] = tmp
        return out
    counts = joint_case_counts(sub, board, players[which])
    for i, b in enumerate(which):
        _joint_row_of_counts(counts[i], out[b])
    return out


def _joint_row_of_counts(counts: np.ndarray, row: np.ndarray) -> None:
    """The :data:`JOINT_FEATURES` ``row`` (``float32[37]``, overwritten) of one row's joint counts
    ``int64[1680]``: ``count / total`` summed per element (float64, in case order), the positive
    cases' ``log2`` over ``log2(1680)``; all zeros without a positive count (:func:`joint_features`
    at 5 players and :func:`_per_row_joint_features`)."""
    row[:] = 0.0
    cases = np.flatnonzero(counts)
    if cases.size == 0:
        return
    w = counts[cases].astype(np.float64)
    w /= w.sum()
    row[:12] = np.bincount(cases // 140, w, 12)
    row[12:22] = np.bincount((cases // 14) % 10, w, 10)
    row[22:36] = np.bincount(cases % 14, w, 14)
    row[36] = math.log2(cases.size) / _LOG2_CASES


def _per_row_joint_features(sub: State, board: "Board | np.ndarray", players: np.ndarray, out: np.ndarray,
                            which: np.ndarray) -> None:
    """:func:`joint_features` of ``sub`` (the rows ``which`` of ``out``) from the sets of
    :func:`seat_case_masks` and one :func:`pi_env.solvers.joint.count_joint` per row: the reference
    ``benchmarks/own_info_speed.py`` measures the 4-player numba kernel against, and what the
    5-player path computed before (the floats of :func:`_joint_row_of_counts`, shared)."""
    from pi_env.solvers.joint import count_joint

    P = sub.num_players
    masks, sizes = seat_case_masks(sub, board, players)
    for i, b in enumerate(which):
        row = out[b]
        row[:] = 0.0
        if sizes[i, 0] and sizes[i, 1]:
            _joint_row_of_counts(count_joint(masks[i, 0], [masks[i, j] for j in range(2, P)]), row)
