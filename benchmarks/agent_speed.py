"""Decision time of the built-in agents: milliseconds per decision, per agent.

    python benchmarks/agent_speed.py [--positions N] [--players P] [--seed S] [--agents a,b,..] [--round R]

Positions: every turn of standard self-play games (``--players`` seats, each seat ``greedy`` or
``heuristic`` with equal probability, engine seeds drawn from ``--seed``) until ``--positions``
observations with their legal-action masks are collected (a random sample of the turns, so early,
middle and late positions of a round all occur). Every agent decides on the same positions: a fresh
``make_agent(name)`` (default settings, e.g. the ``search`` agent's default time budget), reset with
seed ``i`` before position ``i``, is timed around one :meth:`~pi_env.agents.base.Agent.act` call with
:func:`time.perf_counter`. Numba compile time is excluded: each agent first decides, unmeasured, on
the first position of each round in the sample (an agent that simulates only in the last round
compiles or loads its kernels there).

Printed: per agent the median, 90th percentile and maximum decision time in milliseconds and the
ratio of its median to the ``random`` agent's (the cost of the interface alone). Targets:
``greedy`` median <= 50 ms; ``search`` within its time budget.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from pi_env.core._config import warming_up
from pi_env.core.text import format_table
from pi_env.engine import GameConfig, legal_action_mask

TARGET_GREEDY_MS = 50.0


def collect_positions(players: int, count: int, seed: int,
                      round_index: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` (observation, mask) pairs sampled from self-play turns (module docstring); with
    ``round_index`` (0-based) only turns of that round."""
    from pi_env.agents import make_agent

    from pi_env.agents.runner import play_game

    rng = np.random.default_rng(seed)
    config = GameConfig(num_players=players)
    pool: list[tuple[np.ndarray, np.ndarray]] = []

    def collect(state, p, obs, agent) -> None:
        if round_index is None or int(state.round[0]) == round_index:
            pool.append((obs, legal_action_mask(state)[0]))

    while len(pool) < 4 * count:
        game_seed = int(rng.integers(2**31))
        agents = [make_agent("greedy" if rng.random() < 0.5 else "heuristic") for _ in range(players)]
        play_game(config, agents, game_seed, before_step=collect)
    pick = rng.choice(len(pool), size=count, replace=False)
    return [pool[i] for i in sorted(pick)]


def warm_positions(positions: list[tuple[np.ndarray, np.ndarray]],
                   players: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The positions an agent first decides on, unmeasured: the first position of each round in
    ``positions`` (``winprob`` and ``winrollout`` run their simulation, and its kernels, only in the
    last round)."""
    from pi_env.engine.observe import decode_observation

    first: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for obs, mask in positions:
        first.setdefault(int(decode_observation(obs, players)["round"][0]), (obs, mask))
    return [first[r] for r in sorted(first)]


def time_agent(name: str, positions: list[tuple[np.ndarray, np.ndarray]], players: int) -> np.ndarray:
    """Decision times (seconds) of a fresh agent ``name`` on each position."""
    from pi_env.agents import make_agent

    config = GameConfig(num_players=players)
    with warming_up(f"agent_speed {name}"):
        for obs, mask in warm_positions(positions, players):  # compile numba kernels outside the measurement
            warm = make_agent(name)
            warm.reset(players, config.board, seed=0)
            warm.act(obs, mask)
    times = np.empty(len(positions))
    for i, (obs, mask) in enumerate(positions):
        agent = make_agent(name)
        agent.reset(players, config.board, seed=i)
        t = time.perf_counter()
        agent.act(obs, mask)
        times[i] = time.perf_counter() - t
    return times


def main(argv: list[str] | None = None) -> int:
    from pi_env.agents import AGENTS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200, help="positions (default 200)")
    ap.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--agents", default=",".join(AGENTS), help="comma-separated (default: all)")
    ap.add_argument("--round", type=int, default=None, choices=(1, 2, 3),
                    help="only positions of this round (default: all; winprob searches in round 3)")
    args = ap.parse_args(argv)
    names = [a.strip().lower() for a in args.agents.split(",") if a.strip()]
    if "random" not in names:
        names.insert(0, "random")  # the baseline
    positions = collect_positions(args.players, args.positions, args.seed,
                                  None if args.round is None else args.round - 1)
    where = "" if args.round is None else f", round {args.round} only"
    print(f"P.I. agent decision time: {len(positions)} self-play positions{where}, {args.players} players, "
          f"seed {args.seed}")
    rows = []
    for n in names:
        t = 1000 * time_agent(n, positions, args.players)
        rows.append((n, float(np.median(t)), float(np.percentile(t, 90)), float(np.percentile(t, 95)),
                     float(t.max())))
    base = next(r[1] for r in rows if r[0] == "random")
    head = ("agent", "median ms", "p90 ms", "p95 ms", "max ms", "median / random")
    body = [(n, f"{m:.3f}", f"{p:.3f}", f"{q:.3f}", f"{x:.3f}", f"{m / base:.0f}x") for n, m, p, q, x in rows]
    print("\n".join(format_table(body, head, align="lrrrrr")))
    for n, m, p, q, x in rows:
        if n == "greedy":
            print(f"greedy median {m:.1f} ms: {'meets' if m <= TARGET_GREEDY_MS else 'MISSES'} the "
                  f"{TARGET_GREEDY_MS:.0f} ms target")
        if n == "search":
            from pi_env.agents.search import DEFAULT_BUDGET_MS
            print(f"search max {x:.1f} ms against its default budget of {DEFAULT_BUDGET_MS:.0f} ms: "
                  f"{'within' if x <= DEFAULT_BUDGET_MS else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
