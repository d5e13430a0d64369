"""`koth play --json` prints the game's record, which `koth replay` takes: as the line itself, or
from a file of such lines given with --results (a game played on one of the configuration's
setups carries its name and hash, so the replay finds the same map)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from runner.cli.main import main
from runner.season import results

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("game", "seats"),
    [("domineering", ["greedy", "random"]), ("multisnake", ["careful", "roomy"])],
)
def test_a_played_game_replays(
    tmp_path: Path,
    game: str,
    seats: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shutil.copytree(REPO / "examples" / game, tmp_path / game)
    monkeypatch.chdir(tmp_path / game)
    assert main(["play", *seats, "--json", "--compact"]) == 0
    line = capsys.readouterr().out.strip()
    record = json.loads(line)
    assert results.check_record(record) is None
    assert [seat["entry"] for seat in record["seats"]] == seats
    assert (record.get("setup") is not None) == (game == "multisnake")
    ending = record["outcome"]["detail"]

    assert main(["replay", line]) == 0
    assert "ended: played to the end" in capsys.readouterr().out
    (tmp_path / "played.jsonl").write_text(line + "\n")
    assert main(["replay", record["key"][:12], "--results", str(tmp_path / "played.jsonl")]) == 0
    shown = capsys.readouterr().out
    assert "ended: " in shown and ending in shown
