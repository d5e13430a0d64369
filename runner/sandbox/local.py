"""The local sandbox: compiles with the machine's gcc under rlimits; runs every bot in a fresh
process forked from a warm zygote that is a child of the host (runner/bots/worker.py documents
the walls: rlimits always; namespaces, chroot, a private uid and a memory cgroup when root).

One zygote per host process, kept for the whole run: a game's bots are forked from it in ~2 ms,
against ~60 ms for a fresh interpreter that imports cffi.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from runner.bots import worker
from runner.sandbox.zygote import BotLimits, BotProcess, Zygote

COMPILE = ["gcc", "-std=c11", "-O2", "-fPIC", "-Wall", "-c", "bot.c", "-o"]
LINK = ["gcc", "-shared", "-o"]
# Program bots (stdio games): static binaries, so they run in a jail with no libraries; Python
# is checked by the interpreter that will run it (Debian's).
PROGRAM_BUILDS = {
    "c": ["gcc", "-std=c11", "-O2", "-Wall", "-static", "bot.c", "-lm", "-o"],
    "cpp": ["g++", "-std=c++17", "-O2", "-Wall", "-static", "bot.cpp", "-o"],
    "python": [
        "/usr/bin/python3",
        "-I",
        "-c",
        'import ast; ast.parse(open("bot.py", "rb").read(), "bot.py")',
    ],
}
COMPILER_OUTPUT_CAP = 64 * 1024


@dataclass(frozen=True)
class Compiled:
    """What compiling an entry gave: ``out/bot.o`` and ``out/jail/bot.so`` when ``ok``."""

    ok: bool
    stage: str  # "compile" or "link" when not ok
    output: str  # the compiler's messages, verbatim (capped)


def _compiler_limits(wall_s: float) -> None:
    """Runs in the compiler's child process before exec."""
    import resource

    cpu = max(1, int(wall_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start_local_zygote() -> Zygote:
    host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = subprocess.Popen(
        [sys.executable, "-I", worker.__file__, "--control-fd", str(zygote_end.fileno())],
        pass_fds=[zygote_end.fileno()],
        stdin=subprocess.DEVNULL,
        env={"PATH": os.defpath},
        start_new_session=True,
    )
    zygote_end.close()

    def stop() -> None:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    zygote = Zygote(host_end, on_close=stop)
    if zygote.is_root and not zygote.netns:
        print(
            "koth: warning: running as root but the kernel refused new namespaces (an "
            "unprivileged container?); bots keep the host's network and IPC view, limited only "
            "by the descriptor limit and the seccomp filter",
            file=sys.stderr,
        )
    if not zygote.seccomp:
        print(
            "koth: warning: no seccomp filter for bots (libseccomp.so.2 is missing, or the "
            "kernel refused it): install Debian's libseccomp2",
            file=sys.stderr,
        )
    return zygote


class LocalSandbox:
    name = "local"

    def __init__(self) -> None:
        self._zygote: Zygote | None = None

    @property
    def zygote(self) -> Zygote:
        if self._zygote is None:
            self._zygote = start_local_zygote()
        return self._zygote

    def _run(self, command: list[str], cwd: Path, wall_s: float) -> tuple[int, str]:
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
        return done.returncode, done.stdout[:COMPILER_OUTPUT_CAP].decode("utf-8", errors="replace")

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function"
    ) -> Compiled:
        """``c-function``: compile ``source/bot.c`` to ``out/bot.o`` and link ``out/jail/bot.so``.
        ``c``, ``cpp``, ``python``: a program in ``out/jail`` (``bot`` or ``bot.py``)."""
        jail = out / "jail"
        if recipe != "c-function":
            jail.mkdir(exist_ok=True)
            if recipe == "python":
                code, output = self._run(PROGRAM_BUILDS["python"], source, wall_s)
                if code == 0:
                    shutil.copyfile(source / "bot.py", jail / "bot.py")
            else:
                code, output = self._run(
                    [*PROGRAM_BUILDS[recipe], str(jail / "bot")], source, wall_s
                )
            return Compiled(code == 0, "ok" if code == 0 else "compile", output)
        code, output = self._run([*COMPILE, str(out / "bot.o")], source, wall_s)
        if code != 0:
            return Compiled(False, "compile", output)
        jail.mkdir(exist_ok=True)
        code, link_output = self._run(
            [*LINK, str(jail / "bot.so"), str(out / "bot.o"), "-lm"], out, wall_s
        )
        if code != 0:
            shutil.rmtree(jail)
            return Compiled(False, "link", link_output)
        return Compiled(True, "ok", output)

    def spawn(self, jail: Path, limits: BotLimits, program: list[str] | None = None) -> BotProcess:
        root = jail.parent / "root"  # made empty by the build: where a program's view is built
        return self.zygote.spawn(str(jail), limits, program, str(root) if program else None)

    def close(self) -> None:
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None
