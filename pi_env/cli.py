"""The ``pi-env`` command line: ``play`` and ``replay`` (issue #2), ``solve`` (issue #3).

Every user mistake (unknown agent, bad player count or seed, bad record, existing output file)
ends with one line ``pi-env: error: ...`` and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

import numpy as np

from .errors import PIError

DEFAULT_AGENTS = "deducer,deducer,random,random"


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}")
    return value


def _players(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 2 <= value <= 5:
        raise argparse.ArgumentTypeError(f"players must be 2..5, got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``pi-env play: error: ...``) instead of usage dumps."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pi-env", description="P.I.: rules engine, agents and solver.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = sub.add_parser("play", help="play a whole game with built-in agents and print it")
    play.add_argument("--players", type=_players, default=4, help="2..5 (default 4)")
    play.add_argument("--seed", type=_seed, default=None, help="game seed (default: random, printed)")
    play.add_argument("--agents", default=None,
                      help=f"comma-separated agent per seat (default for 4: {DEFAULT_AGENTS})")
    play.add_argument("--edition", choices=("second", "first"), default="second")
    play.add_argument("--variant", action="append", choices=("fast",), default=[],
                      help="rules variant (repeatable)")
    play.add_argument("--max-rotations", type=_positive, default=60,
                      help="safeguard: rotations after which a round ends (default 60)")
    play.add_argument("--record", metavar="FILE", help="write the game record (pi-record/1) here")
    play.add_argument("--force", action="store_true", help="overwrite an existing --record file")
    play.add_argument("--quiet", action="store_true", help="print only the results, not every turn")

    replay = sub.add_parser("replay", help="check a game record and print its turns and standings")
    replay.add_argument("record", help="a pi-record/1 JSON file")
    replay.add_argument("--json", action="store_true", help="print the report as JSON")
    replay.add_argument("--quiet", action="store_true", help="print only the results")
    return parser


def cmd_play(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agents import make_agent

    from .engine import GameConfig, init, legal_action_mask, observe, step_inplace
    from .recorder import Recorder
    from .records import write_record
    from .report import report_lines
    from .scoring import score_record

    names = [a.strip() for a in (args.agents or ",".join(
        (DEFAULT_AGENTS.split(",") * 2)[:args.players])).split(",")]
    if len(names) != args.players:
        raise PIError(f"--agents lists {len(names)} agents for {args.players} players")
    agents = [make_agent(n) for n in names]
    if args.record and Path(args.record).exists() and not args.force:
        raise PIError(f"{args.record} exists; use --force to overwrite it")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    config = GameConfig(num_players=args.players, edition=args.edition, variants=tuple(args.variant),
                        max_rotations=args.max_rotations)
    state = init(config, 1, seed=seed)
    for i, agent in enumerate(agents):
        agent.reset(config.num_players, config.board, seed=seed * 10 + i)
    recorder = Recorder(config, state, seed)
    action = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        p = int(state.current_player[0])
        action[0] = agents[p].act(observe(state, p)[0], legal_action_mask(state)[0])
        step_inplace(state, action, config)
        recorder.after_step(state)
    record = recorder.record()
    if args.record:  # written before printing, so a closed pipe cannot lose it
        path = write_record(record, args.record, force=args.force)
    labels = tuple(a.name for a in agents)
    print(f"P.I. — {config.num_players} players, {config.edition} edition, seed {seed}, "
          f"agents {', '.join(labels)}")
    for line in report_lines(record, score_record(record), labels, turns=not args.quiet):
        print(line)
    if state.truncated[0]:
        print(f"(a round was ended by the {config.max_rotations}-rotation safeguard)")
    if args.record:
        print(f"record written to {path}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .recorder import replay_with_engine
    from .records import load_record
    from .report import report_json, report_lines
    from .scoring import score_record

    record = load_record(args.record)
    scores = score_record(record)
    if record.seed is not None:
        state = replay_with_engine(record)
        if tuple(int(s) for s in state.score[0]) != scores.scores:
            raise PIError(f"{args.record}: scores derived from the events differ from the engine's")
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


COMMANDS = {"play": cmd_play, "replay": cmd_replay}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pi-env`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:  # output piped into e.g. `head`: not an error
        sys.stderr.close()
        return 0
    except (PIError, OSError) as exc:
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"pi-env: error: {where}{msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pi-env: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
