"""Season formats: small classes behind one hook, chosen by name from tournament.yaml's ``format``.

A format turns the season's entries into seatings: ``pairings(entries, rounds)`` returns one tuple
of entry names per game, seats in order (X first). It never sees listing order, seeds or content
hashes; the schedule (runner/schedule.py) turns seatings into games with rounds and seeds. A seating
that appears k times in the list is played once in each of rounds 1..k.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from runner.formats.round_robin import RoundRobin


class Format(Protocol):
    name: ClassVar[str]

    def pairings(self, entries: list[str], rounds: int) -> list[tuple[str, ...]]:
        """Every game's seating (entry names by seat), repeated once per round it is played."""
        ...


FORMATS: dict[str, type[Format]] = {
    RoundRobin.name: RoundRobin,
}


class UnknownFormatError(LookupError):
    """A format name that is not registered; the message lists the known ones."""


def find_format(name: str) -> Format:
    """The format registered as ``name``."""
    try:
        return FORMATS[name]()
    except KeyError:
        known = ", ".join(sorted(FORMATS))
        raise UnknownFormatError(f"unknown format {name!r}; known formats: {known}") from None


__all__ = ["FORMATS", "Format", "RoundRobin", "UnknownFormatError", "find_format"]
