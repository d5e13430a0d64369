"""Standings: points, W/D/L and faults arithmetic, the tie-break, excluded entries, the files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner.standings import TIE_BREAK, Entrant, document, rank, table, write


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
