"""The command lines of training and imitation, over the libraries :mod:`pi_env.rl.train`,
:mod:`pi_env.rl.imitate` and :mod:`pi_env.rl.solo_imitate` (where each command is documented):

    python -m pi_env.rl.train 2p --timesteps 20000000 --out results/rl/run2p    -> :func:`train_main`
    python -m pi_env.rl.imitate 2p --teacher greedy --rows 300000 --out d.npz  -> :func:`imitate_main`
    python -m pi_env.rl.solo_imitate --out results/rl/solo                      -> :func:`solo_imitate_main`

(each package's ``__main__`` calls its function here). The options are parsed and checked here —
every mistake is one line ``PROG: error: ...`` naming the option, exit status 2, before anything
is written — and the libraries' functions do the work with typed arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, NoReturn, Sequence

from pi_env.core.errors import PIError
from pi_env.core.interrupts import exit_130_when_interrupted
from pi_env.rl.settings import (DEFAULT_HIDDEN, DEFAULT_NUM_ENVS, DEFAULT_TRUNK, DEFAULTS, TASKS,
                                UNTIL_TIME_RUNS_OUT, check_settings, parse_opponents)

__all__ = ["train_main", "imitate_main", "solo_imitate_main"]


# ---------------------------------------------------------------------------------------------
# python -m pi_env.rl.train


def _ints(text: str) -> list[int]:
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected positive layer widths, got {text!r}")
    return vals


def _train_parser(prog: str) -> argparse.ArgumentParser:
    from pi_env.agents.learned import PLAYER_ENCODINGS

    p = argparse.ArgumentParser(prog=prog, description="Train a P.I. policy with MaskablePPO at engine speed.",
                                epilog="With --resume, options not given keep the run's saved values (run.json); "
                                "task, --encoding, --trunk and --hidden cannot change.")
    p.add_argument("task", choices=list(TASKS))
    p.add_argument("--timesteps", type=int, help="environment steps in total over every session of the run, rounded up to whole updates "
                        "(default 10M, or with --max-minutes until the time runs out; with --resume: the saved target)")
    p.add_argument("--out", required=True, help="run directory")
    p.add_argument("--seed", type=int, help="seed of the training games, seats, draws and torch: 0..2**39 (default 0)")
    p.add_argument("--num-envs", type=int,
                   help=f"games stepped together (default {DEFAULT_NUM_ENVS})")
    p.add_argument("--opponents",
                   help="built-in opponents name:weight,... (default gain:1; random and gain run in batch)")
    p.add_argument("--snapshot-weight", type=float, help="weight of the learner's snapshots (default 0)")
    p.add_argument("--snapshot-every", type=int, help="updates between snapshots (default 20)")
    p.add_argument("--max-snapshots", type=int)
    p.add_argument("--reward", choices=("win", "score", "rank"),
                   help="win: share of first place at the end (default); score: score changes; "
                        "rank: (players below - players above) / (P - 1) at the end")
    p.add_argument("--eval-every", type=int,
                   help="updates between evaluations against fixed opponents on held-apart games "
                        "(default 25; 0: never)")
    p.add_argument("--eval-games", type=int, help="games per evaluation (default 256)")
    p.add_argument("--eval-opponents", help="the built-in agent on every other seat in evaluations (default heuristic)")
    p.add_argument("--encoding", help=f"policy input: {', '.join(PLAYER_ENCODINGS)} (default compact-v1)")
    p.add_argument("--trunk", type=_ints,
                   help=f"trunk widths (default {','.join(map(str, DEFAULT_TRUNK))})")
    p.add_argument("--hidden", type=_ints,
                   help=f"policy and value widths (default {','.join(map(str, DEFAULT_HIDDEN))})")
    p.add_argument("--threads", type=int,
                   help="threads of the engine and encoder (numba) and of torch (default 1)")
    p.add_argument("--checkpoint-every", type=int, help="steps between checkpoints")
    p.add_argument("--ray-actors", type=int, default=None, metavar="K",
                   help="collect the experience with K Ray actors of num-envs/K games each, spread over the "
                        "cluster's nodes (this session; needs the ray extra; default: in this process)")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="the Ray cluster of --ray-actors (auto, ray://head:10001; default RAY_ADDRESS, else a "
                        "new local Ray instance)")
    p.add_argument("--imitate", default=None, metavar="TEACHER",
                   help="warm start: clone a batch teacher's choices first (e.g. gain; with --demos: default "
                        "the files' label)")
    p.add_argument("--imitate-rows", type=int,
                   help="teacher-labelled rows per imitation round (default 300000)")
    p.add_argument("--imitate-opponents",
                   help="opponents name:weight,... of the imitation games (default gain:1)")
    p.add_argument("--dagger-rounds", type=int,
                   help="imitation rounds after the first where the policy plays and the teacher labels (default 0)")
    p.add_argument("--dagger-beta", type=float,
                   help="share of the teacher's actions played in DAgger rounds (default 0.3)")
    p.add_argument("--imitate-workers", type=int, help="processes collecting demonstrations (default 1)")
    p.add_argument("--imitate-epochs", type=int, help="passes over the rows per imitation round")
    p.add_argument("--demos", default=None,
                   help="demonstration files (.npz, comma-separated; python -m pi_env.rl.imitate) used as the first "
                        "imitation round instead of collecting it; without --imitate the teacher is the agent that "
                        "labelled them (the files' label)")
    p.add_argument("--init", default=None, metavar="MODEL",
                   help="warm start from a model's weights: a .pt file or a shipped name (learned:2p); the network "
                        "(--encoding, --trunk, --hidden) is the model's; its value head starts new")
    p.add_argument("--value-warmup", type=int, metavar="N",
                   help="with --init: the first N updates train only the value head (default 0)")
    p.add_argument("--init-temperature", type=float, metavar="T",
                   help="with --init: the model's logits divided by T at the start (T > 1 softens a sharp "
                        "imitation clone so PPO tries the other choices; the argmax stays; default 1)")
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop after this much wall-clock time in this session (then save as at the end)")
    for k in ("n_steps", "batch_size", "n_epochs"):
        p.add_argument(f"--{k.replace('_', '-')}", type=int)
    for k in ("learning_rate", "ent_coef", "gamma"):
        p.add_argument(f"--{k.replace('_', '-')}", type=float)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    g.add_argument("--force", action="store_true", help="delete an existing --out and start again")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--verbose", action="store_true", help="print a line per update")
    return p


def _check_agents(p: Any, args: Any, imitate_flag: str = "--imitate") -> None:
    """Build every agent the options name once, before anything is written: an unknown name or a
    learned model of another player count is a one-line error naming its option (exit status 2;
    ``imitate_flag``: the option the teacher came from)."""
    from pi_env.engine import GameConfig
    from pi_env.rl.imitate import check_agent
    from pi_env.rl.pool import batch_opponent

    config = GameConfig(num_players=TASKS[args.task])
    checks: list[tuple[str, Any]] = [
        (flag, lambda text=text, flag=flag: [batch_opponent(name, config) for name, _ in parse_opponents(text, flag)])
        for flag, text in (("--opponents", args.opponents), ("--imitate-opponents", args.imitate_opponents))]
    if args.eval_every:
        checks.append(("--eval-opponents", lambda: batch_opponent(args.eval_opponents, config)))
    if args.imitate:
        checks.append((imitate_flag, lambda: check_agent(args.imitate, config.num_players)))
    for flag, check in checks:
        try:
            check()
        except PIError as exc:
            message = str(exc) if str(exc).startswith(flag) else f"{flag}: {exc}"
            p.exit(2, f"{p.prog}: error: {message}\n")


def train_main(argv: Sequence[str] | None = None, prog: str = "python -m pi_env.rl.train") -> int:
    """``python -m pi_env.rl.train`` (:mod:`pi_env.rl.train`'s docstring): checks the options, then
    :func:`pi_env.rl.train.train`. Errors: one line, exit status 2; interrupted (Ctrl-C,
    SIGTERM): the run saved, one line saying how to continue, exit status 130 (interrupted before
    training starts — imports, checks, building the games — one line, exit 130, and nothing to
    resume: the same command starts the run again, :func:`never_started`)."""
    if "--resume" in (sys.argv[1:] if argv is None else argv):
        message = f"{prog}: interrupted before training resumed; the run is unchanged (--resume again)"
    else:
        message = (f"{prog}: interrupted before the first checkpoint; nothing to resume (run the same command "
                   "again to start)")
    return exit_130_when_interrupted(lambda: _train_main(argv, prog), message)


def _fail(p: argparse.ArgumentParser, message: str) -> "NoReturn":
    p.exit(2, f"{p.prog}: error: {message}\n")  # one line, no usage


def _train_main(argv: Sequence[str] | None, prog: str) -> int:
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.rl.train import TrainingInterrupted, check_run_dir, demos_teacher, never_started, resume_settings, train

    p = _train_parser(prog)
    args = p.parse_args(argv)
    try:
        require_rl()
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    given = {k: getattr(args, k) for k in DEFAULTS}
    given["task"] = args.task
    imitate_flag = "--imitate"
    try:
        if args.resume:
            check_run_dir(Path(args.out), True, args.force)
            a = {**resume_settings(args.out, given), "max_minutes": args.max_minutes}  # per session
        else:
            if args.init is not None:  # the network is the model's (an empty name is refused): options not given are taken from it
                from pi_env.rl.train import init_network

                if args.imitate or args.demos:
                    _fail(p, f"--init and {'--imitate' if args.imitate else '--demos'} exclude each other "
                             "(both start the network)")
                net = init_network(args.init, TASKS[args.task], encoding=args.encoding, trunk=args.trunk,
                                   hidden=args.hidden)
                given.update({k: net[k] for k in ("encoding", "trunk", "hidden")})
            elif args.value_warmup:
                _fail(p, "--value-warmup needs --init (a new network's value head trains with the rest)")
            elif args.init_temperature is not None:
                _fail(p, "--init-temperature needs --init (it softens the starting model's choices)")
            a = {**DEFAULTS, **{k: v for k, v in given.items() if v is not None}}
            if a["demos"] and not a["imitate"]:  # the demonstrations alone: clone the agent that labelled them
                a["imitate"], imitate_flag = demos_teacher(a["demos"]), "--demos (the files' label)"
            if args.timesteps is None and args.max_minutes is not None:
                a["timesteps"] = UNTIL_TIME_RUNS_OUT  # the clock ends the run, not the default step count
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    if a["timesteps"] < 0 or (a["timesteps"] == 0 and not a["imitate"]):
        _fail(p, f"--timesteps must be at least 1 (0: imitation only, with --imitate or --demos), got {a['timesteps']}")
    if a["value_warmup"] < 0:
        _fail(p, f"--value-warmup must be at least 0, got {a['value_warmup']}")
    for k in ("num_envs", "snapshot_every", "max_snapshots", "threads", "checkpoint_every",
              "n_steps", "batch_size", "n_epochs", "imitate_rows", "imitate_workers", "imitate_epochs"):
        if a[k] < 1:
            _fail(p, f"--{k.replace('_', '-')} must be at least 1, got {a[k]}")
    from pi_env.agents.learned import check_player_encoding
    from pi_env.rl.imitate import check_workers

    try:
        check_player_encoding(a["encoding"], TASKS[args.task])
    except PIError as exc:
        _fail(p, f"--encoding: {exc}")
    if a["demos"] and not a["imitate"]:  # --resume of a run started without a warm start
        _fail(p, "--demos: the run was started without an imitation warm start; --demos only starts a run "
                 "(leave it out to resume)")
    if a["imitate"]:
        try:
            check_workers(a["imitate_workers"], "--imitate-workers")
        except PIError as exc:
            _fail(p, str(exc))
    if a["dagger_rounds"] < 0 or not 0.0 <= a["dagger_beta"] <= 1.0:
        _fail(p, "--dagger-rounds must be at least 0 and --dagger-beta in [0, 1]")
    try:  # the saved values passed this check already: a given option is wrong
        check_settings({k: a[k] for k in DEFAULTS})
    except PIError as exc:
        _fail(p, str(exc))
    _check_agents(p, argparse.Namespace(**{**a, "task": args.task}), imitate_flag)  # the settings in force (saved ones on --resume)
    if args.ray_address is not None and args.ray_actors is None:
        _fail(p, "--ray-address needs --ray-actors (how many actors collect the experience)")
    if args.ray_actors is not None:
        if args.ray_actors < 1 or a["num_envs"] % args.ray_actors:
            _fail(p, f"--ray-actors must be at least 1 and divide --num-envs ({a['num_envs']}), got {args.ray_actors}")
        try:
            import ray  # noqa: F401
        except ImportError:
            _fail(p, "--ray-actors needs Ray: pip install '.[ray]' (from a checkout of pi-env)")
    try:
        info = train(args.task, a["timesteps"], args.out, seed=a["seed"], num_envs=a["num_envs"],
                     opponents=a["opponents"], snapshot_weight=a["snapshot_weight"],
                     snapshot_every=a["snapshot_every"], max_snapshots=a["max_snapshots"], reward=a["reward"],
                     encoding=a["encoding"], trunk=a["trunk"], hidden=a["hidden"],
                     threads=a["threads"], checkpoint_every=a["checkpoint_every"],
                     max_minutes=a["max_minutes"], imitate_teacher=a["imitate"], imitate_rows=a["imitate_rows"],
                     imitate_opponents=a["imitate_opponents"], dagger_rounds=a["dagger_rounds"],
                     dagger_beta=a["dagger_beta"], imitate_workers=a["imitate_workers"],
                     imitate_epochs=a["imitate_epochs"], demos=a["demos"], eval_every=a["eval_every"],
                     eval_games=a["eval_games"], eval_opponents=a["eval_opponents"], init=a["init"],
                     value_warmup=a["value_warmup"], init_temperature=a["init_temperature"], collect_workers=args.ray_actors or 0, ray_address=args.ray_address,
                     resume=args.resume, force=args.force, progress=not args.no_progress, verbose=args.verbose,
                     n_steps=a["n_steps"], batch_size=a["batch_size"], n_epochs=a["n_epochs"],
                     learning_rate=a["learning_rate"], ent_coef=a["ent_coef"], gamma=a["gamma"])
    except TrainingInterrupted as exc:
        if exc.steps is None and never_started(Path(args.out)):  # as the other early interrupts
            print(f"{p.prog}: interrupted before the first checkpoint; nothing to resume (run the same command "
                  "again to start)", file=sys.stderr)
        elif exc.steps is None:  # a warm-start round was saved (imitation/): a plain rerun is refused
            print(f"{p.prog}: interrupted during the warm start (no checkpoint yet); start again with "
                  f"{prog} {args.task} --out {args.out} --force ...", file=sys.stderr)
        elif exc.steps >= a["timesteps"]:  # the signal came while the finished run was saved
            print(f"{p.prog}: interrupted while saving the finished run (step {exc.steps:,}); it is complete "
                  f"in {args.out}", file=sys.stderr)
        else:
            print(f"{p.prog}: interrupted at step {exc.steps:,}; saved in {args.out}; continue with: "
                  f"{prog} {args.task} --out {args.out} --resume", file=sys.stderr)
        return 130
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    s = info["sessions"][-1]
    print(f"trained to {s['timesteps']} steps in {s['seconds']} s ({s['sps']} env steps/s); policy: "
          f"{Path(args.out) / 'policy.pt'} (play it as learned:{Path(args.out) / 'policy.pt'})")
    return 0


# ---------------------------------------------------------------------------------------------
# python -m pi_env.rl.imitate


def imitate_main(argv: "Sequence[str] | None" = None, prog: str = "python -m pi_env.rl.imitate") -> int:
    """``python -m pi_env.rl.imitate`` (:mod:`pi_env.rl.imitate`'s docstring): checks the options,
    then collects demonstrations (:func:`pi_env.rl.imitate.collect_parallel`) into a ``.npz`` file; an existing file is refused
    without ``--force``. Returns the exit code (130 when interrupted, also during the imports and
    checks before collecting: one line, nothing written)."""
    from pi_env.core.interrupts import exit_130_when_interrupted

    return exit_130_when_interrupted(lambda: _imitate_main(argv, prog), f"{prog}: interrupted; nothing written")


def _imitate_main(argv: "Sequence[str] | None", prog: str) -> int:
    from pi_env.rl.imitate import check_agent, check_policy, check_workers, collect_parallel
    from pi_env.agents.learned import PLAYER_ENCODINGS, check_player_encoding
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.rl.settings import TASKS, check_settings, parse_opponents

    p = argparse.ArgumentParser(prog=prog, description="Collect a built-in teacher's play from the learner seat.")
    p.add_argument("task", choices=sorted(TASKS))
    p.add_argument("--teacher", default="greedy", help="agent name or gain (default greedy): the agent that plays")
    p.add_argument("--label", default=None, metavar="AGENT",
                   help="agent name whose choices label the rows (default: the teacher's own)")
    p.add_argument("--rows", type=int, required=True, help="rows of finished games to keep")
    p.add_argument("--out", required=True, help="the .npz file to write")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponents", default="gain:1", help="opponents name:weight,... (default gain:1)")
    p.add_argument("--num-envs", type=int, default=128, help="games stepped together per worker (default 128)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes, worker k playing seed + 1000 k (default 1)")
    p.add_argument("--encoding", default="compact-v1",
                   help=f"the learner's input: {', '.join(PLAYER_ENCODINGS)} (default compact-v1)")
    p.add_argument("--gamma", type=float, default=0.995, help="discount of the value targets (default 0.995)")
    p.add_argument("--reward", choices=("win", "score"), default="win")
    p.add_argument("--policy", default=None, help="model file whose choices are played with probability 1 - beta")
    p.add_argument("--beta", type=float, default=1.0, help="share of the teacher's actions played (default 1)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)

    def fail(message: str) -> "NoReturn":
        p.exit(2, f"{p.prog}: error: {message}\n")  # one line, no usage

    try:
        require_rl()  # without the rl extra: the one-line install hint, as train says it
    except PIError as exc:
        fail(str(exc))
    try:
        check_player_encoding(args.encoding, TASKS[args.task])
    except PIError as exc:
        fail(f"--encoding: {exc}")
    for flag, value in (("--rows", args.rows), ("--num-envs", args.num_envs)):
        if value < 1:
            fail(f"{flag} must be at least 1, got {value}")
    try:  # the options first (the same checks as train's), then --out
        check_settings({"imitate_rows": args.rows, "num_envs": args.num_envs, "gamma": args.gamma,
                        "dagger_beta": args.beta, "seed": args.seed},
                       {"imitate_rows": "--rows", "dagger_beta": "--beta"})
        check_workers(args.workers)
    except PIError as exc:
        fail(str(exc))
    for flag, name in (("--teacher", args.teacher), ("--label", args.label)):
        if name is not None:
            try:
                check_agent(name, TASKS[args.task])
            except PIError as exc:
                fail(f"{flag}: {exc}")
    try:
        from pi_env.engine import GameConfig
        from pi_env.rl.pool import batch_opponent

        opponents = parse_opponents(args.opponents)
        for name, _ in opponents:
            batch_opponent(name, GameConfig(num_players=TASKS[args.task]))
    except PIError as exc:
        fail(str(exc) if str(exc).startswith("--opponents") else f"--opponents: {exc}")
    if args.policy is not None:
        try:
            check_policy(args.policy, TASKS[args.task], args.encoding)
        except PIError as exc:
            fail(f"--policy: {exc}")
    elif args.beta < 1.0:
        fail("--beta below 1 (a DAgger round) needs --policy, the model that plays the other share")
    out = Path(args.out)
    if out.is_dir():
        fail(f"--out: {out} is a directory, not a file")
    if any(d.exists() and not d.is_dir() for d in out.parents):
        fail(f"--out: {out}: a parent of it is a file, not a directory")
    if out.exists() and not args.force:
        fail(f"--out: {out} exists: --force to overwrite it")
    from pi_env.core.interrupts import caused_by_interrupt, terminate_as_interrupt

    try:
        t0 = time.perf_counter()
        with terminate_as_interrupt():
            demos = collect_parallel(TASKS[args.task], args.teacher, args.rows, workers=args.workers,
                            opponents=opponents,
                            encoding=args.encoding, policy=args.policy, beta=args.beta, num_envs=args.num_envs,
                            seed=args.seed, gamma=args.gamma, reward=args.reward, label=args.label,
                            progress=not args.no_progress)
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    except BaseException as exc:  # Ctrl-C / SIGTERM: nothing written, an existing --out kept as it was
        if not caused_by_interrupt(exc):
            raise
        print(f"{p.prog}: interrupted; nothing written{' (' + str(out) + ' unchanged)' if out.exists() else ''}",
              file=sys.stderr)
        return 130
    tmp = out.with_name(out.stem + ".tmp.npz")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        demos.save(str(tmp))
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        p.exit(2, f"{p.prog}: error: --out: cannot write {out} ({exc.strerror or type(exc).__name__})\n")
    print(f"{len(demos)} rows ({args.teacher}{'' if args.label is None else ', labels ' + args.label}, "
          f"beta {args.beta:g}) in {time.perf_counter() - t0:.1f} s: {out}",
          file=sys.stdout)
    return 0


# ---------------------------------------------------------------------------------------------
# python -m pi_env.rl.solo_imitate


def solo_imitate_main(argv: "Sequence[str] | None" = None, prog: str = "python -m pi_env.rl.solo_imitate") -> int:
    """``python -m pi_env.rl.solo_imitate`` (:mod:`pi_env.rl.solo_imitate`'s docstring): trains a solo
    policy (:func:`pi_env.rl.solo_imitate.imitate_solo`) into ``--out``: ``round_K.pt`` after each round,
    ``policy.pt`` (the last round: what ``learned:PATH`` loads) and ``run.json``. An existing
    ``--out`` is refused without ``--force``. Returns the exit code."""
    p = argparse.ArgumentParser(prog=prog, description="Clone the exact solo planner into a policy (DAgger).")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--layouts", type=int, default=300, help="training layouts per round (default 300)")
    p.add_argument("--cases", type=int, default=32, help="cases played per layout (default 32)")
    p.add_argument("--rounds", type=int, default=0, help="DAgger rounds after behaviour cloning (default 0)")
    p.add_argument("--beta", type=float, default=0.3, help="DAgger rounds: share of teacher choices played (0.3)")
    p.add_argument("--exact-below", type=int, default=40,
                   help="the exact planner teaches on sets of at most this many cases (default 40)")
    p.add_argument("--epochs", type=int, default=40, help="fit epochs per round (default 40)")
    p.add_argument("--minibatch", type=int, default=256, help="fit minibatch (default 256)")
    p.add_argument("--trunk", type=int, nargs="+", default=[256], help="trunk widths (default 256)")
    p.add_argument("--hidden", type=int, nargs="+", default=[128], help="policy layer widths (default 128)")
    p.add_argument("--validate", type=int, default=3,
                   help="exact expected actions after each round on this many layouts of seeds 500.. (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not args.force:
        p.error(f"{out} exists: --force to replace it")
    if min(args.layouts, args.cases, args.epochs) < 1 or args.rounds < 0 or args.validate < 0:
        p.error("--layouts, --cases, --epochs must be at least 1, --rounds and --validate at least 0")
    from pi_env.rl.solo_imitate import imitate_solo

    try:
        run = imitate_solo(out, layouts=args.layouts, cases=args.cases, rounds=args.rounds, beta=args.beta,
                           exact_below=args.exact_below, epochs=args.epochs, minibatch=args.minibatch,
                           trunk=args.trunk, hidden=args.hidden, validate_layouts=args.validate, seed=args.seed,
                           progress=not args.no_progress, settings=vars(args))
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    print(f"written {out / 'policy.pt'} ({run['seconds']} s)", file=sys.stdout)
    return 0
