"""Entry folders are input from strangers (runner/common/safefiles.py): regular files and folders
only, nothing followed, every read capped — at discovery, in the content hash, in the site's
source view and in a pull request's list of changed entries."""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from runner.cli import workflows
from runner.common import safefiles
from runner.common.safefiles import (
    UnsafeFileError,
    read_beneath,
    read_capped,
    read_tree,
    shown_text,
    tree_hash,
)
from runner.games.snakes import SPEC as SNAKES
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import discover, find, load_entry
from runner.site.render import entries_info_from

GOOD = (
    "int bot(int board[16][32], char player) { (void)board; (void)player; return 'R'; }\n"
    'char *bot_name = "Good";\n'
)
SECRET = "koth-secret-4711"
LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)


def entry(root: Path, name: str, source: str | None = GOOD) -> Path:
    folder = root / "entries" / name
    folder.mkdir(parents=True)
    if source is not None:
        (folder / "bot.c").write_text(source)
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a test bot\nlanguage: c\n"
    )
    return folder


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "host-secret.txt"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("KOTH_TEST_TOKEN", SECRET)
    yield


def fifo(path: Path) -> None:
    os.mkfifo(path)


def unix_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.close()


# Each way of putting something other than a regular file where bot.c should be.
BAD_SOURCES: dict[str, tuple[Callable[[Path, Path], object], str]] = {
    "link-to-etc-passwd": (lambda p, _: p.symlink_to("/etc/passwd"), "is a symbolic link"),
    "link-to-environ": (lambda p, _: p.symlink_to("/proc/self/environ"), "is a symbolic link"),
    "link-to-dev-zero": (lambda p, _: p.symlink_to("/dev/zero"), "is a symbolic link"),
    "link-to-other-entry": (lambda p, _: p.symlink_to("../greedy/bot.c"), "is a symbolic link"),
    "link-to-host-file": (lambda p, s: p.symlink_to(s), "is a symbolic link"),
    "hard-link-is-a-copy": (lambda p, s: os.link(s, p), ""),  # a regular file: its own bytes
    "fifo": (lambda p, _: fifo(p), "is a FIFO"),
    "socket": (lambda p, _: unix_socket(p), "is a socket"),
    "oversized": (
        lambda p, _: p.write_bytes(b"/" * (safefiles.FILE_CAP + 1)),
        f"is larger than {safefiles.FILE_CAP} bytes",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SOURCES))
def test_a_source_that_is_not_a_plain_regular_file_is_refused_at_discovery(
    case: str, tmp_path: Path, secret_file: Path, secret_env: None
) -> None:
    entry(tmp_path, "greedy")
    folder = entry(tmp_path, "evil", source=None)
    make, expected = BAD_SOURCES[case]
    make(folder / "bot.c", secret_file)
    found = {e.name: e for e in discover(tmp_path / "entries")}
    evil = found["evil"]
    if not expected:  # a hard link is an ordinary file: the entry has its own copy of the bytes
        assert evil.problem is None
        return
    assert evil.problem is not None and evil.manifest is None, "the entry must be refused"
    assert evil.problem.startswith(f"evil/bot.c {expected}"), evil.problem
    assert "\n" not in evil.problem and "Fix:" in evil.problem
    assert found["greedy"].problem is None, "a neighbour of a refused entry is unaffected"
    # The site's entry page shows no source and nothing of what the link points at.
    info = entries_info_from(tmp_path / "entries")["evil"]
    assert info.source == "" and SECRET not in info.verdict and "root:" not in info.verdict
    assert info.verdict == evil.problem


def test_a_refused_entry_is_a_build_verdict(tmp_path: Path, secret_file: Path) -> None:
    folder = entry(tmp_path, "evil", source=None)
    (folder / "bot.c").symlink_to(secret_file)
    box = LocalSandbox()
    try:
        build = build_entry(load_entry(folder), tmp_path / "b", box, LIMITS, 60, SNAKES)
    finally:
        box.close()
    assert not build.ok and build.stage == "entry"
    assert "symbolic link" in build.message and SECRET not in build.message


def test_an_entry_folder_that_is_a_link_is_refused_and_never_walked(tmp_path: Path) -> None:
    entries = tmp_path / "entries"
    entry(tmp_path, "greedy")
    (entries / "root").symlink_to("/")
    (entries / "twin").symlink_to("greedy")
    (entries / ".hidden").symlink_to("/")  # hidden names are not entries, as before
    found = {e.name: e for e in discover(entries)}
    assert sorted(found) == ["greedy", "root", "twin"]
    for name in ("root", "twin"):
        problem = found[name].problem
        assert problem is not None and problem.startswith(f"{name} is a symbolic link"), problem
    assert find(entries, "root").problem == found["root"].problem


def test_a_folder_link_inside_an_entry_is_refused(tmp_path: Path) -> None:
    folder = entry(tmp_path, "deep")
    (folder / "lib").mkdir()
    (folder / "lib" / "up").symlink_to("/")
    (found,) = discover(tmp_path / "entries")
    assert found.problem is not None and found.problem.startswith("deep/lib/up is a symbolic link")


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_is_refused_without_being_opened(tmp_path: Path) -> None:
    folder = entry(tmp_path, "device", source=None)
    os.mknod(folder / "bot.c", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # like /dev/zero
    (found,) = discover(tmp_path / "entries")
    assert found.problem is not None and found.problem.startswith("device/bot.c is a device")


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Opening a FIFO for reading would wait for a writer forever: it is never opened."""
    folder = entry(tmp_path, "pipe", source=None)
    os.mkfifo(folder / "bot.c")
    result: list[str | None] = []
    worker = threading.Thread(target=lambda: result.append(load_entry(folder).problem))
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the reader so the test run can end, then fail
        with open(folder / "bot.c", "wb"):
            pass
        pytest.fail("discovery blocked on a FIFO")
    assert result and result[0] is not None and "FIFO" in result[0]


def test_an_entry_over_the_total_cap_is_refused(tmp_path: Path) -> None:
    folder = entry(tmp_path, "bulky")
    for i in range(3):
        (folder / f"data{i}.h").write_bytes(b"/" * (safefiles.TOTAL_CAP // 2))
    (found,) = discover(tmp_path / "entries")
    assert found.problem == (
        f"bulky/ holds more than {safefiles.TOTAL_CAP} bytes. "
        f"Fix: keep an entry under {safefiles.TOTAL_CAP} bytes."
    )


def test_too_many_files_or_folders_too_deep_are_refused(tmp_path: Path) -> None:
    many = entry(tmp_path, "many")
    for i in range(safefiles.MAX_FILES):
        (many / f"f{i}.h").write_text("")
    deep = entry(tmp_path, "deep")
    nested = deep.joinpath(*["d"] * (safefiles.MAX_DEPTH + 1))
    nested.mkdir(parents=True)
    found = {e.name: e.problem for e in discover(tmp_path / "entries")}
    assert found["many"] is not None and f"more than {safefiles.MAX_FILES} files" in found["many"]
    assert found["deep"] is not None and f"more than {safefiles.MAX_DEPTH} folders" in found["deep"]


def test_the_content_hash_covers_paths_and_bytes_of_regular_files(tmp_path: Path) -> None:
    folder = entry(tmp_path, "hashed")
    (folder / "lib").mkdir()
    (folder / "lib" / "util.h").write_text("#define X 1\n")
    expected = hashlib.sha256()
    for relative in ("bot.c", "entry.yaml", "lib/util.h"):
        expected.update(relative.encode() + b"\0" + (folder / relative).read_bytes() + b"\0")
    assert load_entry(folder).content_hash == expected.hexdigest()
    before = load_entry(folder).content_hash
    (folder / "lib" / "util.h").write_text("#define X 2\n")
    assert load_entry(folder).content_hash != before


def test_a_refused_entry_gets_a_new_hash_when_fixed(tmp_path: Path, secret_file: Path) -> None:
    folder = entry(tmp_path, "fixme", source=None)
    (folder / "bot.c").symlink_to(secret_file)
    refused = load_entry(folder)
    (folder / "bot.c").unlink()
    (folder / "bot.c").write_text(GOOD)
    fixed = load_entry(folder)
    assert fixed.problem is None and fixed.content_hash != refused.content_hash


def test_read_beneath_follows_no_link_on_the_way(tmp_path: Path, secret_file: Path) -> None:
    folder = entry(tmp_path, "walk")
    (folder / "up").symlink_to(secret_file.parent)
    with pytest.raises(UnsafeFileError, match="walk/up is a symbolic link"):
        read_beneath(folder, f"up/{secret_file.name}")
    with pytest.raises(UnsafeFileError, match="not a plain relative path"):
        read_beneath(folder, f"../../{secret_file.name}")
    linked = tmp_path / "linked"
    linked.symlink_to(folder)
    with pytest.raises(UnsafeFileError, match="linked is a symbolic link"):
        read_beneath(linked, "bot.c")
    assert read_beneath(folder, "bot.c") == GOOD.encode()


def test_read_capped_never_reads_past_the_cap(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    assert read_capped(big, 101) == b"x" * 101
    with pytest.raises(UnsafeFileError, match="larger than 100 bytes"):
        read_capped(big, 100)
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnsafeFileError, match="is a symbolic link"):
        read_capped(link, 1 << 30)
    with pytest.raises(UnsafeFileError, match="is a device"):
        read_capped("/dev/zero", 1 << 30)


def test_two_trees_never_share_a_hash_through_a_nul_in_a_file() -> None:
    """A NUL in a file's bytes could pass for the end of that file and the start of another
    (``mode.h`` holding what the pair ``mode.h``, ``zz`` holds): their hashes differ. A tree
    with no NUL in its files keeps the hash it always had (cached builds and games stand)."""
    pair = {"mode.h": b"#define X 1 //", "zz": b"int y;"}
    one = {"mode.h": b"#define X 1 //\0zz\0int y;"}
    assert tree_hash(pair) != tree_hash(one)
    assert tree_hash(pair) == hashlib.sha256(b"mode.h\0#define X 1 //\0zz\0int y;\0").hexdigest()
    assert tree_hash({"a": b"\0"}) != tree_hash({"a": b"", "": b""})


def test_read_tree_reads_regular_files_in_path_order(tmp_path: Path) -> None:
    folder = entry(tmp_path, "tree")
    (folder / "a").mkdir()
    (folder / "a" / "z.h").write_text("z")
    (folder / "a.h").write_text("a")
    assert list(read_tree(folder)) == ["a/z.h", "a.h", "bot.c", "entry.yaml"]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


def test_a_pull_request_adding_a_link_as_an_entry_has_it_checked(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    entry(repo, "greedy")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "main")
    git(repo, "checkout", "-qb", "change")
    (repo / "entries" / "root").symlink_to("/")
    (repo / "entries" / "README.md").write_text("not an entry\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "change")
    changes = workflows.changed_entries(repo / "entries", "main")
    assert changes.present == ["root"] and changes.removed == []
    assert changes.outside == ["README.md"]


@pytest.mark.parametrize("raw", [b"new\nline", b"bad-\xff-utf8", b"tab\tname"])
def test_any_bytes_may_name_an_entry_folder_and_it_is_refused_readably(
    raw: bytes, tmp_path: Path
) -> None:
    entries = tmp_path / "entries"
    entries.mkdir()
    os.mkdir(os.path.join(os.fsencode(entries), raw))
    (found,) = discover(entries)
    assert found.name.isprintable() and found.name.encode("utf-8")
    assert found.problem is not None and "not a valid entry name" in found.problem
    assert "\n" not in found.problem
    box = LocalSandbox()
    try:
        build = build_entry(found, tmp_path / "b", box, LIMITS, 60, SNAKES)
    finally:
        box.close()
    assert not build.ok and build.stage == "entry"


def test_a_file_name_that_is_not_printable_text_is_refused(tmp_path: Path) -> None:
    folder = entry(tmp_path, "oddfile")
    with open(os.path.join(os.fsencode(folder), b"x\xff\n.h"), "wb") as handle:
        handle.write(b"int x;\n")
    (found,) = discover(tmp_path / "entries")
    assert found.problem is not None and "not printable text" in found.problem
    assert found.problem.isprintable()


def test_text_from_a_stranger_is_printed_without_its_control_characters() -> None:
    """Line breaks and tabs stay (a CRLF source's line endings too); escapes, bells,
    backspaces, a lone carriage return and bidirectional overrides are written out."""
    said = "a\tb\r\nc\x1b[2J\x07\x08\rd\u202eé"
    assert shown_text(said) == "a\tb\nc\\x1b[2J\\x07\\x08\\rd\\u202eé"
    assert shown_text("plain text, ünïcode") == "plain text, ünïcode"


def test_a_preview_prints_a_failed_entrys_message_escaped_under_its_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The message of a changed entry that failed (a compiler quoting its source) is printed
    under the line naming it, each of its lines indented, with its control characters written
    out: the pull request's log shows it, and cannot be rewritten by it."""
    doc = {
        "changed": [
            {
                "entry": "bad",
                "ok": False,
                "stage": "compile",
                "message": "bot.c:1: error\n  \x1b]0;T\x07 here",
            }
        ],
        "not_played": [],
        "games_played": 0,
        "games_scheduled": 0,
    }
    workflows.print_preview(workflows.PreviewResult(doc))
    out = capsys.readouterr().out
    assert "\n        bot.c:1: error\n          \\x1b]0;T\\x07 here\n" in out, out
    assert "\x1b" not in out and "\x07" not in out
