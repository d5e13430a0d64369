"""Free-for-all: tables of N seats for games of N players, seats rotated, setups cycled.

Tables. Each round deals the field into tables of ``seats``: the entries are ordered by a keyed
hash (``Seeds.deal_keys``: of the season's secret, the season seed, the game, the round, the
name and the whole field's content hashes), so every round deals differently, listing order plays
no part and, with a secret, nobody can choose a name that sits beside another, then cut into
consecutive tables. When the field does not fill the last table, the game's
built-in bot fills its empty seats (``filler-1``, ``filler-2``, …, named per table). With
``seats: all`` there is one table of every entry, filled up to the smallest number of players the
game allows (the Easter Egg Hunt's seven, say); every round then plays that same table.

Runs and seats. Each table plays ``runs`` games (by default one per seat); run j seats the table
rotated j places, so over every ``seats`` consecutive runs each entry at the table sits once in
each seat. With runs a multiple of the table size, every entry sits in each seat equally often over
the season, and every entry plays the same number of games.

Setups. Games may each take a setup named in the config (a Multisnake map): the season's games,
in canonical order (round, table, run), take the setups in turn, one setup per block of ``seats``
games, so a table's full rotation is played on one setup and the next rotation on the next.

Nothing depends on results: every game is known from the start. A game's identity is its round,
table, run, setup and seats; its seed is ``randomness.game_seed(game, round, seats, tag=(table, run,
setup))``. Adding or editing an entry re-deals the tables, so unlike a round-robin it changes
other entries' games too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from runner.season.formats.base import (
    FILLER,
    FILLER_PREFIX,
    Fixture,
    Format,
    FormatError,
    Known,
    Results,
    Seeds,
    check_entries,
)


@dataclass(frozen=True)
class FreeForAll(Format):
    name: ClassVar[str] = "free-for-all"
    static: ClassVar[bool] = True

    game: str = ""
    randomness: Seeds = Seeds()
    rounds: int = 1
    seats: int | None = None  # players per table; None: every entry at one table
    runs: int | None = None  # games per table; None: one per seat
    setups: tuple[str, ...] = ()  # setup names, cycled
    seat_counts: tuple[int, ...] = (2,)  # the table sizes the game allows, ascending

    def __post_init__(self) -> None:
        if self.seats is not None and self.seats not in self.seat_counts:
            allowed = ", ".join(map(str, self.seat_counts))
            raise ValueError(f"{self.game} is played by {allowed} players, not {self.seats}")

    def table_size(self, count: int) -> int:
        """How many seats each table has for a field of ``count`` entries."""
        if self.seats is not None:
            return self.seats
        fits = [n for n in self.seat_counts if n >= count]
        if not fits:
            sizes = ", ".join(map(str, self.seat_counts))
            raise FormatError(
                f"free-for-all `seats: all` puts all {count} entries at one table, but "
                f"{self.game} is played by at most {self.seat_counts[-1]} players. Fix: set "
                f"`seats:` under `free_for_all:` to a table size ({sizes})."
            )
        return fits[0]

    def deal(self, entries: Sequence[str], round_: int) -> list[tuple[str, ...]]:
        """Round ``round_``'s tables: the field in its dealt order, cut into tables, the last one
        filled with the built-in bot."""
        names = check_entries(entries)
        clash = fillers(names)
        if clash:
            raise FormatError(
                f"entry {clash[0]!r} has a name the free-for-all gives the seats it fills with "
                f"the built-in bot ({FILLER_PREFIX}1, {FILLER_PREFIX}2, …). Fix: rename the "
                "entry's folder."
            )
        size = self.table_size(len(names))
        if self.seats is not None:
            keys = self.randomness.deal_keys(self.game, round_, names)
            names.sort(key=keys.__getitem__)
        tables: list[tuple[str, ...]] = [
            tuple(names[i : i + size]) for i in range(0, len(names), size)
        ]
        if tables and len(tables[-1]) < size:
            missing = size - len(tables[-1])
            tables[-1] += tuple(f"{FILLER_PREFIX}{k}" for k in range(1, missing + 1))
        return tables

    def known(self, entries: Sequence[str], results: Results) -> Known:
        fixtures: list[Fixture] = []
        for round_ in range(1, self.rounds + 1):
            for number, table in enumerate(self.deal(entries, round_), 1):
                fixtures += self.table_games(round_, number, table, len(fixtures))
        return Known(tuple(fixtures))

    def table_games(
        self, round_: int, number: int, table: tuple[str, ...], before: int
    ) -> list[Fixture]:
        """The games of one table; ``before`` games of the season come before them."""
        size = len(table)
        games = []
        for run in range(1, (self.runs or size) + 1):
            turn = (run - 1) % size
            seats = table[turn:] + table[:turn]
            index = before + run - 1
            setup = self.setups[(index // size) % len(self.setups)] if self.setups else None
            tag = [f"free-for-all:table={number}", f"free-for-all:run={run}"]
            tag += [f"free-for-all:setup={setup}"] if setup is not None else []
            seed = self.randomness.game_seed(self.game, round_, seats, tag)
            label = f"table {number}, run {run}" + (f", {setup}" if setup else "")
            games.append(
                Fixture(round_, seats, self.game, seed, setup, slot=(number, run), label=label)
            )
        return games


def fillers(seats: Sequence[str]) -> list[str]:
    """The seats of a table taken by the built-in bot."""
    return [name for name in seats if FILLER.fullmatch(name)]
