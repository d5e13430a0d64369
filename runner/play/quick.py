"""The referee's side of a game's quick loop (runner/games/snakes/quick.py; what the two say to
each other, ``Handed`` and ``Played``, is in runner/games/spec.py).

A quick loop plays the usual moves of a game of two C-function bots taking turns in C: it asks,
judges and applies each move only while nothing about it is unusual, and stops at anything else,
either before a move (nothing sent; the referee asks that move its own way) or within one: then
``Handed`` says how far it got, and the bot's ``resume_alone`` drives the move on from there as
an Exchange (runner/play/watchdog.py), which judges it as it judges every move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.games.spec import Handed
from runner.play.cabi import CFunctionBot
from runner.play.watchdog import Exchange


def ready(bots: Sequence[Any]) -> list[CFunctionBot] | None:
    """The bots, where every one is a sandboxed C-function bot whose process's clock is known,
    with nothing to send ahead or left over to read, and which has been loaded; else None."""
    found: list[CFunctionBot] = []
    for bot in bots:
        if not isinstance(bot, CFunctionBot) or bot.outbox or bot.unread or bot.mark is None:
            return None
        if bot.process.clock is None or bot.process.closed:
            return None
        found.append(bot)
    return found


def resume(bot: Any, request: bytes, handed: Handed, turn: int) -> Exchange:
    """The handed-over move of ``bot`` (one ``ready`` accepted) driven on to its end."""
    if not isinstance(bot, CFunctionBot):
        raise TypeError(f"a quick loop handed over the move of a {type(bot).__name__}")
    move = bot.resume_alone(request, handed.progress, handed.events, turn)
    # News from the zygote of a bot the host is done with (an earlier game's, reaped) that woke
    # a move whose reply then came whole is not that move's to read: dropped now, or the next
    # move's poll wakes to it and is handed over again, and the next.
    bot.process.zygote.drop_old_news()
    return move
