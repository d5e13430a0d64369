"""C sources of koth's own compiled once per machine and version: the C blank (runner/bots/
cblank.c, a program) and a game's quick loop (runner/bots/quick.c with the game's rules in C,
runner/games/snakes/step.c: a shared object).

Each is kept in a folder of this user's own (``$XDG_CACHE_HOME/koth``, else ``~/.cache/koth``)
under a name holding a hash of the source and the flags, so an edited source is compiled again and
nothing else is. The folder and the file are used only if this user owns them and nobody else may
write to them; otherwise, or where the cache cannot be written, the file is compiled into a
private temporary folder for this process. Without gcc, or if the compile fails, there is none:
what would have used it does without (in Python).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path


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


def private_folder(name: str) -> Path | None:
    """A folder ``name`` of this user's own in the cache folder, that no one else may write to
    (made if missing); None where there is none. What koth keeps there it runs or loads as code
    (the Jinja templates' compiled code, runner/site.py), so nobody else may have written it."""
    base = _cache_folder()
    if base is None:
        return None
    folder = base / name
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder if _private(folder, stat.S_IFDIR) else None


def _compile(sources: Sequence[Path], flags: Sequence[str], target: Path) -> bool:
    """Compile ``sources`` to ``target`` (through a temporary name beside it: another process
    may be compiling it at the same moment)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    command = ["gcc", *flags, *map(str, sources), "-o", str(partial)]
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


def compiled(sources: Sequence[Path], flags: Sequence[str], name: str) -> str | None:
    """``sources`` compiled together with ``flags``: the path of ``name-<hash>``, or None where
    it cannot be had."""
    text = b"\0".join(source.read_bytes() for source in sources)
    digest = hashlib.sha256(text + "\0".join(flags).encode()).hexdigest()[:16]
    filename = f"{name}-{digest}"
    folder = _cache_folder()
    if folder is not None:
        target = folder / filename
        if _private(target, stat.S_IFREG) or (
            _compile(sources, flags, target) and _private(target, stat.S_IFREG)
        ):
            return str(target)
    scratch = Path(tempfile.mkdtemp(prefix=f"koth-{name}-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    target = scratch / filename
    return str(target) if _compile(sources, flags, target) else None
