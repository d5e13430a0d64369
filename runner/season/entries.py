"""Entries: folders under entries/, each a bot's source plus entry.yaml.

A malformed entry is not an error of the season: it becomes an Entry with a ``problem`` (one
sentence naming the file, the field and the fix), which the build stage reports and the
standings show. Content hashes cover every file of the folder, so results are keyed by what
was actually played. The folder is read by runner.common.safefiles' rules (regular files and folders
only, nothing followed, every read capped): an entry that breaks them is refused here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from runner.common import languages
from runner.common.documents import load_yaml
from runner.common.safefiles import UnsafeFileError, read_beneath, read_tree, shown, tree_hash
from runner.season.formats.base import BUILTIN_PREFIX, FILLER_PREFIX, host_seat

MANIFEST = "entry.yaml"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}\Z")  # \Z: "$" would let a trailing newline by
LANGUAGES = languages.IDS
SOURCES = languages.SOURCES


@dataclass(frozen=True)
class Manifest:
    name: str
    author: str
    description: str
    language: str


@dataclass(frozen=True)
class Entry:
    name: str  # the folder's name: the entry's identity
    path: Path
    manifest: Manifest | None
    content_hash: str
    problem: str | None = None

    @property
    def author(self) -> str:
        return self.manifest.author if self.manifest else ""

    @property
    def source(self) -> Path:
        language = self.manifest.language if self.manifest else "c"
        return self.path / SOURCES[language]


def content_hash(folder: Path) -> str:
    """sha256 over every regular file's relative path and bytes, in sorted order (raises
    UnsafeFileError for a folder that breaks runner.common.safefiles' rules)."""
    return tree_hash(read_tree(folder))


def _manifest_fields(where: str, files: Mapping[str, bytes]) -> dict[Any, Any]:
    """entry.yaml read as a mapping of fields; raises ValueError as ``_manifest`` does."""
    if MANIFEST not in files:
        raise ValueError(
            f"{where} is missing. Fix: add it with the fields name, author, description, language."
        )
    try:
        data: Any = load_yaml(files[MANIFEST].decode("utf-8"))
    except (yaml.YAMLError, ValueError) as exc:  # UnicodeDecodeError, ShapeError
        raise ValueError(
            f"{where} is not valid YAML ({exc}). Fix: see the entry template."
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be a mapping of fields. Fix: see the entry template.")
    return data


def _field_values(where: str, data: Mapping[Any, Any]) -> dict[str, str]:
    """The four fields, stripped (``language`` defaults to c); raises ValueError for an unknown
    field or one that is not a non-empty string."""
    known = {"name", "author", "description", "language"}
    for key in data:
        if key not in known:
            raise ValueError(
                f"{where}: unknown field `{key}`. Fix: use only {', '.join(sorted(known))}."
            )
    values: dict[str, str] = {}
    for key in ("name", "author", "description", "language"):
        value = data.get(key, "c" if key == "language" else None)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(
                f"{where}: field `{key}` must be a non-empty string. Fix: add `{key}: …`."
            )
        values[key] = value.strip()
    return values


def _manifest(folder: str, files: Mapping[str, bytes]) -> Manifest:
    """Parse entry.yaml; raises ValueError with one plain sentence naming file, field and fix."""
    where = f"{folder}/{MANIFEST}"
    values = _field_values(where, _manifest_fields(where, files))
    if values["name"] != folder:
        raise ValueError(
            f"{where}: field `name` is {values['name']!r} but the folder is {folder!r}. "
            f"Fix: make them equal."
        )
    if values["language"] not in LANGUAGES:
        raise ValueError(
            f"{where}: field `language` is {values['language']!r}. "
            f"Fix: use one of {', '.join(LANGUAGES)}."
        )
    if SOURCES[values["language"]] not in files:
        raise ValueError(
            f"{folder}/{SOURCES[values['language']]} is missing. "
            f"Fix: a {values['language']} entry's source is {SOURCES[values['language']]}."
        )
    return Manifest(**values)


def entry_name(folder_name: str) -> str:
    """An entry's name: its folder's, escaped when that is not printable text (any bytes may name
    a folder; the name travels into messages, pages and JSON)."""
    return shown(folder_name)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an entry, or None: it must be a valid name, and not one the host
    gives its own seats (a season stopped, when an entry named ``filler-1`` met the free-for-all
    seat of that name)."""
    if not NAME_PATTERN.match(name):
        return (
            f"entry folder {name!r} is not a valid entry name. Fix: rename it with lowercase "
            "letters, digits, '-' or '_' (at most 40 characters)."
        )
    if host_seat(name):
        return (
            f"entry folder {name!r} has a name koth gives its own seats (the built-in bot's: "
            f"{FILLER_PREFIX}1, {FILLER_PREFIX}2, … at a free-for-all's tables, "
            f"{BUILTIN_PREFIX}… in the check stage). Fix: rename the folder."
        )
    return None


def load_entry(folder: Path) -> Entry:
    """The entry in ``folder``, read once by runner.common.safefiles' rules; never raises for a
    bad one."""
    name = entry_name(folder.name)
    problem = name_problem(name)
    if problem is not None:
        return Entry(name, folder, None, tree_hash({"refused": problem.encode()}), problem)
    try:
        files = read_tree(folder)
    except UnsafeFileError as exc:
        problem = str(exc)
        digest = tree_hash({"refused": problem.encode()})  # fixing the folder changes the key
        return Entry(name, folder, None, digest, problem)
    digest = tree_hash(files)
    try:
        manifest = _manifest(name, files)
    except ValueError as exc:
        return Entry(name, folder, None, digest, str(exc))
    return Entry(name, folder, manifest, digest)


def read_source(entry: Entry) -> bytes:
    """The entry's source file, read by runner.common.safefiles' rules (UnsafeFileError
    otherwise)."""
    return read_beneath(entry.path, entry.source.name)


def discover(entries_dir: Path) -> list[Entry]:
    """Every entry folder under ``entries_dir``, sorted by name. Hidden folders are skipped."""
    if not entries_dir.is_dir():
        return []
    with os.scandir(entries_dir) as listing:
        # A link among the folders is an entry too, and refused as one (never followed).
        names = [
            e.name
            for e in listing
            if (e.is_dir(follow_symlinks=False) or e.is_symlink())
            and not e.name.startswith((".", "_"))
        ]
    return [load_entry(entries_dir / name) for name in sorted(names)]


def find(entries_dir: Path, name: str) -> Entry:
    folder = entries_dir / name
    if not (folder.is_dir() or folder.is_symlink()):
        known = ", ".join(e.name for e in discover(entries_dir)) or "none"
        raise LookupError(f"no entry {name!r} in {entries_dir}/ (entries: {known})")
    return load_entry(folder)


@dataclass(frozen=True)
class Entrant:
    """An entry of the season: it plays, or ``excluded`` says why it does not."""

    entry: str
    name: str  # display name (the bot's bot_name once it loaded)
    content_hash: str
    excluded: str | None = None  # one line: the stage and the reason
    detail: str = ""  # the full message (compiler output, ...) for an excluded entry
