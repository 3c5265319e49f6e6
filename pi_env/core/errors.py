"""Exception types of pi-env. Every one is a ``ValueError`` so callers may catch broadly."""


class PIError(ValueError):
    """Base class of the errors pi-env raises for bad input."""


class BoardError(PIError):
    """A board description is malformed (docs/rules.md §2): the message names the defect."""


class UnknownNameError(PIError):
    """A name (suspect, evidence, location, district, agent) is not known; the message suggests close matches."""


class InvalidActionError(PIError):
    """An action is malformed (not an int in ``0..NUM_ACTIONS-1``)."""


class IllegalActionError(PIError):
    """An action is well formed but not legal in the current state (docs/rules.md §4)."""


class AgentNotResetError(PIError):
    """An agent was asked to act before :meth:`~pi_env.agents.base.Agent.reset` started its game."""


class RecordError(PIError):
    """A game record is malformed or describes an impossible game; the message names the event and the reason."""

    def __init__(self, message: str, *, round_index: int | None = None, event_index: int | None = None):
        where = []
        if round_index is not None:
            where.append(f"round {round_index + 1}")
        if event_index is not None:
            where.append(f"event {event_index}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.round_index = round_index
        self.event_index = event_index


class PositionError(PIError):
    """A saved position (``pi-position/1``) is malformed, of another format version, or of another game
    (mode, player count, rules, board) than the one it is loaded into; the message says which."""


class ConfigError(PIError):
    """A rules option of :class:`~pi_env.engine.GameConfig` is out of range or does not combine with
    another (docs/rules.md §5–§7).

    Attributes:
        option: the ``GameConfig`` argument at fault (``"num_players"``, ``"investigators"``...), so an
            application can name its own spelling of it (the command line: ``--players``).
        requirement: the message without the option's name in front when it says what the option
            must be (``"must be 2..5, got 6"``), else the whole message.
    """

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option
        self.requirement = message[len(option) + 1:] if message.startswith(option + " must ") else message
