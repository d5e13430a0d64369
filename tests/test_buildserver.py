"""The Docker build container's driver, runner/jail/buildserver.py, in the parts that need no
container: how long it waits for a build (with the kernel's pidfd, and without it, as on a kernel
before 5.3) and the status it reports for a build's end. tests/test_docker_build.py runs it in
its container."""

from __future__ import annotations

import os
import signal
import time

import pytest

from runner.jail import buildserver


def child(seconds: float, code: int = 0) -> int:
    pid = os.fork()
    if pid == 0:
        time.sleep(seconds)
        os._exit(code)
    return pid


@pytest.mark.parametrize("pidfd", [True, False])
def test_a_build_ends_within_its_limit_or_is_found_still_running(
    pidfd: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not pidfd:

        def no_pidfd(pid: int) -> int:
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    quick = child(0.05, 3)
    assert buildserver.ended_within(quick, 30)
    _, status = os.waitpid(quick, 0)  # left to be reaped, with its status
    assert buildserver.status_of(status) == 3
    slow = child(30)
    try:
        began = time.monotonic()
        assert not buildserver.ended_within(slow, 0.2)
        assert 0.2 <= time.monotonic() - began < 10
    finally:
        os.kill(slow, signal.SIGKILL)
        _, status = os.waitpid(slow, 0)
    assert buildserver.status_of(status) == 128 + signal.SIGKILL  # as a shell's $? says it
