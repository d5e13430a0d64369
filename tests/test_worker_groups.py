"""The zygote's clean-up of memory groups left by zygotes that died (runner/bots/worker.py):
only a group named for a dead zygote's pid goes; any other name is left alone, never a crash."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from runner.bots import worker


def test_only_the_groups_of_dead_zygotes_are_removed(tmp_path: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()  # a pid no process has now (reaped)
    names = {
        f"koth-{ended.pid}": False,  # its zygote is gone: removed, with its bots' groups
        f"koth-{os.getpid()}": True,  # alive
        "koth-\u00b2": True,  # digits int() cannot read
        "koth-\u0661\u0662": True,  # digits int() reads, but no pid is named so
        "other-1": True,
    }
    for name in names:
        (tmp_path / name / "bot-1").mkdir(parents=True)
    worker._remove_stale_groups(str(tmp_path))
    assert {name: (tmp_path / name).exists() for name in names} == names
