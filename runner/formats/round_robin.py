"""Round-robin: every pair of entries plays both seatings (each is X once and O once against each
opponent), and the whole cycle is repeated ``rounds`` times.

With n entries a round is n·(n−1) games; each entry plays 2·(n−1) of them, half as X and half as
O. The list depends only on the set of names, never on the order they were given in.
"""

from __future__ import annotations

from itertools import permutations
from typing import ClassVar


class RoundRobin:
    name: ClassVar[str] = "round-robin"
    seats: ClassVar[int] = 2

    def pairings(self, entries: list[str], rounds: int) -> list[tuple[str, ...]]:
        if rounds < 0:
            raise ValueError(f"rounds must be 0 or more, got {rounds}")
        if len(set(entries)) != len(entries):
            twice = sorted({e for e in entries if entries.count(e) > 1})
            raise ValueError(f"entries listed more than once: {', '.join(twice)}")
        once = list(permutations(sorted(entries), self.seats))
        return once * rounds
