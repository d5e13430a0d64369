"""Cluster, as cluster/rules.md states it for bot authors: Connect Four on a rotating hexagon.

The rules this module implements:

- A hexagon of side 12 (397 cells) in axial coordinates (q, r), max(|q|, |r|, |q + r|) <= 11.
  Directions 0 S (0, +1), 1 SW (-1, +1), 2 NW (-1, 0), 3 N (0, -1), 4 NE (+1, -1), 5 SE (+1, 0).
  Cells are numbered breadth-first from the centre (cell 0), each cell's neighbours taken in
  direction order.
- Gravity is a direction, 0 (S) at the start. There are 23 columns 0..22 per gravity: under S,
  column i is q = i - 11, its top cell r = max(-11, -11 - q); under gravity g that column is
  rotated g times by (q, r) -> (-r, q + r).
- Colours 0 BLUE0, 1 RED0, 2 BLUE1, 3 RED1; colour c is seat c % 2's. Blue (seat 0) moves first.
  Each bag starts with 96 pellets of each of its two colours.
- At the start of its turn a player with an empty bag loses; otherwise it draws min(2, bag)
  pellets, each of one of its two colours picked by ``rng.randrange(2)`` (picked again while that
  colour is exhausted). Every draw of the game comes, in order, from the one ``random.Random``
  given to ``initial_state``; its state travels in the game state, so play stays pure. A hand is
  held (and shown) sorted by colour, lowest first, as the original referee keeps it.
- ``PLACE column colour``: the colour must be in hand and the column's top cell empty; the pellet
  falls along gravity to rest, the other hand pellet goes back to the bag.
  ``ROTATE n`` (1..5): gravity becomes (g + n) mod 6, every pellet falls to rest (full
  compaction) and the hand is discarded.
- After every move a seat's score is its longest straight line of one of its colours along the S,
  SW and NW axes. While both are below 4 play goes on; else the higher score wins, and equal
  scores go to the seat with more pellets on the board of its winning colour (equal: a draw).
  A seat's winning colour is that of the first line of its best length found by the original
  referee's scan: pellets newest first, from each the run of its colour going S, then SW, then
  NW (``winning_colours``).

Every move takes at least one pellet out of the mover's 192, so a game has at most 384 moves, and
the board (397 cells) never fills: some column is always open. Pellets in a line along gravity
always lie packed at its bottom, so a column is full exactly when its top cell is occupied.

``check_move`` (and ``apply``) refuse moves the position forbids with ``IllegalMoveError``.
Pellets are numbered 0, 1, 2, ... in the order they were placed. What a bot reads and how its
reply is read is runner/games/cluster/codec.py.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Final, TypeAlias

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

RADIUS: Final = 11  # a side of 12 cells
DIRECTIONS: Final = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))
DIRECTION_NAMES: Final = ("S", "SW", "NW", "N", "NE", "SE")
COLUMNS: Final = 2 * RADIUS + 1
COLOUR_NAMES: Final = ("BLUE0", "RED0", "BLUE1", "RED1")
SEAT_NAMES: Final = ("Blue", "Red")
PER_COLOUR: Final = 96
WIN_LINE: Final = 4
MAX_LINE: Final = COLUMNS  # the longest line the board holds, so the highest score
MAX_MOVES: Final = 2 * 2 * PER_COLOUR
SYMBOLS: Final = ".BRbr"  # empty, then colours 0..3
# How the original referee reads a number (C's scanf "%d" on 64-bit Linux): white space as C's
# isspace() knows it, an optional sign, then every decimal digit that follows.


def _four(values: Sequence[int]) -> tuple[int, int, int, int]:
    return values[0], values[1], values[2], values[3]


def _on_board(q: int, r: int) -> bool:
    return max(abs(q), abs(r), abs(q + r)) <= RADIUS


def _number_cells() -> tuple[tuple[int, int], ...]:
    coords = [(0, 0)]
    seen = {(0, 0)}
    for q, r in coords:  # grows while it walks: a breadth-first queue
        for dq, dr in DIRECTIONS:
            n = (q + dq, r + dr)
            if _on_board(*n) and n not in seen:
                seen.add(n)
                coords.append(n)
    return tuple(coords)


def _rotated(q: int, r: int, times: int) -> tuple[int, int]:
    for _ in range(times % 6):
        q, r = -r, q + r
    return q, r


COORDS: Final = _number_cells()  # (q, r) of each cell index
CELLS: Final = len(COORDS)
_INDEX: Final = {c: i for i, c in enumerate(COORDS)}
NEIGHBOURS: Final = tuple(
    tuple(_INDEX.get((q + dq, r + dr), -1) for dq, dr in DIRECTIONS) for q, r in COORDS
)
_TOPS_SOUTH: Final = tuple((i - RADIUS, max(-RADIUS, -i)) for i in range(COLUMNS))
# TOPS[g][i]: the top cell of column i under gravity g.
TOPS: Final = tuple(tuple(_INDEX[_rotated(q, r, g)] for q, r in _TOPS_SOUTH) for g in range(6))


def _line(cell: int, direction: int) -> tuple[int, ...]:
    cells = [cell]
    while NEIGHBOURS[cells[-1]][direction] >= 0:
        cells.append(NEIGHBOURS[cells[-1]][direction])
    return tuple(cells)


# LINES[g][i]: the cells of column i under gravity g, top first.
LINES: Final = tuple(tuple(_line(top, g) for top in TOPS[g]) for g in range(6))


def cell_at(q: int, r: int) -> int:
    """The index of the cell at axial (q, r); KeyError off the board."""
    return _INDEX[(q, r)]


@dataclass(frozen=True, slots=True)
class Place:
    column: int
    colour: int


@dataclass(frozen=True, slots=True)
class Rotate:
    turns: int


Move: TypeAlias = Place | Rotate


@dataclass(frozen=True, slots=True)
class ClusterState:
    """A position between moves.

    ``board`` holds colour + 1 per cell (0: empty). Pellets are numbered in the order they were
    placed: ``cells``, ``colours`` and ``placed_at`` (the number of the move that placed it, -1
    for a position built by hand) are indexed by that number. ``best`` is the longest line of each
    colour. ``hand`` is the hand of the seat to move, sorted by colour (empty once the game is
    over).
    """

    board: bytes
    gravity: int
    cells: tuple[int, ...]
    colours: tuple[int, ...]
    placed_at: tuple[int, ...]
    best: tuple[int, int, int, int]
    bags: tuple[int, int, int, int]
    hand: tuple[int, ...]
    rng_state: tuple[object, ...]
    moves_played: int = 0
    last_rotation: int = -1  # the number of the latest ROTATE move, -1 if none
    ran_out: int | None = None  # the seat that began a turn with an empty bag

    @property
    def scores(self) -> tuple[int, int]:
        return max(self.best[0], self.best[2]), max(self.best[1], self.best[3])

    @property
    def over(self) -> bool:
        return self.ran_out is not None or max(self.scores) >= WIN_LINE

    @property
    def mover(self) -> int:
        return self.moves_played % 2


def valid_columns(state: ClusterState) -> tuple[int, ...]:
    """The columns open under the current gravity (their top cell is empty), ascending."""
    return tuple(i for i, top in enumerate(TOPS[state.gravity]) if not state.board[top])


def _run_through(board: bytes | bytearray, cell: int, axis: int) -> int:
    colour = board[cell]
    run = 1
    for direction in (axis, axis + 3):
        n = NEIGHBOURS[cell][direction]
        while n >= 0 and board[n] == colour:
            run += 1
            n = NEIGHBOURS[n][direction]
    return run


def _longest_lines(board: bytes | bytearray) -> tuple[int, int, int, int]:
    best = [0, 0, 0, 0, 0]
    for axis in range(3):
        for line in LINES[axis]:
            previous, run = 0, 0
            for cell in line:
                colour = board[cell]
                run = run + 1 if colour == previous else 1
                previous = colour
                if run > best[colour]:
                    best[colour] = run
    return _four(best[1:])


def _draw(
    bags: list[int], seat: int, rng_state: tuple[object, ...]
) -> tuple[tuple[int, ...], tuple[object, ...]]:
    """The hand ``seat`` draws from ``bags`` (updated in place), and the generator's next state."""
    rng = random.Random()
    rng.setstate(rng_state)
    hand = []
    for _ in range(min(2, bags[seat] + bags[seat + 2])):
        colour = seat + 2 * rng.randrange(2)
        while not bags[colour]:
            colour = seat + 2 * rng.randrange(2)
        bags[colour] -= 1
        hand.append(colour)
    return tuple(sorted(hand)), rng.getstate()


def state_from_pellets(
    pellets: Sequence[tuple[int, int]],
    gravity: int = 0,
    hand: tuple[int, ...] = (0, 2),
    moves_played: int = 0,
    seed: int = 0,
) -> ClusterState:
    """A position from (cell, colour) pairs in pellet order, for tests and tools.

    Refuses pellets that are not at rest under ``gravity``. Bags hold 96 of each colour less the
    pellets on the board and the hand; the seat to move is ``moves_played % 2``.
    """
    board = bytearray(CELLS)
    for cell, colour in pellets:
        if board[cell]:
            raise ValueError(f"cell {cell} holds two pellets")
        board[cell] = colour + 1
    for cell, _ in pellets:
        below = NEIGHBOURS[cell][gravity]
        if below >= 0 and not board[below]:
            raise ValueError(f"the pellet on cell {cell} is not at rest under gravity {gravity}")
    if any(colour % 2 != moves_played % 2 for colour in hand):
        raise ValueError(f"the hand {hand} holds colours of the seat not to move")
    hand = tuple(sorted(hand))
    bags = [PER_COLOUR] * 4
    for colour in [c for _, c in pellets] + list(hand):
        bags[colour] -= 1
    return ClusterState(
        board=bytes(board),
        gravity=gravity,
        cells=tuple(cell for cell, _ in pellets),
        colours=tuple(colour for _, colour in pellets),
        placed_at=(-1,) * len(pellets),
        best=_longest_lines(board),
        bags=_four(bags),
        hand=hand,
        rng_state=random.Random(seed).getstate(),
        moves_played=moves_played,
    )


def _points(winner: int | None) -> tuple[float, float]:
    return (0.5, 0.5) if winner is None else (1.0, 0.0) if winner == 0 else (0.0, 1.0)


class Cluster:
    """The rules of Cluster; seat 0 is Blue (colours 0 and 2), seat 1 is Red (colours 1 and 3)."""

    id: ClassVar[str] = "cluster-v2"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=2,
        simultaneous=False,
        max_moves=MAX_MOVES,
        seat_names=SEAT_NAMES,
    )

    def initial_state(
        self, rng: random.Random, seats: int = 2, setup: Setup = EMPTY
    ) -> ClusterState:
        if seats != 2 or setup:
            raise ValueError("Cluster is a game for two seats, with no setup")
        bags = [PER_COLOUR] * 4
        hand, rng_state = _draw(bags, 0, rng.getstate())
        return ClusterState(
            board=bytes(CELLS),
            gravity=0,
            cells=(),
            colours=(),
            placed_at=(),
            best=(0, 0, 0, 0),
            bags=_four(bags),
            hand=hand,
            rng_state=rng_state,
        )

    def to_move(self, state: ClusterState) -> tuple[int, ...]:
        return () if state.over else (state.mover,)

    def legal_moves(self, state: ClusterState, seat: int) -> tuple[Move, ...]:
        """Each open column with each colour in hand, and every rotation."""
        if state.over or seat != state.mover:
            return ()
        colours = sorted(set(state.hand))
        places = tuple(Place(c, k) for c in valid_columns(state) for k in colours)
        return places + tuple(Rotate(n) for n in range(1, 6))

    def stand_in(self, state: ClusterState, seat: int) -> Move | None:
        return None  # two seats: a fault ends the game

    def retire(self, state: ClusterState, seat: int) -> ClusterState:
        raise ValueError("Cluster has two seats: a fault ends the game, no seat retires")

    def parse_move(self, seat: int, text: str) -> Move:
        """A move from its text as ``move_text`` writes it (records); InvalidMoveError naming
        the text for anything else, and for values no move can have."""
        word, *numbers = text.split(" ")
        if all(n.isascii() and n.isdigit() and n == str(int(n)) for n in numbers):
            if word == "ROTATE" and len(numbers) == 1 and 1 <= int(numbers[0]) <= 5:
                return Rotate(int(numbers[0]))
            if word == "PLACE" and len(numbers) == 2:
                column, colour = int(numbers[0]), int(numbers[1])
                if column < COLUMNS and colour < 4:
                    return Place(column, colour)
        raise InvalidMoveError(f"{text!r} is not a Cluster move")

    def move_text(self, move: Move) -> str:
        if isinstance(move, Rotate):
            return f"ROTATE {move.turns}"
        return f"PLACE {move.column} {move.colour}"

    def check_move(self, state: ClusterState, seat: int, move: Move) -> None:
        """Refuse a move the position forbids: IllegalMoveError naming the move.

        Illegal: the game is over, it is not ``seat``'s turn, the colour is not in its hand, or the
        column's top cell is occupied. A value that is no move at all raises InvalidMoveError.
        ``apply`` runs this check first.
        """
        if not isinstance(move, Place | Rotate):
            raise InvalidMoveError(f"{move!r} is not a Cluster move")
        text = self.move_text(move)
        self.parse_move(seat, text)  # values no move can have
        if isinstance(move, Place) and move.colour % 2 != seat:
            raise IllegalMoveError(f"{text!r}: colour {move.colour} is {SEAT_NAMES[1 - seat]}'s")
        if state.over:
            raise IllegalMoveError(f"{text!r}: the game is over; no more moves")
        if seat != state.mover:
            raise IllegalMoveError(f"{text!r}: it is {SEAT_NAMES[state.mover]}'s move")
        if isinstance(move, Place):
            if move.colour not in state.hand:
                shown = " ".join(map(str, state.hand))
                raise IllegalMoveError(
                    f"{text!r}: colour {move.colour} is not in {SEAT_NAMES[seat]}'s hand ({shown})"
                )
            if state.board[TOPS[state.gravity][move.column]]:
                raise IllegalMoveError(
                    f"{text!r}: column {move.column} is full under gravity {state.gravity}"
                )

    def apply(self, state: ClusterState, moves: Mapping[int, Move]) -> ClusterState:
        seat = state.mover
        move = move_of_the_mover(moves, seat, SEAT_NAMES[seat])
        self.check_move(state, seat, move)
        t = state.moves_played
        bags = list(state.bags)
        board = bytearray(state.board)
        cells, colours, placed_at = state.cells, state.colours, state.placed_at
        gravity, last_rotation = state.gravity, state.last_rotation
        if isinstance(move, Place):
            rest = list(state.hand)
            rest.remove(move.colour)
            for colour in rest:
                bags[colour] += 1
            cell = TOPS[gravity][move.column]
            while NEIGHBOURS[cell][gravity] >= 0 and not board[NEIGHBOURS[cell][gravity]]:
                cell = NEIGHBOURS[cell][gravity]
            board[cell] = move.colour + 1
            cells, colours, placed_at = cells + (cell,), colours + (move.colour,), placed_at + (t,)
            b = list(state.best)
            b[move.colour] = max(b[move.colour], *(_run_through(board, cell, a) for a in range(3)))
            best = _four(b)
        else:
            gravity, last_rotation = (gravity + move.turns) % 6, t
            pellet_at = {cell: p for p, cell in enumerate(cells)}
            moved = list(cells)
            board = bytearray(CELLS)
            for line in LINES[gravity]:
                stack = [pellet_at[c] for c in reversed(line) if c in pellet_at]
                for p, cell in zip(stack, reversed(line), strict=False):
                    moved[p] = cell
                    board[cell] = colours[p] + 1
            cells = tuple(moved)
            best = _longest_lines(board)
        after = ClusterState(
            board=bytes(board),
            gravity=gravity,
            cells=cells,
            colours=colours,
            placed_at=placed_at,
            best=best,
            bags=_four(bags),
            hand=(),
            rng_state=state.rng_state,
            moves_played=t + 1,
            last_rotation=last_rotation,
        )
        if after.over:
            return after
        nxt = 1 - seat
        if not bags[nxt] + bags[nxt + 2]:
            return replace(after, ran_out=nxt)
        hand, rng_state = _draw(bags, nxt, state.rng_state)
        return replace(after, bags=_four(bags), hand=hand, rng_state=rng_state)

    def outcome(self, state: ClusterState) -> Outcome | None:
        if state.ran_out is not None:
            loser = state.ran_out
            detail = f"{SEAT_NAMES[loser]} ran out of pellets at turn {self.turn(state)}"
            return Outcome(_points(1 - loser), Termination.NORMAL, detail)
        blue, red = state.scores
        if max(blue, red) < WIN_LINE:
            return None
        turn = (state.moves_played - 1) // 2 + 1
        if blue != red:
            winner = 0 if blue > red else 1
            high, low = max(blue, red), min(blue, red)
            detail = (
                f"{SEAT_NAMES[winner]} made a line of {high} at turn {turn}; "
                f"{SEAT_NAMES[1 - winner]}'s longest was {low}"
            )
            return Outcome(_points(winner), Termination.NORMAL, detail)
        (blue_count, blue_colour), (red_count, red_colour) = winning_colours(state)
        ahead = None if blue_count == red_count else 0 if blue_count > red_count else 1
        detail = (
            f"both made lines of {blue} at turn {turn}; on the board Blue has {blue_count} "
            f"{COLOUR_NAMES[blue_colour]}, Red {red_count} {COLOUR_NAMES[red_colour]}: "
            + ("a draw" if ahead is None else f"{SEAT_NAMES[ahead]} wins")
        )
        return Outcome(_points(ahead), Termination.NORMAL, detail)

    def scores(self, state: ClusterState) -> tuple[int, int]:
        """Each seat's longest line of one of its colours (0 to 23)."""
        return state.scores

    def turn(self, state: ClusterState) -> int:
        return state.moves_played // 2 + 1

    def render_text(self, state: ClusterState) -> str:
        """48 lines of 67 characters: two status lines, the board, and a column ruler.

        The board is drawn turned so that gravity points down, as the original game shows it:
        column i under the current gravity is character column 3 * i, its top cell highest, and
        cells one step apart along it are two lines apart (neighbouring columns are offset by
        one line, as hexagons are). ``.`` is an empty cell, ``B`` BLUE0, ``R`` RED0, ``b`` BLUE1,
        ``r`` RED1. The ruler gives each column's number, its last digit under the column. The
        status lines give the gravity, each seat's score and bag, the turn, and who moves with
        which hand (or the result). Lines are padded with spaces to the full width.
        """
        width = 3 * (COLUMNS - 1) + 1
        blue, red = state.scores
        status = (
            f"gravity {DIRECTION_NAMES[state.gravity]:<2} ({state.gravity})   "
            f"Blue: line {blue:>2}, bag {state.bags[0] + state.bags[2]:>3}   "
            f"Red: line {red:>2}, bag {state.bags[1] + state.bags[3]:>3}"
        )
        outcome = self.outcome(state)
        if outcome is None:
            hand = " ".join(SYMBOLS[c + 1] for c in state.hand)
            doing = f"{SEAT_NAMES[state.mover]} to move, hand {hand}"
        elif outcome.points[0] == outcome.points[1]:
            doing = "game over: a draw"
        else:
            doing = f"game over: {SEAT_NAMES[outcome.points.index(1.0)]} wins"
        rows = [[" "] * width for _ in range(4 * RADIUS + 1)]
        for cell, (q, r) in enumerate(COORDS):
            q, r = _rotated(q, r, -state.gravity)
            rows[2 * r + q + 2 * RADIUS][3 * (q + RADIUS)] = SYMBOLS[state.board[cell]]
        ruler = "".join(f"{i:>3}" for i in range(COLUMNS))[2:]  # column i's last digit at 3 * i
        lines = [status, f"turn {self.turn(state):>3}: {doing}"]
        lines += ["".join(row) for row in rows]
        lines.append(ruler)
        return "\n".join(line.ljust(width) for line in lines)


def winning_colours(state: ClusterState) -> tuple[tuple[int, int], tuple[int, int]]:
    """Per seat, (pellets on the board, colour) of its winning colour.

    That is the colour of the first line of the seat's best length that the original referee's
    scan finds: it visits the pellets newest first (latest placed first) and from each counts the
    run of its colour going S, then SW, then NW; a run only counts cells from the pellet onwards,
    so a line is found at its N, NE or SE end. The colour with more pellets plays no part: when
    one seat has lines of both its colours at its best length, the scan order decides.
    """
    counts = [state.colours.count(c) for c in range(4)]
    wanted = list(state.scores)
    found: list[int | None] = [None, None]
    for p in range(len(state.cells) - 1, -1, -1):
        colour = state.colours[p]
        seat = colour % 2
        if found[seat] is not None:
            continue
        for axis in range(3):
            run, cell = 1, NEIGHBOURS[state.cells[p]][axis]
            while cell >= 0 and state.board[cell] == colour + 1:
                run, cell = run + 1, NEIGHBOURS[cell][axis]
            if run == wanted[seat]:
                found[seat] = colour
                break
    # A seat with no pellet on the board has no line; its first colour stands in (count 0).
    blue, red = (seat if colour is None else colour for seat, colour in enumerate(found))
    return (counts[blue], blue), (counts[red], red)
