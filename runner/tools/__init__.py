"""Tools for bot authors: `koth replay` and watching a game in a terminal."""
