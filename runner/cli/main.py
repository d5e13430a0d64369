"""The ``koth`` command: argument parsing only; each subcommand calls one stage.

Errors a user can fix (configuration, entries, a missing compiler) print one paragraph and exit
with code 2; a failed build exits with 1. No traceback reaches the user for those.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner import __version__
from runner.common.progress import to_stderr
from runner.common.safefiles import shown_indented, shown_text
from runner.season.config import Config, ConfigError, load_config

DEFAULT_CONFIG = Path("tournament.yaml")


class UsageError(Exception):
    """A mistake the user can fix; printed as one paragraph, exit code 2."""


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
    from runner.season.workers import bot_limits, new_sandbox
    from runner.tools.watch import Quit

    config = _config(args)
    game = find_game(config.game)
    seed = args.seed if args.seed is not None else config.seed
    note = _human(args, game)
    watch = args.watch or bool(note)
    setup = _play_setup(args, config, game, len(args.entries))
    last: list[Any] = []
    sandbox = new_sandbox(config.sandbox)
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
        print(json.dumps(result.to_dict(), indent=None if args.compact else 2))
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
        return replay(_config(args), options, say=_say)
    except ReplayUsageError as exc:
        raise UsageError(str(exc)) from None


# -- the season's stages ---------------------------------------------------------------------------


_say = to_stderr


@contextmanager
def _host_errors() -> Iterator[None]:
    """SIGTERM stops like Ctrl-C; a host problem (no compiler, ...) becomes a UsageError."""
    from runner.season import check, workers

    try:
        with workers.sigterm_interrupts():
            yield
    except check.SeasonError as exc:
        raise UsageError(str(exc)) from None


@contextmanager
def _stage(args: argparse.Namespace) -> Iterator[tuple[Config, Any, Any]]:
    """The config, a sandbox and a game pool for one command."""
    from runner.season import workers

    config = _config(args)
    with _host_errors():
        sandbox = workers.make_sandbox(config)
        try:
            with workers.open_pool(config, sandbox) as pool:
                yield config, sandbox, pool
        finally:
            sandbox.close()


def cmd_build(args: argparse.Namespace) -> int:
    from runner.season import check

    with _stage(args) as (config, sandbox, _pool):
        builds = check.build_all(config, sandbox)
    width = max([5, *(len(b.entry) for b in builds)])
    for b in builds:
        if b.ok:
            print(f"ok      {b.entry:<{width}}  {b.display_name}")
        else:
            print(f"FAILED  {b.entry:<{width}}  {b.stage}:\n{shown_indented(b.message)}")
    failed = sum(not b.ok for b in builds)
    print(f"{len(builds)} entries, {len(builds) - failed} built, {failed} failed")
    return 1 if failed else 0


def cmd_check(args: argparse.Namespace) -> int:
    from runner.season import check

    with _stage(args) as (config, sandbox, pool):
        builds = check.build_all(config, sandbox)
        verdicts = check.check_all(config, builds, sandbox, pool, _say, args.recheck)
    if args.out is not None:
        from runner.season.verdicts import write

        write(args.out, config, verdicts)
    width = max([5, *(len(v.entry) for v in verdicts)])
    for v in verdicts:
        cached = " (cached)" if v.cached else ""
        if v.ok:
            note = f"\n{shown_indented(v.note)}" if v.note else ""
            print(
                f"ok        {v.entry:<{width}}  {v.display_name}: builds and passes the smoke "
                f"games{cached}{note}"
            )
        else:
            print(f"EXCLUDED  {v.entry:<{width}}  {v.stage}{cached}:\n{shown_indented(v.message)}")
    excluded = sum(not v.ok for v in verdicts)
    print(f"{len(verdicts)} entries, {len(verdicts) - excluded} play, {excluded} excluded")
    if args.out is not None:
        print(f"verdicts written to {args.out}")
        return 0  # the file records the exclusions; the season goes on without those entries
    return 1 if excluded else 0


def _lineup(args: argparse.Namespace, config: Config, sandbox: Any, pool: Any) -> Any:
    """Who plays: checked here, or as the verdicts file of --verdicts says (built here)."""
    from runner.season import check, verdicts

    if getattr(args, "verdicts", None) is None:
        return check.lineup(config, sandbox, pool, say=_say, recheck=args.recheck)

    try:
        return verdicts.lineup(
            config, args.verdicts, lambda: check.build_all(config, sandbox), _say
        )
    except verdicts.VerdictsError as exc:
        raise UsageError(str(exc)) from None


def _shard(args: argparse.Namespace) -> Any:
    from runner.season.schedule import parse_shard

    if getattr(args, "shard", None) is None:
        return None
    try:
        return parse_shard(args.shard)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def cmd_schedule(args: argparse.Namespace) -> int:
    from runner.cli import stages
    from runner.games import find_game
    from runner.season.schedule import select_shard

    shard = _shard(args)
    with _stage(args) as (config, sandbox, pool):
        line = _lineup(args, config, sandbox, pool)
        plan, known = stages.season_plan(config, line, say=_say)
    stages.say_randomness(config, _say)
    games = select_shard(plan.games, shard)
    # A secret season's seeds are published with the records, after play: an unplayed game's
    # seed would let an entrant compute its board.
    rows: list[dict[str, Any]] = [
        {
            "index": g.index,
            "round": g.fixture.round,
            "seats": list(g.fixture.seats),
            "game": g.fixture.game,
            "seed": g.fixture.seed if g.key in known or not config.secret else None,
            "key": g.key,
            "recorded": g.key in known,
            **({"label": g.fixture.label} if g.fixture.label else {}),
            **({"setup": g.fixture.setup} if g.fixture.setup else {}),
        }
        for g in games
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    _print_schedule(rows, find_game(config.game).info.seat_names)
    done = sum(r["recorded"] for r in rows)
    part = f" in shard {shard}" if shard else ""
    print(f"{len(rows)} games{part}: {done} recorded, {len(rows) - done} to play")
    if plan.then:
        print(f"more games follow: {plan.then} (`koth play-season` plays them when they can be)")
    return 0


def _print_schedule(rows: list[dict[str, Any]], seat_names: tuple[str, ...]) -> None:
    names = [n for row in rows for n in row["seats"]]
    width = max([1, *(len(n) for n in names)])
    count = max([len(seat_names), *(len(row["seats"]) for row in rows)])
    heads = [seat_names[i] if i < len(seat_names) else f"seat {i}" for i in range(count)]
    seats = " ".join(f"{s:<{width}}" for s in heads)
    print(f"{'#':>5}  round  {seats}  {'seed':>19}  key           status")
    for row in rows:
        players = " ".join(f"{n:<{width}}" for n in row["seats"])
        status = "recorded" if row["recorded"] else "to play"
        label = f"  {row['label']}" if "label" in row else ""
        seed = "(secret)" if row["seed"] is None else row["seed"]
        print(
            f"{row['index']:>5}  {row['round']:>5}  {players}  {seed:>19}  "
            f"{row['key'][:12]}  {status}{label}"
        )


def _max_games(args: argparse.Namespace) -> int | None:
    value: int | None = args.max_games
    if value is not None and value < 0:
        raise UsageError(f"--max-games {value}: expected 0 or more. Fix: e.g. --max-games 10.")
    return value


def _report(report: Any, sharded: bool = False) -> int:
    where = report.out
    _say(f"played {report.played} game(s) into {where}; {report.recorded} were already recorded")
    if report.left:
        _say(f"{report.left} game(s) left unplayed (--max-games); run again to play them")
    for failure in report.failed:
        _say(f"not played: {failure}")
    if report.failed:
        _say(f"{len(report.failed)} game(s) could not be played; run again to retry them")
    if report.waiting and sharded:
        _say(
            f"not done yet: {report.waiting}. When every shard has played, merge the shards "
            "(`koth merge`) and run `koth play-season` again for the next games."
        )
    elif report.waiting and not report.left and not report.failed:
        _say(f"not done yet: {report.waiting}")
    return 1 if report.failed else 0


def cmd_play_season(args: argparse.Namespace) -> int:
    from runner.cli import stages

    shard = _shard(args)
    limit = _max_games(args)
    with _stage(args) as (config, sandbox, pool):
        line = _lineup(args, config, sandbox, pool)
        report = stages.play(
            config,
            line,
            pool,
            shard=shard,
            out=args.out,
            max_games=limit,
            show_progress=not args.no_progress,
            say=_say,
            sandbox=sandbox,
        )
    return _report(report, sharded=shard is not None)


def cmd_merge(args: argparse.Namespace) -> int:
    from runner.season import results

    try:
        count, problems = results.merge(args.inputs, args.out)
    except FileNotFoundError as exc:
        raise UsageError(
            f"{exc}. Fix: check the paths; each shard job writes results/shard-I-of-N.jsonl."
        ) from None
    for problem in problems:
        _say(f"warning: {problem}")
    rejected = (
        f"; rejected {len(problems)} line(s) (the warnings above say why)" if problems else ""
    )
    print(f"merged {count} record(s) from {len(args.inputs)} file(s) into {args.out}{rejected}")
    return 0


def _print_standings(config: Config, rows: Any, doc: dict[str, Any]) -> None:
    from runner.rank.standings import table

    print(table(rows))
    if "bracket" in doc:  # a knockout: the bracket, a round a line (runner/rank/bracket.py)
        from runner.rank.bracket import bracket_text

        print(bracket_text(doc["bracket"]))
    played, scheduled = doc["games_played"], doc["games_scheduled"]
    note = "" if played == scheduled else f" (incomplete: {scheduled - played} not yet played)"
    print(f"{played} of {scheduled} games{note}; written to {config.output.standings}")


def cmd_standings(args: argparse.Namespace) -> int:
    from runner.cli import stages

    with _stage(args) as (config, sandbox, pool):
        line = _lineup(args, config, sandbox, pool)
    with _host_errors():
        rows, doc = stages.standings(config, line, say=_say)
    _print_standings(config, rows, doc)
    return 0


def cmd_season(args: argparse.Namespace) -> int:
    from runner.cli import stages
    from runner.season.workers import Closing

    limit = _max_games(args)
    config = _config(args)
    # The sandbox and the workers close while the site renders; SIGTERM then stops like Ctrl-C
    # too, so the close is waited for.
    with _host_errors(), Closing() as closing:
        report, rows, doc = stages.run_season(
            config,
            max_games=limit,
            show_progress=not args.no_progress,
            say=_say,
            closing=closing,
            recheck=args.recheck,
        )
        code = _report(report)
        _print_standings(config, rows, doc)
        if not args.no_site:
            from runner.site.render import render_from_config

            print(render_from_config(config).summary())
    return code


def cmd_site(args: argparse.Namespace) -> int:
    from runner.site.render import render_from_config

    config = _config(args)
    report = render_from_config(
        config, args.results, args.standings, args.out, results_key=args.results_key
    )
    print(report.summary())
    return 0


def _options(parser: argparse.ArgumentParser, *names: str) -> None:
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


def _subcommand(commands: Any, name: str, help_: str, description: str) -> argparse.ArgumentParser:
    """A subcommand with its one-line help and its description paragraph."""
    sub: argparse.ArgumentParser = commands.add_parser(name, help=help_, description=description)
    return sub


def add_season_commands(commands: Any) -> None:
    add = functools.partial(_subcommand, commands)

    build = add(
        "build",
        "compile every entry and check its object (cached)",
        "Compile every entry under the entries folder in the sandbox, check the compiled "
        "object against the rules (no writable globals) and load it once. Results are "
        "cached in build/<entry>/ by the entry's content hash, so only new or edited "
        "entries are compiled. Prints a verdict per entry; exits 1 if any failed.",
    )
    _options(build)
    build.set_defaults(func=cmd_build)

    check = add(
        "check",
        "smoke-test every built entry against the built-in bot",
        "Build every entry (cached), then play its smoke games against the built-in bot "
        "(two seats: once in each seat; more: one game). An entry that fails its build, or "
        "cannot play by the rules' own consequence of a fault in a smoke game (two seats: "
        "any fault loses the game; the Easter Egg Hunt, where a fault costs a turn: no turn "
        "played at all), is excluded from the season and listed in the standings with the "
        "reason. A smoke game failed on wall-clock time alone (CPU within its limits) is "
        "played again, and never cached. Other verdicts are cached by content hash and "
        "shown as `(cached)`; --recheck checks again. Exits 1 if any entry is excluded, "
        "unless --out is given: then every "
        "verdict is written to FILE, for the --verdicts option of the other stages (so "
        "all shards of a season play the same field), and the exit code is 0.",
    )
    _options(check, "jobs", "check")
    check.add_argument("--out", type=Path, metavar="FILE", help="write the verdicts to FILE (JSON)")
    check.set_defaults(func=cmd_check)

    sched = add(
        "schedule",
        "print the season's games, their seeds and keys",
        "Build and check the entries (cached), then print every game of the season known "
        "so far in canonical order (round, then its place in the round, then the seats): "
        "its seed (an HMAC keyed by the season secret of the season seed, the game's identity "
        "and its entries' content hashes; with a secret, shown only once the game is "
        "recorded), its result key, and whether it is already recorded in the results "
        "folder. A round-robin or a "
        "free-for-all knows every game from the start; a knockout knows a round only once "
        "the previous round's results are recorded, and the last line says what waits "
        "(e.g. 'round 2 waits for round 1's results'). With --shard, only that shard's games.",
    )
    _options(sched, "seed", "rounds", "jobs", "verdicts")
    sched.add_argument("--shard", metavar="I/N", help="only the I-th of N parts (1-based)")
    sched.add_argument("--json", action="store_true", help="print the games as JSON")
    sched.set_defaults(func=cmd_schedule)

    play = add(
        "play-season",
        "play the season's unrecorded games (or one shard of them)",
        "Build and check the entries (cached), then play every game the format hands out "
        "whose key is not yet recorded in the results folder, --jobs at a time, appending "
        "one JSON line per game to results/games.jsonl, and ask the format again until the "
        "season is done (a knockout: round after round). With --shard I/N, play only the "
        "I-th of N disjoint parts of what is playable now and write "
        "results/shard-I-of-N.jsonl (or --out), then stop; combine the shards with `koth "
        "merge`. A knockout's next round needs every shard's results: merge, then run "
        "play-season --shard again (it says so). Ctrl-C stops cleanly; run again to resume.",
    )
    _options(play, "seed", "rounds", "jobs", "play", "verdicts")
    play.add_argument("--shard", metavar="I/N", help="play only the I-th of N parts (1-based)")
    play.add_argument("--out", type=Path, help="the results file to append to")
    play.set_defaults(func=cmd_play_season)

    merge = add(
        "merge",
        "combine results files (e.g. shards) into one",
        "Read JSONL results files, drop duplicate records (same key; the first wins) "
        "and skip torn or invalid lines (with a warning), then write one file in "
        "canonical order (round, X, O), atomically. The output may be one of the "
        "inputs.",
    )
    merge.add_argument("inputs", nargs="+", type=Path, metavar="FILE", help="results files")
    merge.add_argument("--out", type=Path, required=True, help="the merged file to write")
    merge.set_defaults(func=cmd_merge)

    stand = add(
        "standings",
        "rank the entries from the recorded games",
        "Build and check the entries (cached), then count the recorded games of the "
        "current schedule (records of superseded entry versions are ignored): points "
        "(win 1, draw 1/2, loss 0), W/D/L and faults per entry, ranked by points, then "
        "head-to-head points among the tied, then wins, then name. Writes "
        "standings.json and prints the table; excluded entries are listed with their "
        "reason.",
    )
    _options(stand, "seed", "rounds", "jobs", "verdicts")
    stand.set_defaults(func=cmd_standings)

    whole = add(
        "season",
        "build, check, schedule, play and rank: the whole season",
        "Run every stage in a row: build all entries, check them, schedule the season, "
        "play the games not yet recorded (with a progress bar) and print the standings. "
        "Everything is cached or keyed, so a re-run plays only what changed: a new "
        "entry's games, an edited entry's games, or the games an interrupted run did "
        "not finish. A bad entry never stops the season. Ends by rendering the results "
        "site (see `koth site`). Exits 130 on Ctrl-C.",
    )
    _options(whole, "seed", "rounds", "jobs", "play", "check")
    whole.add_argument("--no-site", action="store_true", help="do not render the site at the end")
    whole.set_defaults(func=cmd_season)

    site = add(
        "site",
        "render the static results site (leaderboard, cross-table, replays)",
        "Render the results site from the results records and standings.json: a "
        "leaderboard with ratings, a head-to-head cross-table, a page per entry and a "
        "page per game with a text replay. Pages are static HTML (ready for GitHub "
        "Pages) and work without JavaScript. Beside them: games.jsonl (the records shown), "
        "standings.json and published.json (what they are), for readers to download and for "
        "`koth restore`. A page whose inputs did not change since the last render is kept "
        "(checked against the keys the last render wrote); the others are rendered on --jobs "
        "processes.",
    )
    _options(site, "jobs")
    site.add_argument(
        "--results", type=Path, help="a results folder or .jsonl file (default: output.results)"
    )
    site.add_argument("--standings", type=Path, help="standings.json (default: output.standings)")
    site.add_argument("--out", type=Path, help="the site folder (default: output.site)")
    site.add_argument(
        "--results-key",
        metavar="KEY",
        help="the results key the records were played under, written to published.json "
        "(`koth restore` reuses them only under the same key)",
    )
    site.set_defaults(func=cmd_site)


def add_replay_command(commands: Any) -> None:
    replay = _subcommand(
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


# -- the workflows' stages (runner/cli/workflows.py) -----------------------------------------------


@contextmanager
def _ci_errors() -> Iterator[None]:
    from runner.cli.workflows import CiError

    try:
        yield
    except CiError as exc:
        raise UsageError(str(exc)) from None


def cmd_changed(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    config = _config(args)
    with _ci_errors():
        changes = workflows.changed_entries(config.entries, args.base, args.head)
    _say(f"changed entries: {workflows.encode_names(changes.present) or 'none'}")
    for name in changes.removed:
        _say(f"removed (nothing to check): {workflows.encode_names([name])}")
    for change in changes.existing:
        _say(f"an entry this change did not add: it {workflows.existing_words(change)}")
    if args.changes is not None:
        workflows.write_changes(args.changes, changes)
    if args.as_output:
        print(f"{args.as_output}={workflows.encode_names(changes.present)}")
    else:
        for name in changes.present:
            print(workflows.encode_names([name]))
    if changes.outside:
        listed = ", ".join(f"{config.entries.name}/{path}" for path in changes.outside)
        _say(
            f"koth: this change touches {listed}, in no entry folder: no entry check covers it, "
            "and a file there (a .gitattributes) can change how other entries are checked out. "
            f"Fix: change only {config.entries.name}/<name>/ folders here; anything else in "
            f"{config.entries.name}/ goes in a pull request of its own, for an organiser to review."
        )
        return 1
    return 0


def cmd_preview(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    with _ci_errors():
        names = workflows.decode_names(args.entries)
    if not names:
        _say("preview: no entry to check")
    with _stage(args) as (config, sandbox, pool), _ci_errors():
        result = workflows.preview(config, names, args.out, sandbox, pool, say=_say)
    workflows.print_preview(result)
    return 1 if result.failed else 0


def cmd_report(args: argparse.Namespace) -> int:
    import os

    from runner.cli import workflows

    doc, standings = workflows.read_preview(args.preview)
    existing = workflows.read_changes(args.changes) if args.changes is not None else []
    approved = (args.approved or "").strip().lower() == "true"
    text = workflows.report_markdown(
        doc, standings, args.artifact, workflows.run_url(os.environ), existing, approved
    )
    if args.summary is None:
        print(text)
    else:
        with open(args.summary, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"report written to {args.summary}")
    for change in existing or ():
        print(f"an entry this pull request did not add: it {workflows.existing_words(change)}")
    waiting = existing is None or (bool(existing) and not approved)
    if existing is None:
        _say(f"{args.changes} is not what `koth changed --changes` writes: the check fails")
    elif waiting:
        _say(
            f"the pull request needs an organiser's approval (the label {workflows.APPROVAL_LABEL})"
        )
    if doc is None:
        _say(f"no preview in {args.preview}/ (run `koth preview` first)")
        return 1
    for change in doc["changed"]:
        verdict = (
            "ok" if change["ok"] else "FAILED: " + workflows.STAGE_WORDS.get(change["stage"], "")
        )
        print(f"{change['entry']}: {verdict}")
    return 1 if workflows.failed(doc) or waiting else 0


def cmd_plan(args: argparse.Namespace) -> int:
    from runner.cli import stages, workflows

    with _ci_errors():
        shards = workflows.shard_count(args.shards)
        args.seed = workflows.optional_int("--seed", args.seed)
        args.rounds = workflows.optional_int("--rounds", args.rounds)
    config = _config(args)
    stages.say_randomness(config, _say)
    # One line each (tournament.yaml's paths hold no line break: runner/season/config.py).
    for name, value in workflows.plan_outputs(config, shards, args.host or "").items():
        print(f"{name}={value}")
    return 0


def cmd_image(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    with _ci_errors():
        print(workflows.sandbox_image(_say, save=args.save, load=args.load))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from runner.site import publish

    publish.restore(args.site or "", args.key, args.out, _say)
    return 0


def cmd_restore_history(args: argparse.Namespace) -> int:
    from runner.site import publish

    publish.restore_history(args.site or "", args.out, _say)
    return 0


def cmd_ci(args: argparse.Namespace) -> int:
    from runner.cli import workflows

    if not args.argv or args.argv[0] == "ci":
        raise UsageError("koth ci: name the koth command to run, e.g. `koth ci standings`.")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    with workflows.stopped_commands():
        return main(args.argv)


def add_ci_commands(commands: Any) -> None:
    add = functools.partial(_subcommand, commands)

    changed = add(
        "changed",
        "list the entries a branch adds or edits (git diff against a base)",
        "Print the entry folders under the entries folder that differ between the merge "
        "base of --base and --head (default HEAD), one per line; removed entries, and every "
        "existing entry the branch removes, renames or edits (with its author), are "
        "mentioned on stderr and, with --changes FILE, written to FILE for `koth report`. "
        "Names are URL-quoted (a valid entry name is printed as is). With --as-output NAME, "
        "print one line NAME=a,b instead, the format of "
        "$GITHUB_OUTPUT. Exits 1 when the branch also changes anything under the entries "
        "folder outside an entry folder (a .gitattributes, a file or hidden folder there): no "
        "entry check covers it, so it is for an organiser to review. Needs the base commit in "
        "the clone (fetch-depth: 0).",
    )
    _options(changed)
    changed.add_argument("--base", required=True, help="the base commit or branch (the PR's)")
    changed.add_argument("--head", default="HEAD", help="the commit checked (default: HEAD)")
    changed.add_argument("--as-output", metavar="NAME", help="print NAME=a,b for $GITHUB_OUTPUT")
    changed.add_argument(
        "--changes",
        type=Path,
        metavar="FILE",
        help="write the entries the branch adds, and the existing ones it removes, renames or "
        "edits (with their authors), to FILE for `koth report --changes FILE`",
    )
    changed.set_defaults(func=cmd_changed)

    prev = add(
        "preview",
        "build, check and play the named entries against every other entry",
        "Build and check every entry (cached, as `koth check`), then play each named "
        "entry that passes against every entry that plays, in both seats, with the "
        "season's seeds and keys, into OUT/results.jsonl (a re-run plays only what is "
        "missing). Writes OUT/standings.json for those games, their site in OUT/site/ "
        "and OUT/preview.json for `koth report`. Exits 1 if a named entry does not build, "
        "is refused by the static check or fails a smoke game.",
    )
    _options(prev, "seed", "rounds", "jobs")
    prev.add_argument(
        "--entries", required=True, help="entry names, comma-separated (as `koth changed` prints)"
    )
    prev.add_argument(
        "--out", type=Path, default=Path("preview"), help="the preview folder (default: preview)"
    )
    prev.set_defaults(func=cmd_preview)

    rep = add(
        "report",
        "the preview's verdicts and standings as Markdown (a workflow's step summary)",
        "Read PREVIEW/preview.json and write the pull request's report in Markdown: first "
        "every existing entry it removes, renames or edits, with its author (from --changes), "
        "then each changed entry's verdict with the compiler's messages, the preview "
        "standings and where the preview site is (the artifact ARTIFACT of this run, linked "
        "when the GitHub Actions variables are set). Appends to --summary (e.g. "
        "$GITHUB_STEP_SUMMARY) or prints. Exits 1 if a changed entry failed, or if the pull "
        "request changes an existing entry and is not --approved true.",
    )
    rep.add_argument(
        "--preview",
        type=Path,
        default=Path("preview"),
        help="the preview folder (default: preview)",
    )
    rep.add_argument("--summary", type=Path, help="append the Markdown to this file")
    rep.add_argument("--artifact", default="preview-site", help="the preview site's artifact name")
    rep.add_argument(
        "--changes",
        type=Path,
        metavar="FILE",
        help="what `koth changed --changes FILE` wrote: the existing entries the pull request "
        "removes, renames or edits are named first, and fail the check unless --approved",
    )
    rep.add_argument(
        "--approved",
        metavar="true|false",
        help="whether an organiser approved the changes to existing entries (the pull request "
        "carries the approval label; the workflow passes `true` or `false`)",
    )
    rep.set_defaults(func=cmd_report)

    plan = add(
        "plan",
        "the season workflow's settings as $GITHUB_OUTPUT lines",
        'Print matrix={"shard":[1,…,N]}, shards=N, seed=S, rounds=R and results_key=K, one '
        "per line, for $GITHUB_OUTPUT. An empty or missing --seed or --rounds means the "
        "config's value (a workflow passes its inputs as text); --shards defaults to 4. K, "
        "the prefix of the results cache's key, names the game (its rules version) and hashes "
        "--host with the sandbox's base image: records made under another K are not reused.",
    )
    plan.add_argument(
        "--config", type=Path, help="the tournament file (default: ./tournament.yaml if present)"
    )
    plan.add_argument("--seed", help="the season seed (empty: the config's)")
    plan.add_argument("--rounds", help="how many times each pair meets in each seating")
    plan.add_argument("--shards", help="how many parallel play jobs (default: 4)")
    plan.add_argument(
        "--host", help="a hash of the host code that decides outcomes (part of the results key)"
    )
    plan.set_defaults(func=cmd_plan)

    image = add(
        "image",
        "build the Docker sandbox image (if it is not built yet), or save or load it",
        "Build the Debian image entries are compiled and played in "
        "(runner/sandbox/Dockerfile, FROM $KOTH_SANDBOX_BASE or debian:bookworm-slim), unless "
        "an image with its content hash exists; print its tag. Every docker stage does this "
        "itself when needed. With --save FILE, also write it to FILE (`docker save`); with "
        "--load FILE, load it from such a file instead, and fail if the file does not hold "
        "the image this checkout needs (it is never built then).",
    )
    where = image.add_mutually_exclusive_group()
    where.add_argument("--save", type=Path, metavar="FILE", help="write the image to FILE")
    where.add_argument("--load", type=Path, metavar="FILE", help="load the image from FILE")
    image.set_defaults(func=cmd_image)

    restore = add(
        "restore",
        "add the records published with a results site to a results file",
        "Fetch SITE/published.json and SITE/games.jsonl (what `koth site` writes beside the "
        "pages) and add the records to OUT, if they were played under the results key KEY "
        "(`koth plan` prints it); otherwise, or when nothing is published or the site cannot "
        "be reached, restore nothing and say why. OUT exists afterwards. The season workflow "
        "runs this when its cache is gone, so a season is not replayed for want of a cache. "
        "Exits 0 either way.",
    )
    restore.add_argument("--site", help="the site's address, e.g. https://org.github.io/koth/")
    restore.add_argument("--key", required=True, help="the results key (`koth plan`)")
    restore.add_argument(
        "--out", type=Path, default=Path("results/games.jsonl"), help="the results file"
    )
    restore.set_defaults(func=cmd_restore)

    seasons = add(
        "restore-history",
        "add the seasons published with a results site to the history file",
        "Fetch SITE/seasons.jsonl (the history of seasons `koth site` publishes when "
        "tournament.yaml sets `site: history:`) and add its seasons to OUT, keeping those "
        "already there. Every line is checked as a season's; a bad one is left out and said. "
        "Nothing published, or a site that cannot be reached, restores nothing and says so. "
        "OUT exists afterwards. The season workflow runs this when its history cache is gone. "
        "Exits 0 either way.",
    )
    seasons.add_argument("--site", help="the site's address, e.g. https://org.github.io/koth/")
    seasons.add_argument("--out", type=Path, required=True, help="the history file")
    seasons.set_defaults(func=cmd_restore_history)

    ci = add(
        "ci",
        "run a koth command with a log safe for GitHub Actions",
        "Run `koth COMMAND ARGS…` with its stderr joined to its stdout and its whole output "
        "between ::stop-commands::TOKEN and ::TOKEN:: (a random token), so nothing it "
        "prints (compiler messages, bot names, fault details) can act as a workflow "
        "command. Exits with the command's code.",
    )
    ci.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND ARGS", help="the command")
    ci.set_defaults(func=cmd_ci)


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
    play.add_argument("--json", action="store_true", help="print the full game record as JSON")
    play.add_argument("--compact", action="store_true", help="with --json: one line")
    _options(play)
    play.set_defaults(func=cmd_play)
    add_season_commands(commands)
    add_replay_command(commands)
    add_ci_commands(commands)
    parser.epilog = (
        "A season: `koth season` runs build, check, schedule, play-season and standings in a "
        "row; each stage also runs alone, and every stage caches or keys its work, so a re-run "
        "does only what changed. `koth COMMAND --help` explains each command."
    )
    return parser


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
