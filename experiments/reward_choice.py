"""Compare training runs that differ in their reward (``--reward``): the evaluation figures of
each run (:mod:`pi_env.rl.evaluation`) as a table and one plot of evaluation win rate and wrong
solves per game against steps.

    python -m pi_env.experiments.reward_choice RUN_DIR [RUN_DIR ...] --out FIGURE.png

Each ``RUN_DIR`` is a ``python -m pi_env.rl.train`` run directory (its ``curve.csv`` and
``run.json``). docs/results.md (reward choice) shows the runs it was made for and their commands.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any, Sequence

from pi_env.core.errors import PIError
from pi_env.core.files import write_figure_atomic


def read_run(path: Path) -> tuple[dict[str, Any], list[dict[str, float]]]:
    """A run's ``run.json`` and its evaluated curve rows (``timesteps`` and the ``eval_*`` columns).

    Raises:
        PIError: the folder holds no ``run.json`` or ``curve.csv``, or no evaluated row.
    """
    try:
        run = json.loads((path / "run.json").read_text())
        with open(path / "curve.csv", newline="") as f:
            rows = [{k: float(v) for k, v in r.items() if v not in ("", None)} for r in csv.DictReader(f)]
    except (OSError, ValueError) as exc:
        raise PIError(f"{path}: not a training run directory ({exc})") from None
    evaluated = [r for r in rows if "eval_win_rate" in r]
    if not evaluated:
        raise PIError(f"{path}: curve.csv has no evaluated row (trained with --eval-every 0?)")
    return run, evaluated


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (module docstring); prints one table row per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = argparse.ArgumentParser(prog="python -m pi_env.experiments.reward_choice", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True, help="the figure (PNG)")
    args = p.parse_args(argv)
    try:
        runs = [(path, *read_run(path)) for path in args.runs]
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    fig, (up, low) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    print("| reward | steps | seconds | eval games | win rate | mean score | wrong solves / game | turns / game |")
    print("|---|---|---|---|---|---|---|---|")
    for i, (path, run, rows) in enumerate(runs):
        x = [r["timesteps"] for r in rows]
        label = f"--reward {run['settings']['reward']}"
        up.plot(x, [r["eval_win_rate"] for r in rows], marker="o", markersize=3, color=f"C{i}", label=label)
        low.plot(x, [r["eval_wrong_mean"] for r in rows], marker="o", markersize=3, color=f"C{i}", label=label)
        ev = run.get("evaluation", {})
        print(f"| {run['settings']['reward']} | {run['timesteps']:,} | {run['seconds']:.0f} | {ev.get('games')} "
              f"({ev.get('opponents')}) | {ev.get('win_rate')} | {ev.get('score_mean')} | {ev.get('wrong_mean')} | "
              f"{ev.get('length_mean')} |")
    up.set_ylabel("win rate, evaluation games")
    up.set_ylim(0, 1)
    low.set_ylabel("wrong solves per game")
    low.set_xlabel("environment steps")
    up.legend(fontsize=8)
    for a in (up, low):
        a.grid(alpha=0.3)
    fig.tight_layout()
    write_figure_atomic(args.out, fig, dpi=110)
    print(f"figure: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
