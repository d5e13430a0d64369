"""The bot ``koth replay --bot`` feeds: an entry of the season, or any bot source on disk.

``--bot NAME`` is the entry of that name in the season's entries folder, built as the season
builds it (cached in its build folder). Anything else is a path: an entry folder (its
``entry.yaml`` may be missing), or one source file (``bot.c``, ``Bot.java``, ...: the language
read from its ending, runner/common/languages.py). It is copied into a scratch folder as an
entry of its own (its regular files only, as an entry is read), given an ``entry.yaml`` if it
has none, and built there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from runner.common import languages
from runner.common.documents import load_yaml
from runner.common.safefiles import UnsafeFileError, read_beneath, read_tree, write_tree
from runner.games.spec import GameSpec
from runner.season import entries
from runner.season.build import Build, Sandbox, build_entry
from runner.season.config import Config
from runner.season.entries import MANIFEST, SOURCES, Entry, load_entry
from runner.season.workers import bot_limits

ENDINGS = languages.ENDINGS


class BotError(ValueError):
    """The bot cannot be found or built (one paragraph: what and the fix)."""


@dataclass(frozen=True)
class Chosen:
    """The bot found: its entry, where it was looked up, and its language."""

    entry: Entry
    shown: str  # "the entry greedy", "entries/greedy (a copy)"
    language: str


def _name(stem: str) -> str:
    """A valid entry name made from a folder's or a file's name."""
    name = re.sub(r"[^a-z0-9_-]+", "-", stem.lower()).strip("-_")[:40]
    return name if entries.NAME_PATTERN.match(name) else "bot"


def _language(files: dict[str, bytes], where: Path) -> str:
    """The language a folder's entry.yaml names, else the one whose source it holds."""
    if MANIFEST in files:
        try:
            manifest = load_yaml(files[MANIFEST].decode("utf-8"))
        except (yaml.YAMLError, ValueError):  # UnicodeDecodeError, ShapeError
            manifest = None
        if isinstance(manifest, dict) and manifest.get("language") in SOURCES:
            return str(manifest["language"])
    found = [language for language, source in SOURCES.items() if source in files]
    if len(found) != 1:
        names = ", ".join(SOURCES.values())
        raise BotError(
            f"--bot {where}: the folder holds {'none' if not found else 'more than one'} of "
            f"{names}. Fix: point --bot at the source file itself, or give the folder an "
            "entry.yaml naming its language."
        )
    return found[0]


def _scratch_entry(path: Path, scratch: Path) -> Chosen:
    """A copy of the bot at ``path`` as an entry folder in ``scratch``."""
    try:
        if path.is_dir():
            files = read_tree(path)
            language = _language(files, path)
        else:
            language = ENDINGS.get(path.suffix.lower(), "")
            if not language:
                endings = ", ".join(ENDINGS)
                raise BotError(f"--bot {path}: a bot source ends in one of {endings}.")
            files = {SOURCES[language]: read_beneath(path.parent, path.name)}
    except (UnsafeFileError, OSError) as exc:
        raise BotError(f"--bot {path}: {exc}") from None
    name = _name(path.stem if path.is_file() else path.resolve().name)
    manifest = {
        "name": name,
        "author": "koth replay",
        "description": f"a copy of {path} for koth replay",
        "language": language,
    }
    files[MANIFEST] = yaml.safe_dump(manifest).encode()
    folder = scratch / "entries" / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    write_tree(files, folder)
    entry = load_entry(folder)
    if entry.problem:
        raise BotError(f"--bot {path}: {entry.problem}")
    return Chosen(entry, f"{path} (copied into a scratch folder)", language)


def _near(path: Path) -> Path:
    """``path`` relative to the current folder when it lies under it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def choose(entries_dir: Path, bot: str, scratch: Path) -> Chosen:
    """The bot ``--bot`` names: an entry of ``entries_dir``, or a path (see the docstring)."""
    if entries.NAME_PATTERN.match(bot) and (entries_dir / bot).is_dir():
        entry = entries.find(entries_dir, bot)
        language = entry.manifest.language if entry.manifest else "c"
        return Chosen(entry, f"the entry {bot} ({_near(entries_dir / bot)})", language)
    path = Path(bot).expanduser()
    if not path.exists():
        known = ", ".join(e.name for e in entries.discover(entries_dir)) or "none"
        raise BotError(
            f"--bot {bot}: no entry {bot!r} in {entries_dir} (entries: {known}) and no such file "
            "or folder. Fix: name an entry, or give the path of a bot's folder or source file."
        )
    return _scratch_entry(path, scratch)


def build(
    chosen: Chosen, build_root: Path, sandbox: Sandbox, config: Config, game: GameSpec
) -> Build:
    """The bot built as the season builds it; BotError with the build's verdict otherwise."""
    limits = bot_limits(config)
    made = build_entry(chosen.entry, build_root, sandbox, limits, config.limits.build_wall_s, game)
    if not made.ok:
        raise BotError(f"{chosen.shown} does not build for {game.id}: {made.message}")
    return made
