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

The fit is Newton's method on the log-posterior, each step and the final covariance an O(n³)
solve: with numpy installed (the optional extra ``fast``) LAPACK does them (500 entries and
250,000 games in about a second, most of it adding up the games), else pure Python (seconds
at 100 entries, minutes at 500); the two agree to ~1e-12. The standings fit once and write the
result into standings.json (``summary``: ratings, intervals, the LOS the site shows), rounded
far below what either fit can tell apart so that both write the same file; the site reads it
back (``read``) and fits nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from runner.season.results import places

try:  # the optional extra `fast` (installed with `test`): the same fit, O(n³) in LAPACK
    import numpy
except ImportError:  # pragma: no cover - numpy is in the test extra
    numpy = None  # type: ignore[assignment]
HAVE_NUMPY = numpy is not None

CENTRE = 1500.0
PRIOR_SD = 400.0  # Elo points: weak — one game against an equal moves a rating by ~60
Z95 = 1.959963984540054
_K = math.log(10.0) / 400.0  # Elo points → natural log-odds
_MAX_STEPS = 100
_CONVERGED = 1e-12  # the largest step, log-odds units, after which Newton's method stops


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
) -> tuple[dict[tuple[str, str], tuple[Fraction | int, Fraction | float]], dict[str, int]]:
    """(a, b) with a < b → (weighted games between them, a's weighted score), and how many
    games each entry played against another entry. Two-seat games alone weigh 1 each: their
    counts and halves add up exactly as they are."""
    by_size: dict[int, list[Result]] = {}
    played: dict[str, int] = {}
    for game in games:
        if isinstance(game, Ranking):
            pairs, seats = pairwise(game), len(game.entries)
            met = {n for a, b, _ in pairs if a != b for n in (a, b)}
        else:
            pairs, seats = [game], 2
            met = set(game[:2]) if game[0] != game[1] else set()
        by_size.setdefault(seats, []).extend(pairs)
        for name in met:
            played[name] = played.get(name, 0) + 1
    if set(by_size) <= {2}:
        return dict(pair_totals(by_size.get(2, ()))), played
    evidence: dict[tuple[str, str], tuple[Fraction | int, Fraction | float]] = {}
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


Pair = tuple[int, int, float, float]  # (i, j, weighted games, i's weighted score), i < j
Vector = list[float]
Matrix = list[list[float]]


def _curvature(
    theta: Sequence[float], pairs: Sequence[Pair], prior: float
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


def _newton_python(n: int, pairs: Sequence[Pair], prior: float) -> tuple[Vector, Matrix]:
    """The posterior's mode and the inverse of its curvature there, in pure Python (O(n³) a
    step: seconds at 100 entries, minutes at 500)."""
    theta = [0.0] * n
    # Newton's method on a strictly concave function: each step is the exact maximum of the
    # local quadratic; it converges in a handful of steps from the prior's mean.
    for _ in range(_MAX_STEPS):
        grad, hess = _curvature(theta, pairs, prior)
        step = _solve(_cholesky(hess), grad)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < _CONVERGED:
            break
    _, hess = _curvature(theta, pairs, prior)
    low = _cholesky(hess)
    cov = [_solve(low, [1.0 if k == i else 0.0 for k in range(n)]) for i in range(n)]
    return theta, cov


def _newton_numpy(n: int, pairs: Sequence[Pair], prior: float) -> tuple[Vector, Matrix]:
    """``_newton_python``'s steps with numpy's linear algebra (LAPACK): the same mode and
    covariance to ~1e-12, 500 entries in well under a second."""
    np = numpy
    columns = list(zip(*pairs, strict=True)) if pairs else [(), (), (), ()]
    i, j = (np.array(c, dtype=np.intp) for c in columns[:2])
    count, score = (np.array(c, dtype=np.float64) for c in columns[2:])
    diagonal = np.diag_indices(n)

    def curvature(theta: Any) -> tuple[Any, Any]:
        p = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
        g = score - count * p
        w = count * p * (1.0 - p)
        grad = -prior * theta + np.bincount(i, g, n) - np.bincount(j, g, n)
        hess = np.zeros((n, n))
        hess[i, j] = -w  # each pair once: (i, j) with i < j
        hess[j, i] = -w
        hess[diagonal] = prior + np.bincount(i, w, n) + np.bincount(j, w, n)
        return grad, hess

    theta = np.zeros(n)
    for _ in range(_MAX_STEPS):
        grad, hess = curvature(theta)
        step = np.linalg.solve(hess, grad)
        theta = theta + step
        if np.max(np.abs(step), initial=0.0) < _CONVERGED:
            break
    _, hess = curvature(theta)
    return theta.tolist(), np.linalg.inv(hess).tolist()


@dataclass(frozen=True)
class Fitted:
    """The fit of a season: every entry's rating, and the posterior the LOS is read from."""

    ratings: dict[str, Rating]
    names: list[str]
    theta: Vector  # log-odds units, centred on 0
    cov: Matrix  # the Laplace approximation's covariance, log-odds units

    def los(self, a: str, b: str) -> float:
        """The likelihood of superiority of a over b (see ``superiority``)."""
        i, j = self.names.index(a), self.names.index(b)
        return _los(self.theta, self.cov, i, j)


def _los(theta: Sequence[float], cov: Sequence[Sequence[float]], i: int, j: int) -> float:
    var = max(cov[i][i] + cov[j][j] - 2.0 * cov[i][j], 1e-300)
    z = (theta[i] - theta[j]) / math.sqrt(var)
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def fitted(
    games: Iterable[Result | Ranking], entries: Iterable[str] = (), fast: bool | None = None
) -> Fitted:
    """The fit of ``games`` (two-seat results as (a, b, a's score), games of any size as
    ``Ranking``s): the rating of every entry that played and of each of ``entries``, games or
    not. ``fast``: with numpy (None: when it is installed; the optional extra ``fast``)."""
    evidence, played = _evidence(games)
    names = sorted({*entries, *(name for pair in evidence for name in pair)})
    index = {name: i for i, name in enumerate(names)}
    pairs = sorted(
        (index[a], index[b], float(count), float(score))
        for (a, b), (count, score) in evidence.items()
    )
    prior = 1.0 / (PRIOR_SD * _K) ** 2
    n = len(names)
    if not n:
        return Fitted({}, [], [], [])
    newton = _newton_numpy if (HAVE_NUMPY if fast is None else fast) else _newton_python
    theta, cov = newton(n, pairs, prior)
    # The likelihood sees only differences; the field's mean is pinned at 1500, so each
    # rating's uncertainty is that of its distance from the mean: the covariance projected
    # onto sum-zero vectors, P Σ P with P = I - 11ᵀ/n.
    row_mean = [sum(row) / n for row in cov]
    grand = sum(row_mean) / n
    found = {}
    for i, name in enumerate(names):
        var = max(0.0, cov[i][i] - 2.0 * row_mean[i] + grand)
        sd = math.sqrt(var) / _K
        mean = CENTRE + theta[i] / _K
        found[name] = Rating(name, mean, mean - Z95 * sd, mean + Z95 * sd, played.get(name, 0))
    return Fitted(found, names, list(theta), cov)


def fit(
    games: Iterable[Result | Ranking], entries: Iterable[str] = (), fast: bool | None = None
) -> dict[str, Rating]:
    """The rating of every entry that played (and of each of ``entries``, games or not).

    ``games``: two-seat results as (a, b, a's score), and games of any size as ``Ranking``s.
    """
    return fitted(games, entries, fast).ratings


def superiority(
    games: Iterable[Result | Ranking], entries: Iterable[str] = (), fast: bool | None = None
) -> dict[tuple[str, str], float]:
    """The likelihood of superiority (LOS, as ordo prints it) of every ordered pair (a, b): the
    posterior probability that a is stronger than b, ``Φ((r_a - r_b) / σ(r_a - r_b))`` with the
    difference's σ from the fit's covariance (the two ratings' correlation included). 0.5: the
    games cannot tell them apart at all; near 1: a is almost certainly stronger."""
    found = fitted(games, entries, fast)
    names, theta, cov = found.names, found.theta, found.cov
    return {
        (a, b): _los(theta, cov, i, j)
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i != j
    }


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


# -- in standings.json ---------------------------------------------------------------------------

LOS_MATRIX = 100  # the LOS of every pair among the first this many ranked entries (los.html)
_ELO_DIGITS = 4  # decimals of a rating written: numpy's fit and pure Python's agree far below
_LOS_DIGITS = 6


def summary(found: Fitted, ranked: Sequence[str], matrix: int = LOS_MATRIX) -> dict[str, Any]:
    """standings.json's ``ratings``: every entry's rating, its 95% interval and games; the LOS
    of each ranked entry over the next (``next``, in rank order), and of every pair among the
    first ``matrix`` ranked (``matrix``: its ``entries``, and row by row the LOS of each over
    each, null on the diagonal). Rounded, so that numpy's fit and pure Python's write the same
    file (they agree to ~1e-12)."""
    index = {name: i for i, name in enumerate(found.names)}

    def los(a: str, b: str) -> float:
        return round(_los(found.theta, found.cov, index[a], index[b]), _LOS_DIGITS)

    top = list(ranked[:matrix])
    return {
        "entries": {
            name: [
                round(r.rating, _ELO_DIGITS),
                round(r.low, _ELO_DIGITS),
                round(r.high, _ELO_DIGITS),
                r.games,
            ]
            for name, r in sorted(found.ratings.items())
        },
        "next": [los(a, b) for a, b in zip(ranked, ranked[1:], strict=False)],
        "matrix": {
            "entries": top,
            "los": [[None if a == b else los(a, b) for b in top] for a in top],
        },
    }


def of_records(records: Iterable[Mapping[str, Any]], ranked: Sequence[str]) -> dict[str, Any]:
    """``summary`` of the fit of ``records`` (every entry of ``ranked`` rated, games or not)."""
    return summary(fitted(results_from_records(records), ranked), ranked)


@dataclass(frozen=True)
class Shown:
    """standings.json's ``ratings`` read back: what the site shows."""

    ratings: dict[str, Rating]
    los: dict[tuple[str, str], float]  # (a, b) → LOS of a over b, for the pairs written
    matrix: list[str]  # the entries of the LOS matrix, in rank order


def read(section: Mapping[str, Any], ranked: Sequence[str]) -> Shown:
    """The ratings and LOS of a ``summary`` (checked by ``problem``), ``ranked`` as written."""
    found = {
        name: Rating(name, float(r[0]), float(r[1]), float(r[2]), int(r[3]))
        for name, r in section["entries"].items()
    }
    top = [str(name) for name in section["matrix"]["entries"]]
    los = {
        (a, b): float(p)
        for a, row in zip(top, section["matrix"]["los"], strict=True)
        for b, p in zip(top, row, strict=True)
        if a != b
    }
    nexts = zip(ranked, ranked[1:], strict=False)
    los.update(zip(nexts, map(float, section["next"]), strict=False))
    return Shown(found, los, top)
