"""A badge per entry, for its author's README: ``badges/<entry>.json`` on the site, in the
endpoint format of shields-style badge services (``schemaVersion``, ``label``, ``message``,
``color``)::

    https://img.shields.io/endpoint?url=<the site>/badges/<entry>.json

The message is the entry's place ("2nd of 7") and, ranked by points, its rating; an excluded
entry's badge says so. The file names are the entries' page names (runner/site/render.py's
``slug``), so no entry's name can place a file outside the folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from runner.rank import standings as ranking

FOLDER = "badges"
COLOURS = ("brightgreen", "green", "yellowgreen", "yellow", "orange")  # by quintile of place


def badge(row: ranking.Row, field: int, title: str, rating: float | None) -> dict[str, Any]:
    """The badge of ``row`` in a field of ``field`` ranked entries."""
    if row.excluded is not None or row.rank is None:
        return {"schemaVersion": 1, "label": title, "message": "excluded", "color": "lightgrey"}
    message = f"{ranking.ordinal(row.rank)} of {field}"
    if rating is not None:
        message += f" · {rating:.0f}"
    quintile = min(len(COLOURS) - 1, (row.rank - 1) * len(COLOURS) // max(field, 1))
    return {"schemaVersion": 1, "label": title, "message": message, "color": COLOURS[quintile]}


def write(
    site: Path,
    rows: Sequence[ranking.Row],
    title: str,
    ratings: Mapping[str, Any],
    slug: Callable[[str], str],
) -> None:
    """Write every entry's badge under ``site``/badges (``ratings``: entry → its fitted rating,
    an object with ``rating``; an entry without one shows its place alone)."""
    folder = site / FOLDER
    folder.mkdir()
    field = sum(1 for r in rows if r.excluded is None and r.rank is not None)
    for row in rows:
        fitted = ratings.get(row.entry)
        rating = float(fitted.rating) if fitted is not None else None
        data = json.dumps(badge(row, field, title, rating), ensure_ascii=False)
        (folder / f"{slug(row.entry)}.json").write_text(data + "\n", encoding="utf-8")
