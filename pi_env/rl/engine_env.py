"""Training at engine speed: ``B`` games stepped by the batched engine, one learner seat per game,
opponents stepped in batch, observations encoded in batch from the engine state, the compact
action space of :mod:`pi_env.agents.learned` — and adapters for two RL libraries.

* :class:`LearnerBatch`: the library-independent core over
  :class:`pi_env.envs.selfplay.SelfPlayVecEnv`. Per call: ``float32[B, n]`` observations (the
  encoding named by ``encoding``, computed from the env's flat encoding, which its numba kernel
  fills from the engine state), ``bool[B, 51]`` masks from the engine's legal-action mask
  (:func:`pi_env.agents.learned.policy_mask`), rewards (the learner's score changes; a game's
  rewards sum to its final score), and per finished game its return, length, final score and
  win (the learner's share of first place, from the public scores). The solve choice becomes the
  engine action ``50 + best case`` (:func:`pi_env.agents.learned.best_cases_of_state`), computed for the
  rows that solve only. A finished game's ``win`` is the learner's share of first place after the
  tiebreaks (docs/rules.md §5), as tournaments count it.
* :class:`SB3LearnerVecEnv`: an SB3 ``VecEnv`` with ``action_masks()`` for sb3-contrib's
  MaskablePPO (the same-step episode end and one-action restart step of
  :mod:`pi_env.rl.sb3_envs`).
* :func:`torchrl_env`: the same as a TorchRL ``EnvBase`` (batch size ``[B]``; keys
  ``observation``, ``action_mask``, ``action``, ``reward``, ``done``, ``terminated``,
  ``truncated``), with the same restart step: a finished game's slot is "reset" to its final
  observation with only choice 0 allowed, and the next step starts the new game.

Opponents (``opponents``: one entry per seat after the learner's): ``"random"``, ``"gain"`` and
``"heuristic"`` run in batch (:class:`pi_env.envs.selfplay.RandomBatchOpponent`,
:class:`pi_env.rl.pool.GainOpponent`, :class:`pi_env.rl.heuristic_batch.HeuristicOpponent`:
:func:`pi_env.rl.pool.batch_opponent`), and ``"greedy"`` with 2 and 3 players
(:class:`pi_env.agents.greedy_batch.GreedyOpponent`); another agent name is played game by game
(:class:`pi_env.rl.pool.AgentOpponent`); any batch opponent (a snapshot, a
:class:`pi_env.rl.pool.PoolOpponent`) is used as it is. The learner's seat rotates game by game.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from pi_env.agents.learned import (ENCODINGS, POLICY_ACTIONS, SOLVE_ACTION, best_cases_of_state, encode_state,
                                  encoding_size, policy_mask)
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.core.rules import is_case
from pi_env.envs.selfplay import SelfPlayVecEnv
from pi_env.rl.pool import batch_opponent

__all__ = ["LearnerBatch", "SB3LearnerVecEnv", "torchrl_env", "REWARDS"]

REWARDS = ("win", "score", "rank")
"""The learner's reward options (:class:`LearnerBatch` ``reward``)."""


class LearnerBatch:
    """``num_envs`` games, one rotating learner seat each, compact actions (module docstring).

    Args:
        num_envs: ``B``.
        num_players: 2..5.
        opponents: ``num_players − 1`` entries (module docstring).
        encoding: the policy input (:data:`pi_env.agents.learned.ENCODINGS`).
        seed: seed of the first reset (engine games, seats, opponents' draws).
        reward: one of :data:`REWARDS`. ``"score"``: the learner's score changes (a game's rewards
            sum to its final score); ``"win"``: 0 until the game ends, then the learner's share of
            first place after the tiebreaks (docs/rules.md §5; a first place shared by ``k`` players
            is ``1/k``, as tournaments count it); ``"rank"``: 0 until the game ends, then
            ``(players below − players above) / (P − 1)`` in the final standings after the
            tiebreaks, in ``[-1, 1]`` (tied players count neither way).
        parallel: threaded engine kernels (``None``: as :mod:`pi_env.core._config` decides).
        **rules: further :class:`~pi_env.engine.GameConfig` options (``edition``, ...).

    Raises:
        PIError: a wrong number of opponents, an unknown encoding; UnknownNameError: an unknown agent.
    """

    def __init__(self, num_envs: int, num_players: int = 2, opponents: Sequence[Any] = ("random",),
                 encoding: str = "compact-v1", seed: int = 0, parallel: bool | None = None, reward: str = "score",
                 **rules: Any):
        from pi_env.engine import GameConfig

        if reward not in REWARDS:
            raise PIError(f"reward must be one of {', '.join(map(repr, REWARDS))}, got {reward!r}")
        self.reward = reward
        config = GameConfig(num_players=num_players, **rules)
        if len(opponents) != num_players - 1:
            raise PIError(f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}")
        self.size = encoding_size(encoding, num_players)  # an unknown encoding fails here
        self.opponents = [batch_opponent(o, config) for o in opponents]
        self._flat = encoding == "flat-v1"  # the only encoding computed from the env's flat rows
        self.venv = SelfPlayVecEnv(num_envs, num_players, opponents=self.opponents, seed=seed, parallel=parallel,
                                   check=False, observations=self._flat, **rules)
        self.config = self.venv.config
        self.num_envs, self.num_players, self.encoding, self.seed = int(num_envs), num_players, encoding, seed
        self.parallel = parallel
        self._seat = np.zeros(num_envs, dtype=np.int64)
        self._return = np.zeros(num_envs)
        self._length = np.zeros(num_envs, dtype=np.int64)
        self._restart = np.zeros(num_envs, dtype=bool)
        self._wrong = np.zeros(num_envs, dtype=np.int64)

    def _convert(self, obs: np.ndarray, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        self._seat[:] = info["to_move"]
        x = np.empty((self.num_envs, self.size), dtype=np.float32)  # new every call: callers keep rows
        if self._flat:
            encode_state(self.encoding, self.venv.state, self.config, self._seat, flat=obs, out=x)
        else:
            ENCODINGS[self.encoding].from_state(self.venv.state, self.config, self._seat, out=x,
                                                parallel=self.parallel)
        return x, policy_mask(info["action_mask"])

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start ``B`` new games; returns ``(x float32[B, n], mask bool[B, 51])``."""
        obs, info = self.venv.reset(seed=self.seed if seed is None else seed)
        self._return[:] = 0.0
        self._length[:] = 0
        self._restart[:] = False
        self._wrong[:] = 0
        return self._convert(obs, info)

    def engine_actions(self, choices: np.ndarray) -> np.ndarray:
        """``int64[B]`` engine actions of the compact choices ``int[B]`` in the current position:
        queries unchanged, the solve choice as ``50 + best case`` of the row's learner
        (:func:`pi_env.agents.learned.best_cases_of_state`, for the solving rows only)."""
        out = np.asarray(choices, dtype=np.int64).copy()
        rows = np.flatnonzero((out == SOLVE_ACTION) & ~self._restart)
        if rows.size:
            st = self.venv.state
            out[rows] = SOLVE_BASE + best_cases_of_state(st.take(rows), self.config.board, self._seat[rows])
        return out

    def step(self, choices: np.ndarray):
        """Apply the compact choices ``int[B]`` (ignored for rows whose game just ended).

        Returns:
            ``(x, mask, rewards float32[B], done bool[B], truncated bool[B], episodes)``:
            ``episodes`` lists ``(b, {"r", "l", "score", "win", "rank", "wrong"})`` for the games that
            ended: return, length (learner turns), the learner's final score, its share of first
            place, its rank reward (``reward`` ``"rank"``), and its wrong solves in the game.
        """
        return self.step_engine(self.engine_actions(choices))

    def step_engine(self, actions: np.ndarray):
        """As :meth:`step`, with engine actions ``int64[B]`` (``0..1729``, legal for the rows that
        are turns) instead of compact choices."""
        st = self.venv.state
        actions = np.asarray(actions, dtype=np.int64)
        self._count_wrong_solves(st, actions)
        obs, rewards, term, trunc, info = self.venv.step(actions)
        rewards = np.asarray(rewards, dtype=np.float32)
        done = term | trunc
        if self.reward != "score":
            rewards = np.zeros_like(rewards)
        self._length += ~self._restart
        episodes = []
        ended = np.flatnonzero(done)
        if ended.size:
            seats = np.asarray(info["to_move"], dtype=np.int64)[ended]
            wins, ranks = self._wins(st, ended, seats), self._ranks(st, ended, seats)
            if self.reward != "score":
                rewards[ended] = wins if self.reward == "win" else ranks
            scores = st.score[ended, seats].astype(np.int64)
            returns = self._return[ended] + rewards[ended]
            for i, b in enumerate(ended.tolist()):
                episodes.append((b, {"r": float(returns[i]), "l": int(self._length[b]), "score": int(scores[i]),
                                     "win": float(wins[i]), "rank": float(ranks[i]), "wrong": int(self._wrong[b])}))
            self._return[ended] = -rewards[ended]
            self._length[ended] = 0
            self._wrong[ended] = 0
        self._return += rewards
        self._restart = done
        x, mask = self._convert(obs, info)
        return x, mask, rewards, done, np.asarray(trunc), episodes

    def _count_wrong_solves(self, st: Any, actions: np.ndarray) -> None:
        """Add the learner's wrong solves among ``actions`` (engine actions of the rows that are
        turns) to the game's count, judged by the rule (:func:`pi_env.core.rules.is_case`) before the
        step; the count is the environment's bookkeeping, never part of the policy's input."""
        for b in np.flatnonzero((actions >= SOLVE_BASE) & ~self._restart).tolist():
            if not is_case(st.case[b, self._seat[b]], actions[b] - SOLVE_BASE):
                self._wrong[b] += 1

    def _standing_keys(self, st: Any, games: np.ndarray) -> np.ndarray:
        """``int64[n, P]``: the final standings' order key of every player of ``games`` (higher is
        better) after the tiebreaks of docs/rules.md §5 (:func:`pi_env.engine.ranking.rank_players`,
        in numpy): score, then investigator tiles left, then (first edition) fewer penalty points;
        a duel by score alone."""
        cfg = self.config
        key = st.score[games].astype(np.int64) * 64
        if cfg.mode != "duel":
            key = (key + st.inv_left[games]) * 64
            if cfg.edition == "first":
                key = key - st.penalty[games]
        return key

    def _wins(self, st: Any, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``float64[n]``: the share of first place of ``seats[i]`` in the finished game ``games[i]``
        after the tiebreaks (docs/rules.md §5)."""
        if games.size == 0:
            return np.zeros(0)
        key = self._standing_keys(st, games)
        first = key == key.max(axis=1)[:, None]
        return np.where(first[np.arange(games.size), seats], 1.0 / first.sum(axis=1), 0.0)

    def _ranks(self, st: Any, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``float64[n]``: the rank reward of ``seats[i]`` in the finished game ``games[i]``:
        ``(players below − players above) / (P − 1)`` after the tiebreaks (docs/rules.md §5)."""
        if games.size == 0:
            return np.zeros(0)
        key = self._standing_keys(st, games)
        mine = key[np.arange(games.size), seats][:, None]
        return ((key < mine).sum(axis=1) - (key > mine).sum(axis=1)) / (self.num_players - 1)


class _GymFacade:
    """:class:`LearnerBatch` in the Gymnasium vector-env call shape the SB3 adapter drives."""

    def __init__(self, batch: LearnerBatch):
        self.batch, self.num_envs = batch, batch.num_envs
        self.episodes: list[tuple[int, dict[str, Any]]] = []

    def reset(self, seed: int | None = None):
        x, mask = self.batch.reset(seed)
        return x, {"mask": mask}

    def step(self, actions: np.ndarray):
        x, mask, rewards, done, trunc, self.episodes = self.batch.step(actions)
        return x, rewards, done & ~trunc, trunc, {"mask": mask}

    def close(self) -> None:
        self.batch.venv.close()


def _sb3_learner_class() -> type:
    """Build :class:`SB3LearnerVecEnv` on first use: its base class is stable-baselines3's
    ``VecEnv`` (through :mod:`pi_env.rl.sb3_envs`), so this module imports without the ``rl``
    extra and only the SB3 env needs it.

    Raises:
        ModuleNotFoundError: stable-baselines3 is not installed (the ``rl`` extra).
    """
    from pi_env.rl.sb3_envs import _NextStepAdapter

    class SB3LearnerVecEnv(_NextStepAdapter):  # type: ignore[misc,valid-type]
        """:class:`LearnerBatch` as an SB3 ``VecEnv`` for MaskablePPO (module docstring); the
        arguments are :class:`LearnerBatch`'s. ``infos[b]["episode"]`` of a finished game holds
        ``r``, ``l``, ``t`` (Monitor format) and ``score``, ``win``."""

        bootstrap_truncated = False  # a game ended by the rotation safeguard is over: its score is final

        def __init__(self, num_envs: int, num_players: int = 2, opponents: Sequence[Any] = ("random",),
                     encoding: str = "compact-v1", seed: int = 0, **kwargs: Any):
            from gymnasium import spaces

            self.batch = LearnerBatch(num_envs, num_players, opponents, encoding, seed, **kwargs)
            space = spaces.Box(-np.inf, np.inf, shape=(self.batch.size,), dtype=np.float32)
            super().__init__(_GymFacade(self.batch), space, POLICY_ACTIONS)
            self.seed(seed)
            self._t0 = time.perf_counter()

        def _convert(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
            self._mask[:] = info["mask"]
            return obs

        def step_wait(self):
            out, rewards, done, infos = super().step_wait()
            for b, ep in self.venv.episodes:
                infos[b]["episode"].update(score=ep["score"], win=ep["win"], rank=ep["rank"], wrong=ep["wrong"])
                infos[b]["episode"]["l"] = ep["l"]
            return out, rewards, done, infos

    SB3LearnerVecEnv.__qualname__ = "SB3LearnerVecEnv"  # pickles by name, through __getattr__
    return SB3LearnerVecEnv


def __getattr__(name: str) -> Any:
    """``SB3LearnerVecEnv`` is built when first used (:func:`_sb3_learner_class`)."""
    if name == "SB3LearnerVecEnv":
        cls = _sb3_learner_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def torchrl_env(num_envs: int, num_players: int = 2, opponents: Sequence[Any] = ("random",),
                encoding: str = "compact-v1", seed: int = 0, **kwargs: Any) -> Any:
    """:class:`LearnerBatch` as a TorchRL ``EnvBase`` (module docstring; needs ``torchrl``)."""
    import torch
    from tensordict import TensorDict
    from torchrl.data import Binary, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase

    batch = LearnerBatch(num_envs, num_players, opponents, encoding, seed, **kwargs)
    B, n = batch.num_envs, batch.size

    class PiTorchRLEnv(EnvBase):
        def __init__(self):
            super().__init__(batch_size=torch.Size([B]), device="cpu")
            self.batch = batch
            self.observation_spec = Composite(
                observation=Unbounded(shape=(B, n), dtype=torch.float32),
                action_mask=Binary(n=POLICY_ACTIONS, shape=(B, POLICY_ACTIONS), dtype=torch.bool), shape=(B,))
            self.action_spec = Categorical(n=POLICY_ACTIONS, shape=(B,), dtype=torch.int64)
            self.reward_spec = Unbounded(shape=(B, 1), dtype=torch.float32)
            self._x = self._mask = None
            self._done = np.zeros(B, dtype=bool)
            self.episodes: list[tuple[int, dict[str, Any]]] = []

        def _td(self, x: np.ndarray, mask: np.ndarray) -> Any:
            return TensorDict({"observation": torch.from_numpy(x), "action_mask": torch.from_numpy(mask)},
                              batch_size=[B])

        def _reset(self, tensordict: Any = None, **kwargs: Any) -> Any:
            partial = tensordict is not None and "_reset" in tensordict.keys() and self._x is not None
            if not partial:
                self._x, self._mask = batch.reset()
            else:  # the restart step (module docstring): final observation, only choice 0
                which = tensordict["_reset"].reshape(B).numpy()
                self._mask[which] = False
                self._mask[which, 0] = True
            td = self._td(self._x, self._mask.copy())
            td.set("done", torch.zeros(B, 1, dtype=torch.bool))
            td.set("terminated", torch.zeros(B, 1, dtype=torch.bool))
            td.set("truncated", torch.zeros(B, 1, dtype=torch.bool))
            return td

        def _step(self, tensordict: Any) -> Any:
            a = tensordict["action"].reshape(B).numpy()
            x, mask, rewards, done, trunc, self.episodes = batch.step(a)
            self._x, self._mask = x, mask
            td = self._td(x, mask.copy())
            td.set("reward", torch.from_numpy(rewards).reshape(B, 1))
            td.set("done", torch.from_numpy(done).reshape(B, 1))
            td.set("terminated", torch.from_numpy(done & ~trunc).reshape(B, 1))
            td.set("truncated", torch.from_numpy(trunc).reshape(B, 1))
            return td

        def _set_seed(self, seed: int | None) -> None:
            if seed is not None:
                batch.seed = int(seed)

    return PiTorchRLEnv()
