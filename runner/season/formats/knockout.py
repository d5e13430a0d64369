"""Knockout: a single-elimination bracket of best-of-N matches, computed from recorded results only.

Seeding. Entries are seeded best first: those named by ``seeding`` (an explicit list in
tournament.yaml, or the ranking of a previous season's standings.json) in that order, then every
other entry by name. The bracket has the next power of two of slots, filled in the standard
order (1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight), so the top seeds meet as late as possible; the
slots beyond the field are byes, which therefore fall to the top seeds. A bye advances its entry
without a game.

Matches. A match is best of ``best_of`` games (odd; 3 by default): the first to win more than half
advances. Sides alternate: game 1 seats the higher seed (the smaller seed number) in seat 0, game
2 swaps, game 3 seats the higher seed in seat 0 again, and so on. A game is won by the seat placed
first; a game both seats finish level (a draw) counts for neither. A match still level after
``best_of`` games (because of draws) plays up to ``tiebreak_games`` more, one at a time, sides
still alternating, and the first of them won decides it; if they are all drawn (or
``tiebreak_games`` is 0) the higher seed advances.

Rounds. Round 1 is the first round of the bracket; round r + 1 becomes known only when every
match of round r is decided by recorded results ("round 2 waits for round 1's results"). Within a
match, only the games certain to be played are handed out at once (both first games of a best of
three, then the third if the first two split), so nothing is played that the match may not need.
With ``third_place``, the losers of the two semi-finals play a match in the final's round; it is
skipped when a semi-final was a bye.

A game's identity is its round, match and game number and its seats: its seed is
``randomness.game_seed(game, round, seats, tag=(match, game number))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from runner.season.formats.base import Fixture, Format, Known, Results, Seeds, check_entries

Side = str | None  # an entry, or None for a bye


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of ``size`` slots (a power of two):
    slots 2k and 2k + 1 meet in round 1, and seeds 1 and 2 can meet only in the final."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass(frozen=True)
class Pairing:
    """A match of a round: its number in the round, what it is for people, and its two sides."""

    number: int
    what: str  # "match 3", "final", "third place"
    a: Side
    b: Side


@dataclass(frozen=True)
class MatchState:
    """A match as far as the recorded results take it (a bye: decided, no games, no loser)."""

    games: tuple[Fixture, ...]  # every game of the match known so far
    decided: bool
    winner: Side = None
    loser: Side = None
    round: int = 0
    pairing: Pairing | None = None


@dataclass(frozen=True)
class Bracket:
    """Every match the recorded results reach, round by round, and what the next wait for."""

    matches: tuple[MatchState, ...]
    then: str | None  # None: the bracket is decided

    @property
    def games(self) -> tuple[Fixture, ...]:
        return tuple(sorted((g for m in self.matches for g in m.games), key=Fixture.sort_key))


@dataclass(frozen=True)
class Knockout(Format):
    name: ClassVar[str] = "knockout"
    static: ClassVar[bool] = False

    game: str = ""
    randomness: Seeds = Seeds()
    best_of: int = 3
    seeding: tuple[str, ...] = ()  # best first; entries not named follow by name
    third_place: bool = False
    tiebreak_games: int = 2

    def __post_init__(self) -> None:
        if self.best_of < 1 or self.best_of % 2 == 0:
            raise ValueError(f"best_of must be odd and at least 1, got {self.best_of}")
        if self.tiebreak_games < 0:
            raise ValueError(f"tiebreak_games must be 0 or more, got {self.tiebreak_games}")

    def seeds(self, entries: Sequence[str]) -> list[str]:
        """The field, best seed first."""
        names = check_entries(entries)
        playing = set(names)
        listed = [n for n in dict.fromkeys(self.seeding) if n in playing]
        return listed + [n for n in names if n not in set(listed)]

    def known(self, entries: Sequence[str], results: Results) -> Known:
        bracket = self.bracket(entries, results)
        return Known(bracket.games, bracket.then)

    def bracket(self, entries: Sequence[str], results: Results) -> Bracket:
        """The bracket as far as the recorded results take it: every match (byes included) of
        every round reached, in order (the final, and the third-place match, last), and what the
        next round waits for. A decided final's winner is the champion."""
        order = self.seeds(entries)
        rank = {name: number for number, name in enumerate(order, 1)}
        size = 1 << max(0, len(order) - 1).bit_length() if order else 0
        sides: list[Side] = [order[s - 1] if s <= len(order) else None for s in bracket_order(size)]
        matches: list[MatchState] = []
        semi_losers: list[Side] = []
        round_ = 1
        while len(sides) > 1:
            pairs = self.pairs(sides, semi_losers)
            states = [self.match(round_, pairing, rank, results) for pairing in pairs]
            matches += states
            if not all(state.decided for state in states):
                return Bracket(tuple(matches), waiting(round_, final=len(sides) == 2))
            played = states[: len(sides) // 2]
            sides, semi_losers = [s.winner for s in played], [s.loser for s in played]
            round_ += 1
        return Bracket(tuple(matches), None)

    def pairs(self, sides: list[Side], semi_losers: list[Side]) -> list[Pairing]:
        """A round's matches. The final's round adds the third-place match (match 2) when it is
        asked for and both semi-finals had a loser."""
        if len(sides) == 2:
            pairs = [Pairing(1, "final", sides[0], sides[1])]
            if self.third_place and len(semi_losers) == 2 and None not in semi_losers:
                pairs.append(Pairing(2, "third place", semi_losers[0], semi_losers[1]))
            return pairs
        return [
            Pairing(m + 1, f"match {m + 1}", sides[2 * m], sides[2 * m + 1])
            for m in range(len(sides) // 2)
        ]

    def needed(self, wins: int, other: int, played: int) -> int:
        """How many more games the match is certain to need, given the two sides' wins and the
        games played (0: it is decided)."""
        left, lead = self.best_of - played, abs(wins - other)
        if left > 0:
            return 0 if lead > left else min(left, (left - lead) // 2 + 1)
        if lead or played - self.best_of >= self.tiebreak_games:
            return 0
        return 1

    def match(
        self, round_: int, pairing: Pairing, rank: dict[str, int], results: Results
    ) -> MatchState:
        """A match of ``round_`` as far as the recorded results take it."""
        a, b = pairing.a, pairing.b
        if a is None or b is None:
            return MatchState((), True, a if a is not None else b, None, round_, pairing)
        high, low = (a, b) if rank[a] < rank[b] else (b, a)
        wins = {high: 0, low: 0}
        games: list[Fixture] = []
        while more := self.needed(wins[high], wins[low], len(games)):
            batch = [
                self.fixture(round_, pairing, n, high, low)
                for n in range(len(games) + 1, len(games) + more + 1)
            ]
            games += batch
            for fixture in batch:
                places = results.places(fixture)
                if places is None:
                    return MatchState(tuple(games), False, round=round_, pairing=pairing)
                winner = game_winner(fixture.seats, places)
                if winner is not None:
                    wins[winner] += 1
        winner, loser = (low, high) if wins[low] > wins[high] else (high, low)
        return MatchState(tuple(games), True, winner, loser, round_, pairing)

    def fixture(self, round_: int, pairing: Pairing, number: int, high: str, low: str) -> Fixture:
        """Game ``number`` of a match: the higher seed sits in seat 0 in odd-numbered games."""
        seats = (high, low) if number % 2 == 1 else (low, high)
        tag = (f"knockout:match={pairing.number}", f"knockout:game={number}")
        seed = self.randomness.game_seed(self.game, round_, seats, tag)
        label = f"{pairing.what}, game {number}"
        # Canonical order within a round: game number first, so the games handed out together
        # (the first games of every match, then the deciders) are contiguous and shard evenly.
        return Fixture(round_, seats, self.game, seed, slot=(number, pairing.number), label=label)


def game_winner(seats: tuple[str, ...], places: tuple[int, ...]) -> str | None:
    """The entry placed first in a recorded two-seat game; None for a draw."""
    if len(places) != 2 or places[0] == places[1]:
        return None
    return seats[0] if places[0] < places[1] else seats[1]


def waiting(round_: int, final: bool) -> str:
    if final:
        return f"the winner waits for the results of round {round_} (the final)"
    return f"round {round_ + 1} waits for round {round_}'s results"
