"""What the standings and the site cost for a season of N entries (run by hand).

    python benchmarks/bench_scale.py --entries 16 100 200 500 [--keep DIR] [--runs 1]

For each N: N small C entries of Snakes (one salt each) are built and checked once (`koth
check`, cached in ``DIR/N``), then the season's round-robin (N·(N−1) games, every one
recorded) gets synthetic records: not played, but made by the rules. A pool of games is
played by the rules from random legal moves (each snake prefers, nine times in ten, a cell it
does not hold yet, which gives games of the length bots play: ~310 moves, median); Snakes'
start does not depend on the seed or the seats, so any pool game replays under any fixture.
Each fixture of `koth schedule --json` (its key, seats and seed, as real records are keyed)
takes a pool game whose winner a strength per entry chose (Bradley–Terry, strengths spread
over ~800 Elo), so the ratings have something to find. The records are written once.

Then ``koth standings`` and ``koth site`` run as commands, each timed by the CPU it and every
process it starts took (the children's rusage) and by wall time, into a fresh site folder.
Printed per N: those times, the site's size (bytes of every file), its files and pages (HTML),
its game pages, and its largest files. ``--runs``: medians of that many runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed

from runner import __version__  # noqa: E402
from runner.games import find_game  # noqa: E402
from runner.season import results  # noqa: E402
from runner.season.entries import content_hash  # noqa: E402

GAME = "snakes-v2"
SEASON_SEED = 50
POOL = 3000  # distinct games the records are drawn from
SPREAD_ELO = 800.0  # the entries' strengths, evenly spread over this many Elo points
WHEN = "2026-01-01T00:00:00.000000Z"

BOT = """/* bench_scale entry %(salt)d: the first move that leaves its head free, salted. */
int bot(int board[16][32], char player) {
    return "LRUD"[(%(salt)d + board[0][0] + player) & 3];
}
char *bot_name = "Scale %(salt)d";
"""

CONFIG = f"""game: {GAME}
format: round-robin
rounds: 1
seed: {SEASON_SEED}
sandbox: local
entries: entries
output:
  build: build
  results: results
  site: site
  standings: standings.json
"""

_STEPS = {"L": (-1, 0), "R": (1, 0), "U": (0, -1), "D": (0, 1)}


def _move(state: Any, seat: int, rng: random.Random) -> str:
    """A random legal move; nine times in ten one into a cell the snake does not hold yet."""
    head = state.heads[seat]  # a bit position: y * 33 + x (runner/games/snakes/rules.py)
    x, y = head % 33, head // 33
    mine = ord("XO"[seat])
    fresh = [
        move
        for move, (dx, dy) in _STEPS.items()
        if 0 <= x + dx < 32
        and 0 <= y + dy < 16
        and state.frame[(y + dy) * 32 + x + dx] not in (mine, ord("*"), ord("@"))
    ]
    return rng.choice(fresh) if fresh and rng.random() < 0.9 else rng.choice("LRUD")


@dataclass(frozen=True)
class PoolGame:
    moves: str
    outcome: dict[str, Any]


def pool(count: int, seed: int = 1) -> dict[str, list[PoolGame]]:
    """``count`` games played by the rules from random legal moves, by result: "x", "o", "draw"."""
    rules = find_game(GAME).rules
    rng = random.Random(seed)
    found: dict[str, list[PoolGame]] = {"x": [], "o": [], "draw": []}
    for _ in range(count):
        state = rules.initial_state(rng, 2, {})
        moves = []
        while (ended := rules.outcome(state)) is None:
            seat = rules.to_move(state)[0]
            move = _move(state, seat, rng)
            moves.append(move)
            state = rules.apply(state, {seat: move})
        outcome = {
            "points": list(ended.points),
            "scores": [int(s) for s in rules.scores(state)],
            "termination": ended.termination.value,
            "faulty": None,
            "detail": ended.detail,
        }
        side = "draw" if ended.points[0] == ended.points[1] else "x" if ended.points[0] else "o"
        found[side].append(PoolGame("".join(moves), outcome))
    return found


def write_entries(folder: Path, count: int) -> None:
    for salt in range(1, count + 1):
        entry = folder / f"e{salt:03d}"
        if entry.is_dir():
            continue
        entry.mkdir(parents=True)
        (entry / "bot.c").write_text(BOT % {"salt": salt})
        (entry / "entry.yaml").write_text(
            f"name: e{salt:03d}\nauthor: bench\ndescription: salt {salt}\nlanguage: c\n"
        )


def koth(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "koth"), *args, "--config", "tournament.yaml"]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, check=check)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(folder: Path, *args: str) -> tuple[float, float]:
    """CPU (the command and every process it started) and wall seconds of one koth command."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = koth(folder, *args, check=False)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode:
        raise SystemExit(f"koth {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return cpu, wall


def prepare(folder: Path, count: int, games: dict[str, list[PoolGame]]) -> int:
    """The season's folder: entries built and checked, every game recorded. Returns its games."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tournament.yaml").write_text(CONFIG)
    write_entries(folder / "entries", count)
    koth(folder, "check")  # builds and smoke games, cached in build/
    schedule = json.loads(koth(folder, "schedule", "--json").stdout)
    out = folder / "results" / results.MAIN_FILE
    if out.is_file() and sum(1 for _ in out.open()) == len(schedule):
        return len(schedule)
    names = sorted({name for row in schedule for name in row["seats"]})
    hashes = {name: content_hash(folder / "entries" / name) for name in names}
    strength = {name: SPREAD_ELO * i / max(1, len(names) - 1) for i, name in enumerate(names)}
    rng = random.Random(count)
    records = []
    for row in schedule:
        x, o = row["seats"]
        p_x = 1.0 / (1.0 + 10 ** ((strength[o] - strength[x]) / 400.0))
        side = "x" if rng.random() < p_x else "o"
        game = rng.choice(games[side])
        records.append(
            {
                "key": row["key"],
                "game": GAME,
                "seed": row["seed"],
                "seats": [
                    {"entry": n, "hash": hashes[n], "name": f"Scale {int(n[1:])}"} for n in (x, o)
                ],
                "moves": game.moves,
                "outcome": game.outcome,
                "season_seed": SEASON_SEED,
                "round": row["round"],
                "host_version": __version__,
                "measured": {
                    "cpu_s": [round(rng.uniform(0.001, 0.02), 4) for _ in range(2)],
                    "wall_s": round(rng.uniform(0.02, 0.2), 4),
                    "when": WHEN,
                },
            }
        )
    results.write_atomic(out, records)
    return len(records)


@dataclass(frozen=True)
class SiteSize:
    files: int
    pages: int
    game_pages: int
    bytes: int
    largest: list[tuple[int, str]]


def measure(site: Path) -> SiteSize:
    found = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*")]
    files = [(size, name) for size, name in found if (site / name).is_file()]
    pages = [name for _, name in files if name.endswith(".html")]
    return SiteSize(
        len(files),
        len(pages),
        sum(name.startswith("games/") for name in pages),
        sum(size for size, _ in files),
        sorted(files, reverse=True)[:4],
    )


def run(folder: Path, count: int, runs: int, games: dict[str, list[PoolGame]]) -> None:
    played = prepare(folder, count, games)
    standings: list[tuple[float, float]] = []
    site: list[tuple[float, float]] = []
    for _ in range(runs):
        standings.append(timed(folder, "standings"))
        subprocess.run(["rm", "-rf", str(folder / "site")], check=True)
        site.append(timed(folder, "site"))
    size = measure(folder / "site")

    def median(values: Sequence[tuple[float, float]], i: int) -> float:
        return statistics.median(v[i] for v in values)

    print(
        f"{count:>4} entries, {played:>7} games: standings cpu {median(standings, 0):6.1f} s "
        f"(wall {median(standings, 1):6.1f}); site cpu {median(site, 0):6.1f} s "
        f"(wall {median(site, 1):6.1f}); site {size.bytes / 1e6:7.1f} MB, {size.files} files, "
        f"{size.pages} pages ({size.game_pages} game pages); {load()}",
        flush=True,
    )
    print("      largest: " + ", ".join(f"{n} {s / 1e6:.1f} MB" for s, n in size.largest))


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[16, 100, 200, 500])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--keep", type=Path, help="the seasons' folder, kept for the next run (default: a new one)"
    )
    args = parser.parse_args()
    keep = args.keep or Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-scale-{os.getpid()}"
    began = time.perf_counter()
    games = pool(POOL)
    lengths = sorted(len(g.moves) for side in games.values() for g in side)
    print(
        f"{os.cpu_count()} CPUs; {load()}; a pool of {POOL} games (median "
        f"{lengths[len(lengths) // 2]} moves) in {time.perf_counter() - began:.1f} s",
        flush=True,
    )
    for count in args.entries:
        run(keep / str(count), count, args.runs, games)
    if args.keep is None:
        print(f"the seasons are in {keep} (pass --keep {keep} to reuse them)")


if __name__ == "__main__":
    main()
