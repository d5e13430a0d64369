"""Cluster rules, as settled in shared/rules/cluster.md.

Ground truth: the rules file's geometry re-derived here independently, hand-built positions for
gravity, rotation, lines, the tie-break and empty bags, a bot that rebuilds the board from the
protocol messages alone, and a golden protocol transcript and replay.
"""

from __future__ import annotations

import importlib.util
import random
from collections import deque
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.cluster import (
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
GOLDEN = Path(__file__).parent / "golden"
DIRECTIONS = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]  # S SW NW N NE SE, as the rules
WIDTH, HEIGHT = 67, 49  # render_text's frame


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
    assert lines[-1] == "", "a message ends with a newline"
    parts = {"gravity": lines[:1]}
    at_line = 1
    for name in ("columns", "new", "moved", "hand"):
        count = int(lines[at_line])
        parts[name] = lines[at_line + 1 : at_line + 1 + count]
        at_line += 1 + count
    assert at_line == len(lines) - 1, "nothing follows the hand"
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
        lines = GAME.init_message(state, seat).decode("ascii").split("\n")
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


def test_hands_come_from_the_seeded_generator_in_order() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        blue = tuple(2 * rng.randrange(2) for _ in range(2))
        state = GAME.initial_state(random.Random(seed))
        assert state.hand == blue, "Blue draws two, each colour 0 or 2 by rng.randrange(2)"
        after = GAME.apply(state, {0: Place(11, blue[0])})
        red = tuple(1 + 2 * rng.randrange(2) for _ in range(2))
        assert after.hand == red, "Red's draws continue the same generator"


def test_first_turn_message_is_exact() -> None:
    state = GAME.initial_state(random.Random(3))
    tops = "".join(f"{i} {TOPS[0][i]}\n" for i in range(23))
    hand = "".join(f"{c}\n" for c in state.hand)
    expected = f"0\n23\n{tops}0\n0\n2\n{hand}"
    assert GAME.observation(state, 0).decode("ascii") == expected


def test_turn_messages_show_new_pellets_of_both_players_and_every_rotation() -> None:
    state = state_from_pellets([])
    state = play(state, Place(11, 0))  # pellet 0, Blue
    state = play(state, Place(11, 1))  # pellet 1, Red
    blue = blocks(GAME.observation(state, 0))
    assert blue["new"] == [f"0 {at(0, 11)} 0 1", f"1 {at(0, 10)} 1 0"], (
        "Blue is told of its own pellet (is_mine 1) and Red's (0), with their cells"
    )
    assert blue["moved"] == [] and blue["hand"] == [str(c) for c in state.hand]
    state = play(state, Rotate(3))  # Blue rotates: both pellets fall to the north end
    red = blocks(GAME.observation(state, 1))
    assert red["gravity"] == ["3"] and red["hand"] == [str(c) for c in state.hand]
    assert red["new"] == [f"1 {at(0, -11)} 1 1"], "Red's own pellet, where it lies now"
    assert red["moved"] == [f"0 {at(0, -10)}", f"1 {at(0, -11)}"], "the stack turned over"
    state = play(state, Place(0, 1))  # pellet 2, Red: column 0 under N ends at (11, -11)
    blue = blocks(GAME.observation(state, 0))
    assert blue["new"] == [f"2 {at(11, -11)} 1 0"]
    assert blue["moved"] == [f"0 {at(0, -10)}", f"1 {at(0, -11)}", f"2 {at(11, -11)}"], (
        "Blue hears of its own rotation too: every pellet on the board, the new one included"
    )
    state = play(state, Place(5, 0))
    state = play(state, Place(5, 1))
    assert blocks(GAME.observation(state, 0))["moved"] == [], "no rotation since Blue last read"


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
        assert next(lines) == "" and next(lines, None) is None, "nothing after the hand"
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
    assert f"\n0 {TOPS[0][0]}\n" not in GAME.observation(state, 0).decode("ascii")
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


def test_the_winning_colour_is_the_longer_line_then_the_more_numerous() -> None:
    four = [(at(0, 11 - k), 0) for k in range(4)]
    other = [(at(-1, 11 - k), 2) for k in range(4)] + [(at(5, 6), 2)]
    red = [(at(-5, 11 - k), 1) for k in range(4)] + [(at(-6, 11 - k), 3) for k in range(3)]
    state = state_from_pellets(four + other + red)
    assert winning_colours(state) == ((5, 2), (4, 1)), "Blue's two 4-lines: BLUE1 has more"


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
    assert GAME.observation(after, 1).endswith(b"\n1\n1\n"), "the message shows a hand of one"
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

INVALID = [
    "",
    "\n",
    "PLACE",
    "PLACE 1",
    "PLACE 1 0 0",
    "PLACE  1 0",
    " PLACE 1 0",
    "PLACE 1 0 ",
    "place 1 0",
    "PLACE 1,0",
    "PLACE 23 0",
    "PLACE -1 0",
    "PLACE 1 4",
    "PLACE 1 -2",
    "PLACE \u0661 0",
    "PLACE 1234567890 0",
    "ROTATE",
    "ROTATE 0",
    "ROTATE 6",
    "ROTATE -1",
    "ROTATE 1 1",
    "PLACE 1 0\n\n",
    "rotate 2",
]


@pytest.mark.parametrize("reply", INVALID)
def test_replies_that_are_no_move_are_invalid(reply: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.parse_move(0, reply)
    assert repr(reply) in str(caught.value), "the message quotes the reply"


def test_a_reply_must_be_text() -> None:
    with pytest.raises(InvalidMoveError, match="65"):
        GAME.parse_move(0, 65)


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("PLACE 0 0", Place(0, 0)),
        ("PLACE 22 2\n", Place(22, 2)),
        ("PLACE 07 2\r\n", Place(7, 2)),
        ("ROTATE 5", Rotate(5)),
        ("ROTATE 1\n", Rotate(1)),
    ],
)
def test_well_formed_replies_read_and_round_trip(reply: str, move: Move) -> None:
    assert GAME.parse_move(0, reply) == move
    assert GAME.parse_move(0, GAME.move_text(move)) == move


def test_the_opponents_colour_is_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="'PLACE 3 1'.*Red's"):
        GAME.parse_move(0, "PLACE 3 1")
    with pytest.raises(IllegalMoveError, match="'PLACE 3 2'.*Blue's"):
        GAME.parse_move(1, "PLACE 3 2")
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
        path = GOLDEN / name
        assert path.is_file(), f"{path} is missing: run python tests/regen_golden.py"
        assert path.read_text(encoding="ascii") == text, (
            f"{name} no longer matches the engine; if the change is deliberate, "
            "run python tests/regen_golden.py and review the diff"
        )


def test_the_golden_game_ends_on_the_tie_break() -> None:
    text = (GOLDEN / "cluster_protocol_seed3.txt").read_text(encoding="ascii")
    assert text.count("=== init message to ") == 2 and "ROTATE" in text
    assert text.endswith(
        "both made lines of 4 at turn 8; on the board Blue has 4 BLUE0, "
        "Red 5 RED1: Red wins, points (0.0, 1.0)\n"
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
    assert frame.count(".") == CELLS and lines[2].strip() == "." and lines[-3].strip() == "."
    assert lines[-1].split() == [str(i % 10) for i in range(23)], "the units of the ruler"
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
    board = frame.split("\n")[2:-2]
    assert "".join(board).count("B") == 1 and "Blue to move, hand" in frame.split("\n")[1]


# --- random playouts ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rotate_odds=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_random_playouts_keep_every_rule(seed: int, rotate_odds: float) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state(random.Random(seed))
    views = [BotView(GAME.init_message(state, s), s) for s in (0, 1)]
    discarded = [0, 0]
    moves = 0
    while GAME.to_move(state):
        assert moves < MAX_MOVES, "the game outlived its declared length"
        seat = state.mover
        gravity, columns, hand = views[seat].read_turn(GAME.observation(state, seat))
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
        lines = GAME.render_text(state).split("\n")
        assert len(lines) == HEIGHT and {len(line) for line in lines} == {WIDTH}
    outcome = GAME.outcome(state)
    assert outcome is not None and sum(outcome.points) == 1.0
    assert outcome.termination is Termination.NORMAL
