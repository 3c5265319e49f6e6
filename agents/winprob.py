"""The ``winprob`` agent: greedy, except that in the game's last round it decides between solving
now and waiting by a simulated **probability of winning the game**, not by expected points.

Greedy (:mod:`pi_env.agents.greedy`) maximises the expected points of the current round. After the
last round only the ranking counts (docs/rules.md §5: highest score, then most unused investigator
tiles, then shared), so in the last round a player behind should take a gamble greedy refuses and a
player ahead should not risk a −2 that greedy accepts. On every turn of the last round
(second edition, standard game) the agent:

1. reads greedy's :class:`~pi_env.agents.greedy.Situation` and greedy's choice ``g``;
2. forms the two plans — **solve now** (name the most likely case, probability ``p``) and **wait**
   (take greedy's query, or the query of greedy's step 4 when greedy solves, or greedy's waiting clue
   when no query is informative; then, at the next turn, name the most likely case if that is worth
   more than 0 points, with the probability ``p_k`` of the most likely case after answer ``k``;
   with ``continuation=True``, if it does not, solve — counted correct, as the opponents' solves — on
   the ``1 + T``-th turn after this one, ``T`` drawn from the same fitted turns-to-solve model as the
   opponents' (:func:`~pi_env.solvers.turns.turns_to_solve_pmf`) at ``2^h`` cases, ``h`` the
   expected entropy (bits) of its case distribution after the query; without it, it gives up);
3. plays both plans in the same ``samples`` simulated continuations of the round
   (:func:`plan_win_shares`, common random numbers): each other seat that has not solved solves on
   its ``T``-th own turn, ``T`` drawn from greedy's fitted opponent model
   (:attr:`~pi_env.agents.greedy.Outlook.pmf`, an attempt counted as a correct solve, as greedy
   does), scoring its tier's points then; tiers advance at the end of a rotation in which someone
   solved, the round ends at the end of a rotation in which at most one player has not attempted
   (docs/rules.md §5, second edition); the final scores are ranked with the tiebreak by unused
   investigator tiles (held as now);
4. where greedy solves, it takes the query instead if waiting has the higher mean win share (1/k
   for k tied winners) by more than the margin (:func:`margin_for`); where greedy waits, it solves
   instead if solving has the higher win share by more than the margin and — without
   ``continuation`` — only if the round surely ends before its next turn (no simulated
   continuation reaches it: then the plan "wait" is exact but for the opponents after it this
   rotation).

**Player counts** (:data:`EARLY_SOLVES`, :data:`MARGINS`, :data:`OPP_CORRECT`). With 4 players the
other plan must beat greedy's choice by a win share of more than 0.05 (:data:`MARGINS`; 0 with 2,
3 and 5 players, whose play is unchanged). Chosen by paired screens on tuning seeds 4120–4122 (800
games each, ``winprob`` in one seat against three ``greedy``, against four ``greedy`` in the same
deals; docs/tuning-log.md, *winprob at 4 players, 2026-12-02*): with the margin the agent won
+1.9 ± 0.5, +2.5 ± 0.5 and +2.2 ± 0.5 points of win share more than greedy in its seat (one
standard error). Without it (margin 0; +0.6 ± 0.6 on seed 4120) the changes of greedy's query
into a solve that the simulation valued at less than 0.1 of a win share (254 of 300 games) lost on
balance (−0.55 points of the mean), the 46 valued higher won (+18.8 ± 4.8 points in those games):
the model's small gains are not to be trusted. Until then greedy's query became a solve only on a
surely last turn with 4 players (:data:`EARLY_SOLVES` ``{4: False}``; +0.2 ± 0.2 on seed 4120, 21 of 800 games with a decision
other than greedy's): in 60 games of tuning seed 3121 (denial weight 1 then) most early solves had
been long shots taken when behind. Counting only 80 % of the simulated opponents' attempts as
correct (``opp_correct=0.8``) screened about as well (+2.0, +2.8, +1.7) and is not the default.

The choices of step 4 are measured, not rules: without the continuation the plan "wait" looks one
query ahead and then gives up, so it undervalues waiting whenever more turns follow; letting it
turn greedy's queries into solves anyway made the agent solve far too early (tuning seed 3101,
300 two-player games against greedy: 34.0 % wins, 1.21 wrong solves per game against greedy's 0.6);
the tuning figures of the options are in docs/tuning-log.md.

In the earlier rounds and in the first edition it plays exactly as greedy; in a duel (the observation
does not say the mode) it values the game as a standard one, as greedy does. The simulation
is a model, not the rules: opponents who attempted wrongly are treated like those who have not
attempted (they may still solve), the agent stops after a wrong attempt of its own, and the model's
opponents do not react to the agent's plan. Every random number comes from the agent's generator
(:meth:`~pi_env.agents.base.Agent.reset`'s seed), so a seeded game replays exactly.

Measured against ``greedy``: see the strength tables of docs/results.md.
"""

from __future__ import annotations

import numpy as np

from pi_env.core.constants import SOLVE_BASE
from pi_env.engine.observe import decode_observation
from pi_env.core.rules import edition_code, solve_gains, tier_points, tiers_after_rotation, wrong_solve_losses

from pi_env.agents.greedy import (GreedyAgent, Outlook, Situation, best_query, greedy_decision, turns_to_solve_pmf,
                                  waiting_clue)

__all__ = ["WinProbAgent", "plan_win_shares", "greedy_opponents", "OPPONENT_MODELS", "answer_classes", "win_shares",
           "DEFAULT_SAMPLES", "MARGIN", "CONTINUATION", "EARLY_SOLVES", "early_solves_for", "MARGINS", "margin_for",
           "OPP_CORRECT", "opp_correct_for", "ROUNDS_IN_GAME"]

DEFAULT_SAMPLES = 2000
"""Simulated continuations per last-round decision."""
MARGIN = 0.0
"""Win share by which the other plan must beat greedy's choice."""
CONTINUATION = True
"""Default of the option ``continuation`` (module docstring, steps 2 and 4). Tuning seeds 3101 and
3102, 300 two-player games each against greedy, win share minus greedy's own share in the same
games (greedy against greedy, paired): with it +2.8 (± 1.9) and +4.3 (± 2.0) points (0.95–0.98
wrong solves per game), without it +1.0 (± 0.5) on seed 3101."""
EARLY_SOLVES: dict[int, bool] = {}
"""By player count where it differs from ``True``: whether the agent may name a case where greedy
queries while its next turn may still come this round (module docstring, step 4, *player counts*).
``False``: only on a surely last turn (no outcome of the seats after it in this rotation leaves the
round on, :meth:`~pi_env.agents.greedy.Outlook.next_turn`); the simulation then runs only where
greedy solves or on such a turn. (4 players had ``False`` until the 4-player settings of
:data:`MARGINS` and :data:`OPP_CORRECT`.)"""
MARGINS: dict[int, float] = {4: 0.05}
"""By player count where it differs from :data:`MARGIN`: the win share by which the other plan must
beat greedy's choice (module docstring, *player counts*)."""
OPP_CORRECT: dict[int, float] = {}
"""By player count where it differs from 1: the probability that a simulated opponent's attempt is
correct (:func:`plan_win_shares`; module docstring, *player counts*)."""
ROUNDS_IN_GAME = 3
"""Rounds of a standard game (docs/rules.md §5)."""


OPPONENT_MODELS = ("fitted", "greedy")
"""Values of :class:`WinProbAgent`'s ``opponent_model``."""


def greedy_opponents(o: Outlook) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The calibrated model of greedy opponents (:func:`pi_env.solvers.turns.greedy_turns`) for
    :func:`plan_win_shares`' ``opponents``: per seat of the outlook, from its public case count,
    the current tier and whether it has attempted, the turns to its next attempt and their correctness,
    and the same after a wrong attempt (the cell "attempted before", same count). Rows of the agent,
    solved and idle seats are zero. ``float64[P, H]`` each, ``H`` the model's horizon."""
    from pi_env.solvers.turns import greedy_turns

    P = o.num_players
    H = greedy_turns(1, 0, False)[0].size
    out = [np.zeros((P, H)) for _ in range(4)]
    for j in range(1, P):
        if o.solved[j] or o.idle[j]:
            continue
        c = int(o.counts[j])
        out[0][j], out[1][j] = greedy_turns(c, o.tier, bool(o.seat_attempted[j]))
        out[2][j], out[3][j] = greedy_turns(c, o.tier, True)
    return out[0], out[1], out[2], out[3]


def early_solves_for(num_players: int) -> bool:
    """:data:`EARLY_SOLVES` of ``num_players`` (``True`` without an entry)."""
    return EARLY_SOLVES.get(int(num_players), True)


def margin_for(num_players: int) -> float:
    """:data:`MARGINS` of ``num_players`` (:data:`MARGIN` without an entry)."""
    return MARGINS.get(int(num_players), MARGIN)


def opp_correct_for(num_players: int) -> float:
    """:data:`OPP_CORRECT` of ``num_players`` (1 without an entry)."""
    return OPP_CORRECT.get(int(num_players), 1.0)

_ROTATIONS = 30  # rotations simulated at most (the round ends far earlier in practice)


def answer_classes(codes: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The answer distribution of a query: ``(P(k), p_k)`` over the answer codes ``k`` that occur,
    ``P(k)`` the total probability of the cases answering ``k`` and ``p_k`` the probability of the
    most likely of them given ``k`` (docs/rules.md §4: an answer constrains only the asker's case).

    Args:
        codes: ``int[N]`` answer code per case (:func:`pi_env.solvers.hints.answer_matrix` row).
        probs: ``float64[N]`` case probabilities (sum 1).

    Returns:
        ``float64[K]`` each: class probabilities (sum 1) and most-likely-case probabilities, by
        ascending code.
    """
    codes = np.asarray(codes, dtype=np.int64)
    probs = np.asarray(probs, dtype=np.float64)
    keys, inv = np.unique(codes, return_inverse=True)
    mass = np.zeros(keys.size)
    best = np.zeros(keys.size)
    np.add.at(mass, inv, probs)
    np.maximum.at(best, inv, probs)
    return mass, best / np.where(mass > 0, mass, 1.0)


def win_shares(scores: np.ndarray, inv_left: np.ndarray) -> np.ndarray:
    """``float64[S]``: seat 0's share of the win in each of ``S`` final positions (docs/rules.md §5:
    highest score, then most unused investigator tiles, then shared equally).

    Args:
        scores: ``int[S, P]`` final scores.
        inv_left: ``int[P]`` unused investigator tiles.
    """
    scores = np.asarray(scores, dtype=np.int64)
    key = scores * 16 + np.asarray(inv_left, dtype=np.int64)[None, :]  # tiles are at most 5
    top = key.max(axis=1, keepdims=True)
    winners = key == top
    return np.where(winners[:, 0], 1.0 / winners.sum(axis=1), 0.0)


def _calibrated_draws(o: Outlook, opponents, S: int, rng: np.random.Generator):
    """Draws of :func:`plan_win_shares`' ``opponents`` model: ``(T, right, T2, right2)``, ``[S, P]``
    each (turns ``1 << 30``: never)."""
    P = o.num_players
    T = np.full((S, P), 1 << 30, dtype=np.int64)
    T2 = T.copy()
    right, right2 = np.ones((S, P), dtype=bool), np.ones((S, P), dtype=bool)
    for j in range(1, P):
        if o.solved[j] or o.idle[j]:
            continue
        for tt, ok, pmf, cor in ((T, right, opponents[0][j], opponents[1][j]),
                                 (T2, right2, opponents[2][j], opponents[3][j])):
            pmf = np.asarray(pmf, dtype=np.float64)
            w = np.append(pmf, max(0.0, 1.0 - float(pmf.sum())))
            t = rng.choice(w.size, size=S, p=w / w.sum())
            hit = t < pmf.size
            tt[hit, j] = t[hit] + 1
            ok[:, j] = rng.random(S) < np.asarray(cor, dtype=np.float64)[np.minimum(t, pmf.size - 1)]
    return T, right, T2, right2


def plan_win_shares(o: Outlook, scores: np.ndarray, inv_left: np.ndarray, p: float, mass: np.ndarray,
                    best: np.ndarray, samples: int, rng: np.random.Generator,
                    me_pmf: "np.ndarray | None" = None, opp_correct: float = 1.0,
                    opponents: "tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None" = None
                    ) -> tuple[float, float, float]:
    """Mean win share of the two plans (module docstring, steps 2–3) over ``samples`` simulated
    continuations of the last round, both plans meeting the same draws.

    Args:
        o: the agent's outlook (relative seats, 0 = the agent; tier, turn order, solved and
            attempted flags, idle seats and the opponents' turns-to-solve distributions).
        scores: ``int[P]`` current scores (relative seats).
        inv_left: ``int[P]`` unused investigator tiles.
        p: probability that the most likely case is the agent's (plan "solve now").
        mass, best: :func:`answer_classes` of the plan "wait"'s query.
        samples: continuations simulated.
        rng: the source of every draw.
        me_pmf: ``float64[H]`` (option) plan "wait" goes on after a next turn without a solve: the
            agent then solves (counted correct, as the opponents) on its ``1 + T``-th turn after
            this one, ``T`` drawn from ``me_pmf``; ``None``: it gives up after that turn.
        opp_correct: probability that an opponent's simulated attempt names its case correctly
            (default 1: an attempt counted as a solve, as greedy's model); a wrong one costs it 2
            points (down to the floor, docs/rules.md §5) and counts as an attempt, not a solve, and
            the seat does not attempt again in the simulation. Below 1 it draws ``S · P`` more
            uniforms after all the others (the draws of the default are unchanged).

        opponents: (option) the opponents' calibrated model instead of ``o.pmf`` and ``opp_correct``
            (:func:`greedy_opponents`): ``(pmf, correct, pmf_again, correct_again)``,
            ``float64[P, H]`` each: each seat's next attempt comes on its ``T``-th own turn,
            ``T ~ pmf[j]`` (the mass missing from 1: no attempt), and is correct with probability
            ``correct[j, T − 1]``; a wrong one costs 2 points (floor −5), counts as an attempt,
            and the seat's next attempt comes ``T'`` own turns later, ``T' ~ pmf_again[j]``,
            correct with ``correct_again[j, T' − 1]`` (a third attempt is not simulated). Its
            draws come after all the others (the draws without it are unchanged).

    Raises:
        ValueError: ``opp_correct`` outside ``[0, 1]``.

    Returns:
        ``(solve_now, wait, next_turn)``: the plans' mean win shares in ``[0, 1]`` and the share of
        continuations in which the agent's next turn comes this round (plan "wait").
    """
    if not 0.0 <= opp_correct <= 1.0:
        raise ValueError(f"opp_correct must be a probability in [0, 1], got {opp_correct!r}")
    P, S = o.num_players, int(samples)
    scores = np.asarray(scores, dtype=np.int64)
    H = o.pmf.shape[1]
    # every draw up front: opponents' turns to solve, the agent's answer class and correctness
    T = np.full((S, P), 1 << 30, dtype=np.int64)
    for j in range(1, P):
        if not o.solved[j] and not o.idle[j] and o.pmf[j].sum() > 0:
            w = o.pmf[j] / o.pmf[j].sum()
            T[:, j] = rng.choice(H, size=S, p=w) + 1
    u_now = rng.random(S)
    k = rng.choice(mass.size, size=S, p=mass / mass.sum())
    u_next = rng.random(S)
    T_me = np.full(S, 1 << 30, dtype=np.int64)
    if me_pmf is not None and np.sum(me_pmf) > 0:
        T_me = rng.choice(len(me_pmf), size=S, p=np.asarray(me_pmf) / np.sum(me_pmf)) + 2
    opp_right = np.ones((S, P), dtype=bool)
    if opp_correct < 1.0:
        opp_right = rng.random((S, P)) < opp_correct
    T2 = right2 = None  # the calibrated model: own turns from a wrong attempt to the next one
    if opponents is not None:
        T, opp_right, T2, right2 = _calibrated_draws(o, opponents, S, rng)
    ed = edition_code(o.edition)  # scores by pi_env.core.rules (docs/rules.md §5)
    pts = np.array([tier_points(t, o.round_index, P, ed) for t in range(P + 1)])  # tier > P-2: 0
    out = []
    reached = np.zeros(S, dtype=bool)
    for plan in ("now", "wait"):
        sc = np.tile(scores, (S, 1))
        solved = np.tile(o.solved.astype(bool), (S, 1))
        attempted = np.tile(o.seat_attempted.astype(bool), (S, 1))
        attempted[:, 0] = o.attempted
        turns = np.zeros((S, P), dtype=np.int64)
        tier = np.full(S, o.tier, dtype=np.int64)
        rot_solved = np.full(S, o.pending)
        on = np.ones(S, dtype=bool)

        def solve(mask, seat, correct):
            if not mask.any():
                return
            right = mask & correct
            wrong = mask & ~correct
            sc[:, seat] = np.where(right, sc[:, seat] + solve_gains(sc[:, seat], pts[np.minimum(tier, P)], ed),
                                   sc[:, seat])
            sc[:, seat] = np.where(wrong, sc[:, seat] - wrong_solve_losses(sc[:, seat], ed), sc[:, seat])
            solved[:, seat] |= right
            attempted[:, seat] |= mask
            rot_solved[:] |= right

        # the agent's turn now
        if plan == "now":
            solve(np.ones(S, dtype=bool), 0, u_now < p)
        my_turns = 0
        start = o.order.index(0) + 1
        for r in range(_ROTATIONS):
            seats = o.order[start:] if r == 0 else o.order
            for j in seats:
                act = on & ~solved[:, j]
                if j == 0:
                    if plan == "wait" and my_turns == 0:
                        my_turns = 1
                        reached = act.copy()
                        pk = best[k]
                        gain = solve_gains(sc[:, 0], pts[np.minimum(tier, P)], ed)
                        go = act & (pk * gain - (1 - pk) * wrong_solve_losses(sc[:, 0], ed) > 0)
                        solve(go, 0, u_next < pk)
                    elif plan == "wait":
                        my_turns += 1
                        solve(act & (my_turns == T_me), 0, np.ones(S, dtype=bool))
                    continue
                turns[:, j] += act
                solve(act & (turns[:, j] == T[:, j]), j, opp_right[:, j])
                if T2 is not None and right2 is not None:
                    solve(act & ~opp_right[:, j] & (turns[:, j] == T[:, j] + T2[:, j]), j, right2[:, j])
            # end of the rotation (docs/rules.md §5, second edition; no nick of time: not observed)
            tier = tiers_after_rotation(tier, rot_solved, solved.any(axis=1), False, P)
            rot_solved[:] = False
            on &= (~attempted).sum(axis=1) > 1
            if not on.any():
                break
        out.append(float(win_shares(sc, inv_left).mean()))
    return out[0], out[1], float(reached.mean())


class WinProbAgent(GreedyAgent):
    """Greedy with a win-probability choice between solving now and waiting in the last round
    (module docstring).

    Args:
        samples: simulated continuations per last-round decision.
        margin: win share by which the other plan must beat greedy's choice; ``None`` (default): by
            player count, :func:`margin_for` (0.0 but with 4 players).
        continuation: the plan "wait" goes on after its next turn (module docstring, step 2) and
            may then also turn greedy's queries into solves (step 4).
        early_solves: with ``continuation``, greedy's query may become a solve on any turn (step 4);
            ``False``: only on a surely last turn; ``None`` (default): by player count,
            :func:`early_solves_for` (``True``).
        opp_correct: probability that a simulated opponent's attempt is correct
            (:func:`plan_win_shares`; 1: an attempt counted as a solve, as greedy's model); ``None``
            (default): by player count, :func:`opp_correct_for` (1 but with 4 players).
        gap_min, gap_max: greedy's query may become a solve only when the leader among the other
            seats is at least ``gap_min`` and at most ``gap_max`` points ahead of the agent
            (negative: the agent leads); elsewhere greedy's query stands unsimulated (defaults
            ``−inf``, ``inf``: no condition). A screening option (4 players, docs/tuning-log.md).
        opponent_model: ``"fitted"`` (default) the simulated opponents follow greedy's fitted model
            (:attr:`~pi_env.agents.greedy.Outlook.pmf`, an attempt counted as a correct solve
            unless ``opp_correct``); ``"greedy"`` the model calibrated on greedy opponents
            (:func:`greedy_opponents`: wrong attempts are wrong; ``opp_correct`` is then not used),
            in the simulation and in the test whether the agent's next turn may come
            (:meth:`~pi_env.agents.greedy.Outlook.greedy_hazard`).
        edition, ration_investigators: as :class:`~pi_env.agents.greedy.GreedyAgent`.
        **kwargs: further options of :class:`~pi_env.agents.greedy.GreedyAgent` (``denial_weight``).

    Raises:
        ValueError: ``samples < 1``, a negative or NaN margin, an ``opp_correct`` outside
            ``[0, 1]``, a NaN gap, ``gap_min > gap_max`` or an unknown ``opponent_model``.
    """

    name = "winprob"

    def __init__(self, samples: int = DEFAULT_SAMPLES, margin: float | None = None, edition: str = "second",
                 ration_investigators: bool = True, continuation: bool = CONTINUATION,
                 early_solves: bool | None = None, opp_correct: float | None = None, gap_min: float = -np.inf,
                 gap_max: float = np.inf, opponent_model: str = "fitted", **kwargs):
        super().__init__(edition=edition, ration_investigators=ration_investigators, **kwargs)
        if opponent_model not in OPPONENT_MODELS:
            raise ValueError(f"opponent_model must be one of {', '.join(OPPONENT_MODELS)}, got {opponent_model!r}")
        self.opponent_model = opponent_model
        if opp_correct is not None and not 0.0 <= opp_correct <= 1.0:
            raise ValueError(f"opp_correct must be a probability in [0, 1], got {opp_correct!r}")
        if not gap_min <= gap_max:
            raise ValueError(f"gap_min must be at most gap_max (neither NaN), got {gap_min!r} and {gap_max!r}")
        self.gap_min, self.gap_max = float(gap_min), float(gap_max)
        self.opp_correct_option = None if opp_correct is None else float(opp_correct)
        self.early_solves = None if early_solves is None else bool(early_solves)
        if int(samples) < 1:
            raise ValueError(f"samples must be at least 1, got {samples!r}")
        if margin is not None and not margin >= 0:
            raise ValueError(f"margin must be non-negative, got {margin!r}")
        self.samples = int(samples)
        self.margin_option = None if margin is None else float(margin)
        self.continuation = bool(continuation)
        self.last: tuple[float, float, float] | None = None
        """``plan_win_shares`` of the last decision (``None`` when it played greedy's choice unexamined)."""

    @property
    def margin(self) -> float:
        """The option ``margin``, or :func:`margin_for` the player count (:data:`MARGIN` before
        :meth:`reset`)."""
        if self.margin_option is not None:
            return self.margin_option
        return margin_for(self.num_players) if hasattr(self, "num_players") else MARGIN

    @property
    def opp_correct(self) -> float:
        """The option ``opp_correct``, or :func:`opp_correct_for` the player count (1 before
        :meth:`reset`)."""
        if self.opp_correct_option is not None:
            return self.opp_correct_option
        return opp_correct_for(self.num_players) if hasattr(self, "num_players") else 1.0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        s = self.situation(observation, action_mask)
        g = greedy_decision(s, self.denial_weight)
        self.last = None
        o = s.outlook
        if (self.edition != "second" or s.cases.size <= 1 or o.round_index != ROUNDS_IN_GAME - 1
                or o.attempted):
            return g
        return self.decide(s, observation, g)

    def decide(self, s: Situation, observation: np.ndarray, g: int) -> int:
        """The plan of step 4 (module docstring) given greedy's choice ``g``."""
        solve = SOLVE_BASE + s.best_case
        allowed = early_solves_for(self.num_players) if self.early_solves is None else self.early_solves
        early = self.continuation and allowed
        calibrated = self.opponent_model == "greedy"
        outcomes = s.outlook.next_turn(*s.outlook.greedy_hazard()) if calibrated else s.outlook.next_turn()
        if g < SOLVE_BASE and not allowed and any(on and prob > 0 for prob, on, _ in outcomes):
            return g  # the round may go on to the agent's next turn: greedy's query stands, unsimulated
        d = decode_observation(np.asarray(observation), self.num_players)
        if g < SOLVE_BASE and (self.gap_min > -np.inf or self.gap_max < np.inf):
            lead = int(np.max(d["score"][1:])) - int(d["score"][0])
            if not self.gap_min <= lead <= self.gap_max:
                return g  # greedy's query stands, unsimulated (the gap condition)
        if g >= SOLVE_BASE:
            b = best_query(s, self.denial_weight)
            if b is not None:
                query, codes = int(s.actions[b]), s.answers[b]
            elif s.legal_clues.size:
                query, codes = waiting_clue(s), np.zeros(s.cases.size, dtype=np.int64)
            else:
                return g
        else:
            query = g
            pos = np.flatnonzero(s.actions == g)
            codes = s.answers[pos[0]] if pos.size else np.zeros(s.cases.size, dtype=np.int64)
        mass, best = answer_classes(codes, s.probs)
        me_pmf = None
        if self.continuation:
            left = float(-(s.probs * np.log2(np.maximum(s.probs, 1e-300))).sum() + (mass * np.log2(np.maximum(mass, 1e-300))).sum())
            me_pmf = turns_to_solve_pmf(max(1, int(round(2.0 ** left))), s.outlook.pmf.shape[1])
        now, wait, nxt = self.plan_shares(s, observation, d, query, codes, mass, best, me_pmf)
        self.last = (now, wait, nxt)
        if g >= SOLVE_BASE:
            return query if wait > now + self.margin else g
        return solve if (nxt == 0.0 or early) and now > wait + self.margin else g

    def plan_shares(self, s: Situation, observation: np.ndarray, d: dict, query: int, codes: np.ndarray,
                    mass: np.ndarray, best: np.ndarray, me_pmf: "np.ndarray | None") -> tuple[float, float, float]:
        """``(solve_now, wait, next_turn)`` of step 3 (module docstring): :func:`plan_win_shares` with
        the agent's options. ``d`` is the decoded observation, ``query`` the plan "wait"'s action and
        ``codes`` (``int[N]``) its answer per case of ``s.cases``; a subclass may simulate otherwise
        (:class:`pi_env.agents.winrollout.WinRolloutAgent`)."""
        opponents = greedy_opponents(s.outlook) if self.opponent_model == "greedy" else None
        return plan_win_shares(s.outlook, d["score"], d["inv_left"], s.p_best, mass, best, self.samples,
                               self.rng, me_pmf, self.opp_correct, opponents)
