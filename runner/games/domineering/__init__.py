"""Domineering with a bomb (``domineering-v1``), from the Code Warriors 2k18 event.

On a 13 × 13 board Left (seat 0, moving first) places horizontal dominoes and Right (seat 1)
vertical ones, on two empty cells each. Instead of placing, a player may once per game explode its
bomb on a 5 × 5 square that no domino crosses the border of, emptying it. A player with no legal
move on its turn loses. Bots are programs started afresh for every move: they read their
orientation, the board and their bombs left, and answer ``type row col``.

docs/rules/domineering.md is the rules document for bot authors; ``rules`` holds the engine,
``codec`` the wire format, ``builtin/`` the check stage's opponent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from runner.games.domineering.codec import DomineeringStdio
from runner.games.domineering.rules import Domineering, DomineeringState, Move
from runner.games.spec import Builtin, GameSpec, Presentation, Rules, StdioCodec

ID: Final = Domineering.id
# Typed as the spec's protocols, so that mypy checks the package keeps to them.
RULES: Final[Rules[DomineeringState, Move]] = Domineering()
STDIO: Final[StdioCodec[DomineeringState, Move]] = DomineeringStdio()

HERE = Path(__file__).resolve().parent
SPEC = GameSpec(
    rules=RULES,
    interface="stdio-fresh",
    codec=STDIO,
    presentation=Presentation(
        classes={"<": "x", "-": "x", ">": "x", "^": "o", "v": "o", "*": "xh"},
        seat_classes=("x", "o"),
        score_header="Dominoes",
        score_prefix="dominoes: ",
    ),
    builtins=(Builtin("first-legal", HERE / "builtin" / "first-legal", "python"),),
    rules_doc="domineering",
    # The event's arena: one second of wall time a move, the process's start included.
    limits={"move_cpu_ms": 1000, "move_wall_s": 1.0, "first_move_wall_s": None, "game_cpu_s": 60},
    formats=("knockout", "round-robin"),
)

__all__ = [
    "SPEC",
    "ID",
    "RULES",
    "STDIO",
    "Domineering",
    "DomineeringState",
    "DomineeringStdio",
    "Move",
]
