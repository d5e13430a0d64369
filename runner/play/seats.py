"""A seat's bot as the referee sees it, whatever kind of bot the game takes.

``open_seat`` chooses the kind by the game's interface (runner/games/spec.py): a C function
(runner/play/cabi.py), a program for the whole game or one started afresh for every move
(runner/play/stdio.py). The seat turns the game state into the request's bytes and the reply into
a move through the game's codec, so the referee knows neither kinds nor wire formats.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from runner.games.spec import CFunctionCodec, GameSpec, StdioCodec
from runner.play.cabi import CFunctionBot
from runner.play.stdio import FreshStdioBot, StdioBot
from runner.play.watchdog import Pending
from runner.sandbox.zygote_client import BotLimits, BotProcess


class Spawner(Protocol):
    def spawn(
        self,
        jail: Path,
        limits: BotLimits,
        program: list[str] | None = None,
        abi: dict[str, Any] | None = None,
    ) -> BotProcess: ...


M = TypeVar("M", bound=Pending)


class Bot(Protocol[M]):
    """What every kind of bot offers the referee (runner/play/cabi.py, stdio.py; a person at
    the keyboard, runner/play/human.py): ``begin`` puts a move in flight (``M``: an Exchange
    with a sandboxed process, or another kind of ``Pending`` move) for the referee's
    ``gather``."""

    name: str
    cpu_used: float

    def start(self) -> str: ...

    def prepare(self) -> None:
        """Get ready to be asked (a bot started afresh per move starts its process)."""
        ...

    def begin(self, request: bytes, turn: int) -> M: ...

    def ask_alone(self, request: bytes, turn: int) -> M:
        """A move while no other seat's is in flight, returned done (its reply or its fault):
        a bot may take a quicker way than ``begin`` and ``gather``."""
        ...

    def finish(self, move: M) -> None: ...

    def close(self) -> None: ...

    def output_text(self) -> str: ...


@dataclass
class Seat:
    """One seat's bot, with the codec calls that turn states into requests and replies into
    moves (raising InvalidMoveError or IllegalMoveError)."""

    bot: Bot[Any]
    request: Callable[[Any], bytes]
    decode: Callable[[Any, Any], Any]


SeatOpener = Callable[[GameSpec, int, Any], Seat]  # (game, seat, first state) → the seat


@dataclass(frozen=True)
class Entrant:
    """What the referee needs of an entry to seat it: its name, its jail, its program; or, for a
    seat not played by a program in the sandbox (a person at the keyboard), what opens it."""

    entry: str
    jail: Path
    program: tuple[str, ...] | None
    opens: SeatOpener | None = None


def _c_function(
    spec: GameSpec, who: Entrant, sandbox: Spawner, limits: BotLimits, seat: int, state: Any
) -> Seat:
    codec = cast(CFunctionCodec[Any, Any], spec.codec)
    process = sandbox.spawn(who.jail, limits, abi=codec.abi.to_json())
    bot = CFunctionBot(process, limits, who.entry)
    return Seat(
        bot,
        lambda now: codec.request(now, seat),
        lambda now, move: codec.decode(now, seat, bot.value(move)),
    )


def _stdio(
    spec: GameSpec, who: Entrant, sandbox: Spawner, limits: BotLimits, seat: int, state: Any
) -> Seat:
    codec = cast(StdioCodec[Any, Any], spec.codec)
    process = sandbox.spawn(who.jail, limits, list(who.program or ()))
    bot = StdioBot(process, limits, who.entry, codec.reply_lines)
    bot.send(codec.greeting(state, seat))
    return Seat(
        bot,
        lambda now: codec.request(now, seat),
        lambda now, move: codec.decode(now, seat, bot.lines(move)),
    )


def _stdio_fresh(
    spec: GameSpec, who: Entrant, sandbox: Spawner, limits: BotLimits, seat: int, state: Any
) -> Seat:
    codec = cast(StdioCodec[Any, Any], spec.codec)

    def spawn() -> BotProcess:
        return sandbox.spawn(who.jail, limits, list(who.program or ()))

    bot = FreshStdioBot(spawn, limits, who.entry, codec.greeting(state, seat), codec.reply_lines)
    return Seat(
        bot,
        lambda now: codec.request(now, seat),
        lambda now, move: codec.decode(now, seat, bot.lines(move)),
    )


OPENERS = {"c-function": _c_function, "stdio": _stdio, "stdio-fresh": _stdio_fresh}


def open_seat(
    spec: GameSpec, who: Entrant, sandbox: Spawner, limits: BotLimits, seat: int, state: Any
) -> Seat:
    """Start ``who``'s bot for ``seat`` (it loads while the other seats start theirs)."""
    if who.opens is not None:
        return who.opens(spec, seat, state)
    return OPENERS[spec.interface](spec, who, sandbox, limits, seat, state)
