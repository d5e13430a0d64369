"""What some tests need from the machine: a Docker engine, or Chromium with Playwright.

A test marked ``docker`` (or using the ``docker_sandbox`` fixture) needs a Docker engine; one
marked ``browser`` (or using the ``browser`` or ``base_url`` fixture) needs Chromium and
Playwright for Python (tests/conftest.py applies both rules). Where one is missing, those tests
are skipped, every one with the same reason, so pytest's summary (``-ra``) shows one line saying
what is missing and how to install it. Under CI (the ``CI`` variable set) a missing one is a
failure instead: .ci/run installs both.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pytest

DOCKER = "docker"
BROWSER = "browser"
NEEDS = (DOCKER, BROWSER)
INSTALL = {
    DOCKER: "`sudo bash .ci/docker-engine.sh` (Debian's docker.io, dockerd and the base image)",
    BROWSER: "`sudo bash .ci/site-deps.sh` (Debian's chromium)",
}


def chromium() -> str | None:
    """The Chromium the browser tests drive: $KOTH_CHROMIUM, else chromium on PATH."""
    for candidate in (
        os.environ.get("KOTH_CHROMIUM"),
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _docker_problem() -> str | None:
    from runner.sandbox.docker import connect
    from runner.sandbox.zygote_client import SandboxError

    try:
        connect().close()
    except SandboxError:
        return "no Docker engine answers"
    return None


def _browser_problem() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if chromium() is None:
        return "no chromium on PATH"
    return None


@functools.cache
def problem(need: str) -> str | None:
    """Why this machine cannot run the tests that need ``need``; None when it can."""
    return _docker_problem() if need == DOCKER else _browser_problem()


def skip_reason() -> str:
    """One reason for every skipped test, naming all that is missing (so pytest folds them)."""
    gaps = [need for need in NEEDS if problem(need)]
    what = " and ".join({DOCKER: "a Docker engine", BROWSER: "Chromium"}[n] for n in gaps)
    why = "; ".join(str(problem(n)) for n in gaps)
    how = " and ".join(INSTALL[n] for n in gaps)
    return f"needs {what}, missing here ({why}). To run these tests: {how}; with CI set they fail"


def require(need: str) -> None:
    """Skip the running test (fail it under CI) when ``need`` is missing."""
    found = problem(need)
    if found is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the {need} tests must run under CI, but {found}: run {INSTALL[need]}")
    pytest.skip(skip_reason())


def toolchain_problem(language: str) -> str | None:
    """What of ``language``'s compilers and runtime (runner/common/languages.py) this machine
    lacks, which the local sandbox builds and runs its bots with; None when nothing is."""
    from runner.common import languages

    row = languages.find(language)
    programs = [step[0] for step in row.build] + ([] if row.own else [row.run[0]])
    missing = [
        program
        for program in dict.fromkeys(programs)
        if not (os.access(program, os.X_OK) if program.startswith("/") else shutil.which(program))
    ]
    return f"no {', '.join(missing)}" if missing else None


def require_toolchain(language: str) -> None:
    """Skip the running test (fail it under CI) when ``language``'s toolchain is missing, saying
    how to install it: .ci/run installs every language's."""
    found = toolchain_problem(language)
    if found is None:
        return
    how = "`sudo bash .ci/languages.sh` (every language's Debian packages)"
    if os.environ.get("CI"):
        pytest.fail(f"the {language} tests must run under CI, but {found}: run {how}")
    pytest.skip(f"needs {language}'s toolchain, missing here ({found}). To run these tests: {how}")
