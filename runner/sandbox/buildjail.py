"""The local sandbox's compiler jail: an entry is built behind the walls a bot plays behind.
Standalone: stdlib only (it runs as its own program, ``python3 -I buildjail.py SPEC``).

The host keeps one such program running as a server (``--serve FD``): for each build it forks a
child that is what ``buildjail.py SPEC`` would be (its own session, its report on the descriptors
the host passed), so a build does not pay a Python start-up (~20 ms) before its compiler. The
server holds nothing of any build: it never reads the spec, and the child builds the walls.
Each step is started by the spec's ``helper`` (runner/jail/jailstep.c, compiled by the host;
read-only at HELPER_IN_JAIL in the jail's view) with ``posix_spawn``, and raises the step's walls
itself; without one, the child forks each step and raises them in Python (``_child``), which
cost ~0.8 ms of CPU a step more (a Python child's copy-on-write faults, its page tables);
the sweep after a step runs the helper's ``--sweep`` likewise.

The host makes a work folder holding ``src/`` (a private copy of the entry's regular files,
runner/common/safefiles.py) and runs this program on it. The program runs the build's steps
(compile, link, ...) one after the other, stopping at the first that fails, and copies the artefacts
named in the spec into ``work/out/``: only regular files (never a link), each under the cap. It
prints one JSON line: the failed step (or null), the compiler's messages (capped) and what it
copied.

The walls, when the host is root:

- a uid no other live process has (``UID_BASE`` + this program's pid, the scheme the bots' uids
  follow too), no supplementary groups; RLIMIT_NPROC on that uid limits the build to
  ``PROCESSES`` processes (gcc must fork cc1, as, collect2, ld) and, when a step ends, every
  process of that uid is killed;
- new network, IPC, UTS and mount namespaces: no network at all, no shared memory or semaphores
  of the host;
- a filesystem view that is empty but for the toolchain: a tmpfs root holding Debian's ``/usr``
  read-only (with the ``/bin``, ``/lib``... links or read-only binds), ``/dev/null``, a ``/tmp``
  tmpfs and a ``/build`` tmpfs holding the private copy of the entry — nothing else of the host,
  no other entry, no ``/etc``, no ``/proc``. ``#include "/etc/hostname"`` and
  ``.incbin "../greedy/bot.c"`` find nothing;
- rlimits: CPU, address space, file size, descriptors, no core dumps; a wall-clock limit for the
  whole build; a parent-death signal, so the build dies with the host.

Without root: the same program, the private copy (so nothing but the entry's regular files is in
its folder) and the rlimits (no NPROC limit: the uid is the host's), with TMPDIR inside the work
folder; it can still name host files by absolute path. As root where the kernel refuses new
namespaces (an unprivileged container): the private copy, the build's own uid and the rlimits.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import select
import signal
import stat
import sys
import time
import warnings  # noqa: F401  os.execvpe imports it, after the chroot: out of reach by then

# The jail program (this file run as a script) imports only what it uses: subprocess,
# dataclasses, pathlib and typing would cost each build ~30 ms of start-up, more than linking.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any
if __name__ != "__main__":  # the host's end: ``run_build`` and what it returns
    import socket
    import subprocess
    import threading
    from dataclasses import dataclass

UID_BASE = 1_000_000  # as runner/jail/zygote.py: UID_BASE + a live pid is unique to that process
PROCESSES = 16  # RLIMIT_NPROC on the build's own uid: the compiler driver and its passes
ADDRESS_SPACE = 2 << 30
FILE_SIZE = 64 << 20  # any one file the compiler writes
SCRATCH = 64 << 20  # each of the /build and /tmp tmpfs mounts
FILES = 256  # RLIMIT_NOFILE
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MS_PRIVATE = 1 << 18
MS_NOEXEC = 8
PR_SET_PDEATHSIG = 1
TOOLCHAIN = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
EXIT_SETUP_FAILED = 125  # a step's child could not be walled in: the host's fault
ANSWER_WALL_S = 30.0  # how long the server may take to fork a build
HELPER_IN_JAIL = "/koth-step"  # where the jail's view holds the step helper (jailstep.c)


class BuildJailError(RuntimeError):
    """The jail itself failed (the host's fault, not the entry's)."""


if __name__ != "__main__":

    @dataclass(frozen=True)
    class JailedBuild:
        """What a jailed build gave: ``artefacts`` are in ``work/out``."""

        failed_step: int | None  # the index of the step that failed; None: every step succeeded
        output: str  # the compiler's messages (capped), then koth's own notes
        artefacts: tuple[str, ...]  # the names copied into work/out: regular files under the cap
        timed_out: bool = False
        namespaces: bool = False  # namespaces and chroot were up (root, and the kernel let us)

    @dataclass(frozen=True)
    class Toolchain:
        """What a language's compiler needs beyond gcc's: more of the environment (a Go build's
        cache in /tmp), more processes and threads (a JVM's, rustc's), folders outside /usr it
        reads (a JDK's /etc/java-17-openjdk), bound read-only at the same place."""

        env: tuple[tuple[str, str], ...] = ()
        threads: int = 0
        view: tuple[str, ...] = ()
        proc: bool = False  # a /proc of its own processes (Mono's compiler needs one)


def run_build(
    work: Path,
    steps: list[list[str]],
    artefacts: list[str],
    wall_s: float,
    output_cap: int,
    artefact_cap: int,
    helper: str | None = None,
    toolchain: Toolchain | None = None,
) -> JailedBuild:
    """Build the private copy ``work/src`` by ``steps`` in the jail; artefacts land in
    ``work/out``. ``work`` is the host's own new folder, and ``src`` in it holds only the entry's
    regular files. ``helper``: the compiled runner/jail/jailstep.c that starts each step
    (None: a fork of the jail does). ``toolchain``: what the language's compiler needs beyond
    gcc's (runner/common/languages.py). A failing build never raises; a failing jail raises
    BuildJailError."""
    toolchain = toolchain or Toolchain()
    spec = {
        "work": str(work.resolve()),
        "steps": steps,
        "artefacts": artefacts,
        "wall_s": wall_s,
        "output_cap": output_cap,
        "artefact_cap": artefact_cap,
        "helper": helper,
        "env": dict(toolchain.env),
        "processes": PROCESSES + toolchain.threads,
        "view": list(toolchain.view),
        "proc": toolchain.proc,
    }
    pid, out, err = _start(json.dumps(spec).encode())
    try:  # the jail keeps its own clock; this is the backstop if the jail itself hangs
        stdout, stderr = _read_until_closed(out, err, wall_s + 30)
    except TimeoutError:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        raise BuildJailError(f"the build jail did not end within {wall_s + 30:g} s") from None
    try:
        report: dict[str, Any] = json.loads(stdout)
    except ValueError:
        lines = stderr.decode("utf-8", errors="replace").strip().splitlines() or ["no message"]
        raise BuildJailError(f"the build jail failed: {lines[-1]}") from None
    return JailedBuild(
        report["failed_step"],
        report["output"],
        tuple(report["artefacts"]),
        bool(report["timed_out"]),
        bool(report["namespaces"]),
    )


if __name__ != "__main__":

    class _Server:
        """The host's end of the server: a control socket; started on first use."""

        def __init__(self) -> None:
            host_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            command = [sys.executable, "-I", "-S", __file__, "--serve", str(server_end.fileno())]
            # Not a child of a build thread's making in any way that matters: it ends when its
            # socket closes (the host ended), not by a parent-death signal (the kernel would
            # send that when the thread that started it ends).
            self.process = subprocess.Popen(
                command,
                pass_fds=[server_end.fileno()],
                stdin=subprocess.DEVNULL,
                env=ENV,
                start_new_session=True,
            )
            server_end.close()
            self.control = host_end

        def start(self, spec: bytes) -> tuple[int, int, int]:
            """One build's child: its pid and the read ends of its stdout and stderr."""
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            try:
                socket.send_fds(self.control, [spec], [out_w, err_w])
                self.control.settimeout(ANSWER_WALL_S)
                answer = self.control.recv(64)
            except OSError:
                for fd in (out_r, err_r):
                    os.close(fd)
                raise
            finally:
                os.close(out_w)
                os.close(err_w)
            if not answer.isdigit():
                for fd in (out_r, err_r):
                    os.close(fd)
                raise OSError(f"the build server answered {answer[:40]!r}")
            return int(answer), out_r, err_r

        def close(self) -> None:
            self.control.close()
            self.process.wait()

    _SERVERS: list[_Server] = []
    _SERVER_LOCK = threading.Lock()

    def _start(spec: bytes) -> tuple[int, int, int]:
        """Start one build on the server (started, or started again if it died)."""
        with _SERVER_LOCK:
            for attempt in range(2):
                if not _SERVERS:
                    _SERVERS.append(_Server())
                try:
                    return _SERVERS[0].start(spec)
                except OSError as exc:
                    _SERVERS.pop().close()
                    if attempt:
                        raise BuildJailError(f"the build jail's server failed: {exc}") from None
        raise AssertionError("unreachable")

    def _read_until_closed(out: int, err: int, wall_s: float) -> tuple[bytes, bytes]:
        """Everything written to ``out`` and ``err`` until both close (TimeoutError past
        ``wall_s``); closes them."""
        read = {out: bytearray(), err: bytearray()}
        still_open = [out, err]
        deadline = time.monotonic() + wall_s
        try:
            while still_open:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                ready, _, _ = select.select(still_open, [], [], left)
                for fd in ready:
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        read[fd] += chunk
                    else:
                        still_open.remove(fd)
        finally:
            os.close(out)
            os.close(err)
        return bytes(read[out]), bytes(read[err])


# -- inside: the program the host runs -------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def encoded(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    result = _libc.mount(encoded(source), target.encode(), encoded(fstype), flags, data.encode())
    _check(result, f"mount {source} on {target}")


def _jail(
    src: str, root: str, uid: int, helper: str | None, view: list[str], proc: bool = False
) -> bool:
    """Unshare, build the empty view on ``root`` (with the folders of ``view``, read-only, and
    with ``proc`` a /proc of the build's own processes),
    copy the entry into /build, chroot. Whether ``helper`` is in the view, read-only at
    HELPER_IN_JAIL (where it cannot be bound there, the steps are forked)."""
    if _libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) != 0:
        err = ctypes.get_errno()
        kind = PermissionError if err == errno.EPERM else OSError
        raise kind(err, f"unshare: {os.strerror(err)}")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("koth-build", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for name in TOOLCHAIN:
        source = "/" + name
        if os.path.islink(source):
            os.symlink(os.readlink(source), f"{root}/{name}")
        elif os.path.isdir(source):
            os.mkdir(f"{root}/{name}")
            _mount(source, f"{root}/{name}", None, MS_BIND | MS_REC)
            _mount(None, f"{root}/{name}", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
    _bind_view(root, view)
    if proc:  # its own processes' folders only (hidepid: the build's uid's; subset=pid: none
        # of the machine's state): Mono's compiler runs only where /proc is
        os.mkdir(f"{root}/proc")
        options = "hidepid=invisible,subset=pid"
        _mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)
    os.mkdir(f"{root}/dev")
    open(f"{root}/dev/null", "w").close()
    _mount("/dev/null", f"{root}/dev/null", None, MS_BIND)
    for name, mode in (("tmp", "1777"), ("build", "0755")):
        os.mkdir(f"{root}/{name}")
        _mount(
            "koth-" + name,
            f"{root}/{name}",
            "tmpfs",
            MS_NOSUID | MS_NODEV,
            f"size={SCRATCH},mode={mode}",
        )
    bound = False
    if helper is not None:
        open(root + HELPER_IN_JAIL, "w").close()
        try:
            _mount(helper, root + HELPER_IN_JAIL, None, MS_BIND)
        except OSError:
            pass  # the steps are forked
        else:
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
            _mount(None, root + HELPER_IN_JAIL, None, flags)
            bound = True
    _copy_in(src, f"{root}/build", uid)
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chroot(root)
    os.chdir("/build")
    return bound


def _bind_view(root: str, view: list[str]) -> None:
    """Each folder of ``view`` (absolute, outside the toolchain's) bound read-only at its place
    under ``root``; one the machine lacks is left out (the compiler says what it misses)."""
    for folder in view:
        if not folder.startswith("/") or ".." in folder.split("/") or not os.path.isdir(folder):
            continue
        target = root + folder
        os.makedirs(target, exist_ok=True)
        _mount(folder, target, None, MS_BIND | MS_REC)
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _chown_tree(folder: str, uid: int) -> None:
    os.chown(folder, uid, uid)
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.chown(f"{parent}/{name}", uid, uid, follow_symlinks=False)


def _copy_in(src: str, dest: str, uid: int) -> None:
    """The host's private copy (its own files) into the jail's /build, owned by the build."""
    os.chown(dest, uid, uid)
    for folder, dirs, files in os.walk(src):
        inside = dest + folder[len(src) :]
        for name in dirs:
            os.mkdir(f"{inside}/{name}", 0o755)
            os.chown(f"{inside}/{name}", uid, uid)
        for name in files:
            with open(f"{folder}/{name}", "rb") as source, open(f"{inside}/{name}", "xb") as copy:
                copy.write(source.read())
            os.chown(f"{inside}/{name}", uid, uid)


# The processes (and threads) a step may have: PROCESSES, or more for a language whose compiler
# starts threads (``Toolchain``); set once in a build's own process (``_build``).
_PROCESSES = [PROCESSES]


def _limits(wall_s: float, uid: int | None) -> None:
    cpu = max(1, int(wall_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))
    if uid is not None:  # counts the processes of the build's own uid only
        resource.setrlimit(resource.RLIMIT_NPROC, (_PROCESSES[0], _PROCESSES[0]))


def _child(argv: list[str], log: int, wall_s: float, uid: int | None, env: dict[str, str]) -> None:
    """The forked step: drop to the build's uid, limits, exec. Never returns."""
    try:
        os.setsid()
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")
        _limits(wall_s, uid)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.closerange(3, 1 << 16)
    except BaseException as exc:
        os.write(log, f"koth: the build sandbox could not start: {exc}\n".encode())
        os._exit(EXIT_SETUP_FAILED)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as exc:
        os.write(2, f"koth: cannot run {argv[0]}: {exc.strerror}\n".encode())
    os._exit(127)


def _sweep(uid: int, helper: str | None) -> None:
    """Kill every process of the build's uid: a child takes that uid and kill(-1) reaches
    exactly the processes it can signal, which are the build's. The child is ``helper``'s
    ``--sweep`` where it runs (no copy of this process), else a fork of this one. This process
    never takes the build's uid itself: in that moment a build process could signal it (one that
    sent SIGSTOP in a loop stopped it every time, and its build hung)."""
    if helper:
        try:
            pid = os.posix_spawn(helper, [helper, "--sweep", str(uid)], {})
        except OSError:
            pass
        else:
            os.waitpid(pid, 0)
            return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        os._exit(0)
    os.waitpid(pid, 0)


def _spawn(
    helper: str, argv: list[str], log: int, wall_s: float, uid: int | None, env: dict[str, str]
) -> int:
    """The step started by the helper (runner/jail/jailstep.c), which raises the same walls
    as ``_child`` before it runs ``argv``: its pid."""
    os.set_inheritable(log, True)
    limits = [max(1, int(wall_s)), ADDRESS_SPACE, FILE_SIZE, FILES, _PROCESSES[0]]
    fields = [os.getpid(), "-" if uid is None else uid, *limits, log]
    return os.posix_spawn(helper, [helper, *map(str, fields), "--", *argv], env)


def _start_step(
    helper: str | None,
    argv: list[str],
    log: int,
    wall_s: float,
    uid: int | None,
    env: dict[str, str],
) -> int:
    """The step's pid, started by ``helper``; else (none, or it cannot be run here: a noexec
    mount, say) ``os.fork``'s result: 0 in the child, which is to become the step."""
    if helper:
        try:
            return _spawn(helper, argv, log, wall_s, uid, env)
        except OSError:
            pass
    return os.fork()


def _step(
    argv: list[str],
    deadline: float,
    uid: int | None,
    env: dict[str, str],
    output: bytearray,
    cap: int,
    helper: str | None,
) -> tuple[int, bool]:
    """Run one step (started by ``helper``, else a fork of this process); its messages are
    appended to ``output`` up to ``cap`` (the rest is read and dropped). Returns (exit code, or
    -signal; whether the deadline passed)."""
    read_end, write_end = os.pipe()
    wall_s = max(1.0, deadline - time.monotonic())
    pid = _start_step(helper, argv, write_end, wall_s, uid, env)
    if pid == 0:
        os.close(read_end)
        _child(argv, write_end, wall_s, uid, env)
    os.close(write_end)
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 1 << 16)
            if not chunk:  # every writer is gone
                break
            output += chunk[: max(0, cap - len(output))]
    finally:
        os.close(read_end)
    # Whatever is left of the step dies now (a process that has closed its end of the pipe is
    # exiting, and its status is already set): every process of the build's uid, or without
    # root the step's process group.
    if uid is not None:
        _sweep(uid, helper)
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), timed_out
    return os.WEXITSTATUS(status), timed_out


def _read_artefact(name: str, cap: int) -> tuple[bytes | None, str]:
    """A file the build wrote: only a regular file (never followed), at most ``cap`` bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, f"koth: {name} is a symbolic link: refused\n"
        return None, f"koth: {name} cannot be read: {exc.strerror}\n"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, f"koth: {name} is not a regular file: refused\n"
        if info.st_size > cap:
            return None, f"koth: {name} is larger than the {cap >> 20} MiB cap on artefacts\n"
        data = os.read(fd, cap + 1)
        return (data, "") if len(data) <= cap else (None, f"koth: {name} grew past the cap\n")
    finally:
        os.close(fd)


# How running out of room reads in a tool's messages: the kernel's EFBIG (the file-size limit,
# when SIGXFSZ is ignored, as Python leaves it for its children), ENOSPC (a full tmpfs), or the
# SIGXFSZ signal's own words (when it is not ignored, as in the Docker build).
ROOM_WORDS = (
    os.strerror(errno.EFBIG),
    os.strerror(errno.ENOSPC),
    signal.strsignal(signal.SIGXFSZ) or "File size limit exceeded",
)


def ran_out_of_room(output: str) -> bool:
    """Whether a build's messages say that it ran out of room."""
    return any(words in output for words in ROOM_WORDS)


def _out_of_room(output: bytes | bytearray, folder: str) -> bool:
    """Whether a step ran out of room: its messages say so, a file is at the file-size limit, or
    a scratch mount is full."""
    if ran_out_of_room(output.decode("utf-8", errors="replace")):
        return True
    try:
        space = os.statvfs(folder)
        if space.f_bavail * space.f_frsize < (1 << 20) and space.f_blocks:
            return True
        return any(
            os.stat(f"{folder}/{n}", follow_symlinks=False).st_size >= FILE_SIZE
            for n in os.listdir(folder)
        )
    except OSError:
        return False


def _walls(
    work: str, src: str, env: dict[str, str], helper: str | None, spec: dict[str, Any]
) -> tuple[int | None, bool, str | None]:
    """Raise the walls the host allows (the module's docstring says which): returns the build's
    uid (None without root), whether the namespaces and the chroot are up, and where the steps'
    helper is (None: nowhere, the steps are forked). Without the namespaces the build runs in
    ``src``, with a TMPDIR of its own in ``work`` (set in ``env``)."""
    uid: int | None = None
    namespaces = False
    if os.geteuid() == 0:
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")
        uid = UID_BASE + os.getpid()
        os.mkdir(f"{work}/root", 0o755)
        try:
            view, proc = list(spec.get("view", [])), bool(spec.get("proc"))
            bound = _jail(src, f"{work}/root", uid, helper, view, proc)
            helper = HELPER_IN_JAIL if bound else None
            namespaces = True
        except PermissionError:  # root in a container that may not unshare: uid + rlimits
            os.chmod(work, 0o755)
            _chown_tree(src, uid)
    if not namespaces:
        scratch = f"{work}/tmp"
        for name, value in env.items():  # a language's folders in /tmp: in the build's own
            ours = value == work or value.startswith(f"{work}/")  # (work may lie in /tmp)
            if (value == "/tmp" or value.startswith("/tmp/")) and not ours:
                env[name] = scratch + value.removeprefix("/tmp")
        env["TMPDIR"] = scratch
        os.mkdir(scratch, 0o700)
        if uid is not None:
            os.chown(env["TMPDIR"], uid, uid)
        os.chdir(src)
    return uid, namespaces, helper


def _run_steps(
    steps: list[list[str]],
    deadline: float,
    uid: int | None,
    env: dict[str, str],
    output: bytearray,
    cap: int,
    helper: str | None,
) -> tuple[int | None, bool]:
    """Run the steps one after the other (each started by ``helper``, if any), up to the first
    that fails or passes the deadline: returns its index (None: every step succeeded) and
    whether the deadline passed."""
    for index, argv in enumerate(steps):
        code, timed_out = _step(argv, deadline, uid, env, output, cap, helper)
        if code != 0 or timed_out:
            return index, timed_out
    return None, False


def _failure_notes(
    wall_s: float,
    failed: int | None,
    timed_out: bool,
    output: bytearray,
    scratch: list[str],
    namespaces: bool,
) -> str:
    """koth's note on a build that ran out of time, or failed for want of room in ``scratch``
    (the folders it writes in), which the compiler's messages may not make plain."""
    if timed_out:
        return f"koth: the build ran longer than {wall_s:g} s\n"
    if failed is not None and any(_out_of_room(output, folder) for folder in scratch):
        notes = f"koth: the build ran out of room: a file may be at most {FILE_SIZE >> 20} MiB"
        notes += f", and /build and /tmp hold {SCRATCH >> 20} MiB each\n" if namespaces else "\n"
        return notes
    return ""


def _copy_artefacts(names: list[str], cap: int, out_fd: int) -> tuple[list[str], str]:
    """Copy the artefacts that are regular files under ``cap`` into the folder ``out_fd``:
    returns the names copied and a note on each one refused."""
    copied = []
    notes = ""
    for name in names:
        data, note = _read_artefact(name, cap)
        notes += note
        if data is not None:
            fd = os.open(
                name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=out_fd
            )
            with os.fdopen(fd, "wb") as copy:
                copy.write(data)
            copied.append(name)
    return copied, notes


def _build(spec: dict[str, Any]) -> dict[str, Any]:
    """Build as ``spec`` says, behind the walls: the report that ``main`` prints."""
    work = spec["work"]
    src = f"{work}/src"
    cap, artefact_cap = int(spec["output_cap"]), int(spec["artefact_cap"])
    deadline = time.monotonic() + float(spec["wall_s"])
    os.mkdir(f"{work}/out", 0o700)
    out_fd = os.open(f"{work}/out", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    env = {**ENV, **{str(k): str(v) for k, v in spec.get("env", {}).items()}}
    _PROCESSES[0] = int(spec.get("processes", PROCESSES))
    uid, namespaces, helper = _walls(work, src, env, spec.get("helper"), spec)
    scratch = ["/build", "/tmp"] if namespaces else [src, env["TMPDIR"]]
    output = bytearray()
    failed, timed_out = _run_steps(spec["steps"], deadline, uid, env, output, cap, helper)
    notes = _failure_notes(float(spec["wall_s"]), failed, timed_out, output, scratch, namespaces)
    copied, artefact_notes = _copy_artefacts(spec["artefacts"], artefact_cap, out_fd)
    notes += artefact_notes
    if artefact_notes and failed is None:  # a refused artefact fails the build at its last step
        failed = len(spec["steps"]) - 1
    text = output.decode("utf-8", errors="replace")
    return {
        "failed_step": failed,
        "output": text + notes,
        "artefacts": copied,
        "timed_out": timed_out,
        "namespaces": namespaces,
    }


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "--serve":
        serve(int(argv[2]))
        return 0
    if len(argv) != 2:
        print("usage: buildjail.py SPEC_JSON | --serve FD", file=sys.stderr)
        return 2
    report = _build(json.loads(argv[1]))
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


def serve(control: int) -> None:
    """The server (``--serve FD``): for each request on the SEQPACKET socket ``control`` (a
    spec, and the descriptors for the build's stdout and stderr), fork a child that runs
    ``main`` on that spec in a session of its own, and answer with its pid. Ends when the host
    closes the socket."""
    import socket

    channel = socket.socket(fileno=control)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children: no zombies
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 2)
        if not message:
            return
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            channel.send(b"refused")
            continue
        pid = os.fork()
        if pid == 0:
            channel.close()
            _run_child(message.decode(), fds[0], fds[1])
        for fd in fds:
            os.close(fd)
        channel.send(str(pid).encode())


def _run_child(spec: str, out: int, err: int) -> None:
    """A served build: what ``buildjail.py SPEC`` does, with stdout and stderr on ``out`` and
    ``err``. Never returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # it waits for its own steps
        os.setsid()
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)
        code = main(["buildjail.py", spec])
    except BaseException as exc:
        os.write(2, f"{type(exc).__name__}: {exc}\n".encode())
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
