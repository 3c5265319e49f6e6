"""The ``winrollout`` agent: ``winprob``'s last-round choice, valued by **determinized rollouts in
exactly sampled worlds** played by the batched engine.

It decides as :class:`~pi_env.agents.winprob.WinProbAgent` (greedy until the last round; there, on
each turn, greedy's choice against the other plan — solve now or wait — with the same margin and
options, :mod:`pi_env.agents.winprob` steps 1, 2 and 4), but it values the two plans by search, not
by winprob's closed simulation:

1. **worlds**: ``worlds`` complete worlds — every player's case — drawn *exactly* from the joint
   posterior of all public answers and the case the agent holds
   (:func:`pi_env.solvers.worlds.world_sampler`), each made into an engine state
   (:func:`pi_env.agents.rollout.world_states`: the public position copied from the observation, a
   random order of the deck);
2. **plans**: in every world, the plan "solve now" (name the most likely case) and the plan "wait"
   (greedy's query, or winprob's waiting query) are played by the engine's step
   (:func:`pi_env.engine.step_inplace`): the solve is right exactly when the world's case is the one
   named, and the query's answer is the world's;
3. **rollouts**: the rest of the game (this is its last round) is played by the engine in one fused
   call (:func:`pi_env.engine.rollout`) with the ``"scripted"`` policy (:class:`pi_env.engine.Script`),
   a model of the players' solve attempts: each opponent that has not solved attempts on its
   ``T``-th own turn, ``T`` and the attempt's correctness drawn from the model winprob uses
   (greedy's fitted turns-to-solve model, an attempt counted as correct unless ``opp_correct``; or,
   with ``opponent_model="greedy"``, the model calibrated on greedy opponents with a second attempt
   after a wrong one); a correct attempt names the world's case, a wrong one another case. In the
   plan "wait" the agent names, on its next turn, the most likely case of the answer class its
   query got in that world when that is worth more than 0 points at the current tier (right
   exactly when it is the world's case), and with ``continuation`` names the world's case on its
   ``1 + T``-th turn after this one (``T`` from winprob's turns-to-solve model of itself).
   Between attempts the players pass time with clue cards. The engine applies every rule of the
   round's end: turn order, tiers, the end of the round, score cap and floor, and the ranking with
   its tiebreak by unused investigator tiles (docs/rules.md §5);
4. **value**: each plan's mean share of the win (1/k for k tied winners) over the worlds; both plans
   meet the same worlds, deck orders, opponent scripts and policy streams (common random numbers).

**Time budget** (``budget_ms``, default :data:`DEFAULT_BUDGET_MS`, from the start of the
decision): the worlds are played in chunks of :data:`CHUNK`; a chunk is started only if the time
used plus the longest chunk so far fits in the budget (the first always). Every random number is
drawn before the rollouts, so the agent's random stream never depends on timing and
``budget_ms=None`` replays a decision exactly. The budget therefore bounds the rollouts only: the
draws for all ``worlds`` (the sampler, the worlds' engine states, the scripts) come first and are
never cut, a cost that grows with ``worlds`` (at the default most of a decision's time, well
inside the default budget; with tens of thousands of worlds, more than the default budget whatever
``budget_ms`` says). With the default settings the budget is rarely reached, so a screen's
decisions barely depend on the machine's load; ``budget_ms=None`` (or ``inf``, e.g.
``--option budget_ms=inf`` of ``greedy_screen``) makes them independent of it.
:attr:`WinRolloutAgent.stats` holds what the last simulation did.

**No consistent world** (a contradiction, which the engine's answers never make but a typed-in
record can, docs/rules.md §4.4): greedy then reads the agent's own information alone, and the
agent values the two plans by winprob's closed simulation (its ``samples`` continuations), so it
decides as ``winprob`` does; ``stats`` is ``None``.

Assumptions (stated, not rules): as winprob's (the opponents' attempts are a fitted model that does
not react to the agent's plan; a seat's turns to its attempt count from now), and those of
:func:`~pi_env.agents.rollout.world_states` (investigator markers still on a tile are the
investigator's answer).
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import NUM_CASES, SOLVE_BASE
from pi_env.engine import GameConfig, Script, rollout, step_inplace
from pi_env.core.rules import edition_code, solve_gain, tier_points, wrong_solve_loss
from pi_env.engine.state import State
from pi_env.solvers.analysis import ContradictionError
from pi_env.solvers.worlds import world_sampler

from pi_env.agents.greedy import Outlook, Situation
from pi_env.agents.rollout import budgeted_chunks, world_states
from pi_env.agents.winprob import WinProbAgent, _calibrated_draws, greedy_opponents

__all__ = ["WinRolloutAgent", "WinRolloutStats", "opponent_script", "DEFAULT_WORLDS", "DEFAULT_BUDGET_MS", "CHUNK"]

DEFAULT_WORLDS = 512
"""Worlds sampled per last-round decision (each played under both plans)."""
DEFAULT_BUDGET_MS = 200.0
"""Default time budget of one decision, milliseconds."""
CHUNK = 128
"""Worlds per fused rollout call (times two plans)."""
_NEVER = 0  # a script turn that never comes


@dataclass(frozen=True)
class WinRolloutStats:
    """What the last simulation did: ``worlds`` played (of ``drawn``), ``elapsed_ms`` by the agent's
    clock, the plans' mean win shares ``now`` and ``wait``, and ``next_turn`` (the share of worlds in
    which the agent's next turn came, plan "wait")."""

    worlds: int
    drawn: int
    elapsed_ms: float
    now: float
    wait: float
    next_turn: float


def _wrong_cases(true: np.ndarray, failed: np.ndarray, rng: "np.random.Generator | None",
                 after: "np.ndarray | None" = None) -> np.ndarray:
    """``int64[S]``: per row a case other than ``true[s]`` that the seat has not named before
    (``failed``: ``bool[S, 1680]``), starting from a random offset (``rng``) or from the case after
    ``after[s]`` (no draw), and walking on."""
    S = true.size
    if after is not None:
        out = (np.asarray(after, dtype=np.int64) + 1) % NUM_CASES
    else:
        assert rng is not None
        out = (true + rng.integers(1, NUM_CASES, size=S)) % NUM_CASES
    for _ in range(NUM_CASES):
        bad = (out == true) | failed[np.arange(S), out]
        if not bad.any():
            break
        out = np.where(bad, (out + 1) % NUM_CASES, out)
    return out


def opponent_script(o: Outlook, worlds: np.ndarray, failed: np.ndarray, rng: np.random.Generator,
                    opp_correct: float = 1.0,
                    opponents: "tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None" = None) -> Script:
    """The opponents' attempts of step 3 (module docstring) in ``S`` worlds, as a :class:`Script`
    with two slots per seat (the agent's row, seat 0, names nothing).

    Args:
        o: the agent's outlook (relative seats; solved and idle seats never attempt).
        worlds: ``int64[S, P]`` each relative seat's case per world.
        failed: ``bool[S, P, 1680]`` cases each seat has named wrongly before (the engine state's).
        rng: the source of every draw.
        opp_correct: fitted model: probability that an attempt is correct (1: every attempt).
        opponents: the calibrated model (:func:`~pi_env.agents.winprob.greedy_opponents`) instead of
            the fitted one: a wrong first attempt is followed by a second (slot 2).

    Returns:
        ``Script`` of ``S`` games: ``turn`` the own turn (counted from the agent's next one's
        rotation on: 1 = the seat's next turn) and ``case`` the world's case when the attempt is
        correct, else another case it has not named (a wrong second attempt: another again, the
        first case after the first attempt's that it has not named, no draw).
    """
    worlds = np.asarray(worlds, dtype=np.int64)
    S, P = worlds.shape
    script = Script.empty(S, P)
    H = o.pmf.shape[1]
    if opponents is None:
        T = np.full((S, P), 1 << 30, dtype=np.int64)
        for j in range(1, P):
            if not o.solved[j] and not o.idle[j] and o.pmf[j].sum() > 0:
                T[:, j] = rng.choice(H, size=S, p=o.pmf[j] / o.pmf[j].sum()) + 1
        right = np.ones((S, P), dtype=bool) if opp_correct >= 1.0 else rng.random((S, P)) < opp_correct
        T2, right2 = np.full((S, P), 1 << 30, dtype=np.int64), np.ones((S, P), dtype=bool)
    else:
        T, right, T2, right2 = _calibrated_draws(o, opponents, S, rng)
    for j in range(1, P):
        first = np.where(T[:, j] < (1 << 30), T[:, j], _NEVER)
        second = np.where((first > 0) & ~right[:, j] & (T2[:, j] < (1 << 30)), T[:, j] + T2[:, j], _NEVER)
        wrong = _wrong_cases(worlds[:, j], failed[:, j], rng)
        wrong2 = wrong
        if opponents is not None:  # a wrong second attempt names another case (the engine skips a failed one)
            named = failed[:, j].copy()
            named[np.arange(S), wrong] = True
            wrong2 = _wrong_cases(worlds[:, j], named, None, after=wrong)
        script.turn[:, j, 0] = np.minimum(first, np.iinfo(np.int32).max)
        script.case[:, j, 0] = np.where(right[:, j], worlds[:, j], wrong)
        script.turn[:, j, 1] = np.minimum(second, np.iinfo(np.int32).max)
        script.case[:, j, 1] = np.where(right2[:, j], worlds[:, j], wrong2)
    return script


class WinRolloutAgent(WinProbAgent):
    """winprob's last-round choice valued by engine rollouts in exactly sampled worlds (module
    docstring).

    Args:
        worlds: worlds sampled per decision.
        budget_ms: time budget of one decision in milliseconds (``None``: no limit).
        clock: monotonic clock in seconds (default :func:`time.perf_counter`).
        **kwargs: :class:`~pi_env.agents.winprob.WinProbAgent`'s options (``margin``,
            ``continuation``, ``early_solves``, ``opp_correct``, ``opponent_model``, ...; its
            ``samples`` is used only where no world is consistent, module docstring).

    Raises:
        ValueError: a world count that is not a whole number of at least 1, a budget that is not a
            positive number (or ``None``), a clock that is not callable, or winprob's errors.
    """

    name = "winrollout"

    def __init__(self, worlds: int = DEFAULT_WORLDS, budget_ms: float | None = DEFAULT_BUDGET_MS,
                 clock: Callable[[], float] = time.perf_counter, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(worlds, numbers.Integral) or isinstance(worlds, bool):
            raise ValueError(f"worlds must be a whole number of worlds, got {worlds!r}")
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds!r}")
        if budget_ms is not None and (not isinstance(budget_ms, numbers.Real) or isinstance(budget_ms, bool)):
            raise ValueError(f"budget_ms must be a number of milliseconds or None, got {budget_ms!r}")
        if budget_ms is not None and not budget_ms > 0:
            raise ValueError(f"budget_ms must be positive or None, got {budget_ms!r}")
        if not callable(clock):
            raise ValueError(f"clock must be callable (seconds, monotonic), got {clock!r}")
        self.worlds = int(worlds)
        self.budget_ms = None if budget_ms is None else float(budget_ms)
        self.clock = clock
        self.stats: WinRolloutStats | None = None
        self._start: float | None = None  # the clock at act's start, during act

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        super().reset(num_players, board, seed)
        self._config = GameConfig(num_players=num_players, edition=self.edition, board=self.board)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self._start = self.clock()
        self.stats = None
        try:
            return super().act(observation, action_mask)
        finally:
            self._start = None

    def plan_shares(self, s: Situation, observation: np.ndarray, d: dict, query: int, codes: np.ndarray,
                    mass: np.ndarray, best: np.ndarray, me_pmf: "np.ndarray | None") -> tuple[float, float, float]:
        """Steps 1–4 of the module docstring: ``(solve_now, wait, next_turn)`` (winprob's, where no
        world is consistent)."""
        o, P, S = s.outlook, self.num_players, self.worlds
        start = getattr(self, "_start", None)  # act's start; a direct call (decide) starts now
        if start is None:
            start = self.clock()
        try:
            sampler = world_sampler(s.knowledge)
        except ContradictionError:  # no world fits the observation: winprob's closed simulation
            return super().plan_shares(s, observation, d, query, codes, mass, best, me_pmf)
        # every random number first: worlds, deck orders, the scripts and the policy streams
        worlds = sampler.sample(S, self.rng)
        base = world_states(observation, P, worlds, self.rng, pending=o.pending, edition=self.edition)
        opponents = greedy_opponents(o) if self.opponent_model == "greedy" else None
        script = opponent_script(o, worlds, base.failed.astype(bool), self.rng, self.opp_correct, opponents)
        # the agent in plan "wait": its next turn names the best case of the world's answer class
        pos = np.searchsorted(s.cases, worlds[:, 0])
        if not np.array_equal(s.cases[np.minimum(pos, s.cases.size - 1)], worlds[:, 0]):
            raise AssertionError("a sampled world gives the agent a case outside its posterior")
        keys, cls = np.unique(np.asarray(codes, dtype=np.int64), return_inverse=True)  # classes as `best`'s
        top = np.zeros(keys.size, dtype=np.int64)
        for k in range(keys.size):
            members = np.flatnonzero(cls == k)
            top[k] = members[np.argmax(s.probs[members])]  # first of the most likely: lowest case id
        k_w = cls[pos]
        pk = best[k_w]  # answer_classes: the most likely case's probability given the class
        ed = edition_code(o.edition)  # scores by pi_env.core.rules (docs/rules.md §5)
        score = int(d["score"][0])
        gain = solve_gain(score, tier_points(o.tier, o.round_index, P, ed), ed)
        go = pk * gain - (1 - pk) * wrong_solve_loss(score, ed) > 0
        me = Script.empty(S, P)
        me.turn[:, 0, 0] = np.where(go, 1, _NEVER)
        me.case[:, 0, 0] = s.cases[top[k_w]]
        if me_pmf is not None and np.sum(me_pmf) > 0:
            me.turn[:, 0, 1] = self.rng.choice(len(me_pmf), size=S, p=np.asarray(me_pmf) / np.sum(me_pmf)) + 2
            me.case[:, 0, 1] = worlds[:, 0]
        streams = self.rng.integers(1, 2 ** 63, size=S, dtype=np.int64).astype(np.uint64)
        now_sh, wait_sh, reached = np.zeros(S), np.zeros(S), np.zeros(S, dtype=bool)
        n = 0
        for idx in budgeted_chunks(S, CHUNK, start, self.budget_ms, self.clock):
            a, b, r = self._play(base.take(idx), idx, script, me, s.best_case, query, streams[idx])
            now_sh[idx], wait_sh[idx], reached[idx] = a, b, r
            n = int(idx[-1]) + 1
        now, wait, nxt = float(now_sh[:n].mean()), float(wait_sh[:n].mean()), float(reached[:n].mean())
        self.stats = WinRolloutStats(n, S, 1000 * (self.clock() - start), now, wait, nxt)
        return now, wait, nxt

    def _play(self, st: State, idx: np.ndarray, script: Script, me: Script, solve_case: int, query: int,
              streams: np.ndarray):
        """Both plans in the ``m`` world states ``st`` (rows ``idx`` of the scripts): the win shares
        of seat 0, ``float64[m]`` each, and ``bool[m]``: the agent's next turn came (plan "wait")."""
        m = st.batch_size
        both = st.take(np.tile(np.arange(m), 2))  # plan-major: row p * m + w
        step_inplace(both, np.repeat(np.array([SOLVE_BASE + solve_case, query], dtype=np.int64), m), self._config)
        turn = np.concatenate([script.turn[idx], script.turn[idx]])
        case = np.concatenate([script.case[idx], script.case[idx]])
        turn[m:, 0] = me.turn[idx, 0]
        case[m:, 0] = me.case[idx, 0]
        plan = Script(turn, case, np.zeros((2 * m, self.num_players), dtype=np.int32))
        res = rollout(both, self._config, "scripted", seed=np.tile(streams, 2), copy=False, parallel=False,
                      script=plan)
        share = res.winners[:, 0] / np.maximum(res.winners.sum(axis=1), 1)
        return share[:m], share[m:], plan.taken[m:, 0] >= 1
