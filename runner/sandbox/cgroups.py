"""Where a process's cgroup of one controller is, as its /proc/<pid>/cgroup names it."""

from __future__ import annotations

from pathlib import Path


def controller_folder(pid: int | str, controller: str) -> tuple[Path, int] | None:
    """The folder of ``pid``'s cgroup for ``controller`` ("memory", "cpu") and the cgroup
    version it is under (1, or 2 where no v1 hierarchy has that controller); None if unread."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    found = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):  # cgroup v1
            return Path(f"/sys/fs/cgroup/{controller}{path}"), 1
        if controllers == "":  # cgroup v2 (unless a v1 line for the controller follows)
            found = (Path("/sys/fs/cgroup" + path), 2)
    return found
