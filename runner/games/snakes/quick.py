"""Snakes' quick loop: the usual moves of a game between two C-function bots asked, judged and
applied in C (runner/play/quick.c, which asks the bots, with step.c, Snakes' rules in C),
compiled once per machine (runner/common/native.py) and called through ctypes. Where it cannot be
compiled, the referee plays every move in Python as before; the records are the same either way
(tests/test_snakes_quick.py plays both).
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from runner.common import native
from runner.games.base import Setup
from runner.games.snakes.rules import CELLS, HEIGHT, MAX_MOVES, Snakes, SnakesState
from runner.games.spec import Edit, Handed, LazyEdits, Played, ReplaySteps
from runner.play.quick import ready

HERE = Path(__file__).parent
RUNNER = HERE.parent.parent
SOURCES = (RUNNER / "play" / "quick.c", HERE / "step.c", RUNNER / "site" / "changes.c")
FLAGS = ("-std=gnu11", "-O2", "-Wall", "-Wextra", "-shared", "-fPIC")
_BITS_BYTES = 66  # a side's bitboard (rules.py: bit y * 33 + x), little-endian
_MOVES_CAP = 4096  # quick.c's MOVES_CAP
_HANDED_CAP = 4096
_HANDED = 2  # quick.c's stops: OVER 0, BEFORE 1, HANDED 2
_NO_ROOM = -2  # step_replay: more characters changed than there was room for
_ROOM = (8, CELLS)  # characters changed a move step_replay has room for: first, then at most
_RULES = Snakes()
_NUMBERS_ROOM = 16  # characters of step_numbers' string a frame: ",", "1 ", "-512 -512" at most


class _State(ctypes.Structure):
    """step.c's ``struct step_state``."""

    _fields_ = [
        ("frame", ctypes.c_ubyte * CELLS),
        ("owned", (ctypes.c_ubyte * _BITS_BYTES) * 2),
        ("heads", ctypes.c_int * 2),
        ("played", ctypes.c_int),
        ("suffocated", ctypes.c_int),
        ("owner", ctypes.c_ubyte * CELLS),
        ("head", ctypes.c_int * 2),
        ("rows", (ctypes.c_uint32 * HEIGHT) * 2),
    ]


class _Seat(ctypes.Structure):
    _fields_ = [
        ("request_fd", ctypes.c_int),
        ("reply_fd", ctypes.c_int),
        ("output_fd", ctypes.c_int),
        ("zygote_fd", ctypes.c_int),
        ("clock", ctypes.c_int),
        ("moves", ctypes.c_int),
        ("mark", ctypes.c_double),
        ("cpu_used", ctypes.c_double),
        ("move_cpu", ctypes.c_double),
        ("game_cpu", ctypes.c_double),
        ("move_wall", ctypes.c_double),
    ]


class _Quick(ctypes.Structure):
    """quick.c's ``struct quick``."""

    _fields_ = [
        ("seats", _Seat * 2),
        ("state", ctypes.POINTER(_State)),
        ("moves", ctypes.c_int * _MOVES_CAP),
        ("count", ctypes.c_int),
        ("stop", ctypes.c_int),
        ("handed_seat", ctypes.c_int),
        ("written", ctypes.c_int),
        ("handed_len", ctypes.c_int),
        ("events", ctypes.c_int),
        ("handed_mark", ctypes.c_double),
        ("seen_cpu", ctypes.c_double),
        ("deadline", ctypes.c_double),
        ("event_fd", ctypes.c_int * 3),
        ("event_what", ctypes.c_int * 3),
        ("handed", ctypes.c_ubyte * _HANDED_CAP),
    ]


@functools.cache
def library() -> ctypes.CDLL | None:
    """quick.c and step.c, compiled and loaded; None where they cannot be had."""
    path = native.compiled(SOURCES, FLAGS, "snakes-quick")
    if path is None:
        return None
    try:
        loaded = ctypes.CDLL(path)
    except OSError:
        return None
    loaded.quick_play.argtypes = [ctypes.POINTER(_Quick)]
    loaded.quick_play.restype = ctypes.c_int
    loaded.step_apply_moves.argtypes = [ctypes.POINTER(_State), ctypes.c_char_p, ctypes.c_int]
    loaded.step_apply_moves.restype = ctypes.c_int
    ints = ctypes.POINTER(ctypes.c_int)
    chars = ctypes.POINTER(ctypes.c_ubyte)
    loaded.step_replay.argtypes = [
        *(ctypes.POINTER(_State), ctypes.c_char_p, ctypes.c_int, ints, ints, ints),
        *(chars, chars, ctypes.c_int, ints),
    ]
    loaded.step_replay.restype = ctypes.c_int
    loaded.changes_of_runs.argtypes = [
        *(ints, ctypes.c_int, ints, ints, ctypes.c_char_p, ctypes.c_int),
        *(ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int),
    ]
    loaded.changes_of_runs.restype = ctypes.c_int
    loaded.step_numbers.argtypes = [ints, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    loaded.step_numbers.restype = ctypes.c_int
    return loaded


def _state_in(state: SnakesState) -> _State:
    made = _State()
    ctypes.memmove(made.frame, state.frame, CELLS)
    for seat in (0, 1):
        bits = state.owned[seat].to_bytes(_BITS_BYTES, "little")
        ctypes.memmove(made.owned[seat], bits, _BITS_BYTES)
    made.heads[0], made.heads[1] = state.heads
    made.played = state.moves_played
    made.suffocated = -1 if state.suffocated is None else state.suffocated
    return made


def _state_out(made: _State) -> SnakesState:
    owned = (
        int.from_bytes(bytes(made.owned[0]), "little"),
        int.from_bytes(bytes(made.owned[1]), "little"),
    )
    suffocated = None if made.suffocated < 0 else int(made.suffocated)
    heads = (int(made.heads[0]), int(made.heads[1]))
    return SnakesState(bytes(made.frame), owned, heads, int(made.played), suffocated)


def apply_moves(state: SnakesState, moves: str) -> tuple[SnakesState, int]:
    """The rules in C alone (tests hold them to rules.py's): the state after ``moves`` from
    ``state``, and how many of them were applied (until the game ended or one was not a move)."""
    loaded = library()
    if loaded is None:
        raise RuntimeError("Snakes' quick loop could not be compiled (is gcc there?)")
    made = _state_in(state)
    done = loaded.step_apply_moves(ctypes.byref(made), moves.encode("latin-1"), len(moves))
    return _state_out(made), int(done)


@functools.cache
def _start() -> bytes:
    """step.c's state of a game's start: Snakes' start is the same whatever the seed."""
    return bytes(_state_in(_RULES.initial_state(random.Random(0), 2, {})))


def final_state(record: Mapping[str, Any], setup: Setup) -> SnakesState | None:
    """The state a record's moves end in, played in C (``GameSpec.final_state``); None where
    the C rules do not take every move (the game ended before the moves did, or one is not a
    move: the Python rules then say which), or cannot be had. Every record read is checked
    this way: the start is made once, and copied."""
    moves = record.get("moves")
    if setup or not isinstance(moves, str) or not moves.isascii() or len(moves) > MAX_MOVES:
        return None
    loaded = library()
    if loaded is None:
        return None
    made = _State.from_buffer_copy(_start())
    done = loaded.step_apply_moves(ctypes.byref(made), moves.encode("ascii"), len(moves))
    return _state_out(made) if done == len(moves) else None


def play(state: SnakesState, bots: Sequence[Any]) -> Played | None:
    """The usual moves from ``state`` on, played in C; None where these bots cannot be asked
    that way, or the quick loop cannot be had."""
    seated = ready(bots)
    loaded = library() if seated is not None else None
    if seated is None or loaded is None or state.over:
        return None
    made = _state_in(state)
    quick = _Quick()
    quick.state = ctypes.pointer(made)
    for seat, bot in enumerate(seated):
        process, limits, held = bot.process, bot.limits, quick.seats[seat]
        held.request_fd, held.reply_fd = process.request_fd, process.reply_fd
        held.output_fd, held.zygote_fd = process.output_fd, process.zygote.fileno
        held.clock, held.mark, held.cpu_used = process.clock, bot.mark, bot.cpu_used
        held.move_cpu, held.game_cpu = limits.move_cpu_s, limits.game_cpu_s
        held.move_wall = limits.move_wall_s
    loaded.quick_play(ctypes.byref(quick))
    for seat, bot in enumerate(seated):
        held = quick.seats[seat]
        bot.mark, bot.cpu_used = held.mark, held.cpu_used
        bot.moves += held.moves
    handed = None
    if quick.stop == _HANDED:
        data = bytes(quick.handed[: quick.handed_len])
        progress = (quick.handed_mark, quick.seen_cpu, quick.deadline, quick.written, data)
        events = tuple((quick.event_fd[i], quick.event_what[i]) for i in range(quick.events))
        handed = Handed(int(quick.handed_seat), progress, events)
    moves = tuple(map(chr, quick.moves[: quick.count]))  # step.c takes only L, R, U and D
    return Played(_state_out(made), moves, handed)


def replay_steps(record: Mapping[str, Any], setup: Setup) -> ReplaySteps | None:
    """A record's steps replayed in C (step.c's ``step_replay``: the characters each step
    changed and each frame's cells), for the site (``Presentation.replay_steps``); None for a
    record it does not take (the Python replay then says what is wrong with it, if anything)."""
    moves = record.get("moves")
    outcome = record.get("outcome")
    if setup or not isinstance(moves, str) or not moves.isascii() or len(moves) > MAX_MOVES:
        return None
    if not isinstance(outcome, Mapping) or outcome.get("faults") or len(record["seats"]) != 2:
        return None
    loaded = library()
    if loaded is None:
        return None
    first = _RULES.initial_state(random.Random(record["seed"]), 2, setup)
    steps = len(moves)
    runs = (ctypes.c_int * max(steps, 1))()
    cells = (ctypes.c_int * (2 * steps + 2))()
    # A move changes two characters, a fill more: room for a few a move first (a buffer the
    # size of the worst case costs more to make than the replay), then for the most there are.
    for cap in (a_move * steps + 16 for a_move in _ROOM):
        made = _state_in(first)
        run_at, run_length = (ctypes.c_int * cap)(), (ctypes.c_int * cap)()
        was, now = (ctypes.c_ubyte * cap)(), (ctypes.c_ubyte * cap)()
        done = loaded.step_replay(
            *(ctypes.byref(made), moves.encode("ascii"), steps, runs, run_at, run_length),
            *(was, now, cap, cells),
        )
        if done != _NO_ROOM:
            break
    if done != steps:
        return None
    counts = runs[:steps]
    all_runs = sum(counts)
    at, lengths = run_at[:all_runs], run_length[:all_runs]
    before = ctypes.string_at(was, min(sum(lengths), cap))  # never past the buffer
    after = ctypes.string_at(now, len(before))
    scores = tuple(zip(cells[0::2], cells[1::2], strict=True))
    numbers = ctypes.create_string_buffer(_NUMBERS_ROOM * (steps + 1))
    written = loaded.step_numbers(cells, steps, numbers, len(numbers))

    def back_changes(digits: int, alphabet: str, splice: str) -> str | None:
        """The page's ``changes`` string of the steps' edits back (LazyEdits.encoded)."""
        assert loaded is not None
        cap = len(before) * (digits + 1) + steps
        out = ctypes.create_string_buffer(cap)
        written = loaded.changes_of_runs(
            *(runs, steps, run_at, run_length, before, digits),
            *(alphabet.encode("ascii"), ord(splice), out, cap),
        )
        return None if written < 0 else out.raw[:written].decode("ascii")

    return ReplaySteps(
        _RULES.render_text(first),
        _RULES.render_text(_state_out(made)),
        tuple(zip(zip(itertools.cycle((0, 1)), moves))),  # ((seat, move),) a step, in turn
        _turns(steps),
        LazyEdits(steps, lambda: _edits(counts, at, lengths, after.decode("ascii"))),
        LazyEdits(steps, lambda: _edits(counts, at, lengths, before.decode("ascii")), back_changes),
        scores,
        numbers.raw[:written].decode("ascii") if written >= 0 else None,
    )


def _turns(steps: int) -> tuple[int, ...]:
    """1, 1, 2, 2, 3...: the turn of each of ``steps`` steps, the two seats moving in turn."""
    both = zip(itertools.count(1), itertools.count(1))
    return tuple(itertools.islice(itertools.chain.from_iterable(both), steps))


def _edits(
    counts: Sequence[int], at: Sequence[int], lengths: Sequence[int], text: str
) -> tuple[tuple[Edit, ...], ...]:
    """Per step, its edits from step_replay's runs: ``counts[step]`` runs, each replacing
    ``lengths[r]`` characters at ``at[r]`` by as many of ``text``, in order."""
    made: list[tuple[Edit, ...]] = []
    run = char = 0
    for count in counts:
        edits = []
        for offset, length in zip(at[run : run + count], lengths[run : run + count], strict=True):
            edits.append((offset, length, text[char : char + length]))
            char += length
        run += count
        made.append(tuple(edits))
    return tuple(made)
