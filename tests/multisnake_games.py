"""Multisnake games played in this process by simple Python strategies, no sandbox: for the tests
of the site (replays of 150 × 150 maps with eight snakes) and of the seats the referee opens.

Each seat is opened through the referee's seat openers (``Player.opens``, runner/play/seats.py),
as a person's seat is: its bot's move is ready the moment it is asked (``Ready``), and the seat's
decode step picks the move from the state by a strategy (``roomy``: keep going where the room
ahead is largest, looking a few tiles on). So a record comes out of the real referee, exactly as
a season's would, and ``season()`` turns a few of them into the records of a small season with
the example configuration's setups (their names and hashes), standings and a site.
"""

from __future__ import annotations

import hashlib
import random
import select
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from runner.games.multisnake import SPEC, Direction, MultisnakeState
from runner.games.multisnake.rules import FREE
from runner.games.spec import GameSpec
from runner.play.faults import BotFault
from runner.play.referee import Player, play_game
from runner.play.seats import Seat, SeatOpener
from runner.rank.standings import document, rank
from runner.sandbox.zygote_client import BotLimits
from runner.season import results
from runner.season.config import Config, SetupSpec, load_config
from runner.season.entries import Entrant
from runner.site.render import SiteReport, render_site

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "multisnake" / "tournament.yaml"
LIMITS = BotLimits(
    move_cpu_s=0.1, game_cpu_s=60.0, move_wall_s=1.0, memory_bytes=256 << 20, first_move_wall_s=2.0
)


class NoSandbox:
    """Seats opened in this process never ask a sandbox for anything."""

    def spawn(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a seat of this process asked the sandbox for a bot")


NO_SANDBOX = NoSandbox()


class Ready:
    """A move that is ready as soon as it is asked (a ``Pending`` of runner/play/watchdog.py)."""

    fault: BotFault | None = None

    def __init__(self, turn: int) -> None:
        self.turn: int | None = turn

    @property
    def done(self) -> bool:
        return True

    def fds(self) -> tuple[int, ...]:
        return ()

    def inputs(self) -> tuple[int, ...]:
        return ()

    def solo_poll(self) -> select.poll:
        return select.poll()

    def watch(self, poll: select.poll) -> None:
        pass

    def unwatch(self) -> None:
        pass

    def handle(self, fd: int, events: int) -> None:
        pass

    def check(self, now: float) -> float:
        return 0.0


class InProcess:
    """A bot of this process: nothing to start, no CPU charged, every move ready at once."""

    cpu_used = 0.0

    def __init__(self, name: str) -> None:
        self.name = name

    def start(self) -> str:
        return self.name

    def prepare(self) -> None:
        """Nothing to start: the engine is in this process."""

    def begin(self, request: bytes, turn: int) -> Ready:
        return Ready(turn)

    def ask_alone(self, request: bytes, turn: int) -> Ready:
        return Ready(turn)

    def finish(self, move: Ready) -> None:
        pass

    def close(self) -> None:
        pass

    def output_text(self) -> str:
        return ""


def room(state: MultisnakeState, tile: int, depth: int) -> int:
    """Free tiles reachable from ``tile`` within ``depth`` steps (a small flood fill)."""
    seen, edge = {tile}, [tile]
    for _ in range(depth):
        edge = [
            near
            for here in edge
            for d in Direction
            if (near := state.step(here, d)) not in seen
            and state.view[near] in FREE
            and not seen.add(near)  # type: ignore[func-returns-value]
        ]
    return len(seen)


def roomy(state: MultisnakeState, seat: int, rng: random.Random, depth: int) -> Direction:
    """The direction to a free tile with the most room ahead (ties: at random); any if none."""
    head = state.snakes[seat].head
    scored = [
        (room(state, target, depth), rng.random(), d)
        for d in Direction
        if state.view[(target := state.step(head, d))] in FREE
    ]
    return max(scored)[2] if scored else Direction.UP


def strategy_seat(seed: int, depth: int) -> SeatOpener:
    """A seat played by ``roomy`` looking ``depth`` tiles on (a seeded rng breaks ties)."""

    def opens(spec: GameSpec, seat: int, state: Any) -> Seat:
        rng = random.Random(f"{seed}/{seat}")
        return Seat(
            InProcess(f"roomy-{depth}"),
            lambda now: b"",
            lambda now, move: roomy(now, seat, rng, depth),
        )

    return opens


def entry_hash(entry: str) -> str:
    return hashlib.sha256(entry.encode()).hexdigest()


def players(names: Sequence[str], depths: Sequence[int], seed: int) -> list[Player]:
    return [
        Player(name, entry_hash(name), Path("-"), opens=strategy_seat(seed, depth))
        for name, depth in zip(names, depths, strict=True)
    ]


def example_setups() -> dict[str, SetupSpec]:
    config: Config = load_config(EXAMPLE)
    return {setup.name: setup for setup in config.free_for_all.setups}


def game_record(names: Sequence[str], depths: Sequence[int], seed: int, setup: SetupSpec) -> Any:
    """One game of the strategies on a configured setup, as a season's record."""
    seats = players(names, depths, seed)
    played = play_game(SPEC, seats, NO_SANDBOX, LIMITS, seed, setup=setup.as_dict())
    key = results.record_key(
        SPEC.id, [(n, entry_hash(n)) for n in names], seed, {"name": setup.name, "hash": setup.hash}
    )
    return results.make_record(
        played.to_dict(),
        key=key,
        season_seed=1,
        round_=1,
        when="2025-03-01T10:00:00.000000Z",
        setup={"name": setup.name, "hash": setup.hash},
    )


NAMES = ("ann", "bob", "cy", "dee", "eli", "fay", "gus", "hal")
DEPTHS = (1, 2, 3, 4, 6, 8, 10, 12)


def season() -> list[Any]:
    """Two games of eight strategies: one on the maze, one on the 150 × 150 map."""
    setups = example_setups()
    return [
        game_record(NAMES, DEPTHS, 11, setups["maze"]),
        game_record(NAMES[::-1], DEPTHS[::-1], 12, setups["big"]),
    ]


def season_meta(game: str, games: int, points: Any = "linear") -> dict[str, Any]:
    """The standings' facts of a one-round free-for-all season of ``games`` games, all played,
    ranked by the points table ``points``."""
    return {
        "game": game,
        "format": "free-for-all",
        "rounds": 1,
        "season_seed": 1,
        "games_scheduled": games,
        "games_played": games,
        "points": points,
    }


def render_season(out: Path, found: Sequence[Any], points: Any = "linear") -> SiteReport:
    """The site of a season of the games ``found``, ranked by the points table ``points``."""
    setups = example_setups()
    entrants = [Entrant(n, n.title(), entry_hash(n)) for n in NAMES]
    table = points if points == "linear" else tuple(points)
    doc = document(rank(entrants, found, table), season_meta(SPEC.id, len(found), points))
    known = {(s.name, s.hash): s.as_dict() for s in setups.values()}
    return render_site(found, doc, {}, out, setups=known)
