"""The commands the GitHub workflows run (`koth changed`, `preview`, `report`, `plan`, `shards`,
`image`, `restore`, `restore-history`, `announce`, `comment`, and `koth ci`, which runs any of
them with a log safe for GitHub Actions); what they do is in runner/cli/workflows.py,
runner/cli/shards.py, runner/cli/comment.py and runner/site/announce.py."""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runner.cli.arguments import (
    DEFAULT_CONFIG,
    UsageError,
    config_of,
    options,
    say,
    stage,
    subcommand,
)


@contextmanager
def ci_errors() -> Iterator[None]:
    from runner.cli.workflows import CiError

    try:
        yield
    except CiError as exc:
        raise UsageError(str(exc)) from None


def cmd_changed(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    config = config_of(args)
    with ci_errors():
        changes = workflows.changed_entries(config.entries, args.base, args.head)
    say(f"changed entries: {workflows.encode_names(changes.present) or 'none'}")
    for name in changes.removed:
        say(f"removed (nothing to check): {workflows.encode_names([name])}")
    for change in changes.existing:
        say(f"an entry this change did not add: it {workflows.existing_words(change)}")
    if args.changes is not None:
        workflows.write_changes(args.changes, changes)
    if args.as_output:
        print(f"{args.as_output}={workflows.encode_names(changes.present)}")
    else:
        for name in changes.present:
            print(workflows.encode_names([name]))
    if changes.outside:
        listed = ", ".join(f"{config.entries.name}/{path}" for path in changes.outside)
        say(
            f"koth: this change touches {listed}, in no entry folder: no entry check covers it, "
            "and a file there (a .gitattributes) can change how other entries are checked out. "
            f"Fix: change only {config.entries.name}/<name>/ folders here; anything else in "
            f"{config.entries.name}/ goes in a pull request of its own, for an organiser to review."
        )
        return 1
    return 0


def cmd_preview(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    with ci_errors():
        names = workflows.decode_names(args.entries)
    if not names:
        say("preview: no entry to check")
    with stage(args) as (config, sandbox, pool), ci_errors():
        result = workflows.preview(config, names, args.out, sandbox, pool, say=say)
    workflows.print_preview(result)
    return 1 if result.failed else 0


def cmd_report(args: argparse.Namespace) -> int:

    from runner.cli import workflows

    doc, standings = workflows.read_preview(args.preview)
    existing = workflows.read_changes(args.changes) if args.changes is not None else []
    approved = (args.approved or "").strip().lower() == "true"
    text = workflows.report_markdown(
        doc, standings, args.artifact, workflows.run_url(os.environ), existing, approved
    )
    if args.summary is None:
        print(text)
    else:
        with open(args.summary, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"report written to {args.summary}")
    for change in existing or ():
        print(f"an entry this pull request did not add: it {workflows.existing_words(change)}")
    waiting = existing is None or (bool(existing) and not approved)
    if existing is None:
        say(f"{args.changes} is not what `koth changed --changes` writes: the check fails")
    elif waiting:
        say(
            f"the pull request needs an organiser's approval (the label {workflows.APPROVAL_LABEL})"
        )
    if doc is None:
        say(f"no preview in {args.preview}/ (run `koth preview` first)")
        return 1
    for change in doc["changed"]:
        verdict = (
            "ok" if change["ok"] else "FAILED: " + workflows.STAGE_WORDS.get(change["stage"], "")
        )
        print(f"{change['entry']}: {verdict}")
    return 1 if workflows.failed(doc) or waiting else 0


def cmd_plan(args: argparse.Namespace) -> int:
    from runner.cli import stages, workflows

    with ci_errors():
        args.seed = workflows.optional_int("--seed", args.seed)
        args.rounds = workflows.optional_int("--rounds", args.rounds)
    config = config_of(args)
    stages.say_randomness(config, say)
    # One line each (tournament.yaml's paths hold no line break: runner/season/config.py).
    for name, value in workflows.plan_outputs(config, args.host or "").items():
        print(f"{name}={value}")
    return 0


def cmd_shards(args: argparse.Namespace) -> int:
    from runner.cli import shards
    from runner.cli.organiser import lineup_of

    try:
        count = shards.given_count(args.shards)
    except shards.ShardsError as exc:
        raise UsageError(str(exc)) from None
    with stage(args) as (config, sandbox, pool):
        line = lineup_of(args, config, sandbox, pool)
        todo, cost = shards.to_play(config, line, say)
        jobs = pool.workers
    sizes = shards.size(todo, jobs, count)
    for line_ in shards.words(sizes, jobs, cost, count is not None):
        say(line_)
    text = "".join(f"{name}={value}\n" for name, value in sizes.outputs().items())
    if args.output is None:
        print(text, end="")
    else:
        with open(args.output, "a", encoding="utf-8") as handle:
            handle.write(text)
    return 0


def cmd_image(args: argparse.Namespace) -> int:
    from runner.cli import workflows
    from runner.season.workers import season_languages

    with ci_errors():
        found = args.config is not None or DEFAULT_CONFIG.is_file()
        wanted = season_languages(config_of(args)) if found else ()
        print(workflows.sandbox_image(say, save=args.save, load=args.load, wanted=wanted))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from runner.site import publish

    publish.restore(args.site or "", args.key, args.out, say)
    return 0


def cmd_restore_history(args: argparse.Namespace) -> int:
    from runner.site import publish

    publish.restore_history(args.site or "", args.out, say)
    return 0


WEBHOOK_VARIABLE = "KOTH_DISCORD_WEBHOOK"
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")


def cmd_announce(args: argparse.Namespace) -> int:
    from runner.rank import history
    from runner.site import announce

    webhook = os.environ.get(WEBHOOK_VARIABLE, "").strip()
    if not (webhook or args.dry_run):
        say(f"no webhook is set ({WEBHOOK_VARIABLE}): nothing is posted")
        return 0
    if os.environ.get("GITHUB_EVENT_NAME", "") in PULL_REQUEST_EVENTS:
        say("a pull request's run never posts: nothing is posted")
        return 0
    if args.site_url and urlsplit(args.site_url).scheme not in ("https", "http"):
        raise UsageError(f"koth announce: --site-url {args.site_url!r} is not an http(s) address.")
    before = history.read(args.before, say) if args.before else []
    found = announce.news(before, history.read(args.after, say))
    if found is None:
        say(f"no season in {args.after} is new since {args.before}: nothing is posted")
        return 0
    text = announce.message(found, args.site_url)
    if args.dry_run:
        print(text)
        return 0
    try:
        announce.post(webhook, announce.payload(text))
    except announce.PostError as exc:
        say(f"koth announce: the news was not posted: {exc}.")
        return 1
    say(f"posted the news of the {found.season['game']} season of {found.season['date']}")
    return 0


def cmd_comment(args: argparse.Namespace) -> int:
    from runner.cli import comment

    token = os.environ.get("GITHUB_TOKEN", "")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com")
    if not token or not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise UsageError(
            "koth comment: GITHUB_TOKEN and GITHUB_REPOSITORY (owner/name) must be set: it runs "
            "in the comment workflow (.github/workflows/pr-comment.yml)."
        )
    if (
        not re.fullmatch(r"[0-9a-f]{40}", args.head_sha)
        or not args.head_owner
        or not args.head_branch
    ):
        raise UsageError(
            "koth comment: --head-sha (40 hex digits), --head-owner and --head-branch name the "
            "commit the check ran on (the workflow_run event's)."
        )
    head = comment.Head(args.head_owner, args.head_branch, args.head_sha)
    try:
        said = comment.comment(
            comment.GitHub(api, repository, token), head, args.preview, args.changes, args.run_url
        )
    except comment.CommentError as exc:
        say(f"koth comment: nothing was commented: {exc}.")
        return 1
    say(said)
    return 0


def cmd_ci(args: argparse.Namespace, run: Callable[[list[str]], int]) -> int:
    """``run`` (koth's own main) on the command named, its output safe for the workflow's log."""
    from runner.cli import workflows

    if not args.argv or args.argv[0] == "ci":
        raise UsageError("koth ci: name the koth command to run, e.g. `koth ci standings`.")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    with workflows.stopped_commands():
        return run(args.argv)


def add_ci_commands(commands: Any, run: Callable[[list[str]], int]) -> None:
    """The workflows' commands; ``run``: koth's main, which `koth ci` runs a command with."""
    add = functools.partial(subcommand, commands)

    changed = add(
        "changed",
        "list the entries a branch adds or edits (git diff against a base)",
        "Print the entry folders under the entries folder that differ between the merge "
        "base of --base and --head (default HEAD), one per line; removed entries, and every "
        "existing entry the branch removes, renames or edits (with its author), are "
        "mentioned on stderr and, with --changes FILE, written to FILE for `koth report`. "
        "Names are URL-quoted (a valid entry name is printed as is). With --as-output NAME, "
        "print one line NAME=a,b instead, the format of "
        "$GITHUB_OUTPUT. Exits 1 when the branch also changes anything under the entries "
        "folder outside an entry folder (a .gitattributes, a file or hidden folder there): no "
        "entry check covers it, so it is for an organiser to review. Needs the base commit in "
        "the clone (fetch-depth: 0).",
    )
    options(changed)
    changed.add_argument("--base", required=True, help="the base commit or branch (the PR's)")
    changed.add_argument("--head", default="HEAD", help="the commit checked (default: HEAD)")
    changed.add_argument("--as-output", metavar="NAME", help="print NAME=a,b for $GITHUB_OUTPUT")
    changed.add_argument(
        "--changes",
        type=Path,
        metavar="FILE",
        help="write the entries the branch adds, and the existing ones it removes, renames or "
        "edits (with their authors), to FILE for `koth report --changes FILE`",
    )
    changed.set_defaults(func=cmd_changed)

    prev = add(
        "preview",
        "build, check and play the named entries against every other entry",
        "Build and check every entry (cached, as `koth check`), then play each named "
        "entry that passes against every entry that plays, in both seats, with the "
        "season's seeds and keys, into OUT/results.jsonl (a re-run plays only what is "
        "missing). Writes OUT/standings.json for those games, their site in OUT/site/ "
        "and OUT/preview.json for `koth report`. Exits 1 if a named entry does not build, "
        "is refused by the static check or fails a smoke game.",
    )
    options(prev, "seed", "rounds", "jobs")
    prev.add_argument(
        "--entries", required=True, help="entry names, comma-separated (as `koth changed` prints)"
    )
    prev.add_argument(
        "--out", type=Path, default=Path("preview"), help="the preview folder (default: preview)"
    )
    prev.set_defaults(func=cmd_preview)

    rep = add(
        "report",
        "the preview's verdicts and standings as Markdown (a workflow's step summary)",
        "Read PREVIEW/preview.json and write the pull request's report in Markdown: first "
        "every existing entry it removes, renames or edits, with its author (from --changes), "
        "then each changed entry's verdict with the compiler's messages, the preview "
        "standings and where the preview site is (the artifact ARTIFACT of this run, linked "
        "when the GitHub Actions variables are set). Appends to --summary (e.g. "
        "$GITHUB_STEP_SUMMARY) or prints. Exits 1 if a changed entry failed, or if the pull "
        "request changes an existing entry and is not --approved true.",
    )
    rep.add_argument(
        "--preview",
        type=Path,
        default=Path("preview"),
        help="the preview folder (default: preview)",
    )
    rep.add_argument("--summary", type=Path, help="append the Markdown to this file")
    rep.add_argument("--artifact", default="preview-site", help="the preview site's artifact name")
    rep.add_argument(
        "--changes",
        type=Path,
        metavar="FILE",
        help="what `koth changed --changes FILE` wrote: the existing entries the pull request "
        "removes, renames or edits are named first, and fail the check unless --approved",
    )
    rep.add_argument(
        "--approved",
        metavar="true|false",
        help="whether an organiser approved the changes to existing entries (the pull request "
        "carries the approval label; the workflow passes `true` or `false`)",
    )
    rep.set_defaults(func=cmd_report)

    plan = add(
        "plan",
        "the season workflow's settings as $GITHUB_OUTPUT lines",
        "Print seed=S, rounds=R, results_key=K and history=H (the history file, or empty), one "
        "per line, for $GITHUB_OUTPUT. An empty or missing --seed or --rounds means the "
        "config's value (a workflow passes its inputs as text); `koth shards` sizes the "
        "shards once the recorded games are restored. K, "
        "the prefix of the results cache's key, names the game (its rules version) and hashes "
        "what decides a game's outcome: koth's files that do (runner/season/results_key.py lists "
        "them), the season's limits and the sandbox's base image (and --host, if given). "
        "Records made under another K are not reused.",
    )
    plan.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    plan.add_argument("--seed", help="the season seed (empty: the config's)")
    plan.add_argument("--rounds", help="how many times each pair meets in each seating")
    plan.add_argument(
        "--host", help="any text to hash into the results key too (the workflow passes none)"
    )
    plan.set_defaults(func=cmd_plan)

    sizes = add(
        "shards",
        "how many play jobs the season workflow runs, and their timeouts",
        "Build the entries (cached; who plays as --verdicts says, or checked here), read the "
        "recorded games in the results folder and size the shards: each game still to play "
        "costs the mean wall time of the recorded games (none recorded: every seat its "
        "limits' game_cpu_s), played as many at a time as the season's jobs; enough shards "
        "for about 40 minutes of games each, at most 256 (GitHub's matrix limit) and at most "
        "one per game to play. --shards N (1 to 256) takes N shards instead; empty: sized. "
        'Print matrix={"shard":[1,…,N]}, shards=N, play_minutes=P (the play step\'s timeout: '
        "the largest shard's estimate, twice over) and job_minutes=J (the play job's), one per "
        "line, or append them to --output FILE (e.g. $GITHUB_OUTPUT). docs/hosting.md says more.",
    )
    options(sizes, "seed", "rounds", "jobs", "verdicts")
    sizes.add_argument("--shards", help="how many play jobs (empty or missing: sized)")
    sizes.add_argument("--output", type=Path, metavar="FILE", help="append the lines to FILE")
    sizes.set_defaults(func=cmd_shards)

    image = add(
        "image",
        "build the Docker sandbox image (if it is not built yet), or save or load it",
        "Build the Debian image entries are compiled and played in "
        "(runner/sandbox/Dockerfile, FROM $KOTH_SANDBOX_BASE or debian:bookworm-slim), unless "
        "an image with its content hash exists; print its tag. Every docker stage does this "
        "itself when needed. With --save FILE, also write it to FILE (`docker save`); with "
        "--load FILE, load it from such a file instead, and fail if the file does not hold "
        "the image this checkout needs (it is never built then). The image holds the "
        "compilers and runtimes of the season's entries' languages (--config, default "
        "./tournament.yaml if present) beyond C, C++, Python and Befunge.",
    )
    image.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    where = image.add_mutually_exclusive_group()
    where.add_argument("--save", type=Path, metavar="FILE", help="write the image to FILE")
    where.add_argument("--load", type=Path, metavar="FILE", help="load the image from FILE")
    image.set_defaults(func=cmd_image)

    restore = add(
        "restore",
        "add the records published with a results site to a results file",
        "Fetch SITE/published.json and SITE/games.jsonl (what `koth site` writes beside the "
        "pages) and add the records to OUT, if they were played under the results key KEY "
        "(`koth plan` prints it); otherwise, or when nothing is published or the site cannot "
        "be reached, restore nothing and say why. OUT exists afterwards. The season workflow "
        "runs this when its cache is gone, so a season is not replayed for want of a cache. "
        "Exits 0 either way.",
    )
    restore.add_argument("--site", help="the site's address, e.g. https://org.github.io/koth/")
    restore.add_argument("--key", required=True, help="the results key (`koth plan`)")
    restore.add_argument(
        "--out", type=Path, default=Path("results/games.jsonl"), help="the results file"
    )
    restore.set_defaults(func=cmd_restore)

    seasons = add(
        "restore-history",
        "add the seasons published with a results site to the history file",
        "Fetch SITE/seasons.jsonl (the history of seasons `koth site` publishes when "
        "tournament.yaml sets `site: history:`) and add its seasons to OUT, keeping those "
        "already there. Every line is checked as a season's; a bad one is left out and said. "
        "Nothing published, or a site that cannot be reached, restores nothing and says so. "
        "OUT exists afterwards. The season workflow runs this when its history cache is gone. "
        "Exits 0 either way.",
    )
    seasons.add_argument("--site", help="the site's address, e.g. https://org.github.io/koth/")
    seasons.add_argument("--out", type=Path, required=True, help="the history file")
    seasons.set_defaults(func=cmd_restore_history)

    news = add(
        "announce",
        "post a new season's top entries and biggest movers to a Discord webhook",
        "Compare the history of seasons before and after `koth site` (BEFORE and AFTER: "
        "copies of the file `site: history:` names) and post the season AFTER holds and "
        "BEFORE does not to the Discord webhook in $KOTH_DISCORD_WEBHOOK: the top entries "
        "with their ratings, the biggest movers since the season before, the new entries "
        "and the site's address. A season rendered again is not posted again. Nothing is "
        "posted without a webhook, from a pull request's run, or when no season is new. "
        "Exits 1 only when the webhook does not take the message.",
    )
    news.add_argument("--before", type=Path, help="the history before (missing: none)")
    news.add_argument("--after", type=Path, required=True, help="the history after")
    news.add_argument("--site-url", help="the published site's address, linked in the message")
    news.add_argument(
        "--dry-run", action="store_true", help="print the message instead of posting it"
    )
    news.set_defaults(func=cmd_announce)

    note = add(
        "comment",
        "put the entry check's report on its pull request, as one comment kept up to date",
        "Read what the entry check left (PREVIEW/preview.json and standings.json, CHANGES: "
        "made by the pull request's own code, so read as a stranger's) and write the check's "
        "report as a comment on the open pull request whose head is --head-sha, updating the "
        "comment it wrote before rather than adding one. Needs GITHUB_TOKEN (pull-requests: "
        "write) and GITHUB_REPOSITORY; the comment workflow runs it. Mentions in the report "
        "notify nobody. Exits 1 only when GitHub refuses or cannot be reached.",
    )
    note.add_argument("--preview", type=Path, required=True, help="the check's preview folder")
    note.add_argument("--changes", type=Path, help="the check's changes.json (`koth changed`)")
    note.add_argument("--head-owner", required=True, help="the head repository's owner")
    note.add_argument("--head-branch", required=True, help="the pull request's branch")
    note.add_argument("--head-sha", required=True, help="the commit the check ran on")
    note.add_argument("--run-url", help="the check's run page, linked in the comment")
    note.set_defaults(func=cmd_comment)

    ci = add(
        "ci",
        "run a koth command with a log safe for GitHub Actions",
        "Run `koth COMMAND ARGS…` with its stderr joined to its stdout and its whole output "
        "between ::stop-commands::TOKEN and ::TOKEN:: (a random token), so nothing it "
        "prints (compiler messages, bot names, fault details) can act as a workflow "
        "command. Exits with the command's code.",
    )
    ci.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND ARGS", help="the command")
    ci.set_defaults(func=functools.partial(cmd_ci, run=run))
