"""A season's points table: what a game of more than two seats gives each place (``points:`` in
tournament.yaml, runner/season/config.py), as the configuration and standings.json hold it."""

from __future__ import annotations

from runner.common.documents import finite_number

LINEAR_POINTS = "linear"
MAX_PLACES = 1000
Points = str | tuple[float, ...]  # points by place in games of 3+ seats: LINEAR_POINTS or a list


def points_problem(value: object) -> str | None:
    """Why ``value`` is not a points table (``linear``, or points by place: at least one, each
    a finite number of at least 0, none more than the place before it's), or None."""
    if value == LINEAR_POINTS:
        return None
    if not isinstance(value, list | tuple) or not value:
        return "expected `linear` or a list of points by place"
    if len(value) > MAX_PLACES:
        return f"expected points for at most {MAX_PLACES} places"
    if not all(finite_number(p) and p >= 0 for p in value):
        return "expected points that are finite numbers of at least 0"
    if any(worse > better for better, worse in zip(value, value[1:], strict=False)):
        return "a place may not score more than the place before it"
    return None
