"""Where koth's helper processes come from (the game pool's workers, the site's renderers).

They are forked from a fork server: a process started afresh once (it holds no thread, no
sandbox, no descriptor of the host's but its own), which imports what they run before any is
asked for. Each helper is then a fork of it: it starts with koth imported, instead of starting
an interpreter and importing koth again (~0.25 s of CPU each), and no thread of the host's can
hold a lock in it (a fork of the host itself could copy one mid-use).

The server ends when no process holds its "alive" pipe. Python hands every helper a copy, so
that helpers could ask it for processes of their own; koth's never do, and each lets go of its
copy as it starts (``detach``): the server then ends as soon as the host does, however it ends
(``kill -9`` included), and each helper follows it by its parent-death signal.
"""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing import forkserver
from multiprocessing.context import BaseContext
from pathlib import Path

import runner

PRELOAD = ["runner.workers", "runner.site"]  # what every helper runs
# The folder holding the ``runner`` package this process runs. The server imports PRELOAD from
# its working folder first (Python's fork server puts it first on its path and does not take the
# host's path), so it starts there: it must import this very package, never one that happens to
# lie in the host's working folder.
HOME = Path(runner.__file__).resolve().parent.parent


def context() -> BaseContext:
    """The multiprocessing context helpers are started with (the fork server started)."""
    start()
    return multiprocessing.get_context("forkserver")


def start() -> None:
    """Start the fork server now, if it is not running: it imports ``PRELOAD`` in the
    background, and the first helper asked for later does not wait for that. (Called from the
    thread that plays, before any other thread of koth's runs: it changes folder a moment.)"""
    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
    try:
        here: str | None = os.getcwd()
    except OSError:  # the working folder is gone: the server cannot start in it either
        here = None
    os.chdir(HOME)
    try:
        forkserver.ensure_running()
    finally:
        if here is not None:
            os.chdir(here)


def detach() -> None:
    """In a helper, as it starts: let go of the fork server's "alive" pipe (see above)."""
    server = getattr(forkserver, "_forkserver", None)
    alive = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(alive, int):
        os.close(alive)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]
