"""wanderer: the built-in Easter Egg Hunt bot that fills a table up to seven players.

It steps toward the nearest egg it sees (Nothing, so it collects it); seeing none, it keeps walking
the way it went last turn, turning when a wall or a player is in the way. Its memory line holds its
heading and a turn counter ("4 17"), from which a small generator picks new headings: the same
input always gives the same reply. Only ``sys`` is imported, so a fresh process starts quickly.
"""

import sys

# The keypad 1 2 3 / 8 9 4 / 7 6 5: digit -> (dx, dy), y growing downwards; 9 stays.
LAYOUT = ("123", "894", "765")
STEPS = {
    int(c): (x - 1, y - 1) for y, row in enumerate(LAYOUT) for x, c in enumerate(row) if c != "9"
}


def main() -> None:
    lines = sys.stdin.read().split("\n") + [""] * 6
    view = [lines[i][:5].ljust(5, "X") for i in range(5)]
    memory = lines[5].split()
    heading = int(memory[0]) if memory and memory[0] in set("12345678") else 4
    count = int(memory[1]) if len(memory) > 1 and memory[1].isdigit() else 0

    def free(d: int) -> bool:
        dx, dy = STEPS[d]
        return view[2 + dy][2 + dx] in " o"

    eggs = [
        (max(abs(x - 2), abs(y - 2)), x - 2, y - 2)
        for y in range(5)
        for x in range(5)
        if view[y][x] == "o"
    ]
    choice = 9
    if eggs:
        _, ex, ey = min(eggs)
        want = ((ex > 0) - (ex < 0), (ey > 0) - (ey < 0))
        towards = [d for d in STEPS if STEPS[d] == want and free(d)]
        near = [
            d
            for d in STEPS
            if free(d) and abs(STEPS[d][0] - want[0]) <= 1 and abs(STEPS[d][1] - want[1]) <= 1
        ]
        choice = (towards or near or [9])[0]
    if choice == 9:
        if free(heading):
            choice = heading
        else:
            options = [d for d in STEPS if free(d)]
            if options:
                state = (count * 1103515245 + 12345) % 2147483648
                choice = options[(state >> 16) % len(options)]
    if choice != 9:
        heading = choice
    sys.stdout.write(f"{choice}\nN\n{heading} {count + 1}\n")
    sys.stdout.flush()


main()
