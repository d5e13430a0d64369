"""A recorded game played again by its rules, step by step: what the site's replays, ``koth
play``'s final frame and a debugger's replay are all built from.

A record (runner/play/referee.py) lists its moves one after another for two seats taking turns
(``"LRUD…"`` or ``["PLACE 3 0", …]``: each step is the one seat ``to_move`` names), or turn by
turn otherwise (``[["^", null, ">"], …]``: each seat's move, None for a seat that did not move),
with the faults of a game that went on after them at the index of the turn they happened in. A
seat that faulted is retired as that turn is played (before the others' moves are applied) when
the rules give it no stand-in move, exactly as the referee did; the rules being pure, the states
come out the same.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from runner.games.base import EMPTY, Setup
from runner.games.spec import GameSpec


class PlaybackError(ValueError):
    """A record's moves cannot be replayed by its game's rules."""


class Step(NamedTuple):
    """One ``apply`` of the rules: the moves of the seats that moved, and the turn number. (A
    tuple: one is made for every step of every replay, ~2.5 times as fast as a frozen
    dataclass.)"""

    moves: tuple[tuple[int, str], ...]  # (seat, move text)
    turn: int
    retired: tuple[int, ...] = ()  # seats that went out just before this step


def _where(record: Mapping[str, Any], played: int) -> str:
    return f"game {str(record.get('key') or '')[:12] or record.get('seed')}, step {played + 1}"


def _steps(record: Mapping[str, Any], by_turn: bool) -> list[Any]:
    """The record's steps: per-seat lists (turn by turn), or single move texts."""
    moves = record["moves"]
    if by_turn:
        if not isinstance(moves, list) or not all(isinstance(m, list) for m in moves):
            raise PlaybackError(f"{_where(record, 0)}: the moves are not listed turn by turn")
        return moves
    return list(moves) if isinstance(moves, str) else [str(m) for m in moves]


def _texts(listed: Any, movers: Sequence[int], seats: int, by_turn: bool) -> list[tuple[int, str]]:
    """(seat, move text) for every seat that moves in this step, from its entry in the record."""
    if not by_turn:
        return [(movers[0], str(listed))] if len(movers) == 1 else []
    if len(listed) != seats:
        return []
    return [(seat, str(listed[seat])) for seat in movers if listed[seat] is not None]


def playback(
    spec: GameSpec, record: Mapping[str, Any], setup: Setup = EMPTY
) -> Iterator[tuple[Step | None, Any]]:
    """(None, the initial state), then (step, the state after it) for every step."""
    rules = spec.rules
    seats = len(record["seats"])
    state = rules.initial_state(random.Random(record["seed"]), seats, setup)
    yield None, state
    retiring: dict[int, list[int]] = {}
    for fault in record["outcome"].get("faults", []):
        retiring.setdefault(int(fault.get("at", 0)), []).append(int(fault["seat"]))
    out: set[int] = set()
    by_turn = spec.records_turns
    for index, listed in enumerate(_steps(record, by_turn)):
        retired = []
        for seat in retiring.get(index, ()) if retiring else ():
            if seat not in out and rules.stand_in(state, seat) is None:
                out.add(seat)
                retired.append(seat)
                state = rules.retire(state, seat)
        movers = [s for s in rules.to_move(state) if s not in out] if out else rules.to_move(state)
        texts = _texts(listed, movers, seats, by_turn)
        # A turn has a move of every seat to move; none only when all of them went out in it.
        if len(texts) != len(movers) or not (texts or retired):
            raise PlaybackError(
                f"{_where(record, index)}: the record's step {listed!r} does not fit the "
                f"{len(movers)} seat(s) to move"
            )
        turn = rules.turn(state)
        try:
            state = rules.apply(state, {seat: rules.parse_move(seat, text) for seat, text in texts})
        except ValueError as exc:
            where = _where(record, index)
            raise PlaybackError(f"{where}: the rules refuse {texts}: {exc}") from None
        yield Step(tuple(texts), turn, tuple(retired)), state


def final_state(spec: GameSpec, record: Mapping[str, Any], setup: Setup = EMPTY) -> Any:
    """The state a record's game ended in (from the game's own quick replay where it has one
    that takes the record: ``GameSpec.final_state``)."""
    if spec.final_state is not None:
        state = spec.final_state(record, setup)
        if state is not None:
            return state
    (_, state) = deque(playback(spec, record, setup), maxlen=1)[0]
    return state


def _listed(values: Any) -> list[float]:
    return [float(v) for v in values]


def outcome_problem(spec: GameSpec, record: Mapping[str, Any], setup: Setup = EMPTY) -> str | None:
    """Why the rules do not reproduce a (checked) record's outcome from its moves, or None.

    The moves are played again (``final_state``, the faults' seats retired where the rules give
    no stand-in): the game must end there by the rules with the record's points, placement,
    ending and scores; or, for a game of two seats lost by a fault, not have ended yet, with the
    faulty seat to move (any seat, before the first move: a bot that fails to start)."""
    try:
        state = final_state(spec, record, setup)
        rules = spec.rules
        scores, ended = [int(s) for s in rules.scores(state)], rules.outcome(state)
        movers = rules.to_move(state)
    except (ValueError, KeyError, IndexError, TypeError) as exc:  # PlaybackError included
        return f"its moves cannot be played by the rules ({exc})"
    outcome = record["outcome"]
    if "scores" in outcome and _listed(outcome["scores"]) != scores:
        return f"its scores {outcome['scores']} are not the {scores} its moves give"
    faulty = outcome.get("faulty")
    if faulty is not None:
        if ended is not None:
            return f"it says seat {faulty} faulted, but its moves end the game by the rules"
        if record["moves"] and faulty not in movers:
            return f"it says seat {faulty} faulted, but that seat was not to move"
        return None
    if ended is None:
        return "its moves do not end the game by the rules"
    if _listed(outcome["points"]) != _listed(ended.points):
        return f"its points {outcome['points']} are not the {list(ended.points)} its moves give"
    if ended.termination.value != outcome["termination"] or (
        ended.placement and list(ended.placement) != outcome.get("placement")
    ):
        return "its ending or placement is not what its moves give by the rules"
    return None
