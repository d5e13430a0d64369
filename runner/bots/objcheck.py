"""The static check of a compiled C bot (an ELF64 relocatable object). Standalone: stdlib only.

The Snakes rules allow a bot's object to define the function ``bot``, other functions, read-only
constants and ``char *bot_name`` — no other writable data: no globals, no static locals, no
thread-locals. The object file is checked (not the linked library, whose start-up code has data
of its own). Writable means a section with SHF_WRITE, except ``.data.rel.ro*``, which the linker
makes read-only after relocation (tables of pointers to constants land there under -fPIC).

Run as ``python3 objcheck.py bot.o``: prints one problem per line, exits 1 if there are any.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass

SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHN_UNDEF = 0
SHN_COMMON = 0xFFF2
STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_TLS = 1, 2, 3, 4, 6
SHT_SYMTAB = 2
RUNS_AT_LOAD = (
    ".init_array",
    ".fini_array",
    ".ctors",
    ".dtors",
    ".preinit_array",
    ".init",
    ".fini",
)


class ObjectFormatError(ValueError):
    pass


@dataclass(frozen=True)
class Section:
    name: str
    flags: int
    size: int


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: int  # STT_*
    is_global: bool
    section: Section | None  # None: undefined, absolute or common
    common: bool
    size: int


def read_object(data: bytes) -> tuple[list[Section], list[Symbol]]:
    """Sections and defined symbols of an x86-64 ELF relocatable object."""
    if data[:4] != b"\x7fELF" or len(data) < 64:
        raise ObjectFormatError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ObjectFormatError("not a 64-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type != 1:
        raise ObjectFormatError("not a relocatable object file")
    if e_machine != 62:
        raise ObjectFormatError("not an x86-64 object file")
    (e_shoff,) = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    raw = []
    for i in range(e_shnum):
        raw.append(struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize))
    names_offset = raw[e_shstrndx][4]

    def string(table_offset: int, index: int) -> str:
        end = data.index(b"\0", table_offset + index)
        return data[table_offset + index : end].decode("utf-8", errors="replace")

    sections = [Section(string(names_offset, r[0]), r[2], r[5]) for r in raw]
    symbols: list[Symbol] = []
    for r in raw:
        if r[1] != SHT_SYMTAB:
            continue
        offset, size, link, entsize = r[4], r[5], r[6], r[9]
        strings_offset = raw[link][4]
        for j in range(1, size // entsize):
            st_name, st_info, _, st_shndx, _, st_size = struct.unpack_from(
                "<IBBHQQ", data, offset + j * entsize
            )
            kind, binding = st_info & 0xF, st_info >> 4
            if kind in (STT_SECTION, STT_FILE) or st_shndx == SHN_UNDEF:
                continue
            common = st_shndx == SHN_COMMON
            section = sections[st_shndx] if st_shndx < len(sections) else None
            name = string(strings_offset, st_name)
            symbols.append(Symbol(name, kind, binding != 0, section, common, st_size))
    return sections, symbols


def _writable(section: Section | None) -> bool:
    if section is None:
        return False
    if section.name.startswith(".data.rel.ro"):
        return False
    return bool(section.flags & SHF_WRITE) and bool(section.flags & SHF_ALLOC)


def _describe(symbol: Symbol) -> str:
    where = "common" if symbol.common else symbol.section.name if symbol.section else "?"
    base, dot, suffix = symbol.name.partition(".")
    if dot and suffix.isdigit():
        return f"static local variable `{base}` (symbol {symbol.name} in {where})"
    kind = "thread-local" if symbol.kind == STT_TLS else "global" if symbol.is_global else "static"
    return f"{kind} variable `{symbol.name}` (in {where})"


def check_object(data: bytes) -> list[str]:
    """Every rule the object breaks, one sentence each (empty: it may play)."""
    try:
        sections, symbols = read_object(data)
    except (ObjectFormatError, struct.error, IndexError, ValueError) as exc:
        return [f"the compiled object could not be read: {exc}"]
    problems = []
    by_name = {s.name: s for s in symbols if s.is_global}
    bot = by_name.get("bot")
    if bot is None or bot.kind != STT_FUNC:
        problems.append(
            "no function `bot` is defined: define `int bot(int board[16][32], char player)`"
        )
    name = by_name.get("bot_name")
    if name is None or name.kind != STT_OBJECT:
        problems.append('no `bot_name` is defined: add `char *bot_name = "My bot";`')
    elif name.size != 8:
        problems.append(
            f"`bot_name` is {name.size} bytes, not a pointer: declare it as "
            '`char *bot_name = "My bot";` (not an array)'
        )
    holders = set()
    for symbol in symbols:
        if symbol.name == "bot_name" and symbol.is_global:
            holders.add(symbol.section.name if symbol.section else "")
            continue
        if symbol.common or symbol.kind == STT_TLS or _writable(symbol.section):
            problems.append(
                f"{_describe(symbol)}: the rules allow no writable global or static data "
                "other than bot_name; keep state in local variables, or make constants `const`"
            )
    for section in sections:
        if section.name in RUNS_AT_LOAD and section.size:
            problems.append(
                f"{section.name}: constructors and destructors (__attribute__((constructor))) "
                "are not allowed: the bot's code may run only when `bot` is called"
            )
            continue
        named = any(s.section == section for s in symbols)
        if _writable(section) and section.size and section.name not in holders and not named:
            problems.append(
                f"writable section {section.name} ({section.size} bytes) holds unnamed data: "
                "the rules allow no writable data other than bot_name"
            )
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: objcheck.py OBJECT", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        problems = check_object(f.read())
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
