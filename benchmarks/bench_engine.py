"""How long the Snakes engine takes per move, over seeded random playouts (run by hand).

    python benchmarks/bench_engine.py [--games N] [--seed S]

Each player picks uniformly among L, R, U, D (or, with --runs, keeps a direction for a random
stretch of 1-8 moves, which encloses far more often). Prints the median, p90, p99 and mean time of
one ``apply`` call in microseconds, and the total per game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from runner.games.snakes import MOVES, Snakes


def playout_times(seed: int, runs: bool) -> list[int]:
    """Nanoseconds per ``apply`` call of one seeded random game."""
    game = Snakes()
    rng = random.Random(seed)
    state = game.initial_state(rng)
    streaks = [("L", 0), ("L", 0)]
    times: list[int] = []
    clock = time.perf_counter_ns
    while True:
        seats = game.to_move(state)
        if not seats:
            return times
        seat = seats[0]
        if runs:
            move, left = streaks[seat]
            if left == 0:
                move, left = rng.choice(MOVES), rng.randint(1, 8)
            streaks[seat] = (move, left - 1)
        else:
            move = rng.choice(MOVES)
        start = clock()
        state = game.apply(state, {seat: move})
        times.append(clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", action="store_true", help="random stretches, not single steps")
    args = parser.parse_args()
    times: list[int] = []
    lengths = []
    for i in range(args.games):
        game_times = playout_times(args.seed + i, args.runs)
        times.extend(game_times)
        lengths.append(len(game_times))
    times.sort()
    us = [t / 1000 for t in times]
    pct = statistics.quantiles(us, n=100)
    print(f"{args.games} games, {len(us)} moves ({statistics.mean(lengths):.0f} per game)")
    print(
        f"µs/move: median {statistics.median(us):.2f}  p90 {pct[89]:.2f}  "
        f"p99 {pct[98]:.2f}  mean {statistics.mean(us):.2f}  max {us[-1]:.0f}"
    )
    print(f"ms/game: {sum(us) / args.games / 1000:.1f}")


if __name__ == "__main__":
    main()
