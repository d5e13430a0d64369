"""The program that hosts bots in the sandbox, in two roles. Standalone: stdlib + cffi, plus its
sibling walls.py.

**Zygote** (``python3 zygote.py --control-fd N`` locally, ``--control-socket PATH`` in a
container): a warm process that has imported cffi (and parses each C signature it is given
once, so that blanks forked afterwards inherit it), and never loads bot code. It is not dumpable
(no process of its uid may ptrace it or read its memory). The host asks it, over a
SOCK_SEQPACKET control socket, to ``spawn`` a bot: the request carries the bot's pipes
(SCM_RIGHTS) and its limits; the zygote hands them to a pre-forked blank, and reports
``{"spawned", pid}``, then ``{"exit", status, rusage, setup_failed}`` or ``{"stopped"}`` when the
kernel tells it (wait4). When the control socket closes, every bot is killed.

**Bot process** (a blank, then the bot): walls itself in before any bot code runs — own session,
its channels (pipes: request, reply, output; and a socket it writes its identity byte on and
closes, so that it holds no socket) on their descriptors, nothing else open; as root on the host a
network, IPC and UTS namespace that is not the host's (the zygote's own, made once, when the
seccomp filter denies making anything in it; else a new one per bot; its host name koth's) and a
chroot: into the entry's jail (a folder holding only ``bot.so``), or, for a program its language
runs (``python3 bot.py``), a private read-only view of /usr, /dev/null and the jail's files, its
folders its own (where the zygote cannot build one, a container's, a view made ready in the image:
the request's ``view``). A program of the entry's own build (``./bot``) needs no view: it names no
file, and starts from its binary's descriptor, read through into the page cache first. Whenever it
can change uid (root, on the host or in a container) a uid no other live process has (so NPROC=0
blocks fork and it can signal nothing); the parent-death signal, set again after that credential
change and checked; rlimits (AS, CPU, NPROC, FSIZE, NOFILE, CORE); and the seccomp filter of
walls.py for its kind — then ``dlopen`` or ``exec``. A C function's blank then puts its library's
pages in its page tables and adds the filter that denies every call naming a file. Until the moment
before bot code runs, it holds a channel to the zygote on which it reports a failure of these walls
(the host's fault); it closes that channel first, so nothing bot code does can pass for a set-up
failure — its exit codes, signals and words are its own.
A C bot says hello (its name string) and then answers requests on fd 3 → fd 4: the request's
bytes in, laid out as the game's signature says (its ``abi``: the cffi declarations, the function,
the name symbol and how each argument is read from the request), one little-endian int32 out. The
worker knows no game. Nothing the bot writes is trusted by the host.

**The C blank** (cblank.c, compiled; ``--native PATH``): where the host provides it, a C-function
bot whose signature it can call (``_native_args``) runs in a process started from that small C
program (cloned by its fork server, ``cblank --serve``, or else started with posix_spawn)
instead of in a fork of this interpreter. It builds the same walls in the same order, reports a
failed one the same way and speaks the same protocol; a bot's process then holds no Python,
which makes a game's start, each move and a game's end several times cheaper.
"""

from __future__ import annotations

import sys

# What the bare interpreter holds before this file imports anything (the __future__ import is
# this file's own): a Python bot run in a fork of this process (``_run_python``) starts from it.
_BARE_MODULES = frozenset(sys.modules) - {"__future__"}
_BARE_PATH = tuple(sys.path)

# ruff: noqa: E402 - the imports come after that snapshot on purpose
import builtins
import ctypes
import fcntl
import json
import os
import resource
import select
import signal
import socket
import struct
import time
from collections import Counter, deque
from typing import Any

if __package__:
    from runner.jail import walls
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
CLONE_NEWUTS = 0x04000000
CLONE_NEWNS = 0x00020000
# The namespaces a bot is given that are not the host's: no network, no System V IPC, and a
# host name of koth's (``uname`` tells a bot nothing of the machine's name).
BOT_NAMESPACES = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
HOST_NAME = "koth"
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MS_PRIVATE = 1 << 18
MS_NOEXEC = 8
# A /proc of a bot's own: its uid's processes only (hidepid), and no file of the machine's state
# (subset=pid: no meminfo, stat, loadavg ...).
PROC_OPTIONS = "hidepid=invisible,subset=pid"
PROGRAM_FILES = 64  # descriptors a program bot may hold (stdin/out/err included)
PROGRAM_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
PYTHON_COMMAND = ("/usr/bin/python3", "-I", "-B")  # how a Python bot runs: + its script
# How a zygote is started: ``python -c LAUNCH PATH ARGS...`` runs this file (PATH) as
# ``__main__``, as ``python PATH ARGS...`` would, but from its compiled code where Python keeps
# it (__pycache__, as for a module imported): a script is compiled at every start (12-25 ms of a
# zygote's). Nothing is imported, nor added to sys.path, that running the script would not.
LAUNCH = (
    "import sys; p = sys.argv.pop(1); m = type(sys)('__main__'); m.__file__ = p; "
    "sys.modules['__main__'] = m; "
    "sys.modules['_frozen_importlib_external'].SourceFileLoader('__main__', p).exec_module(m)"
)
NATIVE_CHANNEL_FD = 3  # where the C blank finds its channel to the zygote
NATIVE_ARGS = 6  # arguments the C blank can pass (each in a register of its own)
NATIVE_REQUEST_CAP = 1 << 16  # request bytes the C blank can take
NATIVE_MACHINES = ("x86_64", "aarch64")  # calling conventions the C blank's call relies on
NATIVE_SERVER_WAIT_S = 5.0  # the C blank's fork server answers at once, or is given up
NATIVE_SERVER_TRIES = 3  # failures in a row before the zygote stops starting it
BLANKS = 2  # children kept forked ahead: a two-player game starts without waiting for a fork
MAX_BLANKS = 12  # ... or as many as the latest burst of spawns asked for (a turn of 7 seats)
BURST_GAP_S = 0.002  # spawns closer together than this are one burst (a turn's seats)
EXIT_LOAD_FAILED = 97  # the bot's shared object could not be loaded (the reason is on its stderr)
EXIT_SETUP_FAILED = 98  # the walls could not be built (the report channel says why)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


RESERVE = 4 << 30  # address space beyond the memory limit where memory is held otherwise
UNKNOWN_LIMIT = 256 << 20  # a group's limit for ``_still_charged`` before one is written


class _MemoryGroups:
    """Per-bot memory cgroups (root only; cgroup v2 or v1), owned by the zygote.

    With a group, the kernel enforces the memory limit on memory actually used and counts its
    OOM kills, so a loss reads "memory" rather than a signal. Without one, the address-space
    rlimit alone limits the bot. Each blank joins its group while it waits (joining costs
    ~0.4 ms on v1); the limit is written when the blank gets its request.

    A group whose process has ended is kept for the next blank if no process is left in it
    (``release``): making, limiting and removing a group cost ~0.5 ms of system CPU a bot, more
    than the rest of its start. Its OOM kills are counted from where they stood when it was
    handed out again, and a limit is written only when it changes.
    """

    def __init__(self, mounts: str = "/sys/fs/cgroup", root_only: bool = True) -> None:
        """``mounts``: where the cgroup file systems are (v2's there, v1's memory hierarchy in
        its ``memory`` folder); another folder only in tests, with ``root_only`` False."""
        self.v2, self.v1 = mounts, mounts + "/memory"
        self.parent = ""
        self.version = 0
        self._count = 0
        self._free: list[str] = []  # empty groups to hand out again
        self._limits: dict[str, int] = {}  # the limit last written to each group
        self._oom_base: dict[str, int] = {}  # a group's OOM kills before its current blank
        self._oom_seen: dict[str, int] = {}  # a group's OOM kills when ``oom_kills`` last read them
        if root_only and os.geteuid() != 0:
            return
        try:
            if "memory" in _read_text(self.v2 + "/cgroup.controllers").split():
                if "memory" not in _read_text(self.v2 + "/cgroup.subtree_control").split():
                    return
                root, version = self.v2, 2
            elif os.path.exists(self.v1 + "/memory.limit_in_bytes"):
                root, version = self.v1, 1
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
        if self._free:
            return self._free.pop()
        self._count += 1
        path = f"{self.parent}/bot-{self._count}"
        try:
            os.mkdir(path)
        except OSError:
            return None
        return path

    def set_limit(self, path: str, limit: int) -> None:
        previous = self._limits.get(path)
        if previous == limit:
            return
        self._limits.pop(path, None)  # unknown until every write is done
        if self.version == 2:
            _write_text(path + "/memory.max", str(limit))
            if os.path.exists(path + "/memory.swap.max"):  # absent without swap accounting
                _write_text(path + "/memory.swap.max", "0")
        else:
            files = ["/memory.limit_in_bytes"]
            if os.path.exists(path + "/memory.memsw.limit_in_bytes"):
                # Memory and swap together may never be limited below memory alone: raised
                # first and lowered last (a new group's is unlimited).
                raising = previous is not None and limit > previous
                files.insert(0 if raising else 1, "/memory.memsw.limit_in_bytes")
            for name in files:
                _write_text(path + name, str(limit))
        self._limits[path] = limit

    def oom_kills(self, path: str) -> int:
        """The OOM kills in ``path`` since it was last handed out."""
        total = self._oom_total(path)
        self._oom_seen[path] = total
        return total - self._oom_base.get(path, 0)

    def _oom_total(self, path: str) -> int:
        name = "/memory.events" if self.version == 2 else "/memory.oom_control"
        for line in _read_text(path + name).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def release(self, path: str | None) -> None:
        """``path``'s process has ended: keep the group for the next blank if nothing is left
        in it (a process that got away, say), else remove it (the kernel refuses while it holds
        a process, and it is tried again at ``close``)."""
        if not path:
            return
        seen = self._oom_seen.pop(path, None)
        if self._empty(path) and not self._still_charged(path):
            self._oom_base[path] = self._oom_total(path) if seen is None else seen
            self._free.append(path)
            return
        self._limits.pop(path, None)
        self._oom_base.pop(path, None)
        _rmdir(path)

    def _still_charged(self, path: str) -> bool:
        """Whether memory the ended process left (kernel objects it made, files in a tmpfs) is
        still charged to the group: more than an eighth of its limit, and the next bot in it
        would start short of the memory it is owed. (True where that cannot be read.)"""
        usage = _read_text(
            path + ("/memory.current" if self.version == 2 else "/memory.usage_in_bytes")
        )
        limit = self._limits.get(path, UNKNOWN_LIMIT)
        return not usage.strip().isdigit() or int(usage) > limit // 8

    def _empty(self, path: str) -> bool:
        """Whether the group holds no process (False where that cannot be read)."""
        try:
            if self.version == 2:
                with open(path + "/cgroup.events") as f:
                    return "populated 0" in f.read().splitlines()
            with open(path + "/cgroup.procs") as f:
                return f.read() == ""
        except OSError:
            return False

    def close(self) -> None:
        if self.version:
            for name in os.listdir(self.parent):
                _rmdir(f"{self.parent}/{name}")
            _rmdir(self.parent)


def _remove_stale_groups(root: str) -> None:
    """Remove the groups of zygotes that died without cleaning up (``kill -9`` of a run): a
    group's name holds its zygote's pid. A group that still holds a process is never removed
    (the kernel refuses), so a live run's groups are safe even if its pid was reused."""
    for name in os.listdir(root):
        owner = name.removeprefix("koth-")
        if (
            not name.startswith("koth-")
            or not (owner.isascii() and owner.isdigit())
            or walls.alive(int(owner))
        ):
            continue
        parent = f"{root}/{name}"
        for child in os.listdir(parent):
            if os.path.isdir(f"{parent}/{child}"):
                _rmdir(f"{parent}/{child}")
        _rmdir(parent)


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


def _program_root(root: str, jail: str, more: list[str], proc: bool) -> None:
    """A private, read-only world for a program bot: /usr (and its /bin, /lib symlinks) for the
    language runtime, /dev/null, and the files of the entry's build in /bot — nothing else of the
    host. Its folders are this process's own (a tmpfs, gone with it): a name looked up in them,
    found or not, leaves nothing another bot or a later game could find (the host's folders
    would keep it, a negative dentry a later lookup is faster for). Only /usr is shared, read-only
    (no access times either)."""
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
    for entry in os.scandir(jail):
        if entry.is_file(follow_symlinks=False):
            target = f"{root}/bot/{entry.name}"
            open(target, "w").close()
            _mount(entry.path, target, None, MS_BIND)
            _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for folder in more:  # its runtime's folders outside /usr (a JDK's configuration)
        if folder.startswith("/") and ".." not in folder.split("/") and os.path.isdir(folder):
            os.makedirs(root + folder)
            _mount(folder, root + folder, None, MS_BIND | MS_REC)
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
            _mount(None, root + folder, None, flags)
    if proc:  # a runtime that needs /proc: its own processes' folders only (its uid's)
        os.mkdir(f"{root}/proc")
        _mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, PROC_OPTIONS)
    os.mkdir(f"{root}/dev")
    open(f"{root}/dev/null", "w").close()
    _mount("/dev/null", f"{root}/dev/null", None, MS_BIND)
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


class _Abilities:
    """What this zygote can wall its bots in with, found out once at start."""

    private = False  # root on the host: new namespaces, chroot, mounts (CAP_SYS_ADMIN)
    shared_namespaces = False  # the zygote made one network and IPC namespace for all its bots
    setuid = False  # root (on the host, or in a container with CAP_SETUID): a uid per bot
    seccomp = False  # libseccomp is there and the kernel takes filters
    zygote = 0  # the zygote's pid: every blank's parent
    # The command (minus the script) that this process is exactly, when it was started as a
    # Python bot would be: the same interpreter, flags and environment (``_run_python``).
    python: tuple[str, ...] | None = None
    bare_elsewhere: dict[str, str] = {}  # modules of the bare start whose file is not in /usr
    native: str | None = None  # the C blank (cblank.c, compiled), on a machine it can call on


_HELD: set[socket.socket] = set()  # the zygote's sockets: a child lets go of them all


class _Become(BaseException):  # noqa: N818 - not an error: a blank becoming a Python bot
    """Raised in a walled-in blank that runs a Python bot in this interpreter: it unwinds the
    zygote's frames (their state is then garbage) to ``main``, which runs the bot."""

    def __init__(self, argv: list[str], report: int) -> None:
        super().__init__()
        self.argv, self.report = argv, report


def _runs_here(program: list[str] | None) -> bool:
    """Whether ``program`` is this interpreter with this file replaced by a script in the jail:
    then a fork of this process is what exec'ing it would start, only warm."""
    prefix = _Abilities.python
    return (
        prefix is not None
        and program is not None
        and len(program) == len(prefix) + 1
        and tuple(program[:-1]) == prefix
        and program[-1].endswith(".py")
        and not program[-1].startswith("-")
    )


def _kind(request: dict[str, Any]) -> str:
    """What the bot is (walls.py's kinds): a C function, a program of its entry's own build
    (``./bot``: a static binary that needs no file), or a program its language's runtime runs
    (``python3 bot.py``: it reads the runtime's files)."""
    program = request.get("exec")
    if not program:
        return walls.FUNCTION
    first = str(program[0])
    own = first.startswith("./") and "/" not in first[2:]
    return walls.OWN if own else walls.RUNTIME


def _enter_jail(request: dict[str, Any], kind: str) -> tuple[str, int | None]:
    """Into the bot's world: its root and working folder. Returns the path of the library to
    load (a C function), and the descriptor of the binary to start (a program of its own build,
    which names no file: it needs no view of any folder, and starts from that)."""
    jail: str = request["jail"]
    so_path: str = request.get("so", "")
    if kind == walls.OWN and _Abilities.seccomp:
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW
        binary = os.open(os.path.join(jail, os.path.basename(request["exec"][0])), flags)
        # Every page of it in the page cache before it starts: a page fault on its own binary
        # then neither tells it whether a page was there nor brings one there to be found (by
        # its process in a later game).
        _read_through(binary)
        os.chdir(jail)
        return "", binary
    view = request.get("view")
    if kind != walls.FUNCTION and _Abilities.private:
        more = [str(f) for f in request.get("view_more") or ()]
        _program_root(request["root"], jail, more, bool(request.get("proc")))
        os.chroot(request["root"])
        os.chdir("/bot")
    elif kind != walls.FUNCTION and view:
        # A view made ready (a play container's, runner/sandbox/Dockerfile), the jail in it.
        os.chroot(view)
        os.chdir(jail.removeprefix(view.rstrip("/")) or "/")
    elif _Abilities.private:
        os.chroot(jail)
        os.chdir("/")
        return "/" + os.path.basename(so_path), None
    else:
        # The bot then names its files from the jail: the folders above it may be closed to it
        # (a Docker sandbox's), and it passes them here, before it is the bot.
        os.chdir(jail)
    return so_path and "./" + os.path.basename(so_path), None


def _read_through(fd: int) -> None:
    """Every page of the file open on ``fd`` read into the page cache (copied nowhere)."""
    size = os.fstat(fd).st_size
    with open(os.devnull, "wb") as null:
        done = 0
        while done < size:
            sent = os.sendfile(null.fileno(), fd, done, size - done)
            if sent <= 0:
                break
            done += sent


def _wall_in(request: dict[str, Any]) -> tuple[str, int | None]:
    """Everything that must hold before bot code runs. Returns what ``_enter_jail`` does."""
    kind = _kind(request)
    path, binary = _enter_jail(request, kind)
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
    _limit_threads(int(limits.get("threads", 0)))
    _limit(resource.RLIMIT_AS, _address_space(request))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if _Abilities.seccomp:
        walls.install(walls.filter_for(os.getpid(), kind))
    return path, binary


def _limit_threads(threads: int) -> None:
    """No process beside the bot's own, but the threads its runtime may start (``threads``),
    and those only behind the seccomp filter, which refuses fork (walls.py: a clone must make a
    thread; without the filter, no thread either). With a uid of its own, RLIMIT_NPROC counts
    exactly its threads (the kernel counts tasks by uid). Without one (no root), the uid is the
    user's, whose other processes count too: a runtime's threads are then held only by its
    address space."""
    if threads <= 0 or not _Abilities.seccomp:
        _limit(resource.RLIMIT_NPROC, 0)
    elif _Abilities.setuid:
        _limit(resource.RLIMIT_NPROC, threads + 1)  # the bot's own thread counts


def _address_space(request: dict[str, Any]) -> int:
    """The address-space rlimit: the memory limit itself, or, where the kernel keeps memory in
    a group (a memory cgroup of the bot's, a container's) or the language's runtime reserves far
    more than it uses (``address_space`` false: a JVM, V8, Go; its heap is capped on its
    command line), the limit plus a backstop against huge reservations only."""
    limits = request["limits"]
    in_group = bool(request.get("cgroup")) or bool(limits.get("memory_enforced_outside"))
    reserves = not limits.get("address_space", True)
    return int(limits["memory_bytes"]) + (RESERVE if in_group or reserves else 0)


def _limit_files(program: bool) -> None:
    """The last wall, once the bot's channels are in place (``_take_channels`` lifts them above
    the limit for a moment)."""
    if program:  # an interpreter opens files as it starts (read-only: nothing is writable)
        _limit(resource.RLIMIT_NOFILE, PROGRAM_FILES)
    else:  # dlopen needs one descriptor for a moment; afterwards none may be opened
        _limit(resource.RLIMIT_NOFILE, REPLY_FD + 2)


def _exec(request: dict[str, Any], binary: int | None) -> None:
    """Runs in the walled-in child for a program bot. Never returns. (The report channel is
    close-on-exec: it closes as the program starts.) ``binary``: the program is the file open
    on walls.EXEC_FD (execveat: it names nothing)."""
    argv = [str(arg) for arg in request["exec"]]
    env = {**PROGRAM_ENV, **{str(k): str(v) for k, v in (request.get("env") or {}).items()}}
    try:
        os.execve(argv[0] if binary is None else walls.EXEC_FD, argv, env)
    except OSError as exc:
        os.write(2, f"cannot start the bot {argv[0]}: {exc.strerror}\n".encode())
        os._exit(EXIT_LOAD_FAILED)


_FFIS: dict[str, Any] = {}  # cffi declarations → the FFI that parsed them (inherited by blanks)


def _ffi_for(cdef: str) -> Any:
    ffi = _FFIS.get(cdef)
    if ffi is None:
        try:
            import cffi
        except ImportError:  # a local zygote starts without site-packages (python -S): add them
            import site

            site.main()
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
    """Runs in the walled-in child for a C-function bot: load it, then answer. Never returns.

    Once loaded it names no file (walls.loaded_filter), and takes no page fault on a file it
    maps (its library's pages are put in its page tables, and the zygote's files were read
    through as it started: walls.read_through_objects). Its name pointer, the one writable
    datum the rules allow it, is set back to its value at load before every call: it carries
    nothing from one call to the next."""
    try:
        ffi = _ffi_for(abi["cdef"])
        loaded = walls.populate_mappings(first=1 << 30)  # counted: the bot's library comes after
        lib = ffi.dlopen(so_path)
        name_symbol = abi["name_symbol"]
        name_ptr = getattr(lib, name_symbol)
        name = ffi.string(name_ptr, NAME_CAP) if name_ptr != ffi.NULL else b""
        function = getattr(lib, abi["function"])
    except Exception as exc:
        os.write(2, f"cannot load the bot: {exc}\n".encode())
        os._exit(EXIT_LOAD_FAILED)
    walls.populate_mappings(first=loaded)  # its pages all in this process's page tables
    if _Abilities.seccomp:
        walls.install(walls.loaded_filter())
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
        setattr(lib, name_symbol, name_ptr)
        move = function(*[argument(view) for argument in arguments])
        os.write(REPLY_FD, pack(move))


def _wait_for_bot(channel: socket.socket, group: str | None) -> tuple[dict[str, Any], list[int]]:
    """A blank's walls that need no request, then its request: the bot to become and its
    channels (none yet when the blank is to be primed)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    walls.set_parent_death_signal(_Abilities.zygote)
    if _Abilities.private and not _Abilities.shared_namespaces:
        _own_namespaces()
    if group:  # joined while waiting (~0.4 ms on cgroup v1); the limit comes with the bot
        _write_text(group + "/cgroup.procs", str(os.getpid()))
    message, fds = _receive(channel)
    return json.loads(message), fds


def _receive(channel: socket.socket) -> tuple[bytes, list[int]]:
    """The zygote's next message to this blank; the end of the blank when there is none."""
    message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 8)
    if not message:
        os._exit(0)
    return message, fds


def _take_channels(
    program: bool, fds: list[int], report: int, devnull: int, binary: int | None
) -> int:
    """The bot's channels (``fds``: request, reply, identity, output) on their descriptors, every
    other descriptor closed but the report channel (returned, moved) and an own program's
    ``binary`` (on walls.EXEC_FD); the identity byte sent first."""
    if len(fds) != 4:
        raise ValueError(f"{len(fds)} channels came with the bot, not 4")
    request, reply, identity, output = fds
    # A program (stdio bot) talks on its stdin/stdout; a C function's host uses 3/4 and sends
    # the bot's own prints to the output pipe.
    places = (
        {0: request, 1: reply, 2: output}
        if program
        else {0: devnull, REQUEST_FD: request, REPLY_FD: reply, 1: output, 2: output}
    )
    # Lift every source above the targets first, so no dup2 clobbers a source.
    kept = [devnull, *fds, report] + ([binary] if binary is not None else [])
    lifted = {fd: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64) for fd in kept}
    for target, source in places.items():
        os.dup2(lifted[source], target)
    moved = max(places) + 1
    os.dup2(lifted[report], moved, inheritable=False)
    if binary is not None:
        assert moved < walls.EXEC_FD
        os.dup2(lifted[binary], walls.EXEC_FD, inheritable=False)
    # One byte on the identity channel (a socket) before any bot code runs: the kernel stamps
    # it with this process's pid as the host sees it (SCM_CREDENTIALS), which no later write can
    # forge. The socket is then closed with the rest: a bot holds no socket, only pipes.
    os.write(lifted[identity], IDENTIFY)
    os.closerange(max(moved, walls.EXEC_FD if binary is not None else 0) + 1, 1 << 16)
    return moved


def _become_bot(channel: socket.socket, group: str | None) -> None:
    """The blank's life once forked: wait for a bot, wall in, become it. Never returns (a
    Python bot run in this interpreter leaves by ``_Become``).

    A request without channels primes the blank: it walls itself in for that bot at once and
    then waits for the channels (``_Zygote.prime``), so that a bot started every move finds its
    process ready but for them."""
    report = channel.fileno()
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)  # before any chroot: the jail may lack it
        request, fds = _wait_for_bot(channel, group)
        program = bool(request.get("exec"))
        path, binary = _wall_in(request)
        if not fds:  # primed: the walls are up; now the channels
            _, fds = _receive(channel)
        report = _take_channels(program, fds, report, devnull, binary)
        _limit_files(program)
        here = _runs_here(request.get("exec"))
        if here:
            _let_go()
    except BaseException as exc:
        try:
            os.write(report, f"{type(exc).__name__}: {exc}".encode()[:4000])
        except OSError:
            pass
        os._exit(EXIT_SETUP_FAILED)
    if here:
        raise _Become([str(arg) for arg in request["exec"]], report)
    if program:
        _exec(request, binary)  # the report channel closes on exec
    os.close(report)  # from here on bot code may run: nothing it says is a set-up report
    _serve(path, request["abi"])


def _let_go() -> None:
    """In a child that will run Python bot code: forget the zygote's sockets (their descriptors
    are closed already; a socket object collected later must not close a number the bot has
    reused)."""
    for held in _HELD:
        held.detach()
    _HELD.clear()


def _run_python(argv: list[str], report: int) -> None:
    """Runs in a walled-in child of a zygote that is ``argv`` minus the script (the same
    interpreter, flags and environment; ``_runs_here``) instead of exec'ing ``argv``: the
    script runs as ``__main__`` exactly as that command would run it, in a process that has
    loaded no bot code and holds no other bot's data (bots' channels never pass through the
    zygote), only warm: the interpreter's start-up is the zygote's, paid once.

    Back to the bare interpreter first: this file's modules out of ``sys.modules`` (a bot
    importing one gets it afresh), ``sys.path``, ``sys.argv`` and the environment as a fresh
    start has them, a new ``__main__``. Then, as ``python3`` does: the script read and compiled
    (a syntax error is the bot's), an uncaught exception printed to stderr without this file's
    frames and exit status 1, ``SystemExit`` as ever, and the interpreter's own exit (atexit,
    flushing stdout)."""
    prefix = len(argv) - 1
    script = os.path.abspath(argv[prefix])  # as python3 names its script (``__file__``)
    for name in set(sys.modules) - _BARE_MODULES:
        del sys.modules[name]
    for name, path in _Abilities.bare_elsewhere.items():
        # A module of the bare start that lives outside /usr (Debian's sitecustomize is in
        # /etc): in a bot's view that has no such file, a fresh start would not have found it.
        if not os.path.exists(path):
            sys.modules.pop(name, None)
    sys.path[:] = _BARE_PATH
    sys.argv[:] = argv[prefix:]
    sys.orig_argv[:] = argv
    os.environ.clear()
    os.environ.update(PROGRAM_ENV)
    main = type(sys)("__main__")
    loader = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", script)
    vars(main).update(__file__=script, __cached__=None, __builtins__=builtins, __loader__=loader)
    sys.modules["__main__"] = main
    os.close(report)  # from here on bot code may run: nothing it says is a set-up report
    try:  # by the name it was given, from the jail (the folders above it may be closed to it)
        with open(argv[prefix], "rb") as file:
            source = file.read()
    except OSError as exc:
        message = f"[Errno {exc.errno}] {exc.strerror}"
        print(f"{argv[0]}: can't open file {script!r}: {message}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        exec(compile(source, script, "exec"), vars(main))
    except SystemExit:
        raise
    except BaseException as exc:
        trace = exc.__traceback__
        exc.__traceback__ = trace.tb_next if trace is not None else None  # the bot's frames
        sys.excepthook(type(exc), exc, exc.__traceback__)
        raise SystemExit(1) from None
    finally:
        _flush_std_files()


def _flush_std_files() -> None:
    """What exiting does first (after atexit): flush stdout and stderr. Done at once, so that
    the reply is out before the interpreter tears down the heap it shares with the zygote (each
    page it frees is copied first); the exit flushes again whatever atexit handlers write."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except Exception:
            pass  # the exit's own flush fails the same way and says so, as python3 does


class _Blank:
    """A child forked ahead of need, waiting for its bot: the fork, the namespaces and the
    seccomp filter are paid while the host is busy with something else, not while a game waits
    to start. ``channel`` carries its bot's request, and back a report of failed walls.

    A ``native`` blank is the C program cblank.c started instead (posix_spawn: no copy of this
    process), for C-function bots: it builds the same walls, and its bot's process holds no
    Python interpreter, so it costs a fraction of a fork of this one to start, run and end."""

    def __init__(self, control: socket.socket, group: str | None, native: bool = False) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.group = group
        self.native = native
        if native:
            self.pid = _spawn_native(child_end, group)
        else:
            # A blank that becomes a Python bot here unwinds the zygote's frames (``_Become``):
            # no caller of this may hold a ``finally``, a ``with`` or an ``except
            # BaseException`` (but ``zygote``'s, which knows).
            self.pid = os.fork()
            if self.pid == 0:
                # Let go of every socket of the zygote's (its control, the other blanks'
                # channels): a blank the zygote lets go of ends when its channel closes, which it
                # never does while another blank holds a copy.
                for held in [control, *_HELD]:
                    held.close()
                _HELD.clear()
                parent_end.close()
                _become_bot(child_end, group)
        child_end.close()
        self.channel = parent_end
        _HELD.add(parent_end)

    def close(self) -> None:
        _HELD.discard(self.channel)
        self.channel.close()

    def assign(self, message: bytes, fds: list[int]) -> None:
        """Send the blank its request, or its bot's channels (copies: the caller closes its
        own)."""
        socket.send_fds(self.channel, [message], fds)
        self.channel.setblocking(False)

    def setup_failure(self) -> str | None:
        """What the walls' failure was, if the child reported one before bot code could run."""
        try:
            said = self.channel.recv(4096)
        except OSError:
            return None
        return said.decode("utf-8", errors="replace") or None


def _spawn_native(channel: socket.socket, group: str | None) -> int:
    """Start a C blank with ``channel`` on its fd 3 (cblank.c says what it does with it): cloned
    by the C blank's fork server, or, if that fails, started with posix_spawn."""
    assert _Abilities.native is not None
    private = "2" if _Abilities.shared_namespaces else "1" if _Abilities.private else "0"
    walls_args = [private, "1" if _Abilities.setuid else "0", group or "-"]
    pid = _NATIVE_SERVER.clone(walls_args, channel)
    if pid is not None:
        return pid
    os.set_inheritable(channel.fileno(), True)  # the child closes every descriptor but fd 3
    return os.posix_spawn(
        _Abilities.native,
        [_Abilities.native, str(_Abilities.zygote), *walls_args],
        {},
        file_actions=[(os.POSIX_SPAWN_DUP2, channel.fileno(), NATIVE_CHANNEL_FD)],
    )


class _NativeServer:
    """The C blank's fork server (``cblank --serve``), the zygote's child, started on first use:
    it clones each C blank as a child of the zygote, so a blank costs no exec and no dynamic
    loader's start. If it cannot be started or does not answer, it is let go (it ends when its
    channel closes) and the blank is started with posix_spawn; the next blank starts a new one.
    After NATIVE_SERVER_TRIES failures in a row (a kernel that refuses its clone every time),
    it is not started again: each blank would pay for a server and a posix_spawn."""

    def __init__(self) -> None:
        self.channel: socket.socket | None = None
        self.pid = 0  # while it runs: the zygote keeps it to the CPUs of its blanks
        self.failures = 0  # in a row

    def clone(self, walls_args: list[str], channel: socket.socket) -> int | None:
        """A new blank's pid, its channel ``channel``; None if the server failed (or was given
        up)."""
        if self.failures >= NATIVE_SERVER_TRIES:
            return None
        try:
            if self.channel is None:
                self.start()
            assert self.channel is not None
            message = b"".join(arg.encode() + b"\0" for arg in walls_args)
            socket.send_fds(self.channel, [message], [channel.fileno()])
            pid = int(self.channel.recv(32) or b"0")
        except (OSError, ValueError):
            pid = 0
        if pid > 0:
            self.failures = 0
            return pid
        self.failures += 1
        self.close()
        return None

    def start(self) -> None:
        assert _Abilities.native is not None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            os.set_inheritable(theirs.fileno(), True)
            self.pid = os.posix_spawn(
                _Abilities.native,
                [_Abilities.native, "--serve", str(_Abilities.zygote)],
                {},
                file_actions=[(os.POSIX_SPAWN_DUP2, theirs.fileno(), NATIVE_CHANNEL_FD)],
            )
        ours.settimeout(NATIVE_SERVER_WAIT_S)
        self.channel = ours
        _HELD.add(ours)

    def close(self) -> None:
        if self.channel is not None:
            _HELD.discard(self.channel)
            self.channel.close()
            self.channel = None
        self.pid = 0


_NATIVE_SERVER = _NativeServer()


def _native_args(request: dict[str, Any]) -> str | None:
    """How the C blank reads the arguments of ``request``'s C function ("w512,b1": each one's
    way and size), or None when the C blank cannot serve it (no C blank here, a program, or a
    signature it cannot call: a Python blank serves it then)."""
    abi = request.get("abi")
    if _Abilities.native is None or request.get("exec") or not isinstance(abi, dict):
        return None
    ways = {"widen": "w", "byte": "b", "int32": "i"}
    parts = []
    for ctype, size, read in abi.get("args", ()):
        if read not in ways or not isinstance(size, int) or isinstance(size, bool):
            return None
        if (read, ctype, size) not in (("byte", "char", 1), ("int32", "int", 4)) and not (
            read == "widen" and str(ctype).startswith("int[") and 0 < size <= NATIVE_REQUEST_CAP
        ):
            return None
        parts.append(f"{ways[read]}{size}")
    texts = (request.get("jail"), request.get("so"), abi.get("function"), abi.get("name_symbol"))
    if not 0 < len(parts) <= NATIVE_ARGS or not all(
        isinstance(text, str) and text and "\0" not in text for text in texts
    ):
        return None
    return ",".join(parts)


def _native_request(request: dict[str, Any], args: str, pid: int) -> bytes:
    """``request`` as the C blank ``pid`` reads it (cblank.c): its fields, then its two filters
    (walls.py: the first, then the one it adds once the bot is loaded)."""
    limits = request["limits"]
    memory = _address_space(request)  # as ``_wall_in``
    abi = request["abi"]
    fields = [
        request["jail"],
        request["so"],
        str(memory),
        str(int(limits["cpu_seconds"])),
        abi["function"],
        abi["name_symbol"],
        args,
    ]
    first = walls.filter_for(pid, walls.FUNCTION) if _Abilities.seccomp else b""
    loaded = walls.loaded_filter() if _Abilities.seccomp else b""
    fields.append(str(len(first)))
    return b"".join(field.encode() + b"\0" for field in fields) + first + loaded


def _own_namespaces() -> None:
    """This process into namespaces of its own (BOT_NAMESPACES), its host name koth's."""
    _check(_libc.unshare(BOT_NAMESPACES), "unshare(NEWNET|NEWIPC|NEWUTS)")
    socket.sethostname(HOST_NAME)


def _can_unshare() -> bool:
    """Root in an unprivileged container may not make namespaces: find out once, at start."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc.unshare(BOT_NAMESPACES) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _can_filter() -> bool:
    """Whether libseccomp is there and the kernel takes a filter: find out once, at start."""
    pid = os.fork()
    if pid == 0:
        try:
            walls.install(walls.bot_filter(os.getpid(), walls.FUNCTION).compiled())
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
        child.close()
        oom_kills = groups.oom_kills(child.group) if child.group else 0
        groups.release(child.group)
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
    """The zygote's bookkeeping: its bots, its pools of blanks, their memory groups.

    Blanks wait in two pools. Plain blanks have built every wall that needs no request (fork,
    namespaces, memory group, seccomp filter compiled). Primed blanks have built them all for
    one request (its jail's view, its uid, its rlimits, the filter installed) and wait only for
    the bot's channels: a request that keeps coming back (a bot started every move, an entry
    playing game after game) is primed for, so that its next process is ready but for them.

    A burst is the spawns that come close together (the seats of one turn, the two bots of a
    game). After each burst, when no request waits: the requests seen in at least two of the
    last three bursts are primed for, as many of each as one of those bursts asked for (up to
    MAX_BLANKS in all; primed blanks nobody wants any more go), and plain blanks are kept for
    the rest of the latest burst, at least BLANKS. Forking in the middle of a burst would delay
    the rest of it, so that waits, unless no plain blank is left.

    Requests the C blank serves (``_native_args``) take native blanks, which have pools of their
    own: plain ones for the rest of the latest burst (none kept otherwise: one starts in a
    fraction of a millisecond), and primed ones as above."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.groups = _MemoryGroups()
        self.children: dict[int, _Blank] = {}  # bot pid → its blank (group, report channel)
        self.blanks: list[_Blank] = []
        self.native: list[_Blank] = []  # plain native blanks
        self.kinds: dict[str, str | None] = {}  # each key seen lately: ``_native_args``
        self.primed: dict[str, list[_Blank]] = {}  # by request (``_key``)
        self.requests: dict[str, dict[str, Any]] = {}  # the request of each key seen lately
        self.bursts: deque[Counter[str]] = deque([Counter()], maxlen=3)  # the latest last
        self.last_spawn = 0.0
        self._wanted: Counter[str] | None = None  # ``wanted`` of these bursts, once worked out

    def wanted(self) -> Counter[str]:
        """How many blanks to keep primed for each request (not to be changed: it is kept
        until the next spawn changes the bursts)."""
        if self._wanted is None:
            self._wanted = self._count_wanted()
        return self._wanted

    def _count_wanted(self) -> Counter[str]:
        seen = Counter(key for burst in self.bursts for key in burst)
        wanted: Counter[str] = Counter()
        for key in sorted(seen, key=lambda k: -self.bursts[-1][k]):
            if seen[key] >= 2:
                most = max(burst[key] for burst in self.bursts)
                wanted[key] = min(most, MAX_BLANKS - sum(wanted.values()))
        return +wanted

    def plain_wanted(self, wanted: Counter[str], native: bool = False) -> int:
        latest = self.bursts[-1]
        rest = sum(
            n
            for key, n in latest.items()
            if key not in wanted and (self.kinds.get(key) is not None) == native
        )
        return min(rest, MAX_BLANKS) if native else max(BLANKS, min(rest, MAX_BLANKS))

    def pool(self, native: bool) -> list[_Blank]:
        return self.native if native else self.blanks

    def plain_short(self, wanted: Counter[str]) -> bool | None:
        """Whether a plain blank is missing: a Python one (False), a native one (True), none."""
        for native in (False, True):
            if len(self.pool(native)) < self.plain_wanted(wanted, native):
                return native
        return None

    def idle_wait(self) -> float | None:
        """How long to wait for a request before the next piece of pool work (None: none to do;
        0: do it unless a request waits)."""
        since = time.monotonic() - self.last_spawn
        if since < BURST_GAP_S:
            return 0.0 if not self.blanks else BURST_GAP_S - since
        wanted = self.wanted()
        short = any(len(self.primed.get(k, ())) < n for k, n in wanted.items())
        stale = any(len(blanks) > wanted[k] for k, blanks in self.primed.items())
        plain = self.plain_short(wanted) is not None
        return 0.0 if short or stale or plain else None

    def work(self) -> None:
        """One piece of pool work: primed blanks nobody wants let go, a request primed for, or
        a plain blank forked."""
        if time.monotonic() - self.last_spawn < BURST_GAP_S:
            self.refill()  # in a burst with no plain blank left
            return
        wanted = self.wanted()
        for key in list(self.primed):
            while len(self.primed[key]) > wanted[key]:
                self.primed[key].pop().close()  # it ends when its channel closes
            if not self.primed[key]:
                del self.primed[key]
        for key, count in wanted.items():
            if len(self.primed.get(key, ())) < count:
                self.prime(key)
                return
        native = self.plain_short(wanted)
        if native is not None:
            self.refill(native)

    def refill(self, native: bool = False) -> None:
        self.pool(native).append(self.new_blank(native))

    def new_blank(self, native: bool) -> _Blank:
        return _Blank(self.control, self.groups.new(), native)

    def take_blank(self, key: str) -> _Blank:
        """A plain blank of the kind ``key`` needs, from its pool or new."""
        native = self.kinds.get(key) is not None
        pool = self.pool(native)
        return pool.pop(0) if pool else self.new_blank(native)

    def message(self, key: str, request: dict[str, Any], blank: _Blank) -> bytes:
        """``request`` as ``blank`` reads it, with the blank's memory group."""
        request = self.with_group(dict(request), blank)
        args = self.kinds.get(key)
        if blank.native and args is not None:
            return _native_request(request, args, blank.pid)
        return json.dumps(request).encode()

    def prime(self, key: str) -> None:
        """A blank walls itself in for the request ``key`` now; its channels come later."""
        blank = self.take_blank(key)
        blank.assign(self.message(key, self.requests[key], blank), [])
        self.primed.setdefault(key, []).append(blank)

    def with_group(self, request: dict[str, Any], blank: _Blank) -> dict[str, Any]:
        """``request`` with the blank's memory group, its limit written."""
        if blank.group:
            self.groups.set_limit(blank.group, int(request["limits"]["memory_bytes"]))
            request["cgroup"] = blank.group
        return request

    def waiting(self) -> list[_Blank]:
        primed = (b for blanks in self.primed.values() for b in blanks)
        return [*self.blanks, *self.native, *primed]

    def reap(self) -> None:
        gone = _reap(self.control, self.children, self.groups)
        if _NATIVE_SERVER.pid in gone:  # reaped: its pid may be another process's from now on
            _NATIVE_SERVER.close()
        for blank in self.waiting():
            if blank.pid in gone:
                self.groups.release(blank.group)
                blank.close()
        self.blanks = [b for b in self.blanks if b.pid not in gone]
        self.native = [b for b in self.native if b.pid not in gone]
        for key, blanks in self.primed.items():
            self.primed[key] = [b for b in blanks if b.pid not in gone]

    def discard_blanks(self) -> None:
        """Let every waiting Python blank go (they end when their channel closes)."""
        for blank in self.waiting():
            if not blank.native:
                blank.close()
        self.blanks.clear()
        for key in list(self.primed):
            self.primed[key] = [b for b in self.primed[key] if b.native]
            if not self.primed[key]:
                del self.primed[key]

    def spawn(self, request: dict[str, Any], fds: list[int]) -> None:
        now = time.monotonic()
        if now - self.last_spawn >= BURST_GAP_S:
            self.bursts.append(Counter())
        self.last_spawn = now
        key = _key(request)
        self.bursts[-1][key] += 1
        self._wanted = None
        self.requests = {k: v for k, v in self.requests.items() if k in self.wanted()}
        self.requests[key] = dict(request)
        seen = {k for burst in self.bursts for k in burst}
        self.kinds = {k: v for k, v in self.kinds.items() if k in seen}
        if key not in self.kinds:
            self.kinds[key] = _native_args(request)
        cdef = str(request["abi"]["cdef"]) if request.get("abi") else None
        if cdef is not None and cdef not in _FFIS and self.kinds[key] is None:
            # Parsed here once: blanks forked later inherit it. A blank forked before cffi was
            # loaded here could not load it in its jail, so those go. The files each C bot
            # forked from here will map, read through (``_serve``).
            _ffi_for(cdef)
            walls.read_through_objects()
            self.discard_blanks()
        blank, primed = self.hand_over(key, request, fds)
        for fd in fds:
            os.close(fd)
        self.children[blank.pid] = blank
        _send(self.control, {"event": "spawned", "pid": blank.pid, "primed": primed})

    def hand_over(self, key: str, request: dict[str, Any], fds: list[int]) -> tuple[_Blank, bool]:
        """Give the bot's channels to a blank primed for its request, else its request and its
        channels to a plain one (and say which). A primed blank that has died meanwhile is
        passed over."""
        while self.primed.get(key):
            blank = self.primed[key].pop(0)
            try:
                blank.assign(b"go", fds)
                return blank, True
            except OSError:
                blank.close()  # reaped as a blank that never got a bot (not a primed one)
        blank = self.take_blank(key)
        try:
            blank.assign(self.message(key, request, blank), fds)
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        return blank, False

    def serve(self) -> bool:
        """Take one request from the host; False once it has gone."""
        try:
            message, fds, _, _ = socket.recv_fds(self.control, 1 << 16, 8)
        except OSError:
            return False
        if not message:
            return False
        request = json.loads(message)
        if request["op"] == "spawn" and len(fds) == 4:
            self.spawn(request, fds)
            return True
        for fd in fds:
            os.close(fd)
        if request["op"] == "kill" and request["pid"] in self.children:
            os.kill(request["pid"], signal.SIGKILL)
        elif request["op"] == "blanks":  # which of its processes wait, never given a bot
            _send(self.control, {"event": "blanks", "pids": sorted(b.pid for b in self.waiting())})
        elif request["op"] == "keep_to":
            self.keep_to(request.get("cpus"))
        return True

    def keep_to(self, cpus: Any) -> None:
        """From now on this process, the blanks it holds and the C blank's fork server (so every
        bot forked or cloned from them) keep to these CPUs: the CPU of the host's job slot
        (runner/season/workers.py). Its own children only, none reaped: no pid here can be
        another's."""
        if not isinstance(cpus, list) or not cpus or not all(isinstance(c, int) for c in cpus):
            return
        server = [_NATIVE_SERVER.pid] if _NATIVE_SERVER.pid else []
        for pid in [0, *server, *(b.pid for b in self.waiting())]:
            try:
                os.sched_setaffinity(pid, cpus)
            except OSError:
                pass  # a CPU this machine lacks, or a blank that has just ended

    def close(self) -> None:
        if os.getpid() != _Abilities.zygote:
            return  # a child on its way to becoming a Python bot (``_Become``) owns nothing
        for pid in [*self.children, *(b.pid for b in self.waiting())]:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        _NATIVE_SERVER.close()  # it ends when its channel closes
        self.groups.close()


def _key(request: dict[str, Any]) -> str:
    """A spawn request as text: equal requests make the same bot (but for its channels)."""
    return json.dumps(request, sort_keys=True)


def _find_abilities(groups: _MemoryGroups, native: str | None) -> dict[str, Any]:
    """What this zygote can wall bots in with (``_Abilities``), as its ready message says.
    ``native``: the C blank's path, if the host has one for it."""
    _Abilities.zygote = os.getpid()
    if native and os.uname().machine in NATIVE_MACHINES and os.access(native, os.X_OK):
        _Abilities.native = native
    _Abilities.setuid = os.geteuid() == 0
    _Abilities.private = _Abilities.setuid and _can_unshare()
    _Abilities.seccomp = _can_filter()
    if _Abilities.seccomp:  # compiled here once: every blank inherits them
        for kind in walls.KINDS:
            walls.filter_for(os.getpid(), kind)
        walls.loaded_filter()
    if _Abilities.private and _Abilities.seccomp:
        # One network, IPC and UTS namespace for every bot of this zygote, made here once
        # instead of once per bot (~0.4 ms of CPU each, half of it in a kernel worker after the
        # bot ends). It holds only a loopback device that is down, and nothing else ever: the
        # filter denies every socket call but the blank's recvmsg, System V IPC and message
        # queues, so a bot can make nothing in either that another bot could see. Without the
        # filter, each bot makes its own.
        _own_namespaces()
        _Abilities.shared_namespaces = True
    started_as = sys.orig_argv[: len(sys.orig_argv) - len(sys.argv)]
    if started_as[-2:] == ["-c", LAUNCH]:  # the interpreter and its flags ran this file
        started_as = started_as[:-2]
    if dict(os.environ) == PROGRAM_ENV and started_as[:1] == [sys.executable]:
        _Abilities.python = tuple(started_as)
        files = {name: getattr(sys.modules[name], "__file__", None) for name in _BARE_MODULES}
        _Abilities.bare_elsewhere = {
            name: file
            for name, file in files.items()
            if isinstance(file, str) and not os.path.realpath(file).startswith("/usr/")
        }
    return {
        "event": "ready",
        "pid": os.getpid(),
        "root": _Abilities.setuid,
        "netns": _Abilities.private,
        "memory_cgroups": bool(groups.version),
        "seccomp": _Abilities.seccomp,
        "python": list(_Abilities.python or ()),
        "native": _Abilities.native is not None,
    }


def zygote(control: socket.socket, native: str | None = None) -> None:
    # No parent-death signal here: the kernel sends it when the *thread* that started this
    # process ends, which may be long before the host does. The host's end of the control
    # socket closes when the host dies, however it dies, and then this process ends (below).
    walls.make_undumpable()
    _HELD.add(control)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    state = _Zygote(control)
    ready = _find_abilities(state.groups, native)
    if _Abilities.python is None and _Abilities.native is None:
        # cffi, its backend and its C parser are loaded once, here: a blank walled into a
        # chroot can no longer import them, and every bot forked from this process has them
        # warm. A zygote that runs Python bots, or has the C blank, loads them only when a C
        # bot it must serve in Python first comes.
        _ffi_for("int koth_warm_up(int);")
    _send(control, ready)
    try:
        while True:
            idle = state.idle_wait()
            readable, _, _ = select.select([control.fileno(), wake_r], [], [], idle)
            if not readable:
                state.work()
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
    to the host's listening socket (a container, where the path is in a read-only bind mount).
    Either may be followed by ``--native PATH``: the compiled C blank (cblank.c).

    A blank that runs a Python bot in this interpreter comes back here (``_Become``), with the
    zygote's frames gone, and runs it."""
    bot: tuple[list[str], int] | None = None
    native = None
    if len(argv) == 5 and argv[3] == "--native":
        argv, native = argv[:3], argv[4]
    try:
        if len(argv) == 3 and argv[1] == "--control-fd":
            zygote(socket.socket(fileno=int(argv[2])), native)
        elif len(argv) == 3 and argv[1] == "--control-socket":
            control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            control.connect(argv[2])
            zygote(control, native)
        else:
            sys.exit("usage: zygote.py --control-fd N | --control-socket PATH [--native PATH]")
    except _Become as becoming:
        bot = (becoming.argv, becoming.report)
    if bot is not None:  # outside the handler: the bot sees no exception being handled
        _run_python(*bot)


if __name__ == "__main__":
    main(sys.argv)
