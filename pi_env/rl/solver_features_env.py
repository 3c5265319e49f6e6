"""A vector-env wrapper that appends the solver features (:mod:`pi_env.solvers.features`) to the
self-play env's observations."""

from __future__ import annotations

from typing import Any

import numpy as np

from pi_env.core.errors import PIError
from pi_env.solvers.features import SOLVER_FEATURES, solver_features

__all__ = ["SolverFeaturesVecEnv"]


class SolverFeaturesVecEnv:
    """A wrapper over :class:`pi_env.envs.selfplay.SelfPlayVecEnv` whose observations are the
    solver-augmented encoding ``float32[B, D + 37]`` (module docstring): the wrapped env's float32
    rows (``D`` = 618 + 1912·P for the flat encoding, 150 + 269·P for ``observations="packed"``, 0
    for ``observations=False``) followed by the row player's solver features.

    Everything else (rewards, terminations, infos, autoreset, opponents) is the wrapped env's.
    Each row's features are those of the row's player (``info["to_move"]``) in the current state:
    for a terminal row, the final position of the finished game.

    Args:
        env: the :class:`~pi_env.envs.selfplay.SelfPlayVecEnv` to wrap.

    Raises:
        PIError: the env's rows are not float32 (``observations="packed-int8"`` / ``"packed-int16"``:
            integer rows for :class:`pi_env.rl` learners to convert, which the appended float
            features would break).

    Example:
        >>> from pi_env.envs.selfplay import SelfPlayVecEnv
        >>> env = SolverFeaturesVecEnv(SelfPlayVecEnv(2, num_players=2, seed=0))
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape
        (2, 4479)
    """

    def __init__(self, env: Any):
        import gymnasium.spaces as spaces

        self.env = env
        self.num_envs = env.num_envs
        self.config = env.config
        self.metadata = env.metadata
        space = env.single_observation_space
        if space.dtype != np.float32:
            raise PIError(f"SolverFeaturesVecEnv appends float32 features to float32 rows, but the env's rows are "
                          f"{space.dtype} (observations={getattr(env, 'encoding', None)!r}); use 'flat' or 'packed'")
        D = int(space.shape[0])
        self._buffer = np.zeros((self.num_envs, D + SOLVER_FEATURES), dtype=np.float32)
        self._view = self._buffer.view()
        self._view.flags.writeable = False
        low, high = env.single_observation_space.low, env.single_observation_space.high
        self.single_observation_space = spaces.Box(
            np.concatenate([low, np.zeros(SOLVER_FEATURES, np.float32)]),
            np.concatenate([high, np.ones(SOLVER_FEATURES, np.float32)]), dtype=np.float32)
        self.observation_space = spaces.Box(
            np.broadcast_to(self.single_observation_space.low, self._buffer.shape),
            np.broadcast_to(self.single_observation_space.high, self._buffer.shape), dtype=np.float32)
        self.single_action_space = env.single_action_space
        self.action_space = env.action_space

    def _augment(self, obs: np.ndarray, info: dict) -> np.ndarray:
        D = obs.shape[1]
        self._buffer[:, :D] = obs
        solver_features(self.env.state, self.config, info["to_move"].astype(np.int64),
                        out=self._buffer[:, D:])
        return self._view.copy() if getattr(self.env, "copy", False) else self._view

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """As :meth:`SelfPlayVecEnv.reset`, with augmented observations."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self._augment(obs, info), info

    def step(self, actions: np.ndarray):
        """As :meth:`SelfPlayVecEnv.step`, with augmented observations."""
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        return self._augment(obs, info), rewards, terminated, truncated, info

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def close(self) -> None:
        self.env.close()
