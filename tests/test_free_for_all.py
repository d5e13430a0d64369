"""The free-for-all format: tables of N seats dealt afresh each round, seats rotated so each entry
sits in each seat equally often, fillers for the seats the field leaves empty, setups taken in
turn, and the Easter Egg Hunt's one table of everyone played R times."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from runner.season.formats import (
    NO_RESULTS,
    Done,
    Fixture,
    FormatError,
    FreeForAll,
    Play,
    Seeds,
    fillers,
)

NAMES = [f"bot{k:02d}" for k in range(1, 13)]
GAME = "multisnake-v2"
MULTISNAKE = (2, 4, 8)
EGGHUNT = tuple(range(7, 37))


def games(fmt: FreeForAll, entries: list[str]) -> list[Fixture]:
    return list(fmt.known(entries, NO_RESULTS).games)


def seat_counts(found: list[Fixture]) -> Counter[tuple[str, int]]:
    return Counter((name, seat) for f in found for seat, name in enumerate(f.seats))


@pytest.mark.parametrize(("count", "seats"), [(8, 4), (6, 4), (3, 4), (9, 8), (5, 2), (12, 4)])
@pytest.mark.parametrize("rounds", [1, 3])
def test_every_entry_sits_in_every_seat_equally_often(count: int, seats: int, rounds: int) -> None:
    entries = NAMES[:count]
    fmt = FreeForAll(GAME, Seeds(5), rounds, seats, seat_counts=MULTISNAKE)
    found = games(fmt, entries)
    assert all(len(f.seats) == seats for f in found)
    assert all(len(set(f.seats)) == seats for f in found), "an entry sat twice at one table"
    tables = -(-count // seats)
    assert len(found) == rounds * tables * seats, "each table plays one game per seat"
    counts = seat_counts(found)
    for name in entries:
        assert [counts[(name, s)] for s in range(seats)] == [rounds] * seats, name
    empty = tables * seats - count
    for round_ in range(1, rounds + 1):
        filled = {n for f in found if f.round == round_ for n in fillers(f.seats)}
        assert filled == {f"filler-{k}" for k in range(1, empty + 1)}


def test_rounds_deal_new_tables_whatever_the_listing_order() -> None:
    fmt = FreeForAll(GAME, Seeds(5), 4, 4, seat_counts=MULTISNAKE)
    found = games(fmt, NAMES[:8])
    shuffled = NAMES[:8]
    random.Random(2).shuffle(shuffled)
    assert games(fmt, shuffled) == found
    tables = {
        round_: {frozenset(f.seats) for f in found if f.round == round_} for round_ in range(1, 5)
    }
    assert len({frozenset(t) for t in tables.values()}) > 1, "every round dealt the same tables"
    assert found == sorted(found), "canonical order"
    assert len({f.seed for f in found}) == len(found)
    other = games(FreeForAll(GAME, Seeds(6), 4, 4, seat_counts=MULTISNAKE), NAMES[:8])
    assert {f.seed for f in other}.isdisjoint(f.seed for f in found)


def test_a_table_rotates_its_seats_run_by_run() -> None:
    fmt = FreeForAll(GAME, Seeds(1), 1, 4, runs=8, seat_counts=MULTISNAKE)
    found = games(fmt, NAMES[:4])
    first = found[0].seats
    for run, fixture in enumerate(found):
        turn = run % 4
        assert fixture.seats == first[turn:] + first[:turn]
        assert fixture.label == f"table 1, run {run + 1}"
    assert found[0].seats == found[4].seats and found[0].seed != found[4].seed


def test_everyone_at_one_table_with_fillers_for_r_runs() -> None:
    fmt = FreeForAll("egghunt-v1", Seeds(9), 1, None, runs=10, seat_counts=EGGHUNT)
    entries = NAMES[:4]
    found = games(fmt, entries)
    assert len(found) == 10, "R runs"
    assert all(len(f.seats) == 7 for f in found), "filled up to the game's minimum"
    assert all(set(f.seats) == {*entries, "filler-1", "filler-2", "filler-3"} for f in found)
    assert len({f.seed for f in found}) == 10
    counts = seat_counts(found)
    for name in entries:
        per_seat = [counts[(name, s)] for s in range(7)]
        assert max(per_seat) - min(per_seat) <= 1, f"{name}'s seats are unbalanced: {per_seat}"
    # A larger field: no filler; a field larger than the game allows: a clear error.
    assert not any(fillers(f.seats) for f in games(fmt, NAMES[:9] + ["x1", "x2"]))
    too_many = [f"e{k}" for k in range(37)]
    with pytest.raises(FormatError, match="at most 36 players. Fix: set `seats:`"):
        games(fmt, too_many)


def test_setups_are_taken_in_turn_one_per_rotation() -> None:
    fmt = FreeForAll(
        GAME, Seeds(1), 2, 4, runs=8, setups=("maze", "open", "small"), seat_counts=(4,)
    )
    entries = NAMES[:8]
    found = games(fmt, entries)
    assert len(found) == 2 * 2 * 8
    blocks = [found[i : i + 4] for i in range(0, len(found), 4)]
    assert [b[0].setup for b in blocks] == ["maze", "open", "small"] * 2 + ["maze", "open"]
    for block in blocks:
        assert {f.setup for f in block} == {block[0].setup}, "a rotation is played on one setup"
        assert {frozenset(f.seats) for f in block} == {frozenset(block[0].seats)}
        assert {f.seats[0] for f in block} == set(block[0].seats), "each sits first once"
    same_seating = [f for f in found if f.seats == found[0].seats]
    assert len({f.seed for f in same_seating}) == len(same_seating)


def test_static_next_games_and_name_clashes() -> None:
    fmt = FreeForAll(GAME, Seeds(1), 1, 4, seat_counts=MULTISNAKE)
    step = fmt.next_games(NAMES[:4], NO_RESULTS)
    assert isinstance(step, Play) and step.then is None and len(step.games) == 4

    class All:
        def places(self, fixture: Fixture) -> tuple[int, ...] | None:
            return (1, 2, 3, 4)

    assert fmt.next_games(NAMES[:4], All()) == Done()
    assert fmt.known([], NO_RESULTS).games == ()
    with pytest.raises(FormatError, match="'filler-2' has a name the free-for-all gives"):
        games(fmt, ["alpha", "filler-2"])
    assert games(fmt, ["alpha", "filler-bot", "bravo", "charlie"]), "only filler-N is reserved"
    with pytest.raises(ValueError, match="played by 2, 4, 8 players, not 3"):
        FreeForAll(GAME, Seeds(1), 1, 3, seat_counts=MULTISNAKE)
