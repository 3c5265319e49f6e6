"""Citation and package metadata: the version lives in one place (``pi_env.__version__``), and
CITATION.cff, the installed distribution and pyproject.toml agree with it."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

import pi_env

REPO = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_read_from_the_package():
    project = _pyproject()
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pi_env.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", pi_env.__version__)
    try:
        installed = importlib.metadata.version("pi-deduction")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("pi-deduction is not installed (tests run from a bare checkout)")
    assert installed == pi_env.__version__


def test_citation_file_names_the_package_version_and_the_required_fields():
    text = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    fields = dict(re.findall(r"^([a-z-]+): *\"?(.*?)\"?$", text, flags=re.M))
    assert fields["cff-version"] == "1.2.0"
    assert fields["version"] == pi_env.__version__
    assert fields["title"].startswith("pi-env: ")
    assert fields["license"] == _pyproject()["project"]["license"] == "MIT"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", fields["date-released"])
    assert re.search(r"^authors:\n  - name: \"pi-env developers\"$", text, flags=re.M)


def test_project_urls_classifiers_and_keywords():
    project = _pyproject()["project"]
    assert set(project["urls"]) == {"Homepage", "Documentation", "Repository", "Issues", "Changelog"}
    versions = sorted(c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions == ["3.10", "3.11", "3.12", "3.13"] and project["requires-python"] == ">=3.10"
    assert "Topic :: Games/Entertainment :: Board Games" in project["classifiers"]
    assert {"board game", "deduction", "reinforcement learning"} <= set(project["keywords"])
