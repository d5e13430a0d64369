"""The host's end of a zygote (runner/bots/worker.py), wherever the zygote runs.

A zygote is a warm process that never loads bot code and forks a fresh bot process per game. The
local sandbox runs it as a child of the host; the Docker sandbox runs one inside each container
and reaches it through a Unix socket in a read-only bind mount. Either way the host speaks the
same protocol: ``spawn`` requests carrying the bot's channels (SCM_RIGHTS), then ``exit`` and
``stopped`` reports from the kernel's wait4, and ``kill`` requests.

What the host trusts comes from the kernel: the bot's pid as the host sees it (SCM_CREDENTIALS
on the first byte of the reply channel, written before bot code runs), its CPU time (the
kernel's clock of that pid), its exit status and its OOM kills. Nothing the bot process writes is
trusted.
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

from runner.bots import worker

_libc = ctypes.CDLL(None, use_errno=True)
_UCRED = struct.Struct("3i")  # pid, uid, gid
IDENTIFY_WALL_S = 10.0


class SandboxError(RuntimeError):
    """The host's own machinery failed (not a bot's fault)."""


@dataclass(frozen=True)
class BotLimits:
    move_cpu_s: float
    game_cpu_s: float
    move_wall_s: float
    memory_bytes: int
    first_move_wall_s: float | None = None  # a game's first move, if it has its own limit


class Zygote:
    """The host's end of one zygote: spawn, events by pid, kill."""

    def __init__(
        self,
        sock: socket.socket,
        on_close: Callable[[], None] = lambda: None,
        oom_kills: Callable[[], int] | None = None,
        bot_root: str | None = None,
        bots_can_reach: bool = False,
    ) -> None:
        """``sock``: the connected control socket. ``oom_kills``: a counter of the OOM kills in
        the memory cgroup around the zygote (a container's), when the kernel enforces memory
        there. ``bot_root``: where the zygote sees a bot's jail (a container's mount point).
        ``bots_can_reach``: its bots share its uid (a container's one user), so a bot can kill it;
        the container holds one entry's bots only, so such a death is that bot's fault."""
        self._sock = sock
        self._on_close = on_close
        self._container_oom_kills = oom_kills
        self._bot_root = bot_root
        self.bots_can_reach = bots_can_reach
        self.dead = False
        self._events: dict[int, list[dict[str, Any]]] = {}
        self._pending: list[BotProcess] = []  # spawned, in request order, awaiting their pid
        ready = self._next_event(timeout=60.0)
        if ready is None or ready.get("event") != "ready":
            self.close()
            raise SandboxError(f"the bot zygote did not start (it said {ready!r})")
        self.pid = int(ready["pid"])
        self.is_root = bool(ready["root"])
        self.netns = bool(ready.get("netns"))
        self.memory_cgroups = bool(ready.get("memory_cgroups"))

    @property
    def fileno(self) -> int:
        return self._sock.fileno()

    def _next_event(self, timeout: float | None) -> dict[str, Any] | None:
        ready, _, _ = select.select([self._sock], [], [], timeout)
        if not ready:
            return None
        try:
            data = self._sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            self.dead = True
            raise SandboxError("the bot zygote exited unexpectedly")
        event: dict[str, Any] = json.loads(data)
        return event

    def pump(self) -> None:
        """Read every event already waiting, filing them by pid."""
        while True:
            event = self._next_event(timeout=0)
            if event is None:
                return
            self._file(event)

    def _file(self, event: dict[str, Any]) -> None:
        if event["event"] == "spawned":
            self._pending.pop(0).pid = event["pid"]
        else:
            self._events.setdefault(event["pid"], []).append(event)

    def events_for(self, pid: int) -> list[dict[str, Any]]:
        return self._events.get(pid, [])

    def wait_exit(self, pid: int, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            for event in self._events.get(pid, []):
                if event["event"] == "exit":
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            news = self._next_event(timeout=left)
            if news is not None:
                self._file(news)

    def forget(self, pid: int) -> None:
        self._events.pop(pid, None)

    def oom_kills(self) -> int:
        return self._container_oom_kills() if self._container_oom_kills else 0

    def spawn(
        self,
        jail: str,
        limits: BotLimits,
        program: list[str] | None = None,
        root: str | None = None,
    ) -> BotProcess:
        """Ask for a bot process; returns at once (see BotProcess.ready). Without ``program``
        the bot is ``jail/bot.so``, a C function; with it, that command is run in ``jail``
        (``root``: an empty folder to build the program's private filesystem view on)."""
        if self._bot_root is not None:
            jail = self._bot_root
        request: dict[str, Any] = {
            "op": "spawn",
            "jail": jail,
            "so": f"{jail}/bot.so",
            "exec": program,
            "root": root,
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "memory_enforced_outside": self._container_oom_kills is not None,
                "cpu_seconds": max(1, int(limits.game_cpu_s + 1.999)),
            },
        }
        request_r, request_w = os.pipe()
        reply_host, reply_bot = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        reply_host.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        output_r, output_w = os.pipe()
        try:
            fds = [request_r, reply_bot.fileno(), output_w]
            socket.send_fds(self._sock, [json.dumps(request).encode()], fds)
        finally:
            os.close(request_r)
            os.close(output_w)
            reply_bot.close()
        reply_host.setblocking(False)
        os.set_blocking(output_r, False)
        process = BotProcess(self, request_w, reply_host, output_r, self.oom_kills())
        self._pending.append(process)
        return process

    def await_pid(self, process: BotProcess) -> int:
        """The zygote's pid for a spawned bot (spawn() does not wait: bots start side by side)."""
        while process.pid is None:
            event = self._next_event(timeout=30.0)
            if event is None:
                raise SandboxError("the bot zygote did not answer a spawn request")
            self._file(event)
        return process.pid

    def kill(self, pid: int) -> None:
        try:
            self._sock.send(json.dumps({"op": "kill", "pid": pid}).encode())
        except OSError:
            pass  # the zygote is gone, and with it (parent-death signal) every bot

    def close(self) -> None:
        self._sock.close()
        self._on_close()


class BotProcess:
    """One sandboxed bot process, as the host sees it: channels, the kernel's clocks, reports."""

    def __init__(
        self,
        zygote: Zygote,
        request_fd: int,
        reply: socket.socket,
        output_fd: int,
        oom_baseline: int,
    ) -> None:
        self.zygote = zygote
        self.pid: int | None = None  # in the zygote's pid namespace: for its reports and kills
        self.host_pid: int | None = None  # as the host sees it: for the kernel's CPU clock
        self.request_fd = request_fd
        self._reply = reply
        self.reply_fd = reply.fileno()
        self.output_fd = output_fd
        self.output = bytearray()
        self.output_dropped = 0
        self._oom_baseline = oom_baseline
        self._clock = ctypes.c_int()
        self._clock_ok = False
        self._identified = False
        self.closed = False

    def ready(self) -> int:
        """Wait for the zygote's answer and the bot's kernel-stamped identity; returns the pid
        in the zygote's namespace."""
        pid = self.zygote.await_pid(self)
        if not self._identified:
            self._identified = True
            self.host_pid = self._identify()
            if self.host_pid is not None:
                clock = ctypes.byref(self._clock)
                self._clock_ok = _libc.clock_getcpuclockid(self.host_pid, clock) == 0
        return pid

    def _identify(self) -> int | None:
        """The pid the kernel stamped on the first byte of the reply channel (None: it died)."""
        deadline = time.monotonic() + IDENTIFY_WALL_S
        space = socket.CMSG_SPACE(_UCRED.size)
        while time.monotonic() < deadline:
            select.select([self._reply], [], [], max(0.0, deadline - time.monotonic()))
            try:
                data, ancillary, _, _ = self._reply.recvmsg(1, space)
            except BlockingIOError:
                continue
            if not data:
                return None
            if data != worker.IDENTIFY:
                raise SandboxError(f"a bot process began with {data!r}, not its identity byte")
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid, _, _ = _UCRED.unpack(payload[: _UCRED.size])
                    return int(pid)
            raise SandboxError("the kernel attached no credentials to a bot's first byte")
        raise SandboxError(f"a bot process did not start within {IDENTIFY_WALL_S:g} s")

    def cpu_time(self) -> float | None:
        """CPU seconds the kernel has charged this process so far; None once it is gone."""
        if not self._clock_ok:
            return None
        try:
            return time.clock_gettime(self._clock.value)
        except OSError:
            return None

    def drain_output(self, cap: int) -> None:
        """Keep the first ``cap`` bytes the bot printed; count and drop the rest."""
        while True:
            try:
                chunk = os.read(self.output_fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                return
            room = max(0, cap - len(self.output))
            self.output += chunk[:room]
            self.output_dropped += len(chunk) - min(room, len(chunk))

    def oom_killed(self, exit_event: dict[str, Any]) -> bool:
        """Whether the kernel's OOM killer ended this bot (its own cgroup, or its container's)."""
        if int(exit_event.get("oom_kills", 0)) > 0:
            return True
        return self.zygote.oom_kills() > self._oom_baseline

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
        os.close(self.output_fd)
        self._reply.close()
        if pid is not None:
            self.zygote.kill(pid)
            self.zygote.forget(pid)
