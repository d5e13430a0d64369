"""`koth comment`: the entry check's report as one comment on its pull request, updated on every
push rather than added again.

The comment workflow (.github/workflows/pr-comment.yml) runs on ``workflow_run``: it runs the
default branch's code with a token that may write to pull requests, after the check ran the pull
request's own code. So everything the check left behind (preview.json, standings.json,
changes.json in its artifact) is a stranger's: it is read capped, rendered by the same code as the
check's summary (every text escaped), any malformed part turns the report into a line saying so,
and no mention in it reaches anyone (an ``@`` is followed by a word joiner). Which pull request to
comment on comes from the event (the head repository's owner, branch and commit), never from
the artifact: the open pull request whose head is that very commit, or none (the branch has
moved on: the newer run comments). The comment is found again by a marker in a comment by the
Actions bot only, so a marker someone else writes is never taken for it.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.cli import workflows
from runner.common import web
from runner.common.documents import load_json

MARKER = "<!-- koth: entry check -->"
PREVIEW_ARTIFACT = "preview-site"  # the check's preview site (pr.yml), linked from the report
BOT = "github-actions[bot]"  # who comments with the workflow's token
BODY_CAP = 60_000  # characters of a comment (GitHub takes 65,536)
ANSWER_CAP = 8 << 20  # bytes of one API answer read
PAGES = 30  # pages of 100 comments looked through for the last one
TIMEOUT_S = 30.0
WORD_JOINER = "\u2060"


class CommentError(Exception):
    """The API refused or could not be reached (said in one line, without the token)."""


@dataclass(frozen=True)
class Head:
    """The commit a check ran on, as the ``workflow_run`` event names it."""

    owner: str  # the head repository's owner (a fork's, or the base repository's)
    branch: str
    sha: str


class GitHub:
    """The few REST calls the comment needs, with the workflow's token."""

    def __init__(self, api: str, repository: str, token: str) -> None:
        self.api, self.repository, self.token = api.rstrip("/"), repository, token

    def call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        url = f"{self.api}/repos/{self.repository}/{path}"
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("User-Agent", "koth")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            answer = web.send(request, TIMEOUT_S, ANSWER_CAP)
        except web.RequestError as exc:
            raise CommentError(f"{method} {path}: GitHub {exc}") from None
        if len(answer) > ANSWER_CAP:
            raise CommentError(f"{method} {path}: GitHub's answer is over {ANSWER_CAP} bytes")
        try:
            return load_json(answer.decode("utf-8")) if answer.strip() else None
        except ValueError:
            raise CommentError(f"{method} {path}: GitHub's answer is not JSON") from None


def pull_request(github: GitHub, head: Head) -> dict[str, Any] | None:
    """The open pull request whose head is ``head``'s commit, or None."""
    query = urllib.parse.urlencode(
        {"state": "open", "head": f"{head.owner}:{head.branch}", "per_page": "100"}
    )
    found = github.call("GET", f"pulls?{query}")
    for pull in found if isinstance(found, list) else []:
        if isinstance(pull, dict) and (pull.get("head") or {}).get("sha") == head.sha:
            return pull
    return None


def own_comment(github: GitHub, number: int) -> int | None:
    """The id of the check's comment on pull request ``number`` (the Actions bot's, with the
    marker), or None."""
    for page in range(1, PAGES + 1):
        found = github.call("GET", f"issues/{number}/comments?per_page=100&page={page}")
        if not isinstance(found, list):
            return None
        for comment in found:
            if (
                isinstance(comment, dict)
                and (comment.get("user") or {}).get("login") == BOT
                and (comment.get("user") or {}).get("type") == "Bot"
                and MARKER in str(comment.get("body", ""))
                and isinstance(comment.get("id"), int)
            ):
                return int(comment["id"])
        if len(found) < 100:
            return None
    return None


def unmentioned(text: str) -> str:
    """``text`` with every ``@`` followed by a word joiner: it reads the same and notifies
    nobody (a user, a team, a bot)."""
    return text.replace("@", "@" + WORD_JOINER)


def body(preview: Path, changes: Path | None, approved: bool, run_url: str | None) -> str:
    """The comment: the check's report made from the artifact's files (``changes``: what
    `koth changed --changes` wrote, if the check got that far), or a line saying they could not
    be read."""
    doc, standings = workflows.read_preview(preview)
    existing = workflows.read_changes(changes) if changes is not None and changes.is_file() else []
    try:
        text = workflows.report_markdown(
            doc, standings, PREVIEW_ARTIFACT, run_url, existing, approved
        )
    except (KeyError, TypeError, AttributeError, ValueError, IndexError):
        text = (
            "## koth: the entry check's report could not be read\n\n"
            "What the check left for this comment is not what `koth preview` writes. "
            "The check's own page says what happened."
        )
    if run_url:
        text += f"\n\n[The check's run]({run_url})"
    text = unmentioned(text)
    if len(text) > BODY_CAP:
        text = text[:BODY_CAP] + "\n\n… (cut: the whole report is on the check's run page)"
    return f"{MARKER}\n{text}"


def comment(
    github: GitHub, head: Head, preview: Path, changes: Path | None, run_url: str | None
) -> str:
    """Write or update the check's comment on the pull request of ``head``; what was done."""
    pull = pull_request(github, head)
    if pull is None or not isinstance(pull.get("number"), int):
        return f"no open pull request has the head {head.sha[:12]}: nothing is commented"
    number = int(pull["number"])
    labels = {
        str(label.get("name")) for label in pull.get("labels") or [] if isinstance(label, dict)
    }
    text = body(preview, changes, workflows.APPROVAL_LABEL in labels, run_url)
    found = own_comment(github, number)
    if found is None:
        github.call("POST", f"issues/{number}/comments", {"body": text})
        return f"commented on pull request #{number}"
    github.call("PATCH", f"issues/comments/{found}", {"body": text})
    return f"updated the comment on pull request #{number}"
