"""Regenerate Domineering's golden texts in its folder's golden/ (run by hand after a change).

    python tests/regen_golden_domineering.py

One short seeded game, shown two ways: its text frames (domineering_replay_seed92.txt) and every
request the host sends a bot with the reply it got (domineering_protocol_seed92.txt).
tests/test_domineering_rules.py builds the same texts with ``golden_files()`` and compares them
with the stored files, so a change in how frames look, in the bytes bots read, or in how the
rules play out shows up as a diff. runner/games/domineering/rules.md's worked example is the
request of move ``EXAMPLE_MOVE`` (counted from 1) of the same game (a test checks that too).

The game: from the empty board, ``OPENING`` random placements (no bombs) drawn with
``random.Random(SEED)``; then the same generator picks uniformly among all legal moves, bombs
included, until a seat has none.
"""

from __future__ import annotations

import random

from golden_texts import golden

from runner.games.domineering.codec import DomineeringStdio
from runner.games.domineering.rules import Domineering, DomineeringState, Move, placements

SEED = 92
OPENING = 60  # placements before the recorded part: a short game that still shows both bombs
EXAMPLE_MOVE = 63  # the docs' worked example: the request for move 63 (1-based), a bomb


def seeded_game(seed: int = SEED) -> list[tuple[DomineeringState, Move | None]]:
    """Every state of the game with the move played from it (None for the last)."""
    game = Domineering()
    rng = random.Random(seed)
    state = game.initial_state(rng)
    played: list[tuple[DomineeringState, Move | None]] = []
    while game.to_move(state):
        if state.moves_played < OPENING:
            options: list[Move] = list(placements(state.board, state.mover))
        else:
            options = game.legal_moves(state, state.mover)
        move = rng.choice(options)
        played.append((state, move))
        state = game.apply(state, {state.mover: move})
    played.append((state, None))
    return played


def result_line(state: DomineeringState) -> str:
    outcome = Domineering().outcome(state)
    assert outcome is not None
    return f"Result: {outcome.termination.value}, {outcome.detail}, points {outcome.points}\n"


def replay(seed: int = SEED) -> str:
    """The frame after move OPENING and after every later move."""
    game = Domineering()
    played = seeded_game(seed)
    parts = [
        f"Domineering replay, seed {seed}: the frame after {OPENING} random placements "
        "and after every move from there.\n"
    ]
    for state, _ in played[OPENING:]:
        heading = f"After move {state.moves_played}"
        if state.last is not None:
            heading += f": {game.move_text(state.last)}"
        parts.append(f"{heading}\n\n{game.render_text(state)}\n")
    parts.append(result_line(played[-1][0]))
    return "\n".join(parts)


def transcript(seed: int = SEED) -> str:
    """Every request of the same game, verbatim, with the reply, from move OPENING + 1 on
    (moves numbered from 1)."""
    game, codec = Domineering(), DomineeringStdio()
    played = seeded_game(seed)
    parts = [
        f"Domineering protocol transcript, seed {seed}, from move {OPENING}: every request the "
        "host sends (a fresh process each), verbatim, and every reply, each after a heading.\n"
    ]
    for state, move in played[OPENING:]:
        if move is None:
            break
        seat = state.mover
        name = game.info.seat_names[seat]
        parts.append(f"=== move {state.moves_played + 1}, turn {game.turn(state)}, to {name} ===\n")
        parts.append(codec.greeting(state, seat).decode("ascii"))
        parts.append(codec.request(state, seat).decode("ascii"))
        parts.append(f"=== {name} replies ===\n{game.move_text(move)}\n")
    parts.append(result_line(played[-1][0]))
    return "".join(parts)


def golden_files() -> dict[str, str]:
    return {
        f"domineering_replay_seed{SEED}.txt": replay(),
        f"domineering_protocol_seed{SEED}.txt": transcript(),
    }


def main() -> None:
    for name, text in golden_files().items():
        golden(name).parent.mkdir(exist_ok=True)
        golden(name).write_text(text, encoding="ascii")
        print(f"wrote {golden(name)}")


if __name__ == "__main__":
    main()
