"""Every language of runner/common/languages.py, end to end: its row is read alike by every stage,
and `koth new NAME --lang L` writes, from the game's starter (runner/games/<game>/starters/: bots
written to the game's own protocol, Domineering's arena's and Multisnake's server's, nothing of
koth's), an entry that builds and passes `koth check`'s smoke games against the game's built-in bot
with no fault, in the local sandbox (one season per starter: the machine's toolchains,
.ci/languages.sh) and under Docker (one season per game with every starter: one image holds them
all; a language that does not run there yet is refused, saying why). The Docker image holds the
packages of the season's languages only. The Befunge-93 interpreter koth ships runs the
specification's programs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from needs import require, require_toolchain

from runner.cli.main import main
from runner.common import languages, resources
from runner.games import find_game
from runner.jail import zygote
from runner.sandbox import docker
from runner.season.config import load_config
from runner.season.workers import bot_limits, season_languages

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ROOT = os.geteuid() == 0
# The games' example seasons the starters are checked in (Snakes has none: a season of defaults).
SEASONS = {
    "domineering": "domineering-v2",
    "egghunt": "egghunt-v1",
    "multisnake": "multisnake-v2",
    "snakes": "snakes-v2",
}
WRITTEN = sorted(
    (game, language) for game, spec in SEASONS.items() for language in find_game(spec).starters()
)
# Quick to build and start: the rest are marked slow (a JVM, Mono, Go's and Rust's compilers).
QUICK = {"c", "lua", "javascript", "pascal", "brainfuck", "befunge"}


def test_every_row_is_complete_and_read_alike() -> None:
    ids = [row.id for row in languages.LANGUAGES]
    assert len(set(ids)) == len(ids), "a language twice"
    sources = [row.source for row in languages.LANGUAGES]
    assert len(set(sources)) == len(sources), "two languages with one source file name"
    for row in languages.LANGUAGES:
        assert row.build and row.artefacts and row.run and row.packages, row.id
        assert row.own or row.run[0].startswith("/"), f"{row.id}: a runtime named by its path"
        assert row.memory == "group" or row.threads == 0 or row.id == "", row.id
    python = languages.find("python")
    assert tuple(python.run[:-1]) == zygote.PYTHON_COMMAND, "Python bots run as the zygote is"
    for game in ("cluster-v2", "domineering-v2", "egghunt-v1", "multisnake-v2"):
        assert find_game(game).languages == languages.IDS, game
    assert find_game("snakes-v2").languages == ("c",)


def test_each_seat_gets_its_languages_limits(tmp_path: Path) -> None:
    """Java twice C's time (the Domineering statement), a runtime's threads and memory model;
    the season's limits carry every language's to the referee."""
    config = load_config(REPO / "examples" / "domineering" / "tournament.yaml")
    season = bot_limits(config)
    for language in languages.IDS:
        row = languages.find(language)
        assert season.of(language) == bot_limits(config, language)
        assert season.of(language).threads == row.threads
        assert season.of(language).address_space == (row.memory == "address-space")
    assert season.of("java").move_wall_s == 2 * season.of("c").move_wall_s
    assert season.of("go").threads > 0 and season.of("c").threads == 0


def test_a_runtime_command_gets_the_memory_limit() -> None:
    java = languages.find("java").command(256 << 20)
    assert "-Xmx128m" in java and not any("{" in arg for arg in java)
    # The command as the build left it is the runtime's; the same runtime spelled otherwise
    # (a limit already put in, other flags) is run as given.
    assert languages.for_command(list(languages.find("java").run)) is languages.find("java")
    assert languages.for_command(java) is None
    assert languages.for_command(["/usr/bin/python3", "-IB", "bot.py"]) is None
    assert languages.for_command(["./bot"]) is None  # a program of its own: nothing to add


BEFUNGE_PROGRAMS = [
    ('"!olleH",,,,,,@', "", "Hello!"),
    ("&&+.@", "3 4\n", "7 "),
    ("&:*.@", "-12", "144 "),
    ("~,~,~.@", "ab", "ab-1 "),  # the end of the input reads -1
    ("5 0/.@", "", "0 "),  # division by zero gives 0
    ("v\n>2.@", "", "2 "),  # down, then right
    ("<@.3", "", "3 "),  # left, wrapping round the edge
    ("1#2.@", "", "1 "),  # the bridge skips a cell
    ('"A"00p00g,@', "", "A"),  # put and get
    ("123\\..@", "", "2 3 "),  # swap
    ("$$.@", "", "0 "),  # an empty stack pops 0
]


@pytest.fixture(scope="module")
def befunge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("befunge")
    source = resources.shipped("runner.common", "befunge93.c")
    binary = folder / "befunge"
    command = ["gcc", "-std=c11", "-O2", "-Wall", "-DKOTH_BEFUNGE_NO_PROGRAM", str(source)]
    subprocess.run([*command, "-o", str(binary)], check=True)
    return binary


@pytest.mark.parametrize(("program", "given", "expected"), BEFUNGE_PROGRAMS)
def test_the_befunge_interpreter_runs_the_specifications_programs(
    befunge: Path, tmp_path: Path, program: str, given: str, expected: str
) -> None:
    (tmp_path / "p.bf93").write_text(program)
    done = subprocess.run(
        [str(befunge), str(tmp_path / "p.bf93")], input=given.encode(), capture_output=True
    )
    assert done.stdout.decode() == expected, program


def _season(tmp_path: Path, game: str, written: list[str], sandbox: str) -> Path:
    """The game's example tournament.yaml, with an entry made by `koth new` in each language of
    ``written`` (named as the language)."""
    example = REPO / "examples" / game
    if (example / "maps").is_dir():
        shutil.copytree(example / "maps", tmp_path / "maps")
    if example.is_dir():
        text = (example / "tournament.yaml").read_text()
        assert "sandbox: local" in text
    else:
        text = f"game: {SEASONS[game]}\nsandbox: local\nentries: entries\n"
    (tmp_path / "tournament.yaml").write_text(text.replace("sandbox: local", f"sandbox: {sandbox}"))
    config = tmp_path / "tournament.yaml"
    for language in written:
        assert main(["new", language, "--lang", language, "--config", str(config)]) == 0
    return config


def _checked(
    tmp_path: Path, game: str, written: list[str], sandbox: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`koth check` of a season of the bots written in ``written``: those that run in
    ``sandbox`` build and play their smoke games with no fault; the rest (a language that does
    not run under Docker yet) are refused at build, saying why."""
    config = _season(tmp_path, game, written, sandbox)
    code = main(["check", "--config", str(config)])
    out = capsys.readouterr().out
    refused = [
        language
        for language in written
        if sandbox == "docker" and languages.find(language).not_in_docker
    ]
    plays = len(written) - len(refused)
    assert f"{plays} play, {len(refused)} excluded" in out, out
    assert code == (1 if refused else 0), out
    assert "fault" not in out, out
    for language in refused:
        assert f"{languages.find(language).name} bots do not run in the Docker sandbox" in out


def _cases() -> list[object]:
    cases: list[object] = []
    for game, language in WRITTEN:
        marks = [] if language in QUICK else [pytest.mark.slow]
        cases.append(pytest.param(game, language, marks=marks, id=f"{game}-{language}"))
    return cases


def test_every_language_has_a_starter_for_each_game_it_is_tested_in() -> None:
    """Every language beyond C, C++ and Python (the examples' own) has a Multisnake starter,
    and a Domineering or an Egg Hunt one (the esolangs: a process a move)."""
    for language in languages.IDS:
        if language in ("c", "cpp", "python"):
            continue
        assert ("multisnake", language) in WRITTEN, language
        assert ("domineering", language) in WRITTEN or ("egghunt", language) in WRITTEN, language
    assert ("snakes", "c") in WRITTEN


def test_koth_new_refuses_what_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _season(tmp_path, "multisnake", ["lua"], "local")
    assert main(["new", "lua", "--lang", "lua", "--config", str(config)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["new", "mine", "--lang", "cpp", "--config", str(config)]) == 2
    assert "no starter in it (its starters: pascal, rust" in capsys.readouterr().err
    assert main(["new", "Bad Name", "--lang", "lua", "--config", str(config)]) == 2
    assert "not a valid entry name" in capsys.readouterr().err
    assert (tmp_path / "entries" / "lua" / "bot.lua").is_file()
    assert "language: lua" in (tmp_path / "entries" / "lua" / "entry.yaml").read_text()


@pytest.mark.skipif(not ROOT, reason="the walls of every runtime need root locally")
@pytest.mark.parametrize(("game", "language"), _cases())
def test_each_starter_plays_in_the_local_sandbox(
    tmp_path: Path, game: str, language: str, capsys: pytest.CaptureFixture[str]
) -> None:
    require_toolchain(language)
    _checked(tmp_path, game, [language], "local", capsys)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEASONS))
def test_the_starters_in_every_language_play_under_docker(
    tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    require("docker")
    _checked(tmp_path, game, sorted(name for g, name in WRITTEN if g == game), "docker", capsys)


def test_the_image_holds_the_packages_of_the_seasons_languages(tmp_path: Path) -> None:
    """A season in C, C++ and Python gets an image with no other language's packages (and the
    tag every such season shares); one with a Rust entry gets rustc, and a tag of its own; the
    languages whose bots do not run under Docker yet add nothing."""
    plain = docker.image_arguments(())
    assert plain["PACKAGES"] == "" and plain["VIEW_MORE"] == ""
    assert docker.image_tag(("c", "python", "befunge")) == docker.image_tag()
    rust = docker.image_arguments(("c", "rust"))
    assert rust["PACKAGES"].split() == list(languages.find("rust").packages)
    assert docker.image_tag(("rust",)) != docker.image_tag()
    every = docker.image_arguments(languages.IDS)["PACKAGES"].split()
    runs = [row.id for row in languages.LANGUAGES if not row.not_in_docker]
    assert every == languages.packages(languages.extra(runs))
    for row in languages.LANGUAGES:
        if row.not_in_docker:
            assert not set(row.packages) & set(every), row.id  # refused there: none needed
    config = _season(tmp_path, "multisnake", ["java", "lua"], "docker")
    assert season_languages(load_config(config)) == ("java", "lua")


def test_the_games_page_lists_every_language_as_its_row_says() -> None:
    page = (REPO / "docs" / "games.md").read_text()
    for row in languages.LANGUAGES:
        docker = "yes" if not row.not_in_docker else f"not yet: {row.not_in_docker}"
        cells = [row.name, f"`{row.id}`", f"`{row.source}`", ", ".join(row.packages)]
        cells += [str(row.threads or "—"), f"{row.time:g}×", docker]
        assert "| " + " | ".join(cells) + " |" in page, row.id


def test_ci_installs_every_languages_packages() -> None:
    """.ci/run installs what the table names, read by a program that needs no koth installed."""
    assert "bash .ci/languages.sh" in (REPO / ".ci" / "run").read_text()
    assert "python3 runner/common/languages.py" in (REPO / ".ci" / "languages.sh").read_text()
    script = REPO / "runner" / "common" / "languages.py"
    done = subprocess.run(
        [sys.executable, "-I", str(script)], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == languages.packages()
