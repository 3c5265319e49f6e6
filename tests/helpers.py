"""Helpers shared by tests (importable as ``helpers`` via pytest's pythonpath)."""

from __future__ import annotations

from pathlib import Path

from pi_env.agents.runner import play_game as _play

# The golden solver positions (README there): *.record.json and the brute-force *.expected.json.
SOLVER_FIXTURES = Path(__file__).resolve().parent / "data" / "solver"


def play_game(config, agent_names, seed, on_step=None):
    """Play one game (B = 1) with the first P of ``agent_names``; returns (final state, recorder)."""
    return _play(config, list(agent_names)[:config.num_players], seed, before_step=on_step)
