"""The one interface every format implements, and the fixtures it hands out (STYLE 10, 15).

A format is asked, again and again, ``next_games(entries, results) -> Play | Wait | Done``:

- ``Play(games)``: the games to play now, whose results are not recorded yet;
- ``Wait(reason)``: nothing to play until games already handed out are recorded (they are being
  played, here or by another shard), e.g. "round 2 waits for round 1's results";
- ``Done()``: every game the format will ever ask for is recorded.

``results`` are the recorded results of this season's own fixtures only, looked up by fixture
(the caller finds each fixture's record by its key). A format never sees listing order, content
hashes or time: given the same entries and the same recorded results it answers the same, so the
season can stop (or be killed) anywhere and resume, and shards agree on what is playable.

A format implements one hook, ``known(entries, results)``: every game the recorded results
determine so far (recorded or not), in canonical order, and, when more games will follow once
these are recorded, a sentence saying what they wait for. ``next_games`` is built on it.

A fixture's seed is derived by ``Seeds.game_seed`` from the season's secret, the season seed and
the game's identity: for a round-robin game its round and seats, for a knockout game also its
match and game number, for a free-for-all game its table, run and setup; and from the content
hash of every entry seated in it, so a game's seed changes whenever one of its entries changes.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

FILLER_PREFIX = "filler-"  # seats a free-for-all fills with the game's built-in bot
FILLER = re.compile(re.escape(FILLER_PREFIX) + r"[0-9]+")
BUILTIN_PREFIX = "builtin-"  # the check stage's opponent, the game's built-in bot


def host_seat(name: str) -> bool:
    """Whether ``name`` is one the host gives its own seats (a free-for-all's ``filler-1``, the
    check stage's ``builtin-…``): no entry may be named so."""
    return FILLER.fullmatch(name) is not None or name.startswith(BUILTIN_PREFIX)


class FormatError(ValueError):
    """The entries cannot be played in this format (e.g. a name clash); one paragraph with a fix."""


@dataclass(frozen=True)
class Seeds:
    """Where a season's randomness comes from: every game's seed and every deal of a field into
    tables is an HMAC-SHA256, keyed by the organiser's ``secret``, of public data: the season
    seed, the game id, the game's place in the season and the content hash of each entry seated
    in it (a free-for-all deal: of the whole field).

    Without the secret nobody can compute a board, a hand, a map or a seating before the game is
    played: the records publish each game's seed after play (it replays the game exactly), and
    an HMAC's outputs tell nothing of its key. As a seated entry's hash is part of the message,
    a game's seed changes whenever one of its entries changes, so the seeds one season
    publishes never predict another season's new games. With no secret (``public``) the key is
    empty: the same derivation, which anyone can repeat."""

    season_seed: int = 0
    secret: bytes = field(default=b"", repr=False)
    hashes: tuple[tuple[str, str], ...] = ()  # (entry name, content hash) of the field
    filler_hash: str = ""  # the built-in bot that fills a free-for-all table's empty seats

    @property
    def public(self) -> bool:
        return not self.secret

    @functools.cached_property
    def _by_name(self) -> Mapping[str, str]:
        return dict(self.hashes)

    def hash_of(self, name: str) -> str:
        """The content hash of the entry (or filler seat) ``name``; "" for a name not known."""
        found = self._by_name.get(name)
        if found is None and name.startswith(FILLER_PREFIX):
            return self.filler_hash
        return found or ""

    def _mac(self, *parts: object) -> bytes:
        text = json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
        return hmac.new(self.secret, text.encode(), hashlib.sha256).digest()

    def game_seed(
        self, game_id: str, round_: int, seats: Sequence[str], tag: Sequence[str] = ()
    ) -> int:
        """A game's seed, a non-negative int64: the first 8 bytes of the HMAC of its identity
        (game, round, ``tag``: match and game number, table, run and setup, …) and its seats,
        each with its entry's content hash."""
        seated = [[name, self.hash_of(name)] for name in seats]
        digest = self._mac("koth-seed-v2", self.season_seed, game_id, round_, list(tag), seated)
        return int.from_bytes(digest[:8], "big") & (2**63 - 1)

    def deal_keys(self, game_id: str, round_: int, names: Sequence[str]) -> dict[str, bytes]:
        """Each name's sort key in a round's deal of the field ``names``: an HMAC of the round,
        the name and the whole field's content hashes, so a changed field is dealt afresh."""
        field_ = hashlib.sha256(
            json.dumps(sorted([n, self.hash_of(n)] for n in names)).encode()
        ).hexdigest()
        return {
            name: self._mac("koth-deal-v2", self.season_seed, game_id, round_, field_, name)
            for name in names
        }


@functools.total_ordering
@dataclass(frozen=True)
class Fixture:
    """One game to play. Ordering is the canonical order: round, then ``slot`` (the game's place
    in its round: match and game number, table and run; empty for round-robin), then seats."""

    round: int  # 1-based
    seats: tuple[str, ...]  # entry names in seat order (seat 0 first)
    game: str
    seed: int
    setup: str | None = None  # the name of the per-game setup (a map), if any
    slot: tuple[int, ...] = ()
    label: str = ""  # for people: "match 2, game 3", "table 1, run 4"

    def sort_key(self) -> tuple[int, tuple[int, ...], tuple[str, ...], str, str, int]:
        return (self.round, self.slot, self.seats, self.setup or "", self.game, self.seed)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Fixture):
            return NotImplemented
        return self.sort_key() < other.sort_key()


class Results(Protocol):
    """The recorded results of the season's own fixtures."""

    def places(self, fixture: Fixture) -> tuple[int, ...] | None:
        """Each seat's place in the recorded game (1 first, ties share the better place), or
        None when the fixture is not recorded."""
        ...


class NoResults:
    """Nothing recorded yet."""

    def places(self, fixture: Fixture) -> tuple[int, ...] | None:
        return None


NO_RESULTS = NoResults()


@dataclass(frozen=True)
class Known:
    """Every game the results determine so far (canonical order), and what the next wait for."""

    games: tuple[Fixture, ...]
    then: str | None = None  # None: no game follows these


@dataclass(frozen=True)
class Play:
    games: tuple[Fixture, ...]  # to play now; none is recorded yet
    then: str | None = None  # what follows once they are recorded; None: these are the last


@dataclass(frozen=True)
class Wait:
    reason: str  # what the next games wait for
    awaited: tuple[Fixture, ...]  # handed out, not yet recorded


@dataclass(frozen=True)
class Done:
    pass


Next = Play | Wait | Done


class Format:
    """A format: a small class chosen by name (``format:`` in tournament.yaml)."""

    name: ClassVar[str]
    # True when the games never depend on results (round-robin, free-for-all): then every game
    # is known from the start, and a preview can play just the games of the entries it checks.
    static: ClassVar[bool]

    def known(self, entries: Sequence[str], results: Results) -> Known:
        """Every game the recorded ``results`` determine, in canonical order (the hook)."""
        raise NotImplementedError

    def next_games(
        self, entries: Sequence[str], results: Results, busy: Collection[Fixture] = ()
    ) -> Next:
        """What to do now: play the unrecorded games not in ``busy`` (handed out already, to
        this process or another shard), wait for ``busy`` games, or stop: all are recorded."""
        known = self.known(entries, results)
        unrecorded = tuple(g for g in known.games if results.places(g) is None)
        todo = tuple(g for g in unrecorded if g not in busy)
        if todo:
            return Play(todo, known.then)
        if unrecorded:
            return Wait(known.then or "the games handed out are not recorded yet", unrecorded)
        if known.then is not None:  # a format that cannot go on from complete results
            return Wait(known.then, ())
        return Done()


def check_entries(entries: Sequence[str]) -> list[str]:
    """The entries, sorted; a FormatError if a name is listed twice."""
    if len(set(entries)) != len(entries):
        twice = sorted({e for e in entries if list(entries).count(e) > 1})
        raise FormatError(f"entries listed more than once: {', '.join(twice)}")
    return sorted(entries)


__all__ = [
    "BUILTIN_PREFIX",
    "FILLER",
    "FILLER_PREFIX",
    "NO_RESULTS",
    "Done",
    "Fixture",
    "Format",
    "FormatError",
    "Known",
    "Next",
    "NoResults",
    "Play",
    "Results",
    "Wait",
    "Seeds",
    "check_entries",
    "host_seat",
]
