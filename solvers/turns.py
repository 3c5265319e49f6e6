"""The rules facts of a player's turn, and what solving now or waiting is worth (docs/rules.md §4–§7).

:func:`pi_env.solvers.hints.hint` compares **solving now** with **waiting** — one more query, the
best one, then solving on the player's next turn. Whether that next turn comes, and at which tier,
is decided by the rules and by what the other players do before it. A :class:`TurnContext` holds
the facts of the position that matter (:func:`turn_context` reads them from a record); the
functions here turn them into values:

* **points** (:meth:`TurnContext.gain`, :meth:`TurnContext.loss`): a correct solve at tier ``k``
  scores ``[7, 5, 3, 1][k] + (round − 1)`` in the second edition, ``[7, 5, 3, 1][k]`` in the first
  (0 for a tier the player count does not have); a wrong one costs 2. The second edition caps the
  score at 21 and floors it at −5: with the player's score known, a solve gains at most up to the
  cap and a wrong one costs at most down to the floor (docs/rules.md §5; the engine's rules,
  :func:`pi_env.core.rules.tier_points`, :func:`~pi_env.core.rules.solve_gain`,
  :func:`~pi_env.core.rules.wrong_solve_loss`). In a **duel** (§7) the values
  are round results: +1 the player wins the round, 0 a draw, −1 the opponent wins it.
* **solving now** (:func:`solve_value`): ``E_now = p · gain − (1 − p) · loss``. Duel: as the
  round's second player ``2p − 1`` (right: it wins; wrong: the opponent wins); as its first player
  ``p · (1 − r) − (1 − p)``, ``r`` the opponent's chance to draw with a correct solve in its one more
  turn (:func:`opponent_reply`); in that one more turn itself ``−(1 − p)`` (right: a draw; anything
  else loses).
* **waiting** (:func:`wait_outcomes`, :func:`wait_value`): the player's next turn is in the next
  rotation. Before it, the players after it in this rotation act, then the end-of-rotation checks
  run. The round ends there — waiting then scores nothing more this round — when (second edition)
  at most one player has not attempted a solve, (first edition) at most one player has not solved
  (docs/rules.md §5; players finished by the incorrect-information rule count as done), (nick of time,
  §6) some player has solved and the tier is the last, or (safeguard) the rotation is the
  ``max_rotations``-th. The next turn's tier is one higher when anyone solves in this rotation
  (nick of time: when anyone has solved this round; :func:`pi_env.core.rules.tier_after_rotation`).
  Which of the players after this one attempt is not a rule: each attempts on its coming turn
  with probability ``h``, the fitted opponent model of :func:`turns_to_solve_pmf` (``h = P(T =
  1)`` from how many cases its public information leaves), independently, an attempt counted as a
  correct solve (the cautious reading for the tier). ``E_wait = Σ_outcomes P(outcome) · [round goes on] · max(0, q · gain(tier then) −
  (1 − q) · loss)`` with ``q`` the expected probability of the most likely case after the query
  (never attempting is worth 0, hence the ``max``). Duel: the opponent acts before the player's
  next turn (after it in this rotation when the player is the round's first player, else at the
  start of the next); if it attempts (probability ``h``, counted as correct) the round is lost
  (first player) or the player gets one more turn worth ``−(1 − q)`` (second player); the safeguard
  makes the round a draw (0).

With facts missing (``TurnContext.attempted is None``, e.g. :func:`hint` called with only a tier)
the next turn is assumed to come, one tier later: the reading of earlier versions.

A second opponent model, **calibrated on greedy opponents** (:func:`greedy_turns`,
:func:`greedy_hazard`), separates attempts from correct solves: from a seat's
public case count, the tier and whether it has attempted this round, the distribution of the own
turn of its next attempt and that attempt's chance to be correct, estimated from games of four
``greedy`` (the counts in ``pi_env/core/data/greedy_opponents.json``, written by
:mod:`pi_env.experiments.opponent_calibration`; its seeds in :func:`greedy_opponent_table`). It is
an option of greedy's variants and of ``winprob`` (:meth:`pi_env.agents.greedy.Outlook.greedy_hazard`),
not the model of :func:`wait_outcomes`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from itertools import product

import numpy as np
from scipy.special import ndtr

from pi_env.core.constants import DEFAULT_MAX_ROTATIONS
from pi_env.core.errors import PIError
from pi_env.core.rules import (WRONG_SOLVE_PENALTY, edition_code, finished_for_round_end, last_tier,
                               nick_of_time_ends_round, round_ends_after_rotation, solve_gain,
                               tier_after_rotation, tier_points, wrong_solve_loss)
from pi_env.records.types import INCORRECT, SOLVE, GameRecord

__all__ = ["TurnContext", "WaitOutcome", "turn_context", "solve_value", "wait_outcomes", "wait_value",
           "turns_to_solve_pmf", "attempt_hazard", "TURNS_MEAN", "TURNS_SD", "GREEDY_HAZARD_BINS",
           "COUNT_EDGES", "SHRINK", "hazard_bin", "greedy_opponent_table", "shrunk_rates", "greedy_turns",
           "greedy_hazard"]

TURNS_MEAN = (1.15, 0.56)
"""``μ = a + b · log2 n``: mean own turns until a player with ``n`` public cases solves."""
TURNS_SD = (0.45, 0.07)
"""``σ = a + b · log2 n``: their spread."""


def turns_to_solve_pmf(count: int, horizon: int = DEFAULT_MAX_ROTATIONS) -> np.ndarray:
    """``float64[horizon]``: ``P(T = t + 1)`` for a player whose public information leaves
    ``count`` cases: ``T = 1`` if ``count <= 1``, else a normal ``N(μ, σ)`` rounded to ``1, 2, ...``
    with ``μ = 1.15 + 0.56 · log2 n``, ``σ = 0.45 + 0.07 · log2 n``; the mass beyond the horizon is on
    the last entry. A fitted model, not a rule: see :mod:`pi_env.agents.greedy` for the fit (40
    four-player games of the built-in agents).

    >>> turns_to_solve_pmf(1, 4).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    out = np.zeros(horizon)
    if count <= 1:
        out[0] = 1.0
        return out
    L = math.log2(count)
    mu, sd = TURNS_MEAN[0] + TURNS_MEAN[1] * L, TURNS_SD[0] + TURNS_SD[1] * L
    edges = ndtr((np.arange(1, horizon) + 0.5 - mu) / sd)  # P(T <= t) for t = 1..horizon-1
    cdf = np.concatenate([edges, [1.0]])
    out[0] = cdf[0]
    out[1:] = np.diff(cdf)
    return np.maximum(out, 0.0)


def attempt_hazard(count: int) -> float:
    """Probability that a player whose public information leaves ``count`` cases attempts a solve on
    its coming turn (``turns_to_solve_pmf(count)[0]``; 0 for ``count <= 0``, a player with no
    consistent case left)."""
    return 0.0 if count <= 0 else float(turns_to_solve_pmf(count, 2)[0])


# -- the model calibrated on greedy opponents --------------------------------

COUNT_EDGES = (1, 2, 4, 8, 16, 32, 64)
"""Upper ends of the public-case-count bins of :func:`hazard_bin`: ``n = 1``, ``2``, ``3–4``,
``5–8``, ``9–16``, ``17–32``, ``33–64``, ``> 64``."""
GREEDY_HAZARD_BINS = (len(COUNT_EDGES) + 1, 3, 2)
"""Cells of the calibrated model: count bin × tier (docs/rules.md §5) × attempted before this round."""
SHRINK = 10.0
"""Pseudo-turns by which a cell's hazard is drawn toward its pooled cell's (:func:`greedy_turns`)."""


def hazard_bin(count, tier, attempted_before) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cell indices of the calibrated model (arrays or scalars, broadcast): the public case count's
    bin (:data:`COUNT_EDGES`; counts below 1 go to the first), the tier of the seat's turn (0..2,
    higher tiers to 2) and whether the seat has attempted a solve earlier this round (0/1)."""
    c = np.searchsorted(np.asarray(COUNT_EDGES), np.maximum(np.asarray(count, dtype=np.int64), 1), side="left")
    r = np.clip(np.asarray(tier, dtype=np.int64), 0, GREEDY_HAZARD_BINS[1] - 1)
    a = np.asarray(attempted_before, dtype=bool).astype(np.int64)
    return c, r, a


@functools.cache
def greedy_opponent_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """The data of the calibrated model (``pi_env/core/data/greedy_opponents.json``, written by
    :mod:`pi_env.experiments.opponent_calibration`): ``(at_risk, attempts, correct, meta)``, the
    first three ``int64[8, 3, 2, H]`` per cell of :func:`hazard_bin` and own turn ``t = 1..H``
    counted from a turn of the cell: the turns from which the seat was still in the round and had
    not attempted before its ``t``-th own turn, those whose next attempt came on the ``t``-th
    turn, and those where that attempt was correct (read-only arrays). ``meta``: the command,
    seeds and games of the data."""
    import json
    from importlib import resources

    text = resources.files("pi_env.core").joinpath("data/greedy_opponents.json").read_text(encoding="utf-8")
    d = json.loads(text)
    out = []
    for key in ("at_risk", "attempts", "correct"):
        arr = np.asarray(d[key], dtype=np.int64)
        if arr.shape[:3] != GREEDY_HAZARD_BINS:
            raise PIError(f"greedy_opponents.json: {key} has cells {arr.shape[:3]}, expected {GREEDY_HAZARD_BINS}")
        arr.flags.writeable = False
        out.append(arr)
    return out[0], out[1], out[2], {k: v for k, v in d.items() if k not in ("at_risk", "attempts", "correct")}


def shrunk_rates(at_risk: np.ndarray, events: np.ndarray, k: float = SHRINK) -> np.ndarray:
    """``float64[8, 3, 2, H]``: per cell and turn, ``events / at_risk`` drawn toward the pooled
    cell's rate by ``k`` pseudo-counts: ``(e + k · r_pool) / (n + k)``, the pool of a cell being
    the same count bin and attempted flag over all tiers, whose rate is in turn drawn toward the
    count bin's over both flags, whose rate is ``e / n`` (0 where ``n = 0``).

    Args:
        at_risk, events: ``int[8, 3, 2, H]`` counts (events ≤ at_risk).
        k: the pseudo-count (≥ 0).
    """
    n = np.asarray(at_risk, dtype=np.float64)
    e = np.asarray(events, dtype=np.float64)
    n_bin, e_bin = n.sum(axis=(1, 2)), e.sum(axis=(1, 2))  # [8, H]
    r_bin = np.divide(e_bin, n_bin, out=np.zeros_like(e_bin), where=n_bin > 0)
    n_flag, e_flag = n.sum(axis=1), e.sum(axis=1)  # [8, 2, H]
    r_flag = (e_flag + k * r_bin[:, None, :]) / np.maximum(n_flag + k, 1e-300)
    return (e + k * r_flag[:, None, :, :]) / np.maximum(n + k, 1e-300)


@functools.cache
def _greedy_rates(k: float) -> tuple[np.ndarray, np.ndarray]:
    at_risk, attempts, correct, _ = greedy_opponent_table()
    return shrunk_rates(at_risk, attempts, k), shrunk_rates(attempts, correct, k)


def greedy_turns(count: int, tier: int, attempted_before: bool,
                 horizon: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The calibrated model of a ``greedy`` opponent (a fitted model, not a rule; data and fit:
    :mod:`pi_env.experiments.opponent_calibration`, seeds in :func:`greedy_opponent_table`'s
    ``meta``): from one of its turns, with ``count`` cases consistent with its public information
    (as :func:`attempt_hazard`), the ``tier`` of that turn and whether it has attempted a solve
    earlier this round, the distribution of the own turn of its next solve attempt and that
    attempt's chance to be correct.

    Fitted on standard second-edition games of 4 players (all rounds pooled: the table has no
    player-count, edition, mode or round cell); with other player counts, the first edition or a
    duel the same table is used unchanged, an extrapolation nothing checks or warns about.

    Per turn ``t`` of the cell (:func:`hazard_bin`) the hazard ``h_t`` = P(attempt on the ``t``-th
    own turn | none before, still in the round) is the observed rate drawn toward the pooled
    cells' (:func:`shrunk_rates`, :data:`SHRINK`); ``pmf_t = h_t · Π_{s<t} (1 − h_s)`` (the
    discrete Kaplan–Meier estimate: turns cut off by the end of the round are counted at risk only
    up to it).

    Returns:
        ``(pmf, correct)``: ``float64[H]`` each (``H`` the table's horizon or ``horizon``, padded
        with zeros): ``pmf[t − 1]`` P(the next attempt is on the ``t``-th own turn) — summing to at
        most 1, the rest the chance of no attempt within ``H`` turns — and ``correct[t − 1]``
        P(that attempt is correct). A ``count`` of 0 or less (no consistent case): no attempt.

    Raises:
        PIError: a negative ``tier`` or ``horizon``.
    """
    if tier < 0:
        raise PIError(f"tier must be at least 0 (docs/rules.md §5), got {tier}")
    if horizon is not None and horizon < 0:
        raise PIError(f"horizon must be at least 0 own turns, got {horizon}")
    hz, cor = _greedy_rates(SHRINK)
    H = hz.shape[-1] if horizon is None else int(horizon)
    pmf, right = np.zeros(H), np.zeros(H)
    if count <= 0:
        return pmf, right
    c, r, a = (int(x) for x in hazard_bin(count, tier, attempted_before))
    h = hz[c, r, a][:H]
    alive = np.concatenate([[1.0], np.cumprod(1.0 - h)[:-1]])
    pmf[:h.size] = h * alive
    right[:h.size] = cor[c, r, a][:H]
    return pmf, right


def greedy_hazard(count: int, tier: int, attempted_before: bool) -> tuple[float, float]:
    """``(attempt, correct)``: the calibrated probability that a ``greedy`` opponent attempts a
    solve on its coming turn and that the attempt is correct (:func:`greedy_turns`' first turn;
    ``(0, 0)`` for ``count <= 0``). The per-turn hazard of greedy's ``E_wait`` under the option
    ``opponent_model="greedy"`` (:meth:`pi_env.agents.greedy.Outlook.greedy_hazard`).

    Raises:
        PIError: a negative ``tier``."""
    pmf, right = greedy_turns(count, tier, attempted_before, 1)
    return float(pmf[0]), float(right[0])


@dataclass(frozen=True)
class TurnContext:
    """The facts of player ``player``'s coming turn that decide what solving and waiting are worth
    (see the module docstring). Players are numbered as in the game.

    Attributes:
        player: the player about to act.
        n_players: 2..5.
        edition: ``"second"`` or ``"first"``.
        mode: ``"standard"`` or ``"duel"``.
        nick_of_time: the nick-of-time variant (docs/rules.md §6).
        round_index: 0-based round.
        tier: the tier of this turn (docs/rules.md §5).
        rotation: 0-based rotation of this turn in the round (``None``: unknown).
        max_rotations: the safeguard (``None``: none, as at a real table).
        score: the player's score before this turn (``None``: unknown, floor and cap ignored).
        first_player: the round's first player (``None``: unknown).
        attempted, solved, out: per player, before this turn: attempted a solve this round, solved,
            finished by the incorrect-information rule. ``attempted=None``: unknown (the reading
            in earlier versions: the next turn comes, one tier later).
        solved_this_rotation: a player solved earlier in this rotation.
        later: the players acting after this one in this rotation (solved and finished players are
            skipped and not listed).
        extra_turn: duel: this is the player's one more turn after the first player's correct solve.
        finished: why the player has no turn now (it solved, the round is over, ...), or ``""``.
        pending: players who act between the position and this turn (:func:`turn_context` assumes
            they take queries, no solve attempt).
    """

    player: int
    n_players: int
    edition: str = "second"
    mode: str = "standard"
    nick_of_time: bool = False
    round_index: int = 0
    tier: int = 0
    rotation: int | None = None
    max_rotations: int | None = None
    score: int | None = None
    first_player: int | None = None
    attempted: tuple[bool, ...] | None = None
    solved: tuple[bool, ...] = ()
    out: tuple[bool, ...] = ()
    solved_this_rotation: bool = False
    later: tuple[int, ...] = ()
    extra_turn: bool = False
    finished: str = ""
    pending: tuple[int, ...] = ()

    @property
    def duel(self) -> bool:
        return self.mode == "duel"

    @property
    def last_tier(self) -> int:
        """The last tier the player count has: ``min(3, P − 2)`` (:func:`pi_env.core.rules.last_tier`)."""
        return last_tier(self.n_players)

    def points(self, tier: int) -> int:
        """Points of a correct solve at ``tier`` this round (docs/rules.md §5,
        :func:`pi_env.core.rules.tier_points`; 1 = a round win in a duel)."""
        if self.duel:
            return 1
        return tier_points(tier, self.round_index, self.n_players, edition_code(self.edition))

    def gain(self, tier: int) -> int:
        """Score gain of a correct solve at ``tier`` (second edition: at most up to the cap 21;
        :func:`pi_env.core.rules.solve_gain` when the score is known)."""
        pts = self.points(tier)
        if self.score is not None and not self.duel:
            return solve_gain(self.score, pts, edition_code(self.edition))
        return pts

    def loss(self) -> int:
        """Score loss of a wrong solve (second edition: at most down to the floor −5;
        :func:`pi_env.core.rules.wrong_solve_loss` when the score is known)."""
        if self.score is not None:
            return wrong_solve_loss(self.score, edition_code(self.edition))
        return WRONG_SOLVE_PENALTY

    @property
    def is_first_player(self) -> bool:
        return self.first_player is not None and self.player == self.first_player


@dataclass(frozen=True)
class WaitOutcome:
    """One way the rest of the rotation can go before the player's next turn.

    Attributes:
        probability: under the opponent model (module docstring).
        next_turn: the player gets another turn this round (to solve in).
        tier: the tier of that turn (standard game).
        reason: why the round ends, or who attempts, in words.
        result: the value when the round is settled without the player's next turn (0: the round
            ends and waiting scored nothing; duel: −1 lost, 0 drawn); ``None`` otherwise.
        one_more_turn: duel: the next turn is the one more turn after the opponent's correct solve.
        value: what waiting is worth in this outcome (filled by :func:`wait_value`).
    """

    probability: float
    next_turn: bool
    tier: int
    reason: str
    result: float | None = None
    one_more_turn: bool = False
    value: float = 0.0


def solve_value(ctx: TurnContext, p: float, reply: float = 0.0) -> float:
    """``E_now``: the expected value of naming a case of probability ``p`` now (module docstring);
    ``reply``: in a duel as the round's first player, the opponent's chance ``r`` to draw."""
    if ctx.duel:
        if ctx.extra_turn:
            return -(1.0 - p)
        if ctx.is_first_player:
            return p * (1.0 - reply) - (1.0 - p)
        return 2.0 * p - 1.0
    return p * ctx.gain(ctx.tier) - (1.0 - p) * ctx.loss()


def _names(players) -> str:
    items = [f"player {j}" for j in players]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def wait_outcomes(ctx: TurnContext, hazard: "dict[int, float] | None" = None) -> list[WaitOutcome]:
    """The outcomes before the player's next turn if it does not attempt now (module docstring).

    Args:
        ctx: the position.
        hazard: ``{player: probability it attempts on its coming turn}`` for the players who may act
            before the next turn (missing players: 0, they do not attempt).

    Returns:
        Outcomes with probabilities summing to 1 (``value`` not yet filled).
    """
    hazard = hazard or {}
    if ctx.attempted is None:  # facts unknown: the next turn comes, one tier later
        return [WaitOutcome(1.0, True, ctx.tier + 1, "assumed: the next turn comes, one tier later")]
    last_rotation = (ctx.max_rotations is not None and ctx.rotation is not None
                     and ctx.rotation + 1 >= ctx.max_rotations)
    if ctx.duel:
        return _duel_outcomes(ctx, hazard, last_rotation)
    n = ctx.n_players
    any_solved = any(ctx.solved)
    if ctx.nick_of_time and any_solved and nick_of_time_ends_round(ctx.tier, n):
        return [WaitOutcome(1.0, False, ctx.tier, f"nick of time: this rotation, at the last tier "
                                                  f"({ctx.last_tier}), ends the round", result=0.0)]
    live = [j for j in ctx.later if hazard.get(j, 0.0) > 0.0 and not ctx.solved[j] and not ctx.out[j]]
    ed = edition_code(ctx.edition)
    word = "has not attempted a solve" if ctx.edition == "second" else "has not solved"
    groups: dict[tuple, list] = {}  # outcomes that are worth the same are merged
    for bits in product((False, True), repeat=len(live)):
        prob = 1.0
        for j, b in zip(live, bits):
            prob *= hazard[j] if b else 1.0 - hazard[j]
        if prob <= 0.0:
            continue
        now = tuple(j for j, b in zip(live, bits) if b)
        # an attempt counts as a correct solve (module docstring)
        still_open = sum(1 for i in range(n) if not ctx.out[i] and i not in now
                         and not finished_for_round_end(ctx.attempted[i], ctx.solved[i], ed))
        tier = tier_after_rotation(ctx.tier, ctx.solved_this_rotation or bool(now), any_solved or bool(now),
                                   ctx.nick_of_time, n)
        if round_ends_after_rotation(still_open):
            key = (False, f"the round ends after this rotation: at most one player {word}")
        elif ctx.nick_of_time and now and nick_of_time_ends_round(ctx.tier, n):
            key = (False, "nick of time: the first solve of the round, at the last tier, ends it after "
                          "this rotation")
        elif last_rotation:
            key = (False, f"the safeguard of {ctx.max_rotations} rotations ends the round after this one")
        else:
            key = (True, f"next turn at tier {tier}")
        group = groups.setdefault(key, [0.0, tier, []])
        group[0] += prob
        group[2].append(now)
    out = []
    for (on, reason), (prob, tier, subsets) in groups.items():
        if live and len(subsets) == 1:  # who attempts, when it is one way
            now = subsets[0]
            reason += (f" (if {_names(now)} attempt{'s' * (len(now) == 1)})" if now and not on else
                       f" ({_names(now)} attempt{'s' * (len(now) == 1)})" if now else
                       " (nobody after you attempts)")
        elif on and subsets and all(subsets):
            reason += " (a player after you attempts)"
        out.append(WaitOutcome(prob, on, tier, reason, result=None if on else 0.0))
    return out


def _duel_outcomes(ctx: TurnContext, hazard: dict[int, float], last_rotation: bool) -> list[WaitOutcome]:
    if ctx.extra_turn:
        return [WaitOutcome(1.0, False, 0, "the one more turn: anything but a correct solve loses the round",
                            result=-1.0)]
    opp = 1 - ctx.player
    h = min(max(hazard.get(opp, 0.0), 0.0), 1.0)
    out = []
    if ctx.is_first_player:  # the opponent acts after the player in this rotation
        if h > 0:
            out.append(WaitOutcome(h, False, 0, "the opponent attempts (counted as right): it wins the "
                                                "round", result=-1.0))
        if h < 1:
            out.append(WaitOutcome(1.0 - h, False, 0, "the safeguard ends the round after this rotation: "
                                                      "a draw", result=0.0) if last_rotation
                       else WaitOutcome(1.0 - h, True, 0, "next turn (the opponent does not attempt)"))
        return out
    if last_rotation:
        return [WaitOutcome(1.0, False, 0, "the safeguard ends the round after this rotation: a draw",
                            result=0.0)]
    if h > 0:
        out.append(WaitOutcome(h, True, 0, "the opponent attempts first (counted as right): one more "
                                           "turn to draw", one_more_turn=True))
    if h < 1:
        out.append(WaitOutcome(1.0 - h, True, 0, "next turn (the opponent does not attempt)"))
    return out


def wait_value(ctx: TurnContext, q: float, outcomes: list[WaitOutcome], reply: float = 0.0) -> tuple[float, list[WaitOutcome]]:
    """``E_wait`` (module docstring) for ``q``, the expected probability of the most likely case
    after the query, and the outcomes with their values filled in."""
    filled = []
    for o in outcomes:
        if o.result is not None:
            v = o.result
        elif o.one_more_turn:
            v = -(1.0 - q)
        elif ctx.duel:
            v = max(0.0, (q * (1.0 - reply) - (1.0 - q)) if ctx.is_first_player else 2.0 * q - 1.0)
        else:
            v = max(0.0, q * ctx.gain(o.tier) - (1.0 - q) * ctx.loss())
        filled.append(replace(o, value=float(v)))
    return float(sum(o.probability * o.value for o in filled)), filled


def turn_context(record: GameRecord, player: int, round_index: int, after_event: int | None = None, *,
                 strict: bool = True) -> TurnContext:
    """The :class:`TurnContext` of ``player``'s next turn after event ``after_event`` (``-1``:
    before the first; ``None``: after the last) of round ``round_index`` of a record. Players whose
    turns come in between (``TurnContext.pending``; solved players are skipped) are assumed to take
    queries, no solve attempt: then the round ends before the player's turn only if it ends whatever
    they do (docs/rules.md §5: attempts and solves only bring the end closer).

    Reads only public facts (docs/rules.md §9): turns, solves, declarations, scores
    (:func:`pi_env.records.scoring.score_record` of the record up to there), the rules and the
    safeguard of ``engine.max_rotations`` when the record has one.

    ``strict=False`` reads a position whose events go on after the round's end (research positions
    of random legal play) instead of refusing it, and does not end the round before the player's
    turn.

    Raises:
        PIError: a player, round or event out of range.
        RecordError: an event after its round's end (as ``score_record``; only with ``strict``).
    """
    from pi_env.records.scoring import score_record

    rules = record.rules
    n = rules.players
    if not 0 <= player < n:
        raise PIError(f"player must be 0..{n - 1}, got {player}")
    if not 0 <= round_index < len(record.rounds):
        raise PIError(f"round must be 1..{len(record.rounds)}, got {round_index + 1}")
    rnd = record.rounds[round_index]
    if after_event is None:
        after_event = len(rnd.events) - 1
    scores = score_record(record.prefix(round_index, after_event), check_end=strict)
    nick = "nick-of-time" in rules.variants
    duel = rules.mode == "duel"
    attempted, solved, out = [False] * n, [False] * n, [False] * n
    tier, rotation, prev, solved_in_rotation = 0, 0, -1, False
    extra, decided = False, ""  # duel: the opponent's one more turn is due; the round's decision
    for ev in rnd.events[:after_event + 1]:
        if ev.kind == INCORRECT:
            out[ev.player] = out[(ev.player - 1) % n] = True
            if duel:
                decided = f"the round was decided at event {ev.index} (incorrect information)"
            continue
        seat = (ev.player - rnd.first_player) % n
        if seat <= prev:
            rotation += 1
            tier = tier_after_rotation(tier, solved_in_rotation, any(solved), nick, n)
            solved_in_rotation = False
        prev = seat
        if duel and not decided:  # docs/rules.md §7: the first attempt decides the round
            if extra:
                decided = f"the round was decided at event {ev.index} (the one more turn)"
            elif ev.kind == SOLVE:
                if ev.correct and ev.player == rnd.first_player:
                    extra = True
                else:
                    decided = f"the round was decided at event {ev.index}"
        if ev.kind == SOLVE:
            attempted[ev.player] = True
            if ev.correct:
                solved[ev.player] = solved_in_rotation = True
    seat = (player - rnd.first_player) % n
    # seats that act between the last event and the player's turn (assumed not to attempt)
    between = list(range(prev + 1, n)) + list(range(seat)) if seat <= prev else list(range(prev + 1, seat))
    pending = tuple(j for j in ((rnd.first_player + t) % n for t in between)
                    if not solved[j] and not out[j] and j != player)
    finished = ""
    if seat <= prev:  # the player's turn starts a new rotation: the end-of-rotation checks run first
        ended = ""
        if not duel:
            ed = edition_code(rules.edition)
            if nick and any(solved) and nick_of_time_ends_round(tier, n):
                ended = "nick of time: the rotation at the last tier was played out"
            elif round_ends_after_rotation(sum(1 for i in range(n) if not out[i]
                                               and not finished_for_round_end(attempted[i], solved[i], ed))):
                ended = ("at most one player had not attempted" if rules.edition == "second"
                         else "at most one player had not solved")
        if not ended and record.max_rotations is not None and rotation + 1 >= record.max_rotations:
            ended = f"the safeguard of {record.max_rotations} rotations"
        if ended and strict:
            finished = (f"the round is over ({ended})" if not pending else
                        f"the round ends before player {player}'s next turn ({ended})")
        rotation += 1
        tier = tier_after_rotation(tier, solved_in_rotation, any(solved), nick, n)
        solved_in_rotation = False
    later_seats = range(seat + 1, n)
    extra = extra and not decided and player != rnd.first_player
    if decided:
        finished = decided
    elif solved[player] and not extra:
        finished = f"player {player} has solved its case this round"
    elif out[player]:
        finished = f"player {player} takes no more turns this round (incorrect information)"
    later = tuple(j for j in ((rnd.first_player + s) % n for s in later_seats) if not solved[j] and not out[j])
    return TurnContext(player=player, n_players=n, edition=rules.edition, mode=rules.mode,
                       nick_of_time=nick, round_index=round_index, tier=tier, rotation=rotation,
                       max_rotations=record.max_rotations, score=int(scores.scores[player]),
                       first_player=rnd.first_player, attempted=tuple(attempted), solved=tuple(solved),
                       out=tuple(out), solved_this_rotation=solved_in_rotation, later=later,
                       extra_turn=extra, finished=finished, pending=pending)
