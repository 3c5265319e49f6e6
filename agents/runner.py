"""Play one standard or duel game with agents on the engine (the one loop every command,
experiment, benchmark and test uses).

Each agent sees only its own observation and the legal-action mask (docs/rules.md §9); agent ``i`` is
reset with seed ``seed * 10 + i`` so a game is a pure function of ``(config, agent names, seed)``.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from pi_env.engine import GameConfig, State, init, legal_action_mask, observe, step_inplace
from pi_env.records.recorder import Recorder

from pi_env.agents.base import Agent

BeforeStep = Callable[[State, int, np.ndarray, Agent], None]


def play_game(config: GameConfig, agents: Sequence["Agent | str"], seed: int, *,
              before_step: BeforeStep | None = None,
              after_step: Callable[[State], None] | None = None) -> tuple[State, Recorder]:
    """Play one whole game (``B == 1``) and record it.

    Args:
        config: the rules.
        agents: one :class:`Agent` or agent name per seat.
        seed: the game seed (``init(config, 1, seed)``).
        before_step: called as ``before_step(state, player, observation, agent)`` before each move.
        after_step: called with the state after each move.

    Returns:
        ``(final state, recorder)``; ``recorder.record()`` is the game record.

    Raises:
        PIError: an agent count that differs from ``config.num_players``; UnknownNameError for an
            unknown agent name.
    """
    from pi_env.core.errors import PIError

    from pi_env.agents import make_agent

    if len(agents) != config.num_players:
        raise PIError(f"{len(agents)} agents for {config.num_players} players")
    agents = [make_agent(a, edition=config.edition) if isinstance(a, str) else a for a in agents]
    state = init(config, 1, seed=seed)
    for i, agent in enumerate(agents):
        agent.reset(config.num_players, config.board, seed=seed * 10 + i)
    recorder = Recorder(config, state, seed)
    action = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        p = int(state.current_player[0])
        obs = observe(state, p)[0]
        if before_step is not None:
            before_step(state, p, obs, agents[p])
        action[0] = agents[p].act(obs, legal_action_mask(state)[0])
        step_inplace(state, action, config)
        recorder.after_step(state)
        if after_step is not None:
            after_step(state)
    return state, recorder
