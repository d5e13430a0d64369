"""Game records: one JSON line per game, appended atomically, keyed, merged across shards.

A record is ``GameResult.to_dict()`` plus ``key``, ``season_seed``, ``round`` and
``host_version``; under ``measured`` is only what varies between runs (``cpu_s``, ``wall_s`` and
``when``, a UTC timestamp). Everything else is the same whenever the same inputs are played.

The key is sha256 over the game id (which is also the rules version), the seats (entry name and
content hash, X first) and the game seed. The seed is derived from the season's secret and seed,
the round and the seats with their content hashes (runner/season/formats/base.py), so a key changes
exactly when the game that would be played changes: editing an entry re-keys only its games.

Size. Every game played within the rules is recorded and read back: the size a record of a game
can reach follows from its rules and limits (``record_cap``: its longest game, its seats, the
longest move text its rules write, the texts a record keeps clipped: each fault's reason to
DETAIL_IN_RECORD characters, the outcome's to OUTCOME_DETAIL_IN_RECORD, a bot's name and output
excerpt), and the reader takes a line of up to the largest game's cap. The writer refuses a
record longer than its game's cap (RecordTooLong, naming the game) rather than write a line that
would be skipped and played again on every run; a line the reader cannot take is skipped with a
warning that names its game, as far as its first bytes tell it.

Writing: one record is one ``os.write`` of one line to a file opened with O_APPEND; the file is
fsynced at most every SYNC_EVERY_S and when the writer closes. A kill (even -9) loses nothing
written: the kernel has it. A power loss or a crash of the machine can lose the records written
since the last fsync, all within SYNC_EVERY_S of it, which the next run plays again (same inputs,
same records). A kill can at worst leave a torn last line; the reader skips it (and says so),
and the next writer cuts it off before appending. Reading dedupes by key (the first record of a
key wins), so re-reading, merging shards or re-running never duplicates a game.
"""

from __future__ import annotations

import errno
import fcntl
import gc
import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii as _quoted
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from runner import __version__
from runner.common.documents import ShapeError, finite_number, load_json
from runner.common.safefiles import replacing
from runner.games import GAMES
from runner.games.base import EMPTY, Setup, Termination
from runner.games.spec import GameSpec, placement_from_order, points_for
from runner.play.playback import outcome_problem
from runner.season.config import ConfigError, SetupSpec
from runner.season.entries import NAME_PATTERN

# The record format's version (runner/results_key.py hashes it): raise it when a change to this
# module means records written before must not be reused, though they still read.
FORMAT = 1
Record = dict[str, Any]  # one game's record, as a JSON object (``check_record`` says its shape)
RecordView = Mapping[str, Any]  # a record only read, never changed
MAIN_FILE = "games.jsonl"
DETAIL_IN_RECORD = 300  # characters of one fault's reason kept in a record
OUTCOME_DETAIL_IN_RECORD = 2000  # characters of the outcome's sentence kept
NAME_IN_RECORD = 200  # characters of a bot's display name kept
# Bytes of a record besides its seats, moves and faults (the key, game, seeds, round, setup, host
# version, the outcome with its sentence, measured's time and date), each character of text at
# most 6 bytes as JSON (a control character's \u00XX).
HEAD_BYTES = 32 << 10
# Per seat: its entry, content hash and display name, its output excerpt (runner/play/referee.py
# keeps 2,000 characters and a line saying how many were left out), its CPU time, points and score.
SEAT_BYTES = 16 << 10
FAULT_BYTES = 6 * DETAIL_IN_RECORD + 128  # one fault: seat, turns, ending and reason
# An fsync is a flush of the virtual disk, ~0.5 ms apiece on a VM with both cores busy; one per
# record cost the 16-entry season's 240 quick games ~0.03 s of the play stage and ~0.05 s of the
# machine's CPU. Synced at most this often, what a power loss can cost is games played again.
SYNC_EVERY_S = 0.25


def record_key(
    game_id: str,
    seats: Sequence[tuple[str, str]],
    seed: int,
    setup: Mapping[str, str] | None = None,
) -> str:
    """The key of a game: ``seats`` is (entry name, content hash) per seat, X first; ``setup``
    ({"name", "hash"}) only for a game played with a per-game setup, so other keys never change."""
    # json.dumps({"game", "rules", "seats", "seed", "setup"}, sort_keys=True, separators=(",",
    # ":")), written out: every record read and every game scheduled has its key worked out
    # (tests/test_results.py holds the two to the same text)
    game = _quoted(game_id)
    seated = ",".join(f"[{_quoted(name)},{_quoted(digest)}]" for name, digest in seats)
    text = f'{{"game":{game},"rules":{game},"seats":[{seated}],"seed":{int(seed)!r}'
    if setup is not None:
        text += f',"setup":{{"hash":{_quoted(setup["hash"])},"name":{_quoted(setup["name"])}}}'
    return hashlib.sha256((text + "}").encode()).hexdigest()


def record_cap(spec: GameSpec, steps: int | None = None) -> int:
    """The most bytes a record of a game of ``spec`` can take, within its rules and the host's
    limits: its longest game (``max_moves`` steps, or ``steps``) at its most seats, every step at
    the longest move text (``max_move_bytes``), in a game of more than two seats a fault for every
    seat at every step (a fault there costs a turn, or puts the seat out), its texts as clipped."""
    info, seats = spec.info, spec.info.max_players
    steps = info.max_moves if steps is None else steps
    move = info.max_move_bytes + 1  # and its comma (or null for a seat that did not move)
    moves = steps * (seats * move + 2 if spec.records_turns else move)
    faults = (steps + 1) * seats * FAULT_BYTES if seats > 2 else 0
    return HEAD_BYTES + seats * SEAT_BYTES + moves + faults


RECORD_CAPS = {game_id: record_cap(spec) for game_id, spec in GAMES.items()}
LINE_CAP = max(RECORD_CAPS.values())  # the longest line the reader takes: the largest game's


def game_cap(game_id: str) -> int:
    """The cap of a record of ``game_id`` (a game registered after this module was loaded, a
    test's, worked out now; an unknown one, the reader's)."""
    cap = RECORD_CAPS.get(game_id)
    if cap is None:
        spec = GAMES.get(game_id)
        cap = record_cap(spec) if spec is not None else LINE_CAP
    return cap


class RecordTooLong(ValueError):
    """A record longer than its game can make (a bound in ``record_cap`` is wrong); one line
    naming the game."""


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def make_record(
    result: Mapping[str, Any],
    *,
    key: str,
    season_seed: int,
    round_: int,
    when: str,
    setup: Mapping[str, str] | None = None,
) -> Record:
    """A results record from ``GameResult.to_dict()`` and the game's place in the season (and
    its setup's name and hash, for a game played with one)."""
    record: Record = {"key": key}
    record.update((k, v) for k, v in result.items() if k != "measured")
    _clip_texts(record)
    record.update(season_seed=season_seed, round=round_, host_version=__version__)
    if setup is not None:
        record["setup"] = {"name": setup["name"], "hash": setup["hash"]}
    record["measured"] = {**result.get("measured", {}), "when": when}
    return record


def clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_texts(record: Record) -> None:
    """Clip what a bot's words can lengthen (a reason quoting its reply, its name) to the
    lengths ``record_cap`` counts on, in copies of the parts changed."""
    outcome = dict(record["outcome"])
    outcome["detail"] = clipped(str(outcome.get("detail", "")), OUTCOME_DETAIL_IN_RECORD)
    if outcome.get("faults"):
        outcome["faults"] = [
            {**f, "detail": clipped(str(f.get("detail", "")), DETAIL_IN_RECORD)}
            for f in outcome["faults"]
        ]
    record["outcome"] = outcome
    record["seats"] = [
        {**seat, "name": clipped(str(seat.get("name", "")), NAME_IN_RECORD)}
        for seat in record["seats"]
    ]


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


HEX64 = re.compile(r"[0-9a-f]{64}")
TERMINATIONS = {t.value: t for t in Termination}


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def places(record: Mapping[str, Any]) -> list[int]:
    """Each seat's place in a (checked) record, 1 first, tied seats sharing the better place:
    ``outcome.placement`` when the record has one (games of more than two seats), else read from
    the points (more points, better place; equal points, a shared place)."""
    outcome = record["outcome"]
    placement = outcome.get("placement")
    if placement:
        return [int(p) for p in placement]
    return list(placement_from_order([float(p) for p in outcome["points"]]))


def _placement_problem(placement: Any, points: list[float]) -> str | None:
    """Whether ``placement`` is a placement of these seats that the points agree with."""
    if not isinstance(placement, list) or len(placement) != len(points):
        return "its `placement` is not one place per seat"
    if not all(_integer(p) for p in placement):
        return "its `placement` is not whole numbers"
    if tuple(placement) != placement_from_order([-p for p in placement]):
        return f"its placement {placement} is not places 1, 2, ... with ties sharing the better one"
    if tuple(placement) != placement_from_order(points):  # points are checked on their own
        return f"its placement {placement} disagrees with its points"
    return None


def _faults_problem(faults: Any, seats: int) -> str | None:
    """Whether ``faults`` is a list of faults of seats of the game (see the module docstring)."""
    if not isinstance(faults, list):
        return "its `faults` is not a list"
    for fault in faults:
        if not isinstance(fault, dict) or not _integer(fault.get("seat")):
            return "a fault of its `faults` names no seat"
        if not 0 <= fault["seat"] < seats:
            return f"a fault of its `faults` names seat {fault['seat']}, not a seat of the game"
        if not _integer(fault.get("turn", 0)) or fault.get("turn", 0) < 0:
            return "a fault of its `faults` has a `turn` that is not a turn"
        if not _integer(fault.get("at", 0)) or fault.get("at", 0) < 0:
            return "a fault of its `faults` has an `at` that is not a turn of its moves"
        kind = TERMINATIONS.get(fault.get("termination"))  # type: ignore[arg-type]
        if kind is None or not kind.is_fault:
            return f"a fault of its `faults` has the ending {fault.get('termination')!r}"
        if not isinstance(fault.get("detail", ""), str):
            return "a fault of its `faults` has a `detail` that is not text"
    return None


def _points_problem(points: list[float], termination: Termination, faulty: Any) -> str | None:
    """Whether the rules can give these points with this ending (see runner/games/spec.py)."""
    shown = "[" + ", ".join(f"{p:g}" for p in points) + "]"
    if faulty is not None:
        if not _integer(faulty) or not 0 <= faulty < len(points):
            return f"its `faulty` seat {faulty!r} is not a seat of the game"
        if points[faulty] != 0:
            return f"its points {shown} give the faulty seat {faulty} more than 0"
    if len(points) == 2:
        if termination.is_fault != (faulty is not None):
            return f"its termination `{termination.value}` and its `faulty` {faulty!r} disagree"
        if faulty is not None and points[1 - faulty] != 1:
            return f"its points {shown} are not a loss for the faulty seat and a win for the other"
        if (points[0], points[1]) not in ((1, 0), (0, 1), (0.5, 0.5)):
            return f"its points {shown} are none of win 1 / loss 0 or a draw of 0.5 each"
        return None
    if tuple(points) != points_for(placement_from_order(points)):
        return f"its points {shown} are not points the rules give for any placement"
    return None


def check_record(record: Any) -> str | None:
    """Why a parsed line is not a record this host could have written, or None.

    Every reader of records uses this (results files, shards, the cache a workflow restores,
    merges, and through them standings, the site and a PR's preview): a record travels through
    caches and artefacts, so it is input from a stranger. Checked: the shape and types; a known
    game; the seat count that game allows; finite numbers; a known termination; points the
    rules can give with that termination (two seats: 1/0, 0/1 or ½/½, and a fault is the faulty
    seat's loss; more seats: the default table's points of a placement); a ``placement``, when
    there is one, that is places 1, 2, ... (ties sharing the better place) agreeing with the
    points; ``faults``, when there are any, naming seats of the game and faulty endings; and the
    key, recomputed from the game, the seats and the seed.
    """
    if not isinstance(record, dict):
        return "it is not a JSON object"
    problem = _header_problem(record) or _seats_problem(record) or _outcome_problem(record)
    if problem:
        return problem
    measured = record.get("measured", {})
    if not isinstance(measured, dict) or not _measured_ok(measured):
        return "its `measured` part is malformed"
    setup = record.get("setup")
    if setup is not None and not _setup_ok(setup):
        return "its `setup` is not a setup's name and hash"
    seats = [(s["entry"], s["hash"]) for s in record["seats"]]
    if record["key"] != record_key(record["game"], seats, record["seed"], setup):
        return "its `key` is not the key of its game, seats and seed"
    return None


def _header_problem(record: dict[str, Any]) -> str | None:
    """The key, round, game, seeds and host version."""
    key = record.get("key")
    if not isinstance(key, str) or not _integer(record.get("round")):
        return "it has no `key` or `round`"
    if not HEX64.fullmatch(key) or record["round"] < 0:
        return "its `key` or `round` is malformed"
    game_id = record.get("game")
    if not isinstance(game_id, str) or game_id not in GAMES:
        return f"its game {game_id!r} is not a known game"
    if not _integer(record.get("seed")) or not _integer(record.get("season_seed")):
        return "its `seed` or `season_seed` is not a whole number"
    if not isinstance(record.get("host_version"), str):
        return "its `host_version` is not text"
    return None


def _seat_ok(seat: Any) -> bool:
    return (
        isinstance(seat, dict)
        and isinstance(seat.get("entry"), str)
        and bool(NAME_PATTERN.match(seat["entry"]))
        and isinstance(seat.get("hash"), str)
        and bool(HEX64.fullmatch(seat["hash"]))
        and isinstance(seat.get("name", ""), str)
    )


def _seats_problem(record: dict[str, Any]) -> str | None:
    """The seats (as many as the game allows) and the moves."""
    game_id = record["game"]
    spec = GAMES[game_id]
    info = spec.info
    seats = record.get("seats")
    if not isinstance(seats, list) or not all(_seat_ok(s) for s in seats):
        return "its `seats` are malformed"
    if not info.allows(len(seats)):
        counts = info.seat_counts or range(info.min_players, info.max_players + 1)
        allowed = ", ".join(map(str, counts))
        return f"it has {len(seats)} seat(s), but {game_id} is played by {allowed}"
    return _moves_problem(record.get("moves"), len(seats), spec.records_turns, info.max_moves)


def _moves_problem(moves: Any, seats: int, by_turn: bool, max_moves: int) -> str | None:
    """Moves one after another (text), or turn by turn: a list per turn of each seat's move
    (text, or null for a seat that did not move)."""
    if isinstance(moves, str) and not by_turn:
        ok = True  # a move a character: each is text (and as many as there are characters)
    elif not isinstance(moves, list):
        return "its `moves` are malformed"
    elif by_turn:
        ok = all(
            isinstance(turn, list)
            and len(turn) == seats
            and all(m is None or isinstance(m, str) for m in turn)
            for turn in moves
        )
    else:
        ok = all(isinstance(m, str) for m in moves)
    if not ok:
        return "its `moves` are malformed"
    if len(moves) > max_moves * (1 if by_turn else seats):
        return f"it has more moves ({len(moves)}) than a game of it can"
    return None


def _outcome_problem(record: dict[str, Any]) -> str | None:
    """The outcome: points, scores, termination, detail, placement and faults."""
    outcome = record.get("outcome")
    if not isinstance(outcome, dict) or not isinstance(outcome.get("points"), list):
        return "its `outcome` is malformed"
    seats = len(record["seats"])
    points = outcome["points"]
    if len(points) != seats or not all(finite_number(p) for p in points):
        return "its points are not one finite number per seat"
    scores = outcome.get("scores", [])
    if not isinstance(scores, list) or not all(finite_number(p) for p in scores):
        return "its scores are not finite numbers"
    if scores and len(scores) != seats:
        return "its scores are not one number per seat"
    termination = TERMINATIONS.get(outcome.get("termination"))  # type: ignore[arg-type]
    if termination is None:
        return f"its termination {outcome.get('termination')!r} is not a known ending"
    if not isinstance(outcome.get("detail", ""), str):
        return "its `detail` is not text"
    points = [float(p) for p in points]
    problem = _points_problem(points, termination, outcome.get("faulty"))
    if problem is None and "placement" in outcome:
        problem = _placement_problem(outcome["placement"], points)
    if problem is None and "faults" in outcome:
        problem = _faults_problem(outcome["faults"], seats)
    return problem


def _setup_ok(setup: Any) -> bool:
    return (
        isinstance(setup, dict)
        and set(setup) == {"name", "hash"}
        and isinstance(setup["name"], str)
        and NAME_PATTERN.match(setup["name"]) is not None
        and isinstance(setup["hash"], str)
        and HEX64.fullmatch(setup["hash"]) is not None
    )


def _measured_ok(measured: dict[str, Any]) -> bool:
    if not isinstance(measured.get("when", ""), str):
        return False
    if not finite_number(measured.get("wall_s", 0)):
        return False
    cpu, output = measured.get("cpu_s", []), measured.get("output", [])
    if not isinstance(cpu, list) or not all(finite_number(c) for c in cpu):
        return False
    return isinstance(output, list) and all(isinstance(o, str) for o in output)


def _open_regular(path: Path, flags: int) -> int:
    """A results file, opened without following a link; a ConfigError for anything but a regular
    file (a results folder may come from a cache: a link or FIFO there is a stranger's)."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    return fd


def _results_error(path: Path, exc: OSError) -> ConfigError:
    what = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
    return ConfigError(
        str(path),
        "",
        f"cannot be used as a results file: {what}.",
        "results files must be regular files koth wrote; remove it and run again.",
    )


class _Overlong(bytes):
    """The first bytes of a line longer than LINE_CAP (the rest was skipped, never held)."""


def _lines(handle: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """Each line without its newline (an ``_Overlong`` of its start: longer than LINE_CAP) and
    whether it ended with a newline."""
    while True:
        line = handle.readline(LINE_CAP + 1)
        if not line:
            return
        ended = line.endswith(b"\n")
        if len(line) - ended <= LINE_CAP:
            yield (line[:-1] if ended else line), ended
            continue
        while not ended:
            rest = handle.readline(1 << 16)
            if not rest:
                break
            ended = rest.endswith(b"\n")
        yield _Overlong(line[:200]), ended


_GAME_AT_START = re.compile(rb'"game":"([a-z0-9-]{1,40})"')


def _game_of(start: bytes) -> str:
    """The words naming the game a line's first bytes name (a record of GAME), or ""."""
    found = _GAME_AT_START.search(start)
    return f" (a record of {found[1].decode()}, its first bytes say)" if found else ""


def _read_line(line: bytes) -> tuple[Record | None, str | None]:
    """A line's record, or why it is none."""
    if isinstance(line, _Overlong):
        return (
            None,
            f"it is longer than {LINE_CAP} bytes, more than any game's record{_game_of(line)}",
        )
    try:
        record = load_json(line)
        problem = check_record(record)
    except ShapeError as exc:  # too deep, a huge number, text that is not Unicode
        return None, str(exc)
    except ValueError:
        return None, "it is not valid JSON"
    if problem is None and len(line) > game_cap(record["game"]):
        problem = f"it is longer than any record of {record['game']} can be"
    return (record, None) if problem is None else (None, problem)


def read_records(
    path: Path,
    lines: list[bytes] | None = None,
    skipped: list[tuple[int, str]] | None = None,
    trusted: Mapping[int, str] | None = None,
) -> tuple[list[Record], list[str]]:
    """The records of one file, in file order, and a sentence for each line that was skipped
    (``lines``, if given: each record's line, as read, in the same order; ``skipped``: each
    skipped line's number and sentence). ``trusted``: this very file was read so before, and
    these lines (number → sentence) were skipped then; every other line is parsed, not checked
    again (``vouched``).

    A missing file has no records. A line that is not a valid record (check_record), or longer
    than a record of its game can be, is skipped, never fatal; the last line is expected to be
    torn after a kill. The file is read a line at a time, at most LINE_CAP bytes of a line are
    held, and a path that is not a regular file (a link, a FIFO) is refused without being read.
    """
    try:
        fd = _open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [str(_results_error(path, exc))]
    with os.fdopen(fd, "rb") as handle:
        if trusted is not None:
            return _read_trusted(handle, trusted, lines)
        return _read_checked(path, handle, lines, skipped)


def _read_checked(
    path: Path,
    handle: BinaryIO,
    lines: list[bytes] | None,
    skipped: list[tuple[int, str]] | None,
) -> tuple[list[Record], list[str]]:
    """``read_records`` of a file read for the first time: every line checked."""
    records: list[Record] = []
    problems: list[str] = []
    for number, (line, ended) in enumerate(_lines(handle), 1):
        record, problem = _read_line(line)
        if record is not None:
            records.append(record)
            if lines is not None:
                lines.append(line)
            continue
        if not ended:
            said = (
                f"{path}: the last line is incomplete (a write was interrupted); it "
                "is ignored and its game will be played again."
            )
        else:
            said = f"{path}: line {number} is skipped because {problem}."
        problems.append(said)
        if skipped is not None:
            skipped.append((number, said))
    return records, problems


TRUSTED_BATCH = 1000  # lines of a file read before parsed as one JSON array


def _read_trusted(
    handle: BinaryIO, trusted: Mapping[int, str], lines: list[bytes] | None
) -> tuple[list[Record], list[str]]:
    """``read_records`` of a file read before (``trusted``: the lines skipped then): each other
    line is one record, so a thousand of them are parsed at once as one JSON array, which makes
    the keys of their objects once (a third faster, and a third less memory a record)."""
    records: list[Record] = []
    problems: list[str] = []
    batch: list[bytes] = []
    for number, (line, _) in enumerate(_lines(handle), 1):
        said = trusted.get(number)
        if said is not None:
            problems.append(said)
            continue
        batch.append(line)
        if lines is not None:
            lines.append(line)
        if len(batch) == TRUSTED_BATCH:
            records += json.loads(b"[" + b",".join(batch) + b"]")
            batch.clear()
    records += json.loads(b"[" + b",".join(batch) + b"]")
    return records, problems


def results_files(folder: Path) -> list[Path]:
    """Every *.jsonl file of a results folder, sorted by name."""
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


Judge = Callable[[RecordView], str | None]  # why a record is not believed, or None


def reproduced(setups: Iterable[SetupSpec] = ()) -> Judge:
    """Whether the rules reproduce a record's outcome from its moves (runner/play/playback.py): a
    record travels through caches and published sites, and a forged one (points that contradict
    its moves) would otherwise change the standings, which never play the moves again.
    ``setups`` are the season's; a record of a setup not among them is not a game of this
    season, and is left to whoever knows its setup."""
    known: dict[tuple[str, str], Setup] = {(s.name, s.hash): s.as_dict() for s in setups}

    def judge(record: RecordView) -> str | None:
        named = record.get("setup")
        setup = known.get((named["name"], named["hash"])) if named else EMPTY
        return None if setup is None else outcome_problem(GAMES[record["game"]], record, setup)

    return judge


def refusal(path: Path, record: RecordView, problem: str) -> str:
    """The warning for a record whose outcome the rules do not reproduce, naming it."""
    seats = " v ".join(str(s["entry"]) for s in record["seats"])
    return (
        f"{path}: the record of game {record['key'][:12]} ({record['game']}, {seats}, seed "
        f"{record['seed']}) is refused: {problem}; its game will be played again."
    )


@contextmanager
def _no_collections() -> Iterator[None]:
    """The cyclic garbage collector paused: records hold no cycles, and a season's hundreds of
    thousands of them would be scanned again and again as they pile up (a quarter of the time
    reading them takes)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


@_no_collections()
def read_all(
    paths: Iterable[Path],
    judge: Judge | None = None,
    reading: Reading | None = None,
    lines: dict[str, bytes] | None = None,
    vouch: Vouched | None = None,
) -> tuple[list[Record], list[str]]:
    """The records of several files, deduped by key (the first believed wins), and every
    problem seen; with ``judge``, a record it refuses is left out (said, and noted in
    ``reading`` if given, with every line skipped), so a forged record cannot shadow a true one
    of the same key. ``lines``, if given: each record's line as read, by key (written out again
    as it is). ``vouch``: what a reader of these very files judged (``vouched``), believed."""
    seen: set[str] = set()
    records: list[Record] = []
    problems: list[str] = []
    if vouch is not None:
        judge = vouch.judge
    for file, path in enumerate(paths):
        read: list[bytes] | None = [] if lines is not None else None
        skipped: list[tuple[int, str]] = []
        trusted = vouch.skipped[file] if vouch is not None else None
        found, trouble = read_records(path, read, skipped, trusted)
        problems += trouble
        if reading is not None:
            reading.skipped += [(file, number, said) for number, said in skipped]
        for number, record in enumerate(found):
            if record["key"] in seen:
                continue
            problem = judge(record) if judge is not None else None
            if problem is not None:
                problems.append(refusal(path, record, problem))
                if reading is not None:
                    reading.refused.append((record["key"], record_digest(record), problem))
                continue
            seen.add(record["key"])
            records.append(record)
            if lines is not None and read is not None:
                lines[record["key"]] = read[number]
    return records, problems


# -- judged once: what the standings vouch for, so the site need not play the moves again ------

Refused = tuple[str, str, str]  # a record the rules refused: its key, its digest, why


@dataclass
class Reading:
    """What reading results files met, for a later reader of the very same bytes: the records
    refused, and the lines skipped (file number in the order read, line number, the sentence)."""

    refused: list[Refused] = field(default_factory=list)
    skipped: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Vouched:
    """What a reader of the very same files judged: ``judge`` refuses what it refused, and
    ``skipped`` holds, per file, the lines it skipped (number → sentence)."""

    judge: Judge
    skipped: list[dict[int, str]]


def record_digest(record: Mapping[str, Any]) -> str:
    """sha256 of a record as JSON (its keys sorted): which record of a key was refused."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def file_digests(paths: Iterable[Path]) -> list[str]:
    """sha256 of each file's bytes, in order (a file that cannot be read: empty)."""
    found = []
    for path in paths:
        digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
            found.append(digest.hexdigest())
        except OSError:
            found.append("")
    return found


def judged(paths: Sequence[Path], reading: Reading, koth: str) -> dict[str, Any]:
    """What a reader that checked and judged every record of ``paths`` writes for a later one
    (standings.json's ``judged``): the code it read them with (``koth``, a digest of it), each
    file's digest, the records it refused and the lines it skipped."""
    return {
        "koth": koth,
        "files": file_digests(paths),
        "refused": [list(r) for r in reading.refused],
        "skipped": [list(s) for s in reading.skipped],
    }


def vouched(paths: Sequence[Path], doc: Mapping[str, Any] | None, koth: str) -> Vouched | None:
    """What a later reader of ``paths`` may believe instead of checking every line and playing
    every record's moves again: when ``doc`` (a ``judged`` checked by
    runner/season/standings_file.py) was written by the same code (``koth``) of files with these
    very bytes, the lines skipped then, and a judge that refuses what was refused then, by key
    and digest; else None (check and judge them all)."""
    if doc is None or doc["koth"] != koth or doc["files"] != file_digests(paths):
        return None
    refused = {(key, digest): problem for key, digest, problem in doc["refused"]}
    keys = {key for key, _ in refused}

    def judge(record: RecordView) -> str | None:
        if record["key"] not in keys:
            return None
        return refused.get((record["key"], record_digest(record)))

    skipped: list[dict[int, str]] = [{} for _ in paths]
    for file, line, said in doc["skipped"]:
        if 0 <= file < len(skipped):
            skipped[file][line] = said
    return Vouched(judge, skipped)


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
    """Appends records to one JSONL file: one os.write per record; an fsync at most every
    ``sync_every_s`` (after the write that finds the last one that long ago) and at close."""

    def __init__(self, path: Path, sync_every_s: float = SYNC_EVERY_S) -> None:
        self.path = path
        self.sync_every_s = sync_every_s
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._fd = _open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        except OSError as exc:
            raise _results_error(path, exc) from None
        self.repaired = self._cut_torn_tail()
        self._synced = time.monotonic()
        self._unsynced = False

    def _cut_torn_tail(self) -> bool:
        """Drop an incomplete last line, so the next record starts on a line of its own."""
        size = os.fstat(self._fd).st_size
        if not size or os.pread(self._fd, 1, size - 1) == b"\n":
            return False
        start = size
        while start > 0:  # back to the newline before the torn line
            chunk = os.pread(self._fd, min(1 << 16, start), start - min(1 << 16, start))
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                start = start - len(chunk) + cut + 1
                break
            start -= len(chunk)
        complete = False
        if size - start <= LINE_CAP:
            try:
                complete = check_record(load_json(os.pread(self._fd, size - start, start))) is None
            except ValueError:
                pass
        if complete:  # only the newline is missing
            os.write(self._fd, b"\n")
        else:
            os.ftruncate(self._fd, start)
        os.fsync(self._fd)
        return True

    def append(self, record: Mapping[str, Any]) -> None:
        line = _encode(record)
        cap = game_cap(str(record.get("game")))
        if len(line) - 1 > cap:  # the reader would skip it, and its game be played again
            raise RecordTooLong(
                f"the record of a game of {record.get('game')} (key {str(record.get('key'))[:12]}) "
                f"is {len(line) - 1} bytes, more than the {cap} a record of it can reach by its "
                "rules and limits: it is not written. This is koth's mistake, not the entries': "
                "please report it (runner/season/results.py, record_cap)."
            )
        written = os.write(self._fd, line)
        if written != len(line):  # a full disk: leave a torn line the reader will skip
            raise OSError(f"{self.path}: only {written} of {len(line)} bytes were written")
        self._unsynced = True
        if time.monotonic() - self._synced >= self.sync_every_s:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._fd)
        self._synced, self._unsynced = time.monotonic(), False

    def close(self) -> None:
        if self._fd >= 0:
            try:
                if self._unsynced:
                    self._sync()
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def write_atomic(
    path: Path, records: Iterable[Mapping[str, Any]], lines: Mapping[str, bytes] | None = None
) -> None:
    """Write a whole JSONL file at once: a temporary file, fsync, then os.replace. A record
    whose line ``lines`` holds (by key: as it was read) is written as that line."""
    with replacing(path) as handle:
        for record in records:
            handle.write(line_of(record, lines))


def line_of(record: Mapping[str, Any], lines: Mapping[str, bytes] | None = None) -> bytes:
    """A record's line with its newline: the one it was read from, if ``lines`` has it."""
    line = lines.get(record["key"]) if lines is not None else None
    return line + b"\n" if line is not None else _encode(record)


def merge(inputs: Sequence[Path], out: Path) -> tuple[int, list[str]]:
    """Combine result files into ``out``: deduped by key, in canonical order, every record
    whose outcome its moves do not give left out (``reproduced``; a game played with a setup,
    whose values the files do not hold, is left to the standings, which know them).

    ``out`` may be one of the inputs. Returns how many records were written and the problems
    seen while reading (skipped lines). Raises FileNotFoundError naming a missing input.
    """
    for path in inputs:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such results file")
    records, problems = read_all(inputs, reproduced())
    merged = canonical(records)
    write_atomic(out, merged)
    return len(merged), problems
