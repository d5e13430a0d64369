"""smasher: an Easter Egg Hunt spoiler that always attacks.

It walks to the nearest egg it sees and smashes it (A on an egg destroys it), and when it sees no
egg it chases the nearest player, whom an attack beats when that player does nothing. It never
collects an egg, so it always scores 0: it exists to show what eggs the others lose to it. Seeing
nothing, it walks on in its last direction (kept in its memory), turning at walls.
"""

import sys

LAYOUT = ("123", "894", "765")  # the keypad; 9 (stay) in the middle
STEPS = {int(c): (x - 1, y - 1) for y, row in enumerate(LAYOUT) for x, c in enumerate(row)}


def main():
    lines = sys.stdin.read().split("\n") + [""] * 6
    view = [lines[i][:5].ljust(5, "X") for i in range(5)]
    memory = lines[5].strip()
    heading = int(memory) if memory in set("12345678") else 4

    def tile(d):
        dx, dy = STEPS[d]
        return view[2 + dy][2 + dx]

    def nearest(kind):
        spots = [
            (max(abs(x - 2), abs(y - 2)), x - 2, y - 2)
            for y in range(5)
            for x in range(5)
            if view[y][x] == kind and (x, y) != (2, 2)
        ]
        return min(spots) if spots else None

    choice = None
    goal = nearest("o") or nearest("*")
    if goal:
        _, gx, gy = goal
        options = [d for d in range(1, 9) if tile(d) in " o"]
        options.sort(
            key=lambda d: (
                max(abs(gx - STEPS[d][0]), abs(gy - STEPS[d][1])),
                abs(gx - STEPS[d][0]) + abs(gy - STEPS[d][1]),
            )
        )
        if options:
            choice = options[0]
    if choice is None:
        if tile(heading) in " o":
            choice = heading
        else:
            free = [d for d in range(1, 9) if tile(d) in " o"]
            choice = free[(heading * 3) % len(free)] if free else 9
    sys.stdout.write(f"{choice}\nA\n{choice if choice != 9 else heading}\n")
    sys.stdout.flush()


main()
