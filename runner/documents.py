"""YAML and JSON documents from strangers (entry.yaml, configuration, cached verdicts and
records, a published site's files), read with their nesting bounded.

Both parsers recurse once per level of nesting, and a few thousand brackets are enough to raise
RecursionError from inside them, an exception no caller expects; a document just under Python's
limit parses, then raises it later, from whatever walks it with a few more frames on the stack.
YAML adds aliases: ``&a [*a]`` is a list inside itself, and nine aliases of nine aliases of ...
a tree of billions of leaves in a few hundred bytes. So a document is refused (ValueError) if it
nests deeper than MAX_DEPTH levels, counted along every path an alias makes, a cycle being
infinitely deep; the count visits each node once per depth it is met at, never once per path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml

MAX_DEPTH = 64  # levels of lists and mappings; koth's own documents use fewer than ten


class TooDeepError(ValueError):
    """A document nested deeper than MAX_DEPTH (or inside itself)."""

    def __init__(self) -> None:
        super().__init__(
            f"it nests lists or mappings more than {MAX_DEPTH} levels deep, or inside "
            "themselves through a YAML alias"
        )


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` of ``text``, nesting bounded (yaml.YAMLError, or TooDeepError)."""
    return _bounded(yaml.safe_load, text)


def load_json(text: str | bytes) -> Any:
    """``json.loads`` of ``text``, nesting bounded (ValueError, or TooDeepError)."""
    return _bounded(json.loads, text)


def _bounded(parse: Callable[[Any], Any], text: str | bytes) -> Any:
    try:
        document = parse(text)
    except RecursionError:
        raise TooDeepError() from None
    check_depth(document)
    return document


def check_depth(document: Any, limit: int = MAX_DEPTH) -> None:
    """Raise TooDeepError if ``document`` nests lists, tuples and mappings deeper than
    ``limit``. Iterative, and a container shared by aliases is walked again only when met
    deeper than before (so at most ``limit`` times)."""
    deepest: dict[int, int] = {}  # id of a container: the deepest level it was met at
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = [*node.keys(), *node.values()]
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue  # only the document itself can be a scalar here
        if depth > limit:
            raise TooDeepError()
        if deepest.get(id(node), 0) >= depth:
            continue
        deepest[id(node)] = depth
        stack.extend((child, depth + 1) for child in children if isinstance(child, CONTAINERS))


CONTAINERS = (dict, list, tuple)
