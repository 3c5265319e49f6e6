"""The batched P.I. rules engine (RULES.md §1–§5). Imports neither gymnasium nor pettingzoo."""

from .api import Outcome, init, is_legal, legal_action_mask, outcome, reset_done, sample_actions, step, step_inplace
from .observe import decode_observation, observation_layout, observation_size, observe
from .state import GameConfig, State

__all__ = ["GameConfig", "State", "Outcome", "init", "step", "step_inplace", "is_legal",
           "legal_action_mask", "reset_done", "sample_actions", "outcome", "observe", "observation_layout",
           "observation_size", "decode_observation"]
