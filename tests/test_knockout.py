"""The knockout format: brackets padded with byes for the top seeds, best-of-N matches with sides
alternating, seeding, a third-place match, drawn games, and a next round computed from recorded
results only."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from runner.season.formats import (
    NO_RESULTS,
    Done,
    Fixture,
    FormatError,
    Knockout,
    Play,
    Seeds,
    Wait,
)
from runner.season.formats.knockout import bracket_order

NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
GAME = "snakes-v2"

Judge = Callable[[Fixture], tuple[int, int]]


class Recorded:
    """Results by fixture, as the season keeps them by key."""

    def __init__(self) -> None:
        self.by_fixture: dict[Fixture, tuple[int, ...]] = {}

    def places(self, fixture: Fixture) -> tuple[int, ...] | None:
        return self.by_fixture.get(fixture)


def stronger(order: list[str]) -> Judge:
    """The entry earlier in ``order`` wins every game, whatever its seat."""

    def judge(fixture: Fixture) -> tuple[int, int]:
        x, o = fixture.seats
        return (1, 2) if order.index(x) < order.index(o) else (2, 1)

    return judge


def play_out(fmt: Knockout, entries: list[str], judge: Judge) -> tuple[Recorded, list[Play]]:
    """Ask, play everything handed out, ask again, until done; every answer along the way."""
    results = Recorded()
    steps: list[Play] = []
    while isinstance(step := fmt.next_games(entries, results), Play):
        steps.append(step)
        assert len(steps) < 100, "the knockout never finished"
        for fixture in step.games:
            assert results.places(fixture) is None, f"{fixture} was handed out twice"
            results.by_fixture[fixture] = judge(fixture)
    assert isinstance(step, Done)
    return results, steps


def matches(results: Recorded) -> dict[tuple[int, str], list[Fixture]]:
    """The games of each match, by (round, what the match is), in game order."""
    found: dict[tuple[int, str], list[Fixture]] = {}
    for fixture in sorted(results.by_fixture, key=lambda f: (f.round, f.slot[1], f.slot[0])):
        what = fixture.label.rpartition(", game")[0]
        found.setdefault((fixture.round, what), []).append(fixture)
    return found


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16, 32])
def test_the_bracket_order_keeps_the_top_seeds_apart(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    if size >= 2:
        pairs = [(order[i], order[i + 1]) for i in range(0, size, 2)]
        assert all(a + b == size + 1 for a, b in pairs), "round 1 is 1 v n, 2 v n-1, ..."
        half = size // 2
        assert 1 in order[:half] and 2 in order[half:], "seeds 1 and 2 can meet only in the final"
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


@pytest.mark.parametrize("count", [3, 5, 6, 7])
def test_byes_go_to_the_top_seeds_and_round_2_waits_for_round_1(count: int) -> None:
    entries = NAMES[:count]
    fmt = Knockout(GAME, Seeds(1))
    step = fmt.next_games(entries, NO_RESULTS)
    assert isinstance(step, Play)
    size = 1 << (count - 1).bit_length()
    byes = size - count
    playing = {name for f in step.games for name in f.seats}
    assert playing == set(entries[byes:]), "the top seeds (by name here) have the byes"
    assert {f.round for f in step.games} == {1}
    assert len(step.games) == 2 * (count - byes) // 2, "both first games of every real match"
    assert step.then == "round 2 waits for round 1's results"


def test_five_entries_one_bye_round_by_round() -> None:
    entries = ["e", "d", "c", "b", "a"]  # listing order plays no part
    fmt = Knockout(GAME, Seeds(7))
    results, steps = play_out(fmt, entries, stronger(["b", "d", "a", "e", "c"]))
    by_match = matches(results)
    assert [key for key in by_match] == [
        (1, "match 2"),  # seeds 4 v 5 (d v e); 1, 2 and 3 have byes
        (2, "match 1"),  # a v d
        (2, "match 2"),  # b v c
        (3, "final"),  # d v b
    ]
    assert {n for f in by_match[(1, "match 2")] for n in f.seats} == {"d", "e"}
    assert {n for f in by_match[(2, "match 1")] for n in f.seats} == {"a", "d"}
    assert {n for f in by_match[(2, "match 2")] for n in f.seats} == {"b", "c"}
    assert {n for f in by_match[(3, "final")] for n in f.seats} == {"b", "d"}
    assert all(len(games) == 2 for games in by_match.values()), "the stronger wins 2-0"
    # One answer per round: round 1's games, round 2's, the final's.
    assert [{f.round for f in s.games} for s in steps] == [{1}, {2}, {3}]
    assert [s.then for s in steps] == [
        "round 2 waits for round 1's results",
        "round 3 waits for round 2's results",
        "the winner waits for the results of round 3 (the final)",
    ]


def test_sides_alternate_game_by_game() -> None:
    fmt = Knockout(GAME, Seeds(1), best_of=5)

    def split(fixture: Fixture) -> tuple[int, int]:  # seat 0 always wins: every game splits
        return (1, 2)

    results, _ = play_out(fmt, ["alpha", "bravo"], split)
    games = matches(results)[(1, "final")]
    assert [f.label for f in games] == [f"final, game {n}" for n in range(1, 6)]
    assert [f.seats[0] for f in games] == ["alpha", "bravo", "alpha", "bravo", "alpha"]
    assert len({f.seed for f in games}) == 5, "games with the same seats differ in seed"
    assert fmt.next_games(["alpha", "bravo"], results) == Done()


def test_only_the_games_a_match_certainly_needs_are_handed_out() -> None:
    fmt = Knockout(GAME, Seeds(1))  # best of 3
    results = Recorded()
    step = fmt.next_games(["alpha", "bravo"], results)
    assert isinstance(step, Play) and [f.label for f in step.games] == [
        "final, game 1",
        "final, game 2",
    ]
    first, second = step.games
    results.by_fixture[first] = (1, 2)  # alpha (seat 0) wins
    assert fmt.next_games(["alpha", "bravo"], results) == Play((second,), step.then)
    results.by_fixture[second] = (1, 2)  # bravo (seat 0 in game 2) wins: 1-1
    third = fmt.next_games(["alpha", "bravo"], results)
    assert isinstance(third, Play) and [f.label for f in third.games] == ["final, game 3"]
    assert third.games[0].seats == ("alpha", "bravo")
    results.by_fixture[third.games[0]] = (2, 1)
    assert fmt.next_games(["alpha", "bravo"], results) == Done()
    assert fmt.known(["alpha", "bravo"], results).then is None


def test_the_next_round_is_computed_from_recorded_results_only() -> None:
    entries = NAMES[:4]
    fmt = Knockout(GAME, Seeds(3))
    results = Recorded()
    judge = stronger(entries)
    first = fmt.next_games(entries, results)
    assert isinstance(first, Play)
    for fixture in first.games[:-1]:
        results.by_fixture[fixture] = judge(fixture)
    known = fmt.known(entries, results)
    assert {f.round for f in known.games} == {1}, "one game missing: no round 2 yet"
    busy = fmt.next_games(entries, results, busy={first.games[-1]})
    assert busy == Wait("round 2 waits for round 1's results", (first.games[-1],))
    results.by_fixture[first.games[-1]] = judge(first.games[-1])
    assert {f.round for f in fmt.known(entries, results).games} == {1, 2}
    # The same results in another order, or the entries listed otherwise: the same answer.
    shuffled = entries[:]
    random.Random(1).shuffle(shuffled)
    again = Recorded()
    again.by_fixture = dict(reversed(list(results.by_fixture.items())))
    assert fmt.known(shuffled, again) == fmt.known(entries, results)


def test_an_explicit_seeding_and_names_not_listed() -> None:
    fmt = Knockout(GAME, Seeds(1), seeding=("delta", "nobody", "bravo"))
    assert fmt.seeds(["alpha", "bravo", "charlie", "delta", "echo"]) == [
        "delta",
        "bravo",
        "alpha",
        "charlie",
        "echo",
    ]
    step = fmt.next_games(["alpha", "bravo", "charlie", "delta", "echo"], NO_RESULTS)
    assert isinstance(step, Play)
    assert {n for f in step.games for n in f.seats} == {"charlie", "echo"}, "seeds 4 v 5"
    assert step.games[0].seats == ("charlie", "echo"), "the higher seed sits first in game 1"


def test_a_third_place_match_is_played_with_the_final() -> None:
    fmt = Knockout(GAME, Seeds(1), third_place=True)
    entries = NAMES[:4]
    results, steps = play_out(fmt, entries, stronger(entries))
    by_match = matches(results)
    assert set(by_match) == {(1, "match 1"), (1, "match 2"), (2, "final"), (2, "third place")}
    assert {n for f in by_match[(2, "final")] for n in f.seats} == {"alpha", "bravo"}
    assert {n for f in by_match[(2, "third place")] for n in f.seats} == {"charlie", "delta"}
    assert by_match[(2, "third place")][0].seats == ("charlie", "delta")
    # With three entries a semi-final is a bye: there is no one to play for third place.
    results, _ = play_out(fmt, NAMES[:3], stronger(NAMES))
    assert {what for _, what in matches(results)} == {"match 2", "final"}


def draws_then(after: list[tuple[int, int]]) -> Judge:
    """Every game is drawn, except the k-th game of the match, which ends ``after[k]``."""

    def judge(fixture: Fixture) -> tuple[int, int]:
        number = fixture.slot[0]
        return after[number - 1] if number <= len(after) else (1, 1)

    return judge


@pytest.mark.parametrize(
    ("tiebreak", "outcomes", "games", "higher_seed_wins"),
    [
        (2, [(1, 1), (1, 1), (1, 1)], 5, True),  # all drawn: the higher seed advances
        (0, [(1, 1), (1, 1), (1, 1)], 3, True),
        (2, [(1, 1), (1, 1), (1, 1), (1, 2)], 4, False),  # game 4: the lower seed sits first
        (2, [(1, 2), (1, 2), (1, 1), (1, 1), (1, 2)], 5, True),  # 1-1, then game 5 decides
        (2, [(1, 1), (2, 1), (1, 1)], 3, True),  # one win and two draws decide it
        (2, [(1, 1), (1, 2), (1, 1)], 3, False),
        (2, [(2, 1), (1, 2)], 2, False),  # 0-2: no game 3
    ],
)
def test_drawn_games_count_for_neither_and_a_level_match_plays_tiebreak_games(
    tiebreak: int, outcomes: list[tuple[int, int]], games: int, higher_seed_wins: bool
) -> None:
    fmt = Knockout(GAME, Seeds(1), tiebreak_games=tiebreak)
    results, _ = play_out(fmt, ["alpha", "bravo", "charlie"], draws_then(outcomes))
    semi = matches(results)[(1, "match 2")]  # bravo (seed 2) v charlie (seed 3)
    final = matches(results)[(2, "final")]  # alpha (seed 1) v the semi-final's winner
    assert len(semi) == games and len(final) == games
    semi_winner = "bravo" if higher_seed_wins else "charlie"
    assert {n for f in final for n in f.seats} == {"alpha", semi_winner}
    assert [f.seats[0] for f in semi] == ["bravo", "charlie"] * (games // 2) + ["bravo"] * (
        games % 2
    ), "sides alternate through the tie-break games too"


def test_identity_seeds_and_degenerate_fields() -> None:
    fmt = Knockout(GAME, Seeds(1))
    assert fmt.next_games([], NO_RESULTS) == Done()
    assert fmt.next_games(["alpha"], NO_RESULTS) == Done(), "a field of one needs no game"
    step = fmt.next_games(["alpha", "bravo"], NO_RESULTS)
    assert isinstance(step, Play) and {f.round for f in step.games} == {1}
    assert step.games != Knockout(GAME, Seeds(2)).known(["alpha", "bravo"], NO_RESULTS).games
    seeds = Counter(f.seed for f in fmt.known(NAMES, NO_RESULTS).games)
    assert max(seeds.values()) == 1
    with pytest.raises(FormatError, match="more than once: alpha"):
        fmt.known(["alpha", "alpha"], NO_RESULTS)
    with pytest.raises(ValueError, match="odd"):
        Knockout(GAME, Seeds(1), best_of=2)


def test_the_bracket_names_every_match_and_the_champion() -> None:
    fmt = Knockout(GAME, Seeds(1), third_place=True)
    entries = NAMES[:6]
    judge = stronger(["foxtrot", "charlie", "alpha", "echo", "bravo", "delta"])
    results, _ = play_out(fmt, entries, judge)
    bracket = fmt.bracket(entries, results)
    assert bracket.then is None and bracket.games == fmt.known(entries, results).games
    shown = [
        (m.round, m.pairing.what if m.pairing else "", m.winner, m.loser) for m in bracket.matches
    ]
    assert shown == [
        (1, "match 1", "alpha", None),  # a bye
        (1, "match 2", "echo", "delta"),
        (1, "match 3", "bravo", None),
        (1, "match 4", "foxtrot", "charlie"),  # seed 6 beats seed 3
        (2, "match 1", "alpha", "echo"),
        (2, "match 2", "foxtrot", "bravo"),
        (3, "final", "foxtrot", "alpha"),  # the champion
        (3, "third place", "echo", "bravo"),
    ]
    assert all(m.decided for m in bracket.matches)
    partial = Recorded()
    partial.by_fixture = {f: p for f, p in results.by_fixture.items() if f.round == 1}
    assert [m.round for m in fmt.bracket(entries, partial).matches][-2:] == [2, 2]
    assert not fmt.bracket(entries, partial).matches[-1].decided
