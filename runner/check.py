"""Who plays this season: every entry built (runner/build.py) and checked.

The check stage plays each built entry's smoke games against its game's first built-in bot (two
seats: once in each seat; more seats: one game, the entry in the first seat and the built-in bot
in every other); an entry at fault there is excluded. Verdicts are cached in
build/<entry>/check.json by the entry's hash, the built-in bot's hash, the game, the limits and the
host's version, so a re-run checks only what changed; a check the sandbox could not run is retried
by the next run. A cached verdict may have travelled (a CI cache of build/): one that is not
exactly what this module writes is ignored with a warning and the entry is checked again. An
entry that fails its build or its check never stops the season: it is listed in the standings
with its reason and 0 games.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from runner import __version__
from runner.build import (
    Build,
    Loader,
    Sandbox,
    build_entry,
    is_built,
    start_loading,
    write_file_atomic,
)
from runner.config import Config, ConfigError
from runner.documents import load_json
from runner.entries import Entry, Manifest, content_hash, discover
from runner.formats import Seeds
from runner.games import find_game
from runner.progress import Say, to_stderr
from runner.referee import Player
from runner.safefiles import UnsafeFileError, read_capped, shown_text
from runner.sandbox.zygote import SandboxError
from runner.standings import Entrant
from runner.workers import GamePool, Task, bot_limits, job_count, start_helpers


class SeasonError(Exception):
    """The host cannot run the season (no compiler, a broken sandbox); one paragraph."""


CHECK_VERSION = "smoke-v1"
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


def build_all(
    config: Config, sandbox: Sandbox, jobs: int | None = None, pool: GamePool | None = None
) -> list[Build]:
    """Build every entry (runner/build.py), ``jobs`` at a time (default: the config's) and the
    sandbox's ``extra_builds`` more: the compilers run side by side; loading each built bot
    once is one at a time in ``sandbox``, or on ``pool``'s workers where they were started
    ahead (``start_ahead``)."""
    if not config.entries.is_dir():
        raise ConfigError(
            str(config.path or "tournament.yaml"),
            "entries",
            f"the entries folder {config.entries} does not exist.",
            "create it with one sub-folder per bot, or point `entries:` at it.",
        )
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
        load,
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


def check_all(
    config: Config,
    builds: Sequence[Build],
    sandbox: Sandbox,
    pool: GamePool,
    say: Say = to_stderr,
) -> list[Verdict]:
    """Each built entry's smoke games against the built-in bot (cached); a verdict per entry.

    Two seats: a game in each seat. More seats (the fewest the game allows): one game, the entry
    in the first seat and the built-in bot in every other; a fault of the entry's seat there
    excludes it even where the game went on without it."""
    game = find_game(config.game)
    count = min(game.info.seat_counts or (game.info.min_players,))
    seats = tuple(game.seat_name(s) for s in range(count))
    built = [b for b in builds if b.ok]
    builtin = builtin_player(config, sandbox) if built else None
    keys = {b.entry: _check_key(config, b, builtin) for b in built if builtin}
    files = {b.entry: config.output.build / b.entry / "check.json" for b in built}
    verdict = {b.entry: _saved_check(files[b.entry], keys[b.entry], say) for b in built}
    setup = dict(game.sample_setup(count)) or None
    tasks: list[Task] = []
    owners: list[tuple[str, int]] = []  # by task index: the entry checked and its seat
    for build in built:
        if verdict[build.entry] is None and builtin is not None:
            me = Player.of(build)
            for seat in range(len(seats) if count == 2 else 1):
                seating = tuple(me if s == seat else builtin for s in range(count))
                seed = SMOKE_SEEDS.game_seed(config.game, 0, [p.entry for p in seating])
                tasks.append(Task(len(tasks), seating, seed, setup=setup))
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


def lineup(config: Config, sandbox: Sandbox, pool: GamePool, say: Say = to_stderr) -> Lineup:
    """Build and check every entry (both cached): who plays this season, and why not."""
    builds = build_all(config, sandbox, pool.workers, pool)
    verdicts = check_all(config, builds, sandbox, pool, say)
    failed = [v.entry for v in verdicts if not v.ok]
    say(
        f"entries: {len(verdicts)} found, {len(verdicts) - len(failed)} play"
        + (f", excluded: {', '.join(failed)}" if failed else "")
    )
    return Lineup(verdicts)
