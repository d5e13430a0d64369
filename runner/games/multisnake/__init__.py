"""Multisnake (``multisnake-v1``): 2, 4 or 8 snakes moving at once on a wrapping map.

The rules for bot authors are in docs/rules/multisnake.md. In short: every turn each live snake
moves its head one tile (``^ > v <``, across the map's edges) and its tail follows; tiles that tails
leave this turn may be entered; a snake whose target is taken dies without moving (checked again
until no more die), snakes entering one tile together die there, only a length-1 snake may reverse;
``+`` grows and ``-`` shrinks a snake (length 0 dies), every T turns every snake grows; the dead
stay on the map as obstacles. The last snake alive wins; placement is by turn of death.

``rules`` holds the pure engine (``Multisnake``), ``codec`` the stdio format (``MultisnakeStdio``),
``maps`` the map-file reader (``load_map``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from runner.games.base import Setup
from runner.games.multisnake.codec import MultisnakeStdio
from runner.games.multisnake.maps import GameMap, load_map, parse_map
from runner.games.multisnake.rules import (
    MAX_TURNS,
    Direction,
    Multisnake,
    MultisnakeState,
    owner_text,
    places,
    tile_owners,
)
from runner.games.spec import Builtin, GameSpec, Presentation, Rules, StdioCodec

ID: Final = Multisnake.id
RULES: Final[Rules[MultisnakeState, Direction]] = Multisnake()
STDIO: Final[StdioCodec[MultisnakeState, Direction]] = MultisnakeStdio()

HERE = Path(__file__).resolve().parent


def _open_field(seats: int) -> Setup:
    """A sample map for ``seats`` snakes: an open 16 x 12 field, starts spread out."""
    rows = [["."] * 16 for _ in range(12)]
    spots = [(1, 1), (14, 10), (14, 1), (1, 10), (7, 3), (8, 8), (3, 6), (12, 5)]
    for seat in range(seats):
        x, y = spots[seat]
        rows[y][x] = chr(ord("A") + seat)
    return {"map": "\n".join("".join(row) for row in rows) + "\n", "period": 3}


def _owners(state: MultisnakeState) -> str:
    """The site's layer over a frame: each snake's tiles by its letter (lower case once it is
    dead), the status line and the rest blank — so each snake has its colour and the dead are
    greyed, while the frame keeps every letter readable without colour."""
    owners = tile_owners(state)
    status_width = Multisnake().render_text(state).index("\n")
    marks = []
    for char, owner in zip(state.view[:-1], owners, strict=False):
        if char == ord("\n") or owner < 0:
            marks.append("\n" if char == ord("\n") else " ")
        else:
            letter = chr(ord("A") + owner)
            marks.append(letter if state.snakes[owner].died is None else letter.lower())
    return " " * status_width + "\n" + "".join(marks)


LAYER_CLASSES = {chr(ord("A") + s): f"snake{s}" for s in range(8)} | {
    chr(ord("a") + s): "dead" for s in range(8)
}

SPEC = GameSpec(
    rules=RULES,
    interface="stdio",
    codec=STDIO,
    presentation=Presentation(
        score_header="Length",
        score_prefix="length: ",
        layer=_owners,
        layer_classes=LAYER_CLASSES,
    ),
    builtins=(Builtin("first-free", HERE / "builtin" / "first-free", "python"),),
    rules_doc="multisnake",
    limits={"move_cpu_ms": 100, "move_wall_s": 1.0, "first_move_wall_s": 2.0, "game_cpu_s": 60},
    formats=("free-for-all", "round-robin"),
    samples=_open_field,
)

__all__ = [
    "SPEC",
    "ID",
    "MAX_TURNS",
    "RULES",
    "STDIO",
    "Direction",
    "GameMap",
    "Multisnake",
    "MultisnakeState",
    "MultisnakeStdio",
    "load_map",
    "owner_text",
    "parse_map",
    "places",
    "tile_owners",
]
