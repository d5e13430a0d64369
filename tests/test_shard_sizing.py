"""How the season workflow's shards are sized (runner/cli/shards.py): how many, and their
timeouts, from the games to play and their cost; records from caches bounded."""

from __future__ import annotations

import json
import math

import pytest

from runner.cli import shards
from runner.season.config import load_config


def games(count: int, seconds: float, start: int = 0) -> list[tuple[int, float]]:
    return [(start + i, seconds) for i in range(count)]


def test_shards_play_about_the_target_each() -> None:
    # 9,900 games (100 entries) of 5 s each, 4 at a time: 206 minutes, 6 shards of 40.
    sizes = shards.size(games(9900, 5.0), jobs=4)
    assert sizes.shards == math.ceil(9900 * 5 / 4 / (shards.TARGET_MINUTES * 60))
    assert sizes.games == 9900 and sizes.total_s == 9900 * 5
    assert sizes.largest_s == pytest.approx(9900 / sizes.shards * 5 / 4, abs=5)
    assert sizes.play_minutes == math.ceil(sizes.largest_s * shards.MARGIN / 60)
    assert sizes.job_minutes == sizes.play_minutes + shards.SETUP_MINUTES
    assert sizes.fits


def test_a_few_quick_games_take_one_shard_and_the_shortest_timeout() -> None:
    sizes = shards.size(games(6, 0.3), jobs=2)
    assert (sizes.shards, sizes.play_minutes) == (1, shards.MIN_PLAY_MINUTES)
    assert json.loads(sizes.outputs()["matrix"]) == {"shard": [1]}


def test_nothing_to_play_is_one_shard_that_plays_nothing() -> None:
    sizes = shards.size([], jobs=4)
    assert (sizes.shards, sizes.games, sizes.largest_s) == (1, 0, 0.0)
    assert sizes.outputs()["shards"] == "1"


def test_never_more_shards_than_games_nor_than_the_matrix_limit() -> None:
    assert shards.size(games(3, 3600.0), jobs=1).shards == 3
    huge = shards.size(games(250_000, 20.0), jobs=1)  # 325 minutes a shard
    assert huge.shards == shards.MATRIX_CAP
    # Each shard then needs more than a job may run: capped, and said.
    assert huge.play_minutes == shards.JOB_CAP_MINUTES - shards.SETUP_MINUTES
    assert huge.job_minutes == shards.JOB_CAP_MINUTES
    assert not huge.fits


def test_the_timeout_follows_the_largest_shard() -> None:
    """Shards take games by index modulo the count: the games to play (the rest recorded) may
    fall unevenly, and the timeout is the largest shard's, not the average's."""
    todo = [(0, 600.0), (2, 600.0), (4, 600.0), (1, 60.0)]  # even indexes: shard 1 of 2
    sizes = shards.size(todo, jobs=1, count=2)
    assert sizes.largest_s == 1800.0
    assert sizes.play_minutes == math.ceil(1800 * shards.MARGIN / 60)
    # A game longer than its shard's share of the time bounds it from below.
    assert shards.size([(0, 1200.0)], jobs=4).largest_s == 1200.0


def test_a_count_given_by_hand() -> None:
    assert shards.given_count("") is None and shards.given_count(None) is None
    assert shards.given_count(" 7 ") == 7
    assert shards.size(games(6, 0.1), jobs=2, count=4).shards == 4
    for bad in ("0", "257", "x", "-1", "2.5"):
        with pytest.raises(shards.ShardsError, match="1 to 256"):
            shards.given_count(bad)


def test_measured_walls_bounded_for_records_from_caches() -> None:
    config = load_config(None, {})
    cap = shards.wall_cap(config)
    assert cap > 0
    records: list[dict[str, object]] = [
        {"measured": {"wall_s": 1.5}},
        {"measured": {"wall_s": -4}},  # taken as 0
        {"measured": {"wall_s": 1e300}},  # taken as the longest a game can last
        {"measured": {"wall_s": True}},  # not a number: not a measurement
        {"measured": {"wall_s": float("nan")}},
        {"measured": "fast"},
        {},
    ]
    assert shards.measured_walls(config, records) == [1.5, 0.0, cap]
    assert shards.default_cost(config, 2) == 2 * config.limits.game_cpu_s
