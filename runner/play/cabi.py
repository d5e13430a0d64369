"""C-function bots, referee side.

The bot's shared object runs in a sandboxed process (runner/jail/zygote.py) that says hello
with the bot's name, then answers each request (the bytes the game's codec lays out for its C
signature) with a four-byte int. The watchdogs are runner/play/watchdog.py's.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from runner.jail import zygote as zygote_program
from runner.play.faults import BotProtocolError
from runner.play.watchdog import Exchange, Progress, Want, WatchedBot

NAME_CHARS = 64
_REPLY = struct.Struct("<i")
_WANT = Want(_REPLY.size)  # every reply: one C int


def clean_name(raw: bytes, fallback: str) -> str:
    """A display name from untrusted bytes: printable, one line, at most NAME_CHARS."""
    text = raw.decode("utf-8", errors="replace")
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())[:NAME_CHARS]
    return text or fallback


class CFunctionBot(WatchedBot):
    """One C-function bot for one game: hello (its name), then one call per move."""

    def start(self) -> str:
        """Wait until the bot is loaded; returns its name (cleaned)."""
        self.started()
        header = self.load(len(zygote_program.HELLO_MAGIC) + 2)
        if header[: len(zygote_program.HELLO_MAGIC)] != zygote_program.HELLO_MAGIC:
            self.process.kill()
            raise BotProtocolError("wrote to the host's reply channel while loading")
        (length,) = struct.unpack("<H", header[len(zygote_program.HELLO_MAGIC) :])
        if length > zygote_program.NAME_CAP:
            self.process.kill()
            raise BotProtocolError("sent a malformed hello while loading")
        raw = self.load(length) if length else b""
        self.name = clean_name(raw, self.fallback_name)
        return self.name

    def begin(self, request: bytes, turn: int) -> Exchange:
        return Exchange(self, request, _WANT, turn)

    def ask_alone(self, request: bytes, turn: int) -> Exchange:
        return self.exchange_alone(request, _WANT, turn)

    def resume_alone(
        self, request: bytes, progress: Progress, events: Sequence[tuple[int, int]], turn: int
    ) -> Exchange:
        """A move a game's quick loop began and handed over (``WatchedBot.resumed``)."""
        return self.resumed(request, _WANT, turn, progress, events)

    def finish(self, move: Exchange) -> None:
        self.moves += 1

    def value(self, move: Exchange) -> int:
        """The int the function returned."""
        assert move.reply is not None
        (value,) = _REPLY.unpack(move.reply)
        return int(value)

    def ask(self, request: bytes, turn: int) -> int:
        """One call asked alone: the int it returned (or its fault raised)."""
        (value,) = _REPLY.unpack(self.exchange(request, _WANT, turn))
        return int(value)
