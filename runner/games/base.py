"""The contract every game module implements, and the types a game's end is described with.

A game is rules only: pure, deterministic, no I/O, no clock, no global randomness. States are
immutable values; ``apply`` returns a new state. Randomness comes from the ``random.Random``
passed to ``initial_state``. A changed rule set is a new game id, so old replays stay valid.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, TypeVar


class InvalidMoveError(ValueError):
    """A bot's reply is not a move at all (syntax): 'Q', garbage, an unknown token."""


class IllegalMoveError(ValueError):
    """A bot's reply is a well-formed move that the rules forbid in this position."""


class Termination(enum.StrEnum):
    """Why a game ended. Stored in results and shown on the site."""

    NORMAL = "normal"  # played to the end, scored by the rules
    SUFFOCATION = "suffocation"  # Snakes: a head was enclosed
    INVALID_MOVE = "invalid_move"  # a bot replied something that is not a legal move
    TIMEOUT = "timeout"  # a bot exceeded a time limit (CPU per move or per game, or wall clock)
    CRASH = "crash"  # a bot's process died (signal) or exited
    MEMORY = "memory"  # a bot exceeded its memory limit
    DISCONNECT = "disconnect"  # a bot closed its end of the protocol or broke it

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.SUFFOCATION)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``points`` has one entry per seat (win 1, draw 0.5, loss 0 in two-player games).
    ``faulty`` is the seat whose fault ended the game, if any. ``detail`` is one plain sentence
    for people ("SIGSEGV at turn 37", "O was enclosed by X at turn 210", "X 290 cells, O 222").
    ``placement`` is each seat's place (1 first, ties share the better place); empty in games
    whose points say it all (two seats), see ``places``.
    """

    points: tuple[float, ...]
    termination: Termination
    detail: str
    faulty: int | None = None
    placement: tuple[int, ...] = ()

    @property
    def places(self) -> tuple[int, ...]:
        """Each seat's place: ``placement``, or read from the points (more is better)."""
        if self.placement:
            return self.placement
        return tuple(1 + sum(other > mine for other in self.points) for mine in self.points)


@dataclass(frozen=True)
class GameInfo:
    """The shape of a game, declared up front."""

    min_players: int
    max_players: int
    simultaneous: bool  # True: every seat in to_move() moves at once
    max_moves: int  # an upper bound on apply() calls in one game
    interface: str  # "c-function" or "stdio"
    seat_names: tuple[str, ...]  # display names of the seats, e.g. ("X", "O")
    score_label: str = "score {}"  # how a seat's score reads, e.g. "{} cells"
    fresh_process_per_move: bool = False  # stdio bots: a new process for every move


S = TypeVar("S")
M = TypeVar("M")


class Game(Protocol, Generic[S, M]):
    """Rules of one game. Implementations are stateless; all state lives in ``S`` values."""

    id: ClassVar[str]
    info: ClassVar[GameInfo]

    def initial_state(self, rng: random.Random) -> S: ...

    def to_move(self, state: S) -> tuple[int, ...]:
        """Seats that move next (empty once the game is over)."""
        ...

    def observation(self, state: S, seat: int) -> bytes:
        """What ``seat`` is shown before its move, in the game's wire format for its interface."""
        ...

    def parse_move(self, seat: int, reply: int | str) -> M:
        """Turn a bot's raw reply into a move; raises InvalidMoveError naming the reply."""
        ...

    def move_text(self, move: M) -> str:
        """The move as text, for replays (``parse_move`` of it gives the move back)."""
        ...

    def apply(self, state: S, moves: Mapping[int, M]) -> S: ...

    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def scores(self, state: S) -> tuple[int, ...]:
        """Per-seat score as the rules count it (Snakes: cells owned)."""
        ...

    def turn(self, state: S) -> int:
        """The 1-based turn number the next move belongs to (for messages like 'at turn 37')."""
        ...

    def render_text(self, state: S) -> str:
        """The state as a text frame (Snakes: 16 lines of 32 characters, no trailing newline)."""
        ...


def fault_outcome(info: GameInfo, faulty: int, termination: Termination, detail: str) -> Outcome:
    """The outcome when ``faulty`` breaks a rule or a limit: it loses, every other seat wins."""
    seats = info.max_players
    points = tuple(0.0 if seat == faulty else 1.0 for seat in range(seats))
    return Outcome(points=points, termination=termination, detail=detail, faulty=faulty)
