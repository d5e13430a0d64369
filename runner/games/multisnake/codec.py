"""Multisnake's stdio wire format (multisnake/rules.md, "Protocol"): one process a game.

- Greeting, once: ``W H N M T`` and a newline (M = the seat's 1-based number; its head is the
  letter chr(64 + M)).
- Each turn, while its snake lives: the map, H lines of W characters, each ending in ``\\n``
  (live heads ``A``.., dead heads ``@``, ``#``, ``.``, ``+``, ``-``, bodies ``^ > v <``).
- The reply: one line holding one of ``^ > v <``. Spaces and tabs around the character and a
  ``\\r`` before the newline are ignored (settled by koth); anything else is not a move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from runner.games.base import InvalidMoveError
from runner.games.multisnake.rules import Direction, MultisnakeState, read_direction


class MultisnakeStdio:
    """The stdio codec: every turn's request is the state's ``view``, the same for every seat."""

    reply_lines: ClassVar[int] = 1

    def greeting(self, state: MultisnakeState, seat: int) -> bytes:
        fields = (state.width, state.height, len(state.snakes), seat + 1, state.period)
        return (" ".join(map(str, fields)) + "\n").encode("ascii")

    def request(self, state: MultisnakeState, seat: int) -> bytes:
        return state.view

    def decode(self, state: MultisnakeState, seat: int, lines: Sequence[str]) -> Direction:
        if not lines:
            raise InvalidMoveError("replied nothing (no line before the end of its output)")
        return read_direction(lines[0])

    def reply(self, move: Direction) -> bytes:
        return (move.value + "\n").encode("ascii")
