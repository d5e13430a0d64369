"""Easter Egg Hunt runs played in this process by a simple Python strategy, no sandbox: a small
season of one table for the tests of the site that need no bot processes (tests/multisnake_games.py
does the same for Multisnake, and its in-process seats are reused here).

Each seat walks at random and remembers a long line of what it did (a memory line as long as the
rules allow, so the pages must wrap what bots say), so the records come out of the real referee as
a season's would.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from multisnake_games import NO_SANDBOX, InProcess, season_meta

from runner.games.egghunt import SPEC
from runner.games.egghunt.rules import ACTIONS, DELTAS, MEMORY_LIMIT, EggHuntState, Move
from runner.games.spec import GameSpec
from runner.play.referee import Player, play_game
from runner.play.seats import Seat, SeatOpener
from runner.rank.standings import document, rank
from runner.sandbox.zygote_client import BotLimits
from runner.season import results
from runner.season.entries import Entrant
from runner.site.render import SiteReport, render_site

NAMES = ("ann", "bob", "cy", "dee", "eli", "fay", "gus")
LIMITS = BotLimits(
    move_cpu_s=0.5, game_cpu_s=60.0, move_wall_s=1.0, memory_bytes=256 << 20, first_move_wall_s=2.0
)


def entry_hash(entry: str) -> str:
    return hashlib.sha256(entry.encode()).hexdigest()


def wander(state: EggHuntState, rng: random.Random) -> Move:
    """A random step and action, and a memory line of the rules' full length."""
    memory = "".join(rng.choice("NESW0123456789") for _ in range(MEMORY_LIMIT))
    return Move(rng.choice(sorted(DELTAS)), rng.choice(ACTIONS), memory)


def wandering_seat(seed: int) -> SeatOpener:
    def opens(spec: GameSpec, seat: int, state: Any) -> Seat:
        rng = random.Random(f"{seed}/{seat}")
        return Seat(InProcess("wanderer"), lambda now: b"", lambda now, move: wander(now, rng))

    return opens


def run_record(seed: int) -> Any:
    """One run of the seven wanderers, as a season's record."""
    seats = [Player(n, entry_hash(n), Path("-"), opens=wandering_seat(seed)) for n in NAMES]
    played = play_game(SPEC, seats, NO_SANDBOX, LIMITS, seed)
    key = results.record_key(SPEC.id, [(n, entry_hash(n)) for n in NAMES], seed)
    return results.make_record(
        played.to_dict(), key=key, season_seed=1, round_=1, when="2025-04-01T10:00:00.000000Z"
    )


def render_season(out: Path) -> SiteReport:
    """A season of two runs, its standings ranked by mean eggs, and its site in ``out``."""
    found = [run_record(1), run_record(2)]
    entrants = [Entrant(n, n.title(), entry_hash(n)) for n in NAMES]
    doc = document(rank(entrants, found, by_score=True), season_meta(SPEC.id, len(found)))
    return render_site(found, doc, {}, out)
