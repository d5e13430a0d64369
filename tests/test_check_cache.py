"""The check stage's cached verdicts (runner/season/check.py): a re-run plays no smoke game for
an entry whose content, built-in opponent, limits and host version are unchanged; an edited
entry, or a new host version, is checked again; a cached verdict that is not exactly what the
host writes is ignored with a warning naming its file, and the entry is checked again."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from test_season import BOTS, add_bot

from runner.season import check, workers
from runner.season.config import Config, load_config
from runner.season.workers import Done, GamePool, Task


class CountingPool(GamePool):
    """A pool that plays in this process and remembers whose smoke games it was given."""

    def __init__(self, config: Config) -> None:
        super().__init__(config.game, workers.bot_limits(config), 1, None, config.sandbox)
        self.checked: list[str] = []

    def play(self, tasks: Sequence[Task]) -> Iterator[Done]:
        for task in tasks:
            self.checked += [p.entry for p in task.players if not p.entry.startswith("builtin")]
        yield from super().play(tasks)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    for name in ("still", "edger"):
        add_bot(tmp_path / "entries", name, BOTS[name])
    (tmp_path / "tournament.yaml").write_text("entries: entries\nrounds: 1\njobs: 1\n")
    return load_config(tmp_path / "tournament.yaml")


def checked_entries(
    config: Config, said: list[str] | None = None
) -> tuple[list[str], dict[str, bool]]:
    """Build and check every entry; whose smoke games were played, and each verdict."""
    sandbox = workers.make_sandbox(config)
    pool = CountingPool(config)
    try:
        with pool:
            builds = check.build_all(config, sandbox)
            verdicts = check.check_all(
                config, builds, sandbox, pool, said.append if said is not None else lambda _: None
            )
    finally:
        sandbox.close()
    return sorted(set(pool.checked)), {v.entry: v.ok for v in verdicts}


def test_a_rerun_checks_only_the_edited_entry(config: Config) -> None:
    first, verdicts = checked_entries(config)
    assert first == ["edger", "still"], f"a first run should check both entries, checked {first}"
    assert verdicts == {"edger": True, "still": True}
    again, verdicts = checked_entries(config)
    assert again == [], f"nothing changed, so nothing should be checked again; checked {again}"
    assert verdicts == {"edger": True, "still": True}, "cached verdicts should be the same"
    add_bot(config.entries, "still", BOTS["still"] + "/* edited */\n")
    edited, _ = checked_entries(config)
    assert edited == ["still"], f"only the edited entry should be checked again, got {edited}"


def test_a_new_host_version_checks_every_entry_again(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked_entries(config)
    monkeypatch.setattr(check, "__version__", "99.0.0")
    again, _ = checked_entries(config)
    assert again == ["edger", "still"], f"a new host version should re-check all, got {again}"


@pytest.mark.parametrize(
    "saved",
    [
        "{not json",
        "[]",
        '{"key": "%(key)s", "ok": "false", "message": "x"}',
        '{"key": "%(key)s", "ok": true}',
        '{"key": "%(key)s", "ok": true, "message": 7}',
        '{"key": "%(key)s", "ok": true, "message": "x", "more": 1}',
        '{"key": 1, "ok": true, "message": "x"}',
        '{"key": "%(key)s", "ok": true, "message": "x", "more": ' + "[" * 3000 + "]" * 3000 + "}",
    ],
)
def test_a_malformed_cached_verdict_is_ignored_with_a_warning(config: Config, saved: str) -> None:
    checked_entries(config)
    path = config.output.build / "still" / "check.json"
    key = json.loads(path.read_text())["key"]
    path.write_text(saved % {"key": key})
    said: list[str] = []
    again, verdicts = checked_entries(config, said)
    assert again == ["still"], f"the entry with a malformed verdict should be re-checked: {again}"
    assert verdicts["still"] is True, "the re-check's verdict counts, not the malformed one"
    warnings = [s for s in said if str(path) in s and "malformed" in s]
    assert warnings, f"a warning should name {path} as malformed; said {said}"
    assert _key(path) == key, "the re-check should write a well-formed verdict again"


def test_a_cached_verdict_behind_a_symbolic_link_is_not_read(config: Config) -> None:
    checked_entries(config)
    path = config.output.build / "still" / "check.json"
    elsewhere = path.with_name("elsewhere.json")
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    said: list[str] = []
    again, _ = checked_entries(config, said)
    assert again == ["still"], f"a verdict behind a link should not be trusted; checked {again}"
    assert any(str(path) in s for s in said), f"a warning should name {path}; said {said}"


def _key(path: Path) -> str:
    saved = json.loads(path.read_text())
    assert set(saved) == {"key", "ok", "message"}, f"{path} holds {sorted(saved)}"
    return str(saved["key"])
