"""Host costs of a sandbox (run by hand: ``python benchmarks/bench_host.py [--sandbox docker]``).

- host overhead per bot move: wall time of whole games between two bots that answer at once
  (a rand() walk), minus the CPU the kernel charged to the bots, divided by the moves;
- game start: spawning both bots and waiting until both have loaded and said hello.
Targets on the 2-core dev machine: overhead ≤ 50 µs/move median, game start ≤ 5 ms median.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from runner.games import find_game
from runner.games.snakes import SnakesCall
from runner.play.cabi import CFunctionBot
from runner.play.referee import Player, play_game
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry
from runner.season.workers import new_sandbox, pin_to_one_cpu

WALKER = r"""
#include <stdlib.h>
int bot(int board[16][32], char player) { (void)board; (void)player; return "LRUD"[rand() & 3]; }
char *bot_name = "Walker";
"""
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--starts", type=int, default=200)
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument(
        "--one-cpu",
        action="store_true",
        help="keep to one CPU, as a job slot does (runner/season/workers.py pin_to_one_cpu)",
    )
    args = parser.parse_args()
    if args.one_cpu:
        print(f"kept to CPU {pin_to_one_cpu(0)}")
    games, starts = args.games, args.starts
    game = find_game("snakes-v2")
    sandbox = new_sandbox(args.sandbox)
    print(f"sandbox: {args.sandbox}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "entries" / "walker"
        folder.mkdir(parents=True)
        (folder / "bot.c").write_text(WALKER)
        (folder / "entry.yaml").write_text(
            "name: walker\nauthor: bench\ndescription: random walk\nlanguage: c\n"
        )
        build = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, game)
        assert build.ok, build.message
        player = Player("walker", build.content_hash, build.jail_path)

        wall_move, host_move = [], []
        for seed in range(games):
            result = play_game(game, [player, player], sandbox, LIMITS, seed)
            moves = max(1, len(result.moves))
            wall_move.append(result.wall_s / moves * 1e6)
            host_move.append((result.wall_s - sum(result.cpu_s)) / moves * 1e6)

        def start_game() -> float:
            began = time.perf_counter()
            abi = SnakesCall.abi.to_json()
            bots = [
                CFunctionBot(sandbox.spawn(build.jail_path, LIMITS, abi=abi), LIMITS, "w")
                for _ in "XO"
            ]
            for bot in bots:
                bot.start()
            elapsed = (time.perf_counter() - began) * 1000
            for bot in bots:
                bot.close()
            return elapsed

        # In a season a game is played between two starts, and the zygote refills its pool of
        # pre-forked children meanwhile; 20 ms of idle time stands in for that game.
        warm = []
        for _ in range(starts):
            time.sleep(0.02)
            warm.append(start_game())
        cold = [start_game() for _ in range(starts)]  # back to back: every start forks
    sandbox.close()
    report("bot move, all of it (referee + IPC + worker shim + engine)", wall_move, "µs")
    report("bot move, host side only (wall - CPU the kernel charged the bots)", host_move, "µs")
    report("game start, both bots loaded and ready (pool refilled)", warm, "ms")
    report("game start, back to back (no time to refill the pool)", cold, "ms")


def report(what: str, values: list[float], unit: str) -> None:
    p90 = statistics.quantiles(values, n=10)[-1]
    median = statistics.median(values)
    print(f"{what}: median {median:.2f} {unit} (p90 {p90:.2f} {unit}, n={len(values)})")


if __name__ == "__main__":
    main()
