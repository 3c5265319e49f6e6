"""pi-env: rules engine, environments and deduction solver for the board game P.I."""

__version__ = "0.1.0"
