"""Ratings: Bradley–Terry on the Elo scale, finite for undefeated bots, order-independent."""

from __future__ import annotations

import math
import random

import pytest

from runner import ratings
from runner.ratings import CENTRE, Rating, fit, pair_totals, results_from_records

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
