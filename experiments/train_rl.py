"""Train a P.I. policy at engine speed: ``python -m pi_env.experiments.train_rl 2p --out DIR ...``,
the command line of :mod:`pi_env.rl.train` (documented there)."""

from __future__ import annotations

import sys

try:
    from pi_env.rl.train import main
except KeyboardInterrupt:  # Ctrl-C during the imports (~3 s): one line, exit 130
    if __name__ != "__main__":
        raise
    print("python -m pi_env.experiments.train_rl: interrupted while starting; nothing written", file=sys.stderr)
    raise SystemExit(130) from None

if __name__ == "__main__":
    sys.exit(main(prog="python -m pi_env.experiments.train_rl"))
