"""Python bots run in a warm fork of an interpreter started as they would be (runner/jail/
zygote.py, ``_run_python``): each is still a fresh process that sees what ``python3 -I -B
bot.py`` would show it, keeps nothing from one process to the next, and fails as Python does.

Played in both sandboxes through the Easter Egg Hunt's seats (a process per bot per turn), and
compared with the same script started cold by the same interpreter in the same sandbox.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from runner.games.egghunt import RULES, SPEC
from runner.jail import zygote
from runner.play.seats import Entrant, Seat, open_seat
from runner.play.watchdog import gather
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

LIMITS = BotLimits(move_cpu_s=0.5, game_cpu_s=30.0, move_wall_s=2.0, memory_bytes=256 << 20)
STATE = RULES.initial_state(random.Random(5), 7, {})

# What the bot can see of its interpreter, taken before it imports anything itself.
LOOK = """import sys
modules = sorted(sys.modules)
import json, os
view = {
    "modules": modules,
    "argv": sys.argv,
    "orig_argv": sys.orig_argv,
    "path": sys.path,
    "flags": list(sys.flags),
    "environ": dict(os.environ),
    "name": __name__,
    "file": [os.path.isabs(__file__), os.path.relpath(__file__)],
    "main": sorted(k for k in vars(sys.modules["__main__"]) if k != "__annotations__"),
    "handling": repr(sys.exc_info()),
    "stdout": [sys.stdout.encoding, sys.stdout.errors, sys.stdout.line_buffering],
    "stdin": [sys.stdin.encoding, sys.stdin.isatty()],
    "executable": sys.executable,
}
frames = len(__import__("traceback").extract_stack())
for _ in range(6):
    sys.stdin.readline()
print(9)
print("N")
print(json.dumps(view | {"frames": frames}))
"""
# Tries to leave something for the next process in every place a fork shares with its parent.
KEEPER = """import builtins, os, random, sys
found = [
    name
    for name, there in (
        ("builtins", hasattr(builtins, "koth_kept")),
        ("module", hasattr(os, "koth_kept")),
        ("environ", "KOTH_KEPT" in os.environ),
        ("modules", "koth_kept" in sys.modules),
        ("path", "/koth-kept" in sys.path),
    )
    if there
]
builtins.koth_kept = os.koth_kept = 1
os.environ["KOTH_KEPT"] = "1"
sys.modules["koth_kept"] = os
sys.path.append("/koth-kept")
lines = [sys.stdin.readline() for _ in range(6)]
print(9)
print("N")
print(" ".join(found) + f"|{random.getrandbits(64)}|{os.getpid()}")
"""
FAILING = """import sys
def deeper():
    raise ValueError("no move today")
sys.stdin.readline()
deeper()
"""


def build(sandbox: Any, root: Path, name: str, source: str) -> Build:
    folder = root / "entries" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: python\n"
    )
    built = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, SPEC)
    assert built.ok, built.message
    return built


def seat(sandbox: Any, built: Build, program: tuple[str, ...] | None = None) -> Seat:
    who = Entrant(built.entry, built.jail_path, program or tuple(built.program or ()))
    return open_seat(SPEC, who, sandbox, LIMITS, 0, STATE)


def turn(held: Seat, number: int = 1) -> tuple[str, Any]:
    """One turn of one seat: the reply's lines joined (or the fault's words) and the move."""
    move = held.bot.begin(held.request(STATE), number)
    gather([move])
    held.bot.finish(move)
    if move.fault is not None:
        return f"fault: {move.fault}", None
    return "\n".join(held.bot.lines(move)), held.decode(STATE, move)  # type: ignore[attr-defined]


# The same interpreter and flags, spelled so that the zygote does not recognise itself in it:
# the sandbox starts it afresh (exec), as it starts any other program.
COLD = ("/usr/bin/python3", "-IB", "bot.py")


def test_the_local_sandbox_runs_python_bots_in_a_warm_interpreter(local_sandbox: Any) -> None:
    assert local_sandbox.python_zygote.python == zygote.PYTHON_COMMAND, (
        "the Python bots' zygote should be the very command they are run with"
    )
    assert local_sandbox.zygote.python == (), "the C bots' zygote runs under koth's interpreter"


def test_a_python_bot_sees_what_a_fresh_interpreter_shows_it(
    any_sandbox: Any, tmp_path: Path
) -> None:
    built = build(any_sandbox, tmp_path, "look", LOOK)
    text, _ = turn(seat(any_sandbox, built))
    assert not text.startswith("fault"), text
    warm = json.loads(text.splitlines()[2])
    if any_sandbox.name == "docker":
        # There no bot may name a file of its jail by its full path (the folders above it are
        # closed to it, so that it reaches no other entry's build), which python3 started
        # afresh does with its script: a Python bot there runs only warm, opening its script
        # from the jail (the local sandbox compares the rest of its view with a fresh start's).
        assert warm["argv"] == ["bot.py"] and warm["file"] == [True, "bot.py"]
        assert warm["orig_argv"] == [*zygote.PYTHON_COMMAND, "bot.py"]
        assert warm["name"] == "__main__"
        assert warm["handling"] == "(None, None, None)", "no exception is being handled"
        return
    text, _ = turn(seat(any_sandbox, built, COLD))
    assert not text.startswith("fault"), text
    fresh = json.loads(text.splitlines()[2])
    assert warm.pop("orig_argv") == [*zygote.PYTHON_COMMAND, "bot.py"], "the bot's command"
    assert fresh.pop("orig_argv") == list(COLD)
    # Below the script's frame, the worker's own three (its module, main, _run_python).
    assert fresh.pop("frames") == 1 and warm.pop("frames") <= 4, "the worker's frames only"
    assert warm == fresh, "the warm process shows what a fresh one does: " + ", ".join(
        f"{key}: warm {warm[key]!r}, fresh {fresh[key]!r}"
        for key in fresh
        if warm[key] != fresh[key]
    )
    assert warm["handling"] == "(None, None, None)", "no exception is being handled"


def test_a_python_bot_keeps_nothing_from_one_turn_to_the_next(
    any_sandbox: Any, tmp_path: Path
) -> None:
    held = seat(any_sandbox, build(any_sandbox, tmp_path, "keeper", KEEPER))
    seen = []
    for number in range(1, 6):
        text, move = turn(held, number)
        assert move is not None, text
        seen.append(move.memory)
    found = [line.split("|")[0] for line in seen]
    assert found == [""] * 5, f"a turn found what an earlier one left: {found}"
    draws = {line.split("|")[1] for line in seen}
    assert len(draws) == 5, f"random must be seeded afresh in every process: {seen}"
    pids = {line.split("|")[2] for line in seen}
    assert len(pids) == 5, f"every turn is a process of its own: {seen}"


def test_a_python_bot_that_raises_fails_as_python_does(any_sandbox: Any, tmp_path: Path) -> None:
    held = seat(any_sandbox, build(any_sandbox, tmp_path, "failing", FAILING))
    text, move = turn(held)
    assert move is None and text == "fault: exited with code 1 at turn 1", text
    printed = held.bot.output_text()
    assert "ValueError: no move today" in printed and "line 3, in deeper" in printed, printed
    assert "zygote.py" not in printed, f"the traceback shows the bot's frames only: {printed}"


@pytest.mark.parametrize("code", [0, 3])
def test_a_python_bot_may_exit_with_sys_exit(any_sandbox: Any, tmp_path: Path, code: int) -> None:
    reads = "for _ in range(6):\n    sys.stdin.readline()\n"
    source = f"import sys\n{reads}print(9)\nprint('A')\nsys.stdout.flush()\nsys.exit({code})\n"
    held = seat(any_sandbox, build(any_sandbox, tmp_path, f"exit{code}", source))
    text, move = turn(held)
    if code == 0:
        assert move is not None and (move.direction, move.action) == (9, "A"), text
    else:
        assert text == f"fault: exited with code {code} at turn 1", text


# What walls a process stands in, as far as it can see them itself.
WALLS = """import ctypes, os, resource, sys
libc = ctypes.CDLL(None, use_errno=True)
death = ctypes.c_int()
libc.prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
seen = [
    os.getuid() - os.getpid(), os.getgid() - os.getpid(), os.getgroups(), os.getcwd(),
    sorted(os.listdir("/")), death.value, libc.prctl(21, 0, 0, 0, 0),  # PR_GET_SECCOMP
    libc.prctl(39, 0, 0, 0, 0),  # PR_GET_NO_NEW_PRIVS
    [resource.getrlimit(getattr(resource, f"RLIMIT_{k}")) for k in
     ("AS", "CORE", "CPU", "FSIZE", "NOFILE", "NPROC")],
    os.getsid(0) == os.getpid(), dict(os.environ),
]
for _ in range(6):
    sys.stdin.readline()
print(9)
print("N")
print(repr(seen))
"""


def test_every_turns_process_stands_in_the_same_walls(any_sandbox: Any, tmp_path: Path) -> None:
    """The first turn's process is walled in when asked for; later ones were primed (walled in
    for this bot before they were asked for): they must see the very same walls."""
    held = seat(any_sandbox, build(any_sandbox, tmp_path, "walls", WALLS))
    seen: dict[bool, set[str]] = {False: set(), True: set()}
    for number in range(1, 9):
        text, move = turn(held, number)
        assert move is not None, text
        seen[held.bot.last.primed].add(move.memory)  # type: ignore[attr-defined]
    assert seen[False] and seen[True], f"some turns primed, some not: {seen}"
    assert len(seen[False] | seen[True]) == 1, f"the walls differ: {seen}"
