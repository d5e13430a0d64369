"""The static results site: pages, replays as text edits, and the data published beside."""
