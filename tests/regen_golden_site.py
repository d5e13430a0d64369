"""The site fixture and its golden rendering (run by hand after a deliberate change).

    python tests/regen_golden_site.py             # re-render tests/golden/site/ from the fixture
    python tests/regen_golden_site.py --fixture   # replay the fixture's games first, then render

The fixture (tests/fixtures/site/) is a small season really played by the game engine: three
deterministic Python bots (no sandbox needed: a record is only moves and an outcome), a
round-robin of 6 games, one of them ended by a crash, plus an entry excluded at build time.
Names, authors, sources and fault messages carry HTML on purpose: the site must escape them.
``tests/test_site.py`` renders the fixture and compares the whole folder with tests/golden/site/.
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

from runner import results, standings  # noqa: E402
from runner.entries import content_hash  # noqa: E402
from runner.games.snakes import MOVES, Snakes, SnakesState  # noqa: E402
from runner.schedule import make_schedule  # noqa: E402
from runner.site import EntryInfo, SiteReport, entries_info_from, render_site  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "site"
GOLDEN = Path(__file__).resolve().parent / "golden" / "site"
GAME = "snakes-v1"
SEASON_SEED = 2034
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


def make_fixture() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The fixture's records and standings, played afresh."""
    fixtures = make_schedule(GAME, "round-robin", sorted(BOTS), 1, SEASON_SEED)
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
    entrants = [
        standings.Entrant(e, BOTS[e][0], content_hash(FIXTURE / "entries" / e))
        for e in sorted(BOTS)
    ]
    entrants.append(
        standings.Entrant(
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


def main(argv: list[str]) -> None:
    if "--fixture" in argv:
        records, doc = make_fixture()
        results.write_atomic(FIXTURE / "results" / "games.jsonl", records)
        standings.write(FIXTURE / "standings.json", doc)
        print(f"wrote {len(records)} records and standings.json to {FIXTURE}")
    shutil.rmtree(GOLDEN, ignore_errors=True)
    report = render_fixture(GOLDEN)
    print(report.summary())


if __name__ == "__main__":
    main(sys.argv[1:])
