"""Snakes (round 1) rules, as runner/games/snakes/rules.md states them.

Ground truth comes from three places: the challenge text's ten example frames (kept as facts in
tests/data/snakes_seed_frames.txt), hand-built positions for the edge cases, and a deliberately
plain reference implementation of the rules (a list of characters and a breadth-first search)
that the fast bitboard engine must match move for move.
"""

from __future__ import annotations

import importlib.util
import random
import re
from collections import deque
from pathlib import Path
from types import ModuleType

import pytest
from golden_texts import golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.snakes import (
    MOVES,
    Snakes,
    SnakesCall,
    SnakesState,
    changed_cells,
    frame_changes,
    state_from_text,
)

GAME = Snakes()
CALL = SnakesCall()
SEED_FRAMES = Path(__file__).parent / "data" / "snakes_seed_frames.txt"

# (X's moves, O's moves) leading to the challenge's frames 2..10: X's read off the frames, O's
# reconstructed to fit every visible row (runner/games/snakes/rules.md, "The challenge's frames").
SEED_MOVES = [
    ("DDDDDRRRRR", "LLLLLUUUUU"),
    ("UUUU", "RRRR"),
    ("U", "R"),
    ("RRRRRR", "UUUUUU"),
    ("DDDLLLL", "LLLDDDR"),
    ("L", "R"),
    ("DDRRRRRRRR", "DLLLLLLLLL"),
    ("LDDRRRRRRRRU", "LLLLUUUUDUDU"),
    ("UUUUU", "ULLLL"),
]
# (14, 5) reads '.' in the last two seed frames though X's head stood there: an editing slip.
SEED_SLIPS = {9: {(14, 5)}, 10: {(14, 5)}}
FRAME_ROW = re.compile(r"[.XO*@]{32}")


def new_game() -> SnakesState:
    return GAME.initial_state(random.Random(0))


def play(state: SnakesState, moves: str) -> SnakesState:
    """Play ``moves`` in order, each for whichever side is to move."""
    for move in moves:
        (seat,) = GAME.to_move(state)
        state = GAME.apply(state, {seat: move})
    return state


def seed_play(transitions: int) -> SnakesState:
    state = new_game()
    for xs, os in SEED_MOVES[:transitions]:
        assert len(xs) == len(os), "each transition of the seed table has as many X as O moves"
        state = play(state, "".join(x + o for x, o in zip(xs, os, strict=True)))
    return state


def cell(state: SnakesState, x: int, y: int) -> str:
    return chr(state.frame[y * 32 + x])


# --- the seed's frames -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seed_frames() -> list[list[str | None]]:
    """The ten frames of the challenge text, each 16 rows; a row mangled in the published copy
    (written '?' in the data file) is None."""
    text = SEED_FRAMES.read_text(encoding="ascii")
    body = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
    frames: list[list[str | None]] = []
    for block in body.strip("\n").split("\n\n"):
        rows = block.split("\n")
        assert all(row == "?" or FRAME_ROW.fullmatch(row) for row in rows), "32 symbols or '?'"
        frames.append([None if row == "?" else row for row in rows])
    assert len(frames) == 10, f"the challenge shows 10 frames, found {len(frames)}"
    for number, frame in enumerate(frames, 1):
        assert len(frame) == 16, f"seed frame {number} has {len(frame)} rows, not 16"
    return frames


@pytest.mark.parametrize("number", range(1, 11))
def test_seed_table_reproduces_every_visible_row(
    seed_frames: list[list[str | None]], number: int
) -> None:
    state = seed_play(number - 1)
    assert GAME.outcome(state) is None, f"the game should still run at seed frame {number}"
    ours = GAME.render_text(state).split("\n")
    mismatches = []
    for y, row in enumerate(seed_frames[number - 1]):
        if row is None:
            continue
        for x in range(32):
            if (x, y) not in SEED_SLIPS.get(number, set()) and row[x] != ours[y][x]:
                mismatches.append(f"({x}, {y}) seed {row[x]!r} ours {ours[y][x]!r}")
    assert not mismatches, f"frame {number} differs from the seed at " + ", ".join(mismatches)


def test_seed_frames_show_o_head_only_in_mangled_rows(seed_frames: list[list[str | None]]) -> None:
    for number, frame in enumerate(seed_frames, 1):
        ours = GAME.render_text(seed_play(number - 1)).split("\n")
        (head_row,) = (y for y, row in enumerate(ours) if "@" in row)
        assert frame[head_row] is None, f"O's head row {head_row} in frame {number} is visible"


def test_seed_game_ends_with_x_suffocating_o() -> None:
    before = seed_play(len(SEED_MOVES))
    assert GAME.to_move(before) == (0,), "X moves first in the final turn"
    after = GAME.apply(before, {0: "U"})
    outcome = GAME.outcome(after)
    assert outcome is not None, "X's last move should end the game"
    assert outcome.termination is Termination.SUFFOCATION
    assert outcome.points == (1.0, 0.0), "the encloser X wins"
    assert outcome.detail == "O was enclosed by X at turn 57"
    assert GAME.to_move(after) == (), "O's last move is not played"
    with pytest.raises(IllegalMoveError):
        GAME.apply(after, {1: "L"})
    x_cells, o_cells = GAME.scores(after)
    assert x_cells - GAME.scores(before)[0] == 64, "X's new head cell and the 63-cell pocket"
    assert 512 - x_cells == 362, "362 cells stay outside the pocket; O's dead head is X's cell"
    assert o_cells == after.frame.count(b"O"), "O keeps only its drawn territory, not its head"
    assert after.frame.count(b"@") == 1, "O's dead head is still drawn"


# --- a plain reference implementation of snakes.md ---------------------------------------------


class Reference:
    """snakes.md read literally: characters in a list, a breadth-first search after every move."""

    def __init__(self) -> None:
        self.cells = list(GAME.render_text(new_game()).replace("\n", ""))
        self.moves = 0
        self.suffocated: int | None = None
        self.dead_head_owner = ""

    def play(self, move: str) -> None:
        seat = self.moves % 2
        head, land, enemy_head = ("*", "X", "@") if seat == 0 else ("@", "O", "*")
        here = self.cells.index(head)
        dx, dy = {"L": (-1, 0), "R": (1, 0), "U": (0, -1), "D": (0, 1)}[move]
        x, y = here % 32 + dx, here // 32 + dy
        self.moves += 1
        if 0 <= x < 32 and 0 <= y < 16 and self.cells[y * 32 + x] != enemy_head:
            self.cells[here] = land
            self.cells[y * 32 + x] = head
        groups: list[list[int]] = []
        seen: set[int] = set()
        for start in range(512):  # row-major, so each group's first cell is its start
            if start in seen or self.cells[start] in (head, land):
                continue
            group, queue = [], deque([start])
            seen.add(start)
            while queue:
                i = queue.popleft()
                group.append(i)
                cx, cy = i % 32, i // 32
                for nx, ny in ((cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)):
                    n = ny * 32 + nx
                    ok = 0 <= nx < 32 and 0 <= ny < 16 and n not in seen
                    if ok and self.cells[n] not in (head, land):
                        seen.add(n)
                        queue.append(n)
            groups.append(group)
        victim = self.cells.index(enemy_head)
        kept = max(groups, key=lambda g: (len(g), victim in g, -g[0]))
        for group in groups:
            if group is not kept:
                for i in group:
                    if i == victim:
                        self.suffocated = 1 - seat
                        self.dead_head_owner = land
                    else:
                        self.cells[i] = land

    @property
    def text(self) -> str:
        return "\n".join("".join(self.cells[y * 32 : y * 32 + 32]) for y in range(16))

    @property
    def counts(self) -> tuple[int, int]:
        """Cells per side: its territory and head, the dead head's cell counted for its encloser."""
        counts = [self.cells.count("X") + 1, self.cells.count("O") + 1]
        if self.suffocated is not None:
            counts[self.suffocated] -= 1
            counts[1 - self.suffocated] += 1
        return counts[0], counts[1]


stretches = st.lists(st.tuples(st.sampled_from(MOVES), st.integers(1, 9)), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(x_plan=stretches, o_plan=stretches)
def test_engine_matches_the_reference(
    x_plan: list[tuple[str, int]], o_plan: list[tuple[str, int]]
) -> None:
    xs = "".join(m * n for m, n in x_plan)
    os = "".join(m * n for m, n in o_plan)
    state, ref = new_game(), Reference()
    for i in range(min(len(xs), len(os)) * 2):
        move = (xs if i % 2 == 0 else os)[i // 2]
        state = GAME.apply(state, {i % 2: move})
        ref.play(move)
        assert GAME.render_text(state) == ref.text, f"the frames differ after move {i + 1}"
        assert state.suffocated == ref.suffocated, f"suffocation differs after move {i + 1}"
        assert GAME.scores(state) == ref.counts, f"the cell counts differ after move {i + 1}"
        if ref.suffocated is not None:
            break


@pytest.mark.parametrize("seed", [7, 21])
def test_engine_matches_the_reference_over_a_whole_game(seed: int) -> None:
    rng = random.Random(seed)
    state, ref = new_game(), Reference()
    while GAME.to_move(state):
        move = rng.choice(MOVES)
        state = GAME.apply(state, {GAME.to_move(state)[0]: move})
        ref.play(move)
        assert GAME.render_text(state) == ref.text, f"frames differ after {ref.moves} moves"
        assert GAME.scores(state) == ref.counts, f"cell counts differ after {ref.moves} moves"
    assert state.suffocated == ref.suffocated, "the reference and the engine end differently"


# --- properties of every position -----------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stretchy=st.booleans())
def test_invariants_hold_through_a_random_game(seed: int, stretchy: bool) -> None:
    rng = random.Random(seed)
    state = new_game()
    streak = ["L", "L"]
    while GAME.to_move(state):
        (seat,) = GAME.to_move(state)
        if not stretchy or rng.random() < 0.2:
            streak[seat] = rng.choice(MOVES)
        state = GAME.apply(state, {seat: streak[seat]})
        frame = state.frame
        assert len(frame) == 512, "a frame has 512 cells"
        assert not frame.translate(None, b".XO*@"), "every cell is one of . X O * @"
        assert frame.count(b"*") == 1 and frame.count(b"@") == 1, "each head is drawn once"
        assert not state.owned[0] & state.owned[1], "no cell belongs to both sides"
        assert state.owned[0] | state.owned[1] == sum(
            1 << (i // 32 * 33 + i % 32) for i, c in enumerate(frame) if c != ord(".")
        ), "every drawn cell but '.' is owned, and nothing else"
        drawn = [frame.count(b"X") + 1, frame.count(b"O") + 1]
        for side in (0, 1):
            if side == state.suffocated:
                assert not state.owned[side] >> state.heads[side] & 1, "a dead head's cell is lost"
                drawn[side] -= 1
                drawn[1 - side] += 1
            else:
                assert state.owned[side] >> state.heads[side] & 1, "a head is on its own territory"
        assert GAME.scores(state) == tuple(drawn), "cells counted, a dead head for its encloser"
        assert state.moves_played <= 2048, "the game ends by move 2048"
    outcome = GAME.outcome(state)
    assert outcome is not None, "a finished game has an outcome"
    assert GAME.to_move(state) == (), "nobody moves in a finished game"
    if outcome.termination is Termination.NORMAL:
        assert state.moves_played == 2048, "only a full game ends normally"


# --- edge cases ------------------------------------------------------------------------------


def test_x_moves_first_and_turns_alternate() -> None:
    state = new_game()
    seen = []
    for _ in range(4):
        seen.append((GAME.turn(state), GAME.to_move(state)))
        state = play(state, "D")
    assert seen == [(1, (0,)), (1, (1,)), (2, (0,)), (2, (1,))], "X then O in each turn"
    with pytest.raises(IllegalMoveError):
        GAME.apply(state, {1: "L"})


def test_move_off_the_board_is_a_no_op_that_uses_the_turn() -> None:
    start = new_game()
    state = play(start, "UD")  # X bumps the top edge; O bumps the bottom edge
    assert state.frame == start.frame, "moving off the board changes nothing"
    assert state.moves_played == 2 and GAME.turn(state) == 2, "the no-op still uses the turn"
    assert play(start, "LR").frame == start.frame, "moving off the side changes nothing"


def test_move_onto_the_enemy_head_is_a_no_op() -> None:
    rows = ["." * 32] * 16
    rows[0] = "XX*@OO" + "." * 26
    state = state_from_text("\n".join(rows))
    after = GAME.apply(state, {0: "R"})
    assert after.frame == state.frame, "X may not step onto O's head"
    assert GAME.apply(after, {1: "L"}).frame == state.frame, "O may not step onto X's head"


def test_walking_onto_enemy_territory_captures_it() -> None:
    rows = ["." * 32] * 16
    rows[0] = "X*OOO@" + "." * 26
    state = GAME.apply(state_from_text("\n".join(rows)), {0: "R"})
    assert GAME.render_text(state).split("\n")[0].startswith("XX*OO@"), "X's head took the cell"
    assert GAME.scores(state) == (3, 3), "the captured cell moved from O's count to X's"


def test_enclosure_against_the_board_edge_fills_and_captures() -> None:
    rows = ["." * 32] * 16
    rows[0] = "OX" + "." * 27 + "..@"
    rows[1] = ".*" + "." * 30
    state = GAME.apply(state_from_text("\n".join(rows)), {0: "L"})
    assert cell(state, 0, 0) == "X", "the corner pocket against the edges becomes X's"
    assert cell(state, 0, 1) == "*", "X's head moved into the corner pocket's wall"
    assert GAME.scores(state) == (4, 1), "X gained its new cell and the captured O cell"
    assert GAME.outcome(state) is None, "O's head was not in the pocket"


def test_a_suffocated_heads_cell_counts_for_the_encloser_and_keeps_its_symbol() -> None:
    rows = ["." * 32] * 16
    rows[0] = "@X" + "." * 30
    rows[1] = ".*" + "." * 30
    before = state_from_text("\n".join(rows))
    assert GAME.scores(before) == (2, 1), "O owns its head cell before X moves"
    after = GAME.apply(before, {0: "L"})  # X closes the corner: the pocket is O's head alone
    assert GAME.render_text(after).split("\n")[:2] == ["@X" + "." * 30, "*X" + "." * 30], (
        "O's dead head is still drawn; X's head moved under it"
    )
    assert GAME.scores(after) == (4, 0), "the whole pocket, O's head cell included, is X's"
    assert after.owned[0] >> after.heads[1] & 1 and not after.owned[1], "X owns the dead head"
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.termination is Termination.SUFFOCATION
    assert outcome.points == (1.0, 0.0) and outcome.detail == "O was enclosed by X at turn 1"
    assert changed_cells(before, after) == [(32, "*"), (33, "X")], "the '@' cell reads the same"
    with pytest.raises(ValueError, match="split"):
        state_from_text(GAME.render_text(after))  # play never goes on from a suffocation


TIE_WITH_O_HEAD = """\
XXXXXXXXXXXXXXXX................
...............X................
...............X................
...............X................
...@...........X................
...............X................
...............X................
...............X................
................................
...............*................
...............X................
...............X................
...............X................
...............X................
...............XXXXXXXXXXXXXXXX.
...............XXXXXXXXXXXXXXXXX"""

TIE_WITH_O_HEAD_IN_A_POCKET = """\
XXXXXXXXXXXXXXXX................
...............X................
...............X................
...............X................
...............X................
...............X................
...............X................
..............X@X...............
................................
...............*................
...............X................
...............X................
...............X................
...............X................
...............XXXXXXXXXXXXXXXX.
...............XXXXXXXXXXXXXXXXX"""


def region_text(state: SnakesState, xs: range) -> str:
    return "".join(cell(state, x, y) for y in range(16) for x in xs)


def test_tie_for_largest_keeps_the_group_with_the_enemy_head() -> None:
    # X closes the wall at (15, 8): left and right are 225 cells each; the right one comes first
    # in row-major order, but the left one holds O's head, so the right one is filled.
    state = GAME.apply(state_from_text(TIE_WITH_O_HEAD), {0: "U"})
    assert region_text(state, range(16, 32)) == "X" * 256, "the group without O's head is filled"
    assert region_text(state, range(15)).count(".") == 224, "the group with O's head is kept"
    assert GAME.outcome(state) is None, "O's head was in the kept group"


def test_tie_without_the_enemy_head_keeps_the_first_group_in_row_major_order() -> None:
    # Left and right are 224 cells each; O's head is alone in a third, 1-cell pocket. The right
    # group holds (16, 0), which comes before the left group's (0, 1) in row-major order (though
    # not in column-major order): the right one is kept, the left one and the pocket are filled.
    state = GAME.apply(state_from_text(TIE_WITH_O_HEAD_IN_A_POCKET), {0: "U"})
    assert region_text(state, range(15)) == "X" * 240, "the later tied group is filled"
    assert region_text(state, range(16, 32)).count(".") == 224, "the first tied group is kept"
    assert cell(state, 15, 7) == "@", "O's dead head stays drawn where it was enclosed"
    assert GAME.scores(state) == (512 - 224, 0), "X owns all but the kept group, O's head too"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.termination is Termination.SUFFOCATION
    assert outcome.points == (1.0, 0.0) and outcome.detail == "O was enclosed by X at turn 1"


def test_the_full_game_is_scored_by_cells() -> None:
    rows = ["." * 32] * 16
    rows[0] = "XXX*" + "." * 27 + "@"
    state = state_from_text("\n".join(rows), moves_played=2046)
    late = GAME.apply(state, {0: "R"})
    assert GAME.outcome(late) is None, "move 2047 does not end the game"
    end = GAME.apply(late, {1: "D"})
    assert GAME.to_move(end) == (), "the game ends after move 2048"
    outcome = GAME.outcome(end)
    assert outcome is not None and outcome.termination is Termination.NORMAL
    assert outcome.points == (1.0, 0.0) and outcome.detail == "X 5 cells, O 2 cells"
    even = ["X*" + "." * 30] + ["." * 32] * 14 + ["." * 30 + "O@"]
    tie = GAME.apply(state_from_text("\n".join(even), moves_played=2047), {1: "R"})
    outcome = GAME.outcome(tie)
    assert outcome is not None and outcome.points == (0.5, 0.5), "equal counts draw"


def test_unreachable_positions_are_refused() -> None:
    rows = ["." * 32] * 16
    rows[0] = ".X*" + "." * 28 + "@"
    rows[1] = "XX" + "." * 30
    with pytest.raises(ValueError, match="split"):
        state_from_text("\n".join(rows))


# --- the bot interface and text ------------------------------------------------------------


def test_a_bots_request_is_the_frame_and_the_player() -> None:
    state = seed_play(3)
    for seat, player in ((0, b"X"), (1, b"O")):
        seen = CALL.request(state, seat)
        assert len(seen) == CALL.abi.request_size == 513, "512 cells and the player character"
        assert seen[:512] == GAME.render_text(state).replace("\n", "").encode()
        assert seen[512:] == player


@pytest.mark.parametrize("move", ["L", "R", "U", "D"])
def test_the_four_moves_are_the_ints_a_bot_returns(move: str) -> None:
    state = seed_play(3)
    assert CALL.decode(state, 0, ord(move)) == move
    assert CALL.decode(state, 1, CALL.reply(move)) == move, "the reply for a move reads back"
    assert GAME.parse_move(1, GAME.move_text(move)) == move, "move text reads back"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (81, "returned 81 ('Q'), not one of 'L', 'R', 'U', 'D'"),
        (0, "returned 0, not one of 'L', 'R', 'U', 'D'"),
        (-1, "returned -1, not one of"),
        (ord("l"), "returned 108 ('l'), not one of"),
        (ord("L") + 256, "returned 332, not one of"),
    ],
)
def test_a_bad_return_value_is_named(value: int, message: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        CALL.decode(seed_play(3), 0, value)
    assert message in str(caught.value)


@pytest.mark.parametrize("text", ["LR", "", "l", "Q"])
def test_move_text_is_one_of_the_four_letters(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=repr(text)):
        GAME.parse_move(0, text)


def test_changed_cells_lists_exactly_the_differences() -> None:
    before = seed_play(2)
    after = GAME.apply(before, {0: "U"})  # closes X's first pocket
    expected = [
        (i, chr(b))
        for i, (a, b) in enumerate(zip(before.frame, after.frame, strict=True))
        if a != b
    ]
    assert changed_cells(before, after) == expected
    assert len(expected) == 22, "the head moved and a 4 x 5 pocket was filled"


def load_regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_golden", Path(__file__).parent / "regen_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_text_frames_match_the_golden_files() -> None:
    files: dict[str, str] = load_regen().golden_files()
    for name, text in files.items():
        path = golden(name)
        assert path.is_file(), f"{path} is missing: run python tests/regen_golden.py"
        assert path.read_text(encoding="ascii") == text, (
            f"{name} no longer matches the engine; if the change is deliberate, "
            "run python tests/regen_golden.py and review the diff"
        )


def test_frames_have_the_seed_format() -> None:
    text = golden("snakes_initial.txt").read_text(encoding="ascii")
    rows = text.removesuffix("\n").split("\n")
    assert len(rows) == 16 and all(FRAME_ROW.fullmatch(r) for r in rows), "16 rows of 32 symbols"
    assert rows[0] == "*" + "." * 31 and rows[15] == "." * 31 + "@", "the seed's first frame"
    assert not GAME.render_text(new_game()).endswith("\n"), "no trailing newline"


def test_frame_changes_are_exactly_the_characters_the_drawn_frames_differ_in() -> None:
    """Over random games (steps off the board, steps onto the other head, fills, enclosures):
    every changed character of ``render_text``, with what it was and what it became."""
    kinds = {"no-op": 0, "two cells": 0, "fill": 0}
    for seed in range(40):
        rng = random.Random(seed)
        state = GAME.initial_state(rng)
        while GAME.to_move(state):
            after = GAME.apply(state, {GAME.to_move(state)[0]: rng.choice(MOVES)})
            drawn = GAME.render_text(state), GAME.render_text(after)
            expected = [(i, a, b) for i, (a, b) in enumerate(zip(*drawn, strict=True)) if a != b]
            assert frame_changes(state, after) == expected
            kinds["no-op" if not expected else "two cells" if len(expected) == 2 else "fill"] += 1
            state = after
    assert all(kinds.values()), kinds
