"""RL training speed end to end: environment steps per second of PPO training,
rollout collection and updates together, 2-player games against a fixed built-in opponent.

Rows, all measured in this run, each a fixed number of PPO updates after one untimed warm-up
update (torch's first calls). Every numba kernel the rows' environments use is compiled first, in
one warm-up block announced on stderr (:func:`pi_env.core._config.warming_up`, as the other
benchmarks; :func:`warm_up`):

* (a) **baseline**, today's path (``python -m pi_env.experiments.train_sb3 2p``): sb3-contrib's
  MaskablePPO on :class:`pi_env.rl.sb3_envs.SelfPlaySB3VecEnv` (64 games, the flat encoding
  ``float32[4442]``, 1730 actions with the factorized head, ``random`` played game by game, its
  defaults: 128 steps x 64 games per update, minibatches of 1024, 4 epochs);
* (b) **the engine path as first landed** (:data:`PREVIOUS`): sb3-contrib's MaskablePPO on
  :class:`pi_env.rl.engine_env.SB3LearnerVecEnv` (1024 games, ``random`` in batch, the compact
  51-choice action space, ``--encoding``), 32 steps x 1024 games per update, minibatches of 8192,
  2 epochs, trunk 256, heads 128, one thread;
* (c) **the library's defaults** (:mod:`pi_env.rl.train`: :data:`~pi_env.rl.train.DEFAULT_NUM_ENVS`
  = 4096 games, :data:`~pi_env.rl.train.PPO_DEFAULTS` = 16 steps x 4096 games per update,
  minibatches of 16,384, 2 epochs, trunk 128, heads 64), one thread for numba and torch;
* (d) the same on two threads (``--threads 2``: the engine, the encoder and torch);
* (e) as (d) against the batched ``gain`` opponent (what training plays against);
* (g), (h) as (c) (one thread) against ``heuristic`` in batch
  (:class:`pi_env.rl.heuristic_batch.HeuristicOpponent`, the agent's own actions), at 2 and at 4
  players (4 players: three ``heuristic`` opponents);
* (i), (j) the same against ``heuristic`` played game by game (:class:`pi_env.rl.pool.AgentOpponent`,
  the path before the batch version) on ``--agent-envs`` games (256; 16 steps x 256 games per update,
  minibatches of 4096), at 2 and at 4 players;
* (k) as (g) against ``greedy`` in batch (:class:`pi_env.agents.greedy_batch.GreedyOpponent`, the
  agent's own actions), 2 players; (l) the same against ``greedy`` played game by game
  (:class:`pi_env.rl.pool.AgentOpponent`) on ``--agent-envs`` games, as (i);
* (m) as (k) at 4 players (three ``greedy`` opponents in batch; compare with (h), ``heuristic`` in
  batch at 4 players);
* (n) as (k) at 5 players (four ``greedy`` opponents in batch: the joint posterior of three unknown
  players counted in the decision kernel, :func:`pi_env.solvers.own_info.disjoint_triple_counts`);
  (o) the same against ``greedy`` played game by game on ``--agent-envs`` games, as (l) (the path
  5-player training took before);
* (f) (only with ``--rows f``) **TorchRL** on the environment of (c) with its rollout size,
  minibatches and epochs and the network of (b) (trunk 256, heads 128), one thread: TorchRL's ``Collector``, ``GAE`` and ``ClipPPOLoss`` (its PPO, not
  ours), Adam, gradient clipping as SB3.

Target for (c)/(d) on the 2-core machine: >= 20,000 environment steps per second (floor 10,000).
The script prints the load average at its start and end: figures taken while other work runs on the
machine are development figures.

    python benchmarks/rl_training_speed.py [--updates 3] [--num-envs 4096] [--rows abcde]
    python benchmarks/rl_training_speed.py --rows ghij   # heuristic in batch vs game by game
    python benchmarks/rl_training_speed.py --rows kl     # greedy in batch vs game by game (2 players)
    python benchmarks/rl_training_speed.py --rows ghkm   # heuristic and greedy in batch, 2 and 4 players
    python benchmarks/rl_training_speed.py --rows no     # greedy in batch vs game by game, 5 players
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _common(threads: int) -> None:
    import numba
    import torch

    numba.set_num_threads(1)
    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)


class _Clock:
    """An SB3 callback timing rollouts (collection) and the whole run after the warm-up update."""

    def __new__(cls, warmup_steps: int):
        from stable_baselines3.common.callbacks import BaseCallback

        class Clock(BaseCallback):
            def _on_training_start(self) -> None:
                self.collect = 0.0
                self.t0 = None

            def _on_rollout_start(self) -> None:
                if self.t0 is None and self.num_timesteps >= warmup_steps:
                    self.t0 = time.perf_counter()
                    self.s0 = self.num_timesteps
                self.r0 = time.perf_counter()

            def _on_step(self) -> bool:
                return True

            def _on_rollout_end(self) -> None:
                if self.t0 is not None:
                    self.collect += time.perf_counter() - self.r0

        return Clock()


def bench_baseline(updates: int, seed: int) -> dict:
    from sb3_contrib import MaskablePPO

    from pi_env.agents._sb3_nets import FactorizedMaskablePolicy, SharedInputExtractor
    from pi_env.experiments.train_sb3 import HIDDEN, PPO_DEFAULTS
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv

    import torch
    torch.set_num_threads(1)
    env = SelfPlaySB3VecEnv(64, 2, opponents=["random"], seed=seed)
    model = MaskablePPO(FactorizedMaskablePolicy, env, seed=seed, device="cpu", verbose=0,
                        policy_kwargs={"features_extractor_class": SharedInputExtractor,
                                       "features_extractor_kwargs": {"features_dim": HIDDEN},
                                       "net_arch": {"pi": [HIDDEN], "vf": [HIDDEN]}}, **PPO_DEFAULTS)
    per = 64 * PPO_DEFAULTS["n_steps"]
    return _run_sb3(model, per, updates, "(a) baseline: MaskablePPO, SelfPlaySB3VecEnv B=64, flat 4442, 1730 actions")


def _run_sb3(model, per_update: int, updates: int, label: str) -> dict:
    clock = _Clock(per_update)
    model.learn(total_timesteps=per_update * (updates + 1), callback=clock)
    wall = time.perf_counter() - clock.t0
    steps = model.num_timesteps - clock.s0
    return {"row": label, "steps": steps, "seconds": wall, "sps": steps / wall, "collect_sps": steps / clock.collect}


def _opponents(opponent: str, num_players: int) -> list:
    """The opponents of a row: ``num_players - 1`` times ``opponent``; ``"heuristic/agent"`` (``"greedy/agent"``)
    is the ``heuristic`` (``greedy``) agent played game by game (:class:`pi_env.rl.pool.AgentOpponent`)."""
    if not opponent.endswith("/agent"):
        return [opponent] * (num_players - 1)
    from pi_env.agents import make_agent
    from pi_env.rl.pool import AgentOpponent

    name = opponent.split("/")[0]
    return [AgentOpponent(lambda: make_agent(name), num_players) for _ in range(num_players - 1)]


def bench_sb3(updates: int, seed: int, num_envs: int, encoding: str, threads: int, *, ppo: dict | None = None,
              trunk=(256,), hidden=(128,), opponent: str = "random", label: str = "(b)",
              num_players: int = 2) -> dict:
    import numba
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.agents.learned import SOLVE_ACTION
    from pi_env.rl.engine_env import SB3LearnerVecEnv
    from pi_env.rl.train import INITIAL_SOLVE_BIAS, PPO_DEFAULTS, TrunkExtractor

    _common(threads)
    numba.set_num_threads(threads)
    settings = {**PPO_DEFAULTS, **(ppo or {})}
    env = SB3LearnerVecEnv(num_envs, num_players, _opponents(opponent, num_players), encoding=encoding, seed=seed,
                           parallel=threads > 1, reward="win")
    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", verbose=0,
                        policy_kwargs={"features_extractor_class": TrunkExtractor,
                                       "features_extractor_kwargs": {"trunk": list(trunk)},
                                       "net_arch": {"pi": list(hidden), "vf": list(hidden)},
                                       "activation_fn": torch.nn.ReLU},
                        **settings)
    with torch.no_grad():
        model.policy.action_net.bias[SOLVE_ACTION] = INITIAL_SOLVE_BIAS
    per = num_envs * settings["n_steps"]
    net = "-".join(str(h) for h in (*trunk, *hidden))
    return _run_sb3(model, per, updates,
                    f"{label} MaskablePPO, engine env {num_players}p B={num_envs}, {encoding}, vs {opponent}, net {net}, "
                    f"{settings['n_steps']} steps x {num_envs} / minibatch {settings['batch_size']} x "
                    f"{settings['n_epochs']} epochs, {threads} thread{'s' if threads > 1 else ''}")


def bench_torchrl(updates: int, seed: int, num_envs: int, encoding: str, threads: int) -> dict:
    import torch
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from pi_env.agents.learned import POLICY_ACTIONS, SOLVE_ACTION
    from pi_env.rl.engine_env import torchrl_env
    from pi_env.rl.train import INITIAL_SOLVE_BIAS, PPO_DEFAULTS

    _common(threads)
    torch.manual_seed(seed)
    env = torchrl_env(num_envs, 2, ["random"], encoding=encoding, seed=seed, parallel=False, reward="win")
    n = env.batch.size
    trunk = nn.Sequential(nn.Linear(n, 256), nn.ReLU())  # shared, as SB3's features extractor
    pol = nn.Sequential(trunk, nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, POLICY_ACTIONS))
    val = nn.Sequential(trunk, nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))
    with torch.no_grad():
        pol[-1].bias[SOLVE_ACTION] = INITIAL_SOLVE_BIAS
    actor = ProbabilisticActor(TensorDictModule(pol, in_keys=["observation"], out_keys=["logits"]),
                               in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
                               distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(val, in_keys=["observation"])
    s = PPO_DEFAULTS
    frames = num_envs * s["n_steps"]
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=frames * (updates + 1), device="cpu")
    gae = GAE(gamma=s["gamma"], lmbda=s["gae_lambda"], value_network=critic, average_gae=True)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=s["clip_range"], entropy_coeff=s["ent_coef"],
                       critic_coeff=s["vf_coef"], normalize_advantage=True)
    opt = torch.optim.Adam(loss.parameters(), lr=s["learning_rate"])
    t0 = steps = None
    collect = 0.0
    tc = time.perf_counter()
    for i, data in enumerate(collector):
        if i == 1:
            t0, steps, collect = tc, 0, 0.0
        collect += time.perf_counter() - tc
        data = data.reshape(-1)
        with torch.no_grad():
            gae(data)
        for _ in range(s["n_epochs"]):
            perm = torch.randperm(data.numel())
            for k in range(0, data.numel(), s["batch_size"]):
                out = loss(data[perm[k:k + s["batch_size"]]])
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                opt.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), s["max_grad_norm"])
                opt.step()
        if steps is not None:
            steps += frames
        tc = time.perf_counter()
    wall = time.perf_counter() - t0
    collector.shutdown()
    return {"row": f"(c) TorchRL ClipPPOLoss, engine env B={num_envs}, {encoding}, 51 choices",
            "steps": steps, "seconds": wall, "sps": steps / wall, "collect_sps": steps / collect}


def warm_up(rows: str, num_envs: int, encoding: str, seed: int, steps: int = 8) -> None:
    """Compile every numba kernel the selected rows' environments use before any row is timed,
    under the benchmarks' warm-up notice (:func:`pi_env.core._config.warming_up`): each distinct
    environment of the rows (its games, encoding, opponent and threading, as the row builds it) is
    reset and stepped ``steps`` times with random legal actions (solves included). Torch's first
    calls stay in each row's untimed warm-up update."""
    import numba

    from pi_env.core._config import warming_up
    from pi_env.rl.engine_env import LearnerBatch
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv

    rng = np.random.default_rng(seed)

    def pick(mask: np.ndarray) -> np.ndarray:
        return np.argmax(rng.random(mask.shape) * mask, axis=1)

    envs = {(PREVIOUS["num_envs"], 1, "random", 2): "b", (num_envs, 1, "random", 2): "cf",
            (num_envs, 2, "random", 2): "d", (num_envs, 2, "gain", 2): "e", (num_envs, 1, "heuristic", 2): "g",
            (num_envs, 1, "heuristic", 4): "h", (16, 1, "heuristic/agent", 2): "i", (16, 1, "heuristic/agent", 4): "j",
            (num_envs, 1, "greedy", 2): "k", (16, 1, "greedy/agent", 2): "l", (num_envs, 1, "greedy", 4): "m",
            (num_envs, 1, "greedy", 5): "n", (16, 1, "greedy/agent", 5): "o"}
    with warming_up("rl_training_speed"):
        if "a" in rows:
            env = SelfPlaySB3VecEnv(64, 2, opponents=["random"], seed=seed)
            env.reset()
            for _ in range(steps):
                env.step(pick(env.action_masks()))
            env.close()
        for (games, threads, opponent, players), used_by in envs.items():
            if not set(used_by) & set(rows):
                continue
            numba.set_num_threads(threads)
            batch = LearnerBatch(games, players, _opponents(opponent, players), encoding, seed, parallel=threads > 1,
                                 reward="win")
            _, mask = batch.reset()
            for _ in range(steps):
                _, mask, *_ = batch.step(pick(mask))
        numba.set_num_threads(1)


PREVIOUS = {"num_envs": 1024, "ppo": {"n_steps": 32, "batch_size": 8192, "n_epochs": 2}, "trunk": (256,),
            "hidden": (128,)}
"""The engine path as first landed (pi-env 0.2.0 development): 1024 games, 32 steps per update,
minibatches of 8192, 2 epochs, trunk 256, heads 128."""


def main() -> None:
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.core.errors import PIError
    from pi_env.rl.train import DEFAULT_HIDDEN, DEFAULT_NUM_ENVS, DEFAULT_TRUNK

    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--updates", type=int, default=3, help="timed PPO updates per row (after 1 warm-up)")
    p.add_argument("--num-envs", type=int, default=DEFAULT_NUM_ENVS)
    p.add_argument("--encoding", default="compact-v1")
    p.add_argument("--rows", default="abcde",
                   help="which rows to run (default abcde; f: TorchRL; g-j: heuristic in batch / game by game; "
                        "k, l: greedy in batch / game by game; m: greedy in batch, 4 players; n, o: greedy in "
                        "batch / game by game, 5 players)")
    p.add_argument("--agent-envs", type=int, default=256,
                   help="games of the rows (i), (j), (l), (o) (an agent game by game)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    try:
        require_rl()
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")  # one line: the install hint
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    warm_up(args.rows, args.num_envs, args.encoding, args.seed)
    rows = []
    new = dict(trunk=DEFAULT_TRUNK, hidden=DEFAULT_HIDDEN)
    if "a" in args.rows:
        rows.append(bench_baseline(args.updates, args.seed))
    if "b" in args.rows:
        rows.append(bench_sb3(args.updates, args.seed, PREVIOUS["num_envs"], args.encoding, 1, ppo=PREVIOUS["ppo"],
                              trunk=PREVIOUS["trunk"], hidden=PREVIOUS["hidden"], label="(b) previous engine path:"))
    if "c" in args.rows:
        rows.append(bench_sb3(args.updates, args.seed, args.num_envs, args.encoding, 1, label="(c) defaults:", **new))
    if "d" in args.rows:
        rows.append(bench_sb3(args.updates, args.seed, args.num_envs, args.encoding, 2, label="(d) defaults:", **new))
    if "e" in args.rows:
        rows.append(bench_sb3(args.updates, args.seed, args.num_envs, args.encoding, 2, opponent="gain",
                              label="(e) defaults:", **new))
    for row, players in (("g", 2), ("h", 4)):
        if row in args.rows:
            rows.append(bench_sb3(args.updates, args.seed, args.num_envs, args.encoding, 1, opponent="heuristic",
                                  label=f"({row}) defaults:", num_players=players, **new))
    small = {"n_steps": 16, "batch_size": 16 * args.agent_envs}
    for row, players in (("i", 2), ("j", 4)):
        if row in args.rows:
            rows.append(bench_sb3(args.updates, args.seed, args.agent_envs, args.encoding, 1, ppo=small,
                                  opponent="heuristic/agent", label=f"({row}) game by game:", num_players=players,
                                  **new))
    for row, players in (("k", 2), ("m", 4), ("n", 5)):
        if row in args.rows:
            rows.append(bench_sb3(args.updates, args.seed, args.num_envs, args.encoding, 1, opponent="greedy",
                                  label=f"({row}) defaults:", num_players=players, **new))
    for row, players in (("l", 2), ("o", 5)):
        if row in args.rows:
            rows.append(bench_sb3(args.updates, args.seed, args.agent_envs, args.encoding, 1, ppo=small,
                                  opponent="greedy/agent", label=f"({row}) game by game:", num_players=players,
                                  **new))
    if "f" in args.rows:
        rows.append(bench_torchrl(args.updates, args.seed, args.num_envs, args.encoding, 1))
    base = rows[0]["sps"] if "a" in args.rows else None
    print("\n| configuration | env steps timed | seconds | env steps/s (end to end) | during collection | ratio vs (a) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['sps'] / base:.1f}" if base else "-"
        print(f"| {r['row']} | {r['steps']:,} | {r['seconds']:.1f} | **{r['sps']:,.0f}** | {r['collect_sps']:,.0f} | {ratio} |")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
