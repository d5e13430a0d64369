"""The example seasons as shipped: each plays a full round-robin with no faults."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from runner import results
from runner.config import load_config
from runner.season import run_season

REPO = Path(__file__).resolve().parents[1]


def test_the_cluster_example_season_plays_every_entry_without_faults(tmp_path: Path) -> None:
    config = load_config(REPO / "examples" / "cluster" / "tournament.yaml", {"jobs": 2})
    output = replace(
        config.output,
        build=tmp_path / "build",
        results=tmp_path / "results",
        standings=tmp_path / "standings.json",
    )
    config = replace(config, output=output)
    run_season(config, show_progress=False, say=lambda text: None)
    records, problems = results.read_all(results.results_files(config.output.results))
    entries = sorted(p.name for p in config.entries.iterdir() if p.is_dir())
    languages = {
        (config.entries / e / "entry.yaml").read_text().split("language:")[1].split()[0]
        for e in entries
    }
    assert len(languages) >= 2, "the example season shows at least two languages"
    assert not problems
    assert len(records) == config.rounds * len(entries) * (len(entries) - 1)
    faults = [r["outcome"]["detail"] for r in records if r["outcome"]["faulty"] is not None]
    assert faults == [], faults
