"""The ``koth`` command: argument parsing only; each subcommand calls one stage.

Errors a user can fix (configuration, entries, a missing compiler) print one paragraph and exit
with code 2; a failed build exits with 1. No traceback reaches the user for those.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

from runner import __version__
from runner.cli import author, ci, organiser
from runner.cli.arguments import UsageError
from runner.season.config import ConfigError

# `koth --help` lists the commands by who runs them: a bot author needs the first group only.
GROUPS = (
    ("for bot authors", ("new", "play", "replay")),
    (
        "for organisers (a season, stage by stage or all in a row)",
        ("season", "build", "check", "schedule", "play-season", "merge", "standings", "site"),
    ),
    (
        "for the GitHub workflows (docs/hosting.md)",
        (
            "changed",
            "preview",
            "report",
            "plan",
            "shards",
            "image",
            "restore",
            "restore-history",
            "announce",
            "comment",
            "ci",
        ),
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="koth",
        usage="koth [-h] [--version] COMMAND ...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"koth {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog="koth")
    author.add_play_command(commands)
    author.add_new_command(commands)
    organiser.add_season_commands(commands)
    author.add_replay_command(commands)
    ci.add_ci_commands(commands, main)
    parser.description = _description(commands)
    commands.help = argparse.SUPPRESS  # listed by group in the description instead
    parser.epilog = (
        "`koth COMMAND --help` explains each command. Every stage of a season caches or keys\n"
        "its work, so a re-run does only what changed."
    )
    return parser


def _description(commands: Any) -> str:
    """The commands, in ``GROUPS``, each with its one-line help."""
    helps = {action.dest: action.help or "" for action in commands._choices_actions}
    missing = set(helps) - {name for _, names in GROUPS for name in names}
    assert not missing, f"commands in no group of `koth --help`: {sorted(missing)}"
    width = max(map(len, helps)) + 2
    lines = [
        "koth hosts King-of-the-Hill programming games: it builds bots from entries/, plays "
        "them\nagainst each other in a sandbox, and reports the results."
    ]
    for title, names in GROUPS:
        lines.append(f"\n{title}:")
        lines += [f"  {name:<{width}}{helps[name]}" for name in names]
    return "\n".join(lines)


def _interruptible() -> None:
    """Ctrl-C (SIGINT) interrupts koth, which then exits 130, even when whatever started it
    ignored SIGINT (a shell's background job does: Python then leaves it ignored)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from runner.jail import walls

    walls.make_undumpable()  # no bot running under this user may trace or read the host
    _interruptible()
    try:
        code: int = args.func(args)
    except (ConfigError, UsageError) as exc:
        print(f"koth: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("koth: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `koth … | head`: the reader has gone; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":
    sys.exit(main())
