"""Settings for the whole test session (test data paths are in ``helpers``)."""

from __future__ import annotations

import os

# the "compiling numba kernels for this command" line of the pi-env command would land in the stderr that tests
# compare whenever a kernel is compiled during the run (a cold cache); tests/test_compile_notice.py
# turns it back on where it is the subject
os.environ.setdefault("PI_ENV_COMPILE_NOTICE", "0")
