"""Strategy benchmark: every agent plays the same seeded solo positions.

    python -m pi_env.experiments.strategy_benchmark [--positions N] [--seed S] [--agents a,b,..]
                                             [--max-actions M] [--display] [--out DIR]

**Positions**: Solo Time Attack games of :mod:`pi_env.engine.solo` (docs/rules.md §8): position ``i``
is the solo game of seed ``seed + i`` (its board layout and hidden case); every agent plays the
same positions. By default clue queries may name any of the 36 elements (``--display``: only the
9-card display with the card flow of §4.1), 5 investigator tiles, and a game still unsolved after
``--max-actions`` actions (default 200) is cut off.

**Agents act on the standard observation**: :func:`pi_env.engine.solo.standard_view` shows each
agent its solo game as a 2-player standard position in which the other seat never acts. Agents are
reset with ``num_players=2`` and seed ``seed + i``. Agents written for the standard game bring
their standard-game habits: e.g. ``greedy`` and ``search`` ration investigators as in round 1 of 3
and see the idle seat as idle (see :mod:`pi_env.agents.greedy`).

**Statistics** per agent, over the positions it solved (unsolved positions are counted apart):
mean, median and 90th percentile (``numpy.percentile``, linear interpolation) of

* ``actions``: actions until the correct solve, that solve and wrong solves included (the solo
  result, docs/rules.md §8);
* ``investigators``: investigator tiles used;
* ``wrong_solves``: wrong solve attempts.

Files in ``--out`` (default ``results/strategy``): ``positions.csv`` (one line per agent and
position: ``agent, position, seed, solved, actions, investigators, wrong_solves``),
``summary.csv`` (the table) and ``strategy.png`` (box plots of the three distributions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pi_env.core.files import write_figure_atomic, write_text_atomic
from pi_env.core.text import csv_text, format_table
from pi_env.engine.solo import VIEW_PLAYERS, standard_view

__all__ = ["play_positions", "summarize", "table", "plot", "run", "main",
           "METRICS", "DEFAULT_AGENTS", "POSITIONS_FILE", "SUMMARY_FILE", "PLOT_FILE"]

METRICS = ("actions", "investigators", "wrong_solves")
DEFAULT_AGENTS = "random,deducer,heuristic,greedy,search"
POSITIONS_FILE, SUMMARY_FILE, PLOT_FILE = "positions.csv", "summary.csv", "strategy.png"
COLUMNS = ("agent", "position", "seed", "solved", "actions", "investigators", "wrong_solves")
STAT_COLUMNS = ("agent", "positions", "solved") + tuple(
    f"{m}_{s}" for m in METRICS for s in ("mean", "median", "p90"))


def play_positions(agent_name: str, positions: int, seed: int, *, max_actions: int = 200,
                   use_display: bool = False) -> list[dict[str, Any]]:
    """Play the ``positions`` solo games of seeds ``seed .. seed + positions - 1`` with a fresh
    agent ``agent_name`` each; one row per position (:data:`COLUMNS`)."""
    from pi_env.agents import make_agent
    from pi_env.engine import solo

    config = solo.SoloConfig(max_actions=max_actions, use_display=use_display)
    state = solo.init(config, positions, seed=seed)
    agents = [make_agent(agent_name) for _ in range(positions)]
    for i, agent in enumerate(agents):
        agent.reset(VIEW_PLAYERS, config.board, seed=seed + i)
    actions = np.zeros(positions, dtype=np.int64)
    while not state.done.all():
        obs = solo.observe(state)
        mask = solo.legal_action_mask(state)
        actions[:] = 0
        for b in np.flatnonzero(~state.done):
            actions[b] = agents[b].act(standard_view(obs[b]), mask[b])
        solo.step_inplace(state, actions, config)
    return [{"agent": agent_name, "position": i, "seed": seed + i, "solved": int(state.solved[i]),
             "actions": int(state.actions[i]), "investigators": int(state.investigators_used[i]),
             "wrong_solves": int(state.wrong_solves[i])} for i in range(positions)]


def summarize(rows: Sequence[dict[str, Any]], agents: Sequence[str]) -> list[dict[str, Any]]:
    """Per agent: positions, solved, and mean / median / p90 of each metric over solved positions
    (``None`` when none was solved)."""
    out = []
    for name in agents:
        mine = [r for r in rows if r["agent"] == name]
        solved = [r for r in mine if r["solved"]]
        entry: dict[str, Any] = {"agent": name, "positions": len(mine), "solved": len(solved)}
        for m in METRICS:
            v = np.array([r[m] for r in solved], dtype=np.float64)
            entry[f"{m}_mean"] = float(v.mean()) if v.size else None
            entry[f"{m}_median"] = float(np.median(v)) if v.size else None
            entry[f"{m}_p90"] = float(np.percentile(v, 90)) if v.size else None
        out.append(entry)
    return out


def table(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The printed table: one line per agent; each metric as ``mean / median / p90``."""
    def fmt(e: dict[str, Any], m: str) -> str:
        if e[f"{m}_mean"] is None:
            return "-"
        return f"{e[f'{m}_mean']:.2f} / {e[f'{m}_median']:g} / {e[f'{m}_p90']:g}"

    head = ("agent", "solved", "actions (mean/med/p90)", "investigators", "wrong solves")
    body = [(e["agent"], f"{e['solved']}/{e['positions']}", *(fmt(e, m) for m in METRICS)) for e in summary]
    return format_table(body, head, align="l" + "r" * (len(head) - 1))


def plot(rows: Sequence[dict[str, Any]], agents: Sequence[str], path: Path, title: str) -> None:
    """Box plots (whiskers 10th–90th percentile, mean marked) of the three metrics per agent over
    solved positions."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.2))
    for k, m in enumerate(METRICS):
        ax = fig.add_subplot(1, 3, k + 1)
        data = [[r[m] for r in rows if r["agent"] == a and r["solved"]] for a in agents]
        keep = [i for i, d in enumerate(data) if d]
        if keep:
            ax.boxplot([data[i] for i in keep], whis=(10, 90), showmeans=True)
            ax.set_xticks(range(1, len(keep) + 1), [agents[i] for i in keep], rotation=30)
        if keep and max(max(data[i]) for i in keep) > 50:  # e.g. random play next to deduction
            ax.set_yscale("symlog", linthresh=10)
        ax.set_title(m.replace("_", " "))
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    write_figure_atomic(path, fig, dpi=100)


def run(agents: Sequence[str], positions: int, seed: int, out: "str | Path", *, max_actions: int = 200,
        use_display: bool = False) -> list[dict[str, Any]]:
    """Play every agent on the same positions, write the files to ``out``; returns the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for name in agents:
        rows += play_positions(name, positions, seed, max_actions=max_actions, use_display=use_display)
    write_text_atomic(out / POSITIONS_FILE, csv_text(rows, COLUMNS))
    summary = summarize(rows, agents)
    write_text_atomic(out / SUMMARY_FILE, csv_text(summary, STAT_COLUMNS))
    plot(rows, agents, out / PLOT_FILE,
         f"P.I. solo strategy benchmark: {positions} positions, seed {seed}"
         + (", display" if use_display else ""))
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    from pi_env.agents import make_agent

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=100, help="solo positions (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="seed of position 0 (default 0)")
    ap.add_argument("--agents", default=DEFAULT_AGENTS, help=f"comma-separated (default {DEFAULT_AGENTS})")
    ap.add_argument("--max-actions", type=int, default=200, help="cut-off per game (default 200)")
    ap.add_argument("--display", action="store_true", help="clue queries from the 9-card display only")
    ap.add_argument("--out", default="results/strategy", help="output folder (default results/strategy)")
    args = ap.parse_args(argv)
    names = [a.strip().lower() for a in args.agents.split(",") if a.strip()]
    for n in names:
        make_agent(n)  # unknown names fail here, with the known ones listed
    if args.positions < 1:
        ap.error("--positions must be at least 1")
    summary = run(names, args.positions, args.seed, args.out, max_actions=args.max_actions,
                  use_display=args.display)
    print(f"P.I. solo strategy benchmark: {args.positions} positions (seeds {args.seed}.."
          f"{args.seed + args.positions - 1}), {'display' if args.display else 'open'} clues, "
          f"cut-off {args.max_actions} actions")
    for line in table(summary):
        print(line)
    print("statistics over solved positions; p90 = 90th percentile (linear interpolation)")
    out = Path(args.out)
    print(f"written: {out / POSITIONS_FILE}, {out / SUMMARY_FILE}, {out / PLOT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
