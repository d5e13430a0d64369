"""The round-robin format and the schedule built on it: who meets whom, in which seat, with which
seed — and that none of it depends on the order entries are listed in."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from runner.season.formats import (
    FORMATS,
    NO_RESULTS,
    Done,
    Fixture,
    Play,
    RoundRobin,
    Seeds,
    UnknownFormatError,
    Wait,
    find_format,
)
from runner.season.schedule import Shard, make_schedule, parse_shard, select_shard

NAMES = ["alpha", "bravo", "charlie", "delta", "echo"]


@pytest.mark.parametrize("rounds", [1, 2, 3])
@pytest.mark.parametrize("count", [2, 3, 5])
def test_every_pair_meets_twice_per_round_in_both_seats(count: int, rounds: int) -> None:
    names = NAMES[:count]
    games = RoundRobin().pairings(names, rounds)
    assert len(games) == count * (count - 1) * rounds
    assert all(len(seats) == 2 for seats in games)
    assert all(x != o for x, o in games), "an entry was scheduled against itself"
    pairs = Counter(frozenset(seats) for seats in games)
    assert set(pairs.values()) == {2 * rounds}, "some pair does not meet exactly 2 x rounds times"
    assert len(pairs) == count * (count - 1) // 2
    seatings = Counter(games)
    assert set(seatings.values()) == {rounds}, "some seating is not played once per round"
    as_x = Counter(x for x, _ in games)
    as_o = Counter(o for _, o in games)
    for name in names:
        assert as_x[name] == as_o[name] == (count - 1) * rounds, f"{name}'s seats are unbalanced"


def test_pairings_do_not_depend_on_listing_order() -> None:
    shuffled = NAMES[:]
    random.Random(3).shuffle(shuffled)
    assert RoundRobin().pairings(shuffled, 2) == RoundRobin().pairings(NAMES, 2)


def test_degenerate_seasons() -> None:
    assert RoundRobin().pairings([], 3) == []
    assert RoundRobin().pairings(["solo"], 3) == []
    with pytest.raises(ValueError, match="more than once: alpha"):
        RoundRobin().pairings(["alpha", "bravo", "alpha"], 1)


def test_formats_are_found_by_name() -> None:
    assert find_format("round-robin") is RoundRobin
    assert set(FORMATS) == {"round-robin", "knockout", "free-for-all"}
    with pytest.raises(UnknownFormatError, match="known formats: free-for-all, knockout, round"):
        find_format("swiss")


def test_schedule_is_canonical_and_seeds_are_independent_of_entry_order() -> None:
    shuffled = NAMES[::-1]
    one = make_schedule("snakes-v2", "round-robin", NAMES, 2, Seeds(7))
    two = make_schedule("snakes-v2", "round-robin", shuffled, 2, Seeds(7))
    assert one == two
    assert one == sorted(one, key=lambda f: (f.round, f.seats))
    assert {f.round for f in one} == {1, 2}
    for fixture in one:
        assert fixture.seed == Seeds(7).game_seed("snakes-v2", fixture.round, fixture.seats)
        assert 0 <= fixture.seed < 2**63
    assert len({f.seed for f in one}) == len(one), "two games share a seed"


def test_adding_an_entry_keeps_every_other_games_seed() -> None:
    hashes = Seeds(1, hashes=tuple((n, n * 8) for n in NAMES))
    before = make_schedule("snakes-v2", "round-robin", NAMES[:4], 1, hashes)
    after = make_schedule("snakes-v2", "round-robin", NAMES, 1, hashes)
    new = [f for f in after if "echo" in f.seats]
    assert sorted(set(after) - set(new)) == before
    assert len(new) == 2 * 4


def test_seeds_change_with_the_season_seed_the_round_and_the_seats() -> None:
    seeds = Seeds(1)
    base = seeds.game_seed("snakes-v2", 1, ("a", "b"))
    assert base == Seeds(1).game_seed("snakes-v2", 1, ("a", "b"))
    others = [
        Seeds(2).game_seed("snakes-v2", 1, ("a", "b")),
        seeds.game_seed("snakes-v2", 2, ("a", "b")),
        seeds.game_seed("snakes-v2", 1, ("b", "a")),
        seeds.game_seed("other-v1", 1, ("a", "b")),
    ]
    assert base not in others and len(set(others)) == len(others)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_are_disjoint_and_cover_the_schedule(count: int) -> None:
    games = make_schedule("snakes-v2", "round-robin", NAMES, 2, Seeds(1))
    parts = [select_shard(games, Shard(i, count)) for i in range(1, count + 1)]
    assert sorted(g for part in parts for g in part) == games
    assert sum(len(p) for p in parts) == len(games)
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1, "shards are unbalanced"
    assert select_shard(games, None) == games


def test_parse_shard() -> None:
    assert parse_shard("2/4") == Shard(2, 4)
    assert str(parse_shard(" 1 / 1 ")) == "1/1"
    assert Shard(3, 8).slug == "shard-3-of-8"
    for bad in ("0/4", "5/4", "2", "a/b", "2/0", "-1/3"):
        with pytest.raises(ValueError, match="Fix: write i/n"):
            parse_shard(bad)


def test_a_fixture_takes_its_seed_from_its_round_and_seats() -> None:
    fixtures = make_schedule("snakes-v2", "round-robin", ["bravo", "alpha"], 1, Seeds(1))
    seed = Seeds(1).game_seed
    assert [(f.round, f.seats, f.seed, f.setup, f.slot) for f in fixtures] == [
        (1, ("alpha", "bravo"), seed("snakes-v2", 1, ("alpha", "bravo")), None, ()),
        (1, ("bravo", "alpha"), seed("snakes-v2", 1, ("bravo", "alpha")), None, ()),
    ]


def test_round_robin_hands_out_every_game_at_once_then_is_done() -> None:
    fmt = RoundRobin("snakes-v2", Seeds(1), 2)
    step = fmt.next_games(NAMES, NO_RESULTS)
    assert isinstance(step, Play) and step.then is None
    assert list(step.games) == make_schedule("snakes-v2", "round-robin", NAMES, 2, Seeds(1))
    recorded = {f: (1, 2) for f in step.games[:-1]}

    class Recorded:
        def places(self, fixture: Fixture) -> tuple[int, ...] | None:
            return recorded.get(fixture)

    assert fmt.next_games(NAMES, Recorded()) == Play(step.games[-1:])
    assert fmt.next_games(NAMES, Recorded(), busy={step.games[-1]}) == Wait(
        "the games handed out are not recorded yet", step.games[-1:]
    )
    recorded[step.games[-1]] = (2, 1)
    assert fmt.next_games(NAMES, Recorded()) == Done()
