"""The ``heuristic`` agent in batch: :class:`HeuristicOpponent` plays every game it is asked about
with the decisions of :class:`pi_env.agents.heuristic.HeuristicAgent`, game by game the same actions
(tested on many seeded games), at batch speed.

Per call, for the players to move in the games asked about:

* their own-information case sets in one :func:`pi_env.solvers.own_info.own_features` call (the set
  :func:`~pi_env.solvers.own_info.observation_case_mask` gives the agent from its observation);
* one numba kernel (:func:`_decide_kernel`) over the rows: the information gain (bits, ``float64``,
  the entropy of the answer distribution over the open cases, as
  :func:`pi_env.solvers.hints.information_gains` of :func:`~pi_env.solvers.hints.answer_matrix`) of
  every legal clue card and investigator, then the agent's rules (its module docstring: solve when
  certain, the investigator rule, the clue of highest gain preferring cards of the held case, wait or
  guess), ending in the list of equally good actions the agent draws from;
* the draws: one numpy ``Generator`` per game slot, seeded in :meth:`HeuristicOpponent.new_games`
  as :class:`pi_env.rl.pool.AgentOpponent` seeds its agent (``Agent.reset(..., seed)``), asked
  ``integers(k)`` exactly when the agent asks its own (a choice among ``k > 1`` actions, or a guess
  among the ``k`` open cases), so the stream of draws is the agent's.

What a player may know only (docs/rules.md §9): the state is read through the layout, the
player's own markers, investigators and tiles left, the round, rotation and others' solved flags,
and the case it holds (``state.case`` of the next player) — never its own case.
"""

from __future__ import annotations

import numpy as np

from pi_env.agents.heuristic import GUESS_MAX, INDIFFERENCE, INVESTIGATE_MIN_OPEN, ROUNDS, WAIT_ROTATIONS
from pi_env.core._config import kernel
from pi_env.core.errors import PIError
from pi_env.core.constants import INVESTIGATE_BASE, NUM_CASES, NUM_DISTRICTS, NUM_ELEMENTS, SOLVE_BASE
from pi_env.engine import GameConfig, State, legal_action_mask
from pi_env.solvers.hints import GAIN_TOLERANCE, tied_with_best
from pi_env.solvers.own_info import district_codes, own_features

__all__ = ["HeuristicOpponent", "heuristic_choices"]

PICK = 0
"""Kind of a row's result: draw one of its listed actions (no draw when only one is listed)."""
GUESS = 1
"""Kind of a row's result: name one of the open cases, drawn uniformly (the agent's last rule)."""
_NUM_QUERIES = INVESTIGATE_BASE + NUM_DISTRICTS  # 50


@kernel
def _entropy(hist, size, n):
    """Entropy (bits) of the answer counts ``hist[:size]`` of ``n`` equally likely cases."""
    inv_n = 1.0 / n
    g = 0.0
    for k in range(size):
        if hist[k] > 0:
            m = hist[k] * inv_n
            g -= m * np.log2(m)
    return max(g, 0.0)


@kernel
def _open_cases(mask_row, td, members, cnt, near_d):
    """List the open cases of ``mask_row`` (``bool[1680]``): their element ids into ``members[:n]``,
    per element how many contain it (``cnt``), per district how many have an element tile there
    (``near_d``); returns ``n``."""
    n = 0
    cnt[:] = 0
    near_d[:] = 0
    for c in range(NUM_CASES):
        if mask_row[c]:
            s = c // 140
            e = 12 + (c // 14) % 10
            lo = 22 + c % 14
            members[n, 0] = s
            members[n, 1] = e
            members[n, 2] = lo
            n += 1
            cnt[s] += 1
            cnt[e] += 1
            cnt[lo] += 1
            ds = td[s]
            de = td[e]
            dl = td[lo]
            near_d[ds] += 1
            if de != ds:
                near_d[de] += 1
            if dl != ds and dl != de:
                near_d[dl] += 1
    return n


@kernel
def _query_gains(legal_row, td, adjacency, markers_row, members, cnt, n, tolerance, gains, useful, elcode, hist):
    """Gains (bits, ``gains``; ``-inf`` where not computed) and usefulness (``useful``: gain above
    ``tolerance``) of the legal queries for the ``n`` open cases ``members`` (:func:`_open_cases`).
    Investigators are only tested for usefulness (their answer differs between two open cases)
    unless no clue card is useful, when their gains rank them. Returns whether a clue card is
    useful."""
    gains[:] = -np.inf
    useful[:] = False
    # clue cards: spot for the card's own element, trace for same-type elements next to it
    any_clue = False
    for x in range(NUM_ELEMENTS):
        if not legal_row[x]:
            continue
        t0 = 0 if x < 12 else (12 if x < 22 else 22)
        t1 = 12 if x < 12 else (22 if x < 22 else 36)
        hist[1] = 0
        for y in range(t0, t1):
            if y != x and adjacency[td[y], td[x]]:
                hist[1] += cnt[y]
        hist[2] = cnt[x]
        hist[0] = n - hist[1] - hist[2]
        gains[x] = _entropy(hist, 3, n)
        useful[x] = gains[x] > tolerance
        any_clue = any_clue or useful[x]
    # investigators: useful when the answer is not the same for every open case
    for d in range(NUM_DISTRICTS):
        if not legal_row[INVESTIGATE_BASE + d]:
            continue
        district_codes(td, adjacency, markers_row, d, elcode)
        first = elcode[members[0, 0]] + elcode[members[0, 1]] + elcode[members[0, 2]]
        for i in range(1, n):
            if elcode[members[i, 0]] + elcode[members[i, 1]] + elcode[members[i, 2]] != first:
                useful[INVESTIGATE_BASE + d] = True
                break
        if not any_clue and useful[INVESTIGATE_BASE + d]:  # then ranked by gain (rule 4)
            hist[:] = 0
            for i in range(n):
                hist[elcode[members[i, 0]] + elcode[members[i, 1]] + elcode[members[i, 2]]] += 1
            gains[INVESTIGATE_BASE + d] = _entropy(hist, 16, n)
            useful[INVESTIGATE_BASE + d] = gains[INVESTIGATE_BASE + d] > tolerance
    return any_clue


@kernel
def _decide_kernel(case_mask, legal, tile_district, adjacency, markers, held, placed, left, round_,
                   rotation, others_playing, rounds, min_open, indifference, guess_max, wait_rotations,
                   tolerance, kind, choices, count):
    """The heuristic agent's rules for every row ``b`` (module docstring).

    Args:
        case_mask: ``bool[B, 1680]`` the player's open cases.
        legal: ``bool[B, 50]`` legal clue / investigator actions.
        tile_district: ``int8[B, 36]``; adjacency: ``bool[14, 14]``.
        markers: ``bool[B, 36]`` the player's spot or trace markers (suppression, docs/rules.md §4.2).
        held: ``int64[B, 3]`` element ids of the case the player holds.
        placed, left: ``int64[B]`` its investigators placed this round / tiles left.
        round_, rotation: ``int64[B]``; others_playing: ``bool[B]`` some other player has not solved.
        rounds ... tolerance: the agent's constants.
        kind: ``int64[B]`` out, :data:`PICK` or :data:`GUESS`.
        choices: ``int64[B, 50]`` out, the actions to draw from (ascending), ``count[b]`` of them
            (for :data:`GUESS`: ``count[b]`` is the number of open cases).

    The investigators' gains are computed only where a rule reads them: whether an answer can
    differ between open cases for the investigator rule, the full gains only when no clue card is
    useful.
    """
    B = case_mask.shape[0]
    members = np.empty((NUM_CASES, 3), dtype=np.int64)  # the open cases' element ids
    cnt = np.empty(NUM_ELEMENTS, dtype=np.int64)  # open cases per element
    near_d = np.empty(NUM_DISTRICTS, dtype=np.int64)  # open cases with an element tile in d
    gains = np.empty(_NUM_QUERIES)
    useful = np.empty(_NUM_QUERIES, dtype=np.bool_)
    pool = np.empty(_NUM_QUERIES, dtype=np.bool_)
    of_held = np.empty(NUM_ELEMENTS, dtype=np.bool_)
    elcode = np.empty(NUM_ELEMENTS, dtype=np.int64)
    hist = np.empty(16, dtype=np.int64)
    for b in range(B):
        td = tile_district[b]
        n = _open_cases(case_mask[b], td, members, cnt, near_d)
        kind[b] = PICK
        if n == 0:  # cannot happen with correct answers: the last legal action (as the agent)
            count[b] = 0
            continue
        if n == 1:
            for c in range(NUM_CASES):
                if case_mask[b, c]:
                    choices[b, 0] = SOLVE_BASE + c
            count[b] = 1
            continue
        any_clue = _query_gains(legal[b], td, adjacency, markers[b], members, cnt, n, tolerance, gains, useful,
                                elcode, hist)
        # the investigator rule
        k = 0
        if n >= min_open:
            rounds_left = max(1, rounds - round_[b])
            share = -(-(left[b] + placed[b]) // rounds_left)
            if placed[b] < share:
                most = -1
                for d in range(NUM_DISTRICTS):
                    if useful[INVESTIGATE_BASE + d] and near_d[d] > most:
                        most = near_d[d]
                for d in range(NUM_DISTRICTS):
                    if useful[INVESTIGATE_BASE + d] and near_d[d] == most:
                        choices[b, k] = INVESTIGATE_BASE + d
                        k += 1
        if k > 0:
            count[b] = k
            continue
        of_held[:] = False
        for t in range(3):
            of_held[held[b, t]] = True
        pool[:] = False
        if any_clue:  # a useful clue: the nearly best ones, cards of the held case first
            best = -np.inf
            for x in range(NUM_ELEMENTS):
                if useful[x] and gains[x] > best:
                    best = gains[x]
            denial = False
            for x in range(NUM_ELEMENTS):
                if useful[x] and gains[x] >= best * (1 - indifference):
                    pool[x] = True
                    denial = denial or of_held[x]
            if denial:
                for x in range(NUM_ELEMENTS):
                    pool[x] = pool[x] and of_held[x]
        else:
            for a in range(_NUM_QUERIES):
                pool[a] = useful[a]
        top = -np.inf
        for a in range(_NUM_QUERIES):
            if pool[a] and gains[a] > top:
                top = gains[a]
        if top > -np.inf:
            for a in range(_NUM_QUERIES):
                if pool[a] and tied_with_best(gains[a], top):
                    choices[b, k] = a
                    k += 1
            count[b] = k
            continue
        # nothing to learn: wait (take a card, of the held case if possible) or guess
        n_clues = 0
        n_mine = 0
        for x in range(NUM_ELEMENTS):
            if legal[b, x]:
                n_clues += 1
                if of_held[x]:
                    n_mine += 1
        if n > guess_max and n_clues > 0 and others_playing[b] and rotation[b] < wait_rotations:
            for x in range(NUM_ELEMENTS):
                if legal[b, x] and (n_mine == 0 or of_held[x]):
                    choices[b, k] = x
                    k += 1
            count[b] = k
            continue
        kind[b] = GUESS
        count[b] = n


def heuristic_choices(state: State, board, players: np.ndarray,
                      parallel: "bool | None" = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The heuristic agent's choice sets for ``players[b]`` in every game ``b`` of ``state``.

    Args:
        state: a batch of ``B`` games (the players are to move).
        board: the games' board (``config.board``).
        players: ``int64[B]``.
        parallel: passed to :func:`~pi_env.solvers.own_info.own_features` (the decision kernel is
            serial).

    Returns:
        ``(kind, choices, count, case_mask)``: ``int64[B]`` :data:`PICK` / :data:`GUESS`,
        ``int64[B, 50]`` and ``int64[B]`` the actions to draw from (a guess draws among the
        ``count`` open cases of ``bool[B, 1680]`` ``case_mask`` instead); ``count == 0`` only for an
        empty case set (the agent then plays its last legal action).
    """
    B = state.batch_size
    players = np.ascontiguousarray(players, dtype=np.int64)
    mask = np.empty((B, NUM_CASES), dtype=np.bool_)
    own_features(state, board, players, mask=mask, parallel=parallel)
    legal = np.ascontiguousarray(legal_action_mask(state)[:, :_NUM_QUERIES] != 0)
    rows = np.arange(B)
    P = state.num_players
    held_case = state.case[rows, (players + 1) % P].astype(np.int64)  # the case the player holds
    held = held_case + np.array([0, 12, 22], dtype=np.int64)
    markers = np.ascontiguousarray(state.spot[rows, players] | state.trace[rows, players])
    placed = state.inv_count[rows, players].astype(np.int64)
    left = state.inv_left[rows, players].astype(np.int64)
    others = state.solved.copy()
    others[rows, players] = True
    others_playing = ~others.all(axis=1)
    kind = np.empty(B, dtype=np.int64)
    choices = np.zeros((B, _NUM_QUERIES), dtype=np.int64)
    count = np.zeros(B, dtype=np.int64)
    _decide_kernel(mask, legal, np.ascontiguousarray(state.tile_district), board.adjacency, markers, held,
                   placed, left, state.round.astype(np.int64), state.rotation.astype(np.int64),
                   others_playing, ROUNDS, INVESTIGATE_MIN_OPEN, INDIFFERENCE, GUESS_MAX, WAIT_ROTATIONS,
                   GAIN_TOLERANCE, kind, choices, count)
    return kind, choices, count, mask


class HeuristicOpponent:
    """``heuristic`` as a batch opponent (module docstring): the actions of
    :class:`~pi_env.agents.heuristic.HeuristicAgent` seeded per game by :meth:`new_games`.

    Args:
        config: the games' rules.
    """

    name = "heuristic"

    def __init__(self, config: GameConfig):
        self.config = config
        self._rngs: dict[int, np.random.Generator] = {}

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        """Seed game slot ``games[k]``'s generator with ``seeds[k]`` (as ``Agent.reset``)."""
        for b, s in zip(games, seeds):
            self._rngs[int(b)] = np.random.default_rng(int(s))

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``int64[len(games)]``: the action of ``players[k]`` in game ``games[k]`` of ``state``."""
        sub = state.take(games)
        kind, choices, count, mask = heuristic_choices(sub, self.config.board, players)
        out = choices[:, 0].copy()
        for r in np.flatnonzero((count != 1) | (kind == GUESS)):
            rng = self._rngs.get(int(games[r]))
            if rng is None:
                raise PIError(f"heuristic opponent: game slot {int(games[r])} was never started "
                              f"(call new_games before act_batch)")
            k = int(count[r])
            if kind[r] == GUESS:
                out[r] = SOLVE_BASE + int(np.flatnonzero(mask[r])[rng.integers(k)])
            elif k == 0:
                out[r] = int(np.flatnonzero(legal_action_mask(sub.take(np.array([r])))[0])[-1])
            else:
                out[r] = choices[r, rng.integers(k)]
        return out
