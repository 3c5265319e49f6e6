"""Named rule steps vs one function (issue #13 item 3): nanoseconds per game-step of the step kernel.

The engine's step kernel is split into named rule steps (``pi_env.engine._kernels``: select a clue
card §4.1, place an investigator §4.2, solve §4.3, the duel's decision §7, next seat and end of a
rotation §4–§5, nick of time §6, end of a round §5/§7, the next round's setup §3). The baseline is
the same turn written as one function (:mod:`pi_env.engine.monolith`, frozen), built

* with the named steps' compiler settings (``rule_step``: no reference counting), the baseline of
  the target: the named steps cost no more than 5 % over it;
* with numba's reference counting (``kernel``), how the engine compiled its step before: what the
  reference counting costs.

All three step identical copies of the same games in lockstep, turn by turn (uniformly random
legal actions, one set per turn for all three; finished games reset outside the timing), each
kernel timed around its own call on one thread, the order of the three rotating every turn so
that a busy machine slows them alike; the script checks that the three copies stay equal.
Numba compile time is excluded (a warm-up first).

    python benchmarks/step_kernel_split.py [--players 4] [--batch 4096] [--turns 400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ["PI_ENV_NUMBA_PARALLEL"] = "0"  # one thread for all three (before pi_env is imported)

import numpy as np  # noqa: E402

from pi_env.core.text import format_table  # noqa: E402
from pi_env.engine import GameConfig, init, reset_done, sample_actions, step_inplace  # noqa: E402
from pi_env.engine.monolith import step_monolithic  # noqa: E402


def run(config: GameConfig, batch: int, turns: int, seed: int = 0) -> dict[str, float]:
    """Nanoseconds per game-step of each kernel over ``turns`` turns of ``batch`` games."""
    states = {name: init(config, batch, seed=seed) for name in ("named", "rule_step", "counted")}
    rng = np.random.default_rng(seed)
    actions = np.empty(batch, dtype=np.int64)
    spent = dict.fromkeys(states, 0.0)
    names = list(states)
    for t in range(turns):
        sample_actions(states["named"], rng, out=actions)
        for k in range(3):
            name = names[(t + k) % 3]
            st = states[name]
            t0 = time.thread_time()
            if name == "named":
                step_inplace(st, actions, config, check=False)
            else:
                step_monolithic(st, actions, config, build=name)
            spent[name] += time.thread_time() - t0
        for st in states.values():
            reset_done(st, config)
    first = states["named"]
    for name, st in states.items():
        if not st.equals(first):
            raise SystemExit(f"the {name} kernel played other games than the named steps")
    return {name: s / (turns * batch) * 1e9 for name, s in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--turns", type=int, default=400, help="turns per repeat")
    parser.add_argument("--repeats", type=int, default=3, help="repeats (the best of each kernel is shown)")
    parser.add_argument("--modes", nargs="+", default=["standard", "first", "nick-of-time", "duel"],
                        help="rules measured: standard (second edition), first (edition), nick-of-time, duel")
    args = parser.parse_args()
    configs = {"standard": GameConfig(num_players=args.players),
               "first": GameConfig(num_players=args.players, edition="first"),
               "nick-of-time": GameConfig(num_players=args.players, variants=("nick-of-time",)),
               "duel": GameConfig(mode="duel")}
    load0 = os.getloadavg()[0]
    rows = []
    for mode in args.modes:
        config = configs[mode]
        run(config, 8, 5)  # warm-up: compile outside the measurement
        best: dict[str, float] = {}
        for r in range(args.repeats):
            for name, ns in run(config, args.batch, args.turns, seed=r).items():
                best[name] = min(best.get(name, float("inf")), ns)
        rows.append((f"{mode}, P={config.num_players}", f"{best['named']:.0f}", f"{best['rule_step']:.0f}",
                     f"{best['counted']:.0f}", f"{best['named'] / best['rule_step']:.3f}",
                     f"{best['named'] / best['counted']:.3f}"))
    load1 = os.getloadavg()[0]
    print(f"step kernel, B={args.batch}, one thread, best of {args.repeats} x {args.turns} turns, "
          f"{os.cpu_count()} CPUs, load average {load0:.1f} at the start, {load1:.1f} at the end")
    print("\n".join(format_table(rows, ("rules", "named steps ns", "one function ns",
                                        "one function, ref-counted ns", "named / one function",
                                        "named / ref-counted"), align="lrrrrr")))
    print("target: named / one function <= 1.05 (the same compiler settings)")


if __name__ == "__main__":
    main()
