"""A Domineering knockout played in-process by the engine (no sandbox, no referee): real records
with real keys, the bracket and standings a season writes, and its results site. For the tests of
knockout standings and the site's bracket and Domineering pages (tests/test_bracket.py,
tests/test_site_bracket_browser.py).

Six entries with simple, deterministic policies (each a function of the position and the game's
seed): seeds 1 and 2 have byes. One display name carries HTML on purpose: pages must escape it.
``season(third_place=...)`` plays the bracket round by round, asking the format as a season does.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.games.domineering import RULES
from runner.games.domineering.rules import Bomb, DomineeringState, Move, Place
from runner.rank.bracket import KNOCKOUT_ORDER, bracket_document, knockout_order
from runner.rank.standings import Row, document, rank
from runner.season import results
from runner.season.entries import Entrant
from runner.season.formats import Done, Fixture, Knockout, Play, Seeds
from runner.season.playloop import RecordedResults
from runner.site.render import EntryInfo, SiteReport, render_site

GAME = RULES.id
SEASON_SEED = 192  # a bracket that tells the story tests/test_bracket.py checks
Policy = Callable[[DomineeringState, random.Random], Move]


def _places(state: DomineeringState) -> list[Move]:
    return [m for m in RULES.legal_moves(state, state.mover) if isinstance(m, Place)]


def _or_bomb(state: DomineeringState, places: Sequence[Move], pick: Callable[..., Move]) -> Move:
    """``pick(places)``, or, with no domino to place, the first usable bomb square."""
    if places:
        return pick(places)
    return RULES.legal_moves(state, state.mover)[0]


def first(state: DomineeringState, rng: random.Random) -> Move:
    return _or_bomb(state, _places(state), lambda p: p[0])


def last(state: DomineeringState, rng: random.Random) -> Move:
    return _or_bomb(state, _places(state), lambda p: p[-1])


def wanderer(state: DomineeringState, rng: random.Random) -> Move:
    return _or_bomb(state, _places(state), rng.choice)


def centre(state: DomineeringState, rng: random.Random) -> Move:
    return _or_bomb(
        state, _places(state), lambda p: min(p, key=lambda m: abs(m.row - 6) + abs(m.col - 6))
    )


def bomber(state: DomineeringState, rng: random.Random) -> Move:
    """Explodes its bomb early, on the first usable square holding a domino; else wanders."""
    bombs = [m for m in RULES.legal_moves(state, state.mover) if isinstance(m, Bomb)]
    for square in bombs:
        rows = range(square.row, square.row + 5)
        if any(state.at(r, c) for r in rows for c in range(square.col, square.col + 5)):
            return square
    return wanderer(state, rng)


@dataclass(frozen=True)
class Bot:
    name: str  # display name
    play: Policy


BOTS: dict[str, Bot] = {
    "anchor": Bot("Anchor", first),
    "bomber": Bot("Bomber <b>boom</b>", bomber),
    "centre": Bot("Centre", centre),
    "drifter": Bot("Drifter", wanderer),
    "echo": Bot("Echo", last),
    "fox": Bot("Fox", wanderer),
}
SEEDING = ("centre", "anchor", "bomber", "echo", "drifter", "fox")


def content_hash(entry: str) -> str:
    return hashlib.sha256(f"domineering test entry {entry}".encode()).hexdigest()


def key_of(fixture: Fixture) -> str:
    seats = [(name, content_hash(name)) for name in fixture.seats]
    return results.record_key(fixture.game, seats, fixture.seed)


def play(fixture: Fixture, number: int) -> dict[str, Any]:
    """One game of ``fixture`` as a season records it."""
    state = RULES.initial_state(random.Random(fixture.seed), 2, {})
    rngs = [random.Random(f"{fixture.seed}/{seat}") for seat in range(2)]
    moves = []
    while RULES.to_move(state):
        seat = state.mover
        move = BOTS[fixture.seats[seat]].play(state, rngs[seat])
        moves.append(RULES.move_text(move))
        state = RULES.apply(state, {seat: move})
    end = RULES.outcome(state)
    assert end is not None
    played = {
        "game": GAME,
        "seed": fixture.seed,
        "seats": [
            {"entry": e, "hash": content_hash(e), "name": BOTS[e].name} for e in fixture.seats
        ],
        "moves": moves,
        "outcome": {
            "points": list(end.points),
            "scores": [int(s) for s in RULES.scores(state)],
            "termination": end.termination.value,
            "faulty": end.faulty,
            "detail": end.detail,
        },
        "measured": {"cpu_s": [0.5, 0.25], "wall_s": 2.0},
    }
    stamp = f"2026-03-14T10:{number // 60:02d}:{number % 60:02d}.000000Z"
    return results.make_record(
        played, key=key_of(fixture), season_seed=SEASON_SEED, round_=fixture.round, when=stamp
    )


@dataclass(frozen=True)
class Season:
    fmt: Knockout
    records: list[dict[str, Any]]
    rows: list[Row]
    standings: dict[str, Any]

    @property
    def bracket(self) -> dict[str, Any]:
        return dict(self.standings["bracket"])


def standings_of(
    fmt: Knockout, records: Sequence[dict[str, Any]]
) -> tuple[list[Row], dict[str, Any]]:
    """The standings a season writes for these records (runner/cli/stages.py ``ranked``)."""
    recorded = RecordedResults(key_of, records)
    entrants = [Entrant(e, BOTS[e].name, content_hash(e)) for e in sorted(BOTS)]
    bracket = bracket_document(fmt, sorted(BOTS), recorded, key_of)
    rows = knockout_order(rank(entrants, records), bracket)
    meta = {
        "game": GAME,
        "format": "knockout",
        "rounds": 1,
        "season_seed": SEASON_SEED,
        "games_scheduled": len(fmt.known(sorted(BOTS), recorded).games),
        "games_played": len(records),
        "bracket": bracket,
        "tie_break": KNOCKOUT_ORDER,
    }
    return rows, document(rows, meta)


def season(third_place: bool = True, rounds: int | None = None) -> Season:
    """The knockout played round by round (only ``rounds`` rounds of it, if given)."""
    fmt = Knockout(GAME, Seeds(SEASON_SEED), best_of=3, seeding=SEEDING, third_place=third_place)
    records: list[dict[str, Any]] = []
    recorded = RecordedResults(key_of)
    while isinstance(step := fmt.next_games(sorted(BOTS), recorded), Play):
        if rounds is not None and step.games[0].round > rounds:
            break
        for fixture in step.games:
            record = play(fixture, len(records))
            records.append(record)
            recorded.add(record)
    assert rounds is not None or isinstance(step, Done), "the bracket was played to its end"
    rows, doc = standings_of(fmt, records)
    return Season(fmt, results.canonical(records), rows, doc)


def render(out: Path, played: Season | None = None) -> SiteReport:
    played = played or season()
    infos = {
        e: EntryInfo(e, "tests", f"plays {bot.play.__name__}", "print('1 0 0')", "bot.py")
        for e, bot in BOTS.items()
    }
    return render_site(played.records, played.standings, infos, out)
