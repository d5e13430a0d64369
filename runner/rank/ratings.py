"""Ratings with uncertainty: a Bradley–Terry model fitted to every game, on an Elo scale.

The model: entry i beats entry j with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``.
A game's score for i is 1 for a win, ½ for a draw and 0 for a loss (its share of the points), and
the log-likelihood of a game is ``s log p + (1 - s) log(1 - p)``: a draw counts as half a win
and half a loss. The ratings are the maximum a posteriori estimate under a weak prior, every
rating Normal(1500, PRIOR_SD²) independently: it keeps the ratings of undefeated or winless
entries finite and, being symmetric, centres the ratings on 1500 exactly.

Games of more than two seats. A game's placement is read as the pairwise order it implies:
every pair of its seats is a Bradley–Terry game, won by the seat placed better, a draw when
they share a place. The pairs of one game are not independent results, so each weighs
``pair_weight(n)`` for a game of n seats, ``4 (n - H_n) / (n (n - 1))`` with H_n the n-th
harmonic number: between entries of equal strength this gives a game exactly the Fisher
information a Plackett–Luce ranking of n carries, so the 95% intervals are neither narrower nor
wider than a ranking model's; it is 1 for two seats (today's games, unchanged), ~0.64 for four,
~0.38 for eight. Why not Plackett–Luce itself: seats share places (eggs, turns survived), and a
ranking model has no ties — averaging over the orders a tie hides costs 2^k terms for a tie of k
seats, and the usual approximations (Breslow, Efron) would change what a two-seat draw counts;
Bradley–Terry on the pairwise order takes a shared place as half a win, as a two-seat draw is,
and estimates the same strengths (full rank breaking is consistent for Plackett–Luce).

The 95% interval of each rating is ``r ± 1.96 σ``, from the inverse of the posterior's
curvature at the fit (the observed Fisher information plus the prior's: the Laplace
approximation). Games only tell differences apart, and the field's mean is 1500 by construction,
so σ is the uncertainty of a rating's distance from that mean.

Everything is deterministic and depends only on per-pair totals for each size of game (games
played and score earned, exact sums of halves), combined in exact arithmetic, so the order of
the games never changes the result.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from runner.season.results import places

CENTRE = 1500.0
PRIOR_SD = 400.0  # Elo points: weak — one game against an equal moves a rating by ~60
Z95 = 1.959963984540054
_K = math.log(10.0) / 400.0  # Elo points → natural log-odds
_MAX_STEPS = 100


@dataclass(frozen=True)
class Rating:
    entry: str
    rating: float
    low: float  # the 95% interval
    high: float
    games: int

    @property
    def margin(self) -> float:
        return (self.high - self.low) / 2.0

    def overlaps(self, other: Rating) -> bool:
        """Whether the two 95% intervals overlap: the data cannot tell the two apart."""
        return self.low <= other.high and other.low <= self.high


Result = tuple[str, str, float]  # (first entry, second entry, first entry's score in [0, 1])


@dataclass(frozen=True)
class Ranking:
    """A game of any number of seats: its entries in seat order and each one's place (1 first,
    tied seats sharing the better place)."""

    entries: tuple[str, ...]
    places: tuple[int, ...]


def pair_totals(games: Iterable[Result]) -> dict[tuple[str, str], tuple[int, float]]:
    """(a, b) with a < b → (games between them, a's total score): all the model depends on."""
    totals: dict[tuple[str, str], tuple[int, float]] = {}
    for a, b, score in games:
        if a == b:
            continue
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a game's score must be between 0 and 1, got {score!r} ({a}, {b})")
        key, mine = ((a, b), score) if a < b else ((b, a), 1.0 - score)
        count, total = totals.get(key, (0, 0.0))
        totals[key] = (count + 1, total + mine)
    return totals


def pair_weight(seats: int) -> Fraction:
    """The weight of each pair of a game of ``seats`` seats (see the module docstring)."""
    harmonic = sum((Fraction(1, k) for k in range(1, seats + 1)), Fraction(0))
    return 4 * (seats - harmonic) / (seats * (seats - 1))


def pairwise(game: Ranking) -> list[Result]:
    """Every pair of a game's seats as a Bradley–Terry game: the better place wins."""
    found = []
    for i, a in enumerate(game.entries):
        for j in range(i + 1, len(game.entries)):
            mine, theirs = game.places[i], game.places[j]
            found.append((a, game.entries[j], 1.0 if mine < theirs else 0.5 * (mine == theirs)))
    return found


def _evidence(
    games: Iterable[Result | Ranking],
) -> tuple[dict[tuple[str, str], tuple[Fraction, Fraction]], dict[str, int]]:
    """(a, b) with a < b → (weighted games between them, a's weighted score), and how many
    games each entry played against another entry."""
    by_size: dict[int, list[Result]] = {}
    played: dict[str, int] = {}
    for game in games:
        pairs = pairwise(game) if isinstance(game, Ranking) else [game]
        seats = len(game.entries) if isinstance(game, Ranking) else 2
        by_size.setdefault(seats, []).extend(pairs)
        for name in {n for a, b, _ in pairs if a != b for n in (a, b)}:
            played[name] = played.get(name, 0) + 1
    evidence: dict[tuple[str, str], tuple[Fraction, Fraction]] = {}
    for seats in sorted(by_size):
        weight = pair_weight(seats)
        for key, (count, total) in pair_totals(by_size[seats]).items():
            had_count, had_total = evidence.get(key, (Fraction(0), Fraction(0)))
            evidence[key] = (had_count + weight * count, had_total + weight * Fraction(total))
    return evidence, played


def _cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The lower-triangular L with L · Lᵀ = matrix (symmetric positive-definite)."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = matrix[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(total) if i == j else total / low[j][j]
    return low


def _solve(low: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with L · Lᵀ · x = vector, given the Cholesky factor L."""
    n = len(vector)
    y = [0.0] * n
    for i in range(n):
        y[i] = (vector[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _curvature(
    theta: Sequence[float], pairs: Sequence[tuple[int, int, float, float]], prior: float
) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-posterior and its negated Hessian, in log-odds units."""
    n = len(theta)
    grad = [-t * prior for t in theta]
    hess = [[prior if i == j else 0.0 for j in range(n)] for i in range(n)]
    for i, j, count, score in pairs:
        p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
        g = score - count * p
        w = count * p * (1.0 - p)
        grad[i] += g
        grad[j] -= g
        hess[i][i] += w
        hess[j][j] += w
        hess[i][j] -= w
        hess[j][i] -= w
    return grad, hess


@dataclass(frozen=True)
class _Posterior:
    names: list[str]
    theta: list[float]  # log-odds units, centred on 0
    cov: list[list[float]]  # the Laplace approximation's covariance, log-odds units
    played: dict[str, int]


def _posterior(games: Iterable[Result | Ranking], entries: Iterable[str]) -> _Posterior | None:
    evidence, played = _evidence(games)
    names = sorted({*entries, *(name for pair in evidence for name in pair)})
    if not names:
        return None
    index = {name: i for i, name in enumerate(names)}
    pairs = [
        (index[a], index[b], float(count), float(score))
        for (a, b), (count, score) in evidence.items()
    ]
    pairs.sort()
    prior = 1.0 / (PRIOR_SD * _K) ** 2
    theta = [0.0] * len(names)
    # Newton's method on a strictly concave function: each step is the exact maximum of the
    # local quadratic; it converges in a handful of steps from the prior's mean.
    for _ in range(_MAX_STEPS):
        grad, hess = _curvature(theta, pairs, prior)
        step = _solve(_cholesky(hess), grad)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-12:
            break
    _, hess = _curvature(theta, pairs, prior)
    low = _cholesky(hess)
    n = len(names)
    cov = [_solve(low, [1.0 if k == i else 0.0 for k in range(n)]) for i in range(n)]
    return _Posterior(names, theta, cov, played)


def fit(games: Iterable[Result | Ranking], entries: Iterable[str] = ()) -> dict[str, Rating]:
    """The rating of every entry that played (and of each of ``entries``, games or not).

    ``games``: two-seat results as (a, b, a's score), and games of any size as ``Ranking``s.
    """
    found = _posterior(games, entries)
    if found is None:
        return {}
    names, theta, cov, played = found.names, found.theta, found.cov, found.played
    n = len(names)
    # The likelihood sees only differences; the field's mean is pinned at 1500, so each
    # rating's uncertainty is that of its distance from the mean: the covariance projected
    # onto sum-zero vectors, P Σ P with P = I - 11ᵀ/n.
    row_mean = [sum(row) / n for row in cov]
    grand = sum(row_mean) / n
    ratings = {}
    for i, name in enumerate(names):
        var = max(0.0, cov[i][i] - 2.0 * row_mean[i] + grand)
        sd = math.sqrt(var) / _K
        mean = CENTRE + theta[i] / _K
        count = played.get(name, 0)
        ratings[name] = Rating(name, mean, mean - Z95 * sd, mean + Z95 * sd, count)
    return ratings


def superiority(
    games: Iterable[Result | Ranking], entries: Iterable[str] = ()
) -> dict[tuple[str, str], float]:
    """The likelihood of superiority (LOS, as ordo prints it) of every ordered pair (a, b): the
    posterior probability that a is stronger than b, ``Φ((r_a - r_b) / σ(r_a - r_b))`` with the
    difference's σ from the fit's covariance (the two ratings' correlation included). 0.5: the
    games cannot tell them apart at all; near 1: a is almost certainly stronger."""
    found = _posterior(games, entries)
    if found is None:
        return {}
    names, theta, cov = found.names, found.theta, found.cov
    los = {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                var = max(cov[i][i] + cov[j][j] - 2.0 * cov[i][j], 1e-300)
                z = (theta[i] - theta[j]) / math.sqrt(var)
                los[(a, b)] = 0.5 * math.erfc(-z / math.sqrt(2.0))
    return los


def results_from_records(records: Iterable[Mapping[str, Any]]) -> list[Result | Ranking]:
    """Game records → what ``fit`` takes: a two-seat game as (X's entry, O's entry, X's share of
    the points), a larger one as a ``Ranking`` of its placement (runner.season.results.places)."""
    found: list[Result | Ranking] = []
    for record in records:
        seats = record["seats"]
        points = [float(p) for p in record["outcome"]["points"]]
        if len(points) != len(seats):
            continue
        if len(seats) != 2:
            entries = tuple(str(s["entry"]) for s in seats)
            found.append(Ranking(entries, tuple(places(record))))
            continue
        total = points[0] + points[1]
        share = 0.5 if total <= 0 else points[0] / total
        found.append((str(seats[0]["entry"]), str(seats[1]["entry"]), share))
    return found
