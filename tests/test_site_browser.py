"""The results site in a real browser: headless Chromium (Debian's) driven by Playwright.

The fixture sites (Snakes: tests/fixtures/site/, Cluster: tests/fixtures/site_cluster/, and a
season of four-seat games, tests/podium.py) are rendered and served on 127.0.0.1; the tests
click through them, play replays and compare what the page shows with what the engine computes.
Screenshots land in tests/artifacts/ (gitignored). Without Chromium or Playwright these tests
fail under CI (the environment variable CI is set) and are skipped elsewhere, saying how to
install them (tests/needs.py; every test using the ``base_url`` fixture needs the browser).
"""

from __future__ import annotations

import importlib.util
import random
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import needs
import podium
import pytest
from serving import serve

from runner.games import find_game
from runner.site.frames import replay, text_log

HERE = Path(__file__).parent
ARTIFACTS = HERE / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _load_regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_golden_site", HERE / "regen_golden_site.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _load_regen()


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(needs, "chromium", lambda: None)
    needs.problem.cache_clear()
    try:
        monkeypatch.setenv("CI", "true")
        with pytest.raises(pytest.fail.Exception, match=r"run `sudo bash \.ci/site-deps\.sh`"):
            needs.require(needs.BROWSER)
        monkeypatch.delenv("CI")
        with pytest.raises(pytest.skip.Exception, match="no chromium on PATH") as skipped:
            needs.require(needs.BROWSER)
        assert "To run these tests: " in str(skipped.value), "the skip says how to enable them"
    finally:
        needs.problem.cache_clear()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    served = tmp_path_factory.mktemp("served")
    regen.render_fixture(served / "site")
    regen.render_cluster_fixture(served / "cluster")
    podium.render_season(served / "podium")

    with serve(served) as url:
        yield f"{url}site"


class Watched:
    """A page plus everything it reported: console errors, uncaught exceptions, dialogs."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    seen = Watched(context.new_page())
    yield seen
    context.close()
    assert not seen.dialogs, f"a dialog opened (untrusted script ran?): {seen.dialogs}"
    assert not seen.errors, f"the browser console reported errors: {seen.errors}"


def records() -> list[dict[str, Any]]:
    found, _, _ = regen.load_fixture()
    return list(found)


def longest() -> dict[str, Any]:
    return max(records(), key=lambda r: len(r["moves"]))


def cluster_url(base_url: str) -> str:
    return base_url.removesuffix("/site") + "/cluster"


def cluster_longest() -> dict[str, Any]:
    return max(regen.load_cluster_fixture()[0], key=lambda r: len(r["moves"]))


def engine_state(record: dict[str, Any], moves: int) -> tuple[Any, Any]:
    """The game and its state after ``moves`` moves, straight from the engine."""
    game = find_game(record["game"]).rules
    state = game.initial_state(random.Random(record["seed"]), len(record["seats"]), {})
    for text in record["moves"][:moves]:  # Snakes: a string of moves; other games: a list
        seat = game.to_move(state)[0]
        state = game.apply(state, {seat: game.parse_move(seat, text)})
    return game, state


def engine_frame(record: dict[str, Any], moves: int) -> str:
    game, state = engine_state(record, moves)
    return str(game.render_text(state))


def game_url(base_url: str, record: dict[str, Any]) -> str:
    return f"{base_url}/games/{record['key'][:12]}.html"


def test_the_leaderboard_lists_every_entry(watched: Watched, base_url: str) -> None:
    page = watched.page
    page.goto(f"{base_url}/index.html")
    _, doc, _ = regen.load_fixture()
    text = page.locator("main").inner_text()
    for row in doc["entries"]:
        assert row["entry"] in text, f"{row['entry']} is missing from the leaderboard"
        assert row["name"] in text, f"{row['name']!r} should show as text"
    assert page.locator("table.leaderboard tbody tr").count() == 3
    scripts = page.locator("script")
    assert scripts.count() == 1 and scripts.get_attribute("src") == "static/table.js", (
        "the leaderboard runs one script: the table's sorting and filtering"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)


def test_clicking_a_game_opens_its_page(watched: Watched, base_url: str) -> None:
    page = watched.page
    page.goto(f"{base_url}/index.html")
    page.get_by_role("link", name="Greedy Gus").first.click()
    page.wait_for_url("**/entries/greedy.html")
    page.locator("#vs-drunk table.games a").first.click()
    page.wait_for_url("**/games/*.html")
    assert page.locator("h1").inner_text().startswith("Game ")
    assert page.locator("#player").is_visible(), "the player appears once its script runs"
    assert page.locator("#move").inner_text() == "0", "a replay starts at the first frame"


def test_play_advances_the_turn_and_the_end_is_the_recorded_final_frame(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    record = longest()
    page.goto(game_url(base_url, record))
    assert page.locator("#turn").inner_text() == "0"
    assert page.locator("#board").text_content() == engine_frame(record, 0)
    page.select_option("#speed", "256")
    page.click("#play")
    page.wait_for_function("Number(document.getElementById('turn').textContent) >= 3")
    page.click("#play")  # pause
    paused = int(page.locator("#move").inner_text())
    assert 0 < paused < len(record["moves"])
    assert page.locator("#board").text_content() == engine_frame(record, paused)

    page.locator("body").press("End")
    last = len(record["moves"])
    assert page.locator("#move").inner_text() == str(last)
    assert page.locator("#board").text_content() == engine_frame(record, last)
    assert page.locator("#board").text_content() == replay(record).final
    scores = [page.locator(f"#score{s}").inner_text() for s in (0, 1)]
    assert scores == [str(n) for n in record["outcome"]["scores"]], "the recorded final scores"
    assert page.locator("#turn").inner_text() == str((last + 1) // 2)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "game.png"), full_page=True)


def test_step_keys_slider_and_home(watched: Watched, base_url: str) -> None:
    page = watched.page
    record = longest()
    page.goto(game_url(base_url, record))
    body = page.locator("body")
    body.press("ArrowRight")
    body.press("ArrowRight")
    body.press("ArrowRight")
    body.press("ArrowLeft")
    assert page.locator("#move").inner_text() == "2"
    assert page.locator("#board").text_content() == engine_frame(record, 2)
    page.click("#forward")
    assert page.locator("#move").inner_text() == "3"
    page.locator("#slider").fill("40")
    assert page.locator("#move").inner_text() == "40"
    assert page.locator("#board").text_content() == engine_frame(record, 40)
    assert page.locator("#moves li.current").inner_text() == " ".join(record["moves"][38:40])
    body.press(" ")
    page.wait_for_function("Number(document.getElementById('move').textContent) > 40")
    body.press(" ")
    page.locator("body").press("Home")
    assert page.locator("#move").inner_text() == "0"
    page.click("#last")
    assert page.locator("#board").text_content() == replay(record).final


def test_the_downloaded_text_log_has_every_frame(watched: Watched, base_url: str) -> None:
    page = watched.page
    record = longest()
    page.goto(game_url(base_url, record))
    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename == f"{record['key'][:12]}.txt"
    text = Path(download.path()).read_text()
    assert text == text_log(replay(record))
    assert len(text.split("\n\n")) == len(record["moves"]) + 1


def test_a_cluster_game_plays_and_its_end_is_the_engines_final_frame(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    record = cluster_longest()
    last = len(record["moves"])
    page.goto(f"{cluster_url(base_url)}/games/{record['key'][:12]}.html")
    assert page.locator("#player").is_visible()
    assert page.locator("#move").inner_text() == "0"
    assert page.locator("#board").text_content() == engine_frame(record, 0)
    page.select_option("#speed", "4")
    page.click("#play")
    page.wait_for_function("Number(document.getElementById('move').textContent) >= 2")
    page.click("#play")  # pause
    paused = int(page.locator("#move").inner_text())
    assert 0 < paused < last
    game, state = engine_state(record, paused)
    assert page.locator("#board").text_content() == game.render_text(state)
    assert [page.locator(f"#score{s}").inner_text() for s in (0, 1)] == [
        str(n) for n in game.scores(state)
    ]
    assert page.locator("#turn").inner_text() == str(game.turn(state)), "the board's turn"

    page.locator("body").press("ArrowRight")
    assert page.locator("#board").text_content() == engine_frame(record, paused + 1)
    page.locator("#moves li").nth(4).click()  # the fifth move
    assert page.locator("#move").inner_text() == "5"
    assert page.locator("#board").text_content() == engine_frame(record, 5)
    assert page.locator("#moves li.current").inner_text() == f"Blue {record['moves'][4]}"
    page.locator("#slider").fill(str(last - 1))
    assert page.locator("#board").text_content() == engine_frame(record, last - 1)

    page.click("#last")
    game, state = engine_state(record, last)
    assert page.locator("#move").inner_text() == str(last)
    assert page.locator("#board").text_content() == game.render_text(state)
    assert "game over" in game.render_text(state)
    assert [page.locator(f"#score{s}").inner_text() for s in (0, 1)] == [
        str(n) for n in record["outcome"]["scores"]
    ]
    seat = ("Blue", "Red")[(last - 1) % 2]
    assert page.locator("#moves li.current").inner_text() == f"{seat} {record['moves'][-1]}"
    assert page.locator("#board span.blue").count() > 0, "pellets are coloured"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster-game.png"), full_page=True)

    with page.expect_download() as info:
        page.click("#download")
    text = Path(info.value.path()).read_text()
    assert text == "\n\n".join(engine_frame(record, k) for k in range(last + 1)) + "\n"


def test_a_season_of_four_seat_games_reads_in_the_browser(watched: Watched, base_url: str) -> None:
    """Places on the leaderboard, who finished ahead of whom in the cross-table, a cell leading
    to the pair's games, and a four-seat replay played to its end."""
    page = watched.page
    site = base_url.removesuffix("/site") + "/podium"
    page.goto(f"{site}/index.html")
    headers = page.locator("table.leaderboard thead th").all_inner_texts()
    assert headers[6:11] == ["1st", "2nd", "3rd", "4th", "Average place"] and "W" not in headers
    page.goto(f"{site}/crosstable.html")
    cell = page.locator("table.cross tbody tr").nth(0).locator("td a").first
    counted = re.fullmatch(r"(\d+) of (\d+)", cell.inner_text())
    assert counted, cell.inner_text()
    assert "games they met in" in str(cell.get_attribute("title"))
    href = str(cell.get_attribute("href"))
    cell.click()
    page.wait_for_url(f"**/{href}")
    # at tables of four: the section of the entry's games there, each once, which holds
    # every game the pair met in
    games = page.locator(f"section:has(#{href.split('#')[1]}) table.games tbody tr")
    assert games.count() >= int(counted.group(2)), "the cell leads to the games the pair met in"
    assert page.locator(f"section#tables:has(#{href.split('#')[1]})").count() == 1
    record = max(podium.season(), key=lambda r: r["seed"])
    page.goto(f"{site}/games/{record['key'][:12]}.html")
    page.click("#last")
    with podium.registered():
        final = replay(record).final
    assert page.locator("#board").text_content() == final
    shown = [page.locator(f"#score{s}").inner_text() for s in range(4)]
    assert shown == [str(n) for n in record["outcome"]["scores"]], "all four seats' scores"
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{site}/crosstable.html")
    page.screenshot(path=str(ARTIFACTS / "podium-crosstable.png"), full_page=True)


def test_untrusted_names_never_run(watched: Watched, base_url: str) -> None:
    page = watched.page
    for path in (
        "index.html",
        "crosstable.html",
        "games.html",
        "entries/drunk.html",
        "entries/broken.html",
        "entries/crasher.html",
    ):
        page.goto(f"{base_url}/{path}")
        ours = 1 if path in ("index.html", "games.html") else 0  # static/table.js
        assert page.locator("script").count() == ours, f"{path}: a script element appeared"
        assert page.locator("img").count() == 0, f"{path}: an author's <img> became an element"
    for record in records():
        page.goto(game_url(base_url, record))
        assert page.locator("script").count() == 2, "only the replay data and replay.js"
    page.goto(f"{base_url}/entries/drunk.html")
    assert "<script>alert(1)</script>" in page.locator("h1").inner_text()
    assert "</code></pre><script>alert(3)</script>" in page.locator("pre.source").inner_text()


def test_pages_work_without_javascript(browser: Any, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        record = longest()
        page.goto(game_url(base_url, record))
        assert page.locator("#board").text_content() == replay(record).final
        assert not page.locator("#player").is_visible(), "no dead controls without JavaScript"
        assert page.locator("#board").is_visible() and page.locator("#picture").count() == 0
        assert page.locator("#moves li").count() == (len(record["moves"]) + 1) // 2
        cluster = cluster_longest()
        page.goto(f"{cluster_url(base_url)}/games/{cluster['key'][:12]}.html")
        assert page.locator("#board").text_content() == engine_frame(cluster, 10**6)
        assert not page.locator("#player").is_visible()
        assert page.locator("#moves li").count() == len(cluster["moves"])
        page.goto(f"{base_url}/index.html")
        ranks = page.locator("table.leaderboard tbody tr td:first-child").all_inner_texts()
        assert ranks == ["1", "2", "3"] and page.locator("label.filter").count() == 0
        page.goto(f"{base_url}/los.html")
        assert page.locator("table.los td[title]").count() == 6, "every ordered pair's LOS"
        page.goto(f"{base_url}/crosstable.html")
        assert page.locator("table.cross td a").count() == 6
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "crosstable-no-js.png"), full_page=True)
    finally:
        context.close()


def test_a_move_link_opens_the_game_at_that_move_and_follows_the_board(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    record = longest()
    page.goto(game_url(base_url, record) + "#move=40")
    assert page.locator("#move").inner_text() == "40", "#move=40 opens the game at move 40"
    assert page.locator("#board").text_content() == engine_frame(record, 40)
    page.locator("body").press("ArrowRight")
    assert page.evaluate("location.hash") == "#move=41", "the address follows the board"
    page.evaluate("location.hash = '#move=5'")
    page.wait_for_function("document.getElementById('move').textContent === '5'")
    assert page.locator("#board").text_content() == engine_frame(record, 5)
    page.goto(game_url(base_url, record) + "#move=999999")  # the same page: a hashchange
    last = len(record["moves"])
    page.wait_for_function(f"document.getElementById('move').textContent === '{last}'")
    assert page.locator("#board").text_content() == engine_frame(record, last), "past the end"


def test_previous_and_next_lead_through_the_games_in_order(watched: Watched, base_url: str) -> None:
    page = watched.page
    ordered = regen.load_fixture()[0]
    page.goto(game_url(base_url, ordered[0]))
    assert page.locator("a[rel=prev]").count() == 0, "the first game has no previous one"
    for number in range(2, len(ordered) + 1):
        page.locator("a[rel=next]").first.click()
        page.wait_for_url(f"**/{ordered[number - 1]['key'][:12]}.html")
        assert page.locator("h1").inner_text().startswith(f"Game {number}:")
    assert page.locator("a[rel=next]").count() == 0, "the last game has no next one"
    page.locator("a[rel=prev]").first.click()
    page.wait_for_url(f"**/{ordered[-2]['key'][:12]}.html")


def test_the_default_speed_plays_a_game_in_seconds_not_in_a_blink(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    cluster = cluster_longest()
    page.goto(f"{cluster_url(base_url)}/games/{cluster['key'][:12]}.html")
    speed = int(page.locator("#speed").input_value())
    assert speed < 64 and len(cluster["moves"]) / speed <= 16, "not 64 moves/s for Cluster"
    record = longest()
    page.goto(game_url(base_url, record))
    speed = int(page.locator("#speed").input_value())
    assert 4 < len(record["moves"]) / speed <= 16, f"{len(record['moves'])} moves at {speed}/s"


def test_the_leaderboard_sorts_and_filters_in_the_browser(watched: Watched, base_url: str) -> None:
    page = watched.page
    page.goto(f"{base_url}/index.html")
    table = page.locator("table.leaderboard")

    def column(index: int) -> list[str]:
        rows = table.locator("tbody tr:not([hidden])")
        return [rows.nth(i).locator("td").nth(index).inner_text() for i in range(rows.count())]

    assert column(0) == ["1", "2", "3"], "rendered in rank order"
    table.locator("thead th").nth(2).get_by_role("button").click()  # Entry
    assert column(2) == ["crasher", "drunk", "greedy"], "sorted by entry name"
    assert table.locator("thead th").nth(2).get_attribute("aria-sort") == "ascending"
    table.locator("thead th").nth(2).get_by_role("button").click()
    assert column(2) == ["greedy", "drunk", "crasher"], "clicked again: the other way round"
    faults = table.locator("thead th", has_text="Faults").get_by_role("button")
    faults.click()
    faults.click()
    assert column(2)[0] == "crasher", "the most faults first"
    rating = table.locator("thead th", has_text="Rating")
    rating.get_by_role("button").click()
    assert column(2) == ["greedy", "drunk", "crasher"], "the best rating first, at one click"
    assert rating.get_attribute("aria-sort") == "descending"
    page.get_by_label("Find a bot").fill("GUS")
    assert column(1) == ["Greedy Gus"], "the filter keeps the rows holding the text"
    page.get_by_label("Find a bot").fill("alert(1)")
    assert column(1) == ["<script>alert(1)</script>"], "a name is matched as text, never run"
    page.get_by_label("Find a bot").fill("")
    assert len(column(1)) == 3
    page.goto(f"{base_url}/games.html")
    page.get_by_label("Find games by bot").fill("Crashy")
    shown = page.locator("table.games tbody tr:not([hidden])")
    assert shown.count() == 4, "the games Crashy played: two against each of the two others"


def test_the_winning_line_is_outlined_only_once_it_is_made(watched: Watched, base_url: str) -> None:
    page = watched.page
    record = cluster_longest()
    last = len(record["moves"])
    page.goto(f"{cluster_url(base_url)}/games/{record['key'][:12]}.html")
    assert page.locator("#board span.win").count() == 0, "no line at the start"
    page.goto(f"{cluster_url(base_url)}/games/{record['key'][:12]}.html#move={last - 1}")
    page.wait_for_function(f"document.getElementById('move').textContent === '{last - 1}'")
    assert page.locator("#board span.win").count() == 0, "nor a move before the end"
    page.locator("body").press("ArrowRight")
    assert page.locator("#board span.win").count() == 4, "the winning move makes a line of 4"
    assert page.locator(".legend").is_visible()


def pixel(page: Any, x: float, y: float) -> list[int]:
    """The colour of the board's picture at canvas pixel (x, y), as [r, g, b]."""
    found = page.evaluate(
        "([x, y]) => Array.from(document.getElementById('picture').getContext('2d')"
        ".getImageData(Math.floor(x), Math.floor(y), 1, 1).data.slice(0, 3))",
        [x, y],
    )
    return [int(v) for v in found]


def rgb(css: str) -> list[int]:
    """A computed ``rgb(…)`` or ``rgba(…)`` colour as [r, g, b]."""
    return [int(float(v)) for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]


def css_colour(page: Any, cls: str, what: str = "backgroundColor") -> list[int]:
    found = page.evaluate(
        "([cls, what]) => { const s = document.createElement('span'); s.className = cls;"
        " document.body.appendChild(s); const c = getComputedStyle(s)[what]; s.remove();"
        " return c; }",
        [cls, what],
    )
    return rgb(found)


def test_the_board_is_drawn_as_a_picture_with_its_text_one_click_away(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    record = longest()
    page.goto(game_url(base_url, record))
    picture = page.locator("#picture")
    assert picture.is_visible() and not page.locator("#board").is_visible(), "the picture shows"
    start = picture.evaluate("c => c.toDataURL()")
    page.locator("body").press("End")
    final = engine_frame(record, len(record["moves"])).split("\n")
    unit = 12  # canvas pixels per square (replay.js UNIT)
    owned = {"X": "x", "O": "o", "*": "xh", "@": "oh"}
    for y, line in enumerate(final):
        for x, symbol in enumerate(line):
            if symbol in owned:
                corner = pixel(page, x * unit + 1, y * unit + 1)
                assert corner == css_colour(page, owned[symbol]), f"{symbol} at ({x}, {y})"
    assert picture.evaluate("c => c.toDataURL()") != start, "stepping redraws the picture"
    page.locator("body").press("Home")
    assert picture.evaluate("c => c.toDataURL()") == start, "the same frame, the same picture"
    page.get_by_role("button", name="Text board").click()
    assert page.locator("#board").is_visible() and not picture.is_visible()
    assert page.locator("#board").text_content() == engine_frame(record, 0), "the text, in step"
    page.get_by_role("button", name="Text board").click()
    assert picture.is_visible()


def test_clusters_picture_is_hexagons_in_the_pellets_colours(
    watched: Watched, base_url: str
) -> None:
    page = watched.page
    record = cluster_longest()
    page.goto(f"{cluster_url(base_url)}/games/{record['key'][:12]}.html")
    page.locator("body").press("End")
    frame = engine_frame(record, len(record["moves"])).split("\n")[2:-1]  # the board's lines
    unit, line = 12, 12 * 3**0.5  # replay.js: a column 12 pixels, a line √3 times that
    named = {"B": "blue", "b": "blue2", "R": "red", "r": "red2"}
    seen = 0
    for y, text in enumerate(frame):
        for x, symbol in enumerate(text):
            if symbol in named:
                centre = pixel(page, line + x * unit, line + y * line)
                assert centre == css_colour(page, named[symbol]), f"{symbol} at ({x}, {y})"
                seen += 1
    assert seen == len(record["moves"]) - sum("ROTATE" in m for m in record["moves"])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster-picture.png"), full_page=True)


def test_a_tall_board_and_its_controls_fit_one_desktop_screen(
    watched: Watched, base_url: str
) -> None:
    page = watched.page  # 1280 × 900
    record = cluster_longest()
    page.goto(f"{cluster_url(base_url)}/games/{record['key'][:12]}.html")
    picture = page.locator("#picture").bounding_box()
    seats = page.locator("table.seats").bounding_box()
    assert picture is not None and seats is not None
    assert seats["x"] >= picture["x"] + picture["width"], "the seats' table stands beside it"
    for control in ("#first", "#play", "#last"):
        box = page.locator(control).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900, f"{control} is on screen"
    assert page.locator(".legend").is_visible()
