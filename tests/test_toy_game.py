"""The N-seat referee with a toy game of 4 seats moving at once (tests/toy: Race to Twenty): every
seat asked together under its own watchdog, one seat faulting mid-game and the rest playing on,
the record listing each turn's moves seat by seat, and the record playing back to the same end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toy import SPEC

from runner.games import GAMES
from runner.games.base import Termination
from runner.play.playback import final_state
from runner.play.referee import play_game
from runner.sandbox.zygote_client import BotLimits
from runner.season import results
from runner.season.build import Build, build_entry
from runner.season.entries import load_entry

LIMITS = BotLimits(move_cpu_s=0.5, game_cpu_s=10.0, move_wall_s=2.0, memory_bytes=256 << 20)
RUNNER = """import sys
seats, me = (int(w) for w in sys.stdin.readline().split()[1::2])
turn = 0
while sys.stdin.readline():
    sys.stdin.readline()
    turn += 1
    STEP
    sys.stdout.write(f"{step}\\n")
    sys.stdout.flush()
"""
BOTS = {
    "steady": "step = 1 + me % 3",
    "greedy": "step = 3",
    "careful": "step = 2 if turn % 2 else 1",
    "crasher": "step = 3\n    if turn == 3: raise SystemExit(7)",
}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(GAMES, SPEC.id, SPEC)
    yield


def build(sandbox: Any, root: Path, name: str) -> Build:
    folder = root / "entries" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(RUNNER.replace("STEP", BOTS[name]))
    (folder / "entry.yaml").write_text(
        f"name: {name}\nauthor: tests\ndescription: a racer\nlanguage: python\n"
    )
    made = build_entry(load_entry(folder), root / "build", sandbox, LIMITS, 60, SPEC)
    assert made.ok, made.message
    return made


def test_four_seats_move_at_once_and_a_fault_puts_one_out(
    registered: None, local_sandbox: Any, tmp_path: Path
) -> None:
    names = ["steady", "crasher", "greedy", "careful"]
    players = [build(local_sandbox, tmp_path, n).player() for n in names]
    result = play_game(SPEC, players, local_sandbox, LIMITS, seed=1)
    outcome = result.outcome
    assert outcome.termination is Termination.NORMAL, "the others played the game to its end"
    assert outcome.faulty is None, "no single fault ends a game of four"
    [fault] = outcome.faults
    assert (fault.seat, fault.turn, fault.termination) == (1, 3, Termination.CRASH)
    assert fault.detail == "B (crasher) exited with code 7 at turn 3", fault.detail
    record = result.to_dict()
    moves = record["moves"]
    assert len(moves) > 3 and all(len(turn) == 4 for turn in moves), "a turn lists every seat"
    assert [turn[1] for turn in moves[:2]] == ["3", "3"], "the crasher ran until it crashed"
    assert all(turn[1] is None for turn in moves[2:]), "then it is out: it never moves again"
    assert all(None not in (t[0], t[2], t[3]) for t in moves), "the others move every turn"
    assert record["outcome"]["faults"][0]["at"] == 2, "retired before the third turn"
    distances = result.scores
    assert sorted(record["outcome"]["placement"]) == sorted(
        1 + sum(o > d for o in distances) for d in distances
    ), "places go by distance"
    assert len(record["outcome"]["points"]) == 4
    seats = [(p.entry, p.content_hash) for p in players]
    key = results.record_key(SPEC.id, seats, result.seed)
    full = results.make_record(record, key=key, season_seed=1, round_=1, when=results.utc_now())
    assert results.check_record(full) is None, "the referee's record passes every reader's check"
    end = final_state(SPEC, record)
    assert end.distance == distances, "the record plays back to the same distances"
    assert end.out == (False, True, False, False)


def test_every_seat_is_asked_at_once(registered: None, local_sandbox: Any, tmp_path: Path) -> None:
    """Each bot notes when it got its request and when it answered, 0.3 s later (the system's
    monotonic clock). Asked one after another, no bot could get its request before the previous
    one answered; asked at once, in every turn all four are thinking at the same moment."""
    BOTS["noting"] = (
        "import time; got = time.monotonic(); time.sleep(0.3); step = 1 + me % 3\n"
        "    sys.stderr.write(f'{turn} {got} {time.monotonic()}\\n')"
    )
    try:
        players = [build(local_sandbox, tmp_path, "noting").player() for _ in range(4)]
    finally:
        del BOTS["noting"]
    result = play_game(SPEC, players, local_sandbox, LIMITS, seed=1)
    assert not result.outcome.faults, [f.detail for f in result.outcome.faults]
    spans: dict[int, list[tuple[float, float]]] = {}
    for text in result.output:
        for line in text.splitlines():
            number, got, answered = line.split()
            spans.setdefault(int(number), []).append((float(got), float(answered)))
    # The last turn's notes may be cut off with the game (a bot writes them after its reply).
    spans.pop(max(spans))
    assert len(spans) > 3 and all(len(s) == 4 for s in spans.values()), spans
    for turn, seen in spans.items():
        assert max(g for g, _ in seen) < min(a for _, a in seen), (
            f"turn {turn}: some bot got its request only after another had answered"
        )


def test_a_free_for_all_season_of_four_seats_from_play_to_the_site(
    registered: None, tmp_path: Path
) -> None:
    """The toy through the whole pipeline: a free-for-all of 5 entries at tables of 4 (the
    built-in bot fills the empty seat), two setups taken in turn, a seat that crashes mid-game
    while the others play on, standings by place, ratings from every game, and the site. The
    game is one folder (tests/toy: its rules, codec, rules page, look and built-in bot) and one
    registry line (``registered``): nothing else is edited."""
    from runner.cli import stages
    from runner.rank import ratings
    from runner.season.config import load_config
    from runner.site.render import render_from_config

    bots = {
        "steady": "step = 1 + me % 3",
        "greedy": "step = 3",
        "careful": "step = 2 if turn % 2 else 1",
        "hasty": "step = 3 if turn < 3 else 1",
        # It crashes at turn 3 at a table of four (the check stage plays two seats).
        "crasher": "step = 3\n    if turn == 3 and seats == 4: raise SystemExit(7)",
    }
    for name, step in bots.items():
        folder = tmp_path / "entries" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(RUNNER.replace("STEP", step))
        (folder / "entry.yaml").write_text(
            f"name: {name}\nauthor: tests\ndescription: a racer\nlanguage: python\n"
        )
    (tmp_path / "tournament.yaml").write_text(
        "game: race-v1\nformat: free-for-all\nrounds: 2\njobs: 1\n"
        "limits: {move_cpu_ms: 500, move_wall_s: 2.0}\n"
        "free_for_all:\n  seats: 4\n  runs: 4\n"
        "  setups: [{name: sprint, goal: 6}, {name: marathon, goal: 30}]\n"
    )
    config = load_config(tmp_path / "tournament.yaml")
    report, rows, doc = stages.run_season(config, say=lambda _: None)
    assert report.failed == [], report.failed
    found, problems = results.read_records(config.output.results / results.MAIN_FILE)
    assert problems == [] and found, "the season recorded its games, all of them valid"
    assert {r["setup"]["name"] for r in found} == {"sprint", "marathon"}, "both setups played"
    assert all(len(r["seats"]) == 4 for r in found)
    faulted = [r for r in found if r["outcome"]["faults"]]
    assert faulted, "the crasher crashed in some game"
    for record in faulted:
        [fault] = record["outcome"]["faults"]
        seat = fault["seat"]
        assert record["seats"][seat]["entry"] == "crasher" and fault["turn"] == 3
        later = record["moves"][fault["at"] :]
        assert all(turn[seat] is None for turn in later), "out from its fault on"
        assert all(None not in turn[:seat] + turn[seat + 1 :] for turn in later), (
            "the others play on"
        )
    sprint = [r for r in found if r["setup"]["name"] == "sprint"]
    assert all(max(r["outcome"]["scores"]) <= 6 + 2 for r in sprint), "the setup reached the game"
    ranked = {row.entry: row for row in rows}
    assert set(ranked) == set(bots), "fillers are no entrants"
    assert ranked["crasher"].faults.get("crash", 0) == len(faulted)
    rated = ratings.fit(ratings.results_from_records(found), list(ranked))
    assert set(bots) <= set(rated) and all(rated[b].games > 0 for b in bots), "all rated"
    assert rated["crasher"].rating < max(r.rating for r in rated.values()), "ratings differ"
    report_site = render_from_config(config)
    pages = list((config.output.site / "games").glob("*.html"))
    assert len(pages) == len(found), report_site.summary()
    site = config.output.site
    assert "Race to Twenty" in (site / "rules.html").read_text(), "its rules page, from its folder"
    assert ".race-runner" in (site / "static" / "site.css").read_text(), "its look, from its folder"
    crossed = (config.output.site / "crosstable.html").read_text()
    assert "finished ahead" in crossed.lower() or "ahead of" in crossed.lower(), (
        "a cross-table of N-seat games says how often each finished ahead of each other"
    )
