"""The season's game list: deterministic, independent of listing order, shardable.

The format (runner/season/formats) decides which games exist; this module keeps what every format
shares. A game's seed is derived from the season's secret, the season seed, the game's identity and
its seated entries' content hashes alone (``Seeds.game_seed``, runner/season/formats/base.py), so
adding, removing or editing another entry never changes a round-robin game's seed. Shard i of n
(1-based) holds the games whose index in the canonical order of the games known so far is i−1 modulo
n, so shards are disjoint and together are what is known (runner/season/playloop.py plays a shard's
share of what is playable now).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from runner.season.formats import (
    NO_RESULTS,
    Fixture,
    Format,
    FreeForAll,
    Knockout,
    RoundRobin,
    Seeds,
    find_format,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def slug(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def make_schedule(
    game_id: str, format_name: str, entries: list[str], rounds: int, seeds: Seeds
) -> list[Fixture]:
    """The games a format knows before any result (every game of a round-robin), in canonical
    order, with the format's other settings at their defaults."""
    find_format(format_name)  # an unknown name: UnknownFormatError, listing the known ones
    fmt: Format = RoundRobin(game_id, seeds, rounds)
    if format_name == Knockout.name:
        fmt = Knockout(game_id, seeds)
    elif format_name == FreeForAll.name:
        fmt = FreeForAll(game_id, seeds, rounds)
    return list(fmt.known(entries, NO_RESULTS).games)


_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*\Z")


def parse_shard(text: str) -> Shard:
    """'2/4' → Shard(2, 4); ValueError with the fix for anything else."""
    match = _SHARD.match(text)
    if match:
        index, count = int(match[1]), int(match[2])
        if 1 <= index <= count:
            return Shard(index, count)
    raise ValueError(
        f"--shard {text!r} is not a shard. Fix: write i/n with 1 <= i <= n, e.g. --shard 2/4 "
        "for the second of four parts."
    )


def select_shard(games: Sequence[T], shard: Shard | None) -> list[T]:
    """The shard's part of ``games`` (given in canonical order); None: all of them."""
    if shard is None:
        return list(games)
    return [g for i, g in enumerate(games) if i % shard.count == shard.index - 1]
