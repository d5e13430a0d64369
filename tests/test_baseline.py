"""The in-process C baseline host (benchmarks/baseline/snakes_host.c) plays Snakes by koth's rules:
the same bots give the same moves, the same ending and the same cells under both hosts, so the
benchmark that compares them (benchmarks/compare_baseline.py) compares the same work."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
import snakes_baseline as baseline

from runner.games import find_game
from runner.games.snakes import Snakes, SnakesState
from runner.play.referee import Player, play_game
from runner.sandbox.local import LocalSandbox
from runner.sandbox.zygote_client import BotLimits
from runner.season.build import build_entry
from runner.season.entries import load_entry

LIMITS = BotLimits(move_cpu_s=0.1, game_cpu_s=10.0, move_wall_s=1.0, memory_bytes=256 << 20)

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Player], baseline.BaselineRun]:
    """Three greedy entries built by koth, and the baseline host's games between them."""
    root = tmp_path_factory.mktemp("baseline")
    entries = baseline.write_entries(root / "entries", 3)
    host = baseline.compile_host(root / "host")
    run = baseline.run_host(host, baseline.compile_bots(entries, root / "so"), moves=True)
    sandbox = LocalSandbox()
    try:
        game = find_game("snakes-v2")
        players = []
        for folder in entries:
            build = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, game)
            assert build.ok, f"the greedy entry {folder.name} did not build: {build.message}"
            players.append(build.player())
    finally:
        sandbox.close()
    return players, run


def test_the_baseline_plays_every_ordered_pair_once(
    both: tuple[list[Player], baseline.BaselineRun],
) -> None:
    _, run = both
    pairs = [(g.x, g.o) for g in run.games]
    assert pairs == [(i, j) for i in range(3) for j in range(3) if i != j], (
        f"the baseline should play each ordered pair once, in order; it played {pairs}"
    )
    for i, total in enumerate(run.points):
        won = sum(g.points[0] for g in run.games if g.x == i)
        won += sum(g.points[1] for g in run.games if g.o == i)
        assert total == won, f"bot {i}'s total {total} is not the sum of its games' points {won}"


@pytest.mark.parametrize("seed", [1, 7])
def test_the_baseline_and_koth_play_the_same_games(
    both: tuple[list[Player], baseline.BaselineRun], seed: int
) -> None:
    """Snakes' start is fixed (the seed changes nothing), so every seed gives the baseline's
    games; each is also replayed through the Python rules, move by move."""
    players, run = both
    sandbox = LocalSandbox()
    try:
        for game in run.games[:4]:
            played = play_game(
                find_game("snakes-v2"), [players[game.x], players[game.o]], sandbox, LIMITS, seed
            )
            where = f"greedy {game.x + 1} (X) against greedy {game.o + 1} (O), seed {seed}"
            assert "".join(map(str, played.moves)) == game.moves, (
                f"{where}: koth and the baseline host recorded different moves"
            )
            assert played.outcome.termination.value == game.termination, (
                f"{where}: koth ended the game by {played.outcome.termination.value}, "
                f"the baseline by {game.termination}"
            )
            assert tuple(played.scores) == game.cells, (
                f"{where}: koth counted cells {played.scores}, the baseline {game.cells}"
            )
            assert tuple(played.outcome.points) == game.points, (
                f"{where}: koth gave points {played.outcome.points}, the baseline {game.points}"
            )
    finally:
        sandbox.close()


def test_the_baseline_moves_replay_by_the_python_rules(
    both: tuple[list[Player], baseline.BaselineRun],
) -> None:
    _, run = both
    rules = Snakes()
    for game in run.games:
        state: SnakesState = rules.initial_state(random.Random(0))
        for i, move in enumerate(game.moves):
            state = rules.apply(state, {i % 2: move})
        outcome = rules.outcome(state)
        where = f"greedy {game.x + 1} (X) against greedy {game.o + 1} (O)"
        assert outcome is not None, f"{where}: the baseline stopped before the rules end the game"
        assert (outcome.termination.value, rules.scores(state)) == (game.termination, game.cells), (
            f"{where}: the rules end it by {outcome.termination.value} with cells "
            f"{rules.scores(state)}; the baseline by {game.termination} with {game.cells}"
        )


def test_the_baseline_loses_a_bot_its_game_for_an_invalid_reply(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "bot.c").write_text("int bot(int b[16][32], char p) { return b[0][0] - p - p; }\n")
    good = baseline.write_entries(tmp_path / "entries", 1)[0]
    host = baseline.compile_host(tmp_path / "host")
    run = baseline.run_host(host, baseline.compile_bots([good, folder], tmp_path / "so"))
    assert [(g.termination, g.points) for g in run.games] == [
        ("invalid_move", (1.0, 0.0)),
        ("invalid_move", (0.0, 1.0)),
    ], f"a bot replying 0 should lose both its games as invalid moves: {run.games}"
