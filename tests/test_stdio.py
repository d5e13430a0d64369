"""Program bots on stdin/stdout (Cluster), in both sandboxes: they play, and they lose cleanly.

A program bot reads the game's messages and answers one line per move; it may be Python or a
static C/C++ binary. Bots that try to escape answer garbage if they succeed, so a hole in the
sandbox shows as an invalid move.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from runner.games import find_game
from runner.games.base import Termination
from runner.games.cluster import SPEC as CLUSTER
from runner.play.referee import GameResult, Player, play_game
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

FIRST = (CLUSTER.builtins[0].folder / "bot.py").read_text()
# Wall-clock limits wide enough for a loaded machine; the slow bot below is far outside them.
LIMITS = BotLimits(
    move_cpu_s=0.1,
    game_cpu_s=30.0,
    move_wall_s=0.5,
    memory_bytes=256 << 20,
    first_move_wall_s=2.0,
)
# A prelude every test bot shares: read the init message, then answer each turn via `move()`.
PRELUDE = """import sys, os, time
def numbers():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return [int(x) for x in line.split()]
def block():
    (count,) = numbers()
    return [numbers() for _ in range(count)]
for _ in range(4):
    block()
turn = 0
while True:
    numbers(); columns = block(); block(); block(); hand = block(); sys.stdin.readline()
    turn += 1
    sys.stdout.write(move(turn, columns, hand) + "\\n"); sys.stdout.flush()
"""
C_BOT = r"""
#include <stdio.h>
static int block(int width, int keep[2]) {
    int count, value;
    if (scanf("%d", &count) != 1) return -1;
    for (int i = 0; i < count; i++)
        for (int j = 0; j < width; j++) {
            if (scanf("%d", &value) != 1) return -1;
            if (i == 0 && j < 2 && keep) keep[j] = value;
        }
    return count;
}
int main(void) {
    int widths[4] = {7, 7, 2, 2}, column[2], hand[2], gravity;
    for (int i = 0; i < 4; i++) if (block(widths[i], NULL) < 0) return 0;
    for (;;) {
        if (scanf("%d", &gravity) != 1) return 0;
        if (block(2, column) < 0 || block(4, NULL) < 0 || block(2, NULL) < 0) return 0;
        if (block(1, hand) < 0) return 0;
        printf("PLACE %d %d\n", column[0], hand[0]);
        fflush(stdout);
    }
}
"""


def python_bot(body: str) -> str:
    return body + "\n" + PRELUDE


def build(sandbox: Any, root: Path, name: str, source: str, language: str) -> Build:
    folder = root / "entries" / name
    folder.mkdir(parents=True, exist_ok=True)
    filename = {"python": "bot.py", "c": "bot.c", "cpp": "bot.cpp"}[language]
    (folder / filename).write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: {language}\n"
    )
    result = build_entry(
        load_entry(folder),
        root / "build",
        sandbox,
        LIMITS,
        60,
        CLUSTER,
    )
    assert result.ok, result.message
    return result


def play(sandbox: object, x: Build, o: Build, seed: int = 3) -> GameResult:
    players = [Player(b.entry, b.content_hash, b.jail_path, tuple(b.program or ())) for b in (x, o)]
    return play_game(find_game("cluster-v2"), players, sandbox, LIMITS, seed)  # type: ignore[arg-type]


def test_python_and_c_program_bots_play_whole_games(any_sandbox: object, tmp_path: Path) -> None:
    first = build(any_sandbox, tmp_path, "first", FIRST, "python")
    static_c = build(any_sandbox, tmp_path, "cbot", C_BOT, "c")
    result = play(any_sandbox, first, static_c)
    assert result.outcome.termination is Termination.NORMAL, result.outcome.detail
    assert len(result.moves) > 20 and all(str(m).startswith("PLACE ") for m in result.moves)
    again = play(any_sandbox, first, static_c)
    assert again.moves == result.moves, "the same bots and seed must play the same game"


@pytest.mark.parametrize(
    ("name", "body", "termination", "detail"),
    [
        (
            "crasher",
            "def move(turn, columns, hand):\n    raise RuntimeError('boom')",
            Termination.CRASH,
            r"exited with code 1 at turn 1$",
        ),
        (
            "garbage",
            "def move(turn, columns, hand):\n    return 'PLACE banana'",
            Termination.INVALID_MOVE,
            r"PLACE banana",
        ),
        (
            "slowpoke",  # 1 s is fine for the first move (2 s), not for the second (0.5 s)
            "def move(turn, columns, hand):\n    time.sleep(1.0)\n"
            "    return f'PLACE {columns[0][0]} {hand[0][0]}'",
            Termination.TIMEOUT,
            r"no reply within 0.5 s of wall-clock time at turn 2$",
        ),
        (
            "fullcolumn",  # well-formed, but the colour is not in its hand on turn 1
            "def move(turn, columns, hand):\n    return f'PLACE {columns[0][0]} 2'",
            Termination.INVALID_MOVE,
            r"at turn 1$",
        ),
    ],
)
def test_misbehaving_program_bots_lose_with_the_reason(
    name: str,
    body: str,
    termination: Termination,
    detail: str,
    any_sandbox: object,
    tmp_path: Path,
) -> None:
    bad = build(any_sandbox, tmp_path, name, python_bot(body), "python")
    good = build(any_sandbox, tmp_path, "first", FIRST, "python")
    result = play(any_sandbox, bad, good)
    outcome = result.outcome
    assert outcome.termination is termination, outcome.detail
    assert outcome.faulty == 0 and outcome.points == (0.0, 1.0)
    assert re.search(detail, outcome.detail), outcome.detail


def test_a_python_bot_cannot_reach_out(any_sandbox: object, tmp_path: Path) -> None:
    secret = tmp_path / "entries" / "secret.txt"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("other entry's source")
    escaped = tmp_path / "escaped.txt"
    body = f'''def attempts():
    import socket
    yield lambda: open({str(secret)!r}).read()
    yield lambda: open({str(escaped)!r}, "w").write("x")
    yield lambda: open("written-here.txt", "w").write("x")
    yield lambda: socket.create_connection(("127.0.0.1", 22), timeout=0.05)
    yield lambda: os.fork()
def move(turn, columns, hand):
    for attempt in attempts():
        try:
            attempt()
            return "ESCAPED"
        except Exception:
            pass
    sys.stderr.write("all attempts failed\\n")
    return f"PLACE {{columns[0][0]}} {{hand[0][0]}}"'''
    prober = build(any_sandbox, tmp_path, "prober", python_bot(body), "python")
    good = build(any_sandbox, tmp_path, "first", FIRST, "python")
    result = play(any_sandbox, prober, good)
    assert "ESCAPED" not in result.outcome.detail, result.outcome.detail
    assert result.outcome.termination is Termination.NORMAL, result.outcome.detail
    assert not escaped.exists()
    assert "all attempts failed" in result.output[0], "the bot's stderr is kept with the game"


def test_a_cluster_season_checks_and_plays_program_entries(tmp_path: Path) -> None:
    from runner.cli.stages import run_season
    from runner.season import results
    from runner.season.config import load_config

    for name, language, source in (
        ("first", "python", FIRST),
        ("cbot", "c", C_BOT),
    ):
        folder = tmp_path / "entries" / name
        folder.mkdir(parents=True)
        (folder / {"python": "bot.py", "c": "bot.c"}[language]).write_text(source)
        (folder / "entry.yaml").write_text(
            f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: {language}\n"
        )
    (tmp_path / "tournament.yaml").write_text(
        "game: cluster-v2\njobs: 1\nlimits:\n  move_wall_s: 0.5\n  first_move_wall_s: 2.0\n"
    )
    config = load_config(tmp_path / "tournament.yaml")
    report, rows, _ = run_season(config, show_progress=False, say=lambda text: None)
    records, problems = results.read_all(results.results_files(config.output.results))
    assert not problems and len(records) == 2, "both entries pass the check and play both seats"
    assert {r["game"] for r in records} == {"cluster-v2"}
    assert all(r["outcome"]["termination"] == "normal" for r in records), records


def test_a_game_can_start_its_program_bots_afresh_for_every_move(
    local_sandbox: object, tmp_path: Path
) -> None:
    from dataclasses import replace

    fresh_cluster = replace(CLUSTER, interface="stdio-fresh")

    counter = (
        "seen = 0\n"
        "def move(turn, columns, hand):\n"
        "    global seen\n"
        "    seen += 1\n"
        "    sys.stderr.write(f'turns seen by this process: {seen}\\n')\n"
        "    return f'PLACE {columns[0][0]} {hand[0][0]}'"
    )
    counting = build(local_sandbox, tmp_path, "counting", python_bot(counter), "python")
    first = build(local_sandbox, tmp_path, "first", FIRST, "python")
    players = [
        Player(b.entry, b.content_hash, b.jail_path, tuple(b.program or ()))
        for b in (counting, first)
    ]
    result = play_game(fresh_cluster, players, local_sandbox, LIMITS, seed=3)  # type: ignore[arg-type]
    assert result.outcome.termination is Termination.NORMAL, result.outcome.detail
    printed = result.output[0]
    assert printed.count("turns seen by this process: 1") > 5, printed[:300]
    assert "turns seen by this process: 2" not in printed, "a process must serve one move only"
    assert result.cpu_s[0] > 0, "CPU time adds up across the per-move processes"


def test_what_a_bot_prints_is_kept_in_its_record(local_sandbox: object, tmp_path: Path) -> None:
    chatty = (
        "def move(turn, columns, hand):\n"
        "    sys.stderr.write('x' * 3000 + f' turn {turn}\\n')\n"
        "    return f'PLACE {columns[0][0]} {hand[0][0]}'"
    )
    bot = build(local_sandbox, tmp_path, "chatty", python_bot(chatty), "python")
    first = build(local_sandbox, tmp_path, "first", FIRST, "python")
    record = play(local_sandbox, bot, first).to_dict()
    kept = record["measured"]["output"][0]
    assert kept.startswith("xxx") and "characters left out" in kept, kept[:80]
    assert len(kept) < 2100, "a record keeps an excerpt, not the whole output"
    assert record["measured"]["output"][1] == ""


QUICK_DOMINEERING = r"""
#include <stdio.h>
int main(void) {
    char line[512];
    if (!fgets(line, sizeof line, stdin)) return 1;
    puts("1 0 0");
    return 0;
}
"""


def test_a_reply_written_just_before_a_fresh_program_ended_counts(
    any_sandbox: Any, tmp_path: Path
) -> None:
    """A program started for one move writes its line and exits at once; the host may look only
    after the kernel has reaped it, or hear of its exit from the zygote before it reads the
    reply. Its reply is still its reply, not an "exited" crash: all it wrote, read as
    Domineering reads it (the move ends when the program exits)."""
    import select
    import time

    from runner.games.domineering import SPEC as DOMINEERING
    from runner.play.stdio import StdioBot
    from runner.play.watchdog import gather

    folder = tmp_path / "entries" / "quick"
    folder.mkdir(parents=True)
    (folder / "bot.c").write_text(QUICK_DOMINEERING)
    (folder / "entry.yaml").write_text(
        "name: quick\nauthor: tests\ndescription: replies at once\nlanguage: c\n"
    )
    built = build_entry(
        load_entry(folder), tmp_path / "build", any_sandbox, LIMITS, 60, DOMINEERING
    )
    assert built.ok, built.message
    state = DOMINEERING.rules.initial_state(random.Random(0), 2, {})
    for news_first in (False, True, False, True):  # each move a new process
        process = any_sandbox.spawn(built.jail_path, LIMITS, list(built.program or ()))
        bot = StdioBot(process, LIMITS, "quick", DOMINEERING.codec.reply_lines)  # type: ignore[union-attr]
        bot.start()
        move = bot.begin(DOMINEERING.codec.request(state, 0), 1)
        deadline = time.monotonic() + 10
        while process.cpu_time() is not None:  # until the process is gone, reaped
            assert time.monotonic() < deadline, "the quick bot did not end within 10 s"
            time.sleep(0.005)
        if news_first:  # the zygote's report of the exit, handled before the reply is read
            while not move.done:
                assert time.monotonic() < deadline, "no news of the quick bot's exit in 10 s"
                move.handle(process.zygote.fileno, select.POLLIN)
                time.sleep(0.005)
        gather([move])
        bot.close()
        assert move.fault is None, f"its reply was lost: {move.fault}"
        assert move.reply == b"1 0 0\n", move.reply


def test_a_fresh_program_that_reads_its_input_to_the_end_gets_an_end(
    any_sandbox: Any, tmp_path: Path
) -> None:
    """A program started for one move may read its whole input (``sys.stdin.read()``, as the
    Easter Egg Hunt's rules suggest): the host ends its stdin once the request is written, so it
    answers instead of waiting for more until its time runs out."""
    from runner.games.egghunt import SPEC as EGGHUNT
    from runner.play.stdio import StdioBot
    from runner.play.watchdog import gather

    folder = tmp_path / "entries" / "reader"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(
        "import sys\nlines = sys.stdin.read().split('\\n')\n"
        "sys.stdout.write(f'4\\nN\\nread {len(lines)} lines\\n')\n"
    )
    (folder / "entry.yaml").write_text(
        "name: reader\nauthor: tests\ndescription: reads to the end\nlanguage: python\n"
    )
    built = build_entry(load_entry(folder), tmp_path / "build", any_sandbox, LIMITS, 60, EGGHUNT)
    assert built.ok, built.message
    state = EGGHUNT.rules.initial_state(random.Random(0), 7, {})
    process = any_sandbox.spawn(built.jail_path, LIMITS, list(built.program or ()))
    bot = StdioBot(process, LIMITS, "reader", 3, until_end=True)
    bot.start()
    move = bot.begin(EGGHUNT.codec.request(state, 0), 1)
    gather([move])
    bot.close()
    assert move.fault is None, f"a bot reading to the end of its input faulted: {move.fault}"
    assert move.reply == b"4\nN\nread 7 lines", move.reply


# (what a program started for one move does after reading its line, its reply or its fault's words)
UNTIL_EXIT_BOTS = [
    ("print(1); print(4); print(7)", b"1\n4\n7\n", None),
    ("w('a'); time.sleep(0.1); w('b')", b"ab", None),  # written in two parts: the move is both
    ("w('one move'); os._exit(3)", b"one move", None),  # how it ended does not matter
    ("pass", b"", None),  # exited cleanly, nothing written: the codec says what that means
    ("w('1 4 7'); time.sleep(9)", None, "did not exit within 2 s of wall-clock time"),
    ("w('1 4 7'); os.close(1); time.sleep(9)", None, "did not exit within 2 s"),
    ("w('x' * 70000)", None, "wrote more than 65536 bytes"),
    ("raise SystemExit(3)", None, "exited with code 3"),  # ended uncleanly, nothing written
]


@pytest.mark.parametrize(("body", "reply", "fault"), UNTIL_EXIT_BOTS)
def test_a_program_whose_move_ends_at_its_exit_replies_all_it_wrote(
    any_sandbox: Any, tmp_path: Path, body: str, reply: bytes | None, fault: str | None
) -> None:
    """A program started for one move, read ``UNTIL_EXIT`` (Domineering's arena): its reply is
    everything it wrote before it exited, however it ended; one that does not exit in time is
    late whatever it wrote, one that writes too much is cut off, and one that ends uncleanly
    having written nothing is explained by its end."""
    from runner.games.egghunt import SPEC as EGGHUNT
    from runner.games.spec import UNTIL_EXIT
    from runner.play.stdio import StdioBot
    from runner.play.watchdog import gather

    prelude = "import os, sys, time\n"
    prelude += "def w(text):\n    sys.stdout.write(text)\n    sys.stdout.flush()\n"
    prelude += "sys.stdin.readline()\n"
    folder = tmp_path / "entries" / "exits"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(prelude + body + "\n")
    (folder / "entry.yaml").write_text(
        "name: exits\nauthor: tests\ndescription: ends its move by exiting\nlanguage: python\n"
    )
    built = build_entry(load_entry(folder), tmp_path / "build", any_sandbox, LIMITS, 60, EGGHUNT)
    assert built.ok, built.message
    process = any_sandbox.spawn(built.jail_path, LIMITS, list(built.program or ()))
    bot = StdioBot(process, LIMITS, "exits", UNTIL_EXIT)
    bot.start()
    move = bot.begin(b"your move\n", 1)
    gather([move])
    bot.close()
    if fault is None:
        assert move.fault is None, f"its reply was lost: {move.fault}"
        assert move.reply == reply
    else:
        assert move.fault is not None and fault in str(move.fault), move.fault
