"""Timing channels between bots (issue 46), measured: a colluding pair, the sender in the first
seat and the receiver in the second, pass a message through what the kernel caches for every
process (tests/hostile/collude.c and programs/collude.py: each bit two places, the sender touches
one, the receiver times both and takes the faster). How many bits get through in one game:

- ``names``: names looked up, found or not (the dentries the kernel keeps), in a folder both bots
  see: the runtime's (``/usr/lib``) for two entries, or the entry's own for one entry in both
  seats (as a bot would leave itself a count from one game to the next);
- ``pages``: pages read of a file both can read (the compiler's ``lto1`` under ``/usr/lib``),
  whose pages are evicted from the page cache before each game (a pair on a real host would use
  pages nobody has read).

Where the sandbox closes a channel (a C function names nothing once loaded; a program of its own
build names nothing; a Python bot's own folder is private to it locally), the receiver decodes
no better than chance. Where it cannot (a Python bot reads its runtime's files, which every bot
shares; under Docker its folder is its build's on the host), the test asserts that the bits get
through, so that the figure it reports is a measurement: the bits decoded right of those sent,
and the capacity of one game's exchange, N (1 - H(p)) for an error rate p. The figures are in
docs/benchmarks.md (benchmarks/bench_colluding.py); each game's rules page says what is left and
what the rules say of it.

A bot's own file (its library, its binary), whose pages it reaches by a page fault, not by name,
is wholly in the page cache before it runs: tests/hostile/test_page_cache.py.
"""

from __future__ import annotations

import glob
import math
import os
import random
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_page_cache import evict
from test_trust import HERE, PROGRAMS, build, play

FUNCTION = """
int bot(int board[16][32], char player) {
    int marked = 0, seat = player == 'X' ? 0 : 1;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++)
            marked += board[y][x] != '.';
    if (marked == 2 + seat) collude(seat); /* its first move: the heads, and X's first step */
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Colluder";
"""
PROGRAM = """
int main(void) {
    int seat = read_init(), column, colour;
    read_turn(&column, &colour);
    collude(seat);
    answer(0, column, colour);
    play_on(0);
    return 0;
}
"""
BITS = {"names": 128, "pages": 48, "cache": 32}
SPACING = {"names": 1, "pages": 256 << 10, "cache": 64 << 10}  # pages: past the readahead
NUMBER = {"names": 0, "pages": 1, "cache": 2}
THRESHOLD = 0.8  # of the bits decoded right: through at or above, closed below (chance: 0.5)
ROOT = os.geteuid() == 0


@dataclass(frozen=True)
class Pair:
    channel: str
    together: str  # "entries": two entries; "self": one entry in both seats
    kind: str
    open_in: tuple[str, ...]  # the sandboxes where the channel is left open

    @property
    def id(self) -> str:
        return f"{self.channel}-{self.together}-{self.kind}"


PAIRS = [
    Pair("names", "entries", "c", ()),
    Pair("names", "entries", "cprog", ()),
    Pair("names", "entries", "python", ("local", "docker")),
    Pair("names", "self", "c", ()),
    Pair("names", "self", "cprog", ()),
    Pair("names", "self", "python", ("docker",)),
    Pair("pages", "entries", "c", ()),
    Pair("pages", "entries", "cprog", ()),
    Pair("pages", "entries", "python", ("local", "docker")),
]


@dataclass(frozen=True)
class Through:
    """What got through one game: bits sent, bits decoded right, and their capacity."""

    sent: int
    right: int

    @property
    def capacity(self) -> float:
        """N (1 - H(p)): the bits an error rate p leaves of N (the binary channel's capacity)."""
        p = 1 - self.right / self.sent
        entropy = 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
        return self.sent * (1 - entropy)


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_sandbox")


def shared_file(sandbox: Any) -> tuple[str, Path]:
    """The file both bots read for ``pages``: as bots see it, and where the host can evict it
    (under Docker, the image layer holding it)."""
    pattern = "usr/lib/gcc/*/*/lto1"
    if sandbox.name == "local":
        found = sorted(glob.glob("/" + pattern))
        if not found:
            pytest.skip("no lto1 here (gcc's) to read")
        return found[0], Path(found[0])
    if not ROOT:
        pytest.skip("evicting a file of the sandbox image's layers needs root")
    data = sandbox.client.images.get(sandbox.tag).attrs["GraphDriver"]["Data"]
    layers = [data["UpperDir"], *data.get("LowerDir", "").split(":")]
    for layer in layers:
        found = sorted(glob.glob(f"{layer}/{pattern}"))
        if found:
            return "/" + str(Path(found[0]).relative_to(layer)), Path(found[0])
    raise AssertionError("the sandbox image holds no lto1")


def source(pair: Pair, place: str, message: str) -> str:
    values = {
        "@BITS@": str(BITS[pair.channel]),
        "@CHANNEL@": str(NUMBER[pair.channel]),
        "@SPACING@": str(SPACING[pair.channel]),
        "@MESSAGE@": message,
        "@NONCE@": uuid.uuid4().hex,
        "@PLACE@": place,
        "@OWN_SIZE@": str(2 * BITS["cache"] * SPACING["cache"] + 8192),
    }
    if pair.kind == "python":
        text = (PROGRAMS / "cluster_io.py").read_text() + (PROGRAMS / "collude.py").read_text()
    elif pair.kind == "cprog":
        text = (PROGRAMS / "cluster_io.h").read_text() + (HERE / "collude.c").read_text() + PROGRAM
    else:
        text = (HERE / "collude.c").read_text() + FUNCTION
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def exchange(sandbox: Any, root: Path, pair: Pair) -> Through:
    """One game of the pair; what got through."""
    bits = BITS[pair.channel]
    message = "".join(random.choice("01") for _ in range(bits))
    if pair.channel == "pages":
        place, evicted = shared_file(sandbox)
    else:
        place, evicted = ("/usr/lib" if pair.together == "entries" else "."), None
    text = source(pair, place, message)
    sender = build(sandbox, root, pair.kind, "sender", text)
    receiver = (
        sender if pair.together == "self" else build(sandbox, root, pair.kind, "receiver", text)
    )
    if evicted is not None:
        evict(evicted)
    result = play(sandbox, pair.kind, [sender, receiver])
    said = re.findall(r"decoded ([01]+)", result.output[1])
    assert said and len(said[-1]) == bits, f"the receiver decoded nothing: {result.output[1]!r}"
    return Through(bits, sum(a == b for a, b in zip(said[-1], message, strict=True)))


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.id)
def test_what_a_colluding_pair_gets_through_in_a_game(
    pair: Pair, sandbox: Any, tmp_path: Path, record_property: Any
) -> None:
    if not ROOT and sandbox.name == "local":
        pytest.skip("without root a bot sees the host's files (README: run strangers as root)")
    through = exchange(sandbox, tmp_path, pair)
    record_property("bits_per_game", round(through.capacity, 1))
    print(f"{sandbox.name} {pair.id}: {through.right}/{through.sent} right, {through.capacity:.1f}")
    if sandbox.name in pair.open_in:
        assert through.right >= THRESHOLD * through.sent, (
            f"the channel is left open, and the measurement should see it: "
            f"{through.right} of {through.sent} bits right"
        )
    else:
        assert through.right < THRESHOLD * through.sent, (
            f"{through.right} of {through.sent} bits got through a channel the sandbox closes"
        )
