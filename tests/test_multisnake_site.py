"""Multisnake's game pages: a map replay with a colour per snake and its letter, the dead greyed,
the turn and the places so far, scaled down to the page for the 150 × 150 map, and small.

The records are real referee games of eight in-process strategies (tests/multisnake_games.py), on
the example configuration's maze and 150 × 150 map. The first tests read the rendered pages as
text; the last ones play them in headless Chromium (screenshots in tests/artifacts/), the picture
of the map read back tile by tile against the engine's state.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import multisnake_games
import pytest
from serving import serve

from runner.games.multisnake import SPEC, tile_owners
from runner.games.spec import Presentation
from runner.play.playback import playback
from runner.site.frames import apply_edits, backward, page_data, presentation, replay

HERE = Path(__file__).parent
ARTIFACTS = HERE / "artifacts"
PAGE_BUDGET = 64 * 1024


@pytest.fixture(scope="module")
def found() -> list[dict[str, Any]]:
    return multisnake_games.season()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, found: list[dict[str, Any]]) -> Path:
    out: Path = tmp_path_factory.mktemp("multisnake-site") / "site"
    report = multisnake_games.render_season(out, found)
    assert report.game_pages == len(found)
    return out


def big(found: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in found if r["setup"]["name"] == "big")


def page_of(site: Path, record: dict[str, Any]) -> str:
    return (site / "games" / f"{record['key'][:12]}.html").read_text()


def states(record: dict[str, Any]) -> list[Any]:
    setup = multisnake_games.example_setups()[record["setup"]["name"]].as_dict()
    return [state for _, state in playback(SPEC, record, setup)]


def test_the_records_are_eight_snakes_on_the_maze_and_the_150_map(
    found: list[dict[str, Any]],
) -> None:
    for record in found:
        assert len(record["seats"]) == 8
        assert len(set(record["outcome"]["placement"])) > 2, "a game with an order of finish"
    final = states(big(found))[-1]
    assert (final.width, final.height) == (150, 150)


def test_each_snake_has_its_colour_and_its_letter_and_the_dead_are_grey(
    site: Path, found: list[dict[str, Any]]
) -> None:
    record = big(found)
    text = page_of(site, record)
    final = states(record)[-1]
    board = re.search(r'<pre class="board" id="board">(.*?)</pre>', text, re.S)
    assert board is not None
    shown = re.sub(r"<[^>]+>", "", board.group(1)).replace("&gt;", ">").replace("&lt;", "<")
    assert shown == SPEC.rules.render_text(final), "without JavaScript: the final frame"
    for seat, snake in enumerate(final.snakes):
        letter = "ABCDEFGH"[seat]
        cls = f"snake{seat}" if snake.alive else "dead"
        mark = letter if snake.alive else letter.lower()
        assert f'<span class="{cls}">{mark}' in board.group(1) or re.search(
            rf'<span class="{cls}">[^<]*{mark}', board.group(1)
        ), f"{letter}: its letter in its colour ({cls}) in the status and on its head"
        assert f'<td><span class="snake{seat}">{letter}</span></td>' in text, "the seat's colour"
    dead = [s for s, snake in enumerate(final.snakes) if not snake.alive]
    assert dead and '<span class="dead">' in board.group(1), "the dead are greyed"
    places = [f"{'ABCDEFGH'[s]} died t{final.snakes[s].died}, " for s in dead]
    assert all(p in shown for p in places), "the status gives each dead snake's turn and place"
    assert shown.startswith(f"turn {final.turns:>4}  "), "and the turn"


def test_the_page_data_rebuilds_every_frame_and_layer_backwards_from_the_board(
    found: list[dict[str, Any]],
) -> None:
    record = big(found)
    setup = multisnake_games.example_setups()["big"].as_dict()
    rep = replay(record, setup)
    played = states(record)
    show = presentation(SPEC.id)
    assert show.layer is not None
    data = page_data(rep, show, "log.txt")
    assert "initial" not in data and data["finalLength"] == len(rep.final)
    picture = data["picture"]
    assert data["graphic"] == "cells" and picture["lines"] == [2, None], "the map below 2 lines"
    assert "picture" not in page_data(rep, Presentation(), "log.txt"), "none without a graphic"
    frame, rebuilt = rep.final, [rep.final]
    for edits in reversed(backward(rep)):
        frame = apply_edits(frame, edits)
        rebuilt.insert(0, frame)
    assert rebuilt == [SPEC.rules.render_text(s) for s in played], "every frame, backwards"
    assert list(rep.layers) == [show.layer(s) for s in played]
    assert len(data["layer"]["initial"]) < 200, "the layer's first frame: a few edits of a blank"
    for state, layer in zip(played[::25], rep.layers[::25], strict=True):
        frame_lines = SPEC.rules.render_text(state).split("\n")
        layer_lines = layer.split("\n")
        assert [len(line) for line in layer_lines] == [len(line) for line in frame_lines]


def test_a_page_of_the_150_map_embeds_no_frame_but_its_board(
    site: Path, found: list[dict[str, Any]]
) -> None:
    record = big(found)
    text = page_of(site, record)
    board = re.search(r'<pre class="board" id="board">(.*?)</pre>', text, re.S)
    assert board is not None
    turns = len(record["moves"])
    rest = len(text.encode()) - len(board.group(1).encode())
    size, shown = len(text) / 1024, len(board.group(1)) / 1024
    print(
        f"\n[site] a 150 x 150 page of eight snakes, {turns} turns: {size:.1f} KiB (the board "
        f"{shown:.1f} KiB, {(rest - 8192) / turns:.0f} bytes a turn)"
    )
    assert rest <= 8 * 1024 + 160 * turns, "besides its board, a page grows by the turn only"
    assert len(text.encode()) <= PAGE_BUDGET, "this game's page is within the site's budget"


# -- in a browser --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    with serve(site) as url:
        yield url.rstrip("/")


def slide(page: Any, step: int) -> None:
    """Move the player's slider to ``step``, as a reader dragging it does."""
    page.evaluate(
        "(k) => { const s = document.getElementById('slider'); s.value = String(k);"
        " s.dispatchEvent(new Event('input')); }",
        step,
    )


def test_the_150_map_replays_in_the_browser_scaled_to_the_page(
    page: Any, base_url: str, found: list[dict[str, Any]]
) -> None:
    record = big(found)
    played = states(record)
    page.goto(f"{base_url}/games/{record['key'][:12]}.html")
    board = page.locator("#board")
    assert board.text_content() == SPEC.rules.render_text(played[0]), "the player starts at 0"
    page.get_by_role("button", name="Text board").click()
    width = board.bounding_box()["width"]
    assert width <= 1280 - 40, f"the 150-column board fits the window's width ({width:.0f} px)"
    assert page.locator("span.snake0").count() >= 2, "snake A's colour: its legend and its head"
    last = len(played) - 1
    rng = random.Random(5)
    for step in sorted({1, last // 2, last, *rng.sample(range(1, last), 3)}):
        slide(page, step)
        assert board.text_content() == SPEC.rules.render_text(played[step]), f"frame {step}"
        assert page.locator("#turn").inner_text() == str(played[step].turns)
        scores = [page.locator(f"#score{s}").inner_text() for s in range(8)]
        assert scores == [str(n) for n in SPEC.rules.scores(played[step])], f"lengths, {step}"
    assert page.locator("#board span.dead").count() > 0, "the dead are grey at the end"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "multisnake-150.png"))


def test_the_whole_board_fits_the_window_at_a_click(
    page: Any, base_url: str, found: list[dict[str, Any]]
) -> None:
    record = big(found)
    page.goto(f"{base_url}/games/{record['key'][:12]}.html")
    whole = page.locator("#whole")
    assert not whole.is_visible(), "the picture fits the window by itself"
    page.get_by_role("button", name="Text board").click()
    assert whole.is_visible(), "a text board taller than the window offers to fit it"
    assert page.locator("#board").bounding_box()["height"] > 900
    whole.click()
    assert whole.get_attribute("aria-pressed") == "true"
    assert page.locator("#board").bounding_box()["height"] <= 900, "the whole board in view"
    page.locator("body").press("z")
    assert whole.get_attribute("aria-pressed") == "false", "z toggles it back"
    ARTIFACTS.mkdir(exist_ok=True)
    whole.click()
    page.locator("#board").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "multisnake-150-whole.png"))
    maze = next(r for r in found if r["setup"]["name"] == "maze")
    page.goto(f"{base_url}/games/{maze['key'][:12]}.html")
    page.get_by_role("button", name="Text board").click()
    assert not page.locator("#whole").is_visible(), "a board that fits needs no such button"


# The picture's colour of every tile, one [r, g, b] a tile, read at its top left canvas pixel (a
# head's letter and a sign are written in its middle); replay.js draws a tile 12 pixels square.
TILE_COLOURS = """(unit) => {
    const c = document.getElementById('picture');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const out = [];
    for (let y = 0; y < c.height; y += unit) {
        for (let x = 0; x < c.width; x += unit) {
            const i = 4 * (y * c.width + x);
            out.push(d[i] + ',' + d[i + 1] + ',' + d[i + 2]);
        }
    }
    return [c.width / unit, c.height / unit, out];
}"""
CSS_COLOURS = """(classes) => classes.map(([cls, what]) => {
    const s = document.createElement('span'); s.className = cls;
    document.getElementById('board').parentNode.appendChild(s);
    const v = getComputedStyle(cls ? s : document.getElementById('board'))[what]; s.remove();
    return v.slice(v.indexOf('(') + 1, v.indexOf(')')).split(',').slice(0, 3)
        .map(n => String(Math.round(Number(n)))).join(',');
})"""


def expected_tiles(page: Any, state: Any) -> tuple[int, int, list[str]]:
    """What the picture should show for ``state``: per tile, the colour of its snake's class
    (grey once dead), the board's ink for a wall, its ground for the rest."""
    wanted = [(f"snake{s}", "backgroundColor") for s in range(8)] + [
        ("dead", "backgroundColor"),
        ("", "backgroundColor"),
        ("", "color"),
    ]
    found = page.evaluate(CSS_COLOURS, wanted)
    snakes, (dead, ground, ink) = found[:8], found[8:]
    owners = tile_owners(state)
    out = []
    for char, owner in zip(state.view[:-1], owners, strict=False):
        if char == ord("\n"):
            continue
        if owner >= 0:
            out.append(snakes[owner] if state.snakes[owner].died is None else dead)
        else:
            out.append(ink if char == ord("#") else ground)
    return state.width, state.height, out


def test_the_150_map_is_a_picture_of_coloured_snakes_that_follows_the_replay(
    page: Any, base_url: str, found: list[dict[str, Any]]
) -> None:
    record = big(found)
    played = states(record)
    page.goto(f"{base_url}/games/{record['key'][:12]}.html")
    picture = page.locator("#picture")
    assert picture.is_visible() and not page.locator("#board").is_visible(), "the picture shows"
    shown = picture.bounding_box()
    assert shown["width"] <= 1280 - 40 and shown["y"] + shown["height"] <= 2 * 900, "it fits"
    last = len(played) - 1
    seen_dead = False
    before = picture.evaluate("c => c.toDataURL()")
    for step in sorted({0, 1, last // 3, last // 2, last}):
        slide(page, step)
        width, height, tiles = page.evaluate(TILE_COLOURS, 12)
        wanted = expected_tiles(page, played[step])
        assert (width, height) == wanted[:2] == (150, 150), "a square per tile of the map"
        wrong = [i for i, (a, b) in enumerate(zip(tiles, wanted[2], strict=True)) if a != b]
        assert not wrong, (
            f"frame {step}: {len(wrong)} tiles in the wrong colour, the first at "
            f"({wrong[0] % 150}, {wrong[0] // 150}) if any"
        )
        said = SPEC.rules.render_text(played[step]).split("\n")[:2]
        assert page.locator("#status").inner_text() == "\n".join(x.rstrip() for x in said)
        seen_dead = seen_dead or any(s.died is not None for s in played[step].snakes)
        if step:
            now = picture.evaluate("c => c.toDataURL()")
            assert now != before, f"frame {step}: stepping redraws the picture"
            before = now
    assert seen_dead, "the frames checked include dead (grey) snakes"
    assert page.locator("#status span.dead").count() > 0, "the status greys the dead's letters"
    winner = record["outcome"]["placement"].index(1)
    assert page.locator(f"#status span.snake{winner}").count() == 1, "the winner's, coloured"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "multisnake-150-picture.png"))
    page.get_by_role("button", name="Text board").click()
    assert page.locator("#board").is_visible() and not picture.is_visible(), "one click away"
    assert page.locator("#board").text_content() == SPEC.rules.render_text(played[last])
    page.locator("body").press("Home")
    page.get_by_role("button", name="Text board").click()
    width, height, tiles = page.evaluate(TILE_COLOURS, 12)
    assert tiles == expected_tiles(page, played[0])[2], "shown again: the picture of frame 0"


def test_without_javascript_the_map_is_the_text_board(
    browser: Any, base_url: str, found: list[dict[str, Any]]
) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        opened = context.new_page()
        record = big(found)
        opened.goto(f"{base_url}/games/{record['key'][:12]}.html")
        board = opened.locator("#board")
        assert board.is_visible() and opened.locator("#picture").count() == 0, "text, no picture"
        assert board.text_content() == SPEC.rules.render_text(states(record)[-1]), "the end"
    finally:
        context.close()


def test_on_a_phone_the_picture_and_its_status_fit_the_screen(
    browser: Any, base_url: str, found: list[dict[str, Any]]
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        opened = context.new_page()
        record = big(found)
        opened.goto(f"{base_url}/games/{record['key'][:12]}.html")
        assert opened.locator("#picture").is_visible() and opened.locator("#status").is_visible()
        wide = opened.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the page scrolls sideways on a phone: {wide} px wide"
        shown = opened.locator("#picture").bounding_box()
        assert shown["width"] <= 390 - 20, "the 150 x 150 map scaled to the screen's width"
        ARTIFACTS.mkdir(exist_ok=True)
        opened.screenshot(path=str(ARTIFACTS / "phone-multisnake-150.png"), full_page=True)
    finally:
        context.close()


def test_a_points_table_reads_the_same_on_every_page_and_each_game_is_listed_once(
    tmp_path: Path, found: list[dict[str, Any]]
) -> None:
    """With ``points: [10, 7, 5, 4, 3, 2, 1, 0]`` the leaderboard, each entry page and each game
    page count on the season's scale; an entry page lists each of its games once (not once per
    other snake at its table)."""
    table = [10, 7, 5, 4, 3, 2, 1, 0]
    multisnake_games.render_season(tmp_path, found, table)
    standings = json.loads((tmp_path / "standings.json").read_text())
    for row in standings["entries"]:
        entry = (tmp_path / "entries" / f"{row['entry']}.html").read_text()
        listed = re.findall(r'<tr><td class="num"><a href="../(games/[^"]+)">', entry)
        assert sorted(listed) == sorted(set(listed)), "each game once"
        assert len(listed) == row["games"]
        cells = re.findall(r'</a></td><td class="num">([0-9.]+)</td>', entry)
        assert sum(float(c) for c in cells) == pytest.approx(row["points"]), row["entry"]
    pages = list((tmp_path / "games").glob("*.html"))
    assert pages
    for page in pages:
        cells = re.findall(
            r'<td class="r-[^"]*">[^<]*</td><td class="num">([0-9.]+)</td>', page.read_text()
        )
        shown = [float(c) for c in cells]
        assert len(shown) > 2 and sum(shown) == pytest.approx(sum(table[: len(shown)])), page.name
