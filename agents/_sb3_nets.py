"""Torch modules of the MaskablePPO policy (needs the ``rl`` extra: torch, stable-baselines3,
sb3-contrib). Imported only by :mod:`pi_env.agents.sb3_policy` and :mod:`pi_env.experiments.train_sb3`; a saved
model refers to these classes by name, so they must stay importable here.

The network: one shared ``Linear(obs, features) + ReLU`` layer (the observations are long, 2452
solo or ``618 + 1912·P`` standard entries, mostly the 1680 failed-solve flags per seat: one input
layer for both heads halves the cost), then separate policy and value MLPs (``net_arch``), then

* the value head ``Linear(latent, 1)``;
* the **factorized action head** (:class:`FactorizedActionHead`): 50 logits for the queries (36
  clue elements, 14 districts) and, for the 1680 solve actions, ``logit(50 + s·140 + e·14 + l) =
  b + u_s + v_e + w_l`` from 12 + 10 + 14 + 1 outputs. A solve's probability is then a product of
  a suspect, an evidence and a location factor, the same shape as the exact posterior's factors
  (docs/rules.md §9), so what the policy learns about one suspect carries over to all 140 cases with it;
  a plain ``Linear(latent, 1730)`` has to learn each case separately. The solve bias starts at
  :data:`INITIAL_SOLVE_BIAS`: an untrained policy then mostly asks (as a uniform one over 1730
  actions it would guess a case 97% of the time, learn nothing from the answers and, in games,
  lose points for every wrong guess).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from pi_env.core.constants import NUM_ACTIONS, NUM_CASES, SOLVE_BASE

__all__ = ["SharedInputExtractor", "FactorizedActionHead", "FactorizedMaskablePolicy", "INITIAL_SOLVE_BIAS",
           "PassMaskExtractor", "NormalizedSolveHead", "NormalizedSolvePolicy"]

_N_SUSPECTS, _N_EVIDENCE, _N_LOCATIONS = 12, 10, 14
INITIAL_SOLVE_BIAS = float(np.log(SOLVE_BASE / (9 * NUM_ACTIONS - 9 * SOLVE_BASE)))
"""Initial solve bias ``b``: with all 1730 actions legal and the other logits 0, the new policy
names a case with probability 0.1 (``1680·e^b = 50/9``) instead of 1680/1730."""


class SharedInputExtractor(BaseFeaturesExtractor):
    """``Linear(obs_size, features_dim) + ReLU`` on the flat float32 observation ``[N, obs_size]``."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 128):
        super().__init__(observation_space, features_dim)
        self.net = nn.Sequential(nn.Linear(int(np.prod(observation_space.shape)), features_dim), nn.ReLU())

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.net(observations)


class FactorizedActionHead(nn.Module):
    """``[N, latent] -> [N, 1730]`` action logits with factorized solve logits (module docstring)."""

    def __init__(self, latent_dim: int):
        super().__init__()
        self.split = (SOLVE_BASE, _N_SUSPECTS, _N_EVIDENCE, _N_LOCATIONS, 1)
        self.linear = nn.Linear(latent_dim, sum(self.split))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        q, u, v, w, b = th.split(self.linear(latent), self.split, dim=-1)
        solve = (b[:, :, None, None] + u[:, :, None, None] + v[:, None, :, None]
                 + w[:, None, None, :]).reshape(latent.shape[0], -1)
        return th.cat([q, solve], dim=-1)


class FactorizedMaskablePolicy(MaskableActorCriticPolicy):
    """sb3-contrib's ``MaskableActorCriticPolicy`` with :class:`FactorizedActionHead` as its action
    network (``Discrete(1730)`` action spaces only)."""

    def _build(self, lr_schedule: Any) -> None:
        if not isinstance(self.action_space, spaces.Discrete) or self.action_space.n != NUM_ACTIONS:
            raise ValueError(f"FactorizedMaskablePolicy needs Discrete({NUM_ACTIONS}) actions, "
                             f"got {self.action_space}")
        super()._build(lr_schedule)
        self.action_net = FactorizedActionHead(self.mlp_extractor.latent_dim_pi)
        if self.ortho_init:
            self.action_net.apply(partial(self.init_weights, gain=0.01))
        with th.no_grad():  # start by asking rather than guessing (module docstring)
            self.action_net.linear.bias[-1] = INITIAL_SOLVE_BIAS
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


class PassMaskExtractor(BaseFeaturesExtractor):
    """For observations that end with the ``1680`` allowed-solve flags (the solo observation of
    :class:`pi_env.rl.sb3_envs.SoloSB3VecEnv`): ``cat(ReLU(Linear(rest)), flags)``, so the
    action head sees the flags (``features_dim = hidden + 1680``)."""

    def __init__(self, observation_space: spaces.Box, hidden: int = 128):
        n = int(np.prod(observation_space.shape)) - NUM_CASES
        super().__init__(observation_space, hidden + NUM_CASES)
        self.hidden = hidden
        self.net = nn.Sequential(nn.Linear(n, hidden), nn.ReLU())

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return th.cat([self.net(observations[:, :-NUM_CASES]), observations[:, -NUM_CASES:]], dim=-1)


class NormalizedSolveHead(nn.Module):
    """``[N, hidden + 1680] -> [N, 1730]`` logits that first decide *whether* to name a case, then
    *which* allowed one: with ``h = ReLU(Linear(hidden))`` of the first part and the allowed flags
    ``A`` (last 1680 entries), outputs ``q`` (50 query logits), ``u, v, w`` (case factors as in
    :class:`FactorizedActionHead`) and ``s``; solve logit of case ``c`` =
    ``s + log_softmax_{c' in A}(u + v + w)[c]``. So the probability of naming some case is
    ``e^s / (e^s + Σ e^q)`` whatever the number of allowed cases (the flat head's solve mass grows
    with it), and ``s`` starts at ``log(50 / 9)``: a fresh policy names a case with probability
    0.1 at every step."""

    def __init__(self, latent_dim: int, hidden: int = 128):
        super().__init__()
        self.hidden_dim = latent_dim - NUM_CASES
        self.hidden = nn.Sequential(nn.Linear(self.hidden_dim, hidden), nn.ReLU())
        self.split = (SOLVE_BASE, _N_SUSPECTS, _N_EVIDENCE, _N_LOCATIONS, 1)
        self.linear = nn.Linear(hidden, sum(self.split))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        h, allowed = latent[:, :self.hidden_dim], latent[:, self.hidden_dim:] > 0.5
        q, u, v, w, s = th.split(self.linear(self.hidden(h)), self.split, dim=-1)
        case = (u[:, :, None, None] + v[:, None, :, None] + w[:, None, None, :]).reshape(latent.shape[0], -1)
        masked = th.where(allowed, case, th.full_like(case, -1e9))
        solve = s + case - th.logsumexp(masked, dim=-1, keepdim=True)
        return th.cat([q, solve], dim=-1)


class NormalizedSolvePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`NormalizedSolveHead` (use with
    :class:`PassMaskExtractor` and ``net_arch=dict(pi=[], vf=[...])``)."""

    def _build(self, lr_schedule: Any) -> None:
        if not isinstance(self.action_space, spaces.Discrete) or self.action_space.n != NUM_ACTIONS:
            raise ValueError(f"NormalizedSolvePolicy needs Discrete({NUM_ACTIONS}) actions, got {self.action_space}")
        super()._build(lr_schedule)
        self.action_net = NormalizedSolveHead(self.mlp_extractor.latent_dim_pi)
        if self.ortho_init:
            self.action_net.hidden.apply(partial(self.init_weights, gain=np.sqrt(2)))
            self.action_net.linear.apply(partial(self.init_weights, gain=0.01))
        with th.no_grad():
            self.action_net.linear.bias[-1] = float(np.log(SOLVE_BASE / 9))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
