"""gourmet: a Multisnake bot that eats every '+' it can reach and never touches a '-'.

Each turn it searches breadth-first from its head over free tiles and '+' signs (a '-' counts as
a wall) for the nearest '+', and takes the first step of that path. With no '+' in reach it moves
to the free neighbour with the most free neighbours of its own. It never reverses into its body,
but it does not look at other heads.

Protocol: "W H N M T" once, then H lines of W characters per turn; one line back, flushed.
"""

import sys
from collections import deque

STEPS = (("^", 0, -1), (">", 1, 0), ("v", 0, 1), ("<", -1, 0))


def main():
    width, height, _, me, _ = (int(v) for v in sys.stdin.readline().split())
    head = chr(64 + me)
    size = width * height
    around = [
        [((i // width + dy) % height) * width + (i % width + dx) % width for _, dx, dy in STEPS]
        for i in range(size)
    ]
    while True:
        rows = [sys.stdin.readline().strip() for _ in range(height)]
        if not rows[-1]:
            return  # end of input
        tiles = "".join(rows)
        start = tiles.find(head)
        free = [c in ".+" for c in tiles]
        first = [-1] * size  # the first move of the shortest path to each tile
        queue = deque()
        for d, n in enumerate(around[start]):
            if free[n] and first[n] < 0:
                first[n] = d
                queue.append(n)
        goal = -1
        while queue:
            u = queue.popleft()
            if tiles[u] == "+":
                goal = u
                break
            for n in around[u]:
                if free[n] and first[n] < 0 and n != start:
                    first[n] = first[u]
                    queue.append(n)
        if goal >= 0:
            move = first[goal]
        else:
            options = [d for d, n in enumerate(around[start]) if free[n]]
            options = options or [d for d, n in enumerate(around[start]) if tiles[n] == "-"]
            move = 0
            if options:
                move = max(options, key=lambda d: sum(free[n] for n in around[around[start][d]]))
        print(STEPS[move][0], flush=True)


main()
