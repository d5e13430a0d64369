"""The host's end of a zygote (runner/jail/zygote.py), wherever the zygote runs.

A zygote is a warm process that never loads bot code and forks a fresh bot process per game. The
local sandbox runs it as a child of the host; the Docker sandbox runs one inside each container
and reaches it through a Unix socket in a read-only bind mount. Either way the host speaks the
same protocol: ``spawn`` requests carrying the bot's channels (SCM_RIGHTS), then ``exit`` and
``stopped`` reports from the kernel's wait4, and ``kill`` requests.

What the host trusts comes from the kernel: the bot's pid as the host sees it (SCM_CREDENTIALS
on the one byte of an identity channel, written and closed before bot code runs), its CPU time
(the kernel's clock of that pid), its exit status and its OOM kills. Nothing the bot process
writes is trusted.

A bot's channels are pipes (request, reply, output): nothing of the host but the bytes. A socket
of the host's (the identity channel once was its output too) would show the bot the host's
network namespace (its interfaces through ioctl, koth's pid through SO_PEERCRED) and could be
named by another bot (an abstract name it is bound to as it sends with SO_PASSCRED).

Every message from a zygote is checked before it is believed, every send to it and every wait on
it has a deadline. A zygote in a container is ``untrusted``: it shares a container with the
one bot it holds at a time, so whatever goes wrong with it (a malformed message, silence, death)
while a bot is there is that bot's entry's doing (runner/play/watchdog.py scores it so). A local
zygote is the host's own: its failure is a SandboxError.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.common import languages
from runner.jail import zygote as zygote_program
from runner.sandbox.idling import Idler

_libc = ctypes.CDLL(None, use_errno=True)
_UCRED = struct.Struct("3i")  # pid, uid, gid
IDENTIFY_WALL_S = 10.0
ANSWER_WALL_S = 10.0  # a zygote answers a spawn request, or takes a message, within this
EVENTS = {"ready", "spawned", "exit", "stopped", "blanks"}
MESSAGE_CAP = 1 << 16


class SandboxError(RuntimeError):
    """The host's own machinery failed (not a bot's fault)."""


class ZygoteBroken(SandboxError):
    """A zygote died, fell silent or said something malformed. Where bots can share its
    container (``Zygote.untrusted``), that is its entry's doing, not the host's."""


def parse_event(data: bytes) -> dict[str, Any]:
    """A zygote's message, checked: a JSON object with a known ``event`` and an int ``pid``
    (and, for ``exit``, an int ``status``); ZygoteBroken naming what is wrong otherwise."""
    try:
        event = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ZygoteBroken(f"the bot zygote sent a malformed message: {data[:60]!r}") from None
    if not isinstance(event, dict) or event.get("event") not in EVENTS:
        raise ZygoteBroken(f"the bot zygote sent an unknown message: {data[:60]!r}")
    if event["event"] == "blanks":
        pids = event.get("pids")
        if not isinstance(pids, list) or not all(_is_pid(pid) for pid in pids):
            raise ZygoteBroken("the bot zygote sent a list of blanks that is not a list of pids")
        return event
    fields = ("pid", "status") if event["event"] == "exit" else ("pid",)
    for field in fields:
        if not _is_pid(event.get(field)):
            raise ZygoteBroken(f"the bot zygote sent a message without a valid {field}")
    return event


def _is_pid(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class BotLimits:
    """What one bot may use. ``threads``: the threads its runtime may start; ``address_space``:
    whether the address-space rlimit is its memory wall (else its memory group is, and the
    address space only a backstop: runner/common/languages.py). ``by_language``: the limits of
    each language's bots where they differ (``of``): a season's limits carry them to each seat."""

    move_cpu_s: float
    game_cpu_s: float
    move_wall_s: float
    memory_bytes: int
    first_move_wall_s: float | None = None  # a game's first move, if it has its own limit
    threads: int = 0
    address_space: bool = True
    by_language: tuple[tuple[str, BotLimits], ...] = ()

    def of(self, language: str) -> BotLimits:
        """The limits of a bot written in ``language``."""
        for known, limits in self.by_language:
            if known == language:
                return limits
        return self


class Zygote:
    """The host's end of one zygote: spawn, events by pid, kill."""

    def __init__(
        self,
        sock: socket.socket,
        on_close: Callable[[], None] = lambda: None,
        oom_kills: Callable[[], int] | None = None,
        untrusted: bool = False,
    ) -> None:
        """``sock``: the connected control socket. ``oom_kills``: a counter of the OOM kills in
        the memory cgroup around the zygote (a container's), when the kernel enforces memory
        there. ``untrusted``: it shares a container with the bot it holds, so its failures are that
        bot's entry's."""
        self._sock = sock
        sock.setblocking(False)
        self._on_close = on_close
        self._container_oom_kills = oom_kills
        self.untrusted = untrusted
        self.dead = False
        self._events: dict[int, list[dict[str, Any]]] = {}
        # Bots the host is done with, whose last news is still to come: it is dropped. Pids are
        # reused (a season of a game that starts a process every move wraps them): news of an
        # old process must never reach a new one with its pid.
        self._closed: set[int] = set()
        self._pending: list[BotProcess] = []  # spawned, in request order, awaiting their pid
        self._blanks: list[int] | None = None  # the zygote's answer to ``blanks``
        try:
            ready = self._next_event(timeout=60.0)
        except SandboxError:
            ready = None
        if ready is None or ready["event"] != "ready":
            self.close()
            raise SandboxError(f"the bot zygote did not start (it said {ready!r})")
        self.pid = int(ready["pid"])
        self.is_root = bool(ready.get("root"))
        self.netns = bool(ready.get("netns"))
        self.memory_cgroups = bool(ready.get("memory_cgroups"))
        self.seccomp = bool(ready.get("seccomp"))
        # The command it is (minus a script), when it runs Python bots in warm forks of itself.
        python = ready.get("python")
        self.python = tuple(map(str, python)) if isinstance(python, list) else ()
        # Whether its C-function bots run in the C blank (runner/jail/cblank.c), not in Python.
        self.native = bool(ready.get("native"))

    @property
    def fileno(self) -> int:
        return self._sock.fileno()

    def _next_event(self, timeout: float | None) -> dict[str, Any] | None:
        if self.dead:
            raise ZygoteBroken("the bot zygote exited unexpectedly")
        ready, _, _ = select.select([self._sock], [], [], timeout)
        if not ready:
            return None
        try:
            data = self._sock.recv(MESSAGE_CAP)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            self.dead = True
            raise ZygoteBroken("the bot zygote exited unexpectedly")
        return parse_event(data)

    def _send(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        """Send a request, waiting at most ANSWER_WALL_S for room: a stopped zygote must not
        stop the host."""
        data = [json.dumps(message).encode()]
        deadline = time.monotonic() + ANSWER_WALL_S
        while True:
            try:
                socket.send_fds(self._sock, data, fds or [])
                return
            except BlockingIOError:
                pass
            except OSError:
                self.dead = True
                raise ZygoteBroken("the bot zygote exited unexpectedly") from None
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self._sock], [], left)[1]:
                raise ZygoteBroken(f"the bot zygote took no request for {ANSWER_WALL_S:g} s")

    def drop_old_news(self) -> None:
        """Read and drop the waiting news of bots the host is done with (``forget``: the exits
        the zygote reports as it reaps them, often while the next game is played), up to the
        first other message, left as it is for whoever reads next: a move, which knows whose
        doing a broken message is. Nothing else is read, so nothing a zygote in a bot's
        container says or fails to say can stop the host here."""
        while not self.dead:
            try:
                data = self._sock.recv(MESSAGE_CAP, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except OSError:  # nothing waiting (BlockingIOError), or its end is for others
                return
            try:
                event = parse_event(data) if data else None
            except ZygoteBroken:
                return
            if event is None or event["event"] not in ("exit", "stopped"):
                return
            if event["pid"] not in self._closed:
                return
            self._sock.recv(MESSAGE_CAP, socket.MSG_DONTWAIT)  # the one peeked at
            self._file(event)

    def pump(self) -> None:
        """Read every event already waiting, filing them by pid."""
        while True:
            event = self._next_event(timeout=0)
            if event is None:
                return
            self._file(event)

    def _file(self, event: dict[str, Any]) -> None:
        if event["event"] == "blanks":
            self._blanks = list(event["pids"])
            return
        pid = event["pid"]
        if event["event"] == "spawned":
            if not self._pending:
                raise ZygoteBroken("the bot zygote reported a bot nobody asked for")
            # A new process: whatever was said of an earlier one with this pid was said before
            # (the zygote reports a bot's exit when it reaps it, before its pid can be reused).
            self._events.pop(pid, None)
            self._closed.discard(pid)
            process = self._pending.pop(0)
            process.pid, process.primed = pid, event.get("primed") is True
        elif event["event"] == "ready":
            raise ZygoteBroken("the bot zygote said it was ready twice")
        elif pid in self._closed:
            if event["event"] == "exit":
                self._closed.discard(pid)  # its last news
        else:
            self._events.setdefault(pid, []).append(event)

    def events_for(self, pid: int) -> list[dict[str, Any]]:
        return self._events.get(pid, [])

    def _file_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """File the zygote's news as it comes until ``done()``, for up to ``timeout``; whether
        it is done."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            news = self._next_event(timeout=left)
            if news is not None:
                self._file(news)
        return True

    def _exit_of(self, pid: int) -> dict[str, Any] | None:
        return next((e for e in self._events.get(pid, []) if e["event"] == "exit"), None)

    def wait_exit(self, pid: int, timeout: float) -> dict[str, Any] | None:
        self._file_until(lambda: self._exit_of(pid) is not None, timeout)
        return self._exit_of(pid)

    def blanks(self) -> list[int]:
        """The pids of the processes the zygote holds ready but has given no bot (its pool; a
        blank primed for a request already runs under that bot's uid): what a search for bot
        processes left behind must leave out. Asked of a trusted zygote only (tests)."""
        self._blanks = None
        self._send({"op": "blanks"})
        deadline = time.monotonic() + ANSWER_WALL_S
        while self._blanks is None:
            left = deadline - time.monotonic()
            news = self._next_event(timeout=left) if left > 0 else None
            if news is None:
                raise ZygoteBroken(f"the bot zygote did not say its blanks in {ANSWER_WALL_S:g} s")
            self._file(news)
        return self._blanks

    def keep_to(self, cpus: set[int]) -> None:
        """The zygote, its blanks and every bot forked from now on keep to ``cpus``."""
        self._send({"op": "keep_to", "cpus": sorted(cpus)})

    def forget(self, pid: int) -> None:
        """The host is done with the bot ``pid``: drop its news, and whatever still comes."""
        news = self._events.pop(pid, [])
        if not any(event["event"] == "exit" for event in news):
            self._closed.add(pid)  # its exit is still to come

    def settle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the ends of the bots the host is done with (their news
        is filed as it comes); whether every one of them has ended."""
        return self._file_until(lambda: not self._closed, timeout)

    def oom_kills(self) -> int:
        return self._container_oom_kills() if self._container_oom_kills else 0

    def spawn(
        self,
        jail: str,
        limits: BotLimits,
        program: list[str] | None = None,
        root: str | None = None,
        abi: dict[str, Any] | None = None,
        view: str | None = None,
    ) -> BotProcess:
        """Ask for a bot process; returns at once (see BotProcess.ready). Without ``program``
        the bot is ``jail/bot.so``, a C function called as ``abi`` says (CAbi.to_json()); with
        it, that command is run in ``jail`` (``root``: an empty folder to build the program's
        private filesystem view on; ``view``: a view ready to be chrooted into, where the
        zygote cannot build one, that holds the jail)."""
        language = languages.for_command(program)
        if language is not None:  # its memory limit put in (``{heap_mib}``), its folders
            program = language.command(limits.memory_bytes)
        request: dict[str, Any] = {
            "op": "spawn",
            "jail": jail,
            "so": f"{jail}/bot.so",
            "exec": program,
            "root": root,
            "view": view,
            "view_more": language.folders() if language is not None else [],
            "env": dict(language.run_env) if language is not None else {},
            "proc": language is not None and language.proc,
            "abi": abi,
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "memory_enforced_outside": self._container_oom_kills is not None,
                "address_space": limits.address_space,
                "threads": limits.threads,
                "cpu_seconds": max(1, int(limits.game_cpu_s + 1.999)),
            },
        }
        # Pipes (a move's round trip through one costs the kernel ~1.4 µs less than through a
        # socket), and a socket the blank writes one byte to and closes before bot code runs,
        # so that the kernel stamps it with the bot's pid (SO_PASSCRED).
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        output_r, output_w = os.pipe()
        identity, identity_bot = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        identity.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            self._send(request, [request_r, reply_w, identity_bot.fileno(), output_w])
        except ZygoteBroken:
            for fd in (request_w, reply_r, output_r):
                os.close(fd)
            identity.close()
            raise
        finally:
            os.close(request_r)
            os.close(reply_w)
            os.close(output_w)
            identity_bot.close()
        for fd in (reply_r, output_r, request_w):  # every write to a bot is under a watchdog
            os.set_blocking(fd, False)
        identity.setblocking(False)
        process = BotProcess(self, request_w, reply_r, identity, output_r, self.oom_kills())
        # A runtime that starts threads reads its policy into each (Mono: "unknown policy 5",
        # written to the bot's output): its policy is left alone; its nice and weight are not.
        process.keeps_policy = limits.threads > 0
        self._pending.append(process)
        return process

    def await_pid(self, process: BotProcess) -> int:
        """The zygote's pid for a spawned bot (spawn() does not wait: bots start side by side)."""
        deadline = time.monotonic() + ANSWER_WALL_S
        while process.pid is None:
            left = deadline - time.monotonic()
            event = self._next_event(timeout=max(0.0, left))
            if event is None and left <= 0:
                raise ZygoteBroken(
                    f"the bot zygote did not answer a spawn request within {ANSWER_WALL_S:g} s"
                )
            if event is not None:
                self._file(event)
        return process.pid

    def kill(self, pid: int) -> None:
        try:
            self._send({"op": "kill", "pid": pid})
        except ZygoteBroken:
            pass  # the zygote is gone (and with it, by the parent-death signal, every bot)

    def close(self) -> None:
        self._sock.close()
        self._on_close()


def _silence(fd: int) -> None:
    """A channel the bot has closed (shutdown, close) would read as ended at every poll from
    now on, and a host waiting for a reply would wake again and again, one core spinning for as
    long as the bot takes over its moves. In its place, under the same fd (every poll set holding
    it stays right), goes one that never becomes readable."""
    silent = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
    try:
        os.dup2(silent, fd, inheritable=False)
    finally:
        os.close(silent)


class BotProcess:
    """One sandboxed bot process, as the host sees it: channels, the kernel's clocks, reports."""

    def __init__(
        self,
        zygote: Zygote,
        request_fd: int,
        reply_fd: int,
        identity: socket.socket,
        output_fd: int,
        oom_baseline: int,
    ) -> None:
        self.zygote = zygote
        self.pid: int | None = None  # in the zygote's pid namespace: for its reports and kills
        self.primed = False  # the zygote says it had walled it in before it was asked for
        self.host_pid: int | None = None  # as the host sees it: for the kernel's CPU clock
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self._identity = identity
        self.output_fd = output_fd
        self.output = bytearray()
        self.output_dropped = 0
        self._oom_baseline = oom_baseline
        self._clock: int | None = None  # the kernel's CPU clock of the process, once known
        self._identified = False
        self._idler: Idler | None = None
        self.keeps_policy = False  # between its moves: nice and weight only (a threaded runtime)
        self.closed = False

    def ready(self) -> int:
        """Wait for the zygote's answer and the bot's kernel-stamped identity; returns the pid
        in the zygote's namespace."""
        pid = self.zygote.await_pid(self)
        if not self._identified:
            self._identified = True
            try:
                self.host_pid = self._identify()
            finally:
                self._identity.close()
            if self.host_pid is not None:
                clock = ctypes.c_int()
                if _libc.clock_getcpuclockid(self.host_pid, ctypes.byref(clock)) == 0:
                    self._clock = clock.value
        return pid

    def _identify(self) -> int | None:
        """The pid the kernel stamped on the byte of the identity channel (None: it died)."""
        deadline = time.monotonic() + IDENTIFY_WALL_S
        space = socket.CMSG_SPACE(_UCRED.size)
        while time.monotonic() < deadline:
            select.select([self._identity], [], [], max(0.0, deadline - time.monotonic()))
            try:
                data, ancillary, _, _ = self._identity.recvmsg(1, space)
            except BlockingIOError:
                continue
            if not data:
                return None
            if data != zygote_program.IDENTIFY:
                raise ZygoteBroken(f"a bot process began with {data!r}, not its identity byte")
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid, _, _ = _UCRED.unpack(payload[: _UCRED.size])
                    return int(pid)
            raise SandboxError("the kernel attached no credentials to a bot's first byte")
        raise ZygoteBroken(f"a bot process did not start within {IDENTIFY_WALL_S:g} s")

    @property
    def had_clock(self) -> bool:
        """Whether the kernel's clock of this process could be read once (so that it reads
        None now only because the process has ended and been reaped)."""
        return self._clock is not None

    @property
    def clock(self) -> int | None:
        """The kernel's CPU clock of the process (a clock id for clock_gettime), once known."""
        return self._clock

    def cpu_time(self) -> float | None:
        """CPU seconds the kernel has charged this process so far; None once it is gone."""
        if self._clock is None:
            return None
        try:
            return time.clock_gettime(self._clock)
        except OSError:
            return None

    def drain_output(self, cap: int, reads: int | None = None) -> None:
        """Keep the first ``cap`` bytes the bot printed; count and drop the rest. ``reads``: at
        most that many reads (a bot still running may be writing all the while)."""
        while reads is None or reads > 0:
            if reads is not None:
                reads -= 1
            try:
                chunk = os.read(self.output_fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                _silence(self.output_fd)
                return
            room = max(0, cap - len(self.output))
            self.output += chunk[:room]
            self.output_dropped += len(chunk) - min(room, len(chunk))

    def set_idle(self, idle: bool) -> None:
        """Between its moves, the program bot runs only on CPU nothing else wants (or back, as
        its move begins): runner/sandbox/idling.py."""
        if self.host_pid is None:
            return
        if self._idler is None:
            self._idler = Idler(self.host_pid, policy=not self.keeps_policy)
        self._idler.set(idle)

    def silence_reply(self) -> None:
        """The bot has closed its reply channel and the host waits on for its end (a program
        whose move ends as it exits): ``_silence`` it."""
        _silence(self.reply_fd)

    def oom_killed(self, exit_event: dict[str, Any]) -> bool:
        """Whether the kernel's OOM killer ended this bot (its own cgroup, or its container's)."""
        if int(exit_event.get("oom_kills", 0)) > 0:
            return True
        return self.zygote.oom_kills() > self._oom_baseline

    def end_input(self) -> None:
        """Close the bot's stdin: its request is all written (a program started for one move
        may read to the end of its input). The fd stays open, on /dev/null, until ``close``."""
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.dup2(null, self.request_fd, inheritable=False)
        finally:
            os.close(null)

    def kill(self) -> None:
        self.zygote.kill(self.ready())

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            pid: int | None = self.ready()
        except SandboxError:
            pid = self.pid
        os.close(self.request_fd)
        os.close(self.reply_fd)
        os.close(self.output_fd)
        self._identity.close()
        if pid is not None:
            self.zygote.kill(pid)
            self.zygote.forget(pid)
        if self._idler is not None:  # its container's CPU weight, for the bot after it
            self._idler.set(False)
