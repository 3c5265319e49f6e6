"""The on-disk kernel cache is keyed by every file kernels are built from (pi_env.core._config):
numba alone keys a kernel by its own file, so a kernel calling another file's rule functions kept
stale machine code after only that file changed."""

import os

import numba.core.caching as numba_caching
import pytest

from pi_env.core import _config
from pi_env.engine import _play


def test_pi_env_locators_come_first_in_numbas_order():
    names = [c.__name__ for c in numba_caching.CacheImpl._locator_classes[:4]]
    assert names == ["PiEnvUserProvidedCacheLocator", "PiEnv_UserCacheLocator", "PiEnvInTreeCacheLocator",
                     "PiEnvUserWideCacheLocator"]


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE, reason="needs the kernel cache")
def test_a_fused_kernels_stamp_covers_the_step_rules_file():
    locator = _play.play_kernel.serial._cache._impl.locator
    assert type(locator).__name__.startswith("PiEnv")
    own, digest = locator.get_source_stamp()
    assert digest == _config._kernel_sources_digest()
    files = _config._kernel_source_files()
    kernels_py = os.path.realpath(os.path.join(os.path.dirname(_config.__file__), "..", "engine", "_kernels.py"))
    assert kernels_py in files  # the step rules the fused loop calls
    assert any(f.endswith(os.path.join("solvers", "own_info.py")) for f in files)
    # the packed writers read TILE_SCALE and FAILED_COUNT of the encodings package: a change there recompiles
    assert any(f.endswith(os.path.join("encodings", "bounds.py")) for f in files)


def test_digest_changes_with_any_file(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("X = 1\n")
    b.write_text("def f():\n    return 2\n")
    before = _config._sources_digest([str(a), str(b)])
    assert _config._sources_digest([str(a), str(b)]) == before  # deterministic
    b.write_text("def f():\n    return 3\n")
    after = _config._sources_digest([str(a), str(b)])
    assert after != before
    b.write_text("def f():\n    return 2\n")
    assert _config._sources_digest([str(a), str(b)]) == before
    b.rename(tmp_path / "c.py")  # the same content under another name is another source
    assert _config._sources_digest([str(a), str(tmp_path / "c.py")]) != before


def test_files_outside_the_package_keep_numbas_own_locator(tmp_path):
    f = tmp_path / "mod.py"
    f.write_text("def g():\n    return 1\n")
    ns: dict = {}
    exec(compile(f.read_text(), str(f), "exec"), ns)
    for cls in numba_caching.CacheImpl._locator_classes[:4]:
        assert cls.from_function(ns["g"], str(f)) is None


# every kernel goes through pi_env.core._config: a module that decorated with numba's own
# ``njit(cache=True)`` got numba's locator when it was imported before _config and pi-env's
# otherwise, so two programs importing in different orders (``pi-env solve``, a script calling
# the library) overwrote each other's cached machine code of that module and each recompiled it
# (solvers/case_sets.py: 5-13 s of compilation on every switch, seen as a 3-15 s ``pi-env solve``).
# One fresh process imports every module of these layers and reports each one's kernels; a module
# that needs an optional extra that is not installed (the torch networks of pi_env.agents: the rl
# extra) cannot be scanned, and its test skips naming the extra; any other import error fails.
SCANNED = ("core", "encodings", "engine", "records", "solvers", "envs", "agents")
EXTRA_OF = {"torch": "rl", "stable_baselines3": "rl", "sb3_contrib": "rl", "tensorboard": "rl",
            "fastapi": "web", "uvicorn": "web", "ray": "ray", "torchrl": "torchrl", "tensordict": "torchrl",
            "pyspiel": "openspiel"}  # the top-level modules of pyproject's optional extras
FIRST_IMPORT = """
import importlib, json, pkgutil, sys
import pi_env.solvers.case_sets  # first, before anything imports pi_env.core._config
import numba.core.dispatcher as nd
import pi_env
seen, wrong, failed = {}, {}, {}
for sub in %r:
    pkg = importlib.import_module("pi_env." + sub)
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        try:
            mod = importlib.import_module(info.name)
        except Exception as exc:
            failed[info.name] = [type(exc).__name__, getattr(exc, "name", None) or "", str(exc)]
            continue
        seen[info.name], wrong[info.name] = 0, []
        for name, obj in vars(mod).items():
            for d in (obj, getattr(obj, "serial", None), getattr(obj, "parallel", None)):
                if isinstance(d, nd.Dispatcher) and getattr(d.py_func, "__module__", "") == mod.__name__:
                    seen[info.name] += 1
                    if not type(d._cache._impl.locator).__name__.startswith("PiEnv"):
                        wrong[info.name].append(name)
print(json.dumps({"seen": seen, "wrong": wrong, "failed": failed}))
""" % (SCANNED,)
NO_KERNEL_CACHE = os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE


def _scanned_modules() -> list[str]:
    import importlib
    import pkgutil

    names = []
    for sub in SCANNED:
        pkg = importlib.import_module("pi_env." + sub)
        names += [info.name for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    return names


@pytest.fixture(scope="module")
def first_import_scan() -> dict:
    """``{"seen": {module: kernels}, "wrong": {module: [names]}, "failed": {module: [error type,
    missing module, message]}}`` of :data:`FIRST_IMPORT`, run once in a fresh interpreter."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FIRST_IMPORT], capture_output=True, text=True, timeout=600,
                         check=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.skipif(NO_KERNEL_CACHE, reason="needs the kernel cache")
def test_the_scan_imports_every_module_and_reaches_the_kernels(first_import_scan):
    assert sorted([*first_import_scan["seen"], *first_import_scan["failed"]]) == sorted(_scanned_modules())
    assert sum(first_import_scan["seen"].values()) > 50, first_import_scan["seen"]


@pytest.mark.skipif(NO_KERNEL_CACHE, reason="needs the kernel cache")
@pytest.mark.parametrize("module", _scanned_modules())
def test_every_kernel_is_keyed_by_pi_envs_locator_whatever_the_import_order(first_import_scan, module):
    import importlib.util

    if module in first_import_scan["failed"]:
        kind, missing, message = first_import_scan["failed"][module]
        top = missing.split(".")[0]
        if kind != "ModuleNotFoundError" or top not in EXTRA_OF or importlib.util.find_spec(top) is not None:
            pytest.fail(f"{module} does not import: {kind}: {message}")
        pytest.skip(f"{module} needs the '{EXTRA_OF[top]}' extra ({top} is not installed)")
    assert first_import_scan["wrong"][module] == [], f"kernels of {module} with numba's own cache locator"


# An installed (non-editable) copy of pi-env: the package's files, links resolved, in a folder on
# PYTHONPATH, as pip lays them out in site-packages. The probe compiles one kernel and says where
# the package was imported from; the interpreter starts in tmp_path, so the checkout is not on the
# path.
CACHE_PROBE = """
import numpy as np
from pi_env.engine import _kernels as K
print(K.__file__)
print(K._next_u64(np.ones(1, np.uint64), 0))
"""


def _installed_copy(folder):
    import shutil

    site = folder / "site-packages"
    source = os.path.dirname(os.path.dirname(os.path.realpath(_config.__file__)))
    shutil.copytree(source, site / "pi_env", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return site


def _run_probe(site, cwd, **env_vars) -> None:
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "PI_ENV_NUMBA_CACHE")}
    env.update(PYTHONPATH=str(site), **env_vars)
    out = subprocess.run([sys.executable, "-c", CACHE_PROBE], capture_output=True, text=True, timeout=600,
                         check=True, env=env, cwd=cwd).stdout.split("\n")
    assert out[0] == str(site / "pi_env" / "engine" / "_kernels.py")  # the installed copy, not the checkout
    assert out[1] == "1082269761"  # xorshift64 of 1: 1 ^ 1<<13 = 8193, ^ >>7 = 8257, ^ <<17 = 8257 + 1082261504


def _cache_files(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _numba_subfolder(site) -> str:
    """numba's folder name for the cache of ``site/pi_env/engine``: the folder's name and the SHA-1
    of its absolute path (numba.core.caching, ``get_suitable_cache_subpath``)."""
    import hashlib

    engine = str(site / "pi_env" / "engine")
    return "engine_" + hashlib.sha1(engine.encode()).hexdigest()


@pytest.mark.skipif(NO_KERNEL_CACHE, reason="needs the kernel cache")
def test_an_installed_copy_caches_its_kernels_in_the_users_cache_folder_one_folder_per_copy(tmp_path):
    """``pip uninstall`` must leave nothing in site-packages: without ``NUMBA_CACHE_DIR`` a kernel's
    machine code goes to ``$XDG_CACHE_HOME/pi-env/numba/<source folder>_<SHA-1 of its path>/``
    (numba's own choice was the ``__pycache__`` beside the installed sources). Two copies (two
    installs, or a checkout and an install) keep apart: each has its own folder there."""
    cache = tmp_path / "cache"
    first, second = _installed_copy(tmp_path / "a"), _installed_copy(tmp_path / "b")
    _run_probe(first, tmp_path, XDG_CACHE_HOME=str(cache))
    _run_probe(second, tmp_path, XDG_CACHE_HOME=str(cache))
    assert _cache_files(first) == [] and _cache_files(second) == []  # nothing beside the installed sources
    found = _cache_files(cache)
    assert sorted({f.split(os.sep)[2] for f in found}) == sorted([_numba_subfolder(first), _numba_subfolder(second)])
    for site in (first, second):
        mine = [f for f in found if f.startswith(os.path.join("pi-env", "numba", _numba_subfolder(site), ""))]
        names = sorted(f.rsplit(os.sep, 1)[1].rsplit("-", 1)[0] + "." + f.rsplit(".", 1)[1] for f in mine)
        assert names == ["_kernels._next_u64.nbc", "_kernels._next_u64.nbi"], mine


@pytest.mark.skipif(NO_KERNEL_CACHE, reason="needs the kernel cache")
def test_numba_cache_dir_wins_over_the_users_cache_folder(tmp_path):
    cache, chosen = tmp_path / "cache", tmp_path / "chosen"
    site = _installed_copy(tmp_path / "a")
    _run_probe(site, tmp_path, XDG_CACHE_HOME=str(cache), NUMBA_CACHE_DIR=str(chosen))
    assert _cache_files(site) == [] and not cache.exists()
    assert [f.split(os.sep)[0] for f in _cache_files(chosen)] == [_numba_subfolder(site)] * 2
