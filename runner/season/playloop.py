"""The season loop: ask the format, play what is playable now, record it, ask again.

The format (runner/season/formats) sees only the recorded results of the season's own fixtures; this
module finds them: every fixture gets its result key (from the entries' content hashes, the seed
and the setup, runner/season/results.py), and a fixture's result is the record with that key.

- ``plan``: every game the recorded results determine so far, in canonical order, with its key,
  and what the next games wait for. ``koth schedule`` prints it; standings count its records.
- ``play_rounds``: the loop. Unsharded, it plays every unrecorded game the format hands out, in
  batches (a knockout round at a time, a round-robin at once), until the format is done. With
  ``--shard i/n`` it plays the shard's share of what is playable now (the games whose index in the
  plan is i−1 modulo n) and stops: a knockout's next round needs every shard's results, so it
  waits for ``koth merge`` and another pass. Every shard of a pass sees the same merged results,
  so the shards' shares are disjoint and cover what is playable.

A kill at any point loses nothing recorded: the next run asks the format again from the records,
so it resumes inside a round or between rounds alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from runner.games.spec import placement_from_order
from runner.season.formats import Done, Fixture, Format, Next, Play, fillers
from runner.season.results import RecordView, record_key
from runner.season.schedule import Shard, select_shard

KeyOf = Callable[[Fixture], str]
Say = Callable[[str], None]


@dataclass(frozen=True)
class Scheduled:
    index: int  # position in the canonical order of the games known so far
    fixture: Fixture
    key: str


def record_places(record: RecordView) -> tuple[int, ...]:
    """Each seat's place in a recorded game: ``outcome.placement`` when the record has one,
    else from the points (more is better; equal points share the better place)."""
    outcome = record["outcome"]
    placement = outcome.get("placement")
    if isinstance(placement, list) and placement:
        return tuple(int(p) for p in placement)
    return placement_from_order(outcome["points"])


def keys_by(
    hashes: Mapping[str, str],
    setups: Mapping[str, Mapping[str, str]],
    filler_hash: Callable[[], str],
) -> KeyOf:
    """A fixture's result key (runner/season/results.py ``record_key``): its game, its seats as
    entry name and content hash (a filler seat: the built-in bot's), its seed and its setup's
    name and hash (only for a game with a setup, so no other key changes). Each key is worked out
    once: a season's loop asks for every game's several times (the plan, the format's questions)."""
    known = dict(hashes)
    made: dict[tuple[str, tuple[str, ...], int, str | None], str] = {}

    def key_of(fixture: Fixture) -> str:
        identity = (fixture.game, fixture.seats, fixture.seed, fixture.setup)
        key = made.get(identity)
        if key is None:
            for name in fillers(fixture.seats):
                if name not in known:
                    known[name] = filler_hash()
            seats = [(name, known[name]) for name in fixture.seats]
            setup = setups[fixture.setup] if fixture.setup is not None else None
            key = made[identity] = record_key(fixture.game, seats, fixture.seed, setup)
        return key

    return key_of


class RecordedResults:
    """The season's recorded results by key (``formats.Results``): only places are kept."""

    def __init__(self, key_of: KeyOf, records: Iterable[RecordView] = ()) -> None:
        self.key_of = key_of
        self.places_by_key: dict[str, tuple[int, ...]] = {}
        for record in records:
            self.add(record)

    def add(self, record: RecordView) -> None:
        self.places_by_key.setdefault(record["key"], record_places(record))

    def has(self, key: str) -> bool:
        return key in self.places_by_key

    def places(self, fixture: Fixture) -> tuple[int, ...] | None:
        return self.places_by_key.get(self.key_of(fixture))


@dataclass(frozen=True)
class Plan:
    """The season as far as the recorded results determine it."""

    games: list[Scheduled]  # every known game, canonical order, recorded or not
    then: str | None  # what the next games wait for; None: no game follows these


def plan(fmt: Format, entries: Sequence[str], results: RecordedResults) -> Plan:
    known = fmt.known(entries, results)
    games = [Scheduled(i, f, results.key_of(f)) for i, f in enumerate(known.games)]
    return Plan(games, known.then)


@dataclass
class LoopReport:
    scheduled: int = 0  # games of this shard (or season) known when the loop stopped
    recorded: int = 0  # of those, recorded before this run
    played: int = 0
    failed: list[str] = field(default_factory=list)  # host failures; replayed by the next run
    left: int = 0  # not played this run (max_games)
    waiting: str | None = None  # why the season is not done yet (after a shard's pass, ...)
    passes: int = 0


PlayBatch = Callable[[Sequence[Scheduled]], list[tuple[Scheduled, str]]]


def play_rounds(
    fmt: Format,
    entries: Sequence[str],
    results: RecordedResults,
    play_batch: PlayBatch,
    *,
    shard: Shard | None = None,
    wanted: Callable[[Fixture], bool] | None = None,
    max_games: int | None = None,
    say: Say = lambda _: None,
    jobs: Callable[[int], int] = lambda count: 1,
    report: LoopReport | None = None,
) -> LoopReport:
    """Ask the format, play what it hands out, ask again: until it is done, or for a shard after
    one pass. ``play_batch`` plays and records games (adding each record to ``results``) and
    returns those it could not play, with why; they are not retried in this run. Only games
    ``wanted`` says yes to are played (a preview plays only its entries' games)."""
    report = report if report is not None else LoopReport()
    before = set(results.places_by_key)
    failed: set[str] = set()
    while True:
        asked = _ask(fmt, entries, results, shard, wanted, failed)
        if shard is None or not report.passes:  # a shard reports on the pass it played
            report.scheduled = len(asked.mine)
            report.recorded = sum(s.key in before for s in asked.mine)
        if shard is not None and report.passes:
            break
        todo = _within_budget(asked.todo, max_games, report, len(failed))
        if not report.passes or todo:
            say(_batch_line(asked, todo, results, shard, jobs(len(todo))))
        if not todo:
            break
        report.passes += 1
        recorded_before = len(results.places_by_key)
        for game, why in play_batch(todo):
            failed.add(game.key)
            report.failed.append(f"{' vs '.join(game.fixture.seats)}: {why}")
        report.played += len(results.places_by_key) - recorded_before
    report.waiting = None if isinstance(asked.step, Done) else asked.plan.then
    return report


@dataclass(frozen=True)
class _Asked:
    """One question to the format: the plan, this shard's part of it, the answer, the games to
    play now (the answer's, when it is Play)."""

    plan: Plan
    mine: list[Scheduled]
    step: Next
    todo: list[Scheduled]


def _ask(
    fmt: Format,
    entries: Sequence[str],
    results: RecordedResults,
    shard: Shard | None,
    wanted: Callable[[Fixture], bool] | None,
    failed: set[str],
) -> _Asked:
    """Ask the format what to play now; games of other shards, games not ``wanted`` and games
    that failed in this run are busy (handed out elsewhere, or not to be retried now)."""
    current = plan(fmt, entries, results)
    mine = select_shard(current.games, shard)
    by_fixture = {s.fixture: s for s in current.games}
    busy = {s.fixture for s in current.games if s.key in failed}
    busy |= set(by_fixture) - {s.fixture for s in mine}
    if wanted is not None:
        busy |= {f for f in by_fixture if not wanted(f)}
    step = fmt.next_games(entries, results, busy)
    todo = [by_fixture[f] for f in step.games] if isinstance(step, Play) else []
    return _Asked(current, mine, step, todo)


def _within_budget(
    todo: list[Scheduled], max_games: int | None, report: LoopReport, failed: int
) -> list[Scheduled]:
    """The games ``--max-games`` still allows; the rest are counted as left."""
    if max_games is None:
        return todo
    keep = max(0, max_games - report.played - failed)
    if len(todo) > keep:
        report.left = len(todo) - keep
    return todo[:keep]


def _batch_line(
    asked: _Asked,
    todo: Sequence[Scheduled],
    results: RecordedResults,
    shard: Shard | None,
    jobs: int,
) -> str:
    part = f" (shard {shard})" if shard else ""
    rounds = sorted({s.fixture.round for s in todo})
    which = f" (round {rounds[0]})" if len(rounds) == 1 else ""
    which = f" (rounds {rounds[0]} to {rounds[-1]})" if len(rounds) > 1 else which
    recorded = sum(results.has(s.key) for s in asked.mine)
    then = f"; {asked.plan.then}" if asked.plan.then else ""
    return (
        f"schedule{part}: {len(asked.mine)} games, {recorded} already recorded, {len(todo)} to "
        f"play now{which} with {jobs} job(s){then}"
    )


__all__ = [
    "LoopReport",
    "Plan",
    "RecordedResults",
    "Scheduled",
    "play_rounds",
    "plan",
    "keys_by",
    "record_places",
]
