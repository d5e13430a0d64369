"""The results site of a season of four-seat games (tests/podium.py: five entries at tables of
four, one seat timing out and one crashing while the others play on): the leaderboard counts
places, the cross-table how often each entry finished ahead of each other, and the entry and
game pages show the faults of the seats that went on without their bot."""

from __future__ import annotations

import html
import re
from itertools import permutations
from pathlib import Path

import podium
import pytest

from runner.rank.standings import TIE_BREAK_PLACES
from runner.season.results import places
from runner.site.render import render_site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out: Path = tmp_path_factory.mktemp("podium") / "site"
    warned: list[str] = []
    with podium.registered():
        found = podium.season()
        report = render_site(found, podium.season_standings(found), {}, out, warned.append)
    assert not warned, f"the season renders without a warning: {warned}"
    assert report.game_pages == len(found), "every game of four seats gets its page"
    return out


def cells(row_html: str) -> list[str]:
    return [
        html.unescape(re.sub(r"<[^>]*>", "", c))
        for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row_html, re.S)
    ]


def leaderboard(site: Path) -> tuple[list[str], list[list[str]]]:
    text = (site / "index.html").read_text()
    head = re.search(r"<thead>(.*?)</thead>", text, re.S)
    body = re.search(r"<tbody>(.*?)</tbody>", text, re.S)
    assert head and body
    return cells(head.group(1)), [
        cells(r) for r in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)
    ]


def test_the_leaderboard_counts_places_and_average_place_instead_of_wins(site: Path) -> None:
    header, rows = leaderboard(site)
    assert header[:6] == ["#", "Bot", "Entry", "Author", "Points", "Games"]
    assert header[6:11] == ["1st", "2nd", "3rd", "4th", "Average place"]
    assert "W" not in header, "no game had two seats: no wins, draws or losses"
    doc = podium.season_standings(podium.season())
    assert doc["tie_break"] == TIE_BREAK_PLACES
    assert len(rows) == len(doc["entries"]) == 5
    for shown, row in zip(rows, doc["entries"], strict=True):
        assert shown[0] == str(row["rank"]) and shown[2] == row["entry"]
        assert shown[6:10] == [str(n) for n in row["places"]], f"{row['entry']}: places"
        assert shown[10] == f"{row['average_place']:.2f}"
        assert shown[11] == str(sum(row["faults"].values()))
    text = (site / "index.html").read_text()
    assert "evenly spaced (4 seats: 1, 0.667, 0.333, 0)" in text, "the points table is told"
    assert "Bea &lt;b&gt;bold&lt;/b&gt;" in text and "<b>bold</b>" not in text


def test_the_cross_table_says_how_often_each_finished_ahead_of_each_other(site: Path) -> None:
    found = podium.season()
    text = (site / "crosstable.html").read_text()
    shown = re.findall(
        r'<a href="entries/(\w+)\.html#vs-(\w+)" title="([^"]*)">(\d+) of (\d+)</a>', text
    )
    assert len(shown) == 20, "five entries: twenty ordered pairs, all of which met"
    for a, b, title, ahead, met in shown:
        together = [
            (places(g)[seats.index(a)], places(g)[seats.index(b)])
            for g in found
            if {a, b} <= set(seats := [s["entry"] for s in g["seats"]])
        ]
        better = sum(mine < theirs for mine, theirs in together)
        level = sum(mine == theirs for mine, theirs in together)
        assert (int(ahead), int(met)) == (better, len(together)), f"{a} against {b}"
        assert f"in {better} of the {len(together)} games they met in, level in {level}" in title
    counts = {(a, b): (int(ahead), int(met)) for a, b, _, ahead, met in shown}
    for a, b in permutations(podium.ENTRIES, 2):
        assert counts[a, b][1] == counts[b, a][1], "a pair meets as often seen from either side"
        assert counts[a, b][0] + counts[b, a][0] <= counts[a, b][1]
    assert "how many times the row's bot finished ahead of the column's bot" in text


def test_the_seats_that_faulted_show_on_their_entry_and_game_pages(site: Path) -> None:
    dot = (site / "entries" / "dot.html").read_text()
    faults = dot.split("<h2>Faults</h2>")[1]
    assert faults.count("<li>") == 1 and "timeout at turn 2" in faults
    assert '<span class="end end-timeout">timeout</span>' in faults
    eve = (site / "entries" / "eve.html").read_text().split("<h2>Faults</h2>")[1]
    assert eve.count("<li>") == 1 and "crash at turn 1" in eve
    ace = (site / "entries" / "ace.html").read_text().split("<h2>Faults</h2>")[1]
    assert "<p>None.</p>" in ace
    game = (site / faults.split('href="../')[1].split('"')[0]).read_text()
    assert re.search(r"<li>\w \(<a [^>]*>Dot</a>\): <span class=\"end end-timeout\">", game)
    assert re.search(r'<td class="r-[WDL]">(1st|2nd|3rd|4th)</td>', game)


def test_entry_pages_of_larger_games_give_places_not_wins(site: Path) -> None:
    doc = podium.season_standings(podium.season())
    row = next(r for r in doc["entries"] if r["entry"] == "cal")
    page = (site / "entries" / "cal.html").read_text()
    wanted = ", ".join(
        f"{k} {n}" for k, n in zip(("1st", "2nd", "3rd", "4th"), row["places"], strict=True)
    )
    assert f"<dt>Places</dt><dd>{wanted}; average place {row['average_place']:.2f}</dd>" in page
    assert " won, " not in page
