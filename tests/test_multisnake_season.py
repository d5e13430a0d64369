"""The Multisnake example season (examples/multisnake/tournament.yaml) as shipped: its maps are
checked when the configuration is read, it plays with `koth season` in the local sandbox (every
entry starting from every start tile equally often, points by place from its table, a site with
ratings), and its first round — the eight games on the maze — comes out the same after
``kill -9`` and a resume, over two shards merged, and in the Docker sandbox.

Each test plays a copy of the example folder (its entries, maps and configuration) whose wall-
clock limits are widened: a record holds no limit, and a busy test machine must not turn a slow
move into a timeout that changes it. Builds are shared between the tests.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import example_seasons as examples
import pytest
from example_seasons import outputs, recorded, stable
from test_format_seasons import kill_when

from runner.cli.main import main
from runner.season import check, results, workers
from runner.season.config import ConfigError, load_config

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "multisnake"
ROUND_ONE = 8  # games: one table of eight, rotated through its eight seats, on the maze


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("multisnake-build")


def example_copy(folder: Path, build_dir: Path, **replace: str) -> Path:
    """The example folder copied into ``folder``, its builds in ``build_dir``, its wall-clock
    limits widened and any line ``key: value`` of its configuration replaced; its config file."""
    edits = {"move_wall_s": "5.0", "first_move_wall_s": "10.0", "output": outputs(build_dir)}
    return examples.example_copy(EXAMPLE, folder, {**edits, **replace})


@pytest.fixture(scope="module")
def full_season(tmp_path_factory: pytest.TempPathFactory, build_dir: Path) -> Path:
    """The example season, played by the command the README gives, in the local sandbox."""
    folder = tmp_path_factory.mktemp("multisnake-season")
    config = example_copy(folder, build_dir)
    code = main(["season", "--config", str(config), "--jobs", "2", "--no-progress"])
    assert code == 0, "the example season plays to the end"
    return folder


@pytest.fixture(scope="module")
def round_one(full_season: Path) -> list[dict[str, Any]]:
    """The full season's first round: what every other way of playing it must record."""
    return stable([r for r in recorded(full_season) if r["round"] == 1])


# -- the configuration ---------------------------------------------------------------------------


def test_the_example_configuration_plays_tables_of_eight_on_its_maps() -> None:
    config = load_config(EXAMPLE / "tournament.yaml")
    ffa = config.free_for_all
    assert (config.game, config.format) == ("multisnake-v2", "free-for-all")
    assert (ffa.seats, ffa.runs) == (8, 8), "one table of eight, rotated through every seat"
    assert [s.name for s in ffa.setups] == ["maze", "big"]
    assert [s.as_dict()["period"] for s in ffa.setups] == [3, 1]
    assert config.points == (10.0, 7.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0), "a points table by place"
    assert config.limits.move_cpu_ms == 100 and config.limits.first_move_wall_s == 2.0
    maps = sorted(p.name for p in (EXAMPLE / "maps").glob("*.map"))
    assert maps == ["big.map", "maze.map", "small.map"]
    entries = [p for p in (EXAMPLE / "entries").iterdir() if p.is_dir()]
    languages = {(e / "entry.yaml").read_text().split("language:")[1].split()[0] for e in entries}
    assert len(entries) >= 6 and languages == {"python", "c", "cpp"}


BAD_MAP = "#..+..#\n.A...-.\n...#..x\n.....B.\n#.....#\n"


@pytest.mark.parametrize(
    ("setups", "files", "expected"),
    [
        (
            "[{name: bad, map_file: maps/bad.map, period: 3}]",
            {"maps/bad.map": BAD_MAP},
            "`map_file` maps/bad.map: line 3, column 7: 'x' is not a map tile",
        ),
        (
            "[{name: small, map_file: maps/small.map, period: 3}]",
            {},
            "`map_file` maps/small.map: the map has no start tile E or F or G or H: 8 players",
        ),
        (
            "[{name: maze, map_file: maps/maze.map, period: 30}]",
            {},
            "`period`: the growth period T is 1 to 25, not 30",
        ),
        (
            "[{name: maze, map_file: maps/maze.map, perod: 3}]",
            {},
            "`perod`: `perod` is not a Multisnake setting",
        ),
        ("[{name: open, period: 3}]", {}, "`map`: no map: give the map file as `map_file:"),
    ],
)
def test_a_setup_the_game_cannot_play_stops_the_season_at_config_load(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setups: str,
    files: dict[str, str],
    expected: str,
) -> None:
    shutil.copytree(EXAMPLE / "maps", tmp_path / "maps")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    config = tmp_path / "tournament.yaml"
    config.write_text(
        "game: multisnake-v2\nformat: free-for-all\n"
        f"free_for_all:\n  seats: 8\n  setups: {setups}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    error = caught.value
    assert error.field == "free_for_all.setups", "the error names the field"
    assert str(error).startswith(f"{config}: field `free_for_all.setups`: setup "), str(error)
    assert expected in str(error), str(error)
    assert "Fix: " in str(error)
    assert main(["schedule", "--config", str(config)]) == 2, "a bad setup is a usage error"
    said = capsys.readouterr().err
    assert expected in said and "Traceback" not in said and said.count("\n") == 1


def test_seats_all_checks_a_map_against_every_table_size_it_may_have(tmp_path: Path) -> None:
    (tmp_path / "one.map").write_text("#####\n#A..#\n#...#\n#...#\n#####\n")
    config = tmp_path / "tournament.yaml"
    config.write_text(
        "game: multisnake-v2\nformat: free-for-all\n"
        "free_for_all:\n  setups: [{name: one, map_file: one.map, period: 3}]\n"
    )
    with pytest.raises(ConfigError, match=r"one\.map: the map has no start tiles A and B"):
        load_config(config)


# -- the season ----------------------------------------------------------------------------------


def test_the_example_season_plays_every_entry_from_every_start_tile(full_season: Path) -> None:
    found = recorded(full_season)
    config = load_config(full_season / "tournament.yaml")
    entries = sorted(p.name for p in (full_season / "entries").iterdir() if p.is_dir())
    assert len(found) == config.rounds * 8, "each round: one table of eight, eight games"
    assert Counter(r["setup"]["name"] for r in found) == {"maze": 8, "big": 8}
    starts = Counter((s["entry"], k) for r in found for k, s in enumerate(r["seats"]))
    for entry in entries:
        assert [starts[(entry, k)] for k in range(8)] == [2] * 8, (
            f"{entry} starts from each of the start tiles A to H once a round"
        )
    assert {s["entry"] for r in found for s in r["seats"]} == {*entries, "filler-1", "filler-2"}
    faults = [f["detail"] for r in found for f in r["outcome"]["faults"]]
    assert faults == [], f"the example entries play without a fault: {faults}"


def test_the_example_season_ranks_by_points_with_ratings_and_a_site(full_season: Path) -> None:
    doc = json.loads((full_season / "standings.json").read_text())
    rows = {row["entry"]: row for row in doc["entries"]}
    table = [10, 7, 5, 4, 3, 2, 1, 0]
    assert doc["points"] == table
    earned: Counter[str] = Counter()
    for record in recorded(full_season):
        places = record["outcome"]["placement"]
        for seat, place in zip(record["seats"], places, strict=True):
            tied = places.count(place)
            earned[seat["entry"]] += sum(table[place - 1 : place - 1 + tied]) / tied
    for entry, row in rows.items():
        assert row["points"] == pytest.approx(earned[entry]), f"{entry}: points by the table"
    points = [row["points"] for row in doc["entries"]]
    assert points == sorted(points, reverse=True), "ranked by points"
    assert all(sum(row["places"]) == row["games"] == 16 for row in rows.values())
    assert next(iter(rows)) == "voronoi", "the planner that counts its territory comes first"
    index = (full_season / "_site" / "index.html").read_text()
    assert "Average place" in index and "8th" in index
    assert "Rating ± 95%" in index
    ratings = re.findall(r'<td class="num">-?\d+ <span class="pm">± \d+</span>', index)
    assert len(ratings) == len(rows), "every entry's rating with its interval"
    pages = list((full_season / "_site" / "games").glob("*.html"))
    assert len(pages) == 16


def test_the_first_round_resumes_after_kill_9(
    tmp_path: Path, build_dir: Path, round_one: list[dict[str, Any]]
) -> None:
    config = example_copy(tmp_path, build_dir, rounds="1")
    out = tmp_path / "results" / results.MAIN_FILE

    def two_recorded() -> bool:
        return out.is_file() and out.read_bytes().count(b"\n") >= 2

    kill_when(config.parent, two_recorded, ("--jobs", "2"), wait_s=300)
    killed_at = len(results.read_records(out)[0])
    assert 2 <= killed_at < ROUND_ONE, "killed mid-season"
    assert main(["play-season", "--config", str(config), "--no-progress"]) == 0
    assert stable(recorded(tmp_path)) == round_one, "resumed, the round records what it would have"


def test_the_first_round_played_in_two_shards_and_merged(
    tmp_path: Path, build_dir: Path, round_one: list[dict[str, Any]]
) -> None:
    shards = []
    for index in (1, 2):
        machine = tmp_path / f"machine-{index}"
        config = example_copy(machine, build_dir, rounds="1")
        argv = ["play-season", "--config", str(config), "--shard", f"{index}/2", "--no-progress"]
        assert main(argv) == 0
        shard = machine / "results" / f"shard-{index}-of-2.jsonl"
        assert len(results.read_records(shard)[0]) == ROUND_ONE // 2
        shards.append(str(shard))
    merged = tmp_path / "merged.jsonl"
    assert main(["merge", *shards, "--out", str(merged)]) == 0
    assert stable(results.read_records(merged)[0]) == round_one


@pytest.mark.docker
def test_the_first_round_in_the_docker_sandbox_records_the_same_games(
    tmp_path: Path, round_one: list[dict[str, Any]]
) -> None:
    config = example_copy(tmp_path, tmp_path / "build", rounds="1", sandbox="docker")
    code = main(["season", "--config", str(config), "--jobs", "2", "--no-progress"])
    assert code == 0
    assert stable(recorded(tmp_path)) == round_one, "the same games as in the local sandbox"
    assert (tmp_path / "_site" / "index.html").is_file()


def test_the_check_stage_smoke_plays_each_entry_on_the_games_sample_map(
    full_season: Path,
) -> None:
    config = load_config(full_season / "tournament.yaml")
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, 1) as pool:
            line = check.lineup(config, sandbox, pool, say=lambda _: None)
    finally:
        sandbox.close()
    assert all(v.ok for v in line.verdicts), [v.message for v in line.verdicts if not v.ok]
    for verdict in line.verdicts:
        saved = json.loads((config.output.build / verdict.entry / "check.json").read_text())
        assert saved["message"] == "passed the smoke games"


# A snake that plays its smoke games (two seats) as it should, then at a bigger table answers
# turn 1, closes its output and lives on.
CLOSER = """import os, sys, time
width, height, seats, me, turns = map(int, sys.stdin.readline().split())
mark = chr(64 + me)
while True:
    rows = [sys.stdin.readline().rstrip("\\n") for _ in range(height)]
    y = next(i for i, row in enumerate(rows) if mark in row)
    x = rows[y].index(mark)
    steps = (("^", 0, -1), (">", 1, 0), ("v", 0, 1), ("<", -1, 0))
    free = [d for d, dx, dy in steps if 0 <= y + dy < height and 0 <= x + dx < width
            and rows[y + dy][x + dx] in ".+"]
    print(free[0] if free else "^", flush=True)
    if seats > 2:
        os.close(1)
        time.sleep(60)
"""


def test_a_snake_that_closes_its_output_takes_no_other_snake_with_it(
    tmp_path: Path, build_dir: Path
) -> None:
    """Its end waited for (the news of a process's end may take a moment), every other seat's
    deadline passes meanwhile: their replies, on time, are read before any seat is called late,
    and only the closer loses."""
    config = example_copy(tmp_path, build_dir, move_wall_s="0.45")
    closer = tmp_path / "entries" / "closer"
    closer.mkdir()
    (closer / "bot.py").write_text(CLOSER)
    (closer / "entry.yaml").write_text(
        "name: closer\nauthor: tests\ndescription: closes its output\nlanguage: python\n"
    )
    code = main(["season", "--config", str(config), "--max-games", "1", "--no-progress"])
    assert code == 0
    (game,) = recorded(tmp_path)
    faults = game["outcome"]["faults"]
    assert faults, "the closer loses"
    for fault in faults:
        assert game["seats"][fault["seat"]]["entry"] == "closer", fault
        assert "closed its channel to the host" in fault["detail"], fault
