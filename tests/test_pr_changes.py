"""The pull-request check names what a pull request does to entries it did not add (issue 45).

One pull request deleted two existing bots, sabotaged a third and added its own: its summary said
"entry check ✅ passed" and named no deletion; one that only deleted entries exited 0 with "no
entry to check". Now `koth changed --changes FILE` finds every entry of the base the branch
removes, renames or edits, with the author its entry.yaml names, and `koth report --changes FILE`
lists them at the top of the summary and fails until an organiser approves (``--approved true``:
the workflow passes whether the pull request carries the label ``approve-entry-changes``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_workflows import FIXTURES, git, koth, make_repo

from runner.cli import workflows


def branch(tmp_path: Path, entries: list[str]) -> Path:
    """A repository whose main branch has these example entries, on a new branch."""
    repo = make_repo(tmp_path / "repo", entries)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    git(repo, "checkout", "-qb", "change")
    return repo


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")


def test_changed_names_the_existing_entries_a_branch_removes_renames_or_edits(
    tmp_path: Path,
) -> None:
    repo = branch(tmp_path, ["greedy", "random", "turtle"])
    (repo / "entries" / "greedy" / "bot.c").write_text("int bot;\n")  # sabotaged
    shutil.rmtree(repo / "entries" / "random")
    git(repo, "mv", "entries/turtle", "entries/tortoise")
    manifest = repo / "entries" / "tortoise" / "entry.yaml"
    manifest.write_text(manifest.read_text().replace("name: turtle", "name: tortoise"))
    shutil.copytree(FIXTURES / "rookie", repo / "entries" / "rookie")
    commit(repo)
    done = koth("changed", "--base", "main", "--changes", "changes.json", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["greedy", "rookie", "tortoise"]
    for line in (
        "it edits greedy (by koth examples)",
        "it removes random (by koth examples)",
        "it renames turtle (by koth examples) to tortoise",
    ):
        assert line in done.stderr, done.stderr
    doc = json.loads((repo / "changes.json").read_text())
    assert doc["added"] == ["rookie", "tortoise"]
    assert [(e["entry"], e["change"], e["to"]) for e in doc["existing"]] == [
        ("greedy", "edits", None),
        ("random", "removes", None),
        ("turtle", "renames", "tortoise"),
    ]


def test_an_entry_the_branch_adds_and_edits_is_its_own(tmp_path: Path) -> None:
    repo = branch(tmp_path, ["greedy"])
    shutil.copytree(FIXTURES / "rookie", repo / "entries" / "rookie")
    commit(repo)
    (repo / "entries" / "rookie" / "bot.c").write_text("int bot;\n")
    commit(repo)
    done = koth("changed", "--base", "main", "--changes", "changes.json", cwd=repo)
    assert done.returncode == 0 and "did not add" not in done.stderr
    assert json.loads((repo / "changes.json").read_text())["existing"] == []


def test_a_pull_request_that_only_removes_entries_says_so_and_waits_for_approval(
    tmp_path: Path,
) -> None:
    repo = branch(tmp_path, ["greedy", "random", "turtle"])
    shutil.rmtree(repo / "entries" / "random")
    shutil.rmtree(repo / "entries" / "turtle")
    commit(repo)
    done = koth("changed", "--base", "main", "--as-output", "e", "--changes", "c.json", cwd=repo)
    assert done.returncode == 0 and done.stdout == "e=\n"
    assert koth("preview", "--entries", "", "--out", "preview", cwd=repo).returncode == 0
    report = ["ci", "report", "--preview", "preview", "--changes", "c.json"]
    done = koth(*report, "--summary", "summary.md", "--approved", "false", cwd=repo)
    assert done.returncode == 1, done.stdout
    summary = (repo / "summary.md").read_text()
    assert summary.startswith("## koth: this pull request adds or edits no entry\n\n### ⚠️")
    assert "| random | koth examples | removes it |" in summary
    assert "| turtle | koth examples | removes it |" in summary
    assert "it only removes entries" in summary and "❌ Not approved" in summary
    done = koth(*report, "--summary", "approved.md", "--approved", "true", cwd=repo)
    assert done.returncode == 0, done.stdout
    assert "✅ Approved by an organiser" in (repo / "approved.md").read_text()


def preview_doc(changed: list[str]) -> dict[str, Any]:
    return {
        "changed": [
            {
                "entry": name,
                "ok": True,
                "stage": "ok",
                "summary": "ok",
                "message": "built",
                "display_name": name.title(),
            }
            for name in changed
        ],
        "excluded_others": [],
        "not_played": [],
        "games_scheduled": 2,
        "games_played": 2,
        "season_seed": 1,
        "site": None,
    }


THE_ISSUE = [  # deleted two existing bots, sabotaged a third
    workflows.Existing("greedy", "Ada", "removes"),
    workflows.Existing("random", "Bo", "removes"),
    workflows.Existing("turtle", "Cy", "edits"),
]


@pytest.mark.parametrize("approved", [False, True])
def test_the_summary_names_the_changes_first_and_passes_only_when_approved(
    approved: bool,
) -> None:
    text = workflows.report_markdown(
        preview_doc(["turtle", "mine"]), None, "a", None, THE_ISSUE, approved
    )
    head, _, rest = text.partition("| entry | bot | verdict |")
    assert head.startswith("## koth: entry check " + ("✅ passed" if approved else "❌ needs"))
    for row in ("| greedy | Ada | removes it |", "| random | Bo | removes it |"):
        assert row in head, "named above the verdicts"
    assert "| turtle | Cy | edits it |" in head
    assert ("✅ Approved" in head) is approved and ("❌ Not approved" in head) is not approved
    assert "| mine | Mine | ✅ builds" in rest


def test_a_changes_file_that_cannot_be_read_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from runner.cli.main import main

    folder = tmp_path / "preview"
    folder.mkdir()
    (folder / "preview.json").write_text(json.dumps(preview_doc(["mine"])))
    (tmp_path / "changes.json").write_text('{"existing": [{"entry": 1}]}')
    argv = ["report", "--preview", str(folder), "--changes", str(tmp_path / "changes.json")]
    assert main([*argv, "--approved", "true"]) == 1
    out = capsys.readouterr().out
    assert "could not be read" in out and "entry check ❌ needs an organiser" in out
    assert workflows.read_changes(tmp_path / "missing.json") is None
