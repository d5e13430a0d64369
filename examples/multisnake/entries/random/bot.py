"""random: a Multisnake bot that moves in a uniformly random direction, deadly or not.

The weakest baseline. The choice comes from a generator seeded with a hash of everything read so
far, so the same game always gets the same replies while different games get different moves.

Protocol: "W H N M T" once, then H lines of W characters per turn; one line back, flushed.
"""

import hashlib
import random
import sys


def main():
    first = sys.stdin.readline()
    height = int(first.split()[1])
    seen = hashlib.sha256(first.encode())
    while True:
        rows = [sys.stdin.readline() for _ in range(height)]
        if not rows[-1]:
            return  # end of input: the game is over (or our snake is dead)
        seen.update("".join(rows).encode())
        rng = random.Random(seen.digest())
        print(rng.choice("^>v<"), flush=True)


main()
