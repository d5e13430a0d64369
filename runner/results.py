"""Game records: one JSON line per game, appended atomically, keyed, merged across shards.

A record is ``GameResult.to_dict()`` plus ``key``, ``season_seed``, ``round`` and
``host_version``; under ``measured`` is only what varies between runs (``cpu_s``, ``wall_s`` and
``when``, a UTC timestamp). Everything else is the same whenever the same inputs are played.

The key is sha256 over the game id (which is also the rules version), the seats (entry name and
content hash, X first) and the game seed. The seed is derived from the season seed, the round and
the seats (runner/schedule.py), so a key changes exactly when the game that would be played
changes: editing an entry re-keys only its games.

Writing: one record is one ``os.write`` of one line to a file opened with O_APPEND, then fsync.
A kill can at worst leave a torn last line; the reader skips it (and says so), and the next
writer cuts it off before appending. Reading dedupes by key (the first record of a key wins), so
re-reading, merging shards or re-running never duplicates a game.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from runner import __version__

Record = dict[str, Any]
MAIN_FILE = "games.jsonl"


def record_key(game_id: str, seats: Sequence[tuple[str, str]], seed: int) -> str:
    """The key of a game: ``seats`` is (entry name, content hash) per seat, X first."""
    identity = {"game": game_id, "rules": game_id, "seats": [list(s) for s in seats], "seed": seed}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def make_record(
    result: Mapping[str, Any], *, key: str, season_seed: int, round_: int, when: str
) -> Record:
    """A results record from ``GameResult.to_dict()`` and the game's place in the season."""
    record: Record = {"key": key}
    record.update((k, v) for k, v in result.items() if k != "measured")
    record.update(season_seed=season_seed, round=round_, host_version=__version__)
    record["measured"] = {**result.get("measured", {}), "when": when}
    return record


def without_measured(record: Mapping[str, Any]) -> Record:
    return {k: v for k, v in record.items() if k != "measured"}


def _sort_key(record: Mapping[str, Any]) -> tuple[int, tuple[str, ...], str]:
    return record["round"], tuple(s["entry"] for s in record["seats"]), record["key"]


def canonical(records: Iterable[Mapping[str, Any]]) -> list[Record]:
    """Records deduped by key (first wins), sorted by (round, x, o, key)."""
    unique: dict[str, Record] = {}
    for record in records:
        unique.setdefault(record["key"], dict(record))
    return sorted(unique.values(), key=_sort_key)


def _encode(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _problem(record: Any) -> str | None:
    """Why a parsed line is not a record, or None."""
    if not isinstance(record, dict):
        return "it is not a JSON object"
    if not isinstance(record.get("key"), str) or not isinstance(record.get("round"), int):
        return "it has no `key` or `round`"
    seats = record.get("seats")
    if not isinstance(seats, list) or not all(
        isinstance(s, dict) and isinstance(s.get("entry"), str) for s in seats
    ):
        return "its `seats` are malformed"
    outcome = record.get("outcome")
    if not isinstance(outcome, dict) or not isinstance(outcome.get("points"), list):
        return "its `outcome` is malformed"
    return None


def read_records(path: Path) -> tuple[list[Record], list[str]]:
    """The records of one file, in file order, and a sentence for each line that was skipped.

    A missing file has no records. A line that is not a valid record is skipped, never fatal;
    the last line is expected to be torn after a kill.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], []
    records: list[Record] = []
    problems: list[str] = []
    lines = data.split(b"\n")
    torn_tail = lines[-1] != b""
    if not torn_tail:
        lines.pop()
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        try:
            record = json.loads(line)
            problem = _problem(record)
        except ValueError:
            problem = "it is not valid JSON"
        if problem is None:
            records.append(record)
        elif last and torn_tail:
            problems.append(
                f"{path}: the last line is incomplete (a write was interrupted); it "
                "is ignored and its game will be played again."
            )
        else:
            problems.append(f"{path}: line {number} is skipped because {problem}.")
    return records, problems


def results_files(folder: Path) -> list[Path]:
    """Every *.jsonl file of a results folder, sorted by name."""
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def read_all(paths: Iterable[Path]) -> tuple[list[Record], list[str]]:
    """The records of several files, deduped by key (the first wins), and every problem seen."""
    seen: set[str] = set()
    records: list[Record] = []
    problems: list[str] = []
    for path in paths:
        found, trouble = read_records(path)
        problems += trouble
        for record in found:
            if record["key"] not in seen:
                seen.add(record["key"])
                records.append(record)
    return records, problems


class ResultsBusy(Exception):
    """Another koth process is playing into the same results folder."""


@contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """Hold the results folder for this process (its ``.lock``); ResultsBusy, naming the holder,
    if another process holds it. The kernel lets go of the lock when its holder dies."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read(20).strip()
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise ResultsBusy(
                f"another koth command{who} is playing into {folder}/. Fix: wait for it to "
                "finish, or give this run its own results folder (`output: results:` in the "
                "config)."
            ) from None
        handle.truncate(0)
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class ResultsWriter:
    """Appends records to one JSONL file: one os.write per record, then fsync."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.repaired = self._cut_torn_tail()
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _cut_torn_tail(self) -> bool:
        """Drop an incomplete last line, so the next record starts on a line of its own."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return False
        if not data or data.endswith(b"\n"):
            return False
        start = data.rfind(b"\n") + 1
        try:
            complete = _problem(json.loads(data[start:])) is None
        except ValueError:
            complete = False
        with open(self.path, "r+b") as handle:
            if complete:  # only the newline is missing
                handle.seek(0, os.SEEK_END)
                handle.write(b"\n")
            else:
                handle.truncate(start)
            handle.flush()
            os.fsync(handle.fileno())
        return True

    def append(self, record: Mapping[str, Any]) -> None:
        line = _encode(record)
        written = os.write(self._fd, line)
        if written != len(line):  # a full disk: leave a torn line the reader will skip
            raise OSError(f"{self.path}: only {written} of {len(line)} bytes were written")
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def write_atomic(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """Write a whole JSONL file at once: a temporary file, fsync, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        for record in records:
            handle.write(_encode(record))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def merge(inputs: Sequence[Path], out: Path) -> tuple[int, list[str]]:
    """Combine result files into ``out``: deduped by key, in canonical order.

    ``out`` may be one of the inputs. Returns how many records were written and the problems
    seen while reading (skipped lines). Raises FileNotFoundError naming a missing input.
    """
    for path in inputs:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such results file")
    records, problems = read_all(inputs)
    merged = canonical(records)
    write_atomic(out, merged)
    return len(merged), problems
