"""Where a game's golden texts are: in its own folder, runner/games/<game>/golden/ (a game is one
folder), each named after its game (``snakes_initial.txt``)."""

from __future__ import annotations

from pathlib import Path

GAMES = Path(__file__).resolve().parents[1] / "runner" / "games"


def golden(name: str) -> Path:
    """The golden text ``name`` of the game its name starts with."""
    return GAMES / name.split("_")[0] / "golden" / name
