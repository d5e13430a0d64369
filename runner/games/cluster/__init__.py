"""Cluster: Connect Four on a rotating hexagon, for two programs on stdin/stdout
(cluster/rules.md). One package: the rules (rules.py), what a bot reads and how its reply
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
    RADIUS,
    SEAT_NAMES,
    SYMBOLS,
    TOPS,
    WIN_LINE,
    Cluster,
    ClusterState,
    Move,
    Place,
    Rotate,
    _rotated,
    cell_at,
    state_from_pellets,
    valid_columns,
    winning_colours,
)
from runner.games.spec import Builtin, GameSpec, Presentation

HERE = Path(__file__).resolve().parent
FRAME_LINES = 2 + 4 * RADIUS + 1 + 2  # Cluster.render_text: status, the board, the ruler
FRAME_WIDTH = 3 * (COLUMNS - 1) + 1


def winning_cells(state: ClusterState) -> set[int]:
    """The cells of every straight line of one colour at least WIN_LINE long."""
    found: set[int] = set()
    for axis in range(3):
        for line in LINES[axis]:
            run: list[int] = []
            for cell in (*line, -1):
                colour = state.board[cell] if cell >= 0 else 0
                if run and colour == state.board[run[0]]:
                    run.append(cell)
                    continue
                if len(run) >= WIN_LINE:
                    found.update(run)
                run = [cell] if colour else []
    return found


def winning_layer(state: ClusterState) -> str:
    """The site's layer over a frame: once a line of WIN_LINE is made, each of its pellets
    marked with its own symbol (site.css outlines them: the winning line); blank before."""
    rows = [[" "] * FRAME_WIDTH for _ in range(FRAME_LINES)]
    if max(state.scores) >= WIN_LINE:
        for cell in winning_cells(state):
            q, r = _rotated(*COORDS[cell], -state.gravity)  # as render_text draws it
            rows[2 + 2 * r + q + 2 * RADIUS][3 * (q + RADIUS)] = SYMBOLS[state.board[cell]]
    return "\n".join("".join(row) for row in rows)


CLASSES = {"B": "blue", "b": "blue2", "R": "red", "r": "red2"}
SPEC = GameSpec(
    rules=Cluster(),
    interface="stdio",
    codec=ClusterStdio(),
    presentation=Presentation(
        classes=CLASSES,
        lines=(2, -1),  # the board: not the status lines above it nor the ruler below
        seat_classes=("blue", "red"),
        board_class="dim",
        frame_turn_to_play=True,  # "turn 2: Blue to move": the status line says turn 2 too
        score_header="Longest line",
        score_prefix="longest line: ",
        layer=winning_layer,
        graphic="hex",
        layer_classes={symbol: f"{name} win" for symbol, name in CLASSES.items()},
        legend=(
            ("B", "blue", "Blue's first colour (BLUE0)"),
            ("b", "blue2", "Blue's second colour (BLUE1)"),
            ("R", "red", "Red's first colour (RED0)"),
            ("r", "red2", "Red's second colour (RED1)"),
            (".", "", "an empty cell"),
            ("B", "blue win", f"a line of {WIN_LINE} or more: it wins"),
        ),
    ),
    builtins=(Builtin("first", HERE / "builtin" / "first", "python"),),
    rules_doc=HERE / "rules.md",
    site_css=HERE / "site.css",
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
