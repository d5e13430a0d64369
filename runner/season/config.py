"""tournament.yaml → typed, validated, frozen settings.

Every field is declared once, in ``SETTINGS``: its type, default, allowed values and a one-line
description. The same table validates the file, validates command-line overrides and generates
docs/configuration.md (``python -m runner.season.config`` rewrites it), so the docs cannot drift.
Any mistake raises ``ConfigError``, whose text is one paragraph naming the file, the field and
the fix; the CLI prints it and exits with code 2, never with a traceback.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import reprlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import yaml

from runner.common.documents import ShapeError, finite_number, load_json, load_yaml
from runner.common.safefiles import read_regular
from runner.season.points import LINEAR_POINTS, MAX_PLACES, Points, points_problem

DEFAULT_FILE = "tournament.yaml"
DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


@dataclass(frozen=True)
class Limits:
    move_cpu_ms: int
    game_cpu_s: float
    move_wall_s: float
    first_move_wall_s: float | None
    memory_mib: int
    build_wall_s: float


@dataclass(frozen=True)
class Output:
    """Where the stages write; absolute paths, resolved against the config file's folder."""

    build: Path
    results: Path
    site: Path
    standings: Path


@dataclass(frozen=True)
class KnockoutSettings:
    best_of: int
    seeding: tuple[str, ...] | None  # best first (listed, or read from a standings file)
    third_place: bool
    tiebreak_games: int


@dataclass(frozen=True)
class SetupSpec:
    """One per-game setup (a map): its name, the game's settings with files read, their hash."""

    name: str
    values: tuple[tuple[str, str | int | float | bool], ...]  # sorted by key
    hash: str  # sha256 of the values as canonical JSON
    # (setting, the file it was read from, as written) for each `<setting>_file` (error messages)
    files: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def as_dict(self) -> dict[str, str | int | float | bool]:
        return dict(self.values)


@dataclass(frozen=True)
class FreeForAllSettings:
    seats: int | None  # None: every entry at one table
    runs: int | None  # None: one game per seat
    setups: tuple[SetupSpec, ...]


@dataclass(frozen=True)
class SiteSettings:
    repository: str | None  # an https address, or None: no link
    history: Path | None = None  # the seasons file (runner/rank/history.py), or None: no history


@dataclass(frozen=True)
class Config:
    path: Path | None  # the file that was loaded, or None for the built-in defaults
    game: str
    format: str
    rounds: int
    seed: int
    sandbox: str
    jobs: int
    entries: Path
    limits: Limits
    output: Output
    points: Points = LINEAR_POINTS
    # The season secret (SECRET_VARIABLE, or `secret:`): every seed and deal is keyed by it.
    # Never shown: not in a repr, a message, a record, a log or the site.
    secret: bytes = field(default=b"", repr=False)
    knockout: KnockoutSettings = KnockoutSettings(3, None, False, 2)
    free_for_all: FreeForAllSettings = FreeForAllSettings(None, None, ())
    site: SiteSettings = SiteSettings(None)


class ConfigError(Exception):
    """A bad setting. ``str(e)`` is one paragraph: file, field, what is wrong, and the fix."""

    def __init__(
        self, file: str, field: str, message: str, fix: str, *, where: str | None = None
    ) -> None:
        self.file, self.field, self.message, self.fix = file, field, message, fix
        self.where = where if where is not None else (f"field `{field}`" if field else "")
        super().__init__(self.file, self.field, self.message, self.fix)

    def __str__(self) -> str:
        where = f" {self.where}:" if self.where else ""
        return f"{self.file}:{where} {self.message} Fix: {self.fix}"


@dataclass(frozen=True)
class Setting:
    """One field of tournament.yaml: its type, default, allowed values and description."""

    key: str  # dotted for fields inside a section: "limits.move_cpu_ms"
    kind: Literal[
        "int",
        "float",
        "str",
        "path",
        "game",
        "points",
        "bool",
        "seats",
        "seeding",
        "setups",
        "url",
        "secret",
    ]
    default: int | float | str | None
    doc: str
    unit: str = ""  # what a number counts, for the fix hint
    low: int | float | None = None
    high: int | float | None = None
    choices: tuple[str, ...] = ()
    null_means: str = ""  # non-empty: null is allowed and means this
    example: int | float | str | None = None  # for the fix hint when the default is null


SECTIONS = {
    "limits": "What one bot may use. A bot over a limit loses the game with the reason shown.",
    "output": "Where the stages write, relative to the folder holding tournament.yaml.",
    "knockout": (
        "The knockout format (`format: knockout`): a single-elimination bracket of best-of-N "
        "matches; byes go to the top seeds. Ignored by the other formats."
    ),
    "free_for_all": (
        "The free-for-all format (`format: free-for-all`): tables of N seats, seats rotated "
        "between runs, setups taken in turn. Ignored by the other formats."
    ),
    "site": "What the results site shows beyond the season's results.",
}
FORMATS = ("round-robin", "knockout", "free-for-all")

SETTINGS: tuple[Setting, ...] = (
    Setting("game", "game", "snakes-v2", "The game the season plays, by versioned id."),
    Setting(
        "format",
        "str",
        "round-robin",
        "How the season seats entries into games: every pair twice per round (round-robin), "
        "a bracket of matches (knockout), or tables of N seats (free-for-all).",
        choices=FORMATS,
    ),
    Setting(
        "rounds",
        "int",
        1,
        "Round-robin: how many times every pair meets in each seating. Free-for-all: how many "
        "times the field is dealt into tables. Knockout: 1 (one bracket).",
        "rounds",
        1,
        100,
    ),
    Setting(
        "seed",
        "int",
        1,
        "The season seed: same seed, config and entries, same games.",
        "",
        0,
        2**63 - 1,
    ),
    Setting(
        "secret",
        "secret",
        None,
        "The season secret: every game's seed and every deal of tables is keyed by it (HMAC), so "
        "no entrant can compute a board, a hand, a map or a seating before the game is played "
        "(the records publish each seed after play). For a season on your own machine; in a "
        "public repository leave it out and set the environment variable KOTH_SEASON_SECRET "
        "(a repository secret, docs/hosting.md), which takes its place.",
        null_means="none: the season's randomness is public",
    ),
    Setting(
        "sandbox",
        "str",
        "local",
        "Where bots are built and run: subprocesses with rlimits, or hardened Docker containers.",
        choices=("local", "docker"),
    ),
    Setting(
        "jobs",
        "int",
        None,
        "How many games are played, and entries built, in parallel (the local sandbox builds "
        "one more: a build's processes leave a core idle as they hand over to one another).",
        "games",
        1,
        256,
        null_means="one per CPU core",
        example=4,
    ),
    Setting("entries", "path", "entries", "The folder of entries, one sub-folder per bot."),
    Setting(
        "points",
        "points",
        LINEAR_POINTS,
        "Points by place in games of more than two seats: `linear` (first 1, last 0, evenly "
        "spaced), or a list from first place down, e.g. `[10, 6, 3, 1]` (places past its end "
        "score 0). Tied seats share the points of the places they span. Two-seat games always "
        "give win 1, draw ½, loss 0.",
    ),
    Setting(
        "limits.move_cpu_ms",
        "int",
        100,
        "CPU time per move, in milliseconds.",
        "milliseconds",
        1,
        60000,
    ),
    Setting(
        "limits.game_cpu_s",
        "float",
        10.0,
        "CPU time per bot per game, in seconds.",
        "seconds",
        0.1,
        3600,
    ),
    Setting(
        "limits.move_wall_s",
        "float",
        1.0,
        "Wall-clock backstop per move, in seconds (catches a bot that sleeps or is stopped).",
        "seconds",
        0.05,
        600,
    ),
    Setting(
        "limits.first_move_wall_s",
        "float",
        None,
        "Wall-clock limit for a bot's first move, in seconds (Cluster allows 1 s).",
        "seconds",
        0.05,
        600,
        null_means="the same as move_wall_s",
        example=1.0,
    ),
    Setting(
        "limits.memory_mib", "int", 256, "Memory (address space) per bot, in MiB.", "MiB", 16, 65536
    ),
    Setting(
        "limits.build_wall_s",
        "float",
        60.0,
        "Wall-clock limit for compiling one entry, in seconds.",
        "seconds",
        1,
        3600,
    ),
    Setting(
        "knockout.best_of",
        "int",
        3,
        "Games per match (odd): the first to win more than half advances. Game 1 seats the "
        "higher seed first, game 2 swaps, game 3 seats it first again, and so on.",
        "games",
        1,
        99,
    ),
    Setting(
        "knockout.seeding",
        "seeding",
        None,
        "The seeds, best first: a list of entry names, or the path of a previous season's "
        "standings.json (seeded by its ranking). Entries not named follow, by name.",
        null_means="by entry name",
        example="previous/standings.json",
    ),
    Setting(
        "knockout.third_place",
        "bool",
        False,
        "Whether the semi-finals' losers play a match for third place (not when a semi-final "
        "was a bye).",
    ),
    Setting(
        "knockout.tiebreak_games",
        "int",
        2,
        "A match level after best_of games (drawn games count for neither side) plays up to "
        "this many more, one at a time, sides alternating; the first won decides. Still level: "
        "the higher seed advances.",
        "games",
        0,
        99,
    ),
    Setting(
        "free_for_all.seats",
        "seats",
        "all",
        "Players per table, a number the game allows; `all`: every entry at one table. A table "
        "the field does not fill is filled with the game's built-in bot (filler-1, …), up to "
        "the game's minimum for `all`.",
        "seats",
        2,
        64,
        example=4,
    ),
    Setting(
        "free_for_all.runs",
        "int",
        None,
        "Games each table plays; run j seats the table rotated j places (a multiple of the table "
        "size gives every entry each seat equally often).",
        "games",
        1,
        1000,
        null_means="one per seat",
        example=10,
    ),
    Setting(
        "free_for_all.setups",
        "setups",
        None,
        "Per-game setups (e.g. maps), taken in turn by each table rotation: a list of mappings, "
        "each with a `name` and the game's settings; a setting ending in `_file` is read from "
        "that file (relative to this one), e.g. `{name: maze, map_file: maps/maze.map}`. The "
        "game checks each setup for the table size when this file is read (a Multisnake map: "
        "its tiles and start letters, a bad one named with its line and column).",
        null_means="none",
        example="[{name: maze, map_file: maps/maze.map}]",
    ),
    Setting("output.build", "path", "build", "Compiled entries."),
    Setting("output.results", "path", "results", "Game records, one JSON line per game."),
    Setting("output.site", "path", "_site", "The static results site."),
    Setting("output.standings", "path", "standings.json", "Points, W/D/L and ratings."),
    Setting(
        "site.repository",
        "url",
        None,
        "The season's repository, linked from every page's header (where bots are added).",
        null_means="no link",
        example="https://github.com/OWNER/REPO",
    ),
    Setting(
        "site.history",
        "path",
        None,
        "A file of every season's standings (JSON lines: date, seed, each entry's rank, rating "
        "and hash), which `koth site` reads for rank changes and rating histories and adds "
        "this season to; published beside the site as seasons.jsonl.",
        null_means="no history",
        example="seasons.jsonl",
    ),
)
BY_KEY = {s.key: s for s in SETTINGS}


def _fmt(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = 60
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 4
_SHORT.maxlevel = 3


def _describe(value: object) -> str:
    if value is None:
        return "null (an empty value)"
    text = _SHORT.repr(value)  # never the whole of it: aliases may repeat one value endlessly
    text = text if len(text) <= 60 else text[:57] + "..."
    name = type(value).__name__
    return f"{text} ({'an' if name[0] in 'aeiou' else 'a'} {name})"


@dataclass(frozen=True)
class _Source:
    """Where values come from: the file (``key: value``) or the command line (``--key value``)."""

    file: str
    cli: bool = False

    def name(self, key: str) -> str:
        return "--" + key.replace("_", "-") if self.cli else key

    def example(self, key: str, value: object) -> str:
        if self.cli:
            return f"`{self.name(key)} {_fmt(value)}`"
        return f"`{key.rsplit('.', 1)[-1]}: {_fmt(value)}`"

    def error(self, key: str, message: str, fix: str) -> ConfigError:
        where = f"option `{self.name(key)}`" if self.cli else None
        return ConfigError(self.file, key, message, fix, where=where)

    def unknown(self, key: str, known: list[str]) -> ConfigError:
        """An unknown key: suggest the closest in its section, else anywhere, else list them."""
        leaf = key.rpartition(".")[2]
        for keys in (known, list(BY_KEY)):
            leaves = [k.rpartition(".")[2] for k in keys]
            close = difflib.get_close_matches(leaf, leaves, n=1, cutoff=0.6)
            if close:
                fix = f"did you mean `{self.name(keys[leaves.index(close[0])])}`?"
                break
        else:
            fix = "use one of " + ", ".join(f"`{self.name(k)}`" for k in known) + "."
        what = "option" if self.cli else "field"
        return self.error(
            key, f"unknown {what}.", f"{fix} Every field is described in docs/configuration.md."
        )


def _known_games() -> list[str]:
    from runner.games import GAMES  # lazily: config stays importable while games are broken

    return sorted(GAMES)


def _retired_game(game_id: str) -> tuple[str, str] | None:
    """(the id that replaced it, why) for a game id whose rules were replaced, else None."""
    from runner import games

    retired: dict[str, tuple[str, str]] = getattr(games, "RETIRED", {})
    return retired.get(game_id)


def _check_points(s: Setting, value: object, src: _Source) -> Points:
    problem = points_problem(value)
    if problem:
        raise src.error(
            s.key,
            f"{problem}, got {_describe(value)}.",
            f"write {src.example(s.key, LINEAR_POINTS)}, or the points of the first, second, "
            "... place from most to least, e.g. `points: [10, 6, 3, 1]` (places past the list "
            "score 0).",
        )
    if isinstance(value, list | tuple):
        return tuple(float(p) for p in value)
    return LINEAR_POINTS


def _check(s: Setting, value: object, src: _Source) -> Any:
    """The validated value of one setting, or a ConfigError naming it."""
    got = f"got {_describe(value)}."
    if value is None and s.null_means:
        return None
    if s.kind == "points":
        return _check_points(s, value, src)
    if s.kind in _SHAPED:
        return _SHAPED[s.kind](s, value, src)
    if s.kind in ("int", "float"):
        assert s.low is not None and s.high is not None
        wanted = int if s.kind == "int" else (int, float)
        number = value if isinstance(value, wanted) and not isinstance(value, bool) else None
        if number is None or not s.low <= number <= s.high:
            what, whole = ("an integer", "a whole number") if s.kind == "int" else ("a number",) * 2
            null = f", or null for {s.null_means}" if s.null_means else ""
            unit = f" of {s.unit}" if s.unit else ""
            eg = src.example(s.key, s.example if s.example is not None else s.default)
            raise src.error(
                s.key,
                f"expected {what} from {_fmt(s.low)} to {_fmt(s.high)}{null}, {got}",
                f"write {whole}{unit}, e.g. {eg}.",
            )
        return number if s.kind == "int" else float(number)
    if not isinstance(value, str) or not value:
        noun = "a path" if s.kind == "path" else "text"
        raise src.error(
            s.key,
            f"expected {noun}, {got}",
            f"write it as text, e.g. {src.example(s.key, s.default)}.",
        )
    if s.kind == "path" and not value.isprintable():
        raise src.error(
            s.key,
            f"expected a path, got {_describe(value)}, which holds a line break or another "
            "control character",
            f"write the path without them, e.g. {src.example(s.key, s.default)}.",
        )
    choices = list(s.choices) if s.kind != "game" else _known_games()
    retired = _retired_game(value) if s.kind == "game" else None
    if retired is not None and value not in choices:
        new, why = retired
        raise src.error(
            s.key,
            f"the game id {value!r} was replaced by {new!r}: {why}.",
            f"write {src.example(s.key, new)} (records of {value!r} games are not replayed).",
        )
    if choices and value not in choices:
        listed = ", ".join(f"`{c}`" for c in choices)
        close = difflib.get_close_matches(value, choices, n=1)
        eg = close[0] if close else s.default if s.default in choices else choices[0]
        msg = (
            f"unknown game id {value!r}; the known games are {listed}."
            if s.kind == "game"
            else f"expected one of {listed}, got {value!r}."
        )
        pick = ("" if close else "one of them, e.g. ") + src.example(s.key, eg)
        raise src.error(s.key, msg, f"write {pick}.")
    return value


# -- the format fields: kinds the plain table cannot say, the files they name, cross-checks -------

SETUP_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}\Z")
SETUP_FILE_CAP = 1 << 20
CONFIG_FILE_CAP = 1 << 20  # tournament.yaml: a few dozen lines
Scalar = str | int | float | bool


def _check_bool(s: Setting, value: object, src: _Source) -> bool:
    if isinstance(value, bool):
        return value
    raise src.error(
        s.key,
        f"expected true or false, got {_describe(value)}.",
        f"write {src.example(s.key, True)} or {src.example(s.key, False)}.",
    )


def _check_seats(s: Setting, value: object, src: _Source) -> int | str:
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    assert s.low is not None and s.high is not None
    if value == "all" or (number is not None and s.low <= number <= s.high):
        return value  # type: ignore[return-value]
    raise src.error(
        s.key,
        f"expected a number of players from {_fmt(s.low)} to {_fmt(s.high)}, or `all`, "
        f"got {_describe(value)}.",
        f"write the players per table, e.g. {src.example(s.key, 4)}, or "
        f"{src.example(s.key, 'all')} for one table of every entry.",
    )


def _check_seeding(s: Setting, value: object, src: _Source) -> tuple[str, ...] | str:
    names = value if isinstance(value, list) else None
    if isinstance(value, str) and value:
        return value  # a standings file, read once the config's folder is known
    if names is not None and all(isinstance(n, str) and SETUP_NAME.match(n) for n in names):
        twice = sorted({n for n in names if names.count(n) > 1})
        if not twice:
            return tuple(names)
        raise src.error(
            s.key,
            f"lists {', '.join(twice)} more than once.",
            "name each entry once, best seed first.",
        )
    raise src.error(
        s.key,
        f"expected a list of entry names (best first), the path of a standings.json, or null "
        f"for seeding by entry name, got {_describe(value)}.",
        f"write e.g. `seeding: [alpha, bravo]` or {src.example(s.key, s.example)}.",
    )


def _setup_problem(item: object, seen: set[str]) -> str | None:
    """Why one item of ``setups`` is not a setup, or None."""
    if not isinstance(item, dict):
        return f"is {_describe(item)}, not a mapping"
    name = item.get("name")
    if not isinstance(name, str) or not SETUP_NAME.match(name):
        return "has no `name` of lowercase letters, digits, '-' or '_'"
    if name in seen:
        return f"repeats the name {name!r}"
    seen.add(name)
    for key, value in item.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        scalar = isinstance(value, Scalar) and (finite_number(value) or not number)
        if not isinstance(key, str) or not scalar:
            return f"({name}) has a setting {key!r} that is not a name with a plain value"
        if key.endswith("_file") and not (isinstance(value, str) and value):
            return f"({name}) has `{key}` that is not a file's path"
    return None


def _check_setups(s: Setting, value: object, src: _Source) -> tuple[dict[str, Scalar], ...]:
    items = value if isinstance(value, list) and value else None
    seen: set[str] = set()
    for number, item in enumerate(items or [], 1):
        problem = _setup_problem(item, seen)
        if problem:
            raise src.error(
                s.key,
                f"setup {number} {problem}.",
                "write each setup as a mapping with a `name` and plain values, e.g. "
                "`- {name: maze, map_file: maps/maze.map, period: 5}`.",
            )
    if items is None:
        raise src.error(
            s.key,
            f"expected a list of setups, got {_describe(value)}.",
            "write one mapping per setup, e.g. `setups: [{name: maze, map_file: maps/maze.map}]`,"
            " or leave the field out.",
        )
    return tuple(items)


URL = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?")


def _check_url(s: Setting, value: object, src: _Source) -> str:
    if isinstance(value, str) and URL.fullmatch(value):
        return value
    raise src.error(
        s.key,
        f"expected an https:// address, got {_describe(value)}.",
        f"write the address in full, e.g. {src.example(s.key, s.example)}, or leave it out.",
    )


SECRET_VARIABLE = "KOTH_SEASON_SECRET"
SECRET_LENGTH = 32  # characters: 128 bits of hex, more than anyone can try from published seeds
MAKE_SECRET = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


def _check_secret(s: Setting, value: object, src: _Source) -> bytes:
    """The season secret as bytes; an error that says what is wrong with it, never what it is
    (it must stay secret even in a log of a mistake)."""
    if isinstance(value, str) and len(value.strip()) >= SECRET_LENGTH:
        return value.strip().encode()
    kind = type(value).__name__
    what = (
        f"{len(value.strip())} characters"
        if isinstance(value, str)
        else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}, not text"
    )
    raise src.error(
        s.key,
        f"the season secret must be text of at least {SECRET_LENGTH} characters, got {what} "
        "(a short secret could be found by trying, from the seeds the records publish).",
        f"make one with `{MAKE_SECRET}`.",
    )


_SHAPED = {
    "bool": _check_bool,
    "secret": _check_secret,
    "url": _check_url,
    "seats": _check_seats,
    "seeding": _check_seeding,
    "setups": _check_setups,
}


def _read_text(base: Path, name: str, key: str, src: _Source) -> str:
    """A file a field names, as text; a ConfigError naming the field otherwise (a FIFO or a
    device there too: it is never opened to wait on)."""
    path = _resolve(base, name)
    try:
        return read_regular(path, SETUP_FILE_CAP, "it").decode("utf-8")
    except (OSError, ValueError) as exc:  # UnsafeFileError, UnicodeDecodeError: ValueErrors
        raise src.error(
            key,
            f"cannot read {path}: {exc}.",
            "check the path; it is relative to the folder of this file.",
        ) from None


def _resolve_setups(
    items: Sequence[Mapping[str, Scalar]], base: Path, src: _Source
) -> tuple[SetupSpec, ...]:
    specs = []
    for item in items:
        values: dict[str, Scalar] = {}
        files: list[tuple[str, str]] = []
        for key, value in item.items():
            if key == "name":
                continue
            if key.endswith("_file"):
                setting = key[: -len("_file")]
                values[setting] = _read_text(base, str(value), "free_for_all.setups", src)
                files.append((setting, str(value)))
            else:
                values[key] = value
        text = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(text.encode()).hexdigest()
        name = str(item["name"])
        specs.append(SetupSpec(name, tuple(sorted(values.items())), digest, tuple(files)))
    return tuple(specs)


def _check_playable(values: Mapping[str, Any], src: _Source) -> None:
    """Each setup of a free-for-all against its game's own check (a Multisnake map: its tiles,
    its start letters for the table size), so a bad map stops the season before any game with
    the file, the line and the column."""
    from runner.games import GAMES

    check = getattr(GAMES.get(values["game"]), "setup_problem", None)
    if values["format"] != "free-for-all" or check is None:
        return
    seats = values["free_for_all.seats"]
    for setup in values["free_for_all.setups"]:
        problem = check(setup.as_dict(), None if seats == "all" else seats)
        if problem is None:
            continue
        files = dict(setup.files)
        what = (
            f"`{problem.key}_file` {files[problem.key]}"
            if problem.key in files
            else f"`{problem.key}`"
            if problem.key
            else "it"
        )
        table = f" at tables of {seats}" if seats != "all" else ""
        raise src.error(
            "free_for_all.setups",
            f"setup {setup.name!r} cannot be played{table}: {what}: {problem}.",
            "correct that setting (a map file: the line and column named), or take the setup "
            "out of the list; the game's rules page describes its setups.",
        )


def _standings_seeds(base: Path, name: str, src: _Source) -> tuple[str, ...]:
    """The ranked entries of a standings.json, best first."""
    from runner.season.standings_file import check_document

    key = "knockout.seeding"
    text = _read_text(base, name, key, src)
    try:
        doc = load_json(text)
    except ValueError:
        doc = None
    problem = check_document(doc) if doc is not None else "it is not JSON"
    if problem:
        raise src.error(
            key,
            f"{_resolve(base, name)} is not a standings file: {problem}.",
            "name a standings.json written by `koth standings`, or list the entries.",
        )
    ranked = [row for row in doc["entries"] if row.get("rank") is not None]
    return tuple(row["entry"] for row in sorted(ranked, key=lambda row: row["rank"]))


def _resolve_files(values: dict[str, Any], base: Path, src: _Source) -> None:
    """Read the files the format fields name (a standings file, setup files)."""
    if isinstance(values["knockout.seeding"], str):
        values["knockout.seeding"] = _standings_seeds(base, values["knockout.seeding"], src)
    values["free_for_all.setups"] = _resolve_setups(values["free_for_all.setups"] or (), base, src)


def seat_counts(game_id: str) -> tuple[int, ...] | None:
    """The numbers of players ``game_id`` is played by, ascending; None when the registry does
    not say (a game's ``info.seat_counts``, else every number from its minimum to its maximum)."""
    from runner.games import GAMES

    info = getattr(GAMES.get(game_id), "info", None)
    if info is None:
        return None
    counts: tuple[int, ...] = tuple(getattr(info, "seat_counts", ()) or ())
    return counts or tuple(range(info.min_players, info.max_players + 1))


def _cross_check(values: Mapping[str, Any], source: Callable[[str], _Source]) -> None:
    """The format's fields against each other and against the game's seat counts."""
    fmt, game = values["format"], values["game"]
    counts = seat_counts(game)
    listed = ", ".join(map(str, counts or ()))
    if fmt in ("round-robin", "knockout") and counts is not None and 2 not in counts:
        raise source("format").error(
            "format",
            f"{fmt} plays games of two players, but {game} is played by {listed}.",
            "write `format: free-for-all` (with `free_for_all: seats:`).",
        )
    if fmt == "knockout" and values["knockout.best_of"] % 2 == 0:
        raise source("knockout.best_of").error(
            "knockout.best_of",
            f"expected an odd number of games, got {values['knockout.best_of']}: a match of an "
            "even number can end level without a draw.",
            f"write e.g. `best_of: {values['knockout.best_of'] + 1}`.",
        )
    if fmt == "knockout" and values["rounds"] != 1:
        raise source("rounds").error(
            "rounds",
            f"a knockout plays one bracket, got {values['rounds']} rounds.",
            "leave `rounds` out (or write `rounds: 1`); longer matches are `knockout: best_of:`.",
        )
    seats = values["free_for_all.seats"]
    if fmt == "free-for-all" and counts is not None and seats != "all" and seats not in counts:
        raise source("free_for_all.seats").error(
            "free_for_all.seats",
            f"{game} is played by {listed} players, not {seats}.",
            f"write one of those numbers, e.g. `seats: {counts[-1]}`, or `seats: all`.",
        )


def _read(path: Path, src: _Source) -> dict[Any, Any]:
    try:
        text = read_regular(path, CONFIG_FILE_CAP, "it").decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(
            src.file,
            "",
            f"no such file ({path.resolve()}).",
            "check the path "
            "given on the command line, or leave it out to use ./tournament.yaml "
            "or the defaults.",
        ) from None
    except (OSError, ValueError) as e:  # UnsafeFileError (a FIFO, a folder), UnicodeDecodeError
        raise ConfigError(
            src.file, "", f"cannot be read: {e}.", "make it a readable UTF-8 text file."
        ) from None
    try:
        doc = load_yaml(text)
    except ShapeError as e:
        field = (e.place or "").split("[", 1)[0]
        raise ConfigError(
            src.file,
            field if field in BY_KEY else "",
            f"not a configuration: {e}.",
            "write the fields as docs/configuration.md does.",
        ) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        where = f"line {mark.line + 1}" if mark else None
        col = f" (column {mark.column + 1})" if mark else ""
        raise ConfigError(
            src.file,
            "",
            f"not valid YAML{col}: {problem}.",
            "check that line "
            "and the one before it: each field is `name: value`, fields inside "
            "`limits:` or `output:` are indented by the same spaces (no tabs), "
            "and values containing `: ` or `#` are quoted.",
            where=where,
        ) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigError(
            src.file,
            "",
            f"the top level must be a mapping of `field: value` lines, got {_describe(doc)}.",
            "write one field per line at the "
            "start of the line, e.g. `game: snakes-v2` then `rounds: 1`, not a "
            "`- ` list or a bare value.",
        )
    return doc


def _from_file(
    doc: Mapping[Any, Any], values: dict[str, Any], src: _Source, given: set[str]
) -> None:
    top = [k for k in BY_KEY if "." not in k] + list(SECTIONS)
    for key, value in doc.items():
        key = str(key)
        if key in SECTIONS:
            if value is None:
                continue
            if not isinstance(value, dict):
                first = next(k for k in BY_KEY if k.startswith(key + "."))
                raise src.error(
                    key,
                    f"expected a mapping of fields, got {_describe(value)}.",
                    f"write its fields on the lines below `{key}:`, indented, e.g. "
                    f"`  {src.example(first, BY_KEY[first].default)[1:]}.",
                )
            for sub, subvalue in value.items():
                full = f"{key}.{sub}"
                if full not in BY_KEY:
                    raise src.unknown(full, [k for k in BY_KEY if k.startswith(key + ".")])
                values[full] = _check(BY_KEY[full], subvalue, src)
                given.add(full)
        elif key in BY_KEY:
            values[key] = _check(BY_KEY[key], value, src)
            given.add(key)
        else:
            raise src.unknown(key, top)


def _resolve(base: Path, value: str) -> Path:
    return Path(os.path.abspath(base / Path(value).expanduser()))


def _build(values: Mapping[str, Any], base: Path, path: Path | None) -> Config:
    def section(cls: type[Any], name: str) -> Any:
        items = {f.name: values[f"{name}.{f.name}"] for f in fields(cls)}
        if cls is Output:
            items = {k: _resolve(base, v) for k, v in items.items()}
        return cls(**items)

    seats = values["free_for_all.seats"]
    return Config(
        path=path,
        game=values["game"],
        format=values["format"],
        rounds=values["rounds"],
        seed=values["seed"],
        sandbox=values["sandbox"],
        jobs=values["jobs"] if values["jobs"] is not None else os.cpu_count() or 1,
        entries=_resolve(base, values["entries"]),
        limits=section(Limits, "limits"),
        output=section(Output, "output"),
        points=values["points"],
        secret=values["secret"] or b"",
        knockout=section(KnockoutSettings, "knockout"),
        free_for_all=FreeForAllSettings(
            None if seats == "all" else seats,
            values["free_for_all.runs"],
            tuple(values["free_for_all.setups"] or ()),
        ),
        site=SiteSettings(
            values["site.repository"],
            _resolve(base, values["site.history"]) if values["site.history"] else None,
        ),
    )


def load_config(path: Path | None, overrides: Mapping[str, object] | None = None) -> Config:
    """Load and validate a tournament file, then apply command-line overrides.

    ``path`` None means ./tournament.yaml if it exists, else the defaults relative to the
    current folder; an explicit path that does not exist is an error. ``overrides`` maps dotted
    keys ("seed", "limits.move_cpu_ms") to values; a None value means "option not given".
    """
    explicit = path is not None
    path = Path(path) if path is not None else Path(DEFAULT_FILE)
    values: dict[str, Any] = {s.key: s.default for s in SETTINGS}
    given: set[str] = set()  # the keys the file or the command line set
    loaded: Path | None = None
    src = _Source(str(path) if explicit or path.is_file() else DEFAULT_FILE)
    if explicit or path.is_file():
        _from_file(_read(path, src), values, src, given)
        loaded = path.resolve()
    cli = _Source("command line", cli=True)
    on_cli: set[str] = set()  # the keys the command line set (errors name it, not the file)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in BY_KEY:
            raise cli.unknown(key, list(BY_KEY))
        values[key] = _check(BY_KEY[key], value, cli)
        given.add(key)
        on_cli.add(key)
    _game_limits(values, given)
    _environment_secret(values)
    base = loaded.parent if loaded else Path.cwd().resolve()
    _resolve_files(values, base, src)
    _cross_check(values, lambda key: cli if key in on_cli else src)
    _check_playable(values, src)
    return _build(values, base, loaded)


def _environment_secret(values: dict[str, Any]) -> None:
    """SECRET_VARIABLE, when set and not empty (a workflow without the repository secret passes
    an empty one), is the season secret, in place of the file's."""
    raw = os.fsencode(os.environ.get(SECRET_VARIABLE, "")).strip()
    if not raw:
        return
    if len(raw) < SECRET_LENGTH:
        raise ConfigError(
            SECRET_VARIABLE,
            "",
            f"the season secret must be at least {SECRET_LENGTH} characters, got {len(raw)}.",
            f"make one with `{MAKE_SECRET}` and set it as the repository secret "
            f"{SECRET_VARIABLE} (docs/hosting.md).",
        )
    values["secret"] = raw


def _game_limits(values: dict[str, Any], given: set[str]) -> None:
    """A game's own defaults for the limits the config leaves unset (Cluster: its referee's
    wall-clock limits per move)."""
    from runner.games import GAMES

    game = GAMES.get(values["game"])
    for name, value in game.limits.items() if game is not None else ():
        if f"limits.{name}" not in given:
            values[f"limits.{name}"] = value


def default_config(base: Path) -> Config:
    """The built-in defaults, with paths relative to ``base``; the game id is not checked."""
    return _build({s.key: s.default for s in SETTINGS}, Path(base).resolve(), None)


def reference_markdown() -> str:
    """docs/configuration.md, generated from ``SETTINGS``."""
    kinds = {
        "int": "integer",
        "float": "number",
        "str": "text",
        "path": "path",
        "game": "text",
        "points": "text or list",
        "bool": "boolean",
        "seats": "integer or `all`",
        "seeding": "list or path",
        "setups": "list",
        "url": "text",
        "secret": "text",
    }
    shaped = {
        "bool": "`true`, `false`",
        "seats": "2 to 64, as many as the game allows, or `all`",
        "seeding": "entry names, a standings.json's path, or `null` (by entry name)",
        "setups": "mappings, each with a `name`, or `null` (none)",
        "url": "an `https://` address, or `null` (no link)",
        "secret": f"{SECRET_LENGTH} characters or more, or `null` (none: the season's "
        "randomness is public)",
    }
    lines = [
        "# Configuration reference: tournament.yaml",
        "",
        "<!-- Generated from SETTINGS in runner/season/config.py "
        "by `python -m runner.season.config`; "
        "do not edit by hand. -->",
        "",
        "`tournament.yaml` sets up a season. Every field is optional: a missing field, an "
        "empty file or no file at all gives the defaults below. Paths are relative to the "
        "folder holding the file. Command-line options (`--seed`, `--jobs`, ...) override the "
        "file and are checked the same way. A bad value stops the run with one paragraph "
        "naming the file, the field and the fix. A game may set its own defaults for some "
        "`limits` (Cluster: `move_wall_s` 0.1 and `first_move_wall_s` 1.0, as its referee "
        "did): they apply where neither the file nor the command line sets the field. A game "
        "may also give a language a multiple of the time limits (Domineering: Java twice the "
        "time of C and C++, as its event did); the limits written are then C's, and scaling "
        "them keeps the ratio.",
    ]
    for section, title in [("", "Top level"), *((s, f"`{s}`") for s in SECTIONS)]:
        lines += ["", f"## {title}", ""]
        if section:
            lines += [SECTIONS[section], ""]
        lines += ["| Field | Type | Default | Allowed | Description |", "|---|---|---|---|---|"]
        for s in SETTINGS:
            if s.key.rpartition(".")[0] != section:
                continue
            if s.kind in shaped:
                allowed = shaped[s.kind]
            elif s.kind == "game":
                allowed = "a game id registered in `runner.games.GAMES`"
            elif s.kind == "points":
                allowed = (
                    f"`linear`, or 1 to {MAX_PLACES} numbers ≥ 0, none more than the one before"
                )
            elif s.choices:
                allowed = ", ".join(f"`{c}`" for c in s.choices)
            elif s.low is not None:
                allowed = f"{_fmt(s.low)} to {_fmt(s.high)}"
                allowed += f", or `null` ({s.null_means})" if s.null_means else ""
            else:
                allowed = "relative to the file's folder"
            row = [f"`{s.key}`", kinds[s.kind], f"`{_fmt(s.default)}`", allowed, s.doc]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # regenerate the docs page: python -m runner.season.config
    DOCS_PAGE.parent.mkdir(parents=True, exist_ok=True)
    DOCS_PAGE.write_text(reference_markdown(), encoding="utf-8")
    print(f"wrote {DOCS_PAGE}")
