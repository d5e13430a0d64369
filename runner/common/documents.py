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

Every value read is also one koth can use without an exception it does not expect
(``check_values``): a number beyond ±MAX_NUMBER (a 401-digit integer is "a number", then
``math.isfinite`` or ``float`` raises OverflowError; a sum of large floats becomes infinite), or
text that is not Unicode (a lone surrogate, ``"\\ud800"``, which passes every "is it text" test
and then raises UnicodeEncodeError where it is written) refuse the whole document with a
ShapeError naming the value's place. JSON is parsed with hooks that refuse such numbers, and
``NaN`` and ``Infinity``, as they are read; its strings are walked only when the text holds a
surrogate's escape (valid pairs become one character). In YAML a float that is not finite
(``.inf``, ``.nan``) is left to the check of the field it is in, which names it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml

MAX_DEPTH = 64  # levels of lists and mappings; koth's own documents use fewer than ten
MAX_YAML_VALUES = 100_000  # values a YAML document may expand to through its aliases
# No number koth reads is larger: a seed is below 2**63, every count and time far smaller. Sums of
# a season's numbers stay far from a float's overflow, and every one converts to a float exactly
# enough for what it counts.
MAX_NUMBER = 2**63
CONTAINERS = (dict, list, tuple)
# A surrogate written as a JSON escape (\ud800 to \udfff): a valid pair becomes one character,
# a lone one a string that cannot be encoded.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class ShapeError(ValueError):
    """A document nested too deep (or inside itself), expanding to too many values, or holding a
    value koth cannot use (a huge or infinite number, text that is not Unicode); ``place`` is
    that value's place (``points[0]``), when it is known."""

    def __init__(self, message: str, place: str | None = None) -> None:
        super().__init__(message)
        self.place = place


def finite_number(value: Any) -> bool:
    """Whether ``value`` is a number koth can count with: an int or a float (not a bool), finite,
    within ±MAX_NUMBER (never raising, whatever ``value`` is: ``math.isfinite`` of a huge int
    raises OverflowError)."""
    kind = type(value)
    if kind is int or kind is float:  # the usual case, asked millions of times a season:
        return bool(-MAX_NUMBER <= value <= MAX_NUMBER)  # NaN and ±inf compare False
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return -MAX_NUMBER <= value <= MAX_NUMBER
    return math.isfinite(value) and -MAX_NUMBER <= value <= MAX_NUMBER


def _digits(value: int) -> int:
    """How many decimal digits ``value`` has, near enough for a message (``str`` of an int of
    more than 4,300 digits raises ValueError)."""
    return int(abs(value).bit_length() * 0.30103) + 1


def _parse_int(text: str) -> int:
    if len(text) < 19:  # at most 18 digits: well within ±2**63
        return int(text)
    digits = len(text) - text.startswith("-")
    value = int(text) if digits <= 20 else None
    if value is None or not finite_number(value):
        raise ShapeError(f"it holds a number of {digits} digits (koth reads none beyond ±2**63)")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not -MAX_NUMBER <= value <= MAX_NUMBER:  # NaN and ±inf compare False
        raise ShapeError(f"it holds the number {text[:40]}, which is not finite or beyond ±2**63")
    return value


def _parse_constant(text: str) -> Any:
    raise ShapeError(f"it holds {text}, which is not a finite number")


def too_deep() -> ShapeError:
    return ShapeError(
        f"it nests lists or mappings more than {MAX_DEPTH} levels deep, or inside themselves "
        "through a YAML alias"
    )


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` of ``text``, its nesting and what its aliases expand to bounded
    (yaml.YAMLError, or ShapeError)."""
    try:
        document = _bounded(yaml.safe_load, text)
    except ShapeError:
        raise
    except ValueError as exc:  # an integer of thousands of digits, a date that is no date
        raise ShapeError(f"it holds a value that cannot be read ({str(exc)[:100]})") from None
    if count_values(document, MAX_YAML_VALUES) > MAX_YAML_VALUES:
        raise ShapeError(
            f"its aliases repeat its values exponentially, to more than {MAX_YAML_VALUES:,}"
        )
    check_values(document, floats=False)
    return document


def load_json(text: str | bytes) -> Any:
    """``json.loads`` of ``text``, nesting bounded (ValueError, or ShapeError). JSON has no
    aliases: its size is the text's, which the caller caps. A text with no more opening
    brackets than MAX_DEPTH cannot nest deeper (each level opens one): its document is not
    walked (a season's record has ~10; the walk was a third of reading one)."""
    if isinstance(text, str):
        brackets = text.count("[") + text.count("{")
        try:
            raw = text.encode("utf-8")  # a str may hold a lone surrogate itself, unescaped
        except UnicodeEncodeError:
            raise ShapeError("it holds text that is not Unicode (a lone surrogate)") from None
    else:
        brackets, raw = text.count(b"[") + text.count(b"{"), text
    document = _bounded(_parse_json, text, walk=brackets > MAX_DEPTH)
    if SURROGATE_ESCAPE.search(raw):
        check_values(document)
    return document


def _parse_json(text: str | bytes) -> Any:
    return json.loads(
        text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
    )


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


def _scalars(document: Any) -> Iterator[tuple[str, Any]]:
    """(where, value) for every key and value that is not a container, each container walked
    once (a YAML alias is not followed twice); ``where`` is the value's place, e.g.
    ``points[0]`` or ``seats[1].name``. The document must not hold itself (``check_depth``)."""
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if not isinstance(node, CONTAINERS):
            yield where or "the document", node
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for key, value in node.items():
                place = f"{where}.{key}" if where else str(key)
                yield f"a key of {where or 'the document'}", key
                stack.append((place, value))
        else:
            stack.extend((f"{where}[{i}]", value) for i, value in enumerate(node))


def value_problem(value: Any, floats: bool = True) -> str | None:
    """Why a scalar read from a document is one koth cannot use, or None: a number beyond
    ±MAX_NUMBER or not finite, text that cannot be written as UTF-8 (a lone surrogate). With
    ``floats`` False a float is not judged (YAML's ``.inf`` and ``.nan`` are left to the check of
    the field they are in, which names it: no float raises where it is compared)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text that is not Unicode (a lone surrogate)"
        return None
    if isinstance(value, bool) or finite_number(value):
        return None
    if isinstance(value, int):
        return f"a number of {_digits(value)} digits (koth reads none beyond ±2**63)"
    if isinstance(value, float) and floats:
        return f"the number {value!r}, which is not finite or beyond ±2**63"
    return None


def check_values(document: Any, floats: bool = True) -> None:
    """Raise ShapeError naming the first key or value of ``document`` that ``value_problem``
    refuses (by its place, never printed: it may be huge, or unprintable)."""
    for where, value in _scalars(document):
        problem = value_problem(value, floats)
        if problem is not None:
            if where.startswith("a key"):
                raise ShapeError(f"{where} is {problem}")
            raise ShapeError(f"`{shown_place(where)}` is {problem}", where)


def shown_place(where: str) -> str:
    """A value's place as a message may show it (its keys are a stranger's text)."""
    text = where.encode("utf-8", "backslashreplace").decode("utf-8")
    text = text if text.isprintable() else ascii(text)[1:-1]
    return text if len(text) <= 80 else text[:77] + "..."
