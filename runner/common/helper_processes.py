"""Where koth's helper processes come from (the game pool's workers, the site's renderers).

They are forked from a fork server, which holds no thread and no descriptor of the host's but
its own, and has imported what they run before any is asked for. Each helper is then a fork of
it: it starts with koth imported, instead of starting an interpreter and importing koth again
(~0.25 s of CPU each), and no thread of the host's can hold a lock in it.

The server is a fork of the host itself, made while the host has no thread but its main one (no
lock can be held mid-use then): it has koth imported already. Every descriptor it inherits but
its own is pointed at /dev/null at once, so nothing of the host's is held open or reachable
through it (an object of the host's that closes its descriptor closes that copy of /dev/null).
Where the host already runs threads, the server is started afresh instead (Python's own way: a
new interpreter that imports koth, ~0.25 s of CPU).

The server ends when no process holds its "alive" pipe. Python hands every helper a copy, so
that helpers could ask it for processes of their own; koth's never do, and each lets go of its
copy as it starts (``detach``): the server then ends as soon as the host does, however it ends
(``kill -9`` included), and each helper follows it by its parent-death signal.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import threading
from multiprocessing import connection, forkserver, resource_tracker, util
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any, NoReturn

import runner

PRELOAD = ["runner.season.workers", "runner.site.render"]  # what every helper runs
# The folder holding the ``runner`` package this process runs. The server imports PRELOAD from
# its working folder first (Python's fork server puts it first on its path and does not take the
# host's path), so it starts there: it must import this very package, never one that happens to
# lie in the host's working folder.
HOME = Path(runner.__file__).resolve().parent.parent
_connection: Any = connection  # arbitrary_address, which typeshed leaves out


def context() -> BaseContext:
    """The multiprocessing context helpers are started with (the fork server started)."""
    start()
    return multiprocessing.get_context("forkserver")


def start() -> None:
    """Start the fork server now, if it is not running: it imports ``PRELOAD`` in the
    background, and the first helper asked for later does not wait for that. (Called from the
    thread that plays, before any other thread of koth's runs: it changes folder a moment.)"""
    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
    if threading.active_count() == 1 and os.path.isdir("/proc/self/fd") and _fork_server():
        return
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


def _fork_server() -> bool:
    """Start the fork server as a fork of this process (see above), unless one is running;
    False where it cannot be forked (Python's own start then says why)."""
    server: Any = forkserver._forkserver  # what ensure_running keeps
    with server._lock:
        if server._forkserver_pid is not None:
            return False  # one was started: ensure_running checks it is alive
        _fork_tracker()  # the helpers' tracker is the host's, as ever
        address = _connection.arbitrary_address("AF_UNIX")
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(address)
            if not util.is_abstract_socket_namespace(address):
                os.chmod(address, 0o600)
            listener.listen()
            # Every client holds the write end of the "alive" pipe: at its EOF the server ends.
            alive_r, alive_w = os.pipe()
            sys.stdout.flush()  # what the host has yet to print is not the server's to print
            sys.stderr.flush()
            try:
                pid = os.fork()
            except OSError:
                os.close(alive_r)
                os.close(alive_w)
                return False
            if pid == 0:
                _serve(listener.fileno(), alive_r)
            os.close(alive_r)
        server._forkserver_address = address
        server._forkserver_alive_fd = alive_w
        server._forkserver_pid = pid
    return True


def _fork_tracker() -> None:
    """Start Python's resource tracker (it unlinks the named semaphores of helpers' locks and
    counters should the host die) as a fork of this process, unless one is running. Python's
    own start execs a new interpreter (~35 ms of CPU); a fork holds the tracker's code already.
    Its descriptors but stderr and its pipe are pointed at /dev/null, as the fork server's.
    Where it cannot be forked, Python's own start runs instead."""
    tracker: Any = resource_tracker._resource_tracker
    with tracker._lock:
        if tracker._fd is not None:
            return  # one was started: ensure_running checks it is alive
        read_end, write_end = os.pipe()
        sys.stderr.flush()
        # As Python's start: the tracker must not die of a Ctrl-C before it ignores them, and a
        # signal's handler must not run host code in it.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            code = 1
            try:
                _blank_descriptors(keep={2, read_end})
                resource_tracker.main(read_end)  # unblocks the signals once it ignores them
                code = 0
            finally:
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        os.close(read_end)
        if pid > 0:
            tracker._fd = write_end
            tracker._pid = pid
            return
        os.close(write_end)
    resource_tracker.ensure_running()


def _serve(listener: int, alive: int) -> NoReturn:
    """The fork server, in the fork of the host: Python's server loop on ``listener`` until no
    client holds the "alive" pipe; never returns."""
    code = 1
    try:
        server: Any = forkserver._forkserver
        server._lock = threading.Lock()  # held by the host as it forked
        _blank_descriptors(keep={0, 1, 2, listener, alive})
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the host's handler is the host's
        forkserver.main(listener, alive, PRELOAD)
        code = 0
    except SystemExit:  # the alive pipe's EOF: every client has ended
        code = 0
    finally:
        os._exit(code)


def _blank_descriptors(keep: set[int]) -> None:
    """Point every open descriptor but ``keep`` at /dev/null: this process holds none of what
    they were open on, and a descriptor number stays taken until its owner closes it."""
    opened = [int(name) for name in os.listdir("/proc/self/fd")]
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    try:
        for fd in opened:
            if fd in keep or fd == null:
                continue
            try:
                os.dup2(null, fd, inheritable=False)
            except OSError:  # the listing's own descriptor, closed since
                continue
    finally:
        os.close(null)
