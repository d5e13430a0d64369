"""What a bot can reach besides its channels: nothing (issue 46). In both sandboxes and for
every kind of bot (a C function playing Snakes, a C program and a Python program playing
Cluster), each attack bot answers an invalid move if it learned something, so a hole shows as a
loss:

- ``names``: a C function once loaded, and a program of its own build, name no file at all, so
  they leave no trace in the file system's caches (a name looked up, found or not) and find none;
- ``sockets``: no bot holds or makes a socket (its channels are pipes): none in the host's
  network namespace to ask for the host's interfaces (ioctl SIOCGIFCONF) or koth's pid
  (SO_PEERCRED), none to bind to an abstract name another bot could reach;
- ``host``: nothing of the machine: its host name (a bot's is koth's), load, memory, uptime
  (sysinfo), free space (statfs);
- ``readings``: no exact reading of the page cache every bot shares (getrusage's block reads and
  major faults, /proc's counters, a container's memory.stat).

The attacks are shared C sources (tests/hostile/<attack>.c, ``learned()``) given a Snakes
function or a Cluster program's main, and Python programs (tests/hostile/programs/<attack>.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_trust import HERE, PROGRAMS, assert_plays_on, build, play

FUNCTION = """
int bot(int board[16][32], char player) {
    (void)player;
    if (learned()) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Reach";
"""
PROGRAM = "\nint main(void) {\n    play(learned());\n    return 0;\n}\n"
ATTACKS = {
    "names": ("c", "cprog"),  # a Python program reads its runtime's files, in its own view
    "sockets": ("c", "cprog", "python"),
    "host": ("c", "cprog", "python"),
    "readings": ("c", "cprog", "python"),
}
CASES = [(attack, kind) for attack, kinds in ATTACKS.items() for kind in kinds]
ROOT = os.geteuid() == 0


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_sandbox")


def attack_source(attack: str, kind: str, host_name: str) -> str:
    if kind == "python":
        parts = [PROGRAMS / "cluster_io.py", PROGRAMS / f"{attack}.py"]
    elif kind == "cprog":
        parts = [PROGRAMS / "cluster_io.h", HERE / f"{attack}.c"]
    else:
        parts = [HERE / f"{attack}.c"]
    source = "\n".join(part.read_text() for part in parts)
    source += {"c": FUNCTION, "cprog": PROGRAM, "python": ""}[kind]
    return source.replace("@HOSTNAME@", host_name)


@pytest.mark.parametrize(("attack", "kind"), CASES, ids=[f"{a}-{k}" for a, k in CASES])
def test_a_bot_reaches_nothing_but_its_channels(
    attack: str, kind: str, sandbox: Any, tmp_path: Path
) -> None:
    private = ROOT or sandbox.name == "docker"  # a view, namespaces and a host name of its own
    if attack == "readings" and not private:
        pytest.skip("without root a bot sees the host's files (README: run strangers as root)")
    source = attack_source(attack, kind, "koth" if private else "")
    attacker = build(sandbox, tmp_path, kind, attack, source)
    steady = build(sandbox, tmp_path, "c" if kind == "c" else "python", "steady")
    assert_plays_on(play(sandbox, kind, [attacker, steady]), attack)
