"""Standings of a knockout and its pages: the bracket ranks (champion, then the round each entry
reached, places shared by those out in the same round), standings.json carries the bracket and
is checked when read back, and the site draws a bracket page, a leaderboard with the champion and
the round each entry reached, and links every game of a match to its replay. Round-robin
standings and pages stay as they were (tests/test_site.py compares them byte for byte).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import domineering_knockout as dk
import pytest

from runner.rank.bracket import (
    KNOCKOUT_ORDER,
    bracket_document,
    bracket_text,
    knockout_order,
    round_name,
    rounds_of,
)
from runner.rank.standings import TIE_BREAK, Row, document, rank
from runner.season.entries import Entrant
from runner.season.formats import Knockout, Seeds
from runner.season.playloop import RecordedResults
from runner.season.standings_file import bracket_problem, check_document


@pytest.fixture(scope="module")
def with_third() -> dk.Season:
    return dk.season(third_place=True)


@pytest.fixture(scope="module")
def without_third() -> dk.Season:
    return dk.season(third_place=False)


def placed(played: dk.Season) -> list[tuple[int | None, str, str]]:
    reached = played.bracket["reached"]
    return [(r.rank, r.entry, reached[r.entry]["stage"]) for r in played.rows]


def test_round_names_count_from_the_final() -> None:
    assert [round_name(r, 3) for r in (1, 2, 3)] == ["quarter-finals", "semi-finals", "final"]
    assert [round_name(r, 5) for r in (1, 2)] == ["round of 32", "round of 16"]
    assert round_name(1, 1) == "final"
    assert [rounds_of(n) for n in (1, 2, 3, 4, 5, 6, 8, 9)] == [0, 1, 2, 2, 3, 3, 3, 4]


def test_the_champion_first_then_by_round_reached_and_the_third_place_match(
    with_third: dk.Season,
) -> None:
    bracket = with_third.bracket
    assert bracket["champion"] == "fox" and bracket["waiting"] is None
    assert bracket["round_names"] == ["quarter-finals", "semi-finals", "final"]
    assert placed(with_third) == [
        (1, "fox", "champion"),
        (2, "drifter", "final"),
        (3, "centre", "third place"),  # won the third-place match against anchor, 2-1
        (4, "anchor", "fourth place"),
        (5, "bomber", "quarter-final"),  # lost 1-2: listed before echo, who lost 0-2
        (5, "echo", "quarter-final"),
    ], "champion, runner-up, third-place match, then the quarter-finals' losers sharing 5th"
    assert with_third.standings["tie_break"] == KNOCKOUT_ORDER


def test_without_a_third_place_match_the_semi_finals_losers_share_third(
    without_third: dk.Season,
) -> None:
    assert placed(without_third) == [
        (1, "fox", "champion"),
        (2, "drifter", "final"),
        (3, "anchor", "semi-final"),  # lost 1-2: before centre, who lost 0-2 (and is seed 1)
        (3, "centre", "semi-final"),
        (5, "bomber", "quarter-final"),
        (5, "echo", "quarter-final"),
    ]
    reached = without_third.bracket["reached"]
    assert (reached["fox"]["matches_won"], reached["fox"]["matches_lost"]) == (3, 0)
    assert (reached["centre"]["matches_won"], reached["centre"]["matches_lost"]) == (0, 1), (
        "a bye is no match won"
    )


def test_ties_in_a_round_are_listed_by_games_won_then_by_seed() -> None:
    rows = [Row(e, e, "") for e in ("a", "b", "c", "d")]

    def reach(round_: int, games_won: int) -> dict[str, Any]:
        return {"standing": [round_, 0], "games_won_last": games_won}

    bracket = {
        "seeds": ["a", "b", "c", "d"],
        "reached": {"a": reach(1, 0), "b": reach(1, 1), "c": reach(1, 0), "d": reach(3, 2)},
    }
    ordered = knockout_order(rows, bracket)
    assert [(r.rank, r.entry) for r in ordered] == [(1, "d"), (2, "b"), (2, "a"), (2, "c")]


def test_a_bracket_being_played_ranks_those_still_in_level() -> None:
    partial = dk.season(third_place=False, rounds=1)  # round 2 known, none of it played
    bracket = partial.bracket
    assert bracket["champion"] is None
    assert bracket["waiting"] == "round 3 waits for round 2's results"
    reached = bracket["reached"]
    still_in = sorted(e for e, r in reached.items() if not r["out"])
    assert still_in == ["anchor", "centre", "drifter", "fox"], "two byes and two winners"
    assert {reached[e]["stage"] for e in still_in} == {"semi-final"}
    ranks = {r.entry: r.rank for r in partial.rows}
    assert {ranks[e] for e in still_in} == {1}, "nobody has won anything yet among them"
    assert ranks["bomber"] == ranks["echo"] == 5
    assert bracket_text(bracket).splitlines()[-1] == (
        "not decided yet: round 3 waits for round 2's results"
    )


def test_fields_of_one_and_two() -> None:
    alone = Knockout(dk.GAME, Seeds(1))
    doc = bracket_document(alone, ["solo"], RecordedResults(dk.key_of), dk.key_of)
    assert doc["champion"] == "solo" and doc["matches"] == [] and doc["rounds"] == 0
    assert doc["reached"]["solo"]["stage"] == "champion"
    pair = Knockout(dk.GAME, Seeds(1), best_of=1)
    doc = bracket_document(pair, ["anchor", "echo"], RecordedResults(dk.key_of), dk.key_of)
    assert doc["round_names"] == ["final"] and doc["champion"] is None
    assert [m["what"] for m in doc["matches"]] == ["final"]


def test_the_bracket_text_gives_a_round_a_line(with_third: dk.Season) -> None:
    assert bracket_text(with_third.bracket).splitlines() == [
        "quarter-finals: centre (bye); echo 0-2 drifter; anchor (bye); bomber 1-2 fox",
        "semi-finals: centre 0-2 drifter; anchor 1-2 fox",
        "final: drifter 0-2 fox; third place: centre 2-1 anchor",
        "champion: fox",
    ]


def test_every_game_of_the_bracket_is_a_record_with_its_key(with_third: dk.Season) -> None:
    keys = [g["key"] for m in with_third.bracket["matches"] for g in m["games"]]
    assert sorted(keys) == sorted(r["key"] for r in with_third.records)
    for match in with_third.bracket["matches"]:
        for game in match["games"]:
            assert game["recorded"] and game["winner"] in match["sides"]
        if None not in match["sides"]:
            assert (
                max(match["wins"]) == 2
                and match["winner"] == match["sides"][match["wins"].index(2)]
            ), f"{match['what']} of round {match['round']} goes to who won two games"


def test_standings_json_with_a_bracket_is_checked_when_read_back(with_third: dk.Season) -> None:
    doc = json.loads(json.dumps(with_third.standings))
    assert check_document(doc) is None
    damages: list[tuple[Callable[[dict[str, Any]], object], str]] = [
        (lambda b: b.update(matches="none"), "`matches` is not a list"),
        (lambda b: b["matches"][1].update(wins=[2]), "`wins` are not two counts"),
        (lambda b: b["matches"][1]["games"][0].update(seats=["a"]), "`seats` are not two"),
        (lambda b: b["reached"]["fox"].pop("stage"), "has no `stage`"),
        (lambda b: b.update(champion=3), "`champion` or `waiting`"),
    ]
    for damage, says in damages:
        broken = copy.deepcopy(doc)
        damage(broken["bracket"])
        problem = check_document(broken)
        assert problem is not None and says in problem, (says, problem)
    assert bracket_problem([]) == "it is not an object"


def test_round_robin_standings_are_ranked_by_points_as_before() -> None:
    rows = rank([Entrant("a", "a", ""), Entrant("b", "b", "")], [])
    assert document(rows, {"format": "round-robin"})["tie_break"] == TIE_BREAK
    assert "bracket" not in document(rows, {})


# -- the pages -------------------------------------------------------------------------------------


class Links(HTMLParser):
    """Every link's target and text, and the whole text, of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.text: list[str] = []
        self._href: str | None = None
        self._words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href, self._words = dict(attrs).get("href") or "", []

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._words)))
            self._href = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._href is not None:
            self._words.append(data)


def parse(path: Path) -> Links:
    found = Links()
    found.feed(path.read_text(encoding="utf-8"))
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, with_third: dk.Season) -> Path:
    out = tmp_path_factory.mktemp("knockout") / "site"
    dk.render(out, with_third)
    return out


def test_the_bracket_page_shows_every_match_and_links_every_game(
    site: Path, with_third: dk.Season
) -> None:
    page = parse(site / "bracket.html")
    text = " ".join("".join(page.text).split())
    assert "Champion: Fox" in text
    for title in ("Quarter-finals", "Semi-finals", "Final", "Third place"):
        assert title in text, f"the bracket page names {title}"
    games = [link for link in page.links if link[0].startswith("games/")]
    assert len(games) == len(with_third.records), "each game of each match links its replay"
    for href, _ in games:
        assert (site / href).is_file(), f"{href} exists"
    assert "Game 3" in [label for _, label in games], "a match that went to three games"
    html = (site / "bracket.html").read_text(encoding="utf-8")
    assert "Bomber <b>boom</b>" not in html and "Bomber &lt;b&gt;boom&lt;/b&gt;" in html


def test_the_leaderboard_crowns_the_champion_and_shows_the_round_reached(site: Path) -> None:
    page = parse(site / "index.html")
    text = " ".join("".join(page.text).split())
    assert "Champion: Fox" in text
    assert ("bracket.html", "Bracket") in page.links, "the navigation links the bracket"
    rows = re.findall(
        r"<tr[^>]*>\s*<td class=\"num\">(\d+)</td>\s*<td><a[^>]*>([^<]*)</a></td>"
        r"\s*<td><code>([^<]*)</code></td>\s*<td>[^<]*</td>\s*<td>([^<]*)",
        (site / "index.html").read_text(encoding="utf-8"),
    )
    assert [(rank_, entry, reached.strip()) for rank_, _, entry, reached in rows] == [
        ("1", "fox", "champion"),
        ("2", "drifter", "final"),
        ("3", "centre", "third place"),
        ("4", "anchor", "fourth place"),
        ("5", "bomber", "quarter-final"),
        ("5", "echo", "quarter-final"),
    ]


def test_entry_and_game_pages_say_where_they_stand_in_the_bracket(
    site: Path, with_third: dk.Season
) -> None:
    entry = (site / "entries" / "bomber.html").read_text(encoding="utf-8")
    assert "<dt>Reached</dt><dd>quarter-final; matches won 0, lost 1" in entry
    final = next(m for m in with_third.bracket["matches"] if m["what"] == "final")
    key = final["games"][1]["key"]
    game = parse(site / "games" / f"{key[:12]}.html")
    assert ("../bracket.html#round-3-final", "Final") in game.links, (
        "a game of the final links its match in the bracket"
    )
    assert "Final, game 2" in "".join(game.text)
    first = with_third.bracket["matches"][1]["games"][0]["key"]
    game = parse(site / "games" / f"{first[:12]}.html")
    assert ("../bracket.html#round-1-match-2", "Quarter-finals, match 2") in game.links


def test_a_round_robin_site_has_no_bracket(tmp_path: Path) -> None:
    import regen_golden_site

    regen_golden_site.render_fixture(tmp_path / "site")
    assert not (tmp_path / "site" / "bracket.html").exists()
    assert "bracket.html" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_knockouts_standings_seed_the_next_knockout_in_its_order(
    tmp_path: Path, without_third: dk.Season
) -> None:
    from runner.season.config import load_config

    (tmp_path / "previous.json").write_text(json.dumps(without_third.standings))
    (tmp_path / "tournament.yaml").write_text(
        "game: domineering-v2\nformat: knockout\nknockout:\n  seeding: previous.json\n"
    )
    config = load_config(tmp_path / "tournament.yaml")
    assert config.knockout.seeding == ("fox", "drifter", "anchor", "centre", "bomber", "echo"), (
        "places first, entries sharing a place in their listed order"
    )
