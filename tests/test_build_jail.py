"""The local build is walled in (runner/sandbox/buildjail.py): a private copy of the entry, an
empty filesystem view but the toolchain, its own uid, no network, rlimits and a wall clock.

The attacks come through the compiler (``#include`` and ``.incbin`` of host files and of other
entries, an assembler ``.fill`` of a gigabyte); the walls themselves are checked by running
shell steps in the jail, as a compiler pass could if it were subverted."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from processes import alive

from runner.games.snakes import SPEC as SNAKES
from runner.jail import zygote
from runner.sandbox import buildjail
from runner.sandbox.buildjail import JailedBuild, run_build
from runner.sandbox.local import ARTIFACT_CAP, LocalSandbox, step_helper
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry

ROOT = os.geteuid() == 0
root_only = pytest.mark.skipif(not ROOT, reason="the namespaces, chroot and uid need root")
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
SECRET = "leaked_secret_4711"
TAIL = (
    "int bot(int board[16][32], char player) { (void)board; (void)player; return 'R'; }\n"
    'char *bot_name = "Jail";\n'
)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[LocalSandbox]:
    box = LocalSandbox()
    yield box
    box.close()


def entry(root: Path, name: str, source: str) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
    )
    return folder


def build(sandbox: LocalSandbox, root: Path, name: str, source: str) -> tuple[bool, str, str]:
    """Build an entry next to a neighbour whose source holds the secret; (ok, stage, message)."""
    if not (root / "entries" / "greedy").exists():
        entry(root, "greedy", f"/* {SECRET} */\n" + TAIL)
    result = build_entry(
        load_entry(entry(root, name, source)), root / "b", sandbox, LIMITS, 60, SNAKES
    )
    return result.ok, result.stage, result.message


@pytest.fixture
def host_secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.h"
    path.write_text(f"int {SECRET} = 1 +;\n")  # a syntax error: the compiler would quote it
    return path


def incbin(path: str) -> str:
    return (
        '__asm__(".section .rodata\\n.globl stolen\\nstolen: .incbin \\"'
        + path
        + '\\"\\n.byte 0\\n.text");\n'
    )


@pytest.mark.parametrize(
    "attack",
    [
        "include-host-file",
        "include-etc-hostname",
        "include-other-entry",
        "incbin-other-entry",
        "incbin-host-file",
        "incbin-etc-shadow",
        "incbin-proc",
    ],
)
def test_the_compiler_finds_nothing_outside_the_entry(
    attack: str, sandbox: LocalSandbox, tmp_path: Path, host_secret: Path
) -> None:
    source = {
        "include-host-file": f'#include "{host_secret}"\n',
        "include-etc-hostname": '#include "/etc/hostname"\n',
        "include-other-entry": '#include "../greedy/bot.c"\n',
        "incbin-other-entry": incbin("../greedy/bot.c"),
        "incbin-host-file": incbin(str(host_secret)),
        "incbin-etc-shadow": incbin("/etc/shadow"),
        "incbin-proc": incbin("/proc/self/environ"),
    }[attack] + TAIL
    if ROOT or "other-entry" in attack:
        ok, stage, message = build(sandbox, tmp_path, "thief", source)
        assert not ok and stage == "compile", message
        assert "No such file or directory" in message or "file not found" in message, message
        assert SECRET not in message
        if "hostname" in attack:
            hostname = Path("/etc/hostname").read_text().strip()
            assert f"\n{hostname}" not in message and f"'{hostname}'" not in message, message
    else:
        pytest.skip("without root the compiler can still name host files by absolute path")


def test_a_clean_entry_still_builds_and_loads(sandbox: LocalSandbox, tmp_path: Path) -> None:
    ok, stage, message = build(sandbox, tmp_path, "clean", "#include <stdlib.h>\n" + TAIL)
    assert ok and stage == "ok", message


def test_a_gigabyte_fill_stops_at_the_file_size_limit(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    source = '__asm__(".section .rodata\\n.fill 1 << 30, 1, 0x41\\n.text");\n' + TAIL
    ok, stage, message = build(sandbox, tmp_path, "filler", source)
    assert not ok and stage == "compile", message
    assert "ran out of room" in message, message
    written = sum(p.stat().st_size for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert written < ARTIFACT_CAP, f"{written} bytes reached the build folder"


# -- the walls, tried directly ------------------------------------------------------------------


def jailed(
    tmp_path: Path,
    script: str,
    wall_s: float = 30,
    artefacts: tuple[str, ...] = (),
    helper: str | None = None,
) -> JailedBuild:
    """Run a shell step in the jail on a private copy holding ``bot.c``, started by ``helper``
    (None: forked by the jail)."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "bot.c").write_text(TAIL)
    steps = [["/bin/sh", "-c", script]]
    return run_build(work, steps, list(artefacts), wall_s, 1 << 16, 1 << 20, helper)


@pytest.fixture(params=["helper", "fork"])
def starter(request: pytest.FixtureRequest) -> str | None:
    """What starts each step: the compiled helper (runner/jail/jailstep.c, what the local
    sandbox passes), or a fork of the jail (where the helper cannot be had)."""
    if request.param == "fork":
        return None
    helper = step_helper()
    assert helper is not None, "the step helper does not compile here"
    return helper


@root_only
def test_the_build_sees_only_the_toolchain_and_its_copy(
    tmp_path: Path, starter: str | None
) -> None:
    done = jailed(
        tmp_path,
        "ls -A /; echo; ls -A /build; echo; ls -A /dev; echo; id -u; id -G",
        helper=starter,
    )
    assert done.failed_step is None, done.output
    view, build_dir, dev, ids = done.output.split("\n\n")
    names = set(view.split())
    toolchain = {"bin", "build", "dev", "lib", "lib32", "lib64", "libx32", "sbin", "tmp", "usr"}
    helper = {buildjail.HELPER_IN_JAIL.lstrip("/")} if starter else set()
    assert names <= toolchain | helper
    assert {"usr", "build", "tmp", "dev"} | helper <= names
    assert build_dir.split() == ["bot.c"] and dev.split() == ["null"]
    uid, groups = ids.split("\n")[:2]
    assert int(uid) >= zygote.UID_BASE and groups.strip() == uid.strip()


@root_only
def test_the_build_has_its_own_uid_scheme_shared_with_the_bots() -> None:
    assert buildjail.UID_BASE == zygote.UID_BASE, "a build's uid must never be a live bot's"


@root_only
def test_the_build_has_no_network(tmp_path: Path, starter: str | None) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        script = (
            '/usr/bin/python3 -c \'import socket; socket.create_connection(("127.0.0.1", '
            f"{port}), timeout=2)' && echo CONNECTED"
        )
        done = jailed(tmp_path, script, helper=starter)
    finally:
        server.close()
    assert "CONNECTED" not in done.output and done.failed_step == 0, done.output


@root_only
def test_the_usr_view_is_read_only_and_the_copy_is_private(
    tmp_path: Path, starter: str | None
) -> None:
    script = "echo x > /usr/koth-probe; echo changed > bot.c; echo tmp > /tmp/t"
    if starter:
        script += f"; echo x > {buildjail.HELPER_IN_JAIL} || echo helper-kept"
    done = jailed(tmp_path, script, helper=starter)
    assert "Read-only file system" in done.output, done.output
    assert bool(starter) == ("helper-kept" in done.output), done.output
    assert starter is None or Path(starter).read_bytes()[:4] == b"\x7fELF"
    assert not Path("/usr/koth-probe").exists()
    assert (tmp_path / "work" / "src" / "bot.c").read_text() == TAIL, "the copy must be private"


@root_only
def test_the_number_of_processes_is_limited(tmp_path: Path, starter: str | None) -> None:
    done = jailed(
        tmp_path,
        "for i in $(seq 40); do sleep 30.25 >/dev/null 2>&1 & done; echo started",
        helper=starter,
    )
    assert "fork" in done.output.lower() or "resource" in done.output.lower(), done.output
    assert marked_processes("30.25") == [], "the sleepers must be killed with the step"


def marked_processes(marker: str, grace_s: float = 5.0) -> list[int]:
    """The live processes whose command line holds ``marker``, once a killed process has had
    ``grace_s`` to finish exiting (SIGKILL is delivered at once, but the kernel tears a process
    down after kill() has returned; every marked process sleeps far longer than the grace)."""
    give_up = time.monotonic() + grace_s
    while (found := _marked_now(marker)) and time.monotonic() < give_up:
        time.sleep(0.02)
    return found


def _marked_now(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except (OSError, ValueError):
            continue
    return found


@root_only
def test_no_build_process_outlives_its_step(tmp_path: Path, starter: str | None) -> None:
    script = "setsid sleep 987.654 </dev/null >/dev/null 2>&1 & echo started"
    done = jailed(tmp_path, script, helper=starter)
    assert done.failed_step is None and "started" in done.output, done.output
    assert marked_processes("987.654") == [], "a process of the build survived it"


@root_only
def test_a_build_process_cannot_stop_the_jail(tmp_path: Path, starter: str | None) -> None:
    """A process of the build sends SIGSTOP to the jail in a loop (as a subverted compiler pass
    could): the jail never takes the build's uid, so none arrives, and the build ends as usual
    (when the jail took that uid for a moment to kill the build's processes, it was stopped
    there every time, and the build hung)."""
    stopper = (
        "/usr/bin/python3 -c 'import os, signal, sys\n"
        "while True:\n"
        "    try: os.kill(int(sys.argv[1]), signal.SIGSTOP)\n"
        "    except OSError: pass\n' $PPID </dev/null >/dev/null 2>&1 & sleep 0.3; echo started"
    )
    for attempt in range(3):
        done = jailed(tmp_path / str(attempt), stopper, wall_s=5, helper=starter)
        assert done.failed_step is None and "started" in done.output, done.output


@root_only
def test_a_step_has_the_same_walls_whoever_starts_it(tmp_path: Path) -> None:
    """The helper raises the walls the jail's fork did: rlimits, credentials, descriptors."""
    probe = "ulimit -a; echo; id -u; id -G; echo x >&3 && echo fd3-open; cat; echo end"
    shown = []
    for name, helper in (("helped", step_helper()), ("forked", None)):
        done = jailed(tmp_path / name, probe, helper=helper)
        assert done.failed_step is None and done.output.endswith("end\n"), done.output
        limits, ids = done.output.split("\n\n")
        uid, groups = ids.split("\n")[:2]
        assert int(uid) >= zygote.UID_BASE and groups == uid, ids
        assert "fd3-open" not in ids, "a descriptor beyond stderr was left open"
        shown.append([line for line in limits.splitlines() if "cpu" not in line.lower()])
    assert shown[0] == shown[1]
    assert any("core" in line.lower() and line.split()[-1] == "0" for line in shown[0])
    assert any(line.split()[-1] == str(buildjail.FILES) for line in shown[0]), shown[0]


def test_a_helper_that_cannot_run_leaves_the_step_to_a_fork(tmp_path: Path) -> None:
    helper = tmp_path / "not-a-program"
    helper.write_text("no program\n")
    done = jailed(tmp_path, "echo fine", helper=str(helper))
    assert done.failed_step is None and "fine" in done.output, done.output


def test_the_local_sandbox_starts_steps_with_the_helper(
    sandbox: LocalSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helpers: list[str | None] = []
    real = buildjail.run_build

    def spy(*args: Any) -> JailedBuild:
        helpers.append(args[6])  # work, steps, artefacts, wall, caps, then the helper
        return real(*args)

    monkeypatch.setattr(buildjail, "run_build", spy)
    ok, _, message = build(sandbox, tmp_path, "plain", TAIL)
    assert ok, message
    assert helpers == [step_helper()] and helpers[0] is not None


def test_the_wall_clock_limit_ends_the_build(tmp_path: Path, starter: str | None) -> None:
    done = jailed(tmp_path, "sleep 120.5", wall_s=2, helper=starter)
    assert done.failed_step == 0 and done.timed_out
    assert "ran longer than 2 s" in done.output
    assert marked_processes("120.5") == []


def test_the_file_size_limit_stops_a_large_write(tmp_path: Path, starter: str | None) -> None:
    script = f"yes | head -c {buildjail.FILE_SIZE + (1 << 20)} > big"
    done = jailed(tmp_path, script, helper=starter)
    assert done.failed_step == 0 and "ran out of room" in done.output, done.output


@pytest.mark.parametrize(
    ("script", "note"),
    [
        ("ln -s /etc/passwd bot.o", "bot.o is a symbolic link"),
        ("mkfifo bot.o", "bot.o is not a regular file"),
        (f"yes | head -c {(1 << 20) + 1} > bot.o", "bot.o is larger than the 1 MiB cap"),
    ],
)
def test_only_regular_artefacts_under_the_cap_come_back(
    script: str, note: str, tmp_path: Path
) -> None:
    done = jailed(tmp_path, script, artefacts=("bot.o",))
    assert done.artefacts == () and note in done.output, done.output
    assert done.failed_step is not None
    assert list((tmp_path / "work" / "out").iterdir()) == []


def test_an_artefact_comes_back_as_a_regular_file(tmp_path: Path) -> None:
    done = jailed(tmp_path, "printf ok > bot.o", artefacts=("bot.o", "bot.so"))
    assert done.failed_step is None and done.artefacts == ("bot.o",)
    assert (tmp_path / "work" / "out" / "bot.o").read_bytes() == b"ok"


def test_the_jail_program_is_standalone() -> None:
    """It runs as its own program (`python3 -I`): nothing but the standard library."""
    done = subprocess.run(
        ["/usr/bin/python3", "-I", "-S", buildjail.__file__],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "usage" in done.stderr, done.stderr


def test_each_served_build_is_a_process_of_its_own(tmp_path: Path) -> None:
    """The server forks each build: two builds have two pids (and, as root, two uids), and
    neither is the server."""
    first = jailed(tmp_path / "a", "echo $PPID; id -u")
    second = jailed(tmp_path / "b", "echo $PPID; id -u")
    assert first.failed_step is None and second.failed_step is None, first.output
    server = buildjail._SERVERS[0].process.pid
    (pid_a, uid_a), (pid_b, uid_b) = (done.output.split()[:2] for done in (first, second))
    assert len({pid_a, pid_b, str(server)}) == 3, (pid_a, pid_b, server)
    if ROOT:
        assert uid_a != uid_b


def test_a_build_server_that_died_is_started_again(tmp_path: Path) -> None:
    assert jailed(tmp_path / "a", "true").failed_step is None
    buildjail._SERVERS[0].process.kill()
    buildjail._SERVERS[0].process.wait()
    done = jailed(tmp_path / "b", "echo again")
    assert done.failed_step is None and "again" in done.output, done.output


def test_the_build_server_ends_with_its_host(tmp_path: Path) -> None:
    """A host killed with SIGKILL leaves no build server behind."""
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from runner.sandbox import buildjail\n"
            f"work = Path({str(tmp_path / 'work')!r}); (work / 'src').mkdir(parents=True)\n"
            "buildjail.run_build(work, [['true']], [], 30, 1024, 1024)\n"
            "print(buildjail._SERVERS[0].process.pid, flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert host.stdout is not None
    server = int(host.stdout.readline())
    assert Path(f"/proc/{server}").exists()
    host.kill()
    host.wait()
    deadline = time.monotonic() + 10
    while alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(server), "the build server outlived koth"
