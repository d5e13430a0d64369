"""`koth play … --watch` in a terminal (runner/tools/watch.py): driven through a real
pseudo-terminal of 30 rows by 100 columns, its output read into a terminal emulator (pyte), keys
sent as a person types them. What is asserted is what the screen shows: the players' names and
scores in colour on the top row, a Cluster frame (~50 rows) cropped under them, the paused state,
one step, q. Piped or with NO_COLOR, the same game is plain text.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyte
import pytest

REPO = Path(__file__).resolve().parents[1]
ROWS, COLUMNS = 30, 100
SETTLE = 0.5  # how long a paused game is watched for a frame it should not draw


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the Cluster example (its entries are Python programs: nothing to compile)."""
    folder = tmp_path_factory.mktemp("cluster")
    shutil.copytree(REPO / "examples" / "cluster" / "entries", folder / "entries")
    shutil.copy(REPO / "examples" / "cluster" / "tournament.yaml", folder)
    return folder / "tournament.yaml"


class Terminal:
    """`koth ARGV` on a pseudo-terminal of ROWS × COLUMNS, seen through an emulator."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal's size first, then koth
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            os.chdir(REPO)
            os.execve(sys.executable, [sys.executable, "-m", "runner.cli.main", *argv], env)
        self.pid, self.fd = pid, fd
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.status: int | None = None

    def _read(self, timeout: float) -> bool:
        """Feed what the program wrote within ``timeout``; False once it has ended."""
        if not select.select([self.fd], [], [], timeout)[0]:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the program ended: its terminal is gone
            chunk = b""
        self.raw += chunk
        self.stream.feed(chunk)
        return bool(chunk)

    def until(self, what: str, test: Callable[[list[str]], bool], within: float = 120) -> None:
        deadline = time.monotonic() + within
        while not test(self.screen.display):
            assert time.monotonic() < deadline, f"never on screen: {what}\n{self.shown()}"
            assert self._read(0.1), f"the program ended before {what}:\n{self.shown()}"

    def settle(self) -> None:
        """Read whatever comes within SETTLE seconds of quiet."""
        deadline = time.monotonic() + SETTLE
        while time.monotonic() < deadline and self._read(0.05):
            pass

    def send(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def finish(self) -> int:
        while self._read(0.1):
            pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def shown(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def colour_of(self, row: int, text: str) -> str:
        """The foreground colour of the first character of ``text`` on screen row ``row``."""
        column = self.screen.display[row].index(text)
        return str(self.screen.buffer[row][column].fg)


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    return env | extra


@pytest.fixture
def watched(cluster: Path) -> Iterator[Terminal]:
    argv = ["play", "blocker", "greedy", "--config", str(cluster), "--watch", "--delay", "0.05"]
    terminal = Terminal(argv, child_env())
    try:
        yield terminal
    finally:
        if terminal.status is None:
            os.kill(terminal.pid, 9)
            terminal.finish()


def frame_line(display: list[str]) -> str:
    """Cluster's own line naming the turn and who moves (the frame's second line)."""
    return next(line for line in display if "to move" in line)


def mover(line: str) -> str:
    """Who is to move in Cluster's frame line ("turn   5: Blue to move, hand ...")."""
    return line.split(": ", 1)[1].split(" to move", 1)[0]


def test_the_watch_shows_names_scores_in_colour_pauses_steps_and_quits(
    watched: Terminal,
) -> None:
    term = watched
    term.until(
        "the names on the top row over a cropped board",
        lambda d: "Blue blocker" in d[0] and "more row(s) above" in d[-1],
    )
    top = term.screen.display[0]
    assert "Blue blocker longest line: " in top and "Red greedy longest line: " in top, top
    assert term.colour_of(0, "Blue blocker") == "blue", "Blue's name is in blue"
    assert term.colour_of(0, "Red greedy") == "red", "Red's name is in red"
    assert "space pause" in term.screen.display[1], "the keys are on screen"
    last = term.screen.display[-1]
    assert "more row(s) above" in last, f"a 48-row board on 30 rows says it is cropped: {last!r}"

    term.send(b" ")
    term.until("the paused state", lambda d: "PAUSED" in d[1])
    term.settle()  # the rest of the frame being drawn: a redraw may come in several reads
    paused = term.shown()
    term.settle()
    assert term.shown() == paused, "a paused game draws no further move"
    assert "Blue blocker" in term.screen.display[0], "the status line stays on the top row"

    before = frame_line(term.screen.display)
    term.send(b"n")
    term.until("one step", lambda d: frame_line(d) != before)
    term.settle()
    stepped = term.shown()
    assert mover(frame_line(term.screen.display)) != mover(before), "one move: the other's turn"
    term.settle()
    assert term.shown() == stepped, "a step plays one move and stays paused"
    assert "PAUSED" in term.screen.display[1]
    before = frame_line(term.screen.display)
    term.send(b"\x1b[C")  # → steps too
    term.until("another step", lambda d: frame_line(d) != before)
    term.settle()
    assert mover(frame_line(term.screen.display)) != mover(before), "one move: the other's turn"

    # ↑/↓ move the board's window; the frame's own lines above its board stay.
    hidden = re.search(r"(\d+) more row\(s\) above, (\d+) below", term.screen.display[-1])
    assert hidden, term.screen.display[-1]
    above, below = int(hidden[1]), int(hidden[2])
    key, then = (b"\x1b[A", max(above - 4, 0)) if above else (b"\x1b[B", min(4, below))
    term.send(key)
    term.until("the board scrolled", lambda d: f" {then} more row(s) above" in d[-1])
    assert "gravity" in term.screen.display[2] and "to move" in term.screen.display[3]
    assert "PAUSED" in term.screen.display[1], "scrolling does not resume the game"

    term.send(b" ")  # resume: the game plays on
    term.until("the game going on", lambda d: "PAUSED" not in d[1])
    term.send(b"q")
    term.status = term.finish()
    assert term.status == 130, f"q stops the game: exit {term.status}\n{term.shown()}"
    assert b"stopped (q)" in term.raw
    # Every frame was drawn in place: the status line never left the top row.
    assert "\x1b[2J" not in term.raw.decode("utf-8", "replace"), "no frame clears and scrolls"


def test_no_color_and_pipes_get_plain_text(cluster: Path) -> None:
    argv = ["play", "blocker", "greedy", "--config", str(cluster), "--watch", "--delay", "0"]
    term = Terminal(argv, child_env(NO_COLOR="1"))
    term.until("the names", lambda d: "Blue blocker" in d[0])
    assert term.colour_of(0, "Blue blocker") == "default", "NO_COLOR: no colour"
    term.send(b"q")
    term.status = term.finish()
    assert b"\x1b[0;3" not in term.raw and b"\x1b[1;3" not in term.raw

    piped = subprocess.run(
        [sys.executable, "-m", "runner.cli.main", *argv],
        cwd=REPO,
        env=child_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert "\x1b" not in piped.stdout, "a pipe gets no escape sequences"
    frames = [line for line in piped.stdout.splitlines() if line.startswith("Blue blocker")]
    assert len(frames) > 10 and all("Red greedy" in f for f in frames), frames[:3]
    assert "result: " in piped.stdout, "the result follows the frames"


def test_replay_watch_keeps_the_games_header_on_screen_and_pauses(tmp_path: Path) -> None:
    golden = REPO / "tests" / "golden" / "records" / "cluster-example.jsonl"
    record = json.loads(golden.read_text().splitlines()[2])
    results = tmp_path / "games.jsonl"
    results.write_text(json.dumps(record) + "\n")
    config = REPO / "examples" / "cluster" / "tournament.yaml"
    argv = ["replay", record["key"][:12], "--config", str(config), "--results", str(results)]
    term = Terminal([*argv, "--watch", "--delay", "0.05"], child_env())
    try:
        term.until(
            "the game's header over a cropped step",
            lambda d: d[0].startswith(f"game {record['key'][:16]}") and "more row(s)" in d[-1],
        )
        keys_row = next(k for k, line in enumerate(term.screen.display) if "space pause" in line)
        term.send(b" ")
        term.until("the paused state", lambda d: "PAUSED" in d[keys_row])
        paused = term.shown()
        term.settle()
        assert term.shown() == paused, "a paused replay stays on its step"
        assert term.screen.display[0].startswith("game "), "the header stays on the top row"
        term.send(b"q")
        term.status = term.finish()
    finally:
        if term.status is None:
            os.kill(term.pid, 9)
            term.finish()
    assert term.status == 0, term.shown()


def test_each_seats_pieces_take_its_colour_in_every_game() -> None:
    from runner.games import GAMES, find_game
    from runner.tools.watch import paint

    snakes, cluster = find_game("snakes-v2").presentation, find_game("cluster-v2").presentation
    assert paint(["X*O@."], snakes) == [["34", "1;34", "31", "1;31", ""]], "heads are bold"
    board = ["status", "status", "B b R r .", "", "ruler"]  # Cluster colours its board lines only
    assert paint(board, cluster)[2][::2] == ["34", "1;34", "31", "1;31", ""]
    for name in GAMES:
        spec = find_game(name)
        rng = random.Random(1)
        seats = spec.info.min_players
        state = spec.rules.initial_state(rng, seats, spec.sample_setup(seats))
        frame = spec.rules.render_text(state).split("\n")
        layer = spec.presentation.layer(state) if spec.presentation.layer else ""
        painted = paint(frame, spec.presentation, layer)
        assert [len(p) for p in painted] == [len(line) for line in frame], name
