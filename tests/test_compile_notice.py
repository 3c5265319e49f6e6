"""A command that needs numba kernels not in the cache compiles them: it says so on stderr (issue #15
item 7), once per command, and only when it compiles. Numba compiles each kernel on its first call,
so this is not only the first command after installing: any later command that needs other kernels
compiles those, and is announced too."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import numba
import pytest

from pi_env.core import _config


def _fresh_kernel(module: str):
    def twice(x):
        return 2 * x

    twice.__module__ = module
    return numba.njit(cache=False)(twice)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_the_notice_is_printed_once_for_pi_env_kernels(monkeypatch):
    monkeypatch.setenv("PI_ENV_COMPILE_NOTICE", "1")
    out = io.StringIO()
    _config.announce_compilation(out)
    monkeypatch.setattr(_config._announcer, "done", False)
    try:
        assert _fresh_kernel("somebody.else")(3) == 6  # not ours: no notice
        assert out.getvalue() == ""
        assert _fresh_kernel("pi_env.fake")(3) == 6
        assert _fresh_kernel("pi_env.fake")(2.5) == 5.0
        assert out.getvalue() == _config.COMPILING_MESSAGE + "\n"
        monkeypatch.setattr(_config._announcer, "done", False)
        monkeypatch.setenv("PI_ENV_COMPILE_NOTICE", "0")
        assert _fresh_kernel("pi_env.fake")(4) == 8
        assert out.getvalue() == _config.COMPILING_MESSAGE + "\n"
    finally:
        _config.announce_compilation(None)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE,
                    reason="needs the JIT and its on-disk cache")
def test_a_kernel_loaded_from_the_cache_is_not_announced(tmp_path, monkeypatch):
    """A pi-env kernel (``_config.kernel``, cached) in a fresh module file: the first call compiles
    and says so; the module imported again finds the machine code in the cache: no notice."""
    import importlib

    (tmp_path / "pi_env_notice_probe.py").write_text(
        "from pi_env.core._config import kernel\n\n\n@kernel\ndef bump(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PI_ENV_COMPILE_NOTICE", "1")
    out = io.StringIO()
    _config.announce_compilation(out)
    monkeypatch.setattr(_config._announcer, "done", False)
    try:
        probe = importlib.import_module("pi_env_notice_probe")
        assert probe.bump(1) == 2
        assert out.getvalue() == _config.COMPILING_MESSAGE + "\n"
        assert list((tmp_path / "__pycache__").glob("pi_env_notice_probe.bump-*.nbi"))  # cached
        monkeypatch.setattr(_config._announcer, "done", False)
        probe = importlib.reload(probe)  # a new dispatcher: loads the cached code
        assert probe.bump(2) == 3
        assert out.getvalue() == _config.COMPILING_MESSAGE + "\n"
        assert not _config._announcer.done
    finally:
        _config.announce_compilation(None)
        sys.modules.pop("pi_env_notice_probe", None)


def test_the_notice_does_not_promise_a_single_first_run():
    """Kernels compile lazily, per kernel: a later command can compile again (86-93 s for the first
    4-player solve after a 3-player one had filled the cache), so 'first run only' was untrue."""
    for message in (_config.COMPILING_MESSAGE, _config.COMPILING_NO_CACHE_MESSAGE):
        assert message.startswith("pi-env: compiling numba kernels for this command (")
        assert "first run" not in message
    assert "cached after first use" in _config.COMPILING_MESSAGE


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1" or not _config.CACHE,
                    reason="needs the JIT and its on-disk cache")
def test_each_command_that_compiles_is_announced(tmp_path, monkeypatch):
    """Two kernels in a fresh module. Command 1 uses ``bump``: compiled, announced. Command 2 uses
    ``bump`` (from the cache) and then ``halve`` (not cached yet): announced again. Command 3 uses
    both from the cache: silent. (A new command is a new dispatcher and a fresh announcer.)"""
    import importlib

    (tmp_path / "pi_env_notice_pair.py").write_text(
        "from pi_env.core._config import kernel\n\n\n@kernel\ndef bump(x):\n    return x + 1\n\n\n"
        "@kernel\ndef halve(x):\n    return x // 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PI_ENV_COMPILE_NOTICE", "1")
    out = io.StringIO()
    _config.announce_compilation(out)
    try:
        said = []
        for calls in (("bump",), ("bump", "halve"), ("bump", "halve")):
            monkeypatch.setattr(_config._announcer, "done", False)  # a new command
            module = importlib.reload(importlib.import_module("pi_env_notice_pair"))
            before = out.getvalue()
            for name in calls:
                assert getattr(module, name)(8) == {"bump": 9, "halve": 4}[name]
            said.append(out.getvalue()[len(before):])
        assert said == [_config.COMPILING_MESSAGE + "\n", _config.COMPILING_MESSAGE + "\n", ""]
    finally:
        _config.announce_compilation(None)
        sys.modules.pop("pi_env_notice_pair", None)


RECORD = {"format": "pi-record/1", "rules": {"players": 3},
          "rounds": [{"first_player": 0,
                      "tiles": {"suspect": {}, "evidence": {}},
                      "events": [{"player": 0, "clue": "Pinky", "answer": "nothing"}]}]}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_cold_cache_is_announced_and_a_warm_one_is_not(tmp_path):
    """Two runs of ``pi-env solve`` with an empty ``NUMBA_CACHE_DIR``: the first compiles the kernels
    it needs and says so; the second loads them and prints nothing on stderr; then ``pi-env play``,
    which needs the engine's and greedy's kernels, compiles and says so again. (Slow: the first run
    compiles the solver's kernels, 20–90 s.)"""
    from pi_env.core.board import DAYTIME
    from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES

    doc = json.loads(json.dumps(RECORD))
    doc["rounds"][0]["tiles"] = {"suspect": dict(zip(DAYTIME.districts, list(SUSPECT_NAMES) + [None] * 2)),
                                 "evidence": dict(zip(DAYTIME.districts, list(EVIDENCE_NAMES) + [None] * 4))}
    record = tmp_path / "r.json"
    record.write_text(json.dumps(doc))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PI_ENV_COMPILE_NOTICE="1")
    argv = [sys.executable, "-m", "pi_env.apps.cli", "solve", str(record), "--player", "1", "--top", "1"]
    cold = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr == _config.COMPILING_MESSAGE + "\n"
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
    assert warm.returncode == 0 and warm.stderr == ""
    assert warm.stdout == cold.stdout
    play = [sys.executable, "-m", "pi_env.apps.cli", "play", "--players", "3", "--agents",
            "greedy,greedy,greedy", "--seed", "1", "--quiet"]
    other = subprocess.run(play, capture_output=True, text=True, env=env, timeout=900)
    assert other.returncode == 0 and other.stderr == _config.COMPILING_MESSAGE + "\n"


def test_a_benchmark_warm_up_says_it_compiles_and_how_long_it_took():
    """``_config.warming_up`` (every benchmark's warm-up block): one line before the block, and one
    after with its seconds and how many kernels numba compiled in it; a second block that calls the
    same kernel with the same types compiles nothing."""
    import re

    bump = _fresh_kernel("pi_env.fake_benchmark")
    out = io.StringIO()
    with _config.warming_up("probe", stream=out):
        assert out.getvalue() == ("probe: warming up numba kernels before measuring (kernels not in the cache "
                                  "compile now: a minute or two with a cold cache; cached after first use) ...\n")
        assert bump(3) == 6
    first, done = out.getvalue().splitlines()
    assert first == _config.WARMING_MESSAGE.format(what="probe")
    no_jit = os.environ.get("NUMBA_DISABLE_JIT") == "1"
    expected = "numba JIT disabled: nothing compiled" if no_jit else "1 compiled"
    assert re.fullmatch(rf"probe: kernels ready in [0-9]+\.[0-9] s \({expected}\)", done), done
    again = io.StringIO()
    with _config.warming_up("probe", stream=again):
        assert bump(4) == 8
    expected = "numba JIT disabled: nothing compiled" if no_jit else "none compiled: all from the cache"
    assert re.fullmatch(rf"probe: kernels ready in [0-9]+\.[0-9] s \({expected}\)",
                        again.getvalue().splitlines()[1])


def test_a_warm_up_without_jit_does_not_say_kernels_came_from_the_cache(monkeypatch):
    """With ``NUMBA_DISABLE_JIT=1`` nothing is compiled and nothing comes from numba's cache (the
    kernels run as Python): the closing line said "none compiled: all from the cache"."""
    monkeypatch.setattr(numba.config, "DISABLE_JIT", 1)
    out = io.StringIO()
    with _config.warming_up("probe", stream=out):
        pass
    assert re.fullmatch(r"probe: kernels ready in [0-9]+\.[0-9] s \(numba JIT disabled: nothing compiled\)",
                        out.getvalue().splitlines()[1]), out.getvalue()


def test_a_benchmark_warm_up_prints_to_stderr_by_default(capsys):
    with _config.warming_up("probe"):
        pass
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[0] == _config.WARMING_MESSAGE.format(what="probe")
    assert err.splitlines()[1].startswith("probe: kernels ready in ")


def _unknown_nosuch() -> str:
    from pi_env.agents import AGENTS  # the agents registered (others may be added)
    from pi_env.agents.learned import ZOO_AGENTS

    return (f"pi-env: error: unknown agent 'nosuch' (known: {', '.join((*AGENTS, *ZOO_AGENTS))}, "
            "learned:MODEL.pt or sb3:MODEL.zip for a trained policy)\n")


UNKNOWN_NOSUCH = _unknown_nosuch()


@pytest.mark.parametrize("argv,error", [
    (["play", "--agents", "learned:2p,nosuch", "--players", "2"], UNKNOWN_NOSUCH),
    (["play", "--agents", "learned:2p", "--players", "2", "--record", "{tmp}/no-folder/g.json"],
     "pi-env: error: {tmp}/no-folder/g.json: the folder '{tmp}/no-folder' does not exist\n"),
    (["tournament", "--agents", "learned:2p,nosuch", "--out", "{tmp}/t"], UNKNOWN_NOSUCH),
])
def test_argument_errors_come_before_any_compilation(tmp_path, argv, error):
    """A learned model runs the engine when it is loaded (its encoding fingerprint), so building
    ``learned:2p`` before the other arguments were checked compiled kernels with the cache off, and
    ``pi-env play --agents learned:2p,nosuch`` printed the compile notice and then refused
    'nosuch'. Every argument is checked first: stderr is the error alone (kernel cache off, so a
    compilation could not hide behind the cache)."""
    env = dict(os.environ, PI_ENV_NUMBA_CACHE="0", PI_ENV_COMPILE_NOTICE="1")
    run = subprocess.run([sys.executable, "-m", "pi_env.apps.cli", *(a.format(tmp=tmp_path) for a in argv)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert (run.returncode, run.stdout, run.stderr) == (2, "", error.format(tmp=tmp_path))
    assert not (tmp_path / "t").exists()


def test_play_builds_no_agent_before_its_arguments_are_checked(monkeypatch, capsys, tmp_path):
    """``pi-env play`` checks the agent names, the seats and the record path before it builds any
    agent (building one may load a model and compile kernels): ``make_agent`` is never called."""
    import pi_env.agents
    from pi_env.apps.cli import main

    def built(name, **kw):
        raise AssertionError(f"agent {name!r} built before the arguments were checked")

    monkeypatch.setattr(pi_env.agents, "make_agent", built)
    assert main(["play", "--agents", "random,nosuch", "--players", "2"]) == 2
    assert capsys.readouterr().err == UNKNOWN_NOSUCH
    assert main(["play", "--agents", "random", "--players", "2", "--record", str(tmp_path / "no" / "g.json")]) == 2
    assert capsys.readouterr().err == (f"pi-env: error: {tmp_path}/no/g.json: the folder '{tmp_path}/no' "
                                       "does not exist\n")


LIBRARY_PROBE = """
import numba
import pi_env.engine
def twice(x):
    return 2 * x
twice.__module__ = "pi_env.fake"
print(numba.njit(cache=False)(twice)(3), numba.njit(cache=False)(twice)(4))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_python_program_is_told_once_that_kernels_compile():
    """Not only the ``pi-env`` command: a program importing the library hears, once, on stderr, that
    kernels compile on first use (and how to silence it)."""
    env = {**os.environ, "PI_ENV_COMPILE_NOTICE": "1"}
    done = subprocess.run([sys.executable, "-c", LIBRARY_PROBE], capture_output=True, text=True, env=env,
                          timeout=600, check=True)
    assert done.stdout == "6 8\n"
    assert done.stderr == _config.COMPILING_LIBRARY_MESSAGE + "\n"
    assert "PI_ENV_COMPILE_NOTICE=0" in _config.COMPILING_LIBRARY_MESSAGE
    env["PI_ENV_COMPILE_NOTICE"] = "0"
    done = subprocess.run([sys.executable, "-c", LIBRARY_PROBE], capture_output=True, text=True, env=env,
                          timeout=600, check=True)
    assert done.stderr == ""
