"""The built-in Cluster bot (koth check's opponent): the first open column, the first colour in
hand. Reads the init message's counted blocks, then each turn message's blocks, and answers."""

import sys


def numbers() -> list[int]:
    """The numbers of the next line that has any (a turn message ends with an empty line)."""
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        if line.strip():
            return [int(x) for x in line.split()]


def block() -> list[list[int]]:
    (count,) = numbers()
    return [numbers() for _ in range(count)]


for _ in range(4):  # cells, columns, my colours, the opponent's colours
    block()
while True:
    numbers()  # gravity
    columns = block()
    block()  # pellets placed since my last turn
    block()  # pellets that moved
    hand = block()
    print(f"PLACE {columns[0][0]} {hand[0][0]}", flush=True)
