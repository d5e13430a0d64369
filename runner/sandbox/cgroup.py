"""Per-bot memory cgroups, when the host is root and the kernel offers a memory controller.

With a group the kernel enforces the memory limit on memory actually used (the OOM killer ends
the bot, and the group's counter says so, so the loss reads "memory" rather than a signal).
Without one (not root, no controller) the address-space rlimit alone limits the bot.
cgroup v2 (``memory.max``) and v1 (``memory.limit_in_bytes`` + memsw) are both handled.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

V2_ROOT = Path("/sys/fs/cgroup")
V1_ROOT = Path("/sys/fs/cgroup/memory")


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class Group:
    def __init__(self, path: Path, version: int) -> None:
        self.path = path
        self.version = version
        self.procs_file = str(path / "cgroup.procs")
        self._retired = False

    def oom_kills(self) -> int:
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def retire(self) -> None:
        self._retired = True

    @property
    def retired(self) -> bool:
        return self._retired

    def remove(self) -> bool:
        """Remove the group; False while a process is still in it."""
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True


class MemoryGroups:
    """A parent group for this host process, and one child group per bot process."""

    def __init__(self, parent: Path, version: int) -> None:
        self.parent = parent
        self.version = version
        self._numbers = itertools.count()
        self._groups: list[Group] = []

    @classmethod
    def create(cls) -> MemoryGroups | None:
        if os.geteuid() != 0:
            return None
        if "memory" in _read(V2_ROOT / "cgroup.controllers").split():
            root, version = V2_ROOT, 2
            if "memory" not in _read(root / "cgroup.subtree_control").split():
                return None
        elif (V1_ROOT / "memory.limit_in_bytes").exists():
            root, version = V1_ROOT, 1
        else:
            return None
        parent = root / f"koth-{os.getpid()}"
        try:
            parent.mkdir(exist_ok=True)
            if version == 2:
                _write(parent / "cgroup.subtree_control", "+memory")
        except OSError:
            return None
        return cls(parent, version)

    def new_group(self, limit_bytes: int) -> Group | None:
        self._groups = [g for g in self._groups if not (g.retired and g.remove())]
        path = self.parent / f"bot-{next(self._numbers)}"
        try:
            path.mkdir()
            if self.version == 2:
                _write(path / "memory.max", str(limit_bytes))
                _write(path / "memory.swap.max", "0")
            else:
                _write(path / "memory.limit_in_bytes", str(limit_bytes))
                if (path / "memory.memsw.limit_in_bytes").exists():
                    _write(path / "memory.memsw.limit_in_bytes", str(limit_bytes))
        except OSError:
            Group(path, self.version).remove()
            return None
        group = Group(path, self.version)
        self._groups.append(group)
        return group

    def remove(self) -> None:
        for group in self._groups:
            group.remove()
        self._groups = []
        try:
            os.rmdir(self.parent)
        except OSError:
            pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
