"""A ladder: every agent rated on one scale per player count, from seat-rotated tournaments.

For each player count ``P`` the ladder plays every *table* of ``P`` distinct agents of the list
(:func:`ladder_tables`: the combinations in listed order), each table a tournament of ``games``
games played exactly as ``pi-env tournament`` plays them (:mod:`pi_env.apps.tournament`: seats
rotate through every cyclic order, game ``i``'s engine seed from ``(table seed, i)``). A table's
seed is :func:`table_seed` ``(seed, P, its agents)`` (not its place in the list: adding an agent
to a ladder leaves the other tables' games as they were), so a table is replayed by
``pi-env tournament --agents A,B,.. --players P --games G --seed TABLE_SEED`` (its seed is in
``tables.csv``).

**Rating.** Each game's final ranking (ranks of :func:`pi_env.engine.outcome`, ties shared) updates
the players' ratings with the Plackett–Luce model of the Weng–Lin Bayesian rating system, as the
``openskill`` library implements it (``openskill.models.PlackettLuce(tau=0)``: ``mu`` 25, ``sigma``
25/3, ``beta`` 25/6 as the library's defaults), every agent starting from the same prior. ``tau`` (the
variance added before each game for a skill that drifts; the library's default 25/300 is for people)
is 0: an agent is a fixed program, so its rating's ``sigma`` should shrink as it plays more games.
Games are rated in a fixed order: game 0 of every table (tables in order), then game 1 of every
table, and so on (:func:`rating_order`), so no table is rated all at once at the end. The same
settings give the same games and so the same ratings, whatever the worker count.

**Scale.** A rating is ``mu − mu(anchor)``: the anchor agent (``random`` when it is in the list,
else the first agent; ``--anchor``) is 0. ``sigma`` is the library's own uncertainty of ``mu``
after the last game. **95% interval**: a bootstrap over games: ``bootstrap`` times, each table's
games are drawn again with replacement (as many as it played), rated in the same order, and the
interval is the 2.5 and 97.5 percentiles of the anchored rating (NumPy's generator seeded with
``(seed, P)``).

**Caveat.** An agent that (almost) never beats another has no finite rating gap to it in a
Plackett–Luce model: the online rating keeps moving apart with more games. ``random`` loses nearly
every game, so the gaps of the others to it (and so their ratings anchored at it) grow with the
number of games; the gaps between the agents that do beat each other are the ones to compare.

Files in the output folder (``--out``; a folder that holds any of them is refused, ``--force``
replaces them):

``ladder.json``
    the settings (``format: pi-ladder/1``), the tables and, per player count, the rating table.
``games.csv``
    one line per seat per game: ``players``, ``table``, ``game``, ``seed``, ``seat``, ``agent``,
    ``score``, ``rank``, ``win_share``.
``tables.csv``
    one line per table: ``players``, ``table``, ``seed``, ``agents``.
``ratings_{P}p.csv``, ``ladder_{P}p.png``
    the rating table and its plot for ``P`` players.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pi_env.apps.interrupts import ignore_sigint, signals_held, terminate_as_interrupt
from pi_env.core.constants import MAX_PLAYERS, MIN_PLAYERS
from pi_env.core.errors import PIError
from pi_env.core.files import check_output_dir, write_figure_atomic, write_text_atomic
from pi_env.core.text import csv_text, format_table, plural

FORMAT = "pi-ladder/1"
DEFAULT_GAMES = 24
DEFAULT_BOOTSTRAP = 200
CONFIDENCE = 0.95
META_FILE = "ladder.json"
GAMES_FILE = "games.csv"
TABLES_FILE = "tables.csv"
GAME_COLUMNS = ["players", "table", "game", "seed", "seat", "agent", "score", "rank", "win_share"]
RATING_COLUMNS = ["rank", "agent", "rating", "sigma", "ci_low", "ci_high", "mu", "seat_games",
                  "win_rate", "mean_rank", "mean_score"]
TAU = 0.0
RATING_METHOD = ("openskill PlackettLuce (Weng-Lin), mu 25, sigma 25/3, beta 25/6 (the library's defaults), "
                 "tau 0 (fixed agents: no skill drift between games); games rated in a fixed order (game 0 of every table, then game 1, ...); "
                 "rating = mu - mu(anchor)")

Row = dict[str, Any]


def ratings_file(players: int) -> str:
    """``ratings_{players}p.csv``."""
    return f"ratings_{players}p.csv"


def plot_file(players: int) -> str:
    """``ladder_{players}p.png``."""
    return f"ladder_{players}p.png"


def output_files(players: Sequence[int]) -> list[str]:
    """Every file a ladder of these player counts writes."""
    return [META_FILE, GAMES_FILE, TABLES_FILE] + [f(p) for p in players for f in (ratings_file, plot_file)]


def _fits(name: str, players: int, edition: str) -> str | None:
    """``None`` when agent ``name`` can play a game of ``players`` seats, else why not (a learned
    model trained for another player count)."""
    from pi_env.agents import make_agent
    from pi_env.agents.base import reset_for_game
    from pi_env.engine import GameConfig

    try:
        reset_for_game(make_agent(name, edition=edition), GameConfig(num_players=players, edition=edition), seed=0)
    except PIError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder plays and how it rates.

    Args:
        agents: distinct agent names (as ``pi-env play`` takes them).
        players: the player counts, each 2..5; one ladder each.
        games: games per table (a tournament of each table of distinct agents).
        seed: the ladder's seed (tables' seeds: :func:`table_seed`).
        edition: rules edition (``"second"`` or ``"first"``).
        anchor: the agent rated 0 (default ``random`` when listed, else the first agent).
        bootstrap: bootstrap resamples for the 95% interval (0: none).

    An agent that cannot play a player count (a learned model trained for another one) is left out
    of that count's ladder; :attr:`left_out` says why.

    Raises:
        PIError: an unknown or repeated agent name; a player count outside 2..5 or repeated; fewer
            agents that can play a count than its seats; ``games < 1``; a negative seed or
            bootstrap; an anchor not in the list or left out of a count.
    """

    agents: tuple[str, ...]
    players: tuple[int, ...]
    games: int = DEFAULT_GAMES
    seed: int = 0
    edition: str = "second"
    anchor: str | None = None
    bootstrap: int = DEFAULT_BOOTSTRAP
    left_out: dict[int, dict[str, str]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        from pi_env.apps.tournament import agent_key, check_agent_list, store_integers

        names = check_agent_list(self.agents, once="a ladder rates each agent once")
        if len(names) < 2:
            raise PIError(f"a ladder needs at least 2 agents, got {len(names)}: {','.join(names)}")
        object.__setattr__(self, "agents", names)
        store_integers(self, ("games", "seed", "bootstrap"))
        if self.games < 1:
            raise PIError(f"games per table must be at least 1, got {self.games}")
        if self.seed < 0:
            raise PIError(f"seed must be a non-negative integer, got {self.seed}")
        if self.bootstrap < 0:
            raise PIError(f"bootstrap must be a non-negative integer, got {self.bootstrap}")
        if isinstance(self.players, (int, np.integer)):
            object.__setattr__(self, "players", (self.players,))
        counts = tuple(self.players)
        if not counts:
            raise PIError("give at least one player count (2..5)")
        for p in counts:
            if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not MIN_PLAYERS <= p <= MAX_PLAYERS:
                raise PIError(f"a player count must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {p!r}")
        if len(set(counts)) != len(counts):
            raise PIError(f"a player count is listed twice: {','.join(map(str, counts))}")
        object.__setattr__(self, "players", tuple(int(p) for p in counts))
        if self.edition not in ("second", "first"):
            raise PIError(f"edition must be 'second' or 'first', got {self.edition!r}")
        anchor = self.anchor if self.anchor is not None else ("random" if "random" in names else names[0])
        anchor = agent_key(anchor)
        if anchor not in names:
            raise PIError(f"the anchor {anchor!r} is not one of the agents ({','.join(names)})")
        object.__setattr__(self, "anchor", anchor)
        left: dict[int, dict[str, str]] = {}
        for p in self.players:
            left[p] = {n: why for n in names if (why := _fits(n, p, self.edition)) is not None}
            playing = [n for n in names if n not in left[p]]
            if anchor in left[p]:
                raise PIError(f"the anchor {anchor!r} cannot play {p} players: {left[p][anchor]}")
            if len(playing) < p:
                raise PIError(f"{p} players need at least {p} agents that can play them, got "
                              f"{len(playing)}: {','.join(playing)}"
                              + "".join(f"; {n} left out: {why}" for n, why in left[p].items()))
        object.__setattr__(self, "left_out", left)

    def playing(self, players: int) -> tuple[str, ...]:
        """The agents of the ``players``-player ladder (the list less those left out)."""
        return tuple(n for n in self.agents if n not in self.left_out.get(players, {}))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "agents": list(self.agents), "players": list(self.players),
                "games": self.games, "seed": self.seed, "edition": self.edition, "anchor": self.anchor,
                "bootstrap": self.bootstrap,
                "left_out": {str(p): v for p, v in self.left_out.items() if v}}


def table_seed(seed: int, players: int, table: Sequence[str]) -> int:
    """The tournament seed of the table ``table`` (its agents in seat order) of the
    ``players``-player ladder of seed ``seed``: 32 bits drawn from
    ``numpy.random.SeedSequence([seed, players, h])``, ``h`` the first 8 bytes (big-endian) of the
    SHA-256 of the agent names joined by commas. It depends on the table's agents, not on the rest of
    the list, so a ladder with one more agent plays the same games at every table it shares with the
    ladder before it (same seed) and adds the new agent's tables.
    """
    h = int.from_bytes(hashlib.sha256(",".join(table).encode()).digest()[:8], "big")
    return int(np.random.SeedSequence([int(seed), int(players), h]).generate_state(1, dtype=np.uint32)[0])


def ladder_tables(settings: LadderSettings, players: int) -> list[tuple[str, ...]]:
    """The tables of the ``players``-player ladder: every combination of ``players`` distinct
    agents of :meth:`LadderSettings.playing`, in ``itertools.combinations`` order."""
    return list(itertools.combinations(settings.playing(players), players))


def rating_order(games: int, tables: int) -> list[tuple[int, int]]:
    """``(table, game)`` pairs in the order games are rated: game 0 of every table, then game 1...

    ``rating_order(2, 3) == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]``.
    """
    return [(t, g) for g in range(games) for t in range(tables)]


def rate_games(results: Sequence[Sequence[tuple[str, int]]], agents: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Ratings after rating ``results`` one after another with openskill's Plackett–Luce model
    (``PlackettLuce(tau=TAU)``, :data:`TAU` = 0: see the module docstring).

    Args:
        results: one entry per game, in rating order: ``(agent, rank)`` per seat (rank 1 = first,
            equal ranks for a tie).
        agents: every agent to rate (all start from the model's prior).

    Returns:
        ``{agent: (mu, sigma)}``.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=TAU)
    rating = {a: model.rating(name=a) for a in agents}
    for game in results:
        teams = model.rate([[rating[a]] for a, _ in game], ranks=[float(r) for _, r in game])
        for (a, _), team in zip(game, teams):
            rating[a] = team[0]
    return {a: (float(r.mu), float(r.sigma)) for a, r in rating.items()}


def _game_ranks(rows: Sequence[Row]) -> list[tuple[str, int]]:
    return [(r["agent"], int(r["rank"])) for r in sorted(rows, key=lambda r: r["seat"])]


def rate_ladder(games: dict[tuple[int, int], list[Row]], agents: Sequence[str], anchor: str,
                tables: int, games_per_table: int, *, bootstrap: int = 0, seed: int = 0,
                players: int = 0) -> list[Row]:
    """The rating table of one player count from its games.

    Args:
        games: ``{(table, game): rows}`` (rows as in ``games.csv``), every game played.
        agents: the agents of this ladder.
        anchor: the agent whose ``mu`` is subtracted (rated 0).
        tables: number of tables; games_per_table: games of each.
        bootstrap: resamples for the 95% interval (0: the interval is left empty).
        seed, players: seed the bootstrap's generator with ``(seed, players)``.

    Returns:
        One row per agent (:data:`RATING_COLUMNS`), best rating first (``rank`` 1).
    """
    order = rating_order(games_per_table, tables)
    results = [_game_ranks(games[k]) for k in order]
    final = rate_games(results, agents)
    base = final[anchor][0]
    low = high = None
    if bootstrap:
        rng = np.random.default_rng([int(seed), int(players)])
        draws = np.empty((bootstrap, len(agents)))
        for b in range(bootstrap):
            pick = rng.integers(0, games_per_table, size=(tables, games_per_table))
            resampled = [_game_ranks(games[(t, int(pick[t, g]))]) for t, g in order]
            r = rate_games(resampled, agents)
            draws[b] = [r[a][0] - r[anchor][0] for a in agents]
        q = np.percentile(draws, [100 * (1 - CONFIDENCE) / 2, 100 * (1 + CONFIDENCE) / 2], axis=0)
        low, high = q[0], q[1]
    rows = [r for g in games.values() for r in g]
    out = []
    for i, a in enumerate(agents):
        mine = [r for r in rows if r["agent"] == a]
        out.append({"agent": a, "rating": final[a][0] - base, "sigma": final[a][1],
                    "ci_low": None if low is None else float(low[i]),
                    "ci_high": None if high is None else float(high[i]), "mu": final[a][0],
                    "seat_games": len(mine),
                    "win_rate": math.fsum(r["win_share"] for r in mine) / len(mine) if mine else None,
                    "mean_rank": statistics.fmean(r["rank"] for r in mine) if mine else None,
                    "mean_score": statistics.fmean(r["score"] for r in mine) if mine else None})
    out.sort(key=lambda r: -r["rating"])
    for k, r in enumerate(out, start=1):
        r["rank"] = k
    return [{c: r[c] for c in RATING_COLUMNS} for r in out]


# ---------------------------------------------------------------------------------------------
# playing


def _play(tasks: Sequence[tuple[Any, int, int, int]]) -> list[tuple[int, int, int, list[Row]]]:
    """Play ``(tournament settings, players, table, game)`` tasks; returns their rows."""
    from pi_env.apps.tournament import tournament_game

    return [(p, t, g, tournament_game(s, g)) for s, p, t, g in tasks]


def _results(tasks: list[tuple[Any, int, int, int]], workers: int) -> Iterator[list[tuple[int, int, int, list[Row]]]]:
    size = 1 if workers == 1 else max(1, min(4, math.ceil(len(tasks) / (8 * workers))))
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    if workers == 1 or len(chunks) <= 1:
        for c in chunks:
            yield _play(c)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=multiprocessing.get_context(method),
                               initializer=ignore_sigint)
    try:
        futures = [pool.submit(_play, c) for c in chunks]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        with signals_held():
            pool.shutdown(wait=True, cancel_futures=True)


def run_ladder(settings: LadderSettings, out: "str | Path", *, workers: int | None = None,
               force: bool = False, progress: bool = False,
               on_start: "Callable[[int], None] | None" = None) -> dict[str, Any]:
    """Play every table of every player count, rate, and write the files (module docstring).

    Args:
        settings: what is played.
        out: output folder (created).
        workers: processes (default ``os.cpu_count()``; 1 plays in this process).
        force: replace the files of a ladder already in ``out``.
        progress: a tqdm progress bar on stderr.
        on_start: called with the number of games to play once the checks passed.

    Returns:
        The document written to ``ladder.json``.

    Raises:
        PIError: ``out`` is a file (or inside one), or holds ladder files and ``force`` is not
            given; bad ``workers``.
    """
    from pi_env.apps.tournament import TournamentSettings

    if workers is None:
        workers = os.cpu_count() or 1
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise PIError(f"workers must be a positive integer, got {workers!r}")
    out = check_output_dir(out)
    files = output_files(settings.players)
    present = [f for f in files if (out / f).exists()]
    if present and not force:
        raise PIError(f"{out} already has {', '.join(present)}; use another --out or --force to replace them")
    tables = {p: ladder_tables(settings, p) for p in settings.players}
    tournaments = {(p, k): TournamentSettings(agents=t, games=settings.games, players=p,
                                              seed=table_seed(settings.seed, p, t), edition=settings.edition)
                   for p in settings.players for k, t in enumerate(tables[p])}
    tasks = [(tournaments[(p, k)], p, k, g) for p in settings.players
             for k, g in ((k, g) for g in range(settings.games) for k in range(len(tables[p])))]
    out.mkdir(parents=True, exist_ok=True)
    for f in present:
        (out / f).unlink()
    if on_start is not None:
        on_start(len(tasks))
    from tqdm import tqdm

    played: dict[int, dict[tuple[int, int], list[Row]]] = {p: {} for p in settings.players}
    bar = tqdm(total=len(tasks), unit="game", file=sys.stderr, disable=not progress,
               dynamic_ncols=True, desc="ladder")
    results = _results(tasks, workers)
    try:
        with terminate_as_interrupt(), contextlib.closing(results):
            for chunk in results:
                for p, t, g, rows in chunk:
                    played[p][(t, g)] = [{"players": p, "table": t, **r} for r in rows]
                    bar.update(1)
    finally:
        bar.close()
    doc: dict[str, Any] = {**settings.to_dict(), "rating_method": RATING_METHOD,
                           "interval": (f"{CONFIDENCE:.0%} bootstrap over games ({settings.bootstrap} resamples "
                                        "of each table's games, percentiles)") if settings.bootstrap else None,
                           "ladders": {}}
    game_rows = []
    table_rows = []
    for p in settings.players:
        for k, t in enumerate(tables[p]):
            table_rows.append({"players": p, "table": k, "seed": tournaments[(p, k)].seed, "agents": ",".join(t)})
        for key in sorted(played[p]):
            game_rows.extend(played[p][key])
        ratings = rate_ladder(played[p], settings.playing(p), settings.anchor, len(tables[p]), settings.games,
                              bootstrap=settings.bootstrap, seed=settings.seed, players=p)
        doc["ladders"][str(p)] = {"tables": len(tables[p]), "games": len(played[p]), "ratings": ratings}
        write_text_atomic(out / ratings_file(p), csv_text([_csv_row(r) for r in ratings], RATING_COLUMNS))
        plot_ladder(ratings, p, settings, out / plot_file(p))
    write_text_atomic(out / GAMES_FILE, csv_text(game_rows, GAME_COLUMNS))
    write_text_atomic(out / TABLES_FILE, csv_text(table_rows, ["players", "table", "seed", "agents"]))
    write_text_atomic(out / META_FILE, json.dumps(doc, indent=1) + "\n")
    return doc


def _csv_row(r: Row) -> Row:
    return {k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()}


def plot_ladder(ratings: Sequence[Row], players: int, settings: LadderSettings, path: Path) -> None:
    """PNG of one player count's ratings: a point per agent, best at the top, with its 95% bootstrap
    interval (thick) and ``± sigma`` (thin)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 0.45 * len(ratings) + 1.6))
    ax = fig.add_subplot()
    y = np.arange(len(ratings))[::-1]
    x = np.array([r["rating"] for r in ratings])
    sig = np.array([r["sigma"] for r in ratings])
    ax.errorbar(x, y, xerr=sig, fmt="none", ecolor="0.6", elinewidth=1, capsize=3, label="± sigma")
    if ratings and ratings[0]["ci_low"] is not None:
        lo = np.array([r["ci_low"] for r in ratings])
        hi = np.array([r["ci_high"] for r in ratings])
        ax.errorbar(x, y, xerr=[x - lo, hi - x], fmt="none", ecolor="C0", elinewidth=3,
                    label=f"{CONFIDENCE:.0%} bootstrap interval")
    ax.plot(x, y, "o", color="C3")
    ax.set_yticks(y, [r["agent"] for r in ratings])
    ax.axvline(0, color="0.8", linewidth=1, zorder=0)
    ax.set_xlabel(f"rating (openskill Plackett-Luce mu, {settings.anchor} = 0)")
    ax.set_title(f"P.I. ladder, {players} players: {settings.games} games per table, seed {settings.seed}")
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    write_figure_atomic(path, fig, dpi=100)


def rating_table(ratings: Sequence[Row]) -> list[str]:
    """The printed rating table of one player count."""
    def num(x: float | None, d: int = 2) -> str:
        return "-" if x is None else f"{x:.{d}f}"

    head = ("rank", "agent", "rating", "± sigma", "95% interval", "seat-games", "win rate", "mean rank")
    body = [(str(r["rank"]), r["agent"], num(r["rating"]), num(r["sigma"]),
             "-" if r["ci_low"] is None else f"{num(r['ci_low'])}..{num(r['ci_high'])}",
             str(r["seat_games"]), "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}%",
             num(r["mean_rank"])) for r in ratings]
    return format_table(body, head, align="rl" + "r" * (len(head) - 2))


# ---------------------------------------------------------------------------------------------
# command line (``pi-env ladder``, registered in pi_env/apps/cli.py)


def parse_counts(text: str) -> tuple[int, ...]:
    """``"2,4"`` -> ``(2, 4)``.

    Raises:
        PIError: a part is not an integer.
    """
    try:
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        raise PIError(f"--players takes comma-separated player counts (2..5), e.g. 2,4; got {text!r}") from None


def command(args: Any) -> int:
    """``pi-env ladder``: play, print one rating table per player count, write the files."""
    if not str(args.out).strip():
        raise PIError("--out needs a folder name (the ladder's files go there), got ''")
    check_output_dir(args.out)
    settings = LadderSettings(agents=tuple(a.strip() for a in args.agents.split(",")),
                              players=parse_counts(args.players), games=args.games, seed=args.seed,
                              edition=args.edition, anchor=args.anchor, bootstrap=args.bootstrap)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    out = Path(args.out)

    def start(total: int) -> None:
        parts = [f"{p} players: {plural(len(ladder_tables(settings, p)), 'table')} of "
                 f"{','.join(settings.playing(p))}" for p in settings.players]
        print(f"P.I. ladder: {'; '.join(parts)}; {settings.games} games per table, {plural(total, 'game')} "
              f"in all, seed {settings.seed}, {settings.edition} edition; {workers} worker{'s' * (workers != 1)}",
              flush=True)
        for p, left in settings.left_out.items():
            for n, why in left.items():
                print(f"left out of the {p}-player ladder: {n} ({why})")

    doc = run_ladder(settings, out, workers=workers, force=args.force,
                     progress=not args.quiet and sys.stderr.isatty(), on_start=start)
    for p in settings.players:
        lad = doc["ladders"][str(p)]
        print(f"\n{p} players ({plural(lad['tables'], 'table')}, {plural(lad['games'], 'game')}):")
        for line in rating_table(lad["ratings"]):
            print(line)
    print(f"\nrating: openskill Plackett-Luce mu minus {settings.anchor}'s ({settings.anchor} = 0); sigma: the "
          "model's own; 95% interval: " + (f"bootstrap over games ({settings.bootstrap} resamples)"
                                           if settings.bootstrap else "none (--bootstrap 0)"))
    print(f"written: {', '.join(str(out / f) for f in output_files(settings.players))}")
    return 0


__all__ = ["LadderSettings", "table_seed", "ladder_tables", "rating_order", "rate_games", "rate_ladder",
           "run_ladder", "plot_ladder", "rating_table", "parse_counts", "command", "output_files",
           "ratings_file", "plot_file", "FORMAT", "RATING_COLUMNS", "GAME_COLUMNS"]
