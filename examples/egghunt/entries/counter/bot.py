"""counter: an Easter Egg Hunt bot that collects the eggs it sees and counters everywhere else.

It steps toward the nearest egg in its window with N (the only action that collects). Every other
step is made with C, which beats an attacker landing on the same tile: it expects bullies. Seeing no
egg, it walks on in the direction kept in its memory, turning (clockwise, to the first free tile)
when a wall or a player blocks the way.
"""

import sys

LAYOUT = ("123", "894", "765")  # the keypad; 9 (stay) in the middle
STEPS = {int(c): (x - 1, y - 1) for y, row in enumerate(LAYOUT) for x, c in enumerate(row)}
CLOCKWISE = (1, 2, 3, 4, 5, 6, 7, 8)


def main():
    lines = sys.stdin.read().split("\n") + [""] * 6
    view = [lines[i][:5].ljust(5, "X") for i in range(5)]
    memory = lines[5].strip()
    heading = int(memory) if memory in set("12345678") else 6

    def tile(d):
        dx, dy = STEPS[d]
        return view[2 + dy][2 + dx]

    eggs = [
        (max(abs(x - 2), abs(y - 2)), abs(x - 2) + abs(y - 2), x - 2, y - 2)
        for y in range(5)
        for x in range(5)
        if view[y][x] == "o"
    ]
    choice = 9
    if eggs:
        _, _, gx, gy = min(eggs)
        here = max(abs(gx), abs(gy))

        def left(d):
            return max(abs(gx - STEPS[d][0]), abs(gy - STEPS[d][1]))

        options = [d for d in CLOCKWISE if tile(d) in " o" and left(d) < here]
        if options:
            choice = min(
                options, key=lambda d: (left(d), abs(gx - STEPS[d][0]) + abs(gy - STEPS[d][1]))
            )
    if choice == 9:
        start = CLOCKWISE.index(heading)
        for k in range(8):
            d = CLOCKWISE[(start + k) % 8]
            if tile(d) in " o":
                choice = heading = d
                break
    action = "N" if tile(choice) == "o" else "C"
    sys.stdout.write(f"{choice}\n{action}\n{heading}\n")
    sys.stdout.flush()


main()
