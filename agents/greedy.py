"""The ``greedy`` agent: joint inference, the most informative query, and a one-step solve rule.

It knows only its observation (docs/rules.md §9). On its turn it

1. takes its case distribution from the solver's exact joint posterior
   (:func:`pi_env.solvers.analyze_knowledge` of :func:`pi_env.solvers.knowledge_from_observation`: its own
   answers, the case it holds and every other player's public answers, jointly through
   disjointness);
2. **solves when certain**: one case left, it names it;
3. otherwise compares **solving now** with **waiting** — one more query, the most informative one,
   then solving on its next turn (:meth:`Outlook.solve_value`, :meth:`Outlook.wait_value`):

   * ``E_now = p · points_now − (1 − p) · 2`` with ``p`` the probability of the most likely case;
   * ``E_wait = E[ 1{round still on} · max(0, q · points_next − (1 − q) · 2) ]`` with ``q`` the
     expected probability of the most likely case after the query's answer
     (``Σ_k max_{c answering k} P(c)``, as :func:`pi_env.solvers.hints.solve_now_rule`), where the round
     ending and ``points_next`` (the tier at the next turn) depend on what the other players do
     before that turn, estimated by the :ref:`opponent model <opponent-model>` below;

   it names the most likely case when ``E_now > 0`` and ``E_now ≥ E_wait``;
4. otherwise takes, among the candidate queries that can split its cases (expected information
   gain above :data:`pi_env.solvers.hints.GAIN_TOLERANCE`), the one with the highest **race value**
   ``gain + DENIAL_WEIGHT · denial``: ``gain`` is the entropy of its answer distribution under the
   joint posterior (:func:`pi_env.solvers.hints.information_gains`), ``denial`` the bits the
   :ref:`next player <denial>` would learn from that clue card (:func:`next_player_gains`); ties
   go to the lowest action id. With ``denial_weight=0`` the query is
   :attr:`pi_env.solvers.Hint.best_action` of the same candidates (the rule before denial);
5. when no candidate query can split its cases it names the most likely case if that beats
   waiting for others' solves (``E_now ≥ E[1{round on} · max(0, p · points_next − (1 − p) · 2)]``,
   ``p`` unchanged), else it waits with the legal clue of the highest ``denial`` (ties: the lowest
   id).

.. _denial:

**Denial** (docs/rules.md §4.1, §9). The clue cards are one public display shared by all players, and
a card taken leaves it for most of the round: answered *nothing* it lies in front of the taker for
the rest of the round, else it goes to the discard pile, which comes back only once the deck is
empty. The agent holds the case of the next player in turn order (seat ``+1``), so it knows the
answer that player would get from every card. ``denial`` of a clue card is the information that
answer would give that player about its case, measured on its *public* case set (the cases
consistent with its public answers, the other players' spot markers and correct solves; uniform
weights, as :func:`pi_env.solvers.case_sets.case_bits` of the public events): ``log2(n / m)`` with ``n``
the size of that set and ``m`` the number of its cases giving the same answer as the true case.
Investigators are not a shared resource (denial 0); a seat that has solved or is idle (below) has
denial 0. A card is worth denying only to a player who gathers information, so ``denial`` is
scaled by the next player's **activity** (:func:`next_player_activity`): the share of its public
actions this round that are queries (clue cards and investigators, against named cases), 1
before it has acted — a player that only guesses (``random``) is not denied anything. The weight
:data:`DENIAL_WEIGHT` = 1 treats the round as a symmetric race to certainty: a bit the next player
does not get counts as much as a bit the agent gets. The measurements behind the
weight and the activity scale are in docs/tuning-log.md (*greedy: denial and player counts*).

**Player counts** (:data:`DENIAL_WEIGHTS`, :func:`denial_weight_for`). With 4 and 5 players the weight is
0: the query is chosen by the agent's own gain alone (and a wait, step 5, takes the lowest legal
clue). Denial slows one of four rivals, and the own bits it gives up slowed the agent in a race
where the tier falls by 2 points per rotation someone solves (measurements, and the options tried
and not adopted: docs/tuning-log.md). 2 and 3 players keep weight 1
and every rule above (the decisions there are those of the rule before).

**Candidate queries**: the legal clues and investigators of the action mask. Investigator tiles
are spent for the game (5 for 3 rounds), so with ``ration_investigators`` (default) an investigator
is a candidate only while this round's share is not used up: ``ceil(tiles at the round's start /
rounds left)``, assuming 3 rounds (as :mod:`pi_env.agents.heuristic`). ``reserve`` tiles (default
0) are never candidates and are left out of the tiles rationing spreads.

**Scores** (second edition by default; the observation does not say the edition): ``points =
[7, 5, 3, 1][tier] + round`` (:func:`pi_env.core.rules.tier_points`, 0 for a tier the player count does
not have), a correct solve adds at most up to the cap 21 and a wrong one costs at most down to the
floor −5 (docs/rules.md §5; :func:`pi_env.core.rules.solve_gain`, :func:`~pi_env.core.rules.wrong_solve_loss`).

.. _opponent-model:

**Opponent model** (:class:`Outlook`; a fitted model, not a rule). Every other seat that has not
solved gets a distribution of the number of its own turns until it solves, from how narrowed its
public information is: ``n``, the number of cases consistent with that seat's public answers, the
other players' spot markers and correct solves (:func:`pi_env.solvers.case_bits` of the observation's
public events, without the case the observer holds). With ``L = log2 n``, ``T = 1`` if ``n = 1``,
else ``T`` is a normal ``N(μ, σ)`` rounded to ``1, 2, ...`` with

    ``μ = 1.15 + 0.56 · L``, ``σ = 0.45 + 0.07 · L``

(:func:`turns_to_solve_pmf`), fitted to 40 four-player games of ``search``, ``greedy``,
``heuristic`` and ``deducer`` (seats rotated, engine seeds 2000..2039), every turn of every seat:
mean own turns until the seat's correct solve per ``L`` bin (``L ≈ 0..10``) 1.00, 1.64, 2.19,
2.93, 3.63, 4.15, 4.68, 5.45, 5.93, 6.09, 7.17 (model 1.00, 1.72, 2.27, 2.83, 3.39, 3.95, 4.51, 5.07,
5.63, 6.19, 6.75), and an attempt on the next turn at ``L ≈ 1`` in 39% of turns (a correct solve
30%), ``L ≈ 2`` 14% (8%), ``L ≈ 3`` 4% (2%), ``L ≥ 4`` under 0.3% (model: 34%, 10%, 2%, 0.5%).
The fit favours small ``L``, where the hazard matters. The model treats an attempt as a solve
and the seats as independent.

**Calibrated model of greedy opponents** (an option, not greedy's default: greedy is the reference
opponent and decides as above). :meth:`Outlook.greedy_hazard` gives each other seat's probability
of attempting a solve on its coming turn and, separately, of that attempt being correct
(:func:`pi_env.solvers.turns.greedy_hazard`: a table by public case count, tier and whether the seat
has attempted this round, measured on games of four greedy, tuning seeds 4106–4109, by
:mod:`pi_env.experiments.opponent_calibration`; second edition, 4 players: at other player counts
and in the first edition it is used unchanged, an unchecked extrapolation). Passed to :meth:`Outlook.next_turn` /
:meth:`Outlook.wait_value` (``hazard``, ``correct``) a wrong attempt ends the round as an attempt
does but does not advance the tier; :class:`pi_env.experiments.greedy_screen.TunedGreedy`
(``opponent_model="greedy"``) and :class:`pi_env.agents.winprob.WinProbAgent` (the same option) use
it.

A seat that has had a turn this round but shows no public action at all is **idle**: in a
standard game every action leaves a public trace, so such a seat is not playing (e.g. the empty
seat of a solo adapter) and never solves or attempts.

The tier at the agent's next turn is the current tier plus 1 if anyone solves in the current
rotation: a seat that solved *earlier in this rotation* (the agent remembers the solved flags of its
previous turn; in the first rotation every solve is in it) or a seat acting *after* the agent in
this rotation solving on its turn. Seats acting before the agent in the next rotation do not change
the tier the agent scores at then (they share it). The round ends at this rotation's end (docs/rules.md
§5, second edition) when at most one player has not attempted; the model gives the probability of
that from the same per-seat solve probabilities.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import DEFAULT_MAX_ROTATIONS, INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.rules import (edition_code, finished_for_round_end, round_ends_after_rotation, solve_gain,
                               tier_after_rotation, tier_points, wrong_solve_loss)
from pi_env.engine.observe import decode_observation
from pi_env.solvers.analysis import analyze_knowledge
from pi_env.solvers.case_sets import case_bits
from pi_env.solvers.hints import (GAIN_TOLERANCE, answer_matrix, best_gain_index, candidate_actions,
                                  information_gains)
from pi_env.solvers.knowledge import Knowledge
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.tables import bitset_cases
from pi_env.solvers.turns import TURNS_MEAN, TURNS_SD, greedy_hazard, turns_to_solve_pmf  # the opponent models

from pi_env.agents.base import Agent

__all__ = ["GreedyAgent", "Outlook", "Situation", "assess", "greedy_decision", "turns_to_solve_pmf",
           "q_after", "next_player_gains", "next_player_activity", "public_case_bits", "best_query", "waiting_clue", "ROUNDS", "HORIZON", "TURNS_MEAN", "TURNS_SD", "DENIAL_WEIGHT",
           "DENIAL_WEIGHTS", "denial_weight_for"]

ROUNDS = 3
"""Rounds assumed when rationing investigator tiles."""
HORIZON = DEFAULT_MAX_ROTATIONS
"""Turns modelled ahead (the rotation safeguard of docs/rules.md §5)."""
DENIAL_WEIGHT = 1.0
"""Weight of the next player's information (:func:`next_player_gains`) against the agent's own in
the query choice (module docstring, step 4), for the player counts without an entry in
:data:`DENIAL_WEIGHTS`."""
DENIAL_WEIGHTS: dict[int, float] = {4: 0.0, 5: 0.0}
"""Denial weight by player count where it differs from :data:`DENIAL_WEIGHT` (module docstring,
*denial by player count*)."""


def denial_weight_for(num_players: int) -> float:
    """The denial weight greedy uses with ``num_players`` players: :data:`DENIAL_WEIGHTS` or else
    :data:`DENIAL_WEIGHT`."""
    return DENIAL_WEIGHTS.get(int(num_players), DENIAL_WEIGHT)


@functools.lru_cache(maxsize=4096)
def _solve_gain(tier: int, round_index: int, num_players: int, score: int, edition: str) -> int:
    """:func:`pi_env.core.rules.solve_gain` of a solve at ``tier``, remembered: the search agent asks
    for the same few values thousands of times per decision, and one call of a compiled rule from
    Python costs more than a lookup here (the rules are pure functions of these arguments)."""
    ed = edition_code(edition)
    return solve_gain(score, tier_points(tier, round_index, num_players, ed), ed)


@functools.lru_cache(maxsize=4096)
def _wrong_solve_loss(score: int, edition: str) -> int:
    """:func:`pi_env.core.rules.wrong_solve_loss`, remembered (as :func:`_solve_gain`)."""
    return wrong_solve_loss(score, edition_code(edition))


@dataclass(frozen=True, eq=False)
class Outlook:
    """What the agent expects of the rest of the round (see the module docstring).

    Seats are relative (0 = the agent). Attributes:
        num_players, round_index, tier, rotation: from the observation.
        edition: ``"second"`` or ``"first"``.
        score: the agent's score.
        attempted: the agent has attempted a solve this round.
        pending: a seat solved earlier in this rotation (the tier advances at its end).
        order: relative seats in this rotation's turn order.
        solved, seat_attempted: ``bool[P]`` flags of every seat.
        idle: ``bool[P]`` seats that never act (module docstring).
        counts: ``int[P]`` cases consistent with each seat's public information.
        pmf: ``float64[P, HORIZON]`` each seat's turns-to-solve distribution (zeros for the
            agent, solved and idle seats).
    """

    num_players: int
    round_index: int
    tier: int
    rotation: int
    edition: str
    score: int
    attempted: bool
    pending: bool
    order: tuple[int, ...]
    solved: np.ndarray = field(repr=False)
    seat_attempted: np.ndarray = field(repr=False)
    idle: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    pmf: np.ndarray = field(repr=False)

    # -- scores -----------------------------------------------------------------------------

    def points(self, tier: int, score: int | None = None) -> int:
        """Score gain of a correct solve at ``tier`` (capped at 21 in the second edition;
        :func:`pi_env.core.rules.tier_points` and :func:`~pi_env.core.rules.solve_gain`) for a player at
        ``score`` (default: the agent's)."""
        return _solve_gain(tier, self.round_index, self.num_players, self.score if score is None else score,
                           self.edition)

    def penalty(self, score: int | None = None) -> int:
        """Score loss of a wrong solve (floored at −5 in the second edition;
        :func:`pi_env.core.rules.wrong_solve_loss`) for a player at ``score`` (default: the agent's)."""
        return _wrong_solve_loss(self.score if score is None else score, self.edition)

    def solve_value(self, p: float) -> float:
        """``E_now``: expected score change of naming a case of probability ``p`` now."""
        return p * self.points(self.tier) - (1.0 - p) * self.penalty()

    # -- the next turn ------------------------------------------------------------------------

    @property
    def after_me(self) -> tuple[int, ...]:
        """Seats acting after the agent in this rotation."""
        return self.order[self.order.index(0) + 1:]

    def next_turn(self, hazard: "np.ndarray | None" = None,
                  correct: "np.ndarray | None" = None) -> list[tuple[float, bool, int]]:
        """Outcomes before the agent's next turn if it does not attempt now:
        ``[(probability, round_on, tier_then)]``.

        Args:
            hazard: ``float[P]`` probability that each seat attempts a solve on its coming turn
                (default: ``pmf[:, 0]``).
            correct: ``float[P]`` probability that such an attempt is correct (default ``None``:
                every attempt counted as a correct solve, greedy's model). A wrong attempt ends the
                round as an attempt does (docs/rules.md §5) but does not advance the tier.
        """
        h = self.pmf[:, 0] if hazard is None else hazard
        return next_turn_outcomes(self.after_me, h, self.solved, self.seat_attempted, self.idle,
                                  self.attempted, self.tier, self.pending, self.edition, correct)

    def wait_value(self, q: float, hazard: "np.ndarray | None" = None,
                   correct: "np.ndarray | None" = None) -> float:
        """``E_wait``: expected score change of solving on the next turn with P(correct) = ``q``
        (or not solving if that is worth less than 0); ``hazard``, ``correct``: as
        :meth:`next_turn`."""
        pen = self.penalty()
        total = 0.0
        for prob, on, tier in self.next_turn(hazard, correct):
            if on and prob > 0:
                total += prob * max(0.0, q * self.points(tier) - (1.0 - q) * pen)
        return total

    def greedy_hazard(self) -> tuple[np.ndarray, np.ndarray]:
        """The calibrated opponent model of greedy opponents
        (:func:`pi_env.solvers.turns.greedy_hazard`): ``(attempt, correct)``, ``float64[P]`` each,
        every other seat's probability of attempting a solve on its coming turn and of that attempt
        being correct, from its public case count, the tier (the seats after the agent act in
        this rotation) and whether it has attempted this round; 0 for the agent, solved and idle
        seats. For :meth:`next_turn`'s ``hazard`` and
        ``correct``."""
        P = self.num_players
        attempt, correct = np.zeros(P), np.ones(P)
        for j in range(1, P):
            if not self.solved[j] and not self.idle[j]:
                attempt[j], correct[j] = greedy_hazard(int(self.counts[j]), self.tier,
                                                       bool(self.seat_attempted[j]))
        return attempt, correct


def next_turn_outcomes(after_me, hazard, solved, attempted, idle, me_attempted: bool, tier: int,
                       pending: bool, edition: str, correct=None) -> list[tuple[float, bool, int]]:
    """Enumerate which seats acting after the agent in this rotation attempt (each independently
    with ``hazard[j]``) and, with ``correct`` (``float[P]``, P(correct | attempt)), which of those
    attempts are correct (``None``: all); per outcome: its probability, whether the round goes on
    after this rotation (more than one player left who has not attempted — not solved in the first
    edition — the agent included), and the tier of the next rotation (one higher when a seat
    solved earlier in this rotation, ``pending``, or one of these solves correctly)."""
    live = [j for j in after_me if not solved[j] and not idle[j] and hazard[j] > 0]
    ed = edition_code(edition)  # the end of a round: pi_env.core.rules (docs/rules.md §5)
    me_open = 0 if finished_for_round_end(me_attempted, False, ed) else 1
    open_others = [j for j in range(len(solved)) if j != 0 and not finished_for_round_end(attempted[j], solved[j], ed)]
    out = []
    # per live seat: 0 no attempt, 1 a wrong attempt, 2 a correct one
    states = (0, 2) if correct is None else (0, 1, 2)
    for bits in product(states, repeat=len(live)):
        prob = 1.0
        for j, b in zip(live, bits):
            c = 1.0 if correct is None else float(correct[j])
            prob *= (1.0 - hazard[j]) if b == 0 else hazard[j] * ((1.0 - c) if b == 1 else c)
        now = {j for j, b in zip(live, bits) if b}
        right = {j for j, b in zip(live, bits) if b == 2}
        # first edition: only a correct solve closes a seat
        still_open = me_open + sum(1 for j in open_others if not finished_for_round_end(j in now, j in right, ed))
        # the next tier (no nick of time: the observation does not carry the variants)
        out.append((prob, not round_ends_after_rotation(still_open),
                    tier_after_rotation(tier, pending or bool(right), False, False, len(solved))))
    return out


@dataclass(frozen=True, eq=False)
class Situation:
    """Everything the solver-driven agents read from one observation.

    Attributes:
        knowledge: :func:`pi_env.solvers.knowledge_from_observation` of the observation.
        cases: ``int64[N]`` the agent's possible cases (joint posterior), ascending.
        probs: ``float64[N]`` their probabilities.
        best: index into ``cases`` of the most likely case (ties: lowest case id).
        actions: ``int64[A]`` candidate queries (legal, investigators rationed).
        answers: ``int16[A, N]`` their answer codes per case (:func:`pi_env.solvers.hints.answer_matrix`).
        gains: ``float64[A]`` expected information gains (bits).
        inv_allowed: investigators the agent may still place this round (rationing).
        outlook: the :class:`Outlook`.
        legal_clues: ``int64[C]`` legal clue actions (for waiting).
        denial: ``float64[A]`` bits the next player would learn from each candidate
            (:func:`next_player_gains`) times its activity (:func:`next_player_activity`); zeros
            when that seat has solved or is idle.
        inv_left: investigator tiles the agent has left for the game.
    """

    knowledge: Knowledge
    cases: np.ndarray
    probs: np.ndarray
    best: int
    actions: np.ndarray
    answers: np.ndarray
    gains: np.ndarray
    inv_allowed: int
    outlook: Outlook
    legal_clues: np.ndarray
    denial: np.ndarray
    inv_left: int = 0

    @property
    def p_best(self) -> float:
        return float(self.probs[self.best]) if self.cases.size else 0.0

    @property
    def best_case(self) -> int:
        return int(self.cases[self.best])


def q_after(codes: np.ndarray, probs: np.ndarray) -> float:
    """Expected probability of the most likely case after a query with answers ``codes[N]``:
    ``Σ_k max_{c: codes[c] = k} probs[c]``."""
    best = np.zeros(16)
    np.maximum.at(best, codes.astype(np.int64), probs)
    return float(best.sum())


def assess(observation: np.ndarray, action_mask: np.ndarray, num_players: int, board: "Board | np.ndarray",
           *, edition: str = "second", ration_investigators: bool = True, reserve: int = 0,
           previous: "tuple[int, int, tuple[bool, ...]] | None" = None) -> Situation:
    """Read a :class:`Situation` from one player's observation and legal-action mask.

    Args:
        reserve: investigator tiles kept unused for the tiebreak: never candidates, and rationing
            spreads only the others over the rounds.
        previous: ``(round, rotation, solved flags)`` seen at the agent's previous turn, to tell
            whether someone solved earlier in this rotation (else only known in rotation 0).

    Raises:
        ValueError: ``reserve`` is negative.
    """
    if reserve < 0:
        raise ValueError(f"reserve must be at least 0 investigator tiles, got {reserve}")
    P = num_players
    k = knowledge_from_observation(observation, P, board)
    o = decode_observation(np.asarray(observation), P)
    a = analyze_knowledge(k, strict=False)
    if a.count:
        cases, probs = a.cases, np.asarray(a.probabilities, dtype=np.float64)
    else:  # contradiction (cannot happen with correct answers): own information, uniform
        cases = a.own_cases
        probs = np.full(cases.size, 1.0 / max(cases.size, 1))
    probs = probs / probs.sum() if probs.size else probs
    best = int(np.lexsort((cases, -probs))[0]) if cases.size else -1

    # candidate queries, investigators rationed per round
    actions = candidate_actions(k, action_mask)
    placed = int(o["inv_placed"][0].sum())
    left = int(o["inv_left"][0])
    rnd = int(o["round"][0])
    if ration_investigators:  # this round's share of the tiles not kept in reserve
        share = math.ceil(max(0, left + placed - reserve) / max(1, ROUNDS - rnd))
        inv_allowed = max(0, min(left - reserve, share - placed))
    else:
        inv_allowed = max(0, left - reserve)
    if inv_allowed <= 0:
        actions = actions[actions < INVESTIGATE_BASE]
    answers = answer_matrix(k, actions, cases)
    gains = information_gains(answers, probs) if actions.size and cases.size else np.zeros(actions.size)
    legal_clues = np.flatnonzero(np.asarray(action_mask)[:INVESTIGATE_BASE]).astype(np.int64)
    bits = public_case_bits(k)
    outlook = read_outlook(o, k, P, edition, previous, public_bits=bits)
    nxt = (k.player + 1) % P
    if outlook.solved[nxt] or outlook.idle[nxt]:
        denial = np.zeros(actions.size)
    else:
        denial = next_player_gains(k, actions, public_bits=bits) * next_player_activity(k)
    return Situation(k, cases, probs, best, actions, answers, gains, inv_allowed, outlook, legal_clues,
                     denial, left)


def public_case_bits(k: Knowledge) -> np.ndarray:
    """``uint64[P, 27]``: each seat's cases consistent with the public information of ``k`` alone
    (its events, without the case the observer holds; :func:`pi_env.solvers.case_sets.case_bits`)."""
    public = Knowledge(k.player, k.n_players, k.tile_district, k.adjacency, -1, k.events)
    return np.ascontiguousarray(case_bits(public), dtype=np.uint64)


def next_player_activity(k: Knowledge) -> float:
    """Share of the next player's (seat ``k.player + 1``) public actions this round that are
    queries: ``queries / (queries + named cases)`` over its events in ``k`` (clue answers and
    investigators against failed and correct solves, docs/rules.md §4, §9), 1.0 if it has none."""
    from pi_env.solvers.knowledge import CLUE_KIND, COL_KIND, INVESTIGATE_KIND

    kinds = k.events_of((k.player + 1) % k.n_players)[:, COL_KIND]
    if kinds.size == 0:
        return 1.0
    return float(np.isin(kinds, (CLUE_KIND, INVESTIGATE_KIND)).sum() / kinds.size)


def next_player_gains(k: Knowledge, actions: np.ndarray, public_bits: "np.ndarray | None" = None) -> np.ndarray:
    """Denial (module docstring): the bits the next player, seat ``k.player + 1`` — whose case
    ``k.held_case`` the observer holds — would learn about its case from taking each clue card.

    Args:
        k: the observer's knowledge (docs/rules.md §9: the held case is the observer's own private
            information).
        actions: ``int[A]`` candidate actions (clues ``0..35``, investigators ``36..49``).
        public_bits: :func:`public_case_bits` of ``k`` (computed if ``None``).

    Returns:
        ``float64[A]``: for a clue on element ``x``, ``log2(n / m)`` with ``n`` the next player's
        public case count and ``m`` how many of those cases answer ``x`` as the held case does
        (docs/rules.md §4.1); 0 for investigators, and all 0 without a held case (``held_case = -1``)
        or when the next player's public information leaves one case.
    """
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    out = np.zeros(actions.size)
    if k.held_case < 0 or actions.size == 0:
        return out
    bits = public_case_bits(k) if public_bits is None else public_bits
    theirs = bitset_cases(bits[(k.player + 1) % k.n_players])
    if theirs.size <= 1:
        return out
    clue = actions < INVESTIGATE_BASE
    table = k.tables.clue_answers
    true = table[actions[clue], k.held_case].astype(np.int16)
    same = (table[np.ix_(actions[clue], theirs)] == true[:, None]).sum(axis=1)
    out[clue] = np.log2(theirs.size / np.maximum(same, 1))
    return out


def read_outlook(o: dict, k: Knowledge, P: int, edition: str,
                 previous: "tuple[int, int, tuple[bool, ...]] | None",
                 public_bits: "np.ndarray | None" = None) -> Outlook:
    """The :class:`Outlook` of a decoded observation (see the module docstring); ``public_bits``:
    :func:`public_case_bits` of ``k`` if already computed."""
    rnd, tier, rotation = int(o["round"][0]), int(o["tier"][0]), int(o["rotation"][0])
    first = int(o["first_seat"][0])
    order = tuple((first + i) % P for i in range(P))
    mine = order.index(0)
    before = np.zeros(P, dtype=bool)
    before[list(order[:mine])] = True
    solved = o["solved"].astype(bool).copy()
    attempted = o["attempted"].astype(bool).copy()
    acted = (o["front"].any(axis=1) | o["spot"].any(axis=1) | o["trace"].any(axis=1)
             | o["inv_placed"].any(axis=1) | o["failed"].any(axis=1) | solved | attempted)
    had_turn = before | (rotation >= 1)
    idle = ~solved & had_turn & ~acted
    idle[0] = False
    if rotation == 0:
        pending = bool(solved[before].any())
    elif previous is not None and previous[0] == rnd and previous[1] == rotation - 1:
        was = np.asarray(previous[2], dtype=bool)
        pending = bool((solved & ~was & before).any())
    else:
        pending = False
    bits = public_case_bits(k) if public_bits is None else public_bits
    counts = np.unpackbits(bits.view(np.uint8), axis=1).sum(axis=1).astype(np.int64)  # popcount
    pmf = np.zeros((P, HORIZON))
    for j in range(1, P):
        if not solved[j] and not idle[j]:
            pmf[j] = turns_to_solve_pmf(int(counts[j]))
    return Outlook(P, rnd, tier, rotation, edition, int(o["score"][0]), bool(attempted[0]), pending,
                   order, solved, attempted, idle, counts, pmf)


def best_query(s: Situation, denial_weight: float | None = None, last_tile: bool = False,
               bonus: "np.ndarray | None" = None) -> int | None:
    """Index into ``s.actions`` of the query of step 4 (module docstring): among candidates with
    ``gain > GAIN_TOLERANCE``, the highest ``gain + denial_weight · denial`` (ties within
    ``GAIN_TOLERANCE``: the first, i.e. the lowest action id); ``None`` if no candidate is
    informative. ``denial_weight=None`` (default): the weight of the player count
    (:func:`denial_weight_for`). With ``last_tile`` the agent's last investigator tile
    (``s.inv_left == 1``) is a candidate only when no clue card is informative (module docstring,
    *player counts*). ``bonus``: ``float64[len(s.actions)]`` added to every candidate's value (a
    variant's hook, e.g. :class:`pi_env.experiments.greedy_screen.TunedGreedy`; greedy: none)."""
    if denial_weight is None:
        denial_weight = denial_weight_for(s.outlook.num_players)
    useful = s.gains > GAIN_TOLERANCE
    if last_tile and s.inv_left == 1:
        clue = s.actions < INVESTIGATE_BASE
        if (useful & clue).any():
            useful &= clue
    if not useful.any():
        return None
    value = s.gains + denial_weight * s.denial
    if bonus is not None:
        value = value + bonus
    return int(best_gain_index(np.where(useful, value, -np.inf)))


def waiting_clue(s: Situation) -> int:
    """The clue of step 5 (module docstring): the legal clue card of the highest denial (ties: the
    lowest id)."""
    denial = np.zeros(s.legal_clues.size)
    pos = np.searchsorted(s.actions, s.legal_clues)
    found = (pos < s.actions.size) & (s.actions[np.minimum(pos, s.actions.size - 1)] == s.legal_clues)
    denial[found] = s.denial[pos[found]]
    return int(s.legal_clues[best_gain_index(denial)])


def greedy_decision(s: Situation, denial_weight: float | None = None, last_tile: bool = False, *,
                    margin: float = 0.0, floor: float = 0.0, hazard: "np.ndarray | None" = None,
                    bonus: "np.ndarray | None" = None, correct: "np.ndarray | None" = None) -> int:
    """The greedy rule (steps 2–5 of the module docstring) on a :class:`Situation`;
    ``denial_weight=0`` is the rule without denial, ``None`` (default) the weight of the player
    count (:func:`denial_weight_for`); ``last_tile``: keep the last investigator tile while a clue
    card is informative (:func:`best_query`; module docstring, *player counts*; off by default).

    The keyword arguments are the hooks of greedy's variants (their defaults are greedy):
    step 3 solves iff ``E_now > floor`` and ``E_now ≥ E_wait + margin``, step 5 waits iff
    ``E_now < E_wait + margin``; ``hazard`` (``float64[P]``, the opponents' solve probabilities on
    their coming turn, default the outlook's own) and ``correct`` (``float64[P]``, the probability
    that such an attempt is correct; default ``None``: every attempt a solve) go to
    :meth:`Outlook.wait_value`; ``bonus`` to :func:`best_query`."""
    if denial_weight is None:
        denial_weight = denial_weight_for(s.outlook.num_players)
    if s.cases.size == 0:
        return int(s.legal_clues[0]) if s.legal_clues.size else SOLVE_BASE
    solve = SOLVE_BASE + s.best_case
    if s.cases.size == 1:
        return solve
    p = s.p_best
    e_now = s.outlook.solve_value(p)
    b = best_query(s, denial_weight, last_tile, bonus)
    if b is not None:
        e_wait = s.outlook.wait_value(q_after(s.answers[b], s.probs), hazard, correct)
        if e_now > floor and e_now >= e_wait + margin:
            return solve
        return int(s.actions[b])
    if s.legal_clues.size and e_now < s.outlook.wait_value(p, hazard, correct) + margin:
        return waiting_clue(s) if denial_weight else int(s.legal_clues[0])
    return solve


class GreedyAgent(Agent):
    """Greedy solver-driven player (see the module docstring).

    Args:
        edition: rules edition assumed for scores and the end of a round.
        ration_investigators: spread investigator tiles over the rounds (default) or use them
            whenever they are the most informative query.
        denial_weight: weight of the next player's information in the query choice (module
            docstring, step 4; default ``None``: by player count, :func:`denial_weight_for`;
            0 = choose by own gain alone).
        reserve: investigator tiles never placed, kept for the tiebreak (module docstring,
            *player counts*; default 0).
        last_tile: keep the last investigator tile while a clue card is informative
            (:func:`best_query`; module docstring, *player counts*; default off).
    """

    name = "greedy"

    def __init__(self, edition: str = "second", ration_investigators: bool = True,
                 denial_weight: float | None = None, reserve: int = 0, last_tile: bool = False):
        self.edition = edition
        self.ration_investigators = ration_investigators
        self.denial_weight = None if denial_weight is None else float(denial_weight)
        self.reserve = int(reserve)
        self.last_tile = bool(last_tile)
        self._previous: tuple[int, int, tuple[bool, ...]] | None = None

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        super().reset(num_players, board, seed)
        self._previous = None

    def situation(self, observation: np.ndarray, action_mask: np.ndarray) -> Situation:
        """The :class:`Situation` this agent reads (and remembers the solved flags for the next
        turn)."""
        s = assess(observation, action_mask, self.num_players, self.board, edition=self.edition,
                   ration_investigators=self.ration_investigators,
                   reserve=self.reserve,
                   previous=getattr(self, "_previous", None))
        o = s.outlook
        self._previous = (o.round_index, o.rotation, tuple(bool(v) for v in o.solved))
        return s

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return greedy_decision(self.situation(observation, action_mask), self.denial_weight,
                               getattr(self, "last_tile", False))
