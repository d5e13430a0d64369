"""koth against the in-process C baseline host, on the same 16-entry Snakes season (run by hand).

    python benchmarks/compare_baseline.py [--entries 16] [--runs 3] [--jobs N]
                                          [--sandbox local docker] [--default] [--rerun]

Generates ``--entries`` greedy one-move-lookahead bots (one salt each) into a temporary folder and
plays their double round-robin (every ordered pair once: 240 games for 16) both ways:

- the baseline (benchmarks/baseline/snakes_host.c): gcc compiles each bot to a shared object, one
  after another; one process dlopen()s them all and plays every game in-process on one core, with
  no isolation; its standings are the sums it prints;
- koth, cold (fresh build, results and site folders), stage by stage in this process with the
  config's jobs (default: one per core): build, check, play, standings, site.

With ``--default``, the default season instead (the repository's tournament.yaml and entries, as
``koth season`` plays it), koth only: for the ratio of Docker to local.

With ``--rerun``, each koth season is run a second time into the same folders (nothing changed:
builds and check verdicts cached, every game recorded). The runs go round by round (each way once
a round), so a slow spell of the machine falls on every way alike. Prints each stage's time per
run, the medians, the ratio koth / baseline end to end (of the medians, and the median of each
round's ratio), and whether both gave every entry the same points (they must: same rules, same
bots). The load average is printed before and after: on a busy machine the figures say so.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed
sys.path.insert(0, str(REPO / "benchmarks"))

import snakes_baseline as baseline  # noqa: E402

from runner import check, season, workers  # noqa: E402
from runner.config import Config, load_config  # noqa: E402
from runner.site import render_from_config  # noqa: E402

STAGES = ("build", "check", "play", "standings", "site")
T = TypeVar("T")
Times = dict[str, float]


def timed(times: Times, stage: str, work: Callable[[], T]) -> T:
    began = time.perf_counter()
    value = work()
    times[stage] = time.perf_counter() - began
    return value


def run_baseline(entries: list[Path], scratch: Path, host: Path) -> tuple[Times, dict[str, float]]:
    times: Times = {}
    out = Path(tempfile.mkdtemp(dir=scratch, prefix="baseline-"))
    libraries = timed(times, "build", lambda: baseline.compile_bots(entries, out))
    run = timed(times, "play", lambda: baseline.run_host(host, libraries))
    points = {entry.name: run.points[i] for i, entry in enumerate(entries)}
    return times, points


def fresh_output(config: Config, scratch: Path, kind: str) -> Config:
    out = Path(tempfile.mkdtemp(dir=scratch, prefix=f"koth-{kind}-"))
    return replace(
        config,
        output=replace(
            config.output,
            build=out / "build",
            results=out / "results",
            standings=out / "standings.json",
            site=out / "_site",
        ),
    )


def run_koth(config: Config) -> tuple[Times, dict[str, float]]:
    """One season, stage by stage, into the config's output folders, as ``koth season`` plays
    it: the sandbox and the workers close while the standings and the site are made."""
    times: Times = {}

    def quiet(_: str) -> None:
        pass

    began = time.perf_counter()
    with workers.Closing() as closing:
        with closing.playing(config) as (sandbox, pool):
            builds = timed(times, "build", lambda: check.build_all(config, sandbox, pool=pool))
            verdicts = timed(times, "check", lambda: check.check_all(config, builds, sandbox, pool))
            line = check.Lineup(verdicts)
            timed(
                times,
                "play",
                lambda: season.play(
                    config, line, pool, show_progress=False, say=quiet, sandbox=sandbox
                ),
            )
        _, doc = timed(times, "standings", lambda: season.standings(config, line, quiet))
        timed(times, "site", lambda: render_from_config(config, warn=quiet))
    times["total"] = time.perf_counter() - began
    return times, {row["entry"]: float(row["points"]) for row in doc["entries"]}


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def show(label: str, times: Times) -> str:
    cells = "  ".join(
        f"{stage} {times[stage]:6.2f}" if stage in times else f"{stage}      —" for stage in STAGES
    )
    return f"{label:<16} {cells}  total {times['total']:6.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="koth's jobs (default: the config's)")
    parser.add_argument("--sandbox", nargs="+", default=["local"], choices=["local", "docker"])
    parser.add_argument(
        "--rerun", action="store_true", help="after each koth run, time the same season again"
    )
    parser.add_argument(
        "--default",
        action="store_true",
        help="the default season (tournament.yaml, entries/), koth only: Docker against local",
    )
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}; {load()}"
    )
    with tempfile.TemporaryDirectory(prefix="compare-baseline-") as tmp:
        scratch = Path(tmp)
        if args.default:
            entries, host = [], scratch
            overrides: dict[str, object] = {}
        else:
            entries = baseline.write_entries(scratch / "entries", args.entries)
            host = baseline.compile_host(scratch / "host")
            overrides = {"rounds": 1, "format": "round-robin"}
        if args.jobs is not None:
            overrides["jobs"] = args.jobs
        labels = ([] if args.default else ["baseline"]) + args.sandbox
        runs: dict[str, list[Times]] = {label: [] for label in labels}
        agree = True
        expected: dict[str, float] | None = None
        for _ in range(args.runs):  # round by round: a slow spell of the machine hits every way
            for label in labels:
                if label == "baseline":
                    times, points = run_baseline(entries, scratch, host)
                    times["total"] = sum(times.values())
                    expected = points
                else:
                    config = load_config(REPO / "tournament.yaml", {**overrides, "sandbox": label})
                    if not args.default:
                        config = replace(config, entries=scratch / "entries")
                    config = fresh_output(config, scratch, label)
                    times, points = run_koth(config)
                    expected = points if expected is None else expected
                    agree = agree and points == expected
                    if args.rerun:  # the same season again: everything is cached or recorded
                        again, _ = run_koth(config)
                        print(show(f"{label} re-run", again), flush=True)
                print(show(f"{label} (jobs {config_jobs(args, label)})", times), flush=True)
                runs[label].append(times)
        medians = {
            label: {key: statistics.median(r[key] for r in done) for key in done[0]}
            for label, done in runs.items()
        }
        if args.default:
            print(f"\nmedians of {args.runs} runs, the default season; {load()}")
        else:
            games = args.entries * (args.entries - 1)
            print(f"\nmedians of {args.runs} runs, {args.entries} entries, {games} games; {load()}")
        base = medians["baseline"]["total"] if "baseline" in medians else None
        for label, times in medians.items():
            ratio = ""
            if base is not None and label != "baseline":
                ratio = f"  = {times['total'] / base:.2f}× baseline"
                ratio += f" (rounds' median {round_ratio(runs[label], runs['baseline']):.2f}×)"
            print(show(label, times) + ratio)
        if "docker" in medians and "local" in medians:
            docker, local = medians["docker"]["total"], medians["local"]["total"]
            rounds = round_ratio(runs["docker"], runs["local"])
            print(f"docker / local: {docker / local:.2f}× (rounds' median {rounds:.2f}×)")
        print("same points for every entry every way:", "yes" if agree else "NO")


def round_ratio(these: list[Times], those: list[Times]) -> float:
    """The median over the rounds of one way's total over another's in the same round."""
    return statistics.median(a["total"] / b["total"] for a, b in zip(these, those, strict=True))


def config_jobs(args: argparse.Namespace, label: str) -> int:
    if label == "baseline":
        return 1
    return args.jobs if args.jobs is not None else os.cpu_count() or 1


if __name__ == "__main__":
    main()
