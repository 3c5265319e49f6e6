"""Settings for the whole test session (test data paths are in ``helpers``)."""

from __future__ import annotations

import os

# the "compiling numba kernels for this command" line of the pi-env command would land in the stderr that tests
# compare whenever a kernel is compiled during the run (a cold cache); tests/test_compile_notice.py
# turns it back on where it is the subject
os.environ.setdefault("PI_ENV_COMPILE_NOTICE", "0")
# Ray instances the tests start (the tournament's ray backend, tests/test_ray_collect.py's two-node
# cluster) bind and connect on 127.0.0.1 only: without this Ray turns a local or loopback address
# into the machine's own network address (its single-host setting, read by every Ray process)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
