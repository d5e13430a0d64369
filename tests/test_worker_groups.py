"""The zygote's memory groups (runner/jail/zygote.py): the clean-up of groups left by zygotes
that died (only a group named for a dead zygote's pid goes; any other name is left alone, never
a crash), and a group used again for the next bot only when it is empty, with its OOM kills
counted afresh."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.jail import zygote as zygote_program


def test_only_the_groups_of_dead_zygotes_are_removed(tmp_path: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()  # a pid no process has now (reaped)
    names = {
        f"koth-{ended.pid}": False,  # its zygote is gone: removed, with its bots' groups
        f"koth-{os.getpid()}": True,  # alive
        "koth-\u00b2": True,  # digits int() cannot read
        "koth-\u0661\u0662": True,  # digits int() reads, but no pid is named so
        "other-1": True,
    }
    for name in names:
        (tmp_path / name / "bot-1").mkdir(parents=True)
    zygote_program._remove_stale_groups(str(tmp_path))
    assert {name: (tmp_path / name).exists() for name in names} == names


def _run_in(group: str, code: str) -> subprocess.CompletedProcess[bytes]:
    """A Python process that moves itself into ``group`` first, then runs ``code``."""
    join = f"import os; open({group + '/cgroup.procs'!r}, 'w').write(str(os.getpid()))\n"
    return subprocess.run([sys.executable, "-I", "-c", join + code], check=False)


@pytest.fixture
def groups() -> Iterator[zygote_program._MemoryGroups]:
    if os.geteuid() != 0:
        pytest.skip("memory groups are made only by root (CI runs as root)")
    made = zygote_program._MemoryGroups()
    assert made.version, "root, but no memory cgroup controller to use"
    try:
        yield made
    finally:
        made.close()
    assert not os.path.exists(made.parent)


def test_a_group_is_used_again_and_counts_only_its_new_bots_oom_kills(
    groups: zygote_program._MemoryGroups,
) -> None:
    group = groups.new()
    assert group is not None
    groups.set_limit(group, 64 << 20)
    hog = _run_in(group, "data = b'x' * (256 << 20)")
    assert hog.returncode == -signal.SIGKILL
    assert groups.oom_kills(group) == 1
    groups.release(group)
    again = groups.new()
    assert again == group  # empty once its process ended: handed out again
    groups.set_limit(again, 64 << 20)
    assert _run_in(again, "data = b'x' * (8 << 20)").returncode == 0
    assert groups.oom_kills(again) == 0  # the last bot's kill is not this one's
    groups.release(again)
    assert groups.new() == group
    groups.set_limit(group, 16 << 20)  # a new limit is written, not taken as the last one
    assert _run_in(group, "data = b'x' * (40 << 20)").returncode == -signal.SIGKILL
    assert groups.oom_kills(group) == 1
    groups.release(group)
    assert groups.new() == group
    groups.set_limit(group, 64 << 20)  # raised (cgroup v1 refuses memory above memory + swap)
    assert _run_in(group, "data = b'x' * (40 << 20)").returncode == 0
    assert groups.oom_kills(group) == 0


def test_a_group_still_holding_a_process_is_not_used_again(
    groups: zygote_program._MemoryGroups,
) -> None:
    group = groups.new()
    assert group is not None
    join = f"import os, time; open({group + '/cgroup.procs'!r}, 'w').write(str(os.getpid()))"
    stray = subprocess.Popen(
        [sys.executable, "-I", "-c", join + "; print(flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE,
    )
    try:
        assert stray.stdout is not None and stray.stdout.readline() == b"\n"  # it is in
        groups.release(group)
        assert groups.new() != group
        assert os.path.isdir(group)  # the kernel refuses to remove it while it holds a process
    finally:
        stray.kill()
        stray.wait()


def test_a_group_still_charged_with_what_its_bot_left_is_not_used_again(
    groups: zygote_program._MemoryGroups, tmp_path: Path
) -> None:
    """Memory a bot leaves charged to its group after it ends (here a file in a tmpfs; a bot
    can leave kernel objects) would be the next bot's to start with: such a group is not
    handed out again. One left with next to nothing is."""
    shm = Path("/dev/shm") / f"koth-test-{os.getpid()}"
    group = groups.new()
    assert group is not None
    groups.set_limit(group, 64 << 20)
    try:
        assert _run_in(group, f"open({str(shm)!r}, 'wb').write(b'x' * (20 << 20))").returncode == 0
        groups.release(group)
        assert groups.new() != group, "20 MiB of its 64 still charged: not used again"
    finally:
        shm.unlink(missing_ok=True)
    light = groups.new()
    assert light is not None
    groups.set_limit(light, 64 << 20)
    assert _run_in(light, "data = b'x' * (20 << 20)").returncode == 0  # freed as it ends
    groups.release(light)
    assert groups.new() == light
