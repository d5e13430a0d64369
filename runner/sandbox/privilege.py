"""Which of the sandboxes' walls need root, said once to whoever runs a season without it.

Root is needed by every wall that acts on another user's processes or on the kernel's shared
state: locally, a bot's chroot, namespaces, uid of its own and memory group, and for both
sandboxes keeping a bot off the CPU between its moves (runner/sandbox/idling.py: only root may
set a process's scheduling back, or write a container's CPU weight). Without root the rest
holds: rlimits, the seccomp filter, CPU time charged from the kernel's clock, a non-dumpable
host. docs/hosting.md ("Root") has the table; the workflows run their play steps under sudo.
"""

from __future__ import annotations

import os
import sys

_said: set[str] = set()


def missing_without_root(kind: str) -> str | None:
    """What the ``kind`` sandbox ("local", "docker") cannot do in this process for lack of
    root, in one line; None as root."""
    if os.geteuid() == 0:
        return None
    if kind == "docker":
        return (
            "not running as root: the Docker sandbox cannot keep a bot off the CPU between its "
            "moves (one computing then slows the seat that is moving; its CPU is still charged "
            "to it); for a season of strangers' bots run koth with sudo (docs/hosting.md, Root)"
        )
    return (
        "not running as root: bots run as your user, limited by rlimits and the seccomp filter, "
        "without a chroot, namespaces, a uid of their own, memory groups or being kept off the "
        "CPU between moves; for a season of strangers' bots run koth with sudo or use "
        "--sandbox docker (docs/hosting.md, Root)"
    )


def note_once(kind: str) -> None:
    """Print ``missing_without_root(kind)`` on stderr, once per process and kind."""
    text = missing_without_root(kind)
    if text is None or kind in _said:
        return
    _said.add(kind)
    print(f"koth: note: {text}", file=sys.stderr, flush=True)
