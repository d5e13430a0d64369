"""The contract every registered game keeps, checked over seeded random playouts at every seat
count the game allows (STYLE 4).

The bots here are random legal players: each seat that moves picks one of ``legal_moves`` at
random, writes it the way a bot of the game's interface would (``codec.reply``), and the codec
reads it back (``codec.decode``). Nothing is registered here: a new game in ``runner.games.GAMES``
is checked as it is, with the sample setup its package gives for a seat count. The toy game of
tests/toy (simultaneous, 2 to 6 seats) is checked too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

import pytest
from toy import SPEC as TOY

from runner.games import GAMES
from runner.games.base import GameInfo, InvalidMoveError, Outcome
from runner.games.spec import CFunctionCodec, GameSpec, StdioCodec
from runner.play.playback import playback

SEEDS = range(3)


def seat_counts(spec: GameSpec) -> list[int]:
    """The seat counts to try: those declared, or the smallest few the game allows."""
    info = spec.info
    return list(info.seat_counts) or list(range(info.min_players, min(info.max_players, 8) + 1))[:3]


REGISTRY = {**GAMES, TOY.id: TOY}
CASES = [(gid, n) for gid in sorted(REGISTRY) for n in seat_counts(REGISTRY[gid])]


@dataclass
class Playout:
    frames: list[str]
    record: dict[str, Any]
    outcome: Outcome


@pytest.fixture(params=CASES, ids=lambda c: f"{c[0]}-{c[1]}-seats")
def case(request: pytest.FixtureRequest) -> tuple[GameSpec, int]:
    game_id, seats = request.param
    return REGISTRY[game_id], seats


def wire_round_trip(spec: GameSpec, state: Any, seat: int, move: Any) -> Any:
    """The move as a bot of this interface would send it, read back by the codec."""
    reply = spec.codec.reply(move)
    if isinstance(reply, int):
        return cast(CFunctionCodec[Any, Any], spec.codec).decode(state, seat, reply)
    lines = reply.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return cast(StdioCodec[Any, Any], spec.codec).decode(state, seat, lines)


def playout(spec: GameSpec, seats: int, seed: int) -> Playout:
    """A seeded game of random legal bots, checking the per-position contract on the way."""
    rules, info = spec.rules, spec.info
    rng = random.Random(seed)
    setup = spec.sample_setup(seats)
    state = rules.initial_state(random.Random(seed), seats, setup)
    frames = [rules.render_text(state)]
    moves: list[Any] = []
    while movers := rules.to_move(state):
        assert rules.outcome(state) is None, f"the game has an outcome but seats {movers} move"
        assert all(0 <= s < seats for s in movers), f"{movers} are not all seats"
        assert list(movers) == sorted(set(movers)), f"seats to move {movers} are not ascending"
        if not info.simultaneous:
            assert len(movers) == 1, f"a sequential game lets seats {movers} move at once"
        assert len(moves) < info.max_moves, f"the game is still running after {len(moves)} steps"
        turn = rules.turn(state)
        assert isinstance(turn, int) and turn >= 1, f"turn {turn} is not a 1-based turn number"
        chosen = {}
        for seat in movers:
            legal = list(rules.legal_moves(state, seat))
            assert legal, f"seat {seat} must move but has no legal move"
            move = rng.choice(legal)
            rules.check_move(state, seat, move)
            assert wire_round_trip(spec, state, seat, move) == move, (
                f"{move!r} as a bot writes it does not read back"
            )
            text = rules.move_text(move)
            assert rules.parse_move(seat, text) == move, f"move text {text!r} does not read back"
            chosen[seat] = move
        if spec.records_turns:
            moves.append(
                [rules.move_text(chosen[s]) if s in chosen else None for s in range(seats)]
            )
        else:
            moves.extend(rules.move_text(chosen[s]) for s in movers)
        state = rules.apply(state, chosen)
        frames.append(rules.render_text(state))
    outcome = rules.outcome(state)
    assert outcome is not None, "the game stopped asking for moves but has no outcome"
    record = {
        "game": spec.id,
        "seed": seed,
        "seats": [{"entry": f"bot{s}"} for s in range(seats)],
        "moves": moves,
        "outcome": {"faults": []},
    }
    return Playout(frames, record, outcome)


def test_the_game_declares_its_shape(case: tuple[GameSpec, int]) -> None:
    spec, seats = case
    info = spec.info
    assert isinstance(info, GameInfo)
    assert REGISTRY[spec.id] is spec, "the registry key is the game's id"
    assert 1 <= info.min_players <= info.max_players, "player counts are 1 <= min <= max"
    assert info.allows(seats), f"{seats} seats are listed but not allowed"
    assert len(info.seat_names) >= info.min_players, "every seat has a name"
    assert info.max_moves > 0, "a game declares a positive move limit"
    assert spec.builtins, "a game ships at least one built-in bot (the check stage's opponent)"
    assert all((b.folder / "bot.c").exists() or any(b.folder.glob("bot.*")) for b in spec.builtins)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_playout_ends_within_its_length_with_points_in_bounds(
    case: tuple[GameSpec, int], seed: int
) -> None:
    spec, seats = case
    outcome = playout(spec, seats, seed).outcome
    assert len(outcome.points) == seats, "one entry of points per seat"
    assert all(0.0 <= p <= 1.0 for p in outcome.points), f"points {outcome.points} out of [0, 1]"
    if seats == 2:
        assert sum(outcome.points) == 1.0, f"two-seat points {outcome.points} do not sum to 1"
    places = outcome.places
    assert sorted(places)[0] == 1 and all(1 <= p <= seats for p in places), f"places {places}"
    assert outcome.detail, "an outcome says in words how the game ended"
    assert not outcome.termination.is_fault, "random legal moves never cause a fault"
    assert outcome.faulty is None, "no seat is at fault when no rule was broken"


def test_the_same_seed_gives_the_same_game(case: tuple[GameSpec, int]) -> None:
    spec, seats = case
    first, again = playout(spec, seats, 11), playout(spec, seats, 11)
    assert first.record["moves"] == again.record["moves"], "the same seed gave different moves"
    assert first.frames == again.frames, "the same seed gave different frames"
    assert first.outcome == again.outcome, "the same seed gave a different outcome"


def test_a_record_plays_back_frame_for_frame(case: tuple[GameSpec, int]) -> None:
    spec, seats = case
    played = playout(spec, seats, 5)
    replayed = [
        spec.rules.render_text(state)
        for _, state in playback(spec, played.record, spec.sample_setup(seats))
    ]
    assert replayed == played.frames, "playing the record back gave other frames"


def test_garbage_replies_are_invalid_moves(case: tuple[GameSpec, int]) -> None:
    spec, seats = case
    state = spec.rules.initial_state(random.Random(0), seats, spec.sample_setup(seats))
    seat = spec.rules.to_move(state)[0]
    garbage: list[Any] = (
        [-1, 0, 2**31 - 1, 1 << 20]
        if spec.interface == "c-function"
        else [[""], ["\x00"], ["this is not a move"], [], ["\xff" * 3]]
    )
    for reply in garbage:
        with pytest.raises(InvalidMoveError) as caught:
            spec.codec.decode(state, seat, reply)
        shown = reply if isinstance(reply, int) else (reply[0] if reply else "")
        assert str(shown) in str(caught.value) or repr(shown) in str(caught.value), (
            f"the message {str(caught.value)!r} does not show the reply {reply!r}"
        )


def test_render_text_has_no_trailing_newline(case: tuple[GameSpec, int]) -> None:
    spec, seats = case
    state = spec.rules.initial_state(random.Random(0), seats, spec.sample_setup(seats))
    text = spec.rules.render_text(state)
    assert text and not text.endswith("\n"), "a text frame has no trailing newline"
