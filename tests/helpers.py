"""Helpers shared by tests (importable as ``helpers`` via pytest's pythonpath)."""

from __future__ import annotations

import numpy as np


def play_game(config, agent_names, seed, on_step=None):
    """Play one game (B = 1) with built-in agents; returns (final state, recorder)."""
    from agents import make_agent
    from pi_env.engine import init, legal_action_mask, observe, step_inplace
    from pi_env.recorder import Recorder

    state = init(config, 1, seed=seed)
    agents = [make_agent(n) for n in agent_names]
    for i, a in enumerate(agents):
        a.reset(config.num_players, config.board, seed=seed * 10 + i)
    rec = Recorder(config, state, seed)
    action = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        p = int(state.current_player[0])
        obs = observe(state, p)[0]
        if on_step is not None:
            on_step(state, p, obs, agents[p])
        action[0] = agents[p].act(obs, legal_action_mask(state)[0])
        step_inplace(state, action, config)
        rec.after_step(state)
    return state, rec
