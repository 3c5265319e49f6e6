"""RLlib's view of P.I. (needs ``pip install '.[rllib]'``): the PettingZoo AEC env through RLlib's own
``PettingZooEnv`` wrapper, with observations named as RLlib's action-masking module reads them.

* :class:`PiPettingZooEnv` (registered as :data:`ENV_NAME` by :func:`register`): ``pi_env.env(
  **env_config)`` wrapped by ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``; each
  observation becomes ``{"observations": float32 flat encoding, "action_mask": float32[1730]}``
  (the flat encoding is :func:`pi_env.envs.encoders.encode_flat_reference` of the player's own
  engine observation, docs/rules.md §9). The class lives in the library (not in a script) so that
  remote env runners on a cluster import it by name from the installed ``pi_env``.
* :func:`ray_init_kwargs` (:mod:`pi_env.core.cluster`): what :func:`ray.init` gets for a cluster address (``--ray-address``
  everywhere in pi-env): the address and a ``runtime_env`` that ships the ``pi_env`` package to the
  workers (``py_modules``: its code and the model zoo's files), so a cluster needs only Ray and the
  ``rl``/``rllib`` extras' libraries installed, or ``pip install 'pi-deduction[rllib]'`` on every node.

:mod:`pi_env.experiments.train_rllib` trains PPO on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pi_env.core.cluster import ray_init_kwargs

__all__ = ["ENV_NAME", "RAY_INSTALL_HINT", "PiPettingZooEnv", "register", "require_ray", "ray_init_kwargs"]

ENV_NAME = "pi_env_aec"
RAY_INSTALL_HINT = ("install the RLlib extra: pip install torch --index-url https://download.pytorch.org/whl/cpu "
                    "&& pip install '.[rllib]'")


def require_ray() -> None:
    """Raise a one-line :class:`~pi_env.core.errors.PIError` unless ``ray[rllib]`` and torch import."""
    from pi_env.core.errors import PIError

    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise PIError(f"the RLlib example needs ray[rllib] and torch ({exc.name} is missing); "
                      f"{RAY_INSTALL_HINT}") from None


try:  # the env class lives at module level of the library (remote env runners import it by name)
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
        from pi_env.encodings import flat_bounds, flat_scales

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
