"""Regenerate the golden text frames in tests/golden/ (run by hand after a deliberate change).

    python tests/regen_golden.py

The tests build the same texts with ``golden_files()`` and compare them with the stored files,
so a change in how frames look, or in how the rules play out, shows up as a diff here.
"""

from __future__ import annotations

import random
from pathlib import Path

from runner.games.snakes import MOVES, Snakes

GOLDEN = Path(__file__).parent / "golden"
EVERY = 64  # moves between recorded frames
PLAYOUT_SEEDS = (7, 6)  # seed 7 plays all 2048 moves; seed 6 ends by suffocation


def initial_frame() -> str:
    game = Snakes()
    return game.render_text(game.initial_state(random.Random(0))) + "\n"


def playout(seed: int) -> str:
    """Frames every EVERY moves (and the last) of a game of two uniform random movers."""
    game = Snakes()
    rng = random.Random(seed)
    state = game.initial_state(rng)
    parts = [f"Snakes random playout, seed {seed}; a frame every {EVERY} moves.\n"]
    while True:
        seats = game.to_move(state)
        done = not seats
        if state.moves_played % EVERY == 0 or done:
            x, o = game.scores(state)
            parts.append(
                f"After {state.moves_played} moves (X {x} cells, O {o} cells):\n\n"
                f"{game.render_text(state)}\n"
            )
        if done:
            break
        state = game.apply(state, {seats[0]: rng.choice(MOVES)})
    outcome = game.outcome(state)
    assert outcome is not None
    parts.append(
        f"Result: {outcome.termination.value}, {outcome.detail}, points {outcome.points}\n"
    )
    return "\n".join(parts)


def golden_files() -> dict[str, str]:
    files = {"snakes_initial.txt": initial_frame()}
    for seed in PLAYOUT_SEEDS:
        files[f"snakes_playout_seed{seed}.txt"] = playout(seed)
    return files


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, text in golden_files().items():
        (GOLDEN / name).write_text(text, encoding="ascii")
        print(f"wrote {GOLDEN / name}")


if __name__ == "__main__":
    main()
