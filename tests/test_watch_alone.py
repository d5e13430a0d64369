"""A move asked alone takes a quick way (``WatchedBot.exchange_alone``) while everything goes as
it should, and hands over to an ``Exchange`` at anything else. Whatever a bot does, the quick way
must end the move exactly as the general one (``WatchedBot.exchange``: an Exchange driven from
the start) does: the same reply, or the same fault in the same words, and the same output kept.

Each bot here is a real program in the local sandbox. It answers its first request "ok" (after
that the host knows where the bot's CPU clock stood, and the quick way may be taken), then does
one thing to the second request, or between the two.
"""

from __future__ import annotations

import json
import os
import select
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from runner.games import find_game
from runner.jail import zygote as zygote_program
from runner.play.faults import BotFault
from runner.play.stdio import LINE_CAP, StdioBot
from runner.play.watchdog import Want, WatchedBot
from runner.sandbox import cgroups
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits, Zygote
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

LIMITS = BotLimits(
    move_cpu_s=0.1, game_cpu_s=30.0, move_wall_s=1.0, memory_bytes=256 << 20, first_move_wall_s=None
)
FIRST_WALL_S = 5.0  # the first move includes the interpreter's start, on a loaded machine too
WANT = Want(LINE_CAP, 1)
PRELUDE = """import os, sys, time
def reply(text):
    sys.stdout.write(text)
    sys.stdout.flush()
def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
sys.stdin.readline()
"""
BEHAVIOURS = {
    # The usual move: one whole line.
    "whole": 'reply("ok\\n"); sys.stdin.readline(); reply("A\\n"); sys.stdin.readline()',
    # A reply in two writes: the first read has part of it.
    "pieces": 'reply("ok\\n"); sys.stdin.readline(); reply("A"); time.sleep(0.1); '
    'reply("B\\n"); sys.stdin.readline()',
    # Words on stderr before the reply: the wake-up is not the reply alone.
    "chatty": 'reply("ok\\n"); sys.stdin.readline(); sys.stderr.write("thinking\\n"); '
    'sys.stderr.flush(); time.sleep(0.1); reply("A\\n"); sys.stdin.readline()',
    # Words on stderr written with the first reply, still unread when the second is asked.
    "chatty-before": 'sys.stderr.write("early\\n"); sys.stderr.flush(); reply("ok\\n"); '
    'sys.stdin.readline(); reply("A\\n"); sys.stdin.readline()',
    # Words on stderr with every reply, written just before it: a wake-up finds both.
    "chatty-with-replies": 'reply("ok\\n")\nfor turn in (2, 3):\n    sys.stdin.readline(); '
    'sys.stderr.write(f"turn {turn}\\n"); sys.stderr.flush(); reply("A\\n")\n'
    "sys.stdin.readline()",
    # Words written after its last reply: no move reads them.
    "last-words": 'reply("ok\\n"); sys.stdin.readline(); reply("A\\n"); '
    'sys.stderr.write("last words\\n"); sys.stderr.flush(); sys.stdin.readline()',
    # A reply with a second line after it: the next reply is there before it is asked.
    "two-lines": 'reply("ok\\n"); sys.stdin.readline(); reply("A\\nB\\n"); sys.stdin.readline()',
    # A reply written after the move ended, before the next request.
    "ahead": 'reply("ok\\n"); time.sleep(0.05); reply("B\\n"); sys.stdin.readline()',
    # No reply within the move's wall-clock limit.
    "silent": 'reply("ok\\n"); sys.stdin.readline(); time.sleep(30)',
    # The move's CPU limit, used thinking.
    "spins": 'reply("ok\\n"); sys.stdin.readline(); spin(5)',
    # CPU used between the moves, on the host's time.
    "between": 'reply("ok\\n"); spin(0.5); sys.stdin.readline(); reply("A\\n")',
    # The program ends instead of replying.
    "exits": 'reply("ok\\n"); sys.stdin.readline(); sys.exit(3)',
    # It closes its output and lives on.
    "closes": 'reply("ok\\n"); sys.stdin.readline(); os.close(1); time.sleep(30)',
    # A line longer than a reply may be.
    "long-line": 'reply("ok\\n"); sys.stdin.readline(); reply("x" * 5000); time.sleep(30)',
    # Half a line, then the end.
    "cut-short": 'reply("ok\\n"); sys.stdin.readline(); reply("A"); sys.exit(0)',
    # CPU used thinking on every move, within the limits: each move's is charged.
    "thinks": 'reply("ok\\n")\nfor turn in (2, 3):\n    sys.stdin.readline(); spin(0.03); '
    'reply("A\\n")\nsys.stdin.readline()',
}
THINKING_S = 2 * 0.03  # what "thinks" spins on its second and third moves
# What the second move ends with, the same both ways; a fault's words or the reply.
EXPECTED = {
    "whole": "A",
    "pieces": "AB",
    "chatty": "A",
    "chatty-before": "A",
    "chatty-with-replies": "A",
    "two-lines": "A",
    "last-words": "A",
    "ahead": "BotProtocolError: replied before it was asked at turn 2",
    "silent": "BotTimeout: no reply within 1 s of wall-clock time at turn 2",
    "spins": "BotTimeout: over 100 ms CPU on one move at turn 2",
    "between": "BotTimeout: used over 100 ms of CPU between its moves, before turn 2",
    "exits": "BotCrashed: exited with code 3 at turn 2",
    "closes": "BotProtocolError: closed its channel to the host at turn 2",
    "long-line": "BotProtocolError: sent a line longer than 4096 bytes at turn 2",
    "cut-short": "A",
    "thinks": "A",
}


@dataclass
class Ended:
    second: str  # the second move's reply, or its fault as "Type: words"
    third: str  # a third move's, where the second left the bot able to play one
    output: str
    cpu_s: float  # the CPU charged to the second and third moves


def built(sandbox: LocalSandbox, root: Path, name: str) -> Build:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(PRELUDE + BEHAVIOURS[name] + "\n")
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: one behaviour\nlanguage: python\n"
    )
    game = find_game("cluster-v2")
    build = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, game)
    assert build.ok, build.message
    return build


def move(bot: StdioBot, turn: int, alone: bool) -> str:
    try:
        if alone:
            exchange = bot.exchange_alone(b"go\n", WANT, turn)
            if exchange.fault is not None:
                raise exchange.fault
            assert exchange.reply is not None
            reply = exchange.reply
        else:
            reply = bot.exchange(b"go\n", WANT, turn)
    except BotFault as fault:
        return f"{type(fault).__name__}: {fault}"
    bot.moves += 1
    return reply.decode()


def between_moves(bot: StdioBot, name: str) -> None:
    """Give the bot the time it takes between its moves: what it does then (replies early,
    burns CPU) is done by the next request, however busy the machine."""

    def replied_early() -> bool:
        return bool(select.select([bot.process.reply_fd], [], [], 0)[0])

    def burnt_cpu() -> bool:
        used = (bot.process.cpu_time() or 0.0) - (bot.mark or 0.0)
        return used > 2 * LIMITS.move_cpu_s

    time.sleep(0.2)
    done = {"ahead": replied_early, "between": burnt_cpu}.get(name)
    until = time.monotonic() + 10.0
    while done is not None and not done():
        assert time.monotonic() < until, f"{name!r} did not do what it does between its moves"
        time.sleep(0.01)


def played(sandbox: LocalSandbox, build: Build, alone: bool) -> Ended:
    process = sandbox.spawn(build.jail_path, LIMITS, list(build.program or ()))
    bot = StdioBot(process, LIMITS, build.entry)
    try:
        bot.start()
        assert bot.exchange(b"go\n", WANT, 1, FIRST_WALL_S) == b"ok"
        bot.moves += 1
        first_cpu = bot.cpu_used
        between_moves(bot, build.entry)
        second = move(bot, 2, alone)
        third = move(bot, 3, alone) if ":" not in second else ""
        # Words written with a reply are read by that move or a later one, as the wake-ups fall
        # (both ways alike): what is still unread is read now, so the words compare whole.
        bot.process.drain_output(1 << 16)
        return Ended(second, third, bot.output_text(), bot.cpu_used - first_cpu)
    finally:
        bot.close()


@pytest.mark.parametrize("name", sorted(BEHAVIOURS))
def test_a_move_asked_alone_ends_as_the_general_way_ends_it(
    local_sandbox: LocalSandbox, tmp_path: Path, name: str
) -> None:
    build = built(local_sandbox, tmp_path, name)
    general = played(local_sandbox, build, alone=False)
    quick = played(local_sandbox, build, alone=True)
    assert quick.second == general.second == EXPECTED[name]
    assert quick.third == general.third
    assert quick.output == general.output


def test_what_a_bot_writes_beside_its_replies_is_kept_on_the_quick_way(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """Words written before the reply (so the wake-up is not the reply alone) are read and kept
    by the move they came with."""
    quick = played(local_sandbox, built(local_sandbox, tmp_path, "chatty"), alone=True)
    assert quick.output == "thinking"


def test_what_a_bot_wrote_after_its_last_reply_is_kept_when_it_is_closed(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """No move reads words written after the bot's last reply; closing the bot reads them, so
    the game's record has them."""
    build = built(local_sandbox, tmp_path, "last-words")
    process = local_sandbox.spawn(build.jail_path, LIMITS, list(build.program or ()))
    bot = StdioBot(process, LIMITS, build.entry)
    try:
        bot.start()
        assert bot.exchange(b"go\n", WANT, 1, FIRST_WALL_S) == b"ok"
        assert move(bot, 2, alone=True) == "A"
        time.sleep(0.3)  # its last words, written
    finally:
        bot.close()
    assert bot.output_text() == "last words"


class _ThenReplies:
    """The bot's poll, as the quick way waits on it: the first wake-up is returned as it was,
    and the bot's reply comes right after it (before the Exchange taking over looks again)."""

    def __init__(self, poll: Any, reply: Callable[[], object]) -> None:
        self.real, self.reply, self.calls = poll, reply, 0

    def register(self, fd: int, events: int) -> None:
        self.real.register(fd, events)

    def unregister(self, fd: int) -> None:
        self.real.unregister(fd)

    def poll(self, timeout: float) -> list[tuple[int, int]]:
        events: list[tuple[int, int]] = self.real.poll(timeout)
        self.calls += 1
        if self.calls == 1:
            self.reply()
        return events


def test_what_woke_the_quick_way_is_handled_by_the_exchange_that_takes_over(
    fake_zygote: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words left from the bot's last move wake the quick way, and the reply follows at once.
    The Exchange taking over handles the wake-up the quick way had (the words, read and kept)
    instead of looking again: a second look finds the reply too, takes it first, and the move
    ends with the words never read (a bot printing just before each reply would have every
    word it printed lost)."""
    host, far = fake_zygote
    zygote = Zygote(host)
    process = zygote.spawn("/jail", LIMITS, ["./bot"])
    _, fds, _, _ = socket.recv_fds(far, 1 << 16, 4)
    request, reply, identity, output = fds[0], fds[1], socket.socket(fileno=fds[2]), fds[3]
    try:
        far.send(json.dumps({"event": "spawned", "pid": 100}).encode())
        identity.send(zygote_program.IDENTIFY)  # the kernel stamps it with this process's pid
        bot = StdioBot(process, LIMITS, "printer")
        bot.start()
        bot.mark = process.cpu_time()  # as after its first move
        os.write(output, b"left from the last move\n")
        monkeypatch.setattr(bot, "poll", _ThenReplies(bot.poll, lambda: os.write(reply, b"A\n")))
        move = bot.exchange_alone(b"go\n", WANT, 2)
        assert move.fault is None and move.reply == b"A"
        assert os.read(request, 100) == b"go\n"
        assert bot.output_text() == "left from the last move"
    finally:
        os.close(reply)
        os.close(request)
        os.close(output)
        identity.close()


def test_the_quick_way_charges_the_cpu_of_every_move(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    build = built(local_sandbox, tmp_path, "thinks")
    for alone in (False, True):
        ended = played(local_sandbox, build, alone)
        assert (ended.second, ended.third) == ("A", "A")
        assert ended.cpu_s >= 0.9 * THINKING_S, f"{ended.cpu_s:.3f} s charged (alone: {alone})"


@pytest.fixture
def clocked() -> Iterator[tuple[WatchedBot, list[float | None]]]:
    """A bot around a stand-in process whose CPU clock the test sets (a unit test of the quick
    way's last step: the limits a real bot reaches only at the edge of a poll's timeout)."""
    reads, writes = zip(*(os.pipe() for _ in range(3)), strict=True)
    clock: list[float | None] = [1.0]
    process = SimpleNamespace(
        reply_fd=reads[0],
        output_fd=reads[1],
        zygote=SimpleNamespace(fileno=reads[2]),
        cpu_time=lambda: clock[0],
    )
    bot = WatchedBot(process, LIMITS, "stand-in")  # type: ignore[arg-type]
    bot.mark = 1.0
    try:
        yield bot, clock
    finally:
        for fd in reads + writes:
            os.close(fd)


@pytest.mark.parametrize(
    ("reply", "end_cpu", "game_used", "ends"),
    [
        (b"A\n", 1.05, 0.0, True),
        (b"A\nB", 1.05, 0.0, True),  # the rest is kept unread (the next move's fault)
        (b"A", 1.05, 0.0, False),  # not all there yet
        (b"x" * 5000, 1.05, 0.0, False),  # a line too long: the Exchange says so
        (b"A\n", 1.11, 0.0, False),  # over the move's CPU
        (b"A\n", 1.05, 29.97, False),  # over the game's CPU
        (b"A\n", None, 0.0, False),  # the clock is gone: the process ended
    ],
)
def test_the_quick_way_ends_a_move_itself_only_within_its_limits(
    clocked: tuple[WatchedBot, list[float | None]],
    reply: bytes,
    end_cpu: float | None,
    game_used: float,
    ends: bool,
) -> None:
    bot, clock = clocked
    bot.cpu_used = game_used
    clock[0] = end_cpu
    ended = bot._ended(WANT, 2, 1.0, (1.0, 1.0, time.monotonic() + 1.0, 3, reply))
    if ends:
        assert ended is not None and ended.done and ended.fault is None
        assert (ended.reply, bot.unread) == tuple(reply.split(b"\n", 1))
        assert bot.cpu_used == pytest.approx(game_used + 0.05)
        assert bot.mark == end_cpu
    else:
        assert ended is None  # handed over to an Exchange, which judges the move
        assert (bot.cpu_used, bot.mark, bot.unread) == (game_used, 1.0, b"")


POLICY_BOT = """import os, sys
while sys.stdin.readline():
    sys.stdout.write(f"{os.sched_getscheduler(0)}\\n")
    sys.stdout.flush()
"""


def _weight_file(pid: int) -> tuple[Path, int] | None:
    """The CPU weight file of the cgroup ``pid`` is in, where that is not this process's own,
    and the cgroup version it is under."""
    group = cgroups.find(pid, "cpu")
    if group is None or group == cgroups.find("self", "cpu"):
        return None
    return group.folder / cgroups.WEIGHT_FILE[group.version], group.version


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may set a bot's scheduling back")
@pytest.mark.parametrize("kind", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_program_computes_between_its_moves_only_on_cpu_nothing_else_wants(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Before its first move and after each, a program bot is SCHED_IDLE, its autogroup at nice
    19 and its container's CPU weight the least: what it computes there no longer slows the seat
    that is moving. While it moves it is scheduled as usual (it says so itself), asked either
    way; its container's weight is set back when it is closed, for the bot after it."""
    sandbox = request.getfixturevalue(f"{kind}_sandbox")
    folder = tmp_path / "entries" / "policy"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(POLICY_BOT)
    (folder / "entry.yaml").write_text(
        "name: policy\nauthor: tests\ndescription: its scheduling\nlanguage: python\n"
    )
    game = find_game("cluster-v2")
    build = build_entry(load_entry(folder), tmp_path / "build", sandbox, LIMITS, 60, game)
    assert build.ok, build.message
    process = sandbox.spawn(build.jail_path, LIMITS, list(build.program or ()))
    bot = StdioBot(process, LIMITS, build.entry)
    try:
        bot.start()
        pid = process.host_pid
        assert pid is not None
        found = _weight_file(pid)
        assert (found is None) == (kind == "local"), "a container is a CPU group of its own"
        weight, version = found if found else (None, 1)

        def between_moves() -> tuple[int, str, str]:
            nice = Path(f"/proc/{pid}/autogroup").read_text().split()[-1]
            return os.sched_getscheduler(pid), nice, weight.read_text() if weight else ""

        idle = (os.SCHED_IDLE, "19", cgroups.LEAST_WEIGHT[version] + "\n" if weight else "")
        assert between_moves() == idle, "before its first move"
        assert bot.exchange(b"go\n", WANT, 1, FIRST_WALL_S) == str(os.SCHED_OTHER).encode()
        assert between_moves() == idle, "after a move"
        bot.moves += 1
        quick = bot.exchange_alone(b"go\n", WANT, 2)
        assert quick.fault is None and quick.reply == str(os.SCHED_OTHER).encode()
        assert between_moves() == idle, "after a quick move"
    finally:
        bot.close()
    if weight is not None:  # a container made with no weight of its own: the default
        assert weight.read_text() == cgroups.DEFAULT_WEIGHT[version] + "\n", "set back"
