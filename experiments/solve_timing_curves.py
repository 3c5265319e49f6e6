"""The learning curves of a solve-timing head (:mod:`pi_env.rl.solve_timing`): its paired win-share
gain over greedy and its wrong solves a game, evaluated in batch on held-apart seeds, against the
number of branched games it was fitted on (the head refitted on the first ``k`` games of the
collection) and against ``λ`` (the head fitted on every game), as a table, a ``.csv`` and a plot.

    python -m pi_env.experiments.solve_timing_curves BRANCHES.npz --players 4 --seed 62 \\
        --lams 0 0.03 0.05 0.06 0.08 0.1 --lam 0.06 --eval-seed 63 --out FIGURE.png

``BRANCHES.npz`` is the ``branches.npz`` a ``python -m pi_env.rl.solve_timing`` run writes (its
``--seed`` is the fit's seed here, so the last point of the games curve is that run's head);
several files are joined in order as that command's ``--data`` joins them, and ``--tau`` gives
every head the run's margin τ.
docs/results.md shows the runs it was made for.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pi_env.core.errors import PIError
from pi_env.core.files import check_output_path, write_figure_atomic, write_text_atomic


def curves(data: Any, num_players: int, seed: int, lam: float, lams: Sequence[float], eval_seed: int,
           eval_games: int, fractions: Sequence[float], tau: float = 0.0) -> list[dict[str, float]]:
    """Rows ``{curve, games, lam, tau, gain, gain_ci, wrong, wrong_greedy, wrong_others, switches}``:
    the ``"games"`` curve (the head with ``lam`` fitted on the first ``fraction`` of the games) and
    the ``"lam"`` curve (every game, each of ``lams``), every head with the margin ``tau``; gains in
    points of win share."""
    from pi_env.engine import GameConfig
    from pi_env.rl.solve_timing import evaluate, fit

    config = GameConfig(num_players=num_players)
    total = data.num_games
    rows: list[dict[str, float]] = []

    def row(curve: str, games: int, head: Any) -> dict[str, float]:
        ev = evaluate(head, config, eval_games, eval_seed)
        return {"curve": curve, "games": games, "lam": head.lam, "tau": head.tau, "gain": 100 * ev.win_diff,
                "gain_ci": 100 * ev.win_diff_ci, "wrong": ev.wrong_learner, "wrong_greedy": ev.wrong_greedy,
                "wrong_others": ev.wrong_others, "switches": ev.switches}

    full = None
    for fraction in fractions:
        k = max(1, int(round(total * fraction)))
        keep = data.game < k
        # every game: the samples as read (a copy in another memory layout sums the standardisation in
        # another order, and the fit, sensitive to the last bits, would be another fit)
        part = data if keep.all() else data.take(keep)
        head, _ = fit(part, num_players, lam=lam, tau=tau, seed=seed)
        rows.append(row("games", k, head))
        print(rows[-1], flush=True)
        if k == total:
            full = head
    if full is None:
        full, _ = fit(data, num_players, lam=lam, tau=tau, seed=seed)
    for value in lams:
        rows.append(row("lam", total, dataclasses.replace(full, lam=float(value))))
        print(rows[-1], flush=True)
    return rows


def plot(rows: list[dict[str, Any]], out: Path, title: str) -> None:
    """Two panels: gain (with its 95 % interval) and wrong solves against games, and against λ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, curve, key, label in ((axes[0], "games", "games", "branched games fitted on"),
                                  (axes[1], "lam", "lam", "λ (win share per wrong solve)")):
        rs = [r for r in rows if r["curve"] == curve]
        x = np.array([float(r[key]) for r in rs])
        g = np.array([float(r["gain"]) for r in rs])
        ci = np.array([float(r["gain_ci"]) for r in rs])
        ax.errorbar(x, g, yerr=ci, marker="o", color="tab:blue", label="win share gain over greedy (points)")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel(label)
        if curve == "games":
            ax.set_xscale("log", base=2)
        ax.set_ylabel("points of win share", color="tab:blue")
        ax2 = ax.twinx()
        ax2.plot(x, [float(r["wrong"]) for r in rs], marker="s", color="tab:red", label="wrong solves / game")
        ax2.plot(x, [float(r["wrong_greedy"]) for r in rs], ls="--", color="tab:red", alpha=0.6,
                 label="greedy in that seat")
        ax2.set_ylabel("wrong solves a game", color="tab:red")
        if curve == "lam":
            ax2.legend(loc="upper right", fontsize=8)
            ax.legend(loc="lower left", fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    write_figure_atomic(out, fig)
    plt.close(fig)


def main(argv: "Sequence[str] | None" = None) -> int:
    """The command line (module docstring)."""
    from pi_env.rl.solve_timing import load_branches

    ap = argparse.ArgumentParser(prog="python -m pi_env.experiments.solve_timing_curves",
                                 description="Learning curves of a solve-timing head (module docstring).")
    ap.add_argument("branches", nargs="+", help="the branches.npz of python -m pi_env.rl.solve_timing (several: "
                                                "joined in order, as its --data)")
    ap.add_argument("--players", type=int, required=True, choices=[2, 3, 4, 5])
    ap.add_argument("--seed", type=int, required=True, help="the fit's seed (the run's --seed)")
    ap.add_argument("--lam", type=float, required=True, help="λ of the games curve")
    ap.add_argument("--lams", type=float, nargs="+", required=True, help="the λ of the λ curve")
    ap.add_argument("--tau", type=float, default=0.0, help="τ of every head (default 0)")
    ap.add_argument("--fractions", type=float, nargs="+", default=[1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0])
    ap.add_argument("--eval-seed", type=int, required=True)
    ap.add_argument("--eval-games", type=int, default=8192)
    ap.add_argument("--out", required=True, help="the figure (.png); the table goes beside it as .csv")
    a = ap.parse_args(argv)
    if any(not 0 < f <= 1 for f in a.fractions):
        raise SystemExit("error: --fractions must be in (0, 1]")
    # before the minutes of fitting: a head refuses these only once it is fitted, evaluate with no game
    if not all(np.isfinite([a.lam, *a.lams])):
        raise SystemExit(f"error: --lam and --lams must be finite numbers, got {a.lam} and {a.lams}")
    if not (np.isfinite(a.tau) or a.tau == np.inf):
        raise SystemExit(f"error: --tau must be a finite number or inf, got {a.tau}")
    if a.eval_games < 1:
        raise SystemExit(f"error: --eval-games must be at least 1, got {a.eval_games}")
    out = Path(a.out)
    try:  # before the minutes of fitting and evaluating: a figure that cannot be written is refused now
        for path in (out, out.with_suffix(".csv")):
            check_output_path(path, force=True)
    except PIError as exc:
        raise SystemExit(f"error: --out: {exc}") from None
    try:
        data = load_branches(a.branches, a.players)
        rows = curves(data, a.players, a.seed, a.lam, a.lams, a.eval_seed, a.eval_games, a.fractions, a.tau)
    except PIError as exc:
        raise SystemExit(f"error: {exc}") from None
    table = io.StringIO()
    w = csv.DictWriter(table, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_text_atomic(out.with_suffix(".csv"), table.getvalue())
    plot(rows, out, f"solve timing, {a.players} players: paired against greedy on {a.eval_games} games "
                    f"(seed {a.eval_seed}) in batch")
    print(f"wrote {out} and {out.with_suffix('.csv')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
