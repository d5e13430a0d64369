"""Running commands as a user who is not root, as koth's users and GitHub's runners do.

The suite runs as root in CI (.ci/run), where ``KOTH_TEST_USER`` names a user made for it: not
root, in the docker group, allowed to sudo without a password (GitHub's runner user is all
three). A test that plays "as a user" runs its commands as that one; run as anyone else, the
tests use this process's own user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

USER_VARIABLE = "KOTH_TEST_USER"


def _fail_or_skip(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


@dataclass(frozen=True)
class User:
    """Someone to run commands as: ``name`` None is this process's own user."""

    name: str | None
    uid: int
    gid: int
    groups: tuple[int, ...]
    home: str

    @staticmethod
    def this_process() -> User:
        entry = pwd.getpwuid(os.geteuid())
        return User(None, entry.pw_uid, entry.pw_gid, (), entry.pw_dir)

    @staticmethod
    def not_root() -> User:
        """A user who is not root: ``KOTH_TEST_USER`` when this process is root (CI must set
        it), else this process's user."""
        if os.geteuid() != 0:
            return User.this_process()
        name = os.environ.get(USER_VARIABLE, "")
        if not name:
            _fail_or_skip(
                f"running as root: set {USER_VARIABLE} to a user who is not root (.ci/run makes "
                "one) to run this test as one"
            )
        entry = pwd.getpwnam(name)
        if entry.pw_uid == 0:
            pytest.fail(f"{USER_VARIABLE}={name} is root")
        groups = tuple(os.getgrouplist(entry.pw_name, entry.pw_gid))
        return User(name, entry.pw_uid, entry.pw_gid, groups, entry.pw_dir)

    @staticmethod
    def root() -> User:
        if os.geteuid() != 0:
            _fail_or_skip("this test runs as root (CI runs the suite as root)")
        return User.this_process()

    @property
    def is_root(self) -> bool:
        return self.uid == 0

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (this process's environment) with the user's HOME, USER and LOGNAME."""
        env = dict(os.environ if base is None else base)
        if self.name is not None:
            env.update(HOME=self.home, USER=self.name, LOGNAME=self.name)
        return env

    def take(self, *paths: Path) -> None:
        """Make ``paths`` and everything in them the user's."""
        if self.name is None:
            return
        for path in paths:
            subprocess.run(["chown", "-R", f"{self.uid}:{self.gid}", str(path)], check=True)

    def run(
        self,
        command: list[str],
        cwd: Path = Path("/"),
        env: Mapping[str, str] | None = None,
        timeout: float = 600,
    ) -> subprocess.CompletedProcess[str]:
        """``command`` run as this user; its output and errors together, as text."""
        identity: dict[str, Any] = {}
        if self.name is not None:
            identity = {"user": self.uid, "group": self.gid, "extra_groups": list(self.groups)}
        return subprocess.run(
            command,
            cwd=cwd,
            env=self.environment() if env is None else dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            **identity,
        )

    def python(self) -> str:
        """A Python of this one's version, with venv, that the user can run (this one lies
        under /root when the tests run as root from pyenv: Debian's then)."""
        wanted = f"{sys.version_info[0]}.{sys.version_info[1]}"
        probe = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])"
        for candidate in (sys.executable, shutil.which(f"python{wanted}"), "/usr/bin/python3"):
            if candidate is None:
                continue
            try:
                done = self.run([candidate, "-c", probe])
            except PermissionError:  # not the user's to run
                continue
            if done.returncode == 0 and done.stdout.strip() == wanted:
                return candidate
        pytest.fail(f"no Python {wanted} with venv that {self.name or 'this user'} can run")


@dataclass(frozen=True)
class RunnerUser(User):
    """Who runs a rehearsed workflow's steps: GitHub's runner user is not root and may sudo."""

    @staticmethod
    def find() -> RunnerUser:
        """Under root, the user ``KOTH_TEST_USER`` names (CI must set it; elsewhere root itself
        will do); else this process's user (it needs sudo for the steps that play)."""
        quiet = os.geteuid() == 0 and not os.environ.get(USER_VARIABLE, "")
        user = User.this_process() if quiet and not os.environ.get("CI") else User.not_root()
        runner = RunnerUser(user.name, user.uid, user.gid, user.groups, user.home)
        if shutil.which("sudo") is None or runner.run(["sudo", "-n", "true"]).returncode != 0:
            _fail_or_skip("the workflows play as root through sudo, which this user cannot use")
        return runner


@contextmanager
def user_folder(user: User, tmp_path: Path) -> Iterator[Path]:
    """A folder ``user`` can reach and owns: ``tmp_path`` for this process's own user, else a
    new one in the system's temporary folder (pytest's folders are root's alone)."""
    if user.name is None:
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="koth-as-user-"))
    folder.chmod(0o711)  # passable, not listable
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
