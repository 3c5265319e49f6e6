"""The on-disk kernel cache is keyed by every file kernels are built from (pi_env.core._config):
numba alone keys a kernel by its own file, so a kernel calling another file's rule functions kept
stale machine code after only that file changed."""

import os

import numba.core.caching as numba_caching
import pytest

from pi_env.core import _config
from pi_env.engine import _play


def test_pi_env_locators_come_first_in_numbas_order():
    names = [c.__name__ for c in numba_caching.CacheImpl._locator_classes[:3]]
    assert names == ["PiEnvUserProvidedCacheLocator", "PiEnvInTreeCacheLocator", "PiEnvUserWideCacheLocator"]


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
    for cls in numba_caching.CacheImpl._locator_classes[:3]:
        assert cls.from_function(ns["g"], str(f)) is None
