"""The referee's side of a sandboxed bot process: every read under watchdogs.

CPU per move and per game is read from the kernel's clock of the bot's process, never from
anything the process says; wall-clock time is a backstop; replies are read with a cap; a death is
explained from the zygote's wait4 report (signal, exit, OOM kill, a stop). The two kinds of bot
(runner/bots/cabi.py: C functions; runner/bots/stdio.py: programs) add only their protocol.
"""

from __future__ import annotations

import os
import select
import signal
import time

from runner.bots import worker
from runner.bots.faults import (
    BotCrashed,
    BotFault,
    BotOutOfMemory,
    BotProtocolError,
    BotTimeout,
)
from runner.sandbox.zygote import BotLimits, BotProcess, SandboxError

OUTPUT_CAP = 16 * 1024  # bytes of a bot's stdout/stderr kept per game
LOAD_WALL_S = 5.0  # wall-clock limit for loading a bot


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class WatchedBot:
    """One sandboxed bot process for one game."""

    def __init__(self, process: BotProcess, limits: BotLimits, fallback_name: str) -> None:
        self.process = process
        self.limits = limits
        self.fallback_name = fallback_name
        self.name = fallback_name
        self.cpu_used = 0.0  # CPU seconds charged for moves so far (kernel accounting)
        self.moves = 0
        self._unread = b""  # reply bytes read past the end of the last line (stdio bots)
        self._poll = select.poll()
        for fd in (process.reply_fd, process.output_fd, process.zygote.fileno):
            self._poll.register(fd, select.POLLIN)

    def close(self) -> None:
        self.process.close()

    def _await(
        self, size: int, at: str, loading: bool = False, line: bool = False, wall: float = 0.0
    ) -> bytes:
        try:
            return self._watch(size, at, loading, line, wall)
        except SandboxError:
            raise self._supervisor_lost(at) from None

    def _supervisor_lost(self, at: str) -> BotFault:
        """The zygote died. Where bots can reach it (a container of this entry's own), this bot
        killed it: its loss. Elsewhere no bot can, so the host's machinery failed."""
        zygote = self.process.zygote
        if zygote.dead and zygote.bots_can_reach:
            return BotCrashed(f"killed its sandbox's supervisor {at}")
        raise SandboxError("the bot zygote exited unexpectedly")

    def _watch(self, size: int, at: str, loading: bool, line: bool, wall: float) -> bytes:
        """Read exactly ``size`` reply bytes — or, with ``line``, one line of at most ``size``
        bytes — under the CPU and wall-clock limits (``wall``: this move's, if not the usual)."""
        limits = self.limits
        process = self.process
        move_cpu = limits.game_cpu_s if loading else limits.move_cpu_s
        wall = LOAD_WALL_S if loading else (wall or limits.move_wall_s)
        start_cpu = process.cpu_time()
        if start_cpu is None:
            raise self._death(at)
        wall_deadline = time.monotonic() + wall
        data, self._unread = self._unread, b""
        while True:
            if line and b"\n" in data:
                reply, _, self._unread = data.partition(b"\n")
                if not loading:
                    self._charge(start_cpu, at)
                return reply
            if line and len(data) > size:
                process.kill()
                raise BotProtocolError(f"sent a line longer than {size} bytes {at}")
            cpu = process.cpu_time()
            if cpu is None:
                raise self._death(at)
            used = cpu - start_cpu
            game_left = limits.game_cpu_s - self.cpu_used - used
            if used > move_cpu:
                process.kill()
                if loading:
                    raise BotTimeout(f"over {limits.game_cpu_s:g} s CPU {at}")
                raise BotTimeout(f"over {limits.move_cpu_s * 1000:g} ms CPU on one move {at}")
            if game_left < 0 and not loading:
                process.kill()
                raise BotTimeout(f"over the {limits.game_cpu_s:g} s CPU limit for a game {at}")
            now = time.monotonic()
            if now >= wall_deadline:
                process.kill()
                raise BotTimeout(f"no reply within {wall:g} s of wall-clock time {at}")
            left = min(move_cpu - used, wall_deadline - now, game_left if not loading else wall)
            for fd, _ in self._poll.poll(max(1.0, left * 1000.0)):
                if fd == process.reply_fd:
                    try:
                        chunk = os.read(fd, 4096 if line else size - len(data))
                    except BlockingIOError:
                        continue
                    if not chunk:
                        raise self._death(at)
                    data += chunk
                    if not line and len(data) == size:
                        if not loading:
                            self._charge(start_cpu, at)
                        return data
                elif fd == process.output_fd:
                    process.drain_output(OUTPUT_CAP)
                else:
                    self._check_events(at)

    def _charge(self, start_cpu: float, at: str) -> None:
        end = self.process.cpu_time()
        if end is None:  # it replied, then died: its death shows at the next request
            return
        used = end - start_cpu
        self.cpu_used += used
        if used > self.limits.move_cpu_s:
            self.process.kill()
            raise BotTimeout(f"over {self.limits.move_cpu_s * 1000:g} ms CPU on one move {at}")
        if self.cpu_used > self.limits.game_cpu_s:
            self.process.kill()
            raise BotTimeout(f"over the {self.limits.game_cpu_s:g} s CPU limit for a game {at}")

    def _check_events(self, at: str) -> None:
        zygote = self.process.zygote
        zygote.pump()
        for event in zygote.events_for(self.process.ready()):
            if event["event"] == "stopped":
                self.process.kill()
                raise BotCrashed(
                    f"stopped itself with {_signal_name(event['signal'])} {at}",
                    _signal_name(event["signal"]),
                )
            if event["event"] == "exit":
                raise self._death(at)

    def _death(self, at: str) -> BotFault:
        """Explain why the bot's channel closed, from the kernel's report of its process."""
        process = self.process
        try:
            event = process.zygote.wait_exit(process.ready(), timeout=0.5)
        except SandboxError:
            return self._supervisor_lost(at)
        if event is None:  # alive, but it closed its end of the channel
            process.kill()
            return BotProtocolError(f"closed its channel to the host {at}")
        process.drain_output(OUTPUT_CAP)
        status = int(event["status"])
        if process.oom_killed(event):
            return BotOutOfMemory(
                f"over the {self.limits.memory_bytes >> 20} MiB memory limit {at}"
            )
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = _signal_name(number)
            if number == signal.SIGXCPU or (
                number == signal.SIGKILL and float(event["cpu"]) >= self.limits.game_cpu_s
            ):
                return BotTimeout(
                    f"over the {self.limits.game_cpu_s:g} s CPU limit for a game {at}"
                )
            if number == signal.SIGXFSZ:
                return BotCrashed(f"SIGXFSZ {at}: bots may not write files", name)
            return BotCrashed(f"{name} {at}", name)
        code = os.WEXITSTATUS(status)
        if code == worker.EXIT_SETUP_FAILED:
            raise SandboxError(f"the sandbox could not be set up: {self.output_text()}")
        if code == worker.EXIT_LOAD_FAILED:
            return BotCrashed(f"could not be loaded: {self.output_text()}")
        return BotCrashed(f"exited with code {code} {at}")

    def output_text(self) -> str:
        text = bytes(self.process.output).decode("utf-8", errors="replace").strip()
        if self.process.output_dropped:
            text += f"\n… ({self.process.output_dropped} more bytes dropped)"
        return text
