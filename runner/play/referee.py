"""Plays one game of 1..N seats: starts every seat's bot, asks every seat that moves in a turn at
once (each under its own watchdog, runner/play/watchdog.py), applies the turn, judges.

Faults — a BotFault, or a reply the game refuses (InvalidMoveError, IllegalMoveError) — are the
faulting seat's alone. In a game of two seats the first one ends the game as that seat's loss
(unless the game says otherwise: ``GameInfo.two_seat_forfeit``). In a larger game the others
play on, as the game's rules say: the seat's stand-in move replaces its reply this turn
(``rules.stand_in``; the Easter Egg Hunt's "stay, do nothing"), or the seat is out
(``rules.retire``; Multisnake's snake dies where it stands) and the turn is played with the
others' moves, even when none is left to move; the outcome lists every seat's fault. Only the
host's own failures (SandboxError) escape, because then no fair result exists.

A record of a game holds what replays it (runner/play/playback.py): for two seats taking turns, the
moves in order (as ever); otherwise one entry per turn with each seat's move (None for a seat
that did not move), and each fault with the index of the turn it happened in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runner.games.base import (
    EMPTY,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    SeatFault,
    Setup,
    Termination,
    fault_outcome,
)
from runner.games.spec import GameSpec, QuickPlay
from runner.play.faults import BotFault
from runner.play.quick import resume
from runner.play.seats import Entrant, Seat, SeatOpener, Spawner, open_seat
from runner.play.watchdog import Pending, gather
from runner.sandbox.zygote_client import BotLimits

TurnMoves = tuple[str | None, ...]  # one turn of a game recorded by turns: each seat's move


@dataclass(frozen=True)
class Player:
    """An entry taking a seat: its name, its content hash and its built artefact."""

    entry: str
    content_hash: str
    jail: Path
    program: tuple[str, ...] | None = None  # a program bot's command (run in its jail)
    # Its entry's language (runner/common/languages.py): its seat's limits (``BotLimits.of``).
    language: str = field(default="c", compare=False)
    opens: SeatOpener | None = field(default=None, compare=False)  # a seat of another kind


@dataclass(frozen=True)
class GameResult:
    game: str
    seed: int
    players: tuple[Player, ...]  # by seat
    names: tuple[str, ...]  # display names by seat
    moves: tuple[str, ...] | tuple[TurnMoves, ...]  # see the module docstring
    outcome: Outcome
    scores: tuple[int, ...]
    cpu_s: tuple[float, ...]  # CPU charged to each seat's moves (kernel accounting)
    wall_s: float
    output: tuple[str, ...] = field(default=())  # what each bot printed (capped)
    fault_turns: tuple[int, ...] = ()  # per outcome.faults: the index of its turn in ``moves``

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome
        summary: dict[str, Any] = {
            "points": list(outcome.points),
            "scores": list(self.scores),
            "termination": outcome.termination.value,
            "faulty": outcome.faulty,
            "detail": outcome.detail,
        }
        if outcome.placement:
            summary["placement"] = list(outcome.placement)
            summary["faults"] = [
                {
                    "seat": f.seat,
                    "turn": f.turn,
                    "at": at,
                    "termination": f.termination.value,
                    "detail": f.detail,
                }
                for f, at in zip(outcome.faults, self.fault_turns, strict=True)
            ]
        return {
            "game": self.game,
            "seed": self.seed,
            "seats": [
                {"entry": p.entry, "hash": p.content_hash, "name": n}
                for p, n in zip(self.players, self.names, strict=True)
            ],
            "moves": _moves_json(self.moves),
            "outcome": summary,
            "measured": {
                "cpu_s": [round(c, 6) for c in self.cpu_s],
                "wall_s": round(self.wall_s, 6),
                "output": [excerpt(text) for text in self.output],
            },
        }


def _moves_json(moves: tuple[str, ...] | tuple[TurnMoves, ...]) -> str | list[Any]:
    """The record's ``moves``: one string when every move is one character (the usual game:
    built by ``join`` and ``map``, a game's ~300 moves without a Python step each), else a list
    of the moves, or of the turns' moves."""
    try:
        text = "".join(moves)  # type: ignore[arg-type]  # TypeError: a move is not a string
    except TypeError:
        return [list(m) for m in moves]
    if len(text) == len(moves) and max(map(len, moves), default=1) == 1:
        return text  # join makes a plain str of str subclasses too
    return [str(m) for m in moves]


OUTPUT_IN_RECORD = 2000  # characters of a bot's output kept in its game's record


def excerpt(text: str, limit: int = OUTPUT_IN_RECORD) -> str:
    """The start and the end of a long text (a crash's reason is usually at the end)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… ({len(text) - limit} characters left out) …\n{text[-half:]}"


class _Game:
    """One game in progress: the state, the seats and what happened to them."""

    def __init__(self, spec: GameSpec, players: Sequence[Player], seed: int, setup: Setup) -> None:
        self.spec, self.rules = spec, spec.rules
        self.players = tuple(players)
        self.state = self.rules.initial_state(random.Random(seed), len(players), setup)
        self.names = [p.entry for p in players]
        self.seats: list[Seat] = []
        self.out: set[int] = set()  # seats that are out of the game (retired)
        self.faults: list[SeatFault] = []
        self.fault_turns: list[int] = []
        self.moves: list[Any] = []
        self.ended: Outcome | None = None  # a two-seat game's forfeit
        two_seats = len(self.players) == 2
        # Two seats taking turns: each move is asked alone (``play_alone``).
        self.in_turns = two_seats and not spec.records_turns
        # A fault ends the game as the seat's loss (else the rules put the seat out, or stand in).
        self.forfeits = two_seats and spec.info.two_seat_forfeit

    def fault(self, seat: int, termination: Termination, reason: str) -> None:
        who = f"{self.spec.seat_name(seat)} ({self.names[seat]})"
        if self.forfeits:
            if self.ended is None:
                self.ended = fault_outcome(2, seat, termination, f"{who} {reason}")
            return
        turn = self.rules.turn(self.state)
        self.faults.append(SeatFault(seat, turn, termination, f"{who} {reason}"))
        self.fault_turns.append(len(self.moves))

    def start(self, sandbox: Spawner, limits: BotLimits) -> None:
        # Spawn every bot before waiting for any: they load side by side. Each seat's limits
        # are its language's (Domineering: Java's time twice C's).
        for seat, player in enumerate(self.players):
            who = Entrant(player.entry, player.jail, player.program, player.opens)
            own = limits.of(player.language)
            self.seats.append(open_seat(self.spec, who, sandbox, own, seat, self.state))
        for seat, held in enumerate(self.seats):
            if self.ended is not None:
                break  # a two-seat game already lost by the seat before: no need to start
            try:
                self.names[seat] = held.bot.start()
            except BotFault as exc:
                self.fault(seat, exc.termination, str(exc))
                self.retire_if_out(seat)

    def retire_if_out(self, seat: int) -> None:
        """After a fault in a game of more than two seats: out, unless a stand-in move keeps
        the seat playing (then ``stand_in`` gives that move when it is asked)."""
        if self.forfeits or seat in self.out:
            return
        if self.rules.stand_in(self.state, seat) is None:
            self.out.add(seat)
            self.state = self.rules.retire(self.state, seat)

    def play_turn(self) -> None:
        """Ask every seat that moves now, at once; apply what they chose."""
        movers = self.rules.to_move(self.state)
        if self.in_turns and len(movers) == 1:
            self.play_alone(movers[0])
            return
        movers = tuple(s for s in movers if s not in self.out)
        turn = self.rules.turn(self.state)
        for seat in movers:  # bots started afresh each move: every seat's process at once
            self.seats[seat].bot.prepare()
        asked: dict[int, Pending] = {}
        for seat in movers:
            try:
                asked[seat] = self.seats[seat].bot.begin(self.seats[seat].request(self.state), turn)
            except BotFault as exc:
                self.fault(seat, exc.termination, str(exc))
        gather(list(asked.values()))
        chosen = {seat: self.judge(seat, move, turn) for seat, move in asked.items()}
        if self.ended is not None:
            return
        for seat in movers:
            if chosen.get(seat) is None:
                self.stand_in_or_retire(seat, chosen)
        # The turn is played with every move it has, whoever faulted in it: a retired seat is
        # out as the turn is played (Multisnake: a snake dying in it ties with the faulting one),
        # and only a game its retirements ended has no such turn.
        movers = tuple(s for s in self.rules.to_move(self.state) if s not in self.out)
        if movers or self.rules.outcome(self.state) is None:
            self.apply({seat: chosen[seat] for seat in movers})

    def play_alone(self, seat: int) -> None:
        """A two-seat game's move (the usual case, kept lean): ask, judge, apply."""
        turn = self.rules.turn(self.state)
        held = self.seats[seat]
        try:
            move = held.bot.ask_alone(held.request(self.state), turn)
        except BotFault as exc:
            self.fault(seat, exc.termination, str(exc))
            return
        self.settle(seat, move, turn)

    def settle(self, seat: int, move: Pending, turn: int) -> None:
        """Judge a move asked alone and apply it (nothing, after a fault)."""
        chosen = self.judge(seat, move, turn)
        if chosen is not None:
            self.state = self.rules.apply(self.state, {seat: chosen})
            self.moves.append(self.rules.move_text(chosen))

    def play_quick(self, quick: QuickPlay) -> bool:
        """The game's quick loop (``GameSpec.quick``): its usual moves played in C, then the move
        it handed over, if any, driven on, judged and applied here. False when it played
        nothing (these bots cannot be asked that way, or the next move is not usual): the
        referee then plays that move its own way."""
        played = quick(self.state, [held.bot for held in self.seats])
        if played is None:
            return False
        self.state = played.state
        self.moves.extend(played.moves)
        handed = played.handed
        if handed is None:
            return bool(played.moves)
        held, turn = self.seats[handed.seat], self.rules.turn(self.state)
        self.settle(handed.seat, resume(held.bot, held.request(self.state), handed, turn), turn)
        return True

    def judge(self, seat: int, move: Pending, turn: int) -> Any:
        """The move a seat's reply means, checked; None after a fault (recorded)."""
        held = self.seats[seat]
        held.bot.finish(move)
        if move.fault is not None:
            self.fault(seat, move.fault.termination, str(move.fault))
            return None
        try:
            chosen = held.decode(self.state, move)
            self.rules.check_move(self.state, seat, chosen)
        except (InvalidMoveError, IllegalMoveError) as exc:
            self.fault(seat, Termination.INVALID_MOVE, f"{exc} at turn {turn}")
            return None
        return chosen

    def stand_in_or_retire(self, seat: int, chosen: dict[int, Any]) -> None:
        stand_in = self.rules.stand_in(self.state, seat)
        if stand_in is not None:
            chosen[seat] = stand_in
        else:
            self.retire_if_out(seat)

    def apply(self, chosen: dict[int, Any]) -> None:
        self.state = self.rules.apply(self.state, chosen)
        text = self.rules.move_text
        if self.spec.records_turns:
            seats = range(len(self.players))
            self.moves.append(tuple(text(chosen[s]) if s in chosen else None for s in seats))
        else:
            self.moves.extend(text(chosen[seat]) for seat in sorted(chosen))

    def outcome(self) -> Outcome | None:
        if self.ended is not None:
            return self.ended
        outcome = self.rules.outcome(self.state)
        if outcome is None or self.forfeits:
            return outcome
        return replace(outcome, faults=tuple(self.faults))

    def close(self) -> None:
        for held in self.seats:
            held.bot.close()


def play_game(
    spec: GameSpec,
    players: Sequence[Player],
    sandbox: Spawner,
    limits: BotLimits,
    seed: int,
    on_state: Callable[[Any], None] | None = None,
    setup: Setup = EMPTY,
) -> GameResult:
    """Play one game of ``spec`` between ``players`` (by seat) and judge it."""
    started = time.monotonic()
    game = _Game(spec, players, seed, setup)
    try:
        game.start(sandbox, limits)
        if on_state is not None:
            on_state(game.state)
        quick = spec.quick if on_state is None and game.in_turns else None
        while (outcome := game.outcome()) is None:
            if quick is not None and game.play_quick(quick):
                continue
            game.play_turn()
            if on_state is not None and game.ended is None:
                on_state(game.state)
    finally:
        game.close()
    return GameResult(
        game=spec.id,
        seed=seed,
        players=tuple(players),
        names=tuple(game.names),
        moves=tuple(game.moves),
        outcome=outcome,
        scores=tuple(int(s) for s in spec.rules.scores(game.state)),
        cpu_s=tuple(held.bot.cpu_used for held in game.seats),
        wall_s=time.monotonic() - started,
        output=tuple(held.bot.output_text() for held in game.seats),
        fault_turns=tuple(game.fault_turns),
    )
