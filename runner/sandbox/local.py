"""The local sandbox: bot processes forked from a warm zygote (runner/bots/worker.py).

The host starts one zygote per host process and keeps it for the whole run; each game gets fresh
bot processes forked from it (~2 ms here, against ~60 ms for a fresh interpreter that imports cffi).
What the walls are is documented in worker.py; this module is the host's end: spawning, the
kernel's CPU clock of each bot, exit reports, and kills.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.bots import worker

_libc = ctypes.CDLL(None, use_errno=True)


class SandboxError(RuntimeError):
    """The host's own machinery failed (not a bot's fault)."""


@dataclass(frozen=True)
class BotLimits:
    move_cpu_s: float
    game_cpu_s: float
    move_wall_s: float
    memory_bytes: int


class Zygote:
    """The host's end of one zygote process."""

    def __init__(self) -> None:
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = host_end
        self._events: dict[int, list[dict[str, Any]]] = {}
        self._pending: list[BotProcess] = []  # spawned, in request order, awaiting their pid
        self._process = subprocess.Popen(
            [sys.executable, "-I", worker.__file__, "--control-fd", str(zygote_end.fileno())],
            pass_fds=[zygote_end.fileno()],
            stdin=subprocess.DEVNULL,
            env={"PATH": os.defpath},
            start_new_session=True,
        )
        zygote_end.close()
        self.pid = self._process.pid
        ready = self._next_event(timeout=30.0)
        if ready is None or ready.get("event") != "ready":
            self.close()
            raise SandboxError(f"the bot zygote did not start (it said {ready!r})")
        self.is_root = bool(ready["root"])
        self.netns = bool(ready.get("netns"))
        self.memory_cgroups = bool(ready.get("memory_cgroups"))
        if self.is_root and not self.netns:
            print(
                "koth: warning: running as root but the kernel refused a new network namespace "
                "(an unprivileged container?); bots keep the host's network view, limited only "
                "by the descriptor limit",
                file=sys.stderr,
            )

    @property
    def fileno(self) -> int:
        return self._sock.fileno()

    def _next_event(self, timeout: float | None) -> dict[str, Any] | None:
        ready, _, _ = select.select([self._sock], [], [], timeout)
        if not ready:
            return None
        data = self._sock.recv(1 << 16)
        if not data:
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

    def spawn(self, so_path: Path, jail: Path, limits: BotLimits) -> BotProcess:
        request = {
            "op": "spawn",
            "so": str(so_path),
            "jail": str(jail),
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "cpu_seconds": max(1, int(limits.game_cpu_s + 1.999)),
            },
        }
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        output_r, output_w = os.pipe()
        try:
            socket.send_fds(
                self._sock, [json.dumps(request).encode()], [request_r, reply_w, output_w]
            )
        finally:
            for fd in (request_r, reply_w, output_w):
                os.close(fd)
        for fd in (reply_r, output_r):
            os.set_blocking(fd, False)
        process = BotProcess(self, request_w, reply_r, output_r)
        self._pending.append(process)
        return process

    def await_pid(self, process: BotProcess) -> int:
        """The pid of a spawned bot; spawn() does not wait, so that bots start side by side."""
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
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


class BotProcess:
    """One sandboxed bot process, as the host sees it: pipes, the kernel's clocks, exit reports."""

    def __init__(self, zygote: Zygote, request_fd: int, reply_fd: int, output_fd: int) -> None:
        self.zygote = zygote
        self.pid: int | None = None  # known once the zygote has answered: see ready()
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.output_fd = output_fd
        self.output = bytearray()
        self.output_dropped = 0
        self._clock = ctypes.c_int()
        self._clock_ok = False
        self.closed = False

    def ready(self) -> int:
        """Wait for the zygote's answer; returns the bot's pid."""
        pid = self.zygote.await_pid(self)
        if not self._clock_ok:
            self._clock_ok = _libc.clock_getcpuclockid(pid, ctypes.byref(self._clock)) == 0
        return pid

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

    def kill(self) -> None:
        self.zygote.kill(self.ready())

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for fd in (self.request_fd, self.reply_fd, self.output_fd):
            os.close(fd)
        pid = self.ready()
        self.zygote.kill(pid)
        self.zygote.forget(pid)


def _compiler_limits(wall_s: float) -> None:
    """Runs in the compiler's child process before exec."""
    import resource

    cpu = max(1, int(wall_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class LocalSandbox:
    """Compiles with the machine's gcc under rlimits; runs bots forked from a warm zygote."""

    name = "local"

    def __init__(self) -> None:
        self._zygote: Zygote | None = None

    @property
    def zygote(self) -> Zygote:
        if self._zygote is None:
            self._zygote = Zygote()
        return self._zygote

    def run_compiler(self, command: list[str], cwd: Path, wall_s: float) -> tuple[int, str]:
        """Run a compiler command; returns (exit code, its output). Exit code -1: out of time."""
        try:
            done = subprocess.run(
                command,
                cwd=cwd,
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=wall_s,
                preexec_fn=lambda: _compiler_limits(wall_s),
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return -1, f"the compiler ran longer than {wall_s:g} s"
        except FileNotFoundError:
            return 127, f"{command[0]} is not installed on this machine"
        return done.returncode, done.stdout[:65536].decode("utf-8", errors="replace")

    def spawn(self, jail: Path, limits: BotLimits) -> BotProcess:
        return self.zygote.spawn(jail / "bot.so", jail, limits)

    def close(self) -> None:
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None
