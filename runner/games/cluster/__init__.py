"""Cluster: Connect Four on a rotating hexagon, for two programs on stdin/stdout
(docs/rules/cluster.md). One package: the rules (rules.py), what a bot reads and how its reply
is read (codec.py), how the site shows it, its built-in bot and its default limits."""

from __future__ import annotations

from pathlib import Path

from runner.games.cluster.codec import ClusterStdio, read_reply
from runner.games.cluster.rules import (
    CELLS,
    COLOUR_NAMES,
    COLUMNS,
    COORDS,
    DIRECTIONS,
    LINES,
    MAX_MOVES,
    NEIGHBOURS,
    PER_COLOUR,
    SEAT_NAMES,
    TOPS,
    Cluster,
    ClusterState,
    Move,
    Place,
    Rotate,
    cell_at,
    state_from_pellets,
    valid_columns,
    winning_colours,
)
from runner.games.spec import Builtin, GameSpec, Presentation

HERE = Path(__file__).resolve().parent
SPEC = GameSpec(
    rules=Cluster(),
    interface="stdio",
    codec=ClusterStdio(),
    presentation=Presentation(
        classes={"B": "blue", "b": "blue2", "R": "red", "r": "red2"},
        lines=(2, -2),  # the board: not the status lines above it nor the ruler below
        seat_classes=("blue", "red"),
        board_class="dim",
        score_header="Longest line",
        score_prefix="longest line: ",
    ),
    builtins=(Builtin("first", HERE / "builtin" / "first", "python"),),
    rules_doc="cluster",
    # The original referee's limits: wall-clock per move, the first move longer.
    limits={"move_wall_s": 0.1, "first_move_wall_s": 1.0},
)

__all__ = [
    "CELLS",
    "COLOUR_NAMES",
    "COLUMNS",
    "COORDS",
    "DIRECTIONS",
    "LINES",
    "MAX_MOVES",
    "NEIGHBOURS",
    "PER_COLOUR",
    "SEAT_NAMES",
    "SPEC",
    "TOPS",
    "Cluster",
    "ClusterState",
    "ClusterStdio",
    "Move",
    "Place",
    "Rotate",
    "cell_at",
    "read_reply",
    "state_from_pellets",
    "valid_columns",
    "winning_colours",
]
