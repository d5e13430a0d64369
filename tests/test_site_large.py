"""A large season's site: a page for the games readers open, the replay page for the rest
(runner/site/replays.py). A season of eight Snakes entries stands in for one of hundreds, the
rule's limits lowered to its size."""

from __future__ import annotations

import gzip
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from runner.games.base import EMPTY
from runner.games.snakes import SPEC as SNAKES
from runner.rank import ratings
from runner.rank import standings as ranking
from runner.season import results
from runner.season.entries import Entrant
from runner.site import replays
from runner.site.render import render_site

ENTRIES = [f"bot{i}" for i in range(8)]
HASHES = {name: f"{i:064x}" for i, name in enumerate(ENTRIES, 1)}
CRASHER = "bot5"  # crashes in its first three games as X


def snakes_game(rng: random.Random, strong: int) -> tuple[str, Any]:
    """Moves drawn at random (each snake mostly into cells it does not hold), and the state
    they end in; ``strong``: the seat whose snake claims more eagerly."""
    rules = SNAKES.rules
    state, moves = rules.initial_state(rng, 2, EMPTY), []
    while not state.over:
        seat = state.moves_played % 2
        head = state.heads[seat]
        x, y = head % 33, head // 33
        steps = {"L": (-1, 0), "R": (1, 0), "U": (0, -1), "D": (0, 1)}
        fresh = [
            m
            for m, (dx, dy) in steps.items()
            if 0 <= x + dx < 32
            and 0 <= y + dy < 16
            and state.frame[(y + dy) * 32 + x + dx] not in (ord("XO"[seat]), 42, 64)
        ]
        eager = 0.95 if seat == strong else 0.6
        move = rng.choice(fresh) if fresh and rng.random() < eager else rng.choice("LRUD")
        state = rules.apply(state, {seat: move})
        moves.append(move)
    return "".join(moves), state


def season() -> list[dict[str, Any]]:
    """A round-robin of ENTRIES: the lower-numbered entry mostly claims more eagerly; CRASHER's
    first games as X end in a crash at its third move."""
    rng = random.Random(50)
    found = []
    crashes = 0
    for x, o in itertools.permutations(ENTRIES, 2):
        seed = rng.randrange(1 << 62)
        seats = [{"entry": e, "hash": HASHES[e], "name": e.upper()} for e in (x, o)]
        key = results.record_key(SNAKES.id, [(e, HASHES[e]) for e in (x, o)], seed)
        record = {"key": key, "game": SNAKES.id, "seed": seed, "seats": seats}
        if x == CRASHER and crashes < 3:
            crashes += 1
            moves = "RDR"
            outcome = {"points": [0.0, 1.0], "scores": [3, 2], "termination": "crash"}
            outcome.update(faulty=0, detail="X crashed (SIGSEGV) at turn 2")
        else:
            strong = 0 if ENTRIES.index(x) < ENTRIES.index(o) else 1
            moves, state = snakes_game(rng, strong if rng.random() < 0.8 else 1 - strong)
            ended = SNAKES.rules.outcome(state)
            assert ended is not None
            outcome = {"points": list(ended.points), "scores": list(SNAKES.rules.scores(state))}
            outcome.update(termination=ended.termination.value, faulty=None, detail=ended.detail)
        record.update(moves=moves, outcome=outcome, season_seed=7, round=1, host_version="0.1.0")
        record["measured"] = {"cpu_s": [0.01, 0.01], "wall_s": 0.1, "when": "2026-01-01T00:00:00Z"}
        found.append(record)
    return results.canonical(found)


def standings_of(found: list[dict[str, Any]], matrix: int) -> dict[str, Any]:
    entrants = [Entrant(e, e.upper(), HASHES[e]) for e in ENTRIES]
    rows = ranking.rank(entrants, found)
    ranked = [r.entry for r in rows if r.excluded is None]
    fitted = ratings.fitted(ratings.results_from_records(found), ranked)
    meta = {"game": SNAKES.id, "ratings": ratings.summary(fitted, ranked, matrix)}
    return ranking.document(rows, meta)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    found = season()
    out = tmp_path_factory.mktemp("large") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replays, "EVERY_GAME", 20)
        patch.setattr(replays, "TOP", 3)
        patch.setattr(replays, "FAULTS", 2)
        patch.setattr("runner.site.render.CROSS_TABLE", 5)
        render_site(found, standings_of(found, 4), {}, out)
    return out, found


def pages_of(site: Path) -> set[str]:
    return {p.stem for p in (site / "games").glob("*.html")}


def expected_pages(found: list[dict[str, Any]], doc: dict[str, Any]) -> set[str]:
    """The rule, worked out here from the records: games among the first three; each entry's
    best and worst (its points, then the rank of its opponent); two faults an entry."""
    rank = {row["entry"]: row["rank"] for row in doc["entries"]}
    chosen = set()
    for entry in ENTRIES:
        mine = [
            (float(r["outcome"]["points"][seat]), -rank[r["seats"][1 - seat]["entry"]], n)
            for n, r in enumerate(found)
            for seat in (0, 1)
            if r["seats"][seat]["entry"] == entry
        ]
        best = max(mine, key=lambda m: (m[0], m[1], -m[2]))
        worst = min(mine, key=lambda m: (m[0], m[1], m[2]))
        chosen |= {best[2], worst[2]}
    for n, r in enumerate(found):
        if all(rank[s["entry"]] <= 3 for s in r["seats"]):
            chosen.add(n)
    crashed = [n for n, r in enumerate(found) if r["outcome"]["termination"] == "crash"]
    chosen |= set(crashed[:2])
    return {found[n]["key"][:12] for n in chosen}


def test_a_large_season_has_pages_for_the_games_readers_open(
    large: tuple[Path, list[dict[str, Any]]],
) -> None:
    site, found = large
    doc = standings_of(found, 4)
    own = pages_of(site)
    assert own == expected_pages(found, doc)
    assert 10 < len(own) < len(found)
    games = (site / "games.html").read_text()
    listed = re.findall(r'href="(?:games/|replay\.html\?game=)([0-9a-f]+)', games)
    assert set(listed) == own, "games.html lists those"
    assert (site / "static" / "engine-snakes-v2.js").is_file()


def test_every_game_is_linked_to_its_page_or_to_the_replay_page_that_has_its_record(
    large: tuple[Path, list[dict[str, Any]]],
) -> None:
    site, found = large
    page = (site / "replay.html").read_text()
    season = json.loads(page.split('id="replay-season">')[1].split("</script>")[0])
    template = season["records"]
    digits = int(re.fullmatch(r"records/\{key:(\d)\}\.jsonl\.gz", template)[1])  # type: ignore[index]
    published: dict[str, dict[str, Any]] = {}
    for path in (site / "records").iterdir():
        for line in gzip.decompress(path.read_bytes()).splitlines():
            number, seed, record = json.loads(line)
            assert path.name == f"{record['key'][:digits]}.jsonl.gz"
            assert found[number - 1] == record and seed == str(record["seed"])
            published[record["key"][:12]] = record
    own = pages_of(site)
    assert set(published) == {r["key"][:12] for r in found} - own, "the rest, each once"
    linked = set()
    for html in site.rglob("*.html"):
        for link in re.findall(r'href="([^"#]*)', html.read_text()):
            if "replay.html?game=" in link:
                linked.add(link.split("=")[1])
                assert link.split("=")[1] in published, f"{html.name}: {link}"
            elif link.endswith(".html") and "://" not in link:
                assert (html.parent / link).resolve().is_file(), f"{html.name} links {link}"
    assert linked == set(published), "every game without a page is linked from some page"
    for entry in ENTRIES:  # an entry's page links every game it played
        text = (site / "entries" / f"{entry}.html").read_text()
        mine = [r for r in found if entry in (s["entry"] for s in r["seats"])]
        assert all(r["key"][:12] in text for r in mine)


def test_the_tables_of_every_pair_show_the_first_ranked_bots_of_a_large_season(
    large: tuple[Path, list[dict[str, Any]]],
) -> None:
    site, _ = large
    cross = (site / "crosstable.html").read_text()
    los = (site / "los.html").read_text()
    assert cross.count('<th scope="row">') == 5 and "The first 5 of the 8 ranked bots" in cross
    assert los.count('<th scope="row">') == 4 and "The first 4 of the 8 ranked bots" in los
    index = (site / "index.html").read_text()
    assert index.count("the likelihood that") == 7, "the LOS over the next bot: every bot's"


def test_a_game_without_an_engine_keeps_a_page_for_every_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from regen_golden_site import render_cluster_fixture

    monkeypatch.setattr(replays, "EVERY_GAME", 1)
    report = render_cluster_fixture(tmp_path / "site")
    assert report.game_pages == 6
    assert not (tmp_path / "site" / "replay.html").exists()
    assert not (tmp_path / "site" / "records").exists()
    assert not list((tmp_path / "site" / "static").glob("engine-*"))
