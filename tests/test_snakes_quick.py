"""Snakes' quick loop (runner/games/snakes/quick.c): its rules are rules.py's, state for state;
a game played with it records exactly what the Python referee records without it, clean bots and
hostile ones alike; every move it does not see to its usual end is handed to the referee, whose
words say what went wrong; and where it cannot be had, the referee plays every move itself.
"""

from __future__ import annotations

import ctypes
import dataclasses
import random
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import snakes_baseline as baseline
from test_cblank import shared_object

from runner.games.base import EMPTY, Termination
from runner.games.snakes import SPEC as SNAKES
from runner.games.snakes import quick
from runner.games.snakes.rules import CELLS, MAX_MOVES, SnakesState
from runner.games.spec import LazyEdits, Played
from runner.play.playback import PlaybackError, final_state
from runner.play.referee import GameResult, Player, play_game
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.workers import _one_cpu_here
from runner.site.frames import (
    ALPHABET,
    SPLICE,
    ReplayError,
    backward,
    encode_edits,
    encode_numbers,
    page_data,
    presentation,
    replay,
)

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
HOSTILE = Path(__file__).parent / "hostile"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# Prints a line on every move (its output wakes the host's poll with the reply: not usual), and
# plays the greedy baseline bot's move.
PRINTER = """
#include <stdio.h>
int bot(int board[16][32], char player) {
    int mine = 0;
    for (int y = 0; y < 16; y++) for (int x = 0; x < 32; x++) mine += board[y][x] == player;
    printf("I own %d cells\\n", mine);
    fflush(stdout);
    return "RDLU"[mine % 4];
}
char *bot_name = "Printer";
"""
# Plays well for ten moves, then returns a number that is not a move.
LATE_BADMOVE = """
int bot(int board[16][32], char player) {
    static int calls;
    (void)board; (void)player;
    return ++calls > 10 ? 1234567 : "RD"[calls % 2];
}
char *bot_name = "Late bad move";
"""


def random_moves(rng: random.Random) -> str:
    """A game's worth of moves that turn often enough to enclose things."""
    bias = rng.choice(["LRUD", "RRDDLU", "DDRRUL", "RDLU", "RRRDDDLLUU"])
    return "".join(
        rng.choice(bias) if rng.random() < 0.7 else rng.choice("LRUD") for _ in range(MAX_MOVES)
    )


def test_the_quick_loops_rules_are_the_python_rules_state_for_state() -> None:
    rules = SNAKES.rules
    start = rules.initial_state(random.Random(0), 2, EMPTY)
    steps = suffocations = fills = 0
    for game in range(120):
        moves = random_moves(random.Random(game))
        state = start
        for move in moves:
            if state.over:
                break
            ours, applied = quick.apply_moves(state, move)
            after = rules.apply(state, {state.moves_played % 2: move})
            assert (ours, applied) == (after, 1), f"game {game}, move {state.moves_played + 1}"
            mover = state.moves_played % 2
            fills += after.owned[mover].bit_count() > state.owned[mover].bit_count() + 1
            state, steps = after, steps + 1
        suffocations += state.suffocated is not None
        assert quick.apply_moves(start, moves) == (state, state.moves_played), f"game {game}"
    assert steps > 100_000 and suffocations > 20 and fills > 500, (steps, suffocations, fills)


def test_the_quick_loops_rules_stop_at_a_text_that_is_not_a_move() -> None:
    start = SNAKES.rules.initial_state(random.Random(0), 2, EMPTY)
    state, applied = quick.apply_moves(start, "RDxR")
    assert applied == 2
    assert state == SNAKES.rules.apply(SNAKES.rules.apply(start, {0: "R"}), {1: "D"})


@dataclass
class Counted:
    """The quick loop, counting what it did."""

    runs: int = 0
    moves: int = 0
    handed: list[tuple[int, int]] = field(default_factory=list)  # (seat, events) per hand-over

    def __call__(self, state: Any, bots: Sequence[Any]) -> Played | None:
        played = quick.play(state, bots)
        if played is not None:
            self.runs += 1
            self.moves += len(played.moves)
            if played.handed is not None:
                self.handed.append((played.handed.seat, len(played.handed.events)))
        return played


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Player]:
    root = tmp_path_factory.mktemp("quick")
    sources = {name: (HOSTILE / f"{name}.c").read_text() for name in ("badmove", "spin")}
    sources |= {name: (HOSTILE / f"{name}.c").read_text() for name in ("offturn", "sleepy")}
    sources["segfault"] = (HOSTILE / "segfault.c").read_text()
    sources |= {"printer": PRINTER, "late": LATE_BADMOVE}
    for folder in baseline.write_entries(root / "greedy", 2):
        sources[folder.name] = (folder / "bot.c").read_text()
    return {
        name: Player(name, name * 4, shared_object(root / name, source))
        for name, source in sources.items()
    }


def both_ways(
    box: LocalSandbox, pair: list[Player], seed: int = 3, limits: BotLimits = LIMITS
) -> tuple[GameResult, GameResult, Counted]:
    """The game played with the quick loop (counted), then by the Python referee alone."""
    counted = Counted()
    fast = play_game(replace(SNAKES, quick=counted), pair, box, limits, seed)
    slow = play_game(replace(SNAKES, quick=None), pair, box, limits, seed)
    return fast, slow, counted


def same_record(fast: GameResult, slow: GameResult) -> None:
    """Everything but what was measured (CPU, wall time) is the same."""
    for part in ("game", "seed", "names", "moves", "outcome", "scores", "output", "fault_turns"):
        assert getattr(fast, part) == getattr(slow, part), part


def test_clean_games_are_played_in_c_and_recorded_as_python_records_them(
    local_sandbox: LocalSandbox, players: dict[str, Player]
) -> None:
    greedy = [p for name, p in players.items() if name.startswith("greedy")]
    for pair in (greedy, greedy[::-1]):
        fast, slow, counted = both_ways(local_sandbox, pair)
        same_record(fast, slow)
        # Every move is played in C but one whose poll woke to more than its reply (news from
        # the sandbox, which serves the job slot's every bot: the last game's bots' ends) or
        # to nothing within the wait (a busy machine): that one is handed over and finished
        # by the referee, and the game goes on in C.
        assert len(fast.moves) > 100 and counted.moves > len(fast.moves) - 5, counted
        assert counted.moves + len(counted.handed) == len(fast.moves), counted
        assert all(0 < cpu < LIMITS.game_cpu_s for cpu in fast.cpu_s)


def test_news_from_the_sandbox_hands_over_at_most_the_move_it_woke(
    local_sandbox: LocalSandbox, players: dict[str, Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote reports each bot's end when it reaps it, often while the next game is being
    played: the move whose poll wakes to that news is handed over, and the news read then, so
    the moves after it are played in C again (not one hand-over a move until one reads it)."""
    zygote = local_sandbox.zygote
    filed: list[str] = []
    file = zygote._file

    def counting(event: dict[str, Any]) -> None:
        filed.append(event["event"])
        file(event)

    monkeypatch.setattr(zygote, "_file", counting)
    greedy = [p for name, p in players.items() if name.startswith("greedy")]
    counted = Counted()
    # on one CPU, as a job slot plays: the zygote reaps a game's bots while the next is played
    with _one_cpu_here({"sandbox": local_sandbox}):
        for seed in range(8):
            spec = replace(SNAKES, quick=counted)
            result = play_game(spec, greedy[::-1], local_sandbox, LIMITS, seed)
            assert result.outcome.faulty is None
    woken = sum(1 for _, events in counted.handed if events)
    assert filed.count("exit") >= 14, filed
    assert woken <= filed.count("exit"), (counted.handed, filed)


@pytest.mark.parametrize(
    ("name", "termination", "detail"),
    [
        # a reply that is not a move: handed over whole, judged by the referee
        ("badmove", Termination.INVALID_MOVE, r"returned 81 \('Q'\).* at turn 1$"),
        ("late", Termination.INVALID_MOVE, r"returned 1234567, .* at turn 11$"),
        # no reply within the move's CPU: the poll timed out, handed over with nothing read
        ("spin", Termination.TIMEOUT, r"over 100 ms CPU on one move at turn 1$"),
        # the channel closed: handed over with the news of its end
        ("segfault", Termination.CRASH, r"SIGSEGV at turn 1$"),
    ],
)
def test_a_move_that_is_not_usual_is_the_referees_to_judge(
    local_sandbox: LocalSandbox,
    players: dict[str, Player],
    name: str,
    termination: Termination,
    detail: str,
) -> None:
    greedy = players["greedy01"]
    fast, slow, counted = both_ways(local_sandbox, [players[name], greedy])
    same_record(fast, slow)
    assert fast.outcome.termination == termination
    assert fast.outcome.faulty == 0
    assert fast.outcome.detail is not None
    assert re.search(detail, fast.outcome.detail), fast.outcome.detail
    # Its last move, the faulty one, was handed over (a move before it may have been too, where
    # the poll woke to news from the sandbox as well).
    assert counted.runs >= 1 and counted.handed and counted.handed[-1][0] == 0, counted


def test_cpu_used_between_moves_stops_the_loop_before_the_move(
    local_sandbox: LocalSandbox, players: dict[str, Player]
) -> None:
    """A bot that thinks on its opponent's time (the opponent sleeps over its moves): the loop
    sends it nothing, and the referee asks it and says why it lost."""
    tight = replace(LIMITS, move_cpu_s=0.03)
    pair = [players["offturn"], players["sleepy"]]
    fast, slow, counted = both_ways(local_sandbox, pair, limits=tight)
    for result in (fast, slow):  # when it goes over depends on the machine: not compared
        outcome = result.outcome
        assert outcome.termination == Termination.TIMEOUT and outcome.faulty == 0
        assert outcome.detail is not None
        assert re.search(
            r"used over 30 ms of CPU between its moves, before turn \d+$", outcome.detail
        )
    # The sleeper's moves outlast the poll's wait (the move's CPU limit): handed over with
    # nothing read, the referee waits on.
    assert counted.runs >= 1 and (1, 0) in counted.handed, counted


def test_a_bot_that_prints_plays_on_with_every_move_handed_over(
    local_sandbox: LocalSandbox, players: dict[str, Player]
) -> None:
    """Its output wakes the poll beside its reply: the referee takes each of its moves on from
    the quick loop's poll, reads the output, and the game goes on in C."""
    fast, slow, counted = both_ways(local_sandbox, [players["printer"], players["greedy02"]])
    same_record(fast, slow)
    assert fast.outcome.faulty is None and "I own" in fast.output[0]
    printer_moves = (len(fast.moves) + 1) // 2
    assert len(counted.handed) >= printer_moves // 2, "most of its moves woke with its output"
    assert counted.moves > 0, "its opponent's moves were played in C"


def test_without_the_compiled_loop_the_referee_plays_every_move(
    local_sandbox: LocalSandbox, players: dict[str, Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = [players["greedy01"], players["greedy02"]]
    with_it = play_game(SNAKES, pair, local_sandbox, LIMITS, 5)
    monkeypatch.setattr(quick, "library", lambda: None)
    counted = Counted()
    without = play_game(replace(SNAKES, quick=counted), pair, local_sandbox, LIMITS, 5)
    same_record(with_it, without)
    assert counted.runs == 0


def test_only_c_function_bots_with_a_known_clock_are_played_quickly() -> None:
    state = SNAKES.rules.initial_state(random.Random(0), 2, EMPTY)
    assert isinstance(state, SnakesState)
    assert quick.play(state, [object(), object()]) is None


def a_record(moves: str, seed: int) -> dict[str, Any]:
    seats = [{"entry": n, "hash": n * 4, "name": n} for n in ("a", "b")]
    return {"game": SNAKES.id, "seed": seed, "seats": seats, "moves": moves, "outcome": {}}


def test_a_records_final_state_is_worked_out_in_c_as_the_rules_play_it() -> None:
    """What the standings and the site check every record with (playback.final_state): the C
    rules where they take every move, else the Python rules, which name what is wrong."""
    rules, slow = SNAKES.rules, dataclasses.replace(SNAKES, final_state=None)
    ended = 0
    for game in range(30):
        state, played = rules.initial_state(random.Random(0), 2, EMPTY), []
        for move in random_moves(random.Random(2000 + game)):
            if state.over:
                break
            state = rules.apply(state, {state.moves_played % 2: move})
            played.append(move)
        ended += state.over
        whole, part = a_record("".join(played), game), a_record("".join(played[:game]), game)
        assert quick.final_state(whole, EMPTY) == final_state(slow, whole) == state
        assert quick.final_state(part, EMPTY) == final_state(slow, part), f"game {game}"
    assert ended > 20
    too_many = a_record("".join(played) + "L", 0) if state.over else None
    for record in filter(None, (too_many, a_record("RDxR", 1), a_record("RD" * 1025, 2))):
        assert quick.final_state(record, EMPTY) is None
        with pytest.raises(PlaybackError):
            final_state(SNAKES, record)


def test_the_site_replays_a_record_in_c_exactly_as_the_rules_replay_it() -> None:
    """Against the replay that draws every frame and compares it with the one before, on games
    with enclosures, some ended by one."""
    rules = SNAKES.rules
    suffocations = 0
    for game in range(40):
        state = rules.initial_state(random.Random(0), 2, EMPTY)
        played = []
        for move in random_moves(random.Random(1000 + game)):
            if state.over:
                break
            state = rules.apply(state, {state.moves_played % 2: move})
            played.append(move)
        suffocations += state.suffocated is not None
        record = a_record("".join(played), game)
        assert quick.replay_steps(record, EMPTY) is not None
        fast, compared = replay(record), replay(record, compare=True)
        assert dataclasses.replace(fast, undo=None, numbers=None) == compared, f"game {game}"
        assert fast.undo is not None and list(map(list, fast.undo)) == backward(compared)
        rows = [(turn, *score) for turn, score in zip(compared.turns, compared.scores, strict=True)]
        assert fast.numbers == encode_numbers(rows), f"game {game}"
        assert compared.numbers is None
    assert suffocations > 5


def test_the_c_replays_page_data_is_the_rules_replays_character_for_character() -> None:
    """The ``changes`` string written in C (runner/site/changes.c) against replay.py's encode_edits:
    for each number of digits, a run of changed characters is written a character at a time up
    to some length and as one splice past it, and both ways agree at every length."""
    lengths: set[int] = set()
    for game in range(30):
        state = SNAKES.rules.initial_state(random.Random(0), 2, EMPTY)
        played = []
        for move in random_moves(random.Random(2000 + game)):
            if state.over:
                break
            state = SNAKES.rules.apply(state, {state.moves_played % 2: move})
            played.append(move)
        record = a_record("".join(played), game)
        fast, compared = replay(record), replay(record, compare=True)
        assert isinstance(fast.undo, LazyEdits), "replayed in C"
        undo = backward(compared)
        lengths |= {removed for edits in undo for _, removed, _ in edits}
        for digits in (1, 2, 3, 4):
            assert fast.undo.encoded(digits, ALPHABET, SPLICE) == encode_edits(undo, digits)
        show = presentation(SNAKES.id)
        assert page_data(fast, show, "log.txt") == page_data(compared, show, "log.txt")
    assert {1, 2, 3} <= lengths and max(lengths) > 8, "runs short and long were written"


def test_the_c_writes_no_more_than_it_has_room_for() -> None:
    loaded = quick.library()
    assert loaded is not None
    ints = ctypes.c_int * 2
    runs, at, length = ints(1, 1), ints(5, 9), ints(3, 1)
    room = 64
    out = ctypes.create_string_buffer(room)
    args = (runs, 2, at, length, b"abcd", 2, ALPHABET.encode(), ord(SPLICE))
    assert loaded.changes_of_runs(*args, out, room) == 13
    assert out.raw[:13] == b"05a06b07c,09d"
    for cap in range(13):
        out = ctypes.create_string_buffer(b"=" * room, room)
        assert loaded.changes_of_runs(*args, out, cap) == -1
        assert out.raw[cap:] == b"=" * (room - cap), f"wrote past {cap}"


def test_a_replay_that_changes_more_than_there_was_room_for_is_made_again_with_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = SNAKES.rules.initial_state(random.Random(0), 2, EMPTY)
    played = []
    for move in random_moves(random.Random(7)):
        if state.over:
            break
        state = SNAKES.rules.apply(state, {state.moves_played % 2: move})
        played.append(move)
    record = a_record("".join(played), 7)
    roomy = replay(record)
    monkeypatch.setattr(quick, "_ROOM", (0, CELLS))  # room for 16 characters, then for all
    assert replay(record) == roomy
    monkeypatch.setattr(quick, "_ROOM", (0,))
    assert quick.replay_steps(record, EMPTY) is None, "never more room than given"


def test_a_record_the_c_replay_does_not_take_is_replayed_by_the_rules() -> None:
    """A move that is not one, or moves past the game's end: the rules' replay says so."""
    for moves in ("RDQ", "R" * (MAX_MOVES + 1)):
        record = a_record(moves, 1)
        assert quick.replay_steps(record, EMPTY) is None
        with pytest.raises(ReplayError) as fast:
            replay(record)
        with pytest.raises(ReplayError) as slow:
            replay(record, compare=True)
        assert str(fast.value) == str(slow.value)
