"""Processes as /proc shows them, for tests of who starts whom: children, parents, the C
blank's fork server, whether one still runs."""

from __future__ import annotations

from pathlib import Path


def children_of(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def parent_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(f"no PPid in /proc/{pid}/status")


def fork_servers(zygote: int) -> list[int]:
    """The zygote's children running the C blank's fork server: the blanks it clones show its
    command line too, but each has a session of its own (setsid), and the server has not."""
    servers = []
    for pid in children_of(zygote):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue  # a blank that ended since the list was read (the pool's, discarded)
        if b"--serve" in command:
            session = int(stat.rsplit(")", 1)[1].split()[3])
            if session != pid:
                servers.append(pid)
    return servers


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
