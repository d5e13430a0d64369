"""A person's seat: moves from the keyboard, at a steady pace (``koth play you …``).

The referee asks this seat like any other (runner/play/seats.py): ``begin`` puts its move in
flight, and the referee's ``gather`` drives it together with the bots' exchanges, each under its
own watchdog — a person thinking never holds up the watchdogs of the bots. The move is in flight
for ``pace`` seconds; the keys pressed meanwhile (read as they arrive, never blocking) choose it,
and the last key's move stays chosen for the turns after it until another key is pressed (a
snake keeps its direction). Before the first key the seat plays the game's ``Keyboard.start``
move. Which key makes which move is the game's ``Keyboard`` (runner/games/spec.py).

Keys come from a file descriptor: the terminal in cbreak mode (runner/play/terminal.py), or a pipe
in tests. Its end (a closed pipe) is the person leaving: the seat faults, as a bot that closed
its output would.
"""

from __future__ import annotations

import os
import select
import time
from typing import Any

from runner.games.spec import GameSpec, Keyboard
from runner.play.faults import BotFault, BotProtocolError
from runner.play.seats import Seat, SeatOpener
from runner.play.terminal import KeyDecoder
from runner.play.watchdog import driven

HUMAN = "you"  # the name `koth play` gives the seat a person plays
_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR


class HumanBot:
    """A person at the keyboard, for one game."""

    def __init__(self, fd: int, keyboard: Keyboard, pace: float, first: Any, name: str) -> None:
        self.fd, self.keyboard, self.pace, self.name = fd, keyboard, pace, name
        self.chosen = first  # the move of the last key pressed
        self.cpu_used = 0.0  # a person's thinking is no CPU of ours
        self.decoder = KeyDecoder()
        self.poll = select.poll()
        self.poll.register(fd, _IN)
        self.gone = False  # the keyboard closed

    def start(self) -> str:
        return self.name

    def prepare(self) -> None:
        """Nothing to start: the person is already at the keyboard."""

    def begin(self, request: bytes, turn: int) -> HumanMove:
        self.read_keys()  # keys pressed since the last move count for this one
        return HumanMove(self, turn, time.monotonic() + self.pace)

    def read_keys(self) -> None:
        """Take every key waiting on the descriptor, without blocking."""
        while not self.gone and self.poll.poll(0):
            data = os.read(self.fd, 1024)
            if not data:
                self.gone = True
                break
            for key in self.decoder.feed(data):
                if key in self.keyboard.keys:
                    self.chosen = self.keyboard.keys[key]

    def ask_alone(self, request: bytes, turn: int) -> HumanMove:
        return driven(self.begin(request, turn))

    def finish(self, move: HumanMove) -> None:
        pass

    def close(self) -> None:
        pass

    def output_text(self) -> str:
        return ""


class HumanMove:
    """A person's move in flight (a ``Pending`` of runner/play/watchdog.py): done ``pace`` seconds
    after it began, with the move of the last key pressed by then."""

    def __init__(self, bot: HumanBot, turn: int, deadline: float) -> None:
        self.bot, self.deadline = bot, deadline
        self.turn: int | None = turn
        self.fault: BotFault | None = None
        self.chosen: Any = None
        self.finished = False
        self._settle(time.monotonic())

    @property
    def done(self) -> bool:
        return self.finished

    def fds(self) -> tuple[int, ...]:
        return (self.bot.fd,)

    def inputs(self) -> tuple[int, ...]:
        return (self.bot.fd,)

    def solo_poll(self) -> select.poll:
        return self.bot.poll

    def watch(self, poll: select.poll) -> None:
        pass

    def unwatch(self) -> None:
        pass

    def handle(self, fd: int, events: int) -> None:
        self.bot.read_keys()
        self._settle(time.monotonic())

    def check(self, now: float) -> float:
        self._settle(now)
        return max(0.0, self.deadline - now)

    def _settle(self, now: float) -> None:
        if self.finished:
            return
        if self.bot.gone:
            gone = f"left the game (the keyboard closed) at turn {self.turn}"
            self.fault = BotProtocolError(gone)
            self.finished = True
        elif now >= self.deadline:
            self.chosen, self.finished = self.bot.chosen, True


def human_seat(fd: int, pace: float, name: str = HUMAN) -> SeatOpener:
    """What seats a person: keys read from ``fd``, a move every ``pace`` seconds."""

    def opens(spec: GameSpec, seat: int, state: Any) -> Seat:
        keyboard = spec.keyboard
        if keyboard is None:
            raise ValueError(f"{spec.id} cannot be played from the keyboard")
        bot = HumanBot(fd, keyboard, pace, keyboard.start(state, seat), name)
        return Seat(bot, lambda now: b"", lambda now, move: move.chosen)

    return opens
