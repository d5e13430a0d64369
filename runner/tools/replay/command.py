"""``koth replay GAME``: a recorded game shown with every byte its seats read and wrote, or one
seat's inputs fed to a bot to see where its answers leave the record's.

Exit codes: 0 when the game was shown, or the bot reproduced the record (to the end, or to
``--until``); 1 when the bot diverged; 2 for a mistake the user can fix (runner/cli/main.py).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from runner.common import languages
from runner.common.safefiles import shown_text
from runner.games import UnknownGameError, find_game
from runner.games.base import ENDINGS, Setup
from runner.games.spec import GameSpec
from runner.play.playback import PlaybackError
from runner.play.seats import Entrant
from runner.play.stdio import reply_lines
from runner.sandbox.zygote_client import SandboxError
from runner.season.config import Config
from runner.season.results import Record
from runner.season.workers import bot_limits, new_sandbox, season_languages
from runner.site import render
from runner.site.frames import ReplayError
from runner.tools.replay import bots, wire
from runner.tools.replay.feed import Answer, Runner, Sandboxed, Verdict, feed
from runner.tools.replay.outside import Outside, OutsideError, debug_build
from runner.tools.replay.records import RecordError, find_record
from runner.tools.replay.transcript import Ask, Moment, seat_asks, transcript

Say = Callable[[str], None]
OUTPUT_SHOWN = 2000  # characters of what a bot printed shown with a divergence


class ReplayUsageError(ValueError):
    """A mistake the user can fix; one paragraph."""


@dataclass(frozen=True)
class Options:
    game: str
    seat: str | None = None
    bot: str | None = None
    first: int | None = None  # --from
    until: int | None = None
    watch: bool = False
    delay: float = 0.05
    exec_prefix: list[str] | None = None
    results: list[Path] = field(default_factory=list)
    sandbox: str = "local"


@dataclass(frozen=True)
class Game:
    """The record found, its game and setup, and the seat asked about."""

    record: Record
    spec: GameSpec
    setup: Setup
    seat: int | None

    @property
    def key(self) -> str:
        return str(self.record["key"])

    def who(self, seat: int) -> str:
        """``O (hunter)``: the seat's name and the entry that sat there."""
        return f"{self.spec.seat_name(seat)} ({self.record['seats'][seat]['entry']})"

    def moments(self) -> Iterator[Moment]:
        return transcript(self.spec, self.record, self.setup)


# -- finding the game and the seat ---------------------------------------------------------------


def _game(config: Config, options: Options, say: Say) -> Game:
    sources = [*options.results, config.output.results]
    try:
        record = find_record(options.game, sources, say)
        spec = find_game(record["game"])
        setups = {(s.name, s.hash): s.as_dict() for s in config.free_for_all.setups}
        setup = render._setup_of(record, setups)
    except (RecordError, UnknownGameError) as exc:
        raise ReplayUsageError(str(exc)) from None
    except ReplayError as exc:
        where = config.path or "the default configuration"
        raise ReplayUsageError(
            f"game {record['key'][:12]}: {exc} ({where}). Fix: pass the --config of the season "
            "that played it."
        ) from None
    seat = None if options.seat is None else _seat(options.seat, record, spec)
    if seat is None and options.bot is not None:
        seat = _seat(options.bot, record, spec, "--bot")
    return Game(record, spec, setup, seat)


def _seat(text: str, record: Record, spec: GameSpec, option: str = "--seat") -> int:
    """A seat named by its number (1 first), its name (``X``, ``Blue``) or the entry in it."""
    seats = record["seats"]
    names = [spec.seat_name(s) for s in range(len(seats))]
    if text.isdigit() and 1 <= int(text) <= len(seats):
        return int(text) - 1
    if text in names:
        return names.index(text)
    holding = [s for s, seat in enumerate(seats) if seat["entry"] == Path(text).name]
    if len(holding) == 1:
        return holding[0]
    listed = ", ".join(f"{n + 1} ({names[n]}: {seats[n]['entry']})" for n in range(len(seats)))
    why = "sits in more than one seat" if holding else "names no seat of this game"
    raise ReplayUsageError(f"{option} {text} {why}. Fix: give --seat as a number: {listed}.")


# -- showing the game ----------------------------------------------------------------------------


def header(game: Game) -> list[str]:
    record, spec = game.record, game.spec
    steps = f"{len(record['moves'])} {'turns' if spec.records_turns else 'moves'}"
    lines = [f"game {game.key[:16]} · {spec.id} · seed {record['seed']} · {steps}"]
    for seat, held in enumerate(record["seats"]):
        points = record["outcome"]["points"][seat]
        lines.append(
            f"  seat {seat + 1}  {spec.seat_name(seat)}: {held['entry']} ({held.get('name', '')})"
            f", {round(points, 2):g} point(s)"
        )
    outcome = record["outcome"]
    how = ENDINGS.get(str(outcome["termination"]), str(outcome["termination"]))
    detail = str(outcome.get("detail", ""))
    lines.append(f"ended: {how}" + (f" — {detail}" if detail else ""))
    return lines


def ask_lines(game: Game, ask: Ask) -> list[str]:
    """What one seat was sent and what it answered, in the game's protocol."""
    spec, who = game.spec, game.who(ask.seat)
    if ask.at_start:
        assert ask.fault is not None
        return [f"{who} failed while loading: {ask.fault.detail}"]
    codec: Any = spec.codec
    if spec.interface == "c-function":
        lines = [f"{who} is called:", *wire.call_lines(codec.abi, ask.request)]
    elif ask.greeting:
        lines = [f"{who} reads the game's first message, {len(ask.greeting)} bytes:"]
        lines += wire.byte_lines(ask.greeting)
        lines += [f"  then its request, {len(ask.request)} bytes:", *wire.byte_lines(ask.request)]
    else:
        lines = [f"{who} reads {len(ask.request)} bytes:", *wire.byte_lines(ask.request)]
    if ask.fault is not None:
        lines.append(f"  and faults: {ask.fault.detail}")
        if ask.move is not None:
            lines.append(f"  so it plays its stand-in move: {spec.rules.move_text(ask.move)}")
    elif ask.move is None:
        lines.append("  and its answer is not recorded (another seat's fault ended the game)")
    elif spec.interface == "c-function":
        value = codec.reply(ask.move)
        lines.append(f"  and {wire.returned(value)}: {spec.rules.move_text(ask.move)}")
    else:
        answer = codec.reply(ask.move)
        lines.append(f"  and answers {len(answer)} bytes: {spec.rules.move_text(ask.move)}")
        lines += wire.byte_lines(answer)
    return lines


def moment_lines(game: Game, moment: Moment) -> list[str]:
    title = f"── turn {moment.turn} · step {moment.index + 1} "
    lines = [title.ljust(72, "─"), game.spec.rules.render_text(moment.before), ""]
    for ask in moment.asks:
        if game.seat is None or ask.seat == game.seat:
            lines += [*ask_lines(game, ask), ""]
    return lines


def _animate(game: Game, options: Options, out: TextIO, top: list[str]) -> bool:
    """``--watch``: a step a frame, drawn in place under the game's header (runner/tools/watch.py:
    cropped to the terminal; space pauses, → or n steps, q stops). False if none was shown."""
    from runner.games.spec import Presentation
    from runner.play.terminal import cbreak
    from runner.tools.watch import Controls, Quit, Screen, keyboard

    screen = Screen(out, Presentation())  # the text around the board is not the board's
    controls = Controls(keyboard() if screen.live else None)
    controls.scroll = screen.scroll
    keys, shown = controls.fd is not None, False
    with cbreak(controls.fd) if controls.fd is not None else contextlib.nullcontext():
        try:
            for moment in _shown(game, options):
                block = "\n".join(moment_lines(game, moment))

                def draw(block: str = block) -> None:
                    screen.draw([*top, controls.state if keys else ""], block)

                draw()
                shown = True
                controls.wait(options.delay, draw)
        except Quit:
            pass
    screen.finish()
    return shown


def _shown(game: Game, options: Options) -> Iterator[Moment]:
    """The moments to show: those of the turns asked for, with the seat asked about in them."""
    for moment in game.moments():
        if options.until is not None and moment.turn > options.until:
            return
        if options.first is not None and moment.turn < options.first:
            continue
        if game.seat is None or any(a.seat == game.seat for a in moment.asks):
            yield moment


def show(game: Game, options: Options, out: TextIO) -> None:
    """The game step by step (``--watch``: one step a frame, animated)."""
    top = header(game)
    if options.watch and _animate(game, options, out, top):
        return
    last: Moment | None = None
    for moment in _shown(game, options):
        block = moment_lines(game, moment)
        out.write("\n".join(block if last is not None else [*top, "", *block]) + "\n")
        last = moment
    if last is None:
        out.write("\n".join([*top, "(no step of the game matches the turns asked for)"]) + "\n")
    elif last.after is not None and options.until is None:
        out.write("── the end ".ljust(72, "─") + "\n" + game.spec.rules.render_text(last.after))
        out.write(f"\n{top[-1]}\n")


# -- feeding a bot -------------------------------------------------------------------------------


def _answer_lines(game: Game, ask: Ask, answer: Answer | None) -> list[str]:
    """An answer as the protocol carries it: the C function's int, or the reply's lines."""
    spec: Any = game.spec
    if answer is None:  # the record's
        if ask.fault is not None:
            return [f"{wire.INDENT}a fault: {ask.fault.detail}"]
        if ask.move is None:
            return [f"{wire.INDENT}(none recorded)"]
        reply = spec.codec.reply(ask.move)
        text = spec.rules.move_text(ask.move)
        if spec.interface == "c-function":
            return [f"{wire.INDENT}{wire.returned(reply)}: {text}"]
        return [f'{wire.INDENT}"{wire.escaped(line.encode())}"' for line in _lines(reply)]
    if answer.faulted:
        return [f"{wire.INDENT}a fault: {answer.reason}"]
    if answer.value is not None:
        return [f"{wire.INDENT}{wire.returned(answer.value)}: {spec.rules.move_text(answer.move)}"]
    return [f'{wire.INDENT}"{wire.escaped(line.encode())}"' for line in reply_lines(answer.raw)]


def _lines(reply: bytes) -> list[str]:
    return reply_lines(reply.removesuffix(b"\n"))


def verdict_lines(game: Game, verdict: Verdict, output: str) -> list[str]:
    assert game.seat is not None
    who = game.who(game.seat)
    faults = [
        f"{answer.reason} (the record: {ask.fault.detail})"
        for ask, answer in verdict.faults
        if ask.fault is not None
    ]
    moves = verdict.matched - len(faults)
    skipped = f" (the {verdict.skipped} before --from not asked)" if verdict.skipped else ""
    if verdict.reproduced:
        upto = f"up to turn {verdict.until}" if verdict.until is not None else "to the end"
        lines = [
            f"REPRODUCED {upto} of the game: the bot gave {who}'s recorded answer at all "
            f"{moves} of its moves{skipped}."
        ]
        if faults:
            lines.append(f"It faulted where the record says it did: {'; '.join(faults)}.")
        return lines
    ask = verdict.diverged
    assert ask is not None
    lines = [
        f"DIVERGES at turn {ask.turn} (step {ask.index + 1} of the record, after {verdict.matched}"
        f" matching answer(s){skipped}): {verdict.difference}.",
        "the record's answer:",
        *_answer_lines(game, ask, None),
        "the bot's answer:",
        *_answer_lines(game, ask, verdict.answer),
        f"the position at turn {ask.turn}, as {who} was asked to move in it:",
        game.spec.rules.render_text(ask.state),
    ]
    if output.strip():
        shown = output if len(output) <= OUTPUT_SHOWN else "…" + output[-OUTPUT_SHOWN:]
        shown = shown_text(shown)  # the bot may be a stranger's: no control characters
        lines += ["what the bot printed:", *(wire.INDENT + line for line in shown.split("\n"))]
    return lines


@dataclass
class Scratch:
    """A folder for a bot built from a path, or for a debug build, removed afterwards."""

    path: Path | None = None

    def get(self) -> Path:
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix="koth-replay-"))
        return self.path

    def remove(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)


def _check_feedable(config: Config, game: Game, options: Options) -> None:
    if game.spec.id != config.game:
        where = config.path or "the default configuration (no tournament.yaml here)"
        raise ReplayUsageError(
            f"game {game.key[:12]} is a {game.spec.id} game, but {where} is for {config.game}: "
            "its entries, build folder and limits are another game's. Fix: pass the --config "
            "of the season that played it."
        )
    if options.first is not None and game.spec.interface == "stdio":
        raise ReplayUsageError(
            f"--from {options.first}: a {game.spec.id} bot is one program for the whole game, "
            "which must read every turn before the one asked for. Fix: leave --from out (use "
            "--until to stop early)."
        )


def warning(prefix: list[str]) -> str:
    """The loud notice that a bot runs outside every wall."""
    return (
        "koth: WARNING: --exec-prefix runs the bot OUTSIDE the sandbox, on this machine, as "
        f"uid {os.geteuid()}, with your environment and no limits, under "
        f"`{shlex.join(prefix)}`. This is for debugging your own bot on your own machine: "
        "never do it with a bot you have not read."
    )


def _language_of(bot: str) -> tuple[str, ...]:
    """The language of ``--bot FILE`` by its ending, if it names one."""
    found = languages.ENDINGS.get(Path(bot).suffix)
    return (found,) if found else ()


def _runner(
    config: Config, game: Game, options: Options, scratch: Scratch, say: Say
) -> tuple[Runner, str]:
    """The bot, built, ready to be started; and where it runs, in words."""
    assert options.bot is not None and game.seat is not None
    spec = game.spec
    wanted = (*season_languages(config), *_language_of(options.bot))
    sandbox = new_sandbox(options.sandbox, wanted=wanted)
    try:
        chosen = bots.choose(config.entries, options.bot, scratch.get())
        ours = chosen.entry.path.parent.resolve() == config.entries.resolve()
        root = config.output.build if ours else None
        built = bots.build(chosen, root or scratch.get() / "build", sandbox, config, spec)
        if options.exec_prefix is None:
            initial = next(game.moments()).before
            who = Entrant(built.entry, built.jail_path, tuple(built.program or ()) or None)
            runner = Sandboxed(spec, who, sandbox, bot_limits(config), game.seat, initial)
            return _Closing(runner, sandbox), f"{chosen.shown}, in the {sandbox.name} sandbox"
        sandbox.close()
        debug = scratch.get() / "debug"
        command = debug_build(
            spec, chosen.entry.path, chosen.language, debug, config.limits.build_wall_s
        )
        outside = Outside(spec, command, debug, options.exec_prefix, say)
        return outside, f"{chosen.shown}, built with -g, under `{shlex.join(options.exec_prefix)}`"
    except (bots.BotError, OutsideError) as exc:
        sandbox.close()
        raise ReplayUsageError(str(exc)) from None


class _Closing:
    """A sandboxed runner that closes its sandbox with itself."""

    def __init__(self, runner: Sandboxed, sandbox: Any) -> None:
        self.runner, self.sandbox = runner, sandbox

    def start(self) -> Answer | None:
        return self.runner.start()

    def ask(self, ask: Ask) -> Answer:
        return self.runner.ask(ask)

    def output(self) -> str:
        return self.runner.output()

    def close(self) -> None:
        try:
            self.runner.close()
        finally:
            self.sandbox.close()


def _watcher(game: Game, options: Options, out: TextIO) -> Callable[[Ask, Answer], None] | None:
    if not options.watch:
        return None

    def seen(ask: Ask, answer: Answer) -> None:
        frame = game.spec.rules.render_text(ask.state)
        lines = [f"turn {ask.turn} · step {ask.index + 1}", frame, "the record:"]
        lines += _answer_lines(game, ask, None) + ["the bot:", *_answer_lines(game, ask, answer)]
        out.write("\x1b[H\x1b[2J" + "\n".join(lines) + "\n")
        out.flush()
        time.sleep(options.delay)

    return seen


def run_bot(config: Config, game: Game, options: Options, out: TextIO, say: Say) -> int:
    """Feed the bot the seat's inputs; print the verdict; 0 when it reproduced the record."""
    assert game.seat is not None
    _check_feedable(config, game, options)
    if options.exec_prefix is not None:
        say(warning(options.exec_prefix))
    scratch = Scratch()
    try:
        runner, where = _runner(config, game, options, scratch, say)
        out.write(
            f"replaying game {game.key[:12]} ({game.spec.id}) for {game.who(game.seat)}, seat "
            f"{game.seat + 1}, with {where}\n"
        )
        out.flush()
        try:
            asks = seat_asks(game.moments(), game.seat)
            seen = _watcher(game, options, out)
            verdict = feed(game.spec, asks, runner, options.first, options.until, seen)
            output = runner.output()
        finally:
            runner.close()
    except OutsideError as exc:
        raise ReplayUsageError(str(exc)) from None
    except SandboxError as exc:
        raise ReplayUsageError(
            f"the sandbox failed, so nothing can be said of the bot: {exc}"
        ) from None
    finally:
        scratch.remove()
    out.write("\n".join(verdict_lines(game, verdict, output)) + "\n")
    return 0 if verdict.reproduced else 1


def replay(
    config: Config, options: Options, out: TextIO | None = None, say: Say | None = None
) -> int:
    """The command: show the game, or feed a bot one seat's inputs (see the module docstring)."""
    tell = say or (lambda text: print(text, file=sys.stderr, flush=True))
    out = out or sys.stdout
    game = _game(config, options, tell)
    try:
        if options.bot is None:
            show(game, options, out)
            return 0
        return run_bot(config, game, options, out, tell)
    except PlaybackError as exc:
        raise ReplayUsageError(f"the record cannot be replayed: {exc}") from None


__all__ = ["Options", "ReplayUsageError", "replay"]
