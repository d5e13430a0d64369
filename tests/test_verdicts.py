"""One build-and-check verdict per season run (runner/season/verdicts.py): ``koth check --out``
writes it once, every shard plays the field it names (``--verdicts``), and a file that does not
match the entries checked out, or is malformed, is refused with one paragraph.

Each "machine" here is a copy of the same small repository, as a workflow's jobs are checkouts
of the same commit; the local sandbox plays (the workflow rehearsal does it in Docker)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.cli.main import main
from runner.season import results

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "entries"
TYPO = ROOT / "tests" / "fixtures" / "workflows" / "typo"


def machine(folder: Path, entries: dict[str, Path]) -> Path:
    (folder / "entries").mkdir(parents=True)
    for name, source in entries.items():
        shutil.copytree(source, folder / "entries" / name)
    (folder / "tournament.yaml").write_text("rounds: 1\njobs: 1\nsandbox: local\n")
    return folder


def koth(folder: Path, *args: str) -> int:
    return main([*args[:1], "--config", str(folder / "tournament.yaml"), *args[1:]])


@pytest.fixture
def repo() -> dict[str, Path]:
    return {**{name: EXAMPLES / name for name in ("greedy", "random", "turtle")}, "typo": TYPO}


def test_check_writes_every_verdict_once_and_the_shards_play_that_field(
    tmp_path: Path, repo: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plan = machine(tmp_path / "plan", repo)
    verdicts = tmp_path / "verdicts.json"
    assert koth(plan, "check", "--out", str(verdicts)) == 0, "exclusions are in the file"
    doc = json.loads(verdicts.read_text())
    by_name = {v["entry"]: v for v in doc["entries"]}
    assert sorted(by_name) == ["greedy", "random", "turtle", "typo"]
    assert by_name["typo"]["ok"] is False and by_name["typo"]["stage"] == "compile"
    assert "error: expected" in by_name["typo"]["message"]
    assert by_name["greedy"]["ok"] and by_name["greedy"]["display_name"] == "Greedy"

    # The plan's verdict is what counts, even where a shard would judge otherwise: here the file
    # says random failed its smoke games (as a bot near a time limit might on one machine).
    by_name["random"].update(ok=False, stage="smoke", message="over 100 ms CPU at turn 5")
    verdicts.write_text(json.dumps(doc))
    played: list[dict[str, Any]] = []
    for shard in (1, 2):
        box = machine(tmp_path / f"shard-{shard}", repo)
        out = box / "results" / f"shard-{shard}-of-2.jsonl"
        code = koth(box, "play-season", "--verdicts", str(verdicts), "--shard", f"{shard}/2")
        assert code == 0
        assert not list((box / "build").glob("*/check.json")), "a shard must not check again"
        assert "excluded: random, typo (the verdicts in" in capsys.readouterr().err
        played += results.read_records(out)[0]
    pairs = sorted(tuple(s["entry"] for s in r["seats"]) for r in played)
    assert pairs == [("greedy", "turtle"), ("turtle", "greedy")], "the file's field, played once"

    box = machine(tmp_path / "merge", repo)
    assert koth(box, "standings", "--verdicts", str(verdicts)) == 0
    standings = json.loads((box / "standings.json").read_text())
    excluded = {r["entry"]: r["excluded"] for r in standings["entries"]}
    assert excluded["random"] == "over 100 ms CPU at turn 5"
    assert excluded["greedy"] is None and excluded["typo"]


def edit(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))

    return apply


def first(doc: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = doc["entries"][0]
    return entry


@pytest.mark.parametrize(
    ("tamper", "said"),
    [
        (
            edit(lambda d: first(d).update(content_hash="0" * 64)),
            "judged another version of the entry 'greedy'",
        ),
        (edit(lambda d: d["entries"].pop()), "no verdict for 'typo'"),
        (
            edit(lambda d: d["entries"].append({**first(d), "entry": "ghost"})),
            "verdicts for entries not here: 'ghost'",
        ),
        (edit(lambda d: d["entries"].append(first(d))), "names the entry 'greedy' twice"),
        (edit(lambda d: d.update(game="cluster-v1")), "was made for another game"),
        (edit(lambda d: d["limits"].update(move_cpu_ms=1000)), "was made for another limits"),
        (edit(lambda d: first(d).update(stage="smoke")), "`ok` is true but `stage` is 'smoke'"),
        (edit(lambda d: first(d).update(entry="../etc")), "entries[0].entry is not an entry"),
        (edit(lambda d: first(d).update(message=["x"])), "entries[0].message must be text"),
        (edit(lambda d: first(d).update(extra=1)), "entries[0] must be an object with exactly"),
        (edit(lambda d: d.update(format="other")), "is not a verdicts file"),
        (
            edit(lambda d: d["entries"][-1].update(ok=True, stage="ok")),
            "says the entry 'typo' plays, but it does not build here",
        ),
        (lambda p: p.write_text("{not json"), "is not valid JSON"),
    ],
)
def test_a_file_that_does_not_match_is_refused(
    tmp_path: Path,
    repo: dict[str, Path],
    tamper: Callable[[Path], None],
    said: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    box = machine(tmp_path / "box", repo)
    verdicts = tmp_path / "verdicts.json"
    assert koth(box, "check", "--out", str(verdicts)) == 0
    capsys.readouterr()
    tamper(verdicts)
    assert koth(box, "play-season", "--verdicts", str(verdicts)) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"koth: {verdicts}: ") and said in error, error
    assert "Fix: " in error and "Traceback" not in error
    assert not (box / "results" / "games.jsonl").exists(), "nothing is played"
