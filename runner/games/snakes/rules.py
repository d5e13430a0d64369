"""Snakes (Round 1), as snakes/rules.md states them for bot authors.

The rules this module implements:

- A 32 × 16 board; cell (x, y), x = column 0..31, y = row 0..15. Cells are drawn with ``.`` empty,
  ``X``/``O`` territory, ``*`` X's head, ``@`` O's head. A head cell is also its owner's territory.
- X starts at (0, 0), O at (31, 15); each start corner is its owner's territory.
- 1024 turns; in each turn X moves, then O (2048 moves). A move is ``L`` (x−1), ``R`` (x+1),
  ``U`` (y−1) or ``D`` (y+1).
- A move off the board or onto the enemy's head is a no-op. Otherwise the head moves and the cell
  becomes the mover's territory, captured from the enemy if it was theirs.
- After every single move (no-ops included) the mover's enclosures are filled: the cells the mover
  does not own are split into 4-connected groups (the edge and the mover's territory are the only
  barriers) and every group but the largest becomes the mover's. Of groups tied for largest, the one
  holding the enemy head is kept, else the one whose first cell in row-major order comes first.
  If the enemy head is in a filled group, the enemy is suffocated: the game ends at once and the
  encloser wins. The whole filled group becomes the encloser's, the dead head's cell included (it
  counts in the encloser's cells), but that cell is still drawn with the dead head's symbol, so
  every frame shows both heads. It is the only cell ever drawn as one side's and owned by the
  other, and only in the last frame of a game ended that way.
- Otherwise, after move 2048 the side owning more cells wins; equal counts draw.

Internally each side's territory is a bitboard: bit ``y * 33 + x``. The 33rd column is padding that
is never set, so shifting by one column cannot wrap into the next row.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping
from typing import ClassVar, Final, NamedTuple

from runner.games.base import (
    EMPTY,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Setup,
    Termination,
    move_of_the_mover,
)

WIDTH: Final = 32
HEIGHT: Final = 16
_ROWS: Final = operator.itemgetter(*(slice(y * WIDTH, (y + 1) * WIDTH) for y in range(HEIGHT)))
CELLS: Final = WIDTH * HEIGHT
MAX_MOVES: Final = 2048
MOVES: Final = ("L", "R", "U", "D")
SYMBOLS: Final = b".XO*@"
SEAT_NAMES: Final = ("X", "O")
TERRITORY: Final = (ord("X"), ord("O"))
HEAD: Final = (ord("*"), ord("@"))
STARTS: Final = ((0, 0), (WIDTH - 1, HEIGHT - 1))

_STRIDE: Final = WIDTH + 1
_BOARD: Final = sum(((1 << WIDTH) - 1) << (_STRIDE * y) for y in range(HEIGHT))
_DELTAS: Final = {"L": (-1, 0), "R": (1, 0), "U": (0, -1), "D": (0, 1)}
_EXPECTED: Final = "not one of 'L', 'R', 'U', 'D'"


def _bit(x: int, y: int) -> int:
    return y * _STRIDE + x


# Frame index (y * 32 + x) of every bit position; -1 for padding.
_INDEX: Final = tuple(
    (b // _STRIDE) * WIDTH + b % _STRIDE if b % _STRIDE < WIDTH else -1
    for b in range(_STRIDE * HEIGHT)
)
# Where each move leads from each bit position; -1 when it would leave the board.
_STEP: Final = {
    move: tuple(
        _bit(b % _STRIDE + dx, b // _STRIDE + dy)
        if 0 <= b % _STRIDE + dx < WIDTH and 0 <= b // _STRIDE + dy < HEIGHT
        else -1
        for b in range(_STRIDE * HEIGHT)
    )
    for move, (dx, dy) in _DELTAS.items()
}
_NEIGHBOURS: Final = tuple(
    tuple(t for t in (_STEP[m][b] for m in MOVES) if t >= 0) for b in range(_STRIDE * HEIGHT)
)


def _locally_connected(key: int) -> bool:
    """Whether the free 4-neighbours of a cell are joined through its free 8-neighbours.

    ``key`` is the 3 × 3 window around the cell, row by row, bit ``3 * row + column``.
    """
    ring = (1, 2, 5, 8, 7, 6, 3, 0)  # N, NE, E, SE, S, SW, W, NW: each touches the next
    free = [bool(key >> r & 1) for r in ring]
    if all(free):
        return True
    start = free.index(False)
    runs_with_orthogonal = 0
    in_run = has_orthogonal = False
    for k in range(1, 9):
        i = (start + k) % 8
        if free[i]:
            in_run = True
            has_orthogonal = has_orthogonal or i % 2 == 0
        elif in_run:
            runs_with_orthogonal += has_orthogonal
            in_run = has_orthogonal = False
    return runs_with_orthogonal <= 1


_LOCAL_OK: Final = tuple(_locally_connected(key) for key in range(512))


def _grow(region: int, free: int) -> int:
    return (region | region << 1 | region >> 1 | region << _STRIDE | region >> _STRIDE) & free


def _flood(seed: int, free: int) -> int:
    """The 4-connected group of ``free`` holding the bits of ``seed``."""
    while True:
        grown = _grow(seed, free)
        if grown == seed:
            return seed
        seed = grown


def _groups_around(cell: int, free: int) -> list[int]:
    """The groups ``free`` splits into, given that it was one group before ``cell`` left it.

    Every group then touches ``cell``. Floods start from its free neighbours in lockstep, so a small
    enclosed pocket is found after a few steps even when the outside is large; the last unfinished
    flood is whatever is left.
    """
    floods = [1 << n for n in _NEIGHBOURS[cell] if free >> n & 1]
    done: list[int] = []
    while len(floods) > 1:
        grown: list[int] = []
        for flood in floods:
            bigger = _grow(flood, free)
            if bigger == flood:
                done.append(flood)
                continue
            # Floods that met are one group; keeping them disjoint means a finished flood is
            # never also counted in one still growing.
            apart = []
            for other in grown:
                if other & bigger:
                    bigger |= other
                else:
                    apart.append(other)
            apart.append(bigger)
            grown = apart
        floods = grown
    if floods:
        rest = free
        for group in done:
            rest &= ~group
        done.append(rest)
    return done


def _components(free: int) -> list[int]:
    """Every 4-connected group of ``free``, in the order of their first cells."""
    groups = []
    while free:
        group = _flood(free & -free, free)
        groups.append(group)
        free &= ~group
    return groups


def _to_fill(groups: list[int], enemy_head: int) -> int:
    """The cells of every group but the one the rules keep."""
    enemy = 1 << enemy_head

    def rank(group: int) -> tuple[int, bool, int]:
        return group.bit_count(), bool(group & enemy), -(group & -group).bit_length()

    kept = max(range(len(groups)), key=lambda i: rank(groups[i]))
    fill = 0
    for i, group in enumerate(groups):
        if i != kept:
            fill |= group
    return fill


class SnakesState(NamedTuple):
    """A position between moves.

    ``frame`` is the board as the bots see it (512 ASCII cells, row-major); ``owned`` holds each
    side's territory bitboard and ``heads`` their bit positions. A head is in its own side's
    territory, except a suffocated head: its cell went to the encloser with the rest of its group.
    (A tuple: a state is made on every move, and a frozen dataclass takes ~2.5 times as long to
    make.)
    """

    frame: bytes
    owned: tuple[int, int]
    heads: tuple[int, int]
    moves_played: int = 0
    suffocated: int | None = None  # the seat that was enclosed, once the game ended that way

    @property
    def over(self) -> bool:
        return self.suffocated is not None or self.moves_played >= MAX_MOVES


def _frame_from(owned: tuple[int, int], heads: tuple[int, int]) -> bytes:
    frame = bytearray(b"." * CELLS)
    for seat in (0, 1):
        bits = owned[seat]
        while bits:
            low = bits & -bits
            frame[_INDEX[low.bit_length() - 1]] = TERRITORY[seat]
            bits ^= low
        frame[_INDEX[heads[seat]]] = HEAD[seat]
    return bytes(frame)


def state_from_text(text: str, moves_played: int = 0) -> SnakesState:
    """A state from a text frame, for tests and tools; refuses positions play cannot reach.

    Each head is given to its own side. The last frame of a game ended by suffocation is refused:
    the dead head lies in the encloser's territory, a position play never continues from.
    """
    rows = text.split("\n")
    if len(rows) != HEIGHT or any(len(r) != WIDTH for r in rows):
        raise ValueError(f"a frame is {HEIGHT} lines of {WIDTH} characters")
    cells = "".join(rows)
    if set(cells) - set(SYMBOLS.decode()):
        raise ValueError(f"a frame holds only the characters {SYMBOLS.decode()!r}")
    owned = [0, 0]
    heads = [0, 0]
    for seat in (0, 1):
        head, territory = chr(HEAD[seat]), chr(TERRITORY[seat])
        if cells.count(head) != 1:
            raise ValueError(f"a frame holds exactly one {head!r}")
        for i, c in enumerate(cells):
            if c in (head, territory):
                owned[seat] |= 1 << _bit(i % WIDTH, i // WIDTH)
        heads[seat] = _bit(cells.index(head) % WIDTH, cells.index(head) // WIDTH)
    for seat in (0, 1):
        if len(_components(_BOARD & ~owned[seat])) > 1:
            raise ValueError(f"unreachable: the cells {SEAT_NAMES[seat]} does not own are split")
    return SnakesState(cells.encode(), (owned[0], owned[1]), (heads[0], heads[1]), moves_played)


def changed_cells(before: SnakesState, after: SnakesState) -> list[tuple[int, str]]:
    """(frame index y * 32 + x, new character) of every cell that differs, in index order."""
    candidates = (before.owned[0] ^ after.owned[0]) | (before.owned[1] ^ after.owned[1])
    for head in before.heads + after.heads:
        candidates |= 1 << head
    changes = []
    while candidates:
        low = candidates & -candidates
        i = _INDEX[low.bit_length() - 1]
        if before.frame[i] != after.frame[i]:
            changes.append((i, chr(after.frame[i])))
        candidates ^= low
    return sorted(changes)


def frame_changes(before: SnakesState, after: SnakesState) -> list[tuple[int, str, str]]:
    """(offset in ``render_text``'s frame, character before, character after) of every cell
    that differs, offsets rising. A row is ``WIDTH`` cells and its line end, so a cell's offset
    is its bit position. A move that takes no more than the cell it steps on changes two cells:
    the head's old one and its new one."""
    if after.frame is before.frame:
        return []  # a no-op keeps the frame
    seat = before.moves_played % 2
    head, target = before.heads[seat], after.heads[seat]
    if after.owned[seat] & ~before.owned[seat] & ~(1 << target) or head == target:
        return [(i + i // WIDTH, chr(before.frame[i]), c) for i, c in changed_cells(before, after)]
    was, now = before.frame, after.frame
    i, j = _INDEX[head], _INDEX[target]
    left, right = (head, chr(was[i]), chr(now[i])), (target, chr(was[j]), chr(now[j]))
    return [left, right] if head < target else [right, left]


class Snakes:
    """The rules of Snakes (Round 1); seat 0 is X, seat 1 is O."""

    id: ClassVar[str] = "snakes-v2"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=2,
        simultaneous=False,
        max_moves=MAX_MOVES,
        seat_names=SEAT_NAMES,
        score_label="{} cells",
    )

    def initial_state(
        self, rng: random.Random, seats: int = 2, setup: Setup = EMPTY
    ) -> SnakesState:
        if seats != 2 or setup:
            raise ValueError("Snakes is a game for two seats, with no setup")
        heads = (_bit(*STARTS[0]), _bit(*STARTS[1]))
        owned = (1 << heads[0], 1 << heads[1])
        return SnakesState(_frame_from(owned, heads), owned, heads)

    def to_move(self, state: SnakesState) -> tuple[int, ...]:
        return () if state.over else (state.moves_played % 2,)

    def legal_moves(self, state: SnakesState, seat: int) -> tuple[str, ...]:
        """Every direction, whenever it is the seat's move (a step off the board is a no-op)."""
        return MOVES if seat in self.to_move(state) else ()

    def check_move(self, state: SnakesState, seat: int, move: str) -> None:
        if move not in _STEP:
            raise InvalidMoveError(f"{move!r} is {_EXPECTED}")
        if seat not in self.to_move(state):
            raise IllegalMoveError(f"{move!r}: it is not {SEAT_NAMES[seat]}'s move")

    def stand_in(self, state: SnakesState, seat: int) -> str | None:
        return None  # two seats: a fault ends the game

    def retire(self, state: SnakesState, seat: int) -> SnakesState:
        raise ValueError("Snakes has two seats: a fault ends the game, no seat retires")

    def parse_move(self, seat: int, text: str) -> str:
        if text in _DELTAS:
            return text
        raise InvalidMoveError(f"{text!r} is {_EXPECTED}")

    def move_text(self, move: str) -> str:
        return move

    def apply(self, state: SnakesState, moves: Mapping[int, str]) -> SnakesState:
        if state.over:
            raise IllegalMoveError("the game is over; no more moves")
        seat = state.moves_played % 2
        move = move_of_the_mover(moves, seat, SEAT_NAMES[seat])
        if move not in _STEP:
            raise InvalidMoveError(f"{move!r} is {_EXPECTED}")
        enemy = 1 - seat
        head = state.heads[seat]
        enemy_head = state.heads[enemy]
        target = _STEP[move][head]
        if target < 0 or target == enemy_head:
            # A no-op. The rules fill enclosures "after every single move", this one too, but the
            # cells the mover does not own are unchanged and were one group (see below): no fill.
            return SnakesState(state.frame, state.owned, state.heads, state.moves_played + 1)
        frame = bytearray(state.frame)
        frame[_INDEX[head]] = TERRITORY[seat]
        frame[_INDEX[target]] = HEAD[seat]
        mine, theirs = state.owned[seat], state.owned[enemy]
        cell = 1 << target
        suffocated = None
        if not mine & cell:
            mine |= cell
            theirs &= ~cell
            # Between moves the cells a side does not own always form one group: its own fill
            # left one, and the enemy's captures only join cells to it. So this move can split
            # them only by taking `target`, and only if its free neighbours are not joined
            # around it.
            free = _BOARD & ~mine
            window = free >> (target - 34) if target >= 34 else free << (34 - target)
            key = (window & 7) | (window >> 30 & 0o70) | (window >> 60 & 0o700)
            if not _LOCAL_OK[key]:
                fill = _to_fill(_groups_around(target, free), enemy_head)
                if fill >> enemy_head & 1:
                    suffocated = enemy
                mine |= fill
                theirs &= ~fill
                mark = TERRITORY[seat]
                fill &= ~(1 << enemy_head)  # the dead head's cell is the encloser's but stays drawn
                while fill:
                    low = fill & -fill
                    frame[_INDEX[low.bit_length() - 1]] = mark
                    fill ^= low
        owned = (mine, theirs) if seat == 0 else (theirs, mine)
        heads = (target, enemy_head) if seat == 0 else (enemy_head, target)
        return SnakesState(bytes(frame), owned, heads, state.moves_played + 1, suffocated)

    def outcome(self, state: SnakesState) -> Outcome | None:
        if state.suffocated is not None:
            victim = state.suffocated
            points = (0.0, 1.0) if victim == 0 else (1.0, 0.0)
            turn = (state.moves_played - 1) // 2 + 1
            detail = f"{SEAT_NAMES[victim]} was enclosed by {SEAT_NAMES[1 - victim]} at turn {turn}"
            return Outcome(points, Termination.SUFFOCATION, detail)
        if state.moves_played < MAX_MOVES:
            return None
        x, o = self.scores(state)
        points = (1.0, 0.0) if x > o else (0.0, 1.0) if o > x else (0.5, 0.5)
        return Outcome(points, Termination.NORMAL, f"X {x} cells, O {o} cells")

    def scores(self, state: SnakesState) -> tuple[int, int]:
        return state.owned[0].bit_count(), state.owned[1].bit_count()

    def turn(self, state: SnakesState) -> int:
        return state.moves_played // 2 + 1

    def render_text(self, state: SnakesState) -> str:
        return b"\n".join(_ROWS(state.frame)).decode("ascii")
