"""The Docker sandbox: every entry compiled and played inside a hardened Debian container.

- **Image**: runner/sandbox/Dockerfile (debian:bookworm-slim, gcc, python3-cffi, a non-root user)
  plus the programs copied in. Its base is the build argument BASE, from $KOTH_SANDBOX_BASE
  (the workflows pin it by digest; default debian:bookworm-slim). Its tag is a hash of the base
  and all the files: a change rebuilds it, nothing else does. ``save_image`` and ``load_image``
  carry it to another machine as a ``docker save`` archive (the season workflow builds it once).
- **Build**: runner/sandbox/dockerbuild.py. Each build thread keeps one build container, which
  builds one entry after another, each under a uid of its own, on a private copy of its regular
  files, with size-capped tmpfs mounts as the only writable places: nothing it writes reaches the
  host's disk, and no build sees another's files. The artefacts come back as a tar stream on the
  container's stdout, read up to a cap; only regular files with the expected names under the cap
  are accepted, and the host checks the object again itself.
- **Play**: a job slot starts a few play containers and reuses them for the whole run. Each mounts
  every entry's jail read-only (the build stage's mounts the whole build folder, so one container
  loads every entry as it is built) and runs the same zygote as the local sandbox
  (runner/jail/zygote.py), which forks a fresh bot process per game in its own entry's jail (no
  chroot there: each entry's build folder is closed to all but its owner and group, the zygote is
  in the group and the bot is not, and the mounts' folder is the container root's only, so no bot
  reaches another entry's build; a Python bot is chrooted into the image's view, VIEW, which holds
  that folder and the runtime's files, and no /proc, /sys or /etc) and kills it after. A
  container holds one bot at a time (the next starts once the last has ended, and what that one
  left charged to the container's memory is under a bound: ``_PlayContainer.unburdened``): its
  memory limit, its OOM count and a supervisor that fails in it are that bot's alone (a game of
  two seats takes two containers).
  With no writable filesystem, and System V IPC and message queues denied by the bots' seccomp
  filter, nothing survives between games, whoever played them. The host reaches the zygote through a
  Unix socket in a read-only bind mount, and the bot's channels are the host's own pipes passed over
  it, so a move costs what it costs locally.
- **Walls**: no network, every capability dropped but the four the zygote needs to give each bot a
  uid of its own, to kill it and to chroot a Python bot (SETUID, SETGID, KILL, SYS_CHROOT; a bot
  leaves them all behind when it leaves uid 0), the host name koth, no-new-privileges, read-only
  root, memory with swap equal to memory (the kernel's OOM killer, read from the container's
  cgroup, makes the loss "memory"), a pids limit, a CPU limit, ``--init``, ``--ipc none``, the
  ``none`` logging driver, no environment from the host; never the Docker socket or the
  repository: only the entries' builds, read-only. The zygote is not dumpable and its bots run
  under other uids, behind the seccomp filter: no bot can trace, signal or read it. Still, the
  host believes nothing the container says without checking it, and counts anything that goes
  wrong with it as its entry's doing.
- **Clean-up**: every container is labelled; all are removed (``docker kill`` semantics, never a
  graceful stop) when the sandbox closes, and leftovers of dead sessions when one opens.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import socket
import struct
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

from runner.common import languages, resources
from runner.common.safefiles import UnsafeFileError, read_tree
from runner.jail import walls
from runner.jail import zygote as zygote_program
from runner.sandbox import cblank, cgroups
from runner.sandbox.buildjail import ran_out_of_room
from runner.sandbox.dockerbuild import (
    BUILD_CAPABILITIES,
    BUILD_MEMORY,
    BUILD_OUT_SIZE,
    BUILD_PIDS,
    BuildContainer,
    BuildContainerLost,
)
from runner.sandbox.local import ARTIFACT_CAP, COMPILER_OUTPUT_CAP, Compiled, support_files
from runner.sandbox.zygote_client import BotLimits, BotProcess, SandboxError, Zygote, ZygoteBroken

HERE = Path(__file__).parent
IMAGE_FILES = {
    "Dockerfile": HERE / "Dockerfile",
    "build.sh": resources.shipped("runner.jail", "build.sh"),
    "buildserver.py": resources.shipped("runner.jail", "buildserver.py"),
    "zygote.py": Path(zygote_program.__file__),
    "walls.py": Path(walls.__file__),
    "cblank.c": cblank.SOURCE,
}
NATIVE = "/opt/koth/cblank"  # the C blank, compiled as the image is built (Dockerfile)
IMAGE_REPOSITORY = "koth-sandbox"
BASE_VARIABLE = "KOTH_SANDBOX_BASE"
DEFAULT_BASE = "debian:bookworm-slim"
LABEL = "koth.sandbox"
SESSION_LABEL = "koth.session"
# SYS_CHROOT: a Python bot is chrooted into the image's view (VIEW).
ZYGOTE_CAPABILITIES = ["SETUID", "SETGID", "KILL", "SYS_CHROOT"]
ZYGOTE_OVERHEAD = 64 << 20  # the zygote and its pre-forked children, inside the memory limit
# The zygote, its blanks (up to worker.MAX_BLANKS) and its bots: the seats one entry holds in a
# game (a built-in bot filling six seats of an Easter Egg Hunt runs six at once).
ZYGOTE_PIDS = 48
# The view a program its language runs is chrooted into (the Dockerfile: the image's /usr, and
# no /proc, /sys or /etc), and where a play container sees the folders it mounts, in that view:
# its root's only, so that a bot whose jail is mounted there itself cannot pass from it to the
# others.
VIEW = "/opt/koth/view"
CONTAINER_BOTS = VIEW + "/bots"
PREPARED_CONTAINERS = 2  # per job slot, started side by side: a two-seat game's (``prepare``)
# How a container may see a jail: each a folder it mounts (the host's path) and the jail below it.
Ways = list[tuple[str, PurePosixPath]]
SETTLE_WALL_S = 2.0  # how long a container's last bot may take to end before it is replaced
MOUNTS_AT_MOST = 256  # jails a container mounts one by one (a served folder holds any number)


def base_image() -> str:
    """What the sandbox image is built FROM: $KOTH_SANDBOX_BASE, else debian:bookworm-slim."""
    return os.environ.get(BASE_VARIABLE, "").strip() or DEFAULT_BASE


def recipe(language: languages.Language) -> str:
    """build.sh's recipe for ``language``, from its row: its build's environment, its steps (a
    failed one fails the build), its artefacts copied to /out."""
    lines = [f"# {language.name}: made from runner/common/languages.py (runner/sandbox/docker.py)"]
    lines += [f"export {name}={shlex.quote(value)}" for name, value in language.build_env]
    lines += [f"{shlex.join(step)} 3>&- || finish 10" for step in language.build]
    lines += [f"cp {shlex.quote(name)} /out/ || finish 12" for name in language.artefacts]
    return "\n".join(lines) + "\n"


def image_context() -> dict[str, bytes]:
    """Every file the image is built from, by its name in the build's context: koth's programs,
    and each language's recipe (``recipes/ID.sh``) and support files (``support/NAME``)."""
    context = {name: path.read_bytes() for name, path in IMAGE_FILES.items()}
    for language in languages.LANGUAGES:
        context[f"recipes/{language.id}.sh"] = recipe(language).encode()
    return context


def image_arguments(wanted: Iterable[str] = ()) -> dict[str, str]:
    """The image's build arguments: its base, the C blank's flags, the packages of the languages
    ``wanted`` beyond those every image holds (runner/common/languages.py ``BASE``) and the
    folders outside /usr their runtimes read (the bots' view holds them)."""
    chosen = [languages.find(language) for language in languages.extra(wanted)]
    chosen = [language for language in chosen if not language.not_in_docker]
    view = sorted({folder for language in chosen for folder in language.view})
    return {
        "BASE": base_image(),
        "CBLANK_FLAGS": " ".join(cblank.FLAGS),
        "PACKAGES": " ".join(languages.packages(language.id for language in chosen)),
        "VIEW_MORE": " ".join(view),
    }


def image_tag(wanted: Iterable[str] = ()) -> str:
    """The tag of the image for bots in the languages ``wanted``: a hash of what goes into it."""
    digest = hashlib.sha256()
    for name, value in sorted(image_arguments(wanted).items()):
        digest.update(name.encode() + b"\0" + value.encode() + b"\0")
    context = image_context()
    for name in sorted(context):
        digest.update(name.encode() + b"\0" + context[name] + b"\0")
    return f"{IMAGE_REPOSITORY}:{digest.hexdigest()[:16]}"


def hardening(memory_bytes: int, pids: int, user: str, capabilities: list[str]) -> dict[str, Any]:
    """The options every container of koth's is created with (the SDK's names), for ``user``
    holding only ``capabilities``, under these memory and process limits."""
    from docker.types import LogConfig

    return {
        "network_mode": "none",
        # No network at all, and so no network set-up: the engine then skips the hook that
        # starts a copy of itself to configure one (half of a container's start, ~0.1 s of
        # CPU). The container still gets a namespace of its own holding only a loopback device
        # (tests/test_docker.py checks).
        "network_disabled": True,
        "cap_drop": ["ALL"],
        "cap_add": capabilities,
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "user": user,
        "init": True,
        "ipc_mode": "none",
        "log_config": LogConfig(type="none"),
        "hostname": zygote_program.HOST_NAME,  # nothing of the machine's name (uname)
        "environment": {},
        "mem_limit": memory_bytes,
        "memswap_limit": memory_bytes,
        "pids_limit": pids,
        "nano_cpus": 1_000_000_000,
        "detach": True,
        "stdin_open": False,
        "tty": False,
    }


def connect() -> Any:
    """A Docker client, or a SandboxError that says what to do."""
    try:
        import docker

        client = docker.from_env(version="auto", timeout=120)
        client.ping()
    except Exception as exc:  # the SDK raises several kinds; all mean "no engine here"
        raise SandboxError(
            f"no Docker engine answers ({exc}). Start dockerd (as root: `bash "
            ".ci/docker-engine.sh` installs and starts one), or use `sandbox: local`."
        ) from None
    return client


def ensure_image(client: Any, say: Callable[[str], None], wanted: Iterable[str] = ()) -> str:
    """Build the sandbox image for bots in the languages ``wanted`` unless one with its content
    hash exists; returns its tag."""
    import docker

    wanted = tuple(wanted)
    tag = image_tag(wanted)
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    base = base_image()
    say(f"building the sandbox image {tag} from {base} (once per change of what goes into it)")
    with tempfile.TemporaryDirectory(prefix="koth-image-") as context:
        for name, data in image_context().items():
            (Path(context) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(context) / name).write_bytes(data)
        log: list[str] = []
        arguments = image_arguments(wanted)
        chunks = client.api.build(
            path=context, tag=tag, rm=True, forcerm=True, decode=True, buildargs=arguments
        )
        for chunk in chunks:
            if "stream" in chunk:
                line = chunk["stream"].rstrip()
                if line:
                    log.append(line)
                    if line.startswith("Step "):
                        say(f"  {line}")
            if "error" in chunk:
                tail = "\n".join(log[-20:])
                raise SandboxError(f"building the sandbox image failed: {chunk['error']}\n{tail}")
    return tag


def save_image(client: Any, tag: str, path: Path) -> None:
    """Write the image ``tag`` to ``path`` as a ``docker save`` archive (atomically)."""
    import docker

    tmp = path.with_name(f".{path.name}.tmp")
    try:
        image = client.images.get(tag)
        with open(tmp, "wb") as handle:
            for chunk in image.save(named=tag):
                handle.write(chunk)
        os.replace(tmp, path)
    except (docker.errors.APIError, OSError) as exc:
        tmp.unlink(missing_ok=True)
        raise SandboxError(f"saving the sandbox image {tag} to {path} failed: {exc}") from None


def load_image(client: Any, path: Path) -> list[str]:
    """Load a ``docker save`` archive; the tags it held."""
    import docker

    tags: list[str] = []
    try:
        with open(path, "rb") as handle:
            for chunk in client.api.load_image(handle):
                if "error" in chunk:
                    raise SandboxError(f"loading {path} failed: {chunk['error']}")
                stream = str(chunk.get("stream", ""))
                if stream.startswith("Loaded image: "):
                    tags.append(stream.removeprefix("Loaded image: ").strip())
    except (docker.errors.APIError, OSError) as exc:
        raise SandboxError(f"loading the sandbox image from {path} failed: {exc}") from None
    return tags


def prune(client: Any) -> int:
    """Remove koth containers of sessions whose host process is gone; returns how many."""
    removed = 0
    for container in client.containers.list(
        all=True, filters={"label": LABEL}, ignore_removed=True
    ):
        host, pid, _ = (container.labels.get(SESSION_LABEL, "").split(":") + ["", ""])[:3]
        alive = host == socket.gethostname() and pid.isdigit() and walls.alive(int(pid))
        if not alive:
            remove(container)
            removed += 1
    return removed


def remove(container: Any) -> None:
    """Kill and remove (never a graceful stop); already gone is fine."""
    import docker

    try:
        container.remove(force=True)
    except (docker.errors.NotFound, docker.errors.APIError):
        pass  # gone already, or the engine is removing it (auto_remove)


def _oom_counter(group: cgroups.Group) -> Callable[[], int] | None:
    """Reads the OOM-kill count of a memory cgroup (v1 or v2)."""
    if group.oom_kills() is None:
        return None

    def count() -> int:
        return group.oom_kills() or 0

    return count


def _artefacts(
    files: dict[str, bytes], status: int, output: str, out: Path, recipe: str
) -> Compiled:
    """The build's verdict from build.sh's status, its artefacts written to ``out``."""
    if recipe != languages.C_FUNCTION:
        names = languages.find(recipe).artefacts
        if status != 0 or any(name not in files for name in names):
            return Compiled(False, "compile", output or f"the build ended with status {status}")
        jail = out / "jail"
        jail.mkdir(exist_ok=True)
        for name in names:
            (jail / name).write_bytes(files[name])
            (jail / name).chmod(0o555 if name == "bot" else 0o444)
        return Compiled(True, "ok", output)
    obj, library = files.get("bot.o"), files.get("bot.so")
    if obj is None or status in (9, 10):  # build.sh: 10 the compiler failed, 9 no recipe
        return Compiled(False, "compile", output or f"the build ended with status {status}")
    (out / "bot.o").write_bytes(obj)
    if status != 0 or library is None:
        return Compiled(False, "link", output)
    jail = out / "jail"
    jail.mkdir(exist_ok=True)
    (jail / "bot.so").write_bytes(library)
    return Compiled(True, "ok", output)


def _passable(folder: Path) -> bool:
    """Whether the zygote (root with no right to override a folder's mode, and this process's
    group: ``zygote_user``) may pass through ``folder``. A bot may not unless anyone may."""
    try:
        found = folder.stat()
    except OSError:
        return False
    mode = found.st_mode
    return bool(
        mode & 0o001
        or (found.st_gid == os.getgid() and mode & 0o010)
        or (found.st_uid == 0 and mode & 0o100)
    )


def zygote_user() -> str:
    """A play container's user: root (with SETUID, SETGID and KILL only: it gives each bot a uid
    and gid of its own, and no other group) in this process's group, through which it passes the
    entries' build folders (runner/season/build.py ENTRY_FOLDER_MODE) that no bot may."""
    return f"0:{os.getgid()}"


def _same_cpu() -> dict[str, str]:
    """The container options that keep its bots on the one CPU this process keeps to, if it keeps
    to one (runner/season/workers.py ``pin_to_one_cpu``: a job slot's host and bots share one)."""
    try:
        cpus = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return {}
    return {"cpuset_cpus": str(min(cpus))} if len(cpus) == 1 else {}


def _run_on_same_cpu(sandbox: DockerSandbox, command: list[str], options: dict[str, Any]) -> Any:
    """The container started, on this process's one CPU if it keeps to one; where the engine
    may not use that CPU (its own cpuset lacks it), started without: that only costs speed."""
    from docker.errors import APIError

    pinned = _same_cpu()
    if pinned:
        try:
            return sandbox.client.containers.run(sandbox.tag, command, **options, **pinned)
        except APIError as error:  # "Requested CPUs are not available ..."
            if "cpu" not in str(error).lower():
                raise
    return sandbox.client.containers.run(sandbox.tag, command, **options)


class _PlayContainer:
    """A job slot's play container with its zygote: it holds one bot at a time, of any entry
    whose folder it has mounted (``places``: host folder -> where the container sees it)."""

    def __init__(self, sandbox: DockerSandbox, places: dict[str, str], limits: BotLimits) -> None:
        self.places = places
        self.memory_bytes = limits.memory_bytes
        self.bots: list[BotProcess] = []  # handed out; the container is free once all closed
        self.jail: Path | None = None  # the jail of the bot it was last given
        self.folder = Path(tempfile.mkdtemp(prefix="play-", dir=sandbox.workdir))
        self.folder.chmod(0o755)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        path = self.folder / "control.sock"
        listener.bind(str(path))
        path.chmod(0o777)  # the container's user must be able to connect
        listener.listen(1)
        listener.settimeout(60)
        # Started as a Python bot is (the interpreter, its flags, its environment: `env -i`
        # drops the HOSTNAME and HOME the engine adds, and Python's start reads HOME), so the
        # zygote runs Python bots in warm forks of itself (runner/jail/zygote.py).
        environment = [f"{name}={value}" for name, value in zygote_program.PROGRAM_ENV.items()]
        command = ["env", "-i", *environment, *zygote_program.PYTHON_COMMAND]
        if not sandbox.python_bots:  # from its code compiled in the image (worker.LAUNCH)
            command += ["-c", zygote_program.LAUNCH]
        command.append("/opt/koth/zygote.py")
        volumes = {host: {"bind": inside, "mode": "ro"} for host, inside in places.items()}
        options: dict[str, Any] = {
            "volumes": {**volumes, str(self.folder): {"bind": "/run/koth", "mode": "ro"}},
            "labels": sandbox.labels,
            # Removed by the engine once the zygote exits: when the host closes its socket,
            # or dies (kill -9 included), no container of this run outlives it.
            "auto_remove": True,
            **hardening(
                limits.memory_bytes + ZYGOTE_OVERHEAD,
                pids=ZYGOTE_PIDS,
                user=zygote_user(),
                capabilities=ZYGOTE_CAPABILITIES,
            ),
            "environment": dict(zygote_program.PROGRAM_ENV),  # constants, nothing of the host's
        }
        command += ["--control-socket", "/run/koth/control.sock", "--native", NATIVE]
        self.container = _run_on_same_cpu(sandbox, command, options)
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            self.container.remove(force=True)
            raise SandboxError("a sandbox container did not start within 60 s") from None
        finally:
            listener.close()
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        self.zygote_host_pid, _, _ = struct.unpack("3i", credentials)
        group = cgroups.find(self.zygote_host_pid, "memory")
        oom_kills = _oom_counter(group) if group is not None else None
        if group is None or oom_kills is None:
            connection.close()
            remove(self.container)
            raise SandboxError("the sandbox container's memory cgroup could not be found")
        self.zygote = Zygote(connection, oom_kills=oom_kills, untrusted=True)
        self.memory = group
        self.baseline = group.memory_in_use()  # charged to it as it starts

    @property
    def free(self) -> bool:
        """No bot in it the host still holds (one it closed is being killed)."""
        return all(bot.closed for bot in self.bots) and not self.zygote.dead

    def settled(self) -> bool:
        """Whether every bot it held has ended, waiting a moment for the news: only then has
        the kernel given back their memory, and may the next bot's OOM count start."""
        try:
            return self.zygote.settle(SETTLE_WALL_S)
        except SandboxError:
            return False

    def unburdened(self) -> bool:
        """Whether the memory charged to it is back under its bound (its charge as it started,
        plus an eighth of a bot's limit), its last bot ended. A bot can leave kernel objects
        charged to its container after it ends (the names it looked up, found or not, pages it
        read): the next bot in it would start that much short of the memory it is owed, and lose
        its moves' CPU to the kernel reclaiming them (as the local sandbox's memory groups,
        runner/jail/zygote.py ``_still_charged``). False where it cannot be read."""
        charged = self.memory.memory_in_use()
        if charged is None or self.baseline is None:
            return False
        return charged <= self.baseline + self.memory_bytes // 8

    def close(self) -> None:
        self.zygote.close()
        remove(self.container)
        shutil.rmtree(self.folder, ignore_errors=True)


class DockerSandbox:
    name = "docker"
    # Containers are shared by entries and handed out by one thread at a time: entries built
    # side by side (runner/season/check.py) load their bots one at a time (runner/season/build.py).
    spawns_in_parallel = False

    def __init__(
        self,
        say: Callable[[str], None] | None = None,
        python_bots: bool = True,
        wanted: Iterable[str] = (),
    ) -> None:
        """``python_bots``: whether its containers may play Python bots. Those run in warm forks
        of the container's zygote, which then starts as the script a Python bot runs as (its
        forks see what that would); without them it starts from its compiled code. ``wanted``:
        the languages of the bots it builds and plays beyond those every image holds (its image
        adds their packages only: runner/common/languages.py ``BASE``)."""
        self.say = say or (lambda text: print(text, file=sys.stderr))
        self.python_bots = python_bots
        self.languages = {*languages.BASE, *wanted}
        self.client = connect()
        prune(self.client)
        self.tag = ensure_image(self.client, self.say, languages.extra(wanted))
        session = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.labels = {LABEL: "1", SESSION_LABEL: session}
        self.workdir = Path(tempfile.mkdtemp(prefix="koth-docker-"))
        self.workdir.chmod(0o755)
        self._builders: list[BuildContainer] = []
        self._building: set[BuildContainer] = set()  # taken by a build thread
        self._builders_lock = threading.Lock()
        self._boxes: list[_PlayContainer] = []
        self._background = ThreadPoolExecutor(
            max_workers=PREPARED_CONTAINERS, thread_name_prefix="koth-docker"
        )
        self._starting: list[Future[_PlayContainer]] = []  # containers started in the background
        self._served: list[Path] = []  # folders whose jails any container may play (``serve``)
        self._ways_of: dict[Path, Ways] = {}  # ``_ways`` of each jail asked for, while served
        self._load_limits: BotLimits | None = None  # the loading container's, until it starts
        self._wanted: dict[str, None] = {}  # jails to mount in the next container, oldest first
        self._places: dict[str, str] = {}  # host folder -> its mount point in every container

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function", header: str = ""
    ) -> Compiled:
        """Build in one of the sandbox's build containers (runner/sandbox/dockerbuild.py:
        build.sh's recipe on a private copy of the entry, under a uid of its own); what comes
        back is read from the container's stdout, at most BUILD_STREAM_CAP bytes, and only
        regular files with the expected names under the cap are accepted."""
        try:
            files = read_tree(source)
        except UnsafeFileError as exc:
            return Compiled(False, "compile", str(exc))
        if recipe != languages.C_FUNCTION:
            row = languages.find(recipe)
            if row.not_in_docker:
                return Compiled(
                    False,
                    "compile",
                    f"{row.name} bots do not run in the Docker sandbox yet: {row.not_in_docker}. "
                    "Fix: play the season with `sandbox: local`.",
                )
            if recipe not in self.languages:
                return Compiled(
                    False, "compile", f"this sandbox's image was made without {row.name}"
                )
        with tempfile.TemporaryDirectory() as scratch:
            files.update(support_files(recipe, Path(scratch), header))
        with self._builders_lock:
            self._start_loading()
        builder = self._take_builder()
        try:
            received = builder.build(files, recipe, wall_s)
        except BuildContainerLost as exc:  # the build is the only thing that ran in it
            received = str(exc)
        finally:
            self._give_back(builder)
        if isinstance(received, str):
            return Compiled(False, "compile", received)
        files, status = received
        output = files.pop("log.txt", b"")[:COMPILER_OUTPUT_CAP].decode("utf-8", errors="replace")
        if status in (10, 12) and ran_out_of_room(output):
            output += (
                f"koth: the build ran out of room: its output may be at most "
                f"{BUILD_OUT_SIZE >> 20} MiB in all ({ARTIFACT_CAP >> 20} MiB a file)\n"
            )
        return _artefacts(files, status, output, out, recipe)

    def _take_builder(self) -> BuildContainer:
        """A build container no other thread is using (one is started if none is free)."""
        with self._builders_lock:
            for builder in self._builders:
                if builder not in self._building and not builder.lost:
                    self._building.add(builder)
                    return builder
        options = {
            "labels": self.labels,
            **hardening(BUILD_MEMORY, BUILD_PIDS, "0:0", BUILD_CAPABILITIES),
        }
        builder = BuildContainer(self.client, self.tag, self.workdir, options)
        with self._builders_lock:
            self._builders.append(builder)
            self._building.add(builder)
        return builder

    def _give_back(self, builder: BuildContainer) -> None:
        with self._builders_lock:
            self._building.discard(builder)
            if builder.lost:
                self._builders.remove(builder)
        if builder.lost:
            builder.close()

    def serve(self, folder: Path, limits: BotLimits | None = None) -> None:
        """Bots will be played from jails anywhere under ``folder`` (the build stage loads each
        entry once as it is built): a container started from now on mounts it whole, so one
        container serves every entry built there. With ``limits``, one is started in the
        background as the first entry is compiled (none when every build is cached)."""
        folder = folder.resolve()
        if folder in self._served:
            return
        self._served.append(folder)
        self._ways_of.clear()  # a jail may be in this folder
        self._load_limits = limits

    def start_ahead(self, limits: BotLimits, count: int = PREPARED_CONTAINERS) -> None:
        """Start ``count`` play containers in the background, mounting what is served (a job
        slot's, while the entries are still being built: ``GamePool.start_ahead``)."""
        places = self._mounts()
        for _ in range(count):
            self._starting.append(self._background.submit(_PlayContainer, self, places, limits))

    def _start_loading(self) -> None:
        """At the first compile: the container that will load the built bots, started in the
        background (``serve``)."""
        limits, self._load_limits = self._load_limits, None
        if limits is not None:
            self.start_ahead(limits, 1)

    def _started(self) -> None:
        """Take in the containers started in the background (one that failed to start is
        forgotten: a start in the foreground says why)."""
        starting, self._starting = self._starting, []
        for future in starting:
            try:
                self._boxes.append(future.result())
            except SandboxError:
                pass

    def prepare(
        self, jails: Sequence[Path], limits: BotLimits, seats: int = PREPARED_CONTAINERS
    ) -> None:
        """These jails will be played in games of ``seats``: start the containers such a game
        needs, side by side, each mounting all of them (starting one takes ~0.3 s of the
        engine's CPU)."""
        self._started()
        ways = [self._ways(jail) for jail in jails]
        for way in ways:
            self._want(way)
        mounted = [b for b in self._boxes if self._holds(b, ways, limits) and b.free]
        missing = seats - len(mounted)
        if missing <= 0:
            return
        self._retire(ways, limits)
        places = self._mounts()
        with ThreadPoolExecutor(max_workers=min(missing, 8)) as threads:
            started = threads.map(lambda _: _PlayContainer(self, places, limits), range(missing))
            self._boxes.extend(started)

    def spawn(
        self,
        jail: Path,
        limits: BotLimits,
        program: list[str] | None = None,
        abi: dict[str, Any] | None = None,
    ) -> BotProcess:
        """A bot process in a free play container that mounts its jail (one is started if
        none is free). A container holds one bot at a time, so its memory limit and OOM count
        are that bot's alone, and a supervisor that fails in it is that bot's doing. Between
        games a container whose zygote died, fell silent or misbehaved is replaced by a fresh
        one, never blamed on a game."""
        self._started()
        ways = self._ways(jail)
        self._want(ways)
        for attempt in range(2):
            box = next((b for b in self._boxes if b.free and self._holds(b, [ways], limits)), None)
            if box is not None and not (box.settled() and box.unburdened()):
                # A bot of its ended but not yet reaped, or one left memory charged to it:
                # never the next bot's to share its memory with.
                box.close()
                self._boxes.remove(box)
                box = None
            if box is None or attempt > 0:  # after a broken one, a fresh one
                self._retire([ways], limits)
                box = _PlayContainer(self, self._mounts(), limits)
                self._boxes.append(box)
            inside = self._inside(box, ways)
            if inside is None:
                raise SandboxError(f"the bot's folder {jail} is not there to mount")
            try:
                process = box.zygote.spawn(inside, limits, program, abi=abi, view=VIEW)
                box.zygote.await_pid(process)
                box.bots, box.jail = [process], jail
                return process
            except ZygoteBroken:
                box.close()
                self._boxes.remove(box)
        raise SandboxError("a fresh sandbox container did not start a bot either")

    def _ways(self, jail: Path) -> Ways:
        """How a container may see ``jail``, the first way preferred: through the served folder
        it is in, or mounted itself. Each way is a folder a container mounts (its path on the
        host) and the jail's path below it. Worked out once per jail (a path resolved and each
        folder on it looked at: ~0.1 ms, and every game's ``prepare`` asks for all its batch's
        jails), until another folder is served."""
        known = self._ways_of.get(jail)
        if known is not None:
            return known
        resolved = jail.resolve()
        own = (str(resolved), PurePosixPath())
        folder = self._under(resolved)
        ways = (
            [own]
            if folder is None
            else [(str(folder), PurePosixPath(resolved.relative_to(folder))), own]
        )
        self._ways_of[jail] = ways
        return ways

    def _want(self, ways: Ways) -> None:
        """Mount this jail in the next container (its own way: the last)."""
        key = ways[-1][0]
        self._wanted.pop(key, None)
        self._wanted[key] = None

    def _under(self, jail: Path) -> Path | None:
        """The served folder ``jail`` (resolved) is in, if every folder down to it lets others
        pass (the container's root has no right to override a folder's mode)."""
        for folder in self._served:
            if jail.is_relative_to(folder):
                steps = [step for step in jail.parents if step.is_relative_to(folder)]
                if all(_passable(step) for step in steps):
                    return folder
        return None

    def _mounts(self) -> dict[str, str]:
        """What a container started now mounts: the served folders and the jails most
        recently asked for, those that exist, each at its own place."""
        folders = [*self._served]
        for key in reversed(self._wanted):
            if len(folders) >= MOUNTS_AT_MOST:
                break
            if self._under(Path(key)) is None:
                folders.append(Path(key))
        places: dict[str, str] = {}
        for folder in folders:
            if folder.is_dir():
                key = str(folder)
                place = self._places.setdefault(key, f"{CONTAINER_BOTS}/{len(self._places)}")
                places[key] = place
        return places

    @staticmethod
    def _way(box: _PlayContainer, ways: Ways) -> tuple[str, PurePosixPath] | None:
        """The first of ``ways`` by which the container ``box`` sees its jail (None: none)."""
        places = box.places
        for way in ways:
            if way[0] in places:
                return way
        return None

    @classmethod
    def _inside(cls, box: _PlayContainer, ways: Ways) -> str | None:
        """Where the container ``box`` sees the jail of ``ways`` (None: it does not)."""
        way = cls._way(box, ways)
        return None if way is None else str(PurePosixPath(box.places[way[0]], way[1]))

    @classmethod
    def _holds(cls, box: _PlayContainer, jails: Sequence[Ways], limits: BotLimits) -> bool:
        """Whether ``box`` sees every jail of ``jails`` (``_way``: no path is made, and every
        game's ``prepare`` asks it for all its batch's jails)."""
        return box.memory_bytes == limits.memory_bytes and all(
            cls._way(box, ways) is not None for ways in jails
        )

    def _retire(self, jails: Sequence[Ways], limits: BotLimits) -> None:
        """Close the free containers that cannot play ``jails`` (their ways): one started now
        replaces them (it mounts what they did that still exists, and these)."""
        for box in [b for b in self._boxes if b.free and not self._holds(b, jails, limits)]:
            box.close()
            self._boxes.remove(box)

    def keep_to(self, cpus: set[int]) -> None:
        """The play containers started so far keep their zygote, blanks and bots to ``cpus``
        (their cpuset, changed in place); one started later takes this process's CPU
        (``_same_cpu``)."""
        for box in self._boxes:
            try:
                box.container.update(cpuset_cpus=",".join(map(str, sorted(cpus))))
            except Exception:  # the SDK raises several kinds; it only costs speed: play on
                pass

    def close(self) -> None:
        self._started()
        self._background.shutdown()
        closing: list[BuildContainer | _PlayContainer] = [*self._builders, *self._boxes]
        self._builders.clear()
        self._boxes.clear()
        with ThreadPoolExecutor(max_workers=8) as threads:  # each waits on the engine
            list(threads.map(lambda container: container.close(), closing))
        for container in self.client.containers.list(
            all=True,
            filters={"label": f"{SESSION_LABEL}={self.labels[SESSION_LABEL]}"},
            ignore_removed=True,
        ):
            remove(container)
        shutil.rmtree(self.workdir, ignore_errors=True)
