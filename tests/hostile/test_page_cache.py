"""A bot's own file (its library, its binary) is the one file whose pages it reaches by a page
fault rather than by name: it is wholly in the page cache before the bot runs (the C blank puts
its library's pages in its page tables; a program's binary is read through before it starts).
A page fault on it then tells the bot nothing of what another process of its entry read (the
time of a fault that reads a page in, or finds it there), and leaves nothing for a later one to
find. Checked from the host (mincore), in both sandboxes, for a C function and a C program whose
files are large and evicted from the page cache before they start.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import time
from pathlib import Path
from typing import Any

import pytest
from test_trust import LIMITS, PROGRAMS, build

from runner.games.snakes.codec import SnakesCall
from runner.play.cabi import CFunctionBot


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_sandbox")


def evict(path: Path) -> None:
    """``path``'s pages out of the page cache (written first, if the build just wrote it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


# A bot whose own file is large (a table of 5 MiB it never reads), as a C function or a program.
LARGE = "static const unsigned char TABLE[5 << 20] = {1};\n"
LARGE_FUNCTION = (
    LARGE
    + """int bot(int board[16][32], char player) {
    (void)player;
    return TABLE[board[0][0] & 1] ? 'R' : 'D';
}
char *bot_name = "Large";
"""
)
LARGE_PROGRAM = (
    LARGE + "\nint main(void) {\n    play_on(TABLE[read_init()] == 2);\n    return 0;\n}\n"
)


def resident(path: Path) -> tuple[int, int]:
    """How many of ``path``'s pages the page cache holds (mincore), and of how many."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    int_ = ctypes.c_int
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, int_, int_, int_, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    fd = os.open(path, os.O_RDONLY)
    try:
        at = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        assert at not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
        try:
            held = ctypes.create_string_buffer(pages)
            assert libc.mincore(at, size, held) == 0, os.strerror(ctypes.get_errno())
            return sum(byte & 1 for byte in held.raw), pages
        finally:
            libc.munmap(at, size)
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", ["c", "cprog"])
def test_a_bots_own_file_is_wholly_in_the_page_cache_before_it_runs(
    kind: str, sandbox: Any, tmp_path: Path
) -> None:
    """Its pages all cached (and a C function's mapped), none read in by a fault of the bot's:
    a fault then tells it nothing of what another process of its entry read, and leaves
    nothing for one to find (the file, evicted before it starts, would otherwise be read in as
    the bot touches it, page by page)."""
    text = (
        (PROGRAMS / "cluster_io.h").read_text() + LARGE_PROGRAM
        if kind == "cprog"
        else LARGE_FUNCTION
    )
    built = build(sandbox, tmp_path, kind, "large", text)
    assert built.jail is not None
    own = Path(built.jail) / ("bot" if kind == "cprog" else "bot.so")
    deadline = time.monotonic() + 10  # the build's load of the bot may not have ended yet
    evict(own)
    while resident(own)[0] > resident(own)[1] // 2:
        assert time.monotonic() < deadline, "the bot's file would not leave the page cache"
        time.sleep(0.1)
        evict(own)
    limits = LIMITS[kind]
    if kind == "cprog":
        process = sandbox.spawn(Path(built.jail), limits, list(built.program or ()))
        process.ready()
        close = process.close
    else:
        bot = CFunctionBot(
            sandbox.spawn(Path(built.jail), limits, abi=SnakesCall.abi.to_json()), limits, "large"
        )
        bot.start()
        close = bot.close
    try:
        held, pages = resident(own)
    finally:
        close()
    assert held == pages, f"{pages - held} of its {pages} pages were left for the bot to fault in"
