"""The registry of games, by versioned id."""

from __future__ import annotations

from typing import Any

from runner.games.base import Game
from runner.games.cluster import Cluster
from runner.games.snakes import Snakes

GAMES: dict[str, type[Game[Any, Any]]] = {
    Snakes.id: Snakes,
    Cluster.id: Cluster,
}


class UnknownGameError(LookupError):
    pass


def find_game(game_id: str) -> Game[Any, Any]:
    """The game registered as ``game_id``; the error lists the known ids."""
    try:
        return GAMES[game_id]()
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game id {game_id!r}; known games: {known}") from None
