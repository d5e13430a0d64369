"""Every kind of page of the results site, on a phone (390 px) and on a desktop (1280 px), in
Debian's Chromium driven by Playwright (as tests/test_site_browser.py does): no page is wider
than the screen (a wide table scrolls in its own box, a board scales to the width, a long hash
wraps), every page has the header (the game's name, its rules, "Add your bot" and the
repository when one is configured), and the colours follow the reader's light or dark
preference. The sites: the Snakes and Cluster fixtures (tests/regen_golden_site.py; Cluster's
with a repository configured), a season of four-seat games (tests/podium.py), a Domineering
knockout with its bracket page (tests/domineering_knockout.py), Multisnake games of eight snakes
(tests/multisnake_games.py) and Easter Egg Hunt runs whose bots keep 1 KiB memory lines
(tests/egghunt_games.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import domineering_knockout as dk
import egghunt_games
import multisnake_games
import podium
import pytest
from serving import serve
from test_site_browser import ARTIFACTS, regen, rgb

from runner.site.render import render_site

REPOSITORY = "https://example.org/koth/season"
WIDTHS = (390, 1280)
# The game's name in the header of each site (the title of its rules document).
TITLES = {
    "snakes": "Snakes (round 1)",
    "cluster": "Cluster",
    "podium": "podium-v1",
    "knockout": "Domineering with a bomb",
    "history": "Snakes (round 1)",
    "multisnake": "Multisnake",
    "egghunt": "Easter Egg Hunt",
}


def first(folder: Path, pattern: str) -> str:
    found = sorted(folder.glob(pattern))
    assert found, f"{folder} has no page {pattern}"
    return found[0].relative_to(folder).as_posix()


def kinds(folder: Path) -> list[str]:
    """One page of every kind the site has."""
    named = ["index.html", "crosstable.html", "games.html", "los.html", "enter.html", "rules.html"]
    found = [n for n in named if (folder / n).is_file()]
    for optional in ("bracket.html", "seasons.html"):
        if (folder / optional).is_file():
            found.append(optional)
    return [*found, first(folder, "entries/*.html"), first(folder, "games/*.html")]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("served")
    regen.render_fixture(out / "snakes")
    records, doc, infos = regen.load_cluster_fixture()
    render_site(records, doc, infos, out / "cluster", repository=REPOSITORY)
    podium.render_season(out / "podium")
    dk.render(out / "knockout")
    records, doc, infos = regen.load_fixture()
    render_site(records, doc, infos, out / "history", history=[earlier(doc)])
    multisnake_games.render_season(out / "multisnake", multisnake_games.season())
    egghunt_games.render_season(out / "egghunt")
    return out


def earlier(doc: dict[str, Any]) -> dict[str, Any]:
    """A season before the Snakes fixture's: its ranks reversed, one entry's code different."""
    ranked = [row for row in doc["entries"] if row.get("excluded") is None]
    return {
        "game": doc["game"],
        "season_seed": doc["season_seed"],
        "date": "2025-01-01T00:00:00Z",
        "games": 6,
        "entries": [
            {
                "entry": row["entry"],
                "name": row["name"],
                "hash": "0" * 64 if k == 0 else row["content_hash"],
                "rank": len(ranked) - k,
                "rating": 1400.0 + 100 * k,
            }
            for k, row in enumerate(ranked)
        ],
    }


@pytest.fixture(scope="module")
def base_url(rendered: Path) -> Iterator[str]:
    with serve(rendered) as url:
        yield url


@pytest.fixture(scope="module")
def served(rendered: Path) -> dict[str, list[str]]:
    """Each site's pages to visit, one of every kind."""
    found = {site: kinds(rendered / site) for site in TITLES}
    found["history"].append("entries/greedy.html")  # an entry that played: its rating chart
    return found


def all_pages(served: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(site, page) for site, pages in served.items() for page in pages]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_the_screen_and_every_page_has_the_header(
    browser: Any, base_url: str, served: dict[str, list[str]], width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        seen = 0
        for site, name in all_pages(served):
            page.goto(f"{base_url}{site}/{name}")
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, f"{site}/{name} is {wide} px wide on a {width} px screen"
            header = page.locator("header.site")
            assert header.locator(".brand").inner_text() == TITLES[site], (
                f"{site}/{name}: the header names the game"
            )
            links = header.locator("nav a").all_inner_texts()
            assert "Add your bot" in links, f"{site}/{name}: no link to how to add a bot"
            if site != "podium":  # podium-v1 is a test game without a rules document
                assert "Rules" in links, f"{site}/{name}: no link to the rules"
            repo = header.get_by_role("link", name="Repository")
            if site == "history" and name == "entries/greedy.html":
                chart = page.locator("svg.history")
                assert chart.is_visible(), f"{name}: the rating chart, drawn without a script"
                assert chart.bounding_box()["width"] <= width
            if site == "cluster":
                assert repo.get_attribute("href") == REPOSITORY, "the configured repository"
            else:
                assert repo.count() == 0, f"{site}/{name}: a repository link nobody configured"
            seen += 1
            if width == 390 and name.startswith("games/"):
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"phone-{site}-game.png"), full_page=True)
        assert seen == sum(map(len, served.values())) == 58, "every kind of page"
        assert "bracket.html" in served["knockout"] and "seasons.html" in served["history"]
    finally:
        context.close()


def test_a_wide_table_scrolls_in_its_own_box_on_a_phone(browser: Any, base_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{base_url}snakes/index.html")
        box = page.locator("div.scroll").first
        inner, outer = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert inner > outer, "the leaderboard is wider than a phone: its box scrolls"
        assert outer <= 390
    finally:
        context.close()


def luminance(css: str) -> float:
    """The relative brightness (0 black, 1 white) of a computed ``rgb(…)`` colour."""
    red, green, blue = rgb(css)
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_colours_follow_the_readers_preference(
    browser: Any, base_url: str, served: dict[str, list[str]], scheme: str
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    try:
        page = context.new_page()
        for site, name in all_pages(served):
            page.goto(f"{base_url}{site}/{name}")
            background = luminance(page.evaluate("getComputedStyle(document.body).background"))
            text = luminance(page.evaluate("getComputedStyle(document.body).color"))
            if scheme == "dark":
                assert background < 0.2 and text > 0.7, f"{site}/{name} is not dark"
            else:
                assert background > 0.9 and text < 0.3, f"{site}/{name} is not light"
            if name.startswith("games/"):
                board = page.locator("#board")
                shade = luminance(board.evaluate("e => getComputedStyle(e).backgroundColor"))
                assert (shade < 0.2) == (scheme == "dark"), f"{site}/{name}: the board's shade"
        ARTIFACTS.mkdir(exist_ok=True)
        page.goto(f"{base_url}cluster/index.html")
        page.screenshot(path=str(ARTIFACTS / f"leaderboard-{scheme}.png"), full_page=True)
    finally:
        context.close()
