"""A person's seat (runner/play/human.py, runner/play/terminal.py): `koth play you random random
random` steers snake A from the keyboard.

The keys are a terminal's bytes (arrow keys in both of their forms, letters); the seat plays its
last key's move turn after turn, a move every ``pace`` seconds; the referee drives it in one
``gather`` with the bots, so a bot that hangs is stopped at its own limit while the person's move
is still in flight. Played here with a pipe for a keyboard and, end to end, with a pseudo-
terminal in front of `koth play`.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from multisnake_games import NAMES, NO_SANDBOX, players

from runner.cli.main import main
from runner.games.base import Termination
from runner.games.multisnake import SPEC
from runner.play.referee import Player, play_game
from runner.play.terminal import KeyDecoder
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

REPO = Path(__file__).resolve().parents[1]
UP, DOWN, RIGHT, LEFT = b"\x1b[A", b"\x1b[B", b"\x1b[C", b"\x1b[D"
LIMITS = BotLimits(
    move_cpu_s=0.1, game_cpu_s=30.0, move_wall_s=0.3, memory_bytes=256 << 20, first_move_wall_s=0.3
)
# A in the second row under a wall (so its first free direction is right), B far away.
FIELD = "\n".join(
    [
        "............",
        ".#..........",
        ".A..........",
        "............",
        "............",
        "............",
        "............",
        ".........B..",
        "............",
        "............",
    ]
)


# -- the keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "keys"),
    [
        (UP + DOWN + RIGHT + LEFT, ["up", "down", "right", "left"]),
        (b"\x1bOA\x1bOD", ["up", "left"]),  # the application cursor mode's form
        (b"\x1b[1;2A\x1b[1;5C", ["up", "right"]),  # with Shift, with Ctrl
        (b"wAsD", ["w", "a", "s", "d"]),  # letters in lower case: Caps Lock changes nothing
        (b"\x1b[5~\x1b[H\x01\x7fx", ["x"]),  # Page Up, Home, Ctrl-A, Backspace: no key of ours
        (b"\x1bw", ["w"]),  # the Escape key alone, then a key
    ],
)
def test_the_terminal_bytes_read_as_keys(data: bytes, keys: list[str]) -> None:
    assert KeyDecoder().feed(data) == keys


def test_a_key_cut_between_two_reads_is_read_whole() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"w\x1b") == ["w"]
    assert decoder.feed(b"[") == []
    assert decoder.feed(b"Dd") == ["left", "d"]


# -- the seat, with a pipe for a keyboard --------------------------------------------------------


@pytest.fixture
def keyboard() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        try:
            os.close(fd)
        except OSError:
            pass


def person(fd: int, pace: float) -> Player:
    from runner.play.human import HUMAN, human_seat

    return Player(HUMAN, "human", Path(os.devnull), opens=human_seat(fd, pace))


def test_the_last_key_holds_until_another_and_a_closed_keyboard_leaves(
    keyboard: tuple[int, int],
) -> None:
    read, write = keyboard
    script = {2: UP, 5: b"a"}  # after turn 2: the up arrow; after turn 5: the key a (left)

    def seen(state: Any) -> None:
        if state.turns in script:
            os.write(write, script[state.turns])
        if state.turns == 8:
            os.close(write)  # the person goes away

    seats = [person(read, 0.01), *players(NAMES[:1], [3], seed=1)]
    setup = {"map": FIELD, "period": 25}
    result = play_game(SPEC, seats, NO_SANDBOX, LIMITS, 1, on_state=seen, setup=setup)
    moves = [turn[0] for turn in result.moves]
    assert moves[:8] == [">", ">", "^", "^", "^", "<", "<", "<"], (
        "before any key the first free direction (right: a wall above), then each key's "
        "direction from the turn after it, kept while no other key comes"
    )
    # The person's leaving is a fault like a bot's: A dies in that turn, B's move of it is
    # played, and B, alive after it, wins (multisnake-v2: two seats as any other).
    outcome = result.outcome
    (fault,) = outcome.faults
    assert (fault.seat, fault.termination) == (0, Termination.DISCONNECT)
    assert fault.detail == "A (you) left the game (the keyboard closed) at turn 9"
    assert outcome.points == (0.0, 1.0) and len(result.moves) == 9, "turn 9 was played"
    assert result.names[0] == "you" and result.cpu_s[0] == 0.0


HANGER = """import sys, time
sys.stdin.readline()
width, height = 16, 12
for _ in range(height):
    sys.stdin.readline()
while True:
    sys.stderr.write("still here\\n"); sys.stderr.flush()
    time.sleep(0.05)
"""


def built(tmp_path: Path, sandbox: Any, name: str, source: str) -> Build:
    folder = tmp_path / "entries" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: python\n"
    )
    result = build_entry(load_entry(folder), tmp_path / "build", sandbox, LIMITS, 60, SPEC)
    assert result.ok, result.message
    return result


def test_a_person_taking_their_time_never_holds_up_a_bots_watchdog(
    tmp_path: Path, local_sandbox: Any, keyboard: tuple[int, int]
) -> None:
    read, write = keyboard
    hanger = built(tmp_path, local_sandbox, "hanger", HANGER)
    pace = 4.0  # the person's move is in flight for 4 s; the hanger's limit is 0.3 s
    seats = [
        person(read, pace),
        hanger.player(),
        *players(NAMES[2:4], [3, 4], seed=2),
    ]

    def seen(state: Any) -> None:
        if state.turns == 1:
            os.close(write)  # after one turn the person goes: the bots play on quickly

    setup = SPEC.sample_setup(4)
    result = play_game(SPEC, seats, local_sandbox, LIMITS, 1, on_state=seen, setup=setup)
    faults = {f.seat: f for f in result.outcome.faults}
    assert faults[1].termination is Termination.TIMEOUT and faults[1].turn == 1
    assert "no reply within 0.3 s of wall-clock time at turn 1" in faults[1].detail
    lived = result.output[1].count("still here")
    assert 1 <= lived < 40, (
        f"the hanger was stopped at its 0.3 s limit, long before the person's 4 s move ended "
        f"(it said 'still here' {lived} times, every 0.05 s)"
    )
    assert result.moves[0][0] == "^", "the person's move of turn 1 (no key: up, the first free)"
    assert faults[0].detail == "A (you) left the game (the keyboard closed) at turn 2"


CHATTER = """import sys
width, height = map(int, sys.stdin.readline().split()[:2])
while True:
    rows = [sys.stdin.readline() for _ in range(height)]
    if not rows[-1]:
        break
    print(">", flush=True)
    sys.stderr.write("a line for the log, after the reply\\n"); sys.stderr.flush()
"""


def test_a_bot_that_writes_after_its_reply_does_not_keep_the_host_busy(
    tmp_path: Path, local_sandbox: Any, keyboard: tuple[int, int]
) -> None:
    read, write = keyboard
    chatter = built(tmp_path, local_sandbox, "chatter", CHATTER)
    seats = [
        person(read, 1.0),
        chatter.player(),
    ]

    def seen(state: Any) -> None:
        if state.turns == 2:
            os.close(write)

    host = time.process_time()
    setup = SPEC.sample_setup(2)
    result = play_game(SPEC, seats, local_sandbox, LIMITS, 1, on_state=seen, setup=setup)
    used = time.process_time() - host
    # Two turns, and its move of the third, in which the person left (played, as the rules say)
    assert [turn[1] for turn in result.moves] == [">", ">", ">"]
    assert "a line for the log, after the reply" in result.output[1]
    assert used < 0.5, (
        f"while the person's 1 s moves were in flight, the host used {used:.2f} s of CPU: "
        "a finished bot's output must not wake the host's loop again and again"
    )


# -- koth play, in a terminal --------------------------------------------------------------------


def example_copy(folder: Path) -> Path:
    example = REPO / "examples" / "multisnake"
    for part in ("entries", "maps"):
        shutil.copytree(example / part, folder / part)
    shutil.copy(example / "tournament.yaml", folder)
    return folder / "tournament.yaml"


def read_all(fd: int, seen: bytearray, within: float, until: bytes = b"") -> None:
    """Read the terminal into ``seen`` until ``until`` shows (if given) or the program ends."""
    deadline = time.monotonic() + within
    while not (until and until in seen):
        assert time.monotonic() < deadline, f"nothing more within {within} s: {bytes(seen)!r}"
        if select.select([fd], [], [], 0.1)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the program ended: its terminal is gone
                chunk = b""
            if not chunk:
                assert not until, f"the program ended before {until!r}: {bytes(seen)!r}"
                return
            seen += chunk


def test_koth_play_you_steers_snake_a_with_the_arrow_keys_in_a_terminal(tmp_path: Path) -> None:
    config = example_copy(tmp_path)
    argv = ["play", "you", "random", "random", "random", "--config", str(config)]
    argv += ["--pace", "0.25", "--json", "--compact"]
    pid, terminal = pty.fork()
    if pid == 0:  # the child: koth play on the pseudo-terminal
        os.chdir(REPO)
        os.execv(sys.executable, [sys.executable, "-m", "runner.cli.main", *argv])
    seen = bytearray()
    try:
        read_all(terminal, seen, 120, until=b"You are A: the arrow keys")
        os.write(terminal, UP)  # the person presses the up arrow once, then nothing
        read_all(terminal, seen, 600)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(terminal)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, bytes(seen[-2000:])
    text = seen.decode("utf-8", "replace")
    assert "\x1b[?25l" in text and text.rfind("\x1b[?25h") > text.rfind("\x1b[?25l"), (
        "the cursor is hidden while the game runs and shown again at its end"
    )
    record = json.loads(text[text.rfind('{"key"') :].splitlines()[0])
    assert [s["entry"] for s in record["seats"]] == ["you", "random", "random", "random"]
    maze = (REPO / "examples" / "multisnake" / "maps" / "maze.map").read_text().splitlines()
    assert maze[1] in text, "played on the configuration's first map for four: the maze"
    mine = [turn[0] for turn in record["moves"] if turn[0] is not None]
    first = mine[0]
    held = mine[next((k for k, m in enumerate(mine) if m == "^"), len(mine)) :]
    assert held and set(held) == {"^"}, (
        f"snake A went {first!r} (the first free direction) until the up arrow, then up for "
        f"every turn after it, no other key coming: {mine}"
    )
    assert set(mine[: len(mine) - len(held)]) <= {first}


def test_you_needs_a_terminal_and_a_game_with_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(example_copy(tmp_path))
    assert main(["play", "you", "random", "random", "random", "--config", config]) == 2
    said = capsys.readouterr().err
    assert "standard input is not a terminal" in said and "Fix: run `koth play` in a" in said
    assert main(["play", "you", "you", "random", "random", "--config", config]) == 2
    assert "`you` may take one seat, not 2" in capsys.readouterr().err
    assert main(["play", "you", "greedy", "--config", str(REPO / "tournament.yaml")]) == 2
    assert "snakes-v2 cannot be played from the keyboard" in capsys.readouterr().err
