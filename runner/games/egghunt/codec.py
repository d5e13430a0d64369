"""The Easter Egg Hunt's stdio wire format: a fresh process per bot per turn, nothing before.

Request (six lines, each ended by ``\\n``, ASCII): five lines of exactly five characters, the 5 x 5
window centred on the bot (rows top to bottom, columns left to right) with ``o`` an egg, ``#`` a
wall, ``*`` a player (the centre is always the bot itself), space an empty tile and ``X`` a tile
outside the board; then the bot's memory line (empty on the first turn).

Reply (up to three lines; the host stops reading after the third or at end of output; a missing
line reads as blank; carriage returns at a line's end are dropped):

1. the direction: one digit 1-9 (keypad 1 2 3 / 8 9 4 / 7 6 5, 9 stays), spaces and tabs around
   it ignored. Anything else (a blank line too) makes the whole reply ``9 N`` with the memory
   unchanged, as a crash or a timeout does (``EggHunt.stand_in``).
2. the action: ``A``, ``C`` or ``N`` (case matters), spaces and tabs around it ignored; anything
   else, or nothing, is ``N``.
3. the new memory, verbatim (leading and trailing spaces kept): cut to its first 1024 characters,
   and every character outside printable ASCII (space to ``~``) becomes ``?``. A missing third
   line is an empty memory.

``decode`` never raises: every reply is a move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final, cast

from runner.games.base import InvalidMoveError
from runner.games.egghunt.rules import (
    ACTIONS,
    DELTAS,
    EGG,
    EMPTY,
    MEMORY_LIMIT,
    WALL,
    Action,
    EggHuntState,
    Move,
)

VIEW_RADIUS: Final = 2  # a 5 x 5 window
PLAYER: Final = "*"
OUTSIDE: Final = "X"
_DIGITS: Final = {str(d): d for d in DELTAS}
_SPACE: Final = " \t\r\n"  # around a direction or an action


def view(state: EggHuntState, seat: int) -> list[str]:
    """The five rows of ``seat``'s window, as the request shows them."""
    x0, y0 = state.xy(state.positions[seat])
    occupied = set(state.positions)
    rows = []
    for y in range(y0 - VIEW_RADIUS, y0 + VIEW_RADIUS + 1):
        row = []
        for x in range(x0 - VIEW_RADIUS, x0 + VIEW_RADIUS + 1):
            tile = y * state.size + x
            if not (0 <= x < state.size and 0 <= y < state.size):
                row.append(OUTSIDE)
            elif tile in occupied:
                row.append(PLAYER)
            elif state.walls[tile]:
                row.append(WALL)
            elif tile in state.eggs:
                row.append(EGG)
            else:
                row.append(EMPTY)
        rows.append("".join(row))
    return rows


def clean_memory(line: str) -> str:
    """A reply's third line as the memory it sets: at most 1024 characters, printable ASCII
    (anything else becomes ``?``)."""
    cut = line.rstrip("\r\n")[:MEMORY_LIMIT]
    return "".join(c if " " <= c <= "~" else "?" for c in cut)


class EggHuntStdio:
    """The stdio codec: a fresh process per turn, six lines in, up to three lines out."""

    reply_lines: ClassVar[int] = 3

    def greeting(self, state: EggHuntState, seat: int) -> bytes:
        return b""

    def request(self, state: EggHuntState, seat: int) -> bytes:
        lines = [*view(state, seat), state.memories[seat]]
        return "".join(line + "\n" for line in lines).encode("ascii")

    def decode(self, state: EggHuntState, seat: int, lines: Sequence[str]) -> Move:
        """The move a reply means. A missing or invalid direction is InvalidMoveError quoting
        it: the referee records the fault and plays the seat's stand-in move, ``9 N`` with its
        memory unchanged, as the rules say (the seat plays on)."""
        padded = [*lines[:3], "", "", ""]
        direction = _DIGITS.get(padded[0].strip(_SPACE))
        if direction is None:
            raise InvalidMoveError(f"replied {padded[0][:40]!r}, not a direction 1 to 9")
        action = padded[1].strip(_SPACE)
        chosen = cast(Action, action) if action in ACTIONS else "N"
        return Move(direction, chosen, clean_memory(padded[2]))

    def reply(self, move: Move) -> bytes:
        return f"{move.direction}\n{move.action}\n{move.memory}\n".encode("ascii")


__all__ = ["OUTSIDE", "PLAYER", "VIEW_RADIUS", "EggHuntStdio", "clean_memory", "view"]
