"""What rendering the site costs, cold and again (run by hand).

    python benchmarks/bench_site.py [--entries 16] [--runs 3] [--jobs 1 2]

Plays compare_baseline.py's season once (``--entries`` greedy Snakes bots, a double round-robin:
240 games for 16; local sandbox), then times ``render_from_config`` on its results:

- cold: into a new folder, on each of ``--jobs`` in turn (wall and this process's CPU time; the
  CPU of the processes it starts to render game pages is not in it);
- again with nothing changed: every page kept (the keys match);
- again after one game's record is gone: the pages that show it or its neighbours, and every
  page drawn from the whole season, are rendered again.

Every render is checked to write the same files as the first cold one. Prints medians of
``--runs`` and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed
sys.path.insert(0, str(REPO / "benchmarks"))

import compare_baseline as season  # noqa: E402
import snakes_baseline as baseline  # noqa: E402

from runner.season.config import Config, load_config  # noqa: E402
from runner.site.render import render_from_config  # noqa: E402


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def timed(config: Config, out: Path, results: Path | None = None) -> tuple[float, float, int]:
    """Wall and CPU seconds of one render, and how many pages it kept."""
    wall, cpu = time.perf_counter(), time.process_time()
    report = render_from_config(config, results, out=out, warn=lambda _: None)
    return time.perf_counter() - wall, time.process_time() - cpu, report.reused


def show(label: str, runs: list[tuple[float, float, int]]) -> None:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    print(f"{label:<34} wall {wall:6.2f} s  cpu {cpu:6.2f} s  pages kept {runs[-1][2]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, os.cpu_count() or 1])
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {season.load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        scratch = Path(tmp)
        baseline.write_entries(scratch / "entries", args.entries)
        overrides = {"rounds": 1, "format": "round-robin", "sandbox": "local"}
        config = load_config(REPO / "tournament.yaml", overrides)
        config = replace(config, entries=scratch / "entries")
        config = season.fresh_output(config, scratch, "local")
        season.run_koth(config)
        site = scratch / "site"
        render_from_config(config, out=site, warn=lambda _: None)
        full = files(site)
        cold: dict[int, list[tuple[float, float, int]]] = {jobs: [] for jobs in args.jobs}
        for _ in range(args.runs):  # interleaved: a busy spell falls on each alike
            for jobs in args.jobs:
                shutil.rmtree(site)
                cold[jobs].append(timed(replace(config, jobs=jobs), site))
                assert files(site) == full, f"a cold render on {jobs} jobs wrote other files"
        for jobs, runs in cold.items():
            show(f"cold, {jobs} job(s)", runs)
        show("again, nothing changed", [timed(config, site) for _ in range(args.runs)])
        assert files(site) == full, "a render with nothing changed wrote other files"
        lines = (config.output.results / "games.jsonl").read_text().splitlines(keepends=True)
        fewer = scratch / "fewer.jsonl"
        fewer.write_text("".join(lines[:-1]))
        runs = []
        for _ in range(args.runs):
            render_from_config(config, out=site, warn=lambda _: None)  # the whole season again
            runs.append(timed(config, site, fewer))
        show("again, the last game's record gone", runs)
    print(season.load())


if __name__ == "__main__":
    main()
