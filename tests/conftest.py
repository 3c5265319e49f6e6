"""Shared test helpers: where ../shared lives, and seeded self-play games."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"

# the "compiling, first run only" line of the pi-env command would land in the stderr that tests
# compare whenever a kernel is compiled during the run (a cold cache); tests/test_compile_notice.py
# turns it back on where it is the subject
os.environ.setdefault("PI_ENV_COMPILE_NOTICE", "0")


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the checkout")
    return SHARED


