"""Multisnake's rules (multisnake/rules.md): 2, 4 or 8 snakes moving at once on a wrapping map.

The rules this module implements:

- A W×H map (5..150 each) that wraps at every edge. Tiles: ``#`` wall, ``.`` free, ``+`` grow
  sign, ``-`` shrink sign. Snake ``k`` (seat k, letter ``A`` + k) starts with length 1 on its
  letter; the letters beyond the N players' are free tiles.
- A turn (t = 1, 2, ...): every live snake names a direction ``^ > v <`` and all move at once.
  1. A snake of length > 1 that reverses (targets the tile behind its head) dies without moving,
     even if that tile is its own tail leaving this turn.
  2. A moving snake's tail advances by ``1 - grow + shrink`` tiles, ``grow`` being 1 when the
     target holds ``+`` or t is a multiple of T, ``shrink`` 1 when it holds ``-`` (so at most one
     growth a turn, and a ``-`` cancels the turn's forced growth). The tiles its tail leaves may
     be entered this turn, by any snake.
  3. A snake whose target is a wall or a snake's tile that no moving tail leaves dies without
     moving; its tail then stays, so the check repeats until no more snakes die this way.
  4. The rest move. Snakes that entered one tile together die there (their tails did advance).
     A snake whose length falls to 0 (a length-1 snake eating ``-``) dies where its head stands.
     A sign is consumed by whoever enters it, dying or not.
- Dead snakes stay on the map (head ``@``, body as it was). Body tiles show the direction the snake
  moved when its head was on them: ``^ > v <``.
- The game ends when at most one snake is alive (the survivor wins at once: nothing left could
  change the placement) or after ``MAX_TURNS`` turns. Placement = 1 + the number of snakes that
  died strictly later; snakes alive at the end share the best place (settled by koth).
- A seat whose bot faults (``retire``) dies where it stands in the turn being played; its tail does
  not move, and its place counts that turn. That turn is still played: every other live snake's
  move is applied, so the snakes that die in it tie with the faulting one, two seats as any other
  (settled by koth). Until it is played the retired snake is still in the game (``over``).

Tiles are indices into ``MultisnakeState.view``: H lines of W characters, each ending in ``\\n`` —
exactly the bytes a bot reads each turn — so tile (x, y) is ``y * (W + 1) + x``.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Final

from runner.games.base import (
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Termination,
    check_movers,
)
from runner.games.multisnake.maps import START_LETTERS, TILES, parse_map, read_grid, seat_letter
from runner.games.spec import Setup, placement_from_order, ranked_outcome

MAX_TURNS: Final = 2000
MIN_PERIOD: Final = 1
MAX_PERIOD: Final = 25
DEAD_HEAD: Final = ord("@")
FREE: Final = frozenset(b".+-")  # what a snake may enter: every other tile is occupied
_ALIVE_AT_END: Final = MAX_TURNS + 1  # the "turn of death" of a snake alive at the end


class Direction(enum.Enum):
    """A move: the direction the head goes. Its value is its character on the wire."""

    UP = "^"
    RIGHT = ">"
    DOWN = "v"
    LEFT = "<"

    @property
    def delta(self) -> tuple[int, int]:
        return _DELTAS[self]

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE[self]


_DELTAS: Final = {
    Direction.UP: (0, -1),
    Direction.RIGHT: (1, 0),
    Direction.DOWN: (0, 1),
    Direction.LEFT: (-1, 0),
}
_OPPOSITE: Final = {
    Direction.UP: Direction.DOWN,
    Direction.RIGHT: Direction.LEFT,
    Direction.DOWN: Direction.UP,
    Direction.LEFT: Direction.RIGHT,
}
_BY_TEXT: Final = {d.value: d for d in Direction}
_EXPECTED: Final = "not one of '^', '>', 'v', '<'"


def read_direction(text: object) -> Direction:
    """A direction from a reply line: one of ``^ > v <``, with any spaces, tabs and line ending
    around it ignored. InvalidMoveError quoting the reply otherwise."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"replied {text!r}, not a line of text")
    direction = _BY_TEXT.get(text.strip(" \t\r\n"))
    if direction is None:
        raise InvalidMoveError(f"replied {text!r}, {_EXPECTED}")
    return direction


@dataclass(frozen=True, slots=True)
class Snake:
    """One seat's snake: its tiles tail first, head last; ``died`` the turn it died, if it did.

    ``length`` equals ``len(tiles)`` except for a snake shrunk to 0, which keeps its head tile.
    Snakes that died entering one tile together share that (head) tile.
    """

    tiles: tuple[int, ...]
    length: int
    died: int | None = None

    @property
    def head(self) -> int:
        return self.tiles[-1]

    @property
    def alive(self) -> bool:
        return self.died is None


@dataclass(frozen=True, slots=True)
class MultisnakeState:
    """A position between turns. ``view`` is the map as bots read it (see the module docstring);
    ``turns`` the number of turns played."""

    width: int
    height: int
    period: int
    view: bytes
    snakes: tuple[Snake, ...]
    turns: int = 0

    @property
    def alive(self) -> tuple[int, ...]:
        return tuple(seat for seat, snake in enumerate(self.snakes) if snake.alive)

    @property
    def over(self) -> bool:
        """At most one snake is in the game, or the turns are all played. A snake retired in
        the turn being played (``died`` after ``turns``) is in it until that turn is played."""
        in_play = sum(snake.died is None or snake.died > self.turns for snake in self.snakes)
        return in_play <= 1 or self.turns >= MAX_TURNS

    def tile(self, x: int, y: int) -> int:
        """The index of tile (x, y), wrapped onto the map."""
        return (y % self.height) * (self.width + 1) + x % self.width

    def xy(self, tile: int) -> tuple[int, int]:
        return tile % (self.width + 1), tile // (self.width + 1)

    def step(self, tile: int, direction: Direction) -> int:
        """The tile one step from ``tile`` in ``direction``, across the edges."""
        x, y = self.xy(tile)
        dx, dy = direction.delta
        return self.tile(x + dx, y + dy)

    def rows(self) -> list[str]:
        return self.view.decode("ascii").split("\n")[:-1]


def check_period(period: object) -> int:
    if isinstance(period, bool) or not isinstance(period, int):
        raise ValueError(f"the growth period T must be a whole number, not {period!r}")
    if not MIN_PERIOD <= period <= MAX_PERIOD:
        raise ValueError(f"the growth period T is {MIN_PERIOD} to {MAX_PERIOD}, not {period}")
    return period


def _view(rows: Sequence[str]) -> bytes:
    return "".join(row + "\n" for row in rows).encode("ascii")


def state_from_picture(
    picture: str, seats: int, period: int, turns: int = 0, dead: Mapping[int, int] | None = None
) -> MultisnakeState:
    """A position drawn as bots see it, for tests and tools: map tiles, snake heads drawn with
    their letters (A..), bodies with ``^ > v <``. Each body is found by walking back from its head
    along the arrows that point into it. ``dead`` maps seats to the turn they died (their heads
    are then drawn ``@``). ValueError for a picture that is not a position.
    """
    rows = read_grid(picture, TILES + START_LETTERS + "^>v<", "# . + - A to H ^ > v <")
    state = MultisnakeState(len(rows[0]), len(rows), check_period(period), _view(rows), (), turns)
    view = bytearray(state.view)
    heads = {chr(view[i]): i for i in range(len(view)) if chr(view[i]) in START_LETTERS}
    snakes = []
    claimed: set[int] = set()
    for seat in range(seats):
        letter = seat_letter(seat)
        if letter not in heads:
            raise ValueError(f"the picture has no head {letter!r} for seat {seat}")
        tiles = [heads.pop(letter)]
        while True:
            into = [
                state.step(tiles[-1], d.opposite)
                for d in Direction
                if view[state.step(tiles[-1], d.opposite)] == ord(d.value)
            ]
            into = [t for t in into if t not in claimed and t not in tiles]
            if len(into) > 1:
                raise ValueError(f"snake {letter}'s body forks at {state.xy(tiles[-1])}")
            if not into:
                break
            tiles.append(into[0])
        claimed.update(tiles)
        snakes.append(Snake(tuple(reversed(tiles)), len(tiles)))
    if heads:
        raise ValueError(f"heads {sorted(heads)} belong to no seat of {seats}")
    stray = [i for i in range(len(view)) if chr(view[i]) in "^>v<" and i not in claimed]
    if stray:
        raise ValueError(f"the body tile at {state.xy(stray[0])} leads to no head")
    for seat, turn in (dead or {}).items():
        snakes[seat] = replace(snakes[seat], died=turn)
        view[snakes[seat].head] = DEAD_HEAD
    return replace(state, view=bytes(view), snakes=tuple(snakes))


def tile_owners(state: MultisnakeState) -> tuple[int, ...]:
    """Per tile of ``view`` (newlines included), the seat whose snake lies there, else -1. Of
    snakes that died entering one tile together, the tile is given to the lowest seat."""
    owners = [-1] * len(state.view)
    for seat in reversed(range(len(state.snakes))):
        for tile in state.snakes[seat].tiles:
            owners[tile] = seat
    return tuple(owners)


def owner_text(state: MultisnakeState) -> str:
    """The map part of ``render_text`` with every snake tile replaced by its seat's letter (dead
    or alive) and every other tile by ``.``: what a replay needs to colour each snake apart."""
    owners = tile_owners(state)
    return "".join(
        "\n" if char == ord("\n") else "." if owner < 0 else seat_letter(owner)
        for char, owner in zip(state.view[:-1], owners, strict=False)
    )


def _finish(state: MultisnakeState) -> list[int]:
    """Per seat, the turn its snake died; the living count as dying after the last turn."""
    return [_ALIVE_AT_END if s.died is None else s.died for s in state.snakes]


def places(state: MultisnakeState) -> tuple[int, ...]:
    """Each seat's place as things stand: 1 + the number of snakes that died strictly later (the
    living count as dying last). A dead snake's place is final."""
    return placement_from_order(_finish(state))


def _names(seats: Sequence[int]) -> str:
    letters = [seat_letter(s) for s in seats]
    return letters[0] if len(letters) == 1 else ", ".join(letters[:-1]) + " and " + letters[-1]


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def _tails(
    state: MultisnakeState, target: Mapping[int, int], forced: bool
) -> tuple[dict[int, tuple[int, ...]], dict[int, int]]:
    """Rule 2, for each seat of ``target`` (its snake's target tile): the tiles its tail leaves if
    it moves, and its length after the turn. ``forced``: the turn's number is a multiple of T."""
    leaving: dict[int, tuple[int, ...]] = {}
    lengths: dict[int, int] = {}
    for s, tile in target.items():
        snake = state.snakes[s]
        sign = state.view[tile]
        grow = 1 if forced or sign == ord("+") else 0
        shrink = 1 if sign == ord("-") else 0
        leaving[s] = snake.tiles[: 1 - grow + shrink]
        lengths[s] = snake.length + grow - shrink
    return leaving, lengths


def _stuck(
    state: MultisnakeState, target: Mapping[int, int], leaving: Mapping[int, tuple[int, ...]]
) -> set[int]:
    """Rules 1 and 3: the seats of ``target`` whose snakes die without moving — those that reverse,
    then those whose target is a wall or a snake's tile that no moving tail leaves."""
    snakes, view = state.snakes, state.view
    stuck = {s for s in target if len(snakes[s].tiles) > 1 and target[s] == snakes[s].tiles[-2]}
    movers = set(target) - stuck
    while True:  # until no more snakes die without moving (their tails then stay)
        left = {tile for s in movers for tile in leaving[s]}
        blocked = {s for s in movers if view[target[s]] not in FREE and target[s] not in left}
        if not blocked:
            return stuck
        movers -= blocked
        stuck |= blocked


STATUS_SEATS: Final = 4  # seats per line of a frame's status
STATUS_PREFIX: Final = 11  # "turn 1234  ": where the first seat's field starts on every line
STATUS_FIELD: Final = 19  # a seat's field and the two spaces after it


def status_lines(state: MultisnakeState) -> list[str]:
    """A frame's status (see ``Multisnake.render_text``): seat k's field starts with its letter
    at column ``STATUS_PREFIX + (k % STATUS_SEATS) * STATUS_FIELD`` of line k // STATUS_SEATS."""
    place = places(state)
    fields = []
    for seat, snake in enumerate(state.snakes):
        letter = seat_letter(seat)
        if snake.died is None:
            text = f"{letter} alive"
        else:
            text = f"{letter} died t{snake.died}, {_ordinal(place[seat])}"
        fields.append(text.ljust(STATUS_FIELD - 2))
    lines = []
    for first in range(0, len(fields), STATUS_SEATS):
        prefix = f"turn {state.turns:>4}  " if first == 0 else " " * STATUS_PREFIX
        lines.append(prefix + "  ".join(fields[first : first + STATUS_SEATS]))
    return lines


class Multisnake:
    """The rules of Multisnake; seat k plays the snake lettered ``A`` + k."""

    id: ClassVar[str] = "multisnake-v2"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=8,
        simultaneous=True,
        max_moves=MAX_TURNS,
        seat_names=tuple(START_LETTERS),
        seat_counts=(2, 4, 8),
        score_label="length {}",
        two_seat_forfeit=False,  # a faulting snake dies in its turn, two seats as any other
    )

    def initial_state(self, rng: random.Random, seats: int, setup: Setup) -> MultisnakeState:
        """The start on ``setup["map"]`` (a map file's text) with growth period ``setup["period"]``.

        No randomness: which entry starts on which letter is the seating's business.
        """
        text = setup.get("map")
        if not isinstance(text, str):
            raise ValueError("Multisnake needs a map: setup['map'] is the map file's text")
        game_map = parse_map(text, seats)
        period = check_period(setup.get("period"))
        keep = START_LETTERS[:seats]
        rows = [
            "".join("." if c in START_LETTERS and c not in keep else c for c in row)
            for row in game_map.rows
        ]
        state = MultisnakeState(game_map.width, game_map.height, period, _view(rows), ())
        snakes = tuple(
            Snake((state.tile(x, y),), 1) for letter, x, y in game_map.starts if letter in keep
        )
        return replace(state, snakes=snakes)

    def to_move(self, state: MultisnakeState) -> tuple[int, ...]:
        return () if state.over else state.alive

    def legal_moves(self, state: MultisnakeState, seat: int) -> Sequence[Direction]:
        """Every direction while the seat's snake lives (a deadly one is still a move)."""
        return tuple(Direction) if seat in self.to_move(state) else ()

    def check_move(self, state: MultisnakeState, seat: int, move: Direction) -> None:
        if not isinstance(move, Direction):
            raise InvalidMoveError(f"{move!r} is not a Multisnake move")
        if seat not in self.to_move(state):
            if state.over:
                why = "the game is over"
            elif 0 <= seat < len(state.snakes):
                why = f"snake {seat_letter(seat)} is dead"
            else:
                why = f"there is no seat {seat}"
            raise IllegalMoveError(f"{move.value!r}: {why}")

    def _check_moves(self, state: MultisnakeState, moves: Mapping[int, Direction]) -> None:
        """IllegalMoveError unless ``moves`` names exactly the seats that move now; then each
        move must pass ``check_move``, in the order of ``moves``."""
        check_movers(moves, self.to_move(state))
        for seat, move in moves.items():
            self.check_move(state, seat, move)

    def apply(self, state: MultisnakeState, moves: Mapping[int, Direction]) -> MultisnakeState:
        """The state after one turn of ``moves`` (one per live snake), by rules 1 to 4."""
        self._check_moves(state, moves)
        moving = self.to_move(state)
        turn = state.turns + 1
        target = {s: state.step(state.snakes[s].head, moves[s]) for s in moving}
        leaving, lengths = _tails(state, target, forced=turn % state.period == 0)
        stuck = _stuck(state, target, leaving)
        movers = set(moving) - stuck
        entries = Counter(target[s] for s in movers)
        board = bytearray(state.view)
        snakes = list(state.snakes)
        for s in movers:
            for tile in leaving[s]:
                board[tile] = ord(".")
        for s in sorted(movers):
            snake = snakes[s]
            kept = snake.tiles[len(leaving[s]) :]
            if kept:  # the old head stays, as body
                board[snake.head] = ord(moves[s].value)
            dies = entries[target[s]] > 1 or lengths[s] == 0
            snakes[s] = Snake(kept + (target[s],), lengths[s], turn if dies else None)
        for s in sorted(movers):
            board[target[s]] = DEAD_HEAD if snakes[s].died else ord(seat_letter(s))
        for s in stuck:
            snakes[s] = replace(snakes[s], died=turn)
            board[snakes[s].head] = DEAD_HEAD
        return replace(state, view=bytes(board), snakes=tuple(snakes), turns=turn)

    def stand_in(self, state: MultisnakeState, seat: int) -> Direction | None:
        """None: a faulting seat's snake dies (``retire``); there is no move in its place."""
        return None

    def retire(self, state: MultisnakeState, seat: int) -> MultisnakeState:
        """The seat's snake dies where it stands, in the turn being played; it stays on the map.
        The game goes on until that turn is played (``apply``, with the other snakes' moves; with
        none, when every snake in it was retired), even with one snake or none left alive."""
        if seat not in state.alive:
            raise ValueError(f"seat {seat} has no live snake to retire")
        snakes = list(state.snakes)
        snakes[seat] = replace(snakes[seat], died=state.turns + 1)
        board = bytearray(state.view)
        board[snakes[seat].head] = DEAD_HEAD
        return replace(state, view=bytes(board), snakes=tuple(snakes))

    def outcome(self, state: MultisnakeState) -> Outcome | None:
        if not state.over:
            return None
        alive = state.alive
        if len(alive) == 1:
            detail = f"{_names(alive)} was the last snake alive, after turn {state.turns}"
        elif alive:
            detail = (
                f"the turn limit ({MAX_TURNS}) ended the game with {_names(alive)} alive, "
                "sharing first place"
            )
        else:
            last = max(s.died or 0 for s in state.snakes)
            together = [s for s, snake in enumerate(state.snakes) if snake.died == last]
            detail = f"{_names(together)} died together at turn {last}, sharing first place"
        return ranked_outcome(_finish(state), Termination.NORMAL, detail)

    def scores(self, state: MultisnakeState) -> tuple[int, ...]:
        """Each snake's length (at death for the dead)."""
        return tuple(snake.length for snake in state.snakes)

    def turn(self, state: MultisnakeState) -> int:
        return state.turns + 1

    def render_text(self, state: MultisnakeState) -> str:
        """The status, then the map as the bots see it (H lines of W characters) but for the
        heads of dead snakes: there each snake's letter in lower case instead of ``@``, so that
        a replay tells whose each dead snake is without colour.

        The status gives the number of turns played and per seat whether its snake lives, or the
        turn it died and its (final) place: four seats a line (``STATUS_SEATS``). Its fields
        have fixed widths, so every frame of a game has the same length. (Lengths are the
        scores, shown beside a frame: in the frame they would change every growth turn, which a
        replay of a long game on a large map would pay for in every frame's edits.)
        """
        board = bytearray(state.view[:-1])
        for seat in reversed(range(len(state.snakes))):
            snake = state.snakes[seat]
            if snake.died is not None and state.view[snake.head] == DEAD_HEAD:
                board[snake.head] = ord(seat_letter(seat).lower())
        return "\n".join(status_lines(state)) + "\n" + board.decode("ascii")

    def move_text(self, move: Direction) -> str:
        return move.value

    def parse_move(self, seat: int, text: str) -> Direction:
        return read_direction(text)
