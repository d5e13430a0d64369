"""Program bots that speak a line protocol on stdin/stdout (Cluster and later games), any language.

The program runs in the sandbox's process (runner/bots/worker.py's exec mode): the host writes the
game's messages to its stdin and reads one reply line (capped) per move from its stdout, under the
watchdogs of runner/bots/watch.py. Its stderr is kept, capped, with the game's result. A bot is
persistent for the whole game; a game that wants a fresh process per move starts one per move.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.bots.watch import WatchedBot
from runner.sandbox.zygote import BotLimits, BotProcess

LINE_CAP = 4096  # the longest reply line accepted


class StdioBot(WatchedBot):
    """One program bot for one game."""

    def start(self) -> str:
        """Wait until the sandbox has started the program; returns its display name."""
        self.started()
        return self.name

    def send(self, message: bytes) -> None:
        """Queue a message the bot answers nothing to (e.g. the init message): it is written
        with the next turn message, under that move's watchdog."""
        self._outbox += message

    def ask(self, observation: bytes, turn: int) -> str:
        """Send the turn message; the bot's reply line (without its line ending)."""
        first = self.limits.first_move_wall_s if self.moves == 0 else None
        reply = self.exchange(observation, LINE_CAP, turn, line=True, wall=first or 0.0)
        self.moves += 1
        return reply.decode("utf-8", errors="replace").rstrip("\r")


class FreshStdioBot:
    """A program bot started afresh for every move, for games that keep no bot memory between
    moves: each move spawns a process, sends it the init message (if the game has one) and the
    turn message, reads its line, and ends it. CPU time and the first-move allowance carry over
    from move to move, so the limits are the game's, not each process's."""

    def __init__(
        self,
        spawn: Callable[[], BotProcess],
        limits: BotLimits,
        name: str,
        init: bytes | None,
    ) -> None:
        self.spawn, self.limits, self.name, self.init = spawn, limits, name, init
        self.cpu_used = 0.0
        self.moves = 0
        self.outputs: list[str] = []

    def start(self) -> str:
        return self.name

    def ask(self, observation: bytes, turn: int) -> str:
        bot = StdioBot(self.spawn(), self.limits, self.name)
        bot.cpu_used, bot.moves = self.cpu_used, self.moves
        try:
            bot.start()
            if self.init is not None:
                bot.send(self.init)
            return bot.ask(observation, turn)
        finally:
            self.cpu_used, self.moves = bot.cpu_used, bot.moves
            bot.close()
            if text := bot.output_text():
                self.outputs.append(f"[turn {turn}] {text}")

    def output_text(self) -> str:
        return "\n".join(self.outputs)

    def close(self) -> None:
        pass
