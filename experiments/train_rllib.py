"""RLlib example: PPO on the PettingZoo P.I. environment with Ray.

    python -m pi_env.experiments.train_rllib --out results/rllib [--iterations 3] [--players 2]
        [--policies shared|per-seat] [--env-runners 0] [--batch 1000] [--seed 0]
        [--checkpoint-every 1] [--resume | --force] [--ray-address ADDR]

Needs ``pip install '.[rllib]'`` (``ray[rllib]``, which brings torch: install the CPU build first, see
docs/reinforcement-learning.md; ray pins its own gymnasium version, which pi-env runs on). Without
it the script says so and exits with status 2.

* The environment is :class:`pi_env.rl.rllib_env.PiPettingZooEnv` (the PettingZoo AEC env wrapped
  by RLlib's own ``PettingZooEnv``, observations renamed for RLlib's action-masking module),
  registered as ``"pi_env_aec"``; it lives in the library, so remote env runners import it from the
  installed ``pi_env``.
* Action masking: RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules``).
* Policies (new API stack: one ``RLModule`` per policy id): ``shared`` (default) or ``per-seat``.
* Rewards: the PettingZoo env's (score changes).
* **Checkpoints**: every ``--checkpoint-every`` iterations and at the end, the algorithm (modules,
  optimizer state, counters) is saved to ``--out``/``checkpoint_N`` (``Algorithm.save_to_path``);
  ``--resume`` restores the newest one and trains ``--iterations`` more; an existing ``--out`` is
  refused without ``--resume`` or ``--force``.

**On a Ray cluster** the one change is the address, ``--ray-address ADDR`` (the same flag as
``pi-env tournament --backend ray``): ``ray.init`` then connects to the cluster and ships the
``pi_env`` package to its workers (``runtime_env`` ``py_modules``,
:func:`pi_env.rl.rllib_env.ray_init_kwargs`); raise ``--env-runners`` to the sampling workers
wanted. Without an address a local Ray instance on this machine is started.

:func:`train` returns one dict per iteration (environment steps sampled, episodes, mean episode
return per policy, seconds, checkpoint); ``tests/test_rllib.py`` (marked slow) runs it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from pi_env.rl.rllib_env import (ENV_NAME, RAY_INSTALL_HINT, PiPettingZooEnv, ray_init_kwargs, register,
                                 require_ray)

__all__ = ["ENV_NAME", "RAY_INSTALL_HINT", "PiPettingZooEnv", "register", "make_config", "train", "main",
           "require_ray", "checkpoints"]


def make_config(*, players: int = 2, policies: str = "shared", env_runners: int = 0, batch: int = 1000,
                seed: int = 0, hidden: int = 64) -> Any:
    """The ``PPOConfig`` (new API stack) of the example.

    Args:
        players: 2..5 (the PettingZoo env's ``num_players``).
        policies: ``"shared"`` (one policy for every seat) or ``"per-seat"``.
        env_runners: RLlib ``num_env_runners`` (0: sample in the driver process).
        batch: ``train_batch_size_per_learner`` (environment steps per iteration).
        seed: RLlib's ``debugging(seed=...)``.
        hidden: width of the encoder and head layers.

    Raises:
        PIError: an unknown ``policies`` value.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from pi_env.core.errors import PIError

    agents = [f"player_{i}" for i in range(players)]
    if policies == "shared":
        ids = ["shared"]

        def mapping(agent_id, episode, **kwargs):
            return "shared"
    elif policies == "per-seat":
        ids = agents

        def mapping(agent_id, episode, **kwargs):
            return agent_id
    else:
        raise PIError(f"policies must be 'shared' or 'per-seat', got {policies!r}")
    model = {"fcnet_hiddens": [hidden], "head_fcnet_hiddens": [hidden], "head_fcnet_activation": "relu"}
    return (PPOConfig()
            .environment(register(), env_config={"num_players": players})
            .multi_agent(policies=set(ids), policy_mapping_fn=mapping)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                pid: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model) for pid in ids}))
            .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1,
                         rollout_fragment_length="auto")
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=batch, minibatch_size=min(256, batch), num_epochs=2,
                      lr=3e-4, entropy_coeff=0.0)
            .debugging(seed=seed))


def checkpoints(out: "str | Path") -> list[Path]:
    """The checkpoint folders ``out/checkpoint_N``, oldest first."""
    out = Path(out)
    found = [p for p in out.glob("checkpoint_*") if p.is_dir() and p.name.split("_")[1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("_")[1]))


def train(iterations: int = 3, *, out: "str | Path | None" = None, ray_address: str | None = None,
          checkpoint_every: int = 1, resume: bool = False, force: bool = False,
          **config_kwargs: Any) -> list[dict[str, Any]]:
    """Train for ``iterations`` PPO iterations (starting Ray unless it is running), saving
    checkpoints to ``out`` (module docstring); one summary dict per iteration.

    Raises:
        PIError: ray[rllib] or torch is missing, a bad option (see :func:`make_config`), an
            existing ``out`` without ``resume``/``force``, ``resume`` without a checkpoint.
    """
    from pi_env.core.errors import PIError

    require_ray()
    import ray

    start = 0
    if out is not None:
        from pi_env.core.files import check_replaceable_dir, remove_run_dir

        def is_run(d: Path) -> bool:
            return bool(checkpoints(d))

        what = "an RLlib run (no checkpoint_N folder)"
        if force:
            check_replaceable_dir(out, is_run, what=what)
        out = Path(out).resolve()
        if resume and force:
            raise PIError("--resume and --force exclude each other")
        if resume:
            if not checkpoints(out):
                raise PIError(f"--resume: {str(out)!r} holds no checkpoint_N folder")
            start = int(checkpoints(out)[-1].name.split("_")[1])
        elif out.exists() and any(out.iterdir()):
            if not force:
                raise PIError(f"output directory {str(out)!r} exists and is not empty: --resume to continue, "
                              "--force to start again (deletes it)")
            remove_run_dir(out, is_run, what=what)
        out.mkdir(parents=True, exist_ok=True)
    elif resume:
        raise PIError("--resume needs --out")
    started = not ray.is_initialized()
    if started:
        ray.init(log_to_driver=False, **ray_init_kwargs(ray_address, num_cpus=1 + config_kwargs.get("env_runners", 0)))
    algo = make_config(**config_kwargs).build_algo()
    if start:
        algo.restore_from_path(str(checkpoints(out)[-1]))
    rows = []
    try:
        for i in range(start, start + iterations):
            t0 = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {"iteration": i + 1, "seconds": round(time.perf_counter() - t0, 2),
                   "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                   "episodes": int(runners.get("num_episodes_lifetime", 0)),
                   "episode_return_mean": runners.get("episode_return_mean"),
                   "policy_return_mean": dict(runners.get("module_episode_returns_mean", {}))}
            if out is not None and ((i + 1 - start) % checkpoint_every == 0 or i + 1 == start + iterations):
                path = out / f"checkpoint_{i + 1}"
                algo.save_to_path(str(path))
                row["checkpoint"] = str(path)
            rows.append(row)
    finally:
        algo.stop()
        if started:
            ray.shutdown()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring); errors are one line, exit status 2."""
    from pi_env.core.errors import PIError

    p = argparse.ArgumentParser(prog="python -m pi_env.experiments.train_rllib",
                                description="RLlib PPO on the PettingZoo P.I. environment.")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--policies", choices=("shared", "per-seat"), default="shared")
    p.add_argument("--env-runners", type=int, default=0, help="RLlib env runners (0: sample in this process)")
    p.add_argument("--batch", type=int, default=1000, help="environment steps per iteration")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="checkpoint directory (checkpoint_N folders)")
    p.add_argument("--checkpoint-every", type=int, default=1, help="iterations between checkpoints (default 1)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in --out")
    g.add_argument("--force", action="store_true", help="delete an existing --out and start again")
    p.add_argument("--ray-address", default=None,
                   help="Ray cluster address (e.g. auto); default: a local Ray instance")
    args = p.parse_args(argv)
    try:
        require_ray()
    except PIError as exc:  # one line, no usage block: the command line itself was fine
        p.exit(2, f"{p.prog}: error: {exc}\n")
    try:
        if args.iterations < 1 or args.batch < 1 or args.env_runners < 0 or args.checkpoint_every < 1:
            raise PIError("--iterations, --batch and --checkpoint-every must be at least 1, --env-runners at least 0")
        for row in train(args.iterations, out=args.out, ray_address=args.ray_address,
                         checkpoint_every=args.checkpoint_every, resume=args.resume, force=args.force,
                         players=args.players, policies=args.policies, env_runners=args.env_runners,
                         batch=args.batch, seed=args.seed):
            print(row, flush=True)
    except PIError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
