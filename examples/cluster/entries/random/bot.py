"""random: a Cluster bot that plays a uniformly random legal move.

The legal moves are PLACE column colour for every open column (the turn message lists them) and
every colour in the hand, and ROTATE 1 to 5. The choice is drawn from a generator seeded with a
hash of everything read so far, so the same messages always get the same replies while different
games get different moves. Nothing but the move is written to stdout.
"""

import hashlib
import random
import sys

seen = hashlib.sha256()


def numbers():
    """The numbers of the next line that has any (a turn message ends with an empty line)."""
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)  # end of input: the game is over
        seen.update(line.encode())
        if line.strip():
            return [int(v) for v in line.split()]


def block(width):
    """A count line, then that many lines of `width` numbers each."""
    (count,) = numbers()
    return [numbers()[:width] for _ in range(count)]


def main():
    block(7)  # cells and their neighbours
    block(7)  # columns and their top cells
    block(2)  # my colours
    block(2)  # the opponent's colours
    while True:
        numbers()  # gravity
        columns = [column for column, _top in block(2)]
        block(4)  # pellets placed since my last turn
        block(2)  # pellets moved by a rotation
        hand = sorted({colour for (colour,) in block(1)})
        moves = [f"PLACE {column} {colour}" for column in columns for colour in hand]
        moves += [f"ROTATE {n}" for n in range(1, 6)]
        rng = random.Random(int.from_bytes(seen.digest()[:8], "big"))
        sys.stdout.write(rng.choice(moves) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
