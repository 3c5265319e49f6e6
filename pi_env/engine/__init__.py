"""The batched P.I. rules engine (docs/rules.md §1–§7, §9). Imports neither gymnasium nor pettingzoo.

Two ways in: the pure functions (``init``, ``step``, ``step_inplace``, ``legal_action_mask``,
``observe``, ...) over a :class:`State`, and :class:`Engine`, a handle that binds a
:class:`GameConfig` and its buffers for a batch of games (what the environments use). The
numba kernels (``pi_env.engine._kernels``) are private to this package.
"""

from pi_env.engine.api import (NO_ACTION, Outcome, check_config, init, is_legal, legal_action_mask, outcome,
                               reset_done, reset_games, rng_states, sample_actions, step, step_inplace)
from pi_env.engine.handle import Engine
from pi_env.engine.observe import (decode_observation, observation_bounds, observation_layout, observation_size,
                                   observe)
from pi_env.engine.play import POLICIES, RolloutResult, Script, play, policy_streams, rollout
from pi_env.engine.state import GameConfig, State

__all__ = ["Engine", "GameConfig", "State", "Outcome", "NO_ACTION", "init", "step", "step_inplace", "is_legal",
           "legal_action_mask", "reset_done", "reset_games", "sample_actions", "outcome", "observe",
           "observation_layout", "observation_size", "observation_bounds", "decode_observation", "rng_states",
           "check_config",
           "play", "rollout", "RolloutResult", "Script", "POLICIES", "policy_streams"]
