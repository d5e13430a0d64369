"""The static check decides as the linker and the loader do (runner/season/objcheck.py): writable
memory by the linked library's segments (PT_LOAD with PF_W, minus RELRO), and no code that runs
at load. Each bypass is a real gcc-compiled bot in tests/hostile/, built in both sandboxes."""

from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

import pytest

from runner.games import find_game
from runner.games.base import Termination
from runner.games.snakes import SPEC as SNAKES
from runner.games.snakes import Snakes
from runner.play.referee import GameResult, Player, play_game
from runner.sandbox.local import COMPILE, HEADER, LINK, LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season import objcheck
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

HOSTILE = Path(__file__).parent / "hostile"
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
WRITABLE = "the rules allow no writable global or static data other than bot_name"
AT_LOAD = "the bot's code may run only when `bot` is called"

REFUSED = {
    "rostate": (r"global variable `moves_played` \(in \.data\)", WRITABLE),
    "orphan": (r"global variable `moves_played` \(in koth_state\)", WRITABLE),
    "anonymous": (r"writable section \.data holds 8 bytes of data besides bot_name", WRITABLE),
    "wxsection": (r"both writable and executable", "code may not be written at run time"),
    "ifunc": (r"`bot` is an indirect function \(IFUNC\)", AT_LOAD),
    "irelative": (r"R_X86_64_IRELATIVE", AT_LOAD),
    "initfunc": (r"DT_INIT \(an _init function", AT_LOAD),
    "initarray": (r"DT_INIT_ARRAY", AT_LOAD),
    "ctors": (r"DT_INIT_ARRAY", AT_LOAD),
    "destructor": (r"DT_FINI_ARRAY", AT_LOAD),
    "tlsinit": (r"thread-local variable `moves_played`", WRITABLE),
    "textrel": (r"DT_TEXTREL", "not allowed"),
}


@pytest.fixture
def sandbox(any_sandbox: LocalSandbox) -> LocalSandbox:
    return any_sandbox


def build(sandbox: LocalSandbox, root: Path, name: str) -> Build:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    (folder / "bot.c").write_text((HOSTILE / f"{name}.c").read_text())
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a hostile bot\nlanguage: c\n"
    )
    return build_entry(load_entry(folder), root / "b", sandbox, LIMITS, 60, SNAKES)


def play(sandbox: LocalSandbox, x: Build, o: Build) -> GameResult:
    players = [Player(b.entry, b.content_hash, b.jail_path) for b in (x, o)]
    return play_game(find_game(Snakes.id), players, sandbox, LIMITS, seed=1)


@pytest.mark.parametrize("bot", sorted(REFUSED))
def test_each_bypass_is_refused_at_build(bot: str, sandbox: LocalSandbox, tmp_path: Path) -> None:
    symbol, rule = REFUSED[bot]
    result = build(sandbox, tmp_path, bot)
    assert not result.ok and result.stage == "check", result.message
    assert re.search(symbol, result.message), result.message
    assert rule in result.message, result.message


def test_a_const_pointer_table_in_data_rel_ro_builds_and_plays(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    table = build(sandbox, tmp_path, "constpointers")
    assert table.ok, table.message
    steady = build(sandbox, tmp_path, "steady")
    result = play(sandbox, table, steady)
    assert not result.outcome.termination.is_fault, result.outcome.detail


def test_a_section_named_like_relro_is_read_only_as_the_check_says(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """`.data.rel.ro.*` is one of the linker's RELRO names: it passes, and writing faults."""
    writer = build(sandbox, tmp_path, "relrowrite")
    assert writer.ok, writer.message
    steady = build(sandbox, tmp_path, "steady")
    outcome = play(sandbox, writer, steady).outcome
    assert outcome.termination is Termination.CRASH and outcome.faulty == 0, outcome.detail
    assert "SIGSEGV at turn 1" in outcome.detail


# -- the library check on links the build never makes ---------------------------------------

CLEAN = (HOSTILE / "steady.c").read_text()


def link(tmp_path: Path, flags: list[str]) -> bytes:
    (tmp_path / "bot.c").write_text(CLEAN)
    (tmp_path / HEADER).write_text("")
    subprocess.run(COMPILE, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    command = ["gcc", "-shared", *flags, "-o", "bot.so", "bot.o", "-lm"]
    subprocess.run(command, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    return (tmp_path / "bot.so").read_bytes()


def test_the_build_links_a_clean_bot_into_a_library_with_nothing_to_refuse(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot.c").write_text(CLEAN)
    (tmp_path / HEADER).write_text("")
    subprocess.run(COMPILE, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    subprocess.run(LINK, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    assert objcheck.check_file((tmp_path / "bot.so").read_bytes()) == []
    assert objcheck.check_file((tmp_path / "bot.o").read_bytes()) == []


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], "DT_INIT"),  # the C runtime's start files bring _init, _fini and init arrays
        (["-nostartfiles", "-Wl,-z,execstack"], "executable stack"),
        (["-nostartfiles", "-Wl,-rpath,/tmp/evil"], "DT_RUNPATH"),
        (["-nostartfiles", "-Wl,--disable-new-dtags,-rpath,/tmp/evil"], "DT_RPATH"),
        (["-nostartfiles", "-Wl,--no-as-needed", "-lstdc++"], "needs `libstdc++.so.6`"),
    ],
)
def test_the_library_check_refuses_what_the_loader_would_run_or_load(
    flags: list[str], expected: str, tmp_path: Path
) -> None:
    problems = objcheck.check_library(link(tmp_path, flags))
    assert any(expected in p for p in problems), problems


def test_garbage_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    library = bytearray(link(tmp_path, ["-nostartfiles"]))
    zero_entsize = bytearray(library)
    (shoff,) = struct.unpack_from("<Q", library, 40)
    (shnum,) = struct.unpack_from("<H", library, 60)
    for i in range(shnum):  # every section's entry size 0: a division by zero for a symbol table
        struct.pack_into("<Q", zero_entsize, shoff + i * 64 + 56, 0)
    truncated = library[: len(library) // 2]
    garbage = b"\x7fELF\x02\x01" + b"\0" * 10 + b"\x03\x00" + b"\xff" * 64
    for data in (b"", b"\x7fELF", garbage, bytes(zero_entsize), bytes(truncated)):
        assert objcheck.check_file(data), data
        assert objcheck.check_library(data) and objcheck.check_object(data)
