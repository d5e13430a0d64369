"""Replays for the results site: a record's moves played again by its game engine, as text.

``replay(record)`` works for every registered game: it replays the moves with the engine
(``initial_state``, ``to_move``, ``parse_move``, ``apply``) and keeps the initial frame
(``render_text``), per step the edits that turn one frame into the next, and per frame the turn
and the scores (``scores``). A step is one ``apply``: one move in a game where seats take turns.

The edits are a generic text diff, knowing nothing of the game, or, where the game's presentation
knows which characters a step changed (``frame_changes``: Snakes), made from those without
drawing each frame (the same edits; ``compare`` forces the diff). An edit is a splice,
``(offset, characters removed, text inserted)``. When two consecutive frames have the same
length: one edit per maximal run of changed characters (as many removed as inserted); when the
length changed: one edit for all between their common prefix and their common suffix. Edits of
a step apply in order, offsets counted in the frame as edited so far (with equal lengths that is
simply the new frame).

``page_data`` packs a replay for replay.js, which rebuilds every frame from it and knows no
rules. The page shows the final frame as its board (what a reader without JavaScript sees), so
the data does not repeat it: replay.js takes the board's text (``finalLength`` characters: a
newline the HTML parser drops at the start of a ``pre`` is put back) and goes backwards, each
step's edits turning the frame after the step into the one before it. That saves a whole frame
a page (23 KB for a 150 × 150 map). Offsets count characters, as JavaScript does (UTF-16
units) for every character of the Basic Multilingual Plane; a frame drawn with others is refused
(ReplayError). Offsets and lengths are written in base 64 (``ALPHABET``), each with the same
number of digits, ``digits``, enough for the longest frame. ``changes``: the steps' backward
edits, in the order of the steps, split by ``,``; an edit is either ``OO c`` (offset, one
character replaced: the usual case) or ``~OORRLL text`` (offset, characters removed, length of
the text, then the text). ``numbers``: per frame the
change of (turn, score of each seat) from the frame before (from zeros for the first), decimal,
split by spaces, trailing zeros left out, or ``=``: the same change as the frame before; frames
split by ``,``.

How a game looks (colours of its symbols, its score line, its move list) is its package's
``Presentation`` (runner/games/spec.py), with a plain default for a game that has none.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import groupby, repeat
from typing import Any

from markupsafe import Markup, escape

from runner.games import UnknownGameError, find_game
from runner.games.base import EMPTY, Setup
from runner.games.spec import Edit, GameSpec, LazyEdits, Presentation
from runner.play.playback import PlaybackError, Step, playback
from runner.season.results import RecordView

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
SPLICE = "~"  # starts an edit that is not a single replaced character


class ReplayError(ValueError):
    """A record's moves cannot be replayed by its game's engine."""


# -- presentation ----------------------------------------------------------------------------


DEFAULT = Presentation()


def presentation(game_id: str) -> Presentation:
    """How the site shows ``game_id`` (its package's presentation); a plain one for others."""
    try:
        return find_game(game_id).presentation
    except UnknownGameError:
        return DEFAULT


def board_html(frame: str, show: Presentation, layer: str = "") -> Markup:
    """A text frame, each run of one CSS class in a span (the same markup as replay.js makes).

    Only the lines ``show.lines`` selects are coloured: text around a board keeps its letters.
    With a ``layer`` (``show.layer`` of the frame's state), its character at a place chooses the
    class there when ``show.layer_classes`` names one.
    """
    lines = frame.split("\n")
    return Markup("\n".join(map(_line_html, lines, show.frame_classes(lines, layer))))


def _line_html(line: str, kinds: Iterable[str]) -> str:
    """``line`` with each run of one class (``kinds``: each character's) in a span."""
    return "".join(
        _span("".join(map(_SYMBOL, run)), cls)
        for cls, run in groupby(zip(kinds, line, strict=True), _CLASS)
    )


_CLASS, _SYMBOL = operator.itemgetter(0), operator.itemgetter(1)  # of a (class, symbol) pair


def _span(run: str, cls: str) -> str:
    text = str(escape(run))
    return f'<span class="{cls}">{text}</span>' if cls and run else text


# -- replay and diff -------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    game: str
    seat_names: tuple[str, ...]
    initial: str  # the first frame
    steps: tuple[Step, ...]
    edits: Sequence[tuple[Edit, ...]]  # per step: the edits from the frame before to its own
    turns: tuple[int, ...]  # per frame: the turn of its step (0 for the first frame), or the
    # turn to be played if its frame names that (Presentation.frame_turn_to_play)
    scores: tuple[tuple[int, ...], ...]  # per frame: each seat's score
    final: str  # the last frame
    longest: int  # the length of the longest frame
    layers: tuple[str, ...] = ()  # per frame, the presentation's layer (none: empty)
    # per step: the edits from its frame back to the one before (``backward``), when the replay
    # knew them as it went (``Presentation.frame_changes``); None: ``backward`` works them out
    undo: Sequence[tuple[Edit, ...]] | None = None
    # the page's ``numbers`` string of the turns and scores, when the game's own replay wrote it
    # (``ReplaySteps.numbers``); None: ``encode_numbers`` writes it
    numbers: str | None = None

    @property
    def final_scores(self) -> tuple[int, ...]:
        return self.scores[-1]


def replay(record: RecordView, setup: Setup = EMPTY, compare: bool = False) -> Replay:
    """Replay a record's moves with its game's rules, frame by frame: from the characters each
    step changed where the game's presentation knows them (``frame_changes``), else (or with
    ``compare``, or where those disagree with the frames) by drawing and comparing every frame."""
    spec = find_game(record["game"])
    changes = spec.presentation.frame_changes
    if spec.presentation.replay_steps is not None and not compare:
        stepped = _stepped(spec, record, setup)
        if stepped is not None:
            return stepped
    if changes is not None and not compare:
        known = _replayed(spec, record, setup, changes)
        if known is not None:
            return known
    made = _replayed(spec, record, setup, None)
    assert made is not None  # only changes can disagree
    return made


def _stepped(spec: GameSpec, record: RecordView, setup: Setup) -> Replay | None:
    """The replay from the game's own replay of the record (``Presentation.replay_steps``);
    None where it does not take the record."""
    assert spec.presentation.replay_steps is not None
    made = spec.presentation.replay_steps(record, setup)
    if made is None:
        return None
    seats = len(record["seats"])
    return Replay(
        record["game"],
        tuple(spec.seat_name(s) for s in range(seats)),
        made.first,
        # each Step made by tuple's own constructor (a NamedTuple's is Python: twice as slow,
        # and a Snakes page has ~270 of them)
        tuple(map(tuple.__new__, repeat(Step), zip(made.moves, made.turns, repeat(())))),
        made.forward,
        (0, *made.turns),
        made.scores,
        made.final,
        len(made.first),
        (),
        made.back,
        made.numbers,
    )


class _Disagreed(Exception):
    """The characters a game said a step changed do not fit the frame the replay keeps."""


def _replayed(
    spec: GameSpec,
    record: RecordView,
    setup: Setup,
    changes: Callable[[Any, Any], Sequence[tuple[int, str, str]]] | None,
) -> Replay | None:
    """The replay, each step's edits from ``changes`` (both ways), or without it from drawing
    the frame and comparing it with the one before; None where ``changes`` does not fit the
    frame kept from them, or the last frame is not what the rules draw."""
    rules = spec.rules
    steps: list[Step] = []
    edits: list[tuple[Edit, ...]] = []
    undo: list[tuple[Edit, ...]] = []
    turns: list[int] = []
    scores: list[tuple[int, ...]] = []
    first = frame = ""
    longest = 0
    cells: list[str] = []  # with ``changes``: the frame after the last step, a character an item
    layers: list[str] = []
    layer = spec.presentation.layer
    to_play = spec.presentation.frame_turn_to_play
    previous: Any = None
    try:
        for step, state in playback(spec, record, setup):
            if layer is not None:
                layers.append(_checked(layer(state)))
            if step is None:
                first = frame = _checked(rules.render_text(state))
                cells = list(first) if changes is not None else []
                longest = len(first)
                turns.append(rules.turn(state) if to_play else 0)
            else:
                steps.append(step)
                if changes is None:
                    after = _checked(rules.render_text(state))
                    edits.append(tuple(diff(frame, after)))
                    frame = after
                    longest = max(longest, len(after))
                else:
                    forward, back = _spliced(changes(previous, state), cells)
                    edits.append(forward)
                    undo.append(back)
                turns.append(rules.turn(state) if to_play else step.turn)
            scores.append(tuple(map(int, rules.scores(state))))
            previous = state
    except PlaybackError as exc:
        raise ReplayError(str(exc)) from None
    except _Disagreed:
        return None
    if changes is not None:
        frame = "".join(cells)
        if rules.render_text(previous) != frame:
            return None
    seats = len(record["seats"])
    return Replay(
        record["game"],
        tuple(spec.seat_name(s) for s in range(seats)),
        first,
        tuple(steps),
        tuple(edits),
        tuple(turns),
        tuple(scores),
        frame,
        max([longest, *map(len, layers)]),
        tuple(layers),
        tuple(undo) if changes is not None else None,
    )


def _spliced(
    found: Sequence[tuple[int, str, str]], cells: list[str]
) -> tuple[tuple[Edit, ...], tuple[Edit, ...]]:
    """One step's edits forwards and backwards from the characters it changed (``diff``'s runs:
    neighbouring characters make one edit), applied to ``cells``."""
    forward: list[Edit] = []
    back: list[Edit] = []
    last = -1
    size = len(cells)
    for offset, before, after in found:
        if not last < offset < size or cells[offset] != before or before == after:
            raise _Disagreed
        if len(after) != 1 or after > "\uffff":
            raise _Disagreed  # the frames drawn and compared then say what is wrong with it
        cells[offset] = after
        if offset == last + 1 and forward:
            at, n, text = forward[-1]
            forward[-1] = (at, n + 1, text + after)
            back[-1] = (at, n + 1, back[-1][2] + before)
        else:
            forward.append((offset, 1, after))
            back.append((offset, 1, before))
        last = offset
    return tuple(forward), tuple(back)


def _checked(frame: str) -> str:
    if not frame.isascii() and max(frame) > "\uffff":
        raise ReplayError(f"a frame holds {max(frame)!r}, beyond the Basic Multilingual Plane")
    return frame


def _where(record: RecordView, played: int) -> str:
    return f"game {str(record.get('key') or '')[:12] or record.get('seed')}, step {played + 1}"


def diff(before: str, after: str) -> list[Edit]:
    """The edits that turn ``before`` into ``after`` (see the module's docstring)."""
    if before == after:
        return []
    if len(before) != len(after):
        short = min(len(before), len(after))
        p = 0
        while p < short and before[p] == after[p]:
            p += 1
        s = 0
        while s < short - p and before[-1 - s] == after[-1 - s]:
            s += 1
        return [(p, len(before) - p - s, after[p : len(after) - s])]
    changed: list[int] = []
    if before.isascii() and after.isascii():
        _differing_bytes(before.encode("ascii"), after.encode("ascii"), changed)
    else:
        _differing(before, after, 0, len(before), changed)
    runs: list[Edit] = []
    start = changed[0]
    for a, b in zip(changed, [*changed[1:], -1], strict=True):
        if b != a + 1:
            runs.append((start, a + 1 - start, after[start : a + 1]))
            start = b
    return runs


def _differing_bytes(a: bytes, b: bytes, out: list[int]) -> None:
    """Append the positions where ``a`` and ``b`` (of one length) differ, in order: the bytes of
    their XOR (one big integer) that are not zero, found lowest first."""
    rest = int.from_bytes(a, "little") ^ int.from_bytes(b, "little")
    at = 0
    while rest:
        skip = ((rest & -rest).bit_length() - 1) >> 3  # zero bytes below the lowest set bit
        out.append(at + skip)
        rest >>= (skip + 1) * 8
        at += skip + 1


def _differing(a: str, b: str, lo: int, hi: int, out: list[int]) -> None:
    """Append the positions in [lo, hi) where ``a`` and ``b`` differ (halving equal slices away)."""
    if a[lo:hi] == b[lo:hi]:
        return
    if hi - lo <= 64:
        out.extend(i for i in range(lo, hi) if a[i] != b[i])
        return
    mid = (lo + hi) // 2
    _differing(a, b, lo, mid, out)
    _differing(a, b, mid, hi, out)


def apply_edits(frame: str, edits: Iterable[Edit]) -> str:
    for offset, removed, text in edits:
        frame = frame[:offset] + text + frame[offset + removed :]
    return frame


def frames(rep: Replay) -> list[str]:
    """Every frame of a replay, rebuilt from its edits (as replay.js does)."""
    out = [rep.initial]
    for edits in rep.edits:
        out.append(apply_edits(out[-1], edits))
    return out


def text_log(rep: Replay) -> str:
    """The whole game frame by frame, frames separated by blank lines (what the page downloads)."""
    return "\n\n".join(frames(rep)) + "\n"


MOVE_SHOWN = 24  # characters of a move the move list shows (a bot's memory line can be 1 KiB)


def shown_move(text: str) -> str:
    """A move as the move list shows it: whole, or its first ``MOVE_SHOWN`` characters and "…"
    (the record, the downloads and ``koth replay`` keep every character)."""
    return text if len(text) <= MOVE_SHOWN else text[: MOVE_SHOWN - 1] + "…"


def move_items(rep: Replay, by_turn: bool) -> list[str]:
    """The move list: a line per turn (its moves in order), or per step (each seat, its move).

    A new line per turn starts where the turn number changes, as replay.js counts them.
    """
    if not by_turn:
        return [
            " ".join(f"{rep.seat_names[s]} {shown_move(text)}" for s, text in st.moves)
            for st in rep.steps
        ]
    items: list[str] = []
    previous: int | None = None
    for st in rep.steps:
        if len(st.moves) == 1:  # the usual step: one move, most often a short one
            texts = st.moves[0][1]
            if len(texts) > MOVE_SHOWN:
                texts = shown_move(texts)
        else:
            texts = " ".join(shown_move(text) for _, text in st.moves)
        if st.turn == previous:
            items[-1] += " " + texts
        else:
            items.append(texts)
        previous = st.turn
    return items


def move_list_html(items: Sequence[str]) -> Markup:
    """The move list's lines as the page's list items, one to a line.

    The lines are escaped all at once, a NUL between each two (escaping leaves it as it is)
    marking where one ends; one by one if a line holds a NUL itself."""
    text = "\0".join(items)
    if not items or text.count("\0") != len(items) - 1:
        return Markup("".join([f"<li>{escape(item)}</li>\n" for item in items]))
    lines = str(escape(text)).replace("\0", "</li>\n<li>")
    return Markup(f"<li>{lines}</li>\n")


# -- the page's data for replay.js -----------------------------------------------------------


def digits_for(length: int) -> int:
    """Base-64 digits enough for every offset and length in a frame of ``length`` characters."""
    digits = 1
    while 64**digits <= length:
        digits += 1
    return digits


@cache  # a page asks for the same few hundred offsets again and again
def _number(n: int, digits: int) -> str:
    return "".join(ALPHABET[(n >> (6 * k)) & 63] for k in reversed(range(digits)))


def encode_edits(steps: Iterable[Sequence[Edit]], digits: int) -> str:
    """The ``changes`` string: each step's edits, a single replaced character in short form.
    Edits a game's own code can write this string of (``LazyEdits.encoded``) are written so."""
    if isinstance(steps, LazyEdits):
        encoded = steps.encoded(digits, ALPHABET, SPLICE)
        if encoded is not None:
            return encoded
    out = []
    for edits in steps:
        parts = []
        for offset, removed, text in edits:
            if removed == 1 == len(text):  # the usual case, alone for speed
                parts.append(_number(offset, digits) + text)
            elif removed == len(text) and len(text) * (digits + 1) <= 3 * digits + 1 + len(text):
                parts += [_number(offset + i, digits) + c for i, c in enumerate(text)]
            else:
                parts.append(
                    SPLICE
                    + _number(offset, digits)
                    + _number(removed, digits)
                    + _number(len(text), digits)
                    + text
                )
        out.append("".join(parts))
    return ",".join(out)


def encode_numbers(rows: Sequence[Sequence[int]]) -> str:
    """The ``numbers`` string: each row's change from the row before, trailing zeros left out;
    ``=`` for a change that repeats the one before (a turn on which every score grew again)."""
    width = len(rows[0]) if rows else 0
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a row of {len(row)} numbers among rows of {width}")
    if not width:
        return ",".join([""] * len(rows))
    # the changes column by column, then back to one a row: zip and map do the per-number work
    columns = list(zip(*rows, strict=True))
    deltas = list(zip(*(map(operator.sub, c, (0, *c[:-1])) for c in columns), strict=True))
    shown: dict[tuple[int, ...], str] = {}  # each change as text (a game repeats a few of them)
    repeated: set[tuple[int, ...]] = set()  # the changes a repeat of which is written "="
    for delta in set(deltas):
        kept = len(delta)
        while kept and not delta[kept - 1]:
            kept -= 1
        shown[delta] = " ".join(map(str, delta[:kept]))
        if kept > 1:
            repeated.add(delta)
    return ",".join(
        "=" if delta == last and delta in repeated else shown[delta]
        for last, delta in zip((None, *deltas[:-1]), deltas, strict=True)
    )


def backward(rep: Replay) -> list[list[Edit]]:
    """Per step, the edits that turn the frame after it back into the frame before it.

    ``diff`` finds the same places either way round (the same common prefix and suffix, the
    same differing characters), so each forward edit is undone by one at its offset putting
    back what it removed: ``diff(after, before)`` without comparing the frames again."""
    if rep.undo is not None:
        return [list(edits) for edits in rep.undo]
    undo: list[list[Edit]] = []
    frame = rep.initial
    for edits in rep.edits:
        undo.append([(offset, len(text), frame[offset : offset + n]) for offset, n, text in edits])
        frame = apply_edits(frame, edits)
    return undo


def page_data(rep: Replay, show: Presentation, log_name: str) -> dict[str, Any]:
    """What a game page embeds for replay.js (JSON); the final frame is the page's board."""
    digits = digits_for(rep.longest)
    return {
        "finalLength": len(rep.final),
        "digits": digits,
        "changes": encode_edits(backward(rep) if rep.undo is None else rep.undo, digits),
        "steps": len(rep.steps),
        "numbers": rep.numbers
        if rep.numbers is not None
        else encode_numbers([(t, *s) for t, s in zip(rep.turns, rep.scores, strict=True)]),
        "layer": _layer_data(rep, show, digits),
        **player_data(show, len(rep.seat_names), log_name),
    }


def player_data(show: Presentation, seats: int, log_name: str) -> dict[str, Any]:
    """What replay.js's player needs of a game besides its frames: how to colour and draw
    them, and the name of the text log it downloads."""
    data: dict[str, Any] = {
        "seats": seats,
        "classes": dict(show.classes),
        "lines": list(show.lines),
        "byTurn": show.by_turn,
        "log": log_name,
        "graphic": show.graphic,
        **({"window": show.window, "windowSymbols": show.window_symbols} if show.window else {}),
    }
    if show.graphic:  # a game without a picture: its pages as they were
        data["picture"] = _picture_data(show, seats)
    return data


def _picture_data(show: Presentation, seats: int) -> dict[str, Any]:
    """How replay.js draws the picture (``Presentation.graphic``'s options)."""
    lines = show.picture_lines(seats) if show.picture_lines else show.lines
    return {
        "lines": list(lines),
        "grid": list(show.grid),
        "joins": dict(show.joins),
        "marks": dict(show.marks),
    }


def _layer_data(rep: Replay, show: Presentation, digits: int) -> dict[str, Any] | None:
    """The layer's frames, going forwards: its first as the edits that turn the blank (the first
    board frame with every character but line ends a space) into it — a layer is mostly blank,
    so this is small even for a 150 × 150 map — then each step's edits."""
    if not rep.layers:
        return None
    blank = "".join(c if c == "\n" else " " for c in rep.initial)
    steps = [diff(a, b) for a, b in zip(rep.layers, rep.layers[1:], strict=False)]
    return {
        "initial": encode_edits([diff(blank, rep.layers[0])], digits),
        "changes": encode_edits(steps, digits),
        "classes": dict(show.layer_classes),
    }
