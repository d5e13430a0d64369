"""The C blank (runner/bots/cblank.c), compiled once per machine and version for the local
sandbox (runner/native.py): the zygote starts a C-function bot's process from it instead of
forking itself. Without gcc, or if the compile fails, there is none: the zygote then serves
C-function bots in Python, as before.
"""

from __future__ import annotations

import functools
from pathlib import Path

from runner import native
from runner.bots import worker

SOURCE = Path(worker.__file__).with_name("cblank.c")
FLAGS = ("-std=gnu11", "-O2", "-Wall", "-Wextra")  # the Docker image's build gets them too


@functools.cache
def binary() -> str | None:
    """The compiled C blank's path, or None where it cannot be had."""
    return native.compiled([SOURCE], FLAGS, "cblank")
