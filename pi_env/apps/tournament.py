"""Seat-rotated tournaments between built-in agents.

A tournament plays ``games`` standard games of ``players`` seats. Game ``i`` is a pure function of
the settings and ``i`` — never of the worker count, the backend or the order games finish in:

* its engine seed is :func:`game_seed` ``(seed, i)``: 53 bits drawn from
  ``numpy.random.SeedSequence([seed, i])``;
* its seats (:func:`seat_agents`): the agent list's distinct cyclic orders in turn, each rotated
  through all seats, so over ``players`` consecutive games every agent sits in every seat equally
  often, and over ``players × orders`` games every agent also sits right after every other agent
  equally often (who holds whose case, docs/rules.md §3);
* the agent in seat ``s`` is reset with seed ``game_seed * 10 + s``, as ``pi-env play`` does, so
  ``pi-env play --seed SEED --agents A0,A1,.. --players P`` replays any game of ``games.csv``.

Statistics are per agent *name*: an agent listed in several seats is aggregated over all its seats.

* **Win rate** = wins / seat-games. A first place shared by ``k`` tied winners (after the edition's
  tiebreaks, :func:`pi_env.engine.outcome`) counts ``1/k`` of a win for each of them, so the win
  shares of one game add up to 1 and equally strong agents have a win rate of ``1/players``.
* **95% confidence interval of the win rate**: the Wilson score interval. For a whole win count it
  is exactly ``scipy.stats.binomtest(wins, n).proportion_ci(method="wilson")``; with fractional
  (shared) wins the same Wilson formula is evaluated at the fractional count — a normal
  approximation that is conservative, since a win share in ``[0, 1]`` with mean ``p`` has variance at
  most ``p (1 - p)``. Seats of one agent in the same game are treated as independent.
* **Rotations to solve**: for each round a seat solved correctly, the number of rotations played in
  that round up to and including the solving turn (``State.rotation + 1`` before the solve); the
  mean is over solved rounds only. **Solve rate** = solved rounds / rounds played.
* **Wrong solves**: failed solve attempts (2 penalty points each), per seat-game.

Files in the output folder (``--out``, default ``results/``):

``tournament.json``
    the settings (``format: pi-tournament/1``), written first; ``--resume`` refuses other settings.
    Also the ``workers`` last used (not a setting: games do not depend on it), which ``--resume``
    reuses unless given again.
``games.csv``
    one line per seat per game (columns :func:`columns`), appended and flushed as each game
    finishes, so an interrupted tournament keeps every finished game; rewritten in game order when
    the tournament ends. A game whose lines were cut off by a crash is dropped and played again on
    ``--resume``.
``summary.json``, ``summary.csv``
    the per-agent statistics above (also written, marked incomplete, when interrupted).
``scores.png``
    the distribution of final scores per agent.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import itertools
import json
import math
import os
import statistics
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from pi_env.apps.interrupts import ignore_sigint, signals_held, terminate_as_interrupt
from pi_env.core.constants import DEFAULT_MAX_ROTATIONS, MAX_PLAYERS, MIN_PLAYERS, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.core.files import check_output_dir, write_figure_atomic, write_text_atomic
from pi_env.core.text import csv_text, format_table, plural

FORMAT = "pi-tournament/1"
SUMMARY_FORMAT = "pi-tournament-summary/1"
CONFIDENCE = 0.95
BACKENDS = ("process", "ray")
RAY_MISSING = "the ray backend needs Ray: pip install '.[ray]' (from a checkout of pi-env)"

META_FILE = "tournament.json"
GAMES_FILE = "games.csv"
SUMMARY_JSON = "summary.json"
SUMMARY_CSV = "summary.csv"
PLOT_FILE = "scores.png"
OUTPUT_FILES = (META_FILE, GAMES_FILE, SUMMARY_JSON, SUMMARY_CSV, PLOT_FILE)

Row = dict[str, Any]


class TournamentInterrupted(KeyboardInterrupt):
    """The tournament was interrupted (Ctrl-C); every finished game is on disk.

    Attributes:
        finished: games finished (including those of earlier runs).
        total: games planned.
        out: the output folder.
    """

    def __init__(self, finished: int, total: int, out: Path):
        super().__init__(f"interrupted after {finished} of {plural(total, 'game')}")
        self.finished, self.total, self.out = finished, total, out


@dataclass(frozen=True)
class TournamentSettings:
    """Everything a tournament's games depend on (workers and backend do not count).

    ``agents`` is one agent name per seat, or a shorter list repeated to fill the seats
    (:func:`fill_seats`: ``("x", "greedy")`` for 4 players is stored as ``("x", "greedy", "x",
    "greedy")``, so both spellings are the same settings, also on ``--resume``).

    Raises:
        PIError: an unknown agent (or a learned model trained for another player count), a number of
            players that is not a multiple of the number of agents, ``games < 1``, a bad seed,
            or bad rules options (see :class:`pi_env.engine.GameConfig`).
    """

    agents: tuple[str, ...]
    games: int
    players: int
    seed: int = 0
    edition: str = "second"
    variants: tuple[str, ...] = ()
    max_rotations: int = DEFAULT_MAX_ROTATIONS

    def __post_init__(self) -> None:
        from pi_env.agents import make_agent
        from pi_env.agents.base import reset_for_game

        names = check_agent_list(self.agents)  # every name before any agent is built (a learned model compiles kernels)
        object.__setattr__(self, "agents", names)
        object.__setattr__(self, "variants", tuple(self.variants))
        store_integers(self, ("games", "players", "seed", "max_rotations"))
        if self.games < 1:
            raise PIError(f"games must be at least 1, got {self.games}")
        if self.seed < 0:
            raise PIError(f"seed must be a non-negative integer, got {self.seed}")
        self.config()  # validates players, edition, variants, max_rotations
        names = fill_seats(names, self.players)
        object.__setattr__(self, "agents", names)
        config = self.config()
        for agent in (make_agent(n) for n in dict.fromkeys(self.agents)):  # a learned model of another player count fails now, before anything is written
            reset_for_game(agent, config, seed=0)

    def config(self):
        """The :class:`~pi_env.engine.GameConfig` of every game."""
        from pi_env.engine import GameConfig

        return GameConfig(num_players=self.players, edition=self.edition, variants=self.variants,
                          max_rotations=self.max_rotations)

    @property
    def num_rounds(self) -> int:
        return 2 if "fast" in self.variants else 3

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"], d["variants"] = list(self.agents), list(self.variants)
        return {"format": FORMAT, **d}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TournamentSettings":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise PIError(f"not a {FORMAT} settings file")
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: (tuple(v) if k in ("agents", "variants") else v)
                          for k, v in d.items() if k in known})
        except TypeError as exc:
            raise PIError(f"bad {FORMAT} settings: {exc}") from None


def agent_key(name: Any) -> str:
    """An agent name as stored: stripped, lower case, except the file path of ``sb3:PATH``.

    ``agent_key(" Random ") == "random"``, ``agent_key("SB3:Results/P.zip") == "sb3:Results/P.zip"``.
    """
    n = str(name).strip()
    head, sep, tail = n.partition(":")
    return f"{head.lower()}{sep}{tail}" if sep else n.lower()


def check_agent_list(agents: Sequence[str], *, once: str | None = None) -> tuple[str, ...]:
    """The agent names of a tournament or a ladder, checked, as stored (:func:`agent_key`); no agent is
    built (no model loaded, no kernel compiled).

    Args:
        agents: agent names (a sequence, not one string).
        once: if given, a name listed twice is refused, the message ending with this reason
            (e.g. ``"a ladder rates each agent once"``); else names may repeat (seats of a tournament).

    Returns:
        The names as stored, in the given order.

    Raises:
        PIError: ``agents`` is a string, a name is empty, or (with ``once``) a name is listed twice.
        UnknownNameError: an unknown agent name (:func:`pi_env.agents.check_agent_name`, with close
            matches).
    """
    from pi_env.agents import check_agent_name

    if isinstance(agents, str):
        raise PIError(f"agents must be a sequence of agent names, got the string {agents!r}")
    names = tuple(agent_key(a) for a in agents)
    if any(not n for n in names):
        raise PIError(f"an agent name is empty in {','.join(agents)!r}")
    for n in names:
        check_agent_name(n)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if once is not None and repeated:
        raise PIError(f"agents are listed twice: {', '.join(repeated)} ({once})")
    return names


def store_integers(settings: Any, names: Iterable[str]) -> None:
    """Check that the fields ``names`` of the frozen dataclass ``settings`` are integers (numpy ones
    too, not ``bool``) and store them as ``int``.

    Raises:
        PIError: a field is not an integer (the message names it).
    """
    for name in names:
        value = getattr(settings, name)
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise PIError(f"{name} must be an integer, got {value!r}")
        object.__setattr__(settings, name, int(value))


def fill_seats(agents: Sequence[str], players: int) -> tuple[str, ...]:
    """One agent per seat: ``agents`` repeated ``players // len(agents)`` times.

    ``fill_seats(("x", "greedy"), 4) == ("x", "greedy", "x", "greedy")``; a list of ``players``
    agents is returned as it is. The seats then rotate as for any list (:func:`seat_agents`).

    Raises:
        PIError: ``players`` is not a multiple of ``len(agents)`` (the message names both numbers),
            ``agents`` is empty or a string (not a list of names), or ``players`` is not a positive
            integer.
    """
    if isinstance(agents, str):
        raise PIError(f"agents must be a sequence of agent names, got the string {agents!r}")
    if not isinstance(players, (int, np.integer)) or isinstance(players, bool) or players < 1:
        raise PIError(f"players must be a positive integer, got {players!r}")
    names = tuple(agents)
    if not names or players % len(names):
        raise PIError(f"{len(names)} agents given for {players} players: list one agent per seat, "
                      f"or a list that repeats to fill the seats ({players} is not a multiple of "
                      f"{len(names)}): {','.join(names)}")
    return names * (players // len(names))


def agent_seats(agents: Sequence[str], players: "int | None") -> tuple[tuple[str, ...], str]:
    """The seats of an ``--agents`` list and the note saying how they were filled, as ``pi-env
    play`` and ``pi-env tournament`` print it.

    ``players`` ``None`` (no ``--players``) takes the list's length as the player count. A shorter
    list repeats to fill the seats (:func:`fill_seats`); then the note is ``"--agents
    greedy,random repeated to fill 4 seats"``, else ``""``. Names are stripped of spaces, not
    otherwise checked (an unknown agent is :func:`pi_env.agents.make_agent`'s error).

    ``agent_seats(["greedy", "random"], 4) == (("greedy", "random", "greedy", "random"),
    "--agents greedy,random repeated to fill 4 seats")``; ``agent_seats(["a", "b", "c"], None) ==
    (("a", "b", "c"), "")``.

    Raises:
        PIError: an empty name (``"a,,b"``); ``players`` ``None`` and the list not 2..5 agents long
            (the message says to give ``--players``); ``players`` not a multiple of the list's
            length (:func:`fill_seats`).
    """
    if isinstance(agents, str):
        raise PIError(f"agents must be a sequence of agent names, got the string {agents!r}")
    names = tuple(str(a).strip() for a in agents)
    if not names or not all(names):
        raise PIError(f"an agent name is empty in {','.join(names)!r}")
    if players is None:
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            listed = (f"--agents {','.join(names)} lists {len(names)} agent{'s' * (len(names) != 1)} and "
                      f"--players is not given (it defaults to the number of agents, {MIN_PLAYERS}..{MAX_PLAYERS})")
            raise PIError(f"{listed}: give --players, e.g. --players 4 to seat {names[0]} 4 times"
                          if len(names) < MIN_PLAYERS else f"{listed}: at most {MAX_PLAYERS} players sit at a table")
        players = len(names)
    seats = fill_seats(names, players)
    note = f"--agents {','.join(names)} repeated to fill {players} seats" if len(names) != len(seats) else ""
    return seats, note


def game_seed(base_seed: int, game: int) -> int:
    """Engine seed of game ``game`` of a tournament with seed ``base_seed`` (53 bits)."""
    word = np.random.SeedSequence([int(base_seed), int(game)]).generate_state(1, dtype=np.uint64)[0]
    return int(word >> np.uint64(11))


@functools.lru_cache(maxsize=64)
def seating_orders(agents: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The distinct cyclic orders of ``agents`` around the table, the listed order first.

    Two seatings are the same cyclic order when one is a rotation of the other. In P.I. the order
    matters beyond the seat number: each player holds the case of the next player in turn order
    (docs/rules.md §3) and takes clue cards before the player after it, so who sits after whom changes
    the game. Orders are enumerated as the permutations that keep ``agents[0]`` first, in
    lexicographic order of positions, dropping repeats (an agent listed twice). ``P`` distinct
    agents have ``(P − 1)!`` orders; ``greedy,heuristic,random,random`` has 3.
    """
    first, rest = agents[0], agents[1:]
    seen: set[tuple[str, ...]] = set()
    orders: list[tuple[str, ...]] = []
    for perm in itertools.permutations(range(len(rest))):
        order = (first,) + tuple(rest[i] for i in perm)
        if order in seen:
            continue
        orders.append(order)
        seen.update(order[k:] + order[:k] for k in range(len(order)))
    return tuple(orders)


def seat_agents(agents: Sequence[str], game: int) -> tuple[str, ...]:
    """Agent per seat in game ``game``.

    Game ``g`` of ``P`` seats uses the cyclic order ``(g // P) mod C`` of :func:`seating_orders`
    (``C`` orders) rotated left by ``g mod P``: every ``P`` consecutive games put every agent in
    every seat equally often, and every ``P·C`` games also every agent after every other one
    equally often. The first ``P`` games are the listed order rotated.
    """
    orders = seating_orders(tuple(agents))
    P = len(agents)
    order = orders[(game // P) % len(orders)]
    k = game % P
    return order[k:] + order[:k]


def columns(num_rounds: int = 3) -> list[str]:
    """Columns of ``games.csv``: one line per seat of each game.

    ``game`` (0-based index), ``seed`` (engine seed), ``seat``, ``agent``, ``score``, ``rank``
    (1 = first, shared by ties), ``winner`` (0/1), ``win_share`` (``1/k`` for each of ``k`` tied
    winners, else 0), ``wrong_solves``, ``investigators_used``, ``solve_rotation_R`` per round ``R``
    (rotations to solve, empty if the seat did not solve that round), ``turns`` (of the whole game)
    and ``truncated`` (0/1: a round hit the rotation safeguard).
    """
    return (["game", "seed", "seat", "agent", "score", "rank", "winner", "win_share", "wrong_solves",
             "investigators_used"] + [f"solve_rotation_{r + 1}" for r in range(num_rounds)]
            + ["turns", "truncated"])


def tournament_game(settings: TournamentSettings, game: int) -> list[Row]:
    """Play game ``game`` of the tournament with :func:`pi_env.agents.runner.play_game` (the one loop
    that plays a game with agents) and return its rows (one per seat, see :func:`columns`)."""
    from pi_env.agents.runner import play_game
    from pi_env.engine import outcome

    config = settings.config()
    P, R = settings.players, settings.num_rounds
    seed = game_seed(settings.seed, game)
    names = seat_agents(settings.agents, game)
    solve_rotation: list[list[int | None]] = [[None] * R for _ in range(P)]
    wrong = [0] * P
    before: list[int] = [0, 0]

    def note_position(state, p, obs, agent) -> None:
        before[:] = [int(state.round[0]), int(state.rotation[0])]

    def note_solve(state) -> None:
        p, a = int(state.last_player[0]), int(state.last_action[0])
        if a >= SOLVE_BASE:
            if int(state.last_answer[0, 0]) == 1:
                solve_rotation[p][before[0]] = before[1] + 1
            else:
                wrong[p] += 1

    state, _ = play_game(config, list(names), seed, before_step=note_position, after_step=note_solve)
    result = outcome(state, config)
    k = len(result.winners)
    rows = []
    for s in range(P):
        win = result.ranks[s] == 1
        row: Row = {"game": game, "seed": seed, "seat": s, "agent": names[s],
                    "score": result.scores[s], "rank": result.ranks[s], "winner": int(win),
                    "win_share": 1.0 / k if win else 0.0, "wrong_solves": wrong[s],
                    "investigators_used": config.investigators[s] - int(state.inv_left[0, s])}
        for r in range(R):
            row[f"solve_rotation_{r + 1}"] = solve_rotation[s][r]
        row["turns"] = int(state.turn[0])
        row["truncated"] = int(result.truncated)
        rows.append(row)
    return rows


def play_games(settings: TournamentSettings, games: Sequence[int]) -> list[list[Row]]:
    """Play several games (one task of a worker); returns their rows."""
    return [tournament_game(settings, i) for i in games]


# ---------------------------------------------------------------------------------------------
# games.csv


def _format_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def format_rows(rows: Iterable[Row], cols: Sequence[str]) -> str:
    """CSV text (no header) of ``rows``."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow([_format_value(row[c]) for c in cols])
    return buf.getvalue()


def _parse_row(values: list[str], cols: Sequence[str]) -> Row:
    if len(values) != len(cols):
        raise ValueError(f"{len(values)} fields, expected {len(cols)}")
    row: Row = {}
    for c, v in zip(cols, values):
        if c == "agent":
            row[c] = v
        elif c == "win_share":
            row[c] = float(v)
        elif c.startswith("solve_rotation_"):
            row[c] = int(v) if v != "" else None
        else:
            row[c] = int(v)
    return row


def read_games(path: "str | Path", settings: TournamentSettings) -> dict[int, list[Row]]:
    """The finished games of a ``games.csv``: ``{game: rows in seat order}``.

    Lines cut off by an interruption (a last line without its newline, a game with fewer lines than
    seats at the end of the file) are dropped: those games are simply not finished.

    Raises:
        PIError: the file does not belong to ``settings`` (other header, seeds or seats).
    """
    path = Path(path)
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    cols = columns(settings.num_rounds)
    lines = text.split("\n")
    if lines[0] != ",".join(cols):
        raise PIError(f"{path}: unexpected header; it was not written by this tournament")
    body = lines[1:-1]  # lines[-1] is '' after a final newline, else an unfinished line
    by_game: dict[int, list[Row]] = {}
    for n, line in enumerate(body, start=2):
        try:
            row = _parse_row(next(csv.reader([line])), cols)
        except (ValueError, StopIteration) as exc:
            raise PIError(f"{path}, line {n}: {exc}") from None
        by_game.setdefault(row["game"], []).append(row)
    finished: dict[int, list[Row]] = {}
    for g, rows in by_game.items():
        if not 0 <= g < settings.games or len(rows) > settings.players:
            raise PIError(f"{path}: game {g} does not belong to this tournament")
        if len(rows) < settings.players:
            continue  # cut off by an interruption
        rows.sort(key=lambda r: r["seat"])
        names = seat_agents(settings.agents, g)
        seed = game_seed(settings.seed, g)
        if ([r["seat"] for r in rows] != list(range(settings.players))
                or [r["agent"] for r in rows] != list(names) or any(r["seed"] != seed for r in rows)):
            raise PIError(f"{path}: game {g} has other seats or seeds than this tournament's")
        finished[g] = rows
    return finished


def write_games(path: Path, games: dict[int, list[Row]], settings: TournamentSettings) -> None:
    """Write ``games.csv`` afresh (header + games in index order), atomically."""
    cols = columns(settings.num_rounds)
    text = ",".join(cols) + "\n" + format_rows((r for g in sorted(games) for r in games[g]), cols)
    write_text_atomic(path, text)


# ---------------------------------------------------------------------------------------------
# statistics


def win_interval(wins: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a win rate ``wins / n`` (see the module docstring).

    Whole counts use ``scipy.stats.binomtest(...).proportion_ci(method="wilson")``; fractional
    counts (shared wins) the same formula at the fractional count.
    """
    from scipy import stats

    if n < 1:
        raise PIError(f"a confidence interval needs at least one game, got n={n}")
    if not 0 <= wins <= n:
        raise PIError(f"wins must be in 0..{n}, got {wins}")
    if float(wins).is_integer():
        ci = stats.binomtest(int(wins), n).proportion_ci(confidence_level=confidence, method="wilson")
        return float(ci.low), float(ci.high)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = wins / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


SUMMARY_COLUMNS = ["agent", "seat_games", "wins", "win_rate", "win_ci_low", "win_ci_high",
                   "mean_score", "sd_score", "mean_rank", "solve_rate", "mean_rotations_to_solve",
                   "wrong_solves", "wrong_solves_per_game", "mean_investigators_used"]


def summarize(games: dict[int, list[Row]], settings: TournamentSettings) -> dict[str, Any]:
    """Per-agent statistics of the finished ``games`` (see the module docstring)."""
    names = list(dict.fromkeys(settings.agents))
    R = settings.num_rounds
    rows = [r for g in sorted(games) for r in games[g]]
    per_agent = []
    for name in names:
        mine = [r for r in rows if r["agent"] == name]
        n = len(mine)
        entry: dict[str, Any] = {"agent": name, "seat_games": n}
        if n == 0:
            per_agent.append({c: entry.get(c) for c in SUMMARY_COLUMNS})
            continue
        wins = math.fsum(r["win_share"] for r in mine)
        scores = [r["score"] for r in mine]
        solves = [r[f"solve_rotation_{k + 1}"] for r in mine for k in range(R)]
        solved = [v for v in solves if v is not None]
        wrong = sum(r["wrong_solves"] for r in mine)
        low, high = win_interval(wins, n)
        entry.update({
            "wins": wins, "win_rate": wins / n, "win_ci_low": low, "win_ci_high": high,
            "mean_score": statistics.fmean(scores),
            "sd_score": statistics.stdev(scores) if n > 1 else 0.0,
            "mean_rank": statistics.fmean(r["rank"] for r in mine),
            "solve_rate": len(solved) / (n * R),
            "mean_rotations_to_solve": statistics.fmean(solved) if solved else None,
            "wrong_solves": wrong, "wrong_solves_per_game": wrong / n,
            "mean_investigators_used": statistics.fmean(r["investigators_used"] for r in mine),
        })
        seat_rates = []
        for s in range(settings.players):
            at = [r["win_share"] for r in mine if r["seat"] == s]
            seat_rates.append({"seat": s, "seat_games": len(at),
                               "win_rate": math.fsum(at) / len(at) if at else None})
        entry["by_seat"] = seat_rates
        per_agent.append(entry)
    return {
        "format": SUMMARY_FORMAT,
        "settings": settings.to_dict(),
        "games_finished": len(games),
        "complete": len(games) == settings.games,
        "truncated_games": sum(1 for g in games.values() if g[0]["truncated"]),
        "mean_turns": statistics.fmean(g[0]["turns"] for g in games.values()) if games else None,
        "win_rule": "a first place shared by k tied winners counts 1/k of a win for each",
        "ci_method": (f"Wilson score interval, {CONFIDENCE:.0%}, on wins / seat-games (scipy "
                      "binomtest for whole win counts; the same formula at fractional counts)"),
        "agents": per_agent,
    }


def write_summary(summary: dict[str, Any], out: Path) -> None:
    """``summary.json`` and ``summary.csv`` (one line per agent, :data:`SUMMARY_COLUMNS`)."""
    write_text_atomic(out / SUMMARY_JSON, json.dumps(summary, indent=1) + "\n")
    rows = [{c: _format_value(a.get(c)) for c in SUMMARY_COLUMNS} for a in summary["agents"]]
    write_text_atomic(out / SUMMARY_CSV, csv_text(rows, SUMMARY_COLUMNS))


def plot_scores(games: dict[int, list[Row]], settings: TournamentSettings, path: Path) -> None:
    """PNG of each agent's final-score distribution (step histograms, integer bins)."""
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(settings.agents))
    scores = {n: [r["score"] for g in games.values() for r in g if r["agent"] == n] for n in names}
    every = [s for v in scores.values() for s in v] or [0]
    bins = np.arange(min(every), max(every) + 2) - 0.5
    fig = Figure(figsize=(8, 4.5))
    ax = fig.add_subplot()
    for n in names:
        if scores[n]:
            ax.hist(scores[n], bins=bins, histtype="step", density=True, linewidth=1.6,
                    label=f"{n} (mean {statistics.fmean(scores[n]):.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("share of seat-games")
    ax.set_title(f"P.I. tournament: {plural(len(games), 'game')}, {settings.players} players, "
                 f"{settings.edition} edition, seed {settings.seed}")
    if any(scores.values()):
        ax.legend()
    fig.tight_layout()
    write_figure_atomic(path, fig, dpi=100)


def summary_table(summary: dict[str, Any]) -> list[str]:
    """The printed table: one line per agent; ``seat-games`` is the number of seats it held over
    all games (the win rate's denominator), as the tables of docs/results.md call it."""
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}%"

    def num(x: float | None, digits: int = 2) -> str:
        return "-" if x is None else f"{x:.{digits}f}"

    head = ("agent", "seat-games", "win rate", "95% CI", "mean score", "rot. to solve", "solve rate",
            "wrong solves")
    body = []
    for a in summary["agents"]:
        if not a["seat_games"]:
            body.append((a["agent"], "0", "-", "-", "-", "-", "-", "-"))
            continue
        body.append((a["agent"], str(a["seat_games"]), pct(a["win_rate"]),
                     f"{pct(a['win_ci_low'])}..{pct(a['win_ci_high'])}", num(a["mean_score"]),
                     num(a["mean_rotations_to_solve"]), pct(a["solve_rate"]),
                     f"{a['wrong_solves']} ({num(a['wrong_solves_per_game'])}/game)"))
    return format_table(body, head, align="l" + "r" * (len(head) - 1))


# ---------------------------------------------------------------------------------------------
# running


def _chunks(todo: list[int], workers: int) -> list[list[int]]:
    """Tasks of up to 4 games (1 when playing in this process, so each game is saved at once)."""
    size = 1 if workers == 1 else max(1, min(4, math.ceil(len(todo) / (4 * workers))))
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def _local_results(settings: TournamentSettings, chunks: list[list[int]],
                   workers: int) -> Iterator[list[list[Row]]]:
    if workers == 1 or len(chunks) <= 1:
        for c in chunks:
            yield play_games(settings, c)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # forkserver: workers do not inherit the parent's threads (progress bar, Ray, numba)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx,
                               initializer=ignore_sigint)
    try:
        futures = [pool.submit(play_games, settings, c) for c in chunks]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        with signals_held():  # a second Ctrl-C must not break the shutdown (it would hang)
            pool.shutdown(wait=True, cancel_futures=True)


def _ray_results(settings: TournamentSettings, chunks: list[list[int]]) -> Iterator[list[list[Row]]]:
    """The chunks played as Ray tasks (Ray joined by :func:`run_tournament`), as they finish."""
    import ray

    pending: list[Any] = []
    try:
        task = ray.remote(play_games)
        pending = [task.remote(settings, c) for c in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:  # left over when interrupted
            ray.cancel(ref)


def run_tournament(settings: TournamentSettings, out: "str | Path" = "results", *,
                   workers: int | None = None, backend: str = "process", resume: bool = False,
                   force: bool = False, progress: bool = False, ray_address: str | None = None,
                   on_start: "Callable[[int], None] | None" = None) -> dict[str, Any]:
    """Play a tournament, writing its files to ``out`` as games finish (see the module docstring).

    Args:
        settings: what is played.
        out: output folder (created).
        workers: processes (or Ray CPUs of a new local Ray instance); default ``os.cpu_count()``.
            ``1`` plays in this process.
        backend: ``"process"`` (local processes) or ``"ray"`` (a Ray cluster: ``ray_address``,
            else ``RAY_ADDRESS``, else a new local instance).
        resume: continue the tournament in ``out``; its settings must equal ``settings``;
            ``workers=None`` then means the workers stored with it (:func:`stored_workers`).
        force: start over even though ``out`` holds a tournament.
        progress: show a tqdm progress bar on stderr.
        on_start: called with the number of games already finished once the checks passed and
            just before games are played.

    Returns:
        The summary (as written to ``summary.json``).

    Raises:
        PIError: bad workers or backend, ``ray_address`` without ``backend="ray"``, Ray missing or
            no Ray cluster at ``ray_address``
            (:func:`pi_env.core.cluster.connect_ray`, before ``out`` is touched), ``out`` already
            holds a tournament (without ``resume`` or ``force``), nothing to resume, or different
            settings on resume.
        TournamentInterrupted: Ctrl-C; finished games and a partial summary are written.
    """
    if workers is None:
        workers = (stored_workers(out) if resume else None) or os.cpu_count() or 1
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise PIError(f"workers must be a positive integer, got {workers!r}")
    if backend not in BACKENDS:
        raise PIError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if ray_address is not None and backend != "ray":  # as training's --ray-address without --ray-actors
        raise PIError(f"--ray-address needs --backend ray (the {backend} backend plays on this machine)")
    started_ray = False
    if backend == "ray":  # a cluster that is not there is refused before --out is touched
        from pi_env.core.cluster import connect_ray

        started_ray = connect_ray(ray_address, workers, RAY_MISSING)
    try:
        return _play_tournament(settings, Path(out), workers, backend, resume, force, progress, on_start)
    finally:
        if started_ray:
            import ray

            ray.shutdown()


def _play_tournament(settings: TournamentSettings, out: Path, workers: int, backend: str, resume: bool, force: bool,
                     progress: bool, on_start: "Callable[[int], None] | None") -> dict[str, Any]:
    """:func:`run_tournament` once its arguments are checked (and Ray joined, for ``backend="ray"``)."""
    meta, log_path = out / META_FILE, out / GAMES_FILE
    if resume:
        if not meta.exists():
            raise PIError(f"{out}: no tournament to resume ({META_FILE} is missing)")
        stored = load_settings(out)
        if stored != settings:
            diff = [f"{f.name} {getattr(stored, f.name)!r} != {getattr(settings, f.name)!r}"
                    for f in fields(TournamentSettings) if getattr(stored, f.name) != getattr(settings, f.name)]
            raise PIError(f"{out} holds a tournament with other settings ({'; '.join(diff)}); "
                          "use another --out or --force to start over")
        finished = read_games(log_path, settings)
        if stored_workers(out) != workers:  # the workers given again are the ones to resume with next
            write_text_atomic(meta, json.dumps({**settings.to_dict(), "workers": workers}, indent=1) + "\n")
    else:
        if any((out / f).exists() for f in (META_FILE, GAMES_FILE)) and not force:
            raise PIError(f"{out} already holds a tournament; use --resume to continue it "
                          "or --force to start over")
        present = [f for f in OUTPUT_FILES if (out / f).exists()]
        if present and not force:  # never replace a file the user put there
            raise PIError(f"{out} already has {', '.join(present)}; use another --out or --force "
                          "to replace them")
        out.mkdir(parents=True, exist_ok=True)
        for f in OUTPUT_FILES:
            (out / f).unlink(missing_ok=True)
        write_text_atomic(meta, json.dumps({**settings.to_dict(), "workers": workers}, indent=1) + "\n")
        finished = {}
    write_games(log_path, finished, settings)  # drops lines of games cut off by an interruption
    if on_start is not None:
        on_start(len(finished))
    todo = [i for i in range(settings.games) if i not in finished]
    chunks = _chunks(todo, workers)
    cols = columns(settings.num_rounds)
    if backend == "ray":
        results = _ray_results(settings, chunks)
    else:
        results = _local_results(settings, chunks, workers)

    from tqdm import tqdm

    bar = tqdm(total=settings.games, initial=len(finished), unit="game", file=sys.stderr,
               disable=not progress, dynamic_ncols=True, desc="tournament")
    try:
        with (terminate_as_interrupt(), open(log_path, "a", encoding="utf-8", newline="") as log,
              contextlib.closing(results)):
            for chunk in results:
                for rows in chunk:
                    log.write(format_rows(rows, cols))  # one write per game, then flush
                    log.flush()
                    finished[rows[0]["game"]] = rows
                    bar.update(1)
    except KeyboardInterrupt:
        bar.close()
        with signals_held():
            _finish(finished, settings, out, sort=False)
        raise TournamentInterrupted(len(finished), settings.games, out) from None
    bar.close()
    return _finish(finished, settings, out, sort=True)


def _finish(finished: dict[int, list[Row]], settings: TournamentSettings, out: Path,
            sort: bool) -> dict[str, Any]:
    if sort:
        write_games(out / GAMES_FILE, finished, settings)
    summary = summarize(finished, settings)
    write_summary(summary, out)
    plot_scores(finished, settings, out / PLOT_FILE)
    return summary


def load_settings(out: "str | Path") -> TournamentSettings:
    """The settings stored in ``out/tournament.json``."""
    path = Path(out) / META_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise PIError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return TournamentSettings.from_dict(doc)
    except PIError as exc:
        raise PIError(f"{path}: {exc}") from None


def stored_workers(out: "str | Path") -> int | None:
    """The ``workers`` stored in ``out/tournament.json`` (the last run's), or ``None`` if there is
    no such file or it has none (written before they were stored).

    Raises:
        PIError: the file is not valid JSON, or its ``workers`` is not a positive integer.
    """
    path = Path(out) / META_FILE
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise PIError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    workers = doc.get("workers") if isinstance(doc, dict) else None
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise PIError(f"{path}: workers must be a positive integer, got {workers!r}")
    return workers


# ---------------------------------------------------------------------------------------------
# command line (``pi-env tournament``, registered in pi_env/cli.py)

DEFAULT_GAMES = 100


def settings_from_args(args: Any) -> TournamentSettings:
    """Settings from ``pi-env tournament`` options. With ``--resume``, options not given are taken
    from the stored tournament (options given must match it, see :func:`run_tournament`)."""
    given = {
        "agents": tuple(a.strip() for a in args.agents.split(",")) if args.agents is not None else None,
        "games": args.games, "players": args.players, "seed": args.seed, "edition": args.edition,
        "variants": tuple(args.variant) if args.variant else None,
        "max_rotations": args.max_rotations,
    }
    if args.resume:
        if not (Path(args.out) / META_FILE).exists():
            raise PIError(f"{args.out}: no tournament to resume ({META_FILE} is missing)")
        stored = asdict(load_settings(args.out))
        base = {k: (v if given[k] is None else given[k]) for k, v in stored.items()}
        agents = given["agents"]
        if agents is not None and base["players"] == stored["players"] and len(agents) != len(stored["agents"]):
            P = base["players"]
            if P % len(agents):  # the list cannot fill the stored seats: say which tournament it is
                raise PIError(f"{args.out} holds a tournament of {P} players with agents "
                              f"{','.join(stored['agents'])}; --agents {','.join(agents)} cannot fill its {P} "
                              f"seats ({P} is not a multiple of {len(agents)}); give its agents, or use "
                              f"another --out or --force to start over")
            filled = fill_seats(tuple(agent_key(a) for a in agents), P)
            if filled != stored["agents"]:  # a short list must repeat into the stored seats
                raise PIError(f"{args.out} holds a tournament with agents {','.join(stored['agents'])}; "
                              f"--agents {','.join(agents)} fills its {base['players']} seats as "
                              f"{','.join(filled)}; use another --out or --force to start over")
    else:
        if given["agents"] is None:
            raise PIError("--agents is required: one agent per seat (or a list that repeats to fill "
                          "the seats), e.g. --agents deducer,random,random")
        base = {k: v for k, v in given.items() if v is not None}
        base.setdefault("games", DEFAULT_GAMES)
        from pi_env.agents import check_agent_name

        for n in given["agents"]:  # an unknown name first, as TournamentSettings would say it,
            if n:                  # before the seats are counted (an empty name: agent_seats)
                check_agent_name(agent_key(n))
        if given["players"] is None:  # the list's length (agent_seats says when that cannot be)
            base["players"] = len(agent_seats(given["agents"], None)[0])
    return TournamentSettings(**base)


def command(args: Any) -> int:
    """``pi-env tournament``: run, print the table, write the files; 130 when interrupted."""
    if not str(args.out).strip():
        raise PIError("--out needs a folder name (the tournament's files go there), got ''")
    check_output_dir(args.out)
    settings = settings_from_args(args)
    out = Path(args.out)
    workers = args.workers if args.workers is not None else (
        (stored_workers(out) if args.resume else None) or os.cpu_count() or 1)

    note = agent_seats(args.agents.split(","), settings.players)[1] if args.agents is not None else ""
    repeated = f"{note}; " if note else ""

    def start(already: int) -> None:
        print(f"P.I. tournament: {plural(settings.games, 'game')}, {settings.players} players, "
              f"{settings.edition} edition{''.join(f', {v}' for v in settings.variants)}, seed "
              f"{settings.seed}, agents {','.join(settings.agents)} ({repeated}seats rotate); {workers} "
              f"worker{'s' * (workers != 1)} ({args.backend})"
              + (f"; resuming after {already} finished game{'s' * (already != 1)}" if args.resume else ""),
              flush=True)

    try:
        summary = run_tournament(settings, out, workers=workers, backend=args.backend,
                                 resume=args.resume, force=args.force,
                                 progress=not args.quiet and sys.stderr.isatty(),
                                 ray_address=args.ray_address, on_start=start)
    except TournamentInterrupted as exc:
        print(f"pi-env: interrupted after {exc.finished} of {plural(exc.total, 'game')}; the finished games "
              f"are in {out / GAMES_FILE}; continue with: pi-env tournament --out {out} --resume",
              file=sys.stderr)
        return 130
    for line in summary_table(summary):
        print(line)
    print("win rate: wins / seat-games, a first place shared by k players counts 1/k; "
          "95% CI: Wilson score interval")
    if summary["truncated_games"]:
        print(f"{plural(summary['truncated_games'], 'game')} had a round ended by the "
              f"{settings.max_rotations}-rotation safeguard")
    print(f"written: {', '.join(str(out / f) for f in (META_FILE, GAMES_FILE, SUMMARY_JSON, SUMMARY_CSV, PLOT_FILE))}")
    return 0


__all__ = ["TournamentSettings", "TournamentInterrupted", "agent_key", "check_agent_list", "store_integers", "fill_seats", "agent_seats", "game_seed", "seat_agents", "columns",
           "tournament_game", "play_games", "read_games", "write_games", "win_interval", "summarize",
           "summary_table", "write_summary", "plot_scores", "run_tournament", "load_settings", "stored_workers",
           "settings_from_args", "command", "BACKENDS", "RAY_MISSING"]
