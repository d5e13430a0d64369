"""cgroup v1 and v2 (runner/sandbox/cgroups.py, the zygote's memory groups in runner/jail/
zygote.py, the CPU weight in runner/sandbox/idling.py), on made-up trees of both layouts.

The machines this project is developed on have cgroup v1 only (Debian 12, the legacy
hierarchy); GitHub's Ubuntu runners have v2 only. The real kernel files of v1 are exercised by
tests/test_worker_groups.py and the Docker tests here; v2's only on the runner. So each layout
is laid out below as the kernel shows it (its /proc/<pid>/cgroup line, its mountinfo line, its
files and their formats), and the same code is run against both.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.jail import zygote
from runner.sandbox import cgroups, idling

# /proc/self/mountinfo lines as the kernel writes them (fields 4 and 5: the mount's root in its
# hierarchy and its mount point; after " - ": the file system type, its source, its options).
V1_MOUNTS = """\
30 24 0:26 / {m}/memory rw,nosuid,relatime shared:12 - cgroup cgroup rw,memory
31 24 0:27 / {m}/cpu,cpuacct rw,nosuid,relatime shared:13 - cgroup cgroup rw,cpu,cpuacct
32 24 0:28 / {m}/systemd rw,nosuid,relatime shared:9 - cgroup cgroup rw,xattr,name=systemd
"""
V2_MOUNTS = """\
35 24 0:30 / {m} rw,nosuid,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
"""
# A container's own view: the hierarchy's folder of the container is mounted as its root.
V1_CONTAINER_MOUNTS = """\
40 39 0:26 /docker/abc {m}/memory ro,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory
"""
# Hybrid: v1 controllers and the unified hierarchy (no controllers) beside them.
HYBRID_MOUNTS = V1_MOUNTS + (
    "33 24 0:29 / {m}/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw\n"
)

V1_LINES = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/\n"
V2_LINES = "0::/system.slice/docker-abc.scope\n"


def fake_proc(tmp_path: Path, mountinfo: str, lines: dict[str, str]) -> tuple[Path, Path]:
    """A /proc holding ``self/mountinfo`` and each pid's ``cgroup``, and the mount folder."""
    proc, mounted = tmp_path / "proc", tmp_path / "sys-fs-cgroup"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text(mountinfo.format(m=mounted))
    for pid, text in lines.items():
        (proc / pid).mkdir(exist_ok=True)
        (proc / pid / "cgroup").write_text(text)
    return proc, mounted


def test_v1_each_controller_is_found_in_its_own_hierarchy(tmp_path: Path) -> None:
    proc, mounted = fake_proc(tmp_path, V1_MOUNTS, {"7": V1_LINES, "self": "4:cpu,cpuacct:/\n"})
    assert cgroups.find(7, "memory", proc) == cgroups.Group(mounted / "memory/docker/abc", 1)
    cpu = cgroups.Group(mounted / "cpu,cpuacct/docker/abc", 1)
    assert cgroups.find(7, "cpu", proc) == cpu, "co-mounted: the folder is named for both"
    assert cgroups.find("self", "cpu", proc) == cgroups.Group(mounted / "cpu,cpuacct", 1)
    assert cgroups.find(7, "pids", proc) is None, "no such hierarchy mounted, no v2 either"


def test_v2_every_controller_is_found_in_the_unified_hierarchy(tmp_path: Path) -> None:
    proc, mounted = fake_proc(tmp_path, V2_MOUNTS, {"7": V2_LINES})
    group = cgroups.Group(mounted / "system.slice/docker-abc.scope", 2)
    assert cgroups.find(7, "memory", proc) == group
    assert cgroups.find(7, "cpu", proc) == group


def test_hybrid_a_controller_of_a_v1_hierarchy_is_read_there(tmp_path: Path) -> None:
    proc, mounted = fake_proc(tmp_path, HYBRID_MOUNTS, {"7": V1_LINES.replace("0::/", "0::/x")})
    assert cgroups.find(7, "memory", proc) == cgroups.Group(mounted / "memory/docker/abc", 1)
    assert cgroups.find(7, "io", proc) == cgroups.Group(mounted / "unified/x", 2)


def test_a_mount_of_a_folder_of_the_hierarchy_is_allowed_for(tmp_path: Path) -> None:
    proc, mounted = fake_proc(tmp_path, V1_CONTAINER_MOUNTS, {"7": "3:memory:/docker/abc/x\n"})
    assert cgroups.find(7, "memory", proc) == cgroups.Group(mounted / "memory/x", 1)


def test_unreadable_or_malformed_proc_files_find_nothing(tmp_path: Path) -> None:
    proc, _ = fake_proc(tmp_path, V2_MOUNTS, {"7": "garbage without colons\n", "8": ""})
    assert cgroups.find(7, "memory", proc) is None
    assert cgroups.find(8, "memory", proc) is None
    assert cgroups.find(9, "memory", proc) is None, "no such process"
    assert cgroups.mounts("1 2 3\n - cgroup2\nnot a mount line at all\n") == {}


@pytest.mark.parametrize(
    ("version", "oom_file", "usage_file"),
    [
        (1, "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "memory.usage_in_bytes"),
        (2, "low 0\nhigh 0\nmax 9\noom 3\noom_kill 3\noom_group_kill 0\n", "memory.current"),
    ],
)
def test_oom_kills_and_memory_in_use_are_read_from_the_layouts_files(
    tmp_path: Path, version: int, oom_file: str, usage_file: str
) -> None:
    group = cgroups.Group(tmp_path, version)
    assert group.oom_kills() is None and group.memory_in_use() is None, "no files: unknown"
    (tmp_path / cgroups.OOM_FILE[version]).write_text(oom_file)
    (tmp_path / usage_file).write_text("12345678\n")
    assert group.oom_kills() == 3
    assert group.memory_in_use() == 12345678
    (tmp_path / usage_file).write_text("9" * 400 + "\n")  # nothing a kernel writes
    assert group.memory_in_use() is None


@pytest.fixture
def sleeper() -> Iterator[int]:
    child = subprocess.Popen(["sleep", "60"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize(
    ("mountinfo", "lines", "weight_folder", "weight_file", "usual", "least", "default"),
    [
        (V1_MOUNTS, V1_LINES, "cpu,cpuacct/docker/abc", "cpu.shares", "512", "2", "1024"),
        (V2_MOUNTS, V2_LINES, "system.slice/docker-abc.scope", "cpu.weight", "50", "1", "100"),
    ],
    ids=["v1", "v2"],
)
def test_a_containers_cpu_weight_is_the_least_between_moves_and_set_back(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sleeper: int,
    mountinfo: str,
    lines: str,
    weight_folder: str,
    weight_file: str,
    usual: str,
    least: str,
    default: str,
) -> None:
    proc, mounted = fake_proc(tmp_path, mountinfo, {str(sleeper): lines, "self": "0::/\n"})
    folder = mounted / weight_folder
    folder.mkdir(parents=True)
    (folder / weight_file).write_text(usual + "\n")
    monkeypatch.setattr(idling, "MAY_SCHEDULE", True)  # the host's part: root's (see idling.py)
    idler = idling.Idler(sleeper, proc)
    idler.set(True)
    assert (folder / weight_file).read_text() == least
    idler.set(False)
    assert (folder / weight_file).read_text() == usual
    (folder / weight_file).write_text(least)  # left at the least by a bot that ended idle
    again = idling.Idler(sleeper, proc)
    again.set(True)
    again.set(False)
    assert (folder / weight_file).read_text() == default, "the kernel's default then"


# -- the zygote's memory groups (runner/jail/zygote.py) on both layouts ----------------------------


def kernel_files(group: Path, version: int, swap: bool = True) -> None:
    """What the kernel puts in a new memory group (the files the zygote reads or writes)."""
    if version == 2:
        names = {"memory.max": "max", "memory.events": "oom_kill 0\n", "memory.current": "0\n"}
        names["cgroup.events"] = "populated 0\nfrozen 0\n"
        if swap:
            names["memory.swap.max"] = "max"
    else:
        names = {
            "memory.limit_in_bytes": "9223372036854771712",
            "memory.memsw.limit_in_bytes": "9223372036854771712",
            "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
            "memory.usage_in_bytes": "0\n",
            "cgroup.procs": "",
        }
    for name, text in names.items():
        (group / name).write_text(text)


def fake_mounts(tmp_path: Path, version: int) -> str:
    mounts = tmp_path / "sys-fs-cgroup"
    if version == 2:
        mounts.mkdir()
        (mounts / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
        (mounts / "cgroup.subtree_control").write_text("cpu memory pids\n")
    else:
        (mounts / "memory").mkdir(parents=True)
        (mounts / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    return str(mounts)


@pytest.mark.parametrize("version", [1, 2])
def test_memory_groups_are_limited_counted_and_used_again_on_both_layouts(
    tmp_path: Path, version: int
) -> None:
    groups = zygote._MemoryGroups(fake_mounts(tmp_path, version), root_only=False)
    assert groups.version == version
    parent = Path(groups.parent)
    assert parent.name == f"koth-{os.getpid()}"
    if version == 2:
        assert (parent / "cgroup.subtree_control").read_text() == "+memory"
    path = groups.new()
    assert path is not None and Path(path).parent == parent
    kernel_files(Path(path), version)
    groups.set_limit(path, 64 << 20)
    limit_file = "memory.max" if version == 2 else "memory.limit_in_bytes"
    assert (Path(path) / limit_file).read_text() == str(64 << 20)
    if version == 2:
        assert (Path(path) / "memory.swap.max").read_text() == "0", "no swap beyond the limit"
    else:
        assert (Path(path) / "memory.memsw.limit_in_bytes").read_text() == str(64 << 20)
    events = "memory.events" if version == 2 else "memory.oom_control"
    (Path(path) / events).write_text("oom_kill 2\n")
    assert groups.oom_kills(path) == 2
    groups.release(path)  # empty, nothing charged: kept for the next bot
    assert groups.new() == path
    assert groups.oom_kills(path) == 0, "the last bot's kills are not the next one's"


@pytest.mark.parametrize("version", [1, 2])
def test_a_group_still_holding_a_process_or_charged_is_not_used_again(
    tmp_path: Path, version: int
) -> None:
    groups = zygote._MemoryGroups(fake_mounts(tmp_path, version), root_only=False)
    held, charged = groups.new(), groups.new()
    assert held is not None and charged is not None
    for path in (held, charged):
        kernel_files(Path(path), version)
        groups.set_limit(path, 64 << 20)
    if version == 2:
        (Path(held) / "cgroup.events").write_text("populated 1\nfrozen 0\n")
        (Path(charged) / "memory.current").write_text(f"{20 << 20}\n")
    else:
        (Path(held) / "cgroup.procs").write_text("4242\n")
        (Path(charged) / "memory.usage_in_bytes").write_text(f"{20 << 20}\n")
    groups.release(held)
    groups.release(charged)
    fresh = groups.new()
    assert fresh not in (held, charged), "neither is handed out again"


def test_v2_without_swap_accounting_limits_memory_alone(tmp_path: Path) -> None:
    groups = zygote._MemoryGroups(fake_mounts(tmp_path, 2), root_only=False)
    path = groups.new()
    assert path is not None
    kernel_files(Path(path), 2, swap=False)
    groups.set_limit(path, 32 << 20)  # no memory.swap.max to write: not an error
    assert (Path(path) / "memory.max").read_text() == str(32 << 20)
    assert not (Path(path) / "memory.swap.max").exists()


def test_v2_without_the_memory_controller_delegated_makes_no_groups(tmp_path: Path) -> None:
    mounts = fake_mounts(tmp_path, 2)
    (Path(mounts) / "cgroup.subtree_control").write_text("cpu pids\n")
    groups = zygote._MemoryGroups(mounts, root_only=False)
    assert groups.version == 0 and groups.new() is None, "the rlimits alone limit memory"
