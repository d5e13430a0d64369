"""benchmarks/engine_load.py, the Docker engine's work that compare_baseline.py ``--engine-floor``
sets beside a local season: it starts the containers it is asked for and removes them all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from runner.sandbox.docker import connect

pytestmark = pytest.mark.docker
SCRIPT = Path(__file__).parents[1] / "benchmarks" / "engine_load.py"


def helper(count: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n", "the helper should say it is ready first"
    return process


def its_containers(client: Any, pid: int) -> list[Any]:
    return list(
        client.containers.list(
            all=True, filters={"label": f"koth.benchmark={pid}"}, ignore_removed=True
        )
    )


def say(process: subprocess.Popen[str], word: str) -> None:
    assert process.stdin is not None
    process.stdin.write(word + "\n")
    process.stdin.flush()


def test_it_starts_the_containers_asked_for_and_removes_them() -> None:
    client = connect()
    process = helper(3)
    try:
        assert its_containers(client, process.pid) == [], "nothing should start before 'start'"
        say(process, "start")
        assert process.stdout is not None
        assert process.stdout.readline() == "up\n"
        running = its_containers(client, process.pid)
        assert len(running) == 3, f"three containers should run, not {len(running)}"
        for container in running:
            config = container.attrs["HostConfig"]
            assert container.status == "running"
            assert config["NetworkMode"] == "none" and config["ReadonlyRootfs"]
            assert config["CapDrop"] == ["ALL"], "they should carry koth's hardening"
        say(process, "remove")
        assert process.wait(timeout=60) == 0
        assert its_containers(client, process.pid) == [], "every container should be removed"
    finally:
        process.kill()
        process.wait()


def test_it_starts_nothing_when_its_input_ends_first() -> None:
    client = connect()
    process = helper(2)
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    assert its_containers(client, process.pid) == []
