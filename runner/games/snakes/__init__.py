"""Snakes (Round 1): two C-function bots claim territory on a 32 × 16 board; enclosing the
other's head wins at once (snakes/rules.md). One package: the rules (rules.py), how a bot is
called (codec.py), how the site shows it, its built-in bot and its default limits."""

from __future__ import annotations

from pathlib import Path

from runner.games.snakes import quick
from runner.games.snakes.codec import SnakesCall
from runner.games.snakes.rules import (
    CELLS,
    HEIGHT,
    MAX_MOVES,
    MOVES,
    SEAT_NAMES,
    WIDTH,
    Snakes,
    SnakesState,
    changed_cells,
    frame_changes,
    state_from_text,
)
from runner.games.spec import Builtin, GameSpec, Presentation

HERE = Path(__file__).resolve().parent
SPEC = GameSpec(
    rules=Snakes(),
    interface="c-function",
    codec=SnakesCall(),
    presentation=Presentation(
        classes={"X": "x", "*": "xh", "O": "o", "@": "oh"},
        seat_classes=("x", "o"),
        score_header="Cells",
        score_prefix="",
        score_suffix=" cells",
        by_turn=True,
        graphic="cells",
        marks={"dot": "*@"},  # the heads
        frame_changes=frame_changes,
        replay_steps=quick.replay_steps,
        engine="engine-snakes-v2.js",
    ),
    builtins=(Builtin("steady", HERE / "builtin" / "steady", "c"),),
    rules_doc=HERE / "rules.md",
    site_css=HERE / "site.css",
    quick=quick.play,
    final_state=quick.final_state,
)

__all__ = [
    "CELLS",
    "HEIGHT",
    "MAX_MOVES",
    "MOVES",
    "SEAT_NAMES",
    "SPEC",
    "WIDTH",
    "Snakes",
    "SnakesCall",
    "SnakesState",
    "changed_cells",
    "frame_changes",
    "state_from_text",
]
