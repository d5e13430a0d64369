"""The Docker engine's own work for a season's containers, with nothing of koth's in them.

    python benchmarks/engine_load.py COUNT

Run by compare_baseline.py ``--engine-floor`` beside a local season: the floor under a Docker
season's time on this machine is the local season's plus what the engine spends starting and
removing the containers a Docker season needs. This process connects to the engine (its import
and connection are paid before the season's clock starts), says "ready", then on "start" starts
COUNT containers of koth's sandbox image side by side, with the play containers' hardening and
a command that only sleeps (no koth code runs in them), labelled ``koth.benchmark`` with this
process's pid, says "up" once all run, and on "remove" removes them all side by side and ends. It
ends, removing what it started, when its stdin does (killed, it leaves them to end on their own
within SLEEP_S seconds and the engine to remove them).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.sandbox import docker  # noqa: E402

SLEEP_S = 120  # the containers' command: they end by removal, or by this at the latest
MEMORY = 256 << 20
LABEL = "koth.benchmark"


def start(client: Any, tag: str) -> Any:
    options = docker.hardening(MEMORY, docker.ZYGOTE_PIDS, "10001:10001", [])
    labels = {LABEL: str(os.getpid())}
    return client.containers.run(
        tag, ["sleep", str(SLEEP_S)], auto_remove=True, labels=labels, **options
    )


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    count = int(sys.argv[1])
    client = docker.connect()
    tag = docker.ensure_image(client, lambda text: print(text, file=sys.stderr))
    print("ready", flush=True)
    started: list[Any] = []
    with ThreadPoolExecutor(max_workers=max(1, count)) as threads:
        try:
            if sys.stdin.readline().strip() == "start":
                started = list(threads.map(lambda _: start(client, tag), range(count)))
                print("up", flush=True)
                sys.stdin.readline()  # "remove", or the end of stdin
        finally:
            list(threads.map(docker.remove, started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
