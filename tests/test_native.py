"""koth's own compiled things are kept in a cache folder of this user's alone (runner/native.py):
a folder anyone else could write to, or a link to one, is never used; the site keeps its
templates' compiled code there, and the pages are the same with it and without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_site import full_length_records

from runner import native, site
from runner.sandbox import cblank
from runner.site import render_site


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
    site._cached_environment.cache_clear()
    try:
        render_site(records, None, {}, tmp_path / "first")
        kept = {path: path.stat().st_mtime_ns for path in (cache / "templates").iterdir()}
        assert len(kept) >= 3, "every template's compiled code is kept"
        site._cached_environment.cache_clear()  # a new process, as it were
        render_site(records, None, {}, tmp_path / "second")
        assert {path: path.stat().st_mtime_ns for path in kept} == kept, "read, not made again"
    finally:
        site._cached_environment.cache_clear()
    pages = sorted(p.relative_to(tmp_path / "first") for p in (tmp_path / "first").rglob("*"))
    assert pages == sorted(
        p.relative_to(tmp_path / "second") for p in (tmp_path / "second").rglob("*")
    )
    for page in pages:
        if (tmp_path / "first" / page).is_file():
            first = (tmp_path / "first" / page).read_bytes()
            assert first == (tmp_path / "second" / page).read_bytes(), page
