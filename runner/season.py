"""A season, stage by stage: build → check → schedule → play → standings.

Every stage reads and writes plain files and caches by content hash, so each can run alone
(``koth build``, ``koth check``, ...) or all in a row (``koth season``), and a re-run does only
what changed:

- build: every entry under ``entries/`` is compiled (runner/build.py, cached in build/<entry>/).
- check: every built entry plays smoke games against the game's built-in bot (its package's
  builtin/ folder),
  once in each seat; an entry at fault in either is excluded. Verdicts are cached in
  build/<entry>/check.json by the entry's hash, the built-in bot's hash, the game and the limits.
- schedule: the format's pairings of the entries that passed, with derived seeds and result keys
  (runner/schedule.py, runner/results.py).
- play: the games whose key is not yet recorded in the results folder, on ``jobs`` worker
  processes; each worker keeps one sandbox for all its games and only this process writes the
  results file. Ctrl-C (or SIGTERM) stops the workers; what was recorded stays.
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
from collections.abc import Callable, Iterator, Sequence
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
from runner.build import Build, Sandbox, build_entry, write_file_atomic
from runner.config import Config, ConfigError
from runner.entries import Entry, Manifest, content_hash, discover
from runner.games import find_game
from runner.progress import Progress
from runner.referee import Player, play_game
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote import BotLimits, SandboxError
from runner.schedule import Fixture, Shard, game_seed, make_schedule, select_shard
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
            state["game"], task.players, state["sandbox"], state["limits"], task.seed
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


@dataclass(frozen=True)
class Scheduled:
    index: int  # position in the canonical order of the whole season
    fixture: Fixture
    key: str


def schedule(config: Config, line: Lineup) -> list[Scheduled]:
    """The whole season in canonical order, each game with its result key."""
    players = line.players
    fixtures = make_schedule(
        config.game, config.format, sorted(players), config.rounds, config.seed
    )
    return [
        Scheduled(
            i,
            f,
            results.record_key(
                f.game, [(name, players[name].content_hash) for name in f.seats], f.seed
            ),
        )
        for i, f in enumerate(fixtures)
    ]


def shard_file(config: Config, shard: Shard | None) -> Path:
    name = f"{shard.slug}.jsonl" if shard else results.MAIN_FILE
    return config.output.results / name


def recorded_keys(config: Config, extra: Path | None = None, say: Say = _stderr) -> set[str]:
    """Keys of every record in the results folder (and ``extra``), saying what was skipped."""
    paths = results.results_files(config.output.results)
    if extra is not None and extra.resolve() not in {p.resolve() for p in paths}:
        paths.append(extra)
    records, problems = results.read_all(paths)
    for problem in problems:
        say(f"warning: {problem}")
    return {r["key"] for r in records}


@dataclass
class PlayReport:
    out: Path
    scheduled: int  # games of this shard (or season)
    recorded: int  # already recorded before this run
    played: int = 0
    failed: list[str] = field(default_factory=list)  # host failures; replayed by the next run
    left: int = 0  # not played this run (max_games)


def play_games(
    config: Config,
    line: Lineup,
    pool: GamePool,
    todo: Sequence[Scheduled],
    out: Path,
    on_game: Callable[[], None] = lambda: None,
    say: Say = _stderr,
) -> tuple[int, list[str]]:
    """Play these scheduled games, appending one record per game to ``out``; returns how many
    were played and what could not be (the sandbox failed)."""
    players = line.players
    tasks = [
        Task(i, tuple(players[n] for n in s.fixture.seats), s.fixture.seed)
        for i, s in enumerate(todo)
    ]
    played_count, failed = 0, []
    with results.ResultsWriter(out) as writer:
        if writer.repaired:
            say(f"warning: {out}: cut off an incomplete last line left by an interrupted run")
        for index, played, error in pool.play(tasks):
            game = todo[index]
            if played is None:
                failed.append(f"{' vs '.join(game.fixture.seats)}: the sandbox failed: {error}")
            else:
                record = results.make_record(
                    played,
                    key=game.key,
                    season_seed=config.seed,
                    round_=game.fixture.round,
                    when=played["measured"]["when"],
                )
                writer.append(record)
                played_count += 1
            on_game()
    return played_count, failed


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
) -> PlayReport:
    """Play the (shard's) games not yet recorded, appending one record per game to ``out``."""
    out = out or shard_file(config, shard)
    games = select_shard(schedule(config, line), shard)
    known = recorded_keys(config, out, say)
    todo = [s for s in games if s.key not in known]
    report = PlayReport(out, len(games), len(games) - len(todo))
    if max_games is not None and len(todo) > max_games:
        report.left, todo = len(todo) - max_games, todo[:max_games]
    part = f" (shard {shard})" if shard else ""
    say(
        f"schedule{part}: {len(games)} games, {report.recorded} already recorded, "
        f"{len(todo)} to play with {pool.parallel(len(todo))} job(s)"
    )
    progress = Progress(len(todo), "games", enabled=show_progress)
    try:
        with sigterm_interrupts(), results.exclusive(config.output.results):
            report.played, report.failed = play_games(
                config, line, pool, todo, out, progress.advance, say
            )
    except results.ResultsBusy as exc:
        progress.close()
        raise SeasonError(str(exc)) from None
    except KeyboardInterrupt:
        progress.close()
        done = len(recorded_keys(config, out, say=lambda _: None) & {s.key for s in todo})
        say(
            f"interrupted: {done} game(s) recorded in {out}; run again to play the other "
            f"{len(todo) - done + report.left}"
        )
        raise
    progress.close()
    return report


def standings(config: Config, line: Lineup, say: Say = _stderr) -> tuple[list[Row], dict[str, Any]]:
    """Rank the current schedule's recorded games and write standings.json."""
    games = schedule(config, line)
    current = {s.key for s in games}
    records, problems = results.read_all(results.results_files(config.output.results))
    for problem in problems:
        say(f"warning: {problem}")
    counted = results.canonical(r for r in records if r["key"] in current)
    rows = rank(line.entrants(), counted, config.points)
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
    doc = document(rows, meta)
    write_standings(config.output.standings, doc)
    return rows, doc


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
                config, line, pool, max_games=max_games, show_progress=show_progress, say=say
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
    "lineup",
    "make_sandbox",
    "open_pool",
    "play",
    "run_season",
    "schedule",
    "shard_file",
    "standings",
]
