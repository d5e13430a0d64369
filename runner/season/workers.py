"""Playing games, in this process or on worker processes: the sandbox a season uses, the limits
a bot gets, and the pool of workers that plays tasks side by side.

A worker keeps one sandbox for all its games (a failed one is replaced, its game reported as not
played), dies with its parent (a parent-death signal, then it closes its sandbox), and plays the
tasks it is given; only the process that owns the pool writes results. Ctrl-C (or SIGTERM, a
cancelled CI job) stops the workers cleanly.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from multiprocessing import util
from pathlib import Path
from types import TracebackType
from typing import Any

from runner.common import helper_processes, languages
from runner.common.progress import to_stderr
from runner.games import find_game
from runner.games.base import EMPTY
from runner.games.spec import GameSpec
from runner.jail import walls
from runner.play.faults import BotFault
from runner.play.referee import Player, play_game
from runner.sandbox import privilege
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits, SandboxError
from runner.season import results
from runner.season.build import Loader, Sandbox, load_name
from runner.season.config import Config
from runner.season.entries import discover

WORKER_STOP_S = 10.0  # what a SIGTERM'd worker is given to end before it is killed
WORKER_CLOSE_S = 8.0  # of which its sandbox's close may take this much (``_worker_exit``)


def new_sandbox(kind: str, game: GameSpec | None = None, wanted: tuple[str, ...] = ()) -> Sandbox:
    """A sandbox by its tournament.yaml name: ``local`` or ``docker``; ``game``: the one it
    plays, if known (Docker's containers start quicker where it has no Python bots); ``wanted``:
    the languages of the bots it builds and plays (Docker's image holds their packages)."""
    if kind == "docker":
        from runner.sandbox.docker import DockerSandbox

        python_bots = game is None or "python" in game.languages
        return DockerSandbox(say=to_stderr, python_bots=python_bots, wanted=wanted)
    return LocalSandbox()


def season_languages(config: Config) -> tuple[str, ...]:
    """The languages the season's entries are written in (those whose entry.yaml reads)."""
    try:
        found = {e.manifest.language for e in discover(config.entries) if e.manifest is not None}
    except OSError:  # no entries folder: the stage that reads it says so
        found = set()
    return tuple(language for language in languages.IDS if language in found)


def make_sandbox(config: Config) -> Sandbox:
    """The season's sandbox (in the host process: says once what it lacks without root)."""
    privilege.note_once(config.sandbox)
    return new_sandbox(config.sandbox, find_game(config.game), season_languages(config))


def bot_limits(config: Config, language: str | None = None) -> BotLimits:
    """What a bot may use in the season: its ``limits:``, the time limits times the game's
    allowance for ``language`` (Domineering: Java twice C's; else its language's own,
    runner/common/languages.py), the threads its runtime may start and how its memory is kept.
    Without ``language``: the limits as written, and each language's (``BotLimits.of``), which
    the referee gives each seat by its entry's language."""
    if language is None:
        game = find_game(config.game)
        by_language = tuple((known, bot_limits(config, known)) for known in game.languages)
        return replace(_as_written(config), by_language=by_language)
    factor = find_game(config.game).time_factor(language)
    written = _as_written(config)
    row = languages.BY_ID.get(language)
    first = written.first_move_wall_s
    return replace(
        written,
        move_cpu_s=written.move_cpu_s * factor,
        game_cpu_s=written.game_cpu_s * factor,
        move_wall_s=written.move_wall_s * factor,
        first_move_wall_s=None if first is None else first * factor,
        threads=row.threads if row is not None else 0,
        address_space=row is None or row.memory == "address-space",
    )


def _as_written(config: Config) -> BotLimits:
    limits = config.limits
    return BotLimits(
        move_cpu_s=limits.move_cpu_ms / 1000.0,
        game_cpu_s=limits.game_cpu_s,
        move_wall_s=limits.move_wall_s,
        memory_bytes=limits.memory_mib << 20,
        first_move_wall_s=limits.first_move_wall_s,
    )


@dataclass(frozen=True)
class Task:
    index: int
    players: tuple[Player, ...]
    seed: int
    warm: tuple[Path, ...] = ()  # every jail of the batch: a sandbox may start them all at once
    setup: dict[str, Any] | None = None  # the game's per-game settings (a map), if any


Done = tuple[int, results.Record | None, str | None]  # task index, GameResult.to_dict(), error

_WORKER: dict[str, Any] = {}


def _sandbox(state: dict[str, Any]) -> Sandbox:
    """The sandbox in ``state``, started now if there is none (or the last one failed)."""
    if state.get("sandbox") is None:
        state["sandbox"] = new_sandbox(state["kind"], state["game"], state["wanted"])
    sandbox: Sandbox = state["sandbox"]
    return sandbox


def _play(task: Task, state: dict[str, Any]) -> Done:
    """Play one task with the sandbox in ``state``; a failed sandbox is replaced, not fatal."""
    _sandbox(state)
    try:
        prepare = getattr(state["sandbox"], "prepare", None)
        if prepare is not None and task.warm:
            prepare(task.warm, state["limits"], len(task.players))
        result = play_game(
            state["game"],
            task.players,
            state["sandbox"],
            state["limits"],
            task.seed,
            setup=task.setup or EMPTY,
        )
    except SandboxError as exc:
        _close_sandbox(state)
        return task.index, None, str(exc)
    played = result.to_dict()
    played["measured"]["when"] = results.utc_now()
    return task.index, played, None


def _close_sandbox(state: dict[str, Any]) -> None:
    sandbox, state["sandbox"] = state.get("sandbox"), None
    if sandbox is not None:
        try:
            sandbox.close()
        except (OSError, SandboxError):
            pass


def _worker_exit(signum: int, frame: object) -> None:
    """SIGTERM from the parent (Ctrl-C there): close the sandbox (its cgroups too), then exit.

    This handler interrupts the worker's thread wherever it is, maybe holding a lock the close
    needs (the sandbox's, its zygote's, the engine client's connection pool), so the close runs
    on a thread of its own and is waited for at most WORKER_CLOSE_S: a close that cannot finish
    must not keep the worker, nor the parent that joins it as it ends, waiting for ever. What it
    leaves ends with this process: the zygote by its parent-death signal, a Docker container as
    its zygote's socket closes, a stale memory group at the next zygote's start."""
    closing = threading.Thread(target=_close_sandbox, args=(_WORKER,), name="koth-exit")
    closing.daemon = True
    closing.start()
    closing.join(WORKER_CLOSE_S)
    os._exit(1)


def pin_to_one_cpu(slot: int, cpus: Sequence[int] | None = None) -> int | None:
    """Keep this process, and all it starts from now on (its zygote, their bots), on one of
    the CPUs it may use: slot k on the k-th (round the list). The CPU, or None if none was set.

    A move is a message to a bot and its reply: a bot woken on another CPU than the one its
    host waits on costs an inter-processor wake-up each way, which in a virtual machine is
    dearer than the move itself (docs/benchmarks.md). Bots are single-threaded and
    the host waits while one thinks, so a job slot loses nothing by keeping to one CPU. (It is
    the calling thread that keeps to it, and what it starts: call it from the thread that
    plays.)"""
    try:
        cpus = sorted(cpus or os.sched_getaffinity(0))
        cpu = cpus[slot % len(cpus)]
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError, IndexError):  # no affinity here: the scheduler decides
        return None
    return cpu


@contextmanager
def _one_cpu_here(state: dict[str, Any]) -> Iterator[None]:
    """Games played in this process keep to one CPU while they play, as a worker's do: this
    process and its sandbox's zygotes (``keep_to``; one started meanwhile inherits it). Then
    this process gets back the CPUs it had (its zygotes keep to the one: they only play)."""
    try:
        before = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        before = None
    cpu = pin_to_one_cpu(0) if before is not None and len(before) > 1 else None
    keep_to = getattr(state.get("sandbox"), "keep_to", None)
    if cpu is not None and keep_to is not None:
        keep_to({cpu})
    try:
        yield
    finally:
        if cpu is not None and before is not None:
            os.sched_setaffinity(0, before)


def _cpus() -> list[int] | None:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _take_slot(counter: Any) -> int:
    with counter.get_lock():
        slot = int(counter.value)
        counter.value = slot + 1
    return slot


def _worker_init(
    game_id: str,
    limits: BotLimits,
    kind: str,
    host: int,
    slots: Any = None,
    cpus: Sequence[int] | None = None,
    ahead: str | None = None,
    wanted: tuple[str, ...] = (),
) -> None:
    """``host``: the process that plays the season; ``cpus``: the CPUs it may use (the fork
    server this worker comes from may have started when it kept to fewer); ``ahead``: a folder
    of builds to start the sandbox's containers for now (``GamePool.start_ahead``); ``wanted``:
    the languages of the season's entries (``new_sandbox``)."""
    if slots is not None:
        pin_to_one_cpu(_take_slot(slots), cpus)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, _worker_exit)
    # Whatever ends the host (kill -9 included), this worker closes its sandbox and exits; its
    # zygote and bots follow it by their own parent-death signals. Its parent is the fork
    # server (runner/common/helper_processes.py), which ends as soon as the host does.
    helper_processes.detach()
    walls.set_parent_death_signal(os.getppid(), signal.SIGTERM)
    if not walls.alive(host):
        os._exit(1)
    walls.make_undumpable()
    _WORKER.update(game=find_game(game_id), limits=limits, kind=kind, wanted=wanted, sandbox=None)
    util.Finalize(None, _close_sandbox, args=(_WORKER,), exitpriority=10)
    if ahead is not None:
        _start_ahead(Path(ahead))


def _start_ahead(folder: Path) -> None:
    """Start this worker's sandbox now, serving ``folder``, and what it plays in (Docker's
    containers for a game, in the background; the local zygote), while the entries are still
    being built. Where that fails, the first game starts them and says why."""
    try:
        sandbox = new_sandbox(_WORKER["kind"], _WORKER["game"], _WORKER["wanted"])
    except (SandboxError, OSError):
        return
    _WORKER["sandbox"] = sandbox
    serve, start = getattr(sandbox, "serve", None), getattr(sandbox, "start_ahead", None)
    if serve is not None:  # Docker's: its containers mount the builds
        serve(folder)
    if start is not None:
        try:
            start(_WORKER["limits"])
        except (SandboxError, OSError):
            pass  # (the local zygote's start) a worker that cannot start it is still a worker


def _worker_ready() -> None:
    """A task that only makes the pool start a worker (``GamePool.start_ahead``)."""


def _worker_play(task: Task) -> Done:
    return _play(task, _WORKER)


def _worker_load(entry: str, jail: Path) -> tuple[str, str | None]:
    """Load a built C bot once in this worker's sandbox, as the build stage does in its own
    (``load_name``): its name, or the fault's sentence. A failed sandbox is replaced."""
    sandbox = _sandbox(_WORKER)
    try:
        return load_name(entry, jail, sandbox, _WORKER["limits"], _WORKER["game"]), None
    except BotFault as fault:
        return "", str(fault)
    except SandboxError:
        _close_sandbox(_WORKER)
        raise


def _can_spawn() -> bool:
    """Worker processes re-import the main module: impossible from stdin or a bare REPL."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


class GamePool:
    """Plays tasks on ``workers`` processes (or in this process when workers is 1).

    Results come back here in completion order; they depend only on the tasks, never on the
    number of workers. A worker that dies fails its game (and the pool's other pending games)
    instead of hanging the season. Leaving the ``with`` block by an exception stops the workers.
    """

    def __init__(
        self,
        game_id: str,
        limits: BotLimits,
        workers: int,
        sandbox: Sandbox | None = None,
        kind: str = "local",
        wanted: tuple[str, ...] = (),
    ) -> None:
        self.game_id, self.limits, self.workers = game_id, limits, max(1, workers)
        self.kind, self.wanted = kind, wanted  # ``new_sandbox``'s
        self._local: dict[str, Any] = {
            "game": find_game(game_id),
            "limits": limits,
            "kind": kind,
            "wanted": wanted,
            "sandbox": sandbox,
        }
        self._given = sandbox  # the caller's: closed by the caller
        self._executor: ProcessPoolExecutor | None = None
        self._ahead = False  # its workers were started ahead (``start_ahead``)

    def parallel(self, count: int) -> int:
        """How many games at once for ``count`` tasks (1: played in this process)."""
        return 1 if count <= 1 or not _can_spawn() else min(self.workers, count)

    def play(self, tasks: Sequence[Task]) -> Iterator[Done]:
        jails = tuple(sorted({p.jail for task in tasks for p in task.players}))
        tasks = [replace(task, warm=jails) for task in tasks]
        if self.parallel(len(tasks)) == 1:
            with _one_cpu_here(self._local):
                for task in tasks:
                    yield _play(task, self._local)
            return
        executor = self._executor or self._start()
        futures = {executor.submit(_worker_play, task): task for task in tasks}
        broken = False
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except BrokenProcessPool:
                    broken = True
                    yield futures[future].index, None, "a worker process died"
        finally:
            for future in futures:
                future.cancel()
        if broken:
            self.close()

    def _start(self, ahead: Path | None = None) -> ProcessPoolExecutor:
        context = helper_processes.context()
        slots = context.Value("i", 0)  # each worker takes the next: its CPU (pin_to_one_cpu)
        folder = str(ahead) if ahead is not None else None
        self._executor = ProcessPoolExecutor(
            self.workers,
            mp_context=context,
            initializer=_worker_init,
            initargs=(
                self.game_id,
                self.limits,
                self.kind,
                os.getpid(),
                slots,
                _cpus(),
                folder,
                self.wanted,
            ),
        )
        return self._executor

    def start_ahead(self, builds: Path) -> None:
        """Games will be played from jails under ``builds`` on the workers: start them now,
        each starting its sandbox's containers for a game (Docker's take ~0.3 s of the engine's
        CPU each), while this process builds the entries. Nothing where games are played in
        this process, or the workers have started."""
        if self._executor is not None or self.parallel(self.workers) == 1:
            return
        executor = self._start(builds)
        self._ahead = True
        for _ in range(self.workers):  # the pool starts a worker for each task none is idle for
            executor.submit(_worker_ready)

    def loader(self) -> Loader | None:
        """Where the build stage loads each built C bot once: on the workers started ahead, in
        the containers they started for games (Docker's: else the build's sandbox starts one
        of its own, ~0.13 s of the engine's CPU to start and remove); None: in the build's
        sandbox."""
        return self._load if self._ahead and self._executor is not None else None

    def _load(self, entry: str, jail: Path) -> str:
        executor = self._executor
        if executor is None:
            raise SandboxError("the game workers were stopped while the entries were built")
        try:
            name, fault = executor.submit(_worker_load, entry, jail).result()
        except BrokenProcessPool:
            raise SandboxError(f"a worker process died while loading {entry}'s bot") from None
        if fault is not None:
            raise BotFault(fault)
        return name

    def close(self, terminate: bool = False) -> None:
        executor, self._executor = self._executor, None
        self._ahead = False
        if executor is not None:
            # Python 3.11 has no public way to stop busy workers: SIGTERM them (_worker_exit).
            processes = list(getattr(executor, "_processes", {}).values()) if terminate else []
            executor.shutdown(wait=not terminate, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(timeout=WORKER_STOP_S)
                if process.is_alive():  # stuck: it must not keep this process from exiting
                    process.kill()  # (Python joins its workers as it exits, without a limit)
                    process.join(timeout=WORKER_STOP_S)
        if self._local["sandbox"] is not self._given:  # ours, or a replacement for a failed one
            _close_sandbox(self._local)

    def __enter__(self) -> GamePool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(terminate=kind is not None)


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Treat SIGTERM (a cancelled CI job) like Ctrl-C, so the workers are stopped cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def job_count(config: Config, jobs: int | None) -> int:
    return max(1, jobs if jobs is not None else config.jobs)


def start_helpers(config: Config, jobs: int | None = None) -> None:
    """Games will be played on worker processes soon: start the process they are forked from now,
    so that its start overlaps what this process does meanwhile
    (runner/common/helper_processes.py)."""
    if job_count(config, jobs) > 1 and _can_spawn():
        helper_processes.start()


def open_pool(config: Config, sandbox: Sandbox, jobs: int | None = None) -> GamePool:
    return GamePool(
        config.game,
        bot_limits(config),
        job_count(config, jobs),
        sandbox,
        config.sandbox,
        season_languages(config),
    )


class Closing:
    """A season's sandbox and pool, closed on a thread of their own once its games are played,
    while the caller goes on to the standings and the site: closing waits for the workers to
    close their sandboxes and, under Docker, for the engine to remove every container (~0.25 s
    on the 16-entry season, most of it the engine's CPU, which the standings and the site leave
    room for). Leaving the ``with`` block waits for it, and raises what closing raised."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def __enter__(self) -> Closing:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.wait()
            return
        try:  # the block's own error is the one to report
            self.wait()
        except Exception:
            pass

    @contextmanager
    def playing(
        self, config: Config, jobs: int | None = None
    ) -> Iterator[tuple[Sandbox, GamePool]]:
        """The season's sandbox and pool, for its build, check and play stages. Leaving the
        block starts closing them on this object's thread; leaving it by an exception (Ctrl-C
        included) closes them at once, stopping the workers."""
        sandbox = make_sandbox(config)
        try:
            pool = open_pool(config, sandbox, jobs)
            try:
                yield sandbox, pool
            except BaseException:
                with suppress(Exception):  # the error that stopped play is the one to report
                    pool.close(terminate=True)
                raise
        except BaseException:
            with suppress(Exception):
                sandbox.close()
            raise
        self._thread = threading.Thread(
            target=self._close, args=(pool, sandbox), name="koth-closing"
        )
        self._thread.start()

    def _close(self, pool: GamePool, sandbox: Sandbox) -> None:
        try:
            try:
                pool.close()
            finally:
                sandbox.close()
        except BaseException as exc:  # raised by ``wait``, in the caller's thread
            self._error = exc

    def wait(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error
