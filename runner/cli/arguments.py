"""What every `koth` command shares: its configuration, the options of the season's commands,
the errors a user can fix (one paragraph, exit code 2), and messages on stderr."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner.common.progress import to_stderr
from runner.season.config import Config, load_config

DEFAULT_CONFIG = Path("tournament.yaml")


class UsageError(Exception):
    """A mistake the user can fix; printed as one paragraph, exit code 2."""


def config_of(args: argparse.Namespace) -> Config:
    path: Path | None = args.config
    if path is None and DEFAULT_CONFIG.is_file():
        path = DEFAULT_CONFIG
    overrides: dict[str, object] = {}
    for key in ("seed", "jobs", "sandbox", "rounds"):
        value = getattr(args, key, None)
        if value is not None:
            overrides[key] = value
    return load_config(path, overrides)


say = to_stderr


@contextmanager
def host_errors() -> Iterator[None]:
    """SIGTERM stops like Ctrl-C; a host problem (no compiler, ...) becomes a UsageError."""
    from runner.season import check, workers

    try:
        with workers.sigterm_interrupts():
            yield
    except check.SeasonError as exc:
        raise UsageError(str(exc)) from None


def options(parser: argparse.ArgumentParser, *names: str) -> None:
    """The options shared by the season's commands (each is also a tournament.yaml field)."""
    parser.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    parser.add_argument(
        "--sandbox",
        choices=("local", "docker"),
        help="where bots are built and run (default: "
        "the config's): local processes with rlimits, or hardened Docker containers",
    )
    if "seed" in names:
        parser.add_argument("--seed", type=int, help="the season seed (default: the config's)")
    if "rounds" in names:
        parser.add_argument(
            "--rounds", type=int, help="how many times each pair meets in each seating"
        )
    if "jobs" in names:
        parser.add_argument(
            "--jobs",
            type=int,
            help="games played (`koth site`: game pages rendered) in parallel "
            "(default: the config's, or cores)",
        )
    if "play" in names:
        parser.add_argument(
            "--max-games",
            type=int,
            metavar="N",
            help="play at most N games, then stop (the next run plays the rest)",
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="no progress bar or progress lines"
        )
    if "check" in names or "verdicts" in names:
        parser.add_argument(
            "--recheck",
            action="store_true",
            help="play every entry's smoke games again, whatever build/<entry>/check.json "
            "says (a cached verdict is shown as `(cached)`)",
        )
    if "verdicts" in names:
        parser.add_argument(
            "--verdicts",
            type=Path,
            metavar="FILE",
            help="who plays, as judged by `koth check --out FILE` (e.g. in another job); "
            "the entries are built here but not checked again",
        )


def subcommand(commands: Any, name: str, help_: str, description: str) -> argparse.ArgumentParser:
    """A subcommand with its one-line help and its description paragraph."""
    sub: argparse.ArgumentParser = commands.add_parser(name, help=help_, description=description)
    return sub


@contextmanager
def stage(args: argparse.Namespace) -> Iterator[tuple[Config, Any, Any]]:
    """The config, a sandbox and a game pool for one command."""
    from runner.season import workers

    config = config_of(args)
    with host_errors():
        sandbox = workers.make_sandbox(config)
        try:
            with workers.open_pool(config, sandbox) as pool:
                yield config, sandbox, pool
        finally:
            sandbox.close()
