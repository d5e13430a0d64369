"""A bot started for one move writes its reply and ends at once; the host learns of its end from
the zygote's news. Whatever order the reply and the news reach the host in, and wherever the host
is in reading them, a whole reply is the move's reply, never "exited with code 0"
(runner/play/watchdog.py). The zygote here is the test's (``fake_zygote``: its far end), so the
order is exact."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from runner.jail import zygote as zygote_program
from runner.play import watchdog
from runner.play.stdio import StdioBot
from runner.sandbox.zygote_client import BotLimits, Zygote, ZygoteBroken

LIMITS = BotLimits(move_cpu_s=100.0, game_cpu_s=1000.0, move_wall_s=10.0, memory_bytes=64 << 20)
PID = 100  # the bot's pid, as the zygote names it
REPLY = b"1 7 9\n"


class Bot:
    """The far ends: the zygote's control socket and the bot process's channels."""

    def __init__(self, host: socket.socket, far: socket.socket) -> None:
        self.far = far
        self.zygote = Zygote(host)
        self.process = self.zygote.spawn("/jail", LIMITS, ["./bot"])
        _, fds, _, _ = socket.recv_fds(far, 1 << 16, 4)
        self.request = fds[0]
        self.reply = fds[1]
        self.identity = socket.socket(fileno=fds[2])
        self.output = fds[3]
        far.send(json.dumps({"event": "spawned", "pid": PID}).encode())
        self.identity.send(zygote_program.IDENTIFY)  # the kernel stamps it with this process's pid

    def news(self, **event: Any) -> None:
        self.far.send(json.dumps(event).encode())

    def answers_and_ends(self) -> None:
        os.write(self.reply, REPLY)
        self.news(event="exit", pid=PID, status=0, cpu=0.001)


@pytest.fixture
def bot(fake_zygote: tuple[socket.socket, socket.socket]) -> Iterator[Bot]:
    made = Bot(*fake_zygote)
    yield made
    if made.reply >= 0:
        os.close(made.reply)
    os.close(made.output)
    made.identity.close()


def play_a_move(bot: Bot) -> watchdog.Exchange:
    player = StdioBot(bot.process, LIMITS, "placer", lines=1, until_end=True)
    player.start()
    move = player.begin(b"2\n", turn=16)
    watchdog.drive(move)
    return move


def test_a_reply_and_its_end_that_come_while_the_host_reads_news_are_a_reply(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host looks at the channel and finds nothing, and before it reads the zygote's news
    the bot replies and ends: the news of its end must not be taken for a death."""
    drain = watchdog.Exchange._drain
    calls: list[int] = []

    def then_the_bot_answers(move: watchdog.Exchange) -> None:
        drain(move)
        calls.append(1)
        if len(calls) == 1:
            bot.answers_and_ends()

    monkeypatch.setattr(watchdog.Exchange, "_drain", then_the_bot_answers)
    bot.news(event="exit", pid=99, status=9)  # an earlier bot's end: news, but not of this one
    move = play_a_move(bot)
    assert move.fault is None, f"a whole reply was taken for a death: {move.fault}"
    assert move.reply == REPLY.rstrip(b"\n")


def after_the_request(monkeypatch: pytest.MonkeyPatch, then: Callable[[], None]) -> None:
    """``then`` happens as soon as the host has written the request."""
    write = watchdog.Exchange._write

    def written(move: watchdog.Exchange) -> int:
        count = write(move)
        then()
        return count

    monkeypatch.setattr(watchdog.Exchange, "_write", written)


@pytest.mark.parametrize("first", ["reply", "news"])
def test_a_reply_and_its_end_in_either_order_are_a_reply(
    bot: Bot, first: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer() -> None:
        if first == "reply":
            bot.answers_and_ends()
        else:
            bot.news(event="exit", pid=PID, status=0, cpu=0.001)
            os.write(bot.reply, REPLY)

    after_the_request(monkeypatch, answer)
    move = play_a_move(bot)
    assert move.fault is None, f"a whole reply was taken for a death: {move.fault}"
    assert move.reply == REPLY.rstrip(b"\n")


def test_an_end_without_a_reply_is_still_a_death(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash() -> None:
        bot.news(event="exit", pid=PID, status=11, cpu=0.001)  # SIGSEGV
        os.close(bot.reply)
        bot.reply = -1

    after_the_request(monkeypatch, crash)
    move = play_a_move(bot)
    assert move.fault is not None and "SIGSEGV at turn 16" in str(move.fault), move.fault


def test_old_news_is_dropped_and_nothing_else_read(
    fake_zygote: tuple[socket.socket, socket.socket],
) -> None:
    """``drop_old_news`` (a move the quick loop handed over because the zygote's news woke it):
    the exits of bots the host is done with are read and dropped; the first other message is
    left where it is, well formed or not, for the next move to read and judge (a zygote in a
    bot's container is that entry's doing)."""
    host, far = fake_zygote
    zygote = Zygote(host, untrusted=True)

    def send(**event: Any) -> None:
        far.send(json.dumps(event).encode())

    zygote.forget(41)
    zygote.forget(42)
    send(event="exit", pid=41, status=0)
    send(event="stopped", pid=42)
    send(event="exit", pid=42, status=9)
    send(event="exit", pid=43, status=0)  # of a bot not forgotten: the next move's news
    zygote.drop_old_news()
    assert json.loads(host.recv(1 << 16)) == {"event": "exit", "pid": 43, "status": 0}
    zygote.forget(44)
    far.send(b"not a message")  # broken: not read, not judged here
    send(event="exit", pid=44, status=0)
    zygote.drop_old_news()
    assert host.recv(1 << 16) == b"not a message"
    zygote.drop_old_news()  # its exit, now first
    with pytest.raises(BlockingIOError):
        host.recv(1 << 16)
    far.close()  # the zygote's end: left for the next reader, who says what it means
    zygote.drop_old_news()
    assert not zygote.dead
    with pytest.raises(ZygoteBroken, match="exited unexpectedly"):
        zygote.pump()
