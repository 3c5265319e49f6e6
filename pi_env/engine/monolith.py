"""The step kernel as one function: the baseline of the named rule steps (issue #13 item 3).

Until pi-env 0.2.0 the engine's turn (docs/rules.md §4–§7) was one ~200-line numba function with
section comments; it is now split into named rule steps (:mod:`pi_env.engine._kernels`:
``_select_clue_card`` §4.1, ``_place_investigator`` §4.2, ``_solve`` §4.3, ``_duel_decision`` §7,
``_next_seat`` / ``_end_of_rotation`` §4–§5, ``_nick_of_time`` §6, ``_end_round`` §5/§7 and
``_setup_round`` §3). This module keeps the one-function form, frozen, for one use only:
``benchmarks/step_kernel_split.py`` times both in one process and checks that they play the same
games (the named steps must cost no more than 5 % over it), built with the named steps' compiler
settings (``rule_step``, no reference counting) and, for comparison, with numba's reference
counting (``kernel``, how the engine compiled its step before).

It calls the same per-game helpers (the answers, the card flow, the round setup). Do not use it
for anything else: :func:`pi_env.engine.step_inplace` is the engine's step. It is removed from the
package once the figure is recorded (CHANGELOG, 0.2.0).
"""

from __future__ import annotations

import types

import numpy as np
from numba import prange

from pi_env.core._config import batch_kernel, kernel, rule_step
from pi_env.core.constants import (MAX_INVESTIGATORS, NOTHING, NUM_CASES, ON_DISPLAY, SCORE_CAP, SCORE_FLOOR,
                                   SOLVE_BASE, SPOT, WRONG_SOLVE_PENALTY)
from pi_env.engine._kernels import (CHUNK, _clue_answer, _investigate_answer, _is_case, _play_clue_card,
                                    _setup_round, _tier_points)
from pi_env.engine.api import check_config
from pi_env.engine.arrays import action_array
from pi_env.engine.state import GameConfig, State

__all__ = ["BUILDS", "step_monolithic"]


def _monolithic_step_games(lo, hi, actions, rejected, num_players, rules, num_rounds, max_rotations, adjacency,
                rng, round_, first_player, current_player, rotation, tier, solved_this_rotation,
                done, truncated, turn, tile_district, district_tile, case, card_place, deck,
                deck_size, front, spot, trace, inv_count, inv_district, inv_answer, inv_markers,
                inv_suppressed, inv_left, attempted, solved, solved_case, failed, score,
                solve_points, penalty, rewards, last_action, last_answer, last_player, extra_turn,
                round_winner):
    """Apply ``actions[b]`` to every live game b of ``lo <= b < hi`` in place (docs/rules.md §4–§7): §4.1 select a clue card,
    §4.2 place an investigator, §4.3 solve (§5 points), §7 the duel's decision, then the next seat,
    the end of a rotation (§5, §6) and of a round (§5, §7).

    Any ``int64`` action is safe: one that is not legal for the player to move (negative, ``>=
    1730``, a card not on the display, a district already used this round, no investigator left)
    leaves its game unchanged except ``rewards[b] = 0`` and sets ``rejected[b]``; a finished game is
    not stepped (``rejected[b]`` False). ``rules`` is ``GameConfig.rules_code``: bit 0 first
    edition, bit 1 nick of time, bit 2 duel, bits 8.. the duel's ``max_rounds``; ``num_rounds`` the
    regular rounds.
    """
    edition = rules & 1
    nick = (rules >> 1) & 1
    duel = (rules >> 2) & 1
    max_rounds = rules >> 8
    last_tier = min(3, num_players - 2)
    for b in range(lo, hi):
        for i in range(num_players):
            rewards[b, i] = 0
        rejected[b] = False
        if done[b]:
            continue
        a = actions[b]
        p = current_player[b]
        # the legality check of _is_legal, written out
        if a < 36:
            ok = a >= 0 and card_place[b, a] == ON_DISPLAY
        elif a < SOLVE_BASE:
            ok = inv_left[b, p] > 0
            for k in range(inv_count[b, p]):
                if inv_district[b, p, k] == a - 36:
                    ok = False
        else:
            ok = a < SOLVE_BASE + NUM_CASES
        if not ok:
            rejected[b] = True
            continue
        last_action[b] = a
        last_player[b] = p
        last_answer[b, 1] = -1
        if not duel:
            for i in range(num_players):
                rewards[b, i] = -score[b, i]  # becomes the score change below
        correct = False
        if a < 36:
            # §4.1 select a clue card
            x = a
            ans = _clue_answer(tile_district[b], adjacency, case[b, p], x)
            dx = tile_district[b, x]
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
                # a marker moves from the investigator only when a new one goes on the tile
                if fresh:
                    for k in range(inv_count[b, p]):
                        if inv_district[b, p, k] == dx and inv_markers[b, p, k, kind] > 0:
                            inv_markers[b, p, k, kind] -= 1
                            break
            _play_clue_card(b, x, ans, card_place, deck, deck_size, rng)
            last_answer[b, 0] = ans
        elif a < SOLVE_BASE:
            # §4.2 place an investigator
            d = a - 36
            k = inv_count[b, p]
            inv_district[b, p, k] = d
            ns, nt = _investigate_answer(tile_district[b], district_tile[b], adjacency, case[b, p],
                                         spot[b, p], trace[b, p], d, inv_suppressed[b, p, k])
            inv_answer[b, p, k, 0] = ns
            inv_answer[b, p, k, 1] = nt
            inv_markers[b, p, k, 0] = ns
            inv_markers[b, p, k, 1] = nt
            inv_count[b, p] = k + 1
            inv_left[b, p] -= 1
            last_answer[b, 0] = ns
            last_answer[b, 1] = nt
        else:
            # §4.3 solve (a duel has no points: §7)
            c = a - SOLVE_BASE
            attempted[b, p] = True
            if _is_case(case[b, p], c):
                correct = True
                solved[b, p] = True
                solved_case[b, p] = c
                solved_this_rotation[b] = True
                if not duel:
                    pts = _tier_points(tier[b], num_players)
                    if edition == 0:
                        pts += round_[b]
                    solve_points[b, p] += pts
                    if edition == 0:
                        score[b, p] = min(SCORE_CAP, score[b, p] + pts)
                    else:
                        score[b, p] = solve_points[b, p] - penalty[b, p]
                last_answer[b, 0] = 1
            else:
                failed[b, p, c] = True
                if not duel:
                    penalty[b, p] += WRONG_SOLVE_PENALTY
                    if edition == 0:
                        score[b, p] = max(SCORE_FLOOR, score[b, p] - WRONG_SOLVE_PENALTY)
                    else:
                        score[b, p] = solve_points[b, p] - penalty[b, p]
                last_answer[b, 0] = 0
        turn[b] += 1
        # §7: the first solve attempt of a duel round decides it (-1 draw, else the winner)
        decided = -3
        if duel:
            if extra_turn[b]:
                extra_turn[b] = False
                if a >= SOLVE_BASE and correct:
                    decided = -1
                else:
                    decided = first_player[b]
            elif a >= SOLVE_BASE:
                if not correct:
                    decided = 1 - p
                elif p == first_player[b]:
                    extra_turn[b] = True
                else:
                    decided = p
        round_over = decided != -3
        if not round_over:
            # advance to the next unsolved seat; every pass of the last seat ends a rotation (§4)
            q = p
            while True:
                last_seat = (first_player[b] + num_players - 1) % num_players
                if q == last_seat:
                    nick_end = False
                    any_solved = False
                    for i in range(num_players):
                        if solved[b, i]:
                            any_solved = True
                    if nick and any_solved:
                        # §6 nick of time: the tier advances every rotation after the first solve;
                        # the rotation played at the last tier ends the round
                        if tier[b] >= last_tier:
                            nick_end = True
                        else:
                            tier[b] += 1
                        solved_this_rotation[b] = False
                    elif solved_this_rotation[b]:
                        tier[b] += 1
                        solved_this_rotation[b] = False
                    rotation[b] += 1
                    end = nick_end
                    if not duel:
                        open_ = 0
                        for i in range(num_players):
                            if edition == 0:
                                if not attempted[b, i]:
                                    open_ += 1
                            elif not solved[b, i]:
                                open_ += 1
                        if open_ <= 1:
                            end = True
                    if not end and rotation[b] >= max_rotations:
                        end = True
                        truncated[b] = True
                        decided = -1  # a duel round ended by the safeguard is a draw
                    if end:
                        round_over = True
                        break
                q = (q + 1) % num_players
                if not solved[b, q]:
                    current_player[b] = q
                    break
        if round_over:
            finished = False
            if duel:
                round_winner[b] = decided
                extra_turn[b] = False
                if decided >= 0:
                    score[b, decided] += 1
                    rewards[b, decided] += 1
                    rewards[b, 1 - decided] -= 1
            round_[b] += 1
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
            else:
                if duel:
                    # §7: 2 more tiles after every round, at most 5; the winner gives one back
                    for i in range(num_players):
                        gain = 1 if i == decided else 2
                        inv_left[b, i] = min(MAX_INVESTIGATORS, inv_left[b, i] + gain)
                first_player[b] = (first_player[b] + 1) % num_players
                _setup_round(b, num_players, rng, round_, first_player, current_player,
                             rotation, tier, solved_this_rotation, tile_district,
                             district_tile, case, card_place, deck, deck_size, front,
                             spot, trace, inv_count, inv_district, inv_answer,
                             inv_markers, inv_suppressed, attempted, solved, solved_case,
                             failed, extra_turn)
        if not duel:
            for i in range(num_players):
                rewards[b, i] += score[b, i]


def _twin(fn, suffix):
    """A copy of ``fn`` with its own name, so that numba compiles (and caches) it separately."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + suffix
    return twin


_step_games_rule_step = rule_step(_twin(_monolithic_step_games, "_rule_step"))
_step_games_counted = kernel(_twin(_monolithic_step_games, "_counted"))


@batch_kernel
def _step_kernel_rule_step(actions, rejected, num_players, rules, num_rounds, max_rotations, adjacency, *S):
    n = actions.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_games_rule_step(c * CHUNK, min(n, (c + 1) * CHUNK), actions, rejected, num_players, rules,
                              num_rounds, max_rotations, adjacency, *S)


@batch_kernel
def _step_kernel_counted(actions, rejected, num_players, rules, num_rounds, max_rotations, adjacency, *S):
    n = actions.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_games_counted(c * CHUNK, min(n, (c + 1) * CHUNK), actions, rejected, num_players, rules,
                            num_rounds, max_rotations, adjacency, *S)


BUILDS = {"rule_step": _step_kernel_rule_step, "counted": _step_kernel_counted}
"""The two builds of the one-function step: ``"rule_step"`` with the named steps' compiler
settings, ``"counted"`` with numba's reference counting (how the engine compiled it before)."""


def step_monolithic(state: State, actions: np.ndarray, config: GameConfig, build: str = "rule_step",
                    parallel: bool | None = False) -> np.ndarray:
    """Step ``state`` in place with the one-function step kernel (unchecked, as
    ``step_inplace(..., check=False)``: an illegal action is a flagged no-op).

    Args:
        state: ``B`` games.
        actions: ``int[B]``.
        config: their rules.
        build: ``"rule_step"`` or ``"counted"`` (:data:`BUILDS`).
        parallel: threaded (``True``), one thread (``False``, default) or by batch size (``None``).

    Returns:
        ``bool[B]``: the games that ignored their action.

    Raises:
        PIError: a config for another player count; InvalidActionError: not ``int[B]``.
        KeyError: an unknown build.
    """
    check_config(state, config)
    a = action_array(actions, state.batch_size, check_range=False)
    rejected = np.zeros(state.batch_size, dtype=bool)
    BUILDS[build].for_batch(state.batch_size, parallel)(
        a, rejected, config.num_players, config.rules_code, config.num_rounds, config.max_rotations,
        config.board.adjacency, *state.arrays())
    return rejected
