"""The Easter Egg Hunt: what a fresh process per bot per turn costs (run by hand:
``python benchmarks/bench_egghunt.py [--sandbox local docker] [--turns N] [--season]``).

1. **A bot-turn, start to reply**: one seat of a trivial bot (it reads its six lines and stays),
   from asking for its process (``prepare``: the spawn request) to its whole reply, its process
   included (fork, walls, exec or the warm Python fork, the exchange), then the kill and the reap
   (``finish``, timed apart). A static C program and a Python 3 program. The turns are 20 ms
   apart, as in a season, where the zygote refills its pool of blanks while the others play.
2. **A turn of seven seats**: seven seats of the same trivial bot asked as the referee asks them
   (every process started, then every request sent), turns back to back: wall time per turn
   and per bot-turn.
3. With ``--season``: ``koth season --config examples/egghunt/tournament.yaml`` in a scratch
   folder (build and check first, not timed), the play stage timed: ten runs of the seven
   examples, with ``--jobs`` 1 and 2.
Medians (and the 90th percentile) over ``--turns`` turns.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed

from runner.cli import stages  # noqa: E402
from runner.games.egghunt import RULES, SPEC  # noqa: E402
from runner.play.seats import Entrant, Seat, open_seat  # noqa: E402
from runner.play.watchdog import gather  # noqa: E402
from runner.sandbox.zygote_client import BotLimits  # noqa: E402
from runner.season import check, results, workers  # noqa: E402
from runner.season.build import build_entry  # noqa: E402
from runner.season.config import load_config  # noqa: E402
from runner.season.entries import load_entry  # noqa: E402

LIMITS = BotLimits(move_cpu_s=0.5, game_cpu_s=600.0, move_wall_s=1.0, memory_bytes=256 << 20)
TRIVIAL = {
    "c": (
        "bot.c",
        "#include <stdio.h>\n"
        "int main(void) {\n"
        "    char line[2048];\n"
        "    for (int i = 0; i < 6 && fgets(line, sizeof line, stdin); i++) {}\n"
        '    fputs("9\\nN\\n\\n", stdout);\n'
        "    return 0;\n"
        "}\n",
    ),
    "python": (
        "bot.py",
        "import sys\n"
        "for _ in range(6):\n"
        "    sys.stdin.readline()\n"
        "sys.stdout.write('9\\nN\\n\\n')\n",
    ),
}
STATE = RULES.initial_state(random.Random(1), 7, {})


def seats(sandbox: Any, root: Path, language: str, count: int) -> list[Seat]:
    name, source = TRIVIAL[language]
    folder = root / "entries" / f"trivial-{language}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: trivial-{language}\nauthor: bench\ndescription: stays\nlanguage: {language}\n"
    )
    built = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, SPEC)
    assert built.ok, built.message
    who = Entrant(built.entry, built.jail_path, tuple(built.program or ()))
    return [open_seat(SPEC, who, sandbox, LIMITS, s, STATE) for s in range(count)]


def one_turn(group: list[Seat]) -> tuple[float, float]:
    """Ask every seat of ``group`` once: (start to every reply, then the kills), in ms."""
    began = time.perf_counter()
    for held in group:
        held.bot.prepare()
    moves = [held.bot.begin(held.request(STATE), 1) for held in group]
    gather(moves)
    replied = time.perf_counter()
    for held, move in zip(group, moves, strict=True):
        held.bot.finish(move)
        assert move.fault is None, f"the trivial bot faulted: {move.fault}"
    return (replied - began) * 1000, (time.perf_counter() - replied) * 1000


def spread(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):6.2f} ms, p90 {p90:6.2f} ms"


def turns(sandbox: Any, root: Path, count: int) -> None:
    for language in ("c", "python"):
        alone = seats(sandbox, root, language, 1)
        for _ in range(5):  # warm-up: the zygote, its pool
            one_turn(alone)
        start, close = [], []
        for _ in range(count):
            time.sleep(0.02)
            reply, kill = one_turn(alone)
            start.append(reply)
            close.append(kill)
        print(f"  {language:6} bot-turn alone, start to reply: {spread(start)}")
        print(f"  {language:6} ... then finish (kill, reap):    {spread(close)}")
        table = seats(sandbox, root, language, 7)
        walls = [sum(one_turn(table)) for _ in range(count)]
        per_seat = [w / 7 for w in walls]
        print(f"  {language:6} turn of 7 seats, back to back:  {spread(walls)}")
        print(f"  {language:6} ... per bot-turn:               {spread(per_seat)}", flush=True)


def season_run(kind: str, scratch: Path, jobs: int) -> None:
    config = load_config(REPO / "examples" / "egghunt" / "tournament.yaml", {"sandbox": kind})
    out = Path(tempfile.mkdtemp(dir=scratch, prefix=f"season-{kind}-{jobs}-"))
    config = replace(
        config,
        output=replace(
            config.output,
            build=scratch / f"build-{kind}",
            results=out / "results",
            standings=out / "standings.json",
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
    bot_turns = sum(len(r["moves"]) * len(r["seats"]) for r in found)
    bot_cpu = sum(sum(r["measured"]["cpu_s"]) for r in found)
    print(
        f"  season, jobs {jobs}: {report.played} runs, {bot_turns} bot-turns in {wall:6.1f} s "
        f"= {1000 * wall * jobs / max(1, bot_turns):5.2f} ms of a job per bot-turn; "
        f"bots' CPU {bot_cpu:5.1f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", nargs="+", default=["local"], choices=["local", "docker"])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--season", action="store_true")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}, load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    with tempfile.TemporaryDirectory(prefix="bench-egghunt-") as tmp:
        scratch = Path(tmp)
        for kind in args.sandbox:
            print(f"[{kind}]")
            sandbox = workers.new_sandbox(kind)
            try:
                turns(sandbox, scratch / kind, args.turns)
            finally:
                sandbox.close()
            if args.season:
                for jobs in args.jobs:
                    season_run(kind, scratch, jobs)


if __name__ == "__main__":
    main()
