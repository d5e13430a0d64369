"""The season's game list: deterministic, independent of listing order, shardable.

A game's identity is (game id, round, seat entries by name). Its seed is derived from the season
seed and that identity alone: the first 8 bytes of sha256("season-seed|game-id|round|x|o"), as a
non-negative int64. Adding, removing or editing another entry therefore never changes a game's
seed. The canonical order of games is by (round, x, o); shard i of n (1-based) holds the games
whose index in that order is i−1 modulo n, so shards are disjoint and together are the schedule.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from runner.formats import find_format

T = TypeVar("T")


@dataclass(frozen=True, order=True)
class Fixture:
    """One scheduled game. Ordering is the canonical order: round, then seats."""

    round: int  # 1-based
    seats: tuple[str, ...]  # entry names, X first
    game: str
    seed: int


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def slug(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def game_seed(season_seed: int, game_id: str, round_: int, seats: tuple[str, ...]) -> int:
    text = "|".join([str(season_seed), game_id, str(round_), *seats])
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def make_schedule(
    game_id: str, format_name: str, entries: list[str], rounds: int, season_seed: int
) -> list[Fixture]:
    """Every game of the season, in canonical order."""
    seen: Counter[tuple[str, ...]] = Counter()
    fixtures = []
    for seats in find_format(format_name).pairings(sorted(entries), rounds):
        seen[seats] += 1
        round_ = seen[seats]
        seed = game_seed(season_seed, game_id, round_, seats)
        fixtures.append(Fixture(round_, seats, game_id, seed))
    return sorted(fixtures)


_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


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
