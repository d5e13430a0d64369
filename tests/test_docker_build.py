"""The Docker build writes only into size-capped tmpfs mounts, and what comes back is read from
the container's stdout up to a cap (runner/sandbox/docker.py, build.sh): an assembler `.fill`
of gigabytes never reaches the host's disk, and only regular files with the expected names under
their caps are accepted from the stream."""

from __future__ import annotations

import io
import socket
import struct
import tarfile
from pathlib import Path

import pytest

from runner.build import build_entry
from runner.entries import load_entry
from runner.games.snakes import SPEC as SNAKES
from runner.sandbox import docker
from runner.sandbox.docker import DockerSandbox
from runner.sandbox.local import ARTIFACT_CAP, COMPILER_OUTPUT_CAP
from runner.sandbox.zygote import BotLimits

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
TAIL = (
    "int bot(int board[16][32], char player) { (void)board; (void)player; return 'R'; }\n"
    'char *bot_name = "Docker build";\n'
)
SECRET = "leaked_secret_4711"


def make(root: Path, name: str, source: str) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: docker build test\nlanguage: c\n"
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
    unpacked = docker._unpack(stream)
    assert unpacked == ({"log.txt": b"warning: x", "bot.o": b"\x7fELF"}, 0)


def test_a_stream_without_a_verdict_or_not_a_tar_is_a_failure() -> None:
    assert isinstance(docker._unpack(tar([("./bot.o", b"x", b"")])), str)
    assert isinstance(docker._unpack(b"\0garbage" * 100), str)
    oversized_log = tar([("log.txt", b"x" * (COMPILER_OUTPUT_CAP + 1), b""), ("status", b"0", b"")])
    assert docker._unpack(oversized_log) == ({}, 0)


def frames(payload: bytes, size: int = 1 << 16) -> bytes:
    out = bytearray()
    for start in range(0, len(payload), size):
        chunk = payload[start : start + size]
        out += struct.pack(">BxxxI", 1, len(chunk)) + chunk
    return bytes(out)


def test_the_stream_is_read_up_to_its_cap_and_no_further() -> None:
    host, container = socket.socketpair()
    try:
        container.sendall(frames(b"a" * 1000) + struct.pack(">BxxxI", 2, 3) + b"err")
        container.shutdown(socket.SHUT_WR)
        assert docker._read_stream(host, 1000, 10) == b"a" * 1000
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
        result = docker._read_stream(host, 1 << 16, 10)
        assert isinstance(result, str) and "larger than" in result, result
    finally:
        host.close()
        container.close()


def test_a_silent_stream_ends_at_the_wall_clock_limit() -> None:
    host, container = socket.socketpair()
    try:
        result = docker._read_stream(host, 1 << 20, 0.5)
        assert result == "the compiler ran longer than 0.5 s"
    finally:
        host.close()
        container.close()
