"""A program bot between its moves: it runs only on CPU nothing else wants.

A program may compute after its reply, until its next request: that CPU is charged to its next
move, but meanwhile it shares its job slot's CPU with the seat that is moving, whose wall-clock
limit runs on (a bot spinning after every reply made its opponent miss 0.1 s moves). So between
its moves the host puts it last in line, three ways, for the three ways the kernel may be
sharing the CPU:

- its scheduling policy: SCHED_IDLE (tasks of one group);
- its autogroup's nice value: 19 (each session its own group, the kernel's default on desktops:
  a bot calls setsid, so a policy alone would change nothing);
- its CPU cgroup's weight, where that group is its own (a container): the least there is.

Each is set back as its next move begins. Only root may set them back (CAP_SYS_NICE); the bot
cannot undo them (its RLIMIT_NICE is 0, its seccomp filter denies sched_setscheduler and
sched_setattr, and a container's cgroup files are not its to write). Where the host is not root
nothing changes: the CPU a bot burns between moves is still charged to its next move.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from runner.sandbox import cgroups

MAY_SCHEDULE = os.geteuid() == 0
IDLE_NICE = "19"


@functools.cache
def _own_cpu_group() -> cgroups.Group | None:
    return cgroups.find("self", "cpu")


class Idler:
    """Puts one bot process last in line for the CPU, and back."""

    def __init__(self, pid: int, proc: Path = Path("/proc"), policy: bool = True) -> None:
        """``policy``: whether its scheduling policy is set too (not for a runtime that reads
        its policy into the threads it starts and cannot take SCHED_IDLE)."""
        self.pid = pid
        self.idle = False
        self.policy = policy
        self._weight: tuple[Path, str, str] | None = None  # file, its value, the least
        group = cgroups.find(pid, "cpu", proc)
        own = _own_cpu_group() if proc == Path("/proc") else cgroups.find("self", "cpu", proc)
        if group is not None and group != own:  # its own: a container's
            file = group.folder / cgroups.WEIGHT_FILE[group.version]
            least = cgroups.LEAST_WEIGHT[group.version]
            try:
                usual = file.read_text().strip()
            except OSError:
                return
            # Left at the least by a bot before this one that ended between its moves, were
            # its group not set back: the kernel's default then.
            default = cgroups.DEFAULT_WEIGHT[group.version]
            self._weight = (file, default if usual == least else usual, least)

    def set(self, idle: bool) -> None:
        """Last in line (``idle``) or back. Each way that fails (the process gone, no autogroups
        in this kernel, not the host's to set) is left as it was."""
        if idle == self.idle or not MAY_SCHEDULE:
            return
        self.idle = idle
        if self._weight is not None:  # first: the group outlives the process (a container's)
            file, usual, least = self._weight
            _write(file, least if idle else usual)
        if self.policy:
            policy = os.SCHED_IDLE if idle else os.SCHED_OTHER
            try:
                os.sched_setscheduler(self.pid, policy, os.sched_param(0))
            except OSError:
                return  # gone
        _write(f"/proc/{self.pid}/autogroup", IDLE_NICE if idle else "0")


def _write(path: Path | str, value: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)  # as `echo >` does
    except OSError:
        return
    try:
        os.write(fd, value.encode())
    except OSError:
        pass
    finally:
        os.close(fd)
