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

from typing import Final

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
from runner.games.spec import Rules, StdioCodec

ID: Final = Multisnake.id
RULES: Final[Rules[MultisnakeState, Direction]] = Multisnake()
STDIO: Final[StdioCodec[MultisnakeState, Direction]] = MultisnakeStdio()

__all__ = [
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
