"""Seasons of the formats that are not round-robin, played for real with tiny C Snakes bots.

A toy knockout of five (so one first-round match and three byes): round by round, resumed after
``kill -9`` inside and between rounds, sharded over two "machines" with ``koth merge`` between
passes, and previewed — each ending with the same records as one uninterrupted run. A
free-for-all of two seats whose odd field leaves a seat to the built-in bot."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.cli import stages, workflows
from runner.cli.main import main
from runner.season import check, results, workers
from runner.season.config import Config, load_config

REPO = Path(__file__).resolve().parent.parent
FIND = """static int find(int board[16][32], int head, int *x, int *y) {
    for (*y = 0; *y < 16; (*y)++)
        for (*x = 0; *x < 32; (*x)++)
            if (board[*y][*x] == head) return 1;
    return 0;
}
"""
TURN = """int bot(int board[16][32], char player) {
    int x, y;
    if (player == 'X') return find(board, '*', &x, &y) && %s ? '%s' : '%s';
    return find(board, '@', &x, &y) && %s ? '%s' : '%s';
}
"""
BOTS = {  # five ways to walk; "d" and "e" are seeds 4 and 5, the only first-round match
    "a": FIND + TURN % ("y == 0 && x < 31", "R", "D", "y == 15 && x > 0", "L", "U"),
    "b": FIND + TURN % ("x == 0 && y < 15", "D", "R", "x == 31 && y > 0", "U", "L"),
    "c": FIND + TURN % ("y < 7 && x < 30", "R", "D", "y > 8 && x > 1", "L", "U"),
    "d": FIND + TURN % ("x < 12", "R", "D", "x > 19", "L", "U"),
    "e": FIND + TURN % ("(x + y) % 2 == 0", "R", "D", "(x + y) % 2 == 0", "L", "U"),
}


def add_entries(folder: Path) -> None:
    for name, source in BOTS.items():
        entry = folder / "entries" / name
        entry.mkdir(parents=True, exist_ok=True)
        (entry / "bot.c").write_text(source + f'char *bot_name = "Walker {name}";\n')
        (entry / "entry.yaml").write_text(
            f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
        )


def make_season(folder: Path, build: Path, entries: str = "entries") -> Path:
    (folder / "tournament.yaml").write_text(
        f"format: knockout\nseed: 5\njobs: 2\nentries: {entries}\n"
        f"knockout:\n  best_of: 3\noutput:\n  build: {build}\n"
    )
    return folder / "tournament.yaml"


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("build")


@pytest.fixture
def folder(tmp_path: Path, build_dir: Path) -> Path:
    add_entries(tmp_path)
    make_season(tmp_path, build_dir)
    return tmp_path


def stable(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [results.without_measured(r) for r in results.canonical(found)]


def lineup(config: Config) -> check.Lineup:
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, 1) as pool:
            return check.lineup(config, sandbox, pool, say=lambda _: None)
    finally:
        sandbox.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, build_dir: Path) -> list[dict[str, Any]]:
    """One uninterrupted, unsharded run: what every other way of playing must end with."""
    folder = tmp_path_factory.mktemp("reference")
    add_entries(folder)
    config = load_config(make_season(folder, build_dir))
    said: list[str] = []
    report, rows, doc = stages.run_season(config, say=said.append)
    assert report.failed == [] and report.waiting is None
    found, problems = results.read_records(config.output.results / results.MAIN_FILE)
    assert problems == []
    # Round by round: a round's games were handed out only after the last round was decided.
    rounds = [r["round"] for r in found]
    assert rounds == sorted(rounds) and set(rounds) == {1, 2, 3}
    assert any(line.endswith("; round 2 waits for round 1's results") for line in said), said
    # Seeds 1 to 3 (a, b, c) have byes: round 1 is d v e alone, as best of three.
    assert {s["entry"] for r in found if r["round"] == 1 for s in r["seats"]} == {"d", "e"}
    assert 2 <= rounds.count(1) <= 5 and rounds.count(2) >= 4 and rounds.count(3) >= 2
    # The format, asked with these records, has nothing more to hand out.
    line = lineup(config)
    plan = stages.plan_from(config, line, found)
    assert plan.then is None and {s.key for s in plan.games} == {r["key"] for r in found}
    assert doc["games_played"] == doc["games_scheduled"] == len(found)
    return stable(found)


def knows_round(config: Config, line: check.Lineup, round_: int) -> Callable[[], bool]:
    out = config.output.results / results.MAIN_FILE

    def known() -> bool:
        found = results.read_records(out)[0]
        return any(s.fixture.round >= round_ for s in stages.plan_from(config, line, found).games)

    return known


def kill_when(
    folder: Path, ready: Callable[[], bool], options: tuple[str, ...] = (), wait_s: float = 120
) -> None:
    """Run `koth play-season` (with ``options``) in a subprocess and SIGKILL its whole group
    once ``ready()``, which must come within ``wait_s``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "runner.cli.main", "play-season", "--config", "tournament.yaml"]
        + ["--no-progress", *options],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + wait_s
    try:
        while not ready():
            assert process.poll() is None, "the season ended before it could be killed"
            assert time.monotonic() < deadline, f"nothing to kill at within {wait_s:g} s"
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_a_knockout_plays_round_by_round(reference: list[dict[str, Any]]) -> None:
    finals = [r for r in reference if r["round"] == 3]
    finalists = {s["entry"] for r in finals for s in r["seats"]}
    assert len(finalists) == 2
    # Sides alternate: the higher seed (earlier by name) sits first in games 1, 3, ...
    high = min(finalists)
    assert Counter(r["seats"][0]["entry"] for r in finals)[high] == (len(finals) + 1) // 2
    # Each round's matches end as best of three (or go on after drawn games).
    for round_ in (1, 2, 3):
        games = [r for r in reference if r["round"] == round_]
        pairs = Counter(frozenset(s["entry"] for s in r["seats"]) for r in games)
        assert len(pairs) == {1: 1, 2: 2, 3: 1}[round_]
        for pair, count in pairs.items():
            wins = Counter(
                r["seats"][r["outcome"]["points"].index(1)]["entry"]
                for r in games
                if frozenset(s["entry"] for s in r["seats"]) == pair and 1 in r["outcome"]["points"]
            )
            assert count == 2 and 2 in wins.values() or count > 2, (pair, count, wins)


def test_a_knockout_resumes_after_kill_9_inside_and_between_rounds(
    folder: Path, reference: list[dict[str, Any]]
) -> None:
    config = load_config(folder / "tournament.yaml")
    line = lineup(config)
    out = config.output.results / results.MAIN_FILE
    kill_when(folder, lambda: out.is_file() and out.read_bytes().count(b"\n") >= 1)
    before = len(results.read_records(out)[0])
    round_2 = knows_round(config, line, 2)
    kill_when(folder, lambda: len(results.read_records(out)[0]) > before and round_2())
    killed_at = results.read_records(out)[0]
    assert any(r["round"] == 1 for r in killed_at)
    said: list[str] = []
    report, _, doc = stages.run_season(config, say=said.append)
    assert report.recorded == len(killed_at) and report.waiting is None
    found = results.read_records(out)[0]
    assert len({r["key"] for r in found}) == len(found), "a game was recorded twice"
    assert stable(found) == reference


def test_a_knockout_shards_over_passes_with_merges(
    tmp_path: Path,
    build_dir: Path,
    reference: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    add_entries(tmp_path)
    machines = [tmp_path / f"machine-{i}" for i in (1, 2)]
    for machine in machines:
        machine.mkdir()
        make_season(machine, build_dir, entries="../entries")
    merged = tmp_path / "merged.jsonl"
    assert main(["schedule", "--config", str(machines[0] / "tournament.yaml")]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[-2:] == [
        "2 games: 0 recorded, 2 to play",
        "more games follow: round 2 waits for round 1's results (`koth play-season` plays them "
        "when they can be)",
    ]
    assert [line.rsplit("  ", 1)[-1] for line in listed[1:3]] == [
        "match 2, game 1",
        "match 2, game 2",
    ], listed
    passes = 0
    while True:
        passes += 1
        assert passes <= 10, "the sharded knockout never finished"
        shards = []
        for index, machine in enumerate(machines, 1):
            if merged.is_file():  # each machine starts from the merged records (the cache)
                (machine / "results").mkdir(exist_ok=True)
                shutil.copy(merged, machine / "results" / results.MAIN_FILE)
            config = ["--config", str(machine / "tournament.yaml"), "--no-progress"]
            assert main(["play-season", *config, "--shard", f"{index}/2"]) == 0
            shards.append(machine / "results" / f"shard-{index}-of-2.jsonl")
        err = capsys.readouterr().err
        if passes == 1:
            assert "round 2 waits for round 1's results" in err, err
            assert "merge the shards (`koth merge`) and run `koth play-season` again" in err
        assert all(p.is_file() for p in shards), "a shard's file exists, if only empty"
        inputs = [str(p) for p in shards] + ([str(merged)] if merged.is_file() else [])
        assert main(["merge", *inputs, "--out", str(merged)]) == 0
        capsys.readouterr()
        if "not done yet" not in err:
            break
    assert passes >= 3, "a knockout of three rounds needs a pass per round at least"
    assert stable(results.read_records(merged)[0]) == reference
    shutil.copy(merged, machines[0] / "results" / results.MAIN_FILE)
    # A shard with nothing left to play still leaves its file, empty (the workflow uploads it).
    empty = tmp_path / "nothing-left.jsonl"
    config = ["--config", str(machines[0] / "tournament.yaml"), "--no-progress"]
    assert main(["play-season", *config, "--shard", "1/2", "--out", str(empty)]) == 0
    assert empty.is_file() and empty.read_bytes() == b""
    assert main(["schedule", "--config", str(machines[0] / "tournament.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"{len(reference)} games: {len(reference)} recorded, 0 to play"


def test_a_knockout_preview_plays_the_whole_bracket(
    folder: Path, reference: list[dict[str, Any]]
) -> None:
    config = load_config(folder / "tournament.yaml")
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, 2) as pool:
            result = workflows.preview(
                config, ["e"], folder / "preview", sandbox, pool, lambda _: None
            )
    finally:
        sandbox.close()
    assert not result.failed
    assert result.doc["games_played"] == result.doc["games_scheduled"] == len(reference)
    found = results.read_records(folder / "preview" / workflows.RESULTS_FILE)[0]
    assert stable(found) == reference


def test_a_free_for_all_fills_the_odd_seat_with_the_builtin(
    tmp_path: Path, build_dir: Path
) -> None:
    add_entries(tmp_path)
    for name in ("d", "e"):
        shutil.rmtree(tmp_path / "entries" / name)
    (tmp_path / "tournament.yaml").write_text(
        f"format: free-for-all\nseed: 2\nrounds: 2\njobs: 2\noutput:\n  build: {build_dir}\n"
        "free_for_all:\n  seats: 2\n  runs: 4\n"
    )
    config = load_config(tmp_path / "tournament.yaml")
    report, rows, _ = stages.run_season(config, say=lambda _: None)
    assert report.failed == [] and report.waiting is None
    found, problems = results.read_records(config.output.results / results.MAIN_FILE)
    assert problems == [] and len(found) == 2 * 2 * 4, "two rounds of two tables of four runs"
    seats = Counter((s["entry"], i) for r in found for i, s in enumerate(r["seats"]))
    for name in ("a", "b", "c"):
        assert seats[(name, 0)] == seats[(name, 1)] == 4, "every seat equally often"
    builtin = stages.filler_hash(config)
    fillers = [s for r in found for s in r["seats"] if s["entry"] == "filler-1"]
    assert len(fillers) == 2 * 4 and {s["hash"] for s in fillers} == {builtin}
    assert {r.entry for r in rows} == {"a", "b", "c"}, "a filler is no entrant"
    line = lineup(config)
    assert {s.key for s in stages.plan_from(config, line, found).games} == {r["key"] for r in found}


def test_an_entry_named_like_a_filler_seat_is_refused_alone(
    tmp_path: Path, build_dir: Path
) -> None:
    """An entry named ``filler-1`` stopped every free-for-all season (exit 2, reported as a
    mistake in tournament.yaml): it meets the seat the host fills with its built-in bot. It is
    refused alone, with the reason, and the season goes on."""
    add_entries(tmp_path)
    for name in ("d", "e"):
        shutil.rmtree(tmp_path / "entries" / name)
    shutil.copytree(tmp_path / "entries" / "a", tmp_path / "entries" / "filler-1")
    manifest = tmp_path / "entries" / "filler-1" / "entry.yaml"
    manifest.write_text(manifest.read_text().replace("name: a", "name: filler-1"))
    (tmp_path / "tournament.yaml").write_text(
        f"format: free-for-all\nseed: 2\nrounds: 1\njobs: 2\noutput:\n  build: {build_dir}\n"
        "free_for_all:\n  seats: 2\n  runs: 2\n"
    )
    config = load_config(tmp_path / "tournament.yaml")
    report, rows, _ = stages.run_season(config, say=lambda _: None)
    assert report.failed == [] and report.played == 2 * 2, "two tables of two runs"
    refused = {r.entry: r.excluded for r in rows}
    assert (
        refused["filler-1"] is not None and "a name koth gives its own seats" in refused["filler-1"]
    ), refused
    assert {name for name, why in refused.items() if why is None} == {"a", "b", "c"}
    found = results.read_records(config.output.results / results.MAIN_FILE)[0]
    seated = {s["hash"] for r in found for s in r["seats"] if s["entry"] == "filler-1"}
    assert seated == {stages.filler_hash(config)}, "the filler seat holds the built-in bot"
