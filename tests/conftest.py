"""Shared fixtures: the sandboxes every bot-running test can be played in."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote import SandboxError


@pytest.fixture(scope="session")
def docker_sandbox() -> Iterator[object]:
    """A Docker sandbox on a real engine. Where none answers, the test is skipped with the
    reason — except under CI (the CI variable set), where that is a failure: .ci/run starts one."""
    from runner.sandbox.docker import DockerSandbox

    try:
        box = DockerSandbox(say=lambda text: None)
    except SandboxError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the docker tests must run under CI, but: {exc}")
        pytest.skip(f"no Docker engine here: {exc}")
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
