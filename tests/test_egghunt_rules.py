"""Easter Egg Hunt rules (egghunt-v1), as runner/games/egghunt/rules.md states them.

Ground truth: small boards drawn by hand, one per resolution rule (each fight pair with two movers
and with a stayer, crowds, chains of returns, swaps, wall bumps, the three egg actions); board
generation re-implemented here from the documented sequence of draws; properties of random boards
and random playouts (hypothesis); the codec byte for byte; the worked example in the rules
document; the built-in bot.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.egghunt import BUILTIN, ID, RULES, SPEC, STDIO
from runner.games.egghunt.codec import clean_memory, view
from runner.games.egghunt.rules import (
    MAX_PLAYERS,
    MEMORY_LIMIT,
    EggHuntState,
    Fight,
    Move,
    generate_board,
    picture,
    state_from_picture,
)

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "runner" / "games" / "egghunt" / "rules.md"
# The keypad as the original text draws it, 9 (stay) in the middle: digit -> (dx, dy), y down.
LAYOUT = ("123", "894", "765")
KEYPAD = {
    int(c): (x - 1, y - 1) for y, row in enumerate(LAYOUT) for x, c in enumerate(row) if c != "9"
}
# Who wins a fight, written out from the rules: A beats N, N beats C, C beats A.
WINNER = {
    ("A", "A"): None,
    ("A", "C"): "C",
    ("A", "N"): "A",
    ("C", "A"): "C",
    ("C", "C"): None,
    ("C", "N"): "N",
    ("N", "A"): "A",
    ("N", "C"): "N",
    ("N", "N"): None,
}


def board(
    *rows: str, memories: tuple[str, ...] = (), eggs_held: tuple[int, ...] = ()
) -> EggHuntState:
    """A position from a picture; a picture wider than tall gets empty rows added above its
    last row, so hand-drawn boards stay short while the board is square."""
    width = len(rows[0])
    filler = ("#" + " " * (width - 2) + "#",) * (width - len(rows))
    return state_from_picture(rows[:-1] + filler + rows[-1:], memories, eggs_held)


def turn(state: EggHuntState, moves: dict[str, str]) -> EggHuntState:
    """Play one turn; seats named by letter, moves in move text ('4 N'); unnamed seats stay."""
    chosen = {seat: Move(9, "N", state.memories[seat]) for seat in range(state.players)}
    for letter, text in moves.items():
        seat = ord(letter) - ord("A")
        chosen[seat] = RULES.parse_move(seat, text)
    return RULES.apply(state, chosen)


def where(state: EggHuntState) -> list[str]:
    return picture(state)


# --- moves and walls --------------------------------------------------------------------------


@pytest.mark.parametrize("direction", sorted(KEYPAD))
def test_each_keypad_digit_steps_its_way(direction: int) -> None:
    start = board("######", "#    #", "# A  #", "#    #", "#   o#", "######")
    after = turn(start, {"A": f"{direction} N"})
    dx, dy = KEYPAD[direction]
    assert after.xy(after.positions[0]) == (2 + dx, 2 + dy), (
        f"direction {direction} should step by {(dx, dy)} (keypad 1 2 3 / 8 9 4 / 7 6 5)"
    )


def test_nine_stays() -> None:
    start = board("######", "#    #", "# A  #", "#    #", "#   o#", "######")
    after = turn(start, {"A": "9 N"})
    assert after.positions == start.positions, "direction 9 leaves the player where it is"
    assert after.last.bumped == (), "staying on purpose is not a wall bump"


def test_a_step_into_a_wall_is_lost() -> None:
    start = board("######", "# #  #", "# A  #", "#    #", "#   o#", "######")
    after = turn(start, {"A": "2 N"})
    assert after.positions == start.positions, "a wall target leaves the player where it was"
    assert after.last.bumped == (0,), "the bump is reported"


def test_a_diagonal_passes_between_walls_touching_at_a_corner() -> None:
    start = board("######", "#    #", "##A  #", "# #  #", "#   o#", "######")
    after = turn(start, {"A": "7 N"})
    assert after.xy(after.positions[0]) == (1, 3), (
        "A steps down-left between the walls at (1, 2) and (2, 3): only the target tile matters"
    )


def test_players_that_swap_tiles_do_not_meet() -> None:
    start = board("######", "#    #", "# AB #", "#    #", "#   o#", "######")
    after = turn(start, {"A": "4 A", "B": "8 N"})
    assert where(after)[2] == "# BA #", "a swap is two ordinary moves: no fight, both arrive"
    assert after.last.fights == () and after.last.sent_back == (), "nothing happened between them"


def test_following_into_a_vacated_tile_is_no_meeting() -> None:
    start = board("######", "#    #", "#AB  #", "#    #", "#   o#", "######")
    after = turn(start, {"A": "4 N", "B": "4 N"})
    assert where(after)[2] == "# AB #", "A moves into the tile B leaves in the same turn"


# --- fights -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), sorted(WINNER))
def test_two_movers_landing_on_one_tile_fight(a: str, b: str) -> None:
    start = board("#######", "#     #", "# A B #", "#     #", "#    o#", "#######")
    after = turn(start, {"A": f"4 {a}", "B": f"8 {b}"})
    winner = WINNER[(a, b)]
    row = where(after)[2]
    if winner is None:
        assert row == "# A B #", f"{a} against {b} is a tie: both go back"
    elif winner == a:
        assert row == "#  AB #", f"{a} beats {b}: A stays on the tile, B goes back"
    else:
        assert row == "# AB  #", f"{b} beats {a}: B stays on the tile, A goes back"
    seat_won = None if winner is None else (0 if winner == a else 1)
    assert after.last.fights == (Fight(start.size * 2 + 3, (0, 1), (a, b), seat_won),), (  # type: ignore[arg-type]
        "the fight is reported with its tile, seats, actions and winner"
    )


@pytest.mark.parametrize(("stay", "move"), sorted(WINNER))
@pytest.mark.parametrize("how", ["9", "wall bump"])
def test_a_stayer_keeps_its_tile_whoever_wins(stay: str, move: str, how: str) -> None:
    start = board("######", "# #  #", "# AB #", "#    #", "#   o#", "######")
    stays = f"9 {stay}" if how == "9" else f"2 {stay}"  # up from A is a wall
    after = turn(start, {"A": stays, "B": f"8 {move}"})
    assert where(after)[2] == "# AB #", (
        f"A stays ({how}, {stay}) and B lands on it ({move}): A keeps its tile, B goes back"
    )
    winner = WINNER[(stay, move)]
    seat_won = None if winner is None else (0 if winner == stay else 1)
    fight = after.last.fights
    assert len(fight) == 1 and fight[0].winner == seat_won, (
        f"the fight is still fought and reported ({stay} against {move})"
    )
    assert after.last.sent_back == (1,), "only the mover went back"


def test_three_landing_on_one_tile_all_go_back() -> None:
    start = board("#######", "#  C  #", "# A B #", "#     #", "#    o#", "#######")
    after = turn(start, {"A": "4 A", "B": "8 N", "C": "6 C"})
    assert after.positions == start.positions, "three on one tile: every one goes back"
    assert after.last.fights == (), "a crowd is no fight"
    assert after.last.crowds == ((2 * 7 + 3, (0, 1, 2)),), "the crowd is reported"


def test_two_movers_onto_a_stayer_all_go_back() -> None:
    start = board("#######", "#     #", "# ACB #", "#     #", "#    o#", "#######")
    after = turn(start, {"A": "4 A", "B": "8 A", "C": "9 N"})
    assert after.positions == start.positions, "three on the stayer's tile: all back, C home"


def test_a_chain_of_returns() -> None:
    # A follows B, B follows C, C steps onto the tile D also takes; D wins (A beats N), C goes
    # back onto its start where B now stands, B goes back onto its start where A now stands,
    # and A goes back: the whole chain unwinds, without fights.
    start = board("########", "#    D #", "#ABC   #", "#      #", "#     o#", "########")
    after = turn(start, {"A": "4 N", "B": "4 N", "C": "4 N", "D": "7 A"})
    assert where(after)[2] == "#ABCD  #", "C lost to D; C, B and A all went back in a chain"
    assert after.last.sent_back == (0, 1, 2), "the three of the chain are reported as sent back"
    assert len(after.last.fights) == 1, "only C and D fought; the cascade fights no one"


def test_a_return_onto_a_fight_winner_sends_the_winner_back() -> None:
    # B leaves its tile and loses elsewhere; A and C fought for B's tile and C won: B coming
    # home sends C back too.
    start = board("#######", "#   D #", "#ABC  #", "#     #", "#    o#", "#######")
    after = turn(start, {"A": "4 N", "C": "8 A", "B": "3 N", "D": "8 A"})
    assert where(after)[1:3] == ["#  D  #", "#ABC  #"], (
        "C won at B's tile and D at B's target; B came home, sending C home"
    )


# --- eggs -------------------------------------------------------------------------------------


def test_nothing_on_an_egg_collects_it() -> None:
    start = board("######", "#    #", "# Ao #", "#    #", "######")
    after = turn(start, {"A": "4 N"})
    assert after.eggs_held == (1,), "N on an egg scores it"
    assert not after.eggs and where(after)[2] == "#  A #", "the egg is gone, A stands there"
    assert after.last.collected == ((0, 2 * 6 + 3),), "the collection is reported"


def test_attack_on_an_egg_destroys_it() -> None:
    start = board("######", "#    #", "# Ao #", "#    #", "######")
    after = turn(start, {"A": "4 A"})
    assert after.eggs_held == (0,), "A on an egg scores nothing"
    assert not after.eggs and where(after)[2] == "#  A #", "the egg is destroyed, A stands there"


def test_counter_on_an_egg_goes_back() -> None:
    start = board("######", "#    #", "# Ao #", "#    #", "######")
    after = turn(start, {"A": "4 C"})
    assert after.positions == start.positions and after.eggs == start.eggs, (
        "C on an egg goes back and leaves the egg"
    )
    assert after.last.countered == ((0, 2 * 6 + 3),) and after.last.sent_back == (0,)


def test_counter_after_winning_a_fight_on_the_egg_still_goes_back() -> None:
    start = board("#######", "#     #", "# AoB #", "#     #", "#######")
    after = turn(start, {"A": "4 C", "B": "8 A"})
    assert after.last.fights[0].winner == 0, "C beats A"
    assert after.positions == start.positions, "the winner countered on an egg: it goes back too"
    assert after.eggs == start.eggs and after.eggs_held == (0, 0), "nobody has the egg"


def test_a_fight_winner_on_an_egg_takes_or_smashes_it() -> None:
    start = board("#######", "#     #", "# AoB #", "#     #", "#######")
    after = turn(start, {"A": "4 N", "B": "8 C"})
    assert after.eggs_held == (1, 0) and not after.eggs, "N beats C and collects"
    after = turn(start, {"A": "4 N", "B": "8 A"})
    assert after.eggs_held == (0, 0) and not after.eggs, "A beats N and smashes the egg"
    assert where(after)[2] == "# AB  #", "B stands on the smashed egg's tile, A went back"


def test_a_tie_on_an_egg_leaves_it() -> None:
    start = board("#######", "#     #", "# AoB #", "#     #", "#######")
    after = turn(start, {"A": "4 N", "B": "8 N"})
    assert after.positions == start.positions and after.eggs == start.eggs, "both went back"


def test_a_counter_going_back_cascades() -> None:
    # B counters on the egg and goes back to its start, where A has just moved: A goes back.
    start = board("#######", "#     #", "# ABo #", "#     #", "#######")
    after = turn(start, {"A": "4 N", "B": "4 C"})
    assert after.positions == start.positions, "B went back from the egg and sent A back"
    assert after.last.sent_back == (0, 1)


def test_several_eggs_in_one_turn() -> None:
    start = board("#######", "#oA   #", "#     #", "#  Bo #", "#######")
    after = turn(start, {"A": "8 N", "B": "4 A"})
    assert after.eggs_held == (1, 0) and not after.eggs, "A takes one, B smashes the other"
    assert RULES.outcome(after) is not None, "no egg left: the game is over"


# --- memory, the end, the score ---------------------------------------------------------------


def test_the_state_keeps_each_seats_memory() -> None:
    start = board("#######", "#     #", "# A B #", "#  o  #", "#######")
    after = turn(start, {"A": "4 N hello world ", "B": "9 N"})
    assert after.memories == ("hello world ", ""), "a move's memory is the seat's memory now"
    assert RULES.stand_in(after, 0) == Move(9, "N", "hello world "), (
        "a faulting seat stays, does nothing and keeps its memory"
    )


def test_retire_is_never_needed_and_refuses() -> None:
    start = board("#####", "# A #", "#   #", "#o  #", "#####")
    with pytest.raises(ValueError, match="stands still"):
        RULES.retire(start, 0)


def test_the_game_ends_after_25_turns_per_player() -> None:
    state = board("######", "#A  B#", "#    #", "#o   #", "######")
    assert state.max_turns == 50, "25 turns per player on the board"
    for _ in range(49):
        state = turn(state, {})
        assert RULES.to_move(state) == (0, 1), "every seat moves every turn"
    state = turn(state, {})
    assert RULES.to_move(state) == (), "after 25n turns nobody moves"
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.termination is Termination.NORMAL
    assert outcome.placement == (1, 1), "equal eggs share the place"
    assert "50 turns" in outcome.detail and "1 egg left" in outcome.detail


def test_placement_is_by_eggs() -> None:
    state = board("#####", "#ABC#", "#o  #", "#####", eggs_held=(2, 5, 2))
    outcome = RULES.outcome(turn(state, {"A": "6 N"}))
    assert outcome is not None, "the last egg was taken: the game is over"
    assert RULES.scores(turn(state, {"A": "6 N"})) == (3, 5, 2), "scores are eggs"
    assert outcome.placement == (2, 1, 3), "more eggs is the better place"


def test_moves_after_the_end_or_for_missing_seats_are_illegal() -> None:
    state = board("######", "#A  B#", "#    #", "#o   #", "######")
    with pytest.raises(IllegalMoveError, match="seats"):
        RULES.apply(state, {0: Move(9, "N")})
    over = turn(state, {"A": "5 N"})
    over = turn(over, {"A": "7 N"})
    assert RULES.outcome(over) is not None
    with pytest.raises(IllegalMoveError, match="over"):
        RULES.check_move(over, 0, Move(4, "N"))


# --- move text ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["4 N", "9 A", "1 C  two  spaces ", "5 N " + "x" * MEMORY_LIMIT, "2 N ~!@#"]
)
def test_move_text_round_trips(text: str) -> None:
    move = RULES.parse_move(0, text)
    assert RULES.parse_move(0, RULES.move_text(move)) == move, f"{text!r} does not read back"


@pytest.mark.parametrize(
    "text",
    ["", "0 N", "10 N", "4 a", "4", "4N", "4 N x\ny", "4 N \x00", "4 N " + "x" * 1025, "4 N é"],
)
def test_malformed_move_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        RULES.parse_move(0, text)
    assert repr(text)[:40] in str(caught.value), "the message quotes the text"


def test_legal_moves_keep_the_memory() -> None:
    state = board("#####", "# A #", "#   #", "#o  #", "#####", memories=("m",))
    moves = RULES.legal_moves(state, 0)
    assert len(moves) == 27 and all(m.memory == "m" for m in moves), "9 directions x 3 actions"


# --- the codec ----------------------------------------------------------------------------------


def test_the_window_shows_walls_eggs_players_and_outside() -> None:
    state = board("######", "#A o #", "#  B #", "#    #", "#    #", "######")
    assert view(state, 0) == ["XXXXX", "X####", "X#* o", "X#  *", "X#   "], (
        "A at the corner sees outside (X), the border, itself, an egg and B"
    )
    assert view(state, 1) == ["#####", "* o #", "  * #", "    #", "    #"], "B sees A as *"


def test_request_bytes() -> None:
    state = board("#####", "#A o#", "#   #", "#   #", "#####", memories=("3 x",))
    assert STDIO.greeting(state, 0) == b"", "nothing comes before the request"
    assert STDIO.request(state, 0) == b"XXXXX\nX####\nX#* o\nX#   \nX#   \n3 x\n"
    assert SPEC.interface == "stdio-fresh" and STDIO.reply_lines == 3


@pytest.mark.parametrize(
    ("lines", "move"),
    [
        (["4", "A", "mem"], Move(4, "A", "mem")),
        (["4"], Move(4, "N", "")),  # missing lines are blank; blank memory
        ([" 4\t", " C ", "  spaced  "], Move(4, "C", "  spaced  ")),
        (["4\r", "C\r", "m\r"], Move(4, "C", "m")),
        (["4\n", "C\n", "m\r\n"], Move(4, "C", "m")),  # line endings left on
        (["4", "a", "m"], Move(4, "N", "m")),  # actions are case-sensitive
        (["4", "Attack", "m"], Move(4, "N", "m")),
        (["4", "", "x" * 2000], Move(4, "N", "x" * MEMORY_LIMIT)),
        (["4", "N", "a\x00b\tc\u00e9\ufffd"], Move(4, "N", "a?b?c??")),
        (["4", "N", "m", "ignored"], Move(4, "N", "m")),
    ],
)
def test_replies_decode(lines: list[str], move: Move) -> None:
    state = board("#####", "#A o#", "#   #", "#   #", "#####", memories=("old",))
    assert STDIO.decode(state, 0, lines) == move


@pytest.mark.parametrize("first", ["", "0", "10", "x", "44", "four", "-1"])
def test_an_invalid_direction_stays_and_keeps_the_memory(first: str) -> None:
    """An invalid direction (no output at all included) is the bot's fault, named in words;
    the referee then plays its stand-in: 9 N with the memory unchanged, and the seat plays on."""
    state = board("#####", "#A o#", "#   #", "#   #", "#####", memories=("old",))
    for lines in ([first, "A", "new"], []):
        with pytest.raises(InvalidMoveError, match="not a direction 1 to 9"):
            STDIO.decode(state, 0, lines)
    assert RULES.stand_in(state, 0) == Move(9, "N", "old"), "what the seat does instead"


def test_clean_memory_is_always_a_legal_memory() -> None:
    assert clean_memory("\r") == "" and clean_memory("ab\r") == "ab"


# --- board generation ---------------------------------------------------------------------------


def reference_board(seed: int, n: int) -> tuple[set[int], list[int], list[int]]:
    """An independent implementation of the documented draw sequence: (walls, eggs, starts)."""
    rng = random.Random(seed)
    side = 3 * n
    while True:
        walls = {(x, y) for x in range(side) for y in range(side)}
        walls = {(x, y) for x, y in walls if min(x, y) == 0 or max(x, y) == side - 1}
        for _segment in range(3 * n):
            vertical = rng.randrange(2)
            length = 2 + rng.randrange(9)
            x, y = 1 + rng.randrange(side - 2), 1 + rng.randrange(side - 2)
            tiles = [(x, y + k) if vertical else (x + k, y) for k in range(length)]
            walls |= {(a, b) for a, b in tiles if a < side - 1 and b < side - 1}
        taken: list[tuple[int, int]] = []
        for count in (4 * n, n):
            for _ in range(count):
                while True:
                    tile = (1 + rng.randrange(side - 2), 1 + rng.randrange(side - 2))
                    if tile not in walls and tile not in taken:
                        taken.append(tile)
                        break
        eggs, starts = taken[: 4 * n], taken[4 * n :]
        reach = {starts[0]}
        frontier = [starts[0]]
        while frontier:
            x, y = frontier.pop()
            for dx, dy in KEYPAD.values():
                t = (x + dx, y + dy)
                if t not in walls and t not in reach:
                    reach.add(t)
                    frontier.append(t)
        if reach.issuperset(taken):
            index = [y * side + x for x, y in walls], [y * side + x for x, y in eggs]
            return set(index[0]), index[1], [y * side + x for x, y in starts]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(7, 16))
def test_boards_follow_the_documented_draws(seed: int, n: int) -> None:
    state = RULES.initial_state(random.Random(seed), n, {})
    walls, eggs, starts = reference_board(seed, n)
    assert state.size == 3 * n, "the side is three tiles per player"
    assert {t for t, w in enumerate(state.walls) if w} == walls, "walls as the draws give them"
    assert state.eggs == frozenset(eggs) and len(eggs) == 4 * n, "4n eggs as the draws give them"
    assert list(state.positions) == starts, "starts as the draws give them, seat by seat"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(7, 20))
def test_generated_boards_have_their_properties(seed: int, n: int) -> None:
    state = RULES.initial_state(random.Random(seed), n, {})
    side = state.size
    rows = picture(state)
    assert rows[0] == rows[-1] == "#" * side and all(r[0] == r[-1] == "#" for r in rows), (
        "a wall runs all round the board"
    )
    inner_walls = sum(r[1:-1].count("#") for r in rows[1:-1])
    assert inner_walls <= 3 * n * 10, "3n segments of at most 10 tiles"
    assert len(state.eggs) == 4 * n, "4n eggs"
    assert all(not state.walls[t] for t in state.eggs), "no egg on a wall"
    assert len(set(state.positions)) == n, "starts are distinct"
    assert not set(state.positions) & state.eggs, "no start on an egg"
    assert all(not state.walls[t] for t in state.positions), "no start on a wall"
    for start in state.positions:
        reach, frontier = {start}, [start]
        while frontier:
            x, y = state.xy(frontier.pop())
            for dx, dy in KEYPAD.values():
                t = (y + dy) * side + x + dx
                if not state.walls[t] and t not in reach:
                    reach.add(t)
                    frontier.append(t)
        assert reach >= state.eggs, "every egg is reachable from every start (8 directions)"
    again = RULES.initial_state(random.Random(seed), n, {})
    assert again == state and hash(again) == hash(state), "the same seed gives the same board"


class Scripted(random.Random):
    """A generator whose randrange(k) answers from a list, checking each answer is below k."""

    def __init__(self, answers: list[int]) -> None:
        super().__init__(0)
        self.answers = answers

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None, "generation draws with randrange(k) only"
        value = self.answers.pop(0)
        assert 0 <= value < start, f"a scripted draw {value} is not below {start}"
        return value


def test_segments_are_clipped_at_the_border_and_may_overlap() -> None:
    n = 7  # side 21: inside tiles 1..19, so draws below(19) give 1 + value
    script = [0, 8, 17, 4]  # horizontal, length 10, from (18, 5): only (18, 5), (19, 5) fit
    script += [1, 0, 2, 2]  # vertical, length 2, from (3, 3): (3, 3), (3, 4)
    script += [0, 0, 0, 0] * (3 * n - 2)  # horizontal, length 2 at (1, 1), again and again
    script += [2, 2]  # an egg drawn on the wall at (3, 3): drawn again
    script += [x for i in range(4 * n) for x in (i % 19, 9 + i // 19)]  # eggs on rows 10-11
    script += [x for i in range(n) for x in (i, 14)]  # starts on row 15
    side, walls, eggs, starts = generate_board(Scripted(script), n)
    inner = {(t % side, t // side) for t, w in enumerate(walls) if w}
    inner = {(x, y) for x, y in inner if 0 < x < side - 1 and 0 < y < side - 1}
    assert inner == {(18, 5), (19, 5), (3, 3), (3, 4), (1, 1), (2, 1)}, (
        "a segment is clipped where it meets the border; overlapping segments add nothing"
    )
    assert len(eggs) == 4 * n and (3, 3) not in {(t % side, t // side) for t in eggs}
    assert [(t % side, t // side) for t in starts] == [(1 + i, 15) for i in range(n)]


def test_player_counts_outside_seven_to_36_are_refused() -> None:
    for n in (6, MAX_PLAYERS + 1):
        with pytest.raises(ValueError, match="7 to 36"):
            RULES.initial_state(random.Random(0), n, {})
    with pytest.raises(ValueError, match="no settings"):
        RULES.initial_state(random.Random(0), 7, {"map": "x"})


# --- random playouts ----------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(7, 9), stay=st.floats(0, 0.5))
def test_random_playouts_keep_every_invariant(seed: int, n: int, stay: float) -> None:
    rng = random.Random(seed)
    state = RULES.initial_state(rng, n, {})
    total = len(state.eggs)
    smashed = 0
    while RULES.to_move(state):
        moves = {}
        for seat in RULES.to_move(state):
            options = RULES.legal_moves(state, seat)
            move = Move(9, "N") if rng.random() < stay else rng.choice(list(options))
            moves[seat] = Move(move.direction, move.action, str(rng.randrange(100)))
        before = state
        state = RULES.apply(state, moves)
        smashed += len(state.last.destroyed)
        assert len(set(state.positions)) == n, "every tile holds at most one player"
        assert not set(state.positions) & state.eggs, "nobody ends a turn on an egg"
        for seat in range(n):
            target = before.target(seat, moves[seat].direction)
            assert state.positions[seat] in (before.positions[seat], target), (
                "a player ends a turn on its start or its target"
            )
        assert sum(state.eggs_held) + smashed + len(state.eggs) == total, "eggs are conserved"
        assert state.memories == tuple(moves[s].memory for s in range(n)), "memories are kept"
        assert len(RULES.render_text(state).split("\n")) == state.size + 3, "frame shape"
    assert state.turns_played <= 25 * n
    assert RULES.outcome(state) is not None


def test_the_same_seed_plays_the_same_game() -> None:
    def play(seed: int) -> list[str]:
        rng = random.Random(seed)
        state = RULES.initial_state(rng, 7, {})
        frames = [RULES.render_text(state)]
        while RULES.to_move(state):
            state = RULES.apply(
                state, {s: rng.choice(list(RULES.legal_moves(state, s))) for s in range(7)}
            )
            frames.append(RULES.render_text(state))
        return frames

    assert play(4) == play(4), "same seed, same frames"


def test_the_frame_shows_the_board_and_the_last_turns_events() -> None:
    start = board("#####", "# o #", "#A B#", "# C #", "#####")
    after = turn(start, {"A": "4 N", "B": "8 A", "C": "9 N"})
    lines = RULES.render_text(after).split("\n")
    assert lines[0] == "turn 1/75, 1 egg left: A 0  B 0  C 0", lines[0]
    assert lines[1:6] == ["#####", "# o #", "#AB #", "# C #", "#####"], "the board after"
    assert lines[6] == "fights: B(A) beat A(N) at 2,2; back: A", lines[6]
    assert lines[7] == "eggs: none", lines[7]
    after = turn(after, {"B": "2 N"})
    assert RULES.render_text(after).split("\n")[6:] == ["fights: none", "eggs: B took 2,1"]


# --- the rules document and the built-in bot ----------------------------------------------------


def test_the_documents_worked_example_matches_the_engine() -> None:
    spec = importlib.util.spec_from_file_location(
        "egghunt_example", Path(__file__).parent / "egghunt_example.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = DOC.read_text(encoding="utf-8")
    for name, expected in module.example_blocks().items():
        match = re.search(rf"<!-- {name} -->\n```[a-z]*\n(.*?)```", text, re.DOTALL)
        assert match, f"the rules document lacks the {name} block"
        assert match.group(1) == expected, (
            f"the {name} block of runner/games/egghunt/rules.md is stale: "
            "run python tests/egghunt_example.py and paste its output"
        )


def test_the_id() -> None:
    assert ID == "egghunt-v1" == RULES.id


BUILTIN_VIEWS = [
    b"  o  \n     \n  *  \n ### \nXXXXX\n\n",
    b"#####\n#    \n# * #\n#  # \n#    \n3 5\n",
    b"XXXXX\nX####\nX#*##\nX###o\nX#   \n",
    b"#####\n#####\n##*##\n#####\n#####\ngarbage that is no memory\n",
]


@pytest.mark.parametrize("request_bytes", BUILTIN_VIEWS)
def test_the_builtin_bot_answers_legal_moves(request_bytes: bytes) -> None:
    bot = BUILTIN / "wanderer" / "bot.py"
    done = subprocess.run(
        [sys.executable, "-I", "-B", str(bot)], input=request_bytes, capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode("ascii").split("\n")
    assert lines[0] in set("123456789") and lines[1] == "N", f"a valid reply, not {lines[:2]}"
    rows = request_bytes.decode().split("\n")
    dx, dy = KEYPAD.get(int(lines[0]), (0, 0))
    assert rows[2 + dy][2 + dx] in " o*", "it never walks into a wall"
    assert len(ast.literal_eval(repr(lines[2]))) <= MEMORY_LIMIT


# --- the example entries ------------------------------------------------------------------------

EXAMPLES = REPO / "examples" / "egghunt" / "entries"


def example_command(entry: Path, build: Path) -> list[str]:
    """How to run an example: C and C++ compiled as the sandbox compiles them, Python as is."""
    compilers = {"bot.c": ["gcc", "-std=c11"], "bot.cpp": ["g++", "-std=c++17"]}
    for source, compiler in compilers.items():
        if (entry / source).exists():
            out = build / entry.name
            command = [*compiler, "-O2", "-static", "-o", str(out), str(entry / source), "-lm"]
            subprocess.run(command, check=True, timeout=120)
            return [str(out)]
    return [sys.executable, "-I", "-B", str(entry / "bot.py")]


def test_the_examples_are_seven_entries_in_two_languages() -> None:
    languages = {}
    for entry in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        fields = dict(
            line.split(": ", 1) for line in (entry / "entry.yaml").read_text().splitlines()
        )
        assert {"name", "author", "language", "description"} <= set(fields), entry.name
        assert fields["name"] == entry.name, f"{entry.name}: the name is the folder's"
        source = {"c": "bot.c", "cpp": "bot.cpp", "python": "bot.py"}[fields["language"]]
        assert (entry / source).is_file(), f"{entry.name}: {source} is missing"
        languages[entry.name] = fields["language"]
    assert len(languages) >= 7, f"at least seven examples, not {sorted(languages)}"
    assert {"c", "python"} <= set(languages.values()), "examples in C and in Python"


@pytest.mark.slow
def test_the_examples_play_a_few_turns_with_legal_replies(tmp_path: Path) -> None:
    entries = sorted(p for p in EXAMPLES.iterdir() if p.is_dir())[:MAX_PLAYERS]
    commands = [example_command(entry, tmp_path) for entry in entries]
    while len(commands) < 7:
        commands.append([sys.executable, "-I", "-B", str(BUILTIN / "wanderer" / "bot.py")])
    state = RULES.initial_state(random.Random(3), len(commands), {})
    for _ in range(4):
        moves = {}
        for seat, command in enumerate(commands):
            done = subprocess.run(
                command, input=STDIO.request(state, seat), capture_output=True, timeout=30
            )
            assert done.returncode == 0, f"{command[-1]} failed: {done.stderr.decode()[-300:]}"
            lines = done.stdout.decode("ascii").split("\n")
            assert lines[0] in set("123456789"), f"{command[-1]} gave no direction: {lines[:3]}"
            assert lines[1] in ("A", "C", "N"), f"{command[-1]} gave no action: {lines[:3]}"
            move = STDIO.decode(state, seat, lines[:3])
            assert move.memory == lines[2], f"{command[-1]}'s memory is not kept verbatim"
            moves[seat] = move
        state = RULES.apply(state, moves)
