"""How the site shows an Easter Egg Hunt run (runner/games/spec.py ``Presentation``).

A frame (``EggHunt.render_text``) is a status line (turns, eggs left, each seat's eggs: the
scoreboard of that turn), the board, and two lines of the last turn's events. On the page:

- the board's symbols coloured: walls, eggs, and each player's letter in its seat's colour;
- a layer (``fights``) that marks the tiles where the last turn's fights and crowds happened —
  so a fight shows on the board in the frame of the turn it happened, beside its line of text —
  and colours each seat's letter in the status line (the scoreboard doubles as the legend);
- each player's 5 × 5 window, outlined on demand (``Presentation.window``: the page's player
  draws a square around each seat's letter when asked; the text frames stand without it);
- a picture of the board (``graphic``): a square per tile, walls grey, an egg a dot, each
  player's letter on its seat's colour, the last turn's fights framed in red, the windows
  dashed; the status line above it, the turn's events below, the text frame one click away.
"""

from __future__ import annotations

from typing import Final

from runner.games.egghunt.rules import EGG, SEAT_SYMBOLS, WALL, EggHunt, EggHuntState, picture
from runner.games.spec import Presentation

COLOURS: Final = 8  # seat colours (the site's snake0 .. snake7), repeated past eight seats
FIGHT: Final = "!"  # the layer's mark of a fight on an empty tile (a tie sent both back)
EGG_FIGHT: Final = "@"  # ... on an egg
LEGEND: Final = 0xE000  # the layer's mark of seat s's letter in the status line: chr(LEGEND + s)
WINDOW: Final = 5  # the side of the square a bot sees


def seat_class(seat: int) -> str:
    return f"snake{seat % COLOURS}"


def fights(state: EggHuntState) -> str:
    """The layer over a frame: the last turn's fight and crowd tiles (the letter standing there
    now, or a mark for an egg or an empty tile), and each seat's letter in the status line."""
    tiles = {f.tile for f in state.last.fights} | {tile for tile, _ in state.last.crowds}
    rows = picture(state)
    board = [[" "] * state.size for _ in range(state.size)]
    for tile in tiles:
        x, y = state.xy(tile)
        here = rows[y][x]
        board[y][x] = FIGHT if here == " " else EGG_FIGHT if here == EGG else here
    return "\n".join([legend(state), *("".join(r) for r in board), "", ""])


def legend(state: EggHuntState) -> str:
    """The layer over the status line: each seat's letter in its tally ("A 3  B 0 ...")."""
    line = EggHunt().render_text(state).split("\n", 1)[0]
    at = line.index(": ") + 2
    marks = [" "] * at
    for seat, tally in enumerate(line[at:].split("  ")):
        marks += [chr(LEGEND + seat)] + [" "] * (len(tally) + 1)
    return "".join(marks).rstrip()


CLASSES: Final = {
    WALL: "eh-wall",
    EGG: "eh-egg",
    **{letter: seat_class(seat) for seat, letter in enumerate(SEAT_SYMBOLS)},
}
LAYER_CLASSES: Final = {
    FIGHT: "fight",
    EGG_FIGHT: "eh-egg fight",
    **{letter: f"{seat_class(seat)} fight" for seat, letter in enumerate(SEAT_SYMBOLS)},
    **{chr(LEGEND + seat): seat_class(seat) for seat in range(len(SEAT_SYMBOLS))},
}

PRESENTATION: Final = Presentation(
    classes=CLASSES,
    lines=(1, -2),  # the board: not the status line, not the events' lines
    seat_classes=tuple(seat_class(s) for s in range(len(SEAT_SYMBOLS))),
    score_header="Eggs",
    score_prefix="eggs: ",
    layer=fights,
    layer_classes=LAYER_CLASSES,
    window=WINDOW,
    window_symbols=SEAT_SYMBOLS,
    # The picture: a square per tile, walls grey, an egg a dot, each player its letter on its
    # seat's colour; the last turn's fights framed in red, the windows dashed on demand.
    graphic="cells",
    marks={"letter": SEAT_SYMBOLS, "dot": EGG},
)
