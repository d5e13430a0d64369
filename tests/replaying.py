"""Recorded games for the tests of ``koth replay`` (runner/tools/replay/), and the bots they need.

``Table.play`` plays one game with the referee in a sandbox and makes its record as a season does
(runner/season/results.py: key, setup, checked on reading); ``feed_seat`` gives one seat's inputs of
a record to a build and returns the verdict. The bots written here are deterministic: the same
inputs always get the same replies, so a recorded game can be played again exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.games.base import EMPTY, Setup
from runner.games.spec import GameSpec
from runner.play.playback import playback
from runner.play.referee import play_game
from runner.play.seats import Entrant, Spawner
from runner.sandbox.zygote_client import BotLimits
from runner.season import results
from runner.season.build import Build, Sandbox, build_entry
from runner.season.entries import load_entry
from runner.tools.replay.feed import Sandboxed, Verdict, feed
from runner.tools.replay.transcript import seat_asks, transcript

REPO = Path(__file__).resolve().parents[1]
# Generous wall-clock limits: a busy test machine must not turn a slow move into a timeout.
LIMITS = BotLimits(
    move_cpu_s=1.0, game_cpu_s=60.0, move_wall_s=5.0, memory_bytes=256 << 20, first_move_wall_s=10.0
)

# An Easter Egg Hunt bot in C (started afresh every turn): towards the nearest egg it sees, else
# on in its heading, turning by its style where a wall or the edge is ahead; its memory is the
# turn and the heading. After its reply it waits for the end of its input, so that it is never
# found ended before its reply is read.
EGGHUNT_BOT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STYLE 1
#define CRASH_AT 0 /* a turn it crashes at (and ever after: a crash keeps its memory) */
#define EDIT_AT 0  /* a turn from which it turns the other way */

static const int KEY[3][3] = {{1, 2, 3}, {8, 9, 4}, {7, 6, 5}};
static const int DX[9] = {-1, 0, 1, 1, 1, 0, -1, -1, 0}, DY[9] = {-1, -1, -1, 0, 1, 1, 1, 0, 0};

int main(void)
{
    char rows[6][2048] = {{0}};
    for (int i = 0; i < 6; i++)
        if (!fgets(rows[i], sizeof rows[i], stdin))
            rows[i][0] = 0;
    int turn = 0, heading = STYLE % 8 + 1, best = 99;
    if (sscanf(rows[5], "%d %d", &turn, &heading) < 2 || heading < 1 || heading > 8)
        heading = STYLE % 8 + 1;
    turn++;
    if (CRASH_AT && turn >= CRASH_AT)
        abort();
    for (int tries = 0; tries < 8; tries++) {
        char ahead = rows[2 + DY[heading - 1]][2 + DX[heading - 1]];
        if (ahead != '#' && ahead != 'X' && ahead != '*')
            break;
        heading = (heading - 1 + STYLE % 3 + 1) % 8 + 1;
    }
    int direction = heading;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            int dx = x - 2, dy = y - 2, far = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
            if (rows[y][x] == 'o' && far < best) {
                best = far;
                direction = KEY[(dy > 0) - (dy < 0) + 1][(dx > 0) - (dx < 0) + 1];
            }
        }
    if (EDIT_AT && turn >= EDIT_AT)
        direction = direction % 8 + 1;
    printf("%d\nN\n%d %d\n", direction, turn, heading);
    fflush(stdout);
    char rest[64];
    while (read(0, rest, sizeof rest) > 0) {
    }
    return 0;
}
"""

# A Domineering bot in C (started afresh every move): the place a hash of the position and its
# style picks among its legal places; `1 0 0` (refused) when it has none. It waits for the end
# of its input after replying, as the Easter Egg Hunt's does (its move ends as it exits).
DOMINEERING_BOT = r"""
#include <stdio.h>
#include <unistd.h>

#define STYLE 1
#define EDIT_BELOW 0 /* with fewer places than this, it takes the last one */

int main(void)
{
    int side = 0, bombs = 0, count = 0, places[169][2], cell = 0;
    char board[13][16] = {{0}};
    unsigned long hash = 5381 + STYLE;
    if (scanf("%d", &side) != 1)
        return 1;
    for (int r = 0; r < 13; r++)
        for (int c = 0; c < 13; c++) {
            if (scanf("%d", &cell) != 1)
                return 1;
            board[r][c] = (char)('0' + cell);
            hash = hash * 33 + (unsigned char)board[r][c];
        }
    if (scanf("%d", &bombs) != 1)
        return 1;
    int dr = side == 1 ? 0 : 1, dc = side == 1 ? 1 : 0;
    for (int r = 0; r + dr < 13; r++)
        for (int c = 0; c + dc < 13; c++)
            if (board[r][c] == '0' && board[r + dr][c + dc] == '0') {
                places[count][0] = r;
                places[count][1] = c;
                count++;
            }
    if (count == 0)
        printf("1 0 0\n");
    else if (count < EDIT_BELOW)
        printf("1 %d %d\n", places[count - 1][0], places[count - 1][1]);
    else
        printf("1 %d %d\n", places[hash % count][0], places[hash % count][1]);
    fflush(stdout);
    char rest[64];
    while (read(0, rest, sizeof rest) > 0) {
    }
    return 0;
}
"""


def write_entry(folder: Path, source: str, language: str) -> Path:
    """An entry folder holding ``source`` as its bot, in ``language``."""
    folder.mkdir(parents=True, exist_ok=True)
    name = {"c": "bot.c", "cpp": "bot.cpp", "python": "bot.py"}[language]
    (folder / name).write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {folder.name}\nauthor: tests\ndescription: a test bot\nlanguage: {language}\n"
    )
    return folder


def edited(source: Path, folder: Path, old: str, new: str) -> Path:
    """A copy of the entry ``source`` in ``folder`` with ``old`` replaced by ``new`` in its bot
    (which must hold ``old`` once: an example bot that changed fails here, not later)."""
    entry = load_entry(source)
    assert entry.manifest is not None, entry.problem
    text = entry.source.read_text()
    assert text.count(old) == 1, f"{entry.source} no longer holds {old!r} once"
    return write_entry(folder, text.replace(old, new), entry.manifest.language)


@dataclass
class Table:
    """Builds and games of one game in one sandbox."""

    spec: GameSpec
    sandbox: Sandbox
    root: Path
    builds: dict[Path, Build] = field(default_factory=dict)
    played: dict[tuple[tuple[Path, ...], int], dict[str, Any]] = field(default_factory=dict)

    def build(self, folder: Path) -> Build:
        if folder not in self.builds:
            root = self.root / str(len(self.builds))  # entries of one name may differ
            made = build_entry(load_entry(folder), root, self.sandbox, LIMITS, 60, self.spec)
            assert made.ok, f"{folder.name} does not build: {made.message}"
            self.builds[folder] = made
        return self.builds[folder]

    def play(self, folders: Sequence[Path], seed: int, setup: Setup = EMPTY) -> dict[str, Any]:
        """One game's record, as a season writes it (played once: kept for the next asking)."""
        known = self.played.get((tuple(folders), seed))
        if known is not None:
            return known
        players = [self.build(f).player() for f in folders]
        game = play_game(self.spec, players, self.sandbox, LIMITS, seed, setup=setup)
        named = {"name": "sample", "hash": "0" * 64} if setup else None
        seats = [(p.entry, p.content_hash) for p in players]
        key = results.record_key(self.spec.id, seats, seed, named)
        record = results.make_record(
            game.to_dict(), key=key, season_seed=1, round_=1, when="", setup=named
        )
        problem = results.check_record(record)
        assert problem is None, problem
        self.played[(tuple(folders), seed)] = record
        return record


def feed_seat(
    spec: GameSpec,
    record: dict[str, Any],
    seat: int,
    build: Build,
    sandbox: Spawner,
    setup: Setup = EMPTY,
) -> Verdict:
    """Give ``build`` the inputs of ``seat`` in ``record``, in the sandbox."""
    initial = next(transcript(spec, record, setup)).before
    who = Entrant(build.entry, build.jail_path, tuple(build.program or ()) or None)
    runner = Sandboxed(spec, who, sandbox, LIMITS, seat, initial)
    try:
        return feed(spec, seat_asks(transcript(spec, record, setup), seat), runner)
    finally:
        runner.close()


def first_difference(
    spec: GameSpec, a: dict[str, Any], b: dict[str, Any], seat: int, setup: Setup = EMPTY
) -> tuple[int, str, str]:
    """The index of the first step where ``seat``'s move differs between two records of the same
    game, and the two moves (read from the records by ``runner.play.playback`` alone)."""
    moves = []
    for record in (a, b):
        steps = [step for step, _ in playback(spec, record, setup) if step is not None]
        moves.append([dict(step.moves).get(seat) for step in steps])
    for index, (x, y) in enumerate(zip(*moves, strict=False)):
        if x != y:
            assert x is not None and y is not None
            return index, x, y
    raise AssertionError(f"seat {seat} made the same moves in both games")


def seeds(count: int, salt: int) -> list[int]:
    rng = random.Random(salt)
    return [rng.randrange(2**62) for _ in range(count)]
