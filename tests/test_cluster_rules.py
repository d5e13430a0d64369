"""Cluster rules, as runner/games/cluster/rules.md states them.

Ground truth: the rules' geometry re-derived here independently, hand-built positions for
gravity, rotation, lines, the tie-break and empty bags, the original referee's scan for the
winning colour written plainly, a table of replies as the original referee reads them, a bot that
rebuilds the board from the protocol messages alone, and a golden protocol transcript and replay.
"""

from __future__ import annotations

import importlib.util
import random
from collections import deque
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from golden_texts import golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.cluster.codec import ClusterStdio
from runner.games.cluster.rules import (
    CELLS,
    COORDS,
    LINES,
    MAX_LINE,
    MAX_MOVES,
    NEIGHBOURS,
    TOPS,
    Cluster,
    ClusterState,
    Move,
    Place,
    Rotate,
    cell_at,
    state_from_pellets,
    valid_columns,
    winning_colours,
)

GAME = Cluster()
WIRE = ClusterStdio()
DIRECTIONS = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]  # S SW NW N NE SE, as the rules
WIDTH, HEIGHT = 67, 48  # render_text's frame


def load_regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_golden", Path(__file__).parent / "regen_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def at(q: int, r: int) -> int:
    return cell_at(q, r)


def play(state: ClusterState, move: Move) -> ClusterState:
    """Play ``move`` for whoever is to move, first making a PLACE's colour their hand."""
    if isinstance(move, Place):
        state = replace(state, hand=(move.colour,))
    return GAME.apply(state, {state.mover: move})


def blocks(message: bytes) -> dict[str, list[str]]:
    """A turn message cut into its blocks (each the lines after its count)."""
    lines = message.decode("ascii").split("\n")
    assert lines[-2:] == ["", ""], "a turn message ends with an empty line"
    parts = {"gravity": lines[:1]}
    at_line = 1
    for name in ("columns", "new", "moved", "hand"):
        count = int(lines[at_line])
        parts[name] = lines[at_line + 1 : at_line + 1 + count]
        at_line += 1 + count
    assert at_line == len(lines) - 2, "nothing but the empty line follows the hand"
    return parts


def colour_at(state: ClusterState, q: int, r: int) -> int | None:
    value = state.board[at(q, r)]
    return None if value == 0 else value - 1


def rotate(q: int, r: int, times: int) -> tuple[int, int]:
    for _ in range(times):
        q, r = -r, q + r
    return q, r


# --- the board ------------------------------------------------------------------------------------


def test_cells_are_numbered_breadth_first_from_the_centre() -> None:
    on_board = {(q, r) for q in range(-11, 12) for r in range(-11, 12) if abs(q + r) <= 11}
    order, queue = [(0, 0)], deque([(0, 0)])
    while queue:
        q, r = queue.popleft()
        for dq, dr in DIRECTIONS:
            n = (q + dq, r + dr)
            if n in on_board and n not in order:
                order.append(n)
                queue.append(n)
    assert CELLS == len(on_board) == 397, "a hexagon of side 12 has 397 cells"
    assert list(COORDS) == order, "cells are numbered by a breadth-first walk in direction order"
    assert NEIGHBOURS[0] == (1, 2, 3, 4, 5, 6), "the centre's neighbours are cells 1..6"


def test_neighbours_are_mutual_and_missing_only_off_the_board() -> None:
    for cell, (q, r) in enumerate(COORDS):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            n = NEIGHBOURS[cell][d]
            if max(abs(q + dq), abs(r + dr), abs(q + dq + r + dr)) > 11:
                assert n == -1, f"cell {cell} has a neighbour off the board in direction {d}"
            else:
                assert COORDS[n] == (q + dq, r + dr), f"cell {cell}'s neighbour {d} is wrong"
                assert NEIGHBOURS[n][(d + 3) % 6] == cell, "neighbours are mutual"


def test_columns_are_as_the_rules_define_them() -> None:
    for i in range(23):
        q = i - 11
        assert COORDS[TOPS[0][i]] == (q, max(-11, -11 - q)), f"column {i}'s top under S"
    for g in range(6):
        lengths = [len(line) for line in LINES[g]]
        assert lengths == list(range(12, 24)) + list(range(22, 11, -1)), "lengths 12..23..12"
        assert sorted(c for line in LINES[g] for c in line) == list(range(CELLS)), (
            f"the columns under gravity {g} cover every cell once"
        )
        for i, top in enumerate(TOPS[g]):
            assert COORDS[top] == rotate(*COORDS[TOPS[0][i]], g), "tops rotate with gravity"
            assert NEIGHBOURS[top][(g + 3) % 6] == -1, "nothing is above a top cell"
            assert LINES[g][i][0] == top


# --- the protocol ---------------------------------------------------------------------------------


def test_init_message_layout() -> None:
    state = GAME.initial_state(random.Random(0))
    for seat, (mine, theirs) in enumerate((("0", "1"), ("1", "0"))):
        lines = WIRE.greeting(state, seat).decode("ascii").split("\n")
        assert lines[-1] == "", "the message ends with a newline"
        lines = lines[:-1]
        assert len(lines) == 1 + 397 + 1 + 23 + 3 + 3
        assert lines[0] == "397" and lines[1] == "0 1 2 3 4 5 6"
        assert lines[398] == "23"
        assert lines[399].split()[0] == "0" and len(lines[399].split()) == 7
        assert lines[-6:] == [
            "2",
            f"{mine} 96",
            f"{int(mine) + 2} 96",
            "2",
            f"{theirs} 96",
            f"{int(theirs) + 2} 96",
        ], "own colours, then the opponent's, 96 each (the true count, not the referee's 99)"


def test_hands_come_from_the_seeded_generator_and_are_sorted() -> None:
    drawn = set()
    for seed in range(20):
        rng = random.Random(seed)
        blue = [2 * rng.randrange(2) for _ in range(2)]
        drawn.add(tuple(blue))
        state = GAME.initial_state(random.Random(seed))
        assert state.hand == tuple(sorted(blue)), "Blue draws two, each 0 or 2 by rng.randrange(2)"
        after = GAME.apply(state, {0: Place(11, blue[0])})
        red = [1 + 2 * rng.randrange(2) for _ in range(2)]
        assert after.hand == tuple(sorted(red)), "Red's draws continue the same generator"
    assert (2, 0) in drawn, "some seed draws BLUE1 before BLUE0, so sorting is tested"


def blue_draws(seed: int) -> list[int]:
    rng = random.Random(seed)
    return [2 * rng.randrange(2) for _ in range(2)]


def test_the_hand_is_listed_lowest_colour_first() -> None:
    seed = next(s for s in range(50) if blue_draws(s) == [2, 0])  # BLUE1 drawn, then BLUE0
    state = GAME.initial_state(random.Random(seed))
    assert blocks(WIRE.request(state, 0))["hand"] == ["0", "2"], "listed sorted, as drawn not"


def test_first_turn_message_is_exact() -> None:
    state = GAME.initial_state(random.Random(3))
    tops = "".join(f"{i} {TOPS[0][i]}\n" for i in range(23))
    hand = "".join(f"{c}\n" for c in state.hand)
    expected = f"0\n23\n{tops}0\n0\n2\n{hand}\n"
    assert WIRE.request(state, 0).decode("ascii") == expected
    assert WIRE.request(state, 0).endswith(b"\n\n"), "the message ends with an empty line"


def test_turn_messages_show_new_pellets_of_both_players_and_every_rotation() -> None:
    state = state_from_pellets([])
    state = play(state, Place(11, 0))  # pellet 0, Blue
    state = play(state, Place(11, 1))  # pellet 1, Red
    blue = blocks(WIRE.request(state, 0))
    assert blue["new"] == [f"0 {at(0, 11)} 0 1", f"1 {at(0, 10)} 1 0"], (
        "Blue is told of its own pellet (is_mine 1) and Red's (0), with their cells"
    )
    assert blue["moved"] == [] and blue["hand"] == [str(c) for c in state.hand]
    state = play(state, Rotate(3))  # Blue rotates: both pellets fall to the north end
    red = blocks(WIRE.request(state, 1))
    assert red["gravity"] == ["3"] and red["hand"] == [str(c) for c in state.hand]
    assert red["new"] == [f"1 {at(0, -11)} 1 1"], "Red's own pellet, where it lies now"
    assert red["moved"] == [f"0 {at(0, -10)}", f"1 {at(0, -11)}"], "the stack turned over"
    state = play(state, Place(0, 1))  # pellet 2, Red: column 0 under N ends at (11, -11)
    blue = blocks(WIRE.request(state, 0))
    assert blue["new"] == [f"2 {at(11, -11)} 1 0"]
    assert blue["moved"] == [f"0 {at(0, -10)}", f"1 {at(0, -11)}", f"2 {at(11, -11)}"], (
        "Blue hears of its own rotation too: every pellet on the board, the new one included"
    )
    state = play(state, Place(5, 0))
    state = play(state, Place(5, 1))
    assert blocks(WIRE.request(state, 0))["moved"] == [], "no rotation since Blue last read"


class BotView:
    """A bot's knowledge, rebuilt from the messages alone."""

    def __init__(self, init: bytes, seat: int) -> None:
        lines = init.decode("ascii").split("\n")
        cells = int(lines[0])
        self.tops = [[int(x) for x in line.split()[1:]] for line in lines[cells + 2 : cells + 25]]
        assert lines[cells + 25 : cells + 28] == ["2", f"{seat} 96", f"{seat + 2} 96"]
        self.seat = seat
        self.pellets: dict[int, tuple[int, int]] = {}  # pellet index -> (cell, colour)

    def read_turn(self, message: bytes) -> tuple[int, list[int], list[int]]:
        lines = iter(message.decode("ascii").split("\n"))
        gravity = int(next(lines))
        columns = []
        for _ in range(int(next(lines))):
            column, top = map(int, next(lines).split())
            assert top == self.tops[column][gravity], "the top cell agrees with the init table"
            columns.append(column)
        for _ in range(int(next(lines))):
            index, cell, colour, mine = map(int, next(lines).split())
            assert index not in self.pellets, f"pellet {index} was announced twice"
            assert mine == int(colour % 2 == self.seat), "is_mine tells whose pellet it is"
            self.pellets[index] = (cell, colour)
        for _ in range(int(next(lines))):
            index, cell = map(int, next(lines).split())
            self.pellets[index] = (cell, self.pellets[index][1])
        hand = [int(next(lines)) for _ in range(int(next(lines)))]
        assert next(lines) == "", "an empty line ends the message"
        assert next(lines) == "" and next(lines, None) is None, "nothing after it"
        return gravity, columns, hand


# --- gravity, rotation, compaction ----------------------------------------------------------------


@pytest.mark.parametrize("gravity", range(6))
def test_pellets_fall_to_the_bottom_of_their_column(gravity: int) -> None:
    state = state_from_pellets([], gravity=gravity)
    for column in (0, 7, 11, 22):
        state = play(state, Place(column, state.mover))
        state = play(state, Place(column, state.mover))
        line = LINES[gravity][column]
        assert state.board[line[-1]] == 1 and state.board[line[-2]] == 2, (
            f"column {column} stacks from its bottom under gravity {gravity}"
        )
        assert not any(state.board[c] for c in line[:-2]), "the rest of the column is empty"


def test_a_full_column_is_illegal_and_no_longer_offered() -> None:
    state = state_from_pellets([])
    for _ in range(12):
        state = play(state, Place(0, state.mover))  # colours alternate: no line
    assert 0 not in valid_columns(state) and len(valid_columns(state)) == 22
    assert f"\n0 {TOPS[0][0]}\n" not in WIRE.request(state, 0).decode("ascii")
    with pytest.raises(IllegalMoveError, match="'PLACE 0 0'.*full"):
        GAME.apply(replace(state, hand=(0, 2)), {0: Place(0, 0)})


def test_place_returns_the_other_pellet_and_rotate_discards_both() -> None:
    state = GAME.initial_state(random.Random(1))
    blue_bag = state.bags[0] + state.bags[2]
    assert blue_bag == 190 and len(state.hand) == 2
    state = GAME.apply(state, {0: Place(3, state.hand[0])})
    assert state.bags[0] + state.bags[2] == 191, "one placed, one back in the bag"
    state = GAME.apply(state, {1: Rotate(2)})
    assert state.bags[1] + state.bags[3] == 190, "Red drew two and the rotation discarded both"


def test_a_rotation_moves_each_pellet_along_its_own_line() -> None:
    state = state_from_pellets([(at(3, 8), 0), (at(3, 7), 1), (at(3, 6), 2)])
    state = GAME.apply(state, {0: Rotate(1)})
    assert state.gravity == 1
    assert state.cells == (at(0, 11), at(-1, 11), at(-2, 11)), "each slid south-west to the edge"


def test_rotation_compacts_fully_in_both_directions() -> None:
    line = [(at(0, 11), 0), (at(2, 9), 1), (at(5, 6), 2)]  # one SW line, with gaps
    state = state_from_pellets(line)
    south_west = GAME.apply(state, {0: Rotate(1)})
    assert south_west.cells == (at(0, 11), at(1, 10), at(2, 9)), "packed at the SW end, in order"
    north_east = GAME.apply(state, {0: Rotate(4)})
    assert north_east.cells == (at(9, 2), at(10, 1), at(11, 0)), "packed at the NE end, in order"


def test_rotating_to_north_turns_a_stack_upside_down() -> None:
    state = state_from_pellets([(at(0, 11), 0), (at(0, 10), 1)])
    state = GAME.apply(state, {0: Rotate(3)})
    assert colour_at(state, 0, -11) == 1 and colour_at(state, 0, -10) == 0
    state = GAME.apply(replace(state, hand=(1,)), {1: Rotate(5)})  # 3 + 5 = 8: gravity 2 (NW)
    assert state.gravity == 2


def test_after_a_rotation_every_pellet_rests() -> None:
    state = GAME.initial_state(random.Random(8))
    rng = random.Random(8)
    for _ in range(30):
        state = play(state, Place(rng.choice(valid_columns(state)), state.mover))
        state = play(state, Rotate(rng.randint(1, 5)))
        if GAME.outcome(state):
            break
        for cell in state.cells:
            below = NEIGHBOURS[cell][state.gravity]
            assert below == -1 or state.board[below], f"the pellet on {cell} floats"


# --- lines and winning ----------------------------------------------------------------------------

# Per axis: a line of four cells, the last of them where a pellet dropped in ``column`` lands.
AXES = {
    "S": ([(0, 11), (0, 10), (0, 9), (0, 8)], 11),  # a stack in column 11
    "SW": ([(0, 11), (1, 10), (2, 9), (3, 8)], 14),  # the bottoms of columns 11..14
    "NW": ([(0, 11), (-1, 11), (-2, 11), (-3, 11)], 8),  # the bottoms of columns 11..8
}


@pytest.mark.parametrize("axis", sorted(AXES))
def test_four_in_a_line_along_each_axis_wins(axis: str) -> None:
    cells, column = AXES[axis]
    three = state_from_pellets([(at(q, r), 2) for q, r in cells[:3]], hand=(2, 0))
    assert GAME.scores(three) == (3, 0) and GAME.outcome(three) is None
    full = state_from_pellets([(at(q, r), 2) for q, r in cells])
    assert GAME.scores(full) == (4, 0), f"four BLUE1 along the {axis} axis score 4"
    won = GAME.apply(three, {0: Place(column, 2)})
    assert won.board == full.board, "the fourth pellet lands on the line"
    outcome = GAME.outcome(won)
    assert outcome is not None and outcome.points == (1.0, 0.0)
    assert outcome.termination is Termination.NORMAL
    assert outcome.detail == "Blue made a line of 4 at turn 1; Red's longest was 0"
    assert GAME.to_move(won) == ()


def test_a_players_two_colours_never_combine() -> None:
    state = state_from_pellets([(at(0, 11 - k), c) for k, c in enumerate((0, 0, 2, 2, 0))])
    assert GAME.scores(state) == (2, 0)


def test_lines_are_straight() -> None:
    bent = [(0, 11), (0, 10), (1, 10), (1, 9)]  # two stacks side by side, a zigzag of four
    state = state_from_pellets([(at(q, r), 1) for q, r in bent], hand=(1, 3), moves_played=1)
    assert GAME.scores(state) == (0, 2)


def test_a_move_can_hand_the_opponent_the_win() -> None:
    # Red's four tops (heights 2, 1, 2, 1) come into one line at the north end.
    pellets = [(at(-8, 11), 2), (at(-8, 10), 3), (at(-7, 11), 3)]
    pellets += [(at(-6, 11), 2), (at(-6, 10), 3), (at(-5, 11), 3)]
    state = state_from_pellets(pellets)
    assert GAME.outcome(state) is None
    after = GAME.apply(state, {0: Rotate(3)})
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.points == (0.0, 1.0), "Blue's rotation lets Red win"
    assert outcome.detail == "Red made a line of 4 at turn 1; Blue's longest was 1"


def tie_position(extra: list[tuple[int, int]]) -> ClusterState:
    """Four BLUE0 tops and four RED1 tops (column heights 2, 1, 2, 1) that a rotation to the
    north lines up at once; fillers of the other colours; ``extra`` pellets elsewhere."""
    blue = [(at(-3, 11), 2), (at(-3, 10), 0), (at(-2, 11), 0)]
    blue += [(at(-1, 11), 2), (at(-1, 10), 0), (at(0, 11), 0)]
    red = [(at(-8, 11), 1), (at(-8, 10), 3), (at(-7, 11), 3)]
    red += [(at(-6, 11), 1), (at(-6, 10), 3), (at(-5, 11), 3)]
    return state_from_pellets(blue + red + extra)


@pytest.mark.parametrize(
    ("extra", "points", "ending"),
    [
        ([], (0.5, 0.5), "Blue has 4 BLUE0, Red 4 RED1: a draw"),
        ([(at(5, 6), 3)], (0.0, 1.0), "Blue has 4 BLUE0, Red 5 RED1: Red wins"),
        ([(at(8, 3), 0)], (1.0, 0.0), "Blue has 5 BLUE0, Red 4 RED1: Blue wins"),
    ],
)
def test_equal_lines_go_to_more_pellets_of_the_winning_colour(
    extra: list[tuple[int, int]], points: tuple[float, float], ending: str
) -> None:
    before = tie_position(extra)
    assert max(GAME.scores(before)) < 4 and GAME.outcome(before) is None
    after = GAME.apply(before, {0: Rotate(3)})
    assert GAME.scores(after) == (4, 4), "the rotation gives both a line of 4"
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.points == points
    assert outcome.detail == f"both made lines of 4 at turn 1; on the board {ending}"


def referee_scan(state: ClusterState) -> list[int | None]:
    """Each seat's winning colour, as the original referee finds it, written plainly: every pellet
    newest first, from each the run of its colour going S, SW, NW (cells from it onwards); a seat's
    record is replaced only by a strictly longer run."""
    colour_at_coords = {
        COORDS[c]: colour for c, colour in zip(state.cells, state.colours, strict=True)
    }
    longest = [-1, -1]
    colour_of: list[int | None] = [None, None]
    for p in reversed(range(len(state.cells))):
        q, r = COORDS[state.cells[p]]
        colour = state.colours[p]
        for dq, dr in DIRECTIONS[:3]:
            size = 1
            while colour_at_coords.get((q + size * dq, r + size * dr)) == colour:
                size += 1
            if size > longest[colour % 2]:
                longest[colour % 2], colour_of[colour % 2] = size, colour
    return colour_of


def stack(q: int, colour: int, height: int) -> list[tuple[int, int]]:
    """A column of pellets under gravity S at axial q, bottom first."""
    bottom = min(11, 11 - q)
    return [(at(q, bottom - k), colour) for k in range(height)]


def both_colours_at_four() -> list[tuple[int, int]]:
    """Blue has a line of 4 in each of its colours: BLUE0 (4 pellets in all) and BLUE1 (6 in all).
    The pellet order makes the scan find BLUE0's line first although BLUE1 has more pellets and
    the newest Blue pellet of a 4-line is BLUE1's: lines are found at their top end, and BLUE0's
    top is newer than BLUE1's. Red has a line of 4 in RED1, 5 RED1 pellets in all."""
    blue1 = stack(-2, 2, 4)  # bottom first: (-2, 11) .. (-2, 8)
    blue0 = stack(0, 0, 4)
    red = stack(4, 3, 4) + stack(7, 3, 1) + stack(-6, 1, 2)
    singles = stack(5, 2, 1) + stack(-5, 2, 1)
    # BLUE1's top three, then BLUE0's whole stack, then BLUE1's bottom pellet: the newest of Blue's
    # lines' pellets, yet from the bottom a run going S is 1 long. Then Red, then two lone BLUE1.
    return blue1[:0:-1] + blue0 + blue1[:1] + red + singles


def test_the_winning_colour_is_the_first_line_the_scan_finds_not_the_more_numerous() -> None:
    pellets = both_colours_at_four()
    state = state_from_pellets(pellets)
    assert GAME.scores(state) == (4, 4) and state.best == (4, 2, 4, 4)
    counts = [state.colours.count(c) for c in range(4)]
    assert counts == [4, 2, 6, 5], "BLUE1 has more pellets than BLUE0"
    assert state.cells.index(at(-2, 11)) > state.cells.index(at(0, 8)), "BLUE1's bottom is newer"
    assert winning_colours(state) == ((4, 0), (5, 3)), "Blue's winning colour is BLUE0"
    assert referee_scan(state) == [0, 3]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.points == (0.0, 1.0), "Red's 5 RED1 beat 4 BLUE0"
    assert outcome.detail.endswith("on the board Blue has 4 BLUE0, Red 5 RED1: Red wins"), (
        "with the more numerous colour (6 BLUE1) Blue would have won"
    )


def test_the_scan_order_decides_the_other_way_too() -> None:
    pellets = both_colours_at_four()
    blue0 = stack(0, 0, 4)
    reordered = [p for p in pellets if p not in blue0]
    state = state_from_pellets(blue0 + reordered)  # now BLUE1's top is the newer top
    assert winning_colours(state) == ((6, 2), (5, 3)) and referee_scan(state) == [2, 3]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.points == (1.0, 0.0), "6 BLUE1 beat 5 RED1"


# Under gravity S, stacks whose tops a rotation to the north lines up (tops of heights 2, 1, 2, 1,
# the lower pellets fillers): BLUE1 along the north edge at (1..4, -11), found from its SE end
# (4, -11); BLUE0 along q = -3..0, found from its NE end (0, -11); RED1 along q = -8..-5. In all
# 4 BLUE0, 6 BLUE1 and 5 RED1 pellets.
BLUE1_TOPS = [(at(1, 10), 1), (at(1, 9), 2), (at(2, 9), 2)]
BLUE1_TOPS += [(at(3, 8), 1), (at(3, 7), 2), (at(4, 7), 2)]
BLUE0_TOPS = [(at(-3, 11), 2), (at(-3, 10), 0), (at(-2, 11), 0)]
BLUE0_TOPS += [(at(-1, 11), 2), (at(-1, 10), 0), (at(0, 11), 0)]
RED1_TOPS = [(at(-8, 11), 1), (at(-8, 10), 3), (at(-7, 11), 3)]
RED1_TOPS += [(at(-6, 11), 1), (at(-6, 10), 3), (at(-5, 11), 3), (at(8, 3), 3)]


@pytest.mark.parametrize(
    ("pellets", "colour", "points"),
    [
        (BLUE1_TOPS + BLUE0_TOPS + RED1_TOPS, 0, (0.0, 1.0)),  # BLUE0's end is newer: 4 < 5
        (BLUE0_TOPS + BLUE1_TOPS + RED1_TOPS, 2, (1.0, 0.0)),  # BLUE1's end is newer: 6 > 5
    ],
)
def test_equal_lines_after_a_rotation_go_by_the_colour_the_scan_finds(
    pellets: list[tuple[int, int]], colour: int, points: tuple[float, float]
) -> None:
    before = state_from_pellets(pellets)
    assert GAME.outcome(before) is None, "no line of 4 before the rotation"
    after = GAME.apply(before, {0: Rotate(3)})
    assert after.best == (4, 1, 4, 4), "the rotation makes lines of 4 in BLUE0, BLUE1 and RED1"
    assert referee_scan(after) == [colour, 3]
    assert winning_colours(after)[0] == (after.colours.count(colour), colour)
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.points == points


# --- bags and hands -------------------------------------------------------------------------------


def test_a_player_beginning_a_turn_with_an_empty_bag_loses() -> None:
    state = replace(state_from_pellets([]), bags=(90, 0, 90, 0))
    after = GAME.apply(state, {0: Place(4, 0)})
    assert GAME.to_move(after) == () and after.ran_out == 1
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.points == (1.0, 0.0)
    assert outcome.termination is Termination.NORMAL
    assert outcome.detail == "Red ran out of pellets at turn 1"


def test_a_line_counts_before_the_empty_bag() -> None:
    three = [(at(0, 11 - k), 0) for k in range(3)]
    state = replace(state_from_pellets(three), bags=(90, 0, 90, 0))
    outcome = GAME.outcome(GAME.apply(state, {0: Place(11, 0)}))
    assert outcome is not None and "line of 4" in outcome.detail


def test_the_last_pellet_is_a_hand_of_one_and_exhausted_colours_are_not_drawn() -> None:
    state = replace(state_from_pellets([]), bags=(90, 1, 90, 0))
    after = GAME.apply(state, {0: Place(4, 0)})
    assert after.hand == (1,) and after.bags[1] + after.bags[3] == 0
    assert WIRE.request(after, 1).endswith(b"\n1\n1\n\n"), "the message shows a hand of one"
    state = replace(state_from_pellets([]), bags=(90, 0, 90, 50))
    for seed in range(10):
        after = GAME.apply(replace(state, rng_state=random.Random(seed).getstate()), {0: Rotate(1)})
        assert after.hand == (3, 3), "RED0 is exhausted, so every draw is RED1"


def test_rotating_every_turn_runs_blue_out_first() -> None:
    state = GAME.initial_state(random.Random(2))
    while GAME.to_move(state):
        state = GAME.apply(state, {state.mover: Rotate(1)})
    assert state.moves_played == 192 <= MAX_MOVES, "96 turns of two pellets each"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.points == (0.0, 1.0)
    assert outcome.detail == "Blue ran out of pellets at turn 97"


# --- moves: syntax and legality -------------------------------------------------------------------

# Replies as the original referee reads them (runner/games/cluster/rules.md, "Reading a
# reply"): each reply line as the bot writes it (without its newline), and the move read from
# it, or None where the referee plays no move (the bot loses). Facts taken from the referee's C
# source and the C library it runs on (64-bit Linux): the command word is everything before the
# first space;
# a number is scanf's "%d" (white space skipped, a sign, decimal digits, the rest ignored); PLACE's
# number is followed by exactly one character, which must be a space.
REPLIES: list[tuple[str, str | None]] = [
    # the plain forms
    ("PLACE 5 0", "PLACE 5 0"),
    ("PLACE 22 2", "PLACE 22 2"),
    ("ROTATE 1", "ROTATE 1"),
    ("ROTATE 5", "ROTATE 5"),
    # white space before a number: any run of spaces, tabs, CR, VT, FF
    ("PLACE  5 0", "PLACE 5 0"),
    ("PLACE \t5 0", "PLACE 5 0"),
    ("PLACE 5  0", "PLACE 5 0"),
    ("PLACE 5 \t 0", "PLACE 5 0"),
    ("ROTATE   3", "ROTATE 3"),
    ("ROTATE \v\f\r3", "ROTATE 3"),
    # after the last number, anything: white space, a CR, more fields, garbage
    ("PLACE 5 0 ", "PLACE 5 0"),
    ("PLACE 5 0\r", "PLACE 5 0"),
    ("PLACE 5 0\t\t", "PLACE 5 0"),
    ("ROTATE 3 ", "ROTATE 3"),
    ("PLACE 5 0 0", "PLACE 5 0"),
    ("PLACE 5 0 ROTATE 2", "PLACE 5 0"),
    ("PLACE 5 2x", "PLACE 5 2"),
    ("ROTATE 1 1", "ROTATE 1"),
    ("ROTATE 2.9", "ROTATE 2"),
    ("ROTATE 1e3", "ROTATE 1"),
    ("ROTATE 4abc", "ROTATE 4"),
    ("PLACE 5 0\u00e9", "PLACE 5 0"),
    # a sign, leading zeros (decimal, never octal), minus zero
    ("PLACE +5 +2", "PLACE 5 2"),
    ("ROTATE +2", "ROTATE 2"),
    ("PLACE 05 002", "PLACE 5 2"),
    ("ROTATE 0004", "ROTATE 4"),
    ("PLACE 010 0", "PLACE 10 0"),
    ("PLACE -0 -0", "PLACE 0 0"),
    # the line ends at a NUL character, as a C string does
    ("ROTATE 2\0 and more", "ROTATE 2"),
    ("PLACE 5 0\0", "PLACE 5 0"),
    ("PLACE\0 5 0", None),
    ("PLACE 5\0 0", None),
    # numbers out of int range: clamped to a 64-bit long, then the low 32 bits kept
    ("ROTATE 4294967297", "ROTATE 1"),
    ("PLACE 4294967301 0", "PLACE 5 0"),
    ("PLACE 5 -4294967296", "PLACE 5 0"),
    ("ROTATE 18446744073709551619", None),  # clamped to 2**63 - 1, whose low 32 bits read -1
    ("ROTATE 9223372036854775807", None),  # -1
    ("ROTATE -9223372036854775809", None),  # clamped to -2**63: 0
    ("ROTATE 2147483649", None),  # -2147483647
    ("PLACE 1234567890 0", None),  # in range, but no such column
    (f"ROTATE 0000{'0' * 30}3", "ROTATE 3"),  # many digits, but leading zeros
    (f"ROTATE {'9' * 4000}", None),  # clamped: -1
    # the command word: exactly PLACE or ROTATE, ended by a space
    ("", None),  # an empty line
    (" ", None),
    ("PLACE", None),
    ("ROTATE", None),
    ("ROTATE\t3", None),  # no space at all: no command word
    ("PLACE\t5 0", None),  # the word before the first space is 'PLACE\t5'
    (" PLACE 5 0", None),  # white space before the command word: the word is empty
    ("\tROTATE 1", None),
    ("place 5 0", None),  # case matters
    ("Place 5 0", None),
    ("rotate 2", None),
    ("ROTATE: 2", None),
    ("PUT 5 0", None),
    # PLACE: after the column exactly one character, a space
    ("PLACE 5\t0", None),
    ("PLACE 5,0", None),
    ("PLACE 5\r", None),
    ("PLACE 0x5 0", None),  # the column reads 0, then 'x' is not a space
    # missing or unreadable numbers (the referee would read a variable it never set: refused)
    ("PLACE ", None),
    ("PLACE 5", None),
    ("PLACE 5 ", None),
    ("PLACE 5 \t", None),
    ("ROTATE ", None),
    ("ROTATE \t", None),
    ("PLACE x 0", None),
    ("PLACE 5 x", None),
    ("PLACE 5 +", None),
    ("ROTATE x", None),
    ("ROTATE +", None),
    ("ROTATE - 1", None),
    ("ROTATE +-1", None),
    ("ROTATE --1", None),
    ("ROTATE \u0663", None),  # only the ASCII digits 0-9 are digits
    ("PLACE \u0661 0", None),
    ("ROTATE \uff13", None),
    # values outside the rules
    ("ROTATE 0", None),
    ("ROTATE 6", None),
    ("ROTATE -1", None),
    ("ROTATE 0x3", None),  # reads 0
    ("PLACE 23 0", None),
    ("PLACE -1 0", None),
    ("PLACE 5 4", None),
    ("PLACE 5 -2", None),
]


START = GAME.initial_state(random.Random(0))


def read(seat: int, reply: str) -> Move:
    """A reply as a bot's one line: read by the codec, then checked against the colour rule."""
    move = WIRE.decode(START, seat, [reply])
    if isinstance(move, Place) and move.colour % 2 != seat:
        GAME.check_move(START, seat, move)
    return move


@pytest.mark.parametrize(("reply", "read"), REPLIES)
def test_replies_are_read_as_the_original_referee_reads_them(reply: str, read: str | None) -> None:
    if read is None:
        with pytest.raises(InvalidMoveError) as caught:
            WIRE.decode(START, 0, [reply])
        assert repr(reply) in str(caught.value), "the message quotes the reply"
    else:
        move = WIRE.decode(START, 0, [reply])
        assert GAME.move_text(move) == read, f"{reply!r} reads as {read!r}"
        assert GAME.parse_move(0, read) == move, "the recorded text reads back as the same move"
        assert WIRE.decode(START, 0, [WIRE.reply(move).decode().rstrip()]) == move, (
            "the reply a bot writes for a move reads back as that move"
        )


def test_red_replies_are_read_the_same_way() -> None:
    assert WIRE.decode(START, 1, ["PLACE  +7 3 \r"]) == Place(7, 3)
    with pytest.raises(InvalidMoveError):
        WIRE.decode(START, 1, [" PLACE 7 3"])


def test_a_missing_reply_is_not_a_move() -> None:
    with pytest.raises(InvalidMoveError, match="''"):
        WIRE.decode(START, 0, [])


def test_the_opponents_colour_is_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="'PLACE 3 1'.*Red's"):
        WIRE.decode(START, 0, ["PLACE 3 1"])
    with pytest.raises(IllegalMoveError, match="'PLACE 3 2'.*Blue's"):
        WIRE.decode(START, 1, ["PLACE 3 2"])
    with pytest.raises(IllegalMoveError, match="'PLACE 3 1'.*Red's"):
        GAME.check_move(START, 0, Place(3, 1))
    assert issubclass(IllegalMoveError, ValueError)


def test_illegal_moves_in_a_position() -> None:
    state = state_from_pellets([], hand=(0, 0))
    with pytest.raises(
        IllegalMoveError, match=r"'PLACE 3 2': colour 2 is not in Blue's hand \(0 0\)"
    ):
        GAME.check_move(state, 0, Place(3, 2))
    with pytest.raises(IllegalMoveError, match="'PLACE 3 2'"):
        GAME.apply(state, {0: Place(3, 2)})
    with pytest.raises(IllegalMoveError, match="'ROTATE 1': it is Blue's move"):
        GAME.check_move(state, 1, Rotate(1))
    with pytest.raises(IllegalMoveError, match="moves came for seats"):
        GAME.apply(state, {1: Rotate(1)})
    with pytest.raises(InvalidMoveError, match="'PLACE 30 0'"):
        GAME.apply(state, {0: Place(30, 0)})
    over = GAME.apply(replace(state, bags=(94, 0, 94, 0)), {0: Rotate(1)})
    with pytest.raises(IllegalMoveError, match="'ROTATE 1': the game is over"):
        GAME.apply(over, {1: Rotate(1)})


# --- determinism, golden files, frames ------------------------------------------------------------


def test_the_same_seed_plays_the_same_game() -> None:
    regen = load_regen()
    assert regen.cluster_transcript(4) == regen.cluster_transcript(4)
    hands = {GAME.initial_state(random.Random(seed)).hand for seed in range(20)}
    assert len(hands) > 1, "different seeds deal different hands"


def test_protocol_and_replay_match_the_golden_files() -> None:
    for name, text in load_regen().cluster_golden_files().items():
        path = golden(name)
        assert path.is_file(), f"{path} is missing: run python tests/regen_golden.py"
        assert path.read_text(encoding="ascii") == text, (
            f"{name} no longer matches the engine; if the change is deliberate, "
            "run python tests/regen_golden.py and review the diff"
        )


def test_the_golden_game_ends_on_the_tie_break() -> None:
    text = golden("cluster_protocol_seed146.txt").read_text(encoding="ascii")
    assert text.count("=== init message to ") == 2 and "ROTATE" in text
    assert text.endswith(
        "=== Blue replies ===\nROTATE 2\nResult: normal, both made lines of 4 at turn 10; on the "
        "board Blue has 6 BLUE1, Red 8 RED1: Red wins, points (0.0, 1.0)\n"
    )


def frame_cell(frame: str, gravity: int, cell: int) -> str:
    """The character drawn for ``cell``: the frame is turned so gravity points down."""
    q, r = rotate(*COORDS[cell], (6 - gravity) % 6)
    return frame.split("\n")[2 + 2 * r + q + 22][3 * (q + 11)]


def test_frame_layout() -> None:
    state = GAME.initial_state(random.Random(0))
    frame = GAME.render_text(state)
    lines = frame.split("\n")
    assert len(lines) == HEIGHT and {len(line) for line in lines} == {WIDTH}
    assert frame.count(".") == CELLS and lines[2].strip() == "." and lines[-2].strip() == "."
    assert lines[-1].split() == [str(i) for i in range(23)], "the ruler numbers every column"
    assert all(lines[-1][3 * i] == str(i % 10) for i in range(23)), "its last digit under it"
    assert lines[0].startswith("gravity S  (0)") and "Blue to move" in lines[1]
    state = play(state, Place(4, 0))
    frame = GAME.render_text(state)
    assert frame.split("\n")[39][12] == "B", "BLUE0 at (-7, 11): the bottom of column 4"
    assert frame_cell(frame, 0, LINES[0][4][-1]) == "B"
    state = play(state, Rotate(2))
    frame = GAME.render_text(state)
    assert frame.split("\n")[0].startswith("gravity NW (2)")
    (cell,) = state.cells
    assert frame_cell(frame, 2, cell) == "B"
    board = frame.split("\n")[2:-1]
    assert "".join(board).count("B") == 1 and "Blue to move, hand" in frame.split("\n")[1]


# --- random playouts ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rotate_odds=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_random_playouts_keep_every_rule(seed: int, rotate_odds: float) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state(random.Random(seed))
    views = [BotView(WIRE.greeting(state, s), s) for s in (0, 1)]
    discarded = [0, 0]
    moves = 0
    while GAME.to_move(state):
        assert moves < MAX_MOVES, "the game outlived its declared length"
        seat = state.mover
        gravity, columns, hand = views[seat].read_turn(WIRE.request(state, seat))
        assert gravity == state.gravity and hand == list(state.hand)
        assert columns == list(valid_columns(state)) and columns, "some column is always open"
        assert views[seat].pellets == {
            p: (c, state.colours[p]) for p, c in enumerate(state.cells)
        }, "the messages alone tell a bot where every pellet is"
        if rng.random() < rotate_odds:
            move: Move = Rotate(rng.randint(1, 5))
            discarded[seat] += len(state.hand)
        else:
            move = Place(rng.choice(columns), rng.choice(hand))
        state = GAME.apply(state, {seat: move})
        moves += 1
        for s in (0, 1):
            held = len(state.hand) if state.mover == s and GAME.to_move(state) else 0
            on_board = sum(1 for c in state.colours if c % 2 == s)
            total = state.bags[s] + state.bags[s + 2] + held + on_board + discarded[s]
            assert total == 192, f"{GAME.info.seat_names[s]}'s pellets are all accounted for"
        assert (
            state.best
            == state_from_pellets(
                list(zip(state.cells, state.colours, strict=True)), gravity=state.gravity, hand=()
            ).best
        ), "the lines kept move by move match a recount"
        assert all(0 <= score <= MAX_LINE for score in GAME.scores(state))
        for seat_colour, scanned in zip(winning_colours(state), referee_scan(state), strict=True):
            assert scanned is None or seat_colour[1] == scanned, "the referee's scan picks colours"
        lines = GAME.render_text(state).split("\n")
        assert len(lines) == HEIGHT and {len(line) for line in lines} == {WIDTH}
    outcome = GAME.outcome(state)
    assert outcome is not None and sum(outcome.points) == 1.0
    assert outcome.termination is Termination.NORMAL


@pytest.mark.parametrize(
    "text", ["PLACE \u00b2 1", "PLACE 3 \u0661", "ROTATE \uff13", "PLACE 03 1"]
)
def test_a_recorded_move_is_written_in_plain_decimal_digits(text: str) -> None:
    """A record (perhaps a stranger's) with other digits is refused as no Cluster move, with
    the text named; int() would read some (U+0661) and fail on others (U+00B2)."""
    with pytest.raises(InvalidMoveError, match="is not a Cluster move"):
        GAME.parse_move(0, text)
