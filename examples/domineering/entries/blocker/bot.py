"""blocker: a Domineering bot that takes away the opponent's room.

Among its legal dominoes it picks the one after which the opponent has the fewest places left,
then (to break ties) the one that leaves itself the most, then the first in row-major order. It
keeps its bomb until no domino fits, then explodes it on the square that leaves it the most
places minus the opponent's. Started afresh for every move: reads one line of numbers (the
orientation, the 169 cells row by row, the bombs left), prints its move and exits.
"""

import sys

SIZE = 13
FULL = (1 << SIZE) - 1


def count(free, side):
    """Places for ``side``'s dominoes (1: horizontal, 2: vertical) on rows of free-cell bits."""
    if side == 1:
        return sum(bin(f & (f >> 1)).count("1") for f in free)
    return sum(bin(free[r] & free[r + 1]).count("1") for r in range(SIZE - 1))


def partners(board):
    """Each covered cell's partner: runs of 1s in a row (2s in a column) pair up from their start."""
    partner = {}
    for r in range(SIZE):
        for c in range(SIZE):
            if board[r][c] and (r, c) not in partner:
                other = (r, c + 1) if board[r][c] == 1 else (r + 1, c)
                partner[(r, c)], partner[other] = other, (r, c)
    return partner


def main():
    numbers = [int(word) for word in sys.stdin.readline().split()]  # the one line, not till EOF
    me, bombs = numbers[0], numbers[1 + SIZE * SIZE]
    them = 3 - me
    board = [numbers[1 + r * SIZE : 1 + (r + 1) * SIZE] for r in range(SIZE)]
    free = [sum(1 << c for c in range(SIZE) if board[r][c] == 0) for r in range(SIZE)]
    dr, dc = (0, 1) if me == 1 else (1, 0)
    best, best_key = None, None
    for r in range(SIZE - dr):
        for c in range(SIZE - dc):
            if board[r][c] or board[r + dr][c + dc]:
                continue
            after = list(free)
            after[r] &= ~(1 << c)
            after[r + dr] &= ~(1 << (c + dc))
            key = (count(after, them), -count(after, me))
            if best_key is None or key < best_key:
                best, best_key = f"1 {r} {c}", key
    if best is None and bombs:
        partner = partners(board)
        for r in range(SIZE - 4):
            for c in range(SIZE - 4):
                inside = {(r + i, c + j) for i in range(5) for j in range(5)}
                if any(partner[x] not in inside for x in inside if x in partner):
                    continue
                cleared = (FULL >> (SIZE - 5)) << c
                after = [f | cleared if r <= i < r + 5 else f for i, f in enumerate(free)]
                key = (count(after, them) - count(after, me), 0)
                if best_key is None or key < best_key:
                    best, best_key = f"2 {r} {c}", key
    print(best or "1 0 0", flush=True)


main()
