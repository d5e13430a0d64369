"""Standings: points, games, W/D/L and faults per entry, ranked with a documented tie-break.

Points: a win is 1, a draw ½ to each side, a loss 0 (the points the referee recorded in each
game's outcome). A game counts as a win for the side with more points, a draw when they are equal.
Faults are counted by kind (the game's termination: timeout, crash, invalid_move, memory,
disconnect) in the games where that entry was the one at fault.

Ranking (the tie-break), each step applied only among entries still tied by the ones before:
  1. points, most first;
  2. head-to-head points: the points each tied entry earned in the games played among the
     entries tied on points (computed once per group of equal points, not recursively);
  3. wins, most first;
  4. entry name, alphabetically (so the order is always total and reproducible).
Entries excluded by the build or the check stage are listed after the ranked ones, without a
rank, with 0 games and the reason they did not play.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

TIE_BREAK = (
    "points, then head-to-head points among the entries tied on points, then wins, then entry name"
)


@dataclass(frozen=True)
class Entrant:
    """An entry of the season: it plays, or ``excluded`` says why it does not."""

    entry: str
    name: str  # display name (the bot's bot_name once it loaded)
    content_hash: str
    excluded: str | None = None  # one line: the stage and the reason
    detail: str = ""  # the full message (compiler output, ...) for an excluded entry


@dataclass
class Row:
    entry: str
    name: str
    content_hash: str
    rank: int | None = None
    points: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    excluded: str | None = None
    detail: str = ""


Game = Mapping[str, Any]


def _tally(rows: Mapping[str, Row], records: Iterable[Game]) -> list[Game]:
    """Add every game between playing entries into ``rows``; returns the games counted."""
    counted = []
    for record in records:
        seats = [s["entry"] for s in record["seats"]]
        if not all(name in rows and rows[name].excluded is None for name in seats):
            continue
        outcome = record["outcome"]
        points = [float(p) for p in outcome["points"]]
        for seat, name in enumerate(seats):
            row = rows[name]
            row.games += 1
            row.points += points[seat]
            others = max(p for i, p in enumerate(points) if i != seat)
            if points[seat] > others:
                row.wins += 1
            elif points[seat] == others:
                row.draws += 1
            else:
                row.losses += 1
        faulty = outcome.get("faulty")
        if isinstance(faulty, int) and 0 <= faulty < len(seats):
            kind = str(outcome.get("termination", "fault"))
            faults = rows[seats[faulty]].faults
            faults[kind] = faults.get(kind, 0) + 1
        counted.append(record)
    return counted


def _head_to_head(group: set[str], games: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    earned = dict.fromkeys(group, 0.0)
    for record in games:
        seats = [s["entry"] for s in record["seats"]]
        if all(name in group for name in seats):
            for seat, name in enumerate(seats):
                earned[name] += float(record["outcome"]["points"][seat])
    return earned


def rank(entrants: Sequence[Entrant], records: Iterable[Mapping[str, Any]]) -> list[Row]:
    """The standings table: ranked playing entries, then excluded ones by name.

    ``records`` must be the season's current games (one per key); games involving an entry that
    is not a playing entrant are ignored.
    """
    rows = {
        e.entry: Row(e.entry, e.name, e.content_hash, excluded=e.excluded, detail=e.detail)
        for e in entrants
    }
    games = _tally(rows, records)
    playing = sorted((r for r in rows.values() if r.excluded is None), key=lambda r: -r.points)
    ordered: list[Row] = []
    for _, tied in groupby(playing, key=lambda r: r.points):
        group = list(tied)
        h2h = _head_to_head({r.entry for r in group}, games) if len(group) > 1 else {}
        group.sort(key=lambda r: (-h2h.get(r.entry, 0.0), -r.wins, r.entry))
        ordered += group
    for place, row in enumerate(ordered, 1):
        row.rank = place
    excluded = sorted((r for r in rows.values() if r.excluded is not None), key=lambda r: r.entry)
    return ordered + excluded


def document(rows: Sequence[Row], meta: Mapping[str, Any]) -> dict[str, Any]:
    """standings.json's content: ``meta`` (game, seed, games counts, ...) then the rows."""
    return {**meta, "tie_break": TIE_BREAK, "entries": [asdict(r) for r in rows]}


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_document(doc: Any) -> str | None:
    """Why ``doc`` is not a standings.json this host could have written, or None (it is read
    back by the site and a PR's report, and may have travelled as an artefact)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        return "it is not a standings document (no `entries` list)"
    for key in ("game", "format", "host_version", "tie_break"):
        if key in doc and not isinstance(doc[key], str):
            return f"its `{key}` is not text"
    for key in ("season_seed", "rounds", "games_scheduled", "games_played"):
        if key in doc and not (isinstance(doc[key], int) and not isinstance(doc[key], bool)):
            return f"its `{key}` is not a whole number"
    for number, row in enumerate(doc["entries"], 1):
        where = f"row {number} of `entries`"
        if not isinstance(row, dict):
            return f"{where} is not an object"
        for key in ("entry", "name", "content_hash", "detail"):
            if not isinstance(row.get(key, ""), str) or key == "entry" and key not in row:
                return f"{where}: `{key}` is not text"
        if not isinstance(row.get("excluded"), str | None):
            return f"{where}: `excluded` is neither text nor null"
        rank_ = row.get("rank")
        if rank_ is not None and not (_count(rank_) and rank_ > 0):
            return f"{where}: `rank` is not a place"
        points = row.get("points", 0.0)
        if not isinstance(points, int | float) or isinstance(points, bool):
            return f"{where}: `points` is not a number"
        if not math.isfinite(points) or points < 0:
            return f"{where}: `points` is not a finite number of points"
        if not all(_count(row.get(key, 0)) for key in ("games", "wins", "draws", "losses")):
            return f"{where}: `games`, `wins`, `draws` and `losses` must be counts"
        faults = row.get("faults", {})
        if not isinstance(faults, dict) or not all(
            isinstance(k, str) and _count(v) for k, v in faults.items()
        ):
            return f"{where}: `faults` is not a count per kind"
    return None


def write(path: Path, doc: Mapping[str, Any]) -> None:
    """Write standings.json atomically: a temporary file, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def table(rows: Sequence[Row]) -> str:
    """The standings as a plain-text table."""
    entry_w = max([5, *(len(r.entry) for r in rows)])
    name_w = min(24, max([3, *(len(r.name) for r in rows)]))
    head = (
        f"{'rank':>4}  {'entry':<{entry_w}}  {'bot':<{name_w}}  {'points':>6}  {'games':>5}"
        f"  {'W':>4}  {'D':>4}  {'L':>4}  faults"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.excluded is not None:
            lines.append(f"{'-':>4}  {r.entry:<{entry_w}}  excluded: {r.excluded}")
            continue
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(r.faults.items())) or "-"
        lines.append(
            f"{r.rank:>4}  {r.entry:<{entry_w}}  {_clip(r.name, name_w):<{name_w}}  "
            f"{r.points:>6g}  {r.games:>5}  {r.wins:>4}  {r.draws:>4}  {r.losses:>4}  {faults}"
        )
    return "\n".join(lines)
