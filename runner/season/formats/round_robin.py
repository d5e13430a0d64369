"""Round-robin: every pair of entries plays both seatings (each is X once and O once against each
opponent), and the whole cycle is repeated ``rounds`` times.

With n entries a round is n·(n−1) games; each entry plays 2·(n−1) of them, half as X and half as
O. The list depends only on the set of names, never on the order they were given in, and never on
results: every game is known from the start. A game's identity is (round, X, O), its seed
``randomness.game_seed(game, round, (X, O))`` (of the secret, the season seed and both entries'
content hashes), so adding, removing or editing an entry never changes another game's seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import ClassVar

from runner.season.formats.base import Fixture, Format, Known, Results, Seeds, check_entries


@dataclass(frozen=True)
class RoundRobin(Format):
    name: ClassVar[str] = "round-robin"
    static: ClassVar[bool] = True
    seat_count: ClassVar[int] = 2

    game: str = ""
    randomness: Seeds = Seeds()
    rounds: int = 1

    def pairings(self, entries: Sequence[str], rounds: int) -> list[tuple[str, ...]]:
        """Every game's seating, repeated once per round it is played."""
        if rounds < 0:
            raise ValueError(f"rounds must be 0 or more, got {rounds}")
        once = list(permutations(check_entries(entries), self.seat_count))
        return once * rounds

    def known(self, entries: Sequence[str], results: Results) -> Known:
        return _known(self, tuple(entries))


@lru_cache(maxsize=8)
def _known(fmt: RoundRobin, entries: tuple[str, ...]) -> Known:
    """Every game of a round-robin of ``entries``: the same whatever the results, so worked out
    once for them (a season's loop asks before and after its games, the standings and the site
    again: ~2 ms each for 16 entries)."""
    seen: Counter[tuple[str, ...]] = Counter()
    fixtures = []
    for seats in fmt.pairings(entries, fmt.rounds):
        seen[seats] += 1
        round_ = seen[seats]
        seed = fmt.randomness.game_seed(fmt.game, round_, seats)
        fixtures.append(Fixture(round_, seats, fmt.game, seed))
    return Known(tuple(sorted(fixtures, key=Fixture.sort_key)))  # ~10 times as fast as __lt__
