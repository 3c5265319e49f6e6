"""The agent interface shared by the CLI, tournaments and PettingZoo loops.

An agent sees exactly what one player may see (docs/rules.md §9): the flat observation of
:func:`pi_env.engine.observe` and the legal-action mask — never the engine state.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from pi_env.core.board import DAYTIME, Board
from pi_env.core.errors import AgentNotResetError


def reset_for_game(agent: "Agent", config: Any, seed: int | None = None) -> None:
    """Reset ``agent`` for a game of ``config`` (a :class:`pi_env.engine.GameConfig`):
    ``agent.reset(config.num_players, config.board, seed=seed)``, then the agent's own check of the
    game's rules, ``agent.check_game(config)``, when it has one (a learned model refuses a mode,
    edition, variant or investigator count it was not trained for).

    Raises:
        PIError: the agent cannot play this game (one line naming it).
    """
    agent.reset(config.num_players, config.board, seed=seed)
    check = getattr(agent, "check_game", None)
    if check is not None:
        check(config)


class Agent(ABC):
    """Base class of built-in agents.

    Usage in a PettingZoo AEC loop::

        agent.reset(num_players=4, board=board, seed=0)
        action = agent.act(obs["observation"], obs["action_mask"])
    """

    name: str = "agent"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every ``act`` a subclass defines first checks that :meth:`reset` has run (an agent used
        without it failed deep inside with ``AttributeError: ... 'rng'``)."""
        super().__init_subclass__(**kwargs)
        act = cls.__dict__.get("act")
        if act is None or getattr(act, "__isabstractmethod__", False) or getattr(act, "_checks_reset", False):
            return

        @functools.wraps(act)
        def checked_act(self: "Agent", observation: np.ndarray, action_mask: np.ndarray) -> int:
            if "rng" not in self.__dict__:
                raise AgentNotResetError(
                    f"the {self.name} agent was not reset: call agent.reset(num_players, board, seed) "
                    f"before agent.act(observation, action_mask), and again before every new game")
            return act(self, observation, action_mask)

        checked_act._checks_reset = True  # type: ignore[attr-defined]
        cls.act = checked_act  # type: ignore[method-assign]

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        """Start a new game. ``seed`` seeds the agent's own randomness (ties, random moves)."""
        self.num_players = num_players
        self.board = board
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose an action (after :meth:`reset`).

        Args:
            observation: ``int16[618 + 1912 * P]`` flat observation of the acting player.
            action_mask: ``int8[1730]`` legal actions (1 = legal).

        Returns:
            A legal action id (``0..1729``).

        Raises:
            AgentNotResetError: :meth:`reset` has not started a game.
        """


class RandomAgent(Agent):
    """Uniform over legal actions (docs/rules.md §4)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])
