"""Season formats: small classes behind one hook, chosen by name from tournament.yaml's ``format``.

Every format answers ``next_games(entries, results) -> Play | Wait | Done``
(runner/season/formats/base.py says how) from the recorded results of the season's own fixtures:

- ``round-robin`` (round_robin.py): every pair twice per round, once in each seat; all known at
  once, never reading a result.
- ``knockout`` (knockout.py): a bracket of best-of-N matches with side alternation, seeding and
  byes; a round's games become known only from the previous round's recorded results.
- ``free-for-all`` (free_for_all.py): tables of N seats, seats rotated between runs, setups
  (maps) taken in turn; all known at once; ``seats: all`` for one table of every entry.

``format_for(config, seeds)`` builds the season's format from its settings, its games seeded
by ``seeds`` (runner/season/formats/base.py: the season's secret, its seed and the entries' hashes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runner.season.formats.base import (
    NO_RESULTS,
    Done,
    Fixture,
    Format,
    FormatError,
    Known,
    Next,
    Play,
    Results,
    Seeds,
    Wait,
)
from runner.season.formats.free_for_all import FreeForAll, fillers
from runner.season.formats.knockout import Knockout
from runner.season.formats.round_robin import RoundRobin

if TYPE_CHECKING:
    from runner.season.config import Config

FORMATS: dict[str, type[Format]] = {
    RoundRobin.name: RoundRobin,
    Knockout.name: Knockout,
    FreeForAll.name: FreeForAll,
}


class UnknownFormatError(LookupError):
    """A format name that is not registered; the message lists the known ones."""


def find_format(name: str) -> type[Format]:
    """The format class registered as ``name``."""
    try:
        return FORMATS[name]
    except KeyError:
        known = ", ".join(sorted(FORMATS))
        raise UnknownFormatError(f"unknown format {name!r}; known formats: {known}") from None


def format_for(config: Config, seeds: Seeds) -> Format:
    """The season's format, with its settings from ``config``, seeded by ``seeds``."""
    find_format(config.format)
    if config.format == Knockout.name:
        ko = config.knockout
        return Knockout(
            config.game,
            seeds,
            ko.best_of,
            ko.seeding or (),
            ko.third_place,
            ko.tiebreak_games,
        )
    if config.format == FreeForAll.name:
        from runner.season.config import seat_counts

        ffa = config.free_for_all
        return FreeForAll(
            config.game,
            seeds,
            config.rounds,
            ffa.seats,
            ffa.runs,
            tuple(s.name for s in ffa.setups),
            seat_counts(config.game) or (2,),
        )
    return RoundRobin(config.game, seeds, config.rounds)


__all__ = [
    "FORMATS",
    "NO_RESULTS",
    "Done",
    "Fixture",
    "Format",
    "FormatError",
    "FreeForAll",
    "Knockout",
    "Known",
    "Next",
    "Play",
    "Results",
    "RoundRobin",
    "Seeds",
    "UnknownFormatError",
    "Wait",
    "fillers",
    "find_format",
    "format_for",
]
