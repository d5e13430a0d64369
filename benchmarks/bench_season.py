"""Season throughput and the host's share of wall time (run by hand; not a test).

    python benchmarks/bench_season.py [--jobs 1 2] [--rounds 1] [--quick 16] [--work 0 20000]
                                      [--sandbox local docker]

1. The default season (the repo's entries/, tournament.yaml's limits) with each --jobs value:
   wall time of the play stage and games per second. Build and check run first and are not timed.
2. A season of --quick generated quick bots (16 → 240 games) with each --jobs value: games per
   second and the host's share of wall time, (wall × jobs − Σ bots' CPU) / (wall × jobs), i.e.
   how much of the machine's time went to the referee, IPC and bookkeeping rather than to bots.
   --work sets how much each quick bot computes per move (loop iterations; 0: it answers at once,
   the worst case for the host's share; 20000 is about 75 µs here, 100000 about 0.4 ms).
Each is run with every --sandbox given.

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

from runner.cli import stages  # noqa: E402
from runner.season import check, results, workers  # noqa: E402
from runner.season.config import Config, load_config  # noqa: E402

QUICK = """int bot(int board[16][32], char player) {
    /* variant %(i)d: along its own edge up to column %(turn)d, then across the board */
    volatile unsigned spent = 0;
    for (int k = 0; k < %(work)d; k++) spent += (unsigned)k * (unsigned)board[k & 15][k & 31];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            if (player == 'X' && board[y][x] == '*') return y == 0 && x < %(turn)d ? 'R' : 'D';
            if (player == 'O' && board[y][x] == '@') return y == 15 && x > %(oturn)d ? 'L' : 'U';
        }
    return 'L';
}
char *bot_name = "Quick %(i)d";
"""


def quick_entries(folder: Path, count: int, work: int) -> None:
    for i in range(count):
        entry = folder / f"quick{i:02d}"
        entry.mkdir(parents=True)
        turn = 1 + (2 * i) % 31
        values = {"i": i, "turn": turn, "oturn": 31 - turn, "work": work}
        (entry / "bot.c").write_text(QUICK % values)
        (entry / "entry.yaml").write_text(
            f"name: quick{i:02d}\nauthor: bench\ndescription: a quick bot\nlanguage: c\n"
        )


def measure(config: Config, jobs: int, scratch: Path) -> dict[str, float]:
    """Play the whole season into a fresh results folder; wall time of the play stage only."""
    results_dir = Path(tempfile.mkdtemp(dir=scratch, prefix=f"results-j{jobs}-"))
    config = replace(
        config,
        output=replace(
            config.output, results=results_dir, standings=results_dir / "standings.json"
        ),
    )
    sandbox = workers.make_sandbox(config)
    try:
        with workers.open_pool(config, sandbox, jobs) as pool:
            line = check.lineup(config, sandbox, pool, say=lambda _: None)
            started = time.perf_counter()
            report = stages.play(config, line, pool, show_progress=False, say=lambda _: None)
            wall = time.perf_counter() - started
    finally:
        sandbox.close()
    found, _ = results.read_records(report.out)
    bot_cpu = sum(sum(r["measured"]["cpu_s"]) for r in found)
    referee_wall = sum(r["measured"]["wall_s"] for r in found)
    return {
        "games": report.played,
        "wall": wall,
        "rate": report.played / wall,
        "bot_cpu": bot_cpu,
        "game_wall": referee_wall,
        "host_share": (wall * jobs - bot_cpu) / (wall * jobs),
    }


def line(label: str, jobs: int, m: dict[str, float]) -> str:
    return (
        f"{label:<22} jobs {jobs}: {m['games']:4.0f} games in {m['wall']:6.2f} s wall = "
        f"{m['rate']:6.1f} games/s; bots' CPU {m['bot_cpu']:6.2f} s; host share "
        f"{100 * m['host_share']:5.1f}%"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--quick", type=int, default=16, help="how many generated quick bots")
    parser.add_argument("--work", type=int, nargs="+", default=[0, 100000])
    parser.add_argument("--sandbox", nargs="+", default=["local"], choices=["local", "docker"])
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-season-") as tmp:
        scratch = Path(tmp)
        for kind in args.sandbox:
            overrides = {"rounds": args.rounds, "sandbox": kind}
            base = load_config(REPO / "tournament.yaml", overrides)
            default = replace(base, output=replace(base.output, build=scratch / f"build-{kind}"))
            names = sorted(p.name for p in default.entries.iterdir() if p.is_dir())
            print(
                f"[{kind}] default season: entries/ ({len(names)}: {', '.join(names)}), "
                f"rounds {args.rounds}"
            )
            for jobs in args.jobs:
                print(line("default season", jobs, measure(default, jobs, scratch)), flush=True)
            for work in args.work:
                folder = scratch / f"quick-{kind}-{work}"
                quick_entries(folder, args.quick, work)
                quick = replace(default, entries=folder)
                print(f"[{kind}] quick season: {args.quick} generated bots, work {work}/move")
                for jobs in args.jobs:
                    print(line("quick season", jobs, measure(quick, jobs, scratch)), flush=True)


if __name__ == "__main__":
    main()
