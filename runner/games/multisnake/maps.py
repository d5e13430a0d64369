"""Multisnake map files: reading and checking them (multisnake/rules.md, "Maps").

A map file is the grid alone: H lines of W characters (5 <= W, H <= 150), no header. Lines end
in ``\\n`` (``\\r\\n`` is read the same); the last line's ending may be left out. A tile is ``#``
(wall), ``.`` (free), ``+`` (grow sign), ``-`` (shrink sign) or a start letter ``A``..``H``. Each
letter stands at most once. A map serves N = 2, 4 or 8 players when the letters ``A`` up to the
N-th letter all stand on it; in a game of N players the letters beyond the N-th are free tiles.

Every error names the line and column (both 1-based) and what is wrong there, so that a season can
report it against the map file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

MIN_SIDE: Final = 5
MAX_SIDE: Final = 150
TILES: Final = "#.+-"
START_LETTERS: Final = "ABCDEFGH"
SEAT_COUNTS: Final = (2, 4, 8)


def seat_letter(seat: int) -> str:
    """The letter of ``seat`` (0-based): A, B, ..."""
    return START_LETTERS[seat]


def _check_line(number: int, line: str, width: int, allowed: str, what: str) -> None:
    """ValueError, naming line ``number`` and the column, at the first character of ``line`` not
    in ``allowed``, or else if ``line`` is not ``width`` characters long."""
    for column, char in enumerate(line, start=1):
        if char not in allowed:
            shown = "a carriage return" if char == "\r" else repr(char)
            raise ValueError(f"line {number}, column {column}: {shown} is not a map tile ({what})")
    if len(line) < width:
        raise ValueError(
            f"line {number}, column {len(line) + 1}: the line ends after {len(line)} tiles, "
            f"but line 1 has {width} (every line is as wide as the first)"
        )
    if len(line) > width:
        raise ValueError(
            f"line {number}, column {width + 1}: the line goes on past the {width} tiles of "
            "line 1 (every line is as wide as the first)"
        )


def read_grid(text: str, allowed: str, what: str) -> tuple[str, ...]:
    """The lines of a rectangular grid of ``allowed`` characters between the size limits.

    ``what`` says in words which characters are allowed (for the error message).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise ValueError("the map is empty: a map is 5 to 150 lines of 5 to 150 tiles")
    if not MIN_SIDE <= len(lines) <= MAX_SIDE:
        raise ValueError(f"the map has {len(lines)} lines; a map has {MIN_SIDE} to {MAX_SIDE}")
    width = len(lines[0])
    if not MIN_SIDE <= width <= MAX_SIDE:
        raise ValueError(f"line 1: {width} tiles; a map is {MIN_SIDE} to {MAX_SIDE} tiles wide")
    for number, line in enumerate(lines, start=1):
        _check_line(number, line, width, allowed, what)
    return tuple(lines)


@dataclass(frozen=True)
class GameMap:
    """A checked map: its lines as in the file and where each start letter stands."""

    rows: tuple[str, ...]
    starts: tuple[tuple[str, int, int], ...]  # (letter, x, y), in letter order

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def seat_counts(self) -> tuple[int, ...]:
        """The numbers of players (2, 4, 8) this map has start tiles for."""
        letters = {letter for letter, _, _ in self.starts}
        return tuple(n for n in SEAT_COUNTS if set(START_LETTERS[:n]) <= letters)

    def check_seats(self, seats: int) -> None:
        """Raise ValueError unless the map serves ``seats`` players."""
        if seats not in SEAT_COUNTS:
            raise ValueError(f"Multisnake is played by 2, 4 or 8 players, not {seats}")
        letters = {letter for letter, _, _ in self.starts}
        missing = [letter for letter in START_LETTERS[:seats] if letter not in letters]
        if missing:
            raise ValueError(
                f"the map has no start tile {' or '.join(missing)}: {seats} players need the "
                f"letters A to {START_LETTERS[seats - 1]} once each"
            )


def parse_map(text: str, seats: int | None = None) -> GameMap:
    """The map a map file's text describes; ValueError naming the line and column otherwise.

    With ``seats``, also checks that the map has a start tile for each of them.
    """
    rows = read_grid(text, TILES + START_LETTERS, "a map holds # . + - and start letters A to H")
    seen: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char in START_LETTERS:
                if char in seen:
                    fx, fy = seen[char]
                    raise ValueError(
                        f"line {y + 1}, column {x + 1}: a second start tile {char!r} (the first "
                        f"is at line {fy + 1}, column {fx + 1}); each letter stands once"
                    )
                seen[char] = (x, y)
    game_map = GameMap(rows, tuple((c, *seen[c]) for c in sorted(seen)))
    if seats is not None:
        game_map.check_seats(seats)
    return game_map


def load_map(path: Path | str, seats: int | None = None) -> GameMap:
    """Read and check a map file; errors start with the file's name."""
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not ASCII text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        return parse_map(text, seats)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
