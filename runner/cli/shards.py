"""How many play jobs the season workflow runs, and for how long (``koth shards``).

The plan job sizes the shards once it knows what is left to play: after the recorded games are
restored and the entries are checked. Each game still to play costs an estimate of its wall time:
the mean wall time of the recorded games (their ``measured.wall_s``, from the runners that played
them), or, with none recorded, what the limits let its bots use (every seat its whole
``game_cpu_s``). A play job plays its games ``jobs`` at a time (one per core of the runner, which
is of the plan job's kind), so a shard's games take their summed cost over ``jobs``, and at
least its longest game.

- **How many.** Enough shards that each plays about ``TARGET_MINUTES`` of games, at most
  GitHub's matrix limit (``MATRIX_CAP`` jobs) and at most one per game to play; at least one.
  A count given by hand (the workflow's ``shards`` input) is taken as it is.
- **For how long.** A shard takes the games whose index in the season's canonical order is its
  own modulo the count (runner/season/schedule.py), so the shards are not equal: the play step's
  timeout is the largest shard's estimate times ``MARGIN`` (records come from other runners, and
  the new games' entries may think longer than the recorded ones), and the job's adds
  ``SETUP_MINUTES`` for the rest of the job; neither passes a GitHub-hosted job's 6 hours.

A shard stopped at its timeout still uploads what it finished, and the merge job keeps it, so
a season too long for one run (even at ``MATRIX_CAP`` shards) is finished by the next runs.

Records come from caches: a record's wall time is taken only between 0 and the longest its game
can last within the limits (``wall_cap``), so no record can ask for more than that.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from runner.cli import stages
from runner.common.progress import Say
from runner.games import find_game
from runner.season.check import Lineup
from runner.season.config import Config

MATRIX_CAP = 256  # GitHub: at most 256 jobs in one matrix
JOB_CAP_MINUTES = 360  # GitHub-hosted runners: a job runs at most 6 hours
TARGET_MINUTES = 40  # the games one shard is sized to play
SETUP_MINUTES = 15  # a play job besides its games: koth, the image, the builds, the upload
MARGIN = 2.0  # the play step's timeout over the largest shard's estimate
MIN_PLAY_MINUTES = 10  # the play step's shortest timeout (a shard with little to play)
PLAY_CAP_MINUTES = JOB_CAP_MINUTES - SETUP_MINUTES


class ShardsError(Exception):
    """A shard count given by hand that is no count; one paragraph with the fix."""


@dataclass(frozen=True)
class Sizes:
    """The shards of one run: how many, what they play, their timeouts."""

    shards: int
    games: int  # games to play
    total_s: float  # their estimated wall time, one after another
    largest_s: float  # the largest shard's estimated wall time, ``jobs`` games at a time
    play_minutes: int  # the play step's timeout
    job_minutes: int  # the play job's timeout
    fits: bool  # the largest shard's estimate, with the margin, is within its timeout

    def outputs(self) -> dict[str, str]:
        """The season workflow's names and values (``$GITHUB_OUTPUT``)."""
        shards = list(range(1, self.shards + 1))
        return {
            "matrix": json.dumps({"shard": shards}, separators=(",", ":")),
            "shards": str(self.shards),
            "play_minutes": str(self.play_minutes),
            "job_minutes": str(self.job_minutes),
        }


def given_count(text: str | None) -> int | None:
    """A shard count given by hand, as a workflow passes it (empty: sized)."""
    if text is None or not text.strip():
        return None
    try:
        count = int(text)
    except ValueError:
        count = 0
    if not 1 <= count <= MATRIX_CAP:
        raise ShardsError(
            f"--shards {text!r}: expected a whole number from 1 to {MATRIX_CAP} (GitHub's "
            "limit of jobs in a matrix), or nothing to size the shards from the games to play. "
            "Fix: e.g. --shards 4, or leave it empty."
        )
    return count


def size(todo: Sequence[tuple[int, float]], jobs: int, count: int | None = None) -> Sizes:
    """The shards for ``todo``: each game to play as (its index in the season's canonical
    order, its estimated seconds), played ``jobs`` at a time; ``count``: a count given by hand."""
    jobs = max(1, jobs)
    total = sum(cost for _, cost in todo)
    if count is None:
        wanted = math.ceil(total / jobs / (TARGET_MINUTES * 60))
        count = max(1, min(wanted, MATRIX_CAP, len(todo)))
    sums, longest = [0.0] * count, [0.0] * count
    for index, cost in todo:
        sums[index % count] += cost
        longest[index % count] = max(longest[index % count], cost)
    largest = max(max(s / jobs, g) for s, g in zip(sums, longest, strict=True))
    needed = math.ceil(largest * MARGIN / 60)
    play = min(max(needed, MIN_PLAY_MINUTES), PLAY_CAP_MINUTES)
    return Sizes(
        shards=count,
        games=len(todo),
        total_s=total,
        largest_s=largest,
        play_minutes=play,
        job_minutes=play + SETUP_MINUTES,
        fits=needed <= PLAY_CAP_MINUTES,
    )


def default_cost(config: Config, seats: int) -> float:
    """A game's cost when none is measured: every seat uses its whole game's CPU."""
    return seats * config.limits.game_cpu_s


def wall_cap(config: Config) -> float:
    """The longest a game of the season can last within its limits: every step waits a whole
    move's wall-clock limit."""
    limits = config.limits
    per_move = max(limits.move_wall_s, limits.first_move_wall_s or 0.0)
    return find_game(config.game).info.max_moves * per_move


def measured_walls(config: Config, records: Iterable[Mapping[str, object]]) -> list[float]:
    """The wall times of the records that say how long they took, each taken between 0 and
    ``wall_cap``."""
    cap = wall_cap(config)
    walls = []
    for record in records:
        measured = record.get("measured")
        wall = measured.get("wall_s") if isinstance(measured, dict) else None
        if isinstance(wall, int | float) and not isinstance(wall, bool) and math.isfinite(wall):
            walls.append(min(max(float(wall), 0.0), cap))
    return walls


def to_play(config: Config, line: Lineup, say: Say) -> tuple[list[tuple[int, float]], str]:
    """The season's games known now and not recorded, each as (its index in the canonical
    order, its estimated seconds), and where the estimate comes from, in words."""
    records = stages.believed_records(config, say)
    plan = stages.plan_from(config, line, records)
    recorded = {record["key"] for record in records}
    walls = measured_walls(config, records)
    mean = sum(walls) / len(walls) if walls else None
    todo = [
        (game.index, mean if mean is not None else default_cost(config, len(game.fixture.seats)))
        for game in plan.games
        if game.key not in recorded
    ]
    if mean is not None:
        cost = f"about {mean:.2f} s each (the mean of {len(walls)} recorded game(s))"
    else:
        cost = (
            f"no game recorded: {config.limits.game_cpu_s:g} s of CPU per seat each (the "
            "limits' game_cpu_s)"
        )
    return todo, cost


def words(sizes: Sizes, jobs: int, cost: str, count_given: bool) -> list[str]:
    """What the plan job's log says of the sizes."""
    how = "as given" if count_given else f"about {TARGET_MINUTES} minutes of games each"
    lines = [
        f"shards: {sizes.games} game(s) to play, {cost}: about {sizes.total_s / 60:.1f} "
        f"minute(s) of games, {jobs} at a time in each play job",
        f"shards: {sizes.shards} ({how}, at most {MATRIX_CAP}); the largest about "
        f"{sizes.largest_s / 60:.1f} minute(s): the play step stops after "
        f"{sizes.play_minutes} minute(s), the job after {sizes.job_minutes}",
    ]
    if not sizes.fits:
        lines.append(
            f"shards: the largest shard may not finish within GitHub's {JOB_CAP_MINUTES} "
            "minutes a job: each plays what it can, the merge keeps it, and the next run "
            "plays the rest"
        )
    return lines


__all__ = [
    "JOB_CAP_MINUTES",
    "MATRIX_CAP",
    "ShardsError",
    "Sizes",
    "default_cost",
    "given_count",
    "measured_walls",
    "size",
    "to_play",
    "wall_cap",
    "words",
]
