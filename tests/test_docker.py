"""The Docker sandbox on a real engine (tests/conftest.py: skipped where none answers, a failure
under CI). The hostile suite runs here too (tests/test_hostile.py is parametrised over both
sandboxes); these are the container-specific cases."""

from __future__ import annotations

import os
import select
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from runner.games import find_game
from runner.games.base import Termination
from runner.games.snakes import SPEC as SNAKES
from runner.games.snakes.codec import SnakesCall
from runner.play.referee import Player, play_game
from runner.sandbox import docker as docker_sandbox_module
from runner.sandbox.docker import LABEL, SESSION_LABEL, DockerSandbox, image_tag
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import PROGRAMS, build_entry
from runner.season.entries import load_entry

pytestmark = pytest.mark.docker
HOSTILE = Path(__file__).parent / "hostile"
ENTRIES = Path(__file__).parents[1] / "entries"
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)


def make(root: Path, name: str, source: str) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: docker test bot\nlanguage: c\n"
    )
    return folder


def build_bot(box: Any, root: Path, name: str) -> Any:
    """Build tests/hostile/<name>.c as an entry of that name."""
    source = (HOSTILE / f"{name}.c").read_text()
    return build_entry(load_entry(make(root, name, source)), root / "b", box, LIMITS, 60, SNAKES)


def labelled(client: Any) -> list[Any]:
    # ignore_removed: play containers remove themselves once their zygote exits.
    return list(client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True))


def orphans(client: Any) -> set[str]:
    """Labelled containers whose session's process is gone: what a run left behind (other
    sessions on this machine may be running and are not counted)."""
    found = set()
    for container in labelled(client):
        pid = container.labels.get(SESSION_LABEL, "").split(":")[1:2]
        if not pid or not pid[0].isdigit() or not Path(f"/proc/{pid[0]}").exists():
            found.add(container.id)
    return found


def test_the_image_tag_follows_what_goes_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert image_tag() == image_tag(), "the same content must give the same tag"
    before = image_tag()
    changed = tmp_path / "zygote.py"
    changed.write_text(Path(docker_sandbox_module.IMAGE_FILES["zygote.py"]).read_text() + "\n#")
    files = {**docker_sandbox_module.IMAGE_FILES, "zygote.py": changed}
    monkeypatch.setattr(docker_sandbox_module, "IMAGE_FILES", files)
    assert image_tag() != before, "a changed worker must change the image tag"


def test_the_compiler_cannot_read_host_files(docker_sandbox: DockerSandbox, tmp_path: Path) -> None:
    secret = tmp_path / "secret.h"
    secret.write_text("int leaked_host_secret_4711 = 1 +;\n")
    source = f'#include "{secret}"\nint bot(int b[16][32], char p);\n'
    build = build_entry(
        load_entry(make(tmp_path, "peek", source)),
        tmp_path / "b",
        docker_sandbox,
        LIMITS,
        60,
        SNAKES,
    )
    assert not build.ok and build.stage == "compile"
    assert "No such file or directory" in build.message, build.message
    assert "leaked_host_secret_4711" not in build.message, "the host's file reached the compiler"


def test_no_state_survives_between_games(docker_sandbox: DockerSandbox, tmp_path: Path) -> None:
    keeper = build_bot(docker_sandbox, tmp_path, "keepstate")
    steady = build_bot(docker_sandbox, tmp_path, "steady")
    assert keeper.ok and steady.ok
    players = [Player(b.entry, b.content_hash, b.jail_path) for b in (keeper, steady)]
    for seed in (1, 2):  # the second game runs in the same container as the first
        result = play_game(find_game("snakes-v2"), players, docker_sandbox, LIMITS, seed)
        assert result.outcome.termination is Termination.NORMAL, result.outcome.detail


def test_docker_and_local_give_identical_records(
    docker_sandbox: DockerSandbox, local_sandbox: LocalSandbox, tmp_path: Path
) -> None:
    records = []
    for box in (local_sandbox, docker_sandbox):
        builds = [
            build_entry(load_entry(ENTRIES / name), tmp_path / box.name, box, LIMITS, 60, SNAKES)
            for name in ("greedy", "boxer")
        ]
        players = [Player(b.entry, b.content_hash, b.jail_path) for b in builds]
        result = play_game(find_game("snakes-v2"), players, box, LIMITS, seed=5).to_dict()
        result.pop("measured")
        records.append(result)
    assert records[0] == records[1], "the sandbox must not change what is played"


def test_no_container_is_left_behind(tmp_path: Path) -> None:
    box = DockerSandbox(say=lambda text: None)
    client = box.client
    session = box.labels[SESSION_LABEL]

    def mine() -> set[str]:
        return {c.id for c in labelled(client) if c.labels.get(SESSION_LABEL) == session}

    steady = build_bot(box, tmp_path, "steady")
    player = Player(steady.entry, steady.content_hash, steady.jail_path)
    play_game(find_game("snakes-v2"), [player, player], box, LIMITS, seed=1)
    assert mine(), "the game ran in a labelled container"
    box.close()
    assert mine() == set(), "close() removes its containers"


def test_an_interrupted_docker_season_cleans_up(tmp_path: Path) -> None:
    import docker

    client = docker.from_env(version="auto")
    before = orphans(client)
    for name in ("greedy", "random", "turtle"):
        target = tmp_path / "entries" / name
        target.mkdir(parents=True)
        for file in (ENTRIES / name).iterdir():
            (target / file.name).write_bytes(file.read_bytes())
    # Long enough to be still playing when interrupted: 120 games can be over in a second.
    (tmp_path / "tournament.yaml").write_text("sandbox: docker\nrounds: 100\njobs: 2\n")
    # Started ignoring SIGINT, as a shell's background job is: koth still takes Ctrl-C.
    python = shlex.quote(sys.executable)
    command = f"trap '' INT; exec {python} -m runner.cli.main season --no-progress --no-site"
    # Its output goes to a file, never a pipe this test leaves unread until the end (a full pipe
    # would stop the season), and is quoted whenever an assertion fails.
    log = tmp_path / "season.log"
    with log.open("w") as output:
        season = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=tmp_path,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        began = time.monotonic()
        games = tmp_path / "results" / "games.jsonl"
        while time.monotonic() - began < 120 and not games.exists():
            time.sleep(0.2)
            assert season.poll() is None, f"the season ended before its games:\n{log.read_text()}"
        assert games.exists(), f"the season should play within 120 s:\n{log.read_text()}"
        os.killpg(season.pid, signal.SIGINT)
        try:
            season.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"Ctrl-C did not end the season:\n{log.read_text()}") from None
    finally:
        if season.poll() is None:
            os.killpg(season.pid, signal.SIGKILL)
            season.wait()
    assert season.returncode == 130, log.read_text()
    assert orphans(client) - before == set(), "Ctrl-C left containers behind"


def test_the_default_season_gives_the_same_records_under_docker_and_local(tmp_path: Path) -> None:
    from runner.cli.stages import run_season
    from runner.season import results
    from runner.season.config import load_config

    seasons = {}
    for kind in ("local", "docker"):
        folder = tmp_path / kind
        folder.mkdir()
        (folder / "tournament.yaml").write_text(f"sandbox: {kind}\nentries: {ENTRIES}\njobs: 2\n")
        config = load_config(folder / "tournament.yaml")
        run_season(config, show_progress=False, say=lambda text: None)
        records, problems = results.read_all(results.results_files(config.output.results))
        assert not problems, problems
        canonical = results.canonical(records)
        for record in canonical:
            record.pop("measured")
        seasons[kind] = canonical
    entries = len([p for p in ENTRIES.iterdir() if p.is_dir()])
    assert len(seasons["local"]) == entries * (entries - 1), "a full round-robin was played"
    assert seasons["docker"] == seasons["local"], "docker and local must record the same games"


@pytest.mark.parametrize("sandbox", ["local", "docker"])
def test_a_python_bot_runs_in_a_warm_fork_of_the_zygote(
    sandbox: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A Python bot is a fork of the zygote's interpreter (warm), not a fresh one started cold
    (~12 ms): also in a container, whose runtime adds HOSTNAME and HOME to the zygote's
    environment. A fork keeps the zygote's command line; a fresh start would show the bot's."""
    box = request.getfixturevalue(f"{sandbox}_sandbox")
    jail = tmp_path / "jail"
    jail.mkdir()
    (tmp_path / "root").mkdir(mode=0o755)  # as a build leaves it: a program's view is made on it
    (jail / "bot.py").write_text("import sys\nprint('up', flush=True)\nsys.stdin.read()\n")
    (jail / "bot.py").chmod(0o555)
    jail.chmod(0o555)
    process = box.spawn(jail, LIMITS, [*PROGRAMS["python"]])
    try:
        process.ready()
        assert process.host_pid is not None, "the bot should have started"
        said = b""
        while b"up" not in said and select.select([process.reply_fd], [], [], 10)[0]:
            said += os.read(process.reply_fd, 64)  # its script runs: any exec is behind it
        assert b"up" in said, f"the bot's script did not run: {said!r}"
        command = Path(f"/proc/{process.host_pid}/cmdline").read_bytes().split(b"\0")
        assert any(part.endswith(b"zygote.py") for part in command), (
            f"the bot was started cold: {command}"
        )
    finally:
        process.close()


def test_a_play_container_has_a_network_namespace_with_loopback_only(
    docker_sandbox: DockerSandbox, tmp_path: Path
) -> None:
    """Containers start with networking disabled (no network set-up by the engine): their bots
    still get a network namespace of their own, holding nothing but the loopback device."""
    steady = build_bot(docker_sandbox, tmp_path, "steady")
    assert steady.ok, steady.message
    abi = SnakesCall.abi.to_json()
    process = docker_sandbox.spawn(Path(steady.jail_path), LIMITS, abi=abi)
    try:
        pid = process.ready()
        assert process.host_pid is not None, pid
        own = os.readlink(f"/proc/{process.host_pid}/ns/net")
        assert own != os.readlink("/proc/self/ns/net"), "the bot shares the host's network"
        devices = Path(f"/proc/{process.host_pid}/net/dev").read_text().splitlines()[2:]
        assert [line.split(":")[0].strip() for line in devices] == ["lo"], devices
    finally:
        process.close()


def test_the_job_slots_containers_start_while_the_entries_build_and_play_the_checks(
    tmp_path: Path,
) -> None:
    """``check.start_ahead``: each worker starts its sandbox and a game's two play containers,
    mounting the builds folder, before any entry is built; each built bot is loaded once and the
    smoke games are played in them (no container is started for either: the build stage's
    sandbox starts only its build containers), and the season's close removes them."""
    import docker

    from runner.season import check, workers
    from runner.season.config import load_config

    for name in ("greedy", "turtle"):
        target = tmp_path / "entries" / name
        target.mkdir(parents=True)
        for file in (ENTRIES / name).iterdir():
            (target / file.name).write_bytes(file.read_bytes())
    (tmp_path / "tournament.yaml").write_text("sandbox: docker\njobs: 2\n")
    config = load_config(tmp_path / "tournament.yaml")
    client = docker.from_env(version="auto")
    before = {c.id for c in labelled(client)}
    sandbox = workers.make_sandbox(config)
    assert isinstance(sandbox, DockerSandbox)
    own = sandbox.labels[SESSION_LABEL]

    def workers_boxes() -> set[str]:
        """The workers' play containers (sessions other than this process's sandbox's)."""
        return {
            c.id
            for c in labelled(client)
            if c.id not in before
            and c.labels.get(SESSION_LABEL) != own
            and "--control-socket" in c.attrs["Config"]["Cmd"]
        }

    def own_boxes() -> list[str]:
        """Play containers of this process's sandbox (its build containers have no zygote)."""
        return [
            c.id
            for c in labelled(client)
            if c.labels.get(SESSION_LABEL) == own and "--control-socket" in c.attrs["Config"]["Cmd"]
        ]

    try:
        with workers.open_pool(config, sandbox) as pool:
            check.start_ahead(config, sandbox, pool)
            deadline = time.monotonic() + 60
            while len(workers_boxes()) < 4 and time.monotonic() < deadline:
                time.sleep(0.1)
            started = workers_boxes()
            assert len(started) == 4, "two play containers for each of the two job slots"
            builds = check.build_all(config, sandbox, pool=pool)
            assert [b.display_name for b in builds] == ["Greedy", "Turtle"], builds
            assert own_boxes() == [], "the build stage started no play container of its own"
            verdicts = check.check_all(config, builds, sandbox, pool, say=lambda text: None)
            assert [v.ok for v in verdicts] == [True, True], verdicts
            assert workers_boxes() == started, "the loads and smoke games were played in them"
    finally:
        sandbox.close()
    deadline = time.monotonic() + 30
    while workers_boxes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert workers_boxes() == set(), "closing the pool removed them"
