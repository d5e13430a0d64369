"""What a colluding pair of bots gets through in a game, by channel (run by hand:
``python benchmarks/bench_colluding.py [--sandbox local docker] [--games 5]``).

The pairs of tests/hostile/test_colluding.py (names looked up, pages read of a file the runtime
shares, as two entries or as one entry in both seats), each played ``--games`` times in each
sandbox, and one the test leaves out, the CPU's caches (``cache``: lines of the bot's own table,
shared by its processes, touched or not; a channel of the hardware, which no view can close).
Prints, per pair, the bits decoded right of those sent (mean), and the capacity of one game's
exchange, N (1 - H(p)) for the mean error rate p: what the pair can count on, per game, from one
exchange in one move each (a pair could exchange again every move, within its CPU time).
Needs root (a local bot sees the host's files otherwise; under Docker the image's file is
evicted from its layer).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for folder in (REPO, REPO / "tests", REPO / "tests" / "hostile"):
    sys.path.insert(0, str(folder))

from test_colluding import PAIRS, Pair, Through, exchange  # noqa: E402

from runner.season.workers import new_sandbox  # noqa: E402

CACHE = [Pair("cache", "self", "c", ()), Pair("cache", "self", "cprog", ())]


def play_once(sandbox: object, pair: Pair) -> Through:
    """One game of ``pair``, its entries built afresh in a folder of its own."""
    with tempfile.TemporaryDirectory() as folder:
        return exchange(sandbox, Path(folder), pair)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", nargs="+", choices=["local", "docker"], default=["local"])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    print(f"{'sandbox':8} {'pair':26} {'open':5} {'right / sent':>14} {'bits a game':>12}")
    for kind in args.sandbox:
        sandbox = new_sandbox(kind)
        try:
            for pair in [*PAIRS, *CACHE]:
                games = [play_once(sandbox, pair) for _ in range(args.games)]
                sent = games[0].sent
                right = sum(game.right for game in games) / len(games)
                mean = Through(sent, round(right))
                left = "yes" if kind in pair.open_in or pair.channel == "cache" else "no"
                print(
                    f"{kind:8} {pair.id:26} {left:5} {right:8.1f} / {sent:<3} {mean.capacity:12.1f}"
                )
        finally:
            sandbox.close()


if __name__ == "__main__":
    main()
