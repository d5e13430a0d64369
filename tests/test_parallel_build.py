"""The build stage builds entries side by side on ``jobs`` threads, one more locally
(runner/season/check.py build_all): the compilers of two entries run at the same time, and the
verdicts are the same, in the same order, as one build at a time."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from test_season import BOTS, BROKEN, add_bot

from runner.games import find_game
from runner.sandbox.local import Compiled
from runner.sandbox.zygote_client import SandboxError
from runner.season import check, workers
from runner.season.build import Sandbox
from runner.season.config import Config, load_config


class WrappedSandbox:
    """A real sandbox, every call passed on to it: a test's wrapper changes one of them."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner, self.name = inner, inner.name
        self.spawns_in_parallel = getattr(inner, "spawns_in_parallel", False)
        self.extra_builds = getattr(inner, "extra_builds", 0)
        if hasattr(inner, "start_ahead"):  # (check.start_ahead asks whether it has one)
            self.start_ahead = inner.start_ahead

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function", header: str = ""
    ) -> Any:
        compiled: Compiled = self.inner.compile(source, out, wall_s, recipe, header)
        return compiled

    def spawn(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.spawn(*args, **kwargs)

    def close(self) -> None:
        self.inner.close()


class MeetingSandbox(WrappedSandbox):
    """The local sandbox, but the first ``meet`` compilers must be running at once for any of
    them to go on (the rest go on at once: with more build threads than ``meet``, one that
    comes while the first are still meeting must not wait for a meeting that never comes)."""

    def __init__(self, inner: Sandbox, meet: int = 2) -> None:
        super().__init__(inner)
        self.meet = meet
        self.meeting = threading.Barrier(meet, timeout=60)
        self.lock = threading.Lock()
        self.joined = 0  # compilers that came to the meeting
        self.met = 0  # ... and went on from it

    def compile(
        self, source: Path, out: Path, wall_s: float, recipe: str = "c-function", header: str = ""
    ) -> Any:
        with self.lock:
            joining = self.joined < self.meet
            self.joined += joining
        if joining:
            self.meeting.wait()  # raises BrokenBarrierError if the others never come
            with self.lock:
                self.met += 1
        return super().compile(source, out, wall_s, recipe, header)


def config_with(tmp_path: Path, build: str) -> Config:
    (tmp_path / "tournament.yaml").write_text(
        f"entries: entries\nrounds: 1\njobs: 2\noutput:\n  build: {build}\n"
    )
    return load_config(tmp_path / "tournament.yaml")


@pytest.fixture
def entries(tmp_path: Path) -> Path:
    for name, source in BOTS.items():
        add_bot(tmp_path / "entries", name, source)
    add_bot(tmp_path / "entries", "broken", BROKEN)
    return tmp_path


def summary(builds: list[Any]) -> list[tuple[str, bool, str, str]]:
    return [(b.entry, b.ok, b.stage, b.display_name) for b in builds]


def test_entries_build_side_by_side_with_the_same_verdicts(entries: Path) -> None:
    sandbox = workers.new_sandbox("local")
    try:
        meeting = MeetingSandbox(sandbox)
        together = check.build_all(config_with(entries, "build-2"), meeting, jobs=2)
        alone = check.build_all(config_with(entries, "build-1"), sandbox, jobs=1)
    finally:
        sandbox.close()
    assert meeting.met == 2, "two entries' compilers should have run at the same time"
    assert summary(together) == summary(alone), (
        "building two at a time should give the verdicts of one at a time, in entry order"
    )
    assert [b.entry for b in together] == ["broken", "diver", "edger", "still"]
    assert [b.ok for b in together] == [False, True, True, True], (
        f"the broken entry fails and the others build: {summary(together)}"
    )


def test_the_local_sandbox_builds_one_entry_more_than_its_jobs_at_a_time(entries: Path) -> None:
    """A local build is a chain of processes handing over to one another, a core idle between
    them: the build stage runs one build more than the jobs (``LocalSandbox.extra_builds``), so
    with 2 jobs three compilers run at the same time, and the verdicts are the same."""
    sandbox = workers.new_sandbox("local")
    try:
        meeting = MeetingSandbox(sandbox, meet=3)
        builds = check.build_all(config_with(entries, "build"), meeting, jobs=2)
    finally:
        sandbox.close()
    assert meeting.met == 3, "three entries' compilers should have run at the same time"
    assert [b.ok for b in builds] == [False, True, True, True], summary(builds)


class CountingSandbox(WrappedSandbox):
    """The local sandbox, counting the bots started in it."""

    def __init__(self, inner: Sandbox) -> None:
        super().__init__(inner)
        self.spawned = 0

    def spawn(self, *args: Any, **kwargs: Any) -> Any:
        self.spawned += 1
        return super().spawn(*args, **kwargs)


def test_built_bots_load_on_the_workers_started_ahead_with_the_same_verdicts(
    entries: Path,
) -> None:
    """Where the pool's workers were started ahead (Docker's, with their play containers), the
    build stage loads each built bot there, not in its own sandbox (no container of its own to
    start): the names and verdicts are those of loading here, a bot that faults when loaded
    included."""
    add_bot(entries / "entries", "boom", "")
    (entries / "entries" / "boom" / "bot.c").write_text(  # reading its name faults
        "int bot(int b[16][32], char p) { (void)b; (void)p; return 'L'; }\n"
        "char *bot_name = (char *)16;\n"
    )
    sandbox = workers.new_sandbox("local")
    counted = CountingSandbox(sandbox)
    try:
        config = config_with(entries, "build-workers")
        with workers.open_pool(config, counted) as pool:
            assert pool.loader() is None, "no workers started ahead: loads are the build's own"
            pool.start_ahead(config.output.build)
            on_workers = check.build_all(config, counted, pool=pool)
        assert counted.spawned == 0, "every bot was loaded on the workers"
        here = check.build_all(config_with(entries, "build-here"), counted, jobs=1)
        assert counted.spawned == 5, (  # two build threads (one job, one more locally)
            "the four entries that compile and the check stage's opponent, built beside them, "
            "were loaded in the sandbox"
        )
    finally:
        sandbox.close()
    assert summary(on_workers) == summary(here)
    assert [b.display_name for b in on_workers] == ["boom", "broken", "Diver", "Edger", "Still"]
    fault = on_workers[0]
    assert (fault.ok, fault.stage) == (False, "load"), fault
    assert "SIGSEGV while loading" in fault.message, fault.message


class TimelineSandbox(CountingSandbox):
    """The local sandbox, noting when (and on which thread) its zygote is started."""

    def __init__(self, inner: Sandbox) -> None:
        super().__init__(inner)
        self.local: Any = inner  # a LocalSandbox
        self.events: list[str] = []

    def start_zygote(self) -> None:
        self.events.append(f"zygote started on {threading.current_thread().name[:10]}")
        self.local.start_zygote()

    def spawn(self, *args: Any, **kwargs: Any) -> Any:
        self.events.append("load")
        return super().spawn(*args, **kwargs)


def test_the_zygote_that_loads_the_bots_starts_beside_the_first_compiles(entries: Path) -> None:
    """Where the bots are loaded in the build's own sandbox, its zygote is started by a build
    thread beside the first compiles, so the first load does not wait for it with both build
    threads idle."""
    sandbox = workers.new_sandbox("local")
    timeline = TimelineSandbox(sandbox)
    try:
        builds = check.build_all(config_with(entries, "build"), timeline, jobs=2)
    finally:
        sandbox.close()
    assert [b.ok for b in builds] == [False, True, True, True]
    assert timeline.events == ["zygote started on koth-build"] + ["load"] * 4, (
        "started before the opponent's and the three entries' loads"
    )


def test_the_local_job_slots_start_while_the_entries_build(entries: Path) -> None:
    """``check.start_ahead`` starts the local workers, each with its zygote, before the entries
    are built: the built bots are loaded there, and the build's own sandbox starts no zygote
    (the check stage then finds its workers ready)."""
    sandbox = workers.new_sandbox("local")
    timeline = TimelineSandbox(sandbox)
    try:
        config = config_with(entries, "build-ahead")
        with workers.open_pool(config, timeline) as pool:
            check.start_ahead(config, timeline, pool)
            assert pool.loader() is not None, "the workers should have started ahead"
            builds = check.build_all(config, timeline, pool=pool)
    finally:
        sandbox.close()
    assert [b.ok for b in builds] == [False, True, True, True], summary(builds)
    assert [b.display_name for b in builds] == ["broken", "Diver", "Edger", "Still"]
    assert timeline.events == [], "no zygote started and no bot loaded in the build's process"


class FailingStart:
    """A sandbox whose start ahead fails (the local zygote's start, say)."""

    name = "local"

    def start_ahead(self, limits: Any) -> None:
        raise SandboxError("the zygote did not start")

    def close(self) -> None:
        pass


def test_a_worker_whose_sandbox_fails_to_start_ahead_is_still_a_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker's start ahead runs in the pool's initializer: a failure there would break the
    whole pool, so it is let go, and the worker's first game starts the sandbox and says why."""
    failing = FailingStart()
    monkeypatch.setattr(workers, "new_sandbox", lambda kind, game, wanted: failing)
    monkeypatch.setitem(workers._WORKER, "kind", "local")
    monkeypatch.setitem(workers._WORKER, "game", find_game("snakes-v2"))
    monkeypatch.setitem(workers._WORKER, "limits", None)
    monkeypatch.setitem(workers._WORKER, "wanted", ())
    monkeypatch.setitem(workers._WORKER, "sandbox", None)
    workers._start_ahead(tmp_path)  # does not raise
    assert workers._WORKER["sandbox"] is failing


def test_docker_builds_side_by_side_in_a_container_per_thread(
    entries: Path, docker_sandbox: Any, local_sandbox: Sandbox
) -> None:
    """Under Docker each build thread keeps one build container for all its builds, so two
    entries compile at once; the verdicts are still the local sandbox's."""
    meeting = MeetingSandbox(docker_sandbox)
    together = check.build_all(config_with(entries, "build-docker"), meeting, jobs=2)
    alone = check.build_all(config_with(entries, "build-local"), local_sandbox, jobs=1)
    assert meeting.met == 2, "two entries' builds should have run at the same time"
    live = [b for b in docker_sandbox._builders if not b.lost]
    assert len(live) == 2, f"two build threads should take two build containers, not {len(live)}"
    assert sum(b.count for b in live) >= len(together), "every build ran in one of them"
    assert [(e, ok, stage) for e, ok, stage, _ in summary(together)] == [
        (e, ok, stage) for e, ok, stage, _ in summary(alone)
    ], "Docker's builds two at a time should give the local sandbox's verdicts"


def test_the_check_stages_opponent_is_built_beside_the_entries(entries: Path) -> None:
    """The built-in bot the smoke games are played against is built with the entries, not
    after them (the check stage then finds it built); a build that is cached builds nothing."""
    config = config_with(entries, "build")
    sandbox = workers.new_sandbox("local")
    try:
        check.build_all(config, sandbox, jobs=2)
        built = sorted(p.parent.name for p in (entries / "build" / "_builtin").glob("*/build.json"))
        opponent = f"builtin-{find_game(config.game).builtins[0].name}"
        assert built == [opponent], built
        shutil.rmtree(entries / "build" / "_builtin")
        check.build_all(config, sandbox, jobs=2)
        assert not (entries / "build" / "_builtin").exists(), "nothing to build: no opponent"
        player = check.builtin_player(config, sandbox)
        assert player.entry == opponent
    finally:
        sandbox.close()
