"""A MaskablePPO policy trained by :mod:`pi_env.experiments.train_sb3`, as an :class:`~pi_env.agents.base.Agent`.

Select it by name as ``sb3:PATH`` (``pi-env tournament --agents sb3:docs/models/pi_2p.zip,random
--players 2``; also ``pi-env play`` and :func:`pi_env.agents.make_agent`). ``PATH`` is a file written by
``experiments/train_sb3.py``: a full MaskablePPO model (``model.zip``) or the policy alone
(``policy.zip``, ``MaskableActorCriticPolicy.save``). It needs the ``rl`` extra (torch,
stable-baselines3, sb3-contrib); without it, or for a missing file, :func:`load_policy` raises a
one-line :class:`~pi_env.core.errors.PIError` saying what to do.

The agent sees only its own observation (docs/rules.md §9): the engine observation ``int16[618 + 1912·P]``
it is given is scaled to the flat encoding the policy was trained on
(:func:`pi_env.envs.encoders.encode_flat_reference`, bit for bit what :class:`pi_env.envs.selfplay.SelfPlayVecEnv`
returns), and the legal-action mask is narrowed by :func:`refine_mask` (no solve with a triple the
player already failed with this round, as in training). A policy trained with ``--consistent``
(its input is longer by :data:`SOLVER_EXTRA`) gets :func:`standard_policy_input` instead: solver
features, and only the solves its own information allows (:func:`own_consistent_cases`). It plays the masked argmax
(``deterministic=True``, default) or samples from the masked distribution (``sb3-sample:PATH``,
seeded by :meth:`~pi_env.agents.base.Agent.reset`).

Models are loaded once per process and path (an ``lru_cache``), so a tournament that builds a new
agent for every game does not reload the file.
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import NUM_ACTIONS, NUM_CASES, SOLVE_BASE
from pi_env.core.errors import PIError

from pi_env.agents.base import Agent

__all__ = ["SB3PolicyAgent", "load_policy", "refine_mask", "solo_consistent_cases", "own_consistent_cases",
           "with_solver_features", "standard_policy_input", "SOLVER_EXTRA", "require_rl", "RL_INSTALL_HINT", "PREFIXES"]

RL_INSTALL_HINT = ("install the RL extra: pip install torch --index-url "
                   "https://download.pytorch.org/whl/cpu && pip install '.[rl]'")
"""How to get the ``rl`` extra with the CPU build of torch (docs/reinforcement-learning.md)."""
PREFIXES = ("sb3:", "sb3-sample:")
"""Agent-name prefixes handled by this module: ``sb3:PATH`` (argmax) and ``sb3-sample:PATH``."""


def require_rl() -> None:
    """Raise a one-line :class:`PIError` with :data:`RL_INSTALL_HINT` unless torch,
    stable-baselines3 and sb3-contrib import."""
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise PIError(f"the MaskablePPO tools need the 'rl' extra ({exc.name} is missing); "
                      f"{RL_INSTALL_HINT}") from None


def refine_mask(mask: np.ndarray, failed: np.ndarray) -> np.ndarray:
    """The legal-action mask without solves already known to be wrong.

    Args:
        mask: ``int8[..., 1730]`` legal actions.
        failed: ``[..., 1680]`` nonzero where the player already named that case and was wrong
            (its own failed block of the observation: the flat encoding's seat-0 ``failed`` rows,
            the solo observation's ``failed``).

    Returns:
        ``bool[..., 1730]``: ``mask`` with those solve actions off. A solve that was wrong stays
        wrong (the case does not change within a round, docs/rules.md §7), so nothing useful is lost;
        the queries are untouched, and at most 1679 of the 1680 cases can have failed, so the result
        is never empty when ``mask`` allows a solve.
    """
    out = np.asarray(mask).astype(bool)
    out[..., SOLVE_BASE:] &= ~np.asarray(failed).astype(bool)
    return out


def solo_consistent_cases(observation: np.ndarray, board: Board = DAYTIME) -> np.ndarray:
    """The cases a Solo Time Attack player's answers still allow (its own-information filter,
    docs/rules.md §4.1, §4.2, §9), from its solo observation alone:
    :func:`pi_env.solvers.own_info.solo_observation_case_mask`.

    Args:
        observation: ``int16[2452]`` or ``int16[B, 2452]`` (:func:`pi_env.engine.solo.observe`).
        board: the board (its adjacency).

    Returns:
        ``bool[B, 1680]`` (``bool[1680]`` for one observation): case ``c`` is ``True`` when every
        clue answer (spot / trace / nothing) and every investigator's spot and trace counts (after
        its suppressed types) are what case ``c`` would have given and ``c`` is not a failed solve.
        The hidden case is always allowed.
    """
    from pi_env.solvers.own_info import solo_observation_case_mask

    return solo_observation_case_mask(observation, board)


def own_consistent_cases(observation: np.ndarray, num_players: int, board: Board = DAYTIME) -> np.ndarray:
    """The cases the observing player of a standard game can still have from its own information
    (docs/rules.md §9), from its engine observation alone: :func:`pi_env.solvers.own_info.observation_case_mask`.

    Args:
        observation: ``int16[618 + 1912·P]`` or ``int16[B, 618 + 1912·P]``
            (:func:`pi_env.engine.observe`; seat 0 = the observer).
        num_players: ``P``.
        board: the board (its adjacency).

    Returns:
        ``bool[B, 1680]`` (``bool[1680]`` for one observation): the cases sharing no element with
        the held case, another seat's spot markers or another seat's correct solve (cases are
        disjoint), consistent with every answer to the observer's own clues and investigators,
        not among its failed solves (its correct solve, once made, alone).
    """
    from pi_env.solvers.own_info import observation_case_mask

    return observation_case_mask(observation, int(num_players), board)


def with_solver_features(x: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``float32[B, n + 37 + 1680]``: ``x`` followed by the 37 solver features of
    :mod:`pi_env.envs.encoders` (``SOLVER_LAYOUT``) computed from the allowed cases ``allowed``
    (``bool[B, 1680]``, uniform over them: the marginals of suspect, evidence and location and
    ``log2(n) / log2(1680)``) and the allowed flags as 0/1 (what
    :class:`pi_env.agents._sb3_nets.NormalizedSolveHead` reads)."""
    B = allowed.shape[0]
    counts = allowed.reshape(B, 12, 10, 14).astype(np.float32)
    n = np.maximum(counts.sum(axis=(1, 2, 3)), 1.0)[:, None]
    return np.concatenate([x, counts.sum(axis=(2, 3)) / n, counts.sum(axis=(1, 3)) / n,
                           counts.sum(axis=(1, 2)) / n, (np.log2(n) / np.log2(NUM_CASES)).astype(np.float32),
                           allowed.astype(np.float32)], axis=1).astype(np.float32)


SOLVER_EXTRA = 37 + NUM_CASES
"""Entries :func:`with_solver_features` appends."""


def standard_policy_input(observation: np.ndarray, legal: np.ndarray, config: Any,
                          scales: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Input and mask of a solver-masked standard-game policy (``train_sb3 2p --consistent``).

    Args:
        observation: ``int16[B, 618 + 1912·P]`` engine observations (seat 0 = the acting player).
        legal: ``int8[B, 1730]`` legal-action masks.
        config: the :class:`~pi_env.engine.GameConfig`.
        scales: :func:`pi_env.envs.encoders.flat_scales` of ``config`` (computed when ``None``).

    Returns:
        ``(x, mask)``: ``x`` = :func:`with_solver_features` of the flat encoding and the allowed
        solves; ``mask`` = ``legal`` with only the solves of :func:`own_consistent_cases` (which
        already leaves out failed ones).
    """
    from pi_env.envs.encoders import flat_scales

    obs = np.atleast_2d(observation)
    s = flat_scales(config) if scales is None else scales
    allowed = own_consistent_cases(obs, config.num_players, config.board)
    mask = np.asarray(legal).astype(bool)
    mask[:, SOLVE_BASE:] &= allowed
    return with_solver_features(obs.astype(np.float32) * s, mask[:, SOLVE_BASE:]), mask


@functools.lru_cache(maxsize=8)
def load_policy(path: str) -> Any:
    """The ``MaskableActorCriticPolicy`` in ``path`` (a MaskablePPO ``.zip`` or a saved policy), on
    the CPU, in evaluation mode; cached per path.

    Raises:
        PIError: the ``rl`` extra is missing, the file does not exist or is not such a file.
    """
    p = Path(path)
    if not p.is_file():
        raise PIError(f"sb3 model {path!r} not found (train one with python -m pi_env.experiments.train_sb3)")
    require_rl()
    import torch

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        with zipfile.ZipFile(p) as z:
            full_model = "data" in z.namelist()  # MaskablePPO.save; torch.save has archive/data.pkl
    except zipfile.BadZipFile:
        raise PIError(f"sb3 model {path!r} is not a MaskablePPO model or policy file") from None
    try:
        if full_model:
            from sb3_contrib import MaskablePPO

            policy = MaskablePPO.load(p, device="cpu").policy
        else:  # policy.save(): {"state_dict", "data": constructor arguments}
            saved = torch.load(p, map_location="cpu", weights_only=False)
            keys = saved["state_dict"]
            if any(k.startswith("action_net.hidden.") for k in keys):
                from pi_env.agents._sb3_nets import NormalizedSolvePolicy as cls
            elif any(k.startswith("action_net.linear.") for k in keys):
                from pi_env.agents._sb3_nets import FactorizedMaskablePolicy as cls
            else:
                from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy as cls
            policy = cls(**saved["data"])
            policy.load_state_dict(saved["state_dict"])
    except Exception as exc:  # a corrupt or foreign file: one line, not a traceback
        raise PIError(f"sb3 model {path!r} could not be loaded: {type(exc).__name__}: {exc}") from None
    policy.set_training_mode(False)
    return policy


class SB3PolicyAgent(Agent):
    """Plays a trained MaskablePPO policy on its own observation (see the module docstring).

    Args:
        path: the model file.
        deterministic: masked argmax (default) or a sample from the masked distribution.

    Raises:
        PIError: as :func:`load_policy`; at :meth:`reset`, a player count the policy was not
            trained for (its observation length differs).
    """

    name = "sb3"

    def __init__(self, path: str, deterministic: bool = True):
        self.path = str(path)
        self.deterministic = bool(deterministic)
        self.policy = load_policy(self.path)
        self.name = f"{'sb3' if deterministic else 'sb3-sample'}:{Path(self.path).name}"
        self._scales: np.ndarray | None = None

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        from pi_env.envs.encoders import flat_layout, flat_scales, flat_size
        from pi_env.engine import GameConfig

        super().reset(num_players, board, seed)
        want = int(np.prod(self.policy.observation_space.shape))
        self._solver_input = want == flat_size(num_players) + SOLVER_EXTRA
        if want != flat_size(num_players) and not self._solver_input:
            raise PIError(f"sb3 model {self.path!r} takes observations of length {want}, not those of a "
                          f"{num_players}-player game ({flat_size(num_players)})")
        self._config = GameConfig(num_players=num_players, board=board)
        self._scales = flat_scales(self._config)
        start = flat_layout(num_players)["failed"][0]
        self._failed = slice(start, start + NUM_CASES)  # seat 0 = this player
        if not self.deterministic:
            import torch

            torch.manual_seed(int(self.rng.integers(2**63 - 1)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self._scales is None:
            raise PIError("call reset() before act()")
        if self._solver_input:
            x, mask = standard_policy_input(observation[None], action_mask[None], self._config, self._scales)
        else:
            obs = observation.astype(np.float32) * self._scales
            x, mask = obs[None], refine_mask(action_mask, obs[self._failed])[None]
        action, _ = self.policy.predict(x, deterministic=self.deterministic, action_masks=mask)
        a = int(np.asarray(action).reshape(-1)[0])
        if not 0 <= a < NUM_ACTIONS or not action_mask[a]:  # cannot happen with a masked policy
            raise PIError(f"sb3 policy {self.path!r} chose the illegal action {a}")
        return a
