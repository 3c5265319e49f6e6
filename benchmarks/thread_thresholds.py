"""Where threads pay: each batch-kernel family on one thread and threaded, by batch size.

For every family of batch kernels (``pi_env.core._config.PARALLEL_MIN_BATCH`` holds one threshold
per family) this times the one-thread build and the threaded build of the same call, alternating
the two call by call on equal games (so that a change in the machine's load hits both alike), at
batch sizes 16 .. 8192, and prints the ratio ``one thread / threads`` (above 1: threads faster) with
the *break-even* batch size: the smallest measured size from which threads were at least as fast at
every larger size measured. The library's thresholds are these break-even points measured on the
quiet 2-core machine; the last column shows the threshold in force. Families:

* ``step``: :meth:`pi_env.engine.Engine.step` (unchecked; random legal actions, finished games reset
  outside the timing);
* ``sample``: :meth:`~pi_env.engine.Engine.sample_actions` (also the legal-action mask and legality
  kernels, as cheap per game);
* ``init``: :meth:`~pi_env.engine.Engine.reset_games` of every game (new games' setup);
* ``observe``: :meth:`~pi_env.engine.Engine.observe` (the whole ``int16`` observation) and the
  incremental float writer of the flat encoding (:class:`pi_env.engine.writer.ObservationWriter`),
  after a step of every game;
* ``fused``: :func:`pi_env.engine.play`, 20 random turns per game;
* ``selfplay``: a turn of :class:`pi_env.envs.selfplay.SelfPlayVecEnv` (every seat a learner: the
  fused :class:`pi_env.engine.rows.SelfPlayTurn` with the observation and the mask), one table row
  per ``--selfplay-observations`` (default: the flat rows, the integer rows ``packed-int8`` and none):
  the family has one threshold, so it must hold for the cheapest rows, where threads pay latest.

With ``--repeats N`` the whole table is measured ``N`` times (one after another, so that a busy
minute hits one repeat, not every cell of one family): each cell is the median of its ``N`` ratios,
and the break-even column gives the largest of the repeats' break-even points (the threshold that
held in every repeat) with the repeats' own in brackets.

Timings are the median over repeated calls of the per-game time; numba compile time is excluded
(both builds are called once before timing). Figures from a machine busy with other processes
favour one thread (a threaded call waits for its slowest thread); say the load with them.

    python benchmarks/thread_thresholds.py [--players 4] [--seconds 0.4] [--batch 16 32 ... 8192] [--repeats 1]
        [--family selfplay ...] [--selfplay-observations flat packed-int8 none]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from pi_env.core import _config
from pi_env.core.text import format_table
from pi_env.engine import Engine, GameConfig, init, play, policy_streams
from pi_env.engine.observe import observation_size
from pi_env.engine.writer import ObservationWriter, NUM_COMPONENTS

FAMILIES = ("step", "sample", "init", "observe", "fused", "selfplay")


def _timer(config: GameConfig, family: str, batch: int, parallel: bool, seed: int = 0, observations: Any = True):
    """A zero-argument function running one call of ``family`` with the chosen build and returning
    its wall-clock seconds (set-up work outside the timing; ``observations``: the self-play rows)."""
    saved = _config.PARALLEL_MIN_BATCH["sample"]
    if family == "sample" and parallel:  # never threaded by default: lift that for this engine
        _config.PARALLEL_MIN_BATCH["sample"] = 1
    try:
        eng = Engine(config, batch, seed=seed, parallel=parallel)
    finally:
        _config.PARALLEL_MIN_BATCH["sample"] = saved
    rng = np.random.default_rng(seed)
    actions = np.empty(batch, dtype=np.int64)
    if family == "step":
        def run():
            eng.sample_actions(rng, out=actions)
            t = time.perf_counter()
            eng.step(actions, check=False)
            t = time.perf_counter() - t
            eng.reset_done()
            return t
    elif family == "sample":
        mask = np.empty((batch, 1730), dtype=np.int8)

        def run():
            t = time.perf_counter()
            eng.sample_actions(rng, out=actions)
            eng.legal_action_mask(out=mask, solves=False)
            return time.perf_counter() - t
    elif family == "init":
        everyone = np.ones(batch, dtype=bool)

        def run():
            t = time.perf_counter()
            eng.reset_games(everyone)
            return time.perf_counter() - t
    elif family == "observe":
        writer = ObservationWriter(batch, config.num_players, np.ones(NUM_COMPONENTS, dtype=np.float32),
                                   parallel=parallel)
        out = np.empty((batch, observation_size(config.num_players)), dtype=np.int16)
        players = np.zeros(batch, dtype=np.int64)

        def run():
            eng.sample_actions(rng, out=actions)
            eng.step(actions, check=False)
            eng.reset_done()
            np.copyto(players, eng.state.current_player)
            t = time.perf_counter()
            eng.observe(players, out=out)
            writer.write(eng.state, players, check=False)
            return time.perf_counter() - t
    elif family == "fused":
        state = init(config, batch, seed=seed)
        streams = policy_streams(seed, batch)

        def run():
            t = time.perf_counter()
            play(state, config, 20, "random", seed=streams, parallel=parallel)
            return time.perf_counter() - t
    elif family == "selfplay":
        from pi_env.envs.selfplay import SelfPlayVecEnv

        env = SelfPlayVecEnv(batch, config.num_players, parallel=parallel, observations=observations)
        env.reset(seed=seed)

        def run():
            env.sample_actions(rng, out=actions)
            t = time.perf_counter()
            env.step(actions)
            return time.perf_counter() - t
    else:
        raise ValueError(family)
    return run


def measure(config: GameConfig, family: str, batch: int, seconds: float, observations: Any = True) -> tuple[float, float]:
    """(µs per game on one thread, µs per game threaded): medians of alternating calls."""
    runs = {p: _timer(config, family, batch, p, observations=observations) for p in (False, True)}
    for p in runs:  # compile / warm caches
        runs[p]()
    times: dict[bool, list[float]] = {False: [], True: []}
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or len(times[True]) < 5:
        for p in (False, True):
            times[p].append(runs[p]())
    return tuple(float(np.median(times[p])) / batch * 1e6 for p in (False, True))  # type: ignore[return-value]


def break_even(batches: list[int], ratios: list[float], tolerance: float = 1.0) -> "int | None":
    """The smallest batch size from which every ratio (one thread / threads) is ``>= tolerance``."""
    best = None
    for b, r in zip(reversed(batches), reversed(ratios)):
        if r < tolerance:
            break
        best = b
    return best


SELFPLAY_OBSERVATIONS = {"flat": True, "packed": "packed", "packed-int8": "packed-int8", "none": False}
"""``--selfplay-observations`` names and the env's ``observations=``."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=0.4, help="time per batch size and family")
    parser.add_argument("--batch", type=int, nargs="+", default=[16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192])
    parser.add_argument("--family", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--selfplay-observations", nargs="+", default=["flat", "packed-int8", "none"],
                        choices=list(SELFPLAY_OBSERVATIONS), help="the self-play rows measured (one table row each)")
    parser.add_argument("--repeats", type=int, default=1, help="whole tables measured; cells are their medians")
    args = parser.parse_args()
    config = GameConfig(num_players=args.players)
    batches = sorted(args.batch)
    rows = [(fam, None) for fam in args.family if fam != "selfplay"]
    if "selfplay" in args.family:
        rows += [("selfplay", o) for o in args.selfplay_observations]
    with _config.warming_up("thread_thresholds"):  # every family's kernels, both builds, before timing
        for fam, obs in rows:
            measure(config, fam, batches[0], 0.0,
                    **({} if obs is None else {"observations": SELFPLAY_OBSERVATIONS[obs]}))
    load0 = os.getloadavg()[0]
    ratios: dict[tuple, list[list[float]]] = {r: [] for r in rows}
    for _ in range(args.repeats):
        for fam, obs in rows:
            kw = {} if obs is None else {"observations": SELFPLAY_OBSERVATIONS[obs]}
            ratios[fam, obs].append([one / threaded for one, threaded in
                                     (measure(config, fam, b, args.seconds, **kw) for b in batches)])
    body = []
    for fam, obs in rows:
        reps = ratios[fam, obs]
        cells = [float(np.median([r[i] for r in reps])) for i in range(len(batches))]
        evens = [break_even(batches, r) for r in reps]
        worst = "never" if None in evens else str(max(evens))  # type: ignore[type-var]
        if len(reps) > 1:
            worst += " (" + ", ".join("never" if e is None else str(e) for e in evens) + ")"
        name = fam if obs is None else f"{fam} ({obs})"
        body.append((name, *[f"{c:.2f}" for c in cells], worst, str(_config.PARALLEL_MIN_BATCH[fam])))
    load1 = os.getloadavg()[0]
    print(f"{args.players} players, {os.cpu_count()} CPUs, numba threads {_config.numba.get_num_threads()}, "
          f"load average {load0:.1f} at the start, {load1:.1f} at the end; cells: one thread / threads "
          f"(per-game time; above 1: threads faster){'' if args.repeats == 1 else f', medians of {args.repeats} repeats'}")
    print("\n".join(format_table(body, ("family", *[f"B={b}" for b in batches], "break-even", "threshold"),
                                 align="l" + "r" * (len(batches) + 2))))


if __name__ == "__main__":
    main()
