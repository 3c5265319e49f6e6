"""The fused play kernel and its policy kernels (private to :mod:`pi_env.engine`; the public
calls are :func:`pi_env.engine.play` and :func:`pi_env.engine.rollout`).

A policy picks the action of the player to move in game ``b`` from the state, drawing its chance
from its own per-game xorshift64 stream ``prng[b]`` (never from the game's ``rng``, so the game's
chance is unchanged by the policy). Two policies, documented in :mod:`pi_env.engine.play`:

* ``POLICY_RANDOM``: uniform over the legal actions (as :func:`pi_env.engine.sample_actions`);
* ``POLICY_RULES``: rules of thumb over the player's own information (docs/rules.md §9): per-type
  candidate elimination from its answers, an informative clue card, an investigator when it splits
  the candidates clearly better, a solve when one case is left (or a guess when nothing informs);
* ``POLICY_SCRIPTED``: a model of players, not a player: each player names the case its script gives
  on the own turns its script gives, and otherwise passes time with a clue card (an investigator
  when no card is on the display; the rules of thumb when neither is legal).
"""

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, kernel, rule_step
from pi_env.core.constants import INVESTIGATE_BASE, NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE
from pi_env.engine._kernels import CHUNK, _new_games, _next_u64, _sample_legal, _step_games

POLICY_RANDOM = 0
POLICY_RULES = 1
POLICY_SCRIPTED = 2
GUESS_LIMIT = 64
"""The rules-of-thumb policy enumerates the candidate cases (excluding failed triples) only when the
per-type product is at most this many; above, it never guesses while it can ask."""

_TYPE_START = np.array([0, 12, 22], dtype=np.int64)
_TYPE_SIZE = np.array([12, 10, 14], dtype=np.int64)


@rule_step
def _uniform(prng, b):
    """A uniform variate in [0, 1) from the policy stream of game b (53 bits)."""
    return np.float64(_next_u64(prng, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@rule_step
def _random_index(prng, b, n):
    k = np.int64(_uniform(prng, b) * n)
    return n - 1 if k >= n else k


@kernel
def _random_display_card(b, prng, card_place):
    """A clue card on the display of game b drawn uniformly from the policy stream, or -1 when the
    display is empty (no draw then)."""
    n_display = 0
    for x in range(NUM_ELEMENTS):
        if card_place[b, x] == ON_DISPLAY:
            n_display += 1
    if n_display == 0:
        return -1
    r = _random_index(prng, b, n_display)
    for x in range(NUM_ELEMENTS):
        if card_place[b, x] == ON_DISPLAY:
            if r == 0:
                return x
            r -= 1
    return -1


@kernel
def _type_candidates(b, p, t, adjacency, tile_district, spot, trace, front, inv_count, inv_district,
                     inv_answer, inv_suppressed, cand):
    """``cand[0..n_t-1]``: which type-``t`` elements can still be player ``p``'s (docs/rules.md §4.1,
    §4.2), from its own answers this round, type by type (a sound superset). Returns the count."""
    start = _TYPE_START[t]
    n = _TYPE_SIZE[t]
    td = tile_district[b]
    count = 0
    for i in range(n):
        y = start + i
        dy = td[y]
        ok = True
        for j in range(n):  # clue answers on this type's elements (§4.1)
            x = start + j
            if spot[b, p, x]:
                if x != y:
                    ok = False
                    break
            elif trace[b, p, x]:
                if x == y or not adjacency[td[x], dy]:
                    ok = False
                    break
            elif front[b, p, x]:
                if x == y or adjacency[td[x], dy]:
                    ok = False
                    break
        if ok:
            for k in range(inv_count[b, p]):  # investigators (§4.2), type by type
                if inv_suppressed[b, p, k, t]:
                    continue
                d = inv_district[b, p, k]
                ns = inv_answer[b, p, k, 0]
                nt = inv_answer[b, p, k, 1]
                u = 0
                for tt in range(3):
                    if not inv_suppressed[b, p, k, tt]:
                        u += 1
                here = dy == d
                near = (not here) and adjacency[dy, d]
                if (ns == 0 and here) or (ns == 0 and nt == 0 and near) or (ns == u and not here) \
                        or (nt == u and not near) or (ns + nt == u and not here and not near):
                    ok = False
                    break
        cand[i] = ok
        if ok:
            count += 1
    return count


@kernel
def _worst_class(b, t, cand, adjacency, tile_district, x):
    """The largest class of type-``t`` candidates that give one answer to the clue on ``x``."""
    start = _TYPE_START[t]
    td = tile_district[b]
    s = 0
    tr = 0
    no = 0
    for i in range(_TYPE_SIZE[t]):
        if cand[i]:
            y = start + i
            if y == x:
                s += 1
            elif adjacency[td[x], td[y]]:
                tr += 1
            else:
                no += 1
    return max(s, max(tr, no))


@kernel
def _rules_action(b, prng, duel, adjacency, s, cand):
    """The rules-of-thumb action of the player to move in game b (see :mod:`pi_env.engine.play`).

    ``s``: the state (:data:`~pi_env.engine.state.GameArrays`); ``cand`` is a ``bool[3, 14]``
    scratch array."""
    current_player, tile_district, district_tile, card_place = (s.current_player, s.tile_district, s.district_tile,
                                                                s.card_place)
    spot, trace, front, inv_count, inv_district = s.spot, s.trace, s.front, s.inv_count, s.inv_district
    inv_answer, inv_suppressed, inv_left, failed = s.inv_answer, s.inv_suppressed, s.inv_left, s.failed
    p = current_player[b]
    n0 = _type_candidates(b, p, 0, adjacency, tile_district, spot, trace, front, inv_count,
                          inv_district, inv_answer, inv_suppressed, cand[0])
    n1 = _type_candidates(b, p, 1, adjacency, tile_district, spot, trace, front, inv_count,
                          inv_district, inv_answer, inv_suppressed, cand[1])
    n2 = _type_candidates(b, p, 2, adjacency, tile_district, spot, trace, front, inv_count,
                          inv_district, inv_answer, inv_suppressed, cand[2])
    total = np.int64(n0) * n1 * n2
    # the candidate cases left after the failed triples, when few enough to count
    left = -1
    if total == 0:
        left = 0
    elif total <= GUESS_LIMIT:
        left = 0
        for i in range(12):
            if cand[0, i]:
                for j in range(10):
                    if cand[1, j]:
                        for k in range(14):
                            if cand[2, k] and not failed[b, p, i * 140 + j * 14 + k]:
                                left += 1
        if left == 1:
            return SOLVE_BASE + _pick_case(b, p, 0, cand, failed)
    # the most informative clue card on the display (largest worst-case elimination)
    best_clue = -1
    best_clue_gain = 0
    ties = 0
    for x in range(NUM_ELEMENTS):
        if card_place[b, x] != ON_DISPLAY:
            continue
        t = 0 if x < 12 else (1 if x < 22 else 2)
        nt_ = n0 if t == 0 else (n1 if t == 1 else n2)
        if nt_ <= 1:
            continue
        gain = nt_ - _worst_class(b, t, cand[t], adjacency, tile_district, x)
        if gain > best_clue_gain:
            best_clue_gain = gain
            best_clue = x
            ties = 1
        elif gain == best_clue_gain and gain > 0:
            ties += 1
            if _random_index(prng, b, ties) == 0:
                best_clue = x
    # the most informative unused district for an investigator (summed over unsuppressed types)
    best_d = -1
    best_inv_gain = 0
    if inv_left[b, p] > 0:
        td = tile_district[b]
        for d in range(14):
            used = False
            for k in range(inv_count[b, p]):
                if inv_district[b, p, k] == d:
                    used = True
            if used:
                continue
            gain = 0
            for t in range(3):
                e = district_tile[b, d, t]
                if e >= 0 and (spot[b, p, e] or trace[b, p, e]):
                    continue  # suppressed: this type adds nothing (§4.2)
                here = 0
                near = 0
                far = 0
                for i in range(_TYPE_SIZE[t]):
                    if cand[t, i]:
                        dy = td[_TYPE_START[t] + i]
                        if dy == d:
                            here += 1
                        elif adjacency[dy, d]:
                            near += 1
                        else:
                            far += 1
                gain += here + near + far - max(here, max(near, far))
            if gain > best_inv_gain:
                best_inv_gain = gain
                best_d = d
    if best_d >= 0 and best_inv_gain >= best_clue_gain + 3:
        return INVESTIGATE_BASE + best_d
    if best_clue >= 0:
        return best_clue
    if best_d >= 0:
        return INVESTIGATE_BASE + best_d
    if left > 0:
        # nothing informative: guess one of the cases left (a duel round is lost by a wrong guess,
        # so there only with at most 2 cases left, §7)
        if not duel or left <= 2:
            return SOLVE_BASE + _pick_case(b, p, _random_index(prng, b, left), cand, failed)
    # nothing to learn and too many cases to guess: pass time with a clue card on the display
    x = _random_display_card(b, prng, card_place)
    if x >= 0:
        return x
    if left > 0:
        return SOLVE_BASE + _pick_case(b, p, _random_index(prng, b, left), cand, failed)
    if total > 0:  # name a random candidate of each type
        pick = np.zeros(3, dtype=np.int64)
        for t in range(3):
            n = n0 if t == 0 else (n1 if t == 1 else n2)
            r = _random_index(prng, b, n)
            for i in range(_TYPE_SIZE[t]):
                if cand[t, i]:
                    if r == 0:
                        pick[t] = i
                        break
                    r -= 1
        return SOLVE_BASE + pick[0] * 140 + pick[1] * 14 + pick[2]
    return SOLVE_BASE + _random_index(prng, b, 1680)  # no consistent case (cannot happen)


@kernel
def _pick_case(b, p, r, cand, failed):
    """The ``r``-th (0-based) candidate case not yet failed, in case-id order."""
    for i in range(12):
        if cand[0, i]:
            for j in range(10):
                if cand[1, j]:
                    for k in range(14):
                        c = i * 140 + j * 14 + k
                        if cand[2, k] and not failed[b, p, c]:
                            if r == 0:
                                return c
                            r -= 1
    return 0


@kernel
def _scripted_action(b, prng, current_player, card_place, inv_count, inv_district, inv_left, failed, script_turn,
                     script_case, script_taken):
    """The scripted action of the player to move in game b (see :mod:`pi_env.engine.play`), or -1
    when it would pass time and neither a clue card nor an investigator is legal. Counts the turn
    in ``script_taken[b, p]``; a slot with ``turn < 1`` never names its case."""
    p = current_player[b]
    k = script_taken[b, p] + 1
    script_taken[b, p] = k
    for s in range(script_turn.shape[2]):
        if script_turn[b, p, s] >= 1 and script_turn[b, p, s] == k:
            c = script_case[b, p, s]
            if not failed[b, p, c]:
                return SOLVE_BASE + c
    x = _random_display_card(b, prng, card_place)
    if x >= 0:
        return x
    n_free = 14 - np.int64(inv_count[b, p])  # an investigator's districts are distinct (docs/rules.md §4.2)
    if inv_left[b, p] > 0 and n_free > 0:
        r = _random_index(prng, b, n_free)
        for d in range(14):
            used = False
            for j in range(inv_count[b, p]):
                if inv_district[b, p, j] == d:
                    used = True
            if not used:
                if r == 0:
                    return INVESTIGATE_BASE + d
                r -= 1
    return -1


@batch_kernel(family="fused")
def play_kernel(num_steps, autoreset, policy, prng, steps_out, games_out, actions_out, script_turn, script_case,
                script_taken, r, s):
    """Play up to ``num_steps`` turns of every game with ``policy`` in one call (docs/rules.md §3–§7).

    Range by range (``CHUNK`` games, whose states stay in cache), turn by turn: a new game in every
    finished slot with ``autoreset`` (without, a finished game is not played on); the policy's
    action for every live game (always legal); one step of ``_step_games``, the step kernel's
    rules. ``steps_out[b]`` counts the turns played, ``games_out[b]`` the games that ended;
    ``actions_out[b, t]`` receives the action of turn ``t`` while ``t < actions_out.shape[1]``
    (turns counted per slot, across autoresets). ``script_turn``, ``script_case`` (``int32[B, P, K]``)
    and ``script_taken`` (``int32[B, P]``, updated) are ``POLICY_SCRIPTED``'s script (empty for the
    other policies). ``r``: the rules (:class:`~pi_env.engine.state.KernelRules`); ``s``: the state
    (:data:`~pi_env.engine.state.GameArrays`).
    """
    current_player, done, card_place, inv_count, inv_district, inv_left, failed = (
        s.current_player, s.done, s.card_place, s.inv_count, s.inv_district, s.inv_left, s.failed)
    adjacency = r.adjacency
    duel = (r.rules >> 2) & 1
    n = s.rng.shape[0]
    record = actions_out.shape[1]
    acts = np.zeros(n, dtype=np.int64)
    rejected = np.zeros(n, dtype=np.bool_)
    reset = np.zeros(n, dtype=np.bool_)
    for c in prange((n + CHUNK - 1) // CHUNK):
        lo = c * CHUNK
        hi = min(n, lo + CHUNK)
        cand = np.empty((3, 14), dtype=np.bool_)
        for t in range(num_steps):
            any_reset = False
            live = False
            for b in range(lo, hi):
                reset[b] = autoreset and done[b]
                any_reset = any_reset or reset[b]
            if any_reset:
                _new_games(lo, hi, reset, r, s)
            for b in range(lo, hi):
                if done[b]:
                    acts[b] = -1
                    continue
                live = True
                if policy == POLICY_RANDOM:
                    a = _sample_legal(b, _uniform(prng, b), current_player, done, card_place, inv_count,
                                      inv_district, inv_left)
                else:
                    a = -1
                    if policy == POLICY_SCRIPTED:
                        a = _scripted_action(b, prng, current_player, card_place, inv_count, inv_district,
                                             inv_left, failed, script_turn, script_case, script_taken)
                    if a < 0:  # the rules policy, or a scripted pass with nothing else legal
                        a = _rules_action(b, prng, duel, adjacency, s, cand)
                acts[b] = a
                k = steps_out[b]
                if k < record:
                    actions_out[b, k] = a
                steps_out[b] = k + 1
            if not live:
                break
            _step_games(lo, hi, acts, rejected, r, s)
            for b in range(lo, hi):
                if acts[b] >= 0 and done[b]:
                    games_out[b] += 1
