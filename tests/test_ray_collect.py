"""Training experience collected on a Ray cluster equals the same collection in one process
(:mod:`pi_env.rl.ray_collect`): a two-node cluster started on this machine's loopback, one worker
on each node. Needs the ``rl`` and ``ray`` extras (skipped without them)."""

from __future__ import annotations

import contextlib
import signal

import numpy as np
import pytest
from helpers import need_extra

from pi_env.core.errors import PIError

SPEC_ARGS = dict(num_players=2, num_envs=16, opponents="gain:1,heuristic:1,random:1", reward="win")
STEPS = 6
SEED = 11


@pytest.fixture(scope="module")
def two_nodes():
    """A Ray cluster of a head and a second node, one CPU each, on 127.0.0.1 only; this process is
    connected to it; shut down after the module's tests.

    Ray turns a loopback address given to ``ray.init`` into the machine's own network address
    unless it treats the machine as a single-host setup (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``,
    read by this process and the nodes it starts): with it every address stays 127.0.0.1."""
    need_extra("ray", "ray")
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 1, "object_store_memory": 100 * 2**20, "node_ip_address": "127.0.0.1"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR, "0")
        mp.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
        try:
            cluster.add_node(**node)
            assert cluster.address.startswith("127.0.0.1:")
            ray.init(address=cluster.address, logging_level="ERROR")
            cluster.wait_for_nodes()
            assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
            yield cluster
        finally:
            ray.shutdown()
            cluster.shutdown()


@pytest.fixture(scope="module")
def spec_and_weights():
    need_extra("rl", "torch", "sb3_contrib")
    from pi_env.rl.ray_collect import CollectSpec, new_policy

    spec = CollectSpec(**SPEC_ARGS)
    return spec, new_policy(spec, seed=3).state_dict()


def test_worker_seeds_are_spawned_from_the_seed():
    from pi_env.rl.ray_collect import worker_seeds

    seeds = worker_seeds(SEED, 3)
    expected = [int(s.generate_state(1, np.uint32)[0]) for s in np.random.SeedSequence(SEED).spawn(3)]
    assert seeds == expected
    assert worker_seeds(SEED, 2) == seeds[:2]  # a worker's seed does not depend on how many there are
    assert len(set(seeds)) == 3


def test_a_worker_gives_the_same_columns_alone_or_among_others(spec_and_weights):
    """The in-process reference: worker 1 of a collection, built and run on its own (after another
    worker has used torch's generator), gives the collection's columns of worker 1 exactly."""
    from pi_env.rl.ray_collect import Collector, Rollout, RolloutWorker

    spec, weights = spec_and_weights
    with Collector(spec, 2, SEED) as c:
        both = c.collect(weights, STEPS)
    alone = RolloutWorker(spec, c.seeds[1]).collect(weights, STEPS)
    B = spec.num_envs
    assert both.actions.shape == (STEPS, 2 * B) and both.observations.shape == (STEPS, 2 * B, 232)
    assert both.nodes == ["local", "local"]
    for k in Rollout.ARRAYS:
        assert np.array_equal(getattr(both, k)[:, B:], getattr(alone, k)), k
    for k in Rollout.LAST:
        assert np.array_equal(getattr(both, k)[B:], getattr(alone, k)), k
    assert [{**e, "env": e["env"] - B} for e in both.episodes if e["env"] >= B] == alone.episodes
    assert not np.array_equal(both.actions[:, :B], both.actions[:, B:])  # the workers' games differ
    # the actions are legal and their log-probabilities those of the masked policy (<= 0)
    assert both.action_masks[np.arange(STEPS)[:, None], np.arange(2 * B)[None], both.actions].all()
    assert (both.log_probs <= 0).all() and both.episode_starts[0].all()


def test_collection_on_two_ray_nodes_equals_the_local_one(spec_and_weights, two_nodes):
    import ray

    from pi_env.rl.ray_collect import Collector, Rollout

    spec, weights = spec_and_weights
    with Collector(spec, 2, SEED) as c:  # the reference: one process, no Ray
        local = [c.collect(weights, STEPS), c.collect(weights, STEPS)]  # the games go on between calls
    assert ray.is_initialized()
    with Collector(spec, 2, SEED, use_ray=True) as c:  # one CPU per actor, one CPU per node
        remote = [c.collect(weights, STEPS), c.collect(weights, STEPS)]
    node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(node_ids) == 2
    assert set(remote[0].nodes) == node_ids  # one worker on each node
    assert remote[1].nodes == remote[0].nodes
    for got, want in zip(remote, local):
        for k in Rollout.ARRAYS + Rollout.LAST:
            assert np.array_equal(getattr(got, k), getattr(want, k)), k
        assert got.episodes == want.episodes
    assert remote[1].episodes  # games finished (and restarted) within the collection


def test_snapshots_reach_the_ray_workers(spec_and_weights, two_nodes):
    """A snapshot added to the pools (3/4 of the new games' opponents) plays the same games on Ray
    as in this process, and changes them."""
    from pi_env.rl.ray_collect import CollectSpec, Collector, new_policy

    _, weights = spec_and_weights
    spec = CollectSpec(**{**SPEC_ARGS, "opponents": "random:1", "snapshot_weight": 3.0})
    snapshot = new_policy(spec, seed=4).state_dict()
    out = []
    for use_ray, add in ((False, False), (False, True), (True, True)):
        with Collector(spec, 2, SEED, use_ray=use_ray) as c:
            if add:
                c.add_snapshot(snapshot)
            out.append(c.collect(weights, STEPS))
    assert not np.array_equal(out[0].observations, out[1].observations)  # the snapshot played
    assert np.array_equal(out[1].actions, out[2].actions)
    assert np.array_equal(out[1].observations, out[2].observations)
    assert out[1].episodes == out[2].episodes


def test_bad_arguments_are_refused(spec_and_weights):
    from pi_env.rl.ray_collect import Collector, CollectSpec, RolloutWorker

    spec, weights = spec_and_weights
    with pytest.raises(PIError, match="workers must be at least 1, got 0"):
        Collector(spec, 0)
    with pytest.raises(PIError, match="num_players must be one of"):
        CollectSpec(num_players=6)
    with pytest.raises(PIError, match="steps must be at least 1, got 0"):
        RolloutWorker(spec, 0).collect(weights, 0)


def _tiny_training(out, use_ray):
    from pi_env.rl.train import train

    return train("2p", 3 * 32 * 4, out, seed=5, num_envs=32, opponents="gain:1,random:1", snapshot_weight=1.0,
                 snapshot_every=1, trunk=(16,), hidden=(8,), checkpoint_every=10**6, eval_every=0,
                 collect_workers=2, use_ray=use_ray, progress=False, n_steps=4, batch_size=64, n_epochs=1)


def test_training_on_ray_actors_equals_training_with_the_workers_in_process(spec_and_weights, two_nodes, tmp_path):
    """``train(collect_workers=2)``: three updates (a snapshot after each, sent to the workers) give
    the same policy and curve with the workers as Ray actors on two nodes as in this process."""
    import torch

    info = {use_ray: _tiny_training(tmp_path / str(use_ray), use_ray) for use_ray in (False, True)}
    for use_ray in (False, True):
        assert info[use_ray]["sessions"][0]["timesteps"] == 3 * 32 * 4
        assert info[use_ray]["sessions"][0]["collect_workers"] == 2
        assert info[use_ray]["sessions"][0]["ray"] is use_ray
    nets = [torch.load(tmp_path / str(u) / "policy.pt", weights_only=True)["state_dict"] for u in (False, True)]
    assert nets[0].keys() == nets[1].keys()
    assert all(torch.equal(nets[0][k], nets[1][k]) for k in nets[0])
    curves = [(tmp_path / str(u) / "curve.csv").read_text().splitlines() for u in (False, True)]
    header = curves[0][0].split(",")
    keep = [i for i, k in enumerate(header) if k in ("timesteps", "games", "win_rate", "score_mean", "wrong_mean")]
    assert [[r.split(",")[i] for i in keep] for r in curves[0][1:]] == \
           [[r.split(",")[i] for i in keep] for r in curves[1][1:]]
    assert sum(int(r.split(",")[header.index("games")]) for r in curves[1][1:]) > 0
    assert len(curves[0]) == 4 and len(list((tmp_path / "True" / "pool").glob("step_*.pt"))) == 3


@pytest.mark.parametrize("argv, message", [
    (["--ray-actors", "3"], "--ray-actors must be at least 1 and divide --num-envs (64), got 3"),
    (["--ray-actors", "0"], "--ray-actors must be at least 1 and divide --num-envs (64), got 0"),
    (["--ray-address", "auto"], "--ray-address needs --ray-actors (how many actors collect the experience)")])
def test_bad_ray_options_are_one_line_errors(spec_and_weights, tmp_path, capsys, argv, message):
    from pi_env.rl.cli import train_main

    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--out", str(tmp_path / "run"), "--num-envs", "64", "--timesteps", "64", *argv])
    assert exc.value.code == 2
    assert capsys.readouterr().err == f"python -m pi_env.rl.train: error: {message}\n"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_an_address_without_a_cluster_is_one_line_and_writes_nothing(spec_and_weights, tmp_path, capsys,
                                                                    monkeypatch, address):
    """A Ray address that nothing answers on used to create the run directory, then hang in
    ``ray.init`` for minutes (``HOST:PORT``) or end in a traceback (``ray://``, after 30 s)."""
    need_extra("ray", "ray")
    import ray

    from pi_env.rl.cli import train_main

    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a new process (the module's cluster aside)
    monkeypatch.setattr(ray, "init", lambda *a, **k: pytest.fail("ray.init called with an unreachable address"))
    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--out", str(tmp_path / "run"), "--num-envs", "64", "--timesteps", "64",
                    "--eval-every", "0", "--ray-actors", "2", "--ray-address", address])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (f"python -m pi_env.rl.train: error: --ray-address {address}: no Ray cluster "
                                       "answers there (Connection refused)\n")
    assert not (tmp_path / "run").exists()


@contextlib.contextmanager
def _deadline(seconds: int):
    """Fail (instead of hanging the test run) when the block takes longer than ``seconds``: the alarm
    raises KeyboardInterrupt, the one exception ``ray.get`` lets through while it waits."""
    late = []

    def _late(*_):
        late.append(True)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, _late)
    signal.alarm(seconds)
    try:
        yield
    except KeyboardInterrupt:
        if not late:
            raise
        pytest.fail(f"still waiting after {seconds} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


CPU_MESSAGE = ("--ray-actors {k}: the actors need {k} CPUs (1 each), the Ray cluster has 2: pass --ray-actors 2 or "
               "fewer (dividing --num-envs), or add CPUs to the cluster")


def test_more_actors_than_the_clusters_cpus_are_refused_at_once(spec_and_weights, two_nodes, tmp_path, capsys):
    """The two-node cluster has 2 CPUs: 3 actors of 1 CPU each used to wait for a third CPU forever."""
    import ray

    from pi_env.rl.cli import train_main
    from pi_env.rl.ray_collect import Collector

    spec, _ = spec_and_weights
    assert ray.cluster_resources()["CPU"] == 2
    with _deadline(120):
        with pytest.raises(PIError) as exc:
            Collector(spec, 3, SEED, use_ray=True)
        assert str(exc.value) == CPU_MESSAGE.format(k=3)
        with pytest.raises(SystemExit) as stop:
            train_main(["2p", "--out", str(tmp_path / "run"), "--num-envs", "64", "--timesteps", "64",
                        "--eval-every", "0", "--ray-actors", "4"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"python -m pi_env.rl.train: error: {CPU_MESSAGE.format(k=4)}\n"
    assert not (tmp_path / "run").exists()
    with Collector(spec, 2, SEED, use_ray=True) as c:  # as many as fit still start
        assert len(c.nodes()) == 2


def test_the_cpu_check_counts_what_each_actor_asks():
    from pi_env.rl.ray_collect import _check_cpus

    _check_cpus(4, [0.5] * 4, 2.0)  # fits exactly
    with pytest.raises(PIError, match=r"^--ray-actors 5: the actors need 2.5 CPUs \(0.5 each\), the Ray cluster "
                                      r"has 2: pass --ray-actors 4 or fewer"):
        _check_cpus(5, [0.5] * 5, 2.0)
    with pytest.raises(PIError, match=r"^--ray-actors 2: the actors need 3 CPUs \(in all\), the Ray cluster has 2: "
                                      r"add CPUs to the cluster$"):
        _check_cpus(2, [1.0, 2.0], 2.0)
    with pytest.raises(PIError, match=r"has 0: add CPUs to the cluster$"):
        _check_cpus(1, [1.0], 0.0)
