"""Each job slot keeps to one CPU (runner/season/workers.py ``pin_to_one_cpu``): a worker of the
pool takes the next slot's CPU as it starts, and what it starts afterwards (its sandbox's zygote,
the bots forked from it) keeps to that CPU too, so a bot and the host waiting on its reply never
wake each other across CPUs; games played in this process (one job) keep to one CPU while they
play, with the sandbox's zygote and its blanks, and this process gets its CPUs back afterwards.
Real processes: spawned workers, a child, a zygote, its blanks and a game of the built-in bot."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from processes import fork_servers

from runner.sandbox import docker as docker_module
from runner.sandbox.docker import DockerSandbox
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season import check, workers
from runner.season.config import load_config

REPO = Path(__file__).resolve().parents[1]

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
        "from runner.season.workers import pin_to_one_cpu\n"
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


def cpus_of(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no Cpus_allowed_list for {pid}")


def test_games_played_in_this_process_keep_to_one_cpu_and_give_it_back(tmp_path: Path) -> None:
    config = replace(
        load_config(REPO / "tournament.yaml", {"jobs": 1}),
        output=replace(load_config(REPO / "tournament.yaml").output, build=tmp_path / "build"),
    )
    sandbox = LocalSandbox()
    try:
        player = check.builtin_player(config, sandbox)  # loads it once: the zygote is started
        zygote = sandbox.zygote
        assert cpus_of(zygote.pid) == cpus_of(os.getpid()), "before: the CPUs this process has"
        before = os.sched_getaffinity(0)
        with workers.GamePool(config.game, workers.bot_limits(config), 1, sandbox) as pool:
            done = list(pool.play([workers.Task(0, (player, player), 7)]))
        assert done[0][1] is not None and done[0][2] is None, "the game was played"
        assert os.sched_getaffinity(0) == before, "this process has its CPUs back"
        kept = cpus_of(zygote.pid)
        assert kept == str(CPUS[0]), f"the zygote keeps to one CPU, not {kept}"
        blanks = zygote.blanks()
        assert blanks, "it holds blanks for the next games"
        assert {cpus_of(pid) for pid in blanks} == {kept}, "and so do its blanks"
        servers = fork_servers(zygote.pid)
        assert [cpus_of(pid) for pid in servers] == [kept], "and the C blanks' fork server"
    finally:
        sandbox.close()


@pytest.mark.docker
def test_a_play_container_keeps_to_its_slots_cpu(tmp_path: Path) -> None:
    sandbox = DockerSandbox(say=lambda text: None)
    jails = [tmp_path / "one", tmp_path / "two"]
    for jail in jails:
        jail.mkdir()
        jail.chmod(0o755)
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {CPUS[-1]})  # as a pool worker keeps to its slot's CPU
        try:
            sandbox.prepare(jails[:1], LIMITS)
        finally:
            os.sched_setaffinity(0, before)
        pinned = list(sandbox._boxes)
        for box in pinned:
            box.container.reload()
            assert box.container.attrs["HostConfig"]["CpusetCpus"] == str(CPUS[-1]), "one CPU"
        sandbox.prepare(jails[1:], LIMITS)
        free = list(sandbox._boxes)
        assert pinned and free and not set(pinned) & set(free), "new ones mount the new jail"
        for box in free:
            box.container.reload()
            assert box.container.attrs["HostConfig"]["CpusetCpus"] == "", "started on any CPU"
        sandbox.keep_to({CPUS[0]})  # games played in the host's own process (one job)
        for box in free:
            box.container.reload()
            pid = int(box.container.attrs["State"]["Pid"])  # its init, on this machine
            assert cpus_of(pid) == str(CPUS[0]), "the container's processes keep to the CPU"
    finally:
        sandbox.close()


@pytest.mark.docker
def test_a_cpu_the_engine_may_not_use_costs_speed_not_the_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    absent = str(max(CPUS) + 61)  # a CPU this machine does not have: the engine refuses it
    monkeypatch.setattr(docker_module, "_same_cpu", lambda: {"cpuset_cpus": absent})
    sandbox = DockerSandbox(say=lambda text: None)
    jail = tmp_path / "jail"
    jail.mkdir()
    jail.chmod(0o755)
    try:
        sandbox.prepare([jail], LIMITS)
        box = sandbox._boxes[0]
        box.container.reload()
        assert box.container.attrs["HostConfig"]["CpusetCpus"] == "", "started without it"
        assert not box.zygote.dead, "and its zygote answers"
    finally:
        sandbox.close()
