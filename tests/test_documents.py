"""Documents from strangers are read with their nesting bounded: runner/documents.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runner.documents import MAX_DEPTH, TooDeepError, check_depth, load_json, load_yaml


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_json_as_deep_as_the_limit_is_read_one_level_more_is_refused() -> None:
    assert load_json(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    with pytest.raises(TooDeepError):
        load_json(nested(MAX_DEPTH + 1))
    with pytest.raises(TooDeepError):
        load_json('{"a": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1))


@pytest.mark.parametrize("load", [load_json, load_yaml])
def test_nesting_past_the_parsers_recursion_is_a_value_error(load: Any) -> None:
    """Deep enough that the parser itself would raise RecursionError."""
    with pytest.raises(ValueError, match="levels deep"):
        load(nested(20_000))


def test_yaml_lists_inside_themselves_are_refused() -> None:
    with pytest.raises(TooDeepError):
        load_yaml("a: &a [1, *a]\n")
    with pytest.raises(TooDeepError):
        load_yaml("a: &a {b: [c, *a]}\n")


def test_shared_aliases_are_walked_once_per_depth_not_once_per_path() -> None:
    """Each level two aliases of the one below: 2**60 paths, which a walk along every path
    would never finish; 60 levels are within the limit, 70 are not."""

    def doubling(levels: int) -> str:
        lines = ["l0: &l0 [leaf]"]
        lines += [f"l{n}: &l{n} [*l{n - 1}, *l{n - 1}]" for n in range(1, levels)]
        return "\n".join([*lines, f"top: *l{levels - 1}"]) + "\n"

    document = load_yaml(doubling(60))
    assert document["top"][0][1][0] is document["l56"]  # shared, as the aliases say
    with pytest.raises(TooDeepError):
        load_yaml(doubling(70))


def test_scalars_and_shallow_documents_pass() -> None:
    check_depth(None)
    check_depth("text")
    assert load_yaml("name: x\nlimits: {move_ms: 5}\n") == {"name": "x", "limits": {"move_ms": 5}}
