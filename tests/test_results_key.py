"""The results key hashes what decides a game's outcome, and nothing else
(runner/season/results_key.py): a change to the rules replays the games, a change to the site,
its templates or the standings replays none."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from runner.cli import workflows
from runner.common import resources
from runner.season import results_key
from runner.season.config import load_config

ROOT = Path(__file__).resolve().parent.parent


def test_every_file_koth_ships_is_said_to_decide_outcomes_or_not() -> None:
    for name, _ in results_key._shipped():
        outcome = [p for p in results_key.OUTCOME if results_key.matches(name, p)]
        elsewhere = [p for p in results_key.ELSEWHERE if results_key.matches(name, p)]
        assert len(outcome) + len(elsewhere) == 1, (
            f"runner/{name}: name it in exactly one of results_key.OUTCOME (it can change how "
            f"a game ends) and ELSEWHERE (it cannot); it is in {outcome + elsewhere or 'none'}"
        )


def test_the_patterns_name_whole_folders_and_names() -> None:
    assert results_key.matches("games/snakes/rules.py", "games/*/rules.py")
    assert not results_key.matches("games/snakes/rules.py", "games/*.py"), "one folder a *"
    assert results_key.matches("games/snakes/builtin/steady/bot.c", "games/*/builtin/**")
    assert not results_key.matches("games/snakes/builtin", "games/*/builtin/**")


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the runner package and of the templates, made once."""
    folder = tmp_path_factory.mktemp("koth")
    caches = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "runner", folder / "runner", ignore=caches)
    shutil.copytree(ROOT / "site_templates", folder / "site_templates")
    return folder / "runner"


@pytest.fixture
def package(copied: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The copy, which koth takes for its own package; every file a test changes is put back."""
    shipped = resources.shipped

    def from_copy(package: str, *parts: str) -> Path:
        if package == "runner":
            return copied.joinpath(*parts)
        if package == resources.TEMPLATES_PACKAGE:
            return (copied.parent / "site_templates").joinpath(*parts)
        return shipped(package, *parts)

    monkeypatch.setattr(resources, "shipped", from_copy)
    before = {p: p.read_bytes() for p in copied.parent.rglob("*") if p.is_file()}
    yield copied
    for path, data in before.items():
        if path.read_bytes() != data:
            path.write_bytes(data)


def appended(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def docstring_changed(path: Path) -> None:
    text = path.read_text()
    start = text.index('"""') + 3
    path.write_text(text[:start] + "Reworded: " + text[start:])


REPLAY: dict[str, Callable[[Path], None]] = {
    "a rule": lambda r: appended(r / "games/snakes/rules.py", "\nMAX_MOVES_NOTE = 2048\n"),
    "the rules in C": lambda r: appended(r / "games/snakes/step.c", "\n/* a change */\n"),
    "a codec": lambda r: appended(r / "games/cluster/codec.py", "\n# a change\n"),
    "the referee": lambda r: appended(r / "play/referee.py", "\n# a change\n"),
    "a bot's walls": lambda r: appended(r / "jail/walls.py", "\n# a change\n"),
    "the sandbox image": lambda r: appended(r / "sandbox/Dockerfile", "\n# a change\n"),
    "a built-in bot": lambda r: appended(r / "games/snakes/builtin/steady/bot.c", "\n"),
    "a language's commands": lambda r: appended(r / "season/entries.py", "\n# a change\n"),
    "the quick loop": lambda r: appended(r / "play/quick.c", "\n/* a change */\n"),
    "the zygote": lambda r: appended(r / "jail/zygote.py", "\n# a change\n"),
}
KEEP: dict[str, Callable[[Path], None]] = {
    "a template": lambda r: appended(r.parent / "site_templates/index.html", "<!-- x -->\n"),
    "the player": lambda r: appended(r.parent / "site_templates/static/replay.js", "// x\n"),
    "the site's code": lambda r: appended(r / "site/render.py", "\nPAGE_NOTE = 1\n"),
    "a docstring of the site's": lambda r: docstring_changed(r / "site/pages.py"),
    "the standings": lambda r: appended(r / "rank/standings.py", "\n# a change\n"),
    "the ratings": lambda r: docstring_changed(r / "rank/ratings.py"),
    "a rules page": lambda r: appended(r / "games/snakes/rules.md", "\nMore words.\n"),
    "a game's look": lambda r: appended(r / "games/egghunt/presentation.py", "\n# x\n"),
    "the schedule": lambda r: appended(r / "season/schedule.py", "\n# a change\n"),
    "the replay tool": lambda r: appended(r / "tools/replay/command.py", "\n# a change\n"),
    "a game's golden text": lambda r: appended(r / "games/snakes/golden/snakes_initial.txt", "\n"),
}


@pytest.mark.parametrize("change", sorted(REPLAY))
def test_a_change_that_can_change_an_outcome_re_keys(package: Path, change: str) -> None:
    before = results_key.host_digest()
    REPLAY[change](package)
    assert results_key.host_digest() != before, f"{change}: every game must be played again"


@pytest.mark.parametrize("change", sorted(KEEP))
def test_a_change_that_cannot_change_an_outcome_keeps_the_key(package: Path, change: str) -> None:
    before = results_key.host_digest()
    KEEP[change](package)
    assert results_key.host_digest() == before, f"{change}: no game is to be played again"


def test_koth_plan_keys_by_the_rules_the_limits_and_the_extra_text(
    package: Path, tmp_path: Path
) -> None:
    config = load_config(ROOT / "tournament.yaml")
    key = workflows.plan_outputs(config)["results_key"]
    KEEP["a template"](package)
    KEEP["the site's code"](package)
    assert workflows.plan_outputs(config)["results_key"] == key
    assert workflows.plan_outputs(config, "more")["results_key"] != key, "--host is hashed too"
    REPLAY["a rule"](package)
    assert workflows.plan_outputs(config)["results_key"] != key
