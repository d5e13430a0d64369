"""Domineering with a bomb (Code Warriors), as settled in domineering/rules.md.

The rules this module implements:

- A 13 × 13 board, empty at the start; cell (row, col), both 0..12, row 0 at the top.
- Two seats: seat 0 is Left (player 1), who places dominoes horizontally and moves first; seat 1
  is Right (player 2), who places them vertically. They alternate, one move per turn.
- ``1 r c`` places a domino whose top-left cell is (r, c): Left covers (r, c) and (r, c + 1),
  0 <= r <= 12, 0 <= c <= 11; Right covers (r, c) and (r + 1, c), 0 <= r <= 11, 0 <= c <= 12.
  Both cells must be empty.
- ``2 r c`` explodes the mover's bomb on the 5 × 5 square whose top-left cell is (r, c),
  0 <= r, c <= 8: its 25 cells become empty. Legal while the mover's bomb is unused (one each,
  per game) and no domino lies partly inside and partly outside the square (exactly one of its
  two cells inside). A square with no domino in it at all is a legal (if useless) target.
- A seat with no legal move on its turn (no placement and no usable bomb square) loses; the game
  has no other end and no draw.

A move's text is ``type row col`` (``move_text``); a reply, everything the bot wrote before it
exited, is read (``parse_move``) as the arena's Java Scanner reads three ints, across lines (see
``read_move``). Replies whose first three words are not integers (or that end before three), name
another type, or a cell off the board for that move raise ``InvalidMoveError``; moves the position
forbids (an occupied cell, a spent bomb, a crossing domino, not this seat's turn) raise
``IllegalMoveError``. Both quote the move.

The board remembers which cells make up each domino (a bomb's legality depends on it): every
cell holds one of ``EMPTY``, ``WEST``/``EAST`` (the halves of a horizontal domino, Left's) or
``NORTH``/``SOUTH`` (the halves of a vertical one, Right's). What a bot is shown (1 for a
horizontal cell, 2 for a vertical one) loses nothing: a bomb only ever removes whole dominoes,
so every run of horizontal cells in a row (vertical cells in a column) is whole dominoes laid
end to end, and pairs up from its start.

Length: the covered cells never exceed 168, each placement covers two and each bomb (two in a
game) uncovers at most 24, so a game has at most 84 + 24 placements and 2 bombs: 110 moves.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final, TypeAlias

from runner.games.base import (
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Termination,
    move_of_the_mover,
)
from runner.games.spec import Setup, ranked_outcome

SIZE: Final = 13
CELLS: Final = SIZE * SIZE
SQUARE: Final = 5  # a bomb's side
LAST_CORNER: Final = SIZE - SQUARE  # 8: a bomb's top-left row and column are 0..8
SEAT_NAMES: Final = ("Left", "Right")
ORIENTATION: Final = ("horizontal", "vertical")
MAX_MOVES: Final = (CELLS - 1) // 2 + 2 * ((SQUARE * SQUARE - 1) // 2) + 2  # 110

# Cell codes of the board. A domino's first half is its top-left cell.
EMPTY: Final = 0
WEST: Final = 1  # Left's domino, its left half
EAST: Final = 2  # Left's domino, its right half
NORTH: Final = 3  # Right's domino, its top half
SOUTH: Final = 4  # Right's domino, its bottom half
# (row step, col step) from a domino's first half to its second, by seat.
STEP: Final = ((0, 1), (1, 0))
FIRST_HALF: Final = (WEST, NORTH)

# A reply is read as a Java Scanner reads three ints (the event's arena was a Java program): words
# split by white space (Java's, in ASCII: FS, GS, RS and US too), each an optional sign and decimal
# digits; what follows the third is not read.
SPACES: Final = " \t\n\r\v\f\x1c\x1d\x1e\x1f"
WHITE_SPACE: Final = re.compile(f"[{SPACES}]+")
INTEGER: Final = re.compile(r"[+-]?[0-9]+")
LONGEST_NUMBER: Final = 12  # a longer word is far off the board: read as OFF_BOARD
OFF_BOARD: Final = 10**12


@dataclass(frozen=True, slots=True)
class Place:
    """``1 row col``: a domino whose top-left cell is (row, col)."""

    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Bomb:
    """``2 row col``: the bomb on the 5 × 5 square whose top-left cell is (row, col)."""

    row: int
    col: int


Move: TypeAlias = Place | Bomb


def move_text(move: Move) -> str:
    """The move as its reply line, ``type row col`` (no newline)."""
    kind = 1 if isinstance(move, Place) else 2
    return f"{kind} {move.row} {move.col}"


def _check_range(seat: int, move: Move, quoted: str) -> None:
    """InvalidMoveError unless every cell ``move`` names lies on the board."""
    if isinstance(move, Bomb):
        if not (0 <= move.row <= LAST_CORNER and 0 <= move.col <= LAST_CORNER):
            raise InvalidMoveError(
                f"{quoted}: a bomb's square has its top-left row and column in 0..{LAST_CORNER}"
            )
        return
    dr, dc = STEP[seat]
    if not (0 <= move.row < SIZE - dr and 0 <= move.col < SIZE - dc):
        name = f"{SEAT_NAMES[seat]}'s {ORIENTATION[seat]} domino"
        raise InvalidMoveError(
            f"{quoted}: {name} needs row 0..{SIZE - 1 - dr} and col 0..{SIZE - 1 - dc}"
        )


QUOTE_LIMIT: Final = 60  # a reply longer than this is quoted cut short


def quoted(reply: object) -> str:
    """``repr`` of a bot's reply for a message, cut to ``QUOTE_LIMIT`` characters."""
    text = repr(reply)
    return text if len(text) <= QUOTE_LIMIT else f"{text[: QUOTE_LIMIT - 3]}..."


def read_move(seat: int, reply: object) -> Move:
    """A reply (all a bot wrote, lines and all) as ``seat``'s move: ``type row col``.

    The text is split into words at white space (spaces, tabs, CR, LF, VT, FF, and FS, GS, RS,
    US as Java counts them; any amount, before the first word too); its first three words must be
    integers, each an optional ``+`` or ``-`` and decimal digits (leading zeros are harmless),
    and the rest is not read. Refused with InvalidMoveError quoting the reply: a word before the
    third that is not an integer, a text that ends before three, a type other than 1 or 2, and a
    cell off the board for the move (a domino reaching past the edge, a bomb square not inside
    the board).
    """
    if not isinstance(reply, str):
        raise InvalidMoveError(f"returned {quoted(reply)}, not a line of text")
    words = [w for w in WHITE_SPACE.split(reply.lstrip(SPACES), maxsplit=3) if w][:3]
    for word in words:
        if not INTEGER.fullmatch(word):
            raise InvalidMoveError(
                f"replied {quoted(reply)}: {quoted(word)} is not an integer "
                "(a move is three integers 'type row col')"
            )
    if len(words) < 3:
        raise InvalidMoveError(
            f"replied {quoted(reply)}: it ends before three integers 'type row col'"
        )
    kind, row, col = (int(w) if len(w) <= LONGEST_NUMBER else OFF_BOARD for w in words)
    move: Move
    if kind == 1:
        move = Place(row, col)
    elif kind == 2:
        move = Bomb(row, col)
    else:
        raise InvalidMoveError(
            f"replied {quoted(reply)}: the type is 1 (domino) or 2 (bomb), not {kind}"
        )
    _check_range(seat, move, f"replied {quoted(reply)}")
    return move


@dataclass(frozen=True, slots=True)
class DomineeringState:
    """A position between moves.

    ``board`` holds a cell code (``EMPTY``, ``WEST``, ``EAST``, ``NORTH``, ``SOUTH``) per cell,
    row-major. ``bombs`` is each seat's bombs left (1 or 0). ``last`` is the latest move (played
    by the seat not to move), None at the start. ``stuck`` says the seat to move has no legal
    move: the game is over and that seat lost.
    """

    board: bytes
    bombs: tuple[int, int] = (1, 1)
    moves_played: int = 0
    last: Move | None = None
    stuck: bool = False

    @property
    def mover(self) -> int:
        return self.moves_played % 2

    def at(self, row: int, col: int) -> int:
        return self.board[row * SIZE + col]


def _covers(seat: int, row: int, col: int) -> tuple[int, int]:
    """The two cell indexes of ``seat``'s domino with top-left (row, col)."""
    dr, dc = STEP[seat]
    first = row * SIZE + col
    return first, first + dr * SIZE + dc


def _partner(board: bytes | bytearray, index: int) -> int:
    """The index of the other half of the domino on cell ``index`` (which is not empty)."""
    return index + (1, -1, SIZE, -SIZE)[board[index] - 1]


def crossing_domino(board: bytes, row: int, col: int) -> tuple[int, int] | None:
    """A cell (row, col) of a domino lying partly inside the 5 × 5 square with top-left
    (row, col) and partly outside it, or None when no domino does."""
    for r in range(row, row + SQUARE):
        for c in range(col, col + SQUARE):
            index = r * SIZE + c
            if board[index] == EMPTY:
                continue
            other = _partner(board, index)
            orow, ocol = divmod(other, SIZE)
            if not (row <= orow < row + SQUARE and col <= ocol < col + SQUARE):
                return r, c
    return None


def placements(board: bytes, seat: int) -> list[Place]:
    """Every domino ``seat`` could place on ``board``, row-major by its top-left cell."""
    dr, dc = STEP[seat]
    return [
        Place(r, c)
        for r in range(SIZE - dr)
        for c in range(SIZE - dc)
        if not board[r * SIZE + c] and not board[(r + dr) * SIZE + c + dc]
    ]


def bomb_squares(board: bytes) -> list[Bomb]:
    """Every square a bomb may clear on ``board`` (no domino crosses its border), row-major."""
    return [
        Bomb(r, c)
        for r in range(LAST_CORNER + 1)
        for c in range(LAST_CORNER + 1)
        if crossing_domino(board, r, c) is None
    ]


def _has_move(board: bytes, seat: int, bombs: int) -> bool:
    dr, dc = STEP[seat]
    for r in range(SIZE - dr):
        for c in range(SIZE - dc):
            if not board[r * SIZE + c] and not board[(r + dr) * SIZE + c + dc]:
                return True
    return bombs > 0 and any(
        crossing_domino(board, r, c) is None
        for r in range(LAST_CORNER + 1)
        for c in range(LAST_CORNER + 1)
    )


def board_from_rows(rows: str) -> bytes:
    """A board from 13 lines of 13 characters: ``.`` empty, ``<`` ``>`` a horizontal domino,
    ``^`` ``v`` a vertical one (the frame's symbols). Refuses half dominoes."""
    lines = rows.split()
    if len(lines) != SIZE or any(len(line) != SIZE for line in lines):
        raise ValueError(f"a board is {SIZE} lines of {SIZE} characters")
    codes = {".": EMPTY, "<": WEST, ">": EAST, "^": NORTH, "v": SOUTH}
    board = bytes(codes[ch] for line in lines for ch in line)
    for index, code in enumerate(board):
        if code == EMPTY:
            continue
        other = index + (1, -1, SIZE, -SIZE)[code - 1]
        pair = {WEST: EAST, EAST: WEST, NORTH: SOUTH, SOUTH: NORTH}[code]
        wraps = code in (WEST, EAST) and other // SIZE != index // SIZE
        if wraps or not 0 <= other < CELLS or board[other] != pair:
            raise ValueError(f"cell {divmod(index, SIZE)} is half a domino")
    return board


def state_from_rows(
    rows: str, moves_played: int = 0, bombs: tuple[int, int] = (1, 1), last: Move | None = None
) -> DomineeringState:
    """A position for tests and tools: ``board_from_rows(rows)``, the seat to move being
    ``moves_played % 2``."""
    board = board_from_rows(rows)
    seat = moves_played % 2
    return DomineeringState(
        board, bombs, moves_played, last, not _has_move(board, seat, bombs[seat])
    )


FRAME_WIDTH: Final = 64
_SYMBOLS: Final = ".<>^v"


def _status(state: DomineeringState, outcome: Outcome | None) -> tuple[str, str]:
    turn = state.moves_played // 2 + 1
    bombs = f"bombs: Left {state.bombs[0]}, Right {state.bombs[1]}"
    mover = SEAT_NAMES[state.mover]
    if outcome is None:
        doing = f"{mover} to move ({('<->', '^v')[state.mover]})"
    else:
        doing = f"{mover} cannot move: {SEAT_NAMES[1 - state.mover]} wins"
    last = state.last
    if last is None:
        done = "start: Left (<->) moves first, Right (^v) second"
    else:
        who = SEAT_NAMES[1 - state.mover]
        if isinstance(last, Place):
            done = f"last: {who} {move_text(last)} (a domino)"
        else:
            end_row, end_col = last.row + SQUARE - 1, last.col + SQUARE - 1
            done = (
                f"last: {who} {move_text(last)} (a bomb cleared rows {last.row}-{end_row}, "
                f"cols {last.col}-{end_col}: *)"
            )
    return f"turn {turn}: {doing}   {bombs}", done


def render(state: DomineeringState, outcome: Outcome | None) -> str:
    """The text frame of ``state`` (see ``Domineering.render_text``)."""
    rows = [[" "] * (2 * SIZE - 1) for _ in range(SIZE)]
    for index, code in enumerate(state.board):
        row, col = divmod(index, SIZE)
        rows[row][2 * col] = _SYMBOLS[code]
        if code == WEST:
            rows[row][2 * col + 1] = "-"
    if isinstance(state.last, Bomb):
        for r in range(state.last.row, state.last.row + SQUARE):
            for c in range(state.last.col, state.last.col + SQUARE):
                rows[r][2 * c] = "*"
    tens = "    " + " ".join(str(c // 10) if c >= 10 else " " for c in range(SIZE))
    units = "    " + " ".join(str(c % 10) for c in range(SIZE))
    lines = [*_status(state, outcome), tens, units]
    lines += [f"{r:>2}  " + "".join(row) for r, row in enumerate(rows)]
    return "\n".join(line.ljust(FRAME_WIDTH) for line in lines)


class Domineering:
    """The rules of Domineering with a bomb; seat 0 is Left (horizontal), seat 1 Right."""

    id: ClassVar[str] = "domineering-v2"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=2,
        simultaneous=False,
        max_moves=MAX_MOVES,
        seat_names=SEAT_NAMES,
        score_label="{} dominoes",
    )

    def initial_state(
        self, rng: random.Random, seats: int = 2, setup: Setup | None = None
    ) -> DomineeringState:
        """The empty board, Left to move, one bomb each. No randomness: ``rng`` is unused."""
        if seats != 2:
            raise ValueError(f"Domineering is played by 2 seats, not {seats}")
        if setup:
            raise ValueError(f"Domineering takes no settings; got {', '.join(sorted(setup))}")
        return DomineeringState(bytes(CELLS))

    def to_move(self, state: DomineeringState) -> tuple[int, ...]:
        return () if state.stuck else (state.mover,)

    def legal_moves(self, state: DomineeringState, seat: int) -> list[Move]:
        """Every placement (row-major), then every usable bomb square (row-major); empty when
        it is not ``seat``'s turn or the game is over."""
        if state.stuck or seat != state.mover:
            return []
        moves: list[Move] = list(placements(state.board, seat))
        if state.bombs[seat]:
            moves += bomb_squares(state.board)
        return moves

    def check_move(self, state: DomineeringState, seat: int, move: Move) -> None:
        """IllegalMoveError naming the move if the position forbids it: the game is over, it is
        not ``seat``'s turn, a cell the domino needs is taken, the bomb is spent, or a domino
        crosses the square's border. A value that is no move at all (a wrong type, a cell off
        the board) raises InvalidMoveError."""
        if not isinstance(move, Place | Bomb):
            raise InvalidMoveError(f"{move!r} is not a Domineering move")
        text = f"{move_text(move)!r}"
        _check_range(seat, move, text)
        if state.stuck:
            raise IllegalMoveError(f"{text}: the game is over; no more moves")
        if seat != state.mover:
            raise IllegalMoveError(f"{text}: it is {SEAT_NAMES[state.mover]}'s move")
        if isinstance(move, Place):
            taken = [divmod(i, SIZE) for i in _covers(seat, move.row, move.col) if state.board[i]]
            if taken:
                cells = " and ".join(f"({r}, {c})" for r, c in taken)
                raise IllegalMoveError(f"{text}: {cells} already covered")
            return
        if not state.bombs[seat]:
            raise IllegalMoveError(f"{text}: {SEAT_NAMES[seat]} has already used its bomb")
        crossing = crossing_domino(state.board, move.row, move.col)
        if crossing is not None:
            r, c = crossing
            last_row, last_col = move.row + SQUARE - 1, move.col + SQUARE - 1
            raise IllegalMoveError(
                f"{text}: the domino on ({r}, {c}) lies partly outside the square "
                f"rows {move.row}..{last_row}, cols {move.col}..{last_col}"
            )

    def apply(self, state: DomineeringState, moves: Mapping[int, Move]) -> DomineeringState:
        seat = state.mover
        move = move_of_the_mover(moves, seat, SEAT_NAMES[seat])
        self.check_move(state, seat, move)
        board = bytearray(state.board)
        bombs = state.bombs
        if isinstance(move, Place):
            first, second = _covers(seat, move.row, move.col)
            board[first] = FIRST_HALF[seat]
            board[second] = FIRST_HALF[seat] + 1
        else:
            for r in range(move.row, move.row + SQUARE):
                start = r * SIZE + move.col
                board[start : start + SQUARE] = bytes(SQUARE)
            bombs = (0, bombs[1]) if seat == 0 else (bombs[0], 0)
        after = bytes(board)
        nxt = 1 - seat
        stuck = not _has_move(after, nxt, bombs[nxt])
        return DomineeringState(after, bombs, state.moves_played + 1, move, stuck)

    def stand_in(self, state: DomineeringState, seat: int) -> Move | None:
        """None: a two-seat game; a fault ends it (the referee's business)."""
        return None

    def retire(self, state: DomineeringState, seat: int) -> DomineeringState:
        """Never asked in a two-seat game: the referee ends the game on a fault."""
        raise ValueError(
            f"Domineering has two seats: {SEAT_NAMES[seat]}'s fault ends the game, no seat retires"
        )

    def outcome(self, state: DomineeringState) -> Outcome | None:
        if not state.stuck:
            return None
        loser = state.mover
        winner = 1 - loser
        detail = (
            f"{SEAT_NAMES[loser]} had no legal move at turn {self.turn(state)} "
            f"(after {state.moves_played} moves): {SEAT_NAMES[winner]} wins"
        )
        finish = [0.0, 0.0]
        finish[winner] = 1.0
        return ranked_outcome(finish, Termination.NORMAL, detail)

    def scores(self, state: DomineeringState) -> tuple[float, ...]:
        """Each seat's dominoes on the board."""
        return float(state.board.count(WEST)), float(state.board.count(NORTH))

    def turn(self, state: DomineeringState) -> int:
        return state.moves_played // 2 + 1

    def render_text(self, state: DomineeringState) -> str:
        """17 lines of ``FRAME_WIDTH`` characters: two status lines, a two-line column ruler
        (tens above units) and the board's 13 rows, padded with spaces.

        The board's row r is line 4 + r: its number, then cell (r, c) at character 4 + 2c. Left's
        domino reads ``<->`` (its halves ``<`` and ``>``, the ``-`` between them), Right's ``^``
        over ``v``; an empty cell is ``.``, and on the frame of the move that exploded a bomb the
        square it cleared is ``*``. The status lines give the turn, who moves (or the result),
        each seat's bomb, and the last move.
        """
        return render(state, self.outcome(state))

    def move_text(self, move: Move) -> str:
        return move_text(move)

    def parse_move(self, seat: int, text: str) -> Move:
        return read_move(seat, text)
