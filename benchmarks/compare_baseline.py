"""koth against the in-process C baseline host, on the same 16-entry Snakes season (run by hand).

    python benchmarks/compare_baseline.py [--entries 16] [--runs 3] [--jobs N]
                                          [--sandbox local docker] [--default] [--rerun]
                                          [--engine-floor]

Generates ``--entries`` greedy one-move-lookahead bots (one salt each) into a temporary folder and
plays their double round-robin (every ordered pair once: 240 games for 16) both ways:

- the baseline (benchmarks/baseline/snakes_host.c): gcc compiles each bot to a shared object, one
  after another; one process dlopen()s them all and plays every game in-process on one core, with
  no isolation; its standings are the sums it prints;
- koth, cold (fresh build, results and site folders), stage by stage in this process with the
  config's jobs (default: one per core): build, check, play, standings, site.

With ``--default``, the default season instead (the repository's tournament.yaml and entries, as
``koth season`` plays it), koth only: for the ratio of Docker to local.

With ``--engine-floor`` (and ``--sandbox local docker``), a third koth way each round: the local
season while benchmarks/engine_load.py has the Docker engine start, beside the builds, as many
containers as that round's Docker season started (counted from the engine's events) and remove
them as the games end, with nothing of koth's running in them. Its time over local's is the floor
under Docker's ratio on this machine: what the engine's own work for those containers costs.

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
import subprocess
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

from runner.cli import stages  # noqa: E402
from runner.season import check, workers  # noqa: E402
from runner.season.config import Config, load_config  # noqa: E402
from runner.site.render import render_from_config  # noqa: E402

STAGES = ("build", "check", "play", "standings", "site")
FLOOR = "local+engine"  # ``--engine-floor``'s way
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


class EngineLoad:
    """benchmarks/engine_load.py in a process of its own, ready before the season's clock
    starts: ``start`` has it start its containers, ``remove`` remove them, ``wait`` its end."""

    def __init__(self, count: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(REPO / "benchmarks" / "engine_load.py"), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._expect("ready")

    def _expect(self, word: str) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if line != word:
            self.process.kill()
            sys.exit(f"compare_baseline: engine_load.py said {line!r}, not {word!r}")

    def _say(self, word: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(word + "\n")
        self.process.stdin.flush()

    def start(self) -> None:
        self._say("start")

    def remove(self) -> None:
        self._expect("up")
        self._say("remove")

    def wait(self) -> None:
        self.process.wait()


def containers_started(began: float, ended: float) -> int:
    """How many of koth's sandbox containers the engine started between these times."""
    from runner.sandbox import docker

    client = docker.connect()
    events = client.events(
        since=int(began),
        until=int(ended) + 1,
        filters={"type": "container", "event": "start", "label": docker.LABEL},
        decode=True,
    )
    return sum(1 for _ in events)


def run_koth(config: Config, engine: EngineLoad | None = None) -> tuple[Times, dict[str, float]]:
    """One season, stage by stage, into the config's output folders, as ``koth season`` plays
    it: the sandbox and the workers close while the standings and the site are made. With
    ``engine``, its containers start as the builds do and are removed as the games end (as a
    Docker season's are), and the season ends when they are gone."""
    times: Times = {}

    def quiet(_: str) -> None:
        pass

    began = time.perf_counter()
    if engine is not None:
        engine.start()
    with workers.Closing() as closing:
        with closing.playing(config) as (sandbox, pool):
            builds = timed(times, "build", lambda: check.build_all(config, sandbox, pool=pool))
            verdicts = timed(times, "check", lambda: check.check_all(config, builds, sandbox, pool))
            line = check.Lineup(verdicts)
            timed(
                times,
                "play",
                lambda: stages.play(
                    config, line, pool, show_progress=False, say=quiet, sandbox=sandbox
                ),
            )
        if engine is not None:
            engine.remove()
        _, doc = timed(times, "standings", lambda: stages.standings(config, line, quiet))
        timed(times, "site", lambda: render_from_config(config, warn=quiet))
    if engine is not None:
        engine.wait()
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
    parser.add_argument(
        "--engine-floor",
        action="store_true",
        help="also the local season beside the engine's work for a Docker season's containers "
        "(needs --sandbox local docker): the floor under Docker's ratio here",
    )
    args = parser.parse_args()
    if args.engine_floor and not {"local", "docker"} <= set(args.sandbox):
        parser.error("--engine-floor needs --sandbox local docker (it counts Docker's containers)")
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
        labels += [FLOOR] if args.engine_floor else []
        containers = 0  # the last Docker season's
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
                    kind = "local" if label == FLOOR else label
                    config = load_config(REPO / "tournament.yaml", {**overrides, "sandbox": kind})
                    if not args.default:
                        config = replace(config, entries=scratch / "entries")
                    config = fresh_output(config, scratch, kind)
                    engine = EngineLoad(containers) if label == FLOOR else None
                    began = time.time()
                    times, points = run_koth(config, engine)
                    if label == "docker" and args.engine_floor:
                        containers = containers_started(began, time.time())
                    expected = points if expected is None else expected
                    agree = agree and points == expected
                    if args.rerun:  # the same season again: everything is cached or recorded
                        again, _ = run_koth(config)
                        print(show(f"{label} re-run", again), flush=True)
                shown = f"{label} (jobs {config_jobs(args, label)})"
                if label == FLOOR:
                    shown = f"local + {containers} containers"
                elif label == "docker" and args.engine_floor:
                    shown += f": {containers} containers"
                print(show(shown, times), flush=True)
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
        if FLOOR in medians:
            floor, local = medians[FLOOR]["total"], medians["local"]["total"]
            rounds = round_ratio(runs[FLOOR], runs["local"])
            print(
                f"the engine's floor ({FLOOR}: {containers} containers started and removed, "
                f"nothing in them) / local: {floor / local:.2f}× (rounds' median {rounds:.2f}×)"
            )
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
