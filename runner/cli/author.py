"""The commands for bot authors: `koth play` (one game, watched or played by a person) and
`koth replay` (a recorded game's bytes, or one seat's inputs fed to a bot)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from runner.cli.arguments import (
    UsageError,
    config_of,
    options,
    say,
    subcommand,
)
from runner.common import languages
from runner.common.safefiles import shown_text
from runner.season.config import Config


def _players(
    config: Config, names: list[str], sandbox: Any, game: Any, pace: float = 0.0
) -> list[Any]:
    """Build the named entries (cached) and seat them in order; UsageError for a bad name,
    a count of seats the game does not allow, or an entry that does not build. The name
    ``you`` seats the person at the keyboard (moves every ``pace`` seconds)."""
    from runner.play.human import HUMAN, human_seat
    from runner.play.referee import Player
    from runner.season import entries
    from runner.season.build import build_entry
    from runner.season.workers import bot_limits

    if not game.info.allows(len(names)):
        allowed = game.info.seat_counts or range(game.info.min_players, game.info.max_players + 1)
        counts = ", ".join(map(str, allowed))
        raise UsageError(
            f"{game.id} is played by {counts} entries, not {len(names)}. Fix: name that many "
            "entries, e.g. `koth play a b`."
        )
    players = []
    for name in names:
        if name == HUMAN:
            opens = human_seat(sys.stdin.fileno(), pace)
            players.append(Player(HUMAN, "human", Path(os.devnull), opens=opens))
            continue
        try:
            entry = entries.find(config.entries, name)
        except LookupError as exc:
            raise UsageError(str(exc)) from None
        build = build_entry(
            entry,
            config.output.build,
            sandbox,
            bot_limits(config),
            config.limits.build_wall_s,
            game,
        )
        if not build.ok:
            raise UsageError(f"{name} does not build: {build.message}")
        players.append(build.player())
    return players


def _watcher(game: Any, delay: float, last: list[Any], names: list[str], note: str = "") -> Any:
    """What ``koth play`` does with each state: keep it, and with --watch draw it (under
    the players' names and scores, and ``note``, if any) and read the watcher's keys."""
    from runner.tools import watch

    shown = None
    if delay >= 0:
        # A person's seat reads the keyboard itself: the watcher's keys are off then.
        controls = watch.Controls(None if note else watch.keyboard())
        shown = watch.watcher(game, delay, names, note, controls)

    def seen(state: Any) -> None:
        last[:] = [state]
        if shown is not None:
            shown(state)

    return seen


def _terminal_input() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError):  # no descriptor at all (an embedding host's stand-in stdin)
        return False


def _human(args: argparse.Namespace, game: Any) -> str:
    """With the seat ``you`` among the entries: the line a person reads over each frame (their
    seat, the keys); "" without. UsageError where a person cannot play."""
    from runner.play.human import HUMAN

    seats = [s for s, name in enumerate(args.entries) if name == HUMAN]
    if not seats:
        return ""
    if game.keyboard is None:
        raise UsageError(
            f"{game.id} cannot be played from the keyboard: `{HUMAN}` seats a person only in "
            "games that say which key makes which move (Multisnake). Fix: name entries only."
        )
    if len(seats) > 1:
        raise UsageError(f"`{HUMAN}` may take one seat, not {len(seats)}. Fix: name it once.")
    if not _terminal_input():
        raise UsageError(
            f"`{HUMAN}` plays from the keyboard, but standard input is not a terminal. Fix: run "
            "`koth play` in a terminal, without redirecting its input."
        )
    if not 0.01 <= args.pace <= 10:
        raise UsageError(f"--pace {args.pace:g}: expected 0.01 to 10 seconds a turn.")
    return (
        f"You are {game.seat_name(seats[0])}: {game.keyboard.help}; a turn every "
        f"{args.pace:g} s. Ctrl-C stops the game.\n"
    )


def _record(
    config: Config, game: Any, played: dict[str, Any], seed: int, setup: Any
) -> dict[str, Any]:
    """The game as a results record, which `koth replay` takes (as a line, or from a file of
    them given with --results): keyed by its game, seats and seed, and by its setup's name and
    hash when it is one of the configuration's."""
    from runner.season import results

    named = next((s for s in config.free_for_all.setups if s.as_dict() == setup), None)
    ident = {"name": named.name, "hash": named.hash} if named is not None else None
    seats = [(seat["entry"], seat["hash"]) for seat in played["seats"]]
    key = results.record_key(game.id, seats, seed, ident)
    when = played.get("measured", {}).get("when") or results.utc_now()
    return results.make_record(played, key=key, season_seed=seed, round_=1, when=when, setup=ident)


def _play_setup(args: argparse.Namespace, config: Config, game: Any, seats: int) -> Any:
    """The setup a game of ``koth play`` is played with: the configured one named by --setup,
    else the first configured one the game can play at this many seats, else the game's own
    sample. UsageError naming what is wrong with a --setup that does not fit."""
    configured = config.free_for_all.setups
    if args.setup is not None:
        named = [s for s in configured if s.name == args.setup]
        if not named:
            known = ", ".join(s.name for s in configured) or "none"
            raise UsageError(
                f"--setup {args.setup}: no such setup in the configuration (its setups: "
                f"{known}). Fix: name one of them, or leave --setup out."
            )
        problem = game.setup_problem(named[0].as_dict(), seats)
        if problem is not None:
            raise UsageError(
                f"--setup {args.setup} cannot be played by {seats}: {problem}. Fix: choose "
                "another setup, or another number of entries."
            )
        return named[0].as_dict()
    for setup in configured:
        if game.setup_problem(setup.as_dict(), seats) is None:
            return setup.as_dict()
    return game.sample_setup(seats)


def _print_result(game: Any, result: Any, seed: int) -> None:
    outcome = result.outcome
    places = outcome.places
    for seat, (player, name) in enumerate(zip(result.players, result.names, strict=True)):
        print(
            f"{game.seat_name(seat)}: {name} ({player.entry})  place {places[seat]}, "
            f"{outcome.points[seat]:g} point(s), "
            f"{game.info.score_label.format(result.scores[seat])}, "
            f"{result.cpu_s[seat] * 1000:.1f} ms CPU"
        )
    winners = [s for s, place in enumerate(places) if place == 1]
    if len(winners) == len(places):
        verdict = "draw"
    else:
        verdict = " and ".join(f"{game.seat_name(s)} ({result.names[s]})" for s in winners)
        verdict += " wins" if len(winners) == 1 else " share first place"
    # A fault quotes what a bot sent (escaped where the fault is worded; kept so here too)
    print(shown_text(f"result: {verdict} — {outcome.termination.words}: {outcome.detail}"))
    for fault in outcome.faults:
        print(shown_text(f"fault: {fault.detail}"))
    print(f"{len(result.moves)} moves, seed {seed}")


def cmd_play(args: argparse.Namespace) -> int:
    from runner.games import find_game
    from runner.play.referee import play_game
    from runner.play.terminal import cbreak
    from runner.season.workers import bot_limits, new_sandbox, season_languages
    from runner.tools.watch import Quit

    config = config_of(args)
    game = find_game(config.game)
    seed = args.seed if args.seed is not None else config.seed
    note = _human(args, game)
    watch = args.watch or bool(note)
    setup = _play_setup(args, config, game, len(args.entries))
    last: list[Any] = []
    sandbox = new_sandbox(config.sandbox, game, season_languages(config))
    names = [f"{game.seat_name(s)} {e}" for s, e in enumerate(args.entries)]
    keys = note or (watch and _terminal_input())
    try:
        players = _players(config, args.entries, sandbox, game, args.pace)
        seen = _watcher(game, args.delay if watch else -1.0, last, names, note)
        limits = bot_limits(config)
        with cbreak(sys.stdin.fileno()) if keys else contextlib.nullcontext():
            result = play_game(game, players, sandbox, limits, seed, on_state=seen, setup=setup)
    except Quit:
        print("\nkoth: the game was stopped (q) before its end", file=sys.stderr)
        return 130
    finally:
        sandbox.close()
    if watch and sys.stdout.isatty():
        print()  # the last frame was drawn in place: the rest goes under it
    if args.json:
        record = _record(config, game, result.to_dict(), seed, setup)
        print(json.dumps(record, indent=None if args.compact else 2))
        return 0
    _print_result(game, result, seed)
    if not watch:
        print(game.rules.render_text(last[0]))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    import shlex

    from runner.tools.replay.command import Options, ReplayUsageError, replay

    prefix = shlex.split(args.exec_prefix) if args.exec_prefix is not None else None
    if prefix is not None and (not prefix or args.bot is None):
        raise UsageError(
            "--exec-prefix runs a bot under a tool: give the tool (e.g. --exec-prefix "
            "'gdb --args') and the bot (--bot ENTRY)."
        )
    options = Options(
        game=args.game,
        seat=args.seat,
        bot=args.bot,
        first=args.first,
        until=args.until,
        watch=args.watch,
        delay=args.delay,
        exec_prefix=prefix,
        results=list(args.results or []),
        sandbox=args.sandbox or "local",
    )
    try:
        return replay(config_of(args), options, say=say)
    except ReplayUsageError as exc:
        raise UsageError(str(exc)) from None


def cmd_new(args: argparse.Namespace) -> int:
    """Write ``entries/NAME/`` from the game's starter in ``--lang``: its source and an
    entry.yaml."""
    from runner.games import find_game
    from runner.season.entries import name_problem

    config = config_of(args)
    game = find_game(config.game)
    starters = game.starters()
    if args.lang not in starters:
        offered = ", ".join(starters) or "none yet"
        raise UsageError(
            f"--lang {args.lang}: {game.id} has no starter in it (its starters: {offered}). "
            "Fix: choose one of them, or write the entry's files yourself (README: Adding your "
            "bot)."
        )
    problem = name_problem(args.name)
    if problem is not None:
        raise UsageError(problem)
    folder = config.entries / args.name
    if folder.exists():
        raise UsageError(f"{folder} exists. Fix: choose another name, or remove it first.")
    row = languages.find(args.lang)
    folder.mkdir(parents=True)
    shutil.copyfile(starters[args.lang], folder / row.source)
    manifest = (
        f"name: {args.name}\nauthor: {args.author}\nlanguage: {row.id}\n"
        f"description: koth's {row.name} starter for {game.id}; say your strategy here.\n"
    )
    (folder / "entry.yaml").write_text(manifest)
    print(f"wrote {folder}/ ({row.source}, entry.yaml): `koth check` builds it and plays it")
    return 0


def add_new_command(commands: Any) -> None:
    new = subcommand(
        commands,
        "new",
        "write a new entry from the game's starter in a language",
        "Write ENTRIES/NAME/ (the config's entries folder): the season's game's starter in "
        "--lang, a bot that builds and plays legal moves, and an entry.yaml naming it. The "
        "languages offered are the game's starters'.",
    )
    new.add_argument("name", help="the entry's folder name (lowercase letters, digits, - and _)")
    new.add_argument("--lang", required=True, help="the language (entry.yaml's `language:`)")
    new.add_argument("--author", default="your name", help="entry.yaml's author")
    options(new)
    new.set_defaults(func=cmd_new)


def add_play_command(commands: Any) -> None:
    play = commands.add_parser(
        "play",
        help="play one game between entries and print the result",
        description=(
            "Build the named entries (cached) and play one game of the config's game between "
            "them, one entry per seat in the order given (Snakes: the first is X, who moves "
            "first; a game of more seats takes as many entries as it has seats). Prints each "
            "seat's bot, place, points and CPU time, the result, why the game ended, any faults "
            "and the final frame. The name `you` seats you at the keyboard (Multisnake: "
            "`koth play you random random random` steers snake A with the arrow keys, at --pace "
            "seconds a turn)."
        ),
    )
    play.add_argument(
        "entries",
        nargs="+",
        metavar="ENTRY",
        help="entry names (folders under entries/), one per seat, the first seat first",
    )
    play.add_argument("--seed", type=int, help="the game seed (default: the config's seed)")
    play.add_argument("--watch", action="store_true", help="animate the game in the terminal")
    play.add_argument(
        "--delay", type=float, default=0.02, help="seconds between frames with --watch (0.02)"
    )
    play.add_argument(
        "--setup",
        metavar="NAME",
        help="the configured setup (a map, `free_for_all: setups:`) to play on, by name "
        "(default: the first that serves this many entries, else the game's own sample)",
    )
    play.add_argument(
        "--pace",
        type=float,
        default=0.3,
        help="with the seat `you` (you steer it from the keyboard): seconds a turn (0.3); "
        "your last key's move holds until you press another",
    )
    play.add_argument(
        "--json",
        action="store_true",
        help="print the game's record as JSON (what `koth replay` takes: the line itself, or a "
        "file of such lines with --results)",
    )
    play.add_argument("--compact", action="store_true", help="with --json: one line")
    options(play)
    play.set_defaults(func=cmd_play)


def add_replay_command(commands: Any) -> None:
    replay = subcommand(
        commands,
        "replay",
        "show a recorded game byte for byte, or feed a bot one seat's inputs from it",
        "Rebuild every position of a recorded game from its record. Without --bot, print the "
        "game turn by turn with what each seat was sent and what it answered, byte for byte, in "
        "the game's own protocol (a C function's call as its arguments and the int it "
        "returned). With --bot, feed that bot (an entry's name, built as usual, or the path of "
        "a bot's folder or source file, built in a scratch folder) the exact inputs seat "
        "--seat received, in order, in the local sandbox under the season's limits, and report "
        "the first turn where its answer differs from the record's, with the position there "
        "(or that it reproduces the game). GAME is a record's key or the start of one, its game "
        "page's address or file name, or a games.jsonl line; it is looked up in --results and "
        "the season's results (and, for a page's address, in the records published beside the "
        "site). Exits 0 when it reproduces, 1 when it diverges. docs/debugging.md has a worked "
        "example.",
    )
    replay.add_argument(
        "game", metavar="GAME", help="the game: a key (or its start), a page, a line"
    )
    replay.add_argument(
        "--seat", help="the seat: its number (1 first), its name (X, Blue) or the entry in it"
    )
    replay.add_argument(
        "--bot", metavar="PATH_OR_ENTRY", help="the bot fed the seat's inputs: an entry or a path"
    )
    replay.add_argument(
        "--from",
        dest="first",
        type=int,
        metavar="TURN",
        help="start at this turn (bots started afresh per move and C functions only: earlier "
        "moves are taken from the record)",
    )
    replay.add_argument("--until", type=int, metavar="TURN", help="stop after this turn")
    replay.add_argument("--watch", action="store_true", help="animate it in the terminal")
    replay.add_argument(
        "--delay", type=float, default=0.05, help="seconds between frames with --watch (0.05)"
    )
    replay.add_argument(
        "--exec-prefix",
        metavar="COMMAND",
        help="run the bot under this tool, OUTSIDE the sandbox and with no limits, e.g. "
        "'gdb --args' or 'valgrind': for debugging your own bot on your own machine",
    )
    replay.add_argument(
        "--results",
        type=Path,
        action="append",
        metavar="FILE",
        help="a results file or folder to look in first (e.g. a site's games.jsonl); repeatable",
    )
    replay.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    replay.add_argument(
        "--sandbox",
        choices=("local", "docker"),
        help="where --bot is built and run (default: local, whatever the config says)",
    )
    replay.set_defaults(func=cmd_replay)
