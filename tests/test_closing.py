"""A season's sandbox and workers close on a thread of their own once its games are played
(runner/season/workers.py, Closing), while the standings and the site are made: the close really
runs beside the caller, everything is closed once the ``with`` block is left, and an error
anywhere still closes everything and is reported. A worker stopped by SIGTERM closes its sandbox
and exits, even where the close waits on something the stopped thread held."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from test_parallel_build import WrappedSandbox
from test_season import BOTS, add_bot

from runner.cli import stages
from runner.sandbox.zygote_client import BotLimits, SandboxError
from runner.season import workers
from runner.season.build import Sandbox
from runner.season.config import Config, load_config

WAIT_S = 20.0  # bounds a wait that the code under test should end at once


class WatchedSandbox(WrappedSandbox):
    """The local sandbox, noting its close; ``hold`` keeps close() waiting until it is set."""

    def __init__(self, inner: Sandbox, hold: threading.Event | None, fail: bool) -> None:
        super().__init__(inner)
        self.hold, self.fail = hold, fail
        self.closed_by: str | None = None
        self.waited_for_caller = False

    def close(self) -> None:
        if self.hold is not None:
            self.waited_for_caller = self.hold.wait(WAIT_S)
        self.inner.close()
        self.closed_by = threading.current_thread().name
        if self.fail:
            raise SandboxError("the engine could not remove a container")


@pytest.fixture
def config(tmp_path: Path) -> Config:
    for name, source in BOTS.items():
        add_bot(tmp_path / "entries", name, source)
    (tmp_path / "tournament.yaml").write_text("entries: entries\nseed: 3\nrounds: 1\njobs: 2\n")
    return load_config(tmp_path / "tournament.yaml")


def watched(
    monkeypatch: pytest.MonkeyPatch, hold: threading.Event | None = None, fail: bool = False
) -> list[WatchedSandbox]:
    made: list[WatchedSandbox] = []

    def make(config: Config) -> WatchedSandbox:
        made.append(WatchedSandbox(workers.new_sandbox("local"), hold, fail))
        return made[-1]

    monkeypatch.setattr(workers, "make_sandbox", make)
    return made


def test_the_sandbox_and_workers_close_beside_the_caller(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the games are played the caller goes on (here: it lets the close finish, which a
    close in its own thread would wait for in vain), and leaving the block waits for it."""
    hold = threading.Event()
    made = watched(monkeypatch, hold)
    with workers.Closing() as closing:
        with closing.playing(config) as (sandbox, pool):
            pool.start_ahead(config.output.build)  # two worker processes
            processes = list(getattr(pool._executor, "_processes", {}).values())
            assert len(processes) == 2
        hold.set()  # the caller goes on: the close was not done in its thread
    assert made[0].waited_for_caller, "the close ran in the caller's thread"
    assert made[0].closed_by == "koth-closing"
    assert all(not p.is_alive() for p in processes), "leaving the block waits for the workers"


def test_run_season_closes_everything_before_it_returns(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = watched(monkeypatch)
    report, rows, _ = stages.run_season(config, say=lambda _: None)
    assert report.played == report.scheduled > 0
    assert made[0].closed_by == "koth-closing"
    assert [r.entry for r in rows] != []


def test_an_error_while_playing_closes_at_once_and_is_the_one_reported(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = watched(monkeypatch, fail=True)  # closing fails too: the first error is reported
    with (
        pytest.raises(KeyboardInterrupt),
        workers.Closing() as closing,
        closing.playing(config) as (_, pool),
    ):
        pool.start_ahead(config.output.build)
        processes = list(getattr(pool._executor, "_processes", {}).values())
        raise KeyboardInterrupt
    assert made[0].closed_by == threading.current_thread().name, "closed at once, here"
    assert all(not p.is_alive() for p in processes), "the workers were stopped"


def test_an_error_while_closing_is_raised_when_the_caller_is_done(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched(monkeypatch, fail=True)
    went_on = False
    with pytest.raises(SandboxError, match="could not remove"), workers.Closing() as closing:
        with closing.playing(config):
            pass
        went_on = True
    assert went_on


def test_sigterm_while_koth_season_renders_the_site_waits_for_the_close(
    config: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cancelled CI job's SIGTERM during the site stops `koth season` as Ctrl-C does (exit
    130), once the sandbox and the workers it is closing beside the site are closed."""
    import signal

    from runner.cli import main
    from runner.site import render

    made = watched(monkeypatch)

    def cancelled(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(WAIT_S)  # the signal's handler raises meanwhile
        raise AssertionError("SIGTERM did not stop the site")

    def missed(signum: int, frame: object) -> None:
        raise AssertionError("koth season left SIGTERM to its caller during the site")

    monkeypatch.setattr(render, "render_from_config", cancelled)
    monkeypatch.chdir(config.path.parent if config.path is not None else ".")
    previous = signal.signal(signal.SIGTERM, missed)
    try:
        assert main.main(["season", "--no-progress"]) == 130
        assert signal.getsignal(signal.SIGTERM) is missed, "its own handler is put back"
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert made[0].closed_by == "koth-closing", "the close was waited for"
    assert "standings" in capsys.readouterr().out.lower()


class LockedSandbox:
    """A sandbox whose close needs ``lock`` (as a real one needs its own, or its engine
    client's): notes whether it closed."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.closed = threading.Event()

    def close(self) -> None:
        with self.lock:
            self.closed.set()


def stop_worker(monkeypatch: pytest.MonkeyPatch, sandbox: LockedSandbox) -> list[tuple[int, bool]]:
    """Run a worker's SIGTERM handler with ``sandbox`` as its sandbox: how it exited (the exit
    code, and whether the sandbox had closed by then)."""
    exits: list[tuple[int, bool]] = []
    monkeypatch.setitem(workers._WORKER, "sandbox", sandbox)
    monkeypatch.setattr(workers, "WORKER_CLOSE_S", 0.5)
    monkeypatch.setattr(os, "_exit", lambda code: exits.append((code, sandbox.closed.is_set())))
    workers._worker_exit(15, None)
    return exits


def test_a_stopped_worker_closes_its_sandbox_before_it_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox = LockedSandbox(threading.Lock())
    assert stop_worker(monkeypatch, sandbox) == [(1, True)]
    assert workers._WORKER["sandbox"] is None, "a closed sandbox is not closed again"


def test_a_stopped_worker_exits_when_its_close_waits_on_what_it_was_holding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SIGTERM's handler runs on the worker's thread wherever it was: here, holding the lock the
    # close needs. The worker must still exit (before, it waited for ever, and so did the host
    # joining it at its own exit).
    lock = threading.Lock()
    sandbox = LockedSandbox(lock)
    with lock:
        assert stop_worker(monkeypatch, sandbox) == [(1, False)]
    assert sandbox.closed.wait(WAIT_S), "the close goes on once the lock is free"


class WorkerProcess:
    """The pool's view of a worker process (a fake): ``deaf``, SIGTERM does not end it."""

    def __init__(self, deaf: bool) -> None:
        self.deaf, self.alive = deaf, True
        self.signals: list[str] = []

    def terminate(self) -> None:
        self.signals.append("TERM")
        self.alive = self.deaf

    def kill(self) -> None:
        self.signals.append("KILL")
        self.alive = False

    def join(self, timeout: float | None = None) -> None:
        assert timeout is not None, "a join without a limit could wait for ever"

    def is_alive(self) -> bool:
        return self.alive


class StoppedExecutor:
    def __init__(self, processes: list[WorkerProcess]) -> None:
        self._processes = dict(enumerate(processes))
        self.shut: tuple[bool, bool] | None = None

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.shut = (wait, cancel_futures)


def test_a_worker_that_sigterm_does_not_end_is_killed() -> None:
    # Stopping play (Ctrl-C) SIGTERMs the workers and joins them for a while; one still alive
    # then is killed: Python joins its pool's processes as it exits, without a limit.
    deaf, obedient = WorkerProcess(deaf=True), WorkerProcess(deaf=False)
    given = LockedSandbox(threading.Lock())
    limits = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=64 << 20)
    pool = workers.GamePool("snakes-v2", limits, 2, given)  # type: ignore[arg-type]
    executor = StoppedExecutor([deaf, obedient])
    pool._executor = executor  # type: ignore[assignment]
    pool.close(terminate=True)
    assert executor.shut == (False, True), "queued games are cancelled, nothing waited for"
    assert deaf.signals == ["TERM", "KILL"] and not deaf.alive
    assert obedient.signals == ["TERM"] and not obedient.alive, "one that ended is not killed"
    assert not given.closed.is_set(), "the sandbox the pool was given is its owner's to close"
