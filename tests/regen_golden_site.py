"""The site fixtures and their golden renderings (run by hand after a deliberate change).

    python tests/regen_golden_site.py             # re-render tests/golden/site*/ from the fixtures
    python tests/regen_golden_site.py --fixture   # replay the fixtures' games first, then render

Each fixture is a small season really played by the game engine with deterministic Python bots
(no sandbox needed: a record is only moves and an outcome); its entries' sources are stand-ins.

- tests/fixtures/site/ (Snakes): three bots, a round-robin of 6 games, one of them ended by a
  crash, plus an entry excluded at build time. Names, authors, sources and fault messages carry
  HTML on purpose: the site must escape them.
- tests/fixtures/site_cluster/ (Cluster): three bots (one builds lines, one rotates the board
  often, one drops pellets at random), a round-robin of 6 games.

``tests/test_site.py`` renders each fixture and compares the whole folder with its golden one,
tests/golden/site/ and tests/golden/site_cluster/.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runner.games.cluster import Cluster, ClusterState, Place, Rotate, valid_columns  # noqa: E402
from runner.games.snakes import MOVES, Snakes, SnakesState  # noqa: E402
from runner.rank import standings  # noqa: E402
from runner.season import results  # noqa: E402
from runner.season.entries import Entrant, content_hash  # noqa: E402
from runner.season.formats import Seeds  # noqa: E402
from runner.season.schedule import make_schedule  # noqa: E402
from runner.site.pages import KEYS  # noqa: E402
from runner.site.render import EntryInfo, SiteReport, entries_info_from, render_site  # noqa: E402

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "site"
GOLDEN = HERE / "golden" / "site"
CLUSTER_FIXTURE = HERE / "fixtures" / "site_cluster"
CLUSTER_GOLDEN = HERE / "golden" / "site_cluster"
CLUSTER_GAME = "cluster-v2"
CLUSTER_SEASON_SEED = 2035
GAME = "snakes-v2"
SEASON_SEED = 2049  # its games end as the tests of the site expect (a crash, greedy first)
CRASH_TURN = 37
BUILD_ERROR = (
    "bot.c: In function 'bot':\n"
    "bot.c:3:5: error: expected ';' before '}' token <script>alert('build')</script>\n"
    "    3 |     return 'R' }\n"
    "      |               ^\n"
)

Bot = Callable[[Snakes, SnakesState, int, random.Random], str]


def greedy(game: Snakes, state: SnakesState, seat: int, rng: random.Random) -> str:
    """The move that owns the most cells right after it; ties broken at random."""
    best: list[str] = []
    best_gain = -(10**9)
    for move in MOVES:
        after = game.apply(state, {seat: move})
        gain = game.scores(after)[seat] - game.scores(after)[1 - seat]
        if after.heads[seat] == state.heads[seat]:
            gain -= 1000  # a no-op never helps
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain:
            best.append(move)
    return rng.choice(best)


def drunk(game: Snakes, state: SnakesState, seat: int, rng: random.Random) -> str:
    return rng.choice(MOVES)


class Crash(Exception):
    pass


def crasher(game: Snakes, state: SnakesState, seat: int, rng: random.Random) -> str:
    """Greedy, but as O it dies at turn CRASH_TURN (as a segfaulting C bot would)."""
    if seat == 1 and game.turn(state) == CRASH_TURN:
        raise Crash
    return greedy(game, state, seat, rng)


BOTS: dict[str, tuple[str, Bot]] = {
    "crasher": ("Crashy & Co <b>bold</b>", crasher),
    "drunk": ("<script>alert(1)</script>", drunk),
    "greedy": ("Greedy Gus", greedy),
}


def play(seats: tuple[str, ...], seed: int) -> dict[str, Any]:
    """One game as ``GameResult.to_dict()`` would record it."""
    game = Snakes()
    state = game.initial_state(random.Random(seed))
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(2)]
    moves: list[str] = []
    outcome: dict[str, Any] | None = None
    while game.outcome(state) is None:
        seat = game.to_move(state)[0]
        try:
            move = BOTS[seats[seat]][1](game, state, seat, rngs[seat])
        except Crash:
            who = f"{game.info.seat_names[seat]} ({seats[seat]})"
            points = [0.0, 1.0] if seat == 0 else [1.0, 0.0]
            outcome = {
                "points": points,
                "scores": list(game.scores(state)),
                "termination": "crash",
                "faulty": seat,
                "detail": f"{who} was killed by SIGSEGV <segfault> at turn {game.turn(state)}",
            }
            break
        state = game.apply(state, {seat: move})
        moves.append(move)
    if outcome is None:
        end = game.outcome(state)
        assert end is not None
        outcome = {
            "points": list(end.points),
            "scores": list(game.scores(state)),
            "termination": end.termination.value,
            "faulty": end.faulty,
            "detail": end.detail,
        }
    return {
        "game": GAME,
        "seed": seed,
        "seats": [
            {"entry": e, "hash": content_hash(FIXTURE / "entries" / e), "name": BOTS[e][0]}
            for e in seats
        ],
        "moves": "".join(moves),
        "outcome": outcome,
        "measured": {"cpu_s": [0.125, 0.25], "wall_s": 1.5},
    }


def season_seeds(season_seed: int, folder: Path, names: list[str]) -> Seeds:
    """A season's randomness as `koth season` derives it without a secret: from the season seed
    and the entries' content hashes."""
    hashes = tuple((name, content_hash(folder / "entries" / name)) for name in sorted(names))
    return Seeds(season_seed, b"", hashes)


def make_fixture() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The fixture's records and standings, played afresh."""
    seeds = season_seeds(SEASON_SEED, FIXTURE, list(BOTS))
    fixtures = make_schedule(GAME, "round-robin", sorted(BOTS), 1, seeds)
    records = []
    for number, fx in enumerate(fixtures):
        played = play(fx.seats, fx.seed)
        key = results.record_key(GAME, [(s["entry"], s["hash"]) for s in played["seats"]], fx.seed)
        records.append(
            results.make_record(
                played,
                key=key,
                season_seed=SEASON_SEED,
                round_=fx.round,
                when=f"2025-01-18T12:{number:02d}:00.000000Z",
            )
        )
    entrants = [Entrant(e, BOTS[e][0], content_hash(FIXTURE / "entries" / e)) for e in sorted(BOTS)]
    entrants.append(
        Entrant(
            "broken",
            "broken",
            content_hash(FIXTURE / "entries" / "broken"),
            "compile: bot.c:3:5: error: expected ';' before '}' token",
            BUILD_ERROR,
        )
    )
    rows = standings.rank(entrants, records)
    meta = {
        "game": GAME,
        "format": "round-robin",
        "rounds": 1,
        "season_seed": SEASON_SEED,
        "games_scheduled": len(fixtures),
        "games_played": len(records),
    }
    return records, standings.document(rows, meta)


def load_fixture() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, EntryInfo]]:
    records, _ = results.read_records(FIXTURE / "results" / "games.jsonl")
    doc = json.loads((FIXTURE / "standings.json").read_text(encoding="utf-8"))
    return records, doc, entries_info_from(FIXTURE / "entries")


def render_fixture(out: Path) -> SiteReport:
    records, doc, infos = load_fixture()
    return render_site(records, doc, infos, out)


# -- Cluster ---------------------------------------------------------------------------------

ClusterBot = Callable[[Cluster, ClusterState, int, random.Random], str]


def _places(state: ClusterState) -> list[Place]:
    return [Place(c, colour) for c in valid_columns(state) for colour in sorted(set(state.hand))]


def liner(game: Cluster, state: ClusterState, seat: int, rng: random.Random) -> str:
    """The pellet and column that make its longest line longest; ties broken at random."""
    best: list[Place] = []
    best_line = -1
    for move in _places(state):
        line = game.scores(game.apply(state, {seat: move}))[seat]
        if line > best_line:
            best, best_line = [move], line
        elif line == best_line:
            best.append(move)
    return game.move_text(rng.choice(best))


def spinner(game: Cluster, state: ClusterState, seat: int, rng: random.Random) -> str:
    """Rotates the board one move in three, else drops a pellet at random."""
    if rng.random() < 1 / 3:
        return game.move_text(Rotate(rng.randint(1, 5)))
    return game.move_text(rng.choice(_places(state)))


def dropper(game: Cluster, state: ClusterState, seat: int, rng: random.Random) -> str:
    return game.move_text(rng.choice(_places(state)))


CLUSTER_BOTS: dict[str, tuple[str, ClusterBot]] = {
    "dropper": ("Random Dropper", dropper),
    "liner": ("Line <Builder>", liner),
    "spinner": ("Spin & Drop", spinner),
}


def play_cluster(seats: tuple[str, ...], seed: int) -> dict[str, Any]:
    """One Cluster game as ``GameResult.to_dict()`` records it (moves: a list of texts)."""
    game = Cluster()
    state = game.initial_state(random.Random(seed))
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(2)]
    moves: list[str] = []
    while (end := game.outcome(state)) is None:
        seat = game.to_move(state)[0]
        text = CLUSTER_BOTS[seats[seat]][1](game, state, seat, rngs[seat])
        move = game.parse_move(seat, text)
        state = game.apply(state, {seat: move})
        moves.append(game.move_text(move))
    return {
        "game": CLUSTER_GAME,
        "seed": seed,
        "seats": [
            {
                "entry": e,
                "hash": content_hash(CLUSTER_FIXTURE / "entries" / e),
                "name": CLUSTER_BOTS[e][0],
            }
            for e in seats
        ],
        "moves": moves,
        "outcome": {
            "points": list(end.points),
            "scores": list(game.scores(state)),
            "termination": end.termination.value,
            "faulty": end.faulty,
            "detail": end.detail,
        },
        "measured": {"cpu_s": [0.0625, 0.125], "wall_s": 0.5},
    }


def make_cluster_fixture() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The Cluster fixture's records and standings, played afresh."""
    game, seed = CLUSTER_GAME, CLUSTER_SEASON_SEED
    seeds = season_seeds(seed, CLUSTER_FIXTURE, list(CLUSTER_BOTS))
    fixtures = make_schedule(game, "round-robin", sorted(CLUSTER_BOTS), 1, seeds)
    records = []
    for number, fx in enumerate(fixtures):
        played = play_cluster(fx.seats, fx.seed)
        key = results.record_key(game, [(s["entry"], s["hash"]) for s in played["seats"]], fx.seed)
        when = f"2025-02-01T09:{number:02d}:00.000000Z"
        records.append(
            results.make_record(played, key=key, season_seed=seed, round_=fx.round, when=when)
        )
    entrants = [
        Entrant(e, CLUSTER_BOTS[e][0], content_hash(CLUSTER_FIXTURE / "entries" / e))
        for e in sorted(CLUSTER_BOTS)
    ]
    meta = {
        "game": game,
        "format": "round-robin",
        "rounds": 1,
        "season_seed": seed,
        "games_scheduled": len(fixtures),
        "games_played": len(records),
    }
    return records, standings.document(standings.rank(entrants, records), meta)


def load_cluster_fixture() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, EntryInfo]]:
    records, _ = results.read_records(CLUSTER_FIXTURE / "results" / "games.jsonl")
    doc = json.loads((CLUSTER_FIXTURE / "standings.json").read_text(encoding="utf-8"))
    return records, doc, entries_info_from(CLUSTER_FIXTURE / "entries")


def render_cluster_fixture(out: Path) -> SiteReport:
    records, doc, infos = load_cluster_fixture()
    return render_site(records, doc, infos, out)


def main(argv: list[str]) -> None:
    if "--fixture" in argv:
        for folder, make in ((FIXTURE, make_fixture), (CLUSTER_FIXTURE, make_cluster_fixture)):
            records, doc = make()
            results.write_atomic(folder / "results" / "games.jsonl", records)
            standings.write(folder / "standings.json", doc)
            print(f"wrote {len(records)} records and standings.json to {folder}")
    for golden, render in ((GOLDEN, render_fixture), (CLUSTER_GOLDEN, render_cluster_fixture)):
        shutil.rmtree(golden, ignore_errors=True)
        print(render(golden).summary())
        (golden / KEYS).unlink()  # the keys name this checkout's sources: no golden content


if __name__ == "__main__":
    main(sys.argv[1:])
