"""Standings: points, games, W/D/L or places, and faults per entry, ranked with a documented
tie-break. Games of any number of seats.

Points. A two-seat game gives what its record says: a win 1, a draw ½ to each side, a loss 0. A game
of more seats gives points by place through the season's table (``points:`` in tournament.yaml,
runner/season/config.py): ``linear``, first 1 and last 0, evenly spaced (four seats: 1, ⅔, ⅓, 0), or
a list of points by place, places past its end scoring 0. Seats tied on a place share the points of
the places they span (two seats tied second of four: (⅔ + ⅓) / 2 each). Places come from the record
(runner.season.results.places). Points are added up as exact fractions, so neither a total nor a tie
depends on the order of the games.

Per entry: points and games; wins, draws and losses in its two-seat games (a win: more points
than the other seat); ``places``, how many of its games of more than two seats it finished 1st,
2nd, ... (a list as long as the largest such game; empty when there are none); ``average_place``
over all its games, ties sharing the better place (null without games); faults by kind (the
fault's termination: timeout, crash, invalid_move, memory, disconnect), a game counted once per
kind for each seat at fault in it: the seat whose fault ended the game (``outcome.faulty``) and
every seat listed in ``outcome.faults`` (a game of more seats goes on without it).

Ranking (the tie-break), each step applied only among entries still tied by the ones before:
  1. points, most first;
  2. head-to-head points: the points each tied entry earned in the games where it met another
     entry tied with it on points (in two-seat games: the games between them), computed once
     per group of equal points, not recursively;
  3. wins (two-seat games), most first;
  4. countback over the games of more than two seats: more first places, then more second
     places, and so on;
  5. entry name, alphabetically (so the order is always total and reproducible).
In a season of two-seat games step 4 separates no one: the order is points, head-to-head,
wins, name, and ``TIE_BREAK`` says so; a season with larger games says ``TIE_BREAK_PLACES``.
Entries excluded by the build or the check stage are listed after the ranked ones, without a
rank, with 0 games and the reason they did not play.

A knockout season ranks its rows by its bracket instead (runner/rank/bracket.py: the round each
entry reached); the counts above are the same.

Ranking by score. A game whose spec says ``ranking="score"`` (the Easter Egg Hunt: eggs) ranks
by each entry's mean score per game — the game's own count from the record's ``outcome.scores``,
not points by place — with a 95% interval for that mean: ``mean ± t · s / √n`` over its n games
(s the sample standard deviation, t Student's 97.5% quantile with n - 1 degrees of freedom; no
interval below two games). Entries with equal means keep the order above (points first). Two
entries whose intervals overlap cannot be told apart by the games played (``Row.overlaps``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from itertools import groupby
from pathlib import Path
from typing import Any, NamedTuple

from runner.common.safefiles import shown, shown_text
from runner.season.entries import Entrant
from runner.season.points import LINEAR_POINTS as LINEAR
from runner.season.points import Points
from runner.season.results import RecordView
from runner.season.results import places as record_places
from runner.season.standings_file import SCORE_FIELDS

TIE_BREAK = (
    "points, then head-to-head points among the entries tied on points, then wins, then entry name"
)
TIE_BREAK_SCORE = (
    "mean score per game, then points, then head-to-head points among the entries tied on "
    "points, then wins, then the countback of places in games of more than two seats, then "
    "entry name"
)
TIE_BREAK_PLACES = (
    "points, then head-to-head points among the entries tied on points (their points in the "
    "games where they met), then wins, then the countback of places in games of more than two "
    "seats (more first places, then more second places, ...), then entry name"
)


@dataclass
class Row:
    entry: str
    name: str
    content_hash: str
    rank: int | None = None
    points: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    excluded: str | None = None
    detail: str = ""
    places: list[int] = field(default_factory=list)  # games of 3+ seats finished 1st, 2nd, ...
    average_place: float | None = None
    # Ranking by score only: the mean score per game and its 95% interval (None below 2 games).
    score: float | None = None
    score_low: float | None = None
    score_high: float | None = None

    def overlaps(self, other: Row) -> bool:
        """Whether the two rows' 95% score intervals overlap (or either has none): the games
        played cannot tell the two apart."""
        if None in (self.score_low, self.score_high, other.score_low, other.score_high):
            return True
        assert self.score_low is not None and self.score_high is not None
        assert other.score_low is not None and other.score_high is not None
        return self.score_low <= other.score_high and other.score_low <= self.score_high


# Student's t, 97.5% quantile, for 1 to 30 degrees of freedom; beyond, Cornish–Fisher below.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """Student's t distribution's 97.5% quantile for ``df`` degrees of freedom (df ≥ 1): a
    table to 30, then the Cornish–Fisher expansion (within 0.001 of the exact value)."""
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """The mean of ``values`` and its 95% interval (None, None below two values). Exact sums,
    so the order of the values never changes the result."""
    exact = [Fraction(v) for v in values]
    n = len(exact)
    mean = sum(exact, Fraction(0)) / n
    if n < 2:
        return float(mean), None, None
    variance = sum(((v - mean) ** 2 for v in exact), Fraction(0)) / (n - 1)
    margin = t975(n - 1) * math.sqrt(variance / n)
    return float(mean), float(mean) - margin, float(mean) + margin


def table_points(table: Points, placement: Sequence[int]) -> list[Fraction]:
    """Each seat's points for a placement under a points table: tied seats share the points of
    the places they span."""
    seats = len(placement)
    if table == LINEAR:  # one seat alone is first: 1
        by_place = [
            Fraction(seats - 1 - k, seats - 1) if seats > 1 else Fraction(1) for k in range(seats)
        ]
    else:
        by_place = [Fraction(p) for p in table[:seats]]
        by_place += [Fraction(0)] * (seats - len(by_place))
    shares = []
    for place in placement:
        tied = sum(p == place for p in placement)
        shares.append(sum(by_place[place - 1 : place - 1 + tied], Fraction(0)) / tied)
    return shares


def game_points(record: RecordView, table: Points = LINEAR) -> list[Fraction]:
    """The points each seat of a (checked) record earns in the standings: a two-seat game's own
    (win 1, draw ½, loss 0), a larger game's by place through ``table``."""
    if len(record["seats"]) == 2:
        return [_exact(float(p)) for p in record["outcome"]["points"]]
    return table_points(table, record_places(record))


_EXACT: dict[float, Fraction] = {}


def _exact(value: float) -> Fraction:
    """``Fraction(value)``, the few values two-seat games give made once (a season reads
    hundreds of thousands)."""
    found = _EXACT.get(value)
    if found is None:
        found = Fraction(value)
        if len(_EXACT) < 64:
            _EXACT[value] = found
    return found


def _faults(record: RecordView) -> set[tuple[int, str]]:
    """(seat, kind) of every fault in a game: the one that ended it and those it went on after."""
    outcome = record["outcome"]
    found = set()
    faulty = outcome.get("faulty")
    if isinstance(faulty, int) and 0 <= faulty < len(record["seats"]):
        found.add((faulty, str(outcome.get("termination", "fault"))))
    for fault in outcome.get("faults") or ():
        found.add((int(fault["seat"]), str(fault.get("termination", "fault"))))
    return found


class _Counted(NamedTuple):
    """A game as the ranking sees it: its entries, their exact points and their places. (A
    tuple: one is made for every game of a season, three times as fast as a dataclass.)"""

    seats: tuple[str, ...]
    points: tuple[Fraction, ...]
    places: tuple[int, ...]


@dataclass
class _Book:
    """The rows being filled, with what they are ranked by kept exact."""

    rows: Mapping[str, Row]
    points: dict[str, Fraction] = field(default_factory=dict)  # (after ``finish``)
    earned: dict[str, dict[Fraction, int]] = field(default_factory=dict)  # points → games
    place_sums: dict[str, int] = field(default_factory=dict)
    games: list[_Counted] = field(default_factory=list)
    largest: int = 0  # the seats of the largest game of more than two
    scores: dict[str, list[float]] = field(default_factory=dict)  # each game's score per entry
    by_entry: dict[str, list[int]] | None = None  # the positions in ``games`` of each entry's

    def add(self, record: RecordView, table: Points) -> None:
        seats = tuple(str(s["entry"]) for s in record["seats"])
        game = _Counted(seats, tuple(game_points(record, table)), tuple(record_places(record)))
        scores = record["outcome"].get("scores") or [0.0] * len(seats)
        for seat, name in enumerate(seats):
            row = self.rows.get(name)
            if row is None:  # a built-in bot filling a table's empty seat: no entrant
                continue
            row.games += 1
            self.scores.setdefault(name, []).append(float(scores[seat]))
            # how many games gave each number of points: added up once, in ``finish``
            earned = self.earned.setdefault(name, {})
            earned[game.points[seat]] = earned.get(game.points[seat], 0) + 1
            self.place_sums[name] = self.place_sums.get(name, 0) + game.places[seat]
            if len(seats) == 2:
                _count_result(row, game.places[seat], game.places[1 - seat])
            else:
                self.largest = max(self.largest, len(seats))
                row.places += [0] * (len(seats) - len(row.places))
                row.places[game.places[seat] - 1] += 1
        outcome = record["outcome"]
        if outcome.get("faulty") is not None or outcome.get("faults"):
            for seat, kind in sorted(_faults(record)):
                if seats[seat] in self.rows:
                    faults = self.rows[seats[seat]].faults
                    faults[kind] = faults.get(kind, 0) + 1
        self.games.append(game)

    def finish(self, by_score: bool) -> None:
        """Totals into the rows; every playing row's histogram as long as the largest game's;
        ranking by score, each row's mean score and its interval."""
        for name, earned in self.earned.items():
            self.points[name] = sum((p * n for p, n in earned.items()), Fraction(0))
        for row in (r for r in self.rows.values() if r.excluded is None):
            row.places += [0] * (self.largest - len(row.places))
            row.points = float(self.points.get(row.entry, 0))
            if row.games:
                row.average_place = float(Fraction(self.place_sums[row.entry], row.games))
            if by_score and row.games:
                row.score, row.score_low, row.score_high = mean_interval(self.scores[row.entry])

    def met(self, rows: Iterable[Row]) -> list[_Counted]:
        """The games of any of ``rows``' entries, in order (each once)."""
        if self.by_entry is None:  # worked out on the first tie: most seasons ask a few times
            self.by_entry = {}
            for number, game in enumerate(self.games):
                for name in set(game.seats):
                    self.by_entry.setdefault(name, []).append(number)
        numbers = sorted({n for row in rows for n in self.by_entry.get(row.entry, ())})
        return [self.games[n] for n in numbers]

    def mean_score(self, entry: str) -> Fraction:
        found = self.scores.get(entry) or [0.0]
        return sum(map(Fraction, found), Fraction(0)) / len(found)


def _count_result(row: Row, mine: int, other: int) -> None:
    """A two-seat game's result, from the seats' places (more points: the better place)."""
    if mine < other:
        row.wins += 1
    elif mine == other:
        row.draws += 1
    else:
        row.losses += 1


def _tally(
    rows: Mapping[str, Row], records: Iterable[RecordView], table: Points, by_score: bool
) -> _Book:
    """Every game among playing entries (a free-for-all table's filler seats aside), added
    into ``rows``."""
    book = _Book(rows)
    for record in records:
        seats = [s["entry"] for s in record["seats"]]
        ranked = [name for name in seats if name in rows]
        playing = ranked and all(rows[name].excluded is None for name in ranked)
        if playing and (len(ranked) == len(seats) or len(seats) > 2):
            book.add(record, table)
    book.finish(by_score)
    return book


def _head_to_head(group: set[str], games: Sequence[_Counted]) -> dict[str, Fraction]:
    """The points each entry of ``group`` earned in the games where it met another of them."""
    earned = dict.fromkeys(group, Fraction(0))
    for game in games:
        met = [seat for seat, name in enumerate(game.seats) if name in group]
        if len(met) > 1:
            for seat in met:
                earned[game.seats[seat]] += game.points[seat]
    return earned


def rank(
    entrants: Sequence[Entrant],
    records: Iterable[Mapping[str, Any]],
    points: Points = LINEAR,
    by_score: bool = False,
) -> list[Row]:
    """The standings table: ranked playing entries, then excluded ones by name.

    ``records`` must be the season's current games (one per key); a game of two seats with an
    entry that is not a playing entrant is ignored, and in a larger game a seat that is no
    entrant (a built-in bot filling a table) counts for nobody. ``points`` is the season's table
    for games of more than two seats. ``by_score``: rank by mean score per game first (the
    game's spec says so: ``ranks_by_score``).
    """
    rows = {
        e.entry: Row(e.entry, e.name, e.content_hash, excluded=e.excluded, detail=e.detail)
        for e in entrants
    }
    book = _tally(rows, records, points, by_score)
    total = book.points
    playing = sorted(
        (r for r in rows.values() if r.excluded is None), key=lambda r: -total.get(r.entry, 0)
    )
    ordered: list[Row] = []
    for _, tied in groupby(playing, key=lambda r: total.get(r.entry, 0)):
        group = list(tied)
        h2h = _head_to_head({r.entry for r in group}, book.met(group)) if len(group) > 1 else {}
        group.sort(key=lambda r: (-h2h.get(r.entry, 0), -r.wins, [-n for n in r.places], r.entry))
        ordered += group
    if by_score:  # stable: equal means keep the order by points
        ordered.sort(key=lambda r: -book.mean_score(r.entry))
    for place, row in enumerate(ordered, 1):
        row.rank = place
    excluded = sorted((r for r in rows.values() if r.excluded is not None), key=lambda r: r.entry)
    return ordered + excluded


def ranks_by_score(game_id: str) -> bool:
    """Whether the game's spec ranks by mean score per game (unknown games: by points)."""
    from runner.games import UnknownGameError, find_game

    try:
        return find_game(game_id).ranking == "score"
    except UnknownGameError:
        return False


def document(rows: Sequence[Row], meta: Mapping[str, Any]) -> dict[str, Any]:
    """standings.json's content: ``meta`` (game, seed, games counts, ...) then the rows; a
    ``tie_break`` in ``meta`` (a knockout's: runner/rank/bracket.py) says how the rows were ranked.
    Rows ranked by score say so (``ranking: score``) and carry their score fields; others
    leave them out."""
    by_score = any(r.score is not None for r in rows)
    tie_break = meta.get("tie_break") or (
        TIE_BREAK_SCORE
        if by_score
        else TIE_BREAK_PLACES
        if any(r.places for r in rows)
        else TIE_BREAK
    )
    found = [asdict(r) for r in rows]
    if not by_score:
        found = [{k: v for k, v in row.items() if k not in SCORE_FIELDS} for row in found]
    extra = {"ranking": "score"} if by_score else {}
    return {**meta, **extra, "tie_break": tie_break, "entries": found}


def write(path: Path, doc: Mapping[str, Any]) -> None:
    """Write standings.json atomically: a temporary file, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    suffix = "th" if place % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(place % 10)
    return f"{place}{suffix or 'th'}"


def _columns(rows: Sequence[Row]) -> list[tuple[str, Callable[[Row], object]]]:
    """The text table's counting columns: W/D/L when there are two-seat games (or no games),
    the places and the average place when there are larger ones."""
    playing = [r for r in rows if r.excluded is None]
    largest = max((len(r.places) for r in playing), default=0)
    columns: list[tuple[str, Callable[[Row], object]]] = []
    if not largest or any(r.wins or r.draws or r.losses for r in playing):
        columns += [("W", lambda r: r.wins), ("D", lambda r: r.draws), ("L", lambda r: r.losses)]
    for k in range(largest):
        columns.append((ordinal(k + 1), lambda r, k=k: r.places[k]))  # type: ignore[misc]
    if largest:
        columns.append(
            ("avg", lambda r: "-" if r.average_place is None else f"{r.average_place:.2f}")
        )
    return columns


def score_text(row: Row) -> str:
    """A row's mean score and the half-width of its 95% interval: ``7.40 ± 1.23``."""
    if row.score is None:
        return "-"
    if row.score_low is None or row.score_high is None:
        return f"{row.score:.2f}"
    return f"{row.score:.2f} ± {(row.score_high - row.score_low) / 2:.2f}"


def tied_above(rows: Sequence[Row]) -> dict[str, int]:
    """Ranking by score: entry → the rank just above it, when their intervals overlap."""
    ranked = [r for r in rows if r.excluded is None and r.score is not None]
    return {
        b.entry: a.rank
        for a, b in zip(ranked, ranked[1:], strict=False)
        if a.rank is not None and a.overlaps(b)
    }


def table(rows: Sequence[Row]) -> str:
    """The standings as a plain-text table; ranked by score, a column of mean scores ± their
    95% interval, ``≈ #k`` where it overlaps the rank above."""
    entry_w = max([5, *(len(r.entry) for r in rows)])
    names = [shown(r.name) for r in rows]  # a bot's name may come from a cached record
    name_w = min(24, max([3, *map(len, names)]))
    columns = _columns(rows)
    tied = tied_above(rows)
    score_w = max((len(score_text(r)) for r in rows if r.score is not None), default=0)
    score_w = max(score_w, len("score ± 95%")) if score_w else 0
    head = (
        f"{'rank':>4}  {'entry':<{entry_w}}  {'bot':<{name_w}}  "
        + (f"{'score ± 95%':>{score_w}}  {'':4}  " if score_w else "")
        + f"{'points':>6}  {'games':>5}"
        + "".join(f"  {title:>4}" for title, _ in columns)
        + "  faults"
    )
    lines = [head, "-" * len(head)]
    for r, name in zip(rows, names, strict=True):
        if r.excluded is not None:
            lines.append(f"{'-':>4}  {r.entry:<{entry_w}}  excluded: {shown_text(r.excluded)}")
            continue
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(r.faults.items())) or "-"
        mark = f"≈ #{tied[r.entry]}" if r.entry in tied else ""
        lines.append(
            f"{r.rank:>4}  {r.entry:<{entry_w}}  {_clip(name, name_w):<{name_w}}  "
            + (f"{score_text(r):>{score_w}}  {mark:4}  " if score_w else "")
            + f"{r.points:>6g}  {r.games:>5}"
            + "".join(f"  {str(value(r)):>4}" for _, value in columns)
            + f"  {faults}"
        )
    if tied:
        lines.append("≈ #k: its 95% interval overlaps rank k's; the games cannot tell them apart")
    return "\n".join(lines)
