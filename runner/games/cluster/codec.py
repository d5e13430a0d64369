"""How a Cluster bot sees the game and how its reply is read: as the game's original referee
does, so that bots written for it run unchanged (cluster/rules.md, "Protocol").

A program on stdin/stdout for the whole game: ``greeting`` (the board, the columns, both bags) once
before its first turn, then ``request`` before each of its moves (it ends with an empty line, as
the referee's do); it answers one line that ``decode`` reads as the original referee reads it
(``read_reply``). Where the rules leave the wire open, this module settles: the "new pellets" of
a turn message are those placed since the bot's previous turn message (its own and the
opponent's, oldest first, at the cells they lie on now; on its first turn, all); if any rotation
(its own or the opponent's) happened since then, the "moved" block lists every pellet on the
board in index order, else it is empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, Final

from runner.games.base import IllegalMoveError, InvalidMoveError
from runner.games.cluster.rules import (
    CELLS,
    COLUMNS,
    NEIGHBOURS,
    PER_COLOUR,
    SEAT_NAMES,
    TOPS,
    ClusterState,
    Move,
    Place,
    Rotate,
    valid_columns,
)

_NUMBER: Final = re.compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)")
_LONG_MAX: Final = 2**63 - 1


def _scan_number(text: str) -> tuple[int, str] | None:
    """The number at the start of ``text`` as the referee reads it, and the text after it.

    Out of range, the referee's C library clamps the number to a 64-bit ``long`` and then keeps
    its low 32 bits as an ``int``: ``4294967297`` reads as 1. None when no digit comes (then the
    referee reads a variable it never set; this host refuses the reply).
    """
    match = _NUMBER.match(text)
    if match is None:
        return None
    sign, digits = match.groups()
    digits = digits.lstrip("0") or "0"
    magnitude = int(digits) if len(digits) <= 19 else _LONG_MAX + 1  # more digits saturate too
    value = max(-_LONG_MAX - 1, min(-magnitude if sign == "-" else magnitude, _LONG_MAX))
    return (value + 2**31) % 2**32 - 2**31, text[match.end() :]


def read_reply(reply: str) -> Move | None:
    """The move the original referee reads from a reply line, or None where it reads none.

    The line ends at its first NUL (the referee handles it as a C string). The command word is
    everything before the first space and must be ``PLACE`` or ``ROTATE`` exactly (so a line
    starting with white space is refused). ``ROTATE`` takes one number; ``PLACE`` a number, then
    exactly one character that must be a space, then a number. Before each number any white space
    is skipped, a ``+`` or ``-`` sign is allowed, leading zeros are harmless, and whatever follows
    the last number is ignored. Values are not checked here (see ``Cluster.parse_move``).
    """
    text = reply.split("\0", 1)[0]
    word, space, rest = text.partition(" ")
    if not space:
        return None
    if word == "ROTATE":
        turns = _scan_number(rest)
        return None if turns is None else Rotate(turns[0])
    if word == "PLACE":
        column = _scan_number(rest)
        if column is None or not column[1].startswith(" "):
            return None
        colour = _scan_number(column[1][1:])
        return None if colour is None else Place(column[0], colour[0])
    return None


class ClusterStdio:
    """The stdin/stdout codec of Cluster: one process for the whole game, one line a move."""

    reply_lines: ClassVar[int] = 1

    def greeting(self, state: ClusterState, seat: int) -> bytes:
        """The message a bot reads once, before its first turn."""
        lines = [str(CELLS)]
        lines += [f"{i} " + " ".join(map(str, n)) for i, n in enumerate(NEIGHBOURS)]
        lines.append(str(COLUMNS))
        lines += [f"{i} " + " ".join(str(TOPS[g][i]) for g in range(6)) for i in range(COLUMNS)]
        for owner in (seat, 1 - seat):
            lines += ["2", f"{owner} {PER_COLOUR}", f"{owner + 2} {PER_COLOUR}"]
        return ("\n".join(lines) + "\n").encode("ascii")

    def request(self, state: ClusterState, seat: int) -> bytes:
        """The turn message: what changed since ``seat`` last read one, and its hand."""
        t = state.moves_played
        last_input = t - 1 - (t - 1 - seat) % 2  # the latest move number before t of this seat
        columns = valid_columns(state)
        lines = [str(state.gravity), str(len(columns))]
        lines += [f"{i} {TOPS[state.gravity][i]}" for i in columns]
        new = [p for p, at in enumerate(state.placed_at) if at >= last_input]
        lines.append(str(len(new)))
        lines += [
            f"{p} {state.cells[p]} {state.colours[p]} {int(state.colours[p] % 2 == seat)}"
            for p in new
        ]
        rotated = state.last_rotation >= max(last_input, 0)
        moved = range(len(state.cells)) if rotated else range(0)
        lines.append(str(len(moved)))
        lines += [f"{p} {state.cells[p]}" for p in moved]
        hand = state.hand if seat == state.mover and not state.over else ()
        lines.append(str(len(hand)))
        lines += [str(colour) for colour in hand]
        return ("\n".join(lines) + "\n\n").encode("ascii")  # an empty line ends a turn message

    def decode(self, state: ClusterState, seat: int, lines: Sequence[str]) -> Move:
        """A reply line as a move, read as the original referee reads it (``read_reply``).
        (``state`` plays no part: the rules check the move against the position.)

        Raises InvalidMoveError when it is not a move (syntax, a column outside 0..22, a colour
        outside 0..3, a rotation outside 1..5) and IllegalMoveError for the opponent's colour.
        """
        reply = lines[0] if lines else ""
        move = read_reply(reply)
        if move is None:
            raise InvalidMoveError(f"replied {reply!r}, not 'PLACE column colour' or 'ROTATE n'")
        if isinstance(move, Rotate):
            if not 1 <= move.turns <= 5:
                raise InvalidMoveError(f"replied {reply!r}: a rotation is 1 to 5 steps")
            return move
        if not 0 <= move.column < COLUMNS:
            raise InvalidMoveError(f"replied {reply!r}: columns are 0 to {COLUMNS - 1}")
        if not 0 <= move.colour < 4:
            raise InvalidMoveError(f"replied {reply!r}: colours are 0 to 3")
        if move.colour % 2 != seat:
            raise IllegalMoveError(
                f"replied {reply!r}: colour {move.colour} is {SEAT_NAMES[1 - seat]}'s"
            )
        return move

    def reply(self, move: Move) -> bytes:
        if isinstance(move, Rotate):
            return f"ROTATE {move.turns}\n".encode()
        return f"PLACE {move.column} {move.colour}\n".encode()
