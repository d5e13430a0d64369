"""Shared fixtures: the sandboxes every bot-running test can be played in; what tests need from
the machine (tests/needs.py: a Docker engine, Chromium), checked before each test that needs it."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from typing import Any

import browsing
import needs
import pytest

from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import SandboxError

# Fixtures that stand for a need: a test using one needs what the marker of the same name says.
NEEDED_BY_FIXTURE = {"docker_sandbox": needs.DOCKER, "base_url": needs.BROWSER}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        for fixture, need in NEEDED_BY_FIXTURE.items():
            if fixture in fixtures and item.get_closest_marker(need) is None:
                item.add_marker(need)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for need in needs.NEEDS:
        if item.get_closest_marker(need) is not None:
            needs.require(need)


@pytest.fixture(autouse=True)
def no_season_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """A season secret in the environment of whoever runs the tests would re-seed every season
    they play (runner/season/config.py): a test that wants one sets it."""
    monkeypatch.delenv("KOTH_SEASON_SECRET", raising=False)


@pytest.fixture(scope="module")
def browser(base_url: str) -> Iterator[Any]:
    """Chromium, for a module whose ``base_url`` serves the site its browser tests read."""
    with browsing.chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that fails its test if the console reported an error, a script raised or a
    dialog opened (tests/browsing.py)."""
    with browsing.checked_page(browser) as opened:
        yield opened


@pytest.fixture(scope="session")
def docker_sandbox() -> Iterator[object]:
    """A Docker sandbox on a real engine (the engine's presence is checked by needs.require)."""
    from runner.sandbox.docker import DockerSandbox

    try:
        box = DockerSandbox(say=lambda text: None)
    except SandboxError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the docker tests must run under CI, but: {exc}")
        pytest.skip(f"the Docker engine cannot make the sandbox: {exc}")
    yield box
    box.close()


@pytest.fixture(scope="session")
def local_sandbox() -> Iterator[LocalSandbox]:
    box = LocalSandbox()
    yield box
    box.close()


SANDBOXES = ["local", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(params=SANDBOXES)
def any_sandbox(request: pytest.FixtureRequest) -> object:
    """Each test using it runs once per sandbox."""
    return request.getfixturevalue(f"{request.param}_sandbox")


@pytest.fixture
def fake_zygote() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A control socket whose far end the test speaks for (a container's zygote, hijacked)."""
    host, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    far.send(json.dumps({"event": "ready", "pid": 7, "root": True}).encode())
    yield host, far
    far.close()
