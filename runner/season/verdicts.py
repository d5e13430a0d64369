"""Build-and-check verdicts in a file: judged once, used by every shard.

``koth check --out verdicts.json`` writes every entry's verdict (plays, or excluded with the
stage and the reason); ``koth play-season``, ``koth schedule`` and ``koth standings`` take it
with ``--verdicts verdicts.json`` instead of checking the entries themselves. The season
workflow checks in its plan job and hands the file to every shard, so a bot that fails on
timing cannot be excluded in one shard and play in another: every shard plays the same field.

The entries are still built where they are played (the build is cached and gives the bot to
run); the file decides only who plays. It comes from another machine, so it is read as a
stranger's input: its shape, sizes and stages are checked, it must name exactly the entries
checked out here, with their content hashes, and have been made for this game, sandbox and
limits; an entry it says plays must build here too. Anything else is a ``VerdictsError``: one
paragraph naming the file, what is wrong and the fix. Only the entry names, the verdicts and
their texts are taken from it; what runs (the build, the program) is always this machine's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from runner.common.documents import load_json
from runner.common.safefiles import UnsafeFileError, read_regular
from runner.season.build import Build
from runner.season.check import CHECK_VERSION, Lineup, Verdict
from runner.season.config import Config
from runner.season.entries import discover

FORMAT = "koth-verdicts"
VERSION = 1
FILE_CAP = 16 << 20
MESSAGE_CAP = 64 << 10
DISPLAY_NAME_CAP = 200
STAGE = re.compile(r"^[a-z][a-z_-]{0,31}\Z")
HASH = re.compile(r"^[0-9a-f]{64}\Z")
FIELDS = {"entry", "content_hash", "ok", "stage", "message", "display_name"}
FIX = "make it again with `koth check --out FILE` from the same commit and settings"


class VerdictsError(Exception):
    """The verdicts file cannot be used; one paragraph naming the file, the problem, the fix."""


@dataclass(frozen=True)
class Filed:
    """One entry's verdict as the file states it."""

    entry: str
    content_hash: str
    ok: bool
    stage: str
    message: str
    display_name: str


def identity(config: Config) -> dict[str, Any]:
    """What a verdict depends on besides the entry: the game, the sandbox, the check, limits."""
    found = {
        "game": config.game,
        "sandbox": config.sandbox,
        "check": CHECK_VERSION,
        "limits": asdict(config.limits),
    }
    result: dict[str, Any] = json.loads(json.dumps(found))  # as it reads back from the file
    return result


def write(path: Path, config: Config, verdicts: Sequence[Verdict]) -> None:
    """Write ``verdicts`` (``koth check --out``), atomically."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        **identity(config),
        "entries": [
            {
                "entry": v.entry,
                "content_hash": v.content_hash,
                "ok": v.ok,
                "stage": v.stage,
                "message": v.message[:MESSAGE_CAP],
                "display_name": v.display_name[:DISPLAY_NAME_CAP],
            }
            for v in verdicts
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _fail(path: Path, problem: str, fix: str = FIX) -> VerdictsError:
    return VerdictsError(f"{path}: {problem}. Fix: {fix}.")


def _entry(path: Path, number: int, raw: Any) -> Filed:
    where = f"entries[{number}]"
    if not isinstance(raw, dict) or set(raw) != FIELDS:
        raise _fail(path, f"{where} must be an object with exactly the fields {sorted(FIELDS)}")
    name, digest, ok = raw["entry"], raw["content_hash"], raw["ok"]
    stage, message, shown = raw["stage"], raw["message"], raw["display_name"]
    if not isinstance(name, str) or not name or "/" in name or "\0" in name or len(name) > 255:
        raise _fail(path, f"{where}.entry is not an entry folder name")
    if not isinstance(digest, str) or not HASH.match(digest):
        raise _fail(path, f"{where}.content_hash is not a sha256 in hex")
    if not isinstance(ok, bool) or not isinstance(stage, str) or not STAGE.match(stage):
        raise _fail(path, f"{where}: `ok` must be true or false and `stage` a short lowercase word")
    if ok != (stage == "ok"):
        raise _fail(path, f"{where}: `ok` is {str(ok).lower()} but `stage` is {stage!r}")
    if not isinstance(message, str) or len(message) > MESSAGE_CAP:
        raise _fail(path, f"{where}.message must be text of at most {MESSAGE_CAP} characters")
    if not isinstance(shown, str) or len(shown) > DISPLAY_NAME_CAP:
        raise _fail(path, f"{where}.display_name must be text of at most {DISPLAY_NAME_CAP}")
    return Filed(name, digest, ok, stage, message, shown)


def read(path: Path, config: Config) -> dict[str, Filed]:
    """The file's verdicts by entry name, checked for shape and for this season's settings."""
    try:
        data = read_regular(path, FILE_CAP, "it")
    except OSError as exc:
        raise _fail(
            path, f"cannot be read ({exc.strerror or exc})", "write it with `koth check --out`"
        ) from None
    except UnsafeFileError as exc:  # not a regular file (a FIFO), or larger than FILE_CAP
        raise _fail(path, f"cannot be used: {exc}", "write it with `koth check --out`") from None
    try:
        doc = load_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _fail(path, f"is not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise _fail(path, f"is not a verdicts file (format {FORMAT!r}, version {VERSION})")
    for key, wanted in identity(config).items():
        if doc.get(key) != wanted:
            raise _fail(
                path,
                f"was made for another {key} ({json.dumps(doc.get(key))}; this season's is "
                f"{json.dumps(wanted)})",
            )
    entries = doc.get("entries")
    if not isinstance(entries, list):
        raise _fail(path, "`entries` must be a list")
    filed: dict[str, Filed] = {}
    for number, raw in enumerate(entries):
        verdict = _entry(path, number, raw)
        if verdict.entry in filed:
            raise _fail(path, f"names the entry {verdict.entry!r} twice")
        filed[verdict.entry] = verdict
    return filed


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in sorted(names))


def lineup(
    config: Config,
    path: Path,
    build_all: Callable[[], Sequence[Build]],
    say: Callable[[str], None] = lambda text: None,
) -> Lineup:
    """Who plays, as the file says, with the bots ``build_all`` builds here (called once the
    file is found to match the entries checked out here); raises VerdictsError."""
    filed = read(path, config)
    present = {entry.name: entry.content_hash for entry in discover(config.entries)}
    missing, extra = set(present) - set(filed), set(filed) - set(present)
    if missing or extra:
        parts = [f"no verdict for {_names(list(missing))}"] if missing else []
        parts += [f"verdicts for entries not here: {_names(list(extra))}"] if extra else []
        raise _fail(path, f"does not match the entries in {config.entries}/ ({'; '.join(parts)})")
    for name, digest in present.items():
        if filed[name].content_hash != digest:
            raise _fail(
                path,
                f"judged another version of the entry {name!r} (content hash "
                f"{filed[name].content_hash[:12]}…, here {digest[:12]}…)",
            )
    verdicts = []
    for build in build_all():
        verdict = filed.get(build.entry)
        if verdict is None or verdict.content_hash != build.content_hash:
            raise _fail(path, f"does not match the entry {build.entry!r} as built here")
        if verdict.ok and not build.ok:
            raise _fail(
                path,
                f"says the entry {build.entry!r} plays, but it does not build here "
                f"({build.stage}: {build.message.strip()[:300]})",
                "run again (a build that fails on one machine only is a host problem); if it "
                "persists, check the entry with `koth build`",
            )
        if verdict.ok:
            program = tuple(build.program) if build.program else None
            verdicts.append(
                Verdict(
                    build.entry,
                    build.content_hash,
                    True,
                    "ok",
                    build.message,
                    build.display_name,
                    build.jail,
                    program,
                    language=build.language,
                )
            )
        else:
            shown = verdict.display_name or build.entry
            stage, message = verdict.stage, verdict.message
            verdicts.append(
                Verdict(build.entry, build.content_hash, False, stage, message, shown, None)
            )
    excluded = [v.entry for v in verdicts if not v.ok]
    say(
        f"entries: {len(verdicts)} found, {len(verdicts) - len(excluded)} play"
        + (f", excluded: {', '.join(excluded)}" if excluded else "")
        + f" (the verdicts in {path})"
    )
    return Lineup(verdicts)


__all__ = ["Filed", "VerdictsError", "identity", "lineup", "read", "write"]
