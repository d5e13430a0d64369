"""What ``koth replay`` costs (run by hand: ``python benchmarks/bench_replay.py``).

- the transcript: rebuilding a recorded game's positions and each seat's bytes (rules + codec),
  per step, for the example seasons' records (Snakes, Cluster);
- a bot fed one seat's inputs in the local sandbox, per move asked, against the referee's own
  cost per move in the same games (played again here);
- the command, end to end: ``koth replay KEY --bot ENTRY`` for a Snakes game, its build cached.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from runner.games import find_game
from runner.play.referee import play_game
from runner.play.seats import Entrant
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry
from runner.tools.replay.feed import Sandboxed, feed
from runner.tools.replay.transcript import seat_asks, transcript

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "records"
LIMITS = BotLimits(move_cpu_s=1.0, game_cpu_s=60.0, move_wall_s=5.0, memory_bytes=256 << 20)
SEASONS = {
    "snakes-v2": ("snakes-default", REPO / "entries"),
    "cluster-v2": ("cluster-example", REPO / "examples" / "cluster" / "entries"),
}


def records(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


def transcript_cost(game_id: str, found: list[dict[str, Any]]) -> float:
    """µs per step to rebuild every position and every ask of the records."""
    spec = find_game(game_id)
    started, steps = time.perf_counter(), 0
    for record in found:
        for moment in transcript(spec, record):
            steps += 1
            for ask in moment.asks:
                _ = ask.sent
    return (time.perf_counter() - started) / steps * 1e6


def feed_cost(
    game_id: str, found: list[dict[str, Any]], entries: Path, box: LocalSandbox
) -> tuple[float, float]:
    """µs per move asked when a bot is fed a seat's inputs, and µs per move of the referee."""
    spec = find_game(game_id)
    with tempfile.TemporaryDirectory() as tmp:
        builds = {}
        for record in found:
            for held in record["seats"]:
                if held["entry"] not in builds:
                    made = build_entry(
                        load_entry(entries / held["entry"]), Path(tmp), box, LIMITS, 60, spec
                    )
                    builds[held["entry"]] = made
        fed, asked = 0.0, 0
        for record in found:
            for seat, held in enumerate(record["seats"]):
                made = builds[held["entry"]]
                initial = next(transcript(spec, record)).before
                who = Entrant(made.entry, made.jail_path, tuple(made.program or ()) or None)
                started = time.perf_counter()
                runner = Sandboxed(spec, who, box, LIMITS, seat, initial)
                verdict = feed(spec, seat_asks(transcript(spec, record), seat), runner)
                runner.close()
                fed += time.perf_counter() - started
                asked += verdict.matched
                assert verdict.reproduced, verdict.difference
        played, moves = 0.0, 0
        for record in found:
            players = [builds[h["entry"]].player() for h in record["seats"]]
            result = play_game(spec, players, box, LIMITS, record["seed"])
            played += result.wall_s
            moves += len(result.moves)
    return fed / asked * 1e6, played / moves * 1e6


def command_cost(runs: int) -> float:
    """Median wall seconds of `koth replay KEY --bot ENTRY` on a Snakes game (build cached)."""
    record = records("snakes-default")[0]
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "tournament.yaml"
        config.write_text(
            f"game: snakes-v2\nentries: {REPO / 'entries'}\noutput: {{build: {tmp}/build}}\n"
        )
        results = Path(tmp) / "games.jsonl"
        results.write_text(json.dumps(record) + "\n")
        args = [
            sys.executable,
            "-m",
            "runner.cli.main",
            "replay",
            record["key"],
            "--config",
            str(config),
            "--results",
            str(results),
            "--seat",
            "1",
            "--bot",
            record["seats"][0]["entry"],
        ]
        subprocess.run(args, check=True, capture_output=True)  # builds it
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(args, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    box = LocalSandbox()
    try:
        for game_id, (name, entries) in SEASONS.items():
            found = records(name)
            print(f"{game_id}: transcript {transcript_cost(game_id, found):.0f} µs a step")
            fed, played = feed_cost(game_id, found, entries, box)
            print(f"{game_id}: a bot fed its seat's inputs {fed:.0f} µs a move", end="; ")
            print(f"the referee {played:.0f} µs a move")
    finally:
        box.close()
    print(f"koth replay KEY --bot ENTRY (Snakes, built): {command_cost(5):.2f} s")


if __name__ == "__main__":
    main()
