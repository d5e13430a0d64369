"""The referee's side of a sandboxed bot process: every byte to it or from it under watchdogs.

A move is one ``Exchange``: the host writes the request (non-blocking: a bot that does not read
its input cannot stall the host) and reads the reply, both under the move's limits. ``gather``
drives several exchanges at once — every seat that moves in a turn is asked together, each under
its own watchdog — and one exchange alone when seats take turns (``WatchedBot.exchange_alone``
takes a quick way through the usual such move, and hands the move to an Exchange at anything
else). CPU per move and per game is read from the kernel's clock of the bot's process, never
from anything the process says, and it runs from the end of the bot's previous move: CPU a bot
uses between its moves (on its opponent's time) counts against its next one. Wall-clock time is
a backstop. Replies are read with a cap; a reply that is already there before the host asks is a
fault. A death is explained from the zygote's wait4 report (signal, exit, OOM kill, a stop). The
two kinds of bot (runner/play/cabi.py: C functions; runner/play/stdio.py: programs) add only
their protocol.
"""

from __future__ import annotations

import math
import os
import select
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from runner.jail import zygote as zygote_program
from runner.play.faults import BotCrashed, BotFault, BotOutOfMemory, BotProtocolError, BotTimeout
from runner.sandbox.zygote_client import BotLimits, BotProcess, SandboxError

OUTPUT_CAP = 16 * 1024  # bytes of a bot's stdout/stderr kept per game
LOAD_WALL_S = 5.0  # wall-clock limit for loading a bot
EXIT_WALL_S = 0.5  # how long the news of a process's end may take once it is gone
READ_CHUNK = 4096
FINAL_READS = 4  # reads of a bot's output pipe as it is closed, 64 KiB each at most
_NOTHING = memoryview(b"")
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


# How far a move asked alone got on the quick way (``WatchedBot.exchange_alone``): where its CPU
# is counted from (the end of the bot's last move), the bot's clock when the move began, the
# wall-clock deadline, and the request's bytes written and the reply's read so far. (A plain
# tuple: made on every move.)
Progress = tuple[float, float, float, int, bytes]


@dataclass(frozen=True)
class Want:
    """What a reply is: ``size`` bytes exactly (``lines`` 0), or up to ``lines`` lines of at
    most ``size`` bytes each. With ``until_end`` a reply may also end with the bot (a program
    started for one move that wrote fewer lines and exited cleanly). With ``until_exit`` it is
    everything the bot writes until its process exits, at most ``size`` bytes: the move ends with
    the program (Domineering's arena), and a program that does not exit in time is late."""

    size: int
    lines: int = 0
    until_end: bool = False
    until_exit: bool = False

    @property
    def one_move(self) -> bool:
        """A program started for this move: its input ends once the request is written."""
        return self.until_end or self.until_exit


class WatchedBot:
    """One sandboxed bot process for one game."""

    # A program may compute between its moves (a C function cannot): then it runs only on CPU
    # nothing else wants (BotProcess.set_idle).
    idle_between_moves = False

    def __init__(self, process: BotProcess, limits: BotLimits, fallback_name: str) -> None:
        self.process = process
        self.limits = limits
        self.fallback_name = fallback_name
        self.name = fallback_name
        self.cpu_used = 0.0  # CPU seconds charged for moves so far (kernel accounting)
        self.moves = 0
        self.unread = b""  # reply bytes read past the end of the last reply
        self.outbox = b""  # bytes to send ahead of the next request (a game's first message)
        self.mark: float | None = None  # the bot's CPU clock when its last move (or load) ended
        self.poll = select.poll()  # its own fds, for a move asked alone
        for fd in (process.reply_fd, process.output_fd, process.zygote.fileno):
            self.poll.register(fd, _IN)
        self._reply_waiting = select.poll()
        self._reply_waiting.register(process.reply_fd, _IN)

    def close(self) -> None:
        """End the bot's process. What it wrote with its last replies and no move has read yet
        is read first, so that its output is whole (a few reads at most: it may be writing
        still)."""
        if not self.process.closed:
            self.process.drain_output(OUTPUT_CAP, reads=FINAL_READS)
        self.process.close()

    def prepare(self) -> None:
        """Nothing to get ready: the process runs for the whole game."""

    def started(self) -> None:
        """Wait until the sandbox has started the bot's process (and the kernel named it)."""
        try:
            self.process.ready()
        except SandboxError as exc:
            raise self.supervisor_lost("while starting", exc) from None

    def load(self, size: int) -> bytes:
        """The bot's first ``size`` bytes (its hello), within the loading limits."""
        reply = self.exchange(b"", Want(size), None, loading=True)
        self.mark = self.process.cpu_time()
        return reply

    def exchange(
        self,
        request: bytes,
        want: Want,
        turn: int | None,
        wall: float = 0.0,
        loading: bool = False,
    ) -> bytes:
        """One move asked alone: its reply, or its fault raised."""
        move = Exchange(self, request, want, turn, wall, loading)
        gather([move])
        if move.fault is not None:
            raise move.fault
        assert move.reply is not None
        return move.reply

    def exchange_alone(self, request: bytes, want: Want, turn: int, wall: float = 0.0) -> Exchange:
        """One move while no other seat's is in flight, driven to its end: an Exchange with its
        reply or its fault.

        The usual move takes the quick way: the bot idle since its last move and nothing waiting
        from it, the request taken whole by the pipe, then one wake-up with the reply channel
        readable and nothing else, and one read: the system calls an Exchange makes for such a
        move, without its bookkeeping on the way. If that read is a whole reply and the bot's
        clock is then within the move's and the game's limits, the move ends there (``_ended``).
        At anything else (news from the sandbox, output, a full pipe, a reply in pieces or none
        in time, a limit reached), the move goes on as an Exchange from where it got to
        (``Progress``), and it is judged by the same code as every other move: the reply read is
        taken, and the move's CPU charged, by the Exchange."""
        process, limits, mark = self.process, self.limits, self.mark
        if self.outbox or self.unread or mark is None or want.one_move:
            return driven(Exchange(self, request, want, turn, wall))
        now_cpu = process.cpu_time()
        if now_cpu is None:
            return driven(Exchange(self, request, want, turn, wall))
        used = now_cpu - mark
        game_left = limits.game_cpu_s - self.cpu_used - used
        if used > limits.move_cpu_s or game_left < 0 or self._reply_waiting.poll(0):
            return driven(Exchange(self, request, want, turn, wall))  # it says what is wrong
        wall = wall or limits.move_wall_s
        deadline = time.monotonic() + wall
        if self.idle_between_moves:
            process.set_idle(False)
        try:
            written = os.write(process.request_fd, request)
        except OSError:  # a full pipe (BlockingIOError) or a broken one: the Exchange sees which
            written = 0
        data, events = b"", []
        if written == len(request):
            wait = min(limits.move_cpu_s - used, wall, game_left)
            events = self.poll.poll(max(1.0, wait * 1000.0))
            if events == [(process.reply_fd, select.POLLIN)]:
                try:
                    data, events = os.read(process.reply_fd, READ_CHUNK), []
                except OSError:
                    pass  # the Exchange reads again
        progress = (mark, now_cpu, deadline, written, data)
        if data and not events and (ended := self._ended(want, turn, wall, progress)):
            return ended
        return self.resumed(request, want, turn, progress, events, wall)

    def resumed(
        self,
        request: bytes,
        want: Want,
        turn: int,
        progress: Progress,
        events: Sequence[tuple[int, int]],
        wall: float = 0.0,
    ) -> Exchange:
        """A move begun the quick way (here, or by a game's quick loop: runner/games/snakes/
        quick.py) and not seen to its usual end, driven to its end as an Exchange from where it
        got to: ``progress``, and the ``events`` its last poll woke to."""
        move = Exchange(self, request, want, turn, wall, progress=progress)
        for fd, happened in events:  # what else woke it is the Exchange's to handle, as drive's
            move.handle(fd, happened)
        return driven(move)

    def _ended(self, want: Want, turn: int, wall: float, progress: Progress) -> Exchange | None:
        """The quick way's usual end: the reply read is whole, and the bot's clock now is within
        the move's and the game's CPU limits. None for anything else."""
        mark, _, deadline, written, data = progress
        split = _split_reply(want, data)
        if not isinstance(split, tuple):
            return None
        end_cpu = self.process.cpu_time()
        if end_cpu is None:
            return None
        used = end_cpu - mark
        if used > self.limits.move_cpu_s or self.cpu_used + used > self.limits.game_cpu_s:
            return None
        self.mark, self.unread = end_cpu, split[1]
        self.cpu_used += used
        self.moved()
        done = (mark, end_cpu, deadline, written, b"")
        return Exchange.replied(self, split[0], want, turn, wall, done)

    def supervisor_lost(self, at: str, error: SandboxError) -> BotFault:
        """The zygote died, fell silent or said something malformed. Where it shares a
        container with this bot alone, that is the bot's doing: its loss.
        Elsewhere no bot can reach it: the host's machinery failed."""
        if self.process.zygote.untrusted:
            return BotCrashed(f"broke its sandbox's supervisor {at} ({error})")
        raise error

    def ahead(self, turn: int | None) -> None:
        """A reply that is there before the host asked: a fault (unless it is the bot's end)."""
        if not self.unread:
            waiting = self._reply_waiting.poll(0)
            if not any(events & (select.POLLIN | select.POLLPRI) for _, events in waiting):
                return  # nothing there, or it closed its end: the exchange finds out why
        self.process.kill()
        raise BotProtocolError(f"replied before it was asked at turn {turn}")

    def moved(self) -> None:
        """Its move is over: until the next, it computes only on CPU nothing else wants."""
        if self.idle_between_moves:
            self.process.set_idle(True)

    def charge(self, start_cpu: float, turn: int | None, seen: float = 0.0) -> None:
        """Count the CPU of turn ``turn``'s move, which began at ``start_cpu`` (``seen``: the
        most its clock was read at during the move)."""
        self.moved()
        end = self.process.cpu_time()
        self.mark = end
        if end is None and self.process.had_clock:
            end = self.cpu_at_exit(seen)  # it replied and ended (a bot started for one move)
        if end is None:  # it replied, then died: its death shows at the next request
            return
        used = end - start_cpu
        self.cpu_used += used
        if used > self.limits.move_cpu_s:
            self.process.kill()
            limit = self.limits.move_cpu_s * 1000
            raise BotTimeout(f"over {limit:g} ms CPU on one move at turn {turn}")
        if self.cpu_used > self.limits.game_cpu_s:
            self.process.kill()
            limit = self.limits.game_cpu_s
            raise BotTimeout(f"over the {limit:g} s CPU limit for a game at turn {turn}")

    def cpu_at_exit(self, seen: float) -> float | None:
        """The CPU a process that has ended used in all, from the kernel's count at its exit
        (wait4's rusage, as the zygote reports it), never less than its clock was seen at."""
        try:
            event = self.process.zygote.wait_exit(self.process.ready(), timeout=EXIT_WALL_S)
        except SandboxError:
            event = None
        if event is None:
            return None
        reported = _number(event.get("cpu"))
        return max(reported, seen) if math.isfinite(reported) else seen

    def check_events(self, at: str, exit_ends_move: bool = False) -> bool:
        """Act on the news of this bot filed so far (``Zygote.pump`` files it): a stop is a
        crash; an exit is its death, or with ``exit_ends_move`` (a program whose move ends as it
        exits) the end of its move: then True."""
        zygote = self.process.zygote
        for event in zygote.events_for(self.process.ready()):
            if event["event"] == "stopped":
                self.process.kill()
                name = _signal_name(int(_number(event.get("signal"))))
                raise BotCrashed(f"stopped itself with {name} {at}", name)
            if event["event"] == "exit":
                if exit_ends_move:
                    return True
                raise self.death(at)
        return False

    def death(self, at: str) -> BotFault:
        """Explain why the bot's channel closed, from the kernel's report of its process."""
        process = self.process
        try:
            event = process.zygote.wait_exit(process.ready(), timeout=EXIT_WALL_S)
        except SandboxError as exc:
            return self.supervisor_lost(at, exc)
        if event is None:  # alive, but it closed its end of the channel
            process.kill()
            return BotProtocolError(f"closed its channel to the host {at}")
        process.drain_output(OUTPUT_CAP)
        failure = event.get("setup_failed")
        if isinstance(failure, str) and failure:
            # Reported before any bot code ran, on a channel bot code never holds.
            error = SandboxError(f"the sandbox could not start {self.fallback_name}: {failure}")
            return self.supervisor_lost(at, error)
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
        if code == zygote_program.EXIT_LOAD_FAILED and self.moves == 0:
            return BotCrashed(f"could not be loaded: {self.output_text()}")
        return BotCrashed(f"exited with code {code} {at}")

    def output_text(self) -> str:
        text = bytes(self.process.output).decode("utf-8", errors="replace").strip()
        if self.process.output_dropped:
            text += f"\n… ({self.process.output_dropped} more bytes dropped)"
        return text


class Pending(Protocol):
    """A move in flight that ``gather`` drives: an ``Exchange`` with a sandboxed bot, or a move
    made another way (a person's at the keyboard, runner/play/human.py). ``done`` once it has
    its reply or its ``fault``; ``check`` enforces its limits now and says how long until it
    next must be checked; ``handle`` takes an event on one of its ``fds``."""

    fault: BotFault | None
    turn: int | None

    @property
    def done(self) -> bool: ...

    def fds(self) -> tuple[int, ...]:
        """Every fd whose events concern this move."""
        ...

    def inputs(self) -> tuple[int, ...]:
        """The fds of ``fds`` watched for input while the move is in flight."""
        ...

    def solo_poll(self) -> select.poll:
        """A poll of its ``inputs`` for when it is the only move in flight."""
        ...

    def watch(self, poll: select.poll) -> None:
        """Register what else it waits for in ``poll`` (a request still to be written)."""
        ...

    def unwatch(self) -> None:
        """Take back what ``watch`` registered."""
        ...

    def handle(self, fd: int, events: int) -> None: ...

    def check(self, now: float) -> float: ...


P = TypeVar("P", bound=Pending)


class Exchange:
    """One bot's move in flight: its request going out, its reply coming in, its limits.

    Made by ``WatchedBot.exchange`` and ``exchange_alone`` (a move asked alone) or by the
    referee for a turn whose seats move at once; ``gather`` drives it. Ends with ``reply`` set,
    or ``fault`` set (the bot's loss, in words). A host failure (SandboxError from a zygote no
    bot can reach) escapes.
    """

    __slots__ = (
        "bot",
        "want",
        "turn",
        "loading",
        "reply",
        "fault",
        "move_cpu",
        "wall",
        "out",
        "data",
        "writing",
        "start_cpu",
        "seen_cpu",
        "fresh_cpu",
        "deadline",
        "output_ended",
    )

    def __init__(
        self,
        bot: WatchedBot,
        request: bytes,
        want: Want,
        turn: int | None,
        wall: float = 0.0,
        loading: bool = False,
        progress: Progress | None = None,
    ) -> None:
        limits = bot.limits
        self.bot, self.want, self.turn, self.loading = bot, want, turn, loading
        self.reply: bytes | None = None
        self.fault: BotFault | None = None
        self.move_cpu = limits.game_cpu_s if loading else limits.move_cpu_s
        self.wall = LOAD_WALL_S if loading else (wall or limits.move_wall_s)
        self.out = memoryview(bot.outbox + request if bot.outbox else request)
        bot.outbox = b""
        self.data = b""
        self.writing: select.poll | None = None  # the poll the request fd is registered in
        self.start_cpu = 0.0
        self.seen_cpu = 0.0  # the bot's clock when last read during this move
        # Whether seen_cpu was read just now, as the move began: the first check of the move
        # uses it instead of reading the clock again (one system call a move fewer).
        self.fresh_cpu = False
        self.output_ended = False  # ``until_exit``: the bot has closed its reply channel
        try:
            if progress is None:
                self._begin()
            else:
                self._resume(progress)
        except BotFault as fault:
            self._failed(fault)
        except SandboxError as error:
            self._failed(bot.supervisor_lost(self.at, error))

    @classmethod
    def replied(
        cls, bot: WatchedBot, reply: bytes, want: Want, turn: int, wall: float, done: Progress
    ) -> Exchange:
        """A move asked alone that the quick way saw to its usual end (``exchange_alone``): its
        reply whole, its CPU charged (``done``: its progress, the clock read at its end).
        Nothing is left to do."""
        move = cls.__new__(cls)
        move.bot, move.want, move.turn, move.loading = bot, want, turn, False
        move.reply, move.fault, move.writing, move.fresh_cpu = reply, None, None, False
        move.move_cpu, move.wall, move.out = bot.limits.move_cpu_s, wall, _NOTHING
        move.start_cpu, move.seen_cpu, move.deadline, _, move.data = done
        move.output_ended = False
        return move

    @property
    def at(self) -> str:
        """When, for a fault's words: "at turn N" or "while loading"."""
        return "while loading" if self.loading else f"at turn {self.turn}"

    @property
    def done(self) -> bool:
        return self.reply is not None and not self.out or self.fault is not None

    def fds(self) -> tuple[int, ...]:
        process = self.bot.process
        return (process.reply_fd, process.request_fd, process.output_fd, process.zygote.fileno)

    def inputs(self) -> tuple[int, ...]:
        process = self.bot.process
        return (process.reply_fd, process.output_fd, process.zygote.fileno)

    def solo_poll(self) -> select.poll:
        return self.bot.poll

    def unwatch(self) -> None:
        self._unwatch_writes()

    def _begin(self) -> None:
        bot, process = self.bot, self.bot.process
        if bot.idle_between_moves:
            process.set_idle(False)
        now_cpu = process.cpu_time()
        if now_cpu is None:
            raise bot.death(self.at)
        self.start_cpu = now_cpu if self.loading or bot.mark is None else bot.mark
        self.seen_cpu, self.fresh_cpu = now_cpu, True
        if not self.loading:
            if now_cpu - self.start_cpu > self.move_cpu:
                process.kill()
                raise BotTimeout(
                    f"used over {self.move_cpu * 1000:g} ms of CPU between its moves, "
                    f"before turn {self.turn}"
                )
            bot.ahead(self.turn)
        self.data, bot.unread = bot.unread, b""
        self.deadline = time.monotonic() + self.wall
        if self.out:
            self.out = self.out[self._write() :]
        self._complete()

    def _resume(self, progress: Progress) -> None:
        """Go on with a move begun the quick way (``WatchedBot.exchange_alone``): what it wrote
        and read count as if this exchange had done it, and a whole reply ends the move here."""
        self.start_cpu, self.seen_cpu, self.deadline, written, self.data = progress
        self.out = self.out[written:]
        if self.data:
            self._complete()
            if self.done:
                self.bot.charge(self.start_cpu, self.turn, self.seen_cpu)

    def watch(self, poll: select.poll) -> None:
        """Register the request's fd in ``poll`` while some of it is still to be written."""
        if self.out and not self.done and self.writing is None:
            poll.register(self.bot.process.request_fd, _OUT)
            self.writing = poll

    def _unwatch_writes(self) -> None:
        if self.writing is not None:
            self.writing.unregister(self.bot.process.request_fd)
            self.writing = None

    def handle(self, fd: int, events: int) -> None:
        # A poll may report the reply and, with it, the bot's exit (a program started for one
        # move writes its line and ends): once the reply is complete the rest is not this
        # move's business — the exit is read with the next request, or when the bot is closed.
        if self.done:
            return
        try:
            self._handle(fd, events)
        except BotFault as fault:
            self._failed(fault)
        except SandboxError as error:
            self._failed(self.bot.supervisor_lost(self.at, error))

    def _failed(self, fault: BotFault) -> None:
        self.fault = fault
        self._unwatch_writes()

    def _handle(self, fd: int, events: int) -> None:
        bot, process = self.bot, self.bot.process
        if fd == process.reply_fd:
            self._on_reply_data()
        elif fd == process.request_fd:
            if not events & select.POLLOUT:
                raise bot.death(self.at)
            self.out = self.out[self._write() :]
            if not self.out:
                self._unwatch_writes()
        elif fd == process.output_fd:
            process.drain_output(OUTPUT_CAP)
        else:
            self._on_news()
        if self.reply is None:
            self._complete()
        if self.done and self.fault is None and not self.loading:
            bot.charge(self.start_cpu, self.turn, self.seen_cpu)

    def _on_news(self) -> None:
        """News from the sandbox. News of its end may come before its last words are read. First
        every piece of news there is, then every word: a bot's exit read now means all it wrote
        is in the channel (read the other way round, words written after the look at the channel
        but before the look at the news would be missed, and a reply taken for a death)."""
        self.bot.process.zygote.pump()
        self._drain()
        if self.reply is not None:
            return
        if self.want.until_exit:
            self._exit_known()
        else:
            self.bot.check_events(self.at)

    def _drain(self) -> None:
        """Read what the bot wrote before it ended. A process that replies and exits at once
        (a bot started for one move) may be reaped before its reply is read: its clock is gone
        and the zygote has reported its exit, but its reply is whole in the channel."""
        while self.reply is None:
            try:
                chunk = os.read(self.bot.process.reply_fd, READ_CHUNK)
            except OSError:  # nothing more yet (BlockingIOError), or the channel failed
                return
            if not chunk:
                self._at_end()
                return
            self.data += chunk
            self._complete()

    def _on_reply_data(self) -> None:
        try:
            chunk = os.read(self.bot.process.reply_fd, READ_CHUNK)
        except BlockingIOError:
            return
        if chunk and self.reply is not None:  # a second reply, unasked
            self.bot.process.kill()
            raise BotProtocolError(f"replied before it was asked {self.at}")
        if chunk:
            self.data += chunk
            return
        self._at_end()
        if self.output_ended:  # a program whose move ends as it exits: it may be known already
            self._exit_known()

    def _at_end(self) -> None:
        """The bot closed its end. A reply cut short by it still counts where the protocol lets
        it: an unterminated last line (as getline reads it), or fewer lines from a program that
        ran for this move only and ended cleanly. A program whose move ends as it exits has
        written its all: its exit is waited for (the channel silenced meanwhile)."""
        want, bot = self.want, self.bot
        if want.until_exit:
            if not self.output_ended:
                bot.process.silence_reply()
                self.output_ended = True
            return
        if want.lines and self.reply is None and not self.out:
            if want.until_end and self._ended_cleanly():
                self.reply, self.data = self.data, b""
                return
            if not want.until_end and self.data:
                self.reply, self.data = self.data, b""
                return
        raise bot.death(self.at)

    def _ended_cleanly(self) -> bool:
        process = self.bot.process
        event = process.zygote.wait_exit(process.ready(), timeout=EXIT_WALL_S)
        if event is None:
            return True  # it closed its output and lives on: its reply is what it wrote
        status = int(event["status"])
        clean = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if not clean:
            raise self.bot.death(self.at)
        return True

    def _complete(self) -> None:
        """Take the reply out of what was read, if it is all there (the rest stays unread)."""
        split = _split_reply(self.want, self.data)
        if split is None:
            return
        if isinstance(split, _TooLong):
            self.bot.process.kill()
            if self.want.until_exit:
                raise BotProtocolError(f"wrote more than {self.want.size} bytes {self.at}")
            raise BotProtocolError(f"sent a line longer than {self.want.size} bytes {self.at}")
        self.reply, self.bot.unread = split

    def _exit_known(self) -> None:
        """A program whose move ends as it exits: end the move now if its exit is known (the
        zygote's news of it, or its clock gone with its reaping)."""
        process = self.bot.process
        process.zygote.pump()
        if self.bot.check_events(self.at, exit_ends_move=True) or process.cpu_time() is None:
            self._exited()

    def _exited(self) -> None:
        """A program whose move ends as it exits has exited: its reply is all it wrote (read
        to the end here). How it ended does not matter once it wrote something (the arena read
        what a bot wrote, however it ended), but a limit that ended it does (its memory, its CPU
        time), and so does an unclean end with nothing written: then that is its fault."""
        self._drain()
        process = self.bot.process
        event = process.zygote.wait_exit(process.ready(), timeout=EXIT_WALL_S)
        status = int(event["status"]) if event is not None else -1
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            fault = self.bot.death(self.at)
            if not (self.data and type(fault) is BotCrashed):
                raise fault
        self.reply, self.data = self.data, b""

    def _write(self) -> int:
        """Write what the pipe takes now (it is non-blocking); how many bytes went."""
        try:
            written = os.write(self.bot.process.request_fd, self.out)
        except BlockingIOError:
            return 0
        except BrokenPipeError:
            raise self.bot.death(self.at) from None
        if written == len(self.out) and self.want.one_move:
            self.bot.process.end_input()  # a program started for this move reads to the end
        return written

    def check(self, now: float) -> float:
        """Enforce the limits now; the seconds until the next one could be reached."""
        try:
            return self._check(now)
        except BotFault as fault:
            self._failed(fault)
        except SandboxError as error:
            self._failed(self.bot.supervisor_lost(self.at, error))
        return 0.0

    def _check(self, now: float) -> float:
        bot, process, limits = self.bot, self.bot.process, self.bot.limits
        cpu = self.seen_cpu if self.fresh_cpu else process.cpu_time()
        self.fresh_cpu = False
        if cpu is None:  # it has ended, and been reaped
            self._drain()
            if self.reply is None and self.want.until_exit and not self.out:
                self._exited()
            if self.reply is None or self.out:
                raise bot.death(self.at)
            if not self.loading:
                bot.charge(self.start_cpu, self.turn, self.seen_cpu)
            return 0.0
        self.seen_cpu = cpu
        used = cpu - self.start_cpu
        game_left = limits.game_cpu_s - bot.cpu_used - used
        if used > self.move_cpu:
            process.kill()
            if self.loading:
                raise BotTimeout(f"over {limits.game_cpu_s:g} s CPU {self.at}")
            raise BotTimeout(f"over {self.move_cpu * 1000:g} ms CPU on one move {self.at}")
        if game_left < 0 and not self.loading:
            process.kill()
            raise BotTimeout(f"over the {limits.game_cpu_s:g} s CPU limit for a game {self.at}")
        if now >= self.deadline:
            self._late()
            return 0.0
        return min(
            self.move_cpu - used, self.deadline - now, game_left if not self.loading else self.wall
        )

    def _late(self) -> None:
        """The move's wall-clock time is up. What came is read first: the host may have been
        held up meanwhile (another seat's end waited for) while this reply was on time, and a
        seat is not late for that. A program whose move ends as it exits is late unless it has
        exited."""
        self._drain()
        if self.reply is None and self.want.until_exit and not self.out:
            self._exit_known()
        if self.reply is not None and not self.out:
            if not self.loading:
                self.bot.charge(self.start_cpu, self.turn, self.seen_cpu)
            return
        self.bot.process.kill()
        if self.out:
            raise BotTimeout(f"does not read its input {self.at}")
        if self.want.until_exit:
            raise BotTimeout(
                f"did not exit within {self.wall:g} s of wall-clock time {self.at} "
                "(its move ends when it exits)"
            )
        raise BotTimeout(f"no reply within {self.wall:g} s of wall-clock time {self.at}")


class _TooLong:
    """What ``_split_reply`` finds where a line is longer than a reply's lines may be."""


_TOO_LONG = _TooLong()


def _split_reply(want: Want, data: bytes) -> tuple[bytes, bytes] | _TooLong | None:
    """The reply ``data`` starts with and what follows it, None while it is not all there, or
    _TOO_LONG."""
    if want.until_exit:  # all there only once the bot has exited (``Exchange._exited``)
        return _TOO_LONG if len(data) > want.size else None
    if not want.lines:
        return (data[: want.size], data[want.size :]) if len(data) >= want.size else None
    end, count = 0, 0
    while count < want.lines:
        newline = data.find(b"\n", end)
        if newline < 0:
            break
        if newline - end > want.size:
            break
        end, count = newline + 1, count + 1
    if count == want.lines:
        return data[: end - 1], data[end:]
    return _TOO_LONG if len(data) - end > want.size else None


def _watched(pending: list[Pending]) -> tuple[select.poll, dict[int, list[Pending]]]:
    """A poll for several moves at once and, per fd, the moves it concerns (a zygote's socket
    may serve several bots)."""
    poll = select.poll()
    owners: dict[int, list[Pending]] = {}
    watched: set[int] = set()
    for move in pending:
        for fd in move.fds():
            owners.setdefault(fd, []).append(move)
        for fd in move.inputs():
            if fd not in watched:
                poll.register(fd, _IN)
                watched.add(fd)
        move.watch(poll)
    return poll, owners


def driven(move: P) -> P:
    """``move``, asked alone, driven to its end (its reply or its fault)."""
    if not move.done:
        drive(move)
    return move


def drive(move: Pending) -> None:
    """One move asked alone (seats taking turns): its own poll, nothing to share."""
    poll = move.solo_poll()
    move.watch(poll)
    try:
        while not move.done:
            wait = move.check(time.monotonic())
            if move.done:
                break
            for fd, events in poll.poll(max(1.0, wait * 1000.0)):
                move.handle(fd, events)
                move.watch(poll)
    finally:
        move.unwatch()


def _forget(
    poll: select.poll,
    owners: dict[int, list[Pending]],
    pending: list[Pending],
    still: list[Pending],
) -> None:
    """Stop watching the inputs of moves that are done and of no move still in flight: what a
    finished bot writes now waits for its next move, instead of waking this loop again and again
    while a slower move (a person's, taking its time) is still in flight."""
    for move in pending:
        if move in still:
            continue
        for fd in move.inputs():
            if not any(other in still for other in owners.get(fd, ())):
                try:
                    poll.unregister(fd)
                except KeyError:
                    pass  # another finished move shared it (a zygote's socket)


def gather(moves: Sequence[Pending]) -> None:
    """Drive every exchange until each has its reply or its fault: all seats of a turn are
    asked at once, and each is held to its own limits."""
    pending = [m for m in moves if not m.done]
    if len(pending) <= 1:
        for move in pending:
            drive(move)
        return
    poll, owners = _watched(pending)
    try:
        while pending:
            wait = min(move.check(time.monotonic()) for move in pending)
            for fd, events in poll.poll(max(1.0, wait * 1000.0)) if wait > 0 else ():
                for move in owners.get(fd, ()):
                    if not move.done:
                        move.handle(fd, events)
                        move.watch(poll)
            still = [m for m in pending if not m.done]
            if len(still) < len(pending):
                _forget(poll, owners, pending, still)
            pending = still
    finally:
        for move in moves:
            move.unwatch()
