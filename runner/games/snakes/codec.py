"""How a Snakes bot is called: ``int bot(int board[16][32], char player)``.

The request is the board as 512 ASCII cells (row-major, ``board[y][x]``), each widened to one C
int, then the player byte (``'X'`` or ``'O'``). The function's int is read as a move: the ASCII
code of ``L``, ``R``, ``U`` or ``D``; any other value is an invalid move.
"""

from __future__ import annotations

from typing import ClassVar, Final

from runner.games.base import InvalidMoveError
from runner.games.snakes.rules import CELLS, MOVES, SnakesState
from runner.games.spec import CAbi, CArg

_PLAYER: Final = (b"X", b"O")
_BY_CODE: Final = {ord(m): m for m in MOVES}
_EXPECTED: Final = "not one of 'L', 'R', 'U', 'D'"


class SnakesCall:
    """The C-function codec of Snakes."""

    abi: ClassVar[CAbi] = CAbi(
        cdef="int bot(int board[16][32], char player);\nextern char *bot_name;\n",
        function="bot",
        name_symbol="bot_name",
        args=(CArg("int[16][32]", CELLS, "widen"), CArg("char", 1, "byte")),
    )

    def request(self, state: SnakesState, seat: int) -> bytes:
        return state.frame + _PLAYER[seat]

    def decode(self, state: SnakesState, seat: int, value: int) -> str:
        move = _BY_CODE.get(value)
        if move is not None:
            return move
        shown = f" ({chr(value)!r})" if 32 <= value < 127 else ""
        raise InvalidMoveError(f"returned {value}{shown}, {_EXPECTED}")

    def reply(self, move: str) -> int:
        return ord(move)
