"""The C blank (runner/jail/cblank.c), compiled once per machine and version for the local
sandbox (runner/common/native.py): the zygote starts a C-function bot's process from it instead of
forking itself. Without gcc, or if the compile fails, there is none: the zygote then serves
C-function bots in Python, as before.
"""

from __future__ import annotations

import functools
from pathlib import Path

from runner.common import native
from runner.jail import zygote as zygote_program

SOURCE = Path(zygote_program.__file__).with_name("cblank.c")
# The Docker image's build gets them too. Full RELRO: the blank's own symbols are bound when it
# starts, before any bot code runs, and its table of them is then read-only; a blank forked from
# the fork server binds none of them again (~0.07 ms of CPU a bot less: the play stage's CPU
# 1.40-1.43 -> 1.38-1.39 s on the 16-entry season).
# libm is loaded with it (a bot's library may need it, and in a chroot holding only that library
# the loader could not find it), and its pages are in the blank's page tables before the bot comes.
FLAGS = (
    "-std=gnu11",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Wl,-z,relro,-z,now",
    "-Wl,--no-as-needed",
    "-lm",
)


@functools.cache
def binary() -> str | None:
    """The compiled C blank's path, or None where it cannot be had."""
    return native.compiled([SOURCE], FLAGS, "cblank")
