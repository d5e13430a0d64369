"""Plays one game: starts the bots in the sandbox, asks them in turn, applies moves, judges.

A bot's fault (BotFault, or a reply the game rejects) ends the game at once as that bot's loss,
with the reason in words; the host and the other bot carry on. Only the sandbox's own failures
(SandboxError) escape, because then no fair result exists.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.bots.cabi import CFunctionBot
from runner.bots.faults import BotFault
from runner.bots.stdio import FreshStdioBot, StdioBot
from runner.build import Build, Sandbox
from runner.games.base import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Termination,
    fault_outcome,
)
from runner.sandbox.zygote import BotLimits


@dataclass(frozen=True)
class Player:
    """An entry taking a seat: its name, its content hash and its built artefact."""

    entry: str
    content_hash: str
    jail: Path
    program: tuple[str, ...] | None = None  # a stdio bot's command (run in its jail)

    @classmethod
    def of(cls, build: Build) -> Player:
        """The player an entry's successful build makes."""
        program = tuple(build.program) if build.program else None
        return cls(build.entry, build.content_hash, build.jail_path, program)


@dataclass(frozen=True)
class GameResult:
    game: str
    seed: int
    players: tuple[Player, ...]  # by seat
    names: tuple[str, ...]  # display names (bot_name) by seat
    moves: tuple[str, ...]  # every move applied, in order
    outcome: Outcome
    scores: tuple[int, ...]
    cpu_s: tuple[float, ...]  # CPU charged to each seat's moves (kernel accounting)
    wall_s: float
    output: tuple[str, ...] = field(default=())  # what each bot printed (capped)

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome
        return {
            "game": self.game,
            "seed": self.seed,
            "seats": [
                {"entry": p.entry, "hash": p.content_hash, "name": n}
                for p, n in zip(self.players, self.names, strict=True)
            ],
            "moves": "".join(self.moves)
            if all(len(m) == 1 for m in self.moves)
            else list(self.moves),
            "outcome": {
                "points": list(outcome.points),
                "scores": list(self.scores),
                "termination": outcome.termination.value,
                "faulty": outcome.faulty,
                "detail": outcome.detail,
            },
            "measured": {
                "cpu_s": [round(c, 6) for c in self.cpu_s],
                "wall_s": round(self.wall_s, 6),
                "output": [excerpt(text) for text in self.output],
            },
        }


OUTPUT_IN_RECORD = 2000  # characters of a bot's output kept in its game's record


def excerpt(text: str, limit: int = OUTPUT_IN_RECORD) -> str:
    """The start and the end of a long text (a crash's reason is usually at the end)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… ({len(text) - limit} characters left out) …\n{text[-half:]}"


def play_game(
    game: Game[Any, Any],
    players: Sequence[Player],
    sandbox: Sandbox,
    limits: BotLimits,
    seed: int,
    on_state: Callable[[Any], None] | None = None,
) -> GameResult:
    started = time.monotonic()
    info = game.info
    seat_names = info.seat_names
    state = game.initial_state(random.Random(seed))
    moves: list[str] = []
    bots: list[CFunctionBot | StdioBot | FreshStdioBot] = []
    stdio = info.interface == "stdio"
    names = [p.entry for p in players]
    outcome: Outcome | None = None

    def fault(seat: int, termination: Termination, reason: str) -> Outcome:
        who = f"{seat_names[seat]} ({names[seat]})"
        return fault_outcome(info, seat, termination, f"{who} {reason}")

    try:
        # Spawn every bot before waiting for any: they load in parallel.
        init_message = getattr(game, "init_message", None)
        for seat, player in enumerate(players):
            if stdio and info.fresh_process_per_move:

                def spawn(player: Player = player) -> Any:
                    return sandbox.spawn(player.jail, limits, list(player.program or ()))

                init = init_message(state, seat) if init_message is not None else None
                bots.append(FreshStdioBot(spawn, limits, player.entry, init))
            elif stdio:
                program = list(player.program or ())
                process = sandbox.spawn(player.jail, limits, program)
                bots.append(StdioBot(process, limits, player.entry))
            else:
                bots.append(CFunctionBot(sandbox.spawn(player.jail, limits), limits, player.entry))
        for seat, bot in enumerate(bots):
            try:
                names[seat] = bot.start()
                if isinstance(bot, StdioBot) and init_message is not None:
                    bot.send(init_message(state, seat))
            except BotFault as exc:
                outcome = fault(seat, exc.termination, str(exc))
                break
        if on_state is not None:
            on_state(state)
        while outcome is None and (outcome := game.outcome(state)) is None:
            chosen = {}
            for seat in game.to_move(state):
                turn = game.turn(state)
                try:
                    reply = bots[seat].ask(game.observation(state, seat), turn)
                    chosen[seat] = game.parse_move(seat, reply)
                except BotFault as exc:
                    outcome = fault(seat, exc.termination, str(exc))
                except InvalidMoveError as exc:
                    outcome = fault(seat, Termination.INVALID_MOVE, f"{exc} at turn {turn}")
                if outcome is not None:
                    break
            if outcome is not None:
                break
            try:
                state = game.apply(state, chosen)
            except IllegalMoveError as exc:  # legal only in the position: the mover's fault
                seat = min(chosen)
                outcome = fault(seat, Termination.INVALID_MOVE, f"{exc} at turn {game.turn(state)}")
                break
            moves.extend(game.move_text(chosen[seat]) for seat in sorted(chosen))
            if on_state is not None:
                on_state(state)
    finally:
        for bot in bots:
            bot.close()
    return GameResult(
        game=game.id,
        seed=seed,
        players=tuple(players),
        names=tuple(names),
        moves=tuple(moves),
        outcome=outcome,
        scores=tuple(game.scores(state)),
        cpu_s=tuple(bot.cpu_used for bot in bots),
        wall_s=time.monotonic() - started,
        output=tuple(bot.output_text() for bot in bots),
    )
