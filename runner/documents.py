"""YAML and JSON documents from strangers (entry.yaml, configuration, cached verdicts and
records, a published site's files), read with their nesting bounded.

Both parsers recurse once per level of nesting, and a few thousand brackets are enough to raise
RecursionError from inside them, an exception no caller expects; a document just under Python's
limit parses, then raises it later, from whatever walks it with a few more frames on the stack.
YAML adds aliases: ``&a [*a]`` is a list inside itself, and nine aliases of nine aliases of ...
a tree of billions of leaves in a few hundred bytes, which any code that prints or copies it
(an error message naming the value) would go through. So a document is refused (ShapeError, a
ValueError) if it nests deeper than MAX_DEPTH levels, counted along every path an alias makes, a
cycle being infinitely deep; or, for YAML, if its aliases expand it to more than MAX_YAML_VALUES
values. Neither count follows every path: each container is visited once (once per depth it is
met at, for the first).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml

MAX_DEPTH = 64  # levels of lists and mappings; koth's own documents use fewer than ten
MAX_YAML_VALUES = 100_000  # values a YAML document may expand to through its aliases
CONTAINERS = (dict, list, tuple)


class ShapeError(ValueError):
    """A document nested too deep (or inside itself), or expanding to too many values."""


def too_deep() -> ShapeError:
    return ShapeError(
        f"it nests lists or mappings more than {MAX_DEPTH} levels deep, or inside themselves "
        "through a YAML alias"
    )


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` of ``text``, its nesting and what its aliases expand to bounded
    (yaml.YAMLError, or ShapeError)."""
    document = _bounded(yaml.safe_load, text)
    if count_values(document, MAX_YAML_VALUES) > MAX_YAML_VALUES:
        raise ShapeError(
            f"its aliases repeat its values exponentially, to more than {MAX_YAML_VALUES:,}"
        )
    return document


def load_json(text: str | bytes) -> Any:
    """``json.loads`` of ``text``, nesting bounded (ValueError, or ShapeError). JSON has no
    aliases: its size is the text's, which the caller caps. A text with no more opening
    brackets than MAX_DEPTH cannot nest deeper (each level opens one): its document is not
    walked (a season's record has ~10; the walk was a third of reading one)."""
    brackets = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else (text.count(b"[") + text.count(b"{"))
    )
    return _bounded(json.loads, text, walk=brackets > MAX_DEPTH)


def _bounded(parse: Callable[[Any], Any], text: str | bytes, walk: bool = True) -> Any:
    try:
        document = parse(text)
    except RecursionError:
        raise too_deep() from None
    if walk:
        check_depth(document)
    return document


def _children(node: Any) -> Any:
    return [*node.keys(), *node.values()] if isinstance(node, dict) else node


def check_depth(document: Any, limit: int = MAX_DEPTH) -> None:
    """Raise ShapeError if ``document`` nests lists, tuples and mappings deeper than ``limit``.
    Iterative, and a container shared by aliases is walked again only when met deeper than
    before (so at most ``limit`` times)."""
    deepest: dict[int, int] = {}  # id of a container: the deepest level it was met at
    stack: list[tuple[Any, int]] = [(document, 1)] if isinstance(document, CONTAINERS) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise too_deep()
        if deepest.get(id(node), 0) >= depth:
            continue
        deepest[id(node)] = depth
        stack.extend((c, depth + 1) for c in _children(node) if isinstance(c, CONTAINERS))


def count_values(document: Any, limit: int) -> int:
    """How many values ``document`` holds, each alias counted as a copy of what it names (so
    past ``limit``, a number above it). Each container is counted once, and ``document`` must
    not hold itself (``check_depth`` first)."""
    counted: dict[int, int] = {}  # id of a container: its values, itself included
    stack: list[tuple[Any, bool]] = [(document, False)]
    while stack:
        node, children_counted = stack.pop()
        if not isinstance(node, CONTAINERS) or id(node) in counted:
            continue
        children = _children(node)
        if not children_counted:
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, CONTAINERS))
            continue
        total = 1 + sum(counted.get(id(c), 1) if isinstance(c, CONTAINERS) else 1 for c in children)
        counted[id(node)] = min(total, limit + 1)
    return counted.get(id(document), 1)
