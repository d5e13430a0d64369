"""The types every game shares: its declared shape, how a game ends, and the move errors.

runner/games/spec.py holds the protocols a game package implements (rules, codecs) and the
GameSpec that bundles them. A changed rule set is a new game id, so old replays stay valid.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

M = TypeVar("M")


class InvalidMoveError(ValueError):
    """A bot's reply is not a move at all (syntax): 'Q', garbage, an unknown token."""


class IllegalMoveError(ValueError):
    """A bot's reply is a well-formed move that the rules forbid in this position."""


def move_of_the_mover(moves: Mapping[int, M], seat: int, name: str) -> M:
    """The move of ``seat`` (called ``name``), the one seat to move in a game where seats take
    turns; IllegalMoveError if ``moves`` holds anything else."""
    if len(moves) != 1 or seat not in moves:
        raise IllegalMoveError(f"it is {name}'s move, but moves came for seats {sorted(moves)}")
    return moves[seat]


def check_movers(moves: Mapping[int, object], moving: Sequence[int]) -> None:
    """IllegalMoveError unless ``moves`` names exactly the seats ``moving`` (in seat order)."""
    if sorted(moves) != list(moving):
        raise IllegalMoveError(
            f"moves came for seats {sorted(moves)}, but seats {list(moving)} move now"
        )


# Each ending in words, as readers see it (the CLI, the site); records keep the enum's values.
ENDINGS = {
    "normal": "played to the end",
    "suffocation": "enclosed",
    "invalid_move": "invalid move",
    "timeout": "timeout",
    "crash": "crash",
    "memory": "memory limit",
    "disconnect": "disconnect",
}


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
    def words(self) -> str:
        """How the CLI and the site name this ending (one vocabulary for readers)."""
        return ENDINGS[self.value]

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.SUFFOCATION)


@dataclass(frozen=True)
class SeatFault:
    """A seat that broke a rule or a limit in a game that went on without it (or with a
    stand-in move for it; a game of more than two seats, or one whose two seats do not forfeit):
    when, how, and why in words."""

    seat: int
    turn: int
    termination: Termination
    detail: str


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``points`` has one entry per seat (win 1, draw 0.5, loss 0 in two-player games).
    ``faulty`` is the seat whose fault ended the game, if any. ``detail`` is one plain sentence
    for people ("SIGSEGV at turn 37", "O was enclosed by X at turn 210", "X 290 cells, O 222").
    ``placement`` is each seat's place (1 first, ties share the better place); empty in games
    whose points say it all (two seats), see ``places``. ``faults``: the seats that faulted in a
    game that went on after them (``faulty`` is for a fault that ended the game).
    """

    points: tuple[float, ...]
    termination: Termination
    detail: str
    faulty: int | None = None
    placement: tuple[int, ...] = ()
    faults: tuple[SeatFault, ...] = ()

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
    seat_names: tuple[str, ...]  # display names of the seats, e.g. ("X", "O")
    score_label: str = "score {}"  # how a seat's score reads, e.g. "{} cells"
    seat_counts: tuple[int, ...] = ()  # the seat counts allowed; empty: any in [min, max]
    # A fault in a two-seat game ends it as that seat's loss; False: the seat stands in or is out
    # as in a larger game, and the turn is played on (Multisnake: both snakes dying in it tie).
    two_seat_forfeit: bool = True
    # The most bytes one move's text (``move_text``) takes in a record, as a JSON string with its
    # quotes: the record's size, and the reader's cap, follow from it (runner/season/results.py).
    # The default holds short ASCII moves ("L", "PLACE 3 0"); a game whose moves carry more says so.
    max_move_bytes: int = 32

    def allows(self, seats: int) -> bool:
        if self.seat_counts:
            return seats in self.seat_counts
        return self.min_players <= seats <= self.max_players


Setup = Mapping[str, object]  # a game's per-game settings from tournament.yaml (e.g. a map)
EMPTY: Setup = MappingProxyType({})


def fault_outcome(seats: int, faulty: int, termination: Termination, detail: str) -> Outcome:
    """The outcome when ``faulty`` breaks a rule or a limit in a two-seat game: it loses, the
    other seat wins."""
    points = tuple(0.0 if seat == faulty else 1.0 for seat in range(seats))
    return Outcome(points=points, termination=termination, detail=detail, faulty=faulty)
