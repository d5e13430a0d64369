"""Walls a process puts up around itself before bot code runs. Standalone: stdlib (ctypes) only,
so the zygote can use it inside a container as well as on the host.

- ``bot_filter(pid, kind)``: a seccomp filter built with libseccomp (the system's libseccomp.so.2,
  through ctypes) that **denies by default**: a bot may make the calls of ``ALLOWED`` (one table,
  a group a line) and no other; any other call fails with EPERM and the bot goes on (clone3 with
  ENOSYS, so runtimes fall back to clone, whose flags the filter can see). Some allowed calls are
  allowed only with some arguments (``ONE_OF``, ``NONE_OF``, ``ON_ITSELF``), compared on the bits
  the kernel reads. Calls of another architecture (int 0x80) kill the process (libseccomp's
  default for a foreign architecture). What a bot may call depends on its ``kind``:

  - ``FUNCTION``: a C function's process. Its blank loads the library by name (``dlopen``), then
    adds ``LOADED``, a second filter that denies every call naming a file: from the bot's first
    call on it names nothing, so it leaves no trace in the file system's caches (a name looked
    up, found or not, a page read) and finds none.
  - ``OWN``: a program of the entry's own build (a static C or C++ binary): it needs no file,
    and names none. The blank starts it from a descriptor (execveat on ``EXEC_FD``).
  - ``RUNTIME``: a program its language runs (``python3 bot.py``), which reads its runtime's files
    by name, read-only, in its private view (runner/jail/zygote.py).

  Nothing else: no socket (a bot holds none: its channels are pipes), no System V IPC or message
  queues, no tracing, no signal but to itself, no namespaces or mounts, nothing written to the
  file system, no locks or watches on files, no AIO or io_uring, no page-cache probes (mincore,
  cachestat, RWF_NOWAIT) or evictions (fadvise, readahead, MADV_COLD/PAGEOUT), no readings of the
  machine's state (getrusage: a process's block reads and major faults tell which pages were
  cached; sysinfo: the host's load, memory and uptime; statfs), no sync, no CPU affinity or
  scheduling of its own, no other process's CPU clock.
- ``set_parent_death_signal(parent)``: SIGKILL when the parent dies, set after every credential
  change (the kernel clears it on one) and checked: if the parent is already gone, exit.
- ``make_undumpable()``: no ptrace attach and no /proc/<pid>/mem by other processes of its uid.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import signal

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4

_libc = ctypes.CDLL(None, use_errno=True)

# libseccomp's constants (seccomp.h).
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ, SCMP_CMP_GT, SCMP_CMP_MASKED_EQ = 4, 6, 7
SCMP_FLTATR_CTL_OPTIMIZE = 8  # 2: the syscall numbers as a binary tree (libseccomp 2.5+)


def SCMP_ACT_ERRNO(code: int) -> int:  # noqa: N802 - libseccomp's name
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


FUNCTION, OWN, RUNTIME = "function", "own", "runtime"  # the kinds of bot (module docstring)
KINDS = (FUNCTION, OWN, RUNTIME)
EVERY = frozenset(KINDS)
NAMING = frozenset((FUNCTION, RUNTIME))
EXEC_FD = 4  # where an OWN program's blank holds its binary for execveat
# The calls that name a file (or a folder): ALLOWED's "files by name"; LOADED denies them.
NAMES = (
    "open openat stat lstat newfstatat statx fstat access faccessat faccessat2 readlink"
    " readlinkat getdents getdents64 getcwd chdir fchdir execve execveat"
)

# What a bot may call, a group a line: the calls, and the kinds of bot that may make them.
ALLOWED: tuple[tuple[str, frozenset[str]], ...] = (
    # Ending; signals: handlers, mask, waiting for one, sent to itself only (ON_ITSELF)
    (
        "exit exit_group restart_syscall rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending"
        " rt_sigtimedwait rt_sigsuspend sigaltstack pause kill tkill tgkill rt_sigqueueinfo"
        " rt_tgsigqueueinfo",
        EVERY,
    ),
    # Memory: heap, mappings and their advice (ADVICE); a thread's set-up and locks (clone: a
    # thread of its own process only, THREAD_ONLY; as many as its language's allowance, NPROC)
    (
        "brk mmap munmap mremap mprotect msync madvise futex set_robust_list rseq arch_prctl"
        " set_tid_address clone",
        EVERY,
    ),
    # Its descriptors (pipes, and /dev/null): read, write, wait, copy, close; fcntl and ioctl
    # for their flags only (ONE_OF); pipes, event and timer descriptors of its own
    (
        "read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek close"
        " close_range dup dup2 dup3 fcntl ioctl poll ppoll select pselect6 epoll_create"
        " epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2 pipe pipe2 eventfd"
        " eventfd2 timerfd_create timerfd_settime timerfd_gettime signalfd signalfd4",
        EVERY,
    ),
    # Clocks (its own CPU clock, the system's: ON_ITSELF) and sleeping; timers that signal it
    (
        "clock_gettime clock_getres clock_nanosleep nanosleep gettimeofday time times"
        " getitimer setitimer alarm timer_create timer_settime timer_gettime timer_getoverrun"
        " timer_delete",
        EVERY,
    ),
    # About itself: ids, limits, its CPU and scheduling (ON_ITSELF), random bytes, its name
    # (prctl: ONE_OF; a C function's blank also adds its second filter, LOADING_PRCTL); uname
    # (the host name it shows is koth's, not the host's: runner/jail/zygote.py)
    (
        "getpid gettid getppid getuid geteuid getgid getegid getgroups getresuid getresgid"
        " getpgrp getpgid getsid getrlimit setrlimit prlimit64 sched_yield sched_getaffinity"
        " sched_getscheduler sched_getparam sched_get_priority_max sched_get_priority_min getcpu"
        " getrandom prctl uname",
        EVERY,
    ),
    # Its threads' scheduling set to what every process has already (the default policy,
    # priority 0: DEFAULT_POLICY), as Mono sets each thread it starts; nothing else
    ("sched_setscheduler sched_setparam", EVERY),
    # The blank's last step with the filter up: a primed blank's channels come on a socket
    # (closed before bot code runs: no bot holds a socket, so no bot can use it)
    ("recvmsg", EVERY),
    # Files by name, read-only (NONE_OF): a runtime's files in its view; the C library loading
    # a C function's library (then LOADED denies them)
    (NAMES, NAMING),
    # An OWN program starts from its descriptor (execveat of EXEC_FD with no name)
    ("execveat", frozenset((OWN,))),
)

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
INT_BITS = 0xFFFFFFFF
F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL = 0, 1, 2, 3, 4  # fcntl (asm-generic/fcntl.h)
F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ = 1030, 1031, 1032
TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX = (
    0x5401,
    0x5413,
    0x541B,
    0x5421,
    0x5450,
    0x5451,
)
PR_GET_DUMPABLE, PR_SET_NAME, PR_GET_NAME, PR_SET_VMA = 3, 15, 16, 0x53564D41
PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 22, 38
# madvise: the usual advice (normal, random, sequential, will need, don't need, free, fork,
# huge pages, dump, wipe on fork, populate). Not MADV_COLD/PAGEOUT (evicting shared pages),
# MERGEABLE (pages merged with other processes'), REMOVE, HWPOISON, COLLAPSE and the rest.
ADVICE = (0, 1, 2, 3, 4, 8, 10, 11, 14, 15, 16, 17, 18, 19, 22, 23)
RWF_NOWAIT = 0x8
SIGN_BIT = 0x80000000  # of a 32-bit clockid_t: a negative clock id is another process's
AT_EMPTY_PATH = 0x1000
# CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NEW = (
    0x80 | 0x20000 | 0x2000000 | 0x4000000 | 0x8000000 | 0x10000000 | 0x20000000 | 0x40000000
)
CLONE_VM, CLONE_THREAD = 0x100, 0x10000
# clone may make a thread (in the same memory and thread group) in no new namespace: never a
# process (fork is clone without CLONE_THREAD), so nothing a bot starts outlives it or leaves
# its thread group, whatever its language's thread allowance (runner/jail/zygote.py).
THREAD_ONLY = (0, CLONE_NEW | CLONE_VM | CLONE_THREAD, CLONE_VM | CLONE_THREAD)
# Calls allowed with only these values of an argument (its position, the values), compared on
# the 32 bits the kernel reads.
ONE_OF: dict[str, tuple[int, tuple[int, ...]]] = {
    "fcntl": (
        1,
        (F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ),
    ),
    "ioctl": (1, (TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX)),
    "prctl": (0, (PR_GET_DUMPABLE, PR_SET_NAME, PR_GET_NAME, PR_SET_VMA)),
    "madvise": (2, ADVICE),
}
# ... and for a C function's blank, which adds its second filter:
LOADING_PRCTL = (PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP)
# Calls allowed with none of these bits set in an argument (its position, the bits).
NONE_OF: dict[str, tuple[int, int]] = {
    "open": (1, WRITE_FLAGS),
    "openat": (2, WRITE_FLAGS),
    "preadv2": (5, RWF_NOWAIT),  # asking whether a page is cached without waiting for it
    "pwritev2": (5, RWF_NOWAIT),
    "clock_gettime": (0, SIGN_BIT),
    "clock_getres": (0, SIGN_BIT),
    "clock_nanosleep": (0, SIGN_BIT),
    "timer_create": (0, SIGN_BIT),
}
# Calls allowed on the bot's own process only (an argument's position; True: 0 names it too).
ON_ITSELF: dict[str, tuple[int, bool]] = {
    "kill": (0, False),
    "tkill": (0, False),
    "tgkill": (0, False),
    "rt_sigqueueinfo": (0, False),
    "rt_tgsigqueueinfo": (0, False),
    "prlimit64": (0, True),
    "sched_getaffinity": (0, True),
    "sched_getscheduler": (0, True),
    "sched_getparam": (0, True),
    "getpgid": (0, True),
    "getsid": (0, True),
}


# Asked of a process after the bot's (its own threads, whose ids come after its pid): "the kernel
# has no such call" rather than EPERM, which the C library passes over where it asks for a
# thread's attributes (pthread_getattr_np: a JVM, Mono). Nothing of the other process is told.
UNKNOWN_BEYOND = frozenset(("sched_getaffinity",))
# Asked of its own threads too (pthread_getschedparam: Mono aborts where it fails): any process
# after the bot's. What it tells is the same for every bot (the default policy, priority 0).
ITS_THREADS_TOO = frozenset(("sched_getscheduler", "sched_getparam"))


SCHED_OTHER = 0
# sched_setscheduler and sched_setparam on the bot's process or its threads (ids after its pid),
# to the default policy only (priority 0 is the only one it takes): what a runtime asks for its
# threads, and what every bot already has. (The kernel refuses another uid's process.)
DEFAULT_POLICY: dict[str, tuple[int, tuple[Condition, ...]]] = {
    "sched_setscheduler": (0, ((1, SCMP_CMP_EQ, SCHED_OTHER, 0),)),
    "sched_setparam": (0, ()),
}


class SeccompUnavailable(OSError):
    """libseccomp is not installed, or the kernel refused the filter."""


@functools.cache
def _library() -> ctypes.CDLL:
    """libseccomp, loaded once per process (a blank inherits it from its zygote)."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp is not installed ({exc})") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


Condition = tuple[int, int, int, int]  # argument, comparison, a, b (libseccomp's scmp_arg_cmp)


class Filter:
    """A seccomp filter being built (libseccomp's context), whose calls take ``default`` unless
    a rule says otherwise; ``load`` applies it to this process (and every process it becomes or
    starts)."""

    def __init__(self, default: int = SCMP_ACT_ERRNO(errno.EPERM)) -> None:
        self._lib = _library()
        self._ctx = self._lib.seccomp_init(default)
        if not self._ctx:
            raise SeccompUnavailable("seccomp_init failed")
        # The same rules, the syscall numbers tested as a binary tree instead of one after
        # another: the kernel then takes the filter in a third of the time (it runs it for every
        # syscall number as it attaches it, to cache which ones it always allows: ~150 -> ~45 µs
        # of CPU a bot here). An older libseccomp refuses the attribute and keeps its chain.
        self._lib.seccomp_attr_set(self._ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)

    def rule(self, action: int, name: str, *conditions: Condition) -> None:
        """``name`` takes ``action`` (when every (arg, op, a, b) condition holds). A call this
        architecture does not have is skipped."""
        number = self._lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            return
        array = (_ArgCmp * max(1, len(conditions)))(*(_ArgCmp(*c) for c in conditions))
        result = self._lib.seccomp_rule_add_array(self._ctx, action, number, len(conditions), array)
        if result != 0:
            raise SeccompUnavailable(f"seccomp rule for {name}: {os.strerror(-result)}")

    def allow(self, name: str, *conditions: Condition) -> None:
        self.rule(SCMP_ACT_ALLOW, name, *conditions)

    def deny(self, name: str, *conditions: Condition, code: int = errno.EPERM) -> None:
        self.rule(SCMP_ACT_ERRNO(code), name, *conditions)

    def load(self) -> None:
        result = self._lib.seccomp_load(self._ctx)
        self._lib.seccomp_release(self._ctx)
        self._ctx = None
        if result != 0:
            raise SeccompUnavailable(f"seccomp_load: {os.strerror(-result)}")

    def compiled(self) -> bytes:
        """The filter as libseccomp compiles it (the BPF program ``seccomp_load`` would load),
        to be installed later with ``install``: the compiling is the slow part."""
        fd = os.memfd_create("koth-seccomp")
        try:
            result = self._lib.seccomp_export_bpf(self._ctx, fd)
            if result != 0:
                raise SeccompUnavailable(f"seccomp_export_bpf: {os.strerror(-result)}")
            size = os.lseek(fd, 0, os.SEEK_END)
            return os.pread(fd, size, 0)
        finally:
            os.close(fd)
            self._lib.seccomp_release(self._ctx)
            self._ctx = None


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def install(program: bytes) -> None:
    """Apply a compiled filter (``Filter.compiled``) to this process, as seccomp_load does:
    no new privileges, then the filter."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise SeccompUnavailable(f"prctl(PR_SET_SECCOMP): {os.strerror(err)}")


def bot_filter(pid: int, kind: str) -> Filter:
    """The filter for a bot of ``kind`` whose process is ``pid`` (signals may only reach it)."""
    rules = Filter()
    rules.deny("clone3", code=errno.ENOSYS)
    for line, kinds in ALLOWED:
        if kind in kinds:
            for name in line.split():
                _allow(rules, name, pid, kind)
    return rules


def _allow(rules: Filter, name: str, pid: int, kind: str) -> None:
    """``name`` allowed, with the arguments ONE_OF, NONE_OF, ON_ITSELF and the rest allow."""
    if name in ONE_OF:
        argument, values = ONE_OF[name]
        extra = LOADING_PRCTL if name == "prctl" and kind == FUNCTION else ()
        for value in (*values, *extra):
            rules.allow(name, (argument, SCMP_CMP_MASKED_EQ, INT_BITS, value))
    elif name in NONE_OF:
        argument, bits = NONE_OF[name]
        rules.allow(name, (argument, SCMP_CMP_MASKED_EQ, bits, 0))
    elif name in ON_ITSELF:
        _allow_on_itself(rules, name, pid)
    else:
        _allow_narrowed(rules, name, pid, kind)


def _allow_on_itself(rules: Filter, name: str, pid: int) -> None:
    """``name`` on the bot's own process (ON_ITSELF), and what its threads may ask."""
    argument, zero_too = ON_ITSELF[name]
    for value in (pid, 0) if zero_too else (pid,):
        rules.allow(name, (argument, SCMP_CMP_EQ, value, 0))
    if name in UNKNOWN_BEYOND:
        rules.deny(name, (argument, SCMP_CMP_GT, pid, 0), code=errno.ENOSYS)
    elif name in ITS_THREADS_TOO:
        rules.allow(name, (argument, SCMP_CMP_GT, pid, 0))


def _allow_narrowed(rules: Filter, name: str, pid: int, kind: str) -> None:
    """``name`` allowed as DEFAULT_POLICY, THREAD_ONLY or an OWN program's execveat narrow it;
    any other call outright."""
    if name in DEFAULT_POLICY:
        argument, extra = DEFAULT_POLICY[name]
        for comparison in ((argument, SCMP_CMP_EQ, pid, 0), (argument, SCMP_CMP_GT, pid, 0)):
            rules.allow(name, comparison, *extra)
    elif name == "clone":
        argument, mask, value = THREAD_ONLY
        rules.allow(name, (argument, SCMP_CMP_MASKED_EQ, mask, value))
    elif name == "execveat" and kind == OWN:
        rules.allow(
            name,
            (0, SCMP_CMP_MASKED_EQ, INT_BITS, EXEC_FD),
            (4, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH),
        )
    else:
        rules.allow(name)


@functools.cache
def loaded_filter() -> bytes:
    """The second filter of a C function's process, added once its library is loaded: every
    call that names a file (NAMES) fails from then on, and so does adding another filter."""
    rules = Filter(SCMP_ACT_ALLOW)
    for name in NAMES.split():
        rules.deny(name)
    for option in LOADING_PRCTL:
        rules.deny("prctl", (0, SCMP_CMP_MASKED_EQ, INT_BITS, option))
    return rules.compiled()


SENTINEL_PID = 0x7ABCDEF0  # stands for the bot's pid in the compiled template


@functools.cache
def _template(kind: str) -> tuple[bytes, tuple[int, ...]]:
    """The filter of ``kind`` compiled once, for a sentinel pid (compiling is what costs: ~5
    ms), and the offsets of its instructions' constants that are the sentinel."""
    compiled = bot_filter(SENTINEL_PID, kind).compiled()
    sentinel = SENTINEL_PID.to_bytes(4, "little")
    # struct sock_filter: code u16, jt u8, jf u8, k u32
    offsets = tuple(at for at in range(4, len(compiled), 8) if compiled[at : at + 4] == sentinel)
    return compiled, offsets


def filter_for(pid: int, kind: str) -> bytes:
    """The compiled filter of a bot of ``kind`` whose process is ``pid``: libseccomp's program for
    the sentinel pid, with each instruction's constant that is the sentinel set to ``pid``. Every
    other byte is libseccomp's; a test checks the result equals compiling for ``pid`` afresh."""
    compiled, offsets = _template(kind)
    if not offsets:
        raise SeccompUnavailable("the compiled filter does not name the bot's pid")
    program = bytearray(compiled)
    real = pid.to_bytes(4, "little")
    for at in offsets:
        program[at : at + 4] = real
    return bytes(program)


class _LoadedObject(ctypes.Structure):  # struct dl_phdr_info, its first fields
    _fields_ = [
        ("address", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("headers", ctypes.c_void_p),
        ("count", ctypes.c_uint16),
    ]


class _Segment(ctypes.Structure):  # Elf64_Phdr
    _fields_ = [
        ("type", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("offset", ctypes.c_uint64),
        ("vaddr", ctypes.c_uint64),
        ("paddr", ctypes.c_uint64),
        ("filesz", ctypes.c_uint64),
        ("memsz", ctypes.c_uint64),
        ("align", ctypes.c_uint64),
    ]


PT_LOAD, PF_R, MADV_POPULATE_READ = 1, 4, 22
_EACH_OBJECT = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(_LoadedObject), ctypes.c_size_t, ctypes.c_void_p
)


def _loaded_objects() -> list[tuple[bytes, list[tuple[int, int]]]]:
    """This process's loaded objects (its program first, then its libraries, in load order):
    each one's file name (empty for the program) and the page-aligned ranges it is mapped in."""
    found: list[tuple[bytes, list[tuple[int, int]]]] = []
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return found  # the fields above are ELF64's
    page = os.sysconf("SC_PAGE_SIZE")

    def each(loaded: ctypes._Pointer[_LoadedObject], size: int, data: int | None) -> int:
        info = loaded.contents
        segments = ctypes.cast(info.headers, ctypes.POINTER(_Segment))
        ranges = []
        for i in range(info.count):
            segment = segments[i]
            if segment.type == PT_LOAD and segment.flags & PF_R:
                start = (info.address + segment.vaddr) // page * page
                end = -(-(info.address + segment.vaddr + segment.memsz) // page) * page
                ranges.append((start, end))
        found.append((info.name or b"", ranges))
        return 0

    _libc.dl_iterate_phdr(_EACH_OBJECT(each), None)
    return found


def read_through_objects() -> None:
    """Every page of the files this process has loaded read into the page cache (copied
    nowhere), once: a page fault on one of them, in a bot forked from this process, then neither
    tells it whether the page was there nor brings it there for another bot to tell (the C
    blank's ``read_through``, runner/jail/cblank.c)."""
    with open(os.devnull, "wb") as null:
        for name, _ in _loaded_objects():
            try:
                with open(name or b"/proc/self/exe", "rb") as file:
                    size, done = os.fstat(file.fileno()).st_size, 0
                    while done < size:
                        sent = os.sendfile(null.fileno(), file.fileno(), done, size - done)
                        if sent <= 0:
                            break
                        done += sent
            except OSError:
                continue  # the vDSO (no file), or a file gone: nothing to read


def populate_mappings(first: int = 0) -> int:
    """Every page of this process's loaded objects from the ``first``-th on in its page tables
    now (a bot's library, once loaded: the C blank's ``populate``); returns how many objects it
    has. (MADV_POPULATE_READ, Linux 5.14; before it, a byte of each page read.)"""
    objects = _loaded_objects()
    for _, ranges in objects[first:]:
        for start, end in ranges:
            if _libc.madvise(ctypes.c_void_p(start), end - start, MADV_POPULATE_READ) != 0:
                for at in range(start, end, os.sysconf("SC_PAGE_SIZE")):
                    ctypes.string_at(at, 1)
    return len(objects)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def set_parent_death_signal(parent: int, signum: int = signal.SIGKILL) -> None:
    """``signum`` to this process when ``parent`` dies; exits at once if it already has (the
    signal would never come)."""
    _prctl(PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:
        os._exit(1)


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another uid included)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make_undumpable() -> None:
    """Other processes of this uid may no longer ptrace it or open its /proc/<pid>/mem."""
    _prctl(PR_SET_DUMPABLE, 0)
