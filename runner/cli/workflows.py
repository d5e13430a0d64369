"""The stages the GitHub workflows add to a season (.github/workflows/pr.yml and season.yml).

Each workflow step is one ``koth`` command; the logic behind the commands that only the
workflows need lives here, on top of runner/cli/stages.py:

- ``koth changed --base REF``: the entry folders a pull request adds or edits (``git diff``).
- ``koth preview --entries a,b``: build and check every entry (cached, as ``koth check``), then
  play the named entries' games of the season (a round-robin: against every entry that plays, in
  both seats; a free-for-all: their tables; a knockout: the whole bracket, round by round) into a
  results file of their own, rank those games and render their site. The games are the
  season's (``season.play_into``); their seeds are public (a pull request's check is never given
  the season secret, which its code could print), so its records are the season's only where
  the season has no secret.
- ``koth report --summary FILE``: the preview as Markdown for ``$GITHUB_STEP_SUMMARY``; exits 1
  when a changed entry does not build, is refused by the static check, fails a smoke game or
  could not play.
- ``koth plan``: the season workflow's settings (seed, rounds, the results key of its cache)
  as lines for ``$GITHUB_OUTPUT``, defaults filled in from tournament.yaml; ``koth shards``
  sizes the shards once the recorded games are restored (runner/cli/shards.py).
- ``koth image [--save FILE | --load FILE]``: build the Docker sandbox image now (otherwise the
  first stage that needs it builds it) and write it to a file, or load it from one: the season
  workflow builds it once, in its plan job, and every other job loads it.
- ``koth ci COMMAND …``: run a koth command for a workflow log. Compiler messages, bot names and
  fault details come from pull requests; a line of them starting with ``::`` would be a workflow
  command to the runner. ``ci`` joins stderr to stdout and wraps the command's whole output in
  ``::stop-commands::TOKEN`` … ``::TOKEN::`` with a random token, so nothing printed in between
  is acted on.

Names travel between steps URL-quoted (``urllib.parse.quote``): a valid entry name is unchanged,
and any other folder name (a PR may add one) stays on one line without commas.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import yaml

from runner import __version__
from runner.cli import stages
from runner.common import progress
from runner.common.documents import load_json, load_yaml
from runner.common.safefiles import read_regular, shown_indented
from runner.rank.standings import Row, document
from runner.rank.standings import write as write_standings
from runner.season import check, results, workers
from runner.season.build import Sandbox
from runner.season.config import Config
from runner.season.entries import MANIFEST, entry_name
from runner.season.formats import Fixture
from runner.season.results_key import results_key
from runner.season.standings_file import check_document
from runner.site.render import entries_info_from, render_site

PREVIEW_FILE = "preview.json"
RESULTS_FILE = "results.jsonl"
STANDINGS_FILE = "standings.json"
SITE_DIR = "site"
PREVIEW_CAP = 64 << 20  # preview.json and its standings.json: verdicts and compiler messages

STAGE_WORDS = {
    "entry": "the entry folder is malformed",
    "compile": "does not compile",
    "check": "is refused by the static check",
    "link": "does not link",
    "load": "fails when loaded",
    "smoke": "fails a smoke game against the built-in bot",
}


class CiError(Exception):
    """A mistake the user can fix (a base the clone lacks, an unknown entry); one paragraph."""


# -- names between steps ---------------------------------------------------------------------------


def encode_names(names: Sequence[str]) -> str:
    """``a,b``: each name URL-quoted, so any folder name stays on one line without commas."""
    return ",".join(quote(name, safe="") for name in names)


def decode_names(text: str) -> list[str]:
    names = [unquote(part) for part in text.split(",") if part.strip()]
    for name in names:
        if not name or "/" in name or name in (".", ".."):
            raise CiError(f"--entries: {name!r} is not an entry folder name.")
    return list(dict.fromkeys(names))


# -- koth changed ----------------------------------------------------------------------------------


def _git(folder: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise CiError("git is not installed. Fix: install git (`apt-get install git`).") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise CiError(
            f"`git {' '.join(args)}` failed in {folder}: {message} Fix: run it in a clone that "
            "has the base commit (in a workflow: actions/checkout with fetch-depth: 0)."
        )
    return done.stdout


@dataclass(frozen=True)
class Existing:
    """An entry the base branch has that a pull request removes, renames or edits: its name,
    its author (as its entry.yaml on the base says), and what the pull request does to it."""

    entry: str
    author: str
    change: str  # "removes", "edits" or "renames"
    to: str | None = None  # a renamed entry's new name


@dataclass(frozen=True)
class Changes:
    """What a pull request changes under the entries folder (``changed_entries``)."""

    present: list[str]  # entry folders added or edited, named as runner.season.entries names them
    removed: list[str]  # entry folders deleted: nothing to check
    outside: list[str]  # paths under entries/ in no entry folder (a .gitattributes, a README)
    added: list[str] = field(default_factory=list)  # folders the base does not have
    existing: list[Existing] = field(default_factory=list)  # the base's, removed/renamed/edited

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "added": self.added,
            "existing": [dataclasses.asdict(e) for e in self.existing],
        }


def _diff(entries_dir: Path, base: str, head: str) -> tuple[set[str], dict[str, str]]:
    """The paths under ``entries_dir`` that differ between the merge base of ``base`` and
    ``head``, and the renamed ones (old path: new path, git's rename detection)."""
    out = _git(
        entries_dir,
        "diff",
        "--name-status",
        "-z",
        "--find-renames",
        "--relative",
        f"{base}...{head}",
        "--",
        ".",
    )
    fields = [os.fsdecode(raw) for raw in out.split(b"\0")]
    paths: set[str] = set()
    renamed: dict[str, str] = {}
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at]
        count = 2 if status[:1] in ("R", "C") else 1
        named = fields[at + 1 : at + 1 + count]
        paths.update(named)
        if status[:1] == "R":
            renamed[named[0]] = named[1]
        at += 1 + count
    return paths, renamed


def _base_author(entries_dir: Path, commit: str, folder: str) -> str:
    """The author an entry's entry.yaml names at ``commit`` ("" if it names none)."""
    try:
        text = _git(entries_dir, "show", f"{commit}:./{folder}/{MANIFEST}").decode("utf-8")
        found = load_yaml(text)
    except (CiError, ValueError, yaml.YAMLError):
        return ""
    author = found.get("author") if isinstance(found, dict) else None
    return author.strip() if isinstance(author, str) else ""


def changed_entries(entries_dir: Path, base: str, head: str = "HEAD") -> Changes:
    """The entry folders that differ between ``base`` and ``head``, the changed paths under
    ``entries_dir`` that belong to no entry, and the base's entries the change removes, renames
    or edits, with their authors.

    The diff is from the merge base of the two (``base...head``), so commits that reached the base
    branch after the pull request started are not counted as the PR's. A folder whose name starts
    with ``.`` or ``_`` is not an entry (runner.season.entries.discover skips it), nor is a file
    directly in the entries folder: no entry check covers those, yet one can change how the other
    entries are checked out (``entries/.gitattributes`` re-encoding another author's ``bot.c``), so
    they are ``outside``, for an organiser to review. An entry of the base that the change removes,
    renames (git's rename detection: its files now in another folder) or edits is an author's work
    changed by someone who may not be them: ``existing``, for an organiser.
    """
    if not entries_dir.is_dir():
        raise CiError(f"the entries folder {entries_dir} does not exist.")
    paths, renamed = _diff(entries_dir, base, head)
    folders: set[str] = set()
    outside: set[str] = set()
    for path in paths:
        top = path.split("/", 1)[0]
        if top.startswith((".", "_")):
            outside.add(path)
        elif "/" in path or (entries_dir / path).is_symlink():  # a link there is an entry, refused
            folders.add(top)
        else:
            outside.add(path)
    there = {f for f in folders if (entries_dir / f).is_dir() or (entries_dir / f).is_symlink()}
    merge_base = _git(entries_dir, "merge-base", base, head).decode().strip()
    listed = _git(entries_dir, "ls-tree", "-z", "--name-only", merge_base, "--", ".")
    before = {os.fsdecode(n).rstrip("/").rsplit("/", 1)[-1] for n in listed.split(b"\0") if n}
    moves = {
        old.split("/", 1)[0]: new.split("/", 1)[0]
        for old, new in renamed.items()
        if "/" in old and "/" in new and old.split("/", 1)[0] != new.split("/", 1)[0]
    }
    existing = [
        Existing(
            entry_name(f),
            _base_author(entries_dir, merge_base, f),
            "edits" if f in there else "renames" if f in moves else "removes",
            entry_name(moves[f]) if f not in there and f in moves else None,
        )
        for f in sorted(folders & before)
    ]
    # Named as runner.season.entries names them (a folder name need not be printable text).
    return Changes(
        present=sorted(entry_name(f) for f in there),
        removed=sorted(entry_name(f) for f in folders - there),
        outside=sorted(entry_name(p) for p in outside),
        added=sorted(entry_name(f) for f in there - before),
        existing=existing,
    )


# -- koth plan -------------------------------------------------------------------------------------


def optional_int(option: str, text: str | None) -> int | None:
    """An option that a workflow passes as text: empty means the config's value."""
    if text is None or not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        raise CiError(f"{option} {text!r}: expected a whole number, e.g. {option} 7.") from None


def plan_outputs(config: Config, host: str = "") -> dict[str, str]:
    """The season workflow's settings, as ``$GITHUB_OUTPUT`` names and values (the shards are
    sized later, once the recorded games are restored: runner/cli/shards.py)."""
    return {
        "seed": str(config.seed),
        "rounds": str(config.rounds),
        "results_key": results_key(config, host),
        "history": _history_path(config),
    }


def _history_path(config: Config) -> str:
    """The history file (``site: history:``) as the workflow names it: relative to the working
    folder when inside it; empty when no history is kept."""
    path = config.site.history
    if path is None:
        return ""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# -- koth image ------------------------------------------------------------------------------------


def sandbox_image(
    say: progress.Say,
    save: Path | None = None,
    load: Path | None = None,
    wanted: tuple[str, ...] = (),
) -> str:
    """Build the Docker sandbox image for bots in the languages ``wanted`` (a season's entries')
    unless it exists (``save``: then write it to that file), or take it from a file ``koth image
    --save`` wrote (``load``: never built here); its tag."""
    from runner.sandbox import docker
    from runner.sandbox.zygote_client import SandboxError

    try:
        client = docker.connect()
        if load is None:
            tag = docker.ensure_image(client, say, wanted)
            if save is not None:
                docker.save_image(client, tag, save)
                say(f"saved the sandbox image {tag} to {save}")
            return tag
        tag = docker.image_tag(wanted)
        found = docker.load_image(client, load)
        if tag not in found:
            raise CiError(
                f"{load} holds {', '.join(found) or 'no tagged image'}, not the sandbox image "
                f"this checkout needs ({tag}, from {docker.base_image()}). Fix: make the file "
                "with `koth image --save` from the same commit and the same KOTH_SANDBOX_BASE."
            )
        say(f"loaded the sandbox image {tag} from {load} (not built here)")
        return tag
    except SandboxError as exc:
        raise CiError(str(exc)) from None


# -- koth ci ---------------------------------------------------------------------------------------


@contextmanager
def stopped_commands(token: str | None = None) -> Iterator[str]:
    """Everything written to stdout or stderr inside is inert to the Actions runner.

    stderr (fd 2, so worker processes too) is pointed at stdout for the duration, so one
    stream carries the output in order between the two markers.
    """
    token = token or secrets.token_hex(16)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(1, 2)
    os.write(1, f"::stop-commands::{token}\n".encode())
    try:
        yield token
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(1, f"::{token}::\n".encode())
        os.dup2(saved, 2)
        os.close(saved)


# -- koth preview ----------------------------------------------------------------------------------


@dataclass
class PreviewResult:
    doc: dict[str, Any]
    rows: list[Row] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return failed(self.doc)


def failed(doc: Mapping[str, Any]) -> bool:
    """A changed entry did not build, was refused, failed a smoke game, or could not play."""
    return any(not c["ok"] for c in doc["changed"]) or bool(doc["not_played"])


def preview(
    config: Config,
    names: Sequence[str],
    out: Path,
    sandbox: Sandbox,
    pool: workers.GamePool,
    say: progress.Say,
) -> PreviewResult:
    """Build and check every entry, then play ``names`` against every playing entry.

    Writes ``out``/results.jsonl (appended to: a re-run plays only what is missing),
    standings.json, site/ and preview.json (what ``koth report`` reads).
    """
    out.mkdir(parents=True, exist_ok=True)
    line = check.lineup(config, sandbox, pool, say) if names else check.Lineup([])
    verdicts = {v.entry: v for v in line.verdicts}
    unknown = [n for n in names if n not in verdicts]
    if unknown:
        known = ", ".join(sorted(verdicts)) or "none"
        raise CiError(
            f"no entry {', '.join(map(repr, unknown))} in {config.entries}/ (entries: {known})."
        )
    mine = {n for n in names if verdicts[n].ok}
    path = out / RESULTS_FILE
    believed = results.reproduced(config.free_for_all.setups)
    recorded, problems = results.read_all([path], believed)
    for problem in problems:
        say(f"warning: {problem}")
    wanted = _preview_games(stages.season_format(config, line).static, mine)
    say(f"preview: the games of {', '.join(sorted(mine)) or 'no entry'} into {path}")
    played = stages.play_into(
        config,
        line,
        pool,
        path,
        recorded,
        wanted=wanted,
        show_progress=False,
        say=say,
        sandbox=sandbox,
    )
    not_played = played.failed
    after = results.read_all([path], believed)[0]
    games = [s for s in stages.plan_from(config, line, after).games if wanted(s.fixture)]
    current = {s.key for s in games}
    records = results.canonical(r for r in after if r["key"] in current)
    shown = [e for e in line.entrants() if e.entry in names or (bool(mine) and e.excluded is None)]
    rows, ranked_by = stages.ranked(config, line, shown, records)
    meta = {
        "game": config.game,
        "format": "preview",
        "rounds": config.rounds,
        "season_seed": config.seed,
        "host_version": __version__,
        "games_scheduled": len(games),
        "games_played": len(records),
        "preview_of": list(names),
        "points": config.points if isinstance(config.points, str) else list(config.points),
    }
    standings = document(rows, {**meta, **ranked_by})
    write_standings(out / STANDINGS_FILE, standings)
    site = None
    if records:
        info = entries_info_from(config.entries, config.output.build)
        report = render_site(records, standings, info, out / SITE_DIR)
        say(report.summary())
        site = SITE_DIR
    doc: dict[str, Any] = {
        "version": 1,
        "sandbox": config.sandbox,
        "game": config.game,
        "season_seed": config.seed,
        "rounds": config.rounds,
        "changed": [
            {
                "entry": n,
                "ok": verdicts[n].ok,
                "stage": verdicts[n].stage,
                "summary": verdicts[n].summary,
                "message": verdicts[n].message,
                "display_name": verdicts[n].display_name,
            }
            for n in names
        ],
        "excluded_others": [
            {"entry": v.entry, "summary": v.summary}
            for v in line.verdicts
            if not v.ok and v.entry not in names
        ],
        "games_scheduled": len(games),
        "games_played": len(records),
        "not_played": not_played,
        "results": RESULTS_FILE,
        "standings": STANDINGS_FILE,
        "site": site,
    }
    tmp = out / f".{PREVIEW_FILE}.tmp"
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, out / PREVIEW_FILE)
    return PreviewResult(doc, rows)


def _preview_games(static: bool, mine: set[str]) -> Callable[[Fixture], bool]:
    """Which games a preview plays: a format that never reads results (round-robin,
    free-for-all) plays the games of the entries checked; a knockout plays the whole bracket,
    since who meets whom depends on every match (none, when no checked entry plays)."""
    if static:
        return lambda fixture: bool(mine & set(fixture.seats))
    return lambda fixture: bool(mine)


# -- koth report -----------------------------------------------------------------------------------

_MD_SPECIAL = set("\\`*_{}[]()#+-.!|~")


def md_text(text: str) -> str:
    """Untrusted text as inline Markdown: punctuation escaped, HTML inert, one line."""
    text = " ".join(text.split())
    out = []
    for ch in text:
        if ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        else:
            out.append(ch)
    return "".join(out)


def md_block(text: str) -> str:
    """Untrusted text as a fenced code block whose fence no line of it can close."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def run_url(env: Mapping[str, str]) -> str | None:
    """This workflow run's page, from the variables the Actions runner sets."""
    names = ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    server, repo, run = (env.get(name) for name in names)
    if server and repo and run:
        return f"{server}/{repo}/actions/runs/{run}"
    return None


def _row_line(row: Mapping[str, Any]) -> str:
    faults = ", ".join(f"{k} {n}" for k, n in sorted(row["faults"].items())) or "none"
    return (
        f"| {row['rank'] if row['rank'] is not None else '–'} | {md_text(row['entry'])} "
        f"| {md_text(row['name'])} | {row['points']:g} | {row['games']} | {row['wins']} "
        f"| {row['draws']} | {row['losses']} | {md_text(faults)} |"
    )


def _verdict_table(changed: list[Mapping[str, Any]], rows: Mapping[str, Any]) -> list[str]:
    """A row per changed entry: its bot's name and its verdict, in a few words."""
    lines = ["| entry | bot | verdict |", "|---|---|---|"]
    for c in changed:
        if c["ok"]:
            row = rows.get(c["entry"], {})
            text = (
                f"✅ builds, passes the smoke games; {row.get('games', 0)} preview games: "
                f"{row.get('wins', 0)} W, {row.get('draws', 0)} D, {row.get('losses', 0)} L"
            )
        else:
            text = f"❌ {STAGE_WORDS.get(c['stage'], c['stage'])}"
        bot = md_text(c["display_name"]) if c["ok"] or c["display_name"] != c["entry"] else "–"
        lines.append(f"| {md_text(c['entry'])} | {bot} | {text} |")
    lines.append("")
    return lines


def _entry_title(c: Mapping[str, Any]) -> str:
    """A changed entry's name, and its bot's name where that differs."""
    title = md_text(c["entry"])
    if c["display_name"] != c["entry"]:
        title += f" ({md_text(c['display_name'])})"
    return title


def _passed_section(c: Mapping[str, Any], rows: Mapping[str, Any]) -> list[str]:
    """What a changed entry that passed is told: its compiler's warnings, its faults in the
    preview games."""
    lines = [f"### ✅ {_entry_title(c)}", ""]
    lines.append(
        "Builds in the sandbox, passes the static check and finishes both smoke games "
        "against the built-in bot (one in each seat)."
    )
    if c["message"].startswith("compiled with warnings"):
        lines += ["", "Compiler warnings:", "", md_block(c["message"])]
    row = rows.get(c["entry"])
    if row and row["faults"]:
        faults = ", ".join(f"{k} {n}" for k, n in sorted(row["faults"].items()))
        lines += [
            "",
            f"⚠️ At fault in preview games: {md_text(faults)} (see the preview site's "
            "entry page for the details). This does not fail the check.",
        ]
    lines.append("")
    return lines


def _failed_section(c: Mapping[str, Any]) -> list[str]:
    """What a changed entry that failed is told: the stage, and the compiler's messages or the
    reason."""
    title = _entry_title(c)
    what = STAGE_WORDS.get(c["stage"], c["stage"])
    return [
        f"### ❌ {title}: {what}",
        "",
        "The entry cannot play until this is fixed. "
        + ("The compiler's messages:" if c["stage"] in ("compile", "link") else "The reason:"),
        "",
        md_block(c["message"]),
        "",
    ]


def _not_played_section(not_played: list[str]) -> list[str]:
    """The games the sandbox failed to play (none: no section)."""
    if not not_played:
        return []
    return [
        "### ❌ Games that could not be played",
        "",
        "The sandbox failed (not the entry's fault); re-run the check:",
        "",
        md_block("\n".join(not_played)),
        "",
    ]


def _standings_section(doc: Mapping[str, Any], standings: Mapping[str, Any] | None) -> list[str]:
    """The preview's standings, of the entries that played (none: no section)."""
    played = [r for r in (standings or {}).get("entries", []) if r["excluded"] is None]
    if not played:
        return []
    return [
        "### Preview standings",
        "",
        f"Only the games of the changed entries: each against every entry, in both seats "
        f"({doc['games_played']} of {doc['games_scheduled']} games, seed "
        f"{doc['season_seed']}). The season itself is played after the merge.",
        "",
        "| rank | entry | bot | points | games | W | D | L | faults |",
        "|---|---|---|---|---|---|---|---|---|",
        *(_row_line(r) for r in played),
        "",
    ]


def _site_section(artifact: str, url: str | None) -> list[str]:
    """Where to find the preview site: the artifact's name on this run's page."""
    where = f"[this run's page]({url})" if url else "this run's page"
    name = f"`{artifact}`" if re.fullmatch(r"[\w.-]+", artifact) else md_text(artifact)
    return [
        "### Preview site",
        "",
        f"The results site of these games, with a replay of each, is the artifact {name} "
        f"on {where}, under *Artifacts*: download it, unzip it and open `index.html`.",
        "",
    ]


APPROVAL_LABEL = "approve-entry-changes"  # an organiser's approval (docs/hosting.md)
CHANGES_CAP = 1 << 20


def existing_words(change: Existing) -> str:
    """What a pull request does to an entry it did not add, in words naming its author."""
    who = f"{change.entry} (by {change.author or 'an author its entry.yaml does not name'})"
    if change.change == "renames":
        return f"renames {who} to {change.to}"
    return f"{change.change} {who}"


def write_changes(path: Path, changes: Changes) -> None:
    """``koth changed --changes``: what ``koth report --changes`` reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(changes.to_json(), indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def read_changes(path: Path) -> list[Existing] | None:
    """The existing entries ``koth changed --changes`` found changed; None when the file cannot
    be read or is not one (the report then cannot pass)."""
    try:
        doc = load_json(read_regular(path, CHANGES_CAP))
        found = [Existing(**item) for item in doc["existing"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    words = all(isinstance(v, str | None) for e in found for v in dataclasses.astuple(e))
    return found if words and doc.get("version") == 1 else None


def _existing_section(existing: Sequence[Existing] | None, approved: bool) -> list[str]:
    """First in the report: what the pull request does to entries it did not add, and whether
    an organiser approved it (none: no section)."""
    if existing is None:
        return [
            "### ⚠️ The entries this pull request changes could not be read",
            "",
            "`koth changed` did not write what it found, so the check cannot pass; its log "
            "says why.",
            "",
        ]
    if not existing:
        return []
    lines = [
        "### ⚠️ Entries this pull request did not add",
        "",
        "It removes, renames or edits entries that were there before it, which only an "
        "organiser may approve (docs/hosting.md, *Changes to existing entries*):",
        "",
        "| entry | author | what this pull request does |",
        "|---|---|---|",
    ]
    for change in existing:
        what = f"renames it to {md_text(change.to or '')}" if change.to else f"{change.change} it"
        author = md_text(change.author) if change.author else "–"
        lines.append(f"| {md_text(change.entry)} | {author} | {what} |")
    lines.append("")
    if approved:
        lines += [f"✅ Approved by an organiser: the label `{APPROVAL_LABEL}`.", ""]
    else:
        lines += [
            f"❌ Not approved: the check fails until an organiser, having asked the authors, "
            f"adds the label `{APPROVAL_LABEL}`.",
            "",
        ]
    return lines


def _title(doc: Mapping[str, Any], waiting: bool) -> str:
    if not doc["changed"]:
        return "## koth: this pull request adds or edits no entry"
    if failed(doc):
        return "## koth: entry check ❌ failed"
    return "## koth: entry check " + (
        "❌ needs an organiser's approval" if waiting else "✅ passed"
    )


def report_markdown(
    doc: Mapping[str, Any] | None,
    standings: Mapping[str, Any] | None,
    artifact: str,
    url: str | None,
    existing: Sequence[Existing] | None = (),
    approved: bool = False,
) -> str:
    """The step summary of a preview (``doc`` is preview.json; None: the preview did not
    finish), the entries it did not add that the pull request removes, renames or edits first
    (``existing``; None: they could not be read), approved or not."""
    top = _existing_section(existing, approved)
    if doc is None:
        return "\n".join(
            [
                "## koth: the entry check did not finish",
                "",
                *top,
                "No preview was written (a step before this one failed or was stopped), so the "
                "changed entries cannot be judged. The log of the first failed step says why.",
                "",
            ]
        )
    changed = doc["changed"]
    lines = [_title(doc, existing is None or (bool(existing) and not approved)), "", *top]
    if not changed:
        lines += [
            "This pull request adds or edits no entry folder under `entries/`: there is no "
            "entry to build or play" + (" (it only removes entries, above)." if existing else "."),
            "",
        ]
        return "\n".join(lines)
    rows = {r["entry"]: r for r in (standings or {}).get("entries", [])}
    lines += _verdict_table(changed, rows)
    for c in changed:
        lines += _passed_section(c, rows) if c["ok"] else _failed_section(c)
    lines += _not_played_section(doc["not_played"])
    if doc["excluded_others"]:
        others = ", ".join(
            f"{md_text(o['entry'])} ({md_text(o['summary'])})" for o in doc["excluded_others"]
        )
        lines += [f"Not in the preview (excluded already, not by this PR): {others}", ""]
    lines += _standings_section(doc, standings)
    if doc.get("site"):
        lines += _site_section(artifact, url)
    return "\n".join(lines)


def read_preview(folder: Path) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """preview.json and the preview's standings.json, or None for what is missing or unreadable."""

    def load(path: Path) -> dict[str, Any] | None:
        try:
            data = load_json(read_regular(path, PREVIEW_CAP))
        except (OSError, ValueError):  # a FIFO there is refused, not waited on
            return None
        return data if isinstance(data, dict) else None

    doc = load(folder / PREVIEW_FILE)
    standings = load(folder / str(doc.get("standings", STANDINGS_FILE))) if doc else None
    if standings is not None and check_document(standings) is not None:
        standings = None  # the report then shows the verdicts without the preview standings
    return doc, standings


def print_preview(result: PreviewResult) -> None:
    """The verdicts and standings of a preview, for the terminal or the (guarded) log."""
    from runner.rank.standings import table

    for c in result.doc["changed"]:
        if c["ok"]:
            print(f"ok      {c['entry']}  {c['display_name']}: builds and passes the smoke games")
        else:
            stage = STAGE_WORDS.get(c["stage"], c["stage"])
            print(f"FAILED  {c['entry']}  {stage}:\n{shown_indented(c['message'])}")
    for problem in result.doc["not_played"]:
        print(f"not played: {problem}")
    if result.rows:
        print(table(result.rows))
    doc = result.doc
    print(f"{doc['games_played']} of {doc['games_scheduled']} preview games recorded")


__all__ = [
    "APPROVAL_LABEL",
    "Changes",
    "CiError",
    "Existing",
    "changed_entries",
    "decode_names",
    "encode_names",
    "existing_words",
    "failed",
    "plan_outputs",
    "preview",
    "read_changes",
    "read_preview",
    "report_markdown",
    "results_key",
    "run_url",
    "sandbox_image",
    "stopped_commands",
    "write_changes",
]
