"""Paired screens of ``greedy`` variants in 4-player games (docs/tuning-log.md,
*Win-seeking greedy variants at 4 players*).

    python -m pi_env.experiments.greedy_screen --seed S --games N [--start G] [--agent winprob]
        [--option NAME=VALUE ...] [--breakdown]

Game ``g`` (engine seed :func:`pi_env.apps.tournament.game_seed` of ``(S, g)``) is played twice: once
with the variant — a :class:`TunedGreedy` of the given options, or with ``--agent winprob`` a
:class:`~pi_env.agents.winprob.WinProbAgent` of the given constructor arguments
(:data:`WINPROB_OPTIONS`) — in seat ``g mod 4`` and ``greedy`` in the other seats, once with
``greedy`` in every seat. Greedy is deterministic and winprob's draws come from its own seeded
generator, so the two games are equal up to the variant's first decision that differs from
greedy's (:func:`play_pair` plays the common part once); the paired difference of the variant
seat's win share (a first place shared by ``k`` counts ``1/k``, docs/rules.md §5) has a far smaller
spread than two independent runs. Printed: the variant's and greedy's win share in the same seats,
the mean paired difference in points of win share with one standard error (and its ratio ``z`` to
it, unrounded against the "more than 2 SE" criterion), the games whose scores or unused tiles
changed, and the mean scores; with ``--breakdown`` also the difference by the situation of the
variant's first differing decision (:func:`breakdown`: solve or query turned into the other,
standing against the leader).
A screen is a tuning tool: its seeds are tuning seeds, never evaluation seeds.

:class:`TunedGreedy` is greedy (:func:`pi_env.agents.greedy.greedy_decision`, denial weight of the
player count) with these options, each 0 / off by default (the defaults play exactly as greedy):

* ``delta``: solve (greedy's step 3) iff ``E_now > floor`` and ``E_now ≥ E_wait + margin``, ``margin
  = delta`` (greedy: 0), and in step 5 wait iff ``E_now < E_wait + margin``;
* ``hazard_scale``: the opponents' solve probabilities on their coming turn in ``E_wait`` times this
  (capped at 1; greedy: 1);
* ``q_weight``: the query is the candidate of the highest ``gain + q_weight · q`` (``q``:
  :func:`pi_env.agents.greedy.q_after`, the expected probability of the most likely case after its
  answer; greedy: 0, information gain alone);
* ``gap_weight`` (from round index ``gap_from_round``): ``margin −= gap_weight · max(0, leader's
  score − own score)`` — more willing to solve when behind;
* ``closing_margin``: when the agent has not attempted and exactly one other player has neither
  attempted nor solved (its attempt would end the round at this rotation's end, docs/rules.md §5,
  denying that player the round), ``margin −= closing_margin`` and ``floor = −closing_margin``
  (greedy: ``floor = 0``);
* ``keep_tile_from``: in the last round (round index 2) with at least this score and one
  investigator tile left, investigators are not candidates while a clue card is informative (the
  tile is kept for the tiebreak, docs/rules.md §5; as greedy's ``last_tile`` there only); with
  ``keep_tile_rival`` (a score; default ``−inf``: no condition) only while another player has at
  least that score (a tie at the top is possible);
* ``tile_decisive`` (a probability; 0 = off): in the last round with one investigator tile left and
  an informative clue card, investigators are candidates only when one of them makes the agent
  likely to be certain enough and no informative clue card does: ``max q`` over investigators
  ``≥ tile_decisive > max q`` over informative clue cards (``q`` as in ``q_weight``); else the tile
  is kept for the tiebreak;
* ``denial_weight``: greedy's own option (:class:`~pi_env.agents.greedy.GreedyAgent`; default: the
  weight of the player count, 0 with 4 players — chosen against ``heuristic`` and ``deducer``
  opponents, not against greedy);
* ``lookahead``: the query is the candidate of the highest ``gain + lookahead · q2``, ``q2`` the
  expected probability of the most likely case after this query and then the best second query
  for its answer (:func:`q_two_step`; a two-step look-ahead; greedy: 0);
* ``opponent_model`` (a name, ``--option opponent_model=greedy``): ``"fitted"`` (default) greedy's
  own opponent model (:func:`pi_env.solvers.turns.attempt_hazard`, every attempt counted as a
  correct solve); ``"greedy"`` the model calibrated on greedy opponents
  (:meth:`pi_env.agents.greedy.Outlook.greedy_hazard`, :func:`pi_env.solvers.turns.greedy_hazard`):
  each later seat's attempt probability and, separately, the probability that the attempt is
  correct (a wrong attempt ends the round as an attempt but does not advance the tier).
  ``hazard_scale`` multiplies the attempt probability of either model. ``winprob`` takes the same
  option (:class:`~pi_env.agents.winprob.WinProbAgent`).

The denial weight is greedy's (by player count); the options were screened with 4 players only.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from pi_env.agents.greedy import GreedyAgent, Situation, greedy_decision, q_after
from pi_env.core.constants import INVESTIGATE_BASE
from pi_env.solvers.hints import GAIN_TOLERANCE

__all__ = ["TunedGreedy", "OPTIONS", "NAMED_OPTIONS", "WINPROB_OPTIONS", "WINROLLOUT_OPTIONS", "VARIANTS", "variant_options", "make_variant", "q_two_step",
           "FirstChange", "ScreenResult", "play_pair", "paired_screen", "breakdown", "main"]

OPTIONS = ("delta", "hazard_scale", "q_weight", "gap_weight", "gap_from_round", "closing_margin",
           "keep_tile_from", "keep_tile_rival", "tile_decisive", "lookahead",
           "denial_weight", "opponent_model")
"""Option names of :class:`TunedGreedy` (module docstring)."""
NAMED_OPTIONS = {"opponent_model": ("fitted", "greedy")}
"""The options whose values are names (the others are numbers), with the names they take."""


def q_two_step(answers: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Two-step look-ahead value of each query: ``float64[A]``, entry ``a`` the expected probability
    of the most likely case after query ``a`` and then, for each answer ``k`` of it, the second
    query ``b`` (any of the same candidates) that is best for that answer:
    ``Σ_k max_b Σ_j max_{c: answers[a, c] = k, answers[b, c] = j} probs[c]``.

    Args:
        answers: ``int[A, N]`` answer codes ``0..15`` of the candidates per case
            (:func:`pi_env.solvers.hints.answer_matrix`).
        probs: ``float64[N]`` the cases' probabilities.

    Raises:
        ValueError: shapes that do not match, or a code outside ``0..15``.
    """
    codes = np.asarray(answers, dtype=np.int64)
    probs = np.asarray(probs, dtype=np.float64)
    if codes.ndim != 2 or probs.ndim != 1 or codes.shape[1] != probs.size:
        raise ValueError(f"answers must be [A, N] and probs [N], got {codes.shape} and {probs.shape}")
    if codes.size and (codes.min() < 0 or codes.max() > 15):
        raise ValueError("answer codes must lie in 0..15")
    A, N = codes.shape
    out = np.zeros(A)
    rows = np.repeat(np.arange(A), N)
    weights = np.tile(probs, A)
    for a in range(A):
        best = np.zeros((A, 256))
        np.maximum.at(best, (rows, (codes[a][None, :] * 16 + codes).ravel()), weights)
        out[a] = best.reshape(A, 16, 16).sum(axis=2).max(axis=0).sum()
    return out


class TunedGreedy(GreedyAgent):
    """Greedy with the screening options of the module docstring (defaults: exactly greedy).

    Raises:
        ValueError: ``hazard_scale`` negative; an ``opponent_model`` not in :data:`NAMED_OPTIONS`;
            an option that is NaN, infinite (only ``keep_tile_from``
            may be ``inf``, its default: never, and ``keep_tile_rival`` ``-inf``, its default: no
            condition), a ``tile_decisive`` outside ``[0, 1]`` or a ``gap_from_round`` that is not a
            whole number.
    """

    name = "greedy-tuned"

    def __init__(self, delta: float = 0.0, hazard_scale: float = 1.0, q_weight: float = 0.0,
                 gap_weight: float = 0.0, gap_from_round: float = 1, closing_margin: float = 0.0,
                 keep_tile_from: float = math.inf, keep_tile_rival: float = -math.inf,
                 tile_decisive: float = 0.0, lookahead: float = 0.0, opponent_model: str = "fitted",
                 **kwargs: Any):
        super().__init__(**kwargs)
        if opponent_model not in NAMED_OPTIONS["opponent_model"]:
            raise ValueError(f"opponent_model must be one of {', '.join(NAMED_OPTIONS['opponent_model'])}, "
                             f"got {opponent_model!r}")
        self.opponent_model = opponent_model
        if self.denial_weight is not None and not math.isfinite(self.denial_weight):
            raise ValueError(f"denial_weight must be a finite number, got {kwargs['denial_weight']!r}")
        given = dict(delta=delta, hazard_scale=hazard_scale, q_weight=q_weight, gap_weight=gap_weight,
                     gap_from_round=gap_from_round, closing_margin=closing_margin, keep_tile_from=keep_tile_from,
                     keep_tile_rival=keep_tile_rival, tile_decisive=tile_decisive, lookahead=lookahead)
        for name, value in given.items():
            v = float(value)
            if math.isnan(v) or (math.isinf(v) and not (name == "keep_tile_from" and v > 0)
                                 and not (name == "keep_tile_rival" and v < 0)):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if float(gap_from_round) != int(gap_from_round):
            raise ValueError(f"gap_from_round must be a whole round index, got {gap_from_round!r}")
        if not hazard_scale >= 0:
            raise ValueError(f"hazard_scale must be at least 0, got {hazard_scale!r}")
        self.delta, self.hazard_scale, self.q_weight = float(delta), float(hazard_scale), float(q_weight)
        self.gap_weight, self.gap_from_round = float(gap_weight), int(gap_from_round)
        if not 0.0 <= tile_decisive <= 1.0:
            raise ValueError(f"tile_decisive must be a probability in [0, 1], got {tile_decisive!r}")
        self.closing_margin, self.keep_tile_from = float(closing_margin), float(keep_tile_from)
        self.tile_decisive, self.lookahead = float(tile_decisive), float(lookahead)
        self.keep_tile_rival = float(keep_tile_rival)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        from pi_env.engine.observe import decode_observation

        s = self.situation(observation, action_mask)
        scores = decode_observation(np.asarray(observation), self.num_players)["score"]
        return self.decide(s, np.asarray(scores, dtype=np.int64))

    def margins(self, s: Situation, scores: np.ndarray) -> tuple[float, float]:
        """``(margin, floor)`` of the solve rule (module docstring) with ``scores[P]`` the scores in
        relative seats (0 = the agent)."""
        o = s.outlook
        margin, floor = self.delta, 0.0
        if self.gap_weight and o.round_index >= self.gap_from_round:
            margin -= self.gap_weight * max(0, int(scores[1:].max()) - int(scores[0]))
        if self.closing_margin and not o.attempted:
            open_others = [j for j in range(1, o.num_players) if not o.seat_attempted[j] and not o.solved[j]]
            if len(open_others) == 1:
                margin -= self.closing_margin
                floor = -self.closing_margin
        return margin, floor

    def decide(self, s: Situation, scores: np.ndarray) -> int:
        """The decision on a :class:`~pi_env.agents.greedy.Situation`:
        :func:`~pi_env.agents.greedy.greedy_decision` with the options' margin, floor, hazard,
        query bonus and last-tile rule."""
        o = s.outlook
        margin, floor = self.margins(s, scores)
        bonus = None
        if self.q_weight and s.cases.size > 1:
            bonus = self.q_weight * np.array([q_after(s.answers[i], s.probs) for i in range(s.actions.size)])
        if self.lookahead and s.cases.size > 1 and s.actions.size:
            extra = self.lookahead * q_two_step(s.answers, s.probs)
            bonus = extra if bonus is None else bonus + extra
        last_tile = self.last_tile or (o.round_index >= 2 and o.score >= self.keep_tile_from
                                       and int(scores[1:].max()) >= self.keep_tile_rival)
        if self.tile_decisive and o.round_index >= 2 and s.inv_left == 1 and not last_tile:
            useful = s.gains > GAIN_TOLERANCE
            clue = s.actions < INVESTIGATE_BASE
            if (useful & clue).any() and (useful & ~clue).any():
                q = np.array([q_after(s.answers[i], s.probs) for i in range(s.actions.size)])
                last_tile = not (q[useful & ~clue].max() >= self.tile_decisive > q[useful & clue].max())
        correct = None
        attempt = o.pmf[:, 0]
        if self.opponent_model == "greedy":
            attempt, correct = o.greedy_hazard()
        return greedy_decision(s, self.denial_weight, last_tile, margin=margin, floor=floor,
                               hazard=np.minimum(1.0, attempt * self.hazard_scale), bonus=bonus,
                               correct=correct)


WINPROB_OPTIONS: dict[str, type] = {"samples": int, "margin": float, "continuation": bool,
                                     "early_solves": bool, "opp_correct": float, "gap_min": float,
                                     "gap_max": float, "opponent_model": str}
"""Options of the variant ``winprob`` (:class:`~pi_env.agents.winprob.WinProbAgent`'s constructor
arguments) and their types: an ``int`` option takes a whole number, a ``bool`` option 0 or 1, a
``str`` option a name (:data:`NAMED_OPTIONS`)."""
WINROLLOUT_OPTIONS: dict[str, type] = {**{k: v for k, v in WINPROB_OPTIONS.items() if k != "samples"},
                                        "worlds": int, "budget_ms": float}
"""Options of the variant ``winrollout`` (:class:`~pi_env.agents.winrollout.WinRolloutAgent`), typed
as :data:`WINPROB_OPTIONS`."""
VARIANTS = ("greedy-tuned", "winprob", "winrollout")
"""Agents a screen can put in the variant's seat (``--agent``)."""


def variant_options(agent: str) -> tuple[str, ...]:
    """Option names of the variant ``agent`` (:data:`VARIANTS`).

    Raises:
        ValueError: an agent not in :data:`VARIANTS`.
    """
    if agent == "greedy-tuned":
        return OPTIONS
    if agent == "winprob":
        return tuple(WINPROB_OPTIONS)
    if agent == "winrollout":
        return tuple(WINROLLOUT_OPTIONS)
    raise ValueError(f"unknown variant agent {agent!r} (known: {', '.join(VARIANTS)})")


def make_variant(agent: str, options: dict[str, Any]) -> GreedyAgent:
    """The variant ``agent`` (:data:`VARIANTS`) with ``options`` (name → number, or name for
    :data:`NAMED_OPTIONS`, as given on the command line): :class:`TunedGreedy` or :class:`~pi_env.agents.winprob.WinProbAgent`.

    Raises:
        ValueError: an unknown agent or option name, an ``int`` option that is not a whole number, a
            ``bool`` option other than 0 or 1, or a value the agent refuses.
    """
    known = variant_options(agent)
    unknown = set(options) - set(known)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} of {agent} (known: {', '.join(known)})")
    if agent == "greedy-tuned":
        return TunedGreedy(**options)
    from pi_env.agents.winprob import WinProbAgent
    from pi_env.agents.winrollout import WinRolloutAgent

    typed = WINROLLOUT_OPTIONS if agent == "winrollout" else WINPROB_OPTIONS
    kwargs: dict[str, Any] = {}
    for name, value in options.items():
        kind = typed[name]
        if kind is str:
            kwargs[name] = str(value)
            continue
        v = float(value)
        arg: Any = v
        if kind is float and not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        if kind is int:
            if not (math.isfinite(v) and v == int(v)):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
            arg = int(v)
        if kind is bool:
            if v not in (0.0, 1.0):
                raise ValueError(f"{name} must be 0 or 1, got {value!r}")
            arg = bool(v)
        kwargs[name] = arg
    return WinRolloutAgent(**kwargs) if agent == "winrollout" else WinProbAgent(**kwargs)


@dataclass(frozen=True)
class FirstChange:
    """The variant's first decision that differs from greedy's in a paired game (the two games are
    equal before it).

    Attributes:
        game: the game index in the tournament seed.
        round_index, rotation: when (0-based, docs/rules.md §5).
        score, leader: the variant seat's score and the highest other score then.
        greedy, variant: greedy's action and the variant's (action ids, docs/rules.md §4).
        values: the variant's ``last`` attribute after the decision, when it has one (winprob:
            ``(solve_now, wait, next_turn)`` win shares, :func:`~pi_env.agents.winprob.plan_win_shares`).
        difference: the game's paired difference of the variant seat's win share.
    """

    game: int
    round_index: int
    rotation: int
    score: int
    leader: int
    greedy: int
    variant: int
    values: "tuple[float, ...] | None"
    difference: float

    @property
    def change(self) -> str:
        """``"solve→query"`` (greedy named a case, the variant did not), ``"query→solve"``, or
        ``"query→query"`` (two different non-solving actions)."""
        from pi_env.core.constants import SOLVE_BASE

        g, v = self.greedy >= SOLVE_BASE, self.variant >= SOLVE_BASE
        return "solve→query" if g and not v else "query→solve" if v and not g else "query→query"

    @property
    def standing(self) -> str:
        """The variant seat against the leader among the others: ``"ahead"``, ``"level"``,
        ``"behind 1-4"`` or ``"behind 5+"`` points."""
        gap = self.leader - self.score
        return "ahead" if gap < 0 else "level" if gap == 0 else "behind 1-4" if gap <= 4 else "behind 5+"


@dataclass(frozen=True)
class ScreenResult:
    """A paired screen's figures (module docstring); shares and differences in ``[0, 1]`` units.

    Attributes:
        games: games played (each twice).
        variant, greedy: mean win share of the variant's seat and of greedy in the same seats.
        difference, se: mean paired difference and its standard error.
        changed: games whose scores or unused tiles differ from the all-greedy game.
        variant_score, greedy_score: mean scores of those seats.
        first_changes: the variant's first differing decision of every game that has one
            (:class:`FirstChange`), in game order.
    """

    games: int
    variant: float
    greedy: float
    difference: float
    se: float
    changed: int
    variant_score: float
    greedy_score: float
    first_changes: tuple[FirstChange, ...] = ()


def play_pair(config: Any, engine_seed: int, seat: int, variant: GreedyAgent,
              game: int = 0) -> tuple[Any, Any, "FirstChange | None"]:
    """One paired game (module docstring): the all-greedy game and the game with ``variant`` in
    ``seat``, both as :func:`pi_env.agents.runner.play_game` plays them (engine seed
    ``engine_seed``, agent ``i`` reset with ``engine_seed * 10 + i``).

    The two are played in lockstep: the all-greedy game is played, the variant is asked at each of
    its seat's turns and, at its first action other than greedy's, the variant game branches off (a
    copy of the state, copies of the greedy agents, which have seen the same observations) and is
    played on alone. Agents are deterministic functions of their observations and their seeded
    generator, so this is the same pair of games as two separate plays, without playing the common
    part twice.

    Returns:
        ``(greedy_state, variant_state, first_change)``: the final states (the same object when the
        variant never decided differently) and the :class:`FirstChange` (its ``difference`` is 0
        here; ``None`` without one). ``game`` is stored in it.
    """
    import copy

    from pi_env.agents.base import reset_for_game
    from pi_env.engine import init, legal_action_mask, observe, step_inplace
    from pi_env.engine.observe import decode_observation

    P = config.num_players
    state = init(config, 1, seed=engine_seed)
    base = [GreedyAgent() for _ in range(P)]
    for i, a in enumerate(base):
        reset_for_game(a, config, seed=engine_seed * 10 + i)
    reset_for_game(variant, config, seed=engine_seed * 10 + seat)
    other, agents, first = None, base, None
    action = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        p = int(state.current_player[0])
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        action[0] = base[p].act(obs, mask)
        if other is None and p == seat:
            b = int(variant.act(obs, mask))
            if b != int(action[0]):
                other = state.copy()
                agents = [copy.deepcopy(a) for a in base]
                agents[seat] = variant
                d = decode_observation(np.asarray(obs), P)
                last = getattr(variant, "last", None)
                first = FirstChange(game, int(d["round"][0]), int(d["rotation"][0]), int(d["score"][0]),
                                    int(np.max(d["score"][1:])), int(action[0]), b,
                                    None if last is None else tuple(float(x) for x in last), 0.0)
                step_inplace(other, np.array([b], dtype=np.int64), config)
        step_inplace(state, action, config)
    if other is None:
        return state, state, None
    while not other.done[0]:
        p = int(other.current_player[0])
        action[0] = agents[p].act(observe(other, p)[0], legal_action_mask(other)[0])
        step_inplace(other, action, config)
    return state, other, first


def paired_screen(options: dict[str, Any], seed: int, games: int, start: int = 0,
                  players: int = 4, progress: bool = False, agent: str = "greedy-tuned") -> ScreenResult:
    """Play games ``start .. start + games − 1`` of tournament seed ``seed`` twice (module docstring,
    :func:`play_pair`), the variant ``agent`` (:data:`VARIANTS`) with ``options`` in seat ``g mod
    players`` of game ``g``.

    Raises:
        ValueError: ``games < 2``, an unknown agent or option name or a bad value
            (:func:`make_variant`), or fewer than 2 players.
    """
    from dataclasses import replace

    from pi_env.apps.tournament import game_seed
    from pi_env.engine import GameConfig, outcome

    if games < 2:
        raise ValueError(f"a paired screen needs at least 2 games, got {games}")
    make_variant(agent, options)  # (bad names and values refused before any game is played)
    config = GameConfig(num_players=players)

    def shares(state: Any) -> tuple[list[float], list[int], list[int]]:
        r = outcome(state, config)
        k = len(r.winners)
        return ([1.0 / k if r.ranks[j] == 1 else 0.0 for j in range(players)], [int(x) for x in r.scores],
                [int(x) for x in state.inv_left[0]])

    rows = []
    firsts = []
    games_range: Any = range(start, start + games)
    if progress:
        from tqdm import tqdm

        games_range = tqdm(games_range, desc="paired games")
    for g in games_range:
        seat = g % players
        base_state, var_state, first = play_pair(config, game_seed(seed, g), seat, make_variant(agent, options), g)
        base, var = shares(base_state), shares(var_state)
        rows.append((var[0][seat], base[0][seat], var[1][seat], base[1][seat], var[1:] != base[1:]))
        if first is not None:
            firsts.append(replace(first, difference=var[0][seat] - base[0][seat]))
    v = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    d = v - b
    return ScreenResult(games, float(v.mean()), float(b.mean()), float(d.mean()),
                        float(d.std(ddof=1) / math.sqrt(games)), int(sum(r[4] for r in rows)),
                        float(np.mean([r[2] for r in rows])), float(np.mean([r[3] for r in rows])),
                        tuple(firsts))


def breakdown(result: ScreenResult) -> list[tuple[str, str, int, float, float]]:
    """The paired difference by the situation of the variant's first differing decision:
    ``[(change, standing, games, mean difference, contribution)]`` (:attr:`FirstChange.change`,
    :attr:`FirstChange.standing`), sorted by change then standing; ``contribution`` is the group's
    sum of differences over all ``result.games`` games, so the contributions add up to
    ``result.difference`` (games without a differing decision have difference 0)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for f in result.first_changes:
        groups.setdefault((f.change, f.standing), []).append(f.difference)
    order = {"ahead": 0, "level": 1, "behind 1-4": 2, "behind 5+": 3}
    return [(c, s, len(ds), float(np.mean(ds)), float(np.sum(ds)) / result.games)
            for (c, s), ds in sorted(groups.items(), key=lambda kv: (kv[0][0], order[kv[0][1]]))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_env.experiments.greedy_screen",
                                     description="Paired screen of a greedy variant (4 players by default).")
    parser.add_argument("--seed", type=int, required=True, help="tournament seed (a tuning seed)")
    parser.add_argument("--games", type=int, default=400, help="games, each played twice (default 400)")
    parser.add_argument("--start", type=int, default=0, help="first game index (default 0)")
    parser.add_argument("--players", type=int, default=4,
                        help="players per game, 2..5 (default 4); the variant sits in seat g mod players "
                             "of game g, greedy in the others")
    parser.add_argument("--agent", choices=VARIANTS, default="greedy-tuned",
                        help="the variant: greedy-tuned (TunedGreedy, default), winprob or winrollout")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help=f"a TunedGreedy option ({', '.join(OPTIONS)}) or, with --agent winprob, a "
                             f"WinProbAgent option ({', '.join(WINPROB_OPTIONS)}), with --agent winrollout a "
                             f"WinRolloutAgent option ({', '.join(WINROLLOUT_OPTIONS)}); repeatable")
    parser.add_argument("--breakdown", action="store_true",
                        help="also print the paired difference by the situation of the variant's first "
                             "differing decision (change of action kind, standing against the leader)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option {item!r}: expected NAME=VALUE")
        if name.strip() in options:
            parser.error(f"--option {name.strip()} given twice")
        if name.strip() in NAMED_OPTIONS:
            options[name.strip()] = value.strip()
            continue
        try:
            options[name.strip()] = float(value)
        except ValueError:
            parser.error(f"--option {item!r}: {value!r} is not a number")
    for flag, value in (("--seed", args.seed), ("--start", args.start)):
        if value < 0:
            parser.error(f"{flag} must be at least 0, got {value}")
    try:
        r = paired_screen(options, args.seed, args.games, args.start, args.players, progress=not args.quiet,
                          agent=args.agent)
    except ValueError as e:
        parser.error(str(e))
    label = ", ".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in options.items()) \
        or "greedy (no options)"
    if args.agent != "greedy-tuned":
        label = f"{args.agent}" + (f" ({label})" if options else "")
    z = f"; z {r.difference / r.se:+.2f}" if r.se > 0 else ""  # the criterion "more than 2 SE" unrounded
    print(f"{label}: seed {args.seed}, games {args.start}..{args.start + r.games - 1}: variant "
          f"{100 * r.variant:.1f}%, greedy in the same seats {100 * r.greedy:.1f}%, paired difference "
          f"{100 * r.difference:+.1f} ± {100 * r.se:.1f} points of win share (1 SE{z}); {r.changed} games "
          f"changed; mean score "
          f"{r.variant_score:.2f} against {r.greedy_score:.2f}")
    if args.breakdown:
        print(f"{len(r.first_changes)} games with a decision other than greedy's; by its situation "
              "(paired difference in points of win share, contribution to the mean):")
        for change, standing, n, mean, contribution in breakdown(r):
            print(f"  {change:<12} {standing:<11} {n:>5} games  mean {100 * mean:+6.1f}  "
                  f"contribution {100 * contribution:+5.2f}")
    return 0


if __name__ == "__main__":
    from pi_env.core.interrupts import exit_130_when_interrupted

    sys.exit(exit_130_when_interrupted(main, "python -m pi_env.experiments.greedy_screen: interrupted; nothing "
                                              "printed"))
