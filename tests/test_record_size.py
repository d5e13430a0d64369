"""Every game played within the rules is recorded and read back (runner/season/results.py, issue
45).

An Egg Hunt record holds every memory line (up to 1,024 characters a bot a turn, ``\\`` and ``"``
two bytes each in JSON): four entries with full memory lines made a 1,432,686-byte record, which
the writer wrote and the reader, capped at 1 MiB a line, skipped, so every later run played and
appended it again, and a bot could void the runs it was losing. The size a record of a game can
reach now follows from its rules and limits (``record_cap``); the reader takes it, the writer
refuses, loudly and naming the game, what is longer, and a line the reader cannot take is named
by its game."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from runner.cli.main import main
from runner.games import GAMES
from runner.games.egghunt.rules import MEMORY_LIMIT, Move
from runner.games.spec import GameSpec
from runner.season import results

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "site" / "results" / "games.jsonl"
UGLY = '\x01\\"é\U0001f600'  # every kind of character JSON writes longest


def fixture_record() -> dict[str, Any]:
    return dict(json.loads(FIXTURE.read_text().splitlines()[0]))


def encoded(move: str) -> int:
    return len(json.dumps(move, ensure_ascii=False).encode())


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_move_a_game_can_write_fits_its_declared_bytes(game_id: str) -> None:
    spec = GAMES[game_id]
    rules, seats = spec.rules, min(spec.info.seat_counts or (spec.info.min_players,))
    state = rules.initial_state(random.Random(1), seats, spec.sample_setup(seats))
    longest = max(encoded(rules.move_text(m)) for m in rules.legal_moves(state, 0))
    if game_id == "egghunt-v1":  # a memory line of the rules' length, every character escaped
        longest = encoded(rules.move_text(Move(1, "A", '\\"' * (MEMORY_LIMIT // 2))))
        assert longest == spec.info.max_move_bytes, "the Egg Hunt's bound is exact"
    assert longest <= spec.info.max_move_bytes


def worst_record(spec: GameSpec, steps: int) -> dict[str, Any]:
    """A record of ``steps`` steps at the game's most seats with every text as long as the host
    keeps it and written as long as JSON can: the longest moves, a fault for every seat at every
    step of a game of more than two seats, full names and output excerpts."""
    seats = spec.info.max_players
    move = "x" * (spec.info.max_move_bytes - 2)
    text = (UGLY * 2000)[:2000] + "\n… (12345678 characters left out) …\n"
    record = fixture_record()
    record.update(
        game=spec.id,
        seed=2**63 - 1,
        season_seed=2**63 - 1,
        round=100,
        setup={"name": "m" * 40, "hash": "0" * 64},
        seats=[
            {"entry": "e" * 40, "hash": "0" * 64, "name": UGLY * results.NAME_IN_RECORD}
            for _ in range(seats)
        ],
        moves=[[move] * seats] * steps if spec.records_turns else [move] * steps,
    )
    detail = UGLY * results.OUTCOME_DETAIL_IN_RECORD
    fault = {"seat": seats - 1, "turn": 10**6, "at": 10**6, "termination": "invalid_move"}
    faults = [{**fault, "detail": UGLY * results.DETAIL_IN_RECORD}] * ((steps + 1) * seats)
    record["outcome"] = {
        "points": [0.123456789012345] * seats,
        "scores": [10**6] * seats,
        "termination": "normal",
        "faulty": None,
        "detail": detail,
        "placement": list(range(1, seats + 1)),
        "faults": faults if seats > 2 else [],
    }
    results._clip_texts(record)
    record["measured"] = {
        "cpu_s": [123456.123456] * seats,
        "wall_s": 123456.123456,
        "output": [text] * seats,
        "when": "2025-01-18T12:00:00.000000Z",
    }
    record["host_version"] = "9" * 40
    return record


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_record_at_every_limit_fits_its_games_cap(game_id: str) -> None:
    spec = GAMES[game_id]
    for steps in (0, 1, 7):  # the cap grows with each step by at least what a step can add
        size = len(results._encode(worst_record(spec, steps))) - 1
        assert size <= results.record_cap(spec, steps), (game_id, steps, size)
    assert results.RECORD_CAPS[game_id] == results.record_cap(spec)
    assert results.RECORD_CAPS[game_id] <= results.LINE_CAP


def test_a_record_keeps_clipped_texts() -> None:
    played = fixture_record()
    played["outcome"]["detail"] = "d" * 10_000
    played["seats"][0]["name"] = "n" * 10_000
    record = results.make_record(played, key=played["key"], season_seed=1, round_=1, when="w")
    assert len(record["outcome"]["detail"]) == results.OUTCOME_DETAIL_IN_RECORD
    assert len(record["seats"][0]["name"]) == results.NAME_IN_RECORD
    assert played["seats"][0]["name"] == "n" * 10_000, "the game's own result is not changed"


def test_a_line_longer_than_its_games_records_can_be_is_skipped_naming_the_game(
    tmp_path: Path,
) -> None:
    record = fixture_record()
    record["measured"]["output"] = ["x" * results.RECORD_CAPS["snakes-v2"]]
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record) + "\n")
    found, problems = results.read_records(path)
    assert found == [] and "longer than any record of snakes-v2 can be" in problems[0]


def test_a_line_past_the_readers_cap_is_named_by_its_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "LINE_CAP", 4096)
    record = fixture_record()
    record["measured"]["output"] = ["x" * 10_000]
    path = tmp_path / "games.jsonl"
    path.write_text(results._encode(record).decode())
    found, problems = results.read_records(path)
    assert found == [] and "(a record of snakes-v2, its first bytes say)" in problems[0]


def test_the_writer_refuses_a_record_longer_than_its_game_can_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(results.RECORD_CAPS, "snakes-v2", 100)
    path = tmp_path / "games.jsonl"
    with results.ResultsWriter(path) as writer, pytest.raises(results.RecordTooLong) as caught:
        writer.append(fixture_record())
    assert "a game of snakes-v2" in str(caught.value) and path.read_bytes() == b""


# -- the Egg Hunt season of issue 45 -----------------------------------------------------------

SCRIBBLER = r"""import sys
lines = sys.stdin.read().split("\n") + [""] * 6
turn = len(lines[5]) % 8 + 1
memory = ('\\"' * 512)[: 1016 + turn % 8]
print(f"{turn}\nN\n{memory}")
"""


def test_an_egg_hunt_season_of_full_memory_lines_records_every_run_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four entries writing a full memory line of ``\\`` and ``"`` every turn (each two bytes in
    JSON), three built-in wanderers: every run is recorded, read back, and a second run plays
    nothing."""
    for name in ("scribe-a", "scribe-b", "scribe-c", "scribe-d"):
        folder = tmp_path / "entries" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(SCRIBBLER)
        (folder / "entry.yaml").write_text(
            f"name: {name}\nauthor: tests\ndescription: full memory\nlanguage: python\n"
        )
    shutil.copytree(
        REPO / "examples" / "egghunt" / "entries" / "random", tmp_path / "entries" / "r"
    )
    shutil.move(tmp_path / "entries" / "r", tmp_path / "entries" / "random")
    (tmp_path / "tournament.yaml").write_text(
        "game: egghunt-v1\nformat: free-for-all\nseed: 4\njobs: 2\n"
        "free_for_all: {seats: all, runs: 2}\nlimits: {move_wall_s: 5.0}\n"
    )
    config = str(tmp_path / "tournament.yaml")
    assert main(["play-season", "--config", config, "--no-progress"]) == 0
    first = capsys.readouterr().err
    out = tmp_path / "results" / results.MAIN_FILE
    records, problems = results.read_records(out)
    assert problems == [] and "skipped" not in first
    sizes = [len(line) for line in out.read_bytes().splitlines()]
    assert len(records) == 2 and min(sizes) > 1 << 20, f"runs of {sizes} bytes, recorded"
    assert main(["play-season", "--config", config, "--no-progress"]) == 0
    second = capsys.readouterr().err
    assert "played 0 game(s)" in second and "2 were already recorded" in second, second
    assert len(out.read_bytes().splitlines()) == 2, "nothing appended again"
