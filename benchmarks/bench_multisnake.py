"""Multisnake: an eight-player game on the 150 x 150 map, the host's cost (run by hand; not a test).

    python benchmarks/bench_multisnake.py [--games 4] [--sandbox local docker]

The example entries (examples/multisnake/: six, in Python, C and C++) and the built-in bot in the
two seats they leave, on the example season's 150 x 150 map (``big``, growth every turn), the
seats rotated one place a game. Each game is played by the referee in this process, as a season's
worker plays it, and measured:

- host time per turn: the CPU time of this process (the referee: the engine, writing the map to
  every live bot, reading and checking replies, the watchdogs) over the game, per turn;
- the host's share of the wall time: that CPU time over the game's wall time (the rest is the
  bots thinking, and waiting for them);
- per turn also: the wall time, the bots' CPU (the kernel's clock of their processes), and the
  engine alone (the same moves replayed by the pure rules, no bots);
- the game's page on the results site: its size, and gzip-compressed as a web server sends it.

Build and check run first and are not timed.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's runner, whatever is installed

from runner.games.multisnake import SPEC  # noqa: E402
from runner.play.playback import playback  # noqa: E402
from runner.play.referee import GameResult, Player, play_game  # noqa: E402
from runner.season import check, results, workers  # noqa: E402
from runner.season.config import Config, load_config  # noqa: E402
from runner.site.render import render_site  # noqa: E402

EXAMPLE = REPO / "examples" / "multisnake" / "tournament.yaml"
SETUP = "big"


def lineup(config: Config) -> tuple[list[Player], Any]:
    """The example entries and two built-in fillers, built; and the sandbox they run in."""
    sandbox = workers.make_sandbox(config)
    with workers.open_pool(config, sandbox, 1) as pool:
        line = check.lineup(config, sandbox, pool, say=lambda _: None)
    players = [line.players[name] for name in sorted(line.players)]
    builtin = check.builtin_player(config, sandbox)
    fillers = [replace(builtin, entry=f"filler-{k}") for k in (1, 2)]
    return players + fillers, sandbox


def engine_per_turn(record: dict[str, Any], setup: dict[str, Any]) -> float:
    started = time.perf_counter()
    turns = sum(1 for _ in playback(SPEC, record, setup)) - 1
    return (time.perf_counter() - started) / max(1, turns)


def page_size(record: dict[str, Any], config: Config, scratch: Path) -> tuple[int, int]:
    spec = next(s for s in config.free_for_all.setups if s.name == SETUP)
    out = Path(tempfile.mkdtemp(dir=scratch, prefix="site-"))
    render_site(
        [record], None, {}, out, lambda _: None, setups={(spec.name, spec.hash): spec.as_dict()}
    )
    page = next((out / "games").glob("*.html")).read_bytes()
    return len(page), len(gzip.compress(page))


def one_game(
    players: list[Player], sandbox: Any, config: Config, seed: int
) -> tuple[GameResult, float, float]:
    setup = next(s for s in config.free_for_all.setups if s.name == SETUP).as_dict()
    limits = workers.bot_limits(config)
    cpu, wall = time.process_time(), time.perf_counter()
    result = play_game(SPEC, players, sandbox, limits, seed, setup=setup)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def measure(kind: str, games: int, scratch: Path) -> None:
    config = load_config(EXAMPLE, {"sandbox": kind})
    config = replace(config, output=replace(config.output, build=scratch / f"build-{kind}"))
    spec = next(s for s in config.free_for_all.setups if s.name == SETUP)
    players, sandbox = lineup(config)
    rows = []
    try:
        for game in range(games):
            seats = players[game:] + players[:game]
            seed = random.Random(game).getrandbits(62)
            result, host_cpu, wall = one_game(seats, sandbox, config, seed)
            turns = len(result.moves)
            played = result.to_dict()
            hashes = [(p.entry, p.content_hash) for p in seats]
            setup = {"name": spec.name, "hash": spec.hash}
            record = results.make_record(
                played,
                key=results.record_key(SPEC.id, hashes, seed, setup),
                season_seed=config.seed,
                round_=1,
                when=results.utc_now(),
                setup=setup,
            )
            size, zipped = page_size(record, config, scratch)
            row = {
                "turns": turns,
                "wall": wall / turns,
                "host": host_cpu / turns,
                "share": host_cpu / wall,
                "bots": sum(result.cpu_s) / turns,
                "engine": engine_per_turn(record, spec.as_dict()),
                "page": size,
                "gzip": zipped,
            }
            rows.append(row)
            print(
                f"[{kind}] game {game + 1}: {turns} turns, per turn: wall "
                f"{row['wall'] * 1000:.2f} ms, host {row['host'] * 1000:.2f} ms "
                f"(engine alone {row['engine'] * 1000:.2f} ms), bots' CPU "
                f"{row['bots'] * 1000:.2f} ms; host share {100 * row['share']:.0f}%; page "
                f"{size / 1024:.0f} KiB ({zipped / 1024:.0f} KiB gzip)",
                flush=True,
            )
    finally:
        sandbox.close()
    total_turns = sum(r["turns"] for r in rows)

    def weighted(key: str) -> float:
        return sum(r[key] * r["turns"] for r in rows) / total_turns

    print(
        f"[{kind}] {games} games, {total_turns} turns: per turn wall {weighted('wall') * 1000:.2f}"
        f" ms, host {weighted('host') * 1000:.2f} ms (engine {weighted('engine') * 1000:.2f} ms),"
        f" bots' CPU {weighted('bots') * 1000:.2f} ms; host share (median of games) "
        f"{100 * statistics.median(r['share'] for r in rows):.0f}%; pages "
        f"{statistics.median(r['page'] for r in rows) / 1024:.0f} KiB median, "
        f"{max(r['page'] for r in rows) / 1024:.0f} KiB largest"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games, seats rotated each time")
    parser.add_argument("--sandbox", nargs="+", default=["local"], choices=["local", "docker"])
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-multisnake-") as tmp:
        for kind in args.sandbox:
            measure(kind, args.games, Path(tmp))


if __name__ == "__main__":
    main()
