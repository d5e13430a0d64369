"""The static results site: results records + standings → HTML pages, rendered with Jinja2.

``render_site(records, standings, entries_info, out_dir)`` writes::

    index.html            leaderboard (points, W/D/L or places, faults, rating ± 95%, the
                          likelihood that each bot is stronger than the next), facts
    crosstable.html       every pair, colour-scaled, cells linking to the games: the head-to-head
                          score (two-seat games), or how often the row finished ahead of the
                          column in the games they met in (a season with larger games)
    games.html            every game
    bracket.html          a knockout's bracket: every round, every match with its games' results,
                          each game linked to its page (from standings.json's ``bracket``)
    entries/<entry>.html  an entry: verdict, games by opponent, faults, source code
    games/<key>.html      a game: final frame, move list, replay player with every frame
    los.html              the likelihood of superiority of every pair (the LOS matrix)
    rules.html            the game's rules for bot authors: its package's rules.md, as HTML
    enter.html            how to add a bot: the entry folder, its files, the pull request
    static/               site.css, replay.js
    games.jsonl           the records shown, standings.json the standings (runner/site/publish.py)
    .koth-pages.json      each page's key and its bytes' hash: the next render keeps a page
                          whose inputs did not change (runner/site/pages.py)

Replays are rebuilt from the move lists by the pure game engine, whatever the game
(runner/site/frames.py): a game page shows the final text frame and embeds, per move, the characters
that changed, going backwards from it; replay.js only applies them, it knows no rules. How a
game looks (colours, score line, move list) is chosen by game id in runner/site/frames.py. Without
JavaScript every page still reads: a game page shows its final frame and its move list, rendered
here. Everything shown that came
from an entry (names, authors, sources, fault messages) is data from a pull request: the
Environment autoescapes and JSON is HTML-safe. The output depends only on the inputs (no clock),
so a fixed fixture renders byte for byte.

Every page has the same header: the game's name (the title of its rules document, else its id),
the pages, "Add your bot" and, when the configuration names one (``site.repository``), the
season's repository; the layout fits a 390 px screen (a wide table scrolls in its own box, a
board scales to the width) and follows the reader's light or dark preference.

Every page links the rules page of the season's game, when it has one: the ``rules.md`` its
package ships (``snakes-v2`` → ``runner/games/snakes/rules.md``). The rules are CommonMark with
tables, rendered with raw HTML off (any ``<`` in the file is shown, not obeyed) and only safe
link targets (markdown-it refuses ``javascript:`` and the like).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, fields
from functools import cache, partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from runner.common import native, resources
from runner.common.documents import load_json
from runner.common.progress import to_stderr
from runner.common.safefiles import UnsafeFileError, read_capped, read_regular
from runner.games import UnknownGameError, find_game
from runner.games.base import EMPTY, ENDINGS, Setup
from runner.rank import history as seasons_file
from runner.rank import ratings
from runner.rank import standings as ranking
from runner.rank.bracket import bracket_view
from runner.rank.standings import Row
from runner.season import results
from runner.season.check import require_entries
from runner.season.config import Config, ConfigError
from runner.season.entries import LANGUAGES, SOURCES, Entrant, discover, read_source
from runner.season.points import LINEAR_POINTS, Points
from runner.season.results_key import code_digest
from runner.season.standings_file import bracket_problem, check_document
from runner.site import badges, pages, replays
from runner.site.frames import (
    ReplayError,
    board_html,
    move_items,
    move_list_html,
    page_data,
    presentation,
    replay,
)
from runner.site.publish import SEASONS, publish

MARKER = ".koth-site"  # marks a folder this module made, so re-rendering may replace it
VERDICT_CAP = 1 << 20  # a cached build or check verdict (build/<entry>/*.json)
STANDINGS_CAP = 64 << 20  # standings.json


class SiteError(ValueError):
    """The site cannot be written where asked (one sentence with the fix)."""


@dataclass(frozen=True)
class EntryInfo:
    """What the site shows about an entry beyond its results."""

    entry: str
    author: str = ""
    description: str = ""
    source: str = ""
    source_name: str = "bot.c"
    verdict: str = ""  # build/check verdict in words, when known


def _warn(text: str) -> None:
    """A warning on stderr (it may quote a cached record: ``to_stderr`` lets no control
    character through)."""
    to_stderr(f"warning: {text}")


def _canonical(record: results.RecordView) -> tuple[int, tuple[str, ...], str]:
    return record.get("round", 0), tuple(s["entry"] for s in record["seats"]), record.get("key", "")


def read_standings(
    standings: Mapping[str, Any] | None,
    records: Sequence[results.RecordView],
    points: Points = LINEAR_POINTS,
) -> tuple[dict[str, Any], list[Row], list[results.RecordView]]:
    """The adapter from standings.json and results records to what the pages need.

    Returns the season's facts, the rows in rank order (excluded entries last) and the records
    counted: those whose every seat is a playing entry with the same content hash — or, in a
    game of more than two seats, a built-in bot filling the table — (and the same
    game and season seed, when standings.json names them). Without standings, the records are
    ranked here with runner.rank.standings (games of more than two seats by the ``points`` table).
    """
    unique: dict[str, results.RecordView] = {}
    for number, record in enumerate(records):
        unique.setdefault(str(record.get("key") or number), record)
    records = sorted(
        unique.values(), key=_canonical
    )  # the order of runner.season.results.canonical
    if standings is None:
        seen = {s["entry"]: s for r in records for s in r["seats"]}
        entrants = [
            Entrant(e, str(s.get("name", e)), str(s.get("hash", "")))
            for e, s in sorted(seen.items())
        ]
        table = {} if points == LINEAR_POINTS else {"points": list(points)}
        by_score = bool(records) and ranking.ranks_by_score(str(records[0].get("game", "")))
        standings = ranking.document(ranking.rank(entrants, records, points, by_score), table)
    known = {f.name for f in fields(Row)}
    rows = [Row(**{k: v for k, v in row.items() if k in known}) for row in standings["entries"]]
    playing = {r.entry: r.content_hash for r in rows if r.excluded is None}

    def current(record: results.RecordView) -> bool:
        for key in ("game", "season_seed"):
            if key in standings and key in record and standings[key] != record[key]:
                return False
        seats = record["seats"]
        ours = [s for s in seats if s["entry"] in playing]
        # A larger game's seats that are no entrant are built-in bots filling a table.
        if not ours or (len(ours) < len(seats) and len(seats) <= 2):
            return False
        return all(playing[s["entry"]] in ("", s.get("hash", "")) for s in ours)

    meta = {k: v for k, v in standings.items() if k != "entries"}
    return meta, rows, [r for r in records if current(r)]


# -- the rules page ----------------------------------------------------------------------------


def rules_path(game_id: str) -> Path | None:
    """The rules page of a game id, shipped in its package, if the game is known and has one."""
    try:
        document = find_game(game_id).rules_doc
    except UnknownGameError:
        return None
    return document if document is not None and document.is_file() else None


def _add_game_look(stylesheet: Path, game_id: str) -> None:
    """The season's game's own look (its package's site.css) after the shared one."""
    try:
        own = find_game(game_id).site_css
    except UnknownGameError:
        return
    if own is not None:
        with stylesheet.open("a", encoding="utf-8") as out:
            out.write("\n" + own.read_text(encoding="utf-8"))


def game_title(game_id: str, rules: Path | None) -> str:
    """The game's name for the header: its rules document's title up to the colon, dash or
    parenthesised id (``# Cluster: the rules …`` → ``Cluster``), else the game id."""
    if rules is not None:
        first = rules.read_text(encoding="utf-8").split("\n", 1)[0]
        if first.startswith("# "):
            name = re.split(r":| —| \(`", first[2:], maxsplit=1)[0].strip()
            if name:
                return name
    return game_id


def entry_files(game_id: str) -> list[tuple[str, str]]:
    """The languages an entry of the game may be written in, each with its source's name."""
    try:
        languages: Sequence[str] = find_game(game_id).languages
    except UnknownGameError:
        languages = LANGUAGES
    return [(language, SOURCES[language]) for language in languages]


def rules_html(text: str) -> Markup:
    """A rules document (CommonMark with tables) as HTML: raw HTML in it is escaped, not passed
    through, and links with unsafe targets stay text."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return Markup(md.render(text))


# -- pages -----------------------------------------------------------------------------------


@cache  # asked for every seat of every game
def slug(name: str) -> str:
    """A file name for an entry: the name itself when it is a valid entry name."""
    if re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", name):
        return name
    return "entry-" + hashlib.sha256(name.encode()).hexdigest()[:12]


def _page_name(number: int, key: str, short: bool) -> str:
    if not re.fullmatch(r"[0-9a-f]{12,64}", key):
        return f"game-{number}"
    return key[:12] if short else key


def heat(fraction: float) -> str:
    """A CSS background from red (0) through pale yellow (½) to green (1)."""
    hue = round(5 + 130 * fraction)
    light = round(90 - 14 * abs(fraction - 0.5) * 2)
    return f"background:hsl({hue},65%,{light}%)"


def when(stamp: str) -> str:
    return stamp.replace("T", " ")[:16] + " UTC" if stamp else ""


_OTHER = {"W": "L", "D": "D", "L": "W"}  # the other seat's result in a two-seat game


def _seat_results(record: results.RecordView) -> list[tuple[str, str]]:
    """Each seat's result as shown and its colour (the CSS class ``r-W``, ``r-D`` or ``r-L``):
    W/D/L in a two-seat game; in a larger one the place, green for first, red for last."""
    points = [float(p) for p in record["outcome"]["points"]]
    if len(points) == 2:
        x, o = points
        mark = "W" if x > o else "D" if x == o else "L"
        return [(mark, mark), (_OTHER[mark], _OTHER[mark])]
    placement = results.places(record)
    last = max(placement)
    return [
        (ranking.ordinal(p), "W" if p == 1 else "L" if p == last and p > 1 else "D")
        for p in placement
    ]


def _seat_faults(record: results.RecordView) -> dict[int, dict[str, Any]]:
    """The first fault of each seat in ``outcome.faults`` (the faults a larger game went on
    after), with its ending in words."""
    found: dict[int, dict[str, Any]] = {}
    for fault in record["outcome"].get("faults") or ():
        kind = str(fault.get("termination", ""))
        found.setdefault(
            int(fault["seat"]),
            {
                "termination": kind,
                "ending": ENDINGS.get(kind, kind),
                "detail": str(fault.get("detail", "")),
                "turn": fault.get("turn"),
            },
        )
    return found


def _winner(seats: Sequence[Mapping[str, Any]], placing: bool) -> str:
    first = [s["seat"] for s in seats if s["mark"] == "W"]
    if not placing:
        return f"{first[0]} wins" if first else "draw"
    if len(first) == 1:
        return f"{first[0]} wins"
    return f"{', '.join(first[:-1])} and {first[-1]} share first"


Seating = tuple[tuple[str, str], ...]


def _seating(game_id: str, seats: int) -> Seating:
    """Each seat's name and CSS class in a game of ``seats`` seats of ``game_id``."""
    names = find_game(game_id).info.seat_names
    show = presentation(game_id)
    return tuple(
        (names[i] if i < len(names) else f"seat {i + 1}", show.seat_class(i)) for i in range(seats)
    )


def replay_command(key: str, seat: int, entry: str | None) -> str:
    """The command that feeds ``entry``'s bot the exact inputs of ``seat`` (0-based) in the game
    ``key`` (``koth replay``, runner/tools/replay/); without an entry, the one that shows them."""
    command = f"koth replay {shlex.quote(key)} --seat {seat + 1}"
    return f"{command} --bot {shlex.quote(entry)}" if entry else command


def play_command(record: results.RecordView, config: str | None = None) -> str:
    """The ``koth play`` command that plays ``record``'s game again: its entries in its seats,
    its seed and its setup, with the season's configuration (``config``: the file as the
    reader names it; None: the default ./tournament.yaml)."""
    words = ["koth", "play", *(str(s["entry"]) for s in record["seats"])]
    words += ["--seed", str(record["seed"])]
    if record.get("setup"):
        words += ["--setup", str(record["setup"]["name"])]
    if config is not None:
        words += ["--config", config]
    return shlex.join(words)


SPEEDS = (4, 16, 64, 256)  # the replay player's speeds, moves per second
WATCH_S = 16  # a replay played at its default speed lasts about this long at most


def default_speed(steps: int) -> int:
    """The slowest speed that plays the whole game in WATCH_S seconds (the fastest, else)."""
    return next((speed for speed in SPEEDS if steps <= speed * WATCH_S), SPEEDS[-1])


def _game_view(
    number: int,
    record: results.RecordView,
    page: str,
    names: Mapping[str, str],
    seatings: dict[tuple[str, int], Seating],
    table: Points,
) -> dict[str, Any]:
    outcome = record["outcome"]
    # the season's points (its table for games of 3+ seats), as the leaderboard counts them
    points = [float(p) for p in ranking.game_points(record, table)]
    seated = (record["game"], len(points))  # its seats' names and classes, worked out once
    seating = seatings.get(seated) or seatings.setdefault(seated, _seating(*seated))
    shown = _seat_results(record)
    faults = _seat_faults(record) if outcome.get("faults") else {}
    outputs = record.get("measured", {}).get("output") or ()
    seats = [
        {
            "index": i,
            "seat": seating[i][0],
            "class": seating[i][1],
            "entry": s["entry"],
            "name": names.get(s["entry"], s.get("name", s["entry"])),
            "points": points[i],
            "result": shown[i][0],
            "mark": shown[i][1],
            "fault": faults.get(i),
            "output": str(outputs[i]) if i < len(outputs) else "",  # what the bot printed
        }
        for i, s in enumerate(record["seats"])
    ]
    return {
        "number": number,
        "page": page,
        "record": record,
        "seats": seats,
        "faulty": outcome.get("faulty"),
        "moves": len(record["moves"]),
        "ending_html": _ending_html(outcome),  # how it ended (_macros.html's ending(g))
        # and for a game with a page of its own (_own_pages): "winner" and "when"
    }


def _ending_html(outcome: Mapping[str, Any]) -> Markup:
    """How a game ended, as _macros.html's ``ending`` shows it."""
    shown = _ending_span(str(outcome["termination"]))
    detail = outcome.get("detail", "")
    return Markup(shown + (f": {escape(detail)}" if detail else ""))


@cache
def _ending_span(termination: str) -> str:
    ending = escape(ENDINGS.get(termination, termination))
    return f'<span class="end end-{escape(termination)}">{ending}</span>'


def _environment() -> Environment:
    # The templates' compiled code is kept between runs in a folder of this user's alone (each
    # process of a site compiles them otherwise: ~0.13 s of CPU); Jinja compiles a template
    # again when its source changes.
    kept = native.private_folder("templates")
    env = Environment(
        loader=FileSystemLoader(resources.templates()),
        bytecode_cache=FileSystemBytecodeCache(str(kept)) if kept is not None else None,
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # a template does not change while a site is made: no stat a page
    )
    # points: halves in two-seat games, thirds and the like in larger ones (two decimals)
    env.filters["num"] = num
    env.filters["elo"] = lambda x: f"{x:.0f}"
    env.filters["place"] = lambda x: "–" if x is None else f"{x:.2f}"
    env.filters["percent"] = percent
    env.filters["when"] = when
    return env


_cached_environment = cache(_environment)  # one per process: templates compiled once


def num(x: Any) -> str:
    """Points: halves in two-seat games, thirds and the like in larger ones (two decimals)."""
    return f"{round(x, 2):g}" if isinstance(x, float) else str(x)


_GAMES_HEAD = (
    '<div class="scroll">\n<table class="games">\n<thead><tr><th>#</th><th>Seat</th>'
    "<th>Result</th><th>Points</th><th>How it ended</th><th>Moves</th></tr></thead>\n"
    "<tbody>\n"
)


def _games_html(
    groups: Sequence[tuple[str, str, Seated]], root: str, met_at_tables: Sequence[str] = ()
) -> Markup:
    """An entry page's games, a section per opponent (an empty opponent: the games of more
    than two seats, each once, marked with the opponents ``met_at_tables`` only there), a table
    row per game: its number and result linking the game,
    its seat, points, ending and moves. Made here, not in entry.html: a 500-entry season has
    250,000 sections and 500,000 rows, ~40 µs each through a template's macros, a few here
    (every text escaped as the template would)."""
    html = []
    shown: dict[Any, str] = {}  # a seat's name, a result, points: a few texts, escaped once

    def text(value: Any) -> str:
        found = shown.get(value)
        if found is None:
            found = shown[value] = str(escape(num(value)))
        return found

    for opponent, name, played in groups:
        if not opponent:
            # what the cross-table links to for a pair that met at these tables: here
            marks = "".join(f'<span id="vs-{escape(slug(o))}"></span>' for o in met_at_tables)
            html.append(f'<section id="tables">{marks}\n<h3>{escape(name)}</h3>\n{_GAMES_HEAD}')
        else:
            page = escape(f"{root}entries/{slug(opponent)}.html")
            html.append(
                f'<section id="vs-{escape(slug(opponent))}">\n<h3>against <a href="{page}">'
                f"{escape(name)}</a></h3>\n{_GAMES_HEAD}"
            )
        for g, me in played:
            link = f'<a href="{root}{escape(g["href"])}">'
            html.append(
                f'<tr><td class="num">{link}{g["number"]}</a></td><td>{text(me["seat"])}</td>'
                f'<td class="r-{text(me["mark"])}">{link}{text(me["result"])}</a></td>'
                f'<td class="num">{text(me["points"])}</td><td>{g["ending_html"]}</td>'
                f'<td class="num">{g["moves"]}</td></tr>\n'
            )
        html.append("</tbody>\n</table>\n</div>\n</section>\n")
    return Markup("".join(html))


def percent(p: float) -> str:
    """A likelihood as a whole percentage; never 0% or 100%, which the games cannot show."""
    if p >= 0.995:  # 99.5 would print as 100
        return ">99%"
    if p <= 0.005:
        return "<1%"
    return f"{p * 100:.0f}%"


@dataclass(frozen=True)
class SiteReport:
    out_dir: Path
    pages: int
    game_pages: int
    game_bytes: int  # all game pages together
    seasons: tuple[dict[str, Any], ...] = ()  # the history with this season in (site.history)
    reused: int = 0  # pages taken from the site rendered before: their inputs had not changed

    @property
    def average_game_page(self) -> float:
        return self.game_bytes / self.game_pages if self.game_pages else 0.0

    def summary(self) -> str:
        return (
            f"site: {self.pages} pages in {self.out_dir}; {self.game_pages} game pages, "
            f"{self.average_game_page / 1024:.1f} KiB on average"
            + (f"; {self.reused} unchanged, kept" if self.reused else "")
        )


def _season(
    meta: Mapping[str, Any], rows: list[Row], records: list[results.RecordView]
) -> dict[str, Any]:
    """What every page may show: the games, the standings, ratings, facts, the cross-table."""
    names = {r.entry: r.name for r in rows}
    keys = [str(r.get("key", "")) for r in records]
    short = len({k[:12] for k in keys}) == len(keys)
    seatings: dict[tuple[str, int], Seating] = {}
    table = meta.get("points", LINEAR_POINTS)
    games = [
        _game_view(i, r, _page_name(i, k, short), names, seatings, table)
        for i, (r, k) in enumerate(zip(records, keys, strict=True), 1)
    ]
    ranked = [r for r in rows if r.excluded is None]
    order = [r.entry for r in ranked]
    # fitted once, by the standings (standings.json's ``ratings``); else here, the same way
    rated = ratings.read(meta.get("ratings") or ratings.of_records(records, order), order)
    los = rated.los
    by_score = meta.get("ranking") == "score"
    tied = ranking.tied_above(rows) if by_score else {}  # the rank above, intervals overlapping
    stamps = sorted(filter(None, (str(r.get("measured", {}).get("when", "")) for r in records)))
    first = records[0] if records else {}
    facts = {
        "game": meta.get("game", first.get("game", "")),
        "format": meta.get("format", ""),
        "rounds": meta.get("rounds", ""),
        "seed": meta.get("season_seed", first.get("season_seed", "")),
        "games": len(records),
        "scheduled": meta.get("games_scheduled", len(records)),
        "versions": ", ".join(sorted({str(r.get("host_version", "?")) for r in records})),
        "first": when(stamps[0]) if stamps else "",
        "last": when(stamps[-1]) if stamps else "",
        "last_stamp": stamps[-1] if stamps else "",  # when its last game was played (ISO)
        "tie_break": meta.get("tie_break", ""),
    }
    # after "ranked by points": what breaks ties, without saying "points" again
    facts["ties"] = re.sub(r"^points, then ", "", str(facts["tie_break"]))
    rules = rules_path(str(facts["game"]))
    facts["title"] = game_title(str(facts["game"]), rules)
    placing = any(len(g["seats"]) > 2 for g in games)
    bracket = _bracket(meta, games, names)
    every = _own_pages(games, ranked, bracket, str(facts["game"]))
    crossed = {r.entry for r in ranked[:CROSS_TABLE]}
    return {
        "facts": facts,
        "rows": rows,
        "ranked": ranked,
        "ratings": rated.ratings,
        "tied": tied,
        "by_score": by_score,  # ranked by mean score per game (runner/rank/standings.py)
        "score_header": _score_header(str(facts["game"])) if by_score else "",
        "los": los,  # (a, b) → the likelihood that a is stronger than b, for the pairs shown
        "los_ranked": ranked[: len(rated.matrix)],  # los.html's rows and columns
        # each ranked entry → the likelihood it is stronger than the next, and the next's row
        "below": {
            a.entry: (los[a.entry, b.entry], b) for a, b in zip(ranked, ranked[1:], strict=False)
        },
        "games": games,
        "seated": _seated(games),
        "every": every,  # every game has a page of its own (else: runner/site/replays.py)
        "listed": games if every else [g for g in games if g["own"]],  # games.html's
        "names": names,
        "cross": _cross(games, crossed),
        "cross_ranked": ranked[:CROSS_TABLE],  # crosstable.html's rows and columns
        "meet": _meetings(games, crossed),
        "placing": placing,  # a season with games of more than two seats
        "wdl": not placing or any(len(g["seats"]) == 2 for g in games),
        "place_names": [ranking.ordinal(k) for k in range(1, len(ranked[0].places) + 1)]
        if ranked
        else [],
        "points_rule": _points_rule(meta.get("points", LINEAR_POINTS), games) if placing else "",
        "slug": slug,
        "heat": heat,
        "rules": rules,
        "bracket": bracket,  # a knockout's (runner/rank/bracket.py), else None
        "match_of": bracket["match_of"] if bracket else {},
    }


CROSS_TABLE = 100  # the cross-table's entries at most: the first ranked


def _own_pages(
    games: Sequence[dict[str, Any]],
    ranked: Sequence[Row],
    bracket: Mapping[str, Any] | None,
    game_id: str,
) -> bool:
    """Each game marked with whether it has a page of its own (``own``) and its address from
    the site's root (``href``), by runner/site/replays.py's rule; whether every game has one."""
    every = replays.every_game(games, game_id)
    ranks = {r.entry: r.rank for r in ranked if r.rank is not None}
    chosen = (
        set() if every else replays.featured(games, ranks, bracket["match_of"] if bracket else ())
    )
    for i, game in enumerate(games):
        game["own"] = every or i in chosen
        game["href"] = replays.link(game["page"], game["own"])
        if game["own"]:  # what only its page and the games page show (at most 10 keys else)
            game["winner"] = _winner(game["seats"], len(game["seats"]) > 2)
            game["when"] = when(game["record"].get("measured", {}).get("when", ""))
    return every


def _score_header(game_id: str) -> str:
    """What a game calls its score (``Presentation.score_header``: "Eggs")."""
    try:
        return find_game(game_id).presentation.score_header
    except UnknownGameError:
        return "Score"


def _bracket(
    meta: Mapping[str, Any], games: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> dict[str, Any] | None:
    """A knockout season's bracket as the pages show it (standings.json's ``bracket``)."""
    found = meta.get("bracket")
    if not isinstance(found, dict) or bracket_problem(found):
        return None
    pages = {str(g["record"].get("key", "")): g["page"] for g in games}
    game_id = str(meta.get("game", games[0]["record"]["game"] if games else ""))
    try:
        spec = find_game(game_id)
    except UnknownGameError:
        return bracket_view(found, pages, names)
    show = spec.presentation
    seats = [(spec.seat_name(i), show.seat_class(i)) for i in range(spec.info.max_players)]
    return bracket_view(found, pages, names, seats)


def _cross(
    games: Sequence[Mapping[str, Any]], shown: Set[str]
) -> dict[tuple[str, str], list[float]]:
    """The head-to-head score of the entries ``shown`` (the cross-table's): (a, b) → [a's
    points, a's and b's points] in their games."""
    cross: dict[tuple[str, str], list[float]] = {}
    for g in games:
        for a in g["seats"]:
            for b in g["seats"]:
                if a is not b and a["entry"] in shown and b["entry"] in shown:
                    total = cross.setdefault((a["entry"], b["entry"]), [0.0, 0.0])
                    total[0] += a["points"]
                    total[1] += a["points"] + b["points"]
    return cross


def _meetings(
    games: Sequence[Mapping[str, Any]], shown: Set[str]
) -> dict[tuple[str, str], dict[str, int]]:
    """How the entries ``shown`` (the cross-table's) finished against each other: (a, b) → how
    many games they met in, how many of them a finished ahead of b (a better place, or a win)
    and how many level."""
    meet: dict[tuple[str, str], dict[str, int]] = {}
    for g in games:
        if sum(s["entry"] in shown for s in g["seats"]) < 2:
            continue
        placement = results.places(g["record"])
        for i, a in enumerate(g["seats"]):
            for j, b in enumerate(g["seats"]):
                if i != j and a["entry"] in shown and b["entry"] in shown:
                    cell = meet.setdefault((a["entry"], b["entry"]), dict.fromkeys(_MEET, 0))
                    cell["met"] += 1
                    cell["ahead"] += placement[i] < placement[j]
                    cell["level"] += placement[i] == placement[j]
    return meet


_MEET = ("met", "ahead", "level")


def _points_rule(table: Any, games: Sequence[Mapping[str, Any]]) -> str:
    """The season's points in words, for a season with games of more than two seats."""
    if not isinstance(table, list | tuple):  # linear, the default
        largest = max(len(g["seats"]) for g in games)
        points = ranking.table_points(LINEAR_POINTS, range(1, largest + 1))
        example = ", ".join(f"{float(p):.3g}" for p in points)
        rule = f"by place, first 1 and last 0, evenly spaced ({largest} seats: {example})"
    else:
        rule = "by place: " + ", ".join(f"{p:g}" for p in table) + ", then 0"
    rule += "; tied seats share the points of the places they span"
    if any(len(g["seats"]) == 2 for g in games):
        rule += "; in two-seat games win 1, draw ½, loss 0"
    return rule


def _history(season: Mapping[str, Any], history: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """This season among the others of its game: the seasons (oldest first), each ranked
    entry's change since the season before, and each entry's rating chart across seasons."""
    facts = season["facts"]
    current = seasons_file.summary(
        str(facts["game"]),
        facts["seed"],
        str(facts["last_stamp"]),
        int(facts["games"]),
        season["ranked"],
        season["ratings"],
    )
    same_game = [s for s in history if s["game"] == current["game"]]
    seasons = seasons_file.merged(same_game, current)
    at = next(i for i, s in enumerate(seasons) if seasons_file.key(s) == seasons_file.key(current))
    previous = seasons[at - 1] if at > 0 else None
    charts = {}
    for row in season["ranked"]:
        points = [
            (when(str(s["date"])), float(e["rating"]))
            for s in seasons[: at + 1]
            for e in s["entries"]
            if e["entry"] == row.entry
        ]
        charts[row.entry] = Markup(seasons_file.chart(points))
    return {
        "seasons": seasons,
        "current": at,
        "previous": previous,
        "changes": seasons_file.changes(previous, season["ranked"]),
        "charts": charts,
    }


Seated = list[tuple[dict[str, Any], dict[str, Any]]]  # (a game, a seat of it)


def _seated(games: Sequence[dict[str, Any]]) -> dict[str, Seated]:
    """Each entry's games, in order, with its seat in each."""
    found: dict[str, Seated] = {}
    for game in games:
        for seat in game["seats"]:
            found.setdefault(seat["entry"], []).append((game, seat))
    return found


def _entry_page(row: Row, season: Mapping[str, Any]) -> dict[str, Any]:
    """An entry's two-seat games grouped by opponent (in rank order), its games of more seats
    each once, and the games it faulted in."""
    order = {r.entry: i for i, r in enumerate(season["rows"])}
    mine = season["seated"].get(row.entry, [])
    groups: dict[str, Seated] = {}
    tables: Seated = []
    for g, me in mine:
        if len(g["seats"]) > 2:
            tables.append((g, me))
            continue
        for other in g["seats"]:
            if other is not me:
                groups.setdefault(other["entry"], []).append((g, me))
    by_opponent = [
        (e, season["names"].get(e, e), groups[e])
        for e in sorted(groups, key=lambda e: (order.get(e, len(order)), e))
    ]
    met: list[str] = []
    if tables:
        by_opponent.append(("", f"at tables of more than two ({len(tables)} games)", tables))
        others = {s["entry"] for g, me in tables for s in g["seats"] if s is not me}
        met = sorted(others - set(groups), key=lambda e: (order.get(e, len(order)), e))
    faults = [(g, me) for g, me in mine if g["faulty"] == me["index"] or me["fault"]]
    return {
        "row": row,
        "info": season["infos"][row.entry],
        "games_html": _games_html(by_opponent, "../", met),
        "faults": faults,
    }


WIDE_MOVE = 20  # characters: a move list's line longer than this gets wider columns (8 seats)
Setups = Mapping[tuple[str, str], Setup]  # (name, hash) → a setup's content, from the config


def _setup_of(record: results.RecordView, setups: Setups) -> Setup:
    """The setup a record was played with (the config's, checked by its hash), or none."""
    used = record.get("setup")
    if used is None:
        return EMPTY
    content = setups.get((used["name"], used["hash"]))
    if content is None:
        raise ReplayError(
            f"it was played with the setup {used['name']!r}, which the configuration no "
            "longer holds as it was"
        )
    return content


def _game_page(game: dict[str, Any], setup: Setup) -> dict[str, Any]:
    """A game's replay (compact, for replay.js), its final frame and its move list."""
    rep = replay(game["record"], setup)
    show = presentation(rep.game)
    lines = rep.final.split("\n")
    return {
        "speeds": SPEEDS,
        "speed": default_speed(len(rep.steps)),
        "game": game,
        "shape": (columns := max(map(len, lines)), len(lines)),  # the board's (css)
        # A board taller than wide (a character ~.6em wide, a line 1.15em): on a wide screen the
        # seats' table stands beside it, so the board and its controls fit one screen.
        "tall": len(lines) * 1.15 > columns * 0.6,
        "replay": page_data(rep, show, f"{game['page']}.txt"),
        "board": board_html(rep.final, show, rep.layers[-1] if rep.layers else ""),
        "move_list": move_list_html(items := move_items(rep, show.by_turn)),
        "wide_moves": max(map(len, items), default=0) > WIDE_MOVE,
        "steps": len(rep.steps),
        "final_scores": rep.final_scores,
        "final_turn": rep.turns[-1],
        "show": show,
    }


@pages.fewer_collections()
def render_site(
    results_records: Sequence[results.RecordView],
    standings: Mapping[str, Any] | None,
    entries_info: Mapping[str, EntryInfo],
    out_dir: Path,
    warn: Callable[[str], None] = _warn,
    points: Points = LINEAR_POINTS,
    setups: Setups | None = None,
    repository: str | None = None,
    config_file: str | None = None,
    history: Sequence[dict[str, Any]] | None = None,
    jobs: int = 1,
    results_key: str | None = None,
    lines: Mapping[str, bytes] | None = None,
) -> SiteReport:
    """Render the site into ``out_dir``, replacing a site rendered there before.

    ``out_dir`` must be new, empty or made by this function (it holds MARKER): the site is
    written beside it first and then swapped in, so a failure leaves the old site whole.
    Without ``standings`` the records are ranked here, by the ``points`` table.
    ``repository``: the season's repository (a link in every page's header), if configured.
    ``config_file``: the season's tournament.yaml as a reader names it in a checkout, for the
    command that plays a game again (None: the default, ./tournament.yaml).
    ``history``: the seasons before (runner/rank/history.py), for rank changes, each entry's rating
    across seasons and the seasons page; None: no history is kept.
    ``jobs``: processes rendering game pages. A page whose inputs are those it was rendered
    from last time is taken from the old site instead (runner/site/pages.py).
    ``results_key``: the key of the results the records are (runner/site/publish.py's manifest).
    ``lines``: each record's line as it was read, by key, to publish as it is.
    """
    out_dir = Path(out_dir).resolve()
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / MARKER).exists():
        raise SiteError(
            f"{out_dir} is not empty and was not made by `koth site`; point the "
            "site at a new or empty folder, or delete this one."
        )
    meta, rows, records = read_standings(standings, results_records, points)
    season = _season(meta, rows, records)
    season["repository"] = repository
    season["downloads"] = {"standings": standings is not None}
    season["history"] = _history(season, history) if history is not None else None
    season["infos"] = {r.entry: entries_info.get(r.entry, EntryInfo(r.entry)) for r in rows}
    env = _cached_environment()
    tmp = out_dir.with_name(f".{out_dir.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    sizes: dict[str, int] = {}
    old = pages.read_keys(out_dir) if (out_dir / MARKER).is_file() else {}
    keys: dict[str, tuple[str, str]] = {}
    season_key = pages.key(
        "season",
        meta,
        rows,
        # the records by their lines' digest: the JSON of 250,000 records took seconds
        hashlib.sha256(b"".join(results.line_of(r, lines) for r in records)).hexdigest(),
        season["infos"],
        points,
        sorted((setups or {}).items()),
        repository,
        config_file,
        history,
        season["rules"].read_text(encoding="utf-8") if season["rules"] is not None else None,
    )

    kept: set[str] = set()  # pages taken from the old site

    def keep(name: str, page_key: str, data: bytes, old_page: bool) -> None:
        note(name, page_key, _write_page(tmp, name, data), old_page)

    def note(name: str, page_key: str, written: Written, old_page: bool) -> None:
        """A page written to ``tmp`` (its size and digest): its key recorded."""
        if old_page:
            kept.add(name)
        sizes[name] = written[0]
        keys[name] = (page_key, written[1])

    def season_pages() -> None:  # this process's work while the others render game pages
        _season_pages(season, rows, write)
        publish(tmp, records, standings, results_key, lines)  # the data the pages link
        if not season["every"]:
            _replay_page(season, tmp, config_file, write, lines)
        title = str(season["facts"]["title"])
        badges.write(tmp, rows, title, season["ratings"] if not season["by_score"] else {}, slug)

    def write(name: str, template: str, **context: Any) -> None:
        data = pages.reusable(out_dir, old, name, season_key)
        if data is not None:
            keep(name, season_key, data, True)
            return
        root = "../" * name.count("/")
        html = env.get_template(template).render(root=root, **season, **context)
        keep(name, season_key, html.encode("utf-8"), False)

    try:
        (tmp / "entries").mkdir(parents=True)
        (tmp / "games").mkdir()
        # a game's browser engine only where the replay page needs it (_season_pages)
        engines = shutil.ignore_patterns("engine-*.js")
        shutil.copytree(resources.templates() / "static", tmp / "static", ignore=engines)
        _add_game_look(tmp / "static" / "site.css", str(season["facts"]["game"]))
        (tmp / MARKER).write_text("made by `koth site`; it replaces this folder on every run\n")
        _game_pages(
            season,
            setups or {},
            config_file,
            old,
            out_dir,
            tmp,
            jobs,
            warn,
            keep,
            note,
            meanwhile=season_pages,
        )
        if season["history"] is not None:
            write("seasons.html", "seasons.html", page="seasons")
            seasons_file.write(tmp / SEASONS, season["history"]["seasons"])
        pages.write_keys(tmp, keys)
        _swap(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    game_sizes = [n for name, n in sizes.items() if name.startswith("games/")]
    seasons = tuple(season["history"]["seasons"]) if season["history"] else ()
    return SiteReport(out_dir, len(sizes), len(game_sizes), sum(game_sizes), seasons, len(kept))


def _season_pages(
    season: Mapping[str, Any], rows: Sequence[Row], write: Callable[..., None]
) -> None:
    """The pages shown from the whole season (all but the game pages and the seasons page)."""
    for page in ("index", "crosstable", "games", "los"):
        write(f"{page}.html", f"{page}.html", page=page)
    if season["bracket"] is not None:
        write("bracket.html", "bracket.html", page="bracket")
    write("enter.html", "enter.html", page="enter", files=entry_files(season["facts"]["game"]))
    if season["rules"] is not None:
        text = season["rules"].read_text(encoding="utf-8")
        source = resources.source_name(season["rules"])
        write("rules.html", "rules.html", page="rules", document=rules_html(text), source=source)
    for row in rows:
        write(
            f"entries/{slug(row.entry)}.html",
            "entry.html",
            page="entry",
            **_entry_page(row, season),
        )


def _replay_page(
    season: Mapping[str, Any],
    site: Path,
    config_file: str | None,
    write: Callable[..., None],
    lines: Mapping[str, bytes] | None,
) -> None:
    """replay.html, its game's engine, and the records of the games without a page that it
    replays (runner/site/replays.py)."""
    game_id = str(season["facts"]["game"])
    engine = replays.engine(game_id)
    assert engine is not None  # a game without one has a page for every game
    shutil.copy2(resources.templates() / "static" / engine, site / "static" / engine)
    rest = [g for g in season["games"] if not g["own"]]
    digits = replays.key_digits(len(rest))
    replays.write_records(site, rest, digits, lines)
    data = replays.page_data(game_id, digits, season["names"], config_file)
    data.update(speeds=list(SPEEDS), watchSeconds=WATCH_S)
    show = presentation(game_id)
    write(
        replays.REPLAY,
        "replay.html",
        page="replay",
        replay=data,
        engine=engine,
        show=show,
        steps=0,
        speeds=SPEEDS,
        speed=SPEEDS[0],
    )


GameJob = tuple[str, dict[str, Any]]  # a game page's name and everything it is rendered from
Written = tuple[int, str]  # a page written: its size and its digest


def _game_jobs(
    season: Mapping[str, Any], setups: Setups, config_file: str | None
) -> list[GameJob | str]:
    """Per game, in order: its page's name and inputs, or why it has no page."""
    games = season["games"]
    frame = {  # what the header and footer of a game page show of the season
        "facts": {k: season["facts"][k] for k in ("game", "title", "versions")},
        "downloads": season["downloads"],
        "bracket": season["bracket"] is not None,
        "history": season["history"] is not None,
        "rules": season["rules"] is not None,
        "repository": season["repository"],
    }
    jobs: list[GameJob | str] = []
    for number, game in enumerate(games):
        if not game["own"]:
            continue
        record = game["record"]
        try:  # a record from a cache may be well formed and still not replay
            setup = dict(_setup_of(record, setups))
        except ReplayError as exc:
            jobs.append(f"game {record.get('key', game['number'])}: {exc}; no page for it")
            continue
        around = [games[n] if 0 <= n < len(games) else None for n in (number - 1, number + 1)]
        match = season["match_of"].get(record.get("key", ""))
        inputs = {
            **frame,
            "game": game,
            "setup": setup,
            "previous": around[0] and _neighbour(around[0]),
            "next": around[1] and _neighbour(around[1]),
            # only a game whose every seat is an entrant of the season can be played again
            "play": play_command(record, config_file)
            if all(s["entry"] in season["names"] for s in game["seats"])
            else "",
            "match_of": {record.get("key", ""): match} if match is not None else {},
            "commands": _replay_commands(game, season["names"]),
        }
        jobs.append((f"games/{game['page']}.html", inputs))
    return jobs


def _replay_commands(game: Mapping[str, Any], names: Mapping[str, str]) -> list[str]:
    """Per seat, the ``koth replay`` command of the game's page (a seat no entrant holds is a
    built-in bot filling a table: only shown)."""
    page = game["page"]
    key = page if not page.startswith("game-") else str(game["record"].get("key", ""))
    return [
        replay_command(key, s["index"], s["entry"] if s["entry"] in names else None)
        for s in game["seats"]
    ]


def _neighbour(game: Mapping[str, Any]) -> dict[str, Any]:
    """A game as the pager of a game page links it: its number, and its address from there."""
    return {
        "number": game["number"],
        "link": game["page"] + ".html" if game["own"] else "../" + game["href"],
    }


def _game_pages(
    season: Mapping[str, Any],
    setups: Setups,
    config_file: str | None,
    old: pages.Keys,
    out_dir: Path,
    tmp: Path,
    jobs: int,
    warn: Callable[[str], None],
    keep: Callable[[str, str, bytes, bool], None],
    note: Callable[[str, str, Written, bool], None],
    meanwhile: Callable[[], None],
) -> None:
    """Every game's page: the old one where its inputs are the same (from ``out_dir``, the old
    site: ``keep`` writes it again), else rendered on ``jobs`` processes, each writing the pages
    it renders into ``tmp`` (the new site: ``note`` records them), this one doing ``meanwhile``
    (the season's pages) first; a game that does not replay is warned about, in the games'
    order."""
    made: dict[str, bytes | Written | str] = {}
    page_keys: dict[str, str] = {}
    todo: list[GameJob] = []
    work = _game_jobs(season, setups, config_file)
    for job in work:
        if isinstance(job, tuple):
            page_keys[job[0]] = pages.key("game", job[1])
            data = pages.reusable(out_dir, old, job[0], page_keys[job[0]])
            if data is None:
                todo.append(job)
            else:
                made[job[0]] = data  # the old page's bytes
    rendered = pages.render_pages(partial(write_game, tmp), todo, jobs, meanwhile)
    made.update(zip((n for n, _ in todo), rendered, strict=True))
    for job in work:
        if isinstance(job, str):
            warn(job)
            continue
        shown = made[job[0]]
        if isinstance(shown, str):
            warn(shown)
        elif isinstance(shown, bytes):
            keep(job[0], page_keys[job[0]], shown, True)
        else:
            note(job[0], page_keys[job[0]], shown, False)


def render_game(job: GameJob) -> bytes | str:
    """A game page's bytes, from its inputs alone (in any process), or why it has none."""
    name, inputs = job
    game = inputs["game"]
    try:
        shown = _game_page(game, inputs["setup"])
    except ReplayError as exc:
        return f"game {game['record'].get('key', game['number'])}: {exc}; no page for it"
    context = {**inputs, **shown, "root": "../", "page": "game", "slug": slug}
    return _cached_environment().get_template("game.html").render(context).encode("utf-8")


def write_game(folder: Path, job: GameJob) -> Written | str:
    """``render_game`` of ``job``, written to its page's file under ``folder`` (in any process:
    the processes that render game pages write them side by side, where this one wrote every
    page after they were all rendered, ~40 ms of 240 pages with a core idle): its size and
    digest, or why it has no page."""
    shown = render_game(job)
    return shown if isinstance(shown, str) else _write_page(folder, job[0], shown)


def _write_page(folder: Path, name: str, data: bytes) -> Written:
    """Page ``name`` written under ``folder``: its size and digest, as the site's keys hold them."""
    (folder / name).write_bytes(data)
    return len(data), pages.digest(data)


def _swap(new: Path, out_dir: Path) -> None:
    """Put ``new`` where ``out_dir`` is, the old folder (if any) removed only afterwards."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    if not out_dir.exists():
        new.rename(out_dir)
        return
    old = out_dir.with_name(f".{out_dir.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    out_dir.rename(old)
    new.rename(out_dir)
    shutil.rmtree(old)


# -- inputs from the files of a season, and the `koth site` command --------------------------


def entries_info_from(entries_dir: Path, build_dir: Path | None = None) -> dict[str, EntryInfo]:
    """EntryInfo for every entry folder: manifest, source, and the cached build/check verdict."""
    found = {}
    for entry in discover(entries_dir):
        try:  # never follows a link, never reads past the cap (runner/common/safefiles.py)
            source = read_source(entry).decode("utf-8", errors="replace")
        except (UnsafeFileError, OSError):
            source = ""  # the entry is refused, and entry.problem says why
        verdict = []
        for stage, name in (("build", "build.json"), ("check", "check.json")):
            try:
                path = build_dir / entry.name / name if build_dir else None
                saved = load_json(read_capped(path, VERDICT_CAP)) if path else {}
            except (OSError, ValueError):  # missing, a link, a FIFO, malformed: no verdict
                saved = {}
            if not isinstance(saved, dict) or saved.get("content_hash", entry.content_hash) != (
                entry.content_hash
            ):
                break  # a verdict on another version of the entry says nothing about this one
            if saved.get("message"):
                verdict.append(f"{stage}: {saved['message']}")
        found[entry.name] = EntryInfo(
            entry.name,
            entry.author,
            entry.manifest.description if entry.manifest else "",
            source,
            entry.source.name,
            "\n".join(verdict) or (entry.problem or ""),
        )
    return found


def _config_file(config: Config) -> str | None:
    """How a reader in a checkout names the season's configuration: its path from the root of
    the repository holding it (the first folder above it with a ``.git``; else the current
    folder), None for the default ./tournament.yaml; its name alone when it lies outside."""
    if config.path is None:
        return None
    found = [f for f in config.path.parents if (f / ".git").exists()]
    root = found[0] if found else Path.cwd().resolve()
    try:
        shown = config.path.relative_to(root).as_posix()
    except ValueError:
        shown = config.path.name
    return None if shown == "tournament.yaml" else shown


def render_from_config(
    config: Config,
    results_source: Path | None = None,
    standings_path: Path | None = None,
    out: Path | None = None,
    warn: Callable[[str], None] = _warn,
    results_key: str | None = None,
) -> SiteReport:
    """Render the site of the season ``config`` describes (its results, standings and entries),
    with the records it shows and the standings beside it (runner/site/publish.py)."""
    source = results_source or config.output.results
    paths = [source] if source.is_file() else results.results_files(source)
    if not paths:
        require_entries(config)  # no results and no entries: not a season's folder
    standings_path = standings_path or config.output.standings
    standings = _standings_file(standings_path, warn)
    # The standings judged these very files (standings.json's `judged`): believe what they did.
    judged = standings.get("judged") if standings else None
    vouch = results.vouched(paths, judged, code_digest())
    judge = results.reproduced(config.free_for_all.setups)
    lines: dict[str, bytes] = {}  # published as they are, not encoded again
    records, problems = results.read_all(paths, judge, lines=lines, vouch=vouch)
    for problem in problems:
        warn(problem)
    out = out or config.output.site
    try:
        report = render_site(
            records,
            standings,
            entries_info_from(config.entries, config.output.build),
            out,
            warn,
            config.points,
            {(s.name, s.hash): s.as_dict() for s in config.free_for_all.setups},
            config.site.repository,
            _config_file(config),
            seasons_file.read(config.site.history, warn) if config.site.history else None,
            config.jobs,
            results_key,
            lines,
        )
    except SiteError:
        raise ConfigError(
            str(out),
            "",
            "the folder is not empty and was not made by `koth site`, so it is not replaced.",
            "point --out (or `output.site` in tournament.yaml) at a new or empty folder.",
        ) from None
    if config.site.history is not None:
        seasons_file.write(config.site.history, report.seasons)
    return report


def _standings_file(standings_path: Path, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """standings.json, checked; None (said) when it is missing or malformed."""
    standings = None
    try:
        standings = load_json(read_regular(standings_path, STANDINGS_CAP))
    except FileNotFoundError:
        warn(
            f"{standings_path} not found; ranking the records directly "
            "(run `koth standings` for build and check verdicts)"
        )
    except (OSError, ValueError) as exc:  # a FIFO or a folder there: UnsafeFileError
        unreadable = isinstance(exc, OSError | UnsafeFileError)
        raise ConfigError(
            str(standings_path),
            "",
            f"cannot be read ({exc})." if unreadable else f"is not valid JSON ({exc}).",
            "run `koth standings` again to rewrite it.",
        ) from None
    wrong = check_document(standings) if standings is not None else None
    if wrong:
        warn(
            f"{standings_path}: {wrong}; it is ignored and the records are ranked directly "
            "(run `koth standings` again to rewrite it)"
        )
        standings = None
    return standings if isinstance(standings, dict) else None
