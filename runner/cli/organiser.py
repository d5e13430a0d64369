"""The commands for organisers: a season stage by stage (`koth build`, `check`, `schedule`,
`play-season`, `merge`, `standings`, `site`) and all in a row (`koth season`)."""

from __future__ import annotations

import argparse
import functools
import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner.cli.arguments import (
    UsageError,
    config_of,
    host_errors,
    options,
    say,
    stage,
    subcommand,
)
from runner.common.safefiles import shown_indented
from runner.season.config import Config


def cmd_build(args: argparse.Namespace) -> int:
    from runner.season import check

    with stage(args) as (config, sandbox, _pool):
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

    with stage(args) as (config, sandbox, pool):
        builds = check.build_all(config, sandbox)
        verdicts = check.check_all(config, builds, sandbox, pool, say, args.recheck)
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


def lineup_of(args: argparse.Namespace, config: Config, sandbox: Any, pool: Any) -> Any:
    """Who plays: checked here, or as the verdicts file of --verdicts says (built here)."""
    from runner.season import check, verdicts

    if getattr(args, "verdicts", None) is None:
        return check.lineup(config, sandbox, pool, say=say, recheck=args.recheck)

    try:
        return verdicts.lineup(config, args.verdicts, lambda: check.build_all(config, sandbox), say)
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
    with stage(args) as (config, sandbox, pool):
        line = lineup_of(args, config, sandbox, pool)
        plan, known = stages.season_plan(config, line, say=say)
    stages.say_randomness(config, say)
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
    say(f"played {report.played} game(s) into {where}; {report.recorded} were already recorded")
    if report.left:
        say(f"{report.left} game(s) left unplayed (--max-games); run again to play them")
    for failure in report.failed:
        say(f"not played: {failure}")
    if report.failed:
        say(f"{len(report.failed)} game(s) could not be played; run again to retry them")
    if report.waiting and sharded:
        say(
            f"not done yet: {report.waiting}. When every shard has played, merge the shards "
            "(`koth merge`) and run `koth play-season` again for the next games."
        )
    elif report.waiting and not report.left and not report.failed:
        say(f"not done yet: {report.waiting}")
    return 1 if report.failed else 0


def cmd_play_season(args: argparse.Namespace) -> int:
    from runner.cli import stages

    shard = _shard(args)
    limit = _max_games(args)
    with stage(args) as (config, sandbox, pool):
        line = lineup_of(args, config, sandbox, pool)
        report = stages.play(
            config,
            line,
            pool,
            shard=shard,
            out=args.out,
            max_games=limit,
            show_progress=not args.no_progress,
            say=say,
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
        say(f"warning: {problem}")
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


@contextmanager
def _whole_season_read() -> Iterator[None]:
    """The cyclic garbage collector paused, for a command that reads a whole season's records
    and ends: they hold no cycles, and a 500-entry season's ~8 million objects were scanned by
    every full collection (a fifth of `koth standings`' time)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def cmd_standings(args: argparse.Namespace) -> int:
    from runner.cli import stages

    with stage(args) as (config, sandbox, pool):
        line = lineup_of(args, config, sandbox, pool)
    with host_errors(), _whole_season_read():
        rows, doc = stages.standings(config, line, say=say)
    _print_standings(config, rows, doc)
    return 0


def cmd_season(args: argparse.Namespace) -> int:
    from runner.cli import stages
    from runner.season.workers import Closing

    limit = _max_games(args)
    config = config_of(args)
    # The sandbox and the workers close while the site renders; SIGTERM then stops like Ctrl-C
    # too, so the close is waited for.
    with host_errors(), Closing() as closing:
        report, rows, doc = stages.run_season(
            config,
            max_games=limit,
            show_progress=not args.no_progress,
            say=say,
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

    config = config_of(args)
    with _whole_season_read():
        report = render_from_config(
            config, args.results, args.standings, args.out, results_key=args.results_key
        )
    print(report.summary())
    return 0


def add_season_commands(commands: Any) -> None:
    add = functools.partial(subcommand, commands)

    build = add(
        "build",
        "compile every entry and check its object (cached)",
        "Compile every entry under the entries folder in the sandbox, check the compiled "
        "object against the rules (no writable globals) and load it once. Results are "
        "cached in build/<entry>/ by the entry's content hash, so only new or edited "
        "entries are compiled. Prints a verdict per entry; exits 1 if any failed.",
    )
    options(build)
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
    options(check, "jobs", "check")
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
    options(sched, "seed", "rounds", "jobs", "verdicts")
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
    options(play, "seed", "rounds", "jobs", "play", "verdicts")
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
    options(stand, "seed", "rounds", "jobs", "verdicts")
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
    options(whole, "seed", "rounds", "jobs", "play", "check")
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
    options(site, "jobs")
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
