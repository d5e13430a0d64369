"""Program bots that speak a line protocol on stdin/stdout (Cluster and later games), any language.

The program runs in the sandbox's process (runner/bots/worker.py's exec mode): the host writes the
game's messages to its stdin and reads one reply line (capped) per move from its stdout, under the
watchdogs of runner/bots/watch.py. Its stderr is kept, capped, with the game's result. A bot is
persistent for the whole game; a game that wants a fresh process per move starts one per move.
"""

from __future__ import annotations

import os

from runner.bots.watch import WatchedBot

LINE_CAP = 4096  # the longest reply line accepted


class StdioBot(WatchedBot):
    """One program bot for one game."""

    def start(self) -> str:
        """Wait until the sandbox has started the program; returns its display name."""
        self.process.ready()
        return self.name

    def send(self, message: bytes, at: str) -> None:
        """Write a message the bot answers nothing to (e.g. the init message)."""
        try:
            os.write(self.process.request_fd, message)
        except BrokenPipeError:
            raise self._death(at) from None

    def ask(self, observation: bytes, turn: int) -> str:
        """Send the turn message; the bot's reply line (without its line ending)."""
        at = f"at turn {turn}"
        self.send(observation, at)
        first = self.limits.first_move_wall_s if self.moves == 0 else None
        reply = self._await(LINE_CAP, at, line=True, wall=first or 0.0)
        self.moves += 1
        return reply.decode("utf-8", errors="replace").rstrip("\r")
