"""Re-export of :mod:`pi_env.core.interrupts` (moved there so that :mod:`pi_env.rl` can use it too)."""

from pi_env.core.interrupts import caused_by_interrupt, ignore_sigint, signals_held, terminate_as_interrupt

__all__ = ["ignore_sigint", "terminate_as_interrupt", "signals_held", "caused_by_interrupt"]
