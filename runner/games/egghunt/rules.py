"""Easter Egg Hunt rules (``egghunt-v1``), as egghunt/rules.md tells bot authors.

The board
- n players (7 to 36) on a square of side L = 3n. Tile (x, y), x the column and y the row, both
  0..L-1, (0, 0) top left; tile index ``y * L + x``. The outer ring of tiles is wall.
- Inside: 3n straight wall segments of length 2..10 (overlaps allowed), 4n eggs on distinct blank
  tiles, and the players on distinct blank tiles (no wall, no egg).
- A board is kept only if every egg and every start lie in one 8-connected region of non-wall
  tiles (so every egg is reachable from every start); otherwise the whole board is drawn again
  from where the generator stands. Only the tile a step lands on matters: a diagonal step may pass
  between two walls that touch at a corner.

Board generation, the exact sequence of draws from the ``random.Random`` given to
``initial_state`` (``below(k)`` is ``rng.randrange(k)`` with one int argument, i.e. CPython's
``Random._randbelow(k)``: ``getrandbits(k.bit_length())`` drawn again until it is < k)::

    L = 3n
    repeat:
        walls = the border ring
        3n times:                                    # a wall segment
            vertical = below(2)                      # 0: grows rightwards, 1: downwards
            length   = 2 + below(9)                  # 2..10
            x        = 1 + below(L - 2)              # its first tile, inside the border
            y        = 1 + below(L - 2)
            walls += its tiles (x + k, y) or (x, y + k), k = 0..length-1, while inside the
                     border (a segment is clipped where it meets the border)
        4n times:                                    # an egg
            repeat: x = 1 + below(L - 2); y = 1 + below(L - 2)
            until (x, y) is neither a wall nor an egg
        for seat 0, 1, ..., n-1:                     # a start
            repeat: x = 1 + below(L - 2); y = 1 + below(L - 2)
            until (x, y) is neither a wall, an egg nor a start already drawn
    until every egg and every start is in the 8-connected region of the start of seat 0

A turn: every player moves at once. A move is a direction (the keypad 1 2 3 / 8 9 4 / 7 6 5:
1 up-left, 2 up, 3 up-right, 4 right, 5 down-right, 6 down, 7 down-left, 8 left, 9 stay), an
action (``A`` attack, ``C`` counter, ``N`` nothing) and the player's new memory line. Resolution:

1. Every player goes to its target; a target that is a wall leaves it where it is (a bump), as
   does direction 9. Such a player is a *stayer*.
2. On a tile holding exactly two players they fight: A beats N, N beats C, C beats A, equal actions
   tie. The loser goes back to its start (both on a tie). On a tile holding three or more players
   every one of them goes back.
3. While some tile holds two or more players, each of them not on its own start goes back to its
   start (no fight). A stayer is always on its start, so whoever wins a fight against a stayer,
   the stayer keeps its tile and the mover goes back; players that swap tiles never meet.
4. Then every player standing on an egg: with A destroys it, with N collects it (+1), with C goes
   back to its start, and step 3 runs again.

Every start tile is egg-free at the start of every turn (a player ends a turn on an egg-free tile
or collects/destroys the egg under it), so step 4 never moves a player who stood on an egg.
The game ends when no egg is left or after 25n turns; placement by eggs collected (more is better,
ties share the better place).

The memory is part of the move, so the state keeps each seat's memory and a replay rebuilds every
message a bot was shown. A memory is at most 1024 characters of printable ASCII (space to ``~``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal, TypeAlias, cast

from runner.games.base import (
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Termination,
    check_movers,
)
from runner.games.spec import Setup, ranked_outcome

MIN_PLAYERS: Final = 7
SEAT_SYMBOLS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"  # a seat's letter in frames
MAX_PLAYERS: Final = len(SEAT_SYMBOLS)
TURNS_PER_PLAYER: Final = 25
MEMORY_LIMIT: Final = 1024
STAY: Final = 9
ACTIONS: Final = ("A", "C", "N")
# Direction d steps by DELTAS[d] = (dx, dy); the keypad 1 2 3 / 8 9 4 / 7 6 5, y growing down.
DELTAS: Final = {
    1: (-1, -1),
    2: (0, -1),
    3: (1, -1),
    4: (1, 0),
    5: (1, 1),
    6: (0, 1),
    7: (-1, 1),
    8: (-1, 0),
    9: (0, 0),
}
WALL: Final = "#"
EGG: Final = "o"
EMPTY: Final = " "

Action: TypeAlias = Literal["A", "C", "N"]
_BEATS: Final = {("A", "N"), ("N", "C"), ("C", "A")}  # (winner, loser)
_MOVE_TEXT: Final = re.compile(r"([1-9]) ([ACN])(?: (.*))?", re.DOTALL)
_PRINTABLE: Final = re.compile(r"[ -~]*")


def memory_problem(memory: str) -> str | None:
    """Why ``memory`` cannot be a memory line (too long, a character outside printable ASCII),
    or None when it can."""
    if len(memory) > MEMORY_LIMIT:
        return f"a memory line is at most {MEMORY_LIMIT} characters, not {len(memory)}"
    if not _PRINTABLE.fullmatch(memory):
        bad = next(c for c in memory if not " " <= c <= "~")
        return f"a memory line holds printable ASCII only, not {bad!r}"
    return None


@dataclass(frozen=True, slots=True)
class Move:
    """A direction (1..9 on the keypad, 9 stays), an action and the seat's memory from now on."""

    direction: int
    action: Action
    memory: str = ""

    def __post_init__(self) -> None:
        if self.direction not in DELTAS:
            raise InvalidMoveError(f"{self!r}: a direction is 1 to 9")
        if self.action not in ACTIONS:
            raise InvalidMoveError(f"{self!r}: an action is A, C or N")
        if problem := memory_problem(self.memory):
            raise InvalidMoveError(f"{self!r}: {problem}")


@dataclass(frozen=True, slots=True)
class Fight:
    """Two players landed on ``tile``; ``winner`` is None for a tie."""

    tile: int
    seats: tuple[int, int]  # ascending
    actions: tuple[Action, Action]  # in the order of ``seats``
    winner: int | None


@dataclass(frozen=True, slots=True)
class TurnReport:
    """What happened in the turn just played (all empty before the first), for frames and the
    site: fights, crowds (tile, seats) of three or more, seats sent back to their start after
    trying to move (fight, crowd, cascade or counter), seats that bumped into a wall, and the
    egg events as (seat, tile)."""

    fights: tuple[Fight, ...] = ()
    crowds: tuple[tuple[int, tuple[int, ...]], ...] = ()
    sent_back: tuple[int, ...] = ()
    bumped: tuple[int, ...] = ()
    collected: tuple[tuple[int, int], ...] = ()
    destroyed: tuple[tuple[int, int], ...] = ()
    countered: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class EggHuntState:
    """A position between turns. ``walls`` has one byte per tile (1: wall), ``positions`` and
    ``memories`` one entry per seat; ``eggs_held`` are the scores."""

    size: int
    walls: bytes
    eggs: frozenset[int]
    positions: tuple[int, ...]
    eggs_held: tuple[int, ...]
    memories: tuple[str, ...]
    max_turns: int
    turns_played: int = 0
    last: TurnReport = field(default_factory=TurnReport)

    @property
    def players(self) -> int:
        return len(self.positions)

    @property
    def over(self) -> bool:
        return not self.eggs or self.turns_played >= self.max_turns

    def xy(self, tile: int) -> tuple[int, int]:
        return tile % self.size, tile // self.size

    def target(self, seat: int, direction: int) -> int:
        """The tile ``seat`` ends step 1 on: one step in ``direction``, unless that is a wall."""
        dx, dy = DELTAS[direction]
        tile = self.positions[seat] + dy * self.size + dx
        return self.positions[seat] if self.walls[tile] else tile


def _region(size: int, walls: bytes | bytearray, start: int) -> set[int]:
    """The tiles 8-connected to ``start`` through non-wall tiles (the border ring is wall, so no
    step leaves the board)."""
    steps = [dy * size + dx for dx, dy in DELTAS.values() if (dx, dy) != (0, 0)]
    seen = {start}
    todo = [start]
    while todo:
        tile = todo.pop()
        for step in steps:
            nxt = tile + step
            if not walls[nxt] and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _border(size: int) -> bytearray:
    """A ``size``×``size`` board of tiles whose outer ring is wall and the rest blank."""
    walls = bytearray(size * size)
    for i in range(size):
        for tile in (i, (size - 1) * size + i, i * size, i * size + size - 1):
            walls[tile] = 1
    return walls


def _draw_segment(rng: random.Random, size: int, walls: bytearray) -> None:
    """Draw one wall segment (direction, length, first tile) and add its tiles inside the border."""
    vertical = rng.randrange(2)
    length = 2 + rng.randrange(9)
    x = 1 + rng.randrange(size - 2)
    y = 1 + rng.randrange(size - 2)
    for k in range(length):
        tx, ty = (x, y + k) if vertical else (x + k, y)
        if tx >= size - 1 or ty >= size - 1:
            break
        walls[ty * size + tx] = 1


def _draw_blank(rng: random.Random, size: int, walls: bytearray, taken: set[int]) -> int:
    """Draw inside tiles until one is neither a wall nor in ``taken``; that tile."""
    while True:
        x = 1 + rng.randrange(size - 2)
        y = 1 + rng.randrange(size - 2)
        tile = y * size + x
        if not walls[tile] and tile not in taken:
            return tile


def _draw_board(rng: random.Random, n: int) -> tuple[bytearray, list[int], list[int]]:
    """One attempt, in the order the module docstring gives: walls, eggs, starts."""
    size = 3 * n
    walls = _border(size)
    for _ in range(3 * n):
        _draw_segment(rng, size, walls)
    eggs: list[int] = []
    for _ in range(4 * n):
        eggs.append(_draw_blank(rng, size, walls, set(eggs)))
    starts: list[int] = []
    for _ in range(n):
        starts.append(_draw_blank(rng, size, walls, set(eggs) | set(starts)))
    return walls, eggs, starts


def generate_board(
    rng: random.Random, n: int
) -> tuple[int, bytes, frozenset[int], tuple[int, ...]]:
    """(side, walls, eggs, starts) for ``n`` players, drawn until every egg and start share one
    region. With n >= 7 the inside always has more blank tiles than eggs and starts need (at most
    30n wall tiles, 5n eggs and starts, (3n - 2)^2 inside tiles), so every draw loop ends."""
    while True:
        walls, eggs, starts = _draw_board(rng, n)
        region = _region(3 * n, walls, starts[0])
        if region.issuperset(eggs) and region.issuperset(starts):
            return 3 * n, bytes(walls), frozenset(eggs), tuple(starts)


def _fight(a: Action, b: Action) -> int | None:
    """0 if ``a`` beats ``b``, 1 if ``b`` beats ``a``, None for a tie."""
    if (a, b) in _BEATS:
        return 0
    if (b, a) in _BEATS:
        return 1
    return None


def _settle(positions: list[int], starts: Sequence[int], sent: set[int]) -> None:
    """Rule 3: while a tile holds two or more players, those not on their own start go back.

    Each round sends at least one player home (a crowded tile holds at most one player whose start
    it is) and a player at home never moves again, so this ends within n rounds."""
    while True:
        crowd: dict[int, list[int]] = {}
        for seat, tile in enumerate(positions):
            crowd.setdefault(tile, []).append(seat)
        back = [
            seat
            for seats in crowd.values()
            if len(seats) > 1
            for seat in seats
            if positions[seat] != starts[seat]
        ]
        if not back:
            return
        for seat in back:
            positions[seat] = starts[seat]
            sent.add(seat)


def resolve(state: EggHuntState, moves: Mapping[int, Move]) -> EggHuntState:
    """The state after one turn of ``moves`` (one per seat), by rules 1 to 4; no checks."""
    starts = state.positions
    actions = [moves[seat].action for seat in range(state.players)]
    targets = [state.target(seat, moves[seat].direction) for seat in range(state.players)]
    bumped = tuple(
        seat
        for seat in range(state.players)
        if moves[seat].direction != STAY and targets[seat] == starts[seat]
    )
    positions = list(targets)
    sent: set[int] = set()
    landed: dict[int, list[int]] = {}
    for seat, tile in enumerate(targets):
        landed.setdefault(tile, []).append(seat)
    fights: list[Fight] = []
    crowds: list[tuple[int, tuple[int, ...]]] = []
    for tile, seats in sorted(landed.items()):
        if len(seats) == 2:
            a, b = seats
            won = _fight(actions[a], actions[b])
            winner = None if won is None else seats[won]
            fights.append(Fight(tile, (a, b), (actions[a], actions[b]), winner))
            losers = [s for s in seats if s != winner]
        elif len(seats) > 2:
            crowds.append((tile, tuple(seats)))
            losers = seats
        else:
            continue
        for seat in losers:
            positions[seat] = starts[seat]
            sent.add(seat)
    _settle(positions, starts, sent)
    eggs = set(state.eggs)
    held = list(state.eggs_held)
    collected, destroyed, countered = [], [], []
    for seat, tile in enumerate(positions):
        if tile not in eggs:
            continue
        if actions[seat] == "A":
            destroyed.append((seat, tile))
        elif actions[seat] == "N":
            collected.append((seat, tile))
            held[seat] += 1
        else:
            countered.append((seat, tile))
            positions[seat] = starts[seat]
            sent.add(seat)
    eggs.difference_update(tile for _, tile in collected + destroyed)
    _settle(positions, starts, sent)
    report = TurnReport(
        fights=tuple(fights),
        crowds=tuple(crowds),
        # a stayer that lost a fight is "sent back" onto the tile it never left: not a return
        sent_back=tuple(sorted(s for s in sent if targets[s] != starts[s])),
        bumped=bumped,
        collected=tuple(collected),
        destroyed=tuple(destroyed),
        countered=tuple(countered),
    )
    return EggHuntState(
        size=state.size,
        walls=state.walls,
        eggs=frozenset(eggs),
        positions=tuple(positions),
        eggs_held=tuple(held),
        memories=tuple(moves[seat].memory for seat in range(state.players)),
        max_turns=state.max_turns,
        turns_played=state.turns_played + 1,
        last=report,
    )


def _read_picture(lines: Sequence[str]) -> tuple[bytearray, set[int], dict[int, int]]:
    """The walls, the egg tiles and each drawn seat's tile of a square picture, read row by row;
    ValueError at the first tile that is on the border but not a wall, or is no known tile."""
    size = len(lines)
    walls = bytearray(size * size)
    eggs: set[int] = set()
    found: dict[int, int] = {}
    for y, line in enumerate(lines):
        for x, char in enumerate(line):
            tile = y * size + x
            border = x in (0, size - 1) or y in (0, size - 1)
            if border and char != WALL:
                raise ValueError(f"the border tile ({x}, {y}) is {char!r}, not a wall")
            if char == WALL:
                walls[tile] = 1
            elif char == EGG:
                eggs.add(tile)
            elif char in SEAT_SYMBOLS:
                found[SEAT_SYMBOLS.index(char)] = tile
            elif char != EMPTY:
                raise ValueError(f"unknown tile {char!r} at ({x}, {y})")
    return walls, eggs, found


def state_from_picture(
    rows: Iterable[str],
    memories: Sequence[str] = (),
    eggs_held: Sequence[int] = (),
    max_turns: int | None = None,
) -> EggHuntState:
    """A position drawn as text, for tests and tools: ``#`` wall, ``o`` egg, space empty, a seat's
    letter (``A`` seat 0, ``B`` seat 1, ...) that player on a blank tile; nothing else.

    The picture is a square whose border is all wall, and the seats drawn are 0..k-1 with none
    missing. ``max_turns`` defaults to 25 per player."""
    lines = list(rows)
    size = len(lines)
    if size < 3 or any(len(line) != size for line in lines):
        raise ValueError(f"a picture is a square of at least 3 rows, not {[len(r) for r in lines]}")
    walls, eggs, found = _read_picture(lines)
    players = len(found)
    if sorted(found) != list(range(players)):
        raise ValueError(f"seats {sorted(found)} drawn: draw seats A, B, ... with none missing")
    for given, what in ((memories, "memories"), (eggs_held, "egg counts")):
        if given and len(given) != players:
            raise ValueError(f"{len(given)} {what} for {players} players")
    return EggHuntState(
        size=size,
        walls=bytes(walls),
        eggs=frozenset(eggs),
        positions=tuple(found[seat] for seat in range(players)),
        eggs_held=tuple(eggs_held) or (0,) * players,
        memories=tuple(memories) or ("",) * players,
        max_turns=TURNS_PER_PLAYER * players if max_turns is None else max_turns,
    )


def picture(state: EggHuntState) -> list[str]:
    """The board as rows of text: ``#`` wall, ``o`` egg, a seat's letter, space empty."""
    tiles = [WALL if wall else EMPTY for wall in state.walls]
    for tile in state.eggs:
        tiles[tile] = EGG
    for seat, tile in enumerate(state.positions):
        tiles[tile] = SEAT_SYMBOLS[seat]
    return ["".join(tiles[y * state.size : (y + 1) * state.size]) for y in range(state.size)]


class EggHunt:
    """The rules of the Easter Egg Hunt for 7 to 36 players; seat k is drawn as SEAT_SYMBOLS[k]."""

    id: ClassVar[str] = "egghunt-v1"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        simultaneous=True,
        max_moves=TURNS_PER_PLAYER * MAX_PLAYERS,
        seat_names=tuple(SEAT_SYMBOLS),
        score_label="{} eggs",
        # "d A " and a memory line of printable ASCII, where `\` and `"` take two bytes in JSON
        max_move_bytes=2 + 4 + 2 * MEMORY_LIMIT,
    )

    def initial_state(self, rng: random.Random, seats: int, setup: Setup) -> EggHuntState:
        """A generated board for ``seats`` players (7 to 36); ``setup`` takes no keys."""
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise ValueError(f"the Easter Egg Hunt takes {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if setup:
            raise ValueError(f"the Easter Egg Hunt has no settings, not {sorted(setup)}")
        size, walls, eggs, starts = generate_board(rng, seats)
        return EggHuntState(
            size=size,
            walls=walls,
            eggs=eggs,
            positions=starts,
            eggs_held=(0,) * seats,
            memories=("",) * seats,
            max_turns=TURNS_PER_PLAYER * seats,
        )

    def to_move(self, state: EggHuntState) -> tuple[int, ...]:
        return () if state.over else tuple(range(state.players))

    def legal_moves(self, state: EggHuntState, seat: int) -> Sequence[Move]:
        """The 27 direction-action pairs keeping the seat's memory (any memory is legal too;
        a step into a wall is legal and stays)."""
        if state.over or not 0 <= seat < state.players:
            return ()
        memory = state.memories[seat]
        return tuple(Move(d, a, memory) for d in sorted(DELTAS) for a in ACTIONS)

    def check_move(self, state: EggHuntState, seat: int, move: Move) -> None:
        """IllegalMoveError when the game is over or ``seat`` is not a seat of this game; every
        well-formed move is legal otherwise. A value that is no move raises InvalidMoveError."""
        if not isinstance(move, Move):
            raise InvalidMoveError(f"{move!r} is not an Easter Egg Hunt move")
        text = self.move_text(move)
        if state.over:
            raise IllegalMoveError(f"{text!r}: the game is over; no more moves")
        if not 0 <= seat < state.players:
            raise IllegalMoveError(
                f"{text!r}: there is no seat {seat} in a game of {state.players}"
            )

    def apply(self, state: EggHuntState, moves: Mapping[int, Move]) -> EggHuntState:
        check_movers(moves, self.to_move(state))
        for seat, move in moves.items():
            self.check_move(state, seat, move)
        return resolve(state, moves)

    def stand_in(self, state: EggHuntState, seat: int) -> Move:
        """A faulting bot (crash, timeout) stays, does nothing and keeps its memory."""
        return Move(STAY, "N", state.memories[seat])

    def retire(self, state: EggHuntState, seat: int) -> EggHuntState:
        """Never needed: ``stand_in`` always gives a move, so no seat is ever out. Raises."""
        raise ValueError(
            f"no seat leaves an Easter Egg Hunt (seat {seat}): a faulting bot stands still"
        )

    def outcome(self, state: EggHuntState) -> Outcome | None:
        if not state.over:
            return None
        why = "all eggs gone" if not state.eggs else f"{_eggs(len(state.eggs))} left"
        tally = ", ".join(f"{SEAT_SYMBOLS[s]} {e}" for s, e in enumerate(state.eggs_held))
        detail = f"after {state.turns_played} turns ({why}): {tally}"
        return ranked_outcome(state.eggs_held, Termination.NORMAL, detail)

    def scores(self, state: EggHuntState) -> tuple[float, ...]:
        """Eggs collected per seat."""
        return state.eggs_held

    def turn(self, state: EggHuntState) -> int:
        return state.turns_played + 1

    def render_text(self, state: EggHuntState) -> str:
        """A status line, the board (``picture``), a line of the last turn's fights and returns,
        and a line of its egg events. Tiles are named x,y from the top-left corner 0,0."""
        tally = "  ".join(f"{SEAT_SYMBOLS[s]} {e}" for s, e in enumerate(state.eggs_held))
        status = (
            f"turn {state.turns_played}/{state.max_turns}, {_eggs(len(state.eggs))} left: {tally}"
        )
        return "\n".join([status, *picture(state), *event_lines(state)])

    def move_text(self, move: Move) -> str:
        """``direction action memory``: ``4 N`` with an empty memory, ``4 N 3,5 left`` else."""
        head = f"{move.direction} {move.action}"
        return f"{head} {move.memory}" if move.memory else head

    def parse_move(self, seat: int, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError(f"{text!r} is not a line of text")
        match = _MOVE_TEXT.fullmatch(text)
        if match is None:
            raise InvalidMoveError(f"{text!r} is not 'direction action [memory]' (e.g. '4 N')")
        direction, action, memory = match.groups()
        if problem := memory_problem(memory or ""):
            raise InvalidMoveError(f"{text!r}: {problem}")
        return Move(int(direction), cast(Action, action), memory or "")


def _eggs(count: int) -> str:
    return "1 egg" if count == 1 else f"{count} eggs"


def _at(state: EggHuntState, tile: int) -> str:
    x, y = state.xy(tile)
    return f"{x},{y}"


def event_lines(state: EggHuntState) -> list[str]:
    """Two lines: the last turn's fights, crowds and returns; its egg events."""
    report, name = state.last, SEAT_SYMBOLS
    fights = []
    for f in report.fights:
        (a, b), (x, y) = f.seats, f.actions
        if f.winner is None:
            fights.append(f"{name[a]}({x}) tied {name[b]}({y}) at {_at(state, f.tile)}")
        else:
            loser = b if f.winner == a else a
            won, lost = (x, y) if f.winner == a else (y, x)
            fights.append(
                f"{name[f.winner]}({won}) beat {name[loser]}({lost}) at {_at(state, f.tile)}"
            )
    for tile, seats in report.crowds:
        fights.append(f"{''.join(name[s] for s in seats)} crowded {_at(state, tile)}")
    if report.sent_back:
        fights.append("back: " + "".join(name[s] for s in report.sent_back))
    eggs = [f"{name[s]} took {_at(state, t)}" for s, t in report.collected]
    eggs += [f"{name[s]} smashed {_at(state, t)}" for s, t in report.destroyed]
    eggs += [f"{name[s]} countered at {_at(state, t)}" for s, t in report.countered]
    return ["fights: " + ("; ".join(fights) or "none"), "eggs: " + ("; ".join(eggs) or "none")]


__all__ = [
    "ACTIONS",
    "DELTAS",
    "MAX_PLAYERS",
    "MEMORY_LIMIT",
    "MIN_PLAYERS",
    "SEAT_SYMBOLS",
    "STAY",
    "Action",
    "EggHunt",
    "EggHuntState",
    "Fight",
    "Move",
    "TurnReport",
    "event_lines",
    "generate_board",
    "memory_problem",
    "picture",
    "resolve",
    "state_from_picture",
]
