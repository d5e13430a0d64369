"""The built-in Domineering bot (koth check's opponent): the first legal move.

It places its domino on the first free spot in row-major order of the top-left cell; only when
no domino fits does it explode its bomb, on the first square (row-major) no domino crosses.
Started afresh for every move: reads one line of numbers (the orientation, the 169 cells row by
row, the bombs left), prints its move and exits.
"""

import sys

SIZE = 13


def dominoes(board: list[list[int]]) -> dict[tuple[int, int], tuple[int, int]]:
    """Each non-empty cell's partner. A run of 1s in a row (2s in a column) is whole dominoes
    laid end to end, so it pairs up from its start."""
    partner: dict[tuple[int, int], tuple[int, int]] = {}
    for r in range(SIZE):
        for c in range(SIZE):
            if board[r][c] == 1 and (r, c) not in partner:
                partner[(r, c)], partner[(r, c + 1)] = (r, c + 1), (r, c)
            if board[r][c] == 2 and (r, c) not in partner:
                partner[(r, c)], partner[(r + 1, c)] = (r + 1, c), (r, c)
    return partner


def main() -> None:
    numbers = [int(word) for word in sys.stdin.readline().split()]  # the one line, not till EOF
    side, bombs = numbers[0], numbers[1 + SIZE * SIZE]
    board = [numbers[1 + r * SIZE : 1 + (r + 1) * SIZE] for r in range(SIZE)]
    dr, dc = (0, 1) if side == 1 else (1, 0)
    for r in range(SIZE - dr):
        for c in range(SIZE - dc):
            if board[r][c] == 0 and board[r + dr][c + dc] == 0:
                print(f"1 {r} {c}", flush=True)
                return
    if bombs:
        partner = dominoes(board)
        for r in range(SIZE - 4):
            for c in range(SIZE - 4):
                inside = {(r + i, c + j) for i in range(5) for j in range(5)}
                if all(partner[x] in inside for x in inside if x in partner):
                    print(f"2 {r} {c}", flush=True)
                    return
    print("1 0 0", flush=True)  # no legal move: the game is already lost, any reply will do


main()
