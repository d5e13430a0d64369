"""The static check of a compiled C bot, as the linker and the loader see it, run on the host
whichever sandbox built it. Stdlib only.

The Snakes rules allow a bot to define the function ``bot``, other functions, read-only
constants and ``char *bot_name`` — no other writable data (no globals, no static locals, no
thread-locals), and no code that runs before ``bot`` is called.

Two objects are checked:

- **bot.o** (``check_object``): the interface — ``bot`` is a function, ``bot_name`` a pointer.
- **bot.so**, the linked library that is loaded (``check_library``), decides everything else the
  way the loader will: writable memory is what the PT_LOAD program headers map with PF_W, minus
  what PT_GNU_RELRO makes read-only after relocation (page-rounded down at both ends, as glibc's
  ``_dl_protect_relro`` does), whatever the sections are called. Every symbol and every section
  with bytes there must be ``bot_name``'s. Refused as code that runs at load or lookup: DT_INIT,
  DT_FINI, init/fini/preinit arrays (and sections of those names), IFUNC symbols
  (STT_GNU_IFUNC) and R_X86_64_IRELATIVE relocations, thread-local storage (PT_TLS, TLS
  symbols and relocations, static TLS), text relocations, writable-and-executable segments, an
  executable stack, an interpreter, audit and filter libraries, run paths, and any library
  needed besides libc and libm. (Section names decide nothing: ``.data.rel.rostate`` is as
  writable as ``.data``, and a genuine ``.data.rel.ro`` table lies inside RELRO.)

The build links with ``-nostartfiles -z relro -z now -z noexecstack`` (runner/sandbox/local.py,
build.sh): without the C runtime's start files a clean bot has none of the above, so anything
found was put there by the bot.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

SHF_WRITE, SHF_ALLOC = 0x1, 0x2
SHN_UNDEF, SHN_ABS, SHN_COMMON = 0, 0xFFF1, 0xFFF2
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_TLS, STT_GNU_IFUNC = (
    0,
    1,
    2,
    3,
    4,
    6,
    10,
)
SHT_SYMTAB, SHT_NOBITS, SHT_DYNSYM = 2, 8, 11
ET_REL, ET_DYN = 1, 3
PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_TLS = 1, 2, 3, 7
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PF_X, PF_W = 1, 2
PAGE = 4096  # x86-64: the granule the loader protects RELRO in
ALLOWED_LIBRARIES = ("libc.so.6", "libm.so.6")
# Dynamic tags (elf.h) and what each would make the loader do.
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
DT_RELA, DT_RELASZ, DT_RELAENT, DT_PLTRELSZ, DT_JMPREL, DT_REL, DT_RELSZ = 7, 8, 9, 2, 23, 17, 18
DT_FLAGS, DF_TEXTREL, DF_STATIC_TLS = 30, 0x4, 0x10
RUNS_CODE_TAGS = {
    12: "DT_INIT (an _init function the loader calls)",
    13: "DT_FINI (a _fini function the loader calls at unload)",
    25: "DT_INIT_ARRAY (constructors)",
    26: "DT_FINI_ARRAY (destructors)",
    32: "DT_PREINIT_ARRAY (pre-initialisers)",
}
FORBIDDEN_TAGS = {
    15: "DT_RPATH (a library search path)",
    29: "DT_RUNPATH (a library search path)",
    22: "DT_TEXTREL (relocations that write into code)",
    0x6FFFFEFC: "DT_AUDIT (an audit library the loader runs)",
    0x6FFFFEFB: "DT_DEPAUDIT (an audit library the loader runs)",
    0x7FFFFFFD: "DT_AUXILIARY (a filter library)",
    0x7FFFFFFF: "DT_FILTER (a filter library)",
}
R_X86_64_COPY, R_X86_64_IRELATIVE = 5, 37
TLS_RELOCATIONS = {16, 17, 18, 36}  # DTPMOD64, DTPOFF64, TPOFF64, TLSDESC
WRITABLE_RULE = "the rules allow no writable global or static data other than bot_name"
AT_LOAD_RULE = "the bot's code may run only when `bot` is called"


class ObjectFormatError(ValueError):
    pass


@dataclass(frozen=True)
class Section:
    name: str
    kind: int  # SHT_*
    flags: int
    address: int
    size: int


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: int  # STT_*
    is_global: bool
    section: Section | None  # None: undefined, absolute or common
    common: bool
    value: int
    size: int


@dataclass(frozen=True)
class Segment:
    kind: int  # PT_*
    flags: int  # PF_*
    offset: int
    address: int
    file_size: int
    memory_size: int


@dataclass(frozen=True)
class Elf:
    kind: int  # ET_REL or ET_DYN
    sections: list[Section]
    symbols: list[Symbol]  # defined ones, from .symtab and .dynsym
    segments: list[Segment]
    data: bytes


def _elf_type(data: bytes) -> int:
    """The ELF type (ET_REL or ET_DYN) of an x86-64 object or library; raises
    ObjectFormatError for anything else."""
    if data[:4] != b"\x7fELF" or len(data) < 64:
        raise ObjectFormatError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ObjectFormatError("not a 64-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type not in (ET_REL, ET_DYN):
        raise ObjectFormatError("neither an object file nor a shared library")
    if e_machine != 62:
        raise ObjectFormatError("not an x86-64 object file")
    return int(e_type)


def _string(data: bytes, table_offset: int, index: int) -> str:
    """The NUL-terminated string at ``index`` in the string table at ``table_offset``."""
    end = data.index(b"\0", table_offset + index)
    return data[table_offset + index : end].decode("utf-8", errors="replace")


def _table_symbols(
    data: bytes, table: tuple[Any, ...], raw: list[tuple[Any, ...]], sections: list[Section]
) -> Iterator[Symbol]:
    """The defined symbols of one symbol table (``table``: its raw section header; ``raw``:
    every section's)."""
    offset, size, link, entsize = table[4], table[5], table[6], table[9]
    strings_offset = raw[link][4]
    for j in range(1, size // entsize):
        st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from(
            "<IBBHQQ", data, offset + j * entsize
        )
        kind, binding = st_info & 0xF, st_info >> 4
        if kind in (STT_SECTION, STT_FILE) or st_shndx == SHN_UNDEF:
            continue
        common = st_shndx == SHN_COMMON
        section = sections[st_shndx] if st_shndx < len(sections) else None
        name = _string(data, strings_offset, st_name)
        yield Symbol(name, kind, binding != 0, section, common, st_value, st_size)


def _segments(data: bytes, offset: int, entry_size: int, count: int) -> list[Segment]:
    """The program headers."""
    segments = []
    for i in range(count):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, offset + i * entry_size
        )
        segments.append(Segment(p_type, p_flags, p_offset, p_vaddr, p_filesz, p_memsz))
    return segments


def read_elf(data: bytes) -> Elf:
    """Sections, defined symbols and program headers of an x86-64 ELF object or library."""
    e_type = _elf_type(data)
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 32)
    e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHHHH", data, 54)
    raw = [
        struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)
    ]
    names_offset = raw[e_shstrndx][4] if raw else 0
    sections = [Section(_string(data, names_offset, r[0]), r[1], r[2], r[3], r[5]) for r in raw]
    symbols: list[Symbol] = []
    for r in raw:
        if r[1] in (SHT_SYMTAB, SHT_DYNSYM):
            symbols += _table_symbols(data, r, raw, sections)
    segments = _segments(data, e_phoff, e_phentsize, e_phnum)
    return Elf(e_type, sections, symbols, segments, data)


def _describe(symbol: Symbol) -> str:
    where = "common" if symbol.common else symbol.section.name if symbol.section else "?"
    base, dot, suffix = symbol.name.partition(".")
    if dot and suffix.isdigit():
        return f"static local variable `{base}` (symbol {symbol.name} in {where})"
    if symbol.kind == STT_FUNC:
        return f"function `{symbol.name}` (in writable {where})"
    kind = "thread-local" if symbol.kind == STT_TLS else "global" if symbol.is_global else "static"
    return f"{kind} variable `{symbol.name}` (in {where})"


def _interface(symbols: Iterable[Symbol]) -> list[str]:
    """``bot`` a function, ``bot_name`` a pointer (both global)."""
    problems = []
    by_name = {s.name: s for s in symbols if s.is_global}
    bot = by_name.get("bot")
    if bot is None or bot.kind not in (STT_FUNC, STT_GNU_IFUNC):
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
    return problems


def _refuse_ifunc(symbol: Symbol) -> str:
    return (
        f"`{symbol.name}` is an indirect function (IFUNC): its resolver runs when the library "
        f"is loaded; {AT_LOAD_RULE}"
    )


def check_object(data: bytes) -> list[str]:
    """What the compiled object breaks of the interface, one sentence each (empty: it may be
    linked; the linked library is checked by ``check_library``)."""
    try:
        elf = read_elf(data)
        if elf.kind != ET_REL:
            raise ObjectFormatError("not a relocatable object file")
    except (ObjectFormatError, struct.error, IndexError, ValueError, ArithmeticError) as exc:
        return [f"the compiled object could not be read: {exc}"]
    return _interface(elf.symbols)


Ranges = list[tuple[int, int]]


def _subtract(ranges: Ranges, holes: Ranges) -> Ranges:
    for low, high in holes:
        cut: Ranges = []
        for a, b in ranges:
            if b <= low or a >= high:
                cut.append((a, b))
                continue
            if a < low:
                cut.append((a, low))
            if b > high:
                cut.append((high, b))
        ranges = cut
    return ranges


def _overlap(ranges: Ranges, low: int, high: int) -> int:
    return sum(max(0, min(b, high) - max(a, low)) for a, b in ranges)


def writable_ranges(elf: Elf) -> Ranges:
    """The address ranges the loader leaves writable once relocation is done."""
    writable = [
        (s.address, s.address + s.memory_size)
        for s in elf.segments
        if s.kind == PT_LOAD and s.flags & PF_W and s.memory_size
    ]
    protected = [
        (s.address // PAGE * PAGE, (s.address + s.memory_size) // PAGE * PAGE)
        for s in elf.segments
        if s.kind == PT_GNU_RELRO
    ]
    return _subtract(writable, protected)


def _file_offset(elf: Elf, address: int) -> int:
    for s in elf.segments:
        if s.kind == PT_LOAD and s.address <= address < s.address + s.file_size:
            return s.offset + address - s.address
    raise ObjectFormatError(f"address {address:#x} is in no loaded segment")


def _dynamic(elf: Elf) -> list[tuple[int, int]]:
    entries = []
    for s in elf.segments:
        if s.kind != PT_DYNAMIC:
            continue
        for i in range(s.file_size // 16):
            tag, value = struct.unpack_from("<qQ", elf.data, s.offset + i * 16)
            if tag == DT_NULL:
                break
            entries.append((tag, value))
    return entries


def _segment_problems(elf: Elf) -> list[str]:
    """What the program headers ask of the loader beyond mapping plain code and data."""
    problems = []
    kinds = {s.kind for s in elf.segments}
    if PT_DYNAMIC not in kinds:
        problems.append("the library has no dynamic section: it is not a plain shared library")
    if PT_INTERP in kinds:
        problems.append("the library names a program interpreter: it must be a plain library")
    if PT_TLS in kinds:
        problems.append(f"thread-local storage (a PT_TLS segment): {WRITABLE_RULE}")
    for s in elf.segments:
        if s.kind == PT_LOAD and s.flags & PF_W and s.flags & PF_X:
            problems.append(
                f"a segment at {s.address:#x} is both writable and executable: code may not "
                "be written at run time"
            )
        if s.kind == PT_GNU_STACK and s.flags & PF_X:
            problems.append("the library asks for an executable stack: that is not allowed")
    return problems


def _needed_problem(elf: Elf, strings: int | None, value: int) -> str | None:
    """A DT_NEEDED entry (``value``: the name's index in the string table at file offset
    ``strings``) that names a library besides libc and libm, or None."""
    if strings is None:
        raise ObjectFormatError("DT_NEEDED without a string table")
    needed = _string(elf.data, strings, value)
    if needed not in ALLOWED_LIBRARIES:
        return (
            f"the library needs `{needed}`: only the standard C library "
            f"({', '.join(ALLOWED_LIBRARIES)}) may be used"
        )
    return None


def _tag_problem(elf: Elf, tag: int, value: int, strings: int | None) -> str | None:
    """What one dynamic entry would make the loader run, load or allow, or None."""
    if tag in RUNS_CODE_TAGS:
        return (
            f"{RUNS_CODE_TAGS[tag]}: constructors and destructors "
            f"(__attribute__((constructor)), _init, _fini) are not allowed: {AT_LOAD_RULE}"
        )
    if tag in FORBIDDEN_TAGS:
        return f"{FORBIDDEN_TAGS[tag]}: not allowed in a bot's library"
    if tag == DT_FLAGS and value & (DF_TEXTREL | DF_STATIC_TLS):
        return "the library needs text relocations or static thread-local storage: not allowed"
    if tag == DT_NEEDED:
        return _needed_problem(elf, strings, value)
    if tag in (DT_REL, DT_RELSZ):
        return "the library has REL relocations, which x86-64 never uses"
    return None


def _relocation_kinds(elf: Elf, values: dict[int, int]) -> Iterator[int]:
    """The type of every RELA relocation, the PLT's included (``values``: the dynamic section)."""
    for where, size_tag in ((DT_RELA, DT_RELASZ), (DT_JMPREL, DT_PLTRELSZ)):
        if where not in values:
            continue
        start = _file_offset(elf, values[where])
        for i in range(values.get(size_tag, 0) // 24):
            (info,) = struct.unpack_from("<Q", elf.data, start + i * 24 + 8)
            yield info & 0xFFFFFFFF


def _relocation_problem(kind: int) -> str | None:
    """What a relocation of type ``kind`` would make the loader do that a bot may not, or None."""
    if kind == R_X86_64_IRELATIVE:
        return (
            "an R_X86_64_IRELATIVE relocation: an indirect function's resolver would "
            f"run when the library is loaded; {AT_LOAD_RULE}"
        )
    if kind in TLS_RELOCATIONS:
        return f"a thread-local storage relocation: {WRITABLE_RULE}"
    if kind == R_X86_64_COPY:
        return "a copy relocation, which a library never has"
    return None


def _loader_problems(elf: Elf) -> list[str]:
    """What the loader would run, load or allow beyond mapping the library."""
    problems = _segment_problems(elf)
    dynamic = _dynamic(elf)
    values = dict(dynamic)
    strings = _file_offset(elf, values[DT_STRTAB]) if DT_STRTAB in values else None
    for tag, value in dynamic:
        problem = _tag_problem(elf, tag, value, strings)
        if problem is not None:
            problems.append(problem)
    for kind in _relocation_kinds(elf, values):
        problem = _relocation_problem(kind)
        if problem is not None:
            problems.append(problem)
    return list(dict.fromkeys(problems))


def _bot_name_range(elf: Elf) -> Ranges:
    """Where the pointer ``bot_name`` lies (empty: the library defines no such pointer)."""
    name = next(
        (s for s in elf.symbols if s.name == "bot_name" and s.is_global and s.size == 8), None
    )
    return [(name.value, name.value + 8)] if name is not None else []


def _symbol_problems(elf: Elf, writable: Ranges) -> tuple[list[str], set[Section]]:
    """What the defined symbols break, one sentence each, and the sections of those found in
    ``writable`` (the memory left writable besides bot_name)."""
    problems = []
    named: set[Section] = set()
    for symbol in dict.fromkeys(elf.symbols):  # .symtab and .dynsym list the globals twice
        if symbol.kind == STT_GNU_IFUNC:
            problems.append(_refuse_ifunc(symbol))
            continue
        if symbol.kind == STT_TLS:
            problems.append(f"{_describe(symbol)}: {WRITABLE_RULE}")
            continue
        if symbol.section is None or (symbol.kind == STT_NOTYPE and not symbol.size):
            continue  # an absolute value, or the name of an address (_edata, __bss_start, ...)
        low, high = symbol.value, symbol.value + max(symbol.size, 1)
        if _overlap(writable, low, high):
            problems.append(
                f"{_describe(symbol)}: {WRITABLE_RULE}; keep state in local variables, or make "
                "constants `const`"
            )
            named.add(symbol.section)
    return problems, named


def _section_problems(elf: Elf, writable: Ranges, named: set[Section]) -> list[str]:
    """The sections holding bytes of ``writable`` (the memory left writable besides bot_name)
    that no symbol accounts for: the sections in ``named`` were reported with their symbols."""
    problems = []
    for section in elf.sections:
        if not section.flags & SHF_ALLOC or not section.size or section in named:
            continue
        extra = _overlap(writable, section.address, section.address + section.size)
        if extra:
            problems.append(
                f"writable section {section.name} holds {extra} bytes of data besides bot_name: "
                f"{WRITABLE_RULE}"
            )
    return problems


def check_library(data: bytes) -> list[str]:
    """Every rule the linked library breaks, one sentence each (empty: it may play)."""
    try:
        elf = read_elf(data)
        if elf.kind != ET_DYN:
            raise ObjectFormatError("not a shared library")
        problems = _interface(elf.symbols)
        problems += _loader_problems(elf)
    except (ObjectFormatError, struct.error, IndexError, ValueError, ArithmeticError) as exc:
        return [f"the linked library could not be read: {exc}"]
    writable = _subtract(writable_ranges(elf), _bot_name_range(elf))
    symbol_problems, named = _symbol_problems(elf, writable)
    problems += symbol_problems
    problems += _section_problems(elf, writable, named)
    return list(dict.fromkeys(problems))


def check_file(data: bytes) -> list[str]:
    """``check_object`` or ``check_library``, by the file's ELF type."""
    is_library = len(data) > 17 and data[:4] == b"\x7fELF" and data[16] == ET_DYN
    return check_library(data) if is_library else check_object(data)
