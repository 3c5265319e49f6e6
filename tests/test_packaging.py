"""Packaging (issue #13): one import name, ``pi_env``; the design card's folders are its subpackages.

``.ci/run`` installs the project normally (a wheel) for the suite and then editable for a second
pass over this file, so both install modes are checked.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pi_env

ROOT = Path(pi_env.__file__).resolve().parent
SUBPACKAGES = ("core", "encodings", "engine", "records", "envs", "solvers", "agents", "apps", "rl", "experiments")


def _installed_files() -> tuple[list[str], list[str]]:
    """``(top_level.txt names, installed .py files)`` of the installed distribution, read in a
    subprocess outside the checkout: ``python -m pytest`` puts the checkout on ``sys.path``, where a
    build's ``pi_deduction.egg-info`` (listing the whole source tree) would answer instead."""
    code = ("import importlib.metadata as m, json; d = m.distribution('pi-deduction'); "
            "print(json.dumps([(d.read_text('top_level.txt') or '').split(), "
            "[str(f) for f in d.files or [] if str(f).endswith('.py')]]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    top, files = json.loads(out.stdout)
    return top, files


def test_only_pi_env_is_a_new_top_level_name():
    top, files = _installed_files()
    if top:
        assert top == ["pi_env"]
    roots = {Path(f).parts[0] for f in files}
    # a wheel install lists its modules (all under pi_env/); an editable one lists only its finder
    assert roots <= {"pi_env"} or all(r.startswith("__editable__") for r in roots), roots
    # run outside the checkout, so that a folder in the current directory cannot answer
    code = ("import importlib.util as u; print([n for n in ('solvers', 'agents', 'experiments') "
            "if u.find_spec(n) is not None])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "[]"


def test_every_layer_imports_under_pi_env():
    code = ("import importlib, pi_env; "
            f"mods = [importlib.import_module('pi_env.' + n) for n in {SUBPACKAGES!r}]; "
            "print(all(m.__name__.startswith('pi_env.') for m in mods))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "True"


def test_design_card_folders_are_the_subpackages():
    """solvers/, agents/ and experiments/ hold the code of pi_env.solvers, .agents, .experiments."""
    for name in ("solvers", "agents", "experiments"):
        spec = importlib.util.find_spec(f"pi_env.{name}")
        assert spec is not None and spec.origin is not None
        assert Path(spec.origin).name == "__init__.py"
        # the package data file of the board is reachable too
    assert (ROOT / "core" / "data" / "daytime.json").is_file()
