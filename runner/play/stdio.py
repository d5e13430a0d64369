"""Program bots that speak a line protocol on stdin/stdout, in any language.

The program runs in the sandbox's process (runner/jail/zygote.py's exec mode): the host writes the
game's messages to its stdin and reads one reply (up to the codec's number of lines, each capped)
per move from its stdout, under the watchdogs of runner/play/watchdog.py. Its stderr is kept,
capped, with the game's result. ``StdioBot`` lives for the whole game; ``FreshStdioBot`` starts a
new process for every move, for games whose bots keep no memory between moves; where the codec reads
``UNTIL_EXIT``, that process's move is everything it writes until it exits (at most ``REPLY_CAP``
bytes), and it must exit within the move's time.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.games.spec import UNTIL_EXIT
from runner.play.watchdog import Exchange, Want, WatchedBot, driven
from runner.sandbox.zygote_client import BotLimits, BotProcess

LINE_CAP = 4096  # the longest reply line accepted
REPLY_CAP = 64 * 1024  # the most a program whose move ends as it exits may write in one move


def reply_lines(reply: bytes) -> list[str]:
    """A reply's lines, without their line endings (a CR before each LF is dropped)."""
    if not reply:
        return []
    return [line.removesuffix("\r") for line in reply.decode("utf-8", "replace").split("\n")]


class StdioBot(WatchedBot):
    """One program bot for one game."""

    idle_between_moves = True

    def __init__(
        self,
        process: BotProcess,
        limits: BotLimits,
        fallback_name: str,
        lines: int = 1,
        until_end: bool = False,
    ) -> None:
        super().__init__(process, limits, fallback_name)
        if lines == UNTIL_EXIT:
            self.want = Want(REPLY_CAP, until_exit=True)
        else:
            self.want = Want(LINE_CAP, lines, until_end)

    def start(self) -> str:
        """Wait until the sandbox has started the program; returns its display name. Until its
        first move it computes only on CPU nothing else wants."""
        self.started()
        self.moved()
        return self.name

    def send(self, message: bytes) -> None:
        """Queue a message the bot answers nothing to (e.g. the game's first message): it is
        written with the next request, under that move's watchdog."""
        self.outbox += message

    def begin(self, request: bytes, turn: int) -> Exchange:
        first = self.limits.first_move_wall_s if self.moves == 0 else None
        return Exchange(self, request, self.want, turn, first or 0.0)

    def ask_alone(self, request: bytes, turn: int) -> Exchange:
        first = self.limits.first_move_wall_s if self.moves == 0 else None
        return self.exchange_alone(request, self.want, turn, first or 0.0)

    def finish(self, move: Exchange) -> None:
        self.moves += 1

    def lines(self, move: Exchange) -> list[str]:
        assert move.reply is not None
        return reply_lines(move.reply)

    def ask(self, request: bytes, turn: int) -> str:
        """One move asked alone: the reply's first line (or its fault raised)."""
        first = self.limits.first_move_wall_s if self.moves == 0 else None
        reply = self.exchange(request, self.want, turn, first or 0.0)
        self.moves += 1
        return (reply_lines(reply) or [""])[0]


class FreshStdioBot:
    """A program bot started afresh for every move: each move spawns a process, sends it the
    game's first message (if any) and the request, reads its reply, and ends it. CPU time and
    the first-move allowance carry over from move to move, so the limits are the game's, not
    each process's. ``prepare`` asks for the move's process early, so that the referee can
    start every seat's process of a turn side by side before it asks the first."""

    def __init__(
        self,
        spawn: Callable[[], BotProcess],
        limits: BotLimits,
        name: str,
        greeting: bytes,
        lines: int,
    ) -> None:
        self.spawn, self.limits, self.name, self.greeting = spawn, limits, name, greeting
        self.lines_wanted = lines
        self.cpu_used = 0.0
        self.moves = 0
        self.outputs: list[str] = []
        self._current: StdioBot | None = None
        self._next: BotProcess | None = None  # spawned by ``prepare``, not asked yet
        self.last: BotProcess | None = None  # the process of the latest move (closed)

    def start(self) -> str:
        return self.name

    def prepare(self) -> None:
        """Start the next move's process now (it walls itself in while the others start)."""
        if self._next is None:
            self._next = self.spawn()

    def begin(self, request: bytes, turn: int) -> Exchange:
        self.prepare()
        process, self._next = self._next, None
        assert process is not None
        bot = StdioBot(process, self.limits, self.name, self.lines_wanted, until_end=True)
        bot.cpu_used, bot.moves = self.cpu_used, self.moves
        self._current = bot
        bot.start()
        bot.send(self.greeting)
        return bot.begin(request, turn)

    def ask_alone(self, request: bytes, turn: int) -> Exchange:
        return driven(self.begin(request, turn))

    def finish(self, move: Exchange) -> None:
        bot, self._current = self._current, None
        if bot is None:
            return
        self.cpu_used, self.moves = bot.cpu_used, bot.moves + 1
        bot.close()
        self.last = bot.process
        if text := bot.output_text():
            self.outputs.append(f"[turn {move.turn}] {text}")

    def lines(self, move: Exchange) -> list[str]:
        assert move.reply is not None
        return reply_lines(move.reply)

    def output_text(self) -> str:
        return "\n".join(self.outputs)

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None
        if self._next is not None:
            self._next.close()
            self._next = None
