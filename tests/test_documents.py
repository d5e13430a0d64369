"""Documents from strangers are read with their nesting bounded: runner/common/documents.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runner.common import documents
from runner.common.documents import (
    MAX_DEPTH,
    ShapeError,
    check_depth,
    count_values,
    load_json,
    load_yaml,
)


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_json_as_deep_as_the_limit_is_read_one_level_more_is_refused() -> None:
    assert load_json(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    with pytest.raises(ShapeError):
        load_json(nested(MAX_DEPTH + 1))
    with pytest.raises(ShapeError):
        load_json('{"a": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1))


def test_json_is_walked_only_when_its_brackets_could_nest_past_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked: list[Any] = []
    monkeypatch.setattr(documents, "check_depth", walked.append)
    shallow = {"seats": [{"entry": "a"}, {"entry": "b"}], "moves": "LRUD"}
    assert load_json(json.dumps(shallow)) == shallow
    assert load_json(json.dumps(shallow).encode()) == shallow
    assert walked == []
    brackets = {"text": "[" * MAX_DEPTH}  # in a string: counted all the same, then walked
    assert load_json(json.dumps(brackets)) == brackets and walked == [brackets]


@pytest.mark.parametrize("load", [load_json, load_yaml])
def test_nesting_past_the_parsers_recursion_is_a_value_error(load: Any) -> None:
    """Deep enough that the parser itself would raise RecursionError."""
    with pytest.raises(ValueError, match="levels deep"):
        load(nested(20_000))


def test_yaml_lists_inside_themselves_are_refused() -> None:
    with pytest.raises(ShapeError):
        load_yaml("a: &a [1, *a]\n")
    with pytest.raises(ShapeError):
        load_yaml("a: &a {b: [c, *a]}\n")


def test_shared_containers_are_walked_once_per_depth_not_once_per_path() -> None:
    """Each level two references to the one below (as YAML aliases make them): 2**60 paths,
    which a walk along every path would never finish."""

    def doubling(levels: int) -> list[Any]:
        level: list[Any] = ["leaf"]
        for _ in range(levels - 1):
            level = [level, level]
        return level

    check_depth(doubling(60))
    with pytest.raises(ShapeError):
        check_depth(doubling(70))
    assert count_values(doubling(60), 1000) == 1001  # past the bound: the bound plus one
    assert count_values(doubling(3), 1000) == 1 + 2 * (1 + 2 * (1 + 1))


def test_yaml_that_repeats_itself_exponentially_is_refused() -> None:
    """Nine aliases of nine aliases ... (a "billion laughs"): a few hundred bytes, shallow, but
    anything that prints or copies it would go through 9**9 values."""
    inner = "&l0 [" + ", ".join(["x"] * 9) + "]"
    for n in range(1, 9):
        inner = f"&l{n} [{inner}, " + ", ".join([f"*l{n - 1}"] * 8) + "]"
    with pytest.raises(ShapeError, match="repeat"):
        load_yaml(f"name: {inner}\n")
    # a document well within the bound: its aliases are copies, counted as such
    assert count_values(load_yaml("a: &a [1, 2]\nb: [*a, *a]\n"), 100) == 1 + 2 + 3 + 1 + 3 + 3


def test_scalars_and_shallow_documents_pass() -> None:
    check_depth(None)
    check_depth("text")
    assert load_yaml("name: x\nlimits: {move_ms: 5}\n") == {"name": "x", "limits": {"move_ms": 5}}
