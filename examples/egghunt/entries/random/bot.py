"""random: an Easter Egg Hunt bot that takes a random step and a random action every turn.

Its memory line carries its random generator's state (one number), so a run replays exactly:
the first turn seeds the generator from its window. It never looks where it goes, so it walks into
walls, smashes eggs with A and bounces off them with C. The weakest baseline.
"""

import sys


def main():
    lines = sys.stdin.read().split("\n") + [""] * 6
    memory = lines[5].strip()
    if memory.isdigit():
        state = int(memory)
    else:
        state = sum(ord(c) * (i + 1) for i, c in enumerate("".join(lines[:5])))
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    direction = 1 + (state >> 33) % 9
    action = "ACN"[(state >> 40) % 3]
    sys.stdout.write(f"{direction}\n{action}\n{state}\n")
    sys.stdout.flush()


main()
