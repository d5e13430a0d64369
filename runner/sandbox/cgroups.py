"""Where a process's cgroup of one controller is, and the few files koth reads and writes there,
for both layouts the kernel offers:

- cgroup v1 (this project's development machines, Debian 12 with the legacy hierarchy): one
  hierarchy per controller, each mounted on its own folder (``/sys/fs/cgroup/memory``, or a
  co-mounted ``/sys/fs/cgroup/cpu,cpuacct``); ``/proc/<pid>/cgroup`` has a line per hierarchy,
  ``4:memory:/docker/<id>``;
- cgroup v2, the unified hierarchy (GitHub's Ubuntu runners, any systemd host of the last years):
  one tree mounted on ``/sys/fs/cgroup``, the line ``0::/system.slice/docker-<id>.scope``. A
  hybrid host has both: a controller attached to a v1 hierarchy is read there.

Mount points are read from ``/proc/self/mountinfo``, never assumed, and a mount whose root is not
the hierarchy's root (inside a container) is allowed for. The files, by layout:

=================  ==========================  ===================
what               v1                          v2
=================  ==========================  ===================
OOM kills          memory.oom_control          memory.events
memory in use      memory.usage_in_bytes       memory.current
CPU weight         cpu.shares (2..262144)      cpu.weight (1..10000)
=================  ==========================  ===================
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

OOM_FILE = {1: "memory.oom_control", 2: "memory.events"}
USAGE_FILE = {1: "memory.usage_in_bytes", 2: "memory.current"}
WEIGHT_FILE = {1: "cpu.shares", 2: "cpu.weight"}
LEAST_WEIGHT = {1: "2", 2: "1"}
DEFAULT_WEIGHT = {1: "1024", 2: "100"}


@dataclass(frozen=True)
class Group:
    """A process's cgroup for one controller: its folder and the layout it is under."""

    folder: Path
    version: int  # 1 or 2

    def read_counter(self, file: str, key: str) -> int | None:
        """The value of ``key`` in a flat keyed file (``oom_kill 3``), None where unread."""
        try:
            text = (self.folder / file).read_text()
        except OSError:
            return None
        for row in text.splitlines():
            name, _, value = row.partition(" ")
            if name == key:
                return _number(value)
        return None

    def oom_kills(self) -> int | None:
        """The OOM kills in the group so far (None where the file cannot be read)."""
        return self.read_counter(OOM_FILE[self.version], "oom_kill")

    def memory_in_use(self) -> int | None:
        """Bytes charged to the group now (None where unread)."""
        try:
            return _number((self.folder / USAGE_FILE[self.version]).read_text())
        except OSError:
            return None


@dataclass(frozen=True)
class Mount:
    root: str  # the hierarchy's folder mounted (``/`` but in a container)
    point: Path


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 20 else None


def mounts(mountinfo: str) -> dict[str, Mount]:
    """The cgroup mounts in a ``/proc/<pid>/mountinfo`` text: each v1 controller (and named
    hierarchy, ``name=systemd``) to its mount, and ``""`` to the v2 mount. The first mount of
    each wins, as the kernel lists the oldest first."""
    found: dict[str, Mount] = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 10:
            continue
        after = fields[fields.index("-") + 1 :]
        if len(after) < 3:
            continue
        fstype, options = after[0], after[2]
        mount = Mount(_unescape(fields[3]), Path(_unescape(fields[4])))
        if fstype == "cgroup2":
            found.setdefault("", mount)
        elif fstype == "cgroup":
            for option in options.split(","):
                if option not in ("rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec"):
                    found.setdefault(option, mount)
    return found


def _unescape(field: str) -> str:
    """mountinfo writes a space, tab, newline and backslash in a path as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def find(pid: int | str, controller: str, proc: Path = Path("/proc")) -> Group | None:
    """``pid``'s cgroup for ``controller``, as this process sees the mounts (``proc``: where
    /proc is, for tests on a made-up tree)."""
    try:
        lines = (proc / str(pid) / "cgroup").read_text().splitlines()
        table = mounts((proc / "self" / "mountinfo").read_text())
    except OSError:
        return None
    unified: str | None = None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controller in controllers.split(",") and controller in table:  # cgroup v1
            return Group(_beneath(table[controller], path), 1)
        if controllers == "":
            unified = path
    if unified is not None and "" in table:
        return Group(_beneath(table[""], unified), 2)
    return None


def _beneath(mount: Mount, path: str) -> Path:
    """Where a group's path (as /proc/<pid>/cgroup names it) is under a mount of the hierarchy
    whose root may be one of its folders."""
    root = mount.root.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root) :]
    return mount.point / path.lstrip("/")
