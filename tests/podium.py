"""Podium: a toy game of four seats moving at once, and hand-written records of it, for the tests
of N-seat standings, ratings, record checks and the site (no sandbox, no referee).

The rules: for three turns every seat names a number from 0 to 3 at the same time; a seat's
score is the sum of its numbers; the higher score places better, equal scores share a place. A
seat that faulted is given the stand-in move 0 for the rest of the game (the game goes on).

``record(seats, moves, faults=...)`` writes a record as the contract for games of more than two
seats says (``outcome.placement``, ``outcome.points`` by the linear table, ``outcome.faults``,
``outcome.faulty`` null) with a real key, so ``runner.season.results.check_record`` accepts it once
the game is registered (``registered()``, for the time being).

``season()`` is a synthetic season of five entries at tables of four with two faults, and
``render_season(out)`` its results site.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from runner.games import GAMES
from runner.games.base import GameInfo, InvalidMoveError
from runner.games.spec import GameSpec, Presentation, placement_from_order, points_for
from runner.rank.standings import document, rank
from runner.season import results
from runner.season.entries import Entrant
from runner.season.points import LINEAR_POINTS
from runner.site.render import SiteReport, render_site

TURNS = 3
SEATS = 4


@dataclass(frozen=True)
class PodiumState:
    turn: int  # 1-based: the turn the next moves belong to
    totals: tuple[int, ...]


class Podium:
    """The toy game's rules (runner/games/spec.py's ``Rules``)."""

    id: ClassVar[str] = "podium-v1"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=SEATS,
        simultaneous=True,
        max_moves=TURNS,
        seat_names=("A", "B", "C", "D"),
    )

    def initial_state(
        self, rng: random.Random, seats: int = SEATS, setup: object = None
    ) -> PodiumState:
        return PodiumState(1, (0,) * seats)

    def to_move(self, state: PodiumState) -> tuple[int, ...]:
        return tuple(range(len(state.totals))) if state.turn <= TURNS else ()

    def legal_moves(self, state: PodiumState, seat: int) -> tuple[int, ...]:
        return (0, 1, 2, 3)

    def check_move(self, state: PodiumState, seat: int, move: int) -> None:
        self.parse_move(seat, str(move))

    def stand_in(self, state: PodiumState, seat: int) -> int:
        return 0  # a seat that faulted names 0 from then on

    def retire(self, state: PodiumState, seat: int) -> PodiumState:
        raise ValueError("no seat leaves a Podium game")

    def parse_move(self, seat: int, text: str) -> int:
        if text not in ("0", "1", "2", "3"):
            raise InvalidMoveError(f"{text!r} is not 0, 1, 2 or 3")
        return int(text)

    def move_text(self, move: int) -> str:
        return str(move)

    def apply(self, state: PodiumState, moves: Mapping[int, int]) -> PodiumState:
        totals = tuple(t + moves.get(seat, 0) for seat, t in enumerate(state.totals))
        return PodiumState(state.turn + 1, totals)

    def outcome(self, state: PodiumState) -> None:
        return None  # the tests write outcomes by hand

    def scores(self, state: PodiumState) -> tuple[int, ...]:
        return state.totals

    def turn(self, state: PodiumState) -> int:
        return state.turn

    def render_text(self, state: PodiumState) -> str:
        names = self.info.seat_names
        rows = [f"{names[seat]} {'#' * total}" for seat, total in enumerate(state.totals)]
        return "\n".join([f"turn {min(state.turn, TURNS)}", *rows])


def entry_hash(entry: str) -> str:
    return hashlib.sha256(entry.encode()).hexdigest()


def record(
    seats: Sequence[str],
    moves: Sequence[Sequence[int]],
    *,
    faults: Sequence[tuple[int, int, str]] = (),
    seed: int = 1,
    round_: int = 1,
    season_seed: int = 7,
) -> dict[str, Any]:
    """A record of a Podium game: ``moves`` per turn, one per seat; ``faults`` as (seat, turn,
    termination), the seat's moves from that turn on replaced by the stand-in 0."""
    played = [list(turn) for turn in moves]
    for seat, turn, _ in faults:
        for later in played[turn - 1 :]:
            later[seat] = 0
    totals = [sum(turn[seat] for turn in played) for seat in range(len(seats))]
    placement = placement_from_order(totals)
    names = Podium.info.seat_names
    detail = "A podium of " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(totals))
    outcome: dict[str, Any] = {
        "points": list(points_for(placement)),
        "scores": totals,
        "termination": "normal",
        "faulty": None,
        "detail": detail,
        "placement": list(placement),
        "faults": [
            {
                "seat": s,
                "turn": t,
                "at": t - 1,
                "termination": kind,
                "detail": f"{kind} at turn {t}",
            }
            for s, t, kind in faults
        ],
    }
    hashes = [(entry, entry_hash(entry)) for entry in seats]
    return {
        "key": results.record_key(Podium.id, hashes, seed),
        "game": Podium.id,
        "seed": seed,
        "seats": [{"entry": e, "hash": h, "name": e.title()} for e, h in hashes],
        "moves": [[str(m) for m in turn] for turn in played],
        "outcome": outcome,
        "season_seed": season_seed,
        "round": round_,
        "host_version": "0.test",
        "measured": {"cpu_s": [0.0] * len(seats), "wall_s": 0.5, "when": "2025-03-01T10:00:00Z"},
    }


# -- a synthetic season: five entries at tables of four, two faults ----------------------------

ENTRIES = {"ace": "Ace", "bea": "Bea <b>bold</b>", "cal": "Cal", "dot": "Dot", "eve": "Eve & Co"}
STRENGTH = {"ace": 2, "bea": 2, "cal": 2, "dot": 1, "eve": 1}
FAULTS = {(0, 0): ("dot", 2, "timeout"), (3, 1): ("eve", 1, "crash")}  # (table, rotation)


def season() -> list[dict[str, Any]]:
    """Every table of four of the five entries, twice with the seats rotated: 10 games, one
    where dot times out at turn 2 and one where eve crashes at turn 1."""
    found = []
    for table, four in enumerate(itertools.combinations(sorted(ENTRIES), SEATS)):
        for rotation in range(2):
            seats = four[rotation:] + four[:rotation]
            rng = random.Random(f"podium {table} {rotation}")
            moves = [
                [max(0, min(3, STRENGTH[e] + rng.randint(-1, 1))) for e in seats]
                for _ in range(TURNS)
            ]
            fault = FAULTS.get((table, rotation))
            faults = [] if fault is None else [(seats.index(fault[0]), fault[1], fault[2])]
            seed = 100 + 2 * table + rotation
            found.append(record(seats, moves, faults=faults, seed=seed))
    for number, game in enumerate(found):
        game["measured"]["when"] = f"2025-03-01T10:{number:02d}:00.000000Z"
        for seat in game["seats"]:
            seat["name"] = ENTRIES[seat["entry"]]
    return found


def season_standings(found: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    entrants = [Entrant(e, name, entry_hash(e)) for e, name in sorted(ENTRIES.items())]
    meta = {
        "game": Podium.id,
        "format": "free-for-all",
        "rounds": 1,
        "season_seed": 7,
        "games_scheduled": len(found),
        "games_played": len(found),
        "points": LINEAR_POINTS,
    }
    return document(rank(entrants, found), meta)


class PodiumStdio:
    """What a Podium bot would read and write (the toy is never played by bots here)."""

    reply_lines: ClassVar[int] = 1

    def greeting(self, state: PodiumState, seat: int) -> bytes:
        return b""

    def request(self, state: PodiumState, seat: int) -> bytes:
        return f"{state.turn} {state.totals[seat]}\n".encode()

    def decode(self, state: PodiumState, seat: int, lines: Sequence[str]) -> int:
        return Podium().parse_move(seat, lines[0] if lines else "")

    def reply(self, move: int) -> bytes:
        return f"{move}\n".encode()


SPEC = GameSpec(
    rules=Podium(),
    interface="stdio",
    codec=PodiumStdio(),
    presentation=Presentation(),
    builtins=(),
    rules_doc=None,
    formats=("free-for-all",),
)


@contextmanager
def registered() -> Iterator[None]:
    """Podium in the game registry for the time being."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(GAMES, Podium.id, SPEC)
        yield


def render_season(out: Path) -> SiteReport:
    """The synthetic season's site, rendered into ``out``."""
    found = season()
    with registered():
        return render_site(found, season_standings(found), {}, out)
