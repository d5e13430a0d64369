"""Docker builds: a build container serves one build after another, each under a uid of its own.

A season's builds used to start a container each (~0.3 s of the engine's CPU apiece: most of a
Docker build stage). Now each build thread keeps one container for the whole stage:

- **The container**: no network, every capability dropped but SETUID and SETGID (its driver,
  runner/jail/buildserver.py, runs each build under a uid of its own and leaves root behind
  there), no-new-privileges, read-only root, size-capped tmpfs mounts as the only writable places
  (/out, /tmp and /koth for the build; /result, the driver's only, for the answer), the largest
  file a build may write capped, a memory, pids and CPU limit. Its only view of the host is the
  inbox, read-only: the folder the host writes each build's private copy of the entry into.
- **A build**: the host writes the entry's regular files to inbox/N and sends the line
  "N RECIPE WALL" on the container's stdin; the driver runs build.sh as uid 20000+N under the
  wall-clock limit, kills every process of that uid, removes all it wrote (if it cannot, it ends:
  the next build gets a fresh container), and answers with the length of build.sh's tar stream
  and the build's status, then the stream. The host reads it up to a cap and a deadline (past
  either the container is discarded) and accepts only regular files of the expected names under
  their caps. Nothing a build writes reaches the host's disk, and no build sees another's files.
"""

from __future__ import annotations

import io
import math
import shutil
import socket
import struct
import tarfile
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from runner.common import languages
from runner.common.safefiles import write_tree
from runner.sandbox.local import ARTIFACT_CAP, COMPILER_OUTPUT_CAP

BUILD_OUT_SIZE = 32 << 20  # the build container's /out tmpfs: every artefact together
BUILD_STREAM_CAP = 40 << 20  # what the host reads of a build's answer: /out, the log, tar headers
BUILD_MEMORY = 1 << 30
BUILD_PIDS = 64
BUILD_CAPABILITIES = ["SETUID", "SETGID"]  # the driver's, to give each build a uid of its own
ANSWER_GRACE_S = 10.0  # past the build's wall limit: the driver's clean-up, the stream's transfer
KILLED_BY_THE_LIMIT = 137  # timeout -s KILL's status when the limit ended the build


class BuildContainerLost(Exception):
    """The build container ended, fell silent or answered out of form during a build: that
    build fails with these words (it was all that ran there), and the next gets a fresh
    container."""


def unpack(stream: bytes) -> tuple[dict[str, bytes], int] | str:
    """The regular files of build.sh's tar stream, each under its cap, and its status."""
    names = {"bot.o", "bot.so", *(n for lang in languages.LANGUAGES for n in lang.artefacts)}
    caps = dict.fromkeys(names, ARTIFACT_CAP)
    caps.update({"log.txt": COMPILER_OUTPUT_CAP, "status": 16})
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(stream), mode="r:") as archive:
            for member in archive:
                name = member.name.removeprefix("./")
                if name not in caps or not member.isreg() or member.size > caps[name]:
                    continue  # a link, a folder, an unexpected name, too large: never accepted
                handle = archive.extractfile(member)
                if handle is not None:
                    files[name] = handle.read(caps[name] + 1)[: caps[name]]
    except (tarfile.TarError, EOFError) as exc:
        return f"the build's output could not be read ({exc})"
    status = files.pop("status", b"").strip()
    if not status.isdigit():
        return "the build ended without a verdict (the container was stopped)"
    return files, int(status)


class Stdout:
    """A container's stdout from an attach socket: the engine's multiplexed frames (a stream
    byte, three zeros, a big-endian length, the payload), of which only stdout's are kept."""

    def __init__(self, connection: socket.socket, cap: int) -> None:
        self.connection = connection
        self.cap = cap  # the most this holds unread: more is refused
        self.data = bytearray()
        self._pending = bytearray()

    def _more(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.connection.settimeout(left)
        chunk = self.connection.recv(1 << 16)  # TimeoutError past the deadline
        if not chunk:
            raise BuildContainerLost("the build container ended during the build")
        self._pending += chunk
        while len(self._pending) >= 8:
            (size,) = struct.unpack(">I", self._pending[4:8])
            if len(self._pending) < 8 + size:
                break
            if self._pending[0] == 1:  # stdout; nothing else was asked for
                self.data += self._pending[8 : 8 + size]
            del self._pending[: 8 + size]
        if len(self.data) + len(self._pending) > self.cap + 8:
            raise BuildContainerLost(
                f"the build's output is larger than the {self.cap >> 20} MiB cap"
            )

    def line(self, deadline: float) -> bytes:
        """The next line (at most 64 bytes)."""
        while b"\n" not in self.data[:64]:
            if len(self.data) >= 64:
                raise BuildContainerLost("the build container answered out of form")
            self._more(deadline)
        line, _, rest = bytes(self.data).partition(b"\n")
        self.data = bytearray(rest)
        return line

    def take(self, size: int, deadline: float) -> bytes:
        """The next ``size`` bytes."""
        while len(self.data) < size:
            self._more(deadline)
        taken = bytes(self.data[:size])
        del self.data[:size]
        return taken


class BuildContainer:
    """One build thread's container and its driver, serving one build at a time."""

    def __init__(self, client: Any, tag: str, workdir: Path, options: Mapping[str, Any]) -> None:
        """``options``: the container's labels and hardening (runner/sandbox/docker.py)."""
        self.count = 0
        self.inbox = Path(tempfile.mkdtemp(prefix="inbox-", dir=workdir))
        self.inbox.chmod(0o755)
        # The driver ends when its stdin does (the host closed it or died: kill -9 included), and
        # the engine removes the container: none outlives its koth.
        self.container = client.containers.create(
            tag,
            ["python3", "-I", "-S", "/opt/koth/buildserver.py", str(ARTIFACT_CAP)],
            volumes={str(self.inbox): {"bind": "/inbox", "mode": "ro"}},
            tmpfs={
                "/out": f"rw,nosuid,nodev,noexec,size={BUILD_OUT_SIZE},mode=1777",
                "/tmp": "rw,nosuid,nodev,noexec,size=64m,mode=1777",
                "/koth": "rw,nosuid,nodev,noexec,size=1m,mode=1777",
                "/result": f"rw,nosuid,nodev,noexec,size={BUILD_STREAM_CAP},mode=700",
            },
            auto_remove=True,
            **{**options, "detach": False, "stdin_open": True},
        )
        self.attached = self.container.attach_socket(
            params={"stdin": 1, "stdout": 1, "stderr": 0, "stream": 1}
        )
        self.connection: socket.socket = self.attached._sock
        self.stdout = Stdout(self.connection, BUILD_STREAM_CAP)
        self.lost = False
        try:
            self.container.start()
        except Exception:
            self.close()
            raise

    def build(
        self, files: Mapping[str, bytes], recipe: str, wall_s: float
    ) -> tuple[dict[str, bytes], int] | str:
        """Build ``files`` (an entry's, as safefiles.read_tree gives them) with build.sh's
        ``recipe``: the files that came back by name and build.sh's status, or what went wrong
        in words. BuildContainerLost when the container failed (then it is of no further use)."""
        number = self.count
        self.count += 1
        source = self.inbox / str(number)
        write_tree(files, source)
        wall = max(1, math.ceil(wall_s))
        try:
            self.connection.sendall(f"{number} {recipe} {wall}\n".encode())
            deadline = time.monotonic() + wall + ANSWER_GRACE_S
            head = self.stdout.line(deadline).split()
            if len(head) != 2 or not all(part.isdigit() for part in head):
                raise BuildContainerLost("the build container answered out of form")
            size, status = int(head[0]), int(head[1])
            if size > BUILD_STREAM_CAP:
                raise BuildContainerLost("the build container answered out of form")
            stream = self.stdout.take(size, deadline)
        except (TimeoutError, OSError) as exc:
            self.lost = True
            raise BuildContainerLost(f"the build container fell silent ({exc})") from None
        except BuildContainerLost:
            self.lost = True
            raise
        finally:
            shutil.rmtree(source, ignore_errors=True)
        if status == KILLED_BY_THE_LIMIT:
            return f"the compiler ran longer than {wall_s:g} s"
        return unpack(stream)

    def close(self) -> None:
        self.lost = True
        self.connection.close()  # first: the engine waits on an attached reader before a kill
        self.attached.close()
        try:
            self.container.remove(force=True)
        except Exception:  # gone already, or the engine is removing it (auto_remove)
            pass
        shutil.rmtree(self.inbox, ignore_errors=True)
