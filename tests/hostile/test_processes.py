"""No process, container or cgroup of a koth run outlives it, whatever kills it; two koth
commands on one folder never crash or corrupt each other; a zygote that misbehaves is its entry's
fault (in a container) and never a traceback.

These run the real ``koth`` command in subprocesses and kill it with SIGKILL, as a cancelled CI
job or an out-of-memory killer would.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from runner.sandbox import zygote_client as zygote_module
from runner.sandbox.zygote_client import Zygote, ZygoteBroken, parse_event
from runner.season import results

ROOT = os.geteuid() == 0
SLOW = """#define _POSIX_C_SOURCE 199309L
#include <time.h>
int bot(int board[16][32], char player) {
    struct timespec pause = {0, 5 * 1000 * 1000};
    (void)board;
    nanosleep(&pause, 0);
    return player == 'X' ? 'R' : 'L';
}
char *bot_name = "Slow";
"""
QUICK = """int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Quick";
"""


def make_season(root: Path, bots: dict[str, str], sandbox: str = "local") -> Path:
    for name, source in bots.items():
        folder = root / "entries" / name
        folder.mkdir(parents=True)
        (folder / "bot.c").write_text(source)
        (folder / "entry.yaml").write_text(
            f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
        )
    (root / "tournament.yaml").write_text(f"sandbox: {sandbox}\njobs: 2\nrounds: 3\n")
    return root


def koth(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "runner.cli.main", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid``, with its start time (so a reused pid is not mistaken)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if (fields := _stat(child)) is not None:
                found[child] = fields[19]
                todo.append(child)
    return found


def still_alive(processes: dict[int, str]) -> list[int]:
    alive = []
    for pid, started in processes.items():
        fields = _stat(pid)
        if fields is not None and fields[19] == started and fields[0] != "Z":
            alive.append(pid)
    return alive


def wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def koth_containers(pids: set[int]) -> list[str]:
    """Containers whose session belongs to one of ``pids`` (the koth process or a worker)."""
    import docker

    from runner.sandbox.docker import LABEL, SESSION_LABEL

    client = docker.from_env(version="auto")
    found = []
    for container in client.containers.list(
        all=True, filters={"label": LABEL}, ignore_removed=True
    ):
        pid = container.labels.get(SESSION_LABEL, "").split(":")[1:2]
        if pid and pid[0].isdigit() and int(pid[0]) in pids:
            found.append(str(container.id))
    return found


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_sandbox")  # skipped, or failed under CI, without one
    return str(request.param)


@pytest.mark.parametrize("command", [["play", "slow", "quick"], ["season", "--no-site"]])
def test_nothing_outlives_a_koth_run_killed_with_sigkill(
    command: list[str], sandbox_kind: str, tmp_path: Path
) -> None:
    root = make_season(tmp_path, {"slow": SLOW, "quick": QUICK}, sandbox_kind)
    run = koth(root, *command, "--no-progress" if command[0] == "season" else "--json")

    def started() -> bool:
        if run.poll() is not None:
            return True
        if sandbox_kind == "docker":
            return bool(koth_containers({run.pid, *descendants(run.pid)}))
        return len(descendants(run.pid)) >= 3  # a zygote and its bots, at least

    try:
        wait_for(started, 120, "the run should start its bots")
        time.sleep(1.0)  # games under way
        assert run.poll() is None, f"the run ended too soon: {run.communicate()[0]}"
        below = descendants(run.pid)
        sessions = {run.pid, *below}
    finally:
        run.kill()
        run.communicate()
    wait_for(lambda: not still_alive(below), 15, f"processes outlived koth: {still_alive(below)}")
    if sandbox_kind == "docker":
        wait_for(
            lambda: not koth_containers(sessions),
            30,
            f"containers outlived koth: {koth_containers(sessions)}",
        )


@pytest.mark.skipif(not ROOT, reason="memory cgroups are made only as root")
def test_a_run_removes_the_cgroups_a_killed_run_left(tmp_path: Path) -> None:
    groups = [
        Path(p)
        for p in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup")
        if Path(p, "memory.limit_in_bytes").exists() or Path(p, "cgroup.subtree_control").exists()
    ]
    if not groups:
        pytest.skip("no memory cgroup hierarchy here")
    root = make_season(tmp_path, {"slow": SLOW, "quick": QUICK})
    run = koth(root, "play", "slow", "quick", "--json")

    def zygotes() -> list[int]:
        return [pid for pid in descendants(run.pid) if Path(groups[0], f"koth-{pid}").exists()]

    try:
        wait_for(zygotes, 120, "the zygote should make its memory cgroup")
        killed = zygotes()
        time.sleep(0.5)  # a game under way
    finally:
        run.kill()
        run.communicate()
    wait_for(lambda: not any(Path(f"/proc/{p}").exists() for p in killed), 15, "zygote gone")
    again = koth(root, "play", "quick", "quick", "--json")
    output, _ = again.communicate(timeout=120)
    assert again.returncode == 0, output
    left = [p for p in killed if Path(groups[0], f"koth-{p}").exists()]
    assert left == [], f"the killed run's cgroups are still there: {left}"


def test_two_plays_at_once_on_a_cold_build_folder_both_work(tmp_path: Path) -> None:
    root = make_season(tmp_path, {"quick": QUICK, "other": QUICK.replace("Quick", "Other")})
    runs = [koth(root, "play", "quick", "other", "--json") for _ in range(3)]
    for run in runs:
        output, _ = run.communicate(timeout=180)
        assert run.returncode == 0, output
        assert json.loads(output)["outcome"]["termination"] == "normal"


def test_two_seasons_at_once_on_one_results_folder(tmp_path: Path) -> None:
    slower = SLOW.replace("5 * 1000 * 1000", "10 * 1000 * 1000")  # ~10 s a game
    root = make_season(tmp_path, {"slow": slower, "quick": QUICK})
    (root / "tournament.yaml").write_text("jobs: 1\nrounds: 1\n")
    first = koth(root, "season", "--no-progress", "--no-site")
    # Once it plays, its checks are saved: the second season goes straight to playing.
    wait_for(lambda: (root / "results" / ".lock").exists(), 120, "the first season plays")
    second = koth(root, "season", "--no-progress", "--no-site")
    said, _ = second.communicate(timeout=180)
    first.communicate(timeout=300)
    assert first.returncode == 0
    assert second.returncode == 2, said
    assert "another koth command" in said and "Traceback" not in said, said
    records, problems = results.read_records(root / "results" / results.MAIN_FILE)
    assert problems == [] and len(records) == 2
    assert len({r["key"] for r in records}) == 2, "no game was recorded twice"


# -- a zygote is believed only as far as it is checked -------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        b"not json",
        b"[1, 2]",
        b'{"event": "exit"}',
        b'{"event": "exit", "pid": 3}',
        b'{"event": "exit", "pid": "3", "status": 0}',
        b'{"event": "launch", "pid": 3}',
        b'{"event": "spawned", "pid": -1}',
        b'{"event": "stopped", "pid": true}',
        b'{"event": "blanks"}',
        b'{"event": "blanks", "pids": [3, "4"]}',
        b'{"event": "blanks", "pids": {"3": 4}}',
        b"\xff\xfe",
    ],
)
def test_a_malformed_zygote_message_is_refused(message: bytes) -> None:
    with pytest.raises(ZygoteBroken):
        parse_event(message)


def test_the_zygote_names_its_blanks_and_no_bot_among_them(tmp_path: Path) -> None:
    """A search for bot processes left behind leaves out the zygotes' blanks (primed ones
    already run under a bot's uid): a zygote names exactly the processes it holds ready, and a
    closed one is no longer asked."""
    from runner.sandbox.local import blanks_of_every_zygote, start_local_zygote

    zygote = start_local_zygote()
    try:
        deadline = time.monotonic() + 10  # it forks its blanks once it has said it is ready
        while not (blanks := zygote.blanks()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert blanks, "a zygote keeps blanks ready"
        children = Path(f"/proc/{zygote.pid}/task/{zygote.pid}/children").read_text().split()
        assert set(blanks) <= {int(pid) for pid in children}, "every blank is the zygote's child"
        assert set(blanks) <= set(blanks_of_every_zygote()), "the search asks every zygote"
    finally:
        zygote.close()
    assert not set(blanks) & set(blanks_of_every_zygote()), "a closed zygote is not asked"


def test_garbage_from_a_zygote_is_a_broken_zygote_not_a_traceback(
    fake_zygote: tuple[socket.socket, socket.socket], tmp_path: Path
) -> None:
    from runner.sandbox.zygote_client import BotLimits

    host, far = fake_zygote
    box = Zygote(host, untrusted=True)
    limits = BotLimits(0.1, 1.0, 1.0, 64 << 20)
    process = box.spawn(str(tmp_path), limits)
    far.recv(1 << 16)
    far.send(b"not json")
    with pytest.raises(ZygoteBroken, match="malformed"):
        box.await_pid(process)


def test_a_silent_zygote_is_given_up_on(
    fake_zygote: tuple[socket.socket, socket.socket],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from runner.sandbox.zygote_client import BotLimits

    monkeypatch.setattr(zygote_module, "ANSWER_WALL_S", 0.3)
    host, _ = fake_zygote
    box = Zygote(host, untrusted=True)
    process = box.spawn(str(tmp_path), BotLimits(0.1, 1.0, 1.0, 64 << 20))
    started = time.monotonic()
    with pytest.raises(ZygoteBroken, match="did not answer"):
        box.await_pid(process)
    assert time.monotonic() - started < 5, "a silent zygote must not hold the host"


@pytest.mark.parametrize("exit_first", [False, True], ids=["exit-after-close", "exit-before"])
def test_news_of_a_process_never_reaches_a_later_one_with_its_pid(
    fake_zygote: tuple[socket.socket, socket.socket], tmp_path: Path, exit_first: bool
) -> None:
    """Pids are reused (a season that starts a process every move wraps them): the exit of a
    bot the host is done with must not read as the end of the next process given its pid."""
    from runner.sandbox.zygote_client import BotLimits

    host, far = fake_zygote
    box = Zygote(host)
    limits = BotLimits(0.1, 1.0, 1.0, 64 << 20)
    exited = json.dumps({"event": "exit", "pid": 100, "status": 0}).encode()
    old = box.spawn(str(tmp_path), limits, ["./bot"])
    far.recv(1 << 16)
    far.send(json.dumps({"event": "spawned", "pid": 100}).encode())
    box.await_pid(old)
    if exit_first:  # it replied and ended before the host closed it
        far.send(exited)
        box.pump()
    box.forget(100)  # what closing it does (with a kill the zygote may come to after its end)
    if not exit_first:
        far.send(exited)
    new = box.spawn(str(tmp_path), limits, ["./bot"])
    far.recv(1 << 16)
    far.send(json.dumps({"event": "spawned", "pid": 100}).encode())
    box.await_pid(new)
    box.pump()
    assert box.events_for(100) == [], "the old process's exit was taken for the new one's"
    far.send(json.dumps({"event": "exit", "pid": 100, "status": 256}).encode())
    box.pump()
    assert [e["status"] for e in box.events_for(100)] == [256], "the new one's own news arrives"


def test_a_stopped_zygote_between_games_gets_a_fresh_container(
    docker_sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_trust import assert_plays_on, build, play

    monkeypatch.setattr(zygote_module, "ANSWER_WALL_S", 1.0)
    steady = build(docker_sandbox, tmp_path, "c", "steady")
    assert_plays_on(play(docker_sandbox, "c", [steady, steady]), "steady")
    for box in list(docker_sandbox._boxes):
        os.kill(box.zygote_host_pid, signal.SIGSTOP)
    assert_plays_on(play(docker_sandbox, "c", [steady, steady], seed=2), "steady")


def test_a_zygote_that_dies_mid_game_is_its_entrys_loss(
    docker_sandbox: Any, tmp_path: Path
) -> None:
    from test_trust import Loss, assert_loses, build, play

    from runner.games.base import Termination

    slow = build(docker_sandbox, tmp_path, "c", "sleepy")
    steady = build(docker_sandbox, tmp_path, "c", "steady")
    play(docker_sandbox, "c", [slow, steady])  # starts the containers the game takes

    def kill_sleepys_supervisor() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the container the game gave the sleepy bot
            boxes = list(docker_sandbox._boxes)
            held = [b for b in boxes if not b.free and b.jail == slow.jail_path]
            if held:
                time.sleep(0.3)
                os.kill(held[0].zygote_host_pid, signal.SIGKILL)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_sleepys_supervisor)
    killer.start()
    result = play(docker_sandbox, "c", [slow, steady], seed=2)
    killer.join()
    assert_loses(
        result, Loss("c", "sleepy", Termination.CRASH, r"broke its sandbox's supervisor at turn")
    )


def test_a_container_is_handed_on_only_once_its_last_bot_has_ended(
    fake_zygote: tuple[socket.socket, socket.socket], tmp_path: Path
) -> None:
    """A Docker play container holds one bot at a time: the next waits until the zygote has
    reaped the last (its memory given back, so the container's OOM count is the next one's)."""
    from runner.sandbox.zygote_client import BotLimits

    host, far = fake_zygote
    box = Zygote(host, untrusted=True)
    bot = box.spawn(str(tmp_path), BotLimits(0.1, 1.0, 1.0, 64 << 20), ["./bot"])
    far.recv(1 << 16)
    far.send(json.dumps({"event": "spawned", "pid": 100}).encode())
    box.await_pid(bot)
    box.forget(100)  # what closing it does: its kill is asked for, its end is still to come
    assert not box.settle(0.2), "the bot has not ended yet"
    far.send(json.dumps({"event": "exit", "pid": 100, "status": 9}).encode())
    assert box.settle(5.0), "its end came"
