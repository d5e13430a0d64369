"""Which games get a page of their own, and the one replay page that shows any other.

A game page embeds every frame of its game (~18 KB for Snakes, ~3.4 ms of CPU to make): a
page per game is 4.5 GB for a round-robin of 500 entries, several times GitHub Pages' 1 GB.
So a season gets a page for every game while it has at most ``EVERY_GAME`` games (a 44-entry
round-robin: every season of today's size), or when its game has no engine for the browser
(``Presentation.engine``). Past that, the games readers open get a page (``featured``):

- every game of a knockout's bracket;
- every game between two of the ``TOP`` entries ranked first;
- each ranked entry's best game (its best result, against the best-ranked opponent it had it
  against) and its worst (its worst result, against the worst-ranked);
- the first ``FAULTS`` games each entry faulted in (what its author looks for);

about 2,600 pages for 500 entries. Every other game is a link to ``replay.html?game=KEY``: one
page that fetches the game's record from the published records and replays it in the browser,
the game's rules in JavaScript (the engine: the same frames, tests hold it to the Python rules)
feeding the same player as a game page's. The records of the games without a page are
published in ``records/``, split by the first hex digits of their keys into gzip files of at
most ``BUCKET`` records on average (~20 KB a fetch), each line ``[game number, seed, record]``; the
replay page's HTML says where (``records/{key:3}.jsonl.gz``: the first 3 digits of the key), so
the player knows no file names. games.jsonl, which holds every record, is 250 MB at 500 entries:
one file a reader would fetch whole for one game.
"""

from __future__ import annotations

import gzip
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from runner.games import UnknownGameError, find_game
from runner.games.base import ENDINGS
from runner.season.results import line_of, places
from runner.site.frames import player_data, presentation

EVERY_GAME = 2000  # a season of at most this many games has a page for each
TOP = 10  # the games among the first this many ranked entries get pages
FAULTS = 3  # the first games an entry faulted in that get pages
BUCKET = 256  # records of a file of records/, on average at most
RECORDS = "records"  # the folder of the records of games without a page
REPLAY = "replay.html"
HEX = re.compile(r"[0-9a-f]{12,64}")  # a game's page named by its key (else by its number)

Game = Mapping[str, Any]  # a game as site.py's pages see it (_game_view)


def engine(game_id: str) -> str | None:
    """The game's browser engine (a file of site_templates/static/), if it has one."""
    try:
        return find_game(game_id).presentation.engine
    except UnknownGameError:
        return None


def every_game(games: Sequence[Game], game_id: str) -> bool:
    """Whether every game of the season gets a page of its own."""
    return len(games) <= EVERY_GAME or engine(game_id) is None


def featured(games: Sequence[Game], ranks: Mapping[str, int], knockout: Iterable[str]) -> set[int]:
    """The positions in ``games`` of the games that get a page in a large season (see the
    module's docstring); ``ranks``: each ranked entry's rank; ``knockout``: the keys of a
    bracket's games. A game whose key is no key (a page named by its number) gets one too."""
    chosen = {i for i, g in enumerate(games) if not HEX.fullmatch(g["page"])}
    bracket = set(knockout)
    top = {entry for entry, rank in ranks.items() if rank <= TOP}
    best: dict[str, tuple[tuple[float, int], int]] = {}
    worst: dict[str, tuple[tuple[float, int], int]] = {}
    faults: dict[str, int] = {}
    for i, game in enumerate(games):
        seats = game["seats"]
        if str(game["record"].get("key", "")) in bracket:
            chosen.add(i)
        if sum(s["entry"] in top for s in seats) >= 2:
            chosen.add(i)
        for seat in seats:
            entry = seat["entry"]
            if entry not in ranks:
                continue
            # its result, then the rank of the best-ranked other seat (a lower number: better)
            others = min(ranks.get(s["entry"], len(ranks) + 1) for s in seats if s is not seat)
            value = (_result(game, seat), -others)
            if entry not in best or value > best[entry][0]:
                best[entry] = (value, i)
            if entry not in worst or value < worst[entry][0]:
                worst[entry] = (value, i)
            if (game["faulty"] == seat["index"] or seat["fault"]) and faults.get(entry, 0) < FAULTS:
                faults[entry] = faults.get(entry, 0) + 1
                chosen.add(i)
    return chosen | {i for _, i in best.values()} | {i for _, i in worst.values()}


def _result(game: Game, seat: Mapping[str, Any]) -> float:
    """How well a seat did: its points, less a hundredth a place (in games of more seats)."""
    if len(game["seats"]) == 2:
        return float(seat["points"])
    place: int = places(game["record"])[seat["index"]]
    return float(seat["points"]) - 0.01 * place


def link(page: str, own: bool) -> str:
    """A game's address from the site's root: its page, or the replay page naming it."""
    return f"games/{page}.html" if own else f"{REPLAY}?game={page}"


def key_digits(count: int) -> int:
    """The hex digits of a key that name its file of records/: as few as keep the files at
    ``BUCKET`` records on average, for ``count`` records."""
    digits = 1
    while count > BUCKET * 16**digits:
        digits += 1
    return digits


def write_records(
    site: Path, games: Sequence[Game], digits: int, lines: Mapping[str, bytes] | None = None
) -> int:
    """The records of ``games`` (those without a page) into ``site``/records/, a gzip file per
    first ``digits`` hex digits of their keys, a line ``[number, seed as text, record]`` each, in
    the games' order (a record ``lines`` holds, by key, as the line it was read from). Returns
    how many files."""
    files: dict[str, list[bytes]] = {}
    for game in games:
        record = game["record"]
        # the seed also as text: JavaScript's numbers hold 53 bits, a seed 64
        head = f'[{game["number"]},"{record["seed"]}",'.encode()
        line = head + line_of(record, lines)[:-1] + b"]\n"
        files.setdefault(game["page"][:digits], []).append(line)
    folder = site / RECORDS
    folder.mkdir()
    for prefix, held in files.items():
        # level 1: ~130 MB/s and 3.4 times smaller; level 6 is 4 times, at a fifth of the speed
        data = gzip.compress(b"".join(held), compresslevel=1, mtime=0)
        (folder / f"{prefix}.jsonl.gz").write_bytes(data)
    return len(files)


def page_data(
    game_id: str, digits: int, names: Mapping[str, str], config_file: str | None
) -> dict[str, Any]:
    """What replay.html embeds for replay.js: where the records are, the player's options for
    the game, and what the page says of a game besides its record (names, endings, seats)."""
    spec = find_game(game_id)
    show = presentation(game_id)
    seats = spec.info.max_players
    return {
        "records": f"{RECORDS}/{{key:{digits}}}.jsonl.gz",
        "player": player_data(show, seats, "game.txt"),
        "names": dict(names),
        "endings": dict(ENDINGS),
        "seatNames": [spec.seat_name(s) for s in range(seats)],
        "seatClasses": [show.seat_class(s) for s in range(seats)],
        "score": [show.score_header, show.score_prefix, show.score_suffix],
        "config": shlex.quote(config_file) if config_file is not None else None,
    }
