"""Bytes shown exactly, in the game's own protocol.

A program's bytes are shown a line at a time, each line indented and ended by ``⏎`` where the
byte ``\\n`` ends it (so trailing spaces show); a last line without ``\\n`` has no ``⏎``. A byte
outside printable ASCII is shown as ``\\xNN`` and a backslash as ``\\\\``, so the text shown
gives back the bytes exactly. A C function's request is shown as the call it makes: each
argument by its name in the game's declaration, an int array filled from bytes as rows of
characters (``board[ 3] = "...X..."``), a char as ``'X' (88)``, an int as its value; its
answer is the int it returned.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence

from runner.games.spec import CAbi, CArg

NEWLINE = "⏎"
INDENT = "    "


def escaped(data: bytes) -> str:
    """``data`` as text: printable ASCII as is, ``\\`` doubled, any other byte ``\\xNN``."""
    out = []
    for byte in data:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def byte_lines(data: bytes, indent: str = INDENT) -> list[str]:
    """A program's bytes as lines (see the module docstring); ``(nothing)`` for no bytes."""
    if not data:
        return [f"{indent}(nothing)"]
    parts = data.split(b"\n")
    lines = [f"{indent}{escaped(part)}{NEWLINE}" for part in parts[:-1]]
    if parts[-1]:
        lines.append(f"{indent}{escaped(parts[-1])}")
    return lines


def unescaped(lines: Sequence[str], indent: str = INDENT) -> bytes:
    """The bytes ``byte_lines`` showed (its inverse)."""
    if list(lines) == [f"{indent}(nothing)"]:
        return b""
    out = bytearray()
    for line in lines:
        text = line.removeprefix(indent)
        ended = text.endswith(NEWLINE)
        text = text.removesuffix(NEWLINE)
        out += _unescape(text)
        if ended:
            out += b"\n"
    return bytes(out)


def _unescape(text: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1] == "\\":
            out.append(0x5C)
            i += 2
        elif text[i] == "\\":
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        else:
            out.append(ord(text[i]))
            i += 1
    return bytes(out)


# -- C functions -------------------------------------------------------------------------------

_DIMS = re.compile(r"\[(\d+)\]")
_TYPE_WORDS = {"int", "char", "short", "long", "signed", "unsigned", "const", "void"}


def parameter_names(abi: CAbi) -> list[str]:
    """The names the declaration gives the function's parameters (``arg1``... where it gives
    none)."""
    found = re.search(rf"\b{re.escape(abi.function)}\s*\(([^)]*)\)", abi.cdef)
    params = found.group(1).split(",") if found else []
    names = []
    for number in range(1, len(abi.args) + 1):
        text = params[number - 1].strip() if number - 1 < len(params) else ""
        name = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$", text)
        if name is None or name.group(1) in _TYPE_WORDS or text == name.group(1):
            names.append(f"arg{number}")
        else:
            names.append(name.group(1))
    return names


def _char(value: int) -> str:
    return escaped(bytes([value])).replace("'", "\\'")


def _argument_lines(name: str, arg: CArg, data: bytes) -> list[str]:
    if arg.read == "byte":
        return [f"{INDENT}{name} = '{_char(data[0])}' ({data[0]})"]
    if arg.read == "int32":
        (value,) = struct.unpack("<i", data)
        return [f"{INDENT}{name} = {value}"]
    dims = [int(d) for d in _DIMS.findall(arg.ctype)] or [arg.size]
    width = dims[-1]
    rows = [data[i : i + width] for i in range(0, len(data), width)]
    if len(rows) == 1:
        return [f'{INDENT}{name} = "{escaped(rows[0])}"']
    digits = len(str(len(rows) - 1))
    return [f'{INDENT}{name}[{r:>{digits}}] = "{escaped(row)}"' for r, row in enumerate(rows)]


def call_lines(abi: CAbi, request: bytes) -> list[str]:
    """A C function's request as its call: ``bot(board, player)``, then each argument."""
    names = parameter_names(abi)
    lines = [f"{INDENT}{abi.function}({', '.join(names)}) with"]
    offset = 0
    for name, arg in zip(names, abi.args, strict=True):
        lines += _argument_lines(name, arg, request[offset : offset + arg.size])
        offset += arg.size
    return lines


def returned(value: int) -> str:
    """A C function's answer: ``returns 82 ('R')``."""
    shown = f" ('{_char(value)}')" if 0x20 <= value < 0x7F else ""
    return f"returns {value}{shown}"
