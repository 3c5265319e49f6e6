"""Stable-Baselines3 ``VecEnv`` adapters over the batched P.I. envs, with ``action_masks()`` for
sb3-contrib's MaskablePPO (needs the ``rl`` extra; used by :mod:`pi_env.experiments.train_sb3`).

* :class:`SoloSB3VecEnv`: Solo Time Attack, over :class:`pi_env.envs.solo.SoloTimeAttackVectorEnv`
  (``B`` games in one engine call). Observation ``float32[B, 2452 + 37 + 1680]``
  (:func:`solo_policy_input`): the solo observation divided entry by entry by its upper bound
  (:func:`pi_env.encodings.solo_observation_bounds`; entries with bound 0 unchanged), the 37 solver
  features (marginals and log-count of the cases still possible) and the allowed-solve flags, all
  in ``[0, 1]``. Reward −1 per action (the env's).
* :class:`SelfPlaySB3VecEnv`: standard games against fixed opponents, over
  :class:`pi_env.envs.selfplay.SelfPlayVecEnv` (one rotating learner seat per game). Observation
  ``float32[B, 618 + 1912·P]``: the flat encoding of the learner's view. Reward: the learner's
  score change (the env's); an episode's return is its final score.

Both envs see only what the player may see (docs/rules.md §9). Action masks, ``bool[B, 1730]``: the
env's legal-action mask without the solves already failed this round
(:func:`pi_env.agents.sb3_policy.refine_mask`); solo, by default, also without the solves the player's
own answers rule out (:func:`solo_action_mask`: its own-information filter, computed from its
observation with the solver's answer tables). The learner then chooses what to ask and when to
name a case, and names one of the cases still possible; the deduction itself is the filter's.

**Autoreset.** The P.I. envs reset a finished game on the *next* call (Gymnasium ``NEXT_STEP``);
SB3 expects the first observation of the next episode in the same call (``infos[b]
["terminal_observation"]`` holding the last one). The adapters keep the P.I. envs' batch calls
(no loop over single envs) and turn the extra call into a transition that cannot affect the policy:
at the step that ends episode ``b`` they return ``done[b] = True`` with the final observation as
``obs[b]`` (also as ``terminal_observation``; ``TimeLimit.truncated`` when the episode was cut
off by the solo env's ``max_actions``; a standard game ended by the rotation safeguard is over
and counts as terminal), and for the following step, which only restarts game ``b``, ``action_masks()[b]`` allows
action 0 alone. That restart transition has probability 1 under every policy (log-probability 0,
no entropy, so no policy gradient), reward 0, and it starts a new episode in SB3's buffer
(``episode_start``), so the finished episode's returns are not bootstrapped across it; it only
trains the value net on final positions, which nothing else reads. It costs one step of the
``B`` per episode (also counted in SB3's ``num_timesteps``).

Finished episodes report ``infos[b]["episode"] = {"r": return, "l": length (restart step
excluded), "t": seconds}`` (the ``Monitor`` format SB3 logs), plus ``"solved"`` and
``"wrong_solves"`` (solo) or ``"score"`` and ``"win"`` (the learner's share of first place,
2-player standard; from the public final scores).
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from pi_env.agents.sb3_policy import SOLVER_EXTRA, refine_mask, solo_consistent_cases, standard_policy_input
from pi_env.core.constants import NUM_ACTIONS, NUM_CASES, NUM_ELEMENTS, SOLVE_BASE
from pi_env.core.errors import PIError

__all__ = ["SoloSB3VecEnv", "SelfPlaySB3VecEnv", "solo_features", "solo_scale", "solo_action_mask",
           "solo_policy_input", "SOLO_EXTRA"]


class _NextStepAdapter(VecEnv):
    """The shared part: a Gymnasium ``VectorEnv`` with ``NEXT_STEP`` autoreset as an SB3 ``VecEnv``
    (module docstring). Subclasses set ``self.venv`` and implement :meth:`_convert` and
    :meth:`_episode_extra`."""

    render_mode = None
    bootstrap_truncated = True
    """Whether a truncated episode is a time limit (SB3 then bootstraps its value)."""

    def __init__(self, venv: Any, observation_space: spaces.Box, num_actions: int = NUM_ACTIONS):
        self.venv = venv
        n = int(venv.num_envs)
        super().__init__(n, observation_space, spaces.Discrete(num_actions))
        self._actions = np.zeros(n, dtype=np.int64)
        self._restart = np.zeros(n, dtype=bool)
        self._return = np.zeros(n, dtype=np.float64)
        self._length = np.zeros(n, dtype=np.int64)
        self._mask = np.ones((n, num_actions), dtype=bool)
        self._t0 = time.perf_counter()

    # --- subclass hooks -------------------------------------------------------------------
    @abstractmethod
    def _convert(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
        """Set ``self._mask`` and return the ``float32[B, n]`` observation."""

    def _episode_extra(self, b: int, terminated: bool, info: dict[str, Any]) -> dict[str, Any]:
        return {}

    # --- SB3 VecEnv API -------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, info = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._restart[:] = False
        self._return[:] = 0.0
        self._length[:] = 0
        return self._convert(obs, info)

    def step_async(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(-1)
        if a.shape != (self.num_envs,):
            raise PIError(f"actions must have shape ({self.num_envs},), got {np.asarray(actions).shape}")
        self._actions[:] = a

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        out = self._convert(obs, info)
        rewards = np.asarray(rewards, dtype=np.float32)
        self._return += rewards
        self._length += ~self._restart
        done = np.asarray(terminated) | np.asarray(truncated)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        now = round(time.perf_counter() - self._t0, 6)
        for b in np.flatnonzero(done):
            term = bool(terminated[b])
            infos[b] = {"terminal_observation": out[b].copy(),
                        "TimeLimit.truncated": self.bootstrap_truncated and bool(truncated[b]) and not term,
                        "episode": {"r": float(self._return[b]), "l": int(self._length[b]), "t": now},
                        **self._episode_extra(int(b), term, info)}
            self._return[b] = 0.0
            self._length[b] = 0
        self._restart = done.copy()
        self._mask[done] = False
        self._mask[done, 0] = True  # the restart step: one allowed action (module docstring)
        return out, rewards, done, infos

    def action_masks(self) -> np.ndarray:
        """``bool[B, num_actions]``: the masks for the next step (what sb3-contrib's
        ``get_action_masks`` reads through :meth:`env_method`)."""
        return self._mask.copy()

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)  # AttributeError when missing, as SB3 expects
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self._mask[list(idx)])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


def solo_features(observation: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``float32[..., 2452]``: a solo observation (``int16[..., 2452]``) times ``scale`` (the
    reciprocal upper bounds, :class:`SoloSB3VecEnv`)."""
    return np.asarray(observation, dtype=np.float32) * scale


def solo_action_mask(observation: np.ndarray, legal: np.ndarray, board: Any, consistent: bool = True) -> np.ndarray:
    """``bool[B, 1730]``: the solo mask the policy samples from: ``legal`` without failed solves
    (:func:`~pi_env.agents.sb3_policy.refine_mask`) and, with ``consistent``, without the solves the
    player's own answers rule out (:func:`~pi_env.agents.sb3_policy.solo_consistent_cases`) and without
    clues already answered (open mode repeats the same answer). Never empty: the hidden case stays
    allowed."""
    from pi_env.engine import solo as S

    layout = S.observation_layout()
    start = layout["failed"][0]
    mask = refine_mask(legal, observation[:, start:start + NUM_CASES])
    if consistent:
        mask[:, SOLVE_BASE:] &= solo_consistent_cases(observation, board)
        for name in ("spot", "trace", "nothing"):  # a clue asked again answers the same
            at = layout[name][0]
            mask[:, :NUM_ELEMENTS] &= observation[:, at:at + NUM_ELEMENTS] == 0
    return mask


SOLO_EXTRA = 37 + NUM_CASES
"""Entries :func:`solo_policy_input` appends to the 2452 of the solo observation."""


def solo_policy_input(observation: np.ndarray, legal: np.ndarray, board: Any, scale: np.ndarray,
                      consistent: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The policy's input and action mask for solo observations.

    Args:
        observation: ``int16[B, 2452]`` solo observations.
        legal: ``int8[B, 1730]`` legal-action masks.
        board: the board.
        scale: :func:`solo_scale` of the config.
        consistent: as :func:`solo_action_mask`.

    Returns:
        ``(x, mask)``: ``x`` ``float32[B, 2452 + 37 + 1680]`` = the scaled observation, then the
        37 solver features of :mod:`pi_env.envs.encoders` (``SOLVER_LAYOUT``: the marginals of the
        suspect, evidence and location over the allowed cases, which in solo are the exact
        posterior marginals, and ``log2(n) / log2(1680)`` for ``n`` allowed cases), then the
        allowed-solve flags (``mask[:, 50:]`` as 0/1) for :class:`pi_env.agents._sb3_nets.NormalizedSolveHead`;
        ``mask`` = :func:`solo_action_mask`.
    """
    mask = solo_action_mask(observation, legal, board, consistent)
    allowed = mask[:, SOLVE_BASE:]
    B = allowed.shape[0]
    counts = allowed.reshape(B, 12, 10, 14).astype(np.float32)
    n = np.maximum(counts.sum(axis=(1, 2, 3)), 1.0)[:, None]
    x = np.concatenate([solo_features(observation, scale), counts.sum(axis=(2, 3)) / n,
                        counts.sum(axis=(1, 3)) / n, counts.sum(axis=(1, 2)) / n,
                        (np.log2(n) / np.log2(NUM_CASES)).astype(np.float32), allowed.astype(np.float32)],
                       axis=1).astype(np.float32)
    return x, mask


def solo_scale(config: Any) -> np.ndarray:
    """``float32[2452]``: ``1 / upper bound`` of each solo observation entry (1 where the bound is 0)."""
    from pi_env.encodings import solo_observation_bounds

    high = solo_observation_bounds(config)[1].astype(np.float32)
    return (1.0 / np.maximum(high, 1.0)).astype(np.float32)


class SoloSB3VecEnv(_NextStepAdapter):
    """``num_envs`` Solo Time Attack games as an SB3 ``VecEnv`` (module docstring).

    Args:
        num_envs: games stepped together.
        seed: the first ``reset`` plays the solo games of seeds ``seed .. seed + num_envs − 1``.
        consistent: also mask the solves the player's own answers rule out
            (:func:`solo_action_mask`; default). Without it, a fresh policy almost never names the
            right case among 1680 and had not started to learn after 150,000 steps.
        **kwargs: options of :class:`pi_env.envs.solo.SoloTimeAttackVectorEnv` (``max_actions``, ...).
    """

    def __init__(self, num_envs: int = 64, seed: int | None = None, consistent: bool = True, **kwargs: Any):
        from pi_env.engine import solo as S
        from pi_env.envs.solo import SoloTimeAttackVectorEnv

        venv = SoloTimeAttackVectorEnv(num_envs, **kwargs)
        self.consistent = bool(consistent)
        self.scale = solo_scale(venv.config)
        start = S.observation_layout()["failed"][0]
        self._failed = slice(start, start + NUM_CASES)
        space = spaces.Box(0.0, 1.0, shape=(S.OBSERVATION_SIZE + SOLO_EXTRA,), dtype=np.float32)
        super().__init__(venv, space)
        if seed is not None:
            self.seed(seed)

    def _convert(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
        x, self._mask[:] = solo_policy_input(obs["observation"], obs["action_mask"], self.venv.config.board,
                                             self.scale, self.consistent)
        return x

    def _episode_extra(self, b: int, terminated: bool, info: dict[str, Any]) -> dict[str, Any]:
        return {"solved": bool(terminated and not info["forfeited"][b]),
                "wrong_solves": int(info["wrong_solves"][b])}


class SelfPlaySB3VecEnv(_NextStepAdapter):
    """``num_envs`` standard games, the learner in one rotating seat against fixed opponents, as an
    SB3 ``VecEnv`` (module docstring).

    Args:
        num_envs: games stepped together.
        num_players: 2..5.
        opponents: ``num_players − 1`` agent names (:func:`pi_env.agents.make_agent`), e.g. ``["random"]``.
        seed: seed of the first ``reset`` (as :class:`pi_env.envs.selfplay.SelfPlayVecEnv`).
        consistent: observation and mask of :func:`pi_env.agents.sb3_policy.standard_policy_input` (the
            flat encoding plus solver features and allowed-solve flags; only the solves the
            learner's own information allows) instead of the flat encoding and
            :func:`~pi_env.agents.sb3_policy.refine_mask`.
        **kwargs: further options of :class:`~pi_env.envs.selfplay.SelfPlayVecEnv` (``edition``, ...).
    """

    bootstrap_truncated = False  # a game ended by the rotation safeguard is over: its score is final

    def __init__(self, num_envs: int = 64, num_players: int = 2, opponents: Sequence[str] = ("random",),
                 seed: int | None = None, consistent: bool = False, **kwargs: Any):
        from pi_env.encodings import flat_scales, observation_layout as flat_layout
        from pi_env.envs.selfplay import SelfPlayVecEnv

        from pi_env.agents import opponent_factory

        venv = SelfPlayVecEnv(num_envs, num_players, opponents=[opponent_factory(o) for o in opponents],
                              copy=True, parallel=False,
                              seed=seed, **kwargs)
        self.consistent = bool(consistent)
        start = flat_layout(num_players)["failed"][0]
        self._failed = slice(start, start + NUM_CASES)  # seat 0: the learner
        self._scales = flat_scales(venv.config)
        space = venv.single_observation_space
        if self.consistent:
            extra = np.zeros(SOLVER_EXTRA, dtype=np.float32)
            space = spaces.Box(np.concatenate([space.low, extra]), np.concatenate([space.high, extra + 1]),
                               dtype=np.float32)
        super().__init__(venv, spaces.Box(space.low, space.high, dtype=np.float32))
        if seed is not None:
            self.seed(seed)

    def _convert(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
        self._to_move = np.asarray(info["to_move"]).astype(np.int64)
        if self.consistent:
            x, self._mask[:] = standard_policy_input(self.venv.engine_observations(), info["action_mask"],
                                                     self.venv.config, self._scales)
            return x
        self._mask[:] = refine_mask(info["action_mask"], obs[:, self._failed])
        return obs

    def _episode_extra(self, b: int, terminated: bool, info: dict[str, Any]) -> dict[str, Any]:
        scores = self.venv.state.score[b].astype(np.int64)  # public final scores of game b
        s = int(self._to_move[b])
        top = scores.max()
        win = 1.0 / int((scores == top).sum()) if scores[s] == top else 0.0
        return {"score": int(scores[s]), "win": win}
