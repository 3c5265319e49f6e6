"""Ray cluster settings shared by every pi-env command that can run on Ray (``pi-env tournament
--backend ray``, ``python -m pi_env.rl.train --ray-actors``, ``python -m pi_env.experiments.train_rllib``):
one flag, ``--ray-address``, one way to get pi-env onto the cluster's workers and one way to join
the cluster (:func:`connect_ray`: a cluster that is not there is a one-line error, never a hang)."""

from __future__ import annotations

from typing import Any

from pi_env.core.errors import PIError

__all__ = ["ray_init_kwargs", "connect_ray"]


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


def connect_ray(address: "str | None", num_cpus: int, missing: str) -> bool:
    """Join the Ray cluster at ``address`` (``"auto"``, ``"HOST:PORT"``, ``"ray://HOST:10001"``;
    ``None``: ``RAY_ADDRESS``, else a new local instance of ``num_cpus`` CPUs), with
    :func:`ray_init_kwargs`, unless Ray is initialized already. A ``HOST:PORT`` that nothing answers
    on is refused at once (Ray itself would retry for minutes), as is an address where Ray finds no
    cluster (``"auto"`` with none running).

    Args:
        address: as above. num_cpus: the CPUs of a new local instance.
        missing: the error message when Ray is not installed (how to install it).

    Returns:
        Whether this call initialized Ray (the caller shuts it down with ``ray.shutdown()`` when done).

    Raises:
        PIError: Ray is missing (``missing``), an address that is none of the forms above or no
            Ray cluster at the address (one line, ``--ray-address ADDRESS: ...``), or no address while a cluster runs on this machine
            (Ray would join it but refuses ``num_cpus`` then).
    """
    import os
    import socket

    try:
        import ray
    except ImportError:
        raise PIError(missing) from None
    if ray.is_initialized():
        return False
    target = address or os.environ.get("RAY_ADDRESS") or ""
    host, _, port = target.split("://", 1)[-1].rpartition(":")
    if target not in ("", "auto", "local") and not (host and port.isdigit() and 0 < int(port) < 65536):
        raise PIError(f"--ray-address {target}: not an address Ray joins (auto, HOST:PORT or ray://HOST:PORT, "
                      f"a port 1-65535)")  # Ray itself would retry such an address for minutes
    if host and port.isdigit():
        try:
            socket.create_connection((host, int(port)), timeout=5).close()
        except OSError as exc:
            raise PIError(f"--ray-address {target}: no Ray cluster answers there "
                          f"({exc.strerror or type(exc).__name__})") from None
    try:
        ray.init(**ray_init_kwargs(address, num_cpus=num_cpus))
    except ConnectionError as exc:
        raise PIError(f"--ray-address {target or '(none)'}: {str(exc).splitlines()[0]}") from None
    except ValueError as exc:  # no address, but Ray found the cluster that `ray start` left on this machine
        if "existing cluster" not in str(exc):
            raise
        raise PIError("a Ray cluster runs on this machine (started by `ray start`): pass --ray-address auto to "
                      "use it, or stop it with `ray stop`") from None
    return True
