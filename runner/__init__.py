"""koth: a King-of-the-Hill programming-game host."""

__version__ = "0.1.0"
