"""A bot given one seat's recorded inputs in order, its answers compared with the record's.

The bot is asked exactly what the seat was asked (runner/tools/replay/transcript.py). An answer
matches when it means the same move (``move_text``: ``PLACE 03 0`` and ``PLACE 3 0`` are one
move), or when the record holds a fault there and the bot faults the same way (a crash for a
crash, whatever its signal); an answer the record does not hold (the other seat's fault ended
the game first) matches anything. The first answer that does not match is the divergence.

Where it runs is a ``Runner``: ``Sandboxed`` is the referee's own way (runner/play/seats.py,
the season's limits); runner/tools/replay/outside.py runs the bot under a tool instead.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.spec import GameSpec
from runner.play.faults import BotFault
from runner.play.seats import Entrant, Spawner, open_seat
from runner.play.stdio import reply_lines
from runner.play.watchdog import gather
from runner.sandbox.zygote_client import BotLimits
from runner.tools.replay.transcript import Ask


@dataclass(frozen=True)
class Answer:
    """What a bot did when asked: its reply's bytes (a C function: its int), the move they mean
    (checked by the rules), or its fault."""

    raw: bytes = b""
    value: int | None = None  # a C function's int
    move: Any | None = None
    termination: Termination | None = None
    reason: str = ""  # the fault in words: "SIGSEGV at turn 37"

    @property
    def faulted(self) -> bool:
        return self.termination is not None


def fault(termination: Termination, reason: str, raw: bytes = b"") -> Answer:
    return Answer(raw, termination=termination, reason=reason)


def decoded(spec: GameSpec, ask: Ask, raw: bytes, value: int | None = None) -> Answer:
    """The answer a reply makes, read by the game's codec and checked by its rules, as the
    referee judges a reply (an invalid or illegal one is an ``invalid_move`` fault)."""
    codec: Any = spec.codec
    try:
        if value is not None:
            move = codec.decode(ask.state, ask.seat, value)
        else:
            move = codec.decode(ask.state, ask.seat, reply_lines(raw))
        spec.rules.check_move(ask.state, ask.seat, move)
    except (InvalidMoveError, IllegalMoveError) as exc:
        return Answer(raw, value, None, Termination.INVALID_MOVE, f"{exc} at turn {ask.turn}")
    return Answer(raw, value, move)


class Runner(Protocol):
    """A bot for one seat, asked one move at a time."""

    def start(self) -> Answer | None:
        """Start the bot: None, or its fault while loading."""
        ...

    def ask(self, ask: Ask) -> Answer: ...

    def output(self) -> str:
        """What the bot printed so far (its stderr), when that was kept."""
        ...

    def close(self) -> None: ...


class Sandboxed:
    """The bot as the referee runs it: in the sandbox, under the season's limits."""

    def __init__(
        self,
        spec: GameSpec,
        who: Entrant,
        sandbox: Spawner,
        limits: BotLimits,
        seat: int,
        initial: Any,
    ) -> None:
        self.spec = spec
        self.held = open_seat(spec, who, sandbox, limits, seat, initial)

    def start(self) -> Answer | None:
        try:
            self.held.bot.start()
        except BotFault as exc:
            return fault(exc.termination, str(exc))
        return None

    def ask(self, ask: Ask) -> Answer:
        bot = self.held.bot
        try:
            move = bot.begin(ask.request, ask.turn)
        except BotFault as exc:
            return fault(exc.termination, str(exc))
        gather((move,))
        bot.finish(move)
        if move.fault is not None:
            return fault(move.fault.termination, str(move.fault), move.reply or b"")
        assert move.reply is not None
        if self.spec.interface == "c-function":
            (value,) = struct.unpack("<i", move.reply)
            return decoded(self.spec, ask, move.reply, value)
        return decoded(self.spec, ask, move.reply)

    def output(self) -> str:
        return self.held.bot.output_text()

    def close(self) -> None:
        self.held.bot.close()


def difference(spec: GameSpec, ask: Ask, answer: Answer) -> str | None:
    """How ``answer`` differs from what the record holds for ``ask`` (None: it matches)."""
    text = spec.rules.move_text
    if ask.fault is not None:
        if not answer.faulted:
            did = "loaded" if ask.at_start else f"answered {text(answer.move)}"
            return f"the record has a fault here ({ask.fault.detail}); the bot {did}"
        assert answer.termination is not None
        if answer.termination.value != ask.fault.termination:
            return (
                f"the record has a {ask.fault.termination} here ({ask.fault.detail}); the bot "
                f"had a {answer.termination.value}: {answer.reason}"
            )
        return None
    if ask.move is None:
        return None  # the record holds no answer here: the game ended on another seat's fault
    if answer.faulted:
        assert answer.termination is not None
        return (
            f"the bot had a {answer.termination.value}: {answer.reason}; the record has the "
            f"move {text(ask.move)}"
        )
    if text(answer.move) != text(ask.move):
        return f"the record has {text(ask.move)}; the bot answered {text(answer.move)}"
    return None


@dataclass(frozen=True)
class Verdict:
    """How a bot's answers compared with the record's, for one seat."""

    matched: int  # asks whose answer matched (recorded faults included)
    faults: tuple[tuple[Ask, Answer], ...]  # the recorded faults the bot reproduced
    diverged: Ask | None = None  # the first ask it answered differently
    answer: Answer | None = None  # its answer there
    difference: str = ""
    until: int | None = None  # the turn it stopped after (--until), if it stopped early
    skipped: int = 0  # asks before --from's turn, not asked

    @property
    def reproduced(self) -> bool:
        return self.diverged is None


OnAnswer = Callable[[Ask, Answer], None]


def feed(
    spec: GameSpec,
    asks: Iterable[Ask],
    runner: Runner,
    first: int | None = None,
    until: int | None = None,
    on_answer: OnAnswer | None = None,
) -> Verdict:
    """Ask ``runner`` every ask of one seat in order (those of turns ``first`` to ``until``)
    and compare its answers with the record's; stop at the first difference."""
    started = runner.start()
    matched, skipped = 0, 0
    reproduced: list[tuple[Ask, Answer]] = []
    for ask in asks:
        if until is not None and ask.turn > until:
            return Verdict(matched, tuple(reproduced), until=until, skipped=skipped)
        if first is not None and ask.turn < first:
            skipped += 1
            continue
        answer = _answer(runner, ask, started)
        started = None
        if on_answer is not None:
            on_answer(ask, answer)
        differs = difference(spec, ask, answer)
        if differs is not None:
            return Verdict(matched, tuple(reproduced), ask, answer, differs, skipped=skipped)
        matched += 1
        if ask.fault is not None:
            reproduced.append((ask, answer))
    return Verdict(matched, tuple(reproduced), skipped=skipped)


def _answer(runner: Runner, ask: Ask, started: Answer | None) -> Answer:
    """The bot's answer to ``ask``: its fault while loading answers its first ask; a bot that
    the record says failed while loading is asked nothing."""
    if started is not None:
        return started
    if ask.at_start:
        return Answer()  # it loaded, and the record asks it nothing
    return runner.ask(ask)
