"""Results records: keys, the append-only JSONL file, torn lines, dedupe, canonical order, merge."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from runner import __version__
from runner.games.base import Outcome
from runner.games.snakes import MOVES, Snakes
from runner.season.results import (
    ResultsWriter,
    canonical,
    make_record,
    merge,
    read_all,
    read_records,
    record_key,
    results_files,
    without_measured,
    write_atomic,
)

HASH_A, HASH_B = "a" * 64, "b" * 64


@functools.cache
def playout(seed: int) -> tuple[str, Outcome, tuple[float, ...]]:
    """A Snakes game of random moves from ``seed``: its moves, outcome and scores (a record's
    outcome must be what its moves give by the rules: runner/play/playback.py)."""
    rules, rng = Snakes(), random.Random(seed)
    state = rules.initial_state(random.Random(seed), 2, {})
    moves = []
    while (end := rules.outcome(state)) is None:
        move = rng.choice(MOVES)
        state = rules.apply(state, {rules.to_move(state)[0]: move})
        moves.append(move)
    return "".join(moves), end, rules.scores(state)


def fake(
    x: str,
    o: str,
    round_: int = 1,
    seed: int = 5,
    when: str = "2024-01-01T00:00:00Z",
) -> dict[str, Any]:
    seed += (
        round_  # a game's seed differs by round (runner/season/schedule.py), and so does its key
    )
    moves, end, scores = playout(seed)
    result = {
        "game": "snakes-v2",
        "seed": seed,
        "seats": [
            {"entry": x, "hash": HASH_A, "name": x.title()},
            {"entry": o, "hash": HASH_B, "name": o.title()},
        ],
        "moves": moves,
        "outcome": {
            "points": list(end.points),
            "scores": [int(s) for s in scores],
            "termination": end.termination.value,
            "faulty": None,
            "detail": end.detail,
        },
        "measured": {"cpu_s": [0.1, 0.2], "wall_s": 0.5},
    }
    key = record_key("snakes-v2", [(x, HASH_A), (o, HASH_B)], seed)
    return make_record(result, key=key, season_seed=9, round_=round_, when=when)


def test_key_covers_game_seats_hashes_and_seed_only() -> None:
    base = record_key("snakes-v2", [("x", HASH_A), ("o", HASH_B)], 1)
    assert base == record_key("snakes-v2", [("x", HASH_A), ("o", HASH_B)], 1)
    variants = [
        record_key("snakes-v3", [("x", HASH_A), ("o", HASH_B)], 1),  # another rules version
        record_key("snakes-v2", [("x", HASH_B), ("o", HASH_B)], 1),  # an edited entry
        record_key("snakes-v2", [("o", HASH_B), ("x", HASH_A)], 1),  # swapped seats
        record_key("snakes-v2", [("x", HASH_A), ("o", HASH_B)], 2),
    ]
    assert base not in variants and len(set(variants)) == len(variants)
    assert len(base) == 64


@pytest.mark.parametrize(
    ("seats", "seed", "setup"),
    [
        ([("x", HASH_A), ("o", HASH_B)], 1, None),
        ([("filler-1", HASH_A), ("zoë", HASH_B), ('q"uote\\', "")], 2**63 - 1, None),
        ([("x", HASH_A)] * 8, 0, {"name": "maze", "hash": HASH_B}),
    ],
)
def test_the_key_is_the_sha256_of_the_games_identity_as_json(
    seats: list[tuple[str, str]], seed: int, setup: dict[str, str] | None
) -> None:
    """The key is written out by hand (it is worked out for every record read and every game
    scheduled): it must be the digest of the JSON it always was."""
    identity: dict[str, Any] = {"game": "g-v1", "rules": "g-v1", "seats": [list(s) for s in seats]}
    identity["seed"] = seed
    if setup is not None:
        identity["setup"] = setup
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    assert record_key("g-v1", seats, seed, setup) == hashlib.sha256(text.encode()).hexdigest()


def test_record_fields() -> None:
    record = fake("x", "o", round_=2, when="T")
    assert list(record)[0] == "key"
    assert record["season_seed"] == 9 and record["round"] == 2
    assert record["host_version"] == __version__
    assert record["measured"] == {"cpu_s": [0.1, 0.2], "wall_s": 0.5, "when": "T"}
    assert "measured" not in without_measured(record)
    assert without_measured(fake("x", "o", when="A")) == without_measured(fake("x", "o", when="B"))


def test_append_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "results" / "games.jsonl"
    records = [fake("x", "o"), fake("o", "x")]
    with ResultsWriter(path) as writer:
        for record in records:
            writer.append(record)
    assert path.read_text().count("\n") == 2
    assert read_records(path) == (records, [])
    assert read_records(tmp_path / "missing.jsonl") == ([], [])


@pytest.mark.parametrize(("every", "while_open", "at_close"), [(3600.0, 0, 1), (0.0, 5, 0)])
def test_appends_are_synced_at_most_every_interval_and_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: float, while_open: int, at_close: int
) -> None:
    """An fsync follows a record only once the last one is ``sync_every_s`` old (a flush of the
    disk per quick game was ~0.5 ms of a season's CPU); every record is written at once (a
    reader, or a run after a kill, sees it) and the file is synced when the writer closes."""
    synced: list[int] = []
    real_fsync = os.fsync

    def counted(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counted)
    path = tmp_path / "games.jsonl"
    records = [fake("x", "o", seed=seed) for seed in range(5)]
    with ResultsWriter(path, sync_every_s=every) as writer:
        for record in records:
            writer.append(record)
        assert read_records(path) == (records, []), "written before any fsync"
        assert len(synced) == while_open
    assert len(synced) == while_open + at_close


def test_a_torn_last_line_is_skipped_then_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    whole, torn = fake("x", "o"), fake("o", "x")
    line = json.dumps(torn)
    path.write_text(json.dumps(whole) + "\n" + line[: len(line) // 2])
    records, problems = read_records(path)
    assert records == [whole]
    assert len(problems) == 1 and "the last line is incomplete" in problems[0]
    with ResultsWriter(path) as writer:
        assert writer.repaired
        writer.append(torn)
    assert read_records(path) == ([whole, torn], [])


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    first, second = fake("x", "o"), fake("o", "x")
    path.write_text(json.dumps(first))
    assert read_records(path) == ([first], [])
    with ResultsWriter(path) as writer:
        writer.append(second)
    assert read_records(path) == ([first, second], [])


def test_invalid_lines_are_skipped_with_their_number(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = fake("x", "o")
    path.write_text("not json\n" + json.dumps({"key": 3}) + "\n[]\n" + json.dumps(good) + "\n")
    records, problems = read_records(path)
    assert records == [good]
    assert [p.split(": ", 1)[1] for p in problems] == [
        "line 1 is skipped because it is not valid JSON.",
        "line 2 is skipped because it has no `key` or `round`.",
        "line 3 is skipped because it is not a JSON object.",
    ]


def test_canonical_dedupes_by_key_and_sorts_by_round_x_o() -> None:
    a1, b1, a2 = fake("a", "b"), fake("b", "a"), fake("a", "b", round_=2)
    duplicate = {**a1, "measured": {"when": "later"}}
    assert canonical([a2, b1, a1, duplicate]) == [a1, b1, a2]


def test_read_all_dedupes_across_files(tmp_path: Path) -> None:
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_atomic(one, [fake("a", "b"), fake("b", "a")])
    write_atomic(two, [fake("b", "a", when="other"), fake("a", "b", round_=2)])
    records, problems = read_all([one, two])
    assert problems == []
    assert [r["key"] for r in records] == [
        fake("a", "b")["key"],
        fake("b", "a")["key"],
        fake("a", "b", round_=2)["key"],
    ]
    assert records[1]["measured"]["when"] != "other", "the first record of a key must win"
    assert results_files(tmp_path) == [one, two]
    assert results_files(tmp_path / "nowhere") == []


def test_merge_writes_canonical_order_atomically(tmp_path: Path) -> None:
    one, two, out = tmp_path / "s1.jsonl", tmp_path / "s2.jsonl", tmp_path / "games.jsonl"
    write_atomic(one, [fake("b", "a"), fake("a", "b", round_=2)])
    write_atomic(two, [fake("a", "b"), fake("b", "a")])
    count, problems = merge([one, two], out)
    assert (count, problems) == (3, [])
    assert read_records(out)[0] == canonical(read_all([one, two])[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl", "s1.jsonl", "s2.jsonl"]
    count, _ = merge([out, one], out)  # the output may be an input
    assert count == 3
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        merge([one, tmp_path / "nope.jsonl"], out)


def test_a_setup_is_part_of_the_key_only_when_a_game_has_one(tmp_path: Path) -> None:
    from runner.season.results import check_record

    seats = [("x", HASH_A), ("o", HASH_B)]
    maze = {"name": "maze", "hash": "c" * 64}
    plain = record_key("snakes-v2", seats, 1)
    assert record_key("snakes-v2", seats, 1, None) == plain, "no setup: the key of before"
    keyed = record_key("snakes-v2", seats, 1, maze)
    assert keyed != plain
    assert keyed != record_key("snakes-v2", seats, 1, {**maze, "hash": "d" * 64})
    assert keyed != record_key("snakes-v2", seats, 1, {**maze, "name": "open"})
    record = fake("x", "o")
    result = {k: v for k, v in record.items() if k not in ("key", "season_seed", "round")}
    key = record_key("snakes-v2", seats, record["seed"], maze)
    with_setup = make_record(result, key=key, season_seed=9, round_=1, when="now", setup=maze)
    assert with_setup["setup"] == maze and list(with_setup)[-1] == "measured"
    assert check_record(with_setup) is None
    assert "its `key` is not the key" in str(
        check_record({**with_setup, "setup": {**maze, "hash": "e" * 64}})
    )
    assert "its `setup` is not" in str(check_record({**with_setup, "setup": {"name": "maze"}}))
    assert "its `key` is not the key" in str(
        check_record({k: v for k, v in with_setup.items() if k != "setup"})
    )
