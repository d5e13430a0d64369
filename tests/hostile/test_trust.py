"""The supervisor trusts nothing a bot can touch: one test per class of attack, in both sandboxes
and for both kinds of bot (C functions playing Snakes, programs playing Cluster).

Each attack bot (tests/hostile/*.c, tests/hostile/programs/*.py) answers an invalid move if its
attack worked, so a hole shows as a loss instead of passing silently; a bot that must lose is
checked for the reason in words. Every game is played under a guard: a host that hangs fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from runner.games import find_game
from runner.games.base import Termination
from runner.play.referee import GameResult, play_game
from runner.sandbox import cgroups
from runner.sandbox.zygote_client import BotLimits, BotProcess
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
# The kinds of bot: a C function (Snakes), a C program and a Python program (Cluster).
GAMES = {"c": "snakes-v2", "cprog": "cluster-v2", "python": "cluster-v2"}
LANGUAGES = {"c": "c", "cprog": "c", "python": "python"}
C_LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
LIMITS = {
    "c": C_LIMITS,
    "cprog": C_LIMITS,
    # Wall-clock limits wide enough for a loaded machine.
    "python": BotLimits(
        move_cpu_s=0.1,
        game_cpu_s=30.0,
        move_wall_s=0.5,
        memory_bytes=256 << 20,
        first_move_wall_s=2.0,
    ),
}
GUARD_S = 60.0  # far beyond any limit: a game still running then means the host hung


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_sandbox")


@pytest.fixture(params=["c", "python"])
def kind(request: pytest.FixtureRequest) -> str:
    """The kind of bot: a C function (Snakes) or a Python program (Cluster)."""
    return str(request.param)


def source_of(kind: str, name: str) -> str:
    if kind == "c":
        return (HERE / f"{name}.c").read_text()
    return (PROGRAMS / "cluster_io.py").read_text() + "\n" + (PROGRAMS / f"{name}.py").read_text()


def build(sandbox: Any, root: Path, kind: str, name: str, source: str | None = None) -> Build:
    """The entry ``name`` of ``kind`` built, from ``source`` (else tests/hostile's file)."""
    folder = root / "entries" / f"{name}-{kind}"
    folder.mkdir(parents=True, exist_ok=True)
    language = LANGUAGES[kind]
    (folder / ("bot.py" if language == "python" else "bot.c")).write_text(
        source if source is not None else source_of(kind, name)
    )
    (folder / "entry.yaml").write_text(
        f"name: {folder.name}\nauthor: tests\ndescription: an attack\nlanguage: {language}\n"
    )
    game = find_game(GAMES[kind])
    built = build_entry(load_entry(folder), root / "build", sandbox, LIMITS[kind], 60, game)
    assert built.ok, f"{name} should build: {built.message}"
    return built


def play(
    sandbox: Any, kind: str, builds: list[Build], limits: BotLimits | None = None, seed: int = 1
) -> GameResult:
    """One game, under a guard: a host that hangs fails the test instead of the suite."""
    players = [b.player() for b in builds]
    done: list[GameResult | BaseException] = []

    def game() -> None:
        try:
            done.append(
                play_game(find_game(GAMES[kind]), players, sandbox, limits or LIMITS[kind], seed)
            )
        except BaseException as exc:  # reported below, in the test's thread
            done.append(exc)

    thread = threading.Thread(target=game, daemon=True)
    thread.start()
    thread.join(GUARD_S)
    assert done, f"the game did not end within {GUARD_S:g} s: the host hung"
    if isinstance(done[0], BaseException):
        raise done[0]
    return done[0]


@dataclass(frozen=True)
class Loss:
    kind: str
    bot: str
    termination: Termination
    detail: str  # a regex the outcome's detail must match


def assert_loses(result: GameResult, expected: Loss) -> None:
    outcome = result.outcome
    assert outcome.faulty == 0 and outcome.points == (0.0, 1.0), (
        f"{expected.bot} must lose, but: {outcome.detail} (moves {list(result.moves[:12])}, "
        f"CPU {result.cpu_s}, wall {result.wall_s:.3f} s, output {result.output})"
    )
    assert outcome.termination is expected.termination, (
        f"{expected.bot} should lose by {expected.termination.value}, got "
        f"{outcome.termination.value}: {outcome.detail}"
    )
    assert re.search(expected.detail, outcome.detail), f"unexpected reason: {outcome.detail!r}"


def assert_plays_on(result: GameResult, bot: str) -> None:
    outcome = result.outcome
    assert outcome.faulty is None and not outcome.termination.is_fault, (
        f"{bot} should play on unharmed (its attack failing quietly), but: {outcome.detail}"
    )


# -- 1. every byte to or from a bot moves under that move's watchdog -----------------------------

UNREAD = [
    Loss("c", "prewrite", Termination.DISCONNECT, r"replied before it was asked at turn 2$"),
    # Whether its first lines are there before the host's first message (and so which turn it
    # loses at) is a race with the interpreter's start; that it loses, and why, is not.
    Loss("python", "noread", Termination.DISCONNECT, r"replied before it was asked at turn [123]$"),
    # Shrinking its pipe races with the host's first write (the kernel refuses to shrink a pipe
    # below what it holds): it loses unheard either way (test_a_bot_that_reads_nothing_...
    # below pins the unread write itself).
    Loss(
        "python",
        "deaf",
        Termination.TIMEOUT,
        r"(does not read its input|no reply within 2 s of wall-clock time) at turn 1$",
    ),
]


@pytest.mark.parametrize("case", UNREAD, ids=lambda c: f"{c.kind}-{c.bot}")
def test_a_bot_that_does_not_read_or_replies_ahead_loses(
    case: Loss, sandbox: Any, tmp_path: Path
) -> None:
    attacker = build(sandbox, tmp_path, case.kind, case.bot)
    steady = build(sandbox, tmp_path, case.kind, "steady")
    result = play(sandbox, case.kind, [attacker, steady])
    if case.bot == "noread" and result.outcome.faulty is None:
        # Kept off the CPU between its moves (as root) on a busy machine, a bot writing as fast
        # as it can may write only once it is asked: then no reply came ahead, and its
        # ROTATE 1 for ever loses by the rules. Either way it gains nothing.
        assert result.outcome.points == (0.0, 1.0), f"noread must lose: {result.outcome.detail}"
        assert set(result.moves[::2]) == {"ROTATE 1"}, "each of its moves is the one line it writes"
        return
    assert_loses(result, case)


def test_a_bot_that_shuts_its_output_is_waited_for_without_spinning(
    kind: str, sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its end of the output channel closed, the host's end reads as ended at every poll: the
    host must not wake on it again and again (a core spun for as long as the bot slept) while
    the bot takes its time over its next replies."""
    attacker = build(sandbox, tmp_path, kind, "outputeof")
    steady = build(sandbox, tmp_path, kind, "steady")
    looks: list[int] = []
    drain = BotProcess.drain_output

    def counted(process: BotProcess, cap: int, reads: int | None = None) -> None:
        looks.append(process.output_fd)
        drain(process, cap, reads)

    monkeypatch.setattr(BotProcess, "drain_output", counted)
    assert_plays_on(play(sandbox, kind, [attacker, steady]), "outputeof")
    # A handful of looks at the output per game (its end seen once, the last words at the
    # close); a host spinning on the ended channel looks thousands of times while it sleeps.
    assert len(looks) <= 10, f"the host looked at the bots' output {len(looks)} times"


# -- 2. a bot's exit status is the bot's ---------------------------------------------------------


def test_a_bot_that_exits_with_the_sandboxs_old_failure_code_just_loses(
    kind: str, sandbox: Any, tmp_path: Path
) -> None:
    attacker = build(sandbox, tmp_path, kind, "exit98")
    steady = build(sandbox, tmp_path, kind, "steady")
    result = play(sandbox, kind, [attacker, steady])
    assert_loses(result, Loss(kind, "exit98", Termination.CRASH, r"exited with code 98 at turn 1$"))


# -- 3. no bot reaches its supervisor, its blanks or any other process ---------------------------


def test_a_bot_cannot_reach_its_supervisor_or_any_other_process(
    kind: str, sandbox: Any, tmp_path: Path
) -> None:
    attacker = build(sandbox, tmp_path, kind, "hijack")
    steady = build(sandbox, tmp_path, kind, "steady")
    assert_plays_on(play(sandbox, kind, [attacker, steady]), "hijack")
    # The supervisor is intact: the same container (or zygote) plays the next game.
    assert_plays_on(play(sandbox, kind, [attacker, steady], seed=2), "hijack")


def test_a_bot_cannot_read_another_entrys_build(kind: str, sandbox: Any, tmp_path: Path) -> None:
    """Every entry's build in one folder (a Docker sandbox serves it to every container): no
    bot reads another's, up from its own jail or by any path to where the container mounts
    them. (An opponent's C function, loaded, would tell every move it is about to make.)"""
    steady = build(sandbox, tmp_path, kind, "steady")
    attacker = build(sandbox, tmp_path, kind, "peek")
    serve = getattr(sandbox, "serve", None)
    if serve is not None:
        serve(tmp_path / "build")
    assert_plays_on(play(sandbox, kind, [attacker, steady]), "peek")
    assert_plays_on(play(sandbox, kind, [steady, attacker], seed=2), "peek")


def test_calls_a_bot_has_no_business_making_fail_with_eperm(sandbox: Any, tmp_path: Path) -> None:
    attacker = build(sandbox, tmp_path, "c", "syscalls")
    steady = build(sandbox, tmp_path, "c", "steady")
    result = play(sandbox, "c", [attacker, steady])
    assert "returned 69 ('E')" not in result.outcome.detail, (
        f"a forbidden call failed, but not with EPERM: {result.outcome.detail}"
    )
    assert_plays_on(result, "syscalls")


# -- 4. nothing a bot creates survives its game --------------------------------------------------


def test_no_state_survives_between_games_in_ipc(kind: str, sandbox: Any, tmp_path: Path) -> None:
    attacker = build(sandbox, tmp_path, kind, "ipcstate")
    steady = build(sandbox, tmp_path, kind, "steady")
    for seed in (1, 2, 3):
        assert_plays_on(play(sandbox, kind, [attacker, steady], seed=seed), "ipcstate")
    if sandbox.name == "local":
        segments = Path("/proc/sysvipc/shm").read_text()
        assert not re.search(r"^\s*(1802465384|1802465385)\s", segments, re.M), (
            "a bot's shared memory segment outlived its game"
        )


# -- 5. no thinking on the opponent's clock ------------------------------------------------------

OPPONENT = {"c": "sleepy", "python": "sleepy"}


def reported_cpu(output: str) -> float:
    """The last CPU figure an off-turn bot printed about itself."""
    figures = re.findall(r"cpu (\d+\.\d+)", output)
    assert figures, f"the bot printed no CPU figure: {output[:200]!r}"
    return float(figures[-1])


def test_cpu_used_between_moves_counts_against_the_next_move(
    kind: str, sandbox: Any, tmp_path: Path
) -> None:
    """The opponent sleeps 150-200 ms over each of its first moves, and the attacker burns CPU
    all that time; 30 ms a move is far less than it gets even on a busy machine."""
    attacker = build(sandbox, tmp_path, kind, "offturn")
    sleepy = build(sandbox, tmp_path, kind, OPPONENT[kind])
    tight = replace(LIMITS[kind], move_cpu_s=0.03)
    result = play(sandbox, kind, [attacker, sleepy], limits=tight)
    assert_loses(
        result,
        Loss(
            kind,
            "offturn",
            Termination.TIMEOUT,
            r"used over 30 ms of CPU between its moves, before turn [2-6]$",
        ),
    )


def test_the_record_counts_every_cpu_second_a_bot_used(
    kind: str, sandbox: Any, tmp_path: Path
) -> None:
    attacker = build(sandbox, tmp_path, kind, "offturn")
    sleepy = build(sandbox, tmp_path, kind, OPPONENT[kind])
    roomy = replace(LIMITS[kind], move_cpu_s=1.0, move_wall_s=2.0)
    result = play(sandbox, kind, [attacker, sleepy], limits=roomy)
    used = reported_cpu(result.output[0])
    assert used > 0.3, f"the attack should have burnt real CPU, it reports {used:.3f} s"
    assert result.cpu_s[0] >= 0.8 * used, (
        f"the record says {result.cpu_s[0]:.3f} s of CPU; the bot used {used:.3f} s"
    )


def test_a_bot_that_reads_nothing_cannot_hold_a_write(sandbox: Any, tmp_path: Path) -> None:
    """A message far larger than a pipe holds, to a bot that never reads: the host gives up at
    the move's wall-clock limit instead of blocking in write()."""
    from runner.play.faults import BotTimeout
    from runner.play.stdio import StdioBot

    deaf = build(sandbox, tmp_path, "python", "deaf")
    limits = replace(LIMITS["python"], first_move_wall_s=None, move_wall_s=0.5)
    bot = StdioBot(sandbox.spawn(deaf.jail_path, limits, list(deaf.program or ())), limits, "deaf")
    try:
        bot.start()
        with pytest.raises(BotTimeout, match=r"^does not read its input at turn 1$"):
            bot.ask(b"x" * (4 << 20), 1)
    finally:
        bot.close()


def test_what_a_bot_leaves_charged_to_its_memory_group_is_not_the_next_bots(
    sandbox: Any, tmp_path: Path
) -> None:
    """A bot that leaves ~100 MB of kernel objects charged to its memory group as it ends (the
    dentries of names it looked up): the next bot starts in a group (locally, runner/jail/
    zygote.py) or container (Docker) charged with no more than an eighth of its limit above
    what a fresh one holds, never with what the last bot left."""
    roomy = replace(LIMITS["python"], move_cpu_s=10.0, move_wall_s=20.0, first_move_wall_s=20.0)
    source = source_of("python", "kernelhog").replace("@NONCE@", uuid.uuid4().hex)
    hog = build(sandbox, tmp_path, "python", "kernelhog", source.replace("@NAMES@", "250000"))
    steady = build(sandbox, tmp_path, "python", "steady")

    def charged_as_a_bot_starts() -> int:
        process = sandbox.spawn(steady.jail_path, roomy, list(steady.program or ()))
        try:
            process.ready()
            assert process.host_pid is not None, "the bot should have started"
            group = cgroups.find(process.host_pid, "memory")
            assert group is not None, "a bot runs in a memory group (root, or a container)"
            charged = group.memory_in_use()
            assert charged is not None
            return charged
        finally:
            process.close()

    fresh = charged_as_a_bot_starts()
    result = play(sandbox, "python", [hog, steady], limits=roomy)
    assert "looked up 250000 names" in result.output[0], result.output[0][-300:]
    after = charged_as_a_bot_starts()
    assert after <= fresh + roomy.memory_bytes // 8, (
        f"the next bot started with {after >> 20} MiB charged to its group, "
        f"{(after - fresh) >> 20} MiB more than a fresh one"
    )
