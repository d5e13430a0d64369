"""The build stage: manifests, compiler errors, the static check, the load probe, the cache."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner.games.snakes import SPEC as SNAKES
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import discover, load_entry

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)
MANIFEST = "name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
GOOD = (
    "int bot(int board[16][32], char player) { (void)board; (void)player; return 'R'; }\n"
    'char *bot_name = "Good";\n'
)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[LocalSandbox]:
    box = LocalSandbox()
    yield box
    box.close()


def entry(root: Path, name: str, source: str | None, manifest: str | None = None) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    if source is not None:
        (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(MANIFEST.format(name=name) if manifest is None else manifest)
    return folder


def test_a_good_entry_builds_and_reports_its_bot_name(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    build = build_entry(
        load_entry(entry(tmp_path, "good", GOOD)), tmp_path / "b", sandbox, LIMITS, 60, SNAKES
    )
    assert build.ok and build.stage == "ok", build.message
    assert build.display_name == "Good"
    assert (build.jail_path / "bot.so").is_file()


def test_a_wrong_signature_is_refused_with_the_expected_prototype(
    any_sandbox: Any, tmp_path: Path
) -> None:
    """The issue's mistake (board[32][16], an int player, a char returned) compiles alone; the
    game's declarations, included before bot.c, refuse it and show what was expected."""
    wrong = GOOD.replace(
        "int bot(int board[16][32], char player)", "char bot(int board[32][16], int player)"
    )
    build = build_entry(
        load_entry(entry(tmp_path, "wrong", wrong)), tmp_path / "b", any_sandbox, LIMITS, 60, SNAKES
    )
    assert not build.ok and build.stage == "compile", build.message
    assert "conflicting types for" in build.message, build.message
    assert "int bot(int board[16][32], char player);" in build.message, build.message
    name = GOOD.replace('char *bot_name = "Good"', 'char bot_name[] = "Good"')  # not a pointer
    build = build_entry(
        load_entry(entry(tmp_path, "name", name)), tmp_path / "c", any_sandbox, LIMITS, 60, SNAKES
    )
    assert not build.ok and "extern char *bot_name;" in build.message, build.message


def test_const_tables_and_helper_functions_are_allowed(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    source = (
        "static const int dx[4] = {1, -1, 0, 0};\n"
        'static const char *const names[] = {"L", "R"};\n'
        "static int pick(int v) { return dx[v & 3]; }\n"
        "int bot(int board[16][32], char player) { (void)player; "
        "return pick(board[0][0]) > 0 ? names[1][0] : 'D'; }\n"
        'char *bot_name = "Tables";\n'
    )
    build = build_entry(
        load_entry(entry(tmp_path, "tables", source)), tmp_path / "b", sandbox, LIMITS, 60, SNAKES
    )
    assert build.ok, build.message


def test_compiler_errors_are_shown_verbatim(sandbox: LocalSandbox, tmp_path: Path) -> None:
    source = "int bot(int board[16][32], char player) { return undefined_thing; }\n"
    build = build_entry(
        load_entry(entry(tmp_path, "broken", source)), tmp_path / "b", sandbox, LIMITS, 60, SNAKES
    )
    assert not build.ok and build.stage == "compile"
    assert "bot.c:1:" in build.message and "undefined_thing" in build.message, build.message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("int bot(int b[16][32], char p) { (void)b; (void)p; return 'L'; }\n", "no `bot_name`"),
        ('char *bot_name = "x";\n', "no function `bot`"),
        (
            "#include <stdlib.h>\n__attribute__((constructor)) void boom(void) { abort(); }\n"
            + GOOD,
            "constructors and destructors",
        ),
        (
            "_Thread_local int t;\n"
            "int bot(int b[16][32], char p) { (void)b; (void)p; return t; }\n"
            'char *bot_name = "x";\n',
            "thread-local variable `t`",
        ),
    ],
)
def test_static_check_refusals_name_the_symbol(
    source: str, expected: str, sandbox: LocalSandbox, tmp_path: Path
) -> None:
    build = build_entry(
        load_entry(entry(tmp_path, "refused", source)), tmp_path / "b", sandbox, LIMITS, 60, SNAKES
    )
    assert not build.ok and build.stage == "check", build.message
    assert expected in build.message, build.message


def test_a_bot_that_crashes_while_loading_is_refused(sandbox: LocalSandbox, tmp_path: Path) -> None:
    source = "int bot(int b[16][32], char p) { (void)b; (void)p; return 'L'; }\n"
    source += "char *bot_name = (char *)16;\n"  # reading the name faults
    build = build_entry(
        load_entry(entry(tmp_path, "boom", source)), tmp_path / "b", sandbox, LIMITS, 60, SNAKES
    )
    assert not build.ok and build.stage == "load", build.message
    assert "SIGSEGV while loading" in build.message


def test_builds_are_cached_by_content_hash(sandbox: LocalSandbox, tmp_path: Path) -> None:
    folder = entry(tmp_path, "cached", GOOD)
    first = build_entry(load_entry(folder), tmp_path / "b", sandbox, LIMITS, 60, SNAKES)
    stamp = os.stat(tmp_path / "b" / "cached" / "bot.o").st_mtime_ns
    again = build_entry(load_entry(folder), tmp_path / "b", sandbox, LIMITS, 60, SNAKES)
    assert again == first
    assert os.stat(tmp_path / "b" / "cached" / "bot.o").st_mtime_ns == stamp, "rebuilt needlessly"
    (folder / "bot.c").write_text(GOOD.replace("'R'", "'D'"))
    changed = build_entry(load_entry(folder), tmp_path / "b", sandbox, LIMITS, 60, SNAKES)
    assert changed.content_hash != first.content_hash and changed.ok


@pytest.mark.parametrize(
    ("name", "manifest", "source", "expected"),
    [
        ("nomani", "", GOOD, "must be a mapping"),
        ("mismatch", MANIFEST.format(name="other"), GOOD, "field `name` is 'other'"),
        ("extra", MANIFEST.format(name="extra") + "colour: red\n", GOOD, "unknown field `colour`"),
        ("nosource", None, None, "nosource/bot.c is missing"),
        ("badlang", MANIFEST.format(name="badlang").replace("c\n", "cobol\n"), GOOD, "cobol"),
        ("Bad Name", MANIFEST.format(name="Bad Name"), GOOD, "not a valid entry name"),
        # nested past the YAML parser's recursion, into itself, or (nine aliases of nine aliases
        # ...) into 86 million values: refused, not a traceback or a hang
        ("deep", "name: " + "[" * 5000 + "]" * 5000 + "\n", GOOD, "levels deep"),
        ("cycle", "name: &a [*a]\n", GOOD, "inside themselves"),
        (
            "laughs",
            "name: &a [x, x]\n"
            + "".join(
                f"k{n}: &{chr(98 + n)} [{', '.join([f'*{chr(97 + n)}'] * 9)}]\n" for n in range(8)
            ),
            GOOD,
            "repeat its values exponentially",
        ),
    ],
)
def test_malformed_entries_get_one_sentence_naming_file_and_fix(
    name: str, manifest: str | None, source: str | None, expected: str, tmp_path: Path
) -> None:
    entry(tmp_path, name, source, manifest)
    (found,) = discover(tmp_path / "entries")
    assert found.problem is not None and expected in found.problem, found.problem
    assert "Fix:" in found.problem


def test_malformed_entry_is_a_build_verdict_not_an_exception(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    folder = entry(tmp_path, "mismatch", GOOD, MANIFEST.format(name="other"))
    build = build_entry(load_entry(folder), tmp_path / "b", sandbox, LIMITS, 60, SNAKES)
    assert not build.ok and build.stage == "entry" and "Fix:" in build.message


@pytest.mark.skipif(os.geteuid() != 0, reason="the namespace and cgroup walls are root-only")
def test_as_root_every_wall_is_up(sandbox: LocalSandbox) -> None:
    zygote = sandbox.zygote
    assert zygote.netns, "root should get a private network namespace per bot"
    assert zygote.memory_cgroups, "root should get a memory cgroup per bot"


def test_its_owner_removes_a_build_with_a_read_only_jail(tmp_path: Path) -> None:
    """A rebuild (an edited entry) removes the old build, whose jail is read-only: without root,
    deleting inside a 0555 folder is refused unless the folder is made writable first."""
    from runner.season.build import remove_build

    root = os.geteuid() == 0
    # As root nothing is refused: the build is removed by an ordinary user who owns it (in a
    # folder of /tmp that user may enter; pytest's own are root's alone).
    base = Path(tempfile.mkdtemp()) if root else tmp_path
    build = base / "mybot"
    (build / "jail").mkdir(parents=True)
    (build / "jail" / "bot.so").write_bytes(b"\x7fELF")
    (build / "jail" / "bot.so").chmod(0o444)
    (build / "jail").chmod(0o555)
    if not root:
        remove_build(build)
    else:
        for path in (base, build, build / "jail", build / "jail" / "bot.so"):
            os.chown(path, 65534, 65534)
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's exit status is the result
            try:
                os.setgid(65534)
                os.setuid(65534)
                remove_build(build)
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(child, 0)
        exists = build.exists()
        shutil.rmtree(base)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the owner could not remove it"
    assert not build.exists() and not (root and exists), "the old build is gone"
