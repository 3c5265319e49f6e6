"""Built-in agents. ``make_agent(name)`` builds one by name; ``AGENTS`` lists the names."""

from __future__ import annotations

from pi_env.errors import UnknownNameError

from .base import Agent, RandomAgent
from .deducer import DeducerAgent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .search import SearchAgent

AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "deducer": DeducerAgent, "heuristic": HeuristicAgent,
                               "greedy": GreedyAgent, "search": SearchAgent}


def make_agent(name: str, *, edition: str = "second") -> Agent:
    """A new agent by name: one of :data:`AGENTS`, or ``sb3:PATH`` / ``sb3-sample:PATH`` for a
    policy trained by ``experiments/train_sb3.py`` (:class:`agents.sb3_policy.SB3PolicyAgent`).

    ``edition`` (RULES.md §5: ``"second"`` or ``"first"``) goes to the agents that score positions
    by the rules (``greedy``, ``search``): the observation does not carry it.

    Raises:
        UnknownNameError: the name is not in :data:`AGENTS` (the message lists the known ones).
    """
    key = name.strip().lower()
    for prefix in ("sb3:", "sb3-sample:"):  # a trained policy file (agents.sb3_policy, needs torch)
        if key.startswith(prefix):
            from .sb3_policy import SB3PolicyAgent

            return SB3PolicyAgent(name.strip()[len(prefix):], deterministic=prefix == "sb3:")
    if key not in AGENTS:
        import difflib
        close = difflib.get_close_matches(key, list(AGENTS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownNameError(f"unknown agent {name!r}{hint} (known: {', '.join(AGENTS)}, or sb3:MODEL.zip "
                               "for a trained policy)")
    cls = AGENTS[key]
    import inspect

    if "edition" in inspect.signature(cls).parameters:
        return cls(edition=edition)
    return cls()


__all__ = ["Agent", "RandomAgent", "DeducerAgent", "HeuristicAgent", "GreedyAgent", "SearchAgent", "AGENTS",
           "make_agent"]
