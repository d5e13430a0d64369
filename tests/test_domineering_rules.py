"""Domineering with a bomb, as settled in runner/games/domineering/rules.md.

Ground truth: hand-made positions for every kind of invalid move, bombs at the board's edges and
across dominoes, and the end for each side; a bot's-eye view that rebuilds every domino from the
request bytes alone; a golden replay and protocol transcript; the rules document's worked example
checked against the engine's bytes; and the built-in bot, run as the program it is.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from golden_texts import golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.domineering import ID, RULES, SPEC, STDIO
from runner.games.domineering.rules import (
    CELLS,
    EAST,
    EMPTY,
    FRAME_WIDTH,
    MAX_MOVES,
    NORTH,
    SIZE,
    SOUTH,
    WEST,
    Bomb,
    DomineeringState,
    Move,
    Place,
    board_from_rows,
    bomb_squares,
    crossing_domino,
    placements,
    state_from_rows,
)
from runner.games.spec import UNTIL_EXIT
from runner.play.stdio import reply_lines

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "runner" / "games" / "domineering" / "rules.md"
BUILTIN = REPO / "runner" / "games" / "domineering" / "builtin" / "first-legal" / "bot.py"
EMPTY_ROWS = "\n".join(["." * SIZE] * SIZE)
LEFT, RIGHT = 0, 1


def load_regen() -> ModuleType:
    path = Path(__file__).parent / "regen_golden_domineering.py"
    spec = importlib.util.spec_from_file_location("regen_golden_domineering", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def new_game() -> DomineeringState:
    return RULES.initial_state(random.Random(0), 2, {})


def play(state: DomineeringState, *moves: Move) -> DomineeringState:
    """Play ``moves`` in order, each for whichever seat is to move."""
    for move in moves:
        state = RULES.apply(state, {state.mover: move})
    return state


def rows_with(*marks: tuple[int, int, str]) -> str:
    """An otherwise empty board with ``text`` written from (row, col) for each mark."""
    grid = [["."] * SIZE for _ in range(SIZE)]
    for row, col, text in marks:
        for k, ch in enumerate(text):
            grid[row][col + k] = ch
    return "\n".join("".join(line) for line in grid)


def vertical(*cells: tuple[int, int]) -> list[tuple[int, int, str]]:
    """Marks for Right's dominoes with top cells ``cells``."""
    return [m for r, c in cells for m in ((r, c, "^"), (r + 1, c, "v"))]


def wire_board(request: bytes) -> list[str]:
    """The 13 rows of a request's cells, each as 13 digits."""
    cells = request.decode("ascii").split()[1 : 1 + CELLS]
    return ["".join(cells[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]


def dominoes_seen_by_a_bot(board_lines: list[str]) -> set[tuple[tuple[int, int], ...]]:
    """Every domino, rebuilt from the 13 digit lines alone: a run of 1s in a row (2s in a column)
    pairs up from its start. The set holds each domino's two cells."""
    found: set[tuple[tuple[int, int], ...]] = set()
    taken: set[tuple[int, int]] = set()
    for r in range(SIZE):
        for c in range(SIZE):
            if (r, c) in taken or board_lines[r][c] == "0":
                continue
            other = (r, c + 1) if board_lines[r][c] == "1" else (r + 1, c)
            assert other[0] < SIZE and other[1] < SIZE, f"half a domino at {(r, c)}"
            assert board_lines[other[0]][other[1]] == board_lines[r][c], "a domino has one kind"
            taken |= {(r, c), other}
            found.add(((r, c), other))
    return found


def engine_dominoes(state: DomineeringState) -> set[tuple[tuple[int, int], ...]]:
    found: set[tuple[tuple[int, int], ...]] = set()
    for index, code in enumerate(state.board):
        r, c = divmod(index, SIZE)
        if code == WEST:
            found.add(((r, c), (r, c + 1)))
        elif code == NORTH:
            found.add(((r, c), (r + 1, c)))
    return found


# --- the start and the shape ----------------------------------------------------------------------


def test_the_game_starts_empty_with_left_to_move_and_a_bomb_each() -> None:
    state = new_game()
    assert ID == "domineering-v2" and RULES.id == ID
    assert state.board == bytes(CELLS) and state.bombs == (1, 1)
    assert RULES.to_move(state) == (LEFT,), "Left moves first"
    assert RULES.turn(state) == 1 and RULES.outcome(state) is None
    moves = RULES.legal_moves(state, LEFT)
    assert len(moves) == 13 * 12 + 81, "156 horizontal placements and 81 bomb squares"
    assert moves[0] == Place(0, 0) and moves[155] == Place(12, 11) and moves[156] == Bomb(0, 0)
    assert moves[-1] == Bomb(8, 8)
    assert RULES.legal_moves(state, RIGHT) == [], "Right may not move on Left's turn"
    assert RULES.scores(state) == (0.0, 0.0)


def test_the_game_declares_its_shape() -> None:
    info = RULES.info
    assert (info.min_players, info.max_players, info.simultaneous) == (2, 2, False)
    assert SPEC.interface == "stdio-fresh", "a fresh process for every move"
    assert info.seat_names == ("Left", "Right")
    assert MAX_MOVES == 110, "84 placements fill the board, two bombs free 24 cells each: 110"
    assert STDIO.reply_lines == UNTIL_EXIT, "a move is all a bot writes until it exits"


def test_a_move_has_1_s_in_c_and_cpp_and_2_s_in_java_as_the_event_gave(tmp_path: Path) -> None:
    """The statement's rule 5, from the process's start to its exit: the example season's limits
    (the game's defaults) give C and C++ 1 s and Java 2 s, CPU and wall-clock; a season scaling
    them keeps the ratio. Python, which the event did not have, gets C's time."""
    from runner.season.config import load_config
    from runner.season.workers import bot_limits

    example = load_config(REPO / "examples" / "domineering" / "tournament.yaml")
    for language, seconds in (("c", 1.0), ("cpp", 1.0), ("java", 2.0), ("python", 1.0)):
        limits = bot_limits(example, language)
        assert (limits.move_wall_s, limits.move_cpu_s) == (seconds, seconds), language
        assert limits.game_cpu_s == 60 * seconds and limits.first_move_wall_s is None
    assert bot_limits(example).of("c") == bot_limits(example, "c"), "a C seat's limits are C's"
    written, c = bot_limits(example), bot_limits(example, "c")
    assert (written.move_wall_s, written.move_cpu_s) == (c.move_wall_s, c.move_cpu_s), (
        "the limits as written are C's"
    )
    scaled = tmp_path / "tournament.yaml"
    scaled.write_text(
        f"game: {ID}\nlimits: {{move_wall_s: 0.25, move_cpu_ms: 200, first_move_wall_s: 0.5}}\n"
    )
    c, java = bot_limits(load_config(scaled), "c"), bot_limits(load_config(scaled), "java")
    assert (c.move_wall_s, c.move_cpu_s, c.first_move_wall_s) == (0.25, 0.2, 0.5)
    assert (java.move_wall_s, java.move_cpu_s, java.first_move_wall_s) == (0.5, 0.4, 1.0)
    assert java.memory_bytes == c.memory_bytes, "only time scales"


def test_initial_state_refuses_other_seat_counts_and_settings() -> None:
    with pytest.raises(ValueError, match="2 seats, not 3"):
        RULES.initial_state(random.Random(0), 3, {})
    with pytest.raises(ValueError, match="no settings; got size"):
        RULES.initial_state(random.Random(0), 2, {"size": 9})


def test_left_places_horizontally_and_right_vertically() -> None:
    state = play(new_game(), Place(4, 7), Place(4, 9))
    assert (state.at(4, 7), state.at(4, 8)) == (WEST, EAST), "Left covers (4,7) and (4,8)"
    assert (state.at(4, 9), state.at(5, 9)) == (NORTH, SOUTH), "Right covers (4,9) and (5,9)"
    assert state.board.count(EMPTY) == CELLS - 4
    assert RULES.scores(state) == (1.0, 1.0), "a score is the seat's dominoes on the board"
    assert RULES.turn(state) == 2 and state.last == Place(4, 9)


def test_dominoes_may_touch_the_edges() -> None:
    state = play(new_game(), Place(12, 11), Place(10, 12), Place(0, 0), Place(0, 12))
    assert engine_dominoes(state) == {
        ((12, 11), (12, 12)),
        ((10, 12), (11, 12)),
        ((0, 0), (0, 1)),
        ((0, 12), (1, 12)),
    }


# --- invalid and illegal moves --------------------------------------------------------------------

BAD_SYNTAX = [
    "",
    "\n",
    "   ",
    "1 2",
    "a b c",
    "1,2,3",
    "1 2 3x",
    "move 1 2 3",
    "1 2 3.0",
    "1\x002 3",
    "1\xa02 3",  # a no-break space is not white space to Java
    "1\n2",
]


@pytest.mark.parametrize("reply", BAD_SYNTAX)
def test_replies_whose_first_three_words_are_not_integers_are_invalid(reply: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(repr(reply))):
        RULES.parse_move(LEFT, reply)


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("1 2 3", Place(2, 3)),
        ("1 2 3\n", Place(2, 3)),
        ("  1   2\t3 \r\n", Place(2, 3)),
        ("\v\f1 2 3", Place(2, 3)),
        ("1\x1c2\x1f3", Place(2, 3)),  # FS and US are white space to Java
        ("\n1\n2\n3\n", Place(2, 3)),
        ("01 02 003", Place(2, 3)),
        ("+1 -0 +3", Place(0, 3)),
        ("1 2 3 4", Place(2, 3)),
        ("1 2 3 and then some", Place(2, 3)),
        ("2 8 0", Bomb(8, 0)),
    ],
)
def test_replies_are_read_as_a_java_scanner_reads_three_ints(reply: str, move: Move) -> None:
    assert RULES.parse_move(LEFT, reply) == move, f"{reply!r} reads as {move}"


@pytest.mark.parametrize("reply", ["0 1 1", "3 1 1", "-1 1 1", "12 0 0"])
def test_a_type_other_than_1_or_2_is_invalid(reply: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(repr(reply)) + ".*type is 1"):
        RULES.parse_move(RIGHT, reply)


@pytest.mark.parametrize(
    ("seat", "reply"),
    [
        (LEFT, "1 0 12"),  # the right half would be column 13
        (LEFT, "1 13 0"),
        (LEFT, "1 -1 -1"),  # the rules' own example of a non-existent coordinate
        (RIGHT, "1 12 0"),  # the bottom half would be row 13
        (RIGHT, "1 0 13"),
        (RIGHT, "1 5 -1"),
        (LEFT, "2 9 0"),
        (RIGHT, "2 0 9"),
        (LEFT, "2 -1 4"),
        (RIGHT, "2 12 12"),
        (LEFT, "1 0 99999999999999999999999"),  # far too long for any int
        (LEFT, "-99999999999999999999999 0 0"),
    ],
)
def test_cells_off_the_board_are_invalid(seat: int, reply: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(repr(reply))):
        RULES.parse_move(seat, reply)


def test_the_last_in_range_cells_are_accepted_for_each_side() -> None:
    assert RULES.parse_move(LEFT, "1 12 11") == Place(12, 11)
    assert RULES.parse_move(RIGHT, "1 11 12") == Place(11, 12)
    assert RULES.parse_move(RIGHT, "2 8 8") == Bomb(8, 8)


def test_a_long_reply_is_quoted_cut_short() -> None:
    reply = "1 2 " + "3" * 10_000
    with pytest.raises(InvalidMoveError) as caught:
        RULES.parse_move(LEFT, reply)
    assert "'1 2 3333" in str(caught.value) and len(str(caught.value)) < 200


def test_non_text_replies_are_invalid() -> None:
    for reply in (None, 5, b"1 2 3"):
        with pytest.raises(InvalidMoveError, match=re.escape(repr(reply))):
            RULES.parse_move(LEFT, reply)  # type: ignore[arg-type]


def test_a_domino_on_a_covered_cell_is_illegal() -> None:
    state = play(new_game(), Place(4, 4), Place(3, 6))  # Right covers (3,6) and (4,6)
    with pytest.raises(IllegalMoveError, match=r"'1 4 3': \(4, 4\) already covered"):
        RULES.apply(state, {LEFT: Place(4, 3)})
    with pytest.raises(IllegalMoveError, match=r"'1 4 4': \(4, 4\) and \(4, 5\) already covered"):
        RULES.apply(state, {LEFT: Place(4, 4)})
    with pytest.raises(IllegalMoveError, match=r"'1 4 5': \(4, 5\) and \(4, 6\) already covered"):
        RULES.apply(state, {LEFT: Place(4, 5)})
    state = play(state, Place(0, 0))
    with pytest.raises(IllegalMoveError, match=r"'1 2 6': \(3, 6\) already covered"):
        RULES.apply(state, {RIGHT: Place(2, 6)})


def test_a_bomb_across_a_domino_is_illegal() -> None:
    # Right's domino (4,4)-(5,4) straddles the bottom border of the square at (0, 2).
    state = state_from_rows(rows_with(*vertical((4, 4))))
    with pytest.raises(IllegalMoveError, match=r"'2 0 2': the domino on \(4, 4\) lies partly"):
        RULES.apply(state, {LEFT: Bomb(0, 2)})
    assert Bomb(0, 2) not in RULES.legal_moves(state, LEFT)
    assert Bomb(1, 2) in RULES.legal_moves(state, LEFT), "the square at (1,2) holds it whole"


def test_a_second_bomb_is_illegal() -> None:
    state = play(new_game(), Bomb(3, 3), Place(0, 0))
    assert state.bombs == (0, 1)
    assert all(isinstance(m, Place) for m in RULES.legal_moves(state, LEFT)), "no bomb offered"
    with pytest.raises(IllegalMoveError, match="'2 0 0': Left has already used its bomb"):
        RULES.apply(state, {LEFT: Bomb(0, 0)})
    state = play(state, Place(5, 5), Bomb(8, 8), Place(12, 0))
    with pytest.raises(IllegalMoveError, match="'2 8 0': Right has already used its bomb"):
        RULES.apply(state, {RIGHT: Bomb(8, 0)})


def test_moving_out_of_turn_or_after_the_end_is_illegal() -> None:
    state = new_game()
    with pytest.raises(IllegalMoveError, match="'1 0 0': it is Left's move"):
        RULES.check_move(state, RIGHT, Place(0, 0))
    with pytest.raises(IllegalMoveError, match="moves came for seats"):
        RULES.apply(state, {RIGHT: Place(0, 0)})
    over = state_from_rows(BRICKS)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        RULES.check_move(over, LEFT, Place(0, 0))


def test_check_move_refuses_hand_made_values_off_the_board() -> None:
    with pytest.raises(InvalidMoveError, match="'1 0 12'"):
        RULES.check_move(new_game(), LEFT, Place(0, 12))
    with pytest.raises(InvalidMoveError, match="not a Domineering move"):
        RULES.check_move(new_game(), LEFT, "1 0 0")  # type: ignore[arg-type]


# --- bombs ----------------------------------------------------------------------------------------


def tiled_around(col: int) -> str:
    """Every row full of Left's dominoes, each row cut at the columns col and col + 5 (a bomb
    square's borders) and tiled from the start of each piece; an odd piece ends in an empty cell.
    """

    def tile(n: int) -> str:
        return "<>" * (n // 2) + "." * (n % 2)

    row = tile(col) + tile(5) + tile(SIZE - col - 5)
    return "\n".join([row] * SIZE)


@pytest.mark.parametrize(("row", "col"), [(0, 0), (0, 8), (8, 0), (8, 8), (0, 4), (8, 3), (5, 0)])
def test_a_bomb_at_the_edges_clears_exactly_its_square(row: int, col: int) -> None:
    full = state_from_rows(tiled_around(col))
    assert full.board.count(EMPTY) <= 3 * SIZE, "the board is all but full"
    assert crossing_domino(full.board, row, col) is None, "no domino crosses the square's border"
    after = RULES.apply(full, {LEFT: Bomb(row, col)})
    for r in range(SIZE):
        for c in range(SIZE):
            inside = row <= r < row + 5 and col <= c < col + 5
            assert (after.at(r, c) == EMPTY) == (inside or full.at(r, c) == EMPTY), (
                f"cell ({r}, {c}) is cleared exactly when it lies in the square at ({row}, {col})"
            )
    assert after.bombs == (0, 1) and after.last == Bomb(row, col)


def test_a_bomb_clears_whole_dominoes_of_both_sides() -> None:
    rows = rows_with((2, 2, "<>"), (6, 3, "<><>"), *vertical((3, 4), (4, 6), (4, 2)), (1, 1, "<>"))
    state = state_from_rows(rows, moves_played=1)  # Right to move
    before = engine_dominoes(state)
    assert crossing_domino(state.board, 2, 2) is None
    after = RULES.apply(state, {RIGHT: Bomb(2, 2)})
    assert engine_dominoes(after) == {((1, 1), (1, 2))}, "every domino within rows/cols 2-6 went"
    assert len(before) == 7
    assert after.bombs == (1, 0)
    assert STDIO.request(after, RIGHT).endswith(b" 0 \n"), "Right is told it has no bomb left"
    assert STDIO.request(after, LEFT).endswith(b" 1 \n"), "Left still has its bomb"


@pytest.mark.parametrize(
    ("marks", "corner"),
    [
        ([(5, 1, "<>")], (3, 2)),  # across the left border
        ([(5, 6, "<>")], (3, 2)),  # across the right border
        (vertical((2, 4)), (3, 2)),  # across the top border
        (vertical((7, 4)), (3, 2)),  # across the bottom border
        ([(0, 7, "<>")], (0, 8)),  # at the top edge, across the left border
        (vertical((7, 0)), (8, 0)),  # at the bottom edge, across the top border
    ],
)
def test_a_domino_across_any_border_blocks_the_square(
    marks: list[tuple[int, int, str]], corner: tuple[int, int]
) -> None:
    state = state_from_rows(rows_with(*marks))
    with pytest.raises(IllegalMoveError, match="lies partly outside the square"):
        RULES.check_move(state, LEFT, Bomb(*corner))


def test_a_domino_just_outside_the_square_does_not_block_it() -> None:
    marks = [(2, 3, "<>"), (5, 0, "<>"), (5, 7, "<>"), *vertical((1, 5), (8, 4))]
    state = state_from_rows(rows_with(*marks))
    RULES.check_move(state, LEFT, Bomb(3, 2))  # rows 3-7, cols 2-6: every domino lies outside
    after = RULES.apply(state, {LEFT: Bomb(3, 2)})
    assert engine_dominoes(after) == engine_dominoes(state), "nothing inside, nothing removed"


def test_an_empty_square_is_a_legal_target() -> None:
    after = RULES.apply(new_game(), {LEFT: Bomb(4, 4)})
    assert after.board == bytes(CELLS) and after.bombs == (0, 1) and not after.stuck


def test_bomb_squares_are_exactly_those_no_domino_crosses() -> None:
    state = state_from_rows(rows_with((4, 4, "<>"), *vertical((7, 9))))

    def cuts(r: int, c: int, cells: tuple[tuple[int, int], tuple[int, int]]) -> bool:
        inside = [r <= cr < r + 5 and c <= cc < c + 5 for cr, cc in cells]
        return inside[0] != inside[1]

    expected = [
        Bomb(r, c)
        for r in range(9)
        for c in range(9)
        if not cuts(r, c, ((4, 4), (4, 5))) and not cuts(r, c, ((7, 9), (8, 9)))
    ]
    assert len(expected) == 81 - 10 - 8 + 1, "10 squares cut Left's domino, 8 Right's, 1 both"
    assert bomb_squares(state.board) == expected


# --- the end --------------------------------------------------------------------------------------

# Left's dominoes in a brick pattern: every empty cell is alone in its row and column, and a
# domino crosses the border of every 5 × 5 square. Nobody can place, and no bomb square is usable.
BRICKS = "\n".join(["<><><><><><>.", ".<><><><><><>"] * 6 + ["<><><><><><>."])


def test_bricks_leave_no_move_at_all() -> None:
    board = board_from_rows(BRICKS)
    assert placements(board, LEFT) == [] and placements(board, RIGHT) == []
    assert bomb_squares(board) == [], "every square has a domino across its border"


@pytest.mark.parametrize("seat", [LEFT, RIGHT])
def test_no_move_even_with_a_bomb_loses(seat: int) -> None:
    state = state_from_rows(BRICKS, moves_played=seat, bombs=(1, 1))
    assert state.stuck and RULES.to_move(state) == () and RULES.legal_moves(state, seat) == []
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.termination is Termination.NORMAL
    winner = 1 - seat
    assert outcome.points[winner] == 1.0 and outcome.points[seat] == 0.0
    assert outcome.placement[winner] == 1 and outcome.placement[seat] == 2
    names = ("Left", "Right")
    assert outcome.detail == (
        f"{names[seat]} had no legal move at turn 1 (after {seat} moves): {names[winner]} wins"
    )


# Right's dominoes in columns of alternate parity, two rows at a time, over a row of Left's
# dominoes: Left cannot place, and only the square at (8, 8) cuts no domino.
ONE_SQUARE = "\n".join(
    ["^.^.^.^.^.^.^", "v.v.v.v.v.v.v", ".^.^.^.^.^.^.", ".v.v.v.v.v.v."] * 3 + ["<><><><><><>."]
)


def transposed(rows: str) -> str:
    """The board mirrored in its main diagonal: Left's dominoes become Right's and back."""
    swap = str.maketrans("<>^v", "^v<>")
    lines = rows.split()
    return "\n".join("".join(line[c] for line in lines).translate(swap) for c in range(SIZE))


@pytest.mark.parametrize("seat", [LEFT, RIGHT])
def test_a_seat_without_a_placement_must_bomb_and_loses_without_its_bomb(seat: int) -> None:
    rows = ONE_SQUARE if seat == LEFT else transposed(ONE_SQUARE)
    with_bomb = state_from_rows(rows, moves_played=seat, bombs=(1, 1))
    assert RULES.legal_moves(with_bomb, seat) == [Bomb(8, 8)], "only one square cuts no domino"
    assert placements(with_bomb.board, 1 - seat), "the other seat still has room"
    spent = state_from_rows(rows, moves_played=seat, bombs=(0, 0))
    assert spent.stuck and RULES.to_move(spent) == ()
    outcome = RULES.outcome(spent)
    assert outcome is not None and outcome.points[1 - seat] == 1.0, "the other seat wins"
    assert f"{RULES.info.seat_names[seat]} had no legal move" in outcome.detail


def test_right_runs_out_after_lefts_last_domino() -> None:
    # Right's only free pair is (11,0)-(12,0); Left covers (12,0)-(12,1) and Right is stuck.
    state = state_from_rows("\n".join(BRICKS.split()[:12] + ["..<><><><><>."]), bombs=(0, 0))
    assert RULES.legal_moves(state, LEFT) == [Place(12, 0)]
    assert placements(state.board, RIGHT) == [Place(11, 0)]
    after = RULES.apply(state, {LEFT: Place(12, 0)})
    assert after.stuck and RULES.to_move(after) == (), "Right has no vertical room and no bomb"
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.points == (1.0, 0.0)
    assert outcome.detail == "Right had no legal move at turn 1 (after 1 moves): Left wins"


def test_left_runs_out_after_rights_last_domino() -> None:
    # The same end, mirrored: Left's only free pair is (0,11)-(0,12); Right covers (0,12)-(1,12)
    # and Left, its bomb spent, has no move.
    rows = transposed("\n".join(BRICKS.split()[:12] + ["..<><><><><>."]))
    state = state_from_rows(rows, moves_played=1, bombs=(0, 0))
    assert RULES.legal_moves(state, RIGHT) == [Place(0, 12)]
    assert placements(state.board, LEFT) == [Place(0, 11)]
    after = RULES.apply(state, {RIGHT: Place(0, 12)})
    assert after.stuck and RULES.to_move(after) == (), "Left has no horizontal room and no bomb"
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.points == (0.0, 1.0)
    assert outcome.detail == "Left had no legal move at turn 2 (after 2 moves): Right wins"


def test_a_forced_bomb_clears_room_and_the_game_goes_on() -> None:
    # Left cannot place and bombs the one usable square; the board it leaves gives Right room
    # (and Left too, next turn): no side is stuck.
    state = state_from_rows(ONE_SQUARE, moves_played=0, bombs=(1, 0))
    after = RULES.apply(state, {LEFT: Bomb(8, 8)})
    assert not after.stuck and RULES.to_move(after) == (RIGHT,)
    assert after.bombs == (0, 0) and placements(after.board, LEFT), "room for Left's next turn"


# --- the protocol ---------------------------------------------------------------------------------


def test_the_first_request_is_the_arenas_one_line() -> None:
    """The settled text: ONE line, the orientation, the 169 cells row by row and the bombs left,
    each number followed by one space, then a newline (``2 0 0 0 … 0 1 \\n``, 171 numbers)."""
    state = new_game()
    assert STDIO.greeting(state, LEFT) == b"" and STDIO.greeting(state, RIGHT) == b""
    assert STDIO.request(state, LEFT) == b"1 " + b"0 " * 169 + b"1 \n"
    request = STDIO.request(state, RIGHT)
    assert request == b"2 " + b"0 " * 169 + b"1 \n", "Right's side is 2, the rest the same"
    assert len(request) == 343 and request.count(b"\n") == 1 and request.endswith(b" \n")
    assert len(request.split()) == 171


def test_a_request_shows_orientation_cells_and_bombs() -> None:
    state = play(new_game(), Place(0, 0), Place(11, 12), Bomb(6, 6))
    request = STDIO.request(state, RIGHT)
    assert re.fullmatch(rb"(?:[0-9] ){171}\n", request), "every number then one space, then LF"
    numbers = [int(word) for word in request.split()]
    assert numbers[0] == 2, "Right reads orientation 2"
    cells = numbers[1 : 1 + CELLS]
    assert cells[:SIZE] == [1, 1] + [0] * 11, "row 0 first: Left's domino on (0,0)-(0,1)"
    assert cells[11 * SIZE + 12] == cells[12 * SIZE + 12] == 2, "Right's on (11,12)-(12,12)"
    assert numbers[-1] == 1, "Right's bomb is unused"
    assert STDIO.request(state, LEFT).split()[-1] == b"0", "Left spent its bomb"


def test_decode_reads_three_integers_from_all_the_bot_wrote() -> None:
    """The settled reading: words split on any white space, newlines included; the first three
    integers are the move, anything after them is ignored; a word before them that is not an
    integer, or output that ends before three, is an invalid move."""
    state = new_game()
    assert STDIO.decode(state, LEFT, ["1", "4", "7"]) == Place(4, 7), "three lines: 1 4 7"
    assert STDIO.decode(state, LEFT, ["1 4", "7", ""]) == Place(4, 7)
    assert STDIO.decode(state, LEFT, ["", "", "  1 4 7"]) == Place(4, 7)
    assert STDIO.decode(state, LEFT, ["1 4 7 junk", "more junk", "9 9 9"]) == Place(4, 7)
    with pytest.raises(InvalidMoveError, match="nothing"):
        STDIO.decode(state, LEFT, [])
    with pytest.raises(InvalidMoveError, match="'hello' is not an integer"):
        STDIO.decode(state, LEFT, ["hello"])
    with pytest.raises(InvalidMoveError, match="'move:' is not an integer"):
        STDIO.decode(state, LEFT, ["move:", "1 4 7"])
    with pytest.raises(InvalidMoveError, match="'4x' is not an integer"):
        STDIO.decode(state, LEFT, ["1", "4x", "7"])
    with pytest.raises(InvalidMoveError, match="ends before three integers"):
        STDIO.decode(state, LEFT, ["1", "4"])
    with pytest.raises(InvalidMoveError, match="ends before three integers"):
        STDIO.decode(state, LEFT, ["", ""])


def test_move_text_reads_back() -> None:
    for seat, move in ((LEFT, Place(12, 11)), (RIGHT, Place(11, 12)), (LEFT, Bomb(8, 0))):
        text = RULES.move_text(move)
        assert "\n" not in text and RULES.parse_move(seat, text) == move


# --- random playouts ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), bomb_odds=st.sampled_from([0.0, 0.05, 0.5]))
def test_random_playouts_keep_every_rule(seed: int, bomb_odds: float) -> None:
    rng = random.Random(seed)
    state = new_game()
    while RULES.to_move(state):
        assert state.moves_played < MAX_MOVES, "the game outlived its declared length"
        seat = state.mover
        request = STDIO.request(state, seat)
        assert dominoes_seen_by_a_bot(wire_board(request)) == engine_dominoes(state), (
            "a bot rebuilds every domino from the digits alone"
        )
        moves = RULES.legal_moves(state, seat)
        assert moves, "a seat asked to move has a legal move"
        bombs = [m for m in moves if isinstance(m, Bomb)]
        places = [m for m in moves if isinstance(m, Place)]
        move = rng.choice(bombs if bombs and (rng.random() < bomb_odds or not places) else moves)
        state = RULES.apply(state, {seat: move})
        frame = RULES.render_text(state).split("\n")
        assert len(frame) == 17 and {len(line) for line in frame} == {FRAME_WIDTH}
    outcome = RULES.outcome(state)
    assert outcome is not None and sorted(outcome.points) == [0.0, 1.0]
    assert outcome.points[state.mover] == 0.0, "the seat left without a move loses"
    assert RULES.legal_moves(state, state.mover) == []


def test_legal_moves_are_exactly_the_moves_check_move_accepts() -> None:
    rng = random.Random(5)
    state = new_game()
    every: list[Move] = [Place(r, c) for r in range(SIZE) for c in range(SIZE)]
    every += [Bomb(r, c) for r in range(9) for c in range(9)]
    for step in range(70):
        seat = state.mover
        if step % 10 == 0:
            accepted = []
            for move in every:
                try:
                    RULES.check_move(state, seat, move)
                except (IllegalMoveError, InvalidMoveError):
                    continue
                accepted.append(move)
            assert accepted == RULES.legal_moves(state, seat), f"legal moves at move {step}"
        moves = RULES.legal_moves(state, seat)
        if not moves:
            break
        places = [m for m in moves if isinstance(m, Place)]
        state = RULES.apply(state, {seat: rng.choice(places or moves)})


def test_the_same_game_gives_the_same_states() -> None:
    regen = load_regen()
    assert regen.seeded_game(7) == regen.seeded_game(7)


# --- frames, golden files, the rules document -----------------------------------------------------


def test_frames_draw_each_domino_as_one_piece() -> None:
    state = play(new_game(), Place(0, 0), Place(11, 12))
    frame = RULES.render_text(state).split("\n")
    assert frame[0].rstrip() == "turn 2: Left to move (<->)   bombs: Left 1, Right 1"
    assert frame[1].rstrip() == "last: Right 1 11 12 (a domino)"
    assert frame[3].rstrip() == "    0 1 2 3 4 5 6 7 8 9 0 1 2"
    assert frame[4].rstrip() == " 0  <-> . . . . . . . . . . ."
    assert frame[15].rstrip().endswith("^") and frame[16].rstrip().endswith("v")
    assert frame[16].startswith("12  ")


def test_a_bomb_frame_marks_the_cleared_square() -> None:
    state = play(new_game(), Place(3, 3), Bomb(8, 8))
    frame = RULES.render_text(state).split("\n")
    assert frame[1].rstrip() == "last: Right 2 8 8 (a bomb cleared rows 8-12, cols 8-12: *)"
    board = [line[4:] for line in frame[4:]]
    stars = {(r, c // 2) for r, line in enumerate(board) for c, ch in enumerate(line) if ch == "*"}
    assert stars == {(r, c) for r in range(8, 13) for c in range(8, 13)}
    later = RULES.render_text(play(state, Place(0, 0)))
    assert "*" not in later, "only the frame of the bomb's move marks its square"


def test_the_final_frame_says_who_won() -> None:
    frame = RULES.render_text(state_from_rows(BRICKS, moves_played=1))
    assert frame.split("\n")[0].startswith("turn 1: Right cannot move: Left wins")
    assert not frame.endswith("\n")


def test_replay_and_protocol_match_the_golden_files() -> None:
    for name, text in load_regen().golden_files().items():
        path = golden(name)
        assert path.is_file(), f"{path} is missing: run python tests/regen_golden_domineering.py"
        assert path.read_text(encoding="ascii") == text, (
            f"{name} differs from the engine's: run python tests/regen_golden_domineering.py "
            "and review the diff"
        )


def test_the_golden_game_shows_both_bombs_and_ends_by_a_stuck_seat() -> None:
    regen = load_regen()
    played = regen.seeded_game()
    recorded = [move for state, move in played[regen.OPENING :] if isinstance(move, Bomb)]
    assert len(recorded) == 2, "the short golden game explodes both bombs"
    last = played[-1][0]
    assert last.stuck and RULES.outcome(last) is not None


def doc_block(title: str) -> str:
    """The fenced block that follows the line ``title`` in the rules document."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(title)
    block = text[start:].split("```", 2)[1]
    return block.split("\n", 1)[1]  # drop the fence's info string


def test_the_documents_example_is_the_engines_bytes() -> None:
    regen = load_regen()
    state, move = regen.seeded_game()[regen.EXAMPLE_MOVE - 1]
    assert move is not None and isinstance(move, Bomb)
    request = doc_block("Example request (move 63)")
    assert request.encode("ascii") == STDIO.request(state, state.mover), (
        "the document's example request is not what the engine sends: update the document"
    )
    reply = doc_block("Example reply (move 63)")
    assert reply == RULES.move_text(move) + "\n"
    first = doc_block("Left's first message, on the empty board")
    assert first.encode("ascii") == STDIO.request(new_game(), LEFT)
    assert "171 numbers on one line, 343 bytes" in DOC.read_text(encoding="utf-8")
    assert len(first) == 343
    after = RULES.apply(state, {state.mover: move})
    frame = doc_block("On the results site and in text replays")
    assert frame == "\n".join(line.rstrip() for line in RULES.render_text(after).split("\n")) + "\n"


def test_the_documents_reply_examples_are_what_the_host_reads() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r'^\| `(".*")` \| (.*) \|$', text, re.M)
    assert len(rows) >= 15, "the table of reply examples is in the rules document"
    for written, read in rows:
        reply = ast.literal_eval(written)
        if read.startswith("refused"):
            with pytest.raises(InvalidMoveError):
                RULES.parse_move(LEFT, reply)
        else:
            assert f"`{RULES.move_text(RULES.parse_move(LEFT, reply))}`" == read, written


def test_the_document_links_nothing_outside_the_repository() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "`domineering-v2`" in text, "the rules name the game id they describe"
    for target in re.findall(r"\]\(([^)]*)\)", text):
        assert re.match(r"https://|#", target), f"the rules link {target!r}"
    assert "shared/" not in text and "../" not in text


# --- the built-in bot -----------------------------------------------------------------------------


def ask(command: list[str], state: DomineeringState) -> Move:
    """Start the bot, write the request and wait for it to exit with its stdin still open (the
    arena never ended a bot's input); its move is all it wrote."""
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as bot:
        assert bot.stdin is not None and bot.stdout is not None
        bot.stdin.write(STDIO.request(state, state.mover))
        bot.stdin.flush()
        try:
            bot.wait(timeout=30)
        except subprocess.TimeoutExpired:
            bot.kill()
            pytest.fail(f"{command[-1]} did not exit within 30 s with its stdin open")
        written = bot.stdout.read()
        bot.stdin.close()
    return STDIO.decode(state, state.mover, reply_lines(written))


def ask_builtin(state: DomineeringState) -> Move:
    return ask([sys.executable, "-I", "-B", str(BUILTIN)], state)


def test_the_builtin_bot_plays_the_first_legal_move() -> None:
    state = play(new_game(), Place(0, 0))
    assert ask_builtin(state) == Place(0, 2), "Right's first free spot is (0,2)-(1,2)"
    for seat, rows in ((LEFT, ONE_SQUARE), (RIGHT, transposed(ONE_SQUARE))):
        cornered = state_from_rows(rows, moves_played=seat, bombs=(1, 1))
        assert ask_builtin(cornered) == Bomb(8, 8), "with no domino to place it bombs, legally"


# --- the example entries -------------------------------------------------------------------------

EXAMPLES = REPO / "examples" / "domineering" / "entries"
SOURCES = {"c": "bot.c", "cpp": "bot.cpp", "python": "bot.py"}
COMPILE = {
    "c": ["gcc", "-std=c11", "-O2", "-static", "bot.c", "-lm", "-o"],
    "cpp": ["g++", "-std=c++17", "-O2", "-static", "bot.cpp", "-o"],
}


def manifest(entry: Path) -> dict[str, str]:
    fields = {}
    for line in (entry / "entry.yaml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_the_examples_are_six_entries_in_three_languages() -> None:
    entries = sorted(p for p in EXAMPLES.iterdir() if p.is_dir())
    languages = set()
    for entry in entries:
        fields = manifest(entry)
        assert fields["name"] == entry.name, f"{entry.name}: entry.yaml names its folder"
        assert fields["author"] and fields["description"], f"{entry.name}: author, description"
        assert (entry / SOURCES[fields["language"]]).is_file(), f"{entry.name}: its source file"
        languages.add(fields["language"])
    assert len(entries) >= 6 and languages == {"c", "cpp", "python"}


def example_command(entry: Path, build: Path) -> list[str]:
    language = manifest(entry)["language"]
    if language == "python":
        return [sys.executable, "-I", "-B", str(entry / "bot.py")]
    if shutil.which(COMPILE[language][0]) is None:
        pytest.skip(f"no {COMPILE[language][0]} to build {entry.name}")
    program = build / entry.name
    subprocess.run([*COMPILE[language], str(program)], cwd=entry, check=True, timeout=120)
    return [str(program)]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_each_example_answers_legally_as_left_and_right(name: str, tmp_path: Path) -> None:
    command = example_command(EXAMPLES / name, tmp_path)
    positions = [
        new_game(),
        play(new_game(), Place(6, 5)),
        state_from_rows(ONE_SQUARE, moves_played=0),  # must bomb, on the one usable square
        state_from_rows(transposed(ONE_SQUARE), moves_played=1),
    ]
    for state in positions:
        RULES.check_move(state, state.mover, ask(command, state))
