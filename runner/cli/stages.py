"""A season, stage by stage: build → check → schedule → play → standings.

Every stage reads and writes plain files and caches by content hash, so each can run alone
(``koth build``, ``koth check``, ...) or all in a row (``koth season``), and a re-run does only
what changed:

- build and check: who plays (runner/season/check.py).
- schedule: the games the format (runner/season/formats) knows for the entries that passed, given
  the recorded results, with derived seeds and result keys (runner/season/playloop.py,
  runner/season/results.py).
- play: the season loop (runner/season/playloop.py): the games the format hands out whose key is not
  yet recorded in the results folder, on ``jobs`` worker processes (runner/season/workers.py), then
  ask again (a knockout round after round); only this process writes the results file. Ctrl-C (or
  SIGTERM) stops the workers; what was recorded stays.
- standings: the records whose key is in the current schedule (runner/rank/standings.py).
"""

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runner import __version__
from runner.common.progress import Progress, Say, to_stderr
from runner.games import find_game
from runner.play.referee import Player
from runner.rank import ratings
from runner.rank.bracket import KNOCKOUT_ORDER, bracket_document, knockout_order
from runner.rank.standings import Row, document, rank, ranks_by_score
from runner.rank.standings import write as write_standings
from runner.season import results
from runner.season.build import Sandbox
from runner.season.check import Lineup, SeasonError, builtin_player, lineup
from runner.season.config import Config
from runner.season.entries import Entrant, content_hash
from runner.season.formats import (
    Fixture,
    Format,
    FormatError,
    FreeForAll,
    Knockout,
    Seeds,
    fillers,
    format_for,
)
from runner.season.playloop import (
    KeyOf,
    LoopReport,
    Plan,
    RecordedResults,
    Scheduled,
    keys_by,
    plan,
    play_rounds,
)
from runner.season.results_key import code_digest
from runner.season.schedule import Shard
from runner.season.workers import Closing, GamePool, Task, sigterm_interrupts


def season_seeds(config: Config, line: Lineup) -> Seeds:
    """Where the season's randomness comes from (runner/season/formats/base.py): its secret, its
    seed, the content hash of every entry that plays and of the filler bot (a free-for-all's)."""
    hashes = tuple(sorted((name, p.content_hash) for name, p in line.players.items()))
    filler = filler_hash(config) if config.format == FreeForAll.name else ""
    return Seeds(config.seed, config.secret, hashes, filler)


PUBLIC_RANDOMNESS = (
    "note: no season secret is set (KOTH_SEASON_SECRET, or `secret:` in tournament.yaml), so "
    "the season's randomness is public: anyone can compute every game's board, hand, map and "
    "seating before it is played (docs/hosting.md, The season secret)"
)


def say_randomness(config: Config, say: Say) -> None:
    """One line when the season has no secret: its randomness is public."""
    if not config.secret:
        say(PUBLIC_RANDOMNESS)


def season_format(config: Config, line: Lineup) -> Format:
    """The season's format (runner/season/formats), built from its settings, seeded for this
    field."""
    try:
        return format_for(config, season_seeds(config, line))
    except (FormatError, ValueError) as exc:
        where = config.path or "tournament.yaml"
        raise SeasonError(f"{where}: format {config.format}: {exc}") from None


@functools.cache
def _builtin_hash(game_id: str) -> str:
    return content_hash(find_game(game_id).builtins[0].folder)


def filler_hash(config: Config) -> str:
    """The content hash of the built-in bot that fills a free-for-all table's empty seats (the
    game's first built-in bot, as in the check stage)."""
    return _builtin_hash(config.game)


def key_function(config: Config, line: Lineup) -> KeyOf:
    """A fixture's result key: its game, seats (entry and content hash), seed and setup."""
    hashes = {name: player.content_hash for name, player in line.players.items()}
    setups = {s.name: {"name": s.name, "hash": s.hash} for s in config.free_for_all.setups}
    return keys_by(hashes, setups, lambda: filler_hash(config))


def recorded_results(
    config: Config, line: Lineup, records: Iterable[results.Record]
) -> RecordedResults:
    return RecordedResults(key_function(config, line), records)


def believed_records(config: Config, say: Say = to_stderr) -> list[results.Record]:
    """Every record in the results folder whose outcome the rules reproduce from its moves."""
    return _read_recorded(config, say=say)


def season_plan(config: Config, line: Lineup, say: Say = to_stderr) -> tuple[Plan, set[str]]:
    """Every game the recorded results determine so far, with its key, and what the next wait
    for (runner/season/playloop.py); and the keys of the records believed (read once)."""
    records = _read_recorded(config, say=say)
    return plan_from(config, line, records), {r["key"] for r in records}


def plan_from(
    config: Config,
    line: Lineup,
    records: Iterable[results.Record],
    key_of: KeyOf | None = None,
) -> Plan:
    """The season's plan given these records (runner/season/playloop.py), its keys by ``key_of``
    (default: the season's ``key_function``)."""
    fmt = season_format(config, line)
    recorded = RecordedResults(key_of or key_function(config, line), records)
    try:
        return plan(fmt, sorted(line.players), recorded)
    except FormatError as exc:
        raise SeasonError(f"{config.path or 'tournament.yaml'}: {exc}") from None


def schedule(config: Config, line: Lineup, say: Say = to_stderr) -> list[Scheduled]:
    """The season's games known so far (all of them, for a round-robin), in canonical order,
    each with its result key."""
    return season_plan(config, line, say)[0].games


def shard_file(config: Config, shard: Shard | None) -> Path:
    name = f"{shard.slug}.jsonl" if shard else results.MAIN_FILE
    return config.output.results / name


def _results_paths(config: Config, extra: Path | None = None) -> list[Path]:
    """The results files of the season: its folder's, and ``extra``."""
    paths = results.results_files(config.output.results)
    if extra is not None and extra.resolve() not in {p.resolve() for p in paths}:
        paths.append(extra)
    return paths


def _read_recorded(
    config: Config,
    extra: Path | None = None,
    say: Say = to_stderr,
    reading: results.Reading | None = None,
) -> list[results.Record]:
    """Every record in the results folder (and ``extra``) whose outcome the rules reproduce
    from its moves, saying what was skipped or refused (noted in ``reading``, if given)."""
    paths = _results_paths(config, extra)
    judge = results.reproduced(config.free_for_all.setups)
    records, problems = results.read_all(paths, judge, reading)
    for problem in problems:
        say(f"warning: {problem}")
    return records


@dataclass
class PlayReport(LoopReport):
    out: Path = field(default_factory=lambda: Path(results.MAIN_FILE))


def _filler_players(
    config: Config, line: Lineup, games: Sequence[Scheduled], sandbox: Sandbox | None
) -> dict[str, Player]:
    """Every playing entry, and the built-in bot in each filler seat the games have."""
    players = dict(line.players)
    names = sorted({name for s in games for name in fillers(s.fixture.seats)})
    if not names:
        return players
    if sandbox is None:
        raise SeasonError("free-for-all fillers need the sandbox to build the built-in bot")
    builtin = builtin_player(config, sandbox)
    players.update((name, replace(builtin, entry=name)) for name in names)
    return players


def play_batch(
    config: Config,
    players: Mapping[str, Player],
    pool: GamePool,
    todo: Sequence[Scheduled],
    out: Path,
    on_game: Callable[[], None] = lambda: None,
    on_record: Callable[[results.Record], None] = lambda _: None,
) -> list[tuple[Scheduled, str]]:
    """Play these scheduled games, appending one record per game to ``out`` (and handing it to
    ``on_record``); returns the games that could not be played (the sandbox failed) and why."""
    setups = {s.name: s for s in config.free_for_all.setups}
    tasks = [
        Task(
            i,
            tuple(players[n] for n in s.fixture.seats),
            s.fixture.seed,
            setup=setups[s.fixture.setup].as_dict() if s.fixture.setup is not None else None,
        )
        for i, s in enumerate(todo)
    ]
    failed: list[tuple[Scheduled, str]] = []
    with results.ResultsWriter(out) as writer:
        for index, played, error in pool.play(tasks):
            game = todo[index]
            if played is None:
                failed.append((game, f"the sandbox failed: {error}"))
            else:
                setup = setups[game.fixture.setup] if game.fixture.setup is not None else None
                record = results.make_record(
                    played,
                    key=game.key,
                    season_seed=config.seed,
                    round_=game.fixture.round,
                    when=played["measured"]["when"],
                    setup={"name": setup.name, "hash": setup.hash} if setup else None,
                )
                try:
                    writer.append(record)
                except results.RecordTooLong as exc:  # never written to be skipped and replayed
                    raise SeasonError(str(exc)) from None
                on_record(record)
            on_game()
    return failed


def play(
    config: Config,
    line: Lineup,
    pool: GamePool,
    *,
    shard: Shard | None = None,
    out: Path | None = None,
    max_games: int | None = None,
    show_progress: bool = True,
    say: Say = to_stderr,
    sandbox: Sandbox | None = None,
) -> PlayReport:
    """Play the (shard's) games not yet recorded in the results folder, appending one record per
    game to ``out``: every game the format hands out until it is done, or for a shard, its share
    of what is playable now (runner/season/playloop.py)."""
    out = out or shard_file(config, shard)
    try:
        with sigterm_interrupts(), results.exclusive(config.output.results):
            records = _read_recorded(config, out, say)
            return play_into(
                config,
                line,
                pool,
                out,
                records,
                shard=shard,
                max_games=max_games,
                show_progress=show_progress,
                say=say,
                sandbox=sandbox,
            )
    except results.ResultsBusy as exc:
        raise SeasonError(str(exc)) from None


def play_into(
    config: Config,
    line: Lineup,
    pool: GamePool,
    out: Path,
    records: Iterable[results.Record],
    *,
    wanted: Callable[[Fixture], bool] | None = None,
    shard: Shard | None = None,
    max_games: int | None = None,
    show_progress: bool = True,
    say: Say = to_stderr,
    sandbox: Sandbox | None = None,
) -> PlayReport:
    """The season loop over ``records`` (what is recorded already), appending to ``out``; only
    the games ``wanted`` says yes to (a preview's) are played."""
    report = PlayReport(out=out)
    say_randomness(config, say)
    recorded = recorded_results(config, line, records)
    fmt = season_format(config, line)
    first = plan_from(config, line, [], recorded.key_of)  # its keys are worked out once
    players = _filler_players(config, line, first.games, sandbox)
    start = len(recorded.places_by_key)
    # ``out`` exists afterwards even when nothing is played (a shard's file is uploaded), and a
    # torn last line a killed run left is cut off now, once.
    with results.ResultsWriter(out) as writer:
        if writer.repaired:
            say(f"warning: {out}: cut off an incomplete last line left by an interrupted run")

    def batch(todo: Sequence[Scheduled]) -> list[tuple[Scheduled, str]]:
        progress = Progress(len(todo), "games", enabled=show_progress)
        try:
            return play_batch(config, players, pool, todo, out, progress.advance, recorded.add)
        finally:
            progress.close()

    try:
        play_rounds(
            fmt,
            sorted(line.players),
            recorded,
            batch,
            shard=shard,
            wanted=wanted,
            max_games=max_games,
            say=say,
            jobs=pool.parallel,
            report=report,
        )
    except FormatError as exc:
        raise SeasonError(f"{config.path or 'tournament.yaml'}: {exc}") from None
    except KeyboardInterrupt:
        done = len(recorded.places_by_key) - start
        say(f"interrupted: {done} game(s) recorded in {out}; run again to play the rest")
        raise
    return report


def standings(
    config: Config, line: Lineup, say: Say = to_stderr
) -> tuple[list[Row], dict[str, Any]]:
    """Rank the recorded games the season's plan knows, each only if the rules reproduce its
    outcome from its moves, and write standings.json (with what it judged, ``judged``: the
    site then plays no record's moves again)."""
    reading = results.Reading()
    records = _read_recorded(config, say=say, reading=reading)
    games = plan_from(config, line, records).games
    current = {s.key for s in games}
    counted = results.canonical(r for r in records if r["key"] in current)
    rows, ranked_by = ranked(config, line, line.entrants(), counted)
    meta = {
        "game": config.game,
        "format": config.format,
        "rounds": config.rounds,
        "season_seed": config.seed,
        "host_version": __version__,
        "games_scheduled": len(games),
        "games_played": len(counted),
        "points": config.points if isinstance(config.points, str) else list(config.points),
        "judged": results.judged(_results_paths(config), reading, code_digest()),
    }
    doc = document(rows, {**meta, **ranked_by})
    write_standings(config.output.standings, doc)
    return rows, doc


def ranked(
    config: Config, line: Lineup, entrants: Sequence[Entrant], records: Sequence[results.Record]
) -> tuple[list[Row], dict[str, Any]]:
    """The standings' rows in rank order, and what standings.json adds: the ratings, fitted
    once here (runner/rank/ratings.py); a knockout ranks by its bracket (runner/rank/bracket.py)
    and writes it; other formats by points."""
    rows = rank(entrants, records, config.points, ranks_by_score(config.game))
    fmt = season_format(config, line)
    extra: dict[str, Any] = {}
    if isinstance(fmt, Knockout):
        recorded = recorded_results(config, line, records)
        doc = bracket_document(fmt, sorted(line.players), recorded, recorded.key_of)
        rows = knockout_order(rows, doc)
        extra = {"bracket": doc, "tie_break": KNOCKOUT_ORDER}
    extra["ratings"] = ratings.of_records(records, [r.entry for r in rows if r.excluded is None])
    return rows, extra


def run_season(
    config: Config,
    *,
    jobs: int | None = None,
    max_games: int | None = None,
    show_progress: bool = False,
    say: Say = to_stderr,
    closing: Closing | None = None,
    recheck: bool = False,
) -> tuple[PlayReport, list[Row], dict[str, Any]]:
    """Every stage in a row: build, check, schedule, play, standings (``koth season``). The
    sandbox and the workers close while the standings are worked out, on ``closing``'s thread
    if given (the caller then goes on, to the site, before it waits for them), else on one
    waited for before this returns."""
    with nullcontext(closing) if closing is not None else Closing() as closer:
        with closer.playing(config, jobs) as (sandbox, pool):
            line = lineup(config, sandbox, pool, say, recheck)
            report = play(
                config,
                line,
                pool,
                max_games=max_games,
                show_progress=show_progress,
                say=say,
                sandbox=sandbox,
            )
        rows, doc = standings(config, line, say)
    return report, rows, doc
