"""The ``pi-env`` command line: ``play`` and ``replay``, ``solve``,
``solo generate`` and ``solo play``, ``render``, ``serve`` and human seats
in ``play``.

Every user mistake (unknown agent, bad player count or seed, invalid rules such as a duel for 3
players or investigator counts for the wrong number of players, bad record, existing output file)
ends with one line ``pi-env: error: ...`` and exit status 2, never a traceback. A refused option says
which, as argparse does (``pi-env play: error: argument --players: must be 2..5, got 6``): the rules
options are checked by :class:`~pi_env.engine.GameConfig` alone, whose
:class:`~pi_env.core.errors.ConfigError` names the argument at fault.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from typing import Sequence

import numpy as np

from pi_env import __version__
from pi_env.core.errors import PIError

DEFAULT_AGENTS = "deducer,deducer,random,random"


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer 0..2**63-1, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"seed must be an integer 0..2**63-1, got {text!r}")
    return value


def _investigators(text: str) -> tuple[int, ...]:
    """``5,5,3,3`` -> (5, 5, 3, 3): one count per player (docs/rules.md §6 beginner friendly); the
    counts' range is :class:`~pi_env.engine.GameConfig`'s to check."""
    try:
        return tuple(int(part.strip()) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas, one per player "
                                         f"(e.g. 5,5,3,3), got {text!r}") from None


OPTION_OF_CONFIG = {"num_players": "--players", "edition": "--edition", "variants": "--variant",
                    "investigators": "--investigators", "max_rotations": "--max-rotations",
                    "max_rounds": "--max-rounds", "mode": "--mode"}
"""The option that sets each :class:`~pi_env.engine.GameConfig` argument: its errors
(:class:`~pi_env.core.errors.ConfigError`) are reported as that option's (``argument --players: must
be 2..5, got 6``)."""


class OptionError(PIError):
    """A command-line option's value is refused (by :class:`~pi_env.engine.GameConfig` or by the
    command); reported as argparse reports a bad argument."""

    def __init__(self, option: str, message: str):
        super().__init__(f"argument {option}: {message}")


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


AGENT_NAMES_SLOT = "{agent names}"
"""Stands in a help text for the built-in agents' names, filled in when the help is shown (listing
them needs ``pi_env.agents``, too heavy to import for every command)."""


def _agent_names() -> str:
    from pi_env.agents import AGENTS
    from pi_env.agents.learned import ZOO_PLAYER_AGENTS

    return ", ".join(AGENTS) + f"; with the rl extra {', '.join(ZOO_PLAYER_AGENTS)}, learned:MODEL.pt or sb3:MODEL.zip"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``pi-env play: error: ...``) instead of usage dumps."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def format_help(self) -> str:
        for action in self._actions:
            if action.help and AGENT_NAMES_SLOT in action.help:
                action.help = action.help.replace(AGENT_NAMES_SLOT, _agent_names())
        return super().format_help()


def _command(subparsers, name: str, help: str) -> _Parser:
    """A subcommand whose ``--help`` opens with its one-line description (the same words as in
    ``pi-env --help``)."""
    return subparsers.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")


def _subparser_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser that read ``args``: its errors name the command (``pi-env play``)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or getattr(args, subs[0].dest, None) is None:
            return parser
        parser = subs[0].choices[getattr(args, subs[0].dest)]


EDITION_HELP = ("rules edition: second (default) or first (the first edition and Board Game Arena "
                "scoring; docs/rules.md §5)")


POSITION_HELP = ("the position after the round's event E, its events 0..E played (0-based; -1: the round's "
                 "start; default: after its last event); --after-event and --event are one option")
"""Help of ``--after-event`` (alias ``--event``) in ``pi-env solve`` and ``pi-env render``: one
position, named alike in both commands."""


def _add_ladder(sub) -> None:
    """``pi-env ladder``'s options (:mod:`pi_env.apps.ladder`)."""
    lad = _command(sub, "ladder", help="rate agents on one scale per player count (openskill "
                                        "Plackett-Luce) from seat-rotated tournaments of every table")
    lad.add_argument("--agents", required=True,
                     help="comma-separated distinct agents to rate, e.g. random,heuristic,greedy; every "
                          "combination of --players of them plays a table. Agents: " + AGENT_NAMES_SLOT)
    lad.add_argument("--players", default="2,4",
                     help="comma-separated player counts, one ladder each (default 2,4); an agent that "
                          "cannot play a count (a learned model of another) is left out of it")
    lad.add_argument("--games", type=_positive, default=24,
                     help="games per table (default 24: every seat and cyclic order equally often "
                          "for 2, 3 and 4 players)")
    lad.add_argument("--seed", type=_seed, default=0,
                     help="ladder seed (default 0); each table's tournament seed is drawn from (seed, "
                          "players, the table's agents) and written to tables.csv")
    lad.add_argument("--edition", choices=("second", "first"), default="second", help=EDITION_HELP)
    lad.add_argument("--anchor", default=None,
                     help="the agent rated 0 (default: random if listed, else the first agent)")
    lad.add_argument("--bootstrap", type=_integer, default=200,
                     help="bootstrap resamples of the games for the 95%% interval (default 200; 0: none)")
    lad.add_argument("--workers", type=_positive, default=None,
                     help="worker processes (default: all CPUs; 1 = in this process)")
    lad.add_argument("--out", default="ladder",
                     help="folder for ladder.json, games.csv, tables.csv, ratings_Np.csv, ladder_Np.png "
                          "(default ladder/); refused if it holds them, unless --force")
    lad.add_argument("--force", action="store_true", help="replace the ladder files in --out")
    lad.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pi-env", description="P.I.: rules engine, agents and solver.")
    parser.add_argument("--version", action="version", version=f"pi-env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = _command(sub, "play", help="play a whole game with built-in agents and print it")
    play.add_argument("--players", type=_integer, default=None,
                      help="2..5 (default: the number of --agents as in tournament, else 4; a duel is for "
                           "exactly 2)")
    play.add_argument("--mode", choices=("standard", "duel"), default="standard",
                      help="standard game or duel (docs/rules.md §7; 2 players)")
    play.add_argument("--seed", type=_seed, default=None, help="game seed (default: random, printed)")
    play.add_argument("--agents", default=None,
                      help=f"comma-separated agent per seat (default for 4: {DEFAULT_AGENTS}), or a "
                           f"shorter list repeated to fill the seats (--agents x,greedy --players 4 seats "
                           f"x,greedy,x,greedy); 'human' seats a person at this terminal. Agents: {AGENT_NAMES_SLOT}")
    play.add_argument("--edition", choices=("second", "first"), default="second", help=EDITION_HELP)
    play.add_argument("--variant", action="append", choices=("fast", "nick-of-time"), default=[],
                      help="rules variant (repeatable): fast = 2 rounds, nick-of-time (docs/rules.md §6)")
    play.add_argument("--investigators", type=_investigators, default=None, metavar="N,N,...",
                      help="starting investigator tiles per player, e.g. 5,5,3,3 "
                           "(default 5 each; duel 2 each)")
    play.add_argument("--max-rotations", type=_integer, default=60,
                      help="safeguard: rotations after which a round ends (default 60)")
    play.add_argument("--max-rounds", type=_integer, default=None,
                      help="duel safeguard: a duel still tied after this many rounds is drawn (default 9)")
    play.add_argument("--record", metavar="FILE", help="write the game record (pi-record/1) here")
    play.add_argument("--force", action="store_true", help="overwrite an existing --record file")
    play.add_argument("--quiet", action="store_true", help="print only the results, not every turn")
    play.add_argument("--hot-seat", action="store_true",
                      help="several 'human' seats share this terminal: the screen is cleared between "
                           "turns and each person presses Enter when alone at it (required with two or "
                           "more 'human' seats)")

    replay = _command(sub, "replay", help="check a game record and print its turns and standings")
    replay.add_argument("record", help="a pi-record/1 JSON file")
    replay.add_argument("--json", action="store_true", help="print the report as JSON")
    replay.add_argument("--quiet", action="store_true", help="print only the results")

    tour = _command(sub, "tournament", help="play many seat-rotated games between agents and "
                                             "report win rates, scores and solve statistics")
    tour.add_argument("--agents", default=None,
                      help="comma-separated agent per seat, e.g. deducer,random,random, or a shorter "
                           "list repeated to fill the seats (--agents x,greedy --players 4 seats "
                           "x,greedy,x,greedy); seats rotate every game; required unless --resume. "
                           "Agents: " + AGENT_NAMES_SLOT)
    tour.add_argument("--games", type=_positive, default=None, help="games to play (default 100)")
    tour.add_argument("--players", type=_integer, default=None,
                      help="2..5 (default: the number of agents; a multiple of it)")
    tour.add_argument("--seed", type=_seed, default=None,
                      help="tournament seed (default 0); game i is seeded from (seed, i)")
    tour.add_argument("--edition", choices=("second", "first"), default=None,
                      help=EDITION_HELP + "; a stored run keeps its own")
    tour.add_argument("--variant", action="append", choices=("fast", "nick-of-time"), default=None,
                      help="rules variant (repeatable)")
    tour.add_argument("--max-rotations", type=_integer, default=None,
                      help="safeguard: rotations after which a round ends (default 60)")
    tour.add_argument("--workers", type=_positive, default=None,
                      help="worker processes / Ray CPUs (default: all CPUs, with --resume the last run's; "
                           "1 = in this process)")
    tour.add_argument("--backend", choices=("process", "ray"), default="process",
                      help="local processes (default) or a Ray cluster (pip install '.[ray]')")
    tour.add_argument("--ray-address", default=None,
                      help="Ray cluster to join (default: RAY_ADDRESS, else a new local instance)")
    tour.add_argument("--out", default="results",
                      help="folder for games.csv, summary.json/.csv, scores.png (default results/)")
    tour.add_argument("--resume", action="store_true",
                      help="continue the interrupted tournament in --out (same settings)")
    tour.add_argument("--force", action="store_true", help="start over, replacing the tournament in --out")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_ladder(sub)
    solve = _command(sub, "solve", help="what a player can deduce at a point of a record, and a hint")
    solve.add_argument("record", help="a pi-record/1 JSON file")
    solve.add_argument("--player", required=True,
                       help="the asking player: a number from 0, its label as play prints it (P2, or "
                            "'P2 (deducer)', checked against the record's agent), or its name in the record")
    solve.add_argument("--round", type=_integer, default=None,
                       help="round, 1-based (default: the record's last round)")
    solve.add_argument("--after-event", "--event", dest="after_event", type=_integer, default=None, metavar="E",
                       help=POSITION_HELP)
    solve.add_argument("--top", type=_integer, default=10, help="cases to list (default 10, 0 = all)")
    solve.add_argument("--display", default=None, metavar="CARDS",
                       help="the clue cards face up now, e.g. \"Doc, Bubbles, Lakeside\" (default: from "
                            "the record; else the best query assumes any card can be taken)")
    solve.add_argument("--json", action="store_true", help="print the report as JSON")
    solo = _command(sub, "solo", help="Solo Time Attack (docs/rules.md §8): generate cases, play")
    solo_sub = solo.add_subparsers(dest="solo_command", required=True, metavar="{generate,play}", parser_class=_Parser)
    gen = _command(solo_sub, "generate", help="a solo case (layout + hidden case) from a seed or a "
                                                "date: record and printable setup sheet")
    which = gen.add_mutually_exclusive_group()
    which.add_argument("--seed", type=_seed, default=None, help="case seed (default 0)")
    which.add_argument("--daily", type=_date, default=None, metavar="YYYY-MM-DD",
                       help="the daily case of this date: one per date and difficulty (default "
                            "difficulty medium), the same in solo play and the browser")
    gen.add_argument("--difficulty", choices=("easy", "medium", "hard"), default=None,
                     help="the first case of this difficulty from the seed upwards (a daily case: "
                          "from seed YYYYMMDD*1000, default medium; actions the reference greedy "
                          "solver needs: easy <= 5, medium 6-7, hard >= 8)")
    gen.add_argument("--investigators", type=_solo_investigators, default=5,
                     help="investigator tiles, 0..14 (default 5)")
    gen.add_argument("--out", default="case.json",
                     help="record file (default case.json); the setup sheet goes beside it as .txt")
    gen.add_argument("--force", action="store_true", help="overwrite existing output files")
    splay = _command(solo_sub, "play", help="play a solo case in the terminal: type queries, get "
                                             "answers, rank in a local leaderboard")
    pwhich = splay.add_mutually_exclusive_group()
    pwhich.add_argument("--seed", type=_seed, default=None, help="case seed (default: a random one)")
    pwhich.add_argument("--daily", type=_date_or_today, nargs="?", const="today", default=None,
                        metavar="YYYY-MM-DD", help="the daily case (default date: today; one per date and "
                                                    "difficulty, default difficulty medium)")
    pwhich.add_argument("--case", default=None, metavar="FILE",
                        help="play the case of a solo record (from pi-env solo generate)")
    pwhich.add_argument("--resume", action="store_true", help="continue the saved game in progress")
    splay.add_argument("--difficulty", choices=("easy", "medium", "hard"), default=None,
                       help="the first case of this difficulty from the seed upwards (a daily case: "
                            "from seed YYYYMMDD*1000, default medium)")
    splay.add_argument("--investigators", type=_solo_investigators, default=None,
                       help="investigator tiles, 0..14 (default 5; a --case file has its own)")
    splay.add_argument("--name", default=None, help="your name for the leaderboard (default: asked)")
    splay.add_argument("--db", default=None, metavar="PATH",
                       help="leaderboard SQLite file (default: $PI_ENV_LEADERBOARD, else "
                            "leaderboard.sqlite3 in the data directory)")
    splay.add_argument("--save-file", default=None, metavar="PATH",
                       help="where the game in progress is saved (default: solo-game.json in the data "
                            "directory: $PI_ENV_DATA_DIR, else the user data directory)")
    srv = _command(sub, "serve", help="P.I. in the browser: play against the agents, Solo Time Attack, "
                                        "replay viewer (needs the 'web' extra)")
    srv.add_argument("--host", default="127.0.0.1",
                     help="interface to listen on (default 127.0.0.1, this machine only; any other, "
                          "e.g. 0.0.0.0 for a LAN, needs --allow-host or --public-url and is announced with "
                          "a warning)")
    srv.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000; 0 = any free port)")
    srv.add_argument("--data", default=None, metavar="DIR",
                     help="folder of the games database and the solo leaderboard (default: the data "
                          "directory: $PI_ENV_DATA_DIR, else the user data directory)")
    _serve_network(srv)
    _serve_limits(srv)
    render = _command(sub, "render", help="draw the board at a point of a record as a PNG")
    render.add_argument("record", help="a pi-record/1 JSON file (engine-written, or typed in at a table)")
    render.add_argument("--round", type=_integer, default=None, help="round, 1-based (default: the last)")
    render.add_argument("--after-event", "--event", dest="after_event", type=_integer, default=None, metavar="E",
                        help=POSITION_HELP)
    render.add_argument("--viewer", default=None, metavar="P",
                        help="add the case player P holds: a number from 0, its label (P2, or 'P2 (deducer)' "
                             "as play prints it), or its name in the record (default: a spectator's picture, no case)")
    render.add_argument("--out", required=True, help="the PNG file to write")
    render.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    return parser


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535, got {text!r}")
    return value


def _seconds(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and 0 <= value <= 3600):
        raise argparse.ArgumentTypeError(f"expected seconds 0..3600, got {text!r}")
    return value


def _serve_network(srv: argparse.ArgumentParser) -> None:
    """``pi-env serve``'s options for the agents, the solver and playing with friends (the names
    people open, seats left)."""
    srv.add_argument("--agent-delay", type=_seconds, default=0.8, metavar="S",
                     help="seconds an agent waits before each move, so that people can follow (default 0.8)")
    srv.add_argument("--solver-timeout", type=_seconds, default=60.0, metavar="S",
                     help="seconds one solver view of the replay viewer, or one game hint, may take (default 60)")
    srv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                     help="a host name or address people open the server by (repeatable), e.g. the machine's "
                          "LAN address 192.168.1.5 or box.lan; then only these names and the loopback ones "
                          "are accepted in the Host and Origin headers")
    srv.add_argument("--public-url", action="append", default=[], metavar="URL",
                     help="the address people open, e.g. https://pi.example.org behind a reverse proxy with "
                          "TLS (repeatable); its name is accepted as with --allow-host, with its scheme and port")
    srv.add_argument("--seat-timeout", type=_seat_timeout, default=120.0, metavar="TIME",
                     help="how long a person's seat may stay without a connection before it counts as left "
                          "and the game's creator may hand it to an agent (default 120s; s, m, h, at most 1h)")


def _seat_timeout(text: str) -> float:
    """``--seat-timeout``: a duration as ``--finished-ttl`` takes it (``20s``, ``2m``; a bare number is
    seconds, ``0`` included), at most one hour."""
    try:
        value = _seconds(text)  # bare seconds 0..3600
    except argparse.ArgumentTypeError:
        value = _duration(text)
    if value > 3600:
        raise argparse.ArgumentTypeError(f"expected a duration of at most 1h (such as 20s or 2m), got {text!r}")
    return value


def _serve_limits(srv: argparse.ArgumentParser) -> None:
    """``pi-env serve``'s last options: how long games are kept, new games per client, the log."""
    srv.add_argument("--finished-ttl", type=_duration, default="24h", metavar="TIME",
                     help="how long a finished game is kept after its last move (default 24h; s, m, h, d)")
    srv.add_argument("--idle-ttl", type=_duration, default="7d", metavar="TIME",
                     help="how long an unfinished game is kept after its last move (default 7d)")
    srv.add_argument("--games-per-minute", type=_games_per_minute, default=10, metavar="N",
                     help="new games one client address may start a minute (default 10)")
    srv.add_argument("--quiet", action="store_true", help="no access log")


def _games_per_minute(text: str) -> int:
    """``--games-per-minute``: a whole number 1..1,000,000 (a larger one cannot be counted with)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"expected a whole number 1..1000000, got {text!r}")
    return value


def _duration(text: str) -> float:
    from pi_env.apps.web.limits import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    """``pi-env serve``: the web app (:func:`pi_env.apps.web.serve`)."""
    from pi_env.apps.web import serve

    return serve(args.host, args.port, args.data, agent_delay=args.agent_delay,
                 solver_timeout=args.solver_timeout, quiet=args.quiet, finished_ttl=args.finished_ttl,
                 idle_ttl=args.idle_ttl, games_per_minute=args.games_per_minute, allow_hosts=args.allow_host,
                 public_urls=args.public_url, seat_timeout=args.seat_timeout)


def _play_config(args: argparse.Namespace, players: int):
    """The :class:`~pi_env.engine.GameConfig` of ``pi-env play``'s options: GameConfig checks them.

    Raises:
        OptionError: an option's value is refused (the message names the option and what it takes).
    """
    from pi_env.engine import GameConfig

    if args.max_rounds is not None and args.mode != "duel":
        raise OptionError("--max-rounds", "the duel's safeguard, taken only with --mode duel")
    extra = {} if args.max_rounds is None else {"max_rounds": args.max_rounds}
    with config_options():
        return GameConfig(num_players=players, edition=args.edition, variants=tuple(args.variant),
                          investigators=args.investigators, max_rotations=args.max_rotations,
                          mode=args.mode, **extra)


@contextlib.contextmanager
def config_options():
    """Report a :class:`~pi_env.core.errors.ConfigError` raised inside as the
    :class:`OptionError` of the option that sets its argument."""
    from pi_env.core.errors import ConfigError

    try:
        yield
    except ConfigError as exc:
        raise OptionError(OPTION_OF_CONFIG[exc.option], exc.requirement) from None


def cmd_play(args: argparse.Namespace) -> int:

    from pi_env.agents import check_agent_name, make_agent
    from pi_env.agents.runner import play_game
    from pi_env.apps.tournament import agent_seats
    from pi_env.core.files import check_output_path
    from pi_env.records.record_file import write_record
    from pi_env.records.report import report_lines
    from pi_env.records.scoring import score_record

    duel = args.mode == "duel"
    if args.agents is None:
        players = args.players if args.players is not None else (2 if duel else 4)
        given = (DEFAULT_AGENTS.split(",") * 2)[:players]
    else:  # as pi-env tournament: --players defaults to the list's length (a duel has 2)
        players = args.players if args.players is not None or not duel else 2
        given = args.agents.split(",")
    for n in given:  # an unknown name first, before the seats are counted (``--agents list`` was
        if n.strip() and n.strip().lower() != "human":  # told "--players is not given")
            check_agent_name(n.strip())
    if args.players is not None:  # checked before the seats are counted
        _play_config(args, players)
    seats, note = agent_seats(given, players)  # a short list repeats, as in ``pi-env tournament``
    players = len(seats)
    config = _play_config(args, players)
    names = list(seats)
    repeated = f" ({note})" if note else ""
    humans = [i for i, n in enumerate(names) if n.lower() == "human"]
    if len(humans) > 1 and not args.hot_seat:
        raise PIError(f"--agents seats {len(humans)} people ('human') at this one terminal, where each would "
                      f"see the case the others hold; add --hot-seat to play so (the screen is cleared "
                      f"between turns and each person presses Enter when alone at it)")
    for i, n in enumerate(names):  # every argument is checked before an agent is built (a learned
        if i not in humans:        # model runs the engine when loaded: numba compiles, and says so)
            check_agent_name(n)
    if args.record is not None:  # checked before the game is played
        check_output_path(args.record, force=args.force)
    agents = [_human(i, config, hot_seat=len(humans) > 1) if i in humans else make_agent(n, edition=config.edition)
              for i, n in enumerate(names)]
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    if humans:  # the seed determines every case: a person at the table learns it at the end
        return _play_with_humans(args, config, agents, humans, seed)
    state, recorder = play_game(config, agents, seed)
    labels = tuple(a.name for a in agents)
    record = dataclasses.replace(recorder.record(), agents=labels)  # "P2 (deducer)" resolves against it
    if args.record is not None:  # written before printing, so a closed pipe cannot lose it
        path = write_record(record, args.record, force=args.force)
    rules = "duel" if duel else f"{config.edition} edition"
    if config.variants:
        rules += ", " + ", ".join(config.variants)
    if args.investigators is not None:
        rules += f", investigators {','.join(map(str, config.investigators))}"
    print(f"P.I. — {config.num_players} players, {rules}, seed {seed}, agents {', '.join(labels)}{repeated}")
    for line in report_lines(record, score_record(record), labels, turns=not args.quiet):
        print(line)
    if state.truncated[0]:
        if duel and state.score[0, 0] == state.score[0, 1]:
            print(f"(the duel was still tied after the {config.max_rounds}-round safeguard)")
        else:
            print(f"(a round was ended by the {config.max_rotations}-rotation safeguard)")
    if args.record:
        print(f"record written to {path}")
    return 0


def _clear_screen() -> None:
    """Clear the terminal and its scrollback (a hot seat's turn is over); on a pipe, a blank line."""
    if sys.stdout.isatty():
        sys.stdout.write("\033[H\033[2J\033[3J")
        sys.stdout.flush()
    else:
        print()


def _human(seat: int, config, hot_seat: bool = False):
    """A :class:`~pi_env.agents.human.HumanAgent` for ``seat`` reading the terminal with line
    editing and name completion (:mod:`pi_env.apps.line_input`)."""
    from pi_env.agents.human import HumanAgent
    from pi_env.apps.line_input import game_commands, line_reader
    from pi_env.records.types import seat_label

    agent = HumanAgent(input_fn=line_reader(game_commands(config.board)), label=seat_label(seat),
                       edition=config.edition, duel=config.is_duel, hot_seat=hot_seat, clear_fn=_clear_screen)
    agent.player = seat
    return agent


def _play_with_humans(args: argparse.Namespace, config, agents, humans: list[int], seed: int) -> int:
    """``pi-env play`` with people at the terminal: each move is printed as it happens (actions and
    answers are public, docs/rules.md §9); a person is prompted with its own seat's view only."""
    from pi_env.agents.runner import play_game
    from pi_env.records.record_file import write_record
    from pi_env.records.recorder import event_from_state
    from pi_env.records.report import event_text, player_label, report_lines, round_result
    from pi_env.records.scoring import score_record
    from pi_env.records.types import seat_label
    from pi_env.envs.render import rules_text

    labels = tuple(a.name for a in agents)
    print(f"P.I. — {rules_text(config)}; seats: "
          + ", ".join(f"{seat_label(i)} {labels[i]}" for i in range(config.num_players))
          + ". Type 'help' at your prompt.")
    counter = {"round": 0, "events": 0}

    def after_step(state, recorder) -> None:
        ev = event_from_state(state, 0, counter["events"])
        from pi_env.records.types import GameRecord, Rules
        stub = GameRecord(rules=Rules.of_config(config), board=config.board, rounds=())
        action, answer = event_text(ev, stub)
        print(f"  {seat_label(ev.player)} ({labels[ev.player]}): {action} -> {answer}")
        if state.done[0] or int(state.round[0]) != counter["round"]:
            ended = counter["round"]
            counter["round"] = int(state.round[0])
            if not state.done[0]:  # the round's result as a game without people prints it (the
                so_far = recorder.record()  # last round's comes with the final standings)
                print(round_result(score_record(so_far), ended,
                                   [player_label(so_far, p, labels) for p in range(config.num_players)]))
                print(f"--- round {counter['round'] + 1} begins ---")

    try:
        state, recorder = play_game(config, agents, seed, after_step=after_step)
    except EOFError:  # Ctrl-D, or the end of piped input
        print("\npi-env: end of input: game abandoned; nothing was written", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\npi-env: interrupted: game abandoned; nothing was written", file=sys.stderr)
        return 130
    record = dataclasses.replace(recorder.record(), agents=labels)
    path = write_record(record, args.record, force=args.force) if args.record is not None else None
    print(f"Game over (seed {seed}).")
    for line in report_lines(record, score_record(record), labels, turns=False):
        print(line)
    if path is not None:
        print(f"record written to {path}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from pi_env.records.recorder import check_with_engine
    from pi_env.records.record_file import load_record
    from pi_env.records.report import report_json, report_lines
    from pi_env.records.scoring import score_record

    record = load_record(args.record)
    if record.rules.mode == "solo":
        return _replay_solo(args, record)
    scores = score_record(record)
    _check_jointly_consistent(record)
    if record.seed is not None:
        check_with_engine(record)
    if args.json:
        doc = report_json(record, scores)
        doc["engine_checked"] = record.seed is not None
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        for line in report_lines(record, scores, turns=not args.quiet):
            print(line)
        print("record checked: " + ("re-run by the engine from its seed, every answer identical"
                                    if record.seed is not None else "rules and answers consistent"))
    return 0


def _check_jointly_consistent(record) -> None:
    """docs/record-format.md: a record whose answers could not have happened is rejected. Answers are checked
    against the cases the record holds when it is read; here the solver checks that some deal of the
    unknown cases (pairwise disjoint, docs/rules.md §3) fits every public answer of each round.

    Raises:
        RecordError: naming a smallest set of events that cannot all hold.
    """
    from pi_env.solvers import ContradictionError, analyze

    from pi_env.core.errors import RecordError

    from tqdm import tqdm

    rounds = range(len(record.rounds))
    # a bar on a terminal only (disable=None): a round of sparse or many-failed-solve answers takes seconds
    for r in tqdm(rounds, desc="checking rounds", unit="round", file=sys.stderr, disable=None, leave=False,
                  delay=0.5):
        try:
            analyze(record, 0, round_index=r)
        except ContradictionError as exc:
            what = (f"events {', '.join(str(e) for e in exc.events)}" if exc.events
                    else "the case recorded for player 1")
            raise RecordError(f"the answers cannot all be true (no deal of the cases fits them): "
                              f"{what}", round_index=r) from None


def _replay_solo(args: argparse.Namespace, record) -> int:
    """``pi-env replay`` of a solo record (re-run by the solo engine when it has a seed)."""
    from pi_env.records.recorder import replay_with_engine
    from pi_env.apps.solo_app import solo_report_json, solo_report_lines

    if record.seed is not None:
        replay_with_engine(record)
    if args.json:
        doc = solo_report_json(record)
        doc["engine_checked"] = record.seed is not None
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        for line in solo_report_lines(record, turns=not args.quiet):
            print(line)
        print("record checked: " + ("re-run by the solo engine from its seed, every answer identical"
                                    if record.seed is not None else "rules and answers consistent"))
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from pi_env.apps.tournament import command

    if args.resume:  # the rules come from the stored run: its errors are not the options'
        return command(args)
    with config_options():
        return command(args)


def cmd_ladder(args: argparse.Namespace) -> int:
    from pi_env.apps.ladder import command

    return command(args)


def cmd_solve(args: argparse.Namespace) -> int:
    """``pi-env solve``: only what ``--player`` knows (docs/rules.md §9); a contradiction is reported
    (see :func:`pi_env.solvers.solve_report.solve_report`), then the command fails with exit status 2
    as ``pi-env replay`` does. The position defaults to
    the record's last round after its last event (where a game in progress stands)."""
    from pi_env.records.record_file import load_record
    from pi_env.solvers.solve_report import solve_report, solve_report_lines

    record = load_record(args.record)
    rounds = len(record.rounds)
    if args.round is not None and not 1 <= args.round <= rounds:
        raise PIError(f"--round must be 1..{rounds} (the record has {rounds} round{'s' * (rounds != 1)}), "
                      f"got {args.round}")
    round_index = rounds - 1 if args.round is None else args.round - 1
    n_events = len(record.rounds[round_index].events)
    if args.after_event is not None and not -1 <= args.after_event < n_events:
        raise PIError(f"--after-event must be -1..{n_events - 1} (round {round_index + 1} has {n_events} "
                      f"events), got {args.after_event}")
    if args.top < 0:
        raise PIError(f"--top must be >= 0 (0 lists every case), got {args.top}")
    try:
        doc = solve_report(record, args.player, round_index, args.after_event, args.top,
                           display=args.display)
    except PIError as exc:
        if str(exc).startswith("display: "):  # the library's words for the option's value
            raise PIError(f"--{exc}") from None
        raise
    if args.json:
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print("\n".join(solve_report_lines(doc)))
    if doc["conflict"] is not None:  # reported above; a broken record fails as it does in replay
        what = (f"events {', '.join(map(str, doc['conflict']))}" if doc["conflict"]
                else "the case the player holds")
        print(f"pi-env: error: round {round_index + 1}: the answers cannot all be true (no deal of the cases "
              f"fits them): {what}", file=sys.stderr)
        return 2
    return 0


COMMANDS = {"play": cmd_play, "replay": cmd_replay, "tournament": cmd_tournament, "ladder": cmd_ladder,
            "solve": cmd_solve}


def _date(text: str) -> str:
    from pi_env.apps.solo_cases import date_seed

    try:
        date_seed(text)
    except PIError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _solo_investigators(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 14:
        raise argparse.ArgumentTypeError(f"investigators must be 0..14, got {text!r}")
    return value


def _date_or_today(text: str) -> str:
    if text == "today":
        import datetime

        return datetime.date.today().isoformat()
    return _date(text)


def cmd_solo_play(args: argparse.Namespace) -> int:
    """``pi-env solo play``: the terminal game (:class:`pi_env.apps.solo_app.SoloApp`)."""
    from pi_env.apps.solo_app import SoloApp

    if args.case is not None:  # the case file fixes the case and its tiles
        for option, value in (("--difficulty", args.difficulty), ("--investigators", args.investigators)):
            if value is not None:
                raise PIError(f"argument {option}: not allowed with argument --case (the case file "
                              f"fixes the case and its investigator tiles)")
    from pi_env.apps.line_input import game_commands, line_reader

    app = SoloApp(input_fn=line_reader(game_commands(extra=("hint", "board", "map", "help", "quit"))),
                  db_path=args.db, save_path=args.save_file,
                  name=args.name)
    return app.run(seed=args.seed, date=args.daily, difficulty=args.difficulty,
                   investigators=5 if args.investigators is None else args.investigators,
                   case_file=args.case, resume=args.resume)


def cmd_solo(args: argparse.Namespace) -> int:
    """``pi-env solo generate``: write a solo case record and its setup sheet (docs/rules.md §8)."""
    import os
    from pathlib import Path

    if args.solo_command == "play":
        return cmd_solo_play(args)

    from pi_env.apps.solo_cases import case_label, generate, write_case

    out = Path(args.out)
    if not out.name or args.out.endswith(("/", os.sep)) or out.is_dir():
        raise PIError(f"--out {args.out!r}: give a file name for the record (e.g. case.json), not a "
                      f"directory")
    if out.suffix.lower() == ".txt":
        raise PIError(f"--out {args.out}: the record must not be a .txt file (the setup sheet gets "
                      f"that name)")
    for path in (out, out.with_suffix(".txt")):
        if path.exists() and not args.force:
            raise PIError(f"{path} exists; use --force to overwrite it")
    case = generate(args.seed, date=args.daily, difficulty=args.difficulty,
                    investigators=args.investigators)
    record_path, sheet_path = write_case(case, out, force=args.force)
    origin = case_label(case.date, case.target, case.seed) if case.date else "case"
    searched = (f" (first {case.difficulty} case from seed {case.base_seed})"
                if case.target and case.base_seed != case.seed else "")
    g = case.greedy
    print(f"P.I. Solo Time Attack: {origin}, seed {case.seed}{searched}")
    print(f"difficulty {case.difficulty}: the reference greedy solver needs {g.actions} actions, "
          f"{g.investigators} investigator tiles")
    print(f"record written to {record_path} (it holds the case)")
    print(f"setup sheet written to {sheet_path}")
    return 0


COMMANDS["solo"] = cmd_solo


def cmd_render(args: argparse.Namespace) -> int:
    """``pi-env render``: a picture of the board (:func:`pi_env.envs.board_image.record_picture`) at
    a point of a record: an engine-written record is re-run by the engine from its seed; a record
    typed in at a table is drawn from its tiles and events (the deck order is not needed).
    Written atomically; an existing file (or link) is replaced only with ``--force``, and a link is
    replaced, never followed."""
    from pathlib import Path

    from pi_env.core.files import check_output_path
    from pi_env.envs.board_image import record_picture, write_png

    from pi_env.records.record_file import load_record

    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise PIError(f"--out {args.out}: the picture is written as PNG; give a .png file name")
    check_output_path(out, force=args.force)
    record = load_record(args.record)
    if record.rules.mode == "solo":
        raise PIError(f"{args.record}: a Solo Time Attack record; render draws standard and duel games "
                      f"only (for a solo case: pi-env replay {args.record} prints it, pi-env solo play "
                      f"--case {args.record} plays it, and its setup sheet is the .txt beside it)")
    try:
        image = record_picture(args.record, None if args.round is None else args.round - 1, args.after_event,
                               viewer=args.viewer)
    except PIError as exc:
        if str(exc).startswith(("viewer: ", "round must be ")):  # the library's words for the option's value
            raise type(exc)(f"--{exc}") from None
        if str(exc).startswith("event must be "):  # worded as pi-env solve words it
            raise type(exc)(f"--after-{exc}") from None
        raise
    write_png(image, out, force=args.force)
    print(f"picture written to {out}")
    return 0


COMMANDS["render"] = cmd_render
COMMANDS["serve"] = cmd_serve


def _tolerate_narrow_consoles() -> None:
    """Let a console whose encoding lacks a character (e.g. cp1252 and '−') show ``?`` instead of
    failing: the text is the same everywhere, only its rendering degrades."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a detached or closed stream: leave it as it is
                pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pi-env`` console script."""
    _tolerate_narrow_consoles()
    from pi_env.core._config import announce_compilation

    announce_compilation()  # kernels this command needs and no earlier one compiled: say so (stderr)
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command that did not take them: "pi-env play: error: ..."
        _subparser_of(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return COMMANDS[args.command](args)
    except OptionError as exc:  # as argparse says it: "pi-env play: error: argument --players: ..."
        _subparser_of(parser, args).error(str(exc))
    except BrokenPipeError:  # output piped into e.g. `head`: not an error
        sys.stderr.close()
        return 0
    except (PIError, OSError) as exc:
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"pi-env: error: {where}{msg}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as exc:  # Ctrl-C: one line, no traceback; commands write
        # files atomically, so nothing is half-written (pi_env.core.files). Ctrl-C inside a numba kernel
        # arrives as a SystemError caused by the KeyboardInterrupt.
        from pi_env.apps.interrupts import caused_by_interrupt

        if not caused_by_interrupt(exc):
            raise
        print("\npi-env: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
