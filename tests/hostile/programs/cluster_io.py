# A Cluster player's reading, shared by the program bots here (the test puts it in front of
# each bot's own code): whitespace-separated numbers, so blank lines never matter.
import os
import sys

_tokens: list[str] = []


def token() -> int:
    while not _tokens:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        _tokens.extend(line.split())
    return int(_tokens.pop(0))


def block(width: int) -> list[list[int]]:
    return [[token() for _ in range(width)] for _ in range(token())]


def read_init() -> None:
    block(7), block(7), block(2), block(2)


def read_turn() -> tuple[list[list[int]], list[list[int]]]:
    token()
    columns = block(2)
    block(4), block(2)
    return columns, block(1)


def answer(text: str) -> None:
    os.write(1, (text + "\n").encode())


def a_legal_move(columns: list[list[int]], hand: list[list[int]]) -> str:
    return f"PLACE {columns[0][0]} {hand[0][0]}"


def play(escaped: bool) -> None:
    """A whole game: a legal move every turn, or ESCAPED every turn if the bot's attack worked."""
    read_init()
    while True:
        columns, hand = read_turn()
        answer("ESCAPED" if escaped else a_legal_move(columns, hand))
