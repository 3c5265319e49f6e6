"""pi-env: rules engine, environments and deduction solver for the board game P.I."""

__version__ = "0.1.0"

_LAZY = {"env": "aec", "raw_env": "aec"}  # attribute -> submodule; keeps `import pi_env.engine` light


def __getattr__(name: str):
    """Load ``env`` / ``raw_env`` (PettingZoo) only when first used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_env' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))
