"""``python -m pi_env.rl.imitate``: the command line of :func:`pi_env.rl.cli.imitate_main`."""

import sys

from pi_env.core.interrupts import interrupted_while_starting

with interrupted_while_starting(__name__, "python -m pi_env.rl.imitate"):  # the heavy imports (numba, torch)
    from pi_env.rl.cli import imitate_main

sys.exit(imitate_main())
