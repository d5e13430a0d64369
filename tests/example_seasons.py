"""Copies of an example season (examples/<game>/) for the tests that play it: its folders (the
entries, a game's maps) and its configuration with some lines replaced, and its records read
back in canonical order without what varies between runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from runner.season import results


def example_copy(example: Path, folder: Path, edits: dict[str, str]) -> Path:
    """The example folder's subfolders copied into ``folder`` and its tournament.yaml with
    each line ``key: value`` of ``edits`` replaced (each key must be on exactly one line); the
    copy's config file."""
    for sub in example.iterdir():
        if sub.is_dir():
            shutil.copytree(sub, folder / sub.name)
    text = (example / "tournament.yaml").read_text()
    for key, value in edits.items():
        text, count = re.subn(rf"(?m)^(\s*){key}: .*$", rf"\g<1>{key}: {value}", text)
        assert count == 1, f"the example configuration has one `{key}:` line"
    (folder / "tournament.yaml").write_text(text)
    return folder / "tournament.yaml"


def outputs(build_dir: Path) -> str:
    """The ``output:`` line's value: builds in ``build_dir`` (shared), the rest in the copy."""
    return f"{{build: {build_dir}, results: results, site: _site, standings: standings.json}}"


def stable(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [results.without_measured(r) for r in results.canonical(found)]


def recorded(folder: Path) -> list[dict[str, Any]]:
    found, problems = results.read_all(results.results_files(folder / "results"))
    assert problems == []
    return found
