"""The build container's driver (runner/sandbox/dockerbuild.py): it builds entries one at a time,
each under a uid of its own, for as long as the host asks. Standalone: stdlib only, run as
``python3 -I -S buildserver.py FILE_CAP`` as the container's root, which holds no capability but
SETUID and SETGID (so it can give a build a uid and nothing more: it cannot even signal one).

A request is one line on stdin, "N RECIPE WALL": build number N (it picks the uid), build.sh's
recipe, the wall-clock limit in seconds; the entry's private copy is at /inbox/N (read-only).
Anything else on stdin ends the driver (status 2), and so does the end of stdin (status 0).

The answer on stdout is one line, "SIZE STATUS" (the length of what follows; the status of
build.sh, as a shell gives it, 137 when the time limit ended it), then build.sh's tar stream.
Before the answer, every process of the build's uid is killed and everything it wrote in /out,
/tmp and /koth (the only places it may write) is removed; if anything is left, or that clean-up
could not run, this driver ends (status 4), and the host starts another container for the next
build.

A build runs /bin/sh build.sh with an empty environment but PATH and HOME, stdin on /dev/null,
stdout on /result/tar (the driver's, mode 700: the build can only write it through that
descriptor), stderr on /dev/null, no supplementary groups, no inheritable or ambient
capabilities, and RLIMIT_FSIZE at FILE_CAP bytes. It was once a shell script running a dozen
programs a build (env, prlimit, timeout, setpriv twice, find, chmod, rm, stat, cat...): the same
steps here are system calls, ~12 ms a build less.
"""

from __future__ import annotations

import ctypes
import os
import re
import resource
import select
import signal
import stat
import sys
import time
from collections.abc import Callable

BUILD_SCRIPT = "/opt/koth/build.sh"
RESULT = "/result/tar"
WRITABLE = ("/out", "/tmp", "/koth")
UID_BASE, UIDS = 20000, 40000
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
KILLED_BY_THE_LIMIT = 137  # what ``timeout -s KILL`` said, and dockerbuild.py reads
REQUEST = re.compile(rb"([0-9]+) ([a-z-]+) ([0-9]+)\n")
REQUEST_CAP = 64  # bytes of a request line
WALL_CAP_S = 1 << 20
CHUNK = 1 << 20
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _drop_capabilities_to_inherit() -> None:
    """No capability survives an exec: the ambient set emptied, the inheritable set too."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
    header, data = _Header(_CAPABILITY_VERSION_3, 0), (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    data[0].inheritable = data[1].inheritable = 0
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _become(uid: int) -> None:
    """This process (a child of the driver) as the build's uid, with no way back to root."""
    _drop_capabilities_to_inherit()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # root's capabilities go with it (no keep-caps)


def _in_child(work: Callable[..., None], *args: object) -> int:
    """Fork; the child runs ``work(*args)`` and ends (127 if it raised); returns the child's
    pid."""
    pid = os.fork()
    if pid:
        return pid
    try:
        work(*args)
        os._exit(0)
    except BaseException:  # noqa: BLE001 - a child never unwinds into the driver's loop
        os._exit(127)


def _run_build(uid: int, recipe: str, folder: str, file_cap: int, output: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(null, 2)
    os.closerange(3, 1 << 16)
    os.setsid()
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_cap, file_cap))
    _become(uid)
    os.execve("/bin/sh", ["/bin/sh", BUILD_SCRIPT, recipe, folder], ENVIRONMENT)


def _remove(path: str) -> None:
    """``path`` and all under it, made writable by its owner first where it is a folder; what
    cannot be removed is left (the caller looks for it)."""
    try:
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode):
            os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IRWXU)
            for name in os.listdir(path):
                _remove(os.path.join(path, name))
            os.rmdir(path)
        else:
            os.unlink(path)
    except (OSError, RecursionError):
        pass


def _end_build(uid: int) -> None:
    """As the build's uid: kill every process of it but this one, twice (one forked meanwhile
    dies too), then remove everything in the writable places."""
    _become(uid)
    for _ in range(2):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nothing of that uid was left
    for place in WRITABLE:
        for name in os.listdir(place):
            _remove(os.path.join(place, name))


def status_of(wait_status: int) -> int:
    """A child's end as a shell's ``$?`` gives it."""
    code = os.waitstatus_to_exitcode(wait_status)
    return code if code >= 0 else 128 - code


def ended_within(pid: int, wall_s: float) -> bool:
    """Whether the child ``pid`` ended within ``wall_s`` seconds (it is left to be reaped)."""
    try:
        ended = os.pidfd_open(pid)
    except OSError:  # a kernel before 5.3: look every 10 ms
        deadline = time.monotonic() + wall_s
        while True:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
    try:
        return bool(select.select([ended], [], [], wall_s)[0])
    finally:
        os.close(ended)


def _cleaned(uid: int) -> bool:
    """``_end_build`` for ``uid`` in a child; whether it ran to its end."""
    _, wait_status = os.waitpid(_in_child(_end_build, uid), 0)
    return wait_status == 0


def build(number: int, uid: int, recipe: str, wall_s: int, file_cap: int) -> int:
    """Build number ``number``, under ``uid`` and its time limit; its status."""
    output = os.open(RESULT, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        pid = _in_child(_run_build, uid, recipe, f"/inbox/{number}", file_cap, output)
    finally:
        os.close(output)
    in_time = ended_within(pid, wall_s)
    if not in_time:
        _cleaned(uid)  # its processes killed: it ends now
    _, wait_status = os.waitpid(pid, 0)
    return status_of(wait_status) if in_time else KILLED_BY_THE_LIMIT


def answer(status: int) -> None:
    """The answer's line, then build.sh's stream (removed afterwards)."""
    out = sys.stdout.buffer
    with open(RESULT, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        out.write(f"{size} {status}\n".encode())
        while chunk := stream.read(CHUNK):
            out.write(chunk)
    out.flush()
    os.unlink(RESULT)


def serve(file_cap: int) -> int:
    """Builds until stdin ends (0), a request is out of form (2), or a build leaves something
    behind (4)."""
    while line := sys.stdin.buffer.readline(REQUEST_CAP):
        request = REQUEST.fullmatch(line)
        if request is None:
            return 2
        number, wall_s = int(request[1]), min(int(request[3]), WALL_CAP_S)
        uid = UID_BASE + number % UIDS
        status = build(number, uid, request[2].decode(), wall_s, file_cap)
        if not _cleaned(uid) or any(os.listdir(place) for place in WRITABLE):
            return 4
        answer(status)
    return 0


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: buildserver.py FILE_CAP", file=sys.stderr)
        return 2
    return serve(int(sys.argv[1]))


if __name__ == "__main__":
    sys.exit(main())
