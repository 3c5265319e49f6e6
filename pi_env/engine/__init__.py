"""The batched P.I. rules engine (docs/rules.md §1–§5). Imports neither gymnasium nor pettingzoo."""

from pi_env.engine.api import Outcome, init, is_legal, legal_action_mask, outcome, reset_done, sample_actions, step, step_inplace
from pi_env.engine.observe import decode_observation, observation_layout, observation_size, observe
from pi_env.engine.state import GameConfig, State

__all__ = ["GameConfig", "State", "Outcome", "init", "step", "step_inplace", "is_legal",
           "legal_action_mask", "reset_done", "sample_actions", "outcome", "observe", "observation_layout",
           "observation_size", "decode_observation"]
