"""A bot run under a tool of its author's choice (gdb, valgrind, strace), OUTSIDE the sandbox.

This is for debugging one's own bot on one's own machine: the bot runs as the user who runs
koth, with the user's environment, with no wall and no limit (a debugger stops it for as long as
it likes), and reads the exact inputs of its seat from the replayer. Its build is a debug copy of
the usual one: the same compiler and flags plus ``-g`` (which changes no generated code), made in
a scratch folder from the entry's own files, its sources mapped back to the entry's folder.

How the bot is wired, so that the tool keeps the terminal:

- a program (``stdio`` games, whole game or one move): ``PREFIX COMMAND`` with the program's
  stdin and stdout on the replayer's pipes; stderr (the tool's, the bot's) is the terminal. gdb
  reads its commands from stdin, so under gdb (``gdb``, ``gdb-multiarch``) gdb keeps the
  terminal and starts the program with ``set args … <&R >&W``: gdb's shell puts the pipes on
  the program's stdin and stdout;
- a C function: a small host program, made from the game's ``CAbi`` (``host_source``), linked
  with the bot's ``bot.so``: it reads each request from a pipe (a four-byte turn, then the
  arguments' bytes), calls the function and writes the int it returns to another pipe, whose
  numbers are its two arguments; stdin, stdout and stderr stay the terminal's (so a bot's
  ``printf`` shows). ``koth_turn`` holds the turn of the call under way: ``break bot if
  koth_turn == 37``.

A program started afresh for every move is started (under the tool) for every move.
"""

from __future__ import annotations

import os
import shlex
import signal
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.common import languages
from runner.common.safefiles import UnsafeFileError, copy_tree
from runner.games.base import Termination
from runner.games.spec import UNTIL_EXIT, CAbi, CFunctionCodec, GameSpec
from runner.play.stdio import LINE_CAP, REPLY_CAP
from runner.sandbox.local import COMPILE, LINK, support_files
from runner.tools.replay.feed import Answer, decoded, fault
from runner.tools.replay.transcript import Ask

DEBUGGERS = ("gdb", "gdb-multiarch")  # tools that read their commands from stdin
READ = 1 << 16
SETTLE_S = 30.0  # after the last ask, how long a tool other than a debugger may take to end


class OutsideError(Exception):
    """The debug build or the tool failed to start (one paragraph: what and the fix)."""


def is_debugger(prefix: list[str]) -> bool:
    return bool(prefix) and Path(prefix[0]).name in DEBUGGERS


# -- the debug build -----------------------------------------------------------------------------


def _run(argv: list[str], cwd: Path, wall_s: float, what: str) -> None:
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, timeout=wall_s, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OutsideError(f"the debug build could not {what}: {exc}") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).decode("utf-8", errors="replace").strip()
        raise OutsideError(f"the debug build could not {what}:\n{output}")


def _c_type(ctype: str, name: str) -> str:
    """``name`` declared with an argument's C type: ``int[16][32]`` → ``int a[16][32]``."""
    base, _, dims = ctype.partition("[")
    return f"{base.strip()} {name}{'[' + dims if dims else ''}"


def host_source(abi: CAbi) -> str:
    """The C source of the host program for a C-function bot of signature ``abi``."""
    declare, fill, names = [], [], []
    offset = 4  # after the turn
    for number, arg in enumerate(abi.args, 1):
        name = f"a{number}"
        names.append(name)
        if arg.read == "widen":
            declare.append(f"    static {_c_type(arg.ctype, name)};")
            fill.append(
                f"        for (size_t i = 0; i < {arg.size}; i++) "
                f"((int *){name})[i] = request[{offset} + i];"
            )
        elif arg.read == "byte":
            declare.append(f"    {_c_type(arg.ctype, name)};")
            fill.append(f"        {name} = (char)request[{offset}];")
        else:
            declare.append(f"    {_c_type(arg.ctype, name)};")
            fill.append(f"        {name} = little_endian(request + {offset});")
        offset += arg.size
    return _HOST.format(
        cdef=abi.cdef.strip(),
        function=abi.function,
        size=offset,
        declare="\n".join(declare),
        fill="\n".join(fill),
        args=", ".join(names),
    )


_HOST = """\
/* The host `koth replay` runs a C-function bot in outside the sandbox: it calls the bot's
 * function once per request read from the pipe named by its first argument (a four-byte turn,
 * then the arguments' bytes) and writes each int returned to the pipe named by its second.
 * Made from the game's signature; linked with bot.so. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

{cdef}

volatile int koth_turn; /* the turn of the call under way: `break {function} if koth_turn == 37` */
volatile int koth_call; /* how many calls so far, this one included */

static int read_exactly(int fd, unsigned char *buffer, size_t size) {{
    size_t got = 0;
    while (got < size) {{
        ssize_t count = read(fd, buffer + got, size - got);
        if (count <= 0) return 0;
        got += (size_t)count;
    }}
    return 1;
}}

static int32_t little_endian(const unsigned char *b) {{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24);
}}

int main(int argc, char **argv) {{
    static unsigned char request[{size}];
{declare}
    if (argc != 3) return 2;
    int in = atoi(argv[1]), out = atoi(argv[2]);
    while (read_exactly(in, request, sizeof request)) {{
        koth_turn = little_endian(request);
        koth_call++;
{fill}
        int32_t value = {function}({args});
        unsigned char answer[4] = {{(unsigned char)value, (unsigned char)(value >> 8),
                                   (unsigned char)(value >> 16), (unsigned char)(value >> 24)}};
        if (write(out, answer, 4) != 4) return 1;
    }}
    return 0;
}}
"""


def debug_build(
    spec: GameSpec, source: Path, language: str, scratch: Path, wall_s: float
) -> list[str]:
    """Build the entry in ``source`` for debugging into ``scratch``; the command that runs it
    there (in ``scratch``)."""
    try:
        copy_tree(source, scratch)
    except UnsafeFileError as exc:
        raise OutsideError(str(exc)) from None
    debug = ["-g", f"-fdebug-prefix-map={scratch}={source.resolve()}"]
    if spec.interface == "c-function":
        abi = _abi(spec)
        support_files(languages.C_FUNCTION, scratch, abi.cdef)
        _run([*COMPILE, *debug], scratch, wall_s, "compile bot.c")
        _run([*LINK, "-g"], scratch, wall_s, "link bot.so")
        (scratch / "koth-host.c").write_text(host_source(abi))
        host = ["gcc", "-std=c11", "-g", "-O0", "-Wall", "koth-host.c", "-o", "koth-host"]
        _run([*host, "./bot.so", "-Wl,-rpath,$ORIGIN"], scratch, wall_s, "build its host")
        return ["./koth-host"]
    row = languages.find(language)
    support_files(language, scratch)
    for step in row.build:
        # Linked dynamically: valgrind then sees the C library's malloc (the season's static
        # link leaves it blind to the heap). The bot's own code compiles the same.
        argv = [a for a in step if a != "-static"]
        if row.own and argv[0] in ("gcc", "g++"):
            argv += debug
        _run(argv, scratch, wall_s, f"build the {row.name} bot")
    return row.command(256 << 20)


def _abi(spec: GameSpec) -> CAbi:
    codec: CFunctionCodec[Any, Any] = spec.codec  # type: ignore[assignment]
    return codec.abi


# -- running it ----------------------------------------------------------------------------------


class Outside:
    """A ``Runner`` (runner/tools/replay/feed.py) for the bot built by ``debug_build``, under
    ``prefix``. ``say`` tells the user what runs."""

    def __init__(
        self,
        spec: GameSpec,
        command: list[str],
        cwd: Path,
        prefix: list[str],
        say: Callable[[str], None],
    ) -> None:
        self.spec, self.command, self.cwd, self.prefix, self.say = spec, command, cwd, prefix, say
        self.debugger = is_debugger(prefix)
        self.settle = None if self.debugger else SETTLE_S  # a debugger ends when its user says
        self.process: subprocess.Popen[bytes] | None = None
        self.to_bot = self.from_bot = -1
        self.unread = b""
        self.status: int | None = None  # the tool's exit status, once it ended
        self._interrupt: Any = None

    def _argv(self, command: list[str], program_fds: str) -> list[str]:
        """``prefix`` + ``command``; under gdb, the program's arguments (and for a program, the
        redirection of its stdin and stdout) given by ``set args``, which gdb's shell obeys."""
        if not self.debugger:
            return [*self.prefix, *command]
        args = " ".join(shlex.quote(a) for a in command[1:])
        given = command if "--args" in self.prefix else command[:1]
        given_args = " ".join(filter(None, (args, program_fds)))
        return [self.prefix[0], "-ex", f"set args {given_args}", *self.prefix[1:], *given]

    def _spawn(self) -> None:
        """Start the tool with the bot, its two pipes wired (see the module docstring)."""
        bot_in, self.to_bot = os.pipe()
        self.from_bot, bot_out = os.pipe()
        stdin: int | None = None
        stdout: int | None = None
        if self.spec.interface == "c-function":
            argv = self._argv([*self.command, str(bot_in), str(bot_out)], "")
        elif self.debugger:
            argv = self._argv(self.command, f"<&{bot_in} >&{bot_out} {bot_in}<&- {bot_out}>&-")
        else:
            argv, stdin, stdout = self._argv(self.command, ""), bot_in, bot_out
        self.say(f"running {shlex.join(argv)} in {self.cwd}")
        try:
            self.process = subprocess.Popen(
                argv, cwd=self.cwd, pass_fds=(bot_in, bot_out), stdin=stdin, stdout=stdout
            )
        except OSError as exc:
            raise OutsideError(
                f"--exec-prefix: {argv[0]} could not start ({exc.strerror}). Fix: install it, or "
                "give its full path."
            ) from None
        finally:
            os.close(bot_in)
            os.close(bot_out)
        self.unread = b""

    # the Runner

    def start(self) -> Answer | None:
        # Ctrl-C is for the tool (gdb stops the bot with it): the replayer lets it pass. A
        # handler, not SIG_IGN, so that what the tool starts gets the default back.
        self._interrupt = signal.signal(signal.SIGINT, lambda number, frame: None)
        if self.spec.interface != "stdio-fresh":
            self._spawn()
        return None

    def ask(self, ask: Ask) -> Answer:
        if self.spec.interface == "stdio-fresh":
            self._end(self.settle)
            self._spawn()
        if self.spec.interface == "c-function":
            message = struct.pack("<i", ask.turn) + ask.request
        else:
            message = ask.sent
        try:
            _write_all(self.to_bot, message)
        except BrokenPipeError:
            return self._ended(ask)
        if self.spec.interface == "c-function":
            raw = self._read_exactly(4)
            if raw is None:
                return self._ended(ask)
            return decoded(self.spec, ask, raw, struct.unpack("<i", raw)[0])
        return self._read_reply(ask)

    def output(self) -> str:
        return ""  # the bot's stderr went to the terminal

    def close(self) -> None:
        if self.debugger and self.process is not None and self.process.poll() is None:
            self.say(f"waiting for {self.prefix[0]} to end (quit it to see the replay's report)")
        self._end(self.settle)
        if self._interrupt is not None:
            signal.signal(signal.SIGINT, self._interrupt)
            self._interrupt = None

    # reading and ending

    def _read_exactly(self, size: int) -> bytes | None:
        data = self.unread
        while len(data) < size:
            chunk = os.read(self.from_bot, READ)
            if not chunk:
                return None
            data += chunk
        self.unread = data[size:]
        return data[:size]

    def _read_reply(self, ask: Ask) -> Answer:
        """Up to the codec's number of lines, as the sandbox reads them (runner/play/watchdog.py):
        a last line cut short by the bot's end counts, as getline reads it."""
        wanted: int = self.spec.codec.reply_lines  # type: ignore[union-attr]
        if wanted == UNTIL_EXIT:
            return self._read_to_exit(ask)
        data = self.unread
        while True:
            end, count = _lines_in(data, wanted)
            if count == wanted:
                self.unread = data[end:]
                return decoded(self.spec, ask, data[: end - 1])
            if len(data) - end > LINE_CAP:
                why = f"sent a line longer than {LINE_CAP} bytes at turn {ask.turn}"
                return fault(Termination.DISCONNECT, why)
            chunk = os.read(self.from_bot, READ)
            if not chunk:
                break
            data += chunk
        self.unread = b""
        if data and (self.spec.interface == "stdio" or self._end(self.settle) == 0):
            return decoded(self.spec, ask, data)
        return self._ended(ask)

    def _read_to_exit(self, ask: Ask) -> Answer:
        """All the program writes until it ends, as the sandbox reads it: the move, whatever
        the end, once it wrote something (or exited with 0); else how it ended. Its input is
        ended first, as the sandbox ends it (a program may read to the end of it)."""
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.dup2(null, self.to_bot, inheritable=False)
        finally:
            os.close(null)
        data = b""
        while chunk := os.read(self.from_bot, READ):
            data += chunk
            if len(data) > REPLY_CAP:
                why = f"wrote more than {REPLY_CAP} bytes at turn {ask.turn}"
                return fault(Termination.DISCONNECT, why)
        if data or self._end(self.settle) == 0:
            return decoded(self.spec, ask, data)
        return self._ended(ask)

    def _ended(self, ask: Ask) -> Answer:
        """The bot's output ended before its answer: it crashed or exited (under a debugger, the
        debugger has ended: what happened to the bot is in its output)."""
        status = self._end(self.settle)
        if self.debugger:
            tool = Path(self.prefix[0]).name
            why = f"its output ended (under {tool}, which exited with code {status})"
        elif status is not None and status < 0:
            why = _signal_name(-status)
        else:
            why = f"exited with code {status}"
        return fault(Termination.CRASH, f"{why} at turn {ask.turn}")

    def _end(self, wait_s: float | None) -> int | None:
        """Close the bot's pipes and wait for the tool to end (``wait_s`` None: however long it
        takes; then it is killed); its status (None: none ran)."""
        if self.process is None:
            return self.status
        for fd in (self.to_bot, self.from_bot):
            os.close(fd)
        try:
            self.status = self.process.wait(wait_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.status = self.process.wait()
        self.process = None
        return self.status


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _lines_in(data: bytes, wanted: int) -> tuple[int, int]:
    """How far the first ``wanted`` complete lines of ``data`` go, and how many there are."""
    end, count = 0, 0
    while count < wanted:
        newline = data.find(b"\n", end)
        if newline < 0 or newline - end > LINE_CAP:
            break
        end, count = newline + 1, count + 1
    return end, count


__all__ = ["DEBUGGERS", "Outside", "OutsideError", "debug_build", "host_source", "is_debugger"]
