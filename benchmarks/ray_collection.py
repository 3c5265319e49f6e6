"""Training experience collection on Ray (:mod:`pi_env.rl.ray_collect`): environment steps per
second of ``--workers`` workers, each stepping ``--num-envs`` 2-player games ``--steps`` times with
the learner's policy (a new one) against ``--opponents`` in batch, as the training loop does.

Rows, measured in the same run and interleaved (one timed collection of each per repeat, after one
untimed collection each: numba's cached kernels loaded, torch's first calls):

* **one process, no Ray** (the baseline, ratio 1.0): the workers in this process, one after the
  other (what ``use_ray=False`` runs: the reference the Ray rollouts are tested against);
* **Ray, total**: the same workers as Ray actors (one CPU each), on a cluster of ``--nodes``
  nodes with ``--workers-per-node`` CPUs each that this script starts on 127.0.0.1 (or the cluster
  at ``--address``, e.g. ``auto`` after ``ray start``), with the transfer of the rollouts back;
* **Ray, node k**: node ``k``'s workers' environment steps over their own collection time (the
  slowest of them, timed in the workers while all nodes ran; ratio: against the one-process row).

Ray's nodes of one machine share its cores: on the 2-core machine two one-CPU nodes are the most
that can gain; on a real cluster each node adds its own cores. The load average is printed at the
start and the end (other work on the machine lowers the figures).

    python benchmarks/ray_collection.py [--nodes 2] [--workers-per-node 1] [--num-envs 1024]
        [--steps 16] [--repeats 3] [--opponents gain:1] [--address ADDR]

Needs the ``rl`` and ``ray`` extras.
"""

from __future__ import annotations

import argparse
import os
import time


def _cluster(nodes: int, cpus: int):
    """A Ray cluster of ``nodes`` nodes with ``cpus`` CPUs each on 127.0.0.1 (as tests/test_ray_collect.py),
    this process connected to it."""
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    os.environ[ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR] = "0"  # every address stays 127.0.0.1
    ray_constants.ENABLE_RAY_CLUSTER = False
    node = {"num_cpus": cpus, "object_store_memory": 200 * 2**20, "node_ip_address": "127.0.0.1"}
    cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    for _ in range(nodes - 1):
        cluster.add_node(**node)
    ray.init(address=cluster.address, logging_level="ERROR")
    cluster.wait_for_nodes()
    return cluster


def main() -> None:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--nodes", type=int, default=2, help="nodes of the local cluster started on 127.0.0.1")
    p.add_argument("--workers-per-node", type=int, default=1, help="CPUs of each node, one worker each")
    p.add_argument("--address", default=None, help="an existing Ray cluster instead (e.g. auto)")
    p.add_argument("--workers", type=int, default=None, help="workers in all (default nodes x workers-per-node)")
    p.add_argument("--num-envs", type=int, default=1024, help="games per worker")
    p.add_argument("--steps", type=int, default=16, help="steps per game and collection")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--opponents", default="gain:1")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    import ray
    import torch

    from pi_env.rl.ray_collect import CollectSpec, Collector, new_policy

    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    torch.set_num_threads(1)
    cluster = None
    if args.address:
        ray.init(address=args.address, logging_level="ERROR")
    else:
        cluster = _cluster(args.nodes, args.workers_per_node)
    workers = args.workers or (args.nodes * args.workers_per_node if not args.address
                               else int(ray.cluster_resources().get("CPU", 1)))
    spec = CollectSpec(num_players=2, num_envs=args.num_envs, opponents=args.opponents)
    weights = new_policy(spec, args.seed).state_dict()
    local = Collector(spec, workers, args.seed)
    remote = Collector(spec, workers, args.seed, use_ray=True)
    try:
        nodes = remote.nodes()
        local.collect(weights, args.steps)  # untimed: kernels loaded, torch's first calls
        remote.collect(weights, args.steps)
        times: dict[str, list[float]] = {"local": [], "ray": []}
        worker_secs: list[list[float]] = []
        steps = args.steps * args.num_envs * workers
        for _ in range(args.repeats):
            for name, c in (("local", local), ("ray", remote)):
                t0 = time.perf_counter()
                got = c.collect(weights, args.steps)
                times[name].append(time.perf_counter() - t0)
                assert got.env_steps == steps
                if name == "ray":
                    worker_secs.append(got.seconds)
    finally:
        local.close()
        remote.close()
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
    base = steps / min(times["local"])
    order = list(dict.fromkeys(nodes))
    print(f"\n{workers} workers x {args.num_envs} games x {args.steps} steps = {steps:,} env steps per collection, "
          f"2 players vs {args.opponents}; best of {args.repeats} (range over the repeats)")
    print("\n| configuration | nodes | workers | env steps/s | range | ratio vs one process |")
    print("|---|---|---|---|---|---|")

    def row(label: str, n_nodes: int, n_workers: int, n_steps: int, secs: list[float]) -> None:
        sps = [n_steps / s for s in secs]
        print(f"| {label} | {n_nodes} | {n_workers} | **{max(sps):,.0f}** | {min(sps):,.0f}-{max(sps):,.0f} "
              f"| {max(sps) / base:.2f} |")

    row("one process, no Ray (workers in turn)", 1, workers, steps, times["local"])
    row("Ray, total", len(order), workers, steps, times["ray"])
    for k, node in enumerate(order):
        mine = [i for i, n in enumerate(nodes) if n == node]
        row(f"Ray, node {k} ({node[:8]})", 1, len(mine), len(mine) * args.num_envs * args.steps,
            [max(secs[i] for i in mine) for secs in worker_secs])
    print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
