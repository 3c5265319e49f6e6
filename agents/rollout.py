"""The ``rollout`` agent: determinized rollouts at engine speed.

It knows only its observation (docs/rules.md §9) and reads it as :mod:`pi_env.agents.greedy` does
(:meth:`GreedyAgent.situation`: the solver's exact posterior of its own case, the candidate queries and
the :class:`~pi_env.agents.greedy.Outlook`). On its turn:

1. **candidates**: greedy's choice first, then naming the most likely case now, then the
   :data:`TOP_K` legal queries with the highest information gain (no duplicates). With one
   candidate (e.g. a single case left) it plays it without searching;
2. **worlds**: ``worlds`` complete worlds — every player's case — drawn *exactly* from the joint
   posterior of all public answers and the case the agent holds
   (:func:`pi_env.solvers.worlds.world_sampler`), each made into an engine state by
   :func:`world_states`: the public part copied from the observation
   (:func:`pi_env.agents.learned.state_from_observations`), the drawn cases, a random order of the
   deck's cards (which cards are in the deck is public, their order is not) and a fresh generator;
3. **rollouts**: every candidate is played in every world, then the rest of the round is played by the
   batched engine in one fused call (:func:`pi_env.engine.rollout`) with the ``policy`` kernel for
   every seat (default ``"rules"``: the engine's rules of thumb, which read no hidden case). The game
   is cut at the end of the current round (option ``horizon="round"``, default) by playing the copies
   as if it were the last round and removing the later rounds' bonus from the points
   (docs/rules.md §5: a correct solve scores its tier's points plus the round index, second
   edition); ``horizon="game"`` plays to the game's end instead;
4. **value**: ``horizon="round"``: the agent's score change minus the mean score change of the other
   players, in points, solve by solve as the rules score them (second edition: each wrong attempt
   floored at −5, the correct solve capped at 21; :func:`round_score_change` with
   :func:`pi_env.core.rules.wrong_solve_loss` and :func:`~pi_env.core.rules.solve_gain`);
   ``horizon="game"``: the agent's share of the win (1/k for k tied winners);
5. **choice**: all candidates meet the same worlds, deck orders and policy streams (common random
   numbers), so the comparison is paired. The agent keeps greedy's choice unless another
   candidate's mean value is higher by more than ``z`` standard errors of the paired difference
   (a one-step policy improvement of greedy, as :mod:`pi_env.agents.search`).

**Time budget** (``budget_ms``, default :data:`DEFAULT_BUDGET_MS`, timed from the start of
:meth:`act`): the worlds are played in chunks of :data:`CHUNK` worlds (all candidates of a chunk in
one batch); a chunk is only started if the time used plus the longest chunk so far fits in the
budget (the first chunk always). Every random number of a decision is drawn before the search, so
the agent's random stream never depends on timing, and ``budget_ms=None`` (no limit) replays a
decision exactly. :attr:`RolloutAgent.last` holds what the last decision did.

Assumptions (stated, not rules): standard games without variants (the observation carries neither;
in a duel the agent plays greedy's choice); investigator markers still on a tile are taken to be the
investigator's answer (the observation does not show marker moves; they change no answer).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import IN_DECK, SOLVE_BASE
from pi_env.core.rules import WRONG_SOLVE_PENALTY, edition_code, solve_gains, wrong_solve_losses
from pi_env.engine import GameConfig, step_inplace
from pi_env.engine.play import POLICIES, rollout
from pi_env.engine.state import State
from pi_env.solvers.hints import GAIN_TOLERANCE
from pi_env.solvers.worlds import world_sampler

from pi_env.agents.greedy import GreedyAgent, Situation, greedy_decision
from pi_env.agents.learned import state_from_observations

__all__ = ["RolloutAgent", "RolloutStats", "world_states", "candidates", "budgeted_chunks", "round_score_change",
           "DEFAULT_BUDGET_MS", "DEFAULT_WORLDS",
           "TOP_K", "CONFIDENCE_Z", "CHUNK", "HORIZONS"]

DEFAULT_BUDGET_MS = 200.0
"""Default time budget of one decision, milliseconds."""
DEFAULT_WORLDS = 48
"""Default number of sampled worlds per decision."""
TOP_K = 3
"""Queries with the highest information gain among the candidates (besides greedy's choice)."""
CONFIDENCE_Z = 3.0
"""A candidate replaces greedy's choice only if better by this many standard errors. Tuned on two-player
games against ``greedy`` (tuning seeds 1..4, games 0..99 of each; 40–100 games per setting, so only
large effects show): with ``z = 2`` 43.7 % (79 games) and 52.5 % with ``horizon="game"`` (80), with
``z = 3`` 55.6 % (72) and 51.1 % (47); adding "name the most likely case now" to the candidates
(``solve=True``) lost: 41.9 % (80 games, ``z = 3``) and 42.2 % (200 games, ``z = 2``) with 1.6–1.8
wrong solves per game against greedy's 0.35–0.7 — the rules-of-thumb continuation needs far more
turns than the exact solver to be sure, so rollouts overvalue guessing now."""
CHUNK = 16
"""Worlds per fused rollout call (times the number of candidates)."""
HORIZONS = ("round", "game")
"""Rollout horizons (module docstring, step 3)."""


def budgeted_chunks(total: int, chunk: int, start: float, budget_ms: "float | None",
                    clock: Callable[[], float]):
    """The chunks of a search's time budget (module docstring, *time budget*): yields ``int64[m]``
    row indices ``n .. n + m − 1`` of ``total`` rows, ``m ≤ chunk``, in order; the caller does a
    chunk's work before asking for the next. A chunk is started only if the time used since
    ``start`` (``clock`` seconds) plus the longest chunk so far fits in ``budget_ms`` milliseconds;
    the first always is; ``None``: every chunk. Two clock readings per chunk started."""
    n, longest = 0, 0.0
    budget = None if budget_ms is None else budget_ms / 1000.0
    while n < total:
        t0 = clock()
        if budget is not None and n > 0 and (t0 - start) + longest > budget:
            return
        idx = np.arange(n, min(n + chunk, total))
        yield idx
        n = int(idx[-1]) + 1
        longest = max(longest, clock() - t0)


@dataclass(frozen=True)
class RolloutStats:
    """What the last decision did: ``worlds`` played, ``elapsed_ms`` (by the agent's clock),
    ``candidates`` (action ids) with their ``means`` (mean value, module docstring step 4), and the
    ``action`` chosen."""

    worlds: int
    elapsed_ms: float
    candidates: tuple[int, ...]
    means: tuple[float, ...]
    action: int


def candidates(s: Situation, greedy: int, top_k: int = TOP_K, solve: bool = False) -> list[int]:
    """The actions the agent compares (module docstring, step 1): ``greedy`` first, then naming the
    most likely case, then the ``top_k`` queries of ``s`` with the highest gain above
    :data:`~pi_env.solvers.hints.GAIN_TOLERANCE` (ties: the lowest action id); only ``[greedy]``
    when at most one case is left."""
    if s.cases.size <= 1:
        return [greedy]
    out = [greedy, SOLVE_BASE + s.best_case] if solve else [greedy]
    if greedy >= SOLVE_BASE and not solve:
        return out
    useful = np.flatnonzero(s.gains > GAIN_TOLERANCE)
    if useful.size:
        order = useful[np.lexsort((s.actions[useful], -s.gains[useful]))]
        out += [int(s.actions[i]) for i in order[:top_k]]
    seen: list[int] = []
    for a in out:
        if a not in seen:
            seen.append(a)
    return seen


def world_states(observation: np.ndarray, num_players: int, worlds: np.ndarray, rng: np.random.Generator,
                 pending: bool = False, edition: str = "second") -> State:
    """Engine states of the observer's position in drawn worlds (module docstring, step 2).

    Players are numbered relative to the observer (it is player 0, seat ``j`` is player ``j``), as
    in :func:`pi_env.agents.learned.state_from_observations`, which copies the public part.

    Args:
        observation: the observer's flat ``int16[618 + 1912 * P]`` observation.
        num_players: ``P``.
        worlds: ``int64[S, P]`` case ids per relative player (e.g. from
            :func:`pi_env.solvers.worlds.sample_worlds` of the observer's knowledge); column 1 must
            be the case the observer holds.
        rng: draws each state's deck order and its generator state.
        pending: a player solved earlier in this rotation (``State.solved_this_rotation``; the
            observation does not show it, :class:`~pi_env.agents.greedy.Outlook` infers it).
        edition: scores: second edition (``solve_points`` = score) or first (the same; penalties
            are not shown per round, so ``penalty`` starts at 0).

    Returns:
        A :class:`State` of ``S`` games (``done`` false).

    Raises:
        ValueError: ``worlds`` of the wrong shape, a world whose column 1 is not the held case, or
            an observation whose deck size disagrees with its card places.
    """
    P = int(num_players)
    worlds = np.asarray(worlds, dtype=np.int64)
    if worlds.ndim != 2 or worlds.shape[1] != P:
        raise ValueError(f"worlds must be int64[S, {P}], got shape {list(worlds.shape)}")
    one = state_from_observations(np.asarray(observation)[None], P)
    held = one.case[0, 1 % P].astype(np.int64)
    held_id = int(held[0] * 140 + held[1] * 14 + held[2])
    if worlds.shape[0] and (worlds[:, 1 % P] != held_id).any():
        raise ValueError(f"worlds: column {1 % P} must be the held case {held_id}")
    deck_cards = np.flatnonzero(one.card_place[0] == IN_DECK).astype(np.int8)
    if deck_cards.size != int(one.deck_size[0]):
        raise ValueError(f"observation: deck size {int(one.deck_size[0])} but {deck_cards.size} cards in the deck")
    S = worlds.shape[0]
    st = one.take(np.zeros(S, dtype=np.int64))
    st.case[:, :, 0] = worlds // 140
    st.case[:, :, 1] = (worlds // 14) % 10
    st.case[:, :, 2] = worlds % 14
    st.deck[:] = 0
    for b in range(S):
        st.deck[b, :deck_cards.size] = rng.permutation(deck_cards)
    st.rng[:] = rng.integers(1, 2 ** 63, size=S, dtype=np.int64).astype(np.uint64)
    st.solved_this_rotation[:] = bool(pending)
    st.inv_markers[:] = st.inv_answer
    st.solve_points[:] = st.score
    st.penalty[:] = 0
    return st


def round_score_change(score: np.ndarray, wrong: np.ndarray, points: np.ndarray, edition: str) -> np.ndarray:
    """The score change of each player over the rest of a round, solve by solve (docs/rules.md §4.3,
    §5): its ``wrong`` wrong attempts first (a correct solve ends the player's round), each
    lowering the score by :func:`pi_env.core.rules.wrong_solve_loss`, then a correct solve worth
    ``points`` (0: none) raising it by :func:`pi_env.core.rules.solve_gain`. Second edition: the
    floor −5 and the cap 21 bound every solve, so two wrong attempts at −4 cost 1, not 4; first
    edition: ``points − 2 · wrong``.

    Args:
        score: ``int[...]``, the scores at the start (within the edition's bounds).
        wrong: ``int[...]``, the same shape, wrong attempts of each player.
        points: ``int[...]``, the same shape, the points of each player's correct solve
            (:func:`pi_env.core.rules.tier_points`), 0 without one.
        edition: ``"second"`` or ``"first"``.

    Returns:
        ``int64[...]``, the shape of ``score``.
    """
    ed = edition_code(edition)
    start = np.asarray(score, dtype=np.int64)
    s = start.ravel().copy()
    w = np.asarray(wrong, dtype=np.int64).ravel()
    for k in range(int(w.max(initial=0))):
        more = w > k
        s[more] -= wrong_solve_losses(s[more], ed)
    s += solve_gains(s, np.ascontiguousarray(np.asarray(points, dtype=np.int64).ravel()), ed)
    return s.reshape(start.shape) - start


class RolloutAgent(GreedyAgent):
    """Determinized-rollout player (see the module docstring).

    Args:
        budget_ms: time budget of one decision in milliseconds (``None``: no limit).
        worlds: worlds drawn per decision.
        top_k: highest-gain queries among the candidates.
        policy: the engine's rollout policy, ``"rules"`` (default) or ``"random"``
            (:data:`pi_env.engine.play.POLICIES`).
        horizon: ``"round"`` (default) or ``"game"`` (module docstring, step 3).
        z: standard errors by which a candidate must beat greedy's choice.
        edition, ration_investigators: as :class:`~pi_env.agents.greedy.GreedyAgent`.
        clock: monotonic clock in seconds (default :func:`time.perf_counter`).

    Raises:
        ValueError: a non-positive budget or world count, an unknown policy or horizon.
    """

    name = "rollout"

    def __init__(self, budget_ms: float | None = DEFAULT_BUDGET_MS, worlds: int = DEFAULT_WORLDS,
                 top_k: int = TOP_K, solve: bool = False, policy: str = "rules", horizon: str = "round", z: float = CONFIDENCE_Z,
                 edition: str = "second", ration_investigators: bool = True,
                 clock: Callable[[], float] = time.perf_counter):
        super().__init__(edition=edition, ration_investigators=ration_investigators)
        if budget_ms is not None and not budget_ms > 0:
            raise ValueError(f"budget_ms must be positive or None, got {budget_ms!r}")
        if int(worlds) < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds!r}")
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
        if horizon not in HORIZONS:
            raise ValueError(f"unknown horizon {horizon!r}; known: {', '.join(HORIZONS)}")
        self.budget_ms = budget_ms
        self.worlds = int(worlds)
        self.top_k = int(top_k)
        self.solve = bool(solve)
        self.policy = policy
        self.horizon = horizon
        self.z = float(z)
        self.clock = clock
        self.last: RolloutStats | None = None

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        super().reset(num_players, board, seed)
        self._config = GameConfig(num_players=num_players, edition=self.edition, board=self.board)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        start = self.clock()
        s = self.situation(observation, action_mask)
        greedy = greedy_decision(s, self.denial_weight)
        cands = candidates(s, greedy, self.top_k, self.solve)
        if len(cands) < 2:
            self.last = RolloutStats(0, 1000 * (self.clock() - start), tuple(cands), (), greedy)
            return greedy
        S, C, P = self.worlds, len(cands), self.num_players
        # every random number of this decision, drawn before the (timed) search
        worlds = world_sampler(s.knowledge).sample(S, self.rng)
        base = world_states(observation, P, worlds, self.rng, pending=s.outlook.pending, edition=self.edition)
        streams = self.rng.integers(1, 2 ** 63, size=S, dtype=np.int64).astype(np.uint64)
        values = np.zeros((S, C))
        n = 0
        for idx in budgeted_chunks(S, CHUNK, start, self.budget_ms, self.clock):
            values[idx] = self._play(base.take(idx), cands, streams[idx])
            n = int(idx[-1]) + 1
        choice = self._choose(cands, values[:n])
        self.last = RolloutStats(n, 1000 * (self.clock() - start), tuple(cands),
                                 tuple(float(v) for v in values[:n].mean(axis=0)), choice)
        return choice

    def _play(self, worlds: State, cands: list[int], streams: np.ndarray) -> np.ndarray:
        """``float64[m, C]``: the value of each candidate in each of ``m`` world states."""
        m, C, P = worlds.batch_size, len(cands), self.num_players
        cfg = self._config
        st = worlds.take(np.tile(np.arange(m), C))  # candidate-major: row c * m + w
        round_now = int(st.round[0])
        if self.horizon == "round":
            st.round[:] = cfg.num_rounds - 1
        score0 = st.score.astype(np.int64)
        solved0 = st.solved.copy()
        step_inplace(st, np.repeat(np.asarray(cands, dtype=np.int64), m), cfg)
        res = rollout(st, cfg, self.policy, seed=np.tile(streams, C).copy(), copy=False, parallel=False)
        if self.horizon == "game":
            share = res.winners / np.maximum(res.winners.sum(axis=1, keepdims=True), 1)
            v = share[:, 0]
        else:
            points = st.solve_points.astype(np.int64) - score0
            if self.edition == "second":
                points -= (st.solved & ~solved0) * (cfg.num_rounds - 1 - round_now)
            wrong = st.penalty.astype(np.int64) // WRONG_SOLVE_PENALTY
            delta = round_score_change(score0, wrong, points, self.edition)
            v = delta[:, 0] - delta[:, 1:].mean(axis=1) if P > 1 else delta[:, 0]
        return v.astype(np.float64).reshape(C, m).T

    def _choose(self, cands: list[int], values: np.ndarray) -> int:
        """Greedy's choice (column 0) unless another is better by ``z`` standard errors."""
        n = values.shape[0]
        if n < 2:
            return cands[0]
        diff = values - values[:, :1]
        mean = diff.mean(axis=0)
        se = diff.std(axis=0, ddof=1) / math.sqrt(n)
        ok = mean > self.z * se + 1e-12
        ok[0] = False
        if not ok.any():
            return cands[0]
        best = int(np.flatnonzero(ok)[np.argmax(mean[ok])])
        return cands[best]
