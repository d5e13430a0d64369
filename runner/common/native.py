"""C sources of koth's own compiled once per machine and version: the C blank (runner/jail/
cblank.c, a program) and a game's quick loop (runner/play/quick.c with the game's rules in C,
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
import sys
import tempfile
import threading
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


def _cache_base() -> Path:
    """$XDG_CACHE_HOME, else ~/.cache (the XDG base directory specification)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return Path(base) if os.path.isabs(base) else Path(os.path.expanduser("~")) / ".cache"


def _cache_folder() -> Path | None:
    folder = _cache_base() / "koth"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if _private(folder, stat.S_IFDIR) else None


def private_folder(name: str) -> Path | None:
    """A folder ``name`` of this user's own in the cache folder, that no one else may write to
    (made if missing); None where there is none. What koth keeps there it runs or loads as code
    (the Jinja templates' compiled code, runner/site/render.py), so nobody else may have written
    it."""
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
    """Compile ``sources`` to ``target``, through a temporary name beside it that is this
    compile's alone (threads of this process and other processes may be compiling the same
    target at the same moment, into an empty cache): the finished file is renamed over
    ``target`` in one step, so a reader sees no file or a whole one."""
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError:
        return False
    os.close(handle)
    partial = Path(name)
    command = ["gcc", *flags, *map(str, sources), "-o", str(partial)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, check=False)
        if done.returncode == 0:
            partial.chmod(0o755)
            os.replace(partial, target)
            return True
    except (OSError, subprocess.TimeoutExpired):
        pass
    partial.unlink(missing_ok=True)
    return False


_lock = threading.Lock()
_warned: set[str] = set()


def _warn_once(text: str) -> None:
    if text not in _warned:
        _warned.add(text)
        print(f"koth: warning: {text}", file=sys.stderr, flush=True)


def compiled(sources: Sequence[Path], flags: Sequence[str], name: str) -> str | None:
    """``sources`` compiled together with ``flags``: the path of ``name-<hash>``, or None where
    it cannot be had. One compile at a time in a process (a second thread asking for the same
    file waits and finds it made)."""
    text = b"\0".join(source.read_bytes() for source in sources)
    digest = hashlib.sha256(text + "\0".join(flags).encode()).hexdigest()[:16]
    filename = f"{name}-{digest}"
    with _lock:
        folder = _cache_folder()
        if folder is not None:
            target = folder / filename
            if _private(target, stat.S_IFREG) or (
                _compile(sources, flags, target) and _private(target, stat.S_IFREG)
            ):
                return str(target)
        else:
            _warn_once(
                f"the cache folder {_cache_base() / 'koth'} cannot be used (it must be a folder "
                "of this user's that no one else may write to); koth compiles its helpers for "
                "this run only (set XDG_CACHE_HOME to a folder of yours to keep them)"
            )
        return _compile_for_this_run(sources, flags, filename)


def _compile_for_this_run(
    sources: Sequence[Path], flags: Sequence[str], filename: str
) -> str | None:
    """A private temporary folder of this process's, removed as it exits."""
    try:
        scratch = Path(tempfile.mkdtemp(prefix="koth-"))
    except OSError as error:
        _warn_once(f"no temporary folder for koth's helpers ({error.strerror}); running without")
        return None
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    target = scratch / filename
    return str(target) if _compile(sources, flags, target) else None
