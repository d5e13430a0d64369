"""Files koth ships with its code (package data): C sources, the sandbox image's files, the site's
templates and static files, the games' rules pages and built-in bots.

They are found through ``importlib.resources``, from the installed package, never from a path
of the repository: a koth installed from a wheel (``pip install .``) has no checkout near it.
The site's templates live in the repository's top-level ``site_templates/`` and are installed as
the package ``runner.site_templates`` (pyproject.toml maps one to the other).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

TEMPLATES_PACKAGE = "runner.site_templates"


class MissingResourceError(RuntimeError):
    """A file koth ships is not where its package should hold it (a broken installation)."""


def shipped(package: str, *parts: str) -> Path:
    """The path of a file (or folder) shipped in ``package`` (``"runner.sandbox"``,
    ``"jailstep.c"``). koth is installed as plain files (a wheel unpacked by pip, or an editable
    install), so every resource has a path; a zipped install is refused with the fix."""
    root = files(package)
    if not isinstance(root, Path):
        raise MissingResourceError(
            f"koth's package {package!r} is not installed as files ({root!r}); "
            "install koth with pip (`pip install .` or `pip install koth-*.whl`)"
        )
    path = root.joinpath(*parts)
    if not path.exists():
        raise MissingResourceError(
            f"koth's file {'/'.join(parts)!r} is missing from its package {package!r} "
            f"({root}); the installation is incomplete: reinstall koth "
            "(`pip install --force-reinstall .`)"
        )
    return path


def templates() -> Path:
    """The folder of the site's Jinja templates (with ``static/``)."""
    return shipped(TEMPLATES_PACKAGE)


def source_name(path: Path) -> str:
    """Where a shipped file is in koth's repository (``runner/games/snakes/rules.md``), for
    pages that say where a text comes from."""
    runner = files("runner")
    assert isinstance(runner, Path)
    templates_root = files(TEMPLATES_PACKAGE)
    assert isinstance(templates_root, Path)
    for root, name in ((templates_root, "site_templates"), (runner, "runner")):
        try:
            return f"{name}/{path.relative_to(root).as_posix()}"
        except ValueError:
            continue
    return path.name
