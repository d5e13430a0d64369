"""Who plays this season: every entry built (runner/season/build.py) and checked.

The check stage plays each built entry's smoke games against its game's first built-in bot (two
seats: once in each seat; more seats: one game, the entry in the first seat and the built-in bot
in every other) and excludes only an entry that cannot play by the rules' own consequence of a
fault: in a game of two seats a fault loses the game, and a seat a fault puts out of a larger
game is out of it, so any fault there excludes; where the rules give a faulting seat a stand-in
move (the Easter Egg Hunt: a fault costs the turn), only an entry that played no turn at all is
out, and one that lost some turns plays, told which.

A fault on wall-clock time alone (a reply late with the bot's CPU within its limits) may be the
machine's load, not the entry: its smoke games are played again, up to WALL_CLOCK_TRIES times in
all; still late, the entry is excluded for this run only. Verdicts are cached in
build/<entry>/check.json by the entry's hash, the built-in bot's hash, the game, the limits and the
host's version, so a re-run checks only what changed, and says which verdicts it took from there
("(cached)"; ``--recheck`` plays every smoke game again); a check the sandbox could not run, or
one failed on wall-clock time alone, is never cached. A cached verdict may have travelled (a CI
cache of build/): one that is not exactly what this module writes is ignored with a warning and
the entry is checked again. An entry that fails its build or its check never stops the season:
it is listed in the standings with its reason and 0 games.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from runner import __version__
from runner.common.documents import load_json
from runner.common.progress import Say, to_stderr
from runner.common.safefiles import UnsafeFileError, read_capped, shown_text
from runner.games import find_game
from runner.games.base import Termination
from runner.play.referee import Player
from runner.sandbox.zygote_client import SandboxError
from runner.season.build import (
    Build,
    Loader,
    Sandbox,
    build_entry,
    is_built,
    start_loading,
    write_file_atomic,
)
from runner.season.config import Config, ConfigError
from runner.season.entries import Entrant, Entry, Manifest, content_hash, discover
from runner.season.formats import Seeds
from runner.season.formats.base import BUILTIN_PREFIX
from runner.season.workers import Done, GamePool, Task, bot_limits, job_count, start_helpers


class SeasonError(Exception):
    """The host cannot run the season (no compiler, a broken sandbox); one paragraph."""


CHECK_VERSION = "smoke-v2"  # v2: exclusion by the rules' consequence of a fault
WALL_CLOCK_TRIES = 3  # smoke games of an entry late on wall-clock time alone, in all
# The smoke games' seeds are public: they decide only whether an entry can play, no standing.
SMOKE_SEEDS = Seeds()


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
    cached: bool = False  # the smoke games' verdict came from build/<entry>/check.json
    note: str = ""  # what the smoke games cost an entry that plays (turns lost to faults)
    language: str = "c"  # its entry's: its seat's limits

    @property
    def summary(self) -> str:
        """The message in one line: its first line, plus the first error line below it."""
        lines = [line.strip() for line in shown_text(self.message).split("\n") if line.strip()]
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
            v.entry: Player(v.entry, v.content_hash, Path(v.jail), v.program, v.language)
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


def require_entries(config: Config) -> None:
    """ConfigError unless the season's entries folder exists (a command run outside a season)."""
    if not config.entries.is_dir():
        raise ConfigError(
            str(config.path or "tournament.yaml"),
            "entries",
            f"the entries folder {config.entries} does not exist.",
            "create it with one sub-folder per bot, or point `entries:` at it.",
        )


def build_all(
    config: Config, sandbox: Sandbox, jobs: int | None = None, pool: GamePool | None = None
) -> list[Build]:
    """Build every entry (runner/season/build.py), ``jobs`` at a time (default: the config's) and
    the sandbox's ``extra_builds`` more: the compilers run side by side; loading each built bot
    once is one at a time in ``sandbox``, or on ``pool``'s workers where they were started ahead
    (``start_ahead``)."""
    require_entries(config)
    limits = bot_limits(config)
    game = find_game(config.game)
    entries = discover(config.entries)
    building = not all(is_built(entry, config.output.build, sandbox.name) for entry in entries)
    if building:
        start_helpers(config, jobs)  # a new build is checked next, on the worker processes
        if pool is not None:
            start_ahead(config, sandbox, pool)  # the job slots start beside the builds
    load = pool.loader() if pool is not None else None
    serve = getattr(sandbox, "serve", None)  # one container loads every entry (Docker)
    if serve is not None and load is None:  # (else the workers' containers do)
        config.output.build.mkdir(parents=True, exist_ok=True)
        serve(config.output.build, limits)

    def build(entry: Entry) -> Build:
        return build_entry(
            entry, config.output.build, sandbox, limits, config.limits.build_wall_s, game, load
        )

    threads = min(job_count(config, jobs) + getattr(sandbox, "extra_builds", 0), len(entries))
    if threads <= 1:
        return [build(entry) for entry in entries]
    with ThreadPoolExecutor(threads, thread_name_prefix="koth-build") as builders:
        if building:  # the check stage's opponent, built beside the entries (first: not last)
            builders.submit(_build_builtin, config, sandbox, load)
            if load is None:  # the bots are loaded here: what loads them starts meanwhile
                builders.submit(start_loading, sandbox)
        return list(builders.map(build, entries))


def _build_builtin(config: Config, sandbox: Sandbox, load: Loader | None) -> None:
    """Build the built-in bot now; ``builtin_player`` then finds it built (or, if it failed,
    builds it again and says why)."""
    try:
        builtin_player(config, sandbox, load)
    except (SeasonError, SandboxError, OSError):
        pass


def builtin_player(config: Config, sandbox: Sandbox, load: Loader | None = None) -> Player:
    """The game's first built-in bot (its package's builtin/ folder), built: the check stage's
    opponent (``load``: as ``build_entry``'s)."""
    game = find_game(config.game)
    bot = game.builtins[0]
    path = bot.folder
    name = f"{BUILTIN_PREFIX}{bot.name}"
    manifest = Manifest(name, "koth", "the check stage's opponent", bot.language)
    entry = Entry(name, path, manifest, content_hash(path))
    build = build_entry(
        entry,
        config.output.build / "_builtin",
        sandbox,
        bot_limits(config),
        config.limits.build_wall_s,
        game,
        load,
    )
    if not build.ok:
        raise SeasonError(
            f"the built-in bot ({path}) does not build, so no entry can be checked: "
            f"{build.message} Fix: make sure the compilers work on this machine "
            "(`gcc --version`, `/usr/bin/python3 --version`)."
        )
    return build.player()


def _check_key(config: Config, build: Build, builtin: Player) -> str:
    identity = [
        CHECK_VERSION,
        __version__,
        config.game,
        build.content_hash,
        builtin.content_hash,
        asdict(config.limits),
    ]
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


CHECK_FILE_CAP = 1 << 20  # a verdict is a key and a message: far less than this


def _saved_check(path: Path, key: str, say: Say) -> tuple[bool, str] | None:
    """The cached verdict in ``path`` if it is for ``key``; None when there is none, it is for
    another key, or it is malformed (then with a warning: the entry is checked again)."""
    if not os.path.lexists(path):
        return None
    try:
        saved = load_json(read_capped(path, CHECK_FILE_CAP))
        problem = _check_record_problem(saved)
    except (OSError, UnsafeFileError, ValueError) as exc:
        problem = str(exc)
    if problem is not None:
        say(
            f"warning: {path}: ignored a malformed cached check verdict ({problem}); checking again"
        )
        return None
    if saved["key"] != key:
        return None
    return saved["ok"], saved["message"]


def _check_record_problem(saved: object) -> str | None:
    """Why ``saved`` is not a verdict this module could have written, or None."""
    if not isinstance(saved, dict) or set(saved) != {"key", "ok", "message"}:
        return "not an object of exactly `key`, `ok` and `message`"
    if not isinstance(saved["key"], str):
        return "`key` is not text"
    if not isinstance(saved["ok"], bool):
        return "`ok` is not true or false"
    if not isinstance(saved["message"], str):
        return "`message` is not text"
    return None


@dataclass(frozen=True)
class _Smoke:
    """The check stage's smoke games for a game: how many seats, their names, the setup, and
    what a fault costs by the game's rules."""

    game: str
    count: int  # seats: two, or the fewest the game allows
    seats: tuple[str, ...]  # their names
    setup: dict[str, Any] | None
    stands_in: bool  # the rules give a faulting seat a stand-in move: a fault costs a turn

    @classmethod
    def of(cls, config: Config) -> _Smoke:
        game = find_game(config.game)
        count = min(game.info.seat_counts or (game.info.min_players,))
        setup = dict(game.sample_setup(count)) or None
        start = game.rules.initial_state(random.Random(0), count, setup or {})
        stands_in = count > 2 and game.rules.stand_in(start, 0) is not None
        names = tuple(game.seat_name(s) for s in range(count))
        return cls(game.id, count, names, setup, stands_in)

    def seatings(self, me: Player, builtin: Player) -> list[tuple[int, tuple[Player, ...]]]:
        """(the entry's seat, the players by seat) of each smoke game: two seats, one game in
        each; more, one game, the entry in the first seat and the built-in bot in the others."""
        games = range(self.count) if self.count == 2 else range(1)
        return [
            (seat, tuple(me if s == seat else builtin for s in range(self.count))) for seat in games
        ]


@dataclass(frozen=True)
class _Judged:
    """An entry's smoke games judged: whether it plays, why (or what it lost), whether the
    verdict may be cached, and whether what excluded it was wall-clock time alone."""

    ok: bool
    message: str
    keep: bool = True  # cached: False for a host failure or a failure on wall-clock time alone
    wall_clock: bool = False


def _wall_clock_only(termination: str, detail: str) -> bool:
    """A timeout on wall-clock time with the bot's CPU within its limits (runner/play/watchdog.py
    names every CPU limit it enforces with "CPU"): a loaded machine can cause it, not the bot."""
    return termination == Termination.TIMEOUT.value and "CPU" not in detail


def _seat_problem(smoke: _Smoke, played: Mapping[str, Any], seat: int) -> tuple[str, bool] | None:
    """What keeps the entry in ``seat`` of a smoke game from playing, by the rules' own
    consequence of a fault, and whether it was on wall-clock time alone; None when nothing does.
    Two seats: a fault loses the game. More: where a fault costs only a turn (the rules' stand-in
    move), only an entry that played no turn at all; where it puts the seat out, any fault."""
    outcome = played["outcome"]
    if smoke.count == 2:
        if outcome["faulty"] != seat:
            return None
        return outcome["detail"], _wall_clock_only(outcome["termination"], outcome["detail"])
    faults = [f for f in outcome.get("faults", []) if f["seat"] == seat]
    lost = {f.get("at", 0) for f in faults}
    if not faults or (smoke.stands_in and set(range(len(played["moves"]))) - lost):
        return None
    detail = faults[0]["detail"]
    if smoke.stands_in:
        detail = f"it played no turn: every turn was a fault ({detail})"
    return detail, all(_wall_clock_only(f["termination"], f["detail"]) for f in faults)


def _lost_turns(played: Mapping[str, Any], seat: int) -> str:
    """A note on the turns a playing entry lost to faults in a smoke game ("" for none)."""
    faults = [f for f in played["outcome"].get("faults", []) if f["seat"] == seat]
    if not faults:
        return ""
    return (
        f"\nlost {len(faults)} of {len(played['moves'])} turns to faults in its smoke game, "
        f"which the rules let it play on after; the first: {faults[0]['detail']}"
    )


def _judge(smoke: _Smoke, games: Sequence[tuple[int, Done]]) -> _Judged:
    """An entry's verdict from its smoke games: (its seat, what the pool did) for each."""
    problems: list[tuple[str, bool]] = []
    notes = []
    for seat, (_, played, error) in games:
        if played is None:
            why = f"the sandbox failed ({error}); the next run checks it again"
            return _Judged(False, f"could not be checked: {why}", keep=False)
        problem = _seat_problem(smoke, played, seat)
        if problem is None:
            notes.append(_lost_turns(played, seat))
            continue
        detail, wall = problem
        playing = smoke.seats[seat]
        text = f"fails a smoke game against the built-in bot (playing {playing}): {detail}"
        problems.append((text, wall))
    if not problems:
        return _Judged(True, "passed the smoke games" + "".join(notes))
    wall = all(w for _, w in problems)
    return _Judged(False, "\n".join(sorted(t for t, _ in problems)), keep=not wall, wall_clock=wall)


def _seat_of(game: tuple[int, Done]) -> int:
    return game[0]


def _smoke(
    smoke: _Smoke, builds: Sequence[Build], builtin: Player, pool: GamePool
) -> dict[str, _Judged]:
    """Each entry's smoke games, played on ``pool``, judged."""
    tasks: list[Task] = []
    owners: list[tuple[str, int]] = []  # by task index: the entry checked and its seat
    for build in builds:
        for seat, seating in smoke.seatings(build.player(), builtin):
            seed = SMOKE_SEEDS.game_seed(smoke.game, 0, [p.entry for p in seating])
            tasks.append(Task(len(tasks), seating, seed, setup=smoke.setup))
            owners.append((build.entry, seat))
    games: dict[str, list[tuple[int, Done]]] = {b.entry: [] for b in builds}
    for done in pool.play(tasks):
        entry, seat = owners[done[0]]
        games[entry].append((seat, done))
    return {entry: _judge(smoke, sorted(found, key=_seat_of)) for entry, found in games.items()}


def _retried(
    smoke: _Smoke, builds: Sequence[Build], builtin: Player, pool: GamePool, say: Say
) -> dict[str, _Judged]:
    """The smoke games judged, an entry excluded on wall-clock time alone checked again (up to
    WALL_CLOCK_TRIES times in all), after the games of the others: a loaded machine, not the
    entry, can make a reply late. Still late on the last try, it is excluded for this run only."""
    judged: dict[str, _Judged] = {}
    todo = list(builds)
    for attempt in range(1, WALL_CLOCK_TRIES + 1):
        judged.update(_smoke(smoke, todo, builtin, pool))
        todo = [b for b in todo if judged[b.entry].wall_clock]
        if not todo:
            break
        late = ", ".join(b.entry for b in todo)
        if attempt < WALL_CLOCK_TRIES:
            say(f"check: {late} failed on wall-clock time alone (CPU within limits); again")
    for build in todo:
        verdict = judged[build.entry]
        judged[build.entry] = replace(
            verdict,
            message=f"{verdict.message}\n(on wall-clock time alone, its CPU within its limits, "
            f"in {WALL_CLOCK_TRIES} tries: not cached; the next run checks it again)",
        )
    return judged


def check_all(
    config: Config,
    builds: Sequence[Build],
    sandbox: Sandbox,
    pool: GamePool,
    say: Say = to_stderr,
    recheck: bool = False,
) -> list[Verdict]:
    """Each built entry's smoke games against the built-in bot (cached; ``recheck``: the cache
    is not read); a verdict per entry. Two seats: a game in each seat. More (the fewest the game
    allows): one game, the entry in the first seat and the built-in bot in every other."""
    built = [b for b in builds if b.ok]
    builtin = builtin_player(config, sandbox) if built else None
    if builtin is None:
        return [_verdict(b, None) for b in builds]
    keys = {b.entry: _check_key(config, b, builtin) for b in built}
    files = {b.entry: config.output.build / b.entry / "check.json" for b in built}
    cached = {
        b.entry: None if recheck else _saved_check(files[b.entry], keys[b.entry], say)
        for b in built
    }
    todo = [b for b in built if cached[b.entry] is None]
    judged = _retried(_Smoke.of(config), todo, builtin, pool, say) if todo else {}
    for entry, verdict in judged.items():
        if verdict.keep:
            saved = {"key": keys[entry], "ok": verdict.ok, "message": verdict.message}
            write_file_atomic(files[entry], json.dumps(saved) + "\n")
    found = {e: (j.ok, j.message, False) for e, j in judged.items()}
    found.update((e, (*c, True)) for e, c in cached.items() if c is not None)
    return [_verdict(b, found.get(b.entry)) for b in builds]


def _verdict(build: Build, checked: tuple[bool, str, bool] | None) -> Verdict:
    """The entry's verdict: its build's, unless it built and then failed the smoke games
    (``checked``: passed, the message, whether it was cached)."""
    stage, message, ok = build.stage, build.message, build.ok
    if ok and checked is not None and not checked[0]:
        stage, message, ok = "smoke", checked[1], False
    note = checked[1].partition("\n")[2] if ok and checked is not None else ""
    return Verdict(
        build.entry,
        build.content_hash,
        ok,
        stage,
        message,
        build.display_name,
        build.jail if ok else None,
        tuple(build.program) if build.program else None,
        cached=checked is not None and checked[2],
        note=note,
        language=build.language,
    )


def start_ahead(config: Config, sandbox: Sandbox, pool: GamePool) -> None:
    """For a sandbox that can start what it plays in ahead (Docker's play containers, the local
    zygote), the workers start now and their sandboxes with them, while the entries are built
    (``build_all`` does this when an entry is to be built; with every build cached there is
    nothing to start them beside, and they start when a game is first played, if any is): a
    container's start is mostly the engine's (~0.3 s of its CPU), a worker's and its zygote's
    ~0.05 s, and the builds leave a core idle part of the time. The built bots are then loaded
    on the workers, and the build's process starts no sandbox of its own."""
    if getattr(sandbox, "start_ahead", None) is not None:
        config.output.build.mkdir(parents=True, exist_ok=True)
        pool.start_ahead(config.output.build)


def lineup(
    config: Config, sandbox: Sandbox, pool: GamePool, say: Say = to_stderr, recheck: bool = False
) -> Lineup:
    """Build and check every entry (both cached; ``recheck``: the smoke games played again):
    who plays this season, and why not."""
    builds = build_all(config, sandbox, pool.workers, pool)
    verdicts = check_all(config, builds, sandbox, pool, say, recheck)
    failed = [v.entry + (" (cached)" if v.cached else "") for v in verdicts if not v.ok]
    say(
        f"entries: {len(verdicts)} found, {len(verdicts) - len(failed)} play"
        + (f", excluded: {', '.join(failed)}" if failed else "")
    )
    return Lineup(verdicts)
