"""The C blank (runner/jail/cblank.c): a C-function bot's process holds no Python interpreter, in
both sandboxes; it calls the function as cffi would; a wall it cannot build is reported as the
Python blank reports one; a signature it cannot call goes to the Python blank; and a season
records the same games with it and without it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from processes import children_of, fork_servers, parent_of

from runner.games.snakes import SPEC as SNAKES
from runner.games.snakes.codec import SnakesCall
from runner.jail import zygote as zygote_program
from runner.play.cabi import CFunctionBot
from runner.play.faults import BotCrashed
from runner.play.referee import Player, play_game
from runner.sandbox import cblank
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits, SandboxError

LIMITS = BotLimits(move_cpu_s=0.5, game_cpu_s=10.0, move_wall_s=2.0, memory_bytes=256 << 20)
SNAKES_ABI = SnakesCall.abi.to_json()
HOSTILE = Path(__file__).parent / "hostile"


def shared_object(folder: Path, source: str) -> Path:
    """``source`` compiled to ``folder/jail/bot.so``, as a build leaves a C-function bot."""
    jail = folder / "jail"
    jail.mkdir(parents=True)
    (folder / "bot.c").write_text(source)
    command = ["gcc", "-O2", "-fPIC", "-shared", str(folder / "bot.c"), "-o", str(jail / "bot.so")]
    subprocess.run(command, check=True)
    jail.chmod(0o755)
    return jail


def abi(function: str, args: list[list[Any]]) -> dict[str, Any]:
    kinds = {"int32": "int", "byte": "char"}
    params = ", ".join(kinds.get(read, "int *") for _, _, read in args)
    return {
        "cdef": f"int {function}({params});\nextern char *bot_name;\n",
        "function": function,
        "name_symbol": "bot_name",
        "args": args,
    }


def started(box: Any, jail: Path, signature: dict[str, Any]) -> CFunctionBot:
    bot = CFunctionBot(box.spawn(jail, LIMITS, abi=signature), LIMITS, "fallback")
    bot.start()
    return bot


def command_of(bot: CFunctionBot) -> list[bytes]:
    assert bot.process.host_pid is not None
    return Path(f"/proc/{bot.process.host_pid}/cmdline").read_bytes().split(b"\0")


def in_the_c_blank(bot: CFunctionBot) -> bool:
    return Path(command_of(bot)[0].decode()).name.startswith("cblank")


def test_a_c_function_bot_runs_in_the_c_blank(any_sandbox: Any, tmp_path: Path) -> None:
    """Its process is the C blank (not a fork of the zygote's interpreter), and it plays."""
    jail = shared_object(tmp_path, (HOSTILE / "steady.c").read_text())
    bot = started(any_sandbox, jail, SNAKES_ABI)
    try:
        assert in_the_c_blank(bot), f"not the C blank: {command_of(bot)}"
        board = bytes([ord(".")]) * (16 * 32)
        assert chr(bot.ask(board + b"X", 1)) in "LRUD"
    finally:
        bot.process.close()


def test_c_blanks_are_cloned_by_a_fork_server_as_the_zygotes_children(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """The zygote's fork server clones each C blank (no exec, no dynamic loader's start), as the
    zygote's own child: the zygote reaps it and is its parent-death reference. A server that
    dies is replaced (by the next blank, or the one after if that one finds it dead: then it is
    started with posix_spawn), and bots start as before."""
    jail = shared_object(tmp_path, (HOSTILE / "steady.c").read_text())
    zygote = local_sandbox.zygote.pid
    board = bytes([ord(".")]) * (16 * 32) + b"X"
    first = started(local_sandbox, jail, SNAKES_ABI)
    try:
        assert first.process.host_pid is not None
        assert parent_of(first.process.host_pid) == zygote
        servers = fork_servers(zygote)
        assert len(servers) == 1, f"not one fork server among {children_of(zygote)}"
        os.kill(servers[0], signal.SIGKILL)
        assert chr(first.ask(board, 1)) in "LRUD", "a bot outlives its fork server"
        later = [started(local_sandbox, jail, SNAKES_ABI) for _ in range(2)]
        try:
            for bot in later:
                assert bot.process.host_pid is not None
                assert in_the_c_blank(bot) and parent_of(bot.process.host_pid) == zygote
                assert chr(bot.ask(board, 1)) in "LRUD"
            assert fork_servers(zygote) not in ([], servers), "no new fork server"
        finally:
            for bot in later:
                bot.process.close()
    finally:
        first.process.close()


def test_a_fork_server_that_fails_every_time_is_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that never clones (here a program that ends at once, as a server would whose
    every clone the kernel refused) is started NATIVE_SERVER_TRIES times, then no more: the
    blanks go to posix_spawn without paying for a server each."""
    true = shutil.which("true")
    assert true is not None
    monkeypatch.setattr(zygote_program._Abilities, "native", true)
    started: list[int] = []
    spawn = os.posix_spawn

    def counted(*args: Any, **kwargs: Any) -> int:
        started.append(spawn(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(os, "posix_spawn", counted)
    server = zygote_program._NativeServer()
    ours, theirs = socket.socketpair()
    try:
        with ours, theirs:
            for _ in range(zygote_program.NATIVE_SERVER_TRIES + 3):
                assert server.clone(["0", "0", "-"], theirs) is None
    finally:
        for pid in started:
            os.waitpid(pid, 0)
    assert len(started) == zygote_program.NATIVE_SERVER_TRIES
    assert server.channel is None and server.pid == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces are root-only")
def test_bots_share_their_zygotes_network_namespace_not_the_hosts(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """With the seccomp filter on (no socket() for a bot), the zygote makes one network and IPC
    namespace for its bots, once: not the host's, holding only a loopback device that is down."""
    assert local_sandbox.zygote.seccomp
    jail = shared_object(tmp_path, (HOSTILE / "steady.c").read_text())
    bots = [started(local_sandbox, jail, SNAKES_ABI) for _ in range(2)]
    try:
        pids = [bot.process.host_pid for bot in bots]
        spaces = {os.readlink(f"/proc/{pid}/ns/net") for pid in pids}
        assert spaces == {os.readlink(f"/proc/{local_sandbox.zygote.pid}/ns/net")}
        assert os.readlink("/proc/self/ns/net") not in spaces, "a bot shares the host's network"
        assert os.readlink(f"/proc/{pids[0]}/ns/ipc") != os.readlink("/proc/self/ns/ipc")
        devices = Path(f"/proc/{pids[0]}/net/dev").read_text().splitlines()[2:]
        assert [line.split(":")[0].strip() for line in devices] == ["lo"], devices
    finally:
        for bot in bots:
            bot.process.close()


def test_the_c_blank_passes_every_kind_of_argument(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """Six arguments, each kind: a widened array (each byte one int, rewritten every call even if
    the bot wrote to it), a signed char, a negative int32; the int returned, negative too."""
    source = """
    char *bot_name = "  six\\targuments  ";
    int f(int *cells, char c, int a, int b, int d, int e) {
        int sum = 0;
        for (int i = 0; i < 3; i++) { sum += cells[i]; cells[i] = 1000; }
        return sum * 1000000 + c * 10000 + a + b + d - e;
    }
    """
    jail = shared_object(tmp_path, source)
    args = [["int[3]", 3, "widen"], ["char", 1, "byte"]] + [["int", 4, "int32"]] * 4
    bot = started(local_sandbox, jail, abi("f", args))
    try:
        assert in_the_c_blank(bot), command_of(bot)
        assert bot.name == "six arguments"
        ints = struct.pack("<iiii", -7, 5, 100, 2)
        for _ in range(2):  # the second call sees the request again, not what the bot wrote
            got = bot.ask(bytes([1, 2, 250]) + b"\xfe" + ints, 1)
            assert got == 253 * 1000000 + (-2) * 10000 + (-7 + 5 + 100 - 2)
    finally:
        bot.process.close()


def test_a_signature_the_c_blank_cannot_call_goes_to_the_python_blank(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    source = """
    char *bot_name = "seven";
    int f(int a, int b, int c, int d, int e, int g, int h) { return a - h; }
    """
    jail = shared_object(tmp_path, source)
    bot = started(local_sandbox, jail, abi("f", [["int", 4, "int32"]] * 7))
    try:
        assert any(part.endswith(b"zygote.py") for part in command_of(bot)), command_of(bot)
        assert bot.ask(struct.pack("<7i", 50, 0, 0, 0, 0, 0, 8), 1) == 42
    finally:
        bot.process.close()


def test_a_wall_the_c_blank_cannot_build_is_reported_as_the_hosts_fault(
    local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    """A jail that is not there: the blank says which wall and why, before any bot code, and
    the local host takes it for its own failure, not the bot's."""
    process = local_sandbox.spawn(tmp_path / "missing", LIMITS, abi=SNAKES_ABI)
    bot = CFunctionBot(process, LIMITS, "fallback")
    with pytest.raises(SandboxError) as raised:
        bot.start()
    process.close()
    assert local_sandbox.zygote.native
    said = str(raised.value)
    assert "could not start fallback" in said and "No such file or directory" in said, said


def test_a_bot_that_cannot_be_loaded_says_why(local_sandbox: LocalSandbox, tmp_path: Path) -> None:
    jail = shared_object(tmp_path, "int bot(int board[16][32], char player) { return 'L'; }\n")
    process = local_sandbox.spawn(jail, LIMITS, abi=SNAKES_ABI)
    bot = CFunctionBot(process, LIMITS, "fallback")
    with pytest.raises(BotCrashed) as raised:
        bot.start()
    process.close()
    said = str(raised.value)
    assert "could not be loaded" in said and "undefined symbol: bot_name" in said, said


def test_a_season_records_the_same_games_with_the_c_blank_and_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hostile bots among them: one that writes over its board, one that crashes, one that
    keeps state in a static, one that counts its calls in bot_name (set back before every call
    both ways); the records (moves, faults, names) are the same both ways."""
    names = ["steady", "boardwriter", "segfault", "staticlocal", "badmove", "namecounter"]
    jails = {n: shared_object(tmp_path / n, (HOSTILE / f"{n}.c").read_text()) for n in names}
    players = {n: Player(n, n * 4, jails[n]) for n in names}

    def records(box: LocalSandbox) -> list[Any]:
        try:
            played = []
            for first in names:
                for second in names:
                    if first != second:
                        pair = [players[first], players[second]]
                        result = play_game(SNAKES, pair, box, LIMITS, seed=7)
                        played.append((result.outcome, result.moves, result.names))
            return played
        finally:
            box.close()

    native = LocalSandbox()
    assert native.zygote.native, "the C blank should serve these bots"
    with_it = records(native)
    monkeypatch.setattr(cblank, "binary", lambda: None)
    without = LocalSandbox()
    assert not without.zygote.native
    assert records(without) == with_it
    assert any(outcome.faulty is not None for outcome, _, _ in with_it), "hostile bots lose"
