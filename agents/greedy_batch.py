"""The ``greedy`` agent in batch: :class:`GreedyOpponent` plays every game it is asked about with the
decisions of :class:`pi_env.agents.greedy.GreedyAgent` (default options, the games' edition), game
by game the same actions (tested on many seeded games), at batch speed. Supported: 2, 3, 4 and 5
players (:data:`SUPPORTED_PLAYERS`; :func:`decision_block`, the ``"compact-v4"`` encoding's block,
the same: :data:`DECISION_BLOCK_PLAYERS`).

**What greedy computes per decision** (:func:`pi_env.agents.greedy.assess` then
:func:`~pi_env.agents.greedy.greedy_decision`; relative seats, 0 = the agent, 1 = the next player,
whose case the agent holds; with 3 players seat 2 is the one player whose case the agent does
not know, with 4 players seats 2 and 3, with 5 players seats 2, 3 and 4) and which batched piece
gives it here:

==============================================  ==========================================================
greedy (per game, Python)                       here (one numba kernel over the rows, :func:`_decide_kernel`)
==============================================  ==========================================================
``analyze_knowledge`` of                        the own-information case set of
``knowledge_from_observation``: the exact       :mod:`pi_env.solvers.own_info` (``gather_state``,
joint posterior ``cases``, ``probs``            ``apply_held``, ``case_set``: the row kernel of
                                                :func:`~pi_env.solvers.own_info.own_features`). With 2
                                                players it *is* the joint posterior (the only other case
                                                is the held one), uniform: ``probs = 1/n`` normalised as
                                                greedy does, read from a table (:data:`_PROB`) so that
                                                the float is greedy's bit for bit. With 3 players, per
                                                case the number of seat 2's cases disjoint from it
                                                (seat 2's set with the held case known, the same row
                                                kernel; inclusion–exclusion over its histograms,
                                                :func:`~pi_env.solvers.own_info.disjoint_counts`); with
                                                4 players the number of pairs of seat 2's and seat 3's
                                                cases disjoint from it and from each other
                                                (:func:`~pi_env.solvers.own_info.disjoint_pair_counts`:
                                                :func:`pi_env.solvers.joint.count_joint`'s counts); with
                                                5 players the triples of seats 2, 3 and 4
                                                (:func:`~pi_env.solvers.own_info.disjoint_triple_counts`:
                                                the sets as boxes, per triple of boxes a product over
                                                the types, or one pair count per case of the smallest
                                                set; ``count_joint``'s counts); the
                                                cases with a positive count kept, ``count / total``
                                                normalised by numpy's pairwise sum
                                                (:func:`_pairwise_sum`): greedy's floats bit for bit
``best``: the most likely case, ties to the     the first case of the highest probability (the cases
lowest id; ``p = probs[best]``                  are listed ascending)
``candidate_actions``: legal clues and          the legal-action mask (``legal_action_mask``); the share
investigators, investigators rationed           ``ceil((left + placed) / max(1, 3 − round))`` from the
(``inv_allowed``)                               player's tiles left and placed this round
``answer_matrix``, ``information_gains``        per clue card the answer counts from the set's element
                                                counts, per investigator from the per-type counts of a
                                                product set or else a pass over the members, the
                                                player's suppressed types cleared (the gains of
                                                :func:`pi_env.solvers.own_info.query_gains`:
                                                ``clue_gains``, ``district_gains``); the entropy of
                                                the answer counts; with 3 to 5 players the entropy of
                                                the answers' probability mass (a pass over the cases,
                                                or for many cases the joint counts' sums per element,
                                                pair and case: :func:`_posterior_gains`)
``public_case_bits``: every seat's cases from   the set of every seat the outlook reads (acting after
public information (no held case)               the agent in this rotation, not solved, not idle) from
                                                its public answers and the other players' spot markers
                                                and correct solves (``gather_state`` + ``case_set``
                                                without the held case): its size ``nⱼ`` (the opponent
                                                model); seat 1's element counts (denial, when weighed)
``read_outlook``: tier, round, rotation, turn   the state's round, tier, rotation, first player, score,
order, solved / attempted flags, idle seats,    ``attempted`` and ``solved`` flags, the seat's public
``pending`` (from the flags of the agent's      actions (idle); the previous turn's ``(round, rotation,
previous turn), score                           solved flags)`` kept per game slot as the agent keeps it
``turns_to_solve_pmf(nⱼ)[0]``: each seat's      a table over ``n = 0..1680`` (:data:`_HAZARD`) of the
hazard                                          same function
``next_player_gains`` × ``next_player_          ``log2(n₁ / m)`` per legal clue, ``m`` from seat 1's
activity``: denial                              element counts and the held case's answer; the activity
                                                from the counts of seat 1's public actions
``best_query``: the highest ``gain + denial``   the same, ties within ``GAIN_TOLERANCE`` to the lowest
among gains above ``GAIN_TOLERANCE``            id (:func:`pi_env.solvers.hints.tied_with_best`)
``q_after``, ``Outlook.solve_value``,           the same formulas with the same float operations in the
``Outlook.wait_value`` (``next_turn_outcomes``  same order (the sum of ``q_after`` as numpy adds 16
over the seats acting after the agent)          entries), scores by :func:`pi_env.core.rules.tier_points`,
                                                :func:`~pi_env.core.rules.solve_gain` and
                                                :func:`~pi_env.core.rules.wrong_solve_loss`
``greedy_decision``: solve when certain /       the same rule
``E_now > 0`` and ``E_now ≥ E_wait``, else the
query; no query: wait with the clue of highest
denial or solve
==============================================  ==========================================================

The information gains and the denial are computed from counts rather than from greedy's float sums
of probabilities: they may differ in the last bits, which matters only for values within
:data:`pi_env.solvers.hints.GAIN_TOLERANCE` of each other (those are ties in both). The values
compared without a tolerance (``E_now > 0``, ``E_now ≥ E_wait``) are computed with greedy's own
float operations.

Greedy draws nothing at random (its ties go to the lowest action id), so there is no stream of
draws to follow; what it remembers between turns is the ``(round, rotation, solved flags)`` of its
previous turn, kept here per game slot and forgotten in :meth:`GreedyOpponent.new_games`.

With 4 and 5 players greedy's denial weight is 0 (:func:`pi_env.agents.greedy.denial_weight_for`):
the query is the one of the highest gain, a wait takes the lowest legal clue; the denial computed
here is then multiplied by 0, as greedy's (and not computed).

With 5 players the joint posterior has three unknown players (seats 2, 3, 4); it is counted in the
same kernel (:func:`~pi_env.solvers.own_info.disjoint_triple_counts`, exact, tested against
:func:`pi_env.solvers.joint.count_joint`), so ``batch_opponent("greedy")`` plays 5-player games in
batch too (``benchmarks/joint5_speed.py`` measures the count, ``benchmarks/rl_training_speed.py``
the training against it). Greedy's 5-player branches are those of 4 players (denial weight 0, the
gains from the posterior's probability mass, up to 4 seats in the outlook).

**Threads.** Every row is decided alone, so the kernel (a :func:`pi_env.core._config.batch_kernel`)
can run on numba threads over runs of rows: ``parallel=True`` in :func:`greedy_actions`,
:func:`decision_block` (and :func:`pi_env.agents.learned.encode_state`), ``None`` for threads from
``PARALLEL_MIN_BATCH["default"]`` rows on; the default is one thread (what one training worker
spends). The values and actions are the same either way (``tests/test_compact_v4.py``).

What a player may know only (docs/rules.md §9): the state is read through the layout, every
player's public answers, markers, investigators, failed and correct solves, scores and flags, the
player's own tiles left, the round, tier, rotation and first player, and the case it holds
(``state.case`` of the next player) — never its own case, nor those of seats 2 to 4.
"""

from __future__ import annotations

import contextlib

import numba
import numpy as np
from numba import prange

from pi_env.agents.greedy import ROUNDS, denial_weight_for
from pi_env.core._config import batch_kernel, kernel, rule_step
from pi_env.core.constants import (EDITION_NAMES, INVESTIGATE_BASE, MAX_INVESTIGATORS, NUM_CASES, NUM_DISTRICTS,
                                   NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE)
from pi_env.core.errors import PIError
from pi_env.core.rules import (edition_code, finished_for_round_end, round_ends_after_rotation, solve_gain,
                               tier_points, wrong_solve_loss)
from pi_env.encodings.layouts import DECISION_BLOCK_SIZE, JOINT_BLOCK_SIZE
from pi_env.engine import GameConfig, State, legal_action_mask
from pi_env.engine.observe import player_array
from pi_env.solvers.hints import GAIN_TOLERANCE, tied_with_best
from pi_env.solvers.own_info import (_features_of_counts, adjacency_words, any_nonzero, case_marginals,
                                     case_set, clue_code, clue_gains, disjoint_counts, pair_counts_of_rows, pair_scratch,
                                     disjoint_triple_counts, district_codes, district_gains, failed_solve_words,
                                     float32_rows_ok, gather_state, held_case_of, hypothesis_masks, seat_case_rows,
                                     seat_case_set)
from pi_env.solvers.turns import turns_to_solve_pmf

__all__ = ["GreedyOpponent", "greedy_actions", "decision_block", "query_legal", "SUPPORTED_PLAYERS",
           "DECISION_BLOCK_PLAYERS"]

SUPPORTED_PLAYERS = (2, 3, 4, 5)
"""Player counts :class:`GreedyOpponent` and :func:`greedy_actions` play."""
DECISION_BLOCK_PLAYERS = (2, 3, 4, 5)
"""Player counts :func:`decision_block` (the ``"compact-v4"`` encoding's last block) is computed for:
those greedy plays (its ``hazard`` and ``idle`` entries hold the 4 later seats of 5 players;
:func:`pi_env.encodings.registry.check_players`)."""
_NUM_QUERIES = INVESTIGATE_BASE + NUM_DISTRICTS  # 50
_MANY_CASES = 350  # above: the weighted gains from sums per element, pair and case (_weighted_gains)
_POINT_SCALE = 0.1  # score points in the decision block (decision_block)
_CHUNK = 32  # rows per run of the threaded _decide_kernel (each run allocates its work arrays)


def _prob_table() -> np.ndarray:
    """``float64[1681]``: entry ``n`` is greedy's probability of each case of a uniform set of ``n``
    (``1 / n`` from the analysis, then divided by the numpy sum of the ``n`` entries, as
    :func:`pi_env.agents.greedy.assess` normalises)."""
    out = np.zeros(NUM_CASES + 1)
    for n in range(1, NUM_CASES + 1):
        v = np.ones(n, dtype=np.int64) / float(n)
        out[n] = (v / v.sum())[0]
    return out


def _hazard_table() -> np.ndarray:
    """``float64[1681]``: entry ``n`` is ``turns_to_solve_pmf(n)[0]``, the opponent model's chance
    that a seat with ``n`` public cases solves on its coming turn (:class:`pi_env.agents.greedy.Outlook`)."""
    return np.array([turns_to_solve_pmf(n)[0] for n in range(NUM_CASES + 1)], dtype=np.float64)


_PROB = _prob_table()
_PROB.flags.writeable = False
_HAZARD = _hazard_table()
_HAZARD.flags.writeable = False


@kernel
def _sum16(v):
    """numpy's sum of 16 float64 entries (its pairwise summation: 8 partial sums, then a tree), so
    that :func:`pi_env.agents.greedy.q_after` is reproduced bit for bit."""
    r0 = v[0] + v[8]
    r1 = v[1] + v[9]
    r2 = v[2] + v[10]
    r3 = v[3] + v[11]
    r4 = v[4] + v[12]
    r5 = v[5] + v[13]
    r6 = v[6] + v[14]
    r7 = v[7] + v[15]
    return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))


@kernel
def _block_sum(a, lo, n):
    """numpy's pairwise summation of ``a[lo:lo + n]`` for ``n <= 128`` (one block)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    end = n - n % 8
    for i in range(8, end, 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(end, n):
        res += a[lo + i]
    return res


@kernel
def _pairwise_sum(a, n):
    """``a[:n].sum()`` as numpy computes it for float64 (its pairwise summation: runs of more than
    128 entries halved at a multiple of 8, blocks summed by :func:`_block_sum`), bit for bit, so
    that greedy's normalisation (``probs / probs.sum()``) is reproduced exactly. Without
    recursion: the halvings are walked with an explicit stack of ``(lo, n)`` ranges, each range's
    two halves' sums added as numpy adds them.

    Args:
        a: ``float64[>= n]``.
        n: the number of leading entries summed (any ``n >= 0``).

    Returns:
        ``float``.
    """
    if n <= 128:
        return _block_sum(a, 0, n)
    # frames (lo, n, state): state 0 = to expand, 1 = both halves summed, to be added
    lo_s = np.empty(128, dtype=np.int64)
    n_s = np.empty(128, dtype=np.int64)
    state_s = np.empty(128, dtype=np.int64)
    vals = np.empty(128)
    top, nv = 0, 0
    lo_s[0], n_s[0], state_s[0] = 0, n, 0
    top = 1
    while top > 0:
        top -= 1
        lo, m, state = lo_s[top], n_s[top], state_s[top]
        if m <= 128:
            vals[nv] = _block_sum(a, lo, m)
            nv += 1
        elif state == 1:
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
        else:
            half = m // 2
            half -= half % 8
            lo_s[top], n_s[top], state_s[top] = lo, m, 1
            lo_s[top + 1], n_s[top + 1], state_s[top + 1] = lo + half, m - half, 0  # summed second
            lo_s[top + 2], n_s[top + 2], state_s[top + 2] = lo, half, 0  # summed first
            top += 3
    return vals[0]


@kernel
def _wait_value(q, live, n_live, open_others, n_open, me_open, hazard, tier, pending, rnd, P, score, ed):
    """:meth:`pi_env.agents.greedy.Outlook.wait_value` (``hazard`` the outlook's, every attempt a
    correct solve): the outcomes of the ``n_live`` seats ``live`` acting after the agent, in the
    order of ``itertools.product((0, 2), repeat=n_live)``."""
    pen = wrong_solve_loss(score, ed)
    total = 0.0
    for i in range(1 << n_live):
        prob = 1.0
        right = False
        still_open = me_open
        for k in range(n_live):
            j = live[k]
            if (i >> (n_live - 1 - k)) & 1:
                prob *= hazard[j] * 1.0
                right = True
            else:
                prob *= 1.0 - hazard[j]
        for k in range(n_open):
            j = open_others[k]
            now = False
            for m in range(n_live):
                if live[m] == j and (i >> (n_live - 1 - m)) & 1:
                    now = True
            if not finished_for_round_end(now, now, ed):
                still_open += 1
        on = not round_ends_after_rotation(still_open)
        t = tier + (1 if (pending or right) else 0)
        if on and prob > 0:
            pts = solve_gain(score, tier_points(t, rnd, P, ed), ed)
            total += prob * max(0.0, q * pts - (1.0 - q) * pen)
    return total


@kernel
def _mass_entropy(mass, size):
    """Entropy (bits) of the answer probabilities ``mass[:size]`` (summing to 1)."""
    g = 0.0
    for k in range(size):
        if mass[k] > 0:
            g -= mass[k] * np.log2(mass[k])
    return max(g, 0.0)


@kernel
def _joint_posterior(b, p, P, h, held, td, words, st, answer, inv_mask, members, n, others, cnt2, joint, weight,
                     hist):
    """3 to 5 players: the agent's cases with a joint deal (``members[:n]``, compacted in place) and
    their probabilities in ``weight`` (``count / total``, normalised by numpy's pairwise sum, as
    greedy); returns ``(k, best_i)``: their number and the index of the first of the highest
    probability, or ``(-1, 0)`` when no case has a deal (greedy then keeps the own cases, uniform).
    ``st``: the state's per-player arrays (:func:`greedy_actions`); ``others``: ``int16[3, 1680]``
    receives the sets of seats 2 to ``P - 1`` (at 4 players only when the pair
    count lists them); ``hist``: scratch of :func:`pi_env.solvers.own_info.disjoint_counts`, then
    :func:`~pi_env.solvers.own_info.pair_scratch` and ``int64[2, 12, 10]`` (4 players: seats 2 and
    3's sets as location masks, :func:`~pi_env.solvers.own_info.seat_case_rows`). The counts: 3
    players :func:`~pi_env.solvers.own_info.disjoint_counts`, 4 players
    :func:`~pi_env.solvers.own_info.disjoint_pair_counts`'s (by
    :func:`~pi_env.solvers.own_info.pair_counts_of_rows`), 5 players
    :func:`~pi_env.solvers.own_info.disjoint_triple_counts`."""
    h1, hse, hsl, hel, mem, pairs, rows = hist
    sizes = np.zeros(P - 1, dtype=np.int64)
    for k in range(P - 1):  # seat 1's set with the held case (consistency), seats 2.. with it known
        if P == 4 and k >= 1:  # as location masks (the pair count's boxes without listing the cases)
            sizes[k] = seat_case_rows(b, (h + k) % P, P, h, held, td, words, st, answer, inv_mask, rows[k - 1])
        else:
            sizes[k] = seat_case_set(b, (h + k) % P, P, h, held, td, words, st, k >= 1, answer, inv_mask,
                                     others[max(k - 1, 0)], cnt2)
        if sizes[k] == 0:
            return -1, 0
    if P == 3:
        positive = disjoint_counts(members, n, others[0], sizes[1], joint, h1, hse, hsl, hel, mem)
    elif P == 4:
        positive = pair_counts_of_rows(members, n, rows[0], sizes[1], rows[1], sizes[2], others[0], others[1], joint,
                                       pairs)
    else:
        positive = disjoint_triple_counts(members, n, others[0], sizes[1], others[1], sizes[2], others[2], sizes[3],
                                          joint)
    if positive == 0:
        return -1, 0
    total = 0  # (the counts are >= 0: the sum of the positive ones is the sum of all)
    k = 0
    if positive == n:  # every case has a deal (the deal's rows): nothing to compact
        for i in range(n):
            total += joint[i]
        k = n
    else:
        for i in range(n):
            c = joint[i]
            if c > 0:
                members[k] = members[i]
                joint[k] = c
                total += c
                k += 1
    ftotal = float(total)
    for i in range(k):  # apart from the compaction: a loop the compiler vectorises
        weight[i] = joint[i] / ftotal
    norm = _pairwise_sum(weight, k)
    for i in range(k):  # vectorised, as the division above
        weight[i] = weight[i] / norm
    best_i = 0
    top = weight[0]
    for i in range(1, k):  # the first case of the highest probability
        if weight[i] > top:
            best_i, top = i, weight[i]
    return k, best_i


@kernel
def _outlook(b, p, P, rotation, rnd, first, mine, solved_, attempted_, st, prev_valid, prev_round, prev_rotation,
             prev_solved, solved, attempted, before, idle):
    """The flags of :func:`pi_env.agents.greedy.read_outlook` in relative seats (``solved``,
    ``attempted``, ``before``: acting before the agent in this rotation, ``idle``); returns
    ``pending`` (a seat solved earlier in this rotation)."""
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    for j in range(P):
        q = (p + j) % P
        solved[j] = solved_[b, q]
        attempted[j] = attempted_[b, q]
        before[j] = (j - first + P) % P < mine
        acted = solved[j] or attempted[j] or inv_count[b, q] > 0 or any_nonzero(failed_words[b, q])
        for x in range(NUM_ELEMENTS):
            acted = acted or front[b, q, x] or spot[b, q, x] or trace[b, q, x]
        idle[j] = j != 0 and not solved[j] and (before[j] or rotation >= 1) and not acted
    pending = False
    if rotation == 0:
        for j in range(P):
            pending = pending or (solved[j] and before[j])
    elif prev_valid[b] and prev_round[b] == rnd and prev_rotation[b] == rotation - 1:
        for j in range(P):
            pending = pending or (solved[j] and not prev_solved[b, j] and before[j])
    return pending


@kernel
def _weighted_gains_pass(td, words, adjacency, markers, cand, members, weight, n, wcnt, mass, scratch, gains):
    """The candidates' information gains (bits) for cases ``members[:n]`` of probabilities
    ``weight``: the entropy of each answer's probability mass, by passes over the cases (for a few
    cases; :func:`_weighted_gains` for many). ``scratch``: ``(codes int64[14, 36], which int64[14],
    masses float64[14, 16])`` (rows 0 and 1 of ``codes`` used)."""
    codes, which, masses = scratch
    wcnt[:] = 0.0
    for i in range(n):
        c = np.int64(members[i])
        wcnt[c // 140] += weight[i]
        wcnt[12 + (c // 14) % 10] += weight[i]
        wcnt[22 + c % 14] += weight[i]
    for x in range(NUM_ELEMENTS):
        if not cand[x]:
            continue
        mass[:] = 0.0
        t0 = 0 if x < 12 else (12 if x < 22 else 22)
        t1 = 12 if x < 12 else (22 if x < 22 else 36)
        for y in range(t0, t1):
            mass[clue_code(words, td, x, y)] += wcnt[y]
        gains[x] = _mass_entropy(mass, 3)
    # the candidate districts' answer masses in one pass over the cases (each district's sum in
    # the cases' order): per element its code in every candidate district as one 4-bit field per
    # district, so that a case's codes are the sum of its three elements' words (at most 12 per
    # field: no carry)
    nd = 0
    codes[0, :] = 0
    for d in range(NUM_DISTRICTS):
        if cand[INVESTIGATE_BASE + d]:
            district_codes(td, adjacency, markers, d, codes[1])
            for y in range(NUM_ELEMENTS):
                codes[0, y] |= codes[1, y] << np.int64(4 * d)
            which[nd] = 4 * d
            nd += 1
    if nd == 0:
        return
    masses[:nd] = 0.0
    for i in range(n):
        c = np.int64(members[i])
        word = codes[0, c // 140] + codes[0, 12 + (c // 14) % 10] + codes[0, 22 + c % 14]
        w = weight[i]
        for k in range(nd):
            masses[k, (word >> which[k]) & 15] += w
    for k in range(nd):
        gains[INVESTIGATE_BASE + which[k] // 4] = _mass_entropy(masses[k], 16)


@kernel
def _gain_scratch():
    """The buffers of :func:`_posterior_gains`."""
    return (np.empty(NUM_ELEMENTS), (np.empty((NUM_DISTRICTS, NUM_ELEMENTS), dtype=np.int64),
                                     np.empty(NUM_DISTRICTS, dtype=np.int64), np.empty((NUM_DISTRICTS, 16))),
            (np.zeros(NUM_CASES, dtype=np.int64), np.zeros(NUM_ELEMENTS, dtype=np.int64),
             np.zeros((12, 10), dtype=np.int64), np.zeros((12, 14), dtype=np.int64),
             np.zeros((10, 14), dtype=np.int64), np.zeros(NUM_ELEMENTS, dtype=np.int64),
             np.zeros((3, 2, 14), dtype=np.int64), np.zeros(3, dtype=np.int64),
             np.zeros((3, 3, 3), dtype=np.int64), np.zeros(16, dtype=np.int64)))


@kernel
def _posterior_gains(td, words, adjacency, markers, cand, members, weight, joint, n, mass, scratch, gains):
    """The candidates' information gains under the joint posterior (cases ``members[:n]``,
    probabilities ``weight``, joint counts ``joint``): :func:`_weighted_gains` for more than
    :data:`_MANY_CASES` cases, else :func:`_weighted_gains_pass` (the same gains up to the last
    bits, each the faster there). ``scratch``: :func:`_gain_scratch`."""
    wcnt, pscratch, wscratch = scratch
    if n > _MANY_CASES:
        _weighted_gains(td, words, adjacency, markers, cand, members, joint, n, mass, wscratch, gains)
    else:
        _weighted_gains_pass(td, words, adjacency, markers, cand, members, weight, n, wcnt, mass, pscratch, gains)


@kernel
def _class_sums(G, lists, sizes, dense, h1, hse, hsl, hel, total):
    """``G[x, y, z]``: the sum of the weights (:func:`_weighted_gains`) of the cases whose suspect
    is in class ``x``, evidence in ``y``, location in ``z`` of one district, class 0 standing for
    every element, 1 and 2 for the elements of code 1 and 4 there: per type ``t`` the elements of
    code 1 or 4, ``lists[t, 0, :sizes[t]]`` (type-local ids) of classes ``lists[t, 1, :sizes[t]]``.
    Each sum is taken once over the listed elements (integers: exact in any order)."""
    G[:] = 0
    G[0, 0, 0] = total
    ns, ne, nl = sizes[0], sizes[1], sizes[2]
    Ls, Le, Ll = lists[0, 0], lists[1, 0], lists[2, 0]
    Cs, Ce, Cl = lists[0, 1], lists[1, 1], lists[2, 1]
    for i in range(ns):
        G[Cs[i], 0, 0] += h1[Ls[i]]
    for j in range(ne):
        G[0, Ce[j], 0] += h1[12 + Le[j]]
    for k in range(nl):
        G[0, 0, Cl[k]] += h1[22 + Ll[k]]
    for j in range(ne):
        for k in range(nl):
            G[0, Ce[j], Cl[k]] += hel[Le[j], Ll[k]]
    for i in range(ns):
        si, ci = Ls[i], Cs[i]
        for j in range(ne):
            G[ci, Ce[j], 0] += hse[si, Le[j]]
        for k in range(nl):
            G[ci, 0, Cl[k]] += hsl[si, Ll[k]]
        for j in range(ne):
            base, cj = si * 140 + Le[j] * 14, Ce[j]
            for k in range(nl):
                G[ci, cj, Cl[k]] += dense[base + Ll[k]]


@kernel
def _district_lists(d, on, near, marked, lists, sizes):
    """The elements answering an investigator in district ``d`` (as
    :func:`pi_env.solvers.own_info.district_codes`: code 4 on ``d``, 1 next to it, none for a type
    the player's markers suppress there), per type ``t`` into ``lists[t, 0, :sizes[t]]``
    (type-local ids, ascending) with their classes in ``lists[t, 1]`` (1: code 1, 2: code 4).
    ``on``, ``near``: per district the 36-bit masks of the elements on it and next to it;
    ``marked``: the mask of the player's spot and trace markers."""
    m4 = on[d]
    m1 = near[d] & ~m4
    for t in range(3):
        lo = 0 if t == 0 else (12 if t == 1 else 22)
        width = 12 if t == 0 else (10 if t == 1 else 14)
        k = 0
        if not (marked & m4) >> np.int64(lo) & ((np.int64(1) << np.int64(width)) - 1):
            for v in range(width):
                bit = np.int64(1) << np.int64(lo + v)
                if m4 & bit:
                    lists[t, 0, k] = v
                    lists[t, 1, k] = 2
                    k += 1
                elif m1 & bit:
                    lists[t, 0, k] = v
                    lists[t, 1, k] = 1
                    k += 1
        sizes[t] = k


@kernel
def _weighted_gains(td, words, adjacency, markers, cand, members, joint, n, mass, scratch, gains):
    """The candidates' information gains (bits) for cases ``members[:n]`` of weights ``joint``
    (their joint counts, :func:`_joint_posterior`): the entropy of each answer's probability mass,
    summed in integers (the counts per answer) and divided by the total once, so the gains may
    differ from greedy's float sums in the last bits (module docstring). An investigator's answer
    masses come from the weights' sums per element, pair of elements and (for the few elements
    answering on or next to the district) case, by inclusion–exclusion over the other elements:
    no pass over the cases per district (for many cases; a few: :func:`_weighted_gains_pass`).
    ``scratch``: :func:`_decide_kernel`'s buffers."""
    dense, h1, hse, hsl, hel, ec, lists, sizes, G, imass = scratch
    dense[:] = 0
    total = 0
    for i in range(n):
        dense[np.int64(members[i])] = joint[i]
        total += joint[i]
    case_marginals(dense, h1, hse, hsl, hel)
    for x in range(NUM_ELEMENTS):
        if not cand[x]:
            continue
        imass[:3] = 0
        t0 = 0 if x < 12 else (12 if x < 22 else 22)
        t1 = 12 if x < 12 else (22 if x < 22 else 36)
        for y in range(t0, t1):
            imass[clue_code(words, td, x, y)] += h1[y]
        for k in range(3):
            mass[k] = imass[k] / total
        gains[x] = _mass_entropy(mass, 3)
    on, near = ec[:NUM_DISTRICTS], ec[NUM_DISTRICTS:2 * NUM_DISTRICTS]
    on[:] = 0
    marked = np.int64(0)
    for y in range(NUM_ELEMENTS):
        on[td[y]] |= np.int64(1) << np.int64(y)
        if markers[y]:
            marked |= np.int64(1) << np.int64(y)
    for d in range(NUM_DISTRICTS):
        if not cand[INVESTIGATE_BASE + d]:
            continue
        near[d] = 0
        for d2 in range(NUM_DISTRICTS):
            if adjacency[d2, d]:
                near[d] |= on[d2]
        _district_lists(d, on, near, marked, lists, sizes)
        _class_sums(G, lists, sizes, dense, h1, hse, hsl, hel, total)
        for axis in range(3):  # class 0: every element minus those of code 1 and 4
            for u in range(3):
                for v in range(3):
                    if axis == 0:
                        G[0, u, v] -= G[1, u, v] + G[2, u, v]
                    elif axis == 1:
                        G[u, 0, v] -= G[u, 1, v] + G[u, 2, v]
                    else:
                        G[u, v, 0] -= G[u, v, 1] + G[u, v, 2]
        imass[:] = 0
        for x in range(3):
            for y in range(3):
                for z in range(3):
                    imass[(0, 1, 4)[x] + (0, 1, 4)[y] + (0, 1, 4)[z]] += G[x, y, z]
        for k in range(16):
            mass[k] = imass[k] / total
        gains[INVESTIGATE_BASE + d] = _mass_entropy(mass, 16)


@kernel
def _denial(b, q1, held, n1, cnt1, td, words, cand, st, denial):
    """:func:`pi_env.agents.greedy.next_player_gains` × :func:`~pi_env.agents.greedy.next_player_activity`
    of the candidate clues: ``log2(n₁ / m)``, ``m`` the cases of seat 1's public set (``n1`` cases,
    element counts ``cnt1``) answering as the held case, times the share of queries among its public
    actions."""
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    queries = np.int64(inv_count[b, q1])
    named = 1 if solved_case[b, q1] >= 0 else 0
    for x in range(NUM_ELEMENTS):
        if spot[b, q1, x] or trace[b, q1, x] or front[b, q1, x]:
            queries += 1
    if any_nonzero(failed_words[b, q1]):
        for c in range(NUM_CASES):
            if failed[b, q1, c]:
                named += 1
    activity = 1.0 if queries + named == 0 else queries / (queries + named)
    for x in range(NUM_ELEMENTS):
        if not cand[x]:
            continue
        t = 0 if x < 12 else (1 if x < 22 else 2)
        yh = held // 140 if t == 0 else (12 + (held // 14) % 10 if t == 1 else 22 + held % 14)
        code_h = clue_code(words, td, x, yh)
        t0 = 0 if x < 12 else (12 if x < 22 else 22)
        t1 = 12 if x < 12 else (22 if x < 22 else 36)
        trace_n = 0
        for y in range(t0, t1):
            if y != x and clue_code(words, td, x, y) == 1:
                trace_n += cnt1[y]
        same = cnt1[x] if code_h == 2 else (trace_n if code_h == 1 else n1 - trace_n - cnt1[x])
        denial[x] = np.log2(n1 / max(same, 1)) * activity


@kernel
def _best_query(cand, gains, denial, denial_weight, tolerance):
    """:func:`pi_env.agents.greedy.best_query`: the candidate of the highest ``gain + weight · denial``
    among those of gain above ``tolerance``, ties to the lowest id; ``-1`` if none."""
    top = -np.inf
    for a in range(_NUM_QUERIES):
        if cand[a] and gains[a] > tolerance:
            v = gains[a] + denial_weight * denial[a]
            if v > top:
                top = v
    if top > -np.inf:
        for a in range(_NUM_QUERIES):
            if cand[a] and gains[a] > tolerance and tied_with_best(gains[a] + denial_weight * denial[a], top):
                return a
    return -1


@kernel
def _q_after(pick, members, weight, n, td, words, adjacency, markers, elcode, best16):
    """:func:`pi_env.agents.greedy.q_after` of query ``pick``: the sum over its answers of the highest
    probability of a case giving it (numpy's sum of the 16 entries)."""
    best16[:] = 0.0
    if pick < INVESTIGATE_BASE:
        t = 0 if pick < 12 else (1 if pick < 22 else 2)
        for i in range(n):
            c = np.int64(members[i])
            y = c // 140 if t == 0 else (12 + (c // 14) % 10 if t == 1 else 22 + c % 14)
            k = clue_code(words, td, pick, y)
            best16[k] = max(best16[k], weight[i])
    else:
        district_codes(td, adjacency, markers, pick - INVESTIGATE_BASE, elcode)
        for i in range(n):
            c = np.uint64(members[i])  # unsigned: the divisions by constants without sign fix-ups
            q = c // np.uint64(14)
            s = q // np.uint64(10)
            k = elcode[s] + elcode[np.uint64(12) + q - np.uint64(10) * s] + elcode[np.uint64(22) + c - np.uint64(14) * q]
            best16[k] = max(best16[k], weight[i])
    return _sum16(best16)


@kernel
def _rotation_rest(P, first, mine, solved, attempted, idle, hazard, ed, live, open_others):
    """The seats :func:`pi_env.agents.greedy.next_turn_outcomes` enumerates: ``live[:n_live]``, those
    acting after the agent in this rotation that may solve (not solved, not idle, a positive
    hazard), and ``open_others[:n_open]``, the other seats still keeping the round going; returns
    ``(n_live, n_open, me_open)``."""
    n_live = 0
    for i in range(mine + 1, P):
        j = (first + i) % P
        if not solved[j] and not idle[j] and hazard[j] > 0:
            live[n_live] = j
            n_live += 1
    n_open = 0
    for j in range(1, P):
        if not finished_for_round_end(attempted[j], solved[j], ed):
            open_others[n_open] = j
            n_open += 1
    return n_live, n_open, 0 if finished_for_round_end(attempted[0], False, ed) else 1


@kernel
def _waiting_clue(legal_row, denial):
    """:func:`pi_env.agents.greedy.waiting_clue`: the legal clue of the highest denial, ties to the
    lowest id (``-1`` without a legal clue)."""
    top = -np.inf
    for x in range(NUM_ELEMENTS):
        if legal_row[x] and denial[x] > top:
            top = denial[x]
    for x in range(NUM_ELEMENTS):
        if legal_row[x] and tied_with_best(denial[x], top):
            return x
    return -1


@rule_step(inline=True)
def _case_posterior(b, p, P, h, held, td, words, st, prob_table, answer, inv_mask, inv_mask_own, members, cnt,
                    others, cnt2, joint, weight, hist):
    """Greedy's posterior of player ``p``'s case in game ``b`` (module docstring): the cases
    ``members[:n]`` (ascending) and their probabilities ``weight[:n]``; ``cnt`` the own set's element
    counts, ``inv_mask_own`` its investigation masks. Returns ``(n, uniform, best_i, p_best)``:
    ``uniform`` when the probabilities are the own set's uniform ones (2 players, or no joint deal),
    ``best_i`` the most likely case's index (ties to the lowest id), ``p_best`` its probability;
    ``n == 0`` (impossible with correct answers): no case."""
    n = seat_case_set(b, p, P, h, held, td, words, st, True, answer, inv_mask, members, cnt)
    inv_mask_own[:] = inv_mask
    if n == 0:
        return n, True, 0, 0.0
    kept, best_i = (-1, 0) if P == 2 else _joint_posterior(b, p, P, h, held, td, words, st, answer, inv_mask,
                                                           members, n, others, cnt2, joint, weight, hist)
    if kept < 0:
        p_best = prob_table[n]
        weight[:n] = p_best
        return n, True, 0, p_best
    return kept, False, best_i, weight[best_i]


@rule_step(inline=True)
def _seat_hazards(b, p, P, h, held, td, words, st, game, rounds, denial_weight, hazard_table, cand, legal,
                  previous, scratch):
    """The outlook of player ``p`` in game ``b`` (module docstring): the flags (into ``scratch``'s
    ``solved``, ``attempted``, ``before``, ``idle``), every later seat's public case count and
    hazard (``n_pub``, ``hazard``), seat 1's element counts ``cnt1``, the candidate queries
    ``cand`` (legal, investigators rationed). Returns ``(pending, deny, inv_allowed)``."""
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    round_, tier_, rotation_, first_player, score_, attempted_, solved_, inv_left = game
    prev_valid, prev_round, prev_rotation, prev_solved = previous
    answer, inv_mask, others, cnt1, cnt2, n_pub, hazard, solved, attempted, before, idle = scratch
    rnd, rotation = np.int64(round_[b]), np.int64(rotation_[b])
    first = (np.int64(first_player[b]) - p + P) % P
    mine = (P - first) % P  # the agent's place in this rotation's order
    pending = _outlook(b, p, P, rotation, rnd, first, mine, solved_, attempted_, st, prev_valid, prev_round,
                       prev_rotation, prev_solved, solved, attempted, before, idle)
    # the public case set (no held case) of every seat that may still solve in this rotation
    # after the agent: its size for the hazard (the only hazards the outlook uses); seat 1's
    # element counts for denial (when weighed)
    hazard[:] = 0.0
    deny = denial_weight != 0.0 and not solved[1] and not idle[1]
    for j in range(1, P):
        if (before[j] or solved[j] or idle[j]) and not (j == 1 and deny):
            continue
        q = (p + j) % P
        ex, tg, on = gather_state(b, q, P, spot, trace, front, inv_count, inv_district, inv_answer,
                                   inv_suppressed, solved_case, answer, inv_mask)
        n_pub[j] = case_set(td, words, answer, ex, inv_mask, tg, on, failed[b, q], any_nonzero(failed_words[b, q]),
                             False, others[0, 0:0], cnt1 if j == 1 else cnt2)
        if not solved[j] and not idle[j]:
            hazard[j] = hazard_table[n_pub[j]]
    # candidate queries: legal clues, investigators rationed
    placed, left = np.int64(inv_count[b, p]), np.int64(inv_left[b, p])
    share = -(-max(0, left + placed) // max(1, rounds - rnd))
    inv_allowed = max(0, min(left, share - placed))
    for a in range(_NUM_QUERIES):
        cand[a] = legal[b, a] and (a < INVESTIGATE_BASE or inv_allowed > 0)
    return pending, deny, inv_allowed


@rule_step(inline=True)
def _write_decision(row, p_best, e_now, e_wait, choice, pts, pen, inv_allowed, pending, hazard, live, n_live,
                    idle, P):
    """The decision block (:data:`pi_env.encodings.layouts.DECISION_BLOCK_LAYOUT`) of one row into
    ``row`` (``float32[67]``): the figures greedy decided on, ``choice`` its engine action."""
    for i in range(row.shape[0]):
        row[i] = 0.0
    row[0] = p_best
    row[1] = e_now * _POINT_SCALE
    row[2] = e_wait * _POINT_SCALE
    row[3] = 1.0 if choice >= SOLVE_BASE else 0.0
    row[4] = pts * _POINT_SCALE
    row[5] = pen * _POINT_SCALE
    row[6] = inv_allowed / MAX_INVESTIGATORS
    row[7] = 1.0 if pending else 0.0
    for k in range(n_live):
        j = live[k]
        row[8 + j - 1] = hazard[j]
    for j in range(1, P):
        row[12 + j - 1] = 1.0 if idle[j] else 0.0
    row[16 + min(choice, SOLVE_BASE)] = 1.0


@rule_step(inline=True)
def _joint_block_row(row, members, joint, n):
    """The joint block (:func:`pi_env.solvers.compact.encode_joint_block`) from the positive joint
    counts ``joint[:n]`` of the cases ``members[:n]`` (``n == 0``: no joint deal, all zeros)."""
    for i in range(row.shape[0]):
        row[i] = 0.0
    if n == 0:
        return
    _features_of_counts(members, n, joint, n, row)
    total, top = 0, 0
    for i in range(n):
        total += joint[i]
        top = max(top, joint[i])
    row[row.shape[0] - 1] = top / total


@batch_kernel
def _decide_kernel(run, players, words, adjacency, legal, previous, ed, denial_weight, tolerance, rounds, prob_table,
                   hazard_table, game, st, tile_district, case, out, feat, want, jblock):
    """Greedy's decision (module docstring) for player ``players[b]`` of every game ``b``, into
    ``out[b]``; with ``want`` also the figures it decided on, into ``feat[b]`` (:func:`_write_decision`):
    :func:`_decide_rows` on runs of ``run`` rows (``>= 1``), each run with its own work arrays (the
    threaded build runs the runs on all cores; every row is computed alone, so the two builds
    write the same values, whatever ``run``). The other arguments are :func:`_decide_rows`'."""
    B = players.shape[0]
    for chunk in prange((B + run - 1) // run):
        _decide_rows(chunk * run, min(B, chunk * run + run), players, words, adjacency, legal, previous, ed,
                     denial_weight, tolerance, rounds, prob_table, hazard_table, game, st, tile_district, case, out,
                     feat, want, jblock)


@kernel
def _decide_rows(lo, hi, players, words, adjacency, legal, previous, ed, denial_weight, tolerance, rounds, prob_table,
                 hazard_table, game, st, tile_district, case, out, feat, want, jblock):
    """Greedy's decision (module docstring) for player ``players[b]`` of games ``b = lo .. hi - 1``,
    into ``out[b]``; with ``want`` also the figures it decided on, into ``feat[b]`` (:func:`_write_decision`).

    Args:
        lo, hi: the rows decided (``0 <= lo <= hi <= B``).
        players: ``int64[B]``; words: :func:`~pi_env.solvers.own_info.adjacency_words`;
            adjacency: ``bool[14, 14]``.
        legal: ``bool[B, 50]`` legal clue / investigator actions.
        previous: ``(valid bool[B], round int64[B], rotation int64[B], solved bool[B, P])``: the
            agent's previous turn (relative seats), when it had one.
        ed: edition code; denial_weight, tolerance, rounds: greedy's constants.
        prob_table, hazard_table: :data:`_PROB`, :data:`_HAZARD`; a 3- to 5-player game's
            posterior is counted here (module docstring).
        game: the state's ``(round, tier, rotation, first_player, score, attempted, solved,
            inv_left)``; st: its per-player answers (:func:`greedy_actions`); tile_district, case:
            read as the module docstring says.
        out: ``int64[B]``; feat: ``float32[B, 67]`` (``want``) or any ``float32[0, k]``.
        jblock: ``float32[B, 38]``: with ``want`` at 3 to 5 players, the joint block of
            :func:`pi_env.solvers.compact.encode_joint_block` from the counts the posterior was
            made of (the same values: its kernel counts the same sets); else ``float32[0, 38]``.

    Without ``want`` a row whose posterior is certain (one case) is decided before the outlook is
    read (a solve, as greedy); with ``want`` its figures are computed too (the decision is the same).
    """
    P = case.shape[1]
    round_, tier_, rotation_, first_player, score_, attempted_, solved_, inv_left = game
    spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words, failed = st
    answer = np.empty(NUM_ELEMENTS, dtype=np.int8)
    inv_mask = np.empty(3, dtype=np.int64)
    inv_mask_own = np.empty(3, dtype=np.int64)
    members = np.empty(NUM_CASES, dtype=np.int16)
    others = np.empty((3, NUM_CASES), dtype=np.int16)  # the unknown seats' sets (3 to 5 players)
    cnt, cnt1, cnt2 = (np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty(NUM_ELEMENTS, dtype=np.int64),
                       np.empty(NUM_ELEMENTS, dtype=np.int64))
    weight = np.empty(NUM_CASES)  # the posterior of the agent's cases (members[:n])
    joint = np.empty(NUM_CASES, dtype=np.int64)
    hist = (np.empty(NUM_ELEMENTS, dtype=np.int64), np.empty((12, 10), dtype=np.int64),
            np.empty((12, 14), dtype=np.int64), np.empty((10, 14), dtype=np.int64), np.zeros(NUM_CASES, dtype=np.uint8),
            pair_scratch(), np.empty((2, 12, 10), dtype=np.int64))
    gains, denial = np.empty(_NUM_QUERIES), np.zeros(_NUM_QUERIES)
    cand = np.zeros(_NUM_QUERIES, dtype=np.bool_)
    markers = np.empty(NUM_ELEMENTS, dtype=np.bool_)
    elcode = np.empty(NUM_ELEMENTS, dtype=np.int64)
    dhist = np.empty(NUM_DISTRICTS * 16, dtype=np.int64)
    hyp = np.empty(3, dtype=np.int64)
    best16, mass = np.empty(16), np.empty(16)
    gain_scratch = _gain_scratch()
    n_pub, hazard = np.zeros(P, dtype=np.int64), np.zeros(P)
    solved, attempted = np.zeros(P, dtype=np.bool_), np.zeros(P, dtype=np.bool_)
    idle, before = np.zeros(P, dtype=np.bool_), np.zeros(P, dtype=np.bool_)
    live, open_others = np.zeros(P, dtype=np.int64), np.zeros(P, dtype=np.int64)
    seats = (answer, inv_mask, others, cnt1, cnt2, n_pub, hazard, solved, attempted, before, idle)
    for b in range(lo, hi):
        p = players[b]
        h = (p + 1) % P
        td = tile_district[b]
        held = held_case_of(case, b, h)
        n, uniform, best_i, p_best = _case_posterior(b, p, P, h, held, td, words, st, prob_table, answer, inv_mask,
                                                     inv_mask_own, members, cnt, others, cnt2, joint, weight, hist)
        first_clue = -1
        for x in range(NUM_ELEMENTS):
            if legal[b, x]:
                first_clue = x
                break
        if n == 0:  # cannot happen with correct answers (greedy: the first legal clue, else a solve)
            out[b] = first_clue if first_clue >= 0 else SOLVE_BASE
            if jblock.shape[0]:
                _joint_block_row(jblock[b], members, joint, 0)
            if want:
                idle[:] = False
                _write_decision(feat[b], 0.0, 0.0, 0.0, out[b], 0, 0, 0, False, hazard, live, 0, idle, P)
            continue
        if jblock.shape[0]:
            _joint_block_row(jblock[b], members, joint, 0 if uniform else n)
        solve = SOLVE_BASE + np.int64(members[best_i])
        if n == 1 and not want:
            out[b] = solve
            continue
        pending, deny, inv_allowed = _seat_hazards(b, p, P, h, held, td, words, st, game, rounds, denial_weight,
                                                   hazard_table, cand, legal, previous, seats)
        rnd, tier, score = np.int64(round_[b]), np.int64(tier_[b]), np.int64(score_[b, p])
        first = (np.int64(first_player[b]) - p + P) % P
        for a in range(_NUM_QUERIES):
            denial[a] = 0.0
        for x in range(NUM_ELEMENTS):
            markers[x] = spot[b, p, x] or trace[b, p, x]
        if uniform:  # gains from the counts (as pi_env.solvers.own_info.query_gains)
            clue_gains(td, words, cnt, n, gains[:NUM_ELEMENTS])
            if inv_allowed > 0:
                placed_mask = 0
                for k in range(inv_count[b, p]):
                    placed_mask |= 1 << np.int64(inv_district[b, p, k])
                hypothesis_masks(td, spot[b, p], trace[b, p], hyp)
                district_gains(td, words, cnt, members, n, (inv_mask_own[0] | inv_mask_own[1] | inv_mask_own[2]) == 0,
                                failed[b, p], any_nonzero(failed_words[b, p]), hyp, placed_mask, dhist,
                                gains[NUM_ELEMENTS:])
        else:
            _posterior_gains(td, words, adjacency, markers, cand, members, weight, joint, n, mass, gain_scratch,
                             gains)
        if deny and n_pub[1] > 1:
            _denial(b, h, held, n_pub[1], cnt1, td, words, cand, st, denial)
        n_live, n_open, me_open = _rotation_rest(P, first, (P - first) % P, solved, attempted, idle, hazard, ed, live,
                                                 open_others)
        pen = wrong_solve_loss(score, ed)
        pts = solve_gain(score, tier_points(tier, rnd, P, ed), ed)
        e_now = p_best * pts - (1.0 - p_best) * pen
        pick = _best_query(cand, gains, denial, denial_weight, tolerance)
        q = _q_after(pick, members, weight, n, td, words, adjacency, markers, elcode, best16) if pick >= 0 else p_best
        e_wait = _wait_value(q, live, n_live, open_others, n_open, me_open, hazard, tier, pending, rnd, P, score, ed)
        if n == 1:
            out[b] = solve
        elif pick >= 0:
            out[b] = solve if (e_now > 0.0 and e_now >= e_wait) else pick
        elif first_clue >= 0 and e_now < e_wait:
            out[b] = first_clue if denial_weight == 0.0 else _waiting_clue(legal[b], denial)
        else:
            out[b] = solve
        if want:
            _write_decision(feat[b], p_best, e_now, e_wait, out[b], pts, pen, inv_allowed, pending, hazard, live,
                            n_live, idle, P)


def greedy_actions(state: State, board, players: np.ndarray, edition: str = "second",
                   previous: "tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None" = None,
                   parallel: "bool | None" = False) -> np.ndarray:
    """Greedy's action for ``players[b]`` in every game ``b`` of ``state`` (module docstring).

    Args:
        state: a batch of ``B`` games of 2 to 5 players (the players are to move).
        board: the games' board (``config.board``).
        players: ``int64[B]``.
        edition: the edition greedy assumes (``"second"`` or ``"first"``).
        previous: the agent's previous turn per game, ``(valid bool[B], round int64[B],
            rotation int64[B], solved bool[B, P])`` in relative seats (``None``: no previous turn,
            as a fresh agent).
        parallel: ``False`` one thread (the default: what a training worker spends), ``True``
            numba threads over runs of rows, ``None`` threads from
            :data:`pi_env.core._config.PARALLEL_MIN_BATCH` ``["default"]`` rows on; the actions are
            the same either way (every row is decided alone).

    Returns:
        ``int64[B]``: the actions.

    Raises:
        PIError: a player count outside :data:`SUPPORTED_PLAYERS`; ``players`` not ``int[B]`` of
            seats ``0..P-1``; ``previous`` not of the shapes above; an unknown edition.
    """
    B, P = state.batch_size, state.num_players
    if P not in SUPPORTED_PLAYERS:
        raise PIError(f"greedy in batch plays {', '.join(map(str, SUPPORTED_PLAYERS))} players, "
                      f"not {P} (use the per-game agent, pi_env.rl.pool.AgentOpponent)")
    players = player_array(state, players)
    if previous is None:
        previous = (np.zeros(B, dtype=bool), np.zeros(B, dtype=np.int64), np.zeros(B, dtype=np.int64),
                    np.zeros((B, P), dtype=bool))
    else:
        _check_previous(previous, B, P)
    legal = np.ascontiguousarray(legal_action_mask(state)[:, :_NUM_QUERIES] != 0)
    out = np.empty(B, dtype=np.int64)
    _run_kernel(state, board, players, edition, previous, legal, out, np.zeros((0, DECISION_BLOCK_SIZE), np.float32),
                False, np.zeros((0, JOINT_BLOCK_SIZE), np.float32), parallel)
    return out


def _check_previous(previous, B: int, P: int) -> None:
    """PIError unless ``previous`` is ``(valid bool[B], round int[B], rotation int[B], solved
    bool[B, P])`` (the kernel reads every seat's solved flag: a narrower array would be read past
    its end)."""
    shapes = [(B,), (B,), (B,), (B, P)]
    kinds = [np.bool_, np.integer, np.integer, np.bool_]
    arrays = [np.asarray(a) for a in previous] if isinstance(previous, (tuple, list)) else []
    if len(arrays) != 4 or any(a.shape != s or not np.issubdtype(a.dtype, k)
                               for a, s, k in zip(arrays, shapes, kinds)):
        got = ", ".join(f"{a.dtype}[{', '.join(map(str, a.shape))}]" for a in arrays) or type(previous).__name__
        raise PIError(f"previous must be (valid bool[{B}], round int[{B}], rotation int[{B}], solved bool[{B}, {P}]), "
                      f"got ({got})")


def _run_kernel(state: State, board, players: np.ndarray, edition: str, previous: tuple, legal: np.ndarray,
                out: np.ndarray, feat: np.ndarray, want: bool, jblock: np.ndarray, parallel: "bool | None") -> None:
    """:func:`_decide_kernel` on ``state`` (the arguments as :func:`greedy_actions` and
    :func:`decision_block` prepare them; ``parallel`` picks its build as they say)."""
    P = state.num_players
    valid, prev_round, prev_rotation, prev_solved = previous
    if edition not in EDITION_NAMES:
        raise PIError(f"greedy in batch: unknown edition {edition!r} (known: {', '.join(EDITION_NAMES)})")
    ed = edition_code(edition)
    previous = (np.ascontiguousarray(valid, dtype=np.bool_), np.ascontiguousarray(prev_round, dtype=np.int64),
                np.ascontiguousarray(prev_rotation, dtype=np.int64), np.ascontiguousarray(prev_solved, dtype=np.bool_))
    game = (state.round, state.tier, state.rotation, state.first_player, state.score, state.attempted, state.solved,
            state.inv_left)
    st = (state.spot, state.trace, state.front, state.inv_count, state.inv_district, state.inv_answer,
          state.inv_suppressed, state.solved_case, failed_solve_words(state.failed), state.failed)
    B = state.batch_size
    build = _decide_kernel.for_batch(B, parallel)
    serial = build is _decide_kernel.serial
    # one thread: one run of every row (its work arrays allocated once); threads: runs of _CHUNK rows
    # handed out one at a time to whichever thread is free (not a fixed half each: on a machine busy
    # with other work one thread may get less of a core)
    with contextlib.nullcontext() if serial else numba.parallel_chunksize(1):
        build(max(1, B) if serial else _CHUNK, players, adjacency_words(board), board.adjacency, legal, previous, ed,
              float(denial_weight_for(P)), GAIN_TOLERANCE, ROUNDS, _PROB, _HAZARD, game, st, state.tile_district,
              state.case, out, feat, want, jblock)


def query_legal(state: State, players: np.ndarray) -> np.ndarray:
    """``bool[B, 50]``: the queries player ``players[b]`` may make in game ``b`` whether or not it is
    to move (docs/rules.md §4): clue ``x`` while its card is on the display, an investigator in
    district ``d`` while the player has tiles left and none in ``d`` this round. For the player to
    move of a game that is not over, the query part of :func:`pi_env.engine.legal_action_mask`.

    Raises:
        PIError: ``players`` not ``int[B]`` of seats ``0..P-1``."""
    players = player_array(state, players)
    B = state.batch_size
    rows = np.arange(B)
    out = np.zeros((B, _NUM_QUERIES), dtype=bool)
    out[:, :NUM_ELEMENTS] = state.card_place == ON_DISPLAY
    has = np.zeros((B, NUM_DISTRICTS), dtype=bool)
    count = state.inv_count[rows, players]
    for k in range(state.inv_district.shape[2]):
        r = np.flatnonzero(count > k)
        has[r, state.inv_district[r, players[r], k]] = True
    out[:, NUM_ELEMENTS:] = ~has & (state.inv_left[rows, players] > 0)[:, None]
    return out


def decision_block(state: State, board, players: np.ndarray, edition: str = "second",
                   out: "np.ndarray | None" = None, joint: "np.ndarray | None" = None,
                   parallel: "bool | None" = False) -> np.ndarray:
    """The figures greedy decides on (:data:`pi_env.encodings.layouts.DECISION_BLOCK_LAYOUT`, the
    ``"compact-v4"`` encoding's last block) for ``players[b]`` in every game ``b``: the same kernel
    as :func:`greedy_actions` with ``previous=None`` (no agent memory: ``pending`` only from what
    rotation 0 shows), the queries :func:`query_legal` (the player need not be the one to move).
    Reads only what the player may know (module docstring, docs/rules.md §9).

    Args:
        state: a batch of ``B`` games of 2 to 5 players.
        board: their board.
        players: ``int64[B]``.
        edition: the games' edition.
        out: optional ``float32[B, 67]`` buffer (contiguous rows; a column slice of a wider buffer
            works); every entry is overwritten.
        joint: optional ``float32[B, 38]`` buffer (3 to 5 players) that receives the joint block of
            :func:`pi_env.solvers.compact.encode_joint_block`, the same values, from the counts the
            kernel makes anyway (``"compact-v4"`` thus counts the joint posterior once).
        parallel: the kernel's build, as :func:`greedy_actions` takes it (default one thread); the
            same values either way.

    Returns:
        ``float32[B, 67]`` (``out`` if given).

    Raises:
        PIError: a player count outside :data:`DECISION_BLOCK_PLAYERS` (one line naming the encoding),
            ``players`` not ``int[B]`` of seats ``0..P-1``, a wrong buffer, an unknown edition.
    """
    B, P = state.batch_size, state.num_players
    if P not in DECISION_BLOCK_PLAYERS:
        raise PIError(f"the compact-v4 encoding (greedy's decision block) is computed for "
                      f"{', '.join(map(str, DECISION_BLOCK_PLAYERS))} players, not {P}")
    if out is None:
        out = np.empty((B, DECISION_BLOCK_SIZE), dtype=np.float32)
    elif not float32_rows_ok(out, B, DECISION_BLOCK_SIZE):
        raise PIError(f"out must be float32[{B}, {DECISION_BLOCK_SIZE}] with contiguous rows, writable, got "
                      f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    players = player_array(state, players)
    previous = (np.zeros(B, dtype=bool), np.zeros(B, dtype=np.int64), np.zeros(B, dtype=np.int64),
                np.zeros((B, P), dtype=bool))
    choice = np.empty(B, dtype=np.int64)
    if joint is None:
        joint = np.zeros((0, JOINT_BLOCK_SIZE), dtype=np.float32)
    elif P == 2 or not float32_rows_ok(joint, B, JOINT_BLOCK_SIZE):
        raise PIError(f"joint must be float32[{B}, {JOINT_BLOCK_SIZE}] with contiguous rows, writable, at 3 to 5 "
                      f"players, got "
                      f"{getattr(joint, 'dtype', type(joint).__name__)}{list(getattr(joint, 'shape', ()))} "
                      f"at {P} players")
    _run_kernel(state, board, players, edition, previous, query_legal(state, players), choice, out, True, joint,
                parallel)
    return out


class GreedyOpponent:
    """``greedy`` as a batch opponent (module docstring): the actions of
    :class:`~pi_env.agents.greedy.GreedyAgent` (``edition`` of the games), one agent memory per game
    slot, started by :meth:`new_games`.

    Args:
        config: the games' rules.

    Raises:
        PIError: a player count outside :data:`SUPPORTED_PLAYERS`.
    """

    name = "greedy"

    def __init__(self, config: GameConfig):
        if config.num_players not in SUPPORTED_PLAYERS:
            raise PIError(f"greedy in batch plays {', '.join(map(str, SUPPORTED_PLAYERS))} players, not "
                          f"{config.num_players} (use the per-game agent, pi_env.rl.pool.AgentOpponent)")
        self.config = config
        P = config.num_players
        self._started = np.zeros(0, dtype=bool)
        self._valid = np.zeros(0, dtype=bool)
        self._round = np.zeros(0, dtype=np.int64)
        self._rotation = np.zeros(0, dtype=np.int64)
        self._solved = np.zeros((0, P), dtype=bool)

    def _grow(self, size: int) -> None:
        extra = size - self._started.size
        if extra > 0:
            P = self.config.num_players
            self._started = np.concatenate([self._started, np.zeros(extra, dtype=bool)])
            self._valid = np.concatenate([self._valid, np.zeros(extra, dtype=bool)])
            self._round = np.concatenate([self._round, np.zeros(extra, dtype=np.int64)])
            self._rotation = np.concatenate([self._rotation, np.zeros(extra, dtype=np.int64)])
            self._solved = np.concatenate([self._solved, np.zeros((extra, P), dtype=bool)])

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        """Start game slots ``games`` afresh (as ``Agent.reset``: no previous turn); greedy draws
        nothing, so ``seeds`` are not used."""
        games = np.asarray(games, dtype=np.int64)
        if games.size:
            self._grow(int(games.max()) + 1)
            self._started[games] = True
            self._valid[games] = False

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``int64[len(games)]``: the action of ``players[k]`` in game ``games[k]`` of ``state``.

        Raises:
            PIError: a game slot never started by :meth:`new_games`; a state of another player
                count than the opponent's config.
        """
        if state.num_players != self.config.num_players:
            raise PIError(f"greedy opponent for {self.config.num_players} players: the state has "
                          f"{state.num_players} players")
        games = np.asarray(games, dtype=np.int64)
        players = np.asarray(players, dtype=np.int64)
        self._grow(int(games.max(initial=-1)) + 1)
        unstarted = games[~self._started[games]]
        if unstarted.size:
            raise PIError(f"greedy opponent: game slot {int(unstarted[0])} was never started "
                          f"(call new_games before act_batch)")
        sub = state.take(games)
        out = greedy_actions(sub, self.config.board, players, self.config.edition,
                             (self._valid[games], self._round[games], self._rotation[games], self._solved[games]))
        P = self.config.num_players
        rel = (players[:, None] + np.arange(P)[None, :]) % P
        self._valid[games] = True
        self._round[games] = sub.round
        self._rotation[games] = sub.rotation
        self._solved[games] = np.take_along_axis(sub.solved, rel, axis=1)
        return out
