"""The worked example of runner/games/egghunt/rules.md, built by the engine (run by hand to
print it).

    python tests/egghunt_example.py

A test compares every block with the document, so the example shown to bot authors is always what
the engine does: seven players on the board of seed 42; seat A (the first bot) answers its first
request, every other seat stays; then A's second request.
"""

from __future__ import annotations

import random

from runner.games.egghunt import RULES, STDIO
from runner.games.egghunt.rules import Move

SEED = 42
PLAYERS = 7
REPLY = b"4\nN\nwent 4\n"  # right, onto the egg it sees, remembering what it did


def example_blocks() -> dict[str, str]:
    """Each block of the example by the name the document gives it, as its text in the doc."""
    state = RULES.initial_state(random.Random(SEED), PLAYERS, {})
    first = STDIO.request(state, 0)
    lines = REPLY.decode("ascii").split("\n")[:-1]
    move = STDIO.decode(state, 0, lines)
    moves = {seat: RULES.stand_in(state, seat) for seat in range(PLAYERS)}
    moves[0] = move
    after = RULES.apply(state, moves)
    assert after.last.collected, "the example shows an egg collected"
    stay = Move(9, "N")
    return {
        "example-board": RULES.render_text(state) + "\n",
        "example-request": repr(first) + "\n",
        "example-reply": repr(REPLY) + "\n",
        "example-move": f"{RULES.move_text(move)}\n{RULES.move_text(stay)}\n",
        "example-after": RULES.render_text(after) + "\n",
        "example-request-2": repr(STDIO.request(after, 0)) + "\n",
    }


if __name__ == "__main__":
    for name, text in example_blocks().items():
        print(f"<!-- {name} -->\n```\n{text}```\n")
