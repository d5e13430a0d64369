"""The site re-renders only pages whose inputs changed, and renders game pages in parallel:
either way its files are byte for byte those of a full, serial render (runner/site/pages.py)."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import random
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import regen_golden_site as regen

from runner.cli.main import main
from runner.games.spec import Edit
from runner.play.playback import Step
from runner.season import results
from runner.site import pages
from runner.site.frames import Replay, backward, diff, frames, replay
from runner.site.pages import KEYS
from runner.site.render import MARKER, EntryInfo, SiteReport, render_site


def tree(folder: Path) -> dict[str, bytes]:
    """Every file of a site by relative path (a link is listed as the text of its target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[name] = b"link to " + os.readlink(path).encode()
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


def same_trees(made: Path, full: Path) -> None:
    a, b = tree(made), tree(full)
    assert sorted(a) == sorted(b), (
        f"the incremental site's files {sorted(set(a) ^ set(b))} are not in both folders"
    )
    differ = [name for name in a if a[name] != b[name]]
    assert not differ, f"these files differ from a full render: {differ}"


def render(out: Path, change: bool = False, jobs: int = 1) -> SiteReport:
    """The Snakes fixture site; with ``change``: its last game gone and an entry re-described."""
    records, doc, infos = regen.load_fixture()
    if change:
        records = records[:-1]
        first = sorted(infos)[0]
        infos = {**infos, first: dataclasses.replace(infos[first], description="a new text")}
    return render_site(records, doc, infos, out, jobs=jobs)


def test_a_site_re_rendered_after_a_change_is_the_full_render_of_the_new_inputs(
    tmp_path: Path,
) -> None:
    before = render(tmp_path / "site")
    after = render(tmp_path / "site", change=True)
    full = render(tmp_path / "full", change=True)
    same_trees(tmp_path / "site", tmp_path / "full")
    assert after.reused > 0, "no page was kept, though most game pages did not change"
    assert after.reused < after.pages, "every page was kept, though the season changed"
    assert full.reused == 0 and before.reused == 0, "a new folder has no page to keep"


def test_nothing_changed_keeps_every_page(tmp_path: Path) -> None:
    render(tmp_path / "site")
    again = render(tmp_path / "site")
    assert again.reused == again.pages, (
        f"{again.pages - again.reused} of {again.pages} pages were rendered again with the same "
        "inputs"
    )
    regen_site = tmp_path / "full"
    render(regen_site)
    same_trees(tmp_path / "site", regen_site)


def test_game_pages_rendered_in_processes_are_those_rendered_serially(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "SERIAL_BELOW", 0)  # the fixture's 6 games go to the pool
    render(tmp_path / "serial")
    parallel = render(tmp_path / "parallel", jobs=2)
    assert parallel.game_pages == 6, "a game page is missing from the parallel render"
    same_trees(tmp_path / "parallel", tmp_path / "serial")


def young_threshold(_: int) -> int:
    """How many objects the process that renders this makes between collections."""
    return gc.get_threshold()[0]


def test_pages_render_with_fewer_collections_everywhere_and_the_threshold_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every process rendering pages collects its youngest objects every COLLECT_EVERY made (a
    render spends ~8% of its time collecting at Python's 700); this process's own threshold is
    restored after the site, even one that fails."""
    monkeypatch.setattr(pages, "SERIAL_BELOW", 0)
    before = gc.get_threshold()
    assert before[0] != pages.COLLECT_EVERY
    with pages.fewer_collections():
        seen = pages.render_pages(young_threshold, list(range(64)), 2)
    assert set(seen) == {pages.COLLECT_EVERY}, "a process rendered at another threshold"
    assert gc.get_threshold() == before
    during: list[tuple[int, int, int]] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        during.append(gc.get_threshold())
        raise RuntimeError("a render that fails")

    monkeypatch.setattr(pages, "render_pages", watched)
    with pytest.raises(RuntimeError):
        render(tmp_path / "site")
    assert during == [(pages.COLLECT_EVERY, *before[1:])]
    assert gc.get_threshold() == before


def whose(job: tuple[int, int, str]) -> str:
    """The process that rendered ``job`` (number, the test's pid, a marker file): the test's
    own process waits until another one has rendered something, so both take part."""
    number, test, marker = job
    if os.getpid() != test:
        Path(marker).touch()
        return f"{number} elsewhere"
    for _ in range(600):  # at most a minute: then the pool never took a chunk
        if Path(marker).exists():
            break
        time.sleep(0.1)
    return f"{number} here"


def held(job: tuple[int, int, str, int]) -> str:
    """The process that rendered ``job`` (number, the test's pid, a folder, the last number):
    another process takes a moment a page and leaves a mark of each; the test's own process
    waits in each of its pages until the last page is marked (at most a minute)."""
    number, test, folder, last = job
    if os.getpid() != test:
        time.sleep(0.01)
        (Path(folder) / str(number)).touch()
        return f"{number} elsewhere"
    for _ in range(600):
        if (Path(folder) / str(last)).exists():
            break
        time.sleep(0.1)
    return f"{number} here"


def test_a_started_process_takes_chunk_after_chunk_while_this_one_is_busy(
    tmp_path: Path,
) -> None:
    """Every process takes the next chunk no one has taken: while this one is held in its first
    page, the started one renders every chunk left, the last one too, asking no one for them."""
    work = [(n, os.getpid(), str(tmp_path), 39) for n in range(40)]
    made = pages.render_pages(held, work, 2)
    assert [int(m.split()[0]) for m in made] == list(range(40)), "pages came back out of order"
    where = [m.split()[1] for m in made]
    assert "here" in where and where[-1] == "elsewhere", where
    assert sorted(int(p.name) for p in tmp_path.iterdir()) == [
        n for n, w in enumerate(where) if w == "elsewhere"
    ], "a page was rendered twice"


def test_this_process_does_its_own_work_while_the_pool_renders(tmp_path: Path) -> None:
    """``meanwhile`` (the season's pages) runs once, here, after the pages are handed out: the
    pool renders while it runs. Serially (one job) it still runs, once."""
    marker = tmp_path / "marker"
    ran: list[tuple[int, bool]] = []

    def meanwhile() -> None:
        for _ in range(600):  # at most a minute: then no other process rendered meanwhile
            if marker.exists():
                break
            time.sleep(0.1)
        ran.append((os.getpid(), marker.exists()))

    work = [(n, os.getpid(), str(marker)) for n in range(40)]
    made = pages.render_pages(whose, work, 2, meanwhile)
    assert [int(m.split()[0]) for m in made] == list(range(40)), "pages came back out of order"
    assert ran == [(os.getpid(), True)], ran
    ran.clear()
    marker.touch()
    pages.render_pages(whose, work[:3], 1, meanwhile)
    assert ran == [(os.getpid(), True)], ran


def test_a_page_edited_replaced_or_linked_in_the_old_site_is_rendered_again(
    tmp_path: Path,
) -> None:
    site, full = tmp_path / "site", tmp_path / "full"
    render(site)
    render(full)
    games = sorted((site / "games").glob("*.html"))
    games[0].write_text("<p>edited</p>")  # the key still matches: its bytes do not
    outside = tmp_path / "outside.html"
    outside.write_bytes(games[1].read_bytes())
    games[1].unlink()
    games[1].symlink_to(outside)  # same bytes, but a link is never followed
    (site / "index.html").unlink()
    (site / "games" / "foreign.html").write_text("<p>not ours</p>")
    again = render(site)
    same_trees(site, full)
    assert again.reused == again.pages - 3, "other pages than the three tampered with changed"


def test_pages_under_a_folder_that_became_a_link_are_rendered_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    render(site)
    (site / "games").rename(tmp_path / "games")
    (site / "games").symlink_to(tmp_path / "games")
    again = render(site)
    assert again.reused == again.pages - again.game_pages, "a game page was read through a link"
    assert not (site / "games").is_symlink(), "the new site kept the link"
    render(tmp_path / "full")
    same_trees(site, tmp_path / "full")


@pytest.mark.parametrize(
    "keys",
    [
        "not json",
        json.dumps({"version": 1, "pages": {"../index.html": ["0" * 64, "0" * 64]}}),
        json.dumps({"version": 1, "pages": {"index.html": ["0" * 63, "0" * 64]}}),
        json.dumps({"version": 2, "pages": {}}),
        json.dumps([1, 2]),
    ],
)
def test_a_malformed_keys_file_keeps_no_page(tmp_path: Path, keys: str) -> None:
    site = tmp_path / "site"
    render(site)
    (site / KEYS).write_text(keys)
    again = render(site)
    assert again.reused == 0, f"pages were kept on the word of a malformed keys file: {keys!r}"
    render(tmp_path / "full")
    same_trees(site, tmp_path / "full")


def test_a_keys_file_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    render(site)
    elsewhere = tmp_path / "keys.json"
    elsewhere.write_bytes((site / KEYS).read_bytes())
    (site / KEYS).unlink()
    (site / KEYS).symlink_to(elsewhere)
    assert render(site).reused == 0, "the keys were read through a link"
    assert not (site / KEYS).is_symlink(), "the new site kept the link"


def test_a_new_renderer_renders_every_page_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    render(site)
    monkeypatch.setattr(pages, "renderer", lambda: "another version of the templates")
    assert render(site).reused == 0, "pages of another renderer were kept"


def test_a_game_page_changes_with_its_neighbours_and_the_season_header(tmp_path: Path) -> None:
    site = tmp_path / "site"
    render(site)
    keys: dict[str, Any] = json.loads((site / KEYS).read_text())["pages"]
    render(site, change=True)
    after: dict[str, Any] = json.loads((site / KEYS).read_text())["pages"]
    games = sorted(n for n in keys if n.startswith("games/"))
    changed = [n for n in games if n in after and after[n] != keys[n]]
    assert changed, "no game page's key changed when its neighbour was removed"
    assert (site / MARKER).is_file() and len(after) == len(keys) - 1


def test_an_entry_info_change_reaches_its_entry_page(tmp_path: Path) -> None:
    site = tmp_path / "site"
    render(site)
    records, doc, infos = regen.load_fixture()
    name = sorted(infos)[0]
    infos = {**infos, name: EntryInfo(name, author="someone else")}
    render_site(records, doc, infos, site)
    assert "someone else" in (site / "entries" / f"{name}.html").read_text()


# -- the replay data's backward edits ---------------------------------------------------------


def diffs_backward(rep: Replay) -> list[list[Edit]]:
    """What backward() must equal: each frame compared with the one before it."""
    shown = frames(rep)
    return [diff(after, before) for before, after in zip(shown, shown[1:], strict=False)]


def test_backward_edits_are_the_frames_compared_again_for_every_fixture_game() -> None:
    records = [*regen.load_fixture()[0], *regen.load_cluster_fixture()[0]]
    for path in sorted((Path(__file__).parent / "golden" / "records").glob("*.jsonl")):
        records += results.read_records(path)[0]
    for record in records:
        rep = replay(record)
        assert backward(rep) == diffs_backward(rep), (
            f"the undo edits of game {record.get('key')} differ from comparing its frames"
        )


def test_backward_edits_undo_frames_of_changing_length() -> None:
    rng = random.Random(19)
    shown = ["".join(rng.choice("ab\n") for _ in range(rng.randrange(0, 40))) for _ in range(300)]
    shown += ["same", "same", "", "x", "", "abcabc", "abc", "abcabc"]
    edits = tuple(tuple(diff(a, b)) for a, b in zip(shown, shown[1:], strict=False))
    steps = tuple(Step((), turn) for turn in range(1, len(shown)))
    turns, scores = tuple(range(len(shown))), tuple(() for _ in shown)
    rep = Replay("toy", (), shown[0], steps, edits, turns, scores, shown[-1], 40)
    assert frames(rep) == shown, "the synthetic replay does not rebuild its frames"
    assert backward(rep) == diffs_backward(rep), "an undo edit differs from comparing the frames"


def test_koth_site_says_how_many_pages_it_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(regen.FIXTURE, tmp_path, dirs_exist_ok=True)
    (tmp_path / "tournament.yaml").write_text("entries: entries\n")
    command = ["site", "--config", str(tmp_path / "tournament.yaml"), "--jobs", "2"]
    assert main(command) == 0
    assert "kept" not in capsys.readouterr().out, "a first render said it kept pages"
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "16 pages" in out and "16 unchanged, kept" in out, f"the summary was: {out}"
