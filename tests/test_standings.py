"""Standings: points, W/D/L, places and faults arithmetic, the tie-break, excluded entries, the
files; two-seat games and larger ones."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from runner.games.spec import points_for
from runner.rank.standings import (
    TIE_BREAK,
    TIE_BREAK_PLACES,
    TIE_BREAK_SCORE,
    document,
    mean_interval,
    rank,
    ranks_by_score,
    t975,
    table,
    table_points,
    write,
)
from runner.season.entries import Entrant
from runner.season.points import LINEAR_POINTS
from runner.season.results import places
from runner.season.standings_file import check_document


def game(
    x: str,
    o: str,
    points: tuple[float, float],
    termination: str = "normal",
    faulty: int | None = None,
) -> dict[str, Any]:
    return {
        "key": f"{x}-{o}-{points}",
        "round": 1,
        "seats": [{"entry": x}, {"entry": o}],
        "outcome": {"points": list(points), "termination": termination, "faulty": faulty},
    }


def entrants(*names: str, excluded: dict[str, str] | None = None) -> list[Entrant]:
    excluded = excluded or {}
    return [Entrant(n, n.title(), "h" + n, excluded.get(n)) for n in names]


def by_entry(rows: list[Any]) -> dict[str, Any]:
    return {r.entry: r for r in rows}


def test_points_games_wins_draws_losses_and_faults() -> None:
    records = [
        game("a", "b", (1, 0)),
        game("b", "a", (0.5, 0.5)),
        game("a", "c", (0, 1), "crash", faulty=0),
        game("c", "a", (0, 1), "timeout", faulty=0),
        game("b", "c", (1, 0), "crash", faulty=1),
        game("c", "b", (0.5, 0.5)),
    ]
    rows = by_entry(rank(entrants("a", "b", "c"), records))
    a, b, c = rows["a"], rows["b"], rows["c"]
    assert (a.points, a.games, a.wins, a.draws, a.losses) == (2.5, 4, 2, 1, 1)
    assert (b.points, b.games, b.wins, b.draws, b.losses) == (2.0, 4, 1, 2, 1)
    assert (c.points, c.games, c.wins, c.draws, c.losses) == (1.5, 4, 1, 1, 2)
    assert a.faults == {"crash": 1} and b.faults == {} and c.faults == {"crash": 1, "timeout": 1}
    assert sum(r.points for r in rows.values()) == len(records), "each game hands out 1 point"
    assert [r.entry for r in rank(entrants("a", "b", "c"), records)] == ["a", "b", "c"]


def test_head_to_head_breaks_a_tie_on_points() -> None:
    records = [
        game("a", "c", (1, 0)),
        game("a", "d", (1, 0)),
        game("b", "a", (1, 0)),
        game("b", "d", (1, 0)),
    ]
    rows = rank(entrants("a", "b", "c", "d"), records)
    assert [(r.entry, r.points) for r in rows] == [("b", 2), ("a", 2), ("c", 0), ("d", 0)]
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_then_wins_then_name() -> None:
    # e and f have 1 point each and never met: e won once, f drew twice. g and h never played.
    records = [
        game("e", "x", (1, 0)),
        game("x", "e", (1, 0)),
        game("f", "y", (0.5, 0.5)),
        game("y", "f", (0.5, 0.5)),
    ]
    rows = rank(entrants("h", "g", "f", "e", "x", "y"), records)
    order = [r.entry for r in rows]
    assert order.index("e") < order.index("f"), "more wins must break an equal head-to-head"
    assert order.index("g") < order.index("h"), "the name must break a complete tie"


def test_a_cycle_among_the_tied_falls_through_to_wins_then_name() -> None:
    # rock-paper-scissors: every head-to-head total is equal, and so are the wins.
    records = [game("r", "s", (1, 0)), game("s", "p", (1, 0)), game("p", "r", (1, 0))]
    assert [r.entry for r in rank(entrants("s", "r", "p"), records)] == ["p", "r", "s"]


def test_excluded_entries_are_listed_last_with_zero_games_and_their_reason() -> None:
    records = [game("a", "b", (1, 0)), game("a", "broken", (1, 0))]  # the second is ignored
    rows = rank(
        entrants(
            "a",
            "b",
            "broken",
            "alpha",
            excluded={"broken": "bot.c does not compile", "alpha": "fails a smoke"},
        ),
        records,
    )
    assert [(r.entry, r.rank) for r in rows] == [
        ("a", 1),
        ("b", 2),
        ("alpha", None),
        ("broken", None),
    ]
    broken = rows[-1]
    assert (broken.games, broken.points, broken.excluded) == (0, 0, "bot.c does not compile")
    assert rows[0].games == 1, "a game against an excluded entry must not count"
    text = table(rows)
    assert "excluded: bot.c does not compile" in text
    assert text.splitlines()[2].split()[:4] == ["1", "a", "A", "1"]


def test_the_table_prints_no_control_character_of_a_name_or_a_reason() -> None:
    """Names and reasons may come from a cache someone else wrote (CI): escapes written out."""
    players = [Entrant("a", "A\x1b]0;T\x07", "ha"), Entrant("b", "B", "hb", "x\x1b[2Jy")]
    text = table(rank(players, []))
    assert "\x1b" not in text and "\x07" not in text, text
    assert "'A\\x1b]0;T\\x07'" in text and "excluded: x\\x1b[2Jy" in text, text


def test_written_atomically_as_json(tmp_path: Path) -> None:
    rows = rank(entrants("a", "b"), [game("a", "b", (0.5, 0.5))])
    doc = document(rows, {"game": "snakes-v2", "games_played": 1})
    path = tmp_path / "out" / "standings.json"
    write(path, doc)
    data = json.loads(path.read_text())
    assert data["tie_break"] == TIE_BREAK and data["game"] == "snakes-v2"
    assert [(e["entry"], e["points"], e["draws"]) for e in data["entries"]] == [
        ("a", 0.5, 1),
        ("b", 0.5, 1),
    ]
    assert [p.name for p in path.parent.iterdir()] == ["standings.json"]


# -- games of more than two seats ----------------------------------------------------------------


def table_game(
    seats: str, placement: tuple[int, ...], faults: tuple[tuple[int, str], ...] = ()
) -> dict[str, Any]:
    """A game of len(seats) seats (one letter an entry) as the contract writes it."""
    return {
        "key": f"{seats}-{placement}",
        "round": 1,
        "seats": [{"entry": e} for e in seats],
        "outcome": {
            "points": list(points_for(placement)),
            "termination": "normal",
            "faulty": None,
            "placement": list(placement),
            "faults": [
                {"seat": s, "turn": 3, "termination": kind, "detail": f"{kind} at turn 3"}
                for s, kind in faults
            ],
        },
    }


def test_places_are_read_from_the_placement_or_from_two_seat_points() -> None:
    assert places(table_game("abcd", (1, 3, 2, 3))) == [1, 3, 2, 3]
    assert places(game("a", "b", (0, 1))) == [2, 1]
    assert places(game("a", "b", (0.5, 0.5))) == [1, 1]


def test_linear_points_by_place_tied_seats_sharing_the_places_they_span() -> None:
    assert table_points(LINEAR_POINTS, [1, 2, 3, 4]) == [1, Fraction(2, 3), Fraction(1, 3), 0]
    assert table_points(LINEAR_POINTS, [1, 3, 2, 3]) == [
        1,
        Fraction(1, 6),
        Fraction(2, 3),
        Fraction(1, 6),
    ]
    assert table_points(LINEAR_POINTS, [1, 1, 1]) == [Fraction(1, 2)] * 3
    assert table_points(LINEAR_POINTS, [1]) == [1]
    for placement in ([1, 2, 3, 4], [2, 1, 2, 4], [1, 1, 3, 3, 5, 6, 6, 6]):
        expected = points_for(placement)  # the records' default table (runner/games/spec.py)
        assert [float(p) for p in table_points(LINEAR_POINTS, placement)] == pytest.approx(expected)


def test_a_configured_table_gives_points_by_place_and_nothing_past_its_end() -> None:
    table = (10.0, 6.0, 3.0)
    assert table_points(table, [1, 2, 3, 4, 5]) == [10, 6, 3, 0, 0]
    assert table_points(table, [1, 2, 2, 4, 5]) == [10, Fraction(9, 2), Fraction(9, 2), 0, 0]
    assert table_points(table, [1, 2, 3, 3]) == [10, 6, Fraction(3, 2), Fraction(3, 2)]
    rows = by_entry(rank(entrants(*"abcde"), [table_game("abcde", (2, 1, 3, 4, 4))], table))
    assert [rows[e].points for e in "abcde"] == [6.0, 10.0, 3.0, 0.0, 0.0]


def test_two_seat_games_give_win_draw_loss_whatever_the_table() -> None:
    records = [game("a", "b", (1, 0)), game("b", "c", (0.5, 0.5)), game("c", "a", (0, 1))]
    linear = rank(entrants("a", "b", "c"), records)
    assert rank(entrants("a", "b", "c"), records, (10.0, 6.0)) == linear
    assert [(r.entry, r.points, r.places) for r in linear] == [
        ("a", 2.0, []),
        ("b", 0.5, []),
        ("c", 0.5, []),
    ]


def test_a_larger_game_counts_places_average_place_and_every_seats_faults() -> None:
    records = [
        table_game("abcd", (1, 2, 3, 4), faults=((3, "timeout"),)),
        table_game("dcba", (1, 2, 2, 4), faults=((1, "crash"), (2, "timeout"), (1, "crash"))),
        table_game("abc", (3, 1, 2)),
    ]
    rows = by_entry(rank(entrants(*"abcd"), records))
    a, b, c, d = (rows[e] for e in "abcd")
    assert (a.games, a.places, a.average_place) == (3, [1, 0, 1, 1], 8 / 3)
    assert (b.places, b.average_place) == ([1, 2, 0, 0], 5 / 3)
    assert (c.places, d.places) == ([0, 2, 1, 0], [1, 0, 0, 1])
    assert (a.wins, a.draws, a.losses) == (0, 0, 0), "W/D/L count two-seat games only"
    assert d.faults == {"timeout": 1} and a.faults == {}
    assert c.faults == {"crash": 1} and b.faults == {"timeout": 1}, "a game counts once a kind"
    assert a.points == 1 + 0 + 0 and b.points == pytest.approx(2 / 3 + 1 / 2 + 1)
    assert rank(entrants("a"), [], LINEAR_POINTS)[0].average_place is None


def test_points_are_added_exactly_so_six_thirds_tie_with_two() -> None:
    # "thirds" finishes third of four six times: 2 points, 1.9999999999999998 in floats.
    # "other" finishes first twice and last once (in the game where thirds was ahead): 2 points.
    records = [table_game("txyo", (3, 1, 2, 4))]
    records += [table_game("txyz", (3, 1, 2, 4)) for _ in range(5)]
    records += [table_game("oxyz", (1, 2, 3, 4)) for _ in range(2)]
    rows = rank(entrants(*"toxyz"), records)
    found = by_entry(rows)
    assert found["t"].points == found["o"].points == 2.0
    order = [r.entry for r in rows]
    assert order.index("t") < order.index("o"), "equal points, then the head-to-head decides"


def test_head_to_head_in_larger_games_is_the_points_where_the_tied_met() -> None:
    # z and a both have 1 point and the same places; in the one game where they met, z placed
    # better.
    records = [
        table_game("zxay", (2, 1, 3, 4)),
        table_game("axyq", (2, 4, 1, 3)),
        table_game("zxyq", (3, 1, 2, 4)),
    ]
    rows = by_entry(rank(entrants(*"azxyq"), records))
    assert rows["a"].points == rows["z"].points == 1.0
    assert rows["z"].rank is not None and rows["a"].rank is not None
    assert rows["z"].rank < rows["a"].rank


def test_then_the_countback_of_places_then_the_name() -> None:
    # zed (first once, last once) and amy (second, third) have 1 point each and never met.
    records = [
        table_game("zxyw", (1, 2, 3, 4)),
        table_game("zxyw", (4, 1, 2, 3)),
        table_game("axyw", (2, 1, 3, 4)),
        table_game("axyw", (3, 1, 2, 4)),
    ]
    names = {"z": "zed", "a": "amy"}
    renamed = [
        {**g, "seats": [{"entry": names.get(s["entry"], s["entry"])} for s in g["seats"]]}
        for g in records
    ]
    rows = [r.entry for r in rank(entrants("zed", "amy", "x", "y", "w"), renamed)]
    assert rows.index("zed") < rows.index("amy"), "more first places must break the tie"
    level = [table_game("axyw", (2, 1, 3, 4)), table_game("bxyw", (2, 1, 3, 4))]
    order = [r.entry for r in rank(entrants(*"baxyw"), level)]
    assert order.index("a") < order.index("b"), "the name breaks a complete tie"


def test_the_document_names_the_tie_break_of_its_games_and_checks_the_new_fields() -> None:
    two = document(rank(entrants("a", "b"), [game("a", "b", (1, 0))]), {})
    larger = document(rank(entrants(*"abc"), [table_game("abc", (1, 2, 2))]), {"points": "linear"})
    assert two["tie_break"] == TIE_BREAK and larger["tie_break"] == TIE_BREAK_PLACES
    assert check_document(two) is None and check_document(larger) is None
    assert larger["entries"][1]["places"] == [0, 1, 0] and two["entries"][0]["places"] == []
    bad: dict[str, tuple[list[Any], Any]] = {
        "places": (["entries", 0, "places"], [1, -1]),
        "average": (["entries", 0, "average_place"], 0.5),
        "points": (["points"], [1, 2]),
    }
    for what, (path, value) in bad.items():
        doc = json.loads(json.dumps(larger))
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        assert check_document(doc) is not None, f"a bad `{what}` should be refused"


@pytest.mark.parametrize(
    "judged",
    [
        [],
        {"koth": "k", "files": ["not a digest"], "refused": [], "skipped": []},
        {"koth": "k", "files": [], "refused": [["key", "digest"]], "skipped": []},
        {"koth": "k", "files": [], "refused": "none", "skipped": []},
        {"koth": "k", "files": [], "refused": [], "skipped": [[0, "1", "why"]]},
        {"files": [], "refused": [], "skipped": []},
    ],
)
def test_a_malformed_record_of_what_the_standings_judged_is_refused(judged: Any) -> None:
    doc = document(rank(entrants("a", "b"), [game("a", "b", (1, 0))]), {})
    good = {
        "koth": "k",
        "files": ["0" * 64, ""],
        "refused": [["key", "0" * 64, "its points ..."]],
        "skipped": [[1, 3, "line 3 is skipped because ..."]],
    }
    assert check_document({**doc, "judged": good}) is None
    assert "`judged` is malformed" in str(check_document({**doc, "judged": judged}))


def test_the_text_table_of_a_larger_game_shows_places() -> None:
    rows = rank(entrants(*"abc"), [table_game("abc", (2, 1, 3)), table_game("abc", (1, 1, 3))])
    lines = table(rows).splitlines()
    assert lines[0].split()[:5] == ["rank", "entry", "bot", "points", "games"]
    assert "1st" in lines[0] and "3rd" in lines[0] and " W " not in lines[0]
    assert lines[2].split()[:9] == ["1", "b", "B", "1.75", "2", "2", "0", "0", "1.00"]


def scored_game(seats: str, scores: tuple[float, ...], run: int) -> dict[str, Any]:
    """A game of len(seats) seats whose outcome counts a score per seat (eggs), placed by it."""
    placement = tuple(1 + sum(other > mine for other in scores) for mine in scores)
    record = table_game(seats, placement)
    record["key"] += f"-run{run}"
    record["outcome"]["scores"] = list(scores)
    return record


def test_the_95_percent_interval_of_a_mean_uses_students_t() -> None:
    mean, low, high = mean_interval([2.0, 4.0, 6.0, 8.0])  # s = 2.582, n = 4, t(3) = 3.182
    assert mean == 5.0
    assert low == pytest.approx(5.0 - 3.182 * 2.5819889 / 2) and high == pytest.approx(
        5.0 + 3.182 * 2.5819889 / 2
    ), "mean ± t(n-1) · s / √n"
    assert mean_interval([3.0]) == (3.0, None, None), "one game gives no interval"
    assert mean_interval([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0), "no spread, no width"
    assert t975(30) == 2.042 and t975(31) == pytest.approx(2.0395, abs=0.001)
    assert t975(1000) == pytest.approx(1.9623, abs=0.001), "beyond the table, the expansion"
    assert mean_interval([0.1, 0.2, 0.7]) == mean_interval([0.7, 0.1, 0.2]), "order-free"


def test_ranking_by_score_orders_by_mean_eggs_not_by_places() -> None:
    # a wins two runs by one egg; b is second twice but collects far more in the third run.
    records = [
        scored_game("abc", (3, 2, 0), 1),
        scored_game("abc", (3, 2, 0), 2),
        scored_game("abc", (0, 12, 1), 3),
    ]
    by_points = rank(entrants(*"abc"), records)
    assert [r.entry for r in by_points] == ["a", "b", "c"], "by points, a's two wins count most"
    assert all(r.score is None for r in by_points), "ranked by points, no score is given"
    rows = rank(entrants(*"abc"), records, by_score=True)
    assert [r.entry for r in rows] == ["b", "a", "c"], "by score: b's 16/3 eggs beat a's 2"
    b, a, c = rows
    assert b.score == pytest.approx(16 / 3) and a.score == 2.0 and c.score == pytest.approx(1 / 3)
    assert b.score_low is not None and b.score_low < 0, "three runs this far apart: a wide interval"
    assert b.overlaps(a) and a.overlaps(c), "intervals that overlap cannot tell two entries apart"


def test_entries_with_separate_intervals_are_told_apart_and_the_table_says_so() -> None:
    records = [
        scored_game("abc", (5 + run % 2, 2 + run % 2, 3 * (run % 2)), run) for run in range(10)
    ]
    rows = rank(entrants(*"abc"), records, by_score=True)
    a, b, c = rows
    assert (a.entry, b.entry, c.entry) == ("a", "b", "c")
    assert not a.overlaps(b), "5.5 ± 0.4 eggs and 2.5 ± 0.4 eggs are told apart"
    assert b.overlaps(c), "2.5 ± 0.4 and 1.5 ± 1.1 cannot be told apart"
    lines = table(rows).splitlines()
    assert "score ± 95%" in lines[0]
    assert "5.50 ± 0.38" in lines[2] and "≈" not in lines[2] and "≈" not in lines[3]
    assert "1.50 ± 1.13  ≈ #2" in lines[4], "rank 3 cannot be told apart from rank 2"
    doc = document(rows, {"game": "egghunt-v1"})
    assert doc["ranking"] == "score" and doc["tie_break"] == TIE_BREAK_SCORE
    assert doc["entries"][0]["score"] == 5.5 and check_document(doc) is None
    doc["entries"][0]["score_low"] = "low"
    assert check_document(doc) is not None, "a score that is not a number is refused"


def test_a_document_ranked_by_points_carries_no_score_fields() -> None:
    doc = document(rank(entrants(*"abc"), [table_game("abc", (1, 2, 3))]), {})
    assert "ranking" not in doc and "score" not in doc["entries"][0]


def test_the_easter_egg_hunt_ranks_by_score_and_the_other_games_by_points() -> None:
    assert ranks_by_score("egghunt-v1")
    assert not ranks_by_score("multisnake-v2") and not ranks_by_score("snakes-v1")
    assert not ranks_by_score("no-such-game"), "an unknown game ranks by points"
