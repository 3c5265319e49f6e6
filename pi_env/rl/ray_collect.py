"""Training experience collected by several workers, in this process or as Ray actors on a cluster.

A :class:`RolloutWorker` holds what the training loop (:mod:`pi_env.rl.train`) steps: an
:class:`pi_env.rl.engine_env.SB3LearnerVecEnv` of ``num_envs`` games whose opponent seats are
:class:`pi_env.rl.pool.PoolOpponent` pools (the built-in agents of ``opponents`` in batch, the
learner's snapshots added with :meth:`Collector.add_snapshot`), and a copy of the learner's
MaskablePPO policy (sb3-contrib's ``MaskableActorCriticPolicy`` with :class:`pi_env.rl.network.TrunkExtractor`,
the shapes ``trunk`` and ``hidden`` of the run). :meth:`RolloutWorker.collect` loads the given
weights and steps its games ``steps`` times exactly as ``MaskablePPO.collect_rollouts`` does,
returning a :class:`Rollout`: the arrays a PPO update reads (observations, action masks, actions,
rewards, episode starts, values, log-probabilities, and the last observation's values for the
bootstrap). The games go on from one call to the next, as in training.

A :class:`Collector` holds ``workers`` of them: plain objects in this process (``use_ray=False``,
the reference) or Ray actors (``use_ray=True``: one CPU each, spread over the cluster's nodes by
default). Worker ``i`` is seeded with :func:`worker_seeds` ``(seed, workers)[i]`` (numpy's
``SeedSequence.spawn``: games, seats, opponents' draws and the policy's sampling), each keeps its
own torch generator and steps its policy on one torch thread and its engine kernels serially, so
a worker's arrays depend only on its seed and the weights, never on where or in what order it
runs: the Ray rollouts equal the in-process ones exactly, concatenated along the game axis in worker
order (tests/test_ray_collect.py checks this on a two-node cluster).

Example: a cluster of two machines (docs/reinforcement-learning.md, "Collecting on a Ray cluster")::

    from pi_env.rl.ray_collect import CollectSpec, Collector, new_policy

    spec = CollectSpec(num_players=2, num_envs=1024, opponents="gain:1,heuristic:0.1")
    policy = new_policy(spec, seed=0)                    # or model.policy of a MaskablePPO model
    with Collector(spec, workers=4, seed=0, use_ray=True, address="auto") as collector:
        rollout = collector.collect(policy.state_dict(), steps=16)  # 4 x 1024 games x 16 steps
    rollout.actions.shape                                # (16, 4096)

Needs the ``rl`` extra, and Ray (the ``ray`` extra) for ``use_ray=True``; every node of a cluster
needs the same Python packages (pi-env with its ``rl`` extra): :func:`pi_env.core.cluster.ray_init_kwargs`
ships the ``pi_env`` package itself to the workers.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from pi_env.core.errors import PIError
from pi_env.rl.settings import DEFAULT_HIDDEN, DEFAULT_TRUNK, TASKS

__all__ = ["CollectSpec", "Rollout", "RolloutWorker", "Collector", "collect", "worker_seeds", "new_policy",
           "fill_rollout_buffer", "connect_ray"]


@dataclasses.dataclass(frozen=True)
class CollectSpec:
    """What every worker builds (the options of :func:`pi_env.rl.train.train` of the same names).

    Attributes:
        num_players: 2..5 (the task ``2p``..``5p``).
        num_envs: games per worker.
        opponents: ``"name:weight,..."`` (:func:`pi_env.rl.settings.parse_opponents`).
        snapshot_weight, max_snapshots: the snapshots' share of the pool and how many are kept.
        encoding, reward: the policy input and the learner's reward.
        trunk, hidden: the network's widths.
        gamma: the discount (bootstraps a time-limit truncation, as MaskablePPO does).
    """

    num_players: int = 2
    num_envs: int = 256
    opponents: str = "gain:1"
    snapshot_weight: float = 0.0
    max_snapshots: int = 8
    encoding: str = "compact-v1"
    reward: str = "win"
    trunk: tuple[int, ...] = DEFAULT_TRUNK
    hidden: tuple[int, ...] = DEFAULT_HIDDEN
    gamma: float = 0.995

    def __post_init__(self) -> None:
        if self.num_players not in TASKS.values():
            raise PIError(f"CollectSpec.num_players must be one of {sorted(TASKS.values())}, got {self.num_players}")
        if self.num_envs < 1:
            raise PIError(f"CollectSpec.num_envs must be at least 1, got {self.num_envs}")
        object.__setattr__(self, "trunk", tuple(int(h) for h in self.trunk))
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))


@dataclasses.dataclass
class Rollout:
    """``steps`` x ``B`` experience (``B`` = workers x games per worker, worker 0's games first).

    Attributes:
        observations: ``float32[steps, B, n]``, the policy input before each step.
        action_masks: ``bool[steps, B, 51]``.
        actions: ``int64[steps, B]``, the compact choices taken.
        rewards: ``float32[steps, B]``.
        episode_starts: ``bool[steps, B]``: the row's observation begins a game (the previous step ended one).
        values: ``float32[steps, B]``, the value head's estimates.
        log_probs: ``float32[steps, B]``, of the actions under the masked policy.
        last_observations: ``float32[B, n]``; last_episode_starts: ``bool[B]`` (the last step's
            dones); last_values: ``float32[B]``: what the returns are bootstrapped from.
        episodes: one dict per game finished, in step then game order: ``step``, ``env`` (column in
            ``B``) and ``r``, ``l``, ``score``, ``win``, ``rank``, ``wrong`` (:class:`pi_env.rl.engine_env.LearnerBatch`).
        nodes: the Ray node id each worker ran on (``"local"`` in this process), in worker order.
        seconds: each worker's own collection time (wall clock, in the worker), in worker order.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    episode_starts: np.ndarray
    values: np.ndarray
    log_probs: np.ndarray
    last_observations: np.ndarray
    last_episode_starts: np.ndarray
    last_values: np.ndarray
    episodes: list[dict[str, Any]]
    nodes: list[str]
    seconds: list[float] = dataclasses.field(default_factory=list)

    ARRAYS = ("observations", "action_masks", "actions", "rewards", "episode_starts", "values", "log_probs")
    LAST = ("last_observations", "last_episode_starts", "last_values")

    @property
    def env_steps(self) -> int:
        """Environment steps held: ``steps * B``."""
        return int(self.actions.size)

    @classmethod
    def concat(cls, parts: Sequence["Rollout"]) -> "Rollout":
        """The rollouts of several workers side by side (game axis), in the order given.

        Raises:
            PIError: no parts, or parts of different step counts.
        """
        if not parts:
            raise PIError("Rollout.concat: no rollouts")
        steps = {p.actions.shape[0] for p in parts}
        if len(steps) != 1:
            raise PIError(f"Rollout.concat: the rollouts have different step counts {sorted(steps)}")
        offsets = np.cumsum([0] + [p.actions.shape[1] for p in parts])
        episodes = sorted(({**e, "env": e["env"] + int(off)} for p, off in zip(parts, offsets) for e in p.episodes),
                          key=lambda e: (e["step"], e["env"]))
        return cls(**{k: np.concatenate([getattr(p, k) for p in parts], axis=1) for k in cls.ARRAYS},
                   **{k: np.concatenate([getattr(p, k) for p in parts], axis=0) for k in cls.LAST},
                   episodes=episodes, nodes=[n for p in parts for n in p.nodes],
                   seconds=[t for p in parts for t in p.seconds])


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seeds of ``workers`` workers of a collection seeded ``seed``: ``SeedSequence(seed).spawn``,
    one 32-bit draw each (below the evaluation games' seeds, :data:`pi_env.rl.evaluation.EVAL_SEED`).

    Returns:
        ``workers`` ints in ``0..2**32-1``; the first ``k`` are the same for any ``workers >= k``.
    """
    return [int(s.generate_state(1, np.uint32)[0]) for s in np.random.SeedSequence(int(seed)).spawn(int(workers))]


def new_policy(spec: CollectSpec, seed: int = 0) -> Any:
    """A new learner policy of ``spec``'s shape, initialized as :func:`pi_env.rl.train.train` does
    (torch seeded ``seed``, the solve logit's bias :data:`pi_env.rl.network.INITIAL_SOLVE_BIAS`).

    Returns:
        sb3-contrib's ``MaskableActorCriticPolicy``; ``.state_dict()`` is what :meth:`Collector.collect` takes.
    """
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from pi_env.agents.learned import POLICY_ACTIONS, SOLVE_ACTION, encoding_size
    from pi_env.rl.network import INITIAL_SOLVE_BIAS, policy_kwargs

    space = spaces.Box(-np.inf, np.inf, shape=(encoding_size(spec.encoding, spec.num_players),), dtype=np.float32)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        policy = MaskableActorCriticPolicy(space, spaces.Discrete(POLICY_ACTIONS), lambda _: 0.0,
                                           **policy_kwargs(spec.trunk, spec.hidden))
    with torch.no_grad():
        policy.action_net.bias[SOLVE_ACTION] = INITIAL_SOLVE_BIAS
    policy.set_training_mode(False)
    return policy


def _as_numpy(weights: dict[str, Any]) -> dict[str, np.ndarray]:
    """A state dict's tensors as numpy arrays (what travels to the workers)."""
    return {k: (v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v)) for k, v in weights.items()}


class RolloutWorker:
    """One worker: a training env of ``spec.num_envs`` games and a policy copy (module docstring).

    Args:
        spec: what to build.
        seed: the games', seats', opponents' and sampling seed (:func:`worker_seeds`).

    Raises:
        PIError, UnknownNameError: a bad option of ``spec`` (unknown agent, encoding, reward).
    """

    def __init__(self, spec: CollectSpec, seed: int):
        import torch

        from pi_env.engine import GameConfig
        from pi_env.rl.engine_env import SB3LearnerVecEnv
        from pi_env.rl.pool import PoolOpponent
        from pi_env.rl.settings import parse_opponents

        self.spec, self.seed = spec, int(seed)
        self.config = GameConfig(num_players=spec.num_players)
        members = parse_opponents(spec.opponents)
        self.pools = [PoolOpponent(members, self.config, snapshot_weight=spec.snapshot_weight,
                                   max_snapshots=spec.max_snapshots) for _ in range(spec.num_players - 1)]
        self.env = SB3LearnerVecEnv(spec.num_envs, spec.num_players, self.pools, encoding=spec.encoding,
                                    seed=self.seed, parallel=False, reward=spec.reward)
        self.policy = new_policy(spec)
        self._rng = torch.Generator().manual_seed(self.seed).get_state()
        self._obs = self.env.reset()
        self._starts = np.ones(spec.num_envs, dtype=bool)

    def node(self) -> str:
        """The Ray node id this worker runs on (``"local"`` outside Ray)."""
        try:
            import ray
        except ImportError:
            return "local"
        return ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"

    def add_snapshot(self, weights: dict[str, Any]) -> None:
        """Freeze ``weights`` (the learner policy's state dict, or a
        :class:`~pi_env.agents._policy_net.PolicyNet`'s) into every opponent pool as a sampling
        :class:`pi_env.rl.pool.SnapshotOpponent`, as training does every ``--snapshot-every`` updates."""
        import torch

        from pi_env.agents._policy_net import PolicyNet
        from pi_env.rl.network import policy_net_state
        from pi_env.rl.pool import SnapshotOpponent

        # an SB3 policy's state dict, or a PolicyNet's already (a saved pool/step_N.pt)
        state = {k: torch.from_numpy(v.copy()) for k, v in policy_net_state(_as_numpy(weights)).items()}
        net = PolicyNet(int(self._obs.shape[1]), self.spec.hidden, "relu", self.spec.trunk)
        net.load_state_dict(state)
        net.eval()
        for pool in self.pools:
            pool.add(SnapshotOpponent(net, self.spec.encoding, self.config, name="snapshot"))

    def collect(self, weights: dict[str, Any], steps: int) -> Rollout:
        """Step the games ``steps`` times with the policy of ``weights`` (a state dict of the
        ``spec``-shaped policy, tensors or numpy arrays), as ``MaskablePPO.collect_rollouts``.

        Returns:
            A :class:`Rollout` of ``steps`` x ``spec.num_envs``.

        Raises:
            PIError: ``steps`` below 1; RuntimeError: ``weights`` of another shape.
        """
        import time

        import torch

        if steps < 1:
            raise PIError(f"collect: steps must be at least 1, got {steps}")
        t0 = time.perf_counter()
        self.policy.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in _as_numpy(weights).items()})
        B, n = self._obs.shape
        out = {"observations": np.empty((steps, B, n), np.float32), "action_masks": np.empty((steps, B, 51), bool),
               "actions": np.empty((steps, B), np.int64), "rewards": np.empty((steps, B), np.float32),
               "episode_starts": np.empty((steps, B), bool), "values": np.empty((steps, B), np.float32),
               "log_probs": np.empty((steps, B), np.float32)}
        episodes: list[dict[str, Any]] = []
        threads = torch.get_num_threads()
        with torch.random.fork_rng(devices=[]):  # this worker's own generator, one thread: results independent of the caller
            torch.set_rng_state(self._rng)
            torch.set_num_threads(1)
            try:
                for t in range(steps):
                    masks = self.env.action_masks()
                    with torch.no_grad():
                        actions, values, log_probs = self.policy(torch.from_numpy(self._obs), action_masks=masks)
                    a = actions.numpy()
                    new_obs, rewards, dones, infos = self.env.step(a)
                    for b in np.flatnonzero(dones):
                        info = infos[b]
                        if info.get("TimeLimit.truncated", False):  # MaskablePPO's bootstrap of a time limit
                            with torch.no_grad():
                                term = torch.from_numpy(info["terminal_observation"][None])
                                rewards[b] += self.spec.gamma * float(self.policy.predict_values(term)[0, 0])
                        ep = info["episode"]
                        episodes.append({"step": t, "env": int(b), **{k: ep[k] for k in
                                                                    ("r", "l", "score", "win", "rank", "wrong")}})
                    out["observations"][t] = self._obs
                    out["action_masks"][t] = masks
                    out["actions"][t] = a
                    out["rewards"][t] = rewards
                    out["episode_starts"][t] = self._starts
                    out["values"][t] = values.numpy().reshape(-1)
                    out["log_probs"][t] = log_probs.numpy()
                    self._obs, self._starts = new_obs, np.asarray(dones, dtype=bool)
                with torch.no_grad():
                    last_values = self.policy.predict_values(torch.from_numpy(self._obs)).numpy().reshape(-1)
            finally:
                self._rng = torch.get_rng_state()
                torch.set_num_threads(threads)
        return Rollout(**out, last_observations=self._obs.copy(), last_episode_starts=self._starts.copy(),
                       last_values=last_values.astype(np.float32), episodes=episodes, nodes=[self.node()],
                       seconds=[time.perf_counter() - t0])

    def close(self) -> None:
        """Close the env."""
        self.env.close()


class Collector:
    """``workers`` :class:`RolloutWorker` s, in this process or as Ray actors (module docstring).

    Args:
        spec: what each worker builds (``spec.num_envs`` games each).
        workers: how many.
        seed: the collection's seed; worker ``i`` gets :func:`worker_seeds` ``(seed, workers)[i]``.
        use_ray: Ray actors (needs Ray) instead of objects in this process.
        address: the Ray cluster to join when Ray is not initialized yet (``"auto"``,
            ``"ray://head:10001"``; ``None``: a new local Ray instance), with
            :func:`pi_env.core.cluster.ray_init_kwargs` (the ``pi_env`` package shipped to the workers).
        actor_options: ``ray.remote`` options of every actor (default ``{"num_cpus": 1,
            "scheduling_strategy": "SPREAD"}``: one CPU each, spread over the nodes), or a list of
            one dict per worker (to pin workers to nodes).

    Raises:
        PIError: ``workers`` below 1, Ray missing with ``use_ray`` or no cluster at ``address``
            (:func:`connect_ray`), fewer CPUs in the cluster than the actors ask in all (``ray
            .cluster_resources()["CPU"]``: the actors that do not fit would wait forever), a bad
            option of ``spec``.
    """

    def __init__(self, spec: CollectSpec, workers: int, seed: int = 0, *, use_ray: bool = False,
                 address: str | None = None, actor_options: "dict[str, Any] | Sequence[dict[str, Any]] | None" = None):
        if workers < 1:
            raise PIError(f"Collector: workers must be at least 1, got {workers}")
        self.spec, self.workers, self.seed, self.use_ray = spec, int(workers), int(seed), bool(use_ray)
        self.seeds = worker_seeds(seed, workers)
        self._started_ray = False
        if not use_ray:
            self._workers: list[Any] = [RolloutWorker(spec, s) for s in self.seeds]
            return
        options = actor_options if actor_options is not None else {"num_cpus": 1, "scheduling_strategy": "SPREAD"}
        per_worker = [options] * workers if isinstance(options, dict) else list(options)
        if len(per_worker) != workers:
            raise PIError(f"Collector: actor_options lists {len(per_worker)} workers' options, not {workers}")
        self._started_ray = connect_ray(address, workers, per_worker)
        import ray

        actor = ray.remote(RolloutWorker)
        self._workers = [actor.options(**o).remote(spec, s) for o, s in zip(per_worker, self.seeds)]
        ray.get([w.node.remote() for w in self._workers])  # constructed (a bad spec fails here)

    def _call(self, method: str, *args: Any) -> list[Any]:
        if not self.use_ray:
            return [getattr(w, method)(*args) for w in self._workers]
        import ray

        args = tuple(ray.put(a) if isinstance(a, dict) else a for a in args)  # the weights once to the store
        return ray.get([getattr(w, method).remote(*args) for w in self._workers])

    def collect(self, weights: dict[str, Any], steps: int) -> Rollout:
        """Every worker's :meth:`RolloutWorker.collect` with ``weights``, concatenated in worker order.

        Args:
            weights: the policy's state dict (``policy.state_dict()``; tensors or numpy arrays).
            steps: steps per game.

        Returns:
            A :class:`Rollout` of ``steps`` x ``workers * spec.num_envs``.
        """
        return Rollout.concat(self._call("collect", _as_numpy(weights), int(steps)))

    def add_snapshot(self, weights: dict[str, Any]) -> None:
        """:meth:`RolloutWorker.add_snapshot` on every worker."""
        self._call("add_snapshot", _as_numpy(weights))

    def nodes(self) -> list[str]:
        """Each worker's Ray node id (``"local"`` in this process), in worker order."""
        return self._call("node")

    def close(self) -> None:
        """Close the workers' envs; end the Ray actors (and the Ray instance this collector started)."""
        if self.use_ray:
            import ray

            for w in self._workers:
                ray.kill(w)
            if self._started_ray:
                ray.shutdown()
        else:
            for w in self._workers:
                w.close()
        self._workers = []

    def __enter__(self) -> "Collector":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _check_cpus(workers: int, cpus: list[float], have: float) -> None:
    """Refuse ``workers`` actors asking ``cpus`` CPUs each when the cluster has only ``have`` CPUs
    in all: Ray would keep the ones that do not fit waiting for CPUs forever."""
    need = sum(cpus)
    if need <= have:
        return
    uniform = len(set(cpus)) == 1
    fit = int(have // cpus[0]) if uniform else 0
    each = f"{cpus[0]:g} each" if uniform else "in all"
    hint = (f"pass --ray-actors {fit} or fewer (dividing --num-envs), or add CPUs to the cluster" if fit >= 1
            else "add CPUs to the cluster")
    raise PIError(f"--ray-actors {workers}: the actors need {need:g} CPUs ({each}), the Ray cluster has "
                  f"{have:g}: {hint}")


def connect_ray(address: "str | None", workers: int,
                actor_options: "Sequence[dict[str, Any]] | None" = None) -> bool:
    """Join the Ray cluster at ``address`` (``"auto"``, ``"HOST:PORT"``, ``"ray://HOST:10001"``;
    ``None``: ``RAY_ADDRESS``, else a new local instance of ``workers`` CPUs) unless Ray is
    initialized already (:func:`pi_env.core.cluster.connect_ray`, as ``pi-env tournament --backend
    ray``: a cluster that is not there is refused at once), then check that the cluster has the CPUs
    the ``workers`` actors ask in all (``ray.cluster_resources()["CPU"]``): Ray would keep the
    actors that do not fit waiting for CPUs forever.

    Args:
        address: as above. workers: how many actors will be created.
        actor_options: their ``ray.remote`` options, one dict per actor (``num_cpus``, default 1);
            ``None``: 1 CPU each.

    Returns:
        Whether this call initialized Ray (the caller shuts it down when done).

    Raises:
        PIError: Ray is missing, no Ray cluster at the address, or fewer CPUs than the actors ask
            (one line saying how many there are and what to pass; Ray is shut down again if this
            call started it).
    """
    from pi_env.core.cluster import connect_ray as connect

    started = connect(address, workers, "collecting on Ray needs Ray: pip install '.[ray]' (from a checkout of pi-env)")
    import ray

    cpus = [float(o.get("num_cpus", 1)) for o in actor_options] if actor_options is not None else [1.0] * workers
    try:
        _check_cpus(workers, cpus, float(ray.cluster_resources().get("CPU", 0)))
    except PIError:
        if started:
            ray.shutdown()
        raise
    return started


def fill_rollout_buffer(model: Any, collector: "Collector", callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                        use_masking: bool = True) -> bool:
    """``MaskablePPO.collect_rollouts`` with the experience of ``collector``: what
    :func:`pi_env.rl.train.train` binds as ``model.collect_rollouts`` when it collects with workers
    (``collect_workers``). The model's current weights go to the workers, their :class:`Rollout`
    fills ``rollout_buffer`` (``n_rollout_steps`` x ``workers * spec.num_envs`` rows: the model's
    env must have that many games), the returns and advantages are computed from its last values,
    and the callback sees one step whose ``infos`` hold the finished games' ``episode`` dicts.

    Returns:
        False when the callback stops training (as SB3), else True.
    """
    import torch

    model.policy.set_training_mode(False)
    rollout_buffer.reset()
    callback.on_rollout_start()
    r = collector.collect(model.policy.state_dict(), n_rollout_steps)
    T, B = r.actions.shape
    if (T, B) != (rollout_buffer.buffer_size, rollout_buffer.n_envs):
        raise PIError(f"the workers collected {T} steps x {B} games, the rollout buffer holds "
                      f"{rollout_buffer.buffer_size} x {rollout_buffer.n_envs}")
    buf = rollout_buffer
    buf.observations[:] = r.observations.reshape(buf.observations.shape)
    buf.actions[:] = r.actions.reshape(buf.actions.shape)
    buf.rewards[:], buf.episode_starts[:] = r.rewards, r.episode_starts
    buf.values[:], buf.log_probs[:] = r.values, r.log_probs
    buf.action_masks[:] = r.action_masks.reshape(buf.action_masks.shape)
    buf.pos, buf.full = T, True
    model.num_timesteps += T * B
    infos = [{"episode": e} for e in r.episodes]
    callback.update_locals({"infos": infos})
    if not callback.on_step():
        return False
    model._update_info_buffer(infos)
    model._last_episode_starts = r.last_episode_starts
    buf.compute_returns_and_advantage(last_values=torch.from_numpy(r.last_values), dones=r.last_episode_starts)
    callback.update_locals({"infos": infos})
    callback.on_rollout_end()
    return True


def collect(spec: CollectSpec, weights: dict[str, Any], steps: int, *, workers: int = 1, seed: int = 0,
            use_ray: bool = False, address: str | None = None,
            actor_options: "dict[str, Any] | Sequence[dict[str, Any]] | None" = None) -> Rollout:
    """One collection from new games: a :class:`Collector` used once, then closed.

    Args:
        spec, workers, seed, use_ray, address, actor_options: :class:`Collector`'s.
        weights, steps: :meth:`Collector.collect`'s.

    Returns:
        The :class:`Rollout` (``steps`` x ``workers * spec.num_envs``); the same arrays with
        ``use_ray`` True or False.
    """
    with Collector(spec, workers, seed, use_ray=use_ray, address=address, actor_options=actor_options) as c:
        return c.collect(weights, steps)
