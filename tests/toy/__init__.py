"""Race to Twenty: a toy game for tests only (not a product game), for 2 to 6 seats moving at once.

Every turn each seat still in the race says how far it runs, 1, 2 or 3. A seat that says the
same number as another seat this turn trips and runs nothing. The game ends after 10 turns, or
as soon as a seat reaches the goal (20, or the setup's ``goal``); places go by distance (more is
better, ties share the better place).
A seat whose bot faults is out: it stops where it stands (``stand_in`` None, ``retire``).

A program bot reads ``SEATS n ME m`` once, then before each move ``TURN t`` and one line of each
seat's distance, and answers one line: ``1``, ``2`` or ``3``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from runner.games.base import (
    EMPTY,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Setup,
    Termination,
)
from runner.games.spec import Builtin, GameSpec, Presentation, ranked_outcome

TURNS = 10
GOAL = 20


@dataclass(frozen=True)
class Race:
    distance: tuple[int, ...]
    out: tuple[bool, ...]
    turns: int = 0
    goal: int = GOAL

    @property
    def over(self) -> bool:
        return self.turns >= TURNS or max(self.distance) >= self.goal or all(self.out)


class RaceRules:
    id: ClassVar[str] = "race-v1"
    info: ClassVar[GameInfo] = GameInfo(
        min_players=2,
        max_players=6,
        simultaneous=True,
        max_moves=TURNS,
        seat_names=tuple("ABCDEF"),
        score_label="{} steps",
    )

    def initial_state(self, rng: random.Random, seats: int, setup: Setup = EMPTY) -> Race:
        goal = setup.get("goal", GOAL)
        if not isinstance(goal, int) or goal < 1:
            raise ValueError(f"a race's goal is a whole number of steps, not {goal!r}")
        return Race((0,) * seats, (False,) * seats, goal=goal)

    def to_move(self, state: Race) -> tuple[int, ...]:
        return () if state.over else tuple(s for s, out in enumerate(state.out) if not out)

    def legal_moves(self, state: Race, seat: int) -> tuple[int, ...]:
        return (1, 2, 3) if seat in self.to_move(state) else ()

    def check_move(self, state: Race, seat: int, move: int) -> None:
        if move not in (1, 2, 3):
            raise InvalidMoveError(f"{move!r} is not 1, 2 or 3")
        if seat not in self.to_move(state):
            raise IllegalMoveError(f"{move!r}: seat {seat} does not run now")

    def apply(self, state: Race, moves: Mapping[int, int]) -> Race:
        if sorted(moves) != list(self.to_move(state)):
            raise IllegalMoveError(f"moves came for {sorted(moves)}, not {self.to_move(state)}")
        said = list(moves.values())
        distance = list(state.distance)
        for seat, step in moves.items():
            self.check_move(state, seat, step)
            if said.count(step) == 1:
                distance[seat] += step
        return replace(state, distance=tuple(distance), turns=state.turns + 1)

    def stand_in(self, state: Race, seat: int) -> int | None:
        return None

    def retire(self, state: Race, seat: int) -> Race:
        out = list(state.out)
        out[seat] = True
        return replace(state, out=tuple(out))

    def outcome(self, state: Race) -> Outcome | None:
        if not state.over:
            return None
        best = max(state.distance)
        leaders = [self.info.seat_names[s] for s, d in enumerate(state.distance) if d == best]
        detail = f"{' and '.join(leaders)} ran farthest, {best} steps"
        return ranked_outcome(state.distance, Termination.NORMAL, detail)

    def scores(self, state: Race) -> tuple[int, ...]:
        return state.distance

    def turn(self, state: Race) -> int:
        return state.turns + 1

    def render_text(self, state: Race) -> str:
        lines = [f"turn {state.turns}"]
        for seat, d in enumerate(state.distance):
            mark = "x" if state.out[seat] else self.info.seat_names[seat]
            lines.append(("." * d + mark).ljust(state.goal + 3, " ") + "|")
        return "\n".join(lines)

    def move_text(self, move: int) -> str:
        return str(move)

    def parse_move(self, seat: int, text: str) -> int:
        if text in ("1", "2", "3"):
            return int(text)
        raise InvalidMoveError(f"{text!r} is not 1, 2 or 3")


class RaceStdio:
    reply_lines: ClassVar[int] = 1

    def greeting(self, state: Race, seat: int) -> bytes:
        return f"SEATS {len(state.distance)} ME {seat}\n".encode()

    def request(self, state: Race, seat: int) -> bytes:
        return f"TURN {state.turns + 1}\n{' '.join(map(str, state.distance))}\n".encode()

    def decode(self, state: Race, seat: int, lines: Sequence[str]) -> int:
        reply = lines[0].strip() if lines else ""
        if reply in ("1", "2", "3"):
            return int(reply)
        raise InvalidMoveError(f"replied {reply!r}, not 1, 2 or 3")

    def reply(self, move: int) -> bytes:
        return f"{move}\n".encode()


SPEC = GameSpec(
    rules=RaceRules(),
    interface="stdio",
    codec=RaceStdio(),
    presentation=Presentation(score_header="Steps", score_suffix=" steps"),
    builtins=(Builtin("plodder", Path(__file__).parent / "builtin" / "plodder", "python"),),
    rules_doc=Path(__file__).parent / "rules.md",  # a game is one folder: its rules page,
    site_css=Path(__file__).parent / "site.css",  # its look, its built-in bot
    formats=("free-for-all",),
)
