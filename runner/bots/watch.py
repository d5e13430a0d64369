"""The referee's side of a sandboxed bot process: every byte to it or from it under watchdogs.

A move is one exchange: the host writes the request (non-blocking: a bot that does not read its
input cannot stall the host) and reads the reply, both under the move's limits. CPU per move and
per game is read from the kernel's clock of the bot's process, never from anything the process
says, and it runs from the end of the bot's previous move: CPU a bot uses between its moves (on
its opponent's time) counts against its next one. Wall-clock time is a backstop. Replies are read
with a cap; a reply that is already there before the host asks is a fault. A death is explained
from the zygote's wait4 report (signal, exit, OOM kill, a stop). The two kinds of bot
(runner/bots/cabi.py: C functions; runner/bots/stdio.py: programs) add only their protocol.
"""

from __future__ import annotations

import os
import select
import signal
import socket
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
READ_CHUNK = 4096
_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR
_OUT = select.POLLOUT | select.POLLHUP | select.POLLERR


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _number(value: object) -> float:
    """A number from a zygote's report (checked: a container's zygote is untrusted)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


class WatchedBot:
    """One sandboxed bot process for one game."""

    def __init__(self, process: BotProcess, limits: BotLimits, fallback_name: str) -> None:
        self.process = process
        self.limits = limits
        self.fallback_name = fallback_name
        self.name = fallback_name
        self.cpu_used = 0.0  # CPU seconds charged for moves so far (kernel accounting)
        self.moves = 0
        self._unread = b""  # reply bytes read past the end of the last reply
        self._outbox = b""  # bytes to send ahead of the next request (a game's first message)
        self._mark: float | None = None  # the bot's CPU clock when its last move (or load) ended
        self._poll = select.poll()
        for fd in (process.reply_fd, process.output_fd, process.zygote.fileno):
            self._poll.register(fd, _IN)
        self._reply_waiting = select.poll()
        self._reply_waiting.register(process.reply_fd, _IN)

    def close(self) -> None:
        self.process.close()

    def started(self) -> None:
        """Wait until the sandbox has started the bot's process (and the kernel named it)."""
        try:
            self.process.ready()
        except SandboxError as exc:
            raise self._supervisor_lost("while starting", exc) from None

    def load(self, size: int) -> bytes:
        """The bot's first ``size`` bytes (its hello), within the loading limits."""
        reply = self._exchange(b"", size, "while loading", None, loading=True)
        self._mark = self.process.cpu_time()
        return reply

    def exchange(
        self, request: bytes, size: int, turn: int, line: bool, wall: float = 0.0
    ) -> bytes:
        """One move: send ``request`` and read the reply — ``size`` bytes, or with ``line`` one
        line of at most ``size`` bytes — within this move's limits (``wall``: its wall-clock
        limit, if not the usual)."""
        return self._exchange(request, size, f"at turn {turn}", turn, line=line, wall=wall)

    def _exchange(
        self,
        request: bytes,
        size: int,
        at: str,
        turn: int | None,
        loading: bool = False,
        line: bool = False,
        wall: float = 0.0,
    ) -> bytes:
        try:
            return self._watch(request, size, at, turn, loading, line, wall)
        except SandboxError as exc:
            raise self._supervisor_lost(at, exc) from None

    def _supervisor_lost(self, at: str, error: SandboxError) -> BotFault:
        """The zygote died, fell silent or said something malformed. Where it shares a
        container with this entry's bots only, that is the entry's doing: this bot's loss.
        Elsewhere no bot can reach it: the host's machinery failed."""
        if self.process.zygote.untrusted:
            return BotCrashed(f"broke its sandbox's supervisor {at} ({error})")
        raise error

    def _ahead(self, turn: int | None) -> None:
        """A reply that is there before the host asked: a fault (unless it is the bot's end)."""
        if not self._unread:
            if not self._reply_waiting.poll(0):
                return
            try:
                peeked = self.process.reply_socket.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError:
                peeked = b""
            if not peeked:
                return  # it closed its end: the exchange finds out why
        self.process.kill()
        raise BotProtocolError(f"replied before it was asked at turn {turn}")

    def _watch(
        self,
        request: bytes,
        size: int,
        at: str,
        turn: int | None,
        loading: bool,
        line: bool,
        wall: float,
    ) -> bytes:
        """Write ``request`` and read a reply under the CPU and wall-clock limits."""
        limits = self.limits
        process = self.process
        move_cpu = limits.game_cpu_s if loading else limits.move_cpu_s
        wall = LOAD_WALL_S if loading else (wall or limits.move_wall_s)
        now_cpu = process.cpu_time()
        if now_cpu is None:
            raise self._death(at)
        start_cpu = now_cpu if loading or self._mark is None else self._mark
        if not loading:
            if now_cpu - start_cpu > move_cpu:
                process.kill()
                raise BotTimeout(
                    f"used over {move_cpu * 1000:g} ms of CPU between its moves, before turn {turn}"
                )
            self._ahead(turn)
        wall_deadline = time.monotonic() + wall
        out = memoryview(self._outbox + request)
        self._outbox = b""
        writing = False
        if out:
            out = out[self._write(out, at) :]
            if out:
                self._poll.register(process.request_fd, _OUT)
                writing = True
        data, self._unread = self._unread, b""
        reply: bytes | None = None
        try:
            while True:
                if reply is None:
                    reply = self._complete(data, size, line, at)
                if reply is not None and not out:
                    if not loading:
                        self._charge(start_cpu, at)
                    return reply
                cpu = process.cpu_time()
                if cpu is None:
                    raise self._death(at)
                used = cpu - start_cpu
                game_left = limits.game_cpu_s - self.cpu_used - used
                if used > move_cpu:
                    process.kill()
                    if loading:
                        raise BotTimeout(f"over {limits.game_cpu_s:g} s CPU {at}")
                    raise BotTimeout(f"over {move_cpu * 1000:g} ms CPU on one move {at}")
                if game_left < 0 and not loading:
                    process.kill()
                    raise BotTimeout(f"over the {limits.game_cpu_s:g} s CPU limit for a game {at}")
                now = time.monotonic()
                if now >= wall_deadline:
                    process.kill()
                    if out:
                        raise BotTimeout(f"does not read its input {at}")
                    raise BotTimeout(f"no reply within {wall:g} s of wall-clock time {at}")
                left = min(move_cpu - used, wall_deadline - now, game_left if not loading else wall)
                for fd, events in self._poll.poll(max(1.0, left * 1000.0)):
                    if fd == process.reply_fd:
                        chunk = self._read(fd, at)
                        if chunk == b"" and line and reply is None and data and not out:
                            # Its last line, unterminated, as it ended: a line all the same
                            # (as getline reads it). Its end shows at its next move, if any.
                            reply, self._unread = data, b""
                            continue
                        if chunk == b"":
                            raise self._death(at)
                        if chunk is not None and reply is not None:  # more than one reply
                            process.kill()
                            raise BotProtocolError(f"replied before it was asked {at}")
                        if chunk is not None:
                            data += chunk
                    elif fd == process.request_fd:
                        if not events & select.POLLOUT:
                            raise self._death(at)
                        out = out[self._write(out, at) :]
                        if not out:
                            self._poll.unregister(fd)
                            writing = False
                    elif fd == process.output_fd:
                        process.drain_output(OUTPUT_CAP)
                    else:
                        self._check_events(at)
        finally:
            if writing:
                self._poll.unregister(process.request_fd)

    def _complete(self, data: bytes, size: int, line: bool, at: str) -> bytes | None:
        """The reply, if ``data`` holds a whole one (keeping what follows it as unread)."""
        if line:
            if b"\n" in data:
                reply, _, self._unread = data.partition(b"\n")
                return reply
            if len(data) > size:
                self.process.kill()
                raise BotProtocolError(f"sent a line longer than {size} bytes {at}")
            self._unread = data
            return None
        if len(data) >= size:
            self._unread = data[size:]
            return data[:size]
        self._unread = data
        return None

    def _write(self, out: memoryview, at: str) -> int:
        """Write what the pipe takes now (it is non-blocking); how many bytes went."""
        try:
            return os.write(self.process.request_fd, out)
        except BlockingIOError:
            return 0
        except BrokenPipeError:
            raise self._death(at) from None

    def _read(self, fd: int, at: str) -> bytes | None:
        """What the bot wrote (b"" at its end), or None if nothing was there after all."""
        try:
            return os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return None

    def _charge(self, start_cpu: float, at: str) -> None:
        end = self.process.cpu_time()
        self._mark = end
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
                name = _signal_name(int(_number(event.get("signal"))))
                raise BotCrashed(f"stopped itself with {name} {at}", name)
            if event["event"] == "exit":
                raise self._death(at)

    def _death(self, at: str) -> BotFault:
        """Explain why the bot's channel closed, from the kernel's report of its process."""
        process = self.process
        try:
            event = process.zygote.wait_exit(process.ready(), timeout=0.5)
        except SandboxError as exc:
            return self._supervisor_lost(at, exc)
        if event is None:  # alive, but it closed its end of the channel
            process.kill()
            return BotProtocolError(f"closed its channel to the host {at}")
        process.drain_output(OUTPUT_CAP)
        failure = event.get("setup_failed")
        if isinstance(failure, str) and failure:
            # Reported before any bot code ran, on a channel bot code never holds.
            error = SandboxError(f"the sandbox could not start {self.fallback_name}: {failure}")
            return self._supervisor_lost(at, error)
        status = int(event["status"])
        if process.oom_killed(event):
            return BotOutOfMemory(
                f"over the {self.limits.memory_bytes >> 20} MiB memory limit {at}"
            )
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = _signal_name(number)
            if number == signal.SIGXCPU or (
                number == signal.SIGKILL and _number(event.get("cpu")) >= self.limits.game_cpu_s
            ):
                return BotTimeout(
                    f"over the {self.limits.game_cpu_s:g} s CPU limit for a game {at}"
                )
            if number == signal.SIGXFSZ:
                return BotCrashed(f"SIGXFSZ {at}: bots may not write files", name)
            return BotCrashed(f"{name} {at}", name)
        code = os.WEXITSTATUS(status)
        if code == worker.EXIT_LOAD_FAILED and self.moves == 0:
            return BotCrashed(f"could not be loaded: {self.output_text()}")
        return BotCrashed(f"exited with code {code} {at}")

    def output_text(self) -> str:
        text = bytes(self.process.output).decode("utf-8", errors="replace").strip()
        if self.process.output_dropped:
            text += f"\n… ({self.process.output_dropped} more bytes dropped)"
        return text
