"""The languages program bots may be written in: one row each, and nothing about a language
anywhere else. The build (runner/season/build.py), both sandboxes (runner/sandbox/local.py,
docker.py), the Docker image (runner/sandbox/Dockerfile gets ``packages`` and the recipes made
here), ``koth replay`` (runner/tools/replay/) and docs/games.md read it.

A row says:

- ``source``: the entry's one source file (``entry.yaml``'s ``language:`` names the row);
- ``build``: the steps run in the build jail, in a private copy of the entry (with ``support``,
  koth's own files for that language, beside it), stopping at the first that fails; ``artefacts``:
  what they leave that the bot needs (copied into its jail, read-only);
- ``run``: the command that starts the bot in its jail. One that starts ``./`` is a static program
  of the entry's own build: it names no file, and is started from a descriptor (runner/jail/
  walls.py ``OWN``). Any other is a runtime reading its own files, read-only, in the bot's private
  view of /usr (and of ``view``, the folders outside /usr it reads, patterns matched where it
  runs: ``RUNTIME``). ``{memory_mib}`` and ``{heap_mib}`` in it are the bot's memory limit and
  half of it, in MiB;
- ``packages``: the Debian packages the sandbox image adds for it (the local sandbox uses the
  machine's: ``.ci/run`` installs the same);
- ``threads``: the threads the runtime may start beside the bot's own (each bot has a uid of its
  own, so the kernel counts them exactly; no fork either way: runner/jail/walls.py). Not under
  Docker yet (``THREADS_NOT_IN_DOCKER``);
- ``memory``: how its memory limit is kept. ``address-space``: an address-space rlimit equal to
  the limit. ``group``: the bot's memory group (a cgroup: the local sandbox's as root, a Docker
  container's), for runtimes that reserve far more address space than they use (a JVM, V8, Go,
  Mono); the address space is then only a backstop, and the runtime's own heap is capped too
  (``{heap_mib}``);
- ``not_in_docker_because``: why its bots do not run in the Docker sandbox yet, if they do not (its
  builds are refused there with that reason, and the image leaves its packages out);
- ``time``: the multiple of the season's time limits its bots get, unless the game or the season
  says otherwise (runner/season/workers.py ``bot_limits``): Java twice C's, as the Domineering
  event's statement gives it; a runtime that starts slowly gets more where a process starts
  every move (docs/benchmarks.md has the start costs).

Adding a language is a row here (.ci/run installs its packages from it), a starter per game
(runner/games/<game>/starters/) and a test (tests/test_languages.py).
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

Memory = Literal["address-space", "group"]
C_FUNCTION = "c-function"  # the recipe of a C function (Snakes): not a language of programs
JAVA_HOME = "/usr/lib/jvm/default-java"  # Debian's link to the default JDK (inside /usr)


# Why a runtime that starts threads does not run in the Docker sandbox yet: there a bot's uid is
# koth's base plus its pid in its container, unique in that container only, and the kernel counts
# a uid's tasks (RLIMIT_NPROC) across every container. Measured: a JVM's or Node's start then
# failed (exit status 1) where other entries' bots in other containers had the same uid, so
# another entry could stop it starting. A uid unique on the machine per container would lift it.
THREADS_NOT_IN_DOCKER = (
    "its runtime's threads would be counted with other containers' bots (a bot's uid is unique "
    "in its container only)"
)


@dataclass(frozen=True)
class Language:
    id: str  # entry.yaml's ``language:``
    name: str  # as people write it
    source: str
    build: tuple[tuple[str, ...], ...]
    artefacts: tuple[str, ...]
    run: tuple[str, ...]
    packages: tuple[str, ...]
    threads: int = 0
    memory: Memory = "address-space"
    time: float = 1.0
    endings: tuple[str, ...] = ()  # a source file's endings (``koth replay --bot FILE``)
    support: tuple[str, ...] = ()  # koth's files (runner/common/) copied beside the source
    view: tuple[str, ...] = ()  # folders outside /usr its runtime or compiler reads
    build_env: tuple[tuple[str, str], ...] = ()  # more of the build's environment
    build_threads: int = 0  # threads and processes a build step may start beyond gcc's
    run_env: tuple[tuple[str, str], ...] = ()  # more of its bot's environment
    # Its runtime (and compiler) need /proc: one of its own processes only (runner/jail/zygote.py)
    proc: bool = False
    # Why its bots do not run in the Docker sandbox yet (its builds are refused there, saying
    # so); empty where they do.
    not_in_docker_because: str = ""

    @property
    def not_in_docker(self) -> str:
        """Why its bots do not run in the Docker sandbox yet; empty where they do."""
        return self.not_in_docker_because or (THREADS_NOT_IN_DOCKER if self.threads else "")

    @property
    def own(self) -> bool:
        """Whether its bot is a program of the entry's own build (static, naming no file)."""
        return self.run[0].startswith("./")

    def folders(self) -> list[str]:
        """``view`` as this machine has it: its patterns (``*``) matched, folders only."""
        return sorted({found for pattern in self.view for found in glob.glob(pattern)})

    def command(self, memory_bytes: int) -> list[str]:
        """``run`` with the memory limit put in."""
        mib = memory_bytes >> 20
        return [
            arg.replace("{memory_mib}", str(mib)).replace("{heap_mib}", str(max(16, mib // 2)))
            for arg in self.run
        ]


# A program that checks a source is well formed, run by Debian's Python in the build jail: the
# file's name, then a Python expression over its bytes ``s`` that is true when it is.
CHECK = (
    "import sys; s = open(sys.argv[1], 'rb').read(); "
    "sys.exit(0 if eval(sys.argv[2]) else sys.argv[1] + ': ' + sys.argv[3])"
)
PYTHON_CHECK = 'import ast; ast.parse(open("bot.py", "rb").read(), "bot.py")'
# Brainfuck: brackets that match (beef reports nothing useful on a program that does not).
BRACKETS = (
    "(lambda depths: min(depths, default=0) >= 0 and depths[-1:] in ([], [0]))"
    "(list(__import__('itertools').accumulate((c == 91) - (c == 93) for c in s)))"
)
JAVA_FLAGS = (
    # One collector thread, one compiler thread, the C1 compiler only (what a bot started every
    # move has time for), no shared performance file (nothing to write), the JDK's class-data
    # sharing archive and the bot's own (made at build time), the heap in half the limit.
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:CICompilerCount=1",
    "-XX:-UsePerfData",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:MaxMetaspaceSize=64m",
    "-XX:CompressedClassSpaceSize=32m",
    "-Xss1m",
    "-Xmx{heap_mib}m",
    "-Xshare:auto",
    "-XX:SharedArchiveFile=bot.jsa",
    "-Xlog:disable",
    "-Xlog:all=warning:stderr",
    "-cp",
    "bot.jar",
    "Bot",
)

# The JDK's tools in the build's address space (2 GiB: runner/sandbox/buildjail.py).
JAVA_TOOL_FLAGS = (
    "-J-Xmx256m",
    "-J-XX:+UseSerialGC",
    "-J-XX:CompressedClassSpaceSize=64m",
    "-J-XX:ReservedCodeCacheSize=64m",
)
JAVA_ARCHIVE = " ".join(
    [
        f"{JAVA_HOME}/bin/java -XX:ArchiveClassesAtExit=bot.jsa",
        *(f.replace("{heap_mib}", "128") for f in JAVA_FLAGS if "SharedArchiveFile" not in f),
        "</dev/null >/dev/null 2>&1; [ -s bot.jsa ] || : >bot.jsa",
    ]
)

LANGUAGES: tuple[Language, ...] = (
    Language(
        "c",
        "C",
        "bot.c",
        (("gcc", "-std=c11", "-O2", "-Wall", "-static", "bot.c", "-lm", "-o", "bot"),),
        ("bot",),
        ("./bot",),
        ("gcc", "libc6-dev"),
        endings=(".c",),
    ),
    Language(
        "cpp",
        "C++",
        "bot.cpp",
        (("g++", "-std=c++17", "-O2", "-Wall", "-static", "bot.cpp", "-o", "bot"),),
        ("bot",),
        ("./bot",),
        ("g++",),
        endings=(".cpp", ".cc", ".cxx"),
    ),
    Language(
        "python",
        "Python 3",
        "bot.py",
        (("/usr/bin/python3", "-I", "-c", PYTHON_CHECK),),
        ("bot.py",),
        ("/usr/bin/python3", "-I", "-B", "bot.py"),  # runner/jail/zygote.py PYTHON_COMMAND
        ("python3",),
        endings=(".py",),
    ),
    Language(
        "pascal",
        "Pascal",
        "bot.pas",
        (
            (
                "/usr/bin/ppcx64-3.2.2",  # the compiler (fpc, its driver, is an alternative)
                "-n",  # no /etc/fpc.cfg: its unit paths are given here
                "-O2",
                "-Xs",
                "-XX",
                "-CX",
                "-Mobjfpc",
                "-Fu/usr/lib/x86_64-linux-gnu/fpc/$fpcversion/units/$fpctarget/*",
                "-obot",
                "bot.pas",
            ),
        ),
        ("bot",),
        ("./bot",),
        ("fp-compiler", "fp-units-rtl"),
        endings=(".pas", ".pp", ".dpr"),
    ),
    Language(
        "rust",
        "Rust",
        "bot.rs",
        (
            (
                "/usr/bin/rustc",
                "--edition=2021",
                "-O",
                "-C",
                "target-feature=+crt-static",
                "-C",
                "codegen-units=1",
                "-C",
                "linker=gcc",  # cc is an alternative (a link into /etc)
                "-o",
                "bot",
                "bot.rs",
            ),
        ),
        ("bot",),
        ("./bot",),
        ("rustc",),
        endings=(".rs",),
        build_threads=8,
        proc=True,  # rustc finds itself through /proc/self/exe (its bots need none)
    ),
    Language(
        "go",
        "Go",
        "bot.go",
        (("/usr/bin/go", "build", "-trimpath", "-o", "bot", "bot.go"),),
        ("bot",),
        ("./bot",),
        ("golang-go",),
        # The Go runtime's own threads (the scheduler's monitor, the collector's workers): a bot
        # keeps to one CPU, so GOMAXPROCS is 1.
        threads=8,
        memory="group",
        endings=(".go",),
        build_env=(
            ("GOCACHE", "/tmp/go-cache"),
            ("GOPATH", "/tmp/go"),
            ("GO111MODULE", "off"),
            ("CGO_ENABLED", "0"),
            ("GOMAXPROCS", "2"),
            ("GOFLAGS", "-buildvcs=false"),
            ("HOME", "/tmp"),
        ),
        build_threads=48,
    ),
    Language(
        "java",
        "Java",
        "Bot.java",
        (
            (f"{JAVA_HOME}/bin/javac", *JAVA_TOOL_FLAGS, "-d", "classes", "Bot.java"),
            (f"{JAVA_HOME}/bin/jar", *JAVA_TOOL_FLAGS, "cf", "bot.jar", "-C", "classes", "."),
            # The bot's own class-data sharing archive: its classes and the JDK's it loads,
            # mapped ready at each start (made by starting it once with no input; where that
            # makes none, an empty one, which the JVM passes over).
            ("/bin/sh", "-c", JAVA_ARCHIVE),
        ),
        ("bot.jar", "bot.jsa"),
        (f"{JAVA_HOME}/bin/java", *JAVA_FLAGS),
        ("default-jdk-headless",),  # its /usr/lib/jvm/default-java: the JDK 17 on Debian 12
        threads=16,
        memory="group",
        time=2.0,
        endings=(".java",),
        # The launcher finds its libraries by $ORIGIN, which the loader reads from /proc.
        run_env=(("LD_LIBRARY_PATH", f"{JAVA_HOME}/lib"),),
        view=("/etc/java-*-openjdk",),  # its configuration: 17 on Debian 12, 21 on Ubuntu 24.04
        build_threads=48,
        build_env=(("LD_LIBRARY_PATH", f"{JAVA_HOME}/lib"),),
    ),
    Language(
        "csharp",
        "C#",
        "bot.cs",
        (("/usr/bin/mono", "/usr/lib/mono/4.5/mcs.exe", "-optimize+", "-out:bot.exe", "bot.cs"),),
        ("bot.exe",),
        ("/usr/bin/mono", "--gc-params=max-heap-size={heap_mib}m", "bot.exe"),
        ("mono-mcs",),
        threads=8,
        memory="group",
        endings=(".cs",),
        view=("/etc/mono",),
        build_threads=32,
        proc=True,  # "Mono requires /proc to be mounted"
        not_in_docker_because="Mono needs /proc, which the Docker sandbox's view has none of",
    ),
    Language(
        "javascript",
        "JavaScript",
        "bot.js",
        (("/usr/bin/node", "--check", "bot.js"),),
        ("bot.js",),
        (
            "/usr/bin/node",
            "--max-old-space-size={heap_mib}",
            "--v8-pool-size=1",
            "--single-threaded-gc",
            "bot.js",
        ),
        ("nodejs",),
        threads=12,
        memory="group",
        time=2.0,  # V8 takes ~110 ms of CPU to start: twice a move's time (docs/benchmarks.md)
        endings=(".js", ".mjs"),
        build_threads=16,
    ),
    Language(
        "lua",
        "Lua",
        "bot.lua",
        (("/usr/bin/luac5.4", "-p", "bot.lua"),),
        ("bot.lua",),
        ("/usr/bin/lua5.4", "bot.lua"),
        ("lua5.4",),
        endings=(".lua",),
    ),
    Language(
        "brainfuck",
        "Brainfuck",
        "bot.bf",
        (("/usr/bin/python3", "-I", "-c", CHECK, "bot.bf", BRACKETS, "unmatched [ or ]"),),
        ("bot.bf",),
        ("/usr/bin/beef", "--store=eof", "bot.bf"),  # the cell read at the input's end: -1
        ("beef",),
        not_in_docker_because="beef aborts (SIGABRT) as it starts behind its walls there",
        endings=(".bf", ".b"),
    ),
    Language(
        "befunge",
        "Befunge-93",
        "bot.bf93",
        # runner/common/befunge93.c: an interpreter with the program in it, one static binary.
        (
            (
                "gcc",
                "-std=c11",
                "-O2",
                "-Wall",
                "-static",
                "koth-befunge93.c",
                "-o",
                "bot",
            ),
        ),
        ("bot",),
        ("./bot",),
        ("gcc", "libc6-dev"),
        endings=(".bf93", ".befunge", ".b93"),
        support=("befunge93.c",),
    ),
)
BY_ID: Mapping[str, Language] = {language.id: language for language in LANGUAGES}
IDS = tuple(BY_ID)
SOURCES: Mapping[str, str] = {language.id: language.source for language in LANGUAGES}
ENDINGS: Mapping[str, str] = {
    ending: language.id for language in LANGUAGES for ending in language.endings
}


def find(language: str) -> Language:
    """The row of ``language`` (KeyError naming the known ones otherwise)."""
    try:
        return BY_ID[language]
    except KeyError:
        raise KeyError(f"unknown language {language!r} (known: {', '.join(IDS)})") from None


def for_command(command: list[str] | tuple[str, ...] | None) -> Language | None:
    """The language whose bots run by ``command`` exactly as its build left it (a runtime's
    ``run``: C, C++ and the rest of ``./bot`` need no more than the command). Any other command
    (the same runtime spelled otherwise) is run as given."""
    if not command:
        return None
    for language in LANGUAGES:
        if not language.own and tuple(command) == language.run:
            return language
    return None


# The languages every sandbox image holds (its Dockerfile installs their compilers, and .ci/run
# the machine's): the image for a season adds the packages of the others its entries use.
BASE = ("c", "cpp", "python", "befunge")


def packages(ids: Iterable[str] | None = None) -> list[str]:
    """The Debian packages of the languages ``ids`` (default: every language), sorted, each once."""
    chosen = [find(i) for i in ids] if ids is not None else LANGUAGES
    return sorted({package for language in chosen for package in language.packages})


def extra(ids: Iterable[str]) -> tuple[str, ...]:
    """Of the languages ``ids``, those beyond ``BASE``, in the table's order, each once."""
    wanted = set(ids) - set(BASE)
    return tuple(language.id for language in LANGUAGES if language.id in wanted)


if __name__ == "__main__":
    # ``python3 runner/common/languages.py``: every language's packages, one line, for
    # ``apt-get install`` (.ci/run; this file imports nothing of koth's, so no install is needed).
    print(" ".join(packages()))
