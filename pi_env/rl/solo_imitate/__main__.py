"""``python -m pi_env.rl.solo_imitate``: the command line of :func:`pi_env.rl.cli.solo_imitate_main`."""

import sys

from pi_env.core.interrupts import interrupted_while_starting

with interrupted_while_starting(__name__, "python -m pi_env.rl.solo_imitate"):  # the heavy imports (numba, torch)
    from pi_env.rl.cli import solo_imitate_main

sys.exit(solo_imitate_main())
