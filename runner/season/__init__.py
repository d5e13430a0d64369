"""A season: its configuration, entries, build and check, formats and schedule, the
play loop and the pool of game workers, and the results records."""
