"""Numba kernels of the engine (private: only :mod:`pi_env.engine` imports this module). They never
raise and fill arrays in place; they trust the state's invariants and array shapes (checked by the
public functions), but not the actions: any ``int64`` action is safe (see ``step_kernel``).

The state reaches a kernel as one value, ``s`` (:data:`pi_env.engine.state.GameArrays`, a named tuple of
the state's arrays: ``s.score[b, i]``), and the rules options as ``r``
(:class:`pi_env.engine.state.KernelRules`). With ``NUMBA_DISABLE_JIT=1`` the same
code runs as plain Python over numpy arrays (the reference path of the parity tests).

The rules options reach ``step_kernel`` as ``GameConfig.rules_code`` (edition, nick of time, duel
and the duel's ``max_rounds`` in one int) and ``num_rounds``; the rules of the duel (docs/rules.md §7)
and of nick of time (§6) are spelled out in :mod:`pi_env.engine.reference`.

Chance (docs/rules.md §3, §4.1) comes from the per-game xorshift64 state ``rng[b]``; the draw order is
part of the engine's contract (same seed, same game):

* new game: first player = ``below(P)``, then round setup;
* round setup: shuffle the 14 suspect tiles (suspects 0..11, then 2 blanks) and place tile ``k``
  of the shuffled list in district ``k``; the same for the 14 evidence tiles (0..9 + 4 blanks);
  shuffle suspects 0..11 and deal ``case[i, 0] = perm[i]``; the same for evidence 0..9 and
  locations 0..13; shuffle the clue cards 0..35 into the deck; draw 9 cards from the top;
* reshuffle: the discard pile in ascending element order, shuffled, becomes the deck.

A shuffle is Fisher–Yates from the end: ``for i = n-1 .. 1: swap(a[i], a[below(i + 1)])``, and
``below(n) = xorshift64() % n``.

The answers and the points come from :mod:`pi_env.core.rules`, the one home of those rules
(``clue_answer`` §4.1, ``investigate_answer`` §4.2, ``is_case`` §4.3, ``tier_points`` and
``score_after`` §5, the tier's advance ``tier_after_rotation`` and the round-end rules of §5 and
§6), which the records, the
solver and the agents call too. The per-game helpers here — the deal (``_deal_layout``,
``_deal_cases``, ``_deal_clue_cards``), an investigation with its suppression flags
(``_investigate_answer``) and the card flow (``_play_clue_card``) — are shared with the Solo Time
Attack kernels of :mod:`pi_env.engine.solo`, so both modes answer by the same code.
"""

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, rule_step
from pi_env.core.constants import (IN_DECK, IN_DISCARD, IN_FRONT, INVESTIGATE_BASE, NOTHING, NUM_CASES,
                                   NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE, SPOT)
from pi_env.core.rules import (WRONG_SOLVE_PENALTY, clue_answer, clue_card_takeable, duel_investigators_after_round,
                               finished_for_round_end, investigate_answer, investigator_placeable,
                               investigator_suppressed, is_case, nick_of_time_ends_round, round_ends_after_rotation,
                               score_after, tier_after_rotation, tier_points)


@rule_step
def _next_u64(rng, b):
    x = rng[b]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[b] = x
    return x


@rule_step
def _below(rng, b, n):
    return np.int64(_next_u64(rng, b) % np.uint64(n))


@rule_step
def _shuffle(rng, b, a, n):
    x = rng[b]  # the generator's state stays in a register: the draws of _below, written out
    for i in range(n - 1, 0, -1):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        j = np.int64(x % np.uint64(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t
    rng[b] = x


@rule_step
def _draw_card(b, card_place, deck, deck_size, rng):
    """Refill one display slot from the deck; reshuffle the discard pile if the deck is empty."""
    if deck_size[b] == 0:
        n = 0
        for x in range(NUM_ELEMENTS):
            if card_place[b, x] == IN_DISCARD:
                deck[b, n] = x
                n += 1
        if n == 0:
            return  # deck and discard both empty: the display stays short
        _shuffle(rng, b, deck[b], n)
        for k in range(n):
            card_place[b, deck[b, k]] = IN_DECK
        deck_size[b] = n
    deck_size[b] -= 1
    card_place[b, deck[b, deck_size[b]]] = ON_DISPLAY


@rule_step
def _deal_layout(rng, b, tile_district, district_tile, tiles):
    """docs/rules.md §3 step 1 for game b: shuffle the 14 suspect tiles (suspects 0..11, then 2 blanks)
    and place tile ``k`` of the shuffled list in district ``k``; the same for the 14 evidence tiles
    (0..9 + 4 blanks); locations are printed (``22 + d`` in district ``d``).
    ``district_tile[b, d, t]`` is the element of type ``t`` in district ``d`` (``-1`` blank).
    ``tiles``: scratch space of at least 14 integers (the callers pass the game's deck row, which
    is dealt afterwards: no allocation, so this compiles as a rule step)."""
    # suspect tiles: 12 suspects + 2 blanks
    for k in range(14):
        tiles[k] = k if k < 12 else -1
    _shuffle(rng, b, tiles, 14)
    for d in range(14):
        district_tile[b, d, 0] = tiles[d]
        if tiles[d] >= 0:
            tile_district[b, tiles[d]] = d
    # evidence tiles: 10 evidence + 4 blanks
    for k in range(14):
        tiles[k] = 12 + k if k < 10 else -1
    _shuffle(rng, b, tiles, 14)
    for d in range(14):
        district_tile[b, d, 1] = tiles[d]
        if tiles[d] >= 0:
            tile_district[b, tiles[d]] = d
    for d in range(14):
        district_tile[b, d, 2] = 22 + d
        tile_district[b, 22 + d] = d


@rule_step
def _deal_cases(rng, b, cases, num_players, tiles):
    """docs/rules.md §3 step 2 for game b: per type, shuffle the type-local ids and deal
    ``cases[i, t] = perm[i]`` to players ``0..num_players-1`` (pairwise disjoint).
    ``cases`` is game b's ``[P, 3]`` block (a solo game passes a ``[1, 3]`` view); ``tiles``:
    scratch space of at least 14 integers, as for ``_deal_layout``."""
    for t in range(3):
        n = 12 if t == 0 else (10 if t == 1 else 14)
        for k in range(n):
            tiles[k] = k
        _shuffle(rng, b, tiles, n)
        for i in range(num_players):
            cases[i, t] = tiles[i]


@rule_step
def _deal_clue_cards(rng, b, card_place, deck, deck_size):
    """docs/rules.md §3 step 3 for game b: shuffle the 36 clue cards into the deck, turn 9 face up."""
    for x in range(NUM_ELEMENTS):
        deck[b, x] = x
        card_place[b, x] = IN_DECK
    _shuffle(rng, b, deck[b], NUM_ELEMENTS)
    deck_size[b] = NUM_ELEMENTS
    for k in range(9):
        _draw_card(b, card_place, deck, deck_size, rng)


@rule_step
def _play_clue_card(b, x, ans, card_place, deck, deck_size, rng):
    """docs/rules.md §4.1 card flow: a card answered nothing goes face up in front of the player (out
    of circulation for the round), otherwise to the discard pile; then refill the display."""
    card_place[b, x] = IN_FRONT if ans == NOTHING else IN_DISCARD
    _draw_card(b, card_place, deck, deck_size, rng)


@rule_step
def _investigate_answer(td, dtile, adjacency, case_row, spot_row, trace_row, d, sup_out):
    """docs/rules.md §4.2: ``(spots, traces)`` an investigator in district ``d`` receives
    (:func:`pi_env.core.rules.investigate_answer`), with the suppression flags of the three types
    (:func:`pi_env.core.rules.investigator_suppressed`) written to ``sup_out[3]``.

    ``td``: the game's ``tile_district[36]``; ``dtile``: its ``district_tile[14, 3]``;
    ``case_row``: the investigating player's case (type-local ``[3]``); ``spot_row`` /
    ``trace_row``: ``bool[36]``, that player's markers.
    """
    for t in range(3):
        sup_out[t] = investigator_suppressed(dtile, spot_row, trace_row, d, t)
    return investigate_answer(td, adjacency, case_row, d, sup_out)


@rule_step
def _setup_round(b, num_players, s):
    """docs/rules.md §3: new layout, deal, deck and display; clear every per-round field of game b
    (the per-player arrays have ``num_players`` rows: whole rows of game b are cleared).
    ``s``: the state (:data:`~pi_env.engine.state.GameArrays`)."""
    rng, tile_district, district_tile, case = s.rng, s.tile_district, s.district_tile, s.case
    card_place, deck, deck_size, front, spot, trace = s.card_place, s.deck, s.deck_size, s.front, s.spot, s.trace
    inv_count, inv_district, inv_answer, inv_markers = s.inv_count, s.inv_district, s.inv_answer, s.inv_markers
    inv_suppressed, attempted, solved, solved_case, failed = (s.inv_suppressed, s.attempted, s.solved,
                                                              s.solved_case, s.failed)
    rotation, tier, solved_this_rotation, extra_turn = s.rotation, s.tier, s.solved_this_rotation, s.extra_turn
    current_player, first_player = s.current_player, s.first_player
    _deal_layout(rng, b, tile_district, district_tile, deck[b])
    _deal_cases(rng, b, case[b], num_players, deck[b])
    _deal_clue_cards(rng, b, card_place, deck, deck_size)
    # per-round bookkeeping (whole rows of game b: contiguous fills)
    front[b] = False
    spot[b] = False
    trace[b] = False
    inv_district[b] = -1
    inv_answer[b] = 0
    inv_markers[b] = 0
    inv_suppressed[b] = False
    failed[b] = False
    for i in range(num_players):
        inv_count[b, i] = 0
        attempted[b, i] = False
        solved[b, i] = False
        solved_case[b, i] = -1
    rotation[b] = 0
    tier[b] = 0
    solved_this_rotation[b] = False
    extra_turn[b] = False
    current_player[b] = first_player[b]


CHUNK = 64
"""Games per call of the per-range rule functions (``_new_games``, ``_step_games``): a threaded
kernel hands ranges of this many games to its threads, and the fused play loop keeps one range's
states in cache while it plays them (a tuning constant)."""


@rule_step
def _new_games(lo, hi, which, r, s):
    """docs/rules.md §3: a new game in every slot b of ``lo <= b < hi`` with ``which[b]`` from ``rng[b]``
    (first player, investigator tiles, scores, then the first round's setup). ``r``: the rules
    (:class:`~pi_env.engine.state.KernelRules`), ``s``: the state."""
    num_players, investigators = r.num_players, r.investigators
    rng, round_, first_player, done, truncated, turn = s.rng, s.round, s.first_player, s.done, s.truncated, s.turn
    inv_left, score, solve_points, penalty, rewards = s.inv_left, s.score, s.solve_points, s.penalty, s.rewards
    last_action, last_answer, last_player, round_winner = s.last_action, s.last_answer, s.last_player, s.round_winner
    for b in range(lo, hi):
        if not which[b]:
            continue
        round_[b] = 0
        done[b] = False
        truncated[b] = False
        turn[b] = 0
        first_player[b] = _below(rng, b, num_players)
        for i in range(num_players):
            inv_left[b, i] = investigators[i]
            score[b, i] = 0
            solve_points[b, i] = 0
            penalty[b, i] = 0
            rewards[b, i] = 0
        last_action[b] = -1
        last_answer[b, 0] = -1
        last_answer[b, 1] = -1
        last_player[b] = -1
        round_winner[b] = -2
        _setup_round(b, num_players, s)


@batch_kernel(family="init")
def init_kernel(which, r, s):
    """Set up a new game in every slot b with ``which[b]`` (docs/rules.md §3; ``r``: the rules,
    :class:`~pi_env.engine.state.KernelRules`; ``s``: the state, :data:`~pi_env.engine.state.GameArrays`),
    range by range."""
    n = which.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _new_games(c * CHUNK, min(n, (c + 1) * CHUNK), which, r, s)


@rule_step(inline=True)
def _is_legal(b, p, a, card_place, inv_count, inv_district, inv_left):
    """docs/rules.md §4: whether action ``a`` (any ``int64``) is legal for player ``p`` in game b: a
    clue card on the display (§4.1), an investigator while the player has one left and none of its
    own in the district this round (§4.2), any of the 1680 solves (§4.3)."""
    if a < INVESTIGATE_BASE:
        return a >= 0 and clue_card_takeable(card_place[b, a])
    if a < SOLVE_BASE:
        d = a - INVESTIGATE_BASE
        there = False
        for k in range(inv_count[b, p]):
            if inv_district[b, p, k] == d:
                there = True
        return investigator_placeable(inv_left[b, p], there)
    return a < SOLVE_BASE + NUM_CASES


@batch_kernel(cheap=True)
def legal_kernel(actions, out, current_player, done, card_place, inv_count, inv_district, inv_left):
    """out[b] = whether actions[b] is legal for the player to move (always True for a done game)."""
    for b in prange(actions.shape[0]):
        out[b] = done[b] or _is_legal(b, current_player[b], actions[b], card_place, inv_count,
                                      inv_district, inv_left)


@rule_step(inline=True)
def _mask_row(b, out, head_only, current_player, done, card_place, inv_count, inv_district, inv_left):
    """Row ``b`` of :data:`mask_kernel` (docs/rules.md §4)."""
    if done[b]:
        end = SOLVE_BASE if head_only else out.shape[1]
        for a in range(end):
            out[b, a] = 1
        return
    p = current_player[b]
    for x in range(36):
        out[b, x] = 1 if clue_card_takeable(card_place[b, x]) else 0
    for d in range(14):
        out[b, 36 + d] = 1 if investigator_placeable(inv_left[b, p], False) else 0
    for k in range(inv_count[b, p]):
        out[b, 36 + inv_district[b, p, k]] = 1 if investigator_placeable(inv_left[b, p], True) else 0
    if not head_only:
        for a in range(SOLVE_BASE, out.shape[1]):
            out[b, a] = 1


@batch_kernel(cheap=True)
def mask_kernel(out, head_only, current_player, done, card_place, inv_count, inv_district, inv_left):
    """Fill ``out[B, 1730]`` (int8) with the legal-action mask of the player to move (docs/rules.md §4);
    with ``head_only`` only the clue and investigator entries ``out[b, :50]`` (the solves are
    always legal, for a finished game too)."""
    for b in prange(out.shape[0]):
        _mask_row(b, out, head_only, current_player, done, card_place, inv_count, inv_district, inv_left)


@rule_step
def _sample_legal(b, u, current_player, done, card_place, inv_count, inv_district, inv_left):
    """A legal action of game b chosen uniformly by the uniform variate ``u`` in [0, 1)
    (docs/rules.md §4): the ``k``-th legal action in id order, ``k = floor(u * count)``."""
    p = current_player[b]
    n_clue = 0
    for x in range(36):
        if clue_card_takeable(card_place[b, x]):
            n_clue += 1
    n_inv = 0
    if not done[b]:
        for d in range(14):  # the districts docs/rules.md §4.2 allows (the rule's, not a count of its own)
            used = False
            for j in range(inv_count[b, p]):
                if inv_district[b, p, j] == d:
                    used = True
            if investigator_placeable(inv_left[b, p], used):
                n_inv += 1
    total = n_clue + n_inv + NUM_CASES
    k = int(u * total)
    if k >= total:
        k = total - 1
    if k < n_clue:
        for x in range(36):
            if clue_card_takeable(card_place[b, x]):
                if k == 0:
                    return x
                k -= 1
    elif k < n_clue + n_inv:
        k -= n_clue
        for d in range(14):
            used = False
            for j in range(inv_count[b, p]):
                if inv_district[b, p, j] == d:
                    used = True
            if investigator_placeable(inv_left[b, p], used):
                if k == 0:
                    return 36 + d
                k -= 1
    return SOLVE_BASE + (k - n_clue - n_inv)


@batch_kernel(cheap=True)
def sample_kernel(u, out, current_player, done, card_place, inv_count, inv_district, inv_left):
    """out[b] = a legal action chosen uniformly by the uniform variate ``u[b]`` in [0, 1)."""
    for b in prange(out.shape[0]):
        out[b] = _sample_legal(b, u[b], current_player, done, card_place, inv_count, inv_district,
                               inv_left)


# --- the rule steps of one turn, each for one game b (docs/rules.md §4–§7) ----------------------
# Compiled with ``rule_step(inline=True)`` (no reference counting, inlined into ``_step_games`` at
# numba's level): measured close to the same turn written out in one function (CHANGELOG 0.2.0,
# "engine speed").

NOT_DECIDED = -3
"""``decided`` of a turn that did not decide a duel round (``-1``: a draw, ``>= 0``: the winner)."""
DRAW = -1


@rule_step(inline=True)
def _select_clue_card(b, p, x, adjacency, s):
    """docs/rules.md §4.1: player ``p`` of game b selects the clue card of element ``x`` (on the
    display). The answer (spot / trace / nothing) puts the player's marker on ``x``'s tile or the
    card in front of the player; a marker moves from the player's investigator in ``x``'s
    district only when a new marker goes on the tile; the card is played and the display refilled.
    ``last_answer[b, 0]`` receives the answer code. ``s``: the state."""
    tile_district, case, front, spot, trace = s.tile_district, s.case, s.front, s.spot, s.trace
    inv_count, inv_district, inv_markers = s.inv_count, s.inv_district, s.inv_markers
    ans = clue_answer(tile_district[b], adjacency, case[b, p], x)
    if ans == NOTHING:
        front[b, p, x] = True
    else:
        if ans == SPOT:
            fresh = not spot[b, p, x]
            spot[b, p, x] = True
            kind = 0
        else:
            fresh = not trace[b, p, x]
            trace[b, p, x] = True
            kind = 1
        if fresh:
            dx = tile_district[b, x]
            for k in range(inv_count[b, p]):
                if inv_district[b, p, k] == dx and inv_markers[b, p, k, kind] > 0:
                    inv_markers[b, p, k, kind] -= 1
                    break
    _play_clue_card(b, x, ans, s.card_place, s.deck, s.deck_size, s.rng)
    s.last_answer[b, 0] = ans


@rule_step(inline=True)
def _place_investigator(b, p, d, adjacency, s):
    """docs/rules.md §4.2: player ``p`` of game b places an investigator in district ``d`` (it has
    one left and none of its own in ``d``): answered (spots, traces) with suppression, the tile
    spent for the game. ``last_answer[b]`` receives (spots, traces). ``s``: the state."""
    inv_count, inv_district, inv_answer, inv_markers = s.inv_count, s.inv_district, s.inv_answer, s.inv_markers
    inv_suppressed, inv_left, last_answer = s.inv_suppressed, s.inv_left, s.last_answer
    k = inv_count[b, p]
    inv_district[b, p, k] = d
    ns, nt = _investigate_answer(s.tile_district[b], s.district_tile[b], adjacency, s.case[b, p],
                                 s.spot[b, p], s.trace[b, p], d, inv_suppressed[b, p, k])
    inv_answer[b, p, k, 0] = ns
    inv_answer[b, p, k, 1] = nt
    inv_markers[b, p, k, 0] = ns
    inv_markers[b, p, k, 1] = nt
    inv_count[b, p] = k + 1
    inv_left[b, p] -= 1
    last_answer[b, 0] = ns
    last_answer[b, 1] = nt


@rule_step(inline=True)
def _solve(b, p, c, num_players, edition, duel, s):
    """docs/rules.md §4.3 with the points of §5: player ``p`` of game b names case ``c``; the first
    attempt marks it attempted. Correct: solved for the round, the tier's points
    (``pi_env.core.rules.tier_points``) added to the solve points and the score
    (``score_after``: second edition capped at 21; first edition solve points minus penalty
    points). Wrong: the triple is public (``failed``), 2 penalty points, the score lowered
    (second edition: floored at −5). A duel (§7) has no points. ``last_answer[b, 0]`` receives 1 / 0. Returns whether the solve was correct.
    ``s``: the state."""
    score, solve_points, penalty, last_answer = s.score, s.solve_points, s.penalty, s.last_answer
    s.attempted[b, p] = True
    if is_case(s.case[b, p], c):
        s.solved[b, p] = True
        s.solved_case[b, p] = c
        s.solved_this_rotation[b] = True
        if not duel:
            pts = tier_points(s.tier[b], s.round[b], num_players, edition)
            solve_points[b, p] += pts
            score[b, p] = score_after(score[b, p], pts, solve_points[b, p], penalty[b, p], edition)
        last_answer[b, 0] = 1
        return True
    s.failed[b, p, c] = True
    if not duel:
        penalty[b, p] += WRONG_SOLVE_PENALTY
        score[b, p] = score_after(score[b, p], -WRONG_SOLVE_PENALTY, solve_points[b, p], penalty[b, p],
                                  edition)
    last_answer[b, 0] = 0
    return False


@rule_step(inline=True)
def _duel_decision(b, p, is_solve, correct, first_player, extra_turn):
    """docs/rules.md §7: whether player ``p``'s turn in game b decides the duel round:
    ``NOT_DECIDED``, ``DRAW`` or the round's winner. The round's first solve attempt decides it:
    wrong, the other player wins; correct by the round's second player, it wins; correct by the
    first player, the other player gets one more turn (``extra_turn``), in which a correct
    solve draws and anything else loses."""
    if extra_turn[b]:
        extra_turn[b] = False
        if is_solve and correct:
            return DRAW
        return np.int64(first_player[b])
    if is_solve:
        if not correct:
            return 1 - np.int64(p)
        if p == first_player[b]:
            extra_turn[b] = True
            return NOT_DECIDED
        return np.int64(p)
    return NOT_DECIDED


@rule_step(inline=True)
def _end_of_rotation(b, num_players, edition, nick, duel, max_rotations, rotation, tier,
                     solved_this_rotation, truncated, attempted, solved):
    """The checks at the end of a rotation of game b (docs/rules.md §4, §5, §6). The next tier is
    ``pi_env.core.rules.tier_after_rotation`` (one higher after a rotation with a correct solve;
    nick of time: after every rotation once anyone has solved this round, and the rotation played
    at the last tier ends the round, ``nick_of_time_ends_round``); a standard round ends when at
    most one player has not attempted (second edition) / not solved (first edition;
    ``pi_env.core.rules.finished_for_round_end``, ``round_ends_after_rotation``); any round ends at
    the ``max_rotations`` safeguard (§5, ``truncated`` set).
    Returns ``(end, safeguard)``: the round ends, and it was ended by the safeguard."""
    any_solved = False
    for i in range(num_players):
        if solved[b, i]:
            any_solved = True
    end = False
    if nick and any_solved and nick_of_time_ends_round(tier[b], num_players):
        end = True
    tier[b] = tier_after_rotation(tier[b], solved_this_rotation[b], any_solved, nick, num_players)
    solved_this_rotation[b] = False
    rotation[b] += 1
    if not duel:
        open_ = 0
        for i in range(num_players):
            if not finished_for_round_end(attempted[b, i], solved[b, i], edition):
                open_ += 1
        if round_ends_after_rotation(open_):
            end = True
    if not end and rotation[b] >= max_rotations:
        truncated[b] = True
        return True, True
    return end, False


@rule_step(inline=True)
def _next_seat(b, p, num_players, edition, nick, duel, max_rotations, first_player, current_player,
               rotation, tier, solved_this_rotation, truncated, attempted, solved):
    """docs/rules.md §4 turn order after player ``p``'s turn in game b: the next seat that has not
    solved this round moves; every pass of the round's last seat ends a rotation
    (``_end_of_rotation``). Returns ``(round_over, safeguard)``; when the round is over the
    player to move is left as it was (the new round sets it)."""
    last_seat = (np.int64(first_player[b]) + num_players - 1) % num_players
    q = np.int64(p)
    while True:
        if q == last_seat:
            end, safeguard = _end_of_rotation(b, num_players, edition, nick, duel, max_rotations,
                                              rotation, tier, solved_this_rotation, truncated,
                                              attempted, solved)
            if end:
                return True, safeguard
        q = (q + 1) % num_players
        if not solved[b, q]:
            current_player[b] = q
            return False, False


@rule_step(inline=True)
def _end_round(b, decided, num_players, duel, num_rounds, max_rounds, round_, first_player, done,
               truncated, inv_left, score, rewards, extra_turn, round_winner):
    """The end of a round of game b (docs/rules.md §5, §7): a duel's round result (``decided``:
    ``DRAW`` or the winner; scores and rewards ±1); the game ends after the last round (a duel:
    once the rounds won differ, with a game reward ±1, or at ``max_rounds``, truncated); else the
    first player passes left and a duel gives 2 more investigators (the winner 1, at most 5:
    ``pi_env.core.rules.duel_investigators_after_round``).
    Returns whether a next round follows (then set it up: ``_setup_round``, §3)."""
    if duel:
        round_winner[b] = decided
        extra_turn[b] = False
        if decided >= 0:
            score[b, decided] += 1
            rewards[b, decided] += 1
            rewards[b, 1 - decided] -= 1
    round_[b] += 1
    finished = False
    if duel:
        if round_[b] >= num_rounds and score[b, 0] != score[b, 1]:
            finished = True
            w = 0 if score[b, 0] > score[b, 1] else 1
            rewards[b, w] += 1
            rewards[b, 1 - w] -= 1
        elif round_[b] >= max_rounds:
            finished = True
            truncated[b] = True
    elif round_[b] >= num_rounds:
        finished = True
    if finished:
        done[b] = True
        return False
    if duel:
        for i in range(num_players):
            inv_left[b, i] = duel_investigators_after_round(inv_left[b, i], i == decided)
    first_player[b] = (first_player[b] + 1) % num_players
    return True


@rule_step
def _step_games(lo, hi, actions, rejected, r, s):
    """Apply ``actions[b]`` to every live game b of ``lo <= b < hi`` in place (docs/rules.md §4–§7),
    one turn each, by the rule steps: the action of the player to move (§4.1
    ``_select_clue_card``, §4.2 ``_place_investigator``, §4.3 ``_solve``), the duel's decision
    (§7 ``_duel_decision``), the next seat and the end of a rotation (§4, §5, §6 ``_next_seat``),
    the end of the round (§5, §7 ``_end_round``) and the next round's setup (§3
    ``_setup_round``). ``rewards[b]`` receives every player's score change (duel: the round and
    game results).

    Any ``int64`` action is safe: one that is not legal for the player to move (negative, ``>=
    1730``, a card not on the display, a district already used this round, no investigator left)
    leaves its game unchanged except ``rewards[b] = 0`` and sets ``rejected[b]``; a finished game is
    not stepped (``rejected[b]`` False). ``r``: the rules (:class:`~pi_env.engine.state.KernelRules`;
    ``r.rules`` is ``GameConfig.rules_code``: bit 0 first edition, bit 1 nick of time, bit 2 duel,
    bits 8.. the duel's ``max_rounds``; ``r.num_rounds`` the regular rounds); ``s``: the state.
    """
    num_players, rules, num_rounds, max_rotations, adjacency = (r.num_players, r.rules, r.num_rounds,
                                                                r.max_rotations, r.adjacency)
    round_, first_player, current_player, rotation, tier = (s.round, s.first_player, s.current_player,
                                                            s.rotation, s.tier)
    solved_this_rotation, done, truncated, turn = s.solved_this_rotation, s.done, s.truncated, s.turn
    card_place, inv_count, inv_district, inv_left = s.card_place, s.inv_count, s.inv_district, s.inv_left
    attempted, solved, score, rewards = s.attempted, s.solved, s.score, s.rewards
    last_action, last_answer, last_player = s.last_action, s.last_answer, s.last_player
    extra_turn, round_winner = s.extra_turn, s.round_winner
    edition = rules & 1
    nick = (rules >> 1) & 1
    duel = (rules >> 2) & 1
    max_rounds = rules >> 8
    for b in range(lo, hi):
        rejected[b] = False
        a = actions[b]
        p = current_player[b]
        if done[b] or not _is_legal(b, p, a, card_place, inv_count, inv_district, inv_left):
            rejected[b] = not done[b]
            for i in range(num_players):
                rewards[b, i] = 0
            continue
        last_action[b] = a
        last_player[b] = p
        last_answer[b, 1] = -1
        # the rewards are zeroed here, not before the checks: a loop over ``num_players`` that
        # only zeroes compiles to a call of memset, which cost ~15% of a self-play turn
        for i in range(num_players):
            rewards[b, i] = 0 if duel else -score[b, i]  # becomes the score change below
        correct = False
        if a < INVESTIGATE_BASE:
            _select_clue_card(b, p, a, adjacency, s)
        elif a < SOLVE_BASE:
            _place_investigator(b, p, a - INVESTIGATE_BASE, adjacency, s)
        else:
            correct = _solve(b, p, a - SOLVE_BASE, num_players, edition, duel, s)
        turn[b] += 1
        decided = NOT_DECIDED
        if duel:
            decided = _duel_decision(b, p, a >= SOLVE_BASE, correct, first_player, extra_turn)
        round_over = decided != NOT_DECIDED
        if not round_over:
            round_over, safeguard = _next_seat(b, p, num_players, edition, nick, duel, max_rotations,
                                               first_player, current_player, rotation, tier,
                                               solved_this_rotation, truncated, attempted, solved)
            if safeguard:
                decided = DRAW  # §5, §7: a duel round ended by the safeguard is a draw
        if round_over and _end_round(b, decided, num_players, duel, num_rounds, max_rounds, round_,
                                     first_player, done, truncated, inv_left, score, rewards,
                                     extra_turn, round_winner):
            _setup_round(b, num_players, s)
        if not duel:
            for i in range(num_players):
                rewards[b, i] += score[b, i]


@batch_kernel(family="step")
def step_kernel(actions, rejected, r, s):
    """Apply ``actions[b]`` to every live game (``_step_games``, range by range; ``r``: the rules,
    :class:`~pi_env.engine.state.KernelRules`; ``s``: the state, :data:`~pi_env.engine.state.GameArrays`)."""
    n = actions.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_games(c * CHUNK, min(n, (c + 1) * CHUNK), actions, rejected, r, s)
