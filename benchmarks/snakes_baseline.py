"""The in-process C baseline host for Snakes (benchmarks/baseline/snakes_host.c), from Python.

The entries the comparison plays (a greedy one-move-lookahead bot with a different salt each),
compiling the host and the bots' shared objects with the flags koth compiles with, and running the
host over them: one ``BaselineGame`` per game, the points per bot, the time spent playing.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOST_SOURCE = HERE / "baseline" / "snakes_host.c"
# koth's own compile and link flags for a C-function bot (runner/sandbox/local.py).
BOT_FLAGS = ("-std=c11", "-O2", "-fPIC", "-Wall", "-shared")

GREEDY = """/* greedy, salt %(salt)d: one move ahead, the cell a move enters is scored (an enemy
 * cell 3, a free one 2, its own 0) and ties go by a hash of the cell salted per entry. */
int bot(int board[16][32], char player) {
    int mine = player == 'X' ? '*' : '@', enemy_head = player == 'X' ? '@' : '*';
    int enemy = player == 'X' ? 'O' : 'X';
    int hx = 0, hy = 0;
    for (int i = 0; i < 16 * 32; i++)
        if (board[i / 32][i %% 32] == mine) {
            hx = i %% 32;
            hy = i / 32;
            break;
        }
    int best = 0, best_score = -1;
    for (int d = 0; d < 4; d++) {
        int x = hx + (d == 0 ? -1 : d == 1 ? 1 : 0), y = hy + (d == 2 ? -1 : d == 3 ? 1 : 0);
        if (x < 0 || x >= 32 || y < 0 || y >= 16 || board[y][x] == enemy_head)
            continue;
        int c = board[y][x];
        unsigned hash = (unsigned)x * 2654435761u ^ (unsigned)y * 40503u ^ %(salt)du * 2246822519u;
        int score = (c == enemy ? 3 : c == '.' ? 2 : 0) * 256 + (int)(hash >> 24);
        if (score > best_score) {
            best_score = score;
            best = d;
        }
    }
    return "LRUD"[best];
}
char *bot_name = "Greedy %(salt)d";
"""


def write_entries(folder: Path, count: int) -> list[Path]:
    """``count`` greedy entries (salts 1..count) in ``folder``; their folders, by name."""
    made = []
    for salt in range(1, count + 1):
        entry = folder / f"greedy{salt:02d}"
        entry.mkdir(parents=True)
        (entry / "bot.c").write_text(GREEDY % {"salt": salt})
        (entry / "entry.yaml").write_text(
            f"name: greedy{salt:02d}\nauthor: bench\ndescription: greedy, salt {salt}\n"
            "language: c\n"
        )
        made.append(entry)
    return made


def compile_host(out: Path) -> Path:
    """The baseline host, compiled into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    binary = out / "snakes_host"
    command = ["gcc", "-std=c11", "-O2", "-Wall", str(HOST_SOURCE), "-o", str(binary), "-ldl"]
    subprocess.run(command, check=True)
    return binary


def compile_bots(entries: Sequence[Path], out: Path, jobs: int = 1) -> list[Path]:
    """Each entry's bot.c as ``out/<entry>.so``, ``jobs`` compilers at a time."""
    out.mkdir(parents=True, exist_ok=True)

    def one(entry: Path) -> Path:
        library = out / f"{entry.name}.so"
        subprocess.run(["gcc", *BOT_FLAGS, str(entry / "bot.c"), "-o", str(library)], check=True)
        return library

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(one, entries))


@dataclass(frozen=True)
class BaselineGame:
    x: int  # index of the bot playing X
    o: int
    termination: str
    cells: tuple[int, int]
    points: tuple[float, float]
    moves: str  # empty unless asked for


@dataclass(frozen=True)
class BaselineRun:
    games: list[BaselineGame]
    points: list[float]  # by bot
    play_s: float  # the host's own clock, the games only
    wall_s: float  # the whole process: start, dlopen, games


def run_host(host: Path, libraries: Sequence[Path], moves: bool = False) -> BaselineRun:
    """Every ordered pair of ``libraries`` plays once (the double round-robin), in-process."""
    command = [str(host), *(["--moves"] if moves else []), *map(str, libraries)]
    began = time.perf_counter()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - began
    games, points, play_s = [], [0.0] * len(libraries), 0.0
    for line in out.splitlines():
        word, *rest = line.split()
        if word == "game":
            x, o, termination, xc, oc, xp, op, *played = rest
            games.append(
                BaselineGame(
                    int(x),
                    int(o),
                    termination,
                    (int(xc), int(oc)),
                    (float(xp), float(op)),
                    played[0] if played else "",
                )
            )
        elif word == "points":
            points[int(rest[0])] = float(rest[1])
        elif word == "play_s":
            play_s = float(rest[0])
    return BaselineRun(games, points, play_s, wall)
