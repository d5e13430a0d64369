"""Entries: folders under entries/, each a bot's source plus entry.yaml.

A malformed entry is not an error of the season: it becomes an Entry with a ``problem`` (one
sentence naming the file, the field and the fix), which the build stage reports and the
standings show. Content hashes cover every file of the folder, so results are keyed by what
was actually played.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MANIFEST = "entry.yaml"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
LANGUAGES = ("c", "cpp", "python")
SOURCES = {"c": "bot.c", "cpp": "bot.cpp", "python": "bot.py"}
MAX_ENTRY_BYTES = 1 << 20


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
    """sha256 over every regular file's relative path and bytes, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink()):
        relative = path.relative_to(folder).as_posix()
        digest.update(relative.encode() + b"\0")
        if path.is_symlink():  # hashed as the link, never followed: it may point anywhere
            digest.update(b"link:" + str(path.readlink()).encode())
        else:
            digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _manifest(folder: Path) -> Manifest:
    """Parse entry.yaml; raises ValueError with one plain sentence naming file, field and fix."""
    where = f"{folder.name}/{MANIFEST}"
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(
            f"{where} is missing. Fix: add it with the fields name, author, description, language."
        )
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{where} is not valid YAML ({exc}). Fix: see the entry template."
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be a mapping of fields. Fix: see the entry template.")
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
    if values["name"] != folder.name:
        raise ValueError(
            f"{where}: field `name` is {values['name']!r} but the folder is {folder.name!r}. "
            f"Fix: make them equal."
        )
    if values["language"] not in LANGUAGES:
        raise ValueError(
            f"{where}: field `language` is {values['language']!r}. "
            f"Fix: use one of {', '.join(LANGUAGES)}."
        )
    if not (folder / SOURCES[values["language"]]).is_file():
        raise ValueError(
            f"{folder.name}/{SOURCES[values['language']]} is missing. "
            f"Fix: a {values['language']} entry's source is {SOURCES[values['language']]}."
        )
    return Manifest(**values)


def load_entry(folder: Path) -> Entry:
    name = folder.name
    digest = content_hash(folder)
    if not NAME_PATTERN.match(name):
        problem = (
            f"entry folder {name!r} is not a valid entry name. Fix: rename it with lowercase "
            "letters, digits, '-' or '_' (at most 40 characters)."
        )
        return Entry(name, folder, None, digest, problem)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    if size > MAX_ENTRY_BYTES:
        problem = f"{name}/ holds {size} bytes. Fix: keep an entry under {MAX_ENTRY_BYTES} bytes."
        return Entry(name, folder, None, digest, problem)
    try:
        manifest = _manifest(folder)
    except ValueError as exc:
        return Entry(name, folder, None, digest, str(exc))
    return Entry(name, folder, manifest, digest)


def discover(entries_dir: Path) -> list[Entry]:
    """Every entry folder under ``entries_dir``, sorted by name. Hidden folders are skipped."""
    if not entries_dir.is_dir():
        return []
    folders = [p for p in entries_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
    return [load_entry(folder) for folder in sorted(folders, key=lambda p: p.name)]


def find(entries_dir: Path, name: str) -> Entry:
    folder = entries_dir / name
    if not folder.is_dir():
        known = ", ".join(e.name for e in discover(entries_dir)) or "none"
        raise LookupError(f"no entry {name!r} in {entries_dir}/ (entries: {known})")
    return load_entry(folder)
