"""The registry of games, by versioned id, and the ids of rule sets that were replaced.

Each game is a package, runner/games/<name>/, exporting one ``SPEC`` (runner/games/spec.py):
adding a game is its folder and one line here.
"""

from __future__ import annotations

from runner.games import cluster, domineering, egghunt, multisnake, snakes
from runner.games.spec import GameSpec

GAMES: dict[str, GameSpec] = {
    spec.id: spec
    for spec in (snakes.SPEC, cluster.SPEC, domineering.SPEC, multisnake.SPEC, egghunt.SPEC)
}

# Rule sets replaced by a new version because their records would now mean something else. They
# are not kept as engines: naming one says what replaced it and why.
RETIRED: dict[str, tuple[str, str]] = {
    "snakes-v1": (
        "snakes-v2",
        "snakes-v1 counted a suffocated head's cell for the victim, while the rules give the "
        "whole enclosed group, that cell included, to the encloser (the cell counts of every game "
        "ended by suffocation differ by one)",
    ),
    "cluster-v1": (
        "cluster-v2",
        "cluster-v1 broke ties between equal lines by the colour with more pellets instead of the "
        "colour of the first line the original referee's scan finds, listed hands in draw order, "
        "ended turn messages without the referee's empty line and refused replies the referee "
        "accepts (the results of some games and the messages bots read differ)",
    ),
    "multisnake-v1": (
        "multisnake-v2",
        "multisnake-v1 ended a turn in which faults left at most one snake alive without playing "
        "the other snakes' moves of that turn, so a snake that would have died in it too was "
        "ranked above the faulting ones (the rules tie every snake that dies in one turn), and "
        "its records left those moves out (the placements of such games differ)",
    ),
    "domineering-v1": (
        "domineering-v2",
        "domineering-v1 did not speak as the event's arena (Domineering.jar), which every Code "
        "Warriors bot was written against: it sent the board as 13 rows of 13 digits where the "
        "arena sends one line of 171 numbers each followed by a space, read the move from the "
        "first line only where the arena reads three integers from all the bot wrote (a move "
        "on three lines is valid), and ended the move at that line where the arena waits for "
        "the bot's process to exit (the messages bots read and the moves that count differ)",
    ),
}


class UnknownGameError(LookupError):
    pass


class RetiredGameError(UnknownGameError):
    """A game id whose rules were replaced by a newer version."""


def retired_message(game_id: str) -> str | None:
    """Why ``game_id`` is no longer played and what replaced it, or None if it is not retired."""
    if game_id not in RETIRED:
        return None
    new, why = RETIRED[game_id]
    return (
        f"the game id {game_id!r} was replaced by {new!r}: {why}. Old records of {game_id!r} "
        f"cannot be replayed by this version of koth; play {new!r} instead "
        f"(`game: {new}` in tournament.yaml)."
    )


def find_game(game_id: str) -> GameSpec:
    """The game registered as ``game_id``; the error lists the known ids, or for a retired id
    says what replaced it and why."""
    try:
        return GAMES[game_id]
    except KeyError:
        retired = retired_message(game_id)
        if retired is not None:
            raise RetiredGameError(retired) from None
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game id {game_id!r}; known games: {known}") from None
