"""The Easter Egg Hunt (``egghunt-v1``): every entry on one walled board, eggs to find.

For bot authors: egghunt/rules.md. In short: 7 to 36 players on a square of side 3n with 3n
random wall segments and 4n eggs; each turn every bot is started afresh, reads its 5 x 5 window and
its memory line, and answers a direction (keypad, 9 stays), an action (Attack, Counter, Nothing)
and a new memory line. All players move at once: two on one tile fight (A beats N, N beats C, C
beats A; the loser goes back, a tie sends both back), three or more all go back, returns cascade;
then on an egg A destroys it, N collects it and C goes back. The game ends when the eggs are gone
or after 25n turns; more eggs is a better place.

- ``rules``: the pure engine (board generation, turn resolution, frames, move text).
- ``codec``: the stdio wire format (a fresh process per turn).
- ``presentation``: how the site shows a run (colours, fights marked, each bot's window).
- ``builtin/wanderer/bot.py``: the built-in filler that completes a table to 7 players.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from runner.games.egghunt.codec import EggHuntStdio
from runner.games.egghunt.presentation import PRESENTATION
from runner.games.egghunt.rules import EggHunt, EggHuntState, Move
from runner.games.spec import Builtin, GameSpec, Rules, StdioCodec

ID: Final = EggHunt.id
RULES: Final = EggHunt()
STDIO: Final = EggHuntStdio()
if TYPE_CHECKING:  # mypy checks that the game keeps the spec's shape
    _rules: Rules[EggHuntState, Move] = RULES
    _stdio: StdioCodec[EggHuntState, Move] = STDIO
BUILTIN: Final = Path(__file__).parent / "builtin"  # one folder per built-in bot (bot.py)

SPEC = GameSpec(
    rules=RULES,
    interface="stdio-fresh",
    codec=STDIO,
    presentation=PRESENTATION,
    builtins=(Builtin("wanderer", BUILTIN / "wanderer", "python"),),
    rules_doc=Path(__file__).parent / "rules.md",
    site_css=Path(__file__).parent / "site.css",
    limits={"move_cpu_ms": 500, "move_wall_s": 1.0, "first_move_wall_s": None, "game_cpu_s": 60},
    formats=("free-for-all",),
    ranking="score",  # mean eggs per run, with a 95% interval
)

__all__ = [
    "SPEC",
    "BUILTIN",
    "ID",
    "RULES",
    "STDIO",
    "EggHunt",
    "EggHuntState",
    "EggHuntStdio",
    "Move",
]
