"""Walls a process puts up around itself before bot code runs. Standalone: stdlib (ctypes) only,
so the zygote can use it inside a container as well as on the host.

- ``deny_list_filter(pid)``: a seccomp filter built with libseccomp (the system's libseccomp.so.2,
  through ctypes). Everything is allowed except what a bot has no business calling; a denied call
  fails with EPERM and the bot goes on. Denied: tracing and reading other processes (ptrace,
  process_vm_*, kcmp, pidfd_*), signals to any process but itself, System V IPC and POSIX message
  queues (state that would outlive a game), io_uring, keyrings, bpf, perf_event_open,
  userfaultfd, fanotify, namespaces and mounts (unshare, setns, mount and the new mount API,
  chroot, pivot_root, clone with a CLONE_NEW* flag), module and kernel knobs, opening a file for
  writing or creating anything in the filesystem, new sockets (no network, and no Unix socket
  path such as a Docker daemon's), dropping its parent-death signal, and naming a process to
  be signalled when a descriptor is ready (fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG; ioctl
  FIOSETOWN, SIOCSPGRP: the kernel would send another process a signal); watching, leasing or
  locking files (inotify, dnotify, leases, flock and fcntl locks: what another bot does with a
  file every bot can open would be a channel between them); Linux AIO; the page
  cache's state (evicting pages: fadvise, readahead, madvise MADV_COLD and MADV_PAGEOUT; asking
  after them: mincore, cachestat, preadv2 with RWF_NOWAIT), shared by every bot and outliving
  each; leaving the CPU it was given or the scheduling the host gives it between its moves
  (sched_setaffinity, sched_setscheduler, sched_setattr); and another process's CPU clock (a
  negative clock id). clone3 fails with
  ENOSYS, so runtimes fall back to clone, whose flags the filter can see. Calls of another
  architecture (int 0x80) kill the process (libseccomp's default for a foreign architecture).
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
SCMP_CMP_NE, SCMP_CMP_EQ, SCMP_CMP_MASKED_EQ = 1, 4, 7
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


# In the order of the module docstring: other processes; state that outlives a process; kernel
# interfaces a bot never needs; namespaces and mounts; the filesystem; sockets.
DENIED = """
    ptrace process_vm_readv process_vm_writev kcmp pidfd_open pidfd_getfd pidfd_send_signal
    shmget shmat shmdt shmctl semget semop semtimedop semctl msgget msgsnd msgrcv msgctl
    mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
    keyctl add_key request_key
    io_uring_setup io_uring_enter io_uring_register bpf perf_event_open userfaultfd
    io_setup io_submit io_getevents io_pgetevents io_cancel io_destroy
    inotify_init inotify_init1 inotify_add_watch
    fadvise64 readahead mincore cachestat sched_setaffinity sched_setscheduler sched_setattr
    flock
    fanotify_init lookup_dcookie open_by_handle_at name_to_handle_at process_madvise
    kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff
    acct quotactl quotactl_fd syslog vhangup iopl ioperm sethostname setdomainname
    settimeofday clock_settime adjtimex clock_adjtime
    unshare setns mount umount2 pivot_root chroot fsopen fsconfig fsmount fspick move_mount
    open_tree mount_setattr
    creat openat2 mknod mknodat link linkat symlink symlinkat rename renameat renameat2
    unlink unlinkat rmdir mkdir mkdirat chmod fchmod fchmodat chown fchown lchown fchownat
    truncate utime utimes utimensat futimesat setxattr lsetxattr fsetxattr removexattr
    lremovexattr fremovexattr
    socket connect bind listen accept accept4
""".split()  # noqa: SIM905 - a word list reads better than 110 quoted names
WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND)
INT_BITS = 0xFFFFFFFF
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15  # fcntl commands (asm-generic/fcntl.h)
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902  # ioctl requests that set a descriptor's owner
F_NOTIFY = 1026
# F_GETLK, F_SETLK, F_SETLKW, F_SETLEASE, F_GETLEASE, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW
FILE_LOCKS = (5, 6, 7, 1024, 1025, 36, 37, 38)
MADV_COLD, MADV_PAGEOUT = 20, 21
RWF_NOWAIT = 0x8
SIGN_BIT = 0x80000000  # of a 32-bit clockid_t
# By call: an argument's position, then its values that fail.
INT_VALUES = {
    "prctl": (0, (PR_SET_PDEATHSIG,)),  # dropping its parent-death signal
    # A signal the kernel sends for the bot: the owner of a descriptor in O_ASYNC mode gets
    # SIGIO (or any signal F_SETSIG names) when I/O is possible on it, so an owner set to another
    # process would signal it where kill's rule never looks. Then directory change notices
    # (dnotify), leases (broken by another process's open) and locks on the files every bot can
    # open (one bot locks, another finds it locked): channels between bots playing at once.
    "fcntl": (1, (F_SETOWN, F_SETOWN_EX, F_SETSIG, F_NOTIFY, *FILE_LOCKS)),
    "ioctl": (1, (FIOSETOWN, SIOCSPGRP)),
    # The page cache is the host's, shared by every bot: a page evicted or not would be a bit
    # that outlives the game (asking after one without waiting for it: RWF_NOWAIT, below).
    "madvise": (2, (MADV_COLD, MADV_PAGEOUT)),
}
# CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NEW = (0x80, 0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000)


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


class Filter:
    """A seccomp filter being built (libseccomp's context); ``load`` applies it to this process
    (and every process it becomes or starts)."""

    def __init__(self) -> None:
        self._lib = _library()
        self._ctx = self._lib.seccomp_init(SCMP_ACT_ALLOW)
        if not self._ctx:
            raise SeccompUnavailable("seccomp_init failed")
        # The same rules, the syscall numbers tested as a binary tree instead of one after
        # another: the kernel then takes the filter in a third of the time (it runs it for every
        # syscall number as it attaches it, to cache which ones it always allows: ~150 -> ~45 µs
        # of CPU a bot here). An older libseccomp refuses the attribute and keeps its chain.
        self._lib.seccomp_attr_set(self._ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)

    def deny(
        self, name: str, *conditions: tuple[int, int, int, int], code: int = errno.EPERM
    ) -> None:
        """Fail ``name`` with ``code`` (when every (arg, op, a, b) condition holds). A call this
        architecture does not have is skipped."""
        number = self._lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            return
        array = (_ArgCmp * max(1, len(conditions)))(*(_ArgCmp(*c) for c in conditions))
        result = self._lib.seccomp_rule_add_array(
            self._ctx, SCMP_ACT_ERRNO(code), number, len(conditions), array
        )
        if result != 0:
            raise SeccompUnavailable(f"seccomp rule for {name}: {os.strerror(-result)}")

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


def deny_list_filter(pid: int) -> Filter:
    """The filter for a bot whose process is ``pid`` (signals may only reach itself)."""
    rules = Filter()
    for name in DENIED:
        rules.deny(name)
    rules.deny("clone3", code=errno.ENOSYS)
    for flag in CLONE_NEW:
        rules.deny("clone", (0, SCMP_CMP_MASKED_EQ, flag, flag))
    for flag in WRITE_FLAGS:
        rules.deny("open", (1, SCMP_CMP_MASKED_EQ, flag, flag))
        rules.deny("openat", (2, SCMP_CMP_MASKED_EQ, flag, flag))
    for name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        rules.deny(name, (0, SCMP_CMP_NE, pid, 0))
    # Values of an argument the kernel reads as a 32-bit int (INT_VALUES), compared on those
    # bits, so that bits above them (which the kernel drops) cannot slip a call past its rule.
    for name, (argument, values) in INT_VALUES.items():
        for value in values:
            rules.deny(name, (argument, SCMP_CMP_MASKED_EQ, INT_BITS, value))
    for name in ("preadv2", "pwritev2"):
        rules.deny(name, (5, SCMP_CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    # Another process's CPU clock (a negative clock id names a process or thread): its work.
    for name in ("clock_gettime", "clock_getres", "clock_nanosleep", "timer_create"):
        rules.deny(name, (0, SCMP_CMP_MASKED_EQ, SIGN_BIT, SIGN_BIT))
    return rules


SENTINEL_PID = 0x7ABCDEF0  # stands for the bot's pid in the compiled template


@functools.cache
def _template() -> tuple[bytes, tuple[int, ...]]:
    """The filter compiled once, for a sentinel pid (compiling is what costs: ~5 ms), and the
    offsets of its instructions' constants that are the sentinel."""
    compiled = deny_list_filter(SENTINEL_PID).compiled()
    sentinel = SENTINEL_PID.to_bytes(4, "little")
    # struct sock_filter: code u16, jt u8, jf u8, k u32
    offsets = tuple(at for at in range(4, len(compiled), 8) if compiled[at : at + 4] == sentinel)
    return compiled, offsets


def filter_for(pid: int) -> bytes:
    """The compiled filter of a bot whose process is ``pid``: libseccomp's program for the
    sentinel pid, with each instruction's constant that is the sentinel set to ``pid``. Every
    other byte is libseccomp's; a test checks the result equals compiling for ``pid`` afresh."""
    compiled, offsets = _template()
    if not offsets:
        raise SeccompUnavailable("the compiled filter does not name the bot's pid")
    program = bytearray(compiled)
    real = pid.to_bytes(4, "little")
    for at in offsets:
        program[at : at + 4] = real
    return bytes(program)


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
