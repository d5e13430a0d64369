"""Seasons across time: one JSON line per season in a history file (``site: history:``).

A season's line holds what the site compares across seasons::

    {"game": "snakes-v2", "season_seed": 1, "date": "2025-01-18T12:05:31.5Z", "games": 42,
     "entries": [{"entry": "greedy", "name": "Greedy", "hash": "…", "rank": 1,
                  "rating": 1612.4}, …]}

``date`` is the time of the season's last game (from its records, so a rendering depends on no
clock). A season is known by its game, its seed and its entries' content hashes: rendering the
same season again replaces its line, and a season with an edited entry is a new one. The file
is the host's own, yet it may have passed through caches and downloads: a line that is not a
season's shape is left out with a warning, never trusted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from runner.common.documents import ShapeError, finite_number, load_json
from runner.common.safefiles import UnsafeFileError, read_capped, replacing

Season = dict[str, Any]
HISTORY_CAP = 32 << 20  # bytes of a history file read: tens of thousands of seasons' lines


def summary(
    game: str, seed: Any, date: str, games: int, rows: Sequence[Any], ratings: Mapping[str, Any]
) -> Season:
    """This season's line: the ranked entries (``runner.rank.standings.Row``) and their ratings."""
    return {
        "game": game,
        "season_seed": seed,
        "date": date,
        "games": games,
        "entries": [
            {
                "entry": row.entry,
                "name": row.name,
                "hash": row.content_hash,
                "rank": row.rank,
                "rating": round(float(ratings[row.entry].rating), 1),
            }
            for row in rows
        ],
    }


def key(season: Season) -> tuple[Any, ...]:
    """What tells two seasons apart: the game, the seed and every entry's content hash."""
    hashes = sorted((str(e["entry"]), str(e["hash"])) for e in season["entries"])
    return (season["game"], season["season_seed"], tuple(hashes))


def _problem(season: Any) -> str | None:
    if not isinstance(season, dict):
        return "not an object"
    for field, kind in (("game", str), ("date", str), ("games", int), ("entries", list)):
        if not isinstance(season.get(field), kind):
            return f"its `{field}` is missing or not a {kind.__name__}"
    if isinstance(season["games"], bool) or season["games"] < 0:
        return "its `games` is not a count of games"
    seed = season.get("season_seed", [])
    if not (seed is None or isinstance(seed, int | str)) or isinstance(seed, bool):
        return "its `season_seed` is missing or not a number or text"
    for entry in season["entries"]:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(f), str) for f in ("entry", "name", "hash")
        ):
            return "an entry without its `entry`, `name` and `hash` as text"
        rank, rating = entry.get("rank"), entry.get("rating")
        if not isinstance(rank, int) or not isinstance(rating, int | float):
            return f"the entry {entry['entry']!r} has no whole `rank` or numeric `rating`"
        if not finite_number(rating) or not finite_number(rank) or rank < 1:
            return f"the entry {entry['entry']!r} has an impossible `rank` or `rating`"
    return None


def read(path: Path, warn: Callable[[str], None]) -> list[Season]:
    """The seasons in ``path`` (none if it does not exist), malformed lines left out. The file
    comes back from a cache as the results do: a link, a FIFO or a device there is refused, and
    no more than HISTORY_CAP bytes are read."""
    try:
        data = read_capped(path, HISTORY_CAP)
    except UnsafeFileError as exc:
        if path.exists() or path.is_symlink():
            warn(f"{exc} The history is not read: the site shows this season alone.")
        return []
    return parse(data.decode("utf-8", errors="replace"), str(path), warn)


def parse(text: str, where: str, warn: Callable[[str], None]) -> list[Season]:
    """The seasons in a history file's ``text`` (named ``where`` in warnings), malformed lines
    left out with a warning."""
    seasons: list[Season] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        problem: str | None = "not JSON"
        try:
            season = load_json(line)
        except ShapeError as exc:  # too deep, a huge number, text that is not Unicode
            season, problem = None, str(exc)
        except ValueError:
            season = None
        else:
            problem = _problem(season)
        if problem is not None:
            warn(f"{where}:{number}: not a season's line ({problem}); it is left out")
            continue
        seasons.append(season)
    return seasons


def merged(seasons: Sequence[Season], current: Season) -> list[Season]:
    """The seasons with ``current`` in (replacing the line of the same season), oldest first."""
    kept = [s for s in seasons if key(s) != key(current)]
    return sorted([*kept, current], key=lambda s: str(s["date"]))


def write(path: Path, seasons: Sequence[Season]) -> None:
    """Replace ``path`` with ``seasons``, one line each (written beside it, then renamed)."""
    lines = (json.dumps(s, ensure_ascii=False, sort_keys=True) + "\n" for s in seasons)
    with replacing(path) as handle:
        handle.write("".join(lines).encode("utf-8"))


def changes(previous: Season | None, rows: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Per ranked entry, against the season before: its rank then (None: new this season), how
    many places it rose (negative: fell) and whether its code changed since."""
    before = {e["entry"]: e for e in previous["entries"]} if previous else {}
    found = {}
    for row in rows:
        then = before.get(row.entry)
        found[row.entry] = {
            "new": then is None,
            "rose": None if then is None else int(then["rank"]) - int(row.rank),
            "edited": then is not None and then["hash"] != row.content_hash,
        }
    return found


def chart(points: Sequence[tuple[str, float]], width: int = 360, height: int = 120) -> str:
    """An SVG line chart of a rating across seasons (oldest first): dots with their date and
    rating as a title, the lowest and highest rating on the left. Text inside is escaped by
    the caller's template (this returns markup built only from numbers and dates)."""
    from markupsafe import escape

    if not points:
        return ""
    low = min(r for _, r in points)
    high = max(r for _, r in points)
    span = max(high - low, 50.0)
    mid = (low + high) / 2
    left, right, top, bottom = 44, 10, 10, 18
    step = (width - left - right) / max(len(points) - 1, 1)

    def y(rating: float) -> float:
        return top + (height - top - bottom) * (0.5 - (rating - mid) / span)

    xy = [(left + i * step, y(r)) for i, (_, r) in enumerate(points)]
    line = " ".join(f"{x:.1f},{v:.1f}" for x, v in xy)
    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{v:.1f}" r="3.5"><title>{escape(date)}: {rating:.0f}'
        f"</title></circle>"
        for (x, v), (date, rating) in zip(xy, points, strict=True)
    )
    labels = "".join(
        f'<text x="{left - 6}" y="{y(r) + 4:.1f}" text-anchor="end">{r:.0f}</text>'
        for r in sorted({low, high})
    )
    return (
        f'<svg class="history" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="rating by season">'
        f'{labels}<polyline points="{line}" fill="none"/>{dots}</svg>'
    )
