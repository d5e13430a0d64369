"""Where the host's time per bot move goes (run by hand; not a test).

    python benchmarks/bench_move_cost.py [--games 10] [--profile] [--strace] [--one-cpu]
                                         [--instructions]

Plays ``--games`` Snakes games in this process (local sandbox) between two copies of a greedy bot
from benchmarks/snakes_baseline.py, and prints per bot move: the wall time, the CPU the kernel
charged the bots, the host's CPU (this process: the referee, the engine, the watchdogs), and the
rest (the wake-ups, and each game's start and end: the bots' processes forked, walled in,
loaded, then ended and reaped, by the zygote and the kernel). ``--one-cpu``: keep this process
(and so its zygote and bots) to one CPU, as each job slot of a season does. ``--profile``: the
Python functions the host spends the most time in, per move (cProfile: its own overhead inflates
the figures, the shares are what count).
``--strace``: the system calls this process makes per move (strace -c on this process only, not
the zygote or the bots), counted on a second run of the same games, and what one of each costs
from Python when it wakes nobody (timeit, best of 3).
``--instructions``: the machine instructions this process (the referee, the watchdogs, the codec,
the rules; not the zygote nor the bots) executes per move, counted by valgrind's callgrind over
two runs of ``--games`` and of twice as many games: their difference over the difference in
moves (the start, the build and the warm-up cancel out). A count does not depend on what else the
machine is doing, so it shows a change of a few per cent that timings on a busy machine hide.
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import os
import pstats
import re
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import snakes_baseline as baseline  # noqa: E402

from runner.games import find_game  # noqa: E402
from runner.play.referee import Player, play_game  # noqa: E402
from runner.sandbox.local import LocalSandbox  # noqa: E402
from runner.sandbox.zygote_client import BotLimits  # noqa: E402
from runner.season.build import build_entry  # noqa: E402
from runner.season.entries import load_entry  # noqa: E402
from runner.season.workers import pin_to_one_cpu  # noqa: E402

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)


def players(root: Path, sandbox: LocalSandbox) -> list[Player]:
    game = find_game("snakes-v2")
    found = []
    for folder in baseline.write_entries(root / "entries", 2):
        build = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, game)
        assert build.ok, build.message
        found.append(build.player())
    return found


def play(seats: list[Player], sandbox: LocalSandbox, games: int) -> tuple[int, float, float]:
    """Moves, wall seconds and the bots' CPU seconds of ``games`` games (both seatings)."""
    game = find_game("snakes-v2")
    moves, wall, bots = 0, 0.0, 0.0
    for i in range(games):
        pair = seats if i % 2 == 0 else seats[::-1]
        result = play_game(game, pair, sandbox, LIMITS, i)
        moves += len(result.moves)
        wall += result.wall_s
        bots += sum(result.cpu_s)
    return moves, wall, bots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="an even number")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--strace", action="store_true")
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the host's instructions per move with valgrind (slow: minutes)",
    )
    parser.add_argument(
        "--one-cpu",
        action="store_true",
        help="keep to one CPU, as a job slot does (runner/season/workers.py pin_to_one_cpu)",
    )
    args = parser.parse_args()
    if args.instructions:
        count_instructions(args.games, args.one_cpu)
        return
    if args.one_cpu:
        print(f"kept to CPU {pin_to_one_cpu(0)}")
    sandbox = LocalSandbox()
    with tempfile.TemporaryDirectory(prefix="bench-move-") as tmp:
        seats = players(Path(tmp), sandbox)
        play(seats, sandbox, 2)  # warm: the zygote, its pool of blanks, imports
        before = resource.getrusage(resource.RUSAGE_SELF)
        began = time.perf_counter()
        profile = cProfile.Profile() if args.profile else None
        if profile:
            profile.enable()
        moves, wall, bots = play(seats, sandbox, args.games)
        if profile:
            profile.disable()
        elapsed = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_SELF)
    sandbox.close()
    host_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    user = after.ru_utime - before.ru_utime
    system = after.ru_stime - before.ru_stime
    per = 1e6 / moves
    print(f"{args.games} games, {moves} moves; load average {os.getloadavg()[0]:.2f}")
    print(f"wall per move           {elapsed * per:7.1f} µs (games' own clocks {wall * per:.1f})")
    print(f"bots' CPU per move      {bots * per:7.1f} µs")
    print(
        f"host CPU per move       {host_cpu * per:7.1f} µs "
        f"(user {user * per:.1f}, system {system * per:.1f})"
    )
    rest = elapsed - host_cpu - bots
    print(f"the rest (wake-ups)     {rest * per:7.1f} µs ({rest / args.games * 1e3:.1f} ms a game)")
    if profile:
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(18)
    if args.strace and not args.plain:
        trace(args.games, moves, args.one_cpu)


def count_instructions(games: int, one_cpu: bool) -> None:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed")
        return
    counted: list[tuple[int, int]] = []  # (moves, instructions) of each run
    for played in (games, 2 * games):
        command = [sys.executable, __file__, "--games", str(played), "--plain"]
        command += ["--one-cpu"] if one_cpu else []
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        done = subprocess.run([*valgrind, *command], capture_output=True, text=True, check=False)
        moves = re.search(r"games, (\d+) moves", done.stdout)
        instructions = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or moves is None or instructions is None:
            raise SystemExit(f"the run under valgrind said:\n{done.stdout}\n{done.stderr}")
        counted.append((int(moves.group(1)), int(instructions.group(1))))
        print(f"{played} games: {counted[-1][0]} moves, {counted[-1][1]:,} instructions")
    (moves_1, count_1), (moves_2, count_2) = counted
    per_move = (count_2 - count_1) / (moves_2 - moves_1)
    print(f"host instructions per move (callgrind): {per_move:,.0f}")


def trace(games: int, moves: int, one_cpu: bool) -> None:
    if shutil.which("strace") is None:
        print("strace is not installed")
        return
    with tempfile.NamedTemporaryFile(suffix=".strace") as out:
        command = [sys.executable, __file__, "--games", str(games), "--plain"]
        command += ["--one-cpu"] if one_cpu else []
        subprocess.run(["strace", "-c", "-o", out.name, *command], check=True)
        lines = Path(out.name).read_text().splitlines()
    # The traced run plays 2 warm-up games first, the same pairing as games 0 and 1 (both
    # seatings, and the games alternate them), so it played games + 2 games' worth of moves;
    # its setup (imports, the build) adds a few calls more.
    moves = moves * (games + 2) // games
    print(f"\nsystem calls of this process, per move (strace -c; {games} games + 2 warm-up):")
    for line in lines:
        parts = line.split()
        if len(parts) >= 5 and parts[3].isdigit():
            calls, name = int(parts[3]), parts[-1]
            if calls >= moves // 4:
                print(f"  {name:<20} {calls / moves:6.2f} per move ({calls} calls)")
        elif "total" in line:
            print(f"  {line.strip()}")
    print("\none call from Python, waking nobody (best of 3 × 100,000):")
    for what, micros in syscall_costs().items():
        print(f"  {what:<44} {micros:5.2f} µs")


def syscall_costs() -> dict[str, float]:
    """What the host's per-move system calls cost alone: the bot's CPU clock, a poll that finds
    nothing, a request written to a pipe and read back, and the vDSO's monotonic clock."""
    sleeper = subprocess.Popen(["sleep", "60"])
    clock = ctypes.c_int()
    ctypes.CDLL(None).clock_getcpuclockid(sleeper.pid, ctypes.byref(clock))
    mine, other = socket.socketpair()
    poll = select.poll()
    poll.register(mine, select.POLLIN)
    read_end, write_end = os.pipe()
    request = b"." * 513
    cases = {
        "clock_gettime of another process's CPU clock": lambda: time.clock_gettime(clock.value),
        "poll(0), nothing waiting": lambda: poll.poll(0),
        "write 513 bytes to a pipe and read them back": lambda: (
            os.write(write_end, request),
            os.read(read_end, 4096),
        ),
        "time.monotonic() (vDSO, no system call)": time.monotonic,
    }
    try:
        return {
            what: min(timeit.repeat(call, number=100_000, repeat=3)) / 100_000 * 1e6
            for what, call in cases.items()
        }
    finally:
        sleeper.kill()
        sleeper.wait()
        for fd in (read_end, write_end):
            os.close(fd)
        mine.close()
        other.close()


if __name__ == "__main__":
    main()
