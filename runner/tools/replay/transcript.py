"""What each seat of a recorded game was sent and what it answered, step by step.

The record holds the seed, the seats, every move and every fault; the rules are pure, so
``runner.play.playback`` rebuilds every position, and the game's codec gives the bytes a seat was
sent there, exactly as the referee (runner/play/referee.py) wrote them:

- every seat that moves in a step (``to_move``, less the seats already out) is asked with the
  position before the step; a seat that faulted in it was asked too (it is retired, or plays its
  stand-in move, only after the asking);
- a program for the whole game reads the codec's greeting once, just before its first request; a
  program started afresh for every move reads it before every request; a C function has none;
- a two-seat game that a fault ended has one more ask after its last step, the faulting one
  (``Ask.move`` None); a bot that failed while loading was asked nothing (``Ask.at_start``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from runner.games.base import EMPTY, Setup
from runner.games.spec import GameSpec
from runner.play.playback import playback

Record = Mapping[str, Any]


@dataclass(frozen=True)
class RecordedFault:
    """A fault the record holds: its kind (a ``Termination`` value) and its sentence."""

    termination: str
    detail: str


@dataclass(frozen=True)
class Ask:
    """One seat asked for a move: what it was shown and sent, and what the record says it did."""

    index: int  # the step's index among the record's moves (the ending: one past the last)
    turn: int
    seat: int
    state: Any  # the position it was asked in
    greeting: bytes  # sent just before the request (b"": none)
    request: bytes  # the codec's request (a C function: its arguments' bytes)
    move: Any | None  # the recorded move (a stand-in after a fault); None: none recorded
    fault: RecordedFault | None = None
    at_start: bool = False  # the fault came while the bot was loading: it was asked nothing

    @property
    def sent(self) -> bytes:
        return self.greeting + self.request


@dataclass(frozen=True)
class Moment:
    """One step of the record: the position, the asks, the position after (None: the game
    ended there by a fault, before any move was made)."""

    index: int
    turn: int
    before: Any
    asks: tuple[Ask, ...]
    after: Any | None
    retired: tuple[int, ...] = ()  # seats out of the game from this step on


def recorded_faults(record: Record) -> dict[tuple[int, int], RecordedFault]:
    """The faults of a game of more than two seats, by (index of their step, seat)."""
    found: dict[tuple[int, int], RecordedFault] = {}
    for fault in record["outcome"].get("faults") or ():
        key = (int(fault.get("at", 0)), int(fault["seat"]))
        found.setdefault(key, RecordedFault(str(fault["termination"]), str(fault["detail"])))
    return found


class _Greetings:
    """Which seats have read their greeting (a program for the whole game reads it once)."""

    def __init__(self, spec: GameSpec, initial: Any) -> None:
        self.spec, self.initial = spec, initial
        self.greeted: set[int] = set()

    def for_ask(self, seat: int) -> bytes:
        if self.spec.interface == "c-function":
            return b""
        if self.spec.interface == "stdio" and seat in self.greeted:
            return b""
        self.greeted.add(seat)
        return self.spec.codec.greeting(self.initial, seat)  # type: ignore[union-attr]


def transcript(spec: GameSpec, record: Record, setup: Setup = EMPTY) -> Iterator[Moment]:
    """Every step of ``record`` with its asks, then the ending's ask if a fault ended it.

    Raises runner.play.playback.PlaybackError when the rules refuse the record's moves."""
    rules, codec = spec.rules, spec.codec
    faults = recorded_faults(record)
    steps = playback(spec, record, setup)
    _, state = next(steps)
    greetings = _Greetings(spec, state)
    out: set[int] = set()
    count = 0
    for index, (step, after) in enumerate(steps):
        assert step is not None
        moves = {seat: rules.parse_move(seat, text) for seat, text in step.moves}
        asks = []
        for seat in rules.to_move(state):
            if seat in out:
                continue
            fault = faults.get((index, seat))
            greeting = greetings.for_ask(seat)
            request = codec.request(state, seat)
            turn = rules.turn(state)
            asks.append(Ask(index, turn, seat, state, greeting, request, moves.get(seat), fault))
        yield Moment(index, rules.turn(state), state, tuple(asks), after, step.retired)
        out.update(step.retired)
        state, count = after, index + 1
    ending = _ending(spec, record, state, count, greetings)
    if ending is not None:
        yield ending


def _ending(
    spec: GameSpec, record: Record, state: Any, index: int, greetings: _Greetings
) -> Moment | None:
    """The ask whose fault ended a two-seat game (and the other seats asked with it, whose
    answers the record does not hold), or None when the rules ended the game."""
    outcome = record["outcome"]
    faulty = outcome.get("faulty")
    if faulty is None:
        return None
    rules, codec = spec.rules, spec.codec
    fault = RecordedFault(str(outcome["termination"]), str(outcome.get("detail", "")))
    turn = rules.turn(state)
    movers = rules.to_move(state)
    asks = []
    if faulty not in movers:  # it failed while loading, before anything was asked of it
        asks.append(Ask(index, turn, faulty, state, b"", b"", None, fault, at_start=True))
    for seat in movers:
        greeting = greetings.for_ask(seat)
        request = codec.request(state, seat)
        asks.append(
            Ask(
                index, turn, seat, state, greeting, request, None, fault if seat == faulty else None
            )
        )
    return Moment(index, turn, state, tuple(asks), None)


def seat_asks(moments: Iterator[Moment], seat: int) -> Iterator[Ask]:
    """The asks of one seat, in order."""
    for moment in moments:
        for ask in moment.asks:
            if ask.seat == seat:
                yield ask
