"""The example seasons as shipped: each plays a full round-robin with no faults, and records
exactly the games recorded before the core was reshaped into game packages and an N-seat referee
(tests/golden/records/, made by the code of that time: all but ``measured``, byte for byte).

After a deliberate change to an example entry or to a game's rules, regenerate them with
``python tests/test_examples.py``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from runner.cli.stages import run_season
from runner.season import results
from runner.season.config import Config, load_config

REPO = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden" / "records"
SEASONS = {
    "snakes-default": REPO / "tournament.yaml",
    "cluster-example": REPO / "examples" / "cluster" / "tournament.yaml",
}


def played(name: str, folder: Path) -> tuple[Config, list[dict[str, Any]]]:
    """Play an example season from scratch in ``folder``; its config and canonical records.

    Wall-clock limits are widened (Cluster's are 0.1 s a move): a record holds no limit, and
    a busy test machine must not turn a slow move into a timeout that changes it."""
    config = load_config(SEASONS[name], {"jobs": 2})
    config = replace(config, limits=replace(config.limits, move_wall_s=5.0, first_move_wall_s=10.0))
    output = replace(
        config.output,
        build=folder / "build",
        results=folder / "results",
        standings=folder / "standings.json",
    )
    config = replace(config, output=output)
    run_season(config, show_progress=False, say=lambda text: None)
    records, problems = results.read_all(results.results_files(config.output.results))
    assert not problems, problems
    return config, results.canonical(records)


def lines(records: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(results.without_measured(r), sort_keys=True) for r in records]


def test_the_default_season_records_what_it_always_recorded(tmp_path: Path) -> None:
    _, records = played("snakes-default", tmp_path)
    golden = (GOLDEN / "snakes-default.jsonl").read_text().splitlines()
    assert lines(records) == golden, "the default season's records changed"


def test_the_cluster_example_season_plays_every_entry_without_faults(tmp_path: Path) -> None:
    config, records = played("cluster-example", tmp_path)
    golden = (GOLDEN / "cluster-example.jsonl").read_text().splitlines()
    assert lines(records) == golden, "the Cluster example season's records changed"
    entries = sorted(p.name for p in config.entries.iterdir() if p.is_dir())
    languages = {
        (config.entries / e / "entry.yaml").read_text().split("language:")[1].split()[0]
        for e in entries
    }
    assert len(languages) >= 2, "the example season shows at least two languages"
    assert len(records) == config.rounds * len(entries) * (len(entries) - 1)
    faults = [r["outcome"]["detail"] for r in records if r["outcome"]["faulty"] is not None]
    assert faults == [], faults


if __name__ == "__main__":
    import tempfile

    for season in SEASONS:
        with tempfile.TemporaryDirectory() as scratch:
            made = lines(played(season, Path(scratch))[1])
        (GOLDEN / f"{season}.jsonl").write_text("".join(line + "\n" for line in made))
        print(f"wrote {GOLDEN / season}.jsonl ({len(made)} records)", file=sys.stderr)
