"""The build stage one entry at a time against side by side (run by hand; not a test).

    python benchmarks/bench_build.py [--entries 16] [--runs 3] [--jobs 1 2] [--sandbox local]

Builds ``--entries`` greedy entries (benchmarks/snakes_baseline.py) cold, into a fresh build
folder each time, with each ``--jobs`` value in turn (interleaved, ``--runs`` times), and prints
each run's time and the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import snakes_baseline as baseline  # noqa: E402

from runner.season import check, workers  # noqa: E402
from runner.season.config import load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    args = parser.parse_args()
    print(f"{args.sandbox}: {args.entries} entries; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        scratch = Path(tmp)
        baseline.write_entries(scratch / "entries", args.entries)
        times: dict[int, list[float]] = {jobs: [] for jobs in args.jobs}
        for _ in range(args.runs):
            for jobs in args.jobs:
                config = load_config(REPO / "tournament.yaml", {"sandbox": args.sandbox})
                out = Path(tempfile.mkdtemp(dir=scratch))
                config = replace(
                    config,
                    entries=scratch / "entries",
                    output=replace(config.output, build=out / "build"),
                )
                sandbox = workers.make_sandbox(config)
                try:
                    began = time.perf_counter()
                    builds = check.build_all(config, sandbox, jobs)
                    times[jobs].append(time.perf_counter() - began)
                finally:
                    sandbox.close()
                failed = [b.entry for b in builds if not b.ok]
                assert not failed, f"entries failed to build: {failed}"
                print(f"jobs {jobs}: {times[jobs][-1]:.2f} s", flush=True)
    for jobs, values in times.items():
        print(f"jobs {jobs}: median {statistics.median(values):.2f} s of {values}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
