"""The shape every game package takes (runner/games/<id>/), for games of 1..N seats.

A game is three parts, kept apart (STYLE 17):

- **rules** (``Rules``): pure and deterministic, no I/O, no clock, no global randomness. States are
  immutable values; ``apply`` takes one move per seat that moves this turn (one seat in a
  sequential game, several at once in a simultaneous one) and returns a new state.
- **codecs**: what a bot of one interface is shown and how its reply reads. ``StdioCodec`` for
  programs on stdin/stdout (for the whole game, or started afresh per move). The wire format lives
  here, never in the rules and never in the sandbox's program.
- **presentation**: ``render_text`` (a text frame; what replays and the terminal show).

Faults. In a two-seat game a bot's fault (crash, timeout, invalid reply) ends the game as its loss;
the referee does that without asking the rules. In a larger game the seat faults alone, as its
rules say: ``stand_in`` gives the move that replaces its reply this turn (Easter Egg Hunt: stay,
do nothing, memory unchanged) and the seat plays on; if it gives None the seat is out and
``retire`` removes it (Multisnake: the snake dies where it stands and stays on the board).

Placement. ``Outcome.placement`` gives each seat its place, 1 first, ties sharing the better place
(1, 2, 2, 4). Points come from placement through a table (``points_for``); with two seats the
default table is win 1, draw ½, loss 0.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, TypeVar

from runner.games.base import GameInfo, Outcome, Termination

S = TypeVar("S")
M = TypeVar("M")
S_in = TypeVar("S_in", contravariant=True)
M_out = TypeVar("M_out", covariant=True)

Setup = Mapping[str, object]  # a game's per-game settings from tournament.yaml (e.g. a map)


class Rules(Protocol, Generic[S, M]):
    """The rules of one game. Stateless: every state lives in ``S`` values."""

    id: ClassVar[str]  # versioned: "domineering-v1"
    info: ClassVar[GameInfo]

    def initial_state(self, rng: random.Random, seats: int, setup: Setup) -> S:
        """The start for ``seats`` players; all randomness from ``rng``."""
        ...

    def to_move(self, state: S) -> tuple[int, ...]:
        """The seats that move now, ascending (empty once the game is over)."""
        ...

    def legal_moves(self, state: S, seat: int) -> Sequence[M]:
        """Every move ``seat`` may make now (what a random bot picks from)."""
        ...

    def check_move(self, state: S, seat: int, move: M) -> None:
        """Raise IllegalMoveError (naming the move) if ``seat`` may not make ``move`` now."""
        ...

    def apply(self, state: S, moves: Mapping[int, M]) -> S:
        """The state after every seat of ``to_move(state)`` made its move (checked first)."""
        ...

    def stand_in(self, state: S, seat: int) -> M | None:
        """The move that replaces a faulting seat's reply in a game of more than two seats, or
        None: the seat is out (see ``retire``)."""
        ...

    def retire(self, state: S, seat: int) -> S:
        """The state with ``seat`` out of the game (its bot faulted), as the rules say."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def scores(self, state: S) -> tuple[float, ...]:
        """Each seat's score as the rules count it (cells, eggs, ...)."""
        ...

    def turn(self, state: S) -> int:
        """The 1-based number of the turn the next moves belong to ('at turn 37')."""
        ...

    def render_text(self, state: S) -> str:
        """The state as a text frame, lines joined by '\\n', no trailing newline."""
        ...

    def move_text(self, move: M) -> str:
        """The move as one line of text for records (``parse_move`` reads it back)."""
        ...

    def parse_move(self, seat: int, text: str) -> M:
        """A move from ``move_text``'s form; InvalidMoveError naming the text otherwise."""
        ...


class StdioCodec(Protocol, Generic[S_in, M_out]):
    """How a program bot on stdin/stdout sees the game and how its reply is read."""

    fresh_process: ClassVar[bool]  # True: a new process for every move
    reply_lines: ClassVar[int]  # a reply is this many lines at most (read until then or EOF)

    def greeting(self, state: S_in, seat: int) -> bytes:
        """Sent once before the first request (before each request if ``fresh_process``);
        b"" for none."""
        ...

    def request(self, state: S_in, seat: int) -> bytes:
        """The message ``seat`` reads before its move."""
        ...

    def decode(self, state: S_in, seat: int, lines: Sequence[str]) -> M_out:
        """The move a reply means (lines without their endings; fewer than ``reply_lines`` when
        the bot wrote fewer). InvalidMoveError quoting the reply when it is not a move."""
        ...


@dataclass(frozen=True)
class PointsTable:
    """Points by place: ``points[k]`` for place k + 1. Seats tied on a place share the points of
    the places they cover equally (two seats tied first of three: (p1 + p2) / 2 each)."""

    points: tuple[float, ...]

    DEFAULT_NAME: ClassVar[str] = "linear"

    @classmethod
    def linear(cls, seats: int) -> PointsTable:
        """1 for first, 0 for last, evenly spaced: win 1 / loss 0 for two seats."""
        if seats == 1:
            return cls((1.0,))
        return cls(tuple((seats - 1 - k) / (seats - 1) for k in range(seats)))


def placement_from_order(finish: Sequence[float]) -> tuple[int, ...]:
    """Places from a per-seat rank value where higher is better (turn of death, eggs, points):
    1 + the number of seats strictly better, so ties share the better place (1, 2, 2, 4)."""
    return tuple(1 + sum(other > mine for other in finish) for mine in finish)


def points_for(placement: Sequence[int], table: PointsTable | None = None) -> tuple[float, ...]:
    """Points per seat for a placement: tied seats share the points of the places they span."""
    table = table or PointsTable.linear(len(placement))
    if len(table.points) < len(placement):
        raise ValueError(f"a points table of {len(table.points)} places for {len(placement)} seats")
    result = []
    for place in placement:
        tied = sum(p == place for p in placement)
        spanned = table.points[place - 1 : place - 1 + tied]
        result.append(sum(spanned) / tied)
    return tuple(result)


def ranked_outcome(
    finish: Sequence[float], termination: Termination, detail: str, table: PointsTable | None = None
) -> Outcome:
    """An Outcome whose placement comes from ``finish`` (higher is better)."""
    placement = placement_from_order(finish)
    return Outcome(points_for(placement, table), termination, detail, placement=placement)


__all__ = [
    "PointsTable",
    "Rules",
    "Setup",
    "StdioCodec",
    "placement_from_order",
    "points_for",
    "ranked_outcome",
]
