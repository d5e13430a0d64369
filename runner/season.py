"""A season, stage by stage: build → check → schedule → play → standings.

Every stage reads and writes plain files and caches by content hash, so each can run alone
(``koth build``, ``koth check``, ...) or all in a row (``koth season``), and a re-run does only
what changed:

- build: every entry under ``entries/`` is compiled (runner/build.py, cached in build/<entry>/).
- check: every built entry plays smoke games against the game's built-in bot (its package's
  builtin/ folder),
  once in each seat; an entry at fault in either is excluded. Verdicts are cached in
  build/<entry>/check.json by the entry's hash, the built-in bot's hash, the game and the limits.
- schedule: the games the format (runner/formats) knows for the entries that passed, given the
  recorded results, with derived seeds and result keys (runner/playloop.py, runner/results.py).
- play: the season loop (runner/playloop.py): the games the format hands out whose key is not
  yet recorded in the results folder, on ``jobs`` worker processes, then ask again (a knockout
  round after round); each worker keeps one sandbox for all its games and only this process
  writes the results file. Ctrl-C (or SIGTERM) stops the workers; what was recorded stays.
- standings: the records whose key is in the current schedule (runner/standings.py).

An entry that fails its build or its check never stops the season: it is listed in the
standings with its reason and 0 games.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import util
from pathlib import Path
from types import TracebackType
from typing import Any

from runner import __version__, results
from runner.bots import walls
from runner.bracket import KNOCKOUT_ORDER, bracket_document, knockout_order
from runner.build import Build, Sandbox, build_entry, write_file_atomic
from runner.config import Config, ConfigError
from runner.entries import Entry, Manifest, content_hash, discover
from runner.formats import Fixture, Format, FormatError, Knockout, fillers, format_for
from runner.games import find_game
from runner.games.base import EMPTY
from runner.playloop import (
    KeyOf,
    LoopReport,
    Plan,
    RecordedResults,
    Scheduled,
    keys_by,
    plan,
    play_rounds,
)
from runner.progress import Progress
from runner.referee import Player, play_game
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote import BotLimits, SandboxError
from runner.schedule import Shard, game_seed
from runner.standings import Entrant, Row, document, rank
from runner.standings import write as write_standings

CHECK_VERSION = "smoke-v1"

Say = Callable[[str], None]


class SeasonError(Exception):
    """The host cannot run the season (no compiler, a broken sandbox); one paragraph."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def new_sandbox(kind: str) -> Sandbox:
    """A sandbox by its tournament.yaml name: ``local`` or ``docker``."""
    if kind == "docker":
        from runner.sandbox.docker import DockerSandbox

        return DockerSandbox(say=_stderr)
    return LocalSandbox()


def make_sandbox(config: Config) -> Sandbox:
    return new_sandbox(config.sandbox)


def bot_limits(config: Config) -> BotLimits:
    limits = config.limits
    return BotLimits(
        move_cpu_s=limits.move_cpu_ms / 1000.0,
        game_cpu_s=limits.game_cpu_s,
        move_wall_s=limits.move_wall_s,
        memory_bytes=limits.memory_mib << 20,
        first_move_wall_s=limits.first_move_wall_s,
    )


# -- playing games, in this process or on worker processes ---------------------------------------


@dataclass(frozen=True)
class Task:
    index: int
    players: tuple[Player, ...]
    seed: int
    warm: tuple[Path, ...] = ()  # every jail of the batch: a sandbox may start them all at once
    setup: dict[str, Any] | None = None  # the game's per-game settings (a map), if any


Done = tuple[int, dict[str, Any] | None, str | None]  # task index, GameResult.to_dict(), error
_WORKER: dict[str, Any] = {}


def _play(task: Task, state: dict[str, Any]) -> Done:
    """Play one task with the sandbox in ``state``; a failed sandbox is replaced, not fatal."""
    if state.get("sandbox") is None:
        state["sandbox"] = new_sandbox(state["kind"])
    try:
        prepare = getattr(state["sandbox"], "prepare", None)
        if prepare is not None and task.warm:
            prepare(task.warm, state["limits"])
        result = play_game(
            state["game"],
            task.players,
            state["sandbox"],
            state["limits"],
            task.seed,
            setup=task.setup or EMPTY,
        )
    except SandboxError as exc:
        _close_sandbox(state)
        return task.index, None, str(exc)
    played = result.to_dict()
    played["measured"]["when"] = results.utc_now()
    return task.index, played, None


def _close_sandbox(state: dict[str, Any]) -> None:
    sandbox, state["sandbox"] = state.get("sandbox"), None
    if sandbox is not None:
        try:
            sandbox.close()
        except (OSError, SandboxError):
            pass


def _worker_exit(signum: int, frame: object) -> None:
    """SIGTERM from the parent (Ctrl-C there): close the sandbox (its cgroups too), then exit."""
    _close_sandbox(_WORKER)
    os._exit(1)


def _worker_init(game_id: str, limits: BotLimits, kind: str, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, _worker_exit)
    # Whatever ends the parent (kill -9 included), this worker closes its sandbox and exits;
    # its zygote and bots follow it by their own parent-death signals.
    walls.set_parent_death_signal(parent, signal.SIGTERM)
    walls.make_undumpable()
    _WORKER.update(game=find_game(game_id), limits=limits, kind=kind, sandbox=None)
    util.Finalize(None, _close_sandbox, args=(_WORKER,), exitpriority=10)


def _worker_play(task: Task) -> Done:
    return _play(task, _WORKER)


def _can_spawn() -> bool:
    """Worker processes re-import the main module: impossible from stdin or a bare REPL."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


class GamePool:
    """Plays tasks on ``workers`` processes (or in this process when workers is 1).

    Results come back here in completion order; they depend only on the tasks, never on the
    number of workers. A worker that dies fails its game (and the pool's other pending games)
    instead of hanging the season. Leaving the ``with`` block by an exception stops the workers.
    """

    def __init__(
        self,
        game_id: str,
        limits: BotLimits,
        workers: int,
        sandbox: Sandbox | None = None,
        kind: str = "local",
    ) -> None:
        self.game_id, self.limits, self.workers = game_id, limits, max(1, workers)
        self.kind = kind
        self._local: dict[str, Any] = {
            "game": find_game(game_id),
            "limits": limits,
            "kind": kind,
            "sandbox": sandbox,
        }
        self._given = sandbox  # the caller's: closed by the caller
        self._executor: ProcessPoolExecutor | None = None

    def parallel(self, count: int) -> int:
        """How many games at once for ``count`` tasks (1: played in this process)."""
        return 1 if count <= 1 or not _can_spawn() else min(self.workers, count)

    def play(self, tasks: Sequence[Task]) -> Iterator[Done]:
        jails = tuple(sorted({p.jail for task in tasks for p in task.players}))
        tasks = [replace(task, warm=jails) for task in tasks]
        if self.parallel(len(tasks)) == 1:
            for task in tasks:
                yield _play(task, self._local)
            return
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
                initargs=(self.game_id, self.limits, self.kind, os.getpid()),
            )
        futures = {self._executor.submit(_worker_play, task): task for task in tasks}
        broken = False
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except BrokenProcessPool:
                    broken = True
                    yield futures[future].index, None, "a worker process died"
        finally:
            for future in futures:
                future.cancel()
        if broken:
            self.close()

    def close(self, terminate: bool = False) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            # Python 3.11 has no public way to stop busy workers: SIGTERM them (_worker_exit).
            processes = list(getattr(executor, "_processes", {}).values()) if terminate else []
            executor.shutdown(wait=not terminate, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(timeout=10)
        if self._local["sandbox"] is not self._given:  # ours, or a replacement for a failed one
            _close_sandbox(self._local)

    def __enter__(self) -> GamePool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(terminate=kind is not None)


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Treat SIGTERM (a cancelled CI job) like Ctrl-C, so the workers are stopped cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- build and check -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """Whether an entry plays this season, and if not, why (the stage and the message)."""

    entry: str
    content_hash: str
    ok: bool
    stage: str  # "ok", a build stage (entry, compile, check, link, load) or "smoke"
    message: str
    display_name: str
    jail: str | None
    program: tuple[str, ...] | None = None  # a stdio bot's command

    @property
    def summary(self) -> str:
        """The message in one line: its first line, plus the first error line below it."""
        lines = [line.strip() for line in self.message.splitlines() if line.strip()]
        if not lines:
            return self.stage
        text = lines[0]
        if text.endswith(":") and len(lines) > 1:
            text += " " + next((x for x in lines[1:] if "error" in x), lines[1]).lstrip("- ")
        return text if len(text) <= 200 else text[:199] + "…"


@dataclass(frozen=True)
class Lineup:
    verdicts: list[Verdict]

    @property
    def players(self) -> dict[str, Player]:
        return {
            v.entry: Player(v.entry, v.content_hash, Path(v.jail), v.program)
            for v in self.verdicts
            if v.ok and v.jail is not None
        }

    def entrants(self) -> list[Entrant]:
        return [
            Entrant(
                v.entry,
                v.display_name,
                v.content_hash,
                None if v.ok else v.summary,
                "" if v.ok else v.message,
            )
            for v in self.verdicts
        ]


def build_all(config: Config, sandbox: Sandbox) -> list[Build]:
    if not config.entries.is_dir():
        raise ConfigError(
            str(config.path or "tournament.yaml"),
            "entries",
            f"the entries folder {config.entries} does not exist.",
            "create it with one sub-folder per bot, or point `entries:` at it.",
        )
    limits = bot_limits(config)
    game = find_game(config.game)
    return [
        build_entry(entry, config.output.build, sandbox, limits, config.limits.build_wall_s, game)
        for entry in discover(config.entries)
    ]


def _builtin(config: Config, sandbox: Sandbox) -> Player:
    """The game's first built-in bot (its package's builtin/ folder), built: the check stage's
    opponent."""
    game = find_game(config.game)
    bot = game.builtins[0]
    path = bot.folder
    name = f"builtin-{bot.name}"
    manifest = Manifest(name, "koth", "the check stage's opponent", bot.language)
    entry = Entry(name, path, manifest, content_hash(path))
    build = build_entry(
        entry,
        config.output.build / "_builtin",
        sandbox,
        bot_limits(config),
        config.limits.build_wall_s,
        game,
    )
    if not build.ok:
        raise SeasonError(
            f"the built-in bot ({path}) does not build, so no entry can be checked: "
            f"{build.message} Fix: make sure the compilers work on this machine "
            "(`gcc --version`, `/usr/bin/python3 --version`)."
        )
    return Player.of(build)


def _check_key(config: Config, build: Build, builtin: Player) -> str:
    identity = [
        CHECK_VERSION,
        config.game,
        build.content_hash,
        builtin.content_hash,
        asdict(config.limits),
    ]
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def _saved_check(path: Path, key: str) -> tuple[bool, str] | None:
    try:
        saved = json.loads(path.read_text())
        if saved["key"] == key:
            return bool(saved["ok"]), str(saved["message"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def check_all(
    config: Config, builds: Sequence[Build], sandbox: Sandbox, pool: GamePool
) -> list[Verdict]:
    """Each built entry's smoke games against the built-in bot (cached); a verdict per entry.

    Two seats: a game in each seat. More seats (the fewest the game allows): one game, the entry
    in the first seat and the built-in bot in every other; a fault of the entry's seat there
    excludes it even where the game went on without it."""
    game = find_game(config.game)
    count = min(game.info.seat_counts or (game.info.min_players,))
    seats = tuple(game.seat_name(s) for s in range(count))
    built = [b for b in builds if b.ok]
    builtin = _builtin(config, sandbox) if built else None
    keys = {b.entry: _check_key(config, b, builtin) for b in built if builtin}
    files = {b.entry: config.output.build / b.entry / "check.json" for b in built}
    verdict = {b.entry: _saved_check(files[b.entry], keys[b.entry]) for b in built}
    tasks: list[Task] = []
    owners: list[tuple[str, int]] = []  # by task index: the entry checked and its seat
    for build in built:
        if verdict[build.entry] is None and builtin is not None:
            me = Player.of(build)
            for seat in range(len(seats) if count == 2 else 1):
                seating = tuple(me if s == seat else builtin for s in range(count))
                seed = game_seed(0, config.game, 0, tuple(p.entry for p in seating))
                tasks.append(Task(len(tasks), seating, seed))
                owners.append((build.entry, seat))
    faults: dict[str, list[str]] = {}
    unchecked: dict[str, str] = {}  # the host failed: no verdict this run, none saved
    for index, played, error in pool.play(tasks):
        entry, seat = owners[index]
        if played is None:
            unchecked[entry] = (
                f"could not be checked: the sandbox failed ({error}); the next run checks it again"
            )
            continue
        outcome = played["outcome"]
        seat_faults = [f["detail"] for f in outcome.get("faults", []) if f["seat"] == seat]
        if outcome["faulty"] == seat:
            seat_faults.append(outcome["detail"])
        for detail in seat_faults[:1]:
            faults.setdefault(entry, []).append(
                f"fails a smoke game against the built-in bot (playing {seats[seat]}): {detail}"
            )
    for entry in {entry for entry, _ in owners}:
        if entry in unchecked:
            verdict[entry] = (False, unchecked[entry])
            continue
        problems = sorted(faults.get(entry, []))
        message = "\n".join(problems) or "passed the smoke games"
        verdict[entry] = (not problems, message)
        saved = json.dumps({"key": keys[entry], "ok": not problems, "message": message})
        write_file_atomic(files[entry], saved + "\n")
    return [_verdict(b, verdict.get(b.entry)) for b in builds]


def _verdict(build: Build, checked: tuple[bool, str] | None) -> Verdict:
    """The entry's verdict: its build's, unless it built and then failed the smoke games."""
    stage, message, ok = build.stage, build.message, build.ok
    if ok and checked is not None and not checked[0]:
        stage, message, ok = "smoke", checked[1], False
    return Verdict(
        build.entry,
        build.content_hash,
        ok,
        stage,
        message,
        build.display_name,
        build.jail if ok else None,
        tuple(build.program) if build.program else None,
    )


def lineup(config: Config, sandbox: Sandbox, pool: GamePool, say: Say = _stderr) -> Lineup:
    """Build and check every entry (both cached): who plays this season, and why not."""
    builds = build_all(config, sandbox)
    verdicts = check_all(config, builds, sandbox, pool)
    failed = [v.entry for v in verdicts if not v.ok]
    say(
        f"entries: {len(verdicts)} found, {len(verdicts) - len(failed)} play"
        + (f", excluded: {', '.join(failed)}" if failed else "")
    )
    return Lineup(verdicts)


# -- schedule, play, standings -------------------------------------------------------------------


def season_format(config: Config) -> Format:
    """The season's format (runner/formats), built from its settings."""
    try:
        return format_for(config)
    except (FormatError, ValueError) as exc:
        where = config.path or "tournament.yaml"
        raise SeasonError(f"{where}: format {config.format}: {exc}") from None


def filler_hash(config: Config) -> str:
    """The content hash of the built-in bot that fills a free-for-all table's empty seats (the
    game's first built-in bot, as in the check stage)."""
    return content_hash(find_game(config.game).builtins[0].folder)


def key_function(config: Config, line: Lineup) -> KeyOf:
    """A fixture's result key: its game, seats (entry and content hash), seed and setup."""
    hashes = {name: player.content_hash for name, player in line.players.items()}
    setups = {s.name: {"name": s.name, "hash": s.hash} for s in config.free_for_all.setups}
    return keys_by(hashes, setups, lambda: filler_hash(config))


def recorded_results(
    config: Config, line: Lineup, records: Iterable[results.Record]
) -> RecordedResults:
    return RecordedResults(key_function(config, line), records)


def season_plan(config: Config, line: Lineup, say: Say = _stderr) -> Plan:
    """Every game the recorded results determine so far, with its key, and what the next wait
    for (runner/playloop.py)."""
    records, problems = results.read_all(results.results_files(config.output.results))
    for problem in problems:
        say(f"warning: {problem}")
    return plan_from(config, line, records)


def plan_from(config: Config, line: Lineup, records: Iterable[results.Record]) -> Plan:
    """The season's plan given these records (runner/playloop.py)."""
    fmt = season_format(config)
    try:
        return plan(fmt, sorted(line.players), recorded_results(config, line, records))
    except FormatError as exc:
        raise SeasonError(f"{config.path or 'tournament.yaml'}: {exc}") from None


def schedule(config: Config, line: Lineup, say: Say = _stderr) -> list[Scheduled]:
    """The season's games known so far (all of them, for a round-robin), in canonical order,
    each with its result key."""
    return season_plan(config, line, say).games


def shard_file(config: Config, shard: Shard | None) -> Path:
    name = f"{shard.slug}.jsonl" if shard else results.MAIN_FILE
    return config.output.results / name


def _read_recorded(
    config: Config, extra: Path | None = None, say: Say = _stderr
) -> list[results.Record]:
    """Every record in the results folder (and ``extra``), saying what was skipped."""
    paths = results.results_files(config.output.results)
    if extra is not None and extra.resolve() not in {p.resolve() for p in paths}:
        paths.append(extra)
    records, problems = results.read_all(paths)
    for problem in problems:
        say(f"warning: {problem}")
    return records


def recorded_keys(config: Config, extra: Path | None = None, say: Say = _stderr) -> set[str]:
    """Keys of every record in the results folder (and ``extra``), saying what was skipped."""
    return {r["key"] for r in _read_recorded(config, extra, say)}


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
    builtin = _builtin(config, sandbox)
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
                writer.append(record)
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
    say: Say = _stderr,
    sandbox: Sandbox | None = None,
) -> PlayReport:
    """Play the (shard's) games not yet recorded in the results folder, appending one record per
    game to ``out``: every game the format hands out until it is done, or for a shard, its share
    of what is playable now (runner/playloop.py)."""
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
    say: Say = _stderr,
    sandbox: Sandbox | None = None,
) -> PlayReport:
    """The season loop over ``records`` (what is recorded already), appending to ``out``; only
    the games ``wanted`` says yes to (a preview's) are played."""
    report = PlayReport(out=out)
    recorded = recorded_results(config, line, records)
    fmt = season_format(config)
    players = _filler_players(config, line, plan_from(config, line, []).games, sandbox)
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


def standings(config: Config, line: Lineup, say: Say = _stderr) -> tuple[list[Row], dict[str, Any]]:
    """Rank the recorded games the season's plan knows and write standings.json."""
    records, problems = results.read_all(results.results_files(config.output.results))
    for problem in problems:
        say(f"warning: {problem}")
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
    }
    doc = document(rows, {**meta, **ranked_by})
    write_standings(config.output.standings, doc)
    return rows, doc


def ranked(
    config: Config, line: Lineup, entrants: Sequence[Entrant], records: Sequence[results.Record]
) -> tuple[list[Row], dict[str, Any]]:
    """The standings' rows in rank order, and what standings.json adds for the format: a
    knockout ranks by its bracket (runner/bracket.py) and writes it; other formats by points."""
    rows = rank(entrants, records, config.points)
    fmt = season_format(config)
    if not isinstance(fmt, Knockout):
        return rows, {}
    recorded = recorded_results(config, line, records)
    doc = bracket_document(fmt, sorted(line.players), recorded, recorded.key_of)
    return knockout_order(rows, doc), {"bracket": doc, "tie_break": KNOCKOUT_ORDER}


def run_season(
    config: Config,
    *,
    jobs: int | None = None,
    max_games: int | None = None,
    show_progress: bool = False,
    say: Say = _stderr,
) -> tuple[PlayReport, list[Row], dict[str, Any]]:
    """Every stage in a row: build, check, schedule, play, standings (``koth season``)."""
    sandbox = make_sandbox(config)
    try:
        with open_pool(config, sandbox, jobs) as pool:
            line = lineup(config, sandbox, pool, say)
            report = play(
                config,
                line,
                pool,
                max_games=max_games,
                show_progress=show_progress,
                say=say,
                sandbox=sandbox,
            )
    finally:
        sandbox.close()
    rows, doc = standings(config, line, say)
    return report, rows, doc


def workers(config: Config, jobs: int | None) -> int:
    return max(1, jobs if jobs is not None else config.jobs)


def open_pool(config: Config, sandbox: Sandbox, jobs: int | None = None) -> GamePool:
    return GamePool(config.game, bot_limits(config), workers(config, jobs), sandbox, config.sandbox)


__all__ = [
    "GamePool",
    "Lineup",
    "PlayReport",
    "Scheduled",
    "Task",
    "Verdict",
    "build_all",
    "check_all",
    "key_function",
    "lineup",
    "make_sandbox",
    "open_pool",
    "play",
    "play_into",
    "plan_from",
    "run_season",
    "schedule",
    "season_format",
    "season_plan",
    "shard_file",
    "standings",
]
