"""The Docker build writes only into size-capped tmpfs mounts, and what comes back is read from
the container's stdout up to a cap (runner/sandbox/dockerbuild.py, buildserver.py, build.sh): an
assembler `.fill` of gigabytes never reaches the host's disk, and only regular files with the
expected names under their caps are accepted from the stream. A build container serves one build
after another: none sees another's files, and each leaves nothing behind."""

from __future__ import annotations

import io
import socket
import struct
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner.games.snakes import SPEC as SNAKES
from runner.sandbox import dockerbuild
from runner.sandbox.docker import DockerSandbox
from runner.sandbox.dockerbuild import BuildContainerLost, Stdout
from runner.sandbox.local import ARTIFACT_CAP, COMPILER_OUTPUT_CAP
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
TAIL = (
    "int bot(int board[16][32], char player) { (void)board; (void)player; return 'R'; }\n"
    'char *bot_name = "Docker build";\n'
)
SECRET = "leaked_secret_4711"


def make(root: Path, name: str, source: str, language: str = "c") -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    (folder / f"bot.{language}").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: docker build test\nlanguage: {language}\n"
    )
    return folder


def disk_use(*folders: Path) -> int:
    return sum(p.lstat().st_size for f in folders for p in f.rglob("*") if p.is_file())


@pytest.mark.docker
@pytest.mark.parametrize("size", ["1 << 30", "1 << 34"])
def test_a_gigabyte_fill_fails_fast_and_never_reaches_the_host_disk(
    size: str, docker_sandbox: DockerSandbox, tmp_path: Path
) -> None:
    source = f'__asm__(".section .rodata\\n.fill {size}, 1, 0x41\\n.text");\n' + TAIL
    build = build_entry(
        load_entry(make(tmp_path, "filler", source)),
        tmp_path / "b",
        docker_sandbox,
        LIMITS,
        60,
        SNAKES,
    )
    assert not build.ok and build.stage == "compile", build.message
    assert "ran out of room" in build.message, build.message
    written = disk_use(tmp_path / "b", docker_sandbox.workdir)
    assert written < ARTIFACT_CAP, f"{written} bytes reached the host's disk"


@pytest.mark.docker
def test_the_compiler_sees_a_private_copy_of_the_entry_only(
    docker_sandbox: DockerSandbox, tmp_path: Path
) -> None:
    make(tmp_path, "greedy", f"/* {SECRET} */\n" + TAIL)
    for name, source in [
        ("includer", '#include "../greedy/bot.c"\n' + TAIL),
        ("incbinner", '__asm__(".incbin \\"../greedy/bot.c\\"");\n' + TAIL),
    ]:
        build = build_entry(
            load_entry(make(tmp_path, name, source)),
            tmp_path / "b",
            docker_sandbox,
            LIMITS,
            60,
            SNAKES,
        )
        assert not build.ok and build.stage == "compile", build.message
        assert SECRET not in build.message


def tar(members: list[tuple[str, bytes | None, bytes]]) -> bytes:
    """A tar stream: (name, data or None for a symlink, link target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data, target in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, target.decode()
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_only_expected_regular_files_under_their_caps_are_accepted() -> None:
    stream = tar(
        [
            ("log.txt", b"warning: x", b""),
            ("status", b"0\n", b""),
            ("./bot.o", b"\x7fELF", b""),
            ("./bot.so", None, b"/etc/passwd"),
            ("./bot", b"x" * (ARTIFACT_CAP + 1), b""),
            ("./../../etc/evil", b"x", b""),
            ("./extra.txt", b"x", b""),
        ]
    )
    unpacked = dockerbuild.unpack(stream)
    assert unpacked == ({"log.txt": b"warning: x", "bot.o": b"\x7fELF"}, 0)


def test_a_stream_without_a_verdict_or_not_a_tar_is_a_failure() -> None:
    assert isinstance(dockerbuild.unpack(tar([("./bot.o", b"x", b"")])), str)
    assert isinstance(dockerbuild.unpack(b"\0garbage" * 100), str)
    oversized_log = tar([("log.txt", b"x" * (COMPILER_OUTPUT_CAP + 1), b""), ("status", b"0", b"")])
    assert dockerbuild.unpack(oversized_log) == ({}, 0)


def frames(payload: bytes, size: int = 1 << 16) -> bytes:
    out = bytearray()
    for start in range(0, len(payload), size):
        chunk = payload[start : start + size]
        out += struct.pack(">BxxxI", 1, len(chunk)) + chunk
    return bytes(out)


def test_the_stream_is_read_up_to_its_cap_and_no_further() -> None:
    host, container = socket.socketpair()
    try:
        container.sendall(frames(b"12 0\n" + b"a" * 1000) + struct.pack(">BxxxI", 2, 3) + b"err")
        stdout = Stdout(host, 1000)
        deadline = time.monotonic() + 10
        assert stdout.line(deadline) == b"12 0", "the answer's first line"
        assert stdout.take(1000, deadline) == b"a" * 1000, "stdout only, to the byte"
    finally:
        host.close()
        container.close()
    host, container = socket.socketpair()
    try:
        container.setblocking(False)
        sent = 0
        try:  # as much as the socket takes: far more than the cap
            while sent < 64 << 20:
                sent += container.send(frames(b"b" * (1 << 16)))
        except BlockingIOError:
            pass
        with pytest.raises(BuildContainerLost, match="larger than"):
            Stdout(host, 1 << 16).take(1 << 20, time.monotonic() + 10)
    finally:
        host.close()
        container.close()


def test_a_silent_stream_ends_at_its_deadline_and_a_closed_one_at_once() -> None:
    host, container = socket.socketpair()
    try:
        began = time.monotonic()
        with pytest.raises(TimeoutError):
            Stdout(host, 1 << 20).line(began + 0.5)
        container.close()
        with pytest.raises(BuildContainerLost, match="ended"):
            Stdout(host, 1 << 20).line(time.monotonic() + 10)
    finally:
        host.close()
        container.close()


def build_process_left(builder: Any) -> str:
    """What a build left in its container: files in its writable places, processes of a build
    uid (20000 and up), as the container's root sees them."""
    script = (
        "find /out /tmp /koth -mindepth 1; "
        "for d in /proc/[0-9]*; do u=$(stat -c %u $d 2>/dev/null); "
        '[ "${u:-0}" -ge 20000 ] && cat $d/cmdline | tr "\\0" " " && echo; done; true'
    )
    code, output = builder.container.exec_run(["/bin/sh", "-c", script], user="0:0")
    assert code == 0, output
    return str(output.decode()).strip()


# Three nested constant-evaluated loops: each under gcc's loop limit, all of them far over what a
# second of compiling gets through.
SLOW_CPP = """constexpr long spin() {
    long x = 0;
    for (long i = 0; i < 200000; ++i)
        for (long j = 0; j < 200000; ++j)
            for (long k = 0; k < 200000; ++k) x += (i ^ j ^ k) & 1;
    return x;
}
static_assert(spin() != 1, "");
int main() { return 0; }
"""


@pytest.fixture
def own_sandbox(docker_sandbox: DockerSandbox) -> Iterator[DockerSandbox]:
    """A Docker sandbox of its own: its one build thread keeps one build container."""
    sandbox = DockerSandbox(say=lambda text: None)
    yield sandbox
    sandbox.close()


@pytest.mark.docker
def test_builds_in_one_container_see_nothing_of_each_other_and_leave_nothing(
    own_sandbox: DockerSandbox, tmp_path: Path
) -> None:
    from runner.games.cluster import SPEC as CLUSTER

    def build(folder: Path, wall_s: float = 60, game: Any = SNAKES) -> Any:
        return build_entry(load_entry(folder), tmp_path / "b", own_sandbox, LIMITS, wall_s, game)

    secret = build(make(tmp_path, "secret", f"/* {SECRET} */\n" + TAIL))
    assert secret.ok, secret.message
    (builder,) = own_sandbox._builders
    number = builder.count - 1  # the secret's build: its copy was in the inbox under that name
    for name, line in [
        ("includer", f'#include "../{number}/bot.c"\n'),
        ("incbinner", f'__asm__(".incbin \\"/inbox/{number}/bot.c\\"");\n'),
    ]:
        reader = build(make(tmp_path, name, line + TAIL))
        assert not reader.ok and SECRET not in reader.message, reader.message
    assert build_process_left(builder) == "", "a build left files or processes behind"

    slow = build(make(tmp_path, "slow", SLOW_CPP, "cpp"), wall_s=2, game=CLUSTER)
    assert not slow.ok and "ran longer than 2 s" in slow.message, slow.message
    assert builder in own_sandbox._builders and not builder.lost, "the container serves on"
    assert build_process_left(builder) == "", "the compiler outlived its time limit"
    after = build(make(tmp_path, "after", TAIL))
    assert after.ok, after.message
    assert builder.count > number + 4, "the same container built them all"


@pytest.mark.docker
def test_what_a_build_uid_leaves_is_ended_and_what_it_cannot_remove_ends_the_container(
    own_sandbox: DockerSandbox, tmp_path: Path
) -> None:
    """The driver's clean-up, as if a build had left things behind: a process of its uid and a
    locked folder tree of its own are gone after the build, in the same container; a file its uid
    cannot remove makes the driver end, and the next build gets a fresh container."""

    def build(name: str) -> Any:
        folder = make(tmp_path, name, TAIL)
        return build_entry(load_entry(folder), tmp_path / "b", own_sandbox, LIMITS, 60, SNAKES)

    assert build("first").ok
    (builder,) = own_sandbox._builders
    uid = 20000 + builder.count  # the next build's
    planted = (
        "mkdir -p /tmp/a/b /out/c && touch /tmp/a/b/f /koth/g && chmod 0 /tmp/a/b /tmp/a "
        "&& (sleep 1000 >/dev/null 2>&1 &)"
    )
    code, output = builder.container.exec_run(["/bin/sh", "-c", planted], user=f"{uid}:{uid}")
    assert code == 0, output
    assert "sleep 1000" in build_process_left(builder)
    assert build("second").ok
    assert build_process_left(builder) == "", "the build's uid left files or processes"
    assert own_sandbox._builders == [builder] and not builder.lost

    other = 20000 + builder.count + 1  # not the next build's uid
    code, output = builder.container.exec_run(["touch", "/tmp/foreign"], user=f"{other}:{other}")
    assert code == 0, output
    third = build("third")
    assert not third.ok and "ended during the build" in third.message, third.message
    assert builder.lost and builder not in own_sandbox._builders
    assert build("fourth").ok
    (fresh,) = own_sandbox._builders
    assert fresh is not builder and build_process_left(fresh) == ""
