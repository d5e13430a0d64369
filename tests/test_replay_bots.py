"""``koth replay --bot``: a bot fed one seat's recorded inputs, in the sandbox or under a tool.

For every game: the same bots reproduce every recorded game to its end (the example seasons'
records for Snakes and Cluster; games played here with the example entries, or with test bots,
for the others); a bot edited to answer differently from some position on is reported diverging
exactly where a real game with it first differs; a crash is reproduced at its recorded turn (two
seats: the game's end; more seats: the seat retired, or playing its stand-in move on).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from replaying import (
    DOMINEERING_BOT,
    EGGHUNT_BOT,
    REPO,
    Table,
    edited,
    feed_seat,
    first_difference,
    seeds,
    write_entry,
)

from runner.cli.main import main
from runner.games import GAMES, find_game
from runner.games.base import EMPTY, Setup
from runner.play.playback import final_state

GOLDEN = REPO / "tests" / "golden" / "records"
EXAMPLES = REPO / "examples"
CRASHY = REPO / "docs" / "debugging" / "crashy"
DOC_SEED = 8831098776376459342  # the seed of the worked example's game (docs/debugging.md)
SEED = seeds(1, 5)[0]  # a game played both for its replay and against an edited bot


def golden(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


@dataclass
class Recorded:
    """Recorded games of one game, their setup, and the folder of every entry in them."""

    records: list[dict[str, Any]]
    folders: dict[str, Path]


def _entries(folder: Path) -> dict[str, Path]:
    return {p.name: p for p in folder.iterdir() if (p / "entry.yaml").is_file()}


def _snakes(table: Table, tmp: Path) -> Recorded:
    return Recorded(golden("snakes-default"), _entries(REPO / "entries"))


def _cluster(table: Table, tmp: Path) -> Recorded:
    return Recorded(golden("cluster-example"), _entries(EXAMPLES / "cluster" / "entries"))


def _domineering_bots(tmp: Path, **defines: int) -> dict[str, Path]:
    """Domineering bots in C. (The example bots exit right after replying, and the sandbox
    of this version may find such a process ended before it reads its reply.)"""
    folders = {}
    for style in (1, 2):
        source = DOMINEERING_BOT.replace("#define STYLE 1", f"#define STYLE {style}")
        for macro, value in defines.items():
            source = source.replace(f"#define {macro} 0", f"#define {macro} {value}")
        folders[f"placer{style}"] = write_entry(tmp / "domineering" / f"placer{style}", source, "c")
    return folders


def _domineering(table: Table, tmp: Path) -> Recorded:
    folders = _domineering_bots(tmp)
    a, b = folders["placer1"], folders["placer2"]
    records = [
        table.play(pair, seed) for pair, seed in zip([[a, b], [b, a]], seeds(2, 1), strict=True)
    ]
    return Recorded(records, folders)


def _multisnake(table: Table, tmp: Path) -> Recorded:
    spec, folders = table.spec, _entries(EXAMPLES / "multisnake" / "entries")
    four = [folders[n] for n in ("careful", "gourmet", "random", "wary")]
    two = [folders[n] for n in ("voronoi", "roomy")]
    setup4, setup2 = spec.sample_setup(4), spec.sample_setup(2)
    records = [table.play(four, seeds(1, 2)[0], setup4), table.play(two, seeds(1, 3)[0], setup2)]
    return Recorded(records, folders)  # each played on the sample map for its seat count


def _egghunt_bots(tmp: Path, **defines: int) -> dict[str, Path]:
    """Seven C bots of the Easter Egg Hunt (the example bots read until their input ends)."""
    folders = {}
    for style in range(1, 8):
        name = f"hunter{style}"
        source = EGGHUNT_BOT.replace("#define STYLE 1", f"#define STYLE {style}")
        for macro, value in defines.items():
            source = source.replace(f"#define {macro} 0", f"#define {macro} {value}")
        folders[name] = write_entry(tmp / "egghunt" / name, source, "c")
    return folders


def _egghunt(table: Table, tmp: Path) -> Recorded:
    folders = _egghunt_bots(tmp)
    return Recorded([table.play(list(folders.values()), SEED)], folders)


CASES: dict[str, Callable[[Table, Path], Recorded]] = {
    "snakes-v2": _snakes,
    "cluster-v2": _cluster,
    "domineering-v2": _domineering,
    "multisnake-v2": _multisnake,
    "egghunt-v1": _egghunt,
}


def setup_of(game_id: str, record: dict[str, Any]) -> Setup:
    spec = find_game(game_id)
    return spec.sample_setup(len(record["seats"])) if record.get("setup") else EMPTY


@pytest.fixture(scope="module")
def tables(local_sandbox: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Table]:
    """A table per game for the whole module: builds and games made once."""
    root = tmp_path_factory.mktemp("tables")
    return {g: Table(find_game(g), local_sandbox, root / g / "build") for g in GAMES}


@pytest.fixture
def table(request: pytest.FixtureRequest, tables: dict[str, Table]) -> Table:
    return tables[request.param]


def test_every_game_of_the_registry_has_recorded_games_to_replay() -> None:
    assert set(CASES) == set(GAMES), "each game needs its recorded games in CASES"


@pytest.mark.parametrize("table", sorted(CASES), indirect=True)
def test_the_same_bots_reproduce_every_recorded_game_to_its_end(
    table: Table,
) -> None:
    spec = table.spec
    recorded = CASES[spec.id](table, table.root.parent)
    assert recorded.records, "there are games to replay"
    fed = 0
    for record in recorded.records:
        setup = setup_of(spec.id, record)
        for seat, held in enumerate(record["seats"]):
            build = table.build(recorded.folders[held["entry"]])
            verdict = feed_seat(spec, record, seat, build, table.sandbox, setup)
            assert verdict.reproduced, (
                f"{spec.id} game {record['key'][:12]}, seat {seat + 1} ({held['entry']}): "
                f"diverges at turn {verdict.diverged and verdict.diverged.turn}: "
                f"{verdict.difference}"
            )
            assert verdict.matched > 0, "the bot was asked something"
            fed += 1
    assert fed >= 4, "several seats of several games were replayed"


# -- an edited bot ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """An entry changed to answer differently from some point on, and the game to try it in."""

    folders: Callable[[Path], list[Path]]  # the seats' entries, by seat
    seat: int
    edit: Callable[[Path, Path], Path]  # (the seat's entry, a folder) → the edited entry
    seats: int = 2


def _greedy_wrapped(source: Path, folder: Path) -> Path:
    """Snakes: greedy, but once 150 cells are taken it steps anywhere else it can."""
    wrapper = """
int bot(int board[16][32], char player)
{
    static const int DX[4] = {-1, 1, 0, 0}, DY[4] = {0, 0, -1, 1};
    static const char MOVES[4] = {'L', 'R', 'U', 'D'};
    int taken = 0, hx = 0, hy = 0, head = player == 'X' ? '*' : '@';
    int move = original_bot(board, player);
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            taken += board[y][x] != '.';
            if (board[y][x] == head) {
                hx = x;
                hy = y;
            }
        }
    if (taken < 150)
        return move;
    for (int d = 0; d < 4; d++) {
        int x = hx + DX[d], y = hy + DY[d];
        if (MOVES[d] != move && x >= 0 && x < 32 && y >= 0 && y < 16 && board[y][x] == '.')
            return MOVES[d];
    }
    return move;
}
"""
    made = edited(
        source,
        folder,
        "int bot(int board[H][W], char player)",
        "int original_bot(int board[H][W], char player)",
    )
    bot = made / "bot.c"
    bot.write_text(bot.read_text() + wrapper)
    return made


def _python_from(turns: int, line: str, alternative: str) -> Callable[[Path, Path], Path]:
    """A Python bot that answers ``alternative`` instead of ``line``'s choice from its
    ``turns``-th move on (counted in its process: a bot for the whole game)."""

    def edit(source: Path, folder: Path) -> Path:
        indent = line[: len(line) - len(line.lstrip())]
        counted = (
            f"{indent}main.turns = getattr(main, 'turns', 0) + 1\n"
            f"{indent}if main.turns >= {turns}:\n{indent}    {alternative}\n"
            f"{indent}else:\n{indent}    {line.lstrip()}"
        )
        return edited(source, folder, line, counted)

    return edit


EDITS: dict[str, Edit] = {
    "snakes-v2": Edit(
        lambda tmp: [REPO / "entries" / "greedy", REPO / "entries" / "turtle"], 0, _greedy_wrapped
    ),
    "cluster-v2": Edit(
        lambda tmp: [EXAMPLES / "cluster" / "entries" / n for n in ("greedy", "random")],
        1,
        _python_from(
            4,
            '        sys.stdout.write(rng.choice(moves) + "\\n")',
            'sys.stdout.write(moves[-1] + "\\n")',
        ),
    ),
    "domineering-v2": Edit(
        lambda tmp: list(_domineering_bots(tmp).values()),
        1,
        lambda source, folder: edited(
            source, folder, "#define EDIT_BELOW 0", "#define EDIT_BELOW 90"
        ),
    ),
    "multisnake-v2": Edit(
        lambda tmp: [
            EXAMPLES / "multisnake" / "entries" / n
            for n in ("careful", "gourmet", "random", "wary")
        ],
        2,
        _python_from(3, '        print(rng.choice("^>v<"), flush=True)', 'print("^", flush=True)'),
        seats=4,
    ),
    "egghunt-v1": Edit(
        lambda tmp: list(_egghunt_bots(tmp).values()),
        3,
        lambda source, folder: edited(source, folder, "#define EDIT_AT 0", "#define EDIT_AT 6"),
        seats=7,
    ),
}


def test_every_game_of_the_registry_has_an_edited_bot() -> None:
    assert set(EDITS) == set(GAMES), "each game needs an edited bot in EDITS"


@pytest.mark.parametrize("table", sorted(EDITS), indirect=True)
def test_an_edited_bot_diverges_where_a_real_game_with_it_first_differs(
    table: Table, tmp_path: Path
) -> None:
    spec, case = table.spec, EDITS[table.spec.id]
    folders = case.folders(table.root.parent)
    changed = case.edit(folders[case.seat], tmp_path / "edited" / "changed")
    setup = spec.sample_setup(case.seats)
    original = table.play(folders, SEED, setup)
    played = table.play([*folders[: case.seat], changed, *folders[case.seat + 1 :]], SEED, setup)
    step, recorded, answered = first_difference(spec, original, played, case.seat, setup)
    verdict = feed_seat(spec, original, case.seat, table.build(changed), table.sandbox, setup)
    assert not verdict.reproduced, "the edited bot does not reproduce the original game"
    assert verdict.diverged is not None and verdict.answer is not None
    assert verdict.diverged.index == step, (
        f"reported at step {verdict.diverged.index + 1}, but the real games first differ at step "
        f"{step + 1}"
    )
    assert spec.rules.move_text(verdict.diverged.move) == recorded, "the record's answer is shown"
    assert spec.rules.move_text(verdict.answer.move) == answered, "the bot's answer is its own"
    assert recorded in verdict.difference and answered in verdict.difference, verdict.difference
    assert verdict.diverged.turn == spec.rules.turn(verdict.diverged.state)


# -- crashes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", ["snakes-v2"], indirect=True)
def test_a_crash_ending_a_two_seat_game_is_reproduced_at_its_recorded_turn(table: Table) -> None:
    """The worked example of docs/debugging.md: crashy crashes at turn 37 against turtle."""
    turtle, crashy = REPO / "entries" / "turtle", CRASHY
    record = table.play([turtle, crashy], DOC_SEED)
    assert record["outcome"]["detail"] == "O (Crashy) SIGSEGV at turn 37", record["outcome"]
    verdict = feed_seat(table.spec, record, 1, table.build(crashy), table.sandbox)
    assert verdict.reproduced, verdict.difference
    [(ask, answer)] = verdict.faults
    assert (ask.turn, answer.reason) == (37, "SIGSEGV at turn 37"), answer.reason
    assert verdict.matched == 37, "36 moves and the crash"
    fixed = edited(
        crashy, table.root.parent / "fixed" / "crashy", "#define ROOM 34 ", "#define ROOM 512 "
    )
    verdict = feed_seat(table.spec, record, 1, table.build(fixed), table.sandbox)
    assert verdict.diverged is not None and verdict.answer is not None
    assert verdict.diverged.turn == 37 and not verdict.answer.faulted, "the fix plays on at 37"
    assert "the record has a fault here (O (Crashy) SIGSEGV at turn 37)" in verdict.difference


SPINNER = r"""
/* Walks to a free neighbour, and thinks forever once 24 cells are taken. */
int bot(int board[16][32], char player)
{
    static const int DX[4] = {1, 0, -1, 0}, DY[4] = {0, 1, 0, -1};
    int head = player == 'X' ? '*' : '@', taken = 0, hx = 0, hy = 0;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            taken += board[y][x] != '.';
            if (board[y][x] == head) {
                hx = x;
                hy = y;
            }
        }
    volatile int thinking = taken >= 24;
    while (thinking) {
    }
    for (int d = 0; d < 4; d++) {
        int x = hx + DX[d], y = hy + DY[d];
        if (x >= 0 && x < 32 && y >= 0 && y < 16 && board[y][x] == '.')
            return "RDLU"[d];
    }
    return 'R';
}

char *bot_name = "Spinner";
"""


@pytest.mark.parametrize("table", ["snakes-v2"], indirect=True)
def test_a_timeout_is_reproduced_at_its_turn_with_its_reason(table: Table, tmp_path: Path) -> None:
    spinner = write_entry(tmp_path / "spinner", SPINNER, "c")
    record = table.play([spinner, REPO / "entries" / "turtle"], 1)
    outcome = record["outcome"]
    assert outcome["termination"] == "timeout" and outcome["faulty"] == 0, outcome
    turn = table.spec.rules.turn(final_state(table.spec, record))
    verdict = feed_seat(table.spec, record, 0, table.build(spinner), table.sandbox)
    assert verdict.reproduced, verdict.difference
    [(ask, answer)] = verdict.faults
    assert ask.turn == turn and answer.reason.endswith(f"at turn {turn}"), answer.reason
    assert answer.termination is not None and answer.termination.value == "timeout"


@pytest.mark.parametrize("table", ["multisnake-v2"], indirect=True)
def test_a_seat_retired_by_its_crash_is_reproduced_and_the_others_play_on(
    table: Table, tmp_path: Path
) -> None:
    folders = _entries(EXAMPLES / "multisnake" / "entries")
    crasher = _python_from(
        5, '        print(rng.choice("^>v<"), flush=True)', "raise SystemExit(3)"
    )(folders["random"], tmp_path / "crasher" / "random")
    seats = [folders["careful"], folders["gourmet"], crasher, folders["wary"]]
    setup = table.spec.sample_setup(4)
    record = table.play(seats, seeds(1, 6)[0], setup)
    [fault] = record["outcome"]["faults"]
    assert fault["seat"] == 2 and "exited with code 3" in fault["detail"], fault
    verdict = feed_seat(table.spec, record, 2, table.build(crasher), table.sandbox, setup)
    assert verdict.reproduced, verdict.difference
    [(ask, answer)] = verdict.faults
    assert ask.turn == fault["turn"] and ask.index == fault["at"], "at the recorded turn"
    assert answer.reason == f"exited with code 3 at turn {fault['turn']}", answer.reason
    for seat in (0, 1, 3):
        verdict = feed_seat(
            table.spec, record, seat, table.build(seats[seat]), table.sandbox, setup
        )
        assert verdict.reproduced, f"seat {seat + 1}: {verdict.difference}"


@pytest.mark.parametrize("table", ["egghunt-v1"], indirect=True)
def test_crashes_answered_by_stand_in_moves_are_each_reproduced_at_their_turn(
    table: Table, tmp_path: Path
) -> None:
    """A bot started afresh every turn crashes from turn 4 on (its memory, the turn, is kept by
    the stand-in move, so it crashes again every turn): every crash is asked for and matched."""
    folders = list(_egghunt_bots(table.root.parent).values())
    crashing = list(_egghunt_bots(tmp_path / "crashing", CRASH_AT=4).values())
    seats = [crashing[0], *folders[1:]]
    record = table.play(seats, seeds(1, 7)[0])
    faults = [f for f in record["outcome"]["faults"] if f["seat"] == 0]
    assert len(faults) > 3 and faults[0]["turn"] == 4, faults[:2]
    verdict = feed_seat(table.spec, record, 0, table.build(crashing[0]), table.sandbox)
    assert verdict.reproduced, verdict.difference
    assert [ask.turn for ask, _ in verdict.faults] == [f["turn"] for f in faults]
    assert all("SIGABRT" in answer.reason for _, answer in verdict.faults)
    verdict = feed_seat(table.spec, record, 0, table.build(folders[0]), table.sandbox)
    assert verdict.diverged is not None and verdict.diverged.turn == 4, "the plain bot plays on"


# -- through the command, and under a tool ---------------------------------------------------------


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A tournament file for the default entries, with crashy, and the worked example's game
    recorded in its results (built and played by `koth`'s own stages)."""
    folder = tmp_path_factory.mktemp("season")
    shutil.copytree(REPO / "entries", folder / "entries")
    shutil.copytree(CRASHY, folder / "entries" / "crashy")
    (folder / "tournament.yaml").write_text("game: snakes-v2\nseed: 1\nentries: entries\n")
    from runner.sandbox.local import LocalSandbox
    from runner.season.config import load_config

    config = load_config(folder / "tournament.yaml")
    box = LocalSandbox()
    try:
        table = Table(find_game("snakes-v2"), box, config.output.build)
        record = table.play(
            [folder / "entries" / "turtle", folder / "entries" / "crashy"], DOC_SEED
        )
    finally:
        box.close()
    config.output.results.mkdir(parents=True)
    (config.output.results / "games.jsonl").write_text(json.dumps(record) + "\n")
    yield folder


def koth(
    folder: Path, *args: str, stdin: Any = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """`koth` run as a user runs it, in ``folder`` (``stdin``: the user's terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "runner.cli.main", *args],
        cwd=folder,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def key_of(folder: Path) -> str:
    return str(json.loads((folder / "results" / "games.jsonl").read_text())["key"])


def test_the_command_reports_the_crash_at_turn_37_and_exits_0(
    season: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(season)
    doc = (REPO / "docs" / "debugging.md").read_text()
    assert f"koth replay {key_of(season)[:12]} --seat 2 --bot crashy" in doc, "the doc's game"
    code = main(["replay", key_of(season)[:12], "--seat", "2", "--bot", "crashy"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "REPRODUCED to the end of the game" in out and "at all 36 of its moves" in out, out
    assert "did: SIGSEGV at turn 37 (the record: O (Crashy) SIGSEGV at turn 37)" in out


def test_a_diverging_bot_gets_the_position_both_answers_and_exit_1(
    season: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(season)
    code = main(["replay", key_of(season), "--seat", "O", "--bot", "greedy"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "DIVERGES at turn 3 (step 6 of the record, after 2 matching answer(s))" in out, out
    assert "the record's answer:\n    returns " in out and "the bot's answer:\n    returns " in out
    position = "the position at turn 3, as O (crashy) was asked to move in it:\nX....."
    assert position in out and "\n*......" in out, out


def test_what_a_diverging_bot_printed_is_shown_without_control_characters(
    season: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot may be a stranger's: what it printed reaches the terminal with every control
    character but line breaks written out (here what it printed is given; the rest is real)."""
    monkeypatch.chdir(season)
    printed = "thinking\x1b]0;owned\x07\x1b[2J\nstill\u202ehere"
    monkeypatch.setattr("runner.tools.replay.feed.Sandboxed.output", lambda self: printed)
    assert main(["replay", key_of(season), "--seat", "O", "--bot", "greedy"]) == 1
    out = capsys.readouterr().out
    shown = out[out.index("what the bot printed:") :]
    assert "thinking\\x1b]0;owned\\x07\\x1b[2J\n" in shown, shown
    assert "still\\u202ehere" in shown, shown
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out


def test_under_a_harmless_prefix_a_c_function_runs_in_its_host_and_crashes_at_turn_37(
    season: Path,
) -> None:
    done = koth(season, "replay", key_of(season), "--bot", "crashy", "--exec-prefix", "env")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING: --exec-prefix runs the bot OUTSIDE the sandbox" in done.stderr
    assert "running env ./koth-host" in done.stderr, done.stderr
    assert "did: SIGSEGV at turn 37 (the record: O (Crashy) SIGSEGV at turn 37)" in done.stdout


@pytest.mark.parametrize("table", ["cluster-v2", "domineering-v2"], indirect=True)
def test_under_a_harmless_prefix_programs_reproduce_their_games(
    table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program for the whole game (Cluster) and one started afresh every move (Domineering),
    each under `env`, outside the sandbox, fed by the command."""
    recorded = CASES[table.spec.id](table, table.root.parent)
    record = recorded.records[0]
    folder = next(iter(recorded.folders.values())).parent
    config = tmp_path / "tournament.yaml"
    config.write_text(
        f"game: {table.spec.id}\nentries: {folder}\noutput: {{build: {table.root}}}\n"
    )
    results = tmp_path / "games.jsonl"
    results.write_text(json.dumps(record) + "\n")
    for seat, held in enumerate(record["seats"], 1):
        args = ["replay", record["key"], "--config", str(config), "--results", str(results)]
        code = main([*args, "--seat", str(seat), "--bot", held["entry"], "--exec-prefix", "env"])
        captured = capsys.readouterr()
        assert code == 0, captured.out + captured.err
        assert "REPRODUCED to the end of the game" in captured.out, captured.out
        assert "running env " in captured.err, "the bot ran under the prefix"


FAKE_GDB = """#!/bin/sh
# A stand-in for gdb: runs the program as gdb's `run` does, through the shell, with the
# arguments `set args` gave; says where its own stdin is.
args=""
while [ $# -gt 0 ]; do
    case "$1" in
        -ex) case "$2" in "set args"*) args="${2#set args}";; esac; shift 2;;
        --args) shift; break;;
        -*) shift;;
        *) break;;
    esac
done
echo "fake gdb: stdin is $(readlink /proc/$$/fd/0)" >&2
eval "exec $1 $args"
"""


def test_under_gdb_the_tool_keeps_the_terminal_and_the_bot_gets_its_pipes(
    season: Path, tmp_path: Path
) -> None:
    """gdb reads its commands from stdin: its stdin stays the user's while the bot's comes
    from the replayer (gdb's shell redirects it, as `set args` says). A stand-in gdb shows it."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "gdb").write_text(FAKE_GDB)
    (tools / "gdb").chmod(0o755)
    terminal = tmp_path / "terminal"
    terminal.write_text("")
    key = key_of(season)
    with terminal.open() as stdin:
        gdb = f"{tools / 'gdb'} --args"
        done = koth(season, "replay", key, "--bot", "turtle", "--exec-prefix", gdb, stdin=stdin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"fake gdb: stdin is {terminal}" in done.stderr, done.stderr
    assert "REPRODUCED to the end of the game" in done.stdout, done.stdout


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_under_gdb_the_crash_shows_the_line_of_the_bot_that_crashed(season: Path) -> None:
    done = koth(
        season,
        "replay",
        key_of(season),
        "--seat",
        "2",
        "--bot",
        "crashy",
        "--exec-prefix",
        "gdb -q -batch -ex run -ex bt --args",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(
        n
        for n, text in enumerate((CRASHY / "bot.c").read_text().splitlines(), 1)
        if "return step->move;" in text
    )
    assert "Program received signal SIGSEGV" in done.stdout, done.stdout
    assert f"bot.c:{line}" in done.stdout, "gdb shows the line of the bot's source"
    assert "did: its output ended (under gdb" in done.stdout


def test_a_tool_that_is_not_there_is_named_with_the_fix(
    season: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(season)
    args = ["replay", key_of(season), "--bot", "turtle", "--exec-prefix", "no-such-tool --x"]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--exec-prefix: no-such-tool could not start" in err and "Fix: install it" in err, err
