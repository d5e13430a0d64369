"""The program that hosts bots in the sandbox, in two roles. Standalone: stdlib + cffi, plus its
sibling walls.py.

**Zygote** (``python3 worker.py --control-fd N`` locally, ``--control-socket PATH`` in a
container): a warm process that has imported cffi (and parses each C signature it is given
once, so that blanks forked afterwards inherit it), and never loads bot code. It is not dumpable
(no process of its uid may ptrace it or read its memory). The host asks it, over a
SOCK_SEQPACKET control socket, to ``spawn`` a bot: the request carries the bot's pipes
(SCM_RIGHTS) and its limits; the zygote hands them to a pre-forked blank, and reports
``{"spawned", pid}``, then ``{"exit", status, rusage, setup_failed}`` or ``{"stopped"}`` when the
kernel tells it (wait4). When the control socket closes, every bot is killed.

**Bot process** (a blank, then the bot): walls itself in before any bot code runs — own session,
fds 0-2 on /dev/null and the output pipe; as root on the host a new network and IPC namespace
and a chroot into the entry's jail (a folder holding only ``bot.so``, or a private read-only view
of /usr, /dev/null and the jail for a program); whenever it can change uid (root, on the host or
in a container) a uid no other live process has (so NPROC=0 blocks fork and it can signal
nothing); the parent-death signal, set again after that credential change and checked; rlimits
(AS, CPU, NPROC, FSIZE, NOFILE, CORE); and the seccomp filter of walls.py — then ``dlopen`` or
``exec``. Until the moment before bot code runs, it holds a channel to the zygote on which it
reports a failure of these walls (the host's fault); it closes that channel first, so nothing bot
code does can pass for a set-up failure — its exit codes, signals and words are its own.
A C bot says hello (its name string) and then answers requests on fd 3 → fd 4: the request's
bytes in, laid out as the game's signature says (its ``abi``: the cffi declarations, the function,
the name symbol and how each argument is read from the request), one little-endian int32 out. The
worker knows no game. Nothing the bot writes is trusted by the host.
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

if __package__:
    from runner.bots import walls
else:  # run as a program (the zygote): walls.py lies beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import walls  # type: ignore[import-not-found,no-redef]

REQUEST_FD = 3
REPLY_FD = 4
HELLO_MAGIC = b"KOTH"
IDENTIFY = b"!"
NAME_CAP = 200
UID_BASE = 1_000_000  # unique per bot: UID_BASE + its pid (pids are unique among live processes)
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MS_PRIVATE = 1 << 18
PROGRAM_FILES = 64  # descriptors a program bot may hold (stdin/out/err included)
PROGRAM_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
BLANKS = 2  # children kept forked ahead: a two-player game starts without waiting for a fork
EXIT_LOAD_FAILED = 97  # the bot's shared object could not be loaded (the reason is on its stderr)
EXIT_SETUP_FAILED = 98  # the walls could not be built (the report channel says why)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


class _MemoryGroups:
    """Per-bot memory cgroups (root only; cgroup v2 or v1), owned by the zygote.

    With a group, the kernel enforces the memory limit on memory actually used and counts its
    OOM kills, so a loss reads "memory" rather than a signal. Without one, the address-space
    rlimit alone limits the bot. Each blank joins its group while it waits (joining costs
    ~0.4 ms on v1); the limit is written when the blank gets its bot.
    """

    V2 = "/sys/fs/cgroup"
    V1 = "/sys/fs/cgroup/memory"

    def __init__(self) -> None:
        self.parent = ""
        self.version = 0
        self._count = 0
        if os.geteuid() != 0:
            return
        try:
            if "memory" in _read_text(self.V2 + "/cgroup.controllers").split():
                if "memory" not in _read_text(self.V2 + "/cgroup.subtree_control").split():
                    return
                root, version = self.V2, 2
            elif os.path.exists(self.V1 + "/memory.limit_in_bytes"):
                root, version = self.V1, 1
            else:
                return
            _remove_stale_groups(root)
            parent = f"{root}/koth-{os.getpid()}"
            os.makedirs(parent, exist_ok=True)
            if version == 2:
                _write_text(parent + "/cgroup.subtree_control", "+memory")
        except OSError:
            return
        self.parent, self.version = parent, version

    def new(self) -> str | None:
        if not self.version:
            return None
        self._count += 1
        path = f"{self.parent}/bot-{self._count}"
        try:
            os.mkdir(path)
        except OSError:
            return None
        return path

    def set_limit(self, path: str, limit: int) -> None:
        if self.version == 2:
            _write_text(path + "/memory.max", str(limit))
            _write_text(path + "/memory.swap.max", "0")
        else:
            _write_text(path + "/memory.limit_in_bytes", str(limit))
            if os.path.exists(path + "/memory.memsw.limit_in_bytes"):
                _write_text(path + "/memory.memsw.limit_in_bytes", str(limit))

    def oom_kills(self, path: str) -> int:
        name = "/memory.events" if self.version == 2 else "/memory.oom_control"
        for line in _read_text(path + name).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def remove(self, path: str | None) -> None:
        if path:
            _rmdir(path)

    def close(self) -> None:
        if self.version:
            for name in os.listdir(self.parent):
                self.remove(f"{self.parent}/{name}")
            self.remove(self.parent)


def _remove_stale_groups(root: str) -> None:
    """Remove the groups of zygotes that died without cleaning up (``kill -9`` of a run): a
    group's name holds its zygote's pid. A group that still holds a process is never removed
    (the kernel refuses), so a live run's groups are safe even if its pid was reused."""
    for name in os.listdir(root):
        owner = name.removeprefix("koth-")
        if not name.startswith("koth-") or not owner.isdigit() or _alive(int(owner)):
            continue
        parent = f"{root}/{name}"
        for child in os.listdir(parent):
            if os.path.isdir(f"{parent}/{child}"):
                _rmdir(f"{parent}/{child}")
        _rmdir(parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _rmdir(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _read_text(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _write_text(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def encoded(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    result = _libc.mount(encoded(source), target.encode(), encoded(fstype), flags, data.encode())
    _check(result, f"mount {source} on {target}")


def _program_root(root: str, jail: str) -> None:
    """A private, read-only world for a program bot: /usr (and its /bin, /lib symlinks) for the
    language runtime, /dev/null, and the entry's build at /bot — nothing else of the host."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("koth", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
    for name in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        source = "/" + name
        if os.path.islink(source):
            os.symlink(os.readlink(source), f"{root}/{name}")
        elif os.path.isdir(source):
            os.mkdir(f"{root}/{name}")
            _mount(source, f"{root}/{name}", None, MS_BIND | MS_REC)
            _mount(None, f"{root}/{name}", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
    os.mkdir(f"{root}/bot")
    _mount(jail, f"{root}/bot", None, MS_BIND)
    _mount(None, f"{root}/bot", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.mkdir(f"{root}/dev")
    open(f"{root}/dev/null", "w").close()
    _mount("/dev/null", f"{root}/dev/null", None, MS_BIND)
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


class _Abilities:
    """What this zygote can wall its bots in with, found out once at start."""

    private = False  # root on the host: new namespaces, chroot, mounts (CAP_SYS_ADMIN)
    setuid = False  # root (on the host, or in a container with CAP_SETUID): a uid per bot
    seccomp = False  # libseccomp is there and the kernel takes filters
    zygote = 0  # the zygote's pid: every blank's parent


def _wall_in(request: dict[str, Any], rules: bytes | None) -> str:
    """Everything that must hold before bot code runs. Returns the path to load or run."""
    so_path: str = request.get("so", "")
    jail: str = request["jail"]
    program = request.get("exec")
    if _Abilities.private:
        if program:
            _program_root(request["root"], jail)
            os.chroot(request["root"])
            os.chdir("/bot")
        else:
            os.chroot(jail)
            os.chdir("/")
            so_path = "/" + os.path.basename(so_path)
    else:
        os.chdir(jail)
    if _Abilities.setuid:
        uid = UID_BASE + os.getpid()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # leaving root clears every capability
        walls.set_parent_death_signal(_Abilities.zygote)  # the uid change cleared it
    os.environ.clear()
    limits = request["limits"]
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, 0)
    _limit(resource.RLIMIT_NPROC, 0)
    # In a memory cgroup the OOM killer enforces the limit; the address-space rlimit is then a
    # backstop against huge reservations only.
    in_group = bool(request.get("cgroup")) or bool(limits.get("memory_enforced_outside"))
    _limit(resource.RLIMIT_AS, int(limits["memory_bytes"]) + (4 << 30 if in_group else 0))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if program:  # an interpreter opens files as it starts (read-only: nothing is writable)
        _limit(resource.RLIMIT_NOFILE, PROGRAM_FILES)
    else:  # dlopen needs one descriptor for a moment; afterwards none may be opened
        _limit(resource.RLIMIT_NOFILE, REPLY_FD + 2)
    if rules is not None:
        walls.install(rules)
    return so_path


def _exec(path: str, request: dict[str, Any]) -> None:
    """Runs in the walled-in child for a program bot. Never returns. (The report channel is
    close-on-exec: it closes as the program starts.)"""
    argv = [str(arg) for arg in request["exec"]]
    del path
    try:
        os.execve(argv[0], argv, PROGRAM_ENV)
    except OSError as exc:
        os.write(2, f"cannot start the bot {argv[0]}: {exc.strerror}\n".encode())
        os._exit(EXIT_LOAD_FAILED)


_FFIS: dict[str, Any] = {}  # cffi declarations → the FFI that parsed them (inherited by blanks)


def _ffi_for(cdef: str) -> Any:
    ffi = _FFIS.get(cdef)
    if ffi is None:
        import cffi

        ffi = _FFIS[cdef] = cffi.FFI()
        ffi.cdef(cdef)
    return ffi


def _argument(ffi: Any, offset: int, ctype: str, size: int, read: str) -> Any:
    """A function that takes the request's bytes and gives one argument of the C call."""
    end = offset + size
    if read == "widen":  # each byte one C int: fill the low byte of each little-endian int
        cell = ffi.new(ctype)
        wide = bytearray(size * 4)

        def widened(view: memoryview) -> Any:
            wide[::4] = view[offset:end]
            ffi.memmove(cell, wide, size * 4)
            return cell

        return widened
    if read == "byte":
        return lambda view: bytes(view[offset:end])
    return lambda view: int.from_bytes(view[offset:end], "little", signed=True)


def _serve(so_path: str, abi: dict[str, Any]) -> None:
    """Runs in the walled-in child for a C-function bot: load it, then answer. Never returns."""
    try:
        ffi = _ffi_for(abi["cdef"])
        lib = ffi.dlopen(so_path)
        name_ptr = getattr(lib, abi["name_symbol"])
        name = ffi.string(name_ptr, NAME_CAP) if name_ptr != ffi.NULL else b""
        function = getattr(lib, abi["function"])
    except Exception as exc:
        os.write(2, f"cannot load the bot: {exc}\n".encode())
        os._exit(EXIT_LOAD_FAILED)
    _limit(resource.RLIMIT_NOFILE, REPLY_FD + 1)
    os.write(REPLY_FD, HELLO_MAGIC + struct.pack("<H", len(name)) + name)
    arguments, size = [], 0
    for ctype, length, read in abi["args"]:
        arguments.append(_argument(ffi, size, ctype, int(length), read))
        size += int(length)
    pack = struct.Struct("<i").pack
    incoming = bytearray(size)
    view = memoryview(incoming)
    while True:
        got = 0
        while got < size:
            count = os.readv(REQUEST_FD, [view[got:]])
            if count == 0:
                os._exit(0)
            got += count
        move = function(*[argument(view) for argument in arguments])
        os.write(REPLY_FD, pack(move))


def _become_bot(channel: socket.socket, group: str | None) -> None:
    """The blank's life once forked: wait for a bot, wall in, become it. Never returns."""
    report = channel.fileno()
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        walls.set_parent_death_signal(_Abilities.zygote)
        if _Abilities.private:
            _check(_libc.unshare(CLONE_NEWNET | CLONE_NEWIPC), "unshare(NEWNET|NEWIPC)")
        if group:  # joined while waiting (~0.4 ms on cgroup v1); the limit comes with the bot
            _write_text(group + "/cgroup.procs", str(os.getpid()))
        # Compiled while the blank waits, so a game does not wait for it.
        rules = walls.filter_for(os.getpid()) if _Abilities.seccomp else None
        message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 8)
        if not message:
            os._exit(0)
        request = json.loads(message)
        # A program (stdio bot) talks on its stdin/stdout; a C function's host uses 3/4 and
        # sends the bot's own prints to the output pipe.
        program = bool(request.get("exec"))
        targets = (-1, 0, 1, 2) if program else (0, REQUEST_FD, REPLY_FD, 1)
        # Lift every source above the targets first, so no dup2 clobbers a source.
        devnull = os.open(os.devnull, os.O_RDONLY)
        sources = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64) for fd in (devnull, *fds, report)]
        for target, source in zip(targets, sources, strict=False):
            if target >= 0:
                os.dup2(source, target)
        if not program:
            os.dup2(1, 2)
        report = max(targets) + 1
        os.dup2(sources[-1], report, inheritable=False)
        os.closerange(report + 1, 1 << 16)
        # One byte before any bot code runs: the kernel stamps it with this process's pid as
        # the host sees it (SCM_CREDENTIALS), which no later write can forge.
        os.write(targets[2], IDENTIFY)
        path = _wall_in(request, rules)
    except BaseException as exc:
        try:
            os.write(report, f"{type(exc).__name__}: {exc}".encode()[:4000])
        except OSError:
            pass
        os._exit(EXIT_SETUP_FAILED)
    if program:
        _exec(path, request)  # the report channel closes on exec
    os.close(report)  # from here on bot code may run: nothing it says is a set-up report
    _serve(path, request["abi"])


class _Blank:
    """A child forked ahead of need, waiting for its bot: the fork, the namespaces and the
    seccomp filter are paid while the host is busy with something else, not while a game waits
    to start. ``channel`` carries its bot's request, and back a report of failed walls."""

    def __init__(self, control: socket.socket, group: str | None) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.group = group
        self.pid = os.fork()
        if self.pid == 0:
            control.close()
            parent_end.close()
            _become_bot(child_end, group)
        child_end.close()
        self.channel = parent_end

    def assign(self, message: bytes, fds: list[int]) -> None:
        try:
            socket.send_fds(self.channel, [message], fds)
        finally:
            for fd in fds:
                os.close(fd)
        self.channel.setblocking(False)

    def setup_failure(self) -> str | None:
        """What the walls' failure was, if the child reported one before bot code could run."""
        try:
            said = self.channel.recv(4096)
        except OSError:
            return None
        return said.decode("utf-8", errors="replace") or None


def _can_unshare() -> bool:
    """Root in an unprivileged container may not make namespaces: find out once, at start."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc.unshare(CLONE_NEWNET | CLONE_NEWIPC) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _can_filter() -> bool:
    """Whether libseccomp is there and the kernel takes a filter: find out once, at start."""
    pid = os.fork()
    if pid == 0:
        try:
            walls.install(walls.deny_list_filter(os.getpid()).compiled())
        except OSError:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    try:
        control.send(json.dumps(message).encode())
    except OSError:
        pass  # the host has gone; the main loop sees the closed socket and ends


def _reap(control: socket.socket, children: dict[int, _Blank], groups: _MemoryGroups) -> set[int]:
    """Report what the kernel says of our bots; returns every child pid that has ended."""
    gone: set[int] = set()
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return gone
        if pid == 0:
            return gone
        if pid not in children:  # a blank that never got a bot
            if not os.WIFSTOPPED(status):
                gone.add(pid)
            continue
        if os.WIFSTOPPED(status):
            _send(control, {"event": "stopped", "pid": pid, "signal": os.WSTOPSIG(status)})
            continue
        child = children.pop(pid)
        gone.add(pid)
        failure = child.setup_failure()
        child.channel.close()
        oom_kills = groups.oom_kills(child.group) if child.group else 0
        groups.remove(child.group)
        cpu = usage.ru_utime + usage.ru_stime
        _send(
            control,
            {
                "event": "exit",
                "pid": pid,
                "status": status,
                "cpu": cpu,
                "maxrss_kib": usage.ru_maxrss,
                "oom_kills": oom_kills,
                "setup_failed": failure,
            },
        )


class _Zygote:
    """The zygote's bookkeeping: its bots, its pool of blanks, their memory groups."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.groups = _MemoryGroups()
        self.children: dict[int, _Blank] = {}  # bot pid → its blank (group, report channel)
        self.blanks: list[_Blank] = []

    def refill(self) -> None:
        self.blanks.append(_Blank(self.control, self.groups.new()))

    def reap(self) -> None:
        gone = _reap(self.control, self.children, self.groups)
        for blank in self.blanks:
            if blank.pid in gone:
                self.groups.remove(blank.group)
                blank.channel.close()
        self.blanks = [b for b in self.blanks if b.pid not in gone]

    def spawn(self, request: dict[str, Any], fds: list[int]) -> None:
        if request.get("abi"):  # parsed here once: blanks forked later inherit it
            _ffi_for(str(request["abi"]["cdef"]))
        blank = self.blanks.pop(0) if self.blanks else _Blank(self.control, self.groups.new())
        if blank.group:
            self.groups.set_limit(blank.group, int(request["limits"]["memory_bytes"]))
            request["cgroup"] = blank.group
        blank.assign(json.dumps(request).encode(), fds)
        self.children[blank.pid] = blank
        _send(self.control, {"event": "spawned", "pid": blank.pid})

    def serve(self) -> bool:
        """Take one request from the host; False once it has gone."""
        try:
            message, fds, _, _ = socket.recv_fds(self.control, 1 << 16, 8)
        except OSError:
            return False
        if not message:
            return False
        request = json.loads(message)
        if request["op"] == "spawn" and len(fds) == 3:
            self.spawn(request, fds)
            return True
        for fd in fds:
            os.close(fd)
        if request["op"] == "kill" and request["pid"] in self.children:
            os.kill(request["pid"], signal.SIGKILL)
        return True

    def close(self) -> None:
        for pid in [*self.children, *(b.pid for b in self.blanks)]:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.groups.close()


def _find_abilities(groups: _MemoryGroups) -> dict[str, Any]:
    """What this zygote can wall bots in with (``_Abilities``), as its ready message says."""
    _Abilities.zygote = os.getpid()
    _Abilities.setuid = os.geteuid() == 0
    _Abilities.private = _Abilities.setuid and _can_unshare()
    _Abilities.seccomp = _can_filter()
    if _Abilities.seccomp:
        walls.filter_for(os.getpid())  # compiled here once: every blank inherits it
    return {
        "event": "ready",
        "pid": os.getpid(),
        "root": _Abilities.setuid,
        "netns": _Abilities.private,
        "memory_cgroups": bool(groups.version),
        "seccomp": _Abilities.seccomp,
    }


def zygote(control: socket.socket) -> None:
    # No parent-death signal here: the kernel sends it when the *thread* that started this
    # process ends, which may be long before the host does. The host's end of the control
    # socket closes when the host dies, however it dies, and then this process ends (below).
    walls.make_undumpable()
    # cffi, its backend and its C parser are loaded once, here: a blank walled into a chroot
    # can no longer import them, and every bot forked from this process has them warm.
    _ffi_for("int koth_warm_up(int);")
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    state = _Zygote(control)
    _send(control, _find_abilities(state.groups))
    try:
        while True:
            # Refill the pool of blanks only when no request has come for a moment, so forking
            # never delays a game that is starting (a game spawns its bots back to back).
            idle = None if len(state.blanks) >= BLANKS else (0.0 if not state.blanks else 0.005)
            readable, _, _ = select.select([control.fileno(), wake_r], [], [], idle)
            if not readable:
                state.refill()
                continue
            if wake_r in readable:
                os.read(wake_r, 4096)
                state.reap()
            if control.fileno() in readable and not state.serve():
                break
    finally:
        state.close()


def main(argv: list[str]) -> None:
    """``--control-fd N``: an inherited socket (local sandbox). ``--control-socket PATH``: connect
    to the host's listening socket (a container, where the path is in a read-only bind mount)."""
    if len(argv) == 3 and argv[1] == "--control-fd":
        zygote(socket.socket(fileno=int(argv[2])))
    elif len(argv) == 3 and argv[1] == "--control-socket":
        control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        control.connect(argv[2])
        zygote(control)
    else:
        sys.exit("usage: worker.py --control-fd N | --control-socket PATH")


if __name__ == "__main__":
    main(sys.argv)
