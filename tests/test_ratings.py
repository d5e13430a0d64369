"""Ratings: Bradley–Terry on the Elo scale, finite for undefeated bots, order-independent; games
of more than two seats as the pairwise order of their placement, weighted as a ranking."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from runner.rank import ratings
from runner.rank.ratings import (
    CENTRE,
    Ranking,
    Rating,
    Result,
    fit,
    pair_totals,
    pair_weight,
    results_from_records,
)
from runner.season.standings_file import ratings_problem

GAMES = [
    *[("ann", "bob", 1.0)] * 6,
    *[("bob", "ann", 1.0)] * 2,
    *[("bob", "cy", 0.5)] * 4,
    *[("cy", "ann", 0.0)] * 3,
    ("cy", "dee", 1.0),
    ("dee", "ann", 0.5),
]


def test_shuffling_the_games_gives_the_same_ratings() -> None:
    expected = fit(GAMES)
    for seed in range(5):
        games = list(GAMES)
        random.Random(seed).shuffle(games)
        # the same games with the seats swapped are the same results
        games = [(b, a, 1.0 - s) if i % 2 else (a, b, s) for i, (a, b, s) in enumerate(games)]
        assert fit(games) == expected, "the ratings changed when the games were reordered"


def test_ratings_are_centred_and_ordered_by_strength() -> None:
    found = fit(GAMES)
    mean = sum(r.rating for r in found.values()) / len(found)
    assert mean == pytest.approx(CENTRE, abs=1e-6), "the ratings should average 1500"
    assert found["ann"].rating > found["bob"].rating > found["dee"].rating
    for r in found.values():
        assert r.low < r.rating < r.high, f"{r.entry}: the rating should lie in its interval"
        assert r.high - r.rating == pytest.approx(r.rating - r.low), "the interval is symmetric"


def test_an_undefeated_bot_has_a_finite_rating() -> None:
    found = fit([("ace", "zed", 1.0)] * 50)
    assert math.isfinite(found["ace"].rating) and math.isfinite(found["ace"].high)
    assert found["ace"].rating > 1800 and found["zed"].rating < 1200
    assert found["ace"].games == 50


def test_even_results_give_equal_ratings_and_more_games_narrow_the_interval() -> None:
    few = fit([("a", "b", 1.0), ("b", "a", 1.0)])
    many = fit([("a", "b", 1.0), ("b", "a", 1.0)] * 20)
    assert few["a"].rating == pytest.approx(CENTRE) and few["b"].rating == pytest.approx(CENTRE)
    assert many["a"].margin < few["a"].margin / 2, "40 games should say more than 2"


def test_a_draw_counts_as_half_a_win() -> None:
    draws = fit([("a", "b", 0.5)] * 4)
    split = fit([("a", "b", 1.0), ("a", "b", 0.0)] * 2)
    assert draws["a"].rating == pytest.approx(split["a"].rating)


def test_the_probability_model_matches_the_elo_formula() -> None:
    # With many games at a 3:1 score the fit approaches the Elo difference of p = 0.75.
    found = fit([("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 0.0)] * 500)
    expected = 400 * math.log10(3)
    assert found["a"].rating - found["b"].rating == pytest.approx(expected, rel=0.01)


def test_entries_without_games_get_the_prior() -> None:
    found = fit([("a", "b", 1.0)], entries=["idle"])
    idle = found["idle"]
    assert idle.rating == pytest.approx(CENTRE) and idle.games == 0
    assert found["a"].margin < idle.margin <= ratings.Z95 * ratings.PRIOR_SD
    assert fit([]) == {}


def test_overlap_means_statistically_tied() -> None:
    a = Rating("a", 1600, 1500, 1700, 10)
    assert a.overlaps(Rating("b", 1450, 1350, 1550, 10))
    assert not a.overlaps(Rating("c", 1300, 1200, 1400, 10))


def test_scores_outside_zero_to_one_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        pair_totals([("a", "b", 2.0)])


def test_records_become_results() -> None:
    record = {"seats": [{"entry": "x"}, {"entry": "o"}], "outcome": {"points": [0.5, 0.5]}}
    lost = {"seats": [{"entry": "x"}, {"entry": "o"}], "outcome": {"points": [0, 1]}}
    assert results_from_records([record, lost]) == [("x", "o", 0.5), ("x", "o", 0.0)]


# -- games of more than two seats ----------------------------------------------------------------


def test_a_two_seat_ranking_is_the_two_seat_result() -> None:
    assert fit([Ranking(("a", "b"), (1, 2))]) == fit([("a", "b", 1.0)])
    assert fit([Ranking(("a", "b"), (1, 1))]) == fit([("a", "b", 0.5)])
    assert pair_weight(2) == 1


def test_a_placement_orders_the_ratings_and_a_shared_place_rates_alike() -> None:
    found = fit([Ranking(("w", "x", "y", "z"), (3, 1, 2, 3))] * 5)
    assert found["x"].rating > found["y"].rating > found["w"].rating
    assert found["w"].rating == pytest.approx(found["z"].rating)
    assert all(r.games == 5 for r in found.values()), "a game counts once for each seat"


def test_seat_order_and_game_order_never_change_the_ratings() -> None:
    games: list[Result | Ranking] = [
        *GAMES,
        Ranking(("ann", "bob", "cy", "dee"), (1, 2, 2, 4)),
        Ranking(("dee", "cy", "ann"), (1, 3, 2)),
        Ranking(("bob", "cy", "dee", "ann", "eve"), (5, 1, 2, 3, 4)),
    ]
    expected = fit(games)
    for seed in range(5):
        rng = random.Random(seed)
        shuffled = []
        for game in games:
            if isinstance(game, Ranking):
                order = list(range(len(game.entries)))
                rng.shuffle(order)
                game = Ranking(
                    tuple(game.entries[i] for i in order), tuple(game.places[i] for i in order)
                )
            shuffled.append(game)
        rng.shuffle(shuffled)
        assert fit(shuffled) == expected


def plackett_luce_information(seats: int) -> list[list[float]]:
    """The expected Fisher information of one full Plackett–Luce ranking of ``seats`` equally
    strong players, by enumerating every order: at each stage the chosen one is drawn from those
    left, whose log-sum-exp has the Hessian diag(p) - p pᵀ."""
    info = [[0.0] * seats for _ in range(seats)]
    orders = list(itertools.permutations(range(seats)))
    for order in orders:
        for stage in range(seats):
            left = order[stage:]
            p = 1.0 / len(left)
            for i in left:
                for j in left:
                    info[i][j] += ((p if i == j else 0.0) - p * p) / len(orders)
    return info


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_a_game_carries_the_information_of_a_plackett_luce_ranking(seats: int) -> None:
    weight = float(pair_weight(seats))
    names = list(range(seats))
    pairs = [(i, j, weight, 0.5 * weight) for i, j in itertools.combinations(names, 2)]
    _, bradley_terry = ratings._curvature([0.0] * seats, pairs, 0.0)
    expected = plackett_luce_information(seats)
    for i in names:
        assert bradley_terry[i] == pytest.approx(expected[i], abs=1e-12), (
            f"a game of {seats} seats should inform seat {i} as a ranking does"
        )


def test_rankings_drawn_from_a_plackett_luce_model_give_back_its_strengths() -> None:
    strengths = {"a": 300.0, "b": 100.0, "c": 0.0, "d": -100.0, "e": -300.0}  # Elo points
    rng = random.Random(2025)
    games: list[Result | Ranking] = []
    for _ in range(300):
        seated = rng.sample(sorted(strengths), 4)
        left, order = list(seated), []
        while left:  # Plackett–Luce: the next place goes to one left, by its share of 10^(r/400)
            weights = [10 ** (strengths[e] / 400) for e in left]
            order.append(left.pop(rng.choices(range(len(left)), weights)[0]))
        games.append(Ranking(tuple(seated), tuple(order.index(e) + 1 for e in seated)))
    found = fit(games)
    assert sorted(found, key=lambda e: -found[e].rating) == ["a", "b", "c", "d", "e"]
    for entry, strength in strengths.items():
        r = found[entry]
        assert r.low < CENTRE + strength < r.high, f"{entry}: {r} misses its strength {strength}"


def test_records_of_larger_games_become_rankings_of_their_placement() -> None:
    four = {
        "seats": [{"entry": e} for e in "wxyz"],
        "outcome": {"points": [0.5, 1, 0.5, 0], "placement": [2, 1, 2, 4]},
    }
    assert results_from_records([four]) == [Ranking(("w", "x", "y", "z"), (2, 1, 2, 4))]


# -- the likelihood of superiority -----------------------------------------------------------


def test_the_likelihood_of_superiority_is_a_probability_of_each_order() -> None:
    los = ratings.superiority(GAMES)
    fitted = fit(GAMES)
    for (a, b), p in los.items():
        assert 0.0 < p < 1.0
        assert los[b, a] == pytest.approx(1.0 - p), f"LOS({a}, {b}) + LOS({b}, {a}) is 1"
        higher = fitted[a].rating > fitted[b].rating
        assert (p > 0.5) == higher, f"{a} over {b}: the higher rating is the likelier stronger"
    assert len(los) == 4 * 3
    even = ratings.superiority([("a", "b", 1.0), ("b", "a", 1.0), ("a", "b", 0.5)])
    assert even["a", "b"] == pytest.approx(0.5), "an even record cannot tell them apart"


def test_the_likelihood_of_superiority_of_a_long_match_is_cutechess_s() -> None:
    """Head to head over many games (where the prior weighs nothing) it is the normal
    approximation cutechess prints: ½ (1 + erf((W − L) / √(2 (W + L))))."""
    for wins, losses in ((60, 40), (52, 48), (300, 260)):
        games = [("a", "b", 1.0)] * wins + [("a", "b", 0.0)] * losses
        cutechess = 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))
        assert ratings.superiority(games)["a", "b"] == pytest.approx(cutechess, abs=0.01)


def test_more_games_make_the_same_score_more_certain() -> None:
    few = ratings.superiority([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)] * 2)["a", "b"]
    many = ratings.superiority([("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 20)["a", "b"]
    assert 0.5 < few < many < 1.0


# -- numpy and pure Python, and what standings.json holds ----------------------------------------


def random_season(entries: int, seed: int) -> list[Result | Ranking]:
    """A double round-robin with draws, between entries of spread strengths, and a few games of
    four seats."""
    rng = random.Random(seed)
    names = [f"e{i:02d}" for i in range(entries)]
    strength = {name: rng.uniform(-400, 400) for name in names}
    games: list[Result | Ranking] = []
    for a, b in itertools.permutations(names, 2):
        p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        roll = rng.random()
        games.append((a, b, 1.0 if roll < 0.9 * p else 0.5 if roll < 0.9 * p + 0.1 else 0.0))
    for _ in range(entries):
        seated = tuple(rng.sample(names, 4))
        games.append(Ranking(seated, tuple(rng.choice((1, 2, 2, 4)) for _ in seated)))
    return games


SMALL_SEASONS: dict[str, list[Result | Ranking]] = {
    "the games above": [*GAMES],
    "an undefeated bot": [*[("ace", "zed", 1.0)] * 50, ("zed", "mid", 0.5)],
    "eight entries": random_season(8, 1),
    "twenty entries": random_season(20, 2),
}


@pytest.mark.skipif(not ratings.HAVE_NUMPY, reason="numpy (the fast extra) is not installed")
@pytest.mark.parametrize("season", sorted(SMALL_SEASONS))
def test_numpy_fits_what_pure_python_fits(season: str) -> None:
    games = SMALL_SEASONS[season]
    slow, fast = ratings.fitted(games, ["idle"], fast=False), ratings.fitted(games, ["idle"])
    assert slow.names == fast.names
    for name in slow.names:
        mine, theirs = slow.ratings[name], fast.ratings[name]
        for value, other in ((mine.rating, theirs.rating), (mine.low, theirs.low)):
            assert value == pytest.approx(other, abs=1e-9), f"{name}: {mine}, {theirs} with numpy"
        assert mine.high == pytest.approx(theirs.high, abs=1e-9) and mine.games == theirs.games
    for a, b in itertools.permutations(slow.names, 2):
        assert slow.los(a, b) == pytest.approx(fast.los(a, b), abs=1e-12)
    ranked = sorted(slow.names)
    assert ratings.summary(slow, ranked) == ratings.summary(fast, ranked), (
        "standings.json would differ with numpy installed"
    )


def test_the_written_ratings_read_back_as_they_were_fitted() -> None:
    games = SMALL_SEASONS["eight entries"]
    found = ratings.fitted(games)
    ranked = sorted(found.names, key=lambda n: -found.ratings[n].rating)
    section = ratings.summary(found, ranked, matrix=5)
    assert ratings_problem(section, ranked) is None
    shown = ratings.read(section, ranked)
    assert shown.matrix == ranked[:5]
    for name in ranked:
        assert shown.ratings[name].rating == pytest.approx(found.ratings[name].rating, abs=1e-4)
        assert shown.ratings[name].margin == pytest.approx(found.ratings[name].margin, abs=1e-4)
    pairs = {*zip(ranked, ranked[1:], strict=False), *itertools.permutations(ranked[:5], 2)}
    assert set(shown.los) == pairs, "the LOS of the next entry down and of the matrix's pairs"
    for a, b in pairs:
        assert shown.los[a, b] == pytest.approx(found.los(a, b), abs=1e-6)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda s: s.pop("next"), "`next`"),
        (lambda s: s["entries"].pop("e03"), "a ranked entry has no rating"),
        (lambda s: s["entries"]["e01"].__setitem__(1, 9999.0), "`entries`"),
        (lambda s: s["next"].__setitem__(0, 1.5), "`next`"),
        (lambda s: s["matrix"]["los"][0].__setitem__(0, 0.5), "null on its diagonal"),
        (lambda s: s["matrix"]["entries"].reverse(), "first ranked entries"),
    ],
)
def test_malformed_written_ratings_are_named(change: Any, says: str) -> None:
    found = ratings.fitted(SMALL_SEASONS["eight entries"])
    section = ratings.summary(found, found.names, matrix=3)
    change(section)
    problem = ratings_problem(section, found.names)
    assert problem is not None and says in problem


# What the ratings were before the fit had a numpy path (main's ratings.py at 39047e7, pure Python
# and Fractions), on two of the seasons above: rating, 95% interval, games; and three LOS.
BEFORE: dict[str, dict[str, tuple[float, float, float, int]]] = {
    "the games above": {
        "ann": (1676.842090, 1477.163559, 1876.520622, 12),
        "bob": (1472.701351, 1277.188797, 1668.213905, 12),
        "cy": (1447.955996, 1248.931962, 1646.980031, 8),
        "dee": (1402.500562, 1048.210029, 1756.791096, 2),
    },
    "eight entries": {
        "e00": (1388.605984, 1262.398708, 1514.813259, 20),
        "e01": (1622.081266, 1476.890230, 1767.272301, 17),
        "e02": (1567.475014, 1439.044145, 1695.905883, 19),
        "e03": (1397.412478, 1267.600346, 1527.224610, 19),
        "e04": (1425.182187, 1297.080485, 1553.283890, 19),
        "e05": (1465.602518, 1328.585197, 1602.619838, 17),
        "e06": (1543.371143, 1411.159070, 1675.583216, 18),
        "e07": (1590.269410, 1433.293087, 1747.245734, 15),
    },
}
LOS_BEFORE = {
    ("the games above", "ann", "bob"): 0.947856087,
    ("the games above", "ann", "dee"): 0.858310468,
    ("eight entries", "e00", "e01"): 0.013969164,
    ("eight entries", "e00", "e03"): 0.463209745,
}


@pytest.mark.parametrize("fast", [False, True])
def test_the_fit_gives_the_ratings_and_intervals_it_gave_before(fast: bool) -> None:
    if fast and not ratings.HAVE_NUMPY:
        pytest.skip("numpy (the fast extra) is not installed")
    for season, expected in BEFORE.items():
        found = ratings.fitted(SMALL_SEASONS[season], fast=fast)
        for name, (rating, low, high, games) in expected.items():
            got = found.ratings[name]
            shown = (got.rating, got.low, got.high)
            assert shown == pytest.approx((rating, low, high), abs=1e-6), (
                f"{season}: {name}'s rating and interval moved"
            )
            assert got.games == games
    for (season, a, b), los in LOS_BEFORE.items():
        assert ratings.fitted(SMALL_SEASONS[season], fast=fast).los(a, b) == pytest.approx(los)
