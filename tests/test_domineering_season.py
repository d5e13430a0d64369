"""The Domineering example season, played for real: `koth season --config
examples/domineering/tournament.yaml` (a knockout of best-of-3 matches, a fresh process per move,
one second of wall time a move), in the local sandbox and in Docker, resumed after `kill -9`
between rounds and inside a round, and sharded over two "machines" with `koth merge` between
passes — each ending with the records of one uninterrupted run.

The example's alphabeta thinks on the clock (its own 0.43 s budget a move), so its games depend
on the machine's load. The runs compared record for record use the same entries with alphabeta
built with a node budget instead (``#define NODE_BUDGET``, a switch of its own source), which
makes every game a function of the seed; the season as shipped is played once, locally, at the
event's limits.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_format_seasons import kill_when, knows_round, lineup, stable

from runner.cli import stages
from runner.cli.main import main
from runner.games.domineering import RULES
from runner.sandbox.zygote_client import BotLimits
from runner.season import results
from runner.season.config import load_config

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "domineering"
QUICK_ALPHABETA = (
    "#define NODE_BUDGET 20000  /* tests: a budget the machine's load cannot change */\n"
)
LIMITS = BotLimits(move_cpu_s=1.0, game_cpu_s=60.0, move_wall_s=1.0, memory_bytes=256 << 20)


def season_folder(folder: Path, build: Path, quick: bool = True, sandbox: str = "local") -> Path:
    """The example season in ``folder``: its tournament.yaml (builds cached in ``build``) and a
    copy of its entries, alphabeta on a node budget when ``quick``. Returns the yaml's path."""
    shutil.copytree(EXAMPLE / "entries", folder / "entries")
    if quick:
        source = folder / "entries" / "alphabeta" / "bot.c"
        source.write_text(QUICK_ALPHABETA + source.read_text())
    text = (EXAMPLE / "tournament.yaml").read_text()
    assert "output: {build: build," in text and "sandbox: local" in text
    text = text.replace("output: {build: build,", f"output: {{build: {build},")
    (folder / "tournament.yaml").write_text(text.replace("sandbox: local", f"sandbox: {sandbox}"))
    return folder / "tournament.yaml"


def recorded(config_path: Path) -> list[dict[str, Any]]:
    config = load_config(config_path)
    found, problems = results.read_all(results.results_files(config.output.results))
    assert problems == [], problems
    return found


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("build")


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory, build_dir: Path) -> Path:
    """`koth season` from scratch, uninterrupted and unsharded (alphabeta on a node budget);
    the season's folder."""
    folder = tmp_path_factory.mktemp("reference")
    config = season_folder(folder, build_dir)
    assert main(["season", "--config", str(config), "--no-progress"]) == 0
    return folder


@pytest.fixture(scope="module")
def reference(reference_run: Path) -> list[dict[str, Any]]:
    found = recorded(reference_run / "tournament.yaml")
    assert {r["game"] for r in found} == {RULES.id}
    return stable(found)


def test_the_example_season_plays_its_bracket_to_the_end(
    reference_run: Path, reference: list[dict[str, Any]]
) -> None:
    rounds = [r["round"] for r in reference]
    assert set(rounds) == {1, 2, 3}, "six entries: quarter-finals (two byes), semi-finals, final"
    faults = [r["outcome"]["detail"] for r in reference if r["outcome"]["faulty"] is not None]
    assert faults == [], f"no example entry faults: {faults}"
    doc = json.loads((reference_run / "standings.json").read_text())
    bracket = doc["bracket"]
    assert bracket["champion"] == "alphabeta", "the strong example wins the bracket"
    final = bracket["matches"][-1]
    assert final["what"] == "final" and final["winner"] == "alphabeta"
    assert [(row["rank"], row["entry"]) for row in doc["entries"]][:2] == [
        (1, "alphabeta"),
        (2, final["loser"]),
    ]
    for match in bracket["matches"]:
        if None not in match["sides"]:  # a real match, not a bye: won by two games of three
            assert sorted(match["wins"]) in ([0, 2], [1, 2]), match
            first = match["games"][0]["seats"]
            assert match["games"][1]["seats"] == first[::-1], "sides alternate"
    site = reference_run / "_site"
    assert (site / "bracket.html").is_file(), "the season renders its bracket"
    for game in (g for m in bracket["matches"] for g in m["games"]):
        assert (site / "games" / f"{game['key'][:12]}.html").is_file(), "each game has its replay"


def test_a_killed_season_resumes_between_rounds_and_inside_a_round(
    tmp_path: Path, build_dir: Path, reference: list[dict[str, Any]]
) -> None:
    path = season_folder(tmp_path, build_dir)
    config = load_config(path)
    line = lineup(config)
    out = config.output.results / results.MAIN_FILE
    kill_when(tmp_path, lambda: out.is_file() and out.read_bytes().count(b"\n") >= 1)
    inside = results.read_records(out)[0]
    assert 1 <= len(inside) < 5, "killed inside round 1 (its five games)"
    round_2 = knows_round(config, line, 2)
    kill_when(tmp_path, lambda: len(results.read_records(out)[0]) > len(inside) and round_2())
    between = results.read_records(out)[0]
    assert any(r["round"] == 1 for r in between)
    assert main(["play-season", "--config", str(path), "--no-progress"]) == 0
    found = results.read_records(out)[0]
    assert len({r["key"] for r in found}) == len(found), "a game was recorded twice"
    assert stable(found) == reference


def test_the_season_shards_over_passes_with_merges(
    tmp_path: Path, build_dir: Path, reference: list[dict[str, Any]], capsys: Any
) -> None:
    machines = [tmp_path / f"machine-{i}" for i in (1, 2)]
    for machine in machines:
        season_folder(machine, build_dir)
    merged = tmp_path / "merged.jsonl"
    passes = 0
    while True:
        passes += 1
        assert passes <= 6, "the sharded knockout never finished"
        shards = []
        for index, machine in enumerate(machines, 1):
            if merged.is_file():  # each machine starts from the merged records
                (machine / "results").mkdir(exist_ok=True)
                shutil.copy(merged, machine / "results" / results.MAIN_FILE)
            args = ["--config", str(machine / "tournament.yaml"), "--no-progress"]
            assert main(["play-season", *args, "--shard", f"{index}/2"]) == 0
            shards.append(machine / "results" / f"shard-{index}-of-2.jsonl")
        err = capsys.readouterr().err
        inputs = [str(p) for p in shards] + ([str(merged)] if merged.is_file() else [])
        assert main(["merge", *inputs, "--out", str(merged)]) == 0
        if "not done yet" not in err:
            break
    assert passes >= 3, "a bracket of three rounds needs a pass per round at least"
    assert stable(results.read_records(merged)[0]) == reference


@pytest.mark.docker
def test_the_season_plays_the_same_in_docker(
    tmp_path: Path, reference: list[dict[str, Any]]
) -> None:
    config = season_folder(tmp_path, tmp_path / "build", sandbox="docker")
    assert main(["season", "--config", str(config), "--no-progress", "--no-site"]) == 0
    assert stable(recorded(config)) == reference, "docker and local record the same games"


def test_the_example_as_shipped_plays_at_the_events_limits(tmp_path: Path) -> None:
    """The shipped entries (alphabeta on the clock) at one second a move, process start included:
    every entry builds, passes its check and plays its matches without a fault."""
    config = load_config(season_folder(tmp_path, tmp_path / "build", quick=False))
    assert config.limits.move_wall_s == 1.0 and config.limits.first_move_wall_s is None
    report, rows, doc = stages.run_season(config, say=lambda text: None)
    assert report.failed == [] and report.waiting is None
    assert [r.entry for r in rows if r.excluded is not None] == [], "every example plays"
    found = recorded(tmp_path / "tournament.yaml")
    faults = [r["outcome"]["detail"] for r in found if r["outcome"]["faulty"] is not None]
    assert faults == [], f"no example entry faults at the event's limits: {faults}"
    assert doc["bracket"]["champion"] is not None


ARENA_BOT = REPO / "tests" / "fixtures" / "domineering_arena" / "arena"


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_bot_written_for_the_arena_plays_the_example_knockout_without_a_fault(
    tmp_path: Path, sandbox: str
) -> None:
    """A C bot written against the event's arena (Domineering.jar): it reads the message with
    scanf("%d") and prints its move on three lines. Entered in the example knockout, every game
    is played without a fault, in either sandbox, and its moves are the moves it meant."""
    config = season_folder(tmp_path, tmp_path / "build")
    shutil.copytree(ARENA_BOT, tmp_path / "entries" / "arena")
    args = ["season", "--config", str(config), "--sandbox", sandbox, "--no-progress", "--no-site"]
    assert main(args) == 0
    found = recorded(config)
    faults = [r["outcome"]["detail"] for r in found if r["outcome"]["faulty"] is not None]
    assert faults == [], f"no game of the knockout faults: {faults}"
    mine = [r for r in found if "arena" in [seat["entry"] for seat in r["seats"]]]
    assert len(mine) >= 2, "the arena bot plays its match (two games at least)"
    for record in mine:
        seat = [s["entry"] for s in record["seats"]].index("arena")
        state = RULES.initial_state(random.Random(record["seed"]), 2, {})
        for move in record["moves"]:
            if state.mover == seat:  # its first legal move, row-major, bombs after dominoes
                assert move == RULES.move_text(RULES.legal_moves(state, seat)[0]), record["key"]
            state = RULES.apply(state, {state.mover: RULES.parse_move(state.mover, move)})
        assert RULES.outcome(state) is not None, "each of its games is played to its end"


# -- bots that break the rules lose their game, with the reason; what the arena takes, koth takes --

# A bot reads its one line and finds its first legal move (``kind row col``: the first free place
# for its domino, else the first square its bomb may clear), as the built-in bot does; the body
# says what it writes, and whether it exits.
PYTHON_BOT = """import os, sys, time
numbers = [int(word) for word in sys.stdin.readline().split()]
side, cells, bombs = numbers[0], numbers[1:170], numbers[170]
moves_seen = 169 - cells.count(0)
dr, dc = (0, 1) if side == 1 else (1, 0)
free = [
    (1, r, c)
    for r in range(13 - dr)
    for c in range(13 - dc)
    if cells[r * 13 + c] == 0 and cells[(r + dr) * 13 + c + dc] == 0
]
partner = {}
for i, cell in enumerate(cells):
    if cell and i not in partner:
        partner[i] = i + (1 if cell == 1 else 13)
        partner[partner[i]] = i
squares = [
    (2, r, c)
    for r in range(9)
    for c in range(9)
    if all(
        r <= partner[i] // 13 < r + 5 and c <= partner[i] % 13 < c + 5
        for i in (y * 13 + x for y in range(r, r + 5) for x in range(c, c + 5))
        if i in partner
    )
]
kind, row, col = (free + (squares if bombs else []) + [(1, 0, 0)])[0]
{body}
"""
FAULTS = [
    # (name, what the bot does, termination, words of the reason)
    ("covered", 'print("1 0 0", flush=True)', "invalid_move", "'1 0 0': (0, 0)"),
    ("twice", 'print("2 0 0", flush=True)', "invalid_move", "has already used its bomb"),
    ("offboard", 'print("1 -1 -1", flush=True)', "invalid_move", "'1 -1 -1'"),
    ("words", 'print(f"move 1 {row} {col}")', "invalid_move", "'move' is not an integer"),
    ("few", 'print(f"1\\n{row}")', "invalid_move", "it ends before three integers"),
    ("silent", "pass", "invalid_move", "replied '' (nothing)"),
    ("crasher", "raise SystemExit(3)", "crash", "exited with code 3"),
    ("aborts", "os.abort()", "crash", "SIGABRT"),
    ("flood", 'sys.stdout.write("1 " * 40000)', "disconnect", "wrote more than 65536 bytes"),
    (
        "lingers",  # its move written and flushed, but it does not exit: the move never ends
        'print(f"1 {row} {col}", flush=True)\ntime.sleep(3 if moves_seen else 0)',
        "timeout",
        "did not exit within 1 s of wall-clock time",
    ),
    (
        "closer",  # its output closed, the process lives on
        'print(f"1 {row} {col}", flush=True)\nos.close(1)\ntime.sleep(3 if moves_seen else 0)',
        "timeout",
        "did not exit within 1 s of wall-clock time",
    ),
]
# Bots whose replies the arena takes: each plays its whole games without a fault.
PLAYERS = [
    ("lines", 'sys.stdout.write(f"{kind}\\n{row}\\n{col}\\n")'),  # the move on three lines
    ("junk", 'print(f"{kind} {row} {col} and then junk\\n7 7 7 x")'),  # after it: ignored
    ("late", 'print(f" \\n\\n {kind} {row}", flush=True)\ntime.sleep(0.05)\nprint(col)'),
    ("unclean", 'print(f"{kind} {row} {col}", flush=True)\nos._exit(5)'),  # a move, an error
    ("aborted", 'print(f"{kind} {row} {col}", flush=True)\nos.abort()'),  # a move, a signal
    ("unflushed", 'sys.stdout.write(f"{kind} {row} {col}")'),  # no newline nor flush: at exit
]


def built_pair(sandbox: Any, root: Path, name: str, body: str) -> list[Any]:
    """The bot ``name`` (PYTHON_BOT with ``body``) and the built-in first-legal, built."""
    from runner.games.domineering import SPEC
    from runner.season.build import build_entry
    from runner.season.entries import load_entry

    builds = []
    for entry, source in ((name, PYTHON_BOT.replace("{body}", body)), ("first", None)):
        folder = root / "entries" / entry
        if source is None:
            shutil.copytree(SPEC.builtins[0].folder, folder)
        else:
            folder.mkdir(parents=True)
            (folder / "bot.py").write_text(source)
        (folder / "entry.yaml").write_text(
            f"name: {entry}\nauthor: tests\ndescription: a test bot\nlanguage: python\n"
        )
        built = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, SPEC)
        assert built.ok, built.message
        builds.append(built)
    return builds


def play_both_sides(sandbox: Any, builds: list[Any]) -> list[Any]:
    """A game with the first build as Left, then one with it as Right: each's outcome, by seat."""
    from runner.games.domineering import SPEC
    from runner.play.referee import play_game

    played = []
    for seat in (0, 1):
        players = [b.player() for b in (builds if seat == 0 else builds[::-1])]
        played.append(play_game(SPEC, players, sandbox, LIMITS, seed=1))
    return played


@pytest.mark.parametrize(("name", "body", "termination", "reason"), FAULTS)
def test_a_bot_that_breaks_a_rule_or_a_limit_loses_with_the_reason(
    local_sandbox: Any, tmp_path: Path, name: str, body: str, termination: str, reason: str
) -> None:
    builds = built_pair(local_sandbox, tmp_path, name, body)
    for seat, result in enumerate(play_both_sides(local_sandbox, builds)):
        outcome = result.outcome
        assert outcome.faulty == seat, f"{name} as seat {seat}: {outcome.detail}"
        assert outcome.termination.value == termination, outcome.detail
        assert reason in outcome.detail, outcome.detail
        assert outcome.points[seat] == 0.0 and outcome.points[1 - seat] == 1.0


@pytest.mark.parametrize(("name", "body"), PLAYERS)
def test_a_reply_the_arena_takes_is_a_move(
    local_sandbox: Any, tmp_path: Path, name: str, body: str
) -> None:
    """A move over three lines, with junk after it, written in two parts, followed by an
    unclean exit or a signal, or left for the exit to flush: the move, as in the arena. The bot
    plays its first legal move every time: a game is played to its end, and what it played is
    just that."""
    builds = built_pair(local_sandbox, tmp_path, name, body)
    for seat, result in enumerate(play_both_sides(local_sandbox, builds)):
        outcome = result.outcome
        assert outcome.faulty is None and outcome.termination.value == "normal", outcome.detail
        state = RULES.initial_state(random.Random(1), 2, {})
        for move in result.moves:
            if state.mover == seat:
                assert move == RULES.move_text(RULES.legal_moves(state, seat)[0]), (
                    f"{name} as seat {seat} played its first legal move"
                )
            state = RULES.apply(state, {state.mover: RULES.parse_move(state.mover, move)})
        assert RULES.outcome(state) is not None, "the record replays to the game's end"
