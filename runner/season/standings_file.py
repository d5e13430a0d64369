"""standings.json as it is read back: the document this host writes (runner/rank/standings.py,
with a knockout's bracket from runner/rank/bracket.py, the ratings from runner/rank/ratings.py
and what it judged of the results files from runner/season/results.py), checked wherever it is
read — a previous season's, seeding a knockout (runner/season/config.py); the site's; a pull
request's preview. It may have travelled as an artefact or come from a published site: nothing
in it is believed before it passes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from runner.common.documents import finite_number
from runner.season.points import points_problem

SCORE_FIELDS = ("score", "score_low", "score_high")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_document(doc: Any) -> str | None:
    """Why ``doc`` is not a standings.json this host could have written, or None (it is read
    back by the site and a PR's report, and may have travelled as an artefact)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        return "it is not a standings document (no `entries` list)"
    facts = _facts_problem(doc)
    if facts:
        return facts
    table = points_problem(doc["points"]) if "points" in doc else None
    if table:
        return f"its `points` table is malformed: {table}"
    for name, check in (("bracket", bracket_problem), ("judged", judged_problem)):
        wrong = check(doc[name]) if name in doc else None
        if wrong:
            return f"its `{name}` is malformed: {wrong}"
    for number, row in enumerate(doc["entries"], 1):
        problem = _row_problem(row)
        if problem:
            return f"row {number} of `entries`{problem}"
    wrong = ratings_problem(doc["ratings"], ranked_entries(doc)) if "ratings" in doc else None
    return f"its `ratings` are malformed: {wrong}" if wrong else None


def _facts_problem(doc: dict[str, Any]) -> str | None:
    """What is wrong with the season's facts at the top of the document, or None."""
    for key in ("game", "format", "host_version", "tie_break"):
        if key in doc and not isinstance(doc[key], str):
            return f"its `{key}` is not text"
    for key in ("season_seed", "rounds", "games_scheduled", "games_played"):
        if key in doc and not (isinstance(doc[key], int) and not isinstance(doc[key], bool)):
            return f"its `{key}` is not a whole number"
    return None


def ranked_entries(doc: Mapping[str, Any]) -> list[str]:
    """The entries a (checked) standings document ranks, in rank order."""
    return [row["entry"] for row in doc["entries"] if row.get("excluded") is None]


def _row_problem(row: Any) -> str | None:
    """What is wrong with one row of standings.json, after a colon; None if nothing."""
    if not isinstance(row, dict):
        return " is not an object"
    for key in ("entry", "name", "content_hash", "detail"):
        if not isinstance(row.get(key, ""), str) or key == "entry" and key not in row:
            return f": `{key}` is not text"
    if not isinstance(row.get("excluded"), str | None):
        return ": `excluded` is neither text nor null"
    rank_ = row.get("rank")
    if rank_ is not None and not (_count(rank_) and rank_ > 0):
        return ": `rank` is not a place"
    points = row.get("points", 0.0)
    if not finite_number(points) or points < 0:
        return ": `points` is not a finite number of points"
    if not all(_count(row.get(key, 0)) for key in ("games", "wins", "draws", "losses")):
        return ": `games`, `wins`, `draws` and `losses` must be counts"
    return _places_problem(row)


def _places_problem(row: dict[str, Any]) -> str | None:
    faults = row.get("faults", {})
    if not isinstance(faults, dict) or not all(
        isinstance(k, str) and _count(v) for k, v in faults.items()
    ):
        return ": `faults` is not a count per kind"
    places = row.get("places", [])
    if not isinstance(places, list) or not all(_count(n) for n in places):
        return ": `places` is not a count per place"
    average = row.get("average_place")
    if average is not None and not (finite_number(average) and average >= 1):
        return ": `average_place` is neither a place nor null"
    if not all(row.get(key) is None or finite_number(row[key]) for key in SCORE_FIELDS):
        return ": `score`, `score_low` and `score_high` must be numbers or null"
    return None


# -- a knockout's bracket --------------------------------------------------------------------


def _text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _game_problem(game: Any) -> str | None:
    if not isinstance(game, dict):
        return "a game is not an object"
    seats = game.get("seats")
    if not (isinstance(seats, list) and len(seats) == 2 and all(isinstance(s, str) for s in seats)):
        return "a game's `seats` are not two entry names"
    if not (isinstance(game.get("key"), str) and _count(game.get("number"))):
        return "a game has no `key` or `number`"
    if not (_text_or_none(game.get("winner")) and isinstance(game.get("recorded"), bool)):
        return "a game's `winner` or `recorded` is malformed"
    return None


def _match_problem(match: Any) -> str | None:
    if not isinstance(match, dict):
        return "a match is not an object"
    sides, wins = match.get("sides"), match.get("wins")
    if not (isinstance(sides, list) and len(sides) == 2 and all(map(_text_or_none, sides))):
        return "a match's `sides` are not two entry names (or null for a bye)"
    if not (isinstance(wins, list) and len(wins) == 2 and all(map(_count, wins))):
        return "a match's `wins` are not two counts"
    if not (_count(match.get("round")) and _count(match.get("match"))):
        return "a match's `round` or `match` is not a count"
    if not (isinstance(match.get("what"), str) and isinstance(match.get("decided"), bool)):
        return "a match's `what` or `decided` is malformed"
    if not (_text_or_none(match.get("winner")) and _text_or_none(match.get("loser"))):
        return "a match's `winner` or `loser` is malformed"
    games = match.get("games")
    if not isinstance(games, list):
        return "a match's `games` is not a list"
    return next(filter(None, map(_game_problem, games)), None)


def _reached_problem(reached: Any) -> str | None:
    if not isinstance(reached, dict):
        return "`reached` is not an object"
    for entry, info in reached.items():
        if not (isinstance(info, dict) and isinstance(info.get("stage"), str)):
            return f"`reached` of {entry!r} has no `stage`"
        standing = info.get("standing")
        numbers = ("round", "matches_won", "matches_lost", "games_won_last")
        if not (isinstance(standing, list) and all(map(_count, standing))):
            return f"`reached` of {entry!r} has no `standing`"
        if not all(_count(info.get(k)) for k in numbers) or not isinstance(info.get("out"), bool):
            return f"`reached` of {entry!r} is malformed"
    return None


def bracket_problem(bracket: Any) -> str | None:
    """Why ``bracket`` is not a bracket this host could have written, or None."""
    if not isinstance(bracket, dict):
        return "it is not an object"
    names, seeds = bracket.get("round_names"), bracket.get("seeds")
    if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        return "`round_names` is not a list of names"
    if not (isinstance(seeds, list) and all(isinstance(n, str) for n in seeds)):
        return "`seeds` is not a list of entry names"
    if not (_text_or_none(bracket.get("champion")) and _text_or_none(bracket.get("waiting"))):
        return "`champion` or `waiting` is neither text nor null"
    matches = bracket.get("matches")
    if not isinstance(matches, list):
        return "`matches` is not a list"
    problem = next(filter(None, map(_match_problem, matches)), None)
    return problem or _reached_problem(bracket.get("reached"))


def ratings_problem(section: Any, ranked: Sequence[str]) -> str | None:
    """What is wrong with standings.json's ``ratings`` (runner/rank/ratings.py's ``summary``)
    for rows ranked ``ranked``, or None."""
    if not isinstance(section, dict):
        return "it is not an object"
    entries = section.get("entries")
    if not isinstance(entries, dict) or not all(
        isinstance(name, str) and _rating_ok(r) for name, r in entries.items()
    ):
        return "`entries` is not a rating, its interval and its games per entry"
    if not set(ranked) <= set(entries):
        return "a ranked entry has no rating"
    nexts, matrix = section.get("next"), section.get("matrix")
    if not isinstance(nexts, list) or len(nexts) != max(0, len(ranked) - 1):
        return "`next` is not one LOS per ranked entry but the last"
    if not all(_probability(p) for p in nexts) or not isinstance(matrix, dict):
        return "`next` or `matrix` is malformed"
    top, rows = matrix.get("entries"), matrix.get("los")
    if not isinstance(top, list) or top != list(ranked[: len(top)]) or not isinstance(rows, list):
        return "`matrix` does not name the first ranked entries"
    square = len(rows) == len(top) and all(
        isinstance(row, list) and len(row) == len(top) for row in rows
    )
    if not square or not all(
        (p is None) == (i == j) and (p is None or _probability(p))
        for i, row in enumerate(rows)
        for j, p in enumerate(row)
    ):
        return "`matrix` is not a square of LOS values, null on its diagonal"
    return None


def _probability(value: Any) -> bool:
    return finite_number(value) and 0.0 <= value <= 1.0


def _rating_ok(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 4
        and all(finite_number(v) for v in value)
        and value[1] <= value[0] <= value[2]
        and isinstance(value[3], int)
        and value[3] >= 0
    )


def judged_problem(doc: Any) -> str | None:
    """What is wrong with a ``judged`` section (runner/season/results.py's ``judged``), or
    None."""
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
        return "it names no files"
    if not all(isinstance(d, str) and (not d or _SHA256.fullmatch(d)) for d in doc["files"]):
        return "a file's digest is not a sha256"
    if not isinstance(doc.get("koth"), str):
        return "it names no code it was read with (`koth`)"
    if not _rows(doc.get("refused"), (str, str, str)):
        return "`refused` is not a key, a digest and a reason per record"
    if not _rows(doc.get("skipped"), (int, int, str)):
        return "`skipped` is not a file number, a line number and a reason per line"
    return None


def _rows(value: Any, types: Sequence[type]) -> bool:
    """Whether ``value`` is a list of lists of one value of each of ``types``."""
    return isinstance(value, list) and all(
        isinstance(row, list)
        and len(row) == len(types)
        and all(
            isinstance(v, t) and not isinstance(v, bool) for v, t in zip(row, types, strict=True)
        )
        for row in value
    )
