"""Result records are input from strangers (they travel through caches and artefacts): every
reader checks them with runner.season.results.check_record, skips a bad one with a warning naming
the file and the line, and never believes it or raises."""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import podium
import pytest

from runner.cli import main
from runner.games.snakes import Snakes
from runner.rank.standings import rank
from runner.season import results
from runner.season.config import ConfigError
from runner.season.entries import Entrant
from runner.season.results import check_record, merge, read_all, read_records, record_key

FIXTURE = Path(__file__).parent / "fixtures" / "site"
Edit = Callable[[dict[str, Any]], None]


def fixture_records() -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (FIXTURE / "results" / "games.jsonl").read_text().splitlines()
    ]


def good() -> dict[str, Any]:
    """A real record (a crash: O faulted, X won)."""
    record = next(r for r in fixture_records() if r["outcome"]["faulty"] == 1)
    return copy.deepcopy(record)


def setter(*path: str | int, value: Any) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        target: Any = record
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def rekeyed(edit: Edit) -> Edit:
    """An edit whose forger also recomputed the key, so only the edited field is wrong."""

    def both(record: dict[str, Any]) -> None:
        edit(record)
        seats = [(s["entry"], s["hash"]) for s in record["seats"]]
        record["key"] = record_key(record["game"], seats, record["seed"])

    return both


def delete(*path: str) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        target: Any = record
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return edit


NORMAL = setter("outcome", "termination", value="normal")


def normal(points: list[Any]) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        record["outcome"].update(termination="normal", faulty=None, points=points)

    return edit


BAD: dict[str, tuple[Edit, str]] = {
    "points-0-100": (normal([0, 100]), "its points [0, 100] are none of"),
    "points-1-1": (normal([1, 1]), "are none of"),
    "points-0-0": (normal([0, 0]), "are none of"),
    "points-negative": (normal([-1, 2]), "are none of"),
    "points-text": (normal(["x", 1]), "not one finite number per seat"),
    "points-bool": (normal([True, False]), "not one finite number per seat"),
    # Not JSON's numbers: refused as the line is read (runner/common/documents.py), before its
    # check.
    "points-nan": (normal([float("nan"), 1]), "it holds NaN, which is not a finite number"),
    "points-infinite": (normal([float("inf"), 0]), "it holds Infinity, which is not a finite"),
    "points-huge": (normal([10**400, 0]), "it holds a number of 401 digits"),
    "points-three": (normal([1, 0, 0]), "not one finite number per seat"),
    "points-not-a-list": (setter("outcome", "points", value="1,0"), "`outcome` is malformed"),
    "faulty-seat-wins": (setter("outcome", "points", value=[0, 1]), "faulty seat 1 more than 0"),
    "faulty-seat-draws": (setter("outcome", "points", value=[0.5, 0.5]), "faulty seat 1"),
    "faulty-out-of-range": (setter("outcome", "faulty", value=5), "is not a seat of the game"),
    "faulty-text": (setter("outcome", "faulty", value="O"), "is not a seat of the game"),
    "fault-without-seat": (setter("outcome", "faulty", value=None), "disagree"),
    "seat-without-fault": (NORMAL, "disagree"),
    "unknown-termination": (setter("outcome", "termination", value="forfeit"), "not a known"),
    "three-seats": (
        rekeyed(lambda r: r["seats"].append(dict(r["seats"][0]))),
        f"it has 3 seat(s), but {Snakes.id} is played by 2",
    ),
    "one-seat": (rekeyed(lambda r: r["seats"].pop()), "it has 1 seat(s)"),
    "unknown-game": (setter("game", value="chess-v1"), "is not a known game"),
    "key-of-another-seed": (setter("seed", value=12345), "its `key` is not the key"),
    "key-of-another-entry": (setter("seats", 0, "entry", value="greedy"), "its `key` is not"),
    "key-of-another-hash": (setter("seats", 0, "hash", value="0" * 64), "its `key` is not"),
    "key-not-hex": (setter("key", value="zz" * 32), "`key` or `round` is malformed"),
    "entry-path": (rekeyed(setter("seats", 0, "entry", value="../x")), "`seats` are malformed"),
    "entry-newline": (rekeyed(setter("seats", 0, "entry", value="x\n")), "`seats` are malformed"),
    "hash-not-hex": (rekeyed(setter("seats", 0, "hash", value="h")), "`seats` are malformed"),
    "name-not-text": (setter("seats", 0, "name", value=["<b>"]), "`seats` are malformed"),
    "seats-not-a-list": (setter("seats", value={"entry": "x"}), "`seats` are malformed"),
    "seed-float": (setter("seed", value=1.5), "`seed` or `season_seed`"),
    "seed-bool": (setter("seed", value=True), "`seed` or `season_seed`"),
    "round-negative": (setter("round", value=-1), "`key` or `round` is malformed"),
    "round-text": (setter("round", value="1"), "no `key` or `round`"),
    "no-host-version": (delete("host_version"), "`host_version` is not text"),
    "moves-numbers": (setter("moves", value=[1, 2]), "`moves` are malformed"),
    "moves-too-many": (setter("moves", value="L" * 100_000), "more moves"),
    "scores-nan": (setter("outcome", "scores", value=[float("nan"), 1]), "not a finite number"),
    "scores-huge": (setter("outcome", "scores", value=[-(10**30), 1]), "of 31 digits"),
    "detail-not-text": (setter("outcome", "detail", value={"a": 1}), "`detail` is not text"),
    "when-not-text": (setter("measured", "when", value=5), "`measured` part is malformed"),
    "output-not-text": (setter("measured", "output", value=[1, 2]), "`measured` part"),
    "cpu-nan": (setter("measured", "cpu_s", value=[float("nan")]), "not a finite number"),
    "cpu-huge": (setter("measured", "cpu_s", value=[1e300]), "the number 1e+300, which is not"),
    "name-surrogate": (setter("seats", 0, "name", value="\ud800"), "`seats[0].name` is text"),
    "detail-surrogate": (setter("outcome", "detail", value="a\udfffb"), "not Unicode"),
    "not-an-object": (lambda r: r.clear(), "no `key` or `round`"),
}


def test_the_fixture_records_are_valid() -> None:
    for record in fixture_records():
        assert check_record(record) is None


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_record_is_skipped_with_a_warning_naming_file_and_line(
    case: str, tmp_path: Path
) -> None:
    edit, expected = BAD[case]
    bad = good()
    edit(bad)
    path = tmp_path / "games.jsonl"
    other = fixture_records()[0]
    path.write_text(json.dumps(other) + "\n" + json.dumps(bad) + "\n")
    records, problems = read_records(path)
    assert records == [other], "the bad record must not be believed"
    assert len(problems) == 1 and problems[0].startswith(f"{path}: line 2 is skipped because ")
    assert expected in problems[0], problems[0]


# -- games of more than two seats: placement and faults ---------------------------------------


@pytest.fixture
def podium_game() -> Iterator[None]:
    with podium.registered():
        yield


def four_seats() -> dict[str, Any]:
    """A valid record of four seats: a shared second place, the last seat timed out."""
    moves = [[3, 2, 2, 1], [3, 1, 1, 0], [0, 0, 0, 3]]
    return podium.record(["ann", "bob", "cyd", "dan"], moves, faults=[(3, 2, "timeout")])


def placed(placement: list[Any], points: list[float] | None = None) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        record["outcome"]["placement"] = placement
        if points is not None:
            record["outcome"]["points"] = points

    return edit


def faults(*found: Any) -> Edit:
    return setter("outcome", "faults", value=list(found))


def fault(seat: Any = 1, turn: Any = 4, termination: Any = "crash") -> dict[str, Any]:
    return {"seat": seat, "turn": turn, "termination": termination, "detail": "SIGSEGV"}


BAD_LARGER: dict[str, tuple[Edit, str]] = {
    "placement-short": (placed([1, 2, 2]), "not one place per seat"),
    "placement-text": (placed([1, "2", "2", 4]), "not whole numbers"),
    "placement-not-a-list": (placed("1224"), "not one place per seat"),  # type: ignore[arg-type]
    "placement-skips-no-place": (placed([1, 2, 2, 3]), "ties sharing the better one"),
    "placement-from-zero": (placed([0, 1, 1, 3]), "ties sharing the better one"),
    "placement-disagrees": (placed([4, 2, 2, 1]), "disagrees with its points"),
    "points-of-no-placement": (placed([1, 2, 2, 4], [1, 0.5, 0.25, 0]), "not points the rules"),
    "fault-seat-outside": (faults(fault(seat=4)), "names seat 4, not a seat of the game"),
    "fault-seat-missing": (faults({"turn": 1, "termination": "crash"}), "names no seat"),
    "fault-seat-bool": (faults(fault(seat=True)), "names no seat"),
    "fault-normal": (faults(fault(termination="normal")), "has the ending 'normal'"),
    "fault-unknown": (faults(fault(termination="forfeit")), "has the ending 'forfeit'"),
    "fault-turn-negative": (faults(fault(turn=-1)), "`turn` that is not a turn"),
    "fault-detail-number": (faults({**fault(), "detail": 5}), "`detail` that is not text"),
    "faults-not-a-list": (setter("outcome", "faults", value={"seat": 1}), "`faults` is not a"),
}


def test_records_of_larger_games_with_placement_and_faults_are_valid(podium_game: None) -> None:
    record = four_seats()
    assert record["outcome"]["placement"] == [1, 2, 2, 4]
    assert check_record(record) is None
    assert check_record(podium.record(["a", "b", "c"], [[1, 1, 1]] * 3)) is None, "all level"
    for game in podium.season():
        assert check_record(game) is None


@pytest.mark.parametrize("case", sorted(BAD_LARGER))
def test_a_bad_placement_or_fault_is_refused(case: str, podium_game: None) -> None:
    edit, expected = BAD_LARGER[case]
    bad = four_seats()
    edit(bad)
    problem = check_record(bad)
    assert problem is not None and expected in problem, problem


def test_a_two_seat_record_may_carry_a_placement_that_agrees_with_its_points() -> None:
    record = good()  # O faulted: X won
    placed([1, 2])(record)
    assert check_record(record) is None
    placed([2, 1])(record)
    assert "disagrees with its points" in (check_record(record) or "")


def forged(tmp_path: Path) -> Path:
    """A results folder: the fixture's games plus three forgeries."""
    folder = tmp_path / "results"
    folder.mkdir()
    lines = [json.dumps(r) for r in fixture_records()]
    for case in ("points-0-100", "points-text", "points-nan"):
        bad = good()
        BAD[case][0](bad)
        bad["key"] = record_key(bad["game"], [(s["entry"], s["hash"]) for s in bad["seats"]], 9)
        bad["seed"] = 9  # a game the file does not hold yet, so only validation can refuse it
        lines.append(json.dumps(bad))
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_forged_points_change_no_standings(tmp_path: Path) -> None:
    folder = forged(tmp_path)
    records, problems = read_all(results.results_files(folder))
    assert len(problems) == 3 and len(records) == len(fixture_records())
    names = sorted({s["entry"] for r in records for s in r["seats"]})
    rows = {r.entry: r for r in rank([Entrant(n, n, "") for n in names], records)}
    honest = {r.entry: r for r in rank([Entrant(n, n, "") for n in names], fixture_records())}
    assert {n: r.points for n, r in rows.items()} == {n: r.points for n, r in honest.items()}


def test_merge_says_how_many_lines_it_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = forged(tmp_path)
    shard = folder / "shard-2-of-2.jsonl"
    shard.write_text(json.dumps(good()) + "\n" + '{"torn": ')
    count, problems = merge([folder / "games.jsonl", shard], tmp_path / "merged.jsonl")
    assert count == len(fixture_records()) and len(problems) == 4
    code = main.main(
        ["merge", str(folder / "games.jsonl"), str(shard), "--out", str(tmp_path / "m.jsonl")]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert f"merged {count} record(s) from 2 file(s)" in out and "rejected 4 line(s)" in out
    assert err.count("warning: ") == 4 and "line 7 is skipped because its points" in err


def koth_site(tmp_path: Path, results_source: Path, standings: Path) -> int:
    """`koth site` over the fixture's entries, with these results and standings."""
    shutil.copytree(FIXTURE / "entries", tmp_path / "entries")
    (tmp_path / "tournament.yaml").write_text(f"game: {Snakes.id}\n")
    config = str(tmp_path / "tournament.yaml")
    out = str(tmp_path / "site")
    return main.main(
        [
            "site",
            "--config",
            config,
            "--results",
            str(results_source),
            "--standings",
            str(standings),
            "--out",
            out,
        ]
    )


def test_the_site_renders_around_forged_records(tmp_path: Path) -> None:
    """`koth site` on a results folder holding forgeries: a warning for each, no traceback,
    and no page shows their points."""
    folder = forged(tmp_path)
    code = koth_site(tmp_path, folder, FIXTURE / "standings.json")
    assert code == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert ">100<" not in index and "NaN" not in index


def test_a_malformed_standings_file_is_a_warning_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    standings = json.loads((FIXTURE / "standings.json").read_text())
    standings["entries"][0]["points"] = "lots"
    standings["entries"][1] = ["not", "a", "row"]
    (tmp_path / "standings.json").write_text(json.dumps(standings))
    code = koth_site(tmp_path, FIXTURE / "results", tmp_path / "standings.json")
    assert code == 0
    assert "standings.json" in capsys.readouterr().err
    assert "lots" not in (tmp_path / "site" / "index.html").read_text()


def test_a_well_formed_record_that_does_not_replay_gets_no_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    bad = good()
    bad["moves"] = "QQQ"  # well formed, but not moves of the game
    records = [r for r in fixture_records() if r["key"] != bad["key"]] + [bad]
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    code = koth_site(tmp_path, folder, FIXTURE / "standings.json")
    assert code == 0
    err = capsys.readouterr().err
    assert f"the record of game {bad['key'][:12]} (snakes-v2" in err, err
    assert "is refused: its moves cannot be played by the rules" in err
    assert not (tmp_path / "site" / "games" / f"{bad['key'][:12]}.html").exists()


# -- the files themselves come from a cache too ----------------------------------------------


@pytest.mark.parametrize("target", ["/dev/zero", "/proc/self/environ", "/etc/passwd"])
def test_a_results_file_that_is_a_link_is_refused_unread(target: str, tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.symlink_to(target)
    records, problems = read_records(path)
    assert records == [] and len(problems) == 1
    assert "a symbolic link" in problems[0] and "Fix:" in problems[0]


def test_a_results_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    os.mkfifo(path)
    records, problems = read_records(path)  # would block for a writer if it were opened to read
    assert records == [] and "not a regular file" in problems[0]


def test_the_writer_never_appends_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = tmp_path / "results" / "games.jsonl"
    path.parent.mkdir()
    path.symlink_to(victim)
    with pytest.raises(ConfigError, match="a symbolic link"):
        results.ResultsWriter(path)
    assert victim.read_text() == "precious\n"


@pytest.fixture
def line_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    """A reader's cap of 1 MiB, not the largest game's (~124 MiB), for the tests that pass it."""
    monkeypatch.setattr(results, "LINE_CAP", 1 << 20)
    return results.LINE_CAP


def test_an_overlong_or_deeply_nested_line_is_skipped_and_reading_goes_on(
    tmp_path: Path, line_cap: int
) -> None:
    path = tmp_path / "games.jsonl"
    record = fixture_records()[0]
    with open(path, "wb") as handle:
        handle.write(b'{"pad": "' + b"x" * (results.LINE_CAP + 10) + b'"}\n')
        handle.write(b"[" * 100_000 + b"\n")
        handle.write(json.dumps(record).encode() + b"\n")
    records, problems = read_records(path)
    assert records == [record]
    assert f"line 1 is skipped because it is longer than {results.LINE_CAP} bytes" in problems[0]
    assert "line 2 is skipped because it nests lists or mappings more than" in problems[1]


def test_a_torn_overlong_last_line_is_cut_off(tmp_path: Path, line_cap: int) -> None:
    path = tmp_path / "games.jsonl"
    record = fixture_records()[0]
    path.write_bytes(json.dumps(record).encode() + b"\n" + b"x" * (results.LINE_CAP + 5))
    with results.ResultsWriter(path) as writer:
        assert writer.repaired
    assert read_records(path) == ([record], [])
