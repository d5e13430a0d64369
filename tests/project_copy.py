"""A copy of what koth's wheel is made of (what `pip install .` reads), for the tests that build
or install it as a user would: never the checkout itself (pip builds in the folder it is given)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("pyproject.toml", "README.md", "runner", "site_templates")


def copy_project(target: Path) -> None:
    """koth's project files copied into ``target`` (made if missing), without caches."""
    target.mkdir(parents=True, exist_ok=True)
    for name in PROJECT:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(ROOT / name, target / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, target / name)
