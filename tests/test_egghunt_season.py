"""The Easter Egg Hunt example season (examples/egghunt/tournament.yaml) as shipped: `koth season`
plays every example entry on one board, ten runs on ten boards, ranks them by mean eggs per run
with a 95% interval and writes a site; its first runs come out the same after ``kill -9`` and a
resume, over two shards merged (a shard is a share of the runs), and in the Docker sandbox.

The example entries think on no clock (those that draw at random keep their generator in their
memory line), so every run is a function of its seed. Each test plays a copy of the example
folder whose wall-clock limit per turn is widened: a record holds no limit, and a busy machine
must not turn a slow process start into a lost turn that changes it. Runs are independent of how
many runs the season has (a run's seed and seats depend on its number only), so the copies that
are killed, sharded or played in Docker play the first runs and are compared with those of the
full season. Builds are shared between the local tests.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import example_seasons as examples
import pytest
from example_seasons import outputs, recorded, stable
from test_format_seasons import kill_when

from runner.cli.main import main
from runner.season import results
from runner.season.config import load_config

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "egghunt"
RUNS = 10
FIRST_RUNS = 4  # what the killed and sharded seasons play
DOCKER_RUNS = 2  # what the Docker season plays: each turn starts every bot afresh in a container


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("egghunt-build")


def example_copy(folder: Path, build_dir: Path, **replace: str) -> Path:
    """The example folder copied into ``folder``, its builds in ``build_dir``, its wall-clock
    limit widened and any line ``key: value`` of its configuration replaced; its config file."""
    edits = {"move_wall_s": "5.0", "output": outputs(build_dir)}
    return examples.example_copy(EXAMPLE, folder, {**edits, **replace})


@pytest.fixture(scope="module")
def full_season(tmp_path_factory: pytest.TempPathFactory, build_dir: Path) -> Path:
    """The example season, played by the command the README gives, in the local sandbox."""
    folder = tmp_path_factory.mktemp("egghunt-season")
    config = example_copy(folder, build_dir)
    code = main(["season", "--config", str(config), "--jobs", "2", "--no-progress"])
    assert code == 0, "the example season plays to the end"
    return folder


@pytest.fixture(scope="module")
def by_key(full_season: Path) -> dict[str, dict[str, Any]]:
    """The full season's records (without ``measured``) by key."""
    return {r["key"]: r for r in stable(recorded(full_season))}


def same_as_full_season(
    found: list[dict[str, Any]], by_key: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The full season's records of the games in ``found``, in the same order."""
    missing = [r["key"] for r in found if r["key"] not in by_key]
    assert missing == [], "every game played is one of the full season's"
    return [by_key[r["key"]] for r in found]


# -- the configuration ---------------------------------------------------------------------------


def test_the_example_configuration_puts_every_entry_at_one_table_for_ten_runs() -> None:
    config = load_config(EXAMPLE / "tournament.yaml")
    assert (config.game, config.format) == ("egghunt-v1", "free-for-all")
    assert (config.free_for_all.seats, config.free_for_all.runs) == (None, RUNS), (
        "seats: all (one table of every entry), ten runs"
    )
    entries = [p for p in (EXAMPLE / "entries").iterdir() if p.is_dir()]
    languages = {(e / "entry.yaml").read_text().split("language:")[1].split()[0] for e in entries}
    assert len(entries) >= 7 and len(languages) >= 2, "seven entries or more, two languages"


# -- the season ----------------------------------------------------------------------------------


def test_the_example_season_plays_ten_boards_with_every_entry_on_each(full_season: Path) -> None:
    found = recorded(full_season)
    entries = sorted(p.name for p in (full_season / "entries").iterdir() if p.is_dir())
    assert len(found) == RUNS, "one game per run"
    assert len({r["seed"] for r in found}) == RUNS, "each run on a board of its own seed"
    for record in found:
        assert sorted(s["entry"] for s in record["seats"]) == entries, "every entry, every run"
    seats = Counter((s["entry"], k) for r in found for k, s in enumerate(r["seats"]))
    for entry in entries:
        assert sum(seats[(entry, k)] >= 1 for k in range(len(entries))) == len(entries), (
            f"{entry} starts from every seat over the ten runs (the table is rotated)"
        )
    faults = [f["detail"] for r in found for f in r["outcome"]["faults"]]
    assert faults == [], f"the example entries play without a fault: {faults}"
    assert all(r["outcome"]["termination"] == "normal" for r in found)


def test_the_example_season_ranks_by_mean_eggs_with_a_95_percent_interval(
    full_season: Path,
) -> None:
    doc = json.loads((full_season / "standings.json").read_text())
    assert doc["ranking"] == "score" and doc["tie_break"].startswith("mean score per game")
    eggs: dict[str, list[int]] = {}
    for record in recorded(full_season):
        for seat, score in zip(record["seats"], record["outcome"]["scores"], strict=True):
            eggs.setdefault(seat["entry"], []).append(score)
    rows = doc["entries"]
    for row in rows:
        mine = eggs[row["entry"]]
        assert len(mine) == row["games"] == RUNS
        assert row["score"] == pytest.approx(statistics.mean(mine)), f"{row['entry']}: mean eggs"
        half = 2.262 * statistics.stdev(mine) / RUNS**0.5  # Student's t, 9 degrees of freedom
        assert row["score_low"] == pytest.approx(row["score"] - half, abs=1e-3)
        assert row["score_high"] == pytest.approx(row["score"] + half, abs=1e-3)
    scores = [row["score"] for row in rows]
    assert scores == sorted(scores, reverse=True), "ranked by mean eggs"
    assert rows[0]["entry"] == "mapper", "the entry that maps the board in its memory comes first"
    index = (full_season / "_site" / "index.html").read_text()
    assert "Eggs per game ± 95%" in index
    for above, row in zip(rows, rows[1:], strict=False):
        apart = row["score_high"] < above["score_low"]
        tied = f"≈ tied with #{above['rank']}" in index
        assert tied != apart, (
            f"the leaderboard says #{row['rank']} cannot be told apart from #{above['rank']} "
            "exactly when their intervals overlap"
        )
    assert len(list((full_season / "_site" / "games").glob("*.html"))) == RUNS


def test_the_first_runs_resume_after_kill_9(
    tmp_path: Path, build_dir: Path, by_key: dict[str, dict[str, Any]]
) -> None:
    config = example_copy(tmp_path, build_dir, runs=str(FIRST_RUNS))
    out = tmp_path / "results" / results.MAIN_FILE
    kill_when(tmp_path, lambda: out.is_file() and out.read_bytes().count(b"\n") >= 1)
    killed_at = len(results.read_records(out)[0])
    assert 1 <= killed_at < FIRST_RUNS, "killed in the middle of the season, a run under way"
    assert main(["play-season", "--config", str(config), "--no-progress"]) == 0
    found = stable(recorded(tmp_path))
    assert len(found) == FIRST_RUNS, "resumed, every run is played once"
    assert found == same_as_full_season(found, by_key), "each run records what it would have"


def test_the_first_runs_played_in_two_shards_and_merged(
    tmp_path: Path, build_dir: Path, by_key: dict[str, dict[str, Any]]
) -> None:
    shards = []
    for index in (1, 2):
        machine = tmp_path / f"machine-{index}"
        config = example_copy(machine, build_dir, runs=str(FIRST_RUNS))
        argv = ["play-season", "--config", str(config), "--shard", f"{index}/2", "--no-progress"]
        assert main(argv) == 0
        shard = machine / "results" / f"shard-{index}-of-2.jsonl"
        assert len(results.read_records(shard)[0]) == FIRST_RUNS // 2, "half the runs each"
        shards.append(str(shard))
    merged = tmp_path / "merged.jsonl"
    assert main(["merge", *shards, "--out", str(merged)]) == 0
    found = stable(results.read_records(merged)[0])
    assert len(found) == FIRST_RUNS
    assert found == same_as_full_season(found, by_key)


@pytest.mark.docker
def test_the_first_runs_in_the_docker_sandbox_record_the_same_games(
    tmp_path: Path, by_key: dict[str, dict[str, Any]]
) -> None:
    config = example_copy(tmp_path, tmp_path / "build", runs=str(DOCKER_RUNS))
    argv = ["season", "--config", str(config), "--sandbox", "docker", "--jobs", "2"]
    assert main([*argv, "--no-progress"]) == 0
    found = stable(recorded(tmp_path))
    assert len(found) == DOCKER_RUNS
    assert found == same_as_full_season(found, by_key), "the same games as in the local sandbox"
    assert (tmp_path / "_site" / "index.html").is_file()
