"""wallfollower: an Easter Egg Hunt bot that explores by keeping a wall on its left.

It collects the nearest egg in sight (N). Otherwise, when a wall touches its left side it turns
left as far as it can while keeping to that wall, so it runs along walls and round their ends,
sweeping the board's edges and corridors where eggs hide; in the open it walks straight on. Its
memory is its heading (a keypad digit).
"""

import sys

LAYOUT = ("123", "894", "765")  # the keypad; 9 (stay) in the middle
STEPS = {int(c): (x - 1, y - 1) for y, row in enumerate(LAYOUT) for x, c in enumerate(row)}
RING = (2, 3, 4, 5, 6, 7, 8, 1)  # clockwise from up


def main():
    lines = sys.stdin.read().split("\n") + [""] * 6
    view = [lines[i][:5].ljust(5, "X") for i in range(5)]
    memory = lines[5].strip()
    heading = int(memory) if memory in set("12345678") else 2

    def tile(d):
        dx, dy = STEPS[d]
        return view[2 + dy][2 + dx]

    def turn(k):  # the direction k eighths clockwise from the heading
        return RING[(RING.index(heading) + k) % 8]

    eggs = [
        (max(abs(x - 2), abs(y - 2)), abs(x - 2) + abs(y - 2), x - 2, y - 2)
        for y in range(5)
        for x in range(5)
        if view[y][x] == "o"
    ]
    choice = 9
    if eggs:
        _, _, gx, gy = min(eggs)

        def rest(d):
            rx, ry = gx - STEPS[d][0], gy - STEPS[d][1]
            return max(abs(rx), abs(ry)), abs(rx) + abs(ry)

        options = [d for d in RING if tile(d) in " o" and rest(d)[0] < max(abs(gx), abs(gy))]
        if options:
            choice = min(options, key=rest)
    if choice == 9:
        hugging = any(tile(turn(k)) in "#X" for k in (-3, -2, -1))
        order = (-2, -1, 0, 1, 2, 3, 4, -3) if hugging else (0, -1, 1, -2, 2, 3, -3, 4)
        for k in order:
            if tile(turn(k)) in " o":
                choice = turn(k)
                break
    if choice != 9:
        heading = choice
    sys.stdout.write(f"{choice}\nN\n{heading}\n")
    sys.stdout.flush()


main()
