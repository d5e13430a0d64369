"""Watching a game in a terminal: ``koth play … --watch`` and ``koth replay … --watch``.

- ``Screen`` draws one frame at a time. On a terminal it redraws in place: a status line on
  top (the players' names and scores, the turn, paused or not, the keys), then the board,
  cropped to the terminal's rows and columns, so a frame taller than the terminal (Cluster's
  ~50 rows on 30) never pushes the status away: the frame's lines above its board stay, the
  board's window follows the rows the last move changed (or ↑/↓ scroll it), and a last line
  says how many rows are hidden above and below.
  Elsewhere (a pipe, CI, a test) it writes each frame after the last, plain, whole.
- Colour only on a terminal and when NO_COLOR is not set (https://no-color.org): each seat's
  pieces in that seat's colour, picked from the game's ``Presentation`` (the CSS classes the
  site colours with: a symbol's class, or its layer's class, names a seat's class or starts
  with it; a winning line or a head is bold).
- ``Controls`` reads the watcher's keys between frames, never while the game waits for a bot:
  space pauses and resumes, → or n steps one move while paused, ↑/↓ scroll a cropped board,
  q quits. It waits on the
  keyboard for the frame's delay instead of sleeping, so the game's own pace is unchanged.
"""

from __future__ import annotations

import os
import select
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from runner.games.spec import GameSpec, Presentation
from runner.play.terminal import KeyDecoder

# Seat colours (SGR): blue, red, green, magenta, cyan, yellow, bright blue, bright red.
PALETTE = ("34", "31", "32", "35", "36", "33", "94", "91")
OTHER = "33"  # a class no seat owns (a bomb, an egg): yellow
# Classes named for what they are rather than for a seat: whose they are.
SEAT_OF = {"dom-h": 0, "dom-v": 1, "dead": -1}
RESET = "\x1b[0m"
KEYS = "space pause · → or n step · ↑/↓ scroll · q quit"
SCROLL = 4  # rows a key scrolls a board taller than the terminal


class Quit(Exception):
    """The watcher pressed q."""


def colour_wanted(stream: TextIO) -> bool:
    """Colour on ``stream``: a terminal, and NO_COLOR not set (to anything but "")."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return terminal and not os.environ.get("NO_COLOR")


def terminal_size(stream: TextIO) -> tuple[int, int]:
    """(columns, rows) of the terminal ``stream`` writes to; 80×24 when it cannot tell."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError):
        size = shutil.get_terminal_size()
    if size.columns <= 0 or size.lines <= 0:
        size = shutil.get_terminal_size()
    return size.columns, size.lines


def _sgr(cls: str, show: Presentation) -> str:
    """The SGR codes for one CSS class of a frame symbol ("" for none)."""
    if not cls:
        return ""
    first = cls.split()[0]
    seat = SEAT_OF.get(first)
    if seat is None:
        owners = [k for k, c in enumerate(show.seat_classes) if c and first.startswith(c)]
        exact = [k for k in owners if show.seat_classes[k] == first]
        longest = sorted(owners, key=lambda k: -len(show.seat_classes[k]))
        seat = (exact or longest)[0] if owners else None
    colour = OTHER if seat is None else "2" if seat < 0 else PALETTE[seat % len(PALETTE)]
    strong = "win" in cls.split() or (seat is not None and seat >= 0 and first != _own(show, seat))
    return f"1;{colour}" if strong else colour


def _own(show: Presentation, seat: int) -> str:
    return show.seat_classes[seat] if seat < len(show.seat_classes) else ""


def seat_colour(seat: int) -> str:
    return PALETTE[seat % len(PALETTE)]


def paint(lines: Sequence[str], show: Presentation, layer: str = "") -> list[list[str]]:
    """Each line's characters with their SGR codes (as ``paint_line`` joins them): the
    classes of ``show`` (only on the lines ``show.lines`` selects), a ``layer`` over them."""
    return [[_sgr(cls, show) for cls in kinds] for kinds in show.frame_classes(lines, layer)]


def paint_line(line: str, codes: Sequence[str]) -> str:
    """``line`` with each run of one code in that colour."""
    out, current = [], ""
    for ch, code in zip(line, codes, strict=False):
        if code != current:
            out.append(RESET if current and not code else f"\x1b[0;{code}m" if code else "")
            current = code
        out.append(ch)
    if current:
        out.append(RESET)
    return "".join(out)


class Screen:
    """Draws a game's frames on ``out`` (see the module's docstring)."""

    def __init__(
        self,
        out: TextIO,
        show: Presentation,
        live: bool | None = None,
        colour: bool | None = None,
        size: Callable[[], tuple[int, int]] | None = None,
    ) -> None:
        self.out = out
        self.show = show
        self.live = out.isatty() if live is None else live
        self.colour = colour_wanted(out) if colour is None else colour
        self.size = size or (lambda: terminal_size(out))
        self.previous: list[str] = []  # the last frame drawn, by line
        self.offset = 0  # the first board row in view, when the board is cropped

    def draw(self, status: Sequence[str], frame: str, layer: str = "") -> None:
        """One frame under its status lines (the first is the names and scores)."""
        lines = frame.split("\n")
        if not self.live:
            self.out.write("\n".join([*status, *lines]) + "\n\n")
            self.out.flush()
            return
        columns, rows = self.size()
        room = max(rows - len(status), 1)
        rows_shown, note = self._window(lines, room)
        codes = paint(lines, self.show, layer) if self.colour else [[] for _ in lines]
        shown = [_crop(s, columns) for s in status]
        shown += [paint_line(lines[y][:columns], codes[y][:columns]) for y in rows_shown]
        if note:
            shown.append(_crop(note, columns))
        self.out.write("\x1b[H" + "\x1b[K\n".join(shown[:rows]) + "\x1b[K\x1b[J")
        self.out.flush()

    def _window(self, lines: list[str], room: int) -> tuple[list[int], str]:
        """Which of the frame's lines fit in ``room`` rows, and the note saying what is hidden:
        the lines above the board stay; the board's window follows the rows that changed since
        the last frame, unless scrolled (``scroll``)."""
        previous, self.previous = self.previous, lines
        if len(lines) <= room:
            return list(range(len(lines))), ""
        top = self.show.lines[0] or 0
        pinned = max(0, min(top if top >= 0 else 0, room - 2))
        visible = max(room - 1 - pinned, 1)
        body = len(lines) - pinned
        changed = [
            y - pinned
            for y in range(pinned, len(lines))
            if y >= len(previous) or previous[y] != lines[y]
        ]
        if changed and changed[-1] >= self.offset + visible:
            self.offset = changed[-1] - visible + 1
        if changed and changed[0] < self.offset:
            self.offset = changed[0]
        self.offset = max(0, min(self.offset, body - visible))
        above, below = self.offset, body - visible - self.offset
        note = f"… {above} more row(s) above, {below} below (↑/↓ scroll)"
        start = pinned + self.offset
        return [*range(pinned), *range(start, start + visible)], note

    def scroll(self, by: int) -> None:
        """Move the board's window ``by`` rows (down when positive) for the next draw."""
        self.offset = max(0, self.offset + by)  # kept in range by the next draw

    def status(self, names: Sequence[str], scores: Sequence[Any], turn: int, state: str) -> str:
        """The status line: each seat's name and score (in its colour), the turn, ``state``."""
        seats = []
        for seat, (name, score) in enumerate(zip(names, scores, strict=True)):
            text = f"{name} {self.show.score_prefix}{_number(score)}{self.show.score_suffix}"
            if self.colour and self.live:
                text = f"\x1b[1;{seat_colour(seat)}m{text}{RESET}"
            seats.append(text)
        return " · ".join(seats) + f"   turn {turn}" + (f"   {state}" if state else "")

    def finish(self) -> None:
        """Leave the cursor under the last frame."""
        if self.live:
            self.out.write("\n")
            self.out.flush()


def _crop(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` visible characters (its SGR codes kept, closed)."""
    visible, out, at = 0, [], 0
    while at < len(text):
        if text[at] == "\x1b":
            end = text.find("m", at)
            end = len(text) - 1 if end < 0 else end
            out.append(text[at : end + 1])
            at = end + 1
            continue
        if visible >= columns:
            out.append(RESET if "\x1b[" in text else "")
            break
        out.append(text[at])
        visible += 1
        at += 1
    return "".join(out)


def _number(score: Any) -> str:
    return f"{score:g}" if isinstance(score, float) else str(score)


class Controls:
    """The watcher's keys on ``fd`` (a terminal in cbreak mode), read only between frames."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self.paused = False
        self.decoder = KeyDecoder()
        self.pending: list[str] = []  # keys read, not yet acted on
        self.scroll: Callable[[int], None] | None = None  # ↑/↓: move the board's window

    def wait(self, delay: float, redraw: Callable[[], None]) -> None:
        """Let ``delay`` seconds pass (or, paused, until a step or a resume), acting on keys;
        ``redraw`` draws the frame again when the paused state changes. Raises ``Quit``."""
        deadline = time.monotonic() + max(delay, 0.0)
        while self.fd is not None or self.pending:
            if self.pending:
                if self._act(self.pending.pop(0), redraw):
                    return
                continue
            timeout = None if self.paused else deadline - time.monotonic()
            if (timeout is not None and timeout <= 0) or not self._read(timeout):
                return
        if delay > 0:
            select.select([], [], [], max(deadline - time.monotonic(), 0.0))

    def _read(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` for keys (kept in order); False when none came."""
        assert self.fd is not None
        if not select.select([self.fd], [], [], timeout)[0]:
            return False
        try:
            data = os.read(self.fd, 64)
        except OSError:
            data = b""
        if not data:  # the keyboard is gone: watch on without it
            self.fd, self.paused = None, False
            return False
        self.pending += self.decoder.feed(data)
        return True

    def _act(self, key: str, redraw: Callable[[], None]) -> bool:
        """Act on one key; True when the game should go on now."""
        if key == "q":
            raise Quit
        if key == " ":
            self.paused = not self.paused
            redraw()
            return not self.paused
        if key in ("up", "down") and self.scroll is not None:
            self.scroll(-SCROLL if key == "up" else SCROLL)
            redraw()
        return key in ("right", "n") and self.paused

    @property
    def state(self) -> str:
        if self.paused:
            return "PAUSED: space resumes · → or n steps · ↑/↓ scroll · q quits"
        return KEYS


def keyboard() -> int | None:
    """Standard input's descriptor if it is a terminal (for ``Controls``), else None."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    return fd if os.isatty(fd) else None


def names_of(seats: Sequence[str], players: Sequence[str]) -> list[str]:
    """ "A greedy", … : each seat's name with its player's."""
    return [f"{s} {p}" for s, p in zip(seats, players, strict=True)]


def layer_of(show: Presentation, state: Any) -> str:
    return show.layer(state) if show.layer is not None else ""


def watcher(
    spec: GameSpec,
    delay: float,
    names: Sequence[str],
    note: str = "",
    controls: Controls | None = None,
    out: TextIO | None = None,
) -> Callable[[Any], None]:
    """What ``koth play --watch`` does with each state: draw it under the players' ``names``
    and scores (and ``note``, or the keys), then wait ``delay`` seconds (acting on keys)."""
    screen = Screen(out or sys.stdout, spec.presentation)
    keys = controls or Controls(None)
    keys.scroll = screen.scroll

    def draw(state: Any) -> None:
        scores = spec.rules.scores(state)
        status = [screen.status(names, scores, spec.rules.turn(state), "")]
        if screen.live:
            status.append(note.strip() or (keys.state if keys.fd is not None else ""))
        screen.draw(status, spec.rules.render_text(state), layer_of(spec.presentation, state))

    def seen(state: Any) -> None:
        draw(state)
        keys.wait(delay, lambda: draw(state))

    return seen


__all__ = [
    "Controls",
    "Quit",
    "Screen",
    "colour_wanted",
    "keyboard",
    "layer_of",
    "names_of",
    "paint",
    "paint_line",
    "terminal_size",
    "watcher",
]
