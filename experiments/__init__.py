"""Experiments on top of the engine and the agents: tournaments."""
