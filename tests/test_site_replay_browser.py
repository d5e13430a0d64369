"""The replay page in a real browser: a game without a page of its own, replayed from the
published records by the game's engine in JavaScript (runner/site/replays.py).

The Snakes fixture (tests/fixtures/site/) is rendered twice: as it is (a page for every game)
and as a large season renders it, here with one game page and the other games on the replay
page. The replay page must show each game as its own page does, frame for frame; the engine
must draw every frame the Python rules draw.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import regen_golden_site as regen
from serving import serve

from runner.games.base import EMPTY
from runner.games.snakes import SPEC as SNAKES
from runner.site import replays
from runner.site.frames import frames, replay

pytestmark = pytest.mark.browser
OWN = 0  # the one game with a page of its own in the sparse site (the first, in game order)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    served = tmp_path_factory.mktemp("served")
    regen.render_fixture(served / "full")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replays, "EVERY_GAME", 1)
        patch.setattr(replays, "featured", lambda games, ranks, knockout: {OWN})
        regen.render_fixture(served / "sparse")
    with serve(served) as url:
        yield url


def records() -> list[dict[str, Any]]:
    found, _, _ = regen.load_fixture()
    return sorted(found, key=lambda r: (r["round"], [s["entry"] for s in r["seats"]], r["key"]))


def random_record(game: int) -> dict[str, Any]:
    """A Snakes record of moves drawn at random until the rules end the game (some by an
    enclosure, some after every move), as the site replays it."""
    rng = random.Random(game)
    bias = rng.choice(["LRUD", "RRDDLU", "DDRRUL", "RDLU", "RRRDDDLLUU"])
    state, moves = SNAKES.rules.initial_state(rng, 2, EMPTY), []
    while not state.over:
        move = rng.choice(bias) if rng.random() < 0.7 else rng.choice("LRUD")
        state = SNAKES.rules.apply(state, {state.moves_played % 2: move})
        moves.append(move)
    seats = [{"entry": e, "hash": e * 64, "name": e} for e in "ab"]
    return {"game": SNAKES.id, "seed": game, "seats": seats, "moves": "".join(moves), "outcome": {}}


def test_the_engine_draws_every_frame_the_rules_draw(base_url: str, page: Any) -> None:
    page.goto(f"{base_url}sparse/replay.html")
    ended = 0
    for game in range(40):
        record = random_record(game)
        rep = replay(record)
        ended += rep.final_scores[0] + rep.final_scores[1] < 512
        made = page.evaluate("record => window.kothEngine(record)", record)
        assert made["frames"] == frames(rep), f"game {game}: a frame differs from the rules'"
        numbers = [[turn, *scores] for turn, scores in zip(rep.turns, rep.scores, strict=True)]
        assert made["numbers"] == numbers, f"game {game}: a turn or a score differs"
        assert made["steps"] == [[list(m) for m in step.moves] for step in rep.steps]
    assert ended > 10, "some games end before the board is full"
    past = {**random_record(0), "moves": random_record(0)["moves"] + "L"}
    for bad in (past, {**random_record(1), "moves": "RDxR"}):
        thrown = page.evaluate(
            "record => { try { window.kothEngine(record); } catch (e) { return e.message; } }",
            bad,
        )
        assert thrown and "does not play by the rules" in thrown


def shown(page: Any) -> dict[str, Any]:
    """What a game's page (or the replay page) says of it, and its board at each frame."""
    page.wait_for_selector("#player:not([hidden])")
    texts = {
        key: page.inner_text(selector)
        for key, selector in {
            "title": "h1",
            "result": "p.result >> visible=true",
            "seats": "table.seats tbody",
            "moves": "#moves",
            "play": "#play-again",
            "commands": "ul.replay-commands",
            "facts": "dl.facts",
        }.items()
    }
    texts["facts"] = "\n".join(
        line for line in texts["facts"].splitlines() if not line.startswith(("Round", "Match"))
    )
    page.click("#text") if page.is_visible("#text") else None
    page.click("#first")
    boards = [page.evaluate("document.getElementById('board').textContent")]
    steps = int(page.get_attribute("#slider", "max"))
    for _ in range(min(steps, 30)):
        page.keyboard.press("ArrowRight")
        boards.append(page.evaluate("document.getElementById('board').textContent"))
    page.click("#last")
    texts["status"] = page.inner_text("p.status")
    texts["last"] = page.evaluate("document.getElementById('board').textContent")
    texts["boards"] = boards
    return texts


def test_a_game_without_a_page_replays_as_its_own_page_shows_it(base_url: str, page: Any) -> None:
    found = records()
    for number, record in enumerate(found, 1):
        short = record["key"][:12]
        if number - 1 == OWN:
            continue
        page.goto(f"{base_url}full/games/{short}.html")
        own = shown(page)
        page.goto(f"{base_url}sparse/entries/{record['seats'][0]['entry']}.html")
        page.click(f'a[href="../replay.html?game={short}"] >> nth=0')
        assert page.url.endswith(f"/sparse/replay.html?game={short}")
        replayed = shown(page)
        for key in ("title", "result", "seats", "moves", "play", "commands", "facts", "status"):
            assert replayed[key] == own[key], f"game {number}: the replay page's {key}"
        rules = frames(replay(record))
        assert replayed["boards"] == own["boards"] == rules[: len(own["boards"])]
        assert replayed["last"] == rules[-1]
        assert page.title().startswith(f"Game {number} ·")


def test_the_published_records_hold_every_game_without_a_page(base_url: str) -> None:
    import gzip
    import urllib.request

    found = records()
    want = {r["key"]: n for n, r in enumerate(found, 1) if n - 1 != OWN}
    data = json.loads(
        urllib.request.urlopen(f"{base_url}sparse/replay.html")
        .read()
        .decode()
        .split('<script type="application/json" id="replay-season">')[1]
        .split("</script>")[0]
    )
    digits = int(data["records"].split("{key:")[1].split("}")[0])
    held: dict[str, int] = {}
    for key in want:
        url = f"{base_url}sparse/" + data["records"].replace(f"{{key:{digits}}}", key[:digits])
        for line in gzip.decompress(urllib.request.urlopen(url).read()).splitlines():
            number, seed, record = json.loads(line)
            held[record["key"]] = number
            assert record in found and seed == str(record["seed"])
    assert held == want, "each game without a page, under its number, and no other"


def test_the_replay_page_says_why_it_shows_nothing(browser: Any, base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{base_url}sparse/replay.html")
        assert "replays the game its address names" in page.inner_text("#loading")
        page.goto(f"{base_url}sparse/replay.html?game=0123456789ab")
        page.wait_for_function("!document.getElementById('loading').textContent.includes('Fetch')")
        assert "cannot be replayed here" in page.inner_text("#loading")
        assert page.is_hidden("#replay-game")
    finally:
        context.close()
