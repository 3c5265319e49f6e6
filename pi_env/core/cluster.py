"""Ray cluster settings shared by every pi-env command that can run on Ray (``pi-env tournament
--backend ray``, ``python -m pi_env.experiments.train_rllib``): one flag, ``--ray-address``, and one
way to get pi-env onto the cluster's workers."""

from __future__ import annotations

from typing import Any

__all__ = ["ray_init_kwargs"]


def ray_init_kwargs(address: "str | None", num_cpus: "int | None" = None, ship_package: bool = True) -> dict[str, Any]:
    """Keyword arguments of ``ray.init`` for ``--ray-address ADDRESS``.

    Args:
        address: a Ray cluster address (``"auto"``, ``"ray://head:10001"``, ...); ``None``: start a
            local Ray instance with ``num_cpus`` CPUs.
        ship_package: with an address, send the ``pi_env`` package (code and model files) to the
            cluster's workers through ``runtime_env={"py_modules": [pi_env]}`` (Ray follows the
            checkout's ``pi_env/agents``-style links; compiled-kernel caches are left out).
    """
    import logging

    import pi_env

    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.ERROR}
    if address:
        kwargs["address"] = address
        if ship_package:
            kwargs["runtime_env"] = {"py_modules": [pi_env], "excludes": ["__pycache__/"]}
    elif num_cpus is not None:
        kwargs["num_cpus"] = num_cpus
    return kwargs
