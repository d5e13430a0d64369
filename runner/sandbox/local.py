"""The local sandbox: compiles with the machine's gcc in a jail (runner/sandbox/buildjail.py
documents its walls); runs every bot in a fresh process forked from a warm zygote that is a child
of the host (runner/jail/zygote.py documents the walls: rlimits always; namespaces, chroot, a
private uid and a memory cgroup when root).

One zygote per host process, kept for the whole run: a game's bots are forked from it in ~2 ms,
against ~60 ms for a fresh interpreter that imports cffi.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.common import languages, native, resources
from runner.common.safefiles import UnsafeFileError, copy_tree
from runner.jail import zygote as zygote_program
from runner.sandbox import buildjail, cblank
from runner.sandbox.zygote_client import BotLimits, BotProcess, SandboxError, Zygote

# The header a C function is compiled with (``-include``): the game's declarations of the function
# and its name (runner/games/<game>/codec.py ``abi.cdef``), so that another signature fails to
# compile. Written over any file of that name the entry has.
HEADER = "koth-bot.h"
HEADER_NOTE = "/* koth: the game's declarations; your bot.c must define them as written here. */\n"
COMPILE = [
    "gcc",
    "-std=c11",
    "-O2",
    "-fPIC",
    "-Wall",
    "-include",
    HEADER,
    "-c",
    "bot.c",
    "-o",
    "bot.o",
]
# No start files (crti/crtbegin bring .init, .fini and init/fini arrays of their own), relocations
# read-only before any bot code runs (RELRO, BIND_NOW), no executable stack: what runs at load is
# then only what the bot put there, and runner/season/objcheck.py refuses that.
LINK = [
    "gcc",
    "-shared",
    "-nostartfiles",
    "-Wl,-z,relro,-z,now,-z,noexecstack",
    "-o",
    "bot.so",
    "bot.o",
    "-lm",
]
# What starts each step of a build in the jail (runner/jail/jailstep.c): static, so that it
# needs nothing of the jail's view but itself.
STEP_HELPER = resources.shipped("runner.jail", "jailstep.c")
STEP_HELPER_FLAGS = ("-std=gnu11", "-O2", "-Wall", "-Wextra", "-static")
COMPILER_OUTPUT_CAP = 64 * 1024
ARTIFACT_CAP = 16 << 20  # an artefact a build hands back (bot.o, bot.so, a program)
PYTHON = Path(zygote_program.PYTHON_COMMAND[0])


def support_files(recipe: str, folder: Path, header: str = "") -> dict[str, bytes]:
    """koth's own files a build of ``recipe`` needs beside the entry's (the Befunge
    interpreter; a C function's the header of the game's declarations, ``header``, included
    before bot.c), written into ``folder`` as ``koth-NAME``; returns them by that name."""
    files: dict[str, bytes] = {}
    if recipe == languages.C_FUNCTION:
        files[HEADER] = (HEADER_NOTE + header).encode()
    else:
        for name in languages.find(recipe).support:
            files[f"koth-{name}"] = resources.shipped("runner.common", name).read_bytes()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


@dataclass(frozen=True)
class Compiled:
    """What compiling an entry gave: ``out/bot.o`` and ``out/jail/bot.so`` when ``ok``."""

    ok: bool
    stage: str  # "compile" or "link" when not ok
    output: str  # the compiler's messages, verbatim (capped)


_STARTED: weakref.WeakSet[Zygote] = weakref.WeakSet()  # the zygotes this process started


@functools.cache
def step_helper() -> str | None:
    """The compiled step helper, or None (without gcc, or a static libc): the jail then forks
    each step itself."""
    return native.compiled([STEP_HELPER], STEP_HELPER_FLAGS, "jailstep")


def blanks_of_every_zygote() -> list[int]:
    """The blanks (``Zygote.blanks``) of every zygote this process has started and not closed:
    what a search for bot processes left behind leaves out (a blank primed for a bot that keeps
    coming back already has its uid; no bot code has run in it)."""
    pids: list[int] = []
    for zygote in list(_STARTED):
        if not zygote.dead:
            try:
                pids += zygote.blanks()
            except SandboxError:
                continue  # closed, or gone: it holds nothing
    return sorted(pids)


def start_local_zygote(python: bool = False) -> Zygote:
    """A zygote under this interpreter (for C-function bots, with cffi, and compiled programs),
    or, with ``python``, under the interpreter Python bots run with, started as they are
    (``worker.PYTHON_COMMAND``, their environment, no terminal): its blanks run a Python bot in
    a fork of that warm interpreter instead of starting it again (runner/jail/zygote.py)."""
    host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    control = ["--control-fd", str(zygote_end.fileno())]
    if python:  # run as the script a Python bot runs as: its warm forks see what it would
        command = [*zygote_program.PYTHON_COMMAND, zygote_program.__file__, *control]
        env = zygote_program.PROGRAM_ENV
    else:
        # From its compiled code (worker.LAUNCH: a script is compiled at every start), and -S:
        # no site-packages (an editable install's finder alone costs ~10 ms of the start);
        # zygote.py adds them if it ever needs cffi.
        command = [
            sys.executable,
            "-I",
            "-S",
            "-c",
            zygote_program.LAUNCH,
            zygote_program.__file__,
            *control,
        ]
        env = {"PATH": os.defpath}
    native = cblank.binary()
    if native is not None:
        command += ["--native", native]
    process = subprocess.Popen(
        command,
        pass_fds=[zygote_end.fileno()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL if python else None,
        env=env,
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
    _STARTED.add(zygote)
    if python:
        return zygote  # the other zygote says what the machine lacks
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
    # Builds side by side beyond the jobs (runner/season/check.py build_all): a build is a chain of
    # processes handing over to one another (the jail's server and child, gcc's driver, cc1,
    # as, ld), and with one build a core the cores sat idle between them (40 builds on 2 cores:
    # 5-8% of the time); one build more fills most of those gaps (2.5%; the 16-entry build
    # stage 4-7% shorter). Docker's builds keep a container each: it runs only the jobs.
    extra_builds = 1

    def __init__(self) -> None:
        self._zygotes: dict[bool, Zygote] = {}
        self._warned = False

    def _started(self, python: bool) -> Zygote:
        """A zygote, started on first use (and again if the last one died: its games were
        reported as the host's failures; the next game needs a working one)."""
        zygote = self._zygotes.get(python)
        if zygote is not None and zygote.dead:
            zygote.close()
            zygote = None
        if zygote is None:
            zygote = self._zygotes[python] = start_local_zygote(python)
        return zygote

    def keep_to(self, cpus: set[int]) -> None:
        """Every zygote started so far, its blanks and the bots it forks from now on keep to
        ``cpus`` (a zygote started later inherits the starting process's CPUs)."""
        for zygote in self._zygotes.values():
            try:
                if not zygote.dead:
                    zygote.keep_to(cpus)
            except SandboxError:
                pass  # a broken zygote: the next bot asked of it finds out, and a new one starts

    @property
    def zygote(self) -> Zygote:
        """The zygote of C-function bots and compiled programs."""
        return self._started(False)

    def start_zygote(self) -> None:
        """Start the zygote of C-function bots now (~40 ms; build.start_loading)."""
        self._started(False)

    def start_ahead(self, limits: BotLimits) -> None:
        """A job slot's sandbox, started while the entries are built (``GamePool.start_ahead``):
        its zygote starts now, and the slot then loads the built bots and plays the smoke
        games in it (the check stage 0.12-0.14 -> 0.07-0.08 s for 16 entries; the build's own
        process starts no zygote)."""
        del limits  # the same zygote serves every bot, whatever its limits
        self.start_zygote()

    @property
    def python_zygote(self) -> Zygote:
        """The zygote of Python bots (runner/jail/zygote.py runs them in a warm fork)."""
        return self._started(True)

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function", header: str = ""
    ) -> Compiled:
        """``c-function``: compile ``source/bot.c`` (after ``header``, the game's declarations)
        to ``out/bot.o`` and link ``out/jail/bot.so``.
        A language's id (runner/common/languages.py): its build's steps, its artefacts in
        ``out/jail``.

        The build runs in runner/sandbox/buildjail.py on a private copy of the entry's regular
        files (and koth's own files for its language); only regular files under ARTIFACT_CAP
        come back."""
        toolchain = None
        if recipe == languages.C_FUNCTION:
            steps, artefacts = [COMPILE, LINK], ["bot.o", "bot.so"]
        else:
            language = languages.find(recipe)
            steps = [list(step) for step in language.build]
            artefacts = list(language.artefacts)
            toolchain = buildjail.Toolchain(
                language.build_env, language.build_threads, tuple(language.folders()), language.proc
            )
        work = Path(tempfile.mkdtemp(prefix="koth-build-"))
        try:
            try:
                copy_tree(source, work / "src")
                support_files(recipe, work / "src", header)
            except UnsafeFileError as exc:
                return Compiled(False, "compile", str(exc))
            try:
                run = buildjail.run_build(
                    work,
                    steps,
                    artefacts,
                    wall_s,
                    COMPILER_OUTPUT_CAP,
                    ARTIFACT_CAP,
                    step_helper(),
                    toolchain,
                )
            except buildjail.BuildJailError as exc:
                raise SandboxError(str(exc)) from None
            if os.geteuid() == 0 and not run.namespaces and not self._warned:
                self._warned = True
                print(
                    "koth: warning: running as root but the kernel refused new namespaces (an "
                    "unprivileged container?); entries are built with their own uid and rlimits "
                    "but see the host's filesystem",
                    file=sys.stderr,
                )
            for name in run.artefacts:
                target = out / "jail" / name if name != "bot.o" else out / "bot.o"
                target.parent.mkdir(exist_ok=True)
                shutil.move(work / "out" / name, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        output = run.output
        if run.failed_step is None:
            for name in run.artefacts:
                if name != "bot.o":
                    (out / "jail" / name).chmod(0o555 if name == "bot" else 0o444)
            return Compiled(True, "ok", output)
        shutil.rmtree(out / "jail", ignore_errors=True)
        stage = "link" if recipe == "c-function" and run.failed_step == 1 else "compile"
        return Compiled(False, stage, output or "the build failed without a message")

    def spawn(
        self,
        jail: Path,
        limits: BotLimits,
        program: list[str] | None = None,
        abi: dict[str, Any] | None = None,
    ) -> BotProcess:
        root = jail.parent / "root"  # made empty by the build: where a program's view is built
        python = program is not None and tuple(program[:-1]) == zygote_program.PYTHON_COMMAND
        zygote = self.python_zygote if python and PYTHON.exists() else self.zygote
        return zygote.spawn(str(jail), limits, program, str(root) if program else None, abi)

    def close(self) -> None:
        for zygote in self._zygotes.values():
            zygote.close()
        self._zygotes.clear()
