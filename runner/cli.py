"""The ``koth`` command: argument parsing only; each subcommand calls one stage.

Errors a user can fix (configuration, entries, a missing compiler) print one paragraph and exit
with code 2; a failed build exits with 1. No traceback reaches the user for those.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from runner import __version__
from runner.config import Config, ConfigError, load_config
from runner.sandbox.local import BotLimits

DEFAULT_CONFIG = Path("tournament.yaml")


class UsageError(Exception):
    """A mistake the user can fix; printed as one paragraph, exit code 2."""


def bot_limits(config: Config) -> BotLimits:
    limits = config.limits
    return BotLimits(
        move_cpu_s=limits.move_cpu_ms / 1000.0,
        game_cpu_s=limits.game_cpu_s,
        move_wall_s=limits.move_wall_s,
        memory_bytes=limits.memory_mib << 20,
    )


def _config(args: argparse.Namespace) -> Config:
    path: Path | None = args.config
    if path is None and DEFAULT_CONFIG.is_file():
        path = DEFAULT_CONFIG
    overrides: dict[str, object] = {}
    for key in ("seed", "jobs", "sandbox", "rounds"):
        value = getattr(args, key, None)
        if value is not None:
            overrides[key] = value
    return load_config(path, overrides)


def _print_frame(text: str, header: str) -> None:
    sys.stdout.write("\x1b[H\x1b[2J" + header + "\n" + text + "\n")
    sys.stdout.flush()


def cmd_play(args: argparse.Namespace) -> int:
    from runner import entries
    from runner.build import build_entry
    from runner.games import find_game
    from runner.referee import Player, play_game
    from runner.sandbox.local import LocalSandbox

    config = _config(args)
    game = find_game(config.game)
    limits = bot_limits(config)
    sandbox = LocalSandbox()
    try:
        players = []
        for name in (args.x, args.o):
            try:
                entry = entries.find(config.entries, name)
            except LookupError as exc:
                raise UsageError(str(exc)) from None
            build = build_entry(
                entry, config.output.build, sandbox, limits, config.limits.build_wall_s
            )
            if not build.ok:
                print(f"{name}: {build.message}", file=sys.stderr)
                return 1
            players.append(Player(entry.name, entry.content_hash, build.jail_path))
        seed = args.seed if args.seed is not None else config.seed
        watch = None
        if args.watch:
            delay = args.delay

            def watch(state: Any) -> None:
                x, o = game.scores(state)
                _print_frame(game.render_text(state), f"turn {game.turn(state)}   X {x}  O {o}")
                time.sleep(delay)

        result = play_game(game, players, sandbox, limits, seed, on_state=watch)
    finally:
        sandbox.close()
    if args.json:
        print(json.dumps(result.to_dict(), indent=None if args.compact else 2))
        return 0
    seats = game.info.seat_names
    outcome = result.outcome
    for seat, (player, name) in enumerate(zip(result.players, result.names, strict=True)):
        print(
            f"{seats[seat]}: {name} ({player.entry})  {outcome.points[seat]:g} point(s), "
            f"{result.scores[seat]} cells, {result.cpu_s[seat] * 1000:.1f} ms CPU"
        )
    if all(p == outcome.points[0] for p in outcome.points):
        verdict = "draw"
    else:
        best = max(range(len(outcome.points)), key=lambda s: outcome.points[s])
        verdict = f"{seats[best]} ({result.names[best]}) wins"
    print(f"result: {verdict} — {outcome.termination.value}: {outcome.detail}")
    print(f"{len(result.moves)} moves, seed {seed}")
    if not args.watch:
        from runner.games import find_game as _find

        print(_final_frame(_find(config.game), result))
    return 0


def _final_frame(game: Any, result: Any) -> str:
    import random

    state = game.initial_state(random.Random(result.seed))
    for index, text in enumerate(result.moves):
        seat = game.to_move(state)[0]
        state = game.apply(state, {seat: game.parse_move(seat, text)})
        del index
    return str(game.render_text(state))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="koth",
        description=(
            "koth hosts King-of-the-Hill programming games: it builds bots from entries/, plays "
            "them against each other in a sandbox, and reports the results."
        ),
    )
    parser.add_argument("--version", action="version", version=f"koth {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = commands.add_parser(
        "play",
        help="play one game between two entries and print the result",
        description=(
            "Build two entries (cached) and play one game between them: the first takes seat X, "
            "the second seat O. Prints both bots, the result, why the game ended and the final "
            "frame."
        ),
    )
    play.add_argument("x", metavar="X", help="entry name (a folder under entries/) playing X")
    play.add_argument("o", metavar="O", help="entry name playing O")
    play.add_argument("--seed", type=int, help="the game seed (default: the config's seed)")
    play.add_argument("--watch", action="store_true", help="animate the game in the terminal")
    play.add_argument(
        "--delay", type=float, default=0.02, help="seconds between frames with --watch (0.02)"
    )
    play.add_argument("--json", action="store_true", help="print the full game record as JSON")
    play.add_argument("--compact", action="store_true", help="with --json: one line")
    play.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    play.set_defaults(func=cmd_play)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (ConfigError, UsageError) as exc:
        print(f"koth: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("koth: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
