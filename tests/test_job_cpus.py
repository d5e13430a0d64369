"""Each job slot keeps to one CPU (runner/workers.py ``pin_to_one_cpu``): a worker of the pool
takes the next slot's CPU as it starts, and what it starts afterwards (its sandbox's zygote, the
bots forked from it) keeps to that CPU too, so a bot and the host waiting on its reply never wake
each other across CPUs. Real processes: spawned workers and a child each reports its CPUs."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from typing import Any

from runner import workers
from runner.sandbox.zygote import BotLimits

LIMITS = BotLimits(
    move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20, first_move_wall_s=2.0
)
CPUS = sorted(os.sched_getaffinity(0))


def report(slots: Any, found: Any) -> None:
    """A worker's start, as the pool starts one, then its CPUs and its child's."""
    workers._worker_init("snakes-v2", LIMITS, "local", os.getppid(), slots)
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    found.put((sorted(os.sched_getaffinity(0)), child.stdout.strip()))


def test_each_worker_takes_its_own_cpu_and_what_it_starts_keeps_to_it() -> None:
    context = multiprocessing.get_context("spawn")
    slots, found = context.Value("i", 0), context.Queue()
    started = [context.Process(target=report, args=(slots, found)) for _ in range(2)]
    for process in started:
        process.start()
    seen = [found.get(timeout=60) for _ in started]
    for process in started:
        process.join(timeout=60)
    for cpus, child in seen:
        assert len(cpus) == 1 and cpus[0] in CPUS, f"a worker keeps to one CPU, not {cpus}"
        assert child == str(cpus), "its children keep to the same CPU"
    taken = sorted(cpus[0] for cpus, _ in seen)
    assert taken == sorted(CPUS[k % len(CPUS)] for k in range(2)), "slot k: the k-th CPU"


def test_slots_past_the_cpus_go_round_them_again() -> None:
    code = (
        "import os, sys\n"
        "from runner.workers import pin_to_one_cpu\n"
        "print(pin_to_one_cpu(int(sys.argv[1])), sorted(os.sched_getaffinity(0)))\n"
    )
    shown = [
        subprocess.run(
            [sys.executable, "-c", code, str(slot)], capture_output=True, text=True, check=True
        ).stdout.split(maxsplit=1)
        for slot in range(len(CPUS) + 1)
    ]
    assert [int(cpu) for cpu, _ in shown] == [*CPUS, CPUS[0]]
    assert all(rest.strip() == f"[{cpu}]" for cpu, rest in shown), "and it is the one it keeps to"
