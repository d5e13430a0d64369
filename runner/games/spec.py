"""The shape every game package takes (runner/games/<id>/), for games of 1..N seats.

A game is three parts, kept apart (STYLE 17):

- **rules** (``Rules``): pure and deterministic, no I/O, no clock, no global randomness. States are
  immutable values; ``apply`` takes one move per seat that moves this turn (one seat in a
  sequential game, several at once in a simultaneous one) and returns a new state.
- **codecs**: what a bot of one interface is shown and how its reply reads. ``StdioCodec`` for
  programs on stdin/stdout (for the whole game, or started afresh per move). The wire format lives
  here, never in the rules and never in the sandbox's program.
- **presentation**: ``render_text`` (a text frame; what replays and the terminal show) and a
  ``Presentation`` (how the site colours a frame, labels scores and lists moves).

A game package (``runner/games/<name>/``) exports one ``GameSpec`` holding all of it, plus its
built-in bots, its default limits and the formats it may be played in; ``runner/games`` keeps the
one registry of specs.

Faults. In a two-seat game a bot's fault (crash, timeout, invalid reply) ends the game as its loss;
the referee does that without asking the rules. In a larger game the seat faults alone, as its
rules say: ``stand_in`` gives the move that replaces its reply this turn (Easter Egg Hunt: stay,
do nothing, memory unchanged) and the seat plays on; if it gives None the seat is out and
``retire`` removes it (Multisnake: the snake dies where it stands and stays on the board).

Placement. ``Outcome.placement`` gives each seat its place, 1 first, ties sharing the better place
(1, 2, 2, 4). Points come from placement through a table (``points_for``); with two seats the
default table is win 1, draw ½, loss 0.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import (
    Any,
    ClassVar,
    Final,
    Generic,
    Literal,
    NamedTuple,
    Protocol,
    TypeVar,
    overload,
)

from runner.common import languages
from runner.games.base import EMPTY, GameInfo, Outcome, Setup, Termination

S = TypeVar("S")
M = TypeVar("M")
S_in = TypeVar("S_in", contravariant=True)
M_out = TypeVar("M_out", covariant=True)


class Rules(Protocol, Generic[S, M]):
    """The rules of one game. Stateless: every state lives in ``S`` values."""

    id: ClassVar[str]  # versioned: "domineering-v2"
    info: ClassVar[GameInfo]

    def initial_state(self, rng: random.Random, seats: int, setup: Setup) -> S:
        """The start for ``seats`` players; all randomness from ``rng``."""
        ...

    def to_move(self, state: S) -> tuple[int, ...]:
        """The seats that move now, ascending (empty once the game is over)."""
        ...

    def legal_moves(self, state: S, seat: int) -> Sequence[M]:
        """Every move ``seat`` may make now (what a random bot picks from)."""
        ...

    def check_move(self, state: S, seat: int, move: M) -> None:
        """Raise IllegalMoveError (naming the move) if ``seat`` may not make ``move`` now."""
        ...

    def apply(self, state: S, moves: Mapping[int, M]) -> S:
        """The state after every seat of ``to_move(state)`` made its move (checked first)."""
        ...

    def stand_in(self, state: S, seat: int) -> M | None:
        """The move that replaces a faulting seat's reply in a game of more than two seats, or
        None: the seat is out (see ``retire``)."""
        ...

    def retire(self, state: S, seat: int) -> S:
        """The state with ``seat`` out of the game (its bot faulted), as the rules say."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def scores(self, state: S) -> tuple[float, ...]:
        """Each seat's score as the rules count it (cells, eggs, ...)."""
        ...

    def turn(self, state: S) -> int:
        """The 1-based number of the turn the next moves belong to ('at turn 37')."""
        ...

    def render_text(self, state: S) -> str:
        """The state as a text frame, lines joined by '\\n', no trailing newline."""
        ...

    def move_text(self, move: M) -> str:
        """The move as one line of text for records (``parse_move`` reads it back)."""
        ...

    def parse_move(self, seat: int, text: str) -> M:
        """A move from ``move_text``'s form; InvalidMoveError naming the text otherwise."""
        ...


# ``StdioCodec.reply_lines`` of a game whose program, started afresh for every move, ends its move
# by exiting: its reply is everything it writes until then (Domineering's arena).
UNTIL_EXIT: Final = 0


class StdioCodec(Protocol, Generic[S_in, M_out]):
    """How a program bot on stdin/stdout sees the game and how its reply is read."""

    # A reply is this many lines at most (read until then or EOF); UNTIL_EXIT (a program started
    # afresh for every move): all the program writes until it exits, its move ending then.
    reply_lines: ClassVar[int]

    def greeting(self, state: S_in, seat: int) -> bytes:
        """Sent once before the first request (before each request when the game starts its
        bots afresh for every move); b"" for none."""
        ...

    def request(self, state: S_in, seat: int) -> bytes:
        """The message ``seat`` reads before its move."""
        ...

    def decode(self, state: S_in, seat: int, lines: Sequence[str]) -> M_out:
        """The move a reply means (lines without their endings; fewer than ``reply_lines`` when
        the bot wrote fewer; every line it wrote for UNTIL_EXIT). InvalidMoveError quoting the
        reply when it is not a move."""
        ...

    def reply(self, move: Any) -> bytes:
        """What a bot writes to make ``move`` (``decode`` of it gives the move back): what test
        bots answer and what a replay shows a seat sending."""
        ...


@dataclass(frozen=True)
class CArg:
    """One argument of a C bot's function, filled from the request bytes in order.

    ``read``: ``widen`` — ``size`` request bytes, each widened to one C int (``ctype`` an int
    array of that many elements, e.g. ``int[16][32]``); ``byte`` — one byte as a ``char``;
    ``int32`` — four bytes, little-endian, as an ``int``.
    """

    ctype: str
    size: int
    read: Literal["widen", "byte", "int32"]


@dataclass(frozen=True)
class CAbi:
    """A C-function bot's signature, as data the sandbox's worker follows (it knows no game):
    the declarations for cffi, the function called each move (returning an int), the string
    global naming the bot, and the arguments."""

    cdef: str
    function: str
    name_symbol: str
    args: tuple[CArg, ...]

    @property
    def request_size(self) -> int:
        return sum(arg.size for arg in self.args)

    def to_json(self) -> dict[str, Any]:
        return {
            "cdef": self.cdef,
            "function": self.function,
            "name_symbol": self.name_symbol,
            "args": [[a.ctype, a.size, a.read] for a in self.args],
        }


class CFunctionCodec(Protocol, Generic[S_in, M_out]):
    """How a C-function bot is called: its signature, the request bytes for one call (laid out
    as ``abi.args``), and what its returned int means."""

    abi: ClassVar[CAbi]

    def request(self, state: S_in, seat: int) -> bytes: ...

    def decode(self, state: S_in, seat: int, value: int) -> M_out:
        """The move a returned int means; InvalidMoveError naming the value otherwise."""
        ...

    def reply(self, move: Any) -> int:
        """The int a bot returns to make ``move``."""
        ...


Edit = tuple[
    int, int, str
]  # (offset, characters removed, text inserted there): runner/site/frames.py


StepsEdits = tuple[tuple[Edit, ...], ...]  # per step, its edits


class LazyEdits(Sequence[tuple[Edit, ...]]):
    """Per step, its edits, made by ``build`` when first asked for. ``encode``, where a game's
    own code has one, writes the site's ``changes`` string of them (runner/site/frames.py's
    ``encode_edits``: its digits, alphabet and splice character in) without making them: a
    game page needs nothing else of them. Equal to any sequence of the same edits."""

    def __init__(
        self,
        count: int,
        build: Callable[[], StepsEdits],
        encode: Callable[[int, str, str], str | None] | None = None,
    ) -> None:
        self._count, self._build, self._encode = count, build, encode

    @functools.cached_property
    def made(self) -> StepsEdits:
        made = self._build()
        assert len(made) == self._count, "a step's edits missing"
        return made

    def encoded(self, digits: int, alphabet: str, splice: str) -> str | None:
        """The ``changes`` string, or None where there is no ``encode`` (or it could not)."""
        return None if self._encode is None else self._encode(digits, alphabet, splice)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> tuple[Edit, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> StepsEdits: ...
    def __getitem__(self, index: int | slice) -> tuple[Edit, ...] | StepsEdits:
        return self.made[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self.made == tuple(other)

    def __hash__(self) -> int:
        return hash(self.made)


class ReplaySteps(NamedTuple):
    """A record's steps as a game's own code replays them (``Presentation.replay_steps``)."""

    first: str  # the first frame
    final: str  # the last frame
    moves: tuple[tuple[tuple[int, str], ...], ...]  # per step: (seat, move text) of each mover
    turns: tuple[int, ...]  # per step: the turn it was played in
    forward: Sequence[tuple[Edit, ...]]  # per step: its edits from the frame before
    back: Sequence[tuple[Edit, ...]]  # per step: its edits back to the frame before
    scores: tuple[tuple[int, ...], ...]  # per frame: each seat's score
    numbers: str | None = None  # the page's ``numbers`` string of the frames (encode_numbers)


@dataclass(frozen=True)
class Presentation:
    """How the site and the terminal show one game's frames, scores and moves."""

    classes: Mapping[str, str] = field(default_factory=dict)  # frame symbol → CSS class
    lines: tuple[int | None, int | None] = (None, None)  # the lines coloured, as a slice
    seat_classes: tuple[str, ...] = ()  # the CSS class of each seat's name
    board_class: str = ""  # an extra class on the board (e.g. to dim empty cells)
    score_header: str = "Score"  # the seats table's column of final scores
    score_prefix: str = "score: "  # the status line: prefix, "seat score" per seat, suffix
    score_suffix: str = ""
    by_turn: bool = False  # move list: one line per turn (moves only), or a line per move
    # The frame names the turn to be played ("turn 2: Blue to move", ``Rules.turn`` of its state,
    # "game over" at the last): the status line shows that number too, not the last move's turn.
    frame_turn_to_play: bool = False
    # A layer over the board: for a state, a text the shape of its frame whose characters name
    # the class of the frame's character at the same place (``layer_classes``; a character not
    # listed there leaves the symbol's own class). Multisnake: which snake a tile is.
    layer: Callable[[Any], str] | None = None
    layer_classes: Mapping[str, str] = field(default_factory=dict)
    # What each seat sees: a square of side ``window`` around each of ``window_symbols`` in the
    # coloured lines, which the game page's player outlines on demand (0: no such square).
    window: int = 0
    window_symbols: str = ""
    # What the board's symbols mean, shown under it: (symbol, its CSS class, the words).
    legend: tuple[tuple[str, str, str], ...] = ()
    # How the site's player draws the board (the text frame stays one click away): "cells", a
    # square per character of the board's lines; "grid", a square per cell of a board whose
    # cells are ``grid`` apart, with a gap between them; "hex", a disc per character in
    # Cluster's layout (columns 3 characters apart, neighbours a line apart); "": the text only.
    graphic: str = ""
    # The picture's lines of a frame, for a number of seats (a status as long as the seats are
    # many); None: ``lines``.
    picture_lines: Callable[[int], tuple[int | None, int | None]] | None = None
    # "grid": the character of the first cell on a line, and the characters from one to the next.
    grid: tuple[int, int] = (0, 1)
    # "grid": a symbol whose cell is one piece with the next cell east ("e") or south ("s"): the
    # gap between them is filled (Domineering's dominoes). Cells of one layer class join too.
    joins: Mapping[str, str] = field(default_factory=dict)
    # What the picture draws over the cells of some symbols, by kind → those symbols: "dot", a
    # dot of its class's ink (a head); "letter", the symbol itself in that ink (a snake's letter,
    # a sign, a bombed cell's ``*``).
    marks: Mapping[str, str] = field(default_factory=dict)
    # The characters one step changed, known without drawing both frames and comparing them:
    # for the state before a step and the state after it, (offset in the frame, the character
    # there before, the one after) of every changed character, offsets rising. Only for a game
    # whose frames all have one length. The replay checks each character before against the
    # frame it keeps and the last frame against ``render_text``; where they disagree it draws
    # and compares every frame instead. None: it always does.
    frame_changes: Callable[[Any, Any], Sequence[tuple[int, str, str]]] | None = None
    # A record replayed by the game's own code at once (Snakes': in C), for a game whose frames
    # all have one length, with no layer, whose frames name the turn of their step: its steps,
    # their edits both ways and each frame's scores (``ReplaySteps``); None where it cannot (a
    # record it does not take): then the replay plays the rules step by step, and says what is
    # wrong with the record if anything is. None: it always does.
    replay_steps: Callable[[Mapping[str, Any], Setup], ReplaySteps | None] | None = None
    # The game's rules in the browser, for the site's replay page (a game without a page of its
    # own replays there from the published records): the file in site_templates/static/ that
    # defines ``window.kothEngine(record)`` → its frames, each frame's turn and scores, each
    # step's moves, as ``runner.site.frames.replay`` has them. None: every game gets its own page.
    engine: str | None = None

    def seat_class(self, seat: int) -> str:
        return self.seat_classes[seat] if seat < len(self.seat_classes) else ""

    def frame_classes(self, lines: Sequence[str], layer: str = "") -> Iterator[Iterable[str]]:
        """Per line of a frame, the class of each of its characters (the site's and the
        terminal's rule): where the ``layer`` (``layer`` of the frame's state) has a character
        ``layer_classes`` names at that place, that class; else, on a line ``lines`` selects, the
        symbol's class in ``classes``; else ""."""
        over = layer.split("\n") if layer and self.layer_classes else []
        coloured = range(len(lines))[slice(*self.lines)]
        for y, line in enumerate(lines):
            row = over[y][: len(line)] if y < len(over) else ""
            shade = [self.layer_classes.get(c, "") for c in row]
            yield _line_classes(line, self.classes if y in coloured else {}, shade)


def _line_classes(line: str, symbols: Mapping[str, str], shade: list[str]) -> Iterable[str]:
    """Each character's class: ``shade``'s at its place (the layer's), else its symbol's."""
    if shade:
        return (
            (shade[x] if x < len(shade) else "") or symbols.get(ch, "") for x, ch in enumerate(line)
        )
    return map(symbols.get, line, repeat(""))


@dataclass(frozen=True)
class Keyboard:
    """How a person plays a seat from the keyboard (``koth play you …``, runner/play/human.py).

    ``keys``: a key's name (``up``, ``down``, ``left``, ``right`` for the arrow keys, or the
    character a key types) → the move it makes. The seat plays the move of the last key pressed,
    turn after turn, until another key is pressed; before the first key, ``start(state, seat)``.
    ``help``: one line for the person, e.g. "arrow keys (or w a s d) steer".
    """

    keys: Mapping[str, Any]
    start: Callable[[Any, int], Any]
    help: str = ""


@dataclass(frozen=True)
class Builtin:
    """A bot that ships with a game: the check stage's opponent, or a filler for a table."""

    name: str
    folder: Path
    language: str


Interface = Literal["c-function", "stdio", "stdio-fresh"]
# The languages a game's bots may be written in, by its interface: a C function is C; a program,
# any language of runner/common/languages.py.
LANGUAGES: dict[str, tuple[str, ...]] = {
    "c-function": ("c",),
    "stdio": languages.IDS,
    "stdio-fresh": languages.IDS,
}


# -- a game's quick loop: its usual moves played in C (runner/games/snakes/quick.py), for two
# C-function bots taking turns; the referee's side is runner/play/quick.py.


class Handed(NamedTuple):
    """A move the quick loop began and did not see to its usual end."""

    seat: int
    progress: tuple[float, float, float, int, bytes]  # as the watchdogs' quick way keeps it
    events: tuple[tuple[int, int], ...]  # (fd, poll events) its last poll woke to, not handled


class Played(NamedTuple):
    """What one run of a quick loop did: the state it left, the moves it applied (their texts,
    in order) and the move it handed over, if it stopped within one."""

    state: Any
    moves: tuple[str, ...]
    handed: Handed | None


# (the state, each seat's bot) → what it played; None where it cannot play these bots
QuickPlay = Callable[[Any, Sequence[Any]], Played | None]


@dataclass(frozen=True)
class GameSpec:
    """Everything koth knows about one game, from one package (runner/games/<name>/).

    ``interface``: how its bots are run — ``c-function`` (a function in a shared object, called
    each move), ``stdio`` (a program on stdin/stdout for the whole game) or ``stdio-fresh`` (a
    program started afresh for every move). ``builtins[0]`` is the check stage's opponent.
    ``limits``: defaults for tournament.yaml's ``limits:`` fields the game sets its own way.
    ``time_allowance``: per language, the multiple of the season's time limits its bots get (a
    move's CPU and wall-clock time, a first move's, a game's CPU); a language not listed gets its
    language row's (runner/common/languages.py).
    ``rules_doc``: the page for bot authors, shipped in the game's package (its ``rules.md``);
    None for a game without one (the site then has no rules page). ``site_css``: its look on
    the site, its classes' colours (``Presentation.classes``), beside the shared stylesheet.
    """

    rules: Rules[Any, Any]
    interface: Interface
    codec: CFunctionCodec[Any, Any] | StdioCodec[Any, Any]
    presentation: Presentation
    builtins: tuple[Builtin, ...]
    rules_doc: Path | None
    # Its look on the site beside the shared one (runner/games/<game>/site.css): appended to the
    # site's site.css for a season of this game.
    site_css: Path | None = None
    limits: Mapping[str, float | int | None] = field(default_factory=dict)
    time_allowance: Mapping[str, float] = field(default_factory=dict)
    formats: tuple[str, ...] = ("round-robin",)
    samples: Callable[[int], Setup] | None = None  # a setup for a seat count (tests, play)
    # Checks a configured setup (tournament.yaml's ``free_for_all: setups:``) before any game:
    # raises SetupError naming the setting at fault (a map: its line and column) unless the
    # setup can be played by that many seats (None: by some number the game allows).
    check_setup: Callable[[Setup, int | None], None] | None = None
    keyboard: Keyboard | None = None  # how a person plays a seat, if the game allows it
    # What the standings rank by (runner/rank/standings.py): points (by place in games of more than
    # two seats), or ``score``, the mean of the game's own score per game with a 95% interval.
    ranking: Literal["points", "score"] = "points"
    # Its usual moves played in C (runner/play/quick.py), for two C-function bots taking turns:
    # the referee hands it the game where it can, and plays on in Python where it stops.
    quick: QuickPlay | None = field(default=None, compare=False)
    # The state a record's moves end in, worked out in C (the same state the rules give): what
    # the standings and the site check every record with (runner/play/playback.py); None where it
    # does not take the record, and then the rules play its moves in Python.
    final_state: Callable[[Mapping[str, Any], Setup], Any | None] | None = field(
        default=None, compare=False
    )

    def setup_problem(self, setup: Setup, seats: int | None) -> SetupError | None:
        """Why ``setup`` cannot be played by ``seats`` players (None: by some number the game
        allows), or None when it can (always, for a game that checks nothing)."""
        if self.check_setup is None:
            return None
        try:
            self.check_setup(setup, seats)
        except SetupError as error:
            return error
        except ValueError as error:
            return SetupError("", str(error))
        return None

    def starters(self) -> dict[str, Path]:
        """The starters ``koth new`` writes an entry from, by language: the files in the game's
        ``starters/`` folder (beside its rules page) named as a language's source file."""
        if self.rules_doc is None or not (self.rules_doc.parent / "starters").is_dir():
            return {}
        by_source = {row.source: row.id for row in languages.LANGUAGES}
        found = {
            by_source[path.name]: path
            for path in (self.rules_doc.parent / "starters").iterdir()
            if path.name in by_source and by_source[path.name] in self.languages
        }
        return {language: found[language] for language in self.languages if language in found}

    def time_factor(self, language: str) -> float:
        """How many times the season's time limits a bot in ``language`` gets: the game's
        allowance for it, else its language's (runner/common/languages.py)."""
        if language in self.time_allowance:
            return self.time_allowance[language]
        known = languages.BY_ID.get(language)
        return known.time if known is not None else 1.0

    def sample_setup(self, seats: int) -> Setup:
        """A setup the game can be played with at ``seats`` (its package's sample; none by
        default): what the conformance suite and ``koth play`` use when none is configured."""
        return self.samples(seats) if self.samples is not None else EMPTY

    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def info(self) -> GameInfo:
        return self.rules.info

    @property
    def languages(self) -> tuple[str, ...]:
        return LANGUAGES[self.interface]

    @property
    def records_turns(self) -> bool:
        """Whether a record lists its moves turn by turn (each seat's move, or None) rather
        than one after another: every game but two seats taking turns."""
        return self.info.simultaneous or self.info.max_players > 2

    def seat_name(self, seat: int) -> str:
        names = self.info.seat_names
        return names[seat] if seat < len(names) else f"seat {seat + 1}"


class SetupError(ValueError):
    """A setup the game cannot be played with: ``key`` names the setting at fault (``map``,
    ``period``; empty when it is the setup as a whole), ``str()`` what is wrong, in words."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class PointsTable:
    """Points by place: ``points[k]`` for place k + 1. Seats tied on a place share the points of
    the places they cover equally (two seats tied first of three: (p1 + p2) / 2 each)."""

    points: tuple[float, ...]

    DEFAULT_NAME: ClassVar[str] = "linear"

    @classmethod
    def linear(cls, seats: int) -> PointsTable:
        """1 for first, 0 for last, evenly spaced: win 1 / loss 0 for two seats."""
        if seats == 1:
            return cls((1.0,))
        return cls(tuple((seats - 1 - k) / (seats - 1) for k in range(seats)))


def placement_from_order(finish: Sequence[float]) -> tuple[int, ...]:
    """Places from a per-seat rank value where higher is better (turn of death, eggs, points):
    1 + the number of seats strictly better, so ties share the better place (1, 2, 2, 4)."""
    if len(finish) == 2:  # every two-seat game's record is read this way: kept quick
        a, b = finish
        return (1 if a >= b else 2, 1 if b >= a else 2)
    return tuple(1 + sum(other > mine for other in finish) for mine in finish)


def points_for(placement: Sequence[int], table: PointsTable | None = None) -> tuple[float, ...]:
    """Points per seat for a placement: tied seats share the points of the places they span."""
    table = table or PointsTable.linear(len(placement))
    if len(table.points) < len(placement):
        raise ValueError(f"a points table of {len(table.points)} places for {len(placement)} seats")
    result = []
    for place in placement:
        tied = sum(p == place for p in placement)
        spanned = table.points[place - 1 : place - 1 + tied]
        result.append(sum(spanned) / tied)
    return tuple(result)


def ranked_outcome(
    finish: Sequence[float], termination: Termination, detail: str, table: PointsTable | None = None
) -> Outcome:
    """An Outcome whose placement comes from ``finish`` (higher is better)."""
    placement = placement_from_order(finish)
    return Outcome(points_for(placement, table), termination, detail, placement=placement)


__all__ = [
    "Builtin",
    "CAbi",
    "CArg",
    "CFunctionCodec",
    "GameSpec",
    "Interface",
    "Keyboard",
    "Presentation",
    "PointsTable",
    "Rules",
    "Setup",
    "SetupError",
    "StdioCodec",
    "UNTIL_EXIT",
    "placement_from_order",
    "points_for",
    "ranked_outcome",
]
