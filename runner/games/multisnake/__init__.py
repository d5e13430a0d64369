"""Multisnake (``multisnake-v2``): 2, 4 or 8 snakes moving at once on a wrapping map.

The rules for bot authors are in multisnake/rules.md. In short: every turn each live snake
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
from runner.games.multisnake.maps import START_LETTERS, GameMap, load_map, parse_map, seat_letter
from runner.games.multisnake.rules import (
    FREE,
    MAX_TURNS,
    STATUS_FIELD,
    STATUS_PREFIX,
    STATUS_SEATS,
    Direction,
    Multisnake,
    MultisnakeState,
    check_period,
    owner_text,
    places,
    status_lines,
    tile_owners,
)
from runner.games.spec import (
    Builtin,
    GameSpec,
    Keyboard,
    Presentation,
    Rules,
    SetupError,
    StdioCodec,
)

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
    """The site's layer over a frame: each snake's tiles, and its letter in the status, by its
    letter (lower case once it is dead), the rest blank — so each snake has its colour (the
    status doubling as the legend) and the dead are greyed, while the frame keeps every letter
    readable without colour."""

    def mark(seat: int) -> str:
        letter = seat_letter(seat)
        return letter if state.snakes[seat].died is None else letter.lower()

    status = []
    for line in status_lines(state):
        status.append([" "] * len(line))
    for seat in range(len(state.snakes)):
        column = STATUS_PREFIX + (seat % STATUS_SEATS) * STATUS_FIELD
        status[seat // STATUS_SEATS][column] = mark(seat)
    owners = tile_owners(state)
    marks = [
        "\n" if char == ord("\n") else " " if owner < 0 else mark(owner)
        for char, owner in zip(state.view[:-1], owners, strict=False)
    ]
    return "".join("".join(line) + "\n" for line in status) + "".join(marks)


def _map_lines(seats: int) -> tuple[int | None, int | None]:
    """The map's lines of a frame of ``seats`` snakes: all below the status."""
    return (-(-seats // STATUS_SEATS), None)


SETTINGS: Final = ("map", "period")


def _check_setup(setup: Setup, seats: int | None) -> None:
    """A configured setup: a map file's text that serves ``seats`` players (any of 2, 4, 8 when
    None) and a growth period of 1 to 25; SetupError naming the setting (and for a map, the line
    and column) otherwise."""
    for key in setup:
        if key not in SETTINGS:
            raise SetupError(
                key, f"`{key}` is not a Multisnake setting (a setup has `map_file` and `period`)"
            )
    text = setup.get("map")
    if not isinstance(text, str):
        raise SetupError("map", "no map: give the map file as `map_file: maps/<name>.map`")
    try:
        game_map = parse_map(text, seats)
        if seats is None and not game_map.seat_counts:
            raise ValueError("the map has no start tiles A and B: it serves no number of players")
    except ValueError as error:
        raise SetupError("map", str(error)) from None
    try:
        check_period(setup.get("period"))
    except ValueError as error:
        raise SetupError("period", f"{error} (write e.g. `period: 5`)") from None


def _first_free(state: MultisnakeState, seat: int) -> Direction:
    """A person's snake before any key: the first direction (^ > v <) to a free tile."""
    head = state.snakes[seat].head
    for direction in Direction:
        if state.view[state.step(head, direction)] in FREE:
            return direction
    return Direction.UP


KEYS: Final = {
    "up": Direction.UP,
    "right": Direction.RIGHT,
    "down": Direction.DOWN,
    "left": Direction.LEFT,
    "w": Direction.UP,
    "d": Direction.RIGHT,
    "s": Direction.DOWN,
    "a": Direction.LEFT,
}

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
        seat_classes=tuple(f"snake{s}" for s in range(8)),
        # The picture: a square per tile of the map (below the status), each snake's in its
        # seat's colour (the dead grey), a head with its letter, a sign with its + or -.
        graphic="cells",
        picture_lines=_map_lines,
        marks={"letter": START_LETTERS + START_LETTERS.lower() + "+-"},
    ),
    builtins=(Builtin("first-free", HERE / "builtin" / "first-free", "python"),),
    rules_doc=HERE / "rules.md",
    site_css=HERE / "site.css",
    limits={"move_cpu_ms": 100, "move_wall_s": 1.0, "first_move_wall_s": 2.0, "game_cpu_s": 60},
    formats=("free-for-all", "round-robin"),
    samples=_open_field,
    check_setup=_check_setup,
    keyboard=Keyboard(
        KEYS,
        _first_free,
        "the arrow keys (or w a s d) steer your snake; it keeps going while no key is pressed",
    ),
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
