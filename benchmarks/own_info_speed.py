"""Own-information features at batch speed (what a player deduces, as RL observation features): rows per second of
:mod:`pi_env.solvers.own_info` against the per-row solver path it replaces, in the same process.

Positions: ``--batch`` games per player count played by a query-heavy policy (a random legal clue or
investigator; a solve from the player's own case set when at most 2 cases are left or, now and then,
at random), ``--steps`` steps with finished games restarted, so the batch mixes every stage of a
round. Solo: the same for Solo Time Attack games (open mode). Rows, per player count:

* baseline ``per-row joint`` — what ``pi_env.solvers.features.solver_features`` did per row before
  this module: :func:`pi_env.solvers.knowledge_from_observation` then
  :func:`pi_env.solvers.analyze_knowledge` (on ``--baseline-rows`` rows);
* baseline ``per-row own filter`` — the solver's own-information filter per row:
  :func:`~pi_env.solvers.knowledge_from_observation` then :func:`pi_env.solvers.case_bits` and numpy
  marginals (what the agents did);
* ``own_features`` (the 38 features from the engine state) threaded and serial, with the case set
  as a mask, with the 50 query gains; ``observation_features`` from engine observations (their
  ``observe`` cost excluded); ``joint_features`` (exact posterior: numba for 2–4 players; at 5 players
  the counts of one numba call, then numpy sums per row);
* the compact observation encoding (:func:`pi_env.solvers.compact.encode_compact`: own features,
  query gains, public sets of every seat) threaded and serial, beside the flat encoding
  (:func:`pi_env.envs.encoders.encode_flat`, stateless) it replaces for learning; the joint block
  that ``compact-v2`` appends (:func:`pi_env.solvers.compact.encode_joint_block`: the joint posterior,
  one numba call for 2–4 players, at 5 players the counts of one numba call then numpy sums,
  measured on ``--joint-rows`` rows as when it was one Python joint count per row;
  ``benchmarks/encoding_speed.py`` measures it against the per-row path it replaced at 3,
  ``benchmarks/joint5_speed.py`` the 5-player counts);
* solo: ``solo_features``, with gains, and :func:`pi_env.solvers.compact.encode_solo_compact`.

A second table (with 4 in ``--players``; alone with ``--joint4-only``): ``joint_features`` at 4
players by stage — the deal (every set largest: the worst case of the numba count, whose cost grows
with the sets' sizes), and after ``--joint4-steps`` steps of the policy — numba (the whole batch)
against the path it replaced, measured in the same run: the sets from one numba call and one
:func:`pi_env.solvers.joint.count_joint` per row (on ``--joint-rows`` rows), with the mean size of
the asking player's set.

Target: >= 100,000 rows/s for ``own_features`` (2 players, B = 4096). The numba compile is done before
timing: every position is built and every measured call made once in one warm-up block, announced
on stderr (:func:`pi_env.core._config.warming_up`, as the other benchmarks; every player count's
positions are then held at once, about 0.8 GB at B = 4096). Speeds measured while other processes
use the cores are lower (say so when quoting them).

    python benchmarks/own_info_speed.py [--players 2 3 4 5] [--batch 4096] [--seconds 2]
    python benchmarks/own_info_speed.py --joint4-only [--joint4-steps 0 12 30 60]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from pi_env.core._config import warming_up
from pi_env.core.constants import NUM_CASES, SOLVE_BASE
from pi_env.engine import GameConfig, init, legal_action_mask, observe, reset_done, step_inplace
from pi_env.engine import solo as S
from pi_env.solvers import analyze_knowledge, case_bits, knowledge_from_observation
from pi_env.envs.encoders import encode_flat, flat_size
from pi_env.solvers.compact import (JOINT_BLOCK_SIZE, SOLO_COMPACT_SIZE, compact_size, encode_compact,
                                   encode_joint_block, encode_solo_compact)
from pi_env.solvers.own_info import (JOINT_FEATURES, OWN_FEATURES, QUERY_GAINS, _per_row_joint_features,
                                     joint_features, observation_features, own_features, seat_case_masks,
                                     solo_features)
from pi_env.solvers.tables import from_bitset


def positions(config: GameConfig, batch: int, steps: int, seed: int, solve_rate: float = 0.02):
    """A batch of positions (state, player to move) after ``steps`` steps of a query-heavy policy
    (a random legal query; a random case of the player's set with probability ``solve_rate``, or
    when at most 2 cases are left)."""
    state = init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    mask = np.empty((batch, NUM_CASES), dtype=bool)
    for _ in range(steps):
        players = state.current_player.astype(np.int64)
        f = own_features(state, config.board, players, mask=mask)
        legal = legal_action_mask(state)
        query = np.argmax(rng.random((batch, SOLVE_BASE)) * legal[:, :SOLVE_BASE], axis=1)
        guess = SOLVE_BASE + np.argmax(rng.random((batch, NUM_CASES)) * mask, axis=1)
        few = f[:, 37] >= 0.5  # at most 2 cases left
        step_inplace(state, np.where(few | (rng.random(batch) < solve_rate), guess, query), config)
        reset_done(state, config)
    return state, state.current_player.astype(np.int64)


def solo_positions(batch: int, steps: int, seed: int):
    config = S.SoloConfig()
    state = S.init(config, batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = S.legal_action_mask(state)
        acts = np.argmax(rng.random((batch, SOLVE_BASE)) * legal[:, :SOLVE_BASE], axis=1)
        solve = rng.random(batch) < 0.05
        acts[solve] = SOLVE_BASE + rng.integers(NUM_CASES, size=int(solve.sum()))
        S.step_inplace(state, acts, config)
        S.reset_games(state, config, state.done)
    return config, state


def rate(fn, rows: int, seconds: float) -> tuple[float, float]:
    """``(rows per second, rows per CPU second)`` of ``fn`` (called once untimed first: compile
    and caches). The CPU figure counts every thread of this process; on a shared machine it shows
    what the work costs when the wall-clock figure is held down by other processes."""
    fn()
    t0, c0 = time.perf_counter(), time.process_time()
    calls = 0
    while True:
        fn()
        calls += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return rows * calls / dt, rows * calls / max(time.process_time() - c0, 1e-9)


def per_row_joint(obs: np.ndarray, P: int, config: GameConfig, players: np.ndarray) -> None:
    for b in range(obs.shape[0]):
        analyze_knowledge(knowledge_from_observation(obs[b], P, config.board, player=int(players[b])), strict=False)


def per_row_own(obs: np.ndarray, P: int, config: GameConfig, players: np.ndarray) -> None:
    out = np.zeros((obs.shape[0], OWN_FEATURES))
    for b in range(obs.shape[0]):
        k = knowledge_from_observation(obs[b], P, config.board, player=int(players[b]))
        m = from_bitset(case_bits(k)[k.player]).reshape(12, 10, 14)
        n = max(int(m.sum()), 1)
        out[b, :12] = m.sum(axis=(1, 2)) / n
        out[b, 12:22] = m.sum(axis=(0, 2)) / n
        out[b, 22:36] = m.sum(axis=(0, 1)) / n


def player_rows(P: int, args: argparse.Namespace) -> list[tuple[str, object, int]]:
    """The measured rows of ``P`` players, ``(name, fn, rows per call)`` in table order, with their
    positions and buffers built (the first two are the per-row baselines)."""
    B = args.batch
    config = GameConfig(num_players=P)
    state, players = positions(config, B, args.steps, args.seed + P)
    obs = np.stack([observe(state.take(b), int(players[b]))[0] for b in range(B)])
    n = min(args.baseline_rows, B)
    rows: list[tuple[str, object, int]] = [
        ("baseline: per-row joint (solver_features)", lambda: per_row_joint(obs[:n], P, config, players[:n]), n),
        ("baseline: per-row own filter (case_bits)", lambda: per_row_own(obs[:n], P, config, players[:n]), n)]
    feat = np.empty((B, OWN_FEATURES), dtype=np.float32)
    mask = np.empty((B, NUM_CASES), dtype=bool)
    gains = np.empty((B, QUERY_GAINS), dtype=np.float32)
    for par, tag in ((None, "threaded"), (False, "serial")):
        rows.append((f"own_features ({tag})",
                     lambda par=par: own_features(state, config.board, players, out=feat, parallel=par), B))
    rows.append(("own_features + case-set mask", lambda: own_features(state, config.board, players, out=feat, mask=mask), B))
    rows.append(("own_features + query gains", lambda: own_features(state, config.board, players, out=feat, gains=gains), B))
    rows.append(("observation_features", lambda: observation_features(obs, P, config.board, out=feat), B))
    flat = np.zeros((B, flat_size(P)), dtype=np.float32)
    rows.append((f"encode_flat ({flat_size(P)} floats, for comparison)",
                 lambda: encode_flat(state, config, players, out=flat), B))
    compact = np.empty((B, compact_size(P)), dtype=np.float32)
    for par, tag in ((None, "threaded"), (False, "serial")):
        rows.append((f"encode_compact ({compact_size(P)} floats, {tag})",
                     lambda par=par: encode_compact(state, config, players, out=compact, parallel=par), B))
    jout = np.empty((B, JOINT_FEATURES), dtype=np.float32)
    rows.append(("joint_features (numba)" if P <= 4 else "joint_features (numba counts, numpy sums per row)",
                 lambda: joint_features(state, config.board, players, out=jout), B))
    m2 = B if P <= 4 else min(args.joint_rows, B)
    sub2 = state.take(np.arange(m2))
    block = np.empty((m2, JOINT_BLOCK_SIZE), dtype=np.float32)
    rows.append((f"encode_joint_block ({JOINT_BLOCK_SIZE} floats of compact-v2)",
                 lambda: encode_joint_block(sub2, config, players[:m2], out=block), m2))
    return rows


def joint4_rows(args: argparse.Namespace) -> list[tuple[str, int, float, object, int, object, int]]:
    """Per stage of 4-player games: ``(stage, steps, mean own-set size, numba fn, rows, old-path fn,
    rows)`` (module docstring, second table)."""
    B = args.batch
    config = GameConfig(num_players=4)
    out = []
    for steps in args.joint4_steps:
        state, players = positions(config, B, steps, args.seed + 4)
        _, sizes = seat_case_masks(state, config.board, players)
        m = min(args.joint_rows, B)
        sub = state.take(np.arange(m))
        jout = np.empty((B, JOINT_FEATURES), dtype=np.float32)
        jsub = np.empty((m, JOINT_FEATURES), dtype=np.float32)
        stage = "deal (worst case)" if steps == 0 else f"after {steps} steps"
        out.append((stage, steps, float(sizes[:, 0].mean()),
                    lambda state=state, players=players, jout=jout: joint_features(state, config.board, players,
                                                                                   out=jout), B,
                    lambda sub=sub, players=players, jsub=jsub, m=m: _per_row_joint_features(
                        sub, config.board, players[:m], jsub, np.arange(m)), m))
    return out


def solo_rows(args: argparse.Namespace) -> list[tuple[str, object, int]]:
    """The measured solo rows, as :func:`player_rows`."""
    B = args.batch
    config, solo = solo_positions(B, args.steps // 3, args.seed)
    feat = np.empty((B, OWN_FEATURES), dtype=np.float32)
    gains = np.empty((B, QUERY_GAINS), dtype=np.float32)
    compact = np.empty((B, SOLO_COMPACT_SIZE), dtype=np.float32)
    return [("solo_features", lambda: solo_features(solo, config.board, out=feat), B),
            ("solo_features + query gains", lambda: solo_features(solo, config.board, out=feat, gains=gains), B),
            (f"encode_solo_compact ({SOLO_COMPACT_SIZE} floats)", lambda: encode_solo_compact(solo, config, out=compact), B)]


def main(argv: "list[str] | None" = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=60, help="policy steps before measuring (stage mix)")
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--baseline-rows", type=int, default=200)
    ap.add_argument("--joint-rows", type=int, default=200, help="rows for the per-row joint count (4-5 players)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--joint4-steps", type=int, nargs="+", default=[0, 12, 30, 60],
                    help="policy steps of the 4-player joint_features stages (0: the deal)")
    ap.add_argument("--joint4-only", action="store_true", help="only the 4-player joint_features table")
    args = ap.parse_args(argv)
    B = args.batch
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"own-information features, B = {B}, {os.cpu_count()} cores, load average {load:.1f} at start")
    # every position built and every measured call made once (serial and threaded builds, the
    # solver's kernels of the baselines) before any timing, under the shared warm-up notice
    with warming_up("own_info_speed"):
        tables = ([] if args.joint4_only else
                  [(P, player_rows(P, args)) for P in args.players] + [("solo", solo_rows(args))])
        stages = joint4_rows(args) if (4 in args.players or args.joint4_only) else []
        for _, rows in tables:
            for _, fn, _ in rows:
                fn()  # type: ignore[operator]
        for *_, fn_new, _, fn_old, _ in stages:
            fn_new()  # type: ignore[operator]
            fn_old()  # type: ignore[operator]
    head = (f"{'players':>7}  {'row':<46} {'rows/s':>11} {'us/row':>8} {'rows/CPU-s':>11} "
            f"{'x per-row own':>14} {'x per-row joint':>16}")
    if tables:
        print(head)
        print("-" * len(head))

    def line(P, name, r, base_own, base_joint):
        """One table row; ratios are of wall-clock rates measured in this run."""
        (r, cpu) = r
        own = f"{r / base_own[0]:14.0f}" if base_own else " " * 14
        joint = f"{r / base_joint[0]:16.0f}" if base_joint else " " * 16
        print(f"{P:>7}  {name:<46} {r:11,.0f} {1e6 / r:8.2f} {cpu:11,.0f} {own} {joint}", flush=True)

    for P, rows in tables:
        base_own = base_joint = None
        if P != "solo":  # the two per-row baselines first, then the rows against them
            base_joint = rate(rows[0][1], rows[0][2], args.seconds)  # type: ignore[arg-type]
            base_own = rate(rows[1][1], rows[1][2], args.seconds)  # type: ignore[arg-type]
            line(P, rows[0][0], base_joint, None, base_joint)
            line(P, rows[1][0], base_own, base_own, base_joint)
            rows = rows[2:]
        for name, fn, n in rows:
            line(P, name, rate(fn, n, args.seconds), base_own, base_joint)  # type: ignore[arg-type]
    if stages:
        head = (f"{'4 players: joint_features':<26} {'own set':>8} {'numba rows/s':>13} {'old rows/s':>11} "
                f"{'numba us/row':>13} {'x old':>7}")
        print(head)
        print("-" * len(head))
        for stage, _, size, fn_new, n_new, fn_old, n_old in stages:
            new = rate(fn_new, n_new, args.seconds)[0]  # type: ignore[arg-type]
            old = rate(fn_old, n_old, args.seconds)[0]  # type: ignore[arg-type]
            print(f"{stage:<26} {size:8.0f} {new:13,.0f} {old:11,.0f} {1e6 / new:13.2f} {new / old:7.0f}", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} at the end", file=sys.stdout)


if __name__ == "__main__":
    main()
