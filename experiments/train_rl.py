"""Train a P.I. policy at engine speed: ``python -m pi_env.experiments.train_rl 2p --out DIR ...``,
the command line of :mod:`pi_env.rl.train` (documented there; :func:`pi_env.rl.cli.train_main`)."""

from __future__ import annotations

import sys

from pi_env.core.interrupts import interrupted_while_starting

with interrupted_while_starting(__name__, "python -m pi_env.experiments.train_rl"):  # the imports (~3 s)
    from pi_env.rl.cli import train_main

if __name__ == "__main__":
    sys.exit(train_main(prog="python -m pi_env.experiments.train_rl"))
