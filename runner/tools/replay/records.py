"""The record ``koth replay`` is asked for, however it was named.

A game is named by its key or a unique prefix of it (a game page is named by the key's first 12
characters), by its game page's address or file name (``…/games/3f2a9c0b1d4e.html``), or by a
``games.jsonl`` line itself (``{"key": …}``). The records searched are the results files given,
then the season's own; when a game page's address names a game none of them holds, the site's
published records (its ``games.jsonl``, beside its pages) are fetched and searched. Every record
is checked as any results file's are (runner/season/results.py) before it is believed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from runner.common.documents import load_json
from runner.season import results
from runner.season.results import Record
from runner.site import publish

HEX = re.compile(r"[0-9a-f]+")
Fetch = Callable[[str, int], bytes | None]
Say = Callable[[str], None]


class RecordError(ValueError):
    """The game named is not found, or not uniquely, or is malformed (one paragraph: the fix)."""


def _site_of(url: str) -> str | None:
    """The address of the site a game page's address belongs to (its ``games/`` folder's
    parent), or None when the address is no game page's."""
    parts = urlsplit(url)
    cut = parts.path.rfind("/games/")
    if parts.scheme not in ("http", "https") or cut < 0:
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path[:cut]}/"


def prefix_of(name: str) -> str:
    """The key prefix a game's name gives: a key, a prefix, a page's file name or address."""
    text = name.strip()
    if "/" in text or text.endswith(".html"):
        text = urlsplit(text).path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".html")
    text = text.lower()
    if text.startswith("game-"):
        raise RecordError(
            f"{name!r} is a game page numbered by the site, not named by its key: use the key "
            "shown under 'Record' on the page (the site names pages by key when records have "
            "valid keys, as every checked record has)."
        )
    if not HEX.fullmatch(text):
        raise RecordError(
            f"{name!r} names no game: give a game's key (or its first characters, e.g. the 12 "
            "of its page's name), its game page's address or file name, or a line of "
            "games.jsonl."
        )
    return text


def from_line(line: str) -> Record:
    """A record given as a ``games.jsonl`` line, checked."""
    try:
        record = load_json(line)
    except ValueError as exc:
        raise RecordError(f"the game given as a JSON line is not valid JSON ({exc}).") from None
    problem = results.check_record(record)
    if problem is not None:
        raise RecordError(f"the game given as a JSON line is not a valid record: {problem}.")
    return dict(record)


def read_sources(sources: Sequence[Path], say: Say) -> list[Record]:
    """The records of the results files and folders given (missing ones hold none)."""
    paths: list[Path] = []
    for source in sources:
        paths += results.results_files(source) if source.is_dir() else [source]
    found, problems = results.read_all(paths)
    for problem in problems:
        say(f"warning: {problem}")
    return found


def pick(prefix: str, records: Sequence[Record], where: str) -> Record | None:
    """The one record whose key starts with ``prefix``; None when none does."""
    matches = [r for r in records if str(r["key"]).startswith(prefix)]
    if len(matches) > 1:
        shown = ", ".join(str(r["key"])[:16] + "…" for r in matches[:5])
        more = f" and {len(matches) - 5} more" if len(matches) > 5 else ""
        raise RecordError(
            f"{len(matches)} games in {where} have keys starting with {prefix!r} ({shown}"
            f"{more}). Fix: give more characters of the key."
        )
    return matches[0] if matches else None


def find_record(
    name: str, sources: Sequence[Path], say: Say, fetch: Fetch = publish.fetch_url
) -> Record:
    """The record ``name`` names (see the module docstring); RecordError otherwise."""
    if name.lstrip().startswith("{"):
        return from_line(name)
    prefix = prefix_of(name)
    where = " and ".join(str(s) for s in sources) or "no results file"
    found = pick(prefix, read_sources(sources, say), where)
    if found is not None:
        return found
    site = _site_of(name.strip())
    if site is not None:
        published = _published(site, fetch)
        found = pick(prefix, published, site + publish.GAMES)
        if found is not None:
            say(f"found game {prefix} in the records published at {site}")
            return found
        where += f", nor in {site}{publish.GAMES}"
    raise RecordError(
        f"no recorded game's key starts with {prefix!r} in {where}. Fix: pass the results "
        "file that holds it with --results FILE (a season's results/games.jsonl, or the "
        "games.jsonl published beside its site), or give the game page's address."
    )


def _published(site: str, fetch: Fetch) -> list[Record]:
    try:
        data = fetch(site + publish.GAMES, publish.GAMES_CAP)
    except (OSError, ValueError) as exc:
        raise RecordError(
            f"the records published at {site} could not be fetched ({exc}). Fix: download "
            f"{site}{publish.GAMES} yourself and pass it with --results FILE."
        ) from None
    if data is None:
        return []
    records, _ = publish._parse(data)
    return list(records)
