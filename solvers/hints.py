"""Hints for one player: what is certain, whether to solve now, and which query to take next
(docs/rules.md §4, §5, §9).

:func:`hint` starts from p's case distribution — by default the exact joint posterior of
:func:`~pi_env.solvers.analysis.analyze_knowledge` (``Analysis.cases`` / ``.probabilities``), or with
``joint=False`` the uniform distribution over p's own-information cases — and reports:

* **certain**: the elements in every case of the distribution;
* **solving now**: ``best_case`` (the most likely case, ties to the lowest case id),
  ``p_correct`` (its probability) and the expected points of naming it now,

  ``expected_points = p_correct · points(tier, round) − (1 − p_correct) · 2``

  with ``points = [7, 5, 3, 1][tier] + (round − 1)`` in the second edition and ``[7, 5, 3, 1][tier]``
  in the first (docs/rules.md §5; :func:`pi_env.engine.ranking.tier_points`, 0 for a tier the player count does
  not have); with the player's score known (``TurnContext.score``) the second edition's cap and
  floor apply; a duel counts round results (:func:`pi_env.solvers.turns.solve_value`);
* **waiting**: one more query — the best one — then solving on the next turn, worth
  ``wait_expected_points`` by the rules of the position: whether that turn comes this round and
  at which tier (:mod:`pi_env.solvers.turns`; ``wait_outcomes`` lists the ways the rotation can go);
* **solve_now**: ``p_correct == 1``, or ``expected_points > 0`` and at least the value of waiting
  (a duel's one more turn: always);
* **the best query**: the candidate clue or investigator with the highest expected information
  gain, and the gain of every candidate (``gains``). An answer to p's query constrains only p's
  case, so the posterior after answer ``k`` is the current distribution restricted to the cases
  answering ``k``; the expected entropy reduction of p's case distribution is therefore the
  entropy (bits) of the answer distribution, ``−Σ_k P(k) log2 P(k)`` with ``P(k)`` the total
  probability of the cases answering ``k``;
* **expected_remaining_actions** under the greedy policy (:func:`greedy_expected_actions`).

Candidate actions (docs/rules.md §4.1, §4.2): given ``legal_actions`` (an engine action mask or action
ids), its clue (``0..35``) and investigator (``36..49``) actions. Without it — a record with no
known display — every clue card not yet answered *nothing* by anyone (those cards left circulation
for the round), and an investigator in each district p has not investigated this round unless
``investigators_left == 0``.

Answer codes (``answer_matrix``): a clue answers ``0`` nothing, ``1`` trace, ``2`` spot; an
investigator answers ``4 · spots + traces`` (``0..15``) after p's suppressed types are cleared (a
type whose tile in the district already carries p's marker, docs/rules.md §4.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.constants import INVESTIGATE_BASE, NUM_ACTIONS, NUM_DISTRICTS, NUM_ELEMENTS, SOLVE_BASE
from pi_env.core.rules import WRONG_SOLVE_PENALTY, investigator_placeable
from pi_env.core._config import kernel
from pi_env.core.board import DAYTIME
from pi_env.core.named import Action, Case, Element
from pi_env.core.names import element_names
from pi_env.engine.ranking import tier_points

from pi_env.solvers.analysis import Analysis, analyze_knowledge
from pi_env.solvers.case_sets import case_bits
from pi_env.solvers.knowledge import COL_A, COL_B, COL_KIND, CLUE_KIND, INVESTIGATE_KIND, Knowledge
from pi_env.solvers.tables import CASE_ELEMENTS
from pi_env.solvers.turns import (TurnContext, WaitOutcome, attempt_hazard, solve_value, wait_outcomes,
                                  wait_value)

__all__ = ["Hint", "hint", "candidate_actions", "answer_matrix", "information_gains",
           "greedy_expected_actions", "greedy_expected_actions_reference", "solve_now_rule",
           "suppression_masks", "GAIN_TOLERANCE", "attempt_hazards", "opponent_reply", "public_counts",
           "best_gain_index", "best_gain_ties", "tied_with_best"]

GAIN_TOLERANCE = 1e-9
"""Gains within this many bits of the best count as ties (ties go to the lowest action id)."""


@kernel
def tied_with_best(gain: float, best: float) -> bool:
    """Whether ``gain`` counts as tied with the best gain ``best`` (within :data:`GAIN_TOLERANCE`):
    the one tie-break of pi-env, a numba function callable from Python and from kernels."""
    return gain >= best - GAIN_TOLERANCE


@kernel
def best_gain_index(gains: np.ndarray) -> int:
    """The best-gain selection of pi-env: the index of the highest entry of ``gains``, ties within
    :data:`GAIN_TOLERANCE` going to the first one. Candidate actions are listed by ascending id
    everywhere, so this is "highest information gain, ties to the lowest action id", the choice of
    the greedy policies (hints, solo rating, agents, the solo optimum's rollouts).

    A numba function: it is called the same way from Python and from inside numba kernels.

    Args:
        gains: ``float[A]`` gains (bits) or any score to maximise; ``-inf`` marks an excluded entry.

    Returns:
        The index ``0..A-1``; ``-1`` when ``A == 0``.

    >>> int(best_gain_index(np.array([0.5, 1.0, 1.0 - 1e-12, 0.9])))
    1
    """
    n = gains.shape[0]
    if n == 0:
        return -1
    best = gains[0]
    for i in range(1, n):
        if gains[i] > best:
            best = gains[i]
    for i in range(n):
        if tied_with_best(gains[i], best):
            return i
    return -1  # only NaN entries


def best_gain_ties(gains: np.ndarray) -> np.ndarray:
    """``bool[A]``: the entries of ``gains`` tied with the highest within :data:`GAIN_TOLERANCE` —
    the set a randomised agent draws from; :func:`best_gain_index` is the first of them.

    >>> best_gain_ties(np.array([0.5, 1.0, 1.0 - 1e-12, 0.9])).tolist()
    [False, True, True, False]
    """
    g = np.asarray(gains, dtype=np.float64)
    return g >= g.max() - GAIN_TOLERANCE if g.size else np.zeros(0, dtype=bool)

_POPCOUNT3 = np.array([0, 1, 1, 2, 1, 2, 2, 3], dtype=np.int16)
_ELEMENT_TYPE = np.repeat(np.arange(3), [12, 10, 14])


@dataclass(frozen=True, eq=False)
class Hint:
    """Advice for player ``player`` at one position (see the module docstring).

    Attributes:
        player: the player p.
        count: cases in p's distribution (``Analysis.count``, or ``own_count`` with
            ``joint=False``).
        entropy: entropy of that distribution, bits.
        certain: element ids (0..35) in every case of the distribution, ascending
            (:class:`~pi_env.core.named.Element`: prints the name).
        best_case: the most likely case (ties: lowest id), a :class:`~pi_env.core.named.Case`
            (prints ``suspect / evidence / location``); ``-1`` when ``count == 0``.
        p_correct: its probability = P(correct) if p solves now with ``best_case``.
        tier, round_index: the position's tier and 0-based round; ``points``: points for a correct
            solve there (docs/rules.md §5).
        expected_points: ``E_now``, the expected score change of solving now:
            ``p_correct · points − (1 − p_correct) · 2`` (floor and cap applied when the score is
            known; duel: the expected round result, +1 win / 0 draw / −1 loss;
            :func:`pi_env.solvers.turns.solve_value`).
        wait_expected_points: ``E_wait``, the value of one more query then solving on the next
            turn, by the rules of the position (:func:`pi_env.solvers.turns.wait_value`).
        solve_now: solve when ``p_correct == 1``, or when ``E_now > 0`` and ``E_now ≥ E_wait``
            (in a duel's one more turn: always, anything else loses).
        best_action: the candidate action id with the highest gain (ties: lowest id), an
            :class:`~pi_env.core.named.Action` (prints ``clue Pinky``), or ``None`` when no candidate
            has a positive gain.
        best_gain: its gain in bits (0.0 if ``best_action`` is ``None``).
        gains: ``{action id: gain in bits}`` for every candidate action, ascending ids (the keys
            are :class:`~pi_env.core.named.Action`).
        expected_remaining_actions: expected number of actions p still takes under the greedy
            policy, the final solve(s) included (:func:`greedy_expected_actions`); ``None`` if not
            computed.
        q_after: expected probability of the most likely case after the best query
            (``Σ_k max_{c answering k} P(c)``; ``p_correct`` when no query helps).
        wait_outcomes: how the rest of the rotation can go before p's next turn, with
            probabilities and values (:class:`pi_env.solvers.turns.WaitOutcome`).
        context: the :class:`pi_env.solvers.turns.TurnContext` used.
        reply: duel, p the round's first player: the opponent's chance to draw with a correct
            solve in its one more turn (:func:`opponent_reply`); else ``None``.
    """

    player: int
    count: int
    entropy: float
    certain: tuple[int, ...]
    best_case: int
    p_correct: float
    tier: int
    round_index: int
    points: int
    expected_points: float
    wait_expected_points: float
    solve_now: bool
    best_action: int | None
    best_gain: float
    gains: dict[int, float] = field(repr=False)
    expected_remaining_actions: float | None = None
    q_after: float = 0.0
    wait_outcomes: tuple[WaitOutcome, ...] = field(default=(), repr=False)
    context: TurnContext | None = field(default=None, repr=False)
    reply: float | None = None

    @property
    def next_turn(self) -> str:
        """Whether waiting leads to another turn this round: ``"yes"``, ``"no"`` or ``"maybe"``
        (it depends on what the players after p do)."""
        chances = [o.probability for o in self.wait_outcomes if o.next_turn]
        if not self.wait_outcomes or sum(chances) >= 1.0 - 1e-12:
            return "yes"
        return "no" if not chances else "maybe"

    def ranked_gains(self) -> list[tuple[int, float]]:
        """``(action, bits)`` pairs, highest gain first, ties by action id."""
        return sorted(self.gains.items(), key=lambda kv: (-kv[1], kv[0]))


# ---------------------------------------------------------------------------------------------
# building blocks


def _player_markers(knowledge: Knowledge) -> np.ndarray:
    """``bool[36]``: tiles carrying p's marker (p's clues answered spot or trace)."""
    mine = knowledge.events_of(knowledge.player)
    clues = mine[(mine[:, COL_KIND] == CLUE_KIND) & (mine[:, COL_B] > 0)]
    marked = np.zeros(NUM_ELEMENTS, dtype=bool)
    marked[clues[:, COL_A]] = True
    return marked


def suppression_masks(knowledge: Knowledge) -> np.ndarray:
    """``int64[14]``: per district, the 3-bit mask of p's suppressed types (bit t: p has a marker
    on the type-t tile in the district; docs/rules.md §4.2)."""
    marked = np.flatnonzero(_player_markers(knowledge))
    sup = np.zeros(NUM_DISTRICTS, dtype=np.int64)
    np.bitwise_or.at(sup, knowledge.tile_district[marked].astype(np.int64),
                     np.left_shift(1, _ELEMENT_TYPE[marked]))
    return sup


def candidate_actions(knowledge: Knowledge, legal_actions: "np.ndarray | Iterable[int] | None" = None,
                      investigators_left: int | None = None) -> np.ndarray:
    """Query actions to rank for player p (docs/rules.md §4.1, §4.2).

    Args:
        knowledge: what p knows.
        legal_actions: ``None``, a ``[1730]`` 0/1 action mask, or action ids. Given, its clue and
            investigator actions are the candidates (solve actions are ignored).
        investigators_left: p's unused investigator tiles (only used without ``legal_actions``;
            ``None`` = unknown, treated as some left).

    Returns:
        ``int64[A]`` action ids, ascending (clues ``0..35``, investigators ``36..49``).
    """
    if legal_actions is not None:
        arr = np.asarray(sorted(legal_actions) if isinstance(legal_actions, (set, frozenset))
                         else legal_actions).reshape(-1)
        is_mask = arr.dtype == bool or (arr.size == NUM_ACTIONS and set(np.unique(arr).tolist()) <= {0, 1})
        ids = np.flatnonzero(arr) if is_mask else np.unique(arr.astype(np.int64))
        return ids[(ids >= 0) & (ids < SOLVE_BASE)].astype(np.int64)
    ev = knowledge.events
    out_of_play = ev[(ev[:, COL_KIND] == CLUE_KIND) & (ev[:, COL_B] == 0), COL_A]
    clues = np.setdiff1d(np.arange(NUM_ELEMENTS), out_of_play)
    mine = knowledge.events_of(knowledge.player)
    used = set(mine[mine[:, COL_KIND] == INVESTIGATE_KIND, COL_A].tolist())
    left = 1 if investigators_left is None else int(investigators_left)  # unknown: some left
    districts = np.array([d for d in range(NUM_DISTRICTS) if investigator_placeable(left, d in used)], dtype=np.int64)
    return np.concatenate([clues, INVESTIGATE_BASE + districts]).astype(np.int64)


def answer_matrix(knowledge: Knowledge, actions: np.ndarray, cases: np.ndarray) -> np.ndarray:
    """Answer of every candidate action for every case, as p would receive it.

    Args:
        knowledge: gives the layout and p's markers (for suppression).
        actions: ``int[A]`` clue / investigator action ids.
        cases: ``int[N]`` case ids.

    Returns:
        ``int16[A, N]`` answer codes: clue ``0/1/2``, investigator ``4 · spots + traces``.
    """
    actions = np.asarray(actions, dtype=np.int64)
    cases = np.asarray(cases, dtype=np.int64)
    tables = knowledge.tables
    out = np.empty((actions.size, cases.size), dtype=np.int16)
    is_clue = actions < INVESTIGATE_BASE
    out[is_clue] = tables.clue_answers[np.ix_(actions[is_clue], cases)]
    if (~is_clue).any():
        d = actions[~is_clue] - INVESTIGATE_BASE
        keep = (7 & ~suppression_masks(knowledge)[d])[:, None]
        spots = _POPCOUNT3[tables.investigation_spots[np.ix_(d, cases)] & keep]
        traces = _POPCOUNT3[tables.investigation_traces[np.ix_(d, cases)] & keep]
        out[~is_clue] = spots * 4 + traces
    return out


def _entropy_rows(mass: np.ndarray) -> np.ndarray:
    """Entropy (bits) of each row of a non-negative ``[A, K]`` array summing to 1 per row."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(mass > 0, -mass * np.log2(mass), 0.0)
    return np.maximum(terms.sum(axis=1), 0.0)


def _answer_mass(answers: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``float64[A, 16]``: total weight of the cases giving each answer code, per action."""
    a, n = answers.shape
    codes = answers.astype(np.int64) + 16 * np.arange(a)[:, None]
    return np.bincount(codes.ravel(), weights=np.tile(weights, a), minlength=16 * a).reshape(a, 16)


def information_gains(answers: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Expected information gain (bits) of each action: the entropy of its answer distribution.

    Args:
        answers: ``int[A, N]`` answer codes ``0..15`` (:func:`answer_matrix`).
        weights: ``float[N]`` case probabilities (normalised here).

    Returns:
        ``float64[A]``.
    """
    w = np.asarray(weights, dtype=np.float64)
    if answers.shape[0] == 0 or w.size == 0:
        return np.zeros(answers.shape[0])
    return _entropy_rows(_answer_mass(np.asarray(answers), w / w.sum()))


def _guess_actions(w: np.ndarray) -> float:
    """Expected solve attempts naming the cases in decreasing probability until right."""
    p = np.sort(w / w.sum())[::-1]
    return float((np.arange(1, p.size + 1) * p).sum())


def _check_greedy_args(answers, weights, is_investigation):
    answers = np.ascontiguousarray(answers, dtype=np.int16)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if answers.ndim != 2 or answers.shape[1] != w.size:
        raise PIError(f"answers must be int[A, N] with N = len(weights), got {answers.shape} and {w.size}")
    if answers.size and (answers.min() < 0 or answers.max() > 15):
        raise PIError("answer codes must be in 0..15")
    inv = (np.zeros(answers.shape[0], dtype=np.bool_) if is_investigation is None
           else np.ascontiguousarray(is_investigation, dtype=np.bool_))
    if inv.shape != (answers.shape[0],):
        raise PIError(f"is_investigation must be bool[{answers.shape[0]}], got shape {inv.shape}")
    return answers, w, inv


@kernel
def _greedy_kernel(answers, weights, inv, limit, tol):
    """Numba form of :func:`greedy_expected_actions_reference`: the greedy tree is a partition
    of the cases, walked with an explicit stack of segments of one permutation array; returns
    ``Σ_leaves w(leaf) · (queries on the path + solve attempts at the leaf)`` (unnormalised)."""
    A, N = answers.shape
    perm = np.arange(N)
    tmp = np.empty(N, dtype=np.int64)
    st_start = np.empty(2 * N + 1, dtype=np.int64)
    st_end = np.empty(2 * N + 1, dtype=np.int64)
    st_depth = np.empty(2 * N + 1, dtype=np.int64)
    st_left = np.empty(2 * N + 1, dtype=np.int64)
    st_start[0], st_end[0], st_depth[0], st_left[0] = 0, N, 0, limit
    sp = 1
    total = 0.0
    mass = np.zeros(16)
    gains = np.zeros(A)
    counts = np.zeros(17, dtype=np.int64)
    while sp > 0:
        sp -= 1
        s, e, depth, left = st_start[sp], st_end[sp], st_depth[sp], st_left[sp]
        seg_w = 0.0
        for i in range(s, e):
            seg_w += weights[perm[i]]
        if e - s == 1:
            total += seg_w * (depth + 1)
            continue
        best_g = 0.0
        for a in range(A):
            gains[a] = -1.0
            if left == 0 and inv[a]:
                continue
            mass[:] = 0.0
            for i in range(s, e):
                c = perm[i]
                mass[answers[a, c]] += weights[c]
            g = 0.0
            for k in range(16):
                if mass[k] > 0:
                    q = mass[k] / seg_w
                    g -= q * np.log2(q)
            gains[a] = max(g, 0.0)
            best_g = max(best_g, gains[a])
        if best_g <= tol:  # nothing splits: name the cases in decreasing probability
            ws = np.sort(weights[perm[s:e]])[::-1]
            for i in range(ws.size):
                total += ws[i] * (depth + i + 1)
            continue
        b = best_gain_index(gains)
        counts[:] = 0
        for i in range(s, e):
            counts[answers[b, perm[i]] + 1] += 1
        for k in range(16):
            counts[k + 1] += counts[k]
        for k in range(16):  # children as segments, in answer order
            if counts[k + 1] > counts[k]:
                st_start[sp] = s + counts[k]
                st_end[sp] = s + counts[k + 1]
                st_depth[sp] = depth + 1
                st_left[sp] = left - 1 if (left > 0 and inv[b]) else left
                sp += 1
        for i in range(s, e):
            k = answers[b, perm[i]]
            tmp[s + counts[k]] = perm[i]
            counts[k] += 1
        for i in range(s, e):
            perm[i] = tmp[i]
    return total


def greedy_expected_actions(answers: np.ndarray, weights: np.ndarray,
                            is_investigation: np.ndarray | None = None,
                            investigators_left: int | None = None) -> float:
    """Expected number of actions p still needs under the greedy policy (numba kernel).

    Greedy policy: with one case left, solve (1 action). Otherwise take the candidate with the
    highest information gain on the current set (ties within :data:`GAIN_TOLERANCE`: the first),
    observe the answer and continue with the cases giving it; if no candidate has a positive gain,
    name the remaining cases in decreasing probability until one is right (``Σ_i i · p_(i)``
    attempts). Exact recursion over the answers, each weighted by its probability under the given
    probabilities restricted to the current set:
    ``E(S) = 1 + Σ_k P(k | S) · E(S_k)``.

    Cost: every decision splits a set into at least two non-empty parts, so the greedy tree has
    fewer than ``N`` decision nodes and no set occurs twice (no memo is needed); a decision costs
    ``O(A · |S|)``, the whole tree ``O(A · N · depth)`` (about a millisecond for ``N = 1680``,
    at worst ``O(A · N²)``). No cap is needed.

    Simplifications (stated, not rules): the candidate set stays fixed along the recursion (the
    display does not change; the answer tables, including the suppression of investigators, are
    those of the current position), and other players' answers are not anticipated. With
    ``investigators_left`` given, investigator actions become unavailable once that many have been
    used along a path.

    Args:
        answers: ``int[A, N]`` answer codes ``0..15`` of the candidate actions for N cases
            (:func:`answer_matrix`).
        weights: ``float[N]`` case probabilities (normalised here).
        is_investigation: ``bool[A]``, which actions use an investigator tile.
        investigators_left: tiles left, ``None`` for no limit.

    Returns:
        The expected number of actions, the final solve attempt(s) included; ``0.0`` for N = 0.

    Raises:
        PIError: inconsistent shapes or answer codes outside ``0..15``.
    """
    answers, w, inv = _check_greedy_args(answers, weights, is_investigation)
    if w.size == 0:
        return 0.0
    limit = -1 if investigators_left is None else max(int(investigators_left), 0)
    return float(_greedy_kernel(answers, w / w.sum(), inv, limit, GAIN_TOLERANCE))


def greedy_expected_actions_reference(answers: np.ndarray, weights: np.ndarray,
                                      is_investigation: np.ndarray | None = None,
                                      investigators_left: int | None = None) -> float:
    """Plain-numpy recursive reference of :func:`greedy_expected_actions` (same arguments)."""
    answers, w_all, inv = _check_greedy_args(answers, weights, is_investigation)
    if w_all.size == 0:
        return 0.0

    def value(idx: np.ndarray, left: int) -> float:
        if idx.size == 1:
            return 1.0
        w = w_all[idx] / w_all[idx].sum()
        rows = np.flatnonzero(~inv) if left == 0 else np.arange(answers.shape[0])
        sub = answers[np.ix_(rows, idx)]
        gains = _entropy_rows(_answer_mass(sub, w)) if rows.size else np.zeros(0)
        if rows.size == 0 or gains.max() <= GAIN_TOLERANCE:
            return _guess_actions(w)
        b = best_gain_index(gains)
        codes = sub[b]
        nxt = left - 1 if (left > 0 and inv[rows[b]]) else left
        return 1.0 + sum(float(w[codes == k].sum()) * value(idx[codes == k], nxt) for k in np.unique(codes))

    limit = -1 if investigators_left is None else max(int(investigators_left), 0)
    return value(np.arange(w_all.size), limit)


def solve_now_rule(p_correct: float, points_now: int, q_after: float, points_wait: int) -> tuple[bool, float, float]:
    """The decision of :func:`hint` with plain values: the next turn assumed to come at a tier worth
    ``points_wait`` (a documented heuristic, not a rule of the game; :func:`hint` itself values
    waiting by the rules of the position, :mod:`pi_env.solvers.turns`).

    ``E_now = p · points_now − (1 − p) · 2``; ``E_wait = q · points_wait − (1 − q) · 2``, ``q`` the
    expected probability of the most likely case after the best query
    (``Σ_k max_{c answering k} P(c)``). Solve now when ``p == 1``, or when ``E_now > 0`` and
    ``E_now ≥ E_wait``.

    Returns:
        ``(solve_now, E_now, E_wait)``.
    """
    pen = WRONG_SOLVE_PENALTY
    e_now = p_correct * points_now - (1.0 - p_correct) * pen
    e_wait = q_after * points_wait - (1.0 - q_after) * pen
    return _decide(p_correct, e_now, e_wait), e_now, e_wait


def _decide(p_correct: float, e_now: float, e_wait: float, must: bool = False) -> bool:
    """Solve when certain, when forced (``must``: a duel's one more turn), or when ``E_now > 0`` and
    ``E_now ≥ E_wait``."""
    return (p_correct >= 1.0 - 1e-12) or must or (e_now > 0 and e_now >= e_wait)


def public_counts(knowledge: Knowledge) -> np.ndarray:
    """``int64[P]``: per player, the cases consistent with the public information of ``knowledge``
    alone (its answers and solves, without the case the asking player holds; docs/rules.md §9)."""
    public = Knowledge(knowledge.player, knowledge.n_players, knowledge.tile_district,
                       knowledge.adjacency, -1, knowledge.events)
    bits = np.ascontiguousarray(case_bits(public), dtype=np.uint64)
    return np.unpackbits(bits.view(np.uint8), axis=1).sum(axis=1).astype(np.int64)


def attempt_hazards(knowledge: Knowledge, context: TurnContext) -> dict[int, float]:
    """``{player: P(it attempts on its coming turn)}`` for the players who act before p's next turn
    (:func:`pi_env.solvers.turns.attempt_hazard` of each one's public case count)."""
    who = [1 - context.player] if context.duel else list(context.later)
    if not who or context.attempted is None:
        return {}
    counts = public_counts(knowledge)
    return {j: attempt_hazard(int(counts[j])) for j in who}


def opponent_reply(knowledge: Knowledge, case: int) -> float:
    """Duel (docs/rules.md §7): the chance that the opponent, in its one more turn after p names ``case``
    correctly as the round's first player, names its own case correctly.

    The opponent knows the public answers and p's case (it holds it), so p's correct solve tells it
    nothing new; it is assumed to name a most likely case of its exact posterior, ties at random.
    When p holds the opponent's case (``knowledge.held_case``) the answer is exact from p's side:
    ``1/m`` if that case is among the ``m`` most likely, else 0; otherwise it is the opponent's
    own P(correct), the largest posterior probability.

    Raises:
        PIError: not a 2-player knowledge.
    """
    if knowledge.n_players != 2:
        raise PIError("opponent_reply is for a duel (2 players)")
    opp = 1 - knowledge.player
    theirs = analyze_knowledge(knowledge.for_player(opp, int(case)), strict=False)
    if theirs.count == 0:
        return 0.0
    probs = np.asarray(theirs.probabilities, dtype=np.float64)
    top = theirs.cases[probs >= probs.max() - 1e-12]
    if knowledge.held_case >= 0:
        return 1.0 / top.size if knowledge.held_case in set(top.tolist()) else 0.0
    return float(probs.max())


# ---------------------------------------------------------------------------------------------
# the front door


def hint(knowledge: Knowledge, legal_actions: "np.ndarray | Iterable[int] | None" = None, *,
         analysis: Analysis | None = None, tier: int = 0, round_index: int = 0, edition: str = "second",
         investigators_left: int | None = None, joint: bool = True, remaining: bool = True,
         context: TurnContext | None = None, hazards: "dict[int, float] | None" = None) -> Hint:
    """Advice for ``knowledge.player`` (see the module docstring for every quantity).

    Args:
        knowledge: what p knows (:func:`~pi_env.solvers.analysis.knowledge_of`,
            :func:`~pi_env.solvers.observation.knowledge_from_observation`).
        legal_actions: candidate queries as an action mask or ids (``None``: see
            :func:`candidate_actions`).
        analysis: p's :class:`Analysis` of ``knowledge`` if already computed (else computed here,
            non-strict: a contradiction gives an empty hint).
        tier: the tier p would score at now (docs/rules.md §5), 0-based.
        round_index: 0-based round.
        edition: ``"second"`` or ``"first"``.
        investigators_left: p's unused investigator tiles (``None``: unknown, not limited).
        joint: use the joint posterior (default) or the uniform own-information distribution.
        remaining: compute ``expected_remaining_actions``.
        context: the rules facts of p's turn (:func:`pi_env.solvers.turns.turn_context` reads them
            from a record); given, its tier, round and edition are used instead of the three
            arguments above, and waiting is valued by the rules (:mod:`pi_env.solvers.turns`).
            ``None``: a context with only ``tier``, ``round_index`` and ``edition`` (the next turn
            assumed to come, one tier later).
        hazards: ``{player: P(attempts on its coming turn)}`` for the players acting before p's next
            turn (``None``: :func:`attempt_hazards`).

    Returns:
        A :class:`Hint`.

    Example::

        k = knowledge_of("game.record.json", player=2, after_event=17)
        h = hint(k, tier=0, round_index=0)
        h.p_correct, h.expected_points, h.best_action, h.best_gain
    """
    if context is None:
        context = TurnContext(player=knowledge.player, n_players=knowledge.n_players, edition=edition,
                              tier=tier, round_index=round_index)
    tier, round_index = context.tier, context.round_index
    if analysis is None:
        analysis = analyze_knowledge(knowledge, strict=False)
    if joint:
        cases, weights = analysis.cases, np.asarray(analysis.probabilities, dtype=np.float64)
    else:
        cases = analysis.own_cases
        weights = np.full(cases.size, 1.0 / cases.size) if cases.size else np.zeros(0)
    points = context.points(tier)
    actions = candidate_actions(knowledge, legal_actions, investigators_left)
    if investigators_left is not None and investigators_left <= 0:
        actions = actions[actions < INVESTIGATE_BASE]
    if cases.size == 0:
        loss = -float(context.loss()) if not context.duel else -1.0
        return Hint(player=knowledge.player, count=0, entropy=0.0, certain=(), best_case=-1,
                    p_correct=0.0, tier=tier, round_index=round_index, points=points,
                    expected_points=loss, wait_expected_points=loss, solve_now=False,
                    best_action=None, best_gain=0.0,
                    gains={Action.of(int(a), knowledge.names or element_names(DAYTIME)): 0.0 for a in actions},
                    expected_remaining_actions=None if not remaining else 0.0, context=context)
    weights = weights / weights.sum()
    top = int(np.lexsort((cases, -weights))[0])
    best_case, p_correct = int(cases[top]), float(weights[top])
    answers = answer_matrix(knowledge, actions, cases)
    gains = information_gains(answers, weights)
    best_action, best_gain, q_after = None, 0.0, p_correct
    if actions.size and gains.max() > GAIN_TOLERANCE:
        b = best_gain_index(gains)
        best_action, best_gain = int(actions[b]), float(gains[b])
        q_after = 0.0
        codes = answers[b]
        for k in np.unique(codes):
            q_after += float(weights[codes == k].max())
    reply = None
    if context.duel and context.is_first_player and not context.extra_turn:
        reply = opponent_reply(knowledge, best_case)
    e_now = solve_value(context, p_correct, reply or 0.0)
    if hazards is None:
        hazards = attempt_hazards(knowledge, context)
    e_wait, outcomes = wait_value(context, q_after, wait_outcomes(context, hazards), reply or 0.0)
    solve = _decide(p_correct, e_now, e_wait, must=context.extra_turn)
    elems = CASE_ELEMENTS[cases]  # [N, 3]
    names = knowledge.names or element_names(DAYTIME)
    certain = tuple(Element.of(int(elems[0, t]), names) for t in range(3) if (elems[:, t] == elems[0, t]).all())
    remaining_value = None
    if remaining:
        remaining_value = greedy_expected_actions(answers, weights, actions >= INVESTIGATE_BASE,
                                                  investigators_left)
    return Hint(player=knowledge.player, count=int(cases.size),
                entropy=float(_entropy_rows(weights[None, :])[0]), certain=certain,
                best_case=Case.of(best_case, names), p_correct=p_correct, tier=tier, round_index=round_index,
                points=points, expected_points=e_now, wait_expected_points=e_wait, solve_now=solve,
                best_action=None if best_action is None else Action.of(best_action, names),
                best_gain=best_gain,
                gains={Action.of(int(a), names): float(g) for a, g in zip(actions, gains)},
                expected_remaining_actions=remaining_value, q_after=q_after,
                wait_outcomes=tuple(outcomes), context=context, reply=reply)
