"""Calibration of the solver's case probabilities on engine self-play (docs/rules.md §9).

A position is a round of an engine game, a player p and a prefix of the round's events (ending at
an event index drawn independently of the game, kept if the round reached it). :func:`pi_env.solvers.analyze`
gives, from p's knowledge only, a probability for every case p can still have. If these are the
true posteriors, then among all (position, case) predictions with probability near q, a fraction q
are the true case: that is checked per decile of predicted probability.

The posterior of docs/rules.md §9 treats the choice of action as carrying no information. That is exact
when every player chooses from public information only — :class:`PublicRandomAgent` below (uniform
over the legal clues and investigators, now and then a solve naming a uniformly random case) — so
the strict test uses that policy. The ``deducer`` agent chooses from its own posterior, which
depends on the case it holds (another player's case), so its choices leak a little information the
model ignores; the deducer/random mix is checked only where the sample is large (and its table is
printed; see ``docs/solver_figures.md``).

Records are written and re-read (:func:`pi_env.records.record_file.record_to_dict`,
:func:`pi_env.records.record_file.load_record`) so that each investigation carries its suppressed types
(docs/rules.md §4.2), which the in-memory :class:`~pi_env.records.recorder.Recorder` record does not fill in.

The statistical tests are marked ``slow`` (run with ``pytest -m slow tests/test_calibration.py -s``
to see the tables).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.base import Agent
from pi_env.core.constants import SOLVE_BASE
from pi_env.agents.runner import play_game
from pi_env.engine import GameConfig
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.types import GameRecord
from pi_env.solvers import analyze

FIRST_EVENT, LAST_EVENT = 4, 30  # prefixes end at an event index drawn uniformly from this range
TOLERANCE = 0.02  # |mean predicted probability - observed frequency| per decile
MAX_SE = TOLERANCE / 4  # "enough samples": the decile's standard error is at most a quarter of it
MAX_Z = 4.5  # every decile of the public-information policy: |observed - predicted| <= MAX_Z SE


class PublicRandomAgent(Agent):
    """Chooses from public information only: uniform over the legal clue and investigator actions;
    with probability ``solve_rate`` (or when no such action is legal) a solve naming a uniformly
    random case. Its actions therefore carry no information about any case (docs/rules.md §9)."""

    name = "public-random"

    def __init__(self, solve_rate: float = 0.05):
        self.solve_rate = solve_rate

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        queries, solves = legal[legal < SOLVE_BASE], legal[legal >= SOLVE_BASE]
        if solves.size and (queries.size == 0 or self.rng.random() < self.solve_rate):
            return int(solves[self.rng.integers(solves.size)])
        return int(queries[self.rng.integers(queries.size)])


def _agent(name: str) -> Agent:
    return PublicRandomAgent() if name == "public" else make_agent(name)


def play_record(n_players: int, seat_names: list[str], seed: int) -> GameRecord:
    """Play one engine game and return its record, re-read so suppression is derived."""
    config = GameConfig(num_players=n_players)
    _, rec = play_game(config, [_agent(name) for name in seat_names], seed)
    return load_record(record_to_dict(rec.record()))


@dataclass
class Predictions:
    """All (position, consistent case) predictions: ``prob`` and whether the case is the true one."""

    prob: np.ndarray
    true: np.ndarray
    p_true: np.ndarray  # per position: predicted probability of the true case
    positions: int
    by_players: dict[int, int]


def collect(n_positions: int, seats: dict[str, float], seed: int) -> Predictions:
    """Play games (3-5 players, each seat drawn from ``seats``: name -> probability) until
    ``n_positions`` positions are collected: in every round each player in random order with a
    prefix ending at an event index drawn uniformly from FIRST_EVENT..LAST_EVENT (kept if the round
    got that far)."""
    rng = np.random.default_rng(seed)
    names, weights = list(seats), np.array(list(seats.values()), dtype=float)
    probs, trues, p_true = [], [], []
    by_players = {3: 0, 4: 0, 5: 0}
    game = 0
    while len(p_true) < n_positions:
        n = int(rng.integers(3, 6))
        seat_names = [names[i] for i in rng.choice(len(names), size=n, p=weights / weights.sum())]
        record = play_record(n, seat_names, seed * 100_000 + game)
        game += 1
        for r, rnd in enumerate(record.rounds):
            for p in rng.permutation(n):
                e = int(rng.integers(FIRST_EVENT, LAST_EVENT + 1))
                if e >= len(rnd.events) or len(p_true) == n_positions:
                    continue
                a = analyze(record, int(p), r, e)
                true_case = rnd.cases[int(p)]
                probs.append(a.probabilities)
                trues.append(a.cases == true_case)
                p_true.append(a.probability_of(true_case))
                by_players[n] += 1
    return Predictions(np.concatenate(probs), np.concatenate(trues), np.array(p_true), len(p_true),
                       by_players)


@dataclass
class Decile:
    lo: float
    n: int
    mean_pred: float
    observed: float
    se: float  # standard error of the observed frequency if the predictions are right

    @property
    def diff(self) -> float:
        return self.observed - self.mean_pred

    @property
    def enough(self) -> bool:
        return self.n > 0 and self.se <= MAX_SE


def deciles(pred: Predictions) -> list[Decile]:
    """Fixed-width deciles [0, 0.1), ..., [0.9, 1.0] of predicted probability."""
    b = np.minimum((pred.prob * 10).astype(np.int64), 9)
    out = []
    for i in range(10):
        m = b == i
        n = int(m.sum())
        if n == 0:
            out.append(Decile(i / 10, 0, float("nan"), float("nan"), float("nan")))
            continue
        q = pred.prob[m]
        out.append(Decile(i / 10, n, float(q.mean()), float(pred.true[m].mean()),
                          float(np.sqrt((q * (1 - q)).sum()) / n)))
    return out


def table(pred: Predictions, rows: list[Decile], title: str) -> str:
    lines = [f"{title}: {pred.positions} positions {pred.by_players}, {pred.prob.size} predictions",
             "| predicted P | predictions | mean predicted | observed frequency | difference | std. error "
             "| checked |",
             "|---|---|---|---|---|---|---|"]
    for d in rows:
        if d.n == 0:
            lines.append(f"| {d.lo:.1f}-{d.lo + 0.1:.1f} | 0 | | | | | |")
            continue
        checked = f"±{TOLERANCE}" if d.enough else f"{MAX_Z} SE"
        lines.append(f"| {d.lo:.1f}-{d.lo + 0.1:.1f} | {d.n} | {d.mean_pred:.4f} | {d.observed:.4f} | "
                     f"{d.diff:+.4f} | {d.se:.4f} | {checked} |")
    return "\n".join(lines)


def _check_basic(pred: Predictions) -> None:
    assert (pred.p_true > 0).all(), "the true case always stays consistent"
    assert pred.true.sum() == pred.positions


# ------------------------------------------------------------------------------------------------
# fast


def test_true_case_positive_and_probabilities_exact() -> None:
    """~50 positions (public-information, deducer and random seats): the true case has positive
    probability, the joint counts add up to the total exactly, and the probabilities sum to 1."""
    rng = np.random.default_rng(7)
    seen = 0
    game = 0
    while seen < 50:
        n = 3 + game % 3
        seats = rng.choice(3, size=n, p=[0.5, 0.4, 0.1])
        seat_names = [("public", "deducer", "random")[int(i)] for i in seats]
        record = play_record(n, seat_names, 900 + game)
        game += 1
        for r, rnd in enumerate(record.rounds):
            for p in range(n):
                e = int(rng.integers(-1, len(rnd.events)))
                a = analyze(record, p, r, e)
                assert a.probability_of(rnd.cases[p]) > 0
                assert int(a.joint_counts.sum(dtype=object)) == a.total > 0
                assert a.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
                seen += 1


# ------------------------------------------------------------------------------------------------
# slow: calibration


@pytest.mark.slow
def test_calibration_public_information_policy() -> None:
    pred = collect(8000, {"public": 1.0}, seed=1)
    rows = deciles(pred)
    print("\n" + table(pred, rows, "public-information policy"))
    _check_basic(pred)
    assert min(pred.by_players.values()) > 1000
    assert sum(d.enough for d in rows) >= 3
    for d in rows:
        if d.enough:
            assert abs(d.diff) <= TOLERANCE, d
        if d.n:
            assert abs(d.diff) <= MAX_Z * d.se + 1e-12, d


@pytest.mark.slow
def test_calibration_deducer_random_mix() -> None:
    pred = collect(3000, {"deducer": 0.8, "random": 0.2}, seed=2)
    rows = deciles(pred)
    print("\n" + table(pred, rows, "deducer/random self-play").replace(f"{MAX_Z} SE", "not checked"))
    _check_basic(pred)
    assert min(pred.by_players.values()) > 500
    assert sum(d.enough for d in rows) >= 2
    for d in rows:
        if d.enough:
            assert abs(d.diff) <= TOLERANCE, d
