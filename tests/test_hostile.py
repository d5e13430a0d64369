"""Hostile bots (tests/hostile/*.c) against both sandboxes, local and Docker.

Each bot misbehaves on its first move. It must lose with the right reason, or be refused at
build, or — where the misbehaviour is harmless by design — play on without effect. Bots that try
to break out (write files, connect, read other sources, fork) answer 'Q' if they succeed, so a
hole in the sandbox shows up as an invalid move instead of passing silently. After every game the
host must still work and no bot process may be left behind.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from runner.games import find_game
from runner.games.base import Termination
from runner.games.snakes import SPEC as SNAKES
from runner.jail import zygote
from runner.play.referee import GameResult, Player, play_game
from runner.sandbox.local import LocalSandbox, blanks_of_every_zygote
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

HOSTILE = Path(__file__).parent / "hostile"
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
ROOT = os.geteuid() == 0


@dataclass(frozen=True)
class Case:
    bot: str
    termination: Termination | None  # None: the bot must not be at fault
    detail: str  # regex the outcome's detail must match
    limits: BotLimits = LIMITS


CASES = [
    Case("segfault", Termination.CRASH, r"^X \(Segfault\) SIGSEGV at turn 1$"),
    Case("divzero", Termination.CRASH, r"SIGFPE at turn 1$"),
    Case("abort", Termination.CRASH, r"SIGABRT at turn 1$"),
    Case("exit0", Termination.CRASH, r"exited with code 0 at turn 1$"),
    Case("spin", Termination.TIMEOUT, r"over 100 ms CPU on one move at turn 1$"),
    Case("sleeper", Termination.TIMEOUT, r"no reply within 1 s of wall-clock time at turn 1$"),
    Case("forkbomb", Termination.TIMEOUT, r"over 100 ms CPU on one move at turn 1$"),
    Case("recursion", Termination.CRASH, r"SIGSEGV at turn 1$"),
    Case("flood", Termination.TIMEOUT, r"over 100 ms CPU on one move at turn 1$"),
    Case("badmove", Termination.INVALID_MOVE, r"returned 81 \('Q'\).* at turn 1$"),
    Case("sigstop", Termination.CRASH, r"stopped itself with SIGSTOP at turn 1$"),
    Case("closefds", None, ""),
    Case("writefile", None, ""),
    Case("network", None, ""),
    Case("readsource", None, ""),
    Case("boardwriter", None, ""),
    Case("namecounter", None, ""),
]
if ROOT:  # the memory cgroup needs root; without it the address-space limit makes malloc fail
    # Faulting in 256 MiB of pages takes more than 100 ms of CPU: give it time, so that what
    # stops it is the memory limit.
    roomy = BotLimits(move_cpu_s=5.0, game_cpu_s=10.0, move_wall_s=10.0, memory_bytes=256 << 20)
    CASES.append(
        Case("memhog", Termination.MEMORY, r"over the 256 MiB memory limit at turn 1$", roomy)
    )


@pytest.fixture
def sandbox(any_sandbox: LocalSandbox) -> LocalSandbox:
    """Every case runs in the local sandbox and in Docker (tests/conftest.py)."""
    return any_sandbox


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def make_entry(root: Path, name: str, source: str) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: hostile test bot\nlanguage: c\n"
    )
    return folder


def build(sandbox: LocalSandbox, root: Path, name: str, source: str) -> Build:
    entry = load_entry(make_entry(root, name, source))
    return build_entry(entry, root / "build", sandbox, LIMITS, 60, SNAKES)


def play(
    sandbox: LocalSandbox, root: Path, x: Build, o: Build, limits: BotLimits = LIMITS
) -> GameResult:
    players = [Player(b.entry, b.content_hash, b.jail_path) for b in (x, o)]
    return play_game(find_game("snakes-v2"), players, sandbox, limits, seed=1)


def bot_processes() -> list[int]:
    """Live processes under any sandbox uid (root only: otherwise bots keep the host's uid) but
    the blanks of this process's zygotes (a blank primed for a bot that keeps coming back
    already has its uid; no bot code has run in it) and processes in a container
    (tests/test_docker.py counts a container's own).

    Machine-wide on purpose: a child that escaped a bot keeps the bot's uid but is re-parented
    away from the zygote, so only the uid finds it (and a local bot cannot move itself into a
    container's control group). So the suite assumes it is the only one running bots on this
    machine, as in CI."""
    found = []
    blanks = set(blanks_of_every_zygote())
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in blanks:
            continue
        try:
            if os.stat(entry.path).st_uid >= zygote.UID_BASE and not _in_a_container(entry.path):
                found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError):  # it ended while being looked at
            pass
    return found


def _in_a_container(proc: str) -> bool:
    groups = Path(proc, "cgroup").read_text()
    return any(line.split(":", 2)[2].startswith("/docker/") for line in groups.splitlines())


def substitutions(tmp_path: Path, listener: socket.socket) -> dict[str, str]:
    secret = make_entry(tmp_path, "secret", "int bot(int b[16][32], char p);\n") / "bot.c"
    return {
        "@OUTFILE@": str(tmp_path / "escaped.txt"),
        "@PORT@": str(listener.getsockname()[1]),
        "@SECRET@": str(secret),
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.bot)
def test_hostile_bot_loses_or_is_harmless(
    case: Case, sandbox: LocalSandbox, listener: socket.socket, tmp_path: Path
) -> None:
    source = (HOSTILE / f"{case.bot}.c").read_text()
    for key, value in substitutions(tmp_path, listener).items():
        source = source.replace(key, value)
    hostile = build(sandbox, tmp_path, case.bot, source)
    assert hostile.ok, f"{case.bot} should build: {hostile.message}"
    steady = build(sandbox, tmp_path, "steady", (HOSTILE / "steady.c").read_text())
    result = play(sandbox, tmp_path, hostile, steady, case.limits)
    outcome = result.outcome
    if case.termination is None:
        assert outcome.faulty != 0, f"{case.bot} should play on unharmed, but: {outcome.detail}"
        assert not outcome.termination.is_fault, f"the game should end normally: {outcome.detail}"
    else:
        assert outcome.termination is case.termination, (
            f"{case.bot} should lose by {case.termination.value}, "
            f"got {outcome.termination.value}: {outcome.detail}"
        )
        assert outcome.faulty == 0 and outcome.points == (0.0, 1.0), "the hostile bot must lose"
        assert re.search(case.detail, outcome.detail), f"unexpected reason: {outcome.detail!r}"

    # The sandbox held: nothing escaped to the host.
    assert not (tmp_path / "escaped.txt").exists(), "a bot created a file on the host"
    with pytest.raises(BlockingIOError):
        listener.accept()
    # The host survives and carries on: a clean game still plays to the end.
    again = play(sandbox, tmp_path, steady, steady)
    assert again.outcome.termination is Termination.NORMAL, again.outcome.detail
    if ROOT and sandbox.name == "local":  # Docker: tests/test_docker.py counts a container's
        deadline = time.monotonic() + 5
        while bot_processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bot_processes() == [], "a bot process outlived its game"


def test_flood_output_is_capped(sandbox: LocalSandbox, tmp_path: Path) -> None:
    flood = build(sandbox, tmp_path, "flood", (HOSTILE / "flood.c").read_text())
    steady = build(sandbox, tmp_path, "steady", (HOSTILE / "steady.c").read_text())
    result = play(sandbox, tmp_path, flood, steady)
    kept = result.output[0]
    assert kept.startswith("flood") or kept.startswith("err"), kept[:80]
    assert "more bytes dropped" in kept, "a flood should be cut, and the cut should be said"
    assert len(kept.encode()) < 17 * 1024, "the host must keep at most the cap of a bot's output"


def test_board_writer_plays_exactly_like_its_clean_twin(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    writer = build(sandbox, tmp_path, "boardwriter", (HOSTILE / "boardwriter.c").read_text())
    steady = build(sandbox, tmp_path, "steady", (HOSTILE / "steady.c").read_text())
    dirty = play(sandbox, tmp_path, writer, steady)
    clean = play(sandbox, tmp_path, steady, steady)
    assert dirty.moves == clean.moves, "writing to the board copy must not change the game"
    assert dirty.outcome.points == clean.outcome.points


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("staticlocal", r"static local variable `counter` \(symbol counter\.\d+ in \.bss\)"),
        ("writableglobal", r"global variable `state` \(in \.bss\)"),
    ],
)
def test_writable_data_is_refused_at_build(
    bot: str, message: str, sandbox: LocalSandbox, tmp_path: Path
) -> None:
    result = build(sandbox, tmp_path, bot, (HOSTILE / f"{bot}.c").read_text())
    assert not result.ok and result.stage == "check", result.message
    assert re.search(message, result.message), result.message
    assert "other than bot_name" in result.message, "the message should name the rule"


def test_killing_the_supervisor_is_impossible(sandbox: LocalSandbox, tmp_path: Path) -> None:
    """Each bot has a uid of its own (locally as root, and in a container, where the zygote is
    the container's root) and may signal only itself (seccomp): its kills all fail, and the
    same supervisor plays the next game."""
    if not ROOT and sandbox.name == "local":
        pytest.skip("without root the bot runs as the host's own user (seccomp alone stops it)")
    killer = build(sandbox, tmp_path, "killparent", (HOSTILE / "killparent.c").read_text())
    steady = build(sandbox, tmp_path, "steady", (HOSTILE / "steady.c").read_text())
    for _ in range(2):
        result = play(sandbox, tmp_path, killer, steady)
        assert result.outcome.termination is Termination.NORMAL, result.outcome.detail
