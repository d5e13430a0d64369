"""The stdin/stdout protocol of Domineering, as the event's arena ran it: a fresh process per move.

Before each of its moves a bot is started afresh and reads, on stdin (ASCII, each line ending in
``\\n``, nothing before or after):

- one line: its orientation, ``1`` (Left: horizontal dominoes) or ``2`` (Right: vertical);
- 13 lines of 13 digits, row 0 first: ``0`` an empty cell, ``1`` a cell of a horizontal domino,
  ``2`` a cell of a vertical one;
- one line: its bombs left, ``1`` or ``0``.

It writes one line, ``type row col`` (``rules.read_move`` says how strictly it is read), and
exits. There is no greeting: the whole game a bot needs is in the one request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from runner.games.base import InvalidMoveError
from runner.games.domineering.rules import (
    SIZE,
    WIRE_DIGIT,
    DomineeringState,
    Move,
    move_text,
    read_move,
)


def board_lines(state: DomineeringState) -> bytes:
    """The 13 board lines of a request, each with its newline."""
    digits = state.board.translate(WIRE_DIGIT.ljust(256, b"?"))
    return b"".join(digits[r * SIZE : (r + 1) * SIZE] + b"\n" for r in range(SIZE))


class DomineeringStdio:
    """A fresh process per move: no greeting; the request is the whole position."""

    reply_lines: ClassVar[int] = 1

    def greeting(self, state: DomineeringState, seat: int) -> bytes:
        return b""

    def request(self, state: DomineeringState, seat: int) -> bytes:
        return b"%d\n%s%d\n" % (seat + 1, board_lines(state), state.bombs[seat])

    def decode(self, state: DomineeringState, seat: int, lines: Sequence[str]) -> Move:
        """The move on the reply's first line; InvalidMoveError quoting it when it is not one
        (an empty reply included)."""
        if not lines:
            raise InvalidMoveError("replied '' (nothing): expected one line 'type row col'")
        return read_move(seat, lines[0])

    def reply(self, move: Move) -> bytes:
        return (move_text(move) + "\n").encode("ascii")
