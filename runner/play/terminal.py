"""The terminal of ``koth play you …``: keys as they are pressed (runner/play/human.py reads them).

- ``cbreak(fd)``: for the block, the terminal hands over each key at once and does not echo it
  (Ctrl-C still interrupts), and the cursor is hidden; both are restored however the block ends.
- ``KeyDecoder``: a terminal's bytes → key names: ``up``, ``down``, ``right``, ``left`` for the
  arrow keys (``ESC [ A`` and ``ESC O A`` forms, with or without modifiers such as
  ``ESC [ 1 ; 2 A``), the character itself for any other printable key (letters in lower case,
  so Caps Lock changes nothing). Other control sequences and bytes are dropped. A sequence cut
  between two reads is kept until its end arrives.
"""

from __future__ import annotations

import os
import sys
import termios
import tty
from collections.abc import Iterator
from contextlib import contextmanager

ESC = 0x1B
ARROWS = {ord("A"): "up", ord("B"): "down", ord("C"): "right", ord("D"): "left"}
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"


class KeyDecoder:
    """Key names from a terminal's bytes, fed as they are read."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, data: bytes) -> list[str]:
        """The keys ``data`` completes (with what an earlier call left unfinished)."""
        data, self.pending = self.pending + data, b""
        keys: list[str] = []
        at = 0
        while at < len(data):
            byte = data[at]
            if byte != ESC:
                char = chr(byte)
                if byte < 0x80 and char.isprintable():
                    keys.append(char.lower())
                at += 1
                continue
            end = _sequence_end(data, at)
            if end is None:  # cut short: wait for the rest
                self.pending = data[at:]
                break
            if end - at >= 3 and data[end - 1] in ARROWS and data[at + 1] in b"[O":
                keys.append(ARROWS[data[end - 1]])
            at = end
        return keys


def _sequence_end(data: bytes, at: int) -> int | None:
    """Where the escape sequence starting at ``data[at]`` ends (exclusive), None if it is cut
    short: ``ESC [`` params final (CSI), ``ESC O`` final (SS3), or ESC alone."""
    if at + 1 >= len(data):
        return None
    kind = data[at + 1]
    if kind == ord("O"):
        return at + 3 if at + 2 < len(data) else None
    if kind != ord("["):
        return at + 1  # the Escape key alone: the next byte is a key of its own
    for end in range(at + 2, len(data)):
        if 0x40 <= data[end] <= 0x7E:
            return end + 1
    return None


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """The terminal on ``fd`` in cbreak mode, the cursor hidden, for the block."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        sys.stdout.write(HIDE_CURSOR)
        sys.stdout.flush()
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write(SHOW_CURSOR)
        sys.stdout.flush()


def is_terminal(fd: int) -> bool:
    return os.isatty(fd)
