"""The results site: golden output, escaping, pages without JavaScript, replay data, page budget."""

from __future__ import annotations

import html
import importlib.util
import json
import random
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from runner import results
from runner.cli import main
from runner.games.snakes import MOVES, Snakes
from runner.site import (
    MARKER,
    EntryInfo,
    SiteError,
    board_html,
    encode_changes,
    frames,
    read_standings,
    render_site,
    replay,
    text_log,
)

HERE = Path(__file__).parent
SEED_TEXT = HERE.parent.parent / "shared" / "seeds" / "000_6633474fa0ac5b7f.txt"
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


def final_frame(record: dict[str, Any]) -> str:
    game = Snakes()
    state = game.initial_state(random.Random(record["seed"]))
    for move in record["moves"]:
        state = game.apply(state, {game.to_move(state)[0]: move})
    return game.render_text(state)


def pages(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


# -- golden ----------------------------------------------------------------------------------


def test_the_fixture_site_matches_the_golden_folder_byte_for_byte(site: Path) -> None:
    golden = regen.GOLDEN
    made = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    stored = sorted(p.relative_to(golden).as_posix() for p in golden.rglob("*") if p.is_file())
    hint = "run python tests/regen_golden_site.py and review the diff"
    assert made == stored, f"the site's files differ from tests/golden/site/: {hint}"
    changed = [name for name in made if (site / name).read_bytes() != (golden / name).read_bytes()]
    assert not changed, f"these pages differ from tests/golden/site/: {changed}; {hint}"


def test_the_fixture_records_are_what_the_engine_plays() -> None:
    records, doc = regen.make_fixture()
    stored, _, _ = regen.load_fixture()
    strip = [{k: v for k, v in r.items() if k != "host_version"} for r in records]
    assert strip == [{k: v for k, v in r.items() if k != "host_version"} for r in stored], (
        "replaying the fixture's games gives other records: run "
        "python tests/regen_golden_site.py --fixture if the rules changed on purpose"
    )
    assert doc == json.loads((regen.FIXTURE / "standings.json").read_text())


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


def test_the_replay_json_cannot_close_its_script_block(site: Path) -> None:
    for page in pages(site / "games"):
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


def test_the_leaderboard_lists_every_entry_with_its_rating(site: Path) -> None:
    _, doc, _ = regen.load_fixture()
    index = (site / "index.html").read_text()
    for row in doc["entries"]:
        assert f"<code>{row['entry']}</code>" in index
        assert f'href="entries/{row["entry"]}.html"' in index
    assert re.search(r"\d{3,4} <span class=\"pm\">± \d+</span>", index)
    assert "statistically tied" in index
    for fact in ("snakes-v1", "round-robin", str(regen.SEASON_SEED), "2025-01-18 12:05 UTC"):
        assert fact in index, f"the season facts should include {fact}"


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


def test_the_compact_replay_rebuilds_every_frame_the_engine_played() -> None:
    records, _, _ = regen.load_fixture()
    game = Snakes()
    for record in records:
        rep = replay(record)
        state = game.initial_state(random.Random(record["seed"]))
        expected = [game.render_text(state)]
        for move in record["moves"]:
            state = game.apply(state, {game.to_move(state)[0]: move})
            expected.append(game.render_text(state))
        assert frames(rep) == expected
        assert rep.final == expected[-1] and list(rep.scores) == record["outcome"]["scores"]
        log = text_log(rep)
        assert log == "\n\n".join(expected) + "\n"
        encoded = encode_changes(rep.changes)
        assert encoded.count(",") == len(record["moves"]) - 1


def test_the_first_frame_is_the_seed_format() -> None:
    rep = replay({"game": "snakes-v1", "seed": 1, "moves": ""})
    first = frames(rep)[0]
    assert len(first.split("\n")) == 16 and {len(r) for r in first.split("\n")} == {32}
    if SEED_TEXT.is_file():  # its last row was mangled by a web page's e-mail obfuscator
        head = "\n".join(first.split("\n")[:15])
        assert head in SEED_TEXT.read_text(), "the initial frame as the challenge shows it"
        assert first.endswith("\n" + "." * 31 + "@")


def test_board_html_keeps_the_text_and_marks_owners() -> None:
    frame = "X*..\n.O@O"
    markup = str(board_html(frame))
    assert plain(markup) == frame
    assert '<span class="x">X</span><span class="xh">*</span>..' in markup
    assert '<span class="o">O</span><span class="oh">@</span><span class="o">O</span>' in markup


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
                "game": "snakes-v1",
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
    assert "13 pages" in out and "KiB on average" in out
    for page in pages(regen.GOLDEN):
        made = tmp_path / "_site" / page.relative_to(regen.GOLDEN)
        assert made.read_bytes() == page.read_bytes(), f"{made} differs from the golden page"


def test_results_jsonl_is_read_with_the_results_module() -> None:
    records, problems = results.read_records(regen.FIXTURE / "results" / "games.jsonl")
    assert not problems and len(records) == 6
