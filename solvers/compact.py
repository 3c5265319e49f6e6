"""The compact observation encoding for learning: what one player may know, in a few
hundred ``float32`` built for a whole batch straight from the engine state in one numba call.

The flat encoding (:mod:`pi_env.envs.encoders`, ``618 + 1912·P`` entries) spells out every answer; this
one hands the learner what a player *deduces* from them instead: its own-information posterior
(:mod:`pi_env.solvers.own_info`), the expected information gain of every query it may make, how much
the player whose case it holds would learn from each clue card, and how close every player is to
solving as anyone can see it. Standard and duel games: :func:`encode_compact`; Solo Time Attack:
:func:`encode_solo_compact`.

Standard encoding
-----------------

``float32[compact_size(P)]`` = ``216 + 8·P`` (232 for 2 players, 256 for 5). Per-player entries are in
*relative seat* order: seat ``j`` is player ``(p + j) % P`` (seat 0 the observer, seat 1 the player
whose case it holds). ``n`` is the size of the observer's own-information case set, ``gain`` an
expected information gain in bits (:func:`pi_env.solvers.own_info.query_gains`).

==================  ========  ===========  ===========================================================
name                shape     range        meaning
==================  ========  ===========  ===========================================================
own_marginals       [36]      0..1         P(own suspect / evidence / location is element ``x``) under
                                           the own-information posterior (uniform over the set)
own_log2_count      [1]       0..1         ``log2(n) / log2(1680)``
own_p_best          [1]       0..1         ``1 / n``: P(a solve naming the most likely case is right)
clue_gain           [36]      0..0.40      gain / 4 of asking the clue card of element ``x`` (whether or
                                           not it is on the display; 0 once its answer is known)
district_gain       [14]      0..0.83      gain / 4 of an investigator in district ``d`` (with the
                                           suppression the observer's markers cause; 0 where it has one)
held_case           [36]      0/1          the case the observer holds (seat 1's; 3 ones)
held_clue_gain      [36]      0..2.7       bits / 4 seat 1 would learn from the clue card of ``x``:
                                           ``log2(m / m_a)`` with ``m`` the size of seat 1's public
                                           case set and ``m_a`` the cases in it giving seat 1's true
                                           answer (known to the observer); 0 once seat 1 knows it
display             [36]      0/1          the clue card of ``x`` is on the display
own_inv_placed      [14]      0/1          the observer has an investigator in district ``d``
score               [P]       as flat      ``score / 21`` (duel: rounds won ``/ num_rounds``)
attempted           [P]       0/1          attempted a solve this round
solved              [P]       0/1          solved this round
inv_left            [P]       0..1         investigator tiles left ``/ 5``
public_log2_count   [P]       0..1         ``log2(m_j) / log2(1680)``, ``m_j`` the size of seat ``j``'s
                                           *public* case set: the cases its own public answers, its
                                           failed solves and the others' spot markers and correct
                                           solves allow — what everyone can tell about its progress
                                           (it also knows the case it holds, which only narrows it)
public_certainty    [P, 3]    0..1         per type, the largest marginal of that public set (1: the
                                           seat's suspect / evidence / location is public knowledge)
round               [1]       0..1         ``round / num_rounds`` (a tied duel goes beyond 1)
tier                [1]       0..1         ``tier / P``
rotation            [1]       0..1         ``rotation / max_rotations``
first_seat          [1]       0..1         relative seat of the round's first player ``/ (P - 1)``
deck_size           [1]       0..1         cards in the deck ``/ 36``
to_move             [1]       0..1         relative seat of the player to move ``/ (P - 1)``
==================  ========  ===========  ===========================================================

(:func:`compact_layout` gives the offsets; :func:`compact_bounds` the ``(low, high)`` arrays for a
Gymnasium ``Box``.) The gains carry the layout, the answers so far and the suppression rule in the
form a policy needs to choose a query; the case set itself is available as a mask (``mask=``) for
narrowing the solve actions.

Joint block (``compact-v2``)
----------------------------

``float32[JOINT_BLOCK_SIZE]`` = 38 (:func:`encode_joint_block`, :data:`JOINT_BLOCK_LAYOUT`), appended to
the standard encoding by the learned agents' ``"compact-v2"`` (:mod:`pi_env.agents.learned`). It is
the observer's **joint** posterior (:func:`pi_env.solvers.own_info.joint_case_counts`: uniform over the
joint deals consistent with every player's public answers, the case it holds and its own answers —
what the ``greedy`` agent decides on). With 2 players it equals the own-information entries; with
more it also weighs what the other players' answers exclude through disjointness.

==================  ========  ===========  ===========================================================
name                shape     range        meaning
==================  ========  ===========  ===========================================================
joint_marginals     [36]      0..1         P(own suspect / evidence / location is element ``x``) under
                                           the joint posterior
joint_log2_count    [1]       0..1         ``log2(k) / log2(1680)``, ``k`` the cases with a consistent
                                           joint deal
joint_p_best        [1]       0..1         the largest joint probability of one case: P(a solve naming
                                           the joint posterior's most likely case is right)
==================  ========  ===========  ===========================================================

A row without a consistent deal (impossible in an engine game) is all zeros. It is computed in
one numba call for the batch at 2–4 players (3 and 4: :func:`_joint_block_kernel`, the counts of
:func:`pi_env.solvers.own_info.joint_features`) and with one Python joint count per row at 5.

Solo encoding
-------------

``float32[SOLO_COMPACT_SIZE]`` = 142 (:func:`solo_compact_layout`): ``own_marginals`` [36],
``own_log2_count`` [1], ``own_p_best`` [1], ``clue_gain`` [36], ``district_gain`` [14] as above (the
solo player's answers and failed solves only), ``display`` [36] (open mode: all 1),
``inv_placed`` [14], ``inv_left`` [1] (``/ SoloConfig.investigators``, 0 without investigators),
``actions`` [1] and ``wrong_solves`` [1] (``/ SoloConfig.max_actions``), ``deck_size`` [1] (``/ 36``).

Information hygiene (docs/rules.md §9): the kernels read the hidden cases only for the case the observer
holds; nothing else depends on its own case except through the answers to it
(``tests/test_compact.py`` plays pairs of games that differ only in that case).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, kernel
from pi_env.core.constants import MAX_INVESTIGATORS, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS, ON_DISPLAY
from pi_env.core.errors import PIError
from pi_env.encodings.bounds import GAIN_SCALE, compact_bounds, compact_scales, solo_compact_bounds
from pi_env.encodings.layouts import (JOINT_BLOCK_LAYOUT, JOINT_BLOCK_SIZE, SOLO_COMPACT_SIZE, compact_components,
                                      compact_layout, compact_size, solo_compact_layout)
from pi_env.engine.state import GameConfig, State
from pi_env.engine import check_config
from pi_env.engine.observe import player_array as players_array
from pi_env.solvers.own_info import (_CHUNK, _LOG2, _LOG2_CASES, any_nonzero, apply_held, case_set, clue_code,
                                     _features_of_counts, _finish_row, _gather_solo, disjoint_counts,
                                     disjoint_pair_counts, gather_state, held_case_of, _near_counts, seat_case_set,
                                     failed_solve_words,
                                     _optional_buffer, _pick, _rows_buffer, _scratch, _state_args, adjacency_words)

__all__ = ["compact_size", "compact_layout", "compact_bounds", "encode_compact", "JOINT_BLOCK_SIZE",
           "JOINT_BLOCK_LAYOUT", "encode_joint_block", "SOLO_COMPACT_SIZE",
           "solo_compact_layout", "solo_compact_bounds", "encode_solo_compact", "GAIN_SCALE"]

# The layouts, scales and bounds are the encodings package's (pi_env.encodings): one place for
# every encoding; this module computes the entries.


def _offsets(num_players: int) -> np.ndarray:
    return np.array([start for _, start, _, _ in compact_components(num_players)], dtype=np.int64)


_scales = compact_scales  # float64[6]: score, round, tier, rotation, first/to-move seat, deck size


@kernel
def _public_summary(cnt, n, row_log2, certainty):
    """``public_log2_count`` and ``public_certainty`` of a set of ``n`` cases (element counts ``cnt``)."""
    if n == 0:
        row_log2[0] = 0.0
        for t in range(3):
            certainty[t] = 0.0
        return
    row_log2[0] = _LOG2[n] / _LOG2_CASES
    for t in range(3):
        o = 0 if t == 0 else (12 if t == 1 else 22)
        m = 12 if t == 0 else (10 if t == 1 else 14)
        best = 0
        for y in range(o, o + m):
            if cnt[y] > best:
                best = cnt[y]
        certainty[t] = best / n


@kernel
def _held_clue_gains(td, words, cnt, n, held, out, scale):
    """Bits (times ``scale``) the player whose case is ``held`` would learn from each clue card:
    its answer is known to the holder; ``cnt`` / ``n``: that player's public case set."""
    if n == 0:
        for x in range(NUM_ELEMENTS):
            out[x] = 0.0
        return
    near = _near_counts(td, words, cnt)
    hy = (held // 140, 12 + (held // 14) % 10, 22 + held % 14)
    for x in range(NUM_ELEMENTS):
        t = 0 if x < 12 else (1 if x < 22 else 2)
        a = clue_code(words, td, x, hy[t])
        k = cnt[x] if a == 2 else (near[t, td[x]] if a == 1 else n - cnt[x] - near[t, td[x]])
        out[x] = (_LOG2[n] - _LOG2[k]) * scale if k > 0 and k < n else 0.0


@batch_kernel
def _compact_kernel(players, words, off, scale, gain_scale, want_mask, out, mask, round_, first_player,
                    current_player, rotation, tier, card_place, deck_size, score, attempted, solved, inv_left,
                    tile_district, case, spot, trace, front, inv_count, inv_district, inv_answer,
                    inv_suppressed, failed_words, solved_case, failed):
    P = case.shape[1]
    B = players.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, _ = _scratch()
        own_row = np.empty(38, dtype=np.float32)
        gain_row = np.empty(50, dtype=np.float32)
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            o = out[b]
            p = players[b]
            h = (p + 1) % P
            td = tile_district[b]
            held = held_case_of(case, b, h)
            # the observer's own information, with query gains
            excl, target, only = gather_state(b, p, P, spot, trace, front, inv_count, inv_district,
                                               inv_answer, inv_suppressed, solved_case, answer, inv_mask)
            excl, only = apply_held(p, h, held, excl, only)
            if only == -2:
                target = np.int64(-1)
            placed = 0
            for k in range(inv_count[b, p]):
                placed |= 1 << np.int64(inv_district[b, p, k])
            _finish_row(td, words, answer, excl, inv_mask, target, only, failed[b, p], any_nonzero(failed_words[b, p]),
                        spot[b, p], trace[b, p], placed, want_mask, True, cnt, members, hyp, hist, own_row,
                        mask[b] if want_mask else mask[0:0].reshape(-1), gain_row)
            for i in range(38):
                o[off[0] + i] = own_row[i]
            for i in range(50):
                o[off[3] + i] = gain_row[i] * gain_scale
            for x in range(NUM_ELEMENTS):
                o[off[5] + x] = 0.0
                o[off[7] + x] = 1.0 if card_place[b, x] == ON_DISPLAY else 0.0
            o[off[5] + case[b, h, 0]] = 1.0
            o[off[5] + 12 + case[b, h, 1]] = 1.0
            o[off[5] + 22 + case[b, h, 2]] = 1.0
            for d in range(NUM_DISTRICTS):
                o[off[8] + d] = 1.0 if (placed >> d) & 1 else 0.0
            # every seat: public progress; seat 1 also what it would learn from each clue card
            for j in range(P):
                q = (p + j) % P
                o[off[9] + j] = score[b, q] * scale[0]
                o[off[10] + j] = 1.0 if attempted[b, q] else 0.0
                o[off[11] + j] = 1.0 if solved[b, q] else 0.0
                o[off[12] + j] = inv_left[b, q] / MAX_INVESTIGATORS
                excl, target, only = gather_state(b, q, P, spot, trace, front, inv_count, inv_district,
                                                   inv_answer, inv_suppressed, solved_case, answer, inv_mask)
                n = case_set(td, words, answer, excl, inv_mask, target, only, failed[b, q],
                              any_nonzero(failed_words[b, q]), False, members, cnt)
                _public_summary(cnt, n, o[off[13] + j:off[13] + j + 1], o[off[14] + 3 * j:off[14] + 3 * j + 3])
                if j == 1:
                    _held_clue_gains(td, words, cnt, n, held, o[off[6]:off[6] + NUM_ELEMENTS], gain_scale)
            o[off[15]] = round_[b] * scale[1]
            o[off[16]] = tier[b] * scale[2]
            o[off[17]] = rotation[b] * scale[3]
            o[off[18]] = ((first_player[b] - p + P) % P) * scale[4]
            o[off[19]] = deck_size[b] * scale[5]
            o[off[20]] = ((current_player[b] - p + P) % P) * scale[4]


def encode_compact(state: State, config: GameConfig, players: "int | np.ndarray", out: "np.ndarray | None" = None,
                   mask: "np.ndarray | None" = None, parallel: "bool | None" = None) -> np.ndarray:
    """The compact encoding (module docstring) of ``players`` in every game of ``state``.

    Args:
        state: a batch of ``B`` standard or duel games.
        config: their rules (player count, board, scales).
        players: one player for all games, or ``int[B]`` a player per game.
        out: optional ``float32[B, compact_size(P)]`` buffer (C-contiguous rows; a column slice of a
            wider buffer works); every entry is overwritten.
        mask: optional ``bool[B, 1680]`` that receives the observer's own-information case set (to
            narrow the solve actions: the true case is always in it).
        parallel: run threaded (``True``), serially (``False``) or as :mod:`pi_env.core._config`
            decides for ``B`` (``None``).

    Returns:
        ``float32[B, compact_size(P)]`` (``out`` if given).

    Raises:
        PIError: a ``config`` for another player count, a player out of range or of the wrong shape,
            a wrong buffer.

    Example:
        >>> from pi_env.engine import GameConfig, init
        >>> cfg = GameConfig(num_players=2)
        >>> x = encode_compact(init(cfg, 3, seed=0), cfg, [0, 1, 0])
        >>> x.shape, round(float(x[0, 37]), 6)  # 1 / 1287 cases: 11 suspects x 9 evidence x 13 locations
        ((3, 232), 0.000777)
    """
    check_config(state, config)
    P, B = config.num_players, state.batch_size
    players = players_array(state, players)
    D = compact_size(P)
    out = _rows_buffer(out, B, D)
    m = _optional_buffer(mask, B, NUM_CASES, np.bool_, "mask")
    s = state
    _pick(_compact_kernel, B, parallel)(players, adjacency_words(config.board), _offsets(P), _scales(config),
                                        GAIN_SCALE, mask is not None, out, m, s.round, s.first_player,
                                        s.current_player, s.rotation, s.tier, s.card_place, s.deck_size, s.score,
                                        s.attempted, s.solved, s.inv_left, *_state_args(s))
    return out


@batch_kernel
def _joint_block_kernel(players, words, out, tile_district, case, spot, trace, front, inv_count, inv_district,
                        inv_answer, inv_suppressed, failed_words, solved_case, failed):
    """The joint block of 3- and 4-player games (module docstring), one row per game: the sets of
    every seat as :func:`pi_env.solvers.own_info.joint_features` builds them (the held case
    known; :func:`~pi_env.solvers.own_info.seat_case_set`), the joint counts per case of the observer by
    :func:`~pi_env.solvers.own_info.disjoint_counts` (3 players: one unknown seat) or
    :func:`~pi_env.solvers.own_info.disjoint_pair_counts` (4 players: two), then the marginals and
    the case count of :func:`~pi_env.solvers.own_info.joint_features` (``_features_of_counts``) and
    ``joint_p_best`` = the largest count over their sum."""
    B = players.shape[0]
    P = case.shape[1]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, _, _, _ = _scratch()
        others = np.empty((2, NUM_CASES), dtype=np.int16)
        joint = np.empty(NUM_CASES, dtype=np.int64)
        h1, hse, hsl, hel = (np.zeros(NUM_ELEMENTS, dtype=np.int64), np.zeros((12, 10), dtype=np.int64),
                             np.zeros((12, 14), dtype=np.int64), np.zeros((10, 14), dtype=np.int64))
        mem = np.zeros(NUM_CASES, dtype=np.uint8)
        sizes = np.zeros(P, dtype=np.int64)
        st = (spot, trace, front, inv_count, inv_district, inv_answer, inv_suppressed, solved_case, failed_words,
              failed)
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            row = out[b]
            for i in range(JOINT_BLOCK_SIZE):
                row[i] = 0.0
            p = players[b]
            h = (p + 1) % P
            held = held_case_of(case, b, h)
            for k in range(P):
                j = (k + 1) % P  # seats 1 .. P-1, then the observer
                sizes[j] = seat_case_set(b, (p + j) % P, P, h, held, tile_district[b], words, st, True, answer,
                                         inv_mask, members if j == 0 else others[max(j - 2, 0)], cnt)
            empty = False
            for j in range(P):
                empty = empty or sizes[j] == 0
            if empty:
                continue
            if P == 3:
                positive = disjoint_counts(members, sizes[0], others[0], sizes[2], joint, h1, hse, hsl, hel, mem)
            else:
                positive = disjoint_pair_counts(members, sizes[0], others[0], sizes[2], others[1], sizes[3], joint)
            _features_of_counts(members, sizes[0], joint, positive, row)
            total, top = 0, 0
            for i in range(sizes[0]):
                total += joint[i]
                top = max(top, joint[i])
            if total > 0:
                row[JOINT_BLOCK_SIZE - 1] = top / total


def encode_joint_block(state: State, config: GameConfig, players: "int | np.ndarray",
                       out: "np.ndarray | None" = None) -> np.ndarray:
    """The joint block (module docstring) of ``players`` in every game of ``state``.

    2 players: the own-information set (:func:`pi_env.solvers.own_info.joint_case_counts`, one
    numba call) and numpy sums. 3 and 4 players: one numba call in all (:func:`_joint_block_kernel`,
    the counts of :func:`pi_env.solvers.own_info.joint_features`). 5 players: the counts of one
    numba call (:func:`pi_env.solvers.own_info.joint_case_counts`, three unknown players:
    :func:`~pi_env.solvers.own_info.disjoint_triple_counts`; before, one
    :func:`pi_env.solvers.joint.count_joint` per row, the same counts) and numpy sums.
    The values are the same on every path: ``count / total`` sums (``float64``) stored as
    ``float32`` (tested against the per-row count at 3 and 4 players, ``tests/test_compact.py``).

    Args:
        state: a batch of ``B`` standard or duel games.
        config: their rules.
        players: one player for all games, or ``int[B]``.
        out: optional ``float32[B, 38]`` buffer (every entry is overwritten; a column slice of a
            wider buffer works).

    Returns:
        ``float32[B, 38]`` (``out`` if given).

    Raises:
        PIError: a ``config`` for another player count, a player out of range, a wrong buffer.
    """
    check_config(state, config)
    B = state.batch_size
    players = players_array(state, players)
    if out is None:
        out = np.empty((B, JOINT_BLOCK_SIZE), dtype=np.float32)
    elif not isinstance(out, np.ndarray) or out.shape != (B, JOINT_BLOCK_SIZE) or out.dtype != np.float32:
        raise PIError(f"out must be float32[{B}, {JOINT_BLOCK_SIZE}], got "
                      f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    if config.num_players in (3, 4):
        if B:
            _joint_block_kernel.for_batch(B)(players, adjacency_words(config.board), out, *_state_args(state))
        return out
    return _joint_block_of_counts(state, config, players, out)


def _joint_block_of_counts(state: State, config: GameConfig, players: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The joint block from :func:`pi_env.solvers.own_info.joint_case_counts` (2 and 5 players; at 3
    and 4 the reference the batch kernel is tested against)."""
    from pi_env.solvers.own_info import joint_case_counts

    B = state.batch_size
    counts = joint_case_counts(state, config.board, players).astype(np.float64)
    total = counts.sum(axis=1)
    w = counts / np.maximum(total, 1.0)[:, None]
    cube = w.reshape(B, 12, 10, 14)
    out[:, 0:12] = cube.sum(axis=(2, 3))
    out[:, 12:22] = cube.sum(axis=(1, 3))
    out[:, 22:36] = cube.sum(axis=(1, 2))
    k = (counts > 0).sum(axis=1)
    out[:, 36] = np.log2(np.maximum(k, 1)) / math.log2(NUM_CASES)
    out[:, 37] = w.max(axis=1) if B else 0.0
    out[total == 0] = 0.0
    return out


# ---------------------------------------------------------------------------------------------
# Solo Time Attack


_SOLO_OFF = np.array([start for start, _ in solo_compact_layout().values()], dtype=np.int64)


@batch_kernel
def _solo_compact_kernel(words, off, scale, gain_scale, want_mask, out, mask, tile_district, card_place,
                         deck_size, spot, trace, nothing, inv_placed, inv_answer, inv_suppressed, inv_left,
                         failed, failed_words, actions, wrong_solves):
    B = out.shape[0]
    for chunk in prange((B + _CHUNK - 1) // _CHUNK):
        answer, inv_mask, cnt, members, hyp, hist, _ = _scratch()
        own_row = np.empty(38, dtype=np.float32)
        gain_row = np.empty(50, dtype=np.float32)
        for b in range(chunk * _CHUNK, min(B, chunk * _CHUNK + _CHUNK)):
            o = out[b]
            target, placed = _gather_solo(b, spot, trace, nothing, inv_placed, inv_answer, inv_suppressed,
                                          answer, inv_mask)
            _finish_row(tile_district[b], words, answer, np.int64(0), inv_mask, target, np.int64(-1), failed[b],
                        any_nonzero(failed_words[b]), spot[b], trace[b], placed, want_mask, True, cnt, members, hyp,
                        hist, own_row, mask[b] if want_mask else mask[0:0].reshape(-1), gain_row)
            for i in range(38):
                o[off[0] + i] = own_row[i]
            for i in range(50):
                o[off[3] + i] = gain_row[i] * gain_scale
            for x in range(NUM_ELEMENTS):
                o[off[5] + x] = 1.0 if card_place[b, x] == ON_DISPLAY else 0.0
            for d in range(NUM_DISTRICTS):
                o[off[6] + d] = 1.0 if inv_placed[b, d] else 0.0
            o[off[7]] = inv_left[b] * scale[0]
            o[off[8]] = actions[b] * scale[1]
            o[off[9]] = wrong_solves[b] * scale[1]
            o[off[10]] = deck_size[b] * scale[2]


def encode_solo_compact(state, config, out: "np.ndarray | None" = None, mask: "np.ndarray | None" = None,
                        parallel: "bool | None" = None) -> np.ndarray:
    """The solo compact encoding (module docstring) of every game of a
    :class:`~pi_env.engine.solo.SoloState`.

    Args:
        state: a batch of ``B`` solo games.
        config: their :class:`~pi_env.engine.solo.SoloConfig`.
        out: optional ``float32[B, 142]`` buffer (C-contiguous rows).
        mask: optional ``bool[B, 1680]`` that receives the player's own-information case set.
        parallel: as in :func:`encode_compact`.

    Returns:
        ``float32[B, 142]`` (``out`` if given).

    Raises:
        PIError: a wrong buffer.
    """
    B = state.batch_size
    out = _rows_buffer(out, B, SOLO_COMPACT_SIZE)
    m = _optional_buffer(mask, B, NUM_CASES, np.bool_, "mask")
    scale = np.array([1.0 / config.investigators if config.investigators else 0.0, 1.0 / config.max_actions,
                      1.0 / NUM_ELEMENTS], dtype=np.float64)
    _pick(_solo_compact_kernel, B, parallel)(adjacency_words(config.board), _SOLO_OFF, scale, GAIN_SCALE,
                                             mask is not None, out, m, state.tile_district, state.card_place,
                                             state.deck_size, state.spot, state.trace, state.nothing,
                                             state.inv_placed, state.inv_answer, state.inv_suppressed,
                                             state.inv_left, state.failed, failed_solve_words(state.failed),
                                             state.actions, state.wrong_solves)
    return out
