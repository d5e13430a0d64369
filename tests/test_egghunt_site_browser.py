"""An Easter Egg Hunt run's page in a real browser (Debian's Chromium, driven by Playwright, as
tests/test_site_browser.py does). The site is that of a one-run season of the example entries,
played by `koth season` in the local sandbox.

The page replays the run: at every frame the board is the engine's frame (every player's
letter where the engine has it, the eggs left), the status line says each seat's eggs at that
turn, a fight is marked on the tile where it happened in the frame of its turn (and only then),
each player's 5 × 5 window is outlined on demand around its letter — on the text board and on the
picture the page draws of it (a square per tile: walls grey, eggs as dots, each player's letter on
its seat's colour, fights framed in red); without JavaScript the page shows the final text frame,
coloured, and no control that needs a script.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_site_browser as on_site
from example_seasons import example_copy
from serving import serve
from test_site_browser import Watched, css_colour, pixel

from runner.cli.main import main
from runner.games import find_game
from runner.games.egghunt import EggHuntState
from runner.games.egghunt.rules import SEAT_SYMBOLS
from runner.play.playback import playback

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "egghunt"

watched = on_site.watched


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of the example season (wall-clock limit widened: a busy machine must not make a
    lost turn); its folder."""
    folder = tmp_path_factory.mktemp("egghunt-run")
    config = str(example_copy(EXAMPLE, folder, {"runs": "1", "move_wall_s": "5.0"}))
    assert main(["season", "--config", config, "--no-progress"]) == 0
    return folder


@pytest.fixture(scope="module")
def record(season: Path) -> dict[str, Any]:
    lines = (season / "results" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 1, "one run"
    found: dict[str, Any] = json.loads(lines[0])
    return found


@pytest.fixture(scope="module")
def states(record: dict[str, Any]) -> list[EggHuntState]:
    """The engine's state at every frame of the run."""
    return [state for _, state in playback(find_game("egghunt-v1"), record)]


@pytest.fixture(scope="module")
def base_url(season: Path) -> Iterator[str]:
    with serve(season / "_site") as url:
        yield url.rstrip("/")


def run_page(base_url: str, record: dict[str, Any]) -> str:
    return f"{base_url}/games/{record['key'][:12]}.html"


def fight_frame(states: list[EggHuntState]) -> int:
    """The first frame after a turn with a fight (the examples attack and counter a lot)."""
    for number, state in enumerate(states):
        if state.last.fights:
            return number
    raise AssertionError("the run has no fight to show")


def fought(state: EggHuntState) -> set[int]:
    """The tiles of the last turn's fights and crowds."""
    return {f.tile for f in state.last.fights} | {tile for tile, _ in state.last.crowds}


def go_to(page: Any, frame: int) -> None:
    page.locator("#slider").fill(str(frame))
    assert page.locator("#move").inner_text() == str(frame)


def test_every_frame_shows_the_engines_board_and_that_turns_eggs(
    watched: Watched, base_url: str, record: dict[str, Any], states: list[EggHuntState]
) -> None:
    page = watched.page
    page.goto(run_page(base_url, record))
    rules = find_game("egghunt-v1").rules
    last = len(states) - 1
    for frame in sorted({0, 1, last // 3, last // 2, last - 1, last}):
        go_to(page, frame)
        state = states[frame]
        assert page.locator("#board").inner_text() == rules.render_text(state), (
            f"frame {frame}: the page's board is the engine's frame"
        )
        assert page.locator("#turn").inner_text() == str(state.turns_played)
        shown = [page.locator(f"#score{s}").inner_text() for s in range(state.players)]
        assert shown == [str(e) for e in state.eggs_held], f"frame {frame}: each seat's eggs"
        status = page.locator("#board").inner_text().split("\n")[0]
        for seat, eggs in enumerate(state.eggs_held):
            assert f"{SEAT_SYMBOLS[seat]} {eggs}" in status, "the scoreboard of that turn"
    players = page.locator("#board span[class^='snake']")
    letters = {players.nth(k).inner_text() for k in range(players.count())}
    assert set(SEAT_SYMBOLS[: len(record["seats"])]) <= letters, "each player in its colour"


def test_a_fight_is_marked_on_its_tile_in_the_frame_of_its_turn_only(
    watched: Watched, base_url: str, record: dict[str, Any], states: list[EggHuntState]
) -> None:
    page = watched.page
    page.goto(run_page(base_url, record))
    frame = fight_frame(states)
    go_to(page, frame)
    tiles = fought(states[frame])
    lines = page.locator("#board").inner_text().split("\n")
    symbols = {lines[1 + tile // states[frame].size][tile % states[frame].size] for tile in tiles}
    marked = page.locator("#board .fight")
    assert 1 <= marked.count() <= len(tiles), "a mark on the tiles fought over this turn"
    for k in range(marked.count()):
        assert set(marked.nth(k).inner_text()) <= symbols, "the mark is on a fought tile"
    assert re.search(r"fights: .*(beat|tied)", "\n".join(lines)), "and its line of text"
    for other in (frame - 1, frame + 1):
        go_to(page, other)
        count = page.locator("#board .fight").count()
        assert (count > 0) == bool(fought(states[other])), (
            f"frame {other} marks only its own turn's fights"
        )


def test_each_players_window_is_outlined_on_demand_around_its_letter(
    watched: Watched, base_url: str, record: dict[str, Any], states: list[EggHuntState]
) -> None:
    page = watched.page
    page.goto(run_page(base_url, record))
    page.get_by_role("button", name="Text board").click()  # the picture's own: the next test
    go_to(page, 1)
    assert page.locator("#board .window").count() == 0, "no outline until asked"
    page.locator("#windows").check()
    outlines = page.locator("#board .window")
    seats = len(record["seats"])
    assert outlines.count() == seats, "one outline per player"
    letter = page.locator("#board span[class^='snake']").filter(has_text=re.compile("^A$"))
    tile = letter.last.bounding_box()  # the board's A (the first is the status line's)
    assert tile is not None
    boxes = [outlines.nth(k).bounding_box() for k in range(seats)]
    around = [
        b
        for b in boxes
        if b is not None
        and abs(b["x"] + b["width"] / 2 - (tile["x"] + tile["width"] / 2)) < tile["width"] / 2
        and abs(b["y"] + b["height"] / 2 - (tile["y"] + tile["height"] / 2)) < tile["height"] / 2
    ]
    assert len(around) == 1, "A's window is centred on A's letter"
    assert around[0]["width"] == pytest.approx(5 * tile["width"], rel=0.15), "five tiles wide"
    assert around[0]["height"] == pytest.approx(5 * tile["height"], rel=0.15), "five lines high"
    page.keyboard.press("w")
    assert outlines.count() == 0, "the key w hides them again"


UNIT = 12  # canvas pixels per tile (replay.js UNIT)
RED = [213, 0, 0]  # a fight's frame (replay.js)
PINK = [194, 24, 91]  # a window's dashes (replay.js, as .window in site.css)


def tiles_of(state: EggHuntState, rules: Any) -> list[tuple[int, int, str]]:
    """Every tile of the frame's board (its lines under the status line): x, y, symbol."""
    board = rules.render_text(state).split("\n")[1:-2]
    return [(x, y, c) for y, line in enumerate(board) for x, c in enumerate(line)]


def test_the_run_is_drawn_as_a_picture_with_fights_and_windows_on_it(
    watched: Watched, base_url: str, record: dict[str, Any], states: list[EggHuntState]
) -> None:
    page = watched.page
    page.goto(run_page(base_url, record))
    rules = find_game("egghunt-v1").rules
    picture = page.locator("#picture")
    assert picture.is_visible() and not page.locator("#board").is_visible(), "the picture shows"
    go_to(page, 0)
    wall, seen = css_colour(page, "eh-wall"), 0
    for x, y, symbol in tiles_of(states[0], rules):
        at = pixel(page, x * UNIT + 1, y * UNIT + 1)
        if symbol == "#":
            assert at == wall, f"the wall at ({x}, {y}) is grey"
        elif symbol in SEAT_SYMBOLS:
            seat = SEAT_SYMBOLS.index(symbol)
            assert at == css_colour(page, f"snake{seat}"), f"{symbol} on its seat's colour"
            seen += 1
    assert seen == len(record["seats"]), "every player on the picture"
    frame = fight_frame(states)
    go_to(page, frame)
    size = states[frame].size
    for tile in fought(states[frame]):
        x, y = tile % size, tile // size
        assert pixel(page, x * UNIT + 1, y * UNIT + UNIT // 2) == RED, f"the fight at ({x}, {y})"
    events = page.locator("#events").inner_text()
    assert re.search(r"fights: .*(beat|tied)", events), "the fight's line under the picture"
    go_to(page, frame - 1)
    before = picture.evaluate("c => c.toDataURL()")
    page.locator("#windows").check()
    assert picture.evaluate("c => c.toDataURL()") != before, "the box draws the windows"
    sides = 0
    for x, y, symbol in tiles_of(states[frame - 1], rules):
        if symbol in SEAT_SYMBOLS[: len(record["seats"])] and x >= 2:  # (else off the picture)
            left = [pixel(page, (x - 2) * UNIT + 1, (y - 2) * UNIT + k) for k in range(5 * UNIT)]
            assert PINK in left, f"{symbol}'s window: a dashed side two tiles to its left"
            sides += 1
    assert sides > 0, "a window's side was looked at"
    page.locator("#windows").uncheck()
    assert picture.evaluate("c => c.toDataURL()") == before, "and takes them away"


def test_without_javascript_the_page_shows_the_final_frame_as_text(
    browser: Any, base_url: str, record: dict[str, Any], states: list[EggHuntState]
) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(run_page(base_url, record))
        rules = find_game("egghunt-v1").rules
        assert page.locator("#board").inner_text() == rules.render_text(states[-1])
        assert not page.locator("#player").is_visible(), "the player needs its script"
        assert not page.locator("#windows").is_visible()
        assert page.locator("#board .eh-egg, #board span[class^='snake']").count() > 0, (
            "the final frame is coloured without a script"
        )
    finally:
        context.close()
