"""C-function bots (the Snakes interface), referee side.

The bot's shared object runs in a sandboxed process (runner/bots/worker.py). This side writes
requests, waits for replies under watchdogs, and judges: CPU per move and per game is read from
the kernel's clock of that process, never from anything the process says; a reply is four bytes,
read with a cap; a death is explained from the zygote's wait4 report.
"""

from __future__ import annotations

import os
import select
import signal
import struct
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
LOAD_WALL_S = 5.0  # wall-clock limit for loading the shared object and saying hello
NAME_CHARS = 64
_REPLY = struct.Struct("<i")


def clean_name(raw: bytes, fallback: str) -> str:
    """A display name from untrusted bytes: printable, one line, at most NAME_CHARS."""
    text = raw.decode("utf-8", errors="replace")
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())[:NAME_CHARS]
    return text or fallback


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class CFunctionBot:
    """One C-function bot for one game."""

    def __init__(self, process: BotProcess, limits: BotLimits, fallback_name: str) -> None:
        self.process = process
        self.limits = limits
        self.fallback_name = fallback_name
        self.name = fallback_name
        self.cpu_used = 0.0  # CPU seconds charged for moves so far (kernel accounting)
        self.moves = 0
        self._poll = select.poll()
        for fd in (process.reply_fd, process.output_fd, process.zygote.fileno):
            self._poll.register(fd, select.POLLIN)

    # -- the game's calls -------------------------------------------------------------------------

    def start(self) -> str:
        """Wait until the bot is loaded; returns its bot_name (cleaned)."""
        self.process.ready()
        header = self._await(len(worker.HELLO_MAGIC) + 2, "while loading", loading=True)
        if header[: len(worker.HELLO_MAGIC)] != worker.HELLO_MAGIC:
            self.process.kill()
            raise BotProtocolError("wrote to the host's reply channel while loading")
        (length,) = struct.unpack("<H", header[len(worker.HELLO_MAGIC) :])
        if length > worker.NAME_CAP:
            self.process.kill()
            raise BotProtocolError("sent a malformed hello while loading")
        raw = self._await(length, "while loading", loading=True) if length else b""
        self.name = clean_name(raw, self.fallback_name)
        return self.name

    def ask(self, observation: bytes, turn: int) -> int:
        """The int the bot's function returned for this observation."""
        at = f"at turn {turn}"
        try:
            os.write(self.process.request_fd, observation)
        except BrokenPipeError:
            raise self._death(at) from None
        (value,) = _REPLY.unpack(self._await(_REPLY.size, at))
        self.moves += 1
        return int(value)

    def close(self) -> None:
        self.process.close()

    # -- watchdogs ------------------------------------------------------------------------------

    def _await(self, size: int, at: str, loading: bool = False) -> bytes:
        """Read exactly ``size`` reply bytes under the CPU and wall-clock limits."""
        limits = self.limits
        process = self.process
        move_cpu = limits.game_cpu_s if loading else limits.move_cpu_s
        wall = LOAD_WALL_S if loading else limits.move_wall_s
        start_cpu = process.cpu_time()
        if start_cpu is None:
            raise self._death(at)
        wall_deadline = time.monotonic() + wall
        data = b""
        while True:
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
                        chunk = os.read(fd, size - len(data))
                    except BlockingIOError:
                        continue
                    if not chunk:
                        raise self._death(at)
                    data += chunk
                    if len(data) == size:
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
        event = process.zygote.wait_exit(process.ready(), timeout=0.5)
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
