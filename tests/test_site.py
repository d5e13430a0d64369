"""The results site: golden output, escaping, pages without JavaScript, replay data, page budget.

Two fixture seasons: Snakes (tests/fixtures/site/) and Cluster (tests/fixtures/site_cluster/).
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import json
import random
import re
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import escape

from runner.cli.main import main
from runner.games import find_game
from runner.games.cluster import Cluster, Place, Rotate, valid_columns
from runner.games.snakes import MOVES, Snakes, SnakesState, frame_changes
from runner.rank import ratings
from runner.rank.ratings import results_from_records, superiority
from runner.season import results
from runner.season.config import ConfigError, load_config
from runner.site.frames import (
    ALPHABET,
    MOVE_SHOWN,
    Replay,
    backward,
    board_html,
    diff,
    digits_for,
    encode_edits,
    encode_numbers,
    frames,
    move_list_html,
    page_data,
    presentation,
    replay,
    shown_move,
    text_log,
)
from runner.site.pages import KEYS
from runner.site.render import (
    MARKER,
    EntryInfo,
    SiteError,
    default_speed,
    percent,
    play_command,
    read_standings,
    render_site,
    rules_html,
    rules_path,
)

HERE = Path(__file__).parent
SEED_FRAMES = HERE / "data" / "snakes_seed_frames.txt"
PAGE_BUDGET = 64 * 1024


def load_regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_golden_site", HERE / "regen_golden_site.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = load_regen()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out: Path = tmp_path_factory.mktemp("site") / "site"
    regen.render_fixture(out)
    return out


@pytest.fixture(scope="module")
def cluster_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out: Path = tmp_path_factory.mktemp("cluster") / "site"
    regen.render_cluster_fixture(out)
    return out


def engine_frames(record: dict[str, Any]) -> tuple[list[str], list[tuple[int, ...]]]:
    """Every frame and every frame's scores, straight from the engine (the test's oracle)."""
    game = find_game(record["game"]).rules
    state = game.initial_state(random.Random(record["seed"]), len(record["seats"]), {})
    shown, scores = [game.render_text(state)], [tuple(int(s) for s in game.scores(state))]
    for text in record["moves"]:  # Snakes: a string of moves; other games: a list
        seat = game.to_move(state)[0]
        state = game.apply(state, {seat: game.parse_move(seat, text)})
        shown.append(game.render_text(state))
        scores.append(tuple(int(s) for s in game.scores(state)))
    return shown, scores


def final_frame(record: dict[str, Any]) -> str:
    return engine_frames(record)[0][-1]


def all_records() -> list[dict[str, Any]]:
    return [*regen.load_fixture()[0], *regen.load_cluster_fixture()[0]]


def pages(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


# -- golden ----------------------------------------------------------------------------------


def same_files(site: Path, golden: Path) -> None:
    name = golden.relative_to(HERE).as_posix()
    # KEYS names the renderer's sources (runner/site/pages.py): it changes with any edit
    made = sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file() and p.name != KEYS
    )
    stored = sorted(p.relative_to(golden).as_posix() for p in golden.rglob("*") if p.is_file())
    hint = "run python tests/regen_golden_site.py and review the diff"
    assert made == stored, f"the site's files differ from {name}/: {hint}"
    changed = [n for n in made if (site / n).read_bytes() != (golden / n).read_bytes()]
    assert not changed, f"these pages differ from {name}/: {changed}; {hint}"


def test_the_fixture_site_matches_the_golden_folder_byte_for_byte(site: Path) -> None:
    same_files(site, regen.GOLDEN)


def test_the_cluster_fixture_site_matches_its_golden_folder_byte_for_byte(
    cluster_site: Path,
) -> None:
    same_files(cluster_site, regen.CLUSTER_GOLDEN)


@pytest.mark.parametrize("which", ["snakes", "cluster"])
def test_the_fixture_records_are_what_the_engine_plays(which: str) -> None:
    if which == "snakes":
        (records, doc), folder = regen.make_fixture(), regen.FIXTURE
        stored = regen.load_fixture()[0]
    else:
        (records, doc), folder = regen.make_cluster_fixture(), regen.CLUSTER_FIXTURE
        stored = regen.load_cluster_fixture()[0]
    strip = [{k: v for k, v in r.items() if k != "host_version"} for r in records]
    assert strip == [{k: v for k, v in r.items() if k != "host_version"} for r in stored], (
        "replaying the fixture's games gives other records: run "
        "python tests/regen_golden_site.py --fixture if the rules changed on purpose"
    )
    assert doc == json.loads((folder / "standings.json").read_text())


def test_rendering_twice_gives_the_same_bytes(site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    regen.render_fixture(again)
    for page in pages(site):
        assert (again / page.relative_to(site)).read_bytes() == page.read_bytes()


# -- escaping untrusted text -----------------------------------------------------------------


def test_untrusted_names_authors_messages_and_sources_are_escaped(site: Path) -> None:
    everything = {p.relative_to(site).as_posix(): p.read_text() for p in pages(site)}
    for name, text in everything.items():
        assert "<script>alert" not in text, f"{name}: a bot's <script> reached the page raw"
        assert "<img src=x" not in text, f"{name}: an author's <img> reached the page raw"
        assert "<b>bold" not in text and "<segfault>" not in text, f"{name}: raw markup"
        scripts = re.findall(r"<script\b[^>]*>", text)
        expected = (
            [
                '<script type="application/json" id="replay-data">',
                '<script src="../static/replay.js">',
            ]
            if name.startswith("games/")
            else ['<script src="static/table.js">']
            if name in ("index.html", "games.html")
            else []
        )
        assert scripts == expected, f"{name}: unexpected script tags {scripts}"
    index = everything["index.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert "Mallory &lt;img src=x onerror=alert(2)&gt; &amp; friends" in index
    drunk = everything["entries/drunk.html"]
    assert "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;" in drunk
    assert "0 &lt;= i &amp;&amp; i &lt; 4" in drunk, "the source is shown, escaped"
    broken = everything["entries/broken.html"]
    assert "&lt;script&gt;alert(&#39;build&#39;)&lt;/script&gt;" in broken


def test_every_entry_has_a_badge_with_its_place_of_the_leaderboard(site: Path) -> None:
    """badges/<entry>.json in the endpoint format of shields-style services: the place the
    leaderboard gives the entry (and its rating), or "excluded"."""
    standings = json.loads((site / "standings.json").read_text())
    rows = standings["entries"]
    ranked = [r for r in rows if r.get("excluded") is None]
    assert {p.name for p in (site / "badges").iterdir()} == {f"{r['entry']}.json" for r in rows}
    for row in rows:
        badge = json.loads((site / "badges" / f"{row['entry']}.json").read_text())
        assert badge["schemaVersion"] == 1 and badge["label"].startswith("Snakes")
        if row.get("excluded") is not None:
            assert badge["message"] == "excluded"
            continue
        place = {1: "1st", 2: "2nd", 3: "3rd"}[row["rank"]]
        assert badge["message"].startswith(f"{place} of {len(ranked)} · "), badge


def test_a_badge_is_named_by_the_entrys_page_name(tmp_path: Path) -> None:
    from runner.rank.standings import Row
    from runner.site import badges
    from runner.site.render import slug

    hostile = Row("../../index", "x", "h", rank=1)
    badges.write(tmp_path, [hostile], "Snakes", {}, slug)
    (made,) = (tmp_path / "badges").iterdir()
    assert made.name == f"{slug(hostile.entry)}.json" and made.name.startswith("entry-")
    assert json.loads(made.read_text())["message"] == "1st of 1", "no rating: the place alone"


def test_the_replay_json_cannot_close_its_script_block(site: Path, cluster_site: Path) -> None:
    for page in pages(site / "games") + pages(cluster_site / "games"):
        text = page.read_text()
        block = text.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
        assert "<" not in block and ">" not in block
        json.loads(block)


# -- pages without JavaScript ----------------------------------------------------------------


def test_a_game_page_shows_the_final_frame_and_the_moves_without_javascript(site: Path) -> None:
    records, _, _ = regen.load_fixture()
    for record in records:
        text = (site / "games" / f"{record['key'][:12]}.html").read_text()
        board = re.search(r'<pre class="board" id="board">(.*?)</pre>', text, re.S)
        assert board is not None
        assert plain(board.group(1)) == final_frame(record), "the server-side final frame"
        moves = re.findall(r"<li>([LRUD ]+)</li>", text)
        assert "".join(moves).replace(" ", "") == record["moves"]
        assert 'id="player" class="player" hidden' in text, "the player is hidden until JS runs"
        assert html.escape(record["outcome"]["detail"], quote=False) in text


def test_a_cluster_game_page_shows_the_final_frame_and_numbered_moves(cluster_site: Path) -> None:
    records, _, _ = regen.load_cluster_fixture()
    assert any("ROTATE" in " ".join(r["moves"]) for r in records), "the fixture rotates"
    for record in records:
        text = (cluster_site / "games" / f"{record['key'][:12]}.html").read_text()
        board = re.search(r'<pre class="board dim" id="board">(.*?)</pre>', text, re.S)
        assert board is not None
        assert plain(board.group(1)) == final_frame(record), "the server-side final frame"
        lines = board.group(1).split("\n")
        assert len(lines) == 48 and "<span" not in lines[0] + lines[1] + lines[-1]
        assert re.search(r'<span class="(blue|blue2|red|red2)">[BbRr]+</span>', board.group(1))
        seats = ("Blue", "Red")
        items = [html.unescape(m) for m in re.findall(r"<li>([^<]*)</li>", text)]
        assert items == [f"{seats[i % 2]} {move}" for i, move in enumerate(record["moves"])]
        assert '<ol class="moves numbered" id="moves">' in text
        assert "One line per move: the seat, then its move." in text
        blue, red = record["outcome"]["scores"]
        names = [regen.CLUSTER_BOTS[seat["entry"]][0] for seat in record["seats"]]
        assert (
            f'longest line: <span class="blue">Blue</span> {html.escape(names[0])}: '
            f'<span id="score0">{blue}</span> · <span class="red">Red</span> '
            f'{html.escape(names[1])}: <span id="score1">{red}</span></p>'
        ) in text
        assert "<th>Longest line</th>" in text and '<span class="blue">Blue</span>' in text
        assert 'id="player" class="player" hidden' in text, "the player is hidden until JS runs"
        assert f'max="{len(record["moves"])}"' in text


def test_a_cluster_game_pages_status_names_the_turn_its_board_names() -> None:
    """Cluster's frame names the turn to be played ("turn 2: Blue to move", "turn 9: game
    over"): the status line above it says the same turn, at every step and at the end."""
    records, _, _ = regen.load_cluster_fixture()
    for record in records:
        rep = replay(record)
        for frame, turn in zip(frames(rep), rep.turns, strict=True):
            shown = re.search(r"turn +(\d+):", frame)
            assert shown is not None, "every Cluster frame names a turn"
            assert turn == int(shown.group(1)), f"status turn {turn}, board {shown.group(0)}"


def test_a_cluster_game_page_outlines_the_winning_line_and_explains_the_symbols(
    cluster_site: Path,
) -> None:
    records, _, _ = regen.load_cluster_fixture()
    for record in records:
        text = (cluster_site / "games" / f"{record['key'][:12]}.html").read_text()
        board = text.split('id="board">', 1)[1].split("</pre>", 1)[0]
        won = re.findall(r'<span class="(blue|blue2|red|red2) win">([BbRr])</span>', board)
        winner = record["outcome"]["points"].index(1.0)
        assert len(won) == max(record["outcome"]["scores"]) == 4, "the four pellets in a row"
        assert {cls.startswith(("blue", "red")[winner]) for cls, _ in won} == {True}
        assert len({symbol for _, symbol in won}) == 1, "a line of one colour"
        legend = plain(text.split('<p class="legend">', 1)[1].split("</p>", 1)[0])
        for words in ("B Blue's first colour", "b Blue's second colour", "r Red's second"):
            assert words in legend, f"the legend says {words!r}"
        assert "a line of 4 or more: it wins" in legend


def test_a_game_without_a_presentation_gets_the_plain_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace as replaced

    from runner.games import GAMES
    from runner.games.spec import Presentation

    monkeypatch.setitem(
        GAMES, "cluster-v2", replaced(GAMES["cluster-v2"], presentation=Presentation())
    )
    records, doc, infos = regen.load_cluster_fixture()
    render_site(records, doc, infos, tmp_path / "site")
    text = (tmp_path / "site" / "games" / f"{records[0]['key'][:12]}.html").read_text()
    board = re.search(r'<pre class="board" id="board">(.*?)</pre>', text, re.S)
    assert board is not None and "<span" not in board.group(1)
    assert plain(board.group(1)) == final_frame(records[0])
    assert "<th>Score</th>" in text and re.search("· score: Blue [^<]*: <span", text)
    assert '<ol class="moves numbered" id="moves">' in text


def test_the_leaderboard_lists_every_entry_with_its_rating(site: Path) -> None:
    _, doc, _ = regen.load_fixture()
    index = (site / "index.html").read_text()
    for row in doc["entries"]:
        assert f"<code>{row['entry']}</code>" in index
        assert f'href="entries/{row["entry"]}.html"' in index
    assert re.search(r"\d{3,4} <span class=\"pm\">± \d+</span>", index)
    assert "≈ tied" not in index and "likelihood of superiority" in index
    assert "ties broken by head-to-head points" in index, "not 'ties broken by points, then'"
    for fact in ("snakes-v2", "round-robin", str(regen.SEASON_SEED), "2025-01-18 12:05 UTC"):
        assert fact in index, f"the season facts should include {fact}"


@pytest.mark.parametrize("which", ["snakes", "cluster"])
def test_the_leaderboard_gives_each_bots_likelihood_of_superiority_over_the_next(
    which: str, tmp_path: Path
) -> None:
    records, doc, infos = (
        regen.load_fixture() if which == "snakes" else regen.load_cluster_fixture()
    )
    render_site(records, doc, infos, tmp_path / "site")
    ranked = [row["entry"] for row in doc["entries"] if row.get("excluded") is None]
    los = superiority(results_from_records(records), ranked)
    index = (tmp_path / "site" / "index.html").read_text()
    rows = re.findall(
        r"<tr>\n(.*?)</tr>", index.split('<table class="leaderboard" data-sortable')[1], re.S
    )
    assert len(rows) == len(ranked)
    for k, row in enumerate(rows):
        last = re.findall(r"<td[^>]*>(.*?)</td>", row)[-1]
        if k + 1 == len(ranked):
            assert last == "", "the last bot has no one below it"
        else:
            assert plain(last) == percent(los[ranked[k], ranked[k + 1]]), f"row {k + 1}'s LOS"
    matrix = (tmp_path / "site" / "los.html").read_text()
    cells = re.findall(
        r'<td style="background:hsl\(\d+,65%,\d+%\)" title="[^"]*">([^<]*)</td>', matrix
    )
    expected = [html.escape(percent(los[a, b])) for a in ranked for b in ranked if a != b]
    assert cells == expected, "the LOS matrix: every ordered pair, in rank order"
    assert '<a href="los.html">every pair</a>' in index


def test_the_site_shows_the_ratings_the_standings_fitted_and_fits_none_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records, doc, infos = regen.load_fixture()
    ranked = [row["entry"] for row in doc["entries"] if row.get("excluded") is None]
    section = ratings.of_records(records, ranked)
    section["entries"]["greedy"] = [1717.25, 1601.0, 1833.5, 4]  # not what a fit gives
    section["next"][0] = 0.75

    def no_fit(*_: Any, **__: Any) -> None:
        raise AssertionError("the site fitted the ratings standings.json holds")

    monkeypatch.setattr(ratings, "fitted", no_fit)
    render_site(records, {**doc, "ratings": section}, infos, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert '1717 <span class="pm">± 116</span>' in index
    assert ">75%</span>" in index, "the LOS of the first bot over the second, as written"
    greedy = (tmp_path / "site" / "entries" / "greedy.html").read_text()
    assert "<dd>1717 (95%: 1601 to 1834)</dd>" in greedy


def test_the_records_and_standings_are_published_beside_the_pages(site: Path) -> None:
    records, doc, _ = regen.load_fixture()
    assert results.read_records(site / "games.jsonl")[0] == records, "the records shown"
    assert json.loads((site / "standings.json").read_text()) == doc
    for page in pages(site):
        root = "../" * (len(page.relative_to(site).parts) - 1)
        text = page.read_text()
        assert f'<a href="{root}games.jsonl" download>games.jsonl</a>' in text, page.name
        assert f'<a href="{root}standings.json" download>standings.json</a>' in text


def test_percentages_never_claim_certainty() -> None:
    found = [percent(p) for p in (0.0, 0.004, 0.005, 0.5, 0.994, 0.995, 0.996, 1.0)]
    assert found == ["<1%", "<1%", "<1%", "50%", "99%", ">99%", ">99%", ">99%"]


def test_a_game_page_links_its_neighbours_and_the_command_that_plays_it_again(
    site: Path,
) -> None:
    records, _, _ = regen.load_fixture()
    names = [f"{r['key'][:12]}.html" for r in records]
    for number, record in enumerate(records):
        text = (site / "games" / names[number]).read_text()
        if number > 0:
            assert f'<a href="{names[number - 1]}" rel="prev">← Game {number}</a>' in text
        else:
            assert 'rel="prev"' not in text and "← first game" in text
        if number + 1 < len(records):
            assert f'<a href="{names[number + 1]}" rel="next">Game {number + 2} →</a>' in text
        else:
            assert 'rel="next"' not in text and "last game →" in text
        seats = " ".join(s["entry"] for s in record["seats"])
        command = f"koth play {seats} --seed {record['seed']}"
        assert f'<code id="play-again">{command}</code>' in text
        assert play_command(record) == command
        assert f'<option value="{default_speed(len(record["moves"]))}" selected>' in text


def test_the_play_command_names_the_setup_and_a_configuration_not_the_default() -> None:
    record = {"seats": [{"entry": "a b"}, {"entry": "c"}], "seed": 5, "setup": {"name": "maze"}}
    assert (
        play_command(record, "examples/x/tournament.yaml")
        == "koth play 'a b' c --seed 5 --setup maze --config examples/x/tournament.yaml"
    )


def test_the_default_speed_plays_the_whole_game_in_a_few_seconds() -> None:
    assert [default_speed(n) for n in (0, 42, 64, 65, 300, 1024, 1025, 2048)] == [
        4,
        4,
        4,
        16,
        64,
        64,
        256,
        256,
    ]


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        for key in ("href", "src"):
            if found.get(key):
                self.links.append(str(found[key]))


def test_every_link_leads_to_a_page_and_anchor_that_exist(site: Path) -> None:
    parsed: dict[Path, Links] = {}
    for page in pages(site):
        parsed[page] = Links()
        parsed[page].feed(page.read_text())
    checked = 0
    for page, links in parsed.items():
        for link in links.links:
            if link.startswith("data:"):
                continue
            target, _, anchor = link.partition("#")
            path = (page.parent / target).resolve() if target else page
            assert path.is_file(), f"{page.relative_to(site)} links to missing {link}"
            if anchor:
                assert anchor in parsed[path].ids, f"{page.relative_to(site)}: no #{anchor}"
            checked += 1
    assert checked > 50


@pytest.mark.parametrize(("fixture", "document"), [("site", "snakes"), ("cluster_site", "cluster")])
def test_every_page_links_the_rules_page_of_the_seasons_game(
    fixture: str, document: str, request: pytest.FixtureRequest
) -> None:
    folder: Path = request.getfixturevalue(fixture)
    for page in pages(folder):
        root = "../" * (len(page.relative_to(folder).parts) - 1)
        assert f'<a href="{root}rules.html"' in page.read_text(), f"{page.name} links the rules"
    rules = (folder / "rules.html").read_text()
    assert '<a href="rules.html" aria-current="page">Rules</a>' in rules
    source = (HERE.parent / "runner" / "games" / document / "rules.md").read_text()
    title = source.split("\n", 1)[0].removeprefix("# ")
    assert f"<h1>{html.escape(title, quote=False)}</h1>" in rules, "the rules document, as HTML"
    assert "<table>" in rules and "<pre><code>" in rules, "tables and code blocks are rendered"
    assert f"runner/games/{document}/rules.md" in rules, "the page names its source"


@pytest.mark.parametrize(
    ("fixture", "title", "sources"),
    [
        ("site", "Snakes (round 1)", ["bot.c"]),
        ("cluster_site", "Cluster", ["bot.c", "bot.cpp", "bot.py"]),
    ],
)
def test_every_page_has_a_header_naming_the_game_and_how_to_add_a_bot(
    fixture: str, title: str, sources: list[str], request: pytest.FixtureRequest
) -> None:
    folder: Path = request.getfixturevalue(fixture)
    for page in pages(folder):
        root = "../" * (len(page.relative_to(folder).parts) - 1)
        text = page.read_text()
        header = text.split('<header class="site">', 1)[1].split("</header>", 1)[0]
        assert f'<a class="brand" href="{root}index.html">{title}</a>' in header, page.name
        assert f'<a href="{root}enter.html"' in header and ">Add your bot</a>" in header
        assert "Repository" not in header, f"{page.name}: a repository link nobody configured"
    enter = plain((folder / "enter.html").read_text())
    assert "entries/name/" in enter and "entry.yaml" in enter and "pull request" in enter
    assert all(source in enter for source in sources), f"the page names {sources}"
    assert "koth play name " in enter, "how to try the bot first"


def test_a_configured_repository_is_linked_from_every_page(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("site:\n  repository: https://example.org/koth/season\n")
    repository = load_config(tmp_path / "t.yaml").site.repository
    assert repository == "https://example.org/koth/season"
    records, doc, infos = regen.load_fixture()
    render_site(records, doc, infos, tmp_path / "out", repository=repository)
    for page in pages(tmp_path / "out"):
        link = f'<a href="{repository}" rel="external">Repository</a>'
        assert link in page.read_text(), f"{page.name} links the repository"
    assert f'<a href="{repository}">the season' in (tmp_path / "out" / "enter.html").read_text()
    for wrong in ("javascript:alert(1)", "http://example.org/x", "https://a b"):
        (tmp_path / "t.yaml").write_text(f"site:\n  repository: {json.dumps(wrong)}\n")
        with pytest.raises(ConfigError, match=r"site\.repository.*https:// address"):
            load_config(tmp_path / "t.yaml")


def test_rules_markdown_is_rendered_with_raw_html_escaped_and_unsafe_links_dropped() -> None:
    text = (
        "# Rules <script>alert(1)</script>\n\n"
        '<img src=x onerror="alert(2)">\n\n'
        "[click](javascript:alert(3)) and [fine](https://example.org/rules)\n\n"
        "| a | b |\n|---|---|\n| `<b>` | 1 |\n"
    )
    out = str(rules_html(text))
    assert "<script>" not in out and "&lt;script&gt;" in out, "raw HTML is shown, not obeyed"
    assert "<img" not in out and "&lt;img" in out
    assert "javascript:" not in out.replace("[click](javascript:alert(3))", "")
    assert 'href="javascript' not in out, "an unsafe link target is not made a link"
    assert '<a href="https://example.org/rules">fine</a>' in out
    assert "<td><code>&lt;b&gt;</code></td>" in out, "tables render; code in them is escaped"


def test_the_rules_document_is_the_one_the_games_package_ships() -> None:
    assert rules_path("snakes-v2") == find_game("snakes-v2").rules_doc
    document = rules_path("snakes-v2")
    assert document is not None and document.is_file()
    assert rules_path("snakes-v1") is None, "a retired id has no rules page"
    assert rules_path("../snakes-v2") is None, "a record's game id names no path"
    assert rules_path("") is None


def test_a_season_of_a_game_without_rules_has_no_rules_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runner.site.render.rules_path", lambda game_id: None)
    records, doc, infos = regen.load_fixture()
    render_site(records, doc, infos, tmp_path / "out")
    assert not (tmp_path / "out" / "rules.html").exists()
    assert "rules.html" not in (tmp_path / "out" / "index.html").read_text()


def test_cross_table_cells_are_colour_scaled_and_link_to_the_pair_games(site: Path) -> None:
    text = (site / "crosstable.html").read_text()
    cells = re.findall(r'<td style="background:hsl\((\d+),65%,(\d+)%\)"><a href="([^"]+)"', text)
    assert len(cells) == 6, "three playing entries: six ordered pairs"
    assert {href.split("#")[1].startswith("vs-") for *_, href in cells} == {True}
    hues = {int(h) for h, *_ in cells}
    assert min(hues) == 5 and max(hues) == 135, "a sweep is red one way and green the other"


def test_entry_pages_show_faults_verdicts_and_games(site: Path) -> None:
    crasher = (site / "entries" / "crasher.html").read_text()
    assert crasher.count("killed by SIGSEGV") >= 4, "two faults, listed with their games"
    assert 'id="vs-drunk"' in crasher and 'id="vs-greedy"' in crasher
    broken = (site / "entries" / "broken.html").read_text()
    assert "Excluded from the season" in broken and "expected &#39;;&#39;" in broken


# -- replay data -----------------------------------------------------------------------------


def decode(data: dict[str, Any], final: str) -> tuple[list[str], list[list[int]]]:
    """What replay.js rebuilds from a page's data and its board (``final``, the page's final
    frame): every frame, going backwards, and every frame's numbers."""
    text, digits = data["changes"], data["digits"]
    assert len(final) == data["finalLength"]

    def number(p: int) -> int:
        return sum(ALPHABET.index(text[p + i]) << 6 * (digits - 1 - i) for i in range(digits))

    steps: list[list[tuple[int, int, str]]] = [[]] if data["steps"] else []
    p = 0
    while p < len(text):
        if text[p] == ",":
            steps.append([])
            p += 1
        elif text[p] == "~":
            at, removed, length = (number(p + 1 + k * digits) for k in range(3))
            start = p + 1 + 3 * digits
            steps[-1].append((at, removed, text[start : start + length]))
            p = start + length
        else:
            steps[-1].append((number(p), 1, text[p + digits]))
            p += digits + 1
    assert len(steps) == data["steps"], "one list of edits a step"
    shown = [final]
    for edits in reversed(steps):
        frame = shown[0]
        for at, removed, inserted in edits:
            frame = frame[:at] + inserted + frame[at + removed :]
        shown.insert(0, frame)
    rows, row = [], [0] * (data["seats"] + 1)
    change: list[str] = []
    for entry in data["numbers"].split(","):
        row = row.copy()
        if entry != "=":  # "=": the change of the frame before, again
            change = entry.split(" ") if entry else []
        for k, d in enumerate(change):
            row[k] += int(d)
        rows.append(row)
    return shown, rows


def test_the_compact_replay_rebuilds_every_frame_the_engine_played() -> None:
    for record in all_records():
        rep = replay(record)
        expected, scores = engine_frames(record)
        assert frames(rep) == expected
        assert rep.final == expected[-1]
        assert list(rep.final_scores) == record["outcome"]["scores"]
        assert text_log(rep) == "\n\n".join(expected) + "\n"
        data = page_data(rep, presentation(record["game"]), "log.txt")
        shown, rows = decode(data, rep.final)
        assert shown == expected, "the page's data rebuilds every frame"
        assert [tuple(r[1:]) for r in rows] == scores, "and every frame's scores"
        turns = [r[0] for r in rows]
        if find_game(record["game"]).presentation.frame_turn_to_play:  # Cluster: the board's
            assert turns == [int(re.findall(r"turn +(\d+):", f)[0]) for f in expected]
        else:  # Snakes: the turn of the last move
            assert turns == [0] + [(k + 1) // 2 for k in range(1, len(expected))]
        assert data["steps"] == len(record["moves"])


def test_the_text_diff_is_runs_of_changed_characters_or_one_splice() -> None:
    assert diff("abcdef", "abcdef") == []
    assert diff("a.c.ef", "aXcYZf") == [(1, 1, "X"), (3, 2, "YZ")]
    assert diff("turn 9: Blue", "turn 10: Red") == [(5, 7, "10: Red")]
    assert diff("abc", "") == [(0, 3, "")] and diff("", "ab") == [(0, 0, "ab")]
    assert encode_edits([[(1, 1, "X"), (3, 2, "YZ")], []], 2) == "01X03Y04Z,"
    assert encode_edits([[(64, 7, "abcdefg")]], 2) == "~10070" + "7abcdefg"
    assert digits_for(63) == 1 and digits_for(64) == 2 and digits_for(4096) == 3
    assert encode_numbers([(0, 1, 1), (1, 2, 1), (1, 2, 1), (1, 2, 4)]) == "0 1 1,1 1,,0 0 3"


frame_text = st.text(alphabet="ab.,~\n<&é0", max_size=90)


@given(st.text(alphabet="ab.\n", max_size=300), st.data())
def test_the_text_diff_of_frames_of_one_length_finds_every_changed_character(
    before: str, data: st.DataObject
) -> None:
    """ASCII frames are compared as bytes, others character by character: either way the edits
    are the runs of changed characters, and nothing else."""
    alphabet = data.draw(st.sampled_from(["ab.\n", "ab.é"]))
    after = "".join(data.draw(st.sampled_from([c, *alphabet])) for c in before)
    edits = diff(before, after)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert [i for offset, n, _ in edits for i in range(offset, offset + n)] == changed
    assert all(removed == len(text) for _, removed, text in edits)
    assert all(a[0] + a[1] < b[0] for a, b in zip(edits, edits[1:], strict=False))
    rebuilt = before
    for offset, removed, text in edits:
        rebuilt = rebuilt[:offset] + text + rebuilt[offset + removed :]
    assert rebuilt == after


@given(st.lists(frame_text, min_size=1, max_size=6), st.sampled_from([0, 5000]))
def test_the_encoded_edits_rebuild_any_frames(texts: list[str], pad: int) -> None:
    texts = [t + "." * pad for t in texts]  # long frames need 3 digits per offset
    edits = tuple(tuple(diff(a, b)) for a, b in zip(texts, texts[1:], strict=False))
    rep = Replay(
        "unknown-v1",
        ("A", "B"),
        texts[0],
        (),
        edits,
        tuple(range(len(texts))),
        tuple((k, -k) for k in range(len(texts))),
        texts[-1],
        max(map(len, texts)),
    )
    data = page_data(rep, presentation(rep.game), "log.txt")
    data["steps"] = len(edits)
    shown, rows = decode(data, texts[-1])
    assert shown == texts
    assert rows == [[k, k, -k] for k in range(len(texts))]


def test_the_first_frame_is_the_seed_format() -> None:
    rep = replay({"game": "snakes-v2", "seed": 1, "moves": "", "seats": [{}, {}], "outcome": {}})
    first = frames(rep)[0]
    assert len(first.split("\n")) == 16 and {len(r) for r in first.split("\n")} == {32}
    # The challenge's first frame, whose last row (holding '@') was mangled in its published copy.
    head = "\n".join(first.split("\n")[:15])
    assert f"\n\n{head}\n?\n\n" in SEED_FRAMES.read_text(), "the first frame the challenge shows"
    assert first.endswith("\n" + "." * 31 + "@")


def test_board_html_keeps_the_text_and_marks_owners() -> None:
    frame = "X*..\n.O@O"
    markup = str(board_html(frame, presentation("snakes-v2")))
    assert plain(markup) == frame
    assert '<span class="x">X</span><span class="xh">*</span>..' in markup
    assert '<span class="o">O</span><span class="oh">@</span><span class="o">O</span>' in markup
    cluster = "Blue b\nRed r\nBb.r\nRb 1"  # only the board: not the status nor the ruler
    markup = str(board_html(cluster, presentation("cluster-v2")))
    assert markup == (
        'Blue b\nRed r\n<span class="blue">B</span><span class="blue2">b</span>.'
        '<span class="red2">r</span>\nRb 1'
    )
    assert str(board_html("<&>", presentation("unknown-v1"))) == "&lt;&amp;&gt;"


def spans_one_place_at_a_time(
    frame: str, classes: dict[str, str], layer: str, layer_classes: dict[str, str]
) -> str:
    """board_html's markup, the plain way: each place's class (the layer's first, else its
    symbol's), one span a run of one class, the text escaped."""
    shading = layer.split("\n")
    lines = []
    for y, line in enumerate(frame.split("\n")):
        over = shading[y] if y < len(shading) else ""
        runs: list[list[str]] = []  # [class, text]
        for x, ch in enumerate(line):
            cls = (layer_classes.get(over[x], "") if x < len(over) else "") or classes.get(ch, "")
            if runs and runs[-1][0] == cls:
                runs[-1][1] += ch
            else:
                runs.append([cls, ch])
        lines.append(
            "".join(
                f'<span class="{c}">{html.escape(t, quote=True)}</span>'
                if c
                else html.escape(t, quote=True)
                for c, t in runs
            )
        )
    return "\n".join(lines).replace("&#x27;", "&#39;").replace("&quot;", "&#34;")


@given(
    st.text(alphabet="ab.<&'\"\n", max_size=60),
    st.text(alphabet="xy.\n", max_size=60),
    st.booleans(),
)
def test_board_html_is_a_span_per_run_of_one_class(frame: str, layer: str, layered: bool) -> None:
    classes = {"a": "red", "b": "blue", "<": "red"}
    layer_classes = {"x": "bomb", "y": "red"} if layered else {}
    show = dataclasses.replace(
        presentation("unknown-v1"), classes=classes, layer_classes=layer_classes
    )
    markup = str(board_html(frame, show, layer))
    assert markup == spans_one_place_at_a_time(frame, classes, layer, layer_classes)
    assert html.unescape(re.sub(r"<[^>]*>", "", markup)) == frame


def changes_row_by_row(rows: list[tuple[int, ...]]) -> str:
    """encode_numbers' string, the plain way: each row's change from the one before (from
    zeros), trailing zeros left out; "=" where a change of two numbers or more repeats."""
    out, previous, last = [], (0,) * (len(rows[0]) if rows else 0), None
    for row in rows:
        delta = [a - b for a, b in zip(row, previous, strict=True)]
        while delta and not delta[-1]:
            delta.pop()
        out.append("=" if delta == last and len(delta) > 1 else " ".join(map(str, delta)))
        previous, last = row, delta
    return ",".join(out)


@given(st.integers(0, 4).flatmap(lambda w: st.lists(st.tuples(*[st.integers(-3, 3)] * w))))
def test_the_numbers_string_is_each_rows_change(rows: list[tuple[int, ...]]) -> None:
    assert encode_numbers(rows) == changes_row_by_row(rows)


def test_the_numbers_string_refuses_rows_of_other_lengths() -> None:
    with pytest.raises(ValueError, match="a row of 2 numbers among rows of 3"):
        encode_numbers([(0, 1, 2), (1, 2)])


def full_length_records(count: int) -> list[dict[str, Any]]:
    """Games of uniform random movers: as many moves and changes as real games have."""
    made: list[dict[str, Any]] = []
    seed = 0
    game = Snakes()
    while len(made) < count:
        seed += 1
        rng = random.Random(seed)
        state = game.initial_state(rng)
        moves = []
        while game.to_move(state):
            move = rng.choice(MOVES)
            state = game.apply(state, {game.to_move(state)[0]: move})
            moves.append(move)
        outcome = game.outcome(state)
        assert outcome is not None
        if len(moves) < 2048 and len(made) < count // 2:
            continue  # at least half of them play all 2048 moves
        seats = [{"entry": "aa", "hash": "", "name": "A"}, {"entry": "bb", "hash": "", "name": "B"}]
        made.append(
            {
                "key": f"{seed:064x}",
                "round": seed,
                "game": "snakes-v2",
                "seed": seed,
                "seats": seats,
                "moves": "".join(moves),
                "outcome": {
                    "points": list(outcome.points),
                    "scores": list(game.scores(state)),
                    "termination": outcome.termination.value,
                    "faulty": None,
                    "detail": outcome.detail,
                },
                "measured": {"when": "2025-01-01T00:00:00Z"},
            }
        )
    return made


def test_replaying_from_the_changed_characters_gives_what_drawing_and_comparing_gives() -> None:
    """Snakes' presentation knows the characters each move changes; its replay (edits both
    ways) is the one found by drawing every frame and comparing it with the one before."""
    for record in full_length_records(6):
        known, compared = replay(record), replay(record, compare=True)
        assert known.undo is not None and compared.undo is None, "each way was taken"
        assert dataclasses.replace(known, undo=None, numbers=None) == compared
        assert backward(known) == backward(compared)
        rows = [(turn, *score) for turn, score in zip(compared.turns, compared.scores, strict=True)]
        assert known.numbers == encode_numbers(rows) and compared.numbers is None


def wrong_changes(
    how: str,
) -> Callable[[SnakesState, SnakesState], list[tuple[int, str, str]]]:
    """Snakes' frame changes, with a change of one step (the first to change a character after
    the fifth move) misreported."""
    done: list[int] = []

    def changes(before: SnakesState, after: SnakesState) -> list[tuple[int, str, str]]:
        found = frame_changes(before, after)
        if before.moves_played < 5 or not found or done:
            return found
        done.append(before.moves_played)
        offset, was, now = found[-1]
        return {
            "left out": found[:-1],
            "wrong before": [*found[:-1], (offset, "?", now)],
            "twice": [*found, found[-1]],
            "off the frame": [*found, (10**6, was, now)],
            "two characters": [*found[:-1], (offset, was, now * 2)],
            "unchanged": [*found[:-1], (offset, was, was)],
        }[how]

    return changes


@pytest.mark.parametrize(
    "how",
    ["left out", "wrong before", "twice", "off the frame", "two characters", "unchanged"],
)
def test_changes_that_do_not_fit_the_frames_are_not_used(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = full_length_records(1)[0]
    compared = replay(record, compare=True)
    spec = find_game("snakes-v2")
    show = dataclasses.replace(
        spec.presentation, frame_changes=wrong_changes(how), replay_steps=None
    )
    monkeypatch.setattr(
        "runner.site.frames.find_game", lambda game: dataclasses.replace(spec, presentation=show)
    )
    assert replay(record) == compared, "the frames drawn and compared, the wrong changes unused"


def test_game_pages_stay_within_the_size_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = full_length_records(6)
    report = render_site(records, None, {}, tmp_path / "site")
    sizes = [p.stat().st_size for p in (tmp_path / "site" / "games").glob("*.html")]
    with capsys.disabled():  # shown in the test output: the budget is 64 KiB on average
        print(
            f"\n[site] game pages of random-mover games (half play all 2048 moves): "
            f"{report.average_game_page / 1024:.1f} KiB on average, "
            f"largest {max(sizes) / 1024:.1f} KiB (budget {PAGE_BUDGET // 1024} KiB)"
        )
    assert report.average_game_page <= PAGE_BUDGET, "game pages are over budget on average"
    assert max(sizes) <= PAGE_BUDGET, "a 2048-move game page is over the 64 KiB budget"


def cluster_records(count: int, rotate: float) -> list[dict[str, Any]]:
    """Cluster games of random movers that rotate the board one move in 1/rotate."""
    game = Cluster()
    made: list[dict[str, Any]] = []
    for seed in range(1, count + 1):
        rng = random.Random(seed)
        state = game.initial_state(random.Random(seed))
        moves = []
        while game.to_move(state):
            move: Place | Rotate = (
                Rotate(rng.randint(1, 5))
                if rng.random() < rotate
                else Place(rng.choice(valid_columns(state)), rng.choice(state.hand))
            )
            state = game.apply(state, {state.mover: move})
            moves.append(game.move_text(move))
        outcome = game.outcome(state)
        assert outcome is not None
        seats = [{"entry": "aa", "hash": "", "name": "A"}, {"entry": "bb", "hash": "", "name": "B"}]
        made.append(
            {
                "key": f"{seed:064x}",
                "round": seed,
                "game": "cluster-v2",
                "seed": seed,
                "seats": seats,
                "moves": moves,
                "outcome": {
                    "points": list(outcome.points),
                    "scores": list(game.scores(state)),
                    "termination": outcome.termination.value,
                    "faulty": None,
                    "detail": outcome.detail,
                },
            }
        )
    return made


def test_cluster_game_pages_stay_within_the_size_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = cluster_records(12, 0.5)
    report = render_site(records, None, {}, tmp_path / "site")
    sizes = [p.stat().st_size for p in (tmp_path / "site" / "games").glob("*.html")]
    moves = sum(len(r["moves"]) for r in records) / len(records)
    with capsys.disabled():
        print(
            f"\n[site] Cluster game pages of random movers rotating half the time "
            f"({moves:.0f} moves on average): {report.average_game_page / 1024:.1f} KiB on "
            f"average, largest {max(sizes) / 1024:.1f} KiB (budget {PAGE_BUDGET // 1024} KiB)"
        )
    assert report.average_game_page <= PAGE_BUDGET and max(sizes) <= PAGE_BUDGET


# -- inputs, folders, the command ------------------------------------------------------------


def test_records_of_old_entry_versions_and_other_seasons_are_left_out() -> None:
    records, doc, _ = regen.load_fixture()
    stale = json.loads(json.dumps(records[0]))
    stale["key"] = "f" * 64
    stale["seats"][0]["hash"] = "0" * 64
    other = json.loads(json.dumps(records[1]))
    other["key"] = "e" * 64
    other["season_seed"] = 1
    _, _, counted = read_standings(doc, [*records, stale, other])
    assert sorted(r["key"] for r in counted) == sorted(r["key"] for r in records)


def test_without_standings_the_records_are_ranked_here(tmp_path: Path) -> None:
    records, _, _ = regen.load_fixture()
    meta, rows, counted = read_standings(None, records)
    assert [r.entry for r in rows][0] == "greedy" and len(counted) == len(records)
    report = render_site(
        records, None, {"greedy": EntryInfo("greedy", author="Ada")}, tmp_path / "s"
    )
    assert report.game_pages == len(records) and set(meta) == {"tie_break"}


def test_a_foreign_folder_is_never_replaced(tmp_path: Path) -> None:
    records, doc, infos = regen.load_fixture()
    foreign = tmp_path / "docs"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="not made by `koth site`"):
        render_site(records, doc, infos, foreign)
    assert (foreign / "notes.txt").read_text() == "mine"
    out = tmp_path / "site"
    render_site(records, doc, infos, out)
    (out / "games" / "stale.html").write_text("old")
    render_site(records, doc, infos, out)
    assert (out / MARKER).is_file() and not (out / "games" / "stale.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "site"], "no temporary left"


def test_the_koth_site_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(regen.FIXTURE, tmp_path, dirs_exist_ok=True)
    (tmp_path / "tournament.yaml").write_text("entries: entries\n")
    assert main(["site", "--config", str(tmp_path / "tournament.yaml")]) == 0
    out = capsys.readouterr().out
    assert "16 pages" in out and "KiB on average" in out
    for page in pages(regen.GOLDEN):
        made = tmp_path / "_site" / page.relative_to(regen.GOLDEN)
        assert made.read_bytes() == page.read_bytes(), f"{made} differs from the golden page"


def test_results_jsonl_is_read_with_the_results_module() -> None:
    records, problems = results.read_records(regen.FIXTURE / "results" / "games.jsonl")
    assert not problems and len(records) == 6


def test_the_move_list_shows_a_long_move_clipped_and_a_short_one_whole() -> None:
    memory = "4 A " + "x" * 1020  # an Easter Egg Hunt move with a memory line of 1 KiB
    shown = shown_move(memory)
    assert len(shown) == MOVE_SHOWN and shown.endswith("…") and memory.startswith(shown[:-1])
    assert shown_move("4 A went 4") == "4 A went 4"


@given(st.lists(st.text(alphabet=st.sampled_from("LR<>&'\"\0 x"), max_size=6), max_size=8))
def test_the_move_list_escapes_its_lines_as_one_by_one(items: list[str]) -> None:
    one_by_one = "".join(f"<li>{escape(item)}</li>\n" for item in items)
    assert str(move_list_html(items)) == one_by_one


@pytest.mark.parametrize(
    ("fixture", "game", "other"),
    [("site", "snakes", "cluster"), ("cluster_site", "cluster", "snakes")],
)
def test_the_stylesheet_carries_the_seasons_game_own_look_and_no_other(
    fixture: str, game: str, other: str, request: pytest.FixtureRequest
) -> None:
    folder: Path = request.getfixturevalue(fixture)
    sheet = (folder / "static" / "site.css").read_text()
    games = HERE.parent / "runner" / "games"
    shared = (HERE.parent / "site_templates" / "static" / "site.css").read_text()
    assert sheet.startswith(shared), "the shared look first"
    assert (games / game / "site.css").read_text() in sheet, f"then {game}'s own"
    assert (games / other / "site.css").read_text() not in sheet, f"and not {other}'s"


def test_koth_site_outside_a_season_says_so_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["site"]) == 2
    said = capsys.readouterr().err
    assert "field `entries`: the entries folder" in said and "does not exist" in said, said
    assert "standings.json not found" not in said, "one message, the one that matters"
    assert list(tmp_path.iterdir()) == [], "no empty site"
