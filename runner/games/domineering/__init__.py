"""Domineering with a bomb (``domineering-v2``), from the Code Warriors 2k18 event.

On a 13 × 13 board Left (seat 0, moving first) places horizontal dominoes and Right (seat 1)
vertical ones, on two empty cells each. Instead of placing, a player may once per game explode its
bomb on a 5 × 5 square that no domino crosses the border of, emptying it. A player with no legal
move on its turn loses. Bots are programs started afresh for every move, as the event's arena ran
them: they read one line (their orientation, the 169 cells, their bombs left), write ``type row
col`` and exit; the move is what they wrote by then.

domineering/rules.md is the rules document for bot authors; ``rules`` holds the engine,
``codec`` the wire format, ``builtin/`` the check stage's opponent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from runner.games.domineering.codec import DomineeringStdio
from runner.games.domineering.rules import (
    FRAME_WIDTH,
    SIZE,
    SQUARE,
    Bomb,
    Domineering,
    DomineeringState,
    Move,
)
from runner.games.spec import Builtin, GameSpec, Presentation, Rules, StdioCodec

ID: Final = Domineering.id
# Typed as the spec's protocols, so that mypy checks the package keeps to them.
RULES: Final[Rules[DomineeringState, Move]] = Domineering()
STDIO: Final[StdioCodec[DomineeringState, Move]] = DomineeringStdio()

HERE = Path(__file__).resolve().parent
BOARD_TOP: Final = 4  # the frame's line of row 0 (rules.render: two status lines, two rulers)
BOARD_LEFT: Final = 4  # the frame's character of column 0; a cell every 2 characters


def bomb_layer(state: DomineeringState) -> str:
    """The site's layer over a frame: on the frame of the move that exploded a bomb, the square
    it cleared, from its first ``*`` to its last on each of its rows (the gaps between them
    too), so it reads as one square; blank elsewhere and on every other frame."""
    lines = [" " * FRAME_WIDTH] * (BOARD_TOP + SIZE)
    last = state.last
    if isinstance(last, Bomb):
        start = BOARD_LEFT + 2 * last.col
        span = "B" * (2 * SQUARE - 1)
        for row in range(last.row, last.row + SQUARE):
            line = lines[BOARD_TOP + row]
            lines[BOARD_TOP + row] = line[:start] + span + line[start + len(span) :]
    return "\n".join(lines)


# Each domino reads as one piece: Left's ``<->`` a bar rounded at both ends, Right's ``^`` over
# ``v`` a column rounded at top and bottom (site.css: .dom-*), in its seat's colour; the symbols
# alone already tell them apart without colour.
CLASSES: Final = {
    "<": "dom-h dom-w",
    "-": "dom-h",
    ">": "dom-h dom-e",
    "^": "dom-v dom-n",
    "v": "dom-v dom-s",
    "*": "dom-bomb",
}

SPEC = GameSpec(
    rules=RULES,
    interface="stdio-fresh",
    codec=STDIO,
    presentation=Presentation(
        classes=CLASSES,
        lines=(BOARD_TOP, None),  # the board only: the status lines keep their plain letters
        seat_classes=("x", "o"),
        board_class="domineering",
        frame_turn_to_play=True,  # "turn 2: Blue to move": the status line says turn 2 too
        score_header="Dominoes",
        score_prefix="dominoes: ",
        layer=bomb_layer,
        layer_classes={"B": "dom-bomb"},
        # The picture: a square per cell, a domino's two filling the gap between them, the bomb's
        # square one block (its cells share the layer's class) with a * on each cell.
        graphic="grid",
        grid=(BOARD_LEFT, 2),
        joins={"<": "e", "^": "s"},
        marks={"letter": "*"},
    ),
    builtins=(Builtin("first-legal", HERE / "builtin" / "first-legal", "python"),),
    rules_doc=HERE / "rules.md",
    site_css=HERE / "site.css",
    # The event's arena: a second a move for C and C++, from the process's start to its exit, and
    # two for Java (the statement's rule 5); a season's limits are C's, Java's twice them.
    limits={"move_cpu_ms": 1000, "move_wall_s": 1.0, "first_move_wall_s": None, "game_cpu_s": 60},
    time_allowance={"c": 1.0, "cpp": 1.0, "java": 2.0},
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
