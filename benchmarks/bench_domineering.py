"""Domineering: what a fresh process per move costs (run by hand:
``python benchmarks/bench_domineering.py [--sandbox docker] [--games N] [--languages]``).

One whole 13×13 game between two C bots (the example ``greedy``, about a millisecond of thinking
a move) and one between two Python bots (the example ``random``), each played ``--games`` times:
moves per second, wall time per move, the CPU the kernel charged the bots per move (their own
work, the program's start included: exec, the dynamic loader or Python's start-up), and the
host's share, (wall − bots' CPU) / wall: the referee, the codec, the zygote's fork and the pipes.
Medians over the games. With ``--languages``, also a game between two copies of each language's
starter (runner/games/domineering/starters/: the first legal move, next to no thinking), whose
CPU a move is its runtime's start.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

from runner.common import languages
from runner.games.domineering import SPEC
from runner.play.referee import play_game
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry
from runner.season.workers import new_sandbox

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "domineering" / "entries"
LIMITS = BotLimits(move_cpu_s=1.0, game_cpu_s=60.0, move_wall_s=1.0, memory_bytes=256 << 20)
PAIRS = {
    "C (greedy v greedy)": EXAMPLES / "greedy",
    "Python (random v random)": EXAMPLES / "random",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument("--languages", action="store_true", help="each language's start cost")
    args = parser.parse_args()
    sandbox = new_sandbox(args.sandbox)
    print(f"sandbox: {args.sandbox}; {args.games} games each; medians")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pairs = dict(PAIRS)
            for language, starter in SPEC.starters().items() if args.languages else ():
                folder = Path(tmp) / "entries" / language
                folder.mkdir(parents=True)
                shutil.copyfile(starter, folder / starter.name)
                manifest = f"name: {language}\nauthor: b\nlanguage: {language}\ndescription: s\n"
                (folder / "entry.yaml").write_text(manifest)
                pairs[f"{language} (first legal move)"] = folder
            for label, entry in pairs.items():
                build = build_entry(load_entry(entry), Path(tmp), sandbox, LIMITS, 120, SPEC)
                assert build.ok, build.message
                player = build.player()
                rows = []
                for seed in range(args.games):
                    row = languages.find(build.language)
                    limits = replace(
                        LIMITS,
                        threads=row.threads,
                        address_space=row.memory == "address-space",
                        move_wall_s=LIMITS.move_wall_s * 5,  # a guard only: CPU is measured
                    )
                    result = play_game(SPEC, [player, player], sandbox, limits, seed)
                    assert result.outcome.faulty is None, result.outcome.detail
                    moves = len(result.moves)
                    cpu = sum(result.cpu_s)
                    rows.append(
                        (
                            moves / result.wall_s,
                            result.wall_s / moves * 1e3,
                            cpu / moves * 1e3,
                            (result.wall_s - cpu) / moves * 1e3,
                            (result.wall_s - cpu) / result.wall_s * 100,
                            moves,
                        )
                    )
                rate, wall, bots, host, share, moves = (
                    statistics.median(c) for c in zip(*rows, strict=True)
                )
                print(
                    f"{label}: {moves:.0f} moves, {rate:.0f} moves/s, {wall:.1f} ms a move "
                    f"(bots' CPU {bots:.1f} ms, host {host:.1f} ms: host {share:.0f}%)"
                )
    finally:
        sandbox.close()


if __name__ == "__main__":
    main()
