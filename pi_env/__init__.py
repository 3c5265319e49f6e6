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


# --- Gymnasium registration (pi_env/SoloTimeAttack-v0) ---------------------------------------
# ``import pi_env`` must not import gymnasium (the engine and the solver stay free of RL
# frameworks), yet ``import pi_env; gymnasium.make("pi_env/SoloTimeAttack-v0")`` must work. So the
# env is registered at once if gymnasium is already imported, and otherwise right after gymnasium's
# own import finishes, by a one-shot import hook. Registration only stores entry-point strings.

SOLO_ENV_ID = "pi_env/SoloTimeAttack-v0"


def _register_gymnasium_envs(gymnasium_module) -> None:
    if SOLO_ENV_ID not in gymnasium_module.registry:
        gymnasium_module.register(id=SOLO_ENV_ID, entry_point="pi_env.solo:SoloTimeAttackEnv",
                                  vector_entry_point="pi_env.solo:SoloTimeAttackVectorEnv")


class _GymnasiumRegistrationHook:
    """A one-shot ``sys.meta_path`` finder: wraps the loading of ``gymnasium`` to register our
    envs as soon as the package has been executed; finds nothing itself."""

    def find_spec(self, fullname, path=None, target=None):
        import sys

        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_and_register(module):
            exec_module(module)
            try:
                _register_gymnasium_envs(module)
            except Exception:  # never break gymnasium's import
                pass

        loader.exec_module = exec_and_register
        return spec


def _install_gymnasium_registration() -> None:
    import sys

    gym = sys.modules.get("gymnasium")
    if gym is not None and hasattr(gym, "register"):
        _register_gymnasium_envs(gym)
    elif not any(isinstance(f, _GymnasiumRegistrationHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumRegistrationHook())


_install_gymnasium_registration()
