"""Helpers shared by tests (importable as ``helpers`` via pytest's pythonpath)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from pi_env.agents.runner import play_game as _play
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE, case_index
from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace

TESTS = Path(__file__).resolve().parent
# The golden solver positions (README there): *.record.json and the brute-force *.expected.json.
SOLVER_FIXTURES = TESTS / "data" / "solver"


def need_extra(extra: str, *modules: str):
    """Skip the calling test (or, called at module level, the test file) unless every one of
    ``modules`` imports; the reason names the missing module and the optional extra of pyproject.toml
    that installs it. Returns the last module."""
    import pytest

    __tracebackhide__ = True  # a skip is reported at the calling test's line
    module = None
    for name in modules:
        module = pytest.importorskip(name, reason=f"needs the '{extra}' extra ({name} is not installed): "
                                                  f"pip install '.[{extra}]'")
    return module


def fixture_players(paths):
    """``pytest.param(path, player)`` for every player of every record in ``paths`` (the golden
    solver positions), with ids such as ``5p_seed300-p2``."""
    import json

    import pytest

    for path in paths:
        n = json.loads(path.read_text())["rules"]["players"]
        for p in range(n):
            yield pytest.param(path, p, id=f"{path.name.split('.')[0]}-p{p}")


def play_game(config, agent_names, seed, on_step=None):
    """Play one game (B = 1) with the first P of ``agent_names``; returns (final state, recorder)."""
    return _play(config, list(agent_names)[:config.num_players], seed, before_step=on_step)


def policy_action(state, rng: np.random.Generator, mask: np.ndarray, solve_true: float = 0.3) -> int:
    """A test policy for game 0 of ``state`` that plays all three kinds of action: mostly clues and
    investigators, and solves that are right (it peeks at the engine state) with probability
    ``solve_true``, else a random case (``mask``: the legal actions, ``bool[1730]``)."""
    p = int(state.current_player[0])
    u = rng.random()
    clues = np.flatnonzero(mask[:INVESTIGATE_BASE])
    invs = np.flatnonzero(mask[INVESTIGATE_BASE:SOLVE_BASE]) + INVESTIGATE_BASE
    if u < 0.55 and clues.size:
        return int(rng.choice(clues))
    if u < 0.8 and invs.size:
        return int(rng.choice(invs))
    if rng.random() < solve_true:
        s, e, l = (int(v) for v in state.case[0, p])
        return SOLVE_BASE + case_index(s, e, l)
    return SOLVE_BASE + int(rng.integers(1680))


def _start_script(code: str, jit: bool) -> subprocess.Popen:
    """Start ``code`` in a fresh interpreter for :func:`script_digest` (JIT on or off). It starts
    in the ``tests`` folder with that folder and the folder this process imported ``pi_env`` from on
    its path, so it runs the package under test (an installed copy, whose kernels this process may
    already have compiled into the cache, or the checkout), not whatever the repository root holds."""
    import pi_env

    package_root = os.path.dirname(os.path.dirname(os.path.realpath(pi_env.__file__)))
    path = [str(TESTS), package_root] + [v for v in [os.environ.get("PYTHONPATH")] if v]
    env = dict(os.environ, NUMBA_DISABLE_JIT="0" if jit else "1", PYTHONPATH=os.pathsep.join(path))
    if not jit:
        env["PI_ENV_NUMBA_CACHE"] = "0"
    check = f"import numba as _numba\nassert bool(_numba.config.DISABLE_JIT) is {not jit}\n"
    return subprocess.Popen([sys.executable, "-c", check + code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=str(TESTS))


def _script_output(process: subprocess.Popen, timeout: float) -> str:
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 0, stderr[-3000:]
    lines = stdout.strip().splitlines()
    assert lines, f"the script printed nothing; stderr: {stderr[-3000:]}"
    return lines[-1]


def script_digest(code: str, jit: bool = True, timeout: float = 600) -> str:
    """Run the Python ``code`` in a fresh interpreter (in the ``tests`` folder, which is importable,
    on the ``pi_env`` this process imported: :func:`_start_script`) with numba's JIT on, or off
    (``jit=False``: ``NUMBA_DISABLE_JIT=1`` and the kernel cache off, the plain-Python path of
    docs/contributing.md §C5), and return the last line it prints (the scripts print a SHA-256 hex
    digest). The test fails, showing the end of the script's stderr, if it exits non-zero or the
    JIT setting did not take."""
    return _script_output(_start_script(code, jit), timeout)


def assert_jit_off_agrees(code: str, timeout: float = 600) -> str:
    """Run ``code`` (:func:`script_digest`) with the JIT on and off, both at once (two processes):
    both must print the same SHA-256 hex digest (64 characters), which is returned."""
    processes = [_start_script(code, jit) for jit in (True, False)]
    try:
        on, off = (_script_output(p, timeout) for p in processes)
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert off == on and len(on) == 64, (on, off)
    return on


def selfplay_rollout_digest(runs, rows) -> str:
    """SHA-256 hex digest of seeded self-play rollouts for a JIT-on/off comparison: for each
    ``(num_players, observations, options)`` of ``runs``, a :class:`SelfPlayVecEnv` of 5 games
    (one thread, reset with seed 11, actions ``env.sample_actions`` drawn with a generator seeded
    with the player count) plays 40 steps; every step's observations, action masks, rewards and
    ``rows(env, obs)`` (the caller's stand-alone rows, an array) are hashed."""
    import hashlib

    from pi_env.envs.selfplay import SelfPlayVecEnv

    h = hashlib.sha256()
    for P, obs_kind, options in runs:
        env = SelfPlayVecEnv(5, num_players=P, observations=obs_kind, parallel=False, **options)
        obs, info = env.reset(seed=11)
        rng = np.random.default_rng(P)
        for _ in range(40):
            h.update(obs.tobytes())
            h.update(info["action_mask"].tobytes())
            h.update(rows(env, obs).tobytes())
            obs, rewards, term, trunc, info = env.step(env.sample_actions(rng))
            h.update(rewards.tobytes())
    return h.hexdigest()


def paired_games(config: GameConfig, seed: int, p: int, rng: "np.random.Generator | None" = None):
    """Games A and B for a hygiene test (docs/rules.md §9): A is ``init(config, 1, seed=seed)``, B
    is A with player ``p``'s own case replaced by one that differs in every type (all cases still
    disjoint). ``rng`` draws the new case and, after, the caller's actions (default: seeded with
    ``seed * 7 + p``). Returns ``(a, b, rng)``."""
    from test_hygiene import assert_disjoint, other_case

    a = init(config, 1, seed=seed)
    rng = np.random.default_rng(seed * 7 + p) if rng is None else rng
    b = a.copy()
    b.case[0, p] = other_case(a, p, rng)
    assert_disjoint(b.case[0])
    return a, b, rng


def step_pair(a, b, config: GameConfig, p: int, rng: np.random.Generator) -> bool:
    """One turn of the paired games ``a`` and ``b`` of :func:`paired_games` (one game each): the
    action :func:`test_hygiene.pick` chooses in ``a`` (with ``rng``) is played in both. Returns
    whether an answer to ``p`` now differs between them (``p`` moved last and the two games'
    ``last_answer`` differ), the moment after which ``p`` may see the difference (docs/rules.md §9)."""
    from test_hygiene import pick

    act = np.array([pick(a, rng, legal_action_mask(a)[0], p)], dtype=np.int64)
    step_inplace(a, act, config)
    step_inplace(b, act, config)
    return int(a.last_player[0]) == p and a.last_answer[0].tolist() != b.last_answer[0].tolist()


def own_case_pair(num_players: int, seed: int, p: int, encode, also=(), **options) -> str:
    """Information hygiene of an encoding (docs/rules.md §9): games A and B (B = A with player
    ``p``'s own case replaced, every case still disjoint) play the same actions; ``p``'s
    ``encode(state, config, player)`` rows (and those of every function in ``also``) are identical
    until an answer to ``p`` differs, after which ``encode``'s differ; in round 0 the holder of
    ``p``'s case does see the change (positive control). ``options`` go to :class:`GameConfig`.
    Returns why the comparison ended: ``"answer differs"`` or ``"game over"``."""
    cfg = GameConfig(num_players=num_players, **options)
    a, b, rng = paired_games(cfg, seed, p)
    holder = (p - 1) % num_players
    while True:
        assert np.array_equal(encode(a, cfg, p), encode(b, cfg, p))
        for other in also:
            assert np.array_equal(other(a, cfg, p), other(b, cfg, p))
        if int(a.round[0]) == 0:  # positive control: the holder's view does differ
            assert not np.array_equal(encode(a, cfg, holder), encode(b, cfg, holder))
        if a.done[0]:
            return "game over"
        if step_pair(a, b, cfg, p, rng):
            assert not np.array_equal(encode(a, cfg, p), encode(b, cfg, p))
            return "answer differs"


def learner_run(num_players: int, opponents, seed: int = 4, steps: int = 120, **rules):
    """A random learner's 16 games in a :class:`pi_env.rl.engine_env.LearnerBatch` against
    ``opponents`` (batch names or per-game agents): ``(trace, episodes)`` — every observation and
    reward array in order, and ``(slot, score, win)`` of every finished game. Two runs against the
    same agent, one in batch and one game by game, must give equal results."""
    from pi_env.rl.engine_env import LearnerBatch

    lb = LearnerBatch(16, num_players, opponents, seed=seed, parallel=False, **rules)
    x, mask = lb.reset()
    rng = np.random.default_rng(2)
    trace, episodes = [x], []
    for _ in range(steps):
        choice = (rng.random(mask.shape) * mask).argmax(1)
        x, mask, r, done, trunc, eps = lb.step(choice)
        trace += [x, r]
        episodes += [(b, ep["score"], ep["win"]) for b, ep in eps]
    return trace, episodes
