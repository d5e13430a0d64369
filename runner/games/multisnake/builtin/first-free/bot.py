"""The built-in Multisnake bot (koth check's opponent): it keeps going while the tile ahead is
free and otherwise turns to the first free neighbour in the order ^ > v <, a '-' only when nothing
else is free. Standard library only; exits quietly at the end of input."""

import sys

STEPS = {"^": (0, -1), ">": (1, 0), "v": (0, 1), "<": (-1, 0)}


def neighbour(rows: list[str], x: int, y: int, move: str) -> str:
    dx, dy = STEPS[move]
    row = rows[(y + dy) % len(rows)]
    return row[(x + dx) % len(row)] if row else "#"


def main() -> None:
    first = sys.stdin.readline().split()
    if len(first) != 5:
        return
    height, me = int(first[1]), int(first[3])
    head = chr(64 + me)
    heading = "^"
    while True:
        rows = [sys.stdin.readline().rstrip("\r\n") for _ in range(height)]
        if not rows[-1]:
            return
        x, y = next(((r.index(head), y) for y, r in enumerate(rows) if head in r), (0, 0))
        order = [heading] + [m for m in STEPS if m != heading]
        tiles = {m: neighbour(rows, x, y, m) for m in order}
        choice = next((m for m in order if tiles[m] in ".+"), None)
        heading = choice or next((m for m in order if tiles[m] == "-"), heading)
        print(heading, flush=True)


main()
