"""A record counts only if the rules reproduce its outcome from its moves (issue 45).

A record's key covers its game, seats and seed, not its outcome: a poisoned cache or a forged
published site could hold a record whose points contradict its moves, which check_record (its
shape, its points a possible result) accepted and the standings counted without playing the moves
again. Now every reader that counts records (the play loop, the schedule, the standings, the
site, a preview, merge) plays them again first (runner/play/playback.py ``outcome_problem``) and
refuses, with a warning naming it, one whose outcome differs; a true record of the same key
behind it is believed instead."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import egghunt_games
import pytest
from test_season import small_season

from runner.cli.main import main
from runner.games import find_game
from runner.play.playback import outcome_problem
from runner.season import results

FIXTURE = Path(__file__).parent / "fixtures" / "site" / "results" / "games.jsonl"


def fixture_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines()]


def problem(record: dict[str, Any]) -> str | None:
    return outcome_problem(find_game(record["game"]), record)


def test_every_fixture_record_is_reproduced_by_its_moves() -> None:
    assert [problem(r) for r in fixture_records()] == [None] * 6


def test_a_flipped_result_is_refused() -> None:
    record = next(r for r in fixture_records() if r["outcome"]["termination"] == "suffocation")
    forged = copy.deepcopy(record)
    forged["outcome"]["points"] = forged["outcome"]["points"][::-1]
    assert results.check_record(forged) is None, "its shape and its points are possible"
    assert "its points" in str(problem(forged)) and "its moves give" in str(problem(forged))
    forged["outcome"]["scores"] = forged["outcome"]["scores"][::-1]
    assert "its scores" in str(problem(forged))


def test_a_fault_blamed_on_the_wrong_seat_or_after_the_end_is_refused() -> None:
    crash = next(r for r in fixture_records() if r["outcome"]["termination"] == "crash")
    blamed = copy.deepcopy(crash)
    blamed["outcome"].update(faulty=1 - crash["outcome"]["faulty"])
    blamed["outcome"]["points"] = blamed["outcome"]["points"][::-1]
    assert results.check_record(blamed) is None
    assert "that seat was not to move" in str(problem(blamed))
    ended = copy.deepcopy(
        next(r for r in fixture_records() if r["outcome"]["termination"] == "suffocation")
    )
    loser = ended["outcome"]["points"].index(1.0)  # the winner, blamed for a timeout
    ended["outcome"].update(termination="timeout", faulty=loser, detail="late")
    ended["outcome"]["points"] = [0.0 if s == loser else 1.0 for s in range(2)]
    assert "its moves end the game by the rules" in str(problem(ended))


def test_a_forged_placement_in_a_larger_game_is_refused() -> None:
    record = egghunt_games.run_record(1)
    assert problem(record) is None
    forged = copy.deepcopy(record)
    outcome = forged["outcome"]
    last = outcome["placement"].index(max(outcome["placement"]))
    outcome["scores"][last] += 10
    assert "its scores" in str(problem(forged))


# -- a season: a poisoned cache ----------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return small_season(tmp_path, jobs=2)


def standings(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "standings.json").read_text()))


def test_a_forged_record_before_the_true_one_changes_no_standing(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(folder / "tournament.yaml")
    assert main(["season", "--config", config, "--no-progress", "--no-site"]) == 0
    true = standings(folder)
    capsys.readouterr()
    record = next(
        r
        for r in results.read_records(folder / "results" / results.MAIN_FILE)[0]
        if r["outcome"]["points"] in ([1.0, 0.0], [0.0, 1.0])
    )
    forged = copy.deepcopy(record)
    forged["outcome"]["points"] = forged["outcome"]["points"][::-1]
    # A file read before games.jsonl: the first record of a key wins.
    results.write_atomic(folder / "results" / "a-cache.jsonl", [forged])

    assert main(["standings", "--config", config]) == 0
    err = capsys.readouterr().err
    refused = f"the record of game {record['key'][:12]} (snakes-v2, "
    assert refused in err and "is refused: its points" in err, err
    assert standings(folder)["entries"] == true["entries"], "the forged result counts for nobody"
    assert main(["play-season", "--config", config, "--no-progress"]) == 0
    assert "played 0 game(s)" in capsys.readouterr().err, "the true record is believed"

    merged = folder / "merged.jsonl"
    games = folder / "results" / results.MAIN_FILE
    assert (
        main(["merge", str(folder / "results" / "a-cache.jsonl"), str(games), "--out", str(merged)])
        == 0
    )
    assert results.read_records(merged)[0].count(record) == 1, "merge keeps the true record"


def test_the_site_believes_what_the_standings_judged_of_the_very_same_files(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """standings.json's `judged` names the bytes of the results it read and what it refused:
    the site, reading the same bytes, plays no record's moves again, and still refuses what the
    standings refused; a results file changed since, and it plays them all."""
    config = str(folder / "tournament.yaml")
    assert main(["season", "--config", config, "--no-progress", "--no-site"]) == 0
    games = results.read_records(folder / "results" / results.MAIN_FILE)[0]
    record = next(r for r in games if r["outcome"]["points"] in ([1.0, 0.0], [0.0, 1.0]))
    forged = copy.deepcopy(record)
    forged["outcome"]["points"] = forged["outcome"]["points"][::-1]
    results.write_atomic(folder / "results" / "a-cache.jsonl", [forged])
    with (folder / "results" / "a-cache.jsonl").open("a") as handle:
        handle.write("not a record\n")
    assert main(["standings", "--config", config]) == 0
    judged = standings(folder)["judged"]
    assert judged["refused"][0][0] == record["key"]
    assert judged["skipped"] == [
        [0, 2, f"{folder}/results/a-cache.jsonl: line 2 is skipped because it is not valid JSON."]
    ]
    capsys.readouterr()

    played: list[str] = []
    checked: list[bytes] = []

    def counted(spec: Any, record: Any, setup: Any = None) -> str | None:
        played.append(record["key"])
        return problem(record)

    def read(line: bytes) -> Any:
        checked.append(line)
        return read_line(line)

    read_line = results._read_line
    monkeypatch.setattr(results, "outcome_problem", counted)
    monkeypatch.setattr(results, "_read_line", read)
    assert main(["site", "--config", config]) == 0
    err = capsys.readouterr().err
    assert played == [] and checked == [], "the site checked what the standings had checked"
    assert f"the record of game {record['key'][:12]} (snakes-v2, " in err and "its points" in err
    assert "a-cache.jsonl: line 2 is skipped because it is not valid JSON" in err
    site = results.read_records(folder / "_site" / "games.jsonl")[0]
    assert record in site and forged not in site, "the true record is shown, the forged not"

    checked.clear()
    forged["outcome"]["detail"] = "changed since the standings"
    results.write_atomic(folder / "results" / "a-cache.jsonl", [forged])
    assert main(["site", "--config", config]) == 0
    assert len(played) == len(games) + 1, "another file: every record judged again"
    lines = sum(len(p.read_bytes().splitlines()) for p in (folder / "results").glob("*.jsonl"))
    assert len(checked) == lines, "and every line checked again"
    assert forged not in results.read_records(folder / "_site" / "games.jsonl")[0]
