"""Plot the per-epoch imitation loss of a ``python -m pi_env.rl.train ... --verbose`` run.

The training command prints one line per epoch of behaviour cloning
(``imitation epoch 3/20: loss 0.5988 (13 s)``, :func:`pi_env.rl.imitate.fit`: the mean masked
cross-entropy of the epoch's minibatches over the training rows, nats); ``python -m
pi_env.rl.solo_imitate`` prints the same without the word ``imitation`` (``epoch 3/40: loss ...``,
:func:`pi_env.rl.solo_imitate.fit`), which this script reads too. This script reads those
lines from the saved output, writes them as a CSV (``epoch,loss,seconds``) and plots loss against
epoch with the command that produced them as the caption::

    python docs/make_imitation_curve.py LOG --out docs/figures/rl_4p_imitation_loss \
        --title "..." --caption "..."

A run with DAgger rounds (``--dagger-rounds N``) fits N + 1 times, each fit counting its epochs from
1 again (round 0 on the first demonstrations, round k on all rows so far, starting from round k-1's
network); the CSV then has a ``round`` column first (``round,epoch,loss,seconds``, seconds counted
from the start of that round's fit) and the plot runs the epochs of all rounds one after another,
a dashed line marking where each round starts.

Raises (one line, exit 2): a log without epoch lines.
"""
from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

LINE = re.compile(r"(?:imitation )?epoch (\d+)/(\d+): loss ([0-9.]+) \((\d+) s\)")


def read_epochs(text: str) -> list[tuple[int, float, int]]:
    """``(epoch, loss, seconds)`` of every epoch line of ``text`` (a run's output), in order."""
    return [(int(m[1]), float(m[3]), int(m[4])) for m in LINE.finditer(text)]


def split_rounds(rows: list[tuple[int, float, int]]) -> list[list[tuple[int, float, int]]]:
    """The epoch lines of :func:`read_epochs` cut into fits (imitation rounds 0, 1, ...): a new
    round starts wherever the epoch counter goes back to 1. One fit gives one round."""
    rounds: list[list[tuple[int, float, int]]] = []
    for row in rows:
        if row[0] == 1 or not rounds:
            rounds.append([])
        rounds[-1].append(row)
    return rounds


def main(argv: "list[str] | None" = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/make_imitation_curve.py", description=__doc__.splitlines()[0])
    p.add_argument("log", help="saved output of a train --verbose run")
    p.add_argument("--out", required=True, help="path without extension: writes OUT.csv and OUT.png")
    p.add_argument("--title", default="behaviour cloning: training loss per epoch")
    p.add_argument("--caption", default="", help="text under the plot (the exact command and seed)")
    args = p.parse_args(argv)
    rows = read_epochs(Path(args.log).read_text())
    if not rows:
        p.exit(2, f"{p.prog}: error: {args.log}: no 'imitation epoch' lines (was the run --verbose?)\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    out = Path(args.out)
    rounds = split_rounds(rows)
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    if len(rounds) == 1:
        out.with_suffix(".csv").write_text("epoch,loss,seconds\n" + "".join(f"{e},{l},{s}\n" for e, l, s in rows))
        ax.plot([r[0] for r in rows], [r[1] for r in rows], marker="o")
        ax.set_xlabel("epoch")
    else:
        out.with_suffix(".csv").write_text("round,epoch,loss,seconds\n" + "".join(
            f"{k},{e},{l},{s}\n" for k, fit in enumerate(rounds) for e, l, s in fit))
        start = 0
        for k, fit in enumerate(rounds):
            if k:
                ax.axvline(start + 0.5, color="grey", linestyle="--", linewidth=0.8)
            ax.plot([start + e for e, _, _ in fit], [l for _, l, _ in fit], marker="o", markersize=3,
                    label=f"round {k}")
            start += len(fit)
        ax.legend(fontsize=8)
        ax.set_xlabel("epoch (the fits of all imitation rounds in turn)")
    ax.set_ylabel("cross-entropy on the training rows (nats)")
    ax.set_yscale("log")
    if len(rows) <= 20 and len(rounds) == 1:
        ax.set_xticks([r[0] for r in rows])
    else:  # too many to label each: integer ticks
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    ax.set_title(args.title, fontsize=9, parse_math=False)
    if args.caption:
        fig.text(0.01, 0.01, "\n".join(textwrap.wrap(args.caption, 130)), fontsize=6, family="monospace",
                 va="bottom", parse_math=False)
        fig.subplots_adjust(bottom=0.32)
    fig.savefig(out.with_suffix(".png"), dpi=110)
    print(f"{len(rows)} epochs in {len(rounds)} round(s): {out.with_suffix('.csv')}, {out.with_suffix('.png')}", file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
