"""Bot failures: their own branch of errors, outcomes for the referee, never host crashes."""

from __future__ import annotations

from runner.games.base import Termination


class BotFault(Exception):
    """A bot broke a rule or a limit. ``str(fault)`` is one plain sentence for people."""

    termination = Termination.CRASH


class BotTimeout(BotFault):
    termination = Termination.TIMEOUT


class BotCrashed(BotFault):
    """The bot's process died: a signal, or it exited."""

    termination = Termination.CRASH

    def __init__(self, message: str, signal_name: str | None = None) -> None:
        super().__init__(message)
        self.signal_name = signal_name


class BotOutOfMemory(BotFault):
    termination = Termination.MEMORY


class BotProtocolError(BotFault):
    """The bot closed or broke the channel the host talks to it on."""

    termination = Termination.DISCONNECT


class BotInvalidMove(BotFault):
    termination = Termination.INVALID_MOVE
