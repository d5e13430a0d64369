"""The results key: what decides a game's outcome, in one hash.

A season's records are reused from run to run (the season workflow's cache, ``koth restore``
from the published site) only under the key they were played under. A record's own key covers
its game, its seats (each entry's content hash) and its seed; the results key covers the rest
of what decides how a game ends: the rules and codec version (the game's id, and its package's
code), the walls and limits a bot plays within (the season's limits, the sandbox's code and its
image's base), how bots are started and talked to, and the record format. A change to any of
them replays every game; a change anywhere else (the site, its templates, the standings, the
schedule, the docs, a docstring of those) replays none.

Which of koth's files decide outcomes is said here and only here: ``OUTCOME`` lists them, each
with why, and ``ELSEWHERE`` every other file the runner package ships, with why not, so that a
new file is in one list or the other (tests/test_results_key.py fails on a file in neither or
both). The files are hashed as installed (a wheel has no checkout), by their path in the
package and their bytes, in order.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from runner.common import resources
from runner.season.results import FORMAT

if TYPE_CHECKING:
    from runner.season.config import Config

# Paths in the runner package of the files that decide how a game ends (``*``: any name in one
# folder; a last ``**``: everything below).
OUTCOME = (
    "games/*.py",  # the game registry, Outcome and Termination, the spec every game fills in
    "games/*/__init__.py",  # a game's spec: its limits, time allowances, codec, formats
    "games/*/rules.py",  # the rules
    "games/*/codec.py",  # what a bot is sent and how its reply is read
    "games/*/maps.py",  # Multisnake's maps
    "games/*/quick.py",  # Snakes' usual moves, played and judged in C
    "games/*/*.c",  # the rules in C
    "games/*/builtin/**",  # the built-in bots: a check's opponent, a table's filler seats
    "jail/**",  # inside the sandbox: the zygote, the walls, the C blank, the build's steps
    "sandbox/**",  # the local and Docker sandboxes: cgroups, idling, the Dockerfile, builds
    "play/referee.py",  # a game played: seats, faults and their consequences
    "play/seats.py",  # how each kind of bot is asked
    "play/cabi.py",
    "play/stdio.py",
    "play/watchdog.py",  # every byte to and from a bot under its move's limits
    "play/faults.py",  # what a bot did wrong, in the words its record keeps
    "play/quick.py",  # the usual moves asked, charged and applied in C
    "play/quick.c",
    "season/workers.py",  # the job slots games are played in (one CPU each: what a move's time is)
    "season/build.py",  # how an entry is compiled and loaded
    "season/objcheck.py",  # which compiled objects load at all
    "season/entries.py",  # the languages: an entry's files, build and run commands
    "common/native.py",  # how koth's own C (the blank, the quick loop) is compiled
    "common/languages.py",  # each language's build, run command, threads, memory and time
    "common/befunge93.c",  # the Befunge-93 interpreter a Befunge entry is built with
)
# Every other file of the package, and why it decides no outcome.
ELSEWHERE = (
    "__init__.py",  # the version, written into records; no outcome depends on it
    "py.typed",
    "common/__init__.py",  # the layers' docstrings
    "play/__init__.py",
    "season/__init__.py",
    "games/*/rules.md",  # the rules for authors, rendered on the site
    "games/*/site.css",  # a game's look on the site
    "games/*/presentation.py",  # how the site and the terminal show a game
    "games/*/golden/**",  # the tests' golden texts
    "games/*/starters/**",  # what `koth new` copies: an entry made from one is hashed as its own
    "play/playback.py",  # which records are believed: a record it refuses is played again anyway
    "play/human.py",  # a person's seat: never in a season
    "play/terminal.py",
    "season/results.py",  # the record format: FORMAT, below, is its version
    "season/formats/**",  # which games exist and their seeds: in each record's own key
    "season/schedule.py",
    "season/playloop.py",  # which game is played next
    "season/check.py",  # who plays (a game with an excluded entry is not played at all)
    "season/verdicts.py",
    "season/config.py",  # tournament.yaml, read: the limits it gives are hashed as values
    "season/points.py",
    "season/standings_file.py",
    "season/results_key.py",
    "common/documents.py",
    "common/safefiles.py",  # an entry's files, read: its content hash is in its records' keys
    "common/resources.py",
    "common/helper_processes.py",
    "common/progress.py",
    "common/web.py",  # posting to a webhook or GitHub's API: after the games
    "rank/**",  # standings, ratings, brackets, history: read records, decide none
    "site/**",
    "tools/**",
    "cli/**",
)


def matches(name: str, pattern: str) -> bool:
    """Whether a path in the package (``games/snakes/rules.py``) is one ``pattern`` names."""
    parts, wanted = name.split("/"), pattern.split("/")
    if wanted[-1] == "**":
        return len(parts) >= len(wanted) and matches(
            "/".join(parts[: len(wanted) - 1]), "/".join(wanted[:-1])
        )
    return len(parts) == len(wanted) and all(map(fnmatchcase, parts, wanted))


def _shipped() -> Iterator[tuple[str, Path]]:
    """Every file of the installed runner package: its path there, and where it is."""
    root = resources.shipped("runner")
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        skipped = "__pycache__" in relative.parts or relative.parts[0] == "site_templates"
        if path.is_file() and not skipped:  # site_templates: an editable install's link, if any
            yield relative.as_posix(), path


def outcome_files() -> list[tuple[str, Path]]:
    """The files ``OUTCOME`` names, as installed, in order."""
    return [
        (name, path)
        for name, path in _shipped()
        if any(matches(name, pattern) for pattern in OUTCOME)
    ]


def host_digest() -> str:
    """sha256 over the files that decide outcomes (their paths and bytes) and the record
    format's version."""
    digest = hashlib.sha256(f"format {FORMAT}\0".encode())
    for name, path in outcome_files():
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def code_digest() -> str:
    """sha256 over every file of the installed runner package: which code read a season's
    records (standings.json's ``judged``: the site believes what the same code judged)."""
    digest = hashlib.sha256()
    for name, path in _shipped():
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def results_key(config: Config, extra: str = "") -> str:
    """The season workflow's cache key prefix: records made under another one are not reused.

    It names the rules version (the game id) and hashes, with ``host_digest``, the sandbox
    image's base and the season's limits (a move's CPU and wall-clock time, a game's CPU,
    memory: what a bot may do); ``extra``, anything else a caller wants in (``koth plan
    --host``). The record keys cover the entries and seeds.
    """
    from runner.sandbox.docker import base_image

    limits = dataclasses.asdict(config.limits)
    identity = {
        "host": host_digest(),
        "sandbox_base": base_image(),
        "limits": limits,
        **({"extra": extra} if extra else {}),
    }
    text = json.dumps(identity, sort_keys=True)
    return f"results-{config.game}-{hashlib.sha256(text.encode()).hexdigest()[:24]}"
