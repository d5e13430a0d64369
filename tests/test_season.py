"""A whole season with tiny C bots written into tmp_path: records, resume, keyed replays, bad
entries, parallel and sharded play, and the ``koth`` commands for the season's stages."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from runner.cli import stages
from runner.cli.main import main
from runner.rank import ratings
from runner.season import check, results, workers
from runner.season.config import Config, load_config
from runner.season.schedule import Shard

FIND = """static int find(int board[16][32], int head, int *x, int *y) {
    for (*y = 0; *y < 16; (*y)++)
        for (*x = 0; *x < 32; (*x)++)
            if (board[*y][*x] == head) return 1;
    return 0;
}
"""
X_THEN_O = """int bot(int board[16][32], char player) {
    int x, y;
    if (player == 'X') return find(board, '*', &x, &y) && %s ? '%s' : '%s';
    return find(board, '@', &x, &y) && %s ? '%s' : '%s';
}
"""
BOTS = {
    # Never moves: every reply walks into the edge (a no-op), so its games last all 2048 moves.
    "still": "int bot(int board[16][32], char player) {\n"
    "    (void)board;\n    return player == 'X' ? 'L' : 'R';\n}\n",
    # Along its own top/bottom edge, then along the side.
    "edger": FIND + X_THEN_O % ("y == 0 && x < 31", "R", "D", "y == 15 && x > 0", "L", "U"),
    # Down (or up) its own side first, then along the far edge.
    "diver": FIND + X_THEN_O % ("x == 0 && y < 15", "D", "R", "x == 31 && y > 0", "U", "L"),
}
BROKEN = "int bot(int board[16][32], char player) {\n    return 'L'\n}\n"  # missing ';'
CRASHER = (
    "int bot(int board[16][32], char player) {\n    volatile int *p = 0;\n"
    "    (void)board; (void)player;\n    return *p;\n}\n"
)


def add_bot(entries: Path, name: str, source: str) -> None:
    folder = entries / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.c").write_text(source + f'char *bot_name = "{name.title()}";\n')
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
    )


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build cache for the module: builds are keyed by content hash, so sharing is safe."""
    return tmp_path_factory.mktemp("build")


def small_season(folder: Path, jobs: int = 1, build: Path | None = None) -> Path:
    """``folder`` with the three BOTS and a round-robin of them (its builds in ``build``)."""
    for name, source in BOTS.items():
        add_bot(folder / "entries", name, source)
    output = f"output:\n  build: {build}\n" if build is not None else ""
    (folder / "tournament.yaml").write_text(
        f"entries: entries\nseed: 3\nrounds: 1\njobs: {jobs}\n{output}"
    )
    return folder


@pytest.fixture
def folder(tmp_path: Path, build_dir: Path) -> Path:
    return small_season(tmp_path, build=build_dir)


def config_of(folder: Path, **overrides: Any) -> Config:
    return load_config(folder / "tournament.yaml", overrides)


def run(config: Config, jobs: int = 1, max_games: int | None = None) -> tuple[Any, list[str]]:
    said: list[str] = []
    report, rows, doc = stages.run_season(config, jobs=jobs, max_games=max_games, say=said.append)
    return (report, rows, doc), said


def records(config: Config, name: str = results.MAIN_FILE) -> list[dict[str, Any]]:
    found, problems = results.read_records(config.output.results / name)
    assert problems == []
    return found


def scheduled_keys(config: Config) -> list[str]:
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, 1) as pool:
            line = check.lineup(config, sandbox, pool, say=lambda _: None)
    finally:
        sandbox.close()
    return [s.key for s in stages.schedule(config, line)]


def stable(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [results.without_measured(r) for r in results.canonical(found)]


def test_a_season_with_a_broken_and_a_crashing_entry_completes(folder: Path) -> None:
    add_bot(folder / "entries", "broken", BROKEN)
    add_bot(folder / "entries", "crasher", CRASHER)
    config = config_of(folder, rounds=2)
    (report, rows, doc), said = run(config)
    assert (report.scheduled, report.played, report.failed) == (12, 12, [])
    assert said[0] == "entries: 5 found, 3 play, excluded: broken, crasher"
    found = records(config)
    assert len(found) == 12 and len({r["key"] for r in found}) == 12
    assert sorted(r["key"] for r in found) == sorted(scheduled_keys(config))
    assert Counter(r["round"] for r in found) == {1: 6, 2: 6}
    for record in found:
        assert record["season_seed"] == 3 and set(record["measured"]) == {
            "cpu_s",
            "wall_s",
            "when",
            "output",
        }
    table = {r.entry: r for r in rows}
    assert [r.entry for r in rows[:3]] == ["diver", "edger", "still"]
    assert all(table[n].games == 8 for n in BOTS)
    assert table["still"].points == 0 and table["still"].losses == 8
    assert table["broken"].games == 0 and table["broken"].rank is None
    assert "does not compile" in (table["broken"].excluded or "")
    assert "error" in (table["broken"].excluded or ""), "the reason should show gcc's error"
    assert "smoke game" in (table["crasher"].excluded or "")
    assert "SIGSEGV" in (table["crasher"].excluded or "")
    saved = json.loads(config.output.standings.read_text())
    assert (saved["games_played"], saved["games_scheduled"]) == (12, 12)
    assert [e["entry"] for e in saved["entries"]] == [r.entry for r in rows]
    ranked = [r.entry for r in rows if r.excluded is None]
    assert saved["ratings"] == ratings.of_records(results.canonical(found), ranked), (
        "standings.json holds the ratings, fitted once, for the site"
    )
    assert list(saved["ratings"]["entries"]) == sorted(BOTS)


def test_resume_after_a_limited_run_plays_each_game_once(folder: Path) -> None:
    config = config_of(folder, rounds=2)
    (first, _, doc), _ = run(config, max_games=5)
    assert (first.played, first.left) == (5, 7)
    assert doc["games_played"] == 5
    (second, rows, doc), _ = run(config)
    assert (second.recorded, second.played) == (5, 7)
    keys = [r["key"] for r in records(config)]
    assert sorted(keys) == sorted(scheduled_keys(config)), "every game recorded exactly once"
    assert doc["games_played"] == 12


def test_resume_after_sigkill_mid_season(folder: Path) -> None:
    config = config_of(folder, rounds=4)
    out = config.output.results / results.MAIN_FILE
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "runner.cli.main",
            "season",
            "--config",
            str(folder / "tournament.yaml"),
            "--rounds",
            "4",
            "--jobs",
            "2",
            "--no-progress",
        ],
        cwd=Path(__file__).resolve().parent.parent,  # this checkout's runner package
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    try:
        while not (out.is_file() and out.read_bytes().count(b"\n") >= 3):
            assert process.poll() is None, "the season ended before it could be killed"
            assert time.monotonic() < deadline, "the season recorded nothing within 60 s"
            time.sleep(0.01)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    killed_at = len(results.read_records(out)[0])
    assert 3 <= killed_at < 24
    (report, _, doc), _ = run(config)
    assert report.recorded == killed_at and report.played == 24 - killed_at
    keys = [r["key"] for r in records(config)]
    assert sorted(keys) == sorted(scheduled_keys(config)), "every game recorded exactly once"


def test_adding_an_entry_plays_only_its_games(folder: Path) -> None:
    config = config_of(folder)
    run(config)
    before = records(config)
    add_bot(folder / "entries", "late", BOTS["still"].replace("'L'", "'U'"))
    (report, rows, doc), _ = run(config)
    assert (report.recorded, report.played) == (6, 6)
    after = records(config)
    assert after[:6] == before, "earlier records must be untouched"
    assert all("late" in [s["entry"] for s in r["seats"]] for r in after[6:])
    assert doc["games_played"] == 12 and {r.games for r in rows} == {6}


def test_editing_an_entry_replays_only_its_games(folder: Path) -> None:
    config = config_of(folder)
    run(config)
    source = folder / "entries" / "edger" / "bot.c"
    source.write_text(source.read_text() + "/* a new version */\n")
    (report, rows, doc), _ = run(config)
    assert (report.recorded, report.played) == (2, 4)
    found = records(config)
    assert len(found) == 10, "superseded records stay in the file"
    replayed = found[6:]
    assert all("edger" in [s["entry"] for s in r["seats"]] for r in replayed)
    new_hash = {r.entry: r.content_hash for r in rows}["edger"]
    assert all(s["hash"] == new_hash for r in replayed for s in r["seats"] if s["entry"] == "edger")
    assert doc["games_played"] == 6, "standings count only the current version's games"
    assert {r.games for r in rows} == {4}


def test_a_torn_last_line_is_skipped_and_its_game_replayed(folder: Path) -> None:
    config = config_of(folder)
    run(config)
    out = config.output.results / results.MAIN_FILE
    data = out.read_bytes()
    out.write_bytes(data[: len(data) - 100])  # a write cut short
    (report, _, doc), said = run(config)
    assert any("last line is incomplete" in s for s in said)
    assert any("cut off an incomplete last line" in s for s in said)
    assert (report.recorded, report.played) == (5, 1)
    assert sorted(r["key"] for r in records(config)) == sorted(scheduled_keys(config))
    assert doc["games_played"] == 6


def test_same_inputs_give_identical_records_with_one_or_two_jobs(folder: Path) -> None:
    one = config_of(folder)
    run(one, jobs=1)
    (folder / "tournament.yaml").write_text(
        (folder / "tournament.yaml").read_text() + "  results: results2\n"
    )
    two = config_of(folder)
    assert two.output.results != one.output.results
    run(two, jobs=2)
    assert stable(records(one)) == stable(records(two))
    assert len(records(one)) == 6


def test_sharded_play_merged_equals_an_unsharded_run(folder: Path) -> None:
    config = config_of(folder, rounds=2)
    run(config)
    shards_dir = folder / "shards"
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, 2) as pool:
            line = check.lineup(config, sandbox, pool, say=lambda _: None)
            outs = []
            for index in (1, 2, 3):
                out = shards_dir / f"shard-{index}.jsonl"
                # A fresh results folder, as on a separate machine: nothing is recorded yet.
                machine = shards_dir / f"machine-{index}"
                fresh = replace(config, output=replace(config.output, results=machine))
                report = stages.play(
                    fresh,
                    line,
                    pool,
                    shard=Shard(index, 3),
                    out=out,
                    show_progress=False,
                    say=lambda _: None,
                )
                assert report.played == 4
                outs.append(out)
    finally:
        sandbox.close()
    merged = folder / "merged.jsonl"
    count, problems = results.merge(outs, merged)
    assert (count, problems) == (12, [])
    assert stable(results.read_records(merged)[0]) == stable(records(config))


def test_no_escape_sequence_from_an_entry_reaches_the_terminal(
    folder: Path, build_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry whose source holds terminal escapes (retitle, clear the screen, a backspace to
    overwrite the line) and does not compile: the compiler quotes them, koth prints
    them as visible escapes. So too from a cached verdict (a CI cache) written by someone else."""
    add_bot(
        folder / "entries",
        "escapes",
        'int bot(int b[16][32], char p) { return "\x1b]0;T\x07\x1b[2J\x08ok" + ; }\n',
    )
    common = ["--config", str(folder / "tournament.yaml")]
    assert main(["build", *common]) == 1
    out = capsys.readouterr().out
    assert "FAILED  escapes  compile:" in out and "\\x1b]0;T\\x07\\x1b[2J\\x08ok" in out, out
    assert not {"\x1b", "\x07", "\x08"} & set(out), out
    saved = build_dir / "escapes" / "build.json"
    verdict = json.loads(saved.read_text())
    assert "\x1b" not in verdict["message"], "the stored verdict should be clean too"
    verdict["message"] = "bot.c does not compile:\n\x1b[2J\x1b]0;forged\x07error: here"
    saved.write_text(json.dumps(verdict))
    for command in ("build", "check"):
        main([command, *common])
        out = capsys.readouterr().out
        assert "\\x1b[2J" in out and "\x1b" not in out, out


def test_the_season_commands(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add_bot(folder / "entries", "broken", BROKEN)
    config_file = str(folder / "tournament.yaml")
    common = ["--config", config_file]
    assert main(["build", *common]) == 1
    assert "FAILED  broken  compile:" in capsys.readouterr().out
    assert main(["check", *common]) == 1
    assert "3 play, 1 excluded" in capsys.readouterr().out

    assert main(["schedule", *common, "--json", "--shard", "2/2"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [g["index"] for g in listed] == [1, 3, 5]
    assert not any(g["recorded"] for g in listed)

    assert main(["play-season", *common, "--shard", "2/2", "--no-progress"]) == 0
    shard_file = folder / "results" / "shard-2-of-2.jsonl"
    assert len(results.read_records(shard_file)[0]) == 3
    assert main(["season", *common, "--no-progress", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "excluded: bot.c does not compile" in out
    assert "6 of 6 games" in out
    assert len(records(config_of(folder))) == 3, "the season must skip the shard's games"

    merged = folder / "results" / "games.jsonl"
    assert main(["merge", str(shard_file), str(merged), "--out", str(merged)]) == 0
    assert len(results.read_records(merged)[0]) == 6
    assert main(["standings", *common]) == 0
    assert "6 of 6 games" in capsys.readouterr().out

    assert main(["play-season", *common, "--shard", "3/2"]) == 2
    assert "Fix: write i/n" in capsys.readouterr().err
    assert main(["merge", str(folder / "nope.jsonl"), "--out", str(merged)]) == 2
    assert main(["season", *common, "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
