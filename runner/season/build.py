"""The build stage: compile an entry, check the object against the rules, link, and load it once.

Artefacts land in ``build/<entry>/``: ``bot.o`` (what was checked), ``jail/bot.so`` (what plays;
the jail folder is the bot's whole filesystem view when the sandbox can chroot) and
``build.json`` (this verdict, reused while the entry's content hash and the build recipe match).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from runner.common import languages
from runner.common.documents import load_json
from runner.common.safefiles import read_capped, shown_text
from runner.games.spec import CFunctionCodec, GameSpec
from runner.play.cabi import CFunctionBot
from runner.play.faults import BotFault
from runner.play.referee import Player
from runner.sandbox.local import ARTIFACT_CAP, Compiled
from runner.sandbox.zygote_client import BotLimits, BotProcess
from runner.season.entries import Entry
from runner.season.objcheck import check_library, check_object

# Loads a built C bot once and gives its name (raises BotFault): an entry's name, its jail.
Loader = Callable[[str, Path], str]
RECIPE = "c11-O2-v4"  # change when the flags or checks change: every entry is rebuilt
# An entry's build folder: its owner and group only. A Docker sandbox serves every entry's build
# to every container from one folder; its zygote is in the group, a bot (a uid and gid of its own,
# no other group) cannot pass, so no bot reaches another entry's jail through its own jail's
# parent (runner/sandbox/docker.py).
ENTRY_FOLDER_MODE = 0o750
BUILD_FILE_CAP = 1 << 20  # build.json: a verdict and a compiler's messages (capped far below)
# How a program bot is started, in its jail, by language (stdio games): its row's ``run``.
PROGRAMS = {language.id: list(language.run) for language in languages.LANGUAGES}


class Sandbox(Protocol):
    name: str

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function", header: str = ""
    ) -> Compiled: ...

    def spawn(
        self,
        jail: Path,
        limits: BotLimits,
        program: list[str] | None = None,
        abi: dict[str, Any] | None = None,
    ) -> BotProcess: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Build:
    entry: str
    content_hash: str
    ok: bool
    stage: str  # where it stopped: entry, compile, check, link, load — or "ok"
    message: str  # the verdict in words; compiler output verbatim when compiling failed
    display_name: str  # bot_name, cleaned; the entry's name until it loads
    jail: str | None  # folder holding bot.so (or the program), when ok
    sandbox: str = "local"  # which sandbox built it: artefacts are not shared between them
    recipe: str = RECIPE
    program: list[str] | None = None  # a program bot's command, run in its jail
    language: str = "c"  # its entry's (runner/common/languages.py): its seat's limits

    @property
    def jail_path(self) -> Path:
        assert self.jail is not None, f"entry {self.entry} did not build"
        return Path(self.jail)

    def player(self) -> Player:
        """The player this build makes (it built)."""
        program = tuple(self.program) if self.program else None
        return Player(self.entry, self.content_hash, self.jail_path, program, self.language)


def recipe_of(entry: Entry) -> str:
    """What a build of ``entry`` is made by: RECIPE, and its language's row (a change of the
    row rebuilds its entries)."""
    language = entry.manifest.language if entry.manifest else "c"
    row = languages.BY_ID.get(language)
    digest = hashlib.sha256(repr(row).encode()).hexdigest()[:12]
    return f"{RECIPE}-{language}-{digest}"


def _cached(entry: Entry, folder: Path, sandbox: str) -> Build | None:
    try:
        data = load_json(read_capped(folder / "build.json", BUILD_FILE_CAP))
        build = Build(**data)
    except (OSError, ValueError, TypeError):
        return None
    if build.content_hash != entry.content_hash or build.recipe != recipe_of(entry):
        return None
    if build.sandbox != sandbox:
        return None
    if build.program is None:
        needed: tuple[str, ...] = ("bot.so",)
    elif build.language in languages.BY_ID:
        needed = languages.BY_ID[build.language].artefacts
    else:
        return None
    if build.ok and not all((build.jail_path / name).is_file() for name in needed):
        return None
    return build


def is_built(entry: Entry, build_root: Path, sandbox: str) -> bool:
    """Whether ``entry`` has a build in ``build_root`` that ``build_entry`` would keep."""
    return _cached(entry, (build_root / entry.name).resolve(), sandbox) is not None


def write_file_atomic(path: Path, text: str) -> None:
    """Write a small file whole or not at all: a temporary file, then os.replace."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _save(build: Build, folder: Path) -> Build:
    write_file_atomic(folder / "build.json", json.dumps(asdict(build), indent=2) + "\n")
    return build


@contextmanager
def entry_lock(build_root: Path, entry: str) -> Iterator[None]:
    """Only one koth process builds an entry at a time (others wait, then find it cached).
    The lock file lies beside the entry's build folder, which a build removes and remakes."""
    build_root.mkdir(parents=True, exist_ok=True)
    with open(build_root / f".{entry}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def remove_build(folder: Path) -> None:
    """Remove an entry's build folder. Its jail is read-only (0555: no bot writes there), which
    keeps its owner from deleting inside it too unless that owner is root: each folder is made
    writable first (links are not followed)."""
    for path, folders, _ in os.walk(folder):
        for name in folders:
            inner = Path(path, name)
            if not inner.is_symlink():
                inner.chmod(0o755)
    folder.chmod(0o755)
    shutil.rmtree(folder)


def build_entry(
    entry: Entry,
    build_root: Path,
    sandbox: Sandbox,
    limits: BotLimits,
    wall_s: float,
    game: GameSpec,
    load: Loader | None = None,
) -> Build:
    """Build one entry for ``game``'s kind of bot (or reuse its cached build). Never raises
    for a bad entry. Safe to call from several koth processes at once. ``load``: where a C
    bot is loaded once (default: ``load_name`` in ``sandbox``)."""
    with entry_lock(build_root, entry.name):
        return _build_entry(entry, build_root, sandbox, limits, wall_s, game, load)


@dataclass(frozen=True)
class _Job:
    """One entry being built: where, with what, and how a verdict is saved."""

    entry: Entry
    folder: Path
    sandbox: Sandbox
    limits: BotLimits
    wall_s: float
    game: GameSpec
    load: Loader | None

    def verdict(
        self,
        ok: bool,
        stage: str,
        message: str,
        name: str | None = None,
        program: list[str] | None = None,
    ) -> Build:
        entry = self.entry
        language = entry.manifest.language if entry.manifest else "c"
        build = Build(
            entry.name,
            entry.content_hash,
            ok,
            stage,
            shown_text(message),  # compiler output quotes the entry's source
            name or entry.name,
            str(self.folder / "jail") if ok else None,
            self.sandbox.name,
            recipe_of(entry),
            program=program,
            language=language,
        )
        return _save(build, self.folder)


def _build_entry(
    entry: Entry,
    build_root: Path,
    sandbox: Sandbox,
    limits: BotLimits,
    wall_s: float,
    game: GameSpec,
    load: Loader | None,
) -> Build:
    folder = (build_root / entry.name).resolve()
    cached = _cached(entry, folder, sandbox.name)
    if cached is not None:
        folder.chmod(ENTRY_FOLDER_MODE)  # a build kept from a version of koth before this mode
        return cached
    job = _Job(entry, folder, sandbox, limits, wall_s, game, load)
    if folder.exists():
        remove_build(folder)
    folder.mkdir(parents=True)
    folder.chmod(ENTRY_FOLDER_MODE)
    if entry.problem:
        return job.verdict(False, "entry", entry.problem)
    language = entry.manifest.language if entry.manifest else "c"
    if language not in game.languages:
        allowed = ", ".join(game.languages)
        kind = "C functions" if game.interface == "c-function" else "programs on stdin/stdout"
        return job.verdict(
            False,
            "entry",
            f"{entry.name}/entry.yaml: field `language` is {language!r}, but {game.id}'s bots "
            f"are {kind}. Fix: write the bot in one of: {allowed}.",
        )
    if game.interface != "c-function":
        return _build_program(job, language)
    return _build_c_function(job)


def _build_program(job: _Job, language: str) -> Build:
    """A program bot: compiled (C, C++) or syntax-checked (Python) into its jail."""
    compiled = job.sandbox.compile(job.entry.path, job.folder, job.wall_s, recipe=language)
    if not compiled.ok:
        source = job.entry.source.name
        return job.verdict(
            False, "compile", f"{source} does not build:\n{compiled.output}".rstrip()
        )
    (job.folder / "root").mkdir(mode=0o755)  # empty: the sandbox builds the bot's view on it
    (job.folder / "jail").chmod(0o555)
    output = compiled.output
    built = f"built with warnings:\n{output}".rstrip() if output.strip() else "built"
    return job.verdict(True, "ok", built, program=PROGRAMS[language])


def _build_c_function(job: _Job) -> Build:
    """A C-function bot: compiled, checked against the rules, linked, and loaded once."""
    folder = job.folder
    # The game's declarations, included before bot.c: a bot of another signature fails to
    # compile, the expected prototype in the message.
    cdef = cast(CFunctionCodec[Any, Any], job.game.codec).abi.cdef
    compiled = job.sandbox.compile(job.entry.path, folder, job.wall_s, header=cdef)
    output = compiled.output
    if not compiled.ok and compiled.stage == "compile":
        return job.verdict(False, "compile", f"bot.c does not compile:\n{output}".rstrip())
    # The object and the linked library are checked here, on the host, whatever checked them in
    # the sandbox before (the sandbox's artefacts are regular files under its cap).
    problems = check_object(read_capped(folder / "bot.o", ARTIFACT_CAP))
    if not problems and compiled.ok:
        problems = check_library(read_capped(folder / "jail" / "bot.so", ARTIFACT_CAP))
    if not problems and not compiled.ok and compiled.stage == "check":
        problems = [output.strip() or "refused by the sandbox's check"]
    if problems:
        refused = "refused by the static check:\n- " + "\n- ".join(problems)
        return job.verdict(False, "check", refused)
    if not compiled.ok:
        return job.verdict(False, "link", f"bot.o does not link:\n{output}".rstrip())
    jail = folder / "jail"
    (jail / "bot.so").chmod(0o444)
    jail.chmod(0o555)
    try:
        if job.load is not None:
            name = job.load(job.entry.name, jail)
        else:
            name = load_name(job.entry.name, jail, job.sandbox, job.limits, job.game)
    except BotFault as fault:
        return job.verdict(False, "load", f"the bot fails when loaded: {fault}")
    warnings = f"compiled with warnings:\n{output}".rstrip() if output.strip() else "built"
    return job.verdict(True, "ok", warnings, name)


# Entries are built side by side on threads (runner/season/check.py), but the local sandbox's one
# zygote is asked for bots and watched from one thread at a time: there loading is one entry at a
# time. A sandbox whose entries each have their own zygote says so (``spawns_in_parallel``).
_LOADING = threading.Lock()


def _loading(sandbox: Sandbox) -> AbstractContextManager[object]:
    """Held while ``sandbox`` is asked for a bot to load: ``_LOADING``, unless it says its
    spawns may run side by side."""
    return nullcontext() if getattr(sandbox, "spawns_in_parallel", False) else _LOADING


def start_loading(sandbox: Sandbox) -> None:
    """Start what ``load_name`` loads bots in (the local sandbox's zygote), so that the first
    load finds it started: the build stage runs this beside its first compiles. Before, both
    build threads waited ~40 ms for it at the first load, a core idle meanwhile."""
    start = getattr(sandbox, "start_zygote", None)
    if start is not None:
        with _loading(sandbox):
            start()


def load_name(entry: str, jail: Path, sandbox: Sandbox, limits: BotLimits, game: GameSpec) -> str:
    """Load the C bot once in the sandbox and read its name (raises BotFault)."""
    abi = cast(CFunctionCodec[Any, Any], game.codec).abi.to_json()
    with _loading(sandbox):
        bot = CFunctionBot(sandbox.spawn(jail, limits, abi=abi), limits, entry)
        try:
            return bot.start()
        finally:
            bot.close()
