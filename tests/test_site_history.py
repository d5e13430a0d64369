"""Seasons across time (runner/rank/history.py, ``site: history:``): a season run twice with an
entry edited in between shows each entry's rank change, marks the edited entry, draws each
entry's rating across the seasons (server-side SVG) and lists both seasons; the history file
keeps one line per season and leaves out a line that is not a season's."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from runner.cli.main import main
from runner.rank import history

REPO = Path(__file__).resolve().parents[1]
ENTRIES = ("greedy", "random", "turtle")
ALWAYS_RIGHT = """int bot(int board[16][32], char player) {
    (void)board; (void)player;
    return 'R';
}

char *bot_name = "Turtle";
"""


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_season_run_twice_with_an_edited_entry_shows_rank_changes_and_histories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for entry in ENTRIES:
        shutil.copytree(REPO / "entries" / entry, tmp_path / "entries" / entry)
    config = tmp_path / "tournament.yaml"
    config.write_text("seed: 1\njobs: 2\nsite:\n  history: seasons.jsonl\n")
    assert main(["season", "--config", str(config)]) == 0
    first = lines(tmp_path / "seasons.jsonl")
    assert len(first) == 1 and {e["entry"] for e in first[0]["entries"]} == set(ENTRIES)
    before = {e["entry"]: e["rank"] for e in first[0]["entries"]}
    assert before["turtle"] < 3, "the fixture's premise: turtle is not last at first"
    site = tmp_path / "_site"
    assert '<th title="places up' not in (site / "index.html").read_text(), "nothing before"

    (tmp_path / "entries" / "turtle" / "bot.c").write_text(ALWAYS_RIGHT)  # a much worse bot
    assert main(["season", "--config", str(config)]) == 0
    capsys.readouterr()
    seasons = lines(tmp_path / "seasons.jsonl")
    assert len(seasons) == 2, "an edited entry makes a new season"
    assert lines(site / "seasons.jsonl") == seasons, "published beside the site"
    after = {e["entry"]: e["rank"] for e in seasons[1]["entries"]}
    assert after["turtle"] == 3

    index = (site / "index.html").read_text()
    for entry in ENTRIES:
        row = re.search(
            rf'<td class="num change"[^>]*>(.*?)</td><td><a href="entries/{entry}.html"'
            rf">[^<]*</a>(.*?)</td>",
            index,
        )
        assert row is not None, f"{entry}'s row has a rank change"
        rose = before[entry] - after[entry]
        shown = "–" if rose == 0 else f"▲{rose}" if rose > 0 else f"▼{-rose}"
        assert re.sub(r"<[^>]+>", "", row.group(1)) == shown, f"{entry}: {shown}"
        assert ("edited" in row.group(2)) == (entry == "turtle"), f"{entry}: edited or not"

    chart = (site / "entries" / "turtle.html").read_text()
    dots = re.findall(r"<circle [^>]*><title>[^<]*: (\d+)</title>", chart)
    assert [int(d) for d in dots] == [
        round(s["entries"][k]["rating"])
        for s, k in (
            (seasons[0], [e["entry"] for e in seasons[0]["entries"]].index("turtle")),
            (seasons[1], [e["entry"] for e in seasons[1]["entries"]].index("turtle")),
        )
    ], "a dot per season, at its rating"
    assert '<svg class="history"' in chart and "<script" not in chart.split("<svg")[1]
    listed = (site / "seasons.html").read_text()
    assert listed.count("<tr") == 3 and "(this one)" in listed, "both seasons, newest first"
    assert "Seasons</a>" in index

    assert main(["site", "--config", str(config)]) == 0, "rendering the same season again"
    assert lines(tmp_path / "seasons.jsonl") == seasons, "replaces its line, adds none"


def season(seed: int, hashes: dict[str, str], date: str) -> dict[str, Any]:
    return {
        "game": "snakes-v2",
        "season_seed": seed,
        "date": date,
        "games": 2,
        "entries": [
            {"entry": e, "name": e.upper(), "hash": h, "rank": k, "rating": 1500.0}
            for k, (e, h) in enumerate(sorted(hashes.items()), 1)
        ],
    }


def test_the_history_keeps_a_line_per_season_oldest_first(tmp_path: Path) -> None:
    a = season(1, {"x": "1", "y": "2"}, "2025-01-01T00:00:00Z")
    b = season(1, {"x": "1", "y": "3"}, "2025-02-01T00:00:00Z")
    assert history.merged([b], a) == [a, b], "oldest first"
    again = dict(b, date="2025-03-01T00:00:00Z")
    assert history.merged([a, b], again) == [a, again], "the same season replaces its line"
    path = tmp_path / "seasons.jsonl"
    history.write(path, [a, b])
    with path.open("a") as f:
        f.write('{"game": "snakes-v2"}\nnot json\n')
        f.write(json.dumps(dict(a, entries=[{"entry": "x", "name": "X", "hash": "1"}])) + "\n")
    warned: list[str] = []
    assert history.read(path, warned.append) == [a, b]
    assert len(warned) == 3 and all("not a season's line" in w for w in warned), warned
    assert history.read(tmp_path / "none.jsonl", warned.append) == []


def test_a_history_file_from_a_cache_is_read_and_written_without_following_links(
    tmp_path: Path,
) -> None:
    """The history comes back from a cache as the results do: a link, a FIFO or a device in its
    place is not read (a FIFO would hang the site, /dev/zero fill the memory) and a link planted
    beside it does not carry the new history elsewhere."""
    a = season(1, {"x": "1", "y": "2"}, "2025-01-01T00:00:00Z")
    victim = tmp_path / "victim"
    victim.write_text("host file\n")
    path = tmp_path / "seasons.jsonl"
    for planted in (f".{path.name}.new", f".{path.name}.tmp"):
        (tmp_path / planted).symlink_to(victim)
    history.write(path, [a])
    assert victim.read_text() == "host file\n" and not path.is_symlink()
    assert history.read(path, print) == [a]
    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "link.jsonl").symlink_to(path)
    for name in ("fifo.jsonl", "zero.jsonl", "link.jsonl"):
        warned: list[str] = []
        assert history.read(tmp_path / name, warned.append) == [], name
        assert len(warned) == 1 and "not read" in warned[0], warned


def test_the_rating_chart_escapes_what_it_shows() -> None:
    svg = history.chart([("<b>", 1500.0), ("2025", 1600.0)])
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert svg.count("<circle") == 2 and history.chart([]) == ""


def test_restoring_the_history_from_a_site_checks_every_line(tmp_path: Path) -> None:
    from runner.site import publish

    kept = season(1, {"x": "1", "y": "2"}, "2025-01-01T00:00:00Z")
    newer = season(1, {"x": "1", "y": "3"}, "2025-02-01T00:00:00Z")
    path = tmp_path / "seasons.jsonl"
    history.write(path, [kept])
    no_seed = {k: v for k, v in newer.items() if k != "season_seed"}
    published = "\n".join(
        [json.dumps(newer), "{not json", json.dumps(no_seed), json.dumps(dict(kept, games=True))]
    )
    asked: list[str] = []

    def fetch(url: str, cap: int) -> bytes | None:
        asked.append(url)
        return published.encode()

    said: list[str] = []
    assert publish.restore_history("https://example.invalid/s", path, said.append, fetch) == 1
    assert asked == ["https://example.invalid/s/seasons.jsonl"]
    assert lines(path) == [kept, newer], "the kept season and the published one, oldest first"
    bad = [s for s in said if "not a season's line" in s]
    assert len(bad) == 3, f"each bad published line is left out with a message: {said}"
    assert any("season_seed" in s for s in bad), bad

    said.clear()
    gone = tmp_path / "gone.jsonl"
    assert (
        publish.restore_history("https://example.invalid/s", gone, said.append, lambda u, c: None)
        == 0
    )
    assert gone.read_text() == "" and any("no past seasons restored" in s for s in said), said
