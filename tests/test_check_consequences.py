"""The check stage excludes only what cannot play by the rules' own consequence of a fault
(runner/season/check.py, issue 45): a reply late on wall-clock time alone is checked again and never
cached (the Cluster example `rotator`, under load, was excluded for "no reply within 0.1 s of
wall-clock time at turn 2", and the verdict was kept in build/rotator/check.json); an Easter Egg
Hunt entry that loses a turn to a fault plays, as the rules say a fault costs the turn, and only
one that plays no turn at all is out; a cached verdict says "(cached)", and --recheck checks
again."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_season import BOTS, add_bot

from runner.cli.main import main
from runner.season import check, workers
from runner.season.config import Config, load_config
from runner.season.workers import Done, GamePool, Task

REPO = Path(__file__).resolve().parents[1]
Edit = Callable[[dict[str, Any], int], None]  # a played game's record and the entry's seat


class ScriptedPool(GamePool):
    """A pool that plays in this process and lets the test change what the smoke games of one
    entry record, ``times`` times (as a loaded machine, or a bot, would have made them)."""

    def __init__(self, config: Config, entry: str, edit: Edit, times: int) -> None:
        super().__init__(config.game, workers.bot_limits(config), 1, None, config.sandbox)
        self.entry, self.edit, self.times = entry, edit, times
        self.games: list[str] = []  # the entry checked in each smoke game, in order

    def play(self, tasks: Sequence[Task]) -> Iterator[Done]:
        for index, played, error in super().play(tasks):
            players = tasks[index].players
            seat = next(s for s, p in enumerate(players) if not p.entry.startswith("builtin"))
            self.games.append(players[seat].entry)
            if played is not None and players[seat].entry == self.entry and self.times > 0:
                self.times -= 1
                played = copy.deepcopy(played)
                self.edit(played, seat)
            yield index, played, error


def checked(config: Config, pool: ScriptedPool, recheck: bool = False) -> dict[str, check.Verdict]:
    sandbox = workers.make_sandbox(config)
    try:
        with pool:
            builds = check.build_all(config, sandbox)
            verdicts = check.check_all(config, builds, sandbox, pool, lambda _: None, recheck)
    finally:
        sandbox.close()
    return {v.entry: v for v in verdicts}


# -- wall-clock time alone -----------------------------------------------------------------------


def late(played: dict[str, Any], seat: int) -> None:
    """The smoke game as a loaded machine made it: the entry's reply came after the wall-clock
    limit, its CPU within its limits."""
    who = f"{'XO'[seat]} (rotator)"
    played["outcome"].update(
        points=[0.0, 1.0] if seat == 0 else [1.0, 0.0],
        termination="timeout",
        faulty=seat,
        detail=f"{who} no reply within 0.1 s of wall-clock time at turn 2",
    )


@pytest.fixture
def cluster(tmp_path: Path) -> Config:
    shutil.copytree(
        REPO / "examples" / "cluster" / "entries" / "rotator", tmp_path / "e" / "rotator"
    )
    (tmp_path / "tournament.yaml").write_text("game: cluster-v2\nentries: e\njobs: 1\n")
    return load_config(tmp_path / "tournament.yaml")


def test_rotator_late_under_load_once_is_checked_again_and_plays(cluster: Config) -> None:
    pool = ScriptedPool(cluster, "rotator", late, times=1)
    verdict = checked(cluster, pool)["rotator"]
    assert verdict.ok, verdict.message
    assert pool.games == ["rotator"] * 4, "both smoke games, then both again"
    saved = json.loads((cluster.output.build / "rotator" / "check.json").read_text())
    assert saved["ok"] is True, "the verdict of the games it passed is cached"


def test_rotator_late_every_time_is_excluded_for_this_run_only(cluster: Config) -> None:
    pool = ScriptedPool(cluster, "rotator", late, times=99)
    verdict = checked(cluster, pool)["rotator"]
    assert not verdict.ok and "wall-clock time alone" in verdict.message
    assert "not cached; the next run checks it again" in verdict.message
    assert len(pool.games) == 2 * check.WALL_CLOCK_TRIES
    assert not (cluster.output.build / "rotator" / "check.json").exists(), "nothing is cached"
    again = ScriptedPool(cluster, "rotator", late, times=0)
    assert checked(cluster, again)["rotator"].ok, "the next run (no longer loaded) checks again"
    assert again.games == ["rotator", "rotator"]


def test_a_cpu_timeout_is_no_wall_clock_failure() -> None:
    assert check._wall_clock_only("timeout", "X (a) no reply within 1 s of wall-clock time at 2")
    assert check._wall_clock_only("timeout", "X (a) does not read its input at turn 2")
    assert not check._wall_clock_only("timeout", "X (a) over 100 ms CPU on one move at turn 2")
    assert not check._wall_clock_only("timeout", "X (a) over the 10 s CPU limit for a game")
    assert not check._wall_clock_only("crash", "X (a) SIGSEGV at turn 2")


# -- the Easter Egg Hunt: a fault costs a turn ---------------------------------------------------

HOPELESS = 'import sys\nsys.stdin.read()\nprint("x")\n'  # never a direction: every turn a fault
STUMBLER = """import sys
lines = sys.stdin.read().split("\\n") + [""] * 6
count = int(lines[5]) if lines[5].isdigit() else 0
if count == 3:
    print("x")  # a fault: the memory stays 3, so every turn from the fourth is one too
else:
    print(f"4\\nN\\n{count + 1}")
"""


def add_python(entries: Path, name: str, source: str) -> None:
    folder = entries / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: python\n"
    )


@pytest.fixture
def egghunt(tmp_path: Path) -> Config:
    shutil.copytree(REPO / "examples" / "egghunt" / "entries" / "random", tmp_path / "e" / "random")
    add_python(tmp_path / "e", "hopeless", HOPELESS)
    add_python(tmp_path / "e", "stumbler", STUMBLER)
    (tmp_path / "tournament.yaml").write_text(
        "game: egghunt-v1\nformat: free-for-all\nentries: e\njobs: 2\nlimits: {move_wall_s: 5.0}\n"
    )
    return load_config(tmp_path / "tournament.yaml")


def one_bad_turn(played: dict[str, Any], seat: int) -> None:
    """The entry answered badly at its third turn alone: its stand-in move (stay, do nothing,
    the memory kept) was played, and the fault recorded."""
    turn = played["moves"][2]
    memory = played["moves"][1][seat].split(" ", 2)[2:]
    turn[seat] = " ".join(["9", "N", *memory])
    who = f"A ({played['seats'][seat]['entry']})"
    played["outcome"]["faults"].append(
        {
            "seat": seat,
            "turn": 3,
            "at": 2,
            "termination": "invalid_move",
            "detail": f"{who} replied 'x', not a direction 1 to 9 at turn 3",
        }
    )


def test_an_egg_hunt_entry_plays_unless_it_can_play_no_turn(egghunt: Config) -> None:
    pool = ScriptedPool(egghunt, "random", one_bad_turn, times=1)
    verdicts = checked(egghunt, pool)
    assert verdicts["random"].ok, "one bad turn costs that turn, not the season"
    assert verdicts["random"].note.startswith("lost 1 of "), verdicts["random"].note
    assert verdicts["stumbler"].ok, "a bot that played turns plays, however many it lost"
    assert "not a direction" in verdicts["stumbler"].note
    hopeless = verdicts["hopeless"]
    assert not hopeless.ok and "it played no turn: every turn was a fault" in hopeless.message


# -- (cached) and --recheck ------------------------------------------------------------------


def test_a_cached_verdict_says_so_and_recheck_checks_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("still", "edger"):
        add_bot(tmp_path / "entries", name, BOTS[name])
    config = tmp_path / "tournament.yaml"
    config.write_text("entries: entries\njobs: 1\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "(cached)" not in capsys.readouterr().out
    assert main(["check", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.count("builds and passes the smoke games (cached)") == 2, out
    assert main(["check", "--config", str(config), "--recheck"]) == 0
    assert "(cached)" not in capsys.readouterr().out
