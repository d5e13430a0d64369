"""Re-rendering only the site pages whose inputs changed, and game pages in parallel.

A page's *key* is sha256 over everything it is rendered from: the renderer (this checkout's
runner/ sources, site_templates/ and the host version: ``renderer()``) and the page's own inputs
(a game page: its game, its neighbours, its setup and the few season facts its header and
footer show; every other page: all of the season's inputs). ``render_site`` writes the keys of
the pages it wrote, with the sha256 of each page's bytes, to ``KEYS`` in the site folder.

The next render reuses a page of the old folder only when the recorded key equals the page's
key now *and* the file there still has the recorded bytes' hash; anything else (no key, another
key, a file edited, replaced, missing or a link) is rendered afresh. The new site is built in a
fresh folder, so a file the old one held and the keys do not vouch for never reaches it. The
keys file is input from a stranger (a site folder may come from a cache or an artifact): it is
read without following links, capped, and every name and hash in it is checked; a malformed one
counts as no keys at all. Whoever can write the site folder can still write a page and its hash
together: the keys save work, they are not a signature.

Game pages are rendered by ``render_pages`` in ``jobs`` processes; each page's bytes are what
the same function gives serially, so a site rendered on any number of jobs is the same.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import os
import re
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from runner import __version__
from runner.common import helper_processes, resources
from runner.common.documents import load_json
from runner.common.safefiles import UnsafeFileError, read_beneath
from runner.jail import walls

KEYS = ".koth-pages.json"  # in the site folder: page → [its inputs' key, its bytes' sha256]
KEYS_CAP = 16 << 20
PAGE_CAP = 64 << 20
PAGE_NAME = re.compile(r"(?:[a-z0-9][a-z0-9_.-]{0,80}/)?[a-z0-9][a-z0-9_.-]{0,80}\.html")
HEX = re.compile(r"[0-9a-f]{64}")
SERIAL_BELOW = 8  # fewer pages than this are rendered here: starting processes costs more
# Objects made between two collections of the youngest generation while pages are rendered.
# Python's 700 has a render spend ~8% of its time collecting (every 10th collection looks at
# the older generation, which holds the season: records, rows, pages' inputs); a page leaves
# ~90 objects in cycles, which this collects all the same.
COLLECT_EVERY = 50_000
T = TypeVar("T")
R = TypeVar("R")
Keys = dict[str, tuple[str, str]]


@cache
def renderer() -> str:
    """sha256 over what turns inputs into pages: the host version, the runner package's sources
    and the templates (with static files). Computed once per process."""
    digest = hashlib.sha256(__version__.encode())
    code = resources.shipped("runner")
    files = [*code.rglob("*.py"), *resources.templates().rglob("*")]
    named = {resources.source_name(p): p for p in files if p.is_file()}
    for name, path in sorted(named.items()):
        if "__pycache__" not in path.parts:
            digest.update(name.encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"a page input of type {type(value).__name__} has no stable key")


def key(*inputs: Any) -> str:
    """The key of a page rendered from ``inputs`` (JSON-like values, dataclasses, paths)."""
    text = json.dumps([renderer(), inputs], sort_keys=True, default=_plain, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_keys(site: Path) -> Keys:
    """The keys a site folder's KEYS records, or none when it is missing or malformed."""
    try:
        found = load_json(read_beneath(site, KEYS, KEYS_CAP))
    except (UnsafeFileError, OSError, ValueError):
        return {}
    pages = found.get("pages") if isinstance(found, dict) and found.get("version") == 1 else None
    if not isinstance(pages, dict):
        return {}
    keys: Keys = {}
    for name, pair in pages.items():
        if not (
            isinstance(name, str)
            and PAGE_NAME.fullmatch(name)
            and isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(h, str) and HEX.fullmatch(h) for h in pair)
        ):
            return {}
        keys[name] = (pair[0], pair[1])
    return keys


def write_keys(site: Path, keys: Mapping[str, tuple[str, str]]) -> None:
    # a name read_keys would refuse is left out: it would make it refuse every key
    pages = {name: list(pair) for name, pair in sorted(keys.items()) if PAGE_NAME.fullmatch(name)}
    (site / KEYS).write_text(json.dumps({"version": 1, "pages": pages}, indent=0) + "\n")


def reusable(site: Path, keys: Keys, name: str, page_key: str) -> bytes | None:
    """The old page ``name`` of ``site`` when its recorded key is ``page_key`` and the file
    still holds the bytes recorded (read without following links); else None."""
    recorded = keys.get(name)
    if recorded is None or recorded[0] != page_key or not PAGE_NAME.fullmatch(name):
        return None
    try:
        data = read_beneath(site, name, PAGE_CAP)
    except (UnsafeFileError, OSError):
        return None
    return data if digest(data) == recorded[1] else None


def render_pages(
    render: Callable[[T], R],
    work: Sequence[T],
    jobs: int,
    meanwhile: Callable[[], None] = lambda: None,
) -> list[R]:
    """``render`` of each of ``work``, in order, on ``jobs`` processes: this one and ``jobs - 1``
    started afresh (``render`` must be a module-level function, or a partial of one, and
    ``work`` picklable).

    The work is cut into chunks, and every process is given all of them: each takes the next
    chunk not yet taken (a counter they share) until none is left, this one after ``meanwhile``
    (other work of its own), so neither a process slow to start nor ``meanwhile`` costs more
    than it does. A started process asks no one for its next chunk: this one, busy rendering,
    would be slow to answer (its threads share one interpreter lock)."""
    if jobs <= 1 or len(work) < SERIAL_BELOW:
        meanwhile()
        return [render(w) for w in work]
    size = max(1, len(work) // (jobs * 16))
    chunks = [work[i : i + size] for i in range(0, len(work), size)]
    context = helper_processes.context()
    counter = context.Value("i", 0)
    with ProcessPoolExecutor(
        jobs - 1, mp_context=context, initializer=_start, initargs=(counter,)
    ) as pool:
        futures = [pool.submit(_take_chunks, render, chunks) for _ in range(jobs - 1)]
        meanwhile()
        done = _take(render, chunks, counter)
        for future in futures:
            done.update(future.result())
    return [page for i in range(len(chunks)) for page in done[i]]


_counter: Any = None  # in a started process: the chunk counter it shares


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The garbage collector's youngest generation collected every ``COLLECT_EVERY`` objects
    made, for the time being (it is restored after)."""
    before = gc.get_threshold()
    gc.set_threshold(COLLECT_EVERY, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _start(counter: Any) -> None:
    global _counter
    helper_processes.detach()
    gc.set_threshold(COLLECT_EVERY, *gc.get_threshold()[1:])  # a renderer renders, then ends
    # It follows the fork server, which ends with the host: a renderer waiting for its next
    # chunk when the host is killed would wait for ever (it holds its own queue's other end).
    walls.set_parent_death_signal(os.getppid(), signal.SIGTERM)
    _counter = counter


def _take_chunks(render: Callable[[T], R], chunks: Sequence[Sequence[T]]) -> dict[int, list[R]]:
    return _take(render, chunks, _counter)


def _take(
    render: Callable[[T], R], chunks: Sequence[Sequence[T]], counter: Any
) -> dict[int, list[R]]:
    """Render chunks, each the next one no process has taken, until none is left."""
    done: dict[int, list[R]] = {}
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value = index + 1
        if index >= len(chunks):
            return done
        done[index] = [render(w) for w in chunks[index]]
