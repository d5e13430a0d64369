"""tournament.yaml → typed, validated, frozen settings.

Every field is declared once, in ``SETTINGS``: its type, default, allowed values and a one-line
description. The same table validates the file, validates command-line overrides and generates
docs/configuration.md (``python -m runner.config`` rewrites it), so the docs cannot drift.
Any mistake raises ``ConfigError``, whose text is one paragraph naming the file, the field and
the fix; the CLI prints it and exits with code 2, never with a traceback.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import yaml

DEFAULT_FILE = "tournament.yaml"
DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
LINEAR_POINTS = "linear"
MAX_PLACES = 1000
Points = str | tuple[float, ...]  # points by place in games of 3+ seats: LINEAR_POINTS or a list


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
    kind: Literal["int", "float", "str", "path", "game", "points"]
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
}

SETTINGS: tuple[Setting, ...] = (
    Setting("game", "game", "snakes-v2", "The game the season plays, by versioned id."),
    Setting(
        "format",
        "str",
        "round-robin",
        "How the season pairs entries into games.",
        choices=("round-robin",),
    ),
    Setting(
        "rounds", "int", 1, "How many times every pair meets in each seating.", "rounds", 1, 100
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
        "How many games are played in parallel.",
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
    Setting("output.build", "path", "build", "Compiled entries."),
    Setting("output.results", "path", "results", "Game records, one JSON line per game."),
    Setting("output.site", "path", "_site", "The static results site."),
    Setting("output.standings", "path", "standings.json", "Points, W/D/L and ratings."),
)
BY_KEY = {s.key: s for s in SETTINGS}


def _fmt(value: object) -> str:
    if value is None:
        return "null"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _describe(value: object) -> str:
    if value is None:
        return "null (an empty value)"
    text = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
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


def points_problem(value: object) -> str | None:
    """Why ``value`` is not a points table (``linear``, or points by place: at least one, each
    a finite number of at least 0, none more than the place before it's), or None."""
    if value == LINEAR_POINTS:
        return None
    if not isinstance(value, list | tuple) or not value:
        return "expected `linear` or a list of points by place"
    if len(value) > MAX_PLACES:
        return f"expected points for at most {MAX_PLACES} places"
    if not all(
        isinstance(p, int | float) and not isinstance(p, bool) and math.isfinite(p) and p >= 0
        for p in value
    ):
        return "expected points that are finite numbers of at least 0"
    if any(worse > better for better, worse in zip(value, value[1:], strict=False)):
        return "a place may not score more than the place before it"
    return None


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


def _read(path: Path, src: _Source) -> dict[Any, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            src.file,
            "",
            f"no such file ({path.resolve()}).",
            "check the path "
            "given on the command line, or leave it out to use ./tournament.yaml "
            "or the defaults.",
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(
            src.file, "", f"cannot be read: {e}.", "make it a readable UTF-8 text file."
        ) from None
    try:
        doc = yaml.safe_load(text)
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
    if explicit or path.is_file():
        _from_file(_read(path, _Source(str(path))), values, _Source(str(path)), given)
        loaded = path.resolve()
    cli = _Source("command line", cli=True)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in BY_KEY:
            raise cli.unknown(key, list(BY_KEY))
        values[key] = _check(BY_KEY[key], value, cli)
        given.add(key)
    _game_limits(values, given)
    return _build(values, loaded.parent if loaded else Path.cwd().resolve(), loaded)


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
    }
    lines = [
        "# Configuration reference: tournament.yaml",
        "",
        "<!-- Generated from SETTINGS in runner/config.py by `python -m runner.config`; "
        "do not edit by hand. -->",
        "",
        "`tournament.yaml` sets up a season. Every field is optional: a missing field, an "
        "empty file or no file at all gives the defaults below. Paths are relative to the "
        "folder holding the file. Command-line options (`--seed`, `--jobs`, ...) override the "
        "file and are checked the same way. A bad value stops the run with one paragraph "
        "naming the file, the field and the fix. A game may set its own defaults for some "
        "`limits` (Cluster: `move_wall_s` 0.1 and `first_move_wall_s` 1.0, as its referee "
        "did): they apply where neither the file nor the command line sets the field.",
    ]
    for section, title in [("", "Top level"), *((s, f"`{s}`") for s in SECTIONS)]:
        lines += ["", f"## {title}", ""]
        if section:
            lines += [SECTIONS[section], ""]
        lines += ["| Field | Type | Default | Allowed | Description |", "|---|---|---|---|---|"]
        for s in SETTINGS:
            if s.key.rpartition(".")[0] != section:
                continue
            if s.kind == "game":
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


if __name__ == "__main__":  # regenerate the docs page: python -m runner.config
    DOCS_PAGE.parent.mkdir(parents=True, exist_ok=True)
    DOCS_PAGE.write_text(reference_markdown(), encoding="utf-8")
    print(f"wrote {DOCS_PAGE}")
