"""Regenerate the games' golden texts in runner/games/<game>/golden/ (run by hand after a change).

    python tests/regen_golden.py

The tests build the same texts with ``golden_files()`` and compare them with the stored files,
so a change in how frames look, in the messages bots read, or in how the rules play out, shows up
as a diff here. Snakes: text frames. Cluster: a protocol transcript (every message the host sends
a bot, verbatim) and a replay of text frames.
"""

from __future__ import annotations

import random

from golden_texts import golden

from runner.games.cluster import (
    Cluster,
    ClusterState,
    ClusterStdio,
    Move,
    Place,
    Rotate,
    valid_columns,
)
from runner.games.snakes import MOVES, Snakes

EVERY = 64  # moves between recorded frames
PLAYOUT_SEEDS = (7, 6)  # seed 7 plays all 2048 moves; seed 6 ends by suffocation
CLUSTER_SEED = 146  # 19 moves, three rotations; the last gives both seats a line of 4
CLUSTER_ROTATE = 0.15  # how often the transcript's bots rotate


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


def snakes_golden_files() -> dict[str, str]:
    files = {"snakes_initial.txt": initial_frame()}
    for seed in PLAYOUT_SEEDS:
        files[f"snakes_playout_seed{seed}.txt"] = playout(seed)
    return files


def cluster_bot(state: ClusterState, bot_rng: random.Random) -> Move:
    """The game's own random bot (a random open column, the last colour in hand), rotating now
    and then so the transcript shows rotations."""
    if bot_rng.random() < CLUSTER_ROTATE:
        return Rotate(bot_rng.randint(1, 5))
    return Place(bot_rng.choice(valid_columns(state)), state.hand[-1])


def cluster_game(seed: int) -> list[tuple[ClusterState, Move | None]]:
    """Every state of a seeded Cluster game with the move played from it (None for the last)."""
    game = Cluster()
    bot_rng = random.Random(seed + 1000)
    state = game.initial_state(random.Random(seed))
    played: list[tuple[ClusterState, Move | None]] = []
    while game.to_move(state):
        move = cluster_bot(state, bot_rng)
        played.append((state, move))
        state = game.apply(state, {state.mover: move})
    played.append((state, None))
    return played


def cluster_result(state: ClusterState) -> str:
    outcome = Cluster().outcome(state)
    assert outcome is not None
    return f"Result: {outcome.termination.value}, {outcome.detail}, points {outcome.points}\n"


def cluster_transcript(seed: int) -> str:
    """The messages of a seeded game as a stdio bot layer sends them: each bot's init message
    once, then before every move the mover's turn message; each followed by the reply."""
    game, wire = Cluster(), ClusterStdio()
    played = cluster_game(seed)
    first = played[0][0]
    parts = [
        f"Cluster protocol transcript, seed {seed}: every message the host sends, verbatim, and\n"
        "every reply, each after a heading line that names it.\n"
    ]
    for seat, name in enumerate(game.info.seat_names):
        parts.append(f"=== init message to {name} (seat {seat}) ===\n")
        parts.append(wire.greeting(first, seat).decode("ascii"))
    for state, move in played:
        if move is None:
            break
        name = game.info.seat_names[state.mover]
        parts.append(f"=== turn {game.turn(state)}, message to {name} ===\n")
        parts.append(wire.request(state, state.mover).decode("ascii"))
        parts.append(f"=== {name} replies ===\n{wire.reply(move).decode('ascii')}")
    parts.append(cluster_result(played[-1][0]))
    return "".join(parts)


def cluster_replay(seed: int) -> str:
    """The text frame after every move of the same game."""
    game = Cluster()
    parts = [f"Cluster replay, seed {seed}: the frame before the first move and after each.\n"]
    previous: Move | None = None
    for number, (state, move) in enumerate(cluster_game(seed)):
        heading = "Start" if previous is None else f"Move {number}: {game.move_text(previous)}"
        parts.append(f"{heading}\n\n{game.render_text(state)}\n")
        previous = move
    parts.append(cluster_result(cluster_game(seed)[-1][0]))
    return "\n".join(parts)


def cluster_golden_files() -> dict[str, str]:
    return {
        f"cluster_protocol_seed{CLUSTER_SEED}.txt": cluster_transcript(CLUSTER_SEED),
        f"cluster_replay_seed{CLUSTER_SEED}.txt": cluster_replay(CLUSTER_SEED),
    }


def golden_files() -> dict[str, str]:
    return snakes_golden_files() | cluster_golden_files()


def main() -> None:
    for name, text in golden_files().items():
        golden(name).parent.mkdir(exist_ok=True)
        golden(name).write_text(text, encoding="ascii")
        print(f"wrote {golden(name)}")


if __name__ == "__main__":
    main()
