"""RLlib example (issue #7, item 4): PPO on the PettingZoo P.I. environment with Ray.

    python -m pi_env.experiments.train_rllib [--iterations 3] [--players 2] [--policies shared|per-seat]
                                      [--env-runners 0] [--batch 1000] [--seed 0] [--address ADDR]

Needs ``pip install '.[ray]'`` (``ray[rllib]``, which brings torch: install the CPU build first, see
README "Reinforcement learning"). Without it the script says so and exits with status 2.

* The environment is :func:`pi_env.env` (the PettingZoo AEC env) wrapped by RLlib's own
  ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`` and registered as ``"pi_env_aec"``
  (:func:`register`). A thin subclass (:class:`PiPettingZooEnv`) only renames the observation
  keys to what RLlib's action-masking module reads (``{"observations": float32 flat encoding,
  "action_mask": float32[1730]}``, the flat encoding being :func:`pi_env.envs.encoders.encode_flat_reference`
  of the player's own observation, RULES.md §9).
* Action masking: RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules``): the
  logits of illegal actions get ``log(0)`` clamped to the float minimum.
* Policies (new API stack: one ``RLModule`` per policy id): ``shared`` (default, one module for
  every seat, ``policy_mapping_fn`` maps every player to it) or ``per-seat`` (module ``player_i``
  for seat ``i``).
* Rewards: the PettingZoo env's (score changes; RLlib's wrapper hands each player the reward it
  accumulated since its previous turn).

**On a Ray cluster** the one change is the address passed to ``ray.init``: run the script on a
node of the cluster with ``--address auto`` (or ``RAY_ADDRESS=auto``; ``ray.init(address="auto")``
in code), and raise ``--env-runners`` to the number of sampling workers wanted; nothing else
changes. Without an address a local Ray instance on this machine is started.

:func:`train` returns one dict per iteration (environment steps sampled, episodes, mean episode
return per policy, seconds); ``tests/test_rllib.py`` (marked slow) runs it for two iterations.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Sequence

import numpy as np

__all__ = ["ENV_NAME", "PiPettingZooEnv", "register", "make_config", "train", "main", "require_ray"]

ENV_NAME = "pi_env_aec"
RAY_INSTALL_HINT = ("install the Ray extra: pip install torch --index-url https://download.pytorch.org/whl/cpu "
                    "&& pip install '.[ray]'")


def require_ray() -> None:
    """Raise a one-line :class:`~pi_env.core.errors.PIError` unless ``ray[rllib]`` and torch import."""
    from pi_env.core.errors import PIError

    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise PIError(f"the RLlib example needs ray[rllib] and torch ({exc.name} is missing); "
                      f"{RAY_INSTALL_HINT}") from None


try:  # the env class must live at module level (remote env runners import it by name)
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv as _PettingZooEnv
except ImportError:  # without ray the module still imports; require_ray() explains what to install
    _PettingZooEnv = object


class PiPettingZooEnv(_PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over ``pi_env.env(**env_config)``, observations renamed for
    RLlib's action-masking module (module docstring). ``env_config``: the keyword arguments of
    :func:`pi_env.env` (``num_players``, ``edition``, ...)."""

    def __init__(self, env_config: dict[str, Any] | None = None):
        import gymnasium as gym

        import pi_env
        from pi_env.core.constants import NUM_ACTIONS
        from pi_env.envs.encoders import flat_bounds, flat_scales

        require_ray()
        env = pi_env.env(**dict(env_config or {}))
        super().__init__(env)
        game = env.unwrapped.config
        self._scales = flat_scales(game)
        low, high = flat_bounds(game)
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(low, high, dtype=np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, shape=(NUM_ACTIONS,), dtype=np.float32)})
        self.observation_spaces = {aid: space for aid in self.observation_spaces}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def _convert(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {aid: {"observations": o["observation"].astype(np.float32) * self._scales,
                      "action_mask": o["action_mask"].astype(np.float32)} for aid, o in obs.items()}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        return self._convert(obs), info

    def step(self, action):
        obs, rewards, terminated, truncated, infos = super().step(action)
        return self._convert(obs), rewards, terminated, truncated, infos


def register() -> str:
    """Register the environment with Ray Tune's registry as :data:`ENV_NAME`; returns the name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, lambda env_config: PiPettingZooEnv(env_config))
    return ENV_NAME


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


def train(iterations: int = 3, *, address: str | None = None, **config_kwargs: Any) -> list[dict[str, Any]]:
    """Train for ``iterations`` PPO iterations (starting Ray unless it is running: ``address`` as
    ``ray.init(address=...)``); one summary dict per iteration.

    Raises:
        PIError: ray[rllib] or torch is missing, or a bad option (see :func:`make_config`).
    """
    require_ray()
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 num_cpus=None if address else 1 + config_kwargs.get("env_runners", 0))
    algo = make_config(**config_kwargs).build_algo()
    rows = []
    try:
        for i in range(iterations):
            t0 = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            rows.append({"iteration": i + 1, "seconds": round(time.perf_counter() - t0, 2),
                         "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                         "episodes": int(runners.get("num_episodes_lifetime", 0)),
                         "episode_return_mean": runners.get("episode_return_mean"),
                         "policy_return_mean": dict(runners.get("module_episode_returns_mean", {}))})
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
    p.add_argument("--address", default=None, help="Ray cluster address (e.g. auto); default: local Ray")
    args = p.parse_args(argv)
    try:
        require_ray()
    except PIError as exc:  # one line, no usage block: the command line itself was fine
        p.exit(2, f"{p.prog}: error: {exc}\n")
    try:
        if args.iterations < 1 or args.batch < 1 or args.env_runners < 0:
            raise PIError("--iterations and --batch must be at least 1, --env-runners at least 0")
        for row in train(args.iterations, address=args.address, players=args.players, policies=args.policies,
                         env_runners=args.env_runners, batch=args.batch, seed=args.seed):
            print(row, flush=True)
    except PIError as exc:
        p.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
