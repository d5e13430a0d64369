"""The Docker sandbox: every entry compiled and played inside a hardened Debian container.

- **Image**: runner/sandbox/Dockerfile (debian:bookworm-slim, gcc, python3-cffi, a non-root user)
  plus the programs copied in. Its base is the build argument BASE, from $KOTH_SANDBOX_BASE
  (the workflows pin it by digest; default debian:bookworm-slim). Its tag is a hash of the base
  and all the files: a change rebuilds it, nothing else does. ``save_image`` and ``load_image``
  carry it to another machine as a ``docker save`` archive (the season workflow builds it once).
- **Build**: one container per compile, with no network, a fixed command (build.sh), the entry
  read-only at /src and a fresh folder at /out as the only writable mount. Its output is
  accepted only as regular files under a size cap; the host checks the object again itself.
- **Play**: containers are started once per entry per job slot and reused for the whole run.
  Each runs the same zygote as the local sandbox (runner/bots/worker.py), which forks a fresh
  bot process per game and kills it after; with no writable filesystem, and System V IPC and
  message queues denied by the bots' seccomp filter, nothing survives between games. The host
  reaches the zygote through a Unix socket in a read-only bind mount, and the bot's channels are
  the host's own pipes passed over it, so a move costs what it costs locally.
- **Walls**: no network, every capability dropped but the three the zygote needs to give each
  bot a uid of its own and to kill it (SETUID, SETGID, KILL; a bot leaves them all behind when it
  leaves uid 0), no-new-privileges, read-only root, memory with swap equal to memory (the kernel's
  OOM killer, read from the container's cgroup, makes the loss "memory"), a pids limit, a CPU
  limit, ``--init``, ``--ipc none``, the ``none`` logging driver, no environment from the host;
  never the Docker socket or the repository: only the entry's build, read-only. The zygote is
  not dumpable and its bots run under other uids, behind the seccomp filter: no bot can trace,
  signal or read it. Still, the host believes nothing the container says without checking it,
  and counts anything that goes wrong with it as its entry's doing.
- **Builds** run as the image's non-root user.
- **Clean-up**: every container is labelled; all are removed (``docker kill`` semantics, never a
  graceful stop) when the sandbox closes, and leftovers of dead sessions when one opens.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import stat
import struct
import sys
import tempfile
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from runner.bots import objcheck, walls, worker
from runner.sandbox.local import COMPILER_OUTPUT_CAP, Compiled
from runner.sandbox.zygote import BotLimits, BotProcess, SandboxError, Zygote, ZygoteBroken

HERE = Path(__file__).parent
IMAGE_FILES = {
    "Dockerfile": HERE / "Dockerfile",
    "build.sh": HERE / "build.sh",
    "worker.py": Path(worker.__file__),
    "walls.py": Path(walls.__file__),
    "objcheck.py": Path(objcheck.__file__),
}
IMAGE_REPOSITORY = "koth-sandbox"
BASE_VARIABLE = "KOTH_SANDBOX_BASE"
DEFAULT_BASE = "debian:bookworm-slim"
LABEL = "koth.sandbox"
SESSION_LABEL = "koth.session"
BUILD_USER = "10001:10001"  # the image's non-root user
ZYGOTE_USER = "0:0"  # with SETUID, SETGID and KILL only: it gives each bot a uid of its own
ZYGOTE_CAPABILITIES = ["SETUID", "SETGID", "KILL"]
ZYGOTE_OVERHEAD = 64 << 20  # the zygote and its pre-forked children, inside the memory limit
ARTIFACT_CAP = 16 << 20
CONTAINER_BOT_ROOT = "/bot"


def base_image() -> str:
    """What the sandbox image is built FROM: $KOTH_SANDBOX_BASE, else debian:bookworm-slim."""
    return os.environ.get(BASE_VARIABLE, "").strip() or DEFAULT_BASE


def image_tag() -> str:
    digest = hashlib.sha256()
    digest.update(b"BASE\0" + base_image().encode() + b"\0")
    for name in sorted(IMAGE_FILES):
        digest.update(name.encode() + b"\0" + IMAGE_FILES[name].read_bytes() + b"\0")
    return f"{IMAGE_REPOSITORY}:{digest.hexdigest()[:16]}"


def _hardening(
    memory_bytes: int, pids: int, user: str = BUILD_USER, capabilities: list[str] | None = None
) -> dict[str, Any]:
    from docker.types import LogConfig

    return {
        "network_mode": "none",
        "cap_drop": ["ALL"],
        "cap_add": capabilities or [],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "user": user,
        "init": True,
        "ipc_mode": "none",
        "log_config": LogConfig(type="none"),
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


def ensure_image(client: Any, say: Callable[[str], None]) -> str:
    """Build the sandbox image unless one with this content hash exists; returns its tag."""
    import docker

    tag = image_tag()
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    base = base_image()
    say(f"building the sandbox image {tag} from {base} (once per change of what goes into it)")
    with tempfile.TemporaryDirectory(prefix="koth-image-") as context:
        for name, path in IMAGE_FILES.items():
            shutil.copyfile(path, Path(context) / name)
        log: list[str] = []
        chunks = client.api.build(
            path=context, tag=tag, rm=True, forcerm=True, decode=True, buildargs={"BASE": base}
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
        alive = host == socket.gethostname() and pid.isdigit() and _alive(int(pid))
        if not alive:
            _remove(container)
            removed += 1
    return removed


def _remove(container: Any) -> None:
    """Kill and remove (never a graceful stop); already gone is fine."""
    import docker

    try:
        container.remove(force=True)
    except (docker.errors.NotFound, docker.errors.APIError):
        pass  # gone already, or the engine is removing it (auto_remove)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _accept_file(path: Path) -> bytes | None:
    """A regular file (not a link) under the cap, from a folder a container could write."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > ARTIFACT_CAP:
        return None
    return path.read_bytes()


def _oom_counter(host_pid: int) -> Callable[[], int] | None:
    """Reads the OOM-kill count of the memory cgroup ``host_pid`` is in (v1 or v2)."""
    try:
        lines = Path(f"/proc/{host_pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    found: Path | None = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):  # cgroup v1
            found = Path("/sys/fs/cgroup/memory" + path) / "memory.oom_control"
            break
        if controllers == "":  # cgroup v2 (unless a v1 memory line follows)
            found = Path("/sys/fs/cgroup" + path) / "memory.events"
    if found is None or not found.exists():
        return None
    file = found

    def count() -> int:
        try:
            for row in file.read_text().splitlines():
                key, _, value = row.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    return count


class _PlayContainer:
    """One entry's container for one job slot, with its zygote."""

    def __init__(self, sandbox: DockerSandbox, jail: Path, limits: BotLimits) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="play-", dir=sandbox.workdir))
        self.folder.chmod(0o755)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        path = self.folder / "control.sock"
        listener.bind(str(path))
        path.chmod(0o777)  # the container's user must be able to connect
        listener.listen(1)
        listener.settimeout(60)
        self.container = sandbox.client.containers.run(
            sandbox.tag,
            ["python3", "-I", "/opt/koth/worker.py", "--control-socket", "/run/koth/control.sock"],
            volumes={
                str(jail): {"bind": CONTAINER_BOT_ROOT, "mode": "ro"},
                str(self.folder): {"bind": "/run/koth", "mode": "ro"},
            },
            labels=sandbox.labels,
            # Removed by the engine once the zygote exits: when the host closes its socket,
            # or dies (kill -9 included), no container of this run outlives it.
            auto_remove=True,
            **_hardening(
                limits.memory_bytes + ZYGOTE_OVERHEAD,
                pids=16,
                user=ZYGOTE_USER,
                capabilities=ZYGOTE_CAPABILITIES,
            ),
        )
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            self.container.remove(force=True)
            raise SandboxError("a sandbox container did not start within 60 s") from None
        finally:
            listener.close()
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        self.zygote_host_pid, _, _ = struct.unpack("3i", credentials)
        oom_kills = _oom_counter(self.zygote_host_pid)
        if oom_kills is None:
            connection.close()
            _remove(self.container)
            raise SandboxError("the sandbox container's memory cgroup could not be found")
        self.zygote = Zygote(
            connection, oom_kills=oom_kills, bot_root=CONTAINER_BOT_ROOT, untrusted=True
        )

    def close(self) -> None:
        self.zygote.close()
        _remove(self.container)
        shutil.rmtree(self.folder, ignore_errors=True)


class DockerSandbox:
    name = "docker"

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self.say = say or (lambda text: print(text, file=sys.stderr))
        self.client = connect()
        prune(self.client)
        self.tag = ensure_image(self.client, self.say)
        session = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.labels = {LABEL: "1", SESSION_LABEL: session}
        self.workdir = Path(tempfile.mkdtemp(prefix="koth-docker-"))
        self.workdir.chmod(0o755)
        self._containers: dict[tuple[str, int], _PlayContainer] = {}

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function"
    ) -> Compiled:
        """Build in a fresh container (build.sh's recipe); accept only regular files back."""
        import requests

        scratch = Path(tempfile.mkdtemp(prefix="build-", dir=self.workdir))
        scratch.chmod(0o777)  # the container's user writes here, and only here
        container = self.client.containers.run(
            self.tag,
            ["/bin/sh", "/opt/koth/build.sh", recipe],
            volumes={
                str(source.resolve()): {"bind": "/src", "mode": "ro"},
                str(scratch): {"bind": "/out", "mode": "rw"},
            },
            tmpfs={"/tmp": "rw,nosuid,nodev,size=64m"},
            labels=self.labels,
            **_hardening(1 << 30, pids=64),
        )
        try:
            code = int(container.wait(timeout=wall_s)["StatusCode"])
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
            code = -1
        finally:
            _remove(container)
        log = _accept_file(scratch / "log.txt") or b""
        output = log[:COMPILER_OUTPUT_CAP].decode("utf-8", errors="replace")
        obj, library = _accept_file(scratch / "bot.o"), _accept_file(scratch / "bot.so")
        program_name = "bot.py" if recipe == "python" else "bot"
        program = _accept_file(scratch / program_name)
        shutil.rmtree(scratch, ignore_errors=True)
        if code == -1:
            return Compiled(False, "compile", f"the compiler ran longer than {wall_s:g} s")
        if recipe != "c-function":
            if code != 0 or program is None:
                return Compiled(False, "compile", output or f"the build exited with {code}")
            jail = out / "jail"
            jail.mkdir(exist_ok=True)
            (jail / program_name).write_bytes(program)
            (jail / program_name).chmod(0o555)
            return Compiled(True, "ok", output)
        if obj is None:
            return Compiled(False, "compile", output or f"the build container exited with {code}")
        (out / "bot.o").write_bytes(obj)
        if code == 11:
            return Compiled(False, "check", output)
        if code != 0 or library is None:
            return Compiled(False, "link", output)
        jail = out / "jail"
        jail.mkdir(exist_ok=True)
        (jail / "bot.so").write_bytes(library)
        return Compiled(True, "ok", output)

    def prepare(self, jails: Sequence[Path], limits: BotLimits) -> None:
        """Start the containers of these entries side by side (starting one takes ~0.3 s of
        mostly waiting on the engine), so a season does not start them one by one."""
        missing = [
            j for j in dict.fromkeys(jails) if (str(j), limits.memory_bytes) not in self._containers
        ]
        if not missing:
            return
        with ThreadPoolExecutor(max_workers=8) as threads:
            boxes = list(threads.map(lambda jail: _PlayContainer(self, jail, limits), missing))
        for jail, box in zip(missing, boxes, strict=True):
            self._containers[(str(jail), limits.memory_bytes)] = box

    def spawn(self, jail: Path, limits: BotLimits, program: list[str] | None = None) -> BotProcess:
        """A bot process in the entry's container. Between games a container whose zygote
        died, fell silent or misbehaved is replaced by a fresh one, never blamed on a game."""
        key = (str(jail), limits.memory_bytes)
        for _ in range(2):
            box = self._containers.get(key)
            if box is not None and box.zygote.dead:
                box.close()
                box = None
            if box is None:
                box = self._containers[key] = _PlayContainer(self, jail, limits)
            try:
                process = box.zygote.spawn(CONTAINER_BOT_ROOT, limits, program)
                box.zygote.await_pid(process)
                return process
            except ZygoteBroken:
                box.close()
                del self._containers[key]
        raise SandboxError("two fresh sandbox containers in a row did not start a bot")

    def close(self) -> None:
        for box in self._containers.values():
            box.close()
        self._containers.clear()
        for container in self.client.containers.list(
            all=True,
            filters={"label": f"{SESSION_LABEL}={self.labels[SESSION_LABEL]}"},
            ignore_removed=True,
        ):
            _remove(container)
        shutil.rmtree(self.workdir, ignore_errors=True)
