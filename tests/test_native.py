"""koth's own compiled things are kept in a cache folder of this user's alone
(runner/common/native.py): a folder anyone else could write to, or a link to one, is never used;
the site keeps its templates' compiled code there, and the pages are the same with it and without
it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_site import full_length_records

from runner.common import native
from runner.sandbox import cblank
from runner.site import render
from runner.site.render import render_site


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "koth"


def test_a_private_folder_is_made_for_this_user_alone(cache: Path) -> None:
    folder = native.private_folder("things")
    assert folder == cache / "things"
    assert folder.stat().st_mode & 0o777 == 0o700
    assert native.private_folder("things") == folder, "found again as it was made"


def test_a_folder_others_may_write_to_is_not_used(cache: Path) -> None:
    (cache / "shared").mkdir(parents=True)
    (cache / "shared").chmod(0o777)
    assert native.private_folder("shared") is None


def test_a_link_is_not_followed(cache: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache.mkdir(mode=0o700)
    (cache / "linked").symlink_to(elsewhere)
    assert native.private_folder("linked") is None


def test_a_cache_folder_others_may_write_to_keeps_nothing(cache: Path) -> None:
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    assert native.private_folder("things") is None
    assert native.compiled([cblank.SOURCE], cblank.FLAGS, "cblank") is not None, (
        "compiled into a private temporary folder instead"
    )
    assert not list(cache.iterdir())


def test_the_sites_templates_are_compiled_once_and_kept(cache: Path, tmp_path: Path) -> None:
    records = full_length_records(2)
    render._cached_environment.cache_clear()
    try:
        render_site(records, None, {}, tmp_path / "first")
        kept = {path: path.stat().st_mtime_ns for path in (cache / "templates").iterdir()}
        assert len(kept) >= 3, "every template's compiled code is kept"
        render._cached_environment.cache_clear()  # a new process, as it were
        render_site(records, None, {}, tmp_path / "second")
        assert {path: path.stat().st_mtime_ns for path in kept} == kept, "read, not made again"
    finally:
        render._cached_environment.cache_clear()
    pages = sorted(p.relative_to(tmp_path / "first") for p in (tmp_path / "first").rglob("*"))
    assert pages == sorted(
        p.relative_to(tmp_path / "second") for p in (tmp_path / "second").rglob("*")
    )
    for page in pages:
        if (tmp_path / "first" / page).is_file():
            first = (tmp_path / "first" / page).read_bytes()
            assert first == (tmp_path / "second" / page).read_bytes(), page


def _compile_in_a_new_process(cache_home: str) -> str | None:
    import os

    os.environ["XDG_CACHE_HOME"] = cache_home
    return native.compiled([cblank.SOURCE], cblank.FLAGS, "cblank")


def test_threads_and_processes_racing_on_an_empty_cache_all_get_the_file(cache: Path) -> None:
    # The README's first command once failed on every fresh machine: two build threads compiled
    # the same helper to the same temporary name, and one renamed it away under the other.
    import multiprocessing
    from concurrent.futures import ThreadPoolExecutor

    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(3) as pool:
        others = pool.map_async(_compile_in_a_new_process, [str(cache.parent)] * 3)
        with ThreadPoolExecutor(4) as threads:
            ours = list(
                threads.map(
                    lambda _: native.compiled([cblank.SOURCE], cblank.FLAGS, "cblank"), range(4)
                )
            )
        theirs = others.get(timeout=120)
    paths = {*ours, *theirs}
    assert len(paths) == 1 and None not in paths, f"every caller gets the one file: {paths}"
    (path,) = paths
    assert path is not None and Path(path).parent == cache
    assert [p.name for p in cache.iterdir()] == [Path(path).name], "no temporary file left over"


def test_a_cache_that_cannot_be_written_is_said_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(native, "_warned", set())
    first = native.compiled([cblank.SOURCE], cblank.FLAGS, "cblank")
    second = native.compiled([cblank.SOURCE], cblank.FLAGS, "cblank")
    assert first is not None and second is not None, "compiled for this run instead"
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1, f"one line, once: {warning!r}"
    assert str(blocked / "koth") in warning and "XDG_CACHE_HOME" in warning
    assert "Traceback" not in warning
