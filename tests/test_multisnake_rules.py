"""Multisnake rules, as runner/games/multisnake/rules.md states them.

Ground truth: hand-drawn positions for every rule (each drawn as the bots see it, the expected
result drawn the same way), a deliberately plain reference implementation of the turn that the
engine must match on random games, properties over random play at 2, 4 and 8 seats, the map-file
checks, the wire format, and the worked example in the rules document.
"""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from multisnake_games import LIMITS as SCRIPT_LIMITS
from multisnake_games import NO_SANDBOX, InProcess, entry_hash

from runner.games.base import IllegalMoveError, InvalidMoveError, Termination
from runner.games.multisnake import (
    RULES,
    SPEC,
    STDIO,
    load_map,
    owner_text,
    parse_map,
    places,
    tile_owners,
)
from runner.games.multisnake.maps import MAX_SIDE
from runner.games.multisnake.rules import (
    MAX_TURNS,
    Direction,
    Multisnake,
    MultisnakeState,
    Snake,
    state_from_picture,
)
from runner.games.spec import GameSpec, Rules, StdioCodec
from runner.play.playback import final_state
from runner.play.referee import Player, play_game
from runner.play.seats import Seat, SeatOpener
from runner.season import results

REPO = Path(__file__).resolve().parents[1]
MAPS = REPO / "examples" / "multisnake" / "maps"
BUILTIN = REPO / "runner" / "games" / "multisnake" / "builtin"
GAME = Multisnake()
BY_TEXT = {d.value: d for d in Direction}
FREE = ".+-"


def pos(picture: str, period: int = 25, turns: int = 0, **dead: int) -> MultisnakeState:
    """A position drawn as bots see it; seats are the letters drawn; ``B=3``: B died at turn 3."""
    seats = sum(c in "ABCDEFGH" for c in picture)
    index = {letter: seat for seat, letter in enumerate("ABCDEFGH")}
    return state_from_picture(picture, seats, period, turns, {index[k]: t for k, t in dead.items()})


def play(state: MultisnakeState, **moves: str) -> MultisnakeState:
    """One turn: ``A=">"`` moves snake A right."""
    index = {letter: seat for seat, letter in enumerate("ABCDEFGH")}
    return GAME.apply(state, {index[k]: BY_TEXT[v] for k, v in moves.items()})


def drawn(state: MultisnakeState) -> str:
    return state.view.decode("ascii")


def grid(*rows: str) -> str:
    return "".join(row + "\n" for row in rows)


def died(state: MultisnakeState) -> dict[str, int | None]:
    return {"ABCDEFGH"[s]: snake.died for s, snake in enumerate(state.snakes)}


# --- the target shape -----------------------------------------------------------------------------


def test_the_package_exports_a_rules_and_a_codec_of_the_spec() -> None:
    rules: Rules[MultisnakeState, Direction] = RULES
    codec: StdioCodec[MultisnakeState, Direction] = STDIO
    assert rules.id == "multisnake-v2"
    info = rules.info
    assert (info.min_players, info.max_players) == (2, 8) and info.simultaneous
    assert SPEC.interface == "stdio", "one process for the whole game"
    assert info.seat_counts == (2, 4, 8)
    assert info.seat_names == tuple("ABCDEFGH") and info.max_moves == MAX_TURNS
    assert codec.reply_lines == 1


# --- moving, drawing, wrapping --------------------------------------------------------------------


def test_a_snake_moves_head_and_tail_and_draws_where_it_went() -> None:
    before = pos(grid("......", ".>>A..", "......", "......", "B....."))
    after = play(before, A="v", B="^")
    assert drawn(after) == grid("......", "..>v..", "...A..", "B.....", "......"), (
        "the head moves, the tail follows, the old head shows the direction it moved"
    )
    assert after.snakes[0].tiles == (after.tile(2, 1), after.tile(3, 1), after.tile(3, 2))


CORNERS = [
    ((0, 0), "<", (4, 0)),
    ((0, 0), "^", (0, 4)),
    ((4, 0), ">", (0, 0)),
    ((4, 0), "^", (4, 4)),
    ((0, 4), "<", (4, 4)),
    ((0, 4), "v", (0, 0)),
    ((4, 4), ">", (0, 4)),
    ((4, 4), "v", (4, 0)),
]


@pytest.mark.parametrize(("start", "move", "end"), CORNERS)
def test_the_map_wraps_at_every_edge_and_corner(
    start: tuple[int, int], move: str, end: tuple[int, int]
) -> None:
    rows = [["."] * 5 for _ in range(5)]
    rows[start[1]][start[0]] = "A"
    rows[2][2] = "B"
    after = play(pos(grid(*("".join(r) for r in rows))), A=move, B="^")
    assert after.snakes[0].head == after.tile(*end), f"{move} from {start} comes out at {end}"
    assert after.snakes[0].alive


def test_a_body_across_the_edges_wraps_and_reads_back() -> None:
    before = pos(grid("..#.B", "..#..", "##.##", "..#..", ">A#.>"))
    assert before.snakes[0].length == 3, "A's tail is at the right edge, its neck at the left"
    after = play(before, A="v", B="<")
    assert drawn(after) == grid(".A#B.", "..#..", "##.##", "..#..", ">v#.."), (
        "A's tail left the right edge; its head left the bottom row into the top row"
    )
    again = state_from_picture(drawn(after), 2, 25)
    assert again.snakes[0].tiles == after.snakes[0].tiles, "the drawing alone tells the body"


def test_a_wrapping_snake_can_chase_its_own_tail_round_the_map() -> None:
    before = pos(grid("#####", "#####", ">>>>A", "#####", "B...."))
    after = play(before, A=">", B=">")
    assert after.snakes[0].alive, "A enters the tile its own tail leaves, across the edge"
    assert drawn(after).split("\n")[2] == "A>>>>"


# --- tails that leave, and the repeat-until-stable rule -------------------------------------------


def test_a_head_may_enter_the_tile_another_tail_leaves() -> None:
    before = pos(grid("......", "..>>B.", "..A...", "......", "......"))
    after = play(before, A="^", B=">")
    assert died(after) == {"A": None, "B": None}, "A enters B's tail as it leaves"
    assert drawn(after).split("\n")[1:3] == ["..A>>B", "......"]
    into_tail = play(pos(grid("......", ".A>>B.", "......", "......", "......")), A=">", B=">")
    assert died(into_tail) == {"A": None, "B": None}, "A follows B's tail into its old tile"
    assert drawn(into_tail).split("\n")[1] == "..A>>B"


def test_a_tail_that_stays_because_its_snake_grows_blocks() -> None:
    before = pos(grid("......", ".A>>B+", "......", "......", "......"))
    after = play(before, A=">", B=">")
    assert died(after) == {"A": 1, "B": None}, "B eats '+': its tail stays and A hits it"
    assert drawn(after).split("\n")[1] == ".@>>>B"
    forced = play(
        pos(grid("......", ".A>>B.", "......", "......", "......"), period=1), A=">", B=">"
    )
    assert died(forced) == {"A": 1, "B": None}, "on a growth turn no tail leaves"


def test_a_snake_may_enter_its_own_leaving_tail() -> None:
    before = pos(grid(".....", ".>v..", ".^A..", ".....", "B...."))
    after = play(before, A="<", B=">")
    assert after.snakes[0].alive and drawn(after).split("\n")[1:3] == [".>v..", ".A<.."]


CHAIN = ".>A>B>C{}"


def test_a_chain_of_snakes_each_waiting_on_the_next_dies_when_its_front_is_blocked() -> None:
    before = pos(grid("........", CHAIN.format("#"), "........", "........", "........"))
    after = play(before, A=">", B=">", C=">")
    assert died(after) == {"A": 1, "B": 1, "C": 1}, (
        "C hits the wall and stays, so B's target (C's tail) stays occupied, and then A's"
    )
    assert drawn(after).split("\n")[1] == ".>@>@>@#", "none of them moved"


def test_a_chain_of_snakes_moves_when_its_front_moves() -> None:
    before = pos(grid("........", CHAIN.format("."), "........", "........", "........"))
    after = play(before, A=">", B=">", C=">")
    assert died(after) == {"A": None, "B": None, "C": None}
    assert drawn(after).split("\n")[1] == "..>A>B>C", "each took the tile of the next one's tail"


def test_a_ring_of_snakes_chasing_each_others_tails_all_move() -> None:
    before = pos(grid(".....", ".>Bv.", ".A.C.", ".^D<.", "....."))
    after = play(before, A="^", B=">", C="v", D="<")
    assert all(s.alive for s in after.snakes), "every target is a tail that leaves"
    assert drawn(after).split("\n")[1:4] == [".A>B.", ".^.v.", ".D<C."]


def test_a_chain_behind_a_head_on_collision_moves() -> None:
    before = pos(grid("........", ">>A>B.C.", "........", "........", "........"))
    after = play(before, A=">", B=">", C="<")
    assert died(after) == {"A": None, "B": 1, "C": 1}, (
        "B and C enter one tile and die, but B moved: its tail left, so A moves in"
    )
    assert drawn(after).split("\n")[1] == ".>>A>@.."


# --- collisions -----------------------------------------------------------------------------------


def test_two_snakes_entering_one_tile_both_move_in_and_die() -> None:
    before = pos(grid(".......", ">A.B<<.", ".......", ".......", "......."))
    after = play(before, A=">", B="<")
    assert died(after) == {"A": 1, "B": 1}
    assert drawn(after).split("\n")[1] == ".>@<<..", (
        "both moved in (their tails advanced) and lie there dead"
    )
    assert after.snakes[0].head == after.snakes[1].head == after.tile(2, 1)
    assert tile_owners(after)[after.tile(2, 1)] == 0, "the shared tile is drawn for the lower seat"
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.points == (0.5, 0.5) and outcome.placement == (1, 1)
    assert outcome.detail == "A and B died together at turn 1, sharing first place"


def test_snakes_entering_one_tile_from_three_sides_all_die_and_the_fourth_wins() -> None:
    before = pos(grid(".....", "..B..", ".A.C.", "..D..", "....."))
    after = play(before, A=">", B="v", C="<", D=">")
    assert died(after) == {"A": 1, "B": 1, "C": 1, "D": None}
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.placement == (2, 2, 2, 1)


def test_two_length_one_snakes_swapping_pass_through_each_other() -> None:
    before = pos(grid(".....", ".AB..", ".....", ".....", "....."))
    after = play(before, A=">", B="<")
    assert died(after) == {"A": None, "B": None}
    assert drawn(after).split("\n")[1] == ".BA.."


def test_longer_snakes_swapping_hit_each_other_and_die_without_moving() -> None:
    before = pos(grid("......", ">AB<..", "......", "......", "......"))
    after = play(before, A=">", B="<")
    assert died(after) == {"A": 1, "B": 1}
    assert drawn(after).split("\n")[1] == ">@@<..", "neither moved"


def test_a_length_one_snake_swapping_with_a_longer_one_dies_and_so_does_the_other() -> None:
    before = pos(grid("......", ".AB<..", "......", "......", "......"))
    after = play(before, A=">", B="<")
    assert died(after) == {"A": 1, "B": 1}, (
        "A enters B's head (not a tail), dies unmoved; its tile stays, so B dies too"
    )


# --- reversal -------------------------------------------------------------------------------------


def test_a_length_one_snake_may_reverse() -> None:
    state = pos(grid(".....", ".A...", ".....", ".....", "B...."))
    state = play(state, A=">", B=">")
    state = play(state, A="<", B=">")
    assert state.snakes[0].alive and state.snakes[0].head == state.tile(1, 1)


@pytest.mark.parametrize("body", [">A", ">>A"])
def test_a_longer_snake_that_reverses_dies_without_moving(body: str) -> None:
    row = ("." + body).ljust(6, ".")
    before = pos(grid("......", row, "......", "......", "B....."))
    after = play(before, A="<", B=">")
    assert died(after)["A"] == 1, "even at length 2, with its own tail leaving the tile behind"
    assert drawn(after).split("\n")[1] == row.replace("A", "@"), "it did not move"


# --- signs and growth -----------------------------------------------------------------------------


def test_a_plus_grows_the_snake_and_is_consumed() -> None:
    after = play(pos(grid(".....", ">A+..", ".....", ".....", "B....")), A=">", B=">")
    assert drawn(after).split("\n")[1] == ">>A.." and after.snakes[0].length == 3


def test_a_minus_shrinks_the_snake_its_tail_moving_two() -> None:
    after = play(pos(grid("......", ">>A-..", "......", "......", "B.....")), A=">", B=">")
    assert drawn(after).split("\n")[1] == "..>A.." and after.snakes[0].length == 2


def test_a_minus_kills_a_length_one_snake_where_its_head_stands() -> None:
    before = pos(grid(".....", ".A-..", ".....", ".....", "B...."))
    after = play(before, A=">", B=">")
    assert died(after)["A"] == 1 and after.snakes[0].length == 0
    assert drawn(after).split("\n")[1] == "..@..", "the old tile is free, the sign's tile is '@'"
    assert after.snakes[0].tiles == (after.tile(2, 1),)


def test_the_tail_of_a_snake_shrunk_to_nothing_frees_its_tile_for_others() -> None:
    before = pos(grid(".....", "BA-..", ".....", ".....", "....."))
    after = play(before, A=">", B=">")
    assert died(after) == {"A": 1, "B": None}, "B enters the tile A left"
    assert drawn(after).split("\n")[1] == ".B@.."


@pytest.mark.parametrize(
    ("sign", "row", "length"),
    [
        (".", ">>A..", 3),  # forced growth alone: the tail stays
        ("+", ">>A..", 3),  # a '+' on a growth turn adds nothing more
        ("-", ".>A..", 2),  # a '-' cancels the growth: the tail moves one
    ],
)
def test_every_t_turns_every_snake_grows_once_at_most(sign: str, row: str, length: int) -> None:
    before = pos(grid(".....", f">A{sign}..", ".....", ".....", "B...."), period=3, turns=2)
    after = play(before, A=">", B=">")
    assert after.turns == 3 and drawn(after).split("\n")[1] == row
    assert after.snakes[0].length == length
    assert after.snakes[1].length == 2, "B grew too, on the free map"


def test_growth_comes_only_on_turns_that_are_multiples_of_t() -> None:
    state = pos(grid(".....", ".A...", ".....", ".....", "B...."), period=2)
    lengths = []
    for _ in range(6):
        state = play(state, A=">", B=">")
        lengths.append(state.snakes[0].length)
    assert lengths == [1, 2, 2, 3, 3, 4], "turns 2, 4 and 6 grow"


def test_a_minus_on_a_growth_turn_keeps_a_length_one_snake_alive() -> None:
    after = play(pos(grid(".....", ".A-..", ".....", ".....", "B...."), period=1), A=">", B=">")
    assert after.snakes[0].alive and after.snakes[0].length == 1


def test_a_sign_entered_by_several_snakes_is_consumed_and_they_die() -> None:
    before = pos(grid(".....", ".A+B.", ".....", ".....", "C...."))
    after = play(before, A=">", B="<", C=">")
    assert died(after) == {"A": 1, "B": 1, "C": None}
    assert drawn(after).split("\n")[1] == ".>@<.", "the '+' is gone; both grew, both died there"
    assert "+" not in drawn(after)


# --- the dead, placement and the end --------------------------------------------------------------


def test_dead_snakes_stay_as_obstacles_and_never_move_again() -> None:
    state = pos(grid(".....", ">A#..", ".....", ".....", "B...C"))
    state = play(state, A=">", B="^", C="^")
    assert died(state) == {"A": 1, "B": None, "C": None}
    assert GAME.to_move(state) == (1, 2) and GAME.legal_moves(state, 0) == ()
    with pytest.raises(IllegalMoveError, match="'>': snake A is dead"):
        GAME.check_move(state, 0, Direction.RIGHT)
    with pytest.raises(IllegalMoveError, match=r"moves came for seats \[0, 1, 2\]"):
        play(state, A=">", B=">", C=">")
    wall = drawn(state)
    state = play(state, B="^", C="<")
    assert drawn(state).split("\n")[1] == wall.split("\n")[1] == ">@#..", "A is where it died"
    state = play(state, B="^", C="^")  # B, at (0, 2), goes up into A's tail at (0, 1)
    assert died(state)["B"] == 3, "a dead body is an obstacle"
    assert GAME.to_move(state) == () and GAME.outcome(state) is not None


def test_four_snakes_dying_in_three_turns_are_placed_one_two_two_four() -> None:
    state = pos(grid("#......", "#A.....", "#......", "#B...C.", "#.....D"))
    state = play(state, A="<", B=">", C="<", D="^")  # A hits the wall
    assert died(state) == {"A": 1, "B": None, "C": None, "D": None}
    state = play(state, B=">", C="<", D="^")  # B and C enter (3, 3) together
    assert died(state) == {"A": 1, "B": 2, "C": 2, "D": None}
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.placement == (4, 2, 2, 1)
    assert outcome.points == pytest.approx((0.0, 0.5, 0.5, 1.0)), "2nd and 3rd places shared"
    assert outcome.termination is Termination.NORMAL
    assert outcome.detail == "D was the last snake alive, after turn 2"
    assert GAME.to_move(state) == (), "the game stops as soon as one snake is left"


def test_the_turn_limit_ends_the_game_with_the_living_sharing_first_place() -> None:
    state = pos(grid(".....", ".A...", ".....", ".B...", "....."), turns=MAX_TURNS - 1)
    state = play(state, A=">", B=">")
    assert GAME.to_move(state) == () and state.turns == MAX_TURNS
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.points == (0.5, 0.5) and outcome.placement == (1, 1)
    assert outcome.detail == (
        f"the turn limit ({MAX_TURNS}) ended the game with A and B alive, sharing first place"
    )
    four = pos(grid("......", ".A..B.", "......", ".C..D.", "......"), turns=MAX_TURNS - 1, D=7)
    four = play(four, A=">", B=">", C="<")
    outcome = GAME.outcome(four)
    assert outcome is not None and outcome.placement == (1, 1, 1, 4)


# --- faults ---------------------------------------------------------------------------------------


def test_a_faulting_seat_dies_where_it_stands_and_the_others_play_on() -> None:
    state = pos(grid("......", "A>>B..", "......", "......", "C....."))
    assert GAME.stand_in(state, 1) is None, "no move stands in for a fault: the snake is out"
    state = GAME.retire(state, 1)
    assert died(state) == {"A": None, "B": 1, "C": None}, "it dies at the turn being played"
    assert GAME.to_move(state) == (0, 2) and drawn(state).split("\n")[1] == "A>>@.."
    after = play(state, A=">", C=">")
    assert died(after) == {"A": 1, "B": 1, "C": None}, "B's tail stayed, so A hit it"
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.placement == (2, 2, 1), "same-turn deaths tie"
    with pytest.raises(ValueError, match="no live snake"):
        GAME.retire(after, 1)


def test_retiring_down_to_one_snake_plays_the_turn_before_the_game_ends() -> None:
    state = GAME.retire(pos(grid(".....", ".A.B.", ".....", ".....", ".....")), 0)
    assert GAME.outcome(state) is None, "A dies in the turn being played: it is still to play"
    assert GAME.to_move(state) == (1,), "B's move of that turn is still to be made"
    after = play(state, B=">")
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.placement == (2, 1) and outcome.points == (0.0, 1.0)
    assert outcome.detail == "B was the last snake alive, after turn 1"


def test_a_turn_whose_every_snake_was_retired_is_still_played() -> None:
    state = pos(grid(".....", ".A.B.", ".....", ".....", "....."))
    state = GAME.retire(GAME.retire(state, 0), 1)
    assert GAME.outcome(state) is None and GAME.to_move(state) == ()
    after = GAME.apply(state, {})
    outcome = GAME.outcome(after)
    assert after.turns == 1 and outcome is not None and outcome.placement == (1, 1)
    assert outcome.detail == "A and B died together at turn 1, sharing first place"


# --- faults, played by the referee and replayed from the record -----------------------------------

BOXED = grid("#####", "#A.B#", "#...#", "#C.D#", "#####")
BOXED_TWO = grid("#####", "#A.B#", "#...#", "#...#", "#####")


def scripted(replies: str) -> SeatOpener:
    """A seat of this process whose bot writes ``replies[k]`` in turn k + 1, read by the game's
    own codec (so ``x`` is an invalid reply: the snake's fault)."""

    def opens(spec: GameSpec, seat: int, state: object) -> Seat:
        return Seat(
            InProcess(f"says {replies}"),
            lambda now: b"",
            lambda now, move: STDIO.decode(now, seat, [replies[move.turn - 1]]),
        )

    return opens


def played(picture: str, *replies: str) -> dict[str, Any]:
    """A game on ``picture`` (period 25) of one scripted seat per ``replies``, played by the
    referee, as a season records it."""
    names = [f"s{n}" for n in range(len(replies))]
    seats = [
        Player(name, entry_hash(name), Path("-"), opens=scripted(reply))
        for name, reply in zip(names, replies, strict=True)
    ]
    setup = {"map": picture, "period": 25}
    played = play_game(SPEC, seats, NO_SANDBOX, SCRIPT_LIMITS, 1, setup=setup).to_dict()
    key = results.record_key(SPEC.id, [(n, entry_hash(n)) for n in names], 1)
    return results.make_record(played, key=key, season_seed=1, round_=1, when="2026-12-01")


def replayed(record: dict[str, Any], picture: str) -> MultisnakeState:
    """The final state ``record`` replays to."""
    final: MultisnakeState = final_state(SPEC, record, {"map": picture, "period": 25})
    return final


def test_three_faults_and_a_wall_in_one_turn_tie_all_four_snakes() -> None:
    """The smallest case of the settled rule: A, B and C reply 'x' in turn 1, D runs into the
    wall. All four die in turn 1 and share first place (the host once ended the game without
    D's move: D 'the last snake alive, after turn 0', places 2, 2, 2, 1)."""
    record = played(BOXED, "x", "x", "x", ">")
    outcome = record["outcome"]
    assert outcome["placement"] == [1, 1, 1, 1], outcome
    assert outcome["points"] == pytest.approx([0.5, 0.5, 0.5, 0.5])
    assert outcome["detail"] == "A, B, C and D died together at turn 1, sharing first place"
    assert record["moves"] == [[None, None, None, ">"]], "D's move of the turn is recorded"
    faults = outcome["faults"]
    assert [(f["seat"], f["turn"], f["at"], f["termination"]) for f in faults] == [
        (seat, 1, 0, "invalid_move") for seat in (0, 1, 2)
    ]
    final = replayed(record, BOXED)
    assert final.turns == 1 and [s.died for s in final.snakes] == [1, 1, 1, 1]
    again = RULES.outcome(final)
    assert again is not None and list(again.placement) == outcome["placement"]
    assert results.check_record(record) is None, "a record the host writes passes its checks"


@pytest.mark.parametrize(
    ("b_moves", "placement", "points", "detail"),
    [
        (">", [1, 1], [0.5, 0.5], "A and B died together at turn 1, sharing first place"),
        ("<", [2, 1], [0.0, 1.0], "B was the last snake alive, after turn 1"),
    ],
)
def test_in_two_seats_a_fault_and_a_death_in_the_same_turn_tie(
    b_moves: str, placement: list[int], points: list[float], detail: str
) -> None:
    """Two seats as any other: A's fault kills it in turn 1 and B's move of that turn is played;
    B running into the wall in it ties (the host once gave B the win unplayed), B living on wins."""
    record = played(BOXED_TWO, "x", b_moves)
    outcome = record["outcome"]
    assert (outcome["placement"], outcome["points"], outcome["detail"]) == (
        placement,
        points,
        detail,
    )
    assert outcome["faulty"] is None and outcome["termination"] == "normal"
    assert [(f["seat"], f["turn"], f["at"]) for f in outcome["faults"]] == [(0, 1, 0)]
    assert "replied 'x'" in outcome["faults"][0]["detail"]
    assert record["moves"] == [[None, b_moves]]
    again = RULES.outcome(replayed(record, BOXED_TWO))
    assert again is not None and list(again.placement) == placement
    assert results.check_record(record) is None, "a record the host writes passes its checks"


# --- moves ----------------------------------------------------------------------------------------

INVALID = ["", "\n", " ", "x", "V", "^^", "^ >", "up", "\x00", "\u2191", "^\n^", "0", "<-"]


@pytest.mark.parametrize("reply", INVALID)
def test_replies_that_are_no_direction_are_invalid(reply: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.parse_move(0, reply)
    assert repr(reply) in str(caught.value), "the message quotes the reply"


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("^", Direction.UP),
        (">", Direction.RIGHT),
        ("v", Direction.DOWN),
        ("<", Direction.LEFT),
        ("v\r", Direction.DOWN),
        ("  <\t", Direction.LEFT),
        ("^\n", Direction.UP),
    ],
)
def test_directions_read_with_white_space_around_them(reply: str, move: Direction) -> None:
    assert GAME.parse_move(3, reply) == move
    assert GAME.parse_move(3, GAME.move_text(move)) == move, "move text reads back"


def test_non_text_and_non_moves_are_refused() -> None:
    with pytest.raises(InvalidMoveError, match="65"):
        GAME.parse_move(0, 65)  # type: ignore[arg-type]
    state = pos(grid(".....", ".A.B.", ".....", ".....", "....."))
    with pytest.raises(InvalidMoveError, match="'>'"):
        GAME.apply(state, {0: ">", 1: Direction.UP})  # type: ignore[dict-item]
    with pytest.raises(IllegalMoveError, match="there is no seat 5"):
        GAME.check_move(state, 5, Direction.UP)


# --- the wire format ------------------------------------------------------------------------------


def test_the_greeting_and_the_turn_message_are_byte_exact() -> None:
    text = grid("#####.", "#A..+.", "#...-.", "#..B..", "######")
    state = GAME.initial_state(random.Random(0), 2, {"map": text, "period": 7})
    assert STDIO.greeting(state, 0) == b"6 5 2 1 7\n"
    assert STDIO.greeting(state, 1) == b"6 5 2 2 7\n"
    assert STDIO.request(state, 0) == STDIO.request(state, 1) == text.encode("ascii")
    state = GAME.apply(state, {0: Direction.RIGHT, 1: Direction.LEFT})
    assert (
        STDIO.request(state, 1) == grid("#####.", "#.A.+.", "#...-.", "#.B...", "######").encode()
    )


def test_decode_reads_the_first_line_and_refuses_silence() -> None:
    state = pos(grid(".....", ".A.B.", ".....", ".....", "....."))
    assert STDIO.decode(state, 0, ["v "]) == Direction.DOWN
    with pytest.raises(InvalidMoveError, match="nothing"):
        STDIO.decode(state, 0, [])
    with pytest.raises(InvalidMoveError, match="'w'"):
        STDIO.decode(state, 0, ["w"])


def test_the_frame_is_a_status_line_over_the_map() -> None:
    state = pos(grid(".....", ">A...", ".....", ".....", "B...C"))
    state = play(state, A=">", B="<", C="<")  # B goes left across the edge into C's old tile
    lines = GAME.render_text(state).split("\n")
    assert lines[1:] == drawn(state).split("\n")[:-1], "the map as the bots see it"
    assert lines[0].startswith("turn    1  A alive"), lines[0]
    first = GAME.render_text(pos(grid(".....", ">A...", ".....", ".....", "B...C")))
    assert len(first) == len(GAME.render_text(state)), "every frame of a game has one length"
    assert not GAME.render_text(state).endswith("\n")


def test_the_owner_text_tells_whose_tile_is_whose() -> None:
    state = play(pos(grid(".....", ">A#..", ".....", "...B<", "C....")), A=">", B="^", C="^")
    assert drawn(state) == grid(".....", ">@#..", "...B.", "C..^.", ".....")
    assert owner_text(state) == "\n".join([".....", "AA...", "...B.", "C..B.", "....."]), (
        "each snake's tiles, the dead one's too, carry its letter"
    )
    board = GAME.render_text(state).split("\n", 1)[1]
    assert len(owner_text(state)) == len(board), "it lines up with the frame's map"


def test_the_status_line_gives_the_places_of_the_dead() -> None:
    state = play(pos(grid(".....", ".A#..", ".....", ".....", "B...C")), A=">", B="^", C="^")
    status = GAME.render_text(state).split("\n")[0]
    assert "A died t1, 3rd" in status and "B alive" in status and "C alive" in status


def test_eight_seats_take_two_status_lines_and_the_layer_colours_each_letter() -> None:
    from runner.games.multisnake import SPEC

    state = pos(grid("A.B.C.D#", "........", "E#F.G.H.", "........", "........"))
    state = play(state, A="v", B="v", C="v", D=">", E=">", F="v", G="v", H="v")  # D, E: walls
    lines = GAME.render_text(state).split("\n")
    assert lines[0].startswith("turn    1  A alive") and " D died t1, 7th" in lines[0]
    assert lines[1].startswith("           E died t1, 7th") and "H alive" in lines[1]
    assert lines[2:] == [
        row.replace("@", "d", 1) if y == 0 else row.replace("@", "e", 1)
        for y, row in enumerate(drawn(state).split("\n")[:-1])
    ], "the map as the bots see it, each dead head its letter in lower case"
    assert SPEC.presentation.layer is not None
    layer = SPEC.presentation.layer(state).split("\n")
    assert [len(line) for line in layer] == [len(line) for line in lines], "it lines up"
    for seat, letter in enumerate("ABCDEFGH"):
        row, column = divmod(seat, 4)
        at = 11 + column * 19
        assert lines[row][at] == letter, f"{letter} starts its status field"
        dead = state.snakes[seat].died is not None
        assert layer[row][at] == (letter.lower() if dead else letter), (
            f"the layer colours {letter}'s letter in the status: the legend"
        )
    board = GAME.render_text(state).split("\n")[2:]
    for seat in (3, 4):
        x, y = state.xy(state.snakes[seat].head)
        assert board[y][x] == "ABCDEFGH"[seat].lower(), "a dead head: its letter in lower case"
        assert layer[2 + y][x] == "ABCDEFGH"[seat].lower(), "and grey"
    assert drawn(state).count("@") == 2, "while the bots still read '@' there"


# --- maps -----------------------------------------------------------------------------------------


def test_a_map_serves_the_player_counts_whose_letters_it_holds() -> None:
    text = grid("A.....", ".B....", "..C...", "...D..", "....E.")
    assert parse_map(text).seat_counts == (2, 4)
    state = GAME.initial_state(random.Random(0), 2, {"map": text, "period": 3})
    assert drawn(state) == grid("A.....", ".B....", "......", "......", "......"), (
        "letters beyond the players' are free tiles"
    )
    assert [s.tiles for s in state.snakes] == [(state.tile(0, 0),), (state.tile(1, 1),)]
    assert all(s.length == 1 and s.alive for s in state.snakes)
    assert parse_map(text.replace("\n", "\r\n")) == parse_map(text), "CRLF reads the same"
    assert parse_map(text.rstrip("\n")) == parse_map(text), "the last newline may be left out"


@pytest.mark.parametrize(
    ("text", "seats", "message"),
    [
        ("", None, "the map is empty"),
        (grid(*["....."] * 4), None, "the map has 4 lines; a map has 5 to 150"),
        (grid(*["...."] * 5), None, "line 1: 4 tiles; a map is 5 to 150 tiles wide"),
        (grid(*["." * 151] * 5), None, "line 1: 151 tiles"),
        (grid(*["A...."] + ["....."] * MAX_SIDE), None, "the map has 151 lines"),
        (grid("A....", "..x..", ".....", ".....", "....B"), None, "line 2, column 3: 'x' is not"),
        (grid("A....", "..I..", ".....", ".....", "....B"), None, "line 2, column 3: 'I'"),
        (grid("A....", "..v..", ".....", ".....", "....B"), None, "line 2, column 3: 'v'"),
        (grid("A....", ".... ", ".....", ".....", "....B"), None, "line 2, column 5: ' '"),
        (grid("A....", "....", ".....", ".....", "....B"), None, "line 2, column 5: the line ends"),
        (grid("A....", "......", ".....", ".....", "....B"), None, "line 2, column 6: the line go"),
        (grid("A....", ".....", ".....", ".....", "..A.B"), None, "line 5, column 3: a second"),
        ("A....\n\n.....\n.....\n....B\n", None, "line 2, column 1: the line ends after 0"),
        ("A....\r.....\n.....\n.....\n.....\n....B\n", None, "line 1, column 6: a carriage return"),
        (grid("A....", ".....", ".....", ".....", "....B"), 4, "the map has no start tile C or D"),
        (grid("A....", ".....", ".....", ".....", "....C"), 2, "the map has no start tile B"),
        (
            grid("A....", ".....", ".....", ".....", "....B"),
            3,
            "Multisnake is played by 2, 4 or 8 players, not 3",
        ),
    ],
)
def test_a_malformed_map_is_refused_naming_where(
    text: str, seats: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        parse_map(text, seats)


def test_load_map_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_text(grid("A....", ".....", "..?..", ".....", "....B"))
    with pytest.raises(ValueError, match=r"bad.map: line 3, column 3: '\?' is not a map tile"):
        load_map(path)
    path.write_bytes(b"A....\n..\xff..\n")
    with pytest.raises(ValueError, match="bad.map: not ASCII text"):
        load_map(path)
    with pytest.raises(ValueError, match="missing.map: cannot be read"):
        load_map(tmp_path / "missing.map")


def test_the_setup_needs_a_map_and_a_period_of_1_to_25() -> None:
    text = grid("A....", ".....", ".....", ".....", "....B")
    for period in (0, 26, "3", 2.0, True, None):
        with pytest.raises(ValueError, match="growth period T"):
            GAME.initial_state(random.Random(0), 2, {"map": text, "period": period})
    with pytest.raises(ValueError, match="needs a map"):
        GAME.initial_state(random.Random(0), 2, {"period": 3})
    with pytest.raises(ValueError, match="line 5, column 5: 'X'"):
        GAME.initial_state(random.Random(0), 2, {"map": text.replace("B", "X"), "period": 3})


def test_the_example_maps_are_valid() -> None:
    sizes = {}
    for path in sorted(MAPS.glob("*.map")):
        game_map = load_map(path)
        assert game_map.seat_counts, f"{path.name} serves no number of players"
        sizes[path.name] = (game_map.width, game_map.height, game_map.seat_counts)
    assert len(sizes) >= 3, "at least three example maps"
    assert any(w == h == 150 and 8 in seats for w, h, seats in sizes.values()), "a 150×150 for 8"


# --- a plain reference, and properties over random play ------------------------------------------


class Reference:
    """The turn as the rules document reads, kept plain: lists of (x, y), the map redrawn from
    scratch every time. The engine must agree with it on every turn of every random game."""

    def __init__(self, rows: list[str], seats: int, period: int) -> None:
        self.w, self.h, self.period = len(rows[0]), len(rows), period
        self.ground = [[c if c in "#+-" else "." for c in row] for row in rows]
        where = {c: (x, y) for y, row in enumerate(rows) for x, c in enumerate(row)}
        self.bodies = [[where["ABCDEFGH"[s]]] for s in range(seats)]
        self.length = [1] * seats
        self.dead_at: list[int | None] = [None] * seats
        self.turn = 0

    def play(self, moves: Mapping[int, str]) -> None:
        self.turn += 1
        growth_turn = self.turn % self.period == 0
        occupied = {cell for body in self.bodies for cell in body}
        plan = {}
        for s, move in moves.items():
            (x, y), (dx, dy) = self.bodies[s][-1], BY_TEXT[move].delta
            cell = ((x + dx) % self.w, (y + dy) % self.h)
            sign = self.ground[cell[1]][cell[0]]
            grows = growth_turn or sign == "+"
            shrinks = sign == "-"
            tail_steps = 1 + shrinks - grows
            plan[s] = (cell, tail_steps, self.length[s] + grows - shrinks)
        unmoved = {s for s in moves if self.length[s] > 1 and plan[s][0] == self.bodies[s][-2]}
        changed = True
        while changed:
            changed = False
            freed = set()
            for s in moves:
                if s not in unmoved:
                    freed.update(self.bodies[s][: plan[s][1]])
            for s in moves:
                cell = plan[s][0]
                wall = self.ground[cell[1]][cell[0]] == "#"
                if s not in unmoved and (wall or (cell in occupied and cell not in freed)):
                    unmoved.add(s)
                    changed = True
        movers = [s for s in moves if s not in unmoved]
        arrivals = [plan[s][0] for s in movers]
        for s in movers:
            cell, tail_steps, length = plan[s]
            body = self.bodies[s] + [cell]
            self.bodies[s] = body[min(tail_steps, len(body) - 1) :]
            self.length[s] = length
            self.ground[cell[1]][cell[0]] = "."
            if arrivals.count(cell) > 1 or length == 0:
                self.dead_at[s] = self.turn
        for s in unmoved:
            self.dead_at[s] = self.turn

    def arrow(self, a: tuple[int, int], b: tuple[int, int]) -> str:
        dx, dy = (b[0] - a[0]) % self.w, (b[1] - a[1]) % self.h
        return {(1, 0): ">", (self.w - 1, 0): "<", (0, 1): "v", (0, self.h - 1): "^"}[(dx, dy)]

    def draw(self) -> str:
        rows = [row[:] for row in self.ground]
        for body in self.bodies:
            for a, b in zip(body, body[1:], strict=False):
                rows[a[1]][a[0]] = self.arrow(a, b)
        for s, body in enumerate(self.bodies):
            x, y = body[-1]
            rows[y][x] = "ABCDEFGH"[s] if self.dead_at[s] is None else "@"
        return "".join("".join(row) + "\n" for row in rows)


def random_map(rng: random.Random, seats: int, walls: float, signs: float) -> str:
    w, h = rng.randint(5, 12), rng.randint(5, 12)
    tiles = [
        "#" if r < walls else rng.choice("+-") if r < walls + signs else "."
        for r in (rng.random() for _ in range(w * h))
    ]
    for letter, at in zip("ABCDEFGH", rng.sample(range(w * h), seats), strict=False):
        tiles[at] = letter
    return "".join("".join(tiles[y * w : (y + 1) * w]) + "\n" for y in range(h))


def choose(state: MultisnakeState, seat: int, rng: random.Random, careful: bool) -> Direction:
    """A random bot's move; a careful one picks among tiles that look free."""
    if careful:
        head = state.snakes[seat].head
        safe = [d for d in Direction if chr(state.view[state.step(head, d)]) in ".+"]
        if safe:
            return rng.choice(safe)
    return rng.choice(list(Direction))


def random_game(
    text: str, seats: int, period: int, seed: int, careful: float
) -> list[tuple[dict[int, Direction], MultisnakeState]]:
    """A seeded game of random bots (each careful with the given odds): (moves, state after)."""
    rng = random.Random(seed)
    state = GAME.initial_state(random.Random(seed), seats, {"map": text, "period": period})
    wary = [rng.random() < careful for _ in range(seats)]
    played: list[tuple[dict[int, Direction], MultisnakeState]] = [({}, state)]
    while GAME.to_move(state):
        moves = {s: choose(state, s, rng, wary[s]) for s in GAME.to_move(state)}
        state = GAME.apply(state, moves)
        played.append((moves, state))
    return played


def check_game(text: str, seats: int, period: int, seed: int, careful: float) -> None:
    played = random_game(text, seats, period, seed, careful)
    reference = Reference(text.split("\n")[:-1], seats, period)
    dead_since: dict[int, Snake] = {}
    for turn, (moves, state) in enumerate(played):
        if turn:
            reference.play({s: m.value for s, m in moves.items()})
        assert turn <= MAX_TURNS, "the game outlived its declared length"
        assert drawn(state) == reference.draw(), f"the map after turn {turn} differs from the rules"
        assert STDIO.request(state, 0) == state.view, "bots read the map as drawn"
        for seat, snake in enumerate(state.snakes):
            cells = [state.xy(t) for t in snake.tiles]
            assert cells == reference.bodies[seat], f"snake {seat}'s tiles after turn {turn}"
            assert snake.died == reference.dead_at[seat], f"snake {seat}'s death, turn {turn}"
            assert len(snake.tiles) - 1 == max(snake.length, 1) - 1, (
                "a snake has length - 1 body tiles (one head tile when shrunk to nothing)"
            )
            if seat in dead_since:
                assert snake == dead_since[seat], "a dead snake never moves again"
            elif not snake.alive:
                dead_since[seat] = snake
    final = played[-1][1]
    outcome = GAME.outcome(final)
    assert outcome is not None and outcome.termination is Termination.NORMAL
    assert len(final.alive) <= 1 or final.turns == MAX_TURNS, "the game ends when one is left"
    assert outcome.placement == places(final), "placement is by turn of death"
    if seats == 2:
        assert sorted(outcome.points) in ([0.0, 1.0], [0.5, 0.5]), "win 1, draw ½, loss 0"
    status = -(-seats // 4)
    lines = GAME.render_text(final).split("\n")
    assert len(lines) == final.height + status, "four seats a status line, then the map"
    board = lines[status:]
    dead_letters = str.maketrans("abcdefgh", "@" * 8)
    assert [row.translate(dead_letters) for row in board] == final.rows(), (
        "the map as the bots see it, but for the dead heads"
    )
    for seat, snake in enumerate(final.snakes):
        if not snake.alive:
            x, y = final.xy(snake.head)
            shown = board[y][x]
            assert shown == "abcdefgh"[seat] or shown < "abcdefgh"[seat], (
                f"a dead head shows its snake's letter in lower case (or a lower seat's sharing "
                f"the tile): {shown!r} for seat {seat}"
            )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.sampled_from([2, 4, 8]),
    period=st.integers(1, 25),
    walls=st.sampled_from([0.0, 0.1, 0.3]),
    signs=st.sampled_from([0.0, 0.1, 0.4]),
    careful=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_random_games_follow_the_rules_and_end(
    seed: int, seats: int, period: int, walls: float, signs: float, careful: float
) -> None:
    text = random_map(random.Random(seed), seats, walls, signs)
    check_game(text, seats, period, seed, careful)


@pytest.mark.parametrize(
    ("name", "seats"), [("small.map", 2), ("small.map", 4), ("maze.map", 4), ("maze.map", 8)]
)
def test_random_games_on_the_example_maps(name: str, seats: int) -> None:
    text = (MAPS / name).read_text()
    for seed in range(3):
        check_game(text, seats, 5, seed, careful=1.0)


@pytest.mark.parametrize("seats", [2, 4, 8])
def test_the_same_seed_plays_the_same_game(seats: int) -> None:
    text = random_map(random.Random(5), seats, 0.1, 0.2)
    first = random_game(text, seats, 3, 5, careful=0.5)
    assert first == random_game(text, seats, 3, 5, careful=0.5), "same seed, same trajectory"
    frames = [GAME.render_text(state) for _, state in first]
    assert len(set(map(len, frames))) == 1, "every frame of a game has one length"


# --- the rules document and the built-in bot ------------------------------------------------------


def load_regen_doc() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_multisnake_doc", Path(__file__).parent / "regen_multisnake_doc.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rules_documents_example_matches_the_engine() -> None:
    regen = load_regen_doc()
    text = regen.DOC.read_text(encoding="utf-8")
    assert regen.rewrite(text) == text, (
        "the worked example in runner/games/multisnake/rules.md no longer matches the engine; "
        "if the change is deliberate, run python tests/regen_multisnake_doc.py and review the diff"
    )
    example = regen.example()
    assert "host to A: 7 5 2 1 3" in example and "A to host: <" in example
    assert example.endswith("places (2, 1), points (0.0, 1.0)."), "B wins the documented game"
    assert "```text\n" + regen.MAP + "```" in text, "the document shows the example's map"


@pytest.mark.parametrize(("name", "seats"), [("small.map", 4), ("maze.map", 2)])
def test_the_built_in_bot_plays_a_whole_game_without_a_fault(name: str, seats: int) -> None:
    """Every seat is the built-in bot, run as the sandbox runs Python bots; while it has a free
    neighbour (or a sign) it moves there."""
    text = (MAPS / name).read_text()
    state = GAME.initial_state(random.Random(0), seats, {"map": text, "period": 4})
    command = [sys.executable, "-I", "-B", str(BUILTIN / "first-free" / "bot.py")]
    bots = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(seats)
    ]
    try:
        for seat, bot in enumerate(bots):
            assert bot.stdin is not None
            bot.stdin.write(STDIO.greeting(state, seat).decode("ascii"))
        while GAME.to_move(state):
            moves = {}
            for seat in GAME.to_move(state):
                stdin, stdout = bots[seat].stdin, bots[seat].stdout
                assert stdin is not None and stdout is not None
                stdin.write(STDIO.request(state, seat).decode("ascii"))
                stdin.flush()
                moves[seat] = STDIO.decode(state, seat, [stdout.readline().rstrip("\n")])
                head = state.snakes[seat].head
                around = [chr(state.view[state.step(head, d)]) for d in Direction]
                if any(tile in FREE for tile in around):
                    assert chr(state.view[state.step(head, moves[seat])]) in FREE, (
                        "the built-in bot moves to a free neighbour when it has one"
                    )
            state = GAME.apply(state, moves)
    finally:
        for bot in bots:
            bot.kill()
            bot.wait()
    outcome = GAME.outcome(state)
    assert outcome is not None and state.turns > 5, "the bots played a game to its end"


@pytest.mark.parametrize(
    ("picture", "message"),
    [
        (grid(".....", ".A...", ".....", ".....", "....."), "no head 'B' for seat 1"),
        (grid(".....", ".AB.C", ".....", ".....", "....."), r"heads \['C'\] belong to no seat"),
        (grid(".....", ".A.B.", ".....", ".>...", "....."), r"the body tile at \(1, 3\) leads"),
        (grid(".....", ">A<B.", ".....", ".....", "....."), "snake A's body forks"),
    ],
)
def test_a_picture_that_is_no_position_is_refused(picture: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        state_from_picture(picture, 2, 25)
