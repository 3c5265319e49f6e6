"""pi-env: rules engine, environments and deduction solver for Martin Wallace's board game P.I.

One namespace, in layers that import only downwards (docs/architecture.md; enforced by the
import-linter contract in ``pyproject.toml``):

========================  ======================================================================
``pi_env.core``           constants, board, names, actions, errors, compiler settings, files
``pi_env.engine``         the batched rules engine and its plain-Python reference (docs/rules.md §3–§8)
``pi_env.records``        game records (``pi-record/1``): load, write, replay, score, report
``pi_env.envs``           PettingZoo AEC env, Gymnasium solo env, self-play vector env, encoders
``pi_env.solvers``        the deduction solver (case sets, joint counts, SAT, hints)
``pi_env.agents``         built-in agents, the agent interface, ``play_game``
``pi_env.apps``           command line, terminal apps, tournaments
``pi_env.rl``             adapters for RL libraries (needs the ``rl`` extra)
``pi_env.experiments``    research scripts (``python -m pi_env.experiments.NAME``)
========================  ======================================================================

``pi_env.env()`` / ``pi_env.raw_env()`` are the PettingZoo factories of :mod:`pi_env.envs.aec`,
loaded on first use so that ``import pi_env`` stays free of pettingzoo.

``import pi_env`` registers the Gymnasium ids of :data:`GYMNASIUM_ENVS` (entry points given as
strings: the environments' modules load on ``gymnasium.make``), as Gymnasium plugins do, so
``gymnasium.make("pi_env/SoloTimeAttack-v0")`` works after it; the ``"module:id"`` form
(``gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")``) works too.
"""

__version__ = "0.2.0"

_LAZY = {"env": "pi_env.envs.aec", "raw_env": "pi_env.envs.aec"}  # attribute -> module

GYMNASIUM_ENVS: dict[str, tuple[str, str]] = {
    "pi_env/SoloTimeAttack-v0": ("pi_env.envs.solo:SoloTimeAttackEnv", "pi_env.envs.solo:SoloTimeAttackVectorEnv"),
}
"""The Gymnasium ids pi-env registers: ``id -> (entry_point, vector_entry_point)`` (one place)."""


def _register_gymnasium_envs() -> None:
    """Register :data:`GYMNASIUM_ENVS` with Gymnasium (ids already there are left alone; nothing
    when gymnasium cannot be imported, so the engine's layers stay usable without it)."""
    try:
        import gymnasium
    except ImportError:
        return

    for env_id, (entry_point, vector_entry_point) in GYMNASIUM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point, vector_entry_point=vector_entry_point)


_register_gymnasium_envs()


def __getattr__(name: str):
    """Load ``env`` / ``raw_env`` (PettingZoo) only when first used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_env' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))
