"""A knockout's site and Domineering's game pages in a real browser (Debian's Chromium, driven by
Playwright, as tests/test_site_browser.py does): the bracket page shows every round and match
and leads to every game's replay; the leaderboard crowns the champion; a Domineering board shows
each domino as one piece, Left's and Right's in different colours and shapes, and the square a
bomb cleared as one block on the move it exploded, and only then — in the text board and in the
picture drawn from the same frames (each cell's colour read back from the canvas), which without
JavaScript is not there. The site is the in-process knockout of tests/domineering_knockout.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import domineering_knockout as dk
import pytest
import test_site_browser as on_site
from serving import serve
from test_site_browser import ARTIFACTS, Watched, css_colour, engine_frame, pixel, rgb

# The browser and a watched page, as the other browser tests have them (this module's own
# ``base_url`` serves the knockout's site).
watched = on_site.watched

Box = dict[str, float]


@pytest.fixture(scope="module")
def played() -> dk.Season:
    return dk.season(third_place=True)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, played: dk.Season) -> Iterator[str]:
    served = tmp_path_factory.mktemp("served")
    dk.render(served / "site", played)
    with serve(served) as url:
        yield f"{url}site"


def bombed(played: dk.Season) -> tuple[dict[str, Any], int]:
    """A game in which a bomb exploded, and the number of moves up to and with the bomb."""
    for record in played.records:
        for number, move in enumerate(record["moves"], 1):
            if move.startswith("2 ") and number < len(record["moves"]):
                return record, number
    raise AssertionError("the test season has no game with a bomb")


def box(page: Any, selector: str, index: int) -> Box:
    found = page.locator(selector).nth(index).bounding_box()
    assert found is not None, f"{selector} #{index} is not shown"
    return dict(found)


def touching(a: float, b: float) -> bool:
    return abs(a - b) < 1.0


def test_the_bracket_shows_every_round_and_leads_to_each_replay(
    watched: Watched, base_url: str, played: dk.Season
) -> None:
    page = watched.page
    page.goto(f"{base_url}/index.html")
    assert page.locator("p.champion").inner_text().startswith("Champion: Fox")
    reached = page.locator("table.leaderboard tbody tr").first.locator("td").nth(4)
    assert reached.inner_text() == "champion", "the leaderboard says how far each bot went"
    page.get_by_role("link", name="Bracket", exact=True).click()
    page.wait_for_url("**/bracket.html")
    headings = page.locator(".bracket .round h2").all_inner_texts()
    assert headings == ["Quarter-finals", "Semi-finals", "Final"]
    matches = page.locator(".bracket article.match")
    assert matches.count() == len(played.bracket["matches"]) == 8, "4 + 2 + final + third place"
    final = page.locator("article#round-3-final")
    sides = final.locator("table.match-sides tr")
    assert sides.count() == 2
    scores = [sides.nth(i).locator("td.score").inner_text() for i in (0, 1)]
    assert sorted(scores) == ["0", "2"], "a match shows the games each side won"
    assert final.locator("tr.won").inner_text().split()[1] == "Fox"
    links = page.locator(".bracket ol.match-games a")
    assert links.count() == len(played.records), "every game of every match is linked"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "bracket.png"), full_page=True)
    final.locator("ol.match-games a").first.click()
    page.wait_for_url("**/games/*.html")
    assert page.locator("#player").is_visible(), "the replay of the game opens"
    assert "Fox" in page.locator("h1").inner_text()
    page.get_by_role("link", name="Final", exact=True).click()
    page.wait_for_url("**/bracket.html#round-3-final")


def test_a_domineering_board_draws_pieces_and_the_bomb(
    watched: Watched, base_url: str, played: dk.Season
) -> None:
    page = watched.page
    record, bomb_at = bombed(played)
    page.goto(f"{base_url}/games/{record['key'][:12]}.html")
    page.get_by_role("button", name="Text board").click()
    page.locator("#slider").fill(str(bomb_at))
    assert page.locator("#move").inner_text() == str(bomb_at)
    assert page.locator("#board").text_content() == engine_frame(record, bomb_at)
    square = page.locator("#board .dom-bomb")
    assert square.count() == 5, "the cleared square: one block a row, five rows"
    assert set(square.all_inner_texts()) == {"* * * * *"}
    rows = [box(page, "#board .dom-bomb", i) for i in range(5)]
    for upper, lower in zip(rows, rows[1:], strict=False):
        assert touching(upper["y"] + upper["height"], lower["y"]), "the rows of the square touch"
        assert touching(upper["x"], lower["x"]) and touching(upper["width"], lower["width"])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "domineering-bomb.png"), full_page=True)
    page.click("#forward")
    assert page.locator("#board .dom-bomb").count() == 0, "marked on the bomb's move only"

    page.click("#last")
    left = page.locator("#board .dom-w")
    assert left.count() == record["outcome"]["scores"][0], "a Left domino per score point"
    west, middle, east = (
        box(page, sel, 0) for sel in (".dom-w", ".dom-h:not(.dom-w):not(.dom-e)", ".dom-e")
    )
    assert touching(west["x"] + west["width"], middle["x"]), "<- reads as one piece"
    assert touching(middle["x"] + middle["width"], east["x"]), "-> reads as one piece"
    assert page.locator("#board .dom-n").count() == record["outcome"]["scores"][1]
    north, south = box(page, ".dom-n", 0), box(page, ".dom-s", 0)
    below = page.evaluate(
        """() => {
            const top = document.querySelector('#board .dom-n').getBoundingClientRect();
            const bottoms = [...document.querySelectorAll('#board .dom-s')]
                .map(e => e.getBoundingClientRect());
            const mine = bottoms.find(b => Math.abs(b.x - top.x) < 1 && b.y > top.y);
            return mine ? [mine.x, mine.y] : null;
        }"""
    )
    assert below is not None, "the v of the first ^ is in the same column, below it"
    assert touching(north["y"] + north["height"], below[1]), "^ over v reads as one piece"
    assert south["height"] == pytest.approx(north["height"], abs=1.0)
    colours = page.evaluate(
        """() => ['.dom-h', '.dom-v', '#board'].map(s =>
            getComputedStyle(document.querySelector(s)).backgroundColor)"""
    )
    assert len(set(colours)) == 3, f"Left, Right and the board have colours of their own: {colours}"
    texts = set(page.locator("#board .dom-h").all_inner_texts())
    assert texts == {"<", "-", ">"} and set(page.locator("#board .dom-v").all_inner_texts()) == {
        "^",
        "v",
    }, "the shapes tell the sides apart without colour"


CELL, GAP = 24, 2  # replay.js: canvas pixels from one cell of a "grid" picture to the next, around
TOP, LEFT = 4, 4  # the frame's line of row 0 and character of column 0 (a cell every 2)


def cells(frame: str) -> dict[tuple[int, int], str]:
    """Each cell of a Domineering frame's board: (row, column) -> its symbol."""
    rows = frame.split("\n")[TOP:]
    return {(r, c): line[LEFT + 2 * c] for r, line in enumerate(rows) for c in range(13)}


def colour_of(page: Any, what: str) -> list[int]:
    """A CSS colour of the (hidden) text board: its background or its ink."""
    return rgb(page.evaluate(f"getComputedStyle(document.getElementById('board')).{what}"))


def drawn_as_one_piece_each(page: Any, frame: dict[tuple[int, int], str], colours: Any) -> None:
    """The picture shows ``frame``: each cell in its symbol's colour, the gap between two cells
    filled only within one piece (a domino, the bomb's square)."""
    left, right, bomb, ground = colours
    fills = {"<": left, "-": left, ">": left, "^": right, "v": right, "*": bomb}
    for (r, c), symbol in frame.items():
        x, y = c * CELL, r * CELL
        if symbol == ".":
            assert pixel(page, x + CELL / 2, y + CELL / 2) == ground, f"({r}, {c}) is empty"
            continue
        # a corner inside the cell (a * is written in its middle): the symbol's colour
        assert pixel(page, x + GAP + 1, y + GAP + 1) == fills[symbol], f"{symbol} at ({r}, {c})"
        east, south = frame.get((r, c + 1)), frame.get((r + 1, c))
        one_east = symbol == "<" or (symbol == "*" and east == "*")
        one_south = symbol == "^" or (symbol == "*" and south == "*")
        gap_east = pixel(page, x + CELL - 1, y + CELL / 2)
        gap_south = pixel(page, x + CELL / 2, y + CELL - 1)
        assert gap_east == (fills[symbol] if one_east else ground), (
            f"{symbol} at ({r}, {c}): the gap east of it filled only within one piece"
        )
        assert gap_south == (fills[symbol] if one_south else ground), (
            f"{symbol} at ({r}, {c}): the gap south of it filled only within one piece"
        )


def test_domineerings_picture_draws_each_domino_as_one_piece_and_the_bomb_on_its_move(
    watched: Watched, base_url: str, played: dk.Season
) -> None:
    page = watched.page
    record, bomb_at = bombed(played)
    page.goto(f"{base_url}/games/{record['key'][:12]}.html")
    picture = page.locator("#picture")
    assert picture.is_visible() and not page.locator("#board").is_visible(), "the picture shows"
    assert picture.evaluate("c => [c.width, c.height]") == [13 * CELL, 13 * CELL], "13 x 13"
    left, right = css_colour(page, "dom-h"), css_colour(page, "dom-v")
    bomb, ground = css_colour(page, "dom-bomb"), colour_of(page, "backgroundColor")
    assert len({tuple(left), tuple(right), tuple(bomb), tuple(ground)}) == 4, "four colours"
    page.locator("#slider").fill(str(bomb_at))
    start = picture.evaluate("c => c.toDataURL()")
    said = [line.rstrip() for line in engine_frame(record, bomb_at).split("\n")[:2]]
    assert page.locator("#status").inner_text() == "\n".join(said), "the status over it"
    assert "a bomb cleared" in said[1]
    frame = cells(engine_frame(record, bomb_at))
    assert sum(symbol == "*" for symbol in frame.values()) == 25, "the bomb's 5 x 5 square"
    drawn_as_one_piece_each(page, frame, [left, right, bomb, ground])
    ARTIFACTS.mkdir(exist_ok=True)
    picture.screenshot(path=str(ARTIFACTS / "domineering-picture-bomb.png"))
    page.click("#forward")
    after = cells(engine_frame(record, bomb_at + 1))
    assert "*" not in after.values(), "the square is marked on the bomb's move only"
    assert picture.evaluate("c => c.toDataURL()") != start, "stepping redraws the picture"
    drawn = [pixel(page, c * CELL + GAP + 1, r * CELL + GAP + 1) for (r, c) in after]
    assert bomb not in drawn, "no cell of the picture keeps the bomb's colour a move later"
    page.locator("body").press("End")
    final = cells(engine_frame(record, len(record["moves"])))
    assert {"<", "^"} <= set(final.values()), "the end has dominoes of both sides"
    drawn_as_one_piece_each(page, final, [left, right, bomb, ground])
    picture.screenshot(path=str(ARTIFACTS / "domineering-picture-final.png"))
    page.locator("body").press("ArrowLeft")
    page.get_by_role("button", name="Text board").click()
    assert page.locator("#board").is_visible() and not picture.is_visible(), "one click away"
    last = len(record["moves"]) - 1
    assert page.locator("#board").text_content() == engine_frame(record, last), "in step"


def test_a_domineering_page_without_javascript_shows_the_text_board(
    browser: Any, base_url: str, played: dk.Season
) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        record = played.records[0]
        page.goto(f"{base_url}/games/{record['key'][:12]}.html")
        board = page.locator("#board")
        assert board.is_visible() and page.locator("#picture").count() == 0, "the text, no picture"
        assert board.text_content() == engine_frame(record, len(record["moves"])), "the end"
    finally:
        context.close()
