"""Self-play throughput: agent-steps per second of :class:`pi_env.envs.selfplay.SelfPlayVecEnv`.

Rows, all measured in this run (numba compile time excluded by a warm-up):

* (a) the baseline: a Python loop over ``--baseline-envs`` single PettingZoo ``raw_env`` games, one
  agent-step of each per pass (``last()``, a uniformly random legal action from the mask,
  ``step``; a finished game is reset), i.e. what a loop of single envs costs per agent-step;
* (b) the bare batched engine (``sample_actions`` + ``step_inplace`` + ``reset_done``), no
  observation: the ceiling;
* (c) ``SelfPlayVecEnv`` at each of ``--batch`` games (default 256, 1024, 4096), every seat the
  learner, observations in the **flat** encoding (``float32[B, 618 + 1912·P]``, 4,442 floats per
  row for 2 players: the env's default encoding) and masks returned every call, uniformly
  random legal actions from the engine's sample kernel (``env.sample_actions``): no Python loop per
  game; each turn is one fused numba call (:class:`pi_env.engine.rows.SelfPlayTurn`: step, new
  games, next rows, observation and mask). Three builds, measured in interleaved slices (the median of their rates): one
  thread (``parallel=False``), threads (``parallel=True``) and the default for that batch size
  (``parallel=None``); ``default / 1`` is the never-slower check. Also (c1) the same env with
  ``observations="packed"`` (the packed encoding of :mod:`pi_env.engine.packed`, ``float32[B, 150 +
  269·P]``, 688 floats per row for 2 players, written by the same fused call), (c2) with
  ``observations="packed-int8"`` (the same rows before their scales, their 0/1 and 0..3 entries in
  bit fields, ``int8[B, 78 + 105·P]``: 288 bytes for 2 players; the learner converts them,
  :mod:`pi_env.rl.packed_int`) and (c0) with
  ``observations=False`` (rows and masks only: what an encoding costs); ``vs flat`` is the
  default build's rate over that of the flat rows at the same batch size, measured in the same
  slices. Targets on the 2-core machine: >= 500,000 agent-steps/s at B = 4096,
  >= 2,000,000 with observations and masks;
* (d) the same with the solver-augmented encoding (``SolverFeaturesVecEnv``: the exact posterior,
  :func:`pi_env.solvers.own_info.joint_features`, in batch) at ``--solver-batch`` games and a policy that mostly queries (so positions
  look like real play); its cost per row is printed;
* (e) one learner seat against a fixed ``random`` agent (the agents act in a Python loop over games).

An *agent-step* is one row: a seat's turn, or the terminal row that tells a seat its last reward
(the AEC loop of (a) counts the matching dead steps the same way). ``turns/s`` counts only the rows
that applied an action.

The compact encodings of the learned agents (``pi_env.solvers.compact``, a few hundred floats of
posteriors and gains) are not encodings of this env (they belong to the solver layer and are
computed per row by the solver, some 30,000 rows/s: ``benchmarks/own_info_speed.py`` and
``benchmarks/rl_training_speed.py`` measure them), so they have no row here.

    python benchmarks/selfplay_throughput.py [--players 2] [--batch 256 1024 4096] [--seconds 3] [--rounds 7]
        [--observations flat packed packed-int8 none] [--only-selfplay]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from pi_env.core.constants import NUM_CASES, SOLVE_BASE
from pi_env.rl.solver_features_env import SolverFeaturesVecEnv
from pi_env.engine import GameConfig, init, legal_action_mask, reset_done, sample_actions, step_inplace
from pi_env.envs.selfplay import SelfPlayVecEnv
from pi_env.core._config import threaded_by_default, warming_up
from pi_env.agents import RandomAgent
from pi_env.core.text import format_table


def default_threaded(batch: int) -> bool:
    """Whether the env's default (``parallel=None``) runs the fused turn threaded at ``batch`` games."""
    return threaded_by_default("selfplay", batch)


def bench_baseline(players: int, n_envs: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(agent-steps/s, per CPU second) of a Python loop over ``n_envs`` single ``raw_env`` games."""
    from pi_env.envs.aec import raw_env

    envs = [raw_env(num_players=players) for _ in range(n_envs)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    steps = 0
    games = n_envs
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        for e in envs:
            if not e.agents:
                e.reset(seed=seed + games)
                games += 1
            obs, reward, termination, truncation, info = e.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            e.step(action)
            steps += 1
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def bench_engine(players: int, batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    config = GameConfig(num_players=players)
    state = init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    actions = np.empty(batch, dtype=np.int64)
    steps = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            sample_actions(state, rng, out=actions)
            step_inplace(state, actions, config, check=False)
            reset_done(state, config)
        steps += 10 * batch
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def bench_env(env, seconds: float, policy=None) -> tuple[float, float, float, float]:
    """(rows/s, turns/s, seconds per call, rows per CPU second) of ``env`` with
    ``policy(env) -> actions``."""
    B = env.num_envs
    actions = np.empty(B, dtype=np.int64)
    env.reset(seed=0)
    rows = turns = calls = 0
    terminal = np.zeros(B, dtype=bool)
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        for _ in range(5):
            a = env.sample_actions(out=actions) if policy is None else policy(env)
            _, _, term, trunc, _ = env.step(a)
            turns += B - int(terminal.sum())
            terminal = term | trunc
            calls += 1
        rows = calls * B
        elapsed = time.perf_counter() - t0
        if elapsed > seconds:
            return rows / elapsed, turns / elapsed, elapsed / calls, rows / (time.process_time() - c0)


ENCODINGS = ((True, "(c) flat obs + masks"), ("packed", "(c1) packed obs + masks"),
             ("packed-int8", "(c2) packed int8 obs + masks"), (False, "(c0) no obs, masks"))
"""The ``observations=`` of the env measured, with their row labels."""


def bench_builds(players: int, batch: int, seconds: float, observations=(True, "packed", "packed-int8", False),
                 rounds: int = 7, warm_calls: int = 3) -> dict[tuple, tuple[float, float, float]]:
    """``{(observations, parallel): (rows/s, rows per CPU second, spread)}`` of ``SelfPlayVecEnv``
    with random legal actions, for each ``observations`` and one thread (``False``), threads
    (``True``) and the default (``None``).

    Every configuration is measured in ``rounds`` slices of ``seconds / rounds`` each, interleaved:
    each round visits every configuration once, in a new seeded random order (so no configuration
    always follows the same one); each slice starts with ``warm_calls`` untimed calls
    (the thread pool awake, the env's arrays back in cache after the other envs' slices). The
    rate is the **median** of the slices' rates, the CPU rate the median of theirs, and the spread
    ``(max - min) / median`` of the slices' rates: on a machine other processes load, a threaded
    slice that shares a core with them is slowed far more than a one-thread slice, and a total over
    a few slices let one such slice decide a column. The default is not always one of the other
    two builds: every kernel family has its own threshold (``pi_env.core._config.PARALLEL_MIN_BATCH``),
    so at B = 1024 the default threads the fused turn (``selfplay`` from 1,024) but samples the
    actions on one thread (``sample`` from 4,096), while ``parallel=True`` threads both; this, not
    noise, is why the "threads" and "default" columns differed by 26% at B = 1024 in the quiet
    runs of 2026-12-02 and agree at B = 4096 and (with one thread) at B = 256."""
    envs = {(o, p): SelfPlayVecEnv(batch, num_players=players, parallel=p, observations=o)
            for o in observations for p in (False, True, None)}
    keys = list(envs)
    actions = np.empty(batch, dtype=np.int64)
    rates: dict[tuple, list[float]] = {k: [] for k in keys}
    cpu_rates: dict[tuple, list[float]] = {k: [] for k in keys}
    for env in envs.values():
        env.reset(seed=0)
        env.step(env.sample_actions(out=actions))  # warm
    order = np.random.default_rng(batch)
    for _ in range(rounds):
        for i in order.permutation(len(keys)):
            k = keys[i]
            env = envs[k]
            for _ in range(warm_calls):
                env.step(env.sample_actions(out=actions))
            calls = 0
            t0, c0 = time.perf_counter(), time.process_time()
            while time.perf_counter() - t0 < seconds / rounds:
                for _ in range(5):
                    env.step(env.sample_actions(out=actions))
                calls += 5
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            rates[k].append(calls * batch / wall)
            cpu_rates[k].append(calls * batch / max(cpu, 1e-9))
    out = {}
    for k in keys:
        med = float(np.median(rates[k]))
        out[k] = (med, float(np.median(cpu_rates[k])), (max(rates[k]) - min(rates[k])) / med)
    return out


def querying_policy(env) -> np.ndarray:
    """Mostly clues and investigators (uniform among the legal ones), a random solve 1 time in 20."""
    rng = env.np_random
    mask = legal_action_mask(env.state)
    out = np.empty(env.num_envs, dtype=np.int64)
    for b in range(env.num_envs):
        queries = np.flatnonzero(mask[b, :SOLVE_BASE])
        if queries.size and rng.random() > 0.05:
            out[b] = queries[rng.integers(queries.size)]
        else:
            out[b] = SOLVE_BASE + rng.integers(NUM_CASES)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--baseline-envs", type=int, default=256,
                        help="single raw_env games in the baseline loop (its cost per agent-step does "
                             "not depend on how many)")
    parser.add_argument("--solver-batch", type=int, default=64)
    parser.add_argument("--opponent-batch", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=7,
                        help="interleaved slices per measurement (the rate is their median)")
    parser.add_argument("--observations", nargs="+", choices=("flat", "packed", "packed-int8", "none"),
                        default=["flat", "packed", "packed-int8", "none"],
                        help="the self-play rows measured (default all: (c), (c1), (c2), (c0))")
    parser.add_argument("--only-selfplay", action="store_true",
                        help="only the baseline (a) and the SelfPlayVecEnv table (no (b), (d), (e))")
    args = parser.parse_args()
    P, B = args.players, max(args.batch)
    with warming_up("selfplay_throughput"):  # compile every kernel outside the measurements
        bench_engine(P, 300, 0.05)
        for parallel in (False, True):
            for observations, _ in ENCODINGS:  # every kernel, measured or not (a few ms each once cached)
                bench_env(SelfPlayVecEnv(4, num_players=P, parallel=parallel, observations=observations), 0.02)
        bench_baseline(P, 2, 0.05)

    nan = float("nan")
    rows = []
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else nan
    base, base_cpu = bench_baseline(P, args.baseline_envs, args.seconds)
    rows.append((f"(a) loop of {args.baseline_envs} PettingZoo raw_env", base, nan, nan, base_cpu))
    if not args.only_selfplay:
        eng, eng_cpu = bench_engine(P, B, args.seconds)
        rows.append((f"(b) bare engine B={B}, no observations", eng, nan, nan, eng_cpu))
    builds = []
    names = {True: "flat", "packed": "packed", "packed-int8": "packed-int8", False: "none"}
    encodings = [(o, label) for o, label in ENCODINGS if names[o] in args.observations]
    kinds = [o for o, _ in encodings]
    for b in sorted(args.batch):
        res = bench_builds(P, b, args.seconds, kinds, args.rounds)
        for observations, label in encodings:
            one, many, default = (res[observations, p][0] for p in (False, True, None))
            spread = max(res[observations, p][2] for p in (False, True, None))
            turn, sample = default_threaded(b), threaded_by_default("sample", b)
            chosen = ("threads" if turn and sample else "turn threaded" if turn
                      else "sampling threaded" if sample else "1 thread")
            builds.append((f"{label} B={b}", f"{one:,.0f}", f"{res[observations, False][1]:,.0f}", f"{many:,.0f}",
                           f"{many / one:.2f}", f"{default:,.0f} ({chosen})", f"{default / one:.2f}",
                           f"{default / res[True, None][0]:.2f}" if (True, None) in res else "",
                           f"{max(one, many, default) / base:.1f}",
                           f"{100 * spread:.0f}%"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else nan
    print(f"{P} players, {args.seconds:g} s per row (and per build: the median of {args.rounds} interleaved slices), "
          f"{os.cpu_count()} CPUs, load average {load0:.1f} at the start, {load:.1f} after the self-play table; "
          "agent-steps = rows returned (turns + terminal rows)")
    print("SelfPlayVecEnv, every seat a learner, random legal actions (agent-steps/s; flat encoding: "
          f"float32[B, {618 + 1912 * P}], packed: float32[B, {150 + 269 * P}], packed int8: int8[B, {78 + 105 * P}]):")
    print("\n".join(format_table(builds, ("configuration", "1 thread", "per CPU-s", "threads", "threads / 1",
                                          "default (build chosen)", "default / 1", "vs flat", "best vs (a)",
                                          "spread"),
                                 align="lrrrrrrrrr")))
    print("spread: the largest (max - min) / median of the slices' rates among the row's three builds; "
          "'turn threaded': the default threads the fused turn but samples the actions on one thread "
          "(its own threshold), unlike the threads column, which threads both")
    print(f"(a) baseline: a loop of {args.baseline_envs} PettingZoo raw_env: {base:,.0f} agent-steps/s")
    if args.only_selfplay:
        return
    sb = args.solver_batch
    wrapped = SolverFeaturesVecEnv(SelfPlayVecEnv(sb, num_players=P))
    bench_env(wrapped, 0.05, querying_policy)
    plain = SelfPlayVecEnv(sb, num_players=P)
    plain_row = bench_env(plain, args.seconds, querying_policy)
    solver_row = bench_env(wrapped, args.seconds, querying_policy)
    rows.append((f"    SelfPlayVecEnv B={sb}, flat, querying policy", *plain_row))
    rows.append((f"(d) + solver features B={sb}, querying policy", *solver_row))
    ob = args.opponent_batch
    opp = SelfPlayVecEnv(ob, num_players=P, opponents=[RandomAgent()] * (P - 1))
    bench_env(opp, 0.05)
    rows.append((f"(e) learner vs random agents B={ob}", *bench_env(opp, args.seconds)))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else nan
    print(f"Other rows (load average {load:.1f} at the end):")
    body = [(name, f"{sps:,.0f}", "" if np.isnan(tps) else f"{tps:,.0f}",
             "" if np.isnan(call) else f"{call * 1e3:.2f}", f"{sps / base:.1f}", f"{cpu:,.0f}")
            for name, sps, tps, call, cpu in rows]
    print("\n".join(format_table(body, ("configuration", "agent-steps/s", "turns/s", "ms/call", "vs (a)",
                                        "per CPU-s"), align="lrrrrr")))
    per_row = (solver_row[2] - plain_row[2]) / sb
    print(f"solver features cost {per_row * 1e3:.2f} ms per row ({1 / per_row:,.0f} rows/s for the "
          f"solver alone) on top of the flat encoding")
    print("per CPU-s: agent-steps per second of CPU time of this process (all its threads): the rate "
          "of one free core when other processes load the machine")


if __name__ == "__main__":
    main()
