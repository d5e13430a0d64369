"""koth as its users get it: built into a wheel, installed into a new virtual environment far
from any checkout, with an empty cache, it builds, plays and renders a season of every game, in
the local sandbox and in Docker, as root and as a user who is not root.

The rest of the suite runs koth from this tree (an editable install) with a cache warmed by the
tests before; a file koth reads at run time that the wheel lacks (a C source, a template, a rules
page) or a cache that fails when empty are found only here. The seasons are the examples' own
(tournament.yaml and examples/*/), cut to three entries of different languages and one round,
so that each game's every build recipe and its site are made from the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from as_user import User, user_folder
from example_seasons import example_copy
from project_copy import copy_project

ROOT = Path(__file__).resolve().parents[1]
# Each game's season: its configuration, the entries kept (one per language the game takes)
# and the lines changed to make it short.
SEASONS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "snakes": (".", ("greedy", "random", "turtle"), {"rounds": "1"}),
    "cluster": ("examples/cluster", ("blocker", "greedy", "random"), {"rounds": "1"}),
    "domineering": ("examples/domineering", ("bomber", "greedy", "random"), {"seeding": "null"}),
    "egghunt": ("examples/egghunt", ("bully", "greedy", "random"), {"runs": "1"}),
    "multisnake": ("examples/multisnake", ("careful", "random", "wary"), {"runs": "1"}),
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """koth's wheel, built by pip from a copy of the project (pip builds in the folder it is
    given; the copy is removed after, as a user's clone may be)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "koth"
    copy_project(source)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder)]
    done = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(source)
    (made,) = folder.glob("koth-*.whl")
    return made


def _shipped(folder: str) -> set[str]:
    return {
        path.relative_to(ROOT / folder).as_posix()
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and not {"__pycache__", "golden"} & set(path.parts)  # golden: the tests' texts
        and not path.name.endswith(".pyc")
    }


def test_the_wheel_holds_every_file_of_the_package_and_the_templates(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {f"runner/{name}" for name in _shipped("runner")}
    wanted |= {f"runner/site_templates/{name}" for name in _shipped("site_templates")}
    assert wanted - names == set(), "files koth has that its wheel lacks"
    assert "runner/jail/jailstep.c" in names and "runner/games/snakes/rules.md" in names
    assert not [n for n in names if n.startswith(("tests/", "entries/", "docs/"))]


@dataclass(frozen=True)
class Installed:
    user: User
    koth: Path
    home: Path  # a folder of the user's: seasons are copied here, its cache is here


@pytest.fixture(scope="module", params=["root", "user"])
def installed(
    request: pytest.FixtureRequest, wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    """The wheel installed into a new virtual environment, made and used by root or by a user
    who is not root, outside any checkout."""
    user = User.root() if request.param == "root" else User.not_root()
    with user_folder(user, tmp_path_factory.mktemp(f"as-{request.param}")) as home:
        shutil.copy2(wheel, home / wheel.name)
        user.take(home)
        venv = home / "venv"
        made = user.run([user.python(), "-m", "venv", str(venv)], cwd=home)
        assert made.returncode == 0, made.stdout
        pip = user.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", wheel.name], home
        )
        assert pip.returncode == 0, pip.stdout
        yield Installed(user, venv / "bin" / "koth", home)


def season_copy(game: str, target: Path) -> Path:
    """A short copy of ``game``'s season in ``target``: its configuration's path."""
    source, kept, edits = SEASONS[game]
    config = example_copy(ROOT / source, target, edits)
    for entry in (target / "entries").iterdir():
        if entry.name not in kept:
            shutil.rmtree(entry)
    return config


def games_to_play(user: User, sandbox: str) -> list[str]:
    """Every game as the workflows run koth (root, Docker) and as a laptop does (a user who is
    not root, local); the default season alone in the two other ways. What a game needs from
    the wheel (its rules, C sources, recipes, templates) is the same whoever runs it, and what
    differs by user or sandbox (who owns the cache, the walls said to be missing, the build
    jail's way without root) is the same for every game."""
    every = (user.is_root and sandbox == "docker") or (not user.is_root and sandbox == "local")
    return list(SEASONS) if every else ["snakes"]


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_the_installed_koth_plays_and_renders_every_game(
    installed: Installed, sandbox: str, request: pytest.FixtureRequest
) -> None:
    if sandbox == "docker":
        request.getfixturevalue("docker_sandbox")  # an engine, or skip (fail under CI)
    user, cache = installed.user, installed.home / f"cache-{sandbox}"
    env = user.environment()
    env.update(XDG_CACHE_HOME=str(cache))  # empty: the fresh machine
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{installed.koth.parent}:/usr/local/bin:/usr/bin:/bin"
    for game in games_to_play(installed.user, sandbox):
        folder = installed.home / f"{game}-{sandbox}"
        config = season_copy(game, folder)
        user.take(folder)
        command = [str(installed.koth), "season", "--config", str(config), "--sandbox", sandbox]
        done = user.run([*command, "--no-progress"], cwd=folder, env=env, timeout=900)
        assert done.returncode == 0, f"{game}, {sandbox}:\n{done.stdout[-4000:]}"
        assert "Traceback" not in done.stdout, done.stdout[-4000:]
        note = "koth: note: not running as root" in done.stdout
        assert note == (not user.is_root), "what a season lacks without root is said, once"
        assert done.stdout.count("not running as root") <= 1
        site = folder / "_site"
        games = list((site / "games").glob("*.html"))
        assert (site / "index.html").is_file() and games, f"{game}: no site"
        rules = (site / "rules.html").read_text(encoding="utf-8")
        assert f"runner/games/{game}/rules.md" in rules, f"{game}: the rules page from the wheel"
        assert (site / "static" / "replay.js").is_file()
        made = (cache / "koth").iterdir() if (cache / "koth").is_dir() else iter(())
        assert all(p.stat().st_uid == user.uid for p in made), "the cache is the user's own"
