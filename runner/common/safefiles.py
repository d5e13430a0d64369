"""Reading files a stranger controls: entry folders, and what a sandbox hands back. Stdlib only.

A pull request controls every file under its entry's folder, so the host reads them by these
rules, here and nowhere else:

- An entry folder holds regular files and folders only. A symbolic link, device, FIFO or socket
  anywhere in it, a file over ``FILE_CAP``, more than ``TOTAL_CAP`` bytes, ``MAX_FILES`` names
  or ``MAX_DEPTH`` levels of folders: the entry is refused, with one sentence naming the path and
  the rule (``UnsafeFileError``).
- Nothing is followed: every folder and file is opened relative to the folder above it
  (``dir_fd``) with ``O_NOFOLLOW``, each name is checked with ``lstat`` before it is opened (so a
  device is never opened), and the opened file is checked again (``fstat``: the same inode, a
  regular file), so a name swapped for a link in between is caught too.
- Nothing is read past its cap: a file that is larger, or grows while read, is refused.

``read_tree`` reads a whole entry once (its content hash and its private copies are made from
that one reading), ``read_beneath`` one file of it, ``read_capped`` one file the host itself
named (an artefact a sandbox wrote), ``read_regular`` a file a person named (a link followed,
but only to a regular file: a FIFO there would hang the reader), and ``copy_tree`` writes a
private copy of an entry.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

FILE_CAP = 1 << 20  # one file of an entry
TOTAL_CAP = 1 << 20  # all files of an entry together
MAX_FILES = 256  # files and folders in one entry
MAX_DEPTH = 8  # folders inside folders
RULE = "an entry folder may hold only regular files and folders"
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFileError(ValueError):
    """A file or folder that breaks the rules above; the message is one sentence with the fix."""


def shown(name: str) -> str:
    """A name as it may appear in a one-line message: itself when printable, else escaped (a
    name need not be UTF-8, nor free of newlines)."""
    return name if name.isprintable() else ascii(name)


def shown_text(text: str) -> str:
    """Text from a stranger (a compiler's output quoting an entry's source, a bot's words, a
    cached verdict) as it may be printed: line breaks and tabs kept, every other character that
    is not printable (escape sequences, carriage returns, bidirectional overrides) written as
    its Python escape, so that nothing in it can move the cursor, recolour, retitle or rewrite
    the terminal or log it is printed to."""
    if text.isprintable():
        return text
    text = text.replace("\r\n", "\n")  # a source file's line endings, as a compiler quotes them
    return "\n".join(
        "".join(c if c.isprintable() or c == "\t" else ascii(c)[1:-1] for c in line)
        for line in text.split("\n")
    )


def shown_indented(text: str, prefix: str = "        ") -> str:
    """A stranger's text as it may be printed (``shown_text``), every line indented: a verdict's
    message under the line that names its entry."""
    return "\n".join(prefix + line for line in shown_text(text).split("\n"))


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _refuse_kind(where: str, mode: int) -> UnsafeFileError:
    return UnsafeFileError(
        f"{where} is {_kind(mode)}; {RULE}. Fix: replace it with the regular file itself."
    )


def _too_large(where: str, cap: int) -> UnsafeFileError:
    return UnsafeFileError(f"{where} is larger than {cap} bytes. Fix: keep it under {cap} bytes.")


def _read_fd(fd: int, where: str, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, min(1 << 16, cap + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            raise _too_large(where, cap)


def _open_file(name: str, where: str, cap: int, dir_fd: int | None) -> int:
    """Open a regular file without following a link or opening anything else; its descriptor."""
    try:
        before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise UnsafeFileError(f"{where} is missing.") from None
    if not stat.S_ISREG(before.st_mode):
        raise _refuse_kind(where, before.st_mode)
    if before.st_size > cap:
        raise _too_large(where, cap)
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a link after the lstat
            raise _refuse_kind(where, stat.S_IFLNK) from None
        raise UnsafeFileError(f"{where} cannot be read ({exc.strerror}).") from None
    after = os.fstat(fd)
    if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(
        after.st_mode
    ):
        os.close(fd)
        raise UnsafeFileError(f"{where} changed while it was read. Fix: try again.")
    return fd


def read_capped(path: Path | str, cap: int, where: str | None = None) -> bytes:
    """The bytes of the regular file ``path`` (its last name not followed), at most ``cap``."""
    fd = _open_file(str(path), where or str(path), cap, None)
    try:
        return _read_fd(fd, where or str(path), cap)
    finally:
        os.close(fd)


def read_regular(path: Path | str, cap: int, where: str | None = None) -> bytes:
    """The bytes of ``path``, a file a person named (a configuration, a map, a file an earlier
    step wrote): a link is followed, but what it reaches must be a regular file, opened without
    waiting (a FIFO's open would wait for a writer for ever) and read up to ``cap`` bytes.
    FileNotFoundError when it is missing; UnsafeFileError when it is not a regular file or is
    larger than ``cap``; OSError when it cannot be read."""
    where = where or str(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFileError(f"{where} is {_kind(mode)}, not a regular file")
        return _read_fd(fd, where, cap)
    finally:
        os.close(fd)


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A new file to write ``path``'s whole content to: made beside it (a name of its own, never
    one a cache could have planted a link at), synced, then renamed over it; removed instead if
    the writing fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _open_folder(name: str, where: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, _DIRECTORY, dir_fd=dir_fd)
    except FileNotFoundError:
        raise UnsafeFileError(f"{where} is missing.") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                raise UnsafeFileError(
                    f"{where} is a symbolic link; {RULE}. Fix: make it a real folder."
                ) from None
            raise UnsafeFileError(f"{where} is not a folder.") from None
        raise UnsafeFileError(f"{where} cannot be read ({exc.strerror}).") from None


@contextmanager
def _folder(path: Path) -> Iterator[int]:
    """The folder ``path`` opened without following its last name (its parents are the
    host's own: the entries folder from tournament.yaml)."""
    fd = _open_folder(str(path), shown(path.name), None)
    try:
        yield fd
    finally:
        os.close(fd)


def _parts(relative: str) -> list[str]:
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafeFileError(f"{relative!r} is not a plain relative path.")
    return parts


def read_beneath(folder: Path, relative: str, cap: int = FILE_CAP) -> bytes:
    """The file ``folder/relative`` where no part of ``relative`` (nor ``folder`` itself) may be a
    link: every folder on the way is opened relative to the one above it, with O_NOFOLLOW."""
    parts = _parts(relative)
    where = shown(f"{folder.name}/{relative}")
    with _folder(folder) as top:
        fds = [top]
        try:
            for i, part in enumerate(parts[:-1]):
                on_the_way = shown(f"{folder.name}/{'/'.join(parts[: i + 1])}")
                fds.append(_open_folder(part, on_the_way, fds[-1]))
            fd = _open_file(parts[-1], where, cap, fds[-1])
            try:
                return _read_fd(fd, where, cap)
            finally:
                os.close(fd)
        finally:
            for fd in fds[1:]:
                os.close(fd)


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every regular file of ``folder`` by relative POSIX path, sorted by path parts.

    Raises UnsafeFileError naming the first thing that breaks the rules (``folder`` itself a
    link, a link, device, FIFO or socket in it, or a cap exceeded); nothing is followed or
    opened but folders and regular files, and nothing is read past the caps.
    """
    found: dict[str, bytes] = {}
    total = 0
    count = 0

    def walk(fd: int, prefix: str, depth: int) -> None:
        nonlocal total, count
        with os.scandir(fd) as listing:
            names = sorted(entry.name for entry in listing)
        for name in names:
            relative = prefix + name
            where = shown(f"{folder.name}/{relative}")
            if not name.isprintable():  # it could not be hashed, shown or committed sanely
                raise UnsafeFileError(
                    f"{where} has a name that is not printable text. Fix: rename it."
                )
            count += 1
            if count > MAX_FILES:
                raise UnsafeFileError(
                    f"{shown(folder.name)}/ holds more than {MAX_FILES} files and folders. "
                    f"Fix: keep an entry to a few source files."
                )
            mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                if depth >= MAX_DEPTH:
                    raise UnsafeFileError(
                        f"{where} is more than {MAX_DEPTH} folders deep. Fix: flatten the entry."
                    )
                inner = _open_folder(name, where, fd)
                try:
                    walk(inner, relative + "/", depth + 1)
                finally:
                    os.close(inner)
                continue
            if not stat.S_ISREG(mode):
                raise _refuse_kind(where, mode)
            file_fd = _open_file(name, where, FILE_CAP, fd)
            try:
                data = _read_fd(file_fd, where, FILE_CAP)
            finally:
                os.close(file_fd)
            total += len(data)
            if total > TOTAL_CAP:
                raise UnsafeFileError(
                    f"{shown(folder.name)}/ holds more than {TOTAL_CAP} bytes. "
                    f"Fix: keep an entry under {TOTAL_CAP} bytes."
                )
            found[relative] = data

    with _folder(folder) as top:
        walk(top, "", 0)
    return dict(sorted(found.items(), key=lambda item: item[0].split("/")))


def tree_hash(files: Mapping[str, bytes]) -> str:
    """sha256 over every file's relative path and bytes, in sorted order: each path, then the
    file's bytes, each followed by a NUL. No path holds a NUL, so where no file does either the
    files can be told apart from that alone. Where one does, its NUL could stand for the end of
    that file, another path and its bytes (two different trees, one hash: one entry's cached
    build, check and games taken for another's); then every path and file is preceded by its
    length instead, after a mark that no tree hashed the first way begins with."""
    ordered = sorted(files.items(), key=lambda item: item[0].split("/"))
    digest = hashlib.sha256()
    if any(b"\0" in data for _, data in ordered):
        digest.update(b"koth-tree-lengths\0")
        for relative, data in ordered:
            path = relative.encode()
            digest.update(len(path).to_bytes(8, "big") + path)
            digest.update(len(data).to_bytes(8, "big") + data)
        return digest.hexdigest()
    for relative, data in ordered:
        digest.update(relative.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def write_tree(files: Mapping[str, bytes], dest: Path) -> None:
    """Write ``files`` (as ``read_tree`` gives them) into the new folder ``dest``."""
    dest.mkdir(mode=0o755)
    for relative, data in files.items():
        target = dest.joinpath(*_parts(relative))
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


def copy_tree(folder: Path, dest: Path) -> None:
    """A private copy of an entry folder's regular files (UnsafeFileError as ``read_tree``)."""
    write_tree(read_tree(folder), dest)
