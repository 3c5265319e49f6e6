"""OpenSpiel's IS-MCTS bot against ``greedy`` on P.I. as an OpenSpiel game.

    python -m pi_env.experiments.ismcts_vs_greedy [--games N] [--players P] [--seed S]
                                                  [--simulations K] [--rollouts R] [--uct-c C]

Game ``i`` is :data:`pi_env.rl.openspiel_game.GAME_NAME` with ``seed = S + i`` (its tile layouts and
first player); its chance nodes (the deal, the display, every draw) are drawn from
``numpy.random.default_rng([S, i])``. The IS-MCTS bot (``open_spiel.python.algorithms.ismcts.ISMCTSBot``,
unchanged: ``K`` simulations per decision, UCT constant ``C``, its world samples from
:meth:`~pi_env.rl.openspiel_game.PiState.resample_from_infostate`, values from
:class:`~pi_env.rl.openspiel_game.RulesRolloutEvaluator` with ``R`` fused rules-of-thumb rollouts,
both seeded by ``S + i``) sits in seat ``i mod P``; every other seat is a ``greedy`` agent (reset
with seed ``10·(S + i) + seat``) acting on the engine observation of its seat. Printed: games, the
bot's and greedy's win rates (a first place shared by k counts 1/k) with 95 % Wilson intervals, and
the bot's mean and maximum decision time.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Sequence

import numpy as np

__all__ = ["play_match", "main"]


def play_match(games: int, players: int, seed: int, simulations: int, rollouts: int = 8,
               uct_c: float = 2.0) -> dict[str, Any]:
    """Play the games (module docstring); returns win shares, intervals and decision times.

    Raises:
        PIError: OpenSpiel missing (:func:`pi_env.rl.openspiel_game.require_openspiel`).
    """
    from pi_env.rl.openspiel_game import GAME_NAME, RulesRolloutEvaluator, require_openspiel

    require_openspiel()
    import pyspiel
    from open_spiel.python.algorithms import ismcts

    from pi_env.agents import make_agent
    from pi_env.apps.tournament import win_interval
    from pi_env.engine import legal_action_mask

    bot_wins, greedy_wins, times = 0.0, 0.0, []
    for i in range(games):
        g = pyspiel.load_game(GAME_NAME, {"players": players, "seed": seed + i})
        state = g.new_initial_state()
        rng = np.random.default_rng([seed, i])
        seat = i % players
        bot = ismcts.ISMCTSBot(g, RulesRolloutEvaluator(rollouts, seed=seed + i), uct_c=uct_c,
                               max_simulations=simulations, random_state=np.random.RandomState(seed + i))
        greedy = {}
        for p in range(players):
            if p != seat:
                greedy[p] = make_agent("greedy")
                greedy[p].reset(players, seed=10 * (seed + i) + p)
        while not state.is_terminal():
            if state.is_chance_node():
                outs = state.chance_outcomes()
                state.apply_action(outs[int(rng.integers(len(outs)))][0])
                continue
            p = state.current_player()
            if p == seat:
                t0 = time.perf_counter()
                action = int(bot.step(state))
                times.append(time.perf_counter() - t0)
            else:
                action = greedy[p].act(state.engine_observation(p), legal_action_mask(state._st)[0])
            state.apply_action(action)
        r = state.returns()
        bot_wins += r[seat]
        greedy_wins += sum(r) - r[seat]
    lo, hi = win_interval(bot_wins, games)
    glo, ghi = win_interval(greedy_wins, games * (players - 1))
    return {"games": games, "players": players, "seed": seed, "simulations": simulations, "rollouts": rollouts,
            "bot_win_rate": bot_wins / games, "bot_ci": (lo, hi),
            "greedy_win_rate": greedy_wins / (games * (players - 1)), "greedy_ci": (glo, ghi),
            "mean_decision_ms": 1000 * float(np.mean(times)) if times else 0.0,
            "max_decision_ms": 1000 * float(np.max(times)) if times else 0.0}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=9101)
    ap.add_argument("--simulations", type=int, default=20)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--uct-c", type=float, default=2.0)
    args = ap.parse_args(argv)
    res = play_match(args.games, args.players, args.seed, args.simulations, args.rollouts, args.uct_c)
    print(f"IS-MCTS ({res['simulations']} simulations, {res['rollouts']} rules rollouts each) vs greedy, "
          f"{res['games']} games, {res['players']} players, seeds {args.seed}..{args.seed + args.games - 1}")
    print(f"  IS-MCTS win rate {100 * res['bot_win_rate']:.1f}% "
          f"({100 * res['bot_ci'][0]:.1f}..{100 * res['bot_ci'][1]:.1f}%)")
    print(f"  greedy  win rate {100 * res['greedy_win_rate']:.1f}% "
          f"({100 * res['greedy_ci'][0]:.1f}..{100 * res['greedy_ci'][1]:.1f}%)")
    print(f"  IS-MCTS decision time: mean {res['mean_decision_ms']:.0f} ms, max {res['max_decision_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
