"""Season throughput and the host's share of wall time (run by hand; not a test).

    python benchmarks/bench_season.py [--jobs 1 2] [--rounds 1] [--quick 16]

1. The default season (the repo's entries/, tournament.yaml's limits) with each --jobs value:
   wall time of the play stage and games per second. Build and check run first and are not timed.
2. A season of --quick generated quick bots (16 → 240 games) with each --jobs value: games per
   second and the host's share of wall time, (wall × jobs − Σ bots' CPU) / (wall × jobs), i.e.
   how much of the machine's time went to the referee, IPC and bookkeeping rather than to bots.

Every run plays into a fresh temporary results folder, so nothing is skipped as already recorded.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed

from runner import results, season  # noqa: E402
from runner.config import Config, load_config  # noqa: E402

QUICK = """int bot(int board[16][32], char player) {
    /* variant %(i)d: along its own edge up to column %(turn)d, then across the board */
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            if (player == 'X' && board[y][x] == '*') return y == 0 && x < %(turn)d ? 'R' : 'D';
            if (player == 'O' && board[y][x] == '@') return y == 15 && x > %(oturn)d ? 'L' : 'U';
        }
    return 'L';
}
char *bot_name = "Quick %(i)d";
"""


def quick_entries(folder: Path, count: int) -> None:
    for i in range(count):
        entry = folder / f"quick{i:02d}"
        entry.mkdir(parents=True)
        turn = 1 + (2 * i) % 31
        (entry / "bot.c").write_text(QUICK % {"i": i, "turn": turn, "oturn": 31 - turn})
        (entry / "entry.yaml").write_text(
            f"name: quick{i:02d}\nauthor: bench\ndescription: a quick bot\nlanguage: c\n")


def measure(config: Config, jobs: int, scratch: Path) -> dict[str, float]:
    """Play the whole season into a fresh results folder; wall time of the play stage only."""
    results_dir = Path(tempfile.mkdtemp(dir=scratch, prefix=f"results-j{jobs}-"))
    config = replace(config, output=replace(config.output, results=results_dir,
                                            standings=results_dir / "standings.json"))
    sandbox = season.make_sandbox(config)
    try:
        with season.open_pool(config, sandbox, jobs) as pool:
            line = season.lineup(config, sandbox, pool, say=lambda _: None)
            started = time.perf_counter()
            report = season.play(config, line, pool, show_progress=False, say=lambda _: None)
            wall = time.perf_counter() - started
    finally:
        sandbox.close()
    found, _ = results.read_records(report.out)
    bot_cpu = sum(sum(r["measured"]["cpu_s"]) for r in found)
    referee_wall = sum(r["measured"]["wall_s"] for r in found)
    return {"games": report.played, "wall": wall, "rate": report.played / wall,
            "bot_cpu": bot_cpu, "game_wall": referee_wall,
            "host_share": (wall * jobs - bot_cpu) / (wall * jobs)}


def line(label: str, jobs: int, m: dict[str, float]) -> str:
    return (f"{label:<22} jobs {jobs}: {m['games']:4.0f} games in {m['wall']:6.2f} s wall = "
            f"{m['rate']:6.1f} games/s; bots' CPU {m['bot_cpu']:6.2f} s; host share "
            f"{100 * m['host_share']:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--quick", type=int, default=16, help="how many generated quick bots")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, {platform.system()} {platform.release()}")
    with tempfile.TemporaryDirectory(prefix="bench-season-") as tmp:
        scratch = Path(tmp)
        base = load_config(REPO / "tournament.yaml", {"rounds": args.rounds})
        default = replace(base, output=replace(base.output, build=scratch / "build"))
        names = sorted(p.name for p in default.entries.iterdir() if p.is_dir())
        print(f"default season: entries/ ({len(names)}: {', '.join(names)}), "
              f"rounds {args.rounds}")
        for jobs in args.jobs:
            print(line("default season", jobs, measure(default, jobs, scratch)), flush=True)
        quick_entries(scratch / "quick", args.quick)
        quick = replace(default, entries=scratch / "quick")
        print(f"quick season: {args.quick} generated quick bots, rounds {args.rounds}")
        for jobs in args.jobs:
            print(line("quick season", jobs, measure(quick, jobs, scratch)), flush=True)


if __name__ == "__main__":
    main()
