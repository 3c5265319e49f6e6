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
# (solvers/case_sets.py: 5-13 s of compilation on every switch, seen as a 3-15 s ``pi-env solve``)
FIRST_IMPORT = """
import importlib, pkgutil, sys
import pi_env.solvers.case_sets  # first, before anything imports pi_env.core._config
import numba.core.dispatcher as nd
import pi_env
wrong, seen, extra = [], 0, []
for sub in ("core", "engine", "records", "solvers", "envs", "agents"):
    pkg = importlib.import_module("pi_env." + sub)
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        try:
            mod = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:  # a module of an optional extra (torch, ...) without it
            if (exc.name or "").split(".")[0] not in EXTRAS:
                raise
            extra.append(info.name)
            continue
        for name, obj in vars(mod).items():
            for d in (obj, getattr(obj, "serial", None), getattr(obj, "parallel", None)):
                if isinstance(d, nd.Dispatcher) and getattr(d.py_func, "__module__", "") == mod.__name__:
                    seen += 1
                    if not type(d._cache._impl.locator).__name__.startswith("PiEnv"):
                        wrong.append(mod.__name__ + "." + name)
print(seen, sorted(set(wrong)), "|", " ".join(extra))
"""

# the packages of the optional extras whose absence may stop a module's import; the modules that
# need them: those of the learned policies (the rl extra)
EXTRAS = ("torch", "stable_baselines3", "sb3_contrib")
EXTRA_MODULES = {"pi_env.agents._policy_net": ("torch",), "pi_env.agents._sb3_nets": ("torch", "sb3_contrib")}


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE, reason="needs the kernel cache")
def test_every_kernel_is_keyed_by_pi_envs_locator_whatever_the_import_order():
    import importlib.util
    import subprocess
    import sys

    script = f"EXTRAS = {EXTRAS!r}\n" + FIRST_IMPORT
    text = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          check=True).stdout
    head, _, skipped = text.partition("|")
    out = head.split(maxsplit=1)
    assert int(out[0]) > 50, out  # the scan reaches the kernels
    assert out[1].strip() == "[]", f"kernels with numba's own cache locator: {out[1]}"
    # only the modules of a missing extra are left out, and exactly those
    missing = {m for m, pkgs in EXTRA_MODULES.items() if any(importlib.util.find_spec(p) is None for p in pkgs)}
    assert set(skipped.split()) == missing


CACHE_PROBE = """
import glob, os, sys
import numpy as np
from pi_env.engine import _kernels as K
from pi_env.core import _config
print(K._next_u64(np.ones(1, np.uint64), 0))
print(_config.kernel_cache_dir())
print(os.path.dirname(K.__file__))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE, reason="needs the kernel cache")
def test_kernels_are_cached_in_the_users_cache_folder_not_beside_the_sources(tmp_path):
    """``pip uninstall`` must leave nothing in site-packages: without ``NUMBA_CACHE_DIR`` a kernel's
    machine code goes to ``$XDG_CACHE_HOME/pi-env/numba/<source folder>-<hash>/`` (numba's own
    choice was the ``__pycache__`` beside the installed sources)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", CACHE_PROBE], capture_output=True, text=True, timeout=600,
                         check=True, env=env).stdout.split("\n")
    assert out[0] == "1082269761"  # xorshift64 of 1: 1 ^ 1<<13 = 8193, ^ >>7 = 8257, ^ <<17 = 8257 + 1082261504
    assert out[1] == str(tmp_path / "cache" / "pi-env" / "numba")
    index = sorted(p.name for p in (tmp_path / "cache" / "pi-env" / "numba").rglob("_kernels._next_u64-*.nbi"))
    assert len(index) == 1, index
    folder = next((tmp_path / "cache" / "pi-env" / "numba").iterdir()).name
    assert folder.startswith("engine_")  # numba's subfolder: the source folder's name and its path's hash
