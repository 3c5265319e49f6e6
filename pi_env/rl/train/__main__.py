"""``python -m pi_env.rl.train``: the command line of :func:`pi_env.rl.cli.train_main`."""

import sys

from pi_env.core.interrupts import interrupted_while_starting

with interrupted_while_starting(__name__, "python -m pi_env.rl.train"):  # the heavy imports (numba, torch)
    from pi_env.rl.cli import train_main

sys.exit(train_main())
