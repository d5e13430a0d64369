"""`koth comment`: the entry check's report as one comment on its pull request, kept up to date.
A real HTTP server on this machine stands in for GitHub's REST API (its address in
GITHUB_API_URL, as the Actions runner sets it); what the check left is a stranger's."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_pr_changes import preview_doc

from runner.cli import comment
from runner.cli.main import main

SHA = "a" * 40
OWNER, BRANCH, REPO = "mallory", "my-bot", "koth-org/koth"


class FakeGitHub:
    """The pull requests and comments of one repository, over the REST calls koth makes."""

    def __init__(self) -> None:
        self.pulls: list[dict[str, Any]] = [
            {"number": 7, "head": {"sha": SHA, "ref": BRANCH}, "labels": [], "user": OWNER}
        ]
        self.comments: dict[int, list[dict[str, Any]]] = {7: []}
        self.calls: list[tuple[str, str]] = []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> Any:
                return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                hub.calls.append(("GET", self.path))
                assert self.headers["Authorization"] == "Bearer the-token"
                path, _, query = self.path.partition("?")
                if path == f"/repos/{REPO}/pulls":
                    head = dict(p.split("=", 1) for p in query.split("&"))["head"]
                    owner, branch = head.replace("%3A", ":").split(":")
                    found = [
                        p for p in hub.pulls if p["user"] == owner and p["head"]["ref"] == branch
                    ]
                    self._answer(200, found)
                    return
                match = re.fullmatch(rf"/repos/{REPO}/issues/(\d+)/comments", path)
                if match:
                    self._answer(200, hub.comments[int(match[1])])
                    return
                self._answer(404, {"message": "Not Found"})

            def do_POST(self) -> None:  # noqa: N802
                hub.calls.append(("POST", self.path))
                match = re.fullmatch(rf"/repos/{REPO}/issues/(\d+)/comments", self.path)
                assert match, self.path
                made = {"id": 100 + len(hub.calls), "body": self._body()["body"]}
                made["user"] = {"login": comment.BOT, "type": "Bot"}
                hub.comments[int(match[1])].append(made)
                self._answer(201, made)

            def do_PATCH(self) -> None:  # noqa: N802
                hub.calls.append(("PATCH", self.path))
                match = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)", self.path)
                assert match, self.path
                for found in hub.comments.values():
                    for c in found:
                        if c["id"] == int(match[1]):
                            c["body"] = self._body()["body"]
                            self._answer(200, c)
                            return
                self._answer(404, {"message": "Not Found"})

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    hub = FakeGitHub()
    monkeypatch.setenv("GITHUB_API_URL", hub.url)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("GITHUB_TOKEN", "the-token")
    yield hub
    hub.server.shutdown()
    hub.server.server_close()


def check_files(folder: Path, doc: Any) -> Path:
    """What pr.yml's check leaves for the comment: its preview folder."""
    preview = folder / "preview"
    preview.mkdir(parents=True, exist_ok=True)
    (preview / "preview.json").write_text(json.dumps(doc))
    return preview


def run(preview: Path, sha: str = SHA) -> int:
    head = ["--head-owner", OWNER, "--head-branch", BRANCH, "--head-sha", sha]
    return main(["comment", "--preview", str(preview), *head, "--run-url", "https://run/1"])


def test_one_comment_on_the_pull_request_updated_on_every_push(
    tmp_path: Path, github: FakeGitHub
) -> None:
    preview = check_files(tmp_path, preview_doc(["mine"]))
    assert run(preview) == 0
    (made,) = github.comments[7]
    assert made["body"].startswith(comment.MARKER)
    assert "entry check ✅ passed" in made["body"] and "| mine | Mine | ✅ builds" in made["body"]
    assert "[The check's run](https://run/1)" in made["body"]
    failing = preview_doc(["mine"])
    failing["changed"][0].update(ok=False, stage="build", message="bot.c:1: error")
    check_files(tmp_path, failing)
    assert run(preview) == 0
    (updated,) = github.comments[7]
    assert updated["id"] == made["id"] and "❌ failed" in updated["body"], "updated, not added"
    assert [c[0] for c in github.calls].count("POST") == 1


def test_a_marker_written_by_someone_else_is_not_the_checks_comment(
    tmp_path: Path, github: FakeGitHub
) -> None:
    spoof = {"id": 5, "body": comment.MARKER + " mine", "user": {"login": OWNER, "type": "User"}}
    github.comments[7].append(spoof)
    assert run(check_files(tmp_path, preview_doc(["mine"]))) == 0
    assert spoof["body"] == comment.MARKER + " mine", "another's comment is never edited"
    assert (
        len(github.comments[7]) == 2
        and ("PATCH", "/repos/koth-org/koth/issues/comments/5") not in github.calls
    )


def test_a_check_of_an_older_commit_comments_on_nothing(
    tmp_path: Path, github: FakeGitHub, capsys: Any
) -> None:
    assert run(check_files(tmp_path, preview_doc(["mine"])), sha="b" * 40) == 0
    assert github.comments[7] == [] and "nothing is commented" in capsys.readouterr().err


def test_what_the_check_left_mentions_nobody_and_cannot_break_the_comment(
    tmp_path: Path, github: FakeGitHub
) -> None:
    doc = preview_doc(["mine"])
    doc["changed"][0]["display_name"] = "@everyone [x](https://evil.example) <img src=x>"
    doc["changed"][0]["message"] = "@org/team look"
    preview = check_files(tmp_path, doc)
    assert run(preview) == 0
    text = github.comments[7][0]["body"]
    assert not re.search(r"@(?!\u2060)", text), "every @ is followed by a word joiner"
    assert "<img" not in text and "](https://evil" not in text
    check_files(tmp_path, {"changed": [{"entry": 3}], "not_played": "x"})  # not preview.json's
    assert run(preview) == 0
    assert "the entry check's report could not be read" in github.comments[7][0]["body"]
    (preview / "preview.json").unlink()  # the check stopped before its preview
    assert run(preview) == 0
    assert "the entry check did not finish" in github.comments[7][0]["body"]
    assert len(github.comments[7]) == 1


def test_a_refusing_github_fails_the_step_and_bad_arguments_are_said(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("GITHUB_REPOSITORY", "koth-org/elsewhere")  # the fake answers 404
    assert run(check_files(tmp_path, preview_doc(["mine"]))) == 1
    said = capsys.readouterr().err
    assert "nothing was commented" in said and "404" in said and "the-token" not in said
    assert run(tmp_path / "preview", sha="not-a-sha") == 2
    assert "--head-sha (40 hex digits)" in capsys.readouterr().err
