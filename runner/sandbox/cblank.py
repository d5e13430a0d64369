"""The C blank (runner/bots/cblank.c), compiled once per machine and version for the local
sandbox: the zygote starts a C-function bot's process from it instead of forking itself.

The binary is kept in a folder of this user's own (``$XDG_CACHE_HOME/koth``, else
``~/.cache/koth``) under a name holding a hash of the source and the flags, so an edited source
is compiled again and nothing else is. The folder and the binary are used only if this user owns
them and nobody else may write to them; otherwise, or where the cache cannot be written, the
binary is compiled into a private temporary folder for this process. Without gcc, or if the
compile fails, there is none: the zygote then serves C-function bots in Python, as before.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from runner.bots import worker

SOURCE = Path(worker.__file__).with_name("cblank.c")
FLAGS = ("-std=gnu11", "-O2", "-Wall", "-Wextra")  # the Docker image's build gets them too


def _private(path: Path, kind: int) -> bool:
    """Whether ``path`` is a ``kind`` (S_IFDIR, S_IFREG) of this user's that no one else may
    write to (not a symbolic link)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (
        stat.S_IFMT(info.st_mode) == kind
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _cache_folder() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "koth"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if _private(folder, stat.S_IFDIR) else None


def _compile(target: Path) -> bool:
    """Compile the C blank to ``target`` (through a temporary name beside it: another process
    may be compiling it at the same moment)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    command = ["gcc", *FLAGS, str(SOURCE), "-o", str(partial)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, check=False)
        compiled = done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        compiled = False
    if not compiled:
        partial.unlink(missing_ok=True)
        return False
    partial.chmod(0o755)
    os.replace(partial, target)
    return True


@functools.cache
def binary() -> str | None:
    """The compiled C blank's path, or None where it cannot be had."""
    digest = hashlib.sha256(SOURCE.read_bytes() + "\0".join(FLAGS).encode()).hexdigest()[:16]
    name = f"cblank-{digest}"
    folder = _cache_folder()
    if folder is not None:
        target = folder / name
        if _private(target, stat.S_IFREG) or (_compile(target) and _private(target, stat.S_IFREG)):
            return str(target)
    scratch = Path(tempfile.mkdtemp(prefix="koth-cblank-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    target = scratch / name
    return str(target) if _compile(target) else None
