"""`koth --help` lists the commands by who runs them, a bot author's first: every command is in
one group, and the author's group holds only what an author needs."""

from __future__ import annotations

import pytest

from runner.cli.main import GROUPS, build_parser, main


def test_the_help_lists_every_command_once_by_who_runs_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: koth [-h] [--version] COMMAND ...")
    titles = [title for title, _ in GROUPS]
    assert [text.index(f"\n{title}:\n") for title in titles] == sorted(
        text.index(f"\n{title}:\n") for title in titles
    ), "the groups in order"
    authors = text.split(f"\n{titles[0]}:\n")[1].split("\n\n")[0].split("\n")
    assert [line.split()[0] for line in authors] == ["new", "play", "replay"]
    listed = [name for _, names in GROUPS for name in names]
    assert len(listed) == len(set(listed)), "a command in two groups"
    parser = build_parser()
    every = {name for action in parser._actions for name in getattr(action, "choices", None) or ()}
    assert set(listed) == every, "every command is listed, and only those"


def test_a_commands_own_help_names_it_after_koth(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["season", "--help"])
    assert capsys.readouterr().out.startswith("usage: koth season ")
