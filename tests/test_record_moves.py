"""How a game's moves are written in its record, and a fixture's key worked out once."""

from __future__ import annotations

from typing import Any

import pytest

from runner.play.referee import _moves_json
from runner.season import playloop
from runner.season.formats import Fixture
from runner.season.results import record_key


@pytest.mark.parametrize(
    ("moves", "written"),
    [
        (("L", "R", "U", "D"), "LRUD"),  # the usual game: one string
        ((), ""),
        (("ab", "c"), ["ab", "c"]),  # a longer move: a list, every move whole
        (("", "a"), ["", "a"]),  # an empty move is a move of its own
        (("a", "", "b"), ["a", "", "b"]),
        ((("a", None), ("b", "c")), [["a", None], ["b", "c"]]),  # by turns: each seat's move
    ],
)
def test_moves_are_one_string_only_when_every_move_is_one_character(
    moves: Any, written: Any
) -> None:
    assert _moves_json(moves) == written
    assert type(_moves_json(moves)) is type(written)


def test_a_fixture_key_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[Any, ...]] = []

    def counted(*args: Any) -> str:
        made.append(args)
        return record_key(*args)

    monkeypatch.setattr(playloop, "record_key", counted)
    key_of = playloop.keys_by({"a": "1" * 64, "b": "2" * 64}, {}, lambda: "f" * 64)
    first, second = Fixture(1, ("a", "b"), "snakes-v2", 7), Fixture(1, ("b", "a"), "snakes-v2", 7)
    keys = [
        key_of(first),
        key_of(second),
        key_of(first),
        key_of(Fixture(1, ("a", "b"), "snakes-v2", 7)),
    ]
    assert keys[0] == keys[2] == keys[3] != keys[1]
    assert keys[0] == record_key("snakes-v2", [("a", "1" * 64), ("b", "2" * 64)], 7, None)
    assert len(made) == 2, "each fixture's key once"
