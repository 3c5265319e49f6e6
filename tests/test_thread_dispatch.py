"""The default choice between a batch kernel's one-thread and threaded builds (issue #16 item 1).

Behaviour, not timing: below its family's threshold (``pi_env.core._config.PARALLEL_MIN_BATCH``)
the default dispatch runs the serial build, from the threshold on the threaded one; the thresholds
live in that one table (the figures behind them come from ``benchmarks/thread_thresholds.py``).
"""

import numpy as np
import pytest

from pi_env.core import _config
from pi_env.engine import Engine, GameConfig, init, play
from pi_env.engine import _kernels as K
from pi_env.engine import _play
from pi_env.engine.observe import _observe_kernel
from pi_env.engine.writer import _write_kernel

FAMILY_OF = {"step": K.step_kernel, "init": K.init_kernel, "sample": K.sample_kernel,
             "observe": _observe_kernel, "fused": _play.play_kernel}


def test_every_engine_kernel_belongs_to_its_family():
    assert K.step_kernel.family == "step"
    assert K.init_kernel.family == "init"
    assert K.sample_kernel.family == K.mask_kernel.family == K.legal_kernel.family == "sample"
    assert _observe_kernel.family == _write_kernel.family == "observe"
    assert _play.play_kernel.family == "fused"
    assert set(FAMILY_OF) <= set(_config.PARALLEL_MIN_BATCH)
    for family, threshold in _config.PARALLEL_MIN_BATCH.items():
        assert threshold is None or (isinstance(threshold, int) and threshold >= 1), family


@pytest.mark.parametrize("family", sorted(FAMILY_OF))
def test_serial_below_the_threshold_threaded_from_it(family):
    kernel = FAMILY_OF[family]
    threshold = _config.PARALLEL_MIN_BATCH[family]
    if threshold is None:  # never threaded by default, at any size
        for b in (1, 256, 4096, 1 << 20):
            assert kernel.for_batch(b) is kernel.serial
        assert kernel.for_batch(4096, parallel=True) is kernel.serial
        return
    assert kernel.for_batch(1) is kernel.serial
    assert kernel.for_batch(threshold - 1) is kernel.serial
    assert kernel.for_batch(threshold) is kernel.parallel
    assert kernel.for_batch(4 * threshold) is kernel.parallel
    assert kernel.for_batch(threshold, parallel=False) is kernel.serial  # asked for one thread
    assert kernel.for_batch(1, parallel=True) is kernel.parallel  # asked for threads
    assert (kernel.parallel is not kernel.serial) == _config.PARALLEL


def test_the_threshold_is_read_from_the_table_at_each_call(monkeypatch):
    monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, "step", 7)
    assert K.step_kernel.min_batch == 7
    assert K.step_kernel.for_batch(6) is K.step_kernel.serial
    assert K.step_kernel.for_batch(7) is K.step_kernel.parallel


def test_an_engine_binds_the_serial_builds_below_the_thresholds():
    config = GameConfig(num_players=3)
    small = min(t for t in _config.PARALLEL_MIN_BATCH.values() if t is not None) - 1
    eng = Engine(config, small, seed=0)
    assert eng._step is K.step_kernel.serial and eng._init is K.init_kernel.serial
    assert eng._sample is K.sample_kernel.serial and eng._observe is _observe_kernel.serial
    big = _config.PARALLEL_MIN_BATCH["step"]
    eng = Engine(config, big, seed=0)
    assert eng._step is K.step_kernel.parallel
    sample_threshold = _config.PARALLEL_MIN_BATCH["sample"]
    threaded_sample = sample_threshold is not None and big >= sample_threshold
    assert eng._sample is (K.sample_kernel.parallel if threaded_sample else K.sample_kernel.serial)
    assert Engine(config, big, seed=0, parallel=False)._step is K.step_kernel.serial


class _Spy:
    """Stands for a kernel build: counts the calls, then runs the serial build."""

    def __init__(self, build):
        self.build, self.calls = build, 0

    def __call__(self, *args):
        self.calls += 1
        return self.build(*args)


def test_play_runs_the_serial_build_below_the_fused_threshold(monkeypatch):
    """Which build ``play`` calls, seen by swapping the threaded build for a spy."""
    spy = _Spy(_play.play_kernel.serial)
    monkeypatch.setattr(_play.play_kernel, "parallel", spy)
    config = GameConfig(num_players=2)
    threshold = _config.PARALLEL_MIN_BATCH["fused"]
    state = init(config, 8, seed=1)
    steps, _ = play(state, config, 3, "random", seed=2)
    assert spy.calls == 0 and steps.tolist() == [3] * 8
    monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, "fused", 8)  # now 8 games are enough for threads
    play(state, config, 3, "random", seed=2)
    assert spy.calls == 1
    assert threshold > 8


def test_an_unknown_family_is_refused():
    with pytest.raises(KeyError, match="unknown batch-kernel family 'stepp'"):
        _config.batch_kernel(family="stepp")(lambda x: x)


def test_same_games_either_side_of_the_threshold(monkeypatch):
    """The default dispatch changes only the build: the same seeds give the same games whether
    the threshold puts 32 games on one thread or on threads."""
    config = GameConfig(num_players=4)
    results = []
    for threshold in (10**9, 1):
        for family in ("step", "init"):
            monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, family, threshold)
        eng = Engine(config, 32, seed=5)
        rng = np.random.default_rng(0)
        for _ in range(60):
            eng.step(eng.sample_actions(rng), check=False)
            eng.reset_done()
        results.append([a.copy() for a in eng.state.arrays()])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_threaded_by_default_says_what_the_dispatch_picks():
    for family, kernel in FAMILY_OF.items():
        threshold = _config.PARALLEL_MIN_BATCH[family]
        for b in (1, 255, 256, 1023, 1024, 4096) + (() if threshold is None else (threshold - 1, threshold)):
            picked = kernel.for_batch(b) is not kernel.serial  # without threads the two builds are one
            expected = _config.PARALLEL and threshold is not None and b >= threshold
            assert _config.threaded_by_default(family, b) == expected, (family, b)
            assert picked == expected, (family, b)
    assert _config.threaded_by_default("selfplay", 10**6) == _config.PARALLEL


def test_the_selfplay_env_runs_its_fused_turn_serially_below_the_threshold(monkeypatch):
    """The env's default build of its fused turn (pi_env.engine.rows.SelfPlayTurn)."""
    from pi_env.engine import rows
    from pi_env.envs.selfplay import SelfPlayVecEnv

    threshold = _config.PARALLEL_MIN_BATCH["selfplay"]
    env = SelfPlayVecEnv(8, num_players=2, seed=0)
    env.reset(seed=0)
    assert threshold > 8 and env._turn._kernel is rows._selfplay_kernel.serial
    monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, "selfplay", 8)
    env = SelfPlayVecEnv(8, num_players=2, seed=0)
    env.reset(seed=0)
    assert env._turn._kernel is rows._selfplay_kernel.parallel

