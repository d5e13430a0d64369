"""The stdin/stdout protocol of Domineering, as the event's arena speaks it: a fresh process per
move, its move ending when it exits.

Before each of its moves a bot is started afresh and reads, on stdin, ONE line (ASCII): its
orientation (``1`` Left: horizontal dominoes; ``2`` Right: vertical), the 169 cells row by row
(row 0 first, col 0 first: ``0`` empty, ``1`` a cell of a horizontal domino, ``2`` of a vertical
one), then its bombs left (``1`` or ``0``); every number followed by one space, then ``\n``:
``1 0 0 … 0 1 \n``, 171 numbers, 343 bytes. There is no greeting: the whole game a bot needs is in
the one request.

It writes its move and exits; the move is everything it wrote before it exited, read as the
arena's Java ``Scanner.nextInt`` reads three ints (``rules.read_move``), across lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from runner.games.base import InvalidMoveError
from runner.games.domineering.rules import DomineeringState, Move, move_text, read_move
from runner.games.spec import UNTIL_EXIT

# By cell code (rules.EMPTY, WEST, EAST, NORTH, SOUTH): what a bot is shown, with its space.
WIRE_CELL: Final = (b"0 ", b"1 ", b"1 ", b"2 ", b"2 ")


def cells(state: DomineeringState) -> bytes:
    """The 169 cells of a request, each a digit and a space."""
    return b"".join(map(WIRE_CELL.__getitem__, state.board))


class DomineeringStdio:
    """A fresh process per move: no greeting; the request is the whole position; the reply is
    all the process wrote by its exit."""

    reply_lines: ClassVar[int] = UNTIL_EXIT

    def greeting(self, state: DomineeringState, seat: int) -> bytes:
        return b""

    def request(self, state: DomineeringState, seat: int) -> bytes:
        return b"%d %s%d \n" % (seat + 1, cells(state), state.bombs[seat])

    def decode(self, state: DomineeringState, seat: int, lines: Sequence[str]) -> Move:
        """The move in all the bot wrote (its lines, joined again); InvalidMoveError quoting it
        (without the newline that ends its last line) when it is not one, nothing included."""
        if not lines:
            raise InvalidMoveError(
                "replied '' (nothing): expected three integers 'type row col' before it exited"
            )
        return read_move(seat, "\n".join(lines[:-1] if lines[-1] == "" else lines))

    def reply(self, move: Move) -> bytes:
        return (move_text(move) + "\n").encode("ascii")
