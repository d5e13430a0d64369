"""What one request and its reply cost between two processes, on one CPU and across two (run by
hand: ``python benchmarks/bench_wakeup.py [--rounds 20000]``).

The floor under every bot move, with no koth code in it: a C program reads a 2049-byte request
(a Snakes board and the seat) from a socket and writes a 4-byte reply; this process writes the
request and waits for the reply with ``poll``, as the host does. Timed twice: with both processes
free to run on any CPU (the scheduler wakes the bot wherever), and with both kept to one CPU (as
each job slot of a season is, runner/season/workers.py ``pin_to_one_cpu``). Prints the wall time per
round trip and this process's CPU per round trip (user and system).
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ECHO = r"""
#include <unistd.h>
int main(void) {
    char request[2049];
    for (;;) {
        ssize_t got = 0;
        while (got < (ssize_t)sizeof request) {
            ssize_t n = read(0, request + got, sizeof request - got);
            if (n <= 0) return 0;
            got += n;
        }
        int reply = 'R';
        if (write(1, &reply, sizeof reply) != sizeof reply) return 1;
    }
}
"""


def round_trips(program: Path, rounds: int, cpu: int | None) -> tuple[float, float, float]:
    """Wall, user and system seconds per round trip (``cpu``: both processes kept to it)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    ours, theirs = socket.socketpair()
    replies, reply_end = socket.socketpair()
    bot = subprocess.Popen([str(program)], stdin=theirs.fileno(), stdout=reply_end.fileno())
    theirs.close()
    reply_end.close()
    ours.setblocking(False)
    replies.setblocking(False)
    poll = select.poll()
    poll.register(replies.fileno(), select.POLLIN)
    request = b"." * 2048 + b"X"
    try:
        before, began = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        for _ in range(rounds):
            os.write(ours.fileno(), request)
            poll.poll(1000)
            os.read(replies.fileno(), 64)
        elapsed, after = time.perf_counter() - began, resource.getrusage(resource.RUSAGE_SELF)
    finally:
        bot.kill()
        bot.wait()
        ours.close()
        replies.close()
    return (
        elapsed / rounds,
        (after.ru_utime - before.ru_utime) / rounds,
        (after.ru_stime - before.ru_stime) / rounds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="bench-wakeup-") as tmp:
        program = Path(tmp) / "echo"
        source = Path(tmp) / "echo.c"
        source.write_text(ECHO)
        subprocess.run(["gcc", "-O2", str(source), "-o", str(program)], check=True)
        print(f"{len(cpus)} CPUs; load average {os.getloadavg()[0]:.2f}; {args.rounds} round trips")
        for label, cpu in (("any CPU", None), ("one CPU", cpus[0])):
            wall, user, system = round_trips(program, args.rounds, cpu)
            print(
                f"{label:8s} wall {wall * 1e6:6.1f} µs a round trip; this process's CPU "
                f"{(user + system) * 1e6:5.1f} µs (user {user * 1e6:.1f}, system "
                f"{system * 1e6:.1f})"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
