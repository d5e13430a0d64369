"""runner/ is built in layers, in pipeline order (docs/architecture.md draws them): a module may
import from its own layer and the layers below it, never from one above, and no modules import
each other in a circle. Every import counts, those inside functions too: an import hidden in a
function is still a room that reaches upstairs.

From the ground up:

- ``common``: what every layer shares (documents and files from strangers, shipped files, koth's
  own compiled C, progress, helper processes);
- ``jail``: what runs inside the sandbox; it imports nothing of koth's at all (its files are
  copied into the Docker image and run there alone);
- ``games.base`` and ``games.spec``: what a game is (its interface), beneath the play that uses it;
- ``sandbox``: the host's side of the walls, building and starting bots;
- ``play``: one game (the referee, seats, watchdogs, faults, the quick loop, playback);
- ``games``: each game's package and the registry (a game's quick loop drives its bots in C);
- ``season``, ``rank``, ``site``, ``tools``, ``cli``: a season, its ranking, its site, the
  authors' tools, the command line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "runner"
LAYERS = (
    "common",
    "jail",
    "games.interface",
    "sandbox",
    "play",
    "games",
    "season",
    "rank",
    "site",
    "tools",
    "cli",
)
INTERFACE = {"runner.games.base", "runner.games.spec"}


def modules() -> dict[str, Path]:
    found = {}
    for path in RUNNER.rglob("*.py"):
        if "builtin" in path.parts:  # bots of the games: programs of their own
            continue
        name = ".".join(path.relative_to(RUNNER.parent).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def layer(module: str) -> str | None:
    """The layer of a module of runner/, or None for the package's own face (runner/__init__)."""
    if module in INTERFACE:
        return "games.interface"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def imports(module: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """Every module of runner/ that ``module`` imports, with the line, wherever the import is."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # relative: from . import x
                package = module.split(".")[: -node.level or None]
                base = ".".join([*package, node.module])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in known else base
                if target in known and target != module:
                    yield target, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known and alias.name != module:
                    yield alias.name, node.lineno


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: {t for t, _ in imports(name, path, known)} for name, path in found.items()}


def test_every_module_of_runner_is_in_a_layer() -> None:
    homeless = [name for name in modules() if name != "runner" and layer(name) is None]
    assert homeless == [], f"modules outside the layers {LAYERS}: {homeless}"


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    found = modules()
    known = set(found)
    upward = []
    for name, path in sorted(found.items()):
        mine = layer(name)
        for target, line in imports(name, path, known):
            theirs = layer(target)
            if mine is None or theirs is None:
                continue
            if LAYERS.index(theirs) > LAYERS.index(mine):
                upward.append(
                    f"{path.relative_to(RUNNER.parent)}:{line} ({mine}) -> {target} ({theirs})"
                )
    assert upward == [], "imports from a higher layer:\n" + "\n".join(upward)


def test_the_jail_imports_nothing_of_koth() -> None:
    found = modules()
    known = set(found)
    reached = [
        f"{name} -> {target}"
        for name, path in found.items()
        if layer(name) == "jail"
        for target, _ in imports(name, path, known)
        if layer(target) != "jail" or name == target
    ]
    assert reached == [], reached


def test_no_modules_import_each_other_in_a_circle() -> None:
    edges = graph()
    circles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert circles == [], "circles of imports:\n" + "\n".join(circles)


@pytest.mark.parametrize("folder", [p for p in LAYERS if "." not in p])
def test_each_layer_says_what_it_is(folder: str) -> None:
    init = RUNNER / folder / "__init__.py"
    assert init.is_file(), f"runner/{folder}/ is no package"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc, f"runner/{folder}/__init__.py says nothing of what the layer is"
