"""The contract every registered game keeps, checked over seeded random playouts.

A new game registers in ``runner.games.GAMES`` and adds a random-reply maker to ``RANDOM_REPLY``
below: a function giving, for a state and a seat, a reply the way a bot would send it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from runner.games import GAMES
from runner.games.base import Game, GameInfo, InvalidMoveError, Outcome
from runner.games.cluster import ClusterState, valid_columns

RandomReply = Callable[[Any, int, random.Random], int | str]


def cluster_reply(state: ClusterState, seat: int, rng: random.Random) -> str:
    """A Cluster bot's reply line: now and then a rotation, else a random open column."""
    if rng.random() < 0.1:
        return f"ROTATE {rng.randint(1, 5)}"
    return f"PLACE {rng.choice(valid_columns(state))} {rng.choice(state.hand)}"


RANDOM_REPLY: dict[str, RandomReply] = {
    # A Snakes bot is a C function returning a character code.
    "snakes-v2": lambda state, seat, rng: ord(rng.choice("LRUD")),
    # A Cluster bot writes one line on stdout.
    "cluster-v2": cluster_reply,
}

# Replies no game should accept as a move.
GARBAGE: list[int | str] = ["", "\x00", "this is not a move", -1, 2**40, "\n"]

SEEDS = range(4)


@dataclass
class Playout:
    frames: list[str]
    moves: list[dict[int, str]]
    outcome: Outcome


@pytest.fixture(params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> Game[Any, Any]:
    return GAMES[request.param]()


def playout(game: Game[Any, Any], seed: int) -> Playout:
    """A seeded game of random replies, checking the per-position contract on the way."""
    assert game.id in RANDOM_REPLY, f"add a random-reply maker for {game.id} to RANDOM_REPLY"
    info = game.info
    reply = RANDOM_REPLY[game.id]
    rng = random.Random(seed)
    state = game.initial_state(rng)
    frames: list[str] = [game.render_text(state)]
    moves: list[dict[int, str]] = []
    while True:
        seats = game.to_move(state)
        for seat in range(info.max_players):
            assert isinstance(game.observation(state, seat), bytes), "an observation is bytes"
        if not seats:
            break
        assert game.outcome(state) is None, f"the game has an outcome but seats {seats} move"
        assert all(0 <= s < info.max_players for s in seats), f"{seats} are not all seats"
        assert len(set(seats)) == len(seats), f"a seat is listed twice in {seats}"
        if not info.simultaneous:
            assert len(seats) == 1, f"a sequential game lets seats {seats} move at once"
        assert len(moves) < info.max_moves, f"the game is still running after {len(moves)} moves"
        turn = game.turn(state)
        assert isinstance(turn, int) and turn >= 1, f"turn {turn} is not a 1-based turn number"
        chosen = {s: game.parse_move(s, reply(state, s, rng)) for s in seats}
        for s, move in chosen.items():
            text = game.move_text(move)
            assert game.parse_move(s, text) == move, f"move text {text!r} does not read back"
        moves.append({s: game.move_text(m) for s, m in chosen.items()})
        state = game.apply(state, chosen)
        frames.append(game.render_text(state))
    outcome = game.outcome(state)
    assert outcome is not None, "the game stopped asking for moves but has no outcome"
    return Playout(frames, moves, outcome)


def test_game_declares_its_shape(game: Game[Any, Any]) -> None:
    info = game.info
    assert isinstance(info, GameInfo)
    assert GAMES[game.id] is type(game), "the registry key is the game's id"
    assert 1 <= info.min_players <= info.max_players, "player counts are 1 <= min <= max"
    assert len(info.seat_names) == info.max_players, "every seat has a name"
    assert info.max_moves > 0, "a game declares a positive move limit"
    assert info.interface in ("c-function", "stdio"), f"unknown interface {info.interface!r}"


@pytest.mark.parametrize("seed", SEEDS)
def test_random_playout_ends_within_max_moves(game: Game[Any, Any], seed: int) -> None:
    result = playout(game, seed)
    assert len(result.moves) <= game.info.max_moves, "the game ran past its declared length"


@pytest.mark.parametrize("seed", SEEDS)
def test_points_are_in_bounds(game: Game[Any, Any], seed: int) -> None:
    outcome = playout(game, seed).outcome
    assert len(outcome.points) == game.info.max_players, "one entry of points per seat"
    assert all(0.0 <= p <= 1.0 for p in outcome.points), f"points {outcome.points} out of [0, 1]"
    if game.info.max_players == 2:
        assert sum(outcome.points) == 1.0, f"two-player points {outcome.points} do not sum to 1"
    assert outcome.detail, "an outcome says in words how the game ended"
    assert not outcome.termination.is_fault, "random legal replies never cause a fault"
    assert outcome.faulty is None, "no seat is at fault when no rule was broken"


def test_same_seed_same_trajectory(game: Game[Any, Any]) -> None:
    first, again = playout(game, 11), playout(game, 11)
    assert first.moves == again.moves, "the same seed gave different moves"
    assert first.frames == again.frames, "the same seed gave different frames"
    assert first.outcome == again.outcome, "the same seed gave a different outcome"


def test_garbage_replies_are_invalid_moves(game: Game[Any, Any]) -> None:
    for seat in range(game.info.max_players):
        for reply in GARBAGE:
            with pytest.raises(InvalidMoveError) as caught:
                game.parse_move(seat, reply)
            assert isinstance(caught.value, ValueError), "InvalidMoveError is a ValueError"
            assert str(reply) in str(caught.value) or repr(reply) in str(caught.value), (
                f"the message {str(caught.value)!r} does not show the reply {reply!r}"
            )


def test_render_text_has_no_trailing_newline(game: Game[Any, Any]) -> None:
    text = game.render_text(game.initial_state(random.Random(0)))
    assert text and not text.endswith("\n"), "a text frame has no trailing newline"
