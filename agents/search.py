"""The ``search`` agent: information-set Monte Carlo search with greedy rollouts.

It knows only its observation (docs/rules.md §9) and reads it exactly as :mod:`pi_env.agents.greedy` does
(:func:`pi_env.agents.greedy.assess`: the solver's exact joint posterior of its own case, the candidate
queries and the :class:`~pi_env.agents.greedy.Outlook` with the opponent model). On its turn:

1. **one case left**: it names it;
2. **candidates**: the greedy agent's choice, naming the most likely case now, and the
   :data:`TOP_K` candidate queries with the highest information gain (with no informative query:
   naming the most likely case or waiting);
3. **determinizations**: it draws ``S`` worlds, each a case of its own from the exact posterior
   (``Analysis.cases`` / ``.probabilities``) and, for every other seat that has not solved, a number
   of own turns until that seat solves from the opponent model
   (:func:`pi_env.agents.greedy.turns_to_solve_pmf`, from how narrowed the seat's public information is);
   the **next player** (whose case the agent holds) gets its turns *per candidate*
   (:func:`next_player_turns`, option ``next_player_model``, default on): unless it solves on its
   coming turn (the model's first-turn probability), it takes the display card the candidate
   leaves that splits its public case set most evenly (:func:`next_player_picks`), learns that
   card's true answer (the agent knows it) and then needs the model's turns for the count left.
   So a candidate that takes the card the next player needs delays that player's solve in the
   rollouts — the value of denial (:mod:`pi_env.agents.greedy`, *denial*), in points;
4. **rollouts**: in each world it plays every candidate first and then the rest of the round
   turn by turn under the greedy rule (:func:`pi_env.agents.greedy.greedy_decision`'s solve-or-query
   comparison, with the opponents' solve probabilities of the model *conditioned on the turns
   elapsed* — the rollout policy does not peek at the drawn world) until it solves or the round
   ends: the other seats solve at their drawn turn, the tier advances after each rotation with a
   solve, the round ends at the end of a rotation with at most one player left who has not
   attempted (docs/rules.md §5). A wrong solve costs 2 points and removes that case; a correct one
   scores at the tier of its rotation. The value of a rollout is the agent's score change in this
   round (cap 21 / floor −5);
5. **choice**: every candidate is played in the same worlds (common random numbers), so the
   comparison is paired. It keeps the greedy choice unless another candidate's mean value is higher
   by more than :data:`CONFIDENCE_Z` standard errors of the paired difference (ties and noise go to
   the greedy rule: the search is a one-step policy improvement of greedy under the model).

Simplifications (stated, not rules): queries in rollouts are answered from the drawn case with the
answer tables of the current position; the display and the candidate queries stay as they are now
(as :func:`pi_env.solvers.hints.greedy_expected_actions`); other players' answers and solves do not
narrow the agent's own posterior inside a rollout (they only end the round or advance the tier);
the value ignores later rounds (investigators are rationed per round instead, as greedy does).

**Time budget** (``budget_ms``, default :data:`DEFAULT_BUDGET_MS`): the whole decision — reading the
observation, one solver analysis, and the search — is timed from the start of :meth:`act`. A world
is only played if the time used so far plus the longest world so far fits in the budget (the first
world whenever any time is left); with no world played it falls back to the greedy choice. At most
``max_samples`` worlds are drawn (default :data:`DEFAULT_SAMPLES`, usually reached well within the
default budget: 64 worlds took at most about 95 ms in ``benchmarks/agent_speed.py``, so decisions —
and tournament games — replay identically unless the machine is slow enough for the budget to cut
the search first). ``budget_ms=None`` means no time limit (fully reproducible). All random numbers
of a decision (``max_samples`` worlds) are drawn before the search starts, so the agent's random
stream never depends on timing. ``clock`` (seconds, monotonic) can be replaced, e.g. by a fake clock
in tests.

After each decision :attr:`SearchAgent.last` holds what the search did: ``samples`` played,
``elapsed_ms`` and the candidates with their mean values.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pi_env.core._config import kernel
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.rules import tier_after_rotation
from pi_env.solvers.hints import GAIN_TOLERANCE, best_gain_index

from pi_env.agents.greedy import HORIZON, GreedyAgent, Situation, greedy_decision, next_turn_outcomes

__all__ = ["SearchAgent", "SearchStats", "next_player_picks", "next_player_turns", "DEFAULT_BUDGET_MS",
           "DEFAULT_SAMPLES", "TOP_K", "CONFIDENCE_Z"]

DEFAULT_BUDGET_MS = 200.0
"""Default time budget of one decision, milliseconds."""
DEFAULT_SAMPLES = 64
"""Default number of sampled worlds per decision."""
TOP_K = 3
"""Queries with the highest information gain considered as candidates (besides greedy's choice)."""
CONFIDENCE_Z = 2.0
"""A candidate replaces the greedy choice only if better by this many standard errors. With up to
four alternatives to greedy's choice, 1 standard error let noise alone override greedy in a large
share of decisions; measured on 300 two-player games ``search,greedy`` (tournament seed 1, games
0..299, the greedy with denial): search's win rate 46.7% with 1.0, 51.3% with 2.0."""
WAIT = -1
"""Internal code of 'wait' (a query that tells nothing) in rollouts."""


@dataclass(frozen=True)
class SearchStats:
    """What the last decision did: worlds ``samples`` played, ``elapsed_ms`` (by the agent's clock),
    ``candidates`` (action ids) with their ``means`` (expected score change), and ``action``."""

    samples: int
    elapsed_ms: float
    candidates: tuple[int, ...]
    means: tuple[float, ...]
    action: int


@kernel
def _best_query(answers, rows, idx, w, tol):
    """Greedy's query among ``rows`` of ``answers`` on the cases ``idx`` with weights ``w``
    (normalised): ``(position in rows, q_after)``, or ``(-1, 0.0)`` if no gain exceeds ``tol``.
    The choice is :func:`pi_env.solvers.hints.best_gain_index` (ties to the first row, the lowest
    action id), as ``Hint.best_action``."""
    R = rows.shape[0]
    gains = np.zeros(R)
    qs = np.zeros(R)
    mass = np.zeros(16)
    top = np.zeros(16)
    best_g = 0.0
    for r in range(R):
        mass[:] = 0.0
        top[:] = 0.0
        for i in range(idx.shape[0]):
            k = answers[rows[r], idx[i]]
            mass[k] += w[i]
            if w[i] > top[k]:
                top[k] = w[i]
        g = 0.0
        q = 0.0
        for k in range(16):
            if mass[k] > 0:
                g -= mass[k] * np.log2(mass[k])
            q += top[k]
        gains[r] = max(g, 0.0)
        qs[r] = q
        best_g = max(best_g, gains[r])
    if best_g <= tol:
        return -1, 0.0
    b = best_gain_index(gains)
    return b, qs[b]


class _Node:
    """A set of the agent's cases reached along a rollout (a node of the greedy tree)."""

    __slots__ = ("idx", "w", "best", "avail", "inv_budget", "query", "q", "children")

    def __init__(self, idx: np.ndarray, probs: np.ndarray, cases: np.ndarray, avail: np.ndarray,
                 inv_budget: int):
        self.idx = idx
        w = probs[idx]
        self.w = w / w.sum()
        self.best = int(np.lexsort((cases[idx], -self.w))[0])
        self.avail = avail
        self.inv_budget = inv_budget
        self.query = -2  # not computed yet
        self.q = 0.0
        self.children: dict = {}


def next_player_picks(s: Situation, cands: "list[int]") -> list[tuple[int, int]]:
    """The next player's coming query as the search models it (module docstring, *next player*):
    per candidate ``cands[c]`` of the agent, ``(card, n_after)``: the display card (a legal clue of
    the agent other than the candidate) with the highest expected information gain on the next
    player's public case set under uniform weights (ties: the lowest id), and how many of those
    cases answer that card as the held case does — the next player's public count after taking it.
    ``(-1, n)`` when no card is left. Requires a held case (``s.knowledge.held_case >= 0``)."""
    from pi_env.solvers.tables import bitset_cases

    from pi_env.agents.greedy import public_case_bits

    k = s.knowledge
    theirs = bitset_cases(public_case_bits(k)[(k.player + 1) % k.n_players])
    n = theirs.size
    table = k.tables.clue_answers
    display = s.legal_clues
    codes = table[np.ix_(display, theirs)].astype(np.int64)  # [D, n]
    true = table[display, k.held_case].astype(np.int64)
    mass = np.stack([(codes == a).sum(axis=1) for a in range(3)], axis=1) / max(n, 1)  # [D, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = -np.where(mass > 0, mass * np.log2(mass), 0.0).sum(axis=1)
    left = (codes == true[:, None]).sum(axis=1)
    out = []
    for action in cands:
        keep = display != action
        if not keep.any():
            out.append((-1, n))
            continue
        g = np.where(keep, gain, -np.inf)
        i = int(best_gain_index(g))
        out.append((int(display[i]), int(left[i])))
    return out


def next_player_turns(s: Situation, cands: "list[int]", u: np.ndarray) -> np.ndarray:
    """``int64[C, S]``: own turns until the next player (seat 1, whose case the agent holds) solves,
    per candidate ``cands[c]`` of the agent, from the uniforms ``u[S]`` (module docstring,
    *next player*). With ``n`` its public count and ``h = pmf(n)[0]`` (the opponent model,
    :func:`pi_env.agents.greedy.turns_to_solve_pmf`) it solves on its coming turn (``T = 1``) if
    ``u < h``; else it takes the card of :func:`next_player_picks`, which leaves ``n'`` cases, and
    needs ``T'`` more turns, the opponent model's inverse CDF for ``n'`` at ``(u − h) / (1 − h)``:
    ``T = 1 + T'``. The candidates share the random numbers ``u``."""
    from pi_env.agents.greedy import turns_to_solve_pmf

    n = int(s.outlook.counts[1 % s.outlook.num_players])
    h = float(turns_to_solve_pmf(n)[0])
    v = np.clip((u - h) / max(1.0 - h, 1e-12), 0.0, 1.0)
    out = np.empty((len(cands), u.size), dtype=np.int64)
    for c, (_, n_after) in enumerate(next_player_picks(s, cands)):
        cdf = np.cumsum(turns_to_solve_pmf(max(1, n_after)))
        later = np.minimum(np.searchsorted(cdf, v * cdf[-1], side="right"), HORIZON - 2) + 2
        out[c] = np.where(u < h, 1, later)
    return out


class SearchAgent(GreedyAgent):
    """Search player (see the module docstring).

    Args:
        budget_ms: time budget of one decision in milliseconds (``None``: no limit).
        max_samples: worlds drawn per decision.
        top_k: highest-gain queries among the candidates.
        edition, ration_investigators: as :class:`~pi_env.agents.greedy.GreedyAgent`.
        clock: monotonic clock in seconds (default :func:`time.perf_counter`).
        next_player_model: draw the next player's turns per candidate (:func:`next_player_turns`,
            default) or from the opponent model alone, as the other seats.
    """

    name = "search"

    def __init__(self, budget_ms: float | None = DEFAULT_BUDGET_MS, max_samples: int = DEFAULT_SAMPLES,
                 top_k: int = TOP_K, edition: str = "second", ration_investigators: bool = True,
                 clock: Callable[[], float] = time.perf_counter, next_player_model: bool = True):
        super().__init__(edition=edition, ration_investigators=ration_investigators)
        self.next_player_model = bool(next_player_model)
        if budget_ms is not None and not budget_ms > 0:
            raise ValueError(f"budget_ms must be positive or None, got {budget_ms!r}")
        if int(max_samples) < 1:
            raise ValueError(f"max_samples must be at least 1, got {max_samples!r}")
        self.budget_ms = budget_ms
        self.max_samples = int(max_samples)
        self.top_k = int(top_k)
        self.clock = clock
        self.last: SearchStats | None = None

    # ------------------------------------------------------------------------------------------

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        start = self.clock()
        s = self.situation(observation, action_mask)
        greedy = greedy_decision(s)
        cands = self._candidates(s, greedy)
        if len(cands) < 2:
            self.last = SearchStats(0, 1000 * (self.clock() - start), tuple(cands), (), greedy)
            return greedy
        S, N, P = self.max_samples, s.cases.size, s.outlook.num_players
        # every random number of this decision, drawn before the (timed) search
        worlds = self.rng.choice(N, size=S, p=s.probs)
        u = self.rng.random((S, P))
        cdf = np.cumsum(s.outlook.pmf, axis=1)
        turns = np.zeros((S, P), dtype=np.int64)
        for j in range(1, P):
            if s.outlook.pmf[j].sum() > 0:
                turns[:, j] = np.minimum(np.searchsorted(cdf[j], u[:, j] * cdf[j, -1], side="right"),
                                         HORIZON - 1) + 1
        per_cand = np.repeat(turns[None], len(cands), axis=0)  # [C, S, P]
        nxt = 1 % P
        if self.next_player_model and s.denial.any():
            per_cand[:, :, nxt] = next_player_turns(s, cands, u[:, nxt])
        self._prepare(s)
        values = np.zeros((S, len(cands)))
        n, longest = 0, 0.0
        budget = None if self.budget_ms is None else self.budget_ms / 1000.0
        while n < S:
            t0 = self.clock()
            if budget is not None and (t0 - start) + longest > budget:
                break
            for c, action in enumerate(cands):
                values[n, c] = self._rollout(action, int(worlds[n]), per_cand[c, n])
            n += 1
            longest = max(longest, self.clock() - t0)
        choice = self._choose(cands, values[:n])
        self._s = self._root = None  # the rollout tree is not kept between decisions
        self._outcomes = {}
        self.last = SearchStats(n, 1000 * (self.clock() - start), tuple(cands),
                                tuple(float(v) for v in values[:n].mean(axis=0)) if n else (), choice)
        return choice

    def _candidates(self, s: Situation, greedy: int) -> list[int]:
        """Greedy's choice first, then solving now, then the top-gain queries (no duplicates)."""
        if s.cases.size <= 1:
            return [greedy]
        out = [greedy, SOLVE_BASE + s.best_case]
        useful = np.flatnonzero(s.gains > GAIN_TOLERANCE)
        if useful.size:
            order = useful[np.lexsort((s.actions[useful], -s.gains[useful]))]
            out += [int(s.actions[i]) for i in order[:self.top_k]]
        elif s.legal_clues.size:
            out.append(int(s.legal_clues[0]))
        seen: list[int] = []
        for a in out:
            if a not in seen:
                seen.append(a)
        return seen

    def _choose(self, cands: list[int], values: np.ndarray) -> int:
        """Greedy's choice (column 0) unless another is better by ``CONFIDENCE_Z`` standard errors."""
        n = values.shape[0]
        if n < 2:
            return cands[0]
        diff = values - values[:, :1]
        mean = diff.mean(axis=0)
        se = diff.std(axis=0, ddof=1) / math.sqrt(n)
        ok = mean > CONFIDENCE_Z * se + 1e-12
        ok[0] = False
        if not ok.any():
            return cands[0]
        best = int(np.flatnonzero(ok)[np.argmax(mean[ok])])
        return cands[best]

    # -- the simulation -----------------------------------------------------------------------

    def _prepare(self, s: Situation) -> None:
        self._s = s
        o = s.outlook
        self._is_inv = s.actions >= INVESTIGATE_BASE
        self._row = {int(a): i for i, a in enumerate(s.actions)}
        self._outcomes: dict = {}
        avail = np.ones(s.actions.size, dtype=bool)
        self._root = _Node(np.arange(s.cases.size), s.probs, s.cases, avail, s.inv_allowed)
        # hazard[j, e]: P(seat j solves on its next turn | e turns of it elapsed without a solve)
        surv = 1.0 - np.concatenate([np.zeros((o.num_players, 1)), np.cumsum(o.pmf, axis=1)[:, :-1]], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self._hazard = np.where(surv > 1e-12, o.pmf / np.maximum(surv, 1e-300), 1.0)
        self._hazard[o.pmf.sum(axis=1) == 0] = 0.0

    def _child(self, node: _Node, key: tuple) -> _Node:
        child = node.children.get(key)
        if child is None:
            s = self._s
            if key[0] == "q":
                _, r, code = key
                idx = node.idx[s.answers[r, node.idx] == code]
                avail, budget = node.avail, node.inv_budget
                if self._is_inv[r]:
                    avail = avail.copy()
                    avail[r] = False
                    budget -= 1
            else:  # ("fail", case index)
                idx = node.idx[node.idx != key[1]]
                avail, budget = node.avail, node.inv_budget
            child = _Node(idx, s.probs, s.cases, avail, budget)
            node.children[key] = child
        return child

    def _query(self, node: _Node) -> int:
        """Greedy's query row at ``node`` (``-1``: none splits its cases); cached."""
        if node.query == -2:
            s = self._s
            rows = np.flatnonzero(node.avail & ((node.inv_budget > 0) | ~self._is_inv))
            node.query = -1
            if rows.size and node.idx.size > 1:
                b, q = _best_query(s.answers, rows, node.idx, node.w, GAIN_TOLERANCE)
                if b >= 0:
                    node.query, node.q = int(rows[b]), float(q)
        return node.query

    def _policy(self, node: _Node, tier: int, pending: bool, score: int, solved, attempted,
                me_attempted: bool, elapsed) -> tuple[str, int]:
        """The greedy rule inside a rollout, with the model's hazards given the turns elapsed."""
        if node.idx.size == 1:
            return ("solve", int(node.idx[0]))
        o = self._s.outlook
        p = float(node.w[node.best])
        pen = o.penalty(score)
        e_now = p * o.points(tier, score) - (1.0 - p) * pen
        r = self._query(node)
        if r >= 0 and e_now <= 0:  # solving needs E_now > 0
            return ("query", r)
        q = node.q if r >= 0 else p
        key = (tier, pending, me_attempted, solved.tobytes(), attempted.tobytes(), elapsed.tobytes())
        outcomes = self._outcomes.get(key)
        if outcomes is None:
            hazard = self._hazard[np.arange(o.num_players), np.minimum(elapsed, HORIZON - 1)]
            outcomes = next_turn_outcomes(o.after_me, hazard, solved, attempted, o.idle, me_attempted,
                                          tier, pending, o.edition)
            self._outcomes[key] = outcomes
        e_wait = sum(prob * max(0.0, q * o.points(t, score) - (1.0 - q) * pen)
                     for prob, on, t in outcomes if on)
        if r >= 0:
            return ("solve", int(node.idx[node.best])) if (e_now > 0 and e_now >= e_wait) else ("query", r)
        return ("wait", WAIT) if e_now < e_wait else ("solve", int(node.idx[node.best]))

    def _rollout(self, first: int, world: int, turns: np.ndarray) -> float:
        """Score change of playing ``first`` now, then the greedy rule, in one drawn world."""
        s = self._s
        o = s.outlook
        P = o.num_players
        tier, pending, score = o.tier, o.pending, o.score
        solved = o.solved.copy()
        attempted = o.seat_attempted.copy()
        me_attempted = o.attempted
        elapsed = np.zeros(P, dtype=np.int64)
        node = self._root
        order = o.order
        i = order.index(0)
        rotation = o.rotation
        move: tuple[str, int]
        if first >= SOLVE_BASE:
            move = ("solve", int(np.searchsorted(s.cases, first - SOLVE_BASE)))
        elif first in self._row:
            move = ("query", self._row[first])
        else:
            move = ("wait", WAIT)
        flag = solved if o.edition == "first" else attempted
        while True:
            seat = order[i]
            if seat == 0:
                kind, arg = move
                if kind == "solve":
                    me_attempted = True
                    if arg == world:
                        return float(o.points(tier, score) + score - o.score)
                    score -= o.penalty(score)
                    node = self._child(node, ("fail", arg))
                elif kind == "query":
                    node = self._child(node, ("q", arg, int(s.answers[arg, world])))
            elif not solved[seat] and turns[seat] > 0:
                elapsed[seat] += 1
                if elapsed[seat] >= turns[seat]:
                    solved[seat] = attempted[seat] = True
                    pending = True
            i += 1
            if i == P:
                i = 0
                tier = tier_after_rotation(tier, pending, False, False, P)  # no nick of time (not observed)
                pending = False
                me_open = 0 if (o.edition == "second" and me_attempted) else 1
                open_others = sum(1 for j in range(1, P) if not flag[j])
                rotation += 1
                if me_open + open_others <= 1 or rotation >= HORIZON:
                    return float(score - o.score)
            if order[i] == 0:
                move = self._policy(node, tier, pending, score, solved, attempted, me_attempted, elapsed)
