"""The command a game page shows to play the game again (``koth play … --seed …``) really
plays it again: taken from the rendered page, run in a checkout of the default season (its
tournament.yaml and entries, copied), it gives the recorded moves and outcome. The records are
the default season's (tests/golden/records/snakes-default.jsonl, which tests/test_examples.py
checks)."""

from __future__ import annotations

import html
import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from runner.cli.main import main
from runner.games.base import ENDINGS
from runner.season.config import load_config
from runner.site.render import _config_file, render_site

REPO = Path(__file__).resolve().parents[1]
RECORDS = REPO / "tests" / "golden" / "records" / "snakes-default.jsonl"


def chosen() -> list[dict[str, Any]]:
    """The longest game, and one with the bot that moves at random (libc's rand)."""
    records = [json.loads(line) for line in RECORDS.read_text().splitlines()]
    longest = max(records, key=lambda r: len(r["moves"]))
    randomly = next(
        r for r in records if "random" in {s["entry"] for s in r["seats"]} and r is not longest
    )
    return [longest, randomly]


@pytest.mark.parametrize("record", chosen(), ids=["longest", "random"])
def test_the_play_again_command_of_a_game_page_replays_the_recorded_game(
    record: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(REPO / "tournament.yaml", checkout / "tournament.yaml")
    for seat in record["seats"]:
        shutil.copytree(REPO / "entries" / seat["entry"], checkout / "entries" / seat["entry"])
    monkeypatch.chdir(checkout)
    config = load_config(None)
    render_site([record], None, {}, tmp_path / "site", config_file=_config_file(config))
    page = (tmp_path / "site" / "games" / f"{record['key'][:12]}.html").read_text()
    shown = re.search(r'<code id="play-again">([^<]*)</code>', page)
    assert shown is not None, "the game page shows the command that plays the game again"
    words = shlex.split(html.unescape(shown.group(1)))
    assert words[:2] == ["koth", "play"] and "--config" not in words, words
    assert main([*words[1:], "--json", "--compact"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert played["seed"] == record["seed"]
    assert [s["entry"] for s in played["seats"]] == [s["entry"] for s in record["seats"]]
    assert [s["hash"] for s in played["seats"]] == [s["hash"] for s in record["seats"]], (
        "the entries are those the record was played with"
    )
    assert played["moves"] == record["moves"], "the command plays the recorded moves"
    assert played["outcome"] == record["outcome"], "and ends as the record says"
    ending = ENDINGS[record["outcome"]["termination"]]
    assert f"{ending}</span>: {html.escape(record['outcome']['detail'])}" in page
    assert main(words[1:]) == 0
    said = capsys.readouterr().out
    assert f" — {ending}: {record['outcome']['detail']}" in said, "the CLI says the site's words"


def test_the_configuration_is_named_only_when_it_is_not_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()  # a checkout's root
    (tmp_path / "tournament.yaml").write_text("seed: 3\n")
    (tmp_path / "examples" / "cluster").mkdir(parents=True)
    (tmp_path / "examples" / "cluster" / "tournament.yaml").write_text("game: cluster-v2\n")
    monkeypatch.chdir(tmp_path)
    assert _config_file(load_config(None)) is None
    assert _config_file(load_config(Path("tournament.yaml"))) is None
    other = load_config(Path("examples/cluster/tournament.yaml"))
    assert _config_file(other) == "examples/cluster/tournament.yaml"
    monkeypatch.chdir(tmp_path / "examples")
    assert _config_file(other) == "examples/cluster/tournament.yaml", "from the checkout's root"
    (tmp_path / ".git").rmdir()
    assert _config_file(other) == "cluster/tournament.yaml", "no checkout: from here"
    monkeypatch.chdir(tmp_path / "examples" / "cluster")
    assert _config_file(other) is None
