"""The program that hosts C-function bots, in two roles. Standalone: stdlib + cffi only.

**Zygote** (``python3 worker.py --control-fd N``): a warm process that has imported cffi and
parsed the bot signature, and never loads bot code. The host asks it, over a SOCK_SEQPACKET
control socket, to ``spawn`` a bot: the request carries the bot's pipes (SCM_RIGHTS) and its
limits; the zygote forks, and reports ``{"pid"}``, then ``{"exit", status, rusage}`` or
``{"stopped"}`` when the kernel tells it (wait4). Those reports are trusted: they come from this
process, which runs no bot code. When the control socket closes, every bot is killed.

**Bot process** (the forked child): walls itself in before any bot code runs — own session,
parent-death signal, fds 0-2 on /dev/null and the output pipe, and when root a new network
namespace, a chroot into the entry's jail (a folder holding only ``bot.so``) and a uid no other
live process has (so NPROC=0 blocks fork and kill(-1) reaches nothing) — then rlimits (AS, CPU,
NPROC, FSIZE, NOFILE, CORE), then ``dlopen``. It says hello (``bot_name``) and then answers
requests on fd 3 → fd 4: 512 board bytes + the player byte in, one little-endian int32 out.
Nothing it writes is trusted by the host: it lives in the bot's address space.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
from typing import Any

REQUEST_FD = 3
REPLY_FD = 4
BOARD_CELLS = 512
REQUEST_SIZE = BOARD_CELLS + 1
HELLO_MAGIC = b"KOTH"
NAME_CAP = 200
UID_BASE = 1_000_000  # unique per bot: UID_BASE + its pid (pids are unique among live processes)
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
EXIT_LOAD_FAILED = 97  # the bot's shared object could not be loaded (the reason is on its stderr)
EXIT_SETUP_FAILED = 98  # the walls could not be built: the host treats this as its own error
CDEF = "int bot(int board[16][32], char player);\nextern char *bot_name;\n"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _set_pdeathsig() -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


def _wall_in(request: dict[str, Any]) -> str:
    """Everything that must hold before bot code runs. Returns the path to dlopen."""
    os.setsid()
    _set_pdeathsig()
    so_path: str = request["so"]
    jail: str = request["jail"]
    if request.get("cgroup"):
        with open(request["cgroup"], "w") as procs:
            procs.write(str(os.getpid()))
    if os.geteuid() == 0:
        if request.get("netns", True):
            _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
        os.chroot(jail)
        os.chdir("/")
        so_path = "/" + os.path.basename(so_path)
        uid = UID_BASE + os.getpid()
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    else:
        os.chdir(jail)
    os.environ.clear()
    limits = request["limits"]
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, 0)
    _limit(resource.RLIMIT_NPROC, 0)
    _limit(resource.RLIMIT_AS, int(limits["memory_bytes"]))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    # dlopen needs one descriptor for a moment; afterwards none may be opened.
    _limit(resource.RLIMIT_NOFILE, REPLY_FD + 2)
    return so_path


def _serve(request: dict[str, Any], ffi: Any) -> None:
    """Runs in the forked child: never returns."""
    try:
        so_path = _wall_in(request)
    except Exception as exc:  # the host's fault, not the bot's
        os.write(2, f"koth worker: sandbox setup failed: {exc}\n".encode())
        os._exit(EXIT_SETUP_FAILED)
    try:
        lib = ffi.dlopen(so_path)
        name_ptr = lib.bot_name
        name = ffi.string(name_ptr, NAME_CAP) if name_ptr != ffi.NULL else b""
        bot = lib.bot
    except Exception as exc:
        os.write(2, f"cannot load the bot: {exc}\n".encode())
        os._exit(EXIT_LOAD_FAILED)
    _limit(resource.RLIMIT_NOFILE, REPLY_FD + 1)
    os.write(REPLY_FD, HELLO_MAGIC + struct.pack("<H", len(name)) + name)
    board = ffi.new("int[16][32]")
    wide = bytearray(BOARD_CELLS * 4)  # each ASCII cell widened to a little-endian int32
    pack = struct.Struct("<i").pack
    while True:
        data = b""
        while len(data) < REQUEST_SIZE:
            chunk = os.read(REQUEST_FD, REQUEST_SIZE - len(data))
            if not chunk:
                os._exit(0)
            data += chunk
        wide[::4] = data[:BOARD_CELLS]
        ffi.memmove(board, wide, BOARD_CELLS * 4)
        move = bot(board, data[BOARD_CELLS:])
        os.write(REPLY_FD, pack(move))


def _fork_bot(request: dict[str, Any], fds: list[int], ffi: Any, control: socket.socket) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            control.close()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            # Lift every source above the targets first, so no dup2 clobbers a source.
            devnull = os.open(os.devnull, os.O_RDONLY)
            sources = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in (devnull, *fds)]
            for target, source in zip((0, REQUEST_FD, REPLY_FD, 1), sources, strict=True):
                os.dup2(source, target)
            os.dup2(1, 2)
            os.closerange(REPLY_FD + 1, 1 << 16)
        except BaseException:
            os._exit(EXIT_SETUP_FAILED)
        _serve(request, ffi)
    for fd in fds:
        os.close(fd)
    return pid


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    try:
        control.send(json.dumps(message).encode())
    except OSError:
        pass  # the host has gone; the main loop sees the closed socket and ends


def _reap(control: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if os.WIFSTOPPED(status):
            _send(control, {"event": "stopped", "pid": pid, "signal": os.WSTOPSIG(status)})
            continue
        children.discard(pid)
        cpu = usage.ru_utime + usage.ru_stime
        _send(
            control,
            {"event": "exit", "pid": pid, "status": status, "cpu": cpu, "maxrss_kib": usage.ru_maxrss},
        )


def zygote(control_fd: int) -> None:
    _set_pdeathsig()
    import cffi  # imported here, once: every bot forked from this process inherits it warm

    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: set[int] = set()
    _send(control, {"event": "ready", "pid": os.getpid(), "root": os.geteuid() == 0})
    try:
        while True:
            readable, _, _ = select.select([control, wake_r], [], [])
            if wake_r in readable:
                os.read(wake_r, 4096)
                _reap(control, children)
            if control not in readable:
                continue
            try:
                message, fds, _, _ = socket.recv_fds(control, 1 << 16, 8)
            except OSError:
                break
            if not message:
                break
            request = json.loads(message)
            if request["op"] == "spawn":
                pid = _fork_bot(request, fds, ffi, control)
                children.add(pid)
                _send(control, {"event": "spawned", "pid": pid})
            elif request["op"] == "kill":
                for fd in fds:
                    os.close(fd)
                if request["pid"] in children:
                    os.kill(request["pid"], signal.SIGKILL)
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--control-fd":
        sys.exit("usage: worker.py --control-fd N")
    zygote(int(sys.argv[2]))
