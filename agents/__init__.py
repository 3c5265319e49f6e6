"""Built-in agents. ``make_agent(name)`` builds one by name; ``AGENTS`` lists the names."""

from __future__ import annotations

import functools
from typing import Callable

from pi_env.core.errors import UnknownNameError

from pi_env.agents.base import Agent, RandomAgent
from pi_env.agents.deducer import DeducerAgent, OwnQueryDeducerAgent
from pi_env.agents.greedy import GreedyAgent
from pi_env.agents.heuristic import HeuristicAgent
from pi_env.agents.rollout import RolloutAgent
from pi_env.agents.search import SearchAgent
from pi_env.agents.winprob import WinProbAgent
from pi_env.agents.winrollout import WinRolloutAgent

AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "deducer": DeducerAgent,
                               "deducer-own": OwnQueryDeducerAgent, "heuristic": HeuristicAgent,
                               "greedy": GreedyAgent, "search": SearchAgent,
                               "rollout": RolloutAgent, "winprob": WinProbAgent,
                               "winrollout": WinRolloutAgent}


def check_agent_name(name: str) -> None:
    """Refuse a name :func:`make_agent` would not know, without building the agent: no model is
    loaded and no kernel compiled, so a command can check all its arguments before it compiles
    anything (``pi-env play``, ``pi-env tournament``). A ``learned:`` name must be a zoo name or an
    existing file (:func:`pi_env.agents.learned.model_path`); an ``sb3:`` file is checked when it
    is loaded; whether a model fits the game is checked when the agent is built and reset.

    Raises:
        UnknownNameError: the name is not in :data:`AGENTS` (the message lists the known ones and
            suggests a close one), or an unknown learned model.
    """
    key = name.strip().lower()
    if key.startswith("learned:"):
        from pi_env.agents.learned import model_path

        model_path(name)  # drops the prefix once
        return
    if key.startswith(("sb3:", "sb3-sample:")):
        return
    if key not in AGENTS:
        import difflib
        close = difflib.get_close_matches(key, list(AGENTS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        from pi_env.agents.learned import ZOO_AGENTS

        raise UnknownNameError(f"unknown agent {name!r}{hint} (known: {', '.join((*AGENTS, *ZOO_AGENTS))}, "
                               "learned:MODEL.pt or sb3:MODEL.zip for a trained policy)")


def make_agent(name: str, *, edition: str = "second") -> Agent:
    """A new agent by name: one of :data:`AGENTS`; ``learned:NAME`` for a policy of the model zoo
    (``learned:2p``, ``learned:3p``, ``learned:4p``, ``learned:5p``, ``learned:solo``) or ``learned:PATH`` for a checkpoint of
    :mod:`pi_env.rl.train` (:class:`pi_env.agents.learned.LearnedAgent`); or ``sb3:PATH`` /
    ``sb3-sample:PATH`` for a policy trained by ``experiments/train_sb3.py``
    (:class:`pi_env.agents.sb3_policy.SB3PolicyAgent`).

    ``edition`` (docs/rules.md §5: ``"second"`` or ``"first"``) goes to every agent whose constructor
    takes ``edition``, also through ``**kwargs`` to a base class (:func:`takes_edition`): of
    :data:`AGENTS` ``greedy``, ``search``, ``rollout``, ``winprob`` and ``winrollout``, the agents
    that score positions by the rules (the observation does not carry the edition). The others
    (``random``, ``deducer``, ``deducer-own``, ``heuristic``) and ``learned:`` / ``sb3:`` policies
    do not take it (a learned model checks the edition it was trained for when reset).

    Raises:
        UnknownNameError: the name is not in :data:`AGENTS` (the message lists the known ones).
    """
    key = name.strip().lower()
    if key.startswith("learned:"):  # the model zoo or a checkpoint (pi_env.agents.learned, needs torch)
        from pi_env.agents.learned import LearnedAgent

        return LearnedAgent(name)  # the zoo name or file after the prefix (model_path drops it once)
    for prefix in ("sb3:", "sb3-sample:"):  # a trained policy file (pi_env.agents.sb3_policy, needs torch)
        if key.startswith(prefix):
            from pi_env.agents.sb3_policy import SB3PolicyAgent

            return SB3PolicyAgent(name.strip()[len(prefix):], deterministic=prefix == "sb3:")
    check_agent_name(name)
    cls = AGENTS[key]
    return cls(edition=edition) if takes_edition(cls) else cls()


def takes_edition(cls: type) -> bool:
    """Whether the agent class ``cls``'s constructor takes an ``edition`` argument: a parameter of
    its ``__init__``, or of a base class's ``__init__`` that a ``**kwargs`` passes it on to
    (``WinRolloutAgent(**kwargs)`` hands it to ``WinProbAgent``; its own signature does not name
    it, and :func:`make_agent` built it for the second edition in a first-edition game)."""
    import inspect

    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = inspect.signature(klass.__init__).parameters
        if "edition" in params:
            return True
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return False
    return False


def opponent_factory(spec: "str | Agent") -> "str | Agent | Callable[[], Agent]":
    """An opponent entry for :class:`pi_env.envs.selfplay.SelfPlayVecEnv`: ``"self"`` stays, an
    agent name becomes a factory of new agents of that name (checked now: an unknown name raises
    :class:`UnknownNameError` here; picklable, so the env pickles, docs/positions.md), anything else
    is returned as it is."""
    if isinstance(spec, str) and spec.strip().lower() != "self":
        make_agent(spec)  # fail early on an unknown name
        return functools.partial(make_agent, spec)
    return spec


__all__ = ["check_agent_name", "opponent_factory", "Agent", "RandomAgent", "DeducerAgent", "OwnQueryDeducerAgent", "HeuristicAgent", "GreedyAgent", "SearchAgent", "RolloutAgent", "WinProbAgent", "WinRolloutAgent", "AGENTS",
           "make_agent", "takes_edition"]
